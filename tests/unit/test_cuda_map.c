/*
 * test_cuda_map.c - Criterion tests of how the CUDA backend maps a variant
 * (tuner/cuda/map.h): the tune section's option string to NVRTC's argument
 * vector, OpenCL's global/local sizes to a grid of blocks.  Pure functions:
 * no GPU and no toolkit needed, so they run everywhere.  The expectations
 * are written from the definitions (grid = global / local, block = local;
 * options split on blanks, the architecture last), not from the code.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdlib.h>
#include <string.h>

#include "tuner/cuda/map.h"

/* Arrays, not pointers: Criterion runs each case in a new process, where
 * a pointer into this one's data would not point at the same place. */
struct opt_case {
	char options[64], arch[16];  /* "-": NULL */
	int argc;
	char argv[6][40];
};

static struct opt_case opt_cases[] = {
	{"-DA=1 -DB=2", "sm_90", 3, {"-DA=1", "-DB=2", "--gpu-architecture=sm_90"}},
	{"  -DREAL=float\t-DX=-3  ", "sm_80", 3, {"-DREAL=float", "-DX=-3", "--gpu-architecture=sm_80"}},
	{"", "sm_90", 1, {"--gpu-architecture=sm_90"}},
	{"-", "-", 0, {""}},
	{"-DN=4096 --use_fast_math -lineinfo", "-", 3, {"-DN=4096", "--use_fast_math", "-lineinfo"}},
	{"-DF=1.5e-06", "sm_75", 2, {"-DF=1.5e-06", "--gpu-architecture=sm_75"}},
};

ParameterizedTestParameters(cuda_map, options)
{
	return cr_make_param_array(struct opt_case, opt_cases, sizeof opt_cases / sizeof opt_cases[0]);
}

ParameterizedTest(struct opt_case *c, cuda_map, options)
{
	char **argv;
	int argc;
	const char *options = strcmp(c->options, "-") ? c->options : NULL;
	const char *arch = strcmp(c->arch, "-") ? c->arch : NULL;
	cr_assert_eq(cuda_options(options, arch, &argv, &argc), 0);
	cr_assert_eq(argc, c->argc, "'%s': %d options, expected %d", c->options, argc, c->argc);
	for (int i = 0; i < argc; i++)
		cr_expect_str_eq(argv[i], c->argv[i]);
	cr_expect_null(argv[argc], "the vector ends with NULL");
	free(argv);
}

struct geo_case {
	int dim;
	size_t global[3], local[3];
	int ok;
	unsigned grid[3], block[3];
};

static struct geo_case geo_cases[] = {
	/* gemm.space at 4096^3, dim 16x16, tile 128x64: global (4096/128*16, 4096/64*16) */
	{2, {512, 1024, 0}, {16, 16, 0}, 1, {32, 64, 1}, {16, 16, 1}},
	{1, {1000, 0, 0}, {250, 0, 0}, 1, {4, 1, 1}, {250, 1, 1}},
	{3, {8, 6, 4}, {2, 3, 4}, 1, {4, 2, 1}, {2, 3, 4}},
	{2, {100, 64, 0}, {16, 16, 0}, 0, {0}, {0}},   /* 100 % 16 != 0 */
	{2, {64, 64, 0}, {0, 0, 0}, 0, {0}, {0}},      /* no local size */
	{4, {8, 8, 8}, {1, 1, 1}, 0, {0}, {0}},        /* four dimensions */
	{0, {8, 8, 8}, {1, 1, 1}, 0, {0}, {0}},
	{2, {64, 0, 0}, {8, 8, 0}, 0, {0}, {0}},       /* a zero size */
	{1, {(size_t)1 << 40, 0, 0}, {1, 0, 0}, 0, {0}, {0}},  /* grid past 32 bits */
};

ParameterizedTestParameters(cuda_map, geometry)
{
	return cr_make_param_array(struct geo_case, geo_cases, sizeof geo_cases / sizeof geo_cases[0]);
}

ParameterizedTest(struct geo_case *c, cuda_map, geometry)
{
	unsigned grid[3] = {7, 7, 7}, block[3] = {7, 7, 7};
	const char *why = NULL;
	int rc = cuda_geometry(c->dim, c->global, c->local, grid, block, &why);
	if (!c->ok) {
		cr_expect_eq(rc, -1);
		cr_expect_not_null(why);
		return;
	}
	cr_assert_eq(rc, 0, "refused: %s", why ? why : "?");
	for (int d = 0; d < 3; d++) {
		cr_expect_eq(grid[d], c->grid[d], "grid[%d] %u, expected %u", d, grid[d], c->grid[d]);
		cr_expect_eq(block[d], c->block[d], "block[%d] %u, expected %u", d, block[d], c->block[d]);
		/* The one invariant CUDA and OpenCL agree on: the same threads. */
		size_t g = d < c->dim ? c->global[d] : 1;
		cr_expect_eq((size_t)grid[d] * block[d], g);
	}
}
