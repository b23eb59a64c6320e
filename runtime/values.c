/*
 * values.c - operations on sprt_val with Python 3 semantics.
 *
 * Ints are 64-bit and every overflow is an error (SPRT_EOVERFLOW), found
 * with the __builtin_*_overflow family: nothing here is undefined
 * behaviour.  Bools act as ints except for & | ^ between two bools.
 * Iterables (vectors and lazy ranges) support the iterator algebra of the
 * language: | & - are set union, intersection and difference with sorted
 * results, + concatenates and * repeats.
 *
 * The reference interpreter (lang/interp.c) defines the meaning; this
 * file must agree with it on every operation, bit for bit.
 */
#include "spacert.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* 2**63 as a double: the first float above every int64. */
#define TWO63 9223372036854775808.0

static bool is_intlike(const sprt_val *v)
{
	return v->kind == SPRT_INT || v->kind == SPRT_BOOL;
}

static bool is_num(const sprt_val *v)
{
	return v->kind == SPRT_INT || v->kind == SPRT_BOOL || v->kind == SPRT_FLOAT;
}

static bool is_iter(const sprt_val *v)
{
	return v->kind == SPRT_VEC || v->kind == SPRT_RANGE;
}

static double num_to_double(const sprt_val *v)
{
	return v->kind == SPRT_FLOAT ? v->u.f : (double)v->u.i;
}

static sprt_val range_val(int64_t start, int64_t stop, int64_t step)
{
	sprt_val v = { SPRT_RANGE, 0, { .i = start }, stop, step };
	return v;
}

/* ---- vectors ------------------------------------------------------------- */

int sprt_vec_push(struct sprt_vec *v, sprt_val x)
{
	if (v->n == v->cap) {
		if (v->n >= SPRT_MAX_VEC)
			return SPRT_ENOMEM;
		size_t cap = v->cap ? v->cap * 2 : 8;
		if (cap > SPRT_MAX_VEC)
			cap = SPRT_MAX_VEC;
		sprt_val *nv = realloc(v->v, cap * sizeof(*nv));
		if (!nv)
			return SPRT_ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return SPRT_OK;
}

int sprt_vec_copy(struct sprt_vec *dst, const struct sprt_vec *src)
{
	if (dst == src)
		return SPRT_OK;
	sprt_vec_clear(dst);
	for (size_t i = 0; i < src->n; i++) {
		const int err = sprt_vec_push(dst, src->v[i]);
		if (err)
			return err;
	}
	return SPRT_OK;
}

static int vec_reserve(struct sprt_vec *v, size_t n)
{
	if (n > SPRT_MAX_VEC)
		return SPRT_ENOMEM;
	if (n <= v->cap)
		return SPRT_OK;
	sprt_val *nv = realloc(v->v, n * sizeof(*nv));
	if (!nv)
		return SPRT_ENOMEM;
	v->v = nv;
	v->cap = n;
	return SPRT_OK;
}

void sprt_vec_clear(struct sprt_vec *v)
{
	v->n = 0;
}

void sprt_vec_free(struct sprt_vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

/* ---- ranges and iterables ---------------------------------------------------- */

static int64_t range_at(sprt_val r, uint64_t i)
{
	return (int64_t)((uint64_t)r.u.i + i * (uint64_t)r.r_step);
}

int64_t sprt_iter_len(sprt_val it)
{
	if (it.kind == SPRT_VEC)
		return (int64_t)it.u.p->n;
	if (it.kind == SPRT_RANGE) {
		uint64_t n = sprt_range_len(it.u.i, it.r_stop, it.r_step);
		return n > INT64_MAX ? INT64_MAX : (int64_t)n;
	}
	return -1;
}

sprt_val sprt_iter_at(sprt_val it, int64_t i)
{
	if (it.kind == SPRT_VEC)
		return it.u.p->v[i];
	return sprt_int(range_at(it, (uint64_t)i));
}

/* Divisor iteration's list of the divisors of c (spacert_gen.h). */
void sprt_opt_divs_fill(struct sprt_opt_divs *dv, int64_t c)
{
	uint64_t lo = 1, hi = UINT64_C(3037000499);
	while (lo < hi) { /* the integer square root of c */
		uint64_t mid = lo + (hi - lo + 1) / 2;
		if (mid * mid <= (uint64_t)c)
			lo = mid;
		else
			hi = mid - 1;
	}
	dv->c = c;
	dv->root = (int64_t)lo;
	dv->n = 0;
	int small = 0;
	for (int64_t d = 1; d <= dv->root; d++) /* d <= sqrt(c), ascending */
		if (c % d == 0) {
			if (small == SPRT_OPT_DIVS_MAX / 2) {
				dv->n = -1;
				return;
			}
			dv->d[small++] = d;
		}
	dv->n = small;
	for (int i = small - 1; i >= 0; i--) /* c / d > sqrt(c), ascending */
		if (c / dv->d[i] != dv->d[i])
			dv->d[dv->n++] = c / dv->d[i];
}


/* Python's `x in range`: arithmetic for ints, equality for the rest. */
static bool range_contains_int(sprt_val r, int64_t x)
{
	int64_t start = r.u.i, stop = r.r_stop, step = r.r_step;
	if (step > 0) {
		if (x < start || x >= stop)
			return false;
		return ((uint64_t)x - (uint64_t)start) % (uint64_t)step == 0;
	}
	if (x > start || x <= stop)
		return false;
	return ((uint64_t)start - (uint64_t)x) % -(uint64_t)step == 0;
}

static bool range_contains(sprt_val r, const sprt_val *x)
{
	if (is_intlike(x))
		return range_contains_int(r, x->u.i);
	if (x->kind == SPRT_FLOAT) {
		double f = x->u.f;
		if (!(f >= -TWO63 && f < TWO63) || f != trunc(f))
			return false;
		return range_contains_int(r, (int64_t)f);
	}
	return false;
}

/* ---- comparisons ------------------------------------------------------------- */

/* Three-way results; CMP_UN: unordered (a NaN is involved). */
enum { CMP_LT = -1, CMP_EQ = 0, CMP_GT = 1, CMP_UN = 2 };

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? CMP_LT : a > b ? CMP_GT : CMP_EQ;
}

static int cmp_f64(double a, double b)
{
	if (a < b)
		return CMP_LT;
	if (a > b)
		return CMP_GT;
	if (a == b)
		return CMP_EQ;
	return CMP_UN;
}

/*
 * An int against a float, exactly, as Python does: converting the int
 * would round (2**53 + 1 == 2.0**53 would be true).
 */
static int cmp_int_float(int64_t i, double f)
{
	if (isnan(f))
		return CMP_UN;
	if (f >= TWO63)
		return CMP_LT;
	if (f < -TWO63)
		return CMP_GT;
	double t = trunc(f);
	int c = cmp_i64(i, (int64_t)t);
	if (c != CMP_EQ)
		return c;
	double frac = f - t;
	return frac > 0 ? CMP_LT : frac < 0 ? CMP_GT : CMP_EQ;
}

static int cmp_num(const sprt_val *a, const sprt_val *b)
{
	if (a->kind != SPRT_FLOAT && b->kind != SPRT_FLOAT)
		return cmp_i64(a->u.i, b->u.i);
	if (a->kind == SPRT_FLOAT && b->kind == SPRT_FLOAT)
		return cmp_f64(a->u.f, b->u.f);
	if (a->kind == SPRT_FLOAT) {
		int c = cmp_int_float(b->u.i, a->u.f);
		return c == CMP_UN ? c : -c;
	}
	return cmp_int_float(a->u.i, b->u.f);
}

static int cmp_str(const struct sprt_ctx *ctx, const sprt_val *a, const sprt_val *b)
{
	if (a->u.i == b->u.i)
		return CMP_EQ;
	int c = strcmp(sprt_str_text(ctx, a->u.i), sprt_str_text(ctx, b->u.i));
	return c < 0 ? CMP_LT : c > 0 ? CMP_GT : CMP_EQ;
}

static int values_eq(const struct sprt_ctx *ctx, const sprt_val *a, const sprt_val *b, bool *out);

/* Python's range equality: same sequence of values. */
static bool range_eq(sprt_val a, sprt_val b)
{
	uint64_t na = sprt_range_len(a.u.i, a.r_stop, a.r_step);
	uint64_t nb = sprt_range_len(b.u.i, b.r_stop, b.r_step);
	if (na != nb)
		return false;
	if (na == 0)
		return true;
	if (a.u.i != b.u.i)
		return false;
	return na == 1 || a.r_step == b.r_step;
}

static int values_eq(const struct sprt_ctx *ctx, const sprt_val *a, const sprt_val *b, bool *out)
{
	if (a->kind == SPRT_UNDEF || b->kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	if (is_num(a) && is_num(b)) {
		*out = cmp_num(a, b) == CMP_EQ;
		return SPRT_OK;
	}
	if (a->kind != b->kind) {
		*out = false;
		return SPRT_OK;
	}
	switch (a->kind) {
	case SPRT_NONE:
		*out = true;
		return SPRT_OK;
	case SPRT_STR:
		*out = cmp_str(ctx, a, b) == CMP_EQ;
		return SPRT_OK;
	case SPRT_RANGE:
		*out = range_eq(*a, *b);
		return SPRT_OK;
	case SPRT_VEC: {
		const struct sprt_vec *x = a->u.p, *y = b->u.p;
		*out = false;
		if (x->n != y->n)
			return SPRT_OK;
		for (size_t i = 0; i < x->n; i++) {
			bool e;
			int err = values_eq(ctx, &x->v[i], &y->v[i], &e);
			if (err)
				return err;
			if (!e)
				return SPRT_OK;
		}
		*out = true;
		return SPRT_OK;
	}
	default:
		*out = false;
		return SPRT_OK;
	}
}

/* Three-way ordering for < <= > >=; ETYPE where Python raises TypeError. */
static int values_order(const struct sprt_ctx *ctx, const sprt_val *a, const sprt_val *b, int *res)
{
	if (a->kind == SPRT_UNDEF || b->kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	if (is_num(a) && is_num(b)) {
		*res = cmp_num(a, b);
		return SPRT_OK;
	}
	if (a->kind == SPRT_STR && b->kind == SPRT_STR) {
		*res = cmp_str(ctx, a, b);
		return SPRT_OK;
	}
	if (a->kind == SPRT_VEC && b->kind == SPRT_VEC) {
		/* Lexicographic, as Python's list: the first unequal pair decides. */
		const struct sprt_vec *x = a->u.p, *y = b->u.p;
		size_t n = x->n < y->n ? x->n : y->n;
		for (size_t i = 0; i < n; i++) {
			bool e;
			int err = values_eq(ctx, &x->v[i], &y->v[i], &e);
			if (err)
				return err;
			if (!e)
				return values_order(ctx, &x->v[i], &y->v[i], res);
		}
		*res = x->n < y->n ? CMP_LT : x->n > y->n ? CMP_GT : CMP_EQ;
		return SPRT_OK;
	}
	return SPRT_ETYPE;
}

static int contains(const struct sprt_ctx *ctx, const sprt_val *x, const sprt_val *seq, bool *out)
{
	if (x->kind == SPRT_UNDEF || seq->kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	if (seq->kind == SPRT_RANGE) {
		*out = range_contains(*seq, x);
		return SPRT_OK;
	}
	if (seq->kind == SPRT_VEC) {
		const struct sprt_vec *v = seq->u.p;
		for (size_t i = 0; i < v->n; i++) {
			bool e;
			int err = values_eq(ctx, x, &v->v[i], &e);
			if (err)
				return err;
			if (e) {
				*out = true;
				return SPRT_OK;
			}
		}
		*out = false;
		return SPRT_OK;
	}
	if (seq->kind == SPRT_STR) {
		if (x->kind != SPRT_STR)
			return SPRT_ETYPE;
		*out = strstr(sprt_str_text(ctx, seq->u.i), sprt_str_text(ctx, x->u.i)) != NULL;
		return SPRT_OK;
	}
	return SPRT_ETYPE;
}

int sprt_compare(const struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, bool *out)
{
	int err, c;
	bool r;
	switch (op) {
	case '=':
	case '!':
		err = values_eq(ctx, &a, &b, &r);
		if (!err)
			*out = op == '=' ? r : !r;
		return err;
	case 'i':
	case 'n':
		err = contains(ctx, &a, &b, &r);
		if (!err)
			*out = op == 'i' ? r : !r;
		return err;
	case '<':
	case 'l':
	case '>':
	case 'g':
		err = values_order(ctx, &a, &b, &c);
		if (err)
			return err;
		if (c == CMP_UN)
			*out = false;
		else if (op == '<')
			*out = c < 0;
		else if (op == 'l')
			*out = c <= 0;
		else if (op == '>')
			*out = c > 0;
		else
			*out = c >= 0;
		return SPRT_OK;
	default:
		return SPRT_ETYPE;
	}
}

/* ---- truthiness -------------------------------------------------------------- */

bool sprt_truthy(sprt_val a)
{
	switch (a.kind) {
	case SPRT_BOOL:
	case SPRT_INT:
		return a.u.i != 0;
	case SPRT_FLOAT:
		return a.u.f != 0;
	case SPRT_STR:
		return true;
	case SPRT_VEC:
		return a.u.p->n != 0;
	case SPRT_RANGE:
		return sprt_range_len(a.u.i, a.r_stop, a.r_step) != 0;
	default:
		return false;
	}
}

bool sprt_truthy_ctx(const struct sprt_ctx *ctx, sprt_val a)
{
	if (a.kind == SPRT_STR)
		return sprt_str_text(ctx, a.u.i)[0] != 0;
	return sprt_truthy(a);
}

/* ---- float arithmetic ---------------------------------------------------------- */

/* Python's float.__floordiv__ and __mod__ (Objects/floatobject.c divmod). */
static void float_divmod(double vx, double wx, double *floordiv, double *modp)
{
	double mod = fmod(vx, wx);
	double div = (vx - mod) / wx;
	if (mod) {
		if ((wx < 0) != (mod < 0)) {
			mod += wx;
			div -= 1.0;
		}
	} else {
		mod = copysign(0.0, wx);
	}
	double fd;
	if (div) {
		fd = floor(div);
		if (div - fd > 0.5)
			fd += 1.0;
	} else {
		fd = copysign(0.0, vx / wx);
	}
	*floordiv = fd;
	*modp = mod;
}

static bool is_odd_integer(double w)
{
	return isfinite(w) && fmod(w, 2.0) != 0 && w == floor(w);
}

/* Python's float.__pow__ (float_pow), errors mapped to SPRT_E*. */
static int float_pow(double iv, double iw, double *out)
{
	if (iw == 0) {
		*out = 1.0;
		return SPRT_OK;
	}
	if (isnan(iv)) {
		*out = iv;
		return SPRT_OK;
	}
	if (isnan(iw)) {
		*out = iv == 1.0 ? 1.0 : iw;
		return SPRT_OK;
	}
	if (isinf(iw)) {
		iv = fabs(iv);
		if (iv == 1.0)
			*out = 1.0;
		else if ((iw > 0) == (iv > 1.0))
			*out = fabs(iw);
		else
			*out = 0.0;
		return SPRT_OK;
	}
	if (isinf(iv)) {
		bool odd = is_odd_integer(iw);
		if (iw > 0)
			*out = odd ? iv : fabs(iv);
		else
			*out = odd ? copysign(0.0, iv) : 0.0;
		return SPRT_OK;
	}
	if (iv == 0) {
		if (iw < 0)
			return SPRT_EZERODIV;
		*out = is_odd_integer(iw) ? iv : 0.0;
		return SPRT_OK;
	}
	bool negate = false;
	if (iv < 0) {
		if (iw != floor(iw))
			return SPRT_EVALUE; /* Python 3 would make a complex number */
		iv = -iv;
		negate = is_odd_integer(iw);
	}
	if (iv == 1.0) {
		*out = negate ? -1.0 : 1.0;
		return SPRT_OK;
	}
	double r = pow(iv, iw);
	if (isinf(r))
		return SPRT_EOVERFLOW;
	*out = negate ? -r : r;
	return SPRT_OK;
}

static int bitlen(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/*
 * int / int, correctly rounded as Python does (converting both operands
 * first would round twice beyond 2**53).  b != 0.
 */
static double int_truediv(int64_t a, int64_t b)
{
	const int64_t lim = (int64_t)1 << 53;
	if (a >= -lim && a <= lim && b >= -lim && b <= lim)
		return (double)a / (double)b;
	bool neg = (a < 0) != (b < 0);
	uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a;
	uint64_t y = b < 0 ? -(uint64_t)b : (uint64_t)b;
	if (x == 0)
		return neg ? -0.0 : 0.0;
	/* Scale so that the quotient has at least 55 bits, then fold the
	 * remainder into a sticky bit: one rounding, to nearest even. */
	int s = 56 - bitlen(x) + bitlen(y);
	if (s < 0)
		s = 0;
	unsigned __int128 n = (unsigned __int128)x << s;
	unsigned __int128 q = n / y;
	if (n % y)
		q |= 1;
	double r = ldexp((double)q, -s);
	return neg ? -r : r;
}

/* ---- integer arithmetic --------------------------------------------------------- */

static int int_pow(int64_t base, int64_t e, sprt_val *out)
{
	if (e < 0) {
		if (base == 0)
			return SPRT_EZERODIV;
		double r;
		int err = float_pow((double)base, (double)e, &r);
		if (!err)
			*out = sprt_float(r);
		return err;
	}
	int64_t r = 1;
	while (e) {
		if (e & 1 && __builtin_mul_overflow(r, base, &r))
			return SPRT_EOVERFLOW;
		e >>= 1;
		/* Squaring only when needed: the last square would overflow
		 * needlessly for e.g. 2**62. */
		if (e && __builtin_mul_overflow(base, base, &base))
			return SPRT_EOVERFLOW;
	}
	*out = sprt_int(r);
	return SPRT_OK;
}

/* x >> y, flooring, for y >= 0, without relying on C's signed shift. */
static int64_t shr(int64_t x, int64_t y)
{
	if (y >= 64)
		return x < 0 ? -1 : 0;
	return x < 0 ? (int64_t)~(~(uint64_t)x >> y) : (int64_t)((uint64_t)x >> y);
}

static int int_binop(int op, sprt_val a, sprt_val b, sprt_val *out)
{
	int64_t x = a.u.i, y = b.u.i, r;
	bool both_bool = a.kind == SPRT_BOOL && b.kind == SPRT_BOOL;
	switch (op) {
	case '+':
		if (__builtin_add_overflow(x, y, &r))
			return SPRT_EOVERFLOW;
		break;
	case '-':
		if (__builtin_sub_overflow(x, y, &r))
			return SPRT_EOVERFLOW;
		break;
	case '*':
		if (__builtin_mul_overflow(x, y, &r))
			return SPRT_EOVERFLOW;
		break;
	case '/':
		if (y == 0)
			return SPRT_EZERODIV;
		*out = sprt_float(int_truediv(x, y));
		return SPRT_OK;
	case 'f':
		if (y == 0)
			return SPRT_EZERODIV;
		if (y == -1) {
			if (x == INT64_MIN)
				return SPRT_EOVERFLOW;
			r = -x;
			break;
		}
		r = x / y;
		if (x % y != 0 && ((x < 0) != (y < 0)))
			r--;
		break;
	case '%':
		if (y == 0)
			return SPRT_EZERODIV;
		r = y == -1 ? 0 : x % y;
		if (r != 0 && ((r < 0) != (y < 0)))
			r += y;
		break;
	case 'p':
		return int_pow(x, y, out);
	case '&':
		*out = both_bool ? sprt_bool(x & y) : sprt_int(x & y);
		return SPRT_OK;
	case '|':
		*out = both_bool ? sprt_bool(x | y) : sprt_int(x | y);
		return SPRT_OK;
	case '^':
		*out = both_bool ? sprt_bool(x ^ y) : sprt_int(x ^ y);
		return SPRT_OK;
	case 'l':
		if (y < 0)
			return SPRT_EVALUE;
		if (x == 0) {
			r = 0;
			break;
		}
		if (y >= 64)
			return SPRT_EOVERFLOW;
		/* Overflow iff shifting back does not give x. */
		r = (int64_t)((uint64_t)x << y);
		if (shr(r, y) != x)
			return SPRT_EOVERFLOW;
		break;
	case 'r':
		if (y < 0)
			return SPRT_EVALUE;
		r = shr(x, y);
		break;
	default:
		return SPRT_ETYPE;
	}
	*out = sprt_int(r);
	return SPRT_OK;
}

static int float_binop(int op, double x, double y, sprt_val *out)
{
	double r, m;
	switch (op) {
	case '+': r = x + y; break;
	case '-': r = x - y; break;
	case '*': r = x * y; break;
	case '/':
		if (y == 0)
			return SPRT_EZERODIV;
		r = x / y;
		break;
	case 'f':
	case '%':
		if (y == 0)
			return SPRT_EZERODIV;
		float_divmod(x, y, &r, &m);
		if (op == '%')
			r = m;
		break;
	case 'p': {
		int err = float_pow(x, y, &r);
		if (err)
			return err;
		break;
	}
	default:
		return SPRT_ETYPE;
	}
	*out = sprt_float(r);
	return SPRT_OK;
}

/* ---- iterator algebra -------------------------------------------------------------- */

/* Appends the elements of an iterable. */
static int append_iter(struct sprt_vec *dst, sprt_val it)
{
	if (it.kind == SPRT_VEC) {
		const struct sprt_vec *v = it.u.p;
		if (v->n > SPRT_MAX_VEC - dst->n)
			return SPRT_ENOMEM;
		int err = vec_reserve(dst, dst->n + v->n);
		if (err)
			return err;
		if (v->n)
			memcpy(dst->v + dst->n, v->v, v->n * sizeof(*v->v));
		dst->n += v->n;
		return SPRT_OK;
	}
	uint64_t n = sprt_range_len(it.u.i, it.r_stop, it.r_step);
	if (n > SPRT_MAX_VEC - dst->n)
		return SPRT_ENOMEM;
	int err = vec_reserve(dst, dst->n + (size_t)n);
	if (err)
		return err;
	for (uint64_t i = 0; i < n; i++)
		dst->v[dst->n++] = sprt_int(range_at(it, i));
	return SPRT_OK;
}

/* Ordering of set elements (no NaNs): numbers numerically, strings by text. */
static int set_cmp(const struct sprt_ctx *ctx, const sprt_val *a, const sprt_val *b)
{
	if (a->kind == SPRT_STR)
		return cmp_str(ctx, a, b);
	return cmp_num(a, b);
}

/* Stable merge sort (qsort has no context argument and is not stable). */
static void merge_sort(const struct sprt_ctx *ctx, sprt_val *v, sprt_val *tmp, size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = set_cmp(ctx, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/*
 * Sorts v and drops duplicates, keeping the first of equal
 * elements (as a Python set keeps the first inserted).  Every element must
 * be a number (not NaN), or every element a string.
 */
static int sort_unique(const struct sprt_ctx *ctx, struct sprt_vec *v)
{
	size_t n = v->n;
	sprt_val *a = v->v;
	bool strs = false, nums = false;
	for (size_t i = 0; i < n; i++) {
		if (a[i].kind == SPRT_UNDEF)
			return SPRT_EUNDEF;
		if (a[i].kind == SPRT_STR)
			strs = true;
		else if (a[i].kind == SPRT_FLOAT && isnan(a[i].u.f))
			return SPRT_EVALUE; /* unordered: no place in a sorted set */
		else if (is_num(&a[i]))
			nums = true;
		else
			return SPRT_ETYPE;
	}
	if (strs && nums)
		return SPRT_ETYPE;
	if (n > 1) {
		sprt_val *tmp = malloc(n * sizeof(*tmp));
		if (!tmp)
			return SPRT_ENOMEM;
		merge_sort(ctx, a, tmp, n);
		free(tmp);
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || set_cmp(ctx, &a[k - 1], &a[i]) != CMP_EQ)
			a[k++] = a[i];
	v->n = k;
	return SPRT_OK;
}

/* The distinct elements of an iterable in ascending order, into dst. */
static int sorted_set(const struct sprt_ctx *ctx, struct sprt_vec *dst, sprt_val it)
{
	dst->n = 0;
	if (it.kind == SPRT_RANGE && it.r_step < 0) {
		/* Already distinct: reverse it rather than sort it. */
		uint64_t n = sprt_range_len(it.u.i, it.r_stop, it.r_step);
		if (n > SPRT_MAX_VEC)
			return SPRT_ENOMEM;
		int err = vec_reserve(dst, (size_t)n);
		if (err)
			return err;
		for (uint64_t i = n; i-- > 0;)
			dst->v[dst->n++] = sprt_int(range_at(it, i));
		return SPRT_OK;
	}
	int err = append_iter(dst, it);
	if (err)
		return err;
	return it.kind == SPRT_RANGE ? SPRT_OK : sort_unique(ctx, dst);
}

static bool set_has(const struct sprt_ctx *ctx, const struct sprt_vec *sorted, sprt_val it, const sprt_val *x)
{
	if (it.kind == SPRT_RANGE)
		return range_contains(it, x);
	size_t lo = 0, hi = sorted->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = set_cmp(ctx, &sorted->v[mid], x);
		if (c == CMP_EQ)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* A set's elements must all be numbers or all be strings (no mixing). */
static int set_compatible(const struct sprt_vec *a, const struct sprt_vec *b)
{
	if (!a->n || !b->n)
		return SPRT_OK;
	return (a->v[0].kind == SPRT_STR) == (b->v[0].kind == SPRT_STR) ? SPRT_OK : SPRT_ETYPE;
}

/*
 * a & b and a - b: the sorted distinct elements of a that are (not) in b.
 * A range on the right is tested arithmetically, never listed, so that
 * `xs & range(10**12)` works; range & list is computed as list & range
 * (the list's elements are kept, as lang/interp.c does).
 */
static int set_filter(const struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, struct sprt_vec *dst)
{
	if (op == '&' && a.kind == SPRT_RANGE && b.kind == SPRT_VEC) {
		sprt_val t = a;
		a = b;
		b = t;
	}
	struct sprt_vec sb = { 0 };
	int err = sorted_set(ctx, dst, a);
	if (!err && b.kind == SPRT_VEC)
		err = sorted_set(ctx, &sb, b);
	if (!err && b.kind == SPRT_VEC)
		err = set_compatible(dst, &sb);
	if (err) {
		sprt_vec_free(&sb);
		return err;
	}
	size_t k = 0;
	for (size_t i = 0; i < dst->n; i++)
		if (set_has(ctx, &sb, b, &dst->v[i]) == (op == '&'))
			dst->v[k++] = dst->v[i];
	dst->n = k;
	sprt_vec_free(&sb);
	return SPRT_OK;
}

static int iter_binop(const struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, struct sprt_vec *dst)
{
	int err;
	switch (op) {
	case '+':
		err = append_iter(dst, a);
		return err ? err : append_iter(dst, b);
	case '|':
		err = append_iter(dst, a);
		if (!err)
			err = append_iter(dst, b);
		return err ? err : sort_unique(ctx, dst);
	case '&':
	case '-':
		return set_filter(ctx, op, a, b, dst);
	default:
		return SPRT_ETYPE;
	}
}

static int iter_repeat(sprt_val it, int64_t times, struct sprt_vec *dst)
{
	if (times <= 0)
		return SPRT_OK;
	int64_t len = sprt_iter_len(it);
	if (len == 0)
		return SPRT_OK;
	if ((uint64_t)len > SPRT_MAX_VEC || (uint64_t)times > SPRT_MAX_VEC / (uint64_t)len)
		return SPRT_ENOMEM;
	int err = append_iter(dst, it);
	if (err)
		return err;
	err = vec_reserve(dst, (size_t)len * (size_t)times);
	if (err)
		return err;
	for (int64_t t = 1; t < times; t++) {
		memcpy(dst->v + dst->n, dst->v, (size_t)len * sizeof(*dst->v));
		dst->n += (size_t)len;
	}
	return SPRT_OK;
}

/*
 * Runs an iterable operation into `scratch`.  An operand may be the
 * scratch vector itself (x = x + [1] in a def body), so then the result is
 * built aside and moved in.
 */
static int iter_op(const struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, sprt_val *out,
		   struct sprt_vec *scratch)
{
	if (!scratch)
		return SPRT_ENOMEM;
	bool alias = (a.kind == SPRT_VEC && a.u.p == scratch) || (b.kind == SPRT_VEC && b.u.p == scratch);
	struct sprt_vec tmp = { 0 };
	struct sprt_vec *dst = alias ? &tmp : scratch;
	dst->n = 0;
	int err;
	if (op == '*')
		err = a.kind == SPRT_VEC ? iter_repeat(a, b.u.i, dst) : iter_repeat(b, a.u.i, dst);
	else
		err = iter_binop(ctx, op, a, b, dst);
	if (alias) {
		if (err) {
			sprt_vec_free(&tmp);
			return err;
		}
		sprt_vec_free(scratch);
		*scratch = tmp;
	}
	if (!err)
		*out = sprt_vecval(scratch);
	return err;
}

int sprt_binop(struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, sprt_val *out,
	       struct sprt_vec *scratch)
{
	if (a.kind == SPRT_UNDEF || b.kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	if (is_intlike(&a) && is_intlike(&b))
		return int_binop(op, a, b, out);
	if (is_num(&a) && is_num(&b)) {
		/* An int ** float or int / float converts the int first. */
		return float_binop(op, num_to_double(&a), num_to_double(&b), out);
	}
	if (is_iter(&a) && is_iter(&b) && (op == '|' || op == '&' || op == '-'))
		return iter_op(ctx, op, a, b, out, scratch);
	/* + and * take lists only: range(3) + [1] is a TypeError in Python. */
	if (op == '+' && a.kind == SPRT_VEC && b.kind == SPRT_VEC)
		return iter_op(ctx, op, a, b, out, scratch);
	if (op == '*' && ((a.kind == SPRT_VEC && is_intlike(&b)) || (is_intlike(&a) && b.kind == SPRT_VEC)))
		return iter_op(ctx, op, a, b, out, scratch);
	return SPRT_ETYPE;
}

/* ---- unary operations ---------------------------------------------------------------- */

/* -a, +a and ~a as Python has them: on ints and bools (a bool gives an
 * int), and - and + on floats too. */
static int unary(char op, sprt_val a, sprt_val *out)
{
	if (is_intlike(&a)) {
		if (op == '-' && a.u.i == INT64_MIN)
			return SPRT_EOVERFLOW;
		*out = sprt_int(op == '-' ? -a.u.i : op == '~' ? ~a.u.i : a.u.i);
		return SPRT_OK;
	}
	if (a.kind == SPRT_FLOAT && op != '~') {
		*out = op == '-' ? sprt_float(-a.u.f) : a;
		return SPRT_OK;
	}
	return a.kind == SPRT_UNDEF ? SPRT_EUNDEF : SPRT_ETYPE;
}

int sprt_neg(sprt_val a, sprt_val *out)
{
	return unary('-', a, out);
}

int sprt_pos(sprt_val a, sprt_val *out)
{
	return unary('+', a, out);
}

int sprt_invert(sprt_val a, sprt_val *out)
{
	return unary('~', a, out);
}

/* ---- indexing -------------------------------------------------------------------------- */

int sprt_index(sprt_val seq, sprt_val idx, sprt_val *out)
{
	if (seq.kind == SPRT_UNDEF || idx.kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	if (!is_iter(&seq) || !is_intlike(&idx))
		return SPRT_ETYPE;
	int64_t n = sprt_iter_len(seq), i = idx.u.i;
	if (i < 0)
		i += n; /* n >= 0 and i < 0: cannot overflow */
	if (i < 0 || i >= n)
		return SPRT_EVALUE;
	*out = sprt_iter_at(seq, i);
	return SPRT_OK;
}

/* ---- builtins ------------------------------------------------------------------------------ */

int sprt_builtin_range(const sprt_val *args, int n, sprt_val *out)
{
	if (n < 1 || n > 3)
		return SPRT_ETYPE;
	for (int i = 0; i < n; i++) {
		if (args[i].kind == SPRT_UNDEF)
			return SPRT_EUNDEF;
		if (!is_intlike(&args[i]))
			return SPRT_ETYPE;
	}
	int64_t start = 0, stop, step = 1;
	if (n == 1) {
		stop = args[0].u.i;
	} else {
		start = args[0].u.i;
		stop = args[1].u.i;
		if (n == 3)
			step = args[2].u.i;
	}
	if (step == 0)
		return SPRT_EVALUE;
	*out = range_val(start, stop, step);
	return SPRT_OK;
}

int sprt_builtin_minmax(const struct sprt_ctx *ctx, bool is_max, const sprt_val *args, int n, sprt_val *out)
{
	if (n < 1)
		return SPRT_ETYPE;
	const sprt_val *items = args;
	size_t count = (size_t)n;
	if (n == 1) {
		sprt_val it = args[0];
		if (it.kind == SPRT_UNDEF)
			return SPRT_EUNDEF;
		if (it.kind == SPRT_RANGE) {
			uint64_t len = sprt_range_len(it.u.i, it.r_stop, it.r_step);
			if (len == 0)
				return SPRT_EVALUE;
			int64_t first = it.u.i, last = range_at(it, len - 1);
			bool up = it.r_step > 0;
			*out = sprt_int(is_max == up ? last : first);
			return SPRT_OK;
		}
		if (it.kind != SPRT_VEC)
			return SPRT_ETYPE;
		items = it.u.p->v;
		count = it.u.p->n;
		if (count == 0)
			return SPRT_EVALUE;
	}
	sprt_val best = items[0];
	if (best.kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	for (size_t i = 1; i < count; i++) {
		/* Python replaces only on a strict improvement: the first of
		 * equal values wins. */
		bool better;
		int err = sprt_compare(ctx, is_max ? '>' : '<', items[i], best, &better);
		if (err)
			return err;
		if (better)
			best = items[i];
	}
	*out = best;
	return SPRT_OK;
}

int sprt_builtin_abs(sprt_val a, sprt_val *out)
{
	if (a.kind == SPRT_FLOAT) {
		*out = sprt_float(fabs(a.u.f)); /* -0.0 and -nan lose their sign too */
		return SPRT_OK;
	}
	if (is_intlike(&a) && a.u.i >= 0) {
		*out = sprt_int(a.u.i); /* abs(True) is the int 1 */
		return SPRT_OK;
	}
	return sprt_neg(a, out); /* a negative int (INT64_MIN overflows), or a type error */
}

static bool py_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Trims Python whitespace: [*s, *e) is what is left. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && py_space(**s))
		(*s)++;
	while (*e > *s && py_space((*e)[-1]))
		(*e)--;
}

/* Python's int(str) in base 10. */
static int parse_py_int(const char *text, sprt_val *out)
{
	const char *s = text, *e = text + strlen(text);
	trim(&s, &e);
	bool neg = false;
	if (s < e && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	if (s >= e || *s < '0' || *s > '9')
		return SPRT_EVALUE;
	uint64_t acc = 0;
	bool big = false;
	for (const char *p = s; p < e; p++) {
		if (*p == '_') {
			if (p + 1 >= e || p[1] < '0' || p[1] > '9')
				return SPRT_EVALUE;
			continue;
		}
		if (*p < '0' || *p > '9')
			return SPRT_EVALUE;
		if (acc > (UINT64_MAX - 9) / 10)
			big = true;
		else
			acc = acc * 10 + (uint64_t)(*p - '0');
	}
	if (big || acc > (uint64_t)INT64_MAX + neg)
		return SPRT_EOVERFLOW;
	*out = sprt_int(neg ? (int64_t)(0 - acc) : (int64_t)acc);
	return SPRT_OK;
}

/*
 * float(str) as lang/interp.c reads it: strtod over the trimmed text, less
 * hex floats and nan(...).  Python also takes "1_000"; the interpreter
 * does not, and this must agree with it.
 */
static int parse_py_float(const char *text, sprt_val *out)
{
	const char *s = text, *e = text + strlen(text);
	trim(&s, &e);
	char buf[128];
	size_t n = (size_t)(e - s);
	if (!n || n >= sizeof(buf))
		return SPRT_EVALUE;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (strpbrk(buf, "xX(_"))
		return SPRT_EVALUE;
	char *end;
	double d = strtod(buf, &end);
	if (end == buf || *end)
		return SPRT_EVALUE;
	*out = sprt_float(d);
	return SPRT_OK;
}

/* int(), float() and bool() without their one argument: `zero` for none,
 * a TypeError for more. */
static int no_arg(int n, sprt_val zero, sprt_val *out)
{
	if (n != 0)
		return SPRT_ETYPE;
	*out = zero;
	return SPRT_OK;
}

int sprt_builtin_int(const struct sprt_ctx *ctx, const sprt_val *args, int n, sprt_val *out)
{
	if (n != 1)
		return no_arg(n, sprt_int(0), out);
	sprt_val a = args[0];
	switch (a.kind) {
	case SPRT_BOOL:
	case SPRT_INT:
		*out = sprt_int(a.u.i);
		return SPRT_OK;
	case SPRT_FLOAT:
		if (isnan(a.u.f))
			return SPRT_EVALUE;
		if (!(a.u.f >= -TWO63 && a.u.f < TWO63))
			return SPRT_EOVERFLOW; /* inf, or beyond int64 after truncation */
		*out = sprt_int((int64_t)a.u.f);
		return SPRT_OK;
	case SPRT_STR:
		return parse_py_int(sprt_str_text(ctx, a.u.i), out);
	default:
		return a.kind == SPRT_UNDEF ? SPRT_EUNDEF : SPRT_ETYPE;
	}
}

int sprt_builtin_float(const struct sprt_ctx *ctx, const sprt_val *args, int n, sprt_val *out)
{
	if (n != 1)
		return no_arg(n, sprt_float(0.0), out);
	sprt_val a = args[0];
	switch (a.kind) {
	case SPRT_FLOAT:
		*out = a;
		return SPRT_OK;
	case SPRT_BOOL:
	case SPRT_INT:
		*out = sprt_float((double)a.u.i);
		return SPRT_OK;
	case SPRT_STR:
		return parse_py_float(sprt_str_text(ctx, a.u.i), out);
	default:
		return a.kind == SPRT_UNDEF ? SPRT_EUNDEF : SPRT_ETYPE;
	}
}

int sprt_builtin_bool(const sprt_val *args, int n, sprt_val *out)
{
	if (n != 1)
		return no_arg(n, sprt_bool(false), out);
	if (args[0].kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	*out = sprt_bool(sprt_truthy(args[0]));
	return SPRT_OK;
}

int sprt_builtin_len(const struct sprt_ctx *ctx, sprt_val a, sprt_val *out)
{
	switch (a.kind) {
	case SPRT_STR: {
		/* Code points of the UTF-8 text, as Python (and lang/interp.c). */
		int64_t n = 0;
		for (const unsigned char *s = (const unsigned char *)sprt_str_text(ctx, a.u.i); *s; s++)
			n += (*s & 0xc0) != 0x80;
		*out = sprt_int(n);
		return SPRT_OK;
	}
	case SPRT_VEC:
		*out = sprt_int((int64_t)a.u.p->n);
		return SPRT_OK;
	case SPRT_RANGE: {
		uint64_t len = sprt_range_len(a.u.i, a.r_stop, a.r_step);
		if (len > INT64_MAX)
			return SPRT_EOVERFLOW; /* Python: "too large to convert to C ssize_t" */
		*out = sprt_int((int64_t)len);
		return SPRT_OK;
	}
	case SPRT_UNDEF:
		return SPRT_EUNDEF;
	default:
		return SPRT_ETYPE;
	}
}

int sprt_builtin_list(const sprt_val *args, int n, sprt_val *out, struct sprt_vec *scratch)
{
	if (n > 1 || !scratch)
		return n > 1 ? SPRT_ETYPE : SPRT_ENOMEM;
	if (n == 1) {
		if (args[0].kind == SPRT_UNDEF)
			return SPRT_EUNDEF;
		if (!is_iter(&args[0]))
			return SPRT_ETYPE;
		if (args[0].kind == SPRT_VEC && args[0].u.p == scratch) {
			*out = args[0];
			return SPRT_OK;
		}
	}
	scratch->n = 0;
	if (n == 1) {
		int err = append_iter(scratch, args[0]);
		if (err)
			return err;
	}
	*out = sprt_vecval(scratch);
	return SPRT_OK;
}

int sprt_builtin_sum(sprt_val a, sprt_val *out)
{
	if (a.kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	if (a.kind == SPRT_RANGE) {
		/* n * (first + last) / 2 without overflow: __int128 holds it. */
		uint64_t n = sprt_range_len(a.u.i, a.r_stop, a.r_step);
		if (n == 0) {
			*out = sprt_int(0);
			return SPRT_OK;
		}
		__int128 first = a.u.i, last = range_at(a, n - 1);
		__int128 s2 = (first + last) * (__int128)n; /* |.| < 2^64 * 2^64 */
		__int128 s = s2 / 2;
		if (s > INT64_MAX || s < INT64_MIN)
			return SPRT_EOVERFLOW;
		*out = sprt_int((int64_t)s);
		return SPRT_OK;
	}
	if (a.kind != SPRT_VEC)
		return SPRT_ETYPE;
	/*
	 * CPython 3.12's sum(), as lang/interp.c: ints exactly (an
	 * intermediate overflow does not matter, only the total's), then
	 * floats with Neumaier compensation, then anything else through +.
	 */
	const struct sprt_vec *v = a.u.p;
	size_t i = 0, n = v->n;
	__int128 t = 0; /* at most SPRT_MAX_VEC terms: cannot overflow */
	for (; i < n && is_intlike(&v->v[i]); i++)
		t += v->v[i].u.i;
	sprt_val acc;
	if (i < n && v->v[i].kind == SPRT_FLOAT) {
		double f = (double)t + v->v[i].u.f, c = 0.0;
		for (i++; i < n; i++) {
			const sprt_val *x = &v->v[i];
			if (x->kind == SPRT_FLOAT) {
				double s = f + x->u.f;
				if (fabs(f) >= fabs(x->u.f))
					c += (f - s) + x->u.f;
				else
					c += (x->u.f - s) + f;
				f = s;
			} else if (is_intlike(x)) {
				f += (double)x->u.i;
			} else {
				break;
			}
		}
		if (c != 0 && isfinite(c))
			f += c;
		acc = sprt_float(f);
	} else {
		if (t < INT64_MIN || t > INT64_MAX)
			return SPRT_EOVERFLOW;
		acc = sprt_int((int64_t)t);
	}
	for (; i < n; i++) {
		int err = sprt_binop(NULL, '+', acc, v->v[i], &acc, NULL);
		if (err)
			return err;
	}
	*out = acc;
	return SPRT_OK;
}

/* ---- printing ------------------------------------------------------------------------ */

void sprt_float_repr_(char *buf, double d)
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
	/* tmp is "[-]d[.ddd]e[+-]xx": split it into digits and exponent. */
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
	/* Python's repr (float_repr_style 'short') switches to exponent
	 * form outside 1e-4 <= |d| < 1e16. */
	if (decpt <= -4 || decpt > 16) {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		int ax = (exp10 < 0 ? -exp10 : exp10) % 1000; /* |exp10| <= 324 */
		snprintf(o, 8, "e%c%02d", exp10 < 0 ? '-' : '+', ax);
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

void sprt_print_str_(FILE *out, const char *s, bool json)
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
	/* Python's repr: single quotes unless the text has one and no double. */
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

void sprt_print_value(const struct sprt_ctx *ctx, FILE *out, sprt_val v, bool json)
{
	char buf[SPRT_FLOAT_BUF];
	switch ((enum sprt_kind)v.kind) {
	case SPRT_UNDEF:
		fputs(json ? "null" : "<undefined>", out);
		return;
	case SPRT_NONE:
		fputs(json ? "null" : "None", out);
		return;
	case SPRT_BOOL:
		fputs(json ? (v.u.i ? "true" : "false") : (v.u.i ? "True" : "False"), out);
		return;
	case SPRT_INT:
		fprintf(out, "%" PRId64, v.u.i);
		return;
	case SPRT_FLOAT:
		if (json && !isfinite(v.u.f)) {
			fputs("null", out);
			return;
		}
		sprt_float_repr_(buf, v.u.f);
		fputs(buf, out);
		return;
	case SPRT_STR:
		sprt_print_str_(out, sprt_str_text(ctx, v.u.i), json);
		return;
	case SPRT_VEC:
		fputc('[', out);
		for (size_t i = 0; i < v.u.p->n; i++) {
			if (i)
				fputs(", ", out);
			sprt_print_value(ctx, out, v.u.p->v[i], json);
		}
		fputc(']', out);
		return;
	case SPRT_RANGE: {
		int64_t a = v.u.i, b = v.r_stop, s = v.r_step;
		if (!json) {
			if (s == 1)
				fprintf(out, "range(%" PRId64 ", %" PRId64 ")", a, b);
			else
				fprintf(out, "range(%" PRId64 ", %" PRId64 ", %" PRId64 ")", a, b, s);
			return;
		}
		/* JSON has no ranges: write the elements. */
		uint64_t n = sprt_range_len(a, b, s);
		fputc('[', out);
		for (uint64_t i = 0; i < n; i++)
			fprintf(out, i ? ", %" PRId64 : "%" PRId64, range_at(v, i));
		fputc(']', out);
		return;
	}
	}
	fputs(json ? "null" : "<bad value>", out);
}

/* ---- parsing --set values (sprt_bindings_set_text; the rule: sprt_set_check) ----- */

static bool parse_set_int(const char *t, int64_t *out)
{
	const char *p = t;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!*p)
		return false;
	uint64_t acc = 0;
	for (; *p; p++) {
		int dgt;
		if (*p >= '0' && *p <= '9')
			dgt = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			dgt = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			dgt = *p - 'A' + 10;
		else
			return false;
		if (acc > (UINT64_MAX - (uint64_t)dgt) / (uint64_t)base)
			return false;
		acc = acc * (uint64_t)base + (uint64_t)dgt;
	}
	if (neg) {
		if (acc > (uint64_t)INT64_MAX + 1)
			return false;
		*out = (int64_t)(0 - acc);
	} else {
		if (acc > (uint64_t)INT64_MAX)
			return false;
		*out = (int64_t)acc;
	}
	return true;
}

static bool parse_set_float(const char *t, double *out)
{
	/* strtod also reads hex floats, which Python's float() does not. */
	if (!*t || strpbrk(t, "xX") || t[0] == ' ' || t[0] == '\t')
		return false;
	char *end;
	errno = 0;
	double d = strtod(t, &end);
	if (*end || end == t)
		return false;
	*out = d;
	return true;
}

void sprt_parse_value_(const char *text, sprt_val *out, const char **text_start, size_t *text_len)
{
	int64_t i;
	double d;
	*text_start = NULL;
	*text_len = 0;
	if (parse_set_int(text, &i)) {
		*out = sprt_int(i);
		return;
	}
	if (parse_set_float(text, &d)) {
		*out = sprt_float(d);
		return;
	}
	if (!strcmp(text, "True") || !strcmp(text, "true")) {
		*out = sprt_bool(true);
		return;
	}
	if (!strcmp(text, "False") || !strcmp(text, "false")) {
		*out = sprt_bool(false);
		return;
	}
	size_t n = strlen(text);
	*out = sprt_str(0);
	if (n >= 2 && (text[0] == '"' || text[0] == '\'') && text[n - 1] == text[0]) {
		*text_start = text + 1;
		*text_len = n - 2;
	} else {
		*text_start = text;
		*text_len = n;
	}
}

/* ---- any, all, round and the math module ------------------------------------------ */

int sprt_builtin_anyall(const struct sprt_ctx *ctx, bool is_all, sprt_val a, sprt_val *out)
{
	if (a.kind == SPRT_UNDEF)
		return SPRT_EUNDEF;
	if (a.kind == SPRT_RANGE) {
		/* 0 is the only false element; a range holds it at most once. */
		uint64_t len = sprt_range_len(a.u.i, a.r_stop, a.r_step);
		bool zero = false;
		if (len) {
			int64_t first = a.u.i, last = range_at(a, len - 1);
			int64_t lo = first < last ? first : last, hi = first < last ? last : first;
			uint64_t step = a.r_step > 0 ? (uint64_t)a.r_step : 0 - (uint64_t)a.r_step;
			zero = lo <= 0 && hi >= 0 && (0 - (uint64_t)lo) % step == 0;
		}
		*out = sprt_bool(is_all ? !zero : len > (uint64_t)zero);
		return SPRT_OK;
	}
	if (a.kind != SPRT_VEC)
		return SPRT_ETYPE;
	for (size_t i = 0; i < a.u.p->n; i++) {
		if (a.u.p->v[i].kind == SPRT_UNDEF)
			return SPRT_EUNDEF;
		if (sprt_truthy_ctx(ctx, a.u.p->v[i]) != is_all) {
			*out = sprt_bool(!is_all);
			return SPRT_OK;
		}
	}
	*out = sprt_bool(is_all);
	return SPRT_OK;
}

/*
 * Adds one unit in the last place to a string of decimal digits, in place;
 * false when it carries out of the first digit (the caller keeps room).
 */
static bool decimal_increment(char *digits, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		if (digits[i] != '9') {
			digits[i]++;
			return true;
		}
		digits[i] = '0';
	}
	return false;
}

/*
 * round(x, ndigits) of a finite float: the exact decimal expansion rounded
 * half to even at the ndigits-th place, then read back (CPython's
 * double_round with dtoa).  printf("%.*f") is exact and rounds ties to
 * even, which serves ndigits >= 0; ndigits < 0 rounds the integer part's
 * digits by hand.
 */
static int round_digits(double x, int64_t nd, double *out)
{
	if (!isfinite(x) || nd > 323) {
		*out = x;
		return SPRT_OK;
	}
	if (nd < -308) {
		*out = 0.0 * x;
		return SPRT_OK;
	}
	char text[800];
	if (nd >= 0) {
		snprintf(text, sizeof(text), "%.*f", (int)nd, x);
	} else {
		size_t k = (size_t)-nd;
		double ipart;
		double frac = modf(fabs(x), &ipart);
		char num[720];
		num[0] = '0'; /* room for a carry */
		int len = snprintf(num + 1, sizeof(num) - 1, "%.0f", ipart);
		size_t n = (size_t)len + 1;
		char q[720];
		size_t qn;
		bool up;
		if (k >= n) {
			/* |x| < 10**(k-1): at most a half when k == n - 1 ... never here. */
			q[0] = '0';
			qn = 1;
			up = false;
		} else {
			qn = n - k;
			memcpy(q, num, qn);
			const char *low = num + qn;
			int c = low[0] - '5';
			for (size_t i = 1; i < k && c == 0; i++)
				c = low[i] != '0';
			up = c > 0 || (c == 0 && (frac != 0 || (q[qn - 1] - '0') % 2 == 1));
		}
		q[qn] = 0;
		if (up)
			decimal_increment(q, qn);
		snprintf(text, sizeof(text), "%s%se%zu", signbit(x) ? "-" : "", q, k);
	}
	double r = strtod(text, NULL);
	if (isinf(r))
		return SPRT_EOVERFLOW;
	*out = r;
	return SPRT_OK;
}

int sprt_builtin_round(const sprt_val *args, int n, sprt_val *out)
{
	if (n < 1 || n > 2)
		return SPRT_ETYPE;
	for (int i = 0; i < n; i++)
		if (args[i].kind == SPRT_UNDEF)
			return SPRT_EUNDEF;
	sprt_val x = args[0];
	bool has_nd = n == 2 && args[1].kind != SPRT_NONE;
	if (has_nd && !is_intlike(&args[1]))
		return SPRT_ETYPE;
	int64_t nd = has_nd ? args[1].u.i : 0;
	if (is_intlike(&x)) {
		if (nd >= 0) {
			*out = sprt_int(x.u.i);
			return SPRT_OK;
		}
		if (nd < -19) {
			*out = sprt_int(0);
			return SPRT_OK;
		}
		__int128 p = 1, v = x.u.i;
		for (int64_t i = nd; i < 0; i++)
			p *= 10;
		__int128 q = v / p, r = v % p;
		if (r < 0) {
			q--;
			r += p;
		}
		if (r * 2 > p || (r * 2 == p && (q % 2 != 0)))
			q++;
		__int128 res = q * p;
		if (res > INT64_MAX || res < INT64_MIN)
			return SPRT_EOVERFLOW;
		*out = sprt_int((int64_t)res);
		return SPRT_OK;
	}
	if (x.kind != SPRT_FLOAT)
		return SPRT_ETYPE;
	if (has_nd) {
		double r;
		int err = round_digits(x.u.f, nd, &r);
		if (!err)
			*out = sprt_float(r);
		return err;
	}
	if (isnan(x.u.f))
		return SPRT_EVALUE;
	/* Halves to even, as CPython: round() then the halfway fix. */
	double r = round(x.u.f);
	if (fabs(x.u.f - r) == 0.5)
		r = 2.0 * round(x.u.f / 2.0);
	if (!(r >= -TWO63 && r < TWO63))
		return SPRT_EOVERFLOW;
	*out = sprt_int((int64_t)r);
	return SPRT_OK;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static double num_of(sprt_val v)
{
	return v.kind == SPRT_FLOAT ? v.u.f : (double)v.u.i;
}

/* CPython's math.pow: IEEE specials by hand, then libm with its errors. */
static int math_pow_(double x, double y, double *out)
{
	if (isnan(x)) {
		*out = y == 0 ? 1.0 : x;
	} else if (isnan(y)) {
		*out = x == 1.0 ? 1.0 : y;
	} else if (isinf(x)) {
		bool odd_y = isfinite(y) && fmod(fabs(y), 2.0) == 1.0;
		*out = y > 0 ? (odd_y ? x : fabs(x)) : y == 0 ? 1.0 : (odd_y ? copysign(0.0, x) : 0.0);
	} else if (isinf(y)) {
		double ax = fabs(x);
		*out = ax == 1.0 ? 1.0 : (y > 0 && ax > 1.0) ? y : (y < 0 && ax < 1.0) ? -y : 0.0;
	} else {
		double r = pow(x, y);
		if (isnan(r))
			return SPRT_EVALUE;
		if (isinf(r))
			return x == 0 ? SPRT_EVALUE : SPRT_EOVERFLOW;
		*out = r;
	}
	return SPRT_OK;
}

static int math_float_(enum sprt_math fn, double x, double *out)
{
	switch (fn) {
	case SPRT_MATH_SQRT:
		if (x < 0)
			return SPRT_EVALUE;
		*out = sqrt(x);
		return SPRT_OK;
	case SPRT_MATH_LOG:
	case SPRT_MATH_LOG2:
	case SPRT_MATH_LOG10:
		if (x <= 0) /* nan goes through: log(nan) is nan */
			return SPRT_EVALUE;
		*out = fn == SPRT_MATH_LOG ? log(x) : fn == SPRT_MATH_LOG2 ? log2(x) : log10(x);
		return SPRT_OK;
	case SPRT_MATH_EXP:
		*out = exp(x);
		return isinf(*out) && isfinite(x) ? SPRT_EOVERFLOW : SPRT_OK;
	case SPRT_MATH_FABS:
		*out = fabs(x);
		return SPRT_OK;
	default:
		return SPRT_ETYPE;
	}
}

int sprt_builtin_math(struct sprt_ctx *ctx, enum sprt_math fn, const sprt_val *args, int n, sprt_val *out)
{
	for (int i = 0; i < n; i++)
		if (args[i].kind == SPRT_UNDEF)
			return SPRT_EUNDEF;
	if (fn == SPRT_MATH_GCD || fn == SPRT_MATH_LCM) {
		uint64_t acc = fn == SPRT_MATH_GCD ? 0 : 1;
		for (int i = 0; i < n; i++) {
			if (!is_intlike(&args[i]))
				return SPRT_ETYPE;
			int64_t v = args[i].u.i;
			uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
			if (fn == SPRT_MATH_GCD) {
				acc = gcd64(acc, m);
				continue;
			}
			if (!acc || !m) {
				acc = 0;
				continue;
			}
			uint64_t l;
			if (__builtin_mul_overflow(acc / gcd64(acc, m), m, &l) || l > (uint64_t)INT64_MAX)
				return SPRT_EOVERFLOW;
			acc = l;
		}
		if (acc > (uint64_t)INT64_MAX)
			return SPRT_EOVERFLOW;
		*out = sprt_int((int64_t)acc);
		return SPRT_OK;
	}
	if (fn == SPRT_MATH_PROD) {
		if (n != 1)
			return SPRT_ETYPE;
		if (!is_iter(&args[0]))
			return SPRT_ETYPE;
		sprt_val acc = sprt_int(1);
		int64_t len = sprt_iter_len(args[0]);
		for (int64_t i = 0; i < len; i++) {
			/* Ints after a 0 keep it 0: a long range stops here. */
			if (acc.kind == SPRT_INT && acc.u.i == 0 && args[0].kind == SPRT_RANGE)
				break;
			int err = sprt_binop(ctx, '*', acc, sprt_iter_at(args[0], i), &acc, NULL);
			if (err)
				return err;
		}
		*out = acc;
		return SPRT_OK;
	}
	int lo = fn == SPRT_MATH_POW ? 2 : 1, hi = fn == SPRT_MATH_POW || fn == SPRT_MATH_LOG ? 2 : 1;
	if (n < lo || n > hi)
		return SPRT_ETYPE;
	for (int i = 0; i < n; i++)
		if (!is_intlike(&args[i]) && args[i].kind != SPRT_FLOAT)
			return SPRT_ETYPE;
	sprt_val a = args[0];
	switch (fn) {
	case SPRT_MATH_CEIL:
	case SPRT_MATH_FLOOR:
	case SPRT_MATH_TRUNC: {
		if (is_intlike(&a)) {
			*out = sprt_int(a.u.i);
			return SPRT_OK;
		}
		if (isnan(a.u.f))
			return SPRT_EVALUE;
		double r = fn == SPRT_MATH_CEIL ? ceil(a.u.f) : fn == SPRT_MATH_FLOOR ? floor(a.u.f) : trunc(a.u.f);
		if (!(r >= -TWO63 && r < TWO63))
			return SPRT_EOVERFLOW;
		*out = sprt_int((int64_t)r);
		return SPRT_OK;
	}
	case SPRT_MATH_ISQRT: {
		if (!is_intlike(&a))
			return SPRT_ETYPE;
		if (a.u.i < 0)
			return SPRT_EVALUE;
		/* Newton's method from above, in integers. */
		uint64_t v = (uint64_t)a.u.i, r = v, next;
		if (v > 1) {
			r = (uint64_t)1 << ((64 - __builtin_clzll(v)) / 2 + 1);
			while ((next = (r + v / r) / 2) < r)
				r = next;
		}
		*out = sprt_int((int64_t)r);
		return SPRT_OK;
	}
	case SPRT_MATH_FACTORIAL: {
		if (!is_intlike(&a))
			return SPRT_ETYPE;
		if (a.u.i < 0)
			return SPRT_EVALUE;
		int64_t f = 1;
		for (int64_t k = 2; k <= a.u.i; k++)
			if (__builtin_mul_overflow(f, k, &f))
				return SPRT_EOVERFLOW;
		*out = sprt_int(f);
		return SPRT_OK;
	}
	case SPRT_MATH_ISFINITE:
		*out = sprt_bool(isfinite(num_of(a)));
		return SPRT_OK;
	case SPRT_MATH_ISINF:
		*out = sprt_bool(isinf(num_of(a)));
		return SPRT_OK;
	case SPRT_MATH_ISNAN:
		*out = sprt_bool(isnan(num_of(a)));
		return SPRT_OK;
	case SPRT_MATH_POW: {
		double r;
		int err = math_pow_(num_of(a), num_of(args[1]), &r);
		if (!err)
			*out = sprt_float(r);
		return err;
	}
	default:
		break;
	}
	double r;
	int err = math_float_(fn, num_of(a), &r);
	if (!err && fn == SPRT_MATH_LOG && n == 2) {
		double base;
		err = math_float_(fn, num_of(args[1]), &base);
		if (!err && base == 0)
			err = SPRT_EZERODIV;
		if (!err)
			r /= base;
	}
	if (!err)
		*out = sprt_float(r);
	return err;
}
