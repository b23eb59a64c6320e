"""BEAST GEMM (spaces/gemm_beast.space) in the peers' notations.

The .space file has 15 iterators, four of them with ranges that depend on
other iterators, derived variables and 12 BEAST-polarity constraints (True
REJECTS).  The peers have none of these, so:

  * a dependent range becomes its full domain plus a constraint:
      blk_m = range(dim_m, X + 1, dim_m)  ->  blk_m in 1..X,  blk_m % dim_m == 0
      dim_m_a = range(1, blk_m_a + 1)     ->  dim_m_a in 1..X, dim_m_a <= blk_m_a
    (dim_vec/vec_mul, the deferred iterators, become [1, 2] or [1, 4] and
    [0, 1] with 'vec_mul == 0 or dim_vec != 1');
  * a derived variable becomes an inline expression in the restriction;
  * each constraint is negated to Kernel Tuner polarity (True KEEPS), and an
    'a or b' rejection becomes two restrictions 'not a', 'not b';
  * device parameters, settings and table lookups are folded into
    constants here, in Python, as a Kernel Tuner user formats them into
    the restriction strings (f-strings).

cfg: the device parameters and settings of the .space file, with the same
names; the defaults are the file's (Tesla K40c, double, real, NN).
"""

DEFAULTS = dict(
    max_threads_per_block=1024, max_threads_dim_x=1024, max_threads_dim_y=1024,
    max_shared_mem_per_block=49152, warp_size=32, max_regs_per_block=65536,
    max_threads_per_multi_processor=2048, max_registers_per_multi_processor=65536,
    max_shmem_per_multi_processor=49152, float_size=4, cudamajor=3, cudaminor=5,
    precision="double", arithmetic="real", trans_a=0, trans_b=0,
)

# Fig. 9 tables, copied from spaces/gemm_beast.space, [cudamajor][cudaminor]
CC_MAX_BLOCKS = [
    [-1] * 10, [8] * 4 + [-1] * 6, [8] * 10,
    [16, -1, -1, -1, -1, 16, -1, -1, -1, -1], [-1] * 10,
    [32, -1, 32, 32, -1, -1, -1, -1, -1, -1], [32, 32, 32, -1, -1, -1, -1, -1, -1, -1],
    [32, -1, 32, -1, -1, 16, -1, -1, -1, -1], [32, -1, -1, -1, -1, -1, 16, 16, -1, 24],
    [32, -1, -1, -1, -1, -1, -1, -1, -1, -1],
]
CC_MAX_WARPS = [
    [-1] * 10, [24, 24, 32, 32] + [-1] * 6, [48] * 10,
    [64, -1, -1, -1, -1, 64, -1, -1, -1, -1], [-1] * 10,
    [64, -1, 64, 64, -1, -1, -1, -1, -1, -1], [64, 64, 64, -1, -1, -1, -1, -1, -1, -1],
    [64, -1, 64, -1, -1, 32, -1, -1, -1, -1], [64, -1, -1, -1, -1, -1, 48, 48, -1, 48],
    [64, -1, -1, -1, -1, -1, -1, -1, -1, -1],
]
CC_MAX_REGS_PER_THREAD = [
    [-1] * 10, [128] * 4 + [-1] * 6, [63] * 10,
    [63, -1, -1, -1, -1, 255, -1, -1, -1, -1], [-1] * 10,
    [255, -1, 255, 255, -1, -1, -1, -1, -1, -1], [255, 255, 255, -1, -1, -1, -1, -1, -1, -1],
    [255, -1, 255, -1, -1, 255, -1, -1, -1, -1], [255, -1, -1, -1, -1, -1, 255, 255, -1, 255],
    [255, -1, -1, -1, -1, -1, -1, -1, -1, -1],
]

ORDER = ["dim_m", "dim_n", "blk_m", "blk_n", "blk_k", "dim_vec", "vec_mul",
         "dim_m_a", "dim_n_a", "dim_m_b", "dim_n_b", "tex_a", "tex_b", "pre_a", "pre_b"]


def constants(cfg):
    c = dict(DEFAULTS)
    c.update(cfg or {})
    rpe = 1
    if c["precision"] == "double":
        rpe = 2
    if c["arithmetic"] == "complex":
        rpe *= 2
    c["rpe"] = rpe
    c["esize"] = c["float_size"] * rpe
    c["maxb"] = CC_MAX_BLOCKS[c["cudamajor"]][c["cudaminor"]]
    c["maxw"] = CC_MAX_WARPS[c["cudamajor"]][c["cudaminor"]]
    c["maxr"] = CC_MAX_REGS_PER_THREAD[c["cudamajor"]][c["cudaminor"]]
    if c["precision"] == "double" and c["arithmetic"] == "real":
        c["dim_vec"] = [1, 2]
    elif c["precision"] == "double":
        c["dim_vec"] = [1]
    elif c["arithmetic"] == "real":
        c["dim_vec"] = [1, 4]
    else:
        c["dim_vec"] = [1, 2]
    # tile extents as stored (R7): swap with trans_a / trans_b
    c["blk_m_a"], c["blk_n_a"] = ("blk_m", "blk_k") if c["trans_a"] == 0 else ("blk_k", "blk_m")
    c["blk_m_b"], c["blk_n_b"] = ("blk_k", "blk_n") if c["trans_b"] == 0 else ("blk_n", "blk_k")
    return c


def tune_params(c):
    X, Y = c["max_threads_dim_x"], c["max_threads_dim_y"]
    ext = {"blk_m": X, "blk_n": Y, "blk_k": X}
    return {
        "dim_m": list(range(1, X + 1)),
        "dim_n": list(range(1, Y + 1)),
        "blk_m": list(range(1, X + 1)),
        "blk_n": list(range(1, Y + 1)),
        "blk_k": list(range(1, X + 1)),
        "dim_vec": c["dim_vec"],
        "vec_mul": [0, 1],
        "dim_m_a": list(range(1, ext[c["blk_m_a"]] + 1)),
        "dim_n_a": list(range(1, ext[c["blk_n_a"]] + 1)),
        "dim_m_b": list(range(1, ext[c["blk_m_b"]] + 1)),
        "dim_n_b": list(range(1, ext[c["blk_n_b"]] + 1)),
        "tex_a": [0, 1],
        "tex_b": [0, 1],
        "pre_a": [0, 1],
        "pre_b": [0, 1],
    }


def restriction_strings(c, with_thread_limit=True):
    """Kernel Tuner restriction strings (True keeps); derived values inlined."""
    T = "dim_m * dim_n"
    rpt = ("((blk_m // dim_m) * (blk_n // dim_n) + (blk_m // dim_m + blk_n // dim_n)"
           " + pre_a * (blk_m * blk_k // (dim_m * dim_n)) + pre_b * (blk_k * blk_n // (dim_m * dim_n)))"
           f" * {c['rpe']}")
    warps = f"(dim_m * dim_n + {c['warp_size'] - 1}) // {c['warp_size']}"
    bpm = (f"min({c['maxb']}, {c['max_threads_per_multi_processor']} // (dim_m * dim_n),"
           f" {c['maxw']} // ({warps}))")
    shmem = f"(blk_m * blk_k + blk_k * blk_n) * {c['esize']}"
    r = []
    # the dependent ranges
    r += ["blk_m % dim_m == 0", "blk_n % dim_n == 0",
          f"dim_m_a <= {c['blk_m_a']}", f"dim_n_a <= {c['blk_n_a']}",
          f"dim_m_b <= {c['blk_m_b']}", f"dim_n_b <= {c['blk_n_b']}",
          "vec_mul == 0 or dim_vec != 1"]
    # Fig. 13 hard
    if with_thread_limit:      # Kernel Tuner adds this one itself (block_size_names, max_threads)
        r.append(f"{T} <= {c['max_threads_per_block']}")
    r += [f"{shmem} <= {c['max_shared_mem_per_block']}",
          f"{rpt} <= {c['maxr']}",
          f"{rpt} * dim_m * dim_n <= {c['max_regs_per_block']}"]
    # Fig. 14 soft
    r += [f"(dim_m * dim_n) % {c['warp_size']} == 0",
          f"min({bpm}, {c['max_registers_per_multi_processor']} // ({rpt} * dim_m * dim_n)) * dim_m * dim_n >= 256",
          f"min({bpm}, {c['max_shmem_per_multi_processor']} // ({shmem})) * dim_m * dim_n >= 256",
          "blk_m * blk_n * blk_k / (blk_m * blk_k + blk_k * blk_n) >= 2"]
    # Fig. 15 correctness
    r += [f"dim_m_a * dim_n_a == {T}",
          f"dim_m_b * dim_n_b == {T}",
          f"{c['blk_m_a']} % (dim_m_a * dim_vec) == 0", f"{c['blk_n_a']} % dim_n_a == 0",
          f"{c['blk_m_b']} % (dim_m_b * dim_vec) == 0", f"{c['blk_n_b']} % dim_n_b == 0"]
    return r


def python_constraint(cfg):
    c = constants(cfg)
    return tune_params(c), restriction_strings(c, with_thread_limit=True)


def kernel_tuner(cfg):
    c = constants(cfg)
    return (tune_params(c), restriction_strings(c, with_thread_limit=False),
            ["dim_m", "dim_n"], c["max_threads_per_block"])


def pyatf(cfg):
    """pyATF: each TP's constraint takes the TP itself and earlier TPs only,
    so every restriction sits on the TP where it becomes decidable.  The
    order puts pre_a/pre_b next to the tile sizes, so the register limits
    are checked before the reading shapes are enumerated."""
    from pyatf import TP, Interval, Set
    c = constants(cfg)
    X, Y = c["max_threads_dim_x"], c["max_threads_dim_y"]
    assert c["trans_a"] == 0 and c["trans_b"] == 0, "pyATF version written for NN only"
    rpe, esize, ws = c["rpe"], c["esize"], c["warp_size"]
    MTPB, MSMB, MRPB, MAXR = (c["max_threads_per_block"], c["max_shared_mem_per_block"],
                              c["max_regs_per_block"], c["maxr"])
    MAXB, MAXW, MTPM = c["maxb"], c["maxw"], c["max_threads_per_multi_processor"]
    MRPM, MSPM = c["max_registers_per_multi_processor"], c["max_shmem_per_multi_processor"]

    def rpt(dim_m, dim_n, blk_m, blk_n, blk_k, pre_a, pre_b):
        t = dim_m * dim_n
        return ((blk_m // dim_m) * (blk_n // dim_n) + (blk_m // dim_m + blk_n // dim_n)
                + pre_a * (blk_m * blk_k // t) + pre_b * (blk_k * blk_n // t)) * rpe

    def bpm(t):
        return min(MAXB, MTPM // t, MAXW // ((t + ws - 1) // ws))

    def pre_b_ok(pre_b, pre_a, dim_m, dim_n, blk_m, blk_n, blk_k):
        t = dim_m * dim_n
        r = rpt(dim_m, dim_n, blk_m, blk_n, blk_k, pre_a, pre_b)
        return (r <= MAXR and r * t <= MRPB
                and min(bpm(t), MRPM // (r * t)) * t >= 256)

    def blk_k_ok(blk_k, blk_m, blk_n, dim_m, dim_n):
        shmem = (blk_m * blk_k + blk_k * blk_n) * esize
        return (shmem <= MSMB
                and min(bpm(dim_m * dim_n), MSPM // shmem) * dim_m * dim_n >= 256
                and blk_m * blk_n * blk_k / (blk_m * blk_k + blk_k * blk_n) >= 2)

    return [
        TP("dim_m", Interval(1, X)),
        TP("dim_n", Interval(1, Y),
           lambda dim_n, dim_m: dim_m * dim_n <= MTPB and (dim_m * dim_n) % ws == 0),
        TP("blk_m", Interval(1, X), lambda blk_m, dim_m: blk_m % dim_m == 0),
        TP("blk_n", Interval(1, Y), lambda blk_n, dim_n: blk_n % dim_n == 0),
        TP("blk_k", Interval(1, X), blk_k_ok),
        TP("pre_a", Interval(0, 1)),
        TP("pre_b", Interval(0, 1), pre_b_ok),
        TP("dim_vec", Set(*c["dim_vec"])),
        TP("vec_mul", Interval(0, 1), lambda vec_mul, dim_vec: vec_mul == 0 or dim_vec != 1),
        TP("dim_m_a", Interval(1, X),
           lambda dim_m_a, blk_m, dim_vec: dim_m_a <= blk_m and blk_m % (dim_m_a * dim_vec) == 0),
        TP("dim_n_a", Interval(1, X),
           lambda dim_n_a, dim_m_a, blk_k, dim_m, dim_n:
           dim_n_a <= blk_k and blk_k % dim_n_a == 0 and dim_m_a * dim_n_a == dim_m * dim_n),
        TP("dim_m_b", Interval(1, X),
           lambda dim_m_b, blk_k, dim_vec: dim_m_b <= blk_k and blk_k % (dim_m_b * dim_vec) == 0),
        TP("dim_n_b", Interval(1, Y),
           lambda dim_n_b, dim_m_b, blk_n, dim_m, dim_n:
           dim_n_b <= blk_n and blk_n % dim_n_b == 0 and dim_m_b * dim_n_b == dim_m * dim_n),
        TP("tex_a", Interval(0, 1)),
        TP("tex_b", Interval(0, 1)),
    ]
