/*
 * conv2d.cl -- single-precision 2D convolution (correlation, as CLTune's
 * samples/conv), parameterised like spaces/conv2d_cltune.space.
 *
 *   out[y][x] = sum_{fy,fx in 0..FS-1} in[y + fy][x + fx] * filter[fy][fx]
 *
 * with FS = 2*HFS + 1.  `in` is the input already padded by HFS on every
 * side: (H + 2*HFS) rows of (W + 2*HFS) floats, row-major; `out` is H rows
 * of W floats; `filter` is FS*FS floats, row-major.
 *
 * ---------------------------------------------------------------------------
 * COMPILE-TIME PARAMETERS (-D NAME=VALUE).  Each accepts the space's name,
 * its upper-case form, or CLTune's conv.cc name:
 *   Xwg  | XWG  | TBX            work-group size in x (output threads)
 *   Ywg  | YWG  | TBY            work-group size in y
 *   Xwpt | XWPT | WPTX           outputs per work-item in x
 *   Ywpt | YWPT | WPTY           outputs per work-item in y
 *   LOCAL                        0: read the input from global memory only
 *                                1: the work-group first stages its input tile
 *                                   (tile + halo) in local memory
 *                                2: as 1, but the work-group has extra "halo"
 *                                   work-items so that every work-item loads
 *                                   the same Xwpt x Ywpt block (as conv.cc)
 *   VW   | VECTOR                vector width 1, 2, 4, 8 of loads/stores
 *   PAD  | PADDING               0/1: one extra float per local-memory row
 *   UNR  | UNROLL                0/1: fully unroll the FS x FS filter loops
 *                                (1 also reuses each loaded input row
 *                                segment across the FS taps in registers)
 *   HFS                          filter half size (default 3): 1, 3, 5 ->
 *                                3x3, 7x7, 11x11 filters
 *
 * Requirements (spaces/conv2d_cltune.space, checked below with #error):
 *   Xwpt % VW == 0                      (vw_divides_wpt)
 *   LOCAL != 2 or (2*HFS) % VW == 0     (vw_divides_halo)
 *   PAD == 0 or LOCAL != 0              (padding_needs_local; harmless anyway)
 *
 * ---------------------------------------------------------------------------
 * LAUNCH GEOMETRY (W, H: output width and height; integer arithmetic):
 *
 *   Xwg_xl = Xwg + (2*HFS + Xwpt - 1) / Xwpt    if LOCAL == 2, else Xwg
 *   Ywg_xl = Ywg + (2*HFS + Ywpt - 1) / Ywpt    if LOCAL == 2, else Ywg
 *
 *   LOCAL 0, 1:  local  = (Xwg, Ywg)
 *                global = (W / Xwpt, H / Ywpt)
 *   LOCAL 2:     local  = (Xwg_xl, Ywg_xl)
 *                global = (W / (Xwg * Xwpt) * Xwg_xl, H / (Ywg * Ywpt) * Ywg_xl)
 *
 *   (the LOCAL 2 formula also gives the LOCAL 0/1 one, as Xwg_xl == Xwg
 *   there; in every mode the number of work-groups is
 *   (W / (Xwg*Xwpt), H / (Ywg*Ywpt)).)
 *
 *   Problem sizes must satisfy  W % (Xwg*Xwpt) == 0  and  H % (Ywg*Ywpt) == 0
 *   (no edge handling).  Local memory used (LOCAL 1, 2):
 *   (Ywg*Ywpt + 2*HFS) * (Xwg*Xwpt + 2*HFS + PAD) * 4 bytes.
 *
 * Kernel arguments:
 *   conv2d(int W, int H, __global const float *in, __constant float *filter,
 *          __global float *out)
 * ---------------------------------------------------------------------------
 *
 * Work distribution (all modes): a work-group computes a tile of
 * (Xwg*Xwpt) x (Ywg*Ywpt) outputs.  Work-item (tx, ty) owns, in that tile,
 * rows  ty + wy*Ywg  (wy < Ywpt)  and the Xwpt/VW vectors starting at
 * columns  (tx + j*Xwg)*VW  (j < Xwpt/VW).  Interleaving the work-items
 * (rather than giving each a contiguous block) keeps every global load and
 * store of a work-group contiguous, i.e. coalesced, for any Xwpt.
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

#if !defined(TBX) || !defined(TBY) || !defined(WPTX) || !defined(WPTY)
#error "conv2d.cl needs Xwg, Ywg, Xwpt, Ywpt (or TBX, TBY, WPTX, WPTY)"
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
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if VW == 1
typedef float floatV;
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#else
typedef CAT(float, VW) floatV;
/* vloadn/vstoren only need float alignment: the halo offsets (fx) and the
 * padded row pitches make most addresses unaligned to the vector. */
#define VLOAD(p) CAT(vload, VW)(0, (p))
#define VSTORE(v, p) CAT(vstore, VW)((v), 0, (p))
#endif


__kernel __attribute__((reqd_work_group_size(TBX_XL, TBY_XL, 1)))
void conv2d(const int W, const int H,
            __global const float *restrict in,
            __constant float *filter,
            __global float *restrict out)
{
    (void)H;
    const int tx = get_local_id(0), ty = get_local_id(1);
    /* Tile origin: the output (x0, y0) == the padded input's (x0, y0). */
    const int x0 = get_group_id(0) * TILE_W;
    const int y0 = get_group_id(1) * TILE_H;
    const int in_pitch = W + 2 * HFS;
    __global const float *gin = in + y0 * in_pitch + x0;

#if LOCAL == 0
    /* Read straight from global memory (the caches catch the reuse). */
#define IN_AT(r, c) (gin + (r) * in_pitch + (c))
#else
    __local float lmem[IN_H][IN_W + PAD];
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
            VSTORE(VLOAD(gin + r * in_pitch + c), &lmem[r][c]);
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
                VSTORE(VLOAD(gin + r * in_pitch + c), &lmem[r][c]);
        }
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
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

#if UNR
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
                    /* the tap is a broadcast from constant memory */
                    const float f = filter[fy * FS + fx];
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
     * float-aligned, so a vloadn would be VW scalar loads on a GPU anyway;
     * writing them out also sidesteps a PoCL 3.1 miscompilation (its
     * default "loopvec" work-group method) of vload2 from __local at odd
     * offsets (LOCAL=1 VW=2 UNR=0 Ywpt=1 gave garbage; correct on NVIDIA). */
#pragma unroll 1
    for (int fy = 0; fy < FS; fy++) {
#pragma unroll 1
        for (int fx = 0; fx < FS; fx++) {
            const float f = filter[fy * FS + fx];
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

    __global float *gout = out + y0 * W + x0;
#pragma unroll
    for (int wy = 0; wy < WPTY; wy++)
#pragma unroll
        for (int j = 0; j < NVX; j++)
            VSTORE(VLOAD(&acc[wy][j * VW]),
                   gout + (ty + wy * TBY) * W + (tx + j * TBX) * VW);
}
