/*
 * gemm_naive.cl -- the reference kernel of spaces/gemm.space: the same
 * arguments as kernels/gemm.cl, one work-item per element of C, no tiling,
 * so there is nothing to get wrong but the arithmetic.
 *
 *   -D PRECISION=1|2 (float, double), -D TRANS_A=0|1, -D TRANS_B=0|1
 *   global = (M, N), any local size
 *
 * The dot product accumulates in double whenever the device has fp64, so
 * in single precision the reference is much tighter than the variants it
 * judges (the same choice as kernels/gemm_ref.c).  As in BLAS, C is not
 * read when beta == 0.
 */
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif

#if defined(PRECISION) && PRECISION == 2
typedef double real_t;
#else
typedef float real_t;
#endif
#ifndef TRANS_A
#define TRANS_A 0
#endif
#ifndef TRANS_B
#define TRANS_B 0
#endif

__kernel void gemm_naive(const int M, const int N, const int K, const real_t alpha,
                         __global const real_t *A, const int lda,
                         __global const real_t *B, const int ldb, const real_t beta,
                         __global real_t *C, const int ldc)
{
    const int i = get_global_id(0), j = get_global_id(1);
    if (i >= M || j >= N)
        return;
    acc_t s = 0;
    for (int k = 0; k < K; k++) {
        const acc_t a = TRANS_A ? A[k + (long)i * lda] : A[i + (long)k * lda];
        const acc_t b = TRANS_B ? B[j + (long)k * ldb] : B[k + (long)j * ldb];
        s += a * b;
    }
    __global real_t *c = &C[i + (long)j * ldc];
    *c = (real_t)((acc_t)alpha * s + (beta == (real_t)0 ? (acc_t)0 : (acc_t)beta * *c));
}
