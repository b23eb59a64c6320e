#!/bin/sh
# Several problem sizes in one run and the objective (issue 18, section 6):
# --set N=4096,8192 tunes each size as a problem of its own, recorded
# apart and resumed apart; --objective GBS maximises the tune section's
# metric, and `spacetune best` picks by it.  The best is checked against
# the database itself, read by Python.
. "${top_srcdir:-.}/tests/tuner/lib.sh"

expect_status "an empty value in a --set list" 2 "$SPACETUNE" run "$TD/vadd.space" --set N=4096,,8192
expect_status "an empty --objective" 2 "$SPACETUNE" run "$TD/vadd.space" --objective max:
need_opencl
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
run() {
	"$SPACETUNE" run "$T/vadd.space" --db "$T/db.jsonl" --jobs 2 --repeat 2 --budget 6 --strategy exhaustive --no-progress "$@"
}

expect_status "an objective that is no metric" 1 run --objective GFLOPS
check "it names the metrics there are" grep -q "error: --objective 'GFLOPS' is neither 'time' nor a metric of the tune section (its metrics: GBS)" "$T/err"
check "and writes nothing" test ! -e "$T/db.jsonl"

expect_status "two problem sizes" 0 run --set N=4096,8192 --objective GBS
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "each is announced" grep -q "^problem 2 of 2: N=8192$" "$T/out"
for n in 4096 8192; do
	check "N=$n has its own 6 records" test "$(grep -c "\"problem\":\"N=$n\"" "$T/db.jsonl")" -eq 6
done
check "every record says the objective" test "$(grep -c '"objective":"max:GBS"' "$T/db.jsonl")" -eq 12

expect_status "the same command again" 0 run --set N=4096,8192 --objective GBS
check "resumes each problem apart" test "$(grep -c "6 configurations (6 already in" "$T/out")" -eq 2
check "and evaluates nothing again" test "$(grep -c . "$T/db.jsonl")" -eq 12

# The oracle: the record with the highest GBS of problem N=4096, from the file.
oracle=$(python3 - "$T/db.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if r["problem"] == "N=4096" and r["status"] == "ok"]
best = max(ok, key=lambda r: r["metrics"]["GBS"])
print(" ".join("%s=%s" % kv for kv in best["params"].items()), "%.4g" % best["metrics"]["GBS"])
PY
)
expect_status "best of one problem" 0 "$SPACETUNE" best --db "$T/db.jsonl" --problem N=4096
check "no sanitizer report in best" no_sanitizer_reports "$T/err"
check "says the problem and the objective it was run with" grep -q "^objective: max:GBS$" "$T/out"
got="$(sed -n 's/^parameters: //p' "$T/out") $(awk '/^best / { print $2 }' "$T/out")"
[ "$got" = "$oracle" ] && ok "best by GBS is the database's highest ($got)" || bad "best by GBS: $got, the database: $oracle"
expect_status "best by time instead" 0 "$SPACETUNE" best --db "$T/db.jsonl" --problem N=4096 --objective time
check "in ms" grep -q "^best .* ms$" "$T/out"
expect_status "best of a problem never run" 1 "$SPACETUNE" best --db "$T/db.jsonl" --problem N=1
finish
