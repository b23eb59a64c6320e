#!/bin/sh
# call 3: where a worker's start goes (OpenCL start alone, 1/4/16 at once),
# and one spacetune run's timeline (SPACETUNE_TRACE_LOCK)
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out3}; mkdir -p $O
W=/dev/shm/w3; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
D=./.carry/full/diag
export CUDA_VISIBLE_DEVICES=0
{
echo "== 1 alone"; $D/clinit a1
echo "== 4 at once"; for i in 1 2 3 4; do $D/clinit b$i & done; wait
echo "== 16 at once"; for i in $(seq 16); do $D/clinit c$i & done; wait
echo "== 16 at once, 4 GPUs visible"; for i in $(seq 16); do CUDA_VISIBLE_DEVICES=0,1,2,3 $D/clinit d$i & done; wait
} > $O/clinit.txt 2>&1
for j in 16 4; do
	t0=$(date +%s.%N)
	XDG_CACHE_HOME=$W/cache-$j SPACETUNE_TRACE_LOCK=1 spacetune run spaces/gemm.space --set M=2048 --set N=2048 --set K=2048 --strategy random --seed 1 \
		--budget 16 --jobs $j --repeat 5 --warmup 1 --no-progress --db $W/j$j.jsonl > $O/run-j$j.txt 2>&1
	t1=$(date +%s.%N)
	echo "jobs $j: $t0 -> $t1" >> $O/runs.txt
	python3 -c "
import json
for l in open('$W/j$j.jsonl'):
    r=json.loads(l); print(r['time'], round(r.get('build_s') or 0,2), round(r.get('device_s') or 0,3))" >> $O/runs.txt
done
cat $O/clinit.txt $O/runs.txt; grep -c spacetune-lock $O/run-j16.txt; grep spacetune-lock $O/run-j16.txt | head -40
