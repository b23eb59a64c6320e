#!/bin/sh
# call 9: where one run's start goes (issue 14): the progress phases of a
# 2048^3 SGEMM run, timestamped, with 16 workers and with 1
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out9}; mkdir -p $O
W=/dev/shm/w9; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
{ date -u; nvidia-smi -L; nproc; } > $O/machine.txt 2>&1
stamp() { stdbuf -oL tr '\r' '\n' | while IFS= read -r l; do echo "$(date +%s.%N) $l"; done; }
for j in ${JOBS_LIST:-16 1 16}; do
	echo "$(date +%s.%N) begin jobs $j" >> $O/timeline.txt
	spacetune run spaces/gemm.space --set M=2048 --set N=2048 --set K=2048 ${EXTRA:-} --strategy random --seed $j \
		--budget ${BUDGET:-8} --jobs $j --repeat 5 --warmup 1 --progress --db $W/j$j-$(date +%s).jsonl 2>&1 | stamp >> $O/timeline.txt
	echo "$(date +%s.%N) end jobs $j" >> $O/timeline.txt
done
grep -c . $O/timeline.txt
