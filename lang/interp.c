/*
 * interp.c - the reference interpreter.
 *
 * A direct AST walker.  Every evaluation returns 0 or -1; -1 is a domain
 * error (overflow, division by zero, a type error, the step limit) and
 * unwinds to the definition being evaluated, which rejects the point and
 * is charged one domain error.  Values carry their own references: each
 * function that produces a `struct value` hands one reference to its
 * caller, and operands passed in are borrowed.
 *
 * Choices where Python has no answer or where the language narrows it:
 *   - str + str, str * int and indexing a string are type errors (strings
 *     are interned names, never built at run time); `in` between strings
 *     is a substring test, as in Python, where sema cannot see the types.
 *   - a tuple is a list.
 *   - iterator algebra (| & - on two iterables) gives a sorted list without
 *     duplicates; its elements must be all numbers or all strings.
 *   - a def body that mutates a top-level value (a parameter, a table)
 *     works on its own copy when the value is held in a local name, and is
 *     a type error otherwise, so no point can see another point's edits.
 *   - sum() of floats uses Python 3.12's compensated summation; ints are
 *     summed exactly and only the total must fit 64 bits.
 */
#include "interp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#define DEFAULT_STEP_LIMIT 100000000u
#define SMALL_FRAME 16
#define SMALL_ARGS 8

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

struct frame {
	struct value *slots;
	int nslots;
	struct value ret;       /* the value of `return` */
	struct vlist *yields;   /* closure iterators: everything yielded */
};

struct level {
	int n;
	struct sema_def **defs; /* topological order */
};

struct interp {
	const struct sema_program *prog;
	const struct interp_options *opt;
	uint64_t step_limit, steps;
	struct value *vals;            /* current value of each def, by id */
	struct interp_def_stats *stats;
	bool *skip;                    /* constraints not checked */
	struct level *levels;          /* levels[k + 1] holds level k */
	struct value *point;           /* iterator values, definition order */
	interp_point_fn cb;
	void *cbctx;
	bool stopped;
	uint64_t valid, candidates;
	/* Why the last evaluation failed; kept for debugging. */
	const char *err;
};

enum flow { FLOW_NEXT, FLOW_BREAK, FLOW_CONTINUE, FLOW_RETURN, FLOW_ERROR };

static int eval(struct interp *I, struct frame *f, const struct ast_expr *e, struct value *out);
static int binop(struct interp *I, enum ast_op op, struct value a, struct value b,
		 struct value *out);
static int compare(struct interp *I, enum ast_op op, struct value a, struct value b, bool *res);

static int fail(struct interp *I, const char *why)
{
	I->err = why;
	return -1;
}

/* Hot paths: most values are scalars, so skip the call for them. */
static inline struct value ref(struct value v)
{
	if (v.kind == V_LIST)
		v.u.list->refs++;
	return v;
}

static inline void unref(struct value v)
{
	if (v.kind == V_LIST)
		value_unref(v);
}

/*
 * Results are written field by field: building a whole struct value and
 * copying it makes the compiler mix narrow stores with a wide load, a
 * store-forwarding stall that cost a quarter of the time on big spaces.
 */
static inline void set_int(struct value *o, int64_t i)
{
	o->kind = V_INT;
	o->u.i = i;
}

static inline void set_bool(struct value *o, bool b)
{
	o->kind = V_BOOL;
	o->u.i = b;
}

static inline void set_float(struct value *o, double f)
{
	o->kind = V_FLOAT;
	o->u.f = f;
}

static struct value none(void)
{
	struct value v = { V_NONE, { .i = 0 } };
	return v;
}

static struct value undef(void)
{
	struct value v = { V_UNDEF, { .i = 0 } };
	return v;
}

static bool is_intlike(struct value v)
{
	return v.kind == V_INT || v.kind == V_BOOL;
}

static bool is_num(struct value v)
{
	return v.kind == V_INT || v.kind == V_BOOL || v.kind == V_FLOAT;
}

static bool is_seq(struct value v)
{
	return v.kind == V_LIST || v.kind == V_RANGE;
}

static double as_double(struct value v)
{
	return v.kind == V_FLOAT ? v.u.f : (double)v.u.i;
}

/* ---- ranges -------------------------------------------------------------- */

static uint64_t vrange_len(struct value v)
{
	return value_range_len(v);
}

/* Element i < len: in range by construction, so the wrap-around is exact. */
static int64_t range_at(struct value v, uint64_t i)
{
	return (int64_t)((uint64_t)v.u.r.start + i * (uint64_t)v.u.r.step);
}

static bool range_has_int(struct value r, int64_t x)
{
	int64_t a = r.u.r.start, b = r.u.r.stop, s = r.u.r.step;
	if (s > 0)
		return a <= x && x < b && ((uint64_t)x - (uint64_t)a) % (uint64_t)s == 0;
	return b < x && x <= a && ((uint64_t)a - (uint64_t)x) % (0 - (uint64_t)s) == 0;
}

static uint64_t seq_len(struct value v)
{
	return v.kind == V_LIST ? v.u.list->len : vrange_len(v);
}

/* Element i of a list (borrowed) or a range. */
static struct value seq_at(struct value v, uint64_t i)
{
	if (v.kind == V_LIST)
		return v.u.list->items[i];
	return value_int(range_at(v, i));
}

/* ---- lists --------------------------------------------------------------- */

static int new_list(struct interp *I, size_t cap, struct vlist **out)
{
	*out = vlist_new(cap);
	return *out ? 0 : fail(I, "list too long");
}

static int push(struct interp *I, struct vlist *l, struct value v)
{
	return vlist_push(l, v) ? fail(I, "list too long or nested too deeply") : 0;
}

/* A fresh, unfrozen shallow copy. */
static int list_copy(struct interp *I, struct vlist *src, struct vlist **out)
{
	if (new_list(I, src->len, out))
		return -1;
	for (size_t i = 0; i < src->len; i++)
		(*out)->items[i] = ref(src->items[i]);
	(*out)->len = src->len;
	(*out)->depth = src->depth;
	return 0;
}

/* A sequence as a new list (list(range(3)), the iterator algebra). */
static int seq_to_list(struct interp *I, struct value v, struct vlist **out)
{
	if (v.kind == V_LIST)
		return list_copy(I, v.u.list, out);
	uint64_t n = vrange_len(v);
	if (n > VLIST_MAX_LEN)
		return fail(I, "list too long");
	if (new_list(I, (size_t)n, out))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		(*out)->items[i] = value_int(range_at(v, i));
	(*out)->len = (size_t)n;
	return 0;
}

/*
 * Marks a value reachable from a top-level definition.  Frozen lists only
 * hold frozen lists, so the walk stops at the first frozen one.
 */
static void freeze(struct value v)
{
	if (v.kind != V_LIST || v.u.list->frozen)
		return;
	struct vlist *l = v.u.list;
	l->frozen = true;
	for (size_t i = 0; i < l->len; i++)
		freeze(l->items[i]); /* depth is bounded by VLIST_MAX_DEPTH */
}

/* Whether `target` can be reached from v: storing v in target would then
 * make a cycle, which reference counts cannot free. */
static bool reaches(struct value v, const struct vlist *target)
{
	if (v.kind != V_LIST || v.u.list->frozen)
		return false;
	if (v.u.list == target)
		return true;
	if (!v.u.list->depth)
		return false;
	for (size_t i = 0; i < v.u.list->len; i++)
		if (reaches(v.u.list->items[i], target))
			return true;
	return false;
}

/* Stores v (borrowed) at items[i], keeping the depth bound. */
static int list_store(struct interp *I, struct vlist *l, size_t i, struct value v)
{
	if (reaches(v, l))
		return fail(I, "a list cannot contain itself");
	if (v.kind == V_LIST && v.u.list->depth + 1 > l->depth) {
		if (v.u.list->depth + 1 > VLIST_MAX_DEPTH)
			return fail(I, "list nested too deeply");
		l->depth = v.u.list->depth + 1;
	}
	struct value old = l->items[i];
	l->items[i] = ref(v);
	unref(old);
	return 0;
}

static int list_append(struct interp *I, struct vlist *l, struct value v)
{
	if (reaches(v, l))
		return fail(I, "a list cannot contain itself");
	return push(I, l, ref(v));
}

/* ---- truth, equality and order ------------------------------------------ */

static inline bool truthy(struct value v)
{
	switch (v.kind) {
	case V_BOOL:
	case V_INT:
		return v.u.i != 0;
	case V_FLOAT:
		return v.u.f != 0.0; /* nan is true, as in Python */
	case V_STR:
		return v.u.s[0] != 0;
	case V_LIST:
		return v.u.list->len != 0;
	case V_RANGE:
		return vrange_len(v) != 0;
	case V_NONE:
	case V_UNDEF:
		return false;
	}
	return false;
}

/* Exact comparison of an int with a double: -1, 0, 1, or 2 (unordered). */
static int cmp_int_double(int64_t i, double d)
{
	if (isnan(d))
		return 2;
	if (d >= 9223372036854775808.0)
		return -1;
	if (d < -9223372036854775808.0)
		return 1;
	double t = trunc(d);
	int64_t ti = (int64_t)t;
	if (i != ti)
		return i < ti ? -1 : 1;
	return d > t ? -1 : d < t ? 1 : 0;
}

/* Numbers only: -1, 0, 1, or 2 when a nan makes them unordered. */
static int numcmp(struct value a, struct value b)
{
	if (a.kind != V_FLOAT && b.kind != V_FLOAT)
		return (a.u.i > b.u.i) - (a.u.i < b.u.i);
	if (a.kind == V_FLOAT && b.kind == V_FLOAT) {
		if (isnan(a.u.f) || isnan(b.u.f))
			return 2;
		return (a.u.f > b.u.f) - (a.u.f < b.u.f);
	}
	if (b.kind == V_FLOAT)
		return cmp_int_double(a.u.i, b.u.f);
	int r = cmp_int_double(b.u.i, a.u.f);
	return r == 2 ? 2 : -r;
}

static bool veq(struct value a, struct value b)
{
	if (is_num(a) && is_num(b))
		return numcmp(a, b) == 0;
	if (a.kind != b.kind)
		return false;
	switch (a.kind) {
	case V_NONE:
		return true;
	case V_STR:
		return a.u.s == b.u.s || !strcmp(a.u.s, b.u.s);
	case V_LIST:
		if (a.u.list->len != b.u.list->len)
			return false;
		for (size_t i = 0; i < a.u.list->len; i++)
			if (!veq(a.u.list->items[i], b.u.list->items[i]))
				return false;
		return true;
	case V_RANGE: {
		/* Python compares ranges as the sequences they stand for. */
		uint64_t n = vrange_len(a);
		if (n != vrange_len(b))
			return false;
		if (n == 0)
			return true;
		if (a.u.r.start != b.u.r.start)
			return false;
		return n == 1 || a.u.r.step == b.u.r.step;
	}
	default:
		return false;
	}
}

static bool cmp_result(enum ast_op op, int c)
{
	if (c == 2)
		return op == AST_OP_NE;
	switch (op) {
	case AST_OP_LT: return c < 0;
	case AST_OP_LE: return c <= 0;
	case AST_OP_GT: return c > 0;
	case AST_OP_GE: return c >= 0;
	case AST_OP_EQ: return c == 0;
	case AST_OP_NE: return c != 0;
	default: return false;
	}
}

static int contains(struct interp *I, struct value seq, struct value x, bool *res)
{
	switch (seq.kind) {
	case V_LIST:
		*res = false;
		for (size_t i = 0; i < seq.u.list->len && !*res; i++)
			*res = veq(seq.u.list->items[i], x);
		return 0;
	case V_RANGE:
		if (is_intlike(x)) {
			*res = range_has_int(seq, x.u.i);
		} else if (x.kind == V_FLOAT) {
			double t = x.u.f;
			*res = t == trunc(t) && t >= -9223372036854775808.0 &&
			       t < 9223372036854775808.0 && range_has_int(seq, (int64_t)t);
		} else {
			*res = false;
		}
		return 0;
	case V_STR:
		if (x.kind != V_STR)
			return fail(I, "'in <string>' requires a string on the left");
		*res = strstr(seq.u.s, x.u.s) != NULL;
		return 0;
	default:
		return fail(I, "argument of 'in' is not iterable");
	}
}

static int compare(struct interp *I, enum ast_op op, struct value a, struct value b, bool *res)
{
	if (a.kind == V_INT && b.kind == V_INT && op != AST_OP_IN && op != AST_OP_NOT_IN) {
		*res = cmp_result(op, (a.u.i > b.u.i) - (a.u.i < b.u.i));
		return 0;
	}
	switch (op) {
	case AST_OP_IN:
	case AST_OP_NOT_IN:
		if (contains(I, b, a, res))
			return -1;
		if (op == AST_OP_NOT_IN)
			*res = !*res;
		return 0;
	case AST_OP_EQ:
		*res = veq(a, b);
		return 0;
	case AST_OP_NE:
		*res = !veq(a, b);
		return 0;
	default:
		break;
	}
	if (is_num(a) && is_num(b)) {
		*res = cmp_result(op, numcmp(a, b));
		return 0;
	}
	if (a.kind == V_STR && b.kind == V_STR) {
		int c = strcmp(a.u.s, b.u.s);
		*res = cmp_result(op, (c > 0) - (c < 0));
		return 0;
	}
	if (a.kind == V_LIST && b.kind == V_LIST) {
		/* Python: the first unequal pair decides, else the lengths. */
		struct vlist *x = a.u.list, *y = b.u.list;
		for (size_t i = 0; i < x->len && i < y->len; i++)
			if (!veq(x->items[i], y->items[i]))
				return compare(I, op, x->items[i], y->items[i], res);
		*res = cmp_result(op, (x->len > y->len) - (x->len < y->len));
		return 0;
	}
	return fail(I, "ordering not supported between these types");
}

/* ---- arithmetic ------------------------------------------------------------ */

/* int / int, correctly rounded as Python does, even past 2**53. */
static double int_truediv(int64_t a, int64_t b)
{
	const int64_t exact = INT64_C(1) << 53;
	if (a >= -exact && a <= exact && b >= -exact && b <= exact)
		return (double)a / (double)b;
	bool neg = (a < 0) != (b < 0);
	uint64_t ua = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
	uint64_t ub = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
	if (!ua)
		return neg ? -0.0 : 0.0;
	/* A quotient of at least 64 bits, the remainder folded into its
	 * lowest bit: one rounding to double is then exact rounding. */
	int lz = __builtin_clzll(ua);
	u128 x = (u128)(ua << lz) << 64;
	u128 q = x / ub;
	q |= (x % ub) != 0;
	double d = ldexp((double)q, -(64 + lz));
	return neg ? -d : d;
}

static bool odd_integer(double x)
{
	return fmod(fabs(x), 2.0) == 1.0;
}

/* Python's float_pow, with complex results as errors. */
static int float_pow(struct interp *I, double v, double w, double *out)
{
	if (w == 0) {
		*out = 1.0;
		return 0;
	}
	if (isnan(v)) {
		*out = v;
		return 0;
	}
	if (isnan(w)) {
		*out = v == 1.0 ? 1.0 : w;
		return 0;
	}
	if (isinf(w)) {
		double av = fabs(v);
		if (av == 1.0)
			*out = 1.0;
		else if ((w > 0.0) == (av > 1.0))
			*out = fabs(w);
		else
			*out = 0.0;
		return 0;
	}
	if (isinf(v)) {
		bool odd = odd_integer(w);
		if (w > 0.0)
			*out = odd ? v : fabs(v);
		else
			*out = odd ? copysign(0.0, v) : 0.0;
		return 0;
	}
	if (v == 0.0) {
		if (w < 0.0)
			return fail(I, "zero to a negative power");
		*out = odd_integer(w) ? v : 0.0;
		return 0;
	}
	bool negate = false;
	if (v < 0.0) {
		if (w != floor(w))
			return fail(I, "negative number to a fractional power");
		v = -v;
		negate = odd_integer(w);
	}
	if (v == 1.0) {
		*out = negate ? -1.0 : 1.0;
		return 0;
	}
	double r = pow(v, w);
	if (isinf(r))
		return fail(I, "float power overflow");
	*out = negate ? -r : r;
	return 0;
}

/* Python's float floor division and modulo (_float_div_mod). */
static void float_divmod(double vx, double wx, double *floordiv, double *mod)
{
	double m = fmod(vx, wx);
	double div = (vx - m) / wx;
	if (m != 0) {
		if ((wx < 0) != (m < 0)) {
			m += wx;
			div -= 1.0;
		}
	} else {
		m = copysign(0.0, wx);
	}
	if (div != 0) {
		double fl = floor(div);
		if (div - fl > 0.5)
			fl += 1.0;
		*floordiv = fl;
	} else {
		*floordiv = copysign(0.0, vx / wx);
	}
	*mod = m;
}

static int float_binop(struct interp *I, enum ast_op op, double a, double b, struct value *out)
{
	double r, m;
	switch (op) {
	case AST_OP_ADD: r = a + b; break;
	case AST_OP_SUB: r = a - b; break;
	case AST_OP_MUL: r = a * b; break;
	case AST_OP_DIV:
		if (b == 0)
			return fail(I, "float division by zero");
		r = a / b;
		break;
	case AST_OP_FLOORDIV:
	case AST_OP_MOD:
		if (b == 0)
			return fail(I, "float modulo or floor division by zero");
		float_divmod(a, b, &r, &m);
		if (op == AST_OP_MOD)
			r = m;
		break;
	case AST_OP_POW:
		if (float_pow(I, a, b, &r))
			return -1;
		break;
	default:
		return fail(I, "unsupported operand type: float");
	}
	set_float(out, r);
	return 0;
}

static int int_pow(struct interp *I, int64_t base, int64_t e, struct value *out)
{
	if (e < 0) {
		/* Python: an int to a negative power is a float power. */
		double r;
		if (base == 0)
			return fail(I, "zero to a negative power");
		if (float_pow(I, (double)base, (double)e, &r))
			return -1;
		set_float(out, r);
		return 0;
	}
	int64_t r = 1;
	while (e) {
		if ((e & 1) && __builtin_mul_overflow(r, base, &r))
			return fail(I, "integer overflow in '**'");
		e >>= 1;
		/* A further square is needed only while bits remain, and then
		 * it is a factor of the result: its overflow is the result's. */
		if (e && __builtin_mul_overflow(base, base, &base))
			return fail(I, "integer overflow in '**'");
	}
	set_int(out, r);
	return 0;
}

static int int_binop(struct interp *I, enum ast_op op, struct value va, struct value vb,
		     struct value *out)
{
	int64_t a = va.u.i, b = vb.u.i, r;
	bool both_bool = va.kind == V_BOOL && vb.kind == V_BOOL;
	switch (op) {
	case AST_OP_ADD:
		if (__builtin_add_overflow(a, b, &r))
			return fail(I, "integer overflow in '+'");
		break;
	case AST_OP_SUB:
		if (__builtin_sub_overflow(a, b, &r))
			return fail(I, "integer overflow in '-'");
		break;
	case AST_OP_MUL:
		if (__builtin_mul_overflow(a, b, &r))
			return fail(I, "integer overflow in '*'");
		break;
	case AST_OP_DIV:
		if (b == 0)
			return fail(I, "division by zero");
		set_float(out, int_truediv(a, b));
		return 0;
	case AST_OP_FLOORDIV:
		if (b == 0)
			return fail(I, "integer division by zero");
		if (a == INT64_MIN && b == -1)
			return fail(I, "integer overflow in '//'");
		r = a / b;
		if (a % b != 0 && ((a < 0) != (b < 0)))
			r--;
		break;
	case AST_OP_MOD:
		if (b == 0)
			return fail(I, "integer modulo by zero");
		if (b == -1) {
			r = 0; /* INT64_MIN % -1 is undefined in C */
			break;
		}
		r = a % b;
		if (r != 0 && ((r < 0) != (b < 0)))
			r += b;
		break;
	case AST_OP_POW:
		return int_pow(I, a, b, out);
	case AST_OP_BITOR:
		*out = both_bool ? value_bool(a | b) : value_int(a | b);
		return 0;
	case AST_OP_BITAND:
		*out = both_bool ? value_bool(a & b) : value_int(a & b);
		return 0;
	case AST_OP_BITXOR:
		*out = both_bool ? value_bool(a ^ b) : value_int(a ^ b);
		return 0;
	case AST_OP_LSHIFT:
		if (b < 0)
			return fail(I, "negative shift count");
		if (a == 0) {
			r = 0;
			break;
		}
		if (b >= 64)
			return fail(I, "integer overflow in '<<'");
		r = (int64_t)((uint64_t)a << b);
		if ((r >> b) != a)
			return fail(I, "integer overflow in '<<'");
		break;
	case AST_OP_RSHIFT:
		if (b < 0)
			return fail(I, "negative shift count");
		r = b >= 64 ? (a < 0 ? -1 : 0) : a >> b;
		break;
	default:
		return fail(I, "bad integer operator");
	}
	set_int(out, r);
	return 0;
}

/* ---- iterator algebra ------------------------------------------------------ */

struct selem {
	struct value v; /* a scalar: borrowed */
	size_t ord;     /* position in the operand, so ties keep the first */
};

static int selem_cmp(const void *pa, const void *pb)
{
	const struct selem *a = pa, *b = pb;
	int c;
	if (a->v.kind == V_STR)
		c = strcmp(a->v.u.s, b->v.u.s);
	else
		c = numcmp(a->v, b->v);
	if (c)
		return c < 0 ? -1 : 1;
	return (a->ord > b->ord) - (a->ord < b->ord);
}

static int vorder(struct value a, struct value b)
{
	if (a.kind == V_STR)
		return strcmp(a.u.s, b.u.s);
	return numcmp(a, b);
}

/*
 * A sequence as a sorted array without duplicates.  *strs tells whether
 * the elements are strings (-1: no elements yet), so that both operands
 * are checked to be of one comparable family.
 */
static int sorted_set(struct interp *I, struct value v, int *strs, struct selem **out, size_t *n)
{
	uint64_t len = seq_len(v);
	*out = NULL;
	*n = 0;
	if (len > VLIST_MAX_LEN)
		return fail(I, "iterator algebra on a sequence that is too long");
	if (!len)
		return 0;
	struct selem *a = malloc((size_t)len * sizeof(*a));
	if (!a)
		return fail(I, "out of memory");
	for (uint64_t i = 0; i < len; i++) {
		struct value x = seq_at(v, i);
		int s;
		if (x.kind == V_STR)
			s = 1;
		else if (is_num(x) && !(x.kind == V_FLOAT && isnan(x.u.f)))
			s = 0;
		else {
			free(a);
			return fail(I, "iterator algebra needs numbers or strings");
		}
		if (*strs >= 0 && *strs != s) {
			free(a);
			return fail(I, "iterator algebra mixes numbers and strings");
		}
		*strs = s;
		a[i].v = x;
		a[i].ord = (size_t)i;
	}
	/* Ranges are already sorted and distinct; only their direction matters. */
	if (v.kind == V_LIST)
		qsort(a, (size_t)len, sizeof(*a), selem_cmp);
	else if (v.u.r.step < 0)
		for (uint64_t i = 0; i < len / 2; i++) {
			struct selem t = a[i];
			a[i] = a[len - 1 - i];
			a[len - 1 - i] = t;
		}
	size_t m = 0;
	for (size_t i = 0; i < (size_t)len; i++)
		if (!m || vorder(a[m - 1].v, a[i].v) != 0)
			a[m++] = a[i];
	*out = a;
	*n = m;
	return 0;
}

static int algebra(struct interp *I, enum ast_op op, struct value a, struct value b,
		   struct value *out)
{
	/* A range against a list: keep the work proportional to the list. */
	if (op == AST_OP_BITAND && a.kind == V_RANGE && b.kind == V_LIST) {
		struct value t = a;
		a = b;
		b = t;
	}
	struct selem *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	int strs = -1;
	bool filter = b.kind == V_RANGE && (op == AST_OP_BITAND || op == AST_OP_SUB);
	if (sorted_set(I, a, &strs, &x, &nx))
		return -1;
	if (filter && strs == 1 && vrange_len(b)) {
		free(x);
		return fail(I, "iterator algebra mixes numbers and strings");
	}
	if (!filter && sorted_set(I, b, &strs, &y, &ny)) {
		free(x);
		return -1;
	}
	struct vlist *l;
	if (new_list(I, op == AST_OP_BITOR ? nx + ny : nx, &l)) {
		free(x);
		free(y);
		return -1;
	}
	if (filter) {
		for (size_t i = 0; i < nx; i++) {
			bool in;
			contains(I, b, x[i].v, &in);
			if (in == (op == AST_OP_BITAND))
				l->items[l->len++] = x[i].v;
		}
	} else {
		size_t i = 0, j = 0;
		while (i < nx || j < ny) {
			int c = i == nx ? 1 : j == ny ? -1 : vorder(x[i].v, y[j].v);
			bool take;
			struct value v;
			if (c < 0) {
				v = x[i++].v;
				take = op != AST_OP_BITAND;
			} else if (c > 0) {
				v = y[j++].v;
				take = op == AST_OP_BITOR;
			} else {
				/* Equal: the left operand's element, as Python's sets. */
				v = x[i++].v;
				j++;
				take = op != AST_OP_SUB;
			}
			if (take)
				l->items[l->len++] = v;
		}
	}
	free(x);
	free(y);
	*out = value_list(l);
	return 0;
}

/* ---- operators ------------------------------------------------------------- */

static int repeat(struct interp *I, struct vlist *src, int64_t n, struct value *out)
{
	struct vlist *l;
	if (n < 0)
		n = 0;
	if (n && src->len > VLIST_MAX_LEN / (uint64_t)n)
		return fail(I, "list too long");
	size_t total = src->len * (size_t)n;
	if (new_list(I, total, &l))
		return -1;
	for (int64_t k = 0; k < n; k++)
		for (size_t i = 0; i < src->len; i++)
			l->items[l->len++] = ref(src->items[i]);
	l->depth = src->depth;
	*out = value_list(l);
	return 0;
}

static int binop(struct interp *I, enum ast_op op, struct value a, struct value b,
		 struct value *out)
{
	if (a.kind == V_INT && b.kind == V_INT)
		return int_binop(I, op, a, b, out);
	if (is_seq(a) && is_seq(b) &&
	    (op == AST_OP_BITOR || op == AST_OP_BITAND || op == AST_OP_SUB))
		return algebra(I, op, a, b, out);
	if (op == AST_OP_ADD && a.kind == V_LIST && b.kind == V_LIST) {
		struct vlist *x = a.u.list, *y = b.u.list, *l;
		if (x->len + y->len > VLIST_MAX_LEN)
			return fail(I, "list too long");
		if (new_list(I, x->len + y->len, &l))
			return -1;
		for (size_t i = 0; i < x->len; i++)
			l->items[l->len++] = ref(x->items[i]);
		for (size_t i = 0; i < y->len; i++)
			l->items[l->len++] = ref(y->items[i]);
		l->depth = x->depth > y->depth ? x->depth : y->depth;
		*out = value_list(l);
		return 0;
	}
	if (op == AST_OP_MUL && a.kind == V_LIST && is_intlike(b))
		return repeat(I, a.u.list, b.u.i, out);
	if (op == AST_OP_MUL && is_intlike(a) && b.kind == V_LIST)
		return repeat(I, b.u.list, a.u.i, out);
	if (is_intlike(a) && is_intlike(b))
		return int_binop(I, op, a, b, out);
	if (is_num(a) && is_num(b))
		return float_binop(I, op, as_double(a), as_double(b), out);
	return fail(I, "unsupported operand types");
}

static int unop(struct interp *I, enum ast_op op, struct value a, struct value *out)
{
	if (op == AST_OP_NOT) {
		set_bool(out, !truthy(a));
		return 0;
	}
	if (is_intlike(a)) {
		switch (op) {
		case AST_OP_NEG:
			if (a.u.i == INT64_MIN)
				return fail(I, "integer overflow in unary '-'");
			set_int(out, -a.u.i);
			return 0;
		case AST_OP_POS:
			set_int(out, a.u.i);
			return 0;
		case AST_OP_INVERT:
			set_int(out, ~a.u.i);
			return 0;
		default:
			break;
		}
	} else if (a.kind == V_FLOAT) {
		if (op == AST_OP_NEG) {
			set_float(out, -a.u.f);
			return 0;
		}
		if (op == AST_OP_POS) {
			*out = a;
			return 0;
		}
	}
	return fail(I, "bad operand type for unary operator");
}

static int index_value(struct interp *I, struct value obj, struct value idx, struct value *out)
{
	if (!is_intlike(idx))
		return fail(I, "indices must be integers");
	if (!is_seq(obj))
		return fail(I, "object is not subscriptable");
	uint64_t len = seq_len(obj);
	i128 k = idx.u.i;
	if (k < 0)
		k += len;
	if (k < 0 || k >= (i128)len)
		return fail(I, "index out of range");
	*out = ref(seq_at(obj, (uint64_t)k));
	return 0;
}

/* ---- builtins -------------------------------------------------------------- */

enum builtin {
	B_UNKNOWN, B_RANGE, B_MIN, B_MAX, B_ABS, B_INT, B_FLOAT, B_BOOL, B_LEN, B_LIST, B_SUM,
	B_ANY, B_ALL, B_ROUND, B_DIVMOD, B_MATH,
};

static enum builtin builtin_of(const char *name)
{
	static const struct { const char *name; enum builtin b; } tab[] = {
		{ "range", B_RANGE }, { "min", B_MIN }, { "max", B_MAX }, { "abs", B_ABS },
		{ "int", B_INT }, { "float", B_FLOAT }, { "bool", B_BOOL }, { "len", B_LEN },
		{ "list", B_LIST }, { "sum", B_SUM }, { "any", B_ANY }, { "all", B_ALL },
		{ "round", B_ROUND }, { "divmod", B_DIVMOD },
	};
	if (sema_math_of(name) >= 0)
		return B_MATH;
	for (size_t i = 0; i < sizeof(tab) / sizeof(*tab); i++)
		if (tab[i].name[0] == name[0] && !strcmp(tab[i].name, name))
			return tab[i].b;
	return B_UNKNOWN;
}

static bool py_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* int("  -1_000 "): Python's literal rules for base 10. */
static int int_from_str(struct interp *I, const char *s, int64_t *out)
{
	while (py_space(*s))
		s++;
	bool neg = false;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	uint64_t acc = 0;
	bool digit = false;
	for (; *s && !py_space(*s); s++) {
		if (*s == '_' && digit && s[1] >= '0' && s[1] <= '9')
			continue;
		if (*s < '0' || *s > '9')
			return fail(I, "invalid literal for int()");
		if (acc > (UINT64_MAX - 9) / 10)
			return fail(I, "int() result does not fit 64 bits");
		acc = acc * 10 + (uint64_t)(*s - '0');
		digit = true;
	}
	while (py_space(*s))
		s++;
	if (!digit || *s)
		return fail(I, "invalid literal for int()");
	if (acc > (uint64_t)INT64_MAX + neg)
		return fail(I, "int() result does not fit 64 bits");
	*out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return 0;
}

static int float_from_str(struct interp *I, const char *s, double *out)
{
	while (py_space(*s))
		s++;
	size_t n = strlen(s);
	while (n && py_space(s[n - 1]))
		n--;
	char buf[128];
	if (!n || n >= sizeof(buf))
		return fail(I, "could not convert string to float");
	memcpy(buf, s, n);
	buf[n] = 0;
	/* strtod also reads hex floats and nan(...), which Python does not. */
	if (strpbrk(buf, "xX(_"))
		return fail(I, "could not convert string to float");
	char *end;
	double d = strtod(buf, &end);
	if (end == buf || *end)
		return fail(I, "could not convert string to float");
	*out = d;
	return 0;
}

/* min() or max() over values, Python's rule: the first extreme wins. */
static int extreme(struct interp *I, bool is_max, struct value seq, const struct value *args,
		   int nargs, struct value *out)
{
	if (seq.kind == V_RANGE) {
		uint64_t n = vrange_len(seq);
		if (!n)
			return fail(I, "min() or max() of an empty sequence");
		int64_t first = seq.u.r.start, last = range_at(seq, n - 1);
		bool up = seq.u.r.step > 0;
		set_int(out, is_max == up ? last : first);
		return 0;
	}
	size_t n = seq.kind == V_LIST ? seq.u.list->len : (size_t)nargs;
	const struct value *v = seq.kind == V_LIST ? seq.u.list->items : args;
	if (!n)
		return fail(I, "min() or max() of an empty sequence");
	struct value best = v[0];
	for (size_t i = 1; i < n; i++) {
		bool better;
		if (compare(I, is_max ? AST_OP_GT : AST_OP_LT, v[i], best, &better))
			return -1;
		if (better)
			best = v[i];
	}
	*out = ref(best);
	return 0;
}

static int sum_of(struct interp *I, struct value seq, struct value start, struct value *out)
{
	if (!is_seq(seq))
		return fail(I, "sum() of a value that is not iterable");
	uint64_t n = seq_len(seq);
	if (seq.kind == V_RANGE && is_intlike(start)) {
		/* Closed form, so a long range costs nothing. */
		if (!n) {
			set_int(out, start.u.i);
			return 0;
		}
		i128 ends = (i128)seq.u.r.start + range_at(seq, n - 1), total;
		if (__builtin_mul_overflow((i128)n, ends, &total))
			return fail(I, "integer overflow in sum()");
		total = total / 2 + start.u.i;
		if (total < INT64_MIN || total > INT64_MAX)
			return fail(I, "integer overflow in sum()");
		set_int(out, (int64_t)total);
		return 0;
	}
	if (n > VLIST_MAX_LEN)
		return fail(I, "sum() of a sequence that is too long");
	/* Python 3.12's sum(): ints exactly, then floats compensated
	 * (Neumaier), then anything else through '+'. */
	uint64_t i = 0;
	struct value acc;
	if (is_intlike(start)) {
		i128 t = start.u.i;
		for (; i < n && is_intlike(seq_at(seq, i)); i++)
			t += seq_at(seq, i).u.i; /* < 2**27 terms: cannot overflow */
		if (i < n && seq_at(seq, i).kind == V_FLOAT) {
			acc = value_float((double)t + seq_at(seq, i).u.f);
			i++;
		} else {
			if (t < INT64_MIN || t > INT64_MAX)
				return fail(I, "integer overflow in sum()");
			acc = value_int((int64_t)t);
		}
	} else {
		acc = ref(start);
	}
	if (acc.kind == V_FLOAT) {
		double f = acc.u.f, c = 0.0;
		for (; i < n; i++) {
			struct value x = seq_at(seq, i);
			if (x.kind == V_FLOAT) {
				double t = f + x.u.f;
				if (fabs(f) >= fabs(x.u.f))
					c += (f - t) + x.u.f;
				else
					c += (x.u.f - t) + f;
				f = t;
			} else if (is_intlike(x)) {
				f += (double)x.u.i;
			} else {
				break;
			}
		}
		if (c != 0 && isfinite(c))
			f += c;
		acc = value_float(f);
	}
	for (; i < n; i++) {
		struct value r;
		if (binop(I, AST_OP_ADD, acc, seq_at(seq, i), &r)) {
			unref(acc);
			return -1;
		}
		unref(acc);
		acc = r;
	}
	*out = acc;
	return 0;
}

/* any() (want true) or all() (want false) of a list or range. */
static int any_all(struct interp *I, bool want, struct value seq, struct value *out)
{
	if (!is_seq(seq))
		return fail(I, "any() or all() of a value that is not iterable");
	if (seq.kind == V_RANGE) {
		/* Only 0 is false, and a range holds it at most once. */
		uint64_t n = vrange_len(seq);
		bool has_zero = range_has_int(seq, 0);
		set_bool(out, want ? n > (uint64_t)has_zero : !has_zero);
		return 0;
	}
	for (size_t i = 0; i < seq.u.list->len; i++) {
		if (truthy(seq.u.list->items[i]) == want) {
			set_bool(out, want);
			return 0;
		}
	}
	set_bool(out, !want);
	return 0;
}

/* Python's floor division of i128 values by a positive p. */
static i128 floor_div_pos(i128 x, i128 p)
{
	i128 q = x / p;
	return q - (x % p != 0 && x < 0);
}

/*
 * round(x, n) of a float with n given: the exact decimal value rounded at
 * n digits after the point (before it where n < 0), halves to even, read
 * back correctly rounded, as CPython's double_round does with dtoa.
 */
static int round_float_digits(struct interp *I, double x, int64_t n, double *out)
{
	if (!isfinite(x) || n > 323) {
		*out = x;
		return 0;
	}
	if (n < -308) {
		*out = 0.0 * x;
		return 0;
	}
	char buf[760];
	if (n >= 0) {
		/* glibc's printf rounds the exact binary value, ties to even. */
		snprintf(buf, sizeof(buf), "%.*f", (int)n, x);
	} else {
		int k = (int)-n;
		double whole;
		double frac = modf(fabs(x), &whole);
		/* The integer part's exact digits after k + 1 zeros, so that
		 * the quotient by 10**k has at least one digit. */
		char digits[720];
		memset(digits, '0', (size_t)k + 1);
		int len = snprintf(digits + k + 1, sizeof(digits) - (size_t)k - 1, "%.0f", whole);
		int qlen = len + 1;
		const char *rest = digits + qlen; /* the k digits below 10**k */
		int c = rest[0] - '5';
		for (int i = 1; i < k && c == 0; i++)
			c = rest[i] != '0';
		bool up = c > 0 || (c == 0 && (frac != 0 || (digits[qlen - 1] - '0') % 2 == 1));
		digits[qlen] = 0;
		for (int i = qlen - 1; up && i >= 0; i--) {
			if (digits[i] == '9') {
				digits[i] = '0';
			} else {
				digits[i]++;
				up = false;
			}
		}
		snprintf(buf, sizeof(buf), "%s%se%d", signbit(x) ? "-" : "", digits, k);
	}
	double r = strtod(buf, NULL);
	if (isinf(r))
		return fail(I, "rounded value too large to represent");
	*out = r;
	return 0;
}

static int round_value(struct interp *I, const struct value *args, int nargs, struct value *out)
{
	if (nargs < 1 || nargs > 2)
		return fail(I, "round() takes 1 or 2 arguments");
	struct value x = args[0];
	bool digits = nargs == 2 && args[1].kind != V_NONE;
	if (!is_num(x))
		return fail(I, "round() of a value that is not a number");
	if (digits && !is_intlike(args[1]))
		return fail(I, "round()'s digits must be an integer");
	int64_t n = digits ? args[1].u.i : 0;
	if (is_intlike(x)) {
		if (n >= 0) {
			set_int(out, x.u.i);
			return 0;
		}
		if (n < -19) { /* |x| < 10**19 / 2 <= 10**-n / 2 */
			set_int(out, 0);
			return 0;
		}
		i128 p = 1;
		for (int64_t i = 0; i < -n; i++)
			p *= 10;
		i128 q = floor_div_pos(x.u.i, p), r = (i128)x.u.i - q * p;
		if (2 * r > p || (2 * r == p && (q & 1)))
			q++;
		i128 res = q * p;
		if (res < INT64_MIN || res > INT64_MAX)
			return fail(I, "integer overflow in round()");
		set_int(out, (int64_t)res);
		return 0;
	}
	if (digits) {
		double r;
		if (round_float_digits(I, x.u.f, n, &r))
			return -1;
		set_float(out, r);
		return 0;
	}
	if (isnan(x.u.f))
		return fail(I, "cannot convert float NaN to integer");
	double r = nearbyint(x.u.f); /* the default rounding mode: halves to even */
	if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
		return fail(I, "round() result does not fit 64 bits");
	set_int(out, (int64_t)r);
	return 0;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static uint64_t magnitude(int64_t v)
{
	return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* Python's math.pow: IEEE specials first, then errors for a complex
 * result, a pole and overflow (CPython's math_pow). */
static int math_pow(struct interp *I, double x, double y, double *out)
{
	double r;
	if (!isfinite(x) || !isfinite(y)) {
		if (isnan(x))
			r = y == 0 ? 1.0 : x;
		else if (isnan(y))
			r = x == 1.0 ? 1.0 : y;
		else if (isinf(x)) {
			bool odd = isfinite(y) && fmod(fabs(y), 2.0) == 1.0;
			r = y > 0 ? (odd ? x : fabs(x)) : y == 0 ? 1.0 : odd ? copysign(0.0, x) : 0.0;
		} else if (fabs(x) == 1.0) {
			r = 1.0;
		} else if (y > 0 && fabs(x) > 1.0) {
			r = y;
		} else if (y < 0 && fabs(x) < 1.0) {
			r = -y;
		} else {
			r = 0.0;
		}
		*out = r;
		return 0;
	}
	r = pow(x, y);
	if (isnan(r) || (isinf(r) && x == 0))
		return fail(I, "math domain error");
	if (isinf(r))
		return fail(I, "math range error");
	*out = r;
	return 0;
}

/* A math function of one float (log, sqrt, ...): Python's domain rules. */
static int math_unary(struct interp *I, int fn, double x, double *out)
{
	switch (fn) {
	case SEMA_MATH_SQRT:
		if (x < 0)
			return fail(I, "math domain error");
		*out = sqrt(x);
		return 0;
	case SEMA_MATH_LOG:
	case SEMA_MATH_LOG2:
	case SEMA_MATH_LOG10:
		if (!(x > 0) && !isnan(x))
			return fail(I, "math domain error");
		*out = fn == SEMA_MATH_LOG ? log(x) : fn == SEMA_MATH_LOG2 ? log2(x) : log10(x);
		return 0;
	case SEMA_MATH_EXP:
		*out = exp(x);
		if (isinf(*out) && isfinite(x))
			return fail(I, "math range error");
		return 0;
	case SEMA_MATH_FABS:
		*out = fabs(x);
		return 0;
	default:
		return fail(I, "not a float function");
	}
}

static int math_call(struct interp *I, const char *name, const struct value *a, int n,
		     struct value *out)
{
	int fn = sema_math_of(name);
	const struct sema_math_fn *m = &sema_math_functions[fn];
	if (n < m->min_args || n > m->max_args)
		return fail(I, "wrong number of arguments to a math function");
	switch (fn) {
	case SEMA_MATH_GCD:
	case SEMA_MATH_LCM: {
		uint64_t acc = fn == SEMA_MATH_GCD ? 0 : 1;
		for (int i = 0; i < n; i++) {
			if (!is_intlike(a[i]))
				return fail(I, "gcd() and lcm() take integers");
			uint64_t v = magnitude(a[i].u.i);
			if (fn == SEMA_MATH_GCD) {
				acc = gcd_u64(acc, v);
			} else if (acc == 0 || v == 0) {
				acc = 0;
			} else {
				u128 l = (u128)(acc / gcd_u64(acc, v)) * v;
				if (l > (u128)INT64_MAX)
					return fail(I, "integer overflow in lcm()");
				acc = (uint64_t)l;
			}
		}
		if (acc > (uint64_t)INT64_MAX)
			return fail(I, "integer overflow in gcd()");
		set_int(out, (int64_t)acc);
		return 0;
	}
	case SEMA_MATH_PROD: {
		if (!is_seq(a[0]))
			return fail(I, "prod() of a value that is not iterable");
		struct value acc = value_int(1);
		for (uint64_t i = 0; i < seq_len(a[0]); i++) {
			/* 0 times the ints after it stays 0: a long range ends here. */
			if (acc.kind == V_INT && acc.u.i == 0 && a[0].kind == V_RANGE)
				break;
			struct value r;
			if (binop(I, AST_OP_MUL, acc, seq_at(a[0], i), &r)) {
				unref(acc);
				return -1;
			}
			unref(acc);
			acc = r;
		}
		*out = acc;
		return 0;
	}
	default:
		break;
	}
	if (!is_num(a[0]) || (n == 2 && !is_num(a[1])))
		return fail(I, "a math function of a value that is not a number");
	switch (fn) {
	case SEMA_MATH_CEIL:
	case SEMA_MATH_FLOOR:
	case SEMA_MATH_TRUNC: {
		if (is_intlike(a[0])) {
			set_int(out, a[0].u.i);
			return 0;
		}
		double x = a[0].u.f;
		double r = fn == SEMA_MATH_CEIL ? ceil(x) : fn == SEMA_MATH_FLOOR ? floor(x) : trunc(x);
		if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
			return fail(I, "math.ceil/floor/trunc result does not fit 64 bits");
		set_int(out, (int64_t)r);
		return 0;
	}
	case SEMA_MATH_ISQRT: {
		if (!is_intlike(a[0]))
			return fail(I, "isqrt() takes an integer");
		if (a[0].u.i < 0)
			return fail(I, "isqrt() of a negative number");
		i128 v = a[0].u.i, r = (i128)sqrt((double)a[0].u.i);
		while (r * r > v)
			r--;
		while ((r + 1) * (r + 1) <= v)
			r++;
		set_int(out, (int64_t)r);
		return 0;
	}
	case SEMA_MATH_FACTORIAL: {
		if (!is_intlike(a[0]))
			return fail(I, "factorial() takes an integer");
		if (a[0].u.i < 0)
			return fail(I, "factorial() of a negative number");
		if (a[0].u.i > 20)
			return fail(I, "factorial() result does not fit 64 bits");
		int64_t r = 1;
		for (int64_t i = 2; i <= a[0].u.i; i++)
			r *= i;
		set_int(out, r);
		return 0;
	}
	case SEMA_MATH_ISFINITE:
	case SEMA_MATH_ISINF:
	case SEMA_MATH_ISNAN: {
		double x = as_double(a[0]);
		set_bool(out, fn == SEMA_MATH_ISFINITE ? isfinite(x) : fn == SEMA_MATH_ISINF ? isinf(x) : isnan(x));
		return 0;
	}
	case SEMA_MATH_POW: {
		double r;
		if (math_pow(I, as_double(a[0]), as_double(a[1]), &r))
			return -1;
		set_float(out, r);
		return 0;
	}
	case SEMA_MATH_LOG:
		if (n == 2) {
			double num, den;
			if (math_unary(I, fn, as_double(a[0]), &num) || math_unary(I, fn, as_double(a[1]), &den))
				return -1;
			if (den == 0)
				return fail(I, "math.log() to base 1");
			set_float(out, num / den);
			return 0;
		}
		break;
	default:
		break;
	}
	double r;
	if (math_unary(I, fn, as_double(a[0]), &r))
		return -1;
	set_float(out, r);
	return 0;
}

static int call_builtin(struct interp *I, enum builtin b, const struct value *args, int nargs,
			struct value *out)
{
	switch (b) {
	case B_RANGE: {
		if (nargs < 1 || nargs > 3)
			return fail(I, "range() takes 1 to 3 arguments");
		for (int i = 0; i < nargs; i++)
			if (!is_intlike(args[i]))
				return fail(I, "range() arguments must be integers");
		struct value r = { V_RANGE, { .i = 0 } };
		r.u.r.start = nargs == 1 ? 0 : args[0].u.i;
		r.u.r.stop = nargs == 1 ? args[0].u.i : args[1].u.i;
		r.u.r.step = nargs == 3 ? args[2].u.i : 1;
		if (r.u.r.step == 0)
			return fail(I, "range() step must not be zero");
		*out = r;
		return 0;
	}
	case B_MIN:
	case B_MAX:
		if (nargs == 0)
			return fail(I, "min() or max() needs arguments");
		if (nargs == 1) {
			if (!is_seq(args[0]))
				return fail(I, "min() or max() of a value that is not iterable");
			return extreme(I, b == B_MAX, args[0], NULL, 0, out);
		}
		return extreme(I, b == B_MAX, undef(), args, nargs, out);
	case B_ABS:
		if (nargs != 1)
			return fail(I, "abs() takes 1 argument");
		if (is_intlike(args[0])) {
			if (args[0].u.i == INT64_MIN)
				return fail(I, "integer overflow in abs()");
			set_int(out, args[0].u.i < 0 ? -args[0].u.i : args[0].u.i);
			return 0;
		}
		if (args[0].kind == V_FLOAT) {
			set_float(out, fabs(args[0].u.f));
			return 0;
		}
		return fail(I, "bad operand type for abs()");
	case B_INT: {
		if (nargs == 0) {
			set_int(out, 0);
			return 0;
		}
		if (nargs != 1)
			return fail(I, "int() takes 1 argument");
		struct value a = args[0];
		if (is_intlike(a)) {
			set_int(out, a.u.i);
			return 0;
		}
		if (a.kind == V_FLOAT) {
			if (!(a.u.f >= -9223372036854775808.0 && a.u.f < 9223372036854775808.0))
				return fail(I, "int() of a float out of range (inf, nan or too large)");
			set_int(out, (int64_t)trunc(a.u.f));
			return 0;
		}
		if (a.kind == V_STR) {
			int64_t i;
			if (int_from_str(I, a.u.s, &i))
				return -1;
			set_int(out, i);
			return 0;
		}
		return fail(I, "int() argument must be a number or a string");
	}
	case B_FLOAT: {
		if (nargs == 0) {
			set_float(out, 0.0);
			return 0;
		}
		if (nargs != 1)
			return fail(I, "float() takes 1 argument");
		if (is_num(args[0])) {
			set_float(out, as_double(args[0]));
			return 0;
		}
		if (args[0].kind == V_STR) {
			double d;
			if (float_from_str(I, args[0].u.s, &d))
				return -1;
			set_float(out, d);
			return 0;
		}
		return fail(I, "float() argument must be a number or a string");
	}
	case B_BOOL:
		if (nargs > 1)
			return fail(I, "bool() takes at most 1 argument");
		set_bool(out, nargs && truthy(args[0]));
		return 0;
	case B_LEN: {
		if (nargs != 1)
			return fail(I, "len() takes 1 argument");
		uint64_t n;
		if (is_seq(args[0])) {
			n = seq_len(args[0]);
		} else if (args[0].kind == V_STR) {
			/* Code points, as Python counts them, of UTF-8 text. */
			n = 0;
			for (const unsigned char *s = (const unsigned char *)args[0].u.s; *s; s++)
				n += (*s & 0xc0) != 0x80;
		} else {
			return fail(I, "object has no len()");
		}
		if (n > INT64_MAX)
			return fail(I, "len() does not fit 64 bits");
		set_int(out, (int64_t)n);
		return 0;
	}
	case B_LIST: {
		struct vlist *l;
		if (nargs == 0) {
			if (new_list(I, 0, &l))
				return -1;
			*out = value_list(l);
			return 0;
		}
		if (nargs != 1 || !is_seq(args[0]))
			return fail(I, "list() argument must be iterable");
		if (seq_to_list(I, args[0], &l))
			return -1;
		*out = value_list(l);
		return 0;
	}
	case B_SUM:
		if (nargs < 1 || nargs > 2)
			return fail(I, "sum() takes 1 or 2 arguments");
		return sum_of(I, args[0], nargs == 2 ? args[1] : value_int(0), out);
	case B_ANY:
	case B_ALL:
		if (nargs != 1)
			return fail(I, "any() and all() take 1 argument");
		return any_all(I, b == B_ANY, args[0], out);
	case B_ROUND:
		return round_value(I, args, nargs, out);
	case B_DIVMOD: {
		if (nargs != 2)
			return fail(I, "divmod() takes 2 arguments");
		if (!is_num(args[0]) || !is_num(args[1]))
			return fail(I, "divmod() of a value that is not a number");
		struct value q, r;
		struct vlist *l;
		if (binop(I, AST_OP_FLOORDIV, args[0], args[1], &q))
			return -1;
		if (binop(I, AST_OP_MOD, args[0], args[1], &r) || new_list(I, 2, &l))
			return -1;
		push(I, l, q);
		push(I, l, r);
		*out = value_list(l);
		return 0;
	}
	case B_MATH:
	case B_UNKNOWN:
		break;
	}
	return fail(I, "unknown function");
}

/* ---- mutation inside def bodies ------------------------------------------ */

/*
 * Evaluates the list that a statement is about to change.  A frozen list
 * held in a local is replaced by a private copy first.
 */
static int mutable_list(struct interp *I, struct frame *f, const struct ast_expr *e,
			struct vlist **out)
{
	struct value v;
	if (eval(I, f, e, &v))
		return -1;
	if (v.kind != V_LIST) {
		unref(v);
		return fail(I, "only lists can be changed");
	}
	if (v.u.list->frozen) {
		if (e->kind != AST_NAME || e->local < 0 || !f) {
			unref(v);
			return fail(I, "cannot change a top-level value inside a def");
		}
		struct vlist *copy;
		if (list_copy(I, v.u.list, &copy)) {
			unref(v);
			return -1;
		}
		unref(v);
		struct value *slot = &f->slots[e->local];
		unref(*slot);
		*slot = value_list(copy);
		v = ref(*slot);
	}
	*out = v.u.list;
	return 0;
}

static int index_slot(struct interp *I, struct vlist *l, struct value idx, size_t *out)
{
	if (!is_intlike(idx))
		return fail(I, "list indices must be integers");
	i128 k = idx.u.i;
	if (k < 0)
		k += l->len;
	if (k < 0 || k >= (i128)l->len)
		return fail(I, "list assignment index out of range");
	*out = (size_t)k;
	return 0;
}

/* Binds a target to v (borrowed). */
static int assign(struct interp *I, struct frame *f, const struct ast_expr *t, struct value v)
{
	switch (t->kind) {
	case AST_NAME: {
		if (t->local < 0 || !f)
			return fail(I, "cannot assign to a top-level name here");
		struct value *slot = &f->slots[t->local];
		struct value old = *slot;
		*slot = ref(v);
		unref(old);
		return 0;
	}
	case AST_TUPLE:
	case AST_LIST: {
		if (!is_seq(v))
			return fail(I, "cannot unpack a value that is not a sequence");
		if (seq_len(v) != (uint64_t)t->nitems)
			return fail(I, "wrong number of values to unpack");
		/* Hold the source: a target may replace the list it came from. */
		struct value hold = ref(v);
		for (int i = 0; i < t->nitems; i++) {
			struct value x = ref(seq_at(hold, (uint64_t)i));
			int rc = assign(I, f, t->items[i], x);
			unref(x);
			if (rc) {
				unref(hold);
				return -1;
			}
		}
		unref(hold);
		return 0;
	}
	case AST_INDEX: {
		struct vlist *l;
		struct value idx;
		size_t k;
		if (mutable_list(I, f, t->items[0], &l))
			return -1;
		if (eval(I, f, t->items[1], &idx)) {
			value_unref(value_list(l));
			return -1;
		}
		int rc = index_slot(I, l, idx, &k);
		if (!rc)
			rc = list_store(I, l, k, v);
		unref(idx);
		value_unref(value_list(l));
		return rc;
	}
	default:
		return fail(I, "cannot assign to this expression");
	}
}

static int augassign(struct interp *I, struct frame *f, const struct ast_stmt *s)
{
	const struct ast_expr *t = s->targets[0];
	struct value rhs, cur, res;
	if (t->kind == AST_NAME && t->local >= 0 && f) {
		if (f->slots[t->local].kind == V_UNDEF)
			return fail(I, "local variable referenced before assignment");
		if (eval(I, f, s->value, &rhs))
			return -1;
		struct value *slot = &f->slots[t->local];
		if (slot->kind == V_LIST && s->op == AST_OP_ADD && is_seq(rhs)) {
			/* Python's list += extends the list in place. */
			struct vlist *l;
			if (mutable_list(I, f, t, &l)) {
				unref(rhs);
				return -1;
			}
			uint64_t n = seq_len(rhs);
			int rc = 0;
			if (n > VLIST_MAX_LEN - l->len)
				rc = fail(I, "list too long");
			for (uint64_t i = 0; i < n && !rc; i++)
				rc = list_append(I, l, seq_at(rhs, i));
			value_unref(value_list(l));
			unref(rhs);
			return rc;
		}
		int rc = binop(I, s->op, *slot, rhs, &res);
		unref(rhs);
		if (rc)
			return -1;
		unref(*slot);
		*slot = res;
		return 0;
	}
	if (t->kind != AST_INDEX)
		return fail(I, "cannot assign to this expression");
	struct vlist *l;
	struct value idx;
	size_t k;
	if (mutable_list(I, f, t->items[0], &l))
		return -1;
	int rc = eval(I, f, t->items[1], &idx);
	if (!rc) {
		rc = index_slot(I, l, idx, &k);
		unref(idx);
	}
	if (!rc) {
		cur = ref(l->items[k]);
		rc = eval(I, f, s->value, &rhs);
		if (!rc) {
			rc = binop(I, s->op, cur, rhs, &res);
			unref(rhs);
		}
		unref(cur);
		if (!rc) {
			/* No expression removes items, but check, not trust. */
			rc = k < l->len ? list_store(I, l, k, res)
					: fail(I, "list assignment index out of range");
			unref(res);
		}
	}
	value_unref(value_list(l));
	return rc;
}

/* ---- expressions ------------------------------------------------------------ */

static bool step(struct interp *I);

/*
 * Runs clause k of comprehension e and the clauses inside it.  Elements
 * go to `l`; with l NULL (a generator under any() or all()), the run stops
 * at the first element whose truth is `want`, setting *found.
 */
static int comp_run(struct interp *I, struct frame *f, const struct ast_expr *e, int k,
		    struct vlist *l, bool want, bool *found)
{
	if (!f)
		return fail(I, "a comprehension outside a body");
	if (k == e->nitems) {
		struct value v;
		if (eval(I, f, e->items[0], &v))
			return -1;
		if (!l) {
			*found = truthy(v) == want;
			unref(v);
			return 0;
		}
		if (reaches(v, l)) {
			unref(v);
			return fail(I, "a list cannot contain itself");
		}
		return push(I, l, v);
	}
	const struct ast_expr *cl = e->items[k];
	struct value seq;
	if (eval(I, f, cl->items[1], &seq))
		return -1;
	if (!is_seq(seq)) {
		unref(seq);
		return fail(I, "a comprehension over a value that is not iterable");
	}
	int rc = 0;
	/* The length is read each time round, as in a for loop. */
	for (uint64_t i = 0; !rc && !*found && i < seq_len(seq); i++) {
		if (!step(I)) {
			rc = -1;
			break;
		}
		struct value x = ref(seq_at(seq, i));
		rc = assign(I, f, cl->items[0], x);
		unref(x);
		bool keep = true;
		for (int c = 2; !rc && keep && c < cl->nitems; c++) {
			struct value t;
			rc = eval(I, f, cl->items[c], &t);
			if (!rc) {
				keep = truthy(t);
				unref(t);
			}
		}
		if (!rc && keep)
			rc = comp_run(I, f, e, k + 1, l, want, found);
	}
	unref(seq);
	return rc;
}

static int eval_call(struct interp *I, struct frame *f, const struct ast_expr *e, struct value *out)
{
	const struct ast_expr *fn = e->items[0];
	int nargs = e->nitems - 1;
	if (fn->kind == AST_ATTR) {
		if (strcmp(fn->name, "append") || nargs != 1)
			return fail(I, "unknown method");
		struct vlist *l;
		struct value x;
		if (mutable_list(I, f, fn->items[0], &l))
			return -1;
		int rc = eval(I, f, e->items[1], &x);
		if (!rc) {
			rc = list_append(I, l, x);
			unref(x);
		}
		value_unref(value_list(l));
		*out = none();
		return rc;
	}
	if (fn->kind != AST_NAME || fn->ref || fn->local >= 0)
		return fail(I, "only builtin functions can be called");
	enum builtin b = builtin_of(fn->name);
	if (b == B_UNKNOWN)
		return fail(I, "unknown function");
	if ((b == B_ANY || b == B_ALL) && nargs == 1 && e->items[1]->kind == AST_COMP && e->items[1]->ival) {
		/* A generator: stop at the first element that decides. */
		bool found = false;
		if (comp_run(I, f, e->items[1], 1, NULL, b == B_ANY, &found))
			return -1;
		set_bool(out, b == B_ANY ? found : !found);
		return 0;
	}
	struct value small[SMALL_ARGS], *args = small;
	if (nargs > SMALL_ARGS) {
		args = malloc(sizeof(*args) * (size_t)nargs);
		if (!args)
			return fail(I, "out of memory");
	}
	int n = 0, rc = 0;
	for (; n < nargs; n++)
		if ((rc = eval(I, f, e->items[n + 1], &args[n])))
			break;
	if (!rc)
		rc = b == B_MATH ? math_call(I, fn->name, args, nargs, out) : call_builtin(I, b, args, nargs, out);
	for (int i = 0; i < n; i++)
		unref(args[i]);
	if (args != small)
		free(args);
	return rc;
}

static int eval_compare(struct interp *I, struct frame *f, const struct ast_expr *e,
			struct value *out)
{
	struct value left, right;
	if (eval(I, f, e->items[0], &left))
		return -1;
	for (int i = 1; i < e->nitems; i++) {
		bool res;
		if (eval(I, f, e->items[i], &right)) {
			unref(left);
			return -1;
		}
		int rc = compare(I, e->cmp[i - 1], left, right, &res);
		unref(left);
		left = right;
		if (rc || !res) {
			unref(left);
			if (rc)
				return -1;
			set_bool(out, false);
			return 0;
		}
	}
	unref(left);
	set_bool(out, true);
	return 0;
}

static int eval(struct interp *I, struct frame *f, const struct ast_expr *e, struct value *out)
{
	struct value a, b;
	int rc;
	switch (e->kind) {
	case AST_INT:
		set_int(out, e->ival);
		return 0;
	case AST_FLOAT:
		set_float(out, e->fval);
		return 0;
	case AST_STR:
		*out = value_str(e->sval);
		return 0;
	case AST_BOOL:
		set_bool(out, e->ival != 0);
		return 0;
	case AST_NONE:
		*out = none();
		return 0;
	case AST_NAME:
		if (e->local >= 0) {
			if (!f || e->local >= f->nslots)
				return fail(I, "local name outside its def");
			a = f->slots[e->local];
			if (a.kind == V_UNDEF)
				return fail(I, "local variable referenced before assignment");
		} else if (e->ref) {
			a = I->vals[e->ref->id];
			if (a.kind == V_UNDEF)
				return fail(I, "name has no value here");
		} else {
			return fail(I, "a builtin function is not a value");
		}
		*out = ref(a);
		return 0;
	case AST_LIST:
	case AST_TUPLE: {
		struct vlist *l;
		if (new_list(I, (size_t)e->nitems, &l))
			return -1;
		for (int i = 0; i < e->nitems; i++) {
			if (eval(I, f, e->items[i], &a) || push(I, l, a)) {
				value_unref(value_list(l));
				return -1;
			}
		}
		*out = value_list(l);
		return 0;
	}
	case AST_UNARY:
		if (eval(I, f, e->items[0], &a))
			return -1;
		rc = unop(I, e->op, a, out);
		unref(a);
		return rc;
	case AST_BINARY:
		if (eval(I, f, e->items[0], &a))
			return -1;
		if (eval(I, f, e->items[1], &b)) {
			unref(a);
			return -1;
		}
		rc = binop(I, e->op, a, b, out);
		unref(a);
		unref(b);
		return rc;
	case AST_AND:
	case AST_OR:
		/* The deciding operand's value, as Python's and/or. */
		for (int i = 0;; i++) {
			if (eval(I, f, e->items[i], &a))
				return -1;
			if (i == e->nitems - 1 || truthy(a) == (e->kind == AST_OR)) {
				*out = a;
				return 0;
			}
			unref(a);
		}
	case AST_COMPARE:
		return eval_compare(I, f, e, out);
	case AST_COND:
		if (eval(I, f, e->items[0], &a))
			return -1;
		rc = truthy(a);
		unref(a);
		return eval(I, f, e->items[rc ? 1 : 2], out);
	case AST_CALL:
		return eval_call(I, f, e, out);
	case AST_INDEX:
		if (eval(I, f, e->items[0], &a))
			return -1;
		if (eval(I, f, e->items[1], &b)) {
			unref(a);
			return -1;
		}
		rc = index_value(I, a, b, out);
		unref(a);
		unref(b);
		return rc;
	case AST_ATTR:
		return fail(I, "attributes are only methods to call");
	case AST_UNDEF:
		return fail(I, "name is not defined on this path");
	case AST_COMP: {
		struct vlist *l;
		bool found = false;
		if (new_list(I, 0, &l))
			return -1;
		if (comp_run(I, f, e, 1, l, false, &found)) {
			value_unref(value_list(l));
			return -1;
		}
		*out = value_list(l);
		return 0;
	}
	case AST_COMP_FOR:
		break;
	}
	return fail(I, "unknown expression");
}

/* ---- statements ------------------------------------------------------------- */

static enum flow exec_block(struct interp *I, struct frame *f, const struct ast_block *b);

static bool step(struct interp *I)
{
	if (++I->steps <= I->step_limit)
		return true;
	I->err = "step limit reached";
	return false;
}

/* Runs one loop body; NEXT means go on with the loop, BREAK stop it. */
static enum flow loop_body(struct interp *I, struct frame *f, const struct ast_block *body)
{
	enum flow fl = exec_block(I, f, body);
	return fl == FLOW_CONTINUE ? FLOW_NEXT : fl;
}

static enum flow exec_for(struct interp *I, struct frame *f, const struct ast_stmt *s)
{
	struct value seq;
	if (eval(I, f, s->value, &seq))
		return FLOW_ERROR;
	if (!is_seq(seq)) {
		unref(seq);
		fail(I, "'for' over a value that is not iterable");
		return FLOW_ERROR;
	}
	enum flow fl = FLOW_NEXT;
	/* The length is read each time: Python sees items appended while
	 * the loop runs (and so does the step limit). */
	for (uint64_t i = 0; i < seq_len(seq); i++) {
		if (!step(I)) {
			fl = FLOW_ERROR;
			break;
		}
		struct value x = ref(seq_at(seq, i));
		int rc = assign(I, f, s->targets[0], x);
		unref(x);
		if (rc) {
			fl = FLOW_ERROR;
			break;
		}
		fl = loop_body(I, f, &s->body);
		if (fl != FLOW_NEXT)
			break;
	}
	unref(seq);
	if (fl == FLOW_NEXT)
		return exec_block(I, f, &s->orelse);
	return fl == FLOW_BREAK ? FLOW_NEXT : fl;
}

static enum flow exec_while(struct interp *I, struct frame *f, const struct ast_stmt *s)
{
	for (;;) {
		struct value c;
		if (!step(I) || eval(I, f, s->value, &c))
			return FLOW_ERROR;
		bool t = truthy(c);
		unref(c);
		if (!t)
			return exec_block(I, f, &s->orelse);
		enum flow fl = loop_body(I, f, &s->body);
		if (fl == FLOW_BREAK)
			return FLOW_NEXT;
		if (fl != FLOW_NEXT)
			return fl;
	}
}

static enum flow exec_stmt(struct interp *I, struct frame *f, const struct ast_stmt *s)
{
	struct value v;
	if (!step(I))
		return FLOW_ERROR;
	switch (s->kind) {
	case AST_S_ASSIGN:
		if (eval(I, f, s->value, &v))
			return FLOW_ERROR;
		/* a = b = v binds left to right, as Python does. */
		for (int i = 0; i < s->ntargets; i++) {
			if (assign(I, f, s->targets[i], v)) {
				unref(v);
				return FLOW_ERROR;
			}
		}
		unref(v);
		return FLOW_NEXT;
	case AST_S_AUGASSIGN:
		return augassign(I, f, s) ? FLOW_ERROR : FLOW_NEXT;
	case AST_S_EXPR:
		if (eval(I, f, s->value, &v))
			return FLOW_ERROR;
		unref(v);
		return FLOW_NEXT;
	case AST_S_IF: {
		if (eval(I, f, s->value, &v))
			return FLOW_ERROR;
		bool t = truthy(v);
		unref(v);
		return exec_block(I, f, t ? &s->body : &s->orelse);
	}
	case AST_S_WHILE:
		return exec_while(I, f, s);
	case AST_S_FOR:
		return exec_for(I, f, s);
	case AST_S_BREAK:
		return FLOW_BREAK;
	case AST_S_CONTINUE:
		return FLOW_CONTINUE;
	case AST_S_RETURN:
		if (s->value) {
			if (eval(I, f, s->value, &v))
				return FLOW_ERROR;
		} else {
			v = none();
		}
		unref(f->ret);
		f->ret = v;
		return FLOW_RETURN;
	case AST_S_YIELD:
		if (!f->yields) {
			fail(I, "'yield' outside an iterator");
			return FLOW_ERROR;
		}
		if (eval(I, f, s->value, &v))
			return FLOW_ERROR;
		if (push(I, f->yields, v))
			return FLOW_ERROR;
		return FLOW_NEXT;
	case AST_S_PASS:
	case AST_S_IMPORT:
		return FLOW_NEXT;
	case AST_S_DEVICE:
	case AST_S_SETTING:
	case AST_S_CONSTRAINT:
	case AST_S_DEF:
		break;
	}
	fail(I, "statement not allowed in a def");
	return FLOW_ERROR;
}

static enum flow exec_block(struct interp *I, struct frame *f, const struct ast_block *b)
{
	for (int i = 0; i < b->n; i++) {
		enum flow fl = exec_stmt(I, f, b->stmts[i]);
		if (fl != FLOW_NEXT)
			return fl;
	}
	return FLOW_NEXT;
}

/* Runs a def body: its `return` value, or for a closure the list of yields. */
static int run_body(struct interp *I, const struct sema_def *d, struct value *out)
{
	struct value small[SMALL_FRAME];
	struct frame f;
	int n = d->nlocals > d->nparams ? d->nlocals : d->nparams;
	f.slots = small;
	if (n > SMALL_FRAME) {
		f.slots = malloc(sizeof(*f.slots) * (size_t)n);
		if (!f.slots)
			return fail(I, "out of memory");
	}
	f.nslots = n;
	for (int i = 0; i < n; i++) {
		const struct sema_def *p = i < d->nparams ? d->param_defs[i] : NULL;
		f.slots[i] = p ? ref(I->vals[p->id]) : undef();
	}
	f.ret = none();
	f.yields = NULL;
	int rc = 0;
	if (d->form == SEMA_FORM_CLOSURE)
		rc = new_list(I, 0, &f.yields);
	I->steps = 0;
	if (!rc) {
		enum flow fl = exec_block(I, &f, &d->stmt->body);
		if (fl == FLOW_ERROR)
			rc = -1;
		else if (fl == FLOW_BREAK || fl == FLOW_CONTINUE)
			rc = fail(I, "'break' or 'continue' outside a loop");
	}
	if (!rc && f.yields) {
		*out = value_list(f.yields);
		f.yields = NULL;
	} else if (!rc) {
		*out = f.ret;
		f.ret = none();
	}
	unref(f.ret);
	if (f.yields)
		value_unref(value_list(f.yields));
	for (int i = 0; i < n; i++)
		unref(f.slots[i]);
	if (f.slots != small)
		free(f.slots);
	return rc;
}

/*
 * A top-level expression.  A version assigned only inside some `if`
 * branches (sema's `e if c else <undef>`) has no value on the other paths:
 * that is not an error until something reads it, as in Python, so an
 * unused conditional helper never rejects a point.
 */
static int eval_top(struct interp *I, const struct ast_expr *e, struct value *out)
{
	while (e->kind == AST_COND) {
		struct value c;
		if (eval(I, NULL, e->items[0], &c))
			return -1;
		bool t = truthy(c);
		unref(c);
		e = e->items[t ? 1 : 2];
	}
	if (e->kind == AST_UNDEF) {
		*out = undef();
		return 0;
	}
	return eval(I, NULL, e, out);
}

static int eval_def(struct interp *I, const struct sema_def *d, struct value *out)
{
	if (d->form == SEMA_FORM_EXPR)
		return d->expr ? eval_top(I, d->expr, out) : fail(I, "definition without a value");
	return run_body(I, d, out);
}

/* ---- the enumeration -------------------------------------------------------- */

static void set_val(struct interp *I, const struct sema_def *d, struct value v)
{
	freeze(v);
	unref(I->vals[d->id]);
	I->vals[d->id] = v;
}

static const struct interp_binding *binding_of(struct interp *I, const struct sema_def *d)
{
	const struct interp_binding *found = NULL;
	if (d->kind != SEMA_DEVICE && d->kind != SEMA_SETTING)
		return NULL;
	for (int i = 0; i < I->opt->nbindings; i++)
		if (!strcmp(I->opt->bindings[i].name, d->name))
			found = &I->opt->bindings[i]; /* the last --set wins */
	return found;
}

/*
 * Evaluates and checks the definitions of one level, in topological
 * order.  Returns false as soon as one rejects the point.
 */
static bool pass_level(struct interp *I, int level)
{
	const struct level *L = &I->levels[level + 1];
	for (int j = 0; j < L->n; j++) {
		const struct sema_def *d = L->defs[j];
		if (I->skip[d->id])
			continue;
		if (level < 0) {
			const struct interp_binding *b = binding_of(I, d);
			if (b) {
				set_val(I, d, ref(b->value));
				continue;
			}
		}
		struct interp_def_stats *st = &I->stats[d->id];
		struct value v;
		st->evaluated++;
		if (eval_def(I, d, &v)) {
			st->domain_errors++;
			return false;
		}
		if (d->kind == SEMA_CONSTRAINT) {
			bool t = truthy(v);
			unref(v);
			if (t != d->require) {
				st->rejected++;
				return false;
			}
			continue;
		}
		set_val(I, d, v);
	}
	return true;
}

static void leaf(struct interp *I)
{
	const struct sema_program *P = I->prog;
	I->valid++;
	if (!I->cb)
		return;
	for (int i = 0; i < P->niters; i++)
		I->point[i] = I->vals[P->iters[i]->id];
	if (I->cb(I->cbctx, I->point, P->niters))
		I->stopped = true;
}

/* One open loop of the nest. */
struct loop {
	struct value seq; /* a range, a frozen list, or one scalar */
	uint64_t i, n;
};

/* Computes the iterable of the iterator at loop position k. */
static bool open_loop(struct interp *I, int k, struct loop *l)
{
	const struct sema_def *it = I->prog->loop_order[k];
	struct interp_def_stats *st = &I->stats[it->id];
	st->evaluated++;
	if (eval_def(I, it, &l->seq)) {
		st->domain_errors++;
		return false;
	}
	/* Frozen, the list cannot change while the loop runs over it. */
	freeze(l->seq);
	l->i = 0;
	l->n = is_seq(l->seq) ? seq_len(l->seq) : 1;
	if (l->seq.kind == V_RANGE) {
		struct value *slot = &I->vals[it->id];
		unref(*slot);
		set_int(slot, 0);
	}
	return true;
}

static void bind_next(struct interp *I, int k, struct loop *l)
{
	const struct sema_def *it = I->prog->loop_order[k];
	I->candidates++;
	if (l->seq.kind == V_RANGE) {
		/* The hot path of big spaces: the int is written in place. */
		I->vals[it->id].u.i = range_at(l->seq, l->i++);
		return;
	}
	struct value v = l->seq.kind == V_LIST ? l->seq.u.list->items[l->i] : l->seq;
	l->i++;
	set_val(I, it, ref(v));
}

/* The share of the nest done, as if every value of a loop cost the same. */
static void report_progress(struct interp *I, const struct loop *L, int k)
{
	double done = 0, width = 1;
	for (int j = 0; j <= k && L[j].n; j++) {
		width /= (double)L[j].n;
		done += (double)(L[j].i - 1) * width;
	}
	I->opt->progress(I->opt->progress_arg, L[0].n ? done : -1.0, I->candidates, I->valid);
}

/*
 * The loop nest, iteratively: a space may have more iterators than the C
 * stack has room for frames.
 */
static void enumerate(struct interp *I)
{
	int n = I->prog->niters;
	if (n == 0) {
		leaf(I);
		return;
	}
	struct loop *L = xcalloc((size_t)n, sizeof(*L));
	int k = 0;
	if (!open_loop(I, 0, &L[0]))
		k = -1;
	while (k >= 0) {
		struct loop *l = &L[k];
		if (I->stopped || l->i == l->n) {
			unref(l->seq);
			k--;
			continue;
		}
		bind_next(I, k, l);
		if (I->opt->progress && (k == 0 || (I->candidates & 4095) == 0))
			report_progress(I, L, k);
		if (!pass_level(I, k))
			continue;
		if (k + 1 == n)
			leaf(I);
		else if (open_loop(I, k + 1, &L[k + 1]))
			k++;
	}
	free(L);
}

static bool in_list(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static int check_bindings(const struct sema_program *P, const struct interp_options *opt,
			  struct diag *diag)
{
	int bad = 0;
	for (int i = 0; i < opt->nbindings; i++) {
		const char *name = opt->bindings[i].name;
		const struct sema_def *any = NULL;
		bool ok = false;
		for (int j = 0; j < P->ndefs && !ok; j++) {
			const struct sema_def *d = P->defs[j];
			if (strcmp(d->name, name))
				continue;
			any = d;
			ok = d->kind == SEMA_DEVICE || d->kind == SEMA_SETTING;
		}
		if (ok)
			continue;
		bad = -1;
		if (any) {
			diag_plain(diag, DIAG_ERROR, "'%s' is a %s, not a device parameter or setting",
				   name, sema_kind_name(any->kind));
			continue;
		}
		diag_plain(diag, DIAG_ERROR, "unknown device parameter or setting '%s'", name);
		const char *best = NULL;
		int best_d = (int)strlen(name) / 3 + 2;
		for (int j = 0; j < P->nbindable; j++) {
			int dist = diag_edit_distance(name, P->bindable[j]->name);
			if (dist < best_d) {
				best_d = dist;
				best = P->bindable[j]->name;
			}
		}
		if (best)
			diag_plain(diag, DIAG_NOTE, "did you mean '%s'?", best);
	}
	return bad;
}

static const struct interp_options no_options;

static void interp_init(struct interp *I, const struct sema_program *P,
			const struct interp_options *opt)
{
	memset(I, 0, sizeof(*I));
	I->prog = P;
	I->opt = opt ? opt : &no_options;
	I->step_limit = I->opt->step_limit ? I->opt->step_limit : DEFAULT_STEP_LIMIT;
	size_t n = (size_t)P->ndefs + 1;
	I->vals = xcalloc(n, sizeof(*I->vals));
	for (int i = 0; i < P->ndefs; i++)
		I->vals[i] = undef();
	I->stats = xcalloc(n, sizeof(*I->stats));
	I->skip = xcalloc(n, sizeof(*I->skip));
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		if (d->kind != SEMA_CONSTRAINT)
			continue;
		I->skip[d->id] = (I->opt->no_soft && d->cclass == AST_SOFT) ||
				 in_list(d->name, I->opt->disabled, I->opt->ndisabled);
	}
	I->point = xcalloc((size_t)P->niters + 1, sizeof(*I->point));
	/* Bucket the definitions by level, keeping topological order. */
	int nlev = P->niters + 1;
	I->levels = xcalloc((size_t)nlev, sizeof(*I->levels));
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		if (d->kind != SEMA_ITER && d->level >= -1 && d->level < P->niters)
			I->levels[d->level + 1].n++;
	}
	for (int k = 0; k < nlev; k++) {
		I->levels[k].defs = xcalloc((size_t)I->levels[k].n + 1, sizeof(struct sema_def *));
		I->levels[k].n = 0;
	}
	for (int i = 0; i < P->ndefs; i++) {
		struct sema_def *d = P->defs[i];
		if (d->kind != SEMA_ITER && d->level >= -1 && d->level < P->niters) {
			struct level *L = &I->levels[d->level + 1];
			L->defs[L->n++] = d;
		}
	}
}

static void interp_release(struct interp *I)
{
	for (int i = 0; i < I->prog->ndefs; i++)
		unref(I->vals[i]);
	free(I->vals);
	free(I->skip);
	free(I->point);
	for (int k = 0; k <= I->prog->niters; k++)
		free(I->levels[k].defs);
	free(I->levels);
	free(I->stats); /* NULL once handed to the result */
}

int interp_run(const struct sema_program *prog, const struct interp_options *opt,
	       interp_point_fn cb, void *cbctx, struct interp_result *res,
	       struct diag *diag)
{
	memset(res, 0, sizeof(*res));
	if (opt && check_bindings(prog, opt, diag))
		return -1;
	struct interp I;
	interp_init(&I, prog, opt);
	I.cb = cb;
	I.cbctx = cbctx;
	if (pass_level(&I, -1))
		enumerate(&I);
	res->valid = I.valid;
	res->candidates = I.candidates;
	res->stats = I.stats;
	I.stats = NULL;
	interp_release(&I);
	return 0;
}

void interp_result_release(struct interp_result *res)
{
	free(res->stats);
	res->stats = NULL;
}

int interp_constants(const struct sema_program *prog, const struct interp_options *opt,
		     struct value *out, struct diag *diag)
{
	for (int i = 0; i < prog->ndefs; i++)
		out[i] = undef();
	if (opt && check_bindings(prog, opt, diag))
		return -1;
	struct interp I;
	interp_init(&I, prog, opt);
	for (int i = 0; i < prog->ndefs; i++) {
		const struct sema_def *d = prog->defs[i];
		if (d->kind != SEMA_DEVICE && d->kind != SEMA_SETTING &&
		    d->kind != SEMA_CONST && d->kind != SEMA_TABLE)
			continue;
		const struct interp_binding *b = binding_of(&I, d);
		struct value v;
		if (b)
			set_val(&I, d, ref(b->value));
		else if (!eval_def(&I, d, &v))
			set_val(&I, d, v);
	}
	for (int i = 0; i < prog->ndefs; i++) {
		out[i] = I.vals[i];
		I.vals[i] = undef();
	}
	interp_release(&I);
	return 0;
}

/* ---- one point at a time ------------------------------------------------------ */

struct interp_point {
	struct interp I;
};

int interp_point_open(const struct sema_program *prog, const struct interp_options *opt,
		      struct interp_point **out, const char **why, struct diag *diag)
{
	*out = NULL;
	if (opt && check_bindings(prog, opt, diag))
		return -1;
	struct interp_point *p = xcalloc(1, sizeof(*p));
	interp_init(&p->I, prog, opt);
	*out = p;
	if (!pass_level(&p->I, -1)) {
		*why = p->I.err ? p->I.err : "a constraint that depends on no iterator rejects everything";
		return 1;
	}
	return 0;
}

int interp_point_set(struct interp_point *p, const struct value *iters, const char **why)
{
	struct interp *I = &p->I;
	const struct sema_program *P = I->prog;
	for (int i = 0; i < P->niters; i++)
		set_val(I, P->iters[i], ref(iters[i]));
	for (int k = 0; k < P->niters; k++) {
		const struct level *L = &I->levels[k + 1];
		for (int j = 0; j < L->n; j++) {
			const struct sema_def *d = L->defs[j];
			struct value v;
			if (d->kind == SEMA_CONSTRAINT)
				continue;
			if (eval_def(I, d, &v)) {
				*why = I->err ? I->err : "domain error";
				return -1;
			}
			set_val(I, d, v);
		}
	}
	return 0;
}

int interp_point_eval(struct interp_point *p, const struct ast_expr *e, struct value *out,
		      const char **why)
{
	p->I.steps = 0;
	if (eval(&p->I, NULL, e, out)) {
		*why = p->I.err ? p->I.err : "domain error";
		return -1;
	}
	return 0;
}

void interp_point_close(struct interp_point *p)
{
	if (!p)
		return;
	interp_release(&p->I);
	free(p);
}
