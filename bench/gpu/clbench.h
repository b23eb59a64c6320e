/*
 * clbench.h - what the OpenCL comparison programs in bench/gpu/ share:
 * picking the device, deterministic inputs, medians, error exits.
 *
 * Device choice: the first GPU of any platform (the lent machines list
 * PoCL's CPU device too), or CLBENCH_PLATFORM / CLBENCH_DEVICE (indices)
 * from the environment.  Every failure prints "what: CL error code" and
 * exits 1: these are benchmark drivers, not libraries.
 */
#ifndef SPACEC_BENCH_GPU_CLBENCH_H
#define SPACEC_BENCH_GPU_CLBENCH_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

struct clbench {
	cl_platform_id platform;
	cl_device_id device;
	cl_context context;
	cl_command_queue queue;      /* in order, with profiling */
	char device_name[256], platform_name[256], driver[128];
};

/* Opens the device; prints a "# device: ..." line to stdout. */
void clbench_open(struct clbench *cb);
void clbench_close(struct clbench *cb);

/* Exits with a message when err != CL_SUCCESS. */
void clbench_check(cl_int err, const char *what);

/* Builds `source` and returns kernel `name` (build log on failure). */
cl_kernel clbench_kernel(struct clbench *cb, const char *source, const char *options,
                         const char *name);

/* Seconds between an event's start and end (profiling). */
double clbench_event_s(cl_event ev);

/* Monotonic wall clock, seconds. */
double clbench_now_s(void);

/* Median of n values (sorts them in place); n >= 1. */
double clbench_median(double *v, int n);

/* Deterministic uniform [-1, 1) (xorshift64*), the same as run_kernels. */
void clbench_seed(uint64_t s);
double clbench_uniform(void);

#endif
