#!/bin/sh
# Compares spacec's counts with independent oracles: hand-written C brute
# force for conv2d_cltune (from CLTune's conv.cc), plain Python for the
# examples (the BEAST paper's figures run by CPython).  Both the compiled
# path and the reference interpreter are checked.  gemm_beast has its own
# script, gemm_beast.sh.
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

conv=$top_builddir/tests/oracle/conv2d_brute

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

# round, divmod, any, all, math and comprehensions against CPython
# (tests/oracle/builtins.py: 300 random expressions a seed)
for seed in 1 2 3; do
	python3 "$top_srcdir/tests/oracle/builtins.py" $seed oracle-builtins.want > oracle-builtins.space
	for mode in --interpret --jit=tcc; do
		"$SPACEC" list -w $mode oracle-builtins.space | tail -n +2 | sort -n > oracle-builtins.got
		check "builtins seed $seed ($mode): points that CPython's values keep" \
			"$(cksum < oracle-builtins.want)" "$(cksum < oracle-builtins.got)"
	done
done
rm -f oracle-builtins.space oracle-builtins.want oracle-builtins.got

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
