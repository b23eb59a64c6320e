/*
 * conv2d_naive.cl -- the reference kernel of spaces/conv2d.space: the same
 * arguments and data layout as kernels/conv2d.cl, one work-item per output,
 * no local memory, no vectors.
 *
 *   -D HFS=1|3|5 (filter half size: 3x3, 7x7, 11x11)
 *   global = (W, H), any local size
 *
 * Accumulates in double where the device has fp64 (as conv2d_ref.c).
 */
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif
#ifndef HFS
#define HFS 3
#endif
#define FS (2 * HFS + 1)

__kernel void conv2d_naive(const int W, const int H, __global const float *in,
                           __constant float *filter, __global float *out)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= W || y >= H)
        return;
    const long pitch = W + 2 * HFS;
    acc_t s = 0;
    for (int fy = 0; fy < FS; fy++)
        for (int fx = 0; fx < FS; fx++)
            s += (acc_t)in[(y + fy) * pitch + x + fx] * (acc_t)filter[fy * FS + fx];
    out[(long)y * W + x] = (float)s;
}
