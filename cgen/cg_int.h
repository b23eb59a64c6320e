/*
 * cg_int.h - the code generator's state (struct cg) and the interfaces
 * of its passes (cgen/cg_*.c).
 *
 * Not a public header: everything here is private to cgen/.  The layers,
 * bottom up: cg_text.h (buffers, lines, names; cg_text.c), the passes
 * (cg_expr.c, cg_type.c, cg_factor.c, cg_opt.c, cg_interval.c,
 * cg_cse.c, cg_par.c; their order and switches in cg_pass.c), and the
 * driver (cgen.c), which alone calls into every layer.
 */
#ifndef SPACEC_CG_INT_H
#define SPACEC_CG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "cg_text.h"
#include "cgen.h"

/* Flow bits of a value inside a def body (see cg_expr.c). */
enum {
	CG_FOREIGN = 1, /* may be a list owned by another definition */
	CG_OWNED = 2,   /* may be a list built in this body's scratch */
	CG_RANGE = 4,   /* may be a range (iterable; its elements are ints) */
};

/* Helpers of the generated prelude, emitted only when used. */
enum {
	CG_H_RANGE_LEN = 1,
	CG_H_ITER = 2,
	CG_H_COPY = 4,
	CG_H_OWNED = 8,
	CG_H_OPT = 16,   /* struct opt_it and its helpers (cg_opt.c) */
};

/* How a definition's value is held (cg_type.c). */
enum cg_ctype {
	CG_T_VAL = 0, /* a tagged sprt_val: anything */
	CG_T_INT,     /* proven an int in every evaluation: int64_t */
	CG_T_BOOL,    /* proven a bool: int64_t 0 or 1 */
};

/* How one loop level draws its values (cg_opt.c). */
enum cg_src_kind { CG_SRC_PLAIN, CG_SRC_PIN, CG_SRC_DIV };

struct cg_level_plan {
	enum cg_src_kind src;
	const struct sema_def *src_con; /* the constraint that justifies it */
	int pin_kind;                   /* CG_SRC_PIN: see cg_opt.c */
	const char *fn_a, *fn_c;        /* value functions of the invariants */
	const struct sema_def *partner; /* CG_SRC_DIV from X * Y == c: Y (else NULL) */
	/* Range clipping (part of bound tightening): necessary conditions
	 * `X <= e`, `X >= e` (and < >) with e computed before the loop. */
	int nclip;
	const struct sema_def *clip_con[4];
	const char *clip_fn[4];         /* e's value function */
	const struct ast_expr *clip_e[4];
	int clip_side[4];               /* +1: X <= e + clip_adj, -1: X >= e + clip_adj */
	int clip_adj[4];
	bool any;                       /* some transformation applies here */
	bool filter;                    /* domain filtering: X's values filtered once, before the nest */
};

struct cg {
	const struct sema_program *P;
	const struct cg_options *opt;
	struct diag *diag;
	int errors;
	unsigned helpers;
	const char *divs_array;  /* the state's struct opt_divs, one per divisor-iteration site, or NULL */
	int ndivs;               /* divisor-iteration sites so far */
	const char *src_quoted;  /* the .space name as a C string literal */

	/* Per definition (by id). */
	const char **member;     /* value field in struct space_state */
	const char **iter_member;   /* SEMA_ITER: its iterable */
	const char **yield_member;  /* FORM_CLOSURE: the yields */
	const char **scratch_member;/* the scratch vector array */
	const char **dom_member;    /* SEMA_ITER: its filtered domain (cg_opt.c) */
	int *nscratch;
	int *row;                /* stats row, or -1 */

	/* Interned string literals, in first-use order. */
	const char **strs;
	int nstrs, strs_cap;

	/* The function being generated. */
	const struct sema_def *fn;
	struct sbuf *code;       /* its statements */
	struct sbuf decls;       /* its temporaries */
	int indent;
	int ntemps;
	bool in_body;            /* a def body: locals, steps */
	int loop_depth;
	const char **local_c;    /* C names of the locals */
	unsigned *slot_flow;     /* CG_FOREIGN / CG_OWNED per local */
	int *slot_copy;          /* scratch index for copy-on-write, or -1 */
	const char *brk_flag[64];/* per open body loop: its break flag or NULL */

	unsigned char *ctype;    /* per definition id: enum cg_ctype (cg_type.c) */

	/* Loop transformations (cg_opt.c), planned before run() is written. */
	struct sbuf aux;         /* helper functions, emitted before run() */
	int naux;
	struct cg_level_plan *plan; /* per loop level */
	const char **brk_fn;     /* per constraint id: its monotonicity function, or NULL */
	int *brk_up;             /* +1: its rejections are an up-set in f, -1: down-set */
	struct cg_ivl *ivl;      /* interval pruning's checks (cg_interval.c) */

	struct ptrvec pool;      /* strings made while generating (cg_text.c) */

	/*
	 * The placement being emitted: loop position k's iterator, and each
	 * definition's loop position and level, by id.  A copy of sema's,
	 * which factorization regroups (cg_factor.c); the checked program
	 * itself is never changed.
	 */
	struct sema_def **order;
	int *pos, *lvl;
	/* Expressions the passes build (cg_opt.c's constraints with derived
	 * values inlined) live here, never in the checked program's module. */
	struct ast_module nodes;

	/* Factorization (cg_factor.c): the loops being written are positions
	 * [loop_first, loop_end) of sub-nest `block`, or of the main chain
	 * (block -1). */
	struct cg_factor *fac;   /* NULL: not factorized */
	struct cg_cse *cse;      /* cg_cse.c; NULL: nothing shared */
	int loop_first, loop_end;
	int block;
};


static inline int cg_level(const struct cg *c, const struct sema_def *d)
{
	return c->lvl[d->id];
}

static inline int cg_pos(const struct cg *c, const struct sema_def *d)
{
	return c->pos[d->id];
}

/* One row of the pass table (cg_pass.c).  plan runs before any C is
 * written, state adds the pass's members to struct space_state, release
 * frees what plan made; NULL where the pass has none. */
struct cg_pass {
	const char *name;        /* -fno-NAME */
	int min_level;           /* the lowest -O level it runs at */
	size_t off;              /* its bool in struct cg_options, or (size_t)-1: no switch */
	const char *where;       /* the file that implements it */
	void (*plan)(struct cg *c);
	void (*state)(struct cg *c, struct sbuf *out);
	void (*release)(struct cg *c);
};
const struct cg_pass *cg_pass(enum cg_pass_id p);
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

/* cg_factor.c: plan first (it may change the loop order until release). */
void cg_factor_plan(struct cg *c);
void cg_factor_release(struct cg *c);
/* Whether loop position k belongs to the main chain. */
bool cg_factor_main(const struct cg *c, int k);
/* The sub-nest that loop position k belongs to, or -1 (the main chain). */
int cg_factor_block(const struct cg *c, int k);
/* The level after which sub-nest b is counted (-1: before the loops). */
int cg_factor_checkpoint(const struct cg *c, int b);
void cg_factor_state(struct cg *c, struct sbuf *out);
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
const char *cg_operand(struct cg *c, const struct ast_expr *e);
void cg_body(struct cg *c, const struct sema_def *d);
void cg_collect_strings(struct cg *c, const struct ast_expr *e);
void cg_collect_strings_block(struct cg *c, const struct ast_block *b);

#endif
