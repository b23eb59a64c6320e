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
#   sh bench/batch/gpu.sh [--small] [--limit S] [--budget N] [--runs "cold1 cold2 ..."]
#                         [--out DIR] [--devices1 D] [--devices2 D,D] [--slots K]
#   (default: --devices1 NVIDIA, and every OpenCL GPU for the second run)
#
#   --small      small problems and budgets, and PoCL's one device twice as
#                the "2 GPUs": a dry run of the whole script on a CPU
#   --limit S    every run's time limit S seconds (default 70/50/40/30 s,
#                --small 150 s); a run stopped there resumes when rerun
#   --budget N   evaluations per problem (default 16): a longer batch, in
#                which the workers' start weighs less
#   --slots K    K batch workers per GPU (spacetune batch --slots; default 1)
#   --runs LIST  which of cold1 cold2 warm1 warm2 to run (default all four;
#                a warm run needs cold1 in the same call)
#   SPACETUNE    the spacetune to run (default: spacetune on $PATH)
#   NO_CUBLAS=1  leave cuBLAS out (timed in an earlier call)
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
limit=
budget_arg=
runs="cold1 cold2 warm1 warm2"
slots=1
while [ $# -gt 0 ]; do
	case $1 in
	--small) small=1; shift ;;
	--limit) limit=$2; shift 2 ;;
	--budget) budget_arg=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--slots) slots=$2; shift 2 ;;
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
	[ "$dev1" = NVIDIA ] && dev1=0
else
	shapes="2048,2048,2048 4096,4096,4096 2048,4096,1024 4096,2048,4096"
	conv="W = 8192
    set H = 4096"
fi
[ -n "$limit" ] && t1=$limit t2=$limit t3=$limit t4=$limit
[ -n "$budget_arg" ] && budget=$budget_arg
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
# (a build whose enumerators need no compiled cache leaves none to copy)
mkdir -p "$out/cache-warm"

# Each run in its own process group (setsid: a background job of this
# non-job-control shell is no group leader, so setsid does not fork and $!
# is spacetune itself), stopped at its limit by SIGTERM to the group, which
# spacetune takes as it takes Ctrl-C: what is in flight gets a moment, is
# recorded, the summary is printed, a rerun resumes.  Why not SIGINT, as
# before: a `&` job of a non-interactive shell starts with SIGINT ignored
# (POSIX), and spacetune catches it only once the batch is loaded.  And
# `kill -s TERM -- -PGID`: the old `kill -INT -- -PGID` is an error in
# dash, Debian's sh ("Illegal number: -"), sent nothing, and its message
# went to /dev/null: the 2026-11-27 H200 call's cold1 ran on past its
# limit, and past the outer timeout, which signals only its own group.
cur=
stop() { # pid: SIGTERM to its group; a second one after 60 s ends it at once
	kill -s TERM -- "-$1" 2>/dev/null || return 0
	i=0
	while kill -0 "$1" 2>/dev/null && [ "$i" -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -s TERM -- "-$1" 2>/dev/null
}
# This script stopped (an outer timeout, Ctrl-C): its run stops too.
trap '[ -n "$cur" ] && stop "$cur"; exit 143' TERM
trap '[ -n "$cur" ] && stop "$cur"; exit 130' INT
run() { # name devices seconds cache: the cache "new" (cold) or a run's to copy (warm)
	rm -rf "$out/cache-$1"
	if [ "$4" = new ]; then cp -r "$out/cache-warm" "$out/cache-$1"; else cp -r "$out/cache-$4" "$out/cache-$1"; fi
	t0=$(date +%s.%N)
	XDG_CACHE_HOME="$out/cache-$1" setsid "$st" batch "$out/gpu.batch" --db "$out/db-$1" \
		${2:+--devices "$2"} --chunk "$chunk" --slots "$slots" --repeat "$repeat" --warmup 1 --no-progress \
		>"$out/$1.out" 2>"$out/$1.err" &
	cur=$!
	# by the clock: at load, 0.1 s sleeps add up to far more than the limit
	end=$(($(date +%s) + $3))
	while kill -0 "$cur" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.2
	done
	kill -0 "$cur" 2>/dev/null && log "== $1: its limit of $3 s: stopped (SIGTERM)"
	stop "$cur"
	wait "$cur"
	rc=$?
	cur=
	t1_=$(date +%s.%N)
	evals=$(cat "$out/db-$1"/*.jsonl 2>/dev/null | wc -l)
	wall=$(awk -v a="$t0" -v b="$t1_" 'BEGIN { printf "%.2f", b - a }')
	log "== $1: devices $2, exit $rc, $evals evaluations in $wall s"
	grep '^spacetune: batch: ' "$out/$1.err" | tee -a "$out/run.log"
	# (no selection: every GPU; a field of its own for summary.py)
	echo "$1 ${2:-every-GPU} $evals $wall" >>"$out/walls.txt"
}
: >"$out/walls.txt"
# cold: every variant built by NVIDIA's compiler on the host's cores (the
# first tuning of a batch: the builds bound it); warm: the same batch
# again into new databases with the kernels cold1 cached (the host's
# compiler out of the way: what the distribution itself scales to)
for r in $runs; do
	case $r in
	cold1) run cold1 "$dev1" "$t1" new ;;
	cold2) run cold2 "$dev2" "$t2" new ;;
	warm1) run warm1 "$dev1" "$t3" cold1 ;;
	warm2) run warm2 "$dev2" "$t4" cold1 ;;
	*) log "gpu.sh: unknown run '$r'" ;;
	esac
done
rm -rf "$out"/cache-*

# ---- cuBLAS on the GEMM shapes
if [ "$small" = 0 ] && [ -z "${NO_CUBLAS:-}" ] && command -v nvcc >/dev/null 2>&1; then
	nvcc -O2 -o "$out/cublas_gemm" "$top/bench/gpu/cublas_gemm.cu" -lcublas >>"$out/run.log" 2>&1 ||
		log "build of cublas_gemm failed"
	for s in $shapes; do
		set -- $(echo "$s" | tr , ' ')
		"$out/cublas_gemm" --reps 21 --prec sd "$1" "$2" "$3" 2>&1 | tee -a "$out/cublas.txt"
	done
else
	log "no nvcc (or --small, or NO_CUBLAS): cuBLAS skipped"
fi

# ---- the tables (python3: the device machine has no jq)
python3 "$here/summary.py" "$out" | tee -a "$out/run.log"
