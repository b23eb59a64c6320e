#!/bin/sh
# call 16 (issue 14): after the inputs and resets copied on the device
# from a pristine copy (eval.c reset_buffer): first a CUDA-backend check
# (gemm_cuda.space, 8 random evaluations, every one must verify), then
# 1 GPU against 2 on the batch of call14/15 (gpu.sh, budget 24)
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out16}; mkdir -p $O
W=/dev/shm/w16; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=index,name,persistence_mode --format=csv > $O/gpu.txt 2>&1; nproc >> $O/gpu.txt
XDG_CACHE_HOME=$W/cache spacetune run spaces/gemm_cuda.space --set M=2048 --set N=2048 --set K=2048 \
	--strategy random --budget 8 --jobs 8 --repeat 5 --no-progress --db $W/cuda.jsonl > $O/cuda.txt 2>&1
echo "cuda rc $?; statuses: $(grep -o '"status":"[a-z_]*"' $W/cuda.jsonl | sort | uniq -c | tr '\n' ' ')" | tee -a $O/cuda.txt
cp $W/cuda.jsonl $O/
NO_CUBLAS=1 SPACETUNE=spacetune sh bench/batch/gpu.sh --budget 24 --runs "cold1 cold2" \
	--limit 250 --out $W/new > $O/gpu-sh.txt 2>&1
cp $W/new/summary.md $O/ 2>/dev/null
tar cJf $O/batch.tar.xz -C $W new/db-cold1 new/db-cold2 new/cold1.err new/cold2.err new/gpu.batch new/run.log 2>/dev/null
cat $O/gpu.txt; grep -A4 "^| run" $O/summary.md; grep "ratio\|after each" $O/summary.md
grep -A14 "best GFLOP" $O/summary.md
