/* spacetune variant of tests/optimizer/coarsen.space: wx=2 wy=4 uk=2
 * options: -Dwx=2 -Dwy=4 -Duk=2
 * global: 19 10
 * local: 0 0
 */
/* Naive matrix multiplication C = A B (N x N), one element per work-item;
 * coarsened in both dimensions and its dot product unrolled. */
/* spacetune: coarsen wx = 2 wy = 4: one item of the original NDRange */
void mm_spacetune_item(__global const float *A, __global const float *B, __global float *C, int n, size_t spt_gid0, size_t spt_gid1)
{
	int x = spt_gid0, y = spt_gid1;
	if (x >= n || y >= n)
		return;
	float acc = 0.0f;
	{ /* spacetune: unroll uk = 2 */
		int k = 0;
		for (; k + 1 < n; k += 2) {
			{ acc += A[y * n + k] * B[k * n + x]; }
			{ acc += A[y * n + (k + 1)] * B[(k + 1) * n + x]; }
		}
		for (; k < n; k++) { acc += A[y * n + k] * B[k * n + x]; }
	}
	C[y * n + x] = acc;
}

__kernel void mm(__global const float *A, __global const float *B, __global float *C, int n)
{
	for (size_t spt_c1 = 0; spt_c1 < 4; spt_c1++)
		for (size_t spt_c0 = 0; spt_c0 < 2; spt_c0++)
			{
				size_t spt_g0 = get_global_id(0) + spt_c0 * get_global_size(0);
				size_t spt_g1 = get_global_id(1) + spt_c1 * get_global_size(1);
				if (spt_g0 < 37 && spt_g1 < 37)
					mm_spacetune_item(A, B, C, n, spt_g0, spt_g1);
			}
}
