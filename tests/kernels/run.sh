#!/bin/sh
# The OpenCL kernels against their C references, on PoCL (the CPU): the
# tuning references (naive kernels, C ABI wrappers), the hand-picked cases
# and a sample of the configurations the shipped spaces accept.  Exit 77
# (skipped) when no OpenCL device is present.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
export KERNELS_DIR="$top_srcdir/kernels"
export SPACES_DIR="$top_srcdir/spaces"
export SPACEC="${SPACEC:-./spacec}"
# POCL caches compiled kernels per user; a private cache keeps runs clean.
export POCL_CACHE_DIR=$(mktemp -d)
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/kernels/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
trap 'rm -rf "$POCL_CACHE_DIR"' EXIT
# The full sample (run_kernels all) takes minutes on PoCL; make check runs
# the hand-picked cases and a small sample of each space.
"$top_builddir/tests/kernels/ref_kernels" &&
	"$top_builddir/tests/kernels/run_kernels" builtin &&
	"$top_builddir/tests/kernels/run_kernels" space 6 6
