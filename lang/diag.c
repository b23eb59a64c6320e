#include "diag.h"
#include "arena.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const diag_warning_names[] = {
	"unused", "constant-constraint", "soft-never-rejects", "unused-parameter",
	"undeclared-dependency", "constraint-type", "domain-errors", "tune", "invalid-escape", NULL,
};

bool diag_known_warning(const char *name)
{
	for (int i = 0; diag_warning_names[i]; i++)
		if (!strcmp(diag_warning_names[i], name))
			return true;
	return false;
}

void diag_init(struct diag *d, const char *filename, const char *src,
	       size_t src_len, FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->filename = filename ? filename : "<input>";
	if (src) {
		char *copy = xmalloc(src_len + 1);
		memcpy(copy, src, src_len);
		copy[src_len] = 0;
		d->src = copy;
		d->src_len = src_len;
	}
	d->out = out;
}

void diag_release(struct diag *d)
{
	free((char *)d->src);
	free(d->buf);
	free(d->line_start);
	d->line_start = NULL;
	d->src = NULL;
	d->buf = NULL;
}

static void emitv(struct diag *d, const char *fmt, va_list ap)
{
	if (d->out) {
		vfprintf(d->out, fmt, ap);
		return;
	}
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	if (d->buf_len + (size_t)n + 1 > d->buf_cap) {
		d->buf_cap = (d->buf_len + (size_t)n + 1) * 2;
		d->buf = xrealloc(d->buf, d->buf_cap);
	}
	vsnprintf(d->buf + d->buf_len, (size_t)n + 1, fmt, ap);
	d->buf_len += (size_t)n;
}

static void emit(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void emit(struct diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emitv(d, fmt, ap);
	va_end(ap);
}

static const char *level_name[] = { "error", "warning", "note" };

/*
 * Where each line starts, found once: scanning from line 1 for every
 * quote made 100,000 warnings quadratic (minutes).
 */
static void index_lines(struct diag *d)
{
	size_t n = 1;
	for (const char *p = d->src; (p = memchr(p, '\n', d->src_len - (size_t)(p - d->src))); p++)
		n++;
	d->line_start = xmalloc(n * sizeof(*d->line_start));
	d->nlines = 0;
	d->line_start[d->nlines++] = 0;
	for (const char *p = d->src; (p = memchr(p, '\n', d->src_len - (size_t)(p - d->src))); p++)
		d->line_start[d->nlines++] = (size_t)(p + 1 - d->src);
}

/* Longest part of a source line quoted. */
#define QUOTE_MAX 200

/* Prints the quoted source line and a caret line under the span. */
static void quote_source(struct diag *d, struct srcloc loc)
{
	if (!d->src || loc.line <= 0)
		return;
	if (!d->line_start)
		index_lines(d);
	const char *end = d->src + d->src_len;
	const char *p = (size_t)loc.line > d->nlines ? end : d->src + d->line_start[loc.line - 1];
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	int len = (int)(eol - p);
	if (len > 0 && p[len - 1] == '\r')
		len--;
	if (p == d->src && len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
		p += 3; /* the byte order mark: the columns start after it */
		len -= 3;
	}
	int col = loc.col < 1 ? 1 : loc.col;
	int stop = (loc.end_line == loc.line && loc.end_col > col) ? loc.end_col : col + 1;
	if (stop > len + 1)
		stop = len + 1;
	/* A long line is quoted around the caret only: a 60 KB list on one
	 * line made every diagnostic about it 120 KB. */
	int from = 0, to = len;
	if (len > QUOTE_MAX) {
		from = col - 1 > QUOTE_MAX / 4 ? col - 1 - QUOTE_MAX / 4 : 0;
		if (from > len - QUOTE_MAX)
			from = len - QUOTE_MAX;
		to = from + QUOTE_MAX;
	}
	const char *more_left = from > 0 ? "..." : "", *more_right = to < len ? "..." : "";
	char *text = xmalloc(2 * (size_t)(to - from) + 8), *q = text;
	/* Non-printable bytes are shown as '?' so the caret stays aligned. */
	for (int i = from; i < to; i++) {
		unsigned char c = (unsigned char)p[i];
		*q++ = (c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80) ? (char)c : '?';
	}
	*q = 0;
	emit(d, "%5d | %s%s%s\n", loc.line, more_left, text, more_right);
	q = text;
	for (int i = from + 1; i < col && i <= to; i++)
		*q++ = p[i - 1] == '\t' ? '\t' : ' ';
	*q++ = '^';
	for (int i = col + 1; i < stop && i <= to + 1; i++)
		*q++ = '~';
	*q = 0;
	emit(d, "      | %*s%s\n", (int)strlen(more_left), "", text);
	free(text);
}

bool diag_warning_disabled(const struct diag *d, const char *wname)
{
	if (d->no_warnings)
		return true;
	if (!wname || !d->disabled_warnings)
		return false;
	size_t n = strlen(wname);
	const char *p = d->disabled_warnings;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && !strncmp(p, wname, n))
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

void diag_report(struct diag *d, enum diag_level lvl, struct srcloc loc,
		 const char *wname, const char *fmt, ...)
{
	if (d->only && lvl != DIAG_NOTE) {
		char head[128];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(head, sizeof(head), fmt, ap);
		va_end(ap);
		bool keep = false;
		for (int i = 0; d->only[i] && lvl == DIAG_ERROR; i++)
			keep |= !strncmp(head, d->only[i], strlen(d->only[i]));
		if (!keep) {
			d->last_suppressed = true;
			return;
		}
	}
	if (lvl == DIAG_NOTE) {
		if (d->last_suppressed)
			return;
	} else if (lvl == DIAG_WARNING && diag_warning_disabled(d, wname)) {
		d->last_suppressed = true;
		return;
	} else {
		bool promote = lvl == DIAG_WARNING && d->werror;
		if (promote) {
			lvl = DIAG_ERROR;
			d->promoted++;
		}
		if (d->stopped) {
			d->last_suppressed = true;
			if (lvl == DIAG_ERROR)
				d->errors++;
			return;
		}
		d->last_suppressed = false;
		if (lvl == DIAG_ERROR && ++d->errors > DIAG_MAX_ERRORS) {
			d->stopped = true;
			d->last_suppressed = true;
			emit(d, "%s: fatal error: too many errors, stopping now\n", d->filename);
			return;
		}
		if (lvl == DIAG_WARNING)
			d->warnings++;
	}
	if (loc.line > 0)
		emit(d, "%s:%d:%d: %s: ", d->filename, loc.line, loc.col, level_name[lvl]);
	else
		emit(d, "%s: %s: ", d->filename, level_name[lvl]);
	va_list ap;
	va_start(ap, fmt);
	emitv(d, fmt, ap);
	va_end(ap);
	if (wname)
		emit(d, lvl == DIAG_WARNING ? " [-W%s]" : " [-Werror=%s]", wname);
	emit(d, "\n");
	quote_source(d, loc);
}

void diag_plain(struct diag *d, enum diag_level lvl, const char *fmt, ...)
{
	if (lvl == DIAG_ERROR)
		d->errors++;
	emit(d, "%s: %s: ", d->program ? d->program : "spacec", level_name[lvl]);
	va_list ap;
	va_start(ap, fmt);
	emitv(d, fmt, ap);
	va_end(ap);
	emit(d, "\n");
}

int diag_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 1000;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}
