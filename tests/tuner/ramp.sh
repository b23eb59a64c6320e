#!/bin/sh
# An evaluation never waits behind a worker still opening its device
# (tuner/worker.c: it goes only to a ready, idle worker).  The test-only
# knob SPACETUNE_TEST_START_DELAY_MS holds every worker but the first
# for D seconds before it opens the device, as a GPU driver slow to
# create contexts does.  The oracle is the clock: were any evaluation
# handed to a held worker, the run could not end before D; it must end,
# every evaluation recorded ok, well before.  Then with D short against
# the run, the held workers, once up, take evaluations too (their pids
# in the device lock's trace).
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"

now() { date +%s.%N; }
# elapsed START: seconds since START, from now()
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# less A B: A < B, as decimals
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# Long against the runs (a few seconds each, even under ASan on a loaded
# machine), so that only a run that waited for a held worker reaches it.
D=60

# ---- spacetune run: 8 evaluations, 4 workers of which 3 are held
t0=$(now)
SPACETUNE_TEST_START_DELAY_MS=0,${D}000 expect_status "a run with workers 1-3 held ${D} s" 0 \
	"$SPACETUNE" run "$T/vadd.space" --strategy random --budget 8 --seed 2 --jobs 4 \
	--db "$T/run.jsonl" --no-progress
took=$(elapsed "$t0")
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "8 evaluations recorded ok" test "$(jq -r 'select(.status == "ok") | .point' "$T/run.jsonl" |
	sort -u | wc -l)" -eq 8
check "the run ended in $took s, before the held workers could open the device (${D} s)" \
	less "$took" "$D"

# ---- a batch: the first problem is not held up by the workers still
# starting, nor the next ones (their workers, kept, are the same)
cat >"$T/three.batch" <<'EOF'
strategy random
budget 5
seed 3
problem vadd.space
    set N = 1024, 2048, 4096
EOF
t0=$(now)
SPACETUNE_TEST_START_DELAY_MS=0,${D}000 expect_status "a batch of three problems, workers 1-3 held ${D} s" 0 \
	"$SPACETUNE" batch "$T/three.batch" --db "$T/B" --jobs 4 --no-progress
took=$(elapsed "$t0")
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "no sanitizer report in the batch's log" no_sanitizer_reports "$T/B/default.log"
check "15 evaluations recorded ok" test "$(jq -r 'select(.status == "ok") | [.problem, .point] | tostring' \
	"$T/B/default.jsonl" | sort -u | wc -l)" -eq 15
check "the batch ended in $took s, before the held workers could open the device (${D} s)" \
	less "$took" "$D"

# ---- held 1 s, in a run of 32 evaluations that each hold the device a
# while (400 timed runs): workers 1-3, once up, take their share
SPACETUNE_TEST_START_DELAY_MS=0,1000 SPACETUNE_TRACE_LOCK=1 expect_status "a run with workers 1-3 held 1 s" 0 \
	"$SPACETUNE" run "$T/vadd.space" --strategy exhaustive --jobs 4 --repeat 400 \
	--db "$T/join.jsonl" --no-progress
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "32 evaluations recorded ok" test "$(jq -r 'select(.status == "ok") | .point' "$T/join.jsonl" |
	sort -u | wc -l)" -eq 32
pids=$(grep -o '^spacetune-lock [0-9]* acquired' "$T/err" | cut -d' ' -f2 | sort -u | wc -l)
check "the workers held at the start timed evaluations too ($pids processes did)" test "$pids" -ge 2

# ---- the same in a batch: workers that come up during a later problem
# (SETUP reached them while they were held) time its evaluations, with
# its own reference outputs (with the last problem's, whose size
# differs, they would record wrong results)
cat >"$T/long.batch" <<'EOF'
strategy exhaustive
problem vadd.space
    set N = 1024, 2048, 4096
EOF
SPACETUNE_TEST_START_DELAY_MS=0,1000,4000 SPACETUNE_TRACE_LOCK=1 expect_status "a batch with workers 1-3 held 1, 4 and 4 s" 0 \
	"$SPACETUNE" batch "$T/long.batch" --db "$T/L" --jobs 4 --repeat 200 --no-progress
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "no sanitizer report in the batch's log" no_sanitizer_reports "$T/L/default.log"
n=$(jq -r '[.problem, .point] | tostring' "$T/L/default.jsonl" | sort -u | wc -l)
check "every point of the three problems recorded once ($n)" \
	test "$n" -eq "$(wc -l <"$T/L/default.jsonl")" -a "$n" -ge 60
check "every evaluation ok" test "$(jq -r .status "$T/L/default.jsonl" | sort -u)" = ok
grep -h -o '^spacetune-lock [0-9]* acquired' "$T/L/default.log" "$T/err" | cut -d' ' -f2 | sort -u >"$T/lpids"
check "the workers held at the start timed evaluations too ($(wc -l <"$T/lpids") processes did)" \
	test "$(wc -l <"$T/lpids")" -ge 2
finish
