#!/usr/bin/env python3
"""bench/search/report.py - the table and convergence plots of
bench/search/run.py's results (bench/search/out/*.json).

Prints, per dataset x strategy x budget, the median and interquartile
range over the seeds of the best found as a fraction of the optimum, and
whether the default strategy meets issue 15's target on each dataset;
draws one convergence plot per dataset (gnuplot, PNG) into
bench/search/plots/.  Usage: bench/search/report.py [--default bo]
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
PLOTS = os.path.join(HERE, "plots")


def best_fraction(trace, optimum, evals):
    best = min(trace[:evals], default=math.inf)
    return optimum / best if math.isfinite(best) else 0.0


def stats(xs):
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return statistics.median(xs), q[0], q[2]


def curve(traces, optimum, evals):
    """Median over seeds of the best fraction after 1..evals evaluations."""
    seeds = list(traces.values())
    out = []
    for i in range(1, evals + 1):
        out.append(statistics.median(best_fraction(t, optimum, i) for t in seeds))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--default", default="bo")
    a = ap.parse_args()
    os.makedirs(PLOTS, exist_ok=True)
    default = "spacetune:" + a.default
    for path in sorted(glob.glob(os.path.join(OUT, "*.json"))):
        if path.endswith(".kt.json"):
            continue
        with open(path) as f:
            r = json.load(f)
        name = os.path.basename(path)[:-5]
        budgets, opt = r["budgets"], r["optimum_ms"]
        print(f"\n### {name}: {r['points']} points, optimum {opt:.6g} ms "
              f"({os.path.relpath(r['dataset'], os.path.dirname(os.path.dirname(HERE)))})\n")
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
        if any(k[0] == default for k in medians):
            b2 = budgets[1]
            hit = medians.get((default, b2), 0) >= 0.95
            worse = [(s, b) for (s, b), m in medians.items()
                     if s.startswith("kt:") and m > medians.get((default, b), 0) + 1e-9]
            print(f"\nTarget ({a.default}: median >= 0.95 at 2 %): "
                  + ("met" if hit else f"MISSED ({medians.get((default, b2), 0):.3f})")
                  + "; at least every Kernel Tuner median at every budget: "
                  + ("met" if not worse else "MISSED, below " + ", ".join(
                      f"{s[3:]} at {b} ({medians[(s, b)]:.3f} vs {medians[(default, b)]:.3f})"
                      for s, b in sorted(worse, key=lambda x: (x[1], x[0])))))
        draw(name, r, opt)


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
        tool = s.split(":")[0]
        counts.setdefault(tool, len(r["traces"][s][str(evals)]))
    seeds = ", ".join(f"{tool}: {k} seeds" for tool, k in counts.items())
    plots = ", ".join(
        f"'{dat}' using 1:{k + 2} with lines lw {3 if s.startswith('spacetune') else 1.5} "
        f"dt {1 if s.startswith('spacetune') else 2} title '{s}'"
        for k, s in enumerate(series))
    script = f"""set terminal pngcairo size 900,560 font ',10'
set output '{png}'
set termoption noenhanced
set title '{name}: median over the seeds of the best found, the {evals}-evaluation (10 %) searches ({seeds})'
set xlabel 'evaluations (% of the space)'
set ylabel 'best found / optimum'
set key bottom right
set grid
set yrange [0:1.02]
plot {plots}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    main()
