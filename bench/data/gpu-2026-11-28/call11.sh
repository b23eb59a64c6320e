#!/bin/sh
# call 11 (issue 14): is a batch's start the NVIDIA driver's first open of an
# idle GPU, repeated per process?  `spacetune devices` timed on an idle GPU,
# then while another process (PyTorch, a CUDA context) holds every GPU open;
# the 2-problem batch of call10 timed the same two ways; and the enumerator
# JIT on this host (tcc's runtime files carried by env.sh)
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out11}; mkdir -p $O
nvidia-smi --query-gpu=name,persistence_mode,driver_version --format=csv > $O/gpu.txt 2>&1
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t() { s=$(ms); "$@" > /dev/null 2>&1; echo "$(( $(ms) - s )) ms $*"; }
W=/dev/shm/w11; rm -rf $W; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
spacec count spaces/gemm.space --jit=tcc --set M=2048 --set N=2048 --set K=2048 > $O/tcc.txt 2>&1
echo "tcc rc $?" >> $O/tcc.txt
cat > $W/b.batch <<B
strategy random
budget 8
problem $PWD/spaces/gemm.space
    set M = 2048
    set N = 2048
    set K = 2048
    set precision = "single", "double"
B
batch() { # label: the 2-problem batch, cold database, enumerators cached after the first
	rm -rf $W/db
	s=$(ms)
	spacetune batch $W/b.batch --db $W/db --devices NVIDIA --jobs 16 --chunk 8 --repeat 5 --warmup 1 --no-progress > $O/batch-$1.txt 2>&1
	rc=$?; echo "$(( $(ms) - s )) ms batch $1 rc $rc"
}
hold() {
	python3 -c "
import torch, time, sys
xs = [torch.zeros(1, device=f'cuda:{i}') for i in range(torch.cuda.device_count())]
torch.cuda.synchronize(); open('$W/held', 'w').close(); time.sleep(600)" &
	holder=$!
	while [ ! -f $W/held ]; do sleep 0.1; done
}
{
echo "# idle GPU"
for i in 1 2 3; do t spacetune devices; done
batch warmup-enumerators
batch idle1
batch idle2
echo "# every GPU held by another process"
hold
for i in 1 2 3; do t spacetune devices; done
batch held1
batch held2
kill $holder
echo "# idle again"
sleep 2
t spacetune devices
batch idle3
} > $O/times.txt 2>&1
cat $O/times.txt $O/gpu.txt $O/tcc.txt; grep -h "elapsed\|wall\|evaluations" $O/batch-*.txt | tail -20
