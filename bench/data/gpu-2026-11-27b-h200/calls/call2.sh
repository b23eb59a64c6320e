#!/bin/sh
# call 2: issue 14's GPU batch, 1 against 2 GPUs (GPUs 0,1; cores 0-31);
# issue 17's CUDA/OpenCL/cuBLAS (GPU 2; cores 32-47); issue 16's optimizer
# table (GPU 3; cores 48-63), then issue 12's 16-thread counts there.
# Databases and caches on /dev/shm (call 1: ~0.3 s per record on the disk)
set -u
t0=$(date +%s)
. ./.carry/full/env.sh
O=${OUT:-/tmp/out2}; mkdir -p $O
W=/dev/shm/w; mkdir -p $W
export XDG_CACHE_HOME=$W/cache
{ date -u; nvidia-smi -L; echo "cpus $(nproc)"; uptime; df -h $O /dev/shm | tail -2
  echo "== 200 synced 4 KiB writes (dd oflag=dsync) on OUT, then /dev/shm"
  dd if=/dev/zero of=$O/ddtest bs=4k count=200 oflag=dsync 2>&1 | tail -1; rm -f $O/ddtest
  dd if=/dev/zero of=$W/ddtest bs=4k count=200 oflag=dsync 2>&1 | tail -1; rm -f $W/ddtest
  spacetune variant spaces/opt/matmul.space --set M=64 --set N=64 --set K=64 2>&1 | head -2
} > $O/machine.txt 2>&1
(
	export CUDA_VISIBLE_DEVICES=0,1
	SPACETUNE=spacetune taskset -c 0-31 sh bench/batch/gpu.sh --out $W/batch > $W/batch.txt 2>&1
	echo "batch done at $(( $(date +%s) - t0 )) s" >> $O/machine.txt
) &
(
	export CUDA_VISIBLE_DEVICES=2
	SPACETUNE=spacetune JOBS=16 BUDGET_SGEMM_CUDA=100s BUDGET_SGEMM_CUDA_LDG=100s BUDGET_SGEMM_OCL=60s BUDGET_CONV=40s \
		taskset -c 32-47 sh bench/gpu/cuda.sh $W/cuda > $W/cuda.txt 2>&1
	echo "cuda done at $(( $(date +%s) - t0 )) s" >> $O/machine.txt
) &
(
	export CUDA_VISIBLE_DEVICES=3
	SPACETUNE=spacetune GEMM_BUDGET=24 taskset -c 48-63 sh bench/opt/run.sh gpu $W/opt > $W/opt.txt 2>&1
	echo "opt done at $(( $(date +%s) - t0 )) s" >> $O/machine.txt
	SPACEC=spacec PARTS="count list" taskset -c 48-63 sh bench/enum_targets.sh 1 2 16 > $W/enum.txt 2>&1
	SPACEC=spacec taskset -c 48-63 sh bench/enum_ceiling.sh 16 > $W/ceiling.txt 2>&1
	echo "enum done at $(( $(date +%s) - t0 )) s" >> $O/machine.txt
) &
wait
uptime >> $O/machine.txt
cd $W && tar cJf $O/all.tar.xz --exclude='cache*' batch cuda opt batch.txt cuda.txt opt.txt enum.txt ceiling.txt
echo "call2 total $(( $(date +%s) - t0 )) s"
