/*
 * gemm_cu_host.cc -- kernels/gemm.cu run on the host, for CI, which has no
 * GPU: each CUDA thread of a block is a POSIX thread, __syncthreads() a
 * barrier, __shared__ a static array (blocks run one after another), and
 * cp.async a copy deferred to the cp.async.wait_group that must complete
 * it (the latest moment the hardware may land it) or done at once (the
 * earliest): each K is run both ways.  Built with the kernel's defines by
 * tests/kernels/gemm_cu_host.sh, under ThreadSanitizer (a missing barrier
 * is a race between threads) or AddressSanitizer (a tile index out of its
 * shared array or out of A, B, C).
 *
 *   gemm_cu_host M N ALPHA BETA K...
 *
 * C = ALPHA * op(A) * op(B) + BETA * C, column-major as the kernel's
 * BLAS-style arguments, A, B and C small integers so that every sum is
 * exact; checked element by element against a plain triple loop here (the
 * oracle: it shares nothing with the kernel's tiling).  Exit 0 when every
 * case is equal, 1 with the first differing elements of each case that is
 * not, 2 on a usage error.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <vector>

/* ---- the CUDA C++ the kernel uses, for the host ------------------------- */
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

struct emu_dim3 {
    unsigned x, y, z;
};
static thread_local emu_dim3 threadIdx;
static emu_dim3 blockIdx;
static pthread_barrier_t emu_barrier;

static void __syncthreads()
{
    pthread_barrier_wait(&emu_barrier);
}

template <class T> static T __ldg(const T *p)
{
    return *p;
}

/* cp.async: each thread's copies, in commit groups. */
struct emu_copy {
    void *dst;
    const void *src;
    int bytes;
};
static int emu_defer = 1;
static thread_local std::vector<std::vector<emu_copy>> emu_groups; /* committed */
static thread_local std::vector<emu_copy> emu_open;                /* not yet */

static inline void emu_land(const emu_copy &c)
{
    std::memcpy(c.dst, c.src, (size_t)c.bytes);
}

#define GEMM_CP_ASYNC_HOST 1
template <int BYTES, class R> static inline void cp_async(R *s, const R *g)
{
    static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
    /* cp.async needs both addresses aligned to the size. */
    if ((uintptr_t)s % BYTES != 0 || (uintptr_t)g % BYTES != 0) {
        std::fprintf(stderr, "cp.async of %d bytes misaligned: shared %p, global %p\n", BYTES,
                     (void *)s, (const void *)g);
        std::abort();
    }
    const emu_copy c = {s, g, BYTES};
    if (emu_defer)
        emu_open.push_back(c);
    else
        emu_land(c);
}

static inline void cp_async_commit()
{
    emu_groups.push_back(emu_open);
    emu_open.clear();
}

template <int N> static inline void cp_async_wait()
{
    while (emu_groups.size() > (size_t)N) {
        for (const emu_copy &c : emu_groups.front())
            emu_land(c);
        emu_groups.erase(emu_groups.begin());
    }
}

#include "../../kernels/gemm.cu"

/* ---- the launch ------------------------------------------------------------- */
struct emu_args {
    int M, N, K, lda, ldb, ldc;
    REAL alpha, beta;
    const REAL *A, *B;
    REAL *C;
    unsigned tx, ty;
};

static void *emu_thread(void *p)
{
    const emu_args *a = static_cast<const emu_args *>(p);
    threadIdx = {a->tx, a->ty, 0};
    emu_groups.clear();
    emu_open.clear();
    gemm(a->M, a->N, a->K, a->alpha, a->A, a->lda, a->B, a->ldb, a->beta, a->C, a->ldc);
    return nullptr;
}

static int emu_launch(emu_args base)
{
    const unsigned nthreads = DIM_M * DIM_N;
    std::vector<pthread_t> th(nthreads);
    std::vector<emu_args> args(nthreads, base);
    for (unsigned by = 0; by < (unsigned)(base.N / BLK_N); by++)
        for (unsigned bx = 0; bx < (unsigned)(base.M / BLK_M); bx++) {
            blockIdx = {bx, by, 0};
            pthread_barrier_init(&emu_barrier, nullptr, nthreads);
            for (unsigned t = 0; t < nthreads; t++) {
                args[t].tx = t % DIM_M;
                args[t].ty = t / DIM_M;
                if (pthread_create(&th[t], nullptr, emu_thread, &args[t]) != 0) {
                    std::perror("pthread_create");
                    return -1;
                }
            }
            for (unsigned t = 0; t < nthreads; t++)
                pthread_join(th[t], nullptr);
            pthread_barrier_destroy(&emu_barrier);
        }
    return 0;
}

/* Small integers: products and sums of a few thousand stay exact. */
static void fill(std::vector<REAL> &v, unsigned seed)
{
    for (size_t i = 0; i < v.size(); i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (REAL)((int)((seed >> 16) % 9) - 4);
    }
}

/* One case: 0 when the kernel's C is the triple loop's. */
static int run_case(int M, int N, int K, REAL alpha, REAL beta)
{
    const int lda = TRANS_A ? K : M, ldb = TRANS_B ? N : K, ldc = M;
    std::vector<REAL> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N), want;
    fill(A, 1);
    fill(B, 2);
    fill(C, 3);
    want = C;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            REAL s = 0;
            for (int k = 0; k < K; k++) {
                const REAL a = TRANS_A ? A[k + (size_t)i * lda] : A[i + (size_t)k * lda];
                const REAL b = TRANS_B ? B[j + (size_t)k * ldb] : B[k + (size_t)j * ldb];
                s += a * b;
            }
            REAL &w = want[i + (size_t)j * ldc];
            w = alpha * s + (beta != 0 ? beta * w : 0);
        }

    emu_args a = {M, N, K, lda, ldb, ldc, alpha, beta, A.data(), B.data(), C.data(), 0, 0};
    if (emu_launch(a) != 0)
        return 1;
    int bad = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            const REAL got = C[i + (size_t)j * ldc], w = want[i + (size_t)j * ldc];
            if (got != w && bad++ < 5)
                std::fprintf(stderr, "C(%d,%d) = %g, want %g\n", i, j, (double)got, (double)w);
        }
    if (bad)
        std::fprintf(stderr, "M=%d N=%d K=%d, copies %s: %d of %d elements differ\n", M, N, K,
                     emu_defer ? "deferred" : "at once", bad, M * N);
    return bad != 0;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        std::fprintf(stderr, "usage: gemm_cu_host M N ALPHA BETA K...\n");
        return 2;
    }
    const int M = std::atoi(argv[1]), N = std::atoi(argv[2]);
    const REAL alpha = (REAL)std::atof(argv[3]), beta = (REAL)std::atof(argv[4]);
    int failed = 0;
    for (int i = 5; i < argc; i++) {
        const int K = std::atoi(argv[i]);
        if (M <= 0 || N <= 0 || K <= 0 || M % BLK_M || N % BLK_N || K % BLK_K) {
            std::fprintf(stderr, "gemm_cu_host: M, N, K must be positive multiples of the tile\n");
            return 2;
        }
        /* The register path makes no copies: once. */
        for (emu_defer = ASYNC_STAGES ? 1 : 0; emu_defer >= 0; emu_defer--)
            failed |= run_case(M, N, K, alpha, beta);
    }
    return failed;
}
