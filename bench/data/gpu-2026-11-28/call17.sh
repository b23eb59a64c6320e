#!/bin/sh
# call 17: which GPUs the keeper (spacetune-gpus) holds: a `spacetune run`
# on the second GPU (--device 1: only that one), then a batch (every GPU);
# nvidia-smi's compute processes sampled while each runs
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out17}; mkdir -p $O
W=/dev/shm/w17; rm -rf $W; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
apps() { nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name --format=csv,noheader 2>&1; }
nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader > $O/gpus.txt
sample() { # label: the keeper's and the workers' GPUs after 4 s
	sleep 4
	echo "## $1"
	for p in $(pgrep -x spacetune-gpus); do echo "keeper $p holds:"; apps | grep " $p," ; done
	echo "all spacetune processes on GPUs: $(apps | grep -c spacetune)"
}
{
spacetune run spaces/gemm.space --set M=1024 --set N=1024 --set K=1024 --device 1 --platform NVIDIA \
	--strategy random --budget 16 --jobs 4 --no-progress --db $W/run.jsonl > $W/run.out 2>&1 &
sample "run --device 1"; wait
tail -3 $W/run.out
printf 'strategy random\nbudget 8\nproblem %s/spaces/gemm.space\n    set M = 1024\n    set N = 1024\n    set K = 1024\n' "$PWD" > $W/b.batch
spacetune batch $W/b.batch --db $W/db --jobs 2 --no-progress > $W/batch.out 2>&1 &
sample "batch (every GPU)"; wait
tail -3 $W/batch.out
} > $O/keeper.txt 2>&1
cat $O/gpus.txt $O/keeper.txt
