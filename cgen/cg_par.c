/*
 * cg_par.c - the hooks of threaded and sharded runs in the loop nest.
 *
 * The runtime (runtime/par.c) cuts the space into tasks at a level it
 * picks at run time, so the first CG_PAR_LEVELS loops each carry the
 * same three calls, switched on by one local copied from the context:
 *
 *     for (...) {
 *         if (par_level >= k) sprt_par_leave(ctx, k);   the last task is over
 *         ...values and checks of level k...
 *         if (par_level >= k && sprt_par_enter(ctx, k))
 *             continue;                                  not this walker's task
 *         ...level k + 1 and deeper...
 *     }
 *     if (par_level >= k) sprt_par_leave(ctx, k);
 *
 * A task is the part of an iteration after its level's own checks, so
 * whatever decides how far a loop runs (a rejection, a bound-tightening
 * break, equality solving's single value) happens in every walker alike
 * and the walkers number the tasks identically.  Ending a task at the
 * top of the next iteration and after the loop, rather than at the end of
 * the body, holds whatever way the body is left (continue or break).
 * In a plain run par_level is -1 and each hook is one predictable branch.
 */
#include "cg_int.h"

/* Loops with hooks; the runtime's SPRT_PAR_LEVELS (runtime/spacert.h). */
#define CG_PAR_LEVELS 8

static bool hooked(const struct cg *c, int k)
{
	/* Only the main chain of a factorized nest: its sub-nests run inside
	 * one iteration of it (cg_factor.c). */
	return k < CG_PAR_LEVELS && k < c->P->niters && c->block < 0 && cg_factor_main(c, k);
}

void cg_par_prologue(struct cg *c)
{
	cg_line(c, "/* Threads and shards (runtime/par.c): the deepest loop with live hooks, or -1. */");
	cg_line(c, "const int par_level = ctx->par ? ctx->par_level : -1;");
	cg_line(c, "(void)par_level;");
}

/* Leaves level k's task, where the loop has hooks; `why`: a comment or "". */
static void leave(struct cg *c, int k, const char *why)
{
	if (!hooked(c, k))
		return;
	cg_line(c, "if (par_level >= %d)%s", k, why);
	cg_line(c, "\tsprt_par_leave(ctx, %d);", k);
}

void cg_par_iteration(struct cg *c, int k)
{
	leave(c, k, " /* the previous task here is over */");
}

void cg_par_task(struct cg *c, int k)
{
	if (!hooked(c, k))
		return;
	cg_line(c, "if (par_level >= %d && sprt_par_enter(ctx, %d)) /* a task: someone else's? */", k, k);
	cg_line(c, "\tcontinue;");
}

void cg_par_loop_end(struct cg *c, int k)
{
	leave(c, k, "");
}

void cg_par_descriptor(struct cg *c, struct sbuf *out)
{
	int n = 0;
	while (hooked(c, n))
		n++;
	sbuf_printf(out, "\t.par_levels = %d, /* loops with task hooks */\n", n);
}
