#!/bin/sh
# call 14 (issue 14): the same batch on the same 2-GPU host with the build
# of the session's start (19a746c: the enumerator by cc, every device taking
# every core's worth of --jobs) and with this session's (tcc enumerator,
# --jobs shared among the devices, the GPU keeper): bench/batch/gpu.sh,
# budget 24, cold kernel caches, each run to its end; the old build's
# spacetune is carried xz'd as .carry/full/spacetune-19a746c.xz
set -u
. ./.carry/full/env.sh
O=${OUT:-/tmp/out14}; mkdir -p $O
W=/dev/shm/w14; rm -rf $W; mkdir -p $W
xz -dc .carry/full/spacetune-19a746c.xz > $W/spacetune-old && chmod +x $W/spacetune-old
nvidia-smi --query-gpu=index,name,persistence_mode,driver_version --format=csv > $O/gpu.txt 2>&1; nproc >> $O/gpu.txt
for b in ${BUILDS:-old new}; do
	st=spacetune; [ $b = old ] && st=$W/spacetune-old
	NO_CUBLAS=1 SPACETUNE=$st sh bench/batch/gpu.sh --budget ${BUDGET:-24} --runs "cold1 cold2" \
		--limit 250 --out $W/$b > $O/gpu-sh-$b.txt 2>&1
	cp $W/$b/summary.md $O/summary-$b.md 2>/dev/null
	tar cJf $O/batch-$b.tar.xz -C $W $b/db-cold1 $b/db-cold2 $b/cold1.err $b/cold2.err $b/gpu.batch $b/run.log 2>/dev/null
done
cat $O/gpu.txt
for b in ${BUILDS:-old new}; do echo "## $b"; grep -A4 "^| run" $O/summary-$b.md; grep "ratio\|after each" $O/summary-$b.md; done
