#!/bin/sh
# The optimizer's benchmark (issue 16, section 4): for each naive kernel
# of kernels/opt (spaces/opt), the naive time, the tuned time with
# OCLoptimizer's breadth-first search, the speedup and the tuning time;
# and the tuned matmul next to kernels/gemm.cl tuned by hand
# (spaces/gemm.space) at the same size.
#
#   sh bench/opt/run.sh pocl|gpu OUTDIR
#
# SPACETUNE (default build/spacetune), TOP (default .), SPACES (the
# benchmark spaces, default TOP/spaces/opt; bench/opt/expand.py's output
# on a machine without libclang), GEMM_BUDGET
# (random evaluations of spaces/gemm.space, default 30), BFS (extra bfs
# options, default none: the one best goes on).  Writes OUTDIR/table.md
# (the rows of bench/README.md's table), OUTDIR/*.jsonl (the databases), OUTDIR/times.txt
# and OUTDIR/*.log.
#
# The naive time is the space's naive = 1 point: 16 x 16 work-groups (64
# for N-body), every annotation at its first value (factor 1: the kernel
# as written), measured as the bfs search's starting point (budget 1).
set -u
profile=${1:?pocl or gpu}
out=${2:?output directory}
TOP=${TOP:-.}
ST=${SPACETUNE:-$TOP/build/spacetune}
GEMM_BUDGET=${GEMM_BUDGET:-30}
BFS=${BFS:-}
SPACES=${SPACES:-$TOP/spaces/opt}
mkdir -p "$out"
case $profile in
pocl)
	matmul="--set M=256 --set N=256 --set K=256"
	stencil="--set W=512 --set H=512"
	nbody="--set n=2048"
	dcs="--set nx=128 --set ny=128 --set natoms=512"
	gemm="--set M=256 --set N=256 --set K=256"
	common="--jobs 2 --repeat 3 --warmup 1"
	;;
gpu)
	matmul="--set M=1024 --set N=1024 --set K=1024"
	stencil="--set W=4096 --set H=4096"
	nbody="--set n=16384"
	dcs="--set nx=256 --set ny=256 --set natoms=4096"
	gemm="--set M=1024 --set N=1024 --set K=1024"
	common="--jobs 16 --repeat 5 --warmup 1"
	;;
*) echo "profile: pocl or gpu" >&2; exit 2 ;;
esac

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

# measure: spacetune only (the device machine may lack jq); wall times to times.txt
if [ "${TABLE_ONLY:-0}" != 1 ]; then
	: >"$out/times.txt"
	for k in matmul stencil nbody dcs; do
		eval "sets=\$$k"
		# shellcheck disable=SC2086
		"$ST" run "$SPACES/$k.space" $sets --set naive=1 --strategy bfs --budget 1 \
			--db "$out/$k-naive.jsonl" $common --no-progress >"$out/$k-naive.log" 2>&1
		t0=$(now)
		# shellcheck disable=SC2086
		"$ST" run "$SPACES/$k.space" $sets --strategy bfs $BFS \
			--db "$out/$k.jsonl" $common --no-progress >"$out/$k.log" 2>&1
		t1=$(now)
		echo "$k $(calc "$t1 - $t0")" >>"$out/times.txt"
	done
	# kernels/gemm.cl, parameterized by hand (its #ifdefs), at the matmul's size
	t0=$(now)
	# shellcheck disable=SC2086
	"$ST" run "$TOP/spaces/gemm.space" $gemm --strategy random --budget "$GEMM_BUDGET" --seed 1 \
		--db "$out/gemm.jsonl" $common --no-progress >"$out/gemm.log" 2>&1
	t1=$(now)
	echo "gemm $(calc "$t1 - $t0")" >>"$out/times.txt"
fi
command -v jq >/dev/null || { echo "no jq: run again with TABLE_ONLY=1 where there is one"; exit 0; }

# table
best_ms() { jq -s 'map(select(.status == "ok") | .time_ms.median) | min // "nan"' "$1"; }
secs() { awk -v k="$1" '$1 == k { print $2 }' "$out/times.txt"; }
{
	printf '| kernel | size | naive ms | tuned ms | speedup | evaluations | tuning s | best parameters |\n'
	printf '|---|---|---:|---:|---:|---:|---:|---|\n'
	for k in matmul stencil nbody dcs; do
		eval "sets=\$$k"
		naive=$(best_ms "$out/$k-naive.jsonl")
		tuned=$(best_ms "$out/$k.jsonl")
		params=$(jq -s -r 'map(select(.status == "ok")) | min_by(.time_ms.median) | .params
			| to_entries | map("\(.key)=\(.value)") | join(" ")' "$out/$k.jsonl")
		# the naive point must have every annotation at 1 (the kernel as written)
		jq -e -s '.[0].params | to_entries | map(select(.key != "lx" and .key != "ly")) | all(.value == 1)' \
			"$out/$k-naive.jsonl" >/dev/null || echo "warning: $k's naive point is not the kernel as written" >&2
		printf '| %s | %s | %.4g | %.4g | %.2fx | %s | %.1f | %s |\n' "$k" "$(echo "$sets" | sed 's/--set //g')" \
			"$naive" "$tuned" "$(calc "$naive / $tuned")" "$(wc -l <"$out/$k.jsonl")" "$(secs "$k")" "$params"
	done
	g=$(best_ms "$out/gemm.jsonl")
	m=$(best_ms "$out/matmul.jsonl")
	printf '\n| kernel | size | tuned ms | evaluations | tuning s | time / the tuned matmul'"'"'s |\n'
	printf '|---|---|---:|---:|---:|---:|\n'
	printf '| gemm.cl (parameterized by hand, random %s) | %s | %.4g | %s | %.1f | %.3f |\n' "$GEMM_BUDGET" \
		"$(echo "$gemm" | sed 's/--set //g')" "$g" "$(wc -l <"$out/gemm.jsonl")" "$(secs gemm)" "$(calc "$g / $m")"
} >"$out/table.md"
cat "$out/table.md"
