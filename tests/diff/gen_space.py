#!/usr/bin/env python3
"""Random .space generator for differential testing.

gen_space.py SEED  prints one space, deterministic per seed.  The spaces are
small (a few thousand candidates at most) but reach every construct the
compiler handles: dependent ranges (also negative steps), lists, iterator
algebra, conditional iterables, deferred and closure iterators, derived
chains with SSA reassignments in if/elif/else, constraints of all three
classes and both polarities, decorated constraint defs, and every
operator, with operands chosen to hit zero divisors and 64-bit overflow.

The same generator also emits, with --features, which constructs a space
used, so the test can prove every one of them was exercised.
"""
import random
import sys

BIG = ["4611686018427387904", "9223372036854775807", "3037000500", "-9223372036854775807"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        # Kernel Tuner's idioms (comprehensions, any/all, round, divmod,
        # math) draw from a stream of their own, so the spaces the other
        # forms make, seed by seed, stay the same.
        self.idiom = random.Random(seed * 7919 + 17)
        # BEAST's own shapes (defs that branch on settings, the or/and of
        # divisibility tests of its cant_reshape constraints) likewise; their
        # iterators join a pool of their own (self.sints), so they never
        # change what the other forms draw.
        self.spec = random.Random(seed * 104729 + 3)
        self.sints = []
        self.sn = 0
        self.math = False
        self.shape_r = random.Random(seed * 1000003 + 17)  # the shapes added later
        self.twin_r = random.Random("twin%d" % seed)       # twin_subnests
        self.first_param = None
        self.lines = []
        self.ints = []      # names whose values are ints (iterators, int derived)
        self.nums = []      # names that may be int or float
        self.features = set()
        self.n = 0

    def fresh(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def pick(self, pool):
        return self.r.choice(pool) if pool else str(self.r.randint(-3, 5))

    # ---- expressions -------------------------------------------------
    def small(self):
        return str(self.r.randint(-3, 6))

    def int_atom(self):
        r = self.r.random()
        if r < 0.6 and self.ints:
            return self.pick(self.ints)
        return self.small()

    def int_expr(self, depth=0):
        """An expression that is an int when it evaluates (or a domain error)."""
        if depth > 2 or self.r.random() < 0.35:
            return self.int_atom()
        a, b = self.int_expr(depth + 1), self.int_expr(depth + 1)
        k = self.r.randrange(12)
        if k == 0:
            self.features.add("floordiv")
            return "(%s // %s)" % (a, b)
        if k == 1:
            self.features.add("mod")
            return "(%s %% %s)" % (a, b)
        if k == 2:
            if self.r.random() < 0.3:
                self.features.add("overflow")
                return "(%s * %s)" % (self.int_atom(), self.r.choice(BIG))
            return "(%s * %s)" % (a, b)
        if k == 3:
            return "min(%s, %s)" % (a, b)
        if k == 4:
            return "max(%s, %s, %s)" % (a, b, self.int_atom())
        if k == 5:
            return "abs(%s)" % a
        if k == 6:
            self.features.add("cond_expr")
            return "(%s if %s else %s)" % (a, self.bool_expr(depth + 1), b)
        if k == 7:
            self.features.add("pow")
            return "(%s ** %s)" % (a, self.r.choice(["2", "3", "0"]))
        if k == 8:
            return "(%s - %s)" % (a, b)
        if k == 9:
            self.features.add("bitops")
            return "(%s %s %s)" % (a, self.r.choice(["&", "|", "^"]), b)
        if k == 10:
            return "len([%s, %s])" % (a, b)
        return "(%s + %s)" % (a, b)

    def num_expr(self, depth=0):
        """May be a float: true division, ** with any exponent, float()."""
        if depth > 2 or self.r.random() < 0.3:
            return self.pick(self.nums + self.ints) if self.r.random() < 0.7 else self.small()
        a, b = self.num_expr(depth + 1), self.num_expr(depth + 1)
        k = self.r.randrange(9)
        if k == 0:
            self.features.add("truediv")
            return "(%s / %s)" % (a, b)
        if k == 1:
            self.features.add("pow")
            return "(%s ** %s)" % (self.int_atom(), self.int_atom())
        if k == 2:
            self.features.add("float")
            return "float(%s)" % a
        if k == 3:
            self.features.add("floordiv")
            return "(%s // %s)" % (a, b)
        if k == 4:
            self.features.add("mod")
            return "(%s %% %s)" % (a, b)
        if k == 5:
            return "int(%s)" % self.int_expr(depth + 1)
        if k == 6:
            return "(%s * %s)" % (a, b)
        if k == 7:
            return "-%s" % a
        return "(%s + %s)" % (a, b)

    def bool_expr(self, depth=0):
        k = self.r.randrange(8)
        if depth > 2:
            k = 0
        if k <= 2:
            ops = ["<", "<=", ">", ">=", "==", "!="]
            return "%s %s %s" % (self.num_expr(depth + 1), self.r.choice(ops), self.num_expr(depth + 1))
        if k == 3:
            self.features.add("chained_compare")
            return "%s <= %s < %s" % (self.int_expr(depth + 1), self.int_atom(), self.int_expr(depth + 1))
        if k == 4:
            self.features.add("and_or")
            return "(%s %s %s)" % (self.bool_expr(depth + 1), self.r.choice(["and", "or"]), self.bool_expr(depth + 1))
        if k == 5:
            self.features.add("not")
            return "not (%s)" % self.bool_expr(depth + 1)
        if k == 6:
            self.features.add("in")
            items = ", ".join(self.small() for _ in range(self.r.randint(1, 4)))
            return "%s %s [%s]" % (self.int_atom(), self.r.choice(["in", "not in"]), items)
        # short-circuit guarding a division
        self.features.add("short_circuit")
        a = self.int_atom()
        return "(%s != 0 and %s // %s > 0)" % (a, self.int_atom(), a)

    # ---- iterables ---------------------------------------------------
    def range_expr(self):
        lo = self.int_expr(1)
        k = self.r.randrange(3)
        if k == 0:
            # Capped: a derived value may be huge (overflow tests), and a
            # range of 10^10 values would make the space itself huge.
            return "range(%s)" % self.r.choice(["4", "3", "min(%s, 5) + 2" % self.int_atom()])
        hi = "%s + %d" % (lo, self.r.randint(1, 5))
        if k == 1:
            return "range(%s, %s)" % (lo, hi)
        step = self.r.choice(["1", "2", "-1", "-2", "3"])
        if step.startswith("-"):
            self.features.add("negative_step")
            return "range(%s, %s - %d, %s)" % (lo, lo, self.r.randint(1, 6), step)
        return "range(%s, %s, %s)" % (lo, hi, step)

    def list_expr(self):
        items = [self.r.choice([self.small(), self.int_atom()]) for _ in range(self.r.randint(1, 4))]
        return "[%s]" % ", ".join(items)

    # ---- Kernel Tuner's idioms (self.idiom's stream) ---------------------
    def idiom_atom(self):
        q = self.idiom
        return q.choice(self.ints) if self.ints and q.random() < 0.6 else str(q.randint(-3, 6))

    def idiom_source(self):
        """What a comprehension's `for` runs over: maybe dependent."""
        q = self.idiom
        k = q.randrange(4)
        if k == 0:
            return "range(%d, %d)" % (q.randint(-2, 2), q.randint(3, 7))
        if k == 1:
            return "range(1, min(%s, 6) + 2)" % self.idiom_atom()
        if k == 2:
            return "[%s]" % ", ".join(self.idiom_atom() for _ in range(q.randint(1, 4)))
        return "range(%s, %s + 6, %d)" % (self.idiom_atom(), self.idiom_atom(), q.choice([1, 2, 3]))

    def idiom_value(self, v):
        """An int or float made from the comprehension variable v."""
        q = self.idiom
        k = q.randrange(8)
        a = self.idiom_atom()
        if k == 0:
            return "2 ** %s" % v if q.random() < 0.5 else "%s * %s" % (v, a)
        if k == 1:
            self.features.add("round")
            return "round(%s / %s%s)" % (v, q.choice(["3", "4", a]), q.choice(["", ", 1", ", -1", ", 0", ", None"]))
        if k == 2:
            self.features.add("divmod")
            return "divmod(%s, %s)[%d]" % (v, q.choice(["3", a, "-2"]), q.randint(0, 1))
        if k == 3:
            self.math = True
            self.features.add("math")
            return q.choice(["math.ceil(%s / 3)", "math.floor(%s / -2)", "math.isqrt(abs(%s))",
                             "math.gcd(%s, 12)", "math.lcm(%s, 4)", "int(math.log2(%s) * 4)",
                             "math.trunc(math.sqrt(%s) * 3)", "math.factorial(%s %% 5)",
                             "int(math.pow(%s, 2) + math.exp(0))", "math.prod([%s, 2, 3])"]) % v
        if k == 4:
            return "%s %% %s" % (v, q.choice(["3", a]))
        return "%s + %s" % (v, a)

    def comprehension(self):
        q = self.idiom
        self.features.add("comprehension")
        v = "v"
        out = "[%s for %s in %s" % (self.idiom_value(v), v, self.idiom_source())
        if q.random() < 0.4:
            self.features.add("comprehension_nested")
            out = "[%s * w for %s in %s for w in range(1, %s + 2)" % (v, v, self.idiom_source(), q.choice(["2", v]))
        if q.random() < 0.6:
            out += " if %s %s %s" % (v, q.choice(["% 2 ==", "<", ">", "!="]), q.randint(-1, 3))
        return out + "]"

    def idiom_constraint(self):
        q = self.idiom
        x = self.idiom_atom()
        k = q.randrange(5)
        if k == 0:
            self.features.add("any_all")
            test = "%s(%s %s v for v in %s)" % (q.choice(["any", "all"]), x, q.choice(["<", "!=", ">="]),
                                                self.idiom_source())
        elif k == 1:
            self.features.add("any_all")
            test = "%s([%s > 0, %s])" % (q.choice(["any", "all"]), x, self.idiom_atom())
        elif k == 2:
            self.features.add("comprehension")
            test = "sum([v for v in %s if v != %s]) %s %d" % (self.idiom_source(), x, q.choice(["<", ">"]),
                                                              q.randint(0, 20))
        else:
            test = "%s %s %d" % (self.idiom_value(x), q.choice(["<", "!=", ">="]), q.randint(-2, 8))
        self.lines.append("require %s" % test)

    def iterable(self):
        text = self.iterable_form()
        if self.idiom.random() < 0.15:
            return self.comprehension()
        return text

    def iterable_form(self):
        k = self.r.randrange(7)
        if k <= 2:
            self.features.add("dependent_range")
            return self.range_expr()
        if k == 3:
            return self.list_expr()
        if k == 4:
            self.features.add("algebra")
            op = self.r.choice(["|", "&", "-"])
            return "%s %s %s" % (self.range_expr(), op, self.list_expr())
        if k == 5:
            self.features.add("cond_iterable")
            return "%s if %s else %s" % (self.list_expr(), self.bool_expr(1), self.range_expr())
        self.features.add("list_repeat")
        return "[%s] * %d + %s" % (self.int_atom(), self.r.randint(0, 2), self.list_expr())

    # ---- definitions -------------------------------------------------
    def closure_iterator(self, name):
        self.features.add("closure")
        deps = self.r.sample(self.ints, min(len(self.ints), 2))
        lim = self.int_atom()
        k = self.r.randrange(3)
        body = ["@iterator", "def %s(%s):" % (name, ", ".join(deps))]
        if k == 0:
            body += ["    k = n = 1",
                     "    while n <= %s + 5:" % lim,
                     "        yield n",
                     "        n, k = n + k, n"]
        elif k == 1:
            self.features.add("for_else")
            body += ["    found = []",
                     "    for n in range(2, %s + 9):" % lim,
                     "        for p in found:",
                     "            if n % p == 0:",
                     "                break",
                     "        else:",
                     "            found.append(n)",
                     "            if len(found) > 4:",
                     "                return",
                     "            yield n"]
        else:
            body += ["    t = %s" % self.int_expr(1),
                     "    for i in range(4):",
                     "        if i == 2:",
                     "            continue",
                     "        t += i",
                     "        yield t % 7"]
        self.lines += body
        self.lines.append("")

    def deferred_iterator(self, name):
        self.features.add("deferred")
        a = self.int_atom()
        self.lines += ["@iterator",
                       "def %s(%s):" % (name, a if a in self.ints else ""),
                       "    if %s > 2:" % a,
                       "        return %s" % self.list_expr(),
                       "    elif %s < 0:" % a,
                       "        return %s" % self.int_atom(),
                       "    else:",
                       "        return %s" % self.range_expr(),
                       ""]

    def iter_test(self):
        """A test that reads the newest iterator, so it prunes mid-nest."""
        it = [x for x in self.ints if x.startswith("it")]
        x = it[-1] if it else self.int_atom()
        return "%s %s %s" % (x, self.r.choice(["<", ">", "==", "!=", "<=", ">="]), self.int_expr(1))

    def reject_expr(self):
        # Both must hold, so a random space keeps a useful share of points.
        return "(%s) and (%s)" % (self.iter_test(), self.bool_expr(1))

    def keep_expr(self):
        return "(%s) or (%s)" % (self.iter_test(), self.bool_expr(1))

    def constraint(self):
        name = self.fresh("c")
        cls = self.r.choice(["hard", "soft", "correct"])
        k = self.r.randrange(4)
        if k == 0:
            self.features.add("require")
            if self.r.random() < 0.5:
                self.lines.append("require %s" % self.keep_expr())
            else:
                self.lines.append("require %s %s = %s" % (cls, name, self.keep_expr()))
        elif k == 1:
            self.features.add("constraint_def")
            deps = [x for x in self.r.sample(self.ints, min(2, len(self.ints)))]
            self.lines += ["@%s" % cls,
                           "def %s(%s):" % (name, ", ".join(deps)),
                           "    v = %s" % self.int_expr(1),
                           "    if v > 3:",
                           "        return %s" % self.reject_expr(),
                           "    return v == %s and %s" % (self.small(), self.iter_test()),
                           ""]
        else:
            self.lines.append("%s %s = %s" % (cls, name, self.reject_expr()))
        self.features.add("class_" + cls)

    def opt_constraint(self, it):
        """Shapes that the -O1/-O2 loop transformations recognise (cg_opt.c),
        over the newest iterator `it`: equality pins, monotone bounds,
        divisors (also X * Y == c with a deeper Y), disjuncts of them, and
        derived values placed with the iterator."""
        r = self.r
        cls = r.choice(["hard", "soft", "correct"])
        name = self.fresh("o")
        prev = [x for x in self.ints if x != it]
        other = self.pick(prev)
        k = r.randrange(11)
        if k == 0:
            self.features.add("opt_pin")
            form = r.choice(["%s * %s != %s", "%s * %s != %s", "%s + %s != %s", "%s - %s != %s"])
            e = form % (other, it, self.int_atom()) if form.startswith("%s *") and r.random() < 0.5 \
                else form % (it, other, self.int_atom())
            self.lines.append("%s %s = %s" % (cls, name, e))
        elif k == 1:
            self.features.add("opt_pin")
            form = r.choice(["%s == %s + %d", "%s + %s == %d", "%s - %s == %d", "%d * %s == %s"])
            if form.startswith("%d"):
                e = form % (r.randint(-2, 3), it, self.int_atom())
            else:
                e = form % (it, other, r.randint(-2, 4))
            if r.random() < 0.5:
                self.lines.append("require %s" % e)
            else:
                self.lines.append("require %s %s = %s" % (cls, name, e))
        elif k == 2:
            self.features.add("opt_bound")
            mul = r.choice(["3", "-2", "0", other, "1"])
            op = r.choice([">", ">=", "<", "<="])
            e = r.choice(["%s * %s %s %s" % (it, mul, op, self.int_atom()),
                          "%s * %s %s %s" % (mul, it, op, self.int_atom()),
                          "%s + %s %s %s" % (it, other, op, self.int_atom()),
                          "%s %s %s" % (self.int_atom(), op, it),
                          "%s - %s %s %s" % (other, it, op, self.int_atom()),
                          "(%s + 1) // %s %s %s" % (it, r.choice(["2", "-3", other]), op, self.int_atom())])
            if r.random() < 0.5:
                self.lines.append("%s %s = %s" % (cls, name, e))
            else:
                self.lines.append("require %s %s = %s" % (cls, name, e))
        elif k == 3:
            self.features.add("opt_divisor")
            c = r.choice(["48", "36", "-12", "0", other, "60"])
            if r.random() < 0.5:
                self.lines.append("%s %s = %s %% %s != 0" % (cls, name, c, it))
            else:
                self.lines.append("require %s %s = %s %% %s == 0" % (cls, name, c, it))
        elif k == 4:
            # a positive range worth enumerating by divisors, and its constraint
            self.features.add("opt_divisor")
            y = self.fresh("it")
            self.lines.append("%s = range(%s, %d, %s)" % (y, r.choice(["1", "2", "1"]), r.randint(20, 70),
                                                            r.choice(["1", "1", "2", "3"])))
            self.ints.append(y)
            self.lines.append("%s %s = %s %% %s != 0" % (cls, name, r.choice(["48", "60", "-36", "7"]), y))
        elif k == 5:
            # X * Y == c with Y a deeper range: X runs over the divisors of c
            self.features.add("opt_product")
            y = self.fresh("it")
            self.lines.append("%s = range(1, %s + 3)" % (y, it))
            self.ints.append(y)
            c = r.choice(["12", "24", other, "0"])
            if r.random() < 0.5:
                self.lines.append("%s %s = %s * %s != %s" % (cls, name, it, y, c))
            else:
                self.lines.append("require %s %s = %s == %s * %s" % (cls, name, c, it, y))
        elif k == 6:
            # a disjunct that depends on the iterator alone decides early
            self.features.add("opt_disjunct")
            self.lines.append("%s %s = (%s) or (%s * %s != %s)" % (cls, name, self.bool_expr(1), other, it,
                                                                  self.int_atom()))
        elif k == 7:
            # a derived value at the iterator's level, read by the constraint
            self.features.add("opt_derived")
            d = self.fresh("d")
            self.lines.append("%s = %s * %s" % (d, it, r.choice(["2", other])))
            self.ints.append(d)
            self.lines.append("%s %s = %s > %s" % (cls, name, d, self.int_atom()))
        elif k == 9:
            # X % m == c over a step-1 range: every m-th value (congruence stepping)
            self.features.add("opt_congruence")
            y = self.fresh("it")
            self.lines.append("%s = range(%d, %d)" % (y, r.randint(-9, 3), r.randint(5, 60)))
            self.ints.append(y)
            m = r.choice(["3", "4", "-3", "0", other, "(%s + 1)" % other])
            c = r.choice(["0", "1", "2", "-1", other])
            if r.random() < 0.5:
                self.lines.append("require %s %% %s == %s" % (y, m, c))
            else:
                self.lines.append("%s %s = %s %% %s != %s" % (cls, name, y, m, c))
        elif k == 10:
            # a constraint on one hoisted iterator alone (domain filtering)
            self.features.add("opt_filter")
            y = self.fresh("it")
            self.lines.append("%s = %s" % (y, r.choice(["range(0, 40)", "[1, 2, 3, 5, 8, 13]",
                                                         "range(30, -5, -2)", "[0, True, 2]"])))
            self.ints.append(y)
            self.lines.append("%s %s = %s %% %s == %s" % (cls, name, y, r.choice(["3", "4", "0"]),
                                                         r.choice(["0", "1"])))
            self.lines.append("require %s + %s != %s" % (y, other, self.int_atom()))
        else:
            # repeated subexpressions across derived values
            self.features.add("opt_repeat")
            a, b = self.fresh("d"), self.fresh("d")
            sub = "(%s * %s + 1)" % (it, other)
            self.lines.append("%s = %s // 2" % (a, sub))
            self.lines.append("%s = %s + %s" % (b, sub, it))
            self.ints += [a, b]
            self.lines.append("%s %s = %s > %s" % (cls, name, b, self.int_atom()))

    def interval_constraint(self, names=None):
        """A constraint over several iterators (a product, a sum, min/max),
        which interval pruning (cg_interval.c) checks at the outer levels
        where only some of them are bound; thresholds from tight to loose,
        and now and then a factor large enough to overflow the bounds.
        `names`: the values to draw from (default: every int)."""
        r = self.r
        names = names or [x for x in self.ints if x != "dv"]
        if len(names) < 2:
            return
        self.features.add("opt_interval")
        vs = r.sample(names, min(len(names), r.randint(2, 4)))
        if r.random() < 0.15:
            vs.append(r.choice(BIG))
        e = r.choice([" * ", " * ", " + ", " - "]).join(vs)
        k = r.randrange(6)
        if k == 1:
            e = "%s(%s, %s)" % (r.choice(["min", "max"]), e, self.int_atom())
        elif k == 2:
            e = "abs(%s) // %s" % (e, r.choice(["2", "-3", vs[0]]))
        elif k == 3:
            e = "(%s) %% %s" % (e, r.choice(["5", "-4", vs[-1]]))
        elif k == 4:
            e = "(%s if %s > 1 else %s)" % (e, vs[0], self.int_atom())
        t = lambda: r.choice(["-20", "-1", "0", "3", "10", "40", "200"])
        cls = r.choice(["hard", "soft", "correct"])
        form = r.randrange(4)
        if form == 0:
            self.lines.append("require %s <= %s <= %s" % (t(), e, t()))
        elif form == 1:
            self.lines.append("require %s %s = %s %s %s" % (cls, self.fresh("p"), e, r.choice(["<", ">=", "=="]),
                                                            t()))
        elif form == 2:
            self.lines.append("%s %s = %s %s %s" % (cls, self.fresh("p"), e, r.choice([">", "<=", "!="]), t()))
        else:
            self.lines.append("%s %s = %s > %s or not %s < %s" % (cls, self.fresh("p"), e, t(), vs[0], t()))

    def subnest(self):
        """Iterators joined only among themselves and to one outer value:
        factorization counts them once per value of that input (domain
        errors and soft constraints inside included), and a subexpression
        that can fail is shared by two of their definitions (CSE)."""
        r = self.r
        outer = r.choice([x for x in self.ints if x.startswith("it")] or ["dv"])
        a, b = self.fresh("it"), self.fresh("it")
        self.lines.append("%s = range(0, %s %% 4 + 2)" % (a, outer))
        self.lines.append("%s = range(%d, %s + 3)" % (b, r.randint(-2, 1), a))
        cls = r.choice(["hard", "soft", "correct"])
        self.features.add("factor_subnest")
        # (a - 1) is 0 for a == 1: a division by zero inside the sub-nest
        sub = "(%s * %s // (%s - 1))" % (outer, b, a)
        d = self.fresh("d")
        self.lines.append("%s = %s + %s" % (d, sub, r.choice(["1", b, outer])))
        self.features.add("cse_error")
        self.lines.append("%s %s = %s %% 3 == %s or %s > %d" % (cls, self.fresh("c"), sub, r.randint(0, 2), d,
                                                               r.randint(2, 12)))
        if r.random() < 0.4:
            # checked in the main chain and inside the sub-nest's count function
            self.interval_constraint([a, b, outer])
        if r.random() < 0.5:
            # a free iterator nobody constrains: a sub-nest of its own
            self.features.add("factor_free")
            self.lines.append("%s = range(%d, %d)" % (self.fresh("it"), r.randint(-1, 1), r.randint(2, 4)))

    def twin_subnests(self):
        """gemm_beast's A and B reshapes in small: two sub-nests, each
        reading an outer iterator of its own (p or q) and a shared one (k),
        under a chain constraint that treats p and q alike.  The main
        chain's order (cg_factor.c, order_chain) then decides which
        sub-nest's near counts are kept by k alone and which by (q, k) or
        (p, k); every order must count and list the same points.  Drawn
        from a random stream of its own, after everything else."""
        r = self.twin_r
        self.features.add("twin_subnests")
        p, q, k = self.fresh("it"), self.fresh("it"), self.fresh("it")
        self.lines.append("%s = range(1, %d)" % (p, r.randint(4, 9)))
        self.lines.append("%s = range(1, %d)" % (q, r.randint(4, 9)))
        self.lines.append("%s = %s" % (k, r.choice(["[1, 2, 4]", "range(1, 4)", "[3, 1]"])))
        self.lines.append("require %s * %s <= %d" % (p, q, r.randint(8, 40)))
        for outer in r.sample([p, q], 2):
            a, b = self.fresh("it"), self.fresh("it")
            self.lines.append("%s = range(1, %s + 1)" % (a, outer))
            self.lines.append("%s = %s" % (b, r.choice(["range(1, 4)", "[1, 2, 4]", "range(0, %s + 1)" % k])))
            self.lines.append("require %s %% %s == 0" % (outer, a))
            if r.random() < 0.5:
                self.lines.append("require %s * %s == %s" % (a, b, k))
            else:
                self.lines.append("%s %s = %s + %s > %s" % (r.choice(["hard", "soft", "correct"]), self.fresh("c"), a, b,
                                                            r.choice([k, outer])))

    def shared_filter(self):
        """A constant iterable whose unary constraint (-O2 domain filtering
        runs it once per value, before the loops) shares a subexpression
        with a derived value at its level and with a constraint at a deeper
        level (-O2 CSE): every value filtered must compute the shared value
        anew (issue 13's 7-line space).  The constraint rejects some values
        and keeps others, the first value often rejected, so a value
        remembered from another one changes the answer.  Drawn from its own
        random stream, so the other shapes of a seed stay as they were."""
        r = self.shape_r
        self.features.add("shared_filter")
        x, y = self.fresh("it"), self.fresh("it")
        xs = r.choice(["range(1, %d)" % r.randint(5, 17), "range(-3, 12, 2)", "[1, 2, 3, 5, 8, 13]",
                       "range(16, 0, -3)", "[4, 1, 9, 2]"])
        self.lines.append("%s = %s" % (x, xs))
        self.lines.append("%s = %s" % (y, r.choice(["[1, 2, 4]", "range(0, 3)", "[3, -1]"])))
        self.ints += [x, y]
        sub = r.choice(["X * X", "(X + 3)", "(X // 3)", "(X % 4)", "X * dv", "abs(X - 5)", "min(X, 6)",
                        "(X - 2) * (X + 1)"])
        if r.random() < 0.25:
            sub = "X / 2.0"  # a tagged (float) shared value
        # its values, to draw thresholds that split them
        vals = [eval(sub, {"X": v, "dv": self.dv}) for v in eval(xs)]
        sub = sub.replace("X", x)
        d = self.fresh("d")
        mul = r.choice(["4", "2", "dv"])
        self.lines.append("%s = %s * %s" % (d, sub, mul))
        self.nums.append(d)
        mid = sorted(vals)[len(vals) // 2]
        form = r.randrange(4)
        if form == 0:
            self.lines.append("require %s >= %r" % (sub, mid))
        elif form == 1:
            self.lines.append("%s %s = %s < %r" % (r.choice(["hard", "soft", "correct"]), self.fresh("c"), sub, mid))
        else:
            # the first value alone is rejected
            self.lines.append("require %s != %r" % (sub, vals[0]))
        # across levels: the derived value and the subexpression itself,
        # with limits that keep most points (with the tuning space's first
        # parameter, which joins the groups into one nest)
        top = max(abs(v) for v in vals) * (self.dv if mul == "dv" else int(mul)) * 4
        self.lines.append("require %s * %s <= %r" % (d, y, r.choice([top, top, top // 2 + 1])))
        if self.first_param:
            if r.random() < 0.5:
                self.lines.append("require %s * %s <= %r" % (d, self.first_param, top * 2))
            else:
                self.lines.append("require %s * %s + %s <= %r" % (d, self.first_param, y, top * 2))
        if r.random() < 0.5:
            self.lines.append("%s %s = %s + %s > %r" % (r.choice(["hard", "soft", "correct"]), self.fresh("c"), sub, y,
                                                        max(vals) + r.choice([0, 2, 5])))

    def long_literals(self):
        """Literals longer than 127 characters (floats, with '_' now and
        then, and a string with escapes), whose exact values decide which
        points remain."""
        r = self.shape_r
        self.features.add("long_literal")
        it = self.pick([x for x in self.ints if x.startswith("it")] or ["dv"])
        z = r.randint(120, 260)
        small = "0." + "0" * z + r.choice(["1", "25", "3_3"])
        big = r.choice(["1", "3", "2_5"]) + "0" * z + ".0"
        k = r.choice(["3", "8", "40", "-1"])
        if r.random() < 0.5:
            # it * 10**-(z+1) * 10**(z+1) is about it (times the digits)
            self.lines.append("require %s * %s * 1e%d <= %s" % (it, small, z + 1, k))
        else:
            self.lines.append("%s %s = %s / 1e%d * %s > %s" % (r.choice(["hard", "soft", "correct"]), self.fresh("c"),
                                                              big, z, it, k))
        text = "".join(r.choice(["ab", "\\t", "\\x41", "\\u00e9", "\\101", "\\N{EURO SIGN}", "\\f",
                                 "-", "\\v"]) for _ in range(r.randint(40, 70)))
        name = self.fresh("s")
        self.lines.append('setting %s = "%s"' % (name, text))
        self.lines.append("require len(%s) %% %d != %s %% %d" % (name, r.randint(2, 4), it, r.randint(2, 4)))

    def tuning_space(self):
        """An ordinary tuning space: a few parameters from constant lists
        and ranges, sizes derived from them, limits on those sizes; most of
        its points are valid, so a wrong answer shows (random spaces of the
        other kind are mostly empty)."""
        r = self.shape_r
        self.features.add("tuning_space")
        # The first parameter has its own limits, so its loop opens first
        # and the others' constant iterables are filtered before the nest.
        w = self.fresh("it")
        self.lines.append("%s = %s" % (w, r.choice(["[1, 2, 4, 8]", "range(1, 5)", "[2, 3]"])))
        self.lines.append("require %s * 4 <= %d" % (w, r.choice([16, 32])))
        self.lines.append("require %s != 3" % w)
        self.ints.append(w)
        self.first_param = w
        self.shared_filter()
        if r.random() < 0.5:
            self.shared_filter()
        if r.random() < 0.5:
            self.long_literals()
        used = " + ".join(x for x in self.ints + self.nums if not x.startswith("it") and x != "dv") or "0"
        self.lines.append("soft keep_all = %s == -12345" % used)
        return "\n".join(self.lines) + "\n"

    # ---- BEAST's shapes (self.spec's stream) ---------------------------
    def sfresh(self, prefix):
        self.sn += 1
        return "%s%d" % (prefix, self.sn)

    def spec_atom(self):
        q = self.spec
        pool = self.sints + self.ints
        return q.choice(pool) if pool and q.random() < 0.7 else str(q.randint(1, 6))

    def setting_iterator(self):
        """A deferred iterator whose branches test settings (tr, mode), as
        BEAST's dim_m_a does: specialized, it is one range."""
        q = self.spec
        name = self.sfresh("sit")
        a, b = self.spec_atom(), self.spec_atom()
        params = ", ".join(sorted({x for x in (a, b) if not x.isdigit()}))
        self.features.add("setting_iterator")
        k = q.randrange(3)
        body = ["@iterator", "def %s(%s):" % (name, params)]
        if k == 0:
            body += ["    if tr == 0:",
                     "        return range(1, min(%s, 6) // %d + 2)" % (a, q.choice([1, 2])),
                     "    else:",
                     "        return range(1, min(%s, 5) + 2)" % b]
        elif k == 1:
            body += ['    if mode == "a":',
                     "        return %d" % q.randint(0, 3),
                     "    elif tr != 0:",
                     "        return range(0, max(%s, 0) %% 5 + 2)" % a,
                     "    else:",
                     "        return [1, %d, 4]" % q.randint(2, 3)]
        else:
            body += ["    if tr == 0 and mode == \"b\":",
                     "        return range(%d, %d)" % (q.randint(-1, 1), q.randint(3, 7)),
                     "    return range(1, min(%s, 4) + 3, %d)" % (b, q.choice([1, 2]))]
        self.lines += body + [""]
        self.sints.append(name)
        return name

    def setting_constraint(self, it):
        """Constraint defs over `it` whose bodies branch on settings and
        hold the shapes the transformations look for: X * Y != c (divisor
        iteration, equality solving), the or/and of divisibility tests of
        BEAST's cant_reshape_a2, monotone bounds."""
        q = self.spec
        cls = q.choice(["hard", "soft", "correct"])
        name = self.sfresh("sd")
        o = self.spec_atom()
        k = q.randrange(4)
        if k == 0:
            # a deeper range pinned by a product, as dim_n_a by cant_reshape_a1
            self.features.add("setting_product")
            y = self.sfresh("sit")
            self.lines.append("%s = range(1, min(%s, 8) + 3)" % (y, it))
            self.sints.append(y)
            c = q.choice(["12", "24", "6", o])
            body = ["    if tr == 0:",
                    "        return (%s * %s != %s)" % (it, y, c),
                    "    else:",
                    "        return %s + %s != %s" % (y, it, c)]
            params = [it, y] + ([o] if not o.isdigit() else [])
        elif k == 1:
            # BEAST's cant_reshape_a2: an or of and-ed divisibility tests
            self.features.add("setting_divisibility")
            y = self.sfresh("sit")
            self.lines.append("%s = range(1, %d)" % (y, q.randint(4, 9)))
            self.sints.append(y)
            c1, c2 = q.choice(["12", "24", "36", o]), q.choice(["8", "18", o])
            body = ["    return (tr == 0 and \\",
                    "            ((%s %% (%s * %d) != 0) or (%s %% %s != 0))) \\" % (c1, it, q.choice([1, 2]), c2, y),
                    "        or \\",
                    "        (tr != 0 and ((%s %% (%s * %d) != 0) or \\" % (c2, y, q.choice([1, 2])),
                    "            (%s %% %s != 0)))" % (c1, it)]
            params = [it, y] + ([o] if not o.isdigit() else [])
        elif k == 2:
            self.features.add("setting_bound")
            body = ['    if mode == "a":',
                    "        return %s * %d > %s" % (it, q.choice([2, 3]), q.randint(2, 12)),
                    "    else:",
                    "        return %s + %s >= %d" % (it, o, q.randint(3, 12))]
            params = [it] + ([o] if not o.isdigit() else [])
        else:
            # a body with a local: stays a def (nothing to specialize away)
            self.features.add("setting_local")
            body = ["    v = %s %% 4" % it,
                    "    if tr == 0:",
                    "        return v == %d" % q.randint(0, 3),
                    "    return v + %s == %d" % (o, q.randint(0, 5))]
            params = [it] + ([o] if not o.isdigit() else [])
        self.lines += ["@%s" % cls, "def %s(%s):" % (name, ", ".join(dict.fromkeys(params)))] + body + [""]

    def space(self):
        r = self.r
        self.lines.append('"""random space"""')
        self.dv = r.randint(1, 4)
        self.lines.append("device dv = %d" % self.dv)
        self.lines.append('setting mode = "%s"' % r.choice(["a", "b"]))
        self.lines.append("setting tr = %d" % self.spec.randint(0, 1))
        self.ints.append("dv")
        if self.shape_r.random() < 0.2:
            return self.tuning_space()
        n_iters = r.randint(1, 8)
        for _ in range(n_iters):
            name = self.fresh("it")
            k = r.randrange(10)
            if k == 0:
                self.closure_iterator(name)
            elif k == 1:
                self.deferred_iterator(name)
            else:
                self.lines.append("%s = %s" % (name, self.iterable()))
            self.ints.append(name)
            # derived chains with SSA
            if r.random() < 0.6:
                d = self.fresh("d")
                self.lines.append("%s = %s + %s" % (d, name, self.int_expr()))
                if r.random() < 0.5:
                    self.features.add("ssa")
                    self.lines.append('if mode == "a":')
                    self.lines.append("    %s = %s + 1" % (d, d))
                    if r.random() < 0.5:
                        self.lines.append("elif %s > 1:" % self.int_atom())
                        self.lines.append("    %s = %s * 2" % (d, d))
                    if r.random() < 0.5:
                        self.lines.append("else:")
                        self.lines.append("    %s = %s" % (d, self.int_expr(1)))
                self.ints.append(d)
            if r.random() < 0.3:
                f = self.fresh("f")
                self.lines.append("%s = %s + %s" % (f, name, self.num_expr()))
                self.nums.append(f)
            for _ in range(r.randint(0, 2)):
                self.constraint()
            if self.idiom.random() < 0.25:
                self.idiom_constraint()
            if self.spec.random() < 0.3:
                self.setting_constraint(self.setting_iterator())
            if r.random() < 0.5:
                self.opt_constraint(name)
        if self.shape_r.random() < 0.4:
            self.shared_filter()
        if self.shape_r.random() < 0.3:
            self.long_literals()
        if r.random() < 0.5:
            self.subnest()
            self.interval_constraint()
        if self.twin_r.random() < 0.3:
            self.twin_subnests()
        # derived values nobody reads still count: keep them read
        used = " + ".join(x for x in self.ints + self.nums if not x.startswith("it") and x != "dv") or "0"
        self.lines.append("soft keep_all = %s == -12345" % used)
        if self.math:
            self.lines.insert(1, "import math")
        return "\n".join(self.lines) + "\n"


def main():
    args = sys.argv[1:]
    features = "--features" in args
    features_stderr = "--features-stderr" in args
    args = [a for a in args if not a.startswith("--features")]
    seed = int(args[0]) if args else 1
    g = Gen(seed)
    text = g.space()
    if features:
        print(" ".join(sorted(g.features)))
    else:
        sys.stdout.write(text)
        if features_stderr:
            sys.stderr.write(" ".join(sorted(g.features)) + "\n")


if __name__ == "__main__":
    main()
