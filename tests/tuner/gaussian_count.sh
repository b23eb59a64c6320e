#!/bin/sh
# The count of spaces/gaussian.space against Python counts written from
# the space's definition (the ICPP'25 paper's Gaussian convolution: KTT's
# ATF sample with 13 powers of two per block size and Kernel Tuner's
# work-group limit), not from spacec: the paper's 149,281,440 at 4096,
# and smaller inputs and limits where the limit cuts more.  The Python
# count enumerates each dimension's (L_CB, P_CB, NUM_WG, NUM_WI) tuples,
# pairs them under the limit and multiplies by the small parameters'
# valid combinations; on the smallest space a plain product of every
# parameter checks that factorisation too.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
SP=$(cd "$top_srcdir" && pwd)/spaces/gaussian.space

cat >"$T/count.py" <<'PY'
import itertools, sys
# count.py N1 N2 LIMIT [brute]
n1, n2, limit = (int(x) for x in sys.argv[1:4])
def sizes(n):
    return [2 ** i for i in range(13) if 2 ** i <= n]
def dim_ok(n, lcb, pcb, wg, wi):
    return (n % lcb == 0 and lcb % pcb == 0 and (n // lcb) % wg == 0 and (lcb // pcb) % wi == 0
            and wi <= (n + wg - 1) // wg)
small = [(cl, cp, g, l, p, o1, o2)
         for cl in (0, 1) for cp in (0, 1) for g in (2,) for l in (2, 1, 0) for p in (2, 1, 0)
         for o1 in (0, 1) for o2 in (0, 1) if g >= l >= p and o1 != o2]
if len(sys.argv) > 4:
    total = sum(1 for _ in small
                for t1 in itertools.product(sizes(n1), repeat=4) if dim_ok(n1, *t1)
                for t2 in itertools.product(sizes(n2), repeat=4) if dim_ok(n2, *t2)
                if t1[3] * t2[3] <= limit)
else:
    def by_wi(n):
        c = {}
        for t in itertools.product(sizes(n), repeat=4):
            if dim_ok(n, *t):
                c[t[3]] = c.get(t[3], 0) + 1
        return c
    c1, c2 = by_wi(n1), by_wi(n2)
    total = len(small) * sum(a * b for w1, a in c1.items() for w2, b in c2.items() if w1 * w2 <= limit)
print(total)
PY

# the paper's number, from its text
check "4096 x 4096 (the paper's space): Python counts 149,281,440" \
	test "$(python3 "$T/count.py" 4096 4096 1024)" -eq 149281440
check "... and spacec too" test "$("$SPACEC" count "$SP")" -eq 149281440
for c in "4096 4096 256" "4096 4096 100000000" "64 32 16" "256 16 8"; do
	set -- $c
	want=$(python3 "$T/count.py" $1 $2 $3)
	got=$("$SPACEC" count "$SP" --set N1=$1 --set N2=$2 --set max_work_group_size=$3)
	check "N1=$1 N2=$2 limit $3: spacec $got = Python $want" test "$got" = "$want"
done
want=$(python3 "$T/count.py" 8 4 4 brute)
check "N1=8 N2=4 limit 4: the plain product ($want) = the factorised count" \
	test "$want" = "$(python3 "$T/count.py" 8 4 4)"
check "... = spacec's interpreter" \
	test "$("$SPACEC" count --interpret "$SP" --set N1=8 --set N2=4 --set max_work_group_size=4)" = "$want"
finish
