/*
 * map.h - how the CUDA backend (tuner/cuda/cuda.c) maps a variant onto
 * NVRTC and the driver API: pure functions, no CUDA needed, so that a
 * machine without a GPU or a toolkit tests them (tests/unit/test_cuda_map.c).
 */
#ifndef SPACEC_TUNER_CUDA_MAP_H
#define SPACEC_TUNER_CUDA_MAP_H

#include <stddef.h>

/*
 * The NVRTC options of a variant: the tune section's option string split
 * on blanks (each -DNAME=VALUE a define, anything else passed as written),
 * then --gpu-architecture=ARCH (e.g. "sm_90") when arch is not NULL.
 * *argv is one allocation (pointers and text): free(*argv).  0, or -1 when
 * out of memory.
 */
int cuda_options(const char *options, const char *arch, char ***argv, int *argc);

/*
 * OpenCL's NDRange as a grid of blocks: block = local, grid = global /
 * local, per dimension, 1 past `dim`.  Returns 0, or -1 with *why (static
 * text) when the launch cannot be mapped: dim outside 1..3, no local size
 * (CUDA has no "let the driver choose"), a zero size, or a global size
 * that is not a multiple of the local one.
 */
int cuda_geometry(int dim, const size_t *global, const size_t *local, unsigned grid[3],
                  unsigned block[3], const char **why);

#endif
