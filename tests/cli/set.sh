#!/bin/sh
# One rule for --set NAME=VALUE at every front door (docs/LANGUAGE.md,
# "Binding values"): spacec's compiled path and interpreter, a standalone
# enumerator's sprt_main, spacetune run and variant, and a batch file's
# set lines.  The table below is the oracle, written from the documented
# rule (Python's int() and float(), True/False, else a string), not from
# the code: each value is accepted with the JSON value given, or rejected
# by every door.  The located type errors below also reach a program that
# binds and calls sprt_run itself (tests/cli/direct_run.c).
lsan_outer=${LSAN_OPTIONS-}
. "${top_srcdir:-.}/tests/tuner/lib.sh"   # SPACEC, SPACETUNE, $T, ok, bad, finish
# No OpenCL device is opened here: lib.sh's LeakSanitizer settings for
# PoCL (use_tls=0) would report the JIT's dlopen as a leak.  Any output on
# stderr fails a check below, a sanitizer's report included.
if [ -n "$lsan_outer" ]; then LSAN_OPTIONS=$lsan_outer; else unset LSAN_OPTIONS; fi
CC=${CC:-cc}

# VALUE|the JSON of what s holds, or REJECT
cat > "$T/table" <<'EOF'
5|5
-0x1F|-31
+7|7
9223372036854775807|9223372036854775807
9223372036854775808|9.223372036854776e+18
1.5|1.5
1e3|1000.0
True|true
false|false
TRUE|"TRUE"
double|"double"
'5'|"5"
"x y"|"x y"
''|""
1.2.3|"1.2.3"
0x|"0x"
a=b|"a=b"
 5|" 5"
|REJECT
EOF
# whole arguments whose NAME breaks the rule
printf '%s\n' '=5' 's' '9s=1' 'a-b=1' ' s=1' 's s=1' > "$T/bad_names"

cp "$TD/vadd.cl" "$T/"
cat > "$T/s.space" <<'EOF'
"""--set at every front door"""
setting s = None
v = [s]
tune:
    kernel vadd from "vadd.cl"
    define WPT = 1
    define UNROLL = 0
    global [8]
    local [1]
    arg int 8
    arg in float a[8] = random(1)
    arg in float b[8] = random(2)
    arg inout float c[8] = random(3)
    arg float 0.5
EOF
"$SPACEC" emit "$T/s.space" -o "$T/s.c" &&
	$CC -std=c11 -I"$top_srcdir/runtime" "$T/s.c" "$top_srcdir"/runtime/*.c -o "$T/enum" -lm -pthread ||
	{ bad "building the standalone enumerator"; exit 1; }
: > "$T/empty.jsonl"

# door NAME ARG: runs one front door with --set ARG; prints the JSON of v
# (or nothing) on stdout; its status is the door's.
door() {
	case $1 in
	compiled) "$SPACEC" list --format jsonl "$T/s.space" --set "$2" | sed 's/^{"v": \(.*\)}$/\1/' ;;
	interp) "$SPACEC" list --interpret --format jsonl "$T/s.space" --set "$2" | sed 's/^{"v": \(.*\)}$/\1/' ;;
	enum) "$T/enum" list --format jsonl --set "$2" | sed 's/^{"v": \(.*\)}$/\1/' ;;
	variant) "$SPACETUNE" variant "$T/s.space" --set "$2" | sed -n '1s/^.*: v=\(.*\)$/\1/p' ;;
	esac
}
# the status a pipeline's first command had (POSIX sh has no pipefail)
run_door() { # door arg -> $T/got, $T/err, status in $st
	{ door "$1" "$2" 2>"$T/err"; echo "$?" > "$T/st"; } > "$T/got"
	st=0
	grep -q . "$T/err" && st=1
	[ -s "$T/got" ] || st=1
}

while IFS='|' read -r value want; do
	for d in compiled interp enum variant; do
		run_door "$d" "s=$value"
		got=$(cat "$T/got")
		if [ "$want" = REJECT ]; then
			[ "$st" -ne 0 ] && grep -q -- "--set" "$T/err" && ok "$d rejects s=$value" ||
				bad "$d: s=$value accepted as '$got'"
		elif [ "$d" = variant ] && grep -q "define 'v' has a blank or a quote" "$T/err"; then
			# bound, then refused by the tune section: a blank cannot be a -D value
			case $want in *' '*) ok "variant binds s=$value (no define can hold it)" ;;
			*) bad "variant: s=$value: $(cat "$T/err")" ;; esac
		else
			[ "$st" -eq 0 ] && [ "$got" = "$want" ] && ok "$d: s=$value is $want" ||
				bad "$d: s=$value is '$got', wanted $want; $(cat "$T/err")"
		fi
	done
	# spacetune run: the job loads (the replay has no record for it, exit
	# 1) or the value is refused as a usage error (exit 2).  A comma in a
	# run's value makes a list of problems, the one extension of run.
	"$SPACETUNE" run "$T/s.space" --set "s=$value" --replay "$T/empty.jsonl" >/dev/null 2>"$T/err"
	st=$?
	if [ "$want" = REJECT ]; then
		[ "$st" -eq 2 ] && grep -q -- "--set" "$T/err" && ok "run rejects s=$value" ||
			bad "run: s=$value: exit $st; $(cat "$T/err")"
	elif grep -q "define 'v' has a blank or a quote" "$T/err"; then
		case $want in *' '*) ok "run binds s=$value (no define can hold it)" ;;
		*) bad "run: s=$value: $(cat "$T/err")" ;; esac
	else
		[ "$st" -eq 1 ] && grep -q "no records of space 's'" "$T/err" && ok "run accepts s=$value" ||
			bad "run: s=$value: exit $st; $(cat "$T/err")"
	fi
done < "$T/table"

while IFS= read -r arg; do
	for d in compiled enum variant; do
		run_door "$d" "$arg"
		[ "$st" -ne 0 ] && grep -q -- "--set" "$T/err" && ok "$d rejects '$arg'" || bad "$d: '$arg' accepted"
	done
	"$SPACETUNE" run "$T/s.space" --set "$arg" --replay "$T/empty.jsonl" >/dev/null 2>"$T/err"
	[ $? -eq 2 ] && grep -q -- "--set" "$T/err" && ok "run rejects '$arg'" || bad "run: '$arg' not a usage error"
done < "$T/bad_names"

# A value that fits no type of the definition's default is refused by
# every door with a located error at the definition and exit status 1
# (LANGUAGE.md, "Binding values").  The oracle is the type t.space
# declares (the table's third column, written from the file) and the
# place of the name there, found by grep, not by the tools.
sed -e 's/^setting s = None$/device n = 10\
setting f = 1.5\
setting on = True\
setting name = "x"/' -e 's/^v = \[s\]$/v = [n]/' "$T/s.space" > "$T/t.space"
"$SPACEC" emit "$T/t.space" -o "$T/t.c" &&
	$CC -std=c11 -I"$top_srcdir/runtime" "$T/t.c" "$top_srcdir"/runtime/*.c -o "$T/tenum" -lm -pthread ||
	{ bad "building the typed enumerator"; exit 1; }
# a program of its own that binds and calls sprt_run (no sprt_main)
$CC -std=c11 -DSPACEC_NO_MAIN -I"$top_srcdir/runtime" "$T/t.c" "$top_srcdir/tests/cli/direct_run.c" \
	"$top_srcdir"/runtime/*.c -o "$T/direct" -lm -pthread || { bad "building direct_run.c"; exit 1; }
# NAME|VALUE|the type t.space declares|fits
cat > "$T/types" <<'EOF'
n|12|int|yes
n|-0x1F|int|yes
n|12.5|int|no
n|1e3|int|no
n|"s"|int|no
n|True|int|no
f|2|float|yes
f|2.5|float|yes
f|abc|float|no
f|False|float|no
on|False|bool|yes
on|1|bool|no
on|yes|bool|no
name|abc|str|yes
name|"32"|str|yes
name|32|str|no
name|1.5|str|no
EOF
# where NAME is declared: LINE:COL of the name after "device " or "setting "
place() {
	line=$(grep -n -E "^(device|setting) $1 =" "$T/t.space" | cut -d: -f1)
	kw=$(sed -n "${line}p" "$T/t.space" | cut -d' ' -f1)
	echo "$line:$((${#kw} + 2))"
}
tdoor() { # door NAME=VALUE: status in $st, stderr in $T/err
	case $1 in
	compiled) "$SPACEC" count "$T/t.space" --set "$2" ;;
	interp) "$SPACEC" count --interpret "$T/t.space" --set "$2" ;;
	enum) "$T/tenum" count --set "$2" ;;
	direct) "$T/direct" "$2" ;;
	access) "$T/direct" --access "$2" ;;
	variant) "$SPACETUNE" variant "$T/t.space" --set "$2" ;;
	run) "$SPACETUNE" run "$T/t.space" --set "$2" --replay "$T/empty.jsonl" ;;
	esac > /dev/null 2> "$T/err"
	st=$?
}
while IFS='|' read -r name value type fits; do
	where="t.space:$(place "$name"): error: --set $name="
	for d in compiled interp enum direct access variant run; do
		tdoor "$d" "$name=$value"
		if [ "$fits" = no ]; then
			[ "$st" -eq 1 ] && grep -q "$where.* but it holds" "$T/err" &&
				ok "$d refuses $name=$value for a $type at $where" ||
				bad "$d: $name=$value ($type): exit $st; $(cat "$T/err")"
		elif [ "$d" = run ]; then
			[ "$st" -eq 1 ] && grep -q "no records of space 't'" "$T/err" &&
				ok "run takes $name=$value for a $type" || bad "run: $name=$value ($type): exit $st; $(cat "$T/err")"
		else
			[ "$st" -eq 0 ] && ! grep -q . "$T/err" && ok "$d takes $name=$value for a $type" ||
				bad "$d: $name=$value ($type): exit $st; $(cat "$T/err")"
		fi
	done
done < "$T/types"
# the source line quoted with a caret under the name
"$T/tenum" count --set n=12.5 2> "$T/err" > /dev/null
grep -qxF "    $(place n | cut -d: -f1) | $(grep '^device n =' "$T/t.space")" "$T/err" &&
	grep -qx '      |        ^' "$T/err" &&
	ok "enum: the error quotes the line with a caret" || bad "enum: no quote or caret: $(cat "$T/err")"
# a device profile's value, by the same rule
printf '{"f": "abc"}\n' > "$T/p.json"
for d in enum compiled; do
	case $d in
	enum) "$T/tenum" count --device-profile "$T/p.json" ;;
	compiled) "$SPACEC" count --device-profile "$T/p.json" "$T/t.space" ;;
	esac > /dev/null 2> "$T/err"
	[ $? -eq 1 ] && grep -q "t.space:$(place f): error: --device-profile '.*p.json' gives 'f' a string" "$T/err" &&
		ok "$d refuses a profile's string for a float" || bad "$d: profile: $(cat "$T/err")"
done
# a batch problem's set line, by the same rule (--shard loads each
# problem, for its cost, without opening a device)
printf 'problem "t.space"\n    set n = 12.5\n' > "$T/type.batch"
"$SPACETUNE" batch "$T/type.batch" --list --shard 0/1 > /dev/null 2> "$T/err"
st=$?
[ $st -eq 1 ] && grep -q "t.space:$(place n): error: --set n=12.5 gives 'n' a float" "$T/err" &&
	ok "batch refuses a set value of the wrong type" || bad "batch: exit $st; $(cat "$T/err")"

# A batch file's set line: a bare word or a double-quoted string per
# value (TUNING.md), each then taken as --set NAME=VALUE takes it.
printf 'problem "s.space"\n    set s = 5, 1e3, double, "x y", a=b\n' > "$T/ok.batch"
printf 's.space s=5\ns.space s=1e3\ns.space s=double\ns.space s="x y"\ns.space s=a=b\n' > "$T/ok.want"
"$SPACETUNE" batch "$T/ok.batch" --list 2>"$T/err" | cut -f1 > "$T/ok.got" &&
	cmp -s "$T/ok.want" "$T/ok.got" && ok "batch: set values as --set takes them" ||
	bad "batch: $(cat "$T/ok.got" "$T/err")"
printf 'problem "s.space"\n    set s = \377\n' > "$T/bad.batch"
"$SPACETUNE" batch "$T/bad.batch" --list >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "bad.batch:2:13: error: --set s: the value is not valid UTF-8" "$T/err" &&
	ok "batch: a value --set refuses is a located error" || bad "batch: $(cat "$T/err")"

finish
