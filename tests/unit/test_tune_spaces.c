/*
 * test_tune_spaces.c - the shipped tuning spaces (spaces/gemm.space,
 * spaces/conv2d.space) loaded as spacetune jobs, and argument types given
 * by name (`arg in real A[...]`).
 *
 * Oracle: each variant's launch geometry, defines, arguments, reference
 * and metrics are recomputed here in C from the point's parameters with
 * the formulas documented at the top of kernels/gemm.cl and
 * kernels/conv2d.cl (not from the .space files), so a tune block that
 * launches a kernel differently from how the kernel says it must be
 * launched fails here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/job.h"

struct job_load {
	struct tune_job *job;
	int rc;
	char *diag;
	size_t diag_len;
};

/* Loads top_srcdir/REL with the given --set bindings. */
static void job_load(struct job_load *l, const char *rel, int nsets, const char *const *sets)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", top && *top ? top : ".", rel);
	FILE *diag = open_memstream(&l->diag, &l->diag_len);
	cr_assert_not_null(diag);
	struct tune_job_opts o = { .space_path = path, .nsets = nsets, .sets = sets, .diag = diag };
	l->job = NULL;
	l->rc = tune_job_load(&o, &l->job);
	fclose(diag);
}

static void job_unload(struct job_load *l)
{
	tune_job_free(l->job);
	free(l->diag);
}

static long param(const struct tune_job *job, size_t i, const char *name)
{
	for (int p = 0; p < tune_job_nparams(job); p++)
		if (!strcmp(tune_job_param_name(job, p), name))
			return (long)tune_job_point_value(job, i, p);
	cr_assert_fail("no parameter '%s'", name);
	return 0;
}

/* The options contain the define NAME=VALUE as a whole word. */
static void expect_define(const char *options, const char *name, long value)
{
	char want[128];
	snprintf(want, sizeof(want), "-D%s=%ld", name, value);
	const char *p = options;
	size_t n = strlen(want);
	while ((p = strstr(p, want)) && p[n] != ' ' && p[n] != '\0')
		p += n;
	cr_expect_not_null(p, "'%s' lacks %s", options, want);
}

/* ---- GEMM ------------------------------------------------------------------------- */

static void expect_gemm(struct tune_job *job, long M, long N, long K, int dp)
{
	const enum tune_type real = dp ? TUNE_DOUBLE : TUNE_FLOAT;
	const struct tune_reference *r = tune_job_reference(job);
	cr_expect_eq(r->kind, TUNE_REF_KERNEL);
	cr_expect_str_eq(r->name, "gemm_naive");
	cr_expect_str_eq(r->build_options, dp ? "-DPRECISION=2" : "-DPRECISION=1");
	cr_expect_eq(r->global[0], (size_t)M);
	cr_expect_eq(r->global[1], (size_t)N);
	cr_expect_gt(r->abs_tol, 0);
	cr_assert_gt(tune_job_npoints(job), 0);
	for (size_t i = 0; i < tune_job_npoints(job); i++) {
		const long dim_m = param(job, i, "dim_m"), dim_n = param(job, i, "dim_n");
		const long blk_m = param(job, i, "blk_m"), blk_n = param(job, i, "blk_n");
		const long blk_k = param(job, i, "blk_k"), vec = param(job, i, "dim_vec");
		const long dim_m_a = param(job, i, "dim_m_a"), dim_m_b = param(job, i, "dim_m_b");
		const long threads = dim_m * dim_n;
		struct tune_variant v;
		const char *why = NULL;
		cr_assert_eq(tune_job_variant(job, i, &v, &why), 0, "point %zu: %s", i, why ? why : "");
		/* gemm.cl: local = (DIM_M, DIM_N), global = (M / BLK_M * DIM_M, N / BLK_N * DIM_N) */
		cr_expect_eq(v.work_dim, 2);
		cr_expect_eq(v.local[0], (size_t)dim_m);
		cr_expect_eq(v.local[1], (size_t)dim_n);
		cr_expect_eq(v.global[0], (size_t)(M / blk_m * dim_m));
		cr_expect_eq(v.global[1], (size_t)(N / blk_n * dim_n));
		/* the #error rules of gemm.cl hold for the defines it gets */
		cr_expect_eq(threads % dim_m_a, 0);
		cr_expect_eq(blk_m % dim_m, 0);
		expect_define(v.build_options, "PRECISION", dp ? 2 : 1);
		expect_define(v.build_options, "DIM_M", dim_m);
		expect_define(v.build_options, "DIM_N", dim_n);
		expect_define(v.build_options, "BLK_M", blk_m);
		expect_define(v.build_options, "BLK_N", blk_n);
		expect_define(v.build_options, "BLK_K", blk_k);
		expect_define(v.build_options, "DIM_VEC", vec);
		expect_define(v.build_options, "VEC_MUL", param(job, i, "vec_mul"));
		expect_define(v.build_options, "DIM_M_A", dim_m_a);
		expect_define(v.build_options, "DIM_N_A", threads / dim_m_a);
		expect_define(v.build_options, "DIM_M_B", dim_m_b);
		expect_define(v.build_options, "DIM_N_B", threads / dim_m_b);
		expect_define(v.build_options, "PRE_A", param(job, i, "pre_a"));
		expect_define(v.build_options, "PRE_B", param(job, i, "pre_b"));
		expect_define(v.build_options, "PAD_B", param(job, i, "pad_b"));
		/* gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), NN */
		cr_assert_eq(v.nargs, 11);
		const long ints[][2] = { { 0, M }, { 1, N }, { 2, K }, { 5, M }, { 7, K }, { 10, M } };
		for (size_t a = 0; a < sizeof(ints) / sizeof(ints[0]); a++) {
			cr_expect_eq(v.args[ints[a][0]].kind, TUNE_ARG_SCALAR);
			cr_expect_eq(v.args[ints[a][0]].type, TUNE_INT);
			cr_expect_eq(v.args[ints[a][0]].i, ints[a][1], "argument %ld", ints[a][0]);
		}
		cr_expect_eq(v.args[3].type, real);
		cr_expect_eq(v.args[8].type, real);
		const long counts[][2] = { { 4, M * K }, { 6, K * N }, { 9, M * N } };
		for (size_t a = 0; a < 3; a++) {
			const struct tune_arg *b = &v.args[counts[a][0]];
			cr_expect_eq(b->kind, TUNE_ARG_BUFFER);
			cr_expect_eq(b->type, real);
			cr_expect_eq(b->count, (uint64_t)counts[a][1]);
		}
		cr_expect(v.args[9].compare && v.args[9].access == TUNE_INOUT);
		cr_assert_eq(v.nmetrics, 1);
		cr_expect_eq(v.metrics[0].unit, TUNE_METRIC_FLOP);
		cr_expect_eq(v.metrics[0].per_run, 2.0 * M * N * K);
	}
}

Test(tune_spaces, gemm_single)
{
	static const char *const sets[] = { "M=128", "N=64", "K=32" };
	struct job_load l;
	job_load(&l, "spaces/gemm.space", 3, sets);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	expect_gemm(l.job, 128, 64, 32, 0);
	job_unload(&l);
}

Test(tune_spaces, gemm_double_types_by_name)
{
	static const char *const sets[] = { "M=64", "N=64", "K=16", "precision=double" };
	struct job_load l;
	job_load(&l, "spaces/gemm.space", 4, sets);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	expect_gemm(l.job, 64, 64, 16, 1);
	job_unload(&l);
}

Test(tune_spaces, named_type_must_name_a_type)
{
	static const char *const sets[] = { "M=64", "N=64", "K=16", "precision=half" };
	struct job_load l;
	/* precision "half" makes real = "float" (any other precision is single)... */
	job_load(&l, "spaces/gemm.space", 4, sets);
	cr_expect_eq(l.rc, 0, "%s", l.diag);
	job_unload(&l);
	/* ...but a file whose named type holds no type name is a located error. */
	job_load(&l, "tests/tuner/tune_badtype.space", 0, NULL);
	cr_expect_eq(l.rc, 1);
	cr_expect(strstr(l.diag, "tune_badtype.space:6:12: error: 'elem' does not name an argument type here"),
		  "%s", l.diag);
	job_unload(&l);
}

/* ---- conv2d ---------------------------------------------------------------------- */

static void expect_conv(long W, long H, long fs)
{
	char w[32], h[32], f[32];
	snprintf(w, sizeof(w), "W=%ld", W);
	snprintf(h, sizeof(h), "H=%ld", H);
	snprintf(f, sizeof(f), "filter_size=%ld", fs);
	const char *const sets[] = { w, h, f };
	struct job_load l;
	job_load(&l, "spaces/conv2d.space", 3, sets);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	const long hfs = fs / 2;
	char ref[16];
	snprintf(ref, sizeof(ref), "-DHFS=%ld", hfs);
	const struct tune_reference *r = tune_job_reference(l.job);
	cr_expect_str_eq(r->name, "conv2d_naive");
	cr_expect_str_eq(r->build_options, ref);
	cr_assert_gt(tune_job_npoints(l.job), 0);
	for (size_t i = 0; i < tune_job_npoints(l.job); i++) {
		const long xwg = param(l.job, i, "Xwg"), ywg = param(l.job, i, "Ywg");
		const long xwpt = param(l.job, i, "Xwpt"), ywpt = param(l.job, i, "Ywpt");
		const long local = param(l.job, i, "LOCAL");
		/* conv2d.cl's launch geometry */
		const long xl = local == 2 ? xwg + (2 * hfs + xwpt - 1) / xwpt : xwg;
		const long yl = local == 2 ? ywg + (2 * hfs + ywpt - 1) / ywpt : ywg;
		struct tune_variant v;
		const char *why = NULL;
		cr_assert_eq(tune_job_variant(l.job, i, &v, &why), 0, "point %zu: %s", i, why ? why : "");
		cr_expect_eq(v.local[0], (size_t)xl);
		cr_expect_eq(v.local[1], (size_t)yl);
		cr_expect_eq(v.global[0], (size_t)(W / (xwg * xwpt) * xl));
		cr_expect_eq(v.global[1], (size_t)(H / (ywg * ywpt) * yl));
		cr_expect_eq(W % (xwg * xwpt), 0);
		cr_expect_eq(xwpt % param(l.job, i, "VW"), 0, "conv2d.cl #error vw_divides_wpt");
		expect_define(v.build_options, "HFS", hfs);
		expect_define(v.build_options, "Xwg", xwg);
		expect_define(v.build_options, "Ywpt", ywpt);
		expect_define(v.build_options, "LOCAL", local);
		expect_define(v.build_options, "UNR", param(l.job, i, "UNR"));
		/* conv2d(W, H, in, filter, out) */
		cr_assert_eq(v.nargs, 5);
		cr_expect_eq(v.args[0].i, W);
		cr_expect_eq(v.args[1].i, H);
		cr_expect_eq(v.args[2].count, (uint64_t)((W + 2 * hfs) * (H + 2 * hfs)));
		cr_expect_eq(v.args[3].count, (uint64_t)(fs * fs));
		cr_expect_eq(v.args[4].count, (uint64_t)(W * H));
		cr_expect(v.args[4].compare && !v.args[2].compare && !v.args[3].compare);
		cr_expect_eq(v.metrics[0].per_run, 2.0 * fs * fs * W * H);
	}
	job_unload(&l);
}

Test(tune_spaces, conv2d_every_filter)
{
	expect_conv(512, 256, 3);
	expect_conv(512, 256, 7);
	expect_conv(256, 512, 11);
}
