/*
 * dcs.cl - direct Coulomb summation: the electrostatic potential on an
 * nx x ny lattice (spacing h) in the plane z = zplane, from natoms point
 * charges at atoms[4a .. 4a+2] with charge atoms[4a+3]: the sum of
 * q / r, written the naive way: one work-item per lattice point, every
 * atom read from global memory.  The optimizer's benchmark
 * (spaces/opt/dcs.space), after the DCS code of the HPL papers.
 */
#pragma spacetune coarsen c_x 1 4 *2
__kernel void dcs(const int nx, const int natoms, const float h, const float zplane,
                  __global const float *atoms, __global float *energy, const int ny)
{
	const int x = get_global_id(0);
	const int y = get_global_id(1);
	const float px = x * h, py = y * h;
	float e = 0.0f;
#pragma spacetune unroll u_a 1 16 *2
	for (int a = 0; a < natoms; a++) {
		const float dx = px - atoms[4 * a], dy = py - atoms[4 * a + 1], dz = zplane - atoms[4 * a + 2];
		e += atoms[4 * a + 3] / sqrt(dx * dx + dy * dy + dz * dz);
	}
	if (y < ny)
		energy[y * nx + x] = e;
}
