/*
 * map.c - variants onto NVRTC options and CUDA grids (see map.h).
 */
#include "tuner/cuda/map.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int cuda_options(const char *options, const char *arch, char ***argv, int *argc)
{
	static const char arch_flag[] = "--gpu-architecture=";
	const char *s = options ? options : "";
	size_t text = strlen(s) + 1 + (arch ? sizeof arch_flag + strlen(arch) : 0);
	int words = arch ? 1 : 0;
	for (const char *p = s; *p; p++)
		words += !is_blank(*p) && (p == s || is_blank(p[-1]));
	char **v = malloc(((size_t)words + 1) * sizeof *v + text + 1);
	*argv = v;
	*argc = 0;
	if (!v)
		return -1;
	char *out = (char *)(v + words + 1);
	int n = 0;
	for (const char *p = s; *p;) {
		while (*p && is_blank(*p))
			p++;
		if (!*p)
			break;
		v[n++] = out;
		while (*p && !is_blank(*p))
			*out++ = *p++;
		*out++ = 0;
	}
	if (arch) {
		v[n++] = out;
		out += sprintf(out, "%s%s", arch_flag, arch) + 1;
	}
	v[n] = NULL;
	*argc = n;
	return 0;
}

int cuda_geometry(int dim, const size_t *global, const size_t *local, unsigned grid[3],
                  unsigned block[3], const char **why)
{
	if (dim < 1 || dim > 3) {
		*why = "a launch has 1 to 3 dimensions";
		return -1;
	}
	if (local[0] == 0) {
		*why = "CUDA needs a local size (the block); add a 'local' line";
		return -1;
	}
	for (int d = 0; d < 3; d++) {
		grid[d] = block[d] = 1;
		if (d >= dim)
			continue;
		if (global[d] == 0 || local[d] == 0) {
			*why = "a global or local size is 0";
			return -1;
		}
		if (global[d] % local[d] != 0) {
			*why = "a global size is not a multiple of the local size";
			return -1;
		}
		if (local[d] > UINT_MAX || global[d] / local[d] > UINT_MAX) {
			*why = "a size does not fit CUDA's 32-bit grid";
			return -1;
		}
		block[d] = (unsigned)local[d];
		grid[d] = (unsigned)(global[d] / local[d]);
	}
	return 0;
}
