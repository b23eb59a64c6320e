/*
 * export.h - `spacetune export`: the tuned-parameter database for
 * applications, from results databases.  Owner: tuner/export.c.
 *
 * For every space, device and problem, the best verified ("ok") record
 * by its recorded objective (the median time unless the records say
 * otherwise), among the records of the newest source hash of that
 * group.  Written as JSON (a list of entries) and as a C header with one
 * lookup function per space, SPACE_params(device_name, settings...),
 * whose nearness rule is documented in docs/TUNING.md and in the header.
 */
#ifndef SPACEC_TUNER_EXPORT_H
#define SPACEC_TUNER_EXPORT_H

#include <stdio.h>

struct tune_export_opts {
	const char *const *inputs;  /* databases, or directories of *.jsonl */
	int ninputs;
	const char *c_path;         /* NULL: none */
	const char *json_path;      /* NULL: none */
	FILE *out, *err;
};

/* 0; 1 on an error or when nothing verified was found (reported on err). */
int tune_export(const struct tune_export_opts *o);

#endif
