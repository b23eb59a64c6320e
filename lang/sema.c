/*
 * sema.c - name resolution, SSA, classification, types and ordering.
 *
 * The pass runs in stages, each over the whole module:
 *   1. top-level statements in order: create definitions (SSA versions for
 *      reassignments in `if` blocks) and resolve names seen so far;
 *   2. forward references, then def bodies (locals, parameters);
 *   3. dependencies, cycle check and a topological order;
 *   4. classification and static types, in topological order;
 *   5. loop order (level sets) and each definition's level;
 *   6. warnings.
 */
#include "sema.h"
#include "specialize.h"

#include <stdlib.h>
#include <string.h>

const char *const sema_builtins[] = {
	"range", "min", "max", "abs", "int", "float", "bool", "len", "list", "sum", "any", "all",
	"round", "divmod", NULL,
};

/* ORDER SEMA_MATH */
const struct sema_math_fn sema_math_functions[SEMA_MATH__COUNT] = {
	{ "ceil", "math.ceil", 1, 1 }, { "floor", "math.floor", 1, 1 },
	{ "trunc", "math.trunc", 1, 1 }, { "sqrt", "math.sqrt", 1, 1 },
	{ "isqrt", "math.isqrt", 1, 1 }, { "log", "math.log", 1, 2 },
	{ "log2", "math.log2", 1, 1 }, { "log10", "math.log10", 1, 1 },
	{ "exp", "math.exp", 1, 1 }, { "pow", "math.pow", 2, 2 },
	{ "fabs", "math.fabs", 1, 1 }, { "gcd", "math.gcd", 0, 1000000 },
	{ "lcm", "math.lcm", 0, 1000000 }, { "prod", "math.prod", 1, 1 },
	{ "factorial", "math.factorial", 1, 1 }, { "isfinite", "math.isfinite", 1, 1 },
	{ "isinf", "math.isinf", 1, 1 }, { "isnan", "math.isnan", 1, 1 },
};

int sema_math_of(const char *builtin_name)
{
	if (strncmp(builtin_name, "math.", 5))
		return -1;
	for (int i = 0; i < SEMA_MATH__COUNT; i++)
		if (!strcmp(sema_math_functions[i].name, builtin_name + 5))
			return i;
	return -1;
}

/* The math module's constants, as float literals. */
static const struct {
	const char *name;
	double value;
} math_constants[] = {
	{ "pi", 3.141592653589793 }, { "e", 2.718281828459045 }, { "tau", 6.283185307179586 },
	{ "inf", __builtin_inf() }, { "nan", __builtin_nan("") },
};

/* Python builtins a Kernel Tuner user may reach for that .space has not. */
static const char *const python_only_builtins[] = {
	"sorted", "reversed", "zip", "enumerate", "map", "filter", "set", "dict", "tuple", "str",
	"print", "pow", "isinstance", "type", "hash", "lambda", NULL,
};

/* Keywords that start a definition: suggested for a misspelt first word. */
static const char *const definition_keywords[] = {
	"require", "device", "setting", "hard", "soft", "correct", "import", "from", NULL,
};

const char *const sema_device_queries[] = {
	"max_work_group_size", "max_work_item_size_x", "max_work_item_size_y",
	"max_work_item_size_z", "local_mem_size", "max_compute_units", "global_mem_size",
	"max_clock_frequency", "max_constant_buffer_size", "warp_size", "registers_per_block",
	"compute_capability_major", "compute_capability_minor", "preferred_vector_width_float",
	"double_fp", NULL,
};

/* ORDER TUNE_TYPE */
const char *const sema_tune_types[] = {
	"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float",
	"double", NULL,
};

int sema_tune_type(const char *name)
{
	for (int i = 0; sema_tune_types[i]; i++)
		if (!strcmp(sema_tune_types[i], name))
			return i;
	return -1;
}

struct name_slot {
	const char *name;
	struct sema_def *current; /* latest version defined so far */
	struct sema_def *first;
};

struct sema_ctx {
	struct ast_module *mod;
	struct diag *diag;
	struct sema_program *prog;
	struct ptrvec defs;       /* creation order */
	struct name_slot *names;  /* open addressing on interned pointers */
	size_t names_cap, nnames;
	struct ptrvec forward;    /* AST_NAME nodes awaiting final versions */
	int errors_before;
	/* While resolving a def body. */
	struct sema_def *fn;
	struct ptrvec fn_deps;
	int loop_depth;
	int locals_cap;           /* of fn->local_names */
	/* Comprehension variables in scope, innermost last: name -> slot. */
	const char **scope_names;
	int *scope_slots;
	int nscope, scope_cap;
	int ncomp_slots;          /* hidden slots made so far (unique names) */
	/* The math module: imported (`import math`), and names imported from it. */
	bool math_imported;
	struct ptrvec math_names; /* interned names of `from math import ...` */
};

static bool is_builtin(const char *name)
{
	for (int i = 0; sema_builtins[i]; i++)
		if (!strcmp(sema_builtins[i], name))
			return true;
	return sema_math_of(name) >= 0;
}

static bool math_imported_name(const struct sema_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->math_names.len; i++)
		if (c->math_names.items[i] == name)
			return true;
	return false;
}

/* ---- the name table -------------------------------------------------- */

static struct name_slot *slot_find(struct sema_ctx *c, const char *name, bool create)
{
	if (create && (c->nnames + 1) * 2 > c->names_cap) {
		size_t cap = c->names_cap ? c->names_cap * 2 : 128;
		struct name_slot *tab = xcalloc(cap, sizeof(*tab));
		for (size_t i = 0; i < c->names_cap; i++) {
			if (!c->names[i].name)
				continue;
			size_t j = ((uintptr_t)c->names[i].name >> 3) & (cap - 1);
			while (tab[j].name)
				j = (j + 1) & (cap - 1);
			tab[j] = c->names[i];
		}
		free(c->names);
		c->names = tab;
		c->names_cap = cap;
	}
	if (!c->names_cap)
		return NULL;
	size_t j = ((uintptr_t)name >> 3) & (c->names_cap - 1);
	while (c->names[j].name) {
		if (c->names[j].name == name)
			return &c->names[j];
		j = (j + 1) & (c->names_cap - 1);
	}
	if (!create)
		return NULL;
	c->names[j].name = name;
	c->nnames++;
	return &c->names[j];
}

static struct sema_def *final_version(struct sema_ctx *c, const char *name)
{
	struct name_slot *s = slot_find(c, name, false);
	return s ? s->current : NULL;
}

static struct sema_def *new_def(struct sema_ctx *c, const char *name, struct ast_stmt *st,
				struct srcloc loc)
{
	struct sema_def *d = arena_alloc(&c->mod->arena, sizeof(*d));
	d->name = name;
	d->cname = name;
	d->stmt = st;
	d->loc = loc;
	d->loop_pos = d->decl_pos = -1;
	d->level = -1;
	ptrvec_push(&c->defs, d);
	return d;
}

/* Suggests the closest known name, as a note. */
static void did_you_mean(struct sema_ctx *c, const char *name, struct srcloc at)
{
	const char *best = NULL;
	struct srcloc best_loc = at;
	int best_d = 1000;
	int limit = (int)strlen(name) / 3 + 1;
	for (size_t i = 0; i < c->defs.len; i++) {
		struct sema_def *d = c->defs.items[i];
		int dist = diag_edit_distance(name, d->name);
		if (dist < best_d && dist <= limit) {
			best = d->name;
			best_d = dist;
			best_loc = d->loc;
		}
	}
	/* Then the builtins and the keywords that start a definition. */
	const char *const *words[] = { sema_builtins, definition_keywords };
	for (int w = 0; w < 2; w++) {
		for (int i = 0; words[w][i]; i++) {
			int dist = diag_edit_distance(name, words[w][i]);
			if (dist < best_d && dist <= limit) {
				best = words[w][i];
				best_d = dist;
				best_loc = at;
			}
		}
	}
	if (best)
		diag_note(c->diag, best_loc, "did you mean '%s'?", best);
}

/* What to write instead of a Python builtin that .space lacks, or NULL. */
static const char *python_only(const char *name)
{
	for (int i = 0; python_only_builtins[i]; i++)
		if (!strcmp(python_only_builtins[i], name))
			return python_only_builtins[i];
	return NULL;
}

static void supported_builtins_note(struct sema_ctx *c, struct srcloc at, bool math)
{
	if (math)
		diag_note(c->diag, at, "math has ceil, floor, trunc, sqrt, isqrt, log, log2, log10, exp, "
			  "pow, fabs, gcd, lcm, prod, factorial, isfinite, isinf, isnan, pi, e, tau, inf and nan");
	else
		diag_note(c->diag, at, "the builtins are range, min, max, abs, int, float, bool, len, list, "
			  "sum, any, all, round and divmod, and 'import math' adds the math module");
}

/*
 * math.NAME, or a NAME imported with `from math import NAME`: a function
 * called becomes the builtin "math.NAME", a constant a float literal.
 * Returns whether `e` was such a reference (errors reported).
 */
static bool math_ref(struct sema_ctx *c, struct ast_expr *e, bool callee)
{
	const char *member;
	if (e->kind == AST_ATTR && e->items[0]->kind == AST_NAME && !strcmp(e->items[0]->name, "math")) {
		if (!c->math_imported) {
			diag_error(c->diag, e->items[0]->loc, "unknown name 'math'");
			diag_note(c->diag, e->items[0]->loc, "add 'import math' at the top of the file");
			return true;
		}
		member = e->name;
	} else if (e->kind == AST_NAME && !e->ref && e->local < 0 && math_imported_name(c, e->name)) {
		member = e->name;
	} else {
		return false;
	}
	for (size_t i = 0; i < sizeof(math_constants) / sizeof(*math_constants); i++) {
		if (strcmp(math_constants[i].name, member))
			continue;
		if (callee) {
			diag_error(c->diag, e->loc, "'math.%s' is a number, not a function", member);
			return true;
		}
		e->kind = AST_FLOAT;
		e->fval = math_constants[i].value;
		e->nitems = 0;
		return true;
	}
	for (int i = 0; i < SEMA_MATH__COUNT; i++) {
		if (strcmp(sema_math_functions[i].name, member))
			continue;
		if (!callee) {
			diag_error(c->diag, e->loc, "'math.%s' is a function; call it", member);
			return true;
		}
		e->kind = AST_NAME;
		e->name = ast_intern(c->mod, sema_math_functions[i].qualified,
				     strlen(sema_math_functions[i].qualified));
		e->nitems = 0;
		e->local = -1;
		return true;
	}
	diag_error(c->diag, e->loc, "'math.%s' is not supported", member);
	supported_builtins_note(c, e->loc, true);
	return true;
}

/* `import math` and `from math import ...`, read before any name is resolved. */
static void read_imports(struct sema_ctx *c, const struct ast_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct ast_stmt *st = b->stmts[i];
		if (st->kind != AST_S_IMPORT)
			continue;
		if (strcmp(st->name, "math")) {
			diag_error(c->diag, st->name_loc, "there is no module '%s' in .space; only 'math' can be imported",
				   st->name);
			continue;
		}
		if (!st->nparams)
			c->math_imported = true;
		for (int k = 0; k < st->nparams; k++) {
			const char *n = st->params[k].name;
			bool known = false;
			for (int f = 0; f < SEMA_MATH__COUNT; f++)
				known |= !strcmp(sema_math_functions[f].name, n);
			for (size_t f = 0; f < sizeof(math_constants) / sizeof(*math_constants); f++)
				known |= !strcmp(math_constants[f].name, n);
			if (!known) {
				diag_error(c->diag, st->params[k].loc, "'math.%s' is not supported", n);
				supported_builtins_note(c, st->params[k].loc, true);
			} else {
				ptrvec_push(&c->math_names, (void *)n);
			}
		}
	}
}

static void supported_builtins_note(struct sema_ctx *c, struct srcloc at, bool math);
static const char *python_only(const char *name);

static bool ident_char(char ch)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* Whether `name` is written on a line that a syntax error dropped (it may
 * be defined there, so that it is unknown proves nothing). */
static bool on_dropped_line(const struct sema_ctx *c, const char *name)
{
	const char *src = c->diag->src;
	size_t n = strlen(name);
	if (!src || !c->mod->nerror_lines)
		return false;
	int line = 1;
	for (const char *p = src; *p; p++) {
		if (*p == '\n') {
			line++;
			continue;
		}
		bool dropped = false;
		for (int i = 0; i + 1 < c->mod->nerror_lines && !dropped; i += 2)
			dropped = line >= c->mod->error_lines[i] && line <= c->mod->error_lines[i + 1];
		if (!dropped || strncmp(p, name, n))
			continue;
		if ((p == src || !ident_char(p[-1])) && !ident_char(p[n]))
			return true;
	}
	return false;
}

static void unknown_name(struct sema_ctx *c, struct ast_expr *e)
{
	if (on_dropped_line(c, e->name))
		return;
	if (python_only(e->name)) {
		diag_error(c->diag, e->loc, "Python's '%s' is not supported in .space", e->name);
		supported_builtins_note(c, e->loc, false);
		return;
	}
	if (is_builtin(e->name)) {
		/* A builtin used as a value (often after a rejected redefinition):
		 * suggesting the name itself would only confuse. */
		diag_error(c->diag, e->loc, "'%s' is a builtin function, not a value: call it as %s(...)",
			   e->name, e->name);
		return;
	}
	diag_error(c->diag, e->loc, "unknown name '%s'", e->name);
	did_you_mean(c, e->name, e->loc);
}

/* `query` is not a function: only `device X = query(...)` binds one. */
static bool misplaced_query(struct sema_ctx *c, struct ast_expr *callee)
{
	if (strcmp(callee->name, "query") || final_version(c, callee->name))
		return false;
	diag_error(c->diag, callee->loc, "'query(...)' is only allowed as the whole value of a 'device' line");
	return true;
}

static bool is_query_call(const struct ast_expr *e)
{
	return e && e->kind == AST_CALL && e->items[0]->kind == AST_NAME &&
	       !strcmp(e->items[0]->name, "query");
}

/* Suggests the closest of a NULL-terminated list of words, as a note. */
static void did_you_mean_word(struct sema_ctx *c, const char *word, const char *const *words,
			      struct srcloc at)
{
	const char *best = NULL;
	int best_d = (int)strlen(word) / 3 + 2;
	for (int i = 0; words[i]; i++) {
		int dist = diag_edit_distance(word, words[i]);
		if (dist < best_d) {
			best = words[i];
			best_d = dist;
		}
	}
	if (best)
		diag_note(c->diag, at, "did you mean '%s'?", best);
}

/*
 * `device NAME = query("QUERY", DEFAULT)`: the definition's value is the
 * DEFAULT (what spacec uses); the query is recorded for spacetune.
 */
static struct ast_expr *device_query(struct sema_ctx *c, struct ast_stmt *st, struct sema_def *d)
{
	struct ast_expr *call = st->value;
	int nargs = call->nitems - 1;
	if (nargs != 2) {
		diag_error(c->diag, call->loc, "query() takes 2 arguments, a query name and a default (%d given)",
			   nargs);
		return ast_expr_new(c->mod, AST_INT, call->loc);
	}
	struct ast_expr *name = call->items[1];
	if (name->kind != AST_STR) {
		diag_error(c->diag, name->loc, "the query name must be a string literal");
	} else {
		bool known = false;
		for (int i = 0; sema_device_queries[i] && !known; i++)
			known = !strcmp(sema_device_queries[i], name->sval);
		if (!known) {
			diag_error(c->diag, name->loc, "unknown device query '%s'", name->sval);
			did_you_mean_word(c, name->sval, sema_device_queries, name->loc);
		}
		d->query = name->sval;
		d->query_loc = name->loc;
	}
	return call->items[2];
}

/* ---- stage 1: top-level statements ------------------------------------ */

/*
 * What resolve_top and tune_resolve share: true where there is nothing
 * more to resolve (no expression, a math name, or a comprehension, which
 * is an error `where` they resolve).
 */
static bool resolved_alike(struct sema_ctx *c, struct ast_expr *e, bool callee, const char *where)
{
	if (!e || math_ref(c, e, callee))
		return true;
	if (e->kind != AST_COMP)
		return false;
	diag_error(c->diag, e->loc, "a comprehension is not allowed %s", where);
	diag_note(c->diag, e->loc, "give it a definition of its own ('name = [...]') and use the name");
	return true;
}

/*
 * What the resolvers outside a def (resolve_top, tune_resolve) do with an
 * expression that is not a name: refuse an attribute, else resolve its
 * items with `resolve` (an item in callee position knows it).
 */
static void resolve_items(struct sema_ctx *c, struct ast_expr *e,
                          void (*resolve)(struct sema_ctx *, struct ast_expr *, bool))
{
	if (e->kind == AST_ATTR) {
		diag_error(c->diag, e->loc, "attribute '.%s' is only allowed inside a def", e->name);
		return;
	}
	for (int i = 0; i < e->nitems; i++)
		resolve(c, e->items[i], e->kind == AST_CALL && i == 0);
}

/* Resolves names of a top-level expression against the versions so far. */
static void resolve_top(struct sema_ctx *c, struct ast_expr *e, bool callee)
{
	if (resolved_alike(c, e, callee, "here"))
		return;
	if (e->kind == AST_NAME) {
		if (e->ref)
			return; /* synthesized, already bound */
		if (callee && is_builtin(e->name))
			return;
		if (callee && misplaced_query(c, e))
			return;
		struct name_slot *s = slot_find(c, e->name, false);
		if (s && s->current)
			e->ref = s->current;
		else
			ptrvec_push(&c->forward, e);
		return;
	}
	resolve_items(c, e, resolve_top);
}

/* A syntactic guess, before types exist: would this make an iterator? */
static bool looks_iterable(const struct ast_expr *e)
{
	if (!e)
		return false;
	switch (e->kind) {
	case AST_LIST:
		return true;
	case AST_CALL:
		return e->items[0]->kind == AST_NAME &&
		       (!strcmp(e->items[0]->name, "range") || !strcmp(e->items[0]->name, "list"));
	case AST_COND:
		return looks_iterable(e->items[1]) || looks_iterable(e->items[2]);
	case AST_BINARY:
		return (e->op == AST_OP_BITOR || e->op == AST_OP_BITAND || e->op == AST_OP_SUB ||
			e->op == AST_OP_ADD || e->op == AST_OP_MUL) &&
		       (looks_iterable(e->items[0]) || looks_iterable(e->items[1]));
	default:
		return false;
	}
}

static bool check_fresh_name(struct sema_ctx *c, const char *name, struct srcloc loc)
{
	if (is_builtin(name)) {
		diag_error(c->diag, loc, "'%s' is a builtin function and cannot be redefined", name);
		return false;
	}
	if (math_imported_name(c, name) || (c->math_imported && !strcmp(name, "math"))) {
		diag_error(c->diag, loc, "'%s' is imported and cannot be redefined", name);
		return false;
	}
	struct name_slot *s = slot_find(c, name, false);
	if (s && s->first) {
		diag_error(c->diag, loc, "duplicate definition of '%s'", name);
		diag_note(c->diag, s->first->loc, "'%s' was first defined here", name);
		if (s->first->kind != SEMA_CONSTRAINT && s->first->form == SEMA_FORM_EXPR &&
		    s->first->stmt && s->first->stmt->kind == AST_S_ASSIGN) {
			if (looks_iterable(s->first->expr))
				diag_note(c->diag, loc, "an iterator is defined once; to vary it, use "
					  "a conditional expression ('a if c else b') or an @iterator def");
			else
				diag_note(c->diag, loc, "to change a value conditionally, reassign it inside a top-level 'if'");
		}
		return false;
	}
	return true;
}

static void bind_name(struct sema_ctx *c, struct sema_def *d)
{
	struct name_slot *s = slot_find(c, d->name, true);
	if (!s->first)
		s->first = d;
	if (s->current) {
		d->version = s->current->version + 1;
		d->cname = arena_printf(&c->mod->arena, "%s__v%d", d->name, d->version);
	}
	s->current = d;
}

static struct ast_expr *synth(struct sema_ctx *c, enum ast_expr_kind k, struct srcloc loc,
			      struct ast_expr *a, struct ast_expr *b, struct ast_expr *x)
{
	struct ast_expr *e = ast_expr_new(c->mod, k, loc);
	struct ast_expr *items[3] = { a, b, x };
	int n = x ? 3 : b ? 2 : a ? 1 : 0;
	ast_expr_set_items(c->mod, e, items, n);
	return e;
}

static struct ast_expr *ref_to(struct sema_ctx *c, struct sema_def *d, struct srcloc loc)
{
	struct ast_expr *e = ast_expr_new(c->mod, AST_NAME, loc);
	e->name = d->name;
	e->ref = d;
	return e;
}

static void top_block(struct sema_ctx *c, struct ast_block *b, struct ast_expr *guard);

static bool contains_comp(const struct ast_expr *e)
{
	if (!e)
		return false;
	if (e->kind == AST_COMP)
		return true;
	for (int i = 0; i < e->nitems; i++)
		if (contains_comp(e->items[i]))
			return true;
	return false;
}

/*
 * A definition whose value holds a comprehension is computed by a body of
 * one statement, `return VALUE`, like a def: the comprehension's variables
 * are then locals of that body, which both the interpreter and the code
 * generator already handle.  Returns whether `d` was made so.
 */
static bool comp_body(struct sema_ctx *c, struct sema_def *d, struct ast_stmt *st, const char *where)
{
	if (!contains_comp(st->value))
		return false;
	if (where) {
		diag_error(c->diag, st->value->loc, "a comprehension is not allowed in %s", where);
		diag_note(c->diag, st->value->loc, "give it a definition of its own ('name = [...]') and use the name");
		return true;
	}
	struct ast_stmt *ret = ast_stmt_new(c->mod, AST_S_RETURN, st->value->loc);
	ret->value = st->value;
	ret->src_begin = st->src_begin;
	ret->src_end = st->src_end;
	st->body.n = 1;
	st->body.stmts = arena_alloc(&c->mod->arena, sizeof(*st->body.stmts));
	st->body.stmts[0] = ret;
	d->form = SEMA_FORM_DEF;
	return true;
}

static void settle_partial(struct sema_ctx *c, struct ast_stmt *ifst, const struct ast_block *b);

static const char *stmt_word(enum ast_stmt_kind k)
{
	switch (k) {
	case AST_S_WHILE: return "while";
	case AST_S_FOR: return "for";
	case AST_S_BREAK: return "break";
	case AST_S_CONTINUE: return "continue";
	case AST_S_RETURN: return "return";
	case AST_S_YIELD: return "yield";
	case AST_S_DEVICE: return "device";
	case AST_S_SETTING: return "setting";
	case AST_S_DEF: return "def";
	case AST_S_CONSTRAINT: return "constraint";
	default: return ast_stmt_kind_name(k);
	}
}

static bool reads_def(const struct ast_expr *e, const struct sema_def *d)
{
	if (!e)
		return false;
	if (e->kind == AST_NAME && e->ref == d)
		return true;
	for (int i = 0; i < e->nitems; i++)
		if (reads_def(e->items[i], d))
			return true;
	return false;
}

/*
 * An unconditional top-level `x = f(x)`: an update of a plain value, as
 * Python (and BEAST's Fig. 12: `max_blocks_by_regs = min(max_blocks_by_regs,
 * ...)`) writes it, which makes a new SSA version.  A second assignment
 * that does not read the name stays a duplicate definition (in a
 * declarative file almost always a mistake), and iterators are never
 * reassigned (checked again once classified: `replaces`).
 */
static bool updates(const struct sema_def *prev, const struct ast_expr *rhs)
{
	return prev->form == SEMA_FORM_EXPR && prev->stmt &&
	       (prev->stmt->kind == AST_S_ASSIGN || prev->stmt->kind == AST_S_AUGASSIGN) &&
	       !looks_iterable(prev->expr) && !looks_iterable(rhs) && reads_def(rhs, prev);
}

/* An assignment inside a top-level `if`: a new SSA version of the name. */
static void guarded_assign(struct sema_ctx *c, struct ast_stmt *st, struct ast_expr *guard)
{
	if (st->ntargets != 1 || st->targets[0]->kind != AST_NAME) {
		diag_error(c->diag, st->loc, "only a single name can be assigned at top level");
		return;
	}
	struct ast_expr *target = st->targets[0];
	const char *name = target->name;
	if (is_builtin(name)) {
		diag_error(c->diag, target->loc, "'%s' is a builtin function and cannot be redefined", name);
		return;
	}
	struct name_slot *s = slot_find(c, name, false);
	struct sema_def *prev = s ? s->current : NULL;
	if (prev && prev->kind != SEMA_CONST) {
		/* Only plain assignments have versions; the kinds fixed at
		 * creation (device, setting, constraint, def) do not. */
		if (prev->stmt && (prev->stmt->kind != AST_S_ASSIGN && prev->stmt->kind != AST_S_AUGASSIGN)) {
			diag_error(c->diag, target->loc, "cannot reassign '%s', a %s", name,
				   stmt_word(prev->stmt->kind));
			diag_note(c->diag, prev->loc, "'%s' is defined here", name);
			return;
		}
	}
	if (contains_comp(st->value)) {
		diag_error(c->diag, st->value->loc, "a comprehension is not allowed in an assignment inside 'if'");
		diag_note(c->diag, st->value->loc, "give it a definition of its own ('name = [...]') and use the name");
		return;
	}
	resolve_top(c, st->value, false);
	struct ast_expr *rhs = st->value;
	if (st->kind == AST_S_AUGASSIGN) {
		if (!prev) {
			diag_error(c->diag, target->loc, "'%s' is updated before it is defined", name);
			return;
		}
		rhs = synth(c, AST_BINARY, st->loc, ref_to(c, prev, target->loc), rhs, NULL);
		rhs->op = st->op;
	}
	struct ast_expr *old = prev ? ref_to(c, prev, target->loc) : ast_expr_new(c->mod, AST_UNDEF, target->loc);
	struct sema_def *d = new_def(c, name, st, target->loc);
	d->form = SEMA_FORM_EXPR;
	d->kind = SEMA_CONST; /* provisional; classified later */
	d->expr = synth(c, AST_COND, st->loc, guard, rhs, old);
	d->partial = !prev || prev->partial;
	bind_name(c, d);
}

static void top_stmt(struct sema_ctx *c, struct ast_stmt *st, struct ast_expr *guard)
{
	struct sema_def *d;
	switch (st->kind) {
	case AST_S_DEVICE:
	case AST_S_SETTING:
	case AST_S_CONSTRAINT:
		if (guard) {
			diag_error(c->diag, st->loc, "a %s cannot be defined inside 'if'; only assignments can",
				   stmt_word(st->kind));
			return;
		}
		if (!check_fresh_name(c, st->name, st->name_loc)) {
			if (!contains_comp(st->value))
				resolve_top(c, st->value, false);
			return;
		}
		d = new_def(c, st->name, st, st->name_loc);
		d->kind = st->kind == AST_S_DEVICE ? SEMA_DEVICE :
			  st->kind == AST_S_SETTING ? SEMA_SETTING : SEMA_CONSTRAINT;
		d->form = SEMA_FORM_EXPR;
		if (comp_body(c, d, st, st->kind == AST_S_DEVICE ? "a device parameter's default" :
				     st->kind == AST_S_SETTING ? "a setting's default" : NULL)) {
			d->cclass = st->cclass;
			d->require = st->require;
			bind_name(c, d);
			return;
		}
		d->expr = st->kind == AST_S_DEVICE && is_query_call(st->value) &&
				  !final_version(c, st->value->items[0]->name)
			  ? device_query(c, st, d) : st->value;
		resolve_top(c, d->expr, false);
		d->cclass = st->cclass;
		d->require = st->require;
		bind_name(c, d);
		return;
	case AST_S_DEF:
		if (guard) {
			diag_error(c->diag, st->loc, "a def cannot appear inside 'if'");
			return;
		}
		if (!check_fresh_name(c, st->name, st->name_loc))
			return;
		d = new_def(c, st->name, st, st->name_loc);
		switch (st->decorator) {
		case AST_DEC_ITERATOR:
			d->kind = SEMA_ITER;
			d->form = st->has_yield ? SEMA_FORM_CLOSURE : SEMA_FORM_DEF;
			break;
		case AST_DEC_HARD:
		case AST_DEC_SOFT:
		case AST_DEC_CORRECT:
			d->kind = SEMA_CONSTRAINT;
			d->form = SEMA_FORM_DEF;
			d->cclass = st->decorator == AST_DEC_HARD ? AST_HARD :
				    st->decorator == AST_DEC_SOFT ? AST_SOFT : AST_CORRECT;
			break;
		case AST_DEC_NONE:
			/* Already reported by the parser; treat as a constraint. */
			d->kind = SEMA_CONSTRAINT;
			d->form = SEMA_FORM_DEF;
			break;
		}
		bind_name(c, d);
		return;
	case AST_S_ASSIGN:
	case AST_S_AUGASSIGN:
		if (guard) {
			guarded_assign(c, st, guard);
			return;
		}
		if (st->kind == AST_S_AUGASSIGN) {
			diag_error(c->diag, st->loc, "augmented assignment redefines '%s' at top level",
				   st->name ? st->name : "?");
			diag_note(c->diag, st->loc, "to change a value conditionally, reassign it inside a top-level 'if'");
			return;
		}
		if (st->ntargets != 1 || st->targets[0]->kind != AST_NAME) {
			diag_error(c->diag, st->loc, "only a single name can be assigned at top level");
			return;
		}
		bool comp = contains_comp(st->value);
		if (!comp)
			resolve_top(c, st->value, false);
		struct sema_def *prev = comp ? NULL : final_version(c, st->name);
		if (prev && updates(prev, st->value)) {
			d = new_def(c, st->name, st, st->name_loc);
			d->kind = SEMA_CONST; /* provisional */
			d->form = SEMA_FORM_EXPR;
			d->expr = st->value;
			d->partial = prev->partial;
			d->replaces = prev;
			bind_name(c, d);
			return;
		}
		if (!check_fresh_name(c, st->name, st->name_loc))
			return;
		d = new_def(c, st->name, st, st->name_loc);
		d->kind = SEMA_CONST; /* provisional */
		d->form = SEMA_FORM_EXPR;
		d->expr = st->value;
		comp_body(c, d, st, NULL);
		bind_name(c, d);
		return;
	case AST_S_IF: {
		resolve_top(c, st->value, false);
		struct ast_expr *cond = st->value;
		struct ast_expr *then_guard = guard ? synth(c, AST_AND, st->value->loc, guard, cond, NULL) : cond;
		top_block(c, &st->body, then_guard);
		if (st->orelse.n) {
			struct ast_expr *neg = synth(c, AST_UNARY, st->value->loc, cond, NULL, NULL);
			neg->op = AST_OP_NOT;
			struct ast_expr *else_guard = guard ? synth(c, AST_AND, st->value->loc, guard, neg, NULL) : neg;
			top_block(c, &st->orelse, else_guard);
			settle_partial(c, st, &st->body);
			settle_partial(c, st, &st->orelse);
		}
		return;
	}
	case AST_S_EXPR:
		if (st->value->kind == AST_STR)
			return; /* a docstring-like comment */
		diag_error(c->diag, st->loc, "an expression statement has no effect at top level");
		return;
	case AST_S_PASS:
		return;
	case AST_S_IMPORT:
		if (guard)
			diag_error(c->diag, st->loc, "'import' cannot appear inside 'if'");
		return; /* read by read_imports */
	case AST_S_YIELD:
		diag_error(c->diag, st->loc, "'yield' outside @iterator");
		return;
	case AST_S_RETURN:
		diag_error(c->diag, st->loc, "'return' outside a def");
		return;
	case AST_S_BREAK:
	case AST_S_CONTINUE:
		diag_error(c->diag, st->loc, "'%s' outside a loop", stmt_word(st->kind));
		return;
	case AST_S_WHILE:
	case AST_S_FOR:
		diag_error(c->diag, st->loc, "a '%s' loop is only allowed inside a def", stmt_word(st->kind));
		return;
	}
}

static void top_block(struct sema_ctx *c, struct ast_block *b, struct ast_expr *guard)
{
	for (int i = 0; i < b->n; i++)
		top_stmt(c, b->stmts[i], guard);
}

/* Does every path through `b` assign `name`? */
static bool assigns_on_all_paths(const struct ast_block *b, const char *name)
{
	for (int i = 0; i < b->n; i++) {
		const struct ast_stmt *st = b->stmts[i];
		if ((st->kind == AST_S_ASSIGN || st->kind == AST_S_AUGASSIGN) && st->name == name)
			return true;
		if (st->kind == AST_S_IF && st->orelse.n &&
		    assigns_on_all_paths(&st->body, name) && assigns_on_all_paths(&st->orelse, name))
			return true;
	}
	return false;
}

/* After a top-level if: names it assigns on every path are defined. */
static void settle_partial(struct sema_ctx *c, struct ast_stmt *ifst, const struct ast_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct ast_stmt *st = b->stmts[i];
		if ((st->kind == AST_S_ASSIGN || st->kind == AST_S_AUGASSIGN) && st->name) {
			struct name_slot *s = slot_find(c, st->name, false);
			if (s && s->current && s->current->partial &&
			    assigns_on_all_paths(&ifst->body, st->name) &&
			    assigns_on_all_paths(&ifst->orelse, st->name))
				s->current->partial = false;
		}
		settle_partial(c, ifst, &st->body);
		settle_partial(c, ifst, &st->orelse);
	}
}

/* ---- stage 2: forward references and def bodies ------------------------- */

static void add_dep(struct ptrvec *deps, struct sema_def *d)
{
	for (size_t i = 0; i < deps->len; i++)
		if (deps->items[i] == d)
			return;
	ptrvec_push(deps, d);
}

static int local_index(struct sema_def *fn, const char *name)
{
	for (int i = 0; i < fn->nlocals; i++)
		if (fn->local_names[i] == name)
			return i;
	return -1;
}

static void add_local(struct sema_ctx *c, struct sema_def *fn, const char *name, int *cap)
{
	if (local_index(fn, name) >= 0)
		return;
	if (fn->nlocals == *cap) {
		int ncap = *cap ? *cap * 2 : 8;
		const char **v = arena_alloc(&c->mod->arena, sizeof(*v) * (size_t)ncap);
		if (fn->nlocals)
			memcpy(v, fn->local_names, sizeof(*v) * (size_t)fn->nlocals);
		fn->local_names = v;
		*cap = ncap;
	}
	fn->local_names[fn->nlocals++] = name;
}

static void collect_targets(struct sema_ctx *c, struct sema_def *fn, struct ast_expr *t, int *cap)
{
	if (t->kind == AST_NAME)
		add_local(c, fn, t->name, cap);
	else if (t->kind == AST_TUPLE)
		for (int i = 0; i < t->nitems; i++)
			collect_targets(c, fn, t->items[i], cap);
}

static void collect_locals(struct sema_ctx *c, struct sema_def *fn, struct ast_block *b, int *cap)
{
	for (int i = 0; i < b->n; i++) {
		struct ast_stmt *st = b->stmts[i];
		if (st->kind == AST_S_ASSIGN || st->kind == AST_S_AUGASSIGN || st->kind == AST_S_FOR)
			for (int t = 0; t < st->ntargets; t++)
				collect_targets(c, fn, st->targets[t], cap);
		collect_locals(c, fn, &st->body, cap);
		collect_locals(c, fn, &st->orelse, cap);
	}
}

static void resolve_body_expr(struct sema_ctx *c, struct ast_expr *e, bool callee);

/* A comprehension variable's own slot, named so that no Python name can
 * find it through local_index (the code generator makes it a C name). */
static int comp_slot(struct sema_ctx *c, const char *name)
{
	struct sema_def *fn = c->fn;
	const char *hidden = arena_printf(&c->mod->arena, "%s.%d", name, ++c->ncomp_slots);
	add_local(c, fn, ast_intern(c->mod, hidden, strlen(hidden)), &c->locals_cap);
	if (c->nscope == c->scope_cap) {
		c->scope_cap = c->scope_cap ? c->scope_cap * 2 : 8;
		c->scope_names = xrealloc(c->scope_names, sizeof(*c->scope_names) * (size_t)c->scope_cap);
		c->scope_slots = xrealloc(c->scope_slots, sizeof(*c->scope_slots) * (size_t)c->scope_cap);
	}
	c->scope_names[c->nscope] = name;
	c->scope_slots[c->nscope++] = fn->nlocals - 1;
	return fn->nlocals - 1;
}

static void comp_targets(struct sema_ctx *c, struct ast_expr *t)
{
	if (t->kind == AST_NAME)
		t->local = comp_slot(c, t->name);
	else if (t->kind == AST_TUPLE || t->kind == AST_LIST)
		for (int i = 0; i < t->nitems; i++)
			comp_targets(c, t->items[i]);
	else
		diag_error(c->diag, t->loc, "a comprehension's variable must be a name or a tuple of names");
}

/*
 * Python 3's scoping: the first iterable is read outside; each `for`
 * binds its names for the clauses after it and the element.
 */
static void resolve_comp(struct sema_ctx *c, struct ast_expr *e)
{
	int outer = c->nscope;
	for (int k = 1; k < e->nitems; k++) {
		struct ast_expr *cl = e->items[k];
		resolve_body_expr(c, cl->items[1], false);
		comp_targets(c, cl->items[0]);
		for (int i = 2; i < cl->nitems; i++)
			resolve_body_expr(c, cl->items[i], false);
	}
	resolve_body_expr(c, e->items[0], false);
	c->nscope = outer;
}

static void resolve_body_expr(struct sema_ctx *c, struct ast_expr *e, bool callee)
{
	if (!e)
		return;
	if (e->kind == AST_COMP) {
		resolve_comp(c, e);
		return;
	}
	if (e->kind == AST_NAME) {
		for (int i = c->nscope - 1; i >= 0; i--) {
			if (c->scope_names[i] == e->name) {
				e->local = c->scope_slots[i];
				return;
			}
		}
	}
	if (math_ref(c, e, callee))
		return;
	if (e->kind == AST_NAME) {
		int li = local_index(c->fn, e->name);
		if (li >= 0) {
			e->local = li;
			if (li < c->fn->nparams && c->fn->param_defs[li])
				add_dep(&c->fn_deps, c->fn->param_defs[li]);
			return;
		}
		if (callee && is_builtin(e->name))
			return;
		if (callee && misplaced_query(c, e))
			return;
		struct sema_def *d = final_version(c, e->name);
		if (!d) {
			unknown_name(c, e);
			return;
		}
		e->ref = d;
		add_dep(&c->fn_deps, d);
		return;
	}
	if (e->kind == AST_ATTR) {
		if (!callee || strcmp(e->name, "append")) {
			diag_error(c->diag, e->loc, "unknown method '.%s'; lists have '.append'", e->name);
			return;
		}
		resolve_body_expr(c, e->items[0], false);
		return;
	}
	for (int i = 0; i < e->nitems; i++)
		resolve_body_expr(c, e->items[i], e->kind == AST_CALL && i == 0);
}

static void resolve_body(struct sema_ctx *c, struct ast_block *b)
{
	struct sema_def *fn = c->fn;
	for (int i = 0; i < b->n; i++) {
		struct ast_stmt *st = b->stmts[i];
		switch (st->kind) {
		case AST_S_DEVICE:
		case AST_S_SETTING:
		case AST_S_CONSTRAINT:
		case AST_S_DEF:
			diag_error(c->diag, st->loc, "a %s is only allowed at top level", stmt_word(st->kind));
			continue;
		case AST_S_IMPORT:
			diag_error(c->diag, st->loc, "'import' is only allowed at top level");
			continue;
		case AST_S_YIELD:
			if (fn->form != SEMA_FORM_CLOSURE)
				diag_error(c->diag, st->loc, "'yield' outside @iterator");
			break;
		case AST_S_BREAK:
		case AST_S_CONTINUE:
			if (!c->loop_depth)
				diag_error(c->diag, st->loc, "'%s' outside a loop", stmt_word(st->kind));
			break;
		case AST_S_RETURN:
			if (st->value && fn->form == SEMA_FORM_CLOSURE)
				diag_error(c->diag, st->value->loc,
					   "'return' with a value in an iterator that yields");
			break;
		default:
			break;
		}
		for (int t = 0; t < st->ntargets; t++)
			resolve_body_expr(c, st->targets[t], false);
		resolve_body_expr(c, st->value, false);
		bool loop = st->kind == AST_S_WHILE || st->kind == AST_S_FOR;
		c->loop_depth += loop;
		resolve_body(c, &st->body);
		c->loop_depth -= loop;
		resolve_body(c, &st->orelse);
	}
}

static void resolve_def(struct sema_ctx *c, struct sema_def *fn)
{
	struct ast_stmt *st = fn->stmt;
	int cap = 0;
	fn->nparams = st->kind == AST_S_DEF ? st->nparams : 0;
	fn->param_defs = arena_alloc(&c->mod->arena, sizeof(*fn->param_defs) * (size_t)(fn->nparams + 1));
	for (int i = 0; i < fn->nparams; i++) {
		const char *p = st->params[i].name;
		if (local_index(fn, p) >= 0) {
			diag_error(c->diag, st->params[i].loc, "duplicate parameter '%s'", p);
			fn->nparams = i;
			break;
		}
		add_local(c, fn, p, &cap);
		struct sema_def *d = final_version(c, p);
		if (!d) {
			diag_error(c->diag, st->params[i].loc, "parameter '%s' names no definition", p);
			did_you_mean(c, p, st->params[i].loc);
		} else if (d == fn) {
			diag_error(c->diag, st->params[i].loc, "'%s' cannot depend on itself", p);
			d = NULL;
		}
		fn->param_defs[i] = d;
	}
	collect_locals(c, fn, &st->body, &cap);
	c->fn = fn;
	c->fn_deps.len = 0;
	c->loop_depth = 0;
	c->locals_cap = cap;
	resolve_body(c, &st->body);
	c->fn = NULL;
	/* Warnings about the declared list against the true dependencies. */
	for (int i = 0; i < fn->nparams; i++) {
		bool used = false;
		for (size_t k = 0; k < c->fn_deps.len && fn->param_defs[i]; k++)
			used |= c->fn_deps.items[k] == fn->param_defs[i];
		if (fn->param_defs[i] && !used)
			diag_warning(c->diag, st->params[i].loc, "unused-parameter",
				     "parameter '%s' of '%s' is declared but not used",
				     st->params[i].name, fn->name);
	}
	fn->ndeps = (int)c->fn_deps.len;
	fn->deps = arena_memdup(&c->mod->arena, c->fn_deps.items,
				sizeof(*fn->deps) * (c->fn_deps.len ? c->fn_deps.len : 1));
}

static void collect_refs(struct ast_expr *e, struct ptrvec *deps)
{
	if (!e)
		return;
	if (e->kind == AST_NAME && e->ref)
		add_dep(deps, e->ref);
	for (int i = 0; i < e->nitems; i++)
		collect_refs(e->items[i], deps);
}

/* ---- stage 3: cycles and topological order ------------------------------ */

enum { WHITE, GREY, BLACK };

static void report_cycle(struct sema_ctx *c, struct sema_def **stack, int n, struct sema_def *back)
{
	int start = 0;
	while (start < n && stack[start] != back)
		start++;
	char buf[1024];
	size_t len = 0;
	for (int i = start; i < n && len < sizeof(buf) - 64; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "'%s' -> ", stack[i]->name);
	snprintf(buf + len, sizeof(buf) - len, "'%s'", back->name);
	diag_error(c->diag, back->loc, "dependency cycle: %s", buf);
	for (int i = start + 1; i < n; i++)
		diag_note(c->diag, stack[i]->loc, "'%s' is defined here", stack[i]->name);
}

/* Iterative depth-first search, so a long chain cannot overflow the stack. */
static void topo_visit(struct sema_ctx *c, struct sema_def *root, unsigned char *color,
		       struct sema_def **stack, int *next_dep, struct ptrvec *order)
{
	int depth = 0;
	stack[depth] = root;
	next_dep[depth] = 0;
	color[root->id] = GREY;
	depth++;
	while (depth > 0) {
		struct sema_def *d = stack[depth - 1];
		int k = next_dep[depth - 1]++;
		if (k >= d->ndeps) {
			color[d->id] = BLACK;
			ptrvec_push(order, d);
			depth--;
			continue;
		}
		struct sema_def *p = d->deps[k];
		if (color[p->id] == GREY) {
			report_cycle(c, stack, depth, p);
		} else if (color[p->id] == WHITE) {
			color[p->id] = GREY;
			stack[depth] = p;
			next_dep[depth] = 0;
			depth++;
		}
	}
}

/* ---- stage 4: types and classification ---------------------------------- */

static const char *type_word(enum sema_type t)
{
	return sema_type_name(t);
}

static bool numeric(enum sema_type t)
{
	return t == TY_INT || t == TY_FLOAT || t == TY_BOOL;
}

static bool iterable(enum sema_type t)
{
	return t == TY_LIST || t == TY_TABLE;
}

static enum sema_type join(enum sema_type a, enum sema_type b)
{
	if (a == b)
		return a;
	if ((a == TY_INT && b == TY_BOOL) || (a == TY_BOOL && b == TY_INT))
		return TY_INT;
	if (numeric(a) && numeric(b))
		return TY_FLOAT;
	return TY_UNKNOWN;
}

static enum sema_type infer(struct sema_ctx *c, struct ast_expr *e);

static void type_error_binop(struct sema_ctx *c, struct ast_expr *e, enum sema_type a, enum sema_type b)
{
	diag_error(c->diag, e->loc, "unsupported operand types for '%s': '%s' and '%s'",
		   ast_op_text(e->op), type_word(a), type_word(b));
}

static enum sema_type infer_call(struct sema_ctx *c, struct ast_expr *e)
{
	struct ast_expr *fn = e->items[0];
	int nargs = e->nitems - 1;
	enum sema_type args[8] = { 0 };
	for (int i = 0; i < nargs; i++) {
		enum sema_type t = infer(c, e->items[i + 1]);
		if (i < 8)
			args[i] = t;
	}
	if (fn->kind == AST_ATTR) {
		infer(c, fn->items[0]);
		if (nargs != 1)
			diag_error(c->diag, e->loc, "'.append' takes 1 argument (%d given)", nargs);
		return TY_NONE;
	}
	if (fn->kind != AST_NAME) {
		diag_error(c->diag, fn->loc, "only builtin functions can be called");
		return TY_UNKNOWN;
	}
	if (fn->ref || fn->local >= 0) {
		diag_error(c->diag, fn->loc, "'%s' is not a function", fn->name);
		return TY_UNKNOWN;
	}
	const char *n = fn->name;
	int lo = 1, hi = 1;
	enum sema_type result = TY_UNKNOWN;
	if (!strcmp(n, "range")) {
		lo = 1, hi = 3, result = TY_LIST;
		for (int i = 0; i < nargs && i < 8; i++)
			if (args[i] != TY_UNKNOWN && args[i] != TY_INT && args[i] != TY_BOOL)
				diag_error(c->diag, e->items[i + 1]->loc,
					   "range() arguments must be integers, not '%s'", type_word(args[i]));
		/* Python's ValueError, seen before running; a step that is zero
		 * only at run time is a domain error of the definition. */
		const struct ast_expr *step = nargs == 3 ? e->items[3] : NULL;
		if (step && ((step->kind == AST_INT && step->ival == 0) ||
			     (step->kind == AST_BOOL && !step->ival)))
			diag_error(c->diag, step->loc, "range() step must not be zero");
	} else if (!strcmp(n, "min") || !strcmp(n, "max")) {
		lo = 1, hi = 1000000;
		if (nargs == 1) {
			if (args[0] != TY_UNKNOWN && !iterable(args[0]))
				diag_error(c->diag, e->items[1]->loc, "'%s' object is not iterable", type_word(args[0]));
			result = TY_UNKNOWN;
		} else {
			result = nargs ? args[0] : TY_UNKNOWN;
			for (int i = 1; i < nargs && i < 8; i++)
				result = join(result, args[i]);
		}
	} else if (!strcmp(n, "abs")) {
		result = nargs ? args[0] : TY_UNKNOWN;
		if (nargs && (args[0] == TY_STR || iterable(args[0])))
			diag_error(c->diag, e->items[1]->loc, "bad operand type for abs(): '%s'", type_word(args[0]));
		if (result == TY_BOOL)
			result = TY_INT;
	} else if (!strcmp(n, "int") || !strcmp(n, "float") || !strcmp(n, "bool")) {
		lo = 0;
		result = n[0] == 'i' ? TY_INT : n[0] == 'f' ? TY_FLOAT : TY_BOOL;
		if (nargs && n[0] != 'b' && iterable(args[0]))
			diag_error(c->diag, e->items[1]->loc, "%s() argument must be a number or a string, not '%s'",
				   n, type_word(args[0]));
	} else if (!strcmp(n, "len")) {
		result = TY_INT;
		if (nargs && numeric(args[0]))
			diag_error(c->diag, e->items[1]->loc, "object of type '%s' has no len()", type_word(args[0]));
	} else if (!strcmp(n, "list")) {
		lo = 0, result = TY_LIST;
		if (nargs && numeric(args[0]))
			diag_error(c->diag, e->items[1]->loc, "'%s' object is not iterable", type_word(args[0]));
	} else if (!strcmp(n, "sum")) {
		result = TY_UNKNOWN;
		if (nargs && numeric(args[0]))
			diag_error(c->diag, e->items[1]->loc, "'%s' object is not iterable", type_word(args[0]));
	} else if (!strcmp(n, "any") || !strcmp(n, "all")) {
		result = TY_BOOL;
		if (nargs && (numeric(args[0]) || args[0] == TY_NONE))
			diag_error(c->diag, e->items[1]->loc, "'%s' object is not iterable", type_word(args[0]));
	} else if (!strcmp(n, "round")) {
		lo = 1, hi = 2;
		/* round(x) is an int; round(x, n) has x's type. */
		result = nargs == 1 ? TY_INT : nargs == 2 && args[1] == TY_NONE ? TY_INT :
			 nargs == 2 && (args[0] == TY_INT || args[0] == TY_BOOL) ? TY_INT :
			 nargs == 2 && args[0] == TY_FLOAT ? TY_FLOAT : TY_UNKNOWN;
		if (nargs && !numeric(args[0]) && args[0] != TY_UNKNOWN)
			diag_error(c->diag, e->items[1]->loc, "type '%s' doesn't define __round__ method",
				   type_word(args[0]));
		if (nargs == 2 && args[1] != TY_UNKNOWN && args[1] != TY_INT && args[1] != TY_BOOL &&
		    args[1] != TY_NONE)
			diag_error(c->diag, e->items[2]->loc, "round()'s digits must be an integer, not '%s'",
				   type_word(args[1]));
	} else if (!strcmp(n, "divmod")) {
		lo = 2, hi = 2, result = TY_LIST;
		for (int i = 0; i < nargs && i < 2; i++)
			if (!numeric(args[i]) && args[i] != TY_UNKNOWN)
				diag_error(c->diag, e->items[i + 1]->loc, "unsupported operand type for divmod(): '%s'",
					   type_word(args[i]));
	} else if (sema_math_of(n) >= 0) {
		const struct sema_math_fn *m = &sema_math_functions[sema_math_of(n)];
		lo = m->min_args, hi = m->max_args;
		switch (sema_math_of(n)) {
		case SEMA_MATH_CEIL: case SEMA_MATH_FLOOR: case SEMA_MATH_TRUNC: case SEMA_MATH_ISQRT:
		case SEMA_MATH_GCD: case SEMA_MATH_LCM: case SEMA_MATH_FACTORIAL:
			result = TY_INT;
			break;
		case SEMA_MATH_ISFINITE: case SEMA_MATH_ISINF: case SEMA_MATH_ISNAN:
			result = TY_BOOL;
			break;
		case SEMA_MATH_PROD:
			result = TY_UNKNOWN;
			break;
		default:
			result = TY_FLOAT;
			break;
		}
		bool ints = result == TY_INT && sema_math_of(n) != SEMA_MATH_CEIL &&
			    sema_math_of(n) != SEMA_MATH_FLOOR && sema_math_of(n) != SEMA_MATH_TRUNC;
		for (int i = 0; i < nargs && i < 8; i++) {
			bool bad = sema_math_of(n) == SEMA_MATH_PROD
					   ? numeric(args[i]) || args[i] == TY_STR || args[i] == TY_NONE
					   : ints ? args[i] == TY_FLOAT || (!numeric(args[i]) && args[i] != TY_UNKNOWN)
					   : !numeric(args[i]) && args[i] != TY_UNKNOWN;
			if (bad)
				diag_error(c->diag, e->items[i + 1]->loc, "%s() does not take a '%s'", n,
					   type_word(args[i]));
		}
	} else if (python_only(n)) {
		diag_error(c->diag, fn->loc, "Python's '%s' is not supported in .space", n);
		supported_builtins_note(c, fn->loc, false);
		return TY_UNKNOWN;
	} else {
		diag_error(c->diag, fn->loc, "unknown function '%s'", n);
		did_you_mean(c, n, fn->loc);
		return TY_UNKNOWN;
	}
	if (nargs < lo || nargs > hi) {
		if (lo == hi)
			diag_error(c->diag, e->loc, "%s() takes %d argument%s (%d given)", n, lo,
				   lo == 1 ? "" : "s", nargs);
		else if (hi > 3)
			diag_error(c->diag, e->loc, "%s() takes at least %d argument%s (%d given)", n, lo,
				   lo == 1 ? "" : "s", nargs);
		else
			diag_error(c->diag, e->loc, "%s() takes %d to %d arguments (%d given)", n, lo, hi, nargs);
	}
	return result;
}

static enum sema_type infer(struct sema_ctx *c, struct ast_expr *e)
{
	if (!e)
		return TY_UNKNOWN;
	switch (e->kind) {
	case AST_INT: return TY_INT;
	case AST_FLOAT: return TY_FLOAT;
	case AST_STR: return TY_STR;
	case AST_BOOL: return TY_BOOL;
	case AST_NONE: return TY_NONE;
	case AST_UNDEF: return TY_UNKNOWN;
	case AST_NAME:
		if (!e->ref)
			return TY_UNKNOWN;
		return e->ref->type;
	case AST_TUPLE:
	case AST_LIST: {
		bool any_list = false, all_list = e->nitems > 0;
		enum sema_type elem = TY_UNKNOWN;
		for (int i = 0; i < e->nitems; i++) {
			enum sema_type t = infer(c, e->items[i]);
			if (iterable(t))
				any_list = true;
			else
				all_list = false;
			elem = i == 0 ? t : join(elem, t);
		}
		(void)all_list;
		return any_list ? TY_TABLE : TY_LIST;
	}
	case AST_UNARY: {
		enum sema_type t = infer(c, e->items[0]);
		if (e->op == AST_OP_NOT)
			return TY_BOOL;
		if (t == TY_STR || iterable(t) || t == TY_NONE) {
			diag_error(c->diag, e->loc, "bad operand type for unary '%s': '%s'",
				   ast_op_text(e->op), type_word(t));
			return TY_UNKNOWN;
		}
		if (e->op == AST_OP_INVERT && t == TY_FLOAT) {
			diag_error(c->diag, e->loc, "bad operand type for unary '~': 'float'");
			return TY_UNKNOWN;
		}
		return t == TY_BOOL ? TY_INT : t;
	}
	case AST_BINARY: {
		enum sema_type a = infer(c, e->items[0]), b = infer(c, e->items[1]);
		if (a == TY_UNKNOWN || b == TY_UNKNOWN) {
			if (a == TY_STR || b == TY_STR || a == TY_NONE || b == TY_NONE) {
				type_error_binop(c, e, a, b);
			}
			if ((iterable(a) || iterable(b)) &&
			    (e->op == AST_OP_ADD || e->op == AST_OP_BITOR || e->op == AST_OP_BITAND ||
			     e->op == AST_OP_SUB || e->op == AST_OP_MUL))
				return TY_LIST;
			return TY_UNKNOWN;
		}
		if (a == TY_STR || b == TY_STR || a == TY_NONE || b == TY_NONE) {
			type_error_binop(c, e, a, b);
			return TY_UNKNOWN;
		}
		if (iterable(a) || iterable(b)) {
			switch (e->op) {
			case AST_OP_ADD:
				if (iterable(a) && iterable(b))
					return (a == TY_TABLE || b == TY_TABLE) ? TY_TABLE : TY_LIST;
				break;
			case AST_OP_MUL:
				if (iterable(a) && (b == TY_INT || b == TY_BOOL))
					return a;
				if (iterable(b) && (a == TY_INT || a == TY_BOOL))
					return b;
				break;
			case AST_OP_BITOR:
			case AST_OP_BITAND:
			case AST_OP_SUB:
				if (iterable(a) && iterable(b))
					return TY_LIST;
				break;
			default:
				break;
			}
			type_error_binop(c, e, a, b);
			return TY_UNKNOWN;
		}
		switch (e->op) {
		case AST_OP_DIV:
			return TY_FLOAT;
		case AST_OP_POW:
			if (a == TY_FLOAT || b == TY_FLOAT)
				return TY_FLOAT;
			return e->items[1]->kind == AST_INT ? TY_INT : TY_UNKNOWN;
		case AST_OP_BITOR: case AST_OP_BITAND: case AST_OP_BITXOR:
		case AST_OP_LSHIFT: case AST_OP_RSHIFT:
			if (a == TY_FLOAT || b == TY_FLOAT) {
				type_error_binop(c, e, a, b);
				return TY_UNKNOWN;
			}
			return (a == TY_BOOL && b == TY_BOOL && e->op != AST_OP_LSHIFT &&
				e->op != AST_OP_RSHIFT) ? TY_BOOL : TY_INT;
		default:
			return (a == TY_FLOAT || b == TY_FLOAT) ? TY_FLOAT : TY_INT;
		}
	}
	case AST_AND:
	case AST_OR: {
		enum sema_type t = infer(c, e->items[0]);
		for (int i = 1; i < e->nitems; i++) {
			enum sema_type u = infer(c, e->items[i]);
			t = t == u ? t : TY_UNKNOWN;
		}
		return t;
	}
	case AST_COMPARE: {
		enum sema_type prev = infer(c, e->items[0]);
		for (int i = 1; i < e->nitems; i++) {
			enum sema_type t = infer(c, e->items[i]);
			enum ast_op op = e->cmp[i - 1];
			if (op == AST_OP_IN || op == AST_OP_NOT_IN) {
				if (numeric(t) || t == TY_STR || t == TY_NONE)
					diag_error(c->diag, e->items[i]->loc,
						   "argument of '%s' is not iterable ('%s')", ast_op_text(op), type_word(t));
			} else if (op != AST_OP_EQ && op != AST_OP_NE && prev != TY_UNKNOWN && t != TY_UNKNOWN &&
				   !(numeric(prev) && numeric(t)) && !(prev == TY_STR && t == TY_STR)) {
				diag_error(c->diag, e->loc, "'%s' not supported between '%s' and '%s'",
					   ast_op_text(op), type_word(prev), type_word(t));
			}
			prev = t;
		}
		return TY_BOOL;
	}
	case AST_COND: {
		infer(c, e->items[0]);
		enum sema_type a = infer(c, e->items[1]), b = infer(c, e->items[2]);
		if (e->items[2]->kind == AST_UNDEF)
			return a;
		if (iterable(a) != iterable(b) && a != TY_UNKNOWN && b != TY_UNKNOWN) {
			diag_error(c->diag, e->loc, "conditional mixes an iterable ('%s') and a scalar ('%s')",
				   type_word(iterable(a) ? a : b), type_word(iterable(a) ? b : a));
			return TY_UNKNOWN;
		}
		if (iterable(a) && iterable(b))
			return (a == TY_TABLE && b == TY_TABLE) ? TY_TABLE : TY_LIST;
		return join(a, b);
	}
	case AST_CALL:
		return infer_call(c, e);
	case AST_ATTR:
		infer(c, e->items[0]);
		return TY_UNKNOWN;
	case AST_COMP:
		for (int k = 1; k < e->nitems; k++) {
			const struct ast_expr *cl = e->items[k];
			enum sema_type t = infer(c, cl->items[1]);
			if (numeric(t) || t == TY_NONE || t == TY_STR)
				diag_error(c->diag, cl->items[1]->loc, "'%s' object is not iterable", type_word(t));
			for (int i = 2; i < cl->nitems; i++)
				infer(c, cl->items[i]);
		}
		infer(c, e->items[0]);
		return TY_LIST;
	case AST_COMP_FOR:
		return TY_UNKNOWN;
	case AST_INDEX: {
		enum sema_type a = infer(c, e->items[0]), i = infer(c, e->items[1]);
		if (numeric(a) || a == TY_NONE)
			diag_error(c->diag, e->items[0]->loc, "'%s' object is not subscriptable", type_word(a));
		if (i == TY_FLOAT || i == TY_STR || iterable(i))
			diag_error(c->diag, e->items[1]->loc, "indices must be integers, not '%s'", type_word(i));
		return TY_UNKNOWN;
	}
	}
	return TY_UNKNOWN;
}

static void infer_body(struct sema_ctx *c, struct ast_block *b)
{
	for (int i = 0; i < b->n; i++) {
		struct ast_stmt *st = b->stmts[i];
		for (int t = 0; t < st->ntargets; t++)
			if (st->targets[t]->kind == AST_INDEX)
				infer(c, st->targets[t]);
		infer(c, st->value);
		infer_body(c, &st->body);
		infer_body(c, &st->orelse);
	}
}

static bool depends_on_iter(struct sema_def *d)
{
	for (int i = 0; i < d->ndeps; i++) {
		struct sema_def *p = d->deps[i];
		if (p->kind == SEMA_ITER || p->kind == SEMA_DERIVED)
			return true;
	}
	return false;
}

static void classify(struct sema_ctx *c, struct sema_def *d)
{
	if (d->form != SEMA_FORM_EXPR && d->stmt->kind == AST_S_ASSIGN) {
		/* A value with a comprehension (comp_body): its kind is the
		 * value's, as for any plain assignment. */
		enum sema_type t = infer(c, d->stmt->value);
		d->type = TY_UNKNOWN;
		if (t == TY_TABLE)
			diag_error(c->diag, d->loc, "table '%s' cannot be built by a comprehension; write its rows",
				   d->name);
		else if (t == TY_LIST)
			d->kind = SEMA_ITER;
		else
			d->kind = depends_on_iter(d) ? SEMA_DERIVED : SEMA_CONST, d->type = t;
		return;
	}
	if (d->form != SEMA_FORM_EXPR) {
		infer_body(c, &d->stmt->body);
		d->type = TY_UNKNOWN;
		return;
	}
	/* A reassignment: the synthesized conditional must not hide an
	 * iterator (checked before inferring it, which would complain about
	 * the mix of an iterable and a scalar that the user never wrote). */
	if (d->kind == SEMA_CONST && d->version > 0 && d->expr->kind == AST_COND) {
		struct ast_expr *rhs = d->expr->items[1], *old = d->expr->items[2];
		bool old_iter = old->kind == AST_NAME && old->ref && old->ref->kind == SEMA_ITER;
		if (old_iter || looks_iterable(rhs)) {
			diag_error(c->diag, d->loc, "cannot reassign iterator '%s' inside 'if'", d->name);
			diag_note(c->diag, d->loc,
				  "use a conditional expression ('a if c else b') or an @iterator def");
			d->kind = SEMA_DERIVED;
			d->type = TY_UNKNOWN;
			return;
		}
	}
	enum sema_type t = infer(c, d->expr);
	if (d->specialized && d->kind == SEMA_ITER && d->stmt && d->stmt->kind == AST_S_DEF) {
		/* A deferred iterator made an expression: still an iterator. */
		struct ast_expr *x = d->expr;
		d->type = x->kind == AST_CALL && x->items[0]->kind == AST_NAME &&
				  !strcmp(x->items[0]->name, "range") ? TY_INT : TY_UNKNOWN;
		return;
	}
	switch (d->kind) {
	case SEMA_DEVICE:
	case SEMA_SETTING:
		if (depends_on_iter(d))
			diag_error(c->diag, d->loc, "the default of '%s' depends on an iterator", d->name);
		if (iterable(t))
			diag_error(c->diag, d->expr->loc, "'%s' must be a scalar, not '%s'", d->name, type_word(t));
		d->type = t;
		return;
	case SEMA_CONSTRAINT:
		d->type = TY_BOOL;
		if (iterable(t) || t == TY_STR)
			diag_warning(c->diag, d->expr->loc, "constraint-type",
				     "constraint '%s' tests a '%s', which is true unless empty",
				     d->name, type_word(t));
		return;
	default:
		break;
	}
	/* A plain assignment: iterator, table, derived or constant. */
	if (t == TY_TABLE) {
		d->kind = SEMA_TABLE;
		if (depends_on_iter(d))
			diag_error(c->diag, d->loc, "table '%s' must not depend on iterators", d->name);
	} else if (t == TY_LIST) {
		d->kind = SEMA_ITER;
		d->type = TY_UNKNOWN;
		/* The element type, where it is plain. */
		struct ast_expr *x = d->expr;
		if (x->kind == AST_CALL && x->items[0]->kind == AST_NAME && !strcmp(x->items[0]->name, "range"))
			d->type = TY_INT;
		return;
	} else {
		d->kind = depends_on_iter(d) ? SEMA_DERIVED : SEMA_CONST;
	}
	d->type = t;
}

/* ---- stage 6: warnings -------------------------------------------------- */

/* Folds a literal-only integer expression; false if it cannot. */
static bool fold(struct ast_expr *e, int64_t *out, int depth)
{
	if (!e || depth > 50)
		return false;
	int64_t a, b;
	switch (e->kind) {
	case AST_INT:
	case AST_BOOL:
		*out = e->ival;
		return true;
	case AST_NAME:
		if (!e->ref || e->ref->kind != SEMA_CONST || e->ref->form != SEMA_FORM_EXPR)
			return false;
		return fold(e->ref->expr, out, depth + 1);
	case AST_UNARY:
		if (!fold(e->items[0], &a, depth + 1))
			return false;
		if (e->op == AST_OP_NOT)
			*out = !a;
		else if (e->op == AST_OP_NEG && a != INT64_MIN)
			*out = -a;
		else if (e->op == AST_OP_POS)
			*out = a;
		else
			return false;
		return true;
	case AST_BINARY:
		if (!fold(e->items[0], &a, depth + 1) || !fold(e->items[1], &b, depth + 1))
			return false;
		switch (e->op) {
		case AST_OP_ADD: return !__builtin_add_overflow(a, b, out);
		case AST_OP_SUB: return !__builtin_sub_overflow(a, b, out);
		case AST_OP_MUL: return !__builtin_mul_overflow(a, b, out);
		default: return false;
		}
	case AST_AND:
	case AST_OR:
		for (int i = 0; i < e->nitems; i++) {
			if (!fold(e->items[i], &a, depth + 1))
				return false;
			*out = a;
			if ((e->kind == AST_AND) != (a != 0))
				return true;
		}
		return true;
	case AST_COMPARE:
		if (!fold(e->items[0], &a, depth + 1))
			return false;
		for (int i = 1; i < e->nitems; i++) {
			if (!fold(e->items[i], &b, depth + 1))
				return false;
			bool ok;
			switch (e->cmp[i - 1]) {
			case AST_OP_LT: ok = a < b; break;
			case AST_OP_LE: ok = a <= b; break;
			case AST_OP_GT: ok = a > b; break;
			case AST_OP_GE: ok = a >= b; break;
			case AST_OP_EQ: ok = a == b; break;
			case AST_OP_NE: ok = a != b; break;
			default: return false;
			}
			if (!ok) {
				*out = 0;
				return true;
			}
			a = b;
		}
		*out = 1;
		return true;
	default:
		return false;
	}
}

static void warnings(struct sema_ctx *c)
{
	struct sema_program *p = c->prog;
	for (int i = 0; i < p->ndefs; i++) {
		struct sema_def *d = p->defs[i];
		if (d->kind == SEMA_CONSTRAINT) {
			if (d->level < 0)
				diag_warning(c->diag, d->loc, "constant-constraint",
					     "constraint '%s' depends on no iterator; it is checked once for the whole space",
					     d->name);
			int64_t v;
			if (d->cclass == AST_SOFT && d->form == SEMA_FORM_EXPR && fold(d->expr, &v, 0) &&
			    (d->require ? v != 0 : v == 0))
				diag_warning(c->diag, d->loc, "soft-never-rejects",
					     "soft constraint '%s' can never reject a point", d->name);
			continue;
		}
		if (!d->is_final || d->used)
			continue;
		if (d->kind == SEMA_CONST || d->kind == SEMA_DERIVED || d->kind == SEMA_TABLE) {
			struct name_slot *s = slot_find(c, d->name, false);
			diag_warning(c->diag, s ? s->first->loc : d->loc, "unused",
				     "'%s' is defined but never used", d->name);
		}
	}
	/* Undeclared dependencies of defs: only point-varying ones, since
	 * BEAST's own constraints read device limits without declaring them. */
	for (int i = 0; i < p->ndefs; i++) {
		struct sema_def *d = p->defs[i];
		if (d->form == SEMA_FORM_EXPR || d->stmt->kind != AST_S_DEF)
			continue;
		for (int k = 0; k < d->ndeps; k++) {
			struct sema_def *dep = d->deps[k];
			if (dep->kind != SEMA_ITER && dep->kind != SEMA_DERIVED)
				continue;
			bool declared = false;
			for (int j = 0; j < d->nparams; j++)
				declared |= d->param_defs[j] == dep;
			if (!declared)
				diag_warning(c->diag, d->stmt->name_loc, "undeclared-dependency",
					     "'%s' uses '%s' but does not declare it as a parameter",
					     d->name, dep->name);
		}
	}
}

/* ---- the tune: section ------------------------------------------------------ */

enum sema_init sema_tune_init_kind(const struct ast_expr *init)
{
	if (!init || init->kind != AST_CALL || init->items[0]->kind != AST_NAME)
		return SEMA_INIT_BAD;
	const char *f = init->items[0]->name;
	return !strcmp(f, "random") ? SEMA_INIT_RANDOM : !strcmp(f, "zeros") ? SEMA_INIT_ZEROS :
	       !strcmp(f, "constant") ? SEMA_INIT_CONST : !strcmp(f, "file") ? SEMA_INIT_FILE :
	       SEMA_INIT_BAD;
}

/* Names in the tune section mean final versions, as forward references do. */
static void tune_resolve(struct sema_ctx *c, struct ast_expr *e, bool callee)
{
	if (resolved_alike(c, e, callee, "in the tune section"))
		return;
	if (e->kind == AST_NAME) {
		if (callee && (is_builtin(e->name) || misplaced_query(c, e)))
			return;
		struct sema_def *d = final_version(c, e->name);
		if (!d) {
			unknown_name(c, e);
		} else if (d->kind == SEMA_CONSTRAINT) {
			diag_error(c->diag, e->loc, "'%s' is a constraint; the tune section can use values, not constraints",
				   e->name);
		} else {
			e->ref = d;
			d->used = true;
		}
		return;
	}
	resolve_items(c, e, tune_resolve);
}

/* A buffer's initialiser: its function is not a name, its arguments are. */
static void tune_init(struct sema_ctx *c, struct ast_tune_line *t)
{
	struct ast_expr *e = t->init;
	static const char *const inits[] = { "random", "zeros", "constant", "file", NULL };
	if (t->access == AST_ACCESS_OUT) {
		diag_error(c->diag, e->loc, "output buffer '%s' is zero-filled and takes no initialiser",
			   t->name.text);
		return;
	}
	enum sema_init k = sema_tune_init_kind(e);
	if (k == SEMA_INIT_BAD) {
		struct srcloc at = e->kind == AST_CALL ? e->items[0]->loc : e->loc;
		diag_error(c->diag, at, "a buffer is initialised with random(SEED[, LO, HI]), zeros(), "
			   "constant(X) or file(PATH)");
		if (e->kind == AST_CALL && e->items[0]->kind == AST_NAME)
			did_you_mean_word(c, e->items[0]->name, inits, at);
		return;
	}
	int nargs = e->nitems - 1;
	bool ok = k == SEMA_INIT_RANDOM ? nargs == 1 || nargs == 3 :
		  k == SEMA_INIT_ZEROS ? nargs == 0 : nargs == 1;
	if (!ok)
		diag_error(c->diag, e->loc, "%s() takes %s (%d given)", inits[k],
			   k == SEMA_INIT_RANDOM ? "a seed, or a seed and the bounds LO, HI" :
			   k == SEMA_INIT_ZEROS ? "no arguments" :
			   k == SEMA_INIT_CONST ? "1 argument, the value" : "1 argument, the path", nargs);
	for (int i = 1; i < e->nitems; i++)
		tune_resolve(c, e->items[i], false);
}

static void tune_sizes(struct sema_ctx *c, struct ast_expr *list, const char *what)
{
	if (!list)
		return;
	if (list->nitems > 3)
		diag_error(c->diag, list->loc, "'%s' has %d sizes; a launch has 1 to 3 dimensions",
			   what, list->nitems);
	tune_resolve(c, list, false);
}

static void duplicate_line(struct sema_ctx *c, const struct ast_tune_line *t, const struct ast_tune_line *first)
{
	const char *w = ast_tune_kind_name(t->kind);
	diag_error(c->diag, t->loc, "duplicate '%s' line", w);
	diag_note(c->diag, first->loc, "the first '%s' line is here", w);
}

/* A name given twice in one list of names (defines, buffers, metrics). */
static bool tune_twice(struct sema_ctx *c, struct ptrvec *seen, const struct ast_word *w, const char *what)
{
	for (size_t i = 0; i < seen->len; i++) {
		const struct ast_word *o = seen->items[i];
		if (o->text != w->text)
			continue;
		diag_error(c->diag, w->loc, "%s '%s' is given twice", what, w->text);
		diag_note(c->diag, o->loc, "'%s' is first given here", w->text);
		return true;
	}
	ptrvec_push(seen, (void *)w);
	return false;
}

static void tune_type_word(struct sema_ctx *c, const struct ast_word *type)
{
	if (sema_tune_type(type->text) >= 0)
		return;
	/* A name whose value names the type, so that one file serves both
	 * precisions: real = "double" if ... else "float" (tune_named_type
	 * checks it once the kinds and types are known). */
	struct sema_def *d = final_version(c, type->text);
	if (d) {
		d->used = true;
		return;
	}
	diag_error(c->diag, type->loc, "unknown argument type '%s'", type->text);
	did_you_mean_word(c, type->text, sema_tune_types, type->loc);
	diag_note(c->diag, type->loc, "the types are char, uchar, short, ushort, int, uint, long, "
		  "ulong, half, float and double");
}

/* A type given by name must be fixed for the run and hold a string
 * ("float", "double", ...); the value itself is checked when the job is
 * loaded. */
static void tune_named_type(struct sema_ctx *c, const struct ast_word *type)
{
	const struct sema_def *d = sema_tune_type(type->text) < 0 ? final_version(c, type->text) : NULL;
	if (!d)
		return;
	if (d->kind != SEMA_CONST && d->kind != SEMA_SETTING && d->kind != SEMA_DEVICE)
		diag_error(c->diag, type->loc, "'%s' is not fixed for the run; an argument type cannot "
			   "change from point to point", type->text);
	else if (d->type != TY_STR && d->type != TY_UNKNOWN)
		diag_error(c->diag, type->loc, "'%s' is not a string; a type given by name holds one of "
			   "\"char\", ..., \"float\", \"double\"", type->text);
}

static int tune_kernel_lines(const struct ast_tune *t)
{
	int n = 0;
	for (int i = 0; i < t->n; i++)
		n += t->lines[i]->kind == AST_T_KERNEL;
	return n;
}

static const struct ast_tune_line *tune_buffer(const struct ast_tune *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (t->lines[i]->kind == AST_T_ARG_BUFFER && t->lines[i]->name.text == name)
			return t->lines[i];
	return NULL;
}

/* The global and local lines of one kernel (of the whole section, or of
 * one kernel line of a multi-kernel code). */
static void tune_stage_sizes(struct sema_ctx *c, const struct ast_tune *t, const struct ast_tune_line *kernel,
			     const struct ast_tune_line *g, const struct ast_tune_line *lo)
{
	if (!g && kernel && tune_kernel_lines(t) > 1)
		diag_error(c->diag, kernel->loc, "this kernel has no 'global' line (each kernel line of a code "
			   "with several needs one, after it)");
	else if (!g)
		diag_error(c->diag, t->loc, "the tune section has no 'global' line");
	if (g && lo && g->global->nitems != lo->local->nitems) {
		diag_error(c->diag, lo->local->loc, "'local' has %d sizes but 'global' has %d",
			   lo->local->nitems, g->global->nitems);
		diag_note(c->diag, g->global->loc, "'global' is given here");
	}
}

/*
 * A second `kernel` line: a code of several kernels, each with its own
 * sizes and arguments.  One build of one program holds them all, so each
 * line names one kernel and the first line's source files.
 */
static void multi_kernel_line(struct sema_ctx *c, const struct ast_tune_line *l, const struct ast_tune_line *first)
{
	const struct ast_tune_line *many = first->nkernels > 1 ? first : l->nkernels > 1 ? l : NULL;
	if (many) {
		diag_error(c->diag, many->kernels[1].loc, "a kernel line of a code with several kernel lines names "
			   "one kernel");
		return;
	}
	bool same = l->nwords == first->nwords;
	for (int w = 0; same && w < l->nwords; w++)
		same = strcmp(l->words[w].text, first->words[w].text) == 0;
	if (!same) {
		diag_error(c->diag, l->nwords ? l->words[0].loc : l->loc, "the kernels of one code are built as one "
			   "program: name the same source files as the first kernel line");
		diag_note(c->diag, first->loc, "the first kernel line is here");
	}
}

/*
 * Stage 2 for the tune section: names, and every rule that needs no types
 * (lines given once, required lines, argument types, initialisers, the
 * number of dimensions, what `compare` may name).
 */
static void tune_check(struct sema_ctx *c, struct ast_tune *t)
{
	const struct ast_tune_line *first[AST_T_ARG_USE + 1] = { 0 };
	const struct ast_tune_line *stage = NULL;   /* the kernel line of the sizes in first[] */
	struct ptrvec defines = PTRVEC_INIT, buffers = PTRVEC_INIT, metrics = PTRVEC_INIT;
	for (int i = 0; i < t->n; i++) {
		struct ast_tune_line *l = t->lines[i];
		enum ast_tune_kind k = l->kind == AST_T_REF_C ? AST_T_REF_KERNEL : l->kind;
		if (k == AST_T_KERNEL && first[AST_T_KERNEL]) {
			/* A code of several kernels (multi_kernel_line): the global
			 * and local lines after this one are the new kernel's. */
			multi_kernel_line(c, l, first[AST_T_KERNEL]);
			tune_stage_sizes(c, t, stage ? stage : first[AST_T_KERNEL], first[AST_T_GLOBAL], first[AST_T_LOCAL]);
			first[AST_T_GLOBAL] = first[AST_T_LOCAL] = NULL;
			stage = l;
			continue;
		}
		bool single = k == AST_T_OPTIONS || k == AST_T_GLOBAL || k == AST_T_KERNEL ||
			      k == AST_T_LOCAL || k == AST_T_REF_KERNEL || k == AST_T_TOLERANCE;
		if (single && first[k])
			duplicate_line(c, l, first[k]);
		if (!first[k])
			first[k] = l;
		tune_resolve(c, l->value, false);
		tune_resolve(c, l->rel, false);
		tune_resolve(c, l->abs, false);
		tune_sizes(c, l->global, "global");
		tune_sizes(c, l->local, "local");
		switch (l->kind) {
		case AST_T_DEFINE_NAMES:
			for (int w = 0; w < l->nwords; w++) {
				struct ast_word *word = &l->words[w];
				struct sema_def *d = final_version(c, word->text);
				if (!d) {
					diag_error(c->diag, word->loc, "unknown name '%s'", word->text);
					did_you_mean(c, word->text, word->loc);
				} else if (d->kind == SEMA_CONSTRAINT) {
					diag_error(c->diag, word->loc, "'%s' is a constraint; the tune section can use values, not constraints",
						   word->text);
				} else {
					d->used = true;
				}
				tune_twice(c, &defines, word, "define");
			}
			break;
		case AST_T_DEFINE:
			tune_twice(c, &defines, &l->name, "define");
			break;
		case AST_T_ARG_SCALAR:
		case AST_T_ARG_LOCAL:
			tune_type_word(c, &l->type);
			break;
		case AST_T_ARG_BUFFER:
			tune_type_word(c, &l->type);
			tune_twice(c, &buffers, &l->name, "buffer");
			if (l->init)
				tune_init(c, l);
			break;
		case AST_T_ARG_USE: {
			const struct ast_tune_line *b = tune_buffer(t, l->name.text);
			if (tune_kernel_lines(t) < 2)
				diag_error(c->diag, l->loc, "'arg NAME' passes a buffer again to a later kernel line's "
					   "kernel; this tune section has one kernel line");
			else if (!b || b->loc.line > l->loc.line)
				diag_error(c->diag, l->name.loc, "'%s' is no buffer of an earlier line; 'arg NAME' passes a "
					   "buffer declared before it again (write 'arg TYPE VALUE' for a scalar)",
					   l->name.text);
			break;
		}
		case AST_T_METRIC:
			tune_twice(c, &metrics, &l->name, "metric");
			if (l->unit.text && strcmp(l->unit.text, "flop") && strcmp(l->unit.text, "byte"))
				diag_error(c->diag, l->unit.loc, "unknown metric unit '%s'; write 'flop' (GFLOP/s), "
					   "'byte' (GB/s) or nothing", l->unit.text);
			break;
		case AST_T_REF_KERNEL:
			if (!l->global)
				diag_error(c->diag, l->loc, "a reference kernel needs its 'global [...]' sizes");
			else if (l->local && l->local->nitems != l->global->nitems)
				diag_error(c->diag, l->local->loc, "'local' has %d sizes but 'global' has %d",
					   l->local->nitems, l->global->nitems);
			break;
		default:
			break;
		}
	}
	if (!first[AST_T_KERNEL])
		diag_error(c->diag, t->loc, "the tune section has no 'kernel' line");
	tune_stage_sizes(c, t, stage ? stage : first[AST_T_KERNEL], first[AST_T_GLOBAL], first[AST_T_LOCAL]);
	for (int i = 0; i < t->n; i++) {
		const struct ast_tune_line *l = t->lines[i];
		for (int w = 0; l->kind == AST_T_COMPARE && w < l->nwords; w++) {
			const struct ast_tune_line *b = tune_buffer(t, l->words[w].text);
			if (!b) {
				diag_error(c->diag, l->words[w].loc, "'%s' is not a buffer argument", l->words[w].text);
			} else if (b->access == AST_ACCESS_IN) {
				diag_error(c->diag, l->words[w].loc, "'%s' is an input buffer; only 'out' and 'inout' "
					   "buffers can be compared", l->words[w].text);
				diag_note(c->diag, b->name.loc, "'%s' is declared here", b->name.text);
			}
		}
	}
	ptrvec_release(&defines);
	ptrvec_release(&buffers);
	ptrvec_release(&metrics);
}

/* The first name in `e` whose value varies per point, or NULL. */
static const struct ast_expr *varying_name(const struct ast_expr *e)
{
	if (!e)
		return NULL;
	if (e->kind == AST_NAME && e->ref && (e->ref->kind == SEMA_ITER || e->ref->kind == SEMA_DERIVED))
		return e;
	for (int i = 0; i < e->nitems; i++) {
		const struct ast_expr *n = varying_name(e->items[i]);
		if (n)
			return n;
	}
	return NULL;
}

/* What is computed once per job must not vary per point. */
static void tune_fixed(struct sema_ctx *c, const struct ast_expr *e, const char *what, const char *name)
{
	const struct ast_expr *v = varying_name(e);
	if (!v)
		return;
	diag_error(c->diag, v->loc, "%s%s%s%s depends on '%s', which varies from point to point", what,
		   name ? " '" : "", name ? name : "", name ? "'" : "", v->name);
	diag_note(c->diag, v->ref->loc, "'%s' is %s; buffers and the reference are set up once per job",
		  v->name, v->ref->kind == SEMA_ITER ? "an iterator" : "a derived value");
}

/* The static type rule of one tune expression. */
enum tune_want { WANT_INT, WANT_NUMBER, WANT_STR, WANT_SCALAR };

static void tune_typed(struct sema_ctx *c, struct ast_expr *e, enum tune_want want, const char *what)
{
	if (!e)
		return;
	enum sema_type t = infer(c, e);
	bool bad;
	switch (want) {
	case WANT_INT:
		bad = t != TY_UNKNOWN && t != TY_INT && t != TY_BOOL;
		break;
	case WANT_NUMBER:
		bad = t != TY_UNKNOWN && !numeric(t);
		break;
	case WANT_STR:
		bad = t != TY_UNKNOWN && t != TY_STR;
		break;
	default:
		bad = t == TY_NONE || iterable(t);
		break;
	}
	if (bad)
		diag_error(c->diag, e->loc, "%s must be %s, not '%s'", what,
			   want == WANT_INT ? "an integer" : want == WANT_NUMBER ? "a number" :
			   want == WANT_STR ? "a string" : "a number, a string or a bool", type_word(t));
}

static void tune_size_types(struct sema_ctx *c, struct ast_expr *list, const char *what)
{
	for (int i = 0; list && i < list->nitems; i++)
		tune_typed(c, list->items[i], WANT_INT, what);
}

/* Stage 4 for the tune section: static types and what must stay fixed. */
static void tune_types(struct sema_ctx *c, struct ast_tune *t)
{
	for (int i = 0; i < t->n; i++) {
		struct ast_tune_line *l = t->lines[i];
		switch (l->kind) {
		case AST_T_OPTIONS:
			tune_typed(c, l->value, WANT_STR, "the build options");
			break;
		case AST_T_DEFINE:
			tune_typed(c, l->value, WANT_SCALAR, "a define's value");
			break;
		case AST_T_DEFINE_NAMES:
			for (int w = 0; w < l->nwords; w++) {
				struct sema_def *d = final_version(c, l->words[w].text);
				if (d && (d->kind == SEMA_TABLE || (d->kind != SEMA_ITER && iterable(d->type))))
					diag_error(c->diag, l->words[w].loc, "'%s' is a %s; only scalar values can be defined",
						   d->name, d->kind == SEMA_TABLE ? "table" : "list");
			}
			break;
		case AST_T_GLOBAL:
		case AST_T_LOCAL:
			tune_size_types(c, l->global ? l->global : l->local, "a work size");
			break;
		case AST_T_ARG_SCALAR: {
			int ty = sema_tune_type(l->type.text);
			tune_named_type(c, &l->type);
			bool integral = ty >= 0 && strcmp(l->type.text, "half") && strcmp(l->type.text, "float") &&
					strcmp(l->type.text, "double");
			tune_typed(c, l->value, integral ? WANT_INT : WANT_NUMBER,
				   arena_printf(&c->mod->arena, "an argument of type '%s'", l->type.text));
			break;
		}
		case AST_T_ARG_LOCAL:
			tune_named_type(c, &l->type);
			tune_typed(c, l->value, WANT_INT, "a local memory size");
			break;
		case AST_T_ARG_BUFFER:
			tune_named_type(c, &l->type);
			tune_typed(c, l->value, WANT_INT, "a buffer size");
			tune_fixed(c, l->value, "the size of buffer", l->name.text);
			if (l->init && sema_tune_init_kind(l->init) != SEMA_INIT_BAD) {
				enum sema_init k = sema_tune_init_kind(l->init);
				for (int a = 1; a < l->init->nitems; a++)
					tune_typed(c, l->init->items[a],
						   k == SEMA_INIT_FILE ? WANT_STR :
						   k == SEMA_INIT_RANDOM && a == 1 ? WANT_INT : WANT_NUMBER,
						   k == SEMA_INIT_FILE ? "a file name" :
						   k == SEMA_INIT_RANDOM && a == 1 ? "a seed" : "an initial value");
				tune_fixed(c, l->init, "the initialiser of buffer", l->name.text);
			}
			break;
		case AST_T_REF_KERNEL:
			tune_size_types(c, l->global, "a work size");
			tune_size_types(c, l->local, "a work size");
			tune_typed(c, l->value, WANT_STR, "the build options");
			tune_fixed(c, l->global, "the reference's global size", NULL);
			tune_fixed(c, l->local, "the reference's local size", NULL);
			tune_fixed(c, l->value, "the reference's options", NULL);
			break;
		case AST_T_TOLERANCE:
			tune_typed(c, l->rel, WANT_NUMBER, "a tolerance");
			tune_typed(c, l->abs, WANT_NUMBER, "a tolerance");
			tune_fixed(c, l->rel, "the tolerance", NULL);
			tune_fixed(c, l->abs, "the tolerance", NULL);
			break;
		case AST_T_METRIC:
			tune_typed(c, l->value, WANT_NUMBER, "a metric");
			break;
		default:
			break;
		}
	}
}

void sema_placement(const struct sema_program *prog, struct sema_def *const *order, int *pos, int *level)
{
	for (int i = 0; i < prog->niters; i++)
		pos[order[i]->id] = i;
	for (int i = 0; i < prog->ndefs; i++) { /* prog->defs is topological */
		const struct sema_def *d = prog->defs[i];
		int lvl = d->kind == SEMA_ITER ? pos[d->id] : -1;
		for (int k = 0; k < d->ndeps && d->kind != SEMA_ITER; k++)
			if (d->deps[k] != d && level[d->deps[k]->id] > lvl)
				lvl = level[d->deps[k]->id];
		level[d->id] = lvl;
	}
}

/* Loop positions from loop_order; each definition's level from them. */
static void place(struct sema_program *prog)
{
	int *pos = xcalloc((size_t)prog->ndefs + 1, sizeof(int));
	int *level = xcalloc((size_t)prog->ndefs + 1, sizeof(int));
	sema_placement(prog, prog->loop_order, pos, level);
	for (int i = 0; i < prog->ndefs; i++) {
		struct sema_def *d = prog->defs[i];
		if (d->kind == SEMA_ITER)
			d->loop_pos = pos[d->id];
		d->level = level[d->id];
	}
	free(pos);
	free(level);
}

static int cmp_level_set(const void *a, const void *b)
{
	const struct sema_def *x = *(struct sema_def *const *)a, *y = *(struct sema_def *const *)b;
	if (x->level_set != y->level_set)
		return x->level_set < y->level_set ? -1 : 1;
	return (x->decl_pos > y->decl_pos) - (x->decl_pos < y->decl_pos);
}

void sema_level_set_order(const struct sema_program *prog, struct sema_def **order)
{
	memcpy(order, prog->iters, sizeof(void *) * (size_t)prog->niters);
	qsort(order, (size_t)prog->niters, sizeof(void *), cmp_level_set);
}

void sema_set_loop_order(struct sema_program *prog, struct sema_def *const *order)
{
	memmove(prog->loop_order, order, sizeof(void *) * (size_t)prog->niters);
	place(prog);
}


/* ---- scheduling ------------------------------------------------------------ */

static int expr_cost(const struct ast_expr *e)
{
	if (!e)
		return 0;
	int n = 1;
	for (int i = 0; i < e->nitems; i++)
		n += expr_cost(e->items[i]);
	return n;
}

/*
 * The order definitions are evaluated in, within a level: constraints as
 * soon as their inputs exist (so a rejection saves the work of unrelated
 * derived values), cheaper ones first, then definition order.  Kahn's
 * algorithm over a binary heap keeps this O(n log n) for huge inputs.
 */
struct sched_key {
	int rank, cost, id;
};

static bool key_less(const struct sched_key *a, const struct sched_key *b)
{
	if (a->rank != b->rank)
		return a->rank < b->rank;
	if (a->cost != b->cost)
		return a->cost < b->cost;
	return a->id < b->id;
}

static void heap_push(struct sched_key *h, int *n, struct sched_key k)
{
	int i = (*n)++;
	h[i] = k;
	while (i > 0 && key_less(&h[i], &h[(i - 1) / 2])) {
		struct sched_key t = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct sched_key heap_pop(struct sched_key *h, int *n)
{
	struct sched_key top = h[0];
	h[0] = h[--(*n)];
	int i = 0;
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < *n && key_less(&h[l], &h[m]))
			m = l;
		if (r < *n && key_less(&h[r], &h[m]))
			m = r;
		if (m == i)
			break;
		struct sched_key t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
	return top;
}

static void schedule(struct sema_def **defs, int n, struct sema_def **byid)
{
	int *indeg = xcalloc((size_t)n + 1, sizeof(int));
	int *nusers = xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		for (int k = 0; k < defs[i]->ndeps; k++)
			if (defs[i]->deps[k] != defs[i]) {
				indeg[defs[i]->id]++;
				nusers[defs[i]->deps[k]->id]++;
			}
	int **users = xcalloc((size_t)n + 1, sizeof(int *));
	int *fill = xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		users[i] = xcalloc((size_t)nusers[i] + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		for (int k = 0; k < defs[i]->ndeps; k++)
			if (defs[i]->deps[k] != defs[i]) {
				int u = defs[i]->deps[k]->id;
				users[u][fill[u]++] = defs[i]->id;
			}
	struct sched_key *heap = xcalloc((size_t)n + 1, sizeof(*heap));
	int hn = 0, out = 0;
	for (int id = 0; id < n; id++) {
		struct sema_def *d = byid[id];
		if (!indeg[id]) {
			struct sched_key k = { d->kind != SEMA_CONSTRAINT,
					       d->form == SEMA_FORM_EXPR ? expr_cost(d->expr) : 1000, id };
			heap_push(heap, &hn, k);
		}
	}
	while (hn) {
		struct sched_key k = heap_pop(heap, &hn);
		defs[out++] = byid[k.id];
		for (int j = 0; j < fill[k.id]; j++) {
			int u = users[k.id][j];
			if (--indeg[u] == 0) {
				struct sema_def *d = byid[u];
				struct sched_key nk = { d->kind != SEMA_CONSTRAINT,
							d->form == SEMA_FORM_EXPR ? expr_cost(d->expr) : 1000, u };
				heap_push(heap, &hn, nk);
			}
		}
	}
	for (int i = 0; i < n; i++)
		free(users[i]);
	free(users);
	free(fill);
	free(indeg);
	free(nusers);
	free(heap);
}

/* ---- the driver ----------------------------------------------------------- */

int sema_analyze(struct ast_module *mod, struct diag *diag, struct sema_program *prog)
{
	return sema_analyze_known(mod, diag, prog, NULL, -1);
}

int sema_analyze_known(struct ast_module *mod, struct diag *diag, struct sema_program *prog,
		       const struct sema_known *known, int nknown)
{
	struct sema_ctx c;
	memset(&c, 0, sizeof(c));
	memset(prog, 0, sizeof(*prog));
	c.mod = mod;
	c.diag = diag;
	c.prog = prog;
	prog->mod = mod;
	/* Promoted warnings (-Werror) do not stop the passes, so every class
	 * of warning is reported; they still count in the result. */
	c.errors_before = diag_real_errors(diag);
	int all_before = diag->errors;

	/* 1. Top-level statements. */
	read_imports(&c, &mod->body);
	top_block(&c, &mod->body, NULL);

	/* 2. Forward references resolve to final versions; then def bodies. */
	for (size_t i = 0; i < c.forward.len; i++) {
		struct ast_expr *e = c.forward.items[i];
		struct sema_def *d = final_version(&c, e->name);
		if (d)
			e->ref = d;
		else
			unknown_name(&c, e);
	}
	if (mod->tune)
		tune_check(&c, mod->tune);
	int n = (int)c.defs.len;
	for (int i = 0; i < n; i++) {
		struct sema_def *d = c.defs.items[i];
		d->id = i;
		d->is_final = final_version(&c, d->name) == d;
		if (d->form == SEMA_FORM_EXPR) {
			struct ptrvec deps = PTRVEC_INIT;
			collect_refs(d->expr, &deps);
			d->ndeps = (int)deps.len;
			d->deps = arena_memdup(&mod->arena, deps.items,
					       sizeof(*d->deps) * (deps.len ? deps.len : 1));
			ptrvec_release(&deps);
		} else {
			resolve_def(&c, d);
		}
	}
	/* 2b. Specialized to the known bindings (nknown < 0: not asked). */
	if (nknown >= 0 && diag_real_errors(diag) == c.errors_before)
		sema_specialize_defs(mod, (struct sema_def **)c.defs.items, n, known, nknown);
	for (int i = 0; i < n; i++) {
		struct sema_def *d = c.defs.items[i];
		for (int k = 0; k < d->ndeps; k++)
			if (d->deps[k] != d)
				d->deps[k]->used = true;
	}

	/* 3. Cycles and a topological order (definition order among peers). */
	unsigned char *color = xcalloc((size_t)n + 1, 1);
	struct sema_def **stack = xcalloc((size_t)n + 1, sizeof(*stack));
	int *next_dep = xcalloc((size_t)n + 1, sizeof(*next_dep));
	struct ptrvec order = PTRVEC_INIT;
	for (int i = 0; i < n; i++)
		if (color[i] == WHITE)
			topo_visit(&c, c.defs.items[i], color, stack, next_dep, &order);
	free(color);
	free(stack);
	free(next_dep);
	bool ok = diag_real_errors(diag) == c.errors_before;

	/* 4. Classification, dependencies before users. */
	for (size_t i = 0; i < order.len && ok; i++)
		classify(&c, order.items[i]);
	if (ok && mod->tune)
		tune_types(&c, mod->tune);
	for (size_t i = 0; i < order.len && ok; i++) {
		struct sema_def *d = order.items[i];
		for (int k = 0; k < d->ndeps; k++)
			if (d->deps[k]->partial && d->deps[k]->is_final && d->form == SEMA_FORM_EXPR &&
			    d->deps[k]->kind != SEMA_ITER && !(d->version > 0 && d->deps[k]->name == d->name)) {
				diag_error(diag, d->loc, "'%s' uses '%s', which is not defined on every path",
					   d->name, d->deps[k]->name);
				diag_note(diag, d->deps[k]->loc, "'%s' is only assigned inside 'if'",
					  d->deps[k]->name);
			}
	}

	for (size_t i = 0; i < order.len && ok; i++) {
		struct sema_def *d = order.items[i];
		if (d->replaces && (d->replaces->kind == SEMA_ITER || d->kind == SEMA_ITER)) {
			diag_error(diag, d->loc, "cannot reassign iterator '%s'", d->name);
			diag_note(diag, d->replaces->loc,
				  "use a conditional expression ('a if c else b') or an @iterator def");
		}
	}

	/* Each iterator is one more nested loop in the C, whose compilers'
	 * time grows faster than linearly with the depth (10,000 trivial
	 * iterators did not build in 60 s). */
	for (int i = 0, seen = 0; ok && i < n; i++) {
		const struct sema_def *d = c.defs.items[i];
		if (d->kind == SEMA_ITER && ++seen > SEMA_MAX_ITERATORS) {
			diag_error(diag, d->loc, "too many iterators (more than %d)", SEMA_MAX_ITERATORS);
			ok = false;
		}
	}

	if (!ok) {
		ptrvec_release(&order);
		goto out;
	}

	/* 5. Loop order by level sets; every other definition's level. */
	int niters = 0;
	for (int i = 0; i < n; i++)
		if (((struct sema_def *)c.defs.items[i])->kind == SEMA_ITER)
			niters++;
	prog->ndefs = n;
	prog->defs = arena_memdup(&mod->arena, order.items, sizeof(void *) * (size_t)(n ? n : 1));
	ptrvec_release(&order);
	schedule(prog->defs, n, (struct sema_def **)c.defs.items);
	prog->iters = arena_alloc(&mod->arena, sizeof(void *) * (size_t)(niters + 1));
	prog->niters = 0;
	prog->loop_order = arena_alloc(&mod->arena, sizeof(void *) * (size_t)(niters + 1));
	int ncons = 0, nbind = 0;
	for (int i = 0; i < n; i++) {
		struct sema_def *d = c.defs.items[i];
		if (d->kind == SEMA_ITER) {
			d->decl_pos = prog->niters;
			prog->iters[prog->niters++] = d;
		}
		ncons += d->kind == SEMA_CONSTRAINT;
		nbind += d->kind == SEMA_DEVICE || d->kind == SEMA_SETTING;
	}
	prog->constraints = arena_alloc(&mod->arena, sizeof(void *) * (size_t)(ncons + 1));
	prog->bindable = arena_alloc(&mod->arena, sizeof(void *) * (size_t)(nbind + 1));
	for (int i = 0; i < n; i++) {
		struct sema_def *d = c.defs.items[i];
		if (d->kind == SEMA_CONSTRAINT)
			prog->constraints[prog->nconstraints++] = d;
		if (d->kind == SEMA_DEVICE || d->kind == SEMA_SETTING)
			prog->bindable[prog->nbindable++] = d;
	}

	/* Level sets: an iterator's set is one deeper than its deepest input. */
	for (int i = 0; i < n; i++) {
		struct sema_def *d = prog->defs[i];
		int depth = 0;
		for (int k = 0; k < d->ndeps; k++)
			if (d->deps[k]->level + (d->deps[k]->kind == SEMA_ITER) > depth)
				depth = d->deps[k]->level + (d->deps[k]->kind == SEMA_ITER);
		d->level = depth; /* temporarily: the level-set depth */
	}
	for (int i = 0; i < niters; i++)
		prog->iters[i]->level_set = prog->iters[i]->level;
	sema_level_set_order(prog, prog->loop_order);
	place(prog);
	/* An iterator's inputs must all be bound before its loop opens. */
	for (int i = 0; i < n; i++) {
		struct sema_def *d = prog->defs[i];
		for (int k = 0; d->kind == SEMA_ITER && k < d->ndeps; k++)
			if (d->deps[k]->level >= d->loop_pos)
				diag_error(diag, d->loc, "internal error: '%s' ordered before its input '%s'",
					   d->name, d->deps[k]->name);
	}
	/* 6. Warnings, only for a program that is otherwise sound. */
	if (diag_real_errors(diag) == c.errors_before)
		warnings(&c);

out:
	free(c.names);
	ptrvec_release(&c.defs);
	ptrvec_release(&c.forward);
	ptrvec_release(&c.fn_deps);
	ptrvec_release(&c.math_names);
	free(c.scope_names);
	free(c.scope_slots);
	return diag->errors - all_before;
}

struct sema_def *sema_lookup(const struct sema_program *prog, const char *name)
{
	struct sema_def *found = NULL;
	for (int i = 0; i < prog->ndefs; i++)
		if (!strcmp(prog->defs[i]->name, name) && prog->defs[i]->is_final)
			found = prog->defs[i];
	return found;
}

const char *sema_kind_name(enum sema_kind k)
{
	static const char *const names[] = {
		"device", "setting", "constant", "table", "iterator", "derived", "constraint",
	};
	return (unsigned)k < sizeof(names) / sizeof(*names) ? names[k] : "?";
}

const char *sema_type_name(enum sema_type t)
{
	static const char *const names[] = {
		"unknown", "int", "float", "bool", "str", "NoneType", "list", "table",
	};
	return (unsigned)t < sizeof(names) / sizeof(*names) ? names[t] : "?";
}
