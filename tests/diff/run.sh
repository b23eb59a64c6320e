#!/bin/sh
# Differential test: the compiled enumerator against the reference
# interpreter.  For every shipped and test space, and for DIFF_SEEDS
# (default 1000) randomly generated ones, the two paths must list exactly
# the same set of points at -O0, -O1, -O2 and -O2 with each loop
# transformation switched off alone, and print the same statistics (every
# counter of every definition) at -O0 and with the transformations off.
# Random spaces run -O0 and -O2 each; every 5th seed runs every variant.
# The -O2 C of every seed is grepped for the comments that say which
# transformation fired: each must fire at least once (interval pruning
# must also visit fewer candidates on some seed, and be checked inside a
# factorized sub-nest on some seed, and a sub-nest's near counts on
# some seed: random spaces with them are mostly empty, so
# tests/diff/cases/near_counts.space and gemm_beast count some).  `count`
# of each variant must equal the number of listed points.
# DIFF_SEEDS=100000 makes it a fuzzing run.
# A third oracle, independent of spacec's front end: tests/diff/py_oracle.py
# enumerates a space with Python's own parser and eval, and the points of
# the interpreter and of -O2 must be its points.  It runs on every
# DIFF_PYTHON_EVERY-th random seed (default 2: 50 of make check's 100, 500
# of make check-full's 1000; tests/diff/python-[ab].sh add 4000 more there)
# and on tests/diff/cases.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
SEEDS=${DIFF_SEEDS:-1000}
FIRST=${DIFF_FIRST_SEED:-1}
PY_EVERY=${DIFF_PYTHON_EVERY:-2}
py_compared=0 py_skipped=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
STEP_LABEL="differential test"
# step TEXT: a line for this test's log, and one for the terminal of
# whoever runs make check, where the automake driver shows nothing until
# the test ends (no terminal, as in CI: the log only).
step() { echo "$*"; { echo "  $STEP_LABEL: $*" >/dev/tty; } 2>/dev/null || true; }

# run_points OUT JIT OPTS... -- ARGS: the sorted points of one variant
points() {
	out=$1 jit=$2
	shift 2
	timeout 300 "$SPACEC" list -w --format jsonl "--jit=$jit" "$@" > "$T/v.out" 2>"$T/v.err"
	rv=$?
	sort "$T/v.out" > "$out"
	return 0
}

# compare FILE JIT FULL [ARGS...]: the interpreter against the compiled
# path.  Always: -O0 (points and every statistic, both in level-set
# order) and -O2 (points; its transformations evaluate less).  With FULL
# set, also -O1, -O2 with each transformation switched off alone, and -O2
# with all of them off, whose statistics must equal the interpreter's in
# the default loop order.
compare() {
	f=$1 jit=$2 full=$3
	shift 3
	# A generated space is small; a run this long is a hang, so it fails.
	timeout 300 "$SPACEC" list -w --format jsonl --interpret "$f" "$@" > "$T/i.out" 2>"$T/i.err"; ri=$?
	if [ $ri -eq 124 ]; then
		fail=$((fail + 1))
		echo "FAIL $f ($jit $*): the interpreter timed out"
		return 1
	fi
	sort "$T/i.out" > "$T/i.sorted"
	bad=""
	# -O0: points and statistics
	points "$T/c.sorted" "$jit" -O0 "$f" "$@"
	if [ $rv -ne $ri ] || ! cmp -s "$T/i.sorted" "$T/c.sorted"; then
		bad="$bad -O0(points,exit $ri vs $rv)"
		diff "$T/i.sorted" "$T/c.sorted" | head -5
	fi
	"$SPACEC" stats -w -O0 --interpret "$f" "$@" 2>&1 | grep -v '^elapsed:' > "$T/i.stats"
	"$SPACEC" stats -w -O0 "--jit=$jit" "$f" "$@" 2>&1 | grep -v '^elapsed:' > "$T/c.stats"
	if ! cmp -s "$T/i.stats" "$T/c.stats"; then
		bad="$bad -O0(stats)"
		diff "$T/i.stats" "$T/c.stats" | head -10
	fi
	variants="-O2"
	[ -n "$full" ] && variants="-O2 -O1 -O2:-fno-equality-solving -O2:-fno-bound-tightening \
		-O2:-fno-divisor-iteration -O2:-fno-factorization -O2:-fno-cse -O2:-fno-typed-values \
		-O2:-fno-domain-filtering -O2:-fno-interval-pruning -O2:-fno-specialization"
	want_count=$(wc -l < "$T/i.sorted")
	for v in $variants; do
		points "$T/c.sorted" "$jit" $(echo "$v" | tr ':' ' ') "$f" "$@"
		[ "$v" = -O2 ] && cp "$T/c.sorted" "$T/o2.sorted"
		if [ $rv -ne $ri ] || ! cmp -s "$T/i.sorted" "$T/c.sorted"; then
			bad="$bad $v(exit $ri vs $rv)"
			diff "$T/i.sorted" "$T/c.sorted" | head -5
			head -3 "$T/v.err"
		fi
		# counting takes its own paths (memo products, near counts)
		got_count=$(timeout 300 "$SPACEC" count -w "--jit=$jit" $(echo "$v" | tr ':' ' ') "$f" "$@" 2>/dev/null)
		rc=$?
		if [ $rc -ne $ri ] || { [ $ri -eq 0 ] && [ "$got_count" != "$want_count" ]; }; then
			bad="$bad $v(count $got_count, exit $rc; listed $want_count, exit $ri)"
		fi
	done
	if [ -n "$full" ]; then
		off="-fno-equality-solving -fno-bound-tightening -fno-divisor-iteration -fno-factorization -fno-cse"
		off="$off -fno-domain-filtering -fno-interval-pruning -fno-specialization"
		"$SPACEC" stats -w --interpret "$f" "$@" 2>&1 | grep -v '^elapsed:' > "$T/i.stats"
		"$SPACEC" stats -w $off "--jit=$jit" "$f" "$@" 2>&1 | grep -v '^elapsed:' > "$T/c.stats"
		if ! cmp -s "$T/i.stats" "$T/c.stats"; then
			bad="$bad -O2-untransformed(stats)"
			diff "$T/i.stats" "$T/c.stats" | head -10
		fi
	fi
	if [ -z "$bad" ]; then
		pass=$((pass + 1))
		return 0
	fi
	fail=$((fail + 1))
	echo "FAIL $f ($jit $*):$bad"
	return 1
}

# python_oracle FILE: the points of the interpreter and of -O2 (the last
# compare) are the points Python finds.  A space the oracle cannot read
# or that is too large for it is skipped (exit 3).
python_oracle() {
	python3 "$top_srcdir/tests/diff/py_oracle.py" "$1" "$T/i.sorted" "$T/o2.sorted" > "$T/py.out" 2>&1
	case $? in
	0) py_compared=$((py_compared + 1)); pass=$((pass + 1)); return 0 ;;
	3) py_skipped=$((py_skipped + 1)); return 0 ;;
	esac
	fail=$((fail + 1))
	echo "FAIL $1: the points differ from Python's (tests/diff/py_oracle.py)"
	head -12 "$T/py.out"
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

# Shipped spaces and every test space that compiles without errors
# (DIFF_RANDOM_ONLY=1 skips them, to iterate on random seeds).
[ "${DIFF_RANDOM_ONLY:-0}" = 1 ] ||
for f in "$top_srcdir"/spaces/*.space "$top_srcdir"/spaces/examples/*.space \
	 "$top_srcdir"/tests/golden/*/*.space "$top_srcdir"/tests/diff/cases/*.space; do
	[ -f "$f" ] || continue
	"$SPACEC" check -w "$f" >/dev/null 2>&1 || continue
	step "${f#"$top_srcdir"/}: $pass passed, $fail failed so far"
	werror "$f"
	case $f in
	*gemm_beast*)
		# The full space takes minutes; the reduced limits exercise
		# every definition and constraint of it.
		compare "$f" tcc full --set max_threads_dim_x=32 --set max_threads_dim_y=32 --set max_threads_per_block=32
		compare "$f" cc "" --set max_threads_dim_x=48 --set max_threads_dim_y=48 --set max_threads_per_block=48 \
			--set precision=single ;;
	*/gaussian*)
		# 1.5e8 points of 1.2e11 at its sizes: small inputs for the interpreter
		compare "$f" tcc full --set N1=8 --set N2=8
		compare "$f" tcc "" --set N1=4 --set N2=16 ;;
	*/synthetic_*)
		# Benchmark stress spaces: too large for the interpreter in a
		# test; their C is still checked with -Werror above.
		;;
	*/spaces/*_cuda.space)
		# The definitions of their OpenCL twins (gemm.space,
		# conv2d.space), compared there; only the tune section differs
		# (tests/tuner/cuda.sh).  Their C is checked above.
		;;
	*/tests/diff/cases/*)
		compare "$f" tcc full && python_oracle "$f"
		compare "$f" tcc "" --no-soft ;;
	*) compare "$f" tcc full; compare "$f" tcc "" --no-soft ;;
	esac
done
echo "shipped and test spaces: $pass passed, $fail failed"

# Random spaces, deterministic per seed.
features=""
s=$FIRST
last=$((FIRST + SEEDS - 1))
while [ "$s" -le "$last" ]; do
	full=""
	[ $((s % 5)) -eq 0 ] && full=full
	python3 "$top_srcdir/tests/diff/gen_space.py" --features-stderr "$s" > "$T/r.space" 2>>"$T/features"
	if ! "$SPACEC" check -w "$T/r.space" > "$T/check.err" 2>&1; then
		fail=$((fail + 1))
		echo "FAIL seed $s: the generated space does not check"
		head -5 "$T/check.err"
	elif [ $((s % 50)) -eq 0 ] && ! werror "$T/r.space"; then
		echo "  (seed $s)"
	elif ! compare "$T/r.space" tcc "$full" ||
		{ [ $((s % PY_EVERY)) -eq 0 ] && ! python_oracle "$T/r.space"; }; then
		echo "  (seed $s; python3 tests/diff/gen_space.py $s > r.space to reproduce)"
		cp "$T/r.space" "diff-fail-seed-$s.space" 2>/dev/null || true
	fi
	# Which transformations fired: the generated C says so in a comment.
	# count, list and stats run the program specialized to the bindings,
	# so that is the C to read.
	"$SPACEC" emit --specialize -w -O2 "$T/r.space" -o - 2>/dev/null > "$T/r.c"
	sed -n 's,.*/\* -O2: \(equality solving\|divisor iteration\|bound tightening\|factorization\|common subexpression\|congruence stepping\|domain filtering\|interval pruning\).*,\1,p' \
		"$T/r.c" | tr ' ' '_' >> "$T/fired"
	# Typed values: checked int64 arithmetic instead of tagged sprt_op.
	grep -q 'TRY(sprt_i_' "$T/r.c" && echo typed_values >> "$T/fired"
	grep -q 'near counts start over' "$T/r.c" && echo near_counts >> "$T/fired"
	# a shared subexpression read while domain filtering (issue 13)
	awk '/domain filtering: the values of/ { in_filter = 1 } in_filter && /sprt_vecval/ { in_filter = 0 }
	     in_filter && /cse_ok_[0-9]+ = false/ { found = 1 } END { exit !found }' "$T/r.c" &&
		echo cse_in_domain_filtering >> "$T/fired"
	# The defs that branch on settings (gen_space.py's sit*, sd*), made
	# expressions by specialization, take part in every transformation.
	grep -q 'specialization: the def body is the expression' "$T/r.c" && echo specialization >> "$T/fired"
	grep -q "equality solving pins '[^']*' (from sd" "$T/r.c" && echo def_equality_solving >> "$T/fired"
	grep -q "divisor iteration over '[^']*' (from sd" "$T/r.c" && echo def_divisor_iteration >> "$T/fired"
	grep -q "bound tightening: a rejection by sd" "$T/r.c" && echo def_bound_tightening >> "$T/fired"
	grep -q "no completion escapes sd" "$T/r.c" && echo def_interval_pruning >> "$T/fired"
	grep -q "clips the range of" "$T/r.c" && echo range_clipping >> "$T/fired"
	# interval tails: a check over every later value of the loop, which
	# ends it; after a rejection at the constraint's own level; and a
	# product's partner narrowing divisor iteration
	grep -q 'so does every later value' "$T/r.c" && echo interval_tail >> "$T/fired"
	grep -q 'interval bound tightening' "$T/r.c" && echo interval_bound_tightening >> "$T/fired"
	grep -q 'opt_partner(&o_' "$T/r.c" && echo divisor_partner >> "$T/fired"
	# interval pruning inside a factorized sub-nest's count function
	awk '/^static int count_[0-9]/ { in_count = 1 } /^}/ { in_count = 0 }
	     in_count && /interval pruning: skip/ { found = 1 } END { exit !found }' "$T/r.c" &&
		echo interval_subnest >> "$T/fired"
	# Interval pruning must also skip subtrees at run time, not only be
	# generated: fewer candidates than without it (on the full seeds).
	if [ -n "$full" ] && grep -q 'interval pruning: skip' "$T/r.c"; then
		with=$("$SPACEC" stats -w --jit=tcc "$T/r.space" 2>/dev/null | sed -n 's/^candidates visited: *//p')
		without=$("$SPACEC" stats -w --jit=tcc -fno-interval-pruning "$T/r.space" 2>/dev/null |
			sed -n 's/^candidates visited: *//p')
		[ -n "$with" ] && [ -n "$without" ] && [ "$with" -lt "$without" ] && echo interval_skips >> "$T/fired"
	fi
	# where a long run is, in its log
	[ $(((s - FIRST + 1) % 25)) -eq 0 ] && step "seeds $FIRST-$s of $FIRST-$last: $pass passed, $fail failed"
	s=$((s + 1))
done
# The Python oracle must have compared some random space.
if [ "$SEEDS" -gt 0 ]; then
	echo "python oracle: $py_compared spaces compared, $py_skipped skipped"
	if [ "$SEEDS" -ge "$PY_EVERY" ] && [ "$py_compared" -eq 0 ]; then
		fail=$((fail + 1))
		echo "FAIL the Python oracle compared no random space"
	fi
fi
# Every transformation must have fired on some random space, and every
# construct must have been generated: on runs of 250 seeds or more (make
# check-full's quarters; make check's 25 per quarter are too few for the
# rarer ones: near counts fire on about 4 seeds in 100).
if [ "$SEEDS" -lt "${DIFF_COVERAGE_SEEDS:-250}" ]; then
	[ "$SEEDS" -gt 0 ] && echo "(which transformations fired is checked on 250 seeds or more: make check-full)"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
for t in equality_solving divisor_iteration bound_tightening typed_values congruence_stepping domain_filtering \
	factorization common_subexpression interval_pruning interval_skips interval_subnest near_counts \
	interval_tail interval_bound_tightening divisor_partner cse_in_domain_filtering specialization \
	def_equality_solving def_divisor_iteration def_bound_tightening def_interval_pruning range_clipping; do
	if ! grep -qx "$t" "$T/fired" 2>/dev/null; then
		fail=$((fail + 1))
		echo "FAIL no random space made -O2 apply '$t'"
	fi
done
all=$(tr ' ' '\n' < "$T/features" | sort -u | tr '\n' ' ')
for feat in dependent_range negative_step algebra cond_iterable list_repeat closure for_else deferred \
	    ssa require constraint_def class_hard class_soft class_correct truediv floordiv mod pow \
	    overflow short_circuit chained_compare in \
	    opt_pin opt_bound opt_divisor opt_product opt_disjunct opt_derived opt_repeat opt_congruence \
	    opt_filter factor_subnest factor_free cse_error opt_interval shared_filter long_literal \
	    setting_iterator setting_product setting_divisibility setting_bound setting_local twin_subnests; do
	case " $all " in
	*" $feat "*) ;;
	*) fail=$((fail + 1)); echo "FAIL the generator never produced '$feat'" ;;
	esac
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
