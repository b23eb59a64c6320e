#!/bin/sh
# Runs the shell blocks of README.md (```sh fences) as a user would type
# them, so the README cannot drift from the code.  Each block runs with
# `bash -e` in a scratch directory that holds the tree's spaces/, kernels/
# and tests/, with the built spacec and spacetune first on PATH.  A
# comment just above a block can say how to run it:
#
#   <!-- readme-test: skip -- why -->     not run (it runs the suite itself)
#   <!-- readme-test: full -- why -->     run only in make check-full (or with
#                                         README_FULL=1), in a fresh copy of the
#                                         source tree, from its top
#   <!-- readme-test: opencl ... -->      skipped without an OpenCL device
#   <!-- readme-test: sed 'EXPR' ... -->  the block is run through sed first
#                                         (smaller sizes for a test)
#
# `pkg-config spacert` finds the build tree's libspacert (a spacert.pc
# written here), so the emit-then-cc block runs before `make install`.
# In full mode the Quick start's `make check` runs only a sample of the
# suite (TESTS through MAKEFLAGS): all of it is what CI runs.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
case $top_srcdir in /*) ;; *) top_srcdir=$(pwd)/$top_srcdir ;; esac
case $top_builddir in /*) ;; *) top_builddir=$(pwd)/$top_builddir ;; esac
readme=$top_srcdir/README.md
T=$(mktemp -d "${TMPDIR:-/tmp}/readme.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT INT TERM
pass=0 fail=0 skipped=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# The blocks, one file each (block-N.sh), with their markers (block-N.how)
# and the line of the fence (block-N.line).
awk -v dir="$T" '
	/^<!-- readme-test:/ { how = $0; sub(/^<!-- readme-test: */, "", how); sub(/ *-->$/, "", how); next }
	/^```sh *$/ && !inblock { n++; inblock = 1; f = dir "/block-" n ".sh"; printf "" > f
		print how > (dir "/block-" n ".how"); print NR > (dir "/block-" n ".line"); how = ""; next }
	/^```/ && inblock { inblock = 0; close(f); next }
	inblock { print > f; next }
	{ if ($0 !~ /^[[:space:]]*$/) how = "" }
' "$readme"
nblocks=$(ls "$T"/block-*.sh 2>/dev/null | wc -l)
[ "$nblocks" -ge 4 ] && ok "README has $nblocks shell blocks" || bad "README has only $nblocks shell blocks"

# pkg-config spacert: the build tree's headers and library.
mkdir -p "$T/pc"
cat >"$T/pc/spacert.pc" <<EOF
Name: spacert
Description: the build tree's runtime, for tests/readme.sh
Version: 0
Libs: -L$top_builddir/.libs -lspacert
Cflags: -I$top_srcdir/runtime
EOF
export PKG_CONFIG_PATH="$T/pc"
export LD_LIBRARY_PATH="$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# A runtime built with ASan (make check's configuration) is loaded by a
# program built without it: tolerated here, it is not what is tested.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
export PATH="$top_builddir:$PATH"
: "${XDG_CACHE_HOME:=$T/cache}"
export XDG_CACHE_HOME

have_opencl() { "$top_builddir/spacetune" devices >/dev/null 2>&1; }

i=0
while [ $i -lt "$nblocks" ]; do
	i=$((i + 1))
	block=$T/block-$i.sh how=$(cat "$T/block-$i.how") line=$(cat "$T/block-$i.line")
	name="README.md:$line"
	case " $how " in
	*" skip "*) skipped=$((skipped + 1)); echo "skip $name ($how)"; continue ;;
	esac
	case " $how " in
	*" opencl "*)
		if ! have_opencl; then
			skipped=$((skipped + 1)); echo "skip $name: no OpenCL device"; continue
		fi ;;
	esac
	expr=$(printf '%s\n' "$how" | sed -n "s/.*sed '\([^']*\)'.*/\1/p")
	if [ -n "$expr" ]; then
		sed "$expr" "$block" >"$block.sed" && mv "$block.sed" "$block"
	fi
	work=$T/work-$i
	mkdir -p "$work"
	case " $how " in
	*" full "*)
		if [ "${README_FULL:-${CHECK_FULL:-0}}" != 1 ]; then
			# Not built here, but still checked: it parses, and what it
			# names exists.
			if bash -n "$block" && [ -x "$top_srcdir/bootstrap" ] &&
			   [ -f "$top_srcdir/spaces/gemm_beast.space" ]; then
				ok "$name parses (run by make check-full)"
			else
				bad "$name does not parse"
			fi
			continue
		fi
		# A fresh copy of the source tree, without build output.
		(cd "$top_srcdir" && tar cf - --exclude='./build*' --exclude=./.git \
			--exclude=./autom4te.cache .) | (cd "$work" && tar xf -) || {
			bad "$name: cannot copy the tree"; continue; }
		echo "---- $name: running in a copy of the tree (minutes)"
		(cd "$work" && MAKEFLAGS="TESTS=tests/cli/run.sh" bash -e "$block") \
			>"$T/out-$i" 2>&1
		;;
	*)
		for d in spaces kernels tests; do ln -s "$top_srcdir/$d" "$work/$d"; done
		(cd "$work" && bash -e "$block") >"$T/out-$i" 2>&1
		;;
	esac
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$name runs ($(grep -c . "$block") lines)"
	else
		bad "$name: exit status $rc; the block was:"
		sed 's/^/    | /' "$block"
		echo "  its output (tail):"
		tail -n 25 "$T/out-$i" | sed 's/^/    | /'
	fi
done

echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
