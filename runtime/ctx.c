/*
 * ctx.c - the enumeration context: statistics, run-time bindings (--set
 * and device profiles), the string table with run-time strings, and the
 * progress line.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "spacert.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "utf8.h"

double sprt_now_(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- context ------------------------------------------------------------- */

int sprt_ctx_init(struct sprt_ctx *ctx, const struct sprt_space *space)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->space = space;
	if (space->ndefs > 0) {
		ctx->stats = calloc((size_t)space->ndefs, sizeof(*ctx->stats));
		if (!ctx->stats)
			return SPRT_ENOMEM;
	}
	return SPRT_OK;
}

void sprt_column_bounds_(struct sprt_ctx *ctx, const int64_t *lo_hi)
{
	size_t n = 2 * (size_t)ctx->space->nparams;
	ctx->columns_bounded = false;
	if (!lo_hi || !n)
		return;
	if (!ctx->column_bounds && !(ctx->column_bounds = malloc(n * sizeof(*lo_hi))))
		return; /* the sink buffers instead */
	memcpy(ctx->column_bounds, lo_hi, n * sizeof(*lo_hi));
	ctx->columns_bounded = true;
}

int sprt_ints_call_(sprt_point_fn fn, void *user, const int64_t *point, int n)
{
	enum { ON_STACK = 32 };
	sprt_val stack[ON_STACK] = { 0 }, *pt = n <= ON_STACK ? stack : malloc((size_t)n * sizeof(*pt));
	if (!pt)
		return 1;
	for (int i = 0; i < n; i++)
		pt[i] = sprt_int(point[i]);
	int rc = fn(user, pt, n);
	if (pt != stack)
		free(pt);
	return rc;
}

int sprt_emit_ints_(struct sprt_ctx *ctx, const int64_t *point, int n)
{
	return sprt_ints_call_(ctx->emit, ctx->emit_user, point, n);
}

void sprt_ctx_release(struct sprt_ctx *ctx)
{
	free(ctx->stats);
	free(ctx->column_bounds);
	ctx->column_bounds = NULL;
	ctx->columns_bounded = false;
	for (int i = 0; i < ctx->nextra_strings; i++)
		free((char *)ctx->extra_strings[i]);
	free(ctx->extra_strings);
	ctx->stats = NULL;
	ctx->extra_strings = NULL;
	ctx->nextra_strings = 0;
}

const char *sprt_str_text(const struct sprt_ctx *ctx, int64_t id)
{
	const struct sprt_strings *t = &ctx->space->strings;
	if (id >= 0 && id < t->n)
		return t->s[id];
	if (id >= t->n && id - t->n < ctx->nextra_strings)
		return ctx->extra_strings[id - t->n];
	return "";
}

/*
 * The id of a string with this text: the table's if it has it (so that
 * generated code can compare ids of literals), else a run-time string.
 */
static int intern(struct sprt_ctx *ctx, const char *text, int64_t *id)
{
	const struct sprt_strings *t = &ctx->space->strings;
	for (int i = 0; i < t->n; i++) {
		if (!strcmp(t->s[i], text)) {
			*id = i;
			return SPRT_OK;
		}
	}
	for (int i = 0; i < ctx->nextra_strings; i++) {
		if (!strcmp(ctx->extra_strings[i], text)) {
			*id = (int64_t)t->n + i;
			return SPRT_OK;
		}
	}
	const char **v = realloc(ctx->extra_strings, ((size_t)ctx->nextra_strings + 1) * sizeof(*v));
	if (!v)
		return SPRT_ENOMEM;
	ctx->extra_strings = v;
	char *copy = strdup(text);
	if (!copy)
		return SPRT_ENOMEM;
	v[ctx->nextra_strings] = copy;
	*id = (int64_t)t->n + ctx->nextra_strings++;
	return SPRT_OK;
}

int sprt_binding_get(struct sprt_ctx *ctx, const char *name, sprt_val *out, bool *found)
{
	*found = false;
	/* The last binding of a name wins, as for repeated --set. */
	for (int i = ctx->nbindings - 1; i >= 0; i--) {
		const struct sprt_binding *b = &ctx->bindings[i];
		if (strcmp(b->name, name))
			continue;
		if (b->text) {
			int64_t id;
			int err = intern(ctx, b->text, &id);
			if (err)
				return err;
			*out = sprt_str(id);
		} else {
			*out = b->value;
		}
		*found = true;
		return SPRT_OK;
	}
	return SPRT_OK;
}

/* ---- progress ------------------------------------------------------------------ */

static void human(char *buf, size_t n, double x)
{
	if (x >= 1e9)
		snprintf(buf, n, "%.2fG", x / 1e9);
	else if (x >= 1e6)
		snprintf(buf, n, "%.2fM", x / 1e6);
	else if (x >= 1e4)
		snprintf(buf, n, "%.1fk", x / 1e3);
	else
		snprintf(buf, n, "%.0f", x);
}

static void hms(char *buf, size_t n, double s)
{
	if (s > 359999)
		s = 359999;
	unsigned t = (unsigned)s;
	snprintf(buf, n, "%u:%02u:%02u", t / 3600, t / 60 % 60, t % 60);
}

void sprt_progress_tick(struct sprt_ctx *ctx, double fraction_done)
{
	if (!ctx->progress && !(ctx->deadline > 0))
		return;
	if (++ctx->progress_calls_ < ctx->progress_stride_)
		return;
	ctx->progress_calls_ = 0;
	double now = sprt_now_();
	if (ctx->progress_stride_ == 0) {
		ctx->progress_stride_ = 1;
		if (ctx->progress_start == 0)
			ctx->progress_start = now;
	} else {
		/* Aim at a clock read every ~50 ms whatever the loop's pace. */
		double dt = now - ctx->progress_last_;
		if (dt < 0.025 && ctx->progress_stride_ < (1u << 24))
			ctx->progress_stride_ *= 2;
		else if (dt > 0.1 && ctx->progress_stride_ > 1)
			ctx->progress_stride_ /= 2;
	}
	ctx->progress_last_ = now;
	if (ctx->deadline > 0 && now >= ctx->deadline) {
		ctx->stop = true;
		ctx->deadline_fraction = fraction_done;
		ctx->deadline = 0;
	}
	if (!ctx->progress)
		return;
	double elapsed = now - ctx->progress_start;
	if (elapsed < 1.0 || now < ctx->progress_next)
		return;
	ctx->progress_next = now + 0.25;
	char cand[32], valid[32], rate[32], eta[32] = "?";
	human(cand, sizeof(cand), (double)ctx->candidates);
	human(valid, sizeof(valid), (double)ctx->valid);
	human(rate, sizeof(rate), (double)ctx->candidates / elapsed);
	/* However small the share done, it gives an ETA (capped at 99:59:59). */
	if (fraction_done > 0 && fraction_done <= 1.0)
		hms(eta, sizeof(eta), elapsed * (1.0 - fraction_done) / fraction_done);
	fprintf(stderr, "\r\033[K%s candidates, %s valid, %s/s, ", cand, valid, rate);
	if (fraction_done >= 0 && fraction_done <= 1.0)
		fprintf(stderr, "%.1f%%, ETA %s", fraction_done * 100.0, eta);
	else
		fprintf(stderr, "elapsed %.0f s", elapsed);
	fflush(stderr);
	ctx->progress_shown_ = true;
}

void sprt_progress_done(struct sprt_ctx *ctx)
{
	if (ctx->progress_shown_) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		ctx->progress_shown_ = false;
	}
}

/* ---- statistics ---------------------------------------------------------------- */

static const char *def_kind_word(const struct sprt_ctx *ctx, int i, char *buf, size_t n)
{
	const struct sprt_def_desc *d = &ctx->space->defs[i];
	static const char *const cls[] = { "hard", "soft", "correct" }; /* ORDER sprt_class */
	switch (d->kind) {
	case SPRT_DEF_ITER:
		return "iterator";
	case SPRT_DEF_DERIVED:
		return "derived";
	case SPRT_DEF_CONSTRAINT:
		break;
	}
	bool off = (ctx->disabled && ctx->disabled[i]) || (ctx->no_soft && d->cls == SPRT_SOFT);
	snprintf(buf, n, "%s%s%s", d->require ? "require " : "",
		 (unsigned)d->cls < 3 ? cls[d->cls] : "?", off ? " (off)" : "");
	return buf;
}

int sprt_stats_print(const struct sprt_ctx *ctx, FILE *out, double elapsed_s)
{
	const struct sprt_space *sp = ctx->space;
	int w = (int)strlen("definition");
	for (int i = 0; i < sp->ndefs; i++) {
		int l = (int)strlen(sp->defs[i].name);
		if (l > w)
			w = l;
	}
	/* Loop order: what is checked once ("once") first, then loop 0, 1,
	 * ...; in a level, the order the enumerator evaluates its definitions.
	 * (The line saying so has under 7 words: scripts that read the rows
	 * by their word count skip it.) */
	int max_level = -1;
	for (int i = 0; i < sp->ndefs; i++)
		if (sp->defs[i].level > max_level)
			max_level = sp->defs[i].level;
	fprintf(out, "rows in loop order, outermost first\n");
	fprintf(out, "%-*s  %-20s %5s %14s %14s %8s %13s\n", w, "definition", "kind", "level",
		"evaluated", "rejected", "pruned", "domain errors");
	for (int lv = -1, i = 0; lv <= max_level; i++) {
		if (i == sp->ndefs) {
			i = -1;
			lv++;
			continue;
		}
		if (sp->defs[i].level != lv)
			continue;
		const struct sprt_def_desc *d = &sp->defs[i];
		const struct sprt_def_stats *s = &ctx->stats[i];
		char kind[64], level[16], rej[32], pruned[16];
		if (d->level < 0)
			snprintf(level, sizeof(level), "once");
		else
			snprintf(level, sizeof(level), "%d", d->level);
		if (d->kind == SPRT_DEF_CONSTRAINT) {
			snprintf(rej, sizeof(rej), "%" PRIu64, s->rejected);
			if (s->evaluated)
				snprintf(pruned, sizeof(pruned), "%.1f%%",
					 100.0 * (double)s->rejected / (double)s->evaluated);
			else
				snprintf(pruned, sizeof(pruned), "-");
		} else {
			snprintf(rej, sizeof(rej), "-");
			snprintf(pruned, sizeof(pruned), "-");
		}
		fprintf(out, "%-*s  %-20s %5s %14" PRIu64 " %14s %8s %13" PRIu64 "\n", w, d->name,
			def_kind_word(ctx, i, kind, sizeof(kind)), level, s->evaluated, rej, pruned,
			s->domain_errors);
	}
	fprintf(out, "\nvalid points:       %" PRIu64 "\n", ctx->valid);
	fprintf(out, "candidates visited: %" PRIu64 "\n", ctx->candidates);
	fprintf(out, "elapsed:            %.3f s\n", elapsed_s);
	return ferror(out) ? -1 : 0;
}

int sprt_stats_warn_domain(const struct sprt_ctx *ctx, FILE *err)
{
	const struct sprt_space *sp = ctx->space;
	int n = 0;
	for (int i = 0; i < sp->ndefs && ctx->valid == 0; i++) {
		const struct sprt_def_stats *s = &ctx->stats[i];
		if (!s->domain_errors || s->domain_errors != s->evaluated)
			continue;
		fprintf(err, "%s:%d: warning: every evaluation of '%s' failed with a domain error (%" PRIu64
			" times: overflow, division by zero, a type error or a bad value), so no point is valid "
			"[-Wdomain-errors]\n", sp->source_file ? sp->source_file : sp->name, sp->defs[i].line,
			sp->defs[i].name, s->domain_errors);
		n++;
	}
	return n;
}

/* ---- binding sets ---------------------------------------------------------------- */

void sprt_bindings_release(struct sprt_bindings *b)
{
	for (int i = 0; i < b->n; i++) {
		free((char *)b->v[i].name);
		free((char *)b->v[i].text);
	}
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* Takes ownership of `text` (may be NULL) whatever happens. */
static int bindings_put(struct sprt_bindings *b, const char *name, sprt_val value, char *text)
{
	for (int i = 0; i < b->n; i++) {
		if (!strcmp(b->v[i].name, name)) {
			free((char *)b->v[i].text);
			b->v[i].value = value;
			b->v[i].text = text;
			return SPRT_OK;
		}
	}
	if (b->n == b->cap) {
		int cap = b->cap ? b->cap * 2 : 8;
		struct sprt_binding *v = realloc(b->v, (size_t)cap * sizeof(*v));
		if (!v) {
			free(text);
			return SPRT_ENOMEM;
		}
		b->v = v;
		b->cap = cap;
	}
	char *n = strdup(name);
	if (!n) {
		free(text);
		return SPRT_ENOMEM;
	}
	b->v[b->n].name = n;
	b->v[b->n].value = value;
	b->v[b->n].text = text;
	b->n++;
	return SPRT_OK;
}

int sprt_bindings_set(struct sprt_bindings *b, const char *name, sprt_val value, const char *text)
{
	char *t = NULL;
	if (text) {
		t = strdup(text);
		if (!t)
			return SPRT_ENOMEM;
		value = sprt_str(0);
	}
	return bindings_put(b, name, value, t);
}

int sprt_bindings_set_text(struct sprt_bindings *b, const char *name, const char *value_text)
{
	sprt_val v;
	const char *s;
	size_t n;
	sprt_parse_value_(value_text, &v, &s, &n);
	char *t = NULL;
	size_t bad;
	if (s && !utf8_valid(s, n, &bad))
		return SPRT_EVALUE;
	if (s) {
		t = dupn(s, n);
		if (!t)
			return SPRT_ENOMEM;
	}
	return bindings_put(b, name, v, t);
}

int sprt_set_check(const char *arg, size_t *name_len, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	if (!eq) {
		snprintf(err, errlen, "--set needs NAME=VALUE, not '%s'", arg);
		return SPRT_EVALUE;
	}
	size_t n = (size_t)(eq - arg);
	bool ident = n > 0 && !(arg[0] >= '0' && arg[0] <= '9');
	for (size_t i = 0; i < n; i++) {
		char c = arg[i];
		ident &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
	}
	if (!ident) {
		if (n)
			snprintf(err, errlen, "--set '%s': '%.*s' is not a name (letters, digits and '_', not "
				 "first a digit)", arg, (int)n, arg);
		else
			snprintf(err, errlen, "--set '%s': the name before '=' is missing", arg);
		return SPRT_EVALUE;
	}
	if (!eq[1]) {
		snprintf(err, errlen, "--set '%s': the value is missing (an empty string is written %s'')", arg, arg);
		return SPRT_EVALUE;
	}
	size_t bad;
	if (!utf8_valid(eq + 1, strlen(eq + 1), &bad)) {
		snprintf(err, errlen, "--set %.*s: the value is not valid UTF-8", (int)n, arg);
		return SPRT_EVALUE;
	}
	if (name_len)
		*name_len = n;
	return SPRT_OK;
}

int sprt_bindings_set_arg(struct sprt_bindings *b, const char *arg, char *err, size_t errlen)
{
	size_t n;
	int rc = sprt_set_check(arg, &n, err, errlen);
	if (rc)
		return rc;
	char *name = dupn(arg, n);
	if (!name)
		return SPRT_ENOMEM;
	rc = sprt_bindings_set_text(b, name, arg + n + 1);
	free(name);
	if (rc == SPRT_ENOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}

/* ---- a binding against its bindable's declared type ------------------------------------ */

static const char *kind_article(int k)
{
	return k == SPRT_STR ? "a string" : k == SPRT_INT ? "an int" : k == SPRT_BOOL ? "a bool" : "a float";
}

int sprt_bindable_check(const struct sprt_bindable_desc *d, const struct sprt_binding *x, const char *profile,
			char *err, char *note, size_t errlen)
{
	int k = x->text ? SPRT_STR : x->value.kind;
	bool fits;
	switch (d->type) {
	case SPRT_INT: fits = k == SPRT_INT; break;
	case SPRT_FLOAT: fits = k == SPRT_INT || k == SPRT_FLOAT; break;
	case SPRT_BOOL: fits = k == SPRT_BOOL; break;
	case SPRT_STR: fits = k == SPRT_STR; break;
	default: fits = true; break;
	}
	note[0] = 0;
	if (fits)
		return SPRT_OK;
	/* The value as --set reads it back: what was typed, but for the
	 * spelling of a number (0x1F is 31). */
	char num[SPRT_FLOAT_BUF];
	const char *value = x->text;
	if (!value && k == SPRT_FLOAT)
		sprt_float_repr_(num, x->value.u.f);
	else if (!value && k == SPRT_BOOL)
		snprintf(num, sizeof num, "%s", x->value.u.i ? "True" : "False");
	else if (!value)
		snprintf(num, sizeof num, "%" PRId64, x->value.u.i);
	if (!value)
		value = num;
	const char *holds = d->type == SPRT_INT ? "an int" : d->type == SPRT_FLOAT ? "a number" :
			    d->type == SPRT_BOOL ? "a bool (True or False)" : "a string";
	if (profile)
		snprintf(err, errlen, "--device-profile '%s' gives '%s' %s, but it holds %s", profile, x->name,
			 kind_article(k), holds);
	else
		snprintf(err, errlen, "--set %s=%s gives '%s' %s, but it holds %s", x->name, value, x->name,
			 kind_article(k), holds);
	if (d->type == SPRT_STR)
		snprintf(note, errlen, "a value that reads as a number is one; quote it to make a string: "
			 "--set '%s=\"%s\"'", x->name, profile ? "..." : value);
	return SPRT_ETYPE;
}

void sprt_bindable_report(FILE *f, const char *file, const struct sprt_bindable_desc *d, const char *level,
			  const char *msg)
{
	fprintf(f, "%s:%d:%d: %s: %s\n", file ? file : "?", d->line, d->col, level, msg);
	if (!d->line_text || d->line < 1 || d->col < 1)
		return;
	/* Tabs stay tabs under the line, so the caret lines up however they
	 * are shown; the name's length in tildes. */
	fprintf(f, "%5d | %s\n      | ", d->line, d->line_text);
	for (int i = 0; i < d->col - 1 && d->line_text[i]; i++)
		fputc(d->line_text[i] == '\t' ? '\t' : ' ', f);
	fputc('^', f);
	for (size_t i = 1; i < strlen(d->name); i++)
		fputc('~', f);
	fputc('\n', f);
}

int sprt_bindings_check(const struct sprt_space *space, const struct sprt_binding *v, int n,
			const struct sprt_bindings *sets, const char *profile, FILE *report)
{
	int rc = SPRT_OK;
	for (int i = 0; i < n; i++) {
		const struct sprt_binding *x = &v[i];
		bool from_set = !profile;
		for (int j = 0; sets && j < sets->n && !from_set; j++)
			from_set = !strcmp(sets->v[j].name, x->name);
		for (int k = 0; k < space->nbindables; k++) {
			char why[512], note[512];
			const struct sprt_bindable_desc *d = &space->bindables[k];
			if (strcmp(d->name, x->name) || !sprt_bindable_check(d, x, from_set ? NULL : profile, why,
									      note, sizeof why))
				continue;
			rc = SPRT_ETYPE;
			if (!report)
				return rc;
			sprt_bindable_report(report, space->source_file, d, "error", why);
			if (note[0])
				sprt_bindable_report(report, space->source_file, d, "note", note);
		}
	}
	return rc;
}

/* ---- device profiles: a flat JSON object ----------------------------------------------- */

struct jp {
	const char *file;
	const char *s, *p, *end;
	char *err;
	size_t errlen;
};

static int jp_error(struct jp *j, const char *at, const char *msg)
{
	int line = 1, col = 1;
	for (const char *q = j->s; q < at && q < j->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (j->errlen)
		snprintf(j->err, j->errlen, "%s:%d:%d: error: %s", j->file, line, col, msg);
	return SPRT_EVALUE;
}

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int jp_hex4(struct jp *j, const char *at, unsigned *out)
{
	if (j->end - at < 4)
		return jp_error(j, at, "truncated \\u escape");
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(at[i]);
		if (h < 0)
			return jp_error(j, at + i, "bad hex digit in \\u escape");
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return SPRT_OK;
}

static size_t utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A JSON string at j->p (on the opening quote) into a malloc'd C string. */
static int jp_string(struct jp *j, char **out)
{
	const char *start = j->p++;
	/* The decoded text is never longer than the source. */
	char *buf = malloc((size_t)(j->end - j->p) + 1);
	if (!buf)
		return SPRT_ENOMEM;
	size_t n = 0;
	int err;
	for (;;) {
		if (j->p >= j->end) {
			err = jp_error(j, start, "unterminated string");
			goto fail;
		}
		unsigned char c = (unsigned char)*j->p;
		if (c == '"') {
			j->p++;
			break;
		}
		if (c < 0x20) {
			err = jp_error(j, j->p, "control character in string");
			goto fail;
		}
		if (c != '\\') {
			buf[n++] = (char)c;
			j->p++;
			continue;
		}
		const char *esc = j->p++;
		if (j->p >= j->end) {
			err = jp_error(j, start, "unterminated string");
			goto fail;
		}
		switch (*j->p++) {
		case '"': buf[n++] = '"'; break;
		case '\\': buf[n++] = '\\'; break;
		case '/': buf[n++] = '/'; break;
		case 'b': buf[n++] = '\b'; break;
		case 'f': buf[n++] = '\f'; break;
		case 'n': buf[n++] = '\n'; break;
		case 'r': buf[n++] = '\r'; break;
		case 't': buf[n++] = '\t'; break;
		case 'u': {
			unsigned cp;
			if ((err = jp_hex4(j, j->p, &cp)))
				goto fail;
			j->p += 4;
			if (cp >= 0xd800 && cp < 0xdc00) {
				unsigned lo;
				if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u') {
					err = jp_error(j, esc, "unpaired surrogate in \\u escape");
					goto fail;
				}
				if ((err = jp_hex4(j, j->p + 2, &lo)))
					goto fail;
				if (lo < 0xdc00 || lo >= 0xe000) {
					err = jp_error(j, esc, "unpaired surrogate in \\u escape");
					goto fail;
				}
				j->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				err = jp_error(j, esc, "unpaired surrogate in \\u escape");
				goto fail;
			}
			if (cp == 0) {
				err = jp_error(j, esc, "NUL character in string");
				goto fail;
			}
			n += utf8_put(buf + n, cp); /* <= the 6 or 12 source bytes */
			break;
		}
		default:
			err = jp_error(j, esc, "bad escape in string");
			goto fail;
		}
	}
	buf[n] = 0;
	size_t bad;
	if (!utf8_valid(buf, n, &bad)) {
		err = jp_error(j, start, "invalid UTF-8 in string");
		goto fail;
	}
	*out = buf;
	return SPRT_OK;
fail:
	free(buf);
	return err;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A JSON number: an int if it has neither fraction nor exponent. */
static int jp_number(struct jp *j, sprt_val *out)
{
	const char *start = j->p, *p = j->p;
	bool integral = true;
	if (p < j->end && *p == '-')
		p++;
	if (p >= j->end || !is_digit(*p))
		return jp_error(j, start, "bad number");
	if (*p == '0' && p + 1 < j->end && is_digit(p[1]))
		return jp_error(j, start, "leading zero in number");
	while (p < j->end && is_digit(*p))
		p++;
	if (p < j->end && *p == '.') {
		integral = false;
		p++;
		if (p >= j->end || !is_digit(*p))
			return jp_error(j, p, "expected a digit after '.'");
		while (p < j->end && is_digit(*p))
			p++;
	}
	if (p < j->end && (*p == 'e' || *p == 'E')) {
		integral = false;
		p++;
		if (p < j->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= j->end || !is_digit(*p))
			return jp_error(j, p, "expected a digit in the exponent");
		while (p < j->end && is_digit(*p))
			p++;
	}
	char *text = dupn(start, (size_t)(p - start));
	if (!text)
		return SPRT_ENOMEM;
	if (integral) {
		bool neg = text[0] == '-';
		uint64_t acc = 0;
		bool big = false;
		for (const char *q = text + neg; *q; q++) {
			if (acc > (UINT64_MAX - 9) / 10)
				big = true;
			else
				acc = acc * 10 + (uint64_t)(*q - '0');
		}
		free(text);
		if (big || acc > (uint64_t)INT64_MAX + neg)
			return jp_error(j, start, "integer out of the 64-bit range");
		*out = sprt_int(neg ? (int64_t)(0 - acc) : (int64_t)acc);
	} else {
		double d = strtod(text, NULL);
		free(text);
		*out = sprt_float(d);
	}
	j->p = p;
	return SPRT_OK;
}

static bool jp_word(struct jp *j, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	/* "trueish" is not "true". */
	if ((size_t)(j->end - j->p) > n) {
		char c = j->p[n];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_')
			return false;
	}
	j->p += n;
	return true;
}

int sprt_bindings_load_json(struct sprt_bindings *b, const char *file, const char *text, size_t len,
			    char *err, size_t errlen)
{
	struct jp j = { file, text, text, text + len, err, errlen };
	if (errlen)
		err[0] = 0;
	/* A UTF-8 byte order mark is harmless: skip it. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		j.p += 3;
	jp_ws(&j);
	if (j.p >= j.end)
		return jp_error(&j, j.p, "expected '{' (the file is empty)");
	if (*j.p != '{')
		return jp_error(&j, j.p, "expected '{': a device profile is a JSON object");
	j.p++;
	jp_ws(&j);
	if (j.p < j.end && *j.p == '}') {
		j.p++;
	} else {
		for (;;) {
			jp_ws(&j);
			if (j.p >= j.end)
				return jp_error(&j, j.p, "unexpected end of file, expected a name");
			if (*j.p != '"')
				return jp_error(&j, j.p, "expected a name in double quotes");
			char *name;
			int e = jp_string(&j, &name);
			if (e)
				return e;
			if (!name[0]) {
				free(name);
				return jp_error(&j, j.p - 2, "empty name");
			}
			jp_ws(&j);
			if (j.p >= j.end || *j.p != ':') {
				free(name);
				return jp_error(&j, j.p, "expected ':' after the name");
			}
			j.p++;
			jp_ws(&j);
			sprt_val v = sprt_none();
			char *str = NULL;
			if (j.p >= j.end) {
				e = jp_error(&j, j.p, "unexpected end of file, expected a value");
			} else if (*j.p == '"') {
				e = jp_string(&j, &str);
				v = sprt_str(0);
			} else if (*j.p == '-' || is_digit(*j.p)) {
				e = jp_number(&j, &v);
			} else if (jp_word(&j, "true")) {
				v = sprt_bool(true);
			} else if (jp_word(&j, "false")) {
				v = sprt_bool(false);
			} else if (*j.p == '{' || *j.p == '[') {
				e = jp_error(&j, j.p, "nested objects and arrays are not supported: "
						      "expected a number, string or boolean");
			} else if (jp_word(&j, "null")) {
				e = jp_error(&j, j.p - 4, "null is not a value: expected a number, string or boolean");
			} else {
				e = jp_error(&j, j.p, "expected a number, string or boolean");
			}
			if (!e)
				e = bindings_put(b, name, v, str);
			free(name);
			if (e)
				return e;
			jp_ws(&j);
			if (j.p < j.end && *j.p == ',') {
				j.p++;
				jp_ws(&j);
				if (j.p < j.end && *j.p == '}')
					return jp_error(&j, j.p, "trailing comma before '}'");
				continue;
			}
			if (j.p < j.end && *j.p == '}') {
				j.p++;
				break;
			}
			return jp_error(&j, j.p, j.p >= j.end ? "unexpected end of file, expected '}'"
							      : "expected ',' or '}'");
		}
	}
	jp_ws(&j);
	if (j.p < j.end)
		return jp_error(&j, j.p, "unexpected text after the object");
	return SPRT_OK;
}
