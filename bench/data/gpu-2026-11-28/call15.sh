#!/bin/sh
# call 15 (issue 14): after 6ea7b17 (the device query without a context):
# one traced `spacetune run` (16 workers, as call13) for the load phase,
# then 1 GPU against 2 on the batch of call14 (gpu.sh, budget 24)
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out15}; mkdir -p $O
W=/dev/shm/w15; rm -rf $W; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
nvidia-smi --query-gpu=index,name,persistence_mode --format=csv > $O/gpu.txt 2>&1; nproc >> $O/gpu.txt
spacec count spaces/gemm.space --set M=2048 --set N=2048 --set K=2048 >/dev/null 2>&1
python3 -c 'import time; print("begin", time.monotonic())' > $O/run-j16.txt
SPACETUNE_TRACE_LOCK=1 spacetune run spaces/gemm.space --set M=2048 --set N=2048 --set K=2048 --strategy random \
	--seed 16 --budget 16 --jobs 16 --repeat 5 --warmup 1 --no-progress --db $W/j16.jsonl >> $O/run-j16.txt 2>&1
python3 -c 'import time; print("end", time.monotonic())' >> $O/run-j16.txt
grep "^spacetune-phase\|^begin\|^end" $O/run-j16.txt | awk 'NR==1{t0=$2} /^begin/{t0=$2; next} {print $3 ? $3 : $1, $NF - t0}'
unset XDG_CACHE_HOME
NO_CUBLAS=1 SPACETUNE=spacetune sh bench/batch/gpu.sh --budget 24 --runs "cold1 cold2" \
	--limit 250 --out $W/new > $O/gpu-sh.txt 2>&1
cp $W/new/summary.md $O/ 2>/dev/null
tar cJf $O/batch.tar.xz -C $W new/db-cold1 new/db-cold2 new/cold1.err new/cold2.err new/gpu.batch new/run.log 2>/dev/null
cat $O/gpu.txt; grep -A4 "^| run" $O/summary.md; grep "ratio\|after each" $O/summary.md
