/*
 * helpers.h - shared fixtures for the Criterion tests of the front end.
 *
 * A `struct fe` runs the front end over a source string held in memory:
 * diagnostics are collected in a buffer (diag.out == NULL), the AST dump
 * goes through open_memstream, and fe_release() frees everything, so every
 * test can assert on exact text and still run clean under ASan.
 *
 *   struct fe f;
 *   fe_parse(&f, "x = 1\n");
 *   cr_assert_str_eq(fe_dump(&f), "1: (assign x 1)\n");
 *   fe_release(&f);
 *
 * Everything here is `static`, so each test program gets its own copy.
 */
#ifndef SPACEC_TESTS_HELPERS_H
#define SPACEC_TESTS_HELPERS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "order.h"
#include "parse.h"
#include "sema.h"

/* The file name every diagnostic is reported against. */
#define FE_FILE "t.space"

struct fe {
	struct ast_module mod;
	struct diag diag;
	struct sema_program prog;
	int parse_errors;
	int sema_errors;   /* -1: sema did not run */
	char *dump;        /* last fe_dump() result, malloc'd */
};

/* Parses `len` bytes of `src` (which may hold NUL bytes). */
static inline int fe_parsen(struct fe *f, const char *src, size_t len)
{
	memset(f, 0, sizeof(*f));
	ast_module_init(&f->mod, FE_FILE);
	diag_init(&f->diag, FE_FILE, src, len, NULL);
	f->sema_errors = -1;
	f->parse_errors = parse_source(&f->mod, &f->diag, src, len);
	return f->parse_errors;
}

static inline int fe_parse(struct fe *f, const char *src)
{
	return fe_parsen(f, src, strlen(src));
}

/* Runs sema on what parsed (even after parse errors), then, as the
 * pipeline does, places the default loop order (dag/order.c). */
static inline int fe_sema(struct fe *f)
{
	f->sema_errors = sema_analyze(&f->mod, &f->diag, &f->prog);
	if (!f->sema_errors && !f->diag.errors)
		dag_order_place(&f->prog, false);
	return f->sema_errors;
}

/* Parse, then sema if the parse was clean; returns the total errors. */
static inline int fe_check(struct fe *f, const char *src)
{
	if (fe_parse(f, src))
		return f->parse_errors;
	return fe_sema(f);
}

/* The diagnostics so far ("" when none). */
static inline const char *fe_diag(const struct fe *f)
{
	return f->diag.buf ? f->diag.buf : "";
}

static inline bool fe_diag_has(const struct fe *f, const char *needle)
{
	return strstr(fe_diag(f), needle) != NULL;
}

/* Number of non-overlapping occurrences of `needle` in the diagnostics. */
static inline int fe_diag_count(const struct fe *f, const char *needle)
{
	int n = 0;
	size_t len = strlen(needle);
	for (const char *p = fe_diag(f); (p = strstr(p, needle)); p += len)
		n++;
	return n;
}

/* The S-expression dump of the module; valid until the next call. */
static inline const char *fe_dump(struct fe *f)
{
	size_t n = 0;
	free(f->dump);
	f->dump = NULL;
	FILE *m = open_memstream(&f->dump, &n);
	if (!m)
		abort();
	ast_dump(&f->mod, m);
	fclose(m);
	return f->dump;
}

/* The dump of one expression; the caller frees the result. */
static inline char *fe_dump_expr(const struct ast_expr *e)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	if (!m)
		abort();
	ast_dump_expr(e, m);
	fclose(m);
	return s;
}

static inline void fe_release(struct fe *f)
{
	free(f->dump);
	ast_module_release(&f->mod);
	diag_release(&f->diag);
	memset(f, 0, sizeof(*f));
}

/* The final definition of `name` (NULL when there is none). */
static inline struct sema_def *fe_def(const struct fe *f, const char *name)
{
	return sema_lookup(&f->prog, name);
}

/* Any version of `name` with the given cname ("x__v1"), or NULL. */
static inline struct sema_def *fe_cdef(const struct fe *f, const char *cname)
{
	for (int i = 0; i < f->prog.ndefs; i++)
		if (!strcmp(f->prog.defs[i]->cname, cname))
			return f->prog.defs[i];
	return NULL;
}

/* Position of the definition with this cname in prog.defs, or -1. */
static inline int fe_topo_pos(const struct fe *f, const char *cname)
{
	for (int i = 0; i < f->prog.ndefs; i++)
		if (!strcmp(f->prog.defs[i]->cname, cname))
			return i;
	return -1;
}

/*
 * The cnames of a list of definitions joined by spaces, e.g. the loop
 * order "a b c"; malloc'd, the caller frees it.
 */
static inline char *fe_names(struct sema_def *const *defs, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(defs[i]->cname) + 1;
	char *s = malloc(len), *p = s;
	*p = 0;
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? " " : "", defs[i]->cname);
	return s;
}

#endif
