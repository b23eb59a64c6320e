#pragma spacetune coarsen cx cy 1 2 1 jam
__kernel void k(__global const float *A, __global const float *B, __global float *C, int n)
{
	const int col = get_global_id(0), row = get_global_id(1);
	C[row * n + col] = 0.0f;
	for (int i = 0; i < n; i++)
		C[row * n + col] += A[row * n + i] * B[i * n + col];
}
