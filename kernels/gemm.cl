/*
 * gemm.cl -- C = alpha * op(A) * op(B) + beta * C, column-major (BLAS order),
 * parameterised like BEAST's / MAGMA's "gemm_stencil" (spaces/gemm_beast.space).
 *
 * ---------------------------------------------------------------------------
 * COMPILE-TIME PARAMETERS (-D NAME=VALUE)
 *
 *   PRECISION      1: float (default), 2: double.  Alternatively -D REAL=float
 *                  or -D REAL=double (then PRECISION is not needed).
 *   TRANS_A/TRANS_B 0 (default): op(X) = X,  1: op(X) = X^T  (NN, TN, NT, TT).
 *   DIM_M, DIM_N   work-group shape; the kernel requires local size (DIM_M, DIM_N).
 *   BLK_M, BLK_N   tile of C computed by one work-group (BLK_M % DIM_M == 0,
 *                  BLK_N % DIM_N == 0); each work-item computes
 *                  THR_M x THR_N = (BLK_M/DIM_M) x (BLK_N/DIM_N) elements.
 *   BLK_K          K step: the depth of the A and B tiles staged in local memory.
 *   DIM_VEC        vector width (1, 2, 4) of the global loads of A and B.
 *   VEC_MUL        0/1: keep the accumulators in DIM_VEC-wide vectors (each
 *                  work-item then owns DIM_VEC *consecutive* rows of C per
 *                  register block, so local reads of A and the loads/stores of
 *                  C are vectors as well).  Needs THR_M % DIM_VEC == 0; when that
 *                  does not hold (the space allows it) VEC_MUL silently falls
 *                  back to the scalar code, which is still correct.
 *   DIM_M_A, DIM_N_A  the work-group reshaped to read the A tile as stored in
 *                  memory: DIM_M_A work-items (each reading DIM_VEC contiguous
 *                  elements) along the contiguous dimension, DIM_N_A along the
 *                  strided one.  DIM_M_B, DIM_N_B likewise for B.
 *   PRE_A, PRE_B   0 (default)/1: prefetch the next A/B tile into registers
 *                  while the current one is multiplied (software pipelining;
 *                  spaces/gemm.space tunes them).  TEX_A/TEX_B, SHMEM_L1 and
 *                  SHMEM_BANKS of BEAST's space are CUDA-only and ignored here.
 *   PAD_A, PAD_B   extra elements per local-memory row (default: 1 when the
 *                  operand is transposed, to break the bank conflicts of the
 *                  transposing stores; 0 otherwise).
 *   DBUF           0 (default)/1: double-buffered local tiles.  The next tile
 *                  is stored into the other buffer while the current one is
 *                  multiplied, so one barrier per K step instead of two (the
 *                  stores of step t+1 and the reads of step t touch different
 *                  buffers; the barrier ending step t-1 separates step t's
 *                  stores from step t-1's reads of that buffer).  Doubles the
 *                  local memory.  PRE_A/PRE_B then choose whether the next
 *                  tile's global loads are issued before the multiply (1) or
 *                  after it (0, fewer live registers).
 *   VEC_B          1 (default), 2, 4: read B from local memory VEC_B values
 *                  at a time.  Work-item ty then owns VEC_B *consecutive*
 *                  columns of C per register block (columns
 *                  (ty + jv*DIM_N)*VEC_B + v), so one vector local load
 *                  replaces VEC_B scalar ones.  Needs THR_N % VEC_B == 0 and
 *                  (BLK_N + PAD_B) % VEC_B == 0 (aligned vector reads; the
 *                  local tiles are then aligned to the vector).
 *
 * Correctness constraints (exactly spaces/gemm_beast.space cant_reshape_*,
 * checked below with #error):
 *   DIM_M_A * DIM_N_A == DIM_M * DIM_N == DIM_M_B * DIM_N_B
 *   stored A tile is (BLK_M x BLK_K) for NN / (BLK_K x BLK_M) for TRANS_A:
 *     extent0 % (DIM_M_A * DIM_VEC) == 0 and extent1 % DIM_N_A == 0
 *   stored B tile is (BLK_K x BLK_N) / (BLK_N x BLK_K) for TRANS_B: likewise.
 *
 * ---------------------------------------------------------------------------
 * LAUNCH (the tuner evaluates these):
 *   local  = (DIM_M, DIM_N)
 *   global = (M / BLK_M * DIM_M, N / BLK_N * DIM_N)
 * Requirements on the problem (no edge handling; the tuner picks sizes):
 *   M % BLK_M == 0, N % BLK_N == 0, K % BLK_K == 0,
 *   lda, ldb (and ldc if VEC_MUL) multiples of DIM_VEC, buffers aligned to
 *   DIM_VEC elements (clCreateBuffer allocations always are): the global
 *   loads are done through vector pointers, which need natural alignment.
 * Kernel arguments:
 *   gemm(int M, int N, int K, REAL alpha, A, int lda, B, int ldb,
 *        REAL beta, C, int ldc)
 * A is M x K (K x M stored if TRANS_A), B is K x N (N x K if TRANS_B), C is
 * M x N, all column-major: X(i,j) = X[i + j*ldX].  As in BLAS, C is not read
 * when beta == 0 (so NaNs in an uninitialised C do not propagate).
 * ---------------------------------------------------------------------------
 */

/* ---- precision ----------------------------------------------------------- */
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef REAL
#  if defined(PRECISION) && PRECISION == 2
#    define REAL double
#  else
#    define REAL float
#  endif
#endif

/* ---- defaults ------------------------------------------------------------- */
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

#if !defined(DIM_M) || !defined(DIM_N) || !defined(BLK_M) || !defined(BLK_N) || \
    !defined(BLK_K) || !defined(DIM_M_A) || !defined(DIM_N_A) ||               \
    !defined(DIM_M_B) || !defined(DIM_N_B)
#error "gemm.cl needs DIM_M DIM_N BLK_M BLK_N BLK_K DIM_M_A DIM_N_A DIM_M_B DIM_N_B"
#endif

#define NTHREADS (DIM_M * DIM_N)
#define THR_M (BLK_M / DIM_M)         /* rows of C per work-item    */
#define THR_N (BLK_N / DIM_N)         /* columns of C per work-item */

/* Extents of the tiles as they are stored in memory: extent 0 is the
 * contiguous dimension (the one read with vectors). */
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

/* ---- the space's correctness constraints, enforced ---------------------- */
#if BLK_M % DIM_M != 0 || BLK_N % DIM_N != 0
#error "BLK_M % DIM_M and BLK_N % DIM_N must be 0"
#endif
#if DIM_VEC != 1 && DIM_VEC != 2 && DIM_VEC != 4
#error "DIM_VEC must be 1, 2 or 4"
#endif
#if DIM_M_A * DIM_N_A != NTHREADS || DIM_M_B * DIM_N_B != NTHREADS
#error "cant_reshape_a1/b1: the reading shapes must use every work-item"
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
#error "VEC_B must divide THR_N and the local row pitch BLK_N + PAD_B"
#endif

/* Loads per work-item per tile: (vectors along extent 0) x (rows along 1). */
#define LDA0 (EXT0_A / (DIM_M_A * DIM_VEC))
#define LDA1 (EXT1_A / DIM_N_A)
#define LDB0 (EXT0_B / (DIM_M_B * DIM_VEC))
#define LDB1 (EXT1_B / DIM_N_B)

/* ---- vector types and helpers -------------------------------------------- */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if DIM_VEC == 1
typedef REAL realV;
#define VSTORE_V(v, p) (*(p) = (v))
#else
typedef CAT(REAL, DIM_VEC) realV;
#define VSTORE_V(v, p) CAT(vstore, DIM_VEC)((v), 0, (p))
#endif

/* Vector multiply: only when every work-item's THR_M rows split into whole
 * vectors; otherwise it would not be correct, so fall back to scalar (VM=1). */
#if VEC_MUL && DIM_VEC > 1 && (THR_M % DIM_VEC == 0)
#define VM DIM_VEC
typedef realV realM;
#define VLOAD_M(p) CAT(vload, DIM_VEC)(0, (p))
#define VSTORE_M(v, p) CAT(vstore, DIM_VEC)((v), 0, (p))
#else
#define VM 1
typedef REAL realM;
#define VLOAD_M(p) (*(p))
#define VSTORE_M(v, p) (*(p) = (v))
#endif
#define THR_MV (THR_M / VM)           /* vector accumulators per column */

/* Reads of B from local memory, VEC_B columns at a time. */
#if VEC_B == 1
#define LD_B(p, out) ((out)[0] = *(p))
#define SB_ALIGN
#else
typedef CAT(REAL, VEC_B) realB;
#define LD_B(p, out) CAT(vstore, VEC_B)(*(__local const realB *)(p), 0, (out))
#define SB_ALIGN __attribute__((aligned(VEC_B * sizeof(REAL))))
#endif
/* Column of C (within the tile) of this work-item's accumulator column j:
 * ty + j*DIM_N for scalar reads; VEC_B consecutive columns per vector. */
#define COL_N(j) ((ty + ((j) / VEC_B) * DIM_N) * VEC_B + (j) % VEC_B)

/* The local buffer being written (SA_W, SB_W) and read (SA_R, SB_R). */
#if DBUF
#define SA_W sA[wbuf]
#define SB_W sB[wbuf]
#define SA_R sA[wbuf ^ 1]
#define SB_R sB[wbuf ^ 1]
#else
#define SA_W sA
#define SB_W sB
#define SA_R sA
#define SB_R sB
#endif

/* Local tiles are kept k-major whatever the storage order: sA[k][m],
 * sB[k][n], so the inner product loop reads one row of each per k.  An
 * element (e0, e1) of a *stored* tile maps to: */
#if TRANS_A
#define SA_AT(e0, e1) SA_W[(e0)][(e1)]   /* stored (k, m) */
#else
#define SA_AT(e0, e1) SA_W[(e1)][(e0)]   /* stored (m, k) */
#endif
#if TRANS_B
#define SB_AT(e0, e1) SB_W[(e1)][(e0)]   /* stored (n, k) */
#else
#define SB_AT(e0, e1) SB_W[(e0)][(e1)]   /* stored (k, n) */
#endif

/* Global -> registers: this work-item's share of one stored tile.
 * Work-item (r0, r1) of the reading shape reads vectors at
 *   e0 = (r0 + i*DIM_M_X) * DIM_VEC,  e1 = r1 + j*DIM_N_X,
 * so consecutive work-items read consecutive vectors (coalesced). */
#define LOAD_TILE(reg, ptr, ld, r0, r1, L0, L1, DM, DN)                      \
    _Pragma("unroll") for (int j = 0; j < (L1); j++)                        \
    _Pragma("unroll") for (int i = 0; i < (L0); i++)                        \
        (reg)[j][i] = *(__global const realV *)((ptr) +                     \
                       ((r0) + i * (DM)) * DIM_VEC + ((r1) + j * (DN)) * (ld));

/* Registers -> local memory.  The vector's components go along e0; for an
 * untransposed operand that is the local row (one vector store), for a
 * transposed one they are scattered down a column (the transposition). */
#define STORE_TILE(reg, AT, r0, r1, L0, L1, DM, DN)                          \
    _Pragma("unroll") for (int j = 0; j < (L1); j++)                        \
    _Pragma("unroll") for (int i = 0; i < (L0); i++) {                      \
        REAL t_[DIM_VEC];                                                    \
        VSTORE_V((reg)[j][i], t_);                                           \
        _Pragma("unroll") for (int v = 0; v < DIM_VEC; v++)                 \
            AT(((r0) + i * (DM)) * DIM_VEC + v, (r1) + j * (DN)) = t_[v];   \
    }

/* Register-blocked outer products on the local tiles SA_R, SB_R.  Work-item
 * tx owns rows (tx + i*DIM_M)*VM .. +VM-1: consecutive work-items read
 * consecutive local addresses (no bank conflicts); its columns are COL_N(j),
 * a broadcast within a row of work-items. */
#define MULTIPLY_TILE()                                                      \
    _Pragma("unroll") for (int k = 0; k < BLK_K; k++) {                     \
        realM ra[THR_MV];                                                    \
        REAL rb[THR_N];                                                      \
        _Pragma("unroll") for (int i = 0; i < THR_MV; i++)                  \
            ra[i] = VLOAD_M(&SA_R[k][(tx + i * DIM_M) * VM]);               \
        _Pragma("unroll") for (int j = 0; j < THR_N / VEC_B; j++)           \
            LD_B(&SB_R[k][(ty + j * DIM_N) * VEC_B], &rb[j * VEC_B]);       \
        _Pragma("unroll") for (int i = 0; i < THR_MV; i++)                  \
        _Pragma("unroll") for (int j = 0; j < THR_N; j++)                   \
            acc[i][j] = fma(ra[i], (realM)rb[j], acc[i][j]);                \
    }

__kernel __attribute__((reqd_work_group_size(DIM_M, DIM_N, 1)))
void gemm(const int M, const int N, const int K, const REAL alpha,
          __global const REAL *restrict A, const int lda,
          __global const REAL *restrict B, const int ldb, const REAL beta,
          __global REAL *C, const int ldc)
{
    (void)M; (void)N;
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int tid = ty * DIM_M + tx;
    const int m0 = get_group_id(0) * BLK_M;
    const int n0 = get_group_id(1) * BLK_N;

    /* k-major tiles; BLK_M/BLK_N (+pad) per row. */
#if DBUF
    __local REAL sA[2][BLK_K][BLK_M + PAD_A] SB_ALIGN;
    __local REAL sB[2][BLK_K][BLK_N + PAD_B] SB_ALIGN;
    int wbuf = 0;                     /* the buffer stored into next */
#else
    __local REAL sA[BLK_K][BLK_M + PAD_A] SB_ALIGN;
    __local REAL sB[BLK_K][BLK_N + PAD_B] SB_ALIGN;
#endif

    /* Reading shapes: the same work-items, renumbered. */
    const int a0 = tid % DIM_M_A, a1 = tid / DIM_M_A;
    const int b0 = tid % DIM_M_B, b1 = tid / DIM_M_B;

    /* Origin of the first stored tile and the step between K tiles. */
#if TRANS_A
    __global const REAL *pA = A + m0 * lda;
    const int stepA = BLK_K;
#else
    __global const REAL *pA = A + m0;
    const int stepA = BLK_K * lda;
#endif
#if TRANS_B
    __global const REAL *pB = B + n0;
    const int stepB = BLK_K * ldb;
#else
    __global const REAL *pB = B + n0 * ldb;
    const int stepB = BLK_K;
#endif

    realV rgA[LDA1][LDA0];
    realV rgB[LDB1][LDB0];

    realM acc[THR_MV][THR_N];
#pragma unroll
    for (int i = 0; i < THR_MV; i++)
#pragma unroll
        for (int j = 0; j < THR_N; j++)
            acc[i][j] = (realM)0;

#if DBUF
    /* Stage the first tile into buffer 0; each step then multiplies buffer
     * wbuf^1 while the next tile goes into buffer wbuf. */
    LOAD_TILE(rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
    LOAD_TILE(rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
    STORE_TILE(rgA, SA_AT, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
    STORE_TILE(rgB, SB_AT, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < K; kk += BLK_K) {
        const int more = kk + BLK_K < K;
        wbuf ^= 1;
        pA += stepA;
        pB += stepB;
#if PRE_A
        if (more) {
            LOAD_TILE(rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
        }
#endif
#if PRE_B
        if (more) {
            LOAD_TILE(rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        }
#endif
        MULTIPLY_TILE();
        if (more) {
#if !PRE_A
            LOAD_TILE(rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
#endif
#if !PRE_B
            LOAD_TILE(rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
#endif
            STORE_TILE(rgA, SA_AT, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
            STORE_TILE(rgB, SB_AT, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        }
        /* Publishes the stores above, and keeps the next step's stores
         * (into the buffer just read) behind every work-item's reads. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
#if PRE_A
    LOAD_TILE(rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
#endif
#if PRE_B
    LOAD_TILE(rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
#endif

    for (int kk = 0; kk < K; kk += BLK_K) {
        /* Without prefetch: fetch this tile now.  With it: rgX already holds
         * it (loaded during the previous iteration's multiply). */
#if !PRE_A
        LOAD_TILE(rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
#endif
#if !PRE_B
        LOAD_TILE(rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
#endif
        STORE_TILE(rgA, SA_AT, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
        STORE_TILE(rgB, SB_AT, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        barrier(CLK_LOCAL_MEM_FENCE);

        pA += stepA;
        pB += stepB;
        /* Issue the next tile's global loads before the arithmetic so their
         * latency hides behind it (the last iteration must not read past K). */
#if PRE_A
        if (kk + BLK_K < K) {
            LOAD_TILE(rgA, pA, lda, a0, a1, LDA0, LDA1, DIM_M_A, DIM_N_A)
        }
#endif
#if PRE_B
        if (kk + BLK_K < K) {
            LOAD_TILE(rgB, pB, ldb, b0, b1, LDB0, LDB1, DIM_M_B, DIM_N_B)
        }
#endif

        MULTIPLY_TILE();
        /* The next iteration overwrites the tiles. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif

    /* C = alpha*acc + beta*C; same ownership as above (coalesced along tx). */
#pragma unroll
    for (int j = 0; j < THR_N; j++) {
        __global REAL *pc = C + (n0 + COL_N(j)) * ldc + m0;
#pragma unroll
        for (int i = 0; i < THR_MV; i++) {
            __global REAL *p = pc + (tx + i * DIM_M) * VM;
            realM r = (realM)alpha * acc[i][j];
            if (beta != (REAL)0)
                r = fma((realM)beta, VLOAD_M(p), r);
            VSTORE_M(r, p);
        }
    }
}
