#!/bin/sh
# The compile cache runs no shell and no code that someone else chose:
# paths with quotes or $(...), planted or unsafe cache directories, foreign,
# symlinked or truncated entries, and unwritable caches.  Every count is
# compared with the reference interpreter's.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

cat > "$T/a.space" <<'EOF'
n = range(2, 60)
d = range(2, 8)
require n % d == 0
EOF
cat > "$T/b.space" <<'EOF'
x = range(0, 40)
require x % 3 == 1
EOF
want_a=$("$SPACEC" count --interpret "$T/a.space")
want_b=$("$SPACEC" count --interpret "$T/b.space")

# count NAME FILE WANT [env assignments...]: runs `spacec count --jit=cc` under env
count() {
	name=$1 file=$2 want=$3
	shift 3
	env "$@" "$SPACEC" count -v --jit=cc "$file" >"$T/out" 2>"$T/err"
	st=$?
	if [ "$st" -eq 0 ] && [ "$(cat "$T/out")" = "$want" ]; then
		ok "$name: $want"
	else
		bad "$name: exit $st, printed '$(cat "$T/out")', wanted $want"
		sed 's/^/    /' "$T/err"
	fi
}
warnings() { grep -c 'warning' "$T/err"; }
backend() { sed -n 's/^spacec: enumerator built with \(.*\) in .*/\1/p' "$T/err"; }

# --- no shell: a cache path with $(...) and quotes, a HOME with an apostrophe
count "XDG_CACHE_HOME with \$(...)" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$T/x'\$(touch $T/canary)'"
[ ! -e "$T/canary" ] && ok "the cache path ran no command" || bad "the cache path ran a command"
mkdir "$T/o'brien"
count "HOME with an apostrophe" "$T/a.space" "$want_a" -u XDG_CACHE_HOME "HOME=$T/o'brien"
count "HOME with an apostrophe, again" "$T/a.space" "$want_a" -u XDG_CACHE_HOME "HOME=$T/o'brien"
[ "$(backend)" = "cc (cached)" ] && ok "the entry under o'brien is reused" || bad "not reused: $(backend)"
srcs="$top_srcdir/lang $top_srcdir/dag $top_srcdir/cgen $top_srcdir/runtime $top_srcdir/tools $top_srcdir/tuner"
# shellcheck disable=SC2086
hits=$(grep -rn --include='*.[ch]' --include='*.l' --include='*.y' 'system(\|popen(' $srcs)
[ -z "$hits" ] && ok "no system() or popen() in the sources" || { bad "system()/popen() in the sources:"; echo "$hits"; }

# --- the fallback directory under TMPDIR, planted by someone else
C=$T/cache
mkdir -m 700 "$C"
uid=$(id -u)
mkdir -m 777 "$T/spacec-cache-$uid"
count "planted world-writable fallback" "$T/a.space" "$want_a" -u HOME -u XDG_CACHE_HOME "TMPDIR=$T"
[ "$(warnings)" -eq 1 ] && grep -q 'mode 777' "$T/err" && ok "one warning names the mode" || bad "warnings: $(cat "$T/err")"
[ -z "$(ls -A "$T/spacec-cache-$uid")" ] && ok "nothing written to the planted directory" || bad "wrote to the planted directory"
[ "$(ls "$T" | grep -c '^spacec-......$')" -eq 0 ] && ok "the private build directory is gone" || bad "private directory left: $(ls "$T")"
if [ "$uid" -eq 0 ]; then
	chmod 700 "$T/spacec-cache-$uid" && chown 65534 "$T/spacec-cache-$uid"
	count "fallback owned by another user" "$T/a.space" "$want_a" -u HOME -u XDG_CACHE_HOME "TMPDIR=$T"
	grep -q 'belongs to user 65534' "$T/err" && ok "the other owner is named" || bad "owner: $(cat "$T/err")"
fi
rmdir "$T/spacec-cache-$uid" 2>/dev/null || rm -rf "$T/spacec-cache-$uid"
mkdir -m 777 "$T/open"
count "a cache under a world-writable directory" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$T/open"
grep -q 'others may replace it' "$T/err" && ok "the unsafe parent is refused" || bad "parent: $(cat "$T/err")"

# --- entries: a copy of another space's, a symbolic link, a truncated one
count "build a" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$C"
entry_a=$(cd "$C/spacec" && ls -- *.so)
count "build b" "$T/b.space" "$want_b" "XDG_CACHE_HOME=$C"
entry_b=$(cd "$C/spacec" && ls -- *.so | grep -v "$entry_a")
cp "$C/spacec/$entry_b" "$C/spacec/$entry_a"
count "a's entry replaced by b's" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$C"
[ "$(warnings)" -eq 1 ] && grep -q 'other source' "$T/err" && ok "one warning: foreign entry" || bad "foreign: $(cat "$T/err")"
count "the rebuilt entry" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$C"
[ "$(warnings)" -eq 0 ] && [ "$(backend)" = "cc (cached)" ] && ok "rebuilt and reused silently" || bad "after rebuild: $(cat "$T/err")"
ln -sf "$C/spacec/$entry_b" "$C/spacec/$entry_a"
count "a's entry a symlink to b's" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$C"
grep -q 'symbolic link' "$T/err" && ok "the symbolic link is refused" || bad "symlink: $(cat "$T/err")"
[ ! -L "$C/spacec/$entry_a" ] && ok "the link is replaced" || bad "the link is still there"
size=$(wc -c < "$C/spacec/$entry_a")
head -c $((size / 2)) "$C/spacec/$entry_b" > "$C/spacec/$entry_a.part"
mv "$C/spacec/$entry_a.part" "$C/spacec/$entry_a"
count "a truncated entry" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$C"
grep -q 'not a sealed' "$T/err" && ok "the truncated entry is refused" || bad "truncated: $(cat "$T/err")"
head -c $((size / 2)) "$C/spacec/$entry_a" > "$C/spacec/$entry_a.part"
mv "$C/spacec/$entry_a.part" "$C/spacec/$entry_a"
count "a's own entry truncated" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$C"
grep -q 'warning' "$T/err" && ok "its own truncated entry is refused" || bad "own truncated: $(cat "$T/err")"
chmod 666 "$C/spacec/$entry_a"
count "an entry others may write" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$C"
grep -q 'may write' "$T/err" && ok "a writable entry is refused" || bad "writable entry: $(cat "$T/err")"
[ -z "$(ls "$C/spacec" | grep -v '\.so$')" ] && ok "no temporary files left in the cache" || bad "left: $(ls "$C/spacec")"

# --- caches nobody can write: tcc in memory or a private directory, one warning
count "HOME that cannot exist" "$T/a.space" "$want_a" -u XDG_CACHE_HOME HOME=/dev/null/home "TMPDIR=$T"
[ "$(warnings)" -eq 1 ] && ok "one warning" || bad "warnings: $(cat "$T/err")"
count "neither a cache nor TMPDIR" "$T/a.space" "$want_a" XDG_CACHE_HOME=/dev/null/x TMPDIR=/dev/null/t
[ "$(warnings)" -eq 1 ] && [ "$(backend)" = tcc ] && ok "one warning, tcc in memory" || bad "no dir: $(cat "$T/err")"
count "a cache in /proc" "$T/a.space" "$want_a" XDG_CACHE_HOME=/proc/spacec-test "TMPDIR=$T"
[ "$(warnings)" -eq 1 ] && ok "one warning" || bad "warnings: $(cat "$T/err")"
if [ "$uid" -ne 0 ]; then
	mkdir -m 500 "$T/ro"
	count "a read-only cache" "$T/a.space" "$want_a" "XDG_CACHE_HOME=$T/ro"
	[ "$(warnings)" -eq 1 ] && ok "one warning" || bad "warnings: $(cat "$T/err")"
fi
for mode in --jit=tcc --jit=auto; do
	env HOME=/dev/null/home XDG_CACHE_HOME= "$SPACEC" count $mode "$T/b.space" >"$T/out" 2>"$T/err"
	[ "$(cat "$T/out")" = "$want_b" ] && [ ! -s "$T/err" ] && ok "$mode needs no cache" ||
		bad "$mode without a cache: $(cat "$T/out" "$T/err")"
done

echo "cache: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
