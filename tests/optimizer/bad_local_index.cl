__kernel void k(__global const float *a, __global float *out, int n)
{
#pragma spacetune local a wx 1 8 *2
	int x = get_global_id(0);
	out[x] = a[2 * x] + a[x];
}
