/*
 * direct_run.c - a program of its own over an enumerator built with
 * -DSPACEC_NO_MAIN (tests/cli/set.sh): it binds its NAME=VALUE arguments
 * itself and calls sprt_run, never sprt_main, so only the runtime's
 * enumeration stands between a value of the wrong type and the space.
 * With --access first, it opens the space's random access instead
 * (sprt_access_open, sprt_access_size), the other door of the runtime.
 * Prints the number of points; a refused run exits 1 with the located
 * error that sprt_bindings_check writes, any other failure exits 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "spacert.h"

extern const struct sprt_space spacec_space;

static int count_point(void *user, const sprt_val *point, int n)
{
	(void)point;
	(void)n;
	++*(uint64_t *)user;
	return 0;
}

/* The number of points through random access; its error code as sprt_run's. */
static int access_size(struct sprt_ctx *ctx, uint64_t *points)
{
	struct sprt_access *acc = NULL;
	int rc = sprt_access_open(&acc, ctx);
	if (!rc)
		rc = sprt_access_size(acc, points);
	sprt_access_free(acc);
	return -rc;
}

int main(int argc, char **argv)
{
	struct sprt_bindings b = { 0 };
	char err[256];
	bool by_access = argc > 1 && !strcmp(argv[1], "--access");
	for (int i = 1 + by_access; i < argc; i++)
		if (sprt_bindings_set_arg(&b, argv[i], err, sizeof err)) {
			fprintf(stderr, "direct_run: %s\n", err);
			return 2;
		}
	struct sprt_ctx ctx;
	if (sprt_ctx_init(&ctx, &spacec_space))
		return 2;
	uint64_t points = 0;
	ctx.bindings = b.v;
	ctx.nbindings = b.n;
	ctx.emit = count_point;
	ctx.emit_user = &points;
	/* two threads: the check must come before any worker starts */
	struct sprt_run_options opt = { .threads = 2 };
	int rc = by_access ? access_size(&ctx, &points) : sprt_run(&ctx, NULL, &opt), status = 0;
	if (rc == -SPRT_ETYPE && sprt_bindings_check(&spacec_space, b.v, b.n, NULL, NULL, stderr)) {
		status = 1;
	} else if (rc) {
		fprintf(stderr, "direct_run: %s failed (%d)\n", by_access ? "random access" : "sprt_run", rc);
		status = 2;
	} else {
		printf("%" PRIu64 "\n", points);
	}
	sprt_ctx_release(&ctx);
	sprt_bindings_release(&b);
	return status;
}
