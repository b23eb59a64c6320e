/* Test kernel of tests/tuner/job_basic.space: B = A * s (not run by test_job). */
__kernel void scale(int n, float s, __global const REAL *a, __global REAL *b, __local REAL *tmp)
{
	size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0);
	tmp[get_local_id(0)] = a[i];
	b[i] = tmp[get_local_id(0)] * s + (n > 0 ? 0 : 1);
}
