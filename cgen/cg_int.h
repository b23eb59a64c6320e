/*
 * cg_int.h - the interfaces of the code generator's passes (cgen/cg_*.c)
 * and of their table (cg_pass.c).
 *
 * Not a public header: everything here is private to cgen/.  The layers,
 * bottom up: cg_text.h and cg_state.h (buffers, lines, names, struct cg;
 * cg_text.c), the passes (cg_expr.c, cg_type.c, cg_factor.c, cg_opt.c,
 * cg_interval.c, cg_cse.c, cg_par.c; their order and switches in
 * cg_pass.c), and the driver (cgen.c), which alone calls into every layer.
 */
#ifndef SPACEC_CG_INT_H
#define SPACEC_CG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "cg_state.h"

/* One row of the pass table (cg_pass.c).  plan runs before any C is
 * written, state adds the pass's members to struct space_state, release
 * frees what plan made; NULL where the pass has none. */
struct cg_pass {
	const char *name;        /* -fno-NAME */
	int min_level;           /* the lowest -O level it runs at */
	size_t off;              /* its bool in struct cg_options, or (size_t)-1: no switch */
	void (*plan)(struct cg *c);
	void (*state)(struct cg *c, struct sbuf *out);
	void (*release)(struct cg *c);
};
const struct cg_pass *cg_pass(enum cg_pass_id p);

/* The places in run() where passes write code (cg_pass.c's hooks table
 * says which pass writes what, in which order). */
enum cg_at {
	CG_AT_PROLOGUE,  /* run()'s first statements, before level -1 */
	CG_AT_NEST,      /* after level -1 and the hoisted iterables, before loop 0 */
	CG_AT_ENTER,     /* before loop k opens */
	CG_AT_ITERATION, /* first in loop k's body */
	CG_AT_VALUE,     /* loop k's iterator has its value; level k comes next */
	CG_AT_CHECKED,   /* level k written; loop k + 1 comes next */
	CG_AT_LEAVE,     /* after loop k */
};
/* Writes what the passes put at `at` of loop k (-1: outside the loops). */
void cg_hooks(struct cg *c, enum cg_at at, int k);

/* Whether pass p runs in this generator. */
#define CG_ON(c, p) cg_pass_on((c)->opt, (p))

/* cg_opt.c: plans domain filtering, equality solving, bound tightening
 * and divisor iteration; state: the divisor tables. */
void cg_opt_state(struct cg *c, struct sbuf *out);
void cg_opt_plan(struct cg *c);
void cg_opt_release(struct cg *c);
/* Emits the value source of loop k (after its iterable is computed). */
void cg_opt_loop_open(struct cg *c, int k);
/* Whether the rejection of constraint d may break out of its loop. */
const char *cg_opt_break(struct cg *c, const struct sema_def *d);
/* Domain filtering (after level -1 and the hoisted iterables): replaces
 * st->X_iter of each filtered loop by the list of the values its unary
 * constraints keep, built in st->X_dom. */
void cg_opt_filter(struct cg *c);
/* The expression constraint d tests, derived values of level k inlined
 * (-2: none); NULL where its body is more than one `return`. */
struct ast_expr *cg_opt_constraint_expr(struct cg *c, const struct sema_def *d, int k);
/* C condition: constraint d is enabled in this run (--disable, --no-soft). */
const char *cg_opt_enabled_test(struct cg *c, const struct sema_def *d);

/* cg_interval.c: interval pruning (-O2).  plan: after cg_opt_plan; bounds:
 * after domain filtering, computes the bounds of the hoisted iterables its
 * checks read; prune: in loop k after the level's checks, skips the
 * subtree where a deeper constraint rejects every completion.  columns
 * (every -O level): right after bounds, hands the runtime each iterator's
 * value bounds where all can be found (the binary sink's widths). */
void cg_interval_plan(struct cg *c);
void cg_interval_bounds(struct cg *c);
void cg_interval_columns(struct cg *c);
/* The state member cg_interval_columns fills, or NULL where it could not. */
const char *cg_interval_columns_member(const struct cg *c);
/* Whether iterator i (definition order) has bounds code there. */
bool cg_interval_column_bounded(const struct cg *c, int i);
void cg_interval_prune(struct cg *c, int k);
/* After d rejected at its own level: the loop ends where every later value is rejected too. */
void cg_interval_reject(struct cg *c, const struct sema_def *d);
/* Divisor iteration from X * Y == c at loop k: sets wlo, whi to bounds of
 * Y's values where they can be found (left alone elsewhere). */
void cg_interval_partner(struct cg *c, int k);
/* The state members it needs (in struct space_state). */
void cg_interval_state(struct cg *c, struct sbuf *out);
void cg_interval_release(struct cg *c);

/* cg_type.c */
/* Hands the current point to the sink (emit known non-NULL). */
void cg_emit_point(struct cg *c);
/* The same in parts: the point `array` declared from the state (int64_t
 * or sprt_val), one iterator's value as it holds it, handing it on. */
void cg_point_decl(struct cg *c, bool konst, const char *array);
const char *cg_point_value(struct cg *c, const struct sema_def *x);
void cg_point_emit(struct cg *c, const char *array);
void cg_type_plan(struct cg *c);
void cg_type_release(struct cg *c);
/* The static type of `e` in the generated code: CG_T_INT or CG_T_BOOL
 * only where every evaluation that succeeds gives that type. */
enum cg_ctype cg_type_of(struct cg *c, const struct ast_expr *e);
/* Whether the state holds d as an int64_t (not a sprt_val). */
bool cg_typed_member(struct cg *c, const struct sema_def *d);
/* The C type of a definition's member and its def_ function's *out. */
const char *cg_ctype_c(struct cg *c, const struct sema_def *d);
/* A definition's current value as a sprt_val C expression (boxed if typed). */
const char *cg_value_of(struct cg *c, const struct sema_def *d);
/* The int64_t C expression x as a sprt_val of type t. */
const char *cg_box(struct cg *c, enum cg_ctype t, const char *x);
/* Evaluates a typed `e` (cg_type_of != CG_T_VAL); returns an int64_t C
 * expression, after emitting the statements its checks need. */
const char *cg_int_operand(struct cg *c, const struct ast_expr *e);

/* cg_par.c: the task hooks of threaded and sharded runs in loop k. */
void cg_par_prologue(struct cg *c);
void cg_par_iteration(struct cg *c, int k); /* first in the loop body */
void cg_par_task(struct cg *c, int k);      /* after the level's checks */
void cg_par_loop_end(struct cg *c, int k);  /* after the loop */
void cg_par_descriptor(struct cg *c, struct sbuf *out); /* .par_levels */

/* cg_factor.c: whether iterator d's iterable is computed once, before the nest,
 * into st->d_iter with its domain error in the run() local once_d. */
bool cg_hoisted(const struct cg *c, const struct sema_def *d);

/* cg_factor.c: plan right after the loop order, whose sub-nests it writes. */
void cg_factor_plan(struct cg *c);
void cg_factor_release(struct cg *c);
/* Whether loop position k belongs to the main chain. */
bool cg_factor_main(const struct cg *c, int k);
/* The sub-nest that loop position k belongs to, or -1 (the main chain). */
int cg_factor_block(const struct cg *c, int k);
/* The level after which sub-nest b is counted (-1: before the loops). */
int cg_factor_checkpoint(const struct cg *c, int b);
void cg_factor_state(struct cg *c, struct sbuf *out);
void cg_factor_take_state(struct cg *c, struct sbuf *out);
void cg_factor_free_state(struct cg *c, struct sbuf *out);
/* count_b and fac_b of every sub-nest; `loops` writes loop k and inward. */
void cg_factor_functions(struct cg *c, struct sbuf *out, void (*loops)(struct cg *, int));
/* The sub-nests counted after `level` is computed (-1: before the loops). */
void cg_factor_checkpoints(struct cg *c, int level, const char *skip);
/* Near counts (see cg_factor.c): set up before the nest (after
 * cg_interval_columns), and started over on entering loop k. */
void cg_factor_near_setup(struct cg *c);
void cg_factor_loop_entry(struct cg *c, int k);
/* The innermost code; false: the caller writes the usual valid point. */
bool cg_factor_innermost(struct cg *c);

/* cg_cse.c: plan after the loop order is final and the types are
 * planned, before definitions. */
void cg_cse_plan(struct cg *c);
void cg_cse_release(struct cg *c);
void cg_cse_state(struct cg *c, struct sbuf *out);
/* Forgets the subexpressions of `level` (its loop took a new value). */
void cg_cse_reset(struct cg *c, int level);
/* Writes e into dst through its shared value, if e is shared. */
bool cg_cse_into(struct cg *c, const struct ast_expr *e, const char *dst);
/* A typed e (cg_type_of != CG_T_VAL) through its shared int64_t, after
 * emitting the code that computes it if unknown; NULL if e is not shared. */
const char *cg_cse_int(struct cg *c, const struct ast_expr *e);

/* cg_expr.c; a block that an and/or or comparison chain leaves by `break` */
void cg_open_chain(struct cg *c, bool open);
void cg_close_chain(struct cg *c, bool open);
void cg_expr_into(struct cg *c, const struct ast_expr *e, const char *dst);
/* The runtime's character for an operator or comparison (sprt_op, sprt_cmp). */
const char *cg_op_char(enum ast_op op);
const char *cg_operand(struct cg *c, const struct ast_expr *e);
void cg_body(struct cg *c, const struct sema_def *d);
void cg_collect_strings(struct cg *c, const struct ast_expr *e);
void cg_collect_strings_block(struct cg *c, const struct ast_block *b);

#endif
