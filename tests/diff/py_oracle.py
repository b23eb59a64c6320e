#!/usr/bin/env python3
"""A third oracle for small spaces: Python's own parser and evaluator.

py_oracle.py SPACE [LISTING.jsonl ...]

Reads SPACE with Python's `ast` module (after rewriting the few statement
forms Python lacks: `device`/`setting` prefixes, `hard|soft|correct NAME =`
and `require`), enumerates every point by brute force in the order the
file is written, and evaluates every expression with Python's own `eval`
and every def body as a Python function.  Nothing of spacec's front end,
interpreter or code generator is involved, so a bug they share (the
lexer's, sema's) shows here.  The language's own rules are added on top of
Python's, each in one place below (_Rules): an int result outside 64 bits,
a complex power, or any exception Python raises while evaluating a
definition rejects the point (a domain error); `a | b`, `a & b`, `a - b` of
two iterables are sorted set operations; an iterator's values are those of
its iterable (a value that is not one is its only value); a closure
iterator that fails yields nothing.

Prints the points as sorted canonical lines, or, given spacec listings
(`list --format jsonl`), compares the points of each with its own and exits
1 on a difference (printing the first few).  Exit 3: the space is too large
to enumerate (more than --limit candidates) or uses a form this oracle does
not read; the caller skips it.

The definitions must come in dependency order (a name is defined above its
first use outside def bodies), as gen_space.py writes them.
"""
import ast
import builtins
import json
import math
import operator
import re
import sys

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1


class DomainError(Exception):
    """A result the language has no value for (an int beyond 64 bits...)."""


class Unsupported(Exception):
    """A form this oracle does not read: the space is skipped."""


class TooLarge(Exception):
    pass


def _is_seq(v):
    return isinstance(v, (list, range))


class _Rules:
    """The language's rules on top of Python's operators."""

    BIN = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<<": operator.lshift,
           ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor}
    UN = {"-": operator.neg, "+": operator.pos, "~": operator.invert}

    @staticmethod
    def check(v):
        if isinstance(v, int) and not isinstance(v, bool) and not INT_MIN <= v <= INT_MAX:
            raise DomainError("integer overflow")
        if isinstance(v, complex):
            raise DomainError("a complex result")
        return v

    @staticmethod
    def binop(op, a, b):
        if op in ("|", "&", "-") and _is_seq(a) and _is_seq(b):
            sa, sb = set(a), set(b)
            r = sa | sb if op == "|" else sa & sb if op == "&" else sa - sb
            return sorted(r)
        ints = isinstance(a, int) and isinstance(b, int)
        # Results certain to exceed 64 bits, before Python builds them.
        if ints and op == "**" and b > 64 and abs(a) > 1:
            raise DomainError("integer overflow in '**'")
        if ints and op == "<<" and b > 64 and a != 0:
            raise DomainError("integer overflow in '<<'")
        if op == "*" and isinstance(a, (list, str)) and isinstance(b, int) and b > 10**6:
            raise Unsupported("a huge repetition")
        return _Rules.check(_Rules.BIN[op](a, b))

    @staticmethod
    def unop(op, a):
        return _Rules.check(_Rules.UN[op](a))

    @staticmethod
    def call(v):
        return _Rules.check(v)


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
        ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
        ast.BitXor: "^"}
_UOPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}


class _Checked(ast.NodeTransformer):
    """Every arithmetic operation and call goes through _Rules."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return ast.copy_location(ast.Call(
            func=ast.Attribute(value=ast.Name("__rules", ast.Load()), attr="binop", ctx=ast.Load()),
            args=[ast.Constant(_OPS[type(node.op)]), node.left, node.right], keywords=[]), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(ast.Call(
            func=ast.Attribute(value=ast.Name("__rules", ast.Load()), attr="unop", ctx=ast.Load()),
            args=[ast.Constant(_UOPS[type(node.op)]), node.operand], keywords=[]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute):  # list.append
            return node
        return ast.copy_location(ast.Call(
            func=ast.Attribute(value=ast.Name("__rules", ast.Load()), attr="call", ctx=ast.Load()),
            args=[node], keywords=[]), node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            raise Unsupported("augmented assignment to %s" % type(node.target).__name__)
        value = self.visit_BinOp(ast.copy_location(
            ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=node.op, right=node.value), node))
        return ast.copy_location(ast.Assign(targets=[ast.Name(node.target.id, ast.Store())], value=value), node)


# ---- reading a .space ---------------------------------------------------------

_CLASS = r"(hard|soft|correct)"
_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"


def python_text(text):
    """The .space text as a Python module: constraints become assignments to
    marked names (__reject__NAME, __keep__NAME), so Python parses them."""
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"(device|setting)\s+(?=[A-Za-z_])", line)
        if m:
            line = line[m.end():]
            if "query(" in line:
                raise Unsupported("query()")
        m = re.match(_CLASS + r"\s+" + _NAME + r"\s*=(?!=)", line)
        if m:
            line = "__reject__%s =%s" % (m.group(2), line[m.end():])
        m = re.match(r"require\s+(?:" + _CLASS + r"\s+)?(?:" + _NAME + r"\s*=(?!=))?", line)
        if m:
            line = "__keep__%s = %s" % (m.group(2) or "line_%d" % n, line[m.end():])
        if re.match(r"tune\s*:", line):
            raise Unsupported("a tune: section")
        out.append(line)
    return "\n".join(out)


def _code(node, env_names, mode="eval"):
    tree = ast.Expression(node) if mode == "eval" else ast.Module(body=node, type_ignores=[])
    tree = ast.fix_missing_locations(_Checked().visit(tree))
    return compile(tree, "<space>", mode)


class Space:
    """The definitions in file order: (kind, name, code)."""

    def __init__(self, text):
        tree = ast.parse(python_text(text))
        self.steps = []
        for s in tree.body:
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
                continue  # the docstring
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                name = s.targets[0].id
                code = _code(s.value, None)
                if name.startswith("__reject__"):
                    self.steps.append(("reject", name[10:], code))
                elif name.startswith("__keep__"):
                    self.steps.append(("keep", name[8:], code))
                else:
                    self.steps.append(("value", name, code))
            elif isinstance(s, ast.If):
                self.steps.append(("exec", None, _code([s], None, "exec")))
            elif isinstance(s, (ast.Import, ast.ImportFrom)):
                # the language's one module is Python's math
                mods = [a.name for a in s.names] if isinstance(s, ast.Import) else [s.module]
                if mods != ["math"]:
                    raise Unsupported("import %s" % ", ".join(mods))
                self.steps.append(("exec", None, _code([s], None, "exec")))
            elif isinstance(s, ast.FunctionDef) and len(s.decorator_list) == 1 and \
                    isinstance(s.decorator_list[0], ast.Name):
                kind = s.decorator_list[0].id
                params = [a.arg for a in s.args.args]
                fn = ast.FunctionDef(name=s.name, args=s.args, body=s.body, decorator_list=[], returns=None,
                                     type_comment=None)
                code = _code([ast.copy_location(fn, s)], None, "exec")
                generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(s))
                if kind == "iterator":
                    self.steps.append(("closure" if generator else "deferred", s.name, (code, params)))
                elif kind in ("hard", "soft", "correct"):
                    self.steps.append(("reject_def", s.name, (code, params)))
                else:
                    raise Unsupported("decorator @%s" % kind)
            else:
                raise Unsupported("statement %s" % type(s).__name__)
        self.iters = []


def _values_of(v):
    """An iterator's values: an iterable's elements, else the value alone."""
    if isinstance(v, range):
        if len(v) > 10**6:
            raise Unsupported("a range of %d values" % len(v))
        return list(v)
    if isinstance(v, list):
        if v and all(isinstance(x, list) for x in v):
            return None  # a table: a value, not an iterator
        return v
    return [v]


def enumerate_points(space, limit):
    env = {"__builtins__": builtins, "__rules": _Rules}
    points = []
    iters = []
    budget = [limit]
    DOMAIN = (ArithmeticError, TypeError, ValueError, IndexError, DomainError, RecursionError)

    def call(code, params, name):
        exec(code, env)
        fn = env[name]
        return fn(*[env[p] for p in params])

    def walk(i):
        if i == len(space.steps):
            points.append({name: env[name] for name in iters})
            return
        kind, name, code = space.steps[i]
        try:
            if kind == "exec":
                exec(code, env)
                return walk(i + 1)
            if kind in ("reject", "keep"):
                t = bool(eval(code, env))
                if t == (kind == "reject"):
                    return None
                return walk(i + 1)
            if kind == "reject_def":
                if bool(call(code[0], code[1], name)):
                    return None
                return walk(i + 1)
            if kind == "closure":
                values = list(call(code[0], code[1], name))
            elif kind == "deferred":
                values = _values_of(call(code[0], code[1], name))
                if values is None:
                    raise Unsupported("a deferred iterator returning a table")
            else:
                v = eval(code, env)
                values = _values_of(v) if _is_seq(v) else None
                if values is None:
                    env[name] = v
                    return walk(i + 1)
        except DOMAIN:
            return None
        except (NameError, KeyError) as e:
            raise Unsupported("a name used above its definition (%s)" % e)
        # an iterator: a loop
        if name not in iters:
            iters.append(name)
        for v in values:
            budget[0] -= 1
            if budget[0] < 0:
                raise TooLarge()
            env[name] = v
            walk(i + 1)
        return None

    walk(0)
    return iters, points


def canonical(point):
    """One line per point, the same for a Python value and its JSON listing."""
    items = []
    for name in sorted(point):
        v = point[name]
        if isinstance(v, float) and not math.isfinite(v):
            v = None  # JSON has no inf or nan: spacec lists them as null
        items.append([name, type(v).__name__, repr(v)])
    return json.dumps(items)


def main():
    args = sys.argv[1:]
    limit = 200000
    if args and args[0].startswith("--limit="):
        limit = int(args.pop(0)[8:])
    path, listings = args[0], args[1:]
    try:
        with open(path, encoding="utf-8-sig") as f:
            space = Space(f.read())
        iters, points = enumerate_points(space, limit)
    except Unsupported as e:
        print("py_oracle: skipped: %s" % e)
        sys.exit(3)
    except TooLarge:
        print("py_oracle: skipped: more than %d candidates" % limit)
        sys.exit(3)
    want = sorted(canonical(p) for p in points)
    if not listings:
        print("\n".join(want))
        return
    failed = False
    for listing in listings:
        with open(listing, encoding="utf-8") as f:
            got = sorted(canonical(json.loads(line)) for line in f.read().split("\n") if line)
        if got != want:
            failed = True
            ws, gs = set(want), set(got)
            print("py_oracle: %s: %d points, Python finds %d" % (listing, len(got), len(want)))
            for line in [x for x in want if x not in gs][:3]:
                print("  only Python: %s" % line)
            for line in [x for x in got if x not in ws][:3]:
                print("  only spacec: %s" % line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
