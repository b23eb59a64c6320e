#!/usr/bin/env python3
"""Expands an annotated benchmark space (spaces/opt/K.space) into one the
device machine can tune without libclang: every combination of the
kernel's annotation parameters is transformed here by the optimizer
(`spacetune variant`), the versions go into one .cl file, each under
`#if` on its parameters' defines, and the space gets those parameters as
plain iterators, with the global size coarsen gives (ceil(G / F), rounded
up to the work-group).  The device then runs the same transformed code
under the same breadth-first search (one parameter a level).

    expand.py SPACETUNE K OUTDIR --set NAME=VALUE ...   (the problem's sizes)

The annotation parameters and their values are this file's table (they
are the pragmas of kernels/opt/K.cl; `spacetune variant` refuses a name
that is not one)."""
import itertools
import os
import re
import subprocess
import sys

ANNOT = {
    "matmul": ([("c_x", [1, 2, 4, 8]), ("c_y", [1, 2, 4, 8]), ("v_b", [1, 2, 4, 8]),
                ("t_k", [1, 2, 4, 8, 16, 32, 64]), ("u_k", [1, 2, 4, 8, 16])], []),
    "stencil": ([("u_j", [1, 2, 3, 4, 5]), ("u_i", [1, 2, 3, 4, 5])], []),
    "nbody": ([("c_i", [1, 2, 4]), ("u_j", [1, 2, 4, 8, 16])], ["c_i"]),
    "dcs": ([("c_x", [1, 2, 4]), ("u_a", [1, 2, 4, 8, 16])], ["c_x"]),
}


def main():
    st, k, out = sys.argv[1:4]
    sets = sys.argv[4:]
    top = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    root = os.environ.get("ROOT", top)  # where the device finds kernels/opt
    space = os.path.join(top, "spaces", "opt", k + ".space")
    params, coarsen = ANNOT[k]
    if k == "matmul":
        # Each of its versions is written for one work-group shape (lx,
        # ly), which this expansion leaves to the device's search: the
        # tiles' __local sizes and the items' places in them (t_k), the
        # jammed items' guards, present only where the items do not tile
        # the NDRange (c_x, c_y), and vload's scalar fallback there (v_b)
        # all follow the work-group.  A version per shape as well would be
        # 35 shapes x 1,400 combinations (49,000) at the GPU's size; the fix
        # is the optimizer writing the work-group into its output as
        # macros, which is not done.
        sys.exit("expand.py: matmul's versions depend on the work-group shape (tile, coarsen ... jam, "
                 "vload); not expandable")
    names = [n for n, _ in params]
    blocks = []
    for combo in itertools.product(*[v for _, v in params]):
        assign = ["%s=%d" % (n, v) for n, v in zip(names, combo)]
        text = subprocess.run([st, "variant", space] + sets + assign, check=True,
                              capture_output=True, text=True).stdout
        body = text.split("*/\n", 1)[1]  # drop spacetune's header comment
        cond = " && ".join("%s == %d" % (n, v) for n, v in zip(names, combo))
        blocks.append((cond, body))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, k + ".cl"), "w") as f:
        f.write("/* %s.cl expanded by bench/opt/expand.py: every version the optimizer makes\n"
                " * of kernels/opt/%s.cl for %s, one per #if. */\n" % (k, k, " ".join(sets)))
        for i, (cond, body) in enumerate(blocks):
            f.write("%s %s\n%s" % ("#if" if i == 0 else "#elif", cond, body))
        f.write("#else\n#error no such version\n#endif\n")
    src = open(space).read()
    rel = os.path.relpath(os.path.join(root, "kernels", "opt"), out)
    src = src.replace('"../../kernels/opt/%s.cl"' % k, '"%s.cl"' % k)
    src = src.replace('"../../kernels/opt/', '"%s/' % rel)
    iters = "".join("%s = %s\n" % (n, v) for n, v in params)
    src = src.replace("\ntune:\n", "\n# the annotations' parameters (bench/opt/expand.py)\n" + iters + "\ntune:\n")
    # coarsen divides the NDRange: ceil(G / F), rounded up to the work-group
    m = re.search(r"\n    global \[(.*)\]\n", src)
    dims = [d.strip() for d in m.group(1).split(",")]
    loc = re.search(r"\n    local \[(.*)\]\n", src).group(1).split(",")
    new = []
    for d, expr in enumerate(dims):
        if d < len(coarsen):
            f, l = coarsen[d], loc[d].strip()
            expr = "((%s) + %s - 1) // %s + %s - 1) // %s * %s" % (expr, f, f, l, l, l)
            expr = "(" + expr
        new.append(expr)
    src = src[:m.start()] + "\n    global [%s]\n" % ", ".join(new) + src[m.end():]
    with open(os.path.join(out, k + ".space"), "w") as f:
        f.write(src)


main()
