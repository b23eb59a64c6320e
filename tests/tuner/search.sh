#!/bin/sh
# The model-based strategy (bo) through `spacetune run --replay`, on a
# database made here by Python over every point of conv2d's 3x3 space:
# a smooth cost of the parameters (a bowl in log2 of the sizes, with
# penalties) and a failing region.  Oracles: Python's minimum of the
# database, and a second run with the same seed.  bo must reach the
# optimum within 2% of the space for each of three seeds, where random
# search's chance is about 2% per seed; random search is run beside it
# with the same budget to show that the task is not trivial.  No OpenCL.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
SP=$(cd "$top_srcdir" && pwd)/spaces/conv2d.space
# the interpreter: the JIT leaks a dlopen under LeakSanitizer (as in replay.sh)
"$SPACEC" list --interpret "$SP" --set filter_size=3 >"$T/points.csv" || { echo "FAIL spacec list"; exit 1; }
python3 - "$T/points.csv" "$T/db.jsonl" <<'PY' || { echo "FAIL making the database"; exit 1; }
import csv, json, math, sys
from math import log2
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], 'w') as out:
    for row in rows:
        p = {k: int(v) for k, v in row.items()}
        bowl = ((log2(p['Xwg']) - 5) ** 2 + (log2(p['Ywg']) - 3) ** 2 +
                (log2(p['Xwpt']) - 1) ** 2 + (log2(p['Ywpt']) - 2) ** 2 +
                0.5 * (log2(p['VW']) - 2) ** 2 + 0.3 * abs(p['LOCAL'] - 1) +
                0.2 * p['PAD'] + 0.4 * (1 - p['UNR']) + 0.1 * p['FREG'] + 0.15 * p['SLIDE'])
        failed = p['Xwg'] * p['Xwpt'] >= 256 and p['LOCAL'] == 2
        ms = round(0.05 * math.exp(0.5 * bowl), 6)
        out.write(json.dumps({
            'v': 1, 'space': 'conv2d', 'kernel': 'conv2d', 'device': 'Replay GPU',
            'platform': 'Replay', 'driver': '1.0', 'source_hash': 'recorded',
            'problem': 'filter_size=3', 'objective': 'min:time', 'params': p,
            'status': 'build_error' if failed else 'ok', 'runs': 0 if failed else 10,
            'time_ms': None if failed else {'median': ms, 'min': ms},
            'build_s': 0.1, 'device_s': None if failed else 0.01,
            'error': 'CL_BUILD_PROGRAM_FAILURE' if failed else None}) + '\n')
ok = [json.loads(l) for l in open(sys.argv[2])]
print(min(r['time_ms']['median'] for r in ok if r['time_ms']), file=open(sys.argv[2] + '.min', 'w'))
PY
want=$(cat "$T/db.jsonl.min")
run() { "$SPACETUNE" run "$SP" --set filter_size=3 --no-progress --replay "$T/db.jsonl" --jobs 1 --budget 2% "$@"; }
random_hits=0
for seed in 1 2 3; do
	run --strategy bo --seed $seed --trace "$T/bo-$seed.csv" >"$T/bo-$seed.out" 2>"$T/bo-$seed.err"
	check "bo --seed $seed: exit 0" test $? -eq 0
	check "... no sanitizer reports" no_sanitizer_reports "$T/bo-$seed.err"
	check "... finds the optimum ($want ms) within 2% of the space" \
		grep -q "^best: $(printf '%.4g' "$want") ms" "$T/bo-$seed.out"
	check "... in $(($(wc -l <"$T/points.csv") * 2 / 100 + 1)) evaluations or fewer" \
		test "$(grep -c ',ok,\|,build_error,' "$T/bo-$seed.csv")" -le $(($(wc -l <"$T/points.csv") * 2 / 100 + 1))
	run --strategy random --seed $seed >"$T/r-$seed.out" 2>&1
	grep -q "^best: $(printf '%.4g' "$want") ms" "$T/r-$seed.out" && random_hits=$((random_hits + 1))
done
echo "random search found the optimum for $random_hits of 3 seeds"
run --strategy bo --seed 2 --trace "$T/bo-2b.csv" >/dev/null 2>&1
check "bo --seed 2 twice: identical traces" cmp -s "$T/bo-2.csv" "$T/bo-2b.csv"
run --strategy bo --seed 4 --trace "$T/bo-4.csv" >/dev/null 2>&1
check "... seed 4 differs" sh -c "! cmp -s '$T/bo-4.csv' '$T/bo-2.csv'"
# The default strategy (auto): bo under a budget smaller than the space,
# every point without one.
run --seed 2 --trace "$T/auto-2.csv" >/dev/null 2>&1
check "no --strategy under a 2% budget: bo's trace" cmp -s "$(tail -n +2 "$T/auto-2.csv" >"$T/a.t"; echo "$T/a.t")" \
	"$(tail -n +2 "$T/bo-2.csv" >"$T/b.t"; echo "$T/b.t")"
"$SPACETUNE" run "$SP" --set filter_size=3 --no-progress --replay "$T/db.jsonl" --jobs 1 \
	--trace "$T/all.csv" >/dev/null 2>&1
check "no --strategy and no budget: every point once" \
	test "$(tail -n +2 "$T/all.csv" | cut -d, -f3 | sort -u | wc -l)" -eq "$(wc -l <"$T/points.csv")"
finish
