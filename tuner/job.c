/*
 * job.c - a tuning job: the .space file's space and its tune: section.
 *
 * Loading runs the front end, binds device queries and --set, reads the
 * kernel sources, enumerates every valid point with the compiled
 * enumerator (tools/jit.c, as `spacec list` does; the reference
 * interpreter if that cannot be built) and stores the points compactly:
 * each parameter keeps its sorted distinct values, each point one index
 * per parameter.  A variant is then the tune section evaluated by the
 * reference interpreter at one point (interp_point_*), derived values
 * recomputed from the iterators.
 *
 * What is fixed for the whole job (buffers, initialisers, the reference,
 * tolerances) is evaluated and checked once at load time, with located
 * errors; what varies (defines, sizes, scalars, local memory, metrics) is
 * evaluated per variant, and a value that cannot be launched makes that
 * one variant unlaunchable rather than failing the job.
 */
#include "tuner/job.h"
#include "tuner/strategy.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cgen.h"
#include "interp.h"
#include "parse.h"
#include "sema.h"
#include "spacert.h"
#include "spacec.h"
#include "optimizer/kopt.h"
#include "tuner/strategy.h"

/* One parameter (iterator): its distinct values, sorted once enumerated. */
struct param {
	const char *name;
	int n, cap;
	struct value *vals;
	double *num;           /* numeric value of each (strings: their index) */
	char **text;           /* JSON text of each, for tune_variant.param_values */
	uint32_t *slots;       /* while enumerating: open addressing on values */
	size_t nslots;
};

struct tune_job {
	char *path, *dir, *name;
	char *src;
	size_t len;
	FILE *diag_out;
	struct spacec_options copts;         /* -O, -f, --jit (lib/spacec.h) */
	struct spacec_unit u;                /* the front end's diag, module and program */
	const struct ast_tune *tune;
	struct sprt_bindings sb;             /* for the compiled enumerator */
	struct interp_binding *bindings;     /* the same, for the interpreter */
	int nbindings;
	struct interp_point *at;
	/* The space. */
	int nparams;
	struct param *params;
	const char **param_names;
	uint32_t *points;                    /* npoints x nparams value indices */
	size_t npoints, points_cap;
	bool oom;
	size_t *lookup, lookup_cap;          /* find_point: open addressing, index + 1 */
	/* A space too big to list (more than TUNE_JOB_LIST_MAX points): its
	 * points by index through the compiled enumerator's random access
	 * (runtime/access.c), never stored; `points` stays empty. */
	struct sprt_access *access;
	struct sprt_ctx *actx;
	struct jit_handle ah;
	size_t cached;                       /* the point in `row`, or SIZE_MAX */
	struct value *row;
	sprt_val *srow;
	/* The tune lines, by kind. */
	const struct ast_tune_line *kernel, *options, *global, *local, *reference, *tolerance;
	char *kernel_names;   /* "a" or, for a sequence, "a,b,c" (variant.h) */
	/* Fixed for the job. */
	char *source, *ref_source, *ref_options, *ref_c_path;
	char hash[33];
	struct tune_reference ref;
	int nargs;
	struct tune_arg *args;               /* buffers filled at load; scalars per variant */
	char **arg_paths;                    /* file() initialisers, owned */
	int nmetrics;
	struct tune_metric *metrics;
	/* The current variant. */
	const char **value_texts;
	char *options_buf;
	size_t options_cap;
	char why[256];
	const char *enumerator;
	/* A code of several kernel lines, each with its own sizes and
	 * arguments (variant.h, tune_step); nstages == 0 for one kernel line. */
	int nstages;
	struct job_stage {
		const struct ast_tune_line *global, *local;
	} *stages;
	struct tune_step *steps;
	int *step_args;                      /* every step's argument indices */
	/* The kernel optimizer, when the kernel carries #pragma spacetune lines. */
	struct kopt *kopt;
	char *variant_source;
	uint64_t *arg_counts;
};

/* ---- small helpers --------------------------------------------------------------- */

/* A copy of s[0..n) (xstrdup's length-limited sibling). */
static char *xstrndup(const char *s, size_t n)
{
	char *t = xmalloc(n + 1);
	memcpy(t, s, n);
	t[n] = 0;
	return t;
}

/* A path written in the .space file: relative to the file's folder. */
static char *resolve_path(const struct tune_job *job, const char *path)
{
	if (path[0] == '/' || !strcmp(job->dir, "."))
		return xstrdup(path);
	size_t n = strlen(job->dir), m = strlen(path);
	char *full = xmalloc(n + m + 2);
	memcpy(full, job->dir, n);
	full[n] = '/';
	memcpy(full + n + 1, path, m + 1);
	return full;
}

/* FNV-1a over 128 bits: the job's identity in the results database. */
__extension__ typedef unsigned __int128 u128;

static u128 fnv128(u128 h, const void *p, size_t n)
{
	const u128 prime = ((u128)1 << 88) + 0x13b;
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= prime;
	}
	return h;
}

/* ---- kernel sources ------------------------------------------------------------ */

/* Reads and concatenates a line's source files; NULL after a located error. */
static char *read_sources(struct tune_job *job, const struct ast_tune_line *l)
{
	size_t len = 0;
	char *all = xstrdup("");
	for (int i = 0; i < l->nwords; i++) {
		char *path = resolve_path(job, l->words[i].text);
		size_t n;
		char *text = parse_read_file(path, &n);
		if (!text) {
			diag_error(&job->u.diag, l->words[i].loc, "cannot read kernel source '%s': %s", path,
				   strerror(errno));
			free(path);
			free(all);
			return NULL;
		}
		free(path);
		/* Files are joined on a line boundary, so a directive never
		 * continues the previous file's last line. */
		bool newline = n > 0 && text[n - 1] != '\n';
		all = xrealloc(all, len + n + 2);
		memcpy(all + len, text, n);
		len += n;
		if (newline)
			all[len++] = '\n';
		all[len] = 0;
		free(text);
	}
	return all;
}

/* ---- bindings: device queries, then --set ---------------------------------------- */

/* Tells the caller which source the kernel line names, before the device
 * is queried: the backend, and so the device, may depend on it. */
static int announce_kernel(struct tune_job *job, const struct tune_job_opts *o)
{
	for (int i = 0; o->kernel_file && i < job->tune->n; i++) {
		const struct ast_tune_line *l = job->tune->lines[i];
		if (l->kind != AST_T_KERNEL || l->nwords == 0)
			continue;
		char *path = resolve_path(job, l->words[0].text);
		int rc = o->kernel_file(o->query_user, path);
		free(path);
		return rc ? 1 : 0;
	}
	return 0;
}

static int bind_all(struct tune_job *job, const struct tune_job_opts *o)
{
	const struct sema_program *P = &job->u.prog;
	for (int i = 0; i < P->nbindable; i++) {
		const struct sema_def *d = P->bindable[i];
		int64_t v;
		if (!d->query || !o->query)
			continue;
		int rc = o->query(o->query_user, d->query, &v);
		if (rc < 0) {
			diag_error(&job->u.diag, d->query_loc, "cannot read the device's '%s'", d->query);
			return 1;
		}
		if (rc == 0 && sprt_bindings_set(&job->sb, d->name, sprt_int(v), NULL))
			return -1;
	}
	for (int i = 0; i < o->nsets; i++) {
		char why[256];
		int rc = sprt_bindings_set_arg(&job->sb, o->sets[i], why, sizeof why);
		if (rc == SPRT_EVALUE)
			diag_plain(&job->u.diag, DIAG_ERROR, "%s", why);
		if (rc)
			return rc == SPRT_EVALUE ? 1 : -1;
	}
	/* A value of the wrong type is refused here as by spacec and an
	 * enumerator, rather than making every point a domain error. */
	if (spacec_check_bindings(&job->u, &job->sb, o->sets, o->nsets, NULL, false))
		return 1;
	/* The interpreter reads the same bindings, so both paths agree. */
	job->nbindings = job->sb.n;
	job->bindings = spacec_interp_bindings(&job->u, &job->sb);
	return job->bindings ? 0 : -1;
}

/* ---- enumeration into memory ------------------------------------------------------ */

static uint64_t value_hash(struct value v)
{
	uint64_t bits = (uint64_t)v.kind * 0x9e3779b97f4a7c15ull;
	switch (v.kind) {
	case V_FLOAT:
		memcpy(&bits, &v.u.f, sizeof(bits));
		break;
	case V_STR:
		bits ^= (uint64_t)(uintptr_t)v.u.s;
		break;
	default:
		bits ^= (uint64_t)v.u.i;
		break;
	}
	bits ^= bits >> 31;
	bits *= 0xbf58476d1ce4e5b9ull;
	return bits ^ (bits >> 29);
}

static bool value_same(struct value a, struct value b)
{
	if (a.kind != b.kind)
		return false;
	if (a.kind == V_FLOAT)
		return !memcmp(&a.u.f, &b.u.f, sizeof(double));
	if (a.kind == V_STR)
		return a.u.s == b.u.s;
	return a.u.i == b.u.i;
}

/* The index of `v` among the parameter's values, adding it if new. */
static int64_t param_index(struct param *p, struct value v)
{
	if ((size_t)(p->n + 1) * 2 > p->nslots) {
		size_t ns = p->nslots ? p->nslots * 2 : 64;
		uint32_t *slots = calloc(ns, sizeof(*slots));
		if (!slots)
			return -1;
		for (int i = 0; i < p->n; i++) {
			size_t j = value_hash(p->vals[i]) & (ns - 1);
			while (slots[j])
				j = (j + 1) & (ns - 1);
			slots[j] = (uint32_t)i + 1;
		}
		free(p->slots);
		p->slots = slots;
		p->nslots = ns;
	}
	size_t j = value_hash(v) & (p->nslots - 1);
	while (p->slots[j]) {
		if (value_same(p->vals[p->slots[j] - 1], v))
			return p->slots[j] - 1;
		j = (j + 1) & (p->nslots - 1);
	}
	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		struct value *vals = realloc(p->vals, sizeof(*vals) * (size_t)cap);
		if (!vals)
			return -1;
		p->vals = vals;
		p->cap = cap;
	}
	p->vals[p->n] = v;
	p->slots[j] = (uint32_t)p->n + 1;
	return p->n++;
}

/* Stores one valid point; nonzero stops the enumeration (out of memory). */
static int add_point(struct tune_job *job, const struct value *vals)
{
	if (job->npoints == job->points_cap) {
		size_t cap = job->points_cap ? job->points_cap * 2 : 1024;
		uint32_t *pts = realloc(job->points, sizeof(*pts) * cap * (size_t)(job->nparams ? job->nparams : 1));
		if (!pts) {
			job->oom = true;
			return 1;
		}
		job->points = pts;
		job->points_cap = cap;
	}
	uint32_t *row = job->points + job->npoints * (size_t)job->nparams;
	for (int p = 0; p < job->nparams; p++) {
		/* Only scalars reach a point; a list would be kept by reference. */
		if (vals[p].kind == V_LIST || vals[p].kind == V_RANGE) {
			job->oom = true;
			return 1;
		}
		int64_t k = param_index(&job->params[p], vals[p]);
		if (k < 0) {
			job->oom = true;
			return 1;
		}
		row[p] = (uint32_t)k;
	}
	job->npoints++;
	return 0;
}

static int interp_point_cb(void *ctx, const struct value *iters, int n)
{
	(void)n;
	return add_point(ctx, iters);
}

struct compiled_sink {
	struct tune_job *job;
	struct sprt_ctx *ctx;
	struct value *row;
};

/* A point of the compiled enumerator as the interpreter's values. */
static void from_compiled(struct tune_job *job, struct sprt_ctx *ctx, const sprt_val *point, int n,
			  struct value *row)
{
	for (int i = 0; i < n; i++) {
		const sprt_val *v = &point[i];
		switch (v->kind) {
		case SPRT_INT:
			row[i] = value_int(v->u.i);
			break;
		case SPRT_BOOL:
			row[i] = value_bool(v->u.i != 0);
			break;
		case SPRT_FLOAT:
			row[i] = value_float(v->u.f);
			break;
		case SPRT_STR: {
			const char *t = sprt_str_text(ctx, v->u.i);
			row[i] = value_str(ast_intern(&job->u.mod, t, strlen(t)));
			break;
		}
		default:
			row[i].kind = V_NONE; /* None, or an iterable: not a tuning value */
			break;
		}
	}
}

static int compiled_point_cb(void *user, const sprt_val *point, int n)
{
	struct compiled_sink *s = user;
	from_compiled(s->job, s->ctx, point, n, s->row);
	return add_point(s->job, s->row);
}

/*
 * Spaces up to this many points are listed and kept (a 32-bit value index
 * per parameter and point, and a hash index): the fast path.  Beyond it
 * (ICPP'25's gaussian: 1.49e8 points, about 13 GB listed) the job keeps
 * the enumerator and reaches points by index instead.  gemm_beast (1.2e6)
 * stays listed.
 */
#define TUNE_JOB_LIST_MAX ((size_t)1 << 22)
/* Points drawn to find each parameter's values in a space not listed. */
#define TUNE_JOB_VALUE_SAMPLES 4096

/* The point at index i of a space not listed, in job->row (cached). */
static int access_row(struct tune_job *job, size_t i)
{
	if (job->cached == i)
		return 0;
	if (sprt_access_unrank(job->access, i, job->srow))
		return -1;
	from_compiled(job, job->actx, job->srow, job->nparams, job->row);
	job->cached = i;
	return 0;
}

/*
 * Takes each parameter's values from a uniform sample of the points
 * reached by index (job->access): the grid the strategies move on.  A
 * value no sampled point holds is still reached by a random draw, but not
 * by a single-parameter move (TUNING.md).
 */
static int sample_values(struct tune_job *job, size_t n)
{
	job->row = xcalloc((size_t)job->nparams + 1, sizeof(struct value));
	job->srow = xcalloc((size_t)job->nparams + 1, sizeof(sprt_val));
	job->cached = SIZE_MAX;
	size_t k = n < TUNE_JOB_VALUE_SAMPLES ? n : TUNE_JOB_VALUE_SAMPLES;
	uint64_t *idx = xcalloc(k + 1, sizeof(*idx));
	sprt_sample_indices(0, n, k, false, idx);
	for (size_t j = 0; j < k; j++) {
		if (access_row(job, idx[j])) {
			free(idx);
			return -1;
		}
		for (int p = 0; p < job->nparams; p++)
			if (job->row[p].kind == V_LIST || job->row[p].kind == V_RANGE ||
			    param_index(&job->params[p], job->row[p]) < 0) {
				free(idx);
				return -1;
			}
	}
	free(idx);
	return 0;
}

/*
 * The enumerator for the job's bindings: specialized to them (their values
 * folded in as constants, lib/spacec.c), so branches on settings and
 * device parameters cost nothing and the planner tightens the loops as
 * `spacec count` does (gemm_beast's H100 count: 6.5 s unspecialized, 1.0 s
 * specialized).  The C text holds the values, so the cc cache keys on them,
 * and the code refuses any other binding.  The points are read by the
 * program as written's parameters (from_compiled): specialization keeps
 * the iterators and their declaration order, which is checked; where it
 * did not, the plain program is loaded instead.
 */
static int load_enumerator(struct tune_job *job, struct jit_handle *h)
{
	/* Constructs the compiled path rejects are not the user's errors
	 * here (quiet): the interpreter enumerates them instead.  --jit=auto
	 * as a listing (`spacec list`'s rule): tcc, unless a trial count
	 * predicts a listing long enough to repay cc's build (gemm_beast:
	 * minutes with tcc, seconds with cc).  Not cc always: the program is
	 * specialized to each problem's settings, so a batch paid cc's 2-4 s
	 * build on every problem (2048^3 SGEMM's gemm.space lists in well
	 * under 0.1 s with tcc). */
	for (int specialize = 1; specialize >= 0; specialize--) {
		struct spacec_build build = { .bindings = &job->sb, .specialize = specialize, .listing = true,
					      .quiet = true };
		struct spacec_enumerator e;
		char *err = NULL;
		int rc = spacec_load(&job->u, &build, &e, &err);
		free(err);
		if (rc)
			return -1;
		bool same = e.space->nparams == job->nparams;
		for (int p = 0; same && p < job->nparams; p++)
			same = !strcmp(e.space->params[p].name, job->param_names[p]);
		if (same) {
			*h = e.h;
			return 0;
		}
		spacec_enumerator_release(&e);
	}
	return -1;
}

/* The compiled enumerator; -1 if it cannot be built (the caller falls back). */
static int enumerate_compiled(struct tune_job *job)
{
	struct jit_handle h;
	if (load_enumerator(job, &h))
		return -1;
	/* On the heap from the start: a space too big to keep is reached
	 * by index through this context, and the count below is its first
	 * walk, not repeated. */
	struct sprt_ctx *ctx = xmalloc(sizeof(*ctx));
	if (sprt_ctx_init(ctx, h.space)) {
		free(ctx);
		jit_unload(&h);
		return -1;
	}
	ctx->nbindings = job->sb.n;
	ctx->bindings = job->sb.v;
	job->enumerator = h.backend;
	/* Counted first (cheap: factorized sub-nests are never listed); a
	 * space too big to keep is reached by index instead. */
	struct sprt_access *acc = NULL;
	uint64_t count = 0;
	if (!sprt_access_open(&acc, ctx) && !sprt_access_size(acc, &count) && count > TUNE_JOB_LIST_MAX) {
		job->ah = h;
		job->actx = ctx; /* the bindings live in job->sb */
		job->access = acc;
		if (sample_values(job, (size_t)count)) {
			job->oom = true;
			return -1;
		}
		job->npoints = 0; /* finish_params renumbers no stored point */
		return 0;
	}
	sprt_access_free(acc);
	struct compiled_sink sink = { job, ctx, xcalloc((size_t)job->nparams + 1, sizeof(struct value)) };
	ctx->emit = compiled_point_cb;
	ctx->emit_user = &sink;
	int rc = h.space->enumerate(ctx);
	sprt_ctx_release(ctx);
	free(ctx);
	jit_unload(&h);
	free(sink.row);
	return rc < 0 ? -1 : 0;
}

static void reset_points(struct tune_job *job)
{
	job->npoints = 0;
	for (int p = 0; p < job->nparams; p++) {
		job->params[p].n = 0;
		free(job->params[p].slots);
		job->params[p].slots = NULL;
		job->params[p].nslots = 0;
	}
}

static int cmp_value(struct value a, struct value b)
{
	bool sa = a.kind == V_STR, sb = b.kind == V_STR;
	if (sa != sb)
		return sa ? 1 : -1; /* numbers before strings */
	if (sa)
		return strcmp(a.u.s, b.u.s);
	double x = a.kind == V_FLOAT ? a.u.f : a.kind == V_NONE ? -INFINITY : (double)a.u.i;
	double y = b.kind == V_FLOAT ? b.u.f : b.kind == V_NONE ? -INFINITY : (double)b.u.i;
	if (x != y)
		return x < y ? -1 : 1;
	return (a.kind > b.kind) - (a.kind < b.kind);
}

static const struct value *sort_base;

static int cmp_index(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return cmp_value(sort_base[a], sort_base[b]);
}

static char *value_json(struct value v)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	if (!f)
		return xstrdup("null");
	value_print(f, v, true);
	fclose(f);
	return s;
}

/* Sorts each parameter's values and renumbers the points to match. */
static void finish_params(struct tune_job *job)
{
	for (int p = 0; p < job->nparams; p++) {
		struct param *pr = &job->params[p];
		uint32_t *order = xcalloc((size_t)pr->n + 1, sizeof(*order));
		uint32_t *rank = xcalloc((size_t)pr->n + 1, sizeof(*rank));
		for (int i = 0; i < pr->n; i++)
			order[i] = (uint32_t)i;
		sort_base = pr->vals;
		qsort(order, (size_t)pr->n, sizeof(*order), cmp_index);
		struct value *sorted = xcalloc((size_t)pr->n + 1, sizeof(*sorted));
		pr->num = xcalloc((size_t)pr->n + 1, sizeof(*pr->num));
		pr->text = xcalloc((size_t)pr->n + 1, sizeof(*pr->text));
		for (int i = 0; i < pr->n; i++) {
			struct value v = pr->vals[order[i]];
			rank[order[i]] = (uint32_t)i;
			sorted[i] = v;
			pr->num[i] = v.kind == V_FLOAT ? v.u.f : v.kind == V_STR ? (double)i :
				     v.kind == V_NONE ? NAN : (double)v.u.i;
			pr->text[i] = value_json(v);
		}
		for (size_t k = 0; k < job->npoints; k++) {
			uint32_t *x = &job->points[k * (size_t)job->nparams + (size_t)p];
			*x = rank[*x];
		}
		free(pr->vals);
		pr->vals = sorted;
		free(order);
		free(rank);
		free(pr->slots);
		pr->slots = NULL;
	}
}

static int enumerate(struct tune_job *job, bool interpret)
{
	const struct sema_program *P = &job->u.prog;
	job->nparams = P->niters;
	job->params = xcalloc((size_t)P->niters + 1, sizeof(*job->params));
	job->param_names = xcalloc((size_t)P->niters + 1, sizeof(*job->param_names));
	for (int p = 0; p < P->niters; p++)
		job->params[p].name = job->param_names[p] = P->iters[p]->name;
	if (interpret || enumerate_compiled(job) || (job->oom && !job->access)) {
		reset_points(job);
		job->oom = false;
		job->enumerator = "interpreter";
		struct interp_options opt = { .nbindings = job->nbindings, .bindings = job->bindings };
		struct interp_result res;
		if (interp_run(P, &opt, interp_point_cb, job, &res, &job->u.diag))
			return 1;
		interp_result_release(&res);
	}
	if (job->oom)
		return -1;
	finish_params(job);
	if (job->access) {
		uint64_t n = 0;
		sprt_access_size(job->access, &n);
		job->npoints = (size_t)n;
	}
	return 0;
}

/* ---- evaluation helpers ------------------------------------------------------------- */

/* Evaluates a fixed expression at load time; located error on failure. */
static int eval_fixed(struct tune_job *job, const struct ast_expr *e, const char *what, struct value *out)
{
	const char *why = NULL;
	if (interp_point_eval(job->at, e, out, &why)) {
		diag_error(&job->u.diag, e->loc, "cannot evaluate %s: %s", what, why);
		return 1;
	}
	return 0;
}

static bool as_int(struct value v, int64_t *out)
{
	if (v.kind == V_INT || v.kind == V_BOOL) {
		*out = v.u.i;
		return true;
	}
	if (v.kind == V_FLOAT && v.u.f == floor(v.u.f) && fabs(v.u.f) < 9.2e18) {
		*out = (int64_t)v.u.f;
		return true;
	}
	return false;
}

static bool as_double(struct value v, double *out)
{
	if (v.kind == V_INT || v.kind == V_BOOL)
		*out = (double)v.u.i;
	else if (v.kind == V_FLOAT)
		*out = v.u.f;
	else
		return false;
	return true;
}

static int fixed_int(struct tune_job *job, const struct ast_expr *e, const char *what, int64_t lo,
		     int64_t *out)
{
	struct value v;
	if (eval_fixed(job, e, what, &v))
		return 1;
	bool ok = as_int(v, out);
	value_unref(v);
	if (!ok || *out < lo) {
		diag_error(&job->u.diag, e->loc, "%s must be an integer of at least %" PRId64, what, lo);
		return 1;
	}
	return 0;
}

static int fixed_double(struct tune_job *job, const struct ast_expr *e, const char *what, double *out)
{
	struct value v;
	if (eval_fixed(job, e, what, &v))
		return 1;
	bool ok = as_double(v, out);
	value_unref(v);
	if (!ok) {
		diag_error(&job->u.diag, e->loc, "%s must be a number", what);
		return 1;
	}
	return 0;
}

static int fixed_string(struct tune_job *job, const struct ast_expr *e, const char *what, char **out)
{
	struct value v;
	if (eval_fixed(job, e, what, &v))
		return 1;
	if (v.kind != V_STR) {
		value_unref(v);
		diag_error(&job->u.diag, e->loc, "%s must be a string", what);
		return 1;
	}
	*out = xstrdup(v.u.s);
	return 0;
}

/* ---- the fixed part: arguments, reference, metrics -------------------------------- */

static bool is_float_type(int t)
{
	return t == TUNE_HALF || t == TUNE_FLOAT || t == TUNE_DOUBLE;
}

static int setup_buffer(struct tune_job *job, const struct ast_tune_line *l, struct tune_arg *a, int k)
{
	a->kind = TUNE_ARG_BUFFER;
	a->name = l->name.text;
	a->access = l->access == AST_ACCESS_IN ? TUNE_IN : l->access == AST_ACCESS_OUT ? TUNE_OUT : TUNE_INOUT;
	int64_t count;
	if (fixed_int(job, l->value, "a buffer size", 1, &count))
		return 1;
	a->count = (uint64_t)count;
	a->init.kind = TUNE_INIT_ZEROS;
	a->init.lo = -1.0;
	a->init.hi = 1.0;
	if (!l->init)
		return 0;
	const struct ast_expr *const *args = (const struct ast_expr *const *)l->init->items + 1;
	int64_t seed;
	switch (sema_tune_init_kind(l->init)) {
	case SEMA_INIT_RANDOM:
		a->init.kind = TUNE_INIT_RANDOM;
		if (fixed_int(job, args[0], "a seed", 0, &seed))
			return 1;
		a->init.seed = (uint64_t)seed;
		if (l->init->nitems == 4) {
			if (fixed_double(job, args[1], "a bound", &a->init.lo) ||
			    fixed_double(job, args[2], "a bound", &a->init.hi))
				return 1;
			if (!(a->init.lo < a->init.hi)) {
				diag_error(&job->u.diag, l->init->loc, "random(): LO must be less than HI");
				return 1;
			}
		}
		return 0;
	case SEMA_INIT_CONST:
		a->init.kind = TUNE_INIT_CONST;
		return fixed_double(job, args[0], "the value", &a->init.value);
	case SEMA_INIT_FILE: {
		char *name;
		a->init.kind = TUNE_INIT_FILE;
		if (fixed_string(job, args[0], "a file name", &name))
			return 1;
		job->arg_paths[k] = resolve_path(job, name);
		free(name);
		a->init.path = job->arg_paths[k];
		FILE *f = fopen(a->init.path, "rb");
		if (!f) {
			diag_error(&job->u.diag, args[0]->loc, "cannot read '%s': %s", a->init.path, strerror(errno));
			return 1;
		}
		fclose(f);
		return 0;
	}
	default:
		return 0;
	}
}

static bool compared(const struct ast_tune *t, const char *name, enum tune_access access)
{
	bool any = false;
	for (int i = 0; i < t->n; i++) {
		const struct ast_tune_line *l = t->lines[i];
		for (int w = 0; l->kind == AST_T_COMPARE && w < l->nwords; w++) {
			any = true;
			if (l->words[w].text == name)
				return true;
		}
	}
	return !any && access != TUNE_IN;
}

/*
 * Default tolerances follow the least precise compared type: what its
 * rounding allows for a short reduction computed in another order.
 * Long reductions (a big GEMM's K) need the file's own `tolerance`.
 */
static void default_tolerance(struct tune_job *job)
{
	double rel = 0, abs = 0;
	for (int i = 0; i < job->nargs; i++) {
		const struct tune_arg *a = &job->args[i];
		if (a->kind != TUNE_ARG_BUFFER || !a->compare)
			continue;
		double r = a->type == TUNE_HALF ? 1e-2 : a->type == TUNE_FLOAT ? 1e-4 :
			   a->type == TUNE_DOUBLE ? 1e-10 : 0;
		double b = a->type == TUNE_HALF ? 1e-3 : a->type == TUNE_FLOAT ? 1e-5 :
			   a->type == TUNE_DOUBLE ? 1e-12 : 0;
		rel = r > rel ? r : rel;
		abs = b > abs ? b : abs;
	}
	job->ref.rel_tol = rel;
	job->ref.abs_tol = abs;
}

static int setup_reference(struct tune_job *job)
{
	const struct ast_tune_line *l = job->reference;
	struct tune_reference *r = &job->ref;
	default_tolerance(job);
	if (job->tolerance) {
		if (job->tolerance->rel && fixed_double(job, job->tolerance->rel, "a tolerance", &r->rel_tol))
			return 1;
		if (job->tolerance->abs && fixed_double(job, job->tolerance->abs, "a tolerance", &r->abs_tol))
			return 1;
	}
	if (!l) {
		r->kind = TUNE_REF_NONE;
		return 0;
	}
	r->name = l->name.text;
	if (l->kind == AST_T_REF_C) {
		r->kind = TUNE_REF_C;
		job->ref_c_path = resolve_path(job, l->words[0].text);
		FILE *f = fopen(job->ref_c_path, "rb");
		if (!f) {
			diag_error(&job->u.diag, l->words[0].loc, "cannot read the C reference '%s': %s",
				   job->ref_c_path, strerror(errno));
			return 1;
		}
		fclose(f);
		r->c_path = job->ref_c_path;
		if (l->nwords > 1)
			diag_warning(&job->u.diag, l->words[1].loc, "tune", "a C reference is one file; '%s' is ignored",
				     l->words[1].text);
		return 0;
	}
	r->kind = TUNE_REF_KERNEL;
	if (!(job->ref_source = read_sources(job, l)))
		return 1;
	r->source = job->ref_source;
	job->ref_options = xstrdup("");
	if (l->value) {
		free(job->ref_options);
		if (fixed_string(job, l->value, "the reference's options", &job->ref_options))
			return 1;
	}
	r->build_options = job->ref_options;
	r->work_dim = l->global->nitems;
	for (int d = 0; d < r->work_dim; d++) {
		int64_t g, lo = 0;
		if (fixed_int(job, l->global->items[d], "a work size", 1, &g) ||
		    (l->local && fixed_int(job, l->local->items[d], "a work size", 1, &lo)))
			return 1;
		r->global[d] = (size_t)g;
		r->local[d] = (size_t)lo;
	}
	return 0;
}

/* `arg in real A[...]` where `real` is a constant or setting holding the
 * type's name (sema allows only names fixed for the run): its value now. */
static int named_type(struct tune_job *job, const struct ast_word *w)
{
	const struct sema_def *d = NULL;
	for (int i = 0; i < job->u.prog.ndefs; i++)
		if (job->u.prog.defs[i]->is_final && !strcmp(job->u.prog.defs[i]->name, w->text))
			d = job->u.prog.defs[i];
	struct value *vals = xcalloc((size_t)job->u.prog.ndefs + 1, sizeof(*vals));
	struct interp_options opt = { .nbindings = job->nbindings, .bindings = job->bindings };
	int type = -1;
	if (d && interp_constants(&job->u.prog, &opt, vals, NULL) == 0 && vals[d->id].kind == V_STR)
		type = sema_tune_type(vals[d->id].u.s);
	if (type < 0)
		diag_error(&job->u.diag, w->loc, "'%s' does not name an argument type here; it must be one of "
			   "\"char\", \"uchar\", ..., \"float\", \"double\"", w->text);
	for (int i = 0; i < job->u.prog.ndefs; i++)
		value_unref(vals[i]);
	free(vals);
	return type;
}

/*
 * A code of several kernel lines (sema checked it): the global, local and
 * arg lines after each kernel line are that kernel's, an `arg NAME` line
 * passes the buffer of that name again, and job->args holds every other
 * arg line once, in order (the C reference's argument list).
 */
static void setup_stages(struct tune_job *job)
{
	const struct ast_tune *t = job->tune;
	job->stages = xcalloc((size_t)job->nstages, sizeof(*job->stages));
	job->steps = xcalloc((size_t)job->nstages, sizeof(*job->steps));
	int nuses = 0;
	for (int i = 0; i < t->n; i++)
		nuses += t->lines[i]->kind == AST_T_ARG_USE;
	job->step_args = xcalloc((size_t)(job->nargs + nuses) + 1, sizeof(*job->step_args));
	int st = 0, k = 0, used = 0;
	job->steps[0].arg_index = job->step_args;
	for (int i = 0; i < t->n; i++) {
		const struct ast_tune_line *l = t->lines[i];
		if (l->kind == AST_T_KERNEL && l != job->kernel) {
			st++;
			job->steps[st].arg_index = job->step_args + used;
		}
		struct job_stage *s = &job->stages[st];
		struct tune_step *step = &job->steps[st];
		if (l->kind == AST_T_GLOBAL)
			s->global = l;
		else if (l->kind == AST_T_LOCAL)
			s->local = l;
		else if (l->kind == AST_T_ARG_SCALAR || l->kind == AST_T_ARG_BUFFER || l->kind == AST_T_ARG_LOCAL)
			job->step_args[used++] = k++, step->nargs++;
		else if (l->kind == AST_T_ARG_USE)
			for (int a = 0; a < k; a++)
				if (job->args[a].kind == TUNE_ARG_BUFFER && job->args[a].name == l->name.text) {
					job->step_args[used++] = a;
					step->nargs++;
					break;
				}
	}
}

static int setup_fixed(struct tune_job *job)
{
	const struct ast_tune *t = job->tune;
	for (int i = 0; i < t->n; i++) {
		const struct ast_tune_line *l = t->lines[i];
		switch (l->kind) {
		case AST_T_KERNEL:
			job->nstages++;
			if (!job->kernel)
				job->kernel = l;
			break;
		case AST_T_OPTIONS: job->options = l; break;
		case AST_T_GLOBAL:
			if (!job->global)
				job->global = l;
			break;
		case AST_T_LOCAL:
			if (job->nstages <= 1)
				job->local = l;
			break;
		case AST_T_REF_KERNEL:
		case AST_T_REF_C: job->reference = l; break;
		case AST_T_TOLERANCE: job->tolerance = l; break;
		case AST_T_ARG_SCALAR:
		case AST_T_ARG_BUFFER:
		case AST_T_ARG_LOCAL: job->nargs++; break;
		case AST_T_METRIC: job->nmetrics++; break;
		default: break;
		}
	}
	job->args = xcalloc((size_t)job->nargs + 1, sizeof(*job->args));
	job->arg_paths = xcalloc((size_t)job->nargs + 1, sizeof(*job->arg_paths));
	job->metrics = xcalloc((size_t)job->nmetrics + 1, sizeof(*job->metrics));
	int k = 0, m = 0;
	for (int i = 0; i < t->n; i++) {
		const struct ast_tune_line *l = t->lines[i];
		if (l->kind == AST_T_METRIC) {
			struct tune_metric *x = &job->metrics[m++];
			x->name = l->name.text;
			x->unit = !l->unit.text ? TUNE_METRIC_OTHER :
				  !strcmp(l->unit.text, "flop") ? TUNE_METRIC_FLOP : TUNE_METRIC_BYTE;
			continue;
		}
		if (l->kind != AST_T_ARG_SCALAR && l->kind != AST_T_ARG_BUFFER && l->kind != AST_T_ARG_LOCAL)
			continue;
		struct tune_arg *a = &job->args[k];
		int type = sema_tune_type(l->type.text);
		if (type < 0 && (type = named_type(job, &l->type)) < 0)
			return 1;
		a->type = (enum tune_type)type;
		a->kind = l->kind == AST_T_ARG_SCALAR ? TUNE_ARG_SCALAR : TUNE_ARG_LOCAL;
		if (l->kind == AST_T_ARG_BUFFER) {
			if (setup_buffer(job, l, a, k))
				return 1;
			a->compare = compared(t, a->name, a->access);
		}
		k++;
	}
	if (job->nstages < 2)
		job->nstages = 0;
	else
		setup_stages(job);
	return setup_reference(job);
}

/* The source hash: sources, options and every binding's value (see job.h). */
static void compute_hash(struct tune_job *job)
{
	u128 h = ((u128)0x6c62272e07bb0142ull << 64) | 0x62b821756295c58dull;
	h = fnv128(h, job->source, strlen(job->source) + 1);
	if (job->options) {
		/* The options as written: they may vary per point. */
		int line = job->options->loc.line;
		const char *p = job->src;
		for (int i = 1; i < line && (p = strchr(p, '\n')); i++)
			p++;
		if (p)
			h = fnv128(h, p, strcspn(p, "\n"));
	}
	if (job->ref_source)
		h = fnv128(h, job->ref_source, strlen(job->ref_source) + 1);
	/* Problem sizes and device limits change what a point computes. */
	struct value *vals = xcalloc((size_t)job->u.prog.ndefs + 1, sizeof(*vals));
	struct interp_options opt = { .nbindings = job->nbindings, .bindings = job->bindings };
	if (interp_constants(&job->u.prog, &opt, vals, NULL) == 0) {
		for (int i = 0; i < job->u.prog.nbindable; i++) {
			const struct sema_def *d = job->u.prog.bindable[i];
			char *text = value_json(vals[d->id]);
			h = fnv128(h, d->name, strlen(d->name) + 1);
			h = fnv128(h, text, strlen(text) + 1);
			free(text);
		}
	}
	for (int i = 0; i < job->u.prog.ndefs; i++)
		value_unref(vals[i]);
	free(vals);
	snprintf(job->hash, sizeof(job->hash), "%016" PRIx64 "%016" PRIx64, (uint64_t)(h >> 64), (uint64_t)h);
}

/* ---- loading -------------------------------------------------------------------------- */

/*
 * The kernel optimizer's parameters join the space here: when the kernel
 * source has `#pragma spacetune` lines, optimizer/kopt.h checks them and
 * writes them as .space statements, which are appended to the file's text
 * before it is parsed again; from then on they are iterators like any
 * other (enumerated, searched, recorded), and tune_job_variant() hands
 * their values back to the optimizer for the per-variant source.
 */
static int optimizer_params(struct tune_job *job, const struct tune_job_opts *o)
{
	const struct ast_tune_line *kernel = NULL;
	for (int i = 0; job->u.mod.tune && i < job->u.mod.tune->n && !kernel; i++)
		if (job->u.mod.tune->lines[i]->kind == AST_T_KERNEL)
			kernel = job->u.mod.tune->lines[i];
	if (!kernel)
		return 0;   /* sema reports it */
	char *text = read_sources(job, kernel);
	if (!text)
		return 1;
	size_t n = strlen(text);
	if (!kopt_has_pragmas(text, n)) {
		free(text);
		return 0;
	}
	/* The optimizer's diagnostics locate lines in one file. */
	if (kernel->nwords > 1) {
		free(text);
		diag_error(&job->u.diag, kernel->words[1].loc,
			   "a kernel with '#pragma spacetune' annotations must come from one source file");
		return 1;
	}
	char *path = resolve_path(job, kernel->words[0].text);
	struct kopt_input in = { .filename = path, .source = text, .len = n, .kernel = kernel->name.text,
				 .diag = job->diag_out };
	int rc = kopt_load(&in, &job->kopt);
	free(path);
	free(text);
	if (rc)
		return 1;
	const char *frag = kopt_space(job->kopt);
	size_t fl = strlen(frag);
	job->src = xrealloc(job->src, job->len + fl + 2);
	if (job->len && job->src[job->len - 1] != '\n')
		job->src[job->len++] = '\n';
	memcpy(job->src + job->len, frag, fl + 1);
	job->len += fl;
	return spacec_parse(&job->u, job->path, job->src, job->len, &job->copts, job->diag_out) ? 1 : 0;
}

static int load(struct tune_job *job, const struct tune_job_opts *o)
{
	job->src = parse_read_file(o->space_path, &job->len);
	if (!job->src) {
		fprintf(job->diag_out, "spacetune: error: cannot read '%s': %s\n", o->space_path, strerror(errno));
		return 1;
	}
	if (o->compiler)
		job->copts = *o->compiler;
	else
		spacec_options_init(&job->copts);
	job->copts.program = "spacetune";
	if (spacec_parse(&job->u, job->path, job->src, job->len, &job->copts, job->diag_out))
		return 1;
	int rc = optimizer_params(job, o);
	if (rc)
		return rc;
	if (spacec_analyze(&job->u))
		return 1;
	job->tune = job->u.mod.tune;
	if (!job->tune) {
		struct srcloc top = { 1, 1, 1, 1 };
		diag_error(&job->u.diag, top, "'%s' has no tune: section; see docs/TUNING.md", o->space_path);
		return 1;
	}
	rc = announce_kernel(job, o);
	if (!rc)
		rc = bind_all(job, o);
	if (rc)
		return rc;
	struct interp_options opt = { .nbindings = job->nbindings, .bindings = job->bindings };
	const char *why = NULL;
	rc = interp_point_open(&job->u.prog, &opt, &job->at, &why, &job->u.diag);
	if (rc < 0)
		return 1;
	if (rc > 0) {
		diag_plain(&job->u.diag, DIAG_ERROR, "'%s' has no valid points (%s)", o->space_path, why);
		return 1;
	}
	if (setup_fixed(job) || !(job->source = read_sources(job, job->kernel)))
		return 1;
	/* A sequence of kernels, of one kernel line or several, travels as
	 * one comma-separated name. */
	size_t len = 1;
	for (int i = 0; i < job->tune->n; i++)
		for (int k = 0; job->tune->lines[i]->kind == AST_T_KERNEL && k < job->tune->lines[i]->nkernels; k++)
			len += strlen(job->tune->lines[i]->kernels[k].text) + 1;
	if (!(job->kernel_names = calloc(len, 1)))
		return -1;
	for (int i = 0; i < job->tune->n; i++)
		for (int k = 0; job->tune->lines[i]->kind == AST_T_KERNEL && k < job->tune->lines[i]->nkernels; k++) {
			if (*job->kernel_names)
				strcat(job->kernel_names, ",");
			strcat(job->kernel_names, job->tune->lines[i]->kernels[k].text);
		}
	rc = enumerate(job, o->interpret);
	if (rc)
		return rc;
	if (job->npoints == 0) {
		diag_plain(&job->u.diag, DIAG_ERROR, "'%s' has no valid points", o->space_path);
		return 1;
	}
	compute_hash(job);
	job->value_texts = xcalloc((size_t)job->nparams + 1, sizeof(*job->value_texts));
	return 0;
}

int tune_job_load(const struct tune_job_opts *o, struct tune_job **out)
{
	struct tune_job *job = xcalloc(1, sizeof(*job));
	*out = NULL;
	job->diag_out = o->diag ? o->diag : stderr;
	job->path = xstrdup(o->space_path);
	const char *slash = strrchr(o->space_path, '/');
	job->dir = !slash ? xstrdup(".") : slash == o->space_path ? xstrdup("/")
		   : xstrndup(o->space_path, (size_t)(slash - o->space_path));
	const char *base = slash ? slash + 1 : o->space_path;
	size_t stem = strlen(base);
	if (stem > 6 && !strcmp(base + stem - 6, ".space"))
		stem -= 6;
	job->name = xstrndup(base, stem);
	int rc = load(job, o);
	if (rc) {
		tune_job_free(job);
		return rc;
	}
	*out = job;
	return 0;
}

void tune_job_free(struct tune_job *job)
{
	if (!job)
		return;
	interp_point_close(job->at);
	kopt_free(job->kopt);
	free(job->variant_source);
	free(job->arg_counts);
	free(job->kernel_names);
	free(job->stages);
	free(job->steps);
	free(job->step_args);
	for (int p = 0; p < job->nparams; p++) {
		struct param *pr = &job->params[p];
		for (int i = 0; pr->text && i < pr->n; i++)
			free(pr->text[i]);
		free(pr->text);
		free(pr->num);
		free(pr->vals);
		free(pr->slots);
	}
	free(job->params);
	free(job->param_names);
	free(job->points);
	if (job->actx) {
		sprt_access_free(job->access);
		sprt_ctx_release(job->actx);
		free(job->actx);
		jit_unload(&job->ah);
		free(job->row);
		free(job->srow);
	}
	free(job->lookup);
	for (int i = 0; i < job->nargs && job->arg_paths; i++)
		free(job->arg_paths[i]);
	free(job->arg_paths);
	free(job->args);
	free(job->metrics);
	free(job->bindings);
	sprt_bindings_release(&job->sb);
	free(job->source);
	free(job->ref_source);
	free(job->ref_options);
	free(job->ref_c_path);
	free(job->value_texts);
	free(job->options_buf);
	spacec_unit_release(&job->u);
	free(job->src);
	free(job->path);
	free(job->dir);
	free(job->name);
	free(job);
}

/* ---- the space ----------------------------------------------------------------------- */

size_t tune_job_npoints(const struct tune_job *job)
{
	return job->npoints;
}

int tune_job_nparams(const struct tune_job *job)
{
	return job->nparams;
}

const char *tune_job_param_name(const struct tune_job *job, int p)
{
	return p >= 0 && p < job->nparams ? job->params[p].name : NULL;
}

/* A value's number as finish_params gives it (a string: its index among
 * the parameter's sorted values, NAN where none of them). */
static double value_number(const struct param *pr, struct value v)
{
	if (v.kind == V_FLOAT)
		return v.u.f;
	if (v.kind == V_NONE)
		return NAN;
	if (v.kind != V_STR)
		return (double)v.u.i;
	for (int k = 0; k < pr->n; k++)
		if (value_same(pr->vals[k], v))
			return (double)k;
	return NAN;
}

int tune_job_stages(const struct tune_job *job, struct tune_stage **out)
{
	*out = NULL;
	int n = job->kopt ? kopt_npragmas(job->kopt) : 0;
	if (n <= 0)
		return 0;
	/* the stages, then every stage's parameter indices, in one block */
	size_t nidx = 0;
	for (int i = 0; i < n; i++)
		nidx += (size_t)(kopt_pragma_nparams(job->kopt, i) > 0 ? kopt_pragma_nparams(job->kopt, i) : 0);
	struct tune_stage *st = calloc(1, (size_t)n * sizeof *st + nidx * sizeof(int));
	if (!st)
		return -1;
	int *idx = (int *)(st + n);
	for (int i = 0; i < n; i++) {
		st[i].params = idx;
		for (int k = 0; k < kopt_pragma_nparams(job->kopt, i); k++)
			for (int p = 0; p < job->nparams; p++)
				if (strcmp(job->params[p].name, kopt_pragma_param(job->kopt, i, k)) == 0)
					idx[st[i].nparams++] = p;
		idx += st[i].nparams;
		double tol = kopt_pragma_tolerance(job->kopt, i);
		int number = kopt_pragma_number(job->kopt, i);
		st[i].filters = tol >= 0 || number > 0;
		st[i].tolerance = tol >= 0 ? tol : -1;
		st[i].number = number > 0 ? (size_t)number : 0;
	}
	*out = st;
	return n;
}

double tune_job_point_value(const struct tune_job *job, size_t i, int p)
{
	if (job->access) {
		struct tune_job *j = (struct tune_job *)job; /* the row is a cache */
		return access_row(j, i) ? NAN : value_number(&job->params[p], job->row[p]);
	}
	return job->params[p].num[job->points[i * (size_t)job->nparams + (size_t)p]];
}

int tune_job_param_values(const struct tune_job *job, int p, const double **values)
{
	*values = job->params[p].num;
	return job->params[p].n;
}

static uint64_t row_hash(const uint32_t *row, int n)
{
	uint64_t h = 1469598103934665603ull;
	for (int p = 0; p < n; p++) {
		h ^= row[p];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 32);
}

/* find_point on a space not listed: the values as the enumerator's, ranked. */
static long access_find(struct tune_job *job, const uint32_t *row)
{
	for (int p = 0; p < job->nparams; p++) {
		struct value v = job->params[p].vals[row[p]];
		sprt_val *x = &job->srow[p];
		switch (v.kind) {
		case V_INT: *x = sprt_int(v.u.i); break;
		case V_BOOL: *x = sprt_bool(v.u.i != 0); break;
		case V_FLOAT: *x = sprt_float(v.u.f); break;
		case V_STR: {
			/* the id of the text in the enumerator's tables */
			const struct sprt_space *sp = job->actx->space;
			int64_t total = sp->strings.n + job->actx->nextra_strings, id = -1;
			for (int64_t k = 0; k < total && id < 0; k++)
				if (!strcmp(sprt_str_text(job->actx, k), v.u.s))
					id = k;
			if (id < 0)
				return -1;
			*x = sprt_str(id);
			break;
		}
		default: return -1;
		}
	}
	uint64_t k = 0;
	bool found = false;
	job->cached = SIZE_MAX; /* srow was overwritten */
	if (sprt_access_rank(job->access, job->srow, &k, &found) || !found)
		return -1;
	return (long)k;
}

long tune_job_find_point(const struct tune_job *job, const double *values)
{
	struct tune_job *j = (struct tune_job *)job; /* the index is a cache */
	int np = job->nparams;
	if (!j->lookup && !job->access) {
		size_t cap = 16;
		while (cap < job->npoints * 2)
			cap *= 2;
		j->lookup = xcalloc(cap, sizeof(*j->lookup));
		j->lookup_cap = cap;
		for (size_t i = 0; i < job->npoints; i++) {
			size_t s = row_hash(job->points + i * (size_t)np, np) & (cap - 1);
			while (j->lookup[s])
				s = (s + 1) & (cap - 1);
			j->lookup[s] = i + 1;
		}
	}
	uint32_t *row = xcalloc((size_t)np + 1, sizeof(*row));
	for (int p = 0; p < np; p++) {
		/* The values are sorted by their numbers: binary search. */
		const struct param *pr = &job->params[p];
		int lo = 0, hi = pr->n - 1, found = -1;
		while (lo <= hi) {
			int mid = lo + (hi - lo) / 2;
			if (pr->num[mid] == values[p]) {
				found = mid;
				break;
			}
			if (pr->num[mid] < values[p])
				lo = mid + 1;
			else
				hi = mid - 1;
		}
		if (found < 0) {
			free(row);
			return -1;
		}
		row[p] = (uint32_t)found;
	}
	if (job->access) {
		long r = access_find(j, row);
		free(row);
		return r;
	}
	long result = -1;
	size_t s = row_hash(row, np) & (j->lookup_cap - 1);
	for (; j->lookup[s]; s = (s + 1) & (j->lookup_cap - 1)) {
		size_t i = j->lookup[s] - 1;
		if (!memcmp(job->points + i * (size_t)np, row, sizeof(*row) * (size_t)np)) {
			result = (long)i;
			break;
		}
	}
	free(row);
	return result;
}

static double space_value(void *user, size_t i, int p)
{
	return tune_job_point_value(user, i, p);
}

static int space_values(void *user, int p, const double **values)
{
	return tune_job_param_values(user, p, values);
}

static long space_find(void *user, const double *values)
{
	return tune_job_find_point(user, values);
}

void tune_job_space(struct tune_job *job, struct tune_space *out)
{
	*out = (struct tune_space){ tune_job_npoints(job), job->nparams, job, space_value, space_values,
				    space_find };
}

const char *tune_job_name(const struct tune_job *job)
{
	return job->name;
}

const char *tune_job_kernel_name(const struct tune_job *job)
{
	return job->kernel_names;
}

const char *tune_job_source_hash(const struct tune_job *job)
{
	return job->hash;
}

const struct tune_reference *tune_job_reference(const struct tune_job *job)
{
	return &job->ref;
}

const char *tune_job_enumerator(const struct tune_job *job)
{
	return job->enumerator;
}

/* ---- one variant ------------------------------------------------------------------------ */

static int unlaunchable(struct tune_job *job, const char **why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int unlaunchable(struct tune_job *job, const char **why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(job->why, sizeof(job->why), fmt, ap);
	va_end(ap);
	*why = job->why;
	return 1;
}

/* Evaluates one per-point expression of line `l`; 1 with *why on failure. */
static int eval_at(struct tune_job *job, const struct ast_tune_line *l, const struct ast_expr *e,
		   struct value *out, const char **why)
{
	const char *err = NULL;
	if (interp_point_eval(job->at, e, out, &err))
		return unlaunchable(job, why, "line %d: '%s' cannot be evaluated here: %s", l->loc.line,
				    ast_tune_kind_name(l->kind), err);
	return 0;
}

static void options_add(struct tune_job *job, size_t *len, const char *text)
{
	size_t n = strlen(text);
	if (*len + n + 2 > job->options_cap) {
		job->options_cap = (*len + n + 2) * 2;
		job->options_buf = xrealloc(job->options_buf, job->options_cap);
	}
	memcpy(job->options_buf + *len, text, n + 1);
	*len += n;
}

/*
 * -DNAME=VALUE: ints in decimal, floats as Python's repr (shortest text
 * that reads back), bools 0/1, strings unquoted (`define REAL = "float"`
 * gives -DREAL=float).  The options string is split on blanks by OpenCL,
 * so a string with a blank cannot be one define.
 */
static int add_define(struct tune_job *job, size_t *len, const char *name, struct value v,
		      const char **why)
{
	char num[VALUE_FLOAT_BUF];
	const char *text = num;
	switch (v.kind) {
	case V_INT:
		snprintf(num, sizeof(num), "%" PRId64, v.u.i);
		break;
	case V_BOOL:
		snprintf(num, sizeof(num), "%d", v.u.i != 0);
		break;
	case V_FLOAT:
		if (!isfinite(v.u.f))
			return unlaunchable(job, why, "define '%s' is not finite", name);
		value_float_repr(num, v.u.f);
		break;
	case V_STR:
		text = v.u.s;
		if (strpbrk(text, " \t\n\r\"'\\"))
			return unlaunchable(job, why, "define '%s' has a blank or a quote in its value", name);
		break;
	default:
		return unlaunchable(job, why, "define '%s' has no scalar value here", name);
	}
	options_add(job, len, "-D");
	options_add(job, len, name);
	options_add(job, len, "=");
	options_add(job, len, text);
	options_add(job, len, " ");
	return 0;
}

static int build_options(struct tune_job *job, const char **why)
{
	size_t len = 0;
	options_add(job, &len, "");
	const struct ast_tune *t = job->tune;
	const struct sema_program *P = &job->u.prog;
	bool named = false;
	for (int i = 0; i < t->n; i++)
		named |= t->lines[i]->kind == AST_T_DEFINE_NAMES;
	/* Without a `define a, b` line, every iterator is a define. */
	for (int p = 0; !named && p < P->niters; p++) {
		struct ast_expr e = { .kind = AST_NAME, .name = P->iters[p]->name, .ref = P->iters[p], .local = -1 };
		struct value v;
		const char *err = NULL;
		if (interp_point_eval(job->at, &e, &v, &err))
			return unlaunchable(job, why, "iterator '%s' has no value: %s", e.name, err);
		int rc = add_define(job, &len, e.name, v, why);
		value_unref(v);
		if (rc)
			return rc;
	}
	for (int i = 0; i < t->n; i++) {
		const struct ast_tune_line *l = t->lines[i];
		for (int w = 0; l->kind == AST_T_DEFINE_NAMES && w < l->nwords; w++) {
			struct sema_def *d = sema_lookup(P, l->words[w].text);
			struct ast_expr e = { .kind = AST_NAME, .loc = l->words[w].loc, .name = d->name, .ref = d,
					      .local = -1 };
			struct value v;
			if (eval_at(job, l, &e, &v, why))
				return 1;
			int rc = add_define(job, &len, d->name, v, why);
			value_unref(v);
			if (rc)
				return rc;
		}
		if (l->kind == AST_T_DEFINE) {
			struct value v;
			if (eval_at(job, l, l->value, &v, why))
				return 1;
			int rc = add_define(job, &len, l->name.text, v, why);
			value_unref(v);
			if (rc)
				return rc;
		}
	}
	if (job->options) {
		struct value v;
		if (eval_at(job, job->options, job->options->value, &v, why))
			return 1;
		if (v.kind != V_STR) {
			value_unref(v);
			return unlaunchable(job, why, "the options are not a string here");
		}
		options_add(job, &len, v.u.s);
	}
	while (len > 0 && job->options_buf[len - 1] == ' ')
		job->options_buf[--len] = 0;
	return 0;
}

/* A positive size from a per-point expression. */
static int size_at(struct tune_job *job, const struct ast_tune_line *l, const struct ast_expr *e,
		   const char *what, int64_t *out, const char **why)
{
	struct value v;
	if (eval_at(job, l, e, &v, why))
		return 1;
	bool ok = as_int(v, out);
	value_unref(v);
	if (!ok)
		return unlaunchable(job, why, "%s is not an integer", what);
	if (*out <= 0)
		return unlaunchable(job, why, "%s is %" PRId64 ", not positive", what, *out);
	return 0;
}

/* The sizes of one global line and its local line (or none) at this point. */
static int sizes_at(struct tune_job *job, const struct ast_tune_line *gl, const struct ast_tune_line *ll,
		    int *work_dim, size_t *global, size_t *local, const char **why)
{
	const struct ast_expr *g = gl->global;
	const struct ast_expr *lo = ll ? ll->local : NULL;
	*work_dim = g->nitems;
	for (int d = 0; d < 3; d++)
		global[d] = local[d] = 0;
	for (int d = 0; d < g->nitems; d++) {
		int64_t gs, ls = 0;
		char what[48];
		snprintf(what, sizeof(what), "global size %d", d);
		if (size_at(job, gl, g->items[d], what, &gs, why))
			return 1;
		global[d] = (size_t)gs;
		if (!lo)
			continue;
		snprintf(what, sizeof(what), "local size %d", d);
		if (size_at(job, ll, lo->items[d], what, &ls, why))
			return 1;
		if (gs % ls)
			return unlaunchable(job, why, "global size %" PRId64 " is not a multiple of local size %" PRId64
					    " in dimension %d", gs, ls, d);
		local[d] = (size_t)ls;
	}
	return 0;
}

static int geometry(struct tune_job *job, struct tune_variant *v, const char **why)
{
	for (int s = 0; s < job->nstages; s++) {
		struct tune_step *st = &job->steps[s];
		if (sizes_at(job, job->stages[s].global, job->stages[s].local, &st->work_dim, st->global, st->local,
			     why))
			return 1;
	}
	return sizes_at(job, job->global, job->local, &v->work_dim, v->global, v->local, why);
}

static int scalar_at(struct tune_job *job, const struct ast_tune_line *l, struct tune_arg *a, const char **why)
{
	struct value v;
	if (eval_at(job, l, l->value, &v, why))
		return 1;
	bool ok = is_float_type(a->type) ? as_double(v, &a->f) : as_int(v, &a->i);
	value_unref(v);
	if (!ok)
		return unlaunchable(job, why, "line %d: the %s argument has no %s value here", l->loc.line,
				    l->type.text, is_float_type(a->type) ? "numeric" : "integer");
	if (is_float_type(a->type)) {
		a->i = (int64_t)0;
		return 0;
	}
	/* Integer arguments must fit their OpenCL type. */
	static const int64_t lo[] = { INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0, INT64_MIN, 0 };
	static const int64_t hi[] = { INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX, INT32_MAX, UINT32_MAX,
				      INT64_MAX, INT64_MAX };
	if (a->type <= TUNE_ULONG && (a->i < lo[a->type] || a->i > hi[a->type]))
		return unlaunchable(job, why, "line %d: %" PRId64 " does not fit in a %s", l->loc.line, a->i,
				    l->type.text);
	a->f = (double)a->i;
	return 0;
}

static int arguments(struct tune_job *job, const char **why)
{
	int k = 0, m = 0;
	const struct ast_tune *t = job->tune;
	for (int i = 0; i < t->n; i++) {
		const struct ast_tune_line *l = t->lines[i];
		if (l->kind == AST_T_METRIC) {
			struct value v;
			if (eval_at(job, l, l->value, &v, why))
				return 1;
			bool ok = as_double(v, &job->metrics[m++].per_run);
			value_unref(v);
			if (!ok)
				return unlaunchable(job, why, "metric '%s' is not a number here", l->name.text);
			continue;
		}
		if (l->kind == AST_T_ARG_BUFFER) {
			k++;
			continue;
		}
		if (l->kind != AST_T_ARG_SCALAR && l->kind != AST_T_ARG_LOCAL)
			continue;
		struct tune_arg *a = &job->args[k++];
		if (l->kind == AST_T_ARG_SCALAR) {
			if (scalar_at(job, l, a, why))
				return 1;
			continue;
		}
		int64_t count;
		if (size_at(job, l, l->value, "a local memory size", &count, why))
			return 1;
		a->count = (uint64_t)count;
	}
	return 0;
}

/* The kernel optimizer's source and geometry for this point (see optimizer_params). */
static int optimize(struct tune_job *job, struct tune_variant *v, const char **why)
{
	if (!job->arg_counts) {
		job->arg_counts = xcalloc((size_t)job->nargs + 1, sizeof(*job->arg_counts));
		for (int a = 0; a < job->nargs; a++)
			if (job->args[a].kind == TUNE_ARG_BUFFER)
				job->arg_counts[a] = job->args[a].count;
	}
	struct kopt_variant kv = { .nparams = job->nparams, .names = job->param_names,
				   .values = job->value_texts, .work_dim = v->work_dim,
				   .nargs = job->nargs, .arg_counts = job->arg_counts };
	memcpy(kv.global, v->global, sizeof(kv.global));
	memcpy(kv.local, v->local, sizeof(kv.local));
	free(job->variant_source);
	job->variant_source = NULL;
	if (kopt_apply(job->kopt, &kv, &job->variant_source, job->why, sizeof(job->why))) {
		*why = job->why;
		return 1;
	}
	v->source = job->variant_source;
	v->work_dim = kv.work_dim;
	memcpy(v->global, kv.global, sizeof(v->global));
	memcpy(v->local, kv.local, sizeof(v->local));
	/* kernel-level annotations are the first kernel's */
	if (job->nstages) {
		job->steps[0].work_dim = kv.work_dim;
		memcpy(job->steps[0].global, kv.global, sizeof(kv.global));
		memcpy(job->steps[0].local, kv.local, sizeof(kv.local));
	}
	return 0;
}

int tune_job_variant(struct tune_job *job, size_t i, struct tune_variant *v, const char **why)
{
	memset(v, 0, sizeof(*v));
	*why = NULL;
	if (i >= job->npoints)
		return unlaunchable(job, why, "no point %zu (the space has %zu)", i, job->npoints);
	int np = job->nparams;
	struct value *iters = xcalloc((size_t)np + 1, sizeof(*iters));
	if (job->access) {
		if (access_row(job, i)) {
			free(iters);
			return unlaunchable(job, why, "point %zu cannot be enumerated", i);
		}
		for (int p = 0; p < np; p++) {
			iters[p] = job->row[p];
			/* interned: a variant's texts outlive the next variant */
			char *t = value_json(iters[p]);
			job->value_texts[p] = ast_intern(&job->u.mod, t, strlen(t));
			free(t);
		}
	} else {
		const uint32_t *row = job->points + i * (size_t)np;
		for (int p = 0; p < np; p++) {
			iters[p] = job->params[p].vals[row[p]];
			job->value_texts[p] = job->params[p].text[row[p]];
		}
	}
	const char *err = NULL;
	int rc = interp_point_set(job->at, iters, &err);
	free(iters);
	if (rc)
		return unlaunchable(job, why, "a derived value cannot be computed at this point: %s", err);
	v->point_index = i;
	v->nparams = np;
	v->param_names = job->param_names;
	v->param_values = job->value_texts;
	v->source = job->source;
	v->source_hash = job->hash;
	v->kernel_name = job->kernel_names;
	if (build_options(job, why) || geometry(job, v, why) || arguments(job, why))
		return 1;
	v->build_options = job->options_buf;
	v->nargs = job->nargs;
	v->args = job->args;
	v->nmetrics = job->nmetrics;
	v->metrics = job->metrics;
	v->nsteps = job->nstages;
	v->steps = job->steps;
	return job->kopt ? optimize(job, v, why) : 0;
}
