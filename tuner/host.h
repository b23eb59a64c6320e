/*
 * host.h - `spacetune best --host OUT.c --source OUT.cl`: the best
 * configuration as a standalone OpenCL program and as the kernel source
 * with its tuned defines written in.  Owner: tuner/host.c.
 *
 * The database line of the best configuration names its parameters, but
 * not the arguments, buffer sizes or initial data: those come from the
 * .space file's tune section.  So the job is loaded again (with the
 * problem's --set bindings the line records, and the device queries of
 * the device it names when that device is present here), the point with
 * the line's parameter values is found in it, and the tune section is
 * evaluated there (tuner/job.h), exactly as `spacetune run` did.
 *
 * The program (OUT.c) embeds the source, builds it with the tuned
 * options that are not defines, sets every argument, launches with the
 * tuned global and local sizes, reads the outputs back and checks every
 * OpenCL call.  It compiles with -Wall -Wextra -Werror and links with
 * -lOpenCL.  `./prog -o DIR` also writes each argument (DIR/args.txt, and
 * DIR/NAME.in and DIR/NAME.out for buffers) so that a test can run the
 * C reference on exactly the same inputs.
 */
#ifndef SPACEC_TUNER_HOST_H
#define SPACEC_TUNER_HOST_H

#include <stdio.h>

#include "tuner/variant.h"

struct json_object;

struct tune_host_opts {
	const char *space_path;           /* the .space file that was tuned */
	struct json_object *best;         /* the best configuration's database line */
	const char *db_path;              /* for the generated comments */
	const char *host_path;            /* NULL: no program */
	const char *source_path;          /* NULL: no source */
	FILE *err;
};

/* 0, or 1 on an error (reported on err). */
int tune_host_emit(const struct tune_host_opts *o);

/*
 * The texts themselves, from a variant (caller frees *text): the kernel
 * source with the variant's defines written as #define lines, and the
 * program.  `about` is a one-paragraph comment body (where it came from).
 * 0, or 1 with *bad (caller frees) naming what cannot be written.
 */
int tune_host_source_text(const struct tune_variant *v, const char *about, char **text, char **bad);
int tune_host_program_text(const struct tune_variant *v, const char *about, const char *source_name,
                           char **text, char **bad);

#endif
