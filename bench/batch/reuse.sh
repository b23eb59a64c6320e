#!/bin/sh
# reuse.sh -- one batch worker's device workers kept from problem to
# problem (tuner/worker.c: SETUP) against a new evaluator per problem:
# the wall time of one small batch (4 GEMM and 3 conv2d problems, random
# search, BUDGET evaluations each) run by two spacetune builds in turn,
# RUNS times each, interleaved so that both see the same load, with the
# kernels cached beforehand (a first run of each fills its cache).
# Prints each run's time and the medians.
#
#   sh bench/batch/reuse.sh BEFORE AFTER [JOBS] [RUNS] [BUDGET]
#   (BEFORE, AFTER: two spacetune programs; JOBS 2, RUNS 3, BUDGET 4)
#
# From the repository root (spaces/ and kernels/ must be there).
set -eu
before=$1 after=$2 jobs=${3:-2} runs=${4:-3} budget=${5:-4}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. "$(dirname "$0")/small_batch.sh"
small_batch "$top" "$budget" >"$out/b.batch"
one() { # name program: the wall time of a batch on a fresh database
	rm -rf "$out/db"
	t0=$(date +%s.%N)
	XDG_CACHE_HOME="$out/cache-$1" "$2" batch "$out/b.batch" --db "$out/db" --jobs "$jobs" \
		--repeat 3 --no-progress >"$out/$1.out" 2>"$out/$1.err" ||
		{ echo "reuse.sh: $1 failed:" >&2; tail -5 "$out/$1.err" >&2; exit 1; }
	t1=$(date +%s.%N)
	n=$(cat "$out/db"/*.jsonl | wc -l)
	bad=$(cat "$out/db"/*.jsonl | jq -r .status | grep -vc '^ok$' || true)
	awk -v a="$t0" -v b="$t1" -v n="$n" -v bad="$bad" -v w="$1" \
		'BEGIN { printf "%s %.2f s (%d evaluations, %d not ok)\n", w, b - a, n, bad }' |
		tee -a "$out/times"
}
one before "$before" >/dev/null  # the caches
one after "$after" >/dev/null
: >"$out/times"
i=0
while [ "$i" -lt "$runs" ]; do
	one before "$before"
	one after "$after"
	i=$((i + 1))
done
for w in before after; do
	grep "^$w " "$out/times" | awk '{ print $2 }' | sort -n |
		awk -v w="$w" '{ t[NR] = $1 } END { printf "%s median %.2f s of %d\n", w, t[int((NR + 1) / 2)], NR }'
done
