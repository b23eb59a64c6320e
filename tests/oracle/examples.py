#!/usr/bin/env python3
"""Independent oracles for the shipped example spaces.

Each function re-derives its space's valid points with plain Python loops,
written from the space's description, not from spacec's output.  Prints
"NAME COUNT" lines; tests/oracle/run.sh compares them with spacec.
"""


def primes():
    limit = 100
    ps = [n for n in range(2, limit + 1) if all(n % d for d in range(2, n))]
    return sum(len(range(p, limit + 1, p)) for p in ps)


def fibonacci():
    fib, a, b = [], 1, 2
    fib.append(1)
    while b <= 1000:
        fib.append(b)
        a, b = b, a + b
    total = 0
    for f in fib:
        m = f
        while m > 0:
            total += 1
            m //= 2
    return total


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


if __name__ == "__main__":
    for name in ["primes", "fibonacci", "require", "tables", "algebra"]:
        print(name, globals()[name]())
