#!/bin/sh
# spacetune run over faults.space: one configuration per fault of
# faults.cl.  The run must finish, and each fault must be recorded with
# its outcome, fixed by construction in faults.cl (the oracle), and then
# `spacetune best` must pick the correct configuration.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
db=$T/faults.jsonl
# The endless loop costs one run limit: the default, scaled with the
# reference kernel's time, and counted from the kernel's start, so builds
# on a loaded machine do not count.
expect_status "run over every fault" 0 "$SPACETUNE" run "$TD/faults.space" --db "$db" --jobs 2 \
	--repeat 2 --warmup 0
cp "$T/err" "$T/run.err"
check "no sanitizer report from the run or its workers" no_sanitizer_reports "$T/run.err"
check "seven lines, one per fault" test "$(wc -l <"$db")" -eq 7
fault_outcomes "$db" true ""
check "the timeout names the run limit" \
	test "$(jq -r 'select(.params.FAULT == 3) | .error' "$db" | grep -c 'past the run limit of .* (automatic: ')" -eq 1
check "the timeout keeps how long its run had taken" \
	test "$(jq -r 'select(.params.FAULT == 3) | .time_ms.min > 0 and .runs == 0' "$db")" = true
check "the build error keeps the build log" \
	test -n "$(jq -r 'select(.params.FAULT == 1) | .log // empty' "$db")"
check "the launch error names the OpenCL error" \
	test "$(jq -r 'select(.params.FAULT == 5) | .error' "$db" | grep -c '^CL_INVALID_WORK_GROUP_SIZE')" -eq 1
check "the wrong result is off by one" \
	test "$(jq -r 'select(.params.FAULT == 2) | .max_abs_err >= 0.99 and .max_abs_err <= 1.01' "$db")" = true
check "the NaN is counted" test "$(jq -r 'select(.params.FAULT == 6) | .nonfinite' "$db")" -ge 1
check "only the correct variant has a time" \
	test "$(jq -s '[.[] | select(.status == "ok" and .time_ms.median > 0)] | length' "$db")" -eq 1
grep -q "ok 1 build_error 1 launch_error 1 wrong_result 2 timeout 1 crashed 1" "$T/out" &&
	ok "summary counts every outcome" || { bad "summary counts"; cat "$T/out"; }
expect_status "best picks the correct variant" 0 "$SPACETUNE" best --db "$db" --header "$T/best.h"
check "best.h defines FAULT 0" grep -q '^#define FAULT 0$' "$T/best.h"
# Resuming a finished run evaluates nothing and adds no line.
expect_status "resume of a finished run" 0 "$SPACETUNE" run "$TD/faults.space" --db "$db" --jobs 2
check "still seven lines" test "$(wc -l <"$db")" -eq 7
# An out-only buffer is reset once, before the run read back (not before
# each run): a variant that writes nothing must still be caught, after the
# reference and a correct variant filled the same worker's buffer.  And an
# input a variant spoiled is whole again for the next evaluation.  Both
# ways of resetting: from the pristine copy on the device (the default
# here), and from the host (where the copies would not fit).
for resets in device host; do
	db=$T/outonly-$resets.jsonl
	hr=0; [ $resets = host ] && hr=1
	SPACETUNE_TEST_HOST_RESETS=$hr expect_status "out-only buffer, resets from the $resets" 0 \
		"$SPACETUNE" run "$TD/outonly.space" --db "$db" --strategy exhaustive --jobs 1 --repeat 3
	check "$resets: evaluated in the order SKIP=2, 0, 1 ($(jq -r .params.SKIP "$db" | tr '\n' ' '))" \
		test "$(jq -r .params.SKIP "$db" | tr '\n' ' ')" = "2 0 1 "
	check "$resets: the variant that writes nothing is a wrong result" \
		test "$(jq -r 'select(.params.SKIP == 1) | .status' "$db")" = wrong_result
	check "$resets: the one that spoils its input is a wrong result (its second run reads it)" \
		test "$(jq -r 'select(.params.SKIP == 2) | .status' "$db")" = wrong_result
	check "$resets: the one that writes, after it, is ok" \
		test "$(jq -r 'select(.params.SKIP == 0) | .status' "$db")" = ok
done
finish
