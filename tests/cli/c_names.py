#!/usr/bin/env python3
"""Names that mean something to C (keywords, macros such as NULL, EOF, errno
or unix, libc functions, the generated code's own identifiers) work as .space
names with cc, with tcc and in the interpreter, or get a located error; never
a C compile error.  The macro list is taken from the C compilers themselves
(cc -dM, and tcc -dM where tcc is installed) on the runtime header, so it
follows the system.  Counts and listings are compared with the interpreter's.
"""
import keyword
import os
import re
import shutil
import subprocess
import sys
import tempfile

SPACEC = os.environ.get("SPACEC", "./spacec")
TOP = os.environ.get("top_srcdir", ".")
RUNTIME = os.path.join(TOP, "runtime")

C_KEYWORDS = """auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while bool true false asm typeof alignas alignof constexpr nullptr
static_assert thread_local typeof_unqual _Bool _Complex _Imaginary _Alignas _Alignof _Atomic
_Generic _Noreturn _Static_assert _Thread_local""".split()
LIBC_AND_GENERATED = """errno NULL stdout stderr stdin assert main unix linux i386 EOF BUFSIZ FILE
size_t int64_t uint64_t ptrdiff_t wchar_t INT64_MAX INT_MAX offsetof va_list abs labs printf
fprintf malloc calloc realloc free exit abort memcpy memset memcmp strlen strcmp strdup sqrt pow
floor ceil fmod fabs isfinite isnan INFINITY NAN HUGE_VAL signal raise time clock environ st ctx
sp space v val out in p q x y z n k i j e err rc ok tmp buf len s t steps limit run emit init
state sprt_val sprt_ctx sprt_space spacec_space SPRT_INT SPRT_OK SPRT_EVALUE SPRT_ABI_VERSION
TRY STEP OWNED STEP_LIMIT SPRT_TRY SPRT_STEP sprt_is_true sprt_loop_at sprt_loop_len sprt_opt_next
sprt_opt_it sprt_ivl_hull ivl_tail_1 line_1 near_0 memo_0 cse_ok_1 column_bounds __func__ __LINE__ __FILE__
I _X __x""".split()


def compiler_macros():
    names = set()
    probes = [["cc", "-std=c11"], ["cc", "-std=gnu11"]]
    if shutil.which("tcc"):
        probes.append(["tcc"])
    for argv in probes:
        out = subprocess.run(argv + ["-E", "-dM", "-I" + RUNTIME, "-"], input="#include <spacert.h>\n",
                             capture_output=True, text=True).stdout
        names.update(re.findall(r"^#define ([A-Za-z_][A-Za-z0-9_]*)", out, re.M))
    # The hundreds of compiler-internal __NAMES__ share one rule: keep a sample.
    internal = sorted(n for n in names if n.startswith("__"))
    return {n for n in names if not n.startswith("__")} | set(internal[::40])


def run(args):
    p = subprocess.run([SPACEC] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def main():
    names = sorted({n for n in C_KEYWORDS + LIBC_AND_GENERATED + sorted(compiler_macros())
                    if n.isidentifier() and not keyword.iskeyword(n)})
    tmp = tempfile.mkdtemp()
    env_cache = os.path.join(tmp, "cache")
    os.environ["XDG_CACHE_HOME"] = env_cache
    usable = []
    for n in names:
        path = os.path.join(tmp, "one.space")
        with open(path, "w") as f:
            f.write(f"{n} = range(0, 3)\n")
        rc, _, err = run(["check", path])
        if rc == 0:
            usable.append(n)
        else:
            # a name the language refuses: a located error, exit 1
            expect(rc == 1 and re.search(r"one\.space:1:\d+: error: ", err) is not None,
                   f"'{n}' is refused with a located error")
    print(f"{len(usable)} of {len(names)} names are .space names")

    # Each chunk: names as iterators, derived values, a device parameter,
    # a setting, a soft constraint's name, and def parameters and locals.
    chunk = 24
    files = []
    for c in range(0, len(usable), chunk):
        part = usable[c:c + chunk]
        lines = []
        it, dv = part[:3], part[3:]
        for k, n in enumerate(it):
            lines.append(f"{n} = [0, 1, {k + 2}]")
        terms = " + ".join(it)
        for k, n in enumerate(dv[:-2]):
            lines.append(f"{n} = {terms} * {k + 1} + {k}")
        if len(dv) >= 2:
            lines.append(f"device {dv[-2]} = 7")
            lines.append(f"setting {dv[-1]} = 2")
            lines.append(f"soft s_{c} = ({terms}) % {dv[-2]} == {dv[-1]}")
        derived = dv[:-2] if len(dv) >= 2 else dv
        lines.append("@hard")
        lines.append(f"def h_{c}({', '.join(it)}):")
        for k, n in enumerate(derived):
            lines.append(f"    {n} = {it[k % len(it)]} * 3 + {k}")  # locals hiding the definitions
        for n in it:
            lines.append(f"    {n} = {n} + 1")  # a parameter reassigned: a C local
        lines.append(f"    return ({' + '.join(it + derived)}) % 5 == 0")
        if derived:
            lines.append(f"require ({' + '.join(derived)}) % 4 != 1")
        path = os.path.join(tmp, f"chunk{c}.space")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        files.append((path, part))

    for path, part in files:
        rc, want, err = run(["count", "--interpret", path])
        if rc != 0:
            expect(False, f"{part}: the interpreter fails: {err.strip()[:300]}")
            continue
        _, want_list, _ = run(["list", "--interpret", path])
        for mode in ["--jit=tcc", "--jit=cc"]:
            rc, got, err = run(["count", mode, path])
            expect(rc == 0 and got == want,
                   f"{' '.join(part)} {mode}: {got.strip() or err.strip()[:400]} (interpreter {want.strip()})")
            rc, got_list, err = run(["list", mode, path])
            head_ok = got_list.split("\n", 1)[0] == want_list.split("\n", 1)[0]
            rows_ok = sorted(got_list.splitlines()[1:]) == sorted(want_list.splitlines()[1:])
            expect(rc == 0 and head_ok and rows_ok, f"{' '.join(part)} {mode}: the listing matches")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"c_names: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
