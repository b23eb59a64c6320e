/*
 * cg_interval.c - interval pruning (-O2; -fno-interval-pruning).
 *
 * A constraint is checked where its last iterator is bound; a constraint
 * that names many iterators (`16 <= u0 * u1 * ... * u13 <= 4096`) is
 * thus checked only deep in the nest, after every outer loop has already
 * multiplied the work.  Interval pruning checks it earlier too: at an
 * outer level k, where some of its inputs are bound, the values of the
 * unbound ones are bounded by intervals and the constraint is evaluated
 * in interval arithmetic.  When no completion of the prefix can make it
 * accept (a `require` that is false, a rejection that is true, for every
 * value of the unbound inputs), the subtree under the current value of
 * loop k is skipped.
 *
 * Soundness.  Every interval is a claim "each evaluation that succeeds
 * gives an int in [lo, hi]", and every truth a claim "each evaluation
 * that succeeds has this truthiness" (0 or 1; 2 is "don't know").  An
 * evaluation that fails is a domain error, which rejects the point as
 * well, so only successful evaluations need bounds.  The exact result of
 * an int operation lies within the interval computed from its operands'
 * intervals; the real evaluation either gives it or overflows (a domain
 * error).  A bound that would overflow int64, an operand that is not an
 * int at run time, or an empty range stops the evaluation of that
 * comparison with "don't know".  Leaves are:
 *   - literal ints;
 *   - values bound at level <= k (iterators of loops 0..k, definitions of
 *     levels <= k): their current value, if it is an int;
 *   - derived values of deeper levels (expression form): their
 *     expression, bounded in turn (a derived value that fails skips the
 *     point anyway);
 *   - iterators of deeper loops: every value a loop visits comes from its
 *     iterable (the other -O transformations only visit fewer), so an
 *     iterable computed once (before the nest, after domain filtering)
 *     gives its least and greatest element, found once and kept in the
 *     state (not in run()'s locals, so that any function of the nest can
 *     read them); a range() or a list display gives bounds from its
 *     arguments' intervals.
 * Anything else (floats, strings, `/`, `**`, `in`, calls other than
 * min/max/abs) is "don't know", which never prunes.  The check at level
 * k runs after the level's own checks, before the thread/shard task
 * hook, so all walkers skip the same subtrees and number the same tasks.
 *
 * Statistics.  A pruned subtree is not visited: the candidates, and the
 * evaluations, rejections and domain errors of the definitions below
 * loop k, count only what was run, as with the other transformations
 * (tests/diff compares statistics with the interpreter's with every
 * transformation off).  Points and exit status are unchanged: a skipped
 * subtree holds only points the constraint rejects, and nothing in a
 * subtree can fail the whole run.
 *
 * Points.  An operation whose operands are both single values (bound
 * values, literals, and operations on them) is the int operation itself
 * (ivl_mul_point ...): the same value and failures, no corners.  Inside
 * a sub-nest most operands are bound, and the corners were most of the
 * checks' time.
 *
 * Tails.  The same check is also generated with loop k's iterator read
 * as every value from the current one to the end of its range ([x,
 * stop - 1] ascending, [stop + 1, x] descending) and level k's derived
 * values read through their expressions.  Where that says "rejects
 * every completion", it says so for every later value of the loop, so
 * the loop ends (`break`; -O1's other sources visit a range's values in
 * its order, and only fewer of them).  Its box holds x's, so it can only
 * reject where the check at x does: it is asked only after that check
 * pruned x (once per loop where the constraint is monotone along it,
 * where asking first and then x alone doubled the checks' cost).  Only
 * shapes with an order comparison get a
 * tail: a size growing past a limit (gemm_beast's registers per block
 * along blk_n: 88% of blk_n's values were pruned one by one, now the
 * loop ends at the first).  At d's own level the tail is asked only
 * after d has rejected the current value: interval bound tightening,
 * which ends loops -O1's sign rules cannot prove monotone (min(), a
 * quotient of the iterator: low_occupancy_shmem along blk_k).
 *
 * Partners.  For divisor iteration from X * Y == c (cg_opt.c), the
 * bounds of Y's values, from what is bound before X's loop, narrow X's
 * range at run time (opt_partner).
 *
 * A check of constraint d is generated at each level k below d's own
 * where some leaf it reads is bound at exactly k (elsewhere it would
 * repeat the previous level's answer), and only where its static shape
 * can decide at all.  Two shapes that cost more than they prune are left
 * out: divisibility tests (`x % y == 0`) and a check just outside a loop
 * that equality solving or divisor iteration draws from the same
 * constraint.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_int.h"

/* Deepest nesting of inlined derived values and iterables. */
#define IVL_MAX_DEPTH 16

/* What an entry of the plan is. */
enum ivl_kind {
	IVL_PRUNE,   /* a check at a level above d's: skip (and tail: end) the loop */
	IVL_OWN,     /* at d's own level: only the tail, asked after d rejects */
	IVL_PARTNER, /* not a check: the bounds of loop k's product partner */
};

struct ivl_check {
	enum ivl_kind kind;
	const struct sema_def *d; /* the constraint (NULL for IVL_PARTNER) */
	int k;                    /* the level it is checked at */
	struct sbuf text;         /* the check's statements, one per line */
	int truth;                /* its truth variable */
	int tail_truth;           /* ivl_tail_<tail_truth>(st): the same over loop k's values from the
	                             current one on (IV_NONE: no such check) */
};

struct cg_ivl {
	struct ivl_check *checks;
	int n, cap;
	bool *bounds;        /* per definition id: a hoisted iterator whose bounds are read */
	const char *array;   /* the state member: lo, hi, ok per loop position */
	const char *columns; /* the state member of every iterator's lo, hi (NULL: none) */
	bool *bounded;       /* per iterator (definition order): columns has code for it */
	int ntails;          /* ivl_tail_N functions written to c->aux */
};

/* The generator of one check. */
struct ivgen {
	struct cg *c;
	int k;
	struct sbuf *out;
	int indent;
	int ntmp;
	int depth;
	int top;       /* deepest level of a bound value read (-1: none) */
	int deeper;    /* deeper loops' value ranges read so far */
	bool *bounds;  /* hoisted iterators read, to record on success */
	bool columns;  /* cg_interval_columns: in run(), before the nest */
	int *column;   /* columns: per definition id, 1 + an iterator's index
	                  once bounded (0: not yet, -1: it cannot be) */
	bool *point;   /* per temporary: lo == hi by construction */
	int npoint;
	const struct sema_def *tail; /* loop k's iterator, read as every value from
	                                the current one to the end of its range */
	bool ordered;  /* an order comparison (< <= > >=) was bounded */
};

enum { IV_NONE = -1 }; /* a result the shape cannot bound */

static void line(struct ivgen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(struct ivgen *g, const char *fmt, ...)
{
	for (int i = 0; i < g->indent; i++)
		sbuf_puts(g->out, "\t");
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(g->out, fmt, ap);
	va_end(ap);
	sbuf_puts(g->out, "\n");
}

static bool builtin_call(const struct ast_expr *e, const char *name)
{
	const struct ast_expr *f = e->items[0];
	return f->kind == AST_NAME && !f->ref && f->local < 0 && !strcmp(f->name, name);
}

static bool bound_at(const struct ivgen *g, const struct sema_def *d)
{
	const int lvl = d->kind == SEMA_ITER ? cg_pos(g->c, d) : cg_level(g->c, d);
	/* a tail check reads level k's derived values by their expressions */
	return g->tail ? lvl < g->k : lvl <= g->k;
}

static int num(struct ivgen *g, const struct ast_expr *e);

/* A numeric temporary: lo<n>, hi<n>, declared; not known to be a point. */
static int fresh(struct ivgen *g)
{
	int n = ++g->ntmp;
	line(g, "int64_t lo%d, hi%d;", n, n);
	if (n >= g->npoint) {
		int cap = 2 * n + 16;
		g->point = xrealloc(g->point, (size_t)cap * sizeof(bool));
		memset(g->point + g->npoint, 0, (size_t)(cap - g->npoint) * sizeof(bool));
		g->npoint = cap;
	}
	g->point[n] = false;
	return n;
}

/* Whether temporary n holds one value (a literal, a bound value, or an
 * operation on such): its operations then need no interval arithmetic. */
static bool is_point(const struct ivgen *g, int n)
{
	return n > 0 && n < g->npoint && g->point[n];
}

/* A fresh temporary that holds one value. */
static int fresh_point(struct ivgen *g)
{
	int n = fresh(g);
	g->point[n] = true;
	return n;
}

static void int_literal(struct sbuf *b, int64_t v)
{
	if (v == INT64_MIN)
		sbuf_puts(b, "INT64_MIN");
	else
		sbuf_printf(b, "INT64_C(%" PRId64 ")", v);
}

/* Most items of a list display whose hull the generated code computes. */
#define IVL_MAX_LIST_ITEMS 64

/* lo<n> = lo; hi<n> = hi; */
static void line_bounds(struct ivgen *g, int n, int64_t lo, int64_t hi)
{
	for (int i = 0; i < g->indent; i++)
		sbuf_puts(g->out, "\t");
	sbuf_printf(g->out, "lo%d = ", n);
	int_literal(g->out, lo);
	sbuf_printf(g->out, ", hi%d = ", n);
	int_literal(g->out, hi);
	sbuf_puts(g->out, ";\n");
	g->point[n] = lo == hi;
}

/*
 * The items of e from `first` on, folded into the first one's interval
 * with sprt_ivl_<op> (hull, min or max); IV_NONE where one has none.  The
 * result is a point where `points_stay` and every item is one.
 */
static int num_fold(struct ivgen *g, const struct ast_expr *e, int first, const char *op, bool points_stay)
{
	int acc = num(g, e->items[first]);
	for (int i = first + 1; i < e->nitems && acc != IV_NONE; i++) {
		int b = num(g, e->items[i]);
		if (b == IV_NONE)
			return IV_NONE;
		line(g, "sprt_ivl_%s(&lo%d, &hi%d, lo%d, hi%d);", op, acc, acc, b, b);
		g->point[acc] = points_stay && is_point(g, acc) && is_point(g, b);
	}
	return acc;
}

/* A value bound at level <= k. */
static int num_bound(struct ivgen *g, const struct sema_def *d)
{
	const char *m = g->c->member[d->id];
	int lvl = d->kind == SEMA_ITER ? cg_pos(g->c, d) : cg_level(g->c, d);
	switch (g->c->ctype[d->id]) {
	case CG_T_INT: {
		int n = fresh_point(g);
		line(g, "lo%d = hi%d = st->%s;", n, n, m);
		g->top = lvl > g->top ? lvl : g->top;
		return n;
	}
	case CG_T_BOOL:
		return IV_NONE;
	default:
		break;
	}
	if (d->kind == SEMA_CONSTRAINT)
		return IV_NONE;
	int n = fresh_point(g);
	line(g, "if (st->%s.kind != SPRT_INT)", m);
	line(g, "\tbreak;");
	line(g, "lo%d = hi%d = st->%s.u.i;", n, n, m);
	g->top = lvl > g->top ? lvl : g->top;
	return n;
}

/* The elements of an iterable expression: a list display or a range();
 * with scalar_ok, also a single int (a def-form iterator's return). */
static int num_iterable(struct ivgen *g, const struct ast_expr *e, bool scalar_ok)
{
	if (e->kind == AST_COND) {
		/* `[0] if dim_vec == 1 else range(0, 2)`: the values come from
		 * one branch or the other, so the hull of both (the condition is
		 * not looked at).  Without it such an iterator had no column
		 * bounds and the binary sink fell back to buffering every row
		 * (gemm_beast's plain-expression form: 4x slower to list). */
		int a = num_iterable(g, e->items[1], scalar_ok);
		if (a == IV_NONE)
			return IV_NONE;
		int b = num_iterable(g, e->items[2], scalar_ok);
		if (b == IV_NONE)
			return IV_NONE;
		line(g, "sprt_ivl_hull(&lo%d, &hi%d, lo%d, hi%d);", a, a, b, b);
		g->point[a] = false;
		return a;
	}
	if ((e->kind == AST_LIST || (scalar_ok && e->kind == AST_TUPLE)) && e->nitems > 0) {
		/* Literal ints: the hull is known here.  Other items cost two
		 * locals each in run(), which cc took minutes to compile for
		 * 10,000 of them: a long list gets no bounds. */
		bool literal = true;
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (int i = 0; i < e->nitems && literal; i++) {
			literal = e->items[i]->kind == AST_INT;
			lo = literal && e->items[i]->ival < lo ? e->items[i]->ival : lo;
			hi = literal && e->items[i]->ival > hi ? e->items[i]->ival : hi;
		}
		if (literal) {
			int n = fresh(g);
			line_bounds(g, n, lo, hi);
			return n;
		}
		if (e->nitems > IVL_MAX_LIST_ITEMS)
			return IV_NONE;
		return num_fold(g, e, 0, "hull", false);
	}
	if (e->kind != AST_CALL || !builtin_call(e, "range") || e->nitems < 2 || e->nitems > 4)
		return scalar_ok && e->kind != AST_LIST && e->kind != AST_TUPLE ? num(g, e) : IV_NONE;
	int args[3] = { 0, 0, 0 };
	for (int i = 1; i < e->nitems; i++)
		if ((args[i - 1] = num(g, e->items[i])) == IV_NONE)
			return IV_NONE;
	int nargs = e->nitems - 1;
	/* range(b) reads as range(0, b) */
	int a = nargs == 1 ? 0 : args[0], b = nargs == 1 ? args[0] : args[1], s = nargs == 3 ? args[2] : 0;
	int n = fresh(g);
	const char *al = a ? cg_fmt(g->c, "lo%d", a) : "0", *ah = a ? cg_fmt(g->c, "hi%d", a) : "0";
	const char *sl = s ? cg_fmt(g->c, "lo%d", s) : "1", *sh = s ? cg_fmt(g->c, "hi%d", s) : "1";
	line(g, "if (sprt_ivl_range(%s, %s, lo%d, hi%d, %s, %s, &lo%d, &hi%d))", al, ah, b, b, sl, sh, n, n);
	line(g, "\tbreak;");
	return n;
}

/*
 * The hull of what every `return` of a def-form iterator's body gives
 * (acc: the hull so far, 0 before the first); IV_NONE where one cannot
 * be bounded, returns nothing, or a yield or nested def is met.
 */
static int num_returns(struct ivgen *g, const struct ast_block *b, int acc)
{
	for (int i = 0; i < b->n && acc != IV_NONE; i++) {
		const struct ast_stmt *s = b->stmts[i];
		if (s->kind == AST_S_RETURN) {
			int r = s->value ? num_iterable(g, s->value, true) : IV_NONE;
			if (r == IV_NONE)
				return IV_NONE;
			if (acc) {
				line(g, "sprt_ivl_hull(&lo%d, &hi%d, lo%d, hi%d);", acc, acc, r, r);
				g->point[acc] = false;
			} else
				acc = r;
		} else if (s->kind == AST_S_YIELD || s->kind == AST_S_DEF) {
			return IV_NONE;
		} else {
			acc = num_returns(g, &s->body, acc);
			if (acc != IV_NONE)
				acc = num_returns(g, &s->orelse, acc);
		}
	}
	return acc;
}

/* The values a deeper loop may visit. */
static int num_iter(struct ivgen *g, const struct sema_def *x)
{
	g->deeper++;
	if (g->columns && g->column[x->id] < 0)
		return IV_NONE;
	if (g->columns && g->column[x->id] > 0) {
		/* an iterator bounded before, read back */
		int n = fresh(g), j = g->column[x->id] - 1;
		line(g, "if (!ok[%d])", j);
		line(g, "\tbreak;");
		line(g, "lo%d = cb[%d], hi%d = cb[%d];", n, 2 * j, n, 2 * j + 1);
		return n;
	}
	if (g->columns && cg_hoisted(g->c, x)) {
		/* computed just before: its own least and greatest element */
		int n = fresh(g);
		line(g, "if (once_%s || !sprt_ivl_iterable_bounds(st->%s, &lo%d, &hi%d))", g->c->member[x->id],
		     g->c->iter_member[x->id], n, n);
		line(g, "\tbreak;");
		return n;
	}
	if (g->columns && x->form == SEMA_FORM_DEF && x->stmt && !x->stmt->has_yield) {
		int n = num_returns(g, &x->stmt->body, 0);
		return n ? n : IV_NONE;
	}
	if (cg_hoisted(g->c, x)) {
		/* lo, hi, ok of the loop at position p are at 3p, 3p + 1, 3p + 2 */
		const char *a = g->c->ivl->array;
		int n = fresh(g), p = 3 * cg_pos(g->c, x);
		line(g, "if (!st->%s[%d]) /* the values of '%s' */", a, p + 2, x->cname);
		line(g, "\tbreak;");
		line(g, "lo%d = st->%s[%d], hi%d = st->%s[%d];", n, a, p, n, a, p + 1);
		g->bounds[x->id] = true;
		return n;
	}
	if (x->form != SEMA_FORM_EXPR || !x->expr)
		return IV_NONE;
	return num_iterable(g, x->expr, false);
}

/*
 * Loop k's iterator in a tail check: its current value up to the end of
 * its range (a range's later values all lie there; the loop's other
 * sources, divisors and pins, visit a range's values in its order).
 */
static int num_tail(struct ivgen *g, const struct sema_def *x)
{
	g->deeper++; /* not one value: a divisibility test cannot decide */
	const char *it = g->c->iter_member[x->id];
	line(g, "if (st->%s.kind != SPRT_RANGE || st->%s.r_step == 0)", it, it);
	line(g, "\tbreak;");
	int n = num_bound(g, x);
	if (n == IV_NONE)
		return IV_NONE;
	g->point[n] = false;
	line(g, "if (st->%s.r_step > 0)", it);
	line(g, "\thi%d = st->%s.r_stop - 1;", n, it);
	line(g, "else");
	line(g, "\tlo%d = st->%s.r_stop + 1;", n, it);
	return n;
}

static int num_name(struct ivgen *g, const struct ast_expr *e)
{
	const struct sema_def *d = e->ref;
	if (!d || e->local >= 0)
		return IV_NONE;
	if (g->tail == d)
		return num_tail(g, d);
	if (bound_at(g, d))
		return num_bound(g, d);
	if (g->depth >= IVL_MAX_DEPTH)
		return IV_NONE;
	g->depth++;
	int r = IV_NONE;
	if (d->kind == SEMA_ITER)
		r = num_iter(g, d);
	else if (d->kind == SEMA_DERIVED && d->form == SEMA_FORM_EXPR && d->expr)
		r = num(g, d->expr);
	g->depth--;
	return r;
}

/*
 * Two operands combined by the ivl_ function `fn` (nonzero: don't know),
 * or, where both are points, by its _point form: the int operation
 * itself, with the same value and the same failures (overflow, a zero
 * divisor) but no corners (most operands of a sub-nest's checks are
 * bound).
 */
static int num_call2(struct ivgen *g, const char *fn, const struct ast_expr *x, const struct ast_expr *y)
{
	int a = num(g, x);
	if (a == IV_NONE)
		return IV_NONE;
	int b = num(g, y);
	if (b == IV_NONE)
		return IV_NONE;
	const bool point = is_point(g, a) && is_point(g, b);
	int n = point ? fresh_point(g) : fresh(g);
	line(g, "if (%s%s(lo%d, hi%d, lo%d, hi%d, &lo%d, &hi%d))", fn, point ? "_point" : "", a, a, b, b, n, n);
	line(g, "\tbreak;");
	return n;
}

/* The interval of an int expression, or IV_NONE. */
static int num(struct ivgen *g, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_INT: {
		int n = fresh_point(g);
		struct sbuf v = { 0 };
		int_literal(&v, e->ival);
		line(g, "lo%d = hi%d = %s;", n, n, v.s);
		sbuf_release(&v);
		return n;
	}
	case AST_NAME:
		return num_name(g, e);
	case AST_UNARY: {
		if (e->op != AST_OP_NEG && e->op != AST_OP_POS)
			return IV_NONE;
		int a = num(g, e->items[0]);
		if (a == IV_NONE || e->op == AST_OP_POS)
			return a;
		int n = is_point(g, a) ? fresh_point(g) : fresh(g);
		line(g, "if (sprt_ivl_neg(lo%d, hi%d, &lo%d, &hi%d))", a, a, n, n);
		line(g, "\tbreak;");
		return n;
	}
	case AST_BINARY: {
		static const struct { enum ast_op op; const char *fn; } fns[] = {
			{ AST_OP_ADD, "sprt_ivl_add" }, { AST_OP_SUB, "sprt_ivl_sub" }, { AST_OP_MUL, "sprt_ivl_mul" },
			{ AST_OP_FLOORDIV, "sprt_ivl_floordiv" }, { AST_OP_MOD, "sprt_ivl_mod" },
		};
		for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			if (fns[i].op == e->op)
				return num_call2(g, fns[i].fn, e->items[0], e->items[1]);
		return IV_NONE;
	}
	case AST_COND: {
		/* either branch: the condition is not looked at */
		int a = num(g, e->items[1]);
		if (a == IV_NONE)
			return IV_NONE;
		int b = num(g, e->items[2]);
		if (b == IV_NONE)
			return IV_NONE;
		line(g, "sprt_ivl_hull(&lo%d, &hi%d, lo%d, hi%d);", a, a, b, b);
		g->point[a] = false;
		return a;
	}
	case AST_CALL: {
		if (builtin_call(e, "abs") && e->nitems == 2) {
			int a = num(g, e->items[1]);
			if (a == IV_NONE)
				return IV_NONE;
			int n = is_point(g, a) ? fresh_point(g) : fresh(g);
			line(g, "if (sprt_ivl_abs(lo%d, hi%d, &lo%d, &hi%d))", a, a, n, n);
			line(g, "\tbreak;");
			return n;
		}
		bool is_min = builtin_call(e, "min");
		if ((!is_min && !builtin_call(e, "max")) || e->nitems < 3)
			return IV_NONE;
		/* min/max of two or more ints; one argument would be an iterable */
		return num_fold(g, e, 1, is_min ? "min" : "max", true);
	}
	default:
		return IV_NONE;
	}
}

/* ---- truth: 0 falsy, 1 truthy, 2 don't know ------------------------------------- */

static int truth(struct ivgen *g, const struct ast_expr *e);

/* Opens `int tr<n> = 2; do {`: a break inside means "don't know". */
static int open_truth(struct ivgen *g)
{
	int n = ++g->ntmp;
	line(g, "int tr%d = 2;", n);
	line(g, "do {");
	g->indent++;
	return n;
}

static void close_truth(struct ivgen *g)
{
	g->indent--;
	line(g, "} while (0);");
}

/* Forgets what was generated since `mark`; returns IV_NONE. */
static int undo(struct ivgen *g, size_t mark, int ntmp, int top)
{
	g->out->len = mark;
	if (g->out->s)
		g->out->s[mark] = 0;
	g->ntmp = ntmp;
	g->top = top;
	return IV_NONE;
}

static char cmp_code(enum ast_op op)
{
	switch (op) {
	case AST_OP_LT: return '<';
	case AST_OP_LE: return 'l';
	case AST_OP_GT: return '>';
	case AST_OP_GE: return 'g';
	case AST_OP_EQ: return '=';
	case AST_OP_NE: return '!';
	default: return 0;
	}
}

/* `x % y == 0` or `!= 0`: bounds decide it only where every x is below
 * every y, which divisibility constraints (blk % dim) almost never meet,
 * so a check would cost on every outer iteration and prune nothing --
 * unless x and y are both bound here: then the test is exact, and as one
 * disjunct of a rejection (gemm_beast's cant_reshape_a2, `blk_m_a %
 * (dim_m_a * dim_vec) != 0 or blk_n_a % dim_n_a != 0`) it drops a value
 * of dim_m_a before the inner loop is built for it. */
static bool divisibility(const struct ast_expr *e)
{
	if (e->nitems != 2 || (e->cmp[0] != AST_OP_EQ && e->cmp[0] != AST_OP_NE))
		return false;
	for (int side = 0; side < 2; side++) {
		const struct ast_expr *a = e->items[side], *b = e->items[1 - side];
		if (a->kind == AST_BINARY && a->op == AST_OP_MOD && b->kind == AST_INT && b->ival == 0)
			return true;
	}
	return false;
}

static int truth_compare(struct ivgen *g, const struct ast_expr *e)
{
	for (int i = 0; i + 1 < e->nitems; i++)
		if (!cmp_code(e->cmp[i]))
			return IV_NONE;
	const bool exact_only = divisibility(e);
	size_t mark = g->out->len;
	int saved_tmp = g->ntmp, saved_top = g->top, saved_deeper = g->deeper;
	int t = open_truth(g);
	int prev = num(g, e->items[0]);
	/* a chain is the conjunction of its links */
	for (int i = 0; i + 1 < e->nitems && prev != IV_NONE; i++) {
		int next = num(g, e->items[i + 1]);
		if (next == IV_NONE) {
			prev = IV_NONE;
			break;
		}
		line(g, "tr%d = %ssprt_ivl_cmp('%c', lo%d, hi%d, lo%d, hi%d)%s;", t, i ? cg_fmt(g->c, "sprt_ivl_and(tr%d, ", t) : "",
		     cmp_code(e->cmp[i]), prev, prev, next, next, i ? ")" : "");
		g->ordered |= e->cmp[i] != AST_OP_EQ && e->cmp[i] != AST_OP_NE;
		prev = next;
	}
	if (prev == IV_NONE || (exact_only && g->deeper != saved_deeper)) {
		/* the shape cannot decide */
		g->deeper = saved_deeper;
		return undo(g, mark, saved_tmp, saved_top);
	}
	close_truth(g);
	return t;
}

static int truth_logic(struct ivgen *g, const struct ast_expr *e, bool is_and)
{
	int acc = IV_NONE;
	bool any_unknown = false;
	for (int i = 0; i < e->nitems; i++) {
		int t = truth(g, e->items[i]);
		if (t == IV_NONE) {
			any_unknown = true;
			continue;
		}
		if (acc == IV_NONE) {
			acc = t;
			continue;
		}
		line(g, "tr%d = sprt_ivl_%s(tr%d, tr%d);", acc, is_and ? "and" : "or", acc, t);
	}
	/* an operand the shape cannot decide can still be overruled (Kleene logic) */
	if (acc != IV_NONE && any_unknown)
		line(g, "tr%d = sprt_ivl_%s(tr%d, 2);", acc, is_and ? "and" : "or", acc);
	return acc;
}

static int truth(struct ivgen *g, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_COMPARE:
		return truth_compare(g, e);
	case AST_AND:
	case AST_OR:
		return truth_logic(g, e, e->kind == AST_AND);
	case AST_UNARY:
		if (e->op == AST_OP_NOT) {
			int t = truth(g, e->items[0]);
			if (t != IV_NONE)
				line(g, "tr%d = sprt_ivl_not(tr%d);", t, t);
			return t;
		}
		break;
	case AST_NAME: {
		const struct sema_def *d = e->ref;
		/* a deeper derived truth: its expression */
		if (d && e->local < 0 && !bound_at(g, d) && d->kind == SEMA_DERIVED && d->form == SEMA_FORM_EXPR &&
		    d->expr && g->depth < IVL_MAX_DEPTH) {
			g->depth++;
			int t = truth(g, d->expr);
			g->depth--;
			return t;
		}
		break;
	}
	default:
		break;
	}
	/* an int's truthiness */
	size_t mark = g->out->len;
	int saved_tmp = g->ntmp, saved_top = g->top;
	int t = open_truth(g);
	int a = num(g, e);
	if (a == IV_NONE) {
		return undo(g, mark, saved_tmp, saved_top);
	}
	line(g, "tr%d = sprt_ivl_truth(lo%d, hi%d);", t, a, a);
	close_truth(g);
	return t;
}

/* ---- planning -------------------------------------------------------------------- */

/*
 * The tail check of d at level k, as a function of the state written to
 * c->aux: its number, or IV_NONE.  Out of line (and cold): it runs only
 * after a prune, and inline copies of every tail made run() half as large
 * again, which cc took 1.6 s longer to build for gemm_beast.
 */
static int plan_tail(struct cg *c, const struct sema_def *d, const struct ast_expr *E, int k, bool *bounds)
{
	struct sbuf tail = { 0 };
	struct ivgen g = { .c = c, .k = k, .out = &tail, .top = -1, .bounds = bounds, .tail = c->order[k],
			   .indent = 1 };
	int t = truth(&g, E);
	free(g.point);
	/* over many values, only an order comparison decides (a size that
	 * grows past a limit); (in)equalities would cost and never prune */
	if (t == IV_NONE || g.top != k || !g.ordered) {
		sbuf_release(&tail);
		return IV_NONE;
	}
	int n = ++c->ivl->ntails;
	sbuf_printf(&c->aux, "/* Interval tail %d: %s's condition over every completion of every value of\n"
			     " * '%s' from the current one on: 1 true for all, 0 false for all, 2 don't know. */\n",
		    n, d->cname, c->order[k]->cname);
	sbuf_printf(&c->aux, "SPRT_COLD static int ivl_tail_%d(const struct space_state *st)\n{\n", n);
	sbuf_add(&c->aux, tail.s, tail.len);
	sbuf_printf(&c->aux, "\treturn tr%d;\n}\n\n", t);
	sbuf_release(&tail);
	return n;
}

static void add_check(struct cg *c, struct ivl_check ch, bool *bounds)
{
	struct cg_ivl *v = c->ivl;
	for (int i = 0; i <= c->P->ndefs; i++)
		v->bounds[i] |= bounds[i];
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 16;
		v->checks = xrealloc(v->checks, (size_t)v->cap * sizeof(*v->checks));
	}
	v->checks[v->n++] = ch;
}

static void plan_check(struct cg *c, const struct sema_def *d, const struct ast_expr *E, int k)
{
	bool *bounds = xcalloc((size_t)c->P->ndefs + 1, sizeof(*bounds));
	struct sbuf text = { 0 };
	struct ivgen g = { .c = c, .k = k, .out = &text, .top = -1, .bounds = bounds };
	int t = truth(&g, E);
	free(g.point);
	if (t == IV_NONE || g.top != k) {
		sbuf_release(&text);
		free(bounds);
		return;
	}
	/* The tail check: where it rejects, so does every later value. */
	int tt = plan_tail(c, d, E, k, bounds);
	add_check(c, (struct ivl_check){ IVL_PRUNE, d, k, text, t, tt }, bounds);
	free(bounds);
}

/*
 * At d's own level, after d rejected the current value: the tail check
 * over it and every later value.  Interval bound tightening: where it
 * rejects too, the loop ends, as bound tightening's `break` (cg_opt.c)
 * but for any shape the interval arithmetic bounds (min, //, a
 * quotient of the iterator: gemm_beast's low_occupancy_shmem).
 */
static void plan_own_tail(struct cg *c, const struct sema_def *d, const struct ast_expr *E)
{
	const int k = cg_level(c, d);
	if (k < 0 || k >= c->P->niters)
		return;
	bool *bounds = xcalloc((size_t)c->P->ndefs + 1, sizeof(*bounds));
	int tt = plan_tail(c, d, E, k, bounds);
	if (tt != IV_NONE)
		add_check(c, (struct ivl_check){ IVL_OWN, d, k, { 0 }, IV_NONE, tt }, bounds);
	free(bounds);
}

/* The values of the partner Y of loop k's divisor iteration (X * Y == c),
 * from what is bound before loop k. */
static void plan_partner(struct cg *c, int k)
{
	bool *bounds = xcalloc((size_t)c->P->ndefs + 1, sizeof(*bounds));
	struct sbuf text = { 0 };
	struct ivgen g = { .c = c, .k = k - 1, .out = &text, .top = -1, .bounds = bounds };
	line(&g, "do {");
	g.indent++;
	int n = num_iter(&g, c->plan[k].partner);
	if (n != IV_NONE)
		line(&g, "wlo = lo%d, whi = hi%d;", n, n);
	g.indent--;
	line(&g, "} while (0);");
	free(g.point);
	if (n == IV_NONE)
		sbuf_release(&text);
	else
		add_check(c, (struct ivl_check){ IVL_PARTNER, NULL, k, text, IV_NONE, IV_NONE }, bounds);
	free(bounds);
}

void cg_interval_plan(struct cg *c)
{
	const struct sema_program *P = c->P;
	c->ivl = xcalloc(1, sizeof(*c->ivl));
	c->ivl->bounds = xcalloc((size_t)P->ndefs + 1, sizeof(*c->ivl->bounds));
	if (!CG_ON(c, CG_PASS_INTERVAL))
		return;
	c->ivl->array = cg_internal_prefix(c, "ivl_bounds");
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		if (d->kind != SEMA_CONSTRAINT || cg_level(c, d) < 1)
			continue;
		/* no derived value is inlined: the walk below follows names itself */
		struct ast_expr *E = cg_opt_constraint_expr(c, d, -2);
		if (!E)
			continue;
		plan_own_tail(c, d, E);
		int home = cg_factor_block(c, cg_level(c, d));
		for (int k = 0; k < cg_level(c, d); k++) {
			/* a sub-nest's loops run in its own count function, where
			 * only the main chain and that sub-nest's outer loops are
			 * bound: a check may sit in the main chain (a subtree that
			 * rejects every completion counts 0 there too) or in d's
			 * own sub-nest, never in another one */
			int blk = cg_factor_block(c, k);
			if (blk >= 0 && blk != home)
				continue;
			/* d's sub-nest is counted after this loop or the next one,
			 * and a count of 0 skips what the check would: it would
			 * cost a memo lookup's worth on every value and save about
			 * one (gemm_beast's blk_k: 3 x 15M checks of the register
			 * limits at H100 sizes, none of which ever pruned) */
			if (blk < 0 && home >= 0 && cg_factor_checkpoint(c, home) <= k + 1)
				continue;
			/* the loop just inside is drawn from d's own solution
			 * (equality solving, divisors): it does the same work */
			const struct cg_level_plan *in = &c->plan[k + 1];
			if (k + 1 == cg_level(c, d) && in->src != CG_SRC_PLAIN && in->src_con == d)
				continue;
			plan_check(c, d, E, k);
		}
	}
	for (int k = 0; k < P->niters; k++)
		if (c->plan[k].partner)
			plan_partner(c, k);
}

void cg_interval_release(struct cg *c)
{
	if (!c->ivl)
		return;
	for (int i = 0; i < c->ivl->n; i++)
		sbuf_release(&c->ivl->checks[i].text);
	free(c->ivl->checks);
	free(c->ivl->bounds);
	free(c->ivl->bounded);
	free(c->ivl);
	c->ivl = NULL;
}

void cg_interval_bounds(struct cg *c)
{
	const struct sema_program *P = c->P;
	bool any = false;
	for (int k = 0; k < P->niters; k++) {
		const struct sema_def *x = c->order[k];
		if (!c->ivl || !c->ivl->bounds[x->id])
			continue;
		const char *a = c->ivl->array;
		if (!any)
			cg_line(c, "/* -O2: interval pruning reads the least and greatest value of these iterables */");
		any = true;
		cg_line(c, "st->%s[%d] = !once_%s && sprt_ivl_iterable_bounds(st->%s, &st->%s[%d], &st->%s[%d]);", a, 3 * k + 2,
			c->member[x->id], c->iter_member[x->id], a, 3 * k, a, 3 * k + 1);
	}
	if (any)
		sbuf_puts(c->code, "\n");
}

const char *cg_interval_columns_member(const struct cg *c)
{
	return c->ivl ? c->ivl->columns : NULL;
}

bool cg_interval_column_bounded(const struct cg *c, int i)
{
	return c->ivl && c->ivl->columns && c->ivl->bounded[i];
}

void cg_interval_state(struct cg *c, struct sbuf *out)
{
	const struct sema_program *P = c->P;
	if (c->ivl && c->ivl->columns) {
		sbuf_puts(out, "\t/* Iterator i's least and greatest value (at 2i, 2i + 1), where _ok[i]. */\n");
		sbuf_printf(out, "\tint64_t %s[%d];\n", c->ivl->columns, 2 * P->niters);
		sbuf_printf(out, "\tbool %s_ok[%d];\n", c->ivl->columns, P->niters);
	}
	for (int i = 0; c->ivl && i <= P->ndefs; i++)
		if (c->ivl->bounds[i]) {
			sbuf_puts(out, "\t/* Interval pruning: lo, hi, ok (1: bounds known) of loop p at 3p.. */\n");
			sbuf_printf(out, "\tint64_t %s[%d];\n", c->ivl->array, 3 * P->niters);
			return;
		}
}

/* A check's statements, one line at a time at the current indent. */
static void emit_lines(struct cg *c, const struct sbuf *text)
{
	const char *s = text->s;
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		cg_line(c, "%.*s", (int)n, s);
		s += n + (nl != NULL);
	}
}

void cg_interval_partner(struct cg *c, int k)
{
	for (int i = 0; c->ivl && i < c->ivl->n; i++)
		if (c->ivl->checks[i].kind == IVL_PARTNER && c->ivl->checks[i].k == k)
			emit_lines(c, &c->ivl->checks[i].text);
}

/* The loop ends where the tail check rejects. */
static void emit_tail(struct cg *c, const struct ivl_check *ch)
{
	cg_line(c, "if (ivl_tail_%d(st) == %d) /* so does every later value of '%s' */", ch->tail_truth,
		ch->d->require ? 0 : 1, c->order[ch->k]->cname);
	cg_line(c, "\tbreak;");
}

void cg_interval_reject(struct cg *c, const struct sema_def *d)
{
	for (int i = 0; c->ivl && i < c->ivl->n; i++) {
		const struct ivl_check *ch = &c->ivl->checks[i];
		if (ch->kind != IVL_OWN || ch->d != d)
			continue;
		cg_line(c, "/* -O2: interval bound tightening: does '%s' reject every later value of '%s' too? */",
			d->cname, c->order[ch->k]->cname);
		cg_line(c, "{");
		c->indent++;
		emit_tail(c, ch);
		c->indent--;
		cg_line(c, "}");
	}
}

void cg_interval_prune(struct cg *c, int k)
{
	if (!c->ivl)
		return;
	for (int i = 0; i < c->ivl->n; i++) {
		const struct ivl_check *ch = &c->ivl->checks[i];
		if (ch->k != k || ch->kind != IVL_PRUNE)
			continue;
		const struct sema_def *d = ch->d;
		const int reject = d->require ? 0 : 1;
		cg_line(c, "/* -O2: interval pruning: skip '%s' here when no completion %s %s */",
			c->order[k]->cname, d->require ? "satisfies" : "escapes", d->cname);
		cg_line(c, "if (%s) {", cg_opt_enabled_test(c, d));
		c->indent++;
		emit_lines(c, &ch->text);
		if (ch->tail_truth == IV_NONE) {
			cg_line(c, "if (tr%d == %d)", ch->truth, reject);
			cg_line(c, "\tcontinue;");
		} else {
			/* Only where this value is pruned can every later one be
			 * (its box holds this one's), so the tail is asked then. */
			cg_line(c, "if (tr%d == %d) {", ch->truth, reject);
			c->indent++;
			emit_tail(c, ch);
			cg_line(c, "continue;");
			c->indent--;
			cg_line(c, "}");
		}
		c->indent--;
		cg_line(c, "}");
	}
}

/*
 * An int iterator whose iterable reads only level -1 (settings, device
 * parameters, constants) but that interval arithmetic cannot bound, a
 * comprehension such as `[2**i for i in range(13)]`: the iterable is
 * simply computed here, before the nest, and its hull taken.  Its loop
 * computes it again, so nothing is counted twice.  Without this, one
 * such column made the binary sink buffer every row to learn the widths
 * (gaussian: 12.7 GB through a temporary file).  Closures and yields are
 * left alone (their iterables can be long generators); so is anything not
 * typed int, since computing a string would intern it out of order.
 */
static bool int_only(const struct ast_expr *e)
{
	if (!e)
		return true;
	if (e->kind == AST_STR || e->kind == AST_FLOAT || e->kind == AST_ATTR || e->kind == AST_INDEX)
		return false;
	if (e->kind == AST_NAME && e->ref && e->ref->type != TY_INT && e->ref->type != TY_BOOL)
		return false;
	if (e->kind == AST_CALL && !builtin_call(e, "range") && !builtin_call(e, "min") && !builtin_call(e, "max") &&
	    !builtin_call(e, "abs") && !builtin_call(e, "len"))
		return false;
	for (int i = e->kind == AST_CALL ? 1 : 0; i < e->nitems; i++)
		if (!int_only(e->items[i]))
			return false;
	return true;
}

static bool iterable_once(const struct cg *c, const struct sema_def *x)

{
	if (!c->iter_member[x->id] || x->form == SEMA_FORM_CLOSURE)
		return false;
	/* The element type where sema knows it; else an expression made of
	 * ints, names of ints and arithmetic builtins only. */
	const struct ast_expr *e = x->form == SEMA_FORM_EXPR ? x->expr
				 : x->stmt && x->stmt->kind == AST_S_ASSIGN ? x->stmt->value : NULL;
	if (x->type != TY_INT && (x->type != TY_UNKNOWN || !e || !int_only(e)))
		return false;
	if (x->stmt && x->stmt->has_yield)
		return false;
	for (int k = 0; k < x->ndeps; k++)
		if (cg_level(c, x->deps[k]) >= 0 || x->deps[k]->kind == SEMA_ITER)
			return false;
	return true;
}

static int num_iterable_now(struct ivgen *g, const struct sema_def *x)
{
	int n = fresh(g);
	line(g, "if (def_%s(ctx, st, &st->%s) || !sprt_ivl_iterable_bounds(st->%s, &lo%d, &hi%d))",
	     g->c->member[x->id], g->c->iter_member[x->id], g->c->iter_member[x->id], n, n);
	line(g, "\tbreak; /* a domain error: its loop reports it */");
	return n;
}

/*
 * The binary sink's column widths (runtime/FORMAT.md).  Where every
 * iterator's values can be bounded before the nest, by the same interval
 * arithmetic over level -1's values (ranges, int lists, and the returns
 * of def-form iterators), run() hands the bounds to the runtime, which
 * then writes rows in their final widths as they come instead of
 * buffering them all to learn the widths.  At every -O level: it reads
 * only the iterables, never a constraint.
 */
void cg_interval_columns(struct cg *c)
{
	const struct sema_program *P = c->P;
	if (!P->niters)
		return;
	if (!c->ivl) { /* -O0: no pruning was planned */
		c->ivl = xcalloc(1, sizeof(*c->ivl));
		c->ivl->bounds = xcalloc((size_t)P->ndefs + 1, sizeof(*c->ivl->bounds));
	}
	struct cg_ivl *v = c->ivl;
	v->bounded = xcalloc((size_t)P->niters, sizeof(*v->bounded));
	struct sbuf text = { 0 };
	bool *bounds = xcalloc((size_t)P->ndefs + 1, sizeof(*bounds));
	int *column = xcalloc((size_t)P->ndefs + 1, sizeof(*column));
	struct ivgen g = { .c = c, .k = -1, .out = &text, .top = -1, .bounds = bounds, .columns = true,
			   .column = column };
	bool any = false, all = true;
	/* In definition order: an iterator's inputs are bounded first, and
	 * their bounds read back (column, 1 + the index; -1: unbounded). */
	for (int i = 0; i < P->niters; i++) {
		const struct sema_def *x = P->iters[i];
		size_t mark = text.len;
		int ntmp = g.ntmp;
		line(&g, "do { /* %s */", x->cname);
		g.indent++;
		int n = num_iter(&g, x);
		if (n == IV_NONE && iterable_once(c, x)) {
			undo(&g, mark, ntmp, g.top);
			g.indent--;
			line(&g, "do { /* %s */", x->cname);
			g.indent++;
			n = num_iterable_now(&g, x);
		}
		g.indent--;
		if (n == IV_NONE) {
			undo(&g, mark, ntmp, g.top); /* nothing of it */
			column[x->id] = -1;
			all = false;
			continue;
		}
		line(&g, "\tcb[%d] = lo%d, cb[%d] = hi%d;", 2 * i, n, 2 * i + 1, n);
		line(&g, "\tok[%d] = true;", i);
		line(&g, "} while (0);");
		column[x->id] = i + 1;
		v->bounded[i] = any = true;
	}
	free(bounds);
	free(column);
	free(g.point);
	if (!any) {
		sbuf_release(&text);
		return;
	}
	const char *m = cg_internal_prefix(c, "column_bounds");
	v->columns = m;
	cg_line(c, "/* Every value of iterator i lies within [cb[2i], cb[2i + 1]] where ok[i]: the");
	cg_line(c, " * binary sink's column widths (runtime/FORMAT.md), the near counts' indices. */");
	cg_line(c, "{");
	c->indent++;
	cg_line(c, "int64_t *cb = st->%s;", m);
	cg_line(c, "bool *ok = st->%s_ok;", m);
	for (const char *s = text.s; s && *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		cg_line(c, "%.*s", (int)n, s);
		s += n + (nl != NULL);
	}
	if (all) {
		cg_line(c, "bool all = true;");
		cg_line(c, "for (int i = 0; i < %d; i++)", P->niters);
		cg_line(c, "\tall = all && ok[i];");
		cg_line(c, "sprt_column_bounds_(ctx, all ? cb : NULL);");
	}
	c->indent--;
	cg_line(c, "}");
	sbuf_puts(c->code, "\n");
	sbuf_release(&text);
}
