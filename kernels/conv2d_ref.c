/* conv2d_ref.c -- reference 2D convolution (see ref.h). */
#include "ref.h"

void conv2d_ref_f32(int W, int H, int HFS, const float *in_padded,
                    const float *filter, float *out)
{
    const int FS = 2 * HFS + 1;
    const long pitch = W + 2 * HFS;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double s = 0;   /* double accumulation: a tighter reference */
            for (int fy = 0; fy < FS; fy++)
                for (int fx = 0; fx < FS; fx++)
                    s += (double)in_padded[(y + fy) * pitch + x + fx] *
                         filter[fy * FS + fx];
            out[(long)y * W + x] = (float)s;
        }
}
