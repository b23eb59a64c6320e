/*
 * dcs_ref.c - the C reference of dcs.cl (nx, natoms, h, zplane, atoms,
 * energy), in double.  The lattice's height is the energy buffer's size
 * over nx, which the ABI does not pass: it is the space's ny, fixed to
 * the same setting there.
 */
#include <math.h>

int dcs_ref(int nargs, void **args);

int dcs_ref(int nargs, void **args)
{
	if (nargs != 7)
		return 1;
	const int nx = *(const int *)args[0], natoms = *(const int *)args[1];
	const double h = *(const float *)args[2], z = *(const float *)args[3];
	const float *at = args[4];
	float *energy = args[5];
	const int ny = *(const int *)args[6];
	for (int y = 0; y < ny; y++)
		for (int x = 0; x < nx; x++) {
			double e = 0;
			for (int a = 0; a < natoms; a++) {
				double dx = x * h - at[4 * a], dy = y * h - at[4 * a + 1], dz = z - at[4 * a + 2];
				e += at[4 * a + 3] / sqrt(dx * dx + dy * dy + dz * dz);
			}
			energy[y * nx + x] = (float)e;
		}
	return 0;
}
