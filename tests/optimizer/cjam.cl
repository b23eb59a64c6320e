/*
 * cjam.cl - tests/optimizer/cjam.space: register tiling, `coarsen ...
 * jam`: statements before the loop (declarations renamed per item), the
 * loop (a block with its own declaration, unrolled too), statements after.
 */
#pragma spacetune coarsen cx cy 1 2 1 jam
__kernel void mm(__global const float *A, __global const float *B, __global float *C, const int N,
                 const int K)
{
	const int col = get_global_id(0);
	const int row = get_global_id(1);
	float acc = 0.0f;
	float sq = 0.0f;
#pragma spacetune unroll uk 1 4 *2
	for (int k = 0; k < K; k++) {
		const float a = A[row * K + k];
		acc += a * B[k * N + col];
		sq += a * a;
	}
	const float s = acc + sq * (float)get_global_size(0);
	C[row * N + col] = s;
}
