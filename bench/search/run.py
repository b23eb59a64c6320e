#!/usr/bin/env python3
"""bench/search/run.py - spacetune's strategies side by side with Kernel
Tuner's, on the same recorded (exhaustive) databases.

For each dataset (a spacetune JSONL database, optionally .xz, that records
every point of a space), each strategy, each budget (1, 2, 5 and 10 % of
the space, in evaluations) and each of --seeds seeds, it records the
best cost found, as a fraction of the dataset's optimum (optimum time /
best time found: 1.0 is the optimum, 0 is nothing that ran).

- spacetune: bench/search/sim.c links tuner/strategy*.c and runs each
  strategy over the recorded points, one evaluation at a time.
- Kernel Tuner (PyPI, in bench/kt/venv, which this script creates with
  bench/kt/setup.sh), on the database exported by `spacetune export
  --kt-cache`:
  tune_kernel(simulation_mode=True, cache=<KT cache of the same
  database>, strategy=S, strategy_options={"max_fevals": budget}), seeded
  with random.seed / numpy.random.seed.  Kernel Tuner's space is exactly
  the recorded points: its restriction is membership in the database, so
  both tools search the same set.  A configuration it revisits does not
  count (max_fevals counts unique evaluations); its best is taken over
  the first `budget` unique evaluations.

Writes bench/search/out/<dataset>.json (every seed's trace), prints the
table (Markdown), and draws the convergence plots (gnuplot, PNG) into
bench/search/plots/.  Usage:
    bench/search/run.py [--seeds 50] [--kt-seeds N] [--jobs 2] [--only-spacetune] [DATASET ...]
"""
import argparse
import json
import lzma
import math
import os
import random
import statistics
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(TOP, "bench", "kt", "venv")
SPACETUNE_BIN = os.environ.get("SPACETUNE", os.path.join(TOP, "build", "spacetune"))
OUT = os.path.join(HERE, "out")
PLOTS = os.path.join(HERE, "plots")
BUDGETS = [0.01, 0.02, 0.05, 0.10]
SPACETUNE = ["random", "anneal", "pso", "genetic", "local", "bfs", "bo"]
KERNEL_TUNER = ["random_sample", "genetic_algorithm", "dual_annealing", "pso",
                "simulated_annealing", "greedy_ils", "bayes_opt"]
KT_VERSION = "1.5.0"


def ensure_venv():
    """The venv with Kernel Tuner; this script re-runs itself inside it."""
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run(["sh", os.path.join(TOP, "bench", "kt", "setup.sh")], check=True,
                       env=dict(os.environ, KT_VERSION=KT_VERSION))
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        os.execv(py, [py] + sys.argv)


def build_sim():
    exe = os.path.join(OUT, "sim")
    srcs = [os.path.join(HERE, "sim.c")] + [
        os.path.join(TOP, "tuner", f) for f in sorted(os.listdir(os.path.join(TOP, "tuner")))
        if f.startswith("strategy") and f.endswith(".c")]
    if not os.path.exists(exe) or any(os.path.getmtime(s) > os.path.getmtime(exe) for s in srcs):
        subprocess.run(["cc", "-O2", "-I" + TOP, "-o", exe] + srcs +
                       ["-lgsl", "-lgslcblas", "-lm"], check=True)
    return exe


def read_db(path):
    """The records of a database: (params dict, cost in ms or inf), one per
    configuration (the last record of a configuration wins)."""
    opener = lzma.open if path.endswith(".xz") else open
    points, index = {}, {}
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if "params" not in r:
                continue
            key = tuple(r["params"].items())
            ok = r.get("status") == "ok" and r.get("time_ms")
            points[key] = r["time_ms"]["median"] if ok else math.inf
            index.setdefault(key, r.get("point", len(index)))
    # In the job's point order, so that sim.c numbers the points as
    # spacetune does when the database covers the whole space.
    order = sorted(points, key=lambda k: index[k])
    names = [k for k, _ in order[0]]
    return names, [(dict(k), points[k]) for k in order]


def write_table(names, rows, path):
    with open(path, "w") as f:
        f.write(",".join(names + ["cost"]) + "\n")
        for p, c in rows:
            f.write(",".join(str(p[n]) for n in names) + f",{c!r}\n")


def write_kt_cache(db, path):
    """The same records as Kernel Tuner's cache file (docs/TUNING.md)."""
    data = db
    if db.endswith(".xz"):
        data = path + ".jsonl"
        with lzma.open(db, "rb") as f, open(data, "wb") as out:
            out.write(f.read())
    subprocess.run([SPACETUNE_BIN, "export", data, "--kt-cache", path], check=True,
                   stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)["kernel_name"]


def run_sim(args):
    sim, table, strategy, evals, seeds = args
    out = subprocess.run([sim, table, strategy, str(evals), "1", str(seeds)], check=True,
                         capture_output=True, text=True).stdout
    traces = {}
    for line in out.splitlines():
        f = line.split()
        traces[int(f[0])] = [float(x) for x in f[1:]]
    return strategy, evals, traces


def run_kt(args):
    kernel, cache, names, rows, strategy, evals, seed = args
    import warnings
    import numpy as np
    from kernel_tuner import tune_kernel
    tune_params = {n: sorted({p[n] for p, _ in rows}) for n in names}
    valid = {tuple(p[n] for n in names) for p, _ in rows}

    def recorded(p):
        # a plain function: Kernel Tuner rewrites lambdas from their source
        return tuple(p[n] for n in names) in valid

    random.seed(seed)
    np.random.seed(seed)
    # the stand-in source has no arguments and no block dimensions: Kernel
    # Tuner warns about both, and neither matters to a simulation
    warnings.simplefilter("ignore")
    res, _ = tune_kernel(kernel, "/* recorded */", 1, [], tune_params, lang="C",
                         restrictions=recorded,
                         cache=cache, simulation_mode=True, strategy=strategy,
                         strategy_options={"max_fevals": evals}, quiet=True)
    seen, trace = set(), []
    for r in res:
        key = tuple(r[n] for n in names)
        if key in seen:
            continue
        seen.add(key)
        t = r.get("time")
        trace.append(t if isinstance(t, (int, float)) and "__error__" not in r else math.inf)
    return strategy, evals, seed, trace[:evals]


def fractions(trace, optimum, evals):
    best = min(trace[:evals], default=math.inf)
    return optimum / best if math.isfinite(best) else 0.0


def quantiles(xs):
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return statistics.median(xs), q[0], q[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--kt-seeds", type=int, default=None,
                    help="seeds of Kernel Tuner's strategies (default: --seeds)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only-spacetune", action="store_true")
    ap.add_argument("--spacetune", default=",".join(SPACETUNE))
    ap.add_argument("--kernel-tuner", default=",".join(KERNEL_TUNER))
    ap.add_argument("datasets", nargs="*")
    a = ap.parse_args()
    if not a.only_spacetune:
        ensure_venv()
    os.makedirs(OUT, exist_ok=True)
    sim = build_sim()
    datasets = a.datasets or sorted(
        os.path.join(d, f) for d in
        [os.path.join(TOP, "bench", "data", x) for x in os.listdir(os.path.join(TOP, "bench", "data"))
         if x.startswith("search-")]
        for f in os.listdir(d) if f.endswith((".jsonl", ".jsonl.xz")))
    for db in datasets:
        name = os.path.basename(db).split(".")[0]
        names, rows = read_db(db)
        optimum = min(c for _, c in rows)
        n = len(rows)
        table = os.path.join(OUT, name + ".csv")
        cache = os.path.join(OUT, name + ".kt.json")
        write_table(names, rows, table)
        kernel = None if a.only_spacetune else write_kt_cache(db, cache)
        budgets = [max(1, math.ceil(b * n)) for b in BUDGETS]
        result = {"dataset": db, "points": n, "optimum_ms": optimum, "budgets": budgets,
                  "traces": {}}
        saved = os.path.join(OUT, name + ".json")
        if os.path.exists(saved):
            # keep the other strategies' traces: re-running one replaces only its own
            with open(saved) as f:
                result["traces"] = json.load(f)["traces"]
        jobs = [(sim, table, s, e, a.seeds) for s in a.spacetune.split(",") if s for e in budgets]
        kt = [] if a.only_spacetune else [
            (kernel, cache, names, rows, s, e, seed) for s in a.kernel_tuner.split(",") if s
            for e in budgets for seed in range(1, (a.kt_seeds or a.seeds) + 1)]
        with ProcessPoolExecutor(a.jobs) as ex:
            for s, e, traces in ex.map(run_sim, jobs):
                result["traces"].setdefault("spacetune:" + s, {})[str(e)] = traces
            for s in {k[4] for k in kt}:
                result["traces"].pop("kt:" + s, None)
            for s, e, seed, trace in ex.map(run_kt, kt, chunksize=4):
                result["traces"].setdefault("kt:" + s, {}).setdefault(str(e), {})[seed] = trace
        with open(saved, "w") as f:
            json.dump(result, f)
        print(f"{name}: {n} points, optimum {optimum:.6g} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
