/*
 * cg_type.c - typed values: ints and bools held in int64_t, not sprt_val.
 *
 * A tagged sprt_val is 32 bytes and every operation on it tests tags;
 * in the inner loops that is most of the work.  Where the generator can
 * prove that a definition's value is an int (or a bool) in every
 * evaluation that succeeds, the state holds it as an int64_t, its def_
 * function computes it with checked int64 arithmetic (sprt_i_* in
 * spacert_ops.h: Python's floor division and modulo, overflow and
 * division by zero are still domain errors of the same definition), and
 * loop variables over such iterables are int64_t too.  Code that still
 * works on sprt_val (def bodies, the loop transformations' helpers, the
 * sink) sees a typed value boxed again (cg_value_of), so both kinds mix
 * freely and every proof can be local.
 *
 * The proof is deliberately small and conservative (cg_type_of):
 *   - literals; names of typed definitions; never a def body's local, a
 *     table or a def-form definition; a device parameter or setting only
 *     where the caller says what the run binds (cg_options.bound_types:
 *     spacec count/list/stats know their --set and profile values; the
 *     generated code checks the binding's kind once and stops with a type
 *     error otherwise), never in `spacec emit`'s standalone enumerators;
 *   - t[i][j]... with int indices, where t is a table or constant whose
 *     expression is a nested list of ints (displays, `+` and `* n` of
 *     them) exactly that deep: the element is computed as a sprt_val (an
 *     index out of range is still a domain error) and unboxed;
 *   - + - * // % and unary - + ~ of ints and bools give ints; & | ^ of
 *     two ints an int; a comparison (any operands) and `not` give bools;
 *     `and`, `or` and `a if c else b` keep their operands' common type;
 *     abs(), int(), min() and max() of ints, bool() of anything;
 *   - an iterator is typed when its iterable is range(...) (ints), or a
 *     list display whose items are all typed alike.
 * Everything else stays a sprt_val, exactly as before.  -fno-typed-values
 * turns the whole pass off (the differential tests compare both).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_int.h"

static bool intlike(enum cg_ctype t)
{
	return t == CG_T_INT || t == CG_T_BOOL;
}

static bool is_builtin(const struct ast_expr *e, const char *name)
{
	const struct ast_expr *f = e->items[0];
	return f->kind == AST_NAME && !f->ref && f->local < 0 && !strcmp(f->name, name);
}

static enum cg_ctype call_type(struct cg *c, const struct ast_expr *e)
{
	int nargs = e->nitems - 1;
	if (is_builtin(e, "bool") && nargs == 1)
		return CG_T_BOOL;
	if ((is_builtin(e, "abs") || is_builtin(e, "int")) && nargs == 1)
		return intlike(cg_type_of(c, e->items[1])) ? CG_T_INT : CG_T_VAL;
	if ((is_builtin(e, "min") || is_builtin(e, "max")) && nargs >= 2) {
		enum cg_ctype t = cg_type_of(c, e->items[1]);
		for (int i = 2; i <= nargs; i++)
			if (cg_type_of(c, e->items[i]) != t)
				return CG_T_VAL;
		return intlike(t) ? t : CG_T_VAL;
	}
	return CG_T_VAL;
}

/* The depth of a nested list of ints (1: a list of ints), or 0. */
static int int_list_depth(struct cg *c, const struct ast_expr *e, int budget)
{
	if (!e || budget <= 0)
		return 0;
	switch (e->kind) {
	case AST_LIST:
	case AST_TUPLE: {
		if (e->nitems == 0)
			return 0;
		bool ints = true;
		for (int i = 0; i < e->nitems && ints; i++)
			ints = cg_type_of(c, e->items[i]) == CG_T_INT;
		if (ints)
			return 1;
		int d = int_list_depth(c, e->items[0], budget - 1);
		for (int i = 1; i < e->nitems && d; i++)
			if (int_list_depth(c, e->items[i], budget - 1) != d)
				d = 0;
		return d ? d + 1 : 0;
	}
	case AST_BINARY:
		if (e->op == AST_OP_ADD) {
			int d = int_list_depth(c, e->items[0], budget - 1);
			return d && int_list_depth(c, e->items[1], budget - 1) == d ? d : 0;
		}
		if (e->op == AST_OP_MUL) {
			/* list * n or n * list: the list's elements, repeated */
			for (int i = 0; i < 2; i++)
				if (intlike(cg_type_of(c, e->items[1 - i])))
					return int_list_depth(c, e->items[i], budget - 1);
		}
		return 0;
	case AST_NAME: {
		const struct sema_def *d = e->ref;
		if (e->local >= 0 || !d || (d->kind != SEMA_TABLE && d->kind != SEMA_CONST) ||
		    d->form != SEMA_FORM_EXPR)
			return 0;
		return int_list_depth(c, d->expr, budget - 1);
	}
	default:
		return 0;
	}
}

/* t[i][j]...: an int where t is a nested list of ints exactly that deep. */
static enum cg_ctype index_type(struct cg *c, const struct ast_expr *e)
{
	int n = 0;
	for (; e->kind == AST_INDEX; e = e->items[0], n++)
		if (cg_type_of(c, e->items[1]) != CG_T_INT)
			return CG_T_VAL;
	return int_list_depth(c, e, 64) == n ? CG_T_INT : CG_T_VAL;
}

/* A device parameter or setting: the kind the caller says the run binds. */
static enum cg_ctype bindable_type(struct cg *c, const struct sema_def *d)
{
	const unsigned char *bt = c->opt->bound_types;
	if (!bt)
		return CG_T_VAL;
	switch (bt[d->id]) {
	case CG_BOUND_DEFAULT:
		return d->form == SEMA_FORM_EXPR ? cg_type_of(c, d->expr) : CG_T_VAL;
	case CG_BOUND_INT:
		return CG_T_INT;
	case CG_BOUND_BOOL:
		return CG_T_BOOL;
	default:
		return CG_T_VAL;
	}
}

enum cg_ctype cg_type_of(struct cg *c, const struct ast_expr *e)
{
	if (!e || !c->ctype)
		return CG_T_VAL;
	switch (e->kind) {
	case AST_INT:
		return CG_T_INT;
	case AST_BOOL:
		return CG_T_BOOL;
	case AST_NAME:
		if (e->local >= 0 || !e->ref || e->ref->kind == SEMA_CONSTRAINT)
			return CG_T_VAL;
		return (enum cg_ctype)c->ctype[e->ref->id];
	case AST_UNARY:
		if (e->op == AST_OP_NOT)
			return CG_T_BOOL;
		if (e->op == AST_OP_NEG || e->op == AST_OP_POS || e->op == AST_OP_INVERT)
			return intlike(cg_type_of(c, e->items[0])) ? CG_T_INT : CG_T_VAL;
		return CG_T_VAL;
	case AST_BINARY: {
		enum cg_ctype a = cg_type_of(c, e->items[0]), b = cg_type_of(c, e->items[1]);
		switch (e->op) {
		case AST_OP_ADD:
		case AST_OP_SUB:
		case AST_OP_MUL:
		case AST_OP_FLOORDIV:
		case AST_OP_MOD:
			return intlike(a) && intlike(b) ? CG_T_INT : CG_T_VAL;
		case AST_OP_BITAND:
		case AST_OP_BITOR:
		case AST_OP_BITXOR:
			return a == CG_T_INT && b == CG_T_INT ? CG_T_INT : CG_T_VAL;
		default:
			return CG_T_VAL;
		}
	}
	case AST_COMPARE:
		return CG_T_BOOL;
	case AST_AND:
	case AST_OR: {
		enum cg_ctype t = cg_type_of(c, e->items[0]);
		for (int i = 1; i < e->nitems; i++)
			if (cg_type_of(c, e->items[i]) != t)
				return CG_T_VAL;
		return t;
	}
	case AST_COND: {
		if (e->items[2]->kind == AST_UNDEF)
			return CG_T_VAL;
		enum cg_ctype t = cg_type_of(c, e->items[1]);
		return t == cg_type_of(c, e->items[2]) ? t : CG_T_VAL;
	}
	case AST_CALL:
		return call_type(c, e);
	case AST_INDEX:
		return index_type(c, e);
	default:
		return CG_T_VAL;
	}
}

static bool is_range_call(const struct ast_expr *e)
{
	return e && e->kind == AST_CALL && is_builtin(e, "range");
}

/*
 * The element type of an iterable expression: range(...) gives ints, a
 * list display its items' common type, and (in a def-form iterator's
 * return) a single typed value is an iterable of itself.
 */
static enum cg_ctype iterable_type(struct cg *c, const struct ast_expr *e, bool scalar_ok)
{
	if (!e)
		return CG_T_VAL;
	if (is_range_call(e))
		return CG_T_INT;
	if (e->kind != AST_LIST && e->kind != AST_TUPLE) {
		enum cg_ctype t = scalar_ok ? cg_type_of(c, e) : CG_T_VAL;
		return intlike(t) ? t : CG_T_VAL;
	}
	if (e->nitems == 0)
		return CG_T_VAL;
	enum cg_ctype t = cg_type_of(c, e->items[0]);
	for (int i = 1; i < e->nitems; i++)
		if (cg_type_of(c, e->items[i]) != t)
			return CG_T_VAL;
	return intlike(t) ? t : CG_T_VAL;
}

/* Before the first return, in returns_type. */
#define NO_RETURN_YET (-1)

/*
 * The common element type of every `return` in a block (t so far, or
 * NO_RETURN_YET); CG_T_VAL as soon as one differs or returns nothing.
 */
static int returns_type(struct cg *c, const struct ast_block *b, int t)
{
	for (int i = 0; i < b->n && t != CG_T_VAL; i++) {
		const struct ast_stmt *s = b->stmts[i];
		if (s->kind == AST_S_RETURN) {
			int r = (int)iterable_type(c, s->value, true);
			t = t == NO_RETURN_YET || t == r ? r : CG_T_VAL;
		} else if (s->kind == AST_S_YIELD || s->kind == AST_S_DEF) {
			t = CG_T_VAL;
		} else {
			t = returns_type(c, &s->body, t);
			t = returns_type(c, &s->orelse, t);
		}
	}
	return t;
}

/* Whether every path through a block ends in a return (None is no int). */
static bool always_returns(const struct ast_block *b)
{
	if (b->n == 0)
		return false;
	const struct ast_stmt *s = b->stmts[b->n - 1];
	if (s->kind == AST_S_RETURN)
		return true;
	return s->kind == AST_S_IF && always_returns(&s->body) && always_returns(&s->orelse);
}

/* The element type of an iterator's iterable. */
static enum cg_ctype iter_type(struct cg *c, const struct sema_def *d)
{
	if (d->form == SEMA_FORM_EXPR)
		return iterable_type(c, d->expr, false);
	/* @iterator def f(...): typed when each return is, and none falls off
	 * the end (dim_vec and vec_mul of gemm_beast: [1, 2], 0, range(0, 2)). */
	if (d->form != SEMA_FORM_DEF || !d->stmt || d->stmt->has_yield || !always_returns(&d->stmt->body))
		return CG_T_VAL;
	int t = returns_type(c, &d->stmt->body, NO_RETURN_YET);
	return t == CG_T_INT || t == CG_T_BOOL ? (enum cg_ctype)t : CG_T_VAL;
}

void cg_type_plan(struct cg *c)
{
	const struct sema_program *P = c->P;
	c->ctype = xcalloc((size_t)P->ndefs + 1, sizeof(*c->ctype));
	if (!CG_ON(c, CG_PASS_TYPED_VALUES))
		return;
	/* prog->defs is topological: a definition's inputs are typed first. */
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		enum cg_ctype t = CG_T_VAL;
		switch (d->kind) {
		case SEMA_ITER:
			t = iter_type(c, d);
			break;
		case SEMA_DEVICE:
		case SEMA_SETTING:
			t = bindable_type(c, d);
			break;
		case SEMA_CONST:
		case SEMA_DERIVED:
		case SEMA_CONSTRAINT:
			/* A constraint's entry types its def_ function only: its
			 * member has no value, and names of it stay sprt_val. */
			if (d->form == SEMA_FORM_EXPR)
				t = cg_type_of(c, d->expr);
			break;
		default:
			break;
		}
		c->ctype[d->id] = (unsigned char)t;
	}
}

void cg_type_release(struct cg *c)
{
	free(c->ctype);
	c->ctype = NULL;
}

bool cg_typed_member(struct cg *c, const struct sema_def *d)
{
	return c->ctype && c->ctype[d->id] != CG_T_VAL && d->kind != SEMA_CONSTRAINT;
}

const char *cg_ctype_c(struct cg *c, const struct sema_def *d)
{
	return cg_typed_member(c, d) ? "int64_t" : "sprt_val";
}

const char *cg_box(struct cg *c, enum cg_ctype t, const char *x)
{
	return t == CG_T_BOOL ? cg_fmt(c, "sprt_bool(%s)", x) : cg_fmt(c, "sprt_int(%s)", x);
}

const char *cg_value_of(struct cg *c, const struct sema_def *d)
{
	const char *m = cg_fmt(c, "st->%s", c->member[d->id]);
	return cg_typed_member(c, d) ? cg_box(c, (enum cg_ctype)c->ctype[d->id], m) : m;
}

/* ---- typed expressions ------------------------------------------------------- */

static const char *itemp(struct cg *c)
{
	return cg_temp(c, "int64_t %s", "0");
}

/* The truth of `e` as a C condition. */
static const char *test_of(struct cg *c, const struct ast_expr *e)
{
	if (intlike(cg_type_of(c, e)))
		return cg_int_operand(c, e);
	return cg_fmt(c, "sprt_is_true(ctx, %s)", cg_operand(c, e));
}

static const char *c_cmp(enum ast_op op)
{
	switch (op) {
	case AST_OP_LT: return "<";
	case AST_OP_LE: return "<=";
	case AST_OP_GT: return ">";
	case AST_OP_GE: return ">=";
	case AST_OP_EQ: return "==";
	case AST_OP_NE: return "!=";
	default: return NULL;
	}
}

/* `a op b` on ints; x op x is folded (C compilers warn about it, and an
 * int has no NaN, so the result is known). */
static const char *int_cmp(struct cg *c, const char *a, enum ast_op op, const char *b)
{
	if (!strcmp(a, b))
		return op == AST_OP_EQ || op == AST_OP_LE || op == AST_OP_GE ? "1" : "0";
	return cg_fmt(c, "(%s %s %s)", a, c_cmp(op), b);
}

/* The C test of `r op 0` for a three-way result r. */
static const char *sign_cmp(struct cg *c, const char *r, enum ast_op op)
{
	return cg_fmt(c, "(%s %s 0)", r, c_cmp(op));
}

/*
 * `a / b op k` (or `k op a / b`) on ints, without doubles where
 * sprt_i_truediv_cmp can decide it (gemm_beast's low_fmas: fmas_per_block /
 * loads_per_block < min_fmas_per_load); NULL where e has another shape.
 * Operands are evaluated in source order, and b == 0 is still the
 * division's ZeroDivisionError before k is looked at.
 */
static const char *quotient_compare(struct cg *c, const struct ast_expr *e)
{
	if (e->nitems != 2 || !c_cmp(e->cmp[0]))
		return NULL;
	int side = -1;
	for (int i = 0; i < 2 && side < 0; i++) {
		const struct ast_expr *q = e->items[i];
		if (q->kind == AST_BINARY && q->op == AST_OP_DIV && intlike(cg_type_of(c, q->items[0])) &&
		    intlike(cg_type_of(c, q->items[1])) && intlike(cg_type_of(c, e->items[1 - i])))
			side = i;
	}
	if (side < 0)
		return NULL;
	const struct ast_expr *q = e->items[side];
	const char *k = side == 1 ? cg_int_operand(c, e->items[0]) : NULL;
	const char *x = cg_int_operand(c, q->items[0]);
	const char *y = cg_int_operand(c, q->items[1]);
	cg_line(c, "if (%s == 0)", y);
	cg_line(c, "\treturn SPRT_EZERODIV;");
	if (side == 0)
		k = cg_int_operand(c, e->items[1]);
	const char *r = cg_temp(c, "int %s", "0");
	cg_line(c, "%s = sprt_i_truediv_cmp(%s, %s, %s);", r, x, y, k);
	cg_line(c, "if (%s == 2) { /* too large for ints: Python's doubles */", r);
	c->indent++;
	const char *v = cg_temp(c, "sprt_val %s", "sprt_undef()");
	const char *lt = cg_temp(c, "bool %s", "false"), *gt = cg_temp(c, "bool %s", "false");
	cg_line(c, "SPRT_TRY(sprt_op(ctx, '/', sprt_int(%s), sprt_int(%s), &%s, NULL));", x, y, v);
	cg_line(c, "SPRT_TRY(sprt_cmp(ctx, '<', %s, sprt_int(%s), &%s));", v, k, lt);
	cg_line(c, "SPRT_TRY(sprt_cmp(ctx, '>', %s, sprt_int(%s), &%s));", v, k, gt);
	cg_line(c, "%s = %s ? -1 : %s;", r, lt, gt);
	c->indent--;
	cg_line(c, "}");
	/* r orders the quotient against k; k op quotient is its mirror */
	if (side == 1)
		r = cg_fmt(c, "(-%s)", r);
	return sign_cmp(c, r, e->cmp[0]);
}

/* A chained comparison: later operands run only while the chain holds. */
static const char *typed_compare(struct cg *c, const struct ast_expr *e)
{
	const char *quotient = quotient_compare(c, e);
	if (quotient)
		return quotient;
	bool all_int = true;
	for (int i = 0; i < e->nitems; i++)
		all_int &= intlike(cg_type_of(c, e->items[i]));
	for (int i = 0; i + 1 < e->nitems; i++)
		all_int &= c_cmp(e->cmp[i]) != NULL;
	if (all_int && e->nitems == 2) {
		const char *a = cg_int_operand(c, e->items[0]);
		const char *b = cg_int_operand(c, e->items[1]);
		return int_cmp(c, a, e->cmp[0], b);
	}
	const char *t = e->nitems == 2 ? NULL : itemp(c);
	const char *bt = NULL;
	const struct ast_expr *prev = e->items[0];
	bool prev_int = intlike(cg_type_of(c, prev));
	const char *left = prev_int ? cg_int_operand(c, prev) : cg_operand(c, prev);
	cg_open_chain(c, t != NULL);
	for (int i = 1; i < e->nitems; i++) {
		const struct ast_expr *r = e->items[i];
		bool r_int = intlike(cg_type_of(c, r));
		const char *right = r_int ? cg_int_operand(c, r) : cg_operand(c, r);
		const char *op = c_cmp(e->cmp[i - 1]);
		if (prev_int && r_int && op) {
			cg_line(c, "%s = %s;", t, int_cmp(c, left, e->cmp[i - 1], right));
		} else {
			if (!bt)
				bt = cg_temp(c, "bool %s", "false");
			cg_line(c, "SPRT_TRY(sprt_cmp(ctx, %s, %s, %s, &%s));", cg_op_char(e->cmp[i - 1]),
				prev_int ? cg_box(c, cg_type_of(c, prev), left) : left,
				r_int ? cg_box(c, cg_type_of(c, r), right) : right, bt);
			if (!t)
				return bt; /* one mixed comparison: its bool is the value */
			cg_line(c, "%s = %s;", t, bt);
		}
		prev = r;
		prev_int = r_int;
		left = right;
		if (i + 1 < e->nitems) {
			cg_line(c, "if (!%s)", t);
			cg_line(c, "\tbreak;");
		}
	}
	cg_close_chain(c, t != NULL);
	return t;
}

static const char *checked(struct cg *c, const char *fn, const char *a, const char *b)
{
	const char *t = itemp(c);
	if (b)
		cg_line(c, "SPRT_TRY(sprt_i_%s(%s, %s, &%s));", fn, a, b, t);
	else
		cg_line(c, "SPRT_TRY(sprt_i_%s(%s, &%s));", fn, a, t);
	return t;
}

static const char *typed_binary(struct cg *c, const struct ast_expr *e)
{
	const char *a = cg_int_operand(c, e->items[0]);
	const char *b = cg_int_operand(c, e->items[1]);
	switch (e->op) {
	case AST_OP_ADD: return checked(c, "add", a, b);
	case AST_OP_SUB: return checked(c, "sub", a, b);
	case AST_OP_MUL: return checked(c, "mul", a, b);
	case AST_OP_FLOORDIV: return checked(c, "floordiv", a, b);
	case AST_OP_MOD: return checked(c, "mod", a, b);
	case AST_OP_BITAND: return cg_fmt(c, "(%s & %s)", a, b);
	case AST_OP_BITOR: return cg_fmt(c, "(%s | %s)", a, b);
	case AST_OP_BITXOR: return cg_fmt(c, "(%s ^ %s)", a, b);
	default: return NULL;
	}
}

static const char *typed_call(struct cg *c, const struct ast_expr *e)
{
	const struct ast_expr *a0 = e->items[1];
	if (is_builtin(e, "bool"))
		return cg_fmt(c, "(int64_t)(%s)", test_of(c, a0));
	if (is_builtin(e, "int"))
		return cg_int_operand(c, a0);
	if (is_builtin(e, "abs"))
		return checked(c, "abs", cg_int_operand(c, a0), NULL);
	/* min / max: the first extreme argument, after evaluating them all. */
	bool is_max = is_builtin(e, "max");
	const char *t = itemp(c);
	cg_line(c, "%s = %s;", t, cg_int_operand(c, a0));
	for (int i = 2; i < e->nitems; i++) {
		const char *x = cg_int_operand(c, e->items[i]);
		cg_line(c, "if (%s %s %s)", x, is_max ? ">" : "<", t);
		cg_line(c, "\t%s = %s;", t, x);
	}
	return t;
}

const char *cg_int_operand(struct cg *c, const struct ast_expr *e)
{
	const char *shared = cg_cse_int(c, e);
	if (shared)
		return shared;
	switch (e->kind) {
	case AST_INT:
		if (e->ival == INT64_MIN)
			return "INT64_MIN";
		if (e->ival >= -2147483647 && e->ival <= 2147483647)
			return cg_fmt(c, "%" PRId64, e->ival);
		return cg_fmt(c, "INT64_C(%" PRId64 ")", e->ival);
	case AST_BOOL:
		return e->ival ? "1" : "0";
	case AST_NAME:
		return cg_fmt(c, "st->%s", c->member[e->ref->id]);
	case AST_UNARY: {
		if (e->op == AST_OP_NOT)
			return cg_fmt(c, "(int64_t)!(%s)", test_of(c, e->items[0]));
		const char *a = cg_int_operand(c, e->items[0]);
		if (e->op == AST_OP_NEG)
			return checked(c, "neg", a, NULL);
		if (e->op == AST_OP_INVERT)
			return cg_fmt(c, "(~%s)", a);
		return a; /* unary plus: the int itself (+True is 1) */
	}
	case AST_BINARY: {
		const char *r = typed_binary(c, e);
		if (r)
			return r;
		break;
	}
	case AST_COMPARE:
		return typed_compare(c, e);
	case AST_AND:
	case AST_OR: {
		/* The deciding operand is the value, as in Python. */
		const char *t = itemp(c);
		cg_line(c, "%s = %s;", t, cg_int_operand(c, e->items[0]));
		cg_open_chain(c, true);
		for (int i = 1; i < e->nitems; i++) {
			cg_line(c, "if (%s%s)", e->kind == AST_AND ? "!" : "", t);
			cg_line(c, "\tbreak;");
			cg_line(c, "%s = %s;", t, cg_int_operand(c, e->items[i]));
		}
		cg_close_chain(c, true);
		return t;
	}
	case AST_COND: {
		const char *t = itemp(c);
		cg_line(c, "if (%s) {", test_of(c, e->items[0]));
		c->indent++;
		cg_line(c, "%s = %s;", t, cg_int_operand(c, e->items[1]));
		c->indent--;
		cg_line(c, "} else {");
		c->indent++;
		cg_line(c, "%s = %s;", t, cg_int_operand(c, e->items[2]));
		c->indent--;
		cg_line(c, "}");
		return t;
	}
	case AST_CALL:
		return typed_call(c, e);
	default:
		break;
	}
	/* A table's element (and nothing else cg_type_of proves): the generic
	 * path computes it, failures included, and it is known to be an int. */
	const char *v = cg_temp(c, "sprt_val %s", "sprt_undef()");
	cg_expr_into(c, e, v);
	return cg_fmt(c, "%s.u.i", v);
}

/* Whether every iterator is a typed int: a point is then int64_t[]. */
static bool point_ints(struct cg *c)
{
	const struct sema_program *P = c->P;
	bool ints = P->niters > 0;
	for (int i = 0; i < P->niters && ints; i++)
		ints = cg_typed_member(c, P->iters[i]) && c->ctype[P->iters[i]->id] == CG_T_INT;
	return ints;
}

/* Iterator x's value as the point holds it. */
const char *cg_point_value(struct cg *c, const struct sema_def *x)
{
	return point_ints(c) ? cg_fmt(c, "st->%s", c->member[x->id]) : cg_value_of(c, x);
}

/* Declares `array`, the current point (iterators in definition order):
 * int64_t where every value is a typed int, 8 bytes each, not a 32-byte
 * sprt_val (gemm_beast's H100 list: 78M points of 15); const or not. */
void cg_point_decl(struct cg *c, bool konst, const char *array)
{
	const struct sema_program *P = c->P;
	struct sbuf init = { 0 };
	for (int i = 0; i < P->niters; i++)
		sbuf_printf(&init, "%s%s", i ? ", " : "", cg_point_value(c, P->iters[i]));
	cg_line(c, "%s%s %s[%d] = { %s };", konst ? "const " : "", point_ints(c) ? "int64_t" : "sprt_val", array,
		P->niters, init.s);
	sbuf_release(&init);
}

/* Hands `array` (cg_point_decl) to the sink (emit known non-NULL). */
void cg_point_emit(struct cg *c, const char *array)
{
	const int n = c->P->niters;
	if (point_ints(c))
		cg_line(c, "if (ctx->emit_ints ? ctx->emit_ints(ctx->emit_user, %s, %d) : sprt_emit_ints_(ctx, %s, %d))",
			array, n, array, n);
	else
		cg_line(c, "if (ctx->emit(ctx->emit_user, %s, %d))", array, n);
	cg_line(c, "\tctx->stop = true;");
}

/* Hands the current point to the sink. */
void cg_emit_point(struct cg *c)
{
	cg_point_decl(c, true, "point");
	cg_point_emit(c, "point");
}
