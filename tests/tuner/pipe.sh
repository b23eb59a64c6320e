#!/bin/sh
# Several kernels in sequence (pipe.space: `kernel smooth, spread`) on
# PoCL: every configuration of the joint space runs both kernels and
# verifies against the C reference of the whole sequence; the same space
# with the order reversed must fail verification at every point (spread
# then reads a t that smooth has not written: the oracle sees the
# dependency); and `best --host` writes a program that runs the sequence
# and agrees with the reference (host_check.c).
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
n=$("$SPACEC" count "$TD/pipe.space")
expect_status "the sequence: run" 0 "$SPACETUNE" run "$TD/pipe.space" --db "$T/pipe.jsonl" \
	--jobs 2 --repeat 2 --no-progress
check "the sequence: no sanitizer report" no_sanitizer_reports "$T/err"
check "the sequence: all $n configurations verified" \
	test "$(jq -s '[.[] | select(.status == "ok")] | length' "$T/pipe.jsonl")" -eq "$n"
check "the sequence: recorded as one kernel name" \
	test "$(jq -r .kernel "$T/pipe.jsonl" | sort -u)" = "smooth,spread"

# reversed, in a copy next to its sources
cp "$TD/pipe.cl" "$TD/pipe_ref.c" "$T/"
sed 's/kernel smooth, spread from/kernel spread, smooth from/' "$TD/pipe.space" >"$T/rev.space"
expect_status "reversed: run" 0 "$SPACETUNE" run "$T/rev.space" --db "$T/rev.jsonl" \
	--jobs 2 --repeat 1 --strategy random --budget 3 --seed 1 --no-progress
check "reversed: every configuration is a wrong result" \
	test "$(jq -s '[.[] | select(.status == "wrong_result")] | length' "$T/rev.jsonl")" -eq 3

# a kernel the source lacks: a build error naming it
sed 's/kernel smooth, spread from/kernel smooth, nosuch from/' "$TD/pipe.space" >"$T/missing.space"
expect_status "a missing kernel: run" 0 "$SPACETUNE" run "$T/missing.space" --db "$T/missing.jsonl" \
	--jobs 1 --repeat 1 --strategy random --budget 1 --no-progress
check "a missing kernel: build_error naming it" \
	test "$(jq -r '"\(.status) \(.error)"' "$T/missing.jsonl" | grep -c "build_error .*'nosuch'")" -eq 1

# the program of the best configuration runs both kernels
expect_status "best --host" 0 "$SPACETUNE" best --db "$T/pipe.jsonl" --host "$T/pipe.c" "$TD/pipe.space"
check "the program compiles with -Wall -Wextra -Werror" \
	${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror -o "$T/pipe" "$T/pipe.c" -lOpenCL
check "the program names both kernels" grep -q '"smooth", "spread"' "$T/pipe.c"
host_run_check pipe "$T/pipe" "$TD/pipe_ref.c" pipe_ref 1e-5 1e-6
finish
