/*
 * spacec.c - the compile pipeline, once: front end, specialization to the
 * run's bindings, code generation and the JIT (see spacec.h).
 */
#include "spacec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp.h"
#include "order.h"
#include "parse.h"
#include "spacert.h"

void spacec_options_init(struct spacec_options *o)
{
	memset(o, 0, sizeof *o);
	o->passes.opt_level = 2;
	o->jit.mode = JIT_AUTO;
}

int spacec_option(struct spacec_options *o, const char *name, const char *value, char *err, size_t errlen)
{
	if (!strcmp(name, "-O")) {
		if (strcmp(value, "0") && strcmp(value, "1") && strcmp(value, "2")) {
			snprintf(err, errlen, "unknown optimisation level '-O%s'", value);
			return -1;
		}
		o->passes.opt_level = value[0] - '0';
		return 0;
	}
	if (!strcmp(name, "-f")) {
		if (!cg_set_switch(&o->passes, value)) {
			snprintf(err, errlen, "unknown option '-f%s'", value);
			return -1;
		}
		return 0;
	}
	if (!strcmp(name, "--jit")) {
		static const char *const names[] = { "auto", "cc", "tcc" };
		static const enum jit_mode modes[] = { JIT_AUTO, JIT_CC, JIT_TCC };
		for (int i = 0; i < 3; i++)
			if (!strcmp(value, names[i])) {
				o->jit.mode = modes[i];
				return 0;
			}
		snprintf(err, errlen, "unknown --jit '%s' (auto, cc or tcc)", value);
		return -1;
	}
	return 1;
}

/* ---- the front end ------------------------------------------------------------ */

int spacec_parse(struct spacec_unit *u, const char *file, const char *src, size_t len,
		 const struct spacec_options *o, FILE *diag_out)
{
	if (u->parsed)
		spacec_unit_release(u);
	memset(u, 0, sizeof *u);
	u->file = file;
	u->src = src;
	u->len = len;
	u->opts = o;
	diag_init(&u->diag, file, src, len, diag_out);
	u->diag.werror = o->werror;
	u->diag.no_warnings = o->no_warnings;
	u->diag.disabled_warnings = o->disabled_warnings;
	u->diag.program = o->program;
	ast_module_init(&u->mod, file);
	u->parsed = true;
	u->syntax_errors = parse_source(&u->mod, &u->diag, src, len);
	return u->syntax_errors;
}

int spacec_analyze(struct spacec_unit *u)
{
	if (u->syntax_errors && !u->diag.stopped) {
		/* The rest of the file parsed: its unknown names are reported
		 * in the same run (names written on the dropped lines excepted;
		 * every other check waits for a file without syntax errors). */
		static const char *const name_errors[] = { "unknown name", "unknown function", "Python's", NULL };
		u->diag.only = name_errors;
		sema_analyze(&u->mod, &u->diag, &u->prog);
		u->diag.only = NULL;
		return 1;
	}
	if (u->syntax_errors || sema_analyze(&u->mod, &u->diag, &u->prog) || u->diag.errors)
		return 1;
	u->analyzed = true;
	/* The order the interpreter runs (dag/order.c); -O0 is BEAST's
	 * method: loops in plain level-set order. */
	dag_order_place(&u->prog, !cg_pass_on(&u->opts->passes, CG_PASS_LOOP_ORDER));
	return 0;
}

/* A bindable as the runtime's rule sees it: the kind its default has. */
static struct sprt_bindable_desc bindable_desc(const struct sema_def *d)
{
	enum sprt_kind k = d->type == TY_INT ? SPRT_INT : d->type == TY_FLOAT ? SPRT_FLOAT :
			   d->type == TY_BOOL ? SPRT_BOOL : d->type == TY_STR ? SPRT_STR : SPRT_UNDEF;
	return (struct sprt_bindable_desc){ .name = d->name, .type = k, .line = d->loc.line, .col = d->loc.col };
}

int spacec_check_bindings(struct spacec_unit *u, const struct sprt_bindings *b, const char *const *sets, int nsets,
			  const char *profile, bool one_problem)
{
	int bad = 0;
	for (int i = 0; i < b->n; i++) {
		const struct sprt_binding *x = &b->v[i];
		const struct sema_def *d = sema_lookup(&u->prog, x->name);
		if (!d || (d->kind != SEMA_DEVICE && d->kind != SEMA_SETTING))
			continue; /* the run reports unknown names */
		const char *given = NULL;
		size_t n = strlen(x->name);
		for (int j = nsets - 1; j >= 0 && !given; j--)
			if (!strncmp(sets[j], x->name, n) && sets[j][n] == '=')
				given = sets[j];
		if (!given && !profile)
			continue; /* a device query's answer */
		char why[512], note[512];
		struct sprt_bindable_desc desc = bindable_desc(d);
		if (!sprt_bindable_check(&desc, x, given ? NULL : profile, why, note, sizeof why))
			continue;
		diag_error(&u->diag, d->loc, "%s", why);
		if (one_problem && given && strchr(given, ',') && desc.type != SPRT_STR)
			diag_note(&u->diag, d->loc, "spacec enumerates one problem at a time: run it once per value "
				  "('spacetune run --set %s' tunes each value as a problem of its own)", given);
		if (note[0])
			diag_note(&u->diag, d->loc, "%s", note);
		bad++;
	}
	return bad;
}

struct interp_binding *spacec_interp_bindings(struct spacec_unit *u, const struct sprt_bindings *b)
{
	struct interp_binding *v = calloc((size_t)b->n + 1, sizeof(*v));
	for (int i = 0; v && i < b->n; i++) {
		const struct sprt_binding *x = &b->v[i];
		v[i].name = ast_intern(&u->mod, x->name, strlen(x->name));
		if (x->text)
			v[i].value = value_str(ast_intern(&u->mod, x->text, strlen(x->text)));
		else if (x->value.kind == SPRT_INT)
			v[i].value = value_int(x->value.u.i);
		else if (x->value.kind == SPRT_BOOL)
			v[i].value = value_bool(x->value.u.i != 0);
		else
			v[i].value = value_float(x->value.u.f);
	}
	return v;
}

void spacec_unit_release(struct spacec_unit *u)
{
	if (!u->parsed)
		return;
	ast_module_release(&u->mod);
	diag_release(&u->diag);
	u->parsed = u->analyzed = false;
}

/* ---- specialization and code generation ------------------------------------------ */

/*
 * The program again, specialized to the bindings the run gets
 * (sema_analyze_known): branches on device parameters and settings
 * decided, def bodies that only decide and return made expressions, so the
 * generated loops see them.  The C text then holds the bound values, so
 * the JIT cache (keyed by the text) keys on them and --set never needs a
 * manual rebuild.  Its diagnostics were the first analysis's and are not
 * repeated.  False (the caller keeps the plain program) where it fails.
 */
static bool analyze_specialized(const struct spacec_unit *u, const struct sprt_bindings *b,
				struct ast_module *mod, struct sema_program *prog)
{
	ast_module_init(mod, u->file);
	struct diag quiet;
	diag_init(&quiet, u->file, NULL, 0, NULL);
	quiet.no_warnings = true;
	bool ok = !parse_source(mod, &quiet, u->src, u->len);
	struct sema_known *known = calloc((size_t)b->n + 1, sizeof(*known));
	int nknown = 0;
	ok = ok && known;
	for (int i = 0; ok && i < b->n; i++) {
		const struct sprt_binding *x = &b->v[i];
		struct ast_expr *v;
		if (x->text) {
			v = ast_expr_new(mod, AST_STR, (struct srcloc){ 0 });
			v->sval = ast_intern(mod, x->text, strlen(x->text));
		} else if (x->value.kind == SPRT_INT || x->value.kind == SPRT_BOOL) {
			v = ast_expr_new(mod, x->value.kind == SPRT_INT ? AST_INT : AST_BOOL, (struct srcloc){ 0 });
			v->ival = x->value.u.i;
		} else if (x->value.kind == SPRT_FLOAT) {
			v = ast_expr_new(mod, AST_FLOAT, (struct srcloc){ 0 });
			v->fval = x->value.u.f;
		} else {
			continue;
		}
		known[nknown].name = ast_intern(mod, x->name, strlen(x->name));
		known[nknown++].value = v;
	}
	ok = ok && !sema_analyze_known(mod, &quiet, prog, known, nknown) && !quiet.errors;
	free(known);
	diag_release(&quiet);
	if (!ok)
		ast_module_release(mod);
	return ok;
}

/*
 * The kind of value each device parameter and setting will be bound to
 * (cg_options.bound_types), indexed by definition id; NULL on OOM (the
 * code then stays untyped).
 */
static unsigned char *bound_types(const struct sema_program *prog, const struct sprt_bindings *b)
{
	unsigned char *types = calloc((size_t)prog->ndefs + 1, 1);
	for (int i = 0; types && i < prog->ndefs; i++) {
		const struct sema_def *d = prog->defs[i];
		if (d->kind != SEMA_DEVICE && d->kind != SEMA_SETTING)
			continue;
		types[d->id] = CG_BOUND_DEFAULT;
		for (int j = b ? b->n - 1 : -1; j >= 0; j--) {
			const struct sprt_binding *x = &b->v[j];
			if (strcmp(x->name, d->name))
				continue;
			types[d->id] = x->text ? CG_BOUND_OTHER
				       : x->value.kind == SPRT_INT ? CG_BOUND_INT
				       : x->value.kind == SPRT_BOOL ? CG_BOUND_BOOL : CG_BOUND_OTHER;
			break;
		}
	}
	return types;
}

static char *emit_program(struct spacec_unit *u, const struct sema_program *prog, const struct spacec_build *b,
			  size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	unsigned char *types = b->standalone ? NULL : bound_types(prog, b->bindings);
	if (!f || (!b->standalone && !types)) {
		if (f)
			fclose(f);
		free(buf);
		free(types);
		diag_plain(&u->diag, DIAG_ERROR, "out of memory");
		return NULL;
	}
	struct cg_options o = u->opts->passes; /* the level and the switches */
	o.source_text = u->src;
	o.source_len = u->len;
	o.source_name = u->file;
	o.output_name = b->output_name ? b->output_name : "<generated>";
	o.line_directives = true;
	o.bound_types = types;
	o.standalone = b->standalone;
	struct diag quiet;
	if (b->quiet)
		diag_init(&quiet, u->file, u->src, u->len, NULL);
	int errs = cg_emit(prog, &o, f, b->quiet ? &quiet : &u->diag);
	if (b->quiet)
		diag_release(&quiet);
	free(types);
	if (fclose(f) || errs) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

char *spacec_generate(struct spacec_unit *u, const struct spacec_build *b, size_t *len)
{
	struct ast_module smod;
	struct sema_program sprog;
	if (b->specialize && b->bindings && cg_pass_on(&u->opts->passes, CG_PASS_SPECIALIZATION) &&
	    analyze_specialized(u, b->bindings, &smod, &sprog)) {
		char *text = emit_program(u, &sprog, b, len);
		ast_module_release(&smod);
		return text;
	}
	return emit_program(u, &u->prog, b, len);
}

/* ---- the JIT's choice ------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * --jit=auto with nothing cached: cc -O2 or libtcc, whichever should
 * finish the whole job (build + enumerate) first.  cc costs 0.1-1.5 s to
 * build and its code runs about 5x faster than tcc's, so it only pays off
 * where enumeration takes seconds.  With typed values and the loop
 * transformations that is no longer "any wide or deep space" but only a
 * loop bounded by a device parameter whose value here exceeds 1000 (its
 * binding, from --set or a device profile, else its literal default):
 * BEAST-style spaces over device limits, whose nests run for seconds.
 * (Deep nests, 16 or more iterators, were a second case until interval
 * pruning and factorization: synthetic_deep now enumerates in 0.15 s with
 * tcc against cc's 0.9 s build.)  Everything else builds with tcc in
 * milliseconds.  The rule reads only the program and the bindings, so it
 * is deterministic.
 */
#define AUTO_DEVICE_BOUND 1000

static bool large_device(const struct sprt_bindings *b, const struct sema_def *dev)
{
	for (int i = b ? b->n - 1 : -1; i >= 0; i--) {
		const struct sprt_binding *x = &b->v[i];
		if (strcmp(x->name, dev->name))
			continue;
		return x->text || x->value.kind != SPRT_INT || x->value.u.i > AUTO_DEVICE_BOUND ||
		       x->value.u.i < -AUTO_DEVICE_BOUND;
	}
	const struct ast_expr *e = dev->expr;
	return !e || e->kind != AST_INT || e->ival > AUTO_DEVICE_BOUND || e->ival < -AUTO_DEVICE_BOUND;
}

static bool device_bound(const struct sprt_bindings *b, const struct ast_expr *e)
{
	if (!e)
		return false;
	if (e->kind == AST_NAME)
		return e->ref && e->ref->kind == SEMA_DEVICE && large_device(b, e->ref);
	for (int i = 0; i < e->nitems; i++)
		if (device_bound(b, e->items[i]))
			return true;
	return false;
}

/* cc's build time grows faster than the nest's depth: 50 trivial
 * iterators took it 2 s, 100 over 10 s, where tcc takes milliseconds. */
#define AUTO_CC_MAX_ITERATORS 40

static bool prefer_cc(const struct sprt_bindings *b, const struct sema_program *prog)
{
	if (prog->niters > AUTO_CC_MAX_ITERATORS)
		return false;
	for (int i = 0; i < prog->niters; i++)
		if (device_bound(b, prog->iters[i]->expr))
			return true;
	return false;
}

/*
 * --jit=auto, a listing, nothing cached and tcc chosen by the rule above: a
 * long listing still repays cc's build (gaussian's 149M points: 82 s with
 * tcc, 18 s with cc -O2 before the sinks were reworked).  So the tcc build
 * first counts the space (emitting nothing, which factorized spaces do in
 * microseconds), for at most AUTO_TRIAL_S, and the listing's tcc time is
 * predicted as the count's time (or, cut off, that time over the share of
 * the outer loop done) plus AUTO_TCC_POINT_S per point (gaussian at
 * N1=N2=64, 2.1M points: 1.6 s with tcc at a load of 20 on 2 cores, about
 * 0.2 us a point idle); cc is chosen where that exceeds twice cc's build,
 * estimated as elsewhere at 0.2 s + 1 s per 100 kB of C.  Threads and the
 * sink's own cost are left out: the rule only has to tell milliseconds
 * from seconds.  The trial's result is discarded.
 */
#define AUTO_TRIAL_S 0.1
#define AUTO_TCC_POINT_S 200e-9

static bool listing_repays_cc(const struct spacec_build *b, bool verbose, const struct sprt_space *sp,
			      size_t c_bytes)
{
	struct sprt_ctx ctx;
	bool cc = false;
	if (sprt_ctx_init(&ctx, sp) != SPRT_OK)
		return false;
	ctx.bindings = b->bindings ? b->bindings->v : NULL;
	ctx.nbindings = b->bindings ? b->bindings->n : 0;
	ctx.no_soft = b->no_soft;
	ctx.no_stats = true;
	double t0 = now();
	ctx.deadline = t0 + AUTO_TRIAL_S;
	int rc = sp->enumerate(&ctx);
	double t = now() - t0, done = ctx.deadline > 0 ? 1.0 : ctx.deadline_fraction;
	if (!(done > 0))
		done = 1; /* cut off where the outer loop's share is unknown: what was seen */
	double tcc = t / done + (double)ctx.valid / done * AUTO_TCC_POINT_S;
	double build = 0.2 + (double)c_bytes / 100e3;
	cc = rc == 0 && tcc > 2 * build;
	if (verbose)
		fprintf(stderr, "spacec: --jit=auto: a trial count predicts %.2f s with tcc, cc builds in ~%.1f s%s\n",
			tcc, build, cc ? ": cc" : "");
	sprt_ctx_release(&ctx);
	return cc;
}

/* ---- loading ------------------------------------------------------------------ */

static void take_handle(struct spacec_enumerator *e, const struct jit_handle *h)
{
	e->h = *h;
	e->space = h->space;
	e->backend = h->backend;
	e->compile_seconds = h->compile_seconds;
}

int spacec_load(struct spacec_unit *u, const struct spacec_build *b, struct spacec_enumerator *e, char **err)
{
	memset(e, 0, sizeof *e);
	*err = NULL;
	struct spacec_build gb = *b;
	gb.standalone = false;
	size_t n;
	char *text = spacec_generate(u, &gb, &n);
	if (!text)
		return 1;
	if (b->building)
		b->building(b->user, n);
	struct jit_options jo = u->opts->jit;
	/* By the program as written: specialization folds the device
	 * parameters the rule looks for into literals. */
	jo.prefer_cc = b->prefer_cc || prefer_cc(b->bindings, &u->prog);
	struct jit_handle h;
	int failed = jit_load(text, n, &jo, &h, err);
	if (failed && jo.mode == JIT_AUTO && jo.prefer_cc && jit_have_tcc()) {
		/* cc failed where tcc may not: its build stands in */
		char *err_tcc = NULL;
		jo.mode = JIT_TCC;
		if (!(failed = jit_load(text, n, &jo, &h, &err_tcc))) {
			free(*err);
			*err = NULL;
		}
		free(err_tcc);
		jo.mode = JIT_AUTO;
	}
	if (!failed && jo.mode == JIT_AUTO && !strcmp(h.backend, "tcc") && b->listing &&
	    listing_repays_cc(b, jo.verbose, h.space, n)) {
		struct jit_handle hc;
		char *err_cc = NULL;
		jo.mode = JIT_CC;
		if (jit_load(text, n, &jo, &hc, &err_cc) == 0) {
			jit_unload(&h);
			h = hc;
		}
		free(err_cc); /* tcc's build stays */
	}
	free(text);
	if (failed) {
		if (!*err)
			*err = strdup("cannot compile the enumerator");
		return -1;
	}
	take_handle(e, &h);
	return 0;
}

void spacec_enumerator_release(struct spacec_enumerator *e)
{
	jit_unload(&e->h);
	memset(e, 0, sizeof *e);
}

int spacec_compile(struct spacec_unit *u, const char *file, const char *src, size_t len,
		   const struct spacec_options *o, const struct spacec_build *b, FILE *diag_out,
		   struct spacec_enumerator *e)
{
	memset(e, 0, sizeof *e);
	spacec_parse(u, file, src, len, o, diag_out);
	if (spacec_analyze(u))
		return 1;
	char *err = NULL;
	int rc = spacec_load(u, b, e, &err);
	if (rc < 0)
		fprintf(diag_out ? diag_out : stderr, "%s: error: %s\n", o->program ? o->program : "spacec",
			err ? err : "out of memory");
	free(err);
	return rc;
}
