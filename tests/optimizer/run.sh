#!/bin/sh
# The kernel optimizer (optimizer/kopt.h) on PoCL.  For each NAME.space
# here with a `#pragma spacetune` kernel: a sample of its variants built,
# run and checked by spacetune against the same kernel built untouched
# (the `reference kernel` line: the naive kernel is the oracle), all of
# them `ok`; for each bad_*.space the located error, compared with
# bad_*.err; and the transformed source of one point per transformation
# compared with NAME.expected.cl and compiled by clang as OpenCL C.
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/tuner/lib.sh"
cd "$top_srcdir" || exit 1
D=tests/optimizer

# Illegal annotations: exit 1 and the diagnostic, byte for byte.
for s in $D/bad_*.space; do
	b=${s%.space}
	"$SPACETUNE" variant "$s" >"$T/out" 2>"$T/err"
	st=$?
	if [ $st -eq 1 ] && cmp -s "$T/err" "$b.err"; then ok "$(basename "$b") rejected"; else
		bad "$(basename "$b"): exit $st, diagnostic differs from $b.err"
		diff "$b.err" "$T/err" | head -20
	fi
done

# Readable output: the expected shape, and valid OpenCL C.
for e in $D/*.expected.cl; do
	b=${e%.expected.cl}
	point=$(sed -n 's/^point: //p' "$b.point")
	# shellcheck disable=SC2086 # the point is NAME=VALUE words
	"$SPACETUNE" variant "$b.space" $point >"$T/v.cl" 2>"$T/err"
	if cmp -s "$T/v.cl" "$e"; then ok "$(basename "$b") source shape"; else
		bad "$(basename "$b"): transformed source differs from $e"
		diff "$e" "$T/v.cl" | head -30
	fi
	if [ -n "${CLANG:-}" ]; then
		check "$(basename "$b") source compiles" "$CLANG" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header \
			-fsyntax-only -Wno-unknown-pragmas "$T/v.cl"
	fi
done

need_opencl
# Every sampled variant verified against the naive kernel.
for s in $D/*.space; do
	# multi.space: multi.sh
	case $s in */bad_* | */multi*) continue ;; esac
	n=$(sed -n 's/^# sample: //p' "$s")
	"$SPACETUNE" run "$s" --db "$T/db.jsonl" --strategy random --seed 1 --budget "${n:-12}" --jobs 2 \
		--repeat 1 --warmup 0 --no-progress >"$T/out" 2>"$T/err"
	st=$?
	good=$(jq -r 'select(.space == "'"$(basename "${s%.space}")"'") | .status' "$T/db.jsonl" | grep -c '^ok$')
	other=$(jq -r 'select(.space == "'"$(basename "${s%.space}")"'") | .status' "$T/db.jsonl" | grep -vc '^ok$')
	if [ $st -eq 0 ] && [ "$good" -eq "${n:-12}" ] && [ "$other" -eq 0 ]; then
		ok "$(basename "$s"): $good variants verified"
	else
		bad "$(basename "$s"): exit $st, $good ok, $other not ok"
		tail -5 "$T/err"
		jq -c 'select(.status != "ok") | [.params, .status, .error]' "$T/db.jsonl" | head -5
	fi
	# `# check: FILTER`: at least 3 of the verified points match the jq
	# filter (the combination the space is there for was sampled)
	want=$(sed -n 's/^# check: //p' "$s")
	if [ -n "$want" ]; then
		hit=$(jq -r 'select(.space == "'"$(basename "${s%.space}")"'" and .status == "ok") | select('"$want"')
			| .status' "$T/db.jsonl" | grep -c '^ok$')
		if [ "$hit" -ge 3 ]; then ok "$(basename "$s"): $hit verified points with $want"; else
			bad "$(basename "$s"): $hit verified points with $want, wanted at least 3"; fi
	fi
done
no_sanitizer_reports "$T/err" && ok "no sanitizer reports" || bad "sanitizer reports"
finish
