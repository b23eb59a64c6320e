#!/usr/bin/env python3
"""Python as the oracle of round, divmod, any, all, the math module and
comprehensions.

Writes a .space file with an iterator k = range(N) and, for each random
expression E_i, the constraint `require k != i or (E_i) == V_i`, where V_i
is the value CPython computes.  Where CPython raises (or its int does not
fit 64 bits, which spacec counts as a domain error), E_i must be a domain
error instead, so k == i is not a valid point.  The second argument names
the file that receives the expected valid k values, one a line; run.sh
compares it with `spacec list` in both paths.  Where spacec's rules are
narrower than Python's (ints are 64-bit, so is every partial product of
math.prod), the oracle applies them.  An int result is also
checked to be an int (`E & 0 == 0` is a type error on a float).

    builtins.py SEED EXPECTED_FILE > builtins.space
"""
import math
import random
import sys
import types

FLOATS = [0.5, 1.5, 2.5, -0.5, -2.5, 2.675, 0.125, 0.375, 1234.5678, -1234.5, 1e16 + 2.0, 7.0,
          0.0, -0.0, 1e-7, 3.14159, 2.0 ** 60, 1e300, -7.25]
INTS = [0, 1, -1, 2, 7, -7, 12, 15, 25, 35, -25, 1024, 999999, 2 ** 62, -(2 ** 62), 2 ** 63 - 1]


def lit(x):
    if isinstance(x, bool):
        return "True" if x else "False"
    if isinstance(x, float):
        if math.isinf(x):
            return "math.inf" if x > 0 else "-math.inf"
        return repr(x)
    return str(x)


def num(r):
    return r.choice([r.choice(FLOATS), r.choice(INTS), r.randint(-20, 20), r.randint(-20, 20) / 4])


def expression(r):
    a, b = num(r), num(r)
    i, j = r.choice(INTS + [r.randint(-30, 30)]), r.choice(INTS + [r.randint(-30, 30)])
    k = r.randrange(16)
    if k == 0:
        return "round(%s)" % lit(r.choice(FLOATS + [r.randint(-20, 20) / 2]))
    if k == 1:
        return "round(%s, %s)" % (lit(r.choice(FLOATS)), r.choice(["-3", "-1", "0", "1", "2", "3", "None"]))
    if k == 2:
        return "round(%s, %d)" % (lit(r.choice(INTS + [r.randint(-99, 99)])), r.randint(-4, 1))
    if k == 3:
        return "divmod(%s, %s)[%d]" % (lit(a), lit(r.choice([b, 0, 3, -2])), r.randint(0, 1))
    if k == 4:
        return "math.%s(%s)" % (r.choice(["ceil", "floor", "trunc"]), lit(r.choice(FLOATS + [math.inf])))
    if k == 5:
        return "math.%s(%s)" % (r.choice(["sqrt", "log", "log2", "log10", "exp", "fabs"]), lit(a))
    if k == 6:
        return "math.log(%s, %s)" % (lit(abs(a)), lit(r.choice([2, 10, 1, 0.5, abs(b)])))
    if k == 7:
        return "math.pow(%s, %s)" % (lit(a), lit(r.choice([b, 2, 0.5, -1, 3])))
    if k == 8:
        return "math.%s(%s)" % (r.choice(["gcd", "lcm"]), ", ".join(lit(r.choice(INTS[:12] + [r.randint(-60, 60)]))
                                                              for _ in range(r.randint(0, 3))))
    if k == 9:
        return "math.isqrt(%s)" % lit(r.choice(INTS))
    if k == 10:
        return "math.factorial(%d)" % r.randint(-1, 22)
    if k == 11:
        return "math.prod([%s])" % ", ".join(lit(num(r)) for _ in range(r.randint(0, 4)))
    if k == 12:
        return "%s(%s)" % (r.choice(["any", "all"]), r.choice(["[%s, %s]" % (lit(a), lit(b)), "range(%d, %d)" % (i % 5, j % 7),
                                                            "[]"]))
    if k == 13:
        # a generator that must stop before the division by zero
        return "%s(%d // v > 0 for v in [%d, 0])" % (r.choice(["any", "all"]), r.randint(-3, 3), r.choice([1, -1, 0]))
    if k == 14:
        return "sum([v * %d for v in range(%d) if v %% 3 != %d])" % (r.randint(-3, 3), r.randint(0, 9), r.randint(0, 2))
    return "len([v - w for v in range(%d) for w in range(v) if (v + w) %% 2 == 0])" % r.randint(0, 7)


def main():
    seed = int(sys.argv[1])
    expected_path = sys.argv[2]
    r = random.Random(seed)
    # spacec's ints are 64-bit, and math.prod multiplies left to right:
    # a partial product of ints beyond 64 bits is a domain error there.
    def prod64(xs):
        acc = 1
        for x in xs:
            acc = acc * x
            if isinstance(acc, int) and not -(2 ** 63) <= acc < 2 ** 63:
                raise OverflowError
        return acc
    spacec_math = types.SimpleNamespace(**{n: getattr(math, n) for n in dir(math) if not n.startswith("_")})
    spacec_math.prod = prod64
    env = {"math": spacec_math}
    rules, keep = [], []
    n = 300
    for i in range(n):
        e = expression(r)
        try:
            v = eval(e, env)
        except (ArithmeticError, ValueError, TypeError):
            v = None
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int) and not -(2 ** 63) <= v < 2 ** 63:
            v = None  # beyond 64 bits: a domain error in spacec
        if isinstance(v, float) and math.isnan(v):
            continue  # nan equals nothing; left out
        if v is None:
            rules.append("require k != %d or (%s) == 0.5" % (i, e))  # any value at all would be wrong
            rules.append("require k != %d or (%s) != 0.5" % (i, e))
        else:
            check = "(%s) == %s" % (e, lit(v))
            if isinstance(v, int):
                check += " and (%s) & 0 == 0" % e
            rules.append("require k != %d or %s" % (i, check))
            keep.append(i)
    print('"""round, divmod, any, all, math and comprehensions against CPython (seed %d)"""' % seed)
    print("import math")
    print("k = range(%d)" % n)
    for line in rules:
        print(line)
    with open(expected_path, "w") as f:
        for i in keep:
            f.write("%d\n" % i)


if __name__ == "__main__":
    main()
