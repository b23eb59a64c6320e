#!/usr/bin/env python3
"""timeline.py -- where a batch's wall time went, per worker or rank.

    python3 bench/batch/timeline.py DB_DIR [START_EPOCH END_EPOCH]

Reads the workers' logs (DB_DIR/*.log): each hand-out a worker ran is a
line "== KEY ... at T" and, when it ran to its end, "-- N units finished
at T, S s" (tuner/batch.c, CLOCK_REALTIME).  Prints per worker: when its
first hand-out started, its hand-outs and units, the seconds busy in
them, the seconds between them (waiting for the next one: the hand-out's
latency and the next unit's set-up outside tune_run) and the seconds
after its last one until the batch's end (the tail, where it had nothing
left to do).  START/END (e.g. `date +%s.%N` around the command) add the
start-up before the first hand-out and the end after the last (MPI's
start, the costs, the merge); without them the first start and the last
finish stand in.
"""
import glob
import os
import re
import sys

START = re.compile(r'^== .* at ([0-9.]+)$')
END = re.compile(r'^-- ([0-9]+) units? finished at ([0-9.]+), ([0-9.]+) s$')


def read(path):
    runs = []  # (start, end or None, units)
    with open(path, errors='replace') as f:
        for line in f:
            m = START.match(line.rstrip('\n'))
            if m:
                runs.append([float(m.group(1)), None, 0])
                continue
            m = END.match(line.rstrip('\n'))
            if m and runs and runs[-1][1] is None:
                runs[-1][1] = float(m.group(2))
                runs[-1][2] = int(m.group(1))
    return runs


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    workers = {}
    for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.log'))):
        runs = read(path)
        if runs:
            workers[os.path.basename(path)[:-4]] = runs
    if not workers:
        sys.exit('timeline.py: no hand-out lines in %s/*.log' % sys.argv[1])
    first = min(r[0] for runs in workers.values() for r in runs)
    last = max((r[1] or r[0]) for runs in workers.values() for r in runs)
    start, end = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) == 4 else (first, last)
    print('| worker | first start s | hand-outs | units | busy s | between s | tail s |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    tot_busy = 0.0
    for name, runs in workers.items():
        busy = sum((r[1] or last) - r[0] for r in runs)
        span = (runs[-1][1] or last) - runs[0][0]
        tot_busy += busy
        print('| %s | %.2f | %d | %d | %.2f | %.2f | %.2f |' % (
            name, runs[0][0] - start, len(runs), sum(r[2] for r in runs), busy, span - busy,
            last - (runs[-1][1] or last)))
    n = len(workers)
    print()
    print('wall %.2f s: start-up to the first hand-out %.2f s, hand-outs %.2f s, after the last %.2f s;'
          % (end - start, first - start, last - first, end - last))
    print('busy %.2f of %d x %.2f worker-seconds (%.0f%%)' % (
        tot_busy, n, end - start, 100 * tot_busy / (n * (end - start))))


main()
