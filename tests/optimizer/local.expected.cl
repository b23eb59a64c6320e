/* spacetune variant of tests/optimizer/local.space: wx=8 wy=4
 * options: -Dwx=8 -Dwy=4
 * global: 40 24
 * local: 8 4
 */
/* A naive 3x3 weighted stencil; the input is cached in local memory by
 * work-group tiles with a halo of one. */
__kernel void blur(__global const float *in, __global float *out, int w, int h)
{
	/* spacetune: local in, work-group 8 x 4, tile 6 x 10 */
	__local float spt_in[6][10];
	{
		const long spt_x0 = (long)get_group_id(0) * 8 + (-1);
		const long spt_y0 = (long)get_group_id(1) * 4 + (-1);
		for (int spt_t = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); spt_t < 60; spt_t += 32) {
			const long spt_i = (spt_y0 + spt_t / 10) * (long)w + spt_x0 + spt_t % 10;
			spt_in[spt_t / 10][spt_t % 10] = spt_i >= 0 && spt_i < 851 ? in[spt_i] : (float)0;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (get_global_id(0) >= 37 || get_global_id(1) >= 23)
		return;
	int x = get_global_id(0), y = get_global_id(1);
	if (x >= w || y >= h)
		return;
	if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) {
		out[y * w + x] = spt_in[get_local_id(1) + 0 - (-1)][get_local_id(0) + 0 - (-1)];
		return;
	}
	float s = 0.0f;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
			s += spt_in[get_local_id(1) + dy - (-1)][get_local_id(0) + dx - (-1)] * (float)(dx + 2 * dy + 5);
	out[y * w + x] = s;
}
