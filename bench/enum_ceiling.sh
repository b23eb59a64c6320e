#!/bin/sh
# enum_ceiling.sh -- how far N threads of one count can scale on this
# machine, against how far N independent single-thread counts do.
#
#   sh bench/enum_ceiling.sh [N] [SPACEC ARGS...]
#
# N (default: the online CPUs) threads; the count (default: gemm_beast
# under the H100 single-precision profile) is run
#   - alone on one thread and with --threads N, in turn, REPEAT times
#     each (default 3);
#   - as N single-thread processes at once (each one's time);
# and the table gives each time ("enumerated in", spacec's own clock) and
# the speed-ups: --threads N against one thread alone (what issue 4 asks
# for) as the median of the REPEAT pairs' ratios, and the ceiling, N
# times one thread alone over the slowest of the N at once (what
# independent work gets).  The two are run in turn because a shared
# host's clock drifts between minutes (a one-thread count took 1.53 s and
# then 2.33 s on the same cores of an H200 host): each ratio sets a
# --threads N run against the one-thread run just before it.  SPACEC
# (default build/spacec) is the binary; the cc build is cached first.
set -u
S=${SPACEC:-build/spacec}
repeat=${REPEAT:-3}
n=${1:-$(getconf _NPROCESSORS_ONLN)}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --device-profile spaces/gemm_beast_h100_sp.json spaces/gemm_beast.space
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# one THREADS: "enumerated in" of one count
one() {
	t=$1
	shift
	"$S" count -w --jit=cc -v --threads "$t" "$@" 2>&1 >/dev/null | sed -n 's/.*enumerated in \([0-9.]*\) s.*/\1/p'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"$S" count -w --jit=cc "$@" > /dev/null # build and cache
for _ in $(seq "$repeat"); do
	a=$(one 1 "$@")
	t=$(one "$n" "$@")
	echo "$a" >> "$T/alone"
	echo "$t" >> "$T/threads"
	awk -v a="$a" -v t="$t" 'BEGIN { printf "%.2f\n", a / t }' >> "$T/ratios"
done
for i in $(seq "$n"); do one 1 "$@" > "$T/at-once.$i" & done
wait
cat "$T"/at-once.* > "$T/at-once"

alone=$(median < "$T/alone")
slowest=$(sort -g "$T/at-once" | tail -1)
threads=$(median < "$T/threads")
echo "# $(uname -n): $(getconf _NPROCESSORS_ONLN) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# $("$S" --version | head -1), $(date -u +%Y-%m-%dT%H:%MZ); count $*"
echo "| run | seconds (each run) | median |"
echo "|---|---|---:|"
echo "| 1 thread, alone | $(tr '\n' ' ' < "$T/alone")| $alone |"
echo "| $n single-thread processes at once | $(sort -g "$T/at-once" | tr '\n' ' ')| $(median < "$T/at-once") |"
echo "| --threads $n | $(tr '\n' ' ' < "$T/threads")| $threads |"
echo "| ratio of each pair (1 thread / --threads $n, run in turn) | $(tr '\n' ' ' < "$T/ratios")| $(median < "$T/ratios") |"
awk -v r="$(median < "$T/ratios")" -v a="$alone" -v s="$slowest" -v n="$n" 'BEGIN {
	printf "\n--threads %d against 1 thread alone: %.1fx (median of the pairs); ceiling (%d x alone / slowest at once): %.1fx\n",
		n, r, n, n * a / s }'
