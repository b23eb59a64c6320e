#!/bin/sh
# The differential test on every shipped and test space (no random ones;
# random-[a-d].sh run the 1000 random spaces).
DIFF_SEEDS=0 exec sh "${top_srcdir:-.}/tests/diff/run.sh"
