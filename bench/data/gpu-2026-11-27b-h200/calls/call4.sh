#!/bin/sh
# call 4: issue 14's batch alone on a 2-GPU host, 1 GPU against 2, every run 55 s
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out4}; mkdir -p $O
W=/dev/shm/w4; mkdir -p $W
{ date -u; nvidia-smi -L; nproc; uptime
  echo "== 16 OpenCL starts at once, GPU 0"; for i in $(seq 16); do CUDA_VISIBLE_DEVICES=0 ./.carry/full/diag/clinit c$i & done; wait
} > $O/machine.txt 2>&1
SPACETUNE=spacetune sh bench/batch/gpu.sh --limit 55 --out $W/batch > $W/batch.txt 2>&1
cd $W && tar cJf $O/batch.tar.xz --exclude='cache*' batch batch.txt
