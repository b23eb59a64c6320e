/*
 * ast.h - the syntax tree of a .space file.
 *
 * Every node lives in the arena of its `struct ast_module` and is released
 * with it.  Names are interned in that module (`ast_intern`), so two names
 * are equal exactly when their pointers are.
 *
 * The tree is purely syntactic: the parser fills it, and the semantic pass
 * (sema.h) annotates AST_NAME nodes with what they refer to, leaving the
 * shape alone.
 */
#ifndef SPACEC_AST_H
#define SPACEC_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"

/* ORDER AST_EXPR_KIND: keep ast_expr_kind_name in ast.c in step. */
enum ast_expr_kind {
	AST_INT,     /* ival */
	AST_FLOAT,   /* fval */
	AST_STR,     /* sval (interned) */
	AST_BOOL,    /* ival 0/1 */
	AST_NONE,
	AST_NAME,    /* name; sema sets ref */
	AST_LIST,    /* [items] */
	AST_TUPLE,   /* a, b (only as assignment target or value) */
	AST_UNARY,   /* op: AST_OP_NEG/POS/NOT/INVERT, items[0] */
	AST_BINARY,  /* op, items[0] op items[1] */
	AST_AND,     /* items[0] and items[1] and ... (short-circuit) */
	AST_OR,      /* items[0] or items[1] or ... */
	AST_COMPARE, /* items[0] cmp[0] items[1] cmp[1] items[2] ... */
	AST_COND,    /* items[1] if items[0] else items[2] */
	AST_CALL,    /* items[0](items[1..]) ; items[0] is NAME or ATTR */
	AST_ATTR,    /* items[0].name (method lookups: lst.append) */
	AST_INDEX,   /* items[0][items[1]] */
	AST_UNDEF,   /* synthesized by sema: a name with no value on this path */
	/*
	 * [items[0] for ...] (ival 0) or (items[0] for ...) (ival 1, a
	 * generator: any() and all() stop at the deciding element); items[1..]
	 * are its AST_COMP_FOR clauses, outermost first.
	 */
	AST_COMP,
	AST_COMP_FOR, /* for items[0] in items[1] if items[2] if items[3] ... */
};

/* ORDER AST_OP: keep ast_op_text in ast.c in step. */
enum ast_op {
	AST_OP_ADD, AST_OP_SUB, AST_OP_MUL, AST_OP_DIV, AST_OP_FLOORDIV,
	AST_OP_MOD, AST_OP_POW, AST_OP_BITOR, AST_OP_BITAND, AST_OP_BITXOR,
	AST_OP_LSHIFT, AST_OP_RSHIFT,
	/* unary */
	AST_OP_NEG, AST_OP_POS, AST_OP_NOT, AST_OP_INVERT,
	/* comparisons */
	AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE, AST_OP_EQ, AST_OP_NE,
	AST_OP_IN, AST_OP_NOT_IN,
	AST_OP__COUNT
};

struct sema_def;

struct ast_expr {
	enum ast_expr_kind kind;
	enum ast_op op;
	struct srcloc loc;
	int64_t ival;
	double fval;
	const char *sval; /* AST_STR */
	const char *name; /* AST_NAME, AST_ATTR */
	int nitems;
	struct ast_expr **items;
	enum ast_op *cmp; /* AST_COMPARE: nitems - 1 operators */
	/*
	 * Set by sema on AST_NAME: either a top-level definition (`ref`) or,
	 * inside a def body, a local slot (`local` >= 0, else -1).
	 */
	struct sema_def *ref;
	int local;
};

/* ORDER AST_STMT_KIND */
enum ast_stmt_kind {
	/* Top-level definitions. */
	AST_S_DEVICE,     /* device name = value */
	AST_S_SETTING,    /* setting name = value */
	AST_S_CONSTRAINT, /* hard|soft|correct name = value, or require */
	AST_S_DEF,        /* @decorator def name(params): body */
	/* Statements (top level and in def bodies). */
	AST_S_ASSIGN,     /* targets[0] = targets[1] = ... = value */
	AST_S_AUGASSIGN,  /* targets[0] op= value */
	AST_S_EXPR,       /* value (a call such as lst.append(x), or a docstring) */
	AST_S_IF,         /* if cond: body elif... else: orelse */
	AST_S_WHILE,      /* while cond: body else: orelse */
	AST_S_FOR,        /* for targets[0] in value: body else: orelse */
	AST_S_BREAK,
	AST_S_CONTINUE,
	AST_S_RETURN,     /* return [value] */
	AST_S_YIELD,      /* yield value */
	AST_S_PASS,
	AST_S_IMPORT,     /* import name | from name import params (nparams > 0) */
};

enum ast_cclass { AST_HARD, AST_SOFT, AST_CORRECT };

enum ast_decorator {
	AST_DEC_NONE,      /* a plain def: an error, reported by sema */
	AST_DEC_ITERATOR,
	AST_DEC_HARD,
	AST_DEC_SOFT,
	AST_DEC_CORRECT,
};

struct ast_block {
	int n;
	struct ast_stmt **stmts;
};

struct ast_param {
	const char *name;
	struct srcloc loc;
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct srcloc loc;      /* the whole statement's first line */
	struct srcloc name_loc; /* the defined name, where there is one */
	const char *name;       /* DEVICE, SETTING, CONSTRAINT, DEF */
	/* CONSTRAINT */
	enum ast_cclass cclass;
	bool require;    /* keep where true (Kernel Tuner polarity) */
	bool unnamed;    /* require without a name: name is "line_N" */
	/* DEF */
	enum ast_decorator decorator;
	struct srcloc decorator_loc;
	int nparams;
	struct ast_param *params;
	bool has_yield;  /* set by the parser for any yield in body */
	/* ASSIGN (ntargets >= 1), AUGASSIGN (op), FOR (ntargets == 1) */
	int ntargets;
	struct ast_expr **targets;
	enum ast_op op;
	/* The expression of DEVICE/SETTING/CONSTRAINT/ASSIGN/AUGASSIGN/EXPR/
	 * FOR (iterable)/RETURN (may be NULL)/YIELD; the condition of IF/WHILE. */
	struct ast_expr *value;
	struct ast_block body;
	struct ast_block orelse; /* an elif is one AST_S_IF inside orelse */
	/* Source text span (byte offsets) for quoting in generated code. */
	int src_begin, src_end;
};

/*
 * The `tune:` section (docs/TUNING.md): what spacetune needs to build, run
 * and check a kernel.  spacec's enumeration ignores it; sema checks it.
 */
/* ORDER AST_TUNE_KIND: keep tune_kind_names in ast.c in step. */
enum ast_tune_kind {
	AST_T_KERNEL,       /* kernel NAME(, NAME ...) from "a.cl", "b.cl" */
	AST_T_OPTIONS,      /* options EXPR */
	AST_T_DEFINE_NAMES, /* define a, b, c */
	AST_T_DEFINE,       /* define NAME = EXPR */
	AST_T_GLOBAL,       /* global [E, ...] */
	AST_T_LOCAL,        /* local [E, ...] */
	AST_T_ARG_SCALAR,   /* arg TYPE EXPR */
	AST_T_ARG_BUFFER,   /* arg ACCESS TYPE NAME [COUNT] (= INIT) */
	AST_T_ARG_LOCAL,    /* arg local TYPE [COUNT] */
	AST_T_REF_KERNEL,   /* reference kernel NAME from ... global [...] (local [...]) (options E) */
	AST_T_REF_C,        /* reference c NAME from "ref.c" */
	AST_T_TOLERANCE,    /* tolerance rel E abs E (either or both) */
	AST_T_COMPARE,      /* compare NAME, ... */
	AST_T_METRIC,       /* metric NAME = EXPR (flop|byte) */
	AST_T_ARG_USE,      /* arg NAME: a buffer of an earlier kernel line, passed again */
};

enum ast_tune_access { AST_ACCESS_IN, AST_ACCESS_OUT, AST_ACCESS_INOUT };

/* A name or string written in a tune line, with where it was written. */
struct ast_word {
	const char *text;
	struct srcloc loc;
};

struct ast_tune_line {
	enum ast_tune_kind kind;
	struct srcloc loc;          /* the leading keyword */
	struct ast_word name;       /* KERNEL, DEFINE, ARG_BUFFER, REF_*, METRIC */
	struct ast_word type;       /* ARG_*: the element type */
	struct ast_word unit;       /* METRIC: "flop", "byte" or NULL text */
	enum ast_tune_access access;/* ARG_BUFFER */
	/* KERNEL, REF_*: source files; DEFINE_NAMES, COMPARE: names. */
	int nwords;
	struct ast_word *words;
	/* OPTIONS, DEFINE, ARG_SCALAR, METRIC: the value; ARG_BUFFER and
	 * ARG_LOCAL: the element count; REF_KERNEL: its options or NULL. */
	struct ast_expr *value;
	struct ast_expr *init;      /* ARG_BUFFER: the initialiser call or NULL */
	/* GLOBAL, LOCAL, REF_KERNEL: the sizes, each an AST_LIST or NULL. */
	struct ast_expr *global, *local;
	struct ast_expr *rel, *abs; /* TOLERANCE: either may be NULL */
	/* KERNEL: every kernel named, run in this order on the same arguments
	 * and sizes (kernels[0] is `name`); nkernels >= 1.  Several KERNEL
	 * lines, one name each, are a code of several kernels with sizes and
	 * arguments of their own: the global/local/arg lines after each belong
	 * to it (docs/TUNING.md, Several kernels). */
	int nkernels;
	struct ast_word *kernels;
};

struct ast_tune {
	struct srcloc loc;          /* the `tune` word */
	int n;
	struct ast_tune_line **lines;
};

struct ast_module {
	struct arena arena;
	const char *filename;
	const char *docstring; /* the module docstring, or NULL */
	struct ast_block body;
	struct ast_tune *tune; /* the tune: section, or NULL */
	/* Lines of statements that syntax errors dropped, as [first, last]
	 * pairs: a name written there may be defined there. */
	int nerror_lines;
	int *error_lines;
	/* Interning table (open addressing). */
	const char **names;
	size_t nnames, names_cap;
};

void ast_module_init(struct ast_module *m, const char *filename);
void ast_module_release(struct ast_module *m);

/* Interns s[0..n); the result lives as long as the module. */
const char *ast_intern(struct ast_module *m, const char *s, size_t n);

struct ast_expr *ast_expr_new(struct ast_module *m, enum ast_expr_kind kind,
			      struct srcloc loc);
/* Sets the item list (copied into the arena). */
void ast_expr_set_items(struct ast_module *m, struct ast_expr *e,
			struct ast_expr **items, int n);
/* A copy of one node (its item array copied, the items shared). */
struct ast_expr *ast_expr_copy_node(struct ast_module *m, const struct ast_expr *e);
/* Whether e is a literal constant: an int, float, string, bool or None. */
bool ast_expr_is_literal(const struct ast_expr *e);
struct ast_stmt *ast_stmt_new(struct ast_module *m, enum ast_stmt_kind kind,
			      struct srcloc loc);

const char *ast_expr_kind_name(enum ast_expr_kind k);
const char *ast_stmt_kind_name(enum ast_stmt_kind k);
/* Python spelling of an operator ("//", "not in", ...). */
const char *ast_op_text(enum ast_op op);
const char *ast_cclass_name(enum ast_cclass c);
/* The keyword of a tune line ("kernel", "arg", ...). */
const char *ast_tune_kind_name(enum ast_tune_kind k);
const char *ast_access_name(enum ast_tune_access a);

/* Joins two locations into the span that covers both. */
struct srcloc srcloc_join(struct srcloc a, struct srcloc b);

/*
 * Writes an S-expression rendering of the module, one statement a line,
 * used by parser tests and `spacec parse --dump`.
 */
#include <stdio.h>
void ast_dump(const struct ast_module *m, FILE *out);
void ast_dump_expr(const struct ast_expr *e, FILE *out);

#endif
