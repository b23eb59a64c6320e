/*
 * cublas_gemm.cu -- the vendor baseline for kernels/gemm.cl: cuBLAS SGEMM
 * and DGEMM, C = A * B (column-major, NN, alpha 1, beta 0), timed with CUDA
 * events.
 *
 *   cublas_gemm [--reps R] [--warmup W] [--prec s|d|sd] [M [N [K]]]
 *
 * Defaults: M = N = K = 4096, R = 21 timed runs after W = 3 warm-ups,
 * both precisions.  One line per (precision, math mode):
 *
 *   cublas sgemm default  M N K  median_ms min_ms  GFLOP/s  spot_err
 *
 * Single precision is measured twice: CUBLAS_DEFAULT_MATH (plain FP32,
 * TF32 is only used under CUBLAS_TF32_TENSOR_OP_MATH or the
 * NVIDIA_TF32_OVERRIDE environment variable, which we refuse to run with)
 * and CUBLAS_PEDANTIC_MATH (FP32 with no reduced-precision shortcuts at
 * all).  spot_err is the largest |C - ref| / (|A||B| row-column bound) of 256
 * entries recomputed on the host in long double: about 1e-7 for FP32, and
 * it would be about 1e-4 if TF32 had been used, so the line proves the
 * math mode as well as the result.
 *
 * Build: nvcc -O2 -o cublas_gemm bench/gpu/cublas_gemm.cu -lcublas
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_CUDA(call)                                                       \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                    cudaGetErrorString(e_));                                   \
            exit(1);                                                           \
        }                                                                      \
    } while (0)
#define CHECK_CUBLAS(call)                                                     \
    do {                                                                       \
        cublasStatus_t s_ = (call);                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
            fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__,         \
                    __LINE__, #call, (int)s_);                                 \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* xorshift64*: the same inputs on every run and machine. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rng_uniform(void) /* [-1, 1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

struct opts {
    int reps, warmup;
    long m, n, k;
};

/* One GEMM call of the right precision (alpha 1, beta 0). */
template <typename T> static cublasStatus_t gemm(cublasHandle_t h, const opts &o, const T *a,
                                                 const T *b, T *c);
template <> cublasStatus_t gemm<float>(cublasHandle_t h, const opts &o, const float *a,
                                       const float *b, float *c)
{
    const float one = 1, zero = 0;
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)o.m, (int)o.n, (int)o.k, &one, a,
                       (int)o.m, b, (int)o.k, &zero, c, (int)o.m);
}
template <> cublasStatus_t gemm<double>(cublasHandle_t h, const opts &o, const double *a,
                                        const double *b, double *c)
{
    const double one = 1, zero = 0;
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)o.m, (int)o.n, (int)o.k, &one, a,
                       (int)o.m, b, (int)o.k, &zero, c, (int)o.m);
}

template <typename T>
static void bench(const opts &o, const char *name, cublasMath_t mode, const char *mode_name)
{
    const size_t na = (size_t)o.m * o.k, nb = (size_t)o.k * o.n, nc = (size_t)o.m * o.n;
    T *ha = (T *)malloc(na * sizeof(T)), *hb = (T *)malloc(nb * sizeof(T));
    T *hc = (T *)malloc(nc * sizeof(T));
    if (!ha || !hb || !hc) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    rng_state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < na; i++) ha[i] = (T)rng_uniform();
    for (size_t i = 0; i < nb; i++) hb[i] = (T)rng_uniform();

    T *da, *db, *dc;
    CHECK_CUDA(cudaMalloc(&da, na * sizeof(T)));
    CHECK_CUDA(cudaMalloc(&db, nb * sizeof(T)));
    CHECK_CUDA(cudaMalloc(&dc, nc * sizeof(T)));
    CHECK_CUDA(cudaMemcpy(da, ha, na * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(db, hb, nb * sizeof(T), cudaMemcpyHostToDevice));

    cublasHandle_t h;
    CHECK_CUBLAS(cublasCreate(&h));
    CHECK_CUBLAS(cublasSetMathMode(h, mode));
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));

    for (int i = 0; i < o.warmup; i++)
        CHECK_CUBLAS(gemm<T>(h, o, da, db, dc));
    float *ms = (float *)malloc((size_t)o.reps * sizeof(float));
    for (int i = 0; i < o.reps; i++) {
        CHECK_CUDA(cudaEventRecord(e0));
        CHECK_CUBLAS(gemm<T>(h, o, da, db, dc));
        CHECK_CUDA(cudaEventRecord(e1));
        CHECK_CUDA(cudaEventSynchronize(e1));
        CHECK_CUDA(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    qsort(ms, (size_t)o.reps, sizeof *ms, cmp_float);
    const double med = o.reps % 2 ? ms[o.reps / 2] : 0.5 * (ms[o.reps / 2 - 1] + ms[o.reps / 2]);

    /* Spot check: error relative to sum |a||b|, the scale of the rounding. */
    CHECK_CUDA(cudaMemcpy(hc, dc, nc * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int s = 0; s < 256; s++) {
        long i = (long)((rng_uniform() + 1) * 0.5 * (double)o.m);
        long j = (long)((rng_uniform() + 1) * 0.5 * (double)o.n);
        long double acc = 0, mag = 0;
        for (long p = 0; p < o.k; p++) {
            long double x = (long double)ha[i + p * o.m] * hb[p + j * o.k];
            acc += x;
            mag += fabsl(x);
        }
        double err = (double)(fabsl((long double)hc[i + j * o.m] - acc) / (mag > 0 ? mag : 1));
        if (err > worst)
            worst = err;
    }
    const double flop = 2.0 * (double)o.m * (double)o.n * (double)o.k;
    printf("cublas %s %-8s %5ld %5ld %5ld %9.3f %9.3f %10.1f %9.2e\n", name, mode_name, o.m,
           o.n, o.k, med, (double)ms[0], flop / (med * 1e-3) * 1e-9, worst);
    fflush(stdout);

    free(ms);
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    CHECK_CUBLAS(cublasDestroy(h));
    CHECK_CUDA(cudaFree(da));
    CHECK_CUDA(cudaFree(db));
    CHECK_CUDA(cudaFree(dc));
    free(ha);
    free(hb);
    free(hc);
}

int main(int argc, char **argv)
{
    opts o = {21, 3, 4096, 4096, 4096};
    const char *prec = "sd";
    long sizes[3];
    int nsizes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            o.reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc)
            o.warmup = atoi(argv[++i]);
        else if (strcmp(argv[i], "--prec") == 0 && i + 1 < argc)
            prec = argv[++i];
        else if (nsizes < 3 && atol(argv[i]) > 0)
            sizes[nsizes++] = atol(argv[i]);
        else {
            fprintf(stderr, "usage: %s [--reps R] [--warmup W] [--prec s|d|sd] [M [N [K]]]\n",
                    argv[0]);
            return 2;
        }
    }
    if (o.reps < 1 || o.warmup < 0) {
        fprintf(stderr, "--reps must be >= 1 and --warmup >= 0\n");
        return 2;
    }
    if (nsizes > 0)
        o.m = o.n = o.k = sizes[0];
    if (nsizes > 1)
        o.n = sizes[1];
    if (nsizes > 2)
        o.k = sizes[2];
    /* The override would silently turn FP32 GEMM into TF32 tensor-core GEMM. */
    const char *ovr = getenv("NVIDIA_TF32_OVERRIDE");
    if (ovr && strcmp(ovr, "0") != 0) {
        fprintf(stderr, "NVIDIA_TF32_OVERRIDE=%s would enable TF32; unset it\n", ovr);
        return 2;
    }

    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    int ver = 0;
    cublasHandle_t h;
    CHECK_CUBLAS(cublasCreate(&h));
    CHECK_CUBLAS(cublasGetVersion(h, &ver));
    CHECK_CUBLAS(cublasDestroy(h));
    printf("# device: %s (cc %d.%d, %d SMs), cuBLAS %d, median of %d runs after %d warm-ups\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, ver, o.reps, o.warmup);
    printf("# lib    prec  mode         M     N     K median_ms    min_ms    GFLOP/s  spot_err\n");
    if (strchr(prec, 's')) {
        bench<float>(o, "sgemm", CUBLAS_DEFAULT_MATH, "default");
        bench<float>(o, "sgemm", CUBLAS_PEDANTIC_MATH, "pedantic");
    }
    if (strchr(prec, 'd'))
        bench<double>(o, "dgemm", CUBLAS_DEFAULT_MATH, "default");
    return 0;
}
