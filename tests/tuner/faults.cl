/*
 * faults.cl - c[i] += alpha * a[i] + b[i], with a fault chosen by -D FAULT
 * (tests/tuner/test_eval.c checks that each becomes the right outcome and
 * that the evaluator keeps working after it):
 *
 *   0  correct
 *   1  build error (#error)
 *   2  wrong result: element n/2 is off by exactly 1
 *   3  endless loop (a volatile read the compiler must keep) -> timeout
 *   4  crash: a store into the first 64 KiB of the address space, which
 *      Linux never maps (vm.mmap_min_addr).  On PoCL the kernel runs in the
 *      worker's own threads, so the store faults the worker process
 *      (SIGSEGV; the tests turn ASan's SEGV handler off, see lib.sh).  The
 *      address comes from the argument n, so the compiler cannot reason
 *      the store away.  (It was 2^40 elements past c, which ASan's
 *      allocator, a 4 TiB region, could have mapped.)
 *   5  launch error: reqd_work_group_size(3,1,1), launched with another
 *      local size -> CL_INVALID_WORK_GROUP_SIZE from the driver
 *   6  a NaN at element n/2 (caught even without a reference)
 */
#ifndef FAULT
#define FAULT 0
#endif

#if FAULT == 1
#error "fault 1: this variant does not build"
#endif

#if FAULT == 5
__attribute__((reqd_work_group_size(3, 1, 1)))
#endif
__kernel void faults(const int n, __global const float *a, __global const float *b,
                     __global float *c, const float alpha)
{
	const int i = get_global_id(0);
	if (i >= n)
		return;
	float v = c[i] + alpha * a[i] + b[i];
#if FAULT == 2
	if (i == n / 2)
		v += 1.0f;
#elif FAULT == 3
	while (*(volatile __global const float *)&a[0] != 12345.0f)
		;
#elif FAULT == 4
	((__global float *)(ulong)(64 + 4 * (n & 1)))[i & 1023] = v;
#elif FAULT == 6
	if (i == n / 2)
		v = NAN;
#endif
	c[i] = v;
}
