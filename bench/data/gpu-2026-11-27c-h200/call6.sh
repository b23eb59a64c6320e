#!/bin/sh
# call 6: issue 12's 16-core count, then issue 15's datasets resumed (one GPU)
set -u
t0=$(date +%s)
. ./.carry/full/env.sh
O=${OUT:-/tmp/out6}; mkdir -p $O
W=/dev/shm/w6; mkdir -p $W/ds; export XDG_CACHE_HOME=$W/cache
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc; uptime; } > $O/machine.txt 2>&1
if [ "${SKIP_ENUM:-0}" = 0 ]; then
SPACEC=spacec REPEAT=5 sh bench/enum_ceiling.sh 16 > $O/ceiling.txt 2>&1
SPACEC=spacec PARTS="count" REPEAT=3 sh bench/enum_targets.sh 1 2 16 > $O/targets.txt 2>&1
echo "enum done $(( $(date +%s) - t0 )) s" >> $O/machine.txt
fi
D=${DSIN:-bench/data/search-2026-11-27-h200}
for s in conv7 dgemm sgemm conv11; do
	if [ -f "$D/$s.jsonl.xz" ]; then xz -dc $D/$s.jsonl.xz > $W/ds/$s.jsonl; else cp $D/$s.jsonl $W/ds/; fi
done
export DEADLINE=$((t0 + ${DS_SECONDS:-560}))
sh bench/gpu/datasets.sh $W/ds ${SETS:-conv7 dgemm sgemm conv11} > $W/ds/log.txt 2>&1
cat $W/ds/rates.txt
for s in conv7 dgemm sgemm conv11; do echo "$s $(wc -l < $W/ds/$s.jsonl)"; done
cd $W && tar cJf $O/ds.tar.xz ds
echo "call6 total $(( $(date +%s) - t0 )) s"
