#!/bin/sh
# bench/batch/gpu.sh's per-run time limit, as the device machine runs it:
# the script under /bin/sh (dash on Debian), itself a background job of a
# non-interactive shell (so its jobs start with SIGINT ignored), on PoCL
# with --small (5 problems, 2 evaluations each, chunks of 1) and a 5 s
# limit per run, under an outer `timeout`.  On 2026-11-27 the limit
# stopped nothing: its `kill -INT -- -PGID` is an error in dash.
# The oracles are the files: each run that the limit ended says
# "interrupted" and stopped well before the whole batch could run (cold1
# cannot build 10 variants and 5 references in 5 s), no spacetune of the
# script outlives it, every database line is a complete JSON record, and
# the same batch command run again completes exactly the missing work:
# every record kept, every problem's budget (from `--list`, times the
# budget the script writes) recorded once, nothing timed twice.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
G=$T/g
limit=5
# `&` in this non-interactive shell: the script and its jobs ignore SIGINT
SPACETUNE=$SPACETUNE timeout 600 /bin/sh "$top_srcdir/bench/batch/gpu.sh" --small --limit $limit \
	--devices1 0 --devices2 0 --out "$G" >"$T/script.out" 2>&1 &
spid=$!
wait $spid
src=$?
check "gpu.sh ended by itself (exit $src), not by the outer timeout" test "$src" -ne 124
check "no spacetune of the script outlives it" none_left "$G/gpu.batch"
check "four runs logged" test "$(wc -l <"$G/walls.txt" 2>/dev/null || echo 0)" -eq 4
for r in cold1 cold2 warm1 warm2; do
	wall=$(awk -v r=$r '$1 == r { print $NF }' "$G/walls.txt")
	# the limit, the grace given to evaluations in flight (tuner/worker.c,
	# 5 s) and the start and the summary at load; the whole batch takes far
	# longer on a CPU
	check "$r: ended within ${limit} s + 45 s (${wall:-?} s)" \
		awk -v w="${wall:-1e9}" -v l=$limit 'BEGIN { exit !(w <= l + 45) }'
done
check "cold1 was stopped by the limit" grep -q 'interrupted; run the same command again' "$G/cold1.err"
check "cold1 is incomplete" grep -q 'incomplete:' "$G/cold1.err"
valid() { # every line of the databases a JSON object with params and a status
	for f in "$1"/*.jsonl; do
		[ -e "$f" ] || continue
		jq -e -c 'select((.params | type) == "object" and (.status | type) == "string")' "$f" |
			wc -l | grep -qx "$(wc -l <"$f")" || return 1
	done
}
check "cold1's database: whole records only" valid "$G/db-cold1"
cat "$G"/db-cold1/*.jsonl 2>/dev/null | sort >"$T/before"
budget=$(sed -n 's/^budget //p' "$G/gpu.batch")
nproblems=$("$SPACETUNE" batch "$G/gpu.batch" --list | wc -l)
total=$((budget * nproblems))
check "stopped before its $total evaluations ($(wc -l <"$T/before") recorded)" \
	test "$(wc -l <"$T/before")" -lt "$total"
expect_status "the same batch command again runs to its end" 0 "$SPACETUNE" batch "$G/gpu.batch" \
	--db "$G/db-cold1" --devices 0 --chunk 1 --repeat 1 --warmup 1 --no-progress
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "it says so: complete" grep -q 'batch: complete: all' "$T/err"
cat "$G"/db-cold1/*.jsonl | sort >"$T/after"
check "every record there was is kept" test -z "$(comm -23 "$T/before" "$T/after")"
check "every problem's budget recorded: $total evaluations" test "$(wc -l <"$T/after")" -eq "$total"
check "nothing timed twice" test "$(jq -c '[.device, .source_hash, .problem, .params]' "$T/after" |
	sort | uniq -d | wc -l)" -eq 0
finish
