#!/bin/sh
# Behaviour of the spacec command line: exit statuses, output formats,
# bindings, and that bad input or a failing output never passes silently.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
S=$top_srcdir/spaces
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; failed="$failed
FAIL $1"; }
failed=
expect_status() { # name status cmd...
	name=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name (exit $got)"; else bad "$name: exit $got, wanted $want"; cat "$T/err"; fi
}

cat > "$T/small.space" <<'EOF'
"""small"""
device limit = 6
setting mode = "x"
a = range(1, 4)
b = [10, 20]
s = a * b
require s <= limit * 10
soft odd = a % 2 == 0
EOF

# --- basics
expect_status "--help" 0 "$SPACEC" --help
grep -q "usage: spacec" "$T/out" && ok "--help prints usage" || bad "--help prints usage"
expect_status "--version" 0 "$SPACEC" --version
grep -q "^spacec [0-9]" "$T/out" && ok "--version prints the version" || bad "--version"
expect_status "no arguments" 2 "$SPACEC"
expect_status "unknown command" 2 "$SPACEC" frobnicate "$T/small.space"
expect_status "unknown option" 2 "$SPACEC" count --frob "$T/small.space"
expect_status "missing file" 1 "$SPACEC" count "$T/nope.space"
grep -q "cannot read" "$T/err" && ok "missing file is named" || bad "missing file message"
expect_status "check ok" 0 "$SPACEC" check "$T/small.space"

# --- count and list, both paths
for path in --interpret --jit=auto; do
	expect_status "count $path" 0 "$SPACEC" count $path "$T/small.space"
	# a in {1,3} (soft odd drops 2), b in {10,20}, a*b <= 60: 1*10 1*20 3*10 3*20 -> 4
	[ "$(cat "$T/out")" = 4 ] && ok "count $path is a bare integer: 4" || bad "count $path: $(cat "$T/out")"
	expect_status "count --no-soft $path" 0 "$SPACEC" count --no-soft $path "$T/small.space"
	[ "$(cat "$T/out")" = 6 ] && ok "--no-soft $path keeps soft rejects: 6" || bad "--no-soft $path: $(cat "$T/out")"
	expect_status "count --set $path" 0 "$SPACEC" count --set limit=2 $path "$T/small.space"
	[ "$(cat "$T/out")" = 2 ] && ok "--set limit=2 $path: 2" || bad "--set $path: $(cat "$T/out")"
	expect_status "count --disable $path" 0 "$SPACEC" count --disable odd $path "$T/small.space"
	[ "$(cat "$T/out")" = 6 ] && ok "--disable odd $path: 6" || bad "--disable $path: $(cat "$T/out")"
	expect_status "unknown --set name $path" 2 "$SPACEC" count --set nosuch=1 $path "$T/small.space"
	expect_status "list csv $path" 0 "$SPACEC" list $path "$T/small.space"
	printf 'a,b\n1,10\n1,20\n3,10\n3,20\n' > "$T/want.csv"
	{ head -n1 "$T/out"; tail -n +2 "$T/out" | sort -t, -k1n -k2n; } > "$T/got.csv"
	cmp -s "$T/want.csv" "$T/got.csv" && ok "list csv $path" || { bad "list csv $path"; cat "$T/out"; }
	expect_status "list jsonl $path" 0 "$SPACEC" list --format jsonl $path "$T/small.space"
	grep -c '^{"a": [0-9]*, "b": [0-9]*}$' "$T/out" | grep -q '^4$' && ok "list jsonl $path" || { bad "list jsonl $path"; cat "$T/out"; }
	# list -o FILE writes FILE (stdout stays empty), replacing an old one
	# whole; an unwritable place is an error (issue 13: --interpret
	# ignored -o and wrote to stdout)
	"$SPACEC" list --format jsonl $path "$T/small.space" | sort > "$T/want.jsonl"
	echo stale > "$T/o.jsonl"
	expect_status "list -o $path" 0 "$SPACEC" list --format jsonl -o "$T/o.jsonl" $path "$T/small.space"
	if [ ! -s "$T/out" ] && [ -s "$T/want.jsonl" ] && sort "$T/o.jsonl" | cmp -s - "$T/want.jsonl" &&
		! ls "$T" | grep -q 'o.jsonl.tmp'; then
		ok "list -o $path writes the file, not stdout"
	else
		bad "list -o $path"
		cat "$T/o.jsonl" "$T/out"
	fi
	expect_status "list -o into a missing directory $path" 1 \
		"$SPACEC" list -o "$T/nodir/o.csv" $path "$T/small.space"
	# a full disk is an error, never silent truncation
	if [ -w /dev/full ]; then
		"$SPACEC" list $path "$T/small.space" > /dev/full 2>"$T/err"
		[ $? -eq 1 ] && ok "write error $path exits 1" || bad "write error $path"
	fi
done

# --- a binding's kind decides how the compiled code holds the parameter
# (ints and bools unboxed, anything else tagged): every kind bound to an
# int-default device parameter and a table index counts as the interpreter does
cat > "$T/kinds.space" <<'EOF'
"""kinds"""
device n = 10
device row = 1
table = [[1, 2, 3], [4, 5, 6] * 2]
x = range(0, 20)
require x < n
require x % table[row][2] != 1 or x == 0
EOF
for b in n=10 n=12.5 n=True n=-3 row=0 row=-1 row=7 'n="s"'; do
	want=$("$SPACEC" count -w --interpret --set "$b" "$T/kinds.space" 2>&1)
	got=$("$SPACEC" count -w --jit=tcc --set "$b" "$T/kinds.space" 2>&1)
	[ "$want" = "$got" ] && ok "--set $b: compiled count agrees with the interpreter ($got)" ||
		bad "--set $b: compiled '$got', interpreter '$want'"
done

# --- bad input: located error, exit 1
printf 'a = range(1, 4\nb = [1]\n' > "$T/bad.space"
expect_status "syntax error" 1 "$SPACEC" count "$T/bad.space"
grep -q "bad.space:[0-9]*:[0-9]*: error:" "$T/err" && ok "error is located" || bad "error location"

# --- emit writes C that compiles cleanly on its own
expect_status "emit" 0 "$SPACEC" emit "$T/small.space" -o "$T/small.c"
grep -q '#include <spacert.h>' "$T/small.c" && ok "emit includes spacert.h" || bad "emit include"
grep -q '#line' "$T/small.c" && ok "emit has #line directives" || bad "emit #line"
cp "$T/small.c" "$T/first.c"
"$SPACEC" emit "$T/small.space" -o "$T/small.c" && cmp -s "$T/small.c" "$T/first.c" &&
	ok "emit is reproducible" || bad "emit reproducible"
# -o a device or a pipe writes it in place: a FIFO stands for /dev/null
# (renaming over it, as root, once replaced the real /dev/null)
# (the C names its own file in #line directives: compared without them)
mkfifo "$T/emit-fifo"
timeout 60 cat "$T/emit-fifo" > "$T/emit-fifo.got" &
reader=$!
"$SPACEC" emit "$T/small.space" -o "$T/emit-fifo"
wait $reader
unlined() { sed 's/^#line \([0-9]*\) ".*"$/#line \1/' "$1"; }
test -p "$T/emit-fifo" && [ "$(unlined "$T/emit-fifo.got")" = "$(unlined "$T/first.c")" ] &&
	ok "emit -o FIFO writes it in place" || bad "emit -o FIFO: $(ls -l "$T/emit-fifo")"
# A factorization whose sub-nests could never be found in their memo
# tables is dropped (cg_factor.c any_block_reused): synthetic_wide keeps
# n after wg and wpt, stepped over their multiples, not factorized
"$SPACEC" emit "$S/synthetic_wide.space" -o "$T/wide.c"
grep -q "congruence stepping over 'n'" "$T/wide.c" && ! grep -q "factorization:" "$T/wide.c" &&
	ok "synthetic_wide: n stepped, no useless factorization" || bad "synthetic_wide's plan"
"$SPACEC" emit "$S/gemm_beast.space" -o "$T/gemm.c"
grep -q "factorization: sub-nest" "$T/gemm.c" && ok "gemm_beast: factorized" || bad "gemm_beast's plan"
expect_status "dot" 0 "$SPACEC" dot "$T/small.space"
grep -q '^digraph' "$T/out" && ok "dot prints a digraph" || bad "dot"

# --- the cache: a corrupt entry is rebuilt, never trusted
outer_cache=${XDG_CACHE_HOME-}
export XDG_CACHE_HOME="$T/cache"
expect_status "count --jit=cc fills the cache" 0 "$SPACEC" count --jit=cc "$T/small.space"
so=$(ls "$T"/cache/spacec/*.so 2>/dev/null | head -n1)
[ -n "$so" ] && ok "cache entry written" || bad "no cache entry"
ls "$T"/cache/spacec/ | grep -q tmp && bad "temporary files left in the cache" || ok "no temporary files left"
if [ -n "$so" ]; then
	printf 'garbage' > "$so"
	expect_status "count with a corrupt cache entry" 0 "$SPACEC" count -v --jit=cc "$T/small.space"
	[ "$(cat "$T/out")" = 4 ] && ok "corrupt entry rebuilt: 4" || bad "corrupt entry: $(cat "$T/out")"
	grep -q "built with cc in" "$T/err" && ok "corrupt entry was recompiled" || bad "corrupt entry not recompiled: $(cat "$T/err")"
	expect_status "count from the cache" 0 "$SPACEC" count -v "$T/small.space"
	grep -q "cc (cached)" "$T/err" && ok "auto uses the cached build" || bad "auto did not use the cache: $(cat "$T/err")"
fi
expect_status "count --jit=tcc" 0 "$SPACEC" count -v --jit=tcc "$T/small.space"
grep -q "built with tcc" "$T/err" && ok "tcc back end" || bad "tcc back end: $(cat "$T/err")"
expect_status "list --format binary" 0 "$SPACEC" list --format binary "$T/small.space"
head -c 8 "$T/out" | grep -q SPRTBIN1 && ok "binary output has its magic" || bad "binary magic"
# Streamed where the enumerator bounds every column and the output can be
# patched afterwards: widths then come from the bounds (x < 1000: 2 bytes),
# not the values (all below 100: 1 byte), as they still do through a pipe
# or onto a file opened for appending (runtime/FORMAT.md).  All three hold
# the listed points.
printf 'x = range(1, 1000)\ny = [0, 1]\nrequire x < 100\n' > "$T/wide.space"
x_width() { # FILE: the width byte of the first column, named "x"
	python3 -c 'import sys
b = open(sys.argv[1], "rb").read()
o = 18 + int.from_bytes(b[16:18], "little") + 16
print(b[o + 4])' "$1"
}
"$SPACEC" list --format jsonl "$T/wide.space" > "$T/wide.jsonl"
"$SPACEC" list --format binary -o "$T/wide.bin" "$T/wide.space"
"$SPACEC" list --format binary "$T/wide.space" | cat > "$T/wide-pipe.bin"
: > "$T/wide-app.bin"
"$SPACEC" list --format binary "$T/wide.space" >> "$T/wide-app.bin"
[ "$(x_width "$T/wide.bin")" = 2 ] && ok "binary to a file: widths from the bounds" ||
	bad "binary to a file: x is $(x_width "$T/wide.bin") bytes wide, wanted 2"
[ "$(x_width "$T/wide-pipe.bin")" = 1 ] && ok "binary to a pipe: widths from the values" ||
	bad "binary to a pipe: x is $(x_width "$T/wide-pipe.bin") bytes wide, wanted 1"
[ "$(x_width "$T/wide-app.bin")" = 1 ] && ok "binary appended: widths from the values" ||
	bad "binary appended: x is $(x_width "$T/wide-app.bin") bytes wide, wanted 1"
for f in wide wide-pipe wide-app; do
	python3 "$top_srcdir/tests/par/bincheck.py" "$T/$f.bin" "$T/wide.jsonl" && ok "$f.bin holds the listed points" ||
		bad "$f.bin does not hold the listed points"
done
# A comprehension over constants (gaussian's block sizes) is bounded by
# computing it before the nest, so its rows stream too: widths from the
# values it can take (512: 2 bytes), not the ones listed (below 100).
printf 'x = [2**i for i in range(10)]\ny = [0, 1]\nrequire x < 100\n' > "$T/comp.space"
"$SPACEC" list --format jsonl --interpret "$T/comp.space" > "$T/comp.jsonl"
"$SPACEC" list --format binary -o "$T/comp.bin" "$T/comp.space"
[ "$(x_width "$T/comp.bin")" = 2 ] && ok "binary, a comprehension's column: streamed" ||
	bad "binary, a comprehension's column: x is $(x_width "$T/comp.bin") bytes wide, wanted 2 (streamed)"
python3 "$top_srcdir/tests/par/bincheck.py" --any-order "$T/comp.bin" "$T/comp.jsonl" &&
	ok "comp.bin holds the interpreter's points" || bad "comp.bin does not hold the interpreter's points"
# A conditional iterable (gemm_beast's `vec_mul = [0] if dim_vec == 1 else
# range(0, 2)`) is bounded by the hull of its branches: streamed, widths
# from the values either branch can give (999: 2 bytes).
printf 'x = [0] if w == 1 else range(0, 1000)\nw = [1, 2]\nrequire x < 100\n' > "$T/cond.space"
"$SPACEC" list --format jsonl --interpret "$T/cond.space" > "$T/cond.jsonl"
"$SPACEC" list --format binary -o "$T/cond.bin" "$T/cond.space"
[ "$(x_width "$T/cond.bin")" = 2 ] && ok "binary, a conditional iterable's column: streamed" ||
	bad "binary, a conditional iterable's column: x is $(x_width "$T/cond.bin") bytes wide, wanted 2 (streamed)"
python3 "$top_srcdir/tests/par/bincheck.py" --any-order "$T/cond.bin" "$T/cond.jsonl" &&
	ok "cond.bin holds the interpreter's points" || bad "cond.bin does not hold the interpreter's points"
# back to the suite's cache (never the user's: Makefile.am sets it)
if [ -n "$outer_cache" ]; then XDG_CACHE_HOME=$outer_cache; else unset XDG_CACHE_HOME; fi

# --- threads and shards: bad arguments are usage errors naming the option
for v in 0 -1 abc 2x 1025 "" " 2" 99999999999999999999; do
	expect_status "--threads '$v'" 2 "$SPACEC" count --threads "$v" "$T/small.space"
	grep -q -- "--threads needs a number from 1 to 1024" "$T/err" && ok "--threads '$v' message" ||
		{ bad "--threads '$v' message"; cat "$T/err"; }
done
for v in 3/3 4/3 1 1/ /2 a/b -1/3 1/0 0/0 1/2/3 "0 /2" 0/1048577; do
	expect_status "--shard '$v'" 2 "$SPACEC" count --shard "$v" "$T/small.space"
	grep -q -- "--shard needs I/N with 0 <= I < N" "$T/err" && ok "--shard '$v' message" ||
		{ bad "--shard '$v' message"; cat "$T/err"; }
done
expect_status "--shard with --interpret" 2 "$SPACEC" count --interpret --shard 0/2 "$T/small.space"
expect_status "--threads without a value" 2 "$SPACEC" count "$T/small.space" --threads
# 4 points (see above) in two shards, on 3 threads, in either option order
"$SPACEC" count --threads 3 --shard 0/2 "$T/small.space" > "$T/s0" 2>"$T/err" &&
	"$SPACEC" count --shard=1/2 --threads=3 "$T/small.space" > "$T/s1" 2>>"$T/err" &&
	[ $(($(cat "$T/s0") + $(cat "$T/s1"))) -eq 4 ] && ok "two shards add up to 4" ||
	{ bad "two shards: $(cat "$T/s0" "$T/s1" "$T/err")"; }
"$SPACEC" list --threads 3 --ordered "$T/small.space" > "$T/o3" && "$SPACEC" list --threads 1 "$T/small.space" > "$T/o1" &&
	cmp -s "$T/o1" "$T/o3" && ok "--ordered lists as one thread does" || bad "--ordered"
# list -o: a regular file is replaced atomically; a FIFO (like /dev/null) is
# written in place and must survive (renaming over it would destroy it)
# (--ordered: the default order of a threaded run may differ between runs)
"$SPACEC" list --ordered -o "$T/listed.csv" "$T/small.space" && "$SPACEC" list --ordered "$T/small.space" > "$T/listed2.csv" &&
	cmp -s "$T/listed.csv" "$T/listed2.csv" && ok "list -o FILE" || bad "list -o FILE"
mkfifo "$T/fifo" && { cat "$T/fifo" > "$T/from_fifo" & reader=$!; } &&
	"$SPACEC" list --ordered -o "$T/fifo" "$T/small.space" && wait "$reader" && [ -p "$T/fifo" ] &&
	cmp -s "$T/from_fifo" "$T/listed2.csv" && ok "list -o FIFO writes through and keeps the FIFO" ||
	bad "list -o FIFO"
"$SPACEC" count -v "$T/small.space" 2> "$T/err" > /dev/null &&
	grep -q "enumerated in [0-9.]* s (4 valid points)" "$T/err" && ok "count -v prints the enumeration time" ||
	bad "count -v: $(cat "$T/err")"
expect_status "count -v --interpret" 0 "$SPACEC" count -v --interpret "$T/small.space"
grep -q "interpreted in [0-9.]* s (4 valid points" "$T/err" && ok "count -v --interpret prints the times" ||
	bad "count -v --interpret: $(cat "$T/err")"
# the standalone enumerator (spacec emit's file has a main) takes the same options
CC=${CC:-cc}
if $CC -std=c11 -I"$top_srcdir/runtime" "$T/small.c" "$top_srcdir"/runtime/*.c -o "$T/small" \
	-lm -pthread 2>"$T/err"; then
	"$T/small" list --ordered -o "$T/standalone.csv" -v 2>"$T/err" &&
		cmp -s "$T/standalone.csv" "$T/listed2.csv" && ok "enumerator list -o FILE" ||
		bad "enumerator list -o FILE: $(cat "$T/err")"
	grep -q "enumerated in [0-9.]* s (4 valid points)" "$T/err" && ok "enumerator -v" ||
		bad "enumerator -v: $(cat "$T/err")"
	$CC -std=c11 -DSPACEC_NO_MAIN -I"$top_srcdir/runtime" -c "$T/small.c" -o "$T/small.o" &&
		! nm "$T/small.o" | grep -q ' T main$' && nm "$T/small.o" | grep -q ' [RD] spacec_space$' &&
		ok "-DSPACEC_NO_MAIN leaves only the descriptor" ||
		bad "-DSPACEC_NO_MAIN: $(nm "$T/small.o" | grep -e main -e spacec_space)"
	expect_status "enumerator --threads 2 --shard 1/2" 0 "$T/small" count --threads 2 --shard 1/2
	expect_status "enumerator --threads 0" 2 "$T/small" count --threads 0
	expect_status "enumerator --shard 2/2" 2 "$T/small" count --shard 2/2
	grep -q "Try 'small --help'" "$T/err" && ok "enumerator names itself" || bad "enumerator usage: $(cat "$T/err")"
	"$T/small" --help > "$T/out" && grep -q -- "--shard I/N" "$T/out" && ok "enumerator --help lists --shard" ||
		bad "enumerator --help"
else
	bad "standalone enumerator does not build: $(head -3 "$T/err")"
fi

# --- progress: a status line with an ETA on a terminal, never elsewhere.
# A space far too large to finish (10^12 candidates) runs until its line
# shows (after one second) or 30 seconds pass: a fixed short limit failed
# on a loaded CI machine, where start-up alone can take seconds.
printf 'a = range(0, 1000000)\nb = range(0, 1000000)\nrequire (a + b) %% 1000003 == 1\n' > "$T/huge.space"
until_seen() { # PATTERN FILE cmd...: run cmd (output to FILE) until FILE shows PATTERN
	pattern=$1 file=$2
	shift 2
	timeout 30 "$@" > "$file" 2>&1 &
	watched=$!
	i=0
	while [ $i -lt 300 ] && kill -0 $watched 2>/dev/null; do
		tr '\r' '\n' < "$file" | grep -q "$pattern" && break
		sleep 0.1
		i=$((i + 1))
	done
	kill $watched 2>/dev/null
	wait $watched 2>/dev/null
	tr '\r' '\n' < "$file" | grep -q "$pattern"
}
# Progress is automatic only on a terminal and outside CI (a CI log is no
# terminal even when a pty is handed out), so these runs unset CI.
# script(1) needs a pseudo-terminal; a container without /dev/pts gives it
# none, and then there is no terminal to test, so probe for one first.
has_tty=no
if command -v script >/dev/null 2>&1 &&
	timeout 10 script -qefc 'test -t 2 && echo on-a-terminal' /dev/null 2>/dev/null | grep -q on-a-terminal; then
	has_tty=yes
fi
if [ "$has_tty" = yes ]; then
	# (one thread: a planning walk of the thread pool is not drawn)
	for mode in --interpret "--jit=tcc --threads 1"; do
		until_seen "candidates.*ETA [0-9]*:[0-9][0-9]:[0-9][0-9]" "$T/tty" \
			env -u CI script -qefc "'$SPACEC' count $mode '$T/huge.space'" /dev/null &&
			ok "count $mode on a terminal shows progress with an ETA" ||
			bad "count $mode on a terminal: no progress line: $(tr '\r' '\n' < "$T/tty" | tail -n 3)"
		# Long enough for a line to have shown: the run with progress above
		# showed one within this time.
		timeout 4 env -u CI script -qefc "'$SPACEC' count --no-progress $mode '$T/huge.space'" /dev/null > "$T/tty" 2>&1
		grep -q "candidates" "$T/tty" && bad "count --no-progress $mode: $(tr '\r' '\n' < "$T/tty" | tail -n 2)" ||
			ok "count --no-progress $mode shows none on a terminal"
	done
	timeout 4 env CI=1 script -qefc "'$SPACEC' count --interpret '$T/huge.space'" /dev/null > "$T/tty" 2>&1
	grep -q "candidates" "$T/tty" && bad "CI=1 on a terminal still shows progress" ||
		ok "CI=1 on a terminal shows no progress"
else
	echo "(no terminal from script(1) here: the terminal checks are left out)"
fi
timeout 3 "$SPACEC" count --interpret "$T/huge.space" > /dev/null 2> "$T/err"
[ ! -s "$T/err" ] && ok "no progress when stderr is not a terminal" || bad "progress in a file: $(head -c 200 "$T/err")"
until_seen "interpreting: .*candidates" "$T/err" "$SPACEC" count --progress --interpret "$T/huge.space" &&
	ok "--progress forces it" || bad "--progress: $(head -c 200 "$T/err")"

# --- errors that teach (issue 18, section 4)
cat > "$T/teach.space" <<'EOF'
device max_threads = 1024
setting prec = "single"
setting scale = 1.5
b = [16, 32, 64]
require b <= max_threads
EOF
expect_status "--set int=abc" 1 "$SPACEC" count --set max_threads=abc "$T/teach.space"
grep -q "teach.space:1:8: error: --set max_threads=abc gives 'max_threads' a string, but it holds an int" "$T/err" &&
	ok "--set of the wrong type names the option at the definition" || bad "--set int=abc: $(cat "$T/err")"
for m in --interpret --jit=tcc; do
	expect_status "--set str=32 $m" 1 "$SPACEC" count $m --set prec=32 "$T/teach.space"
	grep -q "quote it to make a string: --set 'prec=\"32\"'" "$T/err" && ok "--set str=32 says how to quote" ||
		bad "--set str=32: $(cat "$T/err")"
	expect_status "--set float=2 $m" 0 "$SPACEC" count $m --set scale=2 "$T/teach.space"
	expect_status "--set float=abc $m" 1 "$SPACEC" count $m --set scale=abc "$T/teach.space"
done
expect_status "--set a list of values" 1 "$SPACEC" count --set max_threads=1024,2048 "$T/teach.space"
grep -q "note: spacec enumerates one problem at a time: run it once per value ('spacetune run --set max_threads=1024,2048'" "$T/err" &&
	ok "a --set list says spacec takes one problem, spacetune several" || bad "--set list: $(cat "$T/err")"
cat > "$T/fails.space" <<'EOF'
setting zero = 0
b = [16, 32, 64]
d = b // zero
require d > 1
EOF
for m in --interpret --jit=tcc; do
	expect_status "every point a domain error ($m)" 0 "$SPACEC" count $m "$T/fails.space"
	grep -q "fails.space:3.*warning: every evaluation of 'd' failed with a domain error (3 times.*\[-Wdomain-errors\]" "$T/err" &&
		ok "$m: a definition that always fails is named" || bad "$m: no domain-error warning: $(cat "$T/err")"
	"$SPACEC" count $m -w "$T/fails.space" 2> "$T/err" > /dev/null
	[ ! -s "$T/err" ] && ok "$m: -w silences it" || bad "$m -w: $(cat "$T/err")"
	"$SPACEC" count $m -Wno-domain-errors "$T/fails.space" 2> "$T/err" > /dev/null
	[ ! -s "$T/err" ] && ok "$m: -Wno-domain-errors silences it" || bad "$m -Wno-domain-errors: $(cat "$T/err")"
	"$SPACEC" count $m --set zero=2 "$T/fails.space" 2> "$T/err" > /dev/null
	[ ! -s "$T/err" ] && ok "$m: no warning when points pass" || bad "$m --set zero=2: $(cat "$T/err")"
done
cat > "$T/warns.space" <<'EOF'
x = range(3)
u = 5
require 1 > 0
@hard
def h(x, u):
    return x > 1
EOF
expect_status "-Werror" 1 "$SPACEC" check -Werror "$T/warns.space"
for w in unused-parameter constant-constraint unused; do
	grep -q "error: .*\[-Werror=$w\]" "$T/err" && ok "-Werror reports -W$w as [-Werror=$w]" ||
		bad "-Werror: no [-Werror=$w]: $(cat "$T/err")"
done
expect_status "-Wno-unknown" 0 "$SPACEC" check -Wno-unusd "$T/warns.space"
grep -q "spacec: warning: unknown warning '-Wno-unusd'; the warnings are unused," "$T/err" &&
	ok "an unknown -Wno-NAME is a warning that lists the names" || bad "-Wno-unusd: $(cat "$T/err")"
cat > "$T/order.space" <<'EOF'
device lim = 8
require hard small = lim > 2
a = range(1, 5)
b = range(a, 6)
require b % a == 0
c = a * b
require c <= lim * 2
EOF
for m in --interpret --jit=tcc; do
	"$SPACEC" stats -w $m "$T/order.space" > "$T/stats"
	grep -q "^rows in loop order, outermost first$" "$T/stats" && ok "$m: stats says its order" ||
		bad "$m: stats has no order line: $(head -2 "$T/stats")"
	# the level column: "once" first, then 0, 1, ... never decreasing
	awk '/^rows in|^definition/ { next } NF == 0 { exit } { l = ($(NF - 4) == "once") ? -1 : $(NF - 4);
	     if (l < last) { print "out of order: " $0; bad = 1 } last = l } END { exit bad }' last=-1 "$T/stats" &&
		ok "$m: stats rows follow the loop levels" || bad "$m: stats rows out of loop order: $(cat "$T/stats")"
done

echo "$pass passed, $fail failed"
# Again at the end, where a log cut to its tail still shows them.
[ -n "$failed" ] && echo "failed:$failed"
[ "$fail" -eq 0 ]
