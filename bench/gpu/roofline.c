/*
 * roofline.c - the measured roofline of the OpenCL GPU, and the bound it
 * puts on kernels/conv2d.cl.
 *
 *   roofline [--reps R] [--mib MIB] [--iters I] [--conv W H HFS]...
 *
 * Peak FP32: every work-item runs 16 independent chains of dependent FMAs
 * (a = fma(a, b, c); b and c are kernel arguments, so nothing folds);
 * 64 work-groups of 256 per compute unit: several waves of fully occupied
 * multiprocessors, with enough independent instructions per warp to hide
 * the FMA latency and fill every FP32 lane.  FLOP = 2 per FMA.
 *
 * Bandwidth: a float4 copy kernel over two MIB MiB buffers (default 1024,
 * far larger than any cache); bytes = read + written (STREAM's "copy").
 *
 * Both are the median of R runs (default 11) timed with profiling events,
 * after one warm-up.  For each --conv W H HFS (default 8192 4096 with HFS
 * 1, 3, 5) the convolution's roofline is printed:
 *   flop  = 2 * FS^2 * W * H
 *   bytes = 4 * ((W + 2 HFS)(H + 2 HFS) + W H + FS^2)   (compulsory traffic)
 *   bound = min(peak, bandwidth * flop / bytes)
 *
 * Build: gcc -O2 -std=c11 roofline.c clbench.c -lOpenCL -lm
 */
#define _POSIX_C_SOURCE 200809L
#include "clbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONV 8

static const char *const source =
	"__kernel void fma_peak(__global float *out, const float b, const float c,\n"
	"                       const int iters)\n"
	"{\n"
	"    float a[16];\n"
	"    #pragma unroll\n"
	"    for (int j = 0; j < 16; j++)\n"
	"        a[j] = (float)get_global_id(0) * 1e-9f + (float)j;\n"
	"    #pragma unroll 4\n"
	"    for (int i = 0; i < iters; i++) {\n"
	"        #pragma unroll\n"
	"        for (int j = 0; j < 16; j++)\n"
	"            a[j] = fma(a[j], b, c);\n"
	"    }\n"
	"    float s = 0.0f;\n"
	"    #pragma unroll\n"
	"    for (int j = 0; j < 16; j++)\n"
	"        s += a[j];\n"
	"    out[get_global_id(0)] = s;\n"
	"}\n"
	"__kernel void copy4(__global const float4 *restrict in, __global float4 *restrict out)\n"
	"{\n"
	"    out[get_global_id(0)] = in[get_global_id(0)];\n"
	"}\n";

/* Median kernel seconds of `reps` runs of k after one warm-up. */
static double time_kernel(struct clbench *cb, cl_kernel k, size_t global, size_t local, int reps)
{
	double *t = malloc((size_t)(reps + 1) * sizeof *t);
	if (!t) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (int r = 0; r <= reps; r++) {
		cl_event ev;
		clbench_check(clEnqueueNDRangeKernel(cb->queue, k, 1, NULL, &global, &local, 0, NULL, &ev),
		              "clEnqueueNDRangeKernel");
		clbench_check(clWaitForEvents(1, &ev), "clWaitForEvents");
		t[r] = clbench_event_s(ev);
		clReleaseEvent(ev);
	}
	double m = clbench_median(t + 1, reps); /* t[0] is the warm-up */
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	int reps = 11, iters = 4096;
	long mib = 1024;
	long conv[MAX_CONV][3];
	int nconv = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc)
			mib = atol(argv[++i]);
		else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (strcmp(argv[i], "--conv") == 0 && i + 3 < argc && nconv < MAX_CONV) {
			for (int j = 0; j < 3; j++)
				conv[nconv][j] = atol(argv[++i]);
			nconv++;
		} else {
			fprintf(stderr, "usage: %s [--reps R] [--mib MIB] [--iters I] [--conv W H HFS]...\n",
			        argv[0]);
			return 2;
		}
	}
	if (reps < 1 || mib < 1 || iters < 1) {
		fprintf(stderr, "--reps, --mib and --iters must be positive\n");
		return 2;
	}
	if (nconv == 0)
		for (long h = 1; h <= 5; h += 2, nconv++) {
			conv[nconv][0] = 8192;
			conv[nconv][1] = 4096;
			conv[nconv][2] = h;
		}

	struct clbench cb;
	clbench_open(&cb);
	cl_uint cus = 0;
	clGetDeviceInfo(cb.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
	cl_uint mhz = 0;
	clGetDeviceInfo(cb.device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
	cl_int err;

	/* Peak FP32. */
	cl_kernel kf = clbench_kernel(&cb, source, "-cl-mad-enable", "fma_peak");
	const size_t local = 256, global = (size_t)cus * 64 * local;
	cl_mem out = clCreateBuffer(cb.context, CL_MEM_WRITE_ONLY, global * sizeof(float), NULL, &err);
	clbench_check(err, "clCreateBuffer");
	const float b = 0.999999f, c = 1e-6f;
	clbench_check(clSetKernelArg(kf, 0, sizeof out, &out), "arg");
	clbench_check(clSetKernelArg(kf, 1, sizeof b, &b), "arg");
	clbench_check(clSetKernelArg(kf, 2, sizeof c, &c), "arg");
	clbench_check(clSetKernelArg(kf, 3, sizeof iters, &iters), "arg");
	const double tf = time_kernel(&cb, kf, global, local, reps);
	const double peak = 2.0 * 16 * (double)iters * (double)global / tf;
	printf("peak_fp32  %8.3f ms  %10.1f GFLOP/s  (%u compute units, %u MHz max clock, "
	       "%zu work-items x %d x 16 FMAs)\n",
	       tf * 1e3, peak * 1e-9, cus, mhz, global, iters);

	/* Bandwidth. */
	cl_kernel kc = clbench_kernel(&cb, source, "", "copy4");
	const size_t bytes = (size_t)mib << 20, n4 = bytes / 16;
	cl_mem src = clCreateBuffer(cb.context, CL_MEM_READ_ONLY, bytes, NULL, &err);
	clbench_check(err, "clCreateBuffer");
	cl_mem dst = clCreateBuffer(cb.context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
	clbench_check(err, "clCreateBuffer");
	const float zero = 0;
	clbench_check(clEnqueueFillBuffer(cb.queue, src, &zero, sizeof zero, 0, bytes, 0, NULL, NULL),
	              "fill");
	clbench_check(clSetKernelArg(kc, 0, sizeof src, &src), "arg");
	clbench_check(clSetKernelArg(kc, 1, sizeof dst, &dst), "arg");
	const double tc = time_kernel(&cb, kc, n4, 256, reps);
	const double bw = 2.0 * (double)bytes / tc;
	printf("copy_bw    %8.3f ms  %10.1f GB/s     (2 x %ld MiB moved)\n", tc * 1e3, bw * 1e-9,
	       mib);

	printf("# conv2d roofline   W     H  FS      GFLOP    MB  flop/B  compute_GF/s  memory_GF/s"
	       "  bound_GF/s\n");
	for (int i = 0; i < nconv; i++) {
		const double w = (double)conv[i][0], h = (double)conv[i][1], hfs = (double)conv[i][2];
		const double fs = 2 * hfs + 1;
		const double flop = 2 * fs * fs * w * h;
		const double moved = 4 * ((w + 2 * hfs) * (h + 2 * hfs) + w * h + fs * fs);
		const double mem_bound = bw * flop / moved;
		printf("conv2d_roof %5.0f %5.0f %3.0f %10.3f %5.0f %7.2f %13.1f %12.1f %11.1f\n", w, h, fs,
		       flop * 1e-9, moved * 1e-6, flop / moved, peak * 1e-9, mem_bound * 1e-9,
		       (mem_bound < peak ? mem_bound : peak) * 1e-9);
	}
	clReleaseMemObject(out);
	clReleaseMemObject(src);
	clReleaseMemObject(dst);
	clReleaseKernel(kf);
	clReleaseKernel(kc);
	clbench_close(&cb);
	return 0;
}
