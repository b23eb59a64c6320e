#!/bin/sh
# python.sh FIRST N: random spaces FIRST..FIRST+N-1 (tests/diff/gen_space.py)
# against the Python oracle alone (tests/diff/py_oracle.py): the points
# of the interpreter and of -O2 must be the ones Python's own parser and
# eval find, and -O2's count their number.  make check-full's extra
# thousands of spaces (python-[ab].sh); run.sh covers seeds 1-1000 with
# every mode.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
FIRST=$1 N=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skipped=0
s=$FIRST
last=$((FIRST + N - 1))
while [ "$s" -le "$last" ]; do
	python3 "$top_srcdir/tests/diff/gen_space.py" "$s" > "$T/r.space"
	# A generated space is small; a run this long is a hang, so it fails.
	timeout 300 "$SPACEC" list -w --format jsonl --interpret "$T/r.space" > "$T/i.jsonl" 2>"$T/err"
	ri=$?
	timeout 300 "$SPACEC" list -w --format jsonl --jit=tcc -O2 "$T/r.space" > "$T/o2.jsonl" 2>>"$T/err"
	ro=$?
	count=$(timeout 300 "$SPACEC" count -w --jit=tcc -O2 "$T/r.space" 2>>"$T/err")
	rc=$?
	python3 "$top_srcdir/tests/diff/py_oracle.py" "$T/r.space" "$T/i.jsonl" "$T/o2.jsonl" > "$T/py.out" 2>&1
	rp=$?
	bad=""
	[ $ri -eq 0 ] && [ $ro -eq 0 ] && [ $rc -eq 0 ] || bad="$bad exit statuses $ri $ro $rc"
	[ $rp -eq 0 ] || [ $rp -eq 3 ] || bad="$bad points"
	[ "$count" = "$(grep -c . "$T/o2.jsonl")" ] || bad="$bad count $count"
	if [ -n "$bad" ]; then
		fail=$((fail + 1))
		echo "FAIL seed $s:$bad (python3 tests/diff/gen_space.py $s > r.space to reproduce)"
		head -8 "$T/py.out" "$T/err"
	elif [ $rp -eq 3 ]; then
		skipped=$((skipped + 1))
	else
		pass=$((pass + 1))
	fi
	[ $(((s - FIRST + 1) % 250)) -eq 0 ] && echo "seeds $FIRST-$s: $pass passed, $fail failed, $skipped skipped"
	s=$((s + 1))
done
echo "python oracle: $pass spaces compared, $skipped skipped (too large, or a form it does not read)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
