/*
 * stencil_ref.c - the C reference of stencil.cl (W, H, in, filt, out),
 * accumulating in double.
 */
int stencil_ref(int nargs, void **args);

int stencil_ref(int nargs, void **args)
{
	if (nargs != 5)
		return 1;
	const int w = *(const int *)args[0], h = *(const int *)args[1];
	const float *in = args[2], *filt = args[3];
	float *out = args[4];
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double s = 0;
			for (int j = 0; j < 5; j++)
				for (int i = 0; i < 5; i++)
					s += (double)filt[j * 5 + i] * in[(y + j) * (w + 4) + x + i];
			out[y * w + x] = (float)s;
		}
	return 0;
}
