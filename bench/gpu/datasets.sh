#!/bin/sh
# datasets.sh -- exhaustive ground truth for bench/search (issue 15,
# section 1), on the device machine: every configuration of a (sub)space
# tuned once, the databases written to DIR/NAME.jsonl.
#
#   sh bench/gpu/datasets.sh DIR SET[:SECONDS]...
#
# SET is one of
#   conv3, conv7, conv11   spaces/conv2d.space, filter 3/7/11, 4096 x 2048
#   sgemm, dgemm           spaces/gemm.space at M = N = K = 1024, the
#                          subspace only_blk_k=16 only_dim_vec=1 only_pre=1
#                          (4,020 points single, 2,886 double)
# and SECONDS, when given, caps that set's run (--budget Ns): a set that
# stops there is incomplete, and a second call with the same DIR resumes
# it (the database skips what it has).  Each set's rate goes to
# DIR/rates.txt: records, seconds, evaluations per second.
#
# Why these sizes: at conv2d's default 8192 x 4096 an evaluation moved
# 128 MB buffers several times and ran about 6 evaluations/s
# (bench/data/gpu-2026-11-24-h100-tuned-v3); 4096 x 2048 with 5 timed runs
# keeps the kernels long enough to rank (tens of microseconds and up) at a
# quarter of the traffic.  GEMM at 1024^3: ~2 GFLOP a run.
#
# (On the lent machines, tar DIR into one file afterwards: a call returns
# at most 8 files, and one of 2026-11-27 lost the sgemm database so.)
#
# Environment: SPACETUNE (default spacetune), SPACES (the folder of
# conv2d.space and gemm.space, default spaces), JOBS (parallel builds,
# default 16), REPEAT (timed runs, default 5), DEVICE (default NVIDIA),
# PLATFORM (none: with PLATFORM=NVIDIA, DEVICE=2 is that platform's third
# GPU, one set per GPU on a machine of several),
# DEADLINE (a time in seconds since the epoch: each set's budget is cut
# to what is left before it, so one device call of fixed length fills
# its time and the sets that miss it say so in rates.txt).
set -u
out=${1:?usage: datasets.sh DIR SET[:SECONDS]...}
shift
T=${SPACETUNE:-spacetune}
S=${SPACES:-spaces}
mkdir -p "$out"
common="--strategy exhaustive ${PLATFORM:+--platform $PLATFORM} --device ${DEVICE:-NVIDIA} --jobs ${JOBS:-16} --repeat ${REPEAT:-5} --warmup 1 --no-progress"
gemm_sub="--set M=1024 --set N=1024 --set K=1024 --set only_blk_k=16 --set only_dim_vec=1 --set only_pre=1"

now() { date +%s.%N; }

for arg in "$@"; do
	name=${arg%%:*}
	cap=
	[ "$name" != "$arg" ] && cap=${arg#*:}
	if [ -n "${DEADLINE:-}" ]; then
		left=$((DEADLINE - $(date +%s)))
		[ "$left" -le 5 ] && { echo "$name skipped: past the deadline" | tee -a "$out/rates.txt"; continue; }
		[ -z "$cap" ] || [ "$left" -lt "$cap" ] && cap=$left
	fi
	budget=
	[ -n "$cap" ] && budget="--budget ${cap}s"
	case $name in
	conv3|conv7|conv11)
		space=$S/conv2d.space sets="--set filter_size=${name#conv} --set W=4096 --set H=2048" ;;
	sgemm) space=$S/gemm.space sets="$gemm_sub" ;;
	dgemm) space=$S/gemm.space sets="$gemm_sub --set precision=double" ;;
	*) echo "datasets.sh: unknown set '$name'" >&2; exit 2 ;;
	esac
	before=$(cat "$out/$name.jsonl" 2>/dev/null | wc -l)
	t0=$(now)
	# shellcheck disable=SC2086
	$T run "$space" $sets $common $budget --db "$out/$name.jsonl" >>"$out/$name.log" 2>&1
	rc=$?
	t1=$(now)
	after=$(wc -l <"$out/$name.jsonl")
	points=$(${SPACEC:-spacec} count "$space" $sets 2>/dev/null || echo "?")
	awk -v n="$name" -v r="$rc" -v a="$before" -v b="$after" -v p="$points" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%s rc=%s records %d -> %d of %s points, %.1f s, %.1f eval/s\n",
		         n, r, a, b, p, t1 - t0, (b - a) / (t1 - t0) }' | tee -a "$out/rates.txt"
done
