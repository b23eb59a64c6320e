#!/bin/sh
# make check-full: the differential test (tests/diff/run.sh) on
# CHECK_FULL_SEEDS random spaces (default 4000), from seed 1001 on (make
# check runs 1-1000), with the Python oracle (py_oracle.py) on every one,
# in CHECK_FULL_JOBS parallel parts (default: the online CPUs).
set -u
SEEDS=${CHECK_FULL_SEEDS:-4000}
JOBS=${CHECK_FULL_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
FIRST=${CHECK_FULL_FIRST_SEED:-1001}
top_srcdir=${top_srcdir:-.}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
per=$(( (SEEDS + JOBS - 1) / JOBS ))
j=0
while [ $j -lt "$JOBS" ]; do
	first=$((FIRST + j * per))
	n=$per
	[ $((j * per + n)) -gt "$SEEDS" ] && n=$((SEEDS - j * per))
	if [ "$n" -gt 0 ]; then
		DIFF_RANDOM_ONLY=1 DIFF_FIRST_SEED=$first DIFF_SEEDS=$n DIFF_PYTHON_EVERY=1 \
			sh "$top_srcdir/tests/diff/run.sh" > "$T/part$j.log" 2>&1 &
	fi
	j=$((j + 1))
done
wait
pass=0 fail=0
for log in "$T"/part*.log; do
	grep -v '^[0-9]* passed, [0-9]* failed$' "$log" | grep -v '^shipped and test spaces' | grep -v '^python oracle:'
	p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | tail -1)
	[ -n "$p" ] || { echo "FAIL $(basename "$log"): no summary"; f=1; p=0; }
	pass=$((pass + p)) fail=$((fail + f))
done
compared=$(sed -n 's/^python oracle: \([0-9]*\) spaces compared.*/\1/p' "$T"/part*.log | awk '{ s += $1 } END { print s + 0 }')
skipped=$(sed -n 's/^python oracle: [0-9]* spaces compared, \([0-9]*\) skipped/\1/p' "$T"/part*.log |
	awk '{ s += $1 } END { print s + 0 }')
echo "check-full: $SEEDS random spaces from seed $FIRST; the Python oracle compared $compared, skipped $skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
