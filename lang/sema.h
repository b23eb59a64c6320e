/*
 * sema.h - the semantic pass: from syntax to a checked program model.
 *
 * sema_analyze() resolves every name, classifies each top-level definition
 * (device parameter, setting, constant, table, iterator, derived value,
 * constraint), turns reassignments inside top-level `if` blocks into SSA
 * versions, computes true dependencies from free names, rejects cycles,
 * infers static types where it can, and orders everything:
 *
 *   - `defs` is a topological order (dependencies first, then definition
 *     order among independent definitions);
 *   - iterators get a loop position: BEAST's level sets (an iterator's
 *     set is 1 + the deepest iterator it depends on), then definition
 *     order.  That is only the dependency order: which order the loops
 *     run in is decided in dag/order.c, whose order the pipeline
 *     (lib/spacec.c) hands back through sema_set_loop_order;
 *   - every non-iterator gets `level`: the loop position of the deepest
 *     iterator it depends on, or -1 if it depends on none (computed once,
 *     before any loop).  That is where it is evaluated or checked.
 *
 * Name resolution.  A name used at top level refers to the latest version
 * defined above the use, or, when none is above, to the final version (so
 * definitions may come in any order).  Inside a `def` body, free names refer
 * to final versions; names assigned in the body are locals (Python's rule).
 *
 * SSA.  `x = e` inside a top-level `if c:` creates a new version of x whose
 * expression is the synthesized `e if c else <previous x>`; elif/else and
 * nesting conjoin the guards.  A name first defined inside only some
 * branches has AST_UNDEF on the other paths; using it outside is an error.
 *
 * Everything sema allocates lives in the module's arena.
 */
#ifndef SPACEC_SEMA_H
#define SPACEC_SEMA_H

#include <stdbool.h>

#include "ast.h"
#include "diag.h"

/* Most iterators (nested loops) in one space. */
#define SEMA_MAX_ITERATORS 256

enum sema_kind {
	SEMA_DEVICE,     /* device NAME = default; re-bindable at run time */
	SEMA_SETTING,    /* setting NAME = default; re-bindable at run time */
	SEMA_CONST,      /* depends on no iterator, not iterable */
	SEMA_TABLE,      /* a constant nested list, indexed by expressions */
	SEMA_ITER,       /* loops over an iterable */
	SEMA_DERIVED,    /* depends on an iterator, not iterable */
	SEMA_CONSTRAINT,
};

enum sema_form {
	SEMA_FORM_EXPR,    /* value is `expr` */
	SEMA_FORM_DEF,     /* value comes from running `stmt->body` (return) */
	SEMA_FORM_CLOSURE, /* an @iterator def with yield: values are the yields */
};

/* Static types; TY_UNKNOWN means "checked at run time". */
enum sema_type {
	TY_UNKNOWN, TY_INT, TY_FLOAT, TY_BOOL, TY_STR, TY_NONE, TY_LIST, TY_TABLE,
};

struct sema_def {
	int id;                /* index in sema_program.defs */
	const char *name;      /* the user's name; SSA versions share it */
	const char *cname;     /* unique name: name, or name_vN for versions */
	int version;           /* 0 for the first definition of a name */
	enum sema_kind kind;
	enum sema_form form;
	enum sema_type type;   /* for SEMA_ITER: the element type */
	struct ast_stmt *stmt; /* origin statement */
	struct srcloc loc;     /* the defined name */
	struct ast_expr *expr; /* FORM_EXPR: the value (constraints: the test) */

	/* Constraints. */
	enum ast_cclass cclass;
	bool require;          /* keep where true (else: reject where true) */

	/* FORM_DEF / FORM_CLOSURE: locals.  Slots [0, nparams) are the
	 * declared parameters, initialised from param_defs[i]; the rest are
	 * names assigned in the body, unbound on entry. */
	int nparams;
	struct sema_def **param_defs;
	int nlocals;
	const char **local_names;

	/* True dependencies, each once, in first-use order. */
	int ndeps;
	struct sema_def **deps;

	int loop_pos;          /* SEMA_ITER: position in loop order; else -1 */
	int level_set;         /* SEMA_ITER: BEAST's level set (0: no iterator inputs) */
	int decl_pos;          /* SEMA_ITER: position in definition order; else -1 */
	int level;             /* see above; for SEMA_ITER equals loop_pos */
	bool is_final;         /* the last version of its name */
	bool partial;          /* some path leaves it AST_UNDEF */
	bool used;             /* referenced by some other definition */
	struct sema_def *replaces; /* unconditional `x = f(x)`: the version it updates */
	bool specialized;      /* rewritten for known bindings (specialize.c) */
	struct ast_expr *written; /* specialized: the expression as written (NULL: a def body) */
	struct ast_expr *assumed; /* bindables of a specialized program: the value it assumes */
	/* SEMA_DEVICE bound by `query("NAME", DEFAULT)`: the query's name
	 * and where it is written (expr is then the DEFAULT); else NULL. */
	const char *query;
	struct srcloc query_loc;
};

struct sema_program {
	struct ast_module *mod;
	int ndefs;
	struct sema_def **defs;        /* topological order */
	int niters;
	struct sema_def **iters;       /* definition order (output columns) */
	struct sema_def **loop_order;  /* loop order */
	int nconstraints;
	struct sema_def **constraints; /* definition order */
	int nbindable;
	struct sema_def **bindable;    /* devices and settings, definition order */
};

/*
 * Analyses a parsed module.  Returns the number of errors (0: `prog` is
 * complete and valid); warnings go to `diag` too.
 */
int sema_analyze(struct ast_module *mod, struct diag *diag, struct sema_program *prog);

/* A value known before the run: a bound device parameter or setting. */
struct sema_known {
	const char *name;       /* interned in the module */
	struct ast_expr *value; /* AST_INT, AST_BOOL, AST_FLOAT or AST_STR */
};

/*
 * sema_analyze for a program specialized to `known` (and the literal
 * defaults of what it does not bind): branches on them decided, def
 * bodies that only decide and return turned into expressions, so the
 * code generator's transformations see them (lang/specialize.c).  The
 * result computes the same points for those bindings only.
 */
int sema_analyze_known(struct ast_module *mod, struct diag *diag, struct sema_program *prog,
		       const struct sema_known *known, int nknown);

/* BEAST's level-set order of prog's iterators (set, then definition
 * order) into `order`: a dependency order, what sema_analyze places. */
void sema_level_set_order(const struct sema_program *prog, struct sema_def **order);

/*
 * Runs the loops in `order` (a permutation of prog->iters in which every
 * iterator comes after those its iterable depends on; dag/order.c decides
 * it): loop positions and every definition's level follow.
 */
void sema_set_loop_order(struct sema_program *prog, struct sema_def *const *order);

/*
 * The placement a loop order gives, without changing prog: for `order`
 * (a permutation of prog->iters in which every iterator comes after the
 * iterators its iterable depends on), each iterator's loop position and
 * every definition's level, by sema_def.id (arrays of ndefs + 1).  sema
 * places its own order with it; cgen's factorization, a regrouped one.
 */
void sema_placement(const struct sema_program *prog, struct sema_def *const *order, int *pos, int *level);

/* The final version of a top-level name, or NULL. */
struct sema_def *sema_lookup(const struct sema_program *prog, const char *name);

const char *sema_kind_name(enum sema_kind k);
const char *sema_type_name(enum sema_type t);

/* Names of the builtin functions, NULL-terminated. */
extern const char *const sema_builtins[];

/*
 * The math module (`import math`, `from math import NAME`): sema rewrites
 * `math.NAME(...)` into a call of the builtin named "math.NAME" and the
 * constants (pi, e, tau, inf, nan) into float literals.  ORDER SEMA_MATH:
 * sema_math_functions follows it.
 */
enum sema_math {
	SEMA_MATH_CEIL, SEMA_MATH_FLOOR, SEMA_MATH_TRUNC, SEMA_MATH_SQRT, SEMA_MATH_ISQRT,
	SEMA_MATH_LOG, SEMA_MATH_LOG2, SEMA_MATH_LOG10, SEMA_MATH_EXP, SEMA_MATH_POW,
	SEMA_MATH_FABS, SEMA_MATH_GCD, SEMA_MATH_LCM, SEMA_MATH_PROD, SEMA_MATH_FACTORIAL,
	SEMA_MATH_ISFINITE, SEMA_MATH_ISINF, SEMA_MATH_ISNAN,
	SEMA_MATH__COUNT
};
struct sema_math_fn {
	const char *name;      /* "log2" */
	const char *qualified; /* "math.log2", the builtin's name */
	int min_args, max_args;
};
extern const struct sema_math_fn sema_math_functions[SEMA_MATH__COUNT];
/* The math function a builtin name ("math.log2") calls, or -1. */
int sema_math_of(const char *builtin_name);

/*
 * The device queries `query("NAME", DEFAULT)` may name, NULL-terminated:
 * device-neutral names that each of spacetune's backends resolves to its
 * own API (tuner/device.h), or reports lacking, so that the default
 * applies.  No compute API is named here.
 */
extern const char *const sema_device_queries[];

/*
 * The element types of tune: arguments, in the order of enum tune_type
 * (tuner/variant.h), NULL-terminated: C's fixed-size integers by their
 * short names, IEEE half, float and double; every backend lays them out
 * the same way.  ORDER TUNE_TYPE
 */
extern const char *const sema_tune_types[];
/* Index of `name` in sema_tune_types, or -1. */
int sema_tune_type(const char *name);

/*
 * The tune: section is checked by sema_analyze too (names resolved to
 * final versions, types, the rules of docs/TUNING.md).  These say what a
 * checked section means where it leaves a choice.
 */
/* Initialisers of buffer arguments: random(SEED[, LO, HI]), zeros(),
 * constant(X), file(PATH). */
enum sema_init { SEMA_INIT_RANDOM, SEMA_INIT_ZEROS, SEMA_INIT_CONST, SEMA_INIT_FILE, SEMA_INIT_BAD };
enum sema_init sema_tune_init_kind(const struct ast_expr *init);

#endif
