/*
 * vload.cl - tests/optimizer/vload.space: `vload` with `coarsen ... jam`:
 * the items along dimension 0 in runs of vb, B read as one vector per run
 * (from its tile when `tile` stages it), bias too (never staged; its
 * index follows get_global_id(1) as well, so one vector per run and row
 * of items).  N = 24 leaves some items past the NDRange with lx = cx = 4
 * (then untiled reads stay scalar).
 */
#pragma spacetune coarsen cx cy 1 4 *2 jam
#pragma spacetune vload B,bias vb
__kernel void mm(__global const float *A, __global const float *B, __global const float *bias,
                 __global float *C, const int N, const int K)
{
	const int col = get_global_id(0);
	const int row = get_global_id(1);
	float acc = 0.0f;
#pragma spacetune tile A,B tk 1 4 *4
#pragma spacetune unroll uk 1 2 1
	for (int k = 0; k < K; k++)
		acc += A[row * K + k] * B[k * N + col] + bias[row * N + col];
	C[row * N + col] = acc;
}
