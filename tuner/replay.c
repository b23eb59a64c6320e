/*
 * replay.c - a recorded database as the device (see replay.h).
 *
 * A dataset (a file or a directory of them) is read once per process and
 * kept while its files are unchanged (their names, sizes and times), and
 * the records of a space and problem are parsed the first time an open
 * asks for them, one group per (device, source hash).  A batch worker or
 * MPI rank opens a replay for every hand-out of another problem, and a
 * dataset is a few MiB of JSON (bench/batch: 3.8 MB, most of a rank's
 * set-up when all of it was parsed at every open).  Only the lines that
 * can be the problem's are parsed: a line without a backslash spells
 * every string literally, so one that lacks "SPACE" or "PROBLEM" in
 * quotes is not the problem's.  An open chooses one group and looks its
 * records up by the parameters' key (db.h), the latest line for a
 * configuration winning as in the database.  The in-flight evaluations
 * are a handful (at most `jobs`), so the event simulation scans them
 * linearly.  A process's runs are sequential: the kept dataset has no
 * lock.
 */
/* strcasestr, as ocl.c matches a device selection */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <lzma.h>

#include "tuner/db.h"
#include "tuner/replay.h"

struct group {
	struct tune_device_info dev;
	char *hash;
	/* params key -> struct tune_result: the line's outcome as the evaluator
	 * returned it (device_s: NAN where the line has none) */
	struct lh_table *records;
	long last_seq;             /* the newest line's sequence number */
};

/* The records of one space and problem. */
struct problem_records {
	int ngroups;
	struct group *groups;
};

/* One file's text, decoded. */
struct dataset_file {
	char *name;
	char *text;
	size_t len;
	long first_line;           /* the lines of the files before it */
};

/* A dataset as read: its files, and "SPACE\nPROBLEM" -> struct problem_records
 * for each problem asked for so far. */
struct dataset {
	int refs;                  /* the kept one's, and each open replay's */
	char *path;
	char *signature;           /* of its files when read (signature()) */
	struct dataset_file *files;
	size_t nfiles;
	struct lh_table *problems;
	bool failed;               /* out of memory while parsing */
};

/* The dataset read last, for the next open of the same path. */
static struct dataset *kept;
/* Datasets read, and opens that found theirs kept (tune_replay_reads) */
static long reads, reads_kept;

struct flight {
	long point;
	long seq;                  /* submission order: ties */
	const struct tune_result *rec;
	double build_end, end;     /* end: NAN until its device turn is scheduled */
	double start;              /* of its device turn, once scheduled */
	bool turned;               /* o.device_lock: the shared device's turn taken */
};

struct tune_replay {
	struct tune_replay_opts o;
	struct dataset *ds;
	const struct problem_records *pr;  /* NULL: none of the problem */
	const struct group *chosen;
	struct flight *flights;
	int nflight;
	long seq;                  /* submissions */
	double clock, device_free;
	double real_start;         /* CLOCK_MONOTONIC at the open (sleep) */
	int lock_fd;               /* o.device_lock's, or -1 */
	double turn_end;           /* the end of the last turn taken (o.device_lock) */
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *fmt(const char *format, const char *a, const char *b)
{
	size_t n = strlen(format) + strlen(a) + (b ? strlen(b) : 0) + 1;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, format, a, b ? b : "");
	return s;
}

/* ---- reading ---------------------------------------------------------------- */

static void free_record_entry(struct lh_entry *e)
{
	struct tune_result *r = (struct tune_result *)lh_entry_v(e);
	free(lh_entry_k(e));
	if (r)
		free(r->error);
	free(r);
}

static void free_problem_entry(struct lh_entry *e)
{
	struct problem_records *pr = (struct problem_records *)lh_entry_v(e);
	for (int i = 0; pr && i < pr->ngroups; i++) {
		free(pr->groups[i].hash);
		lh_table_free(pr->groups[i].records);
	}
	if (pr)
		free(pr->groups);
	free(pr);
	free(lh_entry_k(e));
}

/* The records of the space and problem, created empty when new; NULL out of memory. */
static struct problem_records *problem_of(struct dataset *ds, const char *space, const char *problem)
{
	char *key = fmt("%s\n%s", space, problem);
	void *found = NULL;
	if (!key)
		return NULL;
	if (lh_table_lookup_ex(ds->problems, key, &found)) {
		free(key);
		return found;
	}
	struct problem_records *pr = calloc(1, sizeof *pr);
	if (!pr || lh_table_insert(ds->problems, key, pr) != 0) {
		free(pr);
		free(key);
		return NULL;
	}
	return pr;
}

static struct group *group_of(struct problem_records *rp, const char *device, const char *platform,
                              const char *driver, const char *hash)
{
	for (int i = 0; i < rp->ngroups; i++) {
		struct group *g = &rp->groups[i];
		if (!strcmp(g->dev.name, device) && !strcmp(g->dev.platform, platform) &&
		    !strcmp(g->dev.driver, driver) && !strcmp(g->hash, hash))
			return g;
	}
	struct group *more = realloc(rp->groups, (size_t)(rp->ngroups + 1) * sizeof *more);
	if (!more)
		return NULL;
	rp->groups = more;
	struct group *g = &rp->groups[rp->ngroups];
	memset(g, 0, sizeof *g);
	snprintf(g->dev.name, sizeof g->dev.name, "%s", device);
	snprintf(g->dev.platform, sizeof g->dev.platform, "%s", platform);
	snprintf(g->dev.driver, sizeof g->dev.driver, "%s", driver);
	g->dev.platform_index = g->dev.device_index = -1;
	g->hash = strdup(hash);
	g->records = lh_kchar_table_new(1024, free_record_entry);
	if (!g->hash || !g->records) {
		free(g->hash);
		if (g->records)
			lh_table_free(g->records);
		return NULL;
	}
	rp->ngroups++;
	return g;
}

static enum tune_status status_named(const char *name)
{
	for (int s = TUNE_OK; name && s <= TUNE_SKIPPED; s++)
		if (strcmp(name, tune_status_name((enum tune_status)s)) == 0)
			return (enum tune_status)s;
	return TUNE_CRASHED;  /* a status this build does not know: not a result to use */
}

/* What a scan of one file for one problem fills. */
struct scan {
	struct dataset *ds;
	struct problem_records *pr;
	const char *space, *problem;
	long first_line;           /* of the file: the lines' sequence numbers */
};

/* A count field of a record, 0 where it is missing, negative, not a
 * number or above max: the file is anyone's, and converting such a
 * double to an integer is undefined (the db fuzzer found runs 1.04e10). */
static long long count_field(struct json_object *line, const char *name, long long max)
{
	double v = tune_db_num(line, name, 0);
	return v >= 0 && v < (double)max + 1.0 ? (long long)v : 0; /* (double)INT64_MAX is 2^63 */
}

static int take_line(void *user, struct json_object *line, long lineno)
{
	struct scan *sc = user;
	const char *space = tune_db_str(line, "space"), *problem = tune_db_str(line, "problem");
	const char *device = tune_db_str(line, "device"), *platform = tune_db_str(line, "platform");
	const char *driver = tune_db_str(line, "driver"), *hash = tune_db_str(line, "source_hash");
	if (!space || strcmp(space, sc->space) != 0 || strcmp(problem ? problem : "", sc->problem) != 0 ||
	    !device || !platform || !driver || !hash)
		return 0;
	char *key = tune_db_line_params_key(line);
	struct group *g = key ? group_of(sc->pr, device, platform, driver, hash) : NULL;
	struct tune_result *r = calloc(1, sizeof *r);
	if (!key || !g || !r)
		goto oom;
	r->status = status_named(tune_db_str(line, "status"));
	struct json_object *t = NULL;
	json_object_object_get_ex(line, "time_ms", &t);
	r->time_median_ms = t ? tune_db_num(t, "median", NAN) : NAN;
	r->time_min_ms = t ? tune_db_num(t, "min", NAN) : NAN;
	r->runs = count_field(line, "runs", INT_MAX);
	r->build_s = tune_db_num(line, "build_s", 0);
	r->device_s = tune_db_num(line, "device_s", NAN);
	r->max_abs_err = tune_db_num(line, "max_abs_err", NAN);
	r->max_rel_err = tune_db_num(line, "max_rel_err", NAN);
	r->nonfinite = (uint64_t)count_field(line, "nonfinite", INT64_MAX);
	const char *error = tune_db_str(line, "error");
	if (error && !(r->error = strdup(error)))
		goto oom;
	g->last_seq = sc->first_line + lineno;
	/* The latest line for a configuration wins, as in the database. */
	struct lh_entry *e = lh_table_lookup_entry(g->records, key);
	if (e) {
		struct tune_result *old = (struct tune_result *)lh_entry_v(e);
		free(old->error);
		*old = *r;
		free(r);
		free(key);
		return 0;
	}
	if (lh_table_insert(g->records, key, r) != 0)
		goto oom;
	return 0;
oom:
	free(key);
	if (r)
		free(r->error);
	free(r);
	sc->ds->failed = true;
	return -1;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

/*
 * A whole .xz file decoded in memory with liblzma: the records of one
 * dataset are a few MiB, and a library call needs no external xz and no
 * shell (the sources may not run one: tests/cli/cache.sh).  0, or -1
 * with *err.
 */
static int read_xz(const char *path, char **out, size_t *out_len, char **err)
{
	FILE *in = fopen(path, "rb");
	if (!in) {
		*err = fmt("%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	lzma_stream z = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
		fclose(in);
		*err = fmt("%s: cannot start the xz decoder%s", path, NULL);
		return -1;
	}
	uint8_t ibuf[65536];
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	lzma_ret r = LZMA_OK;
	lzma_action action = LZMA_RUN;
	if (!buf)
		goto fail;
	z.next_out = (uint8_t *)buf;
	z.avail_out = cap;
	while (r == LZMA_OK) {
		if (z.avail_in == 0 && action == LZMA_RUN) {
			z.next_in = ibuf;
			z.avail_in = fread(ibuf, 1, sizeof ibuf, in);
			if (ferror(in))
				goto fail;
			if (feof(in))
				action = LZMA_FINISH;
		}
		r = lzma_code(&z, action);
		len = cap - z.avail_out;
		if (z.avail_out == 0 && r == LZMA_OK) {
			char *more = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
			if (!more)
				goto fail;
			buf = more;
			z.next_out = (uint8_t *)buf + len;
			z.avail_out = cap;  /* the new half */
			cap *= 2;
		}
	}
	if (r != LZMA_STREAM_END)
		goto fail;
	lzma_end(&z);
	fclose(in);
	*out = buf;
	*out_len = len;
	return 0;
fail:
	lzma_end(&z);
	fclose(in);
	free(buf);
	*err = fmt("%s: not a readable .xz file%s", path, NULL);
	return -1;
}

/* One file's text, decoded in memory when it ends in .xz.  0 or -1 with *err. */
static int read_text(const char *path, char **out, size_t *out_len, char **err)
{
	if (ends_with(path, ".xz"))
		return read_xz(path, out, out_len, err);
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, len = 0;
	char *buf = f ? malloc(cap) : NULL;
	while (buf) {
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap)
			break;
		char *more = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
		if (!more) {
			free(buf);
			buf = NULL;
		}
		buf = more;
		cap *= 2;
	}
	if (!f || !buf || ferror(f)) {
		*err = fmt("%s: cannot read: %s", path, f && buf ? "read error" : strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	*out = buf;
	*out_len = len;
	return 0;
}

/* Whether s appears in a JSON text as itself whenever that text has no backslash. */
static bool spelt_literally(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c == '"' || *c == '\\' || *c < 0x20)
			return false;
	return *s != '\0';
}

/*
 * The file's lines that can be of the space and problem, the others
 * blank (so that line numbers stay), in a buffer of the caller's.
 */
static char *candidate_lines(const struct dataset_file *df, const char *space, const char *problem,
                             size_t *len)
{
	char *out = malloc(df->len + 1);
	if (!out)
		return NULL;
	size_t ns = strlen(space) + 3, np = strlen(problem) + 3;
	char *qs = malloc(ns), *qp = malloc(np);
	if (!qs || !qp) {
		free(qs);
		free(qp);
		free(out);
		return NULL;
	}
	snprintf(qs, ns, "\"%s\"", space);
	snprintf(qp, np, "\"%s\"", problem);
	bool by_space = spelt_literally(space), by_problem = spelt_literally(problem);
	size_t k = 0;
	for (const char *at = df->text, *end = df->text + df->len; at < end;) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		size_t n = nl ? (size_t)(nl - at) : (size_t)(end - at);
		bool maybe = memchr(at, '\\', n) ||
		             ((!by_space || memmem(at, n, qs, ns - 1)) && (!by_problem || memmem(at, n, qp, np - 1)));
		if (maybe) {
			memcpy(out + k, at, n);
			k += n;
		}
		if (nl)
			out[k++] = '\n';
		at += n + (nl ? 1 : 0);
	}
	free(qs);
	free(qp);
	out[k] = '\0';
	/* the length, not strlen: a line may hold NUL bytes (a crash can leave
	 * them), and what follows it is still to be read */
	*len = k;
	return out;
}

/* The records of the space and problem, parsed now or before.  NULL with *err. */
static const struct problem_records *problem_get(struct dataset *ds, const char *space,
                                                 const char *problem, FILE *diag, char **err)
{
	char *key = fmt("%s\n%s", space, problem);
	void *found = NULL;
	bool known = key && lh_table_lookup_ex(ds->problems, key, &found);
	free(key);
	if (known)
		return found;
	struct problem_records *pr = problem_of(ds, space, problem);
	if (!pr) {
		*err = fmt("%s: out of memory%s", ds->path, NULL);
		return NULL;
	}
	for (size_t i = 0; i < ds->nfiles; i++) {
		const struct dataset_file *df = &ds->files[i];
		size_t len = 0;
		char *text = candidate_lines(df, space, problem, &len);
		FILE *f = !text ? NULL : len ? fmemopen(text, len, "r") : fopen("/dev/null", "r");
		if (!f) {
			free(text);
			*err = fmt("%s: out of memory%s", df->name, NULL);
			ds->failed = true;
			return NULL;
		}
		struct scan sc = { ds, pr, space, problem, df->first_line };
		int rc = tune_db_scan_stream(f, df->name, diag, take_line, &sc);
		int closed = fclose(f);
		free(text);
		if (ds->failed) {
			*err = fmt("%s: out of memory reading the records%s", df->name, NULL);
			return NULL;
		}
		if (rc != 0 || closed != 0) {
			*err = fmt("%s: cannot read%s", df->name, NULL);
			ds->failed = true;
			return NULL;
		}
	}
	return pr;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * The files of a dataset: the path itself, or every *.jsonl and
 * *.jsonl.xz of the directory, in name order.  0, or -1 with *err.
 */
static int dataset_files(const char *path, char ***out, size_t *nout, char **err)
{
	struct stat st;
	char **names = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	*nout = 0;
	if (stat(path, &st) != 0) {
		*err = fmt("%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (!(names = malloc(sizeof *names)) || !(names[0] = strdup(path))) {
			free(names);
			*err = fmt("%s: out of memory%s", path, NULL);
			return -1;
		}
		*out = names;
		*nout = 1;
		return 0;
	}
	DIR *d = opendir(path);
	if (!d) {
		*err = fmt("%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (!ends_with(e->d_name, ".jsonl") && !ends_with(e->d_name, ".jsonl.xz"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **more = realloc(names, cap * sizeof *more);
			if (!more) {
				rc = -1;
				break;
			}
			names = more;
		}
		if (!(names[n] = fmt("%s/%s", path, e->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc != 0) {
		free_names(names, n);
		*err = fmt("%s: out of memory%s", path, NULL);
		return -1;
	}
	if (n > 0)
		qsort(names, n, sizeof *names, cmp_names);
	*out = names;
	*nout = n;
	return 0;
}

/*
 * What the dataset's content is taken to be: each file's name, device,
 * inode, size and modification time.  A file rewritten or appended to
 * changes it, and the dataset is read again.  NULL out of memory or when
 * a file cannot be examined (then it is read, and says why).
 */
static char *signature(char *const *names, size_t n)
{
	size_t cap = 1, len = 0;
	for (size_t i = 0; i < n; i++)
		cap += strlen(names[i]) + 128;
	char *sig = malloc(cap);
	if (!sig)
		return NULL;
	sig[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) != 0) {
			free(sig);
			return NULL;
		}
		len += (size_t)snprintf(sig + len, cap - len, "%s %ju %ju %jd %jd.%09ld\n", names[i],
		                        (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
		                        (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	}
	return sig;
}

static void dataset_release(struct dataset *ds)
{
	if (!ds || --ds->refs > 0)
		return;
	if (ds->problems)
		lh_table_free(ds->problems);
	for (size_t i = 0; i < ds->nfiles; i++) {
		free(ds->files[i].name);
		free(ds->files[i].text);
	}
	free(ds->files);
	free(ds->path);
	free(ds->signature);
	free(ds);
}

/* Parsed by this process before and its files unchanged */
static bool kept_is(const char *path, const char *sig)
{
	return kept && sig && strcmp(kept->path, path) == 0 && strcmp(kept->signature, sig) == 0;
}

/*
 * The dataset at path, read now or kept from the last read, with a
 * reference for the caller.  NULL with *err.
 */
static struct dataset *dataset_get(const char *path, char **err)
{
	char **names;
	size_t n;
	if (dataset_files(path, &names, &n, err) != 0)
		return NULL;
	char *sig = signature(names, n);
	if (kept_is(path, sig)) {
		free(sig);
		free_names(names, n);
		kept->refs++;
		reads_kept++;
		return kept;
	}
	struct dataset *ds = calloc(1, sizeof *ds);
	int rc = -1;
	if (ds)
		ds->refs = 1;
	if (ds && (ds->path = strdup(path)) && (ds->problems = lh_kchar_table_new(64, free_problem_entry)) &&
	    (ds->files = calloc(n + 1, sizeof *ds->files))) {
		rc = 0;
		long lines = 0;
		for (size_t i = 0; i < n && rc == 0; i++) {
			struct dataset_file *df = &ds->files[ds->nfiles];
			rc = read_text(names[i], &df->text, &df->len, err);
			if (rc != 0)
				break;
			df->name = names[i];
			names[i] = NULL;
			df->first_line = lines;
			ds->nfiles++;
			for (const char *c = df->text; (c = memchr(c, '\n', df->len - (size_t)(c - df->text))); c++)
				lines++;
			lines++;  /* an unterminated last line */
		}
	} else {
		*err = fmt("%s: out of memory%s", path, NULL);
	}
	free_names(names, n);
	reads++;
	if (rc != 0) {
		free(sig);
		dataset_release(ds);
		return NULL;
	}
	/* Kept for the next open when it could be signed */
	if (sig) {
		ds->signature = sig;
		dataset_release(kept);
		kept = ds;
		ds->refs++;
	}
	return ds;
}

/* A selection by index (a live device's) names no recorded device. */
static bool index_selection(const char *sel)
{
	return sel[strspn(sel, "0123456789")] == '\0' && *sel;
}

/* The group to replay: by device selection, then the job's hash or the newest. */
static int choose(struct tune_replay *rp, char **err)
{
	const char *sel = rp->o.device && !index_selection(rp->o.device) ? rp->o.device : NULL;
	const struct group *dev = NULL;
	int ngroups = rp->pr ? rp->pr->ngroups : 0;
	for (int i = 0; i < ngroups; i++) {
		const struct group *g = &rp->pr->groups[i];
		if (sel && !strcasestr(g->dev.name, sel))
			continue;
		if (dev && (strcmp(dev->dev.name, g->dev.name) || strcmp(dev->dev.platform, g->dev.platform) ||
		            strcmp(dev->dev.driver, g->dev.driver))) {
			*err = fmt("%s: records of several devices ('%s' and others); choose one with --device",
			           rp->o.path, g->dev.name);
			return -1;
		}
		dev = g;
	}
	if (!dev) {
		const char *problem = rp->o.problem && *rp->o.problem ? rp->o.problem : "no --set";
		size_t n = strlen(rp->o.space) + strlen(problem) + (sel ? strlen(sel) : 0) + 128;
		char *s = malloc(n);
		if (s)
			snprintf(s, n, "%s: no records of space '%s' for the problem (%s)%s%s%s", rp->o.path,
			         rp->o.space, problem, sel ? " on a device matching '" : "", sel ? sel : "",
			         sel ? "'" : "");
		*err = s;
		return -1;
	}
	const struct group *best = NULL;
	for (int i = 0; i < ngroups; i++) {
		const struct group *g = &rp->pr->groups[i];
		if (strcmp(g->dev.name, dev->dev.name) || strcmp(g->dev.platform, dev->dev.platform) ||
		    strcmp(g->dev.driver, dev->dev.driver))
			continue;
		if (rp->o.source_hash && strcmp(g->hash, rp->o.source_hash) == 0) {
			best = g;
			break;
		}
		if (!best || g->last_seq > best->last_seq)
			best = g;
	}
	if (rp->o.source_hash && strcmp(best->hash, rp->o.source_hash) != 0 && rp->o.err)
		fprintf(rp->o.err, "spacetune: warning: %s: no records of this kernel source (hash %s); "
		        "replaying the newest records, of source hash %s\n", rp->o.path,
		        rp->o.source_hash, best->hash);
	rp->chosen = best;
	return 0;
}

int tune_replay_open(struct tune_replay **out, const struct tune_replay_opts *o, char **err)
{
	*out = NULL;
	*err = NULL;
	struct tune_replay *rp = calloc(1, sizeof *rp);
	int jobs = o->jobs > 0 ? o->jobs : 1;
	if (!rp || !(rp->flights = calloc((size_t)jobs, sizeof *rp->flights))) {
		free(rp);
		*err = fmt("%s: out of memory%s", o->path, NULL);
		return -1;
	}
	rp->o = *o;
	rp->o.jobs = jobs;
	rp->lock_fd = -1;
	if (o->sleep && o->device_lock &&
	    (rp->lock_fd = open(o->device_lock, O_RDONLY | O_CREAT | O_CLOEXEC, 0666)) < 0) {
		*err = fmt("%s: %s", o->device_lock, strerror(errno));
		tune_replay_close(rp);
		return -1;
	}
	int rc = -1;
	if ((rp->ds = dataset_get(o->path, err)) != NULL) {
		rp->pr = problem_get(rp->ds, o->space, o->problem ? o->problem : "", o->err, err);
		rc = rp->pr ? choose(rp, err) : -1;
		if (rp->ds->failed && kept == rp->ds) {
			/* a problem parsed in part: not kept */
			kept = NULL;
			dataset_release(rp->ds);
		}
	}
	if (rc != 0) {
		if (!*err)
			*err = fmt("%s: out of memory%s", o->path, NULL);
		tune_replay_close(rp);
		return -1;
	}
	rp->real_start = mono_now();
	*out = rp;
	return 0;
}

void tune_replay_close(struct tune_replay *rp)
{
	if (!rp)
		return;
	dataset_release(rp->ds);
	if (rp->lock_fd >= 0)
		close(rp->lock_fd);
	free(rp->flights);
	free(rp);
}

void tune_replay_reads(long *read, long *kept_reads)
{
	*read = reads;
	*kept_reads = reads_kept;
}

const struct tune_device_info *tune_replay_device(const struct tune_replay *rp)
{
	return &rp->chosen->dev;
}

long tune_replay_nrecords(const struct tune_replay *rp)
{
	return rp->chosen->records->count;
}

double tune_replay_clock(const struct tune_replay *rp)
{
	return rp->clock;
}

void tune_replay_restart(struct tune_replay *rp)
{
	rp->clock = rp->device_free = rp->turn_end = 0;
	rp->nflight = 0;
	rp->real_start = mono_now();
}

/* ---- the simulation ----------------------------------------------------------- */

/* Seconds the evaluation held the device. */
static double device_seconds(const struct tune_replay *rp, const struct tune_result *r)
{
	if (isfinite(r->device_s) && r->device_s >= 0)
		return r->device_s;
	if (!isfinite(r->time_median_ms) || r->time_median_ms <= 0)
		return 0;  /* never ran: a build or launch error, a skip */
	int runs = r->runs > 0 ? r->runs : 1;
	if (r->status == TUNE_TIMEOUT)
		return runs * r->time_median_ms * 1e-3;
	return (rp->o.warmup + runs) * r->time_median_ms * 1e-3;
}

/* The variant's record, or NULL. */
static const struct tune_result *record_of(const struct tune_replay *rp, const struct tune_variant *v)
{
	char *key = tune_db_variant_params_key(v);
	void *found = NULL;
	bool known = key && lh_table_lookup_ex(rp->chosen->records, key, &found);
	free(key);
	return known ? found : NULL;
}

bool tune_replay_has(const struct tune_replay *rp, const struct tune_variant *v)
{
	return record_of(rp, v) != NULL;
}

int tune_replay_submit(struct tune_replay *rp, const struct tune_variant *v)
{
	if (rp->nflight >= rp->o.jobs)
		return -1;
	const struct tune_result *r = record_of(rp, v);
	if (!r)
		return 1;
	double build = isfinite(r->build_s) && r->build_s > 0 ? r->build_s : 0;
	rp->flights[rp->nflight++] = (struct flight){
		.point = (long)v->point_index, .seq = rp->seq++, .rec = r,
		.build_end = rp->clock + build, .end = NAN, .turned = rp->lock_fd < 0,
	};
	return 0;
}

/* The flight whose next event (build end, else end; with o.device_lock,
 * the start of a turn not yet taken: not before the last turn's end)
 * comes first; ties by submission, except that a turn yields to the rest. */
static int next_event(const struct tune_replay *rp, double *when)
{
	int best = -1;
	double t_best = INFINITY;
	for (int i = 0; i < rp->nflight; i++) {
		const struct flight *f = &rp->flights[i];
		bool turn = !isnan(f->end) && !f->turned;
		double t = isnan(f->end) ? f->build_end : turn ? fmax(f->start, rp->turn_end) : f->end;
		bool best_turn = best >= 0 && !isnan(rp->flights[best].end) && !rp->flights[best].turned;
		bool tie_won = turn != best_turn ? best_turn : f->seq < rp->flights[best].seq;
		if (best < 0 || t < t_best || (t == t_best && tie_won)) {
			best = i;
			t_best = t;
		}
	}
	*when = t_best;
	return best;
}

static void sleep_until(const struct tune_replay *rp, double virtual_s)
{
	double wait = rp->real_start + virtual_s - mono_now();
	if (wait <= 0)
		return;
	struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* A device shared with other replays (o.device_lock): waits for the
 * virtual start, then for the lock, which it holds for the device time in
 * real time, as a worker holds a card's.  The turn's start: when the lock
 * came, if later.  Taken at the turn's scheduled end, not at its build's
 * end, so that results due before its start are not held back. */
static double device_turn(struct tune_replay *rp, double start, double seconds)
{
	sleep_until(rp, start);
	while (flock(rp->lock_fd, LOCK_EX) != 0 && errno == EINTR)
		;
	double now = mono_now() - rp->real_start;
	if (now > start)
		start = now;
	sleep_until(rp, start + seconds);
	flock(rp->lock_fd, LOCK_UN);
	return start;
}

long tune_replay_wait_any(struct tune_replay *rp, struct tune_result *res)
{
	for (;;) {
		double t;
		int i = next_event(rp, &t);
		if (i < 0)
			return -1;
		struct flight *f = &rp->flights[i];
		if (isnan(f->end)) {
			/* Its build ended: the device takes it after those whose builds ended earlier. */
			double start = f->build_end > rp->device_free ? f->build_end : rp->device_free;
			f->start = start;
			f->end = start + device_seconds(rp, f->rec);
			rp->device_free = f->end;
			continue;
		}
		if (!f->turned) {
			/* Later turns of this replay wait for this one's real end. */
			f->end = device_turn(rp, fmax(f->start, rp->turn_end), device_seconds(rp, f->rec)) +
			         device_seconds(rp, f->rec);
			f->turned = true;
			rp->turn_end = f->end;
			if (f->end > rp->device_free)
				rp->device_free = f->end;
			continue;
		}
		if (t > rp->clock)
			rp->clock = t;
		if (rp->o.sleep)
			sleep_until(rp, rp->clock);
		const struct tune_result *r = f->rec;
		long point = f->point;
		*res = *r;  /* then the clock's device time and an own copy of the error */
		res->device_s = device_seconds(rp, r);
		res->error = r->error ? strdup(r->error) : NULL;
		rp->flights[i] = rp->flights[--rp->nflight];
		return point;
	}
}
