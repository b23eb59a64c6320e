"""spaces/synthetic_sparse.space in the peers' notations (same strings)."""

P2 = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
TUNE_PARAMS = {
    "tx": P2,
    "ty": P2,
    "tz": [1, 2, 4, 8, 16, 32, 64],
    "wx": list(range(1, 257)),
    "wy": list(range(1, 257)),
    "vx": [1, 2, 4, 8, 16],
    "pad": list(range(0, 33)),
    "sm": list(range(0, 49153, 512)),
}

RESTRICTIONS = [
    "64 <= tx * ty * tz <= 1024",
    "wx * wy in [64, 128, 256]",
    "wx % vx == 0",
    "tx * wx >= 64",
    "ty * wy >= 64",
    "sm == ((tx * wx + pad) * (ty * wy) * 4 + 511) // 512 * 512",
]


def python_constraint(cfg):
    return dict(TUNE_PARAMS), list(RESTRICTIONS)


def kernel_tuner(cfg):
    # tx, ty, tz are the thread block: Kernel Tuner adds tx * ty * tz <= 1024 itself
    return dict(TUNE_PARAMS), list(RESTRICTIONS), ["tx", "ty", "tz"], 1024


def pyatf(cfg):
    from pyatf import TP, Set, Interval
    return [
        TP("tx", Set(*P2)),
        TP("ty", Set(*P2)),
        TP("tz", Set(1, 2, 4, 8, 16, 32, 64), lambda tz, tx, ty: 64 <= tx * ty * tz <= 1024),
        TP("wx", Interval(1, 256), lambda wx, tx: tx * wx >= 64),
        TP("wy", Interval(1, 256), lambda wy, wx, ty: wx * wy in (64, 128, 256) and ty * wy >= 64),
        TP("vx", Set(1, 2, 4, 8, 16), lambda vx, wx: wx % vx == 0),
        TP("pad", Interval(0, 32)),
        TP("sm", Interval(0, 49152, 512),
           lambda sm, tx, ty, wx, wy, pad: sm == ((tx * wx + pad) * (ty * wy) * 4 + 511) // 512 * 512),
    ]
