/*
 * matmul.cl - C = A * B, row-major (A is M x K, B is K x N), written the
 * naive way: one work-item per element of C, every operand read from
 * global memory.  The optimizer's benchmark (spaces/opt/matmul.space),
 * following the matrix products of the HPL and OCLoptimizer papers.  The
 * annotations (work per item, unrolling) are the optimizer's to apply,
 * the work-group shape the space's.
 */
#pragma spacetune coarsen c_x c_y 1 4 *2
__kernel void matmul(const int M, const int N, const int K, __global const float *A,
                     __global const float *B, __global float *C)
{
	const int col = get_global_id(0);
	const int row = get_global_id(1);
	float acc = 0.0f;
#pragma spacetune unroll u_k 1 16 *2
	for (int k = 0; k < K; k++)
		acc += A[row * K + k] * B[k * N + col];
	C[row * N + col] = acc;
}
