#!/usr/bin/env python3
"""Strings with quotes, backslashes, newlines, carriage returns, commas, BOMs
and line separators come out of `spacec list` as CSV and JSON lines that
Python's csv and json modules read back exactly, whether they come from a
.space literal, --set or a device profile, in the interpreter and with tcc and
cc.  The oracle is Python: ast.literal_eval of the same literals, and the
values given on the command line.  Text that is not UTF-8 (which JSON cannot
carry) is refused: --set with exit 2, a device profile with a located error.
"""
import ast
import csv
import io
import itertools
import json
import os
import subprocess
import sys
import tempfile

SPACEC = os.environ.get("SPACEC", "./spacec")
HOSTILE = ['a,b', 'q"q', "s'q", 'back\\slash', 'new\nline', 'cr\rlf', 'crlf\r\n', 'tab\t',
           '\ufeffbom', '\ufeff', 'é ü 中 😀', '"', '', ' lead', 'x\\"y', '\u2028ls\u2029',
           '=1+2', '\x1f\x7f', '}{"k": 1}', '\\n', 'line\n"quoted",\n']

failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def literal(s):
    """A .space (Python) string literal for s, with escapes for what a
    source line cannot hold."""
    out = []
    for ch in s:
        if ch in '\\"':
            out.append('\\' + ch)
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\r':
            out.append('\\r')
        elif ch == '\t':
            out.append('\\t')
        elif ord(ch) < 0x20 or ch == '\x7f':
            out.append('\\x%02x' % ord(ch))
        else:
            out.append(ch)
    return '"' + ''.join(out) + '"'


def spacec(args):
    return subprocess.run([SPACEC] + args, capture_output=True)


def rows_from(out, fmt):
    text = out.decode("utf-8")
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text, newline="")))
        return rows[0], [tuple(r) for r in rows[1:]]
    recs = [json.loads(line) for line in text.split("\n") if line]  # not splitlines: U+2028
    names = list(recs[0]) if recs else []
    return names, [tuple(r[n] for n in names) for r in recs]


def check_listing(what, path, extra, names, want):
    """`want` is the list of expected rows (tuples of Python values)."""
    for mode in ["--interpret", "--jit=tcc", "--jit=cc"]:
        for fmt in ["csv", "jsonl"]:
            p = spacec(["list", mode, "--format", fmt] + extra + [path])
            if p.returncode != 0:
                expect(False, f"{what} {mode} {fmt}: exit {p.returncode}: {p.stderr.decode()[:300]}")
                continue
            try:
                got_names, got = rows_from(p.stdout, fmt)
            except (ValueError, UnicodeDecodeError) as e:
                expect(False, f"{what} {mode} {fmt}: unreadable: {e}")
                continue
            if fmt == "csv":  # CSV has text only
                want_rows = [tuple(v if isinstance(v, str) else str(v) for v in r) for r in want]
            else:
                want_rows = want
            expect(got_names == names and sorted(got) == sorted(want_rows),
                   f"{what} {mode} {fmt}: {len(got)} rows read back as written")


def main():
    tmp = tempfile.mkdtemp()
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")

    # .space literals
    lits = [literal(s) for s in HOSTILE]
    values = [ast.literal_eval(l) for l in lits]
    assert values == HOSTILE
    path = os.path.join(tmp, "lit.space")
    with open(path, "w", encoding="utf-8") as f:
        f.write("s = [" + ", ".join(lits) + "]\nk = range(0, 2)\n")
    check_listing("literals", path, [], ["s", "k"], list(itertools.product(values, [0, 1])))

    # --set and a device profile
    path = os.path.join(tmp, "bound.space")
    with open(path, "w", encoding="utf-8") as f:
        f.write('setting mode = "x"\ndevice name = "y"\nm = [mode, "z"]\nd = [name, "w"]\n')
    for v in HOSTILE:
        if "\r" in v or v == "":
            continue  # --set keeps text as given; the profile covers these
        prof = os.path.join(tmp, "p.json")
        with open(prof, "w", encoding="utf-8") as f:
            json.dump({"name": v[::-1]}, f, ensure_ascii=False)
        check_listing(f"--set/profile {v!r}", path, ["--set", f'mode="{v}"', "--device-profile", prof],
                      ["m", "d"], list(itertools.product([v, "z"], [v[::-1], "w"])))

    # text that is not UTF-8
    for mode in ["--interpret", "--jit=tcc"]:
        p = spacec(["list", mode, "--format", "jsonl", "--set", b'mode="a\xffb"', path])
        expect(p.returncode == 2 and b"not valid UTF-8" in p.stderr and not p.stdout,
               f"{mode}: --set with a byte that is not UTF-8 is refused (exit {p.returncode})")
        prof = os.path.join(tmp, "bad.json")
        with open(prof, "wb") as f:
            f.write(b'{"name": "a\xffb"}')
        p = spacec(["list", mode, "--device-profile", prof, path])
        expect(p.returncode == 1 and b"bad.json:1:10: error: invalid UTF-8" in p.stderr and not p.stdout,
               f"{mode}: a profile string that is not UTF-8 is a located error (exit {p.returncode})")
    print(f"strings: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
