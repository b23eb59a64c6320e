/*
 * ocl.h - the thin OpenCL layer under the evaluator (tuner/ocl.c):
 * platform/device selection, device queries by spacec's names, a context
 * with a profiling queue, and OpenCL error names.
 *
 * Everything here calls OpenCL in the calling process.  The evaluator's
 * callers never do (see eval.h: listing and queries run in a child), so
 * forking workers from them stays safe: OpenCL drivers keep threads and
 * locks that do not survive fork().
 */
#ifndef SPACEC_TUNER_OCL_H
#define SPACEC_TUNER_OCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>

#include "tuner/eval.h"

/* "CL_INVALID_WORK_GROUP_SIZE", ...; "CL_UNKNOWN_ERROR" for codes not in the table. */
const char *ocl_error_name(cl_int err);

struct ocl_device {
	cl_platform_id platform;
	cl_device_id device;
	struct tune_device_info info;
};

/*
 * Picks a device: platform and device by index (all digits) or by a
 * case-insensitive substring of the name.  With neither given, the first
 * GPU of any platform, else the first device.  0, or -1 with *err.
 */
int ocl_select(const struct tune_device_sel *sel, struct ocl_device *out, char **err);

/* One query by spacec's name (eval.h lists them): 0, 1 (lacks it), -1 (unknown name). */
int ocl_query(cl_device_id dev, const char *query, int64_t *value);

/* The query names: ocl_query_name(0 .. ocl_query_count() - 1). */
int ocl_query_count(void);
const char *ocl_query_name(int i);

/* Every GPU of every platform as (platform index, device index), at most max; returns the count. */
int ocl_gpus(int (*out)[2], int max);

/* Writes the listing of `spacetune devices`; returns the device count or -1. */
int ocl_list(FILE *out);

/* A context and an in-order queue with profiling on one device. */
struct ocl_context {
	cl_context context;
	cl_command_queue queue;
};
int ocl_context_open(struct ocl_context *c, const struct ocl_device *d, char **err);
void ocl_context_close(struct ocl_context *c);

#endif
