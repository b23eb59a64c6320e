#!/bin/sh
# call 7: issue 15's Kernel Tuner searches on the four completed datasets,
# 16 at once (one per dataset, strategy and ten seeds), stopped at KT_MIN
# minutes; a second call resumes from the outputs carried back in .carry/kt
set -u
t0=$(date +%s)
O=${OUT:-/tmp/out7}; mkdir -p $O
W=/dev/shm/w7; mkdir -p $W/out
PY=${PY:-python3}
if [ -z "${NO_WHEELS:-}" ]; then
	$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
	export PYTHONPATH=/tmp/site
fi
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
export KT_SYSTEM=1 KT_CACHE_FROM=$PWD/.carry/kt PYTHONUNBUFFERED=1
until=$(date -u -d @$((t0 + ${KT_MIN:-8} * 60)) +%H:%M)
D=bench/data/search-2026-11-27-h200
jobs=$W/jobs.txt; : > $jobs
for s in ${STRATS:-bayes_opt greedy_ils pso dual_annealing simulated_annealing genetic_algorithm random_sample}; do
	for d in ${SETS:-conv7 conv11 sgemm dgemm}; do
		for f in ${CHUNKS:-1 11 21 31 41}; do echo "$d $s $f" >> $jobs; done
	done
done
export W D PY until
export W D PY until
cat $jobs | xargs -P ${P:-16} -L 1 sh -c '
dir=$W/out/$0-$1-$2; mkdir -p $dir
[ -f .carry/kt/$0.kt.jsonl ] && cp .carry/kt/$0.kt.jsonl $dir/
SEARCH_OUT=$dir $PY bench/search/run.py kt --strategies $1 --first-seed $2 --seeds $(($2 + ${CHUNK:-10} - 1)) --until $until $D/$0.jsonl.xz > $dir/log.txt 2>&1'
{ $PY -c 'import kernel_tuner, numpy, scipy, sklearn; print("kt", kernel_tuner.__version__, "numpy", numpy.__version__, "scipy", scipy.__version__, "sklearn", sklearn.__version__)'; nproc; date -u; uptime; } > $O/machine.txt 2>&1
for d in ${SETS:-conv7 conv11 sgemm dgemm}; do
	cat .carry/kt/$d.kt.jsonl $W/out/$d-*/$d.kt.jsonl 2>/dev/null | $PY -c '
import sys, json
seen = set()
for l in sys.stdin:
    r = json.loads(l); k = (r["strategy"], r["evals"], r["seed"])
    if k not in seen: seen.add(k); sys.stdout.write(l)' > $O/$d.kt.jsonl; wc -l $O/$d.kt.jsonl; done
cat $W/out/*/log.txt | grep -v "seed .* done" | sort | uniq -c | head -20 > $O/logs.txt
echo "call7 total $(( $(date +%s) - t0 )) s"
