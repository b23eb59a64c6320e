/* Each work-item scales one row of a matrix, adds another, stores it and
 * sums the scaled row: a loop over contiguous elements. */
__kernel void rows(__global const float *a, __global const float *b, __global float *c,
		   __global float *sums, int m, float alpha)
{
	int x = get_global_id(0);
	float s = 0.0f;
#pragma spacetune vector vw 1 16 *2
	for (int j = 0; j < m; j++) {
		float t = a[x * m + j] * alpha;
		c[x * m + j] = t + b[x * m + j];
		s += t;
	}
	sums[x] = s;
}
