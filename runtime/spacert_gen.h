/*
 * spacert_gen.h - the fixed part of every generated enumerator.
 *
 * The helpers spacec's generated C calls that do not depend on the space:
 * Python truthiness and iteration, the constraint-driven loops of -O1
 * and -O2 (sprt_opt_*) and the interval arithmetic of interval pruning
 * (sprt_ivl_*), and the statistics of memoized sub-nests.  They were text that cgen pasted into every file; here
 * they are written once, and a generated file holds only what is its
 * own.  Static inline: they run in the innermost loops, where a call
 * would cost more than the work, and the C compiler folds what it knows
 * of their arguments.  Only generated code is meant to call them: the
 * modes and encodings are cgen's (cgen/cg_opt.c, cgen/cg_interval.c),
 * and a change to them is a change of SPRT_ABI_VERSION.
 *
 * Included by spacert.h; including this header alone works too.
 */
#ifndef SPACERT_GEN_H
#define SPACERT_GEN_H

#include "spacert.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A failed operation is a domain error of the definition being computed. */
#define SPRT_TRY(e) do { int rc_ = (e); if (rc_) return rc_; } while (0)
/* Def bodies count statements, so that no loop runs forever. */
#define SPRT_STEP_LIMIT UINT64_C(100000000)
#define SPRT_STEP(steps, limit) do { if (++(steps) > (limit)) return SPRT_ESTEPS; } while (0)
/* Whether a list is one of the array arr (a definition's own), not another's value. */
#define SPRT_OWNED(arr, p) ((uintptr_t)(const void *)(p) - (uintptr_t)(const void *)(arr) < sizeof(arr))

/*
 * A list display of literals, built once instead of at every evaluation:
 * its items a static const array of SPRT_*_C initializers, its vector a
 * static const struct sprt_vec (SPRT_VEC_C), its value sprt_constvec().
 * Nothing writes through the vector of a value it did not build: a def
 * body copies such a list before changing it (SPRT_OWNED), and cgen builds
 * a display that a body keeps in a variable (and so may append to) in
 * scratch as before.  The const is dropped only because sprt_val's
 * pointer is not const.
 */
#define SPRT_INT_C(x) { SPRT_INT, 0, { .i = (x) }, 0, 0 }
#define SPRT_FLOAT_C(x) { SPRT_FLOAT, 0, { .f = (x) }, 0, 0 }
#define SPRT_BOOL_C(x) { SPRT_BOOL, 0, { .i = (x) }, 0, 0 }
#define SPRT_STR_C(id) { SPRT_STR, 0, { .i = (id) }, 0, 0 }
#define SPRT_NONE_C { SPRT_NONE, 0, { .i = 0 }, 0, 0 }
#define SPRT_VEC_C(items) { (sprt_val *)(items), sizeof(items) / sizeof((items)[0]), 0 }

static inline sprt_val sprt_constvec(const struct sprt_vec *p)
{
	sprt_val v = { SPRT_VEC, 0, { .p = (struct sprt_vec *)p }, 0, 0 };
	return v;
}

/* Inlining hints that only GCC and Clang understand (libtcc ignores both). */
#if defined __GNUC__ && !defined __TINYC__
#define SPRT_ALWAYS_INLINE __attribute__((always_inline))
#define SPRT_COLD __attribute__((noinline, cold))
#else
#define SPRT_ALWAYS_INLINE
#define SPRT_COLD
#endif

/* A private copy of a list a def body changes but did not build (runtime/values.c). */
int sprt_vec_copy(struct sprt_vec *dst, const struct sprt_vec *src);

/* Python truthiness; ints and bools inline, strings need the context. */
static inline bool sprt_is_true(const struct sprt_ctx *ctx, sprt_val v)
{
	if (v.kind == SPRT_BOOL || v.kind == SPRT_INT)
		return v.u.i != 0;
	return sprt_truthy_ctx(ctx, v);
}

/* The length of range(start, stop, step), step != 0, without overflow. */
static inline uint64_t sprt_range_len(int64_t start, int64_t stop, int64_t step)
{
	if (step > 0 && start < stop)
		return ((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1;
	if (step < 0 && start > stop)
		return ((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step) + 1;
	return 0;
}

/* Iterating a value: a range or a list element by element, anything else once. */
static inline uint64_t sprt_loop_len(sprt_val v)
{
	if (v.kind == SPRT_RANGE)
		return sprt_range_len(v.u.i, v.r_stop, v.r_step);
	return v.kind == SPRT_VEC ? (uint64_t)v.u.p->n : 1;
}

/* Always inlined: called by value, the 32-byte value and its result
 * would go through memory (a tenth of gemm_beast's dim_vec loop). */
SPRT_ALWAYS_INLINE static inline sprt_val sprt_loop_at(sprt_val v, uint64_t i)
{
	if (v.kind == SPRT_RANGE)
		return sprt_int((int64_t)((uint64_t)v.u.i + i * (uint64_t)v.r_step));
	return v.kind == SPRT_VEC ? v.u.p->v[i] : v;
}

/*
 * Constraint-driven loops (-O1, -O2): where a loop's values come from.
 * Every mode visits a subsequence of the iterable, in its order, that
 * keeps every value the plain loop could accept.
 */
struct sprt_opt_it {
	int mode;      /* 0 plain, 1 one value c (n: 0 or 1), 2 list scan for c,
	                  3 divisors of c in a positive range, 4 scan for X | c,
	                  5 start + c + i * s, n of them: a range (c 0, s its step), or
	                    congruence stepping (c the first offset, s the modulus),
	                  6 divisors of c in a positive range, from dv */
	int phase;
	uint64_t i, n;
	sprt_val it;
	int64_t c, s, d;
	const struct sprt_opt_divs *dv;
};

/*
 * The divisors of the last c one divisor-iteration site saw, ascending
 * (in the state: one per thread).  Sites see the same c again and again
 * (gemm_beast: the thread count, for every tile shape), and trial
 * division up to sqrt(c) on each visit was most of their time.
 */
#define SPRT_OPT_DIVS_MAX 128
struct sprt_opt_divs {
	int64_t c;     /* 0: nothing yet */
	int64_t root;  /* floor(sqrt(c)) */
	int n;         /* -1: more than SPRT_OPT_DIVS_MAX divisors */
	int64_t d[SPRT_OPT_DIVS_MAX];
};

static inline void sprt_opt_plain(struct sprt_opt_it *o, sprt_val it)
{
	o->mode = 0;
	o->phase = 0;
	o->i = 0;
	o->n = sprt_loop_len(it);
	/* Field by field: the iterable was just stored that way, and a
	 * wider load of it would wait for the stores to drain. */
	o->it.kind = it.kind;
	o->it.pad_ = 0;
	o->it.u.i = it.u.i;
	o->it.r_stop = it.r_stop;
	o->it.r_step = it.r_step;
	o->c = o->s = o->d = 0;
	o->dv = NULL;
	if (it.kind == SPRT_RANGE) { /* start + i * step, as mode 5 from index 0 */
		o->mode = 5;
		o->s = it.r_step;
	}
}

/* Whether v is an element of the range it. */
static inline bool sprt_opt_member(sprt_val it, int64_t v)
{
	int64_t a = it.u.i, b = it.r_stop, s = it.r_step;
	if (s > 0)
		return v >= a && v < b && ((uint64_t)v - (uint64_t)a) % (uint64_t)s == 0;
	return s < 0 && v <= a && v > b && ((uint64_t)a - (uint64_t)v) % (0 - (uint64_t)s) == 0;
}

/*
 * Equality solving: only X with f(X) == c can survive, f by kind: 0 X,
 * 1 X + a, 2 X - a, 3 a - X, 4 a * X.  Non-int operands keep the plain loop.
 */
static inline void sprt_opt_pin(struct sprt_opt_it *o, int kind, sprt_val a, sprt_val c)
{
	int64_t x = 0;
	bool none = false;
	if (a.kind != SPRT_INT || c.kind != SPRT_INT)
		return;
	if (kind == 5) { /* X % a == c, a > 0, over a range of step 1: every a-th value */
		if (o->it.kind != SPRT_RANGE || o->it.r_step != 1 || a.u.i <= 0)
			return;
		int64_t first = 0, sm = o->it.u.i % a.u.i;
		if (c.u.i >= 0 && c.u.i < a.u.i) {
			first = c.u.i - (sm < 0 ? sm + a.u.i : sm);
			first += first < 0 ? a.u.i : 0;
		}
		o->mode = 5;
		o->c = first; /* index of the first value */
		o->s = a.u.i;
		o->n = c.u.i >= 0 && c.u.i < a.u.i && (uint64_t)first < o->n ?
			(o->n - (uint64_t)first - 1) / (uint64_t)a.u.i + 1 : 0;
		return;
	}
	switch (kind) {
	case 0: x = c.u.i; break;
	case 1: none = SPRT_SUB_OVERFLOW(c.u.i, a.u.i, &x); break;
	case 2: none = SPRT_ADD_OVERFLOW(c.u.i, a.u.i, &x); break;
	case 3: none = SPRT_SUB_OVERFLOW(a.u.i, c.u.i, &x); break;
	default:
		if (a.u.i == 0) {
			if (c.u.i == 0)
				return; /* every X */
			none = true;
		} else if (a.u.i == -1) {
			none = c.u.i == INT64_MIN;
			x = none ? 0 : -c.u.i;
		} else {
			none = c.u.i % a.u.i != 0;
			x = c.u.i / a.u.i;
		}
	}
	o->c = x;
	if (none || (o->it.kind == SPRT_RANGE && !sprt_opt_member(o->it, x))) {
		o->mode = 1;
		o->n = 0;
	} else if (o->it.kind == SPRT_RANGE) {
		o->mode = 1;
		o->n = 1;
	} else {
		o->mode = 2;
	}
}

/* Fills dv with c's square root and, if there are few enough, its
 * divisors (runtime/values.c: it runs once a new c, out of line). */
void sprt_opt_divs_fill(struct sprt_opt_divs *dv, int64_t c);

static inline bool sprt_opt_divides(int64_t x, int64_t c)
{
	return x != 0 && (x == -1 || c % x == 0);
}

/*
 * Divisor iteration from X * Y == c: where c > 0 and every Y lies in
 * [ylo, yhi], ylo >= 1, X = c / Y lies in [ceil(c / yhi), c / ylo].
 * A positive range of X is narrowed to that.
 */
static inline void sprt_opt_narrow(struct sprt_opt_it *o, int64_t lo, int64_t hi);

static inline void sprt_opt_partner(struct sprt_opt_it *o, sprt_val c, int64_t ylo, int64_t yhi)
{
	if (c.kind != SPRT_INT || c.u.i <= 0 || ylo < 1 || ylo > yhi)
		return;
	sprt_opt_narrow(o, (c.u.i - 1) / yhi + 1, c.u.i / ylo);
}

/*
 * Range clipping: only X <= e + adj (side 1) or X >= e + adj (side -1)
 * can survive (an int e; anything else keeps the range).
 */
static inline void sprt_opt_clip(struct sprt_opt_it *o, sprt_val e, int side, int adj)
{
	int64_t b;
	if (e.kind != SPRT_INT || SPRT_ADD_OVERFLOW(e.u.i, (int64_t)adj, &b))
		return;
	if (side > 0)
		sprt_opt_narrow(o, INT64_MIN, b);
	else
		sprt_opt_narrow(o, b, INT64_MAX);
}

/* An ascending range of X narrowed to [lo, hi]. */
static inline void sprt_opt_narrow(struct sprt_opt_it *o, int64_t lo, int64_t hi)
{
	if (o->it.kind != SPRT_RANGE || o->it.r_step <= 0 || o->n == 0 || o->mode != 5 || o->c != 0)
		return;
	const uint64_t s = (uint64_t)o->it.r_step;
	uint64_t first = 0; /* index of the first value >= lo */
	if (lo > o->it.u.i) {
		const uint64_t d = (uint64_t)lo - (uint64_t)o->it.u.i;
		first = d / s + (d % s != 0);
	}
	const int64_t a = first < o->n ? (int64_t)((uint64_t)o->it.u.i + first * s) : 0;
	if (first >= o->n || hi < a) {
		o->n = 0;
		o->it.r_stop = o->it.u.i; /* empty for the sources too */
		return;
	}
	const uint64_t span = ((uint64_t)hi - (uint64_t)a) / s; /* values after a, up to hi */
	o->it.u.i = a;
	if (hi < o->it.r_stop - 1)
		o->it.r_stop = hi + 1;
	o->n = span < o->n - first - 1 ? span + 1 : o->n - first;
}

/* Divisor iteration: only X dividing c (c != 0) can survive. */
static inline void sprt_opt_divisors(struct sprt_opt_it *o, sprt_val c, struct sprt_opt_divs *dv)
{
	if (c.kind != SPRT_INT || c.u.i == 0 || c.u.i == INT64_MIN)
		return;
	o->c = c.u.i < 0 ? -c.u.i : c.u.i;
	o->mode = 4;
	if (o->it.kind == SPRT_RANGE && o->it.u.i >= 1 && o->it.r_step > 0) {
		if (dv->c != o->c)
			sprt_opt_divs_fill(dv, o->c);
		/* the listed divisors where there are fewer than values to scan,
		 * else trial division where it is shorter than the scan */
		if (dv->n >= 0 ? (uint64_t)dv->n < o->n : 2 * (uint64_t)dv->root < o->n) {
			o->mode = dv->n >= 0 ? 6 : 3;
			o->dv = dv;
			o->s = dv->root;
			o->d = 0;
			o->phase = 0;
			o->i = 0;
			while (o->mode == 6 && o->i < (uint64_t)dv->n && dv->d[o->i] < o->it.u.i)
				o->i++; /* below the range */
		}
	}
}

SPRT_ALWAYS_INLINE static inline bool sprt_opt_next(struct sprt_opt_it *o, sprt_val *x)
{
	for (;;) {
		switch (o->mode) {
		case 1:
			if (o->i >= o->n)
				return false;
			o->i++;
			*x = sprt_int(o->c);
			return true;
		case 5:
			if (o->i >= o->n)
				return false;
			*x = sprt_int((int64_t)((uint64_t)o->it.u.i + (uint64_t)o->c + o->i++ * (uint64_t)o->s));
			return true;
		case 6:
			while (o->i < (uint64_t)o->dv->n) {
				int64_t d = o->dv->d[o->i++];
				if (d >= o->it.r_stop)
					return false;
				if (sprt_opt_member(o->it, d)) {
					*x = sprt_int(d);
					return true;
				}
			}
			return false;
		case 3:
			if (o->phase == 0) { /* d <= sqrt(c), ascending */
				while (++o->d <= o->s && o->d < o->it.r_stop)
					if (o->c % o->d == 0 && sprt_opt_member(o->it, o->d)) {
						*x = sprt_int(o->d);
						return true;
					}
				o->phase = 1;
				o->d = o->s + 1;
			}
			while (--o->d >= 1) { /* c / d > sqrt(c), ascending */
				if (o->c % o->d)
					continue;
				int64_t q = o->c / o->d;
				if (q >= o->it.r_stop)
					return false;
				if (q != o->d && sprt_opt_member(o->it, q)) {
					*x = sprt_int(q);
					return true;
				}
			}
			return false;
		default:
			if (o->i >= o->n)
				return false;
			*x = sprt_loop_at(o->it, o->i++);
			if (o->mode == 2 && (x->kind == SPRT_INT || x->kind == SPRT_BOOL) && x->u.i != o->c)
				continue;
			if (o->mode == 4 && (x->kind == SPRT_INT || x->kind == SPRT_BOOL) && !sprt_opt_divides(x->u.i, o->c))
				continue;
			return true;
		}
	}
}

/* Directions of f as X grows: -1, 0, 1; 2 is unknown. */
static inline int sprt_opt_sgn(sprt_val v)
{
	return v.kind == SPRT_INT ? (v.u.i > 0) - (v.u.i < 0) : 2;
}

static inline int sprt_opt_inv(sprt_val v)
{
	return v.kind == SPRT_INT ? 0 : 2;
}

static inline int sprt_mono_neg(int a)
{
	return a == 2 ? 2 : -a;
}

static inline int sprt_mono_add(int a, int b)
{
	if (a == 2 || b == 2)
		return 2;
	return a == 0 ? b : b == 0 || a == b ? a : 2;
}

static inline int sprt_mono_mul(int a, int s)
{
	return a == 2 || s == 2 ? 2 : a * s;
}

static inline int sprt_mono_div(int a, int s)
{
	return a == 2 || s == 2 || s == 0 ? 2 : a * s;
}

/* Whether a rejection set that is an up-set (up = 1) or a down-set (-1)
 * of f, with f's direction dir, stays rejected along a range of step `step`. */
static inline bool sprt_opt_breaks(int dir, int up, int64_t step)
{
	return dir != 2 && dir * up * (step > 0 ? 1 : -1) >= 0;
}

/* Everything one enumeration holds: the current value of every definition. */
/*
 * Interval pruning (-O2): bounds [lo, hi] of int expressions over the values
 * the inner loops may take.  Each function returns nonzero where a bound
 * would overflow ("don't know"); truths are 0, 1 or 2 (don't know).
 */
static inline int64_t sprt_ivl_min2(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static inline int64_t sprt_ivl_max2(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* | rather than ||: both bounds are always computed, without a branch (the
 * casts tell clang that | on two bools is meant). */
static inline int sprt_ivl_add(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *l, int64_t *h)
{
	return (int)SPRT_ADD_OVERFLOW(al, bl, l) | (int)SPRT_ADD_OVERFLOW(ah, bh, h);
}

static inline int sprt_ivl_sub(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *l, int64_t *h)
{
	return (int)SPRT_SUB_OVERFLOW(al, bh, l) | (int)SPRT_SUB_OVERFLOW(ah, bl, h);
}

/* The least and greatest of the four corners of an operation (nonzero: one fails). */
static inline int sprt_ivl_corners(int (*op)(int64_t, int64_t, int64_t *), int64_t al, int64_t ah,
			      int64_t bl, int64_t bh, int64_t *l, int64_t *h)
{
	int64_t p[4];
	if (op(al, bl, &p[0]) || op(al, bh, &p[1]) || op(ah, bl, &p[2]) || op(ah, bh, &p[3]))
		return 1;
	*l = sprt_ivl_min2(sprt_ivl_min2(p[0], p[1]), sprt_ivl_min2(p[2], p[3]));
	*h = sprt_ivl_max2(sprt_ivl_max2(p[0], p[1]), sprt_ivl_max2(p[2], p[3]));
	return 0;
}

static inline int sprt_ivl_mul(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *l, int64_t *h)
{
	if (al >= 0 && bl >= 0) /* the common case: sizes */
		return (int)SPRT_MUL_OVERFLOW(al, bl, l) | (int)SPRT_MUL_OVERFLOW(ah, bh, h);
	return sprt_ivl_corners(sprt_i_mul, al, ah, bl, bh, l, h);
}

/* Floor division is monotone in each operand where the divisor keeps its sign,
 * so the corners of each sign's part bound it (a zero divisor fails). */
static inline int sprt_ivl_floordiv(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *l, int64_t *h)
{
	if (al >= 0 && bl > 0) { /* the common case: C's division is the floor, no corner can fail */
		*l = al / bh;
		*h = ah / bl;
		return 0;
	}
	if (bl > 0 || bh < 0)
		return sprt_ivl_corners(sprt_i_floordiv, al, ah, bl, bh, l, h);
	int64_t nl, nh, pl, ph;
	if (bl < 0 && bh > 0) {
		if (sprt_ivl_corners(sprt_i_floordiv, al, ah, bl, -1, &nl, &nh) ||
		    sprt_ivl_corners(sprt_i_floordiv, al, ah, 1, bh, &pl, &ph))
			return 1;
		*l = sprt_ivl_min2(nl, pl);
		*h = sprt_ivl_max2(nh, ph);
		return 0;
	}
	if (bl < 0)
		return sprt_ivl_corners(sprt_i_floordiv, al, ah, bl, -1, l, h);
	if (bh > 0)
		return sprt_ivl_corners(sprt_i_floordiv, al, ah, 1, bh, l, h);
	return 1; /* always by zero */
}

/* Python's a % b has b's sign and |a % b| < |b|; it is a itself where a lies in [0, b). */
static inline int sprt_ivl_mod(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *l, int64_t *h)
{
	if (al == ah && bl == bh) { /* both known: exact (0: a domain error) */
		if (sprt_i_mod(al, bl, l))
			return 1;
		*h = *l;
		return 0;
	}
	if (bl > 0) {
		*l = al >= 0 && ah < bl ? al : 0;
		*h = al >= 0 ? sprt_ivl_min2(ah, bh - 1) : bh - 1;
	} else if (bh < 0) {
		*l = ah <= 0 ? sprt_ivl_max2(al, bl + 1) : bl + 1;
		*h = ah <= 0 && al > bh ? ah : 0;
	} else {
		*l = bl < 0 ? bl + 1 : 0;
		*h = bh > 0 ? bh - 1 : 0;
	}
	return 0;
}

/* The same where both operands are points (al == ah, bl == bh): the int operation. */
#define SPRT_IVL_POINT_(name, op) \
	static inline int name(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *l, int64_t *h) \
	{ \
		(void)ah; \
		(void)bh; \
		const int rc = op(al, bl, l); \
		*h = *l; \
		return rc; \
	}
SPRT_IVL_POINT_(sprt_ivl_add_point, sprt_i_add)
SPRT_IVL_POINT_(sprt_ivl_sub_point, sprt_i_sub)
SPRT_IVL_POINT_(sprt_ivl_mul_point, sprt_i_mul)
SPRT_IVL_POINT_(sprt_ivl_floordiv_point, sprt_i_floordiv)
SPRT_IVL_POINT_(sprt_ivl_mod_point, sprt_i_mod)
#undef SPRT_IVL_POINT_

static inline int sprt_ivl_neg(int64_t al, int64_t ah, int64_t *l, int64_t *h)
{
	return sprt_i_neg(ah, l) | sprt_i_neg(al, h);
}

static inline int sprt_ivl_abs(int64_t al, int64_t ah, int64_t *l, int64_t *h)
{
	if (al >= 0) {
		*l = al;
		*h = ah;
		return 0;
	}
	if (ah <= 0)
		return sprt_ivl_neg(al, ah, l, h);
	*l = 0;
	if (sprt_i_neg(al, h))
		return 1;
	*h = sprt_ivl_max2(*h, ah);
	return 0;
}

static inline void sprt_ivl_hull(int64_t *l, int64_t *h, int64_t bl, int64_t bh)
{
	*l = sprt_ivl_min2(*l, bl);
	*h = sprt_ivl_max2(*h, bh);
}

static inline void sprt_ivl_min(int64_t *l, int64_t *h, int64_t bl, int64_t bh)
{
	*l = sprt_ivl_min2(*l, bl);
	*h = sprt_ivl_min2(*h, bh);
}

static inline void sprt_ivl_max(int64_t *l, int64_t *h, int64_t bl, int64_t bh)
{
	*l = sprt_ivl_max2(*l, bl);
	*h = sprt_ivl_max2(*h, bh);
}

/* The elements of range(a, b, s): between a (included) and b (excluded);
 * nonzero where that cannot be bounded or is empty. */
static inline int sprt_ivl_range(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t sl, int64_t sh,
			    int64_t *l, int64_t *h)
{
	if (sl > 0) {
		*l = al;
		if (SPRT_SUB_OVERFLOW(bh, 1, h))
			return 1;
	} else if (sh < 0) {
		*h = ah;
		if (SPRT_ADD_OVERFLOW(bl, 1, l))
			return 1;
	} else {
		*l = sprt_ivl_min2(al, bl);
		*h = sprt_ivl_max2(ah, bh);
	}
	return *l > *h;
}

/* Whether a op b holds for every a in [al, ah], b in [bl, bh] (1), for none (0),
 * or don't know (2); op: < l(<=) > g(>=) = !. */
static inline int sprt_ivl_cmp(char op, int64_t al, int64_t ah, int64_t bl, int64_t bh)
{
	switch (op) {
	case '<': return ah < bl ? 1 : al >= bh ? 0 : 2;
	case 'l': return ah <= bl ? 1 : al > bh ? 0 : 2;
	case '>': return al > bh ? 1 : ah <= bl ? 0 : 2;
	case 'g': return al >= bh ? 1 : ah < bl ? 0 : 2;
	case '=': return al == ah && bl == bh && al == bl ? 1 : ah < bl || bh < al ? 0 : 2;
	default: return al == ah && bl == bh && al == bl ? 0 : ah < bl || bh < al ? 1 : 2;
	}
}

static inline int sprt_ivl_and(int a, int b)
{
	return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : 2;
}

static inline int sprt_ivl_or(int a, int b)
{
	return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : 2;
}

static inline int sprt_ivl_not(int a)
{
	return a == 2 ? 2 : !a;
}

static inline int sprt_ivl_truth(int64_t l, int64_t h)
{
	return l == 0 && h == 0 ? 0 : l > 0 || h < 0 ? 1 : 2;
}

/* The least and greatest element of an iterable of ints (0: none, or not all ints). */
static inline int64_t sprt_ivl_iterable_bounds(sprt_val it, int64_t *l, int64_t *h)
{
	const uint64_t n = sprt_loop_len(it);
	if (n == 0)
		return 0;
	if (it.kind == SPRT_RANGE) {
		const int64_t first = it.u.i;
		const int64_t last = sprt_loop_at(it, n - 1).u.i;
		*l = sprt_ivl_min2(first, last);
		*h = sprt_ivl_max2(first, last);
		return 1;
	}
	for (uint64_t i = 0; i < n; i++) {
		const sprt_val v = sprt_loop_at(it, i);
		if (v.kind != SPRT_INT)
			return 0;
		*l = i ? sprt_ivl_min2(*l, v.u.i) : v.u.i;
		*h = i ? sprt_ivl_max2(*h, v.u.i) : v.u.i;
	}
	return 1;
}

/* ---- factorized sub-nests: statistics through the memo table ---------------------- */

/*
 * A sub-nest's fac_N() keeps, in its memo entry, what counting it added:
 * stats[0] the candidates, then three deltas (evaluated, rejected, domain
 * errors) for each of its nrows definitions, whose rows of ctx->stats are
 * rows[].  A hit adds them again, so statistics never depend on hits,
 * evictions or threads; with ctx->no_stats only the candidates are kept.
 */
static inline void sprt_memo_replay(struct sprt_ctx *ctx, const struct sprt_memo_entry *e, const int *rows,
				    int nrows)
{
	for (int i = 0; i < nrows && !ctx->no_stats; i++) {
		ctx->stats[rows[i]].evaluated += e->stats[3 * i + 1];
		ctx->stats[rows[i]].rejected += e->stats[3 * i + 2];
		ctx->stats[rows[i]].domain_errors += e->stats[3 * i + 3];
	}
	ctx->candidates += e->stats[0];
}

/* Before counting a miss: the statistics as they are (3 * nrows + 1 of them). */
static inline void sprt_memo_mark(const struct sprt_ctx *ctx, const int *rows, int nrows, uint64_t *before)
{
	for (int i = 0; i < nrows && !ctx->no_stats; i++) {
		before[3 * i + 1] = ctx->stats[rows[i]].evaluated;
		before[3 * i + 2] = ctx->stats[rows[i]].rejected;
		before[3 * i + 3] = ctx->stats[rows[i]].domain_errors;
	}
	before[0] = ctx->candidates;
}

/* After counting it: what it added, into the entry. */
static inline void sprt_memo_record(const struct sprt_ctx *ctx, const int *rows, int nrows, const uint64_t *before,
				    struct sprt_memo_entry *e)
{
	for (int i = 0; i < nrows && !ctx->no_stats; i++) {
		e->stats[3 * i + 1] = ctx->stats[rows[i]].evaluated - before[3 * i + 1];
		e->stats[3 * i + 2] = ctx->stats[rows[i]].rejected - before[3 * i + 2];
		e->stats[3 * i + 3] = ctx->stats[rows[i]].domain_errors - before[3 * i + 3];
	}
	e->stats[0] = ctx->candidates - before[0];
}

#ifdef __cplusplus
}
#endif

#endif /* SPACERT_GEN_H */
