#!/bin/sh
# The cost of each test of make check: runs the tests one at a time in a
# configured build directory, in the environment make check gives them,
# and prints a table of wall seconds and CPU seconds (user + system, the
# test's child processes included).  CPU time barely moves with the
# machine's load, so on a shared machine it is the figure to go by: the
# suite's wall time on an idle machine of N cores is about the CPU total
# over N (make -jN), unless one test alone runs longer.
#
#   sh bench/test_times.sh BUILD_DIR [TEST...]      (default: every test)
#   CHECK_FULL=1 sh bench/test_times.sh ...          make check-full's sweeps
set -u
b=$(cd "${1:?usage: test_times.sh BUILD_DIR [TEST...]}" && pwd) || exit 2
shift
src=$(cd "$(dirname "$0")/.." && pwd)
tests=$*
[ -n "$tests" ] || tests=$(make -s -C "$b" -f Makefile -f - print-tests <<'EOF'
print-tests:
	@echo $(TESTS)
EOF
)
out=$(mktemp -d "${TMPDIR:-/tmp}/test_times.XXXXXX") || exit 99
trap 'rm -rf "$out"' EXIT
export SPACEC="$b/spacec" SPACETUNE="$b/spacetune" top_srcdir="$src" top_builddir="$b"
export ASAN_OPTIONS=detect_leaks=1 CRITERION_NO_EARLY_EXIT=1 XDG_CACHE_HOME="$out/cache"
export CLANG="${CLANG:-clang}" CHECK_FULL="${CHECK_FULL:-}"
printf '| test | status | wall s | CPU s |\n|---|---|---:|---:|\n'
total=0
cd "$b" || exit 2
for t in $tests; do
	case $t in
	*.sh) run="sh $src/$t" ;;
	*.py) run="python3 $src/$t" ;;
	*) run="./$t" ;;
	esac
	# shellcheck disable=SC2086
	/usr/bin/time -f "%e %U %S" -o "$out/time" $run >"$out/log" 2>&1
	rc=$?
	set -- $(tail -n 1 "$out/time")
	cpu=$(echo "$2 + $3" | bc)
	total=$(echo "$total + $cpu" | bc)
	case $rc in 0) st=pass ;; 77) st=skip ;; *) st="FAIL ($rc)" ;; esac
	printf '| %s | %s | %s | %s |\n' "$t" "$st" "$1" "$cpu"
done
printf '| **total** | | | **%s** |\n' "$total"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
