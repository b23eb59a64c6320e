/*
 * gemm_naive.cu -- the reference kernel of spaces/gemm_cuda.space, the
 * CUDA twin of kernels/gemm_naive.cl: the same arguments as kernels/gemm.cu,
 * one thread per element of C, no tiling, the dot product accumulated in
 * double.
 *
 *   -D PRECISION=1|2 (float, double), -D TRANS_A=0|1, -D TRANS_B=0|1
 *   grid x block covering (M, N)
 */
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

extern "C" __global__ void gemm_naive(const int M, const int N, const int K, const real_t alpha,
                                      const real_t *A, const int lda,
                                      const real_t *B, const int ldb, const real_t beta,
                                      real_t *C, const int ldc)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    double s = 0;
    for (int k = 0; k < K; k++) {
        const double a = TRANS_A ? A[k + (long)i * lda] : A[i + (long)k * lda];
        const double b = TRANS_B ? B[j + (long)k * ldb] : B[k + (long)j * ldb];
        s += a * b;
    }
    real_t *c = &C[i + (long)j * ldc];
    *c = (real_t)((double)alpha * s + (beta == (real_t)0 ? 0.0 : (double)beta * *c));
}
