/*
 * conv2d_ref_abi.c -- kernels/conv2d_ref.c behind spacetune's C reference
 * ABI (tuner/variant.h).  The arguments are kernels/conv2d.cl's:
 *   W, H, in (padded by HFS), filter, out
 * The filter size is a define of the kernel, not an argument, so there is
 * one function per size: conv2d_ref_abi_3x3, _7x7, _11x11.
 * spacetune compiles this file on its own, hence the #include.
 */
#include "conv2d_ref.c"

#define CONV2D_REF_ABI(NAME, HFS)                                              \
    int NAME(int nargs, void **args);                                        \
    int NAME(int nargs, void **args)                                         \
    {                                                                        \
        if (nargs != 5)                                                      \
            return 1;                                                        \
        conv2d_ref_f32(*(int *)args[0], *(int *)args[1], (HFS),              \
                       (const float *)args[2], (const float *)args[3],       \
                       (float *)args[4]);                                    \
        return 0;                                                            \
    }

CONV2D_REF_ABI(conv2d_ref_abi_3x3, 1)
CONV2D_REF_ABI(conv2d_ref_abi_7x7, 3)
CONV2D_REF_ABI(conv2d_ref_abi_11x11, 5)
