#!/bin/sh
# enum_targets.sh -- issue 4's gemm_beast targets on this machine, as one
# table: count with 1..N threads (K40c and the H100 single-precision
# profile), list to the binary sink, and -O2 against -O0.
#
#   sh bench/enum_targets.sh [THREADS...]      (default: 1 2 and the online CPUs)
#
# SPACEC (default build/spacec) is the binary; PARTS (default "count list
# o0") picks the parts; O0_TIMEOUT (default 150) bounds each -O0 run,
# whose time is then reported as "> O0_TIMEOUT".
# Times are spacec's own "enumerated in" (the enumeration, not the cached
# cc build, which is done once before timing), best of REPEAT (default 3).
set -u
S=${SPACEC:-build/spacec}
repeat=${REPEAT:-3}
o0_timeout=${O0_TIMEOUT:-150}
parts=${PARTS:-count list o0}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
threads=${*:-1 2 $(getconf _NPROCESSORS_ONLN)}
space=spaces/gemm_beast.space
h100="--device-profile spaces/gemm_beast_h100_sp.json"
reduced="--set max_threads_dim_x=128 --set max_threads_dim_y=128 --set max_threads_per_block=128"

# best COMMAND ARGS...: the best "enumerated in" of $repeat runs, or "fail"
best() {
	b=
	for _ in $(seq "$repeat"); do
		t=$("$S" "$@" -v 2>&1 >/dev/null | sed -n 's/.*enumerated in \([0-9.]*\) s.*/\1/p')
		[ -n "$t" ] || { echo fail; return; }
		b=$(printf '%s\n%s\n' "$t" "${b:-$t}" | sort -g | head -1)
	done
	echo "$b"
}

# once COMMAND ARGS...: one run under the -O0 timeout ("> T" when it ends)
once() {
	t=$(timeout "$o0_timeout" "$S" "$@" -v 2>&1 >/dev/null | sed -n 's/.*enumerated in \([0-9.]*\) s.*/\1/p')
	echo "${t:-> $o0_timeout}"
}

echo "# $(uname -n): $(getconf _NPROCESSORS_ONLN) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# $("$S" --version | head -1), $(date -u +%Y-%m-%dT%H:%MZ)"
# build (and cache) each enumerator once before timing
"$S" count -w --jit=cc "$space" > /dev/null
"$S" count -w --jit=cc $h100 "$space" > /dev/null

echo "| run | threads | valid points | seconds |"
echo "|---|---:|---:|---:|"
want count && for profile in K40c H100; do
	args=
	[ $profile = H100 ] && args=$h100
	n=$("$S" count -w --jit=cc $args "$space")
	for t in $threads; do
		echo "| count $profile | $t | $n | $(best count -w --jit=cc --threads "$t" $args "$space") |"
	done
done
n=$("$S" count -w --jit=cc $h100 "$space")
want list && for t in $threads; do
	echo "| list --format binary -o /dev/null, H100 | $t | $n | $(best list -w --jit=cc --format binary -o /dev/null --threads "$t" $h100 "$space") |"
done
# -O0 (BEAST's level sets) against -O2, one thread: the full H100 space
# under a timeout, and the limits-128 reduction exactly
want o0 && for cfg in "H100|$h100" "K40c, limits 128|$reduced" "H100, limits 128|$h100 $reduced"; do
	name=${cfg%%|*} args=${cfg#*|}
	n=$("$S" count -w --jit=cc $args "$space")
	echo "| count -O2 $name | 1 | $n | $(best count -w --jit=cc --threads 1 $args "$space") |"
	echo "| count -O0 $name | 1 | $n | $(once count -w --jit=cc -O0 --threads 1 $args "$space") |"
done
