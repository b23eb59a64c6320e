/*
 * conv2d_brute.c - brute-force count of CLTune's 2D convolution space
 *
 * Written from CLTune's sample samples/conv/conv.cc (the tuner set-up the
 * paper's Section V ran: C. Nugteren, V. Codreanu, "CLTune: A Generic
 * Auto-Tuner for OpenCL Kernels", MCSoC 2015) and from CLTune's own
 * validity checks; it reads no .space file and shares no code with spacec.
 *
 * It does what CLTune's KernelInfo::PopulateConfigurations does: walk every
 * combination of the parameters in the order conv.cc adds them (TBX, TBY,
 * LOCAL, WPTX, WPTY, VECTOR, UNROLL_FACTOR, PADDING, and the helpers TBX_XL,
 * TBY_XL), keep it when every AddConstraint function returns true, then
 * (KernelInfo::ValidConfiguration) when the local size MulLocalSize(TBX_XL,
 * TBY_XL) passes Device::IsThreadConfigValid and the SetLocalMemoryUsage
 * amount passes Device::IsLocalMemoryValid.
 *
 * Usage:
 *   conv2d_brute [--table-ii-vw] [--set NAME=VALUE]...
 *     --table-ii-vw  VECTOR {1,2,4,8} as the paper's Table II prints it,
 *                    instead of conv.cc's {1,2,4}
 *     NAME: max_work_group_size, max_work_item_size_x, max_work_item_size_y,
 *           local_mem_size (default: the paper's Tesla K40m, 1024 work-items
 *           per group and per dimension, 48 KiB of local memory)
 *
 * Prints the number of valid configurations on stdout, a summary on stderr.
 */

#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t u64;	/* conv.cc computes in size_t */

/* conv.cc: #define HFS (3), #define FS (HFS+HFS+1) */
#define HFS 3
#define FS (HFS + HFS + 1)

struct device {
	u64 max_work_group_size;	/* CL_DEVICE_MAX_WORK_GROUP_SIZE */
	u64 max_work_item_sizes[2];	/* CL_DEVICE_MAX_WORK_ITEM_SIZES[0..1] */
	u64 local_mem_size;		/* CL_DEVICE_LOCAL_MEM_SIZE */
};

/* conv.cc's helpers */
static u64 ceil_div(u64 a, u64 b)
{
	return (a + b - 1) / b;
}

static int is_multiple(u64 a, u64 b)
{
	return (a / b) * b == a;
}

/* conv.cc's constraint lambdas, with their argument lists */
static int halo_threads(u64 local, u64 tb_xl, u64 tb, u64 wpt)	/* {"LOCAL", "TBX_XL", "TBX", "WPTX"} */
{
	if (local == 2)
		return tb_xl == tb + ceil_div(2 * HFS, wpt);
	return tb_xl == tb;
}

static int vector_constraint(u64 local, u64 vector, u64 wptx)	/* {"LOCAL", "VECTOR", "WPTX"} */
{
	if (local == 2)
		return is_multiple(wptx, vector) && is_multiple(2 * HFS, vector);
	return is_multiple(wptx, vector);
}

static int padding_constraint(u64 local, u64 padding)		/* {"LOCAL", "PADDING"} */
{
	return padding == 0 || local != 0;
}

/* conv.cc LocalMemorySize: {"LOCAL", "TBX", "WPTX", "TBY", "WPTY", "PADDING"} */
static u64 local_memory_size(u64 local, u64 tbx, u64 wptx, u64 tby, u64 wpty, u64 padding)
{
	if (local != 0)
		return ((tby * wpty + 2 * HFS) * (tbx * wptx + 2 * HFS + padding)) * sizeof(float);
	return 0;
}

/* Device::IsThreadConfigValid on a two-dimensional local size */
static int thread_config_valid(const struct device *dev, u64 local_x, u64 local_y)
{
	if (local_x > dev->max_work_item_sizes[0] || local_y > dev->max_work_item_sizes[1])
		return 0;
	return local_x * local_y <= dev->max_work_group_size;
}

int main(int argc, char **argv)
{
	static const u64 tb_values[] = { 8, 16, 32, 64 };		/* TBX, TBY */
	static const u64 local_values[] = { 0, 1, 2 };			/* LOCAL */
	static const u64 wpt_values[] = { 1, 2, 4, 8 };			/* WPTX, WPTY */
	static const u64 vector_values[] = { 1, 2, 4, 8 };		/* VECTOR: conv.cc stops at 4 */
	static const u64 unroll_values[] = { 1, FS };			/* UNROLL_FACTOR */
	static const u64 padding_values[] = { 0, 1 };			/* PADDING */
	/* conv.cc's "integers", the values of TBX_XL and TBY_XL */
	static const u64 xl_values[] = {
		8, 9, 10, 11, 12, 13, 14, 15,
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
		32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
		64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74,
	};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
	struct device dev = { 1024, { 1024, 1024 }, 49152 };
	size_t n_vector = 3;
	size_t a, b, c, d, e, f, g, h, x, y;
	u64 valid = 0, walked = 0;
	struct timespec t0, t1;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--table-ii-vw")) {
			n_vector = COUNT(vector_values);
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			const char *arg = argv[++i], *eq = strchr(arg, '=');
			u64 *target = NULL;
			char *end;

			if (eq && !strncmp(arg, "max_work_group_size=", (size_t)(eq - arg) + 1))
				target = &dev.max_work_group_size;
			else if (eq && !strncmp(arg, "max_work_item_size_x=", (size_t)(eq - arg) + 1))
				target = &dev.max_work_item_sizes[0];
			else if (eq && !strncmp(arg, "max_work_item_size_y=", (size_t)(eq - arg) + 1))
				target = &dev.max_work_item_sizes[1];
			else if (eq && !strncmp(arg, "local_mem_size=", (size_t)(eq - arg) + 1))
				target = &dev.local_mem_size;
			if (!target || !eq[1] || eq[1] == '-') {
				fprintf(stderr, "conv2d_brute: bad --set '%s'\n", arg);
				return 2;
			}
			*target = strtoull(eq + 1, &end, 10);
			if (*end) {
				fprintf(stderr, "conv2d_brute: bad --set '%s'\n", arg);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: %s [--table-ii-vw] [--set NAME=VALUE]...\n", argv[0]);
			return 2;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (a = 0; a < COUNT(tb_values); a++)
	for (b = 0; b < COUNT(tb_values); b++)
	for (c = 0; c < COUNT(local_values); c++)
	for (d = 0; d < COUNT(wpt_values); d++)
	for (e = 0; e < COUNT(wpt_values); e++)
	for (f = 0; f < n_vector; f++)
	for (g = 0; g < COUNT(unroll_values); g++)
	for (h = 0; h < COUNT(padding_values); h++)
	for (x = 0; x < COUNT(xl_values); x++)
	for (y = 0; y < COUNT(xl_values); y++) {
		u64 tbx = tb_values[a], tby = tb_values[b], local = local_values[c];
		u64 wptx = wpt_values[d], wpty = wpt_values[e], vector = vector_values[f];
		u64 padding = padding_values[h];
		u64 tbx_xl = xl_values[x], tby_xl = xl_values[y];

		walked++;
		/* the AddConstraint functions, in conv.cc's order */
		if (!halo_threads(local, tbx_xl, tbx, wptx) || !halo_threads(local, tby_xl, tby, wpty))
			continue;
		if (!vector_constraint(local, vector, wptx))
			continue;
		if (!padding_constraint(local, padding))
			continue;
		/* MulLocalSize(TBX_XL, TBY_XL) on a base local size of {1, 1} */
		if (!thread_config_valid(&dev, 1 * tbx_xl, 1 * tby_xl))
			continue;
		if (local_memory_size(local, tbx, wptx, tby, wpty, padding) > dev.local_mem_size)
			continue;
		valid++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("%" PRIu64 "\n", valid);
	fprintf(stderr, "VECTOR %s; max_work_group_size %" PRIu64 ", max_work_item_sizes %" PRIu64
		" x %" PRIu64 ", local_mem_size %" PRIu64 "\n",
		n_vector == 3 ? "{1,2,4} (conv.cc)" : "{1,2,4,8} (Table II)",
		dev.max_work_group_size, dev.max_work_item_sizes[0], dev.max_work_item_sizes[1],
		dev.local_mem_size);
	fprintf(stderr, "valid configurations: %" PRIu64 " of %" PRIu64 " walked\n", valid, walked);
	fprintf(stderr, "time: %.3f s\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return 0;
}
