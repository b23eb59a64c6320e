__kernel void k(__global float *out, int n)
{
	int x = get_global_id(0);
#pragma spacetune unroll_jam j 1 4 1
	for (int i = 0; i < n; i++) {
		for (int m = 0; m < n; m++)
			out[x] += (float)(i * m);
	}
}
