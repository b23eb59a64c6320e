#!/bin/sh
# The evaluator (tuner/eval.h) on PoCL: fault injection, timing, the binary
# cache and the references.  Exit 77 (skipped) when no OpenCL device is
# present.  Workers check themselves for leaks under ASan; their reports
# go to stderr, so a report anywhere fails the test.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
export POCL_CACHE_DIR=$(mktemp -d)
# use_tls=0: see lib.sh.
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/kernels/lsan.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# FAULT=4 must end its worker at once (see lib.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
log=$(mktemp)
trap 'rm -rf "$POCL_CACHE_DIR" "$log"' EXIT
"$top_builddir/tests/tuner/test_eval" "$top_srcdir/tests/tuner" 2>"$log"
status=$?
cat "$log" >&2
[ $status -eq 77 ] && exit 77
if grep -q -e 'LeakSanitizer' -e 'ERROR: AddressSanitizer: [a-z-]*-\(use\|overflow\|free\)' \
		-e 'runtime error:' -e 'ended badly' "$log"; then
	echo "run.sh: a sanitizer report or a worker that ended badly" >&2
	exit 1
fi
exit $status
