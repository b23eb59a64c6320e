#!/bin/sh
# gpu.sh -- issue 14, section 6, in one call on the device machine: a batch
# of 8 GEMM problems (spaces/gemm.space: 4 shapes x single/double, NN) and
# 3 convolutions (spaces/conv2d.space, filter 3, 7, 11), random search with
# a fixed budget (16 evaluations each, cut into chunks of 8), run by
# `spacetune batch` on 1 GPU and on 2, each with a cold kernel cache, then
# both again with the kernels cold1 cached; then cuBLAS on the same GEMM
# shapes (bench/gpu/cublas_gemm.cu).  Writes summary.md (summary.py): wall
# times, each device's share of the wall time spent running the kernels
# it timed (the batch's own summary line), the throughput ratios and each
# problem's best against cuBLAS.
#
#   sh bench/batch/gpu.sh [--small] [--out DIR] [--devices1 D] [--devices2 D,D]
#   (default: --devices1 NVIDIA, and every OpenCL GPU for the second run)
#
#   --small      small problems and budgets, and PoCL's one device twice as
#                the "2 GPUs": a dry run of the whole script on a CPU
#   SPACETUNE    the spacetune to run (default: spacetune on $PATH)
#
# From the repository root (spaces/ and kernels/ must be there).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-./batch-gpu-out}
st=${SPACETUNE:-spacetune}
small=0
# By name: an index selects device D of the first platform that has one,
# which on the lent machines (PoCL installed beside NVIDIA's driver) made
# "--devices 0" PoCL's CPU and "0,1" the CPU and the second GPU (the first
# call, 2026-11-27).  "NVIDIA" is the first GPU; no --devices, every GPU.
dev1=NVIDIA
dev2=
budget=16 chunk=8 repeat=5 t1=70 t2=50 t3=40 t4=30
while [ $# -gt 0 ]; do
	case $1 in
	--small) small=1; shift ;;
	--out) out=$2; shift 2 ;;
	--devices1) dev1=$2; shift 2 ;;
	--devices2) dev2=$2; shift 2 ;;
	*) echo "gpu.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
log() { printf '%s\n' "$*" | tee -a "$out/run.log"; }
# the NVIDIA driver's own kernel cache would warm the second run
export CUDA_CACHE_DISABLE=1

if [ "$small" = 1 ]; then
	shapes="256,256,256"
	conv="W = 256
    set H = 128"
	budget=2 chunk=1 repeat=1 t1=150 t2=150 t3=150 t4=150
else
	shapes="2048,2048,2048 4096,4096,4096 2048,4096,1024 4096,2048,4096"
	conv="W = 8192
    set H = 4096"
fi
{
	echo "# issue 14's GPU batch (bench/batch/gpu.sh)"
	echo "strategy random"
	echo "budget $budget"
	for s in $shapes; do
		echo "problem $top/spaces/gemm.space"
		echo "    set M = ${s%%,*}"
		r=${s#*,}
		echo "    set N = ${r%%,*}"
		echo "    set K = ${r#*,}"
		echo "    set precision = \"single\", \"double\""
	done
	echo "problem $top/spaces/conv2d.space"
	echo "    set $conv"
	echo "    set filter_size = 3, 7, 11"
} >"$out/gpu.batch"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv 2>&1 || true
	nproc
	"$st" devices 2>&1 | head -20
} >"$out/machine.txt" 2>&1
log "# $(grep -c '' "$out/gpu.batch") batch lines; $("$st" batch "$out/gpu.batch" --list | wc -l) problems"

# the compiled enumerators once, shared; the kernel caches cold for each run
export XDG_CACHE_HOME="$out/cache-warm"
"$st" batch "$out/gpu.batch" --list --shard 0/1 >"$out/problems.txt" 2>>"$out/run.log"

run() { # name devices seconds cache: the cache "new" (cold) or a run's to copy (warm)
	rm -rf "$out/cache-$1"
	if [ "$4" = new ]; then cp -r "$out/cache-warm" "$out/cache-$1"; else cp -r "$out/cache-$4" "$out/cache-$1"; fi
	t0=$(date +%s.%N)
	# Its own process group, stopped with one SIGINT to the group at the
	# time limit: GNU timeout signals the child and then its group, and a
	# second SIGINT ends spacetune at once, before its summary.
	XDG_CACHE_HOME="$out/cache-$1" setsid "$st" batch "$out/gpu.batch" --db "$out/db-$1" \
		${2:+--devices "$2"} --chunk "$chunk" --repeat "$repeat" --warmup 1 --no-progress \
		>"$out/$1.out" 2>"$out/$1.err" &
	pid=$!
	i=0
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt "$(($3 * 10))" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT -- "-$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	t1_=$(date +%s.%N)
	evals=$(cat "$out/db-$1"/*.jsonl 2>/dev/null | wc -l)
	wall=$(awk -v a="$t0" -v b="$t1_" 'BEGIN { printf "%.2f", b - a }')
	log "== $1: devices $2, exit $rc, $evals evaluations in $wall s"
	grep '^spacetune: batch: ' "$out/$1.err" | tee -a "$out/run.log"
	echo "$1 $2 $evals $wall" >>"$out/walls.txt"
}
: >"$out/walls.txt"
# cold: every variant built by NVIDIA's compiler on the host's cores (the
# first tuning of a batch: the builds bound it); warm: the same batch
# again into new databases with the kernels cold1 cached (the host's
# compiler out of the way: what the distribution itself scales to)
run cold1 "$dev1" "$t1" new
run cold2 "$dev2" "$t2" new
run warm1 "$dev1" "$t3" cold1
run warm2 "$dev2" "$t4" cold1
rm -rf "$out"/cache-*

# ---- cuBLAS on the GEMM shapes
if [ "$small" = 0 ] && command -v nvcc >/dev/null 2>&1; then
	nvcc -O2 -o "$out/cublas_gemm" "$top/bench/gpu/cublas_gemm.cu" -lcublas >>"$out/run.log" 2>&1 ||
		log "build of cublas_gemm failed"
	for s in $shapes; do
		set -- $(echo "$s" | tr , ' ')
		"$out/cublas_gemm" --reps 21 --prec sd "$1" "$2" "$3" 2>&1 | tee -a "$out/cublas.txt"
	done
else
	log "no nvcc (or --small): cuBLAS skipped"
fi

# ---- the tables (python3: the device machine has no jq)
python3 "$here/summary.py" "$out" | tee -a "$out/run.log"
