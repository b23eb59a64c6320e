#!/bin/sh
# Float and string literals, and a byte order mark, as Python reads them
# (tests/diff/literals.py: spacec's every mode against ast.literal_eval).
exec python3 "${top_srcdir:-.}/tests/diff/literals.py" "${SPACEC:-./spacec}" "${LITERALS_SEED:-1}"
