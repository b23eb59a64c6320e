#!/bin/sh
# The fuzzing smoke test of `make check` (and, longer, `make fuzz`): for
# each libFuzzer target (fuzz/build.sh builds them),
#   frontend  .space files (lang/)               seeds: every .space file, fuzz/corpus
#   bindings  --device-profile JSON, --set       seeds: fuzz/corpus-bindings
#   db        results databases, replay          seeds: fuzz/corpus-db
#   batch     `spacetune batch` files            seeds: fuzz/corpus-batch
#   kopt      `#pragma spacetune` kernels        seeds: tests/optimizer/*.cl
# it replays the known crashers (fuzz/regressions: the .space files there
# for frontend, fuzz/regressions/TARGET/ for the others), each of which
# must now run clean, then fuzzes from the seeds and the regressions.
# Any crash, leak, timeout or out-of-memory artefact fails the test; it is
# kept in $top_builddir/fuzz/ for reproducing:
#     fuzz/fuzz_TARGET fuzz/crash-...
#
#   CLANG              the compiler; none found: the test is skipped (77)
#   FUZZ_TARGETS       which targets (default: all five)
#   FUZZ_SECONDS       how long to fuzz the front end (default 20; 300 in
#                      make check-full)
#   FUZZ_SECONDS_EACH  how long to fuzz each other target (default 5; 60
#                      in make check-full)
#   FUZZ_JOBS          parallel fuzzing processes (default 1)
#   FUZZ_MAX_LEN       longest input tried (default 4096)
#   FUZZ_BIN           a fuzz_frontend built already (default: build one);
#                      then the other targets are found beside it, or built
#   FUZZ_KEEP          a folder that keeps the grown corpora (default: none),
#                      one subfolder per target
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(dirname "$here")}"
: "${top_builddir:=$top_srcdir}"
if [ "${CHECK_FULL:-}" = 1 ]; then
	: "${FUZZ_SECONDS:=300}" "${FUZZ_SECONDS_EACH:=60}"
else
	: "${FUZZ_SECONDS:=20}" "${FUZZ_SECONDS_EACH:=5}"
fi
: "${FUZZ_TARGETS:=frontend bindings db batch kopt}"
: "${FUZZ_JOBS:=1}"
: "${FUZZ_MAX_LEN:=4096}"
: "${FUZZ_BIN:=}"
: "${FUZZ_KEEP:=}"
export top_srcdir top_builddir

CLANG=${CLANG:-}
[ -z "$CLANG" ] && CLANG=$(command -v clang 2>/dev/null || true)
if [ -z "$CLANG" ] && [ -z "$FUZZ_BIN" ]; then
	echo "smoke.sh: no clang: skipping the fuzzer"
	exit 77
fi
export CLANG

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuzzsmoke.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ -z "$FUZZ_BIN" ]; then
	# A clang without libFuzzer (or its sanitizer runtimes) means skip, not fail.
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$tmp/probe.c"
	if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" 2>"$tmp/probe.log"; then
		echo "smoke.sh: $CLANG cannot build a libFuzzer target: skipping"
		cat "$tmp/probe.log"
		exit 77
	fi
fi

# seeds TARGET: the seed files, one a line.
seeds() {
	case $1 in
	frontend)
		find "$top_srcdir/spaces" "$top_srcdir/tests" -name '*.space' -type f 2>/dev/null
		find "$here/corpus" -type f 2>/dev/null
		find "$here/regressions" -maxdepth 1 -type f 2>/dev/null ;;
	kopt)
		find "$top_srcdir/tests/optimizer" -name '*.cl' -type f 2>/dev/null
		find "$here/regressions/$1" -type f 2>/dev/null ;;
	*)
		find "$here/corpus-$1" "$here/regressions/$1" -type f 2>/dev/null ;;
	esac
}

failed=0
# fuzz TARGET SECONDS
fuzz() {
	t=$1
	bin=$top_builddir/fuzz/fuzz_$t
	if [ -n "$FUZZ_BIN" ]; then
		[ "$t" = frontend ] && bin=$FUZZ_BIN || bin=$(dirname "$FUZZ_BIN")/fuzz_$t
	fi
	if [ -z "$FUZZ_BIN" ] || [ ! -x "$bin" ]; then
		if ! sh "$here/build.sh" "$t"; then
			echo "FAIL: building the fuzz target $t failed"
			return 1
		fi
		bin=$top_builddir/fuzz/fuzz_$t
	fi

	d=$tmp/$t
	mkdir -p "$d/corpus" "$d/artifacts"
	n=0
	for f in $(seeds "$t"); do
		n=$((n + 1))
		cp "$f" "$d/corpus/seed$n"
	done

	# Known crashers first: each must now run clean.
	if [ "$t" = frontend ]; then
		regs=$(find "$here/regressions" -maxdepth 1 -type f 2>/dev/null)
	else
		regs=$(find "$here/regressions/$t" -type f 2>/dev/null)
	fi
	if [ -n "$regs" ]; then
		# shellcheck disable=SC2086
		if ! "$bin" -runs=1 -timeout=10 -rss_limit_mb=2048 $regs >"$d/regress.log" 2>&1; then
			echo "FAIL: $t: a regression input fails again:"
			tail -n 60 "$d/regress.log"
			return 1
		fi
	fi

	dict=
	[ "$t" = frontend ] && [ -f "$here/space.dict" ] && dict=-dict=$here/space.dict
	[ -f "$here/$t.dict" ] && dict=-dict=$here/$t.dict

	jobs=
	[ "$FUZZ_JOBS" -gt 1 ] && jobs="-fork=$FUZZ_JOBS -ignore_crashes=0"

	# shellcheck disable=SC2086
	"$bin" $dict $jobs -max_total_time="$2" -max_len="$FUZZ_MAX_LEN" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$d/artifacts/" "$d/corpus" >"$d/log" 2>&1
	rc=$?

	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/.*#\([0-9][0-9]*\).*DONE.*/\1/p' "$d/log" | tail -n 1)
	# The last status line carries coverage: "#N DONE cov: C ft: F corp: ..."
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$d/log" | tail -n 1)
	echo "$t: seeded $n inputs, fuzzed for ${2}s with $FUZZ_JOBS job(s): ${execs:-unknown} execs, ${cov:-coverage unknown}"
	if [ -n "$FUZZ_KEEP" ]; then
		mkdir -p "$FUZZ_KEEP/$t" && cp "$d"/corpus/* "$FUZZ_KEEP/$t"/ 2>/dev/null
		echo "$t: corpus: $(ls "$d/corpus" | wc -l) inputs, kept in $FUZZ_KEEP/$t"
	fi

	found=0
	echo "$t: artefacts (crashes, leaks, timeouts, out-of-memory): $(ls "$d"/artifacts | wc -l)"
	for a in "$d"/artifacts/*; do
		[ -e "$a" ] || continue
		found=1
		cp "$a" "$top_builddir/fuzz/$t-$(basename "$a")" 2>/dev/null
		echo "FAIL: $t: fuzzer artefact $(basename "$a") (kept in $top_builddir/fuzz/$t-$(basename "$a"))"
	done
	if [ $found = 1 ] || [ $rc -ne 0 ]; then
		echo "$t: libFuzzer exit status $rc; log tail:"
		tail -n 80 "$d/log"
		return 1
	fi
	return 0
}

for t in $FUZZ_TARGETS; do
	if [ "$t" = frontend ]; then s=$FUZZ_SECONDS; else s=$FUZZ_SECONDS_EACH; fi
	fuzz "$t" "$s" || failed=1
done
exit $failed
