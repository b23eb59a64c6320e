#!/bin/sh
# kernels/gemm.cu run on the host, where no GPU is (gemm_cu_host.cc: a
# POSIX thread per CUDA thread, cp.async deferred to its wait_group or done
# at once), against a plain triple loop: one point of
# spaces/gemm_cuda.space for every async_stages (0, 2, 3, 4), precision
# and transposition, drawn by spacec and built with the defines its tune
# section gives (spacetune variant).  Each runs on a 2 x 2 grid of blocks
# with K of one tile and of five (C = 2 A B - C), under ThreadSanitizer (a missing barrier
# or wait is a race) and under AddressSanitizer and UBSan (a tile index
# outside its shared array or its matrix).  Exit 77 (skipped) without a
# C++ compiler.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
CXX=${CXX:-g++}
H=$top_srcdir/tests/kernels/gemm_cu_host.cc
S=$top_srcdir/spaces
# -Wno-unknown-pragmas: the kernel's #pragma unroll is NVRTC's.
FLAGS="-std=c++17 -O1 -g -Wall -Wextra -Werror -Wno-unknown-pragmas -fno-sanitize-recover=all"
if ! command -v "$CXX" >/dev/null; then
	echo "no C++ compiler ($CXX): skipped"
	exit 77
fi
# ThreadSanitizer cannot start under some kernels' address-space layouts;
# then setarch -R (no randomisation) runs it, else its half is left out.
printf 'int main(void) { return 0; }\n' >"$T/probe.cc"
tsan_run=
if "$CXX" -fsanitize=thread -o "$T/probe" "$T/probe.cc" 2>/dev/null; then
	if "$T/probe" 2>/dev/null; then
		tsan_run=env
	elif setarch "$(uname -m)" -R "$T/probe" 2>/dev/null; then
		tsan_run="setarch $(uname -m) -R"
	fi
fi
[ -n "$tsan_run" ] || echo "ThreadSanitizer does not run here: the race checks are left out"

seed=0
for stages in 0 2 3 4; do
	for prec in single double; do
		for ta in 0 1; do
			for tb in 0 1; do
				seed=$((seed + 1))
				sets="--set async_stages=$stages --set precision=$prec --set trans_a=$ta --set trans_b=$tb"
				what="async_stages=$stages $prec trans_a=$ta trans_b=$tb"
				# shellcheck disable=SC2086
				"$SPACEC" sample -n 1 --seed "$seed" "$S/gemm_cuda.space" $sets >"$T/point.csv"
				point=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) n[i] = $i; next }
					{ for (i = 1; i <= NF; i++) printf "%s=%s ", n[i], $i }' "$T/point.csv")
				# shellcheck disable=SC2086
				"$SPACETUNE" variant "$S/gemm_cuda.space" $sets $point >"$T/variant.cu" 2>"$T/err"
				defs=$(sed -n 's/^ \* options: //p' "$T/variant.cu")
				if [ -z "$point" ] || [ -z "$defs" ]; then
					bad "$what: no point or no defines"
					cat "$T/err"
					continue
				fi
				bm=$(echo "$defs" | sed 's/.*-DBLK_M=\([0-9]*\).*/\1/')
				bn=$(echo "$defs" | sed 's/.*-DBLK_N=\([0-9]*\).*/\1/')
				bk=$(echo "$defs" | sed 's/.*-DBLK_K=\([0-9]*\).*/\1/')
				for san in thread address,undefined; do
					[ "$san" = thread ] && [ -z "$tsan_run" ] && continue
					run=env
					[ "$san" = thread ] && run=$tsan_run
					# shellcheck disable=SC2086
					if ! "$CXX" $FLAGS -fsanitize=$san $defs -o "$T/gemm" "$H" -lpthread 2>"$T/err"; then
						bad "$what ($point): does not build with -fsanitize=$san"
						sed 's/^/    | /' "$T/err" | head -20
						continue
					fi
					# shellcheck disable=SC2086
					expect_status "$what, $san ($point)" 0 \
						$run "$T/gemm" $((2 * bm)) $((2 * bn)) 2 -1 "$bk" $((5 * bk))
				done
			done
		done
	done
done
finish
