/*
 * spacert_ops.h - inline fast paths of the value operations.
 *
 * sprt_op and sprt_cmp behave exactly like sprt_binop and sprt_compare
 * (runtime/values.c); they only handle the int-by-int case here, where
 * generated code spends nearly all its time, and call out for the rest.
 * When the C compiler knows both tags it folds the switch away and what
 * is left is a checked add, a compare, and so on.
 *
 * Included by spacert.h; including this header alone works too.
 */
#ifndef SPACERT_OPS_H
#define SPACERT_OPS_H

#include "spacert.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Checked 64-bit arithmetic.  GCC and Clang have builtins; other
 * compilers (libtcc, which spacec uses for fast in-memory builds) get
 * portable tests that never overflow themselves.
 */
#if defined(__GNUC__) && !defined(__TINYC__)
#define SPRT_ADD_OVERFLOW(x, y, r) __builtin_add_overflow((x), (y), (r))
#define SPRT_SUB_OVERFLOW(x, y, r) __builtin_sub_overflow((x), (y), (r))
#define SPRT_MUL_OVERFLOW(x, y, r) __builtin_mul_overflow((x), (y), (r))
#else
static inline int sprt_add_overflow_(int64_t x, int64_t y, int64_t *r)
{
	if ((y > 0 && x > INT64_MAX - y) || (y < 0 && x < INT64_MIN - y))
		return 1;
	*r = x + y;
	return 0;
}

static inline int sprt_sub_overflow_(int64_t x, int64_t y, int64_t *r)
{
	if ((y < 0 && x > INT64_MAX + y) || (y > 0 && x < INT64_MIN + y))
		return 1;
	*r = x - y;
	return 0;
}

static inline int sprt_mul_overflow_(int64_t x, int64_t y, int64_t *r)
{
	if (x == 0 || y == 0) {
		*r = 0;
		return 0;
	}
	if (x > 0 ? (y > 0 ? x > INT64_MAX / y : y < INT64_MIN / x)
		  : (y > 0 ? x < INT64_MIN / y : (x == INT64_MIN || y == INT64_MIN || -x > INT64_MAX / -y)))
		return 1;
	*r = x * y;
	return 0;
}
#define SPRT_ADD_OVERFLOW(x, y, r) sprt_add_overflow_((x), (y), (r))
#define SPRT_SUB_OVERFLOW(x, y, r) sprt_sub_overflow_((x), (y), (r))
#define SPRT_MUL_OVERFLOW(x, y, r) sprt_mul_overflow_((x), (y), (r))
#endif

/*
 * Python's int operations on 64-bit ints: SPRT_OK with *r set, or
 * SPRT_EOVERFLOW / SPRT_EZERODIV.  Generated code calls them directly
 * where it has proven both operands are ints (typed values), and sprt_op
 * below uses them for its int-by-int case.
 */
static inline int sprt_i_add(int64_t x, int64_t y, int64_t *r)
{
	return SPRT_ADD_OVERFLOW(x, y, r) ? SPRT_EOVERFLOW : SPRT_OK;
}

static inline int sprt_i_sub(int64_t x, int64_t y, int64_t *r)
{
	return SPRT_SUB_OVERFLOW(x, y, r) ? SPRT_EOVERFLOW : SPRT_OK;
}

static inline int sprt_i_mul(int64_t x, int64_t y, int64_t *r)
{
	return SPRT_MUL_OVERFLOW(x, y, r) ? SPRT_EOVERFLOW : SPRT_OK;
}

/* x // y: the quotient rounded towards minus infinity. */
static inline int sprt_i_floordiv(int64_t x, int64_t y, int64_t *r)
{
	if (y == 0)
		return SPRT_EZERODIV;
	if (y == -1) {
		if (x == INT64_MIN)
			return SPRT_EOVERFLOW;
		*r = -x;
		return SPRT_OK;
	}
	int64_t q = x / y;
	if (x % y != 0 && ((x < 0) != (y < 0)))
		q--;
	*r = q;
	return SPRT_OK;
}

/* x % y: the remainder takes the sign of the divisor. */
static inline int sprt_i_mod(int64_t x, int64_t y, int64_t *r)
{
	if (y == 0)
		return SPRT_EZERODIV;
	/* INT64_MIN % -1 is undefined in C but 0 in Python. */
	int64_t m = y == -1 ? 0 : x % y;
	if (m != 0 && ((m < 0) != (y < 0)))
		m += y;
	*r = m;
	return SPRT_OK;
}

/*
 * How x / y (true division) compares with the int k, in ints: -1, 0 or 1,
 * or 2 where this shortcut does not apply (y == 0, or the numbers are too
 * large) and the caller divides in double.  Python rounds x / y correctly
 * and compares the double with k exactly; where |y * k| < 2**53 a quotient
 * other than k lies at least 1/|y| from it, more than half an ulp of k, so
 * rounding never moves it onto or across k: the exact order is the answer.
 */
static inline int sprt_i_truediv_cmp(int64_t x, int64_t y, int64_t k)
{
	const int64_t lim = (int64_t)1 << 53;
	int64_t yk;
	if (y == 0 || x == INT64_MIN || SPRT_MUL_OVERFLOW(y, k, &yk) || yk >= lim || yk <= -lim)
		return 2;
	/* x / y against k is x * sign(y) against k * |y| */
	int64_t lhs = y > 0 ? x : -x, rhs = y > 0 ? yk : -yk;
	return lhs < rhs ? -1 : lhs > rhs;
}

static inline int sprt_i_neg(int64_t x, int64_t *r)
{
	return SPRT_SUB_OVERFLOW((int64_t)0, x, r) ? SPRT_EOVERFLOW : SPRT_OK;
}

static inline int sprt_i_abs(int64_t x, int64_t *r)
{
	if (x >= 0) {
		*r = x;
		return SPRT_OK;
	}
	return sprt_i_neg(x, r);
}

static inline int sprt_op(struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, sprt_val *out,
			  struct sprt_vec *scratch)
{
	if (a.kind == SPRT_INT && b.kind == SPRT_INT) {
		int64_t x = a.u.i, y = b.u.i, r = 0;
		int rc;
		switch (op) {
		case '+': rc = sprt_i_add(x, y, &r); break;
		case '-': rc = sprt_i_sub(x, y, &r); break;
		case '*': rc = sprt_i_mul(x, y, &r); break;
		case 'f': rc = sprt_i_floordiv(x, y, &r); break;
		case '%': rc = sprt_i_mod(x, y, &r); break;
		case '&': rc = SPRT_OK, r = x & y; break;
		case '|': rc = SPRT_OK, r = x | y; break;
		case '^': rc = SPRT_OK, r = x ^ y; break;
		default: return sprt_binop(ctx, op, a, b, out, scratch);
		}
		if (rc == SPRT_OK)
			*out = sprt_int(r);
		return rc;
	}
	return sprt_binop(ctx, op, a, b, out, scratch);
}

static inline int sprt_cmp(const struct sprt_ctx *ctx, int op, sprt_val a, sprt_val b, bool *out)
{
	if (a.kind == SPRT_INT && b.kind == SPRT_INT) {
		int64_t x = a.u.i, y = b.u.i;
		switch (op) {
		case '<': *out = x < y; return SPRT_OK;
		case 'l': *out = x <= y; return SPRT_OK;
		case '>': *out = x > y; return SPRT_OK;
		case 'g': *out = x >= y; return SPRT_OK;
		case '=': *out = x == y; return SPRT_OK;
		case '!': *out = x != y; return SPRT_OK;
		default: break;
		}
	}
	return sprt_compare(ctx, op, a, b, out);
}

#ifdef __cplusplus
}
#endif

#endif
