/*
 * cg_pass.c - the compiler's passes, in the order the driver runs them.
 *
 * This table is the one place that says which transformations exist, in
 * what order they are planned, from which -O level each runs and which
 * -fno- switch turns it off; spacec's command line reads its switch names
 * and levels from here (cg_set_switch, cg_pass_on).  A pass's plan runs
 * before any C is written, in table order; each plan sees the decisions
 * of the rows above it (factorization's loop order, then the types, then
 * the shared subexpressions, ...).  Every plan runs at every level: a
 * pass that is off still sets up the empty state the emitters read, and
 * asks cg_pass_on whether to decide anything.  What the passes write
 * into the loop nest, and in which order, is the hooks table below.
 * After the definitions and the loop nest are written, the driver asks
 * each pass in table order for its members of struct space_state, and
 * releases them in reverse.
 *
 * Rows without functions are decided elsewhere but switched here:
 * specialization (lang/specialize.c, before cgen), the task hooks, and
 * the transformations planned together in cg_opt.c (one plan for the
 * four rows it owns, each with its own switch).  The loop order's row
 * decides the order (dag/order.c, factorization's grouping included) into
 * the generator's own placement; factorization then writes the code of
 * the sub-nests that order made.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_int.h"

#define OFF(field) offsetof(struct cg_options, field)
#define NONE ((size_t)-1)

/* The final loop order (dag/order.c): BEAST's level sets below -O1,
 * regrouped into a chain and sub-nests where factorization is on; the
 * placement the other passes read is the generator's own. */
static void order_plan(struct cg *c)
{
	const struct sema_program *P = c->P;
	size_t n = (size_t)P->ndefs + 1;
	dag_order_plan(P, !CG_ON(c, CG_PASS_LOOP_ORDER), CG_ON(c, CG_PASS_FACTORIZATION), &c->ord);
	c->order = c->ord.order;
	c->pos = xcalloc(n, sizeof(*c->pos));
	c->lvl = xcalloc(n, sizeof(*c->lvl));
	sema_placement(P, c->order, c->pos, c->lvl);
}

static void order_release(struct cg *c)
{
	dag_order_release(&c->ord);
	free(c->pos);
	free(c->lvl);
	c->order = NULL;
	c->pos = c->lvl = NULL;
}

/* name (-fno-NAME), lowest -O level, switch, plan, state, release */
static const struct cg_pass passes[CG_NPASSES] = {
	/* lang/specialize.c, run by the caller before cgen */
	[CG_PASS_SPECIALIZATION] = { "specialization", 1, OFF(no_specialize), NULL, NULL, NULL },
	/* dag/order.c: the final order, the chain and sub-nests included */
	[CG_PASS_LOOP_ORDER] = { "loop-order", 1, NONE, order_plan, NULL, order_release },
	[CG_PASS_FACTORIZATION] = { "factorization", 1, OFF(no_factorize),
				    cg_factor_plan, cg_factor_state, cg_factor_release },
	[CG_PASS_TYPED_VALUES] = { "typed-values", 0, OFF(no_typed), cg_type_plan, NULL, cg_type_release },
	[CG_PASS_CSE] = { "cse", 2, OFF(no_cse), cg_cse_plan, cg_cse_state, cg_cse_release },
	/* cg_opt.c plans this row and the next three */
	[CG_PASS_DOMAIN_FILTERING] = { "domain-filtering", 1, OFF(no_filter),
				       cg_opt_plan, cg_opt_state, cg_opt_release },
	[CG_PASS_EQUALITY] = { "equality-solving", 1, OFF(no_equality), NULL, NULL, NULL },
	[CG_PASS_BOUNDS] = { "bound-tightening", 1, OFF(no_bounds), NULL, NULL, NULL },
	[CG_PASS_DIVISORS] = { "divisor-iteration", 1, OFF(no_divisors), NULL, NULL, NULL },
	[CG_PASS_INTERVAL] = { "interval-pruning", 2, OFF(no_interval),
			       cg_interval_plan, cg_interval_state, cg_interval_release },
	/* cg_par.c: emitted in every loop, nothing to plan */
	[CG_PASS_TASK_HOOKS] = { "task-hooks", 0, NONE, NULL, NULL, NULL },
};

const struct cg_pass *cg_pass(enum cg_pass_id p)
{
	return &passes[p];
}

/* The checkpoints' way out: the run, before the loops; else the iteration. */
static void factor_checkpoints(struct cg *c, int k)
{
	cg_factor_checkpoints(c, k, k < 0 ? "return 0;" : "continue;");
}

/*
 * What the passes write into run(), place by place, in the order written
 * (the loop itself, its value source included, and the definitions of
 * each level are the driver's).  Not the table's order: factorization
 * plans second, but its checkpoints come after the task hook, so that a
 * zero count only skips the rest of the iteration (never ends the loop,
 * and the walkers number the same tasks) and the counting (most of the
 * work in synthetic_deep, whose 10-loop sub-nest is keyed at the task
 * level) is done once, by the task's owner, instead of by every walker.
 * Each emitter writes nothing where its pass has nothing to do.
 */
static const struct {
	enum cg_at at;
	void (*emit)(struct cg *c, int k);
	void (*once)(struct cg *c);     /* outside the loops: no k */
} hooks[] = {
	{ CG_AT_PROLOGUE, NULL, cg_par_prologue },      /* task hooks */
	{ CG_AT_NEST, NULL, cg_opt_filter },            /* domain filtering */
	{ CG_AT_NEST, NULL, cg_interval_bounds },       /* interval pruning */
	{ CG_AT_NEST, NULL, cg_interval_columns },      /* (at every level: the binary sink's widths) */
	{ CG_AT_NEST, NULL, cg_factor_near_setup },     /* factorization */
	{ CG_AT_NEST, factor_checkpoints, NULL },
	{ CG_AT_ENTER, cg_factor_loop_entry, NULL },    /* factorization: near counts start over */
	{ CG_AT_ITERATION, cg_par_iteration, NULL },    /* task hooks */
	{ CG_AT_VALUE, cg_cse_reset, NULL },            /* cse: level k's subexpressions are stale */
	{ CG_AT_CHECKED, cg_interval_prune, NULL },     /* interval pruning */
	{ CG_AT_CHECKED, cg_par_task, NULL },           /* task hooks */
	{ CG_AT_CHECKED, factor_checkpoints, NULL },    /* factorization: the sub-nests' counts */
	{ CG_AT_LEAVE, cg_par_loop_end, NULL },         /* task hooks */
};

void cg_hooks(struct cg *c, enum cg_at at, int k)
{
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (hooks[i].at == at && hooks[i].once)
			hooks[i].once(c);
		else if (hooks[i].at == at)
			hooks[i].emit(c, k);
}

bool cg_pass_on(const struct cg_options *o, enum cg_pass_id p)
{
	const struct cg_pass *q = &passes[p];
	return o->opt_level >= q->min_level && (q->off == NONE || !*(const bool *)((const char *)o + q->off));
}

bool cg_set_switch(struct cg_options *o, const char *arg)
{
	if (strncmp(arg, "no-", 3))
		return false;
	for (int i = 0; i < CG_NPASSES; i++)
		if (passes[i].off != NONE && !strcmp(arg + 3, passes[i].name)) {
			*(bool *)((char *)o + passes[i].off) = true;
			return true;
		}
	return false;
}

void cg_switch_help(FILE *out)
{
	int col = 0;
	for (int i = 0; i < CG_NPASSES; i++) {
		if (passes[i].off == NONE)
			continue;
		int w = (int)strlen(passes[i].name) + 6; /* "-fno-" and "," */
		if (col && col + w + 1 > 74) {
			fputs(",\n", out);
			col = 0;
		}
		fprintf(out, "%s-fno-%s", col ? ", " : "  ", passes[i].name);
		col += w + 1;
	}
	fputs("\n", out);
}
