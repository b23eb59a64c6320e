/*
 * spacert.h - the runtime of spacec-generated enumerators (libspacert).
 *
 * Generated code includes only this header.  It defines:
 *   - tagged scalar values (sprt_val) and Python-semantics operations on
 *     them, static inline so that the C compiler folds known tags away;
 *   - growable value vectors (iterables: lists, closure-iterator yields,
 *     iterator algebra results);
 *   - the descriptor a generated file exports (struct sprt_space);
 *   - the context an enumeration runs in: bindings, options, per-definition
 *     statistics and the point sink;
 *   - the fixed helpers of generated loops (spacert_gen.h): everything a
 *     generated file needs that does not depend on its space.
 *
 * Error model.  An operation that would overflow, divide by zero or mix
 * types returns nonzero and leaves its output unspecified; the generated
 * code then rejects the point and counts a domain error against the
 * definition being evaluated.  Nothing here is undefined behaviour.
 *
 * No global mutable state: everything lives in the context passed in.
 * Allocation failure is reported to the caller (SPRT_ENOMEM), never exit().
 */
#ifndef SPACERT_H
#define SPACERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 5: generated code calls spacert_gen.h's helpers rather than carrying them;
 * 6: a bindable's descriptor carries its declared type and its place */
#define SPRT_ABI_VERSION 6

/* ---- values ---------------------------------------------------------- */

enum sprt_kind {
	SPRT_UNDEF = 0, /* no value on this path (reading it is an error) */
	SPRT_NONE,
	SPRT_BOOL,      /* i is 0 or 1 */
	SPRT_INT,
	SPRT_FLOAT,
	SPRT_STR,       /* i indexes the space's string table */
	SPRT_VEC,       /* p points at a struct sprt_vec (borrowed) */
	SPRT_RANGE,     /* a lazy range: r.start, r.stop, r.step */
};

struct sprt_vec;

typedef struct sprt_val {
	int32_t kind;
	int32_t pad_;
	union {
		int64_t i;
		double f;
		struct sprt_vec *p;
	} u;
	int64_t r_stop, r_step; /* SPRT_RANGE only (u.i is the start) */
} sprt_val;

/* A growable array of values; `owned` vectors are freed by sprt_vec_free. */
struct sprt_vec {
	sprt_val *v;
	size_t n, cap;
};

/* Error codes of the operations. */
enum sprt_err {
	SPRT_OK = 0,
	SPRT_EOVERFLOW,  /* integer overflow */
	SPRT_EZERODIV,   /* division or modulo by zero */
	SPRT_ETYPE,      /* operand types not supported */
	SPRT_EVALUE,     /* bad value (range step 0, index out of range, ...) */
	SPRT_EUNDEF,     /* an undefined value was read */
	SPRT_ENOMEM,     /* allocation failed or a list grew too large */
	SPRT_ESTEPS,     /* the step limit of a def body was reached */
};

/* ---- the space's string table (for SPRT_STR) ----------------------------- */

struct sprt_strings {
	int n;
	const char *const *s;
};

/* ---- the descriptor a generated file exports ----------------------------- */

enum sprt_class { SPRT_HARD, SPRT_SOFT, SPRT_CORRECT };

/* A definition with statistics: iterators, derived values, constraints. */
enum sprt_def_kind { SPRT_DEF_ITER, SPRT_DEF_DERIVED, SPRT_DEF_CONSTRAINT };

struct sprt_def_desc {
	const char *name;       /* the unique (SSA) name, e.g. regs__v1 */
	enum sprt_def_kind kind;
	enum sprt_class cls;    /* constraints */
	bool require;           /* constraints: keep where true */
	int line;               /* in the .space file */
	int level;              /* loop level where it is evaluated (-1: once) */
};

/* An output column: an iterator, in definition order. */
struct sprt_param_desc {
	const char *name;
	enum sprt_kind type;    /* SPRT_INT, SPRT_FLOAT, SPRT_BOOL, SPRT_STR, or SPRT_UNDEF if mixed */
};

/* A run-time bindable: device parameter or setting. */
struct sprt_bindable_desc {
	const char *name;
	bool is_setting;
	const char *default_text; /* the default's source text, for --help */
	/* What a binding must be (sprt_bindable_check): SPRT_INT, SPRT_FLOAT,
	 * SPRT_BOOL or SPRT_STR as its default; SPRT_UNDEF takes anything. */
	enum sprt_kind type;
	/* The name's place in the space's source_file, and that line's text
	 * (NULL: not known), for a located error with a caret. */
	int line, col;
	const char *line_text;
};

struct sprt_ctx;

struct sprt_space {
	int abi_version;            /* SPRT_ABI_VERSION */
	const char *name;           /* the space's name (file stem) */
	const char *source_file;
	const char *doc;            /* the module docstring or NULL */
	int nparams;
	const struct sprt_param_desc *params;
	int ndefs;
	const struct sprt_def_desc *defs;
	int nbindables;
	const struct sprt_bindable_desc *bindables;
	struct sprt_strings strings;
	/*
	 * Enumerates the space in `ctx` (bindings, options, sink, statistics
	 * already set up by sprt_ctx_init).  Returns 0, or a negative
	 * SPRT_E* code for a fatal error (allocation failure, a bad binding).
	 */
	int (*enumerate)(struct sprt_ctx *ctx);
	/*
	 * The loops, from level 0, that call the task hooks (sprt_par_enter
	 * below): min(nparams, SPRT_PAR_LEVELS) in generated code.  0 (an
	 * enumerator written by hand) runs on one thread, all in shard 0.
	 */
	int par_levels;
};

/* ---- run-time bindings and options ----------------------------------------- */

struct sprt_binding {
	const char *name;
	sprt_val value;  /* strings here are SPRT_STR with u.p = NULL and text in `text` */
	const char *text;
};

struct sprt_def_stats {
	uint64_t evaluated;
	uint64_t rejected;
	uint64_t domain_errors;
};

/*
 * Called for each valid point with the iterator values in definition
 * order.  Return nonzero to stop the enumeration.
 */
typedef int (*sprt_point_fn)(void *user, const sprt_val *point, int n);

/* The same for a point whose values are all ints (ctx->emit_ints). */
typedef int (*sprt_ints_fn)(void *user, const int64_t *point, int n);

struct sprt_ctx {
	const struct sprt_space *space;
	/* Bindings (--set / --device-profile), looked up by name. */
	int nbindings;
	const struct sprt_binding *bindings;
	/* Options. */
	bool no_soft;
	const bool *disabled;        /* per def index (ndefs), or NULL */
	uint64_t step_limit;         /* per def-body evaluation; 0: default */
	/* The sink. */
	sprt_point_fn emit;
	void *emit_user;
	/* Results. */
	struct sprt_def_stats *stats; /* ndefs entries */
	uint64_t valid;
	uint64_t candidates;
	bool stop;                   /* set when emit asked to stop */
	/* Run-time strings made by bindings (interned with the table). */
	int nextra_strings;
	const char **extra_strings;
	/* Progress reporting (stderr on a terminal, after one second). */
	bool progress;
	double progress_start;
	double progress_next;
	/* Runtime-private state of sprt_progress_tick; zeroed by sprt_ctx_init. */
	uint32_t progress_calls_;
	uint32_t progress_stride_;
	double progress_last_;
	bool progress_shown_;
	/*
	 * Parallel and sharded runs (runtime/par.c).  NULL for a plain walk.
	 * Otherwise generated code calls sprt_par_enter / sprt_par_leave in
	 * every loop at levels 0..par_level (see below).
	 */
	struct sprt_par *par;
	int par_level;
	/*
	 * Set by a caller that will not read `stats` (count, list): generated
	 * code may then skip work done only for them, such as replaying a
	 * memo hit's statistics.  valid and candidates stay exact.
	 */
	bool no_stats;
	/*
	 * The least and greatest value of each iterator (2 per parameter),
	 * all ints, where generated code could bound every one of them
	 * before the nest (sprt_column_bounds_): the binary sink then fixes
	 * its column widths up front and streams its rows.  Runtime-owned.
	 */
	int64_t *column_bounds;
	bool columns_bounded;
	/*
	 * Where set (only with emit, to the same user): takes a point of
	 * ints as int64_t, a quarter of the bytes of sprt_vals.  Generated
	 * code whose iterators are all typed ints calls it, or, where it is
	 * NULL, sprt_emit_ints_ (ABI 4).
	 */
	sprt_ints_fn emit_ints;
	/*
	 * > 0: a sprt_now_-clock time (CLOCK_MONOTONIC seconds) past which
	 * sprt_progress_tick sets stop and records in deadline_fraction the
	 * share of the outermost loop done: a capped trial run, such as
	 * spacec's --jit=auto sizing a listing up (ABI 4).
	 */
	double deadline;
	double deadline_fraction;
};

/* ctx->emit with the ints of `point` as sprt_vals (emit_ints is NULL). */
int sprt_emit_ints_(struct sprt_ctx *ctx, const int64_t *point, int n);

/*
 * Generated code, once per enumeration before its first point: every
 * value of iterator i is an int in [lo_hi[2i], lo_hi[2i + 1]] (NULL: some
 * iterator could not be bounded).  Only an optimisation's input: a value
 * found outside its bounds later fails the binary sink, never silently.
 */
void sprt_column_bounds_(struct sprt_ctx *ctx, const int64_t *lo_hi);

/* Sets up a context with no bindings, counting only.  0 or SPRT_ENOMEM. */
int sprt_ctx_init(struct sprt_ctx *ctx, const struct sprt_space *space);
void sprt_ctx_release(struct sprt_ctx *ctx);

/*
 * Looks a binding up by name; *found is false if not bound (and `*out` is
 * left alone).  Returns 0 or SPRT_ENOMEM.  Generated code calls it
 * for each device parameter and setting before evaluating its default.
 * For a string binding, `*out` becomes an SPRT_STR index, interning the
 * text in the context if the table lacks it.
 */
int sprt_binding_get(struct sprt_ctx *ctx, const char *name, sprt_val *out, bool *found);

/* The text of a string value (table or run-time strings). */
const char *sprt_str_text(const struct sprt_ctx *ctx, int64_t id);

/*
 * Progress hook: generated code calls it from its outermost loop with the
 * fraction of that loop done (0..1, or a negative value if unknown).  It
 * is a no-op unless ctx->progress is set (sprt_main sets it when stderr is
 * a terminal) and reads the clock only every few calls, adapting the
 * stride so that checks happen about every 50 ms.  Nothing is shown
 * before the run is one second old.  Call it from one thread at a time.
 */
void sprt_progress_tick(struct sprt_ctx *ctx, double fraction_done);
/* Erases the progress line if one was shown (sprt_main calls it). */
void sprt_progress_done(struct sprt_ctx *ctx);

/*
 * Writes the statistics table: one row per definition (name, kind or
 * class, level, evaluated, rejected, % pruned, domain errors), then the
 * totals and `elapsed_s`.  Returns 0, or -1 on a write error.
 */
int sprt_stats_print(const struct sprt_ctx *ctx, FILE *out, double elapsed_s);
/*
 * After a run with no valid point: one warning on `err` for each
 * definition whose every evaluation failed with a domain error (a --set
 * value of the wrong type, a division by a zero setting, ...), which is
 * then why the space is empty.  Returns how many it printed.
 */
int sprt_stats_warn_domain(const struct sprt_ctx *ctx, FILE *err);

/*
 * A growable set of bindings that owns its names and texts: what --set
 * and --device-profile build.  Point ctx->bindings / ctx->nbindings at
 * `v` / `n`.  Zero-initialise, release with sprt_bindings_release.
 */
struct sprt_bindings {
	int n, cap;
	struct sprt_binding *v;
};

void sprt_bindings_release(struct sprt_bindings *b);
/*
 * Binds `name` (replacing an earlier binding of it) to `value_text` parsed
 * as --set does: an int (decimal or 0x hex, optional sign), a float,
 * True/False/true/false, else a string (one pair of surrounding quotes
 * removed).  Returns 0, SPRT_EVALUE for a string that is not valid UTF-8
 * (it could not be written as JSON), or SPRT_ENOMEM.
 */
int sprt_bindings_set_text(struct sprt_bindings *b, const char *name, const char *value_text);
/*
 * One --set argument, NAME=VALUE, by the rule every front door shares
 * (spacec, an enumerator's sprt_main, spacetune run and variant, batch
 * files' set lines; docs/LANGUAGE.md, "Binding values"):
 *   - NAME is the text before the first '=': an identifier (ASCII letters,
 *     digits and '_', not starting with a digit);
 *   - VALUE is the text after it: not empty, valid UTF-8, read as
 *     sprt_bindings_set_text reads it.
 * sprt_set_check returns 0 (and NAME's length in *name_len, which may be
 * NULL), or SPRT_EVALUE with why in err (errlen bytes, no program name).
 * sprt_bindings_set_arg checks, then binds NAME; also SPRT_ENOMEM.
 */
int sprt_set_check(const char *arg, size_t *name_len, char *err, size_t errlen);
int sprt_bindings_set_arg(struct sprt_bindings *b, const char *arg, char *err, size_t errlen);
/*
 * The one rule for a bound value's type (docs/LANGUAGE.md, "Binding
 * values"): a bindable declared an int takes ints, a float ints and
 * floats, a bool bools, a string strings; SPRT_UNDEF anything.  Returns 0
 * where `x` fits `d`, else SPRT_ETYPE with the message in err ("--set
 * n=12.5 gives 'n' a float, but it holds an int"; `profile` names the
 * --device-profile file where the value came from one, NULL for --set)
 * and a hint in note ("" if none); both errlen bytes.
 */
int sprt_bindable_check(const struct sprt_bindable_desc *d, const struct sprt_binding *x, const char *profile,
			char *err, char *note, size_t errlen);
/*
 * Writes "file:line:col: LEVEL: msg" to `f`, then d's source line with a
 * caret under its name, as spacec's diagnostics look (line 0: the first
 * line only).
 */
void sprt_bindable_report(FILE *f, const char *file, const struct sprt_bindable_desc *d, const char *level,
			  const char *msg);
/*
 * Every binding v[0..n) against the type its bindable in `space`
 * declares (sprt_bindable_check; names the space does not bind pass).
 * Returns SPRT_OK, or SPRT_ETYPE after writing each misfit to `report`
 * (NULL: nowhere) as a located error at its definition with its note.
 * The values named in `sets` came from --set, the others from the
 * --device-profile file `profile` (NULL: all are --set values).
 * sprt_command_run reports with it; sprt_run refuses with it, so no
 * caller enumerates a space on a value of the wrong type.
 */
int sprt_bindings_check(const struct sprt_space *space, const struct sprt_binding *v, int n,
			const struct sprt_bindings *sets, const char *profile, FILE *report);
/* Binds `name` to a value; a string is given by `text` (value ignored). */
int sprt_bindings_set(struct sprt_bindings *b, const char *name, sprt_val value, const char *text);
/*
 * Adds the entries of a device profile: a flat JSON object mapping names
 * to numbers, strings or booleans (`len` bytes of `text`, read from
 * `file`).  Integral numbers without fraction or exponent bind ints.
 * Returns 0; SPRT_EVALUE with "file:line:col: error: message" in err (errlen
 * bytes) on a syntax error; SPRT_ENOMEM.  Later keys win.
 */
int sprt_bindings_load_json(struct sprt_bindings *b, const char *file, const char *text, size_t len,
			    char *err, size_t errlen);

/* ---- vectors ---------------------------------------------------------------- */

#define SPRT_MAX_VEC ((size_t)1 << 22) /* larger lists (yields too) are a domain error */

int sprt_vec_push(struct sprt_vec *v, sprt_val x);
void sprt_vec_clear(struct sprt_vec *v);
void sprt_vec_free(struct sprt_vec *v);

/* ---- operations (Python 3 semantics; nonzero return = domain error) ---------- */

/*
 * Arithmetic: + - * / // % ** and unary - + ~, bitwise | & ^ << >>.
 * `op` uses the characters of the Python operator: '+', '-', '*', '/',
 * 'f' (//), '%', 'p' (**), '|', '&', '^', 'l' (<<), 'r' (>>).
 * | & - on two iterables are union, intersection and difference into
 * `scratch` (ascending, no duplicates); + on iterables concatenates and
 * * with an int repeats, also into `scratch`.
 */
int sprt_binop(struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, sprt_val *out,
	       struct sprt_vec *scratch);
int sprt_neg(sprt_val a, sprt_val *out);
int sprt_pos(sprt_val a, sprt_val *out);
int sprt_invert(sprt_val a, sprt_val *out);
/*
 * Python truthiness.  sprt_truthy cannot see a string's text and treats
 * every string as non-empty; sprt_truthy_ctx is exact for strings too.
 */
bool sprt_truthy(sprt_val a);
bool sprt_truthy_ctx(const struct sprt_ctx *ctx, sprt_val a);

/* Comparisons: op is '<', 'l' (<=), '>', 'g' (>=), '=', '!', 'i' (in), 'n' (not in). */
int sprt_compare(const struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, bool *out);

/* Indexing a vec or range (negative indices count from the end). */
int sprt_index(sprt_val seq, sprt_val idx, sprt_val *out);

/* Builtins.  `args` has n values. */
int sprt_builtin_range(const sprt_val *args, int n, sprt_val *out);
int sprt_builtin_minmax(const struct sprt_ctx *ctx, bool is_max, const sprt_val *args, int n, sprt_val *out);
int sprt_builtin_abs(sprt_val a, sprt_val *out);
int sprt_builtin_int(const struct sprt_ctx *ctx, const sprt_val *args, int n, sprt_val *out);
int sprt_builtin_float(const struct sprt_ctx *ctx, const sprt_val *args, int n, sprt_val *out);
int sprt_builtin_bool(const sprt_val *args, int n, sprt_val *out); /* strings: see sprt_truthy */
int sprt_builtin_len(const struct sprt_ctx *ctx, sprt_val a, sprt_val *out);
int sprt_builtin_list(const sprt_val *args, int n, sprt_val *out, struct sprt_vec *scratch);
int sprt_builtin_sum(sprt_val a, sprt_val *out);
/* any() (is_all false) or all() of an iterable. */
int sprt_builtin_anyall(const struct sprt_ctx *ctx, bool is_all, sprt_val a, sprt_val *out);
/* round(x) and round(x, n): Python 3's, halves to even. */
int sprt_builtin_round(const sprt_val *args, int n, sprt_val *out);

/* The math module's functions (docs/LANGUAGE.md), in lang/sema.h's order. */
enum sprt_math {
	SPRT_MATH_CEIL, SPRT_MATH_FLOOR, SPRT_MATH_TRUNC, SPRT_MATH_SQRT, SPRT_MATH_ISQRT,
	SPRT_MATH_LOG, SPRT_MATH_LOG2, SPRT_MATH_LOG10, SPRT_MATH_EXP, SPRT_MATH_POW,
	SPRT_MATH_FABS, SPRT_MATH_GCD, SPRT_MATH_LCM, SPRT_MATH_PROD, SPRT_MATH_FACTORIAL,
	SPRT_MATH_ISFINITE, SPRT_MATH_ISINF, SPRT_MATH_ISNAN,
};
int sprt_builtin_math(struct sprt_ctx *ctx, enum sprt_math fn, const sprt_val *args, int n, sprt_val *out);

/*
 * Fast paths, static inline in spacert_ops.h: sprt_op and sprt_cmp behave
 * exactly like sprt_binop and sprt_compare, but handle int-by-int (and
 * bool) operands inline so the C compiler can fold and vectorise them.
 * Generated code calls these.
 */
static inline int sprt_op(struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, sprt_val *out,
			  struct sprt_vec *scratch);
static inline int sprt_cmp(const struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, bool *out);

/* Number of elements of an iterable (vec or range); -1 if not iterable. */
int64_t sprt_iter_len(sprt_val it);
/* Element i (0 <= i < len) of an iterable. */
sprt_val sprt_iter_at(sprt_val it, int64_t i);

/* Constructors. */
static inline sprt_val sprt_int(int64_t i)
{
	sprt_val v = { SPRT_INT, 0, { .i = i }, 0, 0 };
	return v;
}

static inline sprt_val sprt_float(double f)
{
	sprt_val v = { SPRT_FLOAT, 0, { .f = f }, 0, 0 };
	return v;
}

static inline sprt_val sprt_bool(bool b)
{
	sprt_val v = { SPRT_BOOL, 0, { .i = b }, 0, 0 };
	return v;
}

static inline sprt_val sprt_str(int64_t id)
{
	sprt_val v = { SPRT_STR, 0, { .i = id }, 0, 0 };
	return v;
}

static inline sprt_val sprt_none(void)
{
	sprt_val v = { SPRT_NONE, 0, { .i = 0 }, 0, 0 };
	return v;
}

static inline sprt_val sprt_undef(void)
{
	sprt_val v = { SPRT_UNDEF, 0, { .i = 0 }, 0, 0 };
	return v;
}

static inline sprt_val sprt_vecval(struct sprt_vec *p)
{
	sprt_val v = { SPRT_VEC, 0, { .p = p }, 0, 0 };
	return v;
}

/* range(start, stop, step) of ints, as the builtin (step 0: ValueError). */
static inline int sprt_range_i(int64_t start, int64_t stop, int64_t step, sprt_val *out)
{
	if (step == 0)
		return SPRT_EVALUE;
	sprt_val v = { SPRT_RANGE, 0, { .i = start }, stop, step };
	*out = v;
	return SPRT_OK;
}

#include "spacert_ops.h"

/* ---- parallel and sharded enumeration (runtime/par.c) ------------------------------ */

/*
 * Hooks of the generated loop nest.  Generated code has them in the loops
 * at levels 0 .. min(nparams, SPRT_PAR_LEVELS) - 1; in the loop at level k
 * it calls, when ctx->par is set and k <= ctx->par_level,
 *
 *     sprt_par_leave(ctx, k)   first thing in every iteration, and after
 *                              the loop: the previous iteration is over;
 *     sprt_par_enter(ctx, k)   after the level's own derived values and
 *                              constraints accepted the iteration, before
 *                              the deeper levels: nonzero skips them.
 *
 * The walk above a hook must be deterministic (it is: the same bindings
 * give the same values), so that every thread numbers the iterations at a
 * level identically; the runtime hands those ordinals out as tasks.
 */
#define SPRT_PAR_LEVELS 8
struct sprt_par;
int sprt_par_enter(struct sprt_ctx *ctx, int level);
void sprt_par_leave(struct sprt_ctx *ctx, int level);

/*
 * Generated code, where a factorized nest lists the product of its
 * sub-nests' points (w of them) and par_level >= 0: how many of them to
 * skip (0..w).  0 except in a walk of random access (runtime/access.c),
 * which wants one point and skips the ones before it without listing them.
 */
uint64_t sprt_par_skip(struct sprt_ctx *ctx, uint64_t w);
/*
 * The same place, in a walk that ranks a point (runtime/access.c): the
 * point looked for (NULL in any other walk).  The generated code finds the
 * one point of the product that can be it, lists only that one, and tells
 * the walk how many points it passed over without listing them
 * (sprt_par_pass: those before it, and those after it unless it was found).
 */
const sprt_val *sprt_par_match(struct sprt_ctx *ctx);
/*
 * Generated code, first thing in enumerate(): the n memo tables of the
 * factorized sub-nests that random access keeps from one walk to the next
 * (a walk is a whole enumerate() call), for it to start from and to leave
 * its tables in, or NULL in any other enumeration, whose tables are its
 * own.  An entry depends only on its key and the bindings, the same for
 * every walk; walks that list (entries with points) and walks that count
 * keep theirs apart.
 */
struct sprt_memo **sprt_par_memos(struct sprt_ctx *ctx, int n);
void sprt_par_pass(struct sprt_ctx *ctx, uint64_t n);
/* Whether two values are the same value of a point's column: the same
 * kind and value (1, 1.0 and True differ; NaN is itself). */
bool sprt_val_same(sprt_val a, sprt_val b);

struct sprt_sink;

struct sprt_run_options {
	int threads;           /* worker threads, >= 1 (see sprt_default_threads) */
	bool ordered;          /* write points in the single-thread order */
	uint64_t shard_index;  /* 0-based; the part of the space to enumerate */
	uint64_t shard_count;  /* 0 or 1: the whole space */
};

/* The number of online CPUs (at least 1): the default of --threads. */
int sprt_default_threads(void);

/*
 * Enumerates ctx's space with the options: like space->enumerate(ctx),
 * but on `threads` worker threads and restricted to one shard.  `sink` is
 * the sink opened on ctx (sprt_sink_open), or NULL when ctx->emit is a
 * callback of the caller's, which is then called under a lock (and
 * `ordered` runs one worker).  On return ctx->stats, ctx->valid and
 * ctx->candidates hold the totals, identical for every thread count; the
 * statistics of the N shards of a space add up to the whole space's.
 * Returns 0, or a negative SPRT_E* code for a fatal error: -SPRT_ETYPE,
 * before any point, for a binding of the wrong type (sprt_bindings_check
 * with a FILE says which, located).
 */
int sprt_run(struct sprt_ctx *ctx, struct sprt_sink *sink, const struct sprt_run_options *opt);

/* ---- random access (runtime/access.c) ------------------------------------------ */

/*
 * A space's points by index, without listing them: the index of a point
 * is its position in the single-thread order (`list --ordered`).  Built
 * on the counts the nest's task hooks give (a subtree is counted, its
 * factorized sub-nests by their memoized counts, never listed); what is
 * counted is cached in a trie of visited prefixes, bounded in size.
 * `ctx` is set up as for an enumeration (bindings, options); each call
 * runs walks of the enumerator on it and leaves it as it was.  Not for
 * concurrent use.  The functions return 0, SPRT_EVALUE (index out of
 * range; fewer points than a sample without replacement asks for),
 * SPRT_ETYPE (a point holding a list; from sprt_access_open, a binding of
 * the wrong type, as sprt_run checks them) or the enumeration's error code.
 */
struct sprt_access;
int sprt_access_open(struct sprt_access **a, struct sprt_ctx *ctx);
void sprt_access_free(struct sprt_access *a);
/* The number of valid points. */
int sprt_access_size(struct sprt_access *a, uint64_t *n);
/* The point at `index` (nparams values; strings are ids of ctx's). */
int sprt_access_unrank(struct sprt_access *a, uint64_t index, sprt_val *point);
/* The index of `point`; *found false where it is not a point of the space. */
int sprt_access_rank(struct sprt_access *a, const sprt_val *point, uint64_t *index, bool *found);
/*
 * k indices drawn uniformly from [0, n) by `seed` (xoshiro256** seeded by
 * splitmix64, unbiased bounded draws): independent draws with `replace`,
 * else k distinct ones (k <= n), each k-subset equally likely, in the
 * order drawn.  Deterministic: the same seed gives the same indices.
 */
void sprt_sample_indices(uint64_t seed, uint64_t n, uint64_t k, bool replace, uint64_t *out);

/* The generator behind it, for callers that draw more (spacetune's
 * strategies): xoshiro256** (Blackman, Vigna), seeded by splitmix64. */
struct sprt_rng {
	uint64_t s[4];
};
void sprt_rng_seed(struct sprt_rng *r, uint64_t seed);
uint64_t sprt_rng_next(struct sprt_rng *r);
/* Uniform in [0, n), n > 0, unbiased (Lemire's multiply and reject). */
uint64_t sprt_rng_below(struct sprt_rng *r, uint64_t n);

/* ---- memo tables of factorized sub-nests (-O2) --------------------------------- */

/*
 * Generated code counts an independent sub-nest once per distinct tuple
 * of its inputs (the values it reads from outer loops) and keeps the
 * result here: the number of its points, the statistics its enumeration
 * added (so a hit replays them and statistics never depend on hits), and,
 * when listing, the points themselves (`width` values each).  A table is
 * private to one enumeration state: never share it between threads.
 */
struct sprt_memo;

struct sprt_memo_entry {
	uint64_t count;       /* points of the sub-nest for this key */
	uint64_t *stats;      /* nstats deltas, filled by the caller */
	sprt_val *points;     /* npoints * width values, when listing */
	size_t npoints, cap_points;
};

/*
 * One count of a sub-nest, kept by generated code in a small array indexed
 * by the values of the loops its key varies with (cg_factor.c, "near"
 * counts): valid while `stamp` equals the array's current generation and
 * `index` the values' index (an array smaller than their extent is a
 * direct-mapped cache of them).
 */
struct sprt_memo_near {
	uint64_t stamp;
	uint64_t index;
	uint64_t count;       /* the entry's count */
	uint64_t candidates;  /* and its candidates (stats[0]) */
	/* The entry itself, for its points (listing): valid while its
	 * table's epoch is still `epoch`. */
	const struct sprt_memo_entry *entry;
	uint64_t epoch;
};

/*
 * Changes whenever a table may have dropped its entries (a start-over);
 * 0 while it hands out scratch entries only.  An entry found before
 * stays valid while the epoch it was found in lasts.
 */
uint64_t sprt_memo_epoch(const struct sprt_memo *m);
/* Counts a near count's hit as one of the table's (its hit rate decides
 * whether it keeps inserting). */
void sprt_memo_near_hit(struct sprt_memo *m);

/* An array of n near counts, stamps 0 (never current), or NULL where it
 * cannot be had (the caller goes without). */
struct sprt_memo_near *sprt_memo_near_new(uint64_t n);
void sprt_memo_near_free(struct sprt_memo_near *a);

/*
 * Finds the entry for `key` (nkey values), creating the table (*mp NULL)
 * or the entry.  Returns 1 for an entry filled before, 0 for a fresh one
 * (count 0, deltas 0, no points) that the caller fills, or -SPRT_ENOMEM.
 * Keys holding a list, and every key once the table has seen too few
 * hits to pay for itself, get a scratch entry that is fresh every time.
 * An entry stays valid until the next sprt_memo_find on the same table.
 */
int sprt_memo_find(struct sprt_memo **mp, const sprt_val *key, int nkey, int nstats, int width,
		   struct sprt_memo_entry **out);
/* The same with int keys (every key value typed int64_t): one table is
 * always looked up one way. */
int sprt_memo_find_ints(struct sprt_memo **mp, const int64_t *key, int nkey, int nstats, int width,
			struct sprt_memo_entry **out);
/* Appends one point (width values) to a fresh entry: 0 or SPRT_ENOMEM. */
int sprt_memo_add_point(struct sprt_memo *m, struct sprt_memo_entry *e, const sprt_val *point);
void sprt_memo_free(struct sprt_memo *m);

/* ---- sinks and the command-line driver ------------------------------------------- */

enum sprt_format { SPRT_FMT_COUNT, SPRT_FMT_CSV, SPRT_FMT_JSONL, SPRT_FMT_BINARY };

/*
 * Writes one value as text (Python repr; JSON when json is set).
 */
void sprt_print_value(const struct sprt_ctx *ctx, FILE *out, sprt_val v, bool json);

/*
 * A point sink.  sprt_sink_open writes the format's header (CSV: the
 * parameter names) and installs itself as ctx->emit / ctx->emit_user;
 * sprt_sink_close writes what is buffered (the binary format is written
 * whole at the end, see runtime/FORMAT.md), flushes `out` and frees the
 * sink.  A write error stops the enumeration (emit returns nonzero) and
 * is reported by sprt_sink_close: it returns 0, or -1 with errno set.
 * `out` stays open (the caller closes it).  SPRT_FMT_COUNT writes nothing
 * and leaves ctx->emit NULL, so generated code need not build points.
 */
int sprt_sink_open(struct sprt_sink **sink, struct sprt_ctx *ctx, enum sprt_format fmt, FILE *out);
int sprt_sink_close(struct sprt_sink *sink);
/* True once a write has failed (the enumeration was asked to stop). */
bool sprt_sink_failed(const struct sprt_sink *sink);

/*
 * The output of `list -o FILE` (NULL: stdout).  sprt_output_open returns
 * the stream to write, or NULL after printing why ("PROG: error: ...");
 * FILE is written beside and renamed into place by sprt_output_close
 * when `status` is 0 and every write succeeded (a device or a pipe is
 * written in place).  sprt_output_close reports a failed write unless
 * `status` already says one failed, removes the temporary file on any
 * failure, and returns the final status (0 or 1).  With `prog` NULL
 * nothing is printed and errno says what failed: for writers with
 * messages of their own (spacetune's export, merge and header files,
 * spacec emit -o), which must not rename over /dev/null either.
 */
struct sprt_output {
	FILE *f;
	const char *path, *prog;
	char *tmp_path; /* the file beside path, or NULL */
};
FILE *sprt_output_open(struct sprt_output *o, const char *path, const char *prog);
int sprt_output_close(struct sprt_output *o, int status);

/*
 * A command of a compiled enumerator as data: what sprt_main makes of its
 * argv, and what a program with a command line of its own (spacec) fills
 * in directly, so that no option is written out and read again.  Strings
 * and arrays are the caller's; sprt_command_init sets the defaults (csv,
 * the online CPUs, progress when stderr is a terminal).
 */
enum sprt_command_kind {
	SPRT_CMD_NONE, SPRT_CMD_COUNT, SPRT_CMD_LIST, SPRT_CMD_STATS,
	SPRT_CMD_SAMPLE, SPRT_CMD_RANK, SPRT_CMD_UNRANK
};

/* The command called `name` ("count", "list", ... "unrank"), or SPRT_CMD_NONE. */
enum sprt_command_kind sprt_command_kind_of(const char *name);

struct sprt_command {
	const char *prog;                  /* names the program in messages */
	enum sprt_command_kind cmd;
	enum sprt_format fmt;              /* list, sample and unrank */
	const char *output;                /* NULL: stdout */
	const char *profile;               /* --device-profile FILE, read first */
	const struct sprt_bindings *sets;  /* --set, after it (sprt_bindings_set_arg); NULL: none */
	int ndisable;
	const char *const *disable;        /* constraint names */
	bool no_soft, no_warnings;
	bool timing;                       /* the enumeration's time on stderr */
	int progress;                      /* 1, 0, or -1: when stderr is a terminal and CI is unset */
	struct sprt_run_options run;
	uint64_t sample_n, seed;           /* sample (sample_n > 0 required) */
	bool replace;
	int nargs;
	const char *const *args;           /* rank's points, unrank's indices */
};

void sprt_command_init(struct sprt_command *c, const char *prog);
/* Checks the command against the space (usage errors: status 2), binds
 * (a value of the wrong type, sprt_bindable_check: a located error,
 * status 1), runs it; returns the process exit status (0, 1 or 2). */
int sprt_command_run(const struct sprt_space *space, const struct sprt_command *c);

/*
 * The readers of sprt_main's option values, for programs that take the
 * same options: 0, or -1 where `s` is not one.  --threads: 1 to 1024;
 * --shard: I/N with 0 <= I < N <= 2**20; -n and --seed: a decimal count
 * up to 2**60.
 */
int sprt_parse_threads(const char *s, int *threads);
int sprt_parse_shard(const char *s, uint64_t *index, uint64_t *count);
int sprt_parse_count(const char *s, uint64_t *out);

/*
 * The whole command line of a compiled enumerator:
 *   ENUMERATOR count|list|stats [--format csv|jsonl|binary] [--set N=V]...
 *              [--device-profile F.json] [--no-soft] [--disable NAME]...
 *              [--output FILE] [--threads N] [--ordered] [--shard I/N]
 * Generated executables' main() is `return sprt_main(&space, argc, argv);`.
 * Returns the process exit status.
 */
int sprt_main(const struct sprt_space *space, int argc, char **argv);

#ifdef __cplusplus
}
#endif

/* Last: its helpers use everything above. */
#include "spacert_gen.h"

#endif
