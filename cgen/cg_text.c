/*
 * cg_text.c - the bottom layer of the code generator: output buffers,
 * lines at the current indent, temporaries, the string pool, C string
 * literals and comments, and C names for definitions.  Nothing here
 * knows a pass; every pass and the driver (cgen.c) write through it.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_state.h"

/* ---- buffers ------------------------------------------------------------------ */

void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sbuf_puts(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void sbuf_vprintf(struct sbuf *b, const char *fmt, va_list ap)
{
	char small[256];
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		sbuf_add(b, small, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	sbuf_add(b, big, (size_t)n);
	free(big);
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void sbuf_release(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ---- the generator's small services --------------------------------------------- */

void cg_keep(struct cg *c, char *s)
{
	ptrvec_push(&c->pool, s);
}

const char *cg_strdup(struct cg *c, const char *s)
{
	char *d = xstrdup(s);
	cg_keep(c, d);
	return d;
}

const char *cg_fmt(struct cg *c, const char *fmt, ...)
{
	struct sbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.s)
		return "";
	cg_keep(c, b.s);
	return b.s;
}

void cg_line(struct cg *c, const char *fmt, ...)
{
	for (int i = 0; i < c->indent; i++)
		sbuf_add(c->code, "\t", 1);
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(c->code, fmt, ap);
	va_end(ap);
	sbuf_add(c->code, "\n", 1);
}

/* `type` holds one %s where the name goes ("sprt_val %s", "sprt_val %s[3]"). */
const char *cg_temp(struct cg *c, const char *type, const char *init)
{
	const char *name = cg_fmt(c, "_t%d", ++c->ntemps);
	sbuf_puts(&c->decls, "\t");
	sbuf_printf(&c->decls, type, name);
	if (init)
		sbuf_printf(&c->decls, " = %s", init);
	sbuf_puts(&c->decls, ";\n");
	return name;
}

int cg_scratch(struct cg *c)
{
	return c->nscratch[c->fn->id]++;
}

int cg_string_id(struct cg *c, const char *s)
{
	for (int i = 0; i < c->nstrs; i++)
		if (c->strs[i] == s || !strcmp(c->strs[i], s))
			return i;
	if (c->nstrs == c->strs_cap) {
		c->strs_cap = c->strs_cap ? c->strs_cap * 2 : 16;
		c->strs = xrealloc(c->strs, sizeof(*c->strs) * (size_t)c->strs_cap);
	}
	c->strs[c->nstrs] = s;
	return c->nstrs++;
}

void cg_error(struct cg *c, struct srcloc loc, const char *fmt, ...)
{
	struct sbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	diag_error(c->diag, loc, "%s", b.s ? b.s : "");
	sbuf_release(&b);
	c->errors++;
}

/* ---- text ------------------------------------------------------------------------- */

/* A C string literal; '?' is escaped so that no trigraph can form. */
void cg_c_string(struct sbuf *b, const char *s, size_t n, bool split_lines)
{
	sbuf_add(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char tmp[8];
		switch (ch) {
		case '"': sbuf_puts(b, "\\\""); break;
		case '\\': sbuf_puts(b, "\\\\"); break;
		case '?': sbuf_puts(b, "\\?"); break;
		case '\n':
			sbuf_puts(b, "\\n");
			if (split_lines && i + 1 < n)
				sbuf_puts(b, "\"\n\t\"");
			break;
		case '\t': sbuf_puts(b, "\\t"); break;
		default:
			if (ch < 0x20 || ch >= 0x7f) {
				snprintf(tmp, sizeof(tmp), "\\%03o", ch);
				sbuf_puts(b, tmp);
			} else {
				sbuf_add(b, (const char *)&ch, 1);
			}
		}
	}
	sbuf_add(b, "\"", 1);
}

/* Source text inside a C comment: no comment delimiters, no trigraphs. */
void cg_comment_text(struct sbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (ch == '*' && i + 1 < n && s[i + 1] == '/') {
			sbuf_puts(b, "* ");
			continue;
		}
		if (ch == '/' && i + 1 < n && s[i + 1] == '*') {
			sbuf_puts(b, "/ ");
			continue;
		}
		if (ch == '?' && i + 1 < n && s[i + 1] == '?') {
			sbuf_puts(b, "? ");
			continue;
		}
		if (ch == '\\' && (i + 1 == n || s[i + 1] == '\n' || s[i + 1] == '\r')) {
			sbuf_puts(b, "\\ ");
			continue;
		}
		if (ch == '\r' || ch == 0)
			continue;
		sbuf_add(b, &ch, 1);
	}
}

void cg_quoted(struct sbuf *b, const char *s)
{
	if (!s) {
		sbuf_puts(b, "NULL");
		return;
	}
	cg_c_string(b, s, strlen(s), false);
}

/* ---- names ---------------------------------------------------------------------------- */

static int cmp_name(const void *key, const void *item)
{
	return strcmp(key, *(const char *const *)item);
}

bool cg_c_reserved(const char *s)
{
	static const char *const kw[] = {
		"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
		"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
		"register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
		"switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
		"true", "false", "asm", "typeof", "alignas", "alignof", "constexpr", "nullptr",
		"static_assert", "thread_local", "typeof_unqual", NULL,
	};
	for (int i = 0; kw[i]; i++)
		if (!strcmp(kw[i], s))
			return true;
	return s[0] == '_' || bsearch(s, cg_c_macros, cg_n_c_macros, sizeof *cg_c_macros, cmp_name);
}

const char *cg_c_spelling(struct cg *c, const char *want)
{
	const char *name = want[0] == '_' ? cg_fmt(c, "u%s", want) : want;
	while (cg_c_reserved(name))
		name = cg_fmt(c, "%s_", name);
	return name;
}

/*
 * The member names handed out so far, hashed: a linear scan made naming
 * quadratic in the definitions (20,000 constants took 6 s to emit).
 * Open addressing at most half full; it never grows, its size is fixed
 * by the number of names assign_names can hand out.
 */
struct name_set {
	size_t mask;
	const char **slot;
};

static size_t name_hash(const char *s)
{
	size_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* Looks `s` up; adds it when `add` and absent.  Returns whether it was there. */
static bool name_set_has(struct name_set *set, const char *s, bool add)
{
	size_t j = name_hash(s) & set->mask;
	for (; set->slot[j]; j = (j + 1) & set->mask)
		if (!strcmp(set->slot[j], s))
			return true;
	if (add)
		set->slot[j] = s;
	return false;
}

/* A unique member name of struct space_state based on `want`. */
static const char *member_name(struct cg *c, struct name_set *used, const char *want)
{
	const char *base = cg_c_spelling(c, want);
	const char *name = base == want ? cg_strdup(c, want) : base;
	for (int k = 2; name_set_has(used, name, false); k++)
		name = cg_fmt(c, "%s_%d", base, k);
	name_set_has(used, name, true);
	return name;
}

const char *cg_internal_prefix(struct cg *c, const char *base)
{
	const char **lists[] = { c->member, c->iter_member, c->dom_member, c->yield_member, c->scratch_member };
	const char *prefix = base;
	for (bool clash = true; clash;) {
		clash = false;
		size_t n = strlen(prefix);
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]) && !clash; l++)
			for (int i = 0; i <= c->P->ndefs && !clash; i++)
				clash = lists[l][i] && !strncmp(lists[l][i], prefix, n);
		if (clash)
			prefix = cg_fmt(c, "%s_", prefix);
	}
	return prefix;
}

void cg_assign_names(struct cg *c)
{
	const struct sema_program *P = c->P;
	int n = P->ndefs;
	/* Up to five names a definition (member, _iter, _dom, _yields, _scratch). */
	size_t cap = 16;
	while (cap < 10 * (size_t)n + 16)
		cap *= 2;
	struct name_set used = { cap - 1, xcalloc(cap, sizeof(const char *)) };
	for (int i = 0; i < n; i++) {
		const struct sema_def *d = P->defs[i];
		c->member[d->id] = member_name(c, &used, d->cname);
	}
	for (int i = 0; i < n; i++) {
		const struct sema_def *d = P->defs[i];
		const char *m = c->member[d->id];
		if (d->kind == SEMA_ITER) {
			c->iter_member[d->id] = member_name(c, &used, cg_fmt(c, "%s_iter", m));
			c->dom_member[d->id] = member_name(c, &used, cg_fmt(c, "%s_dom", m));
		}
		if (d->form == SEMA_FORM_CLOSURE)
			c->yield_member[d->id] = member_name(c, &used, cg_fmt(c, "%s_yields", m));
		c->scratch_member[d->id] = member_name(c, &used, cg_fmt(c, "%s_scratch", m));
	}
	free(used.slot);
	int rows = 0;
	for (int i = 0; i < n; i++) {
		const struct sema_def *d = P->defs[i];
		bool is_row = d->kind == SEMA_ITER || d->kind == SEMA_DERIVED || d->kind == SEMA_CONSTRAINT;
		c->row[d->id] = is_row ? rows++ : -1;
	}
}
