#!/bin/sh
# gpu_bench.sh -- build run_kernels and time hand-picked configurations of
# kernels/gemm.cl (M=N=K=4096) and kernels/conv2d.cl (7x7, 8192x4096) on the
# first OpenCL device, then run the correctness suite there.  From the
# repository root:  sh tests/kernels/gpu_bench.sh [QUICK_SPACE_SAMPLES]
# run_kernels picks the first GPU of any platform (PoCL's CPU device may be
# listed first).  On the lent NVIDIA machines register the driver first:
#   mkdir -p /etc/OpenCL/vendors &&
#   echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
# The space samples need ./spacec (a build output); without it they are
# reported as skipped.
set -u
RK=${RK:-/tmp/run_kernels}
gcc -O2 -std=c11 -Wall -Wextra tests/kernels/run_kernels.c kernels/gemm_ref.c \
    kernels/conv2d_ref.c -lOpenCL -o "$RK" || exit 1
B="timeout 60 $RK --bench"
G="M=4096 N=4096 K=4096 BETA=0 REPS=6"
for cfg in \
  "DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=8 DIM_VEC=4 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=2 DIM_N_B=128" \
  "DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=8 DIM_VEC=4 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=2 DIM_N_B=128 PRE_A=1 PRE_B=1" \
  "DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=8 DIM_VEC=4 VEC_MUL=0 DIM_M_A=32 DIM_N_A=8 DIM_M_B=2 DIM_N_B=128" \
  "DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=4 DIM_N_B=64 PRE_A=1 PRE_B=1" \
  "DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=16 DIM_N_A=16 DIM_M_B=4 DIM_N_B=64" \
  "DIM_M=32 DIM_N=8 BLK_M=128 BLK_N=64 BLK_K=16 DIM_VEC=4 VEC_MUL=1 DIM_M_A=16 DIM_N_A=16 DIM_M_B=4 DIM_N_B=64" \
  "DIM_M=16 DIM_N=16 BLK_M=128 BLK_N=128 BLK_K=8 DIM_VEC=1 VEC_MUL=0 DIM_M_A=128 DIM_N_A=2 DIM_M_B=8 DIM_N_B=32" \
  "PRECISION=2 DIM_M=16 DIM_N=16 BLK_M=64 BLK_N=64 BLK_K=16 DIM_VEC=2 VEC_MUL=1 DIM_M_A=32 DIM_N_A=8 DIM_M_B=4 DIM_N_B=64" \
  ; do $B gemm $G $cfg | grep -v '^#\|passed'; done
C="W=8192 H=4096 HFS=3 REPS=6"
for cfg in \
  "LOCAL=1 Xwg=32 Ywg=8 Xwpt=4 Ywpt=4 VW=4 PAD=0 UNR=1" \
  "LOCAL=1 Xwg=32 Ywg=8 Xwpt=8 Ywpt=4 VW=8 PAD=0 UNR=1" \
  "LOCAL=1 Xwg=64 Ywg=8 Xwpt=4 Ywpt=4 VW=4 PAD=0 UNR=1" \
  "LOCAL=1 Xwg=32 Ywg=8 Xwpt=2 Ywpt=4 VW=2 PAD=1 UNR=1" \
  "LOCAL=2 Xwg=32 Ywg=8 Xwpt=2 Ywpt=4 VW=2 PAD=0 UNR=1" \
  "LOCAL=0 Xwg=32 Ywg=8 Xwpt=4 Ywpt=4 VW=4 PAD=0 UNR=1" \
  "LOCAL=0 Xwg=32 Ywg=8 Xwpt=8 Ywpt=2 VW=8 PAD=0 UNR=1" \
  "LOCAL=1 Xwg=16 Ywg=16 Xwpt=4 Ywpt=2 VW=4 PAD=0 UNR=0" \
  ; do $B conv2d $C $cfg | grep -v '^#\|passed'; done
timeout 60 "$RK" builtin | grep -v '^PASS'
N=${1:-40}
timeout 120 "$RK" space "$N" "$N" | grep -v '^PASS'
