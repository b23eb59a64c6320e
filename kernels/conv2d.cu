/*
 * conv2d.cu -- single-precision 2D convolution (correlation): the CUDA twin
 * of kernels/conv2d.cl, for spacetune's CUDA backend (NVRTC).  The same
 * compile-time parameters (Xwg, Ywg, Xwpt, Ywpt, LOCAL, VW, PAD, UNR, HFS,
 * FREG, SLIDE and their aliases), constraints, launch geometry (block =
 * the local size, grid = global / local) and arguments as conv2d.cl, which
 * documents them:
 *
 *   conv2d(int W, int H, const float *in, const float *filter, float *out)
 *
 * OpenCL's __constant filter becomes read-only-cache loads (__ldg), local
 * memory a static __shared__ tile (so LOCAL 1 and 2 fit the 48 KiB of a
 * block), and the vector copies element-wise copies.
 */

/* ---- parameter aliases ------------------------------------------------- */
#if !defined(TBX) && defined(Xwg)
#define TBX Xwg
#elif !defined(TBX) && defined(XWG)
#define TBX XWG
#endif
#if !defined(TBY) && defined(Ywg)
#define TBY Ywg
#elif !defined(TBY) && defined(YWG)
#define TBY YWG
#endif
#if !defined(WPTX) && defined(Xwpt)
#define WPTX Xwpt
#elif !defined(WPTX) && defined(XWPT)
#define WPTX XWPT
#endif
#if !defined(WPTY) && defined(Ywpt)
#define WPTY Ywpt
#elif !defined(WPTY) && defined(YWPT)
#define WPTY YWPT
#endif
#if !defined(VW)
#  if defined(VECTOR)
#    define VW VECTOR
#  else
#    define VW 1
#  endif
#endif
#if !defined(PAD)
#  if defined(PADDING)
#    define PAD PADDING
#  else
#    define PAD 0
#  endif
#endif
#if !defined(UNR)
#  if defined(UNROLL)
#    define UNR UNROLL
#  else
#    define UNR 1
#  endif
#endif
#ifndef LOCAL
#define LOCAL 1
#endif
#ifndef HFS
#define HFS 3
#endif
#ifndef FREG
#define FREG 0
#endif
#ifndef SLIDE
#define SLIDE 0
#endif

#if !defined(TBX) || !defined(TBY) || !defined(WPTX) || !defined(WPTY)
#error "conv2d.cu needs Xwg, Ywg, Xwpt, Ywpt (or TBX, TBY, WPTX, WPTY)"
#endif

#define FS (2 * HFS + 1)

/* ---- the space's correctness constraints, enforced --------------------- */
#if VW != 1 && VW != 2 && VW != 4 && VW != 8
#error "VW must be 1, 2, 4 or 8"
#endif
#if WPTX % VW != 0
#error "vw_divides_wpt: Xwpt must be a multiple of VW"
#endif
#if LOCAL == 2 && (2 * HFS) % VW != 0
#error "vw_divides_halo: with LOCAL == 2, 2*HFS must be a multiple of VW"
#endif
#if LOCAL < 0 || LOCAL > 2
#error "LOCAL must be 0, 1 or 2"
#endif
#if (FREG != 0 && FREG != 1) || (SLIDE != 0 && SLIDE != 1)
#error "FREG and SLIDE must be 0 or 1"
#endif
#if (FREG || SLIDE) && !UNR
#error "FREG and SLIDE need the unrolled filter loops (UNR=1)"
#endif

/* ---- geometry ---------------------------------------------------------- */
#define TILE_W (TBX * WPTX)               /* outputs per work-group in x */
#define TILE_H (TBY * WPTY)
#define IN_W (TILE_W + 2 * HFS)           /* input tile incl. the halo   */
#define IN_H (TILE_H + 2 * HFS)
#define NVX (WPTX / VW)                   /* vectors per work-item row   */

#if LOCAL == 2
/* Enough extra work-items that Xwg_xl*Xwpt >= IN_W (and likewise in y):
 * each work-item then loads at most one Xwpt x Ywpt block of the tile. */
#define TBX_XL (TBX + (2 * HFS + WPTX - 1) / WPTX)
#define TBY_XL (TBY + (2 * HFS + WPTY - 1) / WPTY)
#else
#define TBX_XL TBX
#define TBY_XL TBY
#endif

/* ---- vector helpers ---------------------------------------------------- */
/* VW consecutive floats, copied one by one: the halo offsets and the padded
 * row pitches leave most addresses unaligned to the vector (OpenCL's
 * vloadn/vstoren need only float alignment; CUDA's vector types need
 * their own). */
#define VCOPY(src, dst)                                                      \
    do {                                                                     \
        const float *s_ = (src);                                             \
        float *d_ = (dst);                                                   \
        _Pragma("unroll") for (int v_ = 0; v_ < VW; v_++) d_[v_] = s_[v_];   \
    } while (0)


extern "C" __global__ void __launch_bounds__(TBX_XL * TBY_XL)
conv2d(const int W, const int H,
       const float *__restrict__ in,
       const float *__restrict__ filter,
       float *__restrict__ out)
{
    (void)H;
    const int tx = threadIdx.x, ty = threadIdx.y;
    /* Tile origin: the output (x0, y0) == the padded input's (x0, y0). */
    const int x0 = blockIdx.x * TILE_W;
    const int y0 = blockIdx.y * TILE_H;
    const int in_pitch = W + 2 * HFS;
    const float *gin = in + y0 * in_pitch + x0;

#if LOCAL == 0
    /* Read straight from global memory (the caches catch the reuse). */
#define IN_AT(r, c) (gin + (r) * in_pitch + (c))
#else
    __shared__ float lmem[IN_H][IN_W + PAD];
#define IN_AT(r, c) (&lmem[(r)][(c)])

#if LOCAL == 1
    /* The work-group (Xwg x Ywg) cooperatively copies the IN_H x IN_W tile:
     * whole vectors first (consecutive work-items take consecutive vectors),
     * then the IN_W % VW leftover columns of each row as scalars. */
    {
        const int tid = ty * TBX + tx;
        const int nv = IN_W / VW;           /* whole vectors per row */
        for (int idx = tid; idx < IN_H * nv; idx += TBX * TBY) {
            const int r = idx / nv, c = (idx - r * nv) * VW;
            VCOPY(gin + r * in_pitch + c, &lmem[r][c]);
        }
#if IN_W % VW != 0
        const int rem = IN_W % VW;
        for (int idx = tid; idx < IN_H * rem; idx += TBX * TBY) {
            const int r = idx / rem, c = nv * VW + (idx - r * rem);
            lmem[r][c] = gin[r * in_pitch + c];
        }
#endif
    }
#else /* LOCAL == 2 */
    /* Every work-item, halo ones included, loads the Xwpt x Ywpt block at the
     * same interleaved positions it would compute.  IN_W is a multiple of VW
     * (vw_divides_halo), so a vector is either wholly inside the tile or
     * wholly outside. */
#pragma unroll
    for (int wy = 0; wy < WPTY; wy++) {
        const int r = ty + wy * TBY_XL;
#pragma unroll
        for (int j = 0; j < NVX; j++) {
            const int c = (tx + j * TBX_XL) * VW;
            if (r < IN_H && c < IN_W)
                VCOPY(gin + r * in_pitch + c, &lmem[r][c]);
        }
    }
#endif
    __syncthreads();
#if LOCAL == 2
    /* The halo work-items have done their job. */
    if (tx >= TBX || ty >= TBY)
        return;
#endif
#endif /* LOCAL != 0 */

    /* acc[wy][j*VW + v]: output row (ty + wy*Ywg), column (tx + j*Xwg)*VW + v
     * of the tile.  Scalars, so both filter-loop variants below can index
     * them; the vectors are for the memory traffic. */
    float acc[WPTY][WPTX];
#pragma unroll
    for (int wy = 0; wy < WPTY; wy++)
#pragma unroll
        for (int x = 0; x < WPTX; x++)
            acc[wy][x] = 0.0f;

#if FREG
    /* The whole filter in registers (the unrolled loops index it with
     * constants). */
    float freg[FS * FS];
#pragma unroll
    for (int t = 0; t < FS * FS; t++)
        freg[t] = __ldg(&filter[t]);
#define TAP(fy, fx) freg[(fy) * FS + (fx)]
#else
/* the tap is a broadcast through the read-only cache (OpenCL: __constant) */
#define TAP(fy, fx) __ldg(&filter[(fy) * FS + (fx)])
#endif

#if SLIDE
    /* Input row ir (relative to this work-item's first output row) feeds
     * output row wy through filter row ir - wy: load its segment once and
     * apply it to all of them.  The per-output sum order (fy, then fx)
     * is the one of the loops below. */
#pragma unroll
    for (int ir = 0; ir < WPTY + 2 * HFS; ir++) {
        const int r = ty * WPTY + ir;
#pragma unroll
        for (int j = 0; j < NVX; j++) {
            const int c = (tx + j * TBX) * VW;
            float seg[VW + 2 * HFS];
#pragma unroll
            for (int t = 0; t < VW + 2 * HFS; t++)
                seg[t] = *IN_AT(r, c + t);
#pragma unroll
            for (int wy = 0; wy < WPTY; wy++) {
                const int fy = ir - wy;
                if (fy >= 0 && fy < FS) {
#pragma unroll
                    for (int fx = 0; fx < FS; fx++) {
                        const float f = TAP(fy, fx);
#pragma unroll
                        for (int v = 0; v < VW; v++)
                            acc[wy][j * VW + v] = fma(seg[fx + v], f, acc[wy][j * VW + v]);
                    }
                }
            }
        }
    }
#define OUT_ROW(wy) (ty * WPTY + (wy))
#elif UNR
    /* Unrolled: for each filter row, a work-item's VW neighbouring outputs
     * need the VW + 2*HFS inputs of one row segment.  Load that segment
     * once into registers and reuse it for all FS taps (the fully unrolled
     * fx loop turns seg[fx + v] into plain register names): VW + 2*HFS
     * loads per VW*FS FMAs instead of one load per FMA. */
#pragma unroll
    for (int fy = 0; fy < FS; fy++) {
#pragma unroll
        for (int wy = 0; wy < WPTY; wy++) {
            const int r = ty + wy * TBY + fy;
#pragma unroll
            for (int j = 0; j < NVX; j++) {
                const int c = (tx + j * TBX) * VW;
                float seg[VW + 2 * HFS];
#pragma unroll
                for (int t = 0; t < VW + 2 * HFS; t++)
                    seg[t] = *IN_AT(r, c + t);
#pragma unroll
                for (int fx = 0; fx < FS; fx++) {
                    const float f = TAP(fy, fx);
#pragma unroll
                    for (int v = 0; v < VW; v++)
                        acc[wy][j * VW + v] = fma(seg[fx + v], f, acc[wy][j * VW + v]);
                }
            }
        }
    }
#else
    /* Rolled filter loops (smaller code; the tuner decides): per tap, the
     * VW inputs of VW neighbouring outputs.  Shifted by fx, they are only
     * float-aligned, so they are VW scalar loads. */
#pragma unroll 1
    for (int fy = 0; fy < FS; fy++) {
#pragma unroll 1
        for (int fx = 0; fx < FS; fx++) {
            const float f = __ldg(&filter[fy * FS + fx]);
#pragma unroll
            for (int wy = 0; wy < WPTY; wy++) {
                const int r = ty + wy * TBY + fy;
#pragma unroll
                for (int j = 0; j < NVX; j++) {
                    float x[VW];
#pragma unroll
                    for (int v = 0; v < VW; v++)
                        x[v] = *IN_AT(r, (tx + j * TBX) * VW + fx + v);
#pragma unroll
                    for (int v = 0; v < VW; v++)
                        acc[wy][j * VW + v] = fma(x[v], f, acc[wy][j * VW + v]);
                }
            }
        }
    }
#endif
#ifndef OUT_ROW
#define OUT_ROW(wy) (ty + (wy) * TBY)
#endif

    float *gout = out + y0 * W + x0;
#pragma unroll
    for (int wy = 0; wy < WPTY; wy++)
#pragma unroll
        for (int j = 0; j < NVX; j++)
            VCOPY(&acc[wy][j * VW], gout + OUT_ROW(wy) * W + (tx + j * TBX) * VW);
}
