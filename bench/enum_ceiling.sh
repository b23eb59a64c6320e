#!/bin/sh
# enum_ceiling.sh -- how far N threads of one count can scale on this
# machine, against how far N independent single-thread counts do.
#
#   sh bench/enum_ceiling.sh [N] [SPACEC ARGS...]
#
# N (default: the online CPUs) threads; the count (default: gemm_beast
# under the H100 single-precision profile) is run
#   - alone on one thread, REPEAT times (default 3);
#   - as N single-thread processes at once (each one's time);
#   - with --threads N, REPEAT times;
# and the table gives each time ("enumerated in", spacec's own clock) and
# the speed-ups by medians: --threads N against one thread alone (what
# issue 4 asks for), and the ceiling, N times one thread alone over the
# slowest of the N at once (what independent work gets).  SPACEC (default
# build/spacec) is the binary; the cc build is cached before timing.
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
for _ in $(seq "$repeat"); do one 1 "$@"; done > "$T/alone"
for i in $(seq "$n"); do one 1 "$@" > "$T/at-once.$i" & done
wait
cat "$T"/at-once.* > "$T/at-once"
for _ in $(seq "$repeat"); do one "$n" "$@"; done > "$T/threads"

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
awk -v a="$alone" -v s="$slowest" -v t="$threads" -v n="$n" 'BEGIN {
	printf "\n--threads %d against 1 thread alone: %.1fx; ceiling (%d x alone / slowest at once): %.1fx\n",
		n, a / t, n, n * a / s }'
