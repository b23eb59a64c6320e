/*
 * internal.h - helpers shared by the files of libspacert; not installed.
 */
#ifndef SPACERT_INTERNAL_H
#define SPACERT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spacert.h"

/*
 * Python's repr of a float into buf (at least SPRT_FLOAT_BUF bytes): the
 * shortest digits that read back, "1e+16" style from 1e16 and below 1e-4,
 * "2.0" for integral values, "inf", "-inf", "nan".
 */
#define SPRT_FLOAT_BUF 32
void sprt_float_repr_(char *buf, double d);

/* A string as Python's repr ('text') or as a JSON string ("text"). */
void sprt_print_str_(FILE *out, const char *s, bool json);

/* The number of elements of a range (always fits: at most 2**64 - 1). */
uint64_t sprt_range_len_(int64_t start, int64_t stop, int64_t step);

/* Seconds on a monotonic clock. */
double sprt_now_(void);

/*
 * Parses a --set value (see sprt_bindings_set_text).  For a string,
 * *text_start / *text_len give the text inside `text` and *out is an
 * SPRT_STR with id 0.
 */
void sprt_parse_value_(const char *text, sprt_val *out, const char **text_start, size_t *text_len);

#endif
