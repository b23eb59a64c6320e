#!/bin/sh
# make check-full: random spaces 3001-5000 against the Python oracle
# (tests/diff/python.sh); make check leaves them to make check-full.
[ "${CHECK_FULL:-0}" = 1 ] || { echo "random spaces against Python alone: make check-full"; exit 77; }
exec sh "${top_srcdir:-.}/tests/diff/python.sh" 3001 2000
