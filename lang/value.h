/*
 * value.h - run-time values of the reference interpreter.
 *
 * Scalars are held inline.  Lists are reference-counted heap objects
 * (closure iterators append to them); ranges are lazy.  Strings are
 * interned in the module (pointer equality is string equality).
 */
#ifndef SPACEC_VALUE_H
#define SPACEC_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum value_kind {
	V_UNDEF, V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_LIST, V_RANGE,
};

struct vlist;

struct value {
	enum value_kind kind;
	union {
		int64_t i;        /* V_BOOL (0/1), V_INT */
		double f;         /* V_FLOAT */
		const char *s;    /* V_STR, interned */
		struct vlist *list;
		struct {
			int64_t start, stop, step;
		} r;              /* V_RANGE */
	} u;
};

struct vlist {
	size_t refs;
	size_t len, cap;
	struct value *items;
	/*
	 * Set once a list becomes the value of a top-level definition: a def
	 * body that mutates it works on a copy, so no point can leak state
	 * into the next one.
	 */
	bool frozen;
	/* 0 for a list of scalars, else 1 + the deepest list inside. */
	unsigned depth;
};

/*
 * Longest list and deepest nesting the interpreter builds; more is a
 * domain error.  The depth bound keeps every recursive walk (equality,
 * printing) off the end of the C stack.
 */
#define VLIST_MAX_LEN (1u << 22) /* as the runtime's SPRT_MAX_VEC */
#define VLIST_MAX_DEPTH 64u

static inline struct value value_int(int64_t i)
{
	struct value v = { V_INT, { .i = i } };
	return v;
}

static inline struct value value_float(double f)
{
	struct value v = { V_FLOAT, { .f = f } };
	return v;
}

static inline struct value value_bool(bool b)
{
	struct value v = { V_BOOL, { .i = b } };
	return v;
}

static inline struct value value_str(const char *s)
{
	struct value v = { V_STR, { .s = s } };
	return v;
}

/* Reference counting for V_LIST; no-ops for other kinds. */
struct value value_ref(struct value v);
void value_unref(struct value v);

/*
 * A new empty list with one reference and room for `cap` items, or NULL
 * when `cap` exceeds VLIST_MAX_LEN or memory runs out (the interpreter
 * turns that into a domain error rather than aborting).
 */
struct vlist *vlist_new(size_t cap);
/*
 * Appends `v`, taking over its reference; -1 (v released) when the list
 * would grow past VLIST_MAX_LEN or VLIST_MAX_DEPTH, or memory runs out.
 */
int vlist_push(struct vlist *l, struct value v);

static inline struct value value_list(struct vlist *l)
{
	struct value v = { V_LIST, { .list = l } };
	return v;
}

/*
 * Writes a value as Python's repr would (ints plainly, floats in the
 * shortest form that reads back, True/False, 'str'), or as JSON when
 * `json` is set (true/false, "str", null).
 */
void value_print(FILE *out, struct value v, bool json);
/* The number of values of a V_RANGE. */
uint64_t value_range_len(struct value v);

/*
 * Python's repr of a float into buf (at least VALUE_FLOAT_BUF bytes):
 * the shortest digits that read back, "1e+16" style beyond 16 digits or
 * below 1e-4, "2.0" for integral values, "inf", "-inf", "nan".
 */
#define VALUE_FLOAT_BUF 32
void value_float_repr(char *buf, double d);

#endif
