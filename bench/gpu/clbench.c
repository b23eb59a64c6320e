/* clbench.c - see clbench.h. */
#define _POSIX_C_SOURCE 200809L
#include "clbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void clbench_check(cl_int err, const char *what)
{
	if (err != CL_SUCCESS) {
		fprintf(stderr, "%s: OpenCL error %d\n", what, (int)err);
		exit(1);
	}
}

static int pick(struct clbench *cb, const char *want_p, const char *want_d)
{
	cl_platform_id plats[16];
	cl_uint np = 0;
	if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS)
		return -1;
	/* Pass 0 looks for a GPU, pass 1 (or an explicit choice) for anything. */
	for (int pass = (want_p || want_d) ? 1 : 0; pass < 2; pass++)
		for (cl_uint p = 0; p < np; p++) {
			if (want_p && (cl_uint)atoi(want_p) != p)
				continue;
			cl_device_id devs[16];
			cl_uint nd = 0;
			cl_device_type t = pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
			if (clGetDeviceIDs(plats[p], t, 16, devs, &nd) != CL_SUCCESS)
				continue;
			cl_uint d = want_d ? (cl_uint)atoi(want_d) : 0;
			if (d >= nd)
				continue;
			cb->platform = plats[p];
			cb->device = devs[d];
			return 0;
		}
	return -1;
}

void clbench_open(struct clbench *cb)
{
	memset(cb, 0, sizeof *cb);
	if (pick(cb, getenv("CLBENCH_PLATFORM"), getenv("CLBENCH_DEVICE")) != 0) {
		fprintf(stderr, "no OpenCL device found\n");
		exit(1);
	}
	cl_int err;
	cb->context = clCreateContext(NULL, 1, &cb->device, NULL, NULL, &err);
	clbench_check(err, "clCreateContext");
	cb->queue = clCreateCommandQueue(cb->context, cb->device, CL_QUEUE_PROFILING_ENABLE, &err);
	clbench_check(err, "clCreateCommandQueue");
	clGetDeviceInfo(cb->device, CL_DEVICE_NAME, sizeof cb->device_name, cb->device_name, NULL);
	clGetPlatformInfo(cb->platform, CL_PLATFORM_NAME, sizeof cb->platform_name,
	                  cb->platform_name, NULL);
	clGetDeviceInfo(cb->device, CL_DRIVER_VERSION, sizeof cb->driver, cb->driver, NULL);
	printf("# device: %s (%s, driver %s)\n", cb->device_name, cb->platform_name, cb->driver);
}

void clbench_close(struct clbench *cb)
{
	clReleaseCommandQueue(cb->queue);
	clReleaseContext(cb->context);
}

cl_kernel clbench_kernel(struct clbench *cb, const char *source, const char *options,
                         const char *name)
{
	cl_int err;
	cl_program prog = clCreateProgramWithSource(cb->context, 1, &source, NULL, &err);
	clbench_check(err, "clCreateProgramWithSource");
	err = clBuildProgram(prog, 1, &cb->device, options, NULL, NULL);
	if (err != CL_SUCCESS) {
		static char log[1 << 16];
		clGetProgramBuildInfo(prog, cb->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
		                      NULL);
		fprintf(stderr, "build of '%s' failed:\n%s\n", name, log);
		exit(1);
	}
	cl_kernel k = clCreateKernel(prog, name, &err);
	clbench_check(err, "clCreateKernel");
	clReleaseProgram(prog); /* the kernel holds it */
	return k;
}

double clbench_event_s(cl_event ev)
{
	cl_ulong t0 = 0, t1 = 0;
	clbench_check(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL),
	              "profiling start");
	clbench_check(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL),
	              "profiling end");
	return (double)(t1 - t0) * 1e-9;
}

double clbench_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double clbench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

void clbench_seed(uint64_t s)
{
	rng_state = s ? s : 1;
}

double clbench_uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}
