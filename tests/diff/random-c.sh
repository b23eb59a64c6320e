#!/bin/sh
# A quarter of make check's 1000 random spaces (seeds 501-750), so
# the quarters run in parallel under make -j.
DIFF_RANDOM_ONLY=1 DIFF_FIRST_SEED=501 DIFF_SEEDS=250 exec sh "${top_srcdir:-.}/tests/diff/run.sh"
