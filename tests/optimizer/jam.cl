/* Naive matrix multiplication, one column of C per work-item; the row
 * loop is unrolled and jammed (a register tile of rows). */
__kernel void mmcol(__global const float *A, __global const float *B, __global float *C, int n)
{
	int x = get_global_id(0);
#pragma spacetune unroll_jam ji 1 5 1
	for (int i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < n; k++)
			acc += A[i * n + k] * B[k * n + x];
		C[i * n + x] = acc;
	}
}
