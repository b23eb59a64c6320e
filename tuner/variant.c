/*
 * variant.c - the element types of tuner/variant.h.
 */
#include "tuner/variant.h"

/* ORDER tune_type */
static const struct { const char *name; size_t size; } types[] = {
	{"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"int", 4}, {"uint", 4},
	{"long", 8}, {"ulong", 8}, {"half", 2}, {"float", 4}, {"double", 8},
};

const char *tune_type_name(enum tune_type t)
{
	return (unsigned)t < sizeof types / sizeof types[0] ? types[t].name : "?";
}

size_t tune_type_size(enum tune_type t)
{
	return (unsigned)t < sizeof types / sizeof types[0] ? types[t].size : 0;
}
