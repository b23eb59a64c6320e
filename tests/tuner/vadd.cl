/*
 * vadd.cl - c[i] += alpha * a[i] + b[i]: a tunable version (WPT elements
 * per work-item, strided so accesses stay coalesced) and the plain one
 * that serves as the reference kernel.
 */
#ifndef WPT
#define WPT 1
#endif

__kernel void vadd(const int n, __global const float *a, __global const float *b,
                   __global float *c, const float alpha)
{
	const int stride = get_global_size(0);
	for (int w = 0; w < WPT; w++) {
		const int i = get_global_id(0) + w * stride;
		if (i < n)
			c[i] += alpha * a[i] + b[i];
	}
}

__kernel void vadd_ref(const int n, __global const float *a, __global const float *b,
                       __global float *c, const float alpha)
{
	const int i = get_global_id(0);
	if (i < n)
		c[i] = c[i] + alpha * a[i] + b[i];
}
