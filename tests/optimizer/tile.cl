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
#pragma spacetune tile A,B,w tk 1 8 *2
#pragma spacetune unroll uk 1 4 *2
	for (int k = 1; k <= K; k++) {
		const float a = A[row * K + k - 1];
		acc += a * B[(k - 1) * N + col] * w[k - 1];
	}
	C[row * N + col] = acc + w[0];
}
