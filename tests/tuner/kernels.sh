#!/bin/sh
# The shipped GEMM and 2D-convolution kernels tuned end to end on PoCL at
# small sizes: every configuration evaluated must verify against the
# reference (zero wrong_result) and `spacetune best` must report one.
# In make check-full the conv2d space at W=16, H=8 and a 3x3 filter (60
# points; the oracle for the count: `spacec count`) is tuned exhaustively
# and GEMM at M=N=K=32 on a seeded random sample of 40; make check tunes a
# seeded sample of 12 of each.  Each part skips itself when its space or
# its tune: section is missing.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
S=${SPACES_DIR:-$top_srcdir/spaces}
ran=0

tune() { # name space max_exhaustive sets...  (kn, not name: lib.sh uses that)
	kn=$1 space=$2 max=$3
	shift 3
	if [ ! -f "$space" ] || ! grep -q '^tune:' "$space"; then
		echo "skip $kn: no tuning space at $space"
		return
	fi
	ran=1
	n=$("$SPACEC" count "$space" "$@" 2>/dev/null)
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then bad "$kn: spacec count failed"; return; fi
	budget="--strategy exhaustive" nwant=$n
	if [ "$n" -gt "$max" ]; then budget="--strategy random --budget $sample --seed 1" nwant=$sample; fi
	db=$T/$kn.jsonl
	sets=""
	for s in "$@"; do sets="$sets $s"; done
	# shellcheck disable=SC2086
	expect_status "$kn: run ($n points, $budget)" 0 "$SPACETUNE" run "$space" $sets --db "$db" \
		--jobs 2 --repeat 2 $budget
	check "$kn: no sanitizer report" no_sanitizer_reports "$T/err"
	check "$kn: $nwant configurations recorded" test "$(wc -l <"$db")" -eq "$nwant"
	wrong=$(jq -s '[.[] | select(.status == "wrong_result")] | length' "$db")
	[ "$wrong" -eq 0 ] && ok "$kn: zero wrong_result" || {
		bad "$kn: $wrong wrong results"
		jq -c 'select(.status == "wrong_result") | [.params, .error]' "$db" | head -5
	}
	expect_status "$kn: best" 0 "$SPACETUNE" best --db "$db" --header "$T/$kn.h"
	check "$kn: best reported" grep -q '^best ' "$T/out"
}

# make check: 12 random configurations of each; make check-full: all
# 60 of conv2d, 40 of gemm
if [ "${CHECK_FULL:-0}" = 1 ]; then sample=40 full_conv=60; else sample=12 full_conv=0; fi
tune conv2d "$S/conv2d.space" $full_conv --set W=16 --set H=8 --set filter_size=3
tune gemm "$S/gemm.space" 80 --set M=32 --set N=32 --set K=32
[ "$ran" -eq 1 ] || { echo "no kernel spaces: skipped"; exit 77; }
finish
