#!/bin/sh
# --jit=auto where tcc cannot build (a binary copied to a machine without
# tcc's runtime files, as spacec and spacetune are carried to the GPU
# machines): cc stands in, as tcc stands in where cc cannot build.  tcc's
# files are hidden by an empty folder bind-mounted over them in a mount
# namespace of this test's own; the count is compared with the reference
# interpreter's.  Skipped (77) where no such namespace can be made.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
tccdir=/usr/lib/x86_64-linux-gnu/tcc
[ -d "$tccdir" ] || { echo "SKIP: no $tccdir (tcc's runtime files) to hide"; exit 77; }
mkdir -p "$T/empty" "$T/cache"
unshare -m sh -c "mount --bind '$T/empty' '$tccdir'" 2>/dev/null ||
	{ echo "SKIP: cannot bind-mount in a new mount namespace (needs root and unshare)"; exit 77; }
cat > "$T/a.space" <<'SPACE'
n = range(2, 200)
d = range(2, 12)
m = range(1, 4)
require n % d == 0
require n * m < 400
SPACE
want=$("$SPACEC" count --interpret "$T/a.space") || { echo "FAIL interpreter"; exit 1; }
hidden() { XDG_CACHE_HOME="$T/cache" unshare -m sh -c "mount --bind '$T/empty' '$tccdir' && exec \"\$@\"" sh "$@"; }
fail=0
if hidden "$SPACEC" count --jit=tcc "$T/a.space" >/dev/null 2>&1; then
	echo "FAIL tcc built with its runtime files hidden: the test hides nothing"; fail=1
else
	echo "ok   --jit=tcc fails with tcc's files hidden"
fi
got=$(hidden "$SPACEC" count "$T/a.space" 2>"$T/err")
if [ "$got" = "$want" ]; then
	echo "ok   --jit=auto counts $got with cc, as the interpreter does"
else
	echo "FAIL --jit=auto counted '$got', the interpreter $want:"; cat "$T/err"; fail=1
fi
exit $fail
