#!/bin/sh
# call 13 (issue 14; run with the build of bb27921, whose start events were
# on spacetune-lock lines; later builds write them on spacetune-start lines): where a start goes, traced (SPACETUNE_TRACE_LOCK: the
# run's phases, each worker's fork, device open and reference, the device
# lock), monotonic seconds: `spacetune run` of 2048^3 SGEMM with 16 and 32
# workers, kernels cold, the enumerator cached; then the 2-problem batch
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out13}; mkdir -p $O
W=/dev/shm/w13; rm -rf $W; mkdir -p $W; export XDG_CACHE_HOME=$W/cache
nvidia-smi --query-gpu=index,name,persistence_mode --format=csv > $O/gpu.txt 2>&1; nproc >> $O/gpu.txt
spacec count spaces/gemm.space --set M=2048 --set N=2048 --set K=2048 >/dev/null 2>&1
export SPACETUNE_TRACE_LOCK=1
for j in 16 32 16; do
	rm -rf $W/cache/spacetune
	python3 -c 'import time; print("begin", time.monotonic())' > $O/run-j$j.txt
	spacetune run spaces/gemm.space --set M=2048 --set N=2048 --set K=2048 --strategy random --seed $j \
		--budget 16 --jobs $j --repeat 5 --warmup 1 --no-progress --db $W/j$j-$(date +%s).jsonl >> $O/run-j$j.txt 2>&1
	python3 -c 'import time; print("end", time.monotonic())' >> $O/run-j$j.txt
done
cat > $W/b.batch <<B
strategy random
budget 8
problem $PWD/spaces/gemm.space
    set M = 2048
    set N = 2048
    set K = 2048
    set precision = "single", "double"
B
rm -rf $W/cache/spacetune
python3 -c 'import time; print("begin", time.monotonic())' > $O/batch.txt
spacetune batch $W/b.batch --db $W/db --devices NVIDIA --chunk 8 --repeat 5 --warmup 1 --no-progress >> $O/batch.txt 2>&1
python3 -c 'import time; print("end", time.monotonic())' >> $O/batch.txt
cp $W/db/*.log $O/
for f in $O/run-j*.txt $O/batch.txt; do
python3 - "$f" <<'P'
import sys, re
t0 = None; ev = []
for l in open(sys.argv[1]):
    w = l.split()
    if not w: continue
    if w[0] == 'begin': t0 = float(w[1]); continue
    if w[0] == 'end': ev.append(('end', '', float(w[1]))); continue
    if w[0] in ('spacetune-lock', 'spacetune-start', 'spacetune-phase') and len(w) >= 4:
        try: ev.append((w[2], w[1], float(w[3])))
        except ValueError: pass
ev.sort(key=lambda e: e[2])
print('==', sys.argv[1])
seen = {}
for what, pid, t in ev:
    k = what
    seen.setdefault(k, []).append(t - t0)
for k, ts in seen.items():
    print(f"{k:16s} n={len(ts):3d} first {min(ts):6.2f} median {sorted(ts)[len(ts)//2]:6.2f} last {max(ts):6.2f}")
P
done
