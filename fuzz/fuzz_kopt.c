/*
 * fuzz_kopt.c - libFuzzer target over the kernel optimizer's reading of
 * `#pragma spacetune` annotations (optimizer/kopt.c; docs/TUNING.md,
 * "Kernel annotations"): libclang parses the kernel, the pragmas' own
 * text is read by hand, and each point's source is string work on byte
 * ranges of the input.
 *
 * Each input is one .cl file.  It is loaded (kopt_load); a rejection must
 * say where ("fuzz.cl:"), an accepted kernel gives its space text and
 * pragma list, and three points (every parameter 1, then 2, then 4) are
 * applied: each gives a source, or says why not.  libclang itself is not
 * instrumented: the coverage is kopt.c's.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/kopt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXP 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *diag = open_memstream(&msg, &len);
	if (!diag)
		abort();
	struct kopt_input in = { .filename = "fuzz.cl", .source = (const char *)data, .len = size,
				 .kernel = NULL, .diag = diag };
	(void)kopt_has_pragmas(in.source, size);
	struct kopt *k = NULL;
	int rc = kopt_load(&in, &k);
	fclose(diag);
	if (rc != 0) {
		if (k || !strstr(msg, "fuzz.cl:"))
			abort();
		free(msg);
		return 0;
	}
	free(msg);
	if (!kopt_space(k))
		abort();
	const char *names[MAXP];
	int n = 0;
	for (int i = 0; i < kopt_npragmas(k); i++) {
		(void)kopt_pragma_kind(k, i);
		(void)kopt_pragma_line(k, i);
		(void)kopt_pragma_tolerance(k, i);
		(void)kopt_pragma_number(k, i);
		for (int p = 0; p < kopt_pragma_nparams(k, i) && n < MAXP; p++)
			if (!(names[n++] = kopt_pragma_param(k, i, p)))
				abort();
	}
	static const char *const tries[] = { "1", "2", "4" };
	for (size_t t = 0; t < sizeof tries / sizeof *tries; t++) {
		const char *values[MAXP];
		for (int i = 0; i < n; i++)
			values[i] = tries[t];
		struct kopt_variant v = { .nparams = n, .names = names, .values = values, .work_dim = 2,
					  .global = { 64, 64, 1 } };
		char *src = NULL, why[256] = "";
		int a = kopt_apply(k, &v, &src, why, sizeof why);
		if (a == 0 && !src)
			abort();
		if (a != 0 && !why[0])
			abort();
		free(src);
	}
	kopt_free(k);
	return 0;
}
