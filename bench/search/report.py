#!/usr/bin/env python3
"""bench/search/report.py - the table and convergence plots of
bench/search/run.py's results (bench/search/out/<dataset>.spacetune.json
and <dataset>.kt.jsonl).

Prints, per dataset x strategy x budget, the median and interquartile
range over the seeds of the best found as a fraction of the optimum (the
optimum's median time over the best one found: 1.000 is the optimum, 0
nothing that ran), and whether the default strategy meets issue 15's
targets on each dataset: >= 0.95 within 2 % of the space, and a median
at least every Kernel Tuner strategy's at every budget.  Draws one
convergence plot per dataset (gnuplot, PNG) into bench/search/plots/.
Usage: bench/search/report.py [--default bo] [--from DIR]...
(spacetune's default, auto, runs bo under a budget smaller than the space).
--from reads the raw results from DIR instead of bench/search/out/, the
same files, each optionally xz-compressed (NAME.spacetune.json.xz,
NAME.kt.jsonl.xz): the committed bench/search/raw-*/ folders, so that a
change to the table or the plots needs no re-run of the searches.  Given
more than once, each file comes from the first folder that holds it: a
newer folder with one tool's results, then an older one with the other's
(--from raw-2026-11-27c --from raw-2026-11-27b: spacetune's from the
first, Kernel Tuner's, not re-run, from the second), so no raw file is
kept twice.
"""
import argparse
import glob
import json
import lzma
import math
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "out")
PLOTS = os.path.join(HERE, "plots")
SPACEC = os.environ.get("SPACEC", os.path.join(TOP, "build", "spacec"))


def best_fraction(trace, optimum, evals):
    best = min(trace[:evals], default=math.inf)
    return optimum / best if math.isfinite(best) else 0.0


def stats(xs):
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return statistics.median(xs), q[0], q[2]


def curve(traces, optimum, evals):
    """Median over seeds of the best fraction after 1..evals evaluations."""
    seeds = list(traces.values())
    return [statistics.median(best_fraction(t, optimum, i) for t in seeds)
            for i in range(1, evals + 1)]


def raw(srcs, name):
    """NAME or NAME.xz in the first folder of srcs that holds either (None
    if none does), opened as text."""
    for src in srcs:
        path = os.path.join(src, name)
        for p, opener in ((path, open), (path + ".xz", lzma.open)):
            if os.path.exists(p):
                return opener(p, "rt")
    return None


def load(srcs, name):
    with raw(srcs, name + ".spacetune.json") as f:
        r = json.load(f)
    # older results hold the database's absolute path; now relative to the top
    r["db"] = os.path.join(TOP, r["db"])
    f = raw(srcs, name + ".kt.jsonl")
    if f:
        with f:
            runs = [json.loads(line) for line in f]
        # only seeds every strategy and budget finished (a run stopped by
        # --until stops inside a seed)
        cells = {(x["strategy"], x["evals"]) for x in runs}
        seeds = [sd for sd in {x["seed"] for x in runs}
                 if all(any(x["seed"] == sd and (x["strategy"], x["evals"]) == c for x in runs)
                        for c in cells)]
        stopped = {}
        for x in runs:
            if x["seed"] in seeds:
                r["traces"].setdefault("kt:" + x["strategy"], {}).setdefault(
                    str(x["evals"]), {})[str(x["seed"])] = x["trace"]
                if x.get("stopped"):
                    why = ("still running at run.py's per-search time limit"
                           if x["stopped"].startswith("after") else "`" + x["stopped"] + "`")
                    stopped.setdefault((x["strategy"], why), []).append(x)
        r["stopped"] = stopped
    return r


def full_space(db):
    """The number of points of the dataset's whole space (spacec count)."""
    import lzma
    opener = lzma.open if db.endswith(".xz") else open
    with opener(db, "rt") as f:
        rec = json.loads(f.readline())
    sets = [x for s in (rec.get("problem") or "").split() for x in ("--set", s)]
    out = subprocess.run([SPACEC, "count", os.path.join(TOP, "spaces", rec["space"] + ".space")] + sets,
                         capture_output=True, text=True, check=True).stdout
    return int(out.split()[0]), rec["space"], rec.get("problem") or ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--default", default="bo", help="the strategy the target lines judge")
    ap.add_argument("--from", dest="src", action="append",
                    help="a folder of raw results (default bench/search/out); several: "
                         "each file from the first that holds it")
    a = ap.parse_args()
    srcs = a.src or [OUT]
    os.makedirs(PLOTS, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)  # the plots' data files
    default = "spacetune:" + a.default
    names = {os.path.basename(p).split(".spacetune.json")[0]
             for src in srcs for p in glob.glob(os.path.join(src, "*.spacetune.json*"))}
    for name in sorted(names):
        r = load(srcs, name)
        budgets, opt = r["budgets"], r["optimum_ms"]
        whole, space, problem = full_space(r["db"])
        seeds = {s: len(next(iter(v.values()))) for s, v in r["traces"].items() if v}
        part = "complete" if r["points"] == whole else "partial"
        print(f"\n### {name}: {r['points']:,} recorded of {whole:,} points ({part}), "
              f"optimum {opt:.6g} ms\n")
        print(f"`spaces/{space}.space` with `{problem}`; "
              f"{os.path.relpath(r['db'], TOP)}.  Seeds: " + ", ".join(
                  sorted({f"{k.split(':')[0]} {v}" for k, v in seeds.items()})) + ".\n")
        print("| strategy | " + " | ".join(
            f"{b} evals ({p}%)" for b, p in zip(budgets, (1, 2, 5, 10))) + " |")
        print("|---|" + "---|" * len(budgets))
        medians = {}
        for s in sorted(r["traces"], key=lambda s: (not s.startswith("spacetune"), s)):
            cells = []
            for b in budgets:
                runs = r["traces"][s].get(str(b))
                if not runs:
                    cells.append("-")
                    continue
                m, lo, hi = stats([best_fraction(t, opt, b) for t in runs.values()])
                medians[(s, b)] = m
                cells.append(f"{m:.3f} [{lo:.3f}, {hi:.3f}]")
            label = f"**{s}**" if s == default else s
            print(f"| {label} | " + " | ".join(cells) + " |")
        for (s, why), xs in sorted(r.get("stopped", {}).items()):
            n = len(r["traces"]["kt:" + s]) * len(next(iter(r["traces"]["kt:" + s].values())))
            print(f"\nKernel Tuner's `{s}` failed in {len(xs)} of its {n} searches "
                  f"({why}; run.py scores them on the evaluations they ran, median "
                  f"{statistics.median(len(x['trace']) for x in xs):.0f}).")
        if any(k[0] == default for k in medians):
            b2 = budgets[1]
            hit = medians.get((default, b2), 0) >= 0.95
            worse = [(s, b) for (s, b), m in medians.items()
                     if s.startswith("kt:") and m > medians.get((default, b), 0) + 1e-9]
            print(f"\nTarget ({a.default}"
                  + (", the default under a budget" if a.default == "bo" else "")
                  + ": median >= 0.95 at 2 %): "
                  + ("met" if hit else f"**MISSED** ({medians.get((default, b2), 0):.3f}, "
                                       f"{0.95 - medians.get((default, b2), 0):.3f} short)")
                  + "; at least every Kernel Tuner median at every budget: "
                  + ("no Kernel Tuner results" if not any(s.startswith("kt:") for s, _ in medians)
                     else "met" if not worse else "**MISSED**, below " + ", ".join(
                      f"{s[3:]} at {b} evaluations ({medians[(s, b)]:.3f} vs "
                      f"{medians.get((default, b), 0):.3f}, by "
                      f"{medians[(s, b)] - medians.get((default, b), 0):.3f})"
                      for s, b in sorted(worse, key=lambda x: (x[1], x[0])))))
        draw(name, r, opt)
        print(f"\n![{name}: convergence of the 10 % searches](plots/{name}.png)")


def draw(name, r, opt):
    evals = r["budgets"][-1]
    dat = os.path.join(OUT, name + ".curves")
    series = sorted(s for s in r["traces"] if str(evals) in r["traces"][s])
    curves = [curve(r["traces"][s][str(evals)], opt, evals) for s in series]
    with open(dat, "w") as f:
        for i in range(evals):
            f.write(f"{100.0 * (i + 1) / r['points']:.4f} " +
                    " ".join(f"{c[i]:.5f}" for c in curves) + "\n")
    png = os.path.join(PLOTS, name + ".png")
    counts = {}
    for s in series:
        counts.setdefault(s.split(":")[0], len(r["traces"][s][str(evals)]))
    seeds = ", ".join(f"{tool}: {k} seeds" for tool, k in counts.items())
    plots = ", ".join(
        f"'{dat}' using 1:{k + 2} with lines lw {3 if s.startswith('spacetune') else 1.5} "
        f"dt {1 if s.startswith('spacetune') else 2} title '{s}'"
        for k, s in enumerate(series))
    script = f"""set terminal pngcairo size 900,560 font ',10'
set output '{png}'
set termoption noenhanced
set title '{name}: median over the seeds of the best found, the {evals}-evaluation (10 %) searches ({seeds})'
set xlabel 'evaluations (% of the recorded points)'
set ylabel 'best found / optimum'
set key bottom right
set grid
set yrange [0:1.02]
plot {plots}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    main()
