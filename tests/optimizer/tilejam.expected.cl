/* spacetune variant of tests/optimizer/tilejam.space: lx=2 ly=2 cx=2 cy=2 tk=4 uk=2
 * options: -Dlx=2 -Dly=2 -Dcx=2 -Dcy=2 -Dtk=4 -Duk=2
 * global: 8 4
 * local: 2 2
 */
/*
 * tilejam.cl - tests/optimizer/tilejam.space: `tile` and `coarsen ...
 * jam` together (HPL's local-memory and register tiling in one variant,
 * as real GEMM kernels do): each work-item computes cx x cy elements of
 * C from __local tiles of A's rows, B's columns and a strip w shared by
 * the work-group.  The loop runs from 1 to K inclusive (`<=`) and K = 7
 * is a multiple of no tile size, so the last tile is partial.
 */
__kernel void mm(__global const float *A, __global const float *B, __global const float *w,
                 __global float *C, const int N, const int K)
{
	/* spacetune: coarsen cx = 2 cy = 2, jam: each work-item computes 4 items, one loop */
	const size_t spt_gid0_0 = min(get_global_id(0) + 0 * get_global_size(0), (size_t)15);
	const size_t spt_gid0_1 = min(get_global_id(0) + 1 * get_global_size(0), (size_t)15);
	const size_t spt_gid1_0 = min(get_global_id(1) + 0 * get_global_size(1), (size_t)5);
	const size_t spt_gid1_1 = min(get_global_id(1) + 1 * get_global_size(1), (size_t)5);
	const int col = spt_gid0_0;
	const int row = spt_gid1_0;
	float acc = 0.0f;
	const int col_spt1 = spt_gid0_1;
	const int row_spt1 = spt_gid1_0;
	float acc_spt1 = 0.0f;
	const int col_spt2 = spt_gid0_0;
	const int row_spt2 = spt_gid1_1;
	float acc_spt2 = 0.0f;
	const int col_spt3 = spt_gid0_1;
	const int row_spt3 = spt_gid1_1;
	float acc_spt3 = 0.0f;
	/* spacetune: tile tk = 4: A,B,w in __local memory, work-group 2 x 2 of 2 x 2 items; unroll uk = 2 */
	__local float spt_A[4][4];
	__local float spt_B[4][4];
	__local float spt_w[4];
	for (int spt_k0 = 1; spt_k0 <= K; spt_k0 += 4) {
		for (int spt_kk = (int)(get_local_id(0)); spt_kk < 4; spt_kk += 2)
			if (spt_k0 + spt_kk <= K) {
				spt_A[get_local_id(1)][spt_kk] = A[row * K + (spt_k0 + spt_kk) - 1];
				spt_A[get_local_id(1) + 2][spt_kk] = A[row_spt2 * K + (spt_k0 + spt_kk) - 1];
			}
		for (int spt_kk = (int)(get_local_id(1)); spt_kk < 4; spt_kk += 2)
			if (spt_k0 + spt_kk <= K) {
				spt_B[spt_kk][get_local_id(0)] = B[((spt_k0 + spt_kk) - 1) * N + col];
				spt_B[spt_kk][get_local_id(0) + 2] = B[((spt_k0 + spt_kk) - 1) * N + col_spt1];
			}
		for (int spt_kk = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); spt_kk < 4; spt_kk += 4)
			if (spt_k0 + spt_kk <= K)
				spt_w[spt_kk] = w[(spt_k0 + spt_kk) - 1];
		barrier(CLK_LOCAL_MEM_FENCE);
		if (spt_k0 + 3 <= K) {
			for (int k = spt_k0; k + 1 < spt_k0 + 4; k += 2) {
				{
					{
						const float a = spt_A[get_local_id(1)][k - spt_k0];
						acc += a * spt_B[k - spt_k0][get_local_id(0)] * spt_w[k - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1)][k - spt_k0];
						acc_spt1 += a * spt_B[k - spt_k0][get_local_id(0) + 2] * spt_w[k - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1) + 2][k - spt_k0];
						acc_spt2 += a * spt_B[k - spt_k0][get_local_id(0)] * spt_w[k - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1) + 2][k - spt_k0];
						acc_spt3 += a * spt_B[k - spt_k0][get_local_id(0) + 2] * spt_w[k - spt_k0];
					}
				}
				{
					{
						const float a = spt_A[get_local_id(1)][(k + 1) - spt_k0];
						acc += a * spt_B[(k + 1) - spt_k0][get_local_id(0)] * spt_w[(k + 1) - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1)][(k + 1) - spt_k0];
						acc_spt1 += a * spt_B[(k + 1) - spt_k0][get_local_id(0) + 2] * spt_w[(k + 1) - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1) + 2][(k + 1) - spt_k0];
						acc_spt2 += a * spt_B[(k + 1) - spt_k0][get_local_id(0)] * spt_w[(k + 1) - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1) + 2][(k + 1) - spt_k0];
						acc_spt3 += a * spt_B[(k + 1) - spt_k0][get_local_id(0) + 2] * spt_w[(k + 1) - spt_k0];
					}
				}
			}
		} else {
			for (int k = spt_k0; k < spt_k0 + 4 && k <= K; k++) {
				{
					{
						const float a = spt_A[get_local_id(1)][k - spt_k0];
						acc += a * spt_B[k - spt_k0][get_local_id(0)] * spt_w[k - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1)][k - spt_k0];
						acc_spt1 += a * spt_B[k - spt_k0][get_local_id(0) + 2] * spt_w[k - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1) + 2][k - spt_k0];
						acc_spt2 += a * spt_B[k - spt_k0][get_local_id(0)] * spt_w[k - spt_k0];
					}
					{
						const float a = spt_A[get_local_id(1) + 2][k - spt_k0];
						acc_spt3 += a * spt_B[k - spt_k0][get_local_id(0) + 2] * spt_w[k - spt_k0];
					}
				}
			}
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (get_global_id(0) + 0 * get_global_size(0) < 16 && get_global_id(1) + 0 * get_global_size(1) < 6) {
		C[row * N + col] = acc + w[0];
	}
	if (get_global_id(0) + 1 * get_global_size(0) < 16 && get_global_id(1) + 0 * get_global_size(1) < 6) {
		C[row_spt1 * N + col_spt1] = acc_spt1 + w[0];
	}
	if (get_global_id(0) + 0 * get_global_size(0) < 16 && get_global_id(1) + 1 * get_global_size(1) < 6) {
		C[row_spt2 * N + col_spt2] = acc_spt2 + w[0];
	}
	if (get_global_id(0) + 1 * get_global_size(0) < 16 && get_global_id(1) + 1 * get_global_size(1) < 6) {
		C[row_spt3 * N + col_spt3] = acc_spt3 + w[0];
	}
}
