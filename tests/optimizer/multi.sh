#!/bin/sh
# A code of several kernels with sizes and arguments of their own
# (multi.space: `kernel blur` over n elements, then `kernel blocksum` over
# n / bl blocks, reading blur's output through `arg t`), on PoCL:
# - each kernel gets its own sizes and arguments (spacetune variant);
# - a sample of the joint space (both kernels' work-groups and the
#   optimizer's annotations of both) verified against the C reference of
#   the whole code (multi_ref.c, the oracle), and the kernels tuned one
#   after the other (bfs: one parameter a level);
# - the oracle sees the dependency and the sizes: the same code with
#   blocksum reading blur's input instead of its output, or launched
#   over half its blocks, is a wrong result at every point;
# - `best --host` writes a program that builds both kernels, sets each
#   one's arguments and sizes, compiles with -Wall -Wextra -Werror, runs,
#   and agrees with the reference (tests/tuner/host_check.c); a corrupted
#   output is caught.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
D=$top_srcdir/tests/optimizer

expect_status "variant" 0 "$SPACETUNE" variant "$D/multi.space" L1=64 L2=4 c_b=2 u_j=4
# blur: 2048 items coarsened by 2; blocksum: 2048 / 32 blocks, its own
# work-group, and its own arguments (bl, t, w, s: t is blur's third)
check "variant: blur's sizes and arguments" grep -q '^ \* kernel 0 blur: global 1024, local 64, arguments 0 1 2$' "$T/out"
check "variant: blocksum's sizes and arguments" grep -q '^ \* kernel 1 blocksum: global 64, local 4, arguments 3 2 4 5$' "$T/out"

need_opencl
run() { # name space db
	expect_status "$1: run" 0 "$SPACETUNE" run "$2" --db "$3" --strategy random --seed 1 --budget 6 \
		--jobs 2 --repeat 1 --warmup 0 --no-progress
}
run "joint" "$D/multi.space" "$T/m.jsonl"
check "joint: no sanitizer report" no_sanitizer_reports "$T/err"
check "joint: 6 configurations verified" \
	test "$(jq -s '[.[] | select(.status == "ok")] | length' "$T/m.jsonl")" -eq 6
check "joint: recorded as one code" test "$(jq -r .kernel "$T/m.jsonl" | sort -u)" = "blur,blocksum"
check "joint: each kernel's sizes recorded" \
	test "$(jq -c '.kernel_sizes[1].global' "$T/m.jsonl" | sort -u)" = "[64]"

expect_status "export --json" 0 "$SPACETUNE" export "$T/m.jsonl" --json "$T/m.json"
check "export --json: each kernel's sizes" test "$(jq -c '.[0].kernel_sizes | map(.global)' "$T/m.json")" = \
	"$(jq -s -c 'map(select(.status == "ok")) | min_by(.time_ms.median) | .kernel_sizes | map(.global)' "$T/m.jsonl")"

# one kernel after the other: bfs varies blur's work-group (L1), then
# blocksum's (L2), then each annotation, every point verified
expect_status "one after the other: bfs" 0 "$SPACETUNE" run "$D/multi.space" --db "$T/bfs.jsonl" --strategy bfs \
	--jobs 2 --repeat 1 --warmup 0 --no-progress
check "one after the other: every point verified" \
	test "$(jq -s '[.[] | select(.status != "ok")] | length' "$T/bfs.jsonl")" -eq 0
check "one after the other: blocksum's work-group searched with blur's fixed" \
	test "$(jq -r 'select(.params.L2 != 1) | .params.L1' "$T/bfs.jsonl" | sort -u | wc -l)" -eq 1

# copies next to the sources
cp "$D/multi.cl" "$D/multi_ref.c" "$T/"
sed 's/^    arg t$/    arg a/' "$D/multi.space" >"$T/nodep.space"
run "no dependency" "$T/nodep.space" "$T/nodep.jsonl"
check "no dependency: every configuration is a wrong result" \
	test "$(jq -s '[.[] | select(.status == "wrong_result")] | length' "$T/nodep.jsonl")" -eq 6
sed 's|^    global \[n // bl\]$|    global [n // bl // 2]|' "$D/multi.space" >"$T/half.space"
run "half the blocks" "$T/half.space" "$T/half.jsonl"
check "half the blocks: every configuration is a wrong result" \
	test "$(jq -s '[.[] | select(.status == "wrong_result")] | length' "$T/half.jsonl")" -eq 6

# the program of the best configuration
expect_status "best --host" 0 "$SPACETUNE" best --db "$T/m.jsonl" --host "$T/multi.c" --source "$T/multi_tuned.cl" \
	"$D/multi.space"
check "the program compiles with -Wall -Wextra -Werror" \
	${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror -o "$T/multi" "$T/multi.c" -lOpenCL
best=$(jq -s -c 'map(select(.status == "ok")) | min_by(.time_ms.median) | .kernel_sizes' "$T/m.jsonl")
g0=$(echo "$best" | jq -r '.[0].global | join(", ")') g1=$(echo "$best" | jq -r '.[1].global | join(", ")')
l1=$(echo "$best" | jq -r '.[1].local | join(", ")')
check "the program launches blur over its tuned size" grep -q "_GLOBAL_0\[1\] = { $g0 };" "$T/multi.c"
check "the program launches blocksum over its own size" grep -q "_GLOBAL_1\[1\] = { $g1 };" "$T/multi.c"
check "the program gives blocksum its own work-group" grep -q "_LOCAL_1\[1\] = { $l1 };" "$T/multi.c"
host_run_check multi "$T/multi" "$D/multi_ref.c" multi_ref 1e-5 1e-3
printf '\177\177\177\177' | dd of="$T/multi.d/s.out" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_status "a corrupted output is caught" 1 "$T/multi.check" "$T/multi.d" 1e-5 1e-3
finish
