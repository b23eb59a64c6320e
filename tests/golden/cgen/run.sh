#!/bin/sh
# Golden generated C: for each tests/golden/cgen/NAME.space, runs
# `spacec emit NAME.space -o -` inside that folder (so the output names the
# bare file) and compares stdout byte for byte with NAME.c.  Each golden is
# also compiled with $CC -std=c11 -Wall -Wextra -Werror against the
# runtime header, so a golden that stopped compiling cleanly fails too.
#
#   SPACEC        the spacec binary (default: ./spacec)
#   CC            the C compiler for the compile check (default: cc)
#   top_srcdir    the source tree (default: .)
#   UPDATE_GOLDEN=1 rewrites the .c files from the current output; review
#                 every change by eye before committing it.
set -u

: "${top_srcdir:=.}"
: "${SPACEC:=./spacec}"
: "${CC:=cc}"
case $SPACEC in
/*) ;;
*) SPACEC=$(pwd)/$SPACEC ;;
esac
case $top_srcdir in
/*) ;;
*) top_srcdir=$(pwd)/$top_srcdir ;;
esac

if [ ! -x "$SPACEC" ]; then
	echo "run.sh: no spacec at $SPACEC" >&2
	exit 99
fi

dir=$top_srcdir/tests/golden/cgen
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-cgen.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}log_path=$tmp/asan
UBSAN_OPTIONS=${UBSAN_OPTIONS:-}${UBSAN_OPTIONS:+:}log_path=$tmp/ubsan:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS

pass=0
fail=0
for src in "$dir"/*.space; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .space)
	want=$dir/$name.c
	if ! (cd "$dir" && "$SPACEC" emit "$name.space" -o -) >"$tmp/got" 2>"$tmp/err"; then
		echo "FAIL: $name: spacec emit failed"
		sed 's/^/  /' "$tmp/err"
		fail=$((fail + 1))
		continue
	fi
	if [ "${UPDATE_GOLDEN:-0}" = 1 ] && ! cmp -s "$tmp/got" "$want" 2>/dev/null; then
		cp "$tmp/got" "$want"
		echo "updated: $name.c (review it)"
	fi
	if [ ! -f "$want" ]; then
		echo "FAIL: $name: no $name.c (run with UPDATE_GOLDEN=1, then review it)"
		fail=$((fail + 1))
		continue
	fi
	if ! cmp -s "$tmp/got" "$want"; then
		echo "FAIL: $name: generated C differs from $name.c"
		diff -u "$want" "$tmp/got" | head -40
		fail=$((fail + 1))
		continue
	fi
	if [ -f "$top_srcdir/runtime/spacert.h" ] &&
	   ! $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$top_srcdir/runtime" \
		-x c "$want" 2>"$tmp/cc"; then
		echo "FAIL: $name: $name.c does not compile cleanly"
		sed 's/^/  /' "$tmp/cc" | head -20
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + 1))
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
