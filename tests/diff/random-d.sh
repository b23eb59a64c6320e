#!/bin/sh
# A quarter of make check's 1000 random spaces (seeds 751-1000), so
# the quarters run in parallel under make -j.
DIFF_RANDOM_ONLY=1 DIFF_FIRST_SEED=751 DIFF_SEEDS=250 exec sh "${top_srcdir:-.}/tests/diff/run.sh"
