/*
 * conv2d_brute.c - independent brute-force count of spaces/conv2d_cltune.space
 *
 * Written by hand from CLTune's samples/conv/conv.cc and its device checks
 * (KernelInfo::ValidConfiguration); shares no code with spacec.  Plain
 * nested loops over the eight tuning parameters.  Unlike conv.cc, the
 * helper parameters TBX_XL / TBY_XL are walked too (--with-helpers) to show
 * that folding them into derived variables, as the .space file does, loses
 * no point and adds none.
 *
 * Semantics: 64-bit ints, Python '//' and '%' (all operands are positive
 * here, and no divisor can be zero).  Constraints use Kernel Tuner polarity:
 * a point is valid when every 'require' holds.
 *
 * Usage:
 *   conv2d_brute [--with-helpers] [--set NAME=VALUE]...
 *     NAME: max_work_group_size, max_work_item_size_x, max_work_item_size_y,
 *           local_mem_size (0 or less: no local-memory limit)
 *
 * Build: gcc -O2 -Wall -Wextra -o conv2d_brute conv2d_brute.c
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int64_t i64;

static i64 max_work_group_size = 1024;
static i64 max_work_item_size_x = 1024;
static i64 max_work_item_size_y = 1024;
static i64 local_mem_size = 49152;

#define HFS 3
#define FLOAT_SIZE 4

static i64 ceildiv(i64 a, i64 b)
{
	return (a + b - 1) / b;
}

static i64 valid_config(i64 xwg, i64 ywg, i64 xwpt, i64 ywpt, i64 local, i64 vw,
			i64 pad, i64 xwg_xl, i64 ywg_xl)
{
	i64 lmem = 0;

	/* conv.cc VectorConstraint */
	if (xwpt % vw != 0)
		return 0;
	if (local == 2 && (2 * HFS) % vw != 0)
		return 0;
	/* conv.cc PaddingConstraint: PADDING == 0 || LOCAL != 0 */
	if (!(pad == 0 || local != 0))
		return 0;
	/* Device::IsThreadConfigValid on the local size (TBX_XL, TBY_XL) */
	if (xwg_xl * ywg_xl > max_work_group_size)
		return 0;
	if (xwg_xl > max_work_item_size_x || ywg_xl > max_work_item_size_y)
		return 0;
	/* conv.cc LocalMemorySize, Device::IsLocalMemoryValid */
	if (local != 0)
		lmem = (ywg * ywpt + 2 * HFS) * (xwg * xwpt + 2 * HFS + pad) * FLOAT_SIZE;
	if (local_mem_size > 0 && lmem > local_mem_size)
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static const i64 wg[] = { 8, 16, 32, 64 };
	static const i64 wpt[] = { 1, 2, 4, 8 };
	static const i64 vws[] = { 1, 2, 4, 8 };
	/* conv.cc's value list for TBX_XL and TBY_XL */
	static const i64 xl[] = {
		8, 9, 10, 11, 12, 13, 14, 15,
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
		32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
		64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74,
	};
	const int nxl = (int)(sizeof(xl) / sizeof(xl[0]));
	int helpers = 0, i;
	int a, b, c, d, local, v, pad, unr;
	i64 count = 0, total = 0;
	struct timespec t0, t1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--with-helpers")) {
			helpers = 1;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			const char *s = argv[++i], *eq = strchr(s, '=');
			i64 *dst = NULL;

			if (eq && !strncmp(s, "max_work_group_size=", (size_t)(eq - s) + 1))
				dst = &max_work_group_size;
			else if (eq && !strncmp(s, "max_work_item_size_x=", (size_t)(eq - s) + 1))
				dst = &max_work_item_size_x;
			else if (eq && !strncmp(s, "max_work_item_size_y=", (size_t)(eq - s) + 1))
				dst = &max_work_item_size_y;
			else if (eq && !strncmp(s, "local_mem_size=", (size_t)(eq - s) + 1))
				dst = &local_mem_size;
			if (!dst) {
				fprintf(stderr, "conv2d_brute: bad --set '%s'\n", s);
				return 2;
			}
			*dst = strtoll(eq + 1, NULL, 10);
		} else {
			fprintf(stderr, "usage: %s [--with-helpers] [--set NAME=VALUE]...\n", argv[0]);
			return 2;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (a = 0; a < 4; a++)			/* Xwg */
	for (b = 0; b < 4; b++)			/* Ywg */
	for (c = 0; c < 4; c++)			/* Xwpt */
	for (d = 0; d < 4; d++)			/* Ywpt */
	for (local = 0; local < 3; local++)	/* LOCAL */
	for (v = 0; v < 4; v++)			/* VW */
	for (pad = 0; pad < 2; pad++)		/* PAD */
	for (unr = 0; unr < 2; unr++) {		/* UNR */
		i64 xwg = wg[a], ywg = wg[b], xwpt = wpt[c], ywpt = wpt[d];

		total++;
		if (!helpers) {
			/* the .space file's Xwg_xl / Ywg_xl */
			i64 xwg_xl = local == 2 ? xwg + ceildiv(2 * HFS, xwpt) : xwg;
			i64 ywg_xl = local == 2 ? ywg + ceildiv(2 * HFS, ywpt) : ywg;

			count += valid_config(xwg, ywg, xwpt, ywpt, local, vws[v], pad,
					      xwg_xl, ywg_xl);
		} else {
			int x, y;

			for (x = 0; x < nxl; x++)
			for (y = 0; y < nxl; y++) {
				/* conv.cc HaloThreads, once per dimension */
				int okx = local == 2 ? xl[x] == xwg + ceildiv(2 * HFS, xwpt)
						     : xl[x] == xwg;
				int oky = local == 2 ? xl[y] == ywg + ceildiv(2 * HFS, ywpt)
						     : xl[y] == ywg;

				if (okx && oky)
					count += valid_config(xwg, ywg, xwpt, ywpt, local,
							      vws[v], pad, xl[x], xl[y]);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("%" PRId64 "\n", count);
	fprintf(stderr, "max_work_group_size %" PRId64 ", local_mem_size %" PRId64 "%s\n",
		max_work_group_size, local_mem_size, helpers ? ", with TBX_XL/TBY_XL" : "");
	fprintf(stderr, "valid points: %" PRId64 " of %" PRId64 "\n", count, total);
	fprintf(stderr, "time: %.6f s\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return 0;
}
