/*
 * test_cgen.c - the code generator as a pipeline of passes: the pass
 * table's switches and levels (as docs/spacec.1 documents them), and
 * cg_emit leaving the checked program as sema made it, even where
 * factorization emits the loops in another order.
 */
#include <criterion/criterion.h>

#include "arena.h"
#include "cgen.h"
#include "helpers.h"

/* The switches docs/spacec.1 lists, each with the field it turns on. */
static const struct {
	const char *name;
	size_t off;
} documented[] = {
	{ "equality-solving", offsetof(struct cg_options, no_equality) },
	{ "bound-tightening", offsetof(struct cg_options, no_bounds) },
	{ "divisor-iteration", offsetof(struct cg_options, no_divisors) },
	{ "factorization", offsetof(struct cg_options, no_factorize) },
	{ "cse", offsetof(struct cg_options, no_cse) },
	{ "domain-filtering", offsetof(struct cg_options, no_filter) },
	{ "interval-pruning", offsetof(struct cg_options, no_interval) },
	{ "specialization", offsetof(struct cg_options, no_specialize) },
	{ "typed-values", offsetof(struct cg_options, no_typed) },
};

Test(cgen_passes, every_documented_switch_sets_its_own_field)
{
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
		struct cg_options o = { 0 }, zero = { 0 };
		char arg[64];
		snprintf(arg, sizeof(arg), "no-%s", documented[i].name);
		cr_assert(cg_set_switch(&o, arg), "-f%s refused", arg);
		cr_assert(*(bool *)((char *)&o + documented[i].off), "-f%s set another field", arg);
		*(bool *)((char *)&o + documented[i].off) = false;
		cr_assert_eq(memcmp(&o, &zero, sizeof(o)), 0, "-f%s set more than its field", arg);
	}
}

Test(cgen_passes, unknown_and_positive_forms_are_refused)
{
	struct cg_options o = { 0 };
	cr_assert_not(cg_set_switch(&o, "cse"));
	cr_assert_not(cg_set_switch(&o, "no-"));
	cr_assert_not(cg_set_switch(&o, "no-loop-order"));
	cr_assert_not(cg_set_switch(&o, "no-cse-x"));
	cr_assert_not(cg_set_switch(&o, "no-task-hooks"));
}

/* README: -O0 is BEAST's plain level sets, -O1 the constraint-driven
 * loops and specialization, -O2 adds CSE and interval pruning. */
Test(cgen_passes, levels)
{
	struct cg_options o = { .opt_level = 0 };
	cr_assert(cg_pass_on(&o, CG_PASS_TYPED_VALUES));
	cr_assert_not(cg_pass_on(&o, CG_PASS_LOOP_ORDER));
	cr_assert_not(cg_pass_on(&o, CG_PASS_SPECIALIZATION));
	cr_assert_not(cg_pass_on(&o, CG_PASS_EQUALITY));
	o.opt_level = 1;
	cr_assert(cg_pass_on(&o, CG_PASS_FACTORIZATION));
	cr_assert(cg_pass_on(&o, CG_PASS_DIVISORS));
	cr_assert_not(cg_pass_on(&o, CG_PASS_CSE));
	cr_assert_not(cg_pass_on(&o, CG_PASS_INTERVAL));
	o.opt_level = 2;
	cr_assert(cg_pass_on(&o, CG_PASS_CSE));
	cr_assert(cg_pass_on(&o, CG_PASS_INTERVAL));
	cr_assert(cg_set_switch(&o, "no-interval-pruning"));
	cr_assert_not(cg_pass_on(&o, CG_PASS_INTERVAL));
	cr_assert(cg_pass_on(&o, CG_PASS_CSE));
}

static char *slurp(const char *rel)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", top && *top ? top : ".", rel);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	char buf[4096];
	size_t k;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, k, m);
	fclose(f);
	fclose(m);
	return s;
}

static char *emit(const struct sema_program *prog, const char *src, int level)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	struct cg_options o = { .source_text = src, .source_len = strlen(src), .source_name = "t.space",
				.line_directives = true, .opt_level = level };
	struct diag diag;
	diag_init(&diag, FE_FILE, src, strlen(src), NULL);
	cr_assert_eq(cg_emit(prog, &o, m, &diag), 0);
	diag_release(&diag);
	fclose(m);
	return s;
}

/*
 * gemm_beast factorizes at -O1 and -O2 (its sub-nests are emitted after
 * the main chain, not in the default order the program holds) and its constraints are inlined
 * by cg_opt.c: the program's loop order, positions, levels and the module's
 * arena must come out as they went in, and a second emission must give
 * the same bytes.
 */
Test(cgen_passes, emit_leaves_the_checked_program_alone)
{
	char *src = slurp("spaces/gemm_beast.space");
	struct fe f;
	cr_assert_eq(fe_check(&f, src), 0, "%s", fe_diag(&f));
	const struct sema_program *P = &f.prog;
	int n = P->ndefs;
	struct sema_def **order = malloc(sizeof(*order) * (size_t)P->niters);
	int *level = malloc(sizeof(int) * (size_t)n), *pos = malloc(sizeof(int) * (size_t)n);
	memcpy(order, P->loop_order, sizeof(*order) * (size_t)P->niters);
	for (int i = 0; i < n; i++) {
		level[i] = P->defs[i]->level;
		pos[i] = P->defs[i]->loop_pos;
	}
	/* Two allocations in a row are `step` apart; one on each side of
	 * the emissions must be too, or cgen allocated in the module. */
	char *a = arena_alloc(&f.mod.arena, 1), *b = arena_alloc(&f.mod.arena, 1);
	ptrdiff_t step = b - a;
	char *before = arena_alloc(&f.mod.arena, 1);
	for (int level_ = 1; level_ <= 2; level_++) {
		char *first = emit(P, src, level_);
		cr_assert_not_null(strstr(first, "static int fac_0("), "-O%d did not factorize", level_);
		char *second = emit(P, src, level_);
		cr_assert_str_eq(first, second);
		free(first);
		free(second);
	}
	char *after = arena_alloc(&f.mod.arena, 1);
	cr_assert_eq(after - before, step, "cg_emit allocated in the checked program's module");
	cr_assert_eq(memcmp(order, P->loop_order, sizeof(*order) * (size_t)P->niters), 0, "loop order changed");
	for (int i = 0; i < n; i++) {
		cr_assert_eq(P->defs[i]->level, level[i], "%s: level changed", P->defs[i]->cname);
		cr_assert_eq(P->defs[i]->loop_pos, pos[i], "%s: loop position changed", P->defs[i]->cname);
	}
	free(order);
	free(level);
	free(pos);
	fe_release(&f);
	free(src);
}
