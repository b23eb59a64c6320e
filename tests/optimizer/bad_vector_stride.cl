__kernel void k(__global float *out, int n)
{
	int x = get_global_id(0);
	float s = 0.0f;
#pragma spacetune vector w 1 4 *2
	for (int j = 0; j < n; j++)
		s += out[j * n + x];
	out[x] = s;
}
