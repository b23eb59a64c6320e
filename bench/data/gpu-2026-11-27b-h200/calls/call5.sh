#!/bin/sh
# call 5: issue 14's batch alone on a 2-GPU host, 1 GPU against 2, every run 50 s, the worker-reuse build
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out4}; mkdir -p $O
W=/dev/shm/w5; mkdir -p $W
{ date -u; nvidia-smi -L; nproc; uptime; } > $O/machine.txt 2>&1
NO_CUBLAS=1 SPACETUNE=spacetune sh bench/batch/gpu.sh --limit 50 --out $W/batch > $W/batch.txt 2>&1
cd $W && tar cJf $O/batch.tar.xz --exclude='cache*' batch batch.txt
