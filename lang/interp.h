/*
 * interp.h - the reference interpreter: the meaning of a .space file.
 *
 * It walks the AST directly.  Iterators are bound in sema's loop order;
 * each derived value and constraint is evaluated as soon as its level's
 * iterator is bound (sema_def.level), constants and level -1 checks once
 * before any loop.  Nothing else is optimised: it is the oracle that every
 * compiled path is tested against.
 *
 * Semantics are Python 3's for expressions (see docs/LANGUAGE.md): 64-bit
 * ints, true division, floor division and modulo with the divisor's sign,
 * short-circuit and/or, chained comparisons.  An overflow, a division by
 * zero, or a run-time type error while evaluating a definition rejects the
 * current point and counts one domain error against that definition.
 * A version that sema left undefined on the current path (a name assigned
 * only inside some `if` branches) is not an error until something reads it.
 * The finer choices (strings, tuples, mutation, sum) are listed at the top
 * of interp.c.
 */
#ifndef SPACEC_INTERP_H
#define SPACEC_INTERP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sema.h"
#include "value.h"

/* A run-time binding of a device parameter or setting (--set). */
struct interp_binding {
	const char *name;
	struct value value;
};

struct interp_options {
	bool no_soft;                 /* drop soft constraints */
	int nbindings;
	const struct interp_binding *bindings;
	int ndisabled;                /* constraints dropped by name */
	const char *const *disabled;
	/* Statements one closure/def evaluation may run before it is a
	 * domain error (so `while True: yield 1` cannot hang). 0: default. */
	uint64_t step_limit;
	/*
	 * Called now and then by interp_run (at each value of the outermost
	 * loop, and every few thousand candidates) with an estimate of the
	 * share of the space done, from the positions of the open loops as if
	 * every value of a loop cost the same, and the counts so far.
	 * NULL: never.
	 */
	void (*progress)(void *arg, double fraction, uint64_t candidates, uint64_t valid);
	void *progress_arg;
};

/*
 * Per-definition counters, indexed by sema_def.id.  For an iterator,
 * `evaluated` counts the times its loop opened (its iterable computed) and
 * `domain_errors` the iterables that failed, each skipping its subtree.  A
 * device or setting bound by --set is not evaluated at all.
 */
struct interp_def_stats {
	uint64_t evaluated;      /* times computed or checked */
	uint64_t rejected;       /* points it rejected (constraints) */
	uint64_t domain_errors;  /* overflow, division by zero, type errors */
};

struct interp_result {
	uint64_t valid;          /* points that passed every constraint */
	uint64_t candidates;     /* iterator bindings visited, all levels */
	struct interp_def_stats *stats; /* prog->ndefs entries, malloc'd */
};

/*
 * Called for every valid point with the iterator values in definition
 * order (prog->iters).  Return nonzero to stop the enumeration early.
 */
typedef int (*interp_point_fn)(void *ctx, const struct value *iters, int n);

/*
 * Enumerates the space.  Returns 0 on success, -1 on a usage error (an
 * unknown or non-bindable --set name, reported to `diag`).  `cb` may be
 * NULL to count only.  Release `res` with interp_result_release.
 */
int interp_run(const struct sema_program *prog, const struct interp_options *opt,
	       interp_point_fn cb, void *cbctx, struct interp_result *res,
	       struct diag *diag);
void interp_result_release(struct interp_result *res);

/*
 * Evaluates the bindable definitions and constants only (no loops), e.g.
 * to print the resolved device parameters.  Values go to `out[def->id]`,
 * an array of prog->ndefs values (iterators and derived stay V_UNDEF, as
 * does a constant whose evaluation fails).  Each value holds a reference:
 * value_unref() every entry when done.  Returns -1 on a usage error
 * (reported to `diag`), as interp_run.
 */
int interp_constants(const struct sema_program *prog, const struct interp_options *opt,
		     struct value *out, struct diag *diag);

/*
 * Evaluating expressions at one given point, outside an enumeration (how
 * spacetune evaluates the tune: section, tuner/job.c).  Opening binds the
 * device parameters and settings (`opt`'s bindings) and computes the
 * constants and level -1 definitions once; interp_point_set() binds the
 * iterators (values in definition order, prog->iters) and recomputes
 * every derived value; interp_point_eval() then evaluates any expression
 * whose names sema resolved (e.g. a tune line's).  Constraints are not
 * checked: the point is taken as given.
 *
 * interp_point_open returns 0; -1 on a usage error (a bad binding,
 * reported to `diag`, as interp_run); 1 when a level -1 definition fails
 * or rejects (the space is empty; *why says why).  set and eval return 0,
 * or -1 on a domain error with a static message in *why; eval's value
 * holds a reference (value_unref it).
 */
struct interp_point;
int interp_point_open(const struct sema_program *prog, const struct interp_options *opt,
		      struct interp_point **out, const char **why, struct diag *diag);
int interp_point_set(struct interp_point *p, const struct value *iters, const char **why);
int interp_point_eval(struct interp_point *p, const struct ast_expr *e, struct value *out,
		      const char **why);
void interp_point_close(struct interp_point *p);

#endif
