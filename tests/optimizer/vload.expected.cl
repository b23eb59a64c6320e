/* spacetune variant of tests/optimizer/vload.space: lx=2 ly=2 cx=2 cy=2 vb=2 tk=1 uk=1
 * options: -Dlx=2 -Dly=2 -Dcx=2 -Dcy=2 -Dvb=2 -Dtk=1 -Duk=1
 * global: 12 4
 * local: 2 2
 */
/*
 * vload.cl - tests/optimizer/vload.space: `vload` with `coarsen ... jam`:
 * the items along dimension 0 in runs of vb, B read as one vector per run
 * (from its tile when `tile` stages it), bias too (never staged; its
 * index follows get_global_id(1) as well, so one vector per run and row
 * of items).  N = 24 leaves some items past the NDRange with lx = cx = 4
 * (then untiled reads stay scalar).
 */
__kernel void mm(__global const float *A, __global const float *B, __global const float *bias,
                 __global float *C, const int N, const int K)
{
	/* spacetune: coarsen cx = 2 cy = 2, jam: each work-item computes 4 items, one loop; vload vb = 2: dimension 0's items in runs of 2 */
	const size_t spt_gid0_0 = min((get_global_id(0) + 0 * get_global_size(0)) * 2 + 0, (size_t)23);
	const size_t spt_gid0_1 = min((get_global_id(0) + 0 * get_global_size(0)) * 2 + 1, (size_t)23);
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
	for (int k = 0; k < K; k++)
		{
		const float2 spt_v0_0_0 = vload2(0, &B[k * N + col]);
		const float2 spt_v1_0_0 = vload2(0, &bias[row * N + col]);
		const float2 spt_v1_0_1 = vload2(0, &bias[row_spt2 * N + col_spt2]);
		{ acc += A[row * K + k] * spt_v0_0_0.s0 + spt_v1_0_0.s0; }
		{ acc_spt1 += A[row_spt1 * K + k] * spt_v0_0_0.s1 + spt_v1_0_0.s1; }
		{ acc_spt2 += A[row_spt2 * K + k] * spt_v0_0_0.s0 + spt_v1_0_1.s0; }
		{ acc_spt3 += A[row_spt3 * K + k] * spt_v0_0_0.s1 + spt_v1_0_1.s1; }
	}
	if ((get_global_id(0) + 0 * get_global_size(0)) * 2 + 0 < 24 && get_global_id(1) + 0 * get_global_size(1) < 6) {
		C[row * N + col] = acc;
	}
	if ((get_global_id(0) + 0 * get_global_size(0)) * 2 + 1 < 24 && get_global_id(1) + 0 * get_global_size(1) < 6) {
		C[row_spt1 * N + col_spt1] = acc_spt1;
	}
	if ((get_global_id(0) + 0 * get_global_size(0)) * 2 + 0 < 24 && get_global_id(1) + 1 * get_global_size(1) < 6) {
		C[row_spt2 * N + col_spt2] = acc_spt2;
	}
	if ((get_global_id(0) + 0 * get_global_size(0)) * 2 + 1 < 24 && get_global_id(1) + 1 * get_global_size(1) < 6) {
		C[row_spt3 * N + col_spt3] = acc_spt3;
	}
}
