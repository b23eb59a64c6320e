/*
 * variant.h - what one tuning evaluation needs, fully evaluated.
 *
 * This is the contract between the job loader (tuner/job.c: the .space
 * file's `tune:` section evaluated at one point) and the evaluator
 * (tuner/eval.c: build, run, time, verify in a worker process).  Nothing
 * here refers to the language: every expression is already a number or a
 * string, so the evaluator can run in a process that never saw the AST.
 *
 * Ownership: strings and arrays belong to whoever filled the struct; the
 * evaluator copies what it keeps.
 */
#ifndef SPACEC_TUNER_VARIANT_H
#define SPACEC_TUNER_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Element types of scalars and buffers (the same layout in every backend). */
enum tune_type {
	TUNE_CHAR, TUNE_UCHAR, TUNE_SHORT, TUNE_USHORT, TUNE_INT, TUNE_UINT,
	TUNE_LONG, TUNE_ULONG, TUNE_HALF, TUNE_FLOAT, TUNE_DOUBLE
};

enum tune_arg_kind {
	TUNE_ARG_SCALAR,  /* passed by value */
	TUNE_ARG_BUFFER,  /* a __global buffer */
	TUNE_ARG_LOCAL    /* __local memory of `count` elements (no data) */
};

enum tune_access { TUNE_IN, TUNE_OUT, TUNE_INOUT };

enum tune_init_kind {
	TUNE_INIT_ZEROS,
	TUNE_INIT_CONST,   /* every element = value */
	TUNE_INIT_RANDOM,  /* uniform in [lo, hi) from `seed`; deterministic */
	TUNE_INIT_FILE     /* raw little-endian elements read from `path` */
};

struct tune_init {
	enum tune_init_kind kind;
	uint64_t seed;
	double lo, hi;      /* TUNE_INIT_RANDOM; default [-1, 1) */
	double value;       /* TUNE_INIT_CONST */
	const char *path;   /* TUNE_INIT_FILE, absolute or relative to the cwd */
};

struct tune_arg {
	enum tune_arg_kind kind;
	enum tune_type type;
	const char *name;          /* buffers: the name in the .space file; else NULL */
	/* TUNE_ARG_SCALAR: the value (ints in i, float/double/half in f). */
	int64_t i;
	double f;
	/* TUNE_ARG_BUFFER / TUNE_ARG_LOCAL: number of elements. */
	uint64_t count;
	/* TUNE_ARG_BUFFER only. */
	enum tune_access access;
	struct tune_init init;     /* in/inout: initial contents; out: ignored (zeroed) */
	bool compare;              /* checked against the reference's output */
};

/* A reference that produces the expected outputs (once per job). */
enum tune_ref_kind {
	TUNE_REF_NONE,
	TUNE_REF_KERNEL,  /* a kernel (the job's backend) taking the same arguments */
	TUNE_REF_C        /* a C function `int NAME(int nargs, void **args)` */
};

struct tune_reference {
	enum tune_ref_kind kind;
	const char *source;        /* KERNEL: source text; C: NULL */
	const char *c_path;        /* C: path of the .c file to compile and load */
	const char *name;          /* kernel or function name */
	const char *build_options; /* KERNEL only */
	int work_dim;
	size_t global[3], local[3];/* KERNEL only; local[0] == 0 means NULL */
	double rel_tol, abs_tol;   /* |x - ref| <= abs_tol + rel_tol * |ref| */
};

/*
 * The C reference ABI: args[i] points at the i-th kernel argument's host
 * data (scalars: one value of the declared type; buffers: the array,
 * inputs filled, outputs to be written; __local: NULL).  Returns 0 on
 * success.
 */
typedef int (*tune_c_reference_fn)(int nargs, void **args);

struct tune_metric {
	const char *name;      /* e.g. "GFLOPS" */
	double per_run;        /* amount per kernel run (flop or bytes) */
	enum { TUNE_METRIC_FLOP, TUNE_METRIC_BYTE, TUNE_METRIC_OTHER } unit;
};

/*
 * One kernel of a code of several kernels with sizes and arguments of
 * their own (several `kernel` lines, docs/TUNING.md): its launch geometry
 * and which of the variant's arguments it takes, in its parameter order.
 * A buffer in two steps' lists is one buffer: what the first writes the
 * second reads (the dependency).
 */
struct tune_step {
	int work_dim;
	size_t global[3], local[3]; /* local[0] == 0: let the driver choose */
	int nargs;
	const int *arg_index;       /* nargs indices into tune_variant.args */
};

struct tune_variant {
	/* Identity. */
	size_t point_index;         /* index in the job's list of valid points */
	int nparams;
	const char *const *param_names;
	const char *const *param_values; /* as text, e.g. "16", "0.5", "\"ab\"" */
	/* What to build. */
	const char *source;         /* the whole kernel source text */
	const char *source_hash;    /* hex hash of source (for the db and caches) */
	const char *kernel_name;        /* "a", or "a,b,c": kernels run in that order, each
	                                   with all the arguments and the sizes below */
	const char *build_options;  /* "-DNAME=VALUE ... " + the user's options */
	/* How to launch. */
	int work_dim;               /* 1..3 */
	size_t global[3];
	size_t local[3];            /* local[0] == 0: let the driver choose */
	/* Arguments in kernel order. */
	int nargs;
	const struct tune_arg *args;
	/* A code of several kernels with sizes and arguments of their own:
	 * one step per name of kernel_name, and `args` is every argument of
	 * every step, each buffer once (the C reference's list).  0: every
	 * kernel takes all of `args` and the sizes above. */
	int nsteps;
	const struct tune_step *steps;
	/* Derived throughput metrics. */
	int nmetrics;
	const struct tune_metric *metrics;
};

/* The names used in the database and messages: "int", "float", ... */
const char *tune_type_name(enum tune_type t);
size_t tune_type_size(enum tune_type t);

#endif
