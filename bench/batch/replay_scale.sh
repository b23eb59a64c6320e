#!/bin/sh
# replay_scale.sh -- issue 14's scaling of the distribution itself: one
# batch (conv2d 3x3, 7x7, 11x11 at 4096x2048, random, 48 evaluations each
# in chunks of 8 = 18 units) run by R = 1, 2, 4, 8 local workers against
# the H200 recorded in bench/data/search-2026-11-27-h200, each evaluation
# answered from it after sleeping its recorded build and device times
# (--replay-sleep).  The --devices entries are substrings of the recorded
# device's name (they pick it in the replay, and name the workers).
# From the repository root:  sh bench/batch/replay_scale.sh [SPACETUNE]
st=${1:-spacetune}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cat >r.batch <<EOB
strategy random
budget 48
problem $top/spaces/conv2d.space
    set W = 4096
    set H = 2048
    set filter_size = 3, 7, 11
EOB
sel="H200 NVIDIA H20 VIDIA NVI IDIA DIA 200"
for r in 1 2 4 8; do
	devs=$(echo $sel | tr ' ' '\n' | head -n $r | paste -sd, -)
	rm -rf S$r
	t0=$(date +%s.%N)
	$st batch r.batch --db S$r --replay "$top/bench/data/search-2026-11-27-h200" --replay-sleep --chunk 8 --jobs 16 --devices $devs --no-progress 2>S$r.err
	t1=$(date +%s.%N)
	echo "R=$r $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b-a}') s, $(cat S$r/*.jsonl | wc -l) records, load $(cut -d' ' -f1 /proc/loadavg)"
done
