/*
 * test_runtime.c - Criterion tests of libspacert: value operations
 * against CPython 3.11's results, float repr, strings and bindings, the
 * sinks' exact bytes, the device-profile parser and the driver.
 *
 * The numeric tables were computed with CPython (an int result outside
 * the 64-bit range is SPRT_EOVERFLOW, a complex one SPRT_EVALUE).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <criterion/redirect.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spacert.h"

#define I(x) { SPRT_INT, 0, { .i = (x) }, 0, 0 }
#define B(x) { SPRT_BOOL, 0, { .i = (x) }, 0, 0 }
#define F(x) { SPRT_FLOAT, 0, { .f = (x) }, 0, 0 }
#define S(x) { SPRT_STR, 0, { .i = (x) }, 0, 0 }
#define NONE { SPRT_NONE, 0, { .i = 0 }, 0, 0 }
#define UNDEF { SPRT_UNDEF, 0, { .i = 0 }, 0, 0 }
#define R(a, b, c) { SPRT_RANGE, 0, { .i = (a) }, (b), (c) }

/* ---- a small hand-written space: what cgen would generate ------------------ */

static const char *const fake_strings[] = {
	"double", "single", "a,b", "say \"hi\"", "", "x", " -12 ", "1_000", "0x10", "1e3",
	" -Infinity ", "nan", "1__0", "12.5", "-", "9223372036854775808", "-9223372036854775808",
	".5", "5.", "1_0.2_5e1_0", "\xc3\xa9",
};

static const struct sprt_param_desc fake_params[] = {
	{ "x", SPRT_INT }, { "prec", SPRT_STR }, { "half", SPRT_FLOAT }, { "even", SPRT_BOOL },
};

enum { D_X, D_HALF, D_C1, D_SOFT };
static const struct sprt_def_desc fake_defs[] = {
	{ "x", SPRT_DEF_ITER, SPRT_HARD, false, 5, 0 },
	{ "half", SPRT_DEF_DERIVED, SPRT_HARD, false, 6, 0 },
	{ "not_one", SPRT_DEF_CONSTRAINT, SPRT_HARD, false, 7, 0 },
	{ "not_two", SPRT_DEF_CONSTRAINT, SPRT_SOFT, true, 8, 0 },
};

static const struct sprt_bindable_desc fake_bindables[] = {
	{ "n", false, "5" },
	{ "prec", true, "\"double\"" },
};

static bool on(const struct sprt_ctx *ctx, int d)
{
	return !(ctx->disabled && ctx->disabled[d]) &&
	       !(ctx->no_soft && fake_defs[d].cls == SPRT_SOFT);
}

/* for x in range(n): reject x == 1 (hard) and x == 2 (soft). */
static int fake_enumerate(struct sprt_ctx *ctx)
{
	sprt_val n = sprt_int(5), prec = sprt_str(0);
	bool found;
	if (sprt_binding_get(ctx, "n", &n, &found) || sprt_binding_get(ctx, "prec", &prec, &found))
		return -SPRT_ENOMEM;
	if (n.kind != SPRT_INT)
		return -SPRT_ETYPE;
	for (int64_t x = 0; x < n.u.i && !ctx->stop; x++) {
		ctx->candidates++;
		sprt_progress_tick(ctx, (double)x / (double)n.u.i);
		ctx->stats[D_X].evaluated++;
		ctx->stats[D_HALF].evaluated++;
		if (on(ctx, D_C1)) {
			ctx->stats[D_C1].evaluated++;
			if (x == 1) {
				ctx->stats[D_C1].rejected++;
				continue;
			}
		}
		if (on(ctx, D_SOFT)) {
			ctx->stats[D_SOFT].evaluated++;
			if (x == 2) {
				ctx->stats[D_SOFT].rejected++;
				continue;
			}
		}
		sprt_val pt[4] = { sprt_int(x), prec, sprt_float((double)x / 2.0), sprt_bool(x % 2 == 0) };
		ctx->valid++;
		if (ctx->emit && ctx->emit(ctx->emit_user, pt, 4))
			ctx->stop = true;
	}
	return 0;
}

static const struct sprt_space fake_space = {
	.abi_version = SPRT_ABI_VERSION,
	.name = "fake",
	.source_file = "fake.space",
	.doc = "A fake space for the runtime tests",
	.nparams = 4,
	.params = fake_params,
	.ndefs = 4,
	.defs = fake_defs,
	.nbindables = 2,
	.bindables = fake_bindables,
	.strings = { 21, fake_strings },
	.enumerate = fake_enumerate,
};

static struct sprt_ctx ctx;

static void ctx_setup(void)
{
	cr_assert_eq(sprt_ctx_init(&ctx, &fake_space), 0);
}

static void ctx_teardown(void)
{
	sprt_ctx_release(&ctx);
}

/* A value's repr (or JSON) into a static buffer. */
static const char *repr(sprt_val v, bool json)
{
	static char buf[4096];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	cr_assert(m);
	sprt_print_value(&ctx, m, v, json);
	fclose(m);
	return buf;
}

/* ---- binary operations ------------------------------------------------------ */

struct binop_case {
	char op;
	sprt_val a, b;
	int err;
	char want[48]; /* Python's repr of the result */
};

ParameterizedTestParameters(values, binop)
{
	static struct binop_case cases[] = {
	{ 'f', I(-7), I(2), SPRT_OK, "-4" }, /* -7 // 2 */
	{ '%', I(-7), I(2), SPRT_OK, "1" }, /* -7 % 2 */
	{ '%', I(7), I(-2), SPRT_OK, "-1" }, /* 7 % -2 */
	{ 'f', I(7), I(-2), SPRT_OK, "-4" }, /* 7 // -2 */
	{ 'f', F(0x1.e000000000000p+2), I(2), SPRT_OK, "3.0" }, /* 7.5 // 2 */
	{ '%', F(-0x1.e000000000000p+2), I(2), SPRT_OK, "0.5" }, /* -7.5 % 2 */
	{ 'p', I(2), I(-1), SPRT_OK, "0.5" }, /* 2 ** -1 */
	{ 'p', I(-8), F(0x1.5555555555555p-2), SPRT_EVALUE, "" }, /* -8 ** 0.3333333333333333 */
	{ 'p', I(2), I(63), SPRT_EOVERFLOW, "" }, /* 2 ** 63 */
	{ 'p', I(2), I(62), SPRT_OK, "4611686018427387904" }, /* 2 ** 62 */
	{ 'p', I(-2), I(63), SPRT_OK, "-9223372036854775808" }, /* -2 ** 63 */
	{ 'f', I(INT64_MIN), I(-1), SPRT_EOVERFLOW, "" }, /* -9223372036854775808 // -1 */
	{ '%', I(INT64_MIN), I(-1), SPRT_OK, "0" }, /* -9223372036854775808 % -1 */
	{ '/', I(1), I(0), SPRT_EZERODIV, "" }, /* 1 / 0 */
	{ 'f', I(1), I(0), SPRT_EZERODIV, "" }, /* 1 // 0 */
	{ '%', I(1), I(0), SPRT_EZERODIV, "" }, /* 1 % 0 */
	{ '/', F(1.0), F(0.0), SPRT_EZERODIV, "" }, /* 1.0 / 0.0 */
	{ 'f', F(1.0), F(0.0), SPRT_EZERODIV, "" }, /* 1.0 // 0.0 */
	{ '%', I(1), F(0.0), SPRT_EZERODIV, "" }, /* 1 % 0.0 */
	{ 'p', I(0), I(-1), SPRT_EZERODIV, "" }, /* 0 ** -1 */
	{ 'p', F(0.0), I(-1), SPRT_EZERODIV, "" }, /* 0.0 ** -1 */
	{ 'p', I(0), I(0), SPRT_OK, "1" }, /* 0 ** 0 */
	{ '+', I(INT64_C(9223372036854775807)), I(1), SPRT_EOVERFLOW, "" }, /* 9223372036854775807 + 1 */
	{ '-', I(INT64_MIN), I(1), SPRT_EOVERFLOW, "" }, /* -9223372036854775808 - 1 */
	{ '*', I(INT64_C(4294967296)), I(INT64_C(2147483648)), SPRT_EOVERFLOW, "" }, /* 4294967296 * 2147483648 */
	{ '*', I(INT64_C(-4294967296)), I(INT64_C(2147483648)), SPRT_OK, "-9223372036854775808" }, /* -4294967296 * 2147483648 */
	{ '*', I(3), I(-4), SPRT_OK, "-12" }, /* 3 * -4 */
	{ '+', B(1), B(1), SPRT_OK, "2" }, /* True + True */
	{ '*', B(1), F(0x1.4000000000000p+1), SPRT_OK, "2.5" }, /* True * 2.5 */
	{ '/', I(7), I(2), SPRT_OK, "3.5" }, /* 7 / 2 */
	{ '/', I(6), I(3), SPRT_OK, "2.0" }, /* 6 / 3 */
	{ '/', I(-1), I(3), SPRT_OK, "-0.3333333333333333" }, /* -1 / 3 */
	{ '/', I(INT64_C(9007199254740993)), I(1), SPRT_OK, "9007199254740992.0" }, /* 9007199254740993 / 1 */
	{ '/', I(INT64_C(9223372036854775807)), I(3), SPRT_OK, "3.0744573456182584e+18" }, /* 9223372036854775807 / 3 */
	{ '/', I(INT64_MIN), I(7), SPRT_OK, "-1.3176245766935393e+18" }, /* -9223372036854775808 / 7 */
	{ '/', I(1), I(INT64_C(9223372036854775807)), SPRT_OK, "1.0842021724855044e-19" }, /* 1 / 9223372036854775807 */
	{ '/', I(INT64_C(9223372036854775807)), I(INT64_MIN), SPRT_OK, "-1.0" }, /* 9223372036854775807 / -9223372036854775808 */
	{ '&', B(1), B(0), SPRT_OK, "False" }, /* True & False */
	{ '|', B(1), B(0), SPRT_OK, "True" }, /* True | False */
	{ '^', B(1), B(1), SPRT_OK, "False" }, /* True ^ True */
	{ '&', B(1), I(3), SPRT_OK, "1" }, /* True & 3 */
	{ '|', I(6), I(3), SPRT_OK, "7" }, /* 6 | 3 */
	{ '^', I(6), I(3), SPRT_OK, "5" }, /* 6 ^ 3 */
	{ '&', I(-1), I(255), SPRT_OK, "255" }, /* -1 & 255 */
	{ '|', F(1.0), I(2), SPRT_ETYPE, "" }, /* 1.0 | 2 */
	{ 'l', I(1), I(62), SPRT_OK, "4611686018427387904" }, /* 1 << 62 */
	{ 'l', I(1), I(63), SPRT_EOVERFLOW, "" }, /* 1 << 63 */
	{ 'l', I(-1), I(63), SPRT_OK, "-9223372036854775808" }, /* -1 << 63 */
	{ 'l', I(3), I(-1), SPRT_EVALUE, "" }, /* 3 << -1 */
	{ 'l', I(0), I(100), SPRT_OK, "0" }, /* 0 << 100 */
	{ 'r', I(-7), I(1), SPRT_OK, "-4" }, /* -7 >> 1 */
	{ 'r', I(-1), I(100), SPRT_OK, "-1" }, /* -1 >> 100 */
	{ 'r', I(5), I(64), SPRT_OK, "0" }, /* 5 >> 64 */
	{ 'r', I(7), I(-1), SPRT_EVALUE, "" }, /* 7 >> -1 */
	{ 'l', B(1), I(2), SPRT_OK, "4" }, /* True << 2 */
	{ 'p', F(2.0), I(1024), SPRT_EOVERFLOW, "" }, /* 2.0 ** 1024 */
	{ 'p', F(10.0), I(308), SPRT_OK, "1e+308" }, /* 10.0 ** 308 */
	{ 'p', F(-2.0), I(3), SPRT_OK, "-8.0" }, /* -2.0 ** 3 */
	{ 'p', F(-2.0), F(0x1.0000000000000p-1), SPRT_EVALUE, "" }, /* -2.0 ** 0.5 */
	{ 'p', F(-8.0), F(0x1.5555555555555p-2), SPRT_EVALUE, "" }, /* -8.0 ** 0.3333333333333333 */
	{ 'p', F(1.0), F(NAN), SPRT_OK, "1.0" }, /* 1.0 ** nan */
	{ 'p', F(NAN), I(0), SPRT_OK, "1.0" }, /* nan ** 0 */
	{ 'p', F(0.0), I(0), SPRT_OK, "1.0" }, /* 0.0 ** 0 */
	{ 'p', I(-1), I(-3), SPRT_OK, "-1.0" }, /* -1 ** -3 */
	{ 'p', I(3), I(4), SPRT_OK, "81" }, /* 3 ** 4 */
	{ 'p', I(10), I(18), SPRT_OK, "1000000000000000000" }, /* 10 ** 18 */
	{ 'p', I(10), I(19), SPRT_EOVERFLOW, "" }, /* 10 ** 19 */
	{ 'p', I(-10), I(19), SPRT_EOVERFLOW, "" }, /* -10 ** 19 */
	{ 'p', I(-3), I(3), SPRT_OK, "-27" }, /* -3 ** 3 */
	{ 'p', F(0x1.4000000000000p+1), I(2), SPRT_OK, "6.25" }, /* 2.5 ** 2 */
	{ 'p', I(4), F(0x1.0000000000000p-1), SPRT_OK, "2.0" }, /* 4 ** 0.5 */
	{ 'p', B(1), I(-1), SPRT_OK, "1.0" }, /* True ** -1 */
	{ 'p', I(2), I(-1074), SPRT_OK, "5e-324" }, /* 2 ** -1074 */
	{ 'p', I(2), I(-1080), SPRT_OK, "0.0" }, /* 2 ** -1080 */
	{ '%', F(0x1.6000000000000p+2), I(-2), SPRT_OK, "-0.5" }, /* 5.5 % -2 */
	{ 'f', F(-0x1.6000000000000p+2), I(2), SPRT_OK, "-3.0" }, /* -5.5 // 2 */
	{ '%', F(-0.0), I(1), SPRT_OK, "0.0" }, /* -0.0 % 1 */
	{ 'f', F(0.0), I(-1), SPRT_OK, "-0.0" }, /* 0.0 // -1 */
	{ '%', I(3), F(INFINITY), SPRT_OK, "3.0" }, /* 3 % inf */
	{ '%', I(-3), F(INFINITY), SPRT_OK, "inf" }, /* -3 % inf */
	{ 'f', I(-3), F(INFINITY), SPRT_OK, "-1.0" }, /* -3 // inf */
	{ '+', F(0x1.999999999999ap-4), F(0x1.999999999999ap-3), SPRT_OK, "0.30000000000000004" }, /* 0.1 + 0.2 */
	{ '-', F(0x1.1ccf385ebc8a0p+1023), F(-0x1.1ccf385ebc8a0p+1023), SPRT_OK, "inf" }, /* 1e+308 - -1e+308 */
	{ '*', F(0x1.4e718d7d7625ap+664), F(0x1.4e718d7d7625ap+664), SPRT_OK, "inf" }, /* 1e+200 * 1e+200 */
	{ '+', I(INT64_C(9007199254740992)), F(1.0), SPRT_OK, "9007199254740992.0" }, /* 9007199254740992 + 1.0 */
	{ '-', I(3), F(0x1.0000000000000p-1), SPRT_OK, "2.5" }, /* 3 - 0.5 */
	{ '%', I(7), F(0x1.4000000000000p+1), SPRT_OK, "2.0" }, /* 7 % 2.5 */
	{ 'f', I(7), F(0x1.4000000000000p+1), SPRT_OK, "2.0" }, /* 7 // 2.5 */
	{ '/', F(7.0), F(-0.0), SPRT_EZERODIV, "" }, /* 7.0 / -0.0 */
	{ '%', I(INT64_MIN), I(3), SPRT_OK, "1" }, /* -9223372036854775808 % 3 */
	{ 'f', I(INT64_MIN), I(3), SPRT_OK, "-3074457345618258603" }, /* -9223372036854775808 // 3 */
	{ '%', I(-1), I(INT64_MIN), SPRT_OK, "-1" }, /* -1 % -9223372036854775808 */
	{ 'f', I(-1), I(INT64_MIN), SPRT_OK, "0" }, /* -1 // -9223372036854775808 */
	{ '%', I(INT64_C(9223372036854775807)), I(-2), SPRT_OK, "-1" }, /* 9223372036854775807 % -2 */
	{ 'f', I(INT64_MIN), I(1), SPRT_OK, "-9223372036854775808" }, /* -9223372036854775808 // 1 */
	{ '&', F(0x1.8000000000000p+0), I(1), SPRT_ETYPE, "" }, /* 1.5 & 1 */
	{ 'l', F(1.0), I(1), SPRT_ETYPE, "" }, /* 1.0 << 1 */
	{ 'r', I(2), F(1.0), SPRT_ETYPE, "" }, /* 2 >> 1.0 */
	{ '^', F(0x1.8000000000000p+0), I(1), SPRT_ETYPE, "" }, /* 1.5 ^ 1 */
		/* Beyond CPython: strings and None do not do arithmetic. */
		{ '+', S(0), I(1), SPRT_ETYPE, "" },
		{ '+', NONE, I(1), SPRT_ETYPE, "" },
		{ '*', S(0), I(2), SPRT_ETYPE, "" },
		{ '+', UNDEF, I(1), SPRT_EUNDEF, "" },
		{ '+', I(1), R(0, 3, 1), SPRT_ETYPE, "" },
		{ '^', R(0, 3, 1), R(0, 3, 1), SPRT_ETYPE, "" },
	};
	return cr_make_param_array(struct binop_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct binop_case *c, values, binop, .init = ctx_setup, .fini = ctx_teardown)
{
	struct sprt_vec scratch = { 0 };
	sprt_val out = sprt_undef();
	int err = sprt_binop(&ctx, c->op, c->a, c->b, &out, &scratch);
	cr_assert_eq(err, c->err, "op '%c': error %d, want %d", c->op, err, c->err);
	if (!err)
		cr_assert_str_eq(repr(out, false), c->want, "op '%c'", c->op);
	/* The inline fast path must agree exactly. */
	sprt_val fast = sprt_undef();
	int ferr = sprt_op(&ctx, c->op, c->a, c->b, &fast, &scratch);
	cr_assert_eq(ferr, err);
	if (!err)
		cr_assert_str_eq(repr(fast, false), c->want);
	sprt_vec_free(&scratch);
}

/* ---- comparisons -------------------------------------------------------------- */

struct cmp_case {
	char op;
	sprt_val a, b;
	int err;
	int want;
};

ParameterizedTestParameters(values, compare)
{
	static struct cmp_case cases[] = {
	{ '<', I(INT64_C(9007199254740993)), F(0x1.0000000000000p+53), SPRT_OK, 0 }, /* 9007199254740993 < 9007199254740992.0 */
	{ 'l', I(INT64_C(9007199254740993)), F(0x1.0000000000000p+53), SPRT_OK, 0 }, /* 9007199254740993 <= 9007199254740992.0 */
	{ '>', I(INT64_C(9007199254740993)), F(0x1.0000000000000p+53), SPRT_OK, 1 }, /* 9007199254740993 > 9007199254740992.0 */
	{ 'g', I(INT64_C(9007199254740993)), F(0x1.0000000000000p+53), SPRT_OK, 1 }, /* 9007199254740993 >= 9007199254740992.0 */
	{ '=', I(INT64_C(9007199254740993)), F(0x1.0000000000000p+53), SPRT_OK, 0 }, /* 9007199254740993 == 9007199254740992.0 */
	{ '!', I(INT64_C(9007199254740993)), F(0x1.0000000000000p+53), SPRT_OK, 1 }, /* 9007199254740993 != 9007199254740992.0 */
	{ '<', I(INT64_C(9007199254740992)), F(0x1.0000000000000p+53), SPRT_OK, 0 }, /* 9007199254740992 < 9007199254740992.0 */
	{ 'l', I(INT64_C(9007199254740992)), F(0x1.0000000000000p+53), SPRT_OK, 1 }, /* 9007199254740992 <= 9007199254740992.0 */
	{ '>', I(INT64_C(9007199254740992)), F(0x1.0000000000000p+53), SPRT_OK, 0 }, /* 9007199254740992 > 9007199254740992.0 */
	{ 'g', I(INT64_C(9007199254740992)), F(0x1.0000000000000p+53), SPRT_OK, 1 }, /* 9007199254740992 >= 9007199254740992.0 */
	{ '=', I(INT64_C(9007199254740992)), F(0x1.0000000000000p+53), SPRT_OK, 1 }, /* 9007199254740992 == 9007199254740992.0 */
	{ '!', I(INT64_C(9007199254740992)), F(0x1.0000000000000p+53), SPRT_OK, 0 }, /* 9007199254740992 != 9007199254740992.0 */
	{ '<', I(INT64_C(9223372036854775807)), F(0x1.0000000000000p+63), SPRT_OK, 1 }, /* 9223372036854775807 < 9.223372036854776e+18 */
	{ 'l', I(INT64_C(9223372036854775807)), F(0x1.0000000000000p+63), SPRT_OK, 1 }, /* 9223372036854775807 <= 9.223372036854776e+18 */
	{ '>', I(INT64_C(9223372036854775807)), F(0x1.0000000000000p+63), SPRT_OK, 0 }, /* 9223372036854775807 > 9.223372036854776e+18 */
	{ 'g', I(INT64_C(9223372036854775807)), F(0x1.0000000000000p+63), SPRT_OK, 0 }, /* 9223372036854775807 >= 9.223372036854776e+18 */
	{ '=', I(INT64_C(9223372036854775807)), F(0x1.0000000000000p+63), SPRT_OK, 0 }, /* 9223372036854775807 == 9.223372036854776e+18 */
	{ '!', I(INT64_C(9223372036854775807)), F(0x1.0000000000000p+63), SPRT_OK, 1 }, /* 9223372036854775807 != 9.223372036854776e+18 */
	{ '<', I(INT64_MIN), F(-0x1.0000000000000p+63), SPRT_OK, 0 }, /* -9223372036854775808 < -9.223372036854776e+18 */
	{ 'l', I(INT64_MIN), F(-0x1.0000000000000p+63), SPRT_OK, 1 }, /* -9223372036854775808 <= -9.223372036854776e+18 */
	{ '>', I(INT64_MIN), F(-0x1.0000000000000p+63), SPRT_OK, 0 }, /* -9223372036854775808 > -9.223372036854776e+18 */
	{ 'g', I(INT64_MIN), F(-0x1.0000000000000p+63), SPRT_OK, 1 }, /* -9223372036854775808 >= -9.223372036854776e+18 */
	{ '=', I(INT64_MIN), F(-0x1.0000000000000p+63), SPRT_OK, 1 }, /* -9223372036854775808 == -9.223372036854776e+18 */
	{ '!', I(INT64_MIN), F(-0x1.0000000000000p+63), SPRT_OK, 0 }, /* -9223372036854775808 != -9.223372036854776e+18 */
	{ '<', I(1), F(NAN), SPRT_OK, 0 }, /* 1 < nan */
	{ 'l', I(1), F(NAN), SPRT_OK, 0 }, /* 1 <= nan */
	{ '>', I(1), F(NAN), SPRT_OK, 0 }, /* 1 > nan */
	{ 'g', I(1), F(NAN), SPRT_OK, 0 }, /* 1 >= nan */
	{ '=', I(1), F(NAN), SPRT_OK, 0 }, /* 1 == nan */
	{ '!', I(1), F(NAN), SPRT_OK, 1 }, /* 1 != nan */
	{ '<', F(NAN), F(NAN), SPRT_OK, 0 }, /* nan < nan */
	{ 'l', F(NAN), F(NAN), SPRT_OK, 0 }, /* nan <= nan */
	{ '>', F(NAN), F(NAN), SPRT_OK, 0 }, /* nan > nan */
	{ 'g', F(NAN), F(NAN), SPRT_OK, 0 }, /* nan >= nan */
	{ '=', F(NAN), F(NAN), SPRT_OK, 0 }, /* nan == nan */
	{ '!', F(NAN), F(NAN), SPRT_OK, 1 }, /* nan != nan */
	{ '<', B(1), I(1), SPRT_OK, 0 }, /* True < 1 */
	{ 'l', B(1), I(1), SPRT_OK, 1 }, /* True <= 1 */
	{ '>', B(1), I(1), SPRT_OK, 0 }, /* True > 1 */
	{ 'g', B(1), I(1), SPRT_OK, 1 }, /* True >= 1 */
	{ '=', B(1), I(1), SPRT_OK, 1 }, /* True == 1 */
	{ '!', B(1), I(1), SPRT_OK, 0 }, /* True != 1 */
	{ '<', B(1), F(1.0), SPRT_OK, 0 }, /* True < 1.0 */
	{ 'l', B(1), F(1.0), SPRT_OK, 1 }, /* True <= 1.0 */
	{ '>', B(1), F(1.0), SPRT_OK, 0 }, /* True > 1.0 */
	{ 'g', B(1), F(1.0), SPRT_OK, 1 }, /* True >= 1.0 */
	{ '=', B(1), F(1.0), SPRT_OK, 1 }, /* True == 1.0 */
	{ '!', B(1), F(1.0), SPRT_OK, 0 }, /* True != 1.0 */
	{ '<', I(0), F(-0.0), SPRT_OK, 0 }, /* 0 < -0.0 */
	{ 'l', I(0), F(-0.0), SPRT_OK, 1 }, /* 0 <= -0.0 */
	{ '>', I(0), F(-0.0), SPRT_OK, 0 }, /* 0 > -0.0 */
	{ 'g', I(0), F(-0.0), SPRT_OK, 1 }, /* 0 >= -0.0 */
	{ '=', I(0), F(-0.0), SPRT_OK, 1 }, /* 0 == -0.0 */
	{ '!', I(0), F(-0.0), SPRT_OK, 0 }, /* 0 != -0.0 */
	{ '<', I(3), F(0x1.c000000000000p+1), SPRT_OK, 1 }, /* 3 < 3.5 */
	{ 'l', I(3), F(0x1.c000000000000p+1), SPRT_OK, 1 }, /* 3 <= 3.5 */
	{ '>', I(3), F(0x1.c000000000000p+1), SPRT_OK, 0 }, /* 3 > 3.5 */
	{ 'g', I(3), F(0x1.c000000000000p+1), SPRT_OK, 0 }, /* 3 >= 3.5 */
	{ '=', I(3), F(0x1.c000000000000p+1), SPRT_OK, 0 }, /* 3 == 3.5 */
	{ '!', I(3), F(0x1.c000000000000p+1), SPRT_OK, 1 }, /* 3 != 3.5 */
	{ '<', I(-3), F(-0x1.c000000000000p+1), SPRT_OK, 0 }, /* -3 < -3.5 */
	{ 'l', I(-3), F(-0x1.c000000000000p+1), SPRT_OK, 0 }, /* -3 <= -3.5 */
	{ '>', I(-3), F(-0x1.c000000000000p+1), SPRT_OK, 1 }, /* -3 > -3.5 */
	{ 'g', I(-3), F(-0x1.c000000000000p+1), SPRT_OK, 1 }, /* -3 >= -3.5 */
	{ '=', I(-3), F(-0x1.c000000000000p+1), SPRT_OK, 0 }, /* -3 == -3.5 */
	{ '!', I(-3), F(-0x1.c000000000000p+1), SPRT_OK, 1 }, /* -3 != -3.5 */
	{ '<', I(INT64_C(9223372036854775807)), F(0x1.fffffffffffffp+62), SPRT_OK, 0 }, /* 9223372036854775807 < 9.223372036854775e+18 */
	{ 'l', I(INT64_C(9223372036854775807)), F(0x1.fffffffffffffp+62), SPRT_OK, 0 }, /* 9223372036854775807 <= 9.223372036854775e+18 */
	{ '>', I(INT64_C(9223372036854775807)), F(0x1.fffffffffffffp+62), SPRT_OK, 1 }, /* 9223372036854775807 > 9.223372036854775e+18 */
	{ 'g', I(INT64_C(9223372036854775807)), F(0x1.fffffffffffffp+62), SPRT_OK, 1 }, /* 9223372036854775807 >= 9.223372036854775e+18 */
	{ '=', I(INT64_C(9223372036854775807)), F(0x1.fffffffffffffp+62), SPRT_OK, 0 }, /* 9223372036854775807 == 9.223372036854775e+18 */
	{ '!', I(INT64_C(9223372036854775807)), F(0x1.fffffffffffffp+62), SPRT_OK, 1 }, /* 9223372036854775807 != 9.223372036854775e+18 */
	{ '<', I(INT64_C(-4611686018427387905)), F(-0x1.0000000000000p+62), SPRT_OK, 1 }, /* -4611686018427387905 < -4.611686018427388e+18 */
	{ 'l', I(INT64_C(-4611686018427387905)), F(-0x1.0000000000000p+62), SPRT_OK, 1 }, /* -4611686018427387905 <= -4.611686018427388e+18 */
	{ '>', I(INT64_C(-4611686018427387905)), F(-0x1.0000000000000p+62), SPRT_OK, 0 }, /* -4611686018427387905 > -4.611686018427388e+18 */
	{ 'g', I(INT64_C(-4611686018427387905)), F(-0x1.0000000000000p+62), SPRT_OK, 0 }, /* -4611686018427387905 >= -4.611686018427388e+18 */
	{ '=', I(INT64_C(-4611686018427387905)), F(-0x1.0000000000000p+62), SPRT_OK, 0 }, /* -4611686018427387905 == -4.611686018427388e+18 */
	{ '!', I(INT64_C(-4611686018427387905)), F(-0x1.0000000000000p+62), SPRT_OK, 1 }, /* -4611686018427387905 != -4.611686018427388e+18 */
	{ '<', F(0x1.8000000000000p+0), I(1), SPRT_OK, 0 }, /* 1.5 < 1 */
	{ 'l', F(0x1.8000000000000p+0), I(1), SPRT_OK, 0 }, /* 1.5 <= 1 */
	{ '>', F(0x1.8000000000000p+0), I(1), SPRT_OK, 1 }, /* 1.5 > 1 */
	{ 'g', F(0x1.8000000000000p+0), I(1), SPRT_OK, 1 }, /* 1.5 >= 1 */
	{ '=', F(0x1.8000000000000p+0), I(1), SPRT_OK, 0 }, /* 1.5 == 1 */
	{ '!', F(0x1.8000000000000p+0), I(1), SPRT_OK, 1 }, /* 1.5 != 1 */
	{ '<', F(INFINITY), I(INT64_C(9223372036854775807)), SPRT_OK, 0 }, /* inf < 9223372036854775807 */
	{ 'l', F(INFINITY), I(INT64_C(9223372036854775807)), SPRT_OK, 0 }, /* inf <= 9223372036854775807 */
	{ '>', F(INFINITY), I(INT64_C(9223372036854775807)), SPRT_OK, 1 }, /* inf > 9223372036854775807 */
	{ 'g', F(INFINITY), I(INT64_C(9223372036854775807)), SPRT_OK, 1 }, /* inf >= 9223372036854775807 */
	{ '=', F(INFINITY), I(INT64_C(9223372036854775807)), SPRT_OK, 0 }, /* inf == 9223372036854775807 */
	{ '!', F(INFINITY), I(INT64_C(9223372036854775807)), SPRT_OK, 1 }, /* inf != 9223372036854775807 */
	{ '<', F(-INFINITY), I(INT64_MIN), SPRT_OK, 1 }, /* -inf < -9223372036854775808 */
	{ 'l', F(-INFINITY), I(INT64_MIN), SPRT_OK, 1 }, /* -inf <= -9223372036854775808 */
	{ '>', F(-INFINITY), I(INT64_MIN), SPRT_OK, 0 }, /* -inf > -9223372036854775808 */
	{ 'g', F(-INFINITY), I(INT64_MIN), SPRT_OK, 0 }, /* -inf >= -9223372036854775808 */
	{ '=', F(-INFINITY), I(INT64_MIN), SPRT_OK, 0 }, /* -inf == -9223372036854775808 */
	{ '!', F(-INFINITY), I(INT64_MIN), SPRT_OK, 1 }, /* -inf != -9223372036854775808 */
	{ '<', I(5), I(5), SPRT_OK, 0 }, /* 5 < 5 */
	{ 'l', I(5), I(5), SPRT_OK, 1 }, /* 5 <= 5 */
	{ '>', I(5), I(5), SPRT_OK, 0 }, /* 5 > 5 */
	{ 'g', I(5), I(5), SPRT_OK, 1 }, /* 5 >= 5 */
	{ '=', I(5), I(5), SPRT_OK, 1 }, /* 5 == 5 */
	{ '!', I(5), I(5), SPRT_OK, 0 }, /* 5 != 5 */
		/* Strings compare by text, whatever their ids (4 is "", 5 is "x"). */
		{ '<', S(0), S(1), SPRT_OK, 1 },   /* 'double' < 'single' */
		{ '=', S(0), S(0), SPRT_OK, 1 },
		{ '<', S(4), S(5), SPRT_OK, 1 },
		{ 'g', S(5), S(5), SPRT_OK, 1 },
		/* Mixed kinds: == is False, != True, ordering a TypeError. */
		{ '=', S(0), I(0), SPRT_OK, 0 },
		{ '!', S(0), I(0), SPRT_OK, 1 },
		{ '<', S(0), I(0), SPRT_ETYPE, 0 },
		{ '=', NONE, NONE, SPRT_OK, 1 },
		{ '=', NONE, I(0), SPRT_OK, 0 },
		{ '<', NONE, I(0), SPRT_ETYPE, 0 },
		{ '<', R(0, 3, 1), R(0, 4, 1), SPRT_ETYPE, 0 },
		{ '=', UNDEF, I(0), SPRT_EUNDEF, 0 },
		/* Ranges: equal as sequences; membership arithmetically. */
		{ '=', R(0, 3, 1), R(0, 3, 1), SPRT_OK, 1 },
		{ '=', R(0, 0, 1), R(5, 2, 1), SPRT_OK, 1 },
		{ '=', R(0, 1, 1), R(0, 1, 7), SPRT_OK, 1 },
		{ '=', R(0, 4, 2), R(0, 3, 2), SPRT_OK, 1 },
		{ '=', R(0, 4, 1), R(0, 4, 2), SPRT_OK, 0 },
		{ 'i', I(4), R(0, 10, 2), SPRT_OK, 1 },
		{ 'i', I(5), R(0, 10, 2), SPRT_OK, 0 },
		{ 'i', I(10), R(0, 10, 2), SPRT_OK, 0 },
		{ 'i', I(-1), R(0, 10, 2), SPRT_OK, 0 },
		{ 'i', I(7), R(10, 0, -3), SPRT_OK, 1 },
		{ 'i', I(0), R(10, 0, -3), SPRT_OK, 0 },
		{ 'i', I(1), R(10, 0, -3), SPRT_OK, 1 },
		{ 'n', I(1), R(10, 0, -3), SPRT_OK, 0 },
		{ 'i', F(4.0), R(0, 10, 2), SPRT_OK, 1 },
		{ 'i', F(4.5), R(0, 10, 2), SPRT_OK, 0 },
		{ 'i', F(NAN), R(0, 10, 2), SPRT_OK, 0 },
		{ 'i', B(1), R(0, 2, 1), SPRT_OK, 1 },
		{ 'i', S(0), R(0, 2, 1), SPRT_OK, 0 },
		{ 'i', I(INT64_MAX - 3), R(INT64_MIN, INT64_MAX, 3), SPRT_OK, 1 },
		{ 'i', I(INT64_MAX - 1), R(INT64_MIN, INT64_MAX, 3), SPRT_OK, 0 },
		{ 'i', I(INT64_MIN + 2), R(INT64_MAX, INT64_MIN, INT64_MIN), SPRT_OK, 0 },
		{ 'i', I(-1), R(INT64_MAX, INT64_MIN, INT64_MIN), SPRT_OK, 1 },
		{ 'i', S(5), S(3), SPRT_OK, 0 },   /* 'x' in 'say "hi"' */
		{ 'i', S(4), S(3), SPRT_OK, 1 },   /* '' in ... */
		{ 'i', I(1), I(3), SPRT_ETYPE, 0 },
		{ 'i', I(1), S(3), SPRT_ETYPE, 0 },
	};
	return cr_make_param_array(struct cmp_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct cmp_case *c, values, compare, .init = ctx_setup, .fini = ctx_teardown)
{
	bool r = false;
	int err = sprt_compare(&ctx, c->op, c->a, c->b, &r);
	cr_assert_eq(err, c->err, "op '%c': error %d, want %d", c->op, err, c->err);
	if (!err)
		cr_assert_eq(r, (bool)c->want, "op '%c'", c->op);
	bool f = false;
	cr_assert_eq(sprt_cmp(&ctx, c->op, c->a, c->b, &f), err);
	if (!err)
		cr_assert_eq(f, r);
}

/* ---- float repr ----------------------------------------------------------------- */

struct repr_case {
	sprt_val v;
	char want[40];
};

ParameterizedTestParameters(values, float_repr)
{
	static struct repr_case cases[] = {
	{ F(0x1.999999999999ap-4), "0.1" },
	{ F(0x1.1c37937e08000p+53), "1e+16" },
	{ F(1.0), "1.0" },
	{ F(0x1.4000000000000p+1), "2.5" },
	{ F(0x1.4f8b588e368f1p-17), "1e-05" },
	{ F(0x1.a36e2eb1c432dp-14), "0.0001" },
	{ F(1000000000000000.0), "1000000000000000.0" },
	{ F(0x1.b69b4ba630f35p+56), "1.2345678901234568e+17" },
	{ F(0x1.0f0cf064dd592p+73), "1e+22" },
	{ F(0x1.ad7f29abcaf48p-24), "1e-07" },
	{ F(-0.0), "-0.0" },
	{ F(0.0), "0.0" },
	{ F(INFINITY), "inf" },
	{ F(-INFINITY), "-inf" },
	{ F(NAN), "nan" },
	{ F(0x0.0000000000001p-1022), "5e-324" },
	{ F(0x1.fffffffffffffp+1023), "1.7976931348623157e+308" },
	{ F(0x1.0000000000000p-1022), "2.2250738585072014e-308" },
	{ F(0x1.0000000000000p+53), "9007199254740992.0" },
	{ F(0x1.3333333333333p-2), "0.3" },
	{ F(0x1.5555555555555p-1), "0.6666666666666666" },
	{ F(100.0), "100.0" },
	{ F(0x1.249ad2594c37dp+332), "1e+100" },
	{ F(0x1.edd2f1a9fbe77p+6), "123.456" },
	{ F(-0x1.49da7e361ce4cp-33), "-1.5e-10" },
	{ F(0x1.18b54f22aeb03p+50), "1234567890123456.8" },
	{ F(0x1.1c37937e07fffp+53), "9999999999999998.0" },
	{ F(-0x1.58139e19f26a6p+18), "-352334.4703336753" },
	{ F(-0x1.54f7b4de6bc41p+19), "-698301.6521509961" },
	{ F(0x1.26cb3c8c91e6cp+18), "301868.9460797075" },
	{ F(-0x1.a18aeda73d2dcp+19), "-855127.4266649145" },
	{ F(0x1.185402347c830p+16), "71764.00861337851" },
	{ F(-0x1.06538aa29bbfep+18), "-268622.1661748289" },
	{ F(-0x1.afa444d07dbf8p+19), "-884002.1504505863" },
	{ F(0x1.d0bbbb24d45c0p+13), "14871.466378840501" },
	{ F(0x1.332a1858028d0p-117), "7.221401137793473e-36" },
	{ F(0x1.ac355208f105cp-510), "4.990192622755446e-154" },
	{ F(0x1.738f7d1a22dd8p-135), "3.33226983536813e-41" },
	{ F(0x1.e43bb74eb2520p+153), "2.1597525354475235e+46" },
	{ F(0x1.fb17c3e518208p-547), "4.299717067949787e-165" },
	{ F(0x1.42e1666827ddap+192), "7.917006060039003e+57" },
	{ F(0x1.e53a1b43f58c3p+180), "2.904719456708177e+54" },
	{ F(0x1.2bcc15d963368p-900), "1.385452120291826e-271" },
	};
	return cr_make_param_array(struct repr_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct repr_case *c, values, float_repr, .init = ctx_setup, .fini = ctx_teardown)
{
	cr_assert_str_eq(repr(c->v, false), c->want);
	if (isfinite(c->v.u.f))
		cr_assert_str_eq(repr(c->v, true), c->want);
	else
		cr_assert_str_eq(repr(c->v, true), "null");
}

/* ---- unary operations and builtins -------------------------------------------------- */

struct un_case {
	char fn; /* n: -x, p: +x, ~, a: abs, i: int, f: float, l: len, s: sum, t: truthy */
	sprt_val a;
	int err;
	char want[48];
};

ParameterizedTestParameters(values, unary)
{
	/* String ids: see fake_strings. */
	static struct un_case cases[] = {
		{ 'n', I(INT64_MIN), SPRT_EOVERFLOW, "" },
		{ 'n', I(INT64_MAX), SPRT_OK, "-9223372036854775807" },
		{ 'n', B(1), SPRT_OK, "-1" },
		{ 'n', F(2.5), SPRT_OK, "-2.5" },
		{ 'n', F(0.0), SPRT_OK, "-0.0" },
		{ 'n', S(0), SPRT_ETYPE, "" },
		{ 'p', B(1), SPRT_OK, "1" },
		{ 'p', F(-0.0), SPRT_OK, "-0.0" },
		{ '~', I(5), SPRT_OK, "-6" },
		{ '~', B(1), SPRT_OK, "-2" },
		{ '~', I(INT64_MIN), SPRT_OK, "9223372036854775807" },
		{ '~', F(1.5), SPRT_ETYPE, "" },
		{ 'a', I(INT64_MIN), SPRT_EOVERFLOW, "" },
		{ 'a', I(-3), SPRT_OK, "3" },
		{ 'a', F(-2.5), SPRT_OK, "2.5" },
		{ 'a', F(-0.0), SPRT_OK, "0.0" },
		{ 'a', B(1), SPRT_OK, "1" },
		{ 'a', NONE, SPRT_ETYPE, "" },
		{ 'i', F(-2.7), SPRT_OK, "-2" },
		{ 'i', F(2.7), SPRT_OK, "2" },
		{ 'i', F(-0.5), SPRT_OK, "0" },
		{ 'i', F(NAN), SPRT_EVALUE, "" },
		{ 'i', F(INFINITY), SPRT_EOVERFLOW, "" },
		{ 'i', F(-INFINITY), SPRT_EOVERFLOW, "" },
		{ 'i', F(1e19), SPRT_EOVERFLOW, "" },
		{ 'i', F(9223372036854775808.0), SPRT_EOVERFLOW, "" },
		{ 'i', F(-9223372036854775808.0), SPRT_OK, "-9223372036854775808" },
		{ 'i', B(1), SPRT_OK, "1" },
		{ 'i', S(6), SPRT_OK, "-12" },
		{ 'i', S(7), SPRT_OK, "1000" },
		{ 'i', S(8), SPRT_EVALUE, "" },
		{ 'i', S(9), SPRT_EVALUE, "" },
		{ 'i', S(12), SPRT_EVALUE, "" },
		{ 'i', S(13), SPRT_EVALUE, "" },
		{ 'i', S(14), SPRT_EVALUE, "" },
		{ 'i', S(4), SPRT_EVALUE, "" },
		{ 'i', S(15), SPRT_EOVERFLOW, "" },
		{ 'i', S(16), SPRT_OK, "-9223372036854775808" },
		{ 'i', NONE, SPRT_ETYPE, "" },
		{ 'f', I(INT64_MAX), SPRT_OK, "9.223372036854776e+18" },
		{ 'f', B(1), SPRT_OK, "1.0" },
		{ 'f', S(6), SPRT_OK, "-12.0" },
		{ 'f', S(7), SPRT_EVALUE, "" },     /* Python: 1000.0; interp.c rejects '_' */
		{ 'f', S(9), SPRT_OK, "1000.0" },
		{ 'f', S(10), SPRT_OK, "-inf" },
		{ 'f', S(11), SPRT_OK, "nan" },
		{ 'f', S(17), SPRT_OK, "0.5" },
		{ 'f', S(18), SPRT_OK, "5.0" },
		{ 'f', S(19), SPRT_EVALUE, "" },
		{ 'f', S(8), SPRT_EVALUE, "" },
		{ 'f', S(12), SPRT_EVALUE, "" },
		{ 'f', S(14), SPRT_EVALUE, "" },
		{ 'f', S(4), SPRT_EVALUE, "" },
		{ 'l', S(3), SPRT_OK, "8" },
		{ 'l', S(20), SPRT_OK, "1" },   /* code points, as Python and interp.c */
		{ 'l', R(0, 10, 3), SPRT_OK, "4" },
		{ 'l', R(10, 0, 1), SPRT_OK, "0" },
		{ 'l', R(INT64_MIN, INT64_MAX, 1), SPRT_EOVERFLOW, "" },
		{ 'l', I(5), SPRT_ETYPE, "" },
		{ 's', R(1, 101, 1), SPRT_OK, "5050" },
		{ 's', R(10, 0, -3), SPRT_OK, "22" },
		{ 's', R(0, 0, 1), SPRT_OK, "0" },
		{ 's', R(0, INT64_MAX, 1), SPRT_EOVERFLOW, "" },
		{ 's', R(INT64_MIN, INT64_MAX, INT64_MAX), SPRT_OK, "-3" },
		{ 's', I(3), SPRT_ETYPE, "" },
		{ 't', S(4), SPRT_OK, "False" },
		{ 't', S(0), SPRT_OK, "True" },
		{ 't', R(0, 0, 1), SPRT_OK, "False" },
		{ 't', R(0, 1, 1), SPRT_OK, "True" },
		{ 't', F(0.0), SPRT_OK, "False" },
		{ 't', F(NAN), SPRT_OK, "True" },
		{ 't', NONE, SPRT_OK, "False" },
		{ 't', I(-1), SPRT_OK, "True" },
	};
	return cr_make_param_array(struct un_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct un_case *c, values, unary, .init = ctx_setup, .fini = ctx_teardown)
{
	sprt_val out = sprt_undef();
	int err;
	switch (c->fn) {
	case 'n': err = sprt_neg(c->a, &out); break;
	case 'p': err = sprt_pos(c->a, &out); break;
	case '~': err = sprt_invert(c->a, &out); break;
	case 'a': err = sprt_builtin_abs(c->a, &out); break;
	case 'i': err = sprt_builtin_int(&ctx, &c->a, 1, &out); break;
	case 'f': err = sprt_builtin_float(&ctx, &c->a, 1, &out); break;
	case 'l': err = sprt_builtin_len(&ctx, c->a, &out); break;
	case 's': err = sprt_builtin_sum(c->a, &out); break;
	default: err = 0; out = sprt_bool(sprt_truthy_ctx(&ctx, c->a)); break;
	}
	cr_assert_eq(err, c->err, "fn '%c': error %d, want %d", c->fn, err, c->err);
	if (!err)
		cr_assert_str_eq(repr(out, false), c->want, "fn '%c'", c->fn);
}

/* int(), float() and bool() take zero arguments or one, as in Python. */
Test(values, conversions_arity, .init = ctx_setup, .fini = ctx_teardown)
{
	const sprt_val two[2] = { sprt_int(1), sprt_int(2) };
	sprt_val out = sprt_undef();
	cr_assert_eq(sprt_builtin_int(&ctx, two, 0, &out), SPRT_OK);
	cr_assert_str_eq(repr(out, false), "0");
	cr_assert_eq(sprt_builtin_float(&ctx, two, 0, &out), SPRT_OK);
	cr_assert_str_eq(repr(out, false), "0.0");
	cr_assert_eq(sprt_builtin_bool(two, 0, &out), SPRT_OK);
	cr_assert_str_eq(repr(out, false), "False");
	cr_assert_eq(sprt_builtin_int(&ctx, two, 2, &out), SPRT_ETYPE);
	cr_assert_eq(sprt_builtin_float(&ctx, two, 2, &out), SPRT_ETYPE);
	cr_assert_eq(sprt_builtin_bool(two, 2, &out), SPRT_ETYPE);
}

/* ---- iterables -------------------------------------------------------------------------- */

static struct sprt_vec va, vb, scratch;

static sprt_val vec(struct sprt_vec *v, int n, const sprt_val *items)
{
	sprt_vec_clear(v);
	for (int i = 0; i < n; i++)
		cr_assert_eq(sprt_vec_push(v, items[i]), 0);
	return sprt_vecval(v);
}

#define VEC(v, ...) vec(v, (int)(sizeof((sprt_val[]){ __VA_ARGS__ }) / sizeof(sprt_val)), \
			(sprt_val[]){ __VA_ARGS__ })

#define XI(x) ((sprt_val)I(x))
#define XB(x) ((sprt_val)B(x))
#define XF(x) ((sprt_val)F(x))
#define XS(x) ((sprt_val)S(x))
#define XR(a, b, c) ((sprt_val)R(a, b, c))

static const char *op_repr(int op, sprt_val a, sprt_val b, int want_err)
{
	sprt_val out = sprt_undef();
	int err = sprt_op(&ctx, op, a, b, &out, &scratch);
	cr_assert_eq(err, want_err, "op '%c': error %d, want %d", op, err, want_err);
	return err ? "" : repr(out, false);
}

static void iter_teardown(void)
{
	sprt_vec_free(&va);
	sprt_vec_free(&vb);
	sprt_vec_free(&scratch);
	ctx_teardown();
}

TestSuite(iter, .init = ctx_setup, .fini = iter_teardown);

Test(iter, set_algebra)
{
	sprt_val a = VEC(&va, XI(3), XI(1), XI(2)), b = VEC(&vb, XI(2), XI(5));
	cr_assert_str_eq(op_repr('|', a, b, 0), "[1, 2, 3, 5]");
	cr_assert_str_eq(op_repr('&', a, b, 0), "[2]");
	cr_assert_str_eq(op_repr('-', a, b, 0), "[1, 3]");
	cr_assert_str_eq(op_repr('-', b, a, 0), "[5]");
	cr_assert_str_eq(op_repr('+', a, b, 0), "[3, 1, 2, 2, 5]");
	/* Equal numbers merge; the first one seen stays (1, not 1.0 or True). */
	a = VEC(&va, XI(1), XF(2.0), XB(1));
	b = VEC(&vb, XF(1.0), XI(2), XF(0.5));
	cr_assert_str_eq(op_repr('|', a, b, 0), "[0.5, 1, 2.0]");
	cr_assert_str_eq(op_repr('&', a, b, 0), "[1, 2.0]");
	cr_assert_str_eq(op_repr('&', b, a, 0), "[1.0, 2]");
	/* Ranges, lazily where they are the right operand. */
	a = VEC(&va, XI(1), XI(4));
	sprt_val r = sprt_undef();
	sprt_val args[3] = { sprt_int(0), sprt_int(10), sprt_int(3) };
	cr_assert_eq(sprt_builtin_range(args, 3, &r), 0);
	cr_assert_str_eq(op_repr('|', r, a, 0), "[0, 1, 3, 4, 6, 9]");
	cr_assert_str_eq(op_repr('|', a, r, 0), "[0, 1, 3, 4, 6, 9]");
	cr_assert_str_eq(op_repr('-', r, a, 0), "[0, 3, 6, 9]");
	sprt_val down = XR(10, 0, -2), up = XR(0, 7, 1), huge = XR(0, INT64_C(1000000000000), 1);
	cr_assert_str_eq(op_repr('&', down, up, 0), "[2, 4, 6]");
	cr_assert_str_eq(op_repr('-', down, up, 0), "[8, 10]");
	cr_assert_str_eq(op_repr('|', down, VEC(&va, XI(3)), 0), "[2, 3, 4, 6, 8, 10]");
	a = VEC(&va, XI(5), XF(2.0), XI(-100), XF(2.5));
	cr_assert_str_eq(op_repr('&', a, huge, 0), "[2.0, 5]");
	cr_assert_str_eq(op_repr('&', huge, a, 0), "[2.0, 5]"); /* as lang/interp.c */
	cr_assert_str_eq(op_repr('-', a, huge, 0), "[-100, 2.5]");
	cr_assert_str_eq(op_repr('-', huge, a, SPRT_ENOMEM), "");
	cr_assert_str_eq(op_repr('|', huge, a, SPRT_ENOMEM), "");
	cr_assert_str_eq(op_repr('&', XR(5, 20, 7), huge, 0), "[5, 12, 19]");
	op_repr('&', huge, XR(5, 20, 7), SPRT_ENOMEM); /* the left side is listed */
	/* Strings sort by text; mixing with numbers is a type error. */
	a = VEC(&va, XS(5), XS(0), XS(5));
	b = VEC(&vb, XS(2));
	cr_assert_str_eq(op_repr('|', a, b, 0), "['a,b', 'double', 'x']");
	cr_assert_str_eq(op_repr('-', a, b, 0), "['double', 'x']");
	b = VEC(&vb, XI(1));
	op_repr('|', a, b, SPRT_ETYPE);
	op_repr('&', a, b, SPRT_ETYPE);
	cr_assert_str_eq(op_repr('&', a, XR(0, 3, 1), 0), "[]");
	cr_assert_str_eq(op_repr('-', a, XR(0, 3, 1), 0), "['double', 'x']");
	/* Lists of lists are not sets. */
	a = VEC(&va, sprt_vecval(&vb));
	op_repr('|', a, a, SPRT_ETYPE);
	/* NaN has no place in a sorted set. */
	a = VEC(&va, XF(NAN), XI(1));
	b = VEC(&vb, XI(2));
	op_repr('|', a, b, SPRT_EVALUE);
	op_repr('-', b, a, SPRT_EVALUE);
	/* Empty sets. */
	a = VEC(&va, XI(1));
	sprt_vec_clear(&vb);
	cr_assert_str_eq(op_repr('|', sprt_vecval(&vb), sprt_vecval(&vb), 0), "[]");
	cr_assert_str_eq(op_repr('&', a, sprt_vecval(&vb), 0), "[]");
}

Test(iter, concat_repeat_alias)
{
	sprt_val a = VEC(&va, XI(1), XI(2));
	cr_assert_str_eq(op_repr('*', a, XI(3), 0), "[1, 2, 1, 2, 1, 2]");
	cr_assert_str_eq(op_repr('*', XI(2), a, 0), "[1, 2, 1, 2]");
	cr_assert_str_eq(op_repr('*', a, XI(-1), 0), "[]");
	cr_assert_str_eq(op_repr('*', a, XB(1), 0), "[1, 2]");
	op_repr('*', XR(0, 2, 1), XI(2), SPRT_ETYPE); /* lists only, as Python */
	op_repr('*', a, XI(SPRT_MAX_VEC), SPRT_ENOMEM);
	op_repr('*', a, XF(2.0), SPRT_ETYPE);
	op_repr('+', a, XR(0, 2, 1), SPRT_ETYPE);
	op_repr('+', XR(0, 2, 1), XR(0, 2, 1), SPRT_ETYPE);
	/* [[-1]*2, [128]*2 + [-1]]: nested tables borrow their rows. */
	struct sprt_vec row = { 0 };
	cr_assert_eq(sprt_op(&ctx, '*', VEC(&vb, XI(128)), XI(2), &a, &row), 0);
	cr_assert_str_eq(op_repr('+', a, VEC(&vb, XI(-1)), 0), "[128, 128, -1]");
	sprt_vec_free(&row);
	/* The scratch vector as an operand of its own result. */
	sprt_val x = sprt_undef();
	cr_assert_eq(sprt_op(&ctx, '+', VEC(&va, XI(1)), VEC(&vb, XI(2)), &x, &scratch), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(sprt_op(&ctx, '+', x, x, &x, &scratch), 0);
	cr_assert_eq(sprt_iter_len(x), 16);
	cr_assert_eq(x.u.p, &scratch);
	cr_assert_eq(sprt_op(&ctx, '|', x, x, &x, &scratch), 0);
	cr_assert_str_eq(repr(x, false), "[1, 2]");
	/* Clearing keeps the capacity for the next evaluation. */
	size_t cap = scratch.cap;
	sprt_vec_clear(&scratch);
	cr_assert_eq(scratch.n, 0);
	cr_assert_eq(scratch.cap, cap);
	/* Vector equality and ordering are elementwise. */
	bool r;
	cr_assert_eq(sprt_compare(&ctx, '=', VEC(&va, XI(1), XF(2.0)), VEC(&vb, XB(1), XI(2)), &r), 0);
	cr_assert(r);
	cr_assert_eq(sprt_compare(&ctx, '<', VEC(&va, XI(1), XI(2)), VEC(&vb, XI(1), XI(2), XI(0)), &r), 0);
	cr_assert(r);
	cr_assert_eq(sprt_compare(&ctx, '=', VEC(&va, XI(1)), XR(1, 2, 1), &r), 0);
	cr_assert_not(r);
	cr_assert_eq(sprt_compare(&ctx, 'i', XF(2.0), VEC(&va, XI(1), XI(2)), &r), 0);
	cr_assert(r);
	cr_assert_eq(sprt_compare(&ctx, 'n', XS(0), VEC(&va, XS(1), XI(2)), &r), 0);
	cr_assert(r);
}

Test(iter, index_range_list)
{
	sprt_val a = VEC(&va, XI(3), XI(1), XI(2)), out = sprt_undef();
	cr_assert_eq(sprt_index(a, sprt_int(-1), &out), 0);
	cr_assert_str_eq(repr(out, false), "2");
	cr_assert_eq(sprt_index(a, sprt_bool(true), &out), 0);
	cr_assert_str_eq(repr(out, false), "1");
	cr_assert_eq(sprt_index(a, sprt_int(3), &out), SPRT_EVALUE);
	cr_assert_eq(sprt_index(a, sprt_int(-4), &out), SPRT_EVALUE);
	cr_assert_eq(sprt_index(a, sprt_int(INT64_MIN), &out), SPRT_EVALUE);
	cr_assert_eq(sprt_index(a, sprt_float(1.0), &out), SPRT_ETYPE);
	cr_assert_eq(sprt_index(sprt_int(5), sprt_int(0), &out), SPRT_ETYPE);
	cr_assert_eq(sprt_index(XR(0, 10, 3), sprt_int(-1), &out), 0);
	cr_assert_str_eq(repr(out, false), "9");
	cr_assert_eq(sprt_index(XR(INT64_MAX, INT64_MIN, INT64_MIN), sprt_int(1), &out), 0);
	cr_assert_str_eq(repr(out, false), "-1");

	sprt_val args[3] = { sprt_int(5), sprt_int(1), sprt_int(0) };
	cr_assert_eq(sprt_builtin_range(args, 1, &out), 0);
	cr_assert_str_eq(repr(out, false), "range(0, 5)");
	cr_assert_str_eq(repr(out, true), "[0, 1, 2, 3, 4]");
	cr_assert_eq(sprt_builtin_range(args, 3, &out), SPRT_EVALUE);
	cr_assert_eq(sprt_builtin_range(args, 0, &out), SPRT_ETYPE);
	args[2] = sprt_int(-2);
	cr_assert_eq(sprt_builtin_range(args, 3, &out), 0);
	cr_assert_str_eq(repr(out, false), "range(5, 1, -2)");
	cr_assert_eq(sprt_iter_len(out), 2);
	cr_assert_eq(sprt_iter_at(out, 1).u.i, 3);
	args[0] = sprt_float(1.0);
	cr_assert_eq(sprt_builtin_range(args, 1, &out), SPRT_ETYPE);
	args[0] = sprt_bool(true);
	cr_assert_eq(sprt_builtin_range(args, 2, &out), 0);
	cr_assert_str_eq(repr(out, false), "range(1, 1)");
	cr_assert_eq(sprt_iter_len(sprt_int(1)), -1);

	cr_assert_eq(sprt_builtin_list((sprt_val[]){ R(0, 3, 1) }, 1, &out, &scratch), 0);
	cr_assert_str_eq(repr(out, false), "[0, 1, 2]");
	cr_assert_eq(sprt_builtin_list(NULL, 0, &out, &scratch), 0);
	cr_assert_str_eq(repr(out, false), "[]");
	cr_assert_eq(sprt_builtin_list((sprt_val[]){ I(5) }, 1, &out, &scratch), SPRT_ETYPE);

	cr_assert_eq(sprt_builtin_sum(VEC(&va, XI(1), XF(2.5), XB(1)), &out), 0);
	cr_assert_str_eq(repr(out, false), "4.5");
	cr_assert_eq(sprt_builtin_sum(VEC(&va, XB(1), XB(1)), &out), 0);
	cr_assert_str_eq(repr(out, false), "2");
	cr_assert_eq(sprt_builtin_sum(VEC(&va, XI(INT64_MAX), XI(1)), &out), SPRT_EOVERFLOW);
	cr_assert_eq(sprt_builtin_sum(VEC(&va, XS(0)), &out), SPRT_ETYPE);
	/* CPython 3.12's compensated float sum (3.11 gives 0.6000000000000001). */
	cr_assert_eq(sprt_builtin_sum(VEC(&va, XF(0.1), XF(0.2), XF(0.3)), &out), 0);
	cr_assert_str_eq(repr(out, false), "0.6");
	cr_assert_eq(sprt_builtin_sum(VEC(&va, XI(1), XF(1e100), XI(1), XF(-1e100)), &out), 0);
	cr_assert_str_eq(repr(out, false), "0.0"); /* the int is added plainly, as interp.c */
	cr_assert_eq(sprt_builtin_sum(VEC(&va, XF(1e100), XF(1.0), XF(-1e100)), &out), 0);
	cr_assert_str_eq(repr(out, false), "1.0");
	/* Only the total must fit, as in Python. */
	cr_assert_eq(sprt_builtin_sum(VEC(&va, XI(INT64_MAX), XI(1), XI(-1)), &out), 0);
	cr_assert_str_eq(repr(out, false), "9223372036854775807");
}

struct minmax_case {
	bool is_max;
	int n;
	sprt_val args[4];
	int err;
	char want[48];
};

ParameterizedTestParameters(iter, minmax)
{
	static struct minmax_case cases[] = {
		{ false, 3, { I(3), I(1), I(2) }, SPRT_OK, "1" },
		{ true, 3, { I(3), I(1), I(2) }, SPRT_OK, "3" },
		{ false, 2, { F(1.0), I(1) }, SPRT_OK, "1.0" },      /* first of equals */
		{ true, 3, { I(1), F(3.0), I(3) }, SPRT_OK, "3.0" },
		{ false, 2, { I(1), B(0) }, SPRT_OK, "False" },
		{ false, 2, { F(NAN), I(1) }, SPRT_OK, "nan" },      /* as CPython */
		{ false, 2, { I(1), F(NAN) }, SPRT_OK, "1" },
		{ false, 2, { S(5), S(0) }, SPRT_OK, "'double'" },
		{ true, 2, { S(5), S(0) }, SPRT_OK, "'x'" },
		{ false, 2, { I(1), S(0) }, SPRT_ETYPE, "" },
		{ false, 1, { I(5) }, SPRT_ETYPE, "" },
		{ false, 0, { I(5) }, SPRT_ETYPE, "" },
		{ true, 1, { R(0, 10, 3) }, SPRT_OK, "9" },
		{ false, 1, { R(0, 10, 3) }, SPRT_OK, "0" },
		{ false, 1, { R(10, 0, -3) }, SPRT_OK, "1" },
		{ true, 1, { R(10, 0, -3) }, SPRT_OK, "10" },
		{ true, 1, { R(0, 0, 1) }, SPRT_EVALUE, "" },
		{ true, 2, { UNDEF, I(1) }, SPRT_EUNDEF, "" },
	};
	return cr_make_param_array(struct minmax_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct minmax_case *c, iter, minmax)
{
	sprt_val out = sprt_undef();
	int err = sprt_builtin_minmax(&ctx, c->is_max, c->args, c->n, &out);
	cr_assert_eq(err, c->err);
	if (!err)
		cr_assert_str_eq(repr(out, false), c->want);
}

Test(iter, minmax_of_vectors)
{
	sprt_val out = sprt_undef(), v = VEC(&va, XI(4), XF(-1.5), XI(7), XF(7.0));
	cr_assert_eq(sprt_builtin_minmax(&ctx, false, &v, 1, &out), 0);
	cr_assert_str_eq(repr(out, false), "-1.5");
	cr_assert_eq(sprt_builtin_minmax(&ctx, true, &v, 1, &out), 0);
	cr_assert_str_eq(repr(out, false), "7");
	v = VEC(&va);
	cr_assert_eq(sprt_builtin_minmax(&ctx, true, &v, 1, &out), SPRT_EVALUE);
}

/* The fast paths agree with sprt_binop on a grid of awkward ints. */
Test(iter, fast_paths_agree)
{
	static const int64_t xs[] = { INT64_MIN, INT64_MIN + 1, -4294967296, -7, -2, -1, 0, 1, 2, 3, 7,
				      3037000499, 3037000500, 4294967296, INT64_MAX - 1, INT64_MAX };
	static const char ops[] = "+-*/f%p&|^lr";
	size_t n = sizeof(xs) / sizeof(xs[0]);
	for (const char *op = ops; *op; op++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++) {
				sprt_val a = sprt_int(xs[i]), b = sprt_int(xs[j]), r1 = sprt_undef(), r2 = sprt_undef();
				int e1 = sprt_binop(&ctx, *op, a, b, &r1, &scratch);
				int e2 = sprt_op(&ctx, *op, a, b, &r2, &scratch);
				cr_assert_eq(e1, e2, "%c", *op);
				if (!e1)
					cr_assert_eq(memcmp(&r1, &r2, sizeof(r1)), 0, "%c", *op);
				for (const char *c = "<l>g=!"; *c; c++) {
					bool b1, b2;
					cr_assert_eq(sprt_compare(&ctx, *c, a, b, &b1), 0);
					cr_assert_eq(sprt_cmp(&ctx, *c, a, b, &b2), 0);
					cr_assert_eq(b1, b2);
				}
			}
}

/* ---- bindings and strings ------------------------------------------------------------------ */

TestSuite(bindings, .init = ctx_setup, .fini = ctx_teardown);

Test(bindings, strings_intern)
{
	struct sprt_binding bs[] = {
		{ "prec", { SPRT_STR, 0, { .i = 0 }, 0, 0 }, "single" },
		{ "other", { SPRT_STR, 0, { .i = 0 }, 0, 0 }, "half" },
		{ "again", { SPRT_STR, 0, { .i = 0 }, 0, 0 }, "half" },
		{ "n", { SPRT_INT, 0, { .i = 42 }, 0, 0 }, NULL },
	};
	ctx.bindings = bs;
	ctx.nbindings = 4;
	sprt_val v = sprt_undef();
	bool found;
	cr_assert_eq(sprt_binding_get(&ctx, "prec", &v, &found), 0);
	cr_assert(found);
	cr_assert_eq(v.kind, SPRT_STR);
	cr_assert_eq(v.u.i, 1); /* the table's "single" */
	cr_assert_eq(sprt_binding_get(&ctx, "other", &v, &found), 0);
	cr_assert_eq(v.u.i, fake_space.strings.n); /* a run-time string */
	cr_assert_str_eq(sprt_str_text(&ctx, v.u.i), "half");
	sprt_val w = sprt_undef();
	cr_assert_eq(sprt_binding_get(&ctx, "again", &w, &found), 0);
	cr_assert_eq(w.u.i, v.u.i);
	cr_assert_eq(ctx.nextra_strings, 1);
	cr_assert_eq(sprt_binding_get(&ctx, "n", &v, &found), 0);
	cr_assert_str_eq(repr(v, false), "42");
	v = sprt_int(7);
	cr_assert_eq(sprt_binding_get(&ctx, "missing", &v, &found), 0);
	cr_assert_not(found);
	cr_assert_eq(v.u.i, 7);
	/* Comparison and len go through the text. */
	bool r;
	cr_assert_eq(sprt_compare(&ctx, '<', w, sprt_str(0), &r), 0);
	cr_assert_not(r); /* 'half' < 'double' is False */
	cr_assert_eq(sprt_builtin_len(&ctx, w, &v), 0);
	cr_assert_eq(v.u.i, 4);
	cr_assert_str_eq(sprt_str_text(&ctx, 999), "");
}

Test(bindings, equal_text_different_ids)
{
	/* A run-time string equal to a table string (made by hand here) is
	 * still equal to it. */
	const char *extra[] = { "double" };
	ctx.extra_strings = extra;
	ctx.nextra_strings = 1;
	bool r;
	cr_assert_eq(sprt_compare(&ctx, '=', sprt_str(0), sprt_str(fake_space.strings.n), &r), 0);
	cr_assert(r);
	cr_assert_eq(sprt_compare(&ctx, 'i', sprt_str(fake_space.strings.n), VEC(&va, XS(1), XS(0)), &r), 0);
	cr_assert(r);
	sprt_vec_free(&va);
	ctx.extra_strings = NULL;
	ctx.nextra_strings = 0;
}

struct set_case {
	char text[24];
	char want[32];  /* repr of the bound value */
};

ParameterizedTestParameters(bindings, set_text)
{
	static struct set_case cases[] = {
		{ "12", "12" }, { "-0x10", "-16" }, { "0XfF", "255" }, { "+7", "7" },
		{ "1.5", "1.5" }, { "1e3", "1000.0" }, { "-inf", "-inf" },
		{ "True", "True" }, { "false", "False" }, { "TRUE", "'TRUE'" },
		{ "'single'", "'single'" }, { "\"a b\"", "'a b'" }, { "plain", "'plain'" },
		{ "0x", "'0x'" }, { "0x1p3", "'0x1p3'" }, { "\"", "'\"'" }, { "", "''" },
		{ "9223372036854775807", "9223372036854775807" },
		{ "9223372036854775808", "9.223372036854776e+18" },
		{ "-9223372036854775808", "-9223372036854775808" },
	};
	return cr_make_param_array(struct set_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct set_case *c, bindings, set_text)
{
	struct sprt_bindings b = { 0 };
	cr_assert_eq(sprt_bindings_set_text(&b, "prec", "1"), 0);
	cr_assert_eq(sprt_bindings_set_text(&b, "prec", c->text), 0); /* replaces */
	cr_assert_eq(b.n, 1);
	ctx.bindings = b.v;
	ctx.nbindings = b.n;
	sprt_val v = sprt_undef();
	bool found;
	cr_assert_eq(sprt_binding_get(&ctx, "prec", &v, &found), 0);
	cr_assert(found);
	cr_assert_str_eq(repr(v, false), c->want);
	sprt_bindings_release(&b);
}

/* ---- device profiles ------------------------------------------------------------------------- */

Test(profile, good)
{
	const char *text = "\xef\xbb\xbf{\n"
			   "  \"a\": 1, \"b\": -2.5e3,\r\n"
			   "  \"c\": \"x\\u00e9\\n\\ud83d\\ude00\\\"\",\n"
			   "  \"d\": true, \"e\": false, \"f\": -0, \"g\": 0.1,\n"
			   "  \"a\": 7\n"
			   "}\n";
	struct sprt_bindings b = { 0 };
	char err[256];
	cr_assert_eq(sprt_bindings_load_json(&b, "p.json", text, strlen(text), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(b.n, 7);
	cr_assert_str_eq(b.v[0].name, "a");
	cr_assert_eq(b.v[0].value.kind, SPRT_INT);
	cr_assert_eq(b.v[0].value.u.i, 7);
	cr_assert_eq(b.v[1].value.kind, SPRT_FLOAT);
	cr_assert_eq(b.v[1].value.u.f, -2500.0);
	cr_assert_str_eq(b.v[2].text, "x\xc3\xa9\n\xf0\x9f\x98\x80\"");
	cr_assert_eq(b.v[3].value.kind, SPRT_BOOL);
	cr_assert_eq(b.v[3].value.u.i, 1);
	cr_assert_eq(b.v[4].value.u.i, 0);
	cr_assert_eq(b.v[5].value.kind, SPRT_INT);
	cr_assert_eq(b.v[6].value.u.f, 0.1);
	sprt_bindings_release(&b);
	cr_assert_eq(sprt_bindings_load_json(&b, "p.json", " { } ", 5, err, sizeof(err)), 0);
	cr_assert_eq(b.n, 0);
}

struct bad_json {
	char text[48];
	char err[128];
};

ParameterizedTestParameters(profile, bad)
{
	static struct bad_json cases[] = {
		{ "", "p.json:1:1: error: expected '{' (the file is empty)" },
		{ "  \n ", "p.json:2:2: error: expected '{' (the file is empty)" },
		{ "[1]", "p.json:1:1: error: expected '{': a device profile is a JSON object" },
		{ "{\"a\": 1,}", "p.json:1:9: error: trailing comma before '}'" },
		{ "{\"a\" 1}", "p.json:1:6: error: expected ':' after the name" },
		{ "{\n  \"a\": {}\n}", "p.json:2:8: error: nested objects and arrays are not supported: "
				   "expected a number, string or boolean" },
		{ "{\"a\": 01}", "p.json:1:7: error: leading zero in number" },
		{ "{\"a\": 1.}", "p.json:1:9: error: expected a digit after '.'" },
		{ "{\"a\": 1e+}", "p.json:1:10: error: expected a digit in the exponent" },
		{ "{\"a\": -}", "p.json:1:7: error: bad number" },
		{ "{\"a\": \"x}", "p.json:1:7: error: unterminated string" },
		{ "{\"a\": null}", "p.json:1:7: error: null is not a value: expected a number, string or boolean" },
		{ "{\"a\": 1} x", "p.json:1:10: error: unexpected text after the object" },
		{ "{\"a\": 1}{}", "p.json:1:9: error: unexpected text after the object" },
		{ "{\"a\": tru}", "p.json:1:7: error: expected a number, string or boolean" },
		{ "{\"a\": truex}", "p.json:1:7: error: expected a number, string or boolean" },
		{ "{a: 1}", "p.json:1:2: error: expected a name in double quotes" },
		{ "{\"\": 1}", "p.json:1:2: error: empty name" },
		{ "{\"a\": 99999999999999999999}", "p.json:1:7: error: integer out of the 64-bit range" },
		{ "{\"a\": \"\\q\"}", "p.json:1:8: error: bad escape in string" },
		{ "{\"a\": \"\\ud800\"}", "p.json:1:8: error: unpaired surrogate in \\u escape" },
		{ "{\"a\": \"\\u12g4\"}", "p.json:1:12: error: bad hex digit in \\u escape" },
		{ "{\"a\": \"\\u0000\"}", "p.json:1:8: error: NUL character in string" },
		{ "{\"a\": 1", "p.json:1:8: error: unexpected end of file, expected '}'" },
		{ "{\"a\": 1 \"b\": 2}", "p.json:1:9: error: expected ',' or '}'" },
		{ "{\"a\":", "p.json:1:6: error: unexpected end of file, expected a value" },
		{ "{\"a\": \"x\ty\"}", "p.json:1:9: error: control character in string" },
		{ "{", "p.json:1:2: error: unexpected end of file, expected a name" },
	};
	return cr_make_param_array(struct bad_json, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_json *c, profile, bad)
{
	struct sprt_bindings b = { 0 };
	char err[256];
	cr_assert_eq(sprt_bindings_load_json(&b, "p.json", c->text, strlen(c->text), err, sizeof(err)), SPRT_EVALUE);
	cr_assert_str_eq(err, c->err);
	sprt_bindings_release(&b);
}

/* ---- sinks ------------------------------------------------------------------------------------ */

TestSuite(sinks, .init = ctx_setup, .fini = ctx_teardown);

/* Runs the fake space into a memory buffer; returns its bytes (malloc'd). */
static char *run_sink(enum sprt_format fmt, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	cr_assert(m);
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, fmt, m), 0);
	cr_assert_eq(fake_space.enumerate(&ctx), 0);
	cr_assert_eq(sprt_sink_close(s), 0);
	cr_assert_null(ctx.emit);
	fclose(m);
	if (len)
		*len = n;
	return buf;
}

static struct sprt_bindings sink_b;

static void bind(const char *name, const char *text)
{
	cr_assert_eq(sprt_bindings_set_text(&sink_b, name, text), 0);
	ctx.bindings = sink_b.v;
	ctx.nbindings = sink_b.n;
}

Test(sinks, csv)
{
	char *out = run_sink(SPRT_FMT_CSV, NULL);
	cr_assert_str_eq(out, "x,prec,half,even\n0,double,0.0,True\n3,double,1.5,False\n4,double,2.0,True\n");
	free(out);
	cr_assert_eq(ctx.valid, 3);
	bind("prec", "'a,b'");
	ctx.valid = 0;
	out = run_sink(SPRT_FMT_CSV, NULL);
	cr_assert_str_eq(out, "x,prec,half,even\n0,\"a,b\",0.0,True\n3,\"a,b\",1.5,False\n4,\"a,b\",2.0,True\n");
	free(out);
	bind("prec", "say \"hi\"\nthere");
	bind("n", "1");
	out = run_sink(SPRT_FMT_CSV, NULL);
	cr_assert_str_eq(out, "x,prec,half,even\n0,\"say \"\"hi\"\"\nthere\",0.0,True\n");
	free(out);
	sprt_bindings_release(&sink_b);
}

/* CSV's ints are formatted by hand (and a column's last one reused): the
 * oracle is printf's "%" PRId64, over the extremes and a repeated value. */
Test(sinks, csv_ints)
{
	static const int64_t xs[] = { 0, 0, -1, 7, 7, 10, -10, 999999, INT64_MAX, INT64_MIN, INT64_MIN + 1, 42 };
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	cr_assert(m);
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_CSV, m), 0);
	char want[4096], *w = want;
	w += sprintf(w, "x,prec,half,even\n");
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		/* column 0 takes each value, column 2 the values in reverse */
		int64_t a = xs[i], b = xs[sizeof(xs) / sizeof(xs[0]) - 1 - i];
		sprt_val pt[4] = { sprt_int(a), sprt_bool(i & 1), sprt_int(b), sprt_int(a) };
		cr_assert_eq(ctx.emit(ctx.emit_user, pt, 4), 0);
		w += sprintf(w, "%" PRId64 ",%s,%" PRId64 ",%" PRId64 "\n", a, i & 1 ? "True" : "False", b, a);
	}
	cr_assert_eq(sprt_sink_close(s), 0);
	fclose(m);
	cr_assert_str_eq(buf, want);
	free(buf);
}

Test(sinks, jsonl)
{
	bind("prec", "tab\there \"q\"");
	char *out = run_sink(SPRT_FMT_JSONL, NULL);
	cr_assert_str_eq(out, "{\"x\": 0, \"prec\": \"tab\\there \\\"q\\\"\", \"half\": 0.0, \"even\": true}\n"
			      "{\"x\": 3, \"prec\": \"tab\\there \\\"q\\\"\", \"half\": 1.5, \"even\": false}\n"
			      "{\"x\": 4, \"prec\": \"tab\\there \\\"q\\\"\", \"half\": 2.0, \"even\": true}\n");
	free(out);
	sprt_bindings_release(&sink_b);
}

Test(sinks, count)
{
	size_t n;
	char *out = run_sink(SPRT_FMT_COUNT, &n);
	cr_assert_eq(n, 0);
	cr_assert_eq(ctx.valid, 3);
	free(out);
}

static uint64_t le(const unsigned char *p, int w)
{
	uint64_t x = 0;
	for (int i = 0; i < w; i++)
		x |= (uint64_t)p[i] << (8 * i);
	return x;
}

Test(sinks, binary)
{
	bind("n", "300"); /* x up to 299: a 2-byte column */
	bind("prec", "novel");
	size_t n;
	unsigned char *out = (unsigned char *)run_sink(SPRT_FMT_BINARY, &n);
	const unsigned char *p = out;
	cr_assert_eq(memcmp(p, "SPRTBIN1", 8), 0);
	p += 8;
	cr_assert_eq(le(p, 4), 1); /* version */
	cr_assert_eq(le(p + 4, 4), 0); /* flags */
	p += 8;
	cr_assert_eq(le(p, 2), 4);
	cr_assert_eq(memcmp(p + 2, "fake", 4), 0);
	p += 6;
	cr_assert_eq(le(p, 4), 4); /* columns */
	cr_assert_eq(le(p + 4, 8), 298); /* rows */
	p += 12;
	uint64_t nstr = le(p, 4);
	cr_assert_eq(nstr, 21 + 1); /* the table and one run-time string */
	p += 4;
	for (uint64_t i = 0; i < nstr; i++) {
		uint64_t l = le(p, 4);
		if (i == 21)
			cr_assert_eq(memcmp(p + 4, "novel", 5), 0);
		p += 4 + l;
	}
	static const char *const names[] = { "x", "prec", "half", "even" };
	static const int types[] = { 1, 4, 2, 3 }, widths[] = { 2, 1, 8, 1 };
	for (int i = 0; i < 4; i++) {
		uint64_t l = le(p, 2);
		cr_assert_eq(l, strlen(names[i]));
		cr_assert_eq(memcmp(p + 2, names[i], l), 0);
		cr_assert_eq(p[2 + l], types[i], "column %d", i);
		cr_assert_eq(p[3 + l], widths[i], "column %d", i);
		p += 4 + l;
	}
	int64_t want_x[] = { 0, 3, 4, 5 };
	for (int r = 0; r < 4; r++) {
		cr_assert_eq((int64_t)(int16_t)le(p, 2), want_x[r]);
		cr_assert_eq(p[2], 21);
		double h;
		uint64_t bits = le(p + 3, 8);
		memcpy(&h, &bits, 8);
		cr_assert_eq(h, (double)want_x[r] / 2);
		cr_assert_eq(p[11], want_x[r] % 2 == 0);
		p += 12;
	}
	cr_assert_eq((size_t)(p - out) + 12 * (298 - 4), n);
	free(out);
	sprt_bindings_release(&sink_b);
}

Test(sinks, binary_negative_and_empty)
{
	bind("n", "0");
	size_t n;
	unsigned char *out = (unsigned char *)run_sink(SPRT_FMT_BINARY, &n);
	/* No rows: declared types, no string table needed but STR column. */
	cr_assert_eq(le(out + 8 + 8 + 6 + 4, 8), 0);
	free(out);
	sprt_bindings_release(&sink_b);
}

/* A column holding ints and floats is mixed: tag byte and 8 bytes. */
Test(sinks, binary_mixed)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_BINARY, m), 0);
	sprt_val p1[4] = { sprt_int(-200), sprt_str(1), sprt_float(0.5), sprt_bool(true) };
	sprt_val p2[4] = { sprt_float(2.5), sprt_str(300), sprt_float(1.0), sprt_bool(false) };
	cr_assert_eq(ctx.emit(ctx.emit_user, p1, 4), 0);
	cr_assert_eq(ctx.emit(ctx.emit_user, p2, 4), 0);
	cr_assert_eq(sprt_sink_close(s), 0);
	fclose(m);
	const unsigned char *p = (const unsigned char *)buf + 8 + 8 + 6 + 4 + 8;
	uint64_t nstr = le(p, 4);
	p += 4;
	for (uint64_t i = 0; i < nstr; i++)
		p += 4 + le(p, 4);
	cr_assert_eq(memcmp(p, "\1\0x\5\x09", 5), 0);      /* x: mixed, 9 bytes */
	cr_assert_eq(memcmp(p + 5, "\4\0prec\4\2", 8), 0); /* id 300: 2 bytes */
	p += 5 + 8 + 8 + 8;
	cr_assert_eq(p[0], SPRT_INT);
	cr_assert_eq((int64_t)le(p + 1, 8), -200);
	cr_assert_eq(le(p + 9, 2), 1);
	p += 9 + 2 + 8 + 1;
	cr_assert_eq(p[0], SPRT_FLOAT);
	double d;
	uint64_t bits = le(p + 1, 8);
	memcpy(&d, &bits, 8);
	cr_assert_eq(d, 2.5);
	cr_assert_eq(le(p + 9, 2), 300);
	cr_assert_eq((size_t)(p + 20 - (const unsigned char *)buf), n);
	free(buf);
}

/* Set: binary_rows hands its rows to the sink as int64_t (emit_ints, as
 * generated code whose iterators are typed ints does), not sprt_vals. */
static bool rows_as_ints;

/* Int rows through the binary sink into f: returns the file's bytes. */
static unsigned char *binary_rows(FILE *f, const int64_t rows[][4], int nrows, size_t *len, int *rc)
{
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_BINARY, f), 0);
	cr_assert(ctx.emit_ints);
	for (int r = 0; r < nrows; r++) {
		sprt_val pt[4];
		for (int i = 0; i < 4; i++)
			pt[i] = sprt_int(rows[r][i]);
		if (rows_as_ints ? ctx.emit_ints(ctx.emit_user, rows[r], 4) : ctx.emit(ctx.emit_user, pt, 4))
			break;
	}
	*rc = sprt_sink_close(s);
	fflush(f);
	rewind(f);
	unsigned char *buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	return buf;
}

/* Offset of the first row of a header without strings; widths in w. */
static size_t binary_columns(const unsigned char *b, int w[4])
{
	const unsigned char *p = b + 8 + 8 + 6 + 4 + 8;
	cr_assert_eq(le(p, 4), 0); /* no string table */
	p += 4;
	for (int i = 0; i < 4; i++) {
		uint64_t l = le(p, 2);
		cr_assert_eq(p[2 + l], 1, "column %d is an int column", i); /* int */
		w[i] = p[3 + l];
		p += 4 + l;
	}
	return (size_t)(p - b);
}

/*
 * Bounded columns and a seekable output: rows go out as they come, in
 * the widths the bounds need (not the values'), and the row count is
 * patched in at the end.  The same rows through a memory stream (which
 * cannot be patched) are buffered and sized by their values; both hold
 * the same rows.
 */
static void binary_streamed(bool ints)
{
	rows_as_ints = ints;
	static const int64_t bounds[8] = { 0, INT64_C(3000000000), -200, 5, -129, 0, 7, 7 };
	static const int64_t rows[][4] = { { 0, -5, -129, 7 }, { 300, 5, 0, 7 }, { 70000, 0, -1, 7 } };
	int nrows = 3, rc;
	sprt_column_bounds_(&ctx, bounds);
	FILE *f = tmpfile();
	cr_assert(f);
	cr_assert_eq(fputs("prefix", f) >= 0, true); /* the header need not start the file */
	size_t n;
	unsigned char *b = binary_rows(f, rows, nrows, &n, &rc);
	cr_assert_eq(rc, 0);
	fclose(f);
	cr_assert_eq(memcmp(b, "prefix", 6), 0);
	unsigned char *h = b + 6;
	cr_assert_eq(le(h + 8 + 8 + 6 + 4, 8), (uint64_t)nrows);
	int w[4];
	size_t off = binary_columns(h, w);
	static const int want_w[4] = { 8, 2, 2, 1 };
	for (int i = 0; i < 4; i++)
		cr_assert_eq(w[i], want_w[i], "column %d", i);
	cr_assert_eq(6 + off + (size_t)nrows * 13, n);
	const unsigned char *p = h + off;
	for (int r = 0; r < nrows; r++)
		for (int i = 0; i < 4; i++) {
			uint64_t x = le(p, w[i]);
			int sh = 64 - 8 * w[i];
			cr_assert_eq((int64_t)(x << sh) >> sh, rows[r][i], "row %d column %d", r, i);
			p += w[i];
		}
	free(b);

	/* buffered: the values' own widths */
	char *mbuf = NULL;
	size_t mlen = 0;
	FILE *m = open_memstream(&mbuf, &mlen);
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_BINARY, m), 0);
	for (int r = 0; r < nrows; r++) {
		sprt_val pt[4];
		for (int i = 0; i < 4; i++)
			pt[i] = sprt_int(rows[r][i]);
		cr_assert_eq(ctx.emit(ctx.emit_user, pt, 4), 0);
	}
	cr_assert_eq(sprt_sink_close(s), 0);
	fclose(m);
	binary_columns((const unsigned char *)mbuf, w);
	static const int value_w[4] = { 4, 1, 2, 1 };
	for (int i = 0; i < 4; i++)
		cr_assert_eq(w[i], value_w[i], "column %d", i);
	free(mbuf);
}

Test(sinks, binary_streamed)
{
	binary_streamed(false);
}

/* The same rows through emit_ints, whose encoder writes each column at
 * its offset in the row. */
Test(sinks, binary_streamed_ints)
{
	binary_streamed(true);
}

/* An output opened for appending cannot have its header patched: the
 * rows are buffered, and widths come from the values. */
Test(sinks, binary_append_buffers)
{
	rows_as_ints = false;
	static const int64_t bounds[8] = { 0, 70000, 0, 70000, 0, 70000, 0, 70000 };
	static const int64_t rows[][4] = { { 1, 2, 3, 4 } };
	sprt_column_bounds_(&ctx, bounds);
	char path[] = "/tmp/spacert-test-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	FILE *f = fopen(path, "a+b");
	cr_assert(f);
	size_t n;
	int rc;
	unsigned char *b = binary_rows(f, rows, 1, &n, &rc);
	fclose(f);
	unlink(path);
	cr_assert_eq(rc, 0);
	int w[4];
	size_t off = binary_columns(b, w);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(w[i], 1, "column %d", i);
	cr_assert_eq(off + 4, n);
	free(b);
}

/* A value outside the bounds the enumerator gave (a bug there) fails
 * the sink rather than writing a value its column cannot hold. */
static void binary_out_of_bounds(bool ints)
{
	rows_as_ints = ints;
	static const int64_t bounds[8] = { 0, 10, 0, 10, 0, 10, 0, 10 };
	static const int64_t rows[][4] = { { 1, 2, 3, 4 }, { 1, 2, 300, 4 }, { 1, 2, 3, 4 } };
	sprt_column_bounds_(&ctx, bounds);
	FILE *f = tmpfile();
	size_t n;
	int rc;
	errno = 0;
	unsigned char *b = binary_rows(f, rows, 3, &n, &rc);
	cr_assert_eq(rc, -1);
	cr_assert_eq(errno, ERANGE);
	fclose(f);
	free(b);
}

Test(sinks, binary_streamed_out_of_bounds)
{
	binary_out_of_bounds(false);
}

/* emit_ints writes the row before it tests the bounds: the row must
 * still not count, and the output fail. */
Test(sinks, binary_streamed_out_of_bounds_ints)
{
	binary_out_of_bounds(true);
}

/* Lists have no binary encoding: an error, not a lossy file. */
Test(sinks, binary_list_fails)
{
	FILE *m = fopen("/dev/null", "w");
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_BINARY, m), 0);
	struct sprt_vec v = { 0 };
	sprt_val p1[4] = { sprt_vecval(&v), sprt_str(1), sprt_float(0.5), sprt_bool(true) };
	cr_assert_neq(ctx.emit(ctx.emit_user, p1, 4), 0);
	cr_assert_eq(sprt_sink_close(s), -1);
	cr_assert_eq(errno, EINVAL);
	fclose(m);
}

/* A full disk stops the enumeration and is reported. */
Test(sinks, full_disk)
{
	FILE *f = fopen("/dev/full", "w");
	cr_assert(f);
	bind("n", "1000000");
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_CSV, f), 0);
	cr_assert_eq(fake_space.enumerate(&ctx), 0);
	cr_assert(sprt_sink_failed(s));
	cr_assert(ctx.stop);
	cr_assert_lt(ctx.valid, 100000);
	errno = 0;
	cr_assert_eq(sprt_sink_close(s), -1);
	cr_assert_eq(errno, ENOSPC);
	fclose(f);
	sprt_bindings_release(&sink_b);
}

Test(sinks, full_disk_small)
{
	/* Everything fits in stdio's buffer: the error shows at close. */
	FILE *f = fopen("/dev/full", "w");
	cr_assert(f);
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_JSONL, f), 0);
	cr_assert_eq(fake_space.enumerate(&ctx), 0);
	cr_assert_eq(sprt_sink_close(s), -1);
	cr_assert_eq(errno, ENOSPC);
	fclose(f);
}

Test(sinks, closed_pipe)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	FILE *f = fdopen(fds[1], "w");
	bind("n", "100000");
	struct sprt_sink *s;
	cr_assert_eq(sprt_sink_open(&s, &ctx, SPRT_FMT_CSV, f), 0);
	cr_assert_eq(fake_space.enumerate(&ctx), 0);
	cr_assert_eq(sprt_sink_close(s), -1);
	cr_assert_eq(errno, EPIPE);
	fclose(f);
	sprt_bindings_release(&sink_b);
}

/* ---- the driver -------------------------------------------------------------------------------- */

static int run_main(int argc, const char **argv)
{
	return sprt_main(&fake_space, argc, (char **)argv);
}

#define MAIN(...) run_main((int)(sizeof((const char *[]){ "fake", __VA_ARGS__ }) / sizeof(char *)), \
			   (const char *[]){ "fake", __VA_ARGS__ })

static char tmpdir[64];

static void dir_setup(void)
{
	strcpy(tmpdir, "/tmp/sprt-test-XXXXXX");
	cr_assert(mkdtemp(tmpdir));
	cr_redirect_stdout();
	cr_redirect_stderr();
}

static void dir_teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		cr_log_warn("cannot remove %s", tmpdir);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "cannot open %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static int count_files(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", tmpdir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

TestSuite(driver, .init = dir_setup, .fini = dir_teardown);

Test(driver, count)
{
	cr_assert_eq(MAIN("count"), 0);
	fflush(stdout);
	cr_assert_stdout_eq_str("3\n");
}

Test(driver, count_options)
{
	cr_assert_eq(MAIN("--set", "n=10", "count"), 0);
	cr_assert_eq(MAIN("count", "--set=n=0x0a", "--no-soft"), 0);
	cr_assert_eq(MAIN("count", "--disable", "not_one", "--set", "n=10"), 0);
	cr_assert_eq(MAIN("count", "--disable=not_one", "--disable", "not_two"), 0);
	fflush(stdout);
	cr_assert_stdout_eq_str("8\n9\n9\n5\n");
}

Test(driver, list_output)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/out.jsonl", tmpdir);
	cr_assert_eq(MAIN("list", "--format", "jsonl", "--output", path, "--set", "prec=single"), 0);
	cr_assert_str_eq(slurp(path), "{\"x\": 0, \"prec\": \"single\", \"half\": 0.0, \"even\": true}\n"
				      "{\"x\": 3, \"prec\": \"single\", \"half\": 1.5, \"even\": false}\n"
				      "{\"x\": 4, \"prec\": \"single\", \"half\": 2.0, \"even\": true}\n");
	cr_assert_eq(count_files(), 1); /* no temporary left behind */
	cr_assert_eq(MAIN("list", "--output", path, "--set", "n=1"), 0);
	cr_assert_str_eq(slurp(path), "x,prec,half,even\n0,double,0.0,True\n");
	cr_assert_eq(MAIN("list", "--format=binary", "--output", path), 0);
	cr_assert_eq(memcmp(slurp(path), "SPRTBIN1", 8), 0);
	cr_assert_eq(count_files(), 1);
}

Test(driver, output_errors)
{
	/* A failed run leaves the old file alone and no temporary. */
	char path[128];
	snprintf(path, sizeof(path), "%s/out.csv", tmpdir);
	cr_assert_eq(MAIN("list", "--output", path, "--set", "n=1"), 0);
	cr_assert_eq(MAIN("list", "--output", path, "--set", "n=nope"), 1);
	cr_assert_str_eq(slurp(path), "x,prec,half,even\n0,double,0.0,True\n");
	cr_assert_eq(count_files(), 1);
	snprintf(path, sizeof(path), "%s/no/such/dir", tmpdir);
	cr_assert_eq(MAIN("list", "--output", path), 1);
	cr_assert_eq(count_files(), 1);
}

Test(driver, stdout_full)
{
	cr_assert(freopen("/dev/full", "w", stdout));
	cr_assert_eq(MAIN("list", "--set", "n=5"), 1);
}

Test(driver, bindings_precedence)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/dev.json", tmpdir);
	FILE *f = fopen(path, "w");
	fputs("{\"n\": 4, \"unrelated\": \"x\", \"prec\": \"single\"}\n", f);
	fclose(f);
	cr_assert_eq(MAIN("count", "--device-profile", path), 0);
	cr_assert_eq(MAIN("count", "--set", "n=6", "--device-profile", path), 0);
	fflush(stdout);
	cr_assert_stdout_eq_str("2\n4\n");
}

Test(driver, bad_profile)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/dev.json", tmpdir);
	FILE *f = fopen(path, "w");
	fputs("{\"n\": 4,\n \"m\": }\n", f);
	fclose(f);
	cr_assert_eq(MAIN("count", "--device-profile", path), 1);
	cr_assert_eq(MAIN("count", "--device-profile", "/nonexistent.json"), 1);
}

Test(driver, usage_errors)
{
	cr_assert_eq(MAIN(), 2);
	cr_assert_eq(MAIN("frobnicate"), 2);
	cr_assert_eq(MAIN("count", "list"), 2);
	cr_assert_eq(MAIN("count", "--bogus"), 2);
	cr_assert_eq(MAIN("list", "--format", "xml"), 2);
	cr_assert_eq(MAIN("list", "--format"), 2);
	cr_assert_eq(MAIN("count", "--set", "n"), 2);
	cr_assert_eq(MAIN("count", "--set", "bogus=1"), 2);
	cr_assert_eq(MAIN("count", "--disable", "x"), 2);
	fflush(stderr);
	cr_assert_stderr_neq_str("");
}

Test(driver, unknown_names_listed)
{
	cr_assert_eq(MAIN("count", "--set", "bogus=1"), 2);
	cr_assert_eq(MAIN("count", "--disable", "half"), 2);
	fflush(stderr);
	cr_assert_stderr_eq_str("fake: error: unknown --set name 'bogus'; valid names: 'n', 'prec'\n"
				"fake: error: unknown constraint 'half'; constraints: 'not_one', 'not_two'\n");
}

Test(driver, help_version)
{
	cr_assert_eq(MAIN("--help"), 0);
	cr_assert_eq(MAIN("--version"), 0);
}

static char *read_redirected(FILE *f)
{
	static char buf[1 << 14];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	return buf;
}

Test(driver, stats)
{
	cr_assert_eq(MAIN("stats", "--disable", "not_two"), 0);
	fflush(stdout);
	const char *out = read_redirected(cr_get_redirected_stdout());
	cr_assert(strstr(out, "definition  kind                 level      evaluated       rejected   pruned "
			      "domain errors\n"), "%s", out);
	cr_assert(strstr(out, "\nnot_one     hard                     0              5              1    20.0%"),
		  "%s", out);
	cr_assert(strstr(out, "\nnot_two     require soft (off)       0              0              0        -"),
		  "%s", out);
	cr_assert(strstr(out, "\nx           iterator                 0              5              -        -"),
		  "%s", out);
	cr_assert(strstr(out, "valid points:       4\ncandidates visited: 5\nelapsed:   "), "%s", out);
}

/* ---- memo tables (runtime/memo.c) --------------------------------------------------- */

/* What a test stores for a key: any function of it will do. */
static uint64_t memo_payload(int64_t a, int64_t b)
{
	return (uint64_t)(a * 1000003 + b) ^ UINT64_C(0x5bd1e995);
}

Test(memo, int_keys_hit_and_differ)
{
	struct sprt_memo *m = NULL;
	struct sprt_memo_entry *e;
	const int64_t k12[2] = { 1, 2 }, k21[2] = { 2, 1 };
	cr_assert_eq(sprt_memo_find_ints(&m, k12, 2, 1, 0, &e), 0);
	e->count = 5;
	e->stats[0] = 7;
	cr_assert_eq(sprt_memo_find_ints(&m, k21, 2, 1, 0, &e), 0, "a different order is a different key");
	e->count = 6;
	cr_assert_eq(sprt_memo_find_ints(&m, k12, 2, 1, 0, &e), 1);
	cr_assert_eq(e->count, 5);
	cr_assert_eq(e->stats[0], 7);
	sprt_memo_free(m);
}

/*
 * Many more keys than a table keeps: it starts over when full, so a key
 * may be found or not, but a found entry is always its own (the oracle is
 * the payload each fresh entry was given).  Revisits keep the hit rate
 * above the bypass threshold.
 */
Test(memo, int_keys_survive_starting_over)
{
	struct sprt_memo *m = NULL;
	struct sprt_memo_entry *e;
	uint64_t hits = 0, fresh = 0;
	for (int64_t a = 0; a < 2000; a++)
		for (int round = 0; round < 2; round++)
			for (int64_t b = 0; b < 100; b++) {
				const int64_t key[2] = { a, b };
				int found = sprt_memo_find_ints(&m, key, 2, 0, 0, &e);
				cr_assert_geq(found, 0);
				if (found) {
					hits++;
					cr_assert_eq(e->count, memo_payload(a, b), "key (%lld, %lld)", (long long)a,
						     (long long)b);
				} else {
					fresh++;
					e->count = memo_payload(a, b);
				}
			}
	cr_assert_eq(hits + fresh, 2000 * 2 * 100);
	cr_assert_gt(hits, 0);
	cr_assert_geq(fresh, 2000 * 100);
	sprt_memo_free(m);
}

/*
 * Lookups where every 4th repeats the key before it (a 25% hit rate, over
 * the 1-in-8 floor) and each miss's count visited `work` candidates
 * (stats[0]); the table's epoch after them: 0 once it was bypassed.
 */
static uint64_t memo_epoch_after(uint64_t work, int nstats)
{
	struct sprt_memo *m = NULL;
	struct sprt_memo_entry *e;
	for (int64_t i = 0; i < 20000; i++) {
		const int64_t key[1] = { i % 4 == 3 ? i - 1 : i };
		int found = sprt_memo_find_ints(&m, key, 1, nstats, 0, &e);
		cr_assert_geq(found, 0);
		if (!found)
			e->stats[0] = work;
	}
	uint64_t epoch = sprt_memo_epoch(m);
	sprt_memo_free(m);
	return epoch;
}

/*
 * Where entries keep only candidates (count, list), a table stays on only
 * where its hits save more than its probes cost: the same hit rate keeps
 * a table whose misses are dear and bypasses one whose misses are cheap.
 * Where they keep statistics, the hit rate alone decides.
 */
Test(memo, bypass_weighs_hits_by_their_work)
{
	cr_assert_neq(memo_epoch_after(100, 1), 0, "hits that save 100 candidates each: kept");
	cr_assert_eq(memo_epoch_after(1, 1), 0, "hits that save one candidate each: bypassed");
	cr_assert_neq(memo_epoch_after(1, 4), 0, "with statistics, the hit rate decides");
}

/*
 * The epoch that near counts check before reusing an entry (cg_factor.c):
 * an entry found in an epoch is still its own key's while the epoch
 * lasts, the epoch changes when the table starts over, and it is 0 once
 * the table hands out scratch entries only.
 */
Test(memo, epoch_guards_kept_entries)
{
	struct sprt_memo *m = NULL;
	struct sprt_memo_entry *e;
	cr_assert_eq(sprt_memo_epoch(m), 0, "no table yet");
	int64_t a = 0;
	const int64_t k0[2] = { 0, 0 };
	cr_assert_eq(sprt_memo_find_ints(&m, k0, 2, 0, 0, &e), 0);
	e->count = memo_payload(0, 0);
	uint64_t epoch = sprt_memo_epoch(m);
	cr_assert_neq(epoch, 0);
	const struct sprt_memo_entry *kept = e;
	/* revisits keep the hit rate up; fresh keys fill it until it starts over */
	for (a = 1; sprt_memo_epoch(m) == epoch && a < 1000000; a++) {
		cr_assert_eq(kept->count, memo_payload(0, 0), "a kept entry changed within its epoch");
		const int64_t key[2] = { a, 0 };
		if (sprt_memo_find_ints(&m, key, 2, 0, 0, &e) == 0)
			e->count = memo_payload(a, 0);
		cr_assert_geq(sprt_memo_find_ints(&m, key, 2, 0, 0, &e), 0);
		sprt_memo_near_hit(m);
	}
	cr_assert_neq(sprt_memo_epoch(m), epoch, "the table never started over");
	cr_assert_neq(sprt_memo_epoch(m), 0);
	sprt_memo_free(m);

	/* only misses: the table stops inserting, and its epoch is 0 */
	m = NULL;
	for (a = 0; a < 20000 && (a == 0 || sprt_memo_epoch(m) != 0); a++) {
		const int64_t key[2] = { a, 1 };
		cr_assert_geq(sprt_memo_find_ints(&m, key, 2, 0, 0, &e), 0);
	}
	cr_assert_eq(sprt_memo_epoch(m), 0, "a table of misses still inserts");
	sprt_memo_free(m);
}

Test(memo, value_keys_tell_kinds_apart)
{
	struct sprt_memo *m = NULL;
	struct sprt_memo_entry *e;
	const sprt_val as_int[1] = { I(0) };
	const sprt_val as_bool[1] = { B(0) };
	const sprt_val as_range[1] = { { SPRT_RANGE, 0, { .i = 0 }, 5, 1 } };
	const sprt_val other_range[1] = { { SPRT_RANGE, 0, { .i = 0 }, 6, 1 } };
	cr_assert_eq(sprt_memo_find(&m, as_int, 1, 0, 0, &e), 0);
	e->count = 1;
	cr_assert_eq(sprt_memo_find(&m, as_bool, 1, 0, 0, &e), 0);
	e->count = 2;
	cr_assert_eq(sprt_memo_find(&m, as_range, 1, 0, 0, &e), 0);
	e->count = 3;
	cr_assert_eq(sprt_memo_find(&m, other_range, 1, 0, 0, &e), 0);
	e->count = 4;
	const sprt_val *keys[4] = { as_int, as_bool, as_range, other_range };
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(sprt_memo_find(&m, keys[i], 1, 0, 0, &e), 1);
		cr_assert_eq(e->count, (uint64_t)i + 1);
	}
	sprt_memo_free(m);
}

/* Entries with points (listing), many more than a table keeps: a found
 * entry's points are its own, and starting over frees them (ASan in make
 * check sees a leak or a double free). */
Test(memo, points_survive_starting_over)
{
	struct sprt_memo *m = NULL;
	struct sprt_memo_entry *e;
	uint64_t hits = 0;
	for (int64_t a = 0; a < 30000; a++) /* ~11,000 entries fit in 1 MiB */
		for (int round = 0; round < 2; round++) {
			const int64_t key[1] = { a };
			int found = sprt_memo_find_ints(&m, key, 1, 0, 2, &e);
			cr_assert_geq(found, 0);
			if (found) {
				hits++;
				cr_assert_eq(e->npoints, (size_t)(a % 5));
				for (size_t p = 0; p < e->npoints; p++) {
					cr_assert_eq(e->points[2 * p].u.i, a);
					cr_assert_eq(e->points[2 * p + 1].u.i, (int64_t)p);
				}
				continue;
			}
			for (int64_t p = 0; p < a % 5; p++) {
				const sprt_val pt[2] = { I(a), I(p) };
				cr_assert_eq(sprt_memo_add_point(m, e, pt), 0);
				e->count++;
			}
		}
	cr_assert_eq(hits, 30000);
	sprt_memo_free(m);
}

/* ---- --set: the one rule (sprt_set_check, sprt_bindings_set_arg) ------------- */

/*
 * The rule as docs/LANGUAGE.md states it, case by case, written from the
 * statement (Python's int(), float() and the identifier rule), not from
 * the code: what is rejected, and the kind and value of what is bound.
 */
/* Arrays, not pointers: Criterion hands each case to a fresh process. */
struct set_rule_case {
	char arg[32];
	char kind;          /* 'x' rejected, 'i' int, 'f' float, 'b' bool, 's' string */
	int64_t i;
	double f;
	char s[16];
};

static struct set_rule_case set_rule_cases[] = {
	{ "n=5", 'i', 5, 0, "" },
	{ "n=-5", 'i', -5, 0, "" },
	{ "n=+7", 'i', 7, 0, "" },
	{ "n=0x1F", 'i', 31, 0, "" },
	{ "n=-0x1f", 'i', -31, 0, "" },
	{ "n=9223372036854775807", 'i', INT64_MAX, 0, "" },
	{ "n=-9223372036854775808", 'i', INT64_MIN, 0, "" },
	{ "n=9223372036854775808", 'f', 0, 9223372036854775808.0, "" },
	{ "n=1.5", 'f', 0, 1.5, "" },
	{ "n=1e3", 'f', 0, 1000.0, "" },
	{ "n=-inf", 'f', 0, -INFINITY, "" },
	{ "n=True", 'b', 1, 0, "" },
	{ "n=true", 'b', 1, 0, "" },
	{ "n=False", 'b', 0, 0, "" },
	{ "n=TRUE", 's', 0, 0, "TRUE" },
	{ "n=double", 's', 0, 0, "double" },
	{ "n='5'", 's', 0, 0, "5" },
	{ "n=\"x y\"", 's', 0, 0, "x y" },
	{ "n=''", 's', 0, 0, "" },
	{ "n=0x", 's', 0, 0, "0x" },
	{ "n=1.2.3", 's', 0, 0, "1.2.3" },
	{ "n= 5", 's', 0, 0, " 5" },
	{ "n=a=b", 's', 0, 0, "a=b" },
	{ "n=1,2", 's', 0, 0, "1,2" },
	{ "_x9=1", 'i', 1, 0, "" },
	{ "=5", 'x', 0, 0, "" },
	{ "n=", 'x', 0, 0, "" },
	{ "n", 'x', 0, 0, "" },
	{ "9n=1", 'x', 0, 0, "" },
	{ "a b=1", 'x', 0, 0, "" },
	{ "a-b=1", 'x', 0, 0, "" },
	{ " n=1", 'x', 0, 0, "" },
	{ "n=\xff", 'x', 0, 0, "" },
};

ParameterizedTestParameters(set_rule, table)
{
	return cr_make_param_array(struct set_rule_case, set_rule_cases,
				   sizeof set_rule_cases / sizeof *set_rule_cases);
}

ParameterizedTest(struct set_rule_case *c, set_rule, table)
{
	struct sprt_bindings b = { 0 };
	char why[256] = "";
	int rc = sprt_bindings_set_arg(&b, c->arg, why, sizeof why);
	size_t n = 0;
	cr_assert_eq(sprt_set_check(c->arg, &n, why, sizeof why), rc, "check and bind agree on '%s'", c->arg);
	if (c->kind == 'x') {
		cr_assert_eq(rc, SPRT_EVALUE, "'%s' rejected", c->arg);
		cr_assert(strstr(why, "--set"), "the message names --set: %s", why);
		cr_assert_eq(b.n, 0);
		return;
	}
	cr_assert_eq(rc, 0, "'%s' accepted: %s", c->arg, why);
	cr_assert_eq(b.n, 1);
	const struct sprt_binding *x = &b.v[0];
	cr_assert_eq(strlen(x->name), n);
	cr_assert(!strncmp(x->name, c->arg, n));
	switch (c->kind) {
	case 'i':
		cr_assert(!x->text && x->value.kind == SPRT_INT && x->value.u.i == c->i, "'%s'", c->arg);
		break;
	case 'b':
		cr_assert(!x->text && x->value.kind == SPRT_BOOL && x->value.u.i == c->i, "'%s'", c->arg);
		break;
	case 'f':
		cr_assert(!x->text && x->value.kind == SPRT_FLOAT && x->value.u.f == c->f, "'%s'", c->arg);
		break;
	default:
		cr_assert(x->text && !strcmp(x->text, c->s), "'%s' gives '%s'", c->arg, x->text ? x->text : "(null)");
		break;
	}
	sprt_bindings_release(&b);
}

/* sprt_main and sprt_command_run share the rule: a rejected --set is a usage error. */
Test(driver, set_rule)
{
	cr_assert_eq(MAIN("count", "--set", "=5"), 2);
	cr_assert_eq(MAIN("count", "--set", "n="), 2);
	cr_assert_eq(MAIN("count", "--set", "9n=1"), 2);
	cr_assert_eq(MAIN("--set", "n=0x0A", "count"), 0);
	fflush(stdout);
	cr_assert_stdout_eq_str("8\n");
}

/*
 * sprt_run refuses a binding of the wrong type whoever made it (here the
 * test, with no sprt_main in between) before any candidate, and
 * sprt_bindings_check says where.  The fake space with declared types:
 * n an int, prec a string, written in its line 3 and 4.
 */
static const struct sprt_bindable_desc typed_bindables[] = {
	{ "n", false, "5", SPRT_INT, 3, 8, "device n = 5" },
	{ "prec", true, "\"double\"", SPRT_STR, 4, 9, "setting prec = \"double\"" },
};

static int count_points(void *user, const sprt_val *pt, int n)
{
	(void)pt;
	(void)n;
	++*(int *)user;
	return 0;
}

/* sprt_run on `sp` with b bound; the points it gave in *points. */
static int run_typed(const struct sprt_space *sp, struct sprt_bindings *b, int *points)
{
	struct sprt_ctx c;
	cr_assert_eq(sprt_ctx_init(&c, sp), 0);
	c.bindings = b->v;
	c.nbindings = b->n;
	*points = 0;
	c.emit = count_points;
	c.emit_user = points;
	struct sprt_run_options opt = { .threads = 1 };
	int rc = sprt_run(&c, NULL, &opt);
	cr_expect(rc || c.candidates > 0);
	if (rc)
		cr_expect_eq(c.candidates, 0, "refused before any candidate");
	sprt_ctx_release(&c);
	return rc;
}

Test(bindings, sprt_run_checks_types)
{
	struct sprt_space sp = fake_space;
	sp.bindables = typed_bindables;
	struct sprt_bindings b = { 0 };
	char why[256];
	int points;
	/* range(7) less x == 1 (hard) and x == 2 (soft): 5 points */
	cr_assert_eq(sprt_bindings_set_arg(&b, "n=7", why, sizeof why), 0);
	cr_assert_eq(sprt_bindings_set_arg(&b, "prec=single", why, sizeof why), 0);
	cr_assert_eq(run_typed(&sp, &b, &points), 0);
	cr_expect_eq(points, 5);
	cr_expect_eq(sprt_bindings_check(&sp, b.v, b.n, NULL, NULL, NULL), SPRT_OK);
	/* an int where the string is declared: the fake enumerator itself would take it */
	cr_assert_eq(sprt_bindings_set_arg(&b, "prec=5", why, sizeof why), 0);
	cr_expect_eq(run_typed(&sp, &b, &points), -SPRT_ETYPE);
	cr_expect_eq(points, 0);
	char text[1024] = "";
	FILE *f = fmemopen(text, sizeof text, "w");
	cr_assert(f);
	cr_expect_eq(sprt_bindings_check(&sp, b.v, b.n, NULL, NULL, f), SPRT_ETYPE);
	fclose(f);
	/* located at the name, quoted with a caret, then the note */
	const char *want = "fake.space:4:9: error: --set prec=5 gives 'prec' an int, but it holds a string\n"
			   "    4 | setting prec = \"double\"\n"
			   "      |         ^~~~\n"
			   "fake.space:4:9: note: ";
	cr_expect(!strncmp(text, want, strlen(want)), "%s", text);
	/* a value not named in `sets` came from the profile */
	memset(text, 0, sizeof text);
	f = fmemopen(text, sizeof text, "w");
	cr_assert(f);
	struct sprt_bindings sets = { 0 };
	cr_assert_eq(sprt_bindings_set_arg(&sets, "n=7", why, sizeof why), 0);
	cr_expect_eq(sprt_bindings_check(&sp, b.v, b.n, &sets, "p.json", f), SPRT_ETYPE);
	fclose(f);
	cr_expect(strstr(text, "error: --device-profile 'p.json' gives 'prec' an int"), "%s", text);
	sprt_bindings_release(&sets);
	sprt_bindings_release(&b);
}
