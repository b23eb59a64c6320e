#!/bin/sh
# setup.sh -- a virtual environment with Kernel Tuner from PyPI, for
# comparing against its strategies on spacetune's recorded data:
#
#   sh bench/kt/setup.sh            # creates bench/kt/venv (ignored by git)
#   bench/kt/venv/bin/python bench/kt/kt_replay.py CACHE.json [STRATEGY]
#
# tests/tuner/ktexport.sh uses the venv when it exists (Kernel Tuner's own
# cache reader and T4 schema) and says it skipped that part otherwise.
# KT_VERSION pins a version (default: the newest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python3 -m venv "$here/venv"
"$here/venv/bin/pip" install -q "kernel_tuner${KT_VERSION:+==$KT_VERSION}" jsonschema
"$here/venv/bin/python" -c 'import kernel_tuner; print("kernel_tuner", kernel_tuner.__version__)'
