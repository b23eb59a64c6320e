/*
 * cg_state.h - the code generator's state: struct cg, which the text
 * helpers (cg_text.c), every pass and the driver share.  Not a public
 * header; cg_int.h adds the passes' interfaces on top of it.
 */
#ifndef SPACEC_CG_STATE_H
#define SPACEC_CG_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "cg_text.h"
#include "cgen.h"
#include "order.h"

/* Flow bits of a value inside a def body (see cg_expr.c). */
enum {
	CG_FOREIGN = 1, /* may be a list owned by another definition */
	CG_OWNED = 2,   /* may be a list built in this body's scratch */
	CG_RANGE = 4,   /* may be a range (iterable; its elements are ints) */
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
	const char *divs_array;  /* the state's struct sprt_opt_divs, one per divisor-iteration site, or NULL */
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
	bool keeping;            /* the value of an assignment in a def body: a list
				    display there may be appended to, so it is built
				    in scratch, never hoisted (cg_expr.c, const_list) */
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
	 * The placement being emitted: loop position k's iterator (the final
	 * loop order, dag/order.c, taken by the first pass), and each
	 * definition's loop position and level, by id.  The generator's
	 * own: the checked program itself is never changed.
	 */
	struct dag_order ord;    /* the order, with its chain and sub-nests (cg_factor.c) */
	struct sema_def **order; /* ord.order */
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

/* free() a member and forget it, so that a state released between two
 * definitions (or two runs) leaves nothing dangling to free twice. */
#define CG_FREE(p) (free(p), (p) = NULL)

#endif
