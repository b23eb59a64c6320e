/*
 * kopt.h - the kernel optimizer: `#pragma spacetune` annotations in an
 * OpenCL C kernel become parameters of the search space, and each point
 * of the space gets its own transformed kernel source.  Owner:
 * optimizer/kopt.c.  The annotations are documented in docs/TUNING.md
 * ("Kernel annotations"); how they reach the space in ARCHITECTURE.md.
 *
 * The kernel is parsed by libclang (its C API, OpenCL C 1.2 with clang's
 * builtin declarations), flattened into a plain tree, and the
 * translation unit is dropped: everything after kopt_load() is string
 * work on byte ranges of the original text, so a variant costs
 * microseconds and kopt_apply() never calls clang.
 *
 * Data flow:
 *
 *   kopt_load(.cl text)      parse, find the pragmas, prove each legal or
 *                            report file.cl:LINE:COL: error: ... (exit 1)
 *   kopt_space()             the parameters as .space text: one list
 *                            iterator per parameter, and `require` lines
 *                            that follow from the code; the job loader
 *                            appends it to the .space file before parsing
 *   kopt_apply(point)        per variant: the transformed source, and the
 *                            launch geometry rewritten (work per item
 *                            divides the global size; local caching sets
 *                            the work-group size)
 *
 * Typical use (tuner/job.c does exactly this):
 *
 *	struct kopt *k;
 *	struct kopt_input in = { .filename = "k.cl", .source = text, .len = n,
 *				 .kernel = "mykernel", .diag = stderr };
 *	if (kopt_load(&in, &k) != 0)
 *		return 1;                      // diagnostics already printed
 *	fputs(kopt_space(k), space_text);      // parameters -> the space
 *	...
 *	struct kopt_variant v = { .nparams = n, .names = names, .values = vals,
 *				  .work_dim = 2, .global = {1024, 1024} };
 *	char *src = NULL;
 *	if (kopt_apply(k, &v, &src, why, sizeof(why)) != 0)
 *		skip the point, `why` says why;
 *	build src with v.global / v.local (rewritten in place);
 *	free(src);
 *	kopt_free(k);
 *
 * The pragma list (kopt_npragmas ...) is for strategies that treat one
 * annotation at a time (OCLoptimizer's breadth-first search): each pragma
 * names its parameters and carries its `tolerance` and `number`.
 */
#ifndef SPACEC_OPTIMIZER_KOPT_H
#define SPACEC_OPTIMIZER_KOPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kopt;

struct kopt_input {
	const char *filename;  /* for diagnostics (file.cl:line:col) */
	const char *source;    /* the kernel source text */
	size_t len;
	const char *kernel;    /* the __kernel the kernel-level pragmas apply to; NULL: any */
	FILE *diag;            /* diagnostics; NULL: stderr */
};

/* True when the text has at least one `#pragma spacetune` line (cheap; no parse). */
int kopt_has_pragmas(const char *source, size_t len);

/*
 * Parses and checks.  0 on success; 1 on a user error (each one reported
 * to in->diag as `file.cl:line:col: error: ...` with the source line and
 * a caret: a syntax error in a pragma, a pragma on no loop, an annotation
 * the optimizer cannot prove legal, an OpenCL C error found by clang);
 * -1 if libclang could not run at all.
 */
int kopt_load(const struct kopt_input *in, struct kopt **out);
void kopt_free(struct kopt *k);

/* The parameters and constraints as .space statements (owned by k). */
const char *kopt_space(const struct kopt *k);

/* The annotations, in source order. */
enum kopt_kind {
	KOPT_UNROLL,      /* on a for loop: unroll by a factor, remainder loop */
	KOPT_UNROLL_JAM,  /* on an outer for loop: unroll it, fuse the copies of its inner loop */
	KOPT_VECTOR,      /* on a for loop over contiguous elements: vloadN/vstoreN of width W */
	KOPT_COARSEN,     /* on a kernel: each work-item does F (Fx x Fy) items of the NDRange */
	KOPT_LOCAL,       /* on a kernel: a read-only __global array tiled into __local memory */
	KOPT_TILE,        /* on a reduction loop: its read-only arrays' rows or columns staged
	                     in __local memory, T iterations at a time */
	KOPT_VLOAD        /* on a kernel with `coarsen ... jam`: its items along dimension 0 in
	                     runs of W consecutive ones, an array's reads by a run one vloadW */
};
int kopt_npragmas(const struct kopt *k);
enum kopt_kind kopt_pragma_kind(const struct kopt *k, int i);
int kopt_pragma_line(const struct kopt *k, int i);
/* Its parameters (1, or 2 for a 2-D coarsening or work-group). */
int kopt_pragma_nparams(const struct kopt *k, int i);
const char *kopt_pragma_param(const struct kopt *k, int i, int p);
/* `tolerance T` (percent; < 0 when absent) and `number N` (0 when absent). */
double kopt_pragma_tolerance(const struct kopt *k, int i);
int kopt_pragma_number(const struct kopt *k, int i);

/* One point: the parameter values, and the launch geometry to rewrite. */
struct kopt_variant {
	int nparams;
	const char *const *names;   /* parameter names (at least every pragma parameter) */
	const char *const *values;  /* their values as text ("4") */
	int work_dim;               /* in/out */
	size_t global[3];           /* in/out: the NDRange as the tune: section gives it */
	size_t local[3];            /* in/out: local[0] == 0 means the driver chooses */
	int nargs;                  /* the kernel's arguments, in order ... */
	const uint64_t *arg_counts; /* ... elements of each buffer (0 for scalars); for local caching */
};

/*
 * The source for one point, malloc'd into *source (the caller frees it),
 * and v's geometry rewritten.  0 on success; 1 when the point cannot be
 * built (a value missing or out of the pragma's domain): why[] says so.
 */
int kopt_apply(const struct kopt *k, struct kopt_variant *v, char **source, char *why, size_t whylen);

#endif
