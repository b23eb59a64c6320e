#!/usr/bin/env python3
"""Checks points of spaces/gaussian.space (CSV with a header, the columns
of `spacec list`) against the space's definition, written out again here
from the ATF sample's constraints: an oracle independent of spacec.
Usage: gaussian_check.py N1 N2 FILE.csv [MAX_WORK_GROUP_SIZE (1024)]; exit 1
on an invalid or repeated point, printing it."""
import csv
import sys

n1, n2 = int(sys.argv[1]), int(sys.argv[2])
max_wg = int(sys.argv[4]) if len(sys.argv) > 4 else 1024  # Kernel Tuner's max_threads


def dim_ok(inp, lcb, pcb, wg, wi, n):
    pow2 = {2 ** i for i in range(13) if 2 ** i <= n}
    return (inp == n and {lcb, pcb, wg, wi} <= pow2 and inp % lcb == 0 and lcb % pcb == 0
            and (inp // lcb) % wg == 0 and (lcb // pcb) % wi == 0 and wi <= (inp + wg - 1) // wg)


seen = set()
rows = 0
with open(sys.argv[3]) as f:
    for r in csv.DictReader(f):
        v = {k: int(float(x)) for k, x in r.items()}
        ok = (v["CACHE_L_CB"] in (0, 1) and v["CACHE_P_CB"] in (0, 1) and v["G_CB_RES_DEST_LEVEL"] == 2
              and v["L_CB_RES_DEST_LEVEL"] in (0, 1, 2) and v["P_CB_RES_DEST_LEVEL"] in (0, 1, 2)
              and v["G_CB_RES_DEST_LEVEL"] >= v["L_CB_RES_DEST_LEVEL"] >= v["P_CB_RES_DEST_LEVEL"]
              and v["OCL_DIM_L_1"] in (0, 1) and v["OCL_DIM_L_2"] in (0, 1)
              and v["OCL_DIM_L_1"] != v["OCL_DIM_L_2"]
              and dim_ok(v["INPUT_SIZE_L_1"], v["L_CB_SIZE_L_1"], v["P_CB_SIZE_L_1"], v["NUM_WG_L_1"],
                         v["NUM_WI_L_1"], n1)
              and dim_ok(v["INPUT_SIZE_L_2"], v["L_CB_SIZE_L_2"], v["P_CB_SIZE_L_2"], v["NUM_WG_L_2"],
                         v["NUM_WI_L_2"], n2)
              and v["L_REDUCTION"] == 1 and v["P_WRITE_BACK"] == 0 and v["L_WRITE_BACK"] == 2
              and v["NUM_WI_L_1"] * v["NUM_WI_L_2"] <= max_wg)
        key = tuple(sorted(v.items()))
        if not ok:
            print("invalid:", r)
            sys.exit(1)
        if key in seen:
            print("repeated:", r)
            sys.exit(1)
        seen.add(key)
        rows += 1
print(f"{rows} points valid and distinct")
