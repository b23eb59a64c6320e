/*
 * multi_ref.c - the C reference of multi.cl's code, blur then blocksum,
 * over the arguments of both kernel lines of multi.space, each buffer
 * once: (n, a, t, len, w, s), in the ABI of tuner/variant.h.
 */
int multi_ref(int nargs, void **args);

int multi_ref(int nargs, void **args)
{
	if (nargs != 6)
		return 1;
	const int n = *(const int *)args[0], len = *(const int *)args[3];
	const float *a = args[1], *w = args[4];
	float *t = args[2], *s = args[5];
	for (int i = 0; i < n; i++)
		t[i] = 0.25f * a[(i + n - 1) % n] + 0.5f * a[i] + 0.25f * a[(i + 1) % n];
	for (int b = 0; b < n / len; b++) {
		float acc = 0.0f;
		for (int j = 0; j < len; j++)
			acc += t[b * len + j] * w[j];
		s[b] = acc;
	}
	return 0;
}
