#!/bin/sh
# Random access (spacec sample/rank/unrank) and spacetune's strategies on
# a space too big to list: the ATF gaussian (spaces/gaussian.space,
# 149,281,440 points of 1.2e11; 158,995,200 before the file had Kernel
# Tuner's work-group limit, as in the tables recorded then).  Prints the markdown rows of
# bench/README.md's "Random access" table.  Times are the best of 3 wall
# times as the commands report them (-v); memory is the peak resident set
# of bigsearch (getrusage) with a made-up cost, the strategy side of
# spacetune run without a kernel.
#   usage: bench/access.sh BUILD_DIR   (from the top of the source tree)
set -eu
B=${1:-build}
S=spaces/gaussian.space
best3() { # command...: the least of three "... in X s" times on stderr
	for i in 1 2 3; do "$@" 2>&1 >/dev/null | sed -n 's/.* in \([0-9.]*\) s.*/\1/p' | tail -1; done | sort -g | head -1
}
echo "| what | command | best of 3 |"
echo "|---|---|---|"
echo "| count | \`spacec count -v\` | $(best3 "$B/spacec" count -v --jit=tcc "$S") s |"
echo "| 1,000 samples, tcc | \`spacec sample -n 1000 --seed 1 -v --jit=tcc\` | $(best3 "$B/spacec" sample -n 1000 --seed 1 -v --jit=tcc "$S") s |"
"$B/spacec" count --jit=cc "$S" > /dev/null
echo "| 1,000 samples, cc -O2 (cached) | \`spacec sample -n 1000 --seed 1 -v --jit=cc\` | $(best3 "$B/spacec" sample -n 1000 --seed 1 -v --jit=cc "$S") s |"
echo "| 10,000 samples, cc -O2 | \`spacec sample -n 10000 --seed 1 -v --jit=cc\` | $(best3 "$B/spacec" sample -n 10000 --seed 1 -v --jit=cc "$S") s |"
echo "| unrank one index | \`spacec unrank -v --jit=cc $S 123456789\` | $(best3 "$B/spacec" unrank -v --jit=cc "$S" 123456789) s |"
p=$("$B/spacec" unrank --jit=cc "$S" 123456789 | tail -1)
echo "| rank one point | \`spacec rank -v --jit=cc $S $p\` | $(best3 "$B/spacec" rank -v --jit=cc "$S" "$p") s |"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp tests/tuner/vadd.cl tests/tuner/vadd_ref.c "$T/"
{ cat "$S"; printf '\nsetting N = 1024\ntune:\n    kernel vadd from "vadd.cl"\n    global [N]\n    local [1]\n'
  printf '    arg int N\n    arg in float a[N] = random(1)\n    arg in float b[N] = random(2)\n'
  printf '    arg inout float c[N] = random(3)\n    arg float 0.5\n    reference c vadd_ref from "vadd_ref.c"\n'; } > "$T/g.space"
echo
echo "| strategy (200 points on gaussian) | seconds | proposals | in them: s (longest) | CPU s | peak RSS |"
echo "|---|---|---|---|---|---|"
for s in exhaustive random anneal pso genetic local bo bfs bandit; do
	/usr/bin/time -f "cpu %U" "$B/tests/tuner/bigsearch" "$T/g.space" "$s" 200 1 > /dev/null 2> "$T/err"
	sec=$(sed -n 's/.* seconds \([0-9.]*\) .*/\1/p' "$T/err")
	calls=$(sed -n 's/.* proposals \([0-9]*\) .*/\1/p' "$T/err")
	in=$(sed -n 's/.* propose_s \([0-9.]*\) .*/\1/p' "$T/err")
	max=$(sed -n 's/.* propose_max_s \([0-9.]*\) .*/\1/p' "$T/err")
	cpu=$(sed -n 's/^cpu //p' "$T/err")
	kib=$(sed -n 's/.* maxrss_kib \([0-9]*\)$/\1/p' "$T/err")
	echo "| $s | $sec | $calls | $in ($max) | $cpu | $((kib / 1024)) MiB |"
done
