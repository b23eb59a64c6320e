/*
 * ref_kernels.c -- the references of spaces/gemm.space and
 * spaces/conv2d.space checked against the plain C references: the OpenCL
 * kernels kernels/gemm_naive.cl and kernels/conv2d_naive.cl (run on the
 * first OpenCL device) and the C ABI wrappers kernels/gemm_ref_abi.c and
 * kernels/conv2d_ref_abi.c (called through tuner/variant.h's
 * int NAME(int nargs, void **args)), for every precision, transposition
 * and filter size they offer.
 *
 * The oracle is computed here, independently: a long double dot product
 * per element.  Sizes are small and odd on purpose (no tiling to hide
 * behind), leading dimensions larger than the matrices.
 *
 * Exit status: 0 all passed, 1 some failed, 77 no OpenCL device.
 * Environment: KERNELS_DIR (default "kernels").
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The wrappers under test (kernels/gemm_ref_abi.c, kernels/conv2d_ref_abi.c). */
#define DECLARE_ABI(name) int name(int nargs, void **args);
DECLARE_ABI(gemm_ref_abi_f32_nn)
DECLARE_ABI(gemm_ref_abi_f32_nt)
DECLARE_ABI(gemm_ref_abi_f32_tn)
DECLARE_ABI(gemm_ref_abi_f32_tt)
DECLARE_ABI(gemm_ref_abi_f64_nn)
DECLARE_ABI(gemm_ref_abi_f64_nt)
DECLARE_ABI(gemm_ref_abi_f64_tn)
DECLARE_ABI(gemm_ref_abi_f64_tt)
DECLARE_ABI(conv2d_ref_abi_3x3)
DECLARE_ABI(conv2d_ref_abi_7x7)
DECLARE_ABI(conv2d_ref_abi_11x11)

typedef int (*abi_fn)(int, void **);

static cl_context ctx;
static cl_command_queue queue;
static cl_device_id dev;
static int n_fail, n_pass;

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static double uniform(void) /* [-1, 1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int cl_open(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS)
        return -1;
    for (cl_uint i = 0; i < np; i++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0)
            continue;
        cl_int err;
        ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        if (err != CL_SUCCESS)
            return -1;
        queue = clCreateCommandQueue(ctx, dev, 0, &err);
        return err == CL_SUCCESS ? 0 : -1;
    }
    return -1;
}

static cl_kernel build(const char *file, const char *name, const char *options)
{
    const char *dir = getenv("KERNELS_DIR") ? getenv("KERNELS_DIR") : "kernels";
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        return NULL;
    }
    static char src[1 << 16];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    const char *s = src;
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
    if (err == CL_SUCCESS)
        err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        printf("FAIL build of %s %s: %s\n", file, options, log);
        clReleaseProgram(p);
        return NULL;
    }
    cl_kernel k = clCreateKernel(p, name, &err);
    clReleaseProgram(p);
    return err == CL_SUCCESS ? k : NULL;
}

static cl_mem upload(const void *host, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)host,
                              &err);
    return err == CL_SUCCESS ? m : NULL;
}

/* Worst |got - want| / (abs + rel |want|) over n values: <= 1 passes. */
static double score(const double *got, const double *want, size_t n, double rel, double abs_)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double s = fabs(got[i] - want[i]) / (abs_ + rel * fabs(want[i]));
        if (!(s <= worst)) /* NaN counts as the worst */
            worst = isnan(s) ? INFINITY : s;
    }
    return worst;
}

static void verdict(const char *what, double s_kernel, double s_abi)
{
    int ok = s_kernel <= 1 && s_abi <= 1;
    printf("%s %s: naive kernel %.3g, C ABI %.3g (of tolerance)\n", ok ? "PASS" : "FAIL", what,
           s_kernel, s_abi);
    ok ? n_pass++ : n_fail++;
}

/* ------------------------------------------------------------------- GEMM */

static void check_gemm(int dp, int ta, int tb, double beta)
{
    static const abi_fn abi[2][2][2] = {
        {{gemm_ref_abi_f32_nn, gemm_ref_abi_f32_nt}, {gemm_ref_abi_f32_tn, gemm_ref_abi_f32_tt}},
        {{gemm_ref_abi_f64_nn, gemm_ref_abi_f64_nt}, {gemm_ref_abi_f64_tn, gemm_ref_abi_f64_tt}}};
    const int M = 37, N = 29, K = 45;
    const int rows_a = ta ? K : M, cols_a = ta ? M : K, rows_b = tb ? N : K, cols_b = tb ? K : N;
    const int lda = rows_a + 3, ldb = rows_b + 2, ldc = M + 1;
    const size_t es = dp ? 8 : 4;
    const size_t na = (size_t)lda * cols_a, nb = (size_t)ldb * cols_b, nc = (size_t)ldc * N;
    double *a = malloc(na * 8), *b = malloc(nb * 8), *c = malloc(nc * 8), *want = malloc(nc * 8);
    double *got_k = malloc(nc * 8), *got_a = malloc(nc * 8);
    char *ha = malloc(na * es), *hb = malloc(nb * es), *hc = malloc(nc * es), *hk = malloc(nc * es);
    const double alpha = 1.5;
    /* Values exactly representable in float, so both precisions see the
     * same inputs and the oracle is exact up to its own accumulation. */
    for (size_t i = 0; i < na; i++) a[i] = (float)uniform();
    for (size_t i = 0; i < nb; i++) b[i] = (float)uniform();
    for (size_t i = 0; i < nc; i++)
        c[i] = beta == 0 && i % ldc < (size_t)M ? NAN : (float)uniform();
#define STORE(h, i, v) (dp ? (void)(((double *)(h))[i] = (v)) : (void)(((float *)(h))[i] = (float)(v)))
#define LOAD(h, i) (dp ? ((double *)(h))[i] : (double)((float *)(h))[i])
    for (size_t i = 0; i < na; i++) STORE(ha, i, a[i]);
    for (size_t i = 0; i < nb; i++) STORE(hb, i, b[i]);
    for (size_t i = 0; i < nc; i++) STORE(hc, i, c[i]);
    memcpy(hk, hc, nc * es);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            long double s = 0;
            for (int k = 0; k < K; k++)
                s += (long double)(ta ? a[k + (size_t)i * lda] : a[i + (size_t)k * lda]) *
                     (tb ? b[j + (size_t)k * ldb] : b[k + (size_t)j * ldb]);
            const size_t ci = i + (size_t)j * ldc;
            want[ci] = (double)(alpha * s + (beta == 0 ? 0 : beta * c[ci]));
        }

    /* The C ABI: argument pointers in gemm.cl's order. */
    float fa = (float)alpha, fb = (float)beta;
    double da = alpha, db = beta;
    int iM = M, iN = N, iK = K, ilda = lda, ildb = ldb, ildc = ldc;
    void *args[11] = {&iM, &iN, &iK, dp ? (void *)&da : (void *)&fa, ha, &ilda, hb, &ildb,
                      dp ? (void *)&db : (void *)&fb, hc, &ildc};
    double s_abi = abi[dp][ta][tb](11, args) == 0 ? 0 : INFINITY;

    /* The naive kernel. */
    double s_kernel = INFINITY;
    char opts[128];
    snprintf(opts, sizeof opts, "-DPRECISION=%d -DTRANS_A=%d -DTRANS_B=%d", dp ? 2 : 1, ta, tb);
    cl_kernel k = build("gemm_naive.cl", "gemm_naive", opts);
    cl_mem ma = upload(ha, na * es), mb = upload(hb, nb * es), mc = upload(hk, nc * es);
    if (k && ma && mb && mc) {
        cl_mem *bufs[3] = {&ma, &mb, &mc};
        int arg = 0;
        clSetKernelArg(k, arg++, sizeof iM, &iM);
        clSetKernelArg(k, arg++, sizeof iN, &iN);
        clSetKernelArg(k, arg++, sizeof iK, &iK);
        clSetKernelArg(k, arg++, es, args[3]);
        clSetKernelArg(k, arg++, sizeof(cl_mem), bufs[0]);
        clSetKernelArg(k, arg++, sizeof ilda, &ilda);
        clSetKernelArg(k, arg++, sizeof(cl_mem), bufs[1]);
        clSetKernelArg(k, arg++, sizeof ildb, &ildb);
        clSetKernelArg(k, arg++, es, args[8]);
        clSetKernelArg(k, arg++, sizeof(cl_mem), bufs[2]);
        clSetKernelArg(k, arg++, sizeof ildc, &ildc);
        size_t gs[2] = {(size_t)M, (size_t)N};
        if (clEnqueueNDRangeKernel(queue, k, 2, NULL, gs, NULL, 0, NULL, NULL) == CL_SUCCESS &&
            clEnqueueReadBuffer(queue, mc, CL_TRUE, 0, nc * es, hk, 0, NULL, NULL) == CL_SUCCESS)
            s_kernel = 0;
    }
    /* The M x N result; the ldc - M padding rows must be left untouched
     * (the ABI wrote in place into hc, the kernel into hk, both from c). */
    const double rel = dp ? 1e-13 : 2e-6, abs_ = dp ? 1e-13 : 2e-6;
    size_t n = 0;
    int padding_ok = 1;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < ldc; i++) {
            const size_t ci = i + (size_t)j * ldc;
            if (i >= M) {
                padding_ok &= LOAD(hk, ci) == c[ci] && LOAD(hc, ci) == c[ci];
                continue;
            }
            got_k[n] = LOAD(hk, ci);
            got_a[n] = LOAD(hc, ci);
            want[n++] = want[ci];  /* n <= ci: compacting in place is safe */
        }
    if (s_kernel == 0)
        s_kernel = padding_ok ? score(got_k, want, n, rel, abs_) : INFINITY;
    if (s_abi == 0)
        s_abi = padding_ok ? score(got_a, want, n, rel, abs_) : INFINITY;
    char what[64];
    snprintf(what, sizeof what, "gemm %s %c%c beta=%g", dp ? "f64" : "f32", ta ? 't' : 'n',
             tb ? 't' : 'n', beta);
    verdict(what, s_kernel, s_abi);
#undef STORE
#undef LOAD
    if (k) clReleaseKernel(k);
    if (ma) clReleaseMemObject(ma);
    if (mb) clReleaseMemObject(mb);
    if (mc) clReleaseMemObject(mc);
    free(a); free(b); free(c); free(want); free(got_k); free(got_a);
    free(ha); free(hb); free(hc); free(hk);
}

/* ----------------------------------------------------------------- conv2d */

static void check_conv(int hfs)
{
    static const abi_fn abi[] = {NULL, conv2d_ref_abi_3x3, NULL, conv2d_ref_abi_7x7, NULL,
                                 conv2d_ref_abi_11x11};
    const int W = 41, H = 23, fs = 2 * hfs + 1, pitch = W + 2 * hfs;
    const size_t nin = (size_t)pitch * (H + 2 * hfs), nf = (size_t)fs * fs, nout = (size_t)W * H;
    float *in = malloc(nin * 4), *filt = malloc(nf * 4), *out_k = malloc(nout * 4);
    float *out_a = malloc(nout * 4);
    double *want = malloc(nout * 8), *gk = malloc(nout * 8), *ga = malloc(nout * 8);
    for (size_t i = 0; i < nin; i++) in[i] = (float)uniform();
    for (size_t i = 0; i < nf; i++) filt[i] = (float)uniform();
    for (size_t i = 0; i < nout; i++) out_k[i] = out_a[i] = NAN;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            long double s = 0;
            for (int fy = 0; fy < fs; fy++)
                for (int fx = 0; fx < fs; fx++)
                    s += (long double)in[(y + fy) * pitch + x + fx] * filt[fy * fs + fx];
            want[y * W + x] = (double)s;
        }
    int iW = W, iH = H;
    void *args[5] = {&iW, &iH, in, filt, out_a};
    double s_abi = abi[hfs](5, args) == 0 ? 0 : INFINITY;

    double s_kernel = INFINITY;
    char opts[32];
    snprintf(opts, sizeof opts, "-DHFS=%d", hfs);
    cl_kernel k = build("conv2d_naive.cl", "conv2d_naive", opts);
    cl_mem mi = upload(in, nin * 4), mf = upload(filt, nf * 4), mo = upload(out_k, nout * 4);
    if (k && mi && mf && mo) {
        clSetKernelArg(k, 0, sizeof iW, &iW);
        clSetKernelArg(k, 1, sizeof iH, &iH);
        clSetKernelArg(k, 2, sizeof mi, &mi);
        clSetKernelArg(k, 3, sizeof mf, &mf);
        clSetKernelArg(k, 4, sizeof mo, &mo);
        size_t gs[2] = {(size_t)W, (size_t)H};
        if (clEnqueueNDRangeKernel(queue, k, 2, NULL, gs, NULL, 0, NULL, NULL) == CL_SUCCESS &&
            clEnqueueReadBuffer(queue, mo, CL_TRUE, 0, nout * 4, out_k, 0, NULL, NULL) ==
                CL_SUCCESS)
            s_kernel = 0;
    }
    for (size_t i = 0; i < nout; i++) {
        gk[i] = out_k[i];
        ga[i] = out_a[i];
    }
    if (s_kernel == 0)
        s_kernel = score(gk, want, nout, 1e-6, 1e-6);
    if (s_abi == 0)
        s_abi = score(ga, want, nout, 1e-6, 1e-6);
    char what[32];
    snprintf(what, sizeof what, "conv2d %dx%d", fs, fs);
    verdict(what, s_kernel, s_abi);
    if (k) clReleaseKernel(k);
    if (mi) clReleaseMemObject(mi);
    if (mf) clReleaseMemObject(mf);
    if (mo) clReleaseMemObject(mo);
    free(in); free(filt); free(out_k); free(out_a); free(want); free(gk); free(ga);
}

int main(void)
{
    if (cl_open() != 0) {
        printf("no OpenCL device: skipping\n");
        return 77;
    }
    for (int dp = 0; dp < 2; dp++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                check_gemm(dp, ta, tb, ta == tb ? 0.0 : -0.75);
    for (int hfs = 1; hfs <= 5; hfs += 2)
        check_conv(hfs);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return n_fail ? 1 : 0;
}
