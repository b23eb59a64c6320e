"""CLBlast Xgemm (spaces/clblast_xgemm.space) in the peers' notations.

Kernel Tuner's own notation: tune_params and restriction strings, with
block_size_names = MDIMC, NDIMC as the Kernel Tuner GEMM scripts pass them
(so Kernel Tuner adds MDIMC * NDIMC <= 1024, which never rejects here).
"""

TUNE_PARAMS = {
    "MWG": [16, 32, 64, 128],
    "NWG": [16, 32, 64, 128],
    "KWG": [16, 32],
    "MDIMC": [8, 16, 32],
    "NDIMC": [8, 16, 32],
    "MDIMA": [8, 16, 32],
    "NDIMB": [8, 16, 32],
    "KWI": [2],
    "VWM": [1, 2, 4, 8],
    "VWN": [1, 2, 4, 8],
    "STRM": [0, 1],
    "STRN": [0, 1],
    "SA": [0, 1],
    "SB": [0, 1],
}

RESTRICTIONS = [
    "KWG % KWI == 0",
    "MWG % (MDIMC*VWM) == 0",
    "NWG % (NDIMC*VWN) == 0",
    "MWG % (MDIMA*VWM) == 0",
    "NWG % (NDIMB*VWN) == 0",
    "KWG % ((MDIMC*NDIMC)/MDIMA) == 0",
    "KWG % ((MDIMC*NDIMC)/NDIMB) == 0",
]


def python_constraint(cfg):
    return dict(TUNE_PARAMS), list(RESTRICTIONS)


def kernel_tuner(cfg):
    return dict(TUNE_PARAMS), list(RESTRICTIONS), ["MDIMC", "NDIMC", "block_size_z"], 1024


def pyatf(cfg):
    """Each restriction on the last TP it names (pyATF checks a TP's
    constraint as soon as that TP is bound); '/' stays true division."""
    from pyatf import TP, Set
    S = lambda name: Set(*TUNE_PARAMS[name])  # noqa: E731
    return [
        TP("MWG", S("MWG")),
        TP("NWG", S("NWG")),
        TP("KWG", S("KWG")),
        TP("KWI", S("KWI"), lambda KWI, KWG: KWG % KWI == 0),
        TP("MDIMC", S("MDIMC")),
        TP("NDIMC", S("NDIMC")),
        TP("MDIMA", S("MDIMA"), lambda MDIMA, MDIMC, NDIMC, KWG: KWG % ((MDIMC * NDIMC) / MDIMA) == 0),
        TP("NDIMB", S("NDIMB"), lambda NDIMB, MDIMC, NDIMC, KWG: KWG % ((MDIMC * NDIMC) / NDIMB) == 0),
        TP("VWM", S("VWM"),
           lambda VWM, MWG, MDIMC, MDIMA: MWG % (MDIMC * VWM) == 0 and MWG % (MDIMA * VWM) == 0),
        TP("VWN", S("VWN"),
           lambda VWN, NWG, NDIMC, NDIMB: NWG % (NDIMC * VWN) == 0 and NWG % (NDIMB * VWN) == 0),
        TP("STRM", S("STRM")),
        TP("STRN", S("STRN")),
        TP("SA", S("SA")),
        TP("SB", S("SB")),
    ]
