#!/bin/sh
# formulations.sh -- one space written several ways must count the same and
# enumerate about as fast (issue 12: each formulation within 1.5x of the
# fastest of its space, on 1 thread and on 2).
#
#   sh bench/formulations.sh [THREADS...]     (default: 1 2)
#
# The spaces and their formulations:
#   gemm_beast K40c and H100-sp: the paper's def form (spaces/gemm_beast.space),
#       plain expressions (bench/formulations/gemm_beast_expr.space), Kernel
#       Tuner's flat lists and require strings (gemm_beast_kt.space);
#   clblast_xgemm: Kernel Tuner's require strings (spaces/clblast_xgemm.space)
#       and BEAST's @correct defs (bench/formulations/clblast_xgemm_def.space).
# Each cell is the median of REPEAT (default 5) of spacec's own "enumerated
# in" (the cached cc build is made once before timing); "count" counts,
# "list" lists to the binary sink on /dev/null.  A formulation whose count
# differs from the first one's fails the script (exit 1), whatever the times.
# SPACEC (default build/spacec) is the binary; PARTS (default "count list")
# picks the parts; SPACES (default "k40c h100 xgemm") the spaces.  CPU=1
# takes each run's CPU seconds (user+sys of the whole process, parse and
# load included, /usr/bin/time) instead: on a shared machine they move
# less than the wall seconds.
set -u
S=${SPACEC:-build/spacec}
repeat=${REPEAT:-5}
parts=${PARTS:-count list}
spaces=${SPACES:-k40c h100 xgemm}
threads=${*:-1 2}
F=bench/formulations
status=0

# median COMMAND ARGS...: the median "enumerated in" of $repeat runs, or "fail"
median() {
	ts=
	for _ in $(seq "$repeat"); do
		if [ "${CPU:-0}" = 1 ]; then
			t=$(/usr/bin/time -f 'cpu %U %S' "$S" "$@" 2>&1 >/dev/null | awk '$1 == "cpu" { print $2 + $3 }')
		else
			t=$("$S" "$@" -v 2>&1 >/dev/null | sed -n 's/.*enumerated in \([0-9.]*\) s.*/\1/p')
		fi
		[ -n "$t" ] || { echo fail; return; }
		ts="$ts$t
"
	done
	printf '%s' "$ts" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# group NAME ARGS -- FILE...: count (and time) every formulation of one space
group() {
	name=$1
	shift
	args=
	while [ "$1" != "--" ]; do
		args="$args $1"
		shift
	done
	shift
	want=
	for f in "$@"; do
		n=$("$S" count -w --jit=cc $args "$f" 2>/dev/null)
		[ -n "$want" ] || want=$n
		if [ "$n" != "$want" ]; then
			echo "FAIL $name: $f counts $n, $1 counts $want"
			status=1
		fi
	done
	echo
	echo "$name: every formulation counts $want"
	echo
	echo "| space          | part  | T | formulation                                | median      | ratio |"
	echo "|----------------|-------|---|--------------------------------------------|-------------|-------|"
	for part in $parts; do
		for t in $threads; do
			rows=
			for f in "$@"; do
				if [ "$part" = list ]; then
					m=$(median list -w --jit=cc --format binary -o /dev/null --threads "$t" $args "$f")
				else
					m=$(median count -w --jit=cc --threads "$t" $args "$f")
				fi
				rows="$rows$f $m
"
			done
			best=$(printf '%s' "$rows" | awk '$2 != "fail" { print $2 }' | sort -g | head -1)
			printf '%s' "$rows" | while read -r f m; do
				printf '| %-14s | %-5s | %d | %-42s | %9s s | %5s |\n' "$name" "$part" "$t" "$f" "$m" \
					"$(awk -v m="$m" -v b="$best" 'BEGIN { if (m == "fail" || b <= 0) print "-"; else printf "%.2fx", m / b }')"
			done
		done
	done
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $spaces; do
	case $s in
	k40c) group gemm_beast_K40c -- spaces/gemm_beast.space $F/gemm_beast_expr.space $F/gemm_beast_kt.space ;;
	h100) group gemm_beast_H100 --device-profile spaces/gemm_beast_h100_sp.json -- \
		spaces/gemm_beast.space $F/gemm_beast_expr.space $F/gemm_beast_kt.space ;;
	xgemm) group clblast_xgemm -- spaces/clblast_xgemm.space $F/clblast_xgemm_def.space ;;
	esac
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
