#!/bin/sh
# spacetune run/batch --replay against a database made here by Python
# from `spacec list --interpret` (the reference interpreter; random times, some failures): the oracles are
# Python's own minimum, the clock's closed forms (one worker: the sum of
# build and device times; many workers, equal builds shorter than the
# device queue: one build plus the device times), the evaluations a time
# budget allows (the durations summed in the order the replay wrote
# them), and the trace of a second run with the same seed.  No OpenCL:
# a replay reads no device.
. "${top_srcdir:-.}/tests/tuner/lib.sh"

SP=$(cd "$top_srcdir" && pwd)/spaces/conv2d.space
"$SPACEC" list --interpret "$SP" --set filter_size=3 >"$T/points.csv" || { echo "FAIL spacec list"; exit 1; }


cat >"$T/oracle.py" <<'EOF'
import json, sys
# oracle.py best DB: the fastest ok record's params as "K=V ..." (spacetune's order)
# oracle.py clock1 DB: sum of build_s + device_s (one worker, every record)
# oracle.py budget DB REPLAYED SECONDS: evaluations a time budget allows with one worker
def load(path):
    recs = {}
    for line in open(path):
        r = json.loads(line)
        recs[json.dumps(r['params'], sort_keys=True)] = r
    return recs
def dur(r):
    return (r['build_s'] or 0) + (r['device_s'] or 0)
what = sys.argv[1]
recs = load(sys.argv[2])
if what == 'best':
    ok = [r for r in recs.values() if r['status'] == 'ok']
    b = min(ok, key=lambda r: r['time_ms']['median'])
    print(' '.join('%s=%s' % kv for kv in b['params'].items()), b['time_ms']['median'])
elif what == 'clock1':
    print('%.6f' % sum(dur(r) for r in recs.values()))
elif what == 'budget':
    order = [json.dumps(json.loads(l)['params'], sort_keys=True) for l in open(sys.argv[3])]
    seconds, t, n = float(sys.argv[4]), 0.0, 0
    for key in order:
        if t >= seconds:
            break
        n += 1
        t += dur(recs[key])
    print(n)
EOF

python3 "$TD/make_db.py" "$T/points.csv" "$T/db.jsonl" 11 || { echo "FAIL make_db"; exit 1; }
# A second problem and device in the same file must not be mixed in.
python3 "$TD/make_db.py" "$T/points.csv" "$T/db.jsonl" 12 --device "Other GPU" >/dev/null
sed 's/filter_size=3/filter_size=7/' "$T/db.jsonl" | head -50 >>"$T/db.jsonl"
run() { "$SPACETUNE" run "$SP" --set filter_size=3 --no-progress "$@"; }

expect_status "two devices need --device" 1 run --replay "$T/db.jsonl"
check "... and the message says so" grep -q "records of several devices.*--device" "$T/err"

# Exhaustive replay: Python's best, every configuration once, no file written.
SPT=$(cd "$(dirname "$SPACETUNE")" && pwd)/$(basename "$SPACETUNE")
(cd "$T" && "$SPT" run "$SP" --set filter_size=3 --no-progress --replay db.jsonl \
	--device replay --jobs 4 --trace ex.csv >ex.out 2>ex.err)
check "exhaustive replay exits 0" test $? -eq 0
grep '"Replay GPU"' "$T/db.jsonl" | grep '"filter_size=3"' >"$T/one.jsonl"
want=$(python3 "$T/oracle.py" best "$T/one.jsonl")
want_params=${want% *} want_ms=${want##* }
got_params=$(sed -n 's/^  //p' "$T/ex.out")
check "exhaustive replay finds Python's best ($want_params)" test "$got_params" = "$want_params"
check "... with its time" grep -q "^best: $(printf '%.4g' "$want_ms") ms" "$T/ex.out"
check "... every configuration once" test "$(grep -c ',ok,\|,build_error,\|,wrong_result,' "$T/ex.csv")" -eq "$(($(wc -l <"$T/points.csv") - 1))"
check "... nothing missing" sh -c "! grep -q '^missing' '$T/ex.out'"
check "... and no database written" test ! -e "$T/results.jsonl"

# The clock: one worker sums builds and device times.
run --replay "$T/one.jsonl" --jobs 1 --trace "$T/j1.csv" >"$T/j1.out" 2>"$T/j1.err"
want=$(python3 "$T/oracle.py" clock1 "$T/one.jsonl")
got=$(tail -1 "$T/j1.csv" | cut -d, -f2)
check "one worker: clock $got = sum of recorded times $want" \
	python3 -c "import sys; sys.exit(abs($got - $want) > 1e-6 * $want)"

# Many workers, builds 0.5 s, device 0.01 s: the device is the bottleneck
# from the first build on, so the clock is 0.5 + n * 0.01 (not 0.5 * n / 64).
python3 "$TD/make_db.py" "$T/points.csv" "$T/flat.jsonl" 3 0.5 0.01
grep -v build_error "$T/flat.jsonl" >"$T/flat2.jsonl"
run --replay "$T/flat2.jsonl" --jobs 64 --trace "$T/j64.csv" >"$T/j64.out" 2>"$T/j64.err"
n=$(grep -c ',ok,\|,wrong_result,' "$T/j64.csv")
got=$(tail -1 "$T/j64.csv" | cut -d, -f2)
check "64 workers: clock $got = 0.5 + $n x 0.01 (the device queue)" \
	python3 -c "import sys; sys.exit(abs($got - (0.5 + $n * 0.01)) > 1e-6)"
check "... and the $(grep -c build_error "$T/flat.jsonl") build errors left out reported missing" \
	grep -q "^missing: $(grep -c build_error "$T/flat.jsonl") configurations not in" "$T/j64.out"

# A time budget stops where the recorded run would have: evaluations are
# proposed while the clock is under it (the durations in replay order).
run --replay "$T/one.jsonl" --jobs 1 --budget 20s --strategy exhaustive --db "$T/b.jsonl" >"$T/b.out" 2>"$T/b.err"
want=$(python3 "$T/oracle.py" budget "$T/one.jsonl" "$T/b.jsonl" 20)
check "--budget 20s on one worker: $want evaluations" test "$(wc -l <"$T/b.jsonl")" -eq "$want"
check "... the written database has the replayed device" grep -q '"device":"Replay GPU"' "$T/b.jsonl"

# Determinism: the same seed twice gives the same trace; another seed not.
for s in 5 5 6; do
	run --replay "$T/one.jsonl" --jobs 8 --strategy random --budget 200 --seed $s \
		--trace "$T/r$s.csv" >/dev/null 2>&1
done
check "random --seed 5 twice: identical traces" test "$(head -n 202 "$T/r5.csv" | md5sum)" = "$(tail -n 202 "$T/r5.csv" | md5sum)"
check "... 200 evaluations each" test "$(wc -l <"$T/r5.csv")" -eq 404
check "... seed 6 differs" sh -c "! cmp -s '$T/r6.csv' '$T/r5.csv'"
for s in anneal genetic pso local; do
	run --replay "$T/one.jsonl" --strategy $s --budget 2% --seed 9 --trace "$T/$s-a.csv" >/dev/null 2>&1
	run --replay "$T/one.jsonl" --strategy $s --budget 2% --seed 9 --trace "$T/$s-b.csv" >/dev/null 2>&1
	check "$s --seed 9 twice: identical traces" cmp -s "$T/$s-a.csv" "$T/$s-b.csv"
done

# A configuration missing from the database is reported, never invented.
python3 "$TD/make_db.py" "$T/points.csv" "$T/hole.jsonl" 11 --drop 17
run --replay "$T/hole.jsonl" >"$T/h.out" 2>"$T/h.err"
check "missing configuration: exit 0" test $? -eq 0
check "... counted in the summary" grep -q '^missing: 1 configuration not in' "$T/h.out"
want=$(python3 -c "import csv, sys; r = list(csv.DictReader(open(sys.argv[1])))[17]; print(' '.join('%s=%s' % kv for kv in r.items()))" "$T/points.csv")
check "... listed with its parameters ($want)" grep -q "point [0-9]* $want" "$T/h.out"
check "... and warned about" grep -q 'warning: .*has no record of configuration' "$T/h.err"
check "... the status line has no invented result" grep -q "^status: ok $(grep -c '"ok"' "$T/hole.jsonl") " "$T/h.out"

# Nothing for the problem: an error, not an empty search.
expect_status "no records of the problem" 1 "$SPACETUNE" run "$SP" --set filter_size=11 --no-progress --replay "$T/one.jsonl"
check "... says so" grep -q "no records of space 'conv2d' for the problem (filter_size=11)" "$T/err"

# Compressed databases and directories of them.
mkdir "$T/dir" && cp "$T/one.jsonl" "$T/dir/a.jsonl" && xz -k "$T/dir/a.jsonl" && rm "$T/dir/a.jsonl"
run --replay "$T/dir" --jobs 4 --trace "$T/xz.csv" >"$T/xz.out" 2>"$T/xz.err"
check "a directory of .jsonl.xz replays like the file" cmp -s "$T/xz.csv" "$T/ex.csv"
printf 'not xz data\n' >"$T/bad.jsonl.xz"
expect_status "a damaged .xz file" 1 run --replay "$T/bad.jsonl.xz"
check "... is named in the error" grep -q "bad.jsonl.xz: not a readable .xz file" "$T/err"

# --replay-sleep waits the virtual clock out.
start=$(date +%s.%N)
run --replay "$T/one.jsonl" --jobs 1 --budget 4 --strategy exhaustive --replay-sleep --trace "$T/s.csv" >"$T/s.out" 2>&1
end=$(date +%s.%N)
virt=$(tail -1 "$T/s.csv" | cut -d, -f2)
check "--replay-sleep: wall $(python3 -c "print(round($end - $start, 2))") s >= virtual $virt s" \
	python3 -c "import sys; sys.exit(not $end - $start >= $virt)"

# --replay-recorded: a partial database (the records of LOCAL=0, and of
# every third point besides, as a device run cut short leaves) is the
# whole space; Python's set of the kept points is the oracle.
python3 - "$T/one.jsonl" "$T/part.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], 'w') as out:
    for i, line in enumerate(open(sys.argv[1])):
        if json.loads(line)['params']['LOCAL'] == 0 or i % 3 == 0:
            out.write(line)
PY
cat >"$T/inside.py" <<'EOF'
import json, sys
# inside.py PART.jsonl RUN.jsonl [all]: every configuration the run recorded
# (--db) is one of PART's, each once; with "all", every one of PART's is there
def keys(path):
    return [json.dumps(json.loads(l)['params'], sort_keys=True) for l in open(path)]
kept, seen = set(keys(sys.argv[1])), keys(sys.argv[2])
bad = [s for s in seen if s not in kept]
ok = seen and not bad and len(seen) == len(set(seen)) and (len(sys.argv) < 4 or set(seen) == kept)
print('%d run, %d recorded, %d outside' % (len(seen), len(kept), len(bad)))
sys.exit(0 if ok else 1)
EOF
run --replay "$T/part.jsonl" --replay-recorded --jobs 4 --db "$T/rr.jsonl" >"$T/rr.out" 2>"$T/rr.err"
check "--replay-recorded, exhaustive: exit 0" test $? -eq 0
check "... every recorded configuration once, nothing else" python3 "$T/inside.py" "$T/part.jsonl" "$T/rr.jsonl" all
check "... nothing missing" sh -c "! grep -q '^missing' '$T/rr.out'"
check "... Python's best" grep -q "^best: $(printf '%.4g' "$(python3 "$T/oracle.py" best "$T/part.jsonl" | sed 's/.* //')") ms" "$T/rr.out"
for s in random anneal pso genetic local bfs bo; do
	run --replay "$T/part.jsonl" --replay-recorded --jobs 1 --strategy $s --budget 10% --db "$T/rr-$s.jsonl" >/dev/null 2>&1
	check "--replay-recorded --strategy $s: only recorded configurations" python3 "$T/inside.py" "$T/part.jsonl" "$T/rr-$s.jsonl"
done
run --replay "$T/part.jsonl" --jobs 1 --strategy random --budget 10% >"$T/rf.out" 2>&1
check "... (without it, the same search meets missing ones)" grep -q '^missing' "$T/rf.out"

# --seeds A..B: the searches of --seed A, ..., --seed B, one after the other
# in one process, none carrying anything over to the next.
for st in genetic bo; do
	rm -f "$T/one-$st.csv"
	for s in 3 4 5; do
		run --replay "$T/part.jsonl" --replay-recorded --jobs 2 --strategy $st --budget 5% --seed $s \
			--trace "$T/one-$st.csv" >"$T/one-$st-$s.out" 2>&1
	done
	run --replay "$T/part.jsonl" --replay-recorded --jobs 2 --strategy $st --budget 5% --seeds 3..5 \
		--trace "$T/many-$st.csv" >"$T/many-$st.out" 2>"$T/many-$st.err"
	check "--seeds 3..5 --strategy $st: exit 0" test $? -eq 0
	check "... the trace of --seed 3, 4 and 5 run apart" cmp -s "$T/one-$st.csv" "$T/many-$st.csv"
	check "... one line per seed with its best" test "$(grep -c '^seed [345]: .* best: ' "$T/many-$st.out")" -eq 3
	check "... seed 5's best is the single run's" test \
		"$(sed -n 's/^best: \([^ ]*\) ms.*/\1/p' "$T/one-$st-5.out")" = \
		"$(sed -n 's/^seed 5: .* best: \([^ ]*\) ms.*/\1/p' "$T/many-$st.out" | xargs printf '%.4g')"
done
expect_status "--seeds without --replay" 2 run --seeds 1..3
expect_status "--seeds 5..3" 2 run --replay "$T/one.jsonl" --seeds 5..3
expect_status "--seeds with --db" 2 run --replay "$T/one.jsonl" --seeds 1..3 --db "$T/x.jsonl"
expect_status "--replay-recorded without --replay" 2 run --replay-recorded

# batch --replay: each problem replayed into the worker's database.
printf 'strategy random\nbudget 30\nproblem %s\n  set filter_size = 3\n' "$SP" >"$T/r.batch"
"$SPACETUNE" batch "$T/r.batch" --db "$T/bdb" --replay "$T/one.jsonl" --devices replay --no-progress >"$T/bt.out" 2>"$T/bt.err"
check "batch --replay exits 0" test $? -eq 0
check "... and records 30 replayed evaluations" test "$(cat "$T"/bdb/*.jsonl | wc -l)" -eq 30
check "... of the recorded device" sh -c "grep -c '\"device\":\"Replay GPU\"' '$T'/bdb/*.jsonl | grep -qx 30"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
