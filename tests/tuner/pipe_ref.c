/*
 * pipe_ref.c - the C reference of pipe.cl's sequence smooth, spread
 * (n, a, t, b), in the ABI of tuner/variant.h.
 */
int pipe_ref(int nargs, void **args);

int pipe_ref(int nargs, void **args)
{
	if (nargs != 4)
		return 1;
	const int n = *(const int *)args[0];
	const float *a = args[1];
	float *t = args[2], *b = args[3];
	for (int i = 0; i < n; i++)
		t[i] = 0.5f * a[i] + 0.25f * (a[(i + 1) % n] + a[(i + n - 1) % n]);
	for (int i = 0; i < n; i++)
		b[i] = t[(i + n / 2) % n] - t[i] + a[i];
	return 0;
}
