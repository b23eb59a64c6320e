/* gemm_ref.c -- reference GEMM (see ref.h). */
#include "ref.h"

#define GEMM_REF_BODY(REAL, ACC)                                              \
    for (int j = 0; j < N; j++) {                                            \
        for (int i = 0; i < M; i++) {                                        \
            ACC s = 0;                                                        \
            for (int k = 0; k < K; k++) {                                    \
                ACC a = trans_a ? A[k + (long)i * lda] : A[i + (long)k * lda];\
                ACC b = trans_b ? B[j + (long)k * ldb] : B[k + (long)j * ldb];\
                s += a * b;                                                   \
            }                                                                 \
            REAL *c = &C[i + (long)j * ldc];                                  \
            /* BLAS: beta == 0 means C is output only (NaNs ignored). */      \
            *c = (REAL)((ACC)alpha * s + (beta == 0 ? (ACC)0 : (ACC)beta * *c)); \
        }                                                                     \
    }

/* Accumulation is one precision up (double / long double) so the reference
 * is tighter than any kernel variant it judges. */
void gemm_ref_trans_f32(int trans_a, int trans_b, int M, int N, int K,
                        float alpha, const float *A, int lda, const float *B,
                        int ldb, float beta, float *C, int ldc)
{
    GEMM_REF_BODY(float, double)
}

void gemm_ref_trans_f64(int trans_a, int trans_b, int M, int N, int K,
                        double alpha, const double *A, int lda, const double *B,
                        int ldb, double beta, double *C, int ldc)
{
    GEMM_REF_BODY(double, long double)
}

void gemm_ref_f32(int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc)
{
    gemm_ref_trans_f32(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm_ref_f64(int M, int N, int K, double alpha, const double *A, int lda,
                  const double *B, int ldb, double beta, double *C, int ldc)
{
    gemm_ref_trans_f64(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
