__kernel void k(__global float *out, int n)
{
	float s = 0.0f;
#pragma spacetune unrol u 1 4 1
	for (int i = 0; i < n; i++)
		s += (float)i;
#pragma spacetune unroll u 4 1 1
	for (int i = 0; i < n; i++)
		s += (float)i;
	out[get_global_id(0)] = s;
}
