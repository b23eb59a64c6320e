/*
 * specialize.c - a program specialized to the values known before it runs.
 *
 * Device parameters and settings are bound before enumeration starts, so
 * where the caller knows the bindings (spacec count, list, stats) a branch
 * on them is decided here, once, instead of in every point of the loop
 * nest.  That matters most where the branch hides a definition's shape from
 * the code generator's transformations: BEAST writes
 *
 *     @iterator
 *     def dim_m_a(blk_m, blk_k):
 *         if trans_a == 0:
 *             return range(1, blk_m//dim_vec+1)
 *         ...
 *
 * and a def body is opaque to equality solving, bound tightening, divisor
 * iteration, factorization and interval pruning; the range it returns is
 * not.  So:
 *
 *   - a name whose value is known (a bound or literal-default device
 *     parameter or setting, a constant that folds from them, an entry of a
 *     literal table at known indices) becomes that literal;
 *   - operators on literals fold (ints, bools, strings; never where Python
 *     would raise, so a domain error stays one), a conditional expression
 *     with a known test becomes its branch, and `and`/`or` drop their known
 *     operands where the result cannot change (in a test, where only the
 *     truth of the result counts, a trailing known operand that cannot
 *     decide goes too);
 *   - a def body (deferred iterator or decorated constraint) made only of
 *     `if`/`elif`/`else`, `pass` and `return` becomes the expression it
 *     computes: a decided `if` is its branch, an undecided one a
 *     conditional expression, and parameters refer to the definitions they
 *     name.  A deferred iterator's scalar return (`return 0`) is the range
 *     of that one value, as the loop over a scalar is; `range(a, b) if c
 *     else range(d, e)` is one range with conditional bounds, which the
 *     code generator loops over as a counted loop.
 *
 * Every rewrite computes the same value as the code it replaces, with the
 * same domain errors, wherever the bindings are those given; the
 * dependencies are then recomputed from the new expressions, so a
 * definition no longer depends on what a decided branch read.  Only the
 * statistics can change (a constraint that folds away is checked once),
 * which is why -O0 and -fno-specialization leave the program as written.
 */
#include "specialize.h"

#include <stdlib.h>
#include <string.h>

struct spec {
	struct ast_module *mod;
	const struct sema_known *known;
	int nknown;
	int ndefs;
	/* Per def id: 0 not yet looked at, 1 in progress, 2 done. */
	unsigned char *state;
	struct ast_expr **value; /* per def id: its literal value, or NULL */
};

static bool is_literal(const struct ast_expr *e)
{
	return e && (e->kind == AST_INT || e->kind == AST_BOOL || e->kind == AST_STR ||
		     e->kind == AST_FLOAT || e->kind == AST_NONE);
}

/* Python's truth of a literal. */
static bool truthy(const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_INT:
	case AST_BOOL:
		return e->ival != 0;
	case AST_FLOAT:
		return e->fval != 0.0;
	case AST_STR:
		return e->sval[0] != 0;
	default:
		return false;
	}
}

static struct ast_expr *lit_int(struct spec *s, struct srcloc loc, int64_t v)
{
	struct ast_expr *e = ast_expr_new(s->mod, AST_INT, loc);
	e->ival = v;
	return e;
}

static struct ast_expr *lit_bool(struct spec *s, struct srcloc loc, bool v)
{
	struct ast_expr *e = ast_expr_new(s->mod, AST_BOOL, loc);
	e->ival = v;
	return e;
}

/* A copy of a literal, located where it replaces a name. */
static struct ast_expr *lit_copy(struct spec *s, const struct ast_expr *v, struct srcloc loc)
{
	struct ast_expr *e = ast_expr_new(s->mod, v->kind, loc);
	e->ival = v->ival;
	e->fval = v->fval;
	e->sval = v->sval;
	return e;
}

static struct ast_expr *simplify(struct spec *s, struct ast_expr *e, bool test);

/* The known value of a definition, or NULL. */
static struct ast_expr *known_value(struct spec *s, struct sema_def *d)
{
	if (!d || d->id < 0 || d->id >= s->ndefs)
		return NULL;
	if (s->state[d->id])
		return s->value[d->id]; /* done, or a cycle (reported by sema) */
	s->state[d->id] = 1;
	struct ast_expr *v = NULL;
	if (d->kind == SEMA_DEVICE || d->kind == SEMA_SETTING) {
		for (int i = s->nknown - 1; i >= 0 && !v; i--)
			if (!strcmp(s->known[i].name, d->name))
				v = s->known[i].value;
		if (!v && !d->query && d->expr) {
			struct ast_expr *x = simplify(s, d->expr, false);
			v = is_literal(x) ? x : NULL;
		}
	} else if (d->kind == SEMA_CONST && d->form == SEMA_FORM_EXPR && d->expr) {
		/* Provisional: any plain assignment.  A literal result means a
		 * constant, whatever it is later classified as. */
		struct ast_expr *x = simplify(s, d->expr, false);
		v = is_literal(x) ? x : NULL;
	}
	s->value[d->id] = v;
	s->state[d->id] = 2;
	return v;
}

/* A literal table's row or entry, or NULL. */
static struct ast_expr *table_of(struct spec *s, struct ast_expr *e)
{
	if (e->kind == AST_LIST)
		return e;
	if (e->kind == AST_NAME && e->ref && e->ref->form == SEMA_FORM_EXPR &&
	    e->ref->kind == SEMA_CONST && e->ref->expr && e->ref->expr->kind == AST_LIST &&
	    !e->ref->partial)
		return e->ref->expr;
	return NULL;
}

static bool fold_int_binary(enum ast_op op, int64_t a, int64_t b, int64_t *out)
{
	switch (op) {
	case AST_OP_ADD: return !__builtin_add_overflow(a, b, out);
	case AST_OP_SUB: return !__builtin_sub_overflow(a, b, out);
	case AST_OP_MUL: return !__builtin_mul_overflow(a, b, out);
	case AST_OP_FLOORDIV:
	case AST_OP_MOD:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		{
			int64_t q = a / b, r = a % b;
			if (r != 0 && ((r < 0) != (b < 0))) {
				q--;
				r += b;
			}
			*out = op == AST_OP_FLOORDIV ? q : r;
		}
		return true;
	default:
		return false;
	}
}

/* A comparison of two literals of one family (ints/bools, or strings). */
static bool fold_compare(enum ast_op op, const struct ast_expr *a, const struct ast_expr *b, bool *out)
{
	int c;
	if ((a->kind == AST_INT || a->kind == AST_BOOL) && (b->kind == AST_INT || b->kind == AST_BOOL))
		c = (a->ival > b->ival) - (a->ival < b->ival);
	else if (a->kind == AST_STR && b->kind == AST_STR)
		c = strcmp(a->sval, b->sval);
	else if (a->kind == AST_STR || b->kind == AST_STR) {
		/* A string and a number: only equality is defined (False). */
		if (op != AST_OP_EQ && op != AST_OP_NE)
			return false;
		if (!(a->kind == AST_INT || a->kind == AST_BOOL || a->kind == AST_STR) ||
		    !(b->kind == AST_INT || b->kind == AST_BOOL || b->kind == AST_STR))
			return false;
		*out = op == AST_OP_NE;
		return true;
	} else
		return false;
	switch (op) {
	case AST_OP_LT: *out = c < 0; return true;
	case AST_OP_LE: *out = c <= 0; return true;
	case AST_OP_GT: *out = c > 0; return true;
	case AST_OP_GE: *out = c >= 0; return true;
	case AST_OP_EQ: *out = c == 0; return true;
	case AST_OP_NE: *out = c != 0; return true;
	default: return false;
	}
}

/* `and`/`or`: drop what cannot change the result. */
static struct ast_expr *simplify_logic(struct spec *s, struct ast_expr *e, bool test)
{
	bool is_and = e->kind == AST_AND;
	struct ast_expr **items = malloc(sizeof(*items) * (size_t)e->nitems);
	int n = 0;
	for (int i = 0; i < e->nitems; i++) {
		struct ast_expr *x = simplify(s, e->items[i], test);
		bool last = i == e->nitems - 1;
		if (is_literal(x)) {
			/* A known operand that lets evaluation go on is never the
			 * result unless it is the last; one that stops it is the
			 * result where evaluation reaches it. */
			if (truthy(x) == is_and) {
				if (!last)
					continue;
				/* In a test, `a and True` is as true as a. */
				if (test && n > 0)
					break;
			}
			items[n++] = x;
			break;
		}
		items[n++] = x;
	}
	/* In a test, a trailing `or False` (`and True`, above) decides nothing. */
	while (test && n > 1 && is_literal(items[n - 1]) && truthy(items[n - 1]) == is_and)
		n--;
	struct ast_expr *r;
	if (n == 1) {
		r = items[0];
	} else {
		r = ast_expr_new(s->mod, e->kind, e->loc);
		ast_expr_set_items(s->mod, r, items, n);
	}
	free(items);
	return r;
}

/*
 * The expression with known names replaced and what that decides folded.
 * `test`: only the truth of the result counts (a constraint's test, a
 * condition).  Returns `e` itself where nothing changes, else new nodes
 * (the tree is shared with the def bodies the interpreter may run, so
 * it is never modified in place).
 */
static struct ast_expr *simplify(struct spec *s, struct ast_expr *e, bool test)
{
	if (!e)
		return e;
	switch (e->kind) {
	case AST_NAME: {
		if (!e->ref)
			return e;
		struct ast_expr *v = known_value(s, e->ref);
		return v ? lit_copy(s, v, e->loc) : e;
	}
	case AST_AND:
	case AST_OR:
		return simplify_logic(s, e, test);
	case AST_COND: {
		struct ast_expr *c = simplify(s, e->items[0], true);
		if (is_literal(c))
			return simplify(s, e->items[truthy(c) ? 1 : 2], test);
		struct ast_expr *a = simplify(s, e->items[1], test), *b = simplify(s, e->items[2], test);
		if (c == e->items[0] && a == e->items[1] && b == e->items[2])
			return e;
		struct ast_expr *r = ast_expr_new(s->mod, AST_COND, e->loc);
		struct ast_expr *items[3] = { c, a, b };
		ast_expr_set_items(s->mod, r, items, 3);
		return r;
	}
	case AST_CALL:
		/* The callee is a name of a builtin (or a method): keep it. */
		break;
	default:
		break;
	}
	/* Operands first. */
	struct ast_expr *r = e;
	for (int i = e->kind == AST_CALL ? 1 : 0; i < e->nitems; i++) {
		bool sub_test = e->kind == AST_UNARY && e->op == AST_OP_NOT;
		struct ast_expr *x = simplify(s, e->items[i], sub_test);
		if (x == e->items[i])
			continue;
		if (r == e)
			r = ast_expr_copy_node(s->mod, e);
		r->items[i] = x;
	}
	struct ast_expr **it = r->items;
	switch (r->kind) {
	case AST_UNARY:
		if (r->op == AST_OP_NOT && is_literal(it[0]))
			return lit_bool(s, r->loc, !truthy(it[0]));
		if (r->op == AST_OP_NEG && it[0]->kind == AST_INT && it[0]->ival != INT64_MIN)
			return lit_int(s, r->loc, -it[0]->ival);
		return r;
	case AST_BINARY:
		if (it[0]->kind == AST_INT && it[1]->kind == AST_INT) {
			int64_t v;
			if (fold_int_binary(r->op, it[0]->ival, it[1]->ival, &v))
				return lit_int(s, r->loc, v);
		}
		return r;
	case AST_COMPARE: {
		/* Chains fold while their operands are literals. */
		for (int i = 0; i < r->nitems; i++)
			if (!is_literal(it[i]))
				return r;
		for (int i = 0; i + 1 < r->nitems; i++) {
			bool ok;
			if (!fold_compare(r->cmp[i], it[i], it[i + 1], &ok))
				return r;
			if (!ok)
				return lit_bool(s, r->loc, false);
		}
		return lit_bool(s, r->loc, true);
	}
	case AST_INDEX: {
		struct ast_expr *t = table_of(s, it[0]);
		if (!t || it[1]->kind != AST_INT)
			return r;
		int64_t k = it[1]->ival;
		if (k < 0)
			k += t->nitems;
		if (k < 0 || k >= t->nitems)
			return r; /* an index error stays one */
		struct ast_expr *x = t->items[k];
		return is_literal(x) || x->kind == AST_LIST ? x : r;
	}
	case AST_CALL: {
		const struct ast_expr *f = it[0];
		if (f->kind != AST_NAME || f->ref || f->local >= 0 || r->nitems < 3)
			return r;
		bool mn = !strcmp(f->name, "min"), mx = !strcmp(f->name, "max");
		if (!mn && !mx)
			return r;
		for (int i = 1; i < r->nitems; i++)
			if (it[i]->kind != AST_INT)
				return r;
		int64_t v = it[1]->ival;
		for (int i = 2; i < r->nitems; i++)
			if (mn ? it[i]->ival < v : it[i]->ival > v)
				v = it[i]->ival;
		return lit_int(s, r->loc, v);
	}
	default:
		return r;
	}
}

/* ---- def bodies to expressions ---------------------------------------------------------- */

/* Parameters become references to the definitions they name; any other
 * local means the body is not a plain expression. */
static struct ast_expr *unlocal(struct spec *s, struct sema_def *fn, struct ast_expr *e, bool *ok)
{
	if (!e || !*ok)
		return e;
	if (e->kind == AST_NAME && !e->ref && e->local >= 0) {
		if (e->local >= fn->nparams || !fn->param_defs[e->local]) {
			*ok = false;
			return e;
		}
		struct ast_expr *r = ast_expr_new(s->mod, AST_NAME, e->loc);
		r->name = e->name;
		r->ref = fn->param_defs[e->local];
		r->local = -1;
		return r;
	}
	if (e->kind == AST_ATTR) {
		*ok = false;
		return e;
	}
	struct ast_expr *r = e;
	for (int i = 0; i < e->nitems; i++) {
		struct ast_expr *x = unlocal(s, fn, e->items[i], ok);
		if (x == e->items[i])
			continue;
		if (r == e)
			r = ast_expr_copy_node(s->mod, e);
		r->items[i] = x;
	}
	return r;
}

static bool is_range_call(const struct ast_expr *e)
{
	return e && e->kind == AST_CALL && e->items[0]->kind == AST_NAME && !e->items[0]->ref &&
	       e->items[0]->local < 0 && !strcmp(e->items[0]->name, "range") && e->nitems >= 2 &&
	       e->nitems <= 4;
}

/* A pure, cheap test that may be evaluated once per bound (no calls, no
 * division, so it raises nothing a first evaluation would not). */
static bool pure_test(const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_INT:
	case AST_BOOL:
	case AST_STR:
	case AST_NAME:
		return true;
	case AST_COMPARE:
	case AST_AND:
	case AST_OR:
	case AST_UNARY:
		for (int i = 0; i < e->nitems; i++)
			if (!pure_test(e->items[i]))
				return false;
		return e->kind != AST_COMPARE || (e->cmp[0] != AST_OP_IN && e->cmp[0] != AST_OP_NOT_IN);
	default:
		return false;
	}
}

/* An iterator's value as an iterable expression: a scalar literal is the
 * one-value range (or list); a conditional of ranges one range. */
static struct ast_expr *as_iterable(struct spec *s, struct ast_expr *e, bool *ok)
{
	if (!*ok)
		return e;
	if (e->kind == AST_INT) {
		struct ast_expr *r = ast_expr_new(s->mod, AST_CALL, e->loc);
		struct ast_expr *f = ast_expr_new(s->mod, AST_NAME, e->loc);
		f->name = ast_intern(s->mod, "range", 5);
		f->local = -1;
		struct ast_expr *items[3] = { f, e, lit_int(s, e->loc, e->ival) };
		if (__builtin_add_overflow(e->ival, 1, &items[2]->ival)) {
			*ok = false;
			return e;
		}
		ast_expr_set_items(s->mod, r, items, 3);
		return r;
	}
	if (is_literal(e)) {
		struct ast_expr *r = ast_expr_new(s->mod, AST_LIST, e->loc);
		ast_expr_set_items(s->mod, r, &e, 1);
		return r;
	}
	if (e->kind == AST_COND) {
		struct ast_expr *a = as_iterable(s, e->items[1], ok), *b = as_iterable(s, e->items[2], ok);
		if (!*ok)
			return e;
		if (is_range_call(a) && is_range_call(b) && a->nitems == b->nitems && pure_test(e->items[0])) {
			/* range(a0, a1) if c else range(b0, b1): one range whose
			 * bounds are chosen by c, evaluated as often as bounds. */
			struct ast_expr *r = ast_expr_new(s->mod, AST_CALL, e->loc);
			ast_expr_set_items(s->mod, r, a->items, a->nitems);
			for (int i = 1; i < a->nitems; i++) {
				struct ast_expr *x = ast_expr_new(s->mod, AST_COND, a->items[i]->loc);
				struct ast_expr *items[3] = { e->items[0], a->items[i], b->items[i] };
				ast_expr_set_items(s->mod, x, items, 3);
				r->items[i] = x;
			}
			return r;
		}
		struct ast_expr *r = ast_expr_new(s->mod, AST_COND, e->loc);
		struct ast_expr *items[3] = { e->items[0], a, b };
		ast_expr_set_items(s->mod, r, items, 3);
		return r;
	}
	/* Any other value: kept only where it is an iterable by its form. */
	if (e->kind == AST_LIST || is_range_call(e))
		return e;
	*ok = false;
	return e;
}

/*
 * The value that statements b[from..] return, as an expression; NULL
 * where they do anything but decide and return.
 */
static struct ast_expr *body_expr(struct spec *s, struct sema_def *fn, const struct ast_block *b,
				  int from, bool test, struct srcloc end, bool *ok)
{
	for (int i = from; i < b->n; i++) {
		const struct ast_stmt *st = b->stmts[i];
		switch (st->kind) {
		case AST_S_PASS:
			continue;
		case AST_S_EXPR:
			if (st->value->kind == AST_STR)
				continue; /* a docstring */
			return NULL;
		case AST_S_RETURN:
			if (!st->value)
				return ast_expr_new(s->mod, AST_NONE, st->loc);
			return simplify(s, unlocal(s, fn, st->value, ok), test);
		case AST_S_IF: {
			struct ast_expr *c = simplify(s, unlocal(s, fn, st->value, ok), true);
			if (!*ok)
				return NULL;
			if (is_literal(c)) {
				const struct ast_block *taken = truthy(c) ? &st->body : &st->orelse;
				/* The branch, then what follows the if. */
				struct ast_block joined;
				joined.n = taken->n + (b->n - i - 1);
				joined.stmts = arena_alloc(&s->mod->arena,
							   sizeof(*joined.stmts) * (size_t)(joined.n + 1));
				if (taken->n)
					memcpy(joined.stmts, taken->stmts, sizeof(*joined.stmts) * (size_t)taken->n);
				if (b->n - i - 1)
					memcpy(joined.stmts + taken->n, b->stmts + i + 1,
					       sizeof(*joined.stmts) * (size_t)(b->n - i - 1));
				return body_expr(s, fn, &joined, 0, test, end, ok);
			}
			/* Undecided: both ways must end in a return. */
			struct ast_block rest_then, rest_else;
			struct ast_block *parts[2] = { &rest_then, &rest_else };
			const struct ast_block *arms[2] = { &st->body, &st->orelse };
			for (int k = 0; k < 2; k++) {
				parts[k]->n = arms[k]->n + (b->n - i - 1);
				parts[k]->stmts = arena_alloc(&s->mod->arena,
							      sizeof(*parts[k]->stmts) * (size_t)(parts[k]->n + 1));
				if (arms[k]->n)
					memcpy(parts[k]->stmts, arms[k]->stmts,
					       sizeof(*parts[k]->stmts) * (size_t)arms[k]->n);
				if (b->n - i - 1)
					memcpy(parts[k]->stmts + arms[k]->n, b->stmts + i + 1,
					       sizeof(*parts[k]->stmts) * (size_t)(b->n - i - 1));
			}
			struct ast_expr *a = body_expr(s, fn, &rest_then, 0, test, end, ok);
			struct ast_expr *x = a ? body_expr(s, fn, &rest_else, 0, test, end, ok) : NULL;
			if (!a || !x)
				return NULL;
			struct ast_expr *r = ast_expr_new(s->mod, AST_COND, st->loc);
			struct ast_expr *items[3] = { c, a, x };
			ast_expr_set_items(s->mod, r, items, 3);
			return r;
		}
		default:
			return NULL;
		}
	}
	return ast_expr_new(s->mod, AST_NONE, end); /* falls off the end: None */
}

/* A deferred iterator or decorated constraint as an expression, where its
 * body only decides and returns. */
static void lower_def(struct spec *s, struct sema_def *d)
{
	if (d->form != SEMA_FORM_DEF || !d->stmt)
		return;
	bool test = d->kind == SEMA_CONSTRAINT, ok = true;
	struct ast_expr *e = body_expr(s, d, &d->stmt->body, 0, test, d->stmt->loc, &ok);
	if (!e)
		return;
	if (ok && d->kind == SEMA_ITER)
		e = as_iterable(s, e, &ok);
	if (!ok)
		return;
	d->form = SEMA_FORM_EXPR;
	d->expr = e;
	d->written = NULL;
	d->specialized = true;
}

static void collect_refs(struct ast_expr *e, struct sema_def ***deps, int *n, int *cap)
{
	if (!e)
		return;
	if (e->kind == AST_NAME && e->ref) {
		for (int i = 0; i < *n; i++)
			if ((*deps)[i] == e->ref)
				goto items;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 8;
			*deps = realloc(*deps, sizeof(**deps) * (size_t)*cap);
		}
		(*deps)[(*n)++] = e->ref;
	}
items:
	for (int i = 0; i < e->nitems; i++)
		collect_refs(e->items[i], deps, n, cap);
}

void sema_specialize_defs(struct ast_module *mod, struct sema_def **defs, int n,
			  const struct sema_known *known, int nknown)
{
	struct spec s = { mod, known, nknown, n, calloc((size_t)n + 1, 1),
			  calloc((size_t)n + 1, sizeof(struct ast_expr *)) };
	for (int i = 0; i < n; i++)
		lower_def(&s, defs[i]);
	for (int i = 0; i < n; i++) {
		struct sema_def *d = defs[i];
		if (d->form != SEMA_FORM_EXPR || !d->expr || d->kind == SEMA_DEVICE || d->kind == SEMA_SETTING)
			continue;
		struct ast_expr *e = simplify(&s, d->expr, d->kind == SEMA_CONSTRAINT);
		if (e == d->expr && !d->specialized)
			continue;
		if (!d->specialized)
			d->written = d->expr;
		d->expr = e;
		d->specialized = true;
		struct sema_def **deps = NULL;
		int nd = 0, cap = 0;
		collect_refs(e, &deps, &nd, &cap);
		d->ndeps = nd;
		d->deps = arena_memdup(&mod->arena, deps, sizeof(*deps) * (size_t)(nd ? nd : 1));
		free(deps);
	}
	/* What the program now assumes of each binding: the generated code
	 * checks the run's bindings against it. */
	for (int i = 0; i < n; i++)
		if (defs[i]->kind == SEMA_DEVICE || defs[i]->kind == SEMA_SETTING)
			defs[i]->assumed = known_value(&s, defs[i]);
	free(s.state);
	free(s.value);
}
