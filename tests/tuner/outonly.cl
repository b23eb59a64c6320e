/*
 * outonly.cl - c = 2 * a into an out-only buffer; SKIP=1 writes nothing
 * (tests/tuner/faults.sh: the outputs of the reference and of SKIP=0 are
 * still in the worker's buffer unless it is reset before the run read back);
 * SKIP=2 writes c and then spoils its input a, which the next evaluation on
 * the same worker must not see (inputs are reset before each evaluation).
 */
__kernel void scale(const int n, __global float *a, __global float *c)
{
	const int i = get_global_id(0);
#if SKIP != 1
	if (i < n)
		c[i] = 2.0f * a[i];
#endif
#if SKIP == 2
	if (i < n)
		a[i] += 1.0f;
#endif
}

__kernel void scale_ref(const int n, __global const float *a, __global float *c)
{
	const int i = get_global_id(0);
	if (i < n)
		c[i] = 2.0f * a[i];
}
