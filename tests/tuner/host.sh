#!/bin/sh
# spacetune best --host / --source on PoCL: tune a space, write the best
# configuration as a program and as a source, compile the program with
# -Wall -Wextra -Werror, run it, and check what its kernel wrote against
# the space's C reference run on the very inputs the program used
# (host_check.c, the oracle).  A corrupted output must be caught.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
CC=${CC:-cc}
# The program and the checker are the user's own builds: no sanitizer.
CFLAGS_HOST="-std=c11 -O1 -Wall -Wextra -Werror"

# host_gen NAME SPACE REF_C REF_FN REL ABS [run options...]: tune, emit, build, run, check
host_gen() {
	hn=$1 space=$2 refc=$3 reffn=$4 rel=$5 abs=$6
	shift 6
	db=$T/$hn.jsonl
	expect_status "$hn: tune" 0 "$SPACETUNE" run "$space" --db "$db" --jobs 2 --repeat 1 --no-progress "$@"
	expect_status "$hn: best --host --source" 0 "$SPACETUNE" best --db "$db" \
		--host "$T/$hn.c" --source "$T/$hn.cl" "$space"
	defines=$(jq -s -r 'map(select(.status == "ok")) | min_by(.time_ms.median) | .defines' "$db")
	for d in $defines; do
		case $d in -D*=*) ;; *) continue ;; esac
		d=${d#-D}
		grep -q "^#define ${d%%=*} ${d#*=}\$" "$T/$hn.cl" ||
			bad "$hn: the source lacks '#define ${d%%=*} ${d#*=}'"
	done
	check "$hn: the source has the kernel" grep -q "__kernel" "$T/$hn.cl"
	check "$hn: the program compiles with -Wall -Wextra -Werror" \
		$CC $CFLAGS_HOST -o "$T/$hn" "$T/$hn.c" -lOpenCL
	glob=$(jq -s -c 'map(select(.status == "ok")) | min_by(.time_ms.median) | .global' "$db" | tr -d '[]')
	check "$hn: the program launches the tuned global size" grep -q "_GLOBAL\[[0-9]\] = { $(echo "$glob" | sed 's/,/, /g') };" "$T/$hn.c"
	mkdir -p "$T/$hn.d"
	expect_status "$hn: the program runs" 0 "$T/$hn" -o "$T/$hn.d"
	check "$hn: it prints the kernel's time" grep -q ": [0-9.]* ms\$" "$T/out"
	check "$hn: the checker builds" $CC -std=c11 -O1 -DREF="$reffn" -o "$T/$hn.check" \
		"$top_srcdir/tests/tuner/host_check.c" "$refc" -lm
	expect_status "$hn: its output matches the reference" 0 "$T/$hn.check" "$T/$hn.d" "$rel" "$abs"
	# the oracle can fail: change one output element
	out=$(ls "$T/$hn.d"/*.out | tail -n 1)
	printf '\177\177\177\177' | dd of="$out" bs=1 seek=8 conv=notrunc 2>/dev/null
	expect_status "$hn: a corrupted output is caught" 1 "$T/$hn.check" "$T/$hn.d" "$rel" "$abs"
}

host_gen vadd "$TD/vadd.space" "$TD/vadd_ref.c" vadd_ref 1e-5 1e-6 --strategy random --budget 4 --seed 3
# 2-D, with a work-group shape; and float scalars, one negative, after the buffers
O=$top_srcdir/spaces/opt K=$top_srcdir/kernels/opt
host_gen matmul "$O/matmul.space" "$K/matmul_ref.c" matmul_ref 1e-4 1e-4 \
	--set M=32 --set N=16 --set K=24 --strategy random --budget 3 --seed 2
host_gen dcs "$O/dcs.space" "$K/dcs_ref.c" dcs_ref 1e-4 1e-3 \
	--set nx=16 --set ny=32 --set natoms=40 --strategy random --budget 3 --seed 2

# without the .space file there is nothing to generate from
expect_status "--host needs the space" 2 "$SPACETUNE" best --db "$T/vadd.jsonl" --host "$T/x.c"
expect_status "a file without --host is refused" 2 "$SPACETUNE" best --db "$T/vadd.jsonl" "$TD/vadd.space"
finish
