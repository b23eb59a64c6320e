/*
 * clblast_gemm.c - the OpenCL library baseline: CLBlast's SGEMM and DGEMM
 * (column-major, NN, alpha 1, beta 0) and its Convgemm as a single-channel
 * 2D correlation, on the first OpenCL GPU.
 *
 *   clblast_gemm [--reps R] [--warmup W] [--prec s|d|sd|none]
 *                [--conv W H HFS]... [M [N [K]]]
 *
 * Defaults: M = N = K = 4096, 21 timed runs after 3 warm-ups (the first
 * call compiles CLBlast's kernels), both precisions, no convolution.
 *
 * Timing: CLBlast may run helper kernels (padding, transposition) before
 * its main kernel and only hands back the event of the last one, so each
 * call is timed on the host from the call to clFinish (a few microseconds
 * of launch overhead included: the conservative choice).  The event time
 * of the last kernel is printed next to it.
 *
 * Convolution: Convgemm with 1 channel, 1 kernel, no padding, stride 1 on
 * the pre-padded (H + 2*HFS) x (W + 2*HFS) image is exactly kernels/conv2d.cl
 * (cross-correlation mode, out H x W).
 *
 * Every result is spot-checked against a long double recomputation of 256
 * entries; spot_err is |got - ref| / sum |terms| (about 1e-7 for FP32).
 *
 * Build: gcc -O2 -std=c11 clblast_gemm.c clbench.c -I<clblast>/include \
 *            -L<clblast>/lib -lclblast -lOpenCL -lm
 */
#define _POSIX_C_SOURCE 200809L
#include "clbench.h" /* first: it sets the OpenCL version */

#include <clblast_c.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONV 8

struct opts {
	int reps, warmup;
	long m, n, k;
	const char *prec;
	int nconv;
	long conv[MAX_CONV][3];   /* W, H, HFS */
};

static void check_clblast(CLBlastStatusCode s, const char *what)
{
	if (s != CLBlastSuccess) {
		fprintf(stderr, "%s: CLBlast status %d\n", what, (int)s);
		exit(1);
	}
}

static cl_mem upload(struct clbench *cb, const void *host, size_t bytes)
{
	cl_int err;
	cl_mem m = clCreateBuffer(cb->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
	                          (void *)host, &err);
	clbench_check(err, "clCreateBuffer");
	return m;
}

/* What one timed library call needs: a closure over its arguments. */
struct call {
	struct clbench *cb;
	int dp;                    /* gemm: double precision */
	long m, n, k;              /* gemm sizes; conv: W, H, HFS in m, n, k */
	cl_mem a, b, c;
	int conv;
};

static CLBlastStatusCode call_once(struct call *c, cl_event *ev)
{
	if (c->conv) {
		const size_t fs = (size_t)(2 * c->k + 1);
		return CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, 1, (size_t)(c->n + 2 * c->k),
		                        (size_t)(c->m + 2 * c->k), fs, fs, 0, 0, 1, 1, 1, 1, 1, 1,
		                        c->a, 0, c->b, 0, c->c, 0, &c->cb->queue, ev);
	}
	const size_t m = (size_t)c->m, n = (size_t)c->n, k = (size_t)c->k;
	if (c->dp)
		return CLBlastDgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n,
		                    k, 1.0, c->a, 0, m, c->b, 0, k, 0.0, c->c, 0, m, &c->cb->queue, ev);
	return CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k,
	                    1.0f, c->a, 0, m, c->b, 0, k, 0.0f, c->c, 0, m, &c->cb->queue, ev);
}

/* Median wall and event seconds over o->reps calls after o->warmup. */
static void time_calls(const struct opts *o, struct call *c, double *wall, double *event,
                       double *wall_min)
{
	for (int i = 0; i < o->warmup; i++) {
		check_clblast(call_once(c, NULL), "warm-up call");
		clbench_check(clFinish(c->cb->queue), "clFinish");
	}
	double *w = malloc((size_t)o->reps * sizeof *w), *e = malloc((size_t)o->reps * sizeof *e);
	if (!w || !e) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (int i = 0; i < o->reps; i++) {
		cl_event ev;
		double t0 = clbench_now_s();
		check_clblast(call_once(c, &ev), "timed call");
		clbench_check(clFinish(c->cb->queue), "clFinish");
		w[i] = clbench_now_s() - t0;
		e[i] = clbench_event_s(ev);
		clReleaseEvent(ev);
	}
	*wall = clbench_median(w, o->reps);
	*wall_min = w[0];
	*event = clbench_median(e, o->reps);
	free(w);
	free(e);
}

static void bench_gemm(const struct opts *o, struct clbench *cb, int dp)
{
	const size_t es = dp ? sizeof(double) : sizeof(float);
	const size_t na = (size_t)(o->m * o->k), nb = (size_t)(o->k * o->n), nc = (size_t)(o->m * o->n);
	void *ha = malloc(na * es), *hb = malloc(nb * es), *hc = calloc(nc, es);
	if (!ha || !hb || !hc) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	clbench_seed(12345);
	for (size_t i = 0; i < na; i++)
		dp ? (((double *)ha)[i] = clbench_uniform()) : (((float *)ha)[i] = (float)clbench_uniform());
	for (size_t i = 0; i < nb; i++)
		dp ? (((double *)hb)[i] = clbench_uniform()) : (((float *)hb)[i] = (float)clbench_uniform());
	struct call c = {cb, dp, o->m, o->n, o->k, upload(cb, ha, na * es), upload(cb, hb, nb * es),
	                 upload(cb, hc, nc * es), 0};
	double wall, event, wall_min;
	time_calls(o, &c, &wall, &event, &wall_min);
	clbench_check(clEnqueueReadBuffer(cb->queue, c.c, CL_TRUE, 0, nc * es, hc, 0, NULL, NULL),
	              "read C");
#define AT(p, i) (dp ? ((double *)(p))[i] : (double)((float *)(p))[i])
	double worst = 0;
	for (int s = 0; s < 256; s++) {
		long i = (long)((clbench_uniform() + 1) * 0.5 * (double)o->m);
		long j = (long)((clbench_uniform() + 1) * 0.5 * (double)o->n);
		long double acc = 0, mag = 0;
		for (long p = 0; p < o->k; p++) {
			long double x = (long double)AT(ha, i + p * o->m) * AT(hb, p + j * o->k);
			acc += x;
			mag += fabsl(x);
		}
		double err = (double)(fabsl((long double)AT(hc, i + j * o->m) - acc) / (mag > 0 ? mag : 1));
		if (err > worst || isnan(err))
			worst = err;
	}
#undef AT
	const double flop = 2.0 * (double)o->m * (double)o->n * (double)o->k;
	printf("clblast %s %5ld %5ld %5ld %9.3f %9.3f %9.3f %10.1f %9.2e\n", dp ? "dgemm" : "sgemm",
	       o->m, o->n, o->k, wall * 1e3, wall_min * 1e3, event * 1e3, flop / wall * 1e-9, worst);
	fflush(stdout);
	clReleaseMemObject(c.a);
	clReleaseMemObject(c.b);
	clReleaseMemObject(c.c);
	free(ha);
	free(hb);
	free(hc);
}

static void bench_conv(const struct opts *o, struct clbench *cb, long w, long h, long hfs)
{
	const long fs = 2 * hfs + 1, pitch = w + 2 * hfs;
	const size_t nin = (size_t)(pitch * (h + 2 * hfs)), nf = (size_t)(fs * fs);
	const size_t nout = (size_t)(w * h);
	float *in = malloc(nin * 4), *filt = malloc(nf * 4), *out = calloc(nout, 4);
	if (!in || !filt || !out) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	clbench_seed(777);
	for (size_t i = 0; i < nin; i++)
		in[i] = (float)clbench_uniform();
	for (size_t i = 0; i < nf; i++)
		filt[i] = (float)clbench_uniform();
	struct call c = {cb, 0, w, h, hfs, upload(cb, in, nin * 4), upload(cb, filt, nf * 4),
	                 upload(cb, out, nout * 4), 1};
	double wall, event, wall_min;
	time_calls(o, &c, &wall, &event, &wall_min);
	clbench_check(clEnqueueReadBuffer(cb->queue, c.c, CL_TRUE, 0, nout * 4, out, 0, NULL, NULL),
	              "read out");
	double worst = 0;
	for (int s = 0; s < 256; s++) {
		long x = (long)((clbench_uniform() + 1) * 0.5 * (double)w);
		long y = (long)((clbench_uniform() + 1) * 0.5 * (double)h);
		long double acc = 0, mag = 0;
		for (long fy = 0; fy < fs; fy++)
			for (long fx = 0; fx < fs; fx++) {
				long double t = (long double)in[(y + fy) * pitch + x + fx] * filt[fy * fs + fx];
				acc += t;
				mag += fabsl(t);
			}
		double err = (double)(fabsl((long double)out[y * w + x] - acc) / (mag > 0 ? mag : 1));
		if (err > worst || isnan(err))
			worst = err;
	}
	const double flop = 2.0 * (double)nf * (double)w * (double)h;
	printf("clblast conv%ldx%ld %5ld %5ld %5s %9.3f %9.3f %9.3f %10.1f %9.2e\n", fs, fs, w, h, "-",
	       wall * 1e3, wall_min * 1e3, event * 1e3, flop / wall * 1e-9, worst);
	fflush(stdout);
	clReleaseMemObject(c.a);
	clReleaseMemObject(c.b);
	clReleaseMemObject(c.c);
	free(in);
	free(filt);
	free(out);
}

static void usage(const char *argv0)
{
	fprintf(stderr,
	        "usage: %s [--reps R] [--warmup W] [--prec s|d|sd|none] [--conv W H HFS]... "
	        "[M [N [K]]]\n",
	        argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = {.reps = 21, .warmup = 3, .m = 4096, .n = 4096, .k = 4096, .prec = "sd"};
	long sizes[3];
	int nsizes = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			o.reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc)
			o.warmup = atoi(argv[++i]);
		else if (strcmp(argv[i], "--prec") == 0 && i + 1 < argc)
			o.prec = argv[++i];
		else if (strcmp(argv[i], "--conv") == 0 && i + 3 < argc && o.nconv < MAX_CONV) {
			for (int j = 0; j < 3; j++)
				o.conv[o.nconv][j] = atol(argv[++i]);
			if (o.conv[o.nconv][0] < 1 || o.conv[o.nconv][1] < 1 || o.conv[o.nconv][2] < 0)
				usage(argv[0]);
			o.nconv++;
		} else if (nsizes < 3 && atol(argv[i]) > 0)
			sizes[nsizes++] = atol(argv[i]);
		else
			usage(argv[0]);
	}
	if (o.reps < 1 || o.warmup < 0)
		usage(argv[0]);
	if (nsizes > 0)
		o.m = o.n = o.k = sizes[0];
	if (nsizes > 1)
		o.n = sizes[1];
	if (nsizes > 2)
		o.k = sizes[2];

	struct clbench cb;
	clbench_open(&cb);
	printf("# CLBlast 1.5.3 (Debian libclblast1), median of %d calls after %d warm-ups\n",
	       o.reps, o.warmup);
	printf("# lib   op         M     N     K   wall_ms   min_ms  event_ms    GFLOP/s  spot_err\n");
	if (strchr(o.prec, 's'))
		bench_gemm(&o, &cb, 0);
	if (strchr(o.prec, 'd'))
		bench_gemm(&o, &cb, 1);
	for (int i = 0; i < o.nconv; i++)
		bench_conv(&o, &cb, o.conv[i][0], o.conv[i][1], o.conv[i][2]);
	clbench_close(&cb);
	return 0;
}
