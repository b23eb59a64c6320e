#!/bin/sh
# Random access (sample, rank, unrank; runtime/access.c) against the
# listing: unrank(i) is the i-th row of `list --ordered` and rank gives i
# back, on shipped spaces at -O2, -O0 and without factorization; every
# sampled point is a point of the reference interpreter's listing; a
# sample without replacement of the whole space is a permutation of it;
# and a chi-squared test finds `sample --replace` uniform on small spaces,
# while the same test rejects two biased samples built from it (one point
# drawn 10% too often; the last point never drawn), so it can fail.
set -u
SPACEC=${SPACEC:-./spacec}
top_srcdir=${top_srcdir:-.}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
S=$top_srcdir/spaces
G=$top_srcdir/tests/golden/cgen

# roundtrip NAME FILE STEP [options]: every STEP-th index
roundtrip() {
	name=$1 file=$2 step=$3
	shift 3
	"$SPACEC" list --ordered "$@" "$file" | tail -n +2 > "$T/list" || { bad "$name: list"; return; }
	n=$(wc -l < "$T/list")
	idx=$(awk -v n="$n" -v s="$step" 'BEGIN { for (i = 0; i < n; i += s) printf "%d ", i; if ((n - 1) % s) printf "%d", n - 1 }')
	# shellcheck disable=SC2086
	"$SPACEC" unrank "$@" "$file" $idx | tail -n +2 > "$T/un" || { bad "$name: unrank"; return; }
	awk -v s="$step" -v n="$n" 'NR == FNR { want[NR - 1] = $0; next }
		{ i = (FNR - 1) * s; if (i >= n) i = n - 1; if ($0 != want[i]) { print "index " i ": " $0 " != " want[i]; bad = 1; exit } }
		END { exit bad }' "$T/list" "$T/un" > "$T/why" && [ "$(wc -l < "$T/un")" -ge 1 ] \
		&& ok "$name: unrank = list --ordered ($n points, every ${step}th)" || bad "$name: unrank: $(cat "$T/why")"
	# rank of the same rows, given as list writes them (a row listed twice,
	# as a list iterator with a repeated value gives, ranks as the first)
	tr '\n' '\0' < "$T/un" | xargs -0 "$SPACEC" rank "$@" "$file" > "$T/rk" || { bad "$name: rank"; return; }
	awk 'NR == FNR { if (!($0 in first)) first[$0] = NR - 1; next } { print first[$0] }' "$T/list" "$T/un" > "$T/want_first"
	cmp -s "$T/rk" "$T/want_first" && ok "$name: rank(unrank(i)) = i" || bad "$name: rank(unrank(i)) != i"
}

roundtrip conv2d_cltune "$S/conv2d_cltune.space" 7
roundtrip conv2d_cltune-O0 "$S/conv2d_cltune.space" 7 -O0
roundtrip conv2d_cltune-nofac "$S/conv2d_cltune.space" 7 -fno-factorization
roundtrip gemm "$S/gemm.space" 997
roundtrip synthetic_sparse "$S/synthetic_sparse.space" 331
roundtrip basic "$G/basic.space" 1
roundtrip algebra "$G/algebra.space" 1
roundtrip opt "$G/opt.space" 53
roundtrip kernel_tuner "$S/examples/kernel_tuner.space" 1
roundtrip conditions "$S/examples/conditions.space" 3
roundtrip closures "$S/examples/closures.space" 1
roundtrip gaussian-small "$S/gaussian.space" 101 --set N1=8 --set N2=16

# Every sampled point is one of the interpreter's.
for f in "$S/conv2d_cltune.space" "$S/gemm.space" "$S/synthetic_sparse.space" "$S/examples/kernel_tuner.space"; do
	b=$(basename "$f" .space)
	"$SPACEC" list --interpret "$f" | tail -n +2 | sort > "$T/ilist"
	"$SPACEC" sample -n 300 --seed 11 "$f" | tail -n +2 | sort > "$T/smp"
	[ "$(wc -l < "$T/smp")" -eq 300 ] && [ -z "$(comm -23 "$T/smp" "$T/ilist")" ] \
		&& ok "$b: 300 sampled points are the interpreter's" || bad "$b: a sampled point is not the interpreter's"
	[ "$(uniq -d "$T/smp" | wc -l)" -eq 0 ] && ok "$b: without --replace, distinct" || bad "$b: repeats"
done

# The whole space, without replacement: a permutation of the listing.
f=$S/examples/conditions.space
n=$("$SPACEC" count "$f")
"$SPACEC" sample -n "$n" --seed 3 "$f" | tail -n +2 | sort > "$T/perm"
"$SPACEC" list "$f" | tail -n +2 | sort > "$T/all"
cmp -s "$T/perm" "$T/all" && ok "conditions: sample -n $n is a permutation" || bad "conditions: not a permutation"
"$SPACEC" sample -n $((n + 1)) "$f" > /dev/null 2>&1
[ $? -eq 1 ] && ok "sample -n count+1 without --replace fails" || bad "sample -n count+1 accepted"
"$SPACEC" sample -n 5 --seed 9 "$f" > "$T/a"; "$SPACEC" sample -n 5 --seed 9 "$f" > "$T/b"
cmp -s "$T/a" "$T/b" && ok "the same seed, the same sample" || bad "a seed is not reproducible"

# chi2 FILE_ALL FILE_SAMPLE: passes (exit 0) when the counts fit uniform at
# p = 0.001 (Wilson-Hilferty's approximation of the critical value).  A
# row listed m times (a repeated list value) is expected m times as often.
chi2() {
	awk 'NR == FNR { n++; m[$0]++; seen[$0] = 0; next }
	     { if (!($0 in seen)) { print "not a point: " $0; exit 2 } seen[$0]++; k++ }
	     END { for (p in seen) { e = k * m[p] / n; x += (seen[p] - e) ^ 2 / e; n_d++ }
		   n = n_d
		   df = n - 1; a = 2 / (9 * df); crit = df * (1 - a + 3.090 * sqrt(a)) ^ 3
		   printf "chi2 %.1f, critical %.1f (df %d, %d draws)\n", x, crit, df, k
		   exit x > crit }' "$1" "$2"
}
for f in "$S/examples/tables.space" "$S/examples/ranges.space" "$G/algebra.space"; do
	b=$(basename "$f" .space)
	"$SPACEC" list "$f" | tail -n +2 > "$T/all"
	n=$(wc -l < "$T/all")
	"$SPACEC" sample --replace -n $((n * 100)) --seed 42 "$f" | tail -n +2 > "$T/draws"
	r=$(chi2 "$T/all" "$T/draws") && ok "$b: uniform: $r" || bad "$b: not uniform: $r"
	# test of the test: the first point 10% too often
	first=$(head -1 "$T/all")
	awk -v f="$first" 'NR % 10 == 0 { print f; next } { print }' "$T/draws" > "$T/biased"
	r=$(chi2 "$T/all" "$T/biased") && bad "$b: a biased sample passed: $r" || ok "$b: biased sample rejected: $r"
	# an off-by-one: the last point never drawn (its draws go to the first)
	last=$(tail -1 "$T/all")
	awk -v f="$first" -v l="$last" '$0 == l { print f; next } { print }' "$T/draws" > "$T/biased"
	r=$(chi2 "$T/all" "$T/biased") && bad "$b: a sample missing a point passed: $r" || ok "$b: missing point rejected: $r"
done

# Errors.
"$SPACEC" unrank "$f" 999999 > /dev/null 2>&1
[ $? -eq 1 ] && ok "unrank past the end fails" || bad "unrank past the end"
"$SPACEC" rank "$f" "123456,1,1" > /dev/null 2>&1
[ $? -eq 1 ] && ok "rank of a non-point fails" || bad "rank of a non-point"
"$SPACEC" sample --interpret -n 3 "$f" > /dev/null 2>&1
[ $? -eq 2 ] && ok "sample --interpret is refused" || bad "sample --interpret"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
