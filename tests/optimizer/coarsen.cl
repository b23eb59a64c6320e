/* Naive matrix multiplication C = A B (N x N), one element per work-item;
 * coarsened in both dimensions and its dot product unrolled. */
__kernel void mm(__global const float *A, __global const float *B, __global float *C, int n)
{
	#pragma spacetune coarsen wx wy 1 4 *2
	int x = get_global_id(0), y = get_global_id(1);
	if (x >= n || y >= n)
		return;
	float acc = 0.0f;
#pragma spacetune unroll uk 1 4 *2
	for (int k = 0; k < n; k++)
		acc += A[y * n + k] * B[k * n + x];
	C[y * n + x] = acc;
}
