/*
 * fuzz_frontend.c - libFuzzer target over the whole front end.
 *
 * Each input is one .space file: it is parsed, analysed (even after parse
 * errors, since sema must cope with whatever the parser kept) and dumped,
 * with diagnostics collected in a buffer.  Everything is released before
 * returning, so LeakSanitizer sees any leak as a finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ast.h"
#include "diag.h"
#include "parse.h"
#include "sema.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	const char *src = (const char *)data;
	struct diag diag;
	diag_init(&diag, "fuzz.space", src, size, NULL);
	struct ast_module mod;
	ast_module_init(&mod, "fuzz.space");
	int errors = parse_source(&mod, &diag, src, size);
	if (devnull)
		ast_dump(&mod, devnull);
	/* Sema after parse errors too, unless the parser gave up. */
	if (!diag.stopped) {
		struct sema_program prog;
		sema_analyze(&mod, &diag, &prog);
		if (devnull)
			ast_dump(&mod, devnull);
	}
	(void)errors;
	ast_module_release(&mod);
	diag_release(&diag);
	return 0;
}
