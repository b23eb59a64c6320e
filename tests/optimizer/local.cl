/* A naive 3x3 weighted stencil; the input is cached in local memory by
 * work-group tiles with a halo of one. */
__kernel void blur(__global const float *in, __global float *out, int w, int h)
{
#pragma spacetune local in wx wy 1 16 *2
	int x = get_global_id(0), y = get_global_id(1);
	if (x >= w || y >= h)
		return;
	if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) {
		out[y * w + x] = in[y * w + x];
		return;
	}
	float s = 0.0f;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
			s += in[(y + dy) * w + (x + dx)] * (float)(dx + 2 * dy + 5);
	out[y * w + x] = s;
}
