#!/bin/sh
# spacetune's cache runs no code that someone else chose: a cache directory
# others may write to is not used (a private one serves the run and is
# removed), and a compiled C reference replaced by another object is
# rebuilt, never loaded.  The oracle for "the right reference ran" is
# verification itself: a foreign reference that wrote other outputs would
# make every configuration 'wrong'.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
mkdir -m 700 "$T/tmp"
run() { # name db [env...]: a short run of vadd.space
	name=$1 db=$2
	shift 2
	expect_status "$name" 0 env TMPDIR="$T/tmp" "$@" "$SPACETUNE" run "$T/vadd.space" --db "$db" \
		--budget 4 --strategy exhaustive --jobs 1 --repeat 1
	n=$(jq -s '[.[] | select(.status == "ok")] | length' "$db")
	check "$name: every configuration verified ($n ok)" test "$n" -eq 4
}
statuses() { jq -r .status "$1" | sort | uniq -c | tr -s ' \n' ' '; }

# --- a cache directory under a world-writable parent
mkdir -m 777 "$T/open"
run "a cache others could replace" "$T/a.jsonl" XDG_CACHE_HOME="$T/open"
check "one warning says why" test "$(grep -c "not using the cache directory '.*/spacetune' (others may replace" "$T/err")" -eq 1
check "nothing cached there" test -z "$(ls -A "$T/open/spacetune" 2>/dev/null)"
check "the private directory is gone" test -z "$(ls -A "$T/tmp")"

# --- a compiled C reference replaced by another object
mkdir -m 700 "$T/c"
run "first run" "$T/b.jsonl" XDG_CACHE_HOME="$T/c"
cref=$(ls "$T/c/spacetune"/cref-*.so 2>/dev/null | head -n1)
check "the C reference is cached" test -n "$cref"
cat >"$T/other_ref.c" <<'EOF'
int vadd_ref(int nargs, void **args);
int vadd_ref(int nargs, void **args)
{
	float *c = args[3];
	for (int i = 0, n = *(const int *)args[0]; i < n; i++)
		c[i] = 12345.0f;
	return nargs != 5;
}
EOF
cc -O2 -shared -fPIC -o "$T/other.so" "$T/other_ref.c"
cp "$T/other.so" "$cref"
run "a foreign reference in the cache" "$T/c.jsonl" XDG_CACHE_HOME="$T/c"
check "it was refused with a warning" grep -q "cache entry.*cannot be used" "$T/err"
[ "$(jq -s '[.[] | select(.status == "ok")] | length' "$T/c.jsonl")" -eq 4 ] ||
	echo "    statuses: $(statuses "$T/c.jsonl")"
ln -sf "$T/other.so" "$cref"
run "a symbolic link as the reference" "$T/d.jsonl" XDG_CACHE_HOME="$T/c"
check "the link was refused" grep -q "symbolic link" "$T/err"
finish
