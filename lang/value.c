/*
 * value.c - run-time values: list storage, reference counts, printing and
 * parsing of --set values.
 */
#include "value.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct vlist *vlist_new(size_t cap)
{
	if (cap > VLIST_MAX_LEN)
		return NULL;
	/* Plain malloc, not xmalloc: a user's list that does not fit is a
	 * domain error of the point, not a reason to abort the run. */
	struct vlist *l = malloc(sizeof(*l));
	if (!l)
		return NULL;
	l->refs = 1;
	l->len = 0;
	l->cap = cap;
	l->frozen = false;
	l->depth = 0;
	l->items = NULL;
	if (cap) {
		l->items = malloc(cap * sizeof(*l->items));
		if (!l->items) {
			free(l);
			return NULL;
		}
	}
	return l;
}

int vlist_push(struct vlist *l, struct value v)
{
	if (v.kind == V_LIST && v.u.list->depth + 1 > l->depth) {
		if (v.u.list->depth + 1 > VLIST_MAX_DEPTH) {
			value_unref(v);
			return -1;
		}
		l->depth = v.u.list->depth + 1;
	}
	if (l->len == l->cap) {
		if (l->len >= VLIST_MAX_LEN) {
			value_unref(v);
			return -1;
		}
		size_t cap = l->cap ? l->cap * 2 : 4;
		if (cap > VLIST_MAX_LEN)
			cap = VLIST_MAX_LEN;
		struct value *items = realloc(l->items, cap * sizeof(*items));
		if (!items) {
			value_unref(v);
			return -1;
		}
		l->items = items;
		l->cap = cap;
	}
	l->items[l->len++] = v;
	return 0;
}

struct value value_ref(struct value v)
{
	if (v.kind == V_LIST)
		v.u.list->refs++;
	return v;
}

/*
 * Nested lists are released with an explicit stack rather than recursion:
 * a closure can build a list nested deeper than the C stack allows.
 */
void value_unref(struct value v)
{
	if (v.kind != V_LIST)
		return;
	struct vlist *l = v.u.list;
	if (--l->refs)
		return;
	struct vlist **stack = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		for (size_t i = 0; i < l->len; i++) {
			struct value it = l->items[i];
			if (it.kind != V_LIST || --it.u.list->refs)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				stack = xrealloc(stack, cap * sizeof(*stack));
			}
			stack[n++] = it.u.list;
		}
		free(l->items);
		free(l);
		if (!n)
			break;
		l = stack[--n];
	}
	free(stack);
}

/* ---- printing ------------------------------------------------------------ */

void value_float_repr(char *buf, double d)
{
	if (isnan(d)) {
		strcpy(buf, "nan");
		return;
	}
	if (isinf(d)) {
		strcpy(buf, d < 0 ? "-inf" : "inf");
		return;
	}
	if (d == 0) {
		strcpy(buf, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	/* The shortest correctly rounded digit string that reads back. */
	char tmp[40];
	for (int p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	/* tmp is "[-]d[.ddd]e[+-]xx": split into digits and exponent. */
	const char *s = tmp;
	bool neg = *s == '-';
	s += neg;
	char digits[24];
	int nd = 0;
	for (; *s && *s != 'e'; s++)
		if (*s != '.')
			digits[nd++] = *s;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	int exp10 = atoi(s + 1);
	int decpt = exp10 + 1; /* value = 0.DIGITS * 10^decpt */
	char *o = buf;
	if (neg)
		*o++ = '-';
	/* Python's float_repr_style 'short' switches to exponent form here. */
	if (decpt <= -4 || decpt > 16) {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
		return;
	}
	if (decpt <= 0) {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -decpt; i++)
			*o++ = '0';
		memcpy(o, digits, (size_t)nd);
		o += nd;
	} else if (decpt >= nd) {
		memcpy(o, digits, (size_t)nd);
		o += nd;
		for (int i = nd; i < decpt; i++)
			*o++ = '0';
		*o++ = '.';
		*o++ = '0';
	} else {
		memcpy(o, digits, (size_t)decpt);
		o += decpt;
		*o++ = '.';
		memcpy(o, digits + decpt, (size_t)(nd - decpt));
		o += nd - decpt;
	}
	*o = 0;
}

static void print_str(FILE *out, const char *s, bool json)
{
	if (json) {
		fputc('"', out);
		for (; *s; s++) {
			unsigned char c = (unsigned char)*s;
			switch (c) {
			case '"': fputs("\\\"", out); break;
			case '\\': fputs("\\\\", out); break;
			case '\b': fputs("\\b", out); break;
			case '\f': fputs("\\f", out); break;
			case '\n': fputs("\\n", out); break;
			case '\r': fputs("\\r", out); break;
			case '\t': fputs("\\t", out); break;
			default:
				if (c < 0x20)
					fprintf(out, "\\u%04x", c);
				else
					fputc(c, out);
			}
		}
		fputc('"', out);
		return;
	}
	/* Python's repr: single quotes unless that needs more escapes. */
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	fputc(q, out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == (unsigned char)q || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc(q, out);
}

void value_print(FILE *out, struct value v, bool json)
{
	char buf[VALUE_FLOAT_BUF];
	switch (v.kind) {
	case V_UNDEF:
		fputs(json ? "null" : "<undefined>", out);
		return;
	case V_NONE:
		fputs(json ? "null" : "None", out);
		return;
	case V_BOOL:
		fputs(json ? (v.u.i ? "true" : "false") : (v.u.i ? "True" : "False"), out);
		return;
	case V_INT:
		fprintf(out, "%" PRId64, v.u.i);
		return;
	case V_FLOAT:
		if (json && !isfinite(v.u.f)) {
			fputs("null", out);
			return;
		}
		value_float_repr(buf, v.u.f);
		fputs(buf, out);
		return;
	case V_STR:
		print_str(out, v.u.s, json);
		return;
	case V_LIST:
		fputc('[', out);
		for (size_t i = 0; i < v.u.list->len; i++) {
			if (i)
				fputs(", ", out);
			value_print(out, v.u.list->items[i], json);
		}
		fputc(']', out);
		return;
	case V_RANGE: {
		int64_t a = v.u.r.start, b = v.u.r.stop, s = v.u.r.step;
		if (!json) {
			if (s == 1)
				fprintf(out, "range(%" PRId64 ", %" PRId64 ")", a, b);
			else
				fprintf(out, "range(%" PRId64 ", %" PRId64 ", %" PRId64 ")", a, b, s);
			return;
		}
		/* JSON has no ranges: write the elements.  Unsigned steps
		 * cannot overflow where the signed values would. */
		fputc('[', out);
		bool first = true;
		for (int64_t x = a; s > 0 ? x < b : x > b;) {
			fprintf(out, first ? "%" PRId64 : ", %" PRId64, x);
			first = false;
			int64_t nx;
			if (__builtin_add_overflow(x, s, &nx))
				break;
			x = nx;
		}
		fputc(']', out);
		return;
	}
	}
}

/* Unsigned arithmetic: the length of range(INT64_MIN, INT64_MAX) fits. */
uint64_t value_range_len(struct value v)
{
	int64_t start = v.u.r.start, stop = v.u.r.stop, step = v.u.r.step;
	if (step > 0 && start < stop)
		return ((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1;
	if (step < 0 && start > stop)
		return ((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step) + 1;
	return 0;
}
