#!/usr/bin/env python3
"""BEAST's GEMM space (IPDPSW 2016, Figs. 8-15) as the figures print it, in Python.

A second, slower oracle beside gemm_beast_brute.c, for small devices: the
figures' code is kept as close to print as Python 3 allows, and walked
by plain nested loops, each constraint tested once all of its arguments
are bound.  The readings (see gemm_beast_brute.c) are marked READING:
'/' on ints is '//', except the fmas/loads ratio; dim_vec's two swapped
names are put back.

    gemm_beast_figures.py [--h100-single] [--set NAME=VALUE]...

prints the number of valid points.
"""

import sys


def parse(argv):
    # Fig. 8: Tesla K40c
    env = dict(
        max_threads_per_block=1024, max_threads_dim_x=1024, max_threads_dim_y=1024,
        max_shared_mem_per_block=49152, warp_size=32, max_regs_per_block=65536,
        max_threads_per_multi_processor=2048, cudamajor=3, cudaminor=5,
        max_registers_per_multi_processor=65536, max_shmem_per_multi_processor=49152,
        float_size=4,
        # Fig. 10
        precision="double", trans_a=0, arithmetic="real", trans_b=0,
        # Fig. 14
        min_threads_per_multi_processor=256, min_fmas_per_load=2)
    if "--h100-single" in argv:
        # spaces/gemm_beast_h100_sp.json
        env.update(precision="single", max_shared_mem_per_block=232448,
                   max_shmem_per_multi_processor=233472, cudamajor=9, cudaminor=0)
    it = iter(argv)
    for arg in it:
        if arg == "--set":
            name, value = next(it).split("=", 1)
            if name not in env:
                sys.exit("gemm_beast_figures: unknown name " + name)
            env[name] = value if name in ("precision", "arithmetic") else int(value)
        elif arg != "--h100-single":
            sys.exit(__doc__)
    return env


# Fig. 9, with rows 4-9 added (READING: cc 9.0 for the H100 profile)
MaxBlocksPerMultiProcessor = [
    [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1],
    [8, 8, 8, 8, -1, -1, -1, -1, -1, -1],
    [8, 8, 8, 8, 8, 8, 8, 8, 8, 8],
    [16, -1, -1, -1, -1, 16, -1, -1, -1, -1],
    [-1] * 10,
    [32, -1, 32, 32, -1, -1, -1, -1, -1, -1],
    [32, 32, 32, -1, -1, -1, -1, -1, -1, -1],
    [32, -1, 32, -1, -1, 16, -1, -1, -1, -1],
    [32, -1, -1, -1, -1, -1, 16, 16, -1, 24],
    [32, -1, -1, -1, -1, -1, -1, -1, -1, -1]]
MaxRegistersPerThread = [
    [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1],
    [128, 128, 128, 128, -1, -1, -1, -1, -1, -1],
    [63, 63, 63, 63, 63, 63, 63, 63, 63, 63],
    [63, -1, -1, -1, -1, 255, -1, -1, -1, -1],
    [-1] * 10,
    [255, -1, 255, 255, -1, -1, -1, -1, -1, -1],
    [255, 255, 255, -1, -1, -1, -1, -1, -1, -1],
    [255, -1, 255, -1, -1, 255, -1, -1, -1, -1],
    [255, -1, -1, -1, -1, -1, 255, 255, -1, 255],
    [255, -1, -1, -1, -1, -1, -1, -1, -1, -1]]


def count(g):
    max_blocks_per_multi_processor = MaxBlocksPerMultiProcessor[g["cudamajor"]][g["cudaminor"]]
    max_registers_per_thread = MaxRegistersPerThread[g["cudamajor"]][g["cudaminor"]]
    precision, arithmetic = g["precision"], g["arithmetic"]
    trans_a, trans_b = g["trans_a"], g["trans_b"]

    # Fig. 11
    def as_iter(v):
        return v if isinstance(v, range) else [v]

    def dim_vec_it():
        # READING: the figure's `arithmetic == "double"` / `precision == "real"`
        if precision == "double":
            if arithmetic == "real":
                return range(1, 3)
            else:
                return 1
        else:
            if arithmetic == "real":
                return range(1, 5, 3)
            else:
                return range(1, 3)

    def vec_mul_it(dim_vec):
        if dim_vec == 1:
            return 0
        else:
            return range(0, 2)

    def dim_m_a_it(blk_m, blk_k, dim_vec):
        if trans_a == 0:
            return range(1, blk_m // dim_vec + 1)      # READING: '/'
        else:
            return range(1, blk_k // dim_vec + 1)

    def dim_n_a_it(blk_m, blk_k):
        if trans_a == 0:
            return range(1, blk_k + 1)
        else:
            return range(1, blk_m + 1)

    def dim_m_b_it(blk_k, blk_n, dim_vec):
        if trans_b == 0:
            return range(1, blk_k // dim_vec + 1)
        else:
            return range(1, blk_n // dim_vec + 1)

    def dim_n_b_it(blk_k, blk_n):
        if trans_b == 0:
            return range(1, blk_n + 1)
        else:
            return range(1, blk_k + 1)

    # Fig. 15
    def cant_reshape_a2(blk_m, blk_k, dim_m_a, dim_n_a, dim_vec):
        return (trans_a == 0 and
                ((blk_m % (dim_m_a * dim_vec) != 0) or (blk_k % dim_n_a != 0))) \
            or \
            (trans_a != 0 and ((blk_k % (dim_m_a * dim_vec) != 0) or
                               (blk_m % dim_n_a != 0)))

    def cant_reshape_b2(blk_k, blk_n, dim_m_b, dim_n_b, dim_vec):
        return (trans_b == 0 and
                ((blk_k % (dim_m_b * dim_vec) != 0) or (blk_n % dim_n_b != 0))) \
            or \
            (trans_b != 0 and ((blk_n % (dim_m_b * dim_vec) != 0) or
                               (blk_k % dim_n_b != 0)))

    valid = 0
    for dim_m in range(1, g["max_threads_dim_x"] + 1):
        for dim_n in range(1, g["max_threads_dim_y"] + 1):
            # Fig. 12
            threads_per_block = dim_m * dim_n
            # Fig. 13, 14
            if threads_per_block > g["max_threads_per_block"]:
                continue
            if threads_per_block % g["warp_size"] != 0:
                continue
            for blk_m in range(dim_m, g["max_threads_dim_x"] + 1, dim_m):
                for blk_n in range(dim_n, g["max_threads_dim_y"] + 1, dim_n):
                    thr_m = blk_m // dim_m                     # READING: '/'
                    thr_n = blk_n // dim_n
                    regs_per_thread = thr_m * thr_n
                    if precision == "double":
                        regs_per_thread = regs_per_thread * 2
                    if arithmetic == "complex":
                        regs_per_thread = regs_per_thread * 2
                    regs_per_block = regs_per_thread * threads_per_block
                    max_blocks_by_regs = g["max_registers_per_multi_processor"] // regs_per_block
                    max_blocks_by_regs = min(max_blocks_by_regs, max_blocks_per_multi_processor)
                    max_threads_by_regs = max_blocks_by_regs * threads_per_block
                    if regs_per_thread > max_registers_per_thread:
                        continue
                    if regs_per_block > g["max_regs_per_block"]:
                        continue
                    if max_threads_by_regs < g["min_threads_per_multi_processor"]:
                        continue
                    for blk_k in range(1, min(g["max_threads_dim_x"], g["max_threads_dim_y"]) + 1):
                        shmem_per_block = blk_k * (blk_m + blk_n) * g["float_size"]
                        if precision == "double":
                            shmem_per_block = shmem_per_block * 2
                        if arithmetic == "complex":
                            shmem_per_block = shmem_per_block * 2
                        max_blocks_by_shmem = g["max_shmem_per_multi_processor"] // shmem_per_block
                        max_blocks_by_shmem = min(max_blocks_by_shmem, max_blocks_per_multi_processor)
                        max_threads_by_shmem = max_blocks_by_shmem * threads_per_block
                        fmas_per_thread = thr_m * thr_n * blk_k
                        fmas_per_block = fmas_per_thread * threads_per_block
                        if arithmetic == "complex":
                            fmas_per_block = fmas_per_block * 4
                        if shmem_per_block > g["max_shared_mem_per_block"]:
                            continue
                        if max_threads_by_shmem < g["min_threads_per_multi_processor"]:
                            continue
                        for dim_vec in as_iter(dim_vec_it()):
                            loads_per_thread = (thr_m + thr_n) * blk_k // dim_vec  # READING
                            loads_per_block = loads_per_thread * threads_per_block
                            if arithmetic == "complex":
                                loads_per_block = loads_per_block * 2
                            # READING: a true division; by zero rejects
                            if loads_per_block == 0 or \
                                    fmas_per_block / loads_per_block < g["min_fmas_per_load"]:
                                continue
                            n_vec_mul = len(as_iter(vec_mul_it(dim_vec)))
                            shapes_a = 0
                            for dim_m_a in dim_m_a_it(blk_m, blk_k, dim_vec):
                                for dim_n_a in dim_n_a_it(blk_m, blk_k):
                                    if dim_m_a * dim_n_a != threads_per_block:
                                        continue
                                    if cant_reshape_a2(blk_m, blk_k, dim_m_a, dim_n_a, dim_vec):
                                        continue
                                    shapes_a += 1
                            shapes_b = 0
                            for dim_m_b in dim_m_b_it(blk_k, blk_n, dim_vec):
                                for dim_n_b in dim_n_b_it(blk_k, blk_n):
                                    if dim_m_b * dim_n_b != threads_per_block:
                                        continue
                                    if cant_reshape_b2(blk_k, blk_n, dim_m_b, dim_n_b, dim_vec):
                                        continue
                                    shapes_b += 1
                            # vec_mul, the two reading shapes, and
                            # tex_a, tex_b, shmem_l1, shmem_banks = range(0, 2)
                            valid += n_vec_mul * shapes_a * shapes_b * 2 * 2 * 2 * 2
    return valid


if __name__ == "__main__":
    print(count(parse(sys.argv[1:])))
