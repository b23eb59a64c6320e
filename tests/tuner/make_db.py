"""make_db.py: a results database as spacetune writes one, for the
replay and export tests: the configurations of a `spacec list` CSV with
random times and statuses (4% build errors, 3% wrong results), so the
tests' oracles compute in Python what spacetune must find."""
import csv, json, random, sys
# make_db.py POINTS.csv OUT.jsonl SEED [build_s device_s] [--drop K] [--device NAME]
#            [--hash H] [--every-status]
args = sys.argv[1:]
source_hash = args[args.index('--hash') + 1] if '--hash' in args else 'recorded'
# every status spacetune records, each a few percent of the points
kinds = ([(0.04, 'build_error'), (0.07, 'wrong_result'), (0.09, 'launch_error'),
          (0.11, 'timeout'), (0.12, 'crashed'), (0.13, 'skipped')]
         if '--every-status' in args else [(0.04, 'build_error'), (0.07, 'wrong_result')])
drop = int(args[args.index('--drop') + 1]) if '--drop' in args else -1
device = args[args.index('--device') + 1] if '--device' in args else 'Replay GPU'
rng = random.Random(int(args[2]))
fixed = [float(x) for x in args[3:5]] if len(args) > 4 and not args[3].startswith('--') else None
rows = list(csv.DictReader(open(args[0])))
with open(args[1], 'a') as out:
    for i, row in enumerate(rows):
        if i == drop:
            continue
        params = {k: int(v) for k, v in row.items()}
        u = rng.random()
        status = next((name for limit, name in kinds if u < limit), 'ok')
        median = round(rng.uniform(0.05, 3.0), 6)
        timed = status in ('ok', 'wrong_result', 'timeout')
        rec = {'v': 1, 'space': 'conv2d', 'kernel': 'conv2d', 'device': device,
               'platform': 'Replay', 'driver': '1.0', 'source_hash': source_hash,
               'problem': 'filter_size=3', 'objective': 'min:time', 'params': params,
               'time': '2026-11-27T07:%02d:%02dZ' % (i // 60 % 60, i % 60),
               'status': status, 'runs': 10 if timed else 0,
               'time_ms': {'median': median, 'min': median} if timed else None,
               'metrics': {'GFLOPS': 2.0 / median if status == 'ok' else None},
               'build_s': fixed[0] if fixed else round(rng.uniform(0.05, 0.3), 6),
               'device_s': (fixed[1] if fixed else round(rng.uniform(0.001, 0.05), 6))
                           if timed else None,
               'error': None if status == 'ok' else status.upper()}
        out.write(json.dumps(rec) + '\n')
