#!/bin/sh
# call 10 (issue 14): where a batch's first-problem start goes: a 2-problem
# GEMM batch on one GPU, 16 jobs, stderr timestamped with the device lock's
# intervals (SPACETUNE_TRACE_LOCK), the spacetune processes counted every 0.2 s
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out10}; mkdir -p $O
W=/dev/shm/w10; rm -rf $W; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
S=${SIZE:-2048}
cat > $W/b.batch <<B
strategy random
budget ${BUDGET:-8}
problem $PWD/spaces/gemm.space
    set M = $S
    set N = $S
    set K = $S
    set precision = "single", "double"
B
spacetune batch $W/b.batch --list > $O/list.txt 2>&1
( while :; do echo "$(date +%s.%N) $(pgrep -c spacetune)"; sleep 0.2; done ) > $O/procs.txt 2>&1 &
sampler=$!
echo "$(date +%s.%N) begin" > $O/trace.txt
SPACETUNE_TRACE_LOCK=1 spacetune batch $W/b.batch --db $W/db ${DEVS:---devices NVIDIA} --jobs ${JOBS:-16} \
	--chunk 8 --repeat 5 --warmup 1 --no-progress 2>&1 | stdbuf -oL tr '\r' '\n' |
	while IFS= read -r l; do echo "$(date +%s.%N) $l"; done >> $O/trace.txt
echo "$(date +%s.%N) end" >> $O/trace.txt
kill $sampler
cp $W/db/*.log $O/ 2>/dev/null
grep -c . $O/trace.txt
