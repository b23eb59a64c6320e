/*
 * vadd_ref.c - the C reference of vadd.cl and faults.cl, in the ABI of
 * tuner/variant.h: args[i] points at argument i's host data.
 */
int vadd_ref(int nargs, void **args);

int vadd_ref(int nargs, void **args)
{
	if (nargs != 5)
		return 1;
	const int n = *(const int *)args[0];
	const float *a = args[1], *b = args[2];
	float *c = args[3];
	const float alpha = *(const float *)args[4];
	for (int i = 0; i < n; i++)
		c[i] = c[i] + alpha * a[i] + b[i];
	return 0;
}
