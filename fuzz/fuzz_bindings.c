/*
 * fuzz_bindings.c - libFuzzer target over the runtime's binding readers:
 * the device-profile JSON reader (sprt_bindings_load_json, what
 * --device-profile F.json feeds) and the --set NAME=VALUE rule
 * (sprt_set_check, sprt_bindings_set_arg; batch files' set lines share it).
 *
 * The whole input is one profile; each of its lines is also one --set
 * argument.  Besides the sanitizers, it checks the promise of the
 * interfaces: a rejected profile gets a located "FILE:LINE:COL: error:"
 * message, a rejected --set a non-empty one, and what is bound is valid.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spacert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_bound(const struct sprt_bindings *b)
{
	for (int i = 0; i < b->n; i++) {
		if (!b->v[i].name || !b->v[i].name[0])
			abort();
		for (int k = 0; k < i; k++) /* a later key replaces an earlier one */
			if (!strcmp(b->v[i].name, b->v[k].name))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char err[512];
	struct sprt_bindings b = { 0 };
	int rc = sprt_bindings_load_json(&b, "fuzz.json", text, size, err, sizeof err);
	if (rc == SPRT_EVALUE && (strncmp(err, "fuzz.json:", 10) || !strstr(err, ": error: ")))
		abort();
	if (rc != SPRT_EVALUE && rc != SPRT_OK && rc != SPRT_ENOMEM)
		abort();
	check_bound(&b);

	/* Each line as one --set argument (a C string: up to a NUL or newline). */
	for (size_t at = 0; at < size;) {
		const char *nl = memchr(text + at, '\n', size - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : size - at;
		char *arg = malloc(n + 1);
		if (!arg)
			break;
		memcpy(arg, text + at, n);
		arg[n] = 0;
		size_t name_len = 0;
		err[0] = 0;
		int c = sprt_set_check(arg, &name_len, err, sizeof err);
		if (c != SPRT_OK && !err[0])
			abort();
		if (c == SPRT_OK && (name_len == 0 || arg[name_len] != '='))
			abort();
		err[0] = 0;
		int s = sprt_bindings_set_arg(&b, arg, err, sizeof err);
		if ((s == SPRT_OK) != (c == SPRT_OK) || (s != SPRT_OK && !err[0]))
			abort();
		free(arg);
		at += n + 1;
	}
	check_bound(&b);
	sprt_bindings_release(&b);
	return 0;
}
