#!/bin/sh
# A quarter of the random differential spaces, so the quarters run in
# parallel under make -j: seeds 501-750 in make check-full (CHECK_FULL=1),
# the first 25 of them in make check.
if [ "${CHECK_FULL:-0}" = 1 ]; then n=250; else n=${DIFF_CHECK_SEEDS:-25}; fi
DIFF_RANDOM_ONLY=1 DIFF_FIRST_SEED=501 DIFF_SEEDS=$n exec sh "${top_srcdir:-.}/tests/diff/run.sh"
