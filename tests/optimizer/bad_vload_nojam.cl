#pragma spacetune coarsen cx 1 4 *2
#pragma spacetune vload B vb
__kernel void k(__global const float *A, __global const float *B, __global float *C, int n)
{
	const int col = get_global_id(0);
	float acc = 0.0f;
	for (int i = 0; i < n; i++)
		acc += A[i] * B[i * n + col];
	C[col] = acc;
}
