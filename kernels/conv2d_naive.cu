/*
 * conv2d_naive.cu -- the reference kernel of spaces/conv2d_cuda.space, the
 * CUDA twin of kernels/conv2d_naive.cl: the same arguments and data layout
 * as kernels/conv2d.cu, one thread per output, no shared memory, no
 * vectors, double accumulation.
 *
 *   -D HFS=1|3|5 (filter half size: 3x3, 7x7, 11x11)
 *   grid x block covering (W, H)
 */
#ifndef HFS
#define HFS 3
#endif
#define FS (2 * HFS + 1)

extern "C" __global__ void conv2d_naive(const int W, const int H, const float *in,
                                        const float *filter, float *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H)
        return;
    const long pitch = W + 2 * HFS;
    double s = 0;
    for (int fy = 0; fy < FS; fy++)
        for (int fx = 0; fx < FS; fx++)
            s += (double)in[(y + fy) * pitch + x + fx] * (double)filter[fy * FS + fx];
    out[(long)y * W + x] = (float)s;
}
