#!/bin/sh
# spacetune's command line and bad input: usage errors exit 2; a bad tune
# section, a missing kernel source, no OpenCL device and unreadable or
# useless databases exit 1 with a clear message, and leave no database,
# header or JSON file behind, complete or not.
. "${top_srcdir:-.}/tests/tuner/lib.sh"

expect_status "no arguments" 2 "$SPACETUNE"
expect_status "--help" 0 "$SPACETUNE" --help
check "--help prints usage" grep -q "usage: spacetune" "$T/out"
expect_status "--version" 0 "$SPACETUNE" --version
expect_status "unknown command" 2 "$SPACETUNE" frobnicate
expect_status "run without a file" 2 "$SPACETUNE" run
# the compiler's switches are spacec's (lib/spacec.h): a bad one is a usage error
expect_status "run -O3" 2 "$SPACETUNE" run "$TD/vadd.space" -O3
expect_status "run -fno-such-pass" 2 "$SPACETUNE" run "$TD/vadd.space" -fno-such-pass
expect_status "run --jit=gcc" 2 "$SPACETUNE" run "$TD/vadd.space" --jit=gcc
expect_status "unknown strategy" 2 "$SPACETUNE" run "$TD/vadd.space" --strategy bogus
expect_status "bad budget" 2 "$SPACETUNE" run "$TD/vadd.space" --budget 10x
expect_status "bad jobs" 2 "$SPACETUNE" run "$TD/vadd.space" --jobs 0
expect_status "bad timeout" 2 "$SPACETUNE" run "$TD/vadd.space" --timeout -1
expect_status "bad run timeout" 2 "$SPACETUNE" run "$TD/vadd.space" --run-timeout soon
expect_status "bad build timeout" 2 "$SPACETUNE" run "$TD/vadd.space" --build-timeout -3
expect_status "--timeout, deprecated" 2 "$SPACETUNE" run --timeout 5
check "says what --timeout means now" grep -q "warning: --timeout is deprecated: it now sets --run-timeout" "$T/err"
expect_status "bad --set" 2 "$SPACETUNE" run "$TD/vadd.space" --set N
expect_status "best takes no file" 2 "$SPACETUNE" best "$T/x.jsonl"

# ---- bad input: exit 1, a located message, nothing written -------------------
nothing_written() { # what
	if [ -z "$(ls "$T/work")" ]; then ok "$1: nothing written"; else bad "$1: left $(ls "$T/work")"; fi
}
need_opencl
mkdir -p "$T/work"
cp "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
cat >"$T/bad_tune.space" <<'SPACE'
setting N = 64
X = [1, 2]
tune:
    kernel vadd from "vadd.cl"
    arg int N
SPACE
expect_status "a tune section without global" 1 "$SPACETUNE" run "$T/bad_tune.space" --db "$T/work/db.jsonl"
check "its error is located" grep -q "bad_tune.space:3:1: error: .*global" "$T/err"
nothing_written "bad tune section"

sed 's/"vadd.cl"/"missing.cl"/' "$TD/vadd.space" >"$T/missing_cl.space"
expect_status "a missing kernel source" 1 "$SPACETUNE" run "$T/missing_cl.space" --db "$T/work/db.jsonl"
check "the missing file is named" grep -q "missing.cl" "$T/err"
nothing_written "missing .cl"

mkdir -p "$T/no-vendors"
expect_status "no OpenCL device" 1 env OCL_ICD_VENDORS="$T/no-vendors" OCL_ICD_FILENAMES= \
	"$SPACETUNE" run "$TD/vadd.space" --db "$T/work/db.jsonl"
check "says there is no device" grep -qi "no OpenCL" "$T/err"
nothing_written "no OpenCL device"
expect_status "devices without OpenCL" 1 env OCL_ICD_VENDORS="$T/no-vendors" OCL_ICD_FILENAMES= \
	"$SPACETUNE" devices

# ---- best on bad databases -------------------------------------------------
expect_status "best on a missing database" 1 "$SPACETUNE" best --db "$T/none.jsonl" \
	--header "$T/work/b.h" --json "$T/work/b.json"
check "names it" grep -q "none.jsonl: cannot read" "$T/err"
nothing_written "best on a missing database"
printf 'garbage\n{"v":1}\n' >"$T/junk.jsonl"
expect_status "best on a database without results" 1 "$SPACETUNE" best --db "$T/junk.jsonl" \
	--header "$T/work/b.h"
nothing_written "best without results"
# a database where nothing ran correctly
line='{"v":1,"space":"s","kernel":"k","device":"d","platform":"p","driver":"1","source_hash":"h","params":{"X":1},"status":"build_error","time_ms":null}'
echo "$line" >"$T/failed.jsonl"
expect_status "best when nothing ran correctly" 1 "$SPACETUNE" best --db "$T/failed.jsonl" \
	--header "$T/work/b.h" --json "$T/work/b.json"
check "says so" grep -q "no configuration of 's' ran correctly" "$T/err"
nothing_written "best with no correct run"
# two spaces: --space must choose
ok_line() { # space X ms
	printf '{"v":1,"space":"%s","kernel":"k","device":"d","platform":"p","driver":"1","source_hash":"h","params":{"X":%s},"defines":"-DX=%s","status":"ok","time_ms":{"median":%s,"min":%s}}\n' "$1" "$2" "$2" "$3" "$3"
}
{ ok_line a 1 2.0; ok_line a 2 1.5; ok_line b 1 9; ok_line a 3 4.0; } >"$T/two.jsonl"
expect_status "best with two spaces" 1 "$SPACETUNE" best --db "$T/two.jsonl"
check "asks for --space" grep -q "several spaces; choose one with --space: a b" "$T/err"
expect_status "best --space a" 0 "$SPACETUNE" best --db "$T/two.jsonl" --space a --header "$T/a.h"
check "a's best is X=2" grep -q "^#define X 2$" "$T/a.h"
check "median of 1.5, 2, 4 is 2" grep -q "^median *2 ms" "$T/out"
check "worst is 4" grep -q "^worst *4 ms" "$T/out"
expect_status "best into a missing directory" 1 "$SPACETUNE" best --db "$T/two.jsonl" --space a \
	--header "$T/work/no/such/dir/b.h"
nothing_written "best into a missing directory"
finish
