#!/bin/sh
# call 12 (issue 14): 1 GPU against 2 on a 2-GPU host after 196cf9f (the
# enumerator by tcc) and 0b4f978 (--jobs shared among the devices, the GPU
# keeper): first the start alone, the 2-problem batch of call11 with and
# without the keeper; then bench/batch/gpu.sh as in call8 (budget 24,
# cold kernel caches, each run to its end)
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out12}; mkdir -p $O
nvidia-smi --query-gpu=index,name,persistence_mode,driver_version --format=csv > $O/gpu.txt 2>&1
nproc >> $O/gpu.txt
ms() { echo $(( $(date +%s%N) / 1000000 )); }
W=/dev/shm/w12; rm -rf $W; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
cat > $W/b.batch <<B
strategy random
budget 8
problem $PWD/spaces/gemm.space
    set M = 2048
    set N = 2048
    set K = 2048
    set precision = "single", "double"
B
batch() { # label [env]: the 2-problem batch on the first GPU, a fresh database
	rm -rf $W/db
	s=$(ms)
	env $2 spacetune batch $W/b.batch --db $W/db --devices NVIDIA --chunk 8 --repeat 5 --warmup 1 --no-progress > $O/batch-$1.txt 2>&1
	rc=$?; echo "$(( $(ms) - s )) ms batch $1 rc $rc"
}
{
s=$(ms); spacetune devices > /dev/null 2>&1; echo "$(( $(ms) - s )) ms spacetune devices (idle)"
batch warmup SPACETUNE_KEEP_GPUS=1
batch nokeep1 SPACETUNE_KEEP_GPUS=0
batch keep1 SPACETUNE_KEEP_GPUS=1
batch nokeep2 SPACETUNE_KEEP_GPUS=0
batch keep2 SPACETUNE_KEEP_GPUS=1
} > $O/start.txt 2>&1
cat $O/gpu.txt $O/start.txt
NO_CUBLAS=1 SPACETUNE=spacetune sh bench/batch/gpu.sh --budget 24 --runs "cold1 cold2" \
	--limit 250 --out $W/batch > $O/gpu-sh.txt 2>&1
tail -25 $O/gpu-sh.txt
cp $W/batch/summary.md $W/batch/run.log $W/batch/walls.txt $O/ 2>/dev/null
tar cJf $O/batch.tar.xz -C $W batch/db-cold1 batch/db-cold2 batch/cold1.err batch/cold2.err batch/gpu.batch batch/machine.txt 2>/dev/null
ls -la $O
