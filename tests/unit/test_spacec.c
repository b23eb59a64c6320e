/*
 * libspacec's entry point (lib/spacec.h): a source, bindings and options
 * in, a loaded enumerator or located diagnostics out.  The counts are
 * worked out by hand from the spaces below, not taken from a run.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "spacec.h"
#include "spacert.h"

/* a in 1..6, b in {1, 2, 4}; a * b <= limit.  With limit = 8:
 * b=1: a=1..6 (6), b=2: a=1..4 (4), b=4: a=1..2 (2) = 12 points;
 * with limit = 4: 4 + 2 + 1 = 7. */
static const char space[] = "device limit = 8\n"
			    "a = range(1, 7)\n"
			    "b = [1, 2, 4]\n"
			    "require a * b <= limit\n";

static uint64_t count(const struct sprt_space *sp, const struct sprt_bindings *b)
{
	struct sprt_ctx ctx;
	cr_assert_eq(sprt_ctx_init(&ctx, sp), 0);
	ctx.bindings = b ? b->v : NULL;
	ctx.nbindings = b ? b->n : 0;
	cr_assert_eq(sp->enumerate(&ctx), 0);
	uint64_t n = ctx.valid;
	sprt_ctx_release(&ctx);
	return n;
}

static uint64_t compile_count(const char *opt, const char *val, const char *set)
{
	struct spacec_options o;
	spacec_options_init(&o);
	char why[128];
	if (opt)
		cr_assert_eq(spacec_option(&o, opt, val, why, sizeof why), 0, "%s", why);
	struct sprt_bindings b = { 0 };
	if (set)
		cr_assert_eq(sprt_bindings_set_arg(&b, set, why, sizeof why), 0, "%s", why);
	struct spacec_build build = { .bindings = &b, .specialize = true };
	struct spacec_unit u = { 0 };
	struct spacec_enumerator e;
	cr_assert_eq(spacec_compile(&u, "t.space", space, strlen(space), &o, &build, NULL, &e), 0, "%s",
		     u.diag.buf ? u.diag.buf : "");
	uint64_t n = count(e.space, &b);
	spacec_enumerator_release(&e);
	spacec_unit_release(&u);
	sprt_bindings_release(&b);
	return n;
}

Test(spacec, compile_and_count)
{
	cr_expect_eq(compile_count(NULL, NULL, NULL), 12);
	cr_expect_eq(compile_count("-O", "0", NULL), 12);
	cr_expect_eq(compile_count("--jit", "tcc", "limit=4"), 7);
	cr_expect_eq(compile_count("-f", "no-bound-tightening", "limit=4"), 7);
}

Test(spacec, located_diagnostics)
{
	static const char bad[] = "a = range(1, 4)\nrequire a * c > 2\n";
	struct spacec_options o;
	spacec_options_init(&o);
	struct spacec_build build = { 0 };
	struct spacec_unit u = { 0 };
	struct spacec_enumerator e;
	cr_assert_eq(spacec_compile(&u, "bad.space", bad, strlen(bad), &o, &build, NULL, &e), 1);
	cr_assert_null(e.space);
	cr_assert(u.diag.buf && strstr(u.diag.buf, "bad.space:2:13: error: unknown name 'c'"), "%s",
		  u.diag.buf ? u.diag.buf : "(none)");
	spacec_unit_release(&u);
}

Test(spacec, options)
{
	struct spacec_options o;
	spacec_options_init(&o);
	char why[128];
	cr_expect_eq(o.passes.opt_level, 2);
	cr_expect_eq(spacec_option(&o, "-O", "1", why, sizeof why), 0);
	cr_expect_eq(o.passes.opt_level, 1);
	cr_expect_eq(spacec_option(&o, "-O", "3", why, sizeof why), -1);
	cr_expect(strstr(why, "-O3"));
	cr_expect_eq(spacec_option(&o, "--jit", "cc", why, sizeof why), 0);
	cr_expect_eq(o.jit.mode, JIT_CC);
	cr_expect_eq(spacec_option(&o, "--jit", "gcc", why, sizeof why), -1);
	cr_expect_eq(spacec_option(&o, "-f", "no-cse", why, sizeof why), 0);
	cr_expect(o.passes.no_cse);
	cr_expect_eq(spacec_option(&o, "-f", "no-such-pass", why, sizeof why), -1);
	cr_expect_eq(spacec_option(&o, "--threads", "2", why, sizeof why), 1);
}
