/*
 * ref.h -- plain C reference implementations of the kernels in kernels/
 * (the tuner's verifiers).  Straightforward loops, accumulating in double
 * for the single-precision versions so the reference is at least as
 * accurate as any kernel variant it judges.
 */
#ifndef SPACEC_KERNELS_REF_H
#define SPACEC_KERNELS_REF_H

#ifdef __cplusplus
extern "C" {
#endif

/* C = alpha * A * B + beta * C (NN), column-major as BLAS:
 * A is M x K, B is K x N, C is M x N, X(i,j) = X[i + j*ldX].
 * As in BLAS, C is not read when beta == 0. */
void gemm_ref_f32(int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc);
void gemm_ref_f64(int M, int N, int K, double alpha, const double *A, int lda,
                  const double *B, int ldb, double beta, double *C, int ldc);

/* The same with op(X) = X (trans == 0) or X^T (trans != 0): op(A) is M x K
 * (A stored K x M when transposed), op(B) is K x N (B stored N x K). */
void gemm_ref_trans_f32(int trans_a, int trans_b, int M, int N, int K,
                        float alpha, const float *A, int lda, const float *B,
                        int ldb, float beta, float *C, int ldc);
void gemm_ref_trans_f64(int trans_a, int trans_b, int M, int N, int K,
                        double alpha, const double *A, int lda, const double *B,
                        int ldb, double beta, double *C, int ldc);

/* out[y*W + x] = sum_{fy,fx < 2*HFS+1} in_padded[(y+fy)*(W+2*HFS) + x+fx]
 *                                      * filter[fy*(2*HFS+1) + fx]
 * in_padded: (H + 2*HFS) rows of (W + 2*HFS) floats (the input padded by
 * HFS on every side); out: H rows of W floats. */
void conv2d_ref_f32(int W, int H, int HFS, const float *in_padded,
                    const float *filter, float *out);

#ifdef __cplusplus
}
#endif

#endif
