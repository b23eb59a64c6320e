/* A 1-D moving sum over 2R+1 neighbours (trip count known: the factors
 * come from it) and a weighted sum over a runtime length (factors given). */
#define R 3
__kernel void smooth(__global const float *a, __global const float *w, __global float *out, int n, int m)
{
	int x = get_global_id(0);
	if (x >= n)
		return;
	float s = 0.0f;
#pragma spacetune unroll u_r
	for (int i = -R; i <= R; i++)
		s += a[x + i + R] * (float)(i + 4);
	#pragma spacetune unroll u_m 1 8 1
	for (int j = 0; j < m; j += 2) {
		float t = w[j] * a[x];
		s += t * (float)(j % 5);
	}
	out[x] = s;
}
