/* cuda_check.cu -- tests/tuner/cuda.sh: NVRTC must see the tune section's
 * defines exactly as written (integers, a float, a type name), and the
 * point BAD == 1 must not build. */
#if A * 10 + B != 10 * A + B || A < 1 || A > 3
#error "A is not one of the space's values"
#endif
#if !defined(SCALE)
#error "SCALE is missing"
#endif
#if BAD
#error "planted build error"
#endif
extern "C" __global__ void check(int n, REAL *x)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = (REAL)(SCALE * A + B);
}
