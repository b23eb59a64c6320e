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

/* mkstemp() of "<a><b>XXXXXX": the descriptor and, in *path, the name
 * (malloc'd); or -1 with errno set.  (output.c) */
int sprt_mkstemp_(const char *a, const char *b, char **path);

/* Seconds on a monotonic clock. */
double sprt_now_(void);

/*
 * Parses a --set value (see sprt_bindings_set_text).  For a string,
 * *text_start / *text_len give the text inside `text` and *out is an
 * SPRT_STR with id 0.
 */
void sprt_parse_value_(const char *text, sprt_val *out, const char **text_start, size_t *text_len);

/*
 * Per-thread buffers of a sink (sinks.c, used by par.c).  A child encodes
 * the points a worker emits into memory in its parent's format; what it
 * holds is taken as a block and appended to the parent's output whole, so
 * points from different threads never interleave inside a line or record.
 */
struct sprt_sink_block;
/* A child of `parent` writing for worker context `ctx`; *fn is its point
 * callback (user: the child).  0 or SPRT_ENOMEM. */
int sprt_sink_child_(struct sprt_sink *parent, struct sprt_ctx *ctx, struct sprt_sink **child,
		     sprt_point_fn *fn);
/* Bytes the child holds now. */
size_t sprt_sink_buffered_(struct sprt_sink *child);
/* Takes what the child holds (*block NULL if nothing); nonzero on failure. */
int sprt_sink_detach_(struct sprt_sink *child, struct sprt_sink_block **block);
size_t sprt_sink_block_size_(const struct sprt_sink_block *b);
/* Appends a block (may be NULL) to the parent's output under the parent's
 * lock and frees it.  Nonzero once the output has failed. */
int sprt_sink_put_(struct sprt_sink *parent, struct sprt_sink_block *b);
void sprt_sink_block_free_(struct sprt_sink_block *b);
void sprt_sink_child_free_(struct sprt_sink *child);
/* fn(user, the ints of point as sprt_vals, n); nonzero where fn is, or
 * out of memory. */
int sprt_ints_call_(sprt_point_fn fn, void *user, const int64_t *point, int n);
/* The child's callback for points of ints (ctx->emit_ints), or NULL. */
sprt_ints_fn sprt_sink_ints_fn_(const struct sprt_sink *child);

/*
 * Random access (access.c) walks the nest through the task hooks: a
 * sprt_par (par.c) whose hooks call these instead of its own.
 */
struct sprt_access_walk_;
struct sprt_par *sprt_par_access_(struct sprt_access_walk_ *w); /* free() it; NULL: no memory */
int sprt_access_enter_(struct sprt_ctx *ctx, struct sprt_access_walk_ *w, int level);
void sprt_access_leave_(struct sprt_ctx *ctx, struct sprt_access_walk_ *w, int level);
uint64_t sprt_access_skip_(struct sprt_access_walk_ *w, uint64_t n);
const sprt_val *sprt_access_match_(const struct sprt_access_walk_ *w);
void sprt_access_pass_(struct sprt_access_walk_ *w, uint64_t n);
struct sprt_memo **sprt_access_memos_(struct sprt_access_walk_ *w, const struct sprt_ctx *ctx, int n);

#endif
