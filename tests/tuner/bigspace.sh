#!/bin/sh
# spacetune's strategies, every one, on a space too big to list (issue 15): the ATF
# Gaussian convolution, 1.5e8 valid points of 1.2e11, reached by index
# (tuner/job.c beyond TUNE_JOB_LIST_MAX, runtime/access.c) instead of
# listed (about 13 GB as the listed path stores it).  bigsearch drives each
# strategy as spacetune run does, with a made-up cost instead of a kernel.
# Every proposed point is checked against the space's definition by an
# independent checker (gaussian_check.py), none may repeat, and the
# process's peak resident set must stay under 200 MiB (1 GiB under ASan).  The same
# strategies on a reduced gaussian (listed: the fast path) pass the same
# checks.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
BIG=$top_builddir/tests/tuner/bigsearch
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
XDG_CACHE_HOME=${XDG_CACHE_HOME:-$T/cache}
export XDG_CACHE_HOME

# The space with a tune section around a kernel that ignores its defines.
cp "$top_srcdir/tests/tuner/vadd.cl" "$top_srcdir/tests/tuner/vadd_ref.c" "$T/"
{ cat "$top_srcdir/spaces/gaussian.space"; cat <<'TUNE'

setting N = 1024
tune:
    kernel vadd from "vadd.cl"
    define CACHE_L_CB, NUM_WI_L_1, NUM_WI_L_2
    global [N]
    local [1]
    arg int N
    arg in float a[N] = random(1)
    arg in float b[N] = random(2, -2.0, 2.0)
    arg inout float c[N] = random(3)
    arg float 0.5
    reference c vadd_ref from "vadd_ref.c"
TUNE
} > "$T/gaussian.space"

# search NAME BUDGET N1 N2 WANT_POINTS
search() {
	s=$1 budget=$2 n1=$3 n2=$4 want=$5
	"$BIG" "$T/gaussian.space" "$s" "$budget" 7 N1="$n1" N2="$n2" > "$T/$s.csv" 2> "$T/$s.err" \
		|| { bad "$s (${n1}x$n2): bigsearch failed: $(head -3 "$T/$s.err")"; return; }
	points=$(sed -n 's/^points \([0-9]*\) .*/\1/p' "$T/$s.err")
	rss=$(sed -n 's/.* maxrss_kib \([0-9]*\)$/\1/p' "$T/$s.err")
	[ "$points" = "$want" ] || { bad "$s (${n1}x$n2): $points points, want $want"; return; }
	rows=$(($(wc -l < "$T/$s.csv") - 1))
	# bfs too: under a budget it passes again and restarts after its last level
	[ "$rows" -eq "$budget" ] || { bad "$s (${n1}x$n2): $rows points proposed of $budget"; return; }
	python3 "$top_srcdir/tests/tuner/gaussian_check.py" "$n1" "$n2" "$T/$s.csv" > "$T/why" \
		|| { bad "$s (${n1}x$n2): $(cat "$T/why")"; return; }
	# 200 MiB; under ASan (shadow memory, quarantine) 1 GiB, still far
	# below the 13 GB a listed gaussian takes
	limit=204800
	grep -q ' asan 1 ' "$T/$s.err" && limit=1048576
	[ "$rss" -le "$limit" ] || { bad "$s (${n1}x$n2): peak RSS $rss KiB > $limit KiB"; return; }
	ok "$s (${n1}x$n2, $points points): $rows valid distinct points, peak RSS $rss KiB"
}

big=$("$SPACEC" count "$top_srcdir/spaces/gaussian.space")
small=$("$SPACEC" count --interpret "$top_srcdir/spaces/gaussian.space" --set N1=8 --set N2=8)
for s in exhaustive random anneal pso genetic local; do
	search "$s" 60 4096 4096 "$big"
	search "$s" 60 8 8 "$small"
done
# bo, bfs and the bandit (bo and anneal) keep nothing per point on the big
# space either (sparse mode): candidates drawn by index and single-parameter
# moves, each looked up
for s in bo bfs bandit; do
	search "$s" 60 4096 4096 "$big"
	search "$s" 60 8 8 "$small"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
