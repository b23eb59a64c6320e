#!/bin/sh
# spacetune export --kt-cache / --t4 on a database made by Python
# (tests/tuner/make_db.py: every status, a re-recorded configuration, an
# older kernel source, a second problem).  The oracle is a checker written
# here from Kernel Tuner's documented formats (the cache's header and
# keys, its error names, its reader's test for a closed file; T4's
# required fields and enums), computing the expected content from the
# database itself.  When bench/kt/venv exists (bench/kt/setup.sh), Kernel
# Tuner itself replays the cache in simulation mode and its jsonschema
# validates the T4 file against Kernel Tuner's own schema; otherwise that
# part is skipped with a message.  No OpenCL.
. "${top_srcdir:-.}/tests/tuner/lib.sh"

SP=$top_srcdir/spaces/conv2d.space
"$SPACEC" list --interpret "$SP" --set filter_size=3 >"$T/points.csv" || { echo "FAIL spacec list"; exit 1; }
head -301 "$T/points.csv" >"$T/some.csv"
python3 "$TD/make_db.py" "$T/some.csv" "$T/db.jsonl" 4 --every-status --hash old
python3 "$TD/make_db.py" "$T/some.csv" "$T/db.jsonl" 5 --every-status --hash new
# the same configurations again, later: these lines win
python3 "$TD/make_db.py" "$T/some.csv" "$T/again.jsonl" 6 --every-status --hash new
head -40 "$T/again.jsonl" >>"$T/db.jsonl"
sed 's/"filter_size=3"/"filter_size=7"/' "$T/again.jsonl" | head -5 >>"$T/db.jsonl"

expect_status "several problems need a choice" 1 "$SPACETUNE" export "$T/db.jsonl" --kt-cache "$T/kt.json"
check "... and the message lists them" grep -q "several problems; choose one" "$T/err"
check "... and nothing is written" test ! -e "$T/kt.json"
expect_status "export --kt-cache --t4" 0 "$SPACETUNE" export "$T/db.jsonl" --problem filter_size=3 \
	--kt-cache "$T/kt.json" --t4 "$T/t4.json"
check "... warns about the older kernel source" grep -q "records of older kernel sources left out" "$T/err"
to_fifo "export --kt-cache" "$T/kt.json" "$SPACETUNE" export "$T/db.jsonl" --problem filter_size=3 --kt-cache "$T/fifo"
expect_status "--space without --kt-cache or --t4" 2 "$SPACETUNE" export "$T/db.jsonl" --space conv2d --c "$T/x.h"

cat >"$T/check.py" <<'EOF'
import json, sys
db, kt_path, t4_path = sys.argv[1:4]
# What should be there: problem filter_size=3, the newest source hash,
# the latest line of each configuration.
lines = [json.loads(l) for l in open(db)]
lines = [l for l in lines if l.get('problem') == 'filter_size=3']
newest = lines[-1]['source_hash']
want = {}
for l in lines:
    if l['source_hash'] == newest:
        want[tuple(l['params'].items())] = l
fails = []
def expect(cond, what):
    if not cond:
        fails.append(what)
text = open(kt_path).read().strip()
# Kernel Tuner's reader (util.correct_open_cache) takes a file that does
# not end so for an interrupted one and appends "}\n}".
expect(text[-3:] in ('}\n}', '}}}'), 'the cache ends as a closed Kernel Tuner cache')
kt = json.loads(text)
first = next(iter(want.values()))
keys = list(first['params'])
expect(kt['tune_params_keys'] == keys, 'tune_params_keys in the records\' order')
expect(kt['device_name'] == first['device'] and kt['kernel_name'] == first['kernel'], 'device and kernel')
for k in keys:
    expect(kt['tune_params'][k] == sorted({p[k] for p in (dict(t) for t in want)}),
           'tune_params[%s] are the recorded values' % k)
errors = {'build_error': 'CompilationFailedConfig', 'skipped': 'InvalidConfig'}
expect(len(kt['cache']) == len(want), 'one cache entry per configuration (%d, want %d)' % (len(kt['cache']), len(want)))
for params, l in want.items():
    key = ','.join(str(v) for _, v in params)   # Kernel Tuner's key
    e = kt['cache'].get(key)
    if e is None:
        fails.append('no entry ' + key)
        continue
    for name, v in params:
        expect(e[name] == v, key + ' ' + name)
    if l['status'] == 'ok':
        expect(e['time'] == l['time_ms']['median'], key + ' time')
        expect(abs(e['GFLOPS'] - l['metrics']['GFLOPS']) < 1e-9 * e['GFLOPS'], key + ' metric')
    else:
        expect(e['time'] == errors.get(l['status'], 'RuntimeFailedConfig'), key + ' error ' + l['status'])
    expect(abs(e['compile_time'] - 1000 * l['build_s']) < 1e-6, key + ' compile_time')
    bench = 1000 * l['device_s'] if l['device_s'] is not None else \
        ((l['runs'] + 1) * l['time_ms']['median'] if l['time_ms'] else 0)
    expect(abs(e['benchmark_time'] - bench) < 1e-6, key + ' benchmark_time %r %r' % (e['benchmark_time'], bench))
    for f in ('verification_time', 'strategy_time', 'framework_time', 'timestamp'):
        expect(f in e, key + ' has ' + f)
t4 = json.load(open(t4_path))
expect(t4['schema_version'] == '1.0.0', 'T4 schema_version')
validity = {'ok': 'correct', 'build_error': 'compile', 'launch_error': 'runtime', 'crashed': 'runtime',
            'timeout': 'timeout', 'wrong_result': 'correctness', 'skipped': 'constraints'}
expect(len(t4['results']) == len(want), 'one T4 result per configuration')
for r in t4['results']:
    l = want.get(tuple(r['configuration'].items()))
    if l is None:
        fails.append('T4 result of an unknown configuration')
        continue
    for f in ('configuration', 'times', 'invalidity', 'correctness'):
        expect(f in r, 'T4 requires ' + f)
    expect(r['invalidity'] == validity[l['status']], 'T4 invalidity of ' + l['status'])
    expect(r['correctness'] == (0 if l['status'] == 'wrong_result' else 1), 'T4 correctness')
    m = {x['name']: x['value'] for x in r['measurements']}
    if l['time_ms']:
        expect(m.get('time') == l['time_ms']['median'], 'T4 time')
    expect(r['objectives'] == ['time'], 'T4 objectives')
for f in fails[:10]:
    print('mismatch:', f)
print('%d configurations, %d mismatches' % (len(want), len(fails)))
sys.exit(1 if fails else 0)
EOF
check "the cache and the T4 file hold the database (Python's reading of the formats)" \
	python3 "$T/check.py" "$T/db.jsonl" "$T/kt.json" "$T/t4.json"

# Kernel Tuner itself, when bench/kt/setup.sh made its venv.
KTPY=$top_srcdir/bench/kt/venv/bin/python
if [ -x "$KTPY" ] && "$KTPY" -c 'import kernel_tuner, jsonschema' 2>/dev/null; then
	check "Kernel Tuner's simulation mode reads every record ($("$KTPY" -c 'import kernel_tuner; print(kernel_tuner.__version__)'))" \
		"$KTPY" "$top_srcdir/bench/kt/kt_replay.py" "$T/kt.json"
	check "... and its T4 schema accepts the results" "$KTPY" -c '
import json, sys, jsonschema
from kernel_tuner.file_utils import output_file_schema
_, schema = output_file_schema("results")
jsonschema.validate(json.load(open(sys.argv[1])), schema)' "$T/t4.json"
else
	echo "skip Kernel Tuner's own reader: no venv with kernel_tuner at bench/kt/venv (run bench/kt/setup.sh)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
