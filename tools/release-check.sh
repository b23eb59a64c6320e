#!/bin/sh
# The release check: from a fresh configure in build-release/, the
# distribution tarball must build, pass `make check` and install and
# uninstall cleanly out of tree (make distcheck), and the tree must pass
# the long sweeps (make check-full: every random differential space,
# minutes of fuzzing, the README's Quick start in a fresh copy).
# Run it from anywhere in the source tree; JOBS defaults to the cores.
set -eu
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
./bootstrap
mkdir -p build-release
cd build-release
../configure
make -j"$jobs"
echo "release-check: make distcheck"
make -j"$jobs" distcheck
echo "release-check: make check-full"
make -j"$jobs" check-full
echo "release-check: passed ($(ls spacec-*.tar.gz))"
