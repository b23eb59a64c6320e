#!/bin/sh
# spacetune batch: a batch file whose set lines multiply into too many
# problems (found by fuzz/fuzz_batch: 10^7 problems hung the reader, then
# exhausted memory) is a located error, at once; one just under the
# limit is accepted, every problem listed once.  No device needed.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
cp "$TD/vadd.space" "$T/"

# 7 set lines of 10 values: 10^7 problems, over the limit of 10^5.
{
	echo "problem vadd.space"
	for v in A B C D E F G; do echo "  set $v = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9"; done
} >"$T/big.batch"
expect_status "10^7 problems are an error" 1 "$SPACETUNE" batch "$T/big.batch" --list
check "located at the problem" grep -qF "big.batch:1:1: error: the batch expands to more than 100000 problems here (this one alone, the cross product of its set lines, to 10000000)" "$T/err"
check "with the line quoted" grep -qF "problem vadd.space" "$T/err"
check "nothing listed" test ! -s "$T/out"

# The limit counts the whole batch: two problems of 60000 are over it.
printf 'set A = 0, 1, 2, 3, 4, 5\nproblem vadd.space\n  set B = %s\nproblem vadd.space\n  set C = %s\n' \
	"$(seq -s ', ' 0 9999)" "$(seq -s ', ' 0 9999)" >"$T/two.batch"
expect_status "two problems of 60000 are an error" 1 "$SPACETUNE" batch "$T/two.batch" --list
check "located at the second" grep -qF "two.batch:4:1: error: the batch expands to more than 100000 problems here (this one alone, the cross product of its set lines, to 60000)" "$T/err"

# 5 set lines of 10 values: 10^5 problems, at the limit: each listed once.
{
	echo "problem vadd.space"
	for v in A B C D E; do echo "  set $v = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9"; done
} >"$T/max.batch"
expect_status "10^5 problems are accepted" 0 "$SPACETUNE" batch "$T/max.batch" --list
check "listed: 10^5 lines" test "$(wc -l <"$T/out")" -eq $((10 * 10 * 10 * 10 * 10))
check "none twice" test "$(cut -f1 "$T/out" | sort -u | wc -l)" -eq $((10 * 10 * 10 * 10 * 10))
check "no sanitizer report" no_sanitizer_reports "$T/err"
finish
