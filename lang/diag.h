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
	FILE *out; /* NULL: write into buf */
	char *buf;
	size_t buf_len, buf_cap;
	int errors, warnings;
	bool stopped;       /* DIAG_MAX_ERRORS reached */
	bool werror;        /* warnings count as errors */
	bool no_warnings;   /* -w */
	bool last_suppressed; /* notes follow their parent's fate */
	/* Names of warnings switched off with -Wno-NAME (comma list). */
	const char *disabled_warnings;
	const char *program; /* diag_plain's prefix; NULL: "spacec" */
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

/* Damerau-free Levenshtein distance, for "did you mean". */
int diag_edit_distance(const char *a, const char *b);

#endif
