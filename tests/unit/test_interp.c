/*
 * test_interp.c - the reference interpreter against independent oracles.
 *
 * Two kinds of oracle, neither sharing code with lang/interp.c:
 *   - tables of Python 3 results, each checked by hand or with CPython
 *     (the expected text is Python's repr; "ERR" where Python raises or
 *     where the language rejects the point instead: 64-bit overflow,
 *     complex results, lists longer than VLIST_MAX_LEN);
 *   - small spaces written a second time as plain nested C loops, whose
 *     points, counts and per-definition statistics must match exactly.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "interp.h"
#include "value.h"

/* ---- harness ------------------------------------------------------------- */

/* One run of a space: its points as text, one line each, values in
 * definition order separated by spaces, each as Python's repr. */
struct run {
	struct fe fe;
	struct interp_result res;
	int rc;
	char *out;
	size_t outlen;
	FILE *mem;
	int npoints;
	int stop_after; /* the callback asks to stop after this many (0: never) */
};

static int collect(void *ctx, const struct value *it, int n)
{
	struct run *r = ctx;
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(' ', r->mem);
		value_print(r->mem, it[i], false);
	}
	fputc('\n', r->mem);
	r->npoints++;
	return r->stop_after && r->npoints >= r->stop_after;
}

static void run_space(struct run *r, const char *src, const struct interp_options *opt,
		      int stop_after)
{
	memset(r, 0, sizeof(*r));
	r->stop_after = stop_after;
	int errs = fe_check(&r->fe, src);
	cr_assert_eq(errs, 0, "front end errors:\n%s\nin:\n%s", fe_diag(&r->fe), src);
	r->mem = open_memstream(&r->out, &r->outlen);
	cr_assert(r->mem);
	r->rc = interp_run(&r->fe.prog, opt, collect, r, &r->res, &r->fe.diag);
	fclose(r->mem);
	r->mem = NULL;
}

static void run_release(struct run *r)
{
	free(r->out);
	interp_result_release(&r->res);
	fe_release(&r->fe);
}

static const struct interp_def_stats *stat_of(struct run *r, const char *cname)
{
	struct sema_def *d = fe_cdef(&r->fe, cname);
	cr_assert(d, "no definition '%s'", cname);
	cr_assert(r->res.stats);
	return &r->res.stats[d->id];
}

/* A growing string for the brute-force side. */
struct sbuf {
	char *s;
	size_t len;
	FILE *f;
};

static void sb_init(struct sbuf *b)
{
	b->s = NULL;
	b->len = 0;
	b->f = open_memstream(&b->s, &b->len);
	cr_assert(b->f);
}

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(b->f, fmt, ap);
	va_end(ap);
}

static const char *sb_str(struct sbuf *b)
{
	fflush(b->f);
	return b->s ? b->s : "";
}

static void sb_release(struct sbuf *b)
{
	fclose(b->f);
	free(b->s);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of s, sorted, joined again: a canonical form for a set of
 * points, since the order of the loops is sema's choice, not ours. */
static char *sorted_lines(const char *s)
{
	size_t n = 0, len = strlen(s);
	for (const char *p = s; *p; p++)
		n += *p == '\n';
	char *copy = strdup(s), **lines = calloc(n + 1, sizeof(*lines));
	size_t k = 0;
	for (char *p = copy, *nl; k < n && (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = 0;
		lines[k++] = p;
	}
	qsort(lines, k, sizeof(*lines), cmp_line);
	char *out = malloc(len + 1), *o = out;
	for (size_t i = 0; i < k; i++)
		o += sprintf(o, "%s\n", lines[i]);
	*o = 0;
	free(lines);
	free(copy);
	return out;
}

/* The same set of points (each once: no space here repeats a point). */
static void assert_points(struct run *r, struct sbuf *want)
{
	char *got = sorted_lines(r->out ? r->out : "");
	char *w = sorted_lines(sb_str(want));
	if (strcmp(got, w)) {
		size_t i = 0;
		while (got[i] && got[i] == w[i])
			i++;
		while (i && got[i - 1] != '\n')
			i--;
		cr_assert_fail("points differ:\n got: %.60s\nwant: %.60s", got + i, w + i);
	}
	free(got);
	free(w);
}

/* Position of an iterator in sema's loop order. */
static int loop_pos(struct run *r, const char *name)
{
	struct sema_def *d = fe_def(&r->fe, name);
	cr_assert(d && d->kind == SEMA_ITER, "no iterator '%s'", name);
	return d->loop_pos;
}

/* ---- expressions: Python's answers ----------------------------------------- */

/* Inline strings: Criterion copies parameters into each test's process. */
struct expr_case {
	char pre[192]; /* statements run first (locals hide static types) */
	char expr[80];
	char want[48]; /* Python's repr, or "ERR" for a domain error */
};

static struct expr_case expr_cases[] = {
	{ "", "-7 // 2", "-4" },
	{ "", "-7 % 2", "1" },
	{ "", "7 % -2", "-1" },
	{ "", "7 // -2", "-4" },
	{ "", "-7 % -2", "-1" },
	{ "", "-7 // -2", "3" },
	{ "", "7 / 2", "3.5" },
	{ "", "6 / 3", "2.0" },
	{ "", "-1 / 2", "-0.5" },
	{ "", "2 ** -1", "0.5" },
	{ "", "(-2) ** -1", "-0.5" },
	{ "", "2 ** 10", "1024" },
	{ "", "(-3) ** 3", "-27" },
	{ "", "0 ** 0", "1" },
	{ "", "2 ** 62", "4611686018427387904" },
	{ "", "(-2) ** 63", "-9223372036854775808" },
	{ "", "1 ** 100000", "1" },
	{ "", "(-1) ** 100001", "-1" },
	{ "", "(-9223372036854775807 - 1) % -1", "0" },
	{ "", "(-9223372036854775807 - 1) // 1", "-9223372036854775808" },
	{ "", "7.5 // 2", "3.0" },
	{ "", "-7.5 // 2", "-4.0" },
	{ "", "-7.5 % 2", "0.5" },
	{ "", "7.5 % -2", "-0.5" },
	{ "", "5 % 2.5", "0.0" },
	{ "", "-0.0 % 2", "0.0" },
	{ "", "2.0 ** 0.5", "1.4142135623730951" },
	{ "", "(-2.0) ** 2", "4.0" },
	{ "", "(-2.0) ** 3", "-8.0" },
	{ "", "10.0 ** -400", "0.0" },
	{ "", "1e308 * 10", "inf" },
	{ "", "2 ** 0.5", "1.4142135623730951" },
	{ "", "4 ** -0.5", "0.5" },
	{ "", "0.0 ** 0", "1.0" },
	{ "", "True + 1", "2" },
	{ "", "True + True", "2" },
	{ "", "True & True", "True" },
	{ "", "True | 0", "1" },
	{ "", "True ^ True", "False" },
	{ "", "~True", "-2" },
	{ "", "-True", "-1" },
	{ "", "+True", "1" },
	{ "", "~5", "-6" },
	{ "", "-2.5", "-2.5" },
	{ "", "+2.5", "2.5" },
	{ "", "1 << 62", "4611686018427387904" },
	{ "", "-1 << 63", "-9223372036854775808" },
	{ "", "0 << 100", "0" },
	{ "", "-8 >> 1", "-4" },
	{ "", "-1 >> 100", "-1" },
	{ "", "5 >> 64", "0" },
	{ "", "7 ^ 2", "5" },
	{ "", "6 & 3", "2" },
	{ "", "6 | 3", "7" },
	{ "", "3 << 2", "12" },
	{ "", "9007199254740993 / 1", "9007199254740992.0" },
	{ "", "9223372036854775807 / 3", "3.0744573456182584e+18" },
	{ "", "1 / 3", "0.3333333333333333" },
	{ "", "-9223372036854775807 / 7", "-1.3176245766935393e+18" },
	{ "", "9007199254740993 / 9007199254740992", "1.0" },
	{ "", "4611686018427387903 / -4611686018427387904", "-1.0" },
	{ "", "9007199254740993 > 9007199254740992.0", "True" },
	{ "", "9007199254740993 == 9007199254740992.0", "False" },
	{ "", "9007199254740992 == 9007199254740992.0", "True" },
	{ "", "1 == 1.0", "True" },
	{ "", "1 < 1.5 < 2", "True" },
	{ "", "3 > 2 > 2", "False" },
	{ "", "1 < 0 < 1 // 0", "False" },
	{ "", "1 <= 1 < 2 != 3", "True" },
	{ "", "0 and 1 // 0", "0" },
	{ "", "1 or 1 // 0", "1" },
	{ "", "0 or 0.0 or 5", "5" },
	{ "", "1 and 2 and 3", "3" },
	{ "", "[] or [1]", "[1]" },
	{ "", "'' or 'x'", "'x'" },
	{ "", "0 or ''", "''" },
	{ "", "2 in [1, 2]", "True" },
	{ "", "2.0 in range(5)", "True" },
	{ "", "2.5 in range(5)", "False" },
	{ "", "3 not in range(0, 10, 3)", "False" },
	{ "", "4 in range(10, 0, -2)", "True" },
	{ "", "5 in range(10, 0, -2)", "False" },
	{ "", "'b' in ['a', 'b']", "True" },
	{ "t = 'abc'", "'b' in t", "True" },
	{ "t = 'abc'", "'x' not in t", "True" },
	{ "", "True in [1]", "True" },
	{ "", "[1] in [[1], 2]", "True" },
	{ "", "'1' in [1]", "False" },
	{ "", "'abc' < 'abd'", "True" },
	{ "", "'a' == 'a'", "True" },
	{ "", "'a' == 1", "False" },
	{ "", "None == None", "True" },
	{ "", "None != 0", "True" },
	{ "", "'b' >= 'abc'", "True" },
	{ "a = [1, 2]", "a < [1, 3]", "True" },
	{ "", "[1, 2] == [1, 2]", "True" },
	{ "a = [1]", "a < [1, 0]", "True" },
	{ "", "[1, 2] == [1.0, 2]", "True" },
	{ "", "range(0, 3) == range(0, 3, 1)", "True" },
	{ "", "range(0) == range(5, 2)", "True" },
	{ "", "[0, 1] == range(2)", "False" },
	{ "", "float('nan') == float('nan')", "False" },
	{ "", "float('nan') != float('nan')", "True" },
	{ "", "float('nan') < 1", "False" },
	{ "", "float('inf') > 9223372036854775807", "True" },
	{ "", "-float('inf') < -9223372036854775807 - 1", "True" },
	{ "", "1 if 0 else 2", "2" },
	{ "", "1 // 0 if 0 else 2", "2" },
	{ "", "'y' if [0] else 'n'", "'y'" },
	{ "", "[1, 2, 3][-1]", "3" },
	{ "", "range(10, 0, -3)[1]", "7" },
	{ "", "range(10)[-1]", "9" },
	{ "", "[1, 2][True]", "2" },
	{ "", "[[1, 2], [3]][1][0]", "3" },
	{ "", "range(-9223372036854775807 - 1, 9223372036854775807)[-1]", "9223372036854775806" },
	{ "", "range(3)", "range(0, 3)" },
	{ "", "range(2, 9, 3)", "range(2, 9, 3)" },
	{ "", "list(range(3))", "[0, 1, 2]" },
	{ "", "list(range(10, 0, -4))", "[10, 6, 2]" },
	{ "", "range(True, 3)", "range(1, 3)" },
	{ "", "list(range(5, 1))", "[]" },
	{ "", "list()", "[]" },
	{ "", "min(3, 1, 2)", "1" },
	{ "", "max([4, 9, 2])", "9" },
	{ "", "max(range(0, 10, 3))", "9" },
	{ "", "min(range(10, 0, -3))", "1" },
	{ "", "max(range(10, 0, -3))", "10" },
	{ "", "max(1, 2.0)", "2.0" },
	{ "", "max(2, 2.0)", "2" },
	{ "", "min(2.0, 2)", "2.0" },
	{ "", "min('b', 'a')", "'a'" },
	{ "", "max([1, 5], [2])", "[2]" },
	{ "", "abs(-3)", "3" },
	{ "", "abs(-2.5)", "2.5" },
	{ "", "abs(True)", "1" },
	{ "", "abs(-0.0)", "0.0" },
	{ "", "int(3.9)", "3" },
	{ "", "int(-3.9)", "-3" },
	{ "", "int('12')", "12" },
	{ "", "int(' -1_000 ')", "-1000" },
	{ "", "int(True)", "1" },
	{ "", "int(-9.2e18)", "-9200000000000000000" },
	{ "", "int()", "0" },
	{ "", "float(3)", "3.0" },
	{ "", "float('1.5')", "1.5" },
	{ "", "float(' inf ')", "inf" },
	{ "", "float('-1e3')", "-1000.0" },
	{ "", "float(True)", "1.0" },
	{ "", "bool(0)", "False" },
	{ "", "bool([0])", "True" },
	{ "", "bool('')", "False" },
	{ "", "bool(0.0)", "False" },
	{ "", "bool(None)", "False" },
	{ "", "bool(range(0))", "False" },
	{ "", "bool(float('nan'))", "True" },
	{ "", "bool()", "False" },
	{ "", "len([1, 2])", "2" },
	{ "", "len(range(0, 10, 3))", "4" },
	{ "", "len('abc')", "3" },
	{ "", "len(range(10, 0))", "0" },
	{ "", "len([])", "0" },
	{ "", "len(range(-9223372036854775807 - 1, 0))", "ERR" },
	{ "", "sum([1, 2, 3])", "6" },
	{ "", "sum(range(101))", "5050" },
	{ "", "sum([])", "0" },
	{ "", "sum([9223372036854775807, 1, -1])", "9223372036854775807" },
	{ "", "sum([1, 2.5])", "3.5" },
	{ "", "sum([True, True])", "2" },
	{ "", "[1, 2] + [3]", "[1, 2, 3]" },
	{ "", "[0] * 3", "[0, 0, 0]" },
	{ "", "2 * [1, 2]", "[1, 2, 1, 2]" },
	{ "", "[1] * -1", "[]" },
	{ "", "[[1]] * 2", "[[1], [1]]" },
	{ "", "[1] * True", "[1]" },
	{ "", "[3, 1, 2, 3] | [5, 1]", "[1, 2, 3, 5]" },
	{ "", "[1, 2, 3] & range(2, 10)", "[2, 3]" },
	{ "", "range(10) - range(0, 10, 2)", "[1, 3, 5, 7, 9]" },
	{ "", "range(10, 0, -3) | [0]", "[0, 1, 4, 7, 10]" },
	{ "", "[1.0, 1] | [True]", "[1.0]" },
	{ "", "['b', 'a'] | ['c']", "['a', 'b', 'c']" },
	{ "", "range(0, 1000000000000) & [5, -1]", "[5]" },
	{ "", "[5, 3, 5] - range(4, 6)", "[3]" },
	{ "", "range(5) & range(3, 8)", "[3, 4]" },
	{ "", "[] | []", "[]" },
	{ "", "[2, 1] - []", "[1, 2]" },
	{ "", "1 | 2", "3" },
	{ "", "5 - 3", "2" },
	{ "", "not []", "True" },
	{ "", "not 3", "False" },
	{ "", "(1, 2)", "[1, 2]" },
	{ "", "[]", "[]" },
	{ "", "None", "None" },
	{ "", "'it''s'", "'its'" },
	{ "", "1.0", "1.0" },
	{ "", "1e16", "1e+16" },
	{ "", "1e15", "1000000000000000.0" },
	{ "", "0.0001", "0.0001" },
	{ "", "1e-05", "1e-05" },
	{ "", "-0.0", "-0.0" },
	{ "", "123456789.123", "123456789.123" },
	/* Domain errors: Python raises, or the result leaves 64 bits. */
	{ "", "0 ** -1", "ERR" },
	{ "", "0 ** -1.5", "ERR" },
	{ "", "0.0 ** -1", "ERR" },
	{ "", "2 ** 63", "ERR" },
	{ "", "(-2) ** 64", "ERR" },
	{ "", "3 ** 40", "ERR" },
	{ "", "2 ** 62 * 4", "ERR" },
	{ "", "4611686018427387904 * 2", "ERR" },
	{ "", "9223372036854775807 + 1", "ERR" },
	{ "", "-9223372036854775807 - 2", "ERR" },
	{ "", "-(-9223372036854775807 - 1)", "ERR" },
	{ "", "abs(-9223372036854775807 - 1)", "ERR" },
	{ "", "(-9223372036854775807 - 1) // -1", "ERR" },
	{ "", "1 // 0", "ERR" },
	{ "", "1 % 0", "ERR" },
	{ "", "1 / 0", "ERR" },
	{ "", "0 / 0", "ERR" },
	{ "", "1.0 / 0", "ERR" },
	{ "", "1.0 // 0.0", "ERR" },
	{ "", "1.5 % 0", "ERR" },
	{ "", "(-8.0) ** (1 / 3)", "ERR" },
	{ "", "1.5 ** 5000", "ERR" },
	{ "", "1 << 63", "ERR" },
	{ "", "1 << 64", "ERR" },
	{ "", "1 << -1", "ERR" },
	{ "", "1 >> -1", "ERR" },
	{ "", "max([])", "ERR" },
	{ "", "min(range(0))", "ERR" },
	{ "", "max(1, 'a')", "ERR" },
	{ "", "range(0, 10, 1 - 1)", "ERR" }, /* a literal 0 is a compile-time error */
	{ "", "int('1.5')", "ERR" },
	{ "", "int('')", "ERR" },
	{ "", "int('1__0')", "ERR" },
	{ "", "int('99999999999999999999')", "ERR" },
	{ "", "int(float('inf'))", "ERR" },
	{ "", "int(float('nan'))", "ERR" },
	{ "", "int(1e19)", "ERR" },
	{ "", "float('x')", "ERR" },
	{ "", "float('0x10')", "ERR" },
	{ "", "[1, 2, 3][3]", "ERR" },
	{ "", "[1, 2, 3][-4]", "ERR" },
	{ "", "range(3)[3]", "ERR" },
	{ "a = [0, 1]", "a < range(2)", "ERR" },
	{ "", "[1] * 200000000", "ERR" },
	{ "", "list(range(200000000))", "ERR" },
	{ "", "range(200000000) | [1]", "ERR" },
	{ "", "[1] | ['a']", "ERR" },
	{ "", "[[1]] | [2]", "ERR" },
	{ "", "[float('nan')] | [1]", "ERR" },
	{ "", "['a'] - range(3)", "ERR" },
	{ "", "['a', 'b'] & ['b', 'c']", "['b']" },
	{ "", "sum([9223372036854775807, 1])", "ERR" },
	{ "", "sum(range(9223372036854775807))", "ERR" },
	{ "", "sum(range(3037000500))", "4611686016981624750" },
	{ "", "sum(range(-9223372036854775807 - 1, 9223372036854775807, 2))", "-9223372036854775808" },
	/* Python 3.12's compensated float sum. */
	{ "", "sum([0.1] * 10)", "1.0" },
	{ "", "sum([1e100, 1.0, -1e100])", "1.0" },
	/* Static types hidden in locals, so that sema lets them through. */
	{ "s = 'a'\n    t = 'b'", "s + t", "ERR" },
	{ "s = 'a'", "s < 1", "ERR" },
	{ "s = 'a'", "s * 2", "ERR" },
	{ "s = 'ab'", "s[0]", "ERR" },
	{ "s = 'ab'", "len(s)", "2" },
	{ "s = 'ab'", "int(s)", "ERR" },
	{ "x = 5", "1 in x", "ERR" },
	{ "x = 5\n    t = 'abc'", "x in t", "ERR" },
	{ "f = 1.0", "[1, 2][f]", "ERR" },
	{ "f = 1.0", "range(f)", "ERR" },
	{ "f = 1.5", "~f", "ERR" },
	{ "f = 1.5", "f << 1", "ERR" },
	{ "f = 1.5", "f & 1", "ERR" },
	{ "n = None", "n + 1", "ERR" },
	{ "n = None", "-n", "ERR" },
	{ "n = None", "n < 1", "ERR" },
	{ "l = [1]", "l + 1", "ERR" },
	{ "l = [1]", "-l", "ERR" },
	{ "l = [1]", "l * 1.5", "ERR" },
	{ "r = range(3)", "r + r", "ERR" },
	{ "r = range(3)", "r * 2", "ERR" },
	{ "r = range(3)", "r == range(0, 3)", "True" },
	{ "x = 1", "x.append(2)", "ERR" },
	/* Statements in def bodies. */
	{ "l = [3]", "(l.append(4), l)", "[None, [3, 4]]" },
	{ "a, b = 1, 2", "(b, a)", "[2, 1]" },
	{ "a, b = range(5, 7)", "(b, a)", "[6, 5]" },
	{ "a, b = [1, 2, 3]", "a", "ERR" },
	{ "a, b = 1", "a", "ERR" },
	{ "k = n = 1\n    n, k = n + k, n\n    n, k = n + k, n", "(n, k)", "[3, 2]" },
	{ "a = b = [1]\n    a.append(2)", "b", "[1, 2]" },
	{ "l = [1, 2, 3]\n    l[1] = 9\n    l[-1] += 1", "l", "[1, 9, 4]" },
	{ "l = [1]\n    l[1] = 2", "l", "ERR" },
	{ "l = [1]\n    i = 0.0\n    l[i] = 2", "l", "ERR" },
	{ "l = [1]\n    l += [2]\n    l += range(3, 5)", "l", "[1, 2, 3, 4]" },
	{ "l = [1]\n    m = l\n    l += [2]", "m", "[1, 2]" },
	{ "l = [1]\n    m = l\n    l = l + [2]", "m", "[1]" },
	{ "l = []\n    l.append(l)", "l", "ERR" },
	{ "l = []\n    m = [l]\n    l.append(m)", "l", "ERR" },
	{ "l = [[0] * 2] * 2\n    l[0][0] = 1", "l", "[[1, 0], [1, 0]]" },
	{ "l = [0, 0]\n    l[0], l[1] = 5, 6", "l", "[5, 6]" },
	{ "x = 1\n    x += 0.5\n    x *= 4\n    x //= 4", "x", "1.0" },
	{ "x = 7\n    x %= -2\n    x **= 3\n    x <<= 2\n    x |= 1", "x", "-3" },
	{ "x = 2 ** 62\n    x *= 2", "x", "ERR" },
	{ "i = 0\n    while i < 5:\n        i += 1\n    else:\n        i = -i", "i", "-5" },
	{ "i = 0\n    while True:\n        i += 1\n        if i > 3:\n            break\n    else:\n        i = -1", "i", "4" },
	{ "t = 0\n    for a, b in [(1, 2), (3, 4)]:\n        t += a * b", "t", "14" },
	{ "t = 0\n    for a in (5, 6):\n        t = t * 10 + a", "t", "56" },
	{ "x = []\n    for i in range(3):\n        x.append(i)\n        if i == 1:\n            break\n    else:\n        x.append(99)", "x", "[0, 1]" },
	{ "x = []\n    for i in range(3):\n        if i == 1:\n            continue\n        x.append(i)\n    else:\n        x.append(99)", "x", "[0, 2, 99]" },
	{ "x = [1]\n    for v in x:\n        if len(x) < 4:\n            x.append(v + 1)", "x", "[1, 2, 3, 4]" },
	{ "if False:\n        q = 1", "q", "ERR" },
	{ "l = []\n    for i in range(100):\n        l = [l]", "len(l)", "ERR" },
	{ "n = 5\n    if n < 3:\n        r = 'small'\n    elif n < 10:\n        r = 'medium'\n    else:\n        r = 'large'", "r", "'medium'" },
	{ "for i in 5:\n        pass", "0", "ERR" },
};

ParameterizedTestParameters(interp, expr)
{
	return cr_make_param_array(struct expr_case, expr_cases,
				   sizeof(expr_cases) / sizeof(expr_cases[0]));
}

/* Each expression is yielded once by a closure iterator: one point with
 * its value, or no point and one domain error charged to the iterator. */
ParameterizedTest(struct expr_case *c, interp, expr)
{
	char src[2048];
	snprintf(src, sizeof(src), "@iterator\ndef x():\n    %s\n    yield (%s)\n",
		 c->pre[0] ? c->pre : "pass", c->expr);
	struct run r;
	run_space(&r, src, NULL, 0);
	cr_assert_eq(r.rc, 0);
	const struct interp_def_stats *st = stat_of(&r, "x");
	if (!strcmp(c->want, "ERR")) {
		cr_expect_eq(r.res.valid, 0, "%s: want an error, got %s", c->expr, r.out);
		cr_expect_eq(st->domain_errors, 1, "%s: domain errors", c->expr);
	} else {
		char want[512];
		snprintf(want, sizeof(want), "%s\n", c->want);
		cr_expect_str_eq(r.out ? r.out : "", want, "%s", c->expr);
		cr_expect_eq(st->domain_errors, 0, "%s", c->expr);
	}
	cr_expect_eq(st->evaluated, 1);
	run_release(&r);
}

/* ---- spaces against nested C loops ------------------------------------------ */

/* Python's floor division and modulo, from their definitions (small ints,
 * so the double quotient is exact). */
static int64_t py_floordiv(int64_t a, int64_t b)
{
	return (int64_t)floor((double)a / (double)b);
}

static int64_t py_mod(int64_t a, int64_t b)
{
	return a - b * py_floordiv(a, b);
}

static const char space_a[] =
	"device N = 12\n"
	"a = range(1, N + 1)\n"
	"b = range(a, N + 1, a)\n"
	"c = [1, 2, 4, 8] | range(3, 7)\n"
	"prod = a * b\n"
	"hard too_big = prod * c > 100\n"
	"require even = (a + b + c) % 2 == 0\n"
	"soft odd_tile = b // a == 3 and c > 0\n";

/*
 * Every constraint of space_a needs all three iterators, so each is checked
 * at the innermost loop whatever order sema picks for the loops; sema also
 * picks the order of the checks there (cheapest first), so the brute force
 * applies its tests in the order of prog->defs.  The counters it predicts
 * follow from that order alone.
 */
struct brute_a {
	uint64_t evaluated[3], rejected[3];
	uint64_t pairs, triples; /* (a, b) pairs; (a, b, c) triples */
};

static void brute_a(struct run *r, int64_t N, const bool on[3], struct sbuf *pts,
		    struct brute_a *st)
{
	static const int64_t cs[] = { 1, 2, 3, 4, 5, 6, 8 };
	const char *names[3] = { "too_big", "even", "odd_tile" };
	int order[3] = { 0, 1, 2 };
	/* Sort the three tests by their position in sema's order. */
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (fe_topo_pos(&r->fe, names[order[j]]) < fe_topo_pos(&r->fe, names[order[i]])) {
				int t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
	memset(st, 0, sizeof(*st));
	for (int64_t a = 1; a <= N; a++)
		for (int64_t b = a; b <= N; b += a) {
			st->pairs++;
			for (int ci = 0; ci < 7; ci++) {
				int64_t c = cs[ci];
				bool rejects[3] = {
					a * b * c > 100,           /* hard: True rejects */
					(a + b + c) % 2 != 0,      /* require: False rejects */
					b / a == 3 && c > 0,       /* soft: True rejects */
				};
				bool ok = true;
				st->triples++;
				for (int k = 0; k < 3 && ok; k++) {
					int t = order[k];
					if (!on[t])
						continue;
					st->evaluated[t]++;
					if (rejects[t]) {
						st->rejected[t]++;
						ok = false;
					}
				}
				if (ok)
					sb_printf(pts, "%" PRId64 " %" PRId64 " %" PRId64 "\n", a, b, c);
			}
		}
}

static void check_space_a(const struct interp_options *opt, int64_t N, bool soft, bool even_on)
{
	struct run r;
	struct sbuf want;
	struct brute_a st;
	const bool on[3] = { true, even_on, soft };
	run_space(&r, space_a, opt, 0);
	cr_assert_eq(r.rc, 0);
	sb_init(&want);
	brute_a(&r, N, on, &want, &st);
	assert_points(&r, &want);
	cr_expect_eq(r.res.valid, (uint64_t)r.npoints);
	/* Candidates: every binding at every depth, so they depend on where
	 * the loop over c sits (b always follows a). */
	uint64_t A = (uint64_t)N, C = 7, cand;
	int pc = loop_pos(&r, "c");
	cand = pc == 2 ? A + st.pairs + st.triples : pc == 1 ? A + A * C + st.triples : C + C * A + st.triples;
	cr_expect_eq(r.res.candidates, cand, "c at loop position %d", pc);
	const char *names[3] = { "too_big", "even", "odd_tile" };
	for (int t = 0; t < 3; t++) {
		cr_expect_eq(stat_of(&r, names[t])->evaluated, st.evaluated[t], "%s", names[t]);
		cr_expect_eq(stat_of(&r, names[t])->rejected, st.rejected[t], "%s", names[t]);
	}
	cr_expect_eq(stat_of(&r, "prod")->evaluated, pc == 2 ? st.pairs : st.triples);
	cr_expect_eq(stat_of(&r, "N")->evaluated, opt && opt->nbindings ? 0 : 1);
	for (int i = 0; i < r.fe.prog.ndefs; i++)
		cr_expect_eq(r.res.stats[i].domain_errors, 0);
	sb_release(&want);
	run_release(&r);
}

Test(interp, space_nested_loops)
{
	check_space_a(NULL, 12, true, true);
}

Test(interp, space_no_soft)
{
	struct interp_options opt = { .no_soft = true };
	check_space_a(&opt, 12, false, true);
}

Test(interp, space_disabled_by_name)
{
	const char *const off[] = { "even" };
	struct interp_options opt = { .ndisabled = 1, .disabled = off };
	check_space_a(&opt, 12, true, false);
}

Test(interp, space_binding_overrides_device)
{
	struct interp_binding b = { "N", value_int(20) };
	struct interp_options opt = { .nbindings = 1, .bindings = &b };
	check_space_a(&opt, 20, true, true);
}

Test(interp, unknown_binding_is_a_usage_error)
{
	struct interp_binding b = { "M", value_int(20) };
	struct interp_options opt = { .nbindings = 1, .bindings = &b };
	struct run r;
	run_space(&r, space_a, &opt, 0);
	cr_expect_eq(r.rc, -1);
	cr_expect(fe_diag_has(&r.fe, "unknown device parameter or setting 'M'"), "%s", fe_diag(&r.fe));
	cr_expect(fe_diag_has(&r.fe, "did you mean 'N'?"), "%s", fe_diag(&r.fe));
	cr_expect_eq(r.npoints, 0);
	run_release(&r);

	b.name = "prod";
	run_space(&r, space_a, &opt, 0);
	cr_expect_eq(r.rc, -1);
	cr_expect(fe_diag_has(&r.fe, "'prod' is a derived, not a device parameter or setting"),
		  "%s", fe_diag(&r.fe));
	run_release(&r);
}

/* Floor division and modulo over every sign combination. */
Test(interp, space_floordiv_mod_signs)
{
	static const char src[] =
		"a = range(-9, 10)\n"
		"b = range(-4, 5)\n"
		"q = a // b\n"
		"r = a % b\n"
		"t = a / b\n"
		"@iterator\ndef qv(q):\n    return q\n"
		"@iterator\ndef rv(r):\n    return r\n"
		"@iterator\ndef tv(t):\n    return t * b == a\n";
	struct run r;
	struct sbuf want;
	run_space(&r, src, NULL, 0);
	sb_init(&want);
	uint64_t zero = 0;
	for (int64_t a = -9; a <= 9; a++)
		for (int64_t b = -4; b <= 4; b++) {
			if (b == 0) {
				zero++;
				continue;
			}
			/* t * b == a holds for these small quotients? Compute it. */
			double t = (double)a / (double)b;
			sb_printf(&want, "%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %s\n",
				  a, b, py_floordiv(a, b), py_mod(a, b), t * (double)b == (double)a ? "True" : "False");
		}
	assert_points(&r, &want);
	cr_expect_eq(stat_of(&r, "q")->domain_errors, zero);
	cr_expect_eq(stat_of(&r, "r")->domain_errors, 0, "r is not evaluated once q fails");
	cr_expect_eq(stat_of(&r, "r")->evaluated, 19 * 9 - zero);
	sb_release(&want);
	run_release(&r);
}

/* Overflow rejects the point and is charged to the definition where it
 * happened, never to its users. */
Test(interp, space_overflow_domain_errors)
{
	static const char src[] =
		"e = range(0, 64)\n"
		"p = 2 ** e\n"
		"q = p * 4\n"
		"require q > 0\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	struct sbuf want;
	sb_init(&want);
	for (int e = 0; e <= 60; e++)
		sb_printf(&want, "%d\n", e);
	assert_points(&r, &want);
	cr_expect_eq(r.res.valid, 61);
	cr_expect_eq(r.res.candidates, 64);
	cr_expect_eq(stat_of(&r, "p")->domain_errors, 1);  /* 2**63 */
	cr_expect_eq(stat_of(&r, "q")->domain_errors, 2);  /* 2**61 * 4, 2**62 * 4 */
	cr_expect_eq(stat_of(&r, "q")->evaluated, 63);
	cr_expect_eq(stat_of(&r, "line_4")->evaluated, 61);
	cr_expect_eq(stat_of(&r, "line_4")->rejected, 0);
	sb_release(&want);
	run_release(&r);
}

/* Division by zero, and the short-circuit that guards it. */
Test(interp, space_division_by_zero_and_short_circuit)
{
	static const char src[] =
		"b = range(-3, 4)\n"
		"require ok = b != 0 and 12 % b == 0\n"
		"c = range(-3, 4)\n"
		"require unguarded = 12 % c == 0\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	struct sbuf want;
	sb_init(&want);
	uint64_t unguarded_zero = 0;
	for (int b = -3; b <= 3; b++) {
		if (b == 0 || 12 % b != 0)
			continue;
		for (int c = -3; c <= 3; c++) {
			if (c == 0) {
				unguarded_zero++;
				continue;
			}
			if (12 % c == 0)
				sb_printf(&want, "%d %d\n", b, c);
		}
	}
	assert_points(&r, &want);
	/* `ok` needs b only, `unguarded` c only: how often each runs depends
	 * on which loop is outside. */
	bool b_outer = loop_pos(&r, "b") == 0;
	cr_expect_eq(stat_of(&r, "ok")->domain_errors, 0);
	cr_expect_eq(stat_of(&r, "ok")->rejected, b_outer ? 1 : 6);
	cr_expect_eq(stat_of(&r, "unguarded")->domain_errors, b_outer ? 6 : 1);
	cr_expect_eq(unguarded_zero, 6);
	sb_release(&want);
	run_release(&r);
}

/* Chained comparisons, `in`, and a conditional expression. */
Test(interp, space_chained_compare_and_in)
{
	static const char src[] =
		"x = range(1, 9)\n"
		"y = range(1, 9)\n"
		"require 4 <= x * y <= 12 != x + y\n"
		"require y not in [3, 5]\n"
		"require (x if x > y else y) in range(2, 9, 2)\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	struct sbuf want;
	sb_init(&want);
	for (int x = 1; x <= 8; x++)
		for (int y = 1; y <= 8; y++) {
			int m = x > y ? x : y;
			if (4 <= x * y && x * y <= 12 && 12 != x + y && y != 3 && y != 5 && m % 2 == 0)
				sb_printf(&want, "%d %d\n", x, y);
		}
	assert_points(&r, &want);
	sb_release(&want);
	run_release(&r);
}

/* Iterator algebra against sets computed by hand-written loops. */
Test(interp, space_iterator_algebra)
{
	static const char src[] =
		"u = [1, 2, 4, 8] | range(16, 65, 16) | [8, 2]\n"
		"i = range(0, 40, 2) & range(0, 40, 3)\n"
		"d = range(10) - [3, 5, 100]\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	int us[] = { 1, 2, 4, 8, 16, 32, 48, 64 };
	struct sbuf want;
	sb_init(&want);
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 40; b++) {
			if (b % 6)
				continue;
			for (int c = 0; c < 10; c++)
				if (c != 3 && c != 5)
					sb_printf(&want, "%d %d %d\n", us[a], b, c);
		}
	assert_points(&r, &want);
	sb_release(&want);
	run_release(&r);
}

/* A table indexed by iterators, negative indices, out of range errors. */
Test(interp, space_tables)
{
	static const char src[] =
		"T = [[1, 2, 3], [4, 5, 6]]\n"
		"i = range(2)\n"
		"j = range(-3, 4)\n"
		"v = T[i][j]\n"
		"require v % 2 == 1\n";
	static const int T[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
	struct run r;
	run_space(&r, src, NULL, 0);
	struct sbuf want;
	sb_init(&want);
	uint64_t oob = 0;
	for (int i = 0; i < 2; i++)
		for (int j = -3; j <= 3; j++) {
			if (j == 3) {
				oob++;
				continue;
			}
			if (T[i][j < 0 ? j + 3 : j] % 2 == 1)
				sb_printf(&want, "%d %d\n", i, j);
		}
	assert_points(&r, &want);
	cr_expect_eq(stat_of(&r, "v")->domain_errors, oob);
	cr_expect_eq(stat_of(&r, "T")->evaluated, 1);
	sb_release(&want);
	run_release(&r);
}

/* Closure iterators: state, loops with else, break, continue, lists. */
Test(interp, space_closures)
{
	static const char src[] =
		"setting MAX = 60\n"
		"@iterator\n"
		"def primes():\n"
		"    for n in range(2, MAX + 1):\n"
		"        for d in range(2, n):\n"
		"            if n % d == 0:\n"
		"                break\n"
		"        else:\n"
		"            yield n\n"
		"@iterator\n"
		"def fib():\n"
		"    k = n = 1\n"
		"    while n <= MAX:\n"
		"        yield n\n"
		"        n, k = n + k, n\n"
		"@iterator\n"
		"def squares():\n"
		"    lst = []\n"
		"    i = 0\n"
		"    while True:\n"
		"        i += 1\n"
		"        if i % 2 == 0:\n"
		"            continue\n"
		"        if len(lst) >= 5:\n"
		"            break\n"
		"        lst.append(i * i)\n"
		"    lst[0] = -1\n"
		"    lst[-1] += 100\n"
		"    for x in lst:\n"
		"        yield x\n"
		"require (primes + fib + squares) % 7 == 0\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	int primes[64], np = 0, fib[64], nf = 0;
	for (int n = 2; n <= 60; n++) {
		int d = 2;
		while (d < n && n % d)
			d++;
		if (d == n)
			primes[np++] = n;
	}
	for (int k = 1, n = 1; n <= 60;) {
		fib[nf++] = n;
		int t = n + k;
		k = n;
		n = t;
	}
	const int sq[] = { -1, 9, 25, 49, 181 };
	struct sbuf want;
	sb_init(&want);
	for (int a = 0; a < np; a++)
		for (int b = 0; b < nf; b++)
			for (int c = 0; c < 5; c++)
				if ((primes[a] + fib[b] + sq[c]) % 7 == 0)
					sb_printf(&want, "%d %d %d\n", primes[a], fib[b], sq[c]);
	assert_points(&r, &want);
	cr_expect_eq(nf, 9); /* 1 2 3 5 8 13 21 34 55 */
	/* Independent loops: the candidates are the prefix products. */
	uint64_t counts[3], cand = 0, prefix = 1;
	counts[loop_pos(&r, "primes")] = (uint64_t)np;
	counts[loop_pos(&r, "fib")] = (uint64_t)nf;
	counts[loop_pos(&r, "squares")] = 5;
	for (int k = 0; k < 3; k++) {
		prefix *= counts[k];
		cand += prefix;
	}
	cr_expect_eq(r.res.candidates, cand);
	sb_release(&want);
	run_release(&r);
}

/* A closure over a bound iterator: divisors of n. */
Test(interp, space_closure_with_parameter)
{
	static const char src[] =
		"n = range(1, 40)\n"
		"@iterator\n"
		"def divisor(n):\n"
		"    d = 1\n"
		"    while d * d <= n:\n"
		"        if n % d == 0:\n"
		"            yield d\n"
		"            if d * d != n:\n"
		"                yield n // d\n"
		"        d += 1\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	struct sbuf want;
	sb_init(&want);
	for (int n = 1; n < 40; n++)
		for (int d = 1; d * d <= n; d++)
			if (n % d == 0) {
				sb_printf(&want, "%d %d\n", n, d);
				if (d * d != n)
					sb_printf(&want, "%d %d\n", n, n / d);
			}
	assert_points(&r, &want);
	sb_release(&want);
	run_release(&r);
}

/* Deferred iterators: if/elif/else returning lists, ranges and scalars. */
static const char space_vec[] =
	"setting precision = \"double\"\n"
	"setting arithmetic = \"real\"\n"
	"@iterator\n"
	"def vec_mul(dim_vec):\n"
	"    if dim_vec == 1:\n"
	"        return 0\n"
	"    return range(0, 2)\n"
	"@iterator\n"
	"def dim_vec(precision, arithmetic):\n"
	"    if precision == \"double\" and arithmetic == \"real\":\n"
	"        return [1, 2]\n"
	"    elif precision == \"double\":\n"
	"        return [1]\n"
	"    elif arithmetic == \"real\":\n"
	"        return [1, 4]\n"
	"    else:\n"
	"        return [1, 2, 3]\n";

Test(interp, space_deferred_iterators)
{
	const char *precs[] = { "double", "single" }, *ariths[] = { "real", "complex" };
	for (int p = 0; p < 2; p++)
		for (int a = 0; a < 2; a++) {
			struct run r;
			struct interp_binding b[2] = {
				{ "precision", value_str(precs[p]) },
				{ "arithmetic", value_str(ariths[a]) },
			};
			struct interp_options opt = { .nbindings = 2, .bindings = b };
			run_space(&r, space_vec, &opt, 0);
			cr_assert_eq(r.rc, 0);
			static const int dv[2][2][4] = {
				{ { 1, 2 }, { 1 } },
				{ { 1, 4 }, { 1, 2, 3 } },
			};
			static const int ndv[2][2] = { { 2, 1 }, { 2, 3 } };
			struct sbuf want;
			sb_init(&want);
			/* Definition order: vec_mul first, although it loops second. */
			for (int i = 0; i < ndv[p][a]; i++) {
				int d = dv[p][a][i];
				if (d == 1)
					sb_printf(&want, "0 1\n");
				else
					sb_printf(&want, "0 %d\n1 %d\n", d, d);
			}
			assert_points(&r, &want);
			sb_release(&want);
			run_release(&r);
		}
}

/* Require polarity: `require` keeps where true, hard/soft/correct reject
 * where true; @hard defs return the test. */
Test(interp, space_constraint_polarity)
{
	static const char src[] =
		"x = range(10)\n"
		"require keep = x > 2\n"
		"hard drop = x == 5\n"
		"@correct\n"
		"def odd(x):\n"
		"    if x % 2:\n"
		"        return True\n"
		"@soft\n"
		"def none_is_false(x):\n"
		"    if x < 0:\n"
		"        return True\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	cr_expect_str_eq(r.out, "4\n6\n8\n");
	cr_expect_eq(stat_of(&r, "keep")->rejected, 3);
	cr_expect_eq(stat_of(&r, "drop")->rejected, 1);
	cr_expect_eq(stat_of(&r, "odd")->rejected, 3);
	/* Checked on 4 6 8 after `odd`, or on 3 4 6 7 8 9 before it. */
	bool after = fe_topo_pos(&r.fe, "none_is_false") > fe_topo_pos(&r.fe, "odd");
	cr_expect_eq(stat_of(&r, "none_is_false")->evaluated, after ? 3 : 6);
	cr_expect_eq(stat_of(&r, "none_is_false")->rejected, 0);
	run_release(&r);
}

/* A constraint that needs no iterator is checked once, before any loop. */
Test(interp, space_level_minus_one_constraint)
{
	static const char src[] =
		"device D = 3\n"
		"require big = D > 5\n"
		"x = range(10)\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	cr_expect_eq(r.res.valid, 0);
	cr_expect_eq(r.res.candidates, 0);
	cr_expect_eq(stat_of(&r, "big")->evaluated, 1);
	cr_expect_eq(stat_of(&r, "big")->rejected, 1);
	run_release(&r);

	struct interp_binding b = { "D", value_int(6) };
	struct interp_options opt = { .nbindings = 1, .bindings = &b };
	run_space(&r, src, &opt, 0);
	cr_expect_eq(r.res.valid, 10);
	cr_expect_eq(stat_of(&r, "big")->rejected, 0);
	run_release(&r);
}

/* The step limit turns a runaway def into a domain error. */
Test(interp, space_step_limit)
{
	static const char src[] =
		"@iterator\n"
		"def forever():\n"
		"    while True:\n"
		"        yield 1\n";
	struct interp_options opt = { .step_limit = 10000 };
	struct run r;
	run_space(&r, src, &opt, 0);
	cr_expect_eq(r.res.valid, 0);
	cr_expect_eq(stat_of(&r, "forever")->domain_errors, 1);
	run_release(&r);

	static const char src2[] =
		"x = range(4)\n"
		"@hard\n"
		"def spin(x):\n"
		"    i = 0\n"
		"    while x == 2:\n"
		"        i += 1\n"
		"    return False\n";
	run_space(&r, src2, &opt, 0);
	cr_expect_str_eq(r.out, "0\n1\n3\n");
	cr_expect_eq(stat_of(&r, "spin")->domain_errors, 1);
	run_release(&r);

	/* Each evaluation gets the whole budget afresh. */
	static const char src3[] =
		"x = range(50)\n"
		"@hard\n"
		"def busy(x):\n"
		"    for i in range(3000):\n"
		"        pass\n"
		"    return False\n";
	run_space(&r, src3, &opt, 0);
	cr_expect_eq(r.res.valid, 50);
	run_release(&r);
}

/* An error while computing an iterable skips that subtree only. */
Test(interp, iterable_errors_skip_the_subtree)
{
	static const char src[] =
		"a = range(-2, 3)\n"
		"b = range(10 // a)\n"
		"@iterator\n"
		"def c(b):\n"
		"    if b == 3:\n"
		"        return [1] * (2 ** 62 * 4)\n"
		"    return [b * 10]\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	struct sbuf want;
	sb_init(&want);
	uint64_t cand = 0, c_errors = 0;
	for (int a = -2; a <= 2; a++) {
		cand++;
		if (a == 0)
			continue;
		int stop = (int)py_floordiv(10, a);
		for (int b = 0; b < stop; b++) {
			cand++;
			if (b == 3) {
				c_errors++;
				continue;
			}
			cand++;
			sb_printf(&want, "%d %d %d\n", a, b, b * 10);
		}
	}
	assert_points(&r, &want);
	cr_expect_eq(r.res.candidates, cand);
	cr_expect_eq(stat_of(&r, "b")->domain_errors, 1);
	cr_expect_eq(stat_of(&r, "b")->evaluated, 5);
	cr_expect_eq(stat_of(&r, "c")->domain_errors, c_errors);
	sb_release(&want);
	run_release(&r);

	/* Stopping inside a loop over a list releases it (ASan checks). */
	run_space(&r, "x = [5, 6, 7]\n@iterator\ndef y():\n    yield [1]\n    yield [2]\n", NULL, 3);
	cr_expect_str_eq(r.out, "5 [1]\n5 [2]\n6 [1]\n");
	run_release(&r);
}

/* Points come in definition order; the loops run in level order. */
Test(interp, callback_definition_order_and_early_stop)
{
	static const char src[] =
		"b = range(a, 3)\n"
		"a = range(3)\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	cr_expect_str_eq(r.out, "0 0\n1 0\n2 0\n1 1\n2 1\n2 2\n");
	cr_expect_eq(r.res.candidates, 3 + 6);
	run_release(&r);

	run_space(&r, src, NULL, 4);
	cr_expect_str_eq(r.out, "0 0\n1 0\n2 0\n1 1\n");
	cr_expect_eq(r.res.valid, 4);

	/* Without a callback it only counts. */
	struct interp_result res;
	cr_expect_eq(interp_run(&r.fe.prog, NULL, NULL, NULL, &res, &r.fe.diag), 0);
	cr_expect_eq(res.valid, 6);
	interp_result_release(&res);
	run_release(&r);
}

/* Reassignment in a top-level `if` (SSA versions), with bindings. */
Test(interp, space_conditional_reassignment)
{
	static const char src[] =
		"setting precision = \"double\"\n"
		"setting arithmetic = \"real\"\n"
		"regs = 1\n"
		"if precision == \"double\":\n"
		"    regs = 2\n"
		"if arithmetic == \"complex\":\n"
		"    regs = regs * 2\n"
		"if precision == \"quad\":\n"
		"    unused_helper = 1\n"
		"x = range(1, 5)\n"
		"require x * regs <= 4\n";
	const char *precs[] = { "double", "single" }, *ariths[] = { "real", "complex" };
	for (int p = 0; p < 2; p++)
		for (int a = 0; a < 2; a++) {
			struct interp_binding b[2] = {
				{ "precision", value_str(precs[p]) },
				{ "arithmetic", value_str(ariths[a]) },
			};
			struct interp_options opt = { .nbindings = 2, .bindings = b };
			struct run r;
			run_space(&r, src, &opt, 0);
			int regs = (p == 0 ? 2 : 1) * (a == 1 ? 2 : 1);
			cr_expect_eq(r.res.valid, (uint64_t)(4 / regs), "precision %s arithmetic %s",
				     precs[p], ariths[a]);
			run_release(&r);
		}
}

/* A def that changes a top-level value works on a copy: no point can
 * see another point's edits.  Changing it in place is an error. */
Test(interp, top_level_values_are_not_shared_state)
{
	static const char src[] =
		"T = [[1, 2], [3]]\n"
		"x = range(4)\n"
		"@hard\n"
		"def grow(x):\n"
		"    t = T\n"
		"    t.append([x])\n"
		"    t[0] = x\n"
		"    return len(t) != 3 or t[0] != x or T[0] != [1, 2]\n";
	struct run r;
	run_space(&r, src, NULL, 0);
	cr_expect_eq(r.res.valid, 4);
	run_release(&r);

	static const char src2[] =
		"T = [[1, 2], [3]]\n"
		"x = range(4)\n"
		"@hard\n"
		"def grow(x):\n"
		"    T[0].append(x)\n"
		"    return False\n";
	run_space(&r, src2, NULL, 0);
	cr_expect_eq(r.res.valid, 0);
	cr_expect_eq(stat_of(&r, "grow")->domain_errors, 4);
	run_release(&r);
}

/* ---- interp_constants ------------------------------------------------------- */

static const char *intern_cb(void *ctx, const char *s, size_t n)
{
	return ast_intern(ctx, s, n);
}

Test(interp, constants_with_bindings)
{
	static const char src[] =
		"device threads = 256\n"
		"setting precision = \"single\"\n"
		"size = 4 if precision == \"single\" else 8\n"
		"T = [[1, 2], [3, 4]]\n"
		"bad = 1 // 0\n"
		"x = range(threads)\n";
	struct fe f;
	cr_assert_eq(fe_check(&f, src), 0, "%s", fe_diag(&f));
	struct interp_binding b = { "precision", value_str(intern_cb(&f.mod, "double", 6)) };
	struct interp_options opt = { .nbindings = 1, .bindings = &b };
	int n = f.prog.ndefs;
	struct value *out = calloc((size_t)n, sizeof(*out));
	cr_assert_eq(interp_constants(&f.prog, &opt, out, &f.diag), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	const char *names[] = { "threads", "precision", "size", "T", "bad", "x" };
	for (int i = 0; i < 6; i++) {
		fprintf(m, "%s=", names[i]);
		value_print(m, out[fe_def(&f, names[i])->id], false);
		fputc(' ', m);
	}
	fclose(m);
	cr_expect_str_eq(text, "threads=256 precision='double' size=8 T=[[1, 2], [3, 4]] "
			       "bad=<undefined> x=<undefined> ");
	free(text);
	for (int i = 0; i < n; i++)
		value_unref(out[i]);
	free(out);

	struct interp_binding bad = { "size", value_int(1) };
	opt.bindings = &bad;
	out = calloc((size_t)n, sizeof(*out));
	cr_expect_eq(interp_constants(&f.prog, &opt, out, &f.diag), -1);
	free(out);
	fe_release(&f);
}

/* ---- value.c ------------------------------------------------------------------- */

struct repr_case {
	double d;
	char want[32];
};

static struct repr_case repr_cases[] = {
	{ 0.1, "0.1" }, { 1.0 / 3, "0.3333333333333333" }, { 1e22, "1e+22" }, { 1e-7, "1e-07" },
	{ 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
	{ 100.0, "100.0" }, { 123456789012345678.0, "1.2345678901234568e+17" },
	{ 9007199254740993.0, "9007199254740992.0" }, { 2.5e-5, "2.5e-05" }, { 12345.678, "12345.678" },
	{ -1.5, "-1.5" }, { 0.30000000000000004, "0.30000000000000004" }, { 1e100, "1e+100" },
	{ 4.35, "4.35" }, { 1234567890123456.0, "1234567890123456.0" },
	{ 12345678901234567.0, "1.2345678901234568e+16" }, { 1e16, "1e+16" }, { 1e15, "1000000000000000.0" },
	{ 0.0001, "0.0001" }, { 0.00001, "1e-05" }, { 0.0, "0.0" }, { -0.0, "-0.0" },
	{ 2.0, "2.0" }, { 0.5, "0.5" },
};

ParameterizedTestParameters(values, float_repr)
{
	return cr_make_param_array(struct repr_case, repr_cases, sizeof(repr_cases) / sizeof(repr_cases[0]));
}

ParameterizedTest(struct repr_case *c, values, float_repr)
{
	char buf[VALUE_FLOAT_BUF];
	value_float_repr(buf, c->d);
	cr_expect_str_eq(buf, c->want);
}

static char *print_to_string(struct value v, bool json)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	value_print(m, v, json);
	fclose(m);
	return s;
}

Test(values, print_repr_and_json)
{
	struct vlist *l = vlist_new(0);
	vlist_push(l, value_int(1));
	vlist_push(l, value_float(2.5));
	vlist_push(l, value_str("it's \"x\"\n"));
	vlist_push(l, value_bool(true));
	struct value nonev = { V_NONE, { .i = 0 } };
	vlist_push(l, nonev);
	vlist_push(l, value_float(INFINITY));
	vlist_push(l, value_float(NAN));
	struct vlist *inner = vlist_new(1);
	vlist_push(inner, value_int(-3));
	vlist_push(l, value_list(inner));
	struct value r = { V_RANGE, { .i = 0 } };
	r.u.r.start = 10;
	r.u.r.stop = 0;
	r.u.r.step = -4;
	vlist_push(l, r);
	char *s = print_to_string(value_list(l), false);
	cr_expect_str_eq(s, "[1, 2.5, 'it\\'s \"x\"\\n', True, None, inf, nan, [-3], range(10, 0, -4)]");
	free(s);
	s = print_to_string(value_list(l), true);
	cr_expect_str_eq(s, "[1, 2.5, \"it's \\\"x\\\"\\n\", true, null, null, null, [-3], [10, 6, 2]]");
	free(s);
	s = print_to_string(value_str("it's"), false);
	cr_expect_str_eq(s, "\"it's\"");
	free(s);
	s = print_to_string(value_str("tab\there\x01"), true);
	cr_expect_str_eq(s, "\"tab\\there\\u0001\"");
	free(s);
	value_unref(value_list(l));
}

/* A comprehension's variables are its own (Python 3): the top-level `i`
 * and `v` keep their values, and every point is Python's. */
Test(interp, comprehension_scopes_and_filters)
{
	struct run r;
	run_space(&r, "i = [10, 20]\nv = 3\n"
		  "sq = [i * i for i in range(1, 5) if i % 2 == 0 if i != v]\n"
		  "pair = [i + j for i in range(2) for j in range(i, 2)]\n"
		  "require any(i == w * 10 for w in range(3)) and all(x > 0 for x in [v, sq])\n",
		  NULL, 0);
	/* Python: sq in [4, 16], pair in [0, 1, 2], i in [10, 20] with 10 == w*10 for w in 0..2. */
	struct sbuf want;
	sb_init(&want);
	for (int a = 10; a <= 20; a += 10)
		for (int s = 2; s <= 4; s += 2)
			for (int p = 0; p <= 2; p++)
				sb_printf(&want, "%d %d %d\n", a, s * s, p);
	assert_points(&r, &want);
	sb_release(&want);
	run_release(&r);
}

/* any() of a generator stops at the deciding element, as Python's does:
 * 6 // 0 is never evaluated here, and all() stops at v = 0, before
 * 10 // (v - 2) divides by zero (CPython gives True for both). */
Test(interp, generator_stops_early)
{
	struct run r;
	run_space(&r, "x = [1, 2]\nrequire any(6 // v > x for v in [1, 0])\n"
		  "require not all(10 // (v - 2) > 5 for v in range(5))\n", NULL, 0);
	cr_expect_eq(r.npoints, 2);
	cr_expect_eq(stat_of(&r, "line_2")->domain_errors, 0);
	cr_expect_eq(stat_of(&r, "line_3")->domain_errors, 0);
	run_release(&r);
}
