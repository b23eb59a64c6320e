/*
 * job.h - a tuning job: a .space file with a `tune:` section, loaded,
 * enumerated and evaluated point by point.  Owner: tuner/job.c.
 *
 * Loading parses and checks the file (diagnostics in spacec's format),
 * binds `device NAME = query("...", DEFAULT)` parameters through the
 * caller's query hook, applies --set overrides, enumerates every valid
 * point into memory (the compiled enumerator, as spacec runs it), and
 * prepares the kernel source, argument layout, reference and metrics.
 * tune_job_variant() then evaluates the tune section's expressions
 * (defines, global/local sizes, scalar arguments, metrics) at one point.
 */
#ifndef SPACEC_TUNER_JOB_H
#define SPACEC_TUNER_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tuner/variant.h"

struct tune_job;
struct spacec_options;

/* Answers one device query; 0 and *value set, 1 if the device lacks it
 * (the file's default is used), -1 on failure. */
typedef int (*tune_query_fn)(void *user, const char *query, int64_t *value);

struct tune_job_opts {
	const char *space_path;
	int nsets;
	const char *const *sets;    /* "NAME=VALUE" (--set), applied after queries */
	tune_query_fn query;        /* NULL: every query takes its default */
	void *query_user;
	/* Called once, before any query, with the path of the kernel line's
	 * first source file (the backend follows its extension): 0 to go on,
	 * else the load fails (the hook has said why).  NULL: none. */
	int (*kernel_file)(void *user, const char *path);
	FILE *diag;                 /* diagnostics; NULL: stderr */
	/* How the space's enumerator is built: -O level, -f switches, --jit
	 * (lib/spacec.h).  NULL: the defaults (-O2, auto). */
	const struct spacec_options *compiler;
	bool interpret;             /* enumerate with the reference interpreter */
};

/*
 * 0 on success; 1 on a user error (already diagnosed to o->diag: a bad
 * file, a missing .cl, a space without a tune section, an empty space);
 * -1 on allocation failure.
 */
int tune_job_load(const struct tune_job_opts *o, struct tune_job **out);
void tune_job_free(struct tune_job *job);

/* The space. */
size_t tune_job_npoints(const struct tune_job *job);
int tune_job_nparams(const struct tune_job *job);            /* the iterators */
const char *tune_job_param_name(const struct tune_job *job, int p);
/* Numeric value of parameter p at point i (strings: their index), and
 * the sorted distinct values of parameter p (for neighbourhoods in the
 * search strategies). */
double tune_job_point_value(const struct tune_job *job, size_t i, int p);
int tune_job_param_values(const struct tune_job *job, int p, const double **values);
/* Index of the point with exactly these parameter values, or -1. */
long tune_job_find_point(const struct tune_job *job, const double *values);
/* The job's space as the strategies see it (tuner/strategy.h), through
 * the three functions above. */
struct tune_space;
void tune_job_space(struct tune_job *job, struct tune_space *out);

/*
 * The kernel's `#pragma spacetune` annotations as levels of the
 * breadth-first search (strategy.h), in source order: each annotation's
 * parameters, with its own `tolerance`/`number` when it has either.
 * Returns the count (0 without annotations), or -1 on allocation failure;
 * *out is one malloc'd block (free() it).
 */
struct tune_stage;
int tune_job_stages(const struct tune_job *job, struct tune_stage **out);

/* What every variant shares. */
const char *tune_job_name(const struct tune_job *job);        /* the space's name */
const char *tune_job_kernel_name(const struct tune_job *job);
const char *tune_job_source_hash(const struct tune_job *job); /* hash of sources + options */
const struct tune_reference *tune_job_reference(const struct tune_job *job);
/* How the points were enumerated: "cc", "cc (cached)", "tcc" (the
 * compiled enumerator, see tools/jit.h) or "interpreter" (asked for, or
 * the compiled path could not be built). */
const char *tune_job_enumerator(const struct tune_job *job);

/*
 * Evaluates the tune section at point i into *v (valid until the next
 * call or tune_job_free).  Returns 0, or 1 if the point cannot be
 * launched as written (e.g. a global size not divisible by the local
 * size, a non-positive size): *why then says so (static or owned by job).
 */
int tune_job_variant(struct tune_job *job, size_t i, struct tune_variant *v, const char **why);

#endif
