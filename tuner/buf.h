/*
 * buf.h - a growable byte buffer that remembers running out of memory, so
 * a writer appends without checking each step and tests `failed` once at
 * the end.  Owner: tuner/ (results keys in db.c, worker messages in
 * worker.c).  Header-only: db.c and libtuneexec link apart.
 */
#ifndef SPACEC_TUNER_BUF_H
#define SPACEC_TUNER_BUF_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct tune_buf {
	char *p;        /* NULL until something is added; the caller frees it */
	size_t len, cap;
	bool failed;
};

/* Appends n bytes, with a '\0' kept after them (text reads as a string);
 * after a failure, nothing. */
static inline void tune_buf_add(struct tune_buf *b, const void *data, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 128;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

#endif
