#!/bin/sh
# Crash safety: kill -9 a run midway, leave a torn line as a crash in the
# middle of a write would, resume, and check that every configuration of
# the space (the oracle: `spacec list`) was evaluated exactly once overall
# and that no worker outlived the killed run.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
db=$T/resume.jsonl
"$SPACEC" list --format jsonl "$TD/vadd.space" | jq -S -c . | sort >"$T/want"
n=$(wc -l <"$T/want")

"$SPACETUNE" run "$TD/vadd.space" --db "$db" --jobs 2 --repeat 2 >"$T/out1" 2>"$T/err1" &
pid=$!
# wait until a few evaluations are in, at most 120 s
i=0
while [ "$i" -lt 1200 ] && [ "$(cat "$db" 2>/dev/null | wc -l)" -lt 4 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
before=$(wc -l <"$db")
if [ "$before" -ge 4 ] && [ "$before" -lt "$n" ]; then ok "killed midway ($before of $n recorded)"; else
	bad "kill -9 did not land midway ($before of $n)"; fi
# Workers (forked, so their command line names $db too) notice their
# parent is gone and exit.
i=0
while [ "$i" -lt 50 ] && pgrep -f -- "$db" >/dev/null; do
	sleep 0.2
	i=$((i + 1))
done
check "no worker outlives the killed run" test -z "$(pgrep -f -- "$db")"
printf '{"v":1,"time":"2026-' >>"$db"

expect_status "resume" 0 "$SPACETUNE" run "$TD/vadd.space" --db "$db" --jobs 2 --repeat 2
check "the torn line is reported" grep -q 'warning: ignoring a torn last line' "$T/err"
check "resume reuses what was recorded" grep -q "($before already in" "$T/out"
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "every line is whole JSON" jq -e . "$db" >/dev/null
jq -S -c .params "$db" | sort >"$T/got"
check "no duplicates" test "$(sort -u "$T/got" | wc -l)" -eq "$(wc -l <"$T/got")"
cmp -s "$T/want" "$T/got" && ok "every configuration evaluated exactly once overall" ||
	{ bad "configurations differ from spacec list"; diff "$T/want" "$T/got" | head; }
finish
