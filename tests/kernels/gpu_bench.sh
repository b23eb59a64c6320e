#!/bin/sh
# gpu_bench.sh -- build run_kernels and time the hand-picked configurations
# of bench/gpu/handpicked.conf (kernels/gemm.cl at M=N=K=4096,
# kernels/conv2d.cl on 8192x4096) on the first OpenCL device, then run the
# correctness suite there.  bench/gpu/run.sh is the full comparison.  From the
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
C="W=8192 H=4096 HFS=3 REPS=6"
# The configurations bench/gpu/run.sh times too (later NAME=VALUE pairs
# override earlier ones, so a line's own HFS wins over the default).
grep -v '^#' bench/gpu/handpicked.conf | while read -r kernel label cfg; do
  [ -n "$kernel" ] || continue
  if [ "$kernel" = gemm ]; then sizes=$G; else sizes=$C; fi
  echo "$label:"
  $B "$kernel" $sizes $cfg | grep -v '^#\|passed'
done
timeout 60 "$RK" builtin | grep -v '^PASS'
N=${1:-40}
timeout 120 "$RK" space "$N" "$N" | grep -v '^PASS'
