#!/usr/bin/env python3
"""bench/search/run.py - spacetune's strategies side by side with Kernel
Tuner's, on the same recorded databases.

For each dataset (a spacetune JSONL database, optionally .xz), each
strategy, each budget (1, 2, 5 and 10 % of the recorded points, in
evaluations) and each seed, it records the cost of every evaluation in
the order they ran; bench/search/report.py turns them into the table and
the plots.

    bench/search/run.py spacetune [--seeds 50] [--strategies a,b] [DATASET ...]
    bench/search/run.py kt [--seeds 50] [--first-seed 1] [--strategies a,b] [--until HH:MM] [DATASET ...]

- spacetune: `spacetune run SPACE --set ... --replay DATASET
  --replay-recorded --strategy S --budget E --seeds 1..N --jobs 1 --trace
  FILE`, one process per strategy and budget: the replay that users run,
  one evaluation in flight (as Kernel Tuner's simulation runs), the space
  restricted to the recorded configurations (some datasets are partial).
  Traces go to out/<dataset>.spacetune.json.
- kt: Kernel Tuner (PyPI, in bench/kt/venv, which this script creates with
  bench/kt/setup.sh and re-runs itself in) on the database exported by
  `spacetune export --kt-cache`:
  tune_kernel(simulation_mode=True, cache=FILE, strategy=S,
  strategy_options={"max_fevals": E}), seeded with random.seed and
  numpy.random.seed; the restriction is membership in the database, so
  both tools search the same configurations.  Its best is taken over its
  first E unique evaluations (max_fevals counts unique ones).  One search
  at a time, in this process; seeds are the outer loop, so a run stopped
  at --until (UTC) leaves every strategy with the same seeds.  Each
  search is appended to out/<dataset>.kt.jsonl as it ends, and a rerun
  skips the searches already there.
"""
import argparse
import datetime
import json
import lzma
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(TOP, "bench", "kt", "venv")
SPACETUNE_BIN = os.environ.get("SPACETUNE", os.path.join(TOP, "build", "spacetune"))
# SEARCH_OUT: another folder for the raw outputs, so that several runs at
# once (one per dataset, strategy and seed range) never share a file
OUT = os.environ.get("SEARCH_OUT") or os.path.join(HERE, "out")
BUDGETS = [0.01, 0.02, 0.05, 0.10]
SPACETUNE = ["exhaustive", "random", "anneal", "pso", "genetic", "local", "bfs", "bo", "bandit"]
KERNEL_TUNER = ["random_sample", "genetic_algorithm", "dual_annealing", "pso",
                "simulated_annealing", "greedy_ils", "bayes_opt"]
KT_VERSION = "1.5.0"


def ensure_venv():
    """The venv with Kernel Tuner; this script re-runs itself inside it."""
    if os.environ.get("KT_SYSTEM") == "1":
        # an interpreter that already has this version (the device machine,
        # which has no network to build the venv): used as it is
        import kernel_tuner
        if kernel_tuner.__version__ != KT_VERSION:
            sys.exit(f"KT_SYSTEM=1: kernel_tuner {kernel_tuner.__version__}, not {KT_VERSION}")
        return
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run(["sh", os.path.join(TOP, "bench", "kt", "setup.sh")], check=True,
                       env=dict(os.environ, KT_VERSION=KT_VERSION))
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        os.execv(py, [py] + sys.argv)


def read_db(path):
    """The dataset: its parameter names, its records as (params, cost in
    ms or inf; the last record of a configuration wins), its space and
    problem."""
    opener = lzma.open if path.endswith(".xz") else open
    points, space, problem = {}, None, None
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if "params" not in r:
                continue
            space, problem = r["space"], r.get("problem") or ""
            key = tuple(r["params"].items())
            ok = r.get("status") == "ok" and r.get("time_ms")
            points[key] = r["time_ms"]["median"] if ok else math.inf
    names = [k for k, _ in next(iter(points))]
    return names, [(dict(k), c) for k, c in points.items()], space, problem


def dataset(db):
    names, rows, space, problem = read_db(db)
    n = len(rows)
    return {"name": os.path.basename(db).split(".")[0], "db": os.path.abspath(db),
            "names": names, "rows": rows, "space": space, "problem": problem, "points": n,
            "optimum_ms": min(c for _, c in rows),
            "budgets": [max(1, math.ceil(b * n)) for b in BUDGETS]}


def datasets(args):
    if args:
        return args
    data = os.path.join(TOP, "bench", "data")
    return sorted(os.path.join(data, d, f) for d in os.listdir(data) if d.startswith("search-")
                  for f in os.listdir(os.path.join(data, d)) if f.endswith((".jsonl", ".jsonl.xz")))


def header(d):
    # the database relative to the repository, so that the raw results can
    # be committed (bench/search/raw-*/) and read back from any checkout
    h = {k: d[k] for k in ("points", "optimum_ms", "budgets")}
    h["db"] = os.path.relpath(d["db"], TOP)
    return h


# ---- spacetune ---------------------------------------------------------------

def parse_traces(path):
    """spacetune's --trace file: a '# SPACE STRATEGY seed S ...' line per
    search, then one line per evaluation (eval,clock_s,point,status,cost,best)."""
    traces, seed = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                seed = line.split()[line.split().index("seed") + 1]
                traces[seed] = []
            elif not line.startswith("eval,"):
                traces[seed].append(float(line.split(",")[4]))
    return traces


def run_spacetune(a):
    os.makedirs(OUT, exist_ok=True)
    for db in datasets(a.datasets):
        d = dataset(db)
        space = os.path.join(TOP, "spaces", d["space"] + ".space")
        sets = [x for s in d["problem"].split() for x in ("--set", s)]
        saved = os.path.join(OUT, d["name"] + ".spacetune.json")
        result = {"traces": {}}
        if os.path.exists(saved):
            with open(saved) as f:
                result = json.load(f)  # other strategies' traces stay
        result.update(header(d))
        start = time.time()
        searches = 0
        for s in a.strategies.split(","):
            for e in d["budgets"]:
                trace = os.path.join(OUT, f"{d['name']}-{s}-{e}.csv")
                if os.path.exists(trace):
                    os.unlink(trace)
                subprocess.run([SPACETUNE_BIN, "run", space] + sets +
                               ["--replay", d["db"], "--replay-recorded", "--no-progress",
                                "--jobs", "1", "--strategy", s, "--budget", str(e),
                                "--seeds", f"1..{a.seeds}", "--trace", trace],
                               check=True, stdout=subprocess.DEVNULL)
                result["traces"].setdefault("spacetune:" + s, {})[str(e)] = parse_traces(trace)
                os.unlink(trace)
                searches += a.seeds
            with open(saved, "w") as f:  # after each strategy: a stopped run keeps them
                json.dump(result, f)
        took = time.time() - start
        print(f"{d['name']}: {d['points']} points, {searches} searches in {took:.1f} s "
              f"({60 * searches / took:.0f} a minute)", file=sys.stderr)


# ---- Kernel Tuner ----------------------------------------------------------------

def write_kt_cache(db, path):
    """The same records as Kernel Tuner's cache file (docs/TUNING.md).
    KT_CACHE_FROM: a folder of caches already exported (NAME.kt-cache.json),
    for a machine without spacetune's build."""
    ready = os.environ.get("KT_CACHE_FROM")
    if ready:
        shutil.copyfile(os.path.join(ready, os.path.basename(path)), path)
        with open(path) as f:
            return json.load(f)["kernel_name"]
    data = db
    if db.endswith(".xz"):
        data = path + ".jsonl"
        with lzma.open(db, "rb") as f, open(data, "wb") as out:
            out.write(f.read())
    subprocess.run([SPACETUNE_BIN, "export", data, "--kt-cache", path], check=True,
                   stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)["kernel_name"]


# Kernel Tuner's greedy_ils can loop without end on a partial set (sgemm,
# 18 evaluations, seed 16: its walks found no unvisited configuration and
# revisits do not count toward max_fevals).  A search still running after
# this many seconds (the longest others take about 15 s) is stopped and
# scored on the evaluations it ran, which SimulationRunner.run collects.
KT_SEARCH_LIMIT_S = 40
ran = []


class Hung(BaseException):
    """Raised by SIGALRM inside Kernel Tuner; not an Exception, so that no
    `except Exception` of Kernel Tuner's takes it for a failed kernel."""


def hang(signum, frame):
    raise Hung()


def keep_kt_results():
    from kernel_tuner.runners.simulation import SimulationRunner
    run = SimulationRunner.run
    if getattr(run, "keeps", False):
        return

    def keeping(self, parameter_space, tuning_options):
        results = run(self, parameter_space, tuning_options)
        ran.extend(r for r in results if r is not None)
        return results

    keeping.keeps = True
    SimulationRunner.run = keeping


def memoize_kt_searchspace():
    """Kernel Tuner builds its search space in every tune_kernel call, by
    calling the restriction on each point of the product of tune_params:
    57,600 calls, about 1 s, for sgemm's, where most searches take 0.1-0.3
    s.  The space is the same for every search of a dataset, so its first
    build is kept (keyed by the parameters and their values) and copied.
    Searchspace's own state (neighbour caches, ...) is still per search."""
    from kernel_tuner.searchspace import Searchspace
    build = Searchspace._Searchspace__build_searchspace
    if getattr(build, "memoized", False):
        return
    built = {}

    def memoized(self, block_size_names, max_threads, solver):
        key = (tuple(self.param_names), self.params_values)
        if key not in built:
            built[key] = build(self, block_size_names, max_threads, solver)
        configs, index, size = built[key]
        return list(configs), dict(index), size

    memoized.memoized = True
    Searchspace._Searchspace__build_searchspace = memoized


def kt_search(kernel, cache, names, rows, strategy, evals, seed):
    """One Kernel Tuner search: the cost of each unique evaluation, in order."""
    import warnings
    import numpy as np
    from kernel_tuner import tune_kernel
    memoize_kt_searchspace()
    keep_kt_results()
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
    ran.clear()
    signal.signal(signal.SIGALRM, hang)
    signal.alarm(KT_SEARCH_LIMIT_S)
    try:
        res, _ = tune_kernel(kernel, "/* recorded */", 1, [], tune_params, lang="C",
                             restrictions=recorded, cache=cache, simulation_mode=True,
                             strategy=strategy, strategy_options={"max_fevals": evals},
                             quiet=True)
        stopped = None
    except Hung:
        res, stopped = list(ran), f"after {KT_SEARCH_LIMIT_S} s"
    except Exception as e:
        # greedy_ils on a partial set: get_random_neighbor returns None for
        # a configuration without a recorded neighbour (dgemm, seed 1)
        res, stopped = list(ran), f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
    seen, trace = set(), []
    for r in res:
        key = tuple(r[n] for n in names)
        if key in seen:
            continue
        seen.add(key)
        t = r.get("time")
        trace.append(t if isinstance(t, (int, float)) and "__error__" not in r else math.inf)
    return trace[:evals], stopped


def run_kt(a):
    ensure_venv()
    os.makedirs(OUT, exist_ok=True)
    until = None
    if a.until:
        h, m = map(int, a.until.split(":"))
        now = datetime.datetime.now(datetime.timezone.utc)
        until = now.replace(hour=h, minute=m, second=0, microsecond=0)
    sets = []
    for db in datasets(a.datasets):
        d = dataset(db)
        cache = os.path.join(OUT, d["name"] + ".kt-cache.json")
        kernel = write_kt_cache(d["db"], cache)
        log = os.path.join(OUT, d["name"] + ".kt.jsonl")
        done = set()
        if os.path.exists(log):
            with open(log) as f:
                for line in f:
                    r = json.loads(line)
                    done.add((r["strategy"], r["evals"], r["seed"]))
        sets.append((d, cache, kernel, log, done))
    for seed in range(a.first_seed, a.seeds + 1):
        for d, cache, kernel, log, done in sets:
            for s in a.strategies.split(","):
                for e in d["budgets"]:
                    if (s, e, seed) in done:
                        continue
                    if until and datetime.datetime.now(datetime.timezone.utc) >= until:
                        print(f"kt: stopped at --until {a.until} in seed {seed}", file=sys.stderr)
                        return
                    t0 = time.time()
                    trace, stopped = kt_search(kernel, cache, d["names"], d["rows"], s, e, seed)
                    r = {"strategy": s, "evals": e, "seed": seed,
                         "seconds": round(time.time() - t0, 3), "trace": trace}
                    if stopped:  # scored on the evaluations it ran
                        r["stopped"] = stopped
                    with open(log, "a") as f:
                        f.write(json.dumps(r) + "\n")
        print(f"kt: seed {seed} done", file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="tool", required=True)
    st = sub.add_parser("spacetune")
    st.add_argument("--seeds", type=int, default=50)
    st.add_argument("--strategies", default=",".join(SPACETUNE))
    st.add_argument("datasets", nargs="*")
    kt = sub.add_parser("kt")
    kt.add_argument("--seeds", type=int, default=50)
    kt.add_argument("--strategies", default=",".join(KERNEL_TUNER))
    kt.add_argument("--first-seed", type=int, default=1,
                    help="seeds FIRST..SEEDS only (a share of the searches, for runs in parallel)")
    kt.add_argument("--until", help="stop starting searches at this UTC time (HH:MM)")
    kt.add_argument("datasets", nargs="*")
    a = ap.parse_args()
    (run_spacetune if a.tool == "spacetune" else run_kt)(a)


if __name__ == "__main__":
    main()
