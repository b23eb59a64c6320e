/*
 * matmul_ref.c - the C reference of matmul.cl (tuner/variant.h's ABI:
 * M, N, K, A, B, C), accumulating in double.
 */
int matmul_ref(int nargs, void **args);

int matmul_ref(int nargs, void **args)
{
	if (nargs != 6)
		return 1;
	const int m = *(const int *)args[0], n = *(const int *)args[1], k = *(const int *)args[2];
	const float *a = args[3], *b = args[4];
	float *c = args[5];
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;
			for (int p = 0; p < k; p++)
				s += (double)a[i * k + p] * b[p * n + j];
			c[i * n + j] = (float)s;
		}
	return 0;
}
