# Shared by the spacetune script tests (sourced): paths, a private PoCL
# cache, LeakSanitizer suppressions for PoCL's own allocations, a scratch
# directory, and ok/bad counters.  A test that needs OpenCL calls
# need_opencl, which exits 77 (skipped) when no device is present.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
SPACETUNE=${SPACETUNE:-$top_builddir/spacetune}
SPACEC=${SPACEC:-$top_builddir/spacec}
TD=$top_srcdir/tests/tuner
T=$(mktemp -d)
export POCL_CACHE_DIR="$T/pocl-cache"
export XDG_CACHE_HOME="$T/cache"
# use_tls=0: GCC 12's LeakSanitizer reads stale dynamic-TLS sizes in the
# workers (libpocl's LLVM, dlopen'd by the ICD loader) and crashes in its
# tracer ("Tracer caught signal 11 ... LeakSanitizer has encountered a
# fatal error"), in about one run of faults.sh in three.  Not scanning TLS
# can only add reports (nothing of ours lives there), never hide one.
# print_suppressions=0: the table of suppressions used would be the last
# lines of stderr, where tests read a command's summary line.
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/kernels/lsan.supp:use_tls=0:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# A kernel that faults (faults.cl's FAULT=4) must end its worker at once:
# ASan's report of it can take seconds on a loaded machine, past the run
# limit, which would make the crash a timeout.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { # name command...: ok when the command succeeds
	name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}
expect_status() { # name status cmd...: runs cmd with stdout/stderr in $T/out, $T/err
	name=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name (exit $got)"; else
		bad "$name: exit $got, wanted $want"
		sed 's/^/    | /' "$T/err" | tail -20
	fi
}
# to_fifo NAME REFERENCE cmd...: cmd writes its output file to $T/fifo, a
# FIFO standing for /dev/null or any device: it must be written in place
# (the reader gets exactly REFERENCE, the file a regular output got) and
# never renamed over (as root, that replaced the real /dev/null with a
# regular file).  Run against a FIFO, not /dev/null, so a failure breaks
# nothing outside $T; the reader gives up after 60 s.
to_fifo() {
	fifo_what=$1 fifo_reference=$2
	shift 2
	rm -f "$T/fifo" "$T/fifo.got"
	mkfifo "$T/fifo"
	timeout 60 cat "$T/fifo" >"$T/fifo.got" &
	fifo_reader=$!
	expect_status "$fifo_what, to a FIFO" 0 "$@"
	wait $fifo_reader
	check "$fifo_what: the FIFO is still one, not renamed over" test -p "$T/fifo"
	check "$fifo_what: the FIFO got the same bytes as a file" cmp -s "$fifo_reference" "$T/fifo.got"
}
need_opencl() {
	if ! "$SPACETUNE" devices >/dev/null 2>&1; then
		echo "no OpenCL device: skipped"
		exit 77
	fi
}
# Each configuration of faults.space recorded with the outcome that
# faults.cl fixes by construction (the oracle), among the records that
# the jq condition selects.
fault_outcomes() { # db condition label
	for want in 0:ok 1:build_error 2:wrong_result 3:timeout 4:crashed 5:launch_error 6:wrong_result; do
		fault=${want%%:*} status=${want#*:}
		got=$(jq -r "select(($2) and .params.FAULT == $fault) | .status" "$1")
		[ "$got" = "$status" ] && ok "${3}FAULT=$fault recorded as $status" ||
			bad "${3}FAULT=$fault recorded as '$got', wanted $status"
	done
}
# A sanitizer report anywhere in the captured stderr fails the test.
no_sanitizer_reports() { # file
	! grep -q -e 'LeakSanitizer' -e 'ERROR: AddressSanitizer: [a-z-]*-\(use\|overflow\|free\)' \
		-e 'runtime error:' "$1"
}
# Waits up to 10 s until no process has PATTERN in its command line
# (a killed run's workers dying after their parent); true when none has.
none_left() { # pattern
	i=0
	while [ "$i" -lt 50 ] && pgrep -f -- "$1" >/dev/null; do
		sleep 0.2
		i=$((i + 1))
	done
	! pgrep -f -- "$1" >/dev/null
}
# host_run_check NAME PROG REF_C REF_FN REL ABS: runs a program of
# `spacetune best --host` with -o $T/NAME.d and compares what it wrote
# with the C reference run on the same inputs (host_check.c, the oracle)
host_run_check() {
	mkdir -p "$T/$1.d"
	expect_status "$1: the program runs" 0 "$2" -o "$T/$1.d"
	check "$1: the checker builds" ${CC:-cc} -std=c11 -O1 -DREF="$4" -o "$T/$1.check" \
		"$top_srcdir/tests/tuner/host_check.c" "$3" -lm
	expect_status "$1: its output matches the reference" 0 "$T/$1.check" "$T/$1.d" "$5" "$6"
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
