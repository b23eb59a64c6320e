#!/bin/sh
# spacetune's job builds its enumerator specialized to the problem's
# bindings (tuner/job.c, load_enumerator): the settings and device
# parameters folded in as constants, as spacec count does.  Three problems
# of one space whose loops and constraints branch on a setting and a
# device parameter, each against an oracle that is not the compiled path:
# - a big one (6,991,200 points, reached by index, never listed): the
#   job's count against a count written here in Python from the space's
#   definition, and the points random proposes against that definition
#   (valid, distinct);
# - two small ones (listed): every point the job holds against the
#   reference interpreter's list (spacec list --interpret) and count.
# The three share one cc cache, where the C text (hence the key) holds the
# bound values: each problem adds an entry of its own and a rerun adds
# none.  An entry shared across values would give one problem another's
# count or points, which the oracles catch.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
BIG=$top_builddir/tests/tuner/bigsearch
cp "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
# vadd.space's tune section stands in (its kernel ignores our parameters)
{ cat <<'EOF'
"""Loops and constraints that branch on a setting and a device parameter."""
setting layout = "square"
device max_threads = 64
tx = range(1, max_threads + 1)
ty = range(1, max_threads + 1)
unroll = range(1, 33)

@iterator
def vec():
    if layout == "wide":
        return [1, 2, 4]
    return [1]

@hard
def too_many(tx, ty):
    if layout == "wide":
        return tx * ty > 4 * max_threads
    return tx * ty > max_threads

@hard
def misaligned(tx, vec):
    return tx % vec != 0

require unroll % 2 == 0 or layout == "wide"

setting N = 8192
WPT = 1
LOCAL = 1
UNROLL = 0
EOF
sed -n '/^tune:/,$p' "$TD/vadd.space"; } >"$T/bound.space"

# The space's definition again: bound.py LAYOUT MAX_THREADS [POINTS.csv]
# prints the count, or checks each point (exit 1 on an invalid or repeated
# one, printing it).
cat >"$T/bound.py" <<'PY'
import csv, sys
layout, m = sys.argv[1], int(sys.argv[2])
wide = layout == "wide"
limit = 4 * m if wide else m
vecs = [1, 2, 4] if wide else [1]
unrolls = [u for u in range(1, 33) if u % 2 == 0 or wide]
def valid(tx, ty, unroll, vec):
    return (1 <= tx <= m and 1 <= ty <= m and unroll in unrolls and vec in vecs
            and tx * ty <= limit and tx % vec == 0)
if len(sys.argv) < 4:
    print(sum(min(m, limit // tx) * sum(1 for v in vecs if tx % v == 0) for tx in range(1, m + 1))
          * len(unrolls))
    sys.exit(0)
seen = set()
for r in csv.DictReader(open(sys.argv[3])):
    p = tuple(int(float(r[k])) for k in ("tx", "ty", "unroll", "vec"))
    if not valid(*p) or p in seen:
        print("invalid or repeated:", r)
        sys.exit(1)
    seen.add(p)
print(len(seen))
PY

cache_entries() { ls "$XDG_CACHE_HOME/spacec" 2>/dev/null | grep -c '\.so$'; }
# a field of bigsearch's summary line (the last on stderr)
field() { tail -n 1 "$T/err" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# big LAYOUT MAX_THREADS: random's points against the definition
big() {
	label="layout=$1, max_threads=$2"
	count=$(python3 "$T/bound.py" "$1" "$2")
	expect_status "$label: the job loads and random proposes" 0 \
		"$BIG" "$T/bound.space" random 300 5 layout="\"$1\"" max_threads="$2"
	check "$label: the job counts $count points (Python: $count, got $(field points))" test "$(field points)" = "$count"
	check "$label: reached by index through the compiled enumerator ($(field enumerator))" \
		test "$(field enumerator)" = cc
	check "$label: 300 proposed points valid and distinct" \
		test "$(python3 "$T/bound.py" "$1" "$2" "$T/out" 2>&1)" = 300
}

# small LAYOUT MAX_THREADS: every point of the job against the interpreter's
small() {
	label="layout=$1, max_threads=$2"
	"$SPACEC" list -w --interpret --set layout="\"$1\"" --set max_threads="$2" "$T/bound.space" |
		sort >"$T/interp.csv"
	count=$(($(wc -l <"$T/interp.csv") - 1))
	check "$label: the interpreter's count is Python's" test "$count" = "$(python3 "$T/bound.py" "$1" "$2")"
	expect_status "$label: the job lists its points" 0 \
		"$BIG" "$T/bound.space" exhaustive 1000000 1 layout="\"$1\"" max_threads="$2"
	check "$label: the job counts $count points, as the interpreter does (got $(field points))" \
		test "$(field points)" = "$count"
	sort "$T/out" >"$T/job.csv"
	check "$label: the job's points are the interpreter's" cmp -s "$T/interp.csv" "$T/job.csv"
	check "$label: enumerated by tcc ($(field enumerator))" test "$(field enumerator)" = tcc
}

big wide 4096
n1=$(cache_entries)
small square 64
small wide 64
n3=$(cache_entries)
# --jit=auto's listing rule (tuner/job.c): the large problem's enumerator
# is cc's, cached; the small ones' are tcc's, built in memory
check "the large problem's enumerator cached, the small ones' not ($n1, then $n3 after two more)" \
	test "$n1" -eq 1 -a "$n3" -eq 1
small square 64
big wide 4096
check "a rerun adds none ($(cache_entries))" test "$(cache_entries)" -eq 1
finish
