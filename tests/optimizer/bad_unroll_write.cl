__kernel void k(__global float *out, int n)
{
	float s = 0.0f;
#pragma spacetune unroll u 1 4 1
	for (int i = 0; i < n; i++) {
		s += (float)i;
		i += 1;
	}
	out[get_global_id(0)] = s;
}
