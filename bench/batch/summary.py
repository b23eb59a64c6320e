"""summary.py OUT: the tables of bench/batch/gpu.sh from its files in OUT.

walls.txt (one line per run: name, devices, evaluations, wall seconds;
runs in pairs, 1 device then 2, whose throughputs are compared),
NAME.err (the batch's summary lines: each device's kernel time), the
databases db-NAME/*.jsonl and cublas.txt (bench/gpu/cublas_gemm's lines).
Python only, since the device machine has no jq.  Each pair's ratio is
also given counted from the end of each batch worker's first problem,
whose start opens its workers' contexts.
"""
import glob
import json
import os
import re
import sys
import calendar
import time

out = sys.argv[1]
runs = [l.split() for l in open(os.path.join(out, "walls.txt")) if l.strip()]
lines = []
lines.append("| run | devices | evaluations | wall s | evaluations/s | kernel time share per device |")
lines.append("|---|---|---:|---:|---:|---|")
rate = {}
for name, devs, evals, wall in runs:
    evals, wall = int(evals), float(wall)
    rate[name] = evals / wall if wall else 0
    shares = []
    err = os.path.join(out, name + ".err")
    for l in open(err) if os.path.exists(err) else []:
        m = re.match(r"spacetune: batch: (\S+): (\d+) units, kernels timed (\S+) s of (\S+) s \((\S+)%\)", l)
        if m:
            shares.append("%s %s%% (%s s of %s s)" % (m.group(1), m.group(5), m.group(3), m.group(4)))
    lines.append("| %s | %s | %d | %.1f | %.2f | %s |" % (name, devs, evals, wall, rate[name], "; ".join(shares)))
lines.append("")
for r1, r2 in zip(runs[0::2], runs[1::2]):
    if rate[r1[0]]:
        lines.append("- throughput ratio %s / %s (evaluations per second): %.2fx; wall ratio %.2fx"
                     % (r2[0], r1[0], rate[r2[0]] / rate[r1[0]], float(r1[3]) / float(r2[3])))

# The same pairs without each worker's first problem, which opens its
# device workers' contexts (one per parallel build), and so without the
# start that a longer batch pays once: each worker's records after its
# first problem's last one, over the seconds from there to its last
# record (the records' times, to the second).
def steady(name):
    rate = 0.0
    for db in glob.glob(os.path.join(out, "db-" + name, "*.jsonl")):
        rs = []
        for l in open(db):
            try:
                rs.append(json.loads(l))
            except ValueError:
                pass
        if not rs:
            continue
        t = [calendar.timegm(time.strptime(r["time"], "%Y-%m-%dT%H:%M:%SZ")) for r in rs]
        first_end = max(ti for ti, r in zip(t, rs) if r.get("problem") == rs[0].get("problem"))
        after = [ti for ti in t if ti > first_end]
        if after and max(after) > first_end:
            rate += len(after) / (max(after) - first_end)
    return rate
for r1, r2 in zip(runs[0::2], runs[1::2]):
    s1, s2 = steady(r1[0]), steady(r2[0])
    if s1:
        lines.append("- after each worker's first problem: %s %.2f/s, %s %.2f/s: %.2fx"
                     % (r1[0], s1, r2[0], s2, s2 / s1))

cublas = {}
path = os.path.join(out, "cublas.txt")
for l in open(path) if os.path.exists(path) else []:
    f = l.split()
    if len(f) >= 9 and f[0] == "cublas" and f[2] == "default":
        cublas[(f[1], int(f[3]), int(f[4]), int(f[5]))] = float(f[8])

best = {}   # (space, problem) -> {run: (gflops, params)}
for name, *_ in runs:
    for db in glob.glob(os.path.join(out, "db-" + name, "*.jsonl")):
        for l in open(db):
            try:
                r = json.loads(l)
            except ValueError:
                continue
            if r.get("status") != "ok":
                continue
            g = (r.get("metrics") or {}).get("GFLOPS")
            if g is None:
                continue
            key = (r.get("space"), r.get("problem") or "")
            cur = best.setdefault(key, {}).get(name)
            if cur is None or g > cur[0]:
                best[key][name] = (g, r.get("params"))
lines.append("")
names = [r[0] for r in runs]
lines.append("| problem | " + " | ".join("best GFLOP/s (%s)" % n for n in names) + " | cuBLAS GFLOP/s | best / cuBLAS |")
lines.append("|---|" + "---:|" * (len(names) + 2))
for (space, problem) in sorted(best):
    b = best[(space, problem)]
    vals = [b[n][0] if n in b else None for n in names]
    cb = None
    if space == "gemm":
        s = dict(kv.split("=", 1) for kv in problem.split())
        prec = "dgemm" if "double" in s.get("precision", "") else "sgemm"
        cb = cublas.get((prec, int(s["M"]), int(s["N"]), int(s["K"])))
    top = max([v for v in vals if v is not None], default=None)
    lines.append("| %s %s | %s | %s | %s |" % (
        space, problem, " | ".join("%.0f" % v if v is not None else "-" for v in vals),
        "%.0f" % cb if cb else "-", "%.2f" % (top / cb) if cb and top else "-"))
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
