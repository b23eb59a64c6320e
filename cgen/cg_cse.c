/*
 * cg_cse.c - common subexpressions of derived values and constraints (-O2).
 *
 * A subexpression is shared when it occurs, structurally equal, in two
 * or more places of the expression-form derived values and constraints
 * evaluated inside the loops (`blk_m // dim_m` in regs_c and regs_ab), or
 * once in a definition placed deeper than the subexpression's own inputs
 * (then it is loop-invariant there).  Its level is that of its deepest
 * input: its value cannot change while the loop at that level stays on
 * one value.
 *
 * Lazy, so that errors stay where they were.  Each shared subexpression
 * has a value and a "known" flag in struct space_state; the flag is
 * cleared (cg_cse_reset) wherever the iterator at its level is bound to a
 * new value before definitions are evaluated: by its loop, and by domain
 * filtering's pass over the iterable (cg_opt_filter).  (A factorized
 * sub-nest's listing binds iterators only to emit the point.)  Whichever
 * definition evaluates it first computes it in place, exactly where it
 * would have without sharing (so short-circuits and the order of
 * evaluation are unchanged), and a failure is that definition's domain
 * error, as before; only a success is remembered.  A later definition
 * reads the remembered value, which is the value it would have computed:
 * only pure forms are shared (operators, comparisons, and/or, conditional
 * expressions, indexing, min/max/abs of such; no lists, no def bodies),
 * and their inputs are fixed at that point.  A list result is never
 * remembered (its storage is per definition).  A subexpression proven an
 * int or a bool (cg_type.c) is shared as an int64_t through
 * cg_int_operand; the others as a sprt_val through cg_expr_into.
 */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_int.h"

struct cse_item {
	const struct ast_expr *e; /* the first occurrence (its text) */
	int level;
	int uses;
	bool deeper;              /* used by a definition placed deeper */
	bool shared;
	enum cg_ctype type;       /* CG_T_VAL: kept as a sprt_val, else an int64_t */
};

struct cg_cse {
	int n, cap;
	struct cse_item *items;
	/* occurrence -> item, by pointer (a sorted array would do; few nodes) */
	int nocc, occ_cap;
	const struct ast_expr **occ;
	int *occ_item;
	bool *busy;               /* being computed (its own code is plain) */
	const char *prefix;       /* of the state members: <prefix>N, <prefix>ok_N */
};

static bool pure_builtin(const struct ast_expr *callee)
{
	if (callee->kind != AST_NAME || callee->ref || callee->local >= 0)
		return false;
	return !strcmp(callee->name, "min") || !strcmp(callee->name, "max") || !strcmp(callee->name, "abs");
}

/* Whether e may be shared, and its level (the deepest input's). */
static bool pure(const struct cg *c, const struct ast_expr *e, int *level)
{
	if (ast_expr_is_literal(e))
		return true;
	switch (e->kind) {
	case AST_NAME:
		if (e->local >= 0 || !e->ref || e->ref->kind == SEMA_CONSTRAINT)
			return false;
		if (cg_level(c, e->ref) > *level)
			*level = cg_level(c, e->ref);
		return true;
	case AST_UNARY:
	case AST_BINARY:
	case AST_AND:
	case AST_OR:
	case AST_COMPARE:
	case AST_COND:
	case AST_INDEX:
		for (int i = 0; i < e->nitems; i++)
			if (!pure(c, e->items[i], level))
				return false;
		return true;
	case AST_CALL:
		if (!pure_builtin(e->items[0]))
			return false;
		for (int i = 1; i < e->nitems; i++)
			if (!pure(c, e->items[i], level))
				return false;
		return true;
	default:
		return false;
	}
}

static bool same(const struct ast_expr *a, const struct ast_expr *b)
{
	if (a->kind != b->kind || a->op != b->op || a->nitems != b->nitems)
		return false;
	switch (a->kind) {
	case AST_INT:
	case AST_BOOL:
		return a->ival == b->ival;
	case AST_FLOAT:
		return !memcmp(&a->fval, &b->fval, sizeof(double));
	case AST_STR:
		return a->sval == b->sval || !strcmp(a->sval, b->sval);
	case AST_NAME:
		return a->ref == b->ref && (a->ref || !strcmp(a->name, b->name));
	default:
		break;
	}
	if (a->kind == AST_COMPARE)
		for (int i = 0; i + 1 < a->nitems; i++)
			if (a->cmp[i] != b->cmp[i])
				return false;
	for (int i = 0; i < a->nitems; i++)
		if (!same(a->items[i], b->items[i]))
			return false;
	return true;
}

static bool is_leaf(const struct ast_expr *e)
{
	return e->kind == AST_INT || e->kind == AST_FLOAT || e->kind == AST_STR || e->kind == AST_BOOL ||
	       e->kind == AST_NONE || e->kind == AST_NAME;
}

static void add_occurrence(struct cg_cse *s, const struct ast_expr *e, int item)
{
	if (s->nocc == s->occ_cap) {
		s->occ_cap = s->occ_cap ? 2 * s->occ_cap : 64;
		s->occ = xrealloc(s->occ, sizeof(*s->occ) * (size_t)s->occ_cap);
		s->occ_item = xrealloc(s->occ_item, sizeof(*s->occ_item) * (size_t)s->occ_cap);
	}
	s->occ[s->nocc] = e;
	s->occ_item[s->nocc++] = item;
}

static void collect(const struct cg *c, struct cg_cse *s, const struct ast_expr *e, const struct sema_def *owner)
{
	if (!e || is_leaf(e))
		return;
	int level = -1;
	if (e->kind != AST_LIST && e->kind != AST_TUPLE && pure(c, e, &level)) {
		int k = 0;
		while (k < s->n && !same(s->items[k].e, e))
			k++;
		if (k == s->n) {
			if (s->n == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 32;
				s->items = xrealloc(s->items, sizeof(*s->items) * (size_t)s->cap);
			}
			s->items[s->n++] = (struct cse_item){ .e = e, .level = level };
		}
		s->items[k].uses++;
		s->items[k].deeper |= level < cg_level(c, owner);
		add_occurrence(s, e, k);
	}
	for (int i = 0; i < e->nitems; i++)
		collect(c, s, e->items[i], owner);
}

void cg_cse_plan(struct cg *c)
{
	const struct sema_program *P = c->P;
	if (!CG_ON(c, CG_PASS_CSE))
		return;
	struct cg_cse *s = xcalloc(1, sizeof(*s));
	s->prefix = cg_internal_prefix(c, "cse_");
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		if ((d->kind == SEMA_DERIVED || d->kind == SEMA_CONSTRAINT) && d->form == SEMA_FORM_EXPR &&
		    cg_level(c, d) >= 0 && d->expr && !is_leaf(d->expr))
			collect(c, s, d->expr, d);
	}
	int nshared = 0;
	for (int k = 0; k < s->n; k++) {
		s->items[k].shared = s->items[k].uses >= 2 || s->items[k].deeper;
		s->items[k].type = cg_type_of(c, s->items[k].e);
		nshared += s->items[k].shared;
	}
	if (!nshared) {
		free(s->items);
		free(s->occ);
		free(s->occ_item);
		free(s);
		return;
	}
	s->busy = xcalloc((size_t)s->n, sizeof(bool));
	c->cse = s;
}

void cg_cse_release(struct cg *c)
{
	struct cg_cse *s = c->cse;
	if (!s)
		return;
	free(s->items);
	free(s->occ);
	free(s->occ_item);
	free(s->busy);
	free(s);
	c->cse = NULL;
}

void cg_cse_state(struct cg *c, struct sbuf *out)
{
	struct cg_cse *s = c->cse;
	if (!s)
		return;
	sbuf_puts(out, "\t/* Common subexpressions: the value, and whether it is known at this point. */\n");
	for (int k = 0; k < s->n; k++)
		if (s->items[k].shared)
			sbuf_printf(out, "\t%s %s%d;\n\tbool %sok_%d;\n",
				    s->items[k].type == CG_T_VAL ? "sprt_val" : "int64_t", s->prefix, k, s->prefix, k);
}

void cg_cse_reset(struct cg *c, int level)
{
	struct cg_cse *s = c->cse;
	if (!s)
		return;
	for (int k = 0; k < s->n; k++)
		if (s->items[k].shared && s->items[k].level == level)
			cg_line(c, "st->%sok_%d = false;", s->prefix, k);
}

/* The shared item e is an occurrence of, or -1 where e is computed plainly. */
static int shared_item(struct cg *c, const struct ast_expr *e)
{
	struct cg_cse *s = c->cse;
	if (!s || c->in_body || !c->fn || cg_level(c, c->fn) < 0)
		return -1;
	int k = -1;
	for (int i = 0; i < s->nocc && k < 0; i++)
		if (s->occ[i] == e)
			k = s->occ_item[i];
	if (k < 0 || !s->items[k].shared || s->busy[k])
		return -1;
	return k;
}

/* Opens the block that computes item k when it is not known yet. */
static void open_item(struct cg *c, int k)
{
	const struct cse_item *it = &c->cse->items[k];
	cg_line(c, "/* %s: common subexpression %d (line %d, column %d; %d use%s, level %d) */",
		c->opt->opt_level >= 2 ? "-O2" : "-O1", k, it->e->loc.line, it->e->loc.col, it->uses,
		it->uses == 1 ? "" : "s", it->level);
	cg_line(c, "if (!st->%sok_%d) {", c->cse->prefix, k);
	c->indent++;
	c->cse->busy[k] = true;
}

static void close_item(struct cg *c, int k)
{
	c->cse->busy[k] = false;
	c->indent--;
	cg_line(c, "}");
}

bool cg_cse_into(struct cg *c, const struct ast_expr *e, const char *dst)
{
	int k = shared_item(c, e);
	if (k < 0 || c->cse->items[k].type != CG_T_VAL)
		return false; /* a typed one is shared by cg_cse_int */
	open_item(c, k);
	cg_expr_into(c, e, cg_fmt(c, "st->%s%d", c->cse->prefix, k));
	cg_line(c, "st->%sok_%d = st->%s%d.kind != SPRT_VEC;", c->cse->prefix, k, c->cse->prefix, k);
	close_item(c, k);
	cg_line(c, "%s = st->%s%d;", dst, c->cse->prefix, k);
	return true;
}

const char *cg_cse_int(struct cg *c, const struct ast_expr *e)
{
	int k = shared_item(c, e);
	if (k < 0 || c->cse->items[k].type == CG_T_VAL)
		return NULL;
	open_item(c, k);
	cg_line(c, "st->%s%d = %s;", c->cse->prefix, k, cg_int_operand(c, e));
	cg_line(c, "st->%sok_%d = true;", c->cse->prefix, k);
	close_item(c, k);
	return cg_fmt(c, "st->%s%d", c->cse->prefix, k);
}
