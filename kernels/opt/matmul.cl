/*
 * matmul.cl - C = A * B, row-major (A is M x K, B is K x N), written the
 * naive way: one work-item per element of C, every operand read from
 * global memory.  The optimizer's benchmark (spaces/opt/matmul.space),
 * following the matrix products of the HPL and OCLoptimizer papers.  The
 * annotations are the optimizer's to apply, the work-group shape the
 * space's:
 * - `coarsen ... jam`: each work-item computes c_x x c_y elements of C
 *   in one loop over k (HPL's register tiling: the items of one row share
 *   A's element, those of one column B's);
 * - `tile`: the rows of A and the columns of B that a work-group shares
 *   staged in __local memory, t_k iterations of k at a time (HPL's
 *   local-memory tiling); with the jammed coarsening the tiles hold
 *   every item's rows and columns, so a point can do both (a GEMM's
 *   register block computed from local-memory tiles);
 * - `vload B`: a work-item's c_x items of a row in runs of v_b
 *   consecutive columns, so that a run's reads of B are one vloadN (from
 *   B or from its tile);
 * - `unroll` of the loop over k (over one tile when tiled).
 * Every factor 1 is the kernel as written.
 */
#pragma spacetune coarsen c_x c_y 1 8 *2 jam
#pragma spacetune vload B v_b
__kernel void matmul(const int M, const int N, const int K, __global const float *A,
                     __global const float *B, __global float *C)
{
	const int col = get_global_id(0);
	const int row = get_global_id(1);
	float acc = 0.0f;
#pragma spacetune tile A,B t_k 1 64 *2
#pragma spacetune unroll u_k 1 16 *2
	for (int k = 0; k < K; k++)
		acc += A[row * K + k] * B[k * N + col];
	C[row * N + col] = acc;
}
