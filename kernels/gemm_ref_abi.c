/*
 * gemm_ref_abi.c -- kernels/gemm_ref.c behind spacetune's C reference ABI
 * (tuner/variant.h: int NAME(int nargs, void **args), args[i] pointing at
 * the host copy of kernel argument i).  The arguments are kernels/gemm.cl's:
 *   M, N, K, alpha, A, lda, B, ldb, beta, C, ldc
 * Neither the precision nor the transposition is an argument of the kernel
 * (they are defines), so there is one function per combination:
 *   gemm_ref_abi_{f32,f64}_{nn,nt,tn,tt}   (first letter: A, second: B)
 * e.g. in a .space file:
 *   reference c gemm_ref_abi_f32_nn from "../kernels/gemm_ref_abi.c"
 * spacetune compiles this file on its own, hence the #include of the
 * reference itself.
 */
#include "gemm_ref.c"

#define GEMM_REF_ABI_ARGS 11

/* One wrapper: unpack the argument pointers in gemm.cl's order. */
#define GEMM_REF_ABI(NAME, REAL, FN, TA, TB)                                   \
    int NAME(int nargs, void **args);                                        \
    int NAME(int nargs, void **args)                                         \
    {                                                                        \
        if (nargs != GEMM_REF_ABI_ARGS)                                      \
            return 1;                                                        \
        FN(TA, TB, *(int *)args[0], *(int *)args[1], *(int *)args[2],        \
           *(REAL *)args[3], (const REAL *)args[4], *(int *)args[5],          \
           (const REAL *)args[6], *(int *)args[7], *(REAL *)args[8],          \
           (REAL *)args[9], *(int *)args[10]);                                \
        return 0;                                                            \
    }

GEMM_REF_ABI(gemm_ref_abi_f32_nn, float, gemm_ref_trans_f32, 0, 0)
GEMM_REF_ABI(gemm_ref_abi_f32_nt, float, gemm_ref_trans_f32, 0, 1)
GEMM_REF_ABI(gemm_ref_abi_f32_tn, float, gemm_ref_trans_f32, 1, 0)
GEMM_REF_ABI(gemm_ref_abi_f32_tt, float, gemm_ref_trans_f32, 1, 1)
GEMM_REF_ABI(gemm_ref_abi_f64_nn, double, gemm_ref_trans_f64, 0, 0)
GEMM_REF_ABI(gemm_ref_abi_f64_nt, double, gemm_ref_trans_f64, 0, 1)
GEMM_REF_ABI(gemm_ref_abi_f64_tn, double, gemm_ref_trans_f64, 1, 0)
GEMM_REF_ABI(gemm_ref_abi_f64_tt, double, gemm_ref_trans_f64, 1, 1)
