/*
 * cg_expr.c - expressions and def bodies as C statements.
 *
 * Every expression is evaluated by straight-line C that stores a sprt_val;
 * each operation goes through the runtime (sprt_op, sprt_cmp, sprt_*),
 * whose nonzero result is a domain error that returns from the generated
 * function (TRY), so the caller charges it to the definition.
 *
 * Lists.  A node that makes a list (a display, list(), an operator that
 * may concatenate, repeat or combine iterables) owns one scratch vector in
 * the space state; it is cleared and refilled each time the node runs, so
 * no allocation happens once capacities have grown.  That is sound as long
 * as a node's previous list is dead when the node runs again.  At top level
 * every node runs once per evaluation of its definition, and the previous
 * value is overwritten at the same time.  In a def body, a node inside a
 * loop runs again while a variable or another list may still hold its
 * last result; those bodies are refused ("use --interpret") rather than
 * miscompiled.  A body that changes a list it did not build (a parameter,
 * a table row) first copies it, as the interpreter does.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cg_int.h"

/* ---- flow of lists inside a body ------------------------------------------- */

static bool scalar_type(enum sema_type t)
{
	return t == TY_INT || t == TY_FLOAT || t == TY_BOOL || t == TY_STR || t == TY_NONE;
}

static bool is_builtin_call(const struct ast_expr *e, const char *name)
{
	if (e->kind != AST_CALL)
		return false;
	const struct ast_expr *f = e->items[0];
	return f->kind == AST_NAME && !f->ref && f->local < 0 && !strcmp(f->name, name);
}

static bool list_op(enum ast_op op)
{
	return op == AST_OP_ADD || op == AST_OP_MUL || op == AST_OP_BITOR ||
	       op == AST_OP_BITAND || op == AST_OP_SUB;
}

static unsigned flow(struct cg *c, const struct ast_expr *e);

/* The element of an iterable with flow f: ranges hold ints, lists anything. */
static unsigned elem_flow(unsigned f)
{
	return (f & (CG_FOREIGN | CG_OWNED)) ? (CG_FOREIGN | (f & CG_OWNED)) : 0;
}

/* Whether `a op b` may build a new list, given the operands' flows. */
static bool op_makes_list(enum ast_op op, unsigned fa, unsigned fb)
{
	if (op == AST_OP_MUL)
		return fa || fb;
	return (op == AST_OP_ADD || op == AST_OP_BITOR || op == AST_OP_BITAND || op == AST_OP_SUB) && fa && fb;
}

/* Whether `e` is surely not an iterable (so an operator needs no scratch). */
static bool scalar_expr(struct cg *c, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_INT:
	case AST_FLOAT:
	case AST_BOOL:
	case AST_STR:
	case AST_NONE:
	case AST_UNARY:
	case AST_COMPARE:
		return true;
	case AST_NAME:
	case AST_INDEX:
		return flow(c, e) == 0;
	case AST_BINARY:
		if (!list_op(e->op))
			return true;
		/* list * int repeats; + | & - need two iterables. */
		if (e->op == AST_OP_MUL)
			return scalar_expr(c, e->items[0]) && scalar_expr(c, e->items[1]);
		return scalar_expr(c, e->items[0]) || scalar_expr(c, e->items[1]);
	case AST_AND:
	case AST_OR:
		for (int i = 0; i < e->nitems; i++)
			if (!scalar_expr(c, e->items[i]))
				return false;
		return true;
	case AST_COND:
		return scalar_expr(c, e->items[1]) && scalar_expr(c, e->items[2]);
	case AST_CALL:
		if (is_builtin_call(e, "len") || is_builtin_call(e, "int") || is_builtin_call(e, "float") ||
		    is_builtin_call(e, "bool") || is_builtin_call(e, "abs") || is_builtin_call(e, "any") ||
		    is_builtin_call(e, "all") || is_builtin_call(e, "round"))
			return true;
		if (e->items[0]->kind == AST_NAME && !e->items[0]->ref && e->items[0]->local < 0 &&
		    sema_math_of(e->items[0]->name) >= 0)
			return sema_math_of(e->items[0]->name) != SEMA_MATH_PROD || flow(c, e) == 0;
		if (is_builtin_call(e, "min") || is_builtin_call(e, "max") || is_builtin_call(e, "sum"))
			return flow(c, e) == 0;
		return false;
	default:
		return false;
	}
}

/* Which kinds of list the value of `e` may be (a range counts as foreign). */
static unsigned flow(struct cg *c, const struct ast_expr *e)
{
	unsigned r = 0;
	if (!e)
		return 0;
	switch (e->kind) {
	case AST_NAME:
		if (e->local >= 0)
			return c->slot_flow ? c->slot_flow[e->local] : CG_FOREIGN;
		if (e->ref)
			return scalar_type(e->ref->type) ? 0 : CG_FOREIGN;
		return 0;
	case AST_LIST:
	case AST_TUPLE:
	case AST_COMP:
		return CG_OWNED;
	case AST_BINARY:
		return scalar_expr(c, e) ? 0 : CG_OWNED;
	case AST_AND:
	case AST_OR:
		for (int i = 0; i < e->nitems; i++)
			r |= flow(c, e->items[i]);
		return r;
	case AST_COND:
		return flow(c, e->items[1]) | flow(c, e->items[2]);
	case AST_INDEX:
		if (is_builtin_call(e->items[0], "divmod"))
			return 0; /* a pair of numbers */
		return elem_flow(flow(c, e->items[0]));
	case AST_CALL:
		if (is_builtin_call(e, "list") || is_builtin_call(e, "divmod"))
			return CG_OWNED;
		if (is_builtin_call(e, "math.prod") && e->nitems == 2)
			return elem_flow(flow(c, e->items[1]));
		if (is_builtin_call(e, "range"))
			return CG_RANGE;
		if (is_builtin_call(e, "min") || is_builtin_call(e, "max") || is_builtin_call(e, "sum")) {
			if (e->nitems == 2)
				return elem_flow(flow(c, e->items[1]));
			for (int i = 1; i < e->nitems; i++)
				r |= flow(c, e->items[i]);
			return r;
		}
		return 0;
	default:
		return 0;
	}
}


static bool add_flow(struct cg *c, const struct ast_expr *t, unsigned f)
{
	if (t->kind == AST_NAME && t->local >= 0) {
		unsigned old = c->slot_flow[t->local];
		c->slot_flow[t->local] |= f;
		return old != c->slot_flow[t->local];
	}
	bool changed = false;
	if (t->kind == AST_TUPLE || t->kind == AST_LIST)
		for (int i = 0; i < t->nitems; i++)
			changed |= add_flow(c, t->items[i], elem_flow(f));
	return changed;
}

/* A comprehension's variables hold the elements of what they run over. */
static bool comp_flow(struct cg *c, const struct ast_expr *e)
{
	bool changed = false;
	if (!e)
		return false;
	for (int i = 0; i < e->nitems; i++)
		changed |= comp_flow(c, e->items[i]);
	if (e->kind != AST_COMP_FOR)
		return changed;
	/* The elements of a display are its items; of anything else, any list. */
	const struct ast_expr *src = e->items[1];
	unsigned f = 0;
	if (src->kind == AST_LIST || src->kind == AST_TUPLE)
		for (int i = 0; i < src->nitems; i++)
			f |= flow(c, src->items[i]);
	else
		f = elem_flow(flow(c, src));
	return changed | add_flow(c, e->items[0], f);
}

static bool flow_block(struct cg *c, const struct ast_block *b)
{
	bool changed = false;
	for (int i = 0; i < b->n; i++) {
		const struct ast_stmt *s = b->stmts[i];
		changed |= comp_flow(c, s->value);
		switch (s->kind) {
		case AST_S_ASSIGN: {
			const struct ast_expr *v = s->value;
			for (int t = 0; t < s->ntargets; t++) {
				const struct ast_expr *tg = s->targets[t];
				if (tg->kind == AST_TUPLE && (v->kind == AST_TUPLE || v->kind == AST_LIST) &&
				    v->nitems == tg->nitems) {
					for (int k = 0; k < tg->nitems; k++)
						changed |= add_flow(c, tg->items[k], flow(c, v->items[k]));
				} else {
					changed |= add_flow(c, tg, flow(c, v));
				}
			}
			break;
		}
		case AST_S_AUGASSIGN: {
			const struct ast_expr *tg = s->targets[0];
			if (tg->kind == AST_NAME && tg->local >= 0 &&
			    op_makes_list(s->op, c->slot_flow[tg->local], flow(c, s->value)))
				changed |= add_flow(c, tg, CG_OWNED);
			break;
		}
		case AST_S_FOR:
			changed |= add_flow(c, s->targets[0], elem_flow(flow(c, s->value)));
			break;
		case AST_S_EXPR:
			/* lst.append(x) on a foreign list makes a private copy. */
			if (s->value->kind == AST_CALL && s->value->items[0]->kind == AST_ATTR) {
				const struct ast_expr *obj = s->value->items[0]->items[0];
				if (obj->kind == AST_NAME && obj->local >= 0 &&
				    (c->slot_flow[obj->local] & (CG_FOREIGN | CG_OWNED)))
					changed |= add_flow(c, obj, CG_OWNED);
			}
			break;
		default:
			break;
		}
		changed |= flow_block(c, &s->body);
		changed |= flow_block(c, &s->orelse);
	}
	return changed;
}

/* ---- strings ---------------------------------------------------------------- */

void cg_collect_strings(struct cg *c, const struct ast_expr *e)
{
	if (!e)
		return;
	if (e->kind == AST_STR)
		cg_string_id(c, e->sval);
	for (int i = 0; i < e->nitems; i++)
		cg_collect_strings(c, e->items[i]);
}

void cg_collect_strings_block(struct cg *c, const struct ast_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct ast_stmt *s = b->stmts[i];
		for (int t = 0; t < s->ntargets; t++)
			cg_collect_strings(c, s->targets[t]);
		cg_collect_strings(c, s->value);
		cg_collect_strings_block(c, &s->body);
		cg_collect_strings_block(c, &s->orelse);
	}
}

/* ---- expressions --------------------------------------------------------------- */

const char *cg_op_char(enum ast_op op)
{
	switch (op) {
	case AST_OP_ADD: return "'+'";
	case AST_OP_SUB: return "'-'";
	case AST_OP_MUL: return "'*'";
	case AST_OP_DIV: return "'/'";
	case AST_OP_FLOORDIV: return "'f'";
	case AST_OP_MOD: return "'%'";
	case AST_OP_POW: return "'p'";
	case AST_OP_BITOR: return "'|'";
	case AST_OP_BITAND: return "'&'";
	case AST_OP_BITXOR: return "'^'";
	case AST_OP_LSHIFT: return "'l'";
	case AST_OP_RSHIFT: return "'r'";
	case AST_OP_LT: return "'<'";
	case AST_OP_LE: return "'l'";
	case AST_OP_GT: return "'>'";
	case AST_OP_GE: return "'g'";
	case AST_OP_EQ: return "'='";
	case AST_OP_NE: return "'!'";
	case AST_OP_IN: return "'i'";
	case AST_OP_NOT_IN: return "'n'";
	default: return "0";
	}
}

static const char *int_literal(struct cg *c, int64_t v)
{
	if (v == INT64_MIN)
		return "INT64_MIN";
	if (v >= -2147483647 && v <= 2147483647)
		return cg_fmt(c, "%" PRId64, v);
	return cg_fmt(c, "INT64_C(%" PRId64 ")", v);
}

static const char *float_literal(struct cg *c, double d)
{
	if (d != d)
		return "(0.0 * (1e308 * 10.0))"; /* not produced by the lexer */
	if (d > 1.7976931348623157e308)
		return "(1e308 * 10.0)";
	if (d < -1.7976931348623157e308)
		return "(-1e308 * 10.0)";
	char buf[64];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* A C double constant needs a '.', an exponent or both. */
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	return cg_fmt(c, "%s", buf);
}

/* A scratch vector of the current function, as a C lvalue. */
static const char *scratch_ref(struct cg *c, int k)
{
	return cg_fmt(c, "st->%s[%d]", c->scratch_member[c->fn->id], k);
}

static const char *local_ref(struct cg *c, const struct ast_expr *e)
{
	return c->local_c[e->local];
}

/* Reports constructs the compiled path refuses. */
static void refuse(struct cg *c, struct srcloc loc, const char *what)
{
	cg_error(c, loc, "cannot compile %s; use --interpret", what);
}

static void gen_call(struct cg *c, const struct ast_expr *e, const char *dst);
static void gen_assign(struct cg *c, const struct ast_expr *t, const char *v);

/* Emits the interpreter's copy-on-write of the list in local `name` (its
 * C lvalue `l`) that this body did not make, before the body changes it in
 * place: the first change copies it into the local's own scratch vector.
 * Refused inside a loop, where one scratch vector would not do (`what`). */
static void gen_unshare(struct cg *c, const struct ast_expr *name, const char *l,
			const char *what)
{
	if (c->loop_depth > 0)
		refuse(c, name->loc, what);
	if (c->slot_copy[name->local] < 0)
		c->slot_copy[name->local] = cg_scratch(c);
	const char *s = scratch_ref(c, c->slot_copy[name->local]);
	cg_line(c, "if (!SPRT_OWNED(st->%s, %s.u.p)) {", c->scratch_member[c->fn->id], l);
	cg_line(c, "\tSPRT_TRY(sprt_vec_copy(&%s, %s.u.p));", s, l);
	cg_line(c, "\t%s = sprt_vecval(&%s);", l, s);
	cg_line(c, "}");
}

/* Emits the append of `lst.append(x)`; dst receives None. */
static void gen_append(struct cg *c, const struct ast_expr *e, const char *dst)
{
	const struct ast_expr *attr = e->items[0];
	const struct ast_expr *obj = attr->items[0];
	if (strcmp(attr->name, "append") || e->nitems != 2) {
		cg_line(c, "return SPRT_ETYPE; /* .%s */", attr->name);
		return;
	}
	if (!c->in_body || obj->kind != AST_NAME || obj->local < 0) {
		refuse(c, obj->loc, "'.append' on something other than a local variable");
		return;
	}
	const char *l = local_ref(c, obj);
	cg_line(c, "if (%s.kind != SPRT_VEC)", l);
	cg_line(c, "\treturn %s.kind == SPRT_UNDEF ? SPRT_EUNDEF : SPRT_ETYPE;", l);
	if (c->slot_flow[obj->local] & CG_FOREIGN)
		gen_unshare(c, obj, l, "'.append' inside a loop to a list the def did not build");
	if (c->loop_depth > 0 && (flow(c, e->items[1]) & CG_OWNED))
		refuse(c, e->items[1]->loc, "a list appended to a list inside a loop of a def body");
	const char *x = cg_operand(c, e->items[1]);
	cg_line(c, "SPRT_TRY(sprt_vec_push(%s.u.p, %s));", l, x);
	if (dst)
		cg_line(c, "%s = sprt_none();", dst);
}

/* Whether `e` itself makes a list, whatever its names hold. */
static bool builds_list(const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_LIST:
	case AST_TUPLE:
	case AST_COMP:
		return true;
	case AST_CALL:
		return is_builtin_call(e, "list") || is_builtin_call(e, "divmod");
	case AST_BINARY:
		return list_op(e->op) && (builds_list(e->items[0]) || builds_list(e->items[1]));
	case AST_COND:
		return builds_list(e->items[1]) || builds_list(e->items[2]);
	case AST_AND:
	case AST_OR:
		for (int i = 0; i < e->nitems; i++)
			if (builds_list(e->items[i]))
				return true;
		return false;
	default:
		return false;
	}
}

/*
 * Clause k of comprehension e and the clauses inside it, as nested loops.
 * Elements are pushed to `vec`; with vec NULL (a generator under any() or
 * all()), the loops end at the first element whose truth is `want`,
 * setting `found` and jumping to `done`.
 */
static void gen_comp(struct cg *c, const struct ast_expr *e, int k, const char *vec, bool want,
		     const char *found, const char *done)
{
	if (k == e->nitems) {
		const struct ast_expr *elt = e->items[0];
		bool owned = vec && (flow(c, elt) & CG_OWNED);
		if (owned && builds_list(elt))
			refuse(c, elt->loc, "a comprehension whose elements are lists it builds");
		const char *x = cg_operand(c, elt);
		if (vec) {
			if (owned) {
				/* An operator that may repeat or join a list read
				 * from elsewhere: such a list lives in a scratch
				 * vector that the next element overwrites. */
				cg_line(c, "if (%s.kind == SPRT_VEC && SPRT_OWNED(st->%s, %s.u.p))", x,
					c->scratch_member[c->fn->id], x);
				cg_line(c, "	return SPRT_ETYPE; /* a list built here, kept in a list */");
			}
			cg_line(c, "SPRT_TRY(sprt_vec_push(&%s, %s));", vec, x);
			return;
		}
		cg_line(c, "if (sprt_is_true(ctx, %s) == %s) {", x, want ? "true" : "false");
		cg_line(c, "	%s = true;", found);
		cg_line(c, "	goto %s;", done);
		cg_line(c, "}");
		return;
	}
	const struct ast_expr *cl = e->items[k];
	const char *seq = cg_temp(c, "sprt_val %s", "sprt_undef()");
	cg_expr_into(c, cl->items[1], seq);
	cg_line(c, "if (%s.kind != SPRT_VEC && %s.kind != SPRT_RANGE)", seq, seq);
	cg_line(c, "	return SPRT_ETYPE;");
	const char *i = cg_temp(c, "uint64_t %s", "0");
	/* The length is read each time round, as in a for loop. */
	cg_line(c, "for (%s = 0; %s < sprt_loop_len(%s); %s++) {", i, i, seq, i);
	c->indent++;
	c->loop_depth++;
	cg_line(c, "SPRT_STEP(steps, limit);");
	gen_assign(c, cl->items[0], cg_fmt(c, "sprt_loop_at(%s, %s)", seq, i));
	for (int f = 2; f < cl->nitems; f++) {
		const char *t = cg_operand(c, cl->items[f]);
		cg_line(c, "if (!sprt_is_true(ctx, %s))", t);
		cg_line(c, "	continue;");
	}
	gen_comp(c, e, k + 1, vec, want, found, done);
	c->loop_depth--;
	c->indent--;
	cg_line(c, "}");
}

/* A comprehension's list, built in a scratch vector of its own. */
static void gen_comp_list(struct cg *c, const struct ast_expr *e, const char *dst)
{
	if (!c->in_body) {
		refuse(c, e->loc, "a comprehension outside a definition's body");
		return;
	}
	const char *s = scratch_ref(c, cg_scratch(c));
	cg_line(c, "sprt_vec_clear(&%s);", s);
	gen_comp(c, e, 1, s, false, NULL, NULL);
	cg_line(c, "%s = sprt_vecval(&%s);", dst, s);
}

/* any(... for ...) (want true) or all(... for ...): stops at the deciding element. */
static void gen_generator_test(struct cg *c, const struct ast_expr *e, bool want, const char *dst)
{
	if (!c->in_body) {
		refuse(c, e->loc, "a comprehension outside a definition's body");
		return;
	}
	const char *found = cg_temp(c, "bool %s", "false");
	const char *done = cg_fmt(c, "gen_done_%d", c->ntemps++);
	cg_line(c, "%s = false;", found);
	gen_comp(c, e, 1, NULL, want, found, done);
	cg_line(c, "%s: ;", done);
	cg_line(c, "%s = sprt_bool(%s%s);", dst, want ? "" : "!", found);
}

/* Whether every argument of a call is a typed int (or bool). */
static bool typed_args(struct cg *c, const struct ast_expr *call)
{
	for (int i = 1; i < call->nitems; i++) {
		enum cg_ctype t = cg_type_of(c, call->items[i]);
		if (t != CG_T_INT && t != CG_T_BOOL)
			return false;
	}
	return true;
}

static void gen_call(struct cg *c, const struct ast_expr *e, const char *dst)
{
	const struct ast_expr *fn = e->items[0];
	int nargs = e->nitems - 1;
	if (fn->kind == AST_ATTR) {
		gen_append(c, e, dst);
		return;
	}
	if (fn->kind != AST_NAME || fn->ref || fn->local >= 0) {
		cg_line(c, "return SPRT_ETYPE; /* not a function */");
		return;
	}
	const char *name = fn->name;
	/* One-argument builtins take the value itself. */
	if (!strcmp(name, "abs") || !strcmp(name, "len") || !strcmp(name, "sum")) {
		if (nargs != 1) {
			cg_line(c, "return SPRT_ETYPE; /* %s() takes 1 argument */", name);
			return;
		}
		const char *a = cg_operand(c, e->items[1]);
		if (!strcmp(name, "abs"))
			cg_line(c, "SPRT_TRY(sprt_builtin_abs(%s, &%s));", a, dst);
		else if (!strcmp(name, "len"))
			cg_line(c, "SPRT_TRY(sprt_builtin_len(ctx, %s, &%s));", a, dst);
		else
			cg_line(c, "SPRT_TRY(sprt_builtin_sum(%s, &%s));", a, dst);
		return;
	}
	if (!strcmp(name, "range") && nargs >= 1 && nargs <= 3 && typed_args(c, e)) {
		/* Int arguments: the range is built inline (the hot loops of
		 * dependent ranges build one per outer value). */
		const char *a[3] = { "0", NULL, "1" };
		for (int i = 0; i < nargs; i++)
			a[nargs == 1 ? 1 : i] = cg_int_operand(c, e->items[i + 1]);
		cg_line(c, "SPRT_TRY(sprt_range_i(%s, %s, %s, &%s));", a[0], a[1], a[2], dst);
		return;
	}
	if ((!strcmp(name, "any") || !strcmp(name, "all")) && nargs == 1) {
		const struct ast_expr *a = e->items[1];
		if (a->kind == AST_COMP && a->ival) {
			gen_generator_test(c, a, name[1] == 'n', dst);
			return;
		}
		cg_line(c, "SPRT_TRY(sprt_builtin_anyall(ctx, %s, %s, &%s));", name[1] == 'n' ? "false" : "true",
			cg_operand(c, a), dst);
		return;
	}
	if (!strcmp(name, "divmod") && nargs == 2) {
		const char *a = cg_operand(c, e->items[1]);
		const char *b = cg_operand(c, e->items[2]);
		const char *q = cg_temp(c, "sprt_val %s", "sprt_undef()");
		const char *r = cg_temp(c, "sprt_val %s", "sprt_undef()");
		const char *s = scratch_ref(c, cg_scratch(c));
		cg_line(c, "SPRT_TRY(sprt_op(ctx, %s, %s, %s, &%s, NULL));", cg_op_char(AST_OP_FLOORDIV), a, b, q);
		cg_line(c, "SPRT_TRY(sprt_op(ctx, %s, %s, %s, &%s, NULL));", cg_op_char(AST_OP_MOD), a, b, r);
		cg_line(c, "sprt_vec_clear(&%s);", s);
		cg_line(c, "SPRT_TRY(sprt_vec_push(&%s, %s));", s, q);
		cg_line(c, "SPRT_TRY(sprt_vec_push(&%s, %s));", s, r);
		cg_line(c, "%s = sprt_vecval(&%s);", dst, s);
		return;
	}
	const char *args = "NULL";
	if (nargs > 0) {
		args = cg_temp(c, cg_fmt(c, "sprt_val %%s[%d]", nargs), NULL);
		for (int i = 0; i < nargs; i++)
			cg_expr_into(c, e->items[i + 1], cg_fmt(c, "%s[%d]", args, i));
	}
	if (!strcmp(name, "range"))
		cg_line(c, "SPRT_TRY(sprt_builtin_range(%s, %d, &%s));", args, nargs, dst);
	else if (!strcmp(name, "min") || !strcmp(name, "max"))
		cg_line(c, "SPRT_TRY(sprt_builtin_minmax(ctx, %s, %s, %d, &%s));",
			name[1] == 'a' ? "true" : "false", args, nargs, dst);
	else if (!strcmp(name, "int"))
		cg_line(c, "SPRT_TRY(sprt_builtin_int(ctx, %s, %d, &%s));", args, nargs, dst);
	else if (!strcmp(name, "float"))
		cg_line(c, "SPRT_TRY(sprt_builtin_float(ctx, %s, %d, &%s));", args, nargs, dst);
	else if (!strcmp(name, "bool") && nargs == 1)
		/* The context knows a run-time string's text (bool("") is False). */
		cg_line(c, "%s = sprt_bool(sprt_truthy_ctx(ctx, (%s)[0]));", dst, args);
	else if (!strcmp(name, "bool"))
		cg_line(c, "SPRT_TRY(sprt_builtin_bool(%s, %d, &%s));", args, nargs, dst);
	else if (!strcmp(name, "list"))
		cg_line(c, "SPRT_TRY(sprt_builtin_list(%s, %d, &%s, &%s));", args, nargs, dst,
			scratch_ref(c, cg_scratch(c)));
	else if (!strcmp(name, "round"))
		cg_line(c, "SPRT_TRY(sprt_builtin_round(%s, %d, &%s));", args, nargs, dst);
	else if (sema_math_of(name) >= 0) {
		char upper[32];
		snprintf(upper, sizeof(upper), "%s", sema_math_functions[sema_math_of(name)].name);
		for (char *p = upper; *p; p++)
			if (*p >= 'a' && *p <= 'z')
				*p = (char)(*p - 'a' + 'A');
		cg_line(c, "SPRT_TRY(sprt_builtin_math(ctx, SPRT_MATH_%s, %s, %d, &%s));", upper, args, nargs, dst);
	} else
		cg_line(c, "return SPRT_ETYPE; /* unknown function '%s' */", name);
}

/* A list display of 16 or more int literals (none INT64_MIN, which C
 * cannot write as one literal). */
static bool literal_ints(const struct ast_expr *e)
{
	if (e->kind != AST_LIST || e->nitems < 16)
		return false;
	for (int i = 0; i < e->nitems; i++)
		if (e->items[i]->kind != AST_INT || e->items[i]->ival == INT64_MIN)
			return false;
	return true;
}

/* A literal item of a list display as a static initializer (SPRT_*_C in
 * spacert_gen.h), a sign included; NULL for anything else. */
static const char *const_item(struct cg *c, const struct ast_expr *e)
{
	bool neg = false;
	if (e->kind == AST_UNARY && (e->op == AST_OP_NEG || e->op == AST_OP_POS) &&
	    (e->items[0]->kind == AST_INT || e->items[0]->kind == AST_FLOAT)) {
		neg = e->op == AST_OP_NEG;
		e = e->items[0];
	}
	switch (e->kind) {
	case AST_INT:
		if (neg && e->ival == INT64_MIN)
			return NULL; /* -(-2**63) overflows: the operator reports it */
		return cg_fmt(c, "SPRT_INT_C(%s)", int_literal(c, neg ? -e->ival : e->ival));
	case AST_FLOAT:
		return cg_fmt(c, "SPRT_FLOAT_C(%s)", float_literal(c, neg ? -e->fval : e->fval));
	case AST_BOOL:
		return e->ival ? "SPRT_BOOL_C(1)" : "SPRT_BOOL_C(0)";
	case AST_STR:
		return cg_fmt(c, "SPRT_STR_C(%d)", cg_string_id(c, e->sval));
	case AST_NONE:
		return "SPRT_NONE_C";
	default:
		return NULL;
	}
}

/*
 * A list or tuple display whose items are all literals (after
 * specialization, settings and device parameters are literals too), such
 * as Kernel Tuner's `tex_a = [0, 1]`: one static const array, built by the
 * C compiler, instead of a scratch vector filled at every evaluation (in a
 * sub-nest, every time it is counted).  Not in a def body's assignment
 * (c->keeping): a list kept in a variable may be appended to in place.
 * Returns false (nothing written) where it does not apply.
 */
static bool const_list(struct cg *c, const struct ast_expr *e, const char *dst)
{
	if (e->nitems == 0 || (c->in_body && c->keeping))
		return false;
	const char **items = calloc((size_t)e->nitems, sizeof(*items));
	bool ok = items != NULL;
	for (int i = 0; ok && i < e->nitems; i++)
		ok = (items[i] = const_item(c, e->items[i])) != NULL;
	if (ok) {
		int k = ++c->ntemps;
		cg_line(c, "static const sprt_val _items%d[%d] = { /* built once, never written */", k, e->nitems);
		for (int i = 0; i < e->nitems; i += 4) {
			struct sbuf row = { 0 };
			for (int j = i; j < e->nitems && j < i + 4; j++)
				sbuf_printf(&row, "%s%s,", j > i ? " " : "", items[j]);
			cg_line(c, "\t%s", row.s);
			sbuf_release(&row);
		}
		cg_line(c, "};");
		cg_line(c, "static const struct sprt_vec _list%d = SPRT_VEC_C(_items%d);", k, k);
		cg_line(c, "%s = sprt_constvec(&_list%d);", dst, k);
	}
	free(items);
	return ok;
}

/*
 * An and/or or comparison chain is one flat block that its operands leave
 * by `break` as soon as the value is decided: nesting one `if` per operand
 * made the C quadratic in the chain's length (indentation) and as deep as
 * it (10,000 comparisons: 150 MB of C that no compiler took).
 */
void cg_open_chain(struct cg *c, bool open)
{
	if (!open)
		return;
	cg_line(c, "do {");
	c->indent++;
}

void cg_close_chain(struct cg *c, bool open)
{
	if (!open)
		return;
	c->indent--;
	cg_line(c, "} while (0);");
}

static void gen_compare(struct cg *c, const struct ast_expr *e, const char *dst)
{
	const char *b = cg_temp(c, "bool %s", "false");
	const char *left = cg_operand(c, e->items[0]);
	bool chain = e->nitems > 2;
	cg_open_chain(c, chain);
	for (int i = 1; i < e->nitems; i++) {
		const char *right = cg_operand(c, e->items[i]);
		cg_line(c, "SPRT_TRY(sprt_cmp(ctx, %s, %s, %s, &%s));", cg_op_char(e->cmp[i - 1]), left, right, b);
		left = right;
		if (i + 1 < e->nitems)
			cg_line(c, "if (!%s)", b); /* later operands run only while the chain holds */
		if (i + 1 < e->nitems)
			cg_line(c, "\tbreak;");
	}
	cg_close_chain(c, chain);
	cg_line(c, "%s = sprt_bool(%s);", dst, b);
}

/* Evaluates `e` into the sprt_val lvalue `dst`. */
void cg_expr_into(struct cg *c, const struct ast_expr *e, const char *dst)
{
	if (cg_cse_into(c, e, dst))
		return;
	enum cg_ctype ty = cg_type_of(c, e);
	if (ty != CG_T_VAL && e->kind != AST_NAME && e->kind != AST_INT && e->kind != AST_BOOL &&
	    e->kind != AST_INDEX) {
		/* Proven ints and bools are computed unboxed (cg_type.c); a
		 * table's element is computed boxed and unboxed after. */
		cg_line(c, "%s = %s;", dst, cg_box(c, ty, cg_int_operand(c, e)));
		return;
	}
	switch (e->kind) {
	case AST_INT:
	case AST_FLOAT:
	case AST_STR:
	case AST_BOOL:
	case AST_NONE:
	case AST_NAME:
		cg_line(c, "%s = %s;", dst, cg_operand(c, e));
		return;
	case AST_LIST:
	case AST_TUPLE: {
		if (const_list(c, e, dst))
			return;
		const char *s = scratch_ref(c, cg_scratch(c));
		if (literal_ints(e)) {
			/* One static array and a loop: a statement per item made
			 * 300,000 items overflow tcc's stack (a slot per call). */
			const char *a = cg_fmt(c, "_items%d", ++c->ntemps);
			cg_line(c, "static const int64_t %s[%d] = {", a, e->nitems);
			for (int i = 0; i < e->nitems; i += 8) {
				struct sbuf row = { 0 };
				for (int k = i; k < e->nitems && k < i + 8; k++)
					sbuf_printf(&row, "%sINT64_C(%" PRId64 "),", k > i ? " " : "", e->items[k]->ival);
				cg_line(c, "\t%s", row.s);
				sbuf_release(&row);
			}
			cg_line(c, "};");
			cg_line(c, "sprt_vec_clear(&%s);", s);
			cg_line(c, "for (size_t _k = 0; _k < %d; _k++)", e->nitems);
			cg_line(c, "\tSPRT_TRY(sprt_vec_push(&%s, sprt_int(%s[_k])));", s, a);
			cg_line(c, "%s = sprt_vecval(&%s);", dst, s);
			return;
		}
		/* Items first: one of them may fail before the list changes. */
		const char **items = calloc((size_t)e->nitems + 1, sizeof(*items));
		for (int i = 0; i < e->nitems; i++) {
			if (c->in_body && c->loop_depth > 0 && (flow(c, e->items[i]) & CG_OWNED))
				refuse(c, e->items[i]->loc, "a list inside a list built in a loop of a def body");
			items[i] = cg_operand(c, e->items[i]);
		}
		cg_line(c, "sprt_vec_clear(&%s);", s);
		for (int i = 0; i < e->nitems; i++)
			cg_line(c, "SPRT_TRY(sprt_vec_push(&%s, %s));", s, items[i]);
		free(items);
		cg_line(c, "%s = sprt_vecval(&%s);", dst, s);
		return;
	}
	case AST_UNARY: {
		const char *a = cg_operand(c, e->items[0]);
		switch (e->op) {
		case AST_OP_NOT:
			cg_line(c, "%s = sprt_bool(!sprt_is_true(ctx, %s));", dst, a);
			return;
		case AST_OP_NEG:
			cg_line(c, "SPRT_TRY(sprt_neg(%s, &%s));", a, dst);
			return;
		case AST_OP_POS:
			cg_line(c, "SPRT_TRY(sprt_pos(%s, &%s));", a, dst);
			return;
		case AST_OP_INVERT:
			cg_line(c, "SPRT_TRY(sprt_invert(%s, &%s));", a, dst);
			return;
		default:
			cg_line(c, "return SPRT_ETYPE;");
			return;
		}
	}
	case AST_BINARY: {
		const char *a = cg_operand(c, e->items[0]);
		const char *b = cg_operand(c, e->items[1]);
		const char *s = "NULL";
		if (list_op(e->op) && !(scalar_expr(c, e->items[0]) && scalar_expr(c, e->items[1])))
			s = cg_fmt(c, "&%s", scratch_ref(c, cg_scratch(c)));
		cg_line(c, "SPRT_TRY(sprt_op(ctx, %s, %s, %s, &%s, %s));", cg_op_char(e->op), a, b, dst, s);
		return;
	}
	case AST_AND:
	case AST_OR: {
		/* The deciding operand is the value, as in Python. */
		cg_expr_into(c, e->items[0], dst);
		cg_open_chain(c, true);
		for (int i = 1; i < e->nitems; i++) {
			cg_line(c, "if (%ssprt_is_true(ctx, %s))", e->kind == AST_AND ? "!" : "", dst);
			cg_line(c, "\tbreak;");
			cg_expr_into(c, e->items[i], dst);
		}
		cg_close_chain(c, true);
		return;
	}
	case AST_COMPARE:
		gen_compare(c, e, dst);
		return;
	case AST_COND: {
		const char *t = cg_operand(c, e->items[0]);
		cg_line(c, "if (sprt_is_true(ctx, %s)) {", t);
		c->indent++;
		cg_expr_into(c, e->items[1], dst);
		c->indent--;
		cg_line(c, "} else {");
		c->indent++;
		cg_expr_into(c, e->items[2], dst);
		c->indent--;
		cg_line(c, "}");
		return;
	}
	case AST_CALL:
		gen_call(c, e, dst);
		return;
	case AST_INDEX: {
		const char *a = cg_operand(c, e->items[0]);
		const char *i = cg_operand(c, e->items[1]);
		cg_line(c, "SPRT_TRY(sprt_index(%s, %s, &%s));", a, i, dst);
		return;
	}
	case AST_ATTR:
		cg_line(c, "return SPRT_ETYPE; /* a method that is not called */");
		return;
	case AST_UNDEF:
		cg_line(c, "return SPRT_EUNDEF; /* no value on this path */");
		return;
	case AST_COMP:
		gen_comp_list(c, e, dst);
		return;
	case AST_COMP_FOR:
		cg_line(c, "return SPRT_ETYPE;");
		return;
	}
}

/*
 * A C expression for the value of `e`: a literal, a field or local for
 * names (after the checks a read needs), else a temporary it was computed
 * into.  The text stays valid for the rest of the enclosing expression.
 */
const char *cg_operand(struct cg *c, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_INT:
		return cg_fmt(c, "sprt_int(%s)", int_literal(c, e->ival));
	case AST_FLOAT:
		return cg_fmt(c, "sprt_float(%s)", float_literal(c, e->fval));
	case AST_STR:
		return cg_fmt(c, "sprt_str(%d)", cg_string_id(c, e->sval));
	case AST_BOOL:
		return e->ival ? "sprt_bool(true)" : "sprt_bool(false)";
	case AST_NONE:
		return "sprt_none()";
	case AST_NAME:
		if (e->local >= 0) {
			const char *l = local_ref(c, e);
			cg_line(c, "if (%s.kind == SPRT_UNDEF)", l);
			cg_line(c, "\treturn SPRT_EUNDEF;");
			return l;
		}
		if (e->ref) {
			const char *m = cg_value_of(c, e->ref);
			/* Constraints have no value; anything else read here was
			 * computed before (sema's placement). */
			if (e->ref->kind == SEMA_CONSTRAINT) {
				cg_line(c, "if (%s.kind == SPRT_UNDEF)", m);
				cg_line(c, "\treturn SPRT_EUNDEF;");
			}
			return m;
		}
		cg_line(c, "return SPRT_ETYPE; /* builtin '%s' is not a value */", e->name);
		return "sprt_none()";
	default: {
		/* Proven ints and bools are computed unboxed (cg_type.c). */
		enum cg_ctype ty = cg_type_of(c, e);
		if (ty != CG_T_VAL)
			return cg_box(c, ty, cg_int_operand(c, e));
		const char *t = cg_temp(c, "sprt_val %s", "sprt_undef()");
		cg_expr_into(c, e, t);
		return t;
	}
	}
}

/* ---- statements of def bodies ------------------------------------------------- */

static void gen_block(struct cg *c, const struct ast_block *b);

static void line_directive(struct cg *c, int line)
{
	if (c->opt->line_directives)
		sbuf_printf(c->code, "#line %d %s\n", line, c->src_quoted);
}

/* Binds a target to the value `v` (a C expression, evaluated once). */
static void gen_assign(struct cg *c, const struct ast_expr *t, const char *v)
{
	switch (t->kind) {
	case AST_NAME:
		if (t->local < 0) {
			cg_line(c, "return SPRT_ETYPE; /* not a local */");
			return;
		}
		cg_line(c, "%s = %s;", local_ref(c, t), v);
		return;
	case AST_TUPLE:
	case AST_LIST: {
		cg_line(c, "if ((%s.kind != SPRT_VEC && %s.kind != SPRT_RANGE) || sprt_loop_len(%s) != %d)", v, v, v,
			t->nitems);
		cg_line(c, "\treturn SPRT_EVALUE;");
		const char *hold = v;
		if (strncmp(v, "_t", 2)) {
			hold = cg_temp(c, "sprt_val %s", "sprt_undef()");
			cg_line(c, "%s = %s;", hold, v);
		}
		for (int i = 0; i < t->nitems; i++) {
			const char *x = cg_temp(c, "sprt_val %s", "sprt_undef()");
			cg_line(c, "%s = sprt_loop_at(%s, %d);", x, hold, i);
			gen_assign(c, t->items[i], x);
		}
		return;
	}
	default:
		refuse(c, t->loc, "an assignment to an item or attribute");
		return;
	}
}

static bool makes_list(const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_LIST:
	case AST_TUPLE:
		return true;
	case AST_BINARY:
		return list_op(e->op);
	case AST_COMP:
		return true;
	case AST_CALL:
		return is_builtin_call(e, "list") || is_builtin_call(e, "divmod");
	case AST_AND:
	case AST_OR:
		for (int i = 0; i < e->nitems; i++)
			if (makes_list(e->items[i]))
				return true;
		return false;
	case AST_COND:
		return makes_list(e->items[1]) || makes_list(e->items[2]);
	default:
		return false;
	}
}

static void gen_assign_stmt(struct cg *c, const struct ast_stmt *s)
{
	const struct ast_expr *v = s->value;
	/* a, b = x, y: no list in between; every value first, then the
	 * targets left to right, as Python does. */
	if (s->ntargets == 1 && s->targets[0]->kind == AST_TUPLE &&
	    (v->kind == AST_TUPLE || v->kind == AST_LIST)) {
		const struct ast_expr *t = s->targets[0];
		const char **vals = calloc((size_t)v->nitems + 1, sizeof(*vals));
		for (int i = 0; i < v->nitems; i++) {
			if (c->loop_depth > 0 && makes_list(v->items[i]) && (flow(c, v->items[i]) & CG_OWNED))
				refuse(c, v->items[i]->loc,
				       "a list built inside a loop of a def body and kept in a variable");
			vals[i] = cg_temp(c, "sprt_val %s", "sprt_undef()");
			bool keeping = c->keeping;
			c->keeping = true;
			cg_expr_into(c, v->items[i], vals[i]);
			c->keeping = keeping;
		}
		if (v->nitems != t->nitems)
			cg_line(c, "return SPRT_EVALUE; /* %d values for %d names */", v->nitems, t->nitems);
		else
			for (int i = 0; i < t->nitems; i++)
				gen_assign(c, t->items[i], vals[i]);
		free(vals);
		return;
	}
	if (c->loop_depth > 0 && makes_list(v) && (flow(c, v) & CG_OWNED))
		refuse(c, v->loc, "a list built inside a loop of a def body and kept in a variable");
	const char *t = cg_temp(c, "sprt_val %s", "sprt_undef()");
	bool keeping = c->keeping;
	c->keeping = true;
	cg_expr_into(c, v, t);
	c->keeping = keeping;
	for (int i = 0; i < s->ntargets; i++)
		gen_assign(c, s->targets[i], t);
}

static void gen_augassign(struct cg *c, const struct ast_stmt *s)
{
	const struct ast_expr *t = s->targets[0];
	if (t->kind != AST_NAME || t->local < 0) {
		refuse(c, t->loc, "an augmented assignment to an item");
		return;
	}
	const char *l = local_ref(c, t);
	cg_line(c, "if (%s.kind == SPRT_UNDEF)", l);
	cg_line(c, "\treturn SPRT_EUNDEF;");
	const char *v = cg_operand(c, s->value);
	unsigned f = c->slot_flow[t->local], fv = flow(c, s->value);
	bool may_list = op_makes_list(s->op, f, fv);
	bool extend = s->op == AST_OP_ADD && (f & (CG_FOREIGN | CG_OWNED)) && fv;
	if (extend) {
		/* Python's list += extends the list in place. */
		cg_line(c, "if (%s.kind == SPRT_VEC && (%s.kind == SPRT_VEC || %s.kind == SPRT_RANGE)) {", l, v, v);
		c->indent++;
		if (f & CG_FOREIGN)
			gen_unshare(c, t, l, "'+=' inside a loop on a list the def did not build");
		const char *n = cg_temp(c, "uint64_t %s", "0");
		cg_line(c, "%s = sprt_loop_len(%s);", n, v);
		cg_line(c, "for (uint64_t i = 0; i < %s; i++)", n);
		cg_line(c, "\tSPRT_TRY(sprt_vec_push(%s.u.p, sprt_loop_at(%s, i)));", l, v);
		c->indent--;
		cg_line(c, "} else {");
		c->indent++;
	}
	const char *sc = "NULL";
	if (may_list) {
		if (c->loop_depth > 0)
			refuse(c, t->loc, "an operator that builds a list inside a loop of a def body");
		sc = cg_fmt(c, "&%s", scratch_ref(c, cg_scratch(c)));
	}
	cg_line(c, "SPRT_TRY(sprt_op(ctx, %s, %s, %s, &%s, %s));", cg_op_char(s->op), l, v, l, sc);
	if (extend) {
		c->indent--;
		cg_line(c, "}");
	}
}

static void open_block(struct cg *c, const char *fmt, const char *arg)
{
	cg_line(c, fmt, arg);
	c->indent++;
}

static void close_block(struct cg *c)
{
	c->indent--;
	cg_line(c, "}");
}

/* A loop's flag for its else (set when the else must run, or when it
 * must not), or NULL when the loop has no else. */
static const char *else_flag(struct cg *c, const struct ast_stmt *s)
{
	if (!s->orelse.n)
		return NULL;
	const char *flag = cg_temp(c, "bool %s", "false");
	cg_line(c, "%s = false;", flag);
	return flag;
}

/*
 * A loop's body, closing the loop, then its else: `brk` is the flag a
 * break in the body sets (NULL: none), and the else runs where `flag`
 * passes the test `else_if` (a format for it).
 */
static void gen_loop_rest(struct cg *c, const struct ast_stmt *s, const char *brk, const char *flag,
                          const char *else_if)
{
	if (c->loop_depth < 63)
		c->brk_flag[c->loop_depth] = brk;
	c->loop_depth++;
	gen_block(c, &s->body);
	c->loop_depth--;
	close_block(c);
	if (flag) {
		open_block(c, else_if, flag);
		gen_block(c, &s->orelse);
		close_block(c);
	}
}

static void gen_for(struct cg *c, const struct ast_stmt *s)
{
	const char *seq = cg_temp(c, "sprt_val %s", "sprt_undef()");
	cg_expr_into(c, s->value, seq);
	cg_line(c, "if (%s.kind != SPRT_VEC && %s.kind != SPRT_RANGE)", seq, seq);
	cg_line(c, "\treturn SPRT_ETYPE;");
	const char *flag = else_flag(c, s);
	const char *i = cg_temp(c, "uint64_t %s", "0");
	/* The length is read each time round: Python sees appends. */
	cg_line(c, "for (%s = 0; %s < sprt_loop_len(%s); %s++) {", i, i, seq, i);
	c->indent++;
	cg_line(c, "SPRT_STEP(steps, limit);");
	gen_assign(c, s->targets[0], cg_fmt(c, "sprt_loop_at(%s, %s)", seq, i));
	gen_loop_rest(c, s, flag, flag, "if (!%s) {");
}

static void gen_while(struct cg *c, const struct ast_stmt *s)
{
	const char *flag = else_flag(c, s);
	cg_line(c, "for (;;) {");
	c->indent++;
	cg_line(c, "SPRT_STEP(steps, limit);");
	const char *cond = cg_operand(c, s->value);
	if (flag) {
		cg_line(c, "if (!sprt_is_true(ctx, %s)) {", cond);
		cg_line(c, "\t%s = true;", flag);
		cg_line(c, "\tbreak;");
		cg_line(c, "}");
	} else {
		cg_line(c, "if (!sprt_is_true(ctx, %s))", cond);
		cg_line(c, "\tbreak;");
	}
	/* a break skips the else: the flag stays false */
	gen_loop_rest(c, s, NULL, flag, "if (%s) {");
}

static void gen_stmt(struct cg *c, const struct ast_stmt *s)
{
	line_directive(c, s->loc.line);
	cg_line(c, "SPRT_STEP(steps, limit);");
	switch (s->kind) {
	case AST_S_ASSIGN:
		gen_assign_stmt(c, s);
		return;
	case AST_S_AUGASSIGN:
		gen_augassign(c, s);
		return;
	case AST_S_EXPR:
		if (s->value->kind == AST_CALL && s->value->items[0]->kind == AST_ATTR) {
			gen_append(c, s->value, NULL);
			return;
		}
		if (s->value->kind == AST_STR || s->value->kind == AST_INT || s->value->kind == AST_FLOAT ||
		    s->value->kind == AST_BOOL || s->value->kind == AST_NONE)
			return; /* a docstring or a constant: nothing to do */
		(void)cg_operand(c, s->value);
		return;
	case AST_S_IF: {
		const char *cond = cg_operand(c, s->value);
		open_block(c, "if (sprt_is_true(ctx, %s)) {", cond);
		gen_block(c, &s->body);
		if (s->orelse.n) {
			c->indent--;
			cg_line(c, "} else {");
			c->indent++;
			gen_block(c, &s->orelse);
		}
		close_block(c);
		return;
	}
	case AST_S_WHILE:
		gen_while(c, s);
		return;
	case AST_S_FOR:
		gen_for(c, s);
		return;
	case AST_S_BREAK: {
		const char *flag = c->loop_depth > 0 && c->loop_depth <= 63 ? c->brk_flag[c->loop_depth - 1] : NULL;
		if (flag)
			cg_line(c, "%s = true;", flag);
		cg_line(c, "break;");
		return;
	}
	case AST_S_CONTINUE:
		cg_line(c, "continue;");
		return;
	case AST_S_RETURN:
		if (c->fn->form == SEMA_FORM_CLOSURE) {
			cg_line(c, "return 0;");
			return;
		}
		if (s->value) {
			const char *t = cg_operand(c, s->value);
			cg_line(c, "*out = %s;", t);
		} else {
			cg_line(c, "*out = sprt_none();");
		}
		cg_line(c, "return 0;");
		return;
	case AST_S_YIELD: {
		if (c->loop_depth > 0 && (flow(c, s->value) & CG_OWNED))
			refuse(c, s->value->loc, "a list built in a def body yielded inside a loop");
		const char *v = cg_operand(c, s->value);
		if (c->fn->form == SEMA_FORM_CLOSURE)
			cg_line(c, "SPRT_TRY(sprt_vec_push(&st->%s, %s));", c->yield_member[c->fn->id], v);
		else
			cg_line(c, "return SPRT_ETYPE; /* yield outside an iterator */");
		return;
	}
	case AST_S_PASS:
		return;
	default:
		cg_line(c, "return SPRT_ETYPE;");
		return;
	}
}

static void gen_block(struct cg *c, const struct ast_block *b)
{
	for (int i = 0; i < b->n; i++)
		gen_stmt(c, b->stmts[i]);
}

/* Prefixes a def body's locals may not have: the runtime's names and the
 * <stdint.h> types, which a local would hide from the code after it. */
static bool reserved_prefix(const char *s)
{
	return !strncmp(s, "sprt_", 5) || !strncmp(s, "SPRT_", 5) || !strncmp(s, "int", 3) ||
	       !strncmp(s, "uint", 4);
}

/*
 * The function of a def body: locals are C variables named after the
 * Python ones, parameters start from the current values of what they
 * name, and every statement is one step against the limit.
 */
void cg_body(struct cg *c, const struct sema_def *d)
{
	int nlocals = d->nlocals > d->nparams ? d->nlocals : d->nparams;
	c->in_body = true;
	c->loop_depth = 0;
	c->local_c = calloc((size_t)nlocals + 1, sizeof(*c->local_c));
	c->slot_flow = calloc((size_t)nlocals + 1, sizeof(*c->slot_flow));
	c->slot_copy = calloc((size_t)nlocals + 1, sizeof(*c->slot_copy));
	static const char *const reserved[] = { "ctx", "st", "out", "steps", "limit", "i", NULL };
	for (int i = 0; i < nlocals; i++) {
		const char *n = d->local_names[i];
		if (strchr(n, '.')) {
			/* A comprehension's variable ("x.3", sema's comp_slot):
			 * x_3, unique below since it comes after every other local. */
			char buf[300];
			snprintf(buf, sizeof(buf), "%s", n);
			*strchr(buf, '.') = '_';
			n = cg_strdup(c, buf);
		}
		const char *name = cg_c_spelling(c, n);
		for (bool clash = true; clash;) {
			if (reserved_prefix(name)) {
				name = cg_fmt(c, "u%s", name);
				continue;
			}
			clash = cg_c_reserved(name) || !strcmp(name, "main");
			for (int k = 0; reserved[k]; k++)
				clash |= !strcmp(reserved[k], name);
			for (int k = 0; k < i; k++)  /* x and x_ must stay two locals */
				clash |= !strcmp(c->local_c[k], name);
			if (clash)
				name = cg_fmt(c, "%s_", name);
		}
		c->local_c[i] = name;
		c->slot_copy[i] = -1;
		if (i < d->nparams && d->param_defs[i] && !scalar_type(d->param_defs[i]->type))
			c->slot_flow[i] = CG_FOREIGN;
	}
	while (flow_block(c, &d->stmt->body))
		;
	for (int i = 0; i < nlocals; i++) {
		if (i < d->nparams && d->param_defs[i])
			sbuf_printf(&c->decls, "\tsprt_val %s = %s;\n", c->local_c[i],
				    cg_value_of(c, d->param_defs[i]));
		else
			sbuf_printf(&c->decls, "\tsprt_val %s = sprt_undef();\n", c->local_c[i]);
	}
	for (int i = 0; i < d->nparams; i++)
		sbuf_printf(&c->decls, "\t(void)%s;\n", c->local_c[i]);
	sbuf_puts(&c->decls, "\tuint64_t steps = 0;\n");
	sbuf_puts(&c->decls, "\tconst uint64_t limit = ctx->step_limit ? ctx->step_limit : SPRT_STEP_LIMIT;\n");
	if (d->form == SEMA_FORM_CLOSURE) {
		cg_line(c, "sprt_vec_clear(&st->%s);", c->yield_member[d->id]);
		cg_line(c, "*out = sprt_vecval(&st->%s);", c->yield_member[d->id]);
	} else {
		cg_line(c, "*out = sprt_none();");
	}
	gen_block(c, &d->stmt->body);
	if (c->opt->line_directives)
		sbuf_printf(c->code, "#line %d %s\n", d->stmt->loc.line, c->src_quoted);
	cg_line(c, "return 0;");
	CG_FREE(c->local_c);
	CG_FREE(c->slot_flow);
	CG_FREE(c->slot_copy);
	c->in_body = false;
}
