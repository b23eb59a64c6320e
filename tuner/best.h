/*
 * best.h - `spacetune best`: the best configuration recorded in a results
 * database, as a summary, a C header of #defines and a JSON record.
 * Owner: tuner/best.c.
 *
 * Records are grouped by space, then by device (name, platform, driver)
 * and source hash, since times are only comparable within one group.
 * With several spaces in the file, --space must pick one; with several
 * groups for one space, --device narrows them and the group of the most
 * recently written record is used (a note says how many were left out).
 * The best is the "ok" record with the lowest median time; the summary
 * sets it against the median and the worst "ok" time and counts records
 * by status.  Output files are written to a temporary name and renamed,
 * so they are either complete or absent.
 */
#ifndef SPACEC_TUNER_BEST_H
#define SPACEC_TUNER_BEST_H

#include <stdbool.h>
#include <stdio.h>

#include "tuner/db.h"

struct json_object;

struct tune_best_opts {
	const char *db_path;
	/* The records considered.  No space: the only space in the file; no
	 * problem: the latest record's. */
	struct tune_select select;
	/* The objective (see tune_objective_parse); when not given, the one
	 * the group's latest record was run with. */
	bool objective_given;
	const char *objective_metric;
	bool maximize;
	const char *header_path;  /* NULL: none */
	const char *json_path;    /* NULL: none */
	/* When set, receives a reference to the best line (json_object_put it). */
	struct json_object **best_line;
	FILE *out, *err;
};

/* --objective [min:|max:]time|METRIC: 0, or -1 for an empty name. */
int tune_objective_parse(const char *spec, const char **metric, bool *maximize);

/* 0; 1 on an error or when no configuration ran correctly (reported on err). */
int tune_best(const struct tune_best_opts *o);

/*
 * Shared with tuner/host.c.  tune_write_whole writes a file through a
 * temporary name and a rename (0, or -1 reported on err).
 * tune_comment_text writes a string into a C comment with whatever could
 * end it escaped.  tune_defines_to_c appends "#define NAME VALUE" for each
 * -DNAME[=VALUE] of a build-options string and returns the other options
 * (caller frees); NULL with *bad (caller frees) naming an option that
 * cannot be a #define.
 */
int tune_write_whole(const char *path, const char *text, FILE *err);
void tune_comment_text(FILE *f, const char *s);
char *tune_defines_to_c(FILE *f, const char *options, char **bad);

#endif
