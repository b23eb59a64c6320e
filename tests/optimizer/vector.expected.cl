/* spacetune variant of tests/optimizer/vector.space: vw=4
 * options: -Dvw=4
 * global: 16
 * local: 0
 */
/* Each work-item scales one row of a matrix, adds another, stores it and
 * sums the scaled row: a loop over contiguous elements. */
__kernel void rows(__global const float *a, __global const float *b, __global float *c,
		   __global float *sums, int m, float alpha)
{
	int x = get_global_id(0);
	float s = 0.0f;
	{ /* spacetune: vector vw = 4 */
		int j = 0;
		float4 spt_s = (float4)(0);
		for (; j + 3 < m; j += 4) {
			float4 t = vload4(0, &a[x * m + j]) * alpha;
			vstore4((t + vload4(0, &b[x * m + j])), 0, &c[x * m + j]);
			spt_s += t;
		}
		s += spt_s.s0 + spt_s.s1 + spt_s.s2 + spt_s.s3;
		for (; j < m; j++) {
			float t = a[x * m + j] * alpha;
			c[x * m + j] = t + b[x * m + j];
			s += t;
		}
	}
	sums[x] = s;
}
