#!/bin/sh
# call 8 (2-GPU host): issue 14's batch, 1 GPU against 2 on the same batch
# run to completion (cold kernel caches), then issue 17's cp.async SGEMM
# against cuBLAS on GPU 0
set -u
t0=$(date +%s)
. ./.carry/full/env.sh
O=${OUT:-/tmp/out8}; mkdir -p $O
W=/dev/shm/w8; mkdir -p $W
{ date -u; nvidia-smi -L; nproc; uptime; } > $O/machine.txt 2>&1
NO_CUBLAS=1 SPACETUNE=spacetune sh bench/batch/gpu.sh --budget ${BATCH_BUDGET:-24} --runs "cold1 cold2" \
	--limit ${BATCH_LIMIT:-330} --out $W/batch > $W/batch.txt 2>&1
echo "batch done $(( $(date +%s) - t0 )) s" >> $O/machine.txt
cd $W && tar cJf $O/batch.tar.xz --exclude='cache*' batch batch.txt; cd - >/dev/null
if [ "${CUDA_S:-0}" != 0 ]; then
	export CUDA_VISIBLE_DEVICES=0
	SPACETUNE=spacetune JOBS=16 BUDGET_SGEMM_CUDA=${CUDA_BASE:-0} BUDGET_SGEMM_OCL=0 BUDGET_CONV=0 \
		BUDGET_SGEMM_CUDA_ASYNC=${CUDA_S}s ASYNC_STAGES="${STAGES:-2 3}" ASYNC_LB_MIN="${LBS:-0}" \
		sh bench/gpu/cuda.sh $W/cuda > $W/cuda.txt 2>&1
	echo "cuda done $(( $(date +%s) - t0 )) s" >> $O/machine.txt
	cd $W && tar cJf $O/cuda.tar.xz --exclude='cache*' cuda cuda.txt; cd - >/dev/null
fi
cat $W/batch/summary.md 2>/dev/null | head -30
tail -20 $W/cuda/summary.txt 2>/dev/null
echo "call8 total $(( $(date +%s) - t0 )) s"
