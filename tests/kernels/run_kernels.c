/*
 * run_kernels.c -- standalone OpenCL test of kernels/gemm.cl and
 * kernels/conv2d.cl against the C references in kernels/{gemm,conv2d}_ref.c.
 *
 * Build (from the repository root):
 *   gcc -O2 -std=c11 -Wall -Wextra tests/kernels/run_kernels.c \
 *       kernels/gemm_ref.c kernels/conv2d_ref.c -lOpenCL -o /tmp/run_kernels
 *
 * Usage:
 *   run_kernels                      built-in cases + samples of the spaces
 *   run_kernels builtin              built-in cases only
 *   run_kernels space [N_CONV [N_GEMM]]  samples of the spaces only
 *   run_kernels gemm NAME=VALUE...   one configuration
 *   run_kernels conv2d NAME=VALUE...
 *   run_kernels --bench gemm|conv2d NAME=VALUE...
 *                                    time one configuration (GFLOP/s; the
 *                                    output is spot-checked, not fully)
 *
 * NAME=VALUE pairs become -D NAME=VALUE, except the harness's own keys:
 *   gemm:   M N K (sizes), ALPHA BETA, LDPAD (extra rows in lda/ldb/ldc)
 *   conv2d: W H (output size)
 *   both:   REPS (bench repetitions)
 * Missing sizes are chosen as multiples of the tiles.
 *
 * Environment: KERNELS_DIR (default "kernels"), SPACEC (default "./spacec"),
 * RUN_KERNELS_OPTIONS (extra build options, e.g. -cl-nv-maxrregcount=128),
 * SPACES_DIR (default "spaces"), RUN_KERNELS_PLATFORM / RUN_KERNELS_DEVICE
 * (indices; default: the first GPU of any platform, else the first device
 * of the first platform that has one).
 *
 * Output: one line per case, then "N passed, M failed" (and skipped).
 * Exit status: 0 all passed, 1 some failed, 77 no OpenCL platform/device.
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../kernels/ref.h"

/* ------------------------------------------------------------------ utils */

#define MAXP 40

typedef struct {
    int n;
    char name[MAXP][32];
    char value[MAXP][64];
} params_t;

static void p_set(params_t *p, const char *name, const char *value)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0) {
            snprintf(p->value[i], sizeof p->value[i], "%s", value);
            return;
        }
    if (p->n == MAXP) {
        fprintf(stderr, "too many parameters\n");
        exit(2);
    }
    snprintf(p->name[p->n], sizeof p->name[0], "%s", name);
    snprintf(p->value[p->n], sizeof p->value[0], "%s", value);
    p->n++;
}

static const char *p_str(const params_t *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0)
            return p->value[i];
    return NULL;
}

static long p_int(const params_t *p, const char *name, long dflt)
{
    const char *s = p_str(p, name);
    return s ? strtol(s, NULL, 0) : dflt;
}

/* First of several spellings that is set. */
static long p_int_any(const params_t *p, const char *const *names, long dflt)
{
    for (; *names; names++)
        if (p_str(p, *names))
            return p_int(p, *names, dflt);
    return dflt;
}

static int parse_pairs(params_t *p, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i]) {
            fprintf(stderr, "expected NAME=VALUE, got '%s'\n", argv[i]);
            return -1;
        }
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i]), argv[i]);
        p_set(p, name, eq + 1);
    }
    return 0;
}

static int is_harness_key(const char *kernel, const char *name)
{
    static const char *const common[] = {"REPS", NULL};
    static const char *const gemm[] = {"M", "N", "K", "ALPHA", "BETA", "LDPAD", NULL};
    static const char *const conv[] = {"W", "H", NULL};
    const char *const *lists[] = {common, strcmp(kernel, "gemm") == 0 ? gemm : conv};
    for (int l = 0; l < 2; l++)
        for (const char *const *k = lists[l]; *k; k++)
            if (strcmp(*k, name) == 0)
                return 1;
    return 0;
}

static void describe(const char *kernel, const params_t *p, char *buf, size_t n)
{
    size_t off = (size_t)snprintf(buf, n, "%s", kernel);
    for (int i = 0; i < p->n && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, " %s=%s", p->name[i], p->value[i]);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static void rng_seed(uint64_t s) { rng_state = s ? s : 1; }
static uint64_t rng_next(void)
{
    /* xorshift64*: deterministic across platforms */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static double rng_uniform(void) /* [-1, 1) */
{
    return (double)(rng_next() >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long round_up(long x, long m) { return (x + m - 1) / m * m; }

/* ----------------------------------------------------------------- OpenCL */

static cl_context ctx;
static cl_command_queue queue;
static cl_device_id dev;
static int dev_fp64;
static size_t dev_max_wg;
static cl_ulong dev_local_mem;
static char dev_name[256];
static const char *kernels_dir = "kernels";

static int cl_init(void)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
        return -1;
    const char *ep = getenv("RUN_KERNELS_PLATFORM");
    const char *ed = getenv("RUN_KERNELS_DEVICE");
    /* Prefer a GPU on any platform (a machine may list PoCL's CPU device
     * first), then any device; the environment variables override. */
    int found = 0;
    const cl_device_type pass_type[2] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL};
    for (int pass = (ep || ed) ? 1 : 0; pass < 2 && !found; pass++)
        for (cl_uint i = 0; i < np && !found; i++) {
            if (ep && (cl_uint)atoi(ep) != i)
                continue;
            cl_device_id devs[16];
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[i], pass_type[pass], 16, devs, &nd) != CL_SUCCESS || nd == 0)
                continue;
            cl_uint di = ed ? (cl_uint)atoi(ed) : 0;
            if (di >= nd)
                continue;
            dev = devs[di];
            found = 1;
        }
    if (!found)
        return -1;
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return -1;
    queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS)
        return -1;
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    dev_fp64 = fp64 != 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_max_wg, &dev_max_wg, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev_local_mem, &dev_local_mem, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL);
    return 0;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

/* Builds kernels/<file> with the non-harness parameters as -D defines. */
static cl_kernel build(const char *kernel, const params_t *p, char *why, size_t whyn)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.cl", kernels_dir, kernel);
    char *src = read_file(path);
    if (!src) {
        snprintf(why, whyn, "cannot read %s", path);
        return NULL;
    }
    char opts[4096] = "";
    size_t off = 0;
    for (int i = 0; i < p->n; i++)
        if (!is_harness_key(kernel, p->name[i]))
            off += (size_t)snprintf(opts + off, sizeof opts - off, "-D %s=%s ",
                                    p->name[i], p->value[i]);
    if (getenv("RUN_KERNELS_OPTIONS") && off < sizeof opts)
        snprintf(opts + off, sizeof opts - off, "%s", getenv("RUN_KERNELS_OPTIONS"));
    cl_int err;
    const char *srcs[] = {src};
    cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, NULL, &err);
    free(src);
    if (err != CL_SUCCESS) {
        snprintf(why, whyn, "clCreateProgramWithSource: %d", err);
        return NULL;
    }
    err = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        /* first error line only, to keep one line per case */
        char *e = strstr(log, "error");
        if (!e)
            e = log;
        char *nl = strchr(e, '\n');
        if (nl)
            *nl = 0;
        snprintf(why, whyn, "build failed (%d): %s", err, e);
        clReleaseProgram(prog);
        return NULL;
    }
    cl_kernel k = clCreateKernel(prog, kernel, &err);
    clReleaseProgram(prog); /* the kernel keeps it alive */
    if (err != CL_SUCCESS) {
        snprintf(why, whyn, "clCreateKernel: %d", err);
        return NULL;
    }
    return k;
}

static cl_mem buf(size_t bytes, const void *host, cl_mem_flags fl)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, fl | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)host, &err);
    return err == CL_SUCCESS ? m : NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs the kernel reps times; returns the median kernel time (s) of the
 * runs after the first (a warm-up, unless reps == 1), or < 0. */
static double launch(cl_kernel k, const size_t gs[2], const size_t ls[2], int reps,
                     char *why, size_t whyn)
{
    double *t = malloc((size_t)reps * sizeof *t);
    int nt = 0;
    if (!t) {
        snprintf(why, whyn, "out of memory");
        return -1;
    }
    for (int r = 0; r < reps; r++) {
        cl_event ev;
        cl_int err = clEnqueueNDRangeKernel(queue, k, 2, NULL, gs, ls, 0, NULL, &ev);
        if (err != CL_SUCCESS) {
            snprintf(why, whyn, "clEnqueueNDRangeKernel: %d (global %zux%zu local %zux%zu)",
                     err, gs[0], gs[1], ls[0], ls[1]);
            free(t);
            return -1;
        }
        err = clWaitForEvents(1, &ev);
        if (err != CL_SUCCESS) {
            snprintf(why, whyn, "kernel execution failed: %d", err);
            clReleaseEvent(ev);
            free(t);
            return -1;
        }
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(ev);
        if (r > 0 || reps == 1)
            t[nt++] = (double)(t1 - t0) * 1e-9;
    }
    qsort(t, (size_t)nt, sizeof *t, cmp_double);
    double med = nt % 2 ? t[nt / 2] : 0.5 * (t[nt / 2 - 1] + t[nt / 2]);
    free(t);
    return med;
}

/* Verdict of one case. */
enum { PASS, FAIL, SKIP };

/* A device may allow fewer work-items for this kernel than for the device
 * (register pressure): that is a device limit the tuner must also query
 * (CL_KERNEL_WORK_GROUP_SIZE), not a wrong kernel. */
static int check_kernel_wg(cl_kernel k, size_t wg, char *why, size_t whyn)
{
    size_t kmax = 0;
    if (clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) ==
            CL_SUCCESS && wg > kmax) {
        snprintf(why, whyn, "work-group %zu > CL_KERNEL_WORK_GROUP_SIZE %zu", wg, kmax);
        return SKIP;
    }
    return PASS;
}

static int check_limits(size_t wg, size_t lmem, char *why, size_t whyn)
{
    if (wg > dev_max_wg) {
        snprintf(why, whyn, "work-group %zu > device max %zu", wg, dev_max_wg);
        return SKIP;
    }
    if (lmem > dev_local_mem) {
        snprintf(why, whyn, "local memory %zu > device %lu", lmem, (unsigned long)dev_local_mem);
        return SKIP;
    }
    return PASS;
}

/* Normwise error max|got - ref| / max|ref|, and NaN/Inf detection.
 * Entries with idx[] (spot checks) compare only those. */
static double compare(const double *got, const double *ref, size_t n, int *nonfinite)
{
    double maxd = 0, maxr = 0;
    *nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(got[i])) {
            (*nonfinite)++;
            continue;
        }
        double d = fabs(got[i] - ref[i]);
        if (d > maxd)
            maxd = d;
        if (fabs(ref[i]) > maxr)
            maxr = fabs(ref[i]);
    }
    return maxr > 0 ? maxd / maxr : maxd;
}

/* ------------------------------------------------------------------- GEMM */

static int run_gemm(const params_t *p, int bench, char *msg, size_t msgn)
{
    const int dp = p_int(p, "PRECISION", 1) == 2 ||
                   (p_str(p, "REAL") && strcmp(p_str(p, "REAL"), "double") == 0);
    if (dp && !dev_fp64) {
        snprintf(msg, msgn, "device has no fp64");
        return SKIP;
    }
    const size_t es = dp ? sizeof(double) : sizeof(float);
    const long dim_m = p_int(p, "DIM_M", 16), dim_n = p_int(p, "DIM_N", 16);
    const long blk_m = p_int(p, "BLK_M", 64), blk_n = p_int(p, "BLK_N", 64);
    const long blk_k = p_int(p, "BLK_K", 8);
    const long ta = p_int(p, "TRANS_A", 0), tb = p_int(p, "TRANS_B", 0);
    /* Non-square default sizes in 64..256, multiples of the tiles. */
    const long M = p_int(p, "M", round_up(96 + blk_m, blk_m));
    const long N = p_int(p, "N", round_up(80 + blk_n, blk_n));
    const long K = p_int(p, "K", round_up(72, blk_k));
    /* Leading dimensions larger than the matrices (multiples of 4, so of any
     * DIM_VEC) to catch lda/ldb/ldc mix-ups. */
    const long ldpad = p_int(p, "LDPAD", 4);
    const long rows_a = ta ? K : M, cols_a = ta ? M : K;
    const long rows_b = tb ? N : K, cols_b = tb ? K : N;
    const long lda = rows_a + ldpad, ldb = rows_b + ldpad, ldc = M + ldpad;
    const double alpha = p_str(p, "ALPHA") ? atof(p_str(p, "ALPHA")) : 1.25;
    const double beta = p_str(p, "BETA") ? atof(p_str(p, "BETA")) : -0.75;
    const int reps = (int)p_int(p, "REPS", bench ? 10 : 1);
    /* gemm.cl's local tiles: PAD_A/PAD_B default to 1 for a transposed
     * operand, and DBUF doubles them. */
    const long pad_a = p_int(p, "PAD_A", ta ? 1 : 0), pad_b = p_int(p, "PAD_B", tb ? 1 : 0);
    const long nbuf = 1 + p_int(p, "DBUF", 0);

    if (M % blk_m || N % blk_n || K % blk_k) {
        snprintf(msg, msgn, "sizes %ldx%ldx%ld not multiples of the tile", M, N, K);
        return FAIL;
    }
    int v = check_limits((size_t)(dim_m * dim_n),
                         (size_t)(nbuf * blk_k * (blk_m + pad_a + blk_n + pad_b)) * es,
                         msg, msgn);
    if (v != PASS)
        return v;

    const size_t na = (size_t)(lda * cols_a), nb = (size_t)(ldb * cols_b), nc = (size_t)(ldc * N);
    double *dA = malloc(na * sizeof(double)), *dB = malloc(nb * sizeof(double));
    double *dC = malloc(nc * sizeof(double)), *dR = malloc(nc * sizeof(double));
    void *hA = malloc(na * es), *hB = malloc(nb * es), *hC = malloc(nc * es);
    rng_seed(12345);
    for (size_t i = 0; i < na; i++) dA[i] = rng_uniform();
    for (size_t i = 0; i < nb; i++) dB[i] = rng_uniform();
    for (size_t i = 0; i < nc; i++) dC[i] = beta == 0 ? NAN : rng_uniform();
#define TO_HOST(h, d, n) \
    for (size_t i = 0; i < (n); i++) { if (dp) ((double *)(h))[i] = (d)[i]; else ((float *)(h))[i] = (float)(d)[i]; }
    TO_HOST(hA, dA, na)
    TO_HOST(hB, dB, nb)
    TO_HOST(hC, dC, nc)

    int verdict = FAIL;
    double *got = NULL, *ref = NULL;
    cl_mem mA = NULL, mB = NULL, mC = NULL;
    cl_kernel k = build("gemm", p, msg, msgn);
    if (!k)
        goto out;
    if ((verdict = check_kernel_wg(k, (size_t)(dim_m * dim_n), msg, msgn)) != PASS)
        goto out;
    verdict = FAIL;
    mA = buf(na * es, hA, CL_MEM_READ_ONLY);
    mB = buf(nb * es, hB, CL_MEM_READ_ONLY);
    mC = buf(nc * es, hC, CL_MEM_READ_WRITE);
    if (!mA || !mB || !mC) {
        snprintf(msg, msgn, "buffer allocation failed");
        goto out;
    }
    {
        cl_int iM = (cl_int)M, iN = (cl_int)N, iK = (cl_int)K;
        cl_int ilda = (cl_int)lda, ildb = (cl_int)ldb, ildc = (cl_int)ldc;
        float fa = (float)alpha, fb = (float)beta;
        const void *pa = dp ? (const void *)&alpha : (const void *)&fa;
        const void *pb = dp ? (const void *)&beta : (const void *)&fb;
        int a = 0;
        clSetKernelArg(k, a++, sizeof iM, &iM);
        clSetKernelArg(k, a++, sizeof iN, &iN);
        clSetKernelArg(k, a++, sizeof iK, &iK);
        clSetKernelArg(k, a++, es, pa);
        clSetKernelArg(k, a++, sizeof mA, &mA);
        clSetKernelArg(k, a++, sizeof ilda, &ilda);
        clSetKernelArg(k, a++, sizeof mB, &mB);
        clSetKernelArg(k, a++, sizeof ildb, &ildb);
        clSetKernelArg(k, a++, es, pb);
        clSetKernelArg(k, a++, sizeof mC, &mC);
        clSetKernelArg(k, a++, sizeof ildc, &ildc);
    }
    {
        /* global = (M/BLK_M*DIM_M, N/BLK_N*DIM_N), local = (DIM_M, DIM_N) */
        size_t gs[2] = {(size_t)(M / blk_m * dim_m), (size_t)(N / blk_n * dim_n)};
        size_t ls[2] = {(size_t)dim_m, (size_t)dim_n};
        /* Repeated runs would accumulate beta*C: time with beta applied to
         * a C that is reset before the verified (first) run only. */
        double t = launch(k, gs, ls, 1, msg, msgn);
        if (t < 0)
            goto out;
        if (clEnqueueReadBuffer(queue, mC, CL_TRUE, 0, nc * es, hC, 0, NULL, NULL) != CL_SUCCESS) {
            snprintf(msg, msgn, "read back failed");
            goto out;
        }
        if (bench && reps > 1) {
            t = launch(k, gs, ls, reps, msg, msgn);
            if (t < 0)
                goto out;
        }
        for (size_t i = 0; i < nc; i++)
            dR[i] = dp ? ((double *)hC)[i] : ((float *)hC)[i];

        /* Reference: the full product, or (bench) a spot check of 512
         * entries, each a K-long dot product in long double. */
        size_t nchk = 0;
        got = calloc(nc + 512, sizeof(double));
        ref = calloc(nc + 512, sizeof(double));
        if (!got || !ref) {
            snprintf(msg, msgn, "out of memory");
            goto out;
        }
        if (!bench) {
            for (long j = 0; j < N; j++)
                for (long i = 0; i < M; i++) {
                    got[nchk] = dR[i + j * ldc];
                    ref[nchk++] = 0;
                }
            if (dp) {
                gemm_ref_trans_f64((int)ta, (int)tb, (int)M, (int)N, (int)K, alpha, (double *)hA,
                                   (int)lda, (double *)hB, (int)ldb, beta, dC, (int)ldc);
                nchk = 0;
                for (long j = 0; j < N; j++)
                    for (long i = 0; i < M; i++)
                        ref[nchk++] = dC[i + j * ldc];
            } else {
                float *fC = malloc(nc * sizeof(float));
                for (size_t i = 0; i < nc; i++) fC[i] = (float)dC[i];
                gemm_ref_trans_f32((int)ta, (int)tb, (int)M, (int)N, (int)K, (float)alpha,
                                   (float *)hA, (int)lda, (float *)hB, (int)ldb, (float)beta,
                                   fC, (int)ldc);
                nchk = 0;
                for (long j = 0; j < N; j++)
                    for (long i = 0; i < M; i++)
                        ref[nchk++] = fC[i + j * ldc];
                free(fC);
            }
        } else {
            for (int s = 0; s < 512; s++) {
                long i = (long)(rng_next() % (uint64_t)M), j = (long)(rng_next() % (uint64_t)N);
                long double acc = 0;
                for (long kk = 0; kk < K; kk++) {
                    long ia = ta ? kk + i * lda : i + kk * lda;
                    long ib = tb ? j + kk * ldb : kk + j * ldb;
                    double av = dp ? ((double *)hA)[ia] : ((float *)hA)[ia];
                    double bv = dp ? ((double *)hB)[ib] : ((float *)hB)[ib];
                    acc += (long double)av * bv;
                }
                double c0 = dp ? dC[i + j * ldc] : (double)(float)dC[i + j * ldc];
                ref[nchk] = (double)(alpha * acc + (beta == 0 ? 0 : beta * c0));
                got[nchk++] = dR[i + j * ldc];
            }
        }
        int nonfinite;
        double err = compare(got, ref, nchk, &nonfinite);
        const double tol = dp ? 1e-10 : 1e-4;
        verdict = (nonfinite == 0 && err <= tol) ? PASS : FAIL;
        size_t off = (size_t)snprintf(msg, msgn, "%ldx%ldx%ld err=%.2e%s", M, N, K, err,
                                      nonfinite ? " NONFINITE" : "");
        if (bench)
            snprintf(msg + off, msgn - off, " time=%.3f ms %.1f GFLOP/s", t * 1e3,
                     2.0 * (double)M * (double)N * (double)K / t * 1e-9);
    }
out:
    if (k) clReleaseKernel(k);
    if (mA) clReleaseMemObject(mA);
    if (mB) clReleaseMemObject(mB);
    if (mC) clReleaseMemObject(mC);
    free(dA); free(dB); free(dC); free(dR); free(hA); free(hB); free(hC);
    free(got); free(ref);
    return verdict;
}

/* ----------------------------------------------------------------- conv2d */

static int run_conv(const params_t *p, int bench, char *msg, size_t msgn)
{
    static const char *const n_tbx[] = {"Xwg", "XWG", "TBX", NULL};
    static const char *const n_tby[] = {"Ywg", "YWG", "TBY", NULL};
    static const char *const n_wx[] = {"Xwpt", "XWPT", "WPTX", NULL};
    static const char *const n_wy[] = {"Ywpt", "YWPT", "WPTY", NULL};
    static const char *const n_pad[] = {"PAD", "PADDING", NULL};
    const long tbx = p_int_any(p, n_tbx, 8), tby = p_int_any(p, n_tby, 8);
    const long wx = p_int_any(p, n_wx, 1), wy = p_int_any(p, n_wy, 1);
    const long local = p_int(p, "LOCAL", 1), pad = p_int_any(p, n_pad, 0);
    const long hfs = p_int(p, "HFS", 3), fs = 2 * hfs + 1;
    const int reps = (int)p_int(p, "REPS", bench ? 10 : 1);
    /* The launch geometry documented at the top of conv2d.cl. */
    const long xl = local == 2 ? tbx + (2 * hfs + wx - 1) / wx : tbx;
    const long yl = local == 2 ? tby + (2 * hfs + wy - 1) / wy : tby;
    const long tw = tbx * wx, th = tby * wy;
    /* Default sizes: between 64x64 and 256x128-ish, multiples of the tile,
     * at least two tiles each way so inter-group indexing is exercised. */
    const long W = p_int(p, "W", round_up(tw >= 128 ? 2 * tw : 160, tw));
    const long H = p_int(p, "H", round_up(th >= 64 ? 2 * th : 96, th));
    if (W % tw || H % th) {
        snprintf(msg, msgn, "size %ldx%ld not a multiple of the tile %ldx%ld", W, H, tw, th);
        return FAIL;
    }
    int v = check_limits((size_t)(xl * yl),
                         local ? (size_t)((th + 2 * hfs) * (tw + 2 * hfs + pad)) * 4 : 0, msg,
                         msgn);
    if (v != PASS)
        return v;

    const long pitch = W + 2 * hfs;
    const size_t nin = (size_t)(pitch * (H + 2 * hfs)), nout = (size_t)(W * H);
    const size_t nf = (size_t)(fs * fs);
    float *in = malloc(nin * 4), *filt = malloc(nf * 4), *out = malloc(nout * 4);
    float *ref = malloc(nout * 4);
    rng_seed(777);
    for (size_t i = 0; i < nin; i++) in[i] = (float)rng_uniform();
    for (size_t i = 0; i < nf; i++) filt[i] = (float)rng_uniform();
    /* NaN-fill the output so an element the kernel never writes is caught. */
    for (size_t i = 0; i < nout; i++) out[i] = NAN;

    int verdict = FAIL;
    cl_mem mi = NULL, mf = NULL, mo = NULL;
    cl_kernel k = build("conv2d", p, msg, msgn);
    if (!k)
        goto out;
    if ((verdict = check_kernel_wg(k, (size_t)(xl * yl), msg, msgn)) != PASS)
        goto out;
    verdict = FAIL;
    mi = buf(nin * 4, in, CL_MEM_READ_ONLY);
    mf = buf(nf * 4, filt, CL_MEM_READ_ONLY);
    mo = buf(nout * 4, out, CL_MEM_READ_WRITE);
    if (!mi || !mf || !mo) {
        snprintf(msg, msgn, "buffer allocation failed");
        goto out;
    }
    {
        cl_int iW = (cl_int)W, iH = (cl_int)H;
        clSetKernelArg(k, 0, sizeof iW, &iW);
        clSetKernelArg(k, 1, sizeof iH, &iH);
        clSetKernelArg(k, 2, sizeof mi, &mi);
        clSetKernelArg(k, 3, sizeof mf, &mf);
        clSetKernelArg(k, 4, sizeof mo, &mo);
        size_t gs[2] = {(size_t)(W / tw * xl), (size_t)(H / th * yl)};
        size_t ls[2] = {(size_t)xl, (size_t)yl};
        double t = launch(k, gs, ls, reps, msg, msgn);
        if (t < 0)
            goto out;
        if (clEnqueueReadBuffer(queue, mo, CL_TRUE, 0, nout * 4, out, 0, NULL, NULL) != CL_SUCCESS) {
            snprintf(msg, msgn, "read back failed");
            goto out;
        }
        conv2d_ref_f32((int)W, (int)H, (int)hfs, in, filt, ref);
        double *g = malloc(nout * sizeof(double)), *r = malloc(nout * sizeof(double));
        for (size_t i = 0; i < nout; i++) {
            g[i] = out[i];
            r[i] = ref[i];
        }
        int nonfinite;
        double err = compare(g, r, nout, &nonfinite);
        free(g);
        free(r);
        verdict = (nonfinite == 0 && err <= 1e-4) ? PASS : FAIL;
        size_t off = (size_t)snprintf(msg, msgn, "%ldx%ld err=%.2e%s", W, H, err,
                                      nonfinite ? " NONFINITE" : "");
        if (bench)
            snprintf(msg + off, msgn - off, " time=%.3f ms %.1f GFLOP/s", t * 1e3,
                     2.0 * (double)W * (double)H * (double)nf / t * 1e-9);
    }
out:
    if (k) clReleaseKernel(k);
    if (mi) clReleaseMemObject(mi);
    if (mf) clReleaseMemObject(mf);
    if (mo) clReleaseMemObject(mo);
    free(in); free(filt); free(out); free(ref);
    return verdict;
}

/* ----------------------------------------------------------------- driver */

static int n_pass, n_fail, n_skip;

static void run_case(const char *kernel, const params_t *p, int bench, const char *tag)
{
    char msg[1024] = "", desc[1024];
    describe(kernel, p, desc, sizeof desc);
    double t0 = now_s();
    int v = strcmp(kernel, "gemm") == 0 ? run_gemm(p, bench, msg, sizeof msg)
                                        : run_conv(p, bench, msg, sizeof msg);
    static const char *const word[] = {"PASS", "FAIL", "SKIP"};
    printf("%s %s%s: %s (%.1fs) %s\n", word[v], tag, desc, msg, now_s() - t0, "");
    fflush(stdout);
    if (v == PASS) n_pass++;
    else if (v == FAIL) n_fail++;
    else n_skip++;
}

static void run_line(const char *kernel, const char *line, const char *tag)
{
    params_t p = {0};
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", line);
    char *argv[MAXP];
    int argc = 0;
    for (char *t = strtok(tmp, " "); t && argc < MAXP; t = strtok(NULL, " "))
        argv[argc++] = t;
    if (parse_pairs(&p, argc, argv) == 0)
        run_case(kernel, &p, 0, tag);
    else
        n_fail++;
}

/* Hand-picked cases: every feature of each kernel at least once. */
static const char *const gemm_cases[] = {
    /* float, scalar loads, square reading shapes */
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=1 VEC_MUL=0 DIM_M_A=16 DIM_N_A=16 DIM_M_B=16 DIM_N_B=16",
    /* float4 loads, reshaped readers, vector multiply */
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=16 DIM_N_A=16 DIM_M_B=4 DIM_N_B=64",
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=8 DIM_VEC=4 VEC_MUL=0 DIM_M_A=32 DIM_N_A=8 DIM_M_B=2 DIM_N_B=128",
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=8 DIM_VEC=4 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=2 DIM_N_B=128 PRE_A=1 PRE_B=1",
    /* float2, rectangular work-group, prefetch of one operand */
    "PRECISION=1 DIM_M=32 DIM_N=8 BLK_M=64 BLK_N=64 BLK_K=8 DIM_VEC=2 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=4 DIM_N_B=64 PRE_A=1",
    /* VEC_MUL requested where THR_M % DIM_VEC != 0 (falls back to scalar) */
    "PRECISION=1 DIM_M=16 DIM_N=8 BLK_M=32 BLK_N=32 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=8 DIM_N_A=16 DIM_M_B=4 DIM_N_B=32",
    /* odd shapes: 1-wide and non-power-of-two tiles */
    "PRECISION=1 DIM_M=1 DIM_N=32 BLK_M=3 BLK_N=96 BLK_K=32 DIM_VEC=1 VEC_MUL=0 DIM_M_A=1 DIM_N_A=32 DIM_M_B=32 DIM_N_B=1 M=99 N=192 K=96",
    "PRECISION=1 DIM_M=8 DIM_N=4 BLK_M=24 BLK_N=16 BLK_K=4 DIM_VEC=1 VEC_MUL=0 DIM_M_A=8 DIM_N_A=4 DIM_M_B=2 DIM_N_B=16 PRE_B=1",
    /* beta == 0: C is write-only (NaN-filled beforehand) */
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=16 DIM_N_A=16 DIM_M_B=4 DIM_N_B=64 BETA=0",
    /* transposed operands (space: --set trans_a/trans_b) */
    "PRECISION=1 TRANS_A=1 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=4 VEC_MUL=0 DIM_M_A=4 DIM_N_A=64 DIM_M_B=4 DIM_N_B=64",
    "PRECISION=1 TRANS_B=1 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=16 DIM_N_A=16 DIM_M_B=16 DIM_N_B=16 PRE_A=1 PRE_B=1",
    "PRECISION=1 TRANS_A=1 TRANS_B=1 DIM_M=8 DIM_N=8 BLK_M=32 BLK_N=16 BLK_K=8 DIM_VEC=2 VEC_MUL=1 DIM_M_A=4 DIM_N_A=16 DIM_M_B=8 DIM_N_B=8",
    /* double */
    "PRECISION=2 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=1 VEC_MUL=0 DIM_M_A=16 DIM_N_A=16 DIM_M_B=16 DIM_N_B=16",
    "PRECISION=2 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=8 DIM_VEC=2 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=4 DIM_N_B=64 PRE_A=1 PRE_B=1",
    "PRECISION=2 DIM_M=8 DIM_N=32 BLK_M=32 BLK_N=64 BLK_K=32 DIM_VEC=4 VEC_MUL=1 DIM_M_A=8 DIM_N_A=32 DIM_M_B=4 DIM_N_B=64",
    "REAL=double TRANS_A=1 DIM_M=16 DIM_N=8 BLK_M=32 BLK_N=32 BLK_K=8 DIM_VEC=2 VEC_MUL=1 DIM_M_A=4 DIM_N_A=32 DIM_M_B=4 DIM_N_B=32",
    /* double-buffered tiles (one K step only, then several; the global
     * loads before and after the multiply) and vector reads of B */
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=16 DIM_N_A=16 DIM_M_B=4 DIM_N_B=64 DBUF=1 K=16",
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=8 DIM_VEC=4 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=2 DIM_N_B=128 DBUF=1 PRE_A=1 PRE_B=1 VEC_B=4 PAD_B=4",
    "PRECISION=1 DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=16 DIM_VEC=2 VEC_MUL=1 DIM_M_A=64 DIM_N_A=4 DIM_M_B=8 DIM_N_B=32 PRE_A=1 PRE_B=1 DBUF=1 VEC_B=4 PAD_B=4",
    "PRECISION=1 DIM_M=8 DIM_N=4 BLK_M=24 BLK_N=16 BLK_K=4 DIM_VEC=1 VEC_MUL=0 DIM_M_A=8 DIM_N_A=4 DIM_M_B=2 DIM_N_B=16 PRE_B=1 DBUF=1 VEC_B=4",
    "PRECISION=1 TRANS_A=1 TRANS_B=1 DIM_M=8 DIM_N=8 BLK_M=32 BLK_N=16 BLK_K=8 DIM_VEC=2 VEC_MUL=1 DIM_M_A=4 DIM_N_A=16 DIM_M_B=8 DIM_N_B=8 DBUF=1 VEC_B=2 PAD_B=0",
    "PRECISION=2 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=8 DIM_VEC=2 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=4 DIM_N_B=64 DBUF=1 VEC_B=2 PAD_B=2",
    NULL};

static const char *const conv_cases[] = {
    /* LOCAL 0: global memory only */
    "HFS=3 Xwg=8 Ywg=8 Xwpt=1 Ywpt=1 LOCAL=0 VW=1 PAD=0 UNR=0",
    "HFS=3 Xwg=16 Ywg=8 Xwpt=4 Ywpt=2 LOCAL=0 VW=4 PAD=0 UNR=1",
    "HFS=1 Xwg=32 Ywg=8 Xwpt=8 Ywpt=1 LOCAL=0 VW=8 PAD=0 UNR=1",
    "HFS=5 Xwg=8 Ywg=16 Xwpt=2 Ywpt=4 LOCAL=0 VW=2 PAD=0 UNR=0",
    /* LOCAL 1: local tile loaded by the work-group (IN_W % VW != 0 too) */
    "HFS=3 Xwg=8 Ywg=8 Xwpt=1 Ywpt=1 LOCAL=1 VW=1 PAD=0 UNR=1",
    "HFS=3 Xwg=16 Ywg=16 Xwpt=4 Ywpt=4 LOCAL=1 VW=4 PAD=1 UNR=1",
    "HFS=3 Xwg=32 Ywg=8 Xwpt=8 Ywpt=2 LOCAL=1 VW=8 PAD=1 UNR=0",
    "HFS=1 Xwg=16 Ywg=8 Xwpt=2 Ywpt=8 LOCAL=1 VW=2 PAD=0 UNR=0",
    "HFS=5 Xwg=8 Ywg=8 Xwpt=8 Ywpt=1 LOCAL=1 VW=4 PAD=1 UNR=1",
    "HFS=5 Xwg=64 Ywg=8 Xwpt=1 Ywpt=1 LOCAL=1 VW=1 PAD=1 UNR=0",
    /* LOCAL 2: halo work-items (2*HFS % VW == 0) */
    "HFS=3 Xwg=8 Ywg=8 Xwpt=1 Ywpt=1 LOCAL=2 VW=1 PAD=0 UNR=1",
    "HFS=3 Xwg=16 Ywg=16 Xwpt=2 Ywpt=2 LOCAL=2 VW=2 PAD=1 UNR=1",
    "HFS=3 Xwg=32 Ywg=8 Xwpt=4 Ywpt=8 LOCAL=2 VW=2 PAD=0 UNR=0",
    "HFS=1 Xwg=16 Ywg=8 Xwpt=8 Ywpt=4 LOCAL=2 VW=2 PAD=1 UNR=1",
    "HFS=1 Xwg=8 Ywg=32 Xwpt=1 Ywpt=2 LOCAL=2 VW=1 PAD=0 UNR=0",
    "HFS=5 Xwg=8 Ywg=8 Xwpt=4 Ywpt=4 LOCAL=2 VW=2 PAD=1 UNR=1",
    "HFS=5 Xwg=16 Ywg=16 Xwpt=8 Ywpt=1 LOCAL=2 VW=1 PAD=0 UNR=0",
    /* CLTune-style names */
    "HFS=3 TBX=16 TBY=8 WPTX=4 WPTY=2 LOCAL=1 VECTOR=4 PADDING=1 UNROLL=1",
    /* filter in registers, sliding window down the rows */
    "HFS=3 Xwg=8 Ywg=32 Xwpt=8 Ywpt=2 LOCAL=1 VW=4 PAD=1 UNR=1 FREG=1",
    "HFS=3 Xwg=8 Ywg=32 Xwpt=8 Ywpt=2 LOCAL=1 VW=4 PAD=1 UNR=1 SLIDE=1",
    "HFS=3 Xwg=16 Ywg=8 Xwpt=4 Ywpt=4 LOCAL=0 VW=4 PAD=0 UNR=1 FREG=1 SLIDE=1",
    "HFS=1 Xwg=16 Ywg=8 Xwpt=8 Ywpt=4 LOCAL=2 VW=2 PAD=1 UNR=1 SLIDE=1",
    "HFS=5 Xwg=8 Ywg=8 Xwpt=4 Ywpt=8 LOCAL=2 VW=2 PAD=1 UNR=1 FREG=1 SLIDE=1",
    NULL};

/* Reads `cmd`'s CSV (header + rows) and runs `want` rows picked
 * deterministically (a fixed-seed partial shuffle of the row indices). */
static void run_space_sample(const char *kernel, const char *cmd, int want, const char *extra,
                             const char *const *drop, int upcase)
{
    FILE *f = popen(cmd, "r");
    char line[1024];
    if (!f || !fgets(line, sizeof line, f)) {
        printf("SKIP space %s: cannot run '%s'\n", kernel, cmd);
        n_skip++;
        if (f)
            pclose(f);
        return;
    }
    char hdr[MAXP][32];
    int nh = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *t = strtok(line, ","); t && nh < MAXP; t = strtok(NULL, ","))
        snprintf(hdr[nh++], sizeof hdr[0], "%s", t);
    size_t cap = 1024, nrows = 0;
    char **rows = malloc(cap * sizeof *rows);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (nrows == cap)
            rows = realloc(rows, (cap *= 2) * sizeof *rows);
        rows[nrows++] = strdup(line);
    }
    int st = pclose(f);
    if (nrows == 0 || st != 0) {
        printf("SKIP space %s: '%s' gave %zu rows (status %d)\n", kernel, cmd, nrows, st);
        n_skip++;
        for (size_t i = 0; i < nrows; i++) free(rows[i]);
        free(rows);
        return;
    }
    size_t *idx = malloc(nrows * sizeof *idx);
    for (size_t i = 0; i < nrows; i++) idx[i] = i;
    uint64_t saved = rng_state;
    rng_seed(0xC0FFEEull + nrows);
    size_t take = (size_t)want < nrows ? (size_t)want : nrows;
    for (size_t i = 0; i < take; i++) {
        size_t j = i + (size_t)(rng_next() % (uint64_t)(nrows - i));
        size_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    rng_state = saved;
    printf("# %s: %zu valid configurations from '%s', testing %zu\n", kernel, nrows, cmd, take);
    for (size_t s = 0; s < take; s++) {
        char spec[1024];
        size_t off = (size_t)snprintf(spec, sizeof spec, "%s", extra);
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%s", rows[idx[s]]);
        int c = 0;
        char *save = NULL;
        for (char *t = strtok_r(tmp, ",", &save); t && c < nh; t = strtok_r(NULL, ",", &save), c++) {
            int skip = 0;
            for (const char *const *d = drop; d && *d; d++)
                if (strcmp(*d, hdr[c]) == 0)
                    skip = 1;
            if (skip)
                continue;
            char name[32];
            snprintf(name, sizeof name, "%s", hdr[c]);
            if (upcase)
                for (char *q = name; *q; q++)
                    if (*q >= 'a' && *q <= 'z')
                        *q = (char)(*q - 'a' + 'A');
            off += (size_t)snprintf(spec + off, sizeof spec - off, " %s=%s", name, t);
        }
        char tag[64];
        snprintf(tag, sizeof tag, "[space #%zu] ", idx[s]);
        run_line(kernel, spec, tag);
    }
    for (size_t i = 0; i < nrows; i++) free(rows[i]);
    free(rows);
    free(idx);
}

static void run_spaces(int n_conv, int n_gemm)
{
    const char *spacec = getenv("SPACEC") ? getenv("SPACEC") : "./spacec";
    const char *spaces = getenv("SPACES_DIR") ? getenv("SPACES_DIR") : "spaces";
    char cmd[2048];
    static const char *const conv_drop[] = {NULL};
    /* tex_a/tex_b (texture path), shmem_l1 (cache preference) and
     * shmem_banks (bank width) are CUDA launch settings with no OpenCL
     * counterpart; the kernel ignores them. */
    static const char *const gemm_drop[] = {"tex_a", "tex_b", "shmem_l1", "shmem_banks", NULL};

    snprintf(cmd, sizeof cmd, "%s list --format csv %s/conv2d_cltune.space", spacec, spaces);
    run_space_sample("conv2d", cmd, n_conv, "HFS=3", conv_drop, 0);

    /* The BEAST space with a 32-thread cap (BLK_* <= 32), per precision and
     * transposition; the sample is split between them. */
    static const struct { const char *set; const char *extra; int share; } g[] = {
        {"--set precision=single", "PRECISION=1", 50},
        {"--set precision=double", "PRECISION=2", 20},
        {"--set precision=single --set trans_a=1", "PRECISION=1 TRANS_A=1", 10},
        {"--set precision=single --set trans_b=1", "PRECISION=1 TRANS_B=1", 10},
        {"--set precision=double --set trans_a=1 --set trans_b=1", "PRECISION=2 TRANS_A=1 TRANS_B=1", 10},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "%s list --format csv %s/gemm_beast.space --set max_threads_dim_x=32 "
                 "--set max_threads_dim_y=32 --set max_threads_per_block=32 %s",
                 spacec, spaces, g[i].set);
        int want = (n_gemm * g[i].share + 99) / 100;
        run_space_sample("gemm", cmd, want, g[i].extra, gemm_drop, 1);
    }
}

int main(int argc, char **argv)
{
    if (getenv("KERNELS_DIR"))
        kernels_dir = getenv("KERNELS_DIR");
    int bench = 0;
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
        bench = 1;
        argv++;
        argc--;
    }
    const char *mode = argc > 1 ? argv[1] : "all";
    if (strcmp(mode, "-h") == 0 || strcmp(mode, "--help") == 0) {
        printf("usage: run_kernels [all | builtin | space [N_CONV [N_GEMM]] |"
               " [--bench] gemm|conv2d NAME=VALUE...]\n");
        return 0;
    }
    if (cl_init() != 0) {
        printf("no OpenCL platform/device found: skipping\n");
        return 77;
    }
    printf("# device: %s (fp64 %s, max work-group %zu, local mem %lu)\n", dev_name,
           dev_fp64 ? "yes" : "no", dev_max_wg, (unsigned long)dev_local_mem);

    if (strcmp(mode, "gemm") == 0 || strcmp(mode, "conv2d") == 0) {
        params_t p = {0};
        if (parse_pairs(&p, argc - 2, argv + 2) != 0)
            return 2;
        run_case(mode, &p, bench, "");
    } else if (strcmp(mode, "all") == 0 || strcmp(mode, "builtin") == 0 ||
               strcmp(mode, "space") == 0) {
        if (strcmp(mode, "space") != 0) {
            for (const char *const *c = gemm_cases; *c; c++)
                run_line("gemm", *c, "");
            for (const char *const *c = conv_cases; *c; c++)
                run_line("conv2d", *c, "");
        }
        if (strcmp(mode, "builtin") != 0)
            run_spaces(argc > 2 ? atoi(argv[2]) : 80, argc > 3 ? atoi(argv[3]) : 100);
    } else {
        fprintf(stderr, "unknown mode '%s' (try --help)\n", mode);
        return 2;
    }
    printf("%d passed, %d failed", n_pass, n_fail);
    if (n_skip)
        printf(", %d skipped", n_skip);
    printf("\n");
    return n_fail ? 1 : 0;
}
