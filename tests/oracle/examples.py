#!/usr/bin/env python3
"""Independent oracles for the example spaces in spaces/examples/.

Each function counts its space's valid points with plain Python loops.
The BEAST paper's figures (Luszczek et al., IPDPSW 2016, Figs. 1-6) are
run as CPython runs them: the figure's code is written out here as printed
(an underscore printed as a space put back), not taken from the .space
file, with the values the figure leaves open set as the file's docstring
says.  Prints "NAME COUNT" lines; tests/oracle/run.sh compares them with
spacec.
"""


def ranges():
    """Fig. 1, with N = 10."""
    N = 10

    class Iterator(list):
        """The figure's Iterator over a list: Python list iteration."""

    r = range(N)
    fibonacci = Iterator([1, 1, 2, 3, 5, 8, 13])
    return sum(1 for _ in r for _ in fibonacci)


def deferred(architecture="Kepler"):
    """Fig. 2 (left): inner over range(outer), outer by architecture."""
    Fermi, Kepler, Maxwell = "Fermi", "Kepler", "Maxwell"

    def inner(outer):
        return range(outer)

    def outer():
        if architecture == Fermi: return range(32)
        elif architecture == Kepler: return range(192)
        elif architecture == Maxwell: return range(256)

    return sum(1 for o in outer() for _ in inner(o))


def deferred_expressions():
    """Fig. 2 (right)."""
    ex_outer = range(100)
    return sum(1 for o in ex_outer for _ in range(o))


def primes():
    """Fig. 3, with MAX = 100, run as a Python generator."""
    MAX = 100

    def primes():
        yield 1
        yield 2
        n = 3
        old_primes = list()
        while n <= MAX:
            for i in old_primes:
                if n % i == 0:
                    break
            else:
                yield n
                old_primes.append(n)
            n += 2

    return sum(1 for _ in primes())


def global_scope():
    """Fig. 4, with the K40c's WARP_SIZE 32, MAX_THREADS 1024 and MAX_M 1024."""
    WARP_SIZE, MAX_THREADS, MAX_M = 32, 1024, 1024
    count = 0
    for dim_m in range(WARP_SIZE, MAX_THREADS + 1, WARP_SIZE):
        for _ in range(dim_m, MAX_M + 1, dim_m):
            count += 1
    return count


def local_scope(trans_a=0):
    """Fig. 5 over Fig. 4's blk_m and blk_k = range(1, 33)."""
    WARP_SIZE, MAX_THREADS, MAX_M, MAX_K = 32, 1024, 1024, 32

    def blk_n_a(blk_m, blk_k):
        x = blk_k
        if trans_a != 0:
            x = blk_m
        return range(x, 0, -1)

    count = 0
    for dim_m in range(WARP_SIZE, MAX_THREADS + 1, WARP_SIZE):
        for blk_m in range(dim_m, MAX_M + 1, dim_m):
            for blk_k in range(1, MAX_K + 1):
                count += len(blk_n_a(blk_m, blk_k))
    return count


def fibonacci():
    """Fig. 6, with MAX = 1000, run as a Python generator."""
    MAX = 1000

    def fibonacci():
        k = n = 1
        while n <= MAX:
            yield n
            n, k = n + k, n

    return sum(1 for _ in fibonacci())


def conditions(precision="double"):
    """conditions.space's description: True rejects."""
    count = 0
    for dim_m in range(32, 1025, 32):
        for blk_m in range(dim_m, 1025, dim_m):
            for blk_k in range(1, 65):
                elem = 8 if precision == "double" else 4
                if blk_k * blk_m * elem > 49152:
                    continue                    # over_max_shmem
                thr_m = blk_m // dim_m
                if thr_m * blk_k / (thr_m + blk_k) < 2:
                    continue                    # low_fmas
                per_round = 2 * dim_m if blk_k % 2 == 0 else dim_m
                reject = blk_m * blk_k % per_round != 0 or (blk_k > 8 and blk_m < 2 * dim_m)
                if reject:
                    continue                    # cant_reshape
                count += 1
    return count


def closures():
    """closures.space's description."""
    count = 0
    p = 1
    while p <= 100:
        m, halvings = p, 0
        while m > 0:
            halvings += 1
            m //= 3
        count += halvings * len(range(p, 101, p))
        p *= 2
    return count


def require():
    count = 0
    for bx in [16, 32, 64, 128, 256, 512, 1024]:
        for by in [1, 2, 4, 8, 16, 32]:
            for tx in [1, 2, 4, 8]:
                for ty in [1, 2, 4, 8]:
                    for shm in [0, 1]:
                        threads = bx * by
                        smem = threads * tx * ty * 4 if shm == 1 else 0
                        if not (32 <= threads <= 1024):
                            continue
                        if not tx >= ty:
                            continue
                        if not threads <= 1024:
                            continue
                        if not smem <= 49152:
                            continue
                        if not bx // by <= 64:
                            continue
                        if tx * ty < 2:
                            continue
                        count += 1
    return count


def tables():
    arch, dtype = 1, "float"
    elem = {"half": 2, "float": 4, "double": 8}[dtype]
    shared = [[16384, 49152], [49152, 98304], [101376, 232448]]
    latency_t = [[[4, 6], [5, 7]], [[8, 9], [8, 10]]]
    unroll_t = [[1] * 4 + [2] * 4, [4] * 8]
    count = 0
    for tile in [8, 16, 32, 64, 128]:
        for carve in range(2):
            for depth in range(1, 9):
                smem = 2 * tile * tile * elem * depth // 2
                lat = latency_t[min(tile // 64, 1)][carve][arch % 2]
                unr = unroll_t[carve][depth - 1]
                if smem <= shared[arch][carve] and depth * unr >= lat // 2:
                    count += 1
    return count


def algebra():
    sizes = sorted(set([1, 2, 4, 8, 16, 32]) | set(range(16, 129, 16)))
    common = sorted(set(range(0, 100, 6)) & set(range(0, 100, 4)))
    odd = sorted(set(range(1, 20)) - set(range(0, 20, 3)))
    count = 0
    for s in sizes:
        for c in common:
            for o in odd:
                tiles = (set(range(1, s + 1)) & set(range(0, 129, 4))) - {c}
                modes = [0, 1, 2] if s >= 16 else [0]
                count += len(tiles) * len(modes)
    return count


def kernel_tuner():
    """Kernel Tuner's tune_params and restriction strings, run by Python."""
    import math
    count = 0
    problem_size = 4096
    for bx in [16, 32, 64, 128, 256, 512, 1024]:
        for by in [1, 2, 4, 8, 16, 32]:
            threads = bx * by
            for tile in [1, 2, 4, 5, 6, 7, 8]:
                if bx % tile:
                    continue
                for vector in [1, 2, 4]:
                    for unroll in [0, 1, 2, 4, 8]:
                        waves = -(-problem_size // (threads * tile))
                        keep = (64 <= threads <= 1024
                                and bx % vector == 0 and tile * 4 % vector == 0
                                and threads % 64 == 0
                                and (round(math.log2(threads)) % 2 == 0 or unroll > 0)
                                and problem_size % (bx * tile) == 0
                                and math.gcd(tile, unroll) <= 2 and waves >= 1
                                and len([u for u in range(unroll) if u % 2]) <= 2)
                        count += keep
    return count



# (file name, oracle, spacec --set arguments)
CASES = [
    ("ranges", ranges, ""),
    ("deferred", deferred, ""),
    ("deferred", lambda: deferred("Fermi"), "--set architecture=Fermi"),
    ("deferred", lambda: deferred("Maxwell"), "--set architecture=Maxwell"),
    ("deferred_expressions", deferred_expressions, ""),
    ("primes", primes, ""),
    ("global_scope", global_scope, ""),
    ("local_scope", local_scope, ""),
    ("local_scope", lambda: local_scope(1), "--set trans_a=1"),
    ("fibonacci", fibonacci, ""),
    ("conditions", conditions, ""),
    ("conditions", lambda: conditions("single"), "--set precision=single"),
    ("closures", closures, ""),
    ("require", require, ""),
    ("tables", tables, ""),
    ("algebra", algebra, ""),
    ("kernel_tuner", kernel_tuner, ""),
]

if __name__ == "__main__":
    for name, oracle, sets in CASES:
        print(name, oracle(), sets)
