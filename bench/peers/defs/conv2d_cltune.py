"""CLTune 2D convolution (spaces/conv2d_cltune.space) in the peers' notations.

Derived values (the work-group with halo threads, the local-memory bytes)
are inlined into the restrictions; HFS = 3 (so 2 * HFS = 6), float = 4 B.
"""

DEFAULTS = dict(max_work_group_size=1024, max_work_item_size_x=1024,
                max_work_item_size_y=1024, local_mem_size=49152)

TUNE_PARAMS = {
    "Xwg": [8, 16, 32, 64],
    "Ywg": [8, 16, 32, 64],
    "Xwpt": [1, 2, 4, 8],
    "Ywpt": [1, 2, 4, 8],
    "LOCAL": [0, 1, 2],
    "VW": [1, 2, 4, 8],
    "PAD": [0, 1],
    "UNR": [0, 1],
}

XWG_XL = "(Xwg + (6 + Xwpt - 1) // Xwpt if LOCAL == 2 else Xwg)"
YWG_XL = "(Ywg + (6 + Ywpt - 1) // Ywpt if LOCAL == 2 else Ywg)"
LMEM = "((Ywg * Ywpt + 6) * (Xwg * Xwpt + 6 + PAD) * 4 if LOCAL != 0 else 0)"


def restrictions(cfg):
    c = dict(DEFAULTS)
    c.update(cfg or {})
    return [
        f"{XWG_XL} * {YWG_XL} <= {c['max_work_group_size']}",
        f"{XWG_XL} <= {c['max_work_item_size_x']}",
        f"{YWG_XL} <= {c['max_work_item_size_y']}",
        f"{LMEM} <= {c['local_mem_size']}",
        "Xwpt % VW == 0",
        "LOCAL != 2 or 6 % VW == 0",
        "PAD == 0 or LOCAL != 0",
    ]


def python_constraint(cfg):
    return dict(TUNE_PARAMS), restrictions(cfg)


def kernel_tuner(cfg):
    # the thread block is Xwg_xl x Ywg_xl, not a product of parameters, so no
    # block_size_names: the work-group limit is one of the restrictions
    c = dict(DEFAULTS)
    c.update(cfg or {})
    return dict(TUNE_PARAMS), restrictions(cfg), [], c["max_work_group_size"]


def pyatf(cfg):
    from pyatf import TP, Set
    c = dict(DEFAULTS)
    c.update(cfg or {})
    WG, WX, WY, LM = (c["max_work_group_size"], c["max_work_item_size_x"],
                      c["max_work_item_size_y"], c["local_mem_size"])

    def xl(wg, wpt, local):
        return wg + (6 + wpt - 1) // wpt if local == 2 else wg

    def ywpt_ok(Ywpt, Ywg, Xwg, Xwpt, LOCAL):
        x, y = xl(Xwg, Xwpt, LOCAL), xl(Ywg, Ywpt, LOCAL)
        return x * y <= WG and y <= WY

    def pad_ok(PAD, LOCAL, Xwg, Ywg, Xwpt, Ywpt):
        lmem = (Ywg * Ywpt + 6) * (Xwg * Xwpt + 6 + PAD) * 4 if LOCAL != 0 else 0
        return (PAD == 0 or LOCAL != 0) and lmem <= LM

    S = lambda name: Set(*TUNE_PARAMS[name])  # noqa: E731
    return [
        TP("LOCAL", S("LOCAL")),
        TP("VW", S("VW"), lambda VW, LOCAL: LOCAL != 2 or 6 % VW == 0),
        TP("Xwg", S("Xwg")),
        TP("Xwpt", S("Xwpt"),
           lambda Xwpt, Xwg, VW, LOCAL: Xwpt % VW == 0 and xl(Xwg, Xwpt, LOCAL) <= WX),
        TP("Ywg", S("Ywg")),
        TP("Ywpt", S("Ywpt"), ywpt_ok),
        TP("PAD", S("PAD"), pad_ok),
        TP("UNR", S("UNR")),
    ]
