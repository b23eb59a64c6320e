#!/bin/sh
# spacetune end to end on PoCL: tune vadd.space exhaustively, check every
# configuration of the space was evaluated once and verified (the oracle
# for the set: `spacec list`), then check `spacetune best` against the
# best computed from the database with jq, and its outputs.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
db=$T/vadd.jsonl
"$SPACEC" list --format jsonl "$TD/vadd.space" | jq -S -c . | sort >"$T/want"
check "the oracle lists the space" test -s "$T/want"

expect_status "exhaustive run" 0 "$SPACETUNE" run "$TD/vadd.space" --db "$db" --jobs 2 --repeat 3
cp "$T/err" "$T/run.err"
check "no sanitizer report" no_sanitizer_reports "$T/run.err"
jq -S -c .params "$db" | sort >"$T/got"
cmp -s "$T/want" "$T/got" && ok "every configuration evaluated exactly once" ||
	{ bad "configurations differ from spacec list"; diff "$T/want" "$T/got" | head; }
if [ "$(jq -s '[.[] | select(.status != "ok")] | length' "$db")" -eq 0 ]; then
	ok "every configuration verified"
else
	bad "every configuration verified; statuses seen: $(jq -r .status "$db" | sort | uniq -c | tr -s ' \n' ' ')"
	jq -c 'select(.status != "ok") | {params, status, error}' "$db" | head -n 10 | sed 's/^/    | /'
	sed 's/^/    | /' "$T/run.err" | tail -n 20
fi
check "throughput recorded" test "$(jq -s '[.[] | select(.metrics.GBS > 0)] | length' "$db")" -eq "$(wc -l <"$T/want")"
check "progress line printed" grep -q '^spacetune: \[[0-9]*/[0-9]*\] best ' "$T/run.err"
check "summary names the best" grep -q '^best: ' "$T/out"

# best, against jq's own minimum
want_ms=$(jq -s 'map(select(.status == "ok")) | min_by(.time_ms.median) | .time_ms.median' "$db")
want_wpt=$(jq -s 'map(select(.status == "ok")) | min_by(.time_ms.median) | .params.WPT' "$db")
expect_status "best" 0 "$SPACETUNE" best --db "$db" --header "$T/best.h" --json "$T/best.json"
check "best reports the minimum time" test "$(jq .time "$T/best.json")" = "$want_ms"
check "best.json has CLTune's fields" \
	test "$(jq -r '[.kernel_name, (.parameters.WPT|tostring), .results[0].kernel] | join(",")' "$T/best.json")" = "vadd,$want_wpt,vadd"
check "best.h defines the best WPT" grep -q "^#define WPT $want_wpt\$" "$T/best.h"
printf '#include "%s"\n#if !defined(WPT) || !defined(UNROLL)\n#error missing\n#endif\nint x;\n' "$T/best.h" >"$T/use.c"
check "best.h compiles" ${CC:-cc} -Wall -Wextra -Werror -fsyntax-only "$T/use.c"
n=$(wc -l <"$T/want")
check "summary counts all records" grep -q "vadd on .*: $n records, ok $n" "$T/out"
check "no temporary files left" test -z "$(ls "$T" | grep tmp)"

# other strategies under a budget: the right number of distinct, valid points
for s in random pso; do
	expect_status "$s with --budget 5" 0 "$SPACETUNE" run "$TD/vadd.space" --db "$T/$s.jsonl" \
		--jobs 2 --repeat 2 --strategy $s --budget 5 --seed 7
	check "$s: five lines" test "$(wc -l <"$T/$s.jsonl")" -eq 5
	check "$s: five distinct configurations of the space" \
		test "$(jq -S -c .params "$T/$s.jsonl" | sort -u | comm -12 - "$T/want" | wc -l)" -eq 5
done

# --progress draws the status line (from the start when asked for, even
# into a file); --no-progress prints no progress at all
expect_status "--progress" 0 "$SPACETUNE" run "$TD/vadd.space" --db "$T/progress.jsonl" \
	--jobs 2 --repeat 1 --strategy random --budget 3 --progress
tr '\r' '\n' <"$T/err" | grep -q "^.\[K\(reading the device\|loading the space\|starting\|tuning\)" &&
	ok "--progress draws the status line" || bad "--progress: $(tr '\r' '\n' <"$T/err" | tail -n 3)"
expect_status "--no-progress" 0 "$SPACETUNE" run "$TD/vadd.space" --db "$T/quiet.jsonl" \
	--jobs 2 --repeat 1 --strategy random --budget 3 --no-progress
grep -q "\[[0-9]*/[0-9]*\]\|ETA" "$T/err" && bad "--no-progress: $(cat "$T/err")" || ok "--no-progress prints none"

# a configuration the job cannot launch (global 24 not divisible by local
# 5) is recorded as skipped, and a rerun does not record it again
sed -e 's/^setting N = .*/setting N = 24/' -e 's/^WPT = .*/WPT = [1]/' -e 's/^LOCAL = .*/LOCAL = [1, 5, 8]/' \
	-e 's/^UNROLL = .*/UNROLL = [0]/' -e '/^require N %/d' "$TD/vadd.space" >"$T/skip.space"
cp "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
expect_status "a space with an unlaunchable configuration" 0 "$SPACETUNE" run "$T/skip.space" \
	--db "$T/skip.jsonl" --jobs 2 --repeat 2
check "it is recorded as skipped, the others ok" \
	test "$(jq -r '"\(.params.LOCAL):\(.status)"' "$T/skip.jsonl" | sort | tr '\n' ' ')" = "1:ok 5:skipped 8:ok "
expect_status "rerun" 0 "$SPACETUNE" run "$T/skip.space" --db "$T/skip.jsonl" --jobs 2
check "the rerun adds nothing" test "$(wc -l <"$T/skip.jsonl")" -eq 3
finish
