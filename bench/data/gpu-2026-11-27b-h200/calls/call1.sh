#!/bin/sh
# call 1: issue 15's exhaustive datasets, one set per GPU (4 GPUs)
set -u
t0=$(date +%s)
. ./.carry/full/env.sh
O=${OUT:-/tmp/out1}; mkdir -p $O/ds
{
date -u; nvidia-smi -L; nproc; free -g | head -2
spacetune devices
echo "== CUDA_VISIBLE_DEVICES=2:"; CUDA_VISIBLE_DEVICES=2 spacetune devices
echo "== libclang check:"; spacetune variant spaces/opt/matmul.space --set M=64 --set N=64 --set K=64 2>&1 | head -3
} > $O/machine.txt 2>&1
echo "unpack+probe $(( $(date +%s) - t0 )) s" >> $O/machine.txt
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
ngpu=$(nvidia-smi -L | wc -l)
case $name in *H200*)
	for s in conv3 conv7 conv11; do xz -dc bench/data/search-2026-11-27-h200/$s.jsonl.xz > $O/ds/$s.jsonl; done
	echo "H200: resuming the partial sets" >> $O/machine.txt ;;
esac
export DEADLINE=$((t0 + ${DS_SECONDS:-540}))
export PLATFORM=NVIDIA
g() { echo $(( $1 % ngpu )); }
( DEVICE=$(g 0) JOBS=12 sh bench/gpu/datasets.sh $O/ds conv3 conv7 > $O/ds/g0.txt 2>&1 ) &
( DEVICE=$(g 1) JOBS=24 sh bench/gpu/datasets.sh $O/ds conv11 > $O/ds/g1.txt 2>&1 ) &
( DEVICE=$(g 2) JOBS=16 sh bench/gpu/datasets.sh $O/ds sgemm > $O/ds/g2.txt 2>&1 ) &
( DEVICE=$(g 3) JOBS=12 sh bench/gpu/datasets.sh $O/ds dgemm > $O/ds/g3.txt 2>&1 ) &
wait
cat $O/ds/rates.txt
uptime >> $O/machine.txt
cd $O && tar cJf ds.tar.xz ds && rm -rf ds
echo "call1 total $(( $(date +%s) - t0 )) s"
