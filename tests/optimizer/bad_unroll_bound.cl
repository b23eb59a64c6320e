__kernel void k(__global float *out, __global const int *len)
{
	float s = 0.0f;
#pragma spacetune unroll u 1 4 1
	for (int i = 0; i < len[0]; i++)
		s += (float)i;
	out[get_global_id(0)] = s;
}
