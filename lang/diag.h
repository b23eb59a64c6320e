/*
 * diag.h - located diagnostics in GNU format.
 *
 *   gemm.space:12:12: error: unknown name 'tilex'
 *      12 | correct c1 = tilex * tile_y > 1024
 *         |              ^~~~~
 *   gemm.space:3:1: note: did you mean 'tile_x'?
 *
 * A `struct diag` owns a copy of the source text (so it can quote lines)
 * and writes either to a FILE (stderr by default) or to a growing buffer
 * that tests read back.  Errors are counted; after DIAG_MAX_ERRORS further
 * errors are swallowed and one "too many errors" line is printed.
 */
#ifndef SPACEC_DIAG_H
#define SPACEC_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DIAG_MAX_ERRORS 20

/* A half-open span of source, 1-based line and column (bytes). */
struct srcloc {
	int line, col;
	int end_line, end_col; /* column one past the last byte */
};

enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

struct diag {
	const char *filename;
	const char *src; /* whole source, NUL-terminated copy */
	size_t src_len;
	size_t *line_start, nlines; /* byte offset of each line, built on first quote */
	FILE *out; /* NULL: write into buf */
	char *buf;
	size_t buf_len, buf_cap;
	int errors, warnings;
	int promoted;       /* of the errors: warnings made errors by -Werror */
	bool stopped;       /* DIAG_MAX_ERRORS reached */
	bool werror;        /* warnings count as errors */
	bool no_warnings;   /* -w */
	bool last_suppressed; /* notes follow their parent's fate */
	/* Names of warnings switched off with -Wno-NAME (comma list). */
	const char *disabled_warnings;
	const char *program; /* diag_plain's prefix; NULL: "spacec" */
	/* When set, only errors whose message starts with one of these
	 * (NULL-terminated) are reported; the rest, warnings and their notes
	 * are dropped uncounted (name errors after syntax errors). */
	const char *const *only;
};

/* src may be NULL (no quoting); the diag keeps a private copy. */
void diag_init(struct diag *d, const char *filename, const char *src,
	       size_t src_len, FILE *out);
void diag_release(struct diag *d);

/*
 * Report at a location.  For warnings, `wname` is the -W name printed as
 * "[-Wname]"; pass NULL for errors and notes.
 */
void diag_report(struct diag *d, enum diag_level lvl, struct srcloc loc,
		 const char *wname, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#define diag_error(d, loc, ...) diag_report((d), DIAG_ERROR, (loc), NULL, __VA_ARGS__)
#define diag_note(d, loc, ...) diag_report((d), DIAG_NOTE, (loc), NULL, __VA_ARGS__)
#define diag_warning(d, loc, w, ...) diag_report((d), DIAG_WARNING, (loc), (w), __VA_ARGS__)

/* A message with no location ("spacec: error: ..."). */
void diag_plain(struct diag *d, enum diag_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Errors that are not promoted warnings: what decides whether a pass can
 * go on (with -Werror, every class of warning is still looked for).
 */
static inline int diag_real_errors(const struct diag *d)
{
	return d->errors - d->promoted;
}

/* Whether warning `wname` is switched off (-w, -Wno-NAME). */
bool diag_warning_disabled(const struct diag *d, const char *wname);

/* The names -Wno-NAME accepts, NULL-terminated. */
extern const char *const diag_warning_names[];
/* Whether `name` is one of them. */
bool diag_known_warning(const char *name);

/* Damerau-free Levenshtein distance, for "did you mean". */
int diag_edit_distance(const char *a, const char *b);

#endif
