/*
 * parser.y - the grammar of the .space language.
 *
 * Python's statement and expression grammar, cut down to what a search
 * space needs, plus four definition forms: `device`, `setting`, a
 * constraint (`hard|soft|correct NAME = EXPR`) and `require`.
 * Context rules (yield only in @iterator, device only at top level, ...)
 * belong to sema, so the grammar stays one statement language.
 *
 * The `tune:` section (docs/TUNING.md) is a block of its own lines; its
 * words are contextual keywords that parse_lex (lexer.l) makes only where
 * the section gives them a meaning.
 */
%code top {
/* bison's own initialiser of yylloc names only the four standard fields. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
}

%code requires {
#include "ast.h"
#include "lexer.h"
typedef void *yyscan_t;

/* An arena-allocated growable list used while parsing. */
struct plist {
	int n, cap;
	void **v;
};

/* A comparison chain (a < b <= c) before it becomes one AST_COMPARE. */
struct chain {
	struct plist exprs;
	int nops, capops;
	enum ast_op *ops;
};

struct parse_ctx {
	struct ast_module *mod;
	struct diag *diag;
	int nstmts;
};

#define YYLTYPE struct lex_loc
#define YYLTYPE_IS_DECLARED 1
#define YYLTYPE_IS_TRIVIAL 1
}

%code provides {
int parse_lex(YYSTYPE *lval, YYLTYPE *lloc, yyscan_t scanner);
}

%code {
#include "parse.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
	do {                                                                 \
		if (N) {                                                     \
			(Cur).first_line = YYRHSLOC(Rhs, 1).first_line;      \
			(Cur).first_column = YYRHSLOC(Rhs, 1).first_column;  \
			(Cur).begin = YYRHSLOC(Rhs, 1).begin;                \
			(Cur).last_line = YYRHSLOC(Rhs, N).last_line;        \
			(Cur).last_column = YYRHSLOC(Rhs, N).last_column;    \
			(Cur).end = YYRHSLOC(Rhs, N).end;                    \
		} else {                                                     \
			(Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line; \
			(Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
			(Cur).begin = (Cur).end = YYRHSLOC(Rhs, 0).end;      \
		}                                                            \
	} while (0)

#define yylex parse_lex
#define M (ctx->mod)

static struct srcloc L(YYLTYPE l)
{
	struct srcloc s = { l.first_line, l.first_column, l.last_line, l.last_column };
	return s;
}

static void yyerror(YYLTYPE *loc, yyscan_t scanner, struct parse_ctx *ctx, const char *msg)
{
	(void)scanner;
	diag_error(ctx->diag, L(*loc), "%s", msg);
}

static void plist_push(struct ast_module *m, struct plist *l, void *item)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 4;
		void **v = arena_alloc(&m->arena, sizeof(*v) * (size_t)cap);
		if (l->n)
			memcpy(v, l->v, sizeof(*v) * (size_t)l->n);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = item;
}

static struct plist *plist_new(struct ast_module *m)
{
	return arena_alloc(&m->arena, sizeof(struct plist));
}

static struct ast_block to_block(struct plist *l)
{
	struct ast_block b = { 0, NULL };
	if (l) {
		b.n = l->n;
		b.stmts = (struct ast_stmt **)l->v;
	}
	return b;
}

static struct ast_expr *mk(struct parse_ctx *ctx, enum ast_expr_kind k, YYLTYPE loc)
{
	return ast_expr_new(ctx->mod, k, L(loc));
}

static struct ast_expr *mk2(struct parse_ctx *ctx, enum ast_expr_kind k, enum ast_op op,
			    struct ast_expr *a, struct ast_expr *b, YYLTYPE loc)
{
	struct ast_expr *e = mk(ctx, k, loc);
	struct ast_expr *items[2] = { a, b };
	e->op = op;
	ast_expr_set_items(ctx->mod, e, items, b ? 2 : 1);
	return e;
}

/* and/or chains flatten into one n-ary node, as Python's BoolOp does. */
static struct ast_expr *mkbool(struct parse_ctx *ctx, enum ast_expr_kind k,
			       struct ast_expr *a, struct ast_expr *b, YYLTYPE loc)
{
	if (a->kind != k)
		return mk2(ctx, k, 0, a, b, loc);
	/* The items array holds the next power of two (mk2 made it exactly
	 * 2), so it doubles when full: copying it per operand made long
	 * chains quadratic in memory (100,000 'and's took 40 GB). */
	int n = a->nitems;
	if ((n & (n - 1)) == 0) {
		struct ast_expr **items = arena_alloc(&M->arena, sizeof(*items) * (size_t)n * 2);
		memcpy(items, a->items, sizeof(*items) * (size_t)n);
		a->items = items;
	}
	a->items[a->nitems++] = b;
	a->loc = L(loc);
	return a;
}

static struct ast_expr *from_list(struct parse_ctx *ctx, enum ast_expr_kind k,
				  struct plist *l, YYLTYPE loc)
{
	struct ast_expr *e = mk(ctx, k, loc);
	if (l)
		ast_expr_set_items(ctx->mod, e, (struct ast_expr **)l->v, l->n);
	return e;
}

static struct ast_stmt *mks(struct parse_ctx *ctx, enum ast_stmt_kind k, YYLTYPE loc)
{
	struct ast_stmt *s = ast_stmt_new(ctx->mod, k, L(loc));
	/* Every definition becomes C that a compiler must take in one unit:
	 * 100,000 constants took tcc 30 s and cc minutes. */
	if (++ctx->nstmts == PARSE_MAX_STATEMENTS + 1)
		diag_error(ctx->diag, L(loc), "too many statements (more than %d)", PARSE_MAX_STATEMENTS);
	s->src_begin = loc.begin;
	s->src_end = loc.end;
	return s;
}

static bool valid_target(const struct ast_expr *e, bool allow_tuple)
{
	if (e->kind == AST_NAME || e->kind == AST_INDEX)
		return true;
	if (e->kind == AST_TUPLE && allow_tuple) {
		for (int i = 0; i < e->nitems; i++)
			if (!valid_target(e->items[i], false))
				return false;
		return e->nitems > 0;
	}
	return false;
}

static void check_target(struct parse_ctx *ctx, struct ast_expr *e, bool allow_tuple)
{
	if (!valid_target(e, allow_tuple))
		diag_error(ctx->diag, e->loc, "cannot assign to %s",
			   e->kind == AST_CALL ? "a function call" :
			   e->kind == AST_TUPLE ? "this tuple" : "an expression");
}

/*
 * Expression depth is bounded here, once, so that every later recursive
 * pass (sema, interpreter, code generator) is safe from stack overflow.
 */
static int expr_depth(const struct ast_expr *e, int limit)
{
	if (!e || limit <= 0)
		return 0;
	int best = 0;
	for (int i = 0; i < e->nitems; i++) {
		int d = expr_depth(e->items[i], limit - 1);
		if (d > best)
			best = d;
	}
	return best + 1;
}

/* The nodes of `e`, counted up to `limit` (its depth is bounded already). */
static int expr_size(const struct ast_expr *e, int limit)
{
	if (!e)
		return 0;
	int n = 1;
	for (int i = 0; i < e->nitems && n <= limit; i++)
		n += expr_size(e->items[i], limit - n);
	return n;
}

static struct ast_expr *checked(struct parse_ctx *ctx, struct ast_expr *e)
{
	if (e && expr_depth(e, PARSE_MAX_EXPR_DEPTH + 1) > PARSE_MAX_EXPR_DEPTH) {
		diag_error(ctx->diag, e->loc, "expression nested too deeply (more than %d levels)",
			   PARSE_MAX_EXPR_DEPTH);
		struct ast_expr *z = ast_expr_new(M, AST_INT, e->loc);
		return z;
	}
	/* Bounds what one definition costs every later pass and the C
	 * compilers (a 300,000-item list overflowed tcc's stack). */
	if (e && expr_size(e, PARSE_MAX_EXPR_NODES) > PARSE_MAX_EXPR_NODES) {
		diag_error(ctx->diag, e->loc, "expression too large (more than %d operands)",
			   PARSE_MAX_EXPR_NODES);
		return ast_expr_new(M, AST_INT, e->loc);
	}
	return e;
}

static void mark_yield(struct ast_stmt *s, bool *found);

/* Records the lines of a statement that a syntax error dropped. */
static void dropped(struct parse_ctx *ctx, YYLTYPE loc)
{
	int n = M->nerror_lines;
	int *v = arena_alloc(&M->arena, sizeof(int) * (size_t)(n + 2));
	if (n)
		memcpy(v, M->error_lines, sizeof(int) * (size_t)n);
	v[n] = loc.first_line;
	v[n + 1] = loc.last_line;
	M->error_lines = v;
	M->nerror_lines = n + 2;
}

static struct ast_tune_line *mkt(struct parse_ctx *ctx, enum ast_tune_kind k, YYLTYPE loc)
{
	struct ast_tune_line *t = arena_alloc(&M->arena, sizeof(*t));
	t->kind = k;
	t->loc = L(loc);
	return t;
}

static struct ast_word word(const char *text, YYLTYPE loc)
{
	struct ast_word w = { text, L(loc) };
	return w;
}

static struct ast_word *word_new(struct parse_ctx *ctx, const char *text, YYLTYPE loc)
{
	struct ast_word *w = arena_alloc(&M->arena, sizeof(*w));
	*w = word(text, loc);
	return w;
}

/* A list of struct ast_word pointers becomes the line's word array. */
static void set_words(struct parse_ctx *ctx, struct ast_tune_line *t, struct plist *l)
{
	t->nwords = l->n;
	t->words = arena_alloc(&M->arena, sizeof(*t->words) * (size_t)(l->n ? l->n : 1));
	for (int i = 0; i < l->n; i++)
		t->words[i] = *(struct ast_word *)l->v[i];
}

static void misplaced_tune(struct parse_ctx *ctx, const struct ast_tune *t)
{
	diag_error(ctx->diag, t->loc, "a 'tune:' section is only allowed at top level");
}

/* A reference kernel's launch clause may be given once each. */
static void once(struct parse_ctx *ctx, bool twice, YYLTYPE loc, const char *what)
{
	if (twice)
		diag_error(ctx->diag, L(loc), "'%s' is given twice in this reference line", what);
}

static void mark_yield_block(struct ast_block *b, bool *found)
{
	for (int i = 0; i < b->n; i++)
		mark_yield(b->stmts[i], found);
}

static void mark_yield(struct ast_stmt *s, bool *found)
{
	if (s->kind == AST_S_YIELD)
		*found = true;
	/* A nested def has a scope of its own. */
	if (s->kind == AST_S_DEF)
		return;
	mark_yield_block(&s->body, found);
	mark_yield_block(&s->orelse, found);
}
}

%define api.pure full
%define api.token.prefix {TOK_}
%define parse.error custom
%define parse.lac full
%locations
%initial-action { @$.first_line = @$.last_line = 1; @$.first_column = @$.last_column = 1; @$.begin = @$.end = 0; }
%expect 0
%param {yyscan_t scanner}
%parse-param {struct parse_ctx *ctx}

%union {
	int64_t ival;
	double fval;
	const char *name;
	enum ast_op op;
	struct ast_expr *expr;
	struct ast_stmt *stmt;
	struct plist *list;
	struct chain *chain;
	int num;
	struct ast_tune_line *tline;
	struct ast_tune *tune;
}

%token <name> NAME "name" STRING "string"
%token <ival> INT "integer"
%token <fval> FLOAT "float"
%token <op> AUGASSIGN "augmented assignment"
%token NEWLINE "end of line" INDENT "indent" DEDENT "dedent"
%token AND "'and'" OR "'or'" NOT "'not'" IN "'in'" IF "'if'" ELIF "'elif'" ELSE "'else'"
%token WHILE "'while'" FOR "'for'" DEF "'def'" RETURN "'return'" YIELD "'yield'"
%token BREAK "'break'" CONTINUE "'continue'" PASS "'pass'" IMPORT "'import'"
%token TRUE "'True'" FALSE "'False'" NONE "'None'"
%token DEVICE "'device'" SETTING "'setting'" REQUIRE "'require'"
%token HARD "'hard'" SOFT "'soft'" CORRECT "'correct'"
%token POW "'**'" FLOORDIV "'//'" LSHIFT "'<<'" RSHIFT "'>>'"
%token LE "'<='" GE "'>='" EQ "'=='" NE "'!='"
/* The tune: section; contextual keywords made by parse_lex (lexer.l). */
%token TUNE "'tune'" KERNEL "'kernel'" OPTIONS "'options'" DEFINE "'define'"
%token GLOBAL "'global'" LOCAL "'local'" ARG "'arg'" REFERENCE "'reference'"
%token TOLERANCE "'tolerance'" COMPARE "'compare'" METRIC "'metric'" FROM "'from'"
%token OUT "'out'" INOUT "'inout'" C "'c'"

%type <stmt> simple_stmt compound_stmt if_stmt while_stmt for_stmt def_stmt elif_chain
%type <list> stmts block module args arglist list_items params param_list tuple_items else_block assign_chain target_items
%type <list> tune_lines tune_words comp_clauses
%type <expr> comp_for
%type <tune> tune_section
%type <tline> tune_line ref_launch tolerances
%type <expr> sizes
%type <num> access
%type <expr> expr testlist target_list or_test and_test not_test comparison bitor bitxor bitand shift arith term factor power primary atom
%type <chain> comp_chain
%type <op> comp_op
%type <num> cclass opt_cclass decorator

%start file

%%

file:
	module {
		struct ast_block b = to_block($1);
		/* A leading string statement is the module's docstring. */
		if (b.n && b.stmts[0]->kind == AST_S_EXPR && b.stmts[0]->value->kind == AST_STR) {
			M->docstring = b.stmts[0]->value->sval;
			b.n--;
			b.stmts++;
		}
		M->body = b;
	}
	;

module:
	%empty { $$ = plist_new(M); }
	| module simple_stmt NEWLINE { $$ = $1; if ($2) plist_push(M, $$, $2); }
	| module compound_stmt { $$ = $1; if ($2) plist_push(M, $$, $2); }
	| module error NEWLINE { $$ = $1; yyerrok; dropped(ctx, @2); if (ctx->diag->stopped) YYABORT; }
	| module INDENT stmts DEDENT {
		$$ = $1;
		diag_error(ctx->diag, L(@2), "unexpected indent");
		for (int i = 0; i < $3->n; i++)
			plist_push(M, $$, $3->v[i]);
	}
	| module tune_section {
		$$ = $1;
		if (M->tune) {
			diag_error(ctx->diag, $2->loc, "a file has one 'tune:' section");
			diag_note(ctx->diag, M->tune->loc, "the first 'tune:' section is here");
		} else {
			M->tune = $2;
		}
	}
	;

/* The tune: section (docs/TUNING.md), one line per item. */
tune_section:
	TUNE ':' NEWLINE INDENT tune_lines DEDENT {
		$$ = arena_alloc(&M->arena, sizeof(*$$));
		$$->loc = L(@1);
		$$->n = $5->n;
		$$->lines = (struct ast_tune_line **)$5->v;
	}
	;

tune_lines:
	tune_line NEWLINE { $$ = plist_new(M); if ($1) plist_push(M, $$, $1); }
	| error NEWLINE { $$ = plist_new(M); yyerrok; if (ctx->diag->stopped) YYABORT; }
	| tune_lines tune_line NEWLINE { $$ = $1; if ($2) plist_push(M, $$, $2); }
	| tune_lines error NEWLINE { $$ = $1; yyerrok; if (ctx->diag->stopped) YYABORT; }
	| tune_lines INDENT tune_lines DEDENT {
		$$ = $1;
		diag_error(ctx->diag, L(@2), "unexpected indent");
		for (int i = 0; i < $3->n; i++)
			plist_push(M, $$, $3->v[i]);
	}
	;

tune_line:
	KERNEL param_list FROM tune_words {
		/* several names: a sequence of kernels (docs/TUNING.md, Several kernels) */
		$$ = mkt(ctx, AST_T_KERNEL, @1);
		$$->nkernels = $2->n;
		$$->kernels = arena_alloc(&M->arena, sizeof(*$$->kernels) * (size_t)$2->n);
		for (int i = 0; i < $2->n; i++) {
			const struct ast_param *p = $2->v[i];
			$$->kernels[i].text = p->name;
			$$->kernels[i].loc = p->loc;
		}
		$$->name = $$->kernels[0];
		set_words(ctx, $$, $4);
	}
	| OPTIONS expr { $$ = mkt(ctx, AST_T_OPTIONS, @1); $$->value = checked(ctx, $2); }
	| DEFINE param_list {
		$$ = mkt(ctx, AST_T_DEFINE_NAMES, @1);
		$$->nwords = $2->n;
		$$->words = arena_alloc(&M->arena, sizeof(*$$->words) * (size_t)$2->n);
		for (int i = 0; i < $2->n; i++) {
			const struct ast_param *p = $2->v[i];
			$$->words[i].text = p->name;
			$$->words[i].loc = p->loc;
		}
	}
	| DEFINE NAME '=' expr {
		$$ = mkt(ctx, AST_T_DEFINE, @1);
		$$->name = word($2, @2);
		$$->value = checked(ctx, $4);
	}
	| GLOBAL sizes { $$ = mkt(ctx, AST_T_GLOBAL, @1); $$->global = $2; }
	| LOCAL sizes { $$ = mkt(ctx, AST_T_LOCAL, @1); $$->local = $2; }
	| ARG NAME {
		/* a buffer declared on an earlier kernel's line, passed again:
		 * the dependency of a multi-kernel code (docs/TUNING.md) */
		$$ = mkt(ctx, AST_T_ARG_USE, @1);
		$$->name = word($2, @2);
	}
	| ARG NAME expr {
		$$ = mkt(ctx, AST_T_ARG_SCALAR, @1);
		$$->type = word($2, @2);
		$$->value = checked(ctx, $3);
	}
	| ARG access NAME NAME '[' expr ']' {
		$$ = mkt(ctx, AST_T_ARG_BUFFER, @1);
		$$->access = $2;
		$$->type = word($3, @3);
		$$->name = word($4, @4);
		$$->value = checked(ctx, $6);
	}
	| ARG access NAME NAME '[' expr ']' '=' expr {
		$$ = mkt(ctx, AST_T_ARG_BUFFER, @1);
		$$->access = $2;
		$$->type = word($3, @3);
		$$->name = word($4, @4);
		$$->value = checked(ctx, $6);
		$$->init = checked(ctx, $9);
	}
	| ARG LOCAL NAME '[' expr ']' {
		$$ = mkt(ctx, AST_T_ARG_LOCAL, @1);
		$$->type = word($3, @3);
		$$->value = checked(ctx, $5);
	}
	| REFERENCE KERNEL NAME FROM tune_words ref_launch {
		$$ = $6;
		$$->kind = AST_T_REF_KERNEL;
		$$->loc = L(@1);
		$$->name = word($3, @3);
		set_words(ctx, $$, $5);
	}
	| REFERENCE C NAME FROM tune_words {
		$$ = mkt(ctx, AST_T_REF_C, @1);
		$$->name = word($3, @3);
		set_words(ctx, $$, $5);
	}
	| TOLERANCE tolerances { $$ = $2; $$->loc = L(@1); }
	| COMPARE param_list {
		$$ = mkt(ctx, AST_T_COMPARE, @1);
		$$->nwords = $2->n;
		$$->words = arena_alloc(&M->arena, sizeof(*$$->words) * (size_t)$2->n);
		for (int i = 0; i < $2->n; i++) {
			const struct ast_param *p = $2->v[i];
			$$->words[i].text = p->name;
			$$->words[i].loc = p->loc;
		}
	}
	| METRIC NAME '=' expr {
		$$ = mkt(ctx, AST_T_METRIC, @1);
		$$->name = word($2, @2);
		$$->value = checked(ctx, $4);
	}
	| METRIC NAME '=' expr NAME {
		$$ = mkt(ctx, AST_T_METRIC, @1);
		$$->name = word($2, @2);
		$$->value = checked(ctx, $4);
		$$->unit = word($5, @5);
	}
	;

access:
	IN { $$ = AST_ACCESS_IN; }
	| OUT { $$ = AST_ACCESS_OUT; }
	| INOUT { $$ = AST_ACCESS_INOUT; }
	;

/* Source files: string literals, one or more. */
tune_words:
	STRING { $$ = plist_new(M); plist_push(M, $$, word_new(ctx, $1, @1)); }
	| tune_words ',' STRING { $$ = $1; plist_push(M, $$, word_new(ctx, $3, @3)); }
	;

sizes:
	'[' list_items ']' { $$ = from_list(ctx, AST_LIST, $2, @$); }
	| '[' list_items ',' ']' { $$ = from_list(ctx, AST_LIST, $2, @$); }
	;

ref_launch:
	%empty { $$ = mkt(ctx, AST_T_REF_KERNEL, @$); }
	| ref_launch GLOBAL sizes { $$ = $1; once(ctx, $$->global != NULL, @2, "global"); $$->global = $3; }
	| ref_launch LOCAL sizes { $$ = $1; once(ctx, $$->local != NULL, @2, "local"); $$->local = $3; }
	| ref_launch OPTIONS expr {
		$$ = $1;
		once(ctx, $$->value != NULL, @2, "options");
		$$->value = checked(ctx, $3);
	}
	;

/* rel E, abs E, in either order; the words are checked here. */
tolerances:
	NAME expr {
		$$ = mkt(ctx, AST_T_TOLERANCE, @1);
		if (!strcmp($1, "rel"))
			$$->rel = checked(ctx, $2);
		else if (!strcmp($1, "abs"))
			$$->abs = checked(ctx, $2);
		else
			diag_error(ctx->diag, L(@1), "unknown tolerance '%s'; write 'rel' or 'abs' before each bound", $1);
	}
	| tolerances NAME expr {
		$$ = $1;
		struct ast_expr **slot = !strcmp($2, "rel") ? &$$->rel : !strcmp($2, "abs") ? &$$->abs : NULL;
		if (!slot)
			diag_error(ctx->diag, L(@2), "unknown tolerance '%s'; write 'rel' or 'abs' before each bound", $2);
		else if (*slot)
			diag_error(ctx->diag, L(@2), "'%s' is given twice in this tolerance line", $2);
		else
			*slot = checked(ctx, $3);
	}
	;

stmts:
	simple_stmt NEWLINE { $$ = plist_new(M); if ($1) plist_push(M, $$, $1); }
	| compound_stmt { $$ = plist_new(M); if ($1) plist_push(M, $$, $1); }
	| error NEWLINE { $$ = plist_new(M); yyerrok; dropped(ctx, @1); if (ctx->diag->stopped) YYABORT; }
	| stmts simple_stmt NEWLINE { $$ = $1; if ($2) plist_push(M, $$, $2); }
	| stmts compound_stmt { $$ = $1; if ($2) plist_push(M, $$, $2); }
	| stmts error NEWLINE { $$ = $1; yyerrok; dropped(ctx, @2); if (ctx->diag->stopped) YYABORT; }
	| stmts INDENT stmts DEDENT {
		$$ = $1;
		diag_error(ctx->diag, L(@2), "unexpected indent");
		for (int i = 0; i < $3->n; i++)
			plist_push(M, $$, $3->v[i]);
	}
	| tune_section { $$ = plist_new(M); misplaced_tune(ctx, $1); }
	| stmts tune_section { $$ = $1; misplaced_tune(ctx, $2); }
	;

block:
	simple_stmt NEWLINE { $$ = plist_new(M); if ($1) plist_push(M, $$, $1); }
	| NEWLINE INDENT stmts DEDENT { $$ = $3; }
	;

cclass:
	HARD { $$ = AST_HARD; }
	| SOFT { $$ = AST_SOFT; }
	| CORRECT { $$ = AST_CORRECT; }
	;

opt_cclass:
	%empty { $$ = AST_CORRECT; }
	| cclass { $$ = $1; }
	;

simple_stmt:
	DEVICE NAME '=' expr {
		$$ = mks(ctx, AST_S_DEVICE, @$);
		$$->name = $2; $$->name_loc = L(@2); $$->value = checked(ctx, $4);
	}
	| SETTING NAME '=' expr {
		$$ = mks(ctx, AST_S_SETTING, @$);
		$$->name = $2; $$->name_loc = L(@2); $$->value = checked(ctx, $4);
	}
	| cclass NAME '=' expr {
		$$ = mks(ctx, AST_S_CONSTRAINT, @$);
		$$->cclass = $1; $$->name = $2; $$->name_loc = L(@2); $$->value = checked(ctx, $4);
	}
	| REQUIRE opt_cclass NAME '=' expr {
		$$ = mks(ctx, AST_S_CONSTRAINT, @$);
		$$->require = true; $$->cclass = $2; $$->name = $3; $$->name_loc = L(@3);
		$$->value = checked(ctx, $5);
	}
	| REQUIRE opt_cclass expr {
		$$ = mks(ctx, AST_S_CONSTRAINT, @$);
		$$->require = true; $$->unnamed = true; $$->cclass = $2;
		char buf[32];
		snprintf(buf, sizeof(buf), "line_%d", @1.first_line);
		$$->name = ast_intern(M, buf, strlen(buf));
		$$->name_loc = L(@1);
		$$->value = checked(ctx, $3);
	}
	| assign_chain {
		/* The list holds targets then the value, in source order. */
		$$ = mks(ctx, AST_S_ASSIGN, @$);
		$$->ntargets = $1->n - 1;
		$$->targets = (struct ast_expr **)$1->v;
		$$->value = $1->v[$1->n - 1];
		for (int i = 0; i < $$->ntargets; i++)
			check_target(ctx, $$->targets[i], true);
		if ($$->ntargets == 1 && $$->targets[0]->kind == AST_NAME)
			$$->name = $$->targets[0]->name, $$->name_loc = $$->targets[0]->loc;
	}
	| testlist AUGASSIGN testlist {
		$$ = mks(ctx, AST_S_AUGASSIGN, @$);
		$$->op = $2;
		$$->ntargets = 1;
		$$->targets = arena_alloc(&M->arena, sizeof(*$$->targets));
		$$->targets[0] = $1;
		$$->value = checked(ctx, $3);
		check_target(ctx, $1, false);
		if ($1->kind == AST_NAME)
			$$->name = $1->name, $$->name_loc = $1->loc;
	}
	| testlist { $$ = mks(ctx, AST_S_EXPR, @$); $$->value = checked(ctx, $1); }
	| IMPORT NAME { $$ = mks(ctx, AST_S_IMPORT, @$); $$->name = $2; $$->name_loc = L(@2); }
	| IMPORT NAME NAME NAME {
		$$ = mks(ctx, AST_S_IMPORT, @$); $$->name = $2; $$->name_loc = L(@2);
		if (!strcmp($3, "as"))
			diag_error(ctx->diag, L(@3), "'import %s as %s' is not supported; write 'import %s' "
				   "and use '%s.NAME'", $2, $4, $2, $2);
		else
			diag_error(ctx->diag, L(@3), "syntax error, unexpected name after 'import %s'", $2);
	}
	| FROM NAME IMPORT param_list {
		$$ = mks(ctx, AST_S_IMPORT, @$);
		$$->name = $2;
		$$->name_loc = L(@2);
		$$->nparams = $4->n;
		$$->params = arena_alloc(&M->arena, sizeof(struct ast_param) * (size_t)$4->n);
		for (int i = 0; i < $4->n; i++)
			$$->params[i] = *(struct ast_param *)$4->v[i];
	}
	| FROM NAME IMPORT '*' {
		$$ = mks(ctx, AST_S_IMPORT, @$); $$->name = $2; $$->name_loc = L(@2);
		diag_error(ctx->diag, L(@4), "'from %s import *' is not supported; name what you use "
			   "('from %s import log2, ceil') or write 'import %s'", $2, $2, $2);
	}
	| BREAK { $$ = mks(ctx, AST_S_BREAK, @$); }
	| CONTINUE { $$ = mks(ctx, AST_S_CONTINUE, @$); }
	| PASS { $$ = mks(ctx, AST_S_PASS, @$); }
	| RETURN { $$ = mks(ctx, AST_S_RETURN, @$); }
	| RETURN testlist { $$ = mks(ctx, AST_S_RETURN, @$); $$->value = checked(ctx, $2); }
	| YIELD expr { $$ = mks(ctx, AST_S_YIELD, @$); $$->value = checked(ctx, $2); }
	;

assign_chain:
	testlist '=' testlist { $$ = plist_new(M); plist_push(M, $$, $1); plist_push(M, $$, checked(ctx, $3)); }
	| assign_chain '=' testlist { $$ = $1; plist_push(M, $$, checked(ctx, $3)); }
	;

compound_stmt:
	if_stmt
	| while_stmt
	| for_stmt
	| def_stmt
	;

if_stmt:
	IF expr ':' block elif_chain {
		$$ = mks(ctx, AST_S_IF, @$);
		$$->value = checked(ctx, $2);
		$$->body = to_block($4);
		if ($5) {
			if ($5->kind == AST_S_PASS && $5->body.n) { /* plain else */
				$$->orelse = $5->body;
			} else {
				$$->orelse.n = 1;
				$$->orelse.stmts = arena_alloc(&M->arena, sizeof(struct ast_stmt *));
				$$->orelse.stmts[0] = $5;
			}
		}
	}
	;

/* elif becomes a nested if; a plain else is a PASS node carrying the block. */
elif_chain:
	%empty { $$ = NULL; }
	| ELIF expr ':' block elif_chain {
		$$ = mks(ctx, AST_S_IF, @$);
		$$->value = checked(ctx, $2);
		$$->body = to_block($4);
		if ($5) {
			if ($5->kind == AST_S_PASS && $5->body.n) {
				$$->orelse = $5->body;
			} else {
				$$->orelse.n = 1;
				$$->orelse.stmts = arena_alloc(&M->arena, sizeof(struct ast_stmt *));
				$$->orelse.stmts[0] = $5;
			}
		}
	}
	| ELSE ':' block { $$ = mks(ctx, AST_S_PASS, @$); $$->body = to_block($3); }
	;

else_block:
	%empty { $$ = NULL; }
	| ELSE ':' block { $$ = $3; }
	;

while_stmt:
	WHILE expr ':' block else_block {
		$$ = mks(ctx, AST_S_WHILE, @$);
		$$->value = checked(ctx, $2);
		$$->body = to_block($4);
		$$->orelse = to_block($5);
	}
	;

for_stmt:
	FOR target_list IN testlist ':' block else_block {
		$$ = mks(ctx, AST_S_FOR, @$);
		check_target(ctx, $2, true);
		$$->ntargets = 1;
		$$->targets = arena_alloc(&M->arena, sizeof(*$$->targets));
		$$->targets[0] = $2;
		$$->value = checked(ctx, $4);
		$$->body = to_block($6);
		$$->orelse = to_block($7);
	}
	;

decorator:
	NAME {
		if (!strcmp($1, "iterator")) {
			$$ = AST_DEC_ITERATOR;
		} else {
			diag_error(ctx->diag, L(@1), "unknown decorator '@%s'", $1);
			diag_note(ctx->diag, L(@1), "the decorators are '@iterator', '@hard', '@soft' and '@correct'");
			$$ = AST_DEC_NONE;
		}
	}
	| HARD { $$ = AST_DEC_HARD; }
	| SOFT { $$ = AST_DEC_SOFT; }
	| CORRECT { $$ = AST_DEC_CORRECT; }
	;

def_stmt:
	'@' decorator NEWLINE DEF NAME '(' params ')' ':' block {
		$$ = mks(ctx, AST_S_DEF, @$);
		$$->decorator = $2;
		$$->decorator_loc = L(@2);
		$$->name = $5;
		$$->name_loc = L(@5);
		$$->loc = L(@4);
		if ($7) {
			$$->nparams = $7->n;
			$$->params = arena_alloc(&M->arena, sizeof(struct ast_param) * (size_t)($7->n ? $7->n : 1));
			for (int i = 0; i < $7->n; i++)
				$$->params[i] = *(struct ast_param *)$7->v[i];
		}
		$$->body = to_block($10);
		bool y = false;
		mark_yield_block(&$$->body, &y);
		$$->has_yield = y;
	}
	| DEF NAME '(' params ')' ':' block {
		$$ = mks(ctx, AST_S_DEF, @$);
		$$->decorator = AST_DEC_NONE;
		$$->name = $2;
		$$->name_loc = L(@2);
		if ($4) {
			$$->nparams = $4->n;
			$$->params = arena_alloc(&M->arena, sizeof(struct ast_param) * (size_t)($4->n ? $4->n : 1));
			for (int i = 0; i < $4->n; i++)
				$$->params[i] = *(struct ast_param *)$4->v[i];
		}
		$$->body = to_block($7);
		bool y = false;
		mark_yield_block(&$$->body, &y);
		$$->has_yield = y;
		diag_error(ctx->diag, L(@1), "'def %s' needs a decorator", $2);
		diag_note(ctx->diag, L(@1), "write '@iterator' for an iterator, or '@hard', '@soft' or '@correct' for a constraint");
	}
	;

params:
	%empty { $$ = NULL; }
	| param_list { $$ = $1; }
	| param_list ',' { $$ = $1; }
	;

param_list:
	NAME {
		$$ = plist_new(M);
		struct ast_param *p = arena_alloc(&M->arena, sizeof(*p));
		p->name = $1; p->loc = L(@1);
		plist_push(M, $$, p);
	}
	| param_list ',' NAME {
		$$ = $1;
		struct ast_param *p = arena_alloc(&M->arena, sizeof(*p));
		p->name = $3; p->loc = L(@3);
		plist_push(M, $$, p);
	}
	;

/* A for loop's target: names or subscripts, never a comparison (the 'in'). */
target_list:
	primary { $$ = $1; }
	| primary ',' { struct plist *l = plist_new(M); plist_push(M, l, $1); $$ = from_list(ctx, AST_TUPLE, l, @$); }
	| target_items { $$ = from_list(ctx, AST_TUPLE, $1, @$); }
	| target_items ',' { $$ = from_list(ctx, AST_TUPLE, $1, @$); }
	;

target_items:
	primary ',' primary { $$ = plist_new(M); plist_push(M, $$, $1); plist_push(M, $$, $3); }
	| target_items ',' primary { $$ = $1; plist_push(M, $$, $3); }
	;

/* Expressions, in Python's precedence order. */

testlist:
	expr { $$ = $1; }
	| expr ',' { struct plist *l = plist_new(M); plist_push(M, l, $1); $$ = from_list(ctx, AST_TUPLE, l, @$); }
	| tuple_items { $$ = from_list(ctx, AST_TUPLE, $1, @$); }
	| tuple_items ',' { $$ = from_list(ctx, AST_TUPLE, $1, @$); }
	;

tuple_items:
	expr ',' expr { $$ = plist_new(M); plist_push(M, $$, $1); plist_push(M, $$, $3); }
	| tuple_items ',' expr { $$ = $1; plist_push(M, $$, $3); }
	;

expr:
	or_test { $$ = $1; }
	| or_test IF or_test ELSE expr {
		$$ = mk(ctx, AST_COND, @$);
		struct ast_expr *items[3] = { $3, $1, $5 };
		ast_expr_set_items(M, $$, items, 3);
	}
	;

or_test:
	and_test
	| or_test OR and_test { $$ = mkbool(ctx, AST_OR, $1, $3, @$); }
	;

and_test:
	not_test
	| and_test AND not_test { $$ = mkbool(ctx, AST_AND, $1, $3, @$); }
	;

not_test:
	comparison
	| NOT not_test { $$ = mk2(ctx, AST_UNARY, AST_OP_NOT, $2, NULL, @$); }
	;

comparison:
	bitor
	| comp_chain {
		$$ = from_list(ctx, AST_COMPARE, &$1->exprs, @$);
		$$->cmp = $1->ops;
	}
	;

comp_chain:
	bitor comp_op bitor {
		$$ = arena_alloc(&M->arena, sizeof(*$$));
		plist_push(M, &$$->exprs, $1);
		plist_push(M, &$$->exprs, $3);
		$$->capops = 4;
		$$->ops = arena_alloc(&M->arena, sizeof(enum ast_op) * 4);
		$$->ops[$$->nops++] = $2;
	}
	| comp_chain comp_op bitor {
		$$ = $1;
		plist_push(M, &$$->exprs, $3);
		if ($$->nops == $$->capops) {
			enum ast_op *ops = arena_alloc(&M->arena, sizeof(enum ast_op) * (size_t)$$->capops * 2);
			memcpy(ops, $$->ops, sizeof(enum ast_op) * (size_t)$$->nops);
			$$->ops = ops;
			$$->capops *= 2;
		}
		$$->ops[$$->nops++] = $2;
	}
	;

comp_op:
	'<' { $$ = AST_OP_LT; }
	| '>' { $$ = AST_OP_GT; }
	| LE { $$ = AST_OP_LE; }
	| GE { $$ = AST_OP_GE; }
	| EQ { $$ = AST_OP_EQ; }
	| NE { $$ = AST_OP_NE; }
	| IN { $$ = AST_OP_IN; }
	| NOT IN { $$ = AST_OP_NOT_IN; }
	;

bitor:
	bitxor
	| bitor '|' bitxor { $$ = mk2(ctx, AST_BINARY, AST_OP_BITOR, $1, $3, @$); }
	;

bitxor:
	bitand
	| bitxor '^' bitand { $$ = mk2(ctx, AST_BINARY, AST_OP_BITXOR, $1, $3, @$); }
	;

bitand:
	shift
	| bitand '&' shift { $$ = mk2(ctx, AST_BINARY, AST_OP_BITAND, $1, $3, @$); }
	;

shift:
	arith
	| shift LSHIFT arith { $$ = mk2(ctx, AST_BINARY, AST_OP_LSHIFT, $1, $3, @$); }
	| shift RSHIFT arith { $$ = mk2(ctx, AST_BINARY, AST_OP_RSHIFT, $1, $3, @$); }
	;

arith:
	term
	| arith '+' term { $$ = mk2(ctx, AST_BINARY, AST_OP_ADD, $1, $3, @$); }
	| arith '-' term { $$ = mk2(ctx, AST_BINARY, AST_OP_SUB, $1, $3, @$); }
	;

term:
	factor
	| term '*' factor { $$ = mk2(ctx, AST_BINARY, AST_OP_MUL, $1, $3, @$); }
	| term '/' factor { $$ = mk2(ctx, AST_BINARY, AST_OP_DIV, $1, $3, @$); }
	| term FLOORDIV factor { $$ = mk2(ctx, AST_BINARY, AST_OP_FLOORDIV, $1, $3, @$); }
	| term '%' factor { $$ = mk2(ctx, AST_BINARY, AST_OP_MOD, $1, $3, @$); }
	;

factor:
	power
	| '-' factor { $$ = mk2(ctx, AST_UNARY, AST_OP_NEG, $2, NULL, @$); }
	| '+' factor { $$ = mk2(ctx, AST_UNARY, AST_OP_POS, $2, NULL, @$); }
	| '~' factor { $$ = mk2(ctx, AST_UNARY, AST_OP_INVERT, $2, NULL, @$); }
	;

/* ** binds tighter than a unary minus on its left, looser on its right. */
power:
	primary
	| primary POW factor { $$ = mk2(ctx, AST_BINARY, AST_OP_POW, $1, $3, @$); }
	;

primary:
	atom
	| primary '(' args ')' {
		$$ = mk(ctx, AST_CALL, @$);
		int n = $3 ? $3->n : 0;
		struct ast_expr **items = arena_alloc(&M->arena, sizeof(*items) * (size_t)(n + 1));
		items[0] = $1;
		for (int i = 0; i < n; i++)
			items[i + 1] = $3->v[i];
		$$->items = items;
		$$->nitems = n + 1;
	}
	| primary '(' expr comp_clauses ')' {
		/* f(x for x in s): the one argument is a generator. */
		$$ = mk(ctx, AST_CALL, @$);
		struct ast_expr *gen = mk(ctx, AST_COMP, @3);
		gen->loc = srcloc_join(L(@3), L(@4));
		gen->ival = 1;
		plist_push(M, $4, NULL);
		memmove($4->v + 1, $4->v, sizeof(void *) * (size_t)($4->n - 1));
		$4->v[0] = $3;
		ast_expr_set_items(M, gen, (struct ast_expr **)$4->v, $4->n);
		struct ast_expr *items[2] = { $1, gen };
		ast_expr_set_items(M, $$, items, 2);
	}
	| primary '[' expr ']' { $$ = mk2(ctx, AST_INDEX, 0, $1, $3, @$); }
	| primary '.' NAME { $$ = mk2(ctx, AST_ATTR, 0, $1, NULL, @$); $$->name = $3; }
	;

args:
	%empty { $$ = NULL; }
	| arglist { $$ = $1; }
	| arglist ',' { $$ = $1; }
	;

arglist:
	expr { $$ = plist_new(M); plist_push(M, $$, $1); }
	| arglist ',' expr { $$ = $1; plist_push(M, $$, $3); }
	;

atom:
	NAME { $$ = mk(ctx, AST_NAME, @$); $$->name = $1; }
	| INT { $$ = mk(ctx, AST_INT, @$); $$->ival = $1; }
	| FLOAT { $$ = mk(ctx, AST_FLOAT, @$); $$->fval = $1; }
	| STRING { $$ = mk(ctx, AST_STR, @$); $$->sval = $1; }
	| atom STRING {
		/* Adjacent string literals concatenate, as in Python. */
		if ($1->kind != AST_STR) {
			diag_error(ctx->diag, L(@2), "unexpected string after an expression");
			$$ = $1;
		} else {
			char *s = arena_printf(&M->arena, "%s%s", $1->sval, $2);
			$$ = mk(ctx, AST_STR, @$);
			$$->sval = ast_intern(M, s, strlen(s));
		}
	}
	| TRUE { $$ = mk(ctx, AST_BOOL, @$); $$->ival = 1; }
	| FALSE { $$ = mk(ctx, AST_BOOL, @$); $$->ival = 0; }
	| NONE { $$ = mk(ctx, AST_NONE, @$); }
	| '(' testlist ')' { $$ = $2; $$->loc = L(@$); }
	| '[' ']' { $$ = mk(ctx, AST_LIST, @$); }
	| '[' list_items ']' { $$ = from_list(ctx, AST_LIST, $2, @$); }
	| '[' list_items ',' ']' { $$ = from_list(ctx, AST_LIST, $2, @$); }
	| '[' expr comp_clauses ']' {
		plist_push(M, $3, NULL);
		memmove($3->v + 1, $3->v, sizeof(void *) * (size_t)($3->n - 1));
		$3->v[0] = $2;
		$$ = from_list(ctx, AST_COMP, $3, @$);
	}
	| '(' expr comp_clauses ')' {
		plist_push(M, $3, NULL);
		memmove($3->v + 1, $3->v, sizeof(void *) * (size_t)($3->n - 1));
		$3->v[0] = $2;
		$$ = from_list(ctx, AST_COMP, $3, @$);
		$$->ival = 1;
	}
	;

/* A comprehension's clauses: each `for` with the `if`s that follow it. */
comp_clauses:
	comp_for { $$ = plist_new(M); plist_push(M, $$, $1); }
	| comp_clauses comp_for { $$ = $1; plist_push(M, $$, $2); }
	;

comp_for:
	FOR target_list IN or_test {
		check_target(ctx, $2, true);
		$$ = mk2(ctx, AST_COMP_FOR, 0, $2, $4, @$);
	}
	| comp_for IF or_test {
		$$ = $1;
		struct ast_expr **items = arena_alloc(&M->arena, sizeof(*items) * (size_t)($1->nitems + 1));
		memcpy(items, $1->items, sizeof(*items) * (size_t)$1->nitems);
		items[$1->nitems] = $3;
		$$->items = items;
		$$->nitems++;
		$$->loc = L(@$);
	}
	;

list_items:
	expr { $$ = plist_new(M); plist_push(M, $$, $1); }
	| list_items ',' expr { $$ = $1; plist_push(M, $$, $3); }
	;

%%

/* Tokens that could continue an expression: listed as "an operator". */
static bool continues_expression(const char *name)
{
	static const char *const ops[] = {
		"'+'", "'-'", "'*'", "'/'", "'%'", "'|'", "'&'", "'^'", "'<'", "'>'", "'.'",
		"'('", "'['", "'**'", "'//'", "'<<'", "'>>'", "'<='", "'>='", "'=='", "'!='",
		"'and'", "'or'", "'not'", "'in'", "'if'", "string", NULL,
	};
	for (int i = 0; ops[i]; i++)
		if (!strcmp(ops[i], name))
			return true;
	return false;
}

/* Tokens that could start an expression: listed as "an expression". */
static bool starts_expression(const char *name)
{
	static const char *const toks[] = {
		"name", "integer", "float", "string", "'True'", "'False'", "'None'",
		"'('", "'['", "'-'", "'+'", "'~'", "'not'", NULL,
	};
	for (int i = 0; toks[i]; i++)
		if (!strcmp(toks[i], name))
			return true;
	return false;
}

/*
 * "syntax error, unexpected X, expected A, B or C": with LAC the expected
 * set is exact.  Operators that could extend the expression so far are
 * folded into "an operator", so the structural token that is missing (a
 * ':' after `while True`, a ')' after `range(1, 4`) stays visible.
 */
struct lex_state *spc_yyget_extra(yyscan_t scanner);

/* `requrie x > 1`: a line that starts with a misspelt definition keyword. */
static void keyword_hint(struct parse_ctx *ctx, yyscan_t scanner, yysymbol_kind_t got)
{
	static const char *const words[] = {
		"require", "device", "setting", "hard", "soft", "correct", "import", NULL,
	};
	const struct lex_state *st = spc_yyget_extra(scanner);
	if (st->line_ntok != 2 || !st->line_first_name || got == YYSYMBOL_YYEMPTY)
		return;
	const char *best = NULL;
	int best_d = 3;
	for (int i = 0; words[i]; i++) {
		int d = diag_edit_distance(st->line_first_name, words[i]);
		if (d > 0 && d < best_d) {
			best = words[i];
			best_d = d;
		}
	}
	if (best)
		diag_note(ctx->diag, L(st->line_first_loc), "did you mean '%s'?", best);
}

static int yyreport_syntax_error(const yypcontext_t *pctx, yyscan_t scanner,
				 struct parse_ctx *ctx)
{
	enum { MAX_EXPECTED = 64 };
	yysymbol_kind_t expected[MAX_EXPECTED];
	int n = yypcontext_expected_tokens(pctx, expected, MAX_EXPECTED);
	yysymbol_kind_t got = yypcontext_token(pctx);
	const YYLTYPE *loc = yypcontext_location(pctx);
	const char *listed[MAX_EXPECTED + 1];
	int nlisted = 0;
	bool operators = false, expression = false;
	bool has_name = false, integer = false;
	bool access = false; /* after `arg`: 'in' is an access, not an operator */
	for (int i = 0; i < n; i++) {
		has_name |= !strcmp(yysymbol_name(expected[i]), "name");
		integer |= !strcmp(yysymbol_name(expected[i]), "integer");
		access |= expected[i] == YYSYMBOL_INOUT;
	}
	expression = has_name && integer;
	if (expression)
		listed[nlisted++] = "an expression";
	for (int i = 0; i < n; i++) {
		const char *name = yysymbol_name(expected[i]);
		if (expression && starts_expression(name))
			continue;
		if (access && !strcmp(name, "name"))
			listed[nlisted++] = "a type";
		else if (continues_expression(name) && !(access && expected[i] == YYSYMBOL_IN) && n > 1)
			operators = true;
		else
			listed[nlisted++] = name;
	}
	char msg[512];
	size_t len;
	struct srcloc at = { loc->first_line, loc->first_column, loc->last_line, loc->last_column };
	if (got == YYSYMBOL_TUNE) {
		diag_error(ctx->diag, at, "a 'tune:' section is only allowed at top level");
		return 0;
	}
	/* The start of a tune line: name the line kinds rather than tokens. */
	for (int i = 0; i < n; i++) {
		if (expected[i] != YYSYMBOL_METRIC)
			continue;
		diag_error(ctx->diag, at, "syntax error, unexpected %s, expected a tune line: 'kernel', "
			   "'options', 'define', 'global', 'local', 'arg', 'reference', 'tolerance', "
			   "'compare' or 'metric'",
			   got == YYSYMBOL_YYEMPTY ? "end of file" : yysymbol_name(got));
		return 0;
	}
	if (got == YYSYMBOL_INDENT)
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected indent");
	else if (got == YYSYMBOL_DEDENT)
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected unindent");
	else
		len = (size_t)snprintf(msg, sizeof(msg), "syntax error, unexpected %s",
				       got == YYSYMBOL_YYEMPTY ? "end of file" : yysymbol_name(got));
	int items = nlisted + operators;
	if (n > 0 && items <= 6 && len < sizeof(msg)) {
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, ", expected ");
		for (int i = 0; i < items && len < sizeof(msg); i++)
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s",
						i == 0 ? "" : i == items - 1 ? " or " : ", ",
						i < nlisted ? listed[i] : "an operator");
	}
	diag_error(ctx->diag, at, "%s", msg);
	keyword_hint(ctx, scanner, got);
	return 0;
}

/* Defined in lexer.l. */
int spc_yylex_init_extra(struct lex_state *st, yyscan_t *scanner);
int spc_yylex_destroy(yyscan_t scanner);
struct yy_buffer_state *spc_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);

int parse_source(struct ast_module *mod, struct diag *diag, const char *src, size_t len)
{
	struct lex_state st;
	memset(&st, 0, sizeof(st));
	st.mod = mod;
	st.diag = diag;
	st.src = src;
	st.src_len = len;
	st.line = 1;
	st.col = 1;
	st.nindents = 1;
	int errors_before = diag->errors;
	if (len > (size_t)INT32_MAX / 2) {
		struct srcloc none = { 0, 0, 0, 0 };
		diag_error(diag, none, "file too large");
		return diag->errors - errors_before;
	}
	yyscan_t scanner;
	if (spc_yylex_init_extra(&st, &scanner)) {
		struct srcloc none = { 0, 0, 0, 0 };
		diag_error(diag, none, "cannot start the scanner");
		return 1;
	}
	/* A UTF-8 byte order mark opens the file, as Python allows; the
	 * columns of line 1 start after it, as an editor shows them. */
	size_t bom = len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3) ? 3 : 0;
	st.offset = (int)bom;
	spc_yy_scan_bytes(src + bom, (int)(len - bom), scanner);
	lex_start(scanner);
	struct parse_ctx ctx = { mod, diag };
	int rc = yyparse(scanner, &ctx);
	if (rc == 2) {
		struct srcloc none = { 0, 0, 0, 0 };
		diag_error(diag, none, "out of memory while parsing (nesting too deep?)");
	}
	spc_yylex_destroy(scanner);
	free(st.strbuf);
	int errs = diag->errors - errors_before;
	if (rc != 0 && errs == 0)
		errs = 1;
	return errs;
}

char *parse_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	int err = 0;
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		if (got == 0) {
			err = ferror(f) ? (errno ? errno : EIO) : 0;
			break;
		}
		/* Text ends at a NUL byte, which the lexer reports where it
		 * is: reading on would take /dev/zero without end. */
		char *nul = memchr(buf + n, 0, got);
		if (nul) {
			n = (size_t)(nul - buf) + 1;
			break;
		}
		n += got;
		if (n > PARSE_MAX_INPUT_BYTES) {
			err = EFBIG;
			break;
		}
	}
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}
