/*
 * pipe.cl - two kernels run in sequence on the same arguments
 * (tests/tuner/pipe.space): `smooth` writes t from a, then `spread` reads
 * t half the array away, an element another work-group wrote, so it needs
 * the whole of `smooth` done first: only the kernel boundary gives that.
 */
__kernel void smooth(const int n, __global const float *a, __global float *t, __global float *b)
{
	for (int w = 0; w < WPT; w++) {
		const int i = get_global_id(0) + w * get_global_size(0);
		t[i] = 0.5f * a[i] + 0.25f * (a[(i + 1) % n] + a[(i + n - 1) % n]);
	}
}

__kernel void spread(const int n, __global const float *a, __global float *t, __global float *b)
{
	for (int w = 0; w < WPT; w++) {
		const int i = get_global_id(0) + w * get_global_size(0);
		b[i] = t[(i + n / 2) % n] - t[i] + a[i];
	}
}
