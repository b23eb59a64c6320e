#!/usr/bin/env python3
"""spacec side by side with its peers: python-constraint2, Kernel Tuner, pyATF.

    python3 bench/peers/run.py [--spaces A,B] [--tools T,U] [--repeat N]
                               [--timeout S] [--quick] [--json FILE]

Creates bench/peers/.venv (python3 -m venv) on first use and installs the
pinned peers from PyPI into it.  Every space goes through every tool, each
run in its own process, and one markdown table is printed on stdout
(progress on stderr).  See bench/peers/README.md for what is timed.

Spaces (--spaces, by the names below; default all): one per spaces/*.space,
plus gemm_beast@32 (the K40c space with every thread-block limit set to 32,
small enough for every peer) and gemm_beast_h100 (the H100 profile).
A spaces/*.space without a peer version in defs/ runs through spacec only.

Tools (--tools; default all): spacec (the cold `count --jit=cc` with an
empty cache, the default `count` on the warm cache, and `stats` on the
warm cache for the enumeration time), spacec-auto (the default `count`
with an empty cache: a first run, auto picks cc or libtcc), spacec-tcc
(`count --jit=tcc` and `stats --jit=tcc`), python-constraint2,
kernel_tuner, pyatf.
"""
import argparse
import glob
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(HERE, ".venv")
VPY = os.path.join(VENV, "bin", "python")
PINS = {"python-constraint2": "2.9.0", "kernel_tuner": "1.5.0", "pyatf": "0.0.13"}
PEERS = ["python-constraint2", "kernel_tuner", "pyatf"]
ALL_TOOLS = ["spacec", "spacec-auto", "spacec-tcc", "spacec-matrix"] + PEERS

SMALL = {"max_threads_dim_x": 32, "max_threads_dim_y": 32, "max_threads_per_block": 32}
H100 = os.path.join(TOP, "spaces", "gemm_beast_h100_sp.json")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- venv

def ensure_venv():
    if not os.path.exists(VPY):
        log("creating %s" % VENV)
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    want = ["%s==%s" % kv for kv in PINS.items()]
    probe = ("import importlib.metadata as m, json\n"
             "d = {}\n"
             "for n in %r:\n"
             "    try: d[n] = m.version(n)\n"
             "    except m.PackageNotFoundError: d[n] = None\n"
             "print(json.dumps(d))" % list(PINS))
    have = json.loads(subprocess.run([VPY, "-c", probe], check=True, stdout=subprocess.PIPE,
                                     text=True).stdout)
    if any(have.get(n) != v for n, v in PINS.items()):
        log("installing %s into %s" % (" ".join(want), VENV))
        subprocess.run([VPY, "-m", "pip", "install", "-q", "--disable-pip-version-check"] + want,
                       check=True)
    return dict(PINS)


# --------------------------------------------------------------------------- spaces

def load_profile(path):
    with open(path) as f:
        return json.load(f)


def snapshot_spacec(path, tmp):
    """Copy a libtool-built spacec (and libspacert) so that a rebuild of the
    tree during a long run cannot change, or break, the binary under test.
    Returns (command, environment additions)."""
    libs = os.path.join(os.path.dirname(os.path.abspath(path)), ".libs")
    real = os.path.join(libs, os.path.basename(path))
    if not os.path.exists(real):           # not a libtool wrapper: use as it is
        return path, {}
    d = os.path.join(tmp, "spacec-bin")
    os.makedirs(d)
    shutil.copy2(real, os.path.join(d, "spacec"))
    for so in glob.glob(os.path.join(libs, "libspacert.so*")):
        shutil.copy2(so, d, follow_symlinks=True)
    return os.path.join(d, "spacec"), {"LD_LIBRARY_PATH": d}


def variants(quick):
    """(name, .space file, peer module or None, cfg, validate-cfg or None)."""
    out = []
    files = sorted(glob.glob(os.path.join(TOP, "spaces", "*.space")))
    for f in files:
        base = os.path.splitext(os.path.basename(f))[0]
        mod = base if os.path.exists(os.path.join(HERE, "defs", base + ".py")) else None
        if base == "gemm_beast":
            h100 = load_profile(H100)
            if quick:
                out.append(("gemm_beast@32", f, mod, dict(SMALL), None))
                out.append(("gemm_beast_h100@32", f, mod, dict(h100, **SMALL), None))
            else:
                out.append(("gemm_beast@32", f, mod, dict(SMALL), None))
                out.append(("gemm_beast", f, mod, {}, dict(SMALL)))
                out.append(("gemm_beast_h100", f, mod, h100, dict(h100, **SMALL)))
        else:
            out.append((base, f, mod, {}, None))
    return out


def spacec_args(cfg):
    a = []
    for k, v in cfg.items():
        a += ["--set", "%s=%s" % (k, v)]
    return a


# --------------------------------------------------------------------------- running

class Result:
    def __init__(self, wall, rss_mib, rc, out, err, timed_out):
        self.wall, self.rss, self.rc, self.out, self.err, self.timed_out = (
            wall, rss_mib, rc, out, err, timed_out)


SPACEC_ENV = {}


def run(cmd, env=None, timeout=None, mem_gib=None):
    """Run under /usr/bin/time in a new process group; kill the group on timeout."""
    env = dict(env if env is not None else os.environ, **SPACEC_ENV)
    def limits():
        if mem_gib:
            b = int(mem_gib * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "MAXRSS %M"] + cmd, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, preexec_fn=limits)
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        timed_out = True
    wall = time.perf_counter() - t0
    m = re.search(r"MAXRSS (\d+)", err or "")
    return Result(wall, int(m.group(1)) / 1024.0 if m else None, p.returncode, out, err, timed_out)


def repeated(fn, repeat, timeout):
    """Call fn() up to `repeat` times; stop after a timeout or an error, or once
    the runs so far have taken more than `timeout` seconds together."""
    runs, spent = [], 0.0
    for _ in range(repeat):
        r = fn()
        runs.append(r)
        spent += r.get("wall", 0.0)
        if r.get("status") != "ok" or spent > timeout:
            break
    return runs


def summarise(runs, key):
    ok = [r for r in runs if r.get("status") == "ok" and r.get(key) is not None]
    if not runs:
        return {"status": "not run"}
    if len(ok) < len(runs) and not ok:
        bad = runs[-1]
        return {"status": bad["status"], "detail": bad.get("detail"), "n": len(runs)}
    s = {"status": "ok", "n": len(ok), key: statistics.median(r[key] for r in ok),
         "all": [r[key] for r in ok], "count": ok[-1].get("count"),
         "rss": max((r.get("rss") or 0) for r in ok)}
    if any("compile" in r for r in ok):
        s["compile"] = statistics.median(r["compile"] for r in ok if "compile" in r)
    return s


def spacec_once(a, cmd, env, parse):
    r = run(cmd, env=env, timeout=a.timeout, mem_gib=a.mem_limit_gib)
    d = {"wall": r.wall, "rss": r.rss}
    if r.timed_out:
        d.update(status="timeout")
        return d
    if r.rc != 0:
        d.update(status="error", detail=(r.err or "").strip().splitlines()[-2:])
        return d
    d["status"] = "ok"
    parse(d, r)
    return d


def parse_count(d, r):
    d["count"] = int(r.out.strip().splitlines()[-1])
    m = re.search(r"built with (\S+)( \(cached\))? in ([0-9.]+) s", r.err)
    if m:
        d["built"] = m.group(1) + (m.group(2) or "")
        d["compile"] = float(m.group(3))


def parse_stats(d, r):
    m = re.search(r"valid points:\s+(\d+)", r.out)
    d["count"] = int(m.group(1)) if m else None
    m = re.search(r"elapsed:\s+([0-9.]+) s", r.out)
    d["enum"] = float(m.group(1)) if m else None
    m = re.search(r"built with (\S+)( \(cached\))? in ([0-9.]+) s", r.err)
    if m:
        d["built"] = m.group(1) + (m.group(2) or "")


def bench_spacec(a, space, cfg, tmp):
    """Rows 'spacec' (cold cc), 'spacec (cached)' and their enumeration time."""
    args = ["-w", "-v"] + spacec_args(cfg)
    warm = None
    caches = []

    def cold():
        nonlocal warm
        cache = tempfile.mkdtemp(dir=tmp)
        caches.append(cache)
        warm = cache
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        d = spacec_once(a, [a.spacec, "count", "--jit=cc"] + args + [space], env, parse_count)
        d["job"] = d["wall"]
        return d

    cold_runs = repeated(cold, a.repeat, a.timeout)
    rows = {"spacec": summarise(cold_runs, "job")}
    if rows["spacec"]["status"] != "ok":
        why = {"status": rows["spacec"]["status"], "detail": "not run: the cold count did not finish"}
        rows["spacec (cached)"] = dict(why)
        rows["spacec"]["enum_detail"] = why
        return rows
    env = dict(os.environ, XDG_CACHE_HOME=warm)

    def cached():
        d = spacec_once(a, [a.spacec, "count"] + args + [space], env, parse_count)
        d["job"] = d["wall"]
        if d.get("status") == "ok" and d.get("built") != "cc (cached)":
            d.update(status="error", detail="expected a cached cc build, got %s" % d.get("built"))
        return d
    rows["spacec (cached)"] = summarise(repeated(cached, a.repeat, a.timeout), "job")

    def stats():
        d = spacec_once(a, [a.spacec, "stats"] + args + [space], env, parse_stats)
        if d.get("status") == "ok" and d.get("built") != "cc (cached)":
            d.update(status="error", detail="expected a cached cc build, got %s" % d.get("built"))
        return d
    st = summarise(repeated(stats, a.repeat, a.timeout), "enum")
    rows["spacec"]["enum"] = st.get("enum")
    rows["spacec"]["enum_n"] = st.get("n")
    rows["spacec"]["enum_status"] = st["status"]
    rows["spacec (cached)"]["enum"] = st.get("enum")
    rows["spacec (cached)"]["enum_status"] = st["status"]
    for c in caches:
        shutil.rmtree(c, ignore_errors=True)
    return rows


def bench_spacec_tcc(a, space, cfg, tmp):
    """Row 'spacec-tcc': cold `count --jit=tcc`, and `stats --jit=tcc`."""
    args = ["-w", "-v"] + spacec_args(cfg)
    cache = tempfile.mkdtemp(dir=tmp)     # libtcc builds in memory: nothing is cached
    env = dict(os.environ, XDG_CACHE_HOME=cache)

    def cold():
        d = spacec_once(a, [a.spacec, "count", "--jit=tcc"] + args + [space], env, parse_count)
        d["job"] = d["wall"]
        return d
    row = summarise(repeated(cold, a.repeat, a.timeout), "job")
    if row["status"] == "ok":
        def stats():
            return spacec_once(a, [a.spacec, "stats", "--jit=tcc"] + args + [space], env, parse_stats)
        st = summarise(repeated(stats, a.repeat, a.timeout), "enum")
        row["enum"], row["enum_status"] = st.get("enum"), st["status"]
    shutil.rmtree(cache, ignore_errors=True)
    return row


def bench_spacec_auto(a, space, cfg, tmp):
    """Row 'spacec-auto': the default `count` (--jit=auto) with an empty cache,
    i.e. a user's first run; auto picks cc or libtcc by itself."""
    args = ["-w", "-v"] + spacec_args(cfg)
    builds = []

    def cold():
        cache = tempfile.mkdtemp(dir=tmp)
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        d = spacec_once(a, [a.spacec, "count"] + args + [space], env, parse_count)
        d["job"] = d["wall"]
        builds.append(d.get("built"))
        shutil.rmtree(cache, ignore_errors=True)
        return d
    row = summarise(repeated(cold, a.repeat, a.timeout), "job")
    row["built"] = "/".join(sorted(set(b for b in builds if b)))
    return row


def matrix_rows(threads_all):
    """(row name, extra spacec arguments) of the -O x threads x mode matrix."""
    out = []
    for olevel in ("-O2", "-O0"):
        for nt in (1, threads_all):
            for mode in ("count", "list"):
                out.append(("spacec %s %dT %s" % (olevel, nt, mode), olevel, nt, mode))
    return out


def parse_timed(d, r):
    """A warm `count`/`list` run: wall time is the job, the runtime's
    'enumerated in X s' line (printed with -v) the enumeration alone."""
    m = re.search(r"enumerated in ([0-9.]+) s", r.err or "")
    d["enum"] = float(m.group(1)) if m else None
    m = re.search(r"(\d+) points", r.err or "")
    if r.out.strip() and re.fullmatch(r"\d+", r.out.strip().splitlines()[-1]):
        d["count"] = int(r.out.strip().splitlines()[-1])
    elif m:
        d["count"] = int(m.group(1))


def bench_spacec_matrix(a, space, cfg, tmp):
    """Rows 'spacec -O{2,0} {1,N}T {count,list}': the warm cc build (built
    once, outside the timing), counting and listing to the binary sink
    (/dev/null), one thread and every core."""
    args = ["-w", "-v"] + spacec_args(cfg)
    cache = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    rows = {}
    for name, olevel, nt, mode in matrix_rows(os.cpu_count() or 1):
        cmd = [a.spacec, mode, "--jit=cc", olevel, "--threads", str(nt)] + args
        if mode == "list":
            cmd += ["--format", "binary", "-o", "/dev/null"]
        warm = run(cmd + [space], env=env, timeout=a.timeout, mem_gib=a.mem_limit_gib)
        if warm.timed_out or warm.rc != 0:
            rows[name] = {"status": "timeout" if warm.timed_out else "error",
                          "detail": (warm.err or "").strip().splitlines()[-2:]}
            continue

        def once():
            d = spacec_once(a, cmd + [space], env, parse_timed)
            d["job"] = d["wall"]
            return d
        runs = repeated(once, a.repeat, a.timeout)
        row = summarise(runs, "job")
        if row["status"] == "ok":
            enums = [r["enum"] for r in runs if r.get("enum") is not None]
            if enums:
                row["enum"] = statistics.median(enums)
        rows[name] = row
    shutil.rmtree(cache, ignore_errors=True)
    return rows


def peer_once(a, tool, mod, cfg):
    r = run([VPY, os.path.join(HERE, "peer.py"), tool, mod, json.dumps(cfg)],
            timeout=a.timeout, mem_gib=a.mem_limit_gib)
    d = {"wall": r.wall, "job": r.wall, "rss": r.rss}
    if r.timed_out:
        d["status"] = "timeout"
        return d
    if r.rc != 0:
        tail = (r.err or "").strip().splitlines()
        oom = any("MemoryError" in line for line in tail)
        d.update(status="oom" if oom else "error", detail=tail[-3:])
        return d
    j = json.loads(r.out.strip().splitlines()[-1])
    d.update(status="ok", count=j["count"], enum=j["enum_s"])
    return d


def bench_peer(a, tool, mod, cfg):
    runs = repeated(lambda: peer_once(a, tool, mod, cfg), a.repeat, a.timeout)
    s = summarise(runs, "job")
    if s["status"] == "ok":
        s["enum"] = statistics.median(r["enum"] for r in runs if r.get("status") == "ok")
    return s


# --------------------------------------------------------------------------- table

def fmt_t(t, status="ok", ms_floor=False, timeout=None):
    if status == "timeout" and timeout:
        return "> %g (timeout)" % timeout
    if status != "ok":
        return {"timeout": "timeout", "oom": "out of memory"}.get(status, status or "—")
    if t is None:
        return "—"
    if ms_floor and t < 0.0005:
        return "<0.001"
    if t >= 100:
        return "%.0f" % t
    if t >= 10:
        return "%.1f" % t
    if t >= 1:
        return "%.2f" % t
    return "%.3f" % t


def fmt_rate(count, t, ms_floor=False):
    if count is None or t is None:
        return "—"
    if t < 0.0005 and ms_floor:
        return "> %.2g" % (count / 0.001)
    if t <= 0:
        return "—"
    return "%.3g" % (count / t)


def fmt_ratio(x, base, xstatus, bstatus, timeout):
    if xstatus == "ok" and bstatus == "ok" and x is not None and base is not None:
        if base < 0.0005:
            return "> %.0f×" % (x / 0.001) if x >= 0.001 else "—"
        return "%.3g×" % (x / base)
    if xstatus == "timeout" and bstatus == "ok" and base:
        return "> %.3g×" % (timeout / base)
    if xstatus == "ok" and bstatus == "timeout" and x is not None:
        return "< %.3g×" % (x / timeout)
    return "—"


def table(results, timeout):
    lines = ["| space | tool | valid | job s | enum s | points/s | peak MiB | job ×spacec | enum ×spacec | runs |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for v in results:
        rows = v["rows"]
        base = rows.get("spacec", {})
        bjob, bst = base.get("job"), base.get("status")
        benum, best = base.get("enum"), base.get("enum_status", bst)
        ref = base.get("count") if bst == "ok" else None
        for tool, r in rows.items():
            st = r.get("status")
            est = r.get("enum_status", st)
            spacec_row = tool.startswith("spacec")
            cnt = r.get("count")
            valid = "—" if cnt is None else str(cnt)
            if cnt is not None and ref is not None and cnt != ref:
                valid += " **MISMATCH** (spacec %d)" % ref
            elif cnt is not None and ref is None and not spacec_row:
                valid += " (unchecked)"
            tmo = r.get("timeout_s", timeout)
            job = fmt_t(r.get("job"), st, timeout=tmo)
            if r.get("compile") is not None and st == "ok":
                how = {"spacec": "cc", "spacec (cached)": "cached", "spacec-tcc": "tcc",
                       "spacec-auto": r.get("built", "")}.get(tool, "")
                job += " (build %s %s)" % (how, fmt_t(r["compile"], ms_floor=True))
            if st not in ("ok",) and r.get("detail"):
                d = r["detail"]
                job += " (%s)" % (d if isinstance(d, str) else " / ".join(d))[:120].replace("|", "/")
            enum = fmt_t(r.get("enum"), est, ms_floor=spacec_row, timeout=tmo)
            rate = fmt_rate(cnt, r.get("enum") if est == "ok" else None, ms_floor=spacec_row)
            rss = "%.0f" % r["rss"] if st == "ok" and r.get("rss") else "—"
            jr = fmt_ratio(r.get("job"), bjob, st, bst, tmo)
            er = fmt_ratio(r.get("enum"), benum, est, best, tmo)
            n = str(r.get("n", "—"))
            if tool == "spacec" and r.get("enum_n") and r.get("enum_n") != r.get("n"):
                n += "/%d" % r["enum_n"]
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                v["space"], tool, valid, job, enum, rate, rss, jr, er, n))
    return "\n".join(lines)


# --------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spaces", help="comma-separated space names (default: all)")
    ap.add_argument("--tools", help="comma-separated: " + ",".join(ALL_TOOLS))
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (median; default 5)")
    ap.add_argument("--timeout", type=float, help="seconds per run (default 600; 60 with --quick)")
    ap.add_argument("--quick", action="store_true",
                    help="gemm_beast with every thread-block limit 32, one run each, timeout 60 s")
    ap.add_argument("--spacec", default=os.path.join(TOP, "spacec"))
    ap.add_argument("--mem-limit-gib", type=float, default=12,
                    help="address-space limit of each run (default 12 GiB)")
    ap.add_argument("--json", default=os.path.join(HERE, "results", "last.json"))
    ap.add_argument("--from-json", nargs="+", metavar="FILE",
                    help="print the table of earlier runs' JSON files instead of running; "
                    "rows of a later file replace the same tool's rows of an earlier one")
    a = ap.parse_args()
    if a.from_json:
        a.timeout = a.timeout or 600
        merged, heads = {}, []
        for fn in a.from_json:
            with open(fn) as f:
                d = json.load(f)
            heads.append("%s: %s" % (os.path.basename(fn), d["header"]))
            for v in d["results"]:
                m = merged.setdefault(v["space"], {"space": v["space"], "rows": {}})
                for r in v["rows"].values():
                    r.setdefault("timeout_s", d["args"]["timeout"])
                m["rows"].update(v["rows"])
        order = (["spacec", "spacec (cached)", "spacec-auto", "spacec-tcc"]
                 + [m[0] for m in matrix_rows(os.cpu_count() or 1)] + PEERS)
        for m in merged.values():
            m["rows"] = {k: m["rows"][k] for k in order if k in m["rows"]}
        print("\n".join(heads))
        print()
        print(table(list(merged.values()), max(json.load(open(fn))["args"]["timeout"]
                                              for fn in a.from_json)))
        return
    if a.quick:
        a.repeat = 1
    if a.timeout is None:
        a.timeout = 60 if a.quick else 600
    tools = a.tools.split(",") if a.tools else list(ALL_TOOLS)
    for t in tools:
        if t not in ALL_TOOLS:
            ap.error("unknown tool %r (known: %s)" % (t, ", ".join(ALL_TOOLS)))
    if not os.path.exists(a.spacec):
        sys.exit("%s not found: build it first (cd %s && make -j2)" % (a.spacec, TOP))
    versions = ensure_venv() if any(t in PEERS for t in tools) else {}
    vs = variants(a.quick)
    if a.spaces:
        want = a.spaces.split(",")
        unknown = [w for w in want if w not in [v[0] for v in vs]]
        if unknown:
            ap.error("unknown space(s) %s (known: %s)" % (", ".join(unknown), ", ".join(v[0] for v in vs)))
        vs = [v for v in vs if v[0] in want]

    tmp = tempfile.mkdtemp(prefix="spacec-peers-")
    a.spacec, extra_env = snapshot_spacec(a.spacec, tmp)
    SPACEC_ENV.update(extra_env)
    load0 = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    results = []
    for name, space, mod, cfg, vcfg in vs:
        rows = {}
        log("== %s" % name)
        if "spacec" in tools:
            log("   spacec")
            rows.update(bench_spacec(a, space, cfg, tmp))
        if "spacec-auto" in tools:
            log("   spacec-auto")
            rows["spacec-auto"] = bench_spacec_auto(a, space, cfg, tmp)
        if "spacec-tcc" in tools:
            log("   spacec-tcc")
            rows["spacec-tcc"] = bench_spacec_tcc(a, space, cfg, tmp)
        if "spacec-matrix" in tools:
            log("   spacec-matrix")
            rows.update(bench_spacec_matrix(a, space, cfg, tmp))
        ref_small = None
        for tool in [t for t in tools if t in PEERS]:
            if mod is None:
                rows[tool] = {"status": "no peer version"}
                continue
            if vcfg is not None:
                # check the peer's version on the reduced device first
                if ref_small is None:
                    p = run([a.spacec, "count", "-w"] + spacec_args(vcfg) + [space],
                            env=dict(os.environ, XDG_CACHE_HOME=tmp), timeout=a.timeout)
                    ref_small = int(p.out.strip()) if p.rc == 0 and not p.timed_out else -1
                log("   %s (validating on %s)" % (tool, json.dumps(vcfg)))
                chk = peer_once(a, tool, mod, vcfg)
                if chk.get("status") != "ok" or chk.get("count") != ref_small:
                    rows[tool] = {"status": "not run",
                                  "detail": "reduced-device check failed: %s, count %s, spacec %s"
                                  % (chk.get("status"), chk.get("count"), ref_small)}
                    continue
            log("   %s" % tool)
            rows[tool] = bench_peer(a, tool, mod, cfg)
        for r in rows.values():
            r["timeout_s"] = a.timeout
        results.append({"space": name, "file": os.path.relpath(space, TOP), "cfg": cfg, "rows": rows})
        sys.stdout.flush()
    shutil.rmtree(tmp, ignore_errors=True)

    head = git = ""
    try:
        git = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", TOP, "status", "--porcelain", "--untracked-files=no"],
                               stdout=subprocess.PIPE, text=True).stdout.strip()
        git += " (+ uncommitted changes)" if dirty else ""
    except OSError:
        pass
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    head = ("%s · %s, %d cores · load avg %.1f at start, %.1f at end · spacec %s · %s · "
            "median of up to %d runs, timeout %g s" % (
                started, cpu or platform.machine(), os.cpu_count(), load0[0], os.getloadavg()[0],
                git or "?", ", ".join("%s %s" % kv for kv in versions.items()) or "no peers",
                a.repeat, a.timeout))
    print(head)
    print()
    print(table(results, a.timeout))
    if a.json:
        os.makedirs(os.path.dirname(a.json) or ".", exist_ok=True)
        with open(a.json, "w") as f:
            json.dump({"header": head, "args": vars(a), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
