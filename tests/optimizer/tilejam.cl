/*
 * tilejam.cl - tests/optimizer/tilejam.space: `tile` and `coarsen ...
 * jam` together (HPL's local-memory and register tiling in one variant,
 * as real GEMM kernels do): each work-item computes cx x cy elements of
 * C from __local tiles of A's rows, B's columns and a strip w shared by
 * the work-group.  The loop runs from 1 to K inclusive (`<=`) and K = 7
 * is a multiple of no tile size, so the last tile is partial.
 */
#pragma spacetune coarsen cx cy 1 2 1 jam
__kernel void mm(__global const float *A, __global const float *B, __global const float *w,
                 __global float *C, const int N, const int K)
{
	const int col = get_global_id(0);
	const int row = get_global_id(1);
	float acc = 0.0f;
#pragma spacetune tile A,B,w tk 1 4 *2
#pragma spacetune unroll uk 1 2 1
	for (int k = 1; k <= K; k++) {
		const float a = A[row * K + k - 1];
		acc += a * B[(k - 1) * N + col] * w[k - 1];
	}
	C[row * N + col] = acc + w[0];
}
