#!/bin/sh
# The fuzzing smoke test of `make check` (and, longer, `make fuzz`):
# builds fuzz/fuzz_frontend, seeds a corpus from every .space file in the
# tree plus fuzz/corpus and fuzz/regressions, and fuzzes for FUZZ_SECONDS.
# Any crash, leak, timeout or out-of-memory artefact fails the test; it is
# kept in $top_builddir/fuzz/ for reproducing:
#     fuzz/fuzz_frontend fuzz/crash-...
#
#   CLANG          the compiler; none found: the test is skipped (77)
#   FUZZ_SECONDS   how long to fuzz (default 20; 300 in make check-full)
#   FUZZ_JOBS      parallel fuzzing processes (default 1)
#   FUZZ_MAX_LEN   longest input tried (default 4096)
#   FUZZ_BIN       a fuzz_frontend built already (default: build one)
#   FUZZ_KEEP      a folder that keeps the grown corpus (default: none)
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(dirname "$here")}"
: "${top_builddir:=$top_srcdir}"
if [ "${CHECK_FULL:-}" = 1 ]; then : "${FUZZ_SECONDS:=300}"; else : "${FUZZ_SECONDS:=20}"; fi
: "${FUZZ_JOBS:=1}"
: "${FUZZ_MAX_LEN:=4096}"
: "${FUZZ_BIN:=}"
: "${FUZZ_KEEP:=}"
export top_srcdir top_builddir

CLANG=${CLANG:-}
if [ -n "$FUZZ_BIN" ]; then
	CLANG=none
elif [ -z "$CLANG" ]; then
	CLANG=$(command -v clang 2>/dev/null || true)
fi
if [ -z "$CLANG" ]; then
	echo "smoke.sh: no clang: skipping the fuzzer"
	exit 77
fi
export CLANG

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuzzsmoke.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

bin=$FUZZ_BIN
if [ -z "$bin" ]; then
	# A clang without libFuzzer (or its sanitizer runtimes) means skip, not fail.
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$tmp/probe.c"
	if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" 2>"$tmp/probe.log"; then
		echo "smoke.sh: $CLANG cannot build a libFuzzer target: skipping"
		cat "$tmp/probe.log"
		exit 77
	fi
	if ! sh "$here/build.sh"; then
		echo "smoke.sh: building the fuzz target failed"
		exit 1
	fi
	bin=$top_builddir/fuzz/fuzz_frontend
fi

mkdir -p "$tmp/corpus" "$tmp/artifacts"
n=0
for f in $(find "$top_srcdir/spaces" "$top_srcdir/tests" -name '*.space' -type f 2>/dev/null) \
	 $(find "$here/corpus" "$here/regressions" -type f 2>/dev/null); do
	n=$((n + 1))
	cp "$f" "$tmp/corpus/seed$n"
done
echo "seeded $n inputs"

# Known crashers first: each must now run clean.
if [ -d "$here/regressions" ] && [ -n "$(ls "$here/regressions" 2>/dev/null)" ]; then
	if ! "$bin" -runs=1 "$here"/regressions/* >"$tmp/regress.log" 2>&1; then
		echo "FAIL: a regression input fails again:"
		tail -n 60 "$tmp/regress.log"
		exit 1
	fi
fi

dict=
[ -f "$here/space.dict" ] && dict=-dict=$here/space.dict

jobs=
[ "$FUZZ_JOBS" -gt 1 ] && jobs="-fork=$FUZZ_JOBS -ignore_crashes=0"

# shellcheck disable=SC2086
"$bin" $dict $jobs -max_total_time="$FUZZ_SECONDS" -max_len="$FUZZ_MAX_LEN" -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$tmp/artifacts/" "$tmp/corpus" >"$tmp/log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log" | tail -n 1)
[ -n "$execs" ] || execs=$(sed -n 's/.*#\([0-9][0-9]*\).*DONE.*/\1/p' "$tmp/log" | tail -n 1)
# The last status line carries coverage: "#N DONE cov: C ft: F corp: ..."
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$tmp/log" | tail -n 1)
echo "fuzzed for ${FUZZ_SECONDS}s with $FUZZ_JOBS job(s): ${execs:-unknown} execs, ${cov:-coverage unknown}"
if [ -n "$FUZZ_KEEP" ]; then
	mkdir -p "$FUZZ_KEEP" && cp "$tmp"/corpus/* "$FUZZ_KEEP"/ 2>/dev/null
	echo "corpus: $(ls "$tmp/corpus" | wc -l) inputs, kept in $FUZZ_KEEP"
fi

found=0
crashes=$(ls "$tmp"/artifacts 2>/dev/null | wc -l)
echo "artefacts (crashes, leaks, timeouts, out-of-memory): $crashes"
for a in "$tmp"/artifacts/*; do
	[ -e "$a" ] || continue
	found=1
	cp "$a" "$top_builddir/fuzz/" 2>/dev/null
	echo "FAIL: fuzzer artefact $(basename "$a") (kept in $top_builddir/fuzz/)"
done
if [ $found = 1 ] || [ $rc -ne 0 ]; then
	echo "libFuzzer exit status $rc; log tail:"
	tail -n 80 "$tmp/log"
	exit 1
fi
exit 0
