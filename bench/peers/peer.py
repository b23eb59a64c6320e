#!/usr/bin/env python3
"""Build one search space with one peer tool, in this process; print JSON.

    .venv/bin/python peer.py TOOL SPACE [CFG_JSON]

TOOL:  python-constraint2 | kernel_tuner | pyatf
SPACE: a module in defs/ (e.g. clblast_xgemm, gemm_beast)
CFG:   device parameters and settings to override (JSON object)

Prints {"tool", "space", "count", "enum_s"}: count is the number of valid
configurations the tool built; enum_s is the construction alone, measured
after every import (and after the space's definition module has been
loaded), with time.perf_counter():

  python-constraint2  Problem(OptimizedBacktrackingSolver(forwardcheck=False)),
                      addVariable per parameter, addConstraint per restriction
                      string, getSolutionsAsListDict(order=params): exactly
                      Kernel Tuner's Searchspace.__build_searchspace.
  kernel_tuner        kernel_tuner.searchspace.Searchspace(tune_params,
                      restrictions, max_threads, block_size_names=...), the
                      object tune_kernel builds (default framework
                      PythonConstraint, solver PC_OptimizedBacktrackingSolver).
  pyatf               the TP definitions (with their constraint functions) and
                      pyatf.search_space.SearchSpace(*tps) (chain of trees, no
                      1-D index, no progress output): what Tuner.tune builds
                      before the first evaluation with its default technique.
"""
import importlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "defs"))


def main():
    tool, space = sys.argv[1], sys.argv[2]
    cfg = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    mod = importlib.import_module(space)
    if tool == "python-constraint2":
        from constraint import Problem, OptimizedBacktrackingSolver
        domains, restrictions = mod.python_constraint(cfg)
        t0 = time.perf_counter()
        problem = Problem(OptimizedBacktrackingSolver(forwardcheck=False))
        for name, values in domains.items():
            problem.addVariable(name, values)
        for r in restrictions:
            problem.addConstraint(r)
        _, _, count = problem.getSolutionsAsListDict(order=list(domains))
        t1 = time.perf_counter()
    elif tool == "kernel_tuner":
        from kernel_tuner.searchspace import Searchspace
        tune_params, restrictions, block_size_names, max_threads = mod.kernel_tuner(cfg)
        t0 = time.perf_counter()
        ss = Searchspace(tune_params, restrictions, max_threads, block_size_names=block_size_names)
        t1 = time.perf_counter()
        count = ss.size
    elif tool == "pyatf":
        from pyatf import TP, Interval, Set  # noqa: F401  (imports outside the timed region)
        from pyatf.search_space import SearchSpace
        t0 = time.perf_counter()
        tps = mod.pyatf(cfg)
        ss = SearchSpace(*tps, enable_1d_access=False, verbosity=0)
        t1 = time.perf_counter()
        count = ss.constrained_size
    else:
        sys.exit("unknown tool %r" % tool)
    print(json.dumps({"tool": tool, "space": space, "count": count, "enum_s": t1 - t0}))


if __name__ == "__main__":
    main()
