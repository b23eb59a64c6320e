#!/usr/bin/env python3
"""Literals as Python reads them: spacec against Python's own parser.

literals.py SPACEC [SEED]

Random float literals (up to 400 digits, '_' separators, exponents) and
string literals (every escape Python knows, unknown escapes, non-ASCII
text) are listed by spacec as the values of an iterator, in every mode
(the interpreter, libtcc, cc), and each value must be the one
ast.literal_eval gives for the same text: the same float bit for bit, the
same string.  Escapes Python rejects must be located errors; unknown ones
a warning, as Python 3.11 warns.  A UTF-8 byte order mark opens a file as
Python allows.  (Issue 13: long floats were truncated, \\f \\v \\a \\b,
octal and \\u escapes kept literally, and a BOM rejected.)
"""
import ast
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import unicodedata
import warnings

# --ordered: the values in the list's order (threads list in blocks)
MODES = [["--interpret"], ["--jit=tcc", "--ordered"], ["--jit=cc", "--ordered"], ["--jit=tcc", "-O0", "--ordered"]]


def float_literal(r):
    """A float literal in Python's syntax, often longer than 127 characters."""
    def digits(n):
        d = "".join(r.choice("0123456789") for _ in range(n))
        if r.random() < 0.2 and n > 2:  # separators between digits
            i = r.randrange(1, n)
            d = d[:i] + "_" + d[i:]
        return d
    k = r.randrange(6)
    if k == 0:  # the shapes: 1 and hundreds of zeros, 0.000...01
        return r.choice(["1" + "0" * r.randint(120, 300) + ".0", "0." + "0" * r.randint(120, 300) + "1"])
    n = r.choice([1, 3, 17, 30, 126, 127, 128, 129, 200, 400])
    whole = digits(r.randint(1, n))
    frac = digits(r.randint(1, n)) if r.random() < 0.8 else ""
    lit = whole + "." + frac if k != 1 else "." + (frac or "5")
    if r.random() < 0.4:
        lit += r.choice("eE") + r.choice(["", "+", "-"]) + str(r.randint(0, 300))
    return lit


def string_literal(r):
    """A quoted literal whose value contains no NUL (spacec rejects those)."""
    parts = []
    for _ in range(r.randint(1, 8)):
        k = r.randrange(12)
        if k == 0:
            parts.append(r.choice(["\\n", "\\t", "\\r", "\\a", "\\b", "\\f", "\\v", "\\\\", "\\'", '\\"']))
        elif k == 1:
            parts.append("\\" + "%o" % r.randint(1, 0o377))
        elif k == 2:
            parts.append("\\x%02x" % r.randint(1, 255))
        elif k == 3:
            cp = r.choice([r.randint(1, 0xD7FF), r.randint(0xE000, 0xFFFF), 0x2028, 0x2029])
            parts.append("\\u%04x" % cp if r.random() < 0.5 else "\\u%04X" % cp)
        elif k == 4:
            parts.append("\\U%08x" % r.choice([r.randint(0x10000, 0x10FFFF), 0x1F600, 0x41]))
        elif k == 5:
            parts.append(r.choice(["é", "日本", "\u2028", "😀", "ǿ"]))
        elif k == 6:
            parts.append("\\" + r.choice("dqz%&( 9"))  # unknown: kept, with a warning
        elif k == 7:
            # \N{...}, for the names of a few characters
            ch = r.choice(["é", "—", "A", "ß", "€", "\u2028"])
            name = unicodedata.name(ch)
            parts.append("\\N{%s}" % (name.lower() if r.random() < 0.3 else name))
        else:
            parts.append("".join(r.choice("abc XYZ019-,") for _ in range(r.randint(1, 5))))
    quote = r.choice(['"', "'"])
    body = "".join(parts)
    return quote + body + quote


def spacec_values(spacec, text, mode, tmp):
    path = os.path.join(tmp, "lit.space")
    with open(path, "wb") as f:
        f.write(text.encode("utf-8") if isinstance(text, str) else text)
    p = subprocess.run([spacec, "list", "--format", "jsonl", *mode, path], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        return None, p.stderr
    return [json.loads(line)["x"] for line in p.stdout.split("\n") if line], p.stderr


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    return type(a) is type(b) and a == b


def python_value(lit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(lit)


def main():
    spacec = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    r = random.Random(seed)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL " + what)

    floats = [float_literal(r) for _ in range(60)]
    floats = [f for f in floats if math.isfinite(python_value(f))]
    strings = [string_literal(r) for _ in range(60)]
    for kind, lits in (("float", floats), ("string", strings)):
        text = "x = [%s]\n" % ",\n     ".join(lits)
        want = [python_value(lit) for lit in lits]
        with tempfile.TemporaryDirectory() as tmp:
            for mode in MODES:
                got, err = spacec_values(spacec, text, mode, tmp)
                if got is None:
                    check(False, "%s literals %s: spacec failed: %s" % (kind, " ".join(mode), err[:400]))
                    continue
                bad = [(lit, w, g) for lit, w, g in zip(lits, want, got) if not same(w, g)]
                check(len(got) == len(want) and not bad,
                      "%s literals %s: %d of %d differ from Python, e.g. %r: Python %r, spacec %r"
                      % (kind, " ".join(mode), len(bad), len(lits), *(bad[0] if bad else ("", "", ""))))

    # unknown escapes are kept and warned about, as in Python 3.11
    with tempfile.TemporaryDirectory() as tmp:
        got, err = spacec_values(spacec, 'x = ["a\\d", "\\777"]\n', ["--interpret"], tmp)
        check(got == ["a\\d", "\u01ff"] and "invalid escape sequence '\\d'" in err and
              "invalid octal escape sequence '\\777'" in err,
              "unknown escapes: got %r, stderr %r" % (got, err[:300]))
        got, err = spacec_values(spacec, 'x = ["a\\d"]\n', ["--interpret", "-Wno-invalid-escape"], tmp)
        check(got == ["a\\d"] and not err, "-Wno-invalid-escape: got %r, stderr %r" % (got, err[:300]))
        # what Python rejects is a located error
        for lit in ['"\\x4"', '"\\u12"', '"\\U00110000"', '"\\N{NO SUCH NAME}"', '"\\N"', '"\\ud800"']:
            try:
                python_value(lit)
                python_ok = True
            except SyntaxError:
                python_ok = False
            got, err = spacec_values(spacec, "x = [%s]\n" % lit, ["--interpret"], tmp)
            if lit == '"\\ud800"':
                # Python keeps a lone surrogate; UTF-8 text cannot hold one
                check(got is None and "lit.space:1:" in err, "%s: %r" % (lit, err[:300]))
                continue
            check(not python_ok and got is None and "lit.space:1:" in err and "error:" in err,
                  "%s is an error in Python, spacec said %r %r" % (lit, got, err[:300]))
        # a UTF-8 byte order mark opens the file; columns start after it
        bom = b"\xef\xbb\xbf"
        got, err = spacec_values(spacec, bom + b'x = ["a", 1.5]\n', ["--interpret"], tmp)
        check(got == ["a", 1.5] and not err, "BOM: %r %r" % (got, err))
        got, err = spacec_values(spacec, bom + b"x = $\n", ["--interpret"], tmp)
        try:
            compile(bom + b"x = $\n", "f", "exec")
            col = None
        except SyntaxError as e:
            col = e.offset
        check(got is None and "lit.space:1:%d:" % col in err, "BOM error column (Python: %s): %r" % (col, err))

    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
