/*
 * compile.h - `spacetune compile`: build a sample of a space's variants
 * (and its reference kernel) without a device, to check that every point
 * compiles where no GPU is at hand (CI).  Owner: tuner/compile.c.
 *
 * The job is loaded as spacetune run loads it, but every `query(...)`
 * keeps its default (or its --set value): there is no device to ask.
 * Only backends with an offline compiler can do this (tuner/device.h:
 * compile_offline; CUDA's NVRTC).
 */
#ifndef SPACEC_TUNER_COMPILE_H
#define SPACEC_TUNER_COMPILE_H

#include <stddef.h>
#include <stdio.h>

struct tune_compile_opts {
	const char *space_path;
	const char *backend;        /* NULL: from the kernel file */
	const char *target;         /* e.g. "sm_90" */
	size_t sample;              /* at most this many points, evenly spread; 0: all */
	int nsets;
	const char *const *sets;
	FILE *out, *err;
};

/* 0 when every variant built; 1 when one did not or on an error (reported). */
int tune_compile(const struct tune_compile_opts *o);

#endif
