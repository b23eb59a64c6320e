#!/usr/bin/env python3
"""Threads and shards of spacec's compiled path, measured (runtime/par.c).

  bench/par.py threads [--threads 1,2,4,8,16] [--repeat 3] SPACE[:ARGS]...
      time of `spacec stats --threads T` against T: the runtime's own
      "elapsed" (enumeration, with the counting walks that pick the task
      level; not the compile step), the best of --repeat runs, and the
      speedup over one thread.  Every run must print the same statistics
      (checked: a mismatch is flagged in the table).

  bench/par.py shards [--shards 2,4,8,16] [--parallel] SPACE[:ARGS]...
      cuts each space into N shards (`--shard I/N --threads 1`) and
      prints, per N, the imbalance max/mean of the shards' valid points,
      candidates visited (work done) and elapsed time.  With --parallel the
      N shards run at once (as on N cluster nodes; needs N cores), else
      one after the other.  The shards' points must add up to the whole.

SPACE[:ARGS]: a .space file, optionally followed by ':' and extra spacec
arguments separated by spaces, e.g.
  'spaces/gemm_beast.space:--device-profile spaces/gemm_beast_h100_sp.json'
The compiled enumerator is cached with `--jit=cc` before timing.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys


def parse_space(text):
    path, _, args = text.partition(":")
    return path, shlex.split(args)


def stats(spacec, path, args, extra):
    out = subprocess.run([spacec, "stats", "-w", "--jit=cc", path] + args + extra,
                         check=True, capture_output=True, text=True).stdout
    elapsed = float(re.search(r"^elapsed:\s+([0-9.]+)", out, re.M).group(1))
    valid = int(re.search(r"^valid points:\s+(\d+)", out, re.M).group(1))
    cand = int(re.search(r"^candidates visited:\s+(\d+)", out, re.M).group(1))
    table = "\n".join(l for l in out.splitlines() if not l.startswith("elapsed:"))
    return elapsed, valid, cand, table


def label(path, args):
    return os.path.basename(path) + (" " + " ".join(args) if args else "")


def bench_threads(a):
    counts = [int(x) for x in a.threads.split(",")]
    print("| space | valid | " + " | ".join(f"{t} thr s" for t in counts) +
          " | " + " | ".join(f"x{t}" for t in counts[1:]) + " |")
    print("|---|---|" + "---|" * (2 * len(counts) - 1))
    for spec in a.spaces:
        path, args = parse_space(spec)
        stats(a.spacec, path, args, ["--threads", "1"])  # fills the cc cache
        best, ref, same = {}, None, True
        valid = 0
        for t in counts:
            for _ in range(a.repeat):
                e, valid, _, table = stats(a.spacec, path, args, ["--threads", str(t)])
                best[t] = min(best.get(t, e), e)
                ref = ref or table
                same &= table == ref
        cells = [f"{best[t]:.3f}" for t in counts]
        speed = [f"{best[counts[0]] / best[t]:.1f}" if best[t] > 0 else "-" for t in counts[1:]]
        flag = "" if same else " **statistics differ**"
        print(f"| {label(path, args)}{flag} | {valid} | " + " | ".join(cells) + " | " +
              " | ".join(speed) + " |", flush=True)


def run_shards(a, path, args, n):
    extra = ["--threads", "1"]
    cmds = [[a.spacec, "stats", "-w", "--jit=cc", path] + args + extra + ["--shard", f"{i}/{n}"]
            for i in range(n)]
    if a.parallel:
        procs = [subprocess.Popen(c, stdout=subprocess.PIPE, text=True) for c in cmds]
        outs = [p.communicate()[0] for p in procs]
    else:
        outs = [subprocess.run(c, check=True, capture_output=True, text=True).stdout for c in cmds]
    res = []
    for out in outs:
        res.append((float(re.search(r"^elapsed:\s+([0-9.]+)", out, re.M).group(1)),
                    int(re.search(r"^valid points:\s+(\d+)", out, re.M).group(1)),
                    int(re.search(r"^candidates visited:\s+(\d+)", out, re.M).group(1))))
    return res


def imbalance(xs):
    mean = sum(xs) / len(xs)
    return max(xs) / mean if mean else float("nan")


def bench_shards(a):
    ns = [int(x) for x in a.shards.split(",")]
    print("| space | N | valid | max/mean points | max/mean candidates | max/mean time | "
          "max shard s | whole s |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in a.spaces:
        path, args = parse_space(spec)
        whole, valid, _, _ = stats(a.spacec, path, args, ["--threads", "1"])
        for n in ns:
            res = run_shards(a, path, args, n)
            total = sum(r[1] for r in res)
            flag = "" if total == valid else f" **shards add up to {total}**"
            print(f"| {label(path, args)}{flag} | {n} | {valid} | {imbalance([r[1] for r in res]):.2f} | "
                  f"{imbalance([r[2] for r in res]):.2f} | {imbalance([r[0] for r in res]):.2f} | "
                  f"{max(r[0] for r in res):.3f} | {whole:.3f} |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["threads", "shards"])
    p.add_argument("spaces", nargs="+")
    p.add_argument("--spacec", default=os.environ.get("SPACEC", "./spacec"))
    p.add_argument("--threads", default="1,2,4,8,16")
    p.add_argument("--shards", default="2,4,8,16")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--parallel", action="store_true")
    a = p.parse_args()
    (bench_threads if a.mode == "threads" else bench_shards)(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
