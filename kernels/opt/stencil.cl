/*
 * stencil.cl - a 5 x 5 convolution of a W x H image: out(x, y) is the
 * sum of filt(i, j) * in(x + i, y + j), the input padded by 2 on every
 * side ((W + 4) x (H + 4)), written the naive way: one work-item per
 * output, the image and the filter read from global memory.  The
 * optimizer's benchmark (spaces/opt/stencil.space), after the 2-D
 * convolutions and stencils of the HPL and CLTune papers.
 */
__kernel void stencil(const int W, const int H, __global const float *in,
                      __global const float *filt, __global float *out)
{
	const int x = get_global_id(0);
	const int y = get_global_id(1);
	const int pitch = W + 4;
	float acc = 0.0f;
#pragma spacetune unroll u_j
	for (int j = 0; j < 5; j++) {
#pragma spacetune unroll u_i
		for (int i = 0; i < 5; i++)
			acc += filt[j * 5 + i] * in[(y + j) * pitch + x + i];
	}
	out[y * W + x] = acc;
}
