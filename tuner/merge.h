/*
 * merge.h - `spacetune merge`: results databases into one.  Owner:
 * tuner/merge.c.
 *
 * Records of one evaluation in several files (a rerun on another node,
 * a database merged twice) are duplicates: the same space, device,
 * platform, driver, source hash (which covers the settings), problem and
 * parameters.  Of a duplicate the record with the better status is kept
 * (ok, wrong_result, launch_error, build_error, timeout, crashed,
 * skipped, then any other), then the earlier "time", then the smaller
 * line text; the output is sorted by time, then key, then text.  So a
 * merge is idempotent and does not depend on the order of its inputs.
 * Torn last lines and malformed lines are reported and skipped (as by
 * tune_db_scan); the output is written to a temporary file and renamed,
 * so it may also be one of the inputs.
 */
#ifndef SPACEC_TUNER_MERGE_H
#define SPACEC_TUNER_MERGE_H

#include <stdio.h>

/* 0; 1 on an error (reported on err).  A summary goes to out. */
int tune_merge(const char *const *inputs, int ninputs, const char *output, FILE *out, FILE *err);

#endif
