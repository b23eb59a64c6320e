/*
 * nbody.cl - one step of the all-pairs N-body force computation: body i
 * at pos[4i .. 4i+2] with mass pos[4i+3] gets the acceleration
 * sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2), written the naive
 * way: one work-item per body, every other body read from global memory.
 * The optimizer's benchmark (spaces/opt/nbody.space), after the N-body
 * codes of the HPL papers.
 */
#pragma spacetune coarsen c_i 1 4 *2
__kernel void nbody(const int n, const float eps2, __global const float *pos, __global float *acc)
{
	const int i = get_global_id(0);
	const float xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
	float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma spacetune unroll u_j 1 16 *2
	for (int j = 0; j < n; j++) {
		const float dx = pos[4 * j] - xi, dy = pos[4 * j + 1] - yi, dz = pos[4 * j + 2] - zi;
		const float r2 = dx * dx + dy * dy + dz * dz + eps2;
		const float inv = 1.0f / sqrt(r2);
		const float s = pos[4 * j + 3] * inv * inv * inv;
		ax += s * dx;
		ay += s * dy;
		az += s * dz;
	}
	acc[4 * i] = ax;
	acc[4 * i + 1] = ay;
	acc[4 * i + 2] = az;
	acc[4 * i + 3] = 0.0f;
}
