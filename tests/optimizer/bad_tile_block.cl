__kernel void k(__global const float *A, __global const float *B, __global float *C, int n)
{
	const int col = get_global_id(0), row = get_global_id(1);
	float acc = 0.0f;
#pragma spacetune tile A,B t 1 4 *2
	for (int i = 0; i < n; i++)
		acc += A[row * n + col + i] * B[i * n + col];
	C[row * n + col] = acc;
}
