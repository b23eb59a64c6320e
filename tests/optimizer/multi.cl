/*
 * multi.cl - a code of two kernels with sizes and arguments of their own
 * (tests/optimizer/multi.space): `blur` smooths a (one work-item per
 * element, work per item annotated), then `blocksum` reduces t by blocks
 * against weights w (one work-item per block, its loop annotated).
 * blocksum reads t written by every work-group of blur: only the kernel
 * boundary between them makes that safe.
 */
#pragma spacetune coarsen c_b 1 4 *2
__kernel void blur(const int n, __global const float *a, __global float *t)
{
	const int i = get_global_id(0);
	t[i] = 0.25f * a[(i + n - 1) % n] + 0.5f * a[i] + 0.25f * a[(i + 1) % n];
}

__kernel void blocksum(const int len, __global const float *t, __global const float *w, __global float *s)
{
	const int b = get_global_id(0);
	float acc = 0.0f;
#pragma spacetune unroll u_j 1 8 *2
	for (int j = 0; j < len; j++)
		acc += t[b * len + j] * w[j];
	s[b] = acc;
}
