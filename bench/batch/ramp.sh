#!/bin/sh
# ramp.sh -- the start of a batch whose device workers open their
# devices one after another, as NVIDIA's OpenCL does with many contexts
# at once (bench/README.md, issue 14: 13.8 s for 16), emulated on PoCL
# with the test-only knob SPACETUNE_TEST_START_DELAY_MS: worker k waits
# k x STEP ms before it opens the device.  Two spacetune builds in turn
# (BEFORE: an evaluation bound to any idle worker, ready or not; AFTER:
# only to a ready one), RUNS times each, interleaved so that both see the
# same load, with the kernels cached beforehand; once with the delays
# and once without (STEP 0; only that with STEP 0).  The batch is reuse.sh's: 4 GEMM and 3
# conv2d problems, random search, BUDGET evaluations each, on one
# device.  Prints a markdown table of the median wall times.
#
#   sh bench/batch/ramp.sh BEFORE AFTER [JOBS] [STEP] [RUNS] [BUDGET]
#   (BEFORE, AFTER: two spacetune programs; JOBS 8, STEP 500, RUNS 5, BUDGET 8)
#
# From the repository root (spaces/ and kernels/ must be there).
set -eu
before=$1 after=$2 jobs=${3:-8} step=${4:-500} runs=${5:-5} budget=${6:-8}
steps="$step 0"
[ "$step" -ne 0 ] || steps=0
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. "$(dirname "$0")/small_batch.sh"
small_batch "$top" "$budget" >"$out/b.batch"
# delays STEP: "0,STEP,2 STEP,...", one per worker
delays() { awk -v n="$jobs" -v s="$1" 'BEGIN { for (k = 0; k < n; k++) printf "%s%d", k ? "," : "", k * s }'; }
one() { # name program step: the wall time of a batch on a fresh database
	rm -rf "$out/db"
	t0=$(date +%s.%N)
	SPACETUNE_TEST_START_DELAY_MS=$(delays "$3") XDG_CACHE_HOME="$out/cache-$1" \
		POCL_CACHE_DIR="$out/pocl-$1" "$2" batch "$out/b.batch" --db "$out/db" --jobs "$jobs" \
		--repeat 3 --no-progress >"$out/$1.out" 2>"$out/$1.err" ||
		{ echo "ramp.sh: $1 failed:" >&2; tail -5 "$out/$1.err" >&2; exit 1; }
	t1=$(date +%s.%N)
	n=$(cat "$out/db"/*.jsonl | wc -l)
	bad=$(cat "$out/db"/*.jsonl | jq -r .status | grep -vc '^ok$' || true)
	awk -v a="$t0" -v b="$t1" -v n="$n" -v bad="$bad" -v w="$1" -v s="$3" \
		'BEGIN { printf "%s %d %.2f %d %d\n", w, s, b - a, n, bad }' | tee -a "$out/times" >&2
}
one before "$before" 0 2>/dev/null  # the caches
one after "$after" 0 2>/dev/null
: >"$out/times"
i=0
while [ "$i" -lt "$runs" ]; do
	for s in $steps; do
		one before "$before" "$s"
		one after "$after" "$s"
	done
	i=$((i + 1))
done
echo "| worker k waits | build | runs | evaluations | median s | min s | max s |"
echo "|---|---|---:|---:|---:|---:|---:|"
for s in $steps; do
	for w in before after; do
		awk -v w="$w" -v s="$s" '$1 == w && $2 == s { print $3, $4, $5 }' "$out/times" | sort -n |
			awk -v w="$w" -v s="$s" '{ t[NR] = $1; n = $2; bad += $3 }
				END { printf "| %s | %s | %d | %d%s | %.2f | %.2f | %.2f |\n",
				      s ? "k x " s " ms" : "0", w, NR, n, bad ? " (" bad " not ok)" : "",
				      t[int((NR + 1) / 2)], t[1], t[NR] }'
	done
done
