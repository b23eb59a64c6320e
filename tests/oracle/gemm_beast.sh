#!/bin/sh
# Compares spacec's counts of spaces/gemm_beast.space with the oracle
# written from the BEAST paper's Figs. 8-15 (tests/oracle/gemm_beast_brute.c),
# and checks the oracle against itself: its shortcut against its --plain
# walk of all 15 loops, and against gemm_beast_figures.py, the figures'
# code run by Python.  The interpreter and the compiled enumerator both
# count reduced devices (small thread limits); ORACLE_FULL=1 adds the
# paper's Tesla K40c and the H100 profile in full (minutes under the
# sanitizers).
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
S=$top_srcdir/spaces
gemm=$top_builddir/tests/oracle/gemm_beast_brute
figures=$top_srcdir/tests/oracle/gemm_beast_figures.py
pass=0 fail=0

check() { # name expected actual
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		pass=$((pass + 1))
		echo "ok   $1: $3"
	else
		fail=$((fail + 1))
		echo "FAIL $1: oracle '$2', other '$3'"
	fi
}

limit() { # N: the thread limits of a reduced device
	echo "--set max_threads_dim_x=$1 --set max_threads_dim_y=$1 --set max_threads_per_block=$1"
}

# The oracle against itself, over the settings of Fig. 10 and the
# transpositions (a small device: --plain walks every loop).
for prec in single double; do
	for ar in real complex; do
		for trans in "0 0" "1 0" "0 1"; do
			# shellcheck disable=SC2086
			set -- $trans
			# shellcheck disable=SC2046
			set -- $(limit 32) --set precision=$prec --set arithmetic=$ar \
				--set trans_a="$1" --set trans_b="$2"
			want=$($gemm "$@" 2>/dev/null)
			check "oracle shortcut = --plain, $prec $ar trans ${trans% *}${trans#* }" \
				"$want" "$($gemm --plain "$@" 2>/dev/null)"
		done
		# shellcheck disable=SC2046
		set -- $(limit 48) --set precision=$prec --set arithmetic=$ar --set trans_a=1
		check "oracle C = Python figures, $prec $ar dims<=48 trans_a" \
			"$($gemm "$@" 2>/dev/null)" "$(python3 "$figures" "$@")"
	done
done
# shellcheck disable=SC2046
set -- --h100-single $(limit 64)
check "oracle C = Python figures, H100-sp dims<=64" "$($gemm "$@" 2>/dev/null)" "$(python3 "$figures" "$@")"

# spacec against the oracle
H100="--device-profile $S/gemm_beast_h100_sp.json"
for lim in 32 64; do
	# shellcheck disable=SC2046
	set -- $(limit $lim)
	want=$($gemm "$@" 2>/dev/null)
	check "gemm_beast K40c dims<=$lim (interpreter)" "$want" "$($SPACEC count -w --interpret "$S/gemm_beast.space" "$@")"
	check "gemm_beast K40c dims<=$lim (compiled)" "$want" "$($SPACEC count -w "$S/gemm_beast.space" "$@")"
done
for prec in single double; do
	for ar in real complex; do
		for trans in "0 0" "1 0" "0 1" "1 1"; do
			# shellcheck disable=SC2086
			set -- $trans
			# shellcheck disable=SC2046
			set -- $(limit 48) --set precision=$prec --set arithmetic=$ar \
				--set trans_a="$1" --set trans_b="$2"
			want=$($gemm "$@" 2>/dev/null)
			check "gemm_beast $prec $ar trans ${trans% *}${trans#* } dims<=48 (interpreter)" \
				"$want" "$($SPACEC count -w --interpret "$S/gemm_beast.space" "$@")"
			check "gemm_beast $prec $ar trans ${trans% *}${trans#* } dims<=48 (compiled)" \
				"$want" "$($SPACEC count -w "$S/gemm_beast.space" "$@")"
		done
	done
done
# shellcheck disable=SC2046
set -- $(limit 64)
want=$($gemm --h100-single "$@" 2>/dev/null)
# shellcheck disable=SC2086
check "gemm_beast H100-sp dims<=64 (interpreter)" "$want" "$($SPACEC count -w --interpret "$S/gemm_beast.space" $H100 "$@")"
# shellcheck disable=SC2086
check "gemm_beast H100-sp dims<=64 (compiled)" "$want" "$($SPACEC count -w "$S/gemm_beast.space" $H100 "$@")"

# other entries of the Fig. 9 tables: the paper's 2.0 (63 registers a thread)
# and 1.3 (128), and an added row's -1 (8.1: no such device, no valid point)
for cc in "1 3" "2 0" "8 1"; do
	# shellcheck disable=SC2046
	set -- $(limit 64) --set precision=single --set cudamajor="${cc% *}" --set cudaminor="${cc#* }"
	check "gemm_beast cc ${cc% *}.${cc#* } single dims<=64 (compiled)" "$($gemm "$@" 2>/dev/null)" \
		"$($SPACEC count -w "$S/gemm_beast.space" "$@")"
done

if [ "${ORACLE_FULL:-0}" = 1 ]; then
	check "gemm_beast K40c (compiled)" "$($gemm 2>/dev/null)" "$($SPACEC count -w "$S/gemm_beast.space")"
	# shellcheck disable=SC2086
	check "gemm_beast H100-sp (compiled)" "$($gemm --h100-single 2>/dev/null)" \
		"$($SPACEC count -w "$S/gemm_beast.space" $H100)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
