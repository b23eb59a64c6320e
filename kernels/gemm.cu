/*
 * gemm.cu -- C = alpha * op(A) * op(B) + beta * C, column-major (BLAS
 * order): the CUDA twin of kernels/gemm.cl, for spacetune's CUDA backend
 * (NVRTC).  The same compile-time parameters with the same meaning and
 * constraints (gemm.cl documents them), the same launch (block = local
 * size (DIM_M, DIM_N), grid = (M / BLK_M, N / BLK_N)) and the same kernel
 * arguments:
 *
 *   gemm(int M, int N, int K, REAL alpha, A, int lda, B, int ldb,
 *        REAL beta, C, int ldc)
 *
 * What CUDA adds, and gemm.cl cannot say:
 *   LDG_A, LDG_B   0 (default)/1: read A/B through the read-only data
 *                  cache (__ldg; BEAST's texture reads TEX_A/TEX_B, as
 *                  Kepler and later do them).
 *   LB_MIN         0 (default) or the minimum resident blocks per SM for
 *                  __launch_bounds__ (the register budget ptxas aims at).
 *   ASYNC_STAGES   0 (default): tiles go global -> registers -> shared
 *                  memory (PRE_A/PRE_B/DBUF as in gemm.cl).  S >= 2: an
 *                  S-stage pipeline of asynchronous copies global -> shared
 *                  (cp.async, sm_80 and later): S shared buffers, tiles
 *                  t+1 .. t+S-1 in flight while tile t is multiplied, one
 *                  __syncthreads per K step, no staging registers.  A tile
 *                  that is stored as it is kept (A not transposed, B
 *                  transposed: a k-row is contiguous in both) is copied in
 *                  DIM_VEC-element pieces (cp.async.cg, 16 bytes, when they
 *                  are 16 bytes; .ca with 4 or 8 otherwise); a tile that is
 *                  transposed on the way (A transposed, B not) element by
 *                  element (cp.async.ca, 4 or 8 bytes: the piece's other
 *                  elements then come from L1).  The shared layout and the
 *                  multiply are those of the other path.  PRE_A, PRE_B and
 *                  DBUF must be 0 (nothing is staged in registers) and
 *                  LDG_A/LDG_B have no effect (cp.async reads through L2 and,
 *                  for .ca, L1 anyway); the S buffers must fit the 48 KiB.
 * Shared memory is static, so a variant fits the device's 48 KiB per block
 * (the space's local_mem_size).  The shared/L1 split is the driver's, and
 * the bank width is 4 bytes on every architecture NVRTC still targets: the
 * other CUDA switches of BEAST's space have nothing left to choose here.
 *
 * Vector types: the global loads of DIM_VEC elements and the shared loads
 * of VEC_B / VM elements go through an aligned struct of that many REALs
 * (one 64- or 128-bit access); the arithmetic is scalar FMAs on the same
 * registers, as the OpenCL vector code compiles to.
 */

#ifndef REAL
#  if defined(PRECISION) && PRECISION == 2
#    define REAL double
#  else
#    define REAL float
#  endif
#endif

#ifndef TRANS_A
#define TRANS_A 0
#endif
#ifndef TRANS_B
#define TRANS_B 0
#endif
#ifndef DIM_VEC
#define DIM_VEC 1
#endif
#ifndef VEC_MUL
#define VEC_MUL 0
#endif
#ifndef PRE_A
#define PRE_A 0
#endif
#ifndef PRE_B
#define PRE_B 0
#endif
#ifndef PAD_A
#define PAD_A (TRANS_A ? 1 : 0)
#endif
#ifndef PAD_B
#define PAD_B (TRANS_B ? 1 : 0)
#endif
#ifndef DBUF
#define DBUF 0
#endif
#ifndef VEC_B
#define VEC_B 1
#endif
#ifndef LDG_A
#define LDG_A 0
#endif
#ifndef LDG_B
#define LDG_B 0
#endif
#ifndef LB_MIN
#define LB_MIN 0
#endif
#ifndef ASYNC_STAGES
#define ASYNC_STAGES 0
#endif

#if !defined(DIM_M) || !defined(DIM_N) || !defined(BLK_M) || !defined(BLK_N) || \
    !defined(BLK_K) || !defined(DIM_M_A) || !defined(DIM_N_A) ||               \
    !defined(DIM_M_B) || !defined(DIM_N_B)
#error "gemm.cu needs DIM_M DIM_N BLK_M BLK_N BLK_K DIM_M_A DIM_N_A DIM_M_B DIM_N_B"
#endif

#define NTHREADS (DIM_M * DIM_N)
#define THR_M (BLK_M / DIM_M)
#define THR_N (BLK_N / DIM_N)

#if TRANS_A
#define EXT0_A BLK_K
#define EXT1_A BLK_M
#else
#define EXT0_A BLK_M
#define EXT1_A BLK_K
#endif
#if TRANS_B
#define EXT0_B BLK_N
#define EXT1_B BLK_K
#else
#define EXT0_B BLK_K
#define EXT1_B BLK_N
#endif

/* ---- the space's correctness constraints, enforced (as gemm.cl) ---------- */
#if BLK_M % DIM_M != 0 || BLK_N % DIM_N != 0
#error "BLK_M % DIM_M and BLK_N % DIM_N must be 0"
#endif
#if DIM_VEC != 1 && DIM_VEC != 2 && DIM_VEC != 4
#error "DIM_VEC must be 1, 2 or 4"
#endif
#if DIM_M_A * DIM_N_A != NTHREADS || DIM_M_B * DIM_N_B != NTHREADS
#error "cant_reshape_a1/b1: the reading shapes must use every thread"
#endif
#if EXT0_A % (DIM_M_A * DIM_VEC) != 0 || EXT1_A % DIM_N_A != 0
#error "cant_reshape_a2: the A reading shape does not tile the A tile"
#endif
#if EXT0_B % (DIM_M_B * DIM_VEC) != 0 || EXT1_B % DIM_N_B != 0
#error "cant_reshape_b2: the B reading shape does not tile the B tile"
#endif
#if DBUF != 0 && DBUF != 1
#error "DBUF must be 0 or 1"
#endif
#if VEC_B != 1 && VEC_B != 2 && VEC_B != 4
#error "VEC_B must be 1, 2 or 4"
#endif
#if THR_N % VEC_B != 0 || (BLK_N + PAD_B) % VEC_B != 0
#error "VEC_B must divide THR_N and the shared row pitch BLK_N + PAD_B"
#endif

#if ASYNC_STAGES < 0 || ASYNC_STAGES == 1
#error "ASYNC_STAGES must be 0 (no asynchronous copies) or at least 2"
#endif
#if ASYNC_STAGES
#if PRE_A || PRE_B || DBUF
#error "ASYNC_STAGES replaces PRE_A, PRE_B and DBUF: set them to 0"
#endif
/* The contiguous pieces land on shared addresses aligned to their size. */
#if (!TRANS_A && (BLK_M + PAD_A) % DIM_VEC != 0) || (TRANS_B && (BLK_N + PAD_B) % DIM_VEC != 0)
#error "ASYNC_STAGES: the shared row of a tile copied in pieces must hold whole pieces"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "ASYNC_STAGES needs cp.async: sm_80 or later"
#endif
#endif

#define LDA0 (EXT0_A / (DIM_M_A * DIM_VEC))
#define LDA1 (EXT1_A / DIM_N_A)
#define LDB0 (EXT0_B / (DIM_M_B * DIM_VEC))
#define LDB1 (EXT1_B / DIM_N_B)

/* N REALs in one aligned access. */
template <int N> struct __align__(N * sizeof(REAL)) vec {
    REAL v[N];
};
typedef vec<DIM_VEC> realV;

/* Accumulators in vectors of VM consecutive rows only when the rows split
 * into whole vectors (else scalar, still correct: gemm.cl's rule); the
 * shared reads of A are vectors where the row pitch keeps them aligned. */
#if VEC_MUL && DIM_VEC > 1 && (THR_M % DIM_VEC == 0)
#define VM DIM_VEC
#else
#define VM 1
#endif
#define THR_MV (THR_M / VM)
#define A_VEC_OK ((BLK_M + PAD_A) % VM == 0)

#define COL_N(j) ((ty + ((j) / VEC_B) * DIM_N) * VEC_B + (j) % VEC_B)

#if DBUF || ASYNC_STAGES
#define SA_W sA[wbuf]
#define SB_W sB[wbuf]
#if ASYNC_STAGES
#define SA_R sA[rbuf]
#define SB_R sB[rbuf]
#else
#define SA_R sA[wbuf ^ 1]
#define SB_R sB[wbuf ^ 1]
#endif
#else
#define SA_W sA
#define SB_W sB
#define SA_R sA
#define SB_R sB
#endif

#if TRANS_A
#define SA_AT(e0, e1) SA_W[(e0)][(e1)]
#else
#define SA_AT(e0, e1) SA_W[(e1)][(e0)]
#endif
#if TRANS_B
#define SB_AT(e0, e1) SB_W[(e1)][(e0)]
#else
#define SB_AT(e0, e1) SB_W[(e0)][(e1)]
#endif

template <int LDG> __device__ __forceinline__ realV load_v(const REAL *p)
{
    if (LDG) {
        realV r;
#pragma unroll
        for (int v = 0; v < DIM_VEC; v++)
            r.v[v] = __ldg(p + v);
        return r;
    }
    return *reinterpret_cast<const realV *>(p);
}

/* Global -> registers: this thread's share of one stored tile (coalesced:
 * consecutive threads read consecutive vectors). */
#define LOAD_TILE(LDG, reg, ptr, ld, r0, r1, L0, L1, DM, DN)                   \
    _Pragma("unroll") for (int j = 0; j < (L1); j++)                          \
    _Pragma("unroll") for (int i = 0; i < (L0); i++)                          \
        (reg)[j][i] = load_v<LDG>((ptr) + ((r0) + i * (DM)) * DIM_VEC +        \
                                  ((r1) + j * (DN)) * (ld));

/* Registers -> shared memory (scattered down a column when transposed). */
#define STORE_TILE(reg, AT, r0, r1, L0, L1, DM, DN)                            \
    _Pragma("unroll") for (int j = 0; j < (L1); j++)                          \
    _Pragma("unroll") for (int i = 0; i < (L0); i++)                          \
    _Pragma("unroll") for (int v = 0; v < DIM_VEC; v++)                       \
        AT(((r0) + i * (DM)) * DIM_VEC + v, (r1) + j * (DN)) = (reg)[j][i].v[v];

#if ASYNC_STAGES
static_assert(ASYNC_STAGES * BLK_K * (BLK_M + PAD_A + BLK_N + PAD_B) * sizeof(REAL) <= 49152,
              "ASYNC_STAGES: the shared buffers exceed the 48 KiB of static shared memory");

#ifndef GEMM_CP_ASYNC_HOST
/* (tests/kernels/gemm_cu_host.sh runs this file on the host, where these
 * three are deferred copies of its own, so it defines GEMM_CP_ASYNC_HOST.)
 *
 * One asynchronous copy of BYTES (4, 8 or 16) global -> shared.  16-byte
 * pieces skip L1 (.cg: a block reads each once); smaller ones keep the
 * line in L1 (.ca), where the neighbouring elements of the same global
 * vector, copied next, find it. */
template <int BYTES> __device__ __forceinline__ void cp_async(REAL *s, const REAL *g)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(s);
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(a), "l"(g) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(a), "l"(g), "n"(BYTES)
                     : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most N of this thread's newest groups are in flight. */
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
#endif

/* Global -> shared without registers: this thread's share of one stored
 * tile (the elements LOAD_TILE and STORE_TILE move), in DIM_VEC-element
 * pieces when the shared row runs along the stored one (CONTIG), else one
 * element at a time down the shared column. */
#define ASYNC_TILE(AT, CONTIG, ptr, ld, r0, r1, L0, L1, DM, DN)                 \
    _Pragma("unroll") for (int j = 0; j < (L1); j++)                          \
    _Pragma("unroll") for (int i = 0; i < (L0); i++) {                        \
        const int e0 = ((r0) + i * (DM)) * DIM_VEC, e1 = (r1) + j * (DN);      \
        const REAL *g = (ptr) + e0 + e1 * (ld);                                \
        if (CONTIG) {                                                          \
            cp_async<DIM_VEC * sizeof(REAL)>(&AT(e0, e1), g);                  \
        } else {                                                               \
            _Pragma("unroll") for (int v = 0; v < DIM_VEC; v++)               \
                cp_async<sizeof(REAL)>(&AT(e0 + v, e1), g + v);                \
        }                                                                      \
    }

/* Both tiles of the current K step into the buffer wbuf. */
#define ASYNC_TILES()                                                          \
    ASYNC_TILE(SA_AT, !TRANS_A, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A) \
    ASYNC_TILE(SB_AT, TRANS_B, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
#endif

/* Register-blocked outer products on the shared tiles SA_R, SB_R. */
#define MULTIPLY_TILE()                                                        \
    _Pragma("unroll") for (int k = 0; k < BLK_K; k++) {                       \
        REAL ra[THR_M];                                                        \
        REAL rb[THR_N];                                                        \
        _Pragma("unroll") for (int i = 0; i < THR_MV; i++) {                  \
            const REAL *pa = &SA_R[k][(tx + i * DIM_M) * VM];                  \
            if (A_VEC_OK) {                                                    \
                const vec<VM> t = *reinterpret_cast<const vec<VM> *>(pa);      \
                _Pragma("unroll") for (int v = 0; v < VM; v++)                \
                    ra[i * VM + v] = t.v[v];                                   \
            } else {                                                           \
                _Pragma("unroll") for (int v = 0; v < VM; v++)                \
                    ra[i * VM + v] = pa[v];                                    \
            }                                                                  \
        }                                                                      \
        _Pragma("unroll") for (int j = 0; j < THR_N / VEC_B; j++) {           \
            const vec<VEC_B> t = *reinterpret_cast<const vec<VEC_B> *>(        \
                &SB_R[k][(ty + j * DIM_N) * VEC_B]);                           \
            _Pragma("unroll") for (int v = 0; v < VEC_B; v++)                 \
                rb[j * VEC_B + v] = t.v[v];                                    \
        }                                                                      \
        _Pragma("unroll") for (int i = 0; i < THR_M; i++)                     \
        _Pragma("unroll") for (int j = 0; j < THR_N; j++)                     \
            acc[i][j] = fma(ra[i], rb[j], acc[i][j]);                          \
    }

extern "C" __global__ void
#if LB_MIN > 0
__launch_bounds__(NTHREADS, LB_MIN)
#else
__launch_bounds__(NTHREADS)
#endif
gemm(const int M, const int N, const int K, const REAL alpha,
     const REAL *__restrict__ A, const int lda,
     const REAL *__restrict__ B, const int ldb, const REAL beta,
     REAL *__restrict__ C, const int ldc)
{
    (void)M; (void)N;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * DIM_M + tx;
    const int m0 = blockIdx.x * BLK_M;
    const int n0 = blockIdx.y * BLK_N;

    /* k-major tiles, aligned for the widest vector read of a row. */
#if ASYNC_STAGES
    __shared__ __align__(32) REAL sA[ASYNC_STAGES][BLK_K][BLK_M + PAD_A];
    __shared__ __align__(32) REAL sB[ASYNC_STAGES][BLK_K][BLK_N + PAD_B];
    int wbuf = 0, rbuf = 0;
#elif DBUF
    __shared__ __align__(32) REAL sA[2][BLK_K][BLK_M + PAD_A];
    __shared__ __align__(32) REAL sB[2][BLK_K][BLK_N + PAD_B];
    int wbuf = 0;
#else
    __shared__ __align__(32) REAL sA[BLK_K][BLK_M + PAD_A];
    __shared__ __align__(32) REAL sB[BLK_K][BLK_N + PAD_B];
#endif

    const int a0 = tid % DIM_M_A, a1 = tid / DIM_M_A;
    const int b0 = tid % DIM_M_B, b1 = tid / DIM_M_B;

#if TRANS_A
    const REAL *pA = A + (size_t)m0 * lda;
    const int stepA = BLK_K;
#else
    const REAL *pA = A + m0;
    const int stepA = BLK_K * lda;
#endif
#if TRANS_B
    const REAL *pB = B + n0;
    const int stepB = BLK_K * ldb;
#else
    const REAL *pB = B + (size_t)n0 * ldb;
    const int stepB = BLK_K;
#endif

#if !ASYNC_STAGES
    realV rgA[LDA1][LDA0];
    realV rgB[LDB1][LDB0];
#endif

    REAL acc[THR_M][THR_N];
#pragma unroll
    for (int i = 0; i < THR_M; i++)
#pragma unroll
        for (int j = 0; j < THR_N; j++)
            acc[i][j] = (REAL)0;

#if ASYNC_STAGES
    {
        const int ktiles = K / BLK_K;
        /* Prologue: tiles 0 .. S-2 in flight, one commit group each (an
         * empty group past the end of K, so that group t is always tile t). */
#pragma unroll
        for (int t = 0; t < ASYNC_STAGES - 1; t++) {
            if (t < ktiles) {
                ASYNC_TILES()
            }
            cp_async_commit();
            pA += stepA;
            pB += stepB;
            wbuf++;
        }
        for (int kt = 0; kt < ktiles; kt++) {
            /* Tile kt is group kt: once at most S-2 younger groups are in
             * flight, this thread's copies of it have landed.  The barrier
             * makes every thread's copies visible and ends every thread's
             * multiply of tile kt-1, whose buffer the next copy reuses. */
            cp_async_wait<ASYNC_STAGES - 2>();
            __syncthreads();
            if (kt + ASYNC_STAGES - 1 < ktiles) {
                ASYNC_TILES()
            }
            cp_async_commit();
            pA += stepA;
            pB += stepB;
            wbuf = wbuf + 1 == ASYNC_STAGES ? 0 : wbuf + 1;
            MULTIPLY_TILE();
            rbuf = rbuf + 1 == ASYNC_STAGES ? 0 : rbuf + 1;
        }
    }
#elif DBUF
    LOAD_TILE(LDG_A, rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
    LOAD_TILE(LDG_B, rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
    STORE_TILE(rgA, SA_AT, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
    STORE_TILE(rgB, SB_AT, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
    __syncthreads();
    for (int kk = 0; kk < K; kk += BLK_K) {
        const int more = kk + BLK_K < K;
        wbuf ^= 1;
        pA += stepA;
        pB += stepB;
#if PRE_A
        if (more) {
            LOAD_TILE(LDG_A, rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
        }
#endif
#if PRE_B
        if (more) {
            LOAD_TILE(LDG_B, rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        }
#endif
        MULTIPLY_TILE();
        if (more) {
#if !PRE_A
            LOAD_TILE(LDG_A, rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
#endif
#if !PRE_B
            LOAD_TILE(LDG_B, rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
#endif
            STORE_TILE(rgA, SA_AT, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
            STORE_TILE(rgB, SB_AT, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        }
        __syncthreads();
    }
#else
#if PRE_A
    LOAD_TILE(LDG_A, rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
#endif
#if PRE_B
    LOAD_TILE(LDG_B, rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
#endif
    for (int kk = 0; kk < K; kk += BLK_K) {
#if !PRE_A
        LOAD_TILE(LDG_A, rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
#endif
#if !PRE_B
        LOAD_TILE(LDG_B, rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
#endif
        STORE_TILE(rgA, SA_AT, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
        STORE_TILE(rgB, SB_AT, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        __syncthreads();
        pA += stepA;
        pB += stepB;
#if PRE_A
        if (kk + BLK_K < K) {
            LOAD_TILE(LDG_A, rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
        }
#endif
#if PRE_B
        if (kk + BLK_K < K) {
            LOAD_TILE(LDG_B, rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        }
#endif
        MULTIPLY_TILE();
        __syncthreads();
    }
#endif

    /* C = alpha*acc + beta*C (C not read when beta == 0, as in BLAS). */
#pragma unroll
    for (int j = 0; j < THR_N; j++) {
        REAL *pc = C + (size_t)(n0 + COL_N(j)) * ldc + m0;
#pragma unroll
        for (int i = 0; i < THR_MV; i++) {
            REAL *p = pc + (tx + i * DIM_M) * VM;
            vec<VM> r;
            if (beta != (REAL)0)
                r = *reinterpret_cast<const vec<VM> *>(p);
#pragma unroll
            for (int v = 0; v < VM; v++)
                r.v[v] = beta != (REAL)0 ? fma(beta, r.v[v], alpha * acc[i * VM + v][j])
                                         : alpha * acc[i * VM + v][j];
            *reinterpret_cast<vec<VM> *>(p) = r;
        }
    }
}
