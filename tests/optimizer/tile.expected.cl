/* spacetune variant of tests/optimizer/tile.space: lx=8 ly=2 tk=8 uk=2
 * options: -Dlx=8 -Dly=2 -Dtk=8 -Duk=2
 * global: 24 20
 * local: 8 2
 */
/*
 * tile.cl - tests/optimizer/tile.space: a product with a row operand (A,
 * the same for a row of the work-group), a column operand (B) and a
 * strip shared by the whole work-group (w), over a loop from 1 to K
 * inclusive (`<=`), K a multiple of no tile size; `tile` stages all three.
 */
__kernel void mm(__global const float *A, __global const float *B, __global const float *w,
                 __global float *C, const int N, const int K)
{
	const int col = get_global_id(0);
	const int row = get_global_id(1);
	float acc = 0.0f;
	/* spacetune: tile tk = 8: A,B,w in __local memory, work-group 8 x 2; unroll uk = 2 */
	__local float spt_A[2][8];
	__local float spt_B[8][8];
	__local float spt_w[8];
	for (int spt_k0 = 1; spt_k0 <= K; spt_k0 += 8) {
		for (int spt_kk = (int)(get_local_id(0)); spt_kk < 8; spt_kk += 8)
			if (spt_k0 + spt_kk <= K)
				spt_A[get_local_id(1)][spt_kk] = A[row * K + (spt_k0 + spt_kk) - 1];
		for (int spt_kk = (int)(get_local_id(1)); spt_kk < 8; spt_kk += 2)
			if (spt_k0 + spt_kk <= K)
				spt_B[spt_kk][get_local_id(0)] = B[((spt_k0 + spt_kk) - 1) * N + col];
		for (int spt_kk = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); spt_kk < 8; spt_kk += 16)
			if (spt_k0 + spt_kk <= K)
				spt_w[spt_kk] = w[(spt_k0 + spt_kk) - 1];
		barrier(CLK_LOCAL_MEM_FENCE);
		if (spt_k0 + 7 <= K) {
			for (int k = spt_k0; k + 1 < spt_k0 + 8; k += 2) {
				{
					const float a = spt_A[get_local_id(1)][k - spt_k0];
					acc += a * spt_B[k - spt_k0][get_local_id(0)] * spt_w[k - spt_k0];
				}
				{
					const float a = spt_A[get_local_id(1)][(k + 1) - spt_k0];
					acc += a * spt_B[(k + 1) - spt_k0][get_local_id(0)] * spt_w[(k + 1) - spt_k0];
				}
			}
		} else {
			for (int k = spt_k0; k < spt_k0 + 8 && k <= K; k++) {
				{
					const float a = spt_A[get_local_id(1)][k - spt_k0];
					acc += a * spt_B[k - spt_k0][get_local_id(0)] * spt_w[k - spt_k0];
				}
			}
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	C[row * N + col] = acc + w[0];
}
