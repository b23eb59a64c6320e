__kernel void k(__global float *out, int n)
{
#pragma spacetune coarsen w
	int x = get_global_id(0);
	out[x] = (float)get_local_id(0);
}
