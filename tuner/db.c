/*
 * db.c - the results database (see db.h).
 *
 * The file is JSONL.  json-c builds and parses the lines, so strings are
 * escaped correctly and numbers keep their text.  Resume keys are strings
 * "device\x1fplatform\x1fdriver\x1fhash\x1fname=value\x1f..." with each
 * value in json-c's canonical serialisation, built the same way from a
 * variant's parameter text and from a line read back, so the two compare
 * equal whatever the spelling in the .space file.
 */
#define _GNU_SOURCE /* strcasestr */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tuner/buf.h"
#include "tuner/db.h"

/* Build logs can be megabytes; the database keeps their head. */
enum { DB_LOG_MAX = 16384 };

struct tune_db {
	char *path;
	int fd;
	char *space;
	char *problem;           /* the run's --set bindings, "" without any */
	char *objective;         /* "min:time", "max:GFLOPS", ... */
	struct lh_table *keys;   /* key -> struct db_known */
	const struct tune_db_also *also;  /* the other workers' records, or NULL */
	long nrecords;
};

struct db_known {
	double time_ms;          /* INFINITY unless the evaluation ended "ok" */
	int status;              /* enum tune_status, or -1 for a name this build does not know */
};

/* ---- keys, built in a tune_buf ---------------------------------------------- */

static void key_add(struct tune_buf *k, const char *text)
{
	tune_buf_add(k, text, strlen(text));
}

static void key_sep(struct tune_buf *k)
{
	key_add(k, "\x1f");
}

static const char *canonical(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/*
 * A parameter's text as the job prints it ("16", "0.5", "\"ab\"") as a
 * JSON value: the text itself when it is a JSON scalar, else a string.
 * Caller puts the result.
 */
static struct json_object *param_json(const char *text)
{
	struct json_object *o = json_tokener_parse(text);
	if (o && (json_object_is_type(o, json_type_object) || json_object_is_type(o, json_type_array))) {
		json_object_put(o);
		o = NULL;
	}
	if (!o && strcmp(text, "null") != 0)
		o = json_object_new_string(text);
	return o;
}

static void key_head(struct tune_buf *k, const char *device, const char *platform,
                     const char *driver, const char *hash, const char *problem)
{
	/* Each problem (a run's --set bindings) is a tuning problem of its own. */
	key_add(k, problem ? problem : "");
	key_sep(k);
	key_add(k, device);
	key_sep(k);
	key_add(k, platform);
	key_sep(k);
	key_add(k, driver);
	key_sep(k);
	key_add(k, hash);
	key_sep(k);
}

/* name=value\x1f... of a variant's parameters, appended to k. */
static void key_params_of_variant(struct tune_buf *k, const struct tune_variant *v)
{
	for (int p = 0; p < v->nparams; p++) {
		struct json_object *o = param_json(v->param_values[p]);
		key_add(k, v->param_names[p]);
		key_add(k, "=");
		key_add(k, o ? canonical(o) : "null");
		key_sep(k);
		json_object_put(o);
	}
}

/* The key built so far, or NULL (freed) when memory ran out. */
static char *key_done(struct tune_buf *k)
{
	if (k->failed) {
		free(k->p);
		return NULL;
	}
	return k->p ? k->p : strdup("");
}

/* Caller frees; NULL on allocation failure. */
static char *key_of_variant(const struct tune_device_info *dev, const char *hash, const char *problem,
                            const struct tune_variant *v)
{
	struct tune_buf k = { 0 };
	key_head(&k, dev->name, dev->platform, dev->driver, hash ? hash : "", problem);
	key_params_of_variant(&k, v);
	return key_done(&k);
}

char *tune_db_variant_params_key(const struct tune_variant *v)
{
	struct tune_buf k = { 0 };
	key_params_of_variant(&k, v);
	return key_done(&k);
}

const char *tune_db_str(struct json_object *line, const char *field)
{
	struct json_object *o;
	if (!json_object_object_get_ex(line, field, &o) || !json_object_is_type(o, json_type_string))
		return NULL;
	return json_object_get_string(o);
}

bool tune_select_match(const struct tune_select *s, const char *space, const char *device,
                       const char *problem)
{
	return (!s->space || strcmp(s->space, space) == 0) && (!s->device || strcasestr(device, s->device)) &&
	       (!s->problem || strcmp(s->problem, problem) == 0);
}

/* name=value\x1f... of a line's "params", appended to k; false without them. */
static bool key_params_of_line(struct tune_buf *k, struct json_object *line)
{
	struct json_object *params;
	if (!json_object_object_get_ex(line, "params", &params) ||
	    !json_object_is_type(params, json_type_object))
		return false;
	json_object_object_foreach(params, name, value) {
		key_add(k, name);
		key_add(k, "=");
		key_add(k, value ? canonical(value) : "null");
		key_sep(k);
	}
	return true;
}

/* NULL if the line lacks what a key needs (it is then not a result line). */
char *tune_db_line_key(struct json_object *line)
{
	const char *device = tune_db_str(line, "device"), *platform = tune_db_str(line, "platform");
	const char *driver = tune_db_str(line, "driver"), *hash = tune_db_str(line, "source_hash");
	if (!device || !platform || !driver || !hash)
		return NULL;
	struct tune_buf k = { 0 };
	key_head(&k, device, platform, driver, hash, tune_db_str(line, "problem"));
	if (!key_params_of_line(&k, line)) {
		free(k.p);
		return NULL;
	}
	return key_done(&k);
}

char *tune_db_line_params_key(struct json_object *line)
{
	struct tune_buf k = { 0 };
	if (!key_params_of_line(&k, line)) {
		free(k.p);
		return NULL;
	}
	return key_done(&k);
}

double tune_db_num(struct json_object *parent, const char *field, double dflt)
{
	struct json_object *o;
	if (!json_object_object_get_ex(parent, field, &o) || !o ||
	    !(json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int)))
		return dflt;
	return json_object_get_double(o);
}

/* ---- reading ---------------------------------------------------------------- */

static char *dup_printf_error(const char *path, const char *what)
{
	const char *msg = strerror(errno);
	size_t n = strlen(path) + strlen(what) + strlen(msg) + 8;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s: %s: %s", path, what, msg);
	return s;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

/* The line (without its newline) as one JSON object, or NULL. */
static struct json_object *parse_line(struct json_tokener *tok, const char *s, size_t n)
{
	json_tokener_reset(tok);
	if (n > (size_t)INT32_MAX)
		return NULL;
	struct json_object *o = json_tokener_parse_ex(tok, s, (int)n);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    !blank(s + json_tokener_get_parse_end(tok), n - json_tokener_get_parse_end(tok)) ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * Calls fn on every well-formed line of f.  A malformed line is reported
 * with its number and skipped, but kept in the file: it is complete (a
 * user's note, a line from another tool), so nothing says it is garbage.
 * Only an unterminated last line is the torn tail of a crash: reported,
 * and *good_end stops before it so the writer can cut it off.  -1 on a
 * read or allocation error.
 */
static int scan_stream(FILE *f, const char *path, FILE *diag, tune_db_line_fn fn, void *user,
                       off_t *good_end)
{
	struct json_tokener *tok = json_tokener_new();
	if (!tok)
		return -1;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	off_t offset = 0, end = 0;
	long lineno = 0, torn_line = 0;
	int rc = 0;
	errno = 0;
	while ((len = getline(&buf, &cap, f)) > 0) {
		lineno++;
		bool terminated = buf[len - 1] == '\n';
		size_t body = (size_t)len - terminated;
		offset += len;
		if (!terminated) { /* getline stops only at the end of the file */
			torn_line = lineno;
			break;
		}
		end = offset;
		if (blank(buf, body))
			continue;
		struct json_object *o = parse_line(tok, buf, body);
		if (!o) {
			if (diag)
				fprintf(diag, "%s:%ld: warning: skipping a malformed line (kept in the file)\n", path,
				        lineno);
			continue;
		}
		int stop = fn(user, o, lineno);
		json_object_put(o);
		if (stop)
			break;
	}
	if (ferror(f))
		rc = -1;
	else if (torn_line && diag)
		fprintf(diag, "%s:%ld: warning: ignoring a torn last line (%lld bytes), left by an "
		        "interrupted write\n", path, torn_line, (long long)(offset - end));
	free(buf);
	json_tokener_free(tok);
	if (good_end)
		*good_end = end;
	return rc;
}

int tune_db_scan_stream(FILE *f, const char *name, FILE *diag, tune_db_line_fn fn, void *user)
{
	return scan_stream(f, name, diag, fn, user, NULL);
}

int tune_db_scan(const char *path, FILE *diag, tune_db_line_fn fn, void *user, char **err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = dup_printf_error(path, "cannot read");
		return -1;
	}
	int rc = scan_stream(f, path, diag, fn, user, NULL);
	if (rc)
		*err = dup_printf_error(path, "cannot read");
	fclose(f);
	return rc;
}

/* ---- the writer's view -------------------------------------------------------- */

static void free_entry(struct lh_entry *e)
{
	free(lh_entry_k(e));
	free(lh_entry_v(e));
}

/* Records one key; a later line for the same key wins. */
static int remember(struct tune_db *db, char *key, double time_ms, int status)
{
	struct lh_entry *e = lh_table_lookup_entry(db->keys, key);
	if (e) {
		struct db_known *known = (struct db_known *)lh_entry_v(e);
		known->time_ms = time_ms;
		known->status = status;
		free(key);
		return 0;
	}
	struct db_known *known = malloc(sizeof *known);
	if (!known) {
		free(key);
		return -1;
	}
	known->time_ms = time_ms;
	known->status = status;
	if (lh_table_insert(db->keys, key, known) != 0) {
		free(key);
		free(known);
		return -1;
	}
	return 0;
}

static double time_of_line(struct json_object *line)
{
	const char *status = tune_db_str(line, "status");
	struct json_object *t, *median;
	if (!status || strcmp(status, "ok") != 0 || !json_object_object_get_ex(line, "time_ms", &t) ||
	    !json_object_object_get_ex(t, "median", &median))
		return INFINITY;
	double ms = json_object_get_double(median);
	return isfinite(ms) ? ms : INFINITY;
}

static int status_of_line(struct json_object *line)
{
	const char *name = tune_db_str(line, "status");
	for (int s = TUNE_OK; name && s <= TUNE_SKIPPED; s++)
		if (strcmp(name, tune_status_name((enum tune_status)s)) == 0)
			return s;
	return -1;
}

static int load_line(void *user, struct json_object *line, long lineno)
{
	struct tune_db *db = user;
	char *key = tune_db_line_key(line);
	(void)lineno;
	if (!key)
		return 0;  /* not a result line: kept, but nothing to resume */
	db->nrecords++;
	return remember(db, key, time_of_line(line), status_of_line(line)) ? -1 : 0;
}

int tune_db_open(struct tune_db **out, const char *path, char **err)
{
	*out = NULL;
	*err = NULL;
	struct tune_db *db = calloc(1, sizeof *db);
	if (!db || !(db->path = strdup(path)) || !(db->keys = lh_kchar_table_new(1024, free_entry))) {
		if (db) {
			free(db->path);
			free(db);
		}
		errno = ENOMEM;
		*err = dup_printf_error(path, "cannot open");
		return -1;
	}
	db->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (db->fd < 0) {
		*err = dup_printf_error(path, "cannot open");
		goto fail;
	}
	/* Two runs appending to one file would evaluate the same points twice. */
	if (flock(db->fd, LOCK_EX | LOCK_NB) != 0) {
		*err = dup_printf_error(path, errno == EWOULDBLOCK ?
		                        "in use by another spacetune run" : "cannot lock");
		goto fail;
	}
	int rfd = dup(db->fd);
	FILE *f = rfd >= 0 ? fdopen(rfd, "r") : NULL;
	if (!f) {
		if (rfd >= 0)
			close(rfd);
		*err = dup_printf_error(path, "cannot read");
		goto fail;
	}
	off_t good_end = 0;
	int rc = scan_stream(f, path, stderr, load_line, db, &good_end);
	fclose(f);
	if (rc) {
		*err = dup_printf_error(path, "cannot read");
		goto fail;
	}
	struct stat st;
	if (fstat(db->fd, &st) != 0) {
		*err = dup_printf_error(path, "cannot read");
		goto fail;
	}
	if (st.st_size > good_end && (ftruncate(db->fd, good_end) != 0 || fsync(db->fd) != 0)) {
		*err = dup_printf_error(path, "cannot truncate the torn last line");
		goto fail;
	}
	*out = db;
	return 0;
fail:
	tune_db_close(db);
	return -1;
}

/* ---- the other workers' databases ------------------------------------------------ */

/* One file of the view: read up to offset, the end of its last complete line. */
struct also_file {
	char *path;
	dev_t dev;
	ino_t ino;               /* of the file read so far */
	off_t offset;
	/* Its bytes before offset (the last lines read, up to 4 KiB): still
	 * there, it is the same file grown, not another by that name. */
	char tail[4096];
	size_t tail_len;
};

/* Whether the file open as fd still has the bytes read last before af->offset. */
static bool same_file(int fd, const struct also_file *af)
{
	char tail[sizeof af->tail];
	off_t at = af->offset - (off_t)af->tail_len;
	return pread(fd, tail, af->tail_len, at) == (ssize_t)af->tail_len &&
	       memcmp(tail, af->tail, af->tail_len) == 0;
}

struct tune_db_also {
	struct lh_table *keys;   /* key -> struct db_known: the first line read for it */
	struct also_file *files;
	size_t nfiles;
};

struct tune_db_also *tune_db_also_new(void)
{
	struct tune_db_also *a = calloc(1, sizeof *a);
	if (a && !(a->keys = lh_kchar_table_new(1024, free_entry))) {
		free(a);
		a = NULL;
	}
	return a;
}

void tune_db_also_free(struct tune_db_also *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nfiles; i++)
		free(a->files[i].path);
	free(a->files);
	lh_table_free(a->keys);
	free(a);
}

/* Another file's key counts as recorded unless read already (from any of them). */
static int load_also(void *user, struct json_object *line, long lineno)
{
	struct tune_db_also *a = user;
	char *key = tune_db_line_key(line);
	(void)lineno;
	if (!key)
		return 0;
	if (lh_table_lookup_entry(a->keys, key)) {
		free(key);
		return 0;
	}
	struct db_known *known = malloc(sizeof *known);
	if (!known || lh_table_insert(a->keys, key, known) != 0) {
		free(known);
		free(key);
		return -1;
	}
	known->time_ms = time_of_line(line);
	known->status = status_of_line(line);
	return 0;
}

int tune_db_also_read(struct tune_db_also *a, const char *path, char **err)
{
	*err = NULL;
	struct also_file *af = NULL;
	for (size_t i = 0; i < a->nfiles && !af; i++)
		if (strcmp(a->files[i].path, path) == 0)
			af = &a->files[i];
	if (!af) {
		struct also_file *more = realloc(a->files, (a->nfiles + 1) * sizeof *more);
		char *copy = more ? strdup(path) : NULL;
		if (more)
			a->files = more;
		if (!copy) {
			errno = ENOMEM;
			*err = dup_printf_error(path, "cannot read");
			return -1;
		}
		af = &a->files[a->nfiles++];
		*af = (struct also_file){ .path = copy };
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		*err = dup_printf_error(path, "cannot read");
		return -1;
	}
	if (st.st_size == af->offset && st.st_dev == af->dev && st.st_ino == af->ino)
		return 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		*err = dup_printf_error(path, "cannot read");
		return -1;
	}
	/* Shorter than what was read (its torn last line cut off by
	 * tune_db_open after a crash), or another file by that name: read from
	 * its start; the lines known already keep their values. */
	if (st.st_size < af->offset || st.st_dev != af->dev || st.st_ino != af->ino ||
	    !same_file(fileno(f), af))
		af->offset = 0;
	af->dev = st.st_dev;
	af->ino = st.st_ino;
	off_t good_end = 0;
	/* Its writer may be appending right now: a torn last line is its line
	 * in progress, not news for this run's stderr, and is read next time. */
	int rc = fseeko(f, af->offset, SEEK_SET) != 0 ? -1 : scan_stream(f, path, NULL, load_also, a, &good_end);
	if (rc) {
		fclose(f);
		*err = dup_printf_error(path, "cannot read");
		return -1;
	}
	af->offset += good_end;
	size_t want = af->offset < (off_t)sizeof af->tail ? (size_t)af->offset : sizeof af->tail;
	ssize_t got = pread(fileno(f), af->tail, want, af->offset - (off_t)want);
	af->tail_len = got == (ssize_t)want ? want : 0;
	fclose(f);
	return 0;
}

void tune_db_use_also(struct tune_db *db, const struct tune_db_also *also)
{
	db->also = also;
}

void tune_db_close(struct tune_db *db)
{
	if (!db)
		return;
	if (db->fd >= 0)
		close(db->fd);  /* releases the lock */
	if (db->keys)
		lh_table_free(db->keys);
	free(db->space);
	free(db->problem);
	free(db->objective);
	free(db->path);
	free(db);
}

int tune_db_set_run(struct tune_db *db, const char *problem, const char *objective)
{
	char *p = strdup(problem ? problem : ""), *o = strdup(objective ? objective : "min:time");
	if (!p || !o) {
		free(p);
		free(o);
		return -1;
	}
	free(db->problem);
	free(db->objective);
	db->problem = p;
	db->objective = o;
	return 0;
}

int tune_db_set_space(struct tune_db *db, const char *space_name)
{
	char *s = strdup(space_name ? space_name : "");
	if (!s)
		return -1;
	free(db->space);
	db->space = s;
	return 0;
}

long tune_db_nrecords(const struct tune_db *db)
{
	return db->nrecords;
}

bool tune_db_lookup(const struct tune_db *db, const struct tune_device_info *dev,
                    const char *source_hash, const struct tune_variant *v, double *time_ms,
                    int *status)
{
	char *key = key_of_variant(dev, source_hash, db->problem, v);
	void *known = NULL;
	/* this file's own record wins over another worker's */
	bool found = key && (lh_table_lookup_ex(db->keys, key, &known) ||
	                     (db->also && lh_table_lookup_ex(db->also->keys, key, &known)));
	free(key);
	if (found && time_ms)
		*time_ms = ((struct db_known *)known)->time_ms;
	if (found && status)
		*status = ((struct db_known *)known)->status;
	return found;
}

bool tune_db_has(const struct tune_db *db, const struct tune_device_info *dev,
                 const char *source_hash, const struct tune_variant *v)
{
	return tune_db_lookup(db, dev, source_hash, v, NULL, NULL);
}

/* ---- appending ------------------------------------------------------------------ */

/*
 * JSON has no NaN or infinity: those become null.  Finite numbers are
 * written in the shortest text that reads back to the same double (json-c
 * alone would print 17 digits: 1.23 as 1.2299999999999999).
 */
struct json_object *tune_db_json_number(double x)
{
	if (!isfinite(x))
		return NULL;
	char text[32];
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(text, sizeof text, "%.*g", digits, x);
		if (strtod(text, NULL) == x)
			break;
	}
	return json_object_new_double_s(x, text);
}

static struct json_object *sizes(int n, const size_t *v)
{
	struct json_object *a = json_object_new_array();
	for (int i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

static struct json_object *string_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *truncated_log(const char *log)
{
	if (!log)
		return NULL;
	size_t n = strlen(log);
	if (n <= DB_LOG_MAX)
		return json_object_new_string(log);
	/* Cut at a UTF-8 boundary so the line stays valid JSON text. */
	size_t cut = DB_LOG_MAX;
	while (cut > 0 && ((unsigned char)log[cut] & 0xC0) == 0x80)
		cut--;
	return json_object_new_string_len(log, (int)cut);
}

/* Throughput in G-units per second from an amount per run and a time. */
static double metric_rate(const struct tune_metric *m, double time_ms)
{
	return m->per_run / (time_ms * 1e6);
}

static struct json_object *line_of(const struct tune_db *db, const struct tune_device_info *dev,
                                   const struct tune_variant *v, const struct tune_result *r)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	bool timed = r->status == TUNE_OK || r->status == TUNE_WRONG_RESULT;
	/* A run stopped at the run limit: how long it had run, a lower bound. */
	bool partial = r->status == TUNE_TIMEOUT && r->time_median_ms > 0;

	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "time", json_object_new_string(stamp));
	json_object_object_add(o, "space", string_or_null(db->space));
	json_object_object_add(o, "kernel", string_or_null(v->kernel_name));
	json_object_object_add(o, "device", json_object_new_string(dev->name));
	json_object_object_add(o, "platform", json_object_new_string(dev->platform));
	json_object_object_add(o, "driver", json_object_new_string(dev->driver));
	json_object_object_add(o, "source_hash", json_object_new_string(v->source_hash ? v->source_hash : ""));
	json_object_object_add(o, "problem", db->problem && *db->problem ? json_object_new_string(db->problem) : NULL);
	json_object_object_add(o, "objective", json_object_new_string(db->objective ? db->objective : "min:time"));
	struct json_object *params = json_object_new_object();
	for (int p = 0; params && p < v->nparams; p++)
		json_object_object_add(params, v->param_names[p], param_json(v->param_values[p]));
	json_object_object_add(o, "params", params);
	json_object_object_add(o, "point", json_object_new_uint64(v->point_index));
	json_object_object_add(o, "defines", string_or_null(v->build_options));
	json_object_object_add(o, "global", sizes(v->work_dim, v->global));
	json_object_object_add(o, "local", v->local[0] ? sizes(v->work_dim, v->local) : NULL);
	/* kernels with sizes of their own (several kernel lines): each
	 * one's, in order; "global"/"local" above are the first's */
	if (v->nsteps) {
		struct json_object *ks = json_object_new_array();
		for (int k = 0; ks && k < v->nsteps; k++) {
			const struct tune_step *st = &v->steps[k];
			struct json_object *e = json_object_new_object();
			json_object_object_add(e, "global", sizes(st->work_dim, st->global));
			json_object_object_add(e, "local", st->local[0] ? sizes(st->work_dim, st->local) : NULL);
			json_object_array_add(ks, e);
		}
		json_object_object_add(o, "kernel_sizes", ks);
	}
	json_object_object_add(o, "status", json_object_new_string(tune_status_name(r->status)));
	struct json_object *times = NULL;
	if (timed || partial) {
		times = json_object_new_object();
		json_object_object_add(times, "median", tune_db_json_number(r->time_median_ms));
		json_object_object_add(times, "min", tune_db_json_number(r->time_min_ms));
	}
	json_object_object_add(o, "time_ms", times);
	json_object_object_add(o, "runs", json_object_new_int(r->runs));
	struct json_object *metrics = json_object_new_object();
	for (int m = 0; metrics && m < v->nmetrics; m++)
		json_object_object_add(metrics, v->metrics[m].name,
		                       r->status == TUNE_OK && r->time_median_ms > 0
		                       ? tune_db_json_number(metric_rate(&v->metrics[m], r->time_median_ms)) : NULL);
	json_object_object_add(o, "metrics", metrics);
	json_object_object_add(o, "max_abs_err", timed ? tune_db_json_number(r->max_abs_err) : NULL);
	json_object_object_add(o, "max_rel_err", timed ? tune_db_json_number(r->max_rel_err) : NULL);
	json_object_object_add(o, "nonfinite", json_object_new_uint64(r->nonfinite));
	json_object_object_add(o, "error", string_or_null(r->error));
	/* A program from the cache was not built: no time, and it says so. */
	json_object_object_add(o, "build_s", r->build_cached ? NULL : tune_db_json_number(r->build_s));
	json_object_object_add(o, "build_cached", json_object_new_boolean(r->build_cached));
	if (r->device_s > 0)
		json_object_object_add(o, "device_s", tune_db_json_number(r->device_s));
	if (r->log && r->status == TUNE_BUILD_ERROR)
		json_object_object_add(o, "log", truncated_log(r->log));
	return o;
}

int tune_db_append(struct tune_db *db, const struct tune_device_info *dev,
                   const struct tune_variant *v, const struct tune_result *r)
{
	struct json_object *o = line_of(db, dev, v, r);
	if (!o) {
		errno = ENOMEM;
		return -1;
	}
	const char *text = canonical(o);
	size_t n = text ? strlen(text) : 0;
	char *line = text ? malloc(n + 1) : NULL;
	char *key = key_of_variant(dev, v->source_hash, db->problem, v);
	if (!line || !key) {
		json_object_put(o);
		free(line);
		free(key);
		errno = ENOMEM;
		return -1;
	}
	memcpy(line, text, n);
	line[n] = '\n';
	json_object_put(o);

	struct stat st;
	if (fstat(db->fd, &st) != 0)
		goto fail;
	/* One write(2), so a crash leaves whole lines plus at most one torn one. */
	ssize_t w = write(db->fd, line, n + 1);
	if (w != (ssize_t)(n + 1)) {
		int saved = w < 0 ? errno : ENOSPC;
		if (w > 0 && ftruncate(db->fd, st.st_size) != 0) {
			/* the torn tail stays; the next open cuts it off */
		}
		errno = saved;
		goto fail;
	}
	if (fsync(db->fd) != 0)
		goto fail;
	free(line);
	db->nrecords++;
	double ms = r->status == TUNE_OK && isfinite(r->time_median_ms) ? r->time_median_ms : INFINITY;
	return remember(db, key, ms, (int)r->status);
fail:
	free(line);
	free(key);
	return -1;
}

/* ---- the readers' arrays ---------------------------------------------------- */

void *tune_db_list_add(struct tune_db_list *l)
{
	if (l->n == l->cap) {
		size_t want = l->cap ? 2 * l->cap : 256;
		void *p = want <= SIZE_MAX / 2 / l->size ? realloc(l->v, want * l->size) : NULL;
		if (!p) {
			tune_db_list_oom(l);
			return NULL;
		}
		l->v = p;
		l->cap = want;
	}
	void *e = (char *)l->v + l->n++ * l->size;
	memset(e, 0, l->size);
	return e;
}

int tune_db_list_oom(struct tune_db_list *l)
{
	l->oom = true;
	return 1;
}

void tune_db_list_free(struct tune_db_list *l, void (*release)(void *element))
{
	for (size_t i = 0; release && i < l->n; i++)
		release((char *)l->v + i * l->size);
	free(l->v);
	*l = (struct tune_db_list){ .size = l->size };
}
