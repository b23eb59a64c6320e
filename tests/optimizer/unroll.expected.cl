/* spacetune variant of tests/optimizer/unroll.space: u_r=3 u_m=2
 * options: -Du_r=3 -Du_m=2
 * global: 256
 * local: 0
 */
/* A 1-D moving sum over 2R+1 neighbours (trip count known: the factors
 * come from it) and a weighted sum over a runtime length (factors given). */
#define R 3
__kernel void smooth(__global const float *a, __global const float *w, __global float *out, int n, int m)
{
	int x = get_global_id(0);
	if (x >= n)
		return;
	float s = 0.0f;
	{ /* spacetune: unroll u_r = 3 */
		int i = -R;
		for (; i + 2 <= R; i += 3) {
			{ s += a[x + i + R] * (float)(i + 4); }
			{ s += a[x + (i + 1) + R] * (float)((i + 1) + 4); }
			{ s += a[x + (i + 2) + R] * (float)((i + 2) + 4); }
		}
		for (; i <= R; i++) { s += a[x + i + R] * (float)(i + 4); }
	}
	{ /* spacetune: unroll u_m = 2 */
		int j = 0;
		for (; j + 2 < m; j += 4) {
			{
				float t = w[j] * a[x];
				s += t * (float)(j % 5);
			}
			{
				float t = w[(j + 2)] * a[x];
				s += t * (float)((j + 2) % 5);
			}
		}
		for (; j < m; j += 2) {
			float t = w[j] * a[x];
			s += t * (float)(j % 5);
		}
	}
	out[x] = s;
}
