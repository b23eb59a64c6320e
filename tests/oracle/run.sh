#!/bin/sh
# Compares spacec's counts with independent oracles: hand-written C brute
# force for gemm_beast (from the BEAST paper's figures) and conv2d (from
# CLTune's conv.cc), plain Python loops for the examples.
# Both the compiled path and the reference interpreter are checked (the
# interpreter on a reduced gemm_beast, since the full one takes minutes
# under the sanitizers).
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
S=$top_srcdir/spaces
pass=0 fail=0

check() { # name expected actual
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
		echo "ok   $1: $3"
	else
		fail=$((fail + 1))
		echo "FAIL $1: oracle $2, spacec $3"
	fi
}

gemm=$top_builddir/tests/oracle/gemm_beast_brute
conv=$top_builddir/tests/oracle/conv2d_brute

# The full spaces take minutes (tens of millions of points for the H100
# profile): ORACLE_FULL=1 runs them; make check runs reduced limits.
if [ "${ORACLE_FULL:-0}" = 1 ]; then
	check "gemm_beast K40c (compiled)" "$($gemm 2>/dev/null)" "$($SPACEC count -w --jit=cc "$S/gemm_beast.space")"
	check "gemm_beast H100-sp (compiled)" "$($gemm --h100-single 2>/dev/null)" \
		"$($SPACEC count -w --jit=cc "$S/gemm_beast.space" --device-profile "$S/gemm_beast_h100_sp.json")"
fi
set -- --set max_threads_dim_x=48 --set max_threads_dim_y=48 --set max_threads_per_block=48
check "gemm_beast H100-sp dims<=48 (compiled)" "$($gemm --h100-single "$@" 2>/dev/null)" \
	"$($SPACEC count -w "$S/gemm_beast.space" --device-profile "$S/gemm_beast_h100_sp.json" "$@")"
check "gemm_beast H100-sp dims<=48 (interpreter)" "$($gemm --h100-single "$@" 2>/dev/null)" \
	"$($SPACEC count -w --interpret "$S/gemm_beast.space" --device-profile "$S/gemm_beast_h100_sp.json" "$@")"
# reduced device limits: small enough for the interpreter
for lim in 32 64; do
	set -- --set max_threads_dim_x=$lim --set max_threads_dim_y=$lim --set max_threads_per_block=$lim
	want=$($gemm "$@" 2>/dev/null)
	check "gemm_beast dims<=$lim (interpreter)" "$want" "$($SPACEC count -w --interpret "$S/gemm_beast.space" "$@")"
	check "gemm_beast dims<=$lim (compiled)" "$want" "$($SPACEC count -w "$S/gemm_beast.space" "$@")"
done
for prec in single double; do
	for ar in real complex; do
		set -- --set max_threads_dim_x=32 --set max_threads_dim_y=32 --set max_threads_per_block=32 \
			--set precision=$prec --set arithmetic=$ar
		want=$($gemm "$@" 2>/dev/null)
		check "gemm_beast $prec $ar (interpreter)" "$want" "$($SPACEC count -w --interpret "$S/gemm_beast.space" "$@")"
	done
done

# conv2d: the paper's Tesla K40m, then smaller devices (each limit binds)
check "conv2d_cltune (interpreter)" "$($conv 2>/dev/null)" "$($SPACEC count -w --interpret "$S/conv2d_cltune.space")"
check "conv2d_cltune (compiled)" "$($conv 2>/dev/null)" "$($SPACEC count -w "$S/conv2d_cltune.space")"
for set in max_work_group_size=256 local_mem_size=16384 max_work_item_size_x=32 max_work_item_size_y=16; do
	check "conv2d_cltune $set" "$($conv --set $set 2>/dev/null)" \
		"$($SPACEC count -w "$S/conv2d_cltune.space" --set $set)"
done

# the examples (the BEAST paper's Figs. 1-6 among them), against plain
# Python: each line is NAME COUNT [--set NAME=VALUE]...
if ! python3 "$top_srcdir/tests/oracle/examples.py" > oracle-examples.out; then
	fail=$((fail + 1))
	echo "FAIL tests/oracle/examples.py did not run"
fi
while read -r name want sets; do
	# $sets is split on purpose: "--set a=b" is two words
	# shellcheck disable=SC2086
	check "example $name ${sets:+$sets }(interpreter)" "$want" "$($SPACEC count -w --interpret "$S/examples/$name.space" $sets)"
	# shellcheck disable=SC2086
	check "example $name ${sets:+$sets }(compiled)" "$want" "$($SPACEC count -w "$S/examples/$name.space" $sets)"
done < oracle-examples.out
rm -f oracle-examples.out

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
