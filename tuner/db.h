/*
 * db.h - the results database: JSONL, append-only, one line per
 * evaluation.  Owner: tuner/db.c.
 *
 * Each line is written with one write(2) of the whole line and fsync'd,
 * so after a crash the file holds whole lines plus at most one torn last
 * line, which tune_db_open detects, reports and ignores (truncating it
 * away before appending).  Each line holds the device, platform and
 * driver, the source hash (kernel sources + options), the parameters,
 * the times, metrics, status and a timestamp.
 */
#ifndef SPACEC_TUNER_DB_H
#define SPACEC_TUNER_DB_H

#include "tuner/eval.h"

struct tune_db;

/* Opens (creating) the file; loads the keys already recorded.  0 or -1 with *err. */
int tune_db_open(struct tune_db **out, const char *path, char **err);
void tune_db_close(struct tune_db *db);

/* True if this configuration was already evaluated on this device with this source hash. */
bool tune_db_has(const struct tune_db *db, const struct tune_device_info *dev,
                 const char *source_hash, const struct tune_variant *v);

/* Appends one evaluation (atomic line + fsync).  0 or -1 with errno. */
int tune_db_append(struct tune_db *db, const struct tune_device_info *dev,
                   const struct tune_variant *v, const struct tune_result *r);

#endif
