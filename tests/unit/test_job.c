/*
 * test_job.c - the tuning job loader (tuner/job.c).
 *
 * Oracles: the point set is checked against the reference interpreter
 * (interp_run over the same file with the same bindings, an independent
 * enumeration from the compiled one job.c uses); every variant's defines,
 * sizes, arguments and metrics are recomputed in C from the point's
 * parameter values with the formulas of tests/tuner/job_basic.space.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "parse.h"
#include "sema.h"
#include "tuner/job.h"

static char *space_path(const char *name)
{
	const char *top = getenv("top_srcdir");
	top = top && *top ? top : ".";
	size_t n = strlen(top) + strlen(name) + 16;
	char *p = malloc(n);
	snprintf(p, n, "%s/tests/tuner/%s", top, name);
	return p;
}

/* A loaded job plus what it wrote to its diagnostics. */
struct loaded {
	struct tune_job *job;
	int rc;
	char *diag;
	size_t diag_len;
};

struct fake_device {
	const char *query;   /* the query it answers */
	int rc;              /* what it returns for that query */
	int64_t value;
	int calls;
};

static int fake_query(void *user, const char *query, int64_t *value)
{
	struct fake_device *d = user;
	d->calls++;
	if (strcmp(query, d->query))
		return 1;
	*value = d->value;
	return d->rc;
}

static bool interpret; /* load with the interpreter (one test sets it) */

static void load_with(struct loaded *l, const char *name, int nsets, const char *const *sets,
		      struct fake_device *dev)
{
	char *path = space_path(name);
	FILE *diag = open_memstream(&l->diag, &l->diag_len);
	cr_assert_not_null(diag);
	struct tune_job_opts o = {
		.space_path = path,
		.nsets = nsets,
		.sets = sets,
		.query = dev ? fake_query : NULL,
		.query_user = dev,
		.diag = diag,
		.interpret = interpret,
	};
	l->job = NULL;
	l->rc = tune_job_load(&o, &l->job);
	fclose(diag);
	free(path);
}

static void release(struct loaded *l)
{
	tune_job_free(l->job);
	free(l->diag);
}

/* ---- the oracle: the reference interpreter over the same file ---------------------- */

struct oracle {
	char *src;
	struct ast_module mod;
	struct diag diag;
	struct sema_program prog;
	/* Points as rows of doubles (numbers only), in enumeration order. */
	size_t n, cap;
	double *rows;
};

static int oracle_point(void *ctx, const struct value *iters, int n)
{
	struct oracle *o = ctx;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->rows = realloc(o->rows, sizeof(double) * o->cap * (size_t)n);
	}
	for (int i = 0; i < n; i++)
		o->rows[o->n * (size_t)n + (size_t)i] = iters[i].kind == V_FLOAT ? iters[i].u.f : (double)iters[i].u.i;
	o->n++;
	return 0;
}

/* Enumerates `name` with `nb` int bindings NAME=VALUE. */
static void oracle_run(struct oracle *o, const char *name, int nb, const char *const *bnames,
		       const int64_t *bvalues)
{
	memset(o, 0, sizeof(*o));
	char *path = space_path(name);
	size_t len;
	o->src = parse_read_file(path, &len);
	cr_assert_not_null(o->src, "cannot read %s", path);
	ast_module_init(&o->mod, path);
	diag_init(&o->diag, path, o->src, len, NULL);
	cr_assert_eq(parse_source(&o->mod, &o->diag, o->src, len), 0);
	cr_assert_eq(sema_analyze(&o->mod, &o->diag, &o->prog), 0);
	struct interp_binding b[8];
	for (int i = 0; i < nb; i++) {
		b[i].name = ast_intern(&o->mod, bnames[i], strlen(bnames[i]));
		b[i].value = value_int(bvalues[i]);
	}
	struct interp_options opt = { .nbindings = nb, .bindings = b };
	struct interp_result res;
	cr_assert_eq(interp_run(&o->prog, &opt, oracle_point, o, &res, &o->diag), 0);
	cr_assert_eq(res.valid, o->n);
	interp_result_release(&res);
	free(path);
}

static void oracle_release(struct oracle *o)
{
	free(o->rows);
	ast_module_release(&o->mod);
	diag_release(&o->diag);
	free(o->src);
}

/* The job holds exactly the interpreter's points. */
static void expect_same_points(const struct tune_job *job, const struct oracle *o)
{
	int np = tune_job_nparams(job);
	cr_assert_eq(np, o->prog.niters);
	cr_assert_eq(tune_job_npoints(job), o->n, "job %zu points, interpreter %zu",
		     tune_job_npoints(job), o->n);
	for (int p = 0; p < np; p++)
		cr_expect_str_eq(tune_job_param_name(job, p), o->prog.iters[p]->name);
	bool *seen = calloc(o->n + 1, 1);
	for (size_t k = 0; k < o->n; k++) {
		const double *row = o->rows + k * (size_t)np;
		long i = tune_job_find_point(job, row);
		cr_assert_geq(i, 0, "interpreter point %zu is missing from the job", k);
		cr_expect(!seen[i], "two interpreter points map to job point %ld", i);
		seen[i] = true;
		for (int p = 0; p < np; p++)
			cr_expect_eq(tune_job_point_value(job, (size_t)i, p), row[p]);
	}
	free(seen);
}

/* ---- job_basic.space ---------------------------------------------------------------------- */

static double param(const struct tune_job *job, size_t i, const char *name)
{
	for (int p = 0; p < tune_job_nparams(job); p++)
		if (!strcmp(tune_job_param_name(job, p), name))
			return tune_job_point_value(job, i, p);
	cr_assert_fail("no parameter '%s'", name);
	return 0;
}

/* Every variant against the file's formulas, worked out here in C. */
static void expect_basic_variants(struct tune_job *job, int64_t n)
{
	for (size_t i = 0; i < tune_job_npoints(job); i++) {
		int bx = (int)param(job, i, "bx"), by = (int)param(job, i, "by"), vec = (int)param(job, i, "vec");
		struct tune_variant v;
		const char *why = NULL;
		cr_assert_eq(tune_job_variant(job, i, &v, &why), 0, "point %zu: %s", i, why ? why : "");
		char want[256];
		/* bx / 2 is a float: Python's repr prints a .0 or .5. */
		snprintf(want, sizeof(want), "-Dbx=%d -Dvec=%d -DREAL=float -DHALF=%.1f -DBIG=%d -cl-fast-relaxed-math",
			 bx, vec, bx / 2.0, vec == 2);
		cr_expect_str_eq(v.build_options, want);
		cr_expect_eq(v.point_index, i);
		cr_expect_str_eq(v.kernel_name, "scale");
		cr_expect_eq(v.work_dim, 2);
		cr_expect_eq(v.global[0], (size_t)(n / vec));
		cr_expect_eq(v.global[1], (size_t)(by * 2));
		cr_expect_eq(v.local[0], (size_t)bx);
		cr_expect_eq(v.local[1], (size_t)by);
		cr_assert_eq(v.nargs, 5);
		cr_expect_eq(v.args[0].kind, TUNE_ARG_SCALAR);
		cr_expect_eq(v.args[0].type, TUNE_INT);
		cr_expect_eq(v.args[0].i, n);
		cr_expect_eq(v.args[1].kind, TUNE_ARG_SCALAR);
		cr_expect_eq(v.args[1].type, TUNE_FLOAT);
		cr_expect_eq(v.args[1].f, 0.5 * vec);
		cr_expect_eq(v.args[2].kind, TUNE_ARG_BUFFER);
		cr_expect_str_eq(v.args[2].name, "A");
		cr_expect_eq(v.args[2].access, TUNE_IN);
		cr_expect_eq(v.args[2].count, (uint64_t)(n * 2));
		cr_expect_eq(v.args[2].init.kind, TUNE_INIT_RANDOM);
		cr_expect_eq(v.args[2].init.seed, 7);
		cr_expect_eq(v.args[2].init.lo, 0.0);
		cr_expect_eq(v.args[2].init.hi, 2.0);
		cr_expect(!v.args[2].compare, "an input is never compared");
		cr_expect_eq(v.args[3].access, TUNE_OUT);
		cr_expect(v.args[3].compare, "with no compare line, every output is compared");
		cr_expect_eq(v.args[4].kind, TUNE_ARG_LOCAL);
		cr_expect_eq(v.args[4].count, (uint64_t)(bx * by * vec));
		cr_assert_eq(v.nmetrics, 2);
		cr_expect_str_eq(v.metrics[0].name, "FLOPS");
		cr_expect_eq(v.metrics[0].unit, TUNE_METRIC_FLOP);
		cr_expect_eq(v.metrics[0].per_run, 2.0 * (double)n);
		cr_expect_eq(v.metrics[1].unit, TUNE_METRIC_BYTE);
		cr_expect_eq(v.metrics[1].per_run, 8.0 * (double)n * vec);
		cr_assert_eq(v.nparams, 3);
		char text[16];
		snprintf(text, sizeof(text), "%d", bx);
		cr_expect_str_eq(v.param_values[0], text);
		cr_expect_str_eq(v.source_hash, tune_job_source_hash(job));
	}
}

Test(job, basic_points_match_the_interpreter)
{
	struct loaded l;
	load_with(&l, "job_basic.space", 0, NULL, NULL);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	cr_expect_str_eq(l.diag, "");
	struct oracle o;
	oracle_run(&o, "job_basic.space", 0, NULL, NULL);
	cr_expect_gt(o.n, 10, "a space worth testing");
	expect_same_points(l.job, &o);
	/* The point set came from the compiled enumerator, the oracle's
	 * from the interpreter: two implementations agree. */
	cr_expect_str_neq(tune_job_enumerator(l.job), "interpreter");
	oracle_release(&o);
	release(&l);
}

/* Asked for (or when the compiled path fails), the interpreter enumerates. */
Test(job, interpreter_enumeration)
{
	struct loaded l;
	interpret = true;
	load_with(&l, "job_basic.space", 0, NULL, NULL);
	interpret = false;
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	cr_expect_str_eq(tune_job_enumerator(l.job), "interpreter");
	struct oracle o;
	oracle_run(&o, "job_basic.space", 0, NULL, NULL);
	expect_same_points(l.job, &o);
	expect_basic_variants(l.job, 64);
	oracle_release(&o);
	release(&l);
}

Test(job, basic_variants_by_hand)
{
	struct loaded l;
	load_with(&l, "job_basic.space", 0, NULL, NULL);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	cr_expect_str_eq(tune_job_name(l.job), "job_basic");
	cr_expect_str_eq(tune_job_kernel_name(l.job), "scale");
	expect_basic_variants(l.job, 64);
	/* The sources are concatenated on a line boundary. */
	struct tune_variant v;
	const char *why;
	cr_assert_eq(tune_job_variant(l.job, 0, &v, &why), 0);
	const char *extra = "/* The second source file of job_basic.space, with no final newline. */\n";
	size_t n = strlen(v.source), m = strlen(extra);
	cr_assert_gt(n, m);
	cr_expect_str_eq(v.source + n - m, extra);
	cr_expect(!strncmp(v.source, "/* Test kernel of tests/tuner/job_basic.space", 45));
	cr_expect_eq(tune_job_reference(l.job)->kind, TUNE_REF_NONE);
	cr_expect_eq(tune_job_reference(l.job)->rel_tol, 1e-3, "from the tolerance line");
	cr_expect_eq(tune_job_reference(l.job)->abs_tol, 1e-5, "the float default");
	release(&l);
}

Test(job, param_values_are_sorted_and_distinct)
{
	struct loaded l;
	load_with(&l, "job_basic.space", 0, NULL, NULL);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	const double *vals;
	cr_assert_eq(tune_job_param_values(l.job, 1, &vals), 3);
	cr_expect_eq(vals[0], 1);
	cr_expect_eq(vals[1], 2);
	cr_expect_eq(vals[2], 4);
	double none[3] = { 3, 5, 1 };
	cr_expect_eq(tune_job_find_point(l.job, none), -1, "by = 5 is not a value");
	release(&l);
}

/* The device's answer replaces the default; --set then wins over both. */
Test(job, query_hook_then_set)
{
	struct fake_device dev = { "max_work_group_size", 0, 4, 0 };
	struct loaded l;
	load_with(&l, "job_basic.space", 0, NULL, &dev);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	cr_expect_eq(dev.calls, 1);
	struct oracle o;
	const char *names[] = { "wg", "N" };
	int64_t four = 4;
	oracle_run(&o, "job_basic.space", 1, names, &four);
	expect_same_points(l.job, &o);
	oracle_release(&o);
	release(&l);

	const char *sets[] = { "wg=8", "N=32" };
	load_with(&l, "job_basic.space", 2, sets, &dev);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	int64_t values[] = { 8, 32 };
	oracle_run(&o, "job_basic.space", 2, names, values);
	expect_same_points(l.job, &o);
	expect_basic_variants(l.job, 32);
	oracle_release(&o);
	release(&l);
}

Test(job, query_the_device_lacks_keeps_the_default)
{
	struct fake_device dev = { "max_work_group_size", 1, 4, 0 };
	struct loaded l;
	load_with(&l, "job_basic.space", 0, NULL, &dev);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	struct oracle o;
	oracle_run(&o, "job_basic.space", 0, NULL, NULL);
	expect_same_points(l.job, &o);
	oracle_release(&o);
	release(&l);
}

Test(job, failing_query_is_an_error)
{
	struct fake_device dev = { "max_work_group_size", -1, 4, 0 };
	struct loaded l;
	load_with(&l, "job_basic.space", 0, NULL, &dev);
	cr_expect_eq(l.rc, 1);
	cr_expect_null(l.job);
	cr_expect(strstr(l.diag, "job_basic.space:4:19: error: cannot read the device's 'max_work_group_size'"),
		  "%s", l.diag);
	release(&l);
}

Test(job, bad_set_is_an_error)
{
	const char *sets[] = { "bx=3" };
	struct loaded l;
	load_with(&l, "job_basic.space", 1, sets, NULL);
	cr_expect_eq(l.rc, 1);
	cr_expect(strstr(l.diag, "spacetune: error: 'bx' is a iterator, not a device parameter or setting") ||
		  strstr(l.diag, "'bx'"), "%s", l.diag);
	release(&l);
	const char *unknown[] = { "NN=3" };
	load_with(&l, "job_basic.space", 1, unknown, NULL);
	cr_expect_eq(l.rc, 1);
	cr_expect(strstr(l.diag, "spacetune: error: unknown device parameter or setting 'NN'"), "%s", l.diag);
	release(&l);
}

/* The hash names the experiment: sources, options and problem sizes. */
Test(job, source_hash)
{
	struct loaded a, b, c;
	const char *sets[] = { "N=32" };
	load_with(&a, "job_basic.space", 0, NULL, NULL);
	load_with(&b, "job_basic.space", 0, NULL, NULL);
	load_with(&c, "job_basic.space", 1, sets, NULL);
	cr_assert(a.rc == 0 && b.rc == 0 && c.rc == 0);
	const char *h = tune_job_source_hash(a.job);
	cr_expect_eq(strlen(h), 32);
	cr_expect_eq(strspn(h, "0123456789abcdef"), 32);
	cr_expect_str_eq(h, tune_job_source_hash(b.job));
	cr_expect_str_neq(h, tune_job_source_hash(c.job));
	release(&a);
	release(&b);
	release(&c);
}

/* ---- unlaunchable variants, references, errors ------------------------------------ */

Test(job, unlaunchable_variants_say_why)
{
	struct loaded l;
	load_with(&l, "job_launch.space", 0, NULL, NULL);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	cr_assert_eq(tune_job_npoints(l.job), 8);
	int ok = 0;
	for (size_t i = 0; i < 8; i++) {
		int b = (int)param(l.job, i, "b");
		/* kind's values sort as "plain" < "x": their numbers are 0, 1. */
		bool x = param(l.job, i, "kind") == 1;
		struct tune_variant v;
		const char *why = NULL;
		int rc = tune_job_variant(l.job, i, &v, &why);
		if (b <= 2) {
			cr_expect_eq(rc, 1);
			cr_expect(why && strstr(why, "global size 1 is") && strstr(why, "not positive"), "b=%d: %s", b, why);
		} else if (b == 4) {
			cr_expect_eq(rc, 1);
			cr_expect_str_eq(why, "global size 10 is not a multiple of local size 4 in dimension 0");
		} else if (x) {
			cr_expect_eq(rc, 1);
			cr_expect(why && strstr(why, "440 does not fit in a uchar"), "%s", why);
		} else {
			cr_assert_eq(rc, 0, "%s", why);
			ok++;
			/* A `define X = E` line adds to the iterators. */
			cr_expect_str_eq(v.build_options, "-Db=3 -Dkind=plain -DMODE=plain");
			cr_expect_eq(v.args[0].i, 240);
			cr_expect_eq(v.global[0], 12);
			cr_expect_eq(v.global[1], 1);
			cr_expect_eq(v.args[1].init.kind, TUNE_INIT_FILE);
			cr_expect(strstr(v.args[1].init.path, "tests/tuner/job_basic.cl") ||
				  !strcmp(v.args[1].init.path, "job_basic.cl"), "%s", v.args[1].init.path);
			cr_expect_eq(v.args[2].init.kind, TUNE_INIT_CONST);
			cr_expect_eq(v.args[2].init.value, 2.5);
			cr_expect(v.args[2].compare);
		}
	}
	cr_expect_eq(ok, 1);
	const struct tune_reference *r = tune_job_reference(l.job);
	cr_expect_eq(r->kind, TUNE_REF_KERNEL);
	cr_expect_str_eq(r->name, "k_ref");
	cr_expect_str_eq(r->build_options, "-DREF=1");
	cr_expect_eq(r->work_dim, 1);
	cr_expect_eq(r->global[0], 8);
	cr_expect_eq(r->local[0], 4);
	cr_expect(strstr(r->source, "__kernel void scale"));
	cr_expect_eq(r->rel_tol, 1e-10, "double default");
	cr_expect_eq(r->abs_tol, 1e-12);
	release(&l);
}

Test(job, c_reference_and_compare_line)
{
	struct loaded l;
	load_with(&l, "job_refc.space", 0, NULL, NULL);
	cr_assert_eq(l.rc, 0, "%s", l.diag);
	const struct tune_reference *r = tune_job_reference(l.job);
	cr_expect_eq(r->kind, TUNE_REF_C);
	cr_expect(strstr(r->c_path, "job_ref.c"), "%s", r->c_path);
	cr_expect_str_eq(r->name, "k_ref");
	/* The least precise compared type (Z, a float) sets the defaults. */
	cr_expect_eq(r->rel_tol, 1e-4);
	cr_expect_eq(r->abs_tol, 1e-5);
	struct tune_variant v;
	const char *why;
	cr_assert_eq(tune_job_variant(l.job, 1, &v, &why), 0);
	cr_expect_str_eq(v.build_options, "-Dt=2", "every iterator is defined by default");
	cr_expect(v.args[0].compare && !v.args[1].compare && v.args[2].compare);
	cr_expect_eq(v.local[0], 0, "no local line: the driver chooses");
	release(&l);
}

Test(job, missing_kernel_source_is_located)
{
	struct loaded l;
	load_with(&l, "job_missing.space", 0, NULL, NULL);
	cr_expect_eq(l.rc, 1);
	cr_expect_null(l.job);
	cr_expect(strstr(l.diag, "job_missing.space:4:35: error: cannot read kernel source '"), "%s", l.diag);
	cr_expect(strstr(l.diag, "no_such_file.cl': No such file or directory\n"
			 "    4 |     kernel k from \"job_basic.cl\", \"no_such_file.cl\"\n"
			 "      |                                   ^~~~~~~~~~~~~~~~~\n"), "%s", l.diag);
	release(&l);
}

Test(job, no_tune_section_is_an_error)
{
	struct loaded l;
	load_with(&l, "job_notune.space", 0, NULL, NULL);
	cr_expect_eq(l.rc, 1);
	cr_expect(strstr(l.diag, "error: '") && strstr(l.diag, "job_notune.space' has no tune: section"),
		  "%s", l.diag);
	release(&l);
	load_with(&l, "no_such.space", 0, NULL, NULL);
	cr_expect_eq(l.rc, 1);
	cr_expect(strstr(l.diag, "spacetune: error: cannot read '"), "%s", l.diag);
	release(&l);
}
