#!/bin/sh
# Differential test: the compiled enumerator against the reference
# interpreter.  For every shipped and test space, and for DIFF_SEEDS
# (default 1000) randomly generated ones, the two paths must list exactly
# the same set of points and print the same statistics (every counter of
# every definition).  DIFF_SEEDS=100000 makes it a fuzzing run.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
SEEDS=${DIFF_SEEDS:-1000}
FIRST=${DIFF_FIRST_SEED:-1}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# compare FILE JIT [ARGS...]: interpreter vs compiled, points and stats
compare() {
	f=$1 jit=$2
	shift 2
	# A generated space is small; a run this long is a hang, so it fails.
	timeout 300 "$SPACEC" list -w --format jsonl --interpret "$f" "$@" > "$T/i.out" 2>"$T/i.err"; ri=$?
	timeout 300 "$SPACEC" list -w --format jsonl "--jit=$jit" "$f" "$@" > "$T/c.out" 2>"$T/c.err"; rc=$?
	if [ $ri -eq 124 ] || [ $rc -eq 124 ]; then
		fail=$((fail + 1))
		echo "FAIL $f ($jit $*): timed out"
		return 1
	fi
	sort "$T/i.out" > "$T/i.sorted"
	sort "$T/c.out" > "$T/c.sorted"
	"$SPACEC" stats -w --interpret "$f" "$@" 2>&1 | grep -v '^elapsed:' > "$T/i.stats"
	"$SPACEC" stats -w "--jit=$jit" "$f" "$@" 2>&1 | grep -v '^elapsed:' > "$T/c.stats"
	if [ $ri -eq $rc ] && cmp -s "$T/i.sorted" "$T/c.sorted" && cmp -s "$T/i.stats" "$T/c.stats"; then
		pass=$((pass + 1))
		return 0
	fi
	fail=$((fail + 1))
	echo "FAIL $f ($jit $*): exit $ri vs $rc"
	diff "$T/i.sorted" "$T/c.sorted" | head -5
	diff "$T/i.stats" "$T/c.stats" | head -10
	head -3 "$T/c.err"
	return 1
}

# werror FILE: the generated C compiles with -Wall -Wextra -Werror.
CC=${CC:-cc}
werror() {
	"$SPACEC" emit -w "$1" -o "$T/w.c" 2>"$T/w.err" &&
		$CC -std=c11 -Wall -Wextra -Werror -I"$top_srcdir/runtime" -c "$T/w.c" -o "$T/w.o" 2>>"$T/w.err"
	if [ $? -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $1: the generated C does not compile cleanly"
		head -10 "$T/w.err"
	fi
}

# Shipped spaces and every test space that compiles without errors.
for f in "$top_srcdir"/spaces/*.space "$top_srcdir"/spaces/examples/*.space \
	 "$top_srcdir"/tests/golden/*/*.space "$top_srcdir"/tests/diff/cases/*.space; do
	[ -f "$f" ] || continue
	"$SPACEC" check -w "$f" >/dev/null 2>&1 || continue
	werror "$f"
	case $f in
	*gemm_beast*)
		# The full space takes minutes; the reduced limits exercise
		# every definition and constraint of it.
		compare "$f" tcc --set max_threads_dim_x=32 --set max_threads_dim_y=32 --set max_threads_per_block=32
		compare "$f" cc --set max_threads_dim_x=48 --set max_threads_dim_y=48 --set max_threads_per_block=48 \
			--set precision=single ;;
	*) compare "$f" tcc; compare "$f" tcc --no-soft ;;
	esac
done
echo "shipped and test spaces: $pass passed, $fail failed"

# Random spaces, deterministic per seed.
features=""
s=$FIRST
last=$((FIRST + SEEDS - 1))
while [ "$s" -le "$last" ]; do
	python3 "$top_srcdir/tests/diff/gen_space.py" --features-stderr "$s" > "$T/r.space" 2>>"$T/features"
	if ! "$SPACEC" check -w "$T/r.space" > "$T/check.err" 2>&1; then
		fail=$((fail + 1))
		echo "FAIL seed $s: the generated space does not check"
		head -5 "$T/check.err"
	elif [ $((s % 50)) -eq 0 ] && ! werror "$T/r.space"; then
		echo "  (seed $s)"
	elif ! compare "$T/r.space" tcc; then
		echo "  (seed $s; python3 tests/diff/gen_space.py $s > r.space to reproduce)"
		cp "$T/r.space" "diff-fail-seed-$s.space" 2>/dev/null || true
	fi
	s=$((s + 1))
done
# Every construct must have been generated at least once.
all=$(tr ' ' '\n' < "$T/features" | sort -u | tr '\n' ' ')
for feat in dependent_range negative_step algebra cond_iterable list_repeat closure for_else deferred \
	    ssa require constraint_def class_hard class_soft class_correct truediv floordiv mod pow \
	    overflow short_circuit chained_compare in; do
	case " $all " in
	*" $feat "*) ;;
	*) fail=$((fail + 1)); echo "FAIL the generator never produced '$feat'" ;;
	esac
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
