#!/bin/sh
# cuda.sh -- issue 17's GPU comparison, in one call on the device machine:
# SGEMM 4096 tuned through the CUDA backend (kernels/gemm.cu) and through
# the OpenCL backend (kernels/gemm.cl) on the same neighbourhood of
# spaces/gemm(_cuda).space, conv 7x7 through the CUDA backend
# (spaces/conv2d_cuda.space, the whole space), and cuBLAS SGEMM (FP32,
# TF32 off: bench/gpu/cublas_gemm.cu) timed in the same call.
#
#   sh bench/gpu/cuda.sh OUTDIR
#
# Environment: SPACETUNE (default .carry/cuda/spacetune), BUDGET_SGEMM_CUDA
# (70s), BUDGET_SGEMM_CUDA_LDG (none: the ldg = 1 run is left out),
# BUDGET_SGEMM_CUDA_ASYNC (none: the cp.async runs are left out; else one
# search of that budget per stage count S in ASYNC_STAGES (default "2 3 4")
# and launch bound L in ASYNC_LB_MIN (default "0 3"), each with --set
# async_stages=S --set lb_min=L, into sgemm_cuda_asyncS_lbL.jsonl),
# BUDGET_SGEMM_OCL (40s), BUDGET_CONV (40s) (a budget of 0 leaves that
# run out), JOBS (16), REPEAT (10),
# GEMM_SETS / CONV_SETS (extra --set options: a small dry run on a CPU uses
# "--set M=256 --set N=256 --set K=256"), NO_CUBLAS=1 to skip cuBLAS, OCL_DEVICE
# (NVIDIA: the OpenCL device).
#
# The neighbourhood: the device allowance of the session that made the
# table (six minutes, machine start included) allows no search of the
# 139,938-point space, so both backends search the same 5,136 points
# around the OpenCL best of the earlier, longer tuning (bench/README.md):
# work-groups 16-32 x 8-16, tiles 128-256 x 64-128, K steps 8-16, vector
# loads of 2 or 4, reading shapes 16-64 and 2-8, every other parameter
# free.  The OpenCL best configuration is one of those points.
set -u
out=${1:?usage: cuda.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
T=${SPACETUNE:-$top/.carry/cuda/spacetune}
jobs=${JOBS:-16}
rep=${REPEAT:-10}
mkdir -p "$out"
log=$out/run.log
near=$(mktemp -d)
trap 'rm -rf "$near"' EXIT

# The neighbourhood, cut the same way out of both spaces; kernel paths
# made absolute, since the copies live elsewhere.
narrow() { # SPACE OUT
	sed -e 's/^dim_m = \[.*/dim_m = [16, 32]/' -e 's/^dim_n = \[.*/dim_n = [8, 16]/' \
	    -e 's/^blk_m = \[.*/blk_m = [128, 256]/' -e 's/^blk_n = \[.*/blk_n = [64, 128]/' \
	    -e 's/^blk_k = \[.*/blk_k = [8, 16]/' -e 's/    return \[1, 2, 4\]/    return [2, 4]/' \
	    -e 's/^dim_m_a = \[.*/dim_m_a = [16, 32, 64]/' -e 's/^dim_m_b = \[.*/dim_m_b = [2, 4, 8]/' \
	    -e "s|\"\\.\\./kernels/|\"$top/kernels/|g" "$1" >"$2"
}
narrow "$top/spaces/gemm_cuda.space" "$near/sgemm_cuda.space"
narrow "$top/spaces/gemm.space" "$near/sgemm.space"

# cuBLAS is built while the tuner runs (CPU only), timed after it.
if [ -z "${NO_CUBLAS:-}" ] && command -v nvcc >/dev/null; then
	nvcc -O2 -o "$near/cublas_gemm" "$top/bench/gpu/cublas_gemm.cu" -lcublas \
		>"$near/nvcc.log" 2>&1 &
fi

tune() { # NAME SPACE BUDGET SETS...
	name=$1 space=$2 budget=$3
	shift 3
	[ "$budget" = 0 ] && return
	echo "== $name: genetic search, $budget" | tee -a "$log"
	t0=$(date +%s)
	"$T" run "$space" "$@" --jobs "$jobs" --repeat "$rep" --strategy genetic --budget "$budget" \
		--seed 1 --objective GFLOPS --db "$out/$name.jsonl" --no-progress >>"$log" 2>&1 ||
		echo "cuda.sh: $name: spacetune run failed" | tee -a "$log"
	echo "$name: $(($(date +%s) - t0)) s of wall time" | tee -a "$log"
	"$T" best --db "$out/$name.jsonl" >>"$out/summary.txt" 2>&1 || echo "$name: no best" >>"$out/summary.txt"
}

"$T" devices >>"$log" 2>&1
tune sgemm_cuda "$near/sgemm_cuda.space" "${BUDGET_SGEMM_CUDA:-70s}" ${GEMM_SETS:-}
# The CUDA-only read path (ldg = 1: A and B through the read-only cache),
# a setting of gemm_cuda.space, searched on the same neighbourhood
[ -n "${BUDGET_SGEMM_CUDA_LDG:-}" ] &&
	tune sgemm_cuda_ldg "$near/sgemm_cuda.space" "$BUDGET_SGEMM_CUDA_LDG" --set ldg=1 ${GEMM_SETS:-}
# The cp.async pipeline (async_stages = S, a setting of gemm_cuda.space:
# S shared buffers, pre_a, pre_b and dbuf pinned to 0), one search per S
# and lb_min on the same neighbourhood.  lb_min = 3: without staging
# registers the best configuration's shape fits 168 registers unspilled
# (ptxas), three blocks of 128 threads per SM where the register path
# spills.
if [ -n "${BUDGET_SGEMM_CUDA_ASYNC:-}" ]; then
	for s in ${ASYNC_STAGES:-2 3 4}; do
		for lb in ${ASYNC_LB_MIN:-0 3}; do
			tune "sgemm_cuda_async${s}_lb$lb" "$near/sgemm_cuda.space" "$BUDGET_SGEMM_CUDA_ASYNC" \
				--set async_stages="$s" --set lb_min="$lb" ${GEMM_SETS:-}
		done
	done
fi
tune conv7_cuda "$top/spaces/conv2d_cuda.space" "${BUDGET_CONV:-40s}" --set filter_size=7 ${CONV_SETS:-}
tune sgemm_ocl "$near/sgemm.space" "${BUDGET_SGEMM_OCL:-40s}" --backend opencl --device "${OCL_DEVICE:-NVIDIA}" ${GEMM_SETS:-}

wait
if [ -x "$near/cublas_gemm" ]; then
	"$near/cublas_gemm" --reps 21 --prec s >"$out/cublas.txt" 2>&1
else
	cat "$near/nvcc.log" >>"$log" 2>/dev/null
	echo "cuBLAS not built" >>"$out/cublas.txt"
fi
cat "$out/cublas.txt" >>"$out/summary.txt"
# Status counts per database: every evaluation that finished is verified.
for db in "$out"/*.jsonl; do
	[ -f "$db" ] || continue
	printf '%s: ' "$(basename "$db")"
	grep -o '"status": *"[a-z_]*"' "$db" | sort | uniq -c | tr '\n' ' '
	echo
done >>"$out/summary.txt"
cat "$out/summary.txt"
