/*
 * sinks.c - where valid points go: nowhere (count), CSV, JSON lines, or
 * the binary format of runtime/FORMAT.md.
 *
 * Every write is checked.  The first failure (a full disk, a closed pipe)
 * stops the enumeration through the point callback's return value and is
 * reported by sprt_sink_close, so output is never silently truncated.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "spacert.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Binary column types (FORMAT.md). */
enum { BIN_INT = 1, BIN_FLOAT = 2, BIN_BOOL = 3, BIN_STR = 4, BIN_MIXED = 5 };

/*
 * How the binary format's rows travel (FORMAT.md), decided once for the
 * whole output at the first point: streamed in their final widths when
 * the enumerator bounded every column up front and the output can be
 * patched afterwards (the header's row count), else buffered until the
 * widths are known.
 */
enum bin_mode { BIN_UNDECIDED, BIN_BUFFERED, BIN_DIRECT };

/* A streamed column: an int in [lo, lo + span], `width` bytes at byte
 * `off` of its row (the widths of the columns before it). */
struct bin_fixed {
	int64_t lo;
	uint64_t span;
	int width;
	unsigned off;
};

/* Staged rows (streamed binary, CSV): the root writes them out in
 * writes of STAGE_BYTES; a child (a worker's buffer) lets its stage grow
 * until the worker hands it over whole, so a point is never copied twice
 * on its way out.  8 bytes of slack after the last row let a value be
 * stored as a whole int64 (put_int). */
enum { STAGE_BYTES = 1 << 18, STAGE_SLACK = 8 };

/* A CSV column's last int and its decimal text: the values of the outer
 * loops repeat for many rows, so most columns are copied, not formatted. */
struct csv_col {
	int64_t v;
	unsigned char len;       /* 0: none yet */
	char text[23];
};

/* Per-column facts gathered while buffering the binary format. */
struct bin_col {
	unsigned kinds;          /* bit (1 << sprt_kind) for each kind seen */
	int64_t min, max;        /* over SPRT_INT values */
	int64_t max_str;         /* largest string id */
};

struct sprt_sink {
	struct sprt_ctx *ctx;
	enum sprt_format fmt;
	FILE *out;
	int err;                 /* errno of the first failure, 0 if none */
	bool failed;
	/* SPRT_FMT_BINARY: rows buffered in a temporary file (a memory
	 * stream in a child), in one of two encodings: compact, 4 bytes per
	 * value (an int32 payload whose kind is its column's only kind), as
	 * long as every value fits that; general, one kind byte and 8
	 * payload bytes per value, from the first point that does not. */
	FILE *tmp;
	bool general;
	unsigned char *rec;      /* one encoded row */
	uint64_t rows;
	struct bin_col *cols;
	/* SPRT_FMT_BINARY, streamed: rows staged here, then written to out
	 * (a child: to its memory stream, tmp). */
	enum bin_mode mode;
	struct bin_fixed *fixed;
	int ncols;               /* the space's parameters (read per point) */
	size_t row_size;
	unsigned char *stage;
	size_t staged, stage_cap;
	/* SPRT_FMT_CSV: each column's last int and its text (csv_int). */
	struct csv_col *csv;
	off_t nrows_at;          /* the root: where the header's row count is */
	/* Threaded runs: a parent serialises the blocks its children put. */
	pthread_mutex_t lock;
	/* A child (per-thread buffer): its memory stream (out, or tmp for
	 * the binary format) and the parent. */
	struct sprt_sink *parent;
	char *mem;
	size_t memlen;
};

/* What a child held: encoded points, and the binary format's counts. */
struct sprt_sink_block {
	char *data;
	size_t len;
	uint64_t rows;
	bool general;            /* binary: the rows' encoding */
	struct bin_col *cols;    /* binary: nparams entries */
};

static int fail(struct sprt_sink *s, int err)
{
	if (!s->failed) {
		s->failed = true;
		s->err = err ? err : EIO;
	}
	return 1;
}

bool sprt_sink_failed(const struct sprt_sink *s)
{
	return s->failed;
}

/* ---- the stage ---------------------------------------------------------------- */

static int fail(struct sprt_sink *s, int err);

/* Writes the staged rows: the root's to the output; a child's to its
 * memory stream (only once something else went there first). */
static int stage_flush(struct sprt_sink *s)
{
	if (!s->staged)
		return 0;
	FILE *f = s->parent && s->fmt == SPRT_FMT_BINARY ? s->tmp : s->out;
	if (fwrite(s->stage, 1, s->staged, f) != s->staged)
		return fail(s, errno);
	s->staged = 0;
	return 0;
}

/* Room for `need` more bytes in the stage: the root flushes it, a child
 * grows it.  Nonzero: failed (reported through fail). */
static int stage_reserve(struct sprt_sink *s, size_t need)
{
	if (s->staged + need <= s->stage_cap)
		return 0;
	if (!s->parent && need <= s->stage_cap)
		return stage_flush(s);
	size_t cap = s->stage_cap ? s->stage_cap : STAGE_BYTES;
	while (cap < s->staged + need)
		cap *= 2;
	unsigned char *p = realloc(s->stage, cap);
	if (!p)
		return fail(s, ENOMEM);
	s->stage = p;
	s->stage_cap = cap;
	return 0;
}

static int stage_put(struct sprt_sink *s, const void *p, size_t n)
{
	if (stage_reserve(s, n))
		return 1;
	memcpy(s->stage + s->staged, p, n);
	s->staged += n;
	return 0;
}

/* ---- CSV ------------------------------------------------------------------ */

/* A text field, quoted where it holds a separator, a quote or a line end. */
static int csv_text(struct sprt_sink *s, const char *t)
{
	if (!strpbrk(t, ",\"\n\r"))
		return stage_put(s, t, strlen(t));
	if (stage_put(s, "\"", 1))
		return 1;
	for (const char *q; (q = strchr(t, '"')); t = q + 1)
		if (stage_put(s, t, (size_t)(q - t) + 1) || stage_put(s, "\"", 1))
			return 1;
	return stage_put(s, t, strlen(t)) || stage_put(s, "\"", 1);
}

/* x in decimal, as "%" PRId64 writes it, ending at end; returns its start. */
static char *int_text(char *end, int64_t x)
{
	uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
	do {
		*--end = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (x < 0)
		*--end = '-';
	return end;
}

/* Column i's int, from its cache where the column kept its value. */
static void csv_int(struct sprt_sink *s, int i, int64_t x)
{
	struct csv_col *c = &s->csv[i];
	if (!c->len || c->v != x) {
		char *start = int_text(c->text + sizeof(c->text), x);
		c->len = (unsigned char)(c->text + sizeof(c->text) - start);
		memmove(c->text, start, c->len);
		c->v = x;
	}
	memcpy(s->stage + s->staged, c->text, sizeof(c->text));
	s->staged += c->len;
}

static int csv_value(struct sprt_sink *s, sprt_val v)
{
	char buf[SPRT_FLOAT_BUF];
	switch (v.kind) {
	case SPRT_FLOAT:
		sprt_float_repr_(buf, v.u.f);
		return stage_put(s, buf, strlen(buf));
	case SPRT_BOOL:
		return v.u.i ? stage_put(s, "True", 4) : stage_put(s, "False", 5);
	case SPRT_STR:
		return csv_text(s, sprt_str_text(s->ctx, v.u.i));
	case SPRT_UNDEF:
		return 0;
	default: {
		/* None, lists, ranges: their repr, quoted as needed. */
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (!m)
			return fail(s, errno);
		sprt_print_value(s->ctx, m, v, false);
		if (fclose(m)) {
			free(text);
			return fail(s, errno);
		}
		int rc = csv_text(s, text);
		free(text);
		return rc;
	}
	}
}

/* Nonzero if the sink has failed; else clamps the row to the columns (the
 * cache has a slot per column). */
static inline int csv_row_start(const struct sprt_sink *s, int *n)
{
	if (s->failed)
		return 1;
	if (*n > s->ctx->space->nparams)
		*n = s->ctx->space->nparams;
	return 0;
}

/* Formats into the stage, each int written (or copied from its column's
 * cache) straight into it: fprintf per value made gaussian's 159M rows
 * take 308 s. */
static int csv_point(void *user, const sprt_val *pt, int n)
{
	struct sprt_sink *s = user;
	if (csv_row_start(s, &n))
		return 1;
	for (int i = 0; i < n; i++) {
		/* a separator and the whole cache slot (csv_int copies all of it) */
		if (stage_reserve(s, 1 + sizeof(s->csv[i].text)))
			return 1;
		if (i)
			s->stage[s->staged++] = ',';
		if (pt[i].kind == SPRT_INT)
			csv_int(s, i, pt[i].u.i);
		else if (csv_value(s, pt[i]))
			return 1;
	}
	if (stage_reserve(s, 1))
		return 1;
	s->stage[s->staged++] = '\n';
	return 0;
}

/* A point of ints (ctx->emit_ints): no kinds to look at. */
static int csv_ints(void *user, const int64_t *pt, int n)
{
	struct sprt_sink *s = user;
	if (csv_row_start(s, &n))
		return 1;
	if (stage_reserve(s, (size_t)n * (1 + sizeof(s->csv[0].text)) + 1))
		return 1;
	for (int i = 0; i < n; i++) {
		if (i)
			s->stage[s->staged++] = ',';
		csv_int(s, i, pt[i]);
	}
	s->stage[s->staged++] = '\n';
	return 0;
}

/* ---- JSON lines --------------------------------------------------------------- */

static int jsonl_point(void *user, const sprt_val *pt, int n)
{
	struct sprt_sink *s = user;
	if (s->failed)
		return 1;
	const struct sprt_space *sp = s->ctx->space;
	/* JSON writes a range's values, as many as a list may hold; beyond
	 * that the output would grow without bound (a yielded
	 * range(0, 2**62)).  CSV writes it as a range. */
	for (int i = 0; i < n; i++)
		if (pt[i].kind == SPRT_RANGE && sprt_range_len(pt[i].u.i, pt[i].r_stop, pt[i].r_step) > SPRT_MAX_VEC)
			return fail(s, E2BIG);
	fputc('{', s->out);
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(", ", s->out);
		sprt_print_str_(s->out, i < sp->nparams ? sp->params[i].name : "?", true);
		fputs(": ", s->out);
		sprt_print_value(s->ctx, s->out, pt[i], true);
	}
	fputs("}\n", s->out);
	return ferror(s->out) ? fail(s, errno) : 0;
}

/* ---- binary ----------------------------------------------------------------------- */

static void put_le(unsigned char *b, uint64_t x, int width)
{
	for (int i = 0; i < width; i++)
		b[i] = (unsigned char)(x >> (8 * i));
}

static uint64_t get_le(const unsigned char *b, int width)
{
	uint64_t x = 0;
	for (int i = 0; i < width; i++)
		x |= (uint64_t)b[i] << (8 * i);
	return x;
}

static uint64_t payload(sprt_val v)
{
	if (v.kind == SPRT_FLOAT) {
		uint64_t bits;
		memcpy(&bits, &v.u.f, sizeof(bits));
		return bits;
	}
	return (uint64_t)v.u.i;
}

static FILE *open_tmp(void);

/* Bytes per buffered value in each encoding. */
enum { BIN_COMPACT = 4, BIN_GENERAL = 9 };

/* Whether v can join column c in the compact encoding. */
static bool compact_value(const struct bin_col *c, sprt_val v)
{
	if (c->kinds && c->kinds != 1u << v.kind)
		return false;
	switch (v.kind) {
	case SPRT_INT:
	case SPRT_STR:
	case SPRT_BOOL:
		return v.u.i >= INT32_MIN && v.u.i <= INT32_MAX;
	default:
		return false;
	}
}

/* The only kind column c held (compact rows carry no kind byte). */
static int column_kind(const struct bin_col *c)
{
	for (int k = 0; k < 32; k++)
		if (c->kinds == 1u << k)
			return k;
	return SPRT_NONE;
}

/* Re-encodes nrows compact rows of `in` as general rows onto `out`. */
static int recode_rows(const unsigned char *in, uint64_t nrows, const struct bin_col *cols, int ncols, FILE *out)
{
	unsigned char rec[BIN_GENERAL];
	for (uint64_t r = 0; r < nrows; r++) {
		for (int i = 0; i < ncols; i++, in += BIN_COMPACT) {
			int32_t x = (int32_t)(uint32_t)get_le(in, BIN_COMPACT);
			rec[0] = (unsigned char)column_kind(&cols[i]);
			put_le(rec + 1, (uint64_t)(int64_t)x, 8);
			if (fwrite(rec, 1, sizeof(rec), out) != sizeof(rec))
				return -1;
		}
	}
	return 0;
}

/* Switches s's buffered rows to the general encoding (rare: the first
 * float, wide int or mixed column). */
static int to_general(struct sprt_sink *s)
{
	int ncols = s->ctx->space->nparams;
	size_t len = (size_t)s->rows * (size_t)ncols * BIN_COMPACT;
	unsigned char *old = malloc(len ? len : 1);
	if (!old)
		return fail(s, ENOMEM);
	if (fflush(s->tmp)) {
		free(old);
		return fail(s, errno);
	}
	FILE *next;
	if (s->parent) {
		/* A child's memory stream: copy it out, then start a new one. */
		memcpy(old, s->mem, len);
		fclose(s->tmp);
		free(s->mem);
		s->mem = NULL;
		s->memlen = 0;
		next = open_memstream(&s->mem, &s->memlen);
	} else {
		rewind(s->tmp);
		if (len && fread(old, 1, len, s->tmp) != len) {
			free(old);
			return fail(s, ferror(s->tmp) ? errno : EIO);
		}
		fclose(s->tmp);
		next = open_tmp();
	}
	s->tmp = next;
	if (!next || recode_rows(old, s->rows, s->cols, ncols, next)) {
		free(old);
		return fail(s, next ? errno : ENOMEM);
	}
	free(old);
	s->general = true;
	return 0;
}

static int bin_decide(struct sprt_sink *s);
static int direct_point(struct sprt_sink *s, const sprt_val *pt, int n);

static int bin_point(void *user, const sprt_val *pt, int n)
{
	struct sprt_sink *s = user;
	if (s->failed)
		return 1;
	if (s->mode == BIN_UNDECIDED && bin_decide(s))
		return 1;
	if (s->mode == BIN_DIRECT)
		return direct_point(s, pt, n);
	int ncols = s->ctx->space->nparams;
	bool compact = !s->general;
	for (int i = 0; i < ncols; i++) {
		sprt_val v = i < n ? pt[i] : sprt_none();
		if (v.kind == SPRT_VEC || v.kind == SPRT_RANGE)
			return fail(s, EINVAL); /* no binary encoding */
		compact = compact && compact_value(&s->cols[i], v);
	}
	if (!compact && !s->general && to_general(s))
		return 1;
	unsigned char *rec = s->rec;
	for (int i = 0; i < ncols; i++) {
		sprt_val v = i < n ? pt[i] : sprt_none();
		struct bin_col *c = &s->cols[i];
		if (v.kind == SPRT_INT) {
			if (!(c->kinds & 1u << SPRT_INT) || v.u.i < c->min)
				c->min = v.u.i;
			if (!(c->kinds & 1u << SPRT_INT) || v.u.i > c->max)
				c->max = v.u.i;
		} else if (v.kind == SPRT_STR && v.u.i > c->max_str) {
			c->max_str = v.u.i;
		}
		c->kinds |= 1u << v.kind;
		if (s->general) {
			*rec = (unsigned char)v.kind;
			put_le(rec + 1, payload(v), 8);
			rec += BIN_GENERAL;
		} else {
			put_le(rec, (uint64_t)v.u.i, BIN_COMPACT);
			rec += BIN_COMPACT;
		}
	}
	size_t len = (size_t)(rec - s->rec);
	if (fwrite(s->rec, 1, len, s->tmp) != len)
		return fail(s, errno);
	s->rows++;
	return 0;
}

static int int_width(int64_t min, int64_t max)
{
	if (min >= INT8_MIN && max <= INT8_MAX)
		return 1;
	if (min >= INT16_MIN && max <= INT16_MAX)
		return 2;
	if (min >= INT32_MIN && max <= INT32_MAX)
		return 4;
	return 8;
}

static int uint_width(int64_t max)
{
	return max <= UINT8_MAX ? 1 : max <= UINT16_MAX ? 2 : 4;
}

/* The type and width of column i from what it held (FORMAT.md). */
static void bin_col_type(const struct sprt_sink *s, int i, int *type, int *width)
{
	const struct bin_col *c = &s->cols[i];
	unsigned k = c->kinds;
	if (!k) {
		/* No rows: the declared type decides. */
		switch (s->ctx->space->params[i].type) {
		case SPRT_INT: k = 1u << SPRT_INT; break;
		case SPRT_FLOAT: k = 1u << SPRT_FLOAT; break;
		case SPRT_BOOL: k = 1u << SPRT_BOOL; break;
		case SPRT_STR: k = 1u << SPRT_STR; break;
		default: k = ~0u; break;
		}
	}
	if (k == 1u << SPRT_INT) {
		*type = BIN_INT;
		*width = c->kinds ? int_width(c->min, c->max) : 1;
	} else if (k == 1u << SPRT_FLOAT) {
		*type = BIN_FLOAT;
		*width = 8;
	} else if (k == 1u << SPRT_BOOL) {
		*type = BIN_BOOL;
		*width = 1;
	} else if (k == 1u << SPRT_STR) {
		*type = BIN_STR;
		*width = uint_width(c->max_str);
	} else {
		*type = BIN_MIXED;
		*width = 9;
	}
}

static void put_u16(FILE *f, unsigned x)
{
	unsigned char b[2];
	put_le(b, x, 2);
	fwrite(b, 1, 2, f);
}

static void put_u32(FILE *f, uint64_t x)
{
	unsigned char b[4];
	put_le(b, x, 4);
	fwrite(b, 1, 4, f);
}

static void put_u64(FILE *f, uint64_t x)
{
	unsigned char b[8];
	put_le(b, x, 8);
	fwrite(b, 1, 8, f);
}

static void put_name(FILE *f, const char *name)
{
	size_t n = strlen(name);
	if (n > UINT16_MAX)
		n = UINT16_MAX;
	put_u16(f, (unsigned)n);
	fwrite(name, 1, n, f);
}

/* The header; *nrows_at (if not NULL) gets the offset of its row count
 * in `out`, -1 where `out` cannot tell. */
static void write_header(const struct sprt_sink *s, const int *type, const int *width, off_t *nrows_at)
{
	const struct sprt_space *sp = s->ctx->space;
	int ncols = sp->nparams;
	bool strings = false;
	for (int i = 0; i < ncols; i++)
		strings |= type[i] == BIN_STR || type[i] == BIN_MIXED;
	FILE *out = s->out;
	fwrite("SPRTBIN1", 1, 8, out);
	put_u32(out, 1); /* version */
	put_u32(out, 0); /* flags */
	put_name(out, sp->name ? sp->name : "");
	put_u32(out, (uint64_t)ncols);
	if (nrows_at)
		*nrows_at = ftello(out);
	put_u64(out, s->rows);
	int nstr = strings ? sp->strings.n + s->ctx->nextra_strings : 0;
	put_u32(out, (uint64_t)nstr);
	for (int i = 0; i < nstr; i++) {
		const char *t = sprt_str_text(s->ctx, i);
		size_t n = strlen(t);
		put_u32(out, n);
		fwrite(t, 1, n, out);
	}
	for (int i = 0; i < ncols; i++) {
		put_name(out, sp->params[i].name);
		fputc(type[i], out);
		fputc(width[i], out);
	}
}

/* Buffered: the header from what the columns held, then the rows,
 * re-encoded in their final widths. */
static int bin_finish_buffered(struct sprt_sink *s)
{
	int ncols = s->ctx->space->nparams;
	int *type = malloc(((size_t)ncols + 1) * 2 * sizeof(int));
	if (!type)
		return fail(s, ENOMEM);
	int *width = type + ncols + 1;
	for (int i = 0; i < ncols; i++)
		bin_col_type(s, i, &type[i], &width[i]);
	write_header(s, type, width, NULL);
	FILE *out = s->out;
	if (s->rows && fflush(s->tmp)) {
		free(type);
		return fail(s, errno);
	}
	rewind(s->tmp);
	/* Rows in chunks: one read and one write per chunk. */
	size_t in_row = (size_t)ncols * (s->general ? BIN_GENERAL : BIN_COMPACT), out_row = 0;
	for (int i = 0; i < ncols; i++)
		out_row += (size_t)width[i];
	size_t chunk = 65536 / (in_row ? in_row : 1) + 1;
	unsigned char *in = malloc(chunk * in_row + 1), *o = malloc(chunk * out_row + 1);
	int rc = in && o ? 0 : fail(s, ENOMEM);
	for (uint64_t r = 0; !rc && r < s->rows && !ferror(out); r += chunk) {
		size_t m = s->rows - r < chunk ? (size_t)(s->rows - r) : chunk;
		if (fread(in, 1, m * in_row, s->tmp) != m * in_row) {
			rc = fail(s, ferror(s->tmp) ? errno : EIO);
			break;
		}
		const unsigned char *p = in;
		unsigned char *q = o;
		for (size_t j = 0; j < m; j++) {
			for (int i = 0; i < ncols; i++) {
				uint64_t x;
				if (!s->general) {
					x = (uint64_t)(int64_t)(int32_t)(uint32_t)get_le(p, BIN_COMPACT);
					p += BIN_COMPACT;
				} else if (type[i] == BIN_MIXED) {
					memcpy(q, p, BIN_GENERAL);
					p += BIN_GENERAL;
					q += BIN_GENERAL;
					continue;
				} else {
					x = get_le(p + 1, 8);
					p += BIN_GENERAL;
				}
				put_le(q, x, width[i]);
				q += width[i];
			}
		}
		fwrite(o, 1, (size_t)(q - o), out);
	}
	free(in);
	free(o);
	free(type);
	if (rc)
		return rc;
	return ferror(out) ? fail(s, errno) : 0;
}

/* ---- binary, streamed ------------------------------------------------------------ */

static inline void put_int(unsigned char *q, int64_t x, int width)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* the whole int64, of which the next column overwrites what is not
	 * this one's (STAGE_SLACK) */
	memcpy(q, &x, sizeof(x));
	(void)width;
#else
	put_le(q, (uint64_t)x, width);
#endif
}


/* Whether the root can stream: every column bounded, and an output whose
 * header can be patched afterwards (not a pipe, not O_APPEND). */
static bool can_stream(const struct sprt_sink *root, const struct sprt_ctx *ctx)
{
	if (!ctx->columns_bounded || !ctx->column_bounds)
		return false;
	int fd = fileno(root->out);
	if (fd < 0)
		return false;
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || (flags & O_APPEND))
		return false;
	return ftello(root->out) >= 0 && lseek(fd, 0, SEEK_CUR) >= 0;
}

/* Sets s up to stream in the widths of `fixed`; -1 when out of memory. */
static int direct_setup(struct sprt_sink *s, const struct bin_fixed *fixed)
{
	int ncols = s->ctx->space->nparams;
	s->fixed = malloc(((size_t)ncols + 1) * sizeof(*s->fixed));
	if (!s->stage) {
		s->stage = malloc(STAGE_BYTES);
		s->stage_cap = STAGE_BYTES;
	}
	if (!s->fixed || !s->stage) {
		free(s->fixed);
		free(s->stage);
		s->fixed = NULL;
		s->stage = NULL;
		s->stage_cap = 0;
		return -1;
	}
	memcpy(s->fixed, fixed, (size_t)ncols * sizeof(*fixed));
	s->row_size = 0;
	for (int i = 0; i < ncols; i++) {
		s->fixed[i].off = (unsigned)s->row_size;
		s->row_size += (size_t)fixed[i].width;
	}
	s->ncols = ncols;
	s->mode = BIN_DIRECT;
	return 0;
}

/* The root's choice, made once: stream (the header now, its row count
 * patched at the end) or buffer. */
static void decide_root(struct sprt_sink *r, const struct sprt_ctx *ctx)
{
	int ncols = r->ctx->space->nparams;
	r->mode = BIN_BUFFERED;
	if (can_stream(r, ctx)) {
		struct bin_fixed *f = calloc((size_t)ncols + 1, sizeof(*f));
		int *type = malloc(((size_t)ncols + 1) * 2 * sizeof(int));
		bool fits = f && type;
		size_t row = 0;
		for (int i = 0; fits && i < ncols; i++) {
			int64_t lo = ctx->column_bounds[2 * i], hi = ctx->column_bounds[2 * i + 1];
			fits = lo <= hi;
			f[i] = (struct bin_fixed){ lo, (uint64_t)hi - (uint64_t)lo, int_width(lo, hi), 0 };
			type[i] = BIN_INT;
			type[ncols + 1 + i] = f[i].width;
			row += (size_t)f[i].width;
		}
		if (fits && row + STAGE_SLACK <= STAGE_BYTES / 2 && !direct_setup(r, f)) {
			write_header(r, type, type + ncols + 1, &r->nrows_at);
			if (r->nrows_at < 0 || ferror(r->out))
				fail(r, errno);
		}
		free(f);
		free(type);
		if (r->mode == BIN_DIRECT)
			return;
	}
	if (!r->tmp && !(r->tmp = open_tmp()))
		fail(r, errno);
}

/* Decides s's encoding at its first row (the root's choice, made by the
 * first sink to ask); nonzero if the output has failed. */
static int bin_decide(struct sprt_sink *s)
{
	struct sprt_sink *root = s->parent ? s->parent : s;
	pthread_mutex_lock(&root->lock);
	if (root->mode == BIN_UNDECIDED)
		decide_root(root, s->ctx);
	int rc = root->failed;
	if (s != root) {
		if (root->failed)
			rc = fail(s, root->err);
		else if (root->mode != BIN_DIRECT)
			s->mode = root->mode;
		else if (direct_setup(s, root->fixed))
			rc = fail(s, ENOMEM);
	}
	pthread_mutex_unlock(&root->lock);
	return rc;
}

/*
 * Streamed rows.  Each column goes at its own offset, so no store waits
 * on the widths before it, and the row is tested once: a value out of
 * its bounds (or not an int) is written too, but the row is then not
 * kept (staged stays) and the output fails.  gemm_beast's H100 list:
 * 78M rows of 15 columns; gaussian's 149M of 20.
 */
static inline bool put_col(unsigned char *q, const struct bin_fixed *f, int64_t x)
{
	put_int(q + f->off, x, f->width);
	return (uint64_t)x - (uint64_t)f->lo > f->span;
}

/* Room for a row (and the slack put_int writes past it); nonzero: failed. */
static inline int row_reserve(struct sprt_sink *s)
{
	if (s->staged + s->row_size + STAGE_SLACK <= s->stage_cap)
		return 0;
	return stage_reserve(s, s->row_size + STAGE_SLACK);
}

/* Keeps the row just written, or fails the output where a value did not fit. */
static inline int row_done(struct sprt_sink *s, bool out)
{
	if (out)
		return fail(s, ERANGE);
	s->staged += s->row_size;
	s->rows++;
	return 0;
}

/* A streamed row from a point of values (kinds checked) or, `ints`
 * true, of int64s: inlined into each caller with its constant `ints`,
 * so each keeps a loop of its own. */
static inline __attribute__((always_inline)) int put_row(struct sprt_sink *s, const void *pt,
                                                         bool ints, int ncols)
{
	if (row_reserve(s))
		return 1;
	/* locals: a store through q must not make the compiler reload them */
	const struct bin_fixed *const fixed = s->fixed;
	unsigned char *const q = s->stage + s->staged;
	const sprt_val *const vals = pt;
	const int64_t *const is = pt;
	bool out = false;
	for (int i = 0; i < ncols; i++)
		out |= ints ? put_col(q, &fixed[i], is[i])
		            : (vals[i].kind != SPRT_INT) | put_col(q, &fixed[i], vals[i].u.i);
	return row_done(s, out);
}

static int direct_point(struct sprt_sink *s, const sprt_val *pt, int n)
{
	/* s->ncols, not the space's: one load, not three dependent ones */
	const int ncols = s->ncols;
	if (n < ncols)
		return fail(s, EINVAL);
	return put_row(s, pt, false, ncols);
}

/* A point of ints (ctx->emit_ints): streamed as direct_point does, else
 * through bin_point. */
static int bin_ints(void *user, const int64_t *pt, int n)
{
	struct sprt_sink *s = user;
	const int ncols = s->ncols;
	if (s->mode != BIN_DIRECT || s->failed || n < ncols)
		return sprt_ints_call_(bin_point, s, pt, n) ? 1 : 0;
	return put_row(s, pt, true, ncols);
}

static int bin_finish(struct sprt_sink *s)
{
	if (s->mode == BIN_UNDECIDED && bin_decide(s))
		return 1;
	if (s->mode != BIN_DIRECT)
		return bin_finish_buffered(s);
	unsigned char b[8];
	put_le(b, s->rows, 8);
	if (stage_flush(s))
		return 1;
	if (fflush(s->out) || fseeko(s->out, s->nrows_at, SEEK_SET) || fwrite(b, 1, sizeof(b), s->out) != sizeof(b) ||
	    fflush(s->out) || fseeko(s->out, 0, SEEK_END))
		return fail(s, errno);
	return 0;
}

/* A temporary file for buffering, in $TMPDIR, already unlinked. */
static FILE *open_tmp(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	char *path;
	int fd = sprt_mkstemp_(dir, "/spacert-", &path);
	if (fd < 0)
		return NULL;
	unlink(path);
	free(path);
	FILE *f = fdopen(fd, "w+b");
	if (!f)
		close(fd);
	return f;
}

/* ---- the sink API ------------------------------------------------------------------ */

int sprt_sink_open(struct sprt_sink **sinkp, struct sprt_ctx *ctx, enum sprt_format fmt, FILE *out)
{
	struct sprt_sink *s = calloc(1, sizeof(*s));
	if (!s)
		return SPRT_ENOMEM;
	if (pthread_mutex_init(&s->lock, NULL)) {
		free(s);
		return SPRT_ENOMEM;
	}
	s->ctx = ctx;
	s->fmt = fmt;
	s->out = out;
	const struct sprt_space *sp = ctx->space;
	switch (fmt) {
	case SPRT_FMT_COUNT:
		/* No callback: generated code need not even build the point. */
		ctx->emit = NULL;
		ctx->emit_ints = NULL;
		break;
	case SPRT_FMT_JSONL:
		ctx->emit = jsonl_point;
		ctx->emit_ints = NULL;
		break;
	case SPRT_FMT_CSV:
		s->csv = calloc((size_t)sp->nparams + 1, sizeof(*s->csv));
		if (!s->csv) {
			pthread_mutex_destroy(&s->lock);
			free(s);
			return SPRT_ENOMEM;
		}
		for (int i = 0; i < sp->nparams; i++)
			if ((i && stage_put(s, ",", 1)) || csv_text(s, sp->params[i].name))
				break;
		stage_put(s, "\n", 1);
		ctx->emit = csv_point;
		ctx->emit_ints = csv_ints;
		break;
	case SPRT_FMT_BINARY:
		s->cols = calloc((size_t)sp->nparams + 1, sizeof(*s->cols));
		s->rec = malloc(((size_t)sp->nparams + 1) * BIN_GENERAL);
		if (!s->cols || !s->rec) {
			free(s->cols);
			free(s->rec);
			pthread_mutex_destroy(&s->lock);
			free(s);
			return SPRT_ENOMEM;
		}
		ctx->emit = bin_point; /* the temporary file, if any, at the first point */
		ctx->emit_ints = bin_ints;
		break;
	}
	ctx->emit_user = fmt == SPRT_FMT_COUNT ? NULL : s;
	*sinkp = s;
	return SPRT_OK;
}

int sprt_sink_close(struct sprt_sink *s)
{
	if (s->fmt == SPRT_FMT_BINARY && !s->failed)
		bin_finish(s);
	if (!s->failed)
		stage_flush(s);
	if (s->fmt != SPRT_FMT_COUNT && fflush(s->out))
		fail(s, errno);
	if (s->fmt != SPRT_FMT_COUNT && ferror(s->out))
		fail(s, EIO);
	if (s->ctx->emit_user == s) {
		s->ctx->emit = NULL;
		s->ctx->emit_ints = NULL;
		s->ctx->emit_user = NULL;
	}
	if (s->tmp)
		fclose(s->tmp);
	int err = s->failed ? s->err : 0;
	free(s->cols);
	free(s->rec);
	free(s->fixed);
	free(s->stage);
	free(s->csv);
	pthread_mutex_destroy(&s->lock);
	free(s);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* ---- per-thread children (par.c) ------------------------------------------------------ */

static sprt_point_fn point_fn(enum sprt_format fmt)
{
	switch (fmt) {
	case SPRT_FMT_CSV: return csv_point;
	case SPRT_FMT_JSONL: return jsonl_point;
	case SPRT_FMT_BINARY: return bin_point;
	case SPRT_FMT_COUNT: break;
	}
	return NULL;
}

sprt_ints_fn sprt_sink_ints_fn_(const struct sprt_sink *c)
{
	return c->fmt == SPRT_FMT_CSV ? csv_ints : c->fmt == SPRT_FMT_BINARY ? bin_ints : NULL;
}

/* (Re)opens the child's memory stream. */
static int child_stream(struct sprt_sink *c)
{
	c->mem = NULL;
	c->memlen = 0;
	FILE *f = open_memstream(&c->mem, &c->memlen);
	if (!f)
		return SPRT_ENOMEM;
	if (c->fmt == SPRT_FMT_BINARY)
		c->tmp = f;
	else
		c->out = f;
	return SPRT_OK;
}

static FILE *child_file(struct sprt_sink *c)
{
	return c->fmt == SPRT_FMT_BINARY ? c->tmp : c->out;
}

int sprt_sink_child_(struct sprt_sink *parent, struct sprt_ctx *ctx, struct sprt_sink **childp,
		     sprt_point_fn *fn)
{
	struct sprt_sink *c = calloc(1, sizeof(*c));
	if (!c)
		return SPRT_ENOMEM;
	c->ctx = ctx;
	c->fmt = parent->fmt;
	c->parent = parent;
	if (c->fmt == SPRT_FMT_BINARY) {
		c->cols = calloc((size_t)ctx->space->nparams + 1, sizeof(*c->cols));
		c->rec = malloc(((size_t)ctx->space->nparams + 1) * BIN_GENERAL);
		if (!c->cols || !c->rec) {
			free(c->cols);
			free(c->rec);
			free(c);
			return SPRT_ENOMEM;
		}
	}
	if (c->fmt == SPRT_FMT_CSV && !(c->csv = calloc((size_t)ctx->space->nparams + 1, sizeof(*c->csv)))) {
		free(c);
		return SPRT_ENOMEM;
	}
	if (child_stream(c)) {
		free(c->cols);
		free(c->rec);
		free(c->csv);
		free(c);
		return SPRT_ENOMEM;
	}
	*childp = c;
	*fn = point_fn(c->fmt);
	return SPRT_OK;
}

size_t sprt_sink_buffered_(struct sprt_sink *c)
{
	long pos = ftell(child_file(c));
	return (pos > 0 ? (size_t)pos : 0) + c->staged;
}

int sprt_sink_detach_(struct sprt_sink *c, struct sprt_sink_block **blockp)
{
	*blockp = NULL;
	if (c->failed && c->err != ENOMEM) {
		/* What the output cannot hold (a range too long for JSON) is
		 * the output's error, reported as a single thread's would be. */
		pthread_mutex_lock(&c->parent->lock);
		fail(c->parent, c->err);
		pthread_mutex_unlock(&c->parent->lock);
	}
	if (c->failed)
		return 1;
	FILE *f = child_file(c);
	if (c->staged && ftell(f) == 0) {
		/* Only staged rows (CSV, streamed binary): the stage itself
		 * becomes the block, and the next point starts a new one. */
		struct sprt_sink_block *b = calloc(1, sizeof(*b));
		if (!b)
			return fail(c, ENOMEM);
		b->data = (char *)c->stage;
		b->len = c->staged;
		b->rows = c->rows;
		c->stage = NULL;
		c->staged = c->stage_cap = 0;
		c->rows = 0;
		*blockp = b;
		return 0;
	}
	if (stage_flush(c))
		return 1;
	if (fflush(f) || ferror(f))
		return fail(c, errno);
	if (c->memlen == 0)
		return 0;
	size_t ncols = c->fmt == SPRT_FMT_BINARY ? (size_t)c->ctx->space->nparams : 0;
	struct sprt_sink_block *b = calloc(1, sizeof(*b));
	struct bin_col *cols = ncols ? calloc(ncols, sizeof(*cols)) : NULL;
	if (!b || (ncols && !cols)) {
		free(b);
		free(cols);
		return fail(c, ENOMEM);
	}
	/* The stream's buffer becomes the block's; a new stream follows. */
	if (fclose(f)) {
		free(b);
		free(cols);
		c->out = c->tmp = NULL;
		return fail(c, errno);
	}
	b->data = c->mem;
	b->len = c->memlen;
	b->rows = c->rows;
	b->general = c->general;
	if (ncols) {
		memcpy(cols, c->cols, ncols * sizeof(*cols));
		memset(c->cols, 0, ncols * sizeof(*cols));
	}
	b->cols = cols;
	c->rows = 0;
	c->general = false; /* the next block starts compact again */
	*blockp = b;
	if (child_stream(c)) {
		c->out = c->tmp = NULL;
		return fail(c, ENOMEM);
	}
	return 0;
}

size_t sprt_sink_block_size_(const struct sprt_sink_block *b)
{
	return b ? b->len : 0;
}

void sprt_sink_block_free_(struct sprt_sink_block *b)
{
	if (!b)
		return;
	free(b->data);
	free(b->cols);
	free(b);
}

static void merge_col(struct bin_col *to, const struct bin_col *from)
{
	if (from->kinds & 1u << SPRT_INT) {
		bool had = to->kinds & 1u << SPRT_INT;
		if (!had || from->min < to->min)
			to->min = from->min;
		if (!had || from->max > to->max)
			to->max = from->max;
	}
	if (from->max_str > to->max_str)
		to->max_str = from->max_str;
	to->kinds |= from->kinds;
}

int sprt_sink_put_(struct sprt_sink *p, struct sprt_sink_block *b)
{
	pthread_mutex_lock(&p->lock);
	if (b && !p->failed && p->fmt == SPRT_FMT_BINARY && p->mode == BIN_DIRECT) {
		/* streamed rows go straight out, in their final widths */
		if (stage_flush(p))
			; /* failed: reported at close */
		else if (fwrite(b->data, 1, b->len, p->out) != b->len)
			fail(p, errno);
		else
			p->rows += b->rows;
	} else if (b && !p->failed && stage_flush(p)) {
		; /* failed: reported at close */
	} else if (b && !p->failed) {
		FILE *f = p->fmt == SPRT_FMT_BINARY ? p->tmp : p->out;
		int ncols = p->ctx->space->nparams;
		bool recode = false;
		if (p->fmt == SPRT_FMT_BINARY) {
			/* Compact rows join compact rows only where every column
			 * keeps a single kind; otherwise both become general. */
			bool general = p->general || b->general;
			for (int i = 0; i < ncols && !general; i++)
				general = p->cols[i].kinds && b->cols[i].kinds && p->cols[i].kinds != b->cols[i].kinds;
			if (general && !p->general)
				to_general(p);
			recode = general && !b->general;
			f = p->tmp;
		}
		if (p->failed) {
			/* to_general failed */
		} else if (recode ? recode_rows((const unsigned char *)b->data, b->rows, b->cols, ncols, f) != 0
				  : fwrite(b->data, 1, b->len, f) != b->len) {
			fail(p, errno);
		} else if (ferror(f)) {
			fail(p, EIO);
		} else if (p->fmt == SPRT_FMT_BINARY) {
			for (int i = 0; i < ncols; i++)
				merge_col(&p->cols[i], &b->cols[i]);
			p->rows += b->rows;
		}
	}
	int failed = p->failed;
	pthread_mutex_unlock(&p->lock);
	sprt_sink_block_free_(b);
	return failed;
}

void sprt_sink_child_free_(struct sprt_sink *c)
{
	if (!c)
		return;
	FILE *f = child_file(c);
	if (f)
		fclose(f);
	free(c->mem);
	free(c->cols);
	free(c->rec);
	free(c->fixed);
	free(c->stage);
	free(c->csv);
	free(c);
}
