__kernel void k(__global float *out, int n)
{
#pragma spacetune local out wx 1 8 *2
	int x = get_global_id(0);
	out[x] = out[x + 1] * 2.0f;
}
