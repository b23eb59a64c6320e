/* spacetune variant of tests/optimizer/cjam.space: lx=2 ly=3 cx=2 cy=2 uk=2
 * options: -Dlx=2 -Dly=3 -Dcx=2 -Dcy=2 -Duk=2
 * global: 8 6
 * local: 2 3
 */
/*
 * cjam.cl - tests/optimizer/cjam.space: register tiling, `coarsen ...
 * jam`: statements before the loop (declarations renamed per item), the
 * loop (a block with its own declaration, unrolled too), statements after.
 */
__kernel void mm(__global const float *A, __global const float *B, __global float *C, const int N,
                 const int K)
{
	/* spacetune: coarsen cx = 2 cy = 2, jam: each work-item computes 4 items, one loop */
	const size_t spt_gid0_0 = min(get_global_id(0) + 0 * get_global_size(0), (size_t)13);
	const size_t spt_gid0_1 = min(get_global_id(0) + 1 * get_global_size(0), (size_t)13);
	const size_t spt_gid1_0 = min(get_global_id(1) + 0 * get_global_size(1), (size_t)8);
	const size_t spt_gid1_1 = min(get_global_id(1) + 1 * get_global_size(1), (size_t)8);
	const int col = spt_gid0_0;
	const int row = spt_gid1_0;
	float acc = 0.0f;
	float sq = 0.0f;
	const int col_spt1 = spt_gid0_1;
	const int row_spt1 = spt_gid1_0;
	float acc_spt1 = 0.0f;
	float sq_spt1 = 0.0f;
	const int col_spt2 = spt_gid0_0;
	const int row_spt2 = spt_gid1_1;
	float acc_spt2 = 0.0f;
	float sq_spt2 = 0.0f;
	const int col_spt3 = spt_gid0_1;
	const int row_spt3 = spt_gid1_1;
	float acc_spt3 = 0.0f;
	float sq_spt3 = 0.0f;
	{ /* spacetune: unroll uk = 2 */
		int k = 0;
		for (; k + 1 < K; k += 2) {
			{
				{
					const float a = A[row * K + k];
					acc += a * B[k * N + col];
					sq += a * a;
				}
				{
					const float a = A[row_spt1 * K + k];
					acc_spt1 += a * B[k * N + col_spt1];
					sq_spt1 += a * a;
				}
				{
					const float a = A[row_spt2 * K + k];
					acc_spt2 += a * B[k * N + col_spt2];
					sq_spt2 += a * a;
				}
				{
					const float a = A[row_spt3 * K + k];
					acc_spt3 += a * B[k * N + col_spt3];
					sq_spt3 += a * a;
				}
			}
			{
				{
					const float a = A[row * K + (k + 1)];
					acc += a * B[(k + 1) * N + col];
					sq += a * a;
				}
				{
					const float a = A[row_spt1 * K + (k + 1)];
					acc_spt1 += a * B[(k + 1) * N + col_spt1];
					sq_spt1 += a * a;
				}
				{
					const float a = A[row_spt2 * K + (k + 1)];
					acc_spt2 += a * B[(k + 1) * N + col_spt2];
					sq_spt2 += a * a;
				}
				{
					const float a = A[row_spt3 * K + (k + 1)];
					acc_spt3 += a * B[(k + 1) * N + col_spt3];
					sq_spt3 += a * a;
				}
			}
		}
		for (; k < K; k++) {
			{
				const float a = A[row * K + k];
				acc += a * B[k * N + col];
				sq += a * a;
			}
			{
				const float a = A[row_spt1 * K + k];
				acc_spt1 += a * B[k * N + col_spt1];
				sq_spt1 += a * a;
			}
			{
				const float a = A[row_spt2 * K + k];
				acc_spt2 += a * B[k * N + col_spt2];
				sq_spt2 += a * a;
			}
			{
				const float a = A[row_spt3 * K + k];
				acc_spt3 += a * B[k * N + col_spt3];
				sq_spt3 += a * a;
			}
		}
	}
	if (get_global_id(0) + 0 * get_global_size(0) < 14 && get_global_id(1) + 0 * get_global_size(1) < 9) {
		const float s = acc + sq * (float)(size_t)14;
		C[row * N + col] = s;
	}
	if (get_global_id(0) + 1 * get_global_size(0) < 14 && get_global_id(1) + 0 * get_global_size(1) < 9) {
		const float s_spt1 = acc_spt1 + sq_spt1 * (float)(size_t)14;
		C[row_spt1 * N + col_spt1] = s_spt1;
	}
	if (get_global_id(0) + 0 * get_global_size(0) < 14 && get_global_id(1) + 1 * get_global_size(1) < 9) {
		const float s_spt2 = acc_spt2 + sq_spt2 * (float)(size_t)14;
		C[row_spt2 * N + col_spt2] = s_spt2;
	}
	if (get_global_id(0) + 1 * get_global_size(0) < 14 && get_global_id(1) + 1 * get_global_size(1) < 9) {
		const float s_spt3 = acc_spt3 + sq_spt3 * (float)(size_t)14;
		C[row_spt3 * N + col_spt3] = s_spt3;
	}
}
