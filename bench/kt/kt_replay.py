#!/usr/bin/env python3
"""kt_replay.py: replay a `spacetune export --kt-cache` file with Kernel
Tuner's own simulation mode (tune_kernel(..., cache=FILE,
simulation_mode=True)) and check that it read every record.

    bench/kt/venv/bin/python bench/kt/kt_replay.py CACHE.json [STRATEGY [OPTIONS_JSON]]

Kernel Tuner's search space is the product of tune_params filtered by the
restrictions; a configuration it proposes that the cache lacks is an
error in simulation mode.  Our space is what the records hold, so the
restriction is membership in the cache.  With brute_force (the default)
every configuration is looked up: the script checks that Kernel Tuner
returns one result per record, with the recorded time or error, and the
same best as the file.  Prints one line "kt: ..." and exits 1 on a
mismatch.
"""
import json
import sys
import warnings

import kernel_tuner

# The stand-in kernel source has no arguments and no block dimensions:
# Kernel Tuner warns about both, and neither matters to a simulation.
warnings.simplefilter("ignore", UserWarning)


def main():
    path = sys.argv[1]
    strategy = sys.argv[2] if len(sys.argv) > 2 else "brute_force"
    options = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
    with open(path) as f:
        c = json.load(f)
    keys = c["tune_params_keys"]
    tune_params = {k: c["tune_params"][k] for k in keys}
    recorded = c["cache"]

    def key_of(p):
        return ",".join(str(p[k]) for k in keys)

    def restrict(p):
        return key_of(p) in recorded

    name = c["kernel_name"]
    results, env = kernel_tuner.tune_kernel(
        name, "__kernel void %s() {}" % name, 1, [], tune_params,
        restrictions=restrict, cache=path, simulation_mode=True, strategy=strategy,
        strategy_options=options, lang="OpenCL", verbose=False, quiet=True)

    seen = {}
    for r in results:
        seen[key_of(r)] = r
    bad = []
    for k, rec in recorded.items():
        got = seen.get(k)
        if got is None:
            if strategy == "brute_force":
                bad.append("missing %s" % k)
            continue
        want = rec["time"]
        have = got.get("time")
        if isinstance(want, str):
            if str(have) != want and str(got.get("__error__", "")) != want:
                bad.append("%s: %r, recorded %s" % (k, have, want))
        elif not (isinstance(have, float) and abs(have - want) <= 1e-12 * abs(want)):
            bad.append("%s: %r, recorded %r" % (k, have, want))
    ok = {k: r["time"] for k, r in recorded.items() if not isinstance(r["time"], str)}
    best_file = min(ok, key=ok.get) if ok else None
    ran = {key_of(r): r["time"] for r in results if isinstance(r.get("time"), float)}
    best_kt = min(ran, key=ran.get) if ran else None
    if strategy == "brute_force" and best_kt != best_file:
        bad.append("best %s, the file's %s" % (best_kt, best_file))
    print("kt: %s read %d results of %d records (%d timed); best %s at %s (file: %s); "
          "kernel_tuner %s" % (strategy, len(seen), len(recorded), len(ok),
                               ran.get(best_kt), best_kt, best_file, kernel_tuner.__version__))
    for b in bad[:10]:
        print("kt: mismatch:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
