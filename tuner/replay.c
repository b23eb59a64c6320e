/*
 * replay.c - a recorded database as the device (see replay.h).
 *
 * The records of one space and problem are read into groups, one per
 * (device, source hash); one group is chosen and its records are looked up
 * by the parameters' key (db.h), the latest line for a configuration
 * winning as in the database.  The in-flight evaluations are a handful (at
 * most `jobs`), so the event simulation scans them linearly.
 */
/* strcasestr, as ocl.c matches a device selection */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

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

struct flight {
	long point;
	long seq;                  /* submission order: ties */
	const struct tune_result *rec;
	double build_end, end;     /* end: NAN until its device turn is scheduled */
};

struct tune_replay {
	struct tune_replay_opts o;
	int ngroups;
	struct group *groups;
	const struct group *chosen;
	struct flight *flights;
	int nflight;
	long seq;                  /* lines read, then submissions */
	double clock, device_free;
	double real_start;         /* CLOCK_MONOTONIC at the open (sleep) */
	const char *reading;       /* the file being read, for messages */
	bool failed;               /* out of memory while reading */
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

static struct group *group_of(struct tune_replay *rp, const char *device, const char *platform,
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

static int take_line(void *user, struct json_object *line, long lineno)
{
	struct tune_replay *rp = user;
	(void)lineno;
	const char *space = tune_db_str(line, "space"), *problem = tune_db_str(line, "problem");
	const char *device = tune_db_str(line, "device"), *platform = tune_db_str(line, "platform");
	const char *driver = tune_db_str(line, "driver"), *hash = tune_db_str(line, "source_hash");
	const char *want = rp->o.problem ? rp->o.problem : "";
	if (!space || strcmp(space, rp->o.space) != 0 || strcmp(problem ? problem : "", want) != 0 ||
	    !device || !platform || !driver || !hash)
		return 0;
	char *key = tune_db_line_params_key(line);
	struct group *g = key ? group_of(rp, device, platform, driver, hash) : NULL;
	struct tune_result *r = calloc(1, sizeof *r);
	if (!key || !g || !r)
		goto oom;
	r->status = status_named(tune_db_str(line, "status"));
	struct json_object *t = NULL;
	json_object_object_get_ex(line, "time_ms", &t);
	r->time_median_ms = t ? tune_db_num(t, "median", NAN) : NAN;
	r->time_min_ms = t ? tune_db_num(t, "min", NAN) : NAN;
	r->runs = (int)tune_db_num(line, "runs", 0);
	r->build_s = tune_db_num(line, "build_s", 0);
	r->device_s = tune_db_num(line, "device_s", NAN);
	r->max_abs_err = tune_db_num(line, "max_abs_err", NAN);
	r->max_rel_err = tune_db_num(line, "max_rel_err", NAN);
	r->nonfinite = (uint64_t)tune_db_num(line, "nonfinite", 0);
	const char *error = tune_db_str(line, "error");
	if (error && !(r->error = strdup(error)))
		goto oom;
	g->last_seq = ++rp->seq;
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
	rp->failed = true;
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

/* One file, decoded in memory when it ends in .xz.  0 or -1 with *err. */
static int read_file(struct tune_replay *rp, const char *path, char **err)
{
	FILE *f;
	char *data = NULL;
	size_t data_len = 0;
	if (ends_with(path, ".xz")) {
		if (read_xz(path, &data, &data_len, err))
			return -1;
		f = data_len ? fmemopen(data, data_len, "r") : fopen("/dev/null", "r");
	} else {
		f = fopen(path, "r");
	}
	if (!f) {
		*err = fmt("%s: cannot read: %s", path, strerror(errno));
		free(data);
		return -1;
	}
	rp->reading = path;
	int rc = tune_db_scan_stream(f, path, rp->o.err, take_line, rp);
	int closed = fclose(f);
	free(data);
	if (rp->failed) {
		*err = fmt("%s: out of memory reading the records%s", path, NULL);
		return -1;
	}
	if (rc != 0 || closed != 0) {
		*err = fmt("%s: cannot read%s", path, NULL);
		return -1;
	}
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.jsonl and *.jsonl.xz of a directory, in name order. */
static int read_dir(struct tune_replay *rp, const char *dir, char **err)
{
	DIR *d = opendir(dir);
	if (!d) {
		*err = fmt("%s: cannot read: %s", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
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
		if (!(names[n] = fmt("%s/%s", dir, e->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc != 0)
		*err = fmt("%s: out of memory%s", dir, NULL);
	if (rc == 0 && n > 0)
		qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = read_file(rp, names[i], err);
		free(names[i]);
	}
	free(names);
	return rc;
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
	for (int i = 0; i < rp->ngroups; i++) {
		const struct group *g = &rp->groups[i];
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
	for (int i = 0; i < rp->ngroups; i++) {
		const struct group *g = &rp->groups[i];
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
	struct stat st;
	int rc;
	if (stat(o->path, &st) != 0) {
		*err = fmt("%s: cannot read: %s", o->path, strerror(errno));
		rc = -1;
	} else {
		rc = S_ISDIR(st.st_mode) ? read_dir(rp, o->path, err) : read_file(rp, o->path, err);
	}
	if (rc == 0)
		rc = choose(rp, err);
	if (rc != 0) {
		if (!*err)
			*err = fmt("%s: out of memory%s", o->path, NULL);
		tune_replay_close(rp);
		return -1;
	}
	rp->seq = 0;
	rp->real_start = mono_now();
	*out = rp;
	return 0;
}

void tune_replay_close(struct tune_replay *rp)
{
	if (!rp)
		return;
	for (int i = 0; i < rp->ngroups; i++) {
		free(rp->groups[i].hash);
		lh_table_free(rp->groups[i].records);
	}
	free(rp->groups);
	free(rp->flights);
	free(rp);
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
	rp->clock = rp->device_free = 0;
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
		.build_end = rp->clock + build, .end = NAN,
	};
	return 0;
}

/* The flight whose next event (build end, else end) comes first; ties by submission. */
static int next_event(const struct tune_replay *rp, double *when)
{
	int best = -1;
	double t_best = INFINITY;
	for (int i = 0; i < rp->nflight; i++) {
		const struct flight *f = &rp->flights[i];
		double t = isnan(f->end) ? f->build_end : f->end;
		if (best < 0 || t < t_best || (t == t_best && f->seq < rp->flights[best].seq)) {
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
			f->end = start + device_seconds(rp, f->rec);
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
