#include "ast.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ast_module_init(struct ast_module *m, const char *filename)
{
	memset(m, 0, sizeof(*m));
	arena_init(&m->arena);
	m->filename = filename ? arena_strdup(&m->arena, filename) : "<input>";
}

void ast_module_release(struct ast_module *m)
{
	free(m->names);
	arena_release(&m->arena);
	memset(m, 0, sizeof(*m));
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void intern_grow(struct ast_module *m)
{
	size_t cap = m->names_cap ? m->names_cap * 2 : 256;
	const char **names = xcalloc(cap, sizeof(*names));
	for (size_t i = 0; i < m->names_cap; i++) {
		const char *s = m->names[i];
		if (!s)
			continue;
		size_t j = hash_bytes(s, strlen(s)) & (cap - 1);
		while (names[j])
			j = (j + 1) & (cap - 1);
		names[j] = s;
	}
	free(m->names);
	m->names = names;
	m->names_cap = cap;
}

const char *ast_intern(struct ast_module *m, const char *s, size_t n)
{
	if ((m->nnames + 1) * 2 > m->names_cap)
		intern_grow(m);
	size_t j = hash_bytes(s, n) & (m->names_cap - 1);
	while (m->names[j]) {
		const char *t = m->names[j];
		if (strlen(t) == n && !memcmp(t, s, n))
			return t;
		j = (j + 1) & (m->names_cap - 1);
	}
	m->names[j] = arena_strndup(&m->arena, s, n);
	m->nnames++;
	return m->names[j];
}

struct ast_expr *ast_expr_new(struct ast_module *m, enum ast_expr_kind kind,
			      struct srcloc loc)
{
	struct ast_expr *e = arena_alloc(&m->arena, sizeof(*e));
	e->kind = kind;
	e->loc = loc;
	e->local = -1;
	return e;
}

void ast_expr_set_items(struct ast_module *m, struct ast_expr *e,
			struct ast_expr **items, int n)
{
	e->nitems = n;
	e->items = arena_memdup(&m->arena, items, sizeof(*items) * (size_t)n);
}

bool ast_expr_is_literal(const struct ast_expr *e)
{
	return e->kind == AST_INT || e->kind == AST_FLOAT || e->kind == AST_STR || e->kind == AST_BOOL ||
	       e->kind == AST_NONE;
}

struct ast_expr *ast_expr_copy_node(struct ast_module *m, const struct ast_expr *e)
{
	struct ast_expr *r = arena_alloc(&m->arena, sizeof(*r));
	*r = *e; /* every field; a comparison's operators are shared */
	r->nitems = 0;
	r->items = NULL;
	if (e->nitems)
		ast_expr_set_items(m, r, e->items, e->nitems);
	return r;
}

struct ast_stmt *ast_stmt_new(struct ast_module *m, enum ast_stmt_kind kind,
			      struct srcloc loc)
{
	struct ast_stmt *s = arena_alloc(&m->arena, sizeof(*s));
	s->kind = kind;
	s->loc = loc;
	return s;
}

/* tab[k], or "?" for a k that is not one of its entries. */
#define NAME_IN(tab, k) ((unsigned)(k) < sizeof(tab) / sizeof(*(tab)) && (tab)[k] ? (tab)[k] : "?")

/* ORDER AST_EXPR_KIND */
static const char *const expr_kind_names[] = {
	"int", "float", "str", "bool", "none", "name", "list", "tuple",
	"unary", "binary", "and", "or", "compare", "cond", "call", "attr",
	"index", "undef", "comp", "comp_for",
};

const char *ast_expr_kind_name(enum ast_expr_kind k)
{
	return NAME_IN(expr_kind_names, k);
}

/* ORDER AST_STMT_KIND */
static const char *const stmt_kind_names[] = {
	"device", "setting", "constraint", "def", "assign", "augassign",
	"expr", "if", "while", "for", "break", "continue", "return", "yield",
	"pass", "import",
};

const char *ast_stmt_kind_name(enum ast_stmt_kind k)
{
	return NAME_IN(stmt_kind_names, k);
}

/* ORDER AST_OP */
static const char *const op_texts[] = {
	"+", "-", "*", "/", "//", "%", "**", "|", "&", "^", "<<", ">>",
	"-", "+", "not", "~",
	"<", "<=", ">", ">=", "==", "!=", "in", "not in",
};

const char *ast_op_text(enum ast_op op)
{
	return (unsigned)op < AST_OP__COUNT ? op_texts[op] : "?";
}

const char *ast_cclass_name(enum ast_cclass c)
{
	static const char *const names[] = { [AST_HARD] = "hard", [AST_SOFT] = "soft", [AST_CORRECT] = "correct" };
	return NAME_IN(names, c);
}

/* ORDER AST_TUNE_KIND */
static const char *const tune_kind_names[] = {
	"kernel", "options", "define", "define", "global", "local", "arg", "arg", "arg",
	"reference", "reference", "tolerance", "compare", "metric", "arg",
};

const char *ast_tune_kind_name(enum ast_tune_kind k)
{
	return NAME_IN(tune_kind_names, k);
}

const char *ast_access_name(enum ast_tune_access a)
{
	static const char *const names[] = {
		[AST_ACCESS_IN] = "in", [AST_ACCESS_OUT] = "out", [AST_ACCESS_INOUT] = "inout",
	};
	return NAME_IN(names, a);
}

struct srcloc srcloc_join(struct srcloc a, struct srcloc b)
{
	struct srcloc r = a;
	if (b.end_line > r.end_line ||
	    (b.end_line == r.end_line && b.end_col > r.end_col)) {
		r.end_line = b.end_line;
		r.end_col = b.end_col;
	}
	return r;
}

static void dump_str(const char *s, FILE *out)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void ast_dump_expr(const struct ast_expr *e, FILE *out)
{
	if (!e) {
		fputs("nil", out);
		return;
	}
	switch (e->kind) {
	case AST_INT:
		fprintf(out, "%" PRId64, e->ival);
		return;
	case AST_FLOAT:
		fprintf(out, "%.17g", e->fval);
		return;
	case AST_STR:
		dump_str(e->sval, out);
		return;
	case AST_BOOL:
		fputs(e->ival ? "True" : "False", out);
		return;
	case AST_NONE:
		fputs("None", out);
		return;
	case AST_UNDEF:
		fputs("<undef>", out);
		return;
	case AST_NAME:
		fputs(e->name, out);
		return;
	default:
		break;
	}
	fprintf(out, "(%s", ast_expr_kind_name(e->kind));
	if (e->kind == AST_UNARY || e->kind == AST_BINARY)
		fprintf(out, " %s", ast_op_text(e->op));
	if (e->kind == AST_ATTR)
		fprintf(out, " .%s", e->name);
	if (e->kind == AST_COMP && e->ival)
		fputs(" generator", out);
	for (int i = 0; i < e->nitems; i++) {
		fputc(' ', out);
		if (e->kind == AST_COMPARE && i > 0)
			fprintf(out, "%s ", ast_op_text(e->cmp[i - 1]));
		ast_dump_expr(e->items[i], out);
	}
	fputc(')', out);
}

static void dump_block(const struct ast_block *b, int depth, FILE *out);

static void dump_stmt(const struct ast_stmt *s, int depth, FILE *out)
{
	fprintf(out, "%*s%d: (%s", depth * 2, "", s->loc.line, ast_stmt_kind_name(s->kind));
	switch (s->kind) {
	case AST_S_CONSTRAINT:
		fprintf(out, " %s%s %s", s->require ? "require " : "",
			ast_cclass_name(s->cclass), s->name);
		break;
	case AST_S_DEF: {
		static const char *const decs[] = { "none", "iterator", "hard", "soft", "correct" };
		fprintf(out, " @%s %s(", decs[s->decorator], s->name);
		for (int i = 0; i < s->nparams; i++)
			fprintf(out, "%s%s", i ? " " : "", s->params[i].name);
		fputc(')', out);
		if (s->has_yield)
			fputs(" yield", out);
		break;
	}
	case AST_S_DEVICE:
	case AST_S_SETTING:
		fprintf(out, " %s", s->name);
		break;
	case AST_S_AUGASSIGN:
		fprintf(out, " %s=", ast_op_text(s->op));
		break;
	case AST_S_IMPORT:
		fprintf(out, " %s", s->name);
		for (int i = 0; i < s->nparams; i++)
			fprintf(out, " %s", s->params[i].name);
		break;
	default:
		break;
	}
	for (int i = 0; i < s->ntargets; i++) {
		fputc(' ', out);
		ast_dump_expr(s->targets[i], out);
	}
	if (s->value) {
		fputc(' ', out);
		ast_dump_expr(s->value, out);
	}
	fputs(")\n", out);
	if (s->body.n)
		dump_block(&s->body, depth + 1, out);
	if (s->orelse.n) {
		fprintf(out, "%*selse\n", depth * 2 + 2, "");
		dump_block(&s->orelse, depth + 1, out);
	}
}

static void dump_block(const struct ast_block *b, int depth, FILE *out)
{
	for (int i = 0; i < b->n; i++)
		dump_stmt(b->stmts[i], depth, out);
}

static void dump_words(const struct ast_tune_line *t, bool strings, FILE *out)
{
	for (int i = 0; i < t->nwords; i++) {
		fputc(' ', out);
		if (strings)
			dump_str(t->words[i].text, out);
		else
			fputs(t->words[i].text, out);
	}
}

static void dump_labelled(const char *label, const struct ast_expr *e, FILE *out)
{
	if (!e)
		return;
	fprintf(out, " %s ", label);
	ast_dump_expr(e, out);
}

/* One S-expression a line, like the statements: (kind words... exprs...). */
static void dump_tune(const struct ast_tune *tune, FILE *out)
{
	fprintf(out, "%d: (tune)\n", tune->loc.line);
	for (int i = 0; i < tune->n; i++) {
		const struct ast_tune_line *t = tune->lines[i];
		fprintf(out, "  %d: (%s", t->loc.line, ast_tune_kind_name(t->kind));
		switch (t->kind) {
		case AST_T_KERNEL:
			fprintf(out, " %s", t->name.text);
			for (int k = 1; k < t->nkernels; k++)
				fprintf(out, ", %s", t->kernels[k].text);
			fputs(" from", out);
			dump_words(t, true, out);
			break;
		case AST_T_DEFINE:
			fprintf(out, " %s =", t->name.text);
			break;
		case AST_T_DEFINE_NAMES:
		case AST_T_COMPARE:
			dump_words(t, false, out);
			break;
		case AST_T_ARG_SCALAR:
			fprintf(out, " scalar %s", t->type.text);
			break;
		case AST_T_ARG_BUFFER:
			fprintf(out, " %s %s %s", ast_access_name(t->access), t->type.text, t->name.text);
			break;
		case AST_T_ARG_LOCAL:
			fprintf(out, " local %s", t->type.text);
			break;
		case AST_T_ARG_USE:
			fprintf(out, " buffer %s", t->name.text);
			break;
		case AST_T_REF_KERNEL:
		case AST_T_REF_C:
			fprintf(out, " %s %s from", t->kind == AST_T_REF_C ? "c" : "kernel", t->name.text);
			dump_words(t, true, out);
			break;
		case AST_T_METRIC:
			fprintf(out, " %s", t->name.text);
			if (t->unit.text)
				fprintf(out, " %s", t->unit.text);
			break;
		default:
			break;
		}
		if (t->kind == AST_T_REF_KERNEL) {
			dump_labelled("global", t->global, out);
			dump_labelled("local", t->local, out);
			dump_labelled("options", t->value, out);
		} else {
			if (t->value) {
				fputc(' ', out);
				ast_dump_expr(t->value, out);
			}
			if (t->global || t->local) {
				fputc(' ', out);
				ast_dump_expr(t->global ? t->global : t->local, out);
			}
			dump_labelled("=", t->init, out);
			dump_labelled("rel", t->rel, out);
			dump_labelled("abs", t->abs, out);
		}
		fputs(")\n", out);
	}
}

void ast_dump(const struct ast_module *m, FILE *out)
{
	if (m->docstring) {
		fputs("doc ", out);
		dump_str(m->docstring, out);
		fputc('\n', out);
	}
	dump_block(&m->body, 0, out);
	if (m->tune)
		dump_tune(m->tune, out);
}
