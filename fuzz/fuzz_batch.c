/*
 * fuzz_batch.c - libFuzzer target over the reader of `spacetune batch`
 * files (tune_batch_load, tuner/batch.c; the format is docs/TUNING.md's).
 *
 * Each input is one batch file, written beside two readable spaces
 * (a.space, "b c.space") so that problems naming them get past the check
 * that their files exist.  Besides the sanitizers it checks what the
 * reader promises: a rejected file gets an error naming it (FILE:LINE:COL
 * or "spacetune: error:"), an accepted one has problems, each with its
 * key, strategy and bindings.  The runner's parts of batch.c call
 * functions that fuzz/build.sh stubs: the reader never reaches them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tuner/batch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[128];

static void touch(const char *name)
{
	char p[192];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f)
		abort();
	fputs("x = range(4)\n", f);
	fclose(f);
}

/* The scratch folder goes at exit (libFuzzer exits through exit()). */
static void cleanup(void)
{
	char p[192];
	const char *const names[] = { "a.space", "b c.space", "fuzz.batch" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "%s", "/tmp/fuzzbatch.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		touch("a.space");
		touch("b c.space");
		snprintf(path, sizeof path, "%s/fuzz.batch", dir);
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();

	char *msg = NULL;
	size_t len = 0;
	FILE *diag = open_memstream(&msg, &len);
	if (!diag)
		abort();
	struct tune_batch *b = NULL;
	int rc = tune_batch_load(path, diag, &b);
	fclose(diag);
	if (rc != 0) {
		if (b || (!strstr(msg, "fuzz.batch:") && !strstr(msg, "spacetune: error:")))
			abort();
	} else {
		if (!b || b->nproblems < 1)
			abort();
		for (int i = 0; i < b->nproblems; i++) {
			const struct tune_batch_problem *p = &b->problems[i];
			if (!p->key || !p->strategy || !p->space_path || !p->problem || p->nsets < 0)
				abort();
			for (int k = 0; k < p->nsets; k++)
				if (!p->sets[k] || !strchr(p->sets[k], '='))
					abort();
		}
		tune_batch_free(b);
	}
	free(msg);
	return 0;
}
