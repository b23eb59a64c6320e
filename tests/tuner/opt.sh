#!/bin/sh
# The optimizer's naive benchmark kernels (kernels/opt, spaces/opt) on
# PoCL at small sizes: a seeded sample of each space verifies against its
# C reference (zero wrong_result), the naive = 1 baseline is one point,
# and the breadth-first search (--strategy bfs) ends after its levels
# with fewer evaluations than the space has points, every one verified,
# its best the minimum of what it measured.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
O=$top_srcdir/spaces/opt

opt_space() { # name sets...
	on=$1
	shift
	db=$T/$on.jsonl
	expect_status "$on: a sample of 5" 0 "$SPACETUNE" run "$O/$on.space" "$@" --db "$db" \
		--jobs 2 --repeat 1 --strategy random --budget 5 --seed 4 --no-progress
	check "$on: no sanitizer report" no_sanitizer_reports "$T/err"
	check "$on: 5 configurations, all verified" \
		test "$(jq -s '[.[] | select(.status == "ok")] | length' "$db")" -eq 5
	check "$on: naive = 1 is one point" test "$("$SPACEC" count "$O/$on.space" "$@" --set naive=1)" -eq 1
}
opt_space matmul --set M=32 --set N=32 --set K=16
opt_space stencil --set W=32 --set H=16
opt_space nbody --set n=256
opt_space dcs --set nx=32 --set ny=16 --set natoms=32

# bfs on matmul: lx (8 values), ly (6), then its annotations, each one
# level: coarsen c_x c_y (4 x 4 together), tile t_k (1 2 4 ... 64; only
# where the coarsening level kept c = 1) and unroll u_k (1 2 4 8 16): at
# most 1 + 7 + 5 + 15 + 6 + 4 points
db=$T/bfs.jsonl
expect_status "bfs: run" 0 "$SPACETUNE" run "$O/matmul.space" --set M=32 --set N=32 --set K=16 \
	--db "$db" --jobs 2 --repeat 1 --strategy bfs --no-progress
n=$(wc -l <"$db")
check "bfs: ended after its levels ($n points)" test "$n" -ge 2 -a "$n" -le 38
check "bfs: every point verified" test "$(jq -s '[.[] | select(.status != "ok")] | length' "$db")" -eq 0
# level 1 varies lx with ly fixed at the start's; later levels keep lx at its best
check "bfs: at most one value of ly with more than one lx" \
	test "$(jq -r '"\(.params.ly) \(.params.lx)"' "$db" | sort -u | awk '{ print $1 }' | uniq -c |
		awk '$1 > 1' | wc -l)" -le 1
check "bfs: the annotations' factors were searched" \
	test "$(jq -r .params.u_k "$db" | sort -u | wc -l)" -ge 2 -a \
		"$(jq -r '"\(.params.c_x) \(.params.c_y) \(.params.t_k)"' "$db" | sort -u | wc -l)" -ge 4
want_ms=$(jq -s "map(.time_ms.median) | min" "$db")
expect_status "bfs: best" 0 "$SPACETUNE" best --db "$db" --json "$T/bfs.json"
check "bfs: best is the minimum measured" test "$(jq .time "$T/bfs.json")" = "$want_ms"
# a 2-D coarsen's two factors vary in one level (tests/optimizer/coarsen.cl:
# coarsen wx wy 1 4 *2, then unroll uk): some pair of points differs in both
db=$T/bfs2.jsonl
expect_status "bfs, 2-D coarsen: run" 0 "$SPACETUNE" run "$top_srcdir/tests/optimizer/coarsen.space" \
	--db "$db" --jobs 2 --repeat 1 --strategy bfs --no-progress
check "bfs: one annotation's parameters vary together" \
	test "$(jq -r '"\(.params.wx) \(.params.wy)"' "$db" | sort -u | wc -l)" -ge 4
finish
