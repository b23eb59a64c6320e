#!/bin/sh
# replay_scale.sh -- issue 14's scaling of the distribution itself, under
# MPI: one batch (conv2d 3x3, 7x7, 11x11 at 4096x2048, exhaustive, the
# first 64 points of each: 192 evaluations, all recorded) run by
# `mpirun -np R spacetune batch --mpi` for R = 1, 2, 4, 8 against the H200
# of bench/data/search-2026-11-27-h200: each evaluation answered from its
# record after sleeping the recorded build and device times
# (--replay-sleep, --jobs 1: one evaluation at a time per rank, so a
# rank's work is the sum of its evaluations' recorded seconds whatever
# the chunks, about 50 s for the whole batch).  No --chunk: the batch has
# fewer than 4 problems per rank, so --mpi cuts it (docs/TUNING.md).
# Oversubscribed (--oversubscribe) and niced: a rank mostly sleeps.
#
#   sh bench/batch/replay_scale.sh [SPACETUNE [REPEATS [R...]]]
#
# NICE= (empty) runs mpirun at the default priority instead of under
# `nice` (the default, NICE=nice): on a shared host whose other work runs
# at nice 0 a niced rank waits for a core at every step (the whole batch
# takes about 1.4 CPU-seconds at R = 8, most of it Open MPI's start).
#
# From the repository root.  Prints one line per run (wall time of the
# whole mpirun, its CPU time, records, load average) and, per R, the
# median's timeline (bench/batch/timeline.py) and the table of medians.
st=${1:-spacetune}
. "$(dirname "$0")/program.sh"
reps=${2:-3}
[ $# -gt 2 ] && shift 2 && rs=$* || rs="1 2 4 8"
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cat >r.batch <<EOB
strategy exhaustive
budget 64
problem $top/spaces/conv2d.space
    set W = 4096
    set H = 2048
    set filter_size = 3, 7, 11
EOB
[ -n "${NICE-nice}" ] && how="under ${NICE-nice}" || how="not niced"
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(mpirun --version 2>&1 | head -n 1), $how"
for k in $(seq 1 "$reps"); do
	for r in $rs; do
		rm -rf "S$r-$k"
		t0=$(date +%s.%N)
		/usr/bin/time -f '%U %S' -o "S$r-$k.time" ${NICE-nice} mpirun --allow-run-as-root --oversubscribe -np "$r" \
			"$st" batch r.batch --mpi --db "S$r-$k" --replay "$top/bench/data/search-2026-11-27-h200" \
			--replay-sleep --jobs 1 --devices H200 --no-progress >"S$r-$k.out" 2>"S$r-$k.err"
		rc=$?
		t1=$(date +%s.%N)
		echo "$t0 $t1" >"S$r-$k.span"
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		echo "$r $wall" >>walls
		echo "R=$r run $k: exit $rc, $wall s, CPU $(tail -n 1 "S$r-$k.time" | awk '{ printf "%.2f", $1 + $2 }') s," \
			"$(cat "S$r-$k"/rank-*.jsonl | wc -l) records," \
			"$(grep -o '[0-9]* units of work' "S$r-$k.err")," \
			"load $(cut -d' ' -f1 /proc/loadavg)"
	done
done
echo
echo "| R ranks | wall s (median of $reps) | runs | speed-up | efficiency | goal 0.9 R |"
echo "|---:|---:|---|---:|---:|---:|"
base=
for r in $rs; do
	med=$(awk -v r="$r" '$1 == r { print $2 }' walls | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	runs=$(awk -v r="$r" '$1 == r { print $2 }' walls | paste -sd' ' -)
	[ -z "$base" ] && base=$med
	awk -v r="$r" -v m="$med" -v b="$base" -v runs="$runs" 'BEGIN {
		printf "| %d | %.1f | %s | %.2f | %.0f%% | %.1f |\n", r, m, runs, b / m, 100 * b / m / r, 0.9 * r }'
done
for r in $rs; do
	# the timeline of the run whose wall time is the median
	med=$(awk -v r="$r" '$1 == r { print $2 }' walls | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	k=$(awk -v r="$r" -v m="$med" '$1 == r { k++; if ($2 == m) { print k; exit } }' walls)
	echo
	echo "R=$r, run $k:"
	python3 "$top/bench/batch/timeline.py" "S$r-$k" $(cat "S$r-$k.span")
done
