"""spaces/synthetic_deep.space in the peers' notations (same strings)."""

N = 14
UNROLLS = ["u%d" % i for i in range(N)]
TUNE_PARAMS = {u: [1, 2, 4, 8] for u in UNROLLS}
TUNE_PARAMS.update(va=[1, 2, 4], vb=[1, 2, 4])

RESTRICTIONS = (["16 <= " + " * ".join(UNROLLS) + " <= 4096"]
                + ["u%d <= 2 * u%d" % (i + 1, i) for i in range(N - 1)]
                + ["(u0 * u1) % va == 0", "(u12 * u13) % vb == 0", "u0 + u13 != 9"])


def python_constraint(cfg):
    return dict(TUNE_PARAMS), list(RESTRICTIONS)


def kernel_tuner(cfg):
    return dict(TUNE_PARAMS), list(RESTRICTIONS), [], 1024


def pyatf(cfg):
    """A TP's constraint may name earlier TPs only, so the product budget
    sits on u13, and each neighbour constraint on the inner loop's TP."""
    from pyatf import TP, Set
    U = Set(1, 2, 4, 8)

    def u13_ok(u13, u12, u11, u10, u9, u8, u7, u6, u5, u4, u3, u2, u1, u0):
        p = u0 * u1 * u2 * u3 * u4 * u5 * u6 * u7 * u8 * u9 * u10 * u11 * u12 * u13
        return u13 <= 2 * u12 and 16 <= p <= 4096 and u0 + u13 != 9

    tps = [TP("u0", U)]
    for i in range(1, N - 1):
        prev, cur = "u%d" % (i - 1), "u%d" % i
        # a lambda with the right parameter names (pyATF reads its signature)
        f = eval("lambda %s, %s: %s <= 2 * %s" % (cur, prev, cur, prev))
        tps.append(TP(cur, U, f))
    tps.append(TP("u13", U, u13_ok))
    tps.append(TP("va", Set(1, 2, 4), lambda va, u0, u1: (u0 * u1) % va == 0))
    tps.append(TP("vb", Set(1, 2, 4), lambda vb, u12, u13: (u12 * u13) % vb == 0))
    return tps
