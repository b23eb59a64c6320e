__kernel void k(__global float *out, int n)
{
	float s = 0.0f;
#pragma spacetune unroll_jam j 1 4 1
	for (int i = 0; i < n; i++) {
		float t = s;
		for (int m = 0; m < n; m++)
			s += t * (float)m;
	}
	out[get_global_id(0)] = s;
}
