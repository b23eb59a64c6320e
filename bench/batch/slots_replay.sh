#!/bin/sh
# slots_replay.sh -- what `spacetune batch --slots K` does to a GPU batch's
# wall time, measured on a replayed device (no GPU needed): the batch of
# bench/batch/gpu.sh (8 GEMM and 3 conv2d problems, 24 random evaluations
# each, chunks of 8) answered from its records on a 2 x H100 host
# (bench/data/gpu-2026-11-28/call16-out, the 1-GPU cold run: every build
# uncached), each evaluation holding one of a worker's --jobs for its
# recorded build time and then the device for its recorded device time
# (--replay-sleep).  A device's slots share it (the replay's lock file),
# so their device times queue as on a card.  What the replay leaves out:
# the device's start (contexts: bench/README.md), and builds slowing down
# when more of them share the cores.
#
#   sh bench/batch/slots_replay.sh [SPACETUNE [REPEATS]]
#
# Prints one line per run and a table of medians.  From the repository root.
st=${1:-spacetune}
. "$(dirname "$0")/program.sh"
reps=${2:-1}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xJf "$top/bench/data/gpu-2026-11-28/call16-out/batch.tar.xz" -C "$work" new/db-cold1 new/gpu.batch
# The recorded batch names the spaces by the device machine's checkout.
sed "s|^problem .*/spaces/|problem $top/spaces/|" "$work/new/gpu.batch" >"$work/gpu.batch"
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
# GPUS SLOTS JOBS: the replayed "GPUs" are --devices entries that all pick
# the records' one device (H100); 16 jobs a device, as on the 32-core host
for run in "1 1 16" "1 2 8" "1 4 4" "2 1 16" "2 2 8" "2 4 4"; do
	set -- $run
	devs=H100
	[ "$1" -eq 2 ] && devs=H100,NVIDIA
	for k in $(seq 1 "$reps"); do
		d="$work/g$1-s$2-$k"
		t0=$(date +%s.%N)
		"$st" batch "$work/gpu.batch" --db "$d" --replay "$work/new/db-cold1" --replay-sleep \
			--devices "$devs" --slots "$2" --jobs "$3" --chunk 8 --no-progress >"$d.out" 2>"$d.err"
		rc=$?
		wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
		echo "$1 $2 $wall" >>"$work/walls"
		echo "GPUs=$1 slots=$2 jobs=$3 run $k: exit $rc, $wall s, $(cat "$d"/*.jsonl | wc -l) records"
	done
done
echo
echo "| GPUs | slots x jobs | wall s (median) | against 1 slot | 2 GPUs against 1 |"
echo "|---:|---|---:|---:|---:|"
med() { awk -v g="$1" -v s="$2" '$1 == g && $2 == s { print $3 }' "$work/walls" | sort -n |
	awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for g in 1 2; do
	for s in 1 2 4; do
		awk -v g="$g" -v s="$s" -v m="$(med "$g" "$s")" -v b="$(med "$g" 1)" -v one="$(med 1 "$s")" 'BEGIN {
			printf "| %d | %d x %d | %.1f | %.2fx | %s |\n", g, s, 16 / s, m, b / m,
				g == 2 ? sprintf("%.2fx", one / m) : "" }'
	done
done
