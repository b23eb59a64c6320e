"""spaces/synthetic_wide.space in the peers' notations (same strings)."""

TUNE_PARAMS = {
    "n": list(range(1, 100001)),
    "wg": [32, 64, 128, 256, 512, 1024],
    "wpt": list(range(1, 33)),
    "off": list(range(0, 20000)),
}

RESTRICTIONS = [
    "off % 1024 == 0",
    "n % (wg * wpt) == 0",
    "n // (wg * wpt) >= 2",
    "(n // wg) % 2 == 0 or off == 0",
]


def python_constraint(cfg):
    return dict(TUNE_PARAMS), list(RESTRICTIONS)


def kernel_tuner(cfg):
    # wg is a thread-block size but Kernel Tuner's max_threads check (wg <= 1024) never rejects
    return dict(TUNE_PARAMS), list(RESTRICTIONS), ["wg"], 1024


def pyatf(cfg):
    from pyatf import TP, Set, Interval
    return [
        TP("wg", Set(32, 64, 128, 256, 512, 1024)),
        TP("wpt", Interval(1, 32)),
        TP("n", Interval(1, 100000), lambda n, wg, wpt: n % (wg * wpt) == 0 and n // (wg * wpt) >= 2),
        TP("off", Interval(0, 19999), lambda off, n, wg: off % 1024 == 0 and ((n // wg) % 2 == 0 or off == 0)),
    ]
