#!/bin/sh
# Threads and shards (runtime/par.c) against one thread and the reference
# interpreter.  For every shipped space (large ones reduced) and PAR_SEEDS
# (default 5; 10 in make check-full) random spaces from tests/diff/gen_space.py:
#   - the interpreter's points (a sorted multiset) equal those of
#     `list --threads 1`, and those of `list --threads 2, 3, 4`;
#   - `list --threads T --ordered` is byte-identical to --threads 1, in
#     CSV and in the binary format (whose header depends on every point);
#   - the binary file, decoded by bincheck.py from FORMAT.md alone, holds
#     the points of `list --format jsonl`, type for type, whether streamed
#     (a file) or buffered (a pipe), and on 3 threads (in any order) (mixed.space has
#     floats, bools, strings, ints past int32 and mixed columns, which
#     switch the sink's buffer from its compact to its general encoding);
#   - `stats` (every counter of every definition, valid points,
#     candidates) is identical for every thread count;
#   - for N in SHARDS, the union of `list --shard I/N` over I equals the
#     whole space with no point twice; for N = 3 and 13 the shards'
#     statistics add up to the whole space's;
#   - a shard is deterministic: listed twice, and on 1 or 3 threads
#     (--ordered), it gives the same bytes.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
if [ "${CHECK_FULL:-0}" = 1 ]; then SEEDS=${PAR_SEEDS:-10}; else SEEDS=${PAR_SEEDS:-5}; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
STEP_LABEL="par"
# step TEXT: a line for this test's log, and one for the terminal of
# whoever runs make check, where the automake driver shows nothing until
# the test ends (no terminal, as in CI: the log only).
step() { echo "$*"; { echo "  $STEP_LABEL: $*" >/dev/tty; } 2>/dev/null || true; }
bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}

sc() { # COMMAND ARGS...: spacec on the JIT that builds fastest
	cmd=$1
	shift
	timeout 300 "$SPACEC" "$cmd" -w --jit=tcc "$@"
}

# stats without the elapsed time
stats() {
	sc stats "$@" 2>&1 | grep -v '^elapsed:'
}

# sum_stats FILES...: per definition, the sums of evaluated, rejected and
# domain errors, then of valid points and candidates (columns counted
# from the right, since a kind may be two words).
sum_stats() {
	awk '/^definition/ { next }
	     /^valid points:/ { valid += $3; next }
	     /^candidates visited:/ { cand += $3; next }
	     NF >= 7 { e[$1] += $(NF - 3); r[$1] += ($(NF - 2) == "-" ? 0 : $(NF - 2)); d[$1] += $NF;
		       if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
	     END { for (i = 0; i < n; i++) print order[i], e[order[i]], r[order[i]], d[order[i]];
		   print "valid", valid; print "candidates", cand }' "$@"
}

# check NAME SHARDS INTERP FILE ARGS...
check() {
	name=$1 shards=$2 interp=$3 f=$4
	shift 4
	before=$fail
	sc list --threads 1 --format jsonl "$f" "$@" > "$T/one.jsonl" 2>"$T/err" || bad "$name: --threads 1 failed: $(head -3 "$T/err")"
	sort "$T/one.jsonl" > "$T/ref"
	if [ "$interp" = yes ]; then
		timeout 300 "$SPACEC" list -w --interpret --format jsonl "$f" "$@" 2>/dev/null | sort > "$T/interp"
		cmp -s "$T/interp" "$T/ref" || bad "$name: one thread differs from the interpreter"
	fi
	sc list --threads 1 "$f" "$@" > "$T/one.csv"
	sc list --threads 1 --format binary "$f" "$@" > "$T/one.bin"
	python3 "$top_srcdir/tests/par/bincheck.py" "$T/one.bin" "$T/one.jsonl" ||
		bad "$name: the binary file does not hold the listed points"
	# through a pipe the sink buffers instead of streaming (FORMAT.md)
	sc list --threads 1 --format binary "$f" "$@" | cat > "$T/pipe.bin"
	python3 "$top_srcdir/tests/par/bincheck.py" "$T/pipe.bin" "$T/one.jsonl" ||
		bad "$name: the piped binary file does not hold the listed points"
	sc list --threads 3 --format binary "$f" "$@" > "$T/three.bin"
	python3 "$top_srcdir/tests/par/bincheck.py" --any-order "$T/three.bin" "$T/one.jsonl" ||
		bad "$name: the binary file of 3 threads does not hold the listed points"
	stats --threads 1 "$f" "$@" > "$T/one.stats"
	for t in 2 3 4; do
		sc list --threads $t --format jsonl "$f" "$@" 2>"$T/err" | sort > "$T/many"
		cmp -s "$T/ref" "$T/many" || { bad "$name: --threads $t lists other points"; diff "$T/ref" "$T/many" | head -4; }
		sc list --threads $t --ordered "$f" "$@" > "$T/ord.csv"
		cmp -s "$T/one.csv" "$T/ord.csv" || bad "$name: --threads $t --ordered is not the single-thread order"
		sc list --threads $t --ordered --format binary "$f" "$@" > "$T/ord.bin"
		cmp -s "$T/one.bin" "$T/ord.bin" || bad "$name: --threads $t --ordered --format binary differs"
		stats --threads $t "$f" "$@" > "$T/many.stats"
		cmp -s "$T/one.stats" "$T/many.stats" || { bad "$name: --threads $t statistics differ"; diff "$T/one.stats" "$T/many.stats" | head -6; }
	done
	sum_stats "$T/one.stats" > "$T/whole.sum"
	for n in $shards; do
		: > "$T/union"
		i=0
		while [ $i -lt "$n" ]; do
			sc list --shard $i/$n --threads 2 --format jsonl "$f" "$@" >> "$T/union"
			i=$((i + 1))
		done
		sort "$T/union" > "$T/union.sorted"
		cmp -s "$T/ref" "$T/union.sorted" ||
			{ bad "$name: the $n shards are not the whole space ($(wc -l < "$T/union") points, want $(wc -l < "$T/ref"))"; diff "$T/ref" "$T/union.sorted" | head -4; }
	done
	for n in 3 13; do
		i=0 files=""
		while [ $i -lt "$n" ]; do
			stats --shard $i/$n --threads 2 "$f" "$@" > "$T/shard.$i"
			files="$files $T/shard.$i"
			i=$((i + 1))
		done
		sum_stats $files > "$T/shards.sum"
		cmp -s "$T/whole.sum" "$T/shards.sum" || { bad "$name: the statistics of $n shards do not add up"; diff "$T/whole.sum" "$T/shards.sum" | head -6; }
	done
	sc list --shard 1/3 --threads 3 --ordered "$f" "$@" > "$T/d1"
	sc list --shard 1/3 --threads 3 --ordered "$f" "$@" > "$T/d2"
	sc list --shard 1/3 --threads 1 "$f" "$@" > "$T/d3"
	cmp -s "$T/d1" "$T/d2" && cmp -s "$T/d1" "$T/d3" || bad "$name: shard 1/3 is not deterministic"
	[ "$fail" -eq "$before" ] && pass=$((pass + 1)) && step "ok   $name"
}

ALL_SHARDS="1 2 3 4 5 6 7 8 13"
# make check: every shard count on gemm_beast, a sample on the small
# spaces (make check-full: every count on every space, PAR_SEEDS 10)
if [ "${CHECK_FULL:-0}" = 1 ]; then SOME_SHARDS=$ALL_SHARDS; else SOME_SHARDS="2 3 8 13"; fi
for f in "$top_srcdir"/spaces/*.space "$top_srcdir"/spaces/examples/*.space "$top_srcdir"/tests/par/*.space; do
	[ -f "$f" ] || continue
	case $f in
	*gemm_beast*)
		check "$f (reduced)" "$ALL_SHARDS" no "$f" --set max_threads_dim_x=32 --set max_threads_dim_y=32 \
			--set max_threads_per_block=32 ;;
	*synthetic_wide*)
		sed 's/range(1, 100001)/range(1, 3001)/; s/range(0, 20000)/range(0, 4000)/' "$f" > "$T/wide.space"
		check "$f (reduced)" "2 5 13" no "$T/wide.space" ;;
	*synthetic_deep*)
		sed 's/^\(u[0-9]*\) = \[1, 2, 4, 8\]/\1 = [1, 2]/' "$f" > "$T/deep.space"
		check "$f (reduced)" "2 5 13" no "$T/deep.space" ;;
	*synthetic_*)
		check "$f" "2 5 13" no "$f" ;;
	*/spaces/*_cuda.space)
		;;  # the definitions of gemm.space and conv2d.space, checked there
	*gaussian*)
		# 1.5e8 points at its sizes; the same constraints on small inputs
		check "$f (reduced)" "2 5 13" no "$f" --set N1=8 --set N2=8 ;;
	*) check "$f" "$SOME_SHARDS" yes "$f" ;;
	esac
done
echo "shipped spaces: $pass passed, $fail failed"

s=1
while [ "$s" -le "$SEEDS" ]; do
	python3 "$top_srcdir/tests/diff/gen_space.py" "$s" > "$T/r.space" 2>/dev/null
	if "$SPACEC" check -w "$T/r.space" > /dev/null 2>&1; then
		before_seed=$fail
		check "seed $s" "2 5 13" yes "$T/r.space"
		[ "$fail" -eq "$before_seed" ] ||
			echo "  (python3 tests/diff/gen_space.py $s > r.space to reproduce)"
	else
		bad "seed $s: the generated space does not check"
	fi
	s=$((s + 1))
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
