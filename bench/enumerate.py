#!/usr/bin/env python3
"""Enumeration benchmark: every shipped space through every spacec path.

    bench/enumerate.py [--spacec PATH] [--interp-timeout S] [--repeat N] [SPACE...]

For each space it prints one table row:
  valid        valid points (all paths must agree; a mismatch is flagged)
  cartesian    product over iterators of the distinct values each takes
               among the valid points (Kernel Tuner's "Cartesian size" of
               the parameter lists a user would have written)
  cc / tcc     time to build the enumerator with cc -O2 and with libtcc
  count        enumeration time of `count` (cached cc -O2 build)
  binary       time of `list --format binary` to a file (cached build)
  interp       the reference interpreter's `count` time (or >timeout)
  peak MiB     peak resident memory of the `count` run
Times are the median of --repeat runs (default 3), wall clock, seconds.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def run(cmd, env=None, timeout=None):
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M"] + cmd, env=env, timeout=timeout,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    rss = re.search(r"MAXRSS (\d+)", p.stderr)
    return p, dt, (int(rss.group(1)) / 1024.0 if rss else float("nan"))


def built_seconds(stderr):
    m = re.search(r"built with (\S+(?: \(cached\))?) in ([0-9.]+) s", stderr)
    return float(m.group(2)) if m else float("nan")


def stats_elapsed(stdout):
    m = re.search(r"elapsed:\s+([0-9.]+) s", stdout)
    return float(m.group(1)) if m else float("nan")


def cartesian(spacec, space, env, extra):
    p = subprocess.run([spacec, "list", "-w", "--format", "csv", space] + extra, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = p.stdout.splitlines()
    if not lines:
        return 0
    cols = [set() for _ in lines[0].split(",")]
    for line in lines[1:]:
        for i, v in enumerate(line.split(",")):
            cols[i].add(v)
    size = 1
    for c in cols:
        size *= max(len(c), 1)
    return size


def bench(spacec, space, extra, repeat, interp_timeout, cache):
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    row = {"space": os.path.relpath(space, TOP) + (" " + " ".join(extra) if extra else "")}
    # Build times: a fresh cache each time for cc.
    cc_times, tcc_times = [], []
    for i in range(repeat):
        fresh = tempfile.mkdtemp(dir=cache)
        p, _, _ = run([spacec, "count", "-w", "-v", "--jit=cc", space] + extra,
                      env=dict(env, XDG_CACHE_HOME=fresh))
        cc_times.append(built_seconds(p.stderr))
        p, _, _ = run([spacec, "count", "-w", "-v", "--jit=tcc", space] + extra, env=env)
        tcc_times.append(built_seconds(p.stderr))
    row["cc"] = statistics.median(cc_times)
    row["tcc"] = statistics.median(tcc_times)
    # Enumeration with the cached cc build.
    run([spacec, "count", "-w", "--jit=cc", space] + extra, env=env)
    counts, rss = [], []
    valid = None
    for i in range(repeat):
        p, dt, mem = run([spacec, "stats", "-w", "--jit=cc", space] + extra, env=env)
        counts.append(stats_elapsed(p.stdout))
        rss.append(mem)
        m = re.search(r"valid points:\s+(\d+)", p.stdout)
        valid = int(m.group(1)) if m else None
    row["count"] = statistics.median(counts)
    row["peak"] = max(rss)
    row["valid"] = valid
    out = os.path.join(cache, "points.bin")
    lists = []
    for i in range(repeat):
        t0 = time.perf_counter()
        with open(out, "w") as f:
            subprocess.run([spacec, "list", "-w", "--jit=cc", "--format", "binary", space] + extra,
                           env=env, stdout=f, stderr=subprocess.DEVNULL)
        lists.append(time.perf_counter() - t0)
    row["binary"] = statistics.median(lists)
    row["binary_bytes"] = os.path.getsize(out)
    # The interpreter, once (it is the slow oracle).
    try:
        p, dt, _ = run([spacec, "stats", "-w", "--interpret", space] + extra, env=env,
                       timeout=interp_timeout)
        row["interp"] = "%.3f" % stats_elapsed(p.stdout)
        m = re.search(r"valid points:\s+(\d+)", p.stdout)
        if m and valid is not None and int(m.group(1)) != valid:
            row["mismatch"] = "interp %s" % m.group(1)
    except subprocess.TimeoutExpired:
        row["interp"] = ">%d" % interp_timeout
    row["cartesian"] = cartesian(spacec, space, env, extra) if (valid or 0) <= 3_000_000 else None
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spacec", default=os.path.join(TOP, "build", "spacec"))
    ap.add_argument("--interp-timeout", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--h100", action="store_true",
                    help="also gemm_beast with the H100 single-precision profile")
    ap.add_argument("spaces", nargs="*")
    a = ap.parse_args()
    spaces = a.spaces or (sorted(glob.glob(os.path.join(TOP, "spaces", "*.space"))) +
                          sorted(glob.glob(os.path.join(TOP, "spaces", "examples", "*.space"))))
    jobs = [(s, []) for s in spaces]
    if not a.spaces or a.h100:
        profile = os.path.join(TOP, "spaces", "gemm_beast_h100_sp.json")
        jobs.append((os.path.join(TOP, "spaces", "gemm_beast.space"), ["--device-profile", profile]))
    cache = tempfile.mkdtemp(prefix="spacec-bench-")
    hdr = "| space | valid | cartesian | cc s | tcc s | count s | binary s | interp s | peak MiB |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for space, extra in jobs:
        r = bench(a.spacec, space, extra, a.repeat, a.interp_timeout, cache)
        print("| %s | %s%s | %s | %.3f | %.3f | %.2e | %.2e | %s | %.1f |" % (
            r["space"], r["valid"], " **MISMATCH: %s**" % r["mismatch"] if "mismatch" in r else "",
            "%.3g" % r["cartesian"] if r["cartesian"] else "-", r["cc"], r["tcc"], r["count"],
            r["binary"], r["interp"], r["peak"]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
