#!/bin/sh
# A long fuzzing campaign, on many cores, over each target of fuzz/smoke.sh
# (the front end, device profiles and --set, results databases and
# replay, batch files; FUZZ_TARGETS picks some):
#
#     fuzz/campaign.sh SECONDS WORKERS [KEEP_DIR]
#
# e.g. `fuzz/campaign.sh 300 16` is 16 workers for 5 minutes per target
# (80 CPU-minutes each).  It runs fuzz/smoke.sh with inputs up to 64 KiB (the
# resource limits, 10,000 operands or 256 iterators, need inputs of tens
# of KB to reach), prints the execs, the coverage and the artefacts
# (crashes, leaks, timeouts, out-of-memory), and fails if any was found.
# KEEP_DIR keeps the grown corpus, to add what is new to fuzz/corpus.
#
# FUZZ_BIN names a fuzz_frontend built elsewhere (fuzz/build.sh, `make
# fuzz`): clang links the sanitizer runtimes in statically; it needs
# libc, libm, libstdc++ and ICU's libicuuc and libicudata (`ldd` lists
# them), so it runs on any machine of the same Debian release with ICU.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ]; then
	echo "usage: $0 SECONDS WORKERS [KEEP_DIR]" >&2
	exit 2
fi
FUZZ_SECONDS=$1 FUZZ_SECONDS_EACH=$1 FUZZ_JOBS=$2 FUZZ_KEEP=${3:-} FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-65536}
export FUZZ_SECONDS FUZZ_SECONDS_EACH FUZZ_JOBS FUZZ_KEEP FUZZ_MAX_LEN
echo "campaign: $FUZZ_JOBS worker(s) for $FUZZ_SECONDS s, inputs up to $FUZZ_MAX_LEN bytes"
exec sh "$here/smoke.sh"
