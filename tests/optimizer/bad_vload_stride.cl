#pragma spacetune coarsen cx cy 1 4 *2 jam
#pragma spacetune vload A,B vb
__kernel void k(__global const float *A, __global const float *B, __global float *C, int n)
{
	const int col = get_global_id(0), row = get_global_id(1);
	float acc = 0.0f;
	for (int i = 0; i < n; i++)
		acc += A[col * n + i] * B[i * n + col];
	C[row * n + col] = acc;
}
