/*
 * cg_text.h - the bottom layer of the code generator: text.
 *
 * Output is built in memory buffers so that declarations can be gathered
 * while code is generated, and so that `#line` directives back into the C
 * file can be numbered in one last pass (a line holding only CG_LINE_BACK
 * becomes `#line N "out.c"`).  These helpers know no pass; passes and the
 * driver write through them.  Not a public header.
 */
#ifndef SPACEC_CG_TEXT_H
#define SPACEC_CG_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct cg;

#define CG_LINE_BACK '\001'

struct sbuf {
	char *s;
	size_t len, cap;
};

void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_puts(struct sbuf *b, const char *s);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vprintf(struct sbuf *b, const char *fmt, va_list ap);
void sbuf_release(struct sbuf *b);

/* A C string literal; '?' is escaped so that no trigraph can form.  With
 * split_lines, one literal line per source line. */
void cg_c_string(struct sbuf *b, const char *s, size_t n, bool split_lines);
/* s as a C string literal, or NULL. */
void cg_quoted(struct sbuf *b, const char *s);
/* Source text inside a C comment: no comment delimiters, no trigraphs. */
void cg_comment_text(struct sbuf *b, const char *s, size_t n);

/* Code lines at the current indent. */
void cg_line(struct cg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A fresh temporary of C type `type`; the name lives in the arena-less
 * string pool of the cg (freed with it). */
const char *cg_temp(struct cg *c, const char *type, const char *init);
int cg_scratch(struct cg *c);
int cg_string_id(struct cg *c, const char *s);
void cg_error(struct cg *c, struct srcloc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *cg_strdup(struct cg *c, const char *s);
const char *cg_fmt(struct cg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands a heap string to the generator's pool (freed with it). */
void cg_keep(struct cg *c, char *s);

/* Member names of struct space_state for every definition, and the
 * statistics rows. */
void cg_assign_names(struct cg *c);
/*
 * A prefix for the members generated code adds to struct space_state
 * (memo tables, near counts, bounds): `base`, with underscores appended
 * until no definition's member starts with it, so that every name built
 * on it stays clear of the definitions' (a definition named memo_0 or
 * near_0 once collided with a sub-nest's table).
 */
const char *cg_internal_prefix(struct cg *c, const char *base);

/*
 * Whether a .space name cannot be a C identifier as it is: a C keyword, a
 * name starting with '_', or a macro that generated code can see (the list
 * is taken from the runtime headers at build time: tools/c_macros.sh).
 */
bool cg_c_reserved(const char *s);
/* A C spelling of `want` that is none of those: a 'u' in front of a leading
 * '_', then '_' appended while the name is still reserved. */
const char *cg_c_spelling(struct cg *c, const char *want);
extern const char *const cg_c_macros[];
extern const size_t cg_n_c_macros;

#endif
