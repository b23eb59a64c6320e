/*
 * nbody_ref.c - the C reference of nbody.cl (n, eps2, pos, acc), in
 * double.
 */
#include <math.h>

int nbody_ref(int nargs, void **args);

int nbody_ref(int nargs, void **args)
{
	if (nargs != 4)
		return 1;
	const int n = *(const int *)args[0];
	const double eps2 = *(const float *)args[1];
	const float *p = args[2];
	float *acc = args[3];
	for (int i = 0; i < n; i++) {
		double a[3] = { 0, 0, 0 };
		for (int j = 0; j < n; j++) {
			double d[3];
			for (int c = 0; c < 3; c++)
				d[c] = (double)p[4 * j + c] - p[4 * i + c];
			double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
			double s = p[4 * j + 3] / (r2 * sqrt(r2));
			for (int c = 0; c < 3; c++)
				a[c] += s * d[c];
		}
		for (int c = 0; c < 3; c++)
			acc[4 * i + c] = (float)a[c];
		acc[4 * i + 3] = 0.0f;
	}
	return 0;
}
