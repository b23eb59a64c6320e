#!/bin/sh
# The other formulations of the seed spaces (bench/formulations/, timed by
# bench/formulations.sh) count what their oracles count: BEAST's GEMM space
# in plain expressions and in Kernel Tuner's flat lists and require strings
# against tests/oracle/gemm_beast_brute (written from the paper's figures)
# over Fig. 10's settings and both transpositions on a small device, and
# CLBlast's Xgemm as @correct defs against the reference interpreter on the
# Kernel Tuner form.  Both the compiled path (specialized to each binding)
# and the interpreter are checked.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
S=$top_srcdir/spaces
F=$top_srcdir/bench/formulations
gemm=$top_builddir/tests/oracle/gemm_beast_brute
pass=0 fail=0

check() { # name expected actual
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		pass=$((pass + 1))
		echo "ok   $1: $3"
	else
		fail=$((fail + 1))
		echo "FAIL $1: oracle '$2', spacec '$3'"
	fi
}

limit="--set max_threads_dim_x=40 --set max_threads_dim_y=48 --set max_threads_per_block=48"
for prec in single double; do
	for ar in real complex; do
		for trans in "0 0" "1 0" "0 1" "1 1"; do
			# shellcheck disable=SC2086
			set -- $trans
			# shellcheck disable=SC2086
			set -- $limit --set precision=$prec --set arithmetic=$ar --set trans_a="$1" --set trans_b="$2"
			want=$($gemm "$@" 2>/dev/null)
			for f in gemm_beast_expr gemm_beast_kt; do
				check "$f $prec $ar trans $trans (compiled)" "$want" "$($SPACEC count -w --jit=tcc "$F/$f.space" "$@")"
			done
		done
		# shellcheck disable=SC2086
		set -- --set max_threads_dim_x=24 --set max_threads_dim_y=32 --set max_threads_per_block=32 \
			--set precision=$prec --set arithmetic=$ar --set trans_b=1
		want=$($gemm "$@" 2>/dev/null)
		for f in gemm_beast_expr gemm_beast_kt; do
			check "$f $prec $ar trans_b dims<=32 (interpreter)" "$want" \
				"$($SPACEC count -w --interpret "$F/$f.space" "$@")"
		done
	done
done
# shellcheck disable=SC2086
set -- --h100-single $limit
want=$($gemm "$@" 2>/dev/null)
shift
for f in gemm_beast_expr gemm_beast_kt; do
	check "$f H100-sp dims<=48 (compiled)" "$want" \
		"$($SPACEC count -w --jit=tcc "$F/$f.space" --device-profile "$S/gemm_beast_h100_sp.json" "$@")"
done

want=$($SPACEC count -w --interpret "$S/clblast_xgemm.space")
check "clblast_xgemm_def (compiled)" "$want" "$($SPACEC count -w "$F/clblast_xgemm_def.space")"
check "clblast_xgemm_def (interpreter)" "$want" "$($SPACEC count -w --interpret "$F/clblast_xgemm_def.space")"
check "clblast_xgemm_def listing (sorted)" "$($SPACEC list -w --interpret "$S/clblast_xgemm.space" | sort | md5sum)" \
	"$($SPACEC list -w "$F/clblast_xgemm_def.space" | sort | md5sum)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
