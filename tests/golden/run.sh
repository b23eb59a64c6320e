#!/bin/sh
# Golden diagnostics: for each tests/golden/diag/NAME.space, runs
# `spacec check NAME.space` inside that folder (so diagnostics name the bare
# file) and compares stderr byte for byte with NAME.err.  The exit status
# must be 1 when the golden holds an "error:" line, else 0.
#
#   SPACEC        the spacec binary (default: ./spacec)
#   top_srcdir    the source tree (default: .)
#   UPDATE_GOLDEN=1 rewrites the .err files from the current output; review
#                 every change by eye before committing it.
set -u

: "${top_srcdir:=.}"
: "${SPACEC:=./spacec}"
case $SPACEC in
/*) ;;
*) SPACEC=$(pwd)/$SPACEC ;;
esac

if [ ! -x "$SPACEC" ]; then
	echo "run.sh: no spacec at $SPACEC" >&2
	exit 99
fi

dir=$top_srcdir/tests/golden/diag
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# Sanitizer reports must not end up in the compared output.
ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}log_path=$tmp/asan
UBSAN_OPTIONS=${UBSAN_OPTIONS:-}${UBSAN_OPTIONS:+:}log_path=$tmp/ubsan:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS

pass=0
fail=0
for src in "$dir"/*.space; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .space)
	err=$dir/$name.err
	(cd "$dir" && "$SPACEC" check "$name.space") >"$tmp/out" 2>"$tmp/got"
	status=$?
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		if ! cmp -s "$tmp/got" "$err" 2>/dev/null; then
			cp "$tmp/got" "$err"
			echo "updated: $name.err (review it)"
		fi
	fi
	if [ ! -f "$err" ]; then
		echo "FAIL: $name: no $name.err (run with UPDATE_GOLDEN=1, then review it)"
		fail=$((fail + 1))
		continue
	fi
	if grep -q 'error:' "$err"; then want=1; else want=0; fi
	ok=1
	if ! cmp -s "$tmp/got" "$err"; then
		echo "FAIL: $name: diagnostics differ (- expected, + actual)"
		diff -u "$err" "$tmp/got" | sed '1,2d'
		ok=0
	fi
	if [ "$status" -ne "$want" ]; then
		echo "FAIL: $name: exit status $status, expected $want"
		ok=0
	fi
	if [ -s "$tmp/out" ]; then
		echo "FAIL: $name: 'check' wrote to stdout:"
		cat "$tmp/out"
		ok=0
	fi
	for log in "$tmp"/asan* "$tmp"/ubsan*; do
		[ -e "$log" ] || continue
		echo "FAIL: $name: sanitizer report:"
		cat "$log"
		rm -f "$log"
		ok=0
	done
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1
[ "$pass" -gt 0 ] || exit 99
exit 0
