/*
 * cg_opt.c - constraint-driven loops (-O1 and up).
 *
 * A loop at level k normally visits every value X of its iterable and
 * lets the level's derived values and constraints decide.  Some
 * constraints say more than "reject this X": they say which X can survive
 * at all, or that once one X is rejected every later one is too.  Each
 * transformation below only ever SKIPS values that the plain loop would
 * have rejected; every visited value still runs the whole level, the
 * deciding constraint included, so points are exactly those of -O0 (the
 * statistics count fewer evaluations).
 *
 * Conditions.  A constraint d at level m >= k, enabled at run time (not
 * --disable'd, not a soft one under --no-soft), rejects a point where its
 * expression E is truthy (BEAST) or falsy (require), or where evaluating E
 * fails.  A disjunct D of a rejecting `E = A or D` (a conjunct of a
 * requiring `A and D`) that depends only on X and on values bound before
 * X's loop is a necessary condition for X: if D rejects at X, so does E at
 * every completion of the point.  Derived values placed at level k are
 * substituted by their expressions (they are exact: a failing one skips
 * the point anyway); def-form constraints whose body is one `return`
 * are read as that expression.
 *
 *  1. Equality solving: D is `f(X) == c` kept (or `!=` rejected) with f
 *     one of X, X + e, e + X, X - e, e - X, a*X, X*a.  At loop entry
 *     the invariants a, e, c are computed (ints, else the plain loop) and
 *     the one candidate is solved for exactly (a == 0: every X or none;
 *     a not dividing c, or an overflowing solution: none).  A range gets
 *     an arithmetic membership test, a list is scanned with the int
 *     elements that differ skipped.
 *     Congruence stepping: f is X % m (m > 0) over range(start, stop, 1):
 *     only every m-th value from the first X with X % m == c can survive.
 *  2. Divisor iteration: D is `c % X != 0` rejected (`== 0` kept), or
 *     `X * Y != c` rejected where Y is a deeper range iterator (so X*Y == c
 *     needs X | c when c != 0).  A positive ascending range visits the
 *     divisors of |c| in order (trial division to sqrt|c|, when that is
 *     shorter than the range), anything else is filtered by c % X.
 *     From X * Y == c with c > 0 and every value of Y in [ylo, yhi],
 *     ylo >= 1 (found by interval pruning's arithmetic at -O2), X lies
 *     in [ceil(c / yhi), c / ylo] too: X's range is narrowed to that
 *     first (gemm_beast's A reshape: a thread count of 256 read as
 *     dim_m_a x dim_n_a with dim_n_a <= blk_k never tries dim_m_a below
 *     256 / blk_k).
 *  3. Bound tightening: E itself (at level k) is `f(X) op c`, op one of
 *     < <= > >=, f built from X, invariants, + - * // and unary minus.
 *     At loop entry the signs of f's invariant factors give f's
 *     direction along the range (or "unknown": no change).  When the
 *     rejection set is an up-set along the iteration, a rejection that
 *     came from a computed comparison (not a domain error) ends the loop:
 *     every later X has f at least as large in exact arithmetic, so it is
 *     rejected or overflows (a domain error, rejected too).
 *
 *     Range clipping (with bound tightening): D is `X op e` (< <= > >=),
 *     e invariant: at loop entry an ascending range of X is narrowed to
 *     the side of e that survives, before any source above; where X is
 *     the partner Y of divisor iteration from X' * Y == c and e is known
 *     at X''s loop too, Y's clip narrows X' there (Kernel Tuner's flat
 *     `dim_n_a in 1..1024` with `dim_n_a <= blk_k`).
 *
 *  4. Domain filtering: D is a whole constraint at level k that reads only
 *     X and values computed once (a "unary" constraint), and X's iterable
 *     is computed once too.  Before the nest, X's values are filtered by
 *     every such enabled constraint (a rejection or a domain error drops
 *     the value) into a list that replaces the iterable; the loop visits
 *     only survivors and re-runs the level for each, as always.  The
 *     loop order (dag/order.c) does not favour X for these constraints, since they
 *     prune the same wherever X's loop is.  Iterables of more than 2^20
 *     values are left alone (the list would cost 32 bytes a value).
 *
 * The generated C says what fired: a comment `-O1: equality solving pins
 * 'X' ...` at the loop (tests/diff/run.sh greps for them).
 */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_int.h"

enum { USE_INV = 0, USE_X = 1, USE_DEEP = 2 };

/* ---- substitution: a clean copy in terms of top-level definitions -------------- */

struct subst {
	struct cg *c;
	const struct sema_def *host; /* whose locals are parameters */
	int k;                        /* level whose derived values are inlined */
	int depth;
};

static struct ast_expr *copy_expr(struct subst *s, struct ast_expr *e);

static struct ast_expr *name_of(struct subst *s, struct ast_expr *e, const struct sema_def *d)
{
	if (d->kind == SEMA_DERIVED && cg_level(s->c, d) == s->k && d->form == SEMA_FORM_EXPR && d->expr &&
	    s->depth < 40) {
		s->depth++;
		struct ast_expr *r = copy_expr(s, d->expr);
		s->depth--;
		return r;
	}
	struct ast_expr *n = ast_expr_new(&s->c->nodes, AST_NAME, e->loc);
	n->name = d->name;
	n->ref = (struct sema_def *)d;
	n->local = -1;
	return n;
}

/* NULL when the expression cannot be read outside its body. */
static struct ast_expr *copy_expr(struct subst *s, struct ast_expr *e)
{
	if (!e)
		return NULL;
	if (e->kind == AST_NAME) {
		if (e->local >= 0) {
			const struct sema_def *h = s->host;
			if (!h || e->local >= h->nparams || !h->param_defs || !h->param_defs[e->local])
				return NULL;
			return name_of(s, e, h->param_defs[e->local]);
		}
		if (e->ref)
			return name_of(s, e, e->ref);
		return e; /* a builtin's name */
	}
	if (e->kind == AST_UNDEF || e->kind == AST_ATTR)
		return NULL;
	struct ast_expr *n = ast_expr_copy_node(&s->c->nodes, e);
	struct ast_expr *keep = n;
	n->ref = NULL;
	n->local = -1;
	if (e->nitems) {
		struct ast_expr **items = xcalloc((size_t)e->nitems, sizeof(*items));
		for (int i = 0; i < e->nitems; i++) {
			items[i] = copy_expr(s, e->items[i]);
			if (!items[i]) {
				free(items);
				return NULL;
			}
		}
		ast_expr_set_items(&s->c->nodes, n, items, e->nitems);
		free(items);
	}
	return keep;
}

/* The expression a constraint tests, substituted for level k; or NULL. */
struct ast_expr *cg_opt_constraint_expr(struct cg *c, const struct sema_def *d, int k)
{
	struct subst s = { c, d, k, 0 };
	if (d->form == SEMA_FORM_EXPR)
		return copy_expr(&s, d->expr);
	if (d->form != SEMA_FORM_DEF || !d->stmt)
		return NULL;
	/* A body of docstrings and one `return E`. */
	const struct ast_block *b = &d->stmt->body;
	const struct ast_stmt *ret = NULL;
	for (int i = 0; i < b->n; i++) {
		const struct ast_stmt *st = b->stmts[i];
		if (st->kind == AST_S_EXPR && st->value && st->value->kind == AST_STR && !ret)
			continue;
		if (st->kind == AST_S_PASS && !ret)
			continue;
		if (st->kind == AST_S_RETURN && st->value && !ret) {
			ret = st;
			continue;
		}
		return NULL;
	}
	return ret ? copy_expr(&s, ret->value) : NULL;
}

/* ---- classification --------------------------------------------------------------- */

static int uses(const struct cg *c, const struct ast_expr *e, const struct sema_def *x, int k)
{
	if (!e)
		return USE_INV;
	if (e->kind == AST_NAME) {
		const struct sema_def *d = e->ref;
		if (!d)
			return e->local >= 0 ? USE_DEEP : USE_INV;
		if (d == x)
			return USE_X;
		if (d->kind == SEMA_ITER)
			return cg_pos(c, d) < k ? USE_INV : USE_DEEP;
		return cg_level(c, d) < k ? USE_INV : USE_DEEP;
	}
	int r = USE_INV;
	for (int i = 0; i < e->nitems; i++) {
		int u = uses(c, e->items[i], x, k);
		if (u > r)
			r = u;
	}
	return r;
}

static bool is_x(const struct ast_expr *e, const struct sema_def *x)
{
	return e->kind == AST_NAME && e->ref == x;
}

static bool is_range_iter(const struct sema_def *d)
{
	const struct ast_expr *e = d->expr;
	return d->kind == SEMA_ITER && d->form == SEMA_FORM_EXPR && e && e->kind == AST_CALL &&
	       e->items[0]->kind == AST_NAME && !e->items[0]->ref && e->items[0]->local < 0 &&
	       !strcmp(e->items[0]->name, "range");
}

/* ---- helper functions in the generated file ---------------------------------------- */

static void begin_aux(struct cg *c, const struct sema_def *owner, struct sbuf *code, struct sbuf *saved)
{
	*saved = c->decls;
	memset(&c->decls, 0, sizeof(c->decls));
	c->fn = owner;
	c->code = code;
	c->indent = 1;
	c->ntemps = 0;
}

static void end_aux(struct cg *c, const char *sig, struct sbuf *code, struct sbuf *saved)
{
	sbuf_printf(&c->aux, "%s\n{\n", sig);
	if (c->decls.len)
		sbuf_add(&c->aux, c->decls.s, c->decls.len);
	sbuf_puts(&c->aux, "\t(void)ctx;\n\t(void)st;\n");
	if (code->len)
		sbuf_add(&c->aux, code->s, code->len);
	sbuf_puts(&c->aux, "}\n\n");
	sbuf_release(code);
	sbuf_release(&c->decls);
	c->decls = *saved;
	c->code = NULL;
}

/* A function computing an invariant expression into *out (0, or a domain error). */
static const char *value_fn(struct cg *c, const struct sema_def *owner, const struct ast_expr *e)
{
	const char *name = cg_fmt(c, "opt_value_%d", ++c->naux);
	struct sbuf code = { 0 }, saved;
	begin_aux(c, owner, &code, &saved);
	cg_expr_into(c, e, "(*out)");
	cg_line(c, "return 0;");
	end_aux(c, cg_fmt(c, "static int %s(struct sprt_ctx *ctx, struct space_state *st, sprt_val *out)", name),
		&code, &saved);
	return name;
}

/* C text of f's direction as X grows: -1, 0, 1, or 2 (unknown). */
static const char *mono(struct cg *c, const struct ast_expr *e, const struct sema_def *x, int k)
{
	int u = uses(c, e, x, k);
	if (u == USE_INV)
		return "0";
	if (u == USE_DEEP)
		return "2";
	if (is_x(e, x))
		return "1";
	if (e->kind == AST_UNARY && e->op == AST_OP_NEG)
		return cg_fmt(c, "sprt_mono_neg(%s)", mono(c, e->items[0], x, k));
	if (e->kind != AST_BINARY)
		return "2";
	const struct ast_expr *a = e->items[0], *b = e->items[1];
	int ua = uses(c, a, x, k), ub = uses(c, b, x, k);
	switch (e->op) {
	case AST_OP_ADD:
	case AST_OP_SUB: {
		const char *da = ua == USE_INV ? cg_fmt(c, "sprt_opt_inv(%s)", cg_operand(c, a)) : mono(c, a, x, k);
		const char *db = ub == USE_INV ? cg_fmt(c, "sprt_opt_inv(%s)", cg_operand(c, b)) : mono(c, b, x, k);
		if (e->op == AST_OP_SUB)
			db = cg_fmt(c, "sprt_mono_neg(%s)", db);
		return cg_fmt(c, "sprt_mono_add(%s, %s)", da, db);
	}
	case AST_OP_MUL:
		if (ua == USE_INV)
			return cg_fmt(c, "sprt_mono_mul(%s, sprt_opt_sgn(%s))", mono(c, b, x, k), cg_operand(c, a));
		if (ub == USE_INV)
			return cg_fmt(c, "sprt_mono_mul(%s, sprt_opt_sgn(%s))", mono(c, a, x, k), cg_operand(c, b));
		return "2";
	case AST_OP_FLOORDIV:
		if (ub == USE_INV)
			return cg_fmt(c, "sprt_mono_div(%s, sprt_opt_sgn(%s))", mono(c, a, x, k), cg_operand(c, b));
		return "2";
	default:
		return "2";
	}
}

static bool monotone_shape(const struct cg *c, const struct ast_expr *e, const struct sema_def *x, int k)
{
	int u = uses(c, e, x, k);
	if (u != USE_X)
		return u == USE_INV;
	if (is_x(e, x))
		return true;
	if (e->kind == AST_UNARY && e->op == AST_OP_NEG)
		return monotone_shape(c, e->items[0], x, k);
	if (e->kind != AST_BINARY)
		return false;
	int ua = uses(c, e->items[0], x, k), ub = uses(c, e->items[1], x, k);
	switch (e->op) {
	case AST_OP_ADD:
	case AST_OP_SUB:
		return monotone_shape(c, e->items[0], x, k) && monotone_shape(c, e->items[1], x, k);
	case AST_OP_MUL:
		return (ua == USE_INV && monotone_shape(c, e->items[1], x, k)) ||
		       (ub == USE_INV && monotone_shape(c, e->items[0], x, k));
	case AST_OP_FLOORDIV:
		return ub == USE_INV && monotone_shape(c, e->items[0], x, k);
	default:
		return false;
	}
}

/* ---- matching ------------------------------------------------------------------------ */

/* Bound tightening: d at level k is `f op c` with a monotone f. */
static void plan_break(struct cg *c, const struct sema_def *d, const struct ast_expr *E, const struct sema_def *x,
		       int k)
{
	if (!E || E->kind != AST_COMPARE || E->nitems != 2)
		return;
	enum ast_op op = E->cmp[0];
	if (op != AST_OP_LT && op != AST_OP_LE && op != AST_OP_GT && op != AST_OP_GE)
		return;
	const struct ast_expr *f = E->items[0], *other = E->items[1];
	int uf = uses(c, f, x, k), uo = uses(c, other, x, k);
	if (uf == USE_INV && uo == USE_X) {
		const struct ast_expr *t = f;
		f = other;
		other = t;
		op = op == AST_OP_LT ? AST_OP_GT : op == AST_OP_LE ? AST_OP_GE : op == AST_OP_GT ? AST_OP_LT : AST_OP_LE;
		uf = USE_X;
		uo = USE_INV;
	}
	if (uf != USE_X || uo != USE_INV || !monotone_shape(c, f, x, k))
		return;
	bool true_up = op == AST_OP_GT || op == AST_OP_GE;
	int up = (true_up != d->require) ? 1 : -1;

	const char *name = cg_fmt(c, "opt_mono_%d", ++c->naux);
	struct sbuf code = { 0 }, saved;
	begin_aux(c, d, &code, &saved);
	const char *dir = mono(c, f, x, k);
	cg_line(c, "*dir = %s;", dir);
	cg_line(c, "return 0;");
	end_aux(c, cg_fmt(c, "static int %s(struct sprt_ctx *ctx, struct space_state *st, int *dir)", name), &code,
		&saved);
	c->brk_fn[d->id] = name;
	c->brk_up[d->id] = up;
	c->plan[k].any = true;
}

/* Candidate conditions of d: rejected where truthy (*rej_true) or falsy. */
static int conditions(const struct sema_def *d, const struct ast_expr *E, const struct ast_expr **out, int max)
{
	int n = 0;
	out[n++] = E;
	enum ast_expr_kind split = d->require ? AST_AND : AST_OR;
	if (E->kind == split)
		for (int i = 0; i < E->nitems && n < max; i++)
			out[n++] = E->items[i];
	return n;
}

static bool is_zero(const struct ast_expr *e)
{
	return e->kind == AST_INT && e->ival == 0;
}

/* Equality and divisor sources from one condition. */
static bool plan_source(struct cg *c, const struct sema_def *d, const struct ast_expr *D, const struct sema_def *x,
			int k)
{
	if (D->kind != AST_COMPARE || D->nitems != 2)
		return false;
	enum ast_op op = D->cmp[0];
	/* The surviving X satisfy L == R. */
	bool need_eq = (op == AST_OP_NE && !d->require) || (op == AST_OP_EQ && d->require);
	if (!need_eq)
		return false;
	const struct ast_expr *L = D->items[0], *R = D->items[1];
	int ul = uses(c, L, x, k), ur = uses(c, R, x, k);
	if (ul == USE_INV && ur != USE_INV) {
		const struct ast_expr *t = L;
		L = R;
		R = t;
		int tu = ul;
		ul = ur;
		ur = tu;
	}
	if (ur != USE_INV)
		return false;
	struct cg_level_plan *p = &c->plan[k];
	/* c % X == 0 */
	if (CG_ON(c, CG_PASS_DIVISORS) && is_zero(R) && L->kind == AST_BINARY && L->op == AST_OP_MOD &&
	    is_x(L->items[1], x) && uses(c, L->items[0], x, k) == USE_INV) {
		p->src = CG_SRC_DIV;
		p->src_con = d;
		p->fn_c = value_fn(c, d, L->items[0]);
		return true;
	}
	if (ul != USE_X && !(ul == USE_DEEP && L->kind == AST_BINARY))
		return false;
	/* X * Y == c, Y a deeper range iterator */
	if (CG_ON(c, CG_PASS_DIVISORS) && L->kind == AST_BINARY && L->op == AST_OP_MUL) {
		for (int side = 0; side < 2; side++) {
			const struct ast_expr *a = L->items[side], *b = L->items[1 - side];
			if (is_x(a, x) && b->kind == AST_NAME && b->ref && b->ref->kind == SEMA_ITER &&
			    cg_pos(c, b->ref) > k && is_range_iter(b->ref)) {
				p->src = CG_SRC_DIV;
				p->src_con = d;
				p->partner = b->ref;
				p->fn_c = value_fn(c, d, R);
				return true;
			}
		}
	}
	if (!CG_ON(c, CG_PASS_EQUALITY) || ul != USE_X)
		return false;
	int kind = -1;
	const struct ast_expr *a = NULL;
	if (is_x(L, x)) {
		kind = 0;
	} else if (L->kind == AST_BINARY) {
		const struct ast_expr *l0 = L->items[0], *l1 = L->items[1];
		bool x0 = is_x(l0, x), x1 = is_x(l1, x);
		bool i0 = uses(c, l0, x, k) == USE_INV, i1 = uses(c, l1, x, k) == USE_INV;
		/* sprt_opt_pin's kind of `X op a` and of `a op X` (-1: none). */
		static const struct {
			enum ast_op op;
			int x_left, x_right;
		} pins[] = {
			{ AST_OP_ADD, 1, 1 },
			{ AST_OP_SUB, 2, 3 },
			{ AST_OP_MUL, 4, 4 },
			{ AST_OP_MOD, 5, -1 },
		};
		for (size_t i = 0; i < sizeof pins / sizeof *pins; i++) {
			if (pins[i].op != L->op)
				continue;
			if (x0 && i1)
				kind = pins[i].x_left, a = l1;
			else if (x1 && i0 && pins[i].x_right >= 0)
				kind = pins[i].x_right, a = l0;
		}
	}
	if (kind < 0)
		return false;
	p->src = CG_SRC_PIN;
	p->src_con = d;
	p->pin_kind = kind;
	p->fn_a = a ? value_fn(c, d, a) : NULL;
	p->fn_c = value_fn(c, d, R);
	return true;
}

/*
 * Range clipping: a condition D (a rejecting disjunct or a kept conjunct)
 * of the form `X op e`, e computed before X's loop: the survivors lie on
 * one side of e, so X's ascending range is narrowed to it at loop entry,
 * before any source (Kernel Tuner writes BEAST's dependent ranges as a
 * flat range and `dim_m_a <= blk_m // dim_vec`: clipped, divisor
 * iteration walks only the divisors up to the bound).
 */
static void plan_clip(struct cg *c, const struct sema_def *d, const struct ast_expr *D, const struct sema_def *x,
		      int k)
{
	struct cg_level_plan *p = &c->plan[k];
	if (p->nclip == 4 || D->kind != AST_COMPARE || D->nitems != 2)
		return;
	enum ast_op op = D->cmp[0];
	if (op != AST_OP_LT && op != AST_OP_LE && op != AST_OP_GT && op != AST_OP_GE)
		return;
	const struct ast_expr *e = D->items[1];
	if (!is_x(D->items[0], x)) {
		if (!is_x(D->items[1], x))
			return;
		e = D->items[0];
		op = op == AST_OP_LT ? AST_OP_GT : op == AST_OP_LE ? AST_OP_GE : op == AST_OP_GT ? AST_OP_LT : AST_OP_LE;
	}
	if (uses(c, e, x, k) != USE_INV)
		return;
	/* What survives: X op e where kept, its negation where rejected. */
	if (!d->require)
		op = op == AST_OP_LT ? AST_OP_GE : op == AST_OP_LE ? AST_OP_GT : op == AST_OP_GT ? AST_OP_LE : AST_OP_LT;
	int i = p->nclip++;
	p->clip_con[i] = d;
	p->clip_fn[i] = value_fn(c, d, e);
	p->clip_e[i] = e;
	p->clip_side[i] = op == AST_OP_LT || op == AST_OP_LE ? 1 : -1;
	p->clip_adj[i] = op == AST_OP_LT ? -1 : op == AST_OP_GT ? 1 : 0;
	p->any = true;
}

/* Whether d rejects values of x by itself (domain filtering). */
static bool unary_on(const struct cg *c, const struct sema_def *d, const struct sema_def *x, int k)
{
	if (d->kind != SEMA_CONSTRAINT || cg_level(c, d) != k)
		return false;
	for (int i = 0; i < d->ndeps; i++)
		if (d->deps[i] != x && (d->deps[i]->kind == SEMA_ITER || cg_level(c, d->deps[i]) >= 0))
			return false;
	return true;
}

void cg_opt_plan(struct cg *c)
{
	const struct sema_program *P = c->P;
	size_t n = (size_t)P->ndefs + 1;
	c->plan = xcalloc((size_t)P->niters + 1, sizeof(*c->plan));
	c->brk_fn = xcalloc(n, sizeof(*c->brk_fn));
	c->brk_up = xcalloc(n, sizeof(*c->brk_up));
	for (int k = 0; k < P->niters; k++) { /* each transformation asks CG_ON: none at -O0 */
		const struct sema_def *x = c->order[k];
		/* Sources: the first constraint (in evaluation order) that gives
		 * one; clips: every condition of the right shape. */
		bool sources = CG_ON(c, CG_PASS_EQUALITY) || CG_ON(c, CG_PASS_DIVISORS);
		bool clips = CG_ON(c, CG_PASS_BOUNDS) && is_range_iter(x);
		for (int i = 0; i < P->ndefs && (sources || clips); i++) {
			const struct sema_def *d = P->defs[i];
			if (d->kind != SEMA_CONSTRAINT || cg_level(c, d) < k)
				continue;
			struct ast_expr *E = cg_opt_constraint_expr(c, d, k);
			if (!E)
				continue;
			const struct ast_expr *conds[16];
			int nc = conditions(d, E, conds, 16);
			for (int j = 0; j < nc && sources && c->plan[k].src == CG_SRC_PLAIN; j++)
				if (plan_source(c, d, conds[j], x, k))
					break;
			for (int j = 0; j < nc && clips; j++)
				plan_clip(c, d, conds[j], x, k);
		}
		if (c->plan[k].src != CG_SRC_PLAIN)
			c->plan[k].any = true;
		for (int i = 0; i < P->ndefs && CG_ON(c, CG_PASS_BOUNDS); i++) {
			const struct sema_def *d = P->defs[i];
			if (d->kind != SEMA_CONSTRAINT || cg_level(c, d) != k)
				continue;
			plan_break(c, d, cg_opt_constraint_expr(c, d, k), x, k);
		}
		if (!CG_ON(c, CG_PASS_DOMAIN_FILTERING) || c->plan[k].any || !cg_hoisted(c, x))
			continue;
		for (int i = 0; i < P->ndefs; i++)
			c->plan[k].filter |= unary_on(c, P->defs[i], x, k);
	}
}

void cg_opt_state(struct cg *c, struct sbuf *out)
{
	if (c->divs_array) {
		sbuf_puts(out, "\t/* Divisor iteration: each site's divisors of its last c */\n");
		sbuf_printf(out, "\tstruct sprt_opt_divs %s[%d];\n", c->divs_array, c->ndivs);
	}
}

void cg_opt_release(struct cg *c)
{
	sbuf_release(&c->aux);
	CG_FREE(c->plan);
	CG_FREE(c->brk_fn);
	CG_FREE(c->brk_up);
}

/* ---- the loop ----------------------------------------------------------------------------- */

const char *cg_opt_enabled_test(struct cg *c, const struct sema_def *d)
{
	int r = c->row[d->id];
	if (d->cclass == AST_SOFT)
		return cg_fmt(c, "!ctx->no_soft && (!ctx->disabled || !ctx->disabled[%d])", r);
	return cg_fmt(c, "!ctx->disabled || !ctx->disabled[%d]", r);
}

static const char *level_word(struct cg *c)
{
	return c->opt->opt_level >= 2 ? "-O2" : "-O1";
}

/*
 * The partner Y's clips that X's loop can already compute narrow Y's
 * values for divisor iteration too: with Y <= e (Kernel Tuner's
 * `dim_n_a <= blk_k`), X * Y == c needs X >= c / e.
 */
static void partner_clips(struct cg *c, int k)
{
	const struct sema_def *x = c->order[k], *y = c->plan[k].partner;
	const struct cg_level_plan *q = &c->plan[cg_pos(c, y)];
	for (int i = 0; i < q->nclip; i++) {
		if (uses(c, q->clip_e[i], x, k) != USE_INV)
			continue;
		cg_line(c, "/* %s: %s clips '%s' here too */", level_word(c), q->clip_con[i]->cname, y->cname);
		cg_line(c, "if (wlo <= whi && (%s)) {", cg_opt_enabled_test(c, q->clip_con[i]));
		c->indent++;
		cg_line(c, "sprt_val e_;");
		cg_line(c, "int64_t b_;");
		cg_line(c, "if (!%s(ctx, st, &e_) && e_.kind == SPRT_INT && !SPRT_ADD_OVERFLOW(e_.u.i, (int64_t)%d, &b_)) {",
			q->clip_fn[i], q->clip_adj[i]);
		cg_line(c, q->clip_side[i] > 0 ? "\twhi = b_ < whi ? b_ : whi;" : "\twlo = b_ > wlo ? b_ : wlo;");
		cg_line(c, "}");
		c->indent--;
		cg_line(c, "}");
	}
}

void cg_opt_loop_open(struct cg *c, int k)
{
	const struct sema_program *P = c->P;
	const struct sema_def *x = c->order[k];
	const struct cg_level_plan *p = &c->plan[k];
	const char *m = c->member[x->id], *it = c->iter_member[x->id];
	cg_line(c, "struct sprt_opt_it o_%s;", m);
	cg_line(c, "sprt_opt_plain(&o_%s, st->%s);", m, it);
	for (int i = 0; i < p->nclip; i++) {
		const struct sema_def *d = p->clip_con[i];
		cg_line(c, "/* %s: bound tightening: %s clips the range of '%s' */", level_word(c), d->cname, x->cname);
		cg_line(c, "if (%s) {", cg_opt_enabled_test(c, d));
		c->indent++;
		cg_line(c, "sprt_val e_;");
		cg_line(c, "if (!%s(ctx, st, &e_))", p->clip_fn[i]);
		cg_line(c, "	sprt_opt_clip(&o_%s, e_, %d, %d);", m, p->clip_side[i], p->clip_adj[i]);
		c->indent--;
		cg_line(c, "}");
	}
	if (p->src != CG_SRC_PLAIN) {
		const struct sema_def *d = p->src_con;
		if (p->src == CG_SRC_PIN && p->pin_kind == 5)
			cg_line(c, "/* %s: congruence stepping over '%s' (from %s) */", level_word(c), x->cname, d->cname);
		else if (p->src == CG_SRC_PIN)
			cg_line(c, "/* %s: equality solving pins '%s' (from %s) */", level_word(c), x->cname, d->cname);
		else
			cg_line(c, "/* %s: divisor iteration over '%s' (from %s%s) */", level_word(c), x->cname,
				d->cname, p->partner ? ", a product" : "");
		cg_line(c, "if (%s) {", cg_opt_enabled_test(c, d));
		c->indent++;
		cg_line(c, "sprt_val a_ = sprt_int(0), c_;");
		const char *open = p->src == CG_SRC_PIN ? "" : " {";
		if (p->fn_a)
			cg_line(c, "if (!%s(ctx, st, &a_) && !%s(ctx, st, &c_))%s", p->fn_a, p->fn_c, open);
		else
			cg_line(c, "if (!%s(ctx, st, &c_))%s", p->fn_c, open);
		if (p->src == CG_SRC_PIN) {
			cg_line(c, "\tsprt_opt_pin(&o_%s, %d, a_, c_);", m, p->pin_kind);
		} else {
			if (!c->divs_array)
				c->divs_array = cg_internal_prefix(c, "opt_divs");
			c->indent++;
			if (p->partner) {
				cg_line(c, "int64_t wlo = 1, whi = 0; /* Y's values: unknown */");
				cg_interval_partner(c, k);
				partner_clips(c, k);
				cg_line(c, "sprt_opt_partner(&o_%s, c_, wlo, whi);", m);
			}
			cg_line(c, "sprt_opt_divisors(&o_%s, c_, &st->%s[%d]);", m, c->divs_array, c->ndivs++);
			c->indent--;
			cg_line(c, "}");
		}
		cg_line(c, "(void)a_;");
		c->indent--;
		cg_line(c, "}");
	}
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		if (d->kind != SEMA_CONSTRAINT || cg_level(c, d) != k || !c->brk_fn[d->id])
			continue;
		cg_line(c, "/* %s: bound tightening: a rejection by %s ends the loop over '%s' */", level_word(c),
			d->cname, x->cname);
		cg_line(c, "int dir_%s = 2;", c->member[d->id]);
		cg_line(c, "const bool brk_%s = st->%s.kind == SPRT_RANGE && !%s(ctx, st, &dir_%s) && "
			   "sprt_opt_breaks(dir_%s, %d, st->%s.r_step);",
			c->member[d->id], it, c->brk_fn[d->id], c->member[d->id], c->member[d->id],
			c->brk_up[d->id], it);
	}
}

const char *cg_opt_break(struct cg *c, const struct sema_def *d)
{
	if (!c->brk_fn || !c->brk_fn[d->id])
		return NULL;
	return cg_fmt(c, "brk_%s", c->member[d->id]);
}

void cg_opt_filter(struct cg *c)
{
	const struct sema_program *P = c->P;
	for (int k = 0; k < P->niters; k++) {
		if (!c->plan[k].filter)
			continue;
		const struct sema_def *x = c->order[k];
		const char *m = c->member[x->id], *it = c->iter_member[x->id], *dom = c->dom_member[x->id];
		bool typed = c->ctype[x->id] != CG_T_VAL;
		cg_line(c, "/* %s: domain filtering: the values of '%s' its unary constraints keep, once */",
			level_word(c), x->cname);
		cg_line(c, "if (!once_%s && sprt_loop_len(st->%s) <= UINT64_C(1048576)) {", m, it);
		c->indent++;
		cg_line(c, "sprt_vec_clear(&st->%s);", dom);
		cg_line(c, "const uint64_t n_ = sprt_loop_len(st->%s);", it);
		cg_line(c, "for (uint64_t i_ = 0; i_ < n_; i_++) {");
		c->indent++;
		cg_line(c, "const sprt_val x_ = sprt_loop_at(st->%s, i_);", it);
		cg_line(c, "st->%s = x_%s;", m, typed ? ".u.i" : "");
		/* The unary constraints may read subexpressions shared at this
		 * level: each value is a new binding, as in the loop itself. */
		cg_cse_reset(c, k);
		for (int i = 0; i < P->ndefs; i++) {
			const struct sema_def *d = P->defs[i];
			if (!unary_on(c, d, x, k))
				continue;
			bool tc = c->ctype[d->id] != CG_T_VAL;
			cg_line(c, "if ((%s) && (def_%s(ctx, st, &%s) || %s%s))", cg_opt_enabled_test(c, d), c->member[d->id],
				tc ? "iv" : "v", d->require ? "!" : "", tc ? "iv" : "sprt_is_true(ctx, v)");
			cg_line(c, "\tcontinue; /* %s rejects it */", d->cname);
		}
		cg_line(c, "if (sprt_vec_push(&st->%s, x_))", dom);
		cg_line(c, "\treturn -SPRT_ENOMEM;");
		c->indent--;
		cg_line(c, "}");
		cg_line(c, "st->%s = sprt_vecval(&st->%s);", it, dom);
		/* ...and the last value's subexpressions are no one's. */
		cg_cse_reset(c, k);
		c->indent--;
		cg_line(c, "}");
		sbuf_puts(c->code, "\n");
	}
}
