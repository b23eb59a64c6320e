/*
 * test_kopt.c - the kernel optimizer's API (optimizer/kopt.h) without a
 * device: pragma parsing, the parameters as .space text, diagnostics, and
 * the launch geometry a variant gets.  The expected values are worked out
 * from the pragma text and the transformation's rule (docs/TUNING.md), not
 * read from the implementation; tests/optimizer/run.sh runs the kernels.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/kopt.h"

static const char *const two_loops =
	"__kernel void k(__global const float *a, __global float *o, int n)\n"
	"{\n"
	"\tfloat s = 0.0f;\n"
	"#pragma spacetune unroll u 1 4 1 tolerance 5 number 2\n"
	"\tfor (int i = 0; i < n; i++)\n"
	"\t\ts += a[i];\n"
	"#pragma spacetune unroll\n"
	"\tfor (int j = 0; j < 6; j += 2)\n"
	"\t\ts += a[j];\n"
	"\to[get_global_id(0)] = s;\n"
	"}\n";

/* Loads `src` as k.cl; diagnostics into *diag (malloc'd). */
static int load(const char *src, const char *kernel, struct kopt **k, char **diag)
{
	size_t n = 0;
	FILE *f = open_memstream(diag, &n);
	cr_assert(f);
	struct kopt_input in = { .filename = "k.cl", .source = src, .len = strlen(src), .kernel = kernel, .diag = f };
	int rc = kopt_load(&in, k);
	fclose(f);
	return rc;
}

Test(kopt, has_pragmas)
{
	cr_expect(kopt_has_pragmas(two_loops, strlen(two_loops)));
	const char *none = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n__kernel void k(void) {}\n";
	cr_expect(!kopt_has_pragmas(none, strlen(none)));
	const char *spaced = "  #  pragma   spacetune unroll\n";
	cr_expect(kopt_has_pragmas(spaced, strlen(spaced)));
}

Test(kopt, pragmas_and_space)
{
	struct kopt *k;
	char *diag = NULL;
	cr_assert_eq(load(two_loops, "k", &k, &diag), 0, "%s", diag);
	cr_expect_eq(kopt_npragmas(k), 2);
	cr_expect_eq(kopt_pragma_kind(k, 0), KOPT_UNROLL);
	cr_expect_str_eq(kopt_pragma_param(k, 0, 0), "u");
	cr_expect_eq(kopt_pragma_line(k, 0), 4);
	cr_expect_eq(kopt_pragma_tolerance(k, 0), 5.0);
	cr_expect_eq(kopt_pragma_number(k, 0), 2);
	/* no name: the kind and the line; no range: the trip count (0, 2, 4: 3 iterations) */
	cr_expect_str_eq(kopt_pragma_param(k, 1, 0), "unroll_7");
	cr_expect_lt(kopt_pragma_tolerance(k, 1), 0.0);
	const char *sp = kopt_space(k);
	cr_expect(strstr(sp, "u = [1, 2, 3, 4]\n"), "%s", sp);
	cr_expect(strstr(sp, "unroll_7 = [1, 2, 3]\n"), "%s", sp);
	cr_expect(strstr(sp, "require unroll_7 <= 3\n"), "%s", sp);
	cr_expect(!strstr(sp, "require u "), "the trip count of u's loop is not known: %s", sp);
	kopt_free(k);
	free(diag);
}

Test(kopt, apply_needs_every_value)
{
	struct kopt *k;
	char *diag = NULL, *src = NULL, why[256];
	cr_assert_eq(load(two_loops, "k", &k, &diag), 0, "%s", diag);
	const char *names[] = { "u" }, *values[] = { "2" };
	struct kopt_variant v = { .nparams = 1, .names = names, .values = values, .work_dim = 1, .global = { 8 } };
	cr_expect_eq(kopt_apply(k, &v, &src, why, sizeof(why)), 1);
	cr_expect(strstr(why, "unroll_7"), "%s", why);
	cr_expect_null(src);
	kopt_free(k);
	free(diag);
}

Test(kopt, unroll_factor_one_is_the_original)
{
	struct kopt *k;
	char *diag = NULL, *src = NULL, why[256];
	cr_assert_eq(load(two_loops, "k", &k, &diag), 0, "%s", diag);
	const char *names[] = { "u", "unroll_7" }, *values[] = { "1", "1" };
	struct kopt_variant v = { .nparams = 2, .names = names, .values = values, .work_dim = 1, .global = { 8 } };
	cr_assert_eq(kopt_apply(k, &v, &src, why, sizeof(why)), 0, "%s", why);
	/* the original minus the two pragma lines */
	cr_expect(!strstr(src, "#pragma"));
	cr_expect(strstr(src, "\tfor (int i = 0; i < n; i++)\n\t\ts += a[i];\n"), "%s", src);
	cr_expect_eq(strlen(src), strlen(two_loops) - strlen("#pragma spacetune unroll u 1 4 1 tolerance 5 number 2\n") -
				  strlen("#pragma spacetune unroll\n"));
	free(src);
	kopt_free(k);
	free(diag);
}

Test(kopt, coarsen_divides_the_global_size)
{
	const char *src = "__kernel void k(__global float *o, int n)\n{\n#pragma spacetune coarsen f\n"
			  "\tint x = get_global_id(0);\n\tif (x < n)\n\t\to[x] = (float)x;\n}\n";
	struct kopt *k;
	char *diag = NULL, *out = NULL, why[256];
	cr_assert_eq(load(src, "k", &k, &diag), 0, "%s", diag);
	cr_expect(strstr(kopt_space(k), "f = [1, 2, 4, 8]\n"), "%s", kopt_space(k));
	const char *names[] = { "f" }, *values[] = { "4" };
	/* 37 items by 4: ceil(37 / 4) = 10 work-items; with work-groups of 4, 12 */
	struct kopt_variant v = { .nparams = 1, .names = names, .values = values, .work_dim = 1, .global = { 37 } };
	cr_assert_eq(kopt_apply(k, &v, &out, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(v.global[0], 10);
	cr_expect(strstr(out, "< 37"), "the original size guards the items: %s", out);
	free(out);
	struct kopt_variant w = { .nparams = 1, .names = names, .values = values, .work_dim = 1, .global = { 37 },
				  .local = { 4 } };
	cr_assert_eq(kopt_apply(k, &w, &out, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(w.global[0], 12);
	cr_expect_eq(w.local[0], 4);
	free(out);
	kopt_free(k);
	free(diag);
}

Test(kopt, local_sets_the_work_group)
{
	const char *src = "__kernel void k(__global const float *a, __global float *o)\n{\n"
			  "#pragma spacetune local a wg 4 8 *2\n"
			  "\tint x = get_global_id(0);\n\to[x] = a[x] + a[x + 2] + (float)get_global_size(0);\n}\n";
	struct kopt *k;
	char *diag = NULL, *out = NULL, why[256];
	cr_assert_eq(load(src, "k", &k, &diag), 0, "%s", diag);
	const char *sp = kopt_space(k);
	cr_expect(strstr(sp, "wg = [4, 8]\n"), "%s", sp);
	/* a tile of wg + 2 floats (offsets 0..2) */
	cr_expect(strstr(sp, "require (wg + 2) * 4 <= spacetune_local_mem\n"), "%s", sp);
	const char *names[] = { "wg" }, *values[] = { "8" };
	uint64_t counts[] = { 21, 19 };
	struct kopt_variant v = { .nparams = 1, .names = names, .values = values, .work_dim = 1, .global = { 19 },
				  .nargs = 2, .arg_counts = counts };
	cr_assert_eq(kopt_apply(k, &v, &out, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(v.local[0], 8);
	cr_expect_eq(v.global[0], 24);
	cr_expect(strstr(out, "__local float spt_a[10];"), "%s", out);
	cr_expect(strstr(out, "spt_i < 21"), "loads stay inside the buffer: %s", out);
	cr_expect(strstr(out, "(size_t)19"), "the kernel still sees the original global size: %s", out);
	free(out);
	kopt_free(k);
	free(diag);
}

/* Errors: file:line:col, the line and a caret.  Arrays, not pointers:
 * Criterion hands the parameters to another process image. */
struct bad {
	char src[256], where[32], msg[64];
};

ParameterizedTestParameters(kopt, rejected)
{
	static struct bad cases[] = {
		{ "__kernel void k(__global float *o, int n)\n{\n#pragma spacetune unroll u 1 2 1\n"
		  "\tfor (int i = 0; i < n; i++) {\n\t\tif (o[i] > 0) break;\n\t}\n}\n",
		  "k.cl:5:17: error: ", "'break' in an annotated loop" },
		{ "__kernel void k(__global float *o, int n)\n{\n#pragma spacetune unroll u\n"
		  "\tfor (int i = 0; i < n; i++)\n\t\to[i] = 0;\n}\n",
		  "k.cl:3:1: error: ", "not a constant" },
		{ "__kernel void k(__global float *o)\n{\n#pragma spacetune unroll u 1 2 1\n\to[0] = 1;\n}\n",
		  "k.cl:3:1: error: ", "must stand right before a for loop" },
		{ "__kernel void k(__global float *o)\n{\n\to[0] = undefined_name;\n}\n#pragma spacetune coarsen\n",
		  "k.cl:3:9: error: ", "undefined_name" },
		{ "__kernel void k(__global float *o)\n{\n#pragma spacetune vector v 1 6 1\n"
		  "\tfor (int i = 0; i < 8; i++)\n\t\to[i] = 2.0f;\n}\n",
		  "k.cl:3:1: error: ", "vector widths are 1, 2, 3, 4, 8 or 16, not 5" },
		{ "int at(void) { return get_global_id(0); }\n__kernel void k(__global float *o)\n{\n"
		  "#pragma spacetune coarsen c\n\to[at()] = 1.0f;\n}\n",
		  "k.cl:5:4: error: ", "does not look into 'at'" },
		{ "__kernel void k(__global float *o, int n)\n{\n#pragma spacetune vector v\n"
		  "\tfor (int i = 0; i < 8; i++) {\n\t\tint t = o[i];\n\t\to[i] = t;\n\t}\n}\n",
		  "k.cl:5:3: error: ", "'t' is 'int', not the loop's element type 'float'" },
	};
	return cr_make_param_array(struct bad, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad *b, kopt, rejected)
{
	struct kopt *k = NULL;
	char *diag = NULL;
	cr_expect_eq(load(b->src, "k", &k, &diag), 1);
	cr_expect_null(k);
	cr_expect(!strncmp(diag, b->where, strlen(b->where)), "%s", diag);
	cr_expect(strstr(diag, b->msg), "%s", diag);
	cr_expect(strstr(diag, "^"), "a caret: %s", diag);
	free(diag);
}
