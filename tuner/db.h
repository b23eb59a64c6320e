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

/*
 * Additions (tunecli).
 */

/*
 * The run's problem (its --set bindings as "A=1 B=2", sorted by name; ""
 * without any) and objective ("min:time", "max:GBS"), written in each
 * line's "problem" (null when "") and "objective" fields (copied).  The
 * problem is part of the resume key: each is a tuning problem of its own.
 */
int tune_db_set_run(struct tune_db *db, const char *problem, const char *objective);

/* The space's name written in each line's "space" field (copied). */
int tune_db_set_space(struct tune_db *db, const char *space_name);

/*
 * Like tune_db_has, and gives the recorded median time in milliseconds,
 * or INFINITY for an evaluation that did not end as TUNE_OK, so a
 * resumed search can feed known results back to its strategy; and the
 * recorded status (an enum tune_status, -1 for a name it does not know).
 * Either pointer may be NULL.  The latest line for a configuration wins.
 */
bool tune_db_lookup(const struct tune_db *db, const struct tune_device_info *dev,
                    const char *source_hash, const struct tune_variant *v, double *time_ms,
                    int *status);

/* Whole lines read at open (after dropping a torn last line). */
long tune_db_nrecords(const struct tune_db *db);

/*
 * Reads a results file without opening it for writing (spacetune best):
 * calls fn for every well-formed line, in file order, with the parsed
 * object (owned by the scanner) and its line number.  Malformed lines
 * are reported on `diag` (may be NULL) and skipped; a torn last line is
 * reported the same way.  fn returns 0 to go on, non-zero to stop.
 * Returns 0, or -1 with *err (malloc'd) when the file cannot be read.
 */
struct json_object;
typedef int (*tune_db_line_fn)(void *user, struct json_object *line, long lineno);
int tune_db_scan(const char *path, FILE *diag, tune_db_line_fn fn, void *user, char **err);

/* The same over an open stream (a decompressor's pipe, say), named
 * `name` in messages.  0, or -1 on a read or allocation error. */
int tune_db_scan_stream(FILE *f, const char *name, FILE *diag, tune_db_line_fn fn, void *user);

/*
 * The parameters' part of a resume key ("NAME=VALUE\x1f..." with each value
 * in canonical JSON), of a variant or of a line's "params" object: equal
 * for the same configuration whatever its spelling, so a line read back
 * finds the point it was recorded for (spacetune run --replay).  Caller
 * frees; NULL when memory runs out or the line has no "params" object.
 */
char *tune_db_variant_params_key(const struct tune_variant *v);
char *tune_db_line_params_key(struct json_object *line);

/* A line's field: a string (NULL when absent or not a string); a number
 * (`dflt` when absent, null or not a number). */
const char *tune_db_str(struct json_object *line, const char *field);
double tune_db_num(struct json_object *parent, const char *field, double dflt);

/* The records a command reads (best, export --kt-cache/--t4); a NULL
 * field selects any. */
struct tune_select {
	const char *space;    /* exactly this space */
	const char *device;   /* a case-insensitive substring of the device's name */
	const char *problem;  /* exactly this problem ("A=1 B=2", "" for none) */
};

/* Whether the selection takes a record of this space, device and problem. */
bool tune_select_match(const struct tune_select *s, const char *space, const char *device,
                       const char *problem);

/*
 * The batch's workers share their work through files: the records of the
 * other workers' databases (read, never written) count as recorded for
 * tune_db_has and tune_db_lookup, so an evaluation any worker finished is
 * not timed again by this one.  A view of them outlives one run: a
 * worker keeps it from one unit of work to the next, and each read takes
 * only the complete lines appended to a file since the last (a batch's
 * databases grow all the time; read whole at every hand-out they cost
 * each worker O(hand-outs x records)).  Among the other files the first
 * line read for an evaluation wins; the database's own records win over
 * them all.
 */
struct tune_db_also;
/* An empty view, or NULL out of memory. */
struct tune_db_also *tune_db_also_new(void);
void tune_db_also_free(struct tune_db_also *a);
/* What path has gained since the last read of it (all of it the first
 * time; again from its start when it shrank).  A missing file is none.
 * 0, or -1 with *err. */
int tune_db_also_read(struct tune_db_also *a, const char *path, char **err);
/* db's lookups see the view's records too, as read now and later; the
 * view must outlive db. */
void tune_db_use_also(struct tune_db *db, const struct tune_db_also *also);

/* The resume key of a record read back (malloc'd): equal for two records
 * of one evaluation (device, platform, driver, source hash, problem,
 * parameters).  NULL for a line that is not a result or out of memory. */
char *tune_db_line_key(struct json_object *line);

/* A JSON number in the shortest text that reads back exactly; null (NULL)
 * for NaN and infinities, which JSON cannot express. */
struct json_object *tune_db_json_number(double x);

/*
 * The array a reader collects records into (best, export, export
 * --kt-cache/--t4, merge): n elements of `size` bytes at v, doubled when
 * full.  Set `size`, zero the rest.  `oom` says an element could not be
 * added, or the reader's own allocation for one failed: its scan
 * callback then stops the scan, and the command fails "out of memory".
 */
struct tune_db_list {
	void *v;
	size_t n, cap, size;
	bool oom;
};

/* Element n, zeroed and counted in n, or NULL with oom set (the array
 * unchanged). */
void *tune_db_list_add(struct tune_db_list *l);

/* A scan callback's own allocation for an element failed: sets oom and
 * returns 1, for the callback to return (the scan stops). */
int tune_db_list_oom(struct tune_db_list *l);

/* `release` (NULL: none) on each element, then the array freed; l is
 * empty again (size kept). */
void tune_db_list_free(struct tune_db_list *l, void (*release)(void *element));

#endif
