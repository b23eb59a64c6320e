/*
 * run.c - `spacetune run` (see run.h): the loop that keeps `jobs`
 * evaluations in flight, the progress line, and the final summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tuner/db.h"
#include "tuner/device.h"
#include "tuner/exec.h"
#include "tuner/job.h"
#include "tuner/replay.h"
#include "tuner/run.h"
#include "tools/progress.h"

/* Plain progress lines (not a terminal) at most this often. */
static const double plain_interval_s = 5.0, live_interval_s = 0.2;

/* NSTATUS: a failure of unknown kind (from the database); MISSING: not
 * in a replayed database (trace lines only). */
enum { NSTATUS = TUNE_SKIPPED + 1, MISSING };

struct progress {
	FILE *err;
	bool live, quiet;
	/* The live line, redrawn by its own thread from the first second,
	 * while the space loads and the first variants build too. */
	struct progress_line *line;
	double start, last_print;
	size_t planned, done, reused;
	size_t by_status[NSTATUS];
	double best_ms;          /* the best cost (see cost_of) */
	double best_time_ms;     /* the median time of that point */
	long best_point;
	const char *unit;        /* of the objective: "ms" or a metric's name */
	bool negate;             /* a maximised objective: its value is -cost */
	const struct tune_run_opts *o; /* for on_count */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void format_duration(char *buf, size_t n, double s)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, n, "?");
	else if (s < 3600)
		snprintf(buf, n, "%d:%02d", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, n, "%d:%02d:%02d", (int)(s / 3600), (int)s / 60 % 60, (int)s % 60);
}

/* "ok", "build_error", ...: the abbreviations the progress line uses. */
static const char *const short_status[NSTATUS] = {
	[TUNE_OK] = "ok", [TUNE_BUILD_ERROR] = "build", [TUNE_LAUNCH_ERROR] = "launch",
	[TUNE_WRONG_RESULT] = "wrong", [TUNE_TIMEOUT] = "timeout", [TUNE_CRASHED] = "crash",
	[TUNE_SKIPPED] = "skip",
};

static void progress_print(struct progress *p, double seconds_budget, bool final)
{
	double t = now_s(), elapsed = t - p->start;
	if (p->quiet || (!final && t - p->last_print < (p->live ? live_interval_s : plain_interval_s)))
		return;
	p->last_print = t;
	size_t evaluated = p->done - p->reused;
	double rate = elapsed > 0 ? evaluated / elapsed : 0;
	double eta = rate > 0 ? (double)(p->planned - p->done) / rate : INFINITY;
	if (seconds_budget > 0 && seconds_budget - elapsed < eta)
		eta = seconds_budget - elapsed > 0 ? seconds_budget - elapsed : 0;
	char line[512], eta_text[32];
	int n = snprintf(line, sizeof line, "[%zu/%zu]", p->done, p->planned);
	if (isfinite(p->best_ms))
		n += snprintf(line + n, sizeof line - (size_t)n, " best %.4g %s",
		              p->negate ? -p->best_ms : p->best_ms, p->unit);
	else
		n += snprintf(line + n, sizeof line - (size_t)n, " best -");
	n += snprintf(line + n, sizeof line - (size_t)n, " | ok %zu", p->by_status[TUNE_OK]);
	for (int s = 1; s < NSTATUS; s++)
		if (p->by_status[s])
			n += snprintf(line + n, sizeof line - (size_t)n, " %s %zu", short_status[s],
			              p->by_status[s]);
	if (p->reused)
		n += snprintf(line + n, sizeof line - (size_t)n, " | %zu from db", p->reused);
	if (p->live && !final) {
		/* The line's thread adds the ETA, from the share done (or of the
		 * time budget spent, whichever is further along). */
		double share = p->planned ? (double)p->done / (double)p->planned : -1;
		if (seconds_budget > 0 && elapsed / seconds_budget > share)
			share = elapsed / seconds_budget;
		snprintf(line + n, sizeof line - (size_t)n, " | %.3g eval/s", rate);
		progress_update(p->line, share, line);
		return;
	}
	format_duration(eta_text, sizeof eta_text, final ? 0 : eta);
	snprintf(line + n, sizeof line - (size_t)n, " | %.3g eval/s | ETA %s", rate, eta_text);
	fprintf(p->err, p->live ? "%s\n" : "spacetune: %s\n", line);
	fflush(p->err);
}

/* The objective's best value as the progress line shows it; NAN for none. */
static double best_value(const struct progress *p)
{
	return !isfinite(p->best_ms) ? NAN : p->negate ? -p->best_ms : p->best_ms;
}

/* Clears a live line before other output goes to the same terminal. */
static void progress_break(struct progress *p)
{
	progress_erase(p->line);
}

/* status: an enum tune_status, or NSTATUS for a failure of unknown kind
 * (one taken from the database). */
static void progress_count(struct progress *p, long point, int status, double ms, double time_ms)
{
	p->done++;
	if (status >= 0 && status < NSTATUS)
		p->by_status[status]++;
	if (status == TUNE_OK && ms < p->best_ms) {
		p->best_ms = ms;
		p->best_time_ms = time_ms;
		p->best_point = point;
	}
	if (p->o && p->o->on_count)
		p->o->on_count(p->o->on_count_user, p->done, p->planned, best_value(p));
}

/* ---- the job as a strategy's space ---------------------------------------------- */

/*
 * The strategy's space: the job's points lo + i for i < n (an exhaustive
 * chunk; else all), or map[i] (a random search's chunk: its points in a
 * seeded random order; or, sorted, the points a replayed database records,
 * whose parameters then take only the values of those points: vals).
 */
struct view {
	struct tune_job *job;
	size_t lo, n;
	size_t *map;
	bool sorted;             /* map is increasing: lookups bisect it */
	double **vals;           /* per parameter, sorted distinct values; NULL: the job's */
	int *nvals, nparams;     /* nparams: of vals */
};

static size_t job_point(const struct view *v, size_t i)
{
	return v->map ? v->map[i] : v->lo + i;
}

/* The view's index of a job's point; a random chunk is small, so a scan will do. */
static size_t view_point(const struct view *v, size_t point)
{
	if (!v->map)
		return point - v->lo;
	if (v->sorted) {
		size_t lo = 0, hi = v->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v->map[mid] < point)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < v->n && v->map[lo] == point ? lo : v->n;
	}
	for (size_t i = 0; i < v->n; i++)
		if (v->map[i] == point)
			return i;
	return v->n;  /* not the view's: tune_search_report ignores it */
}

static double job_value(void *user, size_t i, int p)
{
	const struct view *v = user;
	return tune_job_point_value(v->job, job_point(v, i), p);
}

static int job_values(void *user, int p, const double **values)
{
	const struct view *v = user;
	if (v->vals) {
		*values = v->vals[p];
		return v->nvals[p];
	}
	return tune_job_param_values(v->job, p, values);
}

static long job_find(void *user, const double *values)
{
	const struct view *v = user;
	long i = tune_job_find_point(v->job, values);
	if (i < 0)
		return -1;
	size_t k = view_point(v, (size_t)i);
	return k < v->n ? (long)k : -1;
}

static void view_release(struct view *v)
{
	for (int p = 0; v->vals && p < v->nparams; p++)
		free(v->vals[p]);
	free(v->vals);
	free(v->nvals);
	free(v->map);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The distinct values of each parameter over the view's points.  0 or -1. */
static int view_values(struct view *v)
{
	int np = v->nparams = tune_job_nparams(v->job);
	v->vals = calloc((size_t)np + 1, sizeof *v->vals);
	v->nvals = calloc((size_t)np + 1, sizeof *v->nvals);
	if (!v->vals || !v->nvals)
		return -1;
	for (int p = 0; p < np; p++) {
		double *x = malloc((v->n + 1) * sizeof *x);
		if (!(v->vals[p] = x))
			return -1;
		for (size_t i = 0; i < v->n; i++)
			x[i] = job_value(v, i, p);
		qsort(x, v->n, sizeof *x, cmp_double);
		int k = 0;
		for (size_t i = 0; i < v->n; i++)
			if (k == 0 || x[i] != x[k - 1])
				x[k++] = x[i];
		v->nvals[p] = k;
	}
	return 0;
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/*
 * A random search cut into chunks: the first `planned` points of a
 * permutation of the space drawn from the seed alone (a partial
 * Fisher-Yates shuffle), so every chunk of the problem, on any worker,
 * cuts the same sequence; chunk c keeps its part [lo, lo + n).  0 or -1.
 */
static int random_chunk(struct view *v, size_t npoints, size_t planned, uint64_t seed)
{
	size_t *perm = malloc((npoints ? npoints : 1) * sizeof *perm);
	if (!perm)
		return -1;
	for (size_t i = 0; i < npoints; i++)
		perm[i] = i;
	uint64_t state = seed;
	for (size_t i = 0; i < planned && i + 1 < npoints; i++) {
		size_t j = i + (size_t)(splitmix64(&state) % (npoints - i));
		size_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	memmove(perm, perm + v->lo, v->n * sizeof *perm);
	v->map = perm;
	return 0;
}

/* ---- device queries during loading ------------------------------------------------ */


/* ---- the run ---------------------------------------------------------------------- */

struct run {
	const struct tune_run_opts *o;
	struct tune_eval_opts eval;  /* o->eval with the backend chosen */
	struct tune_device_props *props;
	bool device_failed;          /* read_device said why */
	struct tune_job *job;
	struct tune_evaluator *ev;
	struct tune_replay *replay;  /* instead of ev */
	struct tune_db *db;          /* NULL: nothing recorded */
	struct tune_db_also *also;   /* the other workers' records (o->also_view or own_also) */
	struct tune_db_also *own_also;
	FILE *trace;
	struct tune_space space;
	struct view view;        /* the space's user; view.lo maps its points to the job's */
	struct tune_budget budget;   /* of each search (a chunk's own) */
	const char *strategy_name;   /* auto resolved */
	struct tune_stage *stages;   /* bfs's levels */
	int nstages;
	struct tune_strategy *strategy;
	struct tune_search search;
	struct tune_device_info info;
	struct progress progress;
	size_t inflight;
	int status;
	int metric;              /* the objective's metric in each variant, or -1 (time) */
	/* Proposed configurations the replayed database lacks: the count and
	 * the first few, for the summary. */
	size_t missing;
	size_t missing_listed[5];
	char *keep_id;           /* o->keep: this run's (keep_id()) */
	/* Identity of a point the job could not even evaluate (see identify()). */
	const char **names, **texts;
	char (*text_buf)[32];
};

/* ---- what a run leaves for the next run of its problem (run.h) ------------------- */

struct tune_run_keep {
	char *id;                    /* whose: keep_id() */
	struct tune_job *job;
	struct tune_device_props *props;
	struct tune_evaluator *ev;
	struct tune_replay *replay;
	struct tune_device_info info;
	const char *backend;         /* the one the job's kernel file chose */
	/* Of props and ev: device_id().  A run of another problem on the
	 * same device takes them too: the properties as they are, the
	 * evaluator's workers for its own arguments (tune_evaluator_restart),
	 * so that a batch worker opens its device once, not per problem. */
	char *device;
};

struct tune_run_keep *tune_run_keep_new(void)
{
	return calloc(1, sizeof(struct tune_run_keep));
}

/* What belongs to the problem only; the device's part stays. */
static void keep_clear_problem(struct tune_run_keep *k)
{
	tune_replay_close(k->replay);
	tune_job_free(k->job);
	free(k->id);
	k->replay = NULL;
	k->job = NULL;
	k->id = NULL;
}

static void keep_clear(struct tune_run_keep *k)
{
	keep_clear_problem(k);
	if (k->ev)
		tune_evaluator_stop(k->ev);
	tune_device_props_free(k->props);
	free(k->device);
	*k = (struct tune_run_keep){ .id = NULL };
}

/* The device a run's evaluator and properties are of. */
static char *device_id(const struct tune_eval_opts *e)
{
	const struct dev_ops *ops = dev_backend(e->device.backend);
	char *id = NULL;
	if (asprintf(&id, "%s\n%s\n%s\n%d", ops ? ops->name : "?", e->device.platform ? e->device.platform : "",
	             e->device.device ? e->device.device : "", e->device.gpu) < 0)
		return NULL;
	return id;
}

/* Whether what k keeps of a device is of r's. */
static bool keep_same_device(const struct tune_run_keep *k, const struct run *r)
{
	char *id = k->device ? device_id(&r->eval) : NULL;
	bool same = id && strcmp(id, k->device) == 0;
	free(id);
	return same;
}

void tune_run_keep_free(struct tune_run_keep *k)
{
	if (!k)
		return;
	keep_clear(k);
	free(k);
}

/* What the loaded state depends on: the space, the settings, the device
 * selection and the replayed database (the rest of eval is the worker's). */
static char *keep_id(const struct tune_run_opts *o)
{
	const char *parts[4] = { o->space_path, o->eval.device.platform, o->eval.device.device,
	                         o->eval.replay };
	size_t n = 1;
	for (int i = 0; i < 4; i++)
		n += (parts[i] ? strlen(parts[i]) : 0) + 1;
	for (int i = 0; i < o->nsets; i++)
		n += strlen(o->sets[i]) + 1;
	char *id = malloc(n);
	if (!id)
		return NULL;
	size_t k = 0;
	for (int i = 0; i < 4; i++)
		k += (size_t)snprintf(id + k, n - k, "%s\n", parts[i] ? parts[i] : "");
	for (int i = 0; i < o->nsets; i++)
		k += (size_t)snprintf(id + k, n - k, "%s\n", o->sets[i]);
	return id;
}

/* Seconds of tuning so far: the replay's virtual clock, or the wall clock. */
static double run_clock(const struct run *r)
{
	return r->replay ? tune_replay_clock(r->replay) : now_s() - r->progress.start;
}

/* One trace line per evaluation counted (see run.h). */
static void trace_line(struct run *r, size_t point, int status, double cost)
{
	if (!r->trace)
		return;
	double best = r->progress.best_ms;
	fprintf(r->trace, "%zu,%.6f,%zu,%s,%.9g,%.9g\n", r->progress.done, run_clock(r), point,
	        status >= 0 && status < NSTATUS ? tune_status_name((enum tune_status)status)
	        : status == MISSING ? "missing" : "unknown",
	        r->o->maximize ? -cost : cost, r->o->maximize ? -best : best);
}

/*
 * A variant the job rejects early may come back without its identity;
 * the database line and the resume key still need the parameters, so
 * they are filled from the numeric values (strings show as their index).
 */
static void identify(struct run *r, size_t point, struct tune_variant *v)
{
	if (v->param_names && v->source_hash)
		return;
	int np = tune_job_nparams(r->job);
	for (int p = 0; p < np && r->names; p++) {
		r->names[p] = tune_job_param_name(r->job, p);
		snprintf(r->text_buf[p], sizeof r->text_buf[p], "%.17g", tune_job_point_value(r->job, point, p));
		r->texts[p] = r->text_buf[p];
	}
	v->point_index = point;
	v->nparams = r->names ? np : 0;
	v->param_names = r->names;
	v->param_values = r->texts;
	v->source_hash = tune_job_source_hash(r->job);
	v->kernel_name = tune_job_kernel_name(r->job);
}

/*
 * What the strategy minimises: the objective's value, negated where it is
 * maximised; INFINITY for an evaluation that did not end "ok" (from a
 * result, or from the time the database recorded).
 */
static double cost_of(const struct run *r, const struct tune_variant *v, int status, double time_ms)
{
	if (status != TUNE_OK || !isfinite(time_ms) || time_ms <= 0)
		return INFINITY;
	double value = time_ms;
	if (r->metric >= 0 && r->metric < v->nmetrics)
		value = v->metrics[r->metric].per_run / (time_ms * 1e-3) * 1e-9;
	return r->o->maximize ? -value : value;
}

static int record(struct run *r, size_t point, const struct tune_variant *v,
                  const struct tune_result *res)
{
	if (r->db && tune_db_append(r->db, &r->info, v, res) != 0) {
		progress_break(&r->progress);
		fprintf(r->o->err, "spacetune: error: %s: cannot write: %s\n", r->o->db_path,
		        strerror(errno));
		return -1;
	}
	double cost = cost_of(r, v, (int)res->status, res->time_median_ms);
	progress_count(&r->progress, (long)point, (int)res->status, cost, res->time_median_ms);
	trace_line(r, point, (int)res->status, cost);
	tune_search_report(&r->search, view_point(&r->view, point), cost);
	if (r->o->kernel_s && res->runs > 0 && res->time_median_ms > 0)
		*r->o->kernel_s += res->runs * res->time_median_ms * 1e-3;
	return 0;
}

/* A configuration the replayed database lacks: counted, listed, and a
 * failure to the strategy (it must hear back), but never recorded. */
static void replay_missing(struct run *r, size_t point)
{
	size_t max = sizeof r->missing_listed / sizeof *r->missing_listed;
	if (r->missing < max)
		r->missing_listed[r->missing] = point;
	if (r->missing++ == 0) {
		progress_break(&r->progress);
		fprintf(r->o->err, "spacetune: warning: %s has no record of configuration %zu (and "
		        "maybe others: see the summary); not evaluated\n", r->o->eval.replay, point);
	}
	progress_count(&r->progress, (long)point, NSTATUS, INFINITY, INFINITY);
	trace_line(r, point, MISSING, INFINITY);
	tune_search_report(&r->search, view_point(&r->view, point), INFINITY);
}

/* Hands one proposed point (the job's index) to the evaluator, or settles it at once. */
static int dispatch(struct run *r, size_t point)
{
	struct tune_variant v;
	const char *why = NULL;
	int launchable = tune_job_variant(r->job, point, &v, &why);
	if (launchable != 0)
		identify(r, point, &v);
	double known;
	int known_status;
	if (r->db &&
	    tune_db_lookup(r->db, &r->info, tune_job_source_hash(r->job), &v, &known, &known_status)) {
		if (r->ev)
			tune_evaluator_observe(r->ev, known);  /* INFINITY unless ok */
		r->progress.reused++;
		double cost = cost_of(r, &v, known_status, known);
		progress_count(&r->progress, (long)point, known_status < 0 ? NSTATUS : known_status, cost,
		               known);
		trace_line(r, point, known_status < 0 ? NSTATUS : known_status, cost);
		tune_search_report(&r->search, view_point(&r->view, point), cost);
		return 0;
	}
	if (r->replay) {
		/* What the device did, recorded, even for a point the job cannot
		 * launch (the record says how it was skipped). */
		int rc = tune_replay_submit(r->replay, &v);
		if (rc == 0) {
			r->inflight++;
			return 0;
		}
		if (rc > 0 && launchable == 0) {
			replay_missing(r, point);
			return 0;
		}
		if (rc < 0) {
			progress_break(&r->progress);
			fprintf(r->o->err, "spacetune: error: the replay refused a configuration\n");
			return -1;
		}
	}
	if (launchable != 0) {
		/* Recorded, so a resumed run skips it too and the count adds up. */
		struct tune_result res = { .status = TUNE_SKIPPED,
		                           .error = (char *)(why ? why : "cannot be launched") };
		return record(r, point, &v, &res);
	}
	if (tune_evaluator_submit(r->ev, &v) != 0) {
		progress_break(&r->progress);
		fprintf(r->o->err, "spacetune: error: the evaluator refused a configuration\n");
		return -1;
	}
	r->inflight++;
	return 0;
}

/* 0, -1 on an error (reported), 1 when interrupted with evaluations still in flight. */
static int collect(struct run *r)
{
	struct tune_result res;
	memset(&res, 0, sizeof res);
	long point = r->replay ? tune_replay_wait_any(r->replay, &res) : tune_evaluator_wait_any(r->ev, &res);
	if (point == TUNE_EVAL_ABANDONED)
		return 1;
	if (point < 0) {
		progress_break(&r->progress);
		fprintf(r->o->err, "spacetune: error: lost track of the evaluations in flight\n");
		r->inflight = 0;
		return -1;
	}
	r->inflight--;
	struct tune_variant v;
	const char *why;
	if (tune_job_variant(r->job, (size_t)point, &v, &why) != 0)
		identify(r, (size_t)point, &v);  /* a replayed record of a skip */
	int rc = record(r, (size_t)point, &v, &res);
	tune_result_release(&res);
	return rc;
}

static int search_loop(struct run *r)
{
	const struct tune_run_opts *o = r->o;
	size_t capacity = o->eval.jobs > 0 ? (size_t)o->eval.jobs : 1;
	for (;;) {
		double elapsed = run_clock(r);
		while (!*o->interrupted && r->inflight < capacity) {
			size_t point;
			if (tune_search_next(&r->search, elapsed, &point, 1) == 0)
				break;
			if (dispatch(r, job_point(&r->view, point)) != 0)
				return -1;
		}
		progress_print(&r->progress, r->search.seconds, false);
		if (r->inflight == 0)
			break;
		int rc = collect(r);
		if (rc != 0)
			return rc < 0 ? -1 : 0;
	}
	return 0;
}

static void print_summary(struct run *r, double elapsed)
{
	const struct progress *p = &r->progress;
	FILE *out = r->o->out;
	size_t evaluated = p->done - p->reused;
	fprintf(out, "%s: %zu configurations", tune_job_name(r->job), p->done);
	if (p->reused)
		fprintf(out, " (%zu already in %s)", p->reused, r->o->db_path);
	if (r->replay)
		fprintf(out, ", %zu replayed from %s in %.1f s of %s's recorded time (%.2f s real)\n",
		        evaluated - r->missing, r->o->eval.replay, elapsed, r->info.name,
		        now_s() - p->start);
	else
		fprintf(out, ", %zu evaluated in %.1f s on %s\n", evaluated, elapsed, r->info.name);
	if (r->missing) {
		size_t max = sizeof r->missing_listed / sizeof *r->missing_listed;
		fprintf(out, "missing: %zu configuration%s not in %s, not evaluated (failures to the "
		        "strategy):", r->missing, r->missing == 1 ? "" : "s", r->o->eval.replay);
		for (size_t i = 0; i < r->missing && i < max; i++) {
			fprintf(out, "%s point %zu", i ? ";" : "", r->missing_listed[i]);
			int np = tune_job_nparams(r->job);
			for (int k = 0; k < np; k++)
				fprintf(out, " %s=%.17g", tune_job_param_name(r->job, k),
				        tune_job_point_value(r->job, r->missing_listed[i], k));
		}
		fputs(r->missing > max ? "; ...\n" : "\n", out);
	}
	fprintf(out, "status:");
	for (int s = 0; s < NSTATUS; s++)
		if (p->by_status[s])
			fprintf(out, " %s %zu", tune_status_name((enum tune_status)s), p->by_status[s]);
	fputc('\n', out);
	if (p->best_point < 0) {
		fprintf(out, "best: none (no configuration ran correctly)\n");
		return;
	}
	struct tune_variant v;
	const char *why;
	if (tune_job_variant(r->job, (size_t)p->best_point, &v, &why) != 0)
		return;
	double ms = p->best_time_ms;
	fprintf(out, "best: %.4g ms", ms);
	for (int m = 0; m < v.nmetrics; m++)
		fprintf(out, ", %s %.4g", v.metrics[m].name, v.metrics[m].per_run / (ms * 1e-3) * 1e-9);
	fprintf(out, " (objective %s:%s)\n", r->o->maximize ? "max" : "min",
	        r->metric >= 0 ? r->o->objective_metric : "time");
	for (int i = 0; i < v.nparams; i++)
		fprintf(out, "%s%s=%s", i ? " " : "  ", v.param_names[i], v.param_values[i]);
	if (v.nparams)
		fputc('\n', out);
}

/* Reads the device of the chosen backend once; -1 after saying why. */
static int read_device(struct run *r)
{
	if (r->props || r->device_failed)
		return r->props ? 0 : -1;
	struct tune_run_keep *k = r->o->keep;
	if (k && k->props && keep_same_device(k, r)) {
		r->props = k->props;
		k->props = NULL;
		return 0;
	}
	char *err = NULL;
	progress_phase(r->progress.line, "reading the device", 0);
	if (tune_device_props_read(&r->eval.device, &r->props, &err) != 0) {
		progress_break(&r->progress);
		fprintf(r->o->err, "spacetune: error: %s (see 'spacetune devices')\n",
		        err ? err : "no device");
		free(err);
		r->device_failed = true;
		return -1;
	}
	return 0;
}

/* In a replay there is no device: every query keeps its default. */
static int query_device(void *user, const char *query, int64_t *value)
{
	struct run *r = user;
	if (r->eval.replay)
		return 1;
	if (read_device(r) != 0)
		return -1;
	return tune_device_props_get(r->props, query, value);
}

/* The job's kernel file: the backend, unless --backend chose one. */
static int kernel_file(void *user, const char *path)
{
	struct run *r = user;
	if (!r->eval.device.backend)
		r->eval.device.backend = dev_backend_of_path(path);
	return r->eval.replay ? 0 : read_device(r);
}

static int recorded_view(struct run *r);

/* The evaluator: the last problem's, restarted with this one's arguments
 * where it is of the same device (run.h: keep), else a new one. */
static int start_evaluator(struct run *r, const struct tune_variant *proto, char **err)
{
	struct tune_run_keep *k = r->o->keep;
	const struct tune_reference *ref = tune_job_reference(r->job);
	if (k && k->ev) {
		struct tune_evaluator *ev = k->ev;
		k->ev = NULL;
		/* 1: of another device (the evaluator checks the selection) */
		int rc = tune_evaluator_restart(ev, &r->eval, ref, proto, &r->info, err);
		if (rc == 0)
			fprintf(r->o->err, "spacetune: the evaluator's workers kept from the last problem\n");
		if (rc <= 0) {
			r->ev = rc == 0 ? ev : NULL;
			return rc;
		}
		tune_evaluator_stop(ev);  /* of another device: it goes before this one starts */
	}
	return tune_evaluator_start(&r->ev, &r->eval, ref, proto, &r->info, err);
}

/* SPACETUNE_TRACE_LOCK: a start's phases on stderr, timestamped like the
 * device lock's trace (tuner/worker.c), to see where a start goes. */
static void trace_phase(const char *what)
{
	if (tune_trace_on())
		fprintf(stderr, "spacetune-phase %ld %s %.9f\n", (long)getpid(), what, now_s());
}

static int start(struct run *r)
{
	const struct tune_run_opts *o = r->o;
	char *err = NULL;
	/* The device is read as the job names its kernel (the backend follows
	 * the kernel file), before the job's `query(...)` parameters are
	 * bound from it. */
	r->eval = o->eval;
	struct tune_job_opts jo = {
		.space_path = o->space_path, .nsets = o->nsets, .sets = o->sets,
		.query = query_device, .query_user = r, .diag = o->err, .kernel_file = kernel_file,
		.compiler = o->compiler,
	};
	int rc = 0;
	if (o->keep) {
		struct tune_run_keep *k = o->keep;
		if (!(r->keep_id = keep_id(o)) || !k->id || strcmp(k->id, r->keep_id) != 0) {
			/* another problem's: the device's part may serve (read_device,
			 * start_evaluator) */
			keep_clear_problem(k);
		} else {
			r->job = k->job;
			r->props = k->props;
			r->ev = k->ev;
			r->replay = k->replay;
			r->info = k->info;
			r->eval.device.backend = k->backend;
			free(k->id);
			free(k->device);
			*k = (struct tune_run_keep){ .id = NULL };
			if (r->replay)
				tune_replay_restart(r->replay);
			fprintf(o->err, "spacetune: the problem's job and %s kept from the last run\n",
			        r->replay ? "replay" : "evaluator");
		}
	}
	progress_phase(r->progress.line, "loading the space", 0);
	trace_phase("load");
	if (!r->job)
		rc = tune_job_load(&jo, &r->job);
	trace_phase("loaded");
	if (rc == 0 && !o->eval.replay && read_device(r) != 0) {
		tune_job_free(r->job);
		r->job = NULL;
		rc = 1;
	}
	if (rc != 0) {
		/* rc > 0: a user error, already diagnosed */
		if (rc < 0) {
			progress_break(&r->progress);
			fprintf(o->err, "spacetune: error: out of memory loading '%s'\n", o->space_path);
		}
		return -1;
	}
	size_t n = tune_job_npoints(r->job);
	size_t np = (size_t)tune_job_nparams(r->job);
	r->names = calloc(np + 1, sizeof *r->names);
	r->texts = calloc(np + 1, sizeof *r->texts);
	r->text_buf = calloc(np + 1, sizeof *r->text_buf);
	if (!r->names || !r->texts || !r->text_buf) {
		progress_break(&r->progress);
		fprintf(o->err, "spacetune: error: out of memory\n");
		return -1;
	}
	/* The evaluator needs one launchable variant as the prototype of the
	 * arguments (buffers do not depend on the point). */
	struct tune_variant proto;
	const char *why = NULL;
	size_t first = 0;
	while (first < n && tune_job_variant(r->job, first, &proto, &why) != 0)
		first++;
	if (first == n) {
		progress_break(&r->progress);
		fprintf(o->err, "%s: error: no configuration of the space can be launched%s%s\n",
		        o->space_path, why ? ": " : "", why ? why : "");
		return -1;
	}
	r->metric = -1;
	for (int m = 0; o->objective_metric && m < proto.nmetrics; m++)
		if (strcmp(proto.metrics[m].name, o->objective_metric) == 0)
			r->metric = m;
	if (o->objective_metric && r->metric < 0) {
		progress_break(&r->progress);
		fprintf(o->err, "%s: error: --objective '%s' is neither 'time' nor a metric of the tune section",
		        o->space_path, o->objective_metric);
		for (int m = 0; m < proto.nmetrics; m++)
			fprintf(o->err, "%s%s", m ? ", " : " (its metrics: ", proto.metrics[m].name);
		fputs(proto.nmetrics ? ")\n" : "; it has no 'metric' line)\n", o->err);
		return -1;
	}
	if (o->eval.replay && !r->replay) {
		progress_phase(r->progress.line, "reading the recorded database", 0);
		struct tune_replay_opts ro = {
			.path = o->eval.replay, .space = tune_job_name(r->job), .problem = o->problem,
			.device = o->eval.device.device, .source_hash = tune_job_source_hash(r->job),
			.jobs = o->eval.jobs, .warmup = o->eval.warmup, .sleep = o->eval.replay_sleep,
			.device_lock = o->eval.replay_lock, .err = o->err,
		};
		if (tune_replay_open(&r->replay, &ro, &err) != 0) {
			progress_break(&r->progress);
			fprintf(o->err, "spacetune: error: %s\n", err ? err : "out of memory");
			free(err);
			return -1;
		}
		r->info = *tune_replay_device(r->replay);
	} else if (!o->eval.replay && !r->ev) {
		progress_phase(r->progress.line, "starting the workers and the reference", 0);
	}
	trace_phase("evaluator");
	if (!o->eval.replay && !r->ev && start_evaluator(r, &proto, &err) != 0) {
		progress_break(&r->progress);
		if (*o->interrupted)
			fprintf(o->err, "spacetune: %s; nothing was recorded\n", err ? err : "interrupted");
		else
			fprintf(o->err, "spacetune: error: %s\n", err ? err : "cannot start the evaluator");
		free(err);
		r->ev = NULL;
		return -1;
	}
	trace_phase("started");
	if (o->db_path && tune_db_open(&r->db, o->db_path, &err) != 0) {
		progress_break(&r->progress);
		fprintf(o->err, "spacetune: error: %s\n", err ? err : o->db_path);
		free(err);
		return -1;
	}
	char objective[300];
	snprintf(objective, sizeof objective, "%s:%s", o->maximize ? "max" : "min",
	         o->objective_metric ? o->objective_metric : "time");
	if (r->db && (tune_db_set_space(r->db, tune_job_name(r->job)) != 0 ||
	              tune_db_set_run(r->db, o->problem, objective) != 0))
		return -1;
	/* Appended: a --set list's problems share one trace, each search with
	 * its header (begin_search). */
	if (o->trace_path && !(r->trace = fopen(o->trace_path, "a"))) {
		progress_break(&r->progress);
		fprintf(o->err, "spacetune: error: %s: cannot write: %s\n", o->trace_path,
		        strerror(errno));
		return -1;
	}
	r->progress.unit = r->metric >= 0 ? o->objective_metric : "ms";
	r->progress.negate = o->maximize;
	r->also = o->also_view;
	if (r->db && o->nalso_dbs > 0 && !r->also && !(r->also = r->own_also = tune_db_also_new())) {
		progress_break(&r->progress);
		fprintf(o->err, "spacetune: error: out of memory\n");
		return -1;
	}
	for (int i = 0; r->db && i < o->nalso_dbs; i++)
		if (tune_db_also_read(r->also, o->also_dbs[i], &err) != 0) {
			progress_break(&r->progress);
			fprintf(o->err, "spacetune: error: %s\n", err ? err : o->also_dbs[i]);
			free(err);
			return -1;
		}
	if (r->db && r->also)
		tune_db_use_also(r->db, r->also);
	r->view = (struct view){ .job = r->job, .lo = 0, .n = n };
	if (o->replay_recorded && recorded_view(r) != 0)
		return -1;
	struct tune_budget budget = o->budget;
	const char *strategy = o->strategy;
	/*
	 * auto, the default: where nothing limits the search (no budget, or
	 * one that covers the space) every point; otherwise bo, which reached
	 * >= 95% of the optimum within 2% of every recorded dataset and beat
	 * every Kernel Tuner strategy at every budget (bench/search), on a
	 * space of any size (sparse mode beyond TUNE_DENSE_MAX points).
	 */
	if (strcmp(strategy, "auto") == 0)
		strategy = budget.kind == TUNE_BUDGET_SECONDS || tune_budget_evals(&budget, r->view.n) < r->view.n
		                   ? "bo"
		                   : "exhaustive";
	if (o->nchunks > 1) {
		bool random = strcmp(strategy, "random") == 0;
		if ((!random && strcmp(strategy, "exhaustive") != 0) || budget.kind == TUNE_BUDGET_SECONDS ||
		    o->replay_recorded) {
			progress_break(&r->progress);
			fprintf(o->err, "spacetune: error: only an exhaustive or random search under an evaluation "
			        "budget can be cut into chunks\n");
			return -1;
		}
		size_t planned = tune_budget_evals(&budget, n);
		int end = o->chunk + (o->chunks > 1 ? o->chunks : 1);
		if (end > o->nchunks)
			end = o->nchunks;
		r->view.lo = planned * (size_t)o->chunk / (size_t)o->nchunks;
		r->view.n = planned * (size_t)end / (size_t)o->nchunks - r->view.lo;
		budget = (struct tune_budget){ TUNE_BUDGET_EVALS, (double)r->view.n };
		if (random && random_chunk(&r->view, n, planned, o->seed) != 0) {
			progress_break(&r->progress);
			fprintf(o->err, "spacetune: error: out of memory\n");
			return -1;
		}
		/* the chunk's points, in the order the view gives them */
		strategy = "exhaustive";
	}
	r->budget = budget;
	r->strategy_name = strategy;
	r->space = (struct tune_space){ r->view.n, tune_job_nparams(r->job), &r->view, job_value,
	                                job_values, job_find };
	/* bfs: one level per kernel annotation (job.h), after the others */
	r->nstages = tune_job_stages(r->job, &r->stages);
	if (r->nstages < 0) {
		progress_break(&r->progress);
		fprintf(o->err, "spacetune: error: out of memory\n");
		return -1;
	}
	return 0;
}

/*
 * --replay-recorded: the view of the job's points that the replayed
 * database records, in the job's order, with their parameters' values.
 * Each point's identity is the one dispatch() would look up.  0, or -1
 * after saying why.
 */
static int recorded_view(struct run *r)
{
	size_t n = tune_job_npoints(r->job), k = 0;
	const char *why = NULL;
	if (n > TUNE_DENSE_MAX) {
		progress_break(&r->progress);
		fprintf(r->o->err, "spacetune: error: --replay-recorded looks up every point of the space, "
		        "and this one has %zu, too many to list\n", n);
		return -1;
	}
	size_t *map = malloc((n + 1) * sizeof *map);
	if (!map)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		struct tune_variant v;
		if (tune_job_variant(r->job, i, &v, &why) != 0)
			identify(r, i, &v);
		if (tune_replay_has(r->replay, &v))
			map[k++] = i;
	}
	r->view.map = map;
	r->view.n = k;
	r->view.sorted = true;
	if (k == 0) {
		progress_break(&r->progress);
		fprintf(r->o->err, "spacetune: error: %s records none of the space's %zu configurations\n",
		        r->o->eval.replay, n);
		return -1;
	}
	if (view_values(&r->view) == 0)
		return 0;
oom:
	progress_break(&r->progress);
	fprintf(r->o->err, "spacetune: error: out of memory\n");
	return -1;
}

/* One search's strategy, budget and trace header: 0, or -1 after saying why. */
static int begin_search(struct run *r, uint64_t seed)
{
	const struct tune_run_opts *o = r->o;
	struct tune_strategy_opts so = {
		.seed = seed, .budget = tune_budget_evals(&r->budget, r->view.n), .batch = o->eval.jobs,
		.nstages = r->nstages, .stages = r->stages,
		.bfs_filters = o->bfs_filters, .bfs_tolerance = o->bfs_tolerance, .bfs_number = o->bfs_number,
	};
	int rc = tune_strategy_new(&r->strategy, r->strategy_name, &r->space, &so);
	if (rc != 0) {
		progress_break(&r->progress);
		fprintf(o->err, rc > 0 ? "spacetune: error: unknown strategy '%s'\n"
		                       : "spacetune: error: out of memory (strategy '%s')\n", o->strategy);
		return -1;
	}
	tune_search_init(&r->search, r->strategy, &r->budget, r->view.n);
	if (r->trace)
		fprintf(r->trace, "# %s %s seed %llu problem '%s'\neval,clock_s,point,status,cost,best\n",
		        tune_job_name(r->job), o->strategy, (unsigned long long)seed,
		        o->problem ? o->problem : "");
	return 0;
}

/* Another seed's search on the same job and replay: nothing carried over. */
static void rewind_search(struct run *r)
{
	tune_strategy_free(r->strategy);
	r->strategy = NULL;
	if (r->replay)
		tune_replay_restart(r->replay);
	struct progress *p = &r->progress;
	p->done = p->reused = 0;
	memset(p->by_status, 0, sizeof p->by_status);
	p->best_ms = p->best_time_ms = INFINITY;
	p->best_point = -1;
	r->missing = 0;
}

/* --seeds: one line per search instead of the summary. */
static void print_seed_line(struct run *r, uint64_t seed)
{
	const struct progress *p = &r->progress;
	fprintf(r->o->out, "seed %llu: %zu configurations in %.1f s", (unsigned long long)seed, p->done,
	        run_clock(r));
	if (r->missing)
		fprintf(r->o->out, ", %zu missing", r->missing);
	if (p->best_point < 0)
		fputs(", best: none\n", r->o->out);
	else
		fprintf(r->o->out, ", best: %.6g ms at point %zu\n", p->best_time_ms,
		        job_point(&r->view, view_point(&r->view, (size_t)p->best_point)));
}

int tune_run(const struct tune_run_opts *o)
{
	struct run r = { .o = o, .status = 0 };
	r.progress = (struct progress){ .err = o->err, .live = o->live_progress && !o->no_progress,
	                                .quiet = o->no_progress, .best_ms = INFINITY,
	                                .best_time_ms = INFINITY, .best_point = -1,
	                                .unit = "ms", .o = o };
	r.progress.line = progress_open(r.progress.live);
	uint64_t last = o->seed_last > o->seed ? o->seed_last : o->seed;
	bool several = last > o->seed;
	if (start(&r) != 0) {
		/* Stopped while loading or computing the reference: nothing was recorded. */
		r.status = *o->interrupted ? 130 : 1;
	} else {
		for (uint64_t seed = o->seed;; seed++) {
			if (seed > o->seed)
				rewind_search(&r);
			if (begin_search(&r, seed) != 0) {
				r.status = 1;
				break;
			}
			r.progress.start = r.progress.last_print = now_s();
			r.progress.planned = r.search.planned;
			progress_phase(r.progress.line, "tuning", 0);
			progress_update(r.progress.line, -1, "building the first variants");
			if (search_loop(&r) != 0)
				r.status = 1;
			/* Whatever happened, what is in flight is drained so no worker is
			 * left; after an interruption only for a moment (the evaluator
			 * abandons the rest, unrecorded, so a rerun evaluates them). */
			while (r.inflight > 0 && collect(&r) == 0)
				;
			if (several) {
				print_seed_line(&r, seed);
			} else {
				progress_close(r.progress.line);
				r.progress.line = NULL;
				progress_print(&r.progress, r.search.seconds, true);
				print_summary(&r, run_clock(&r));
			}
			if (o->best)
				*o->best = best_value(&r.progress);
			if (r.status != 0 || *o->interrupted || seed >= last)
				break;
		}
		if (r.status == 0 && *o->interrupted) {
			if (r.inflight > 0)
				fprintf(o->err, "spacetune: %zu evaluation%s in flight abandoned, not recorded\n",
				        r.inflight, r.inflight == 1 ? "" : "s");
			fprintf(o->err, "spacetune: interrupted; run the same command again to resume\n");
			r.status = 130;
		}
	}
	progress_close(r.progress.line);
	tune_strategy_free(r.strategy);
	free(r.stages);
	tune_db_close(r.db);
	tune_db_also_free(r.own_also);
	if (o->keep && r.keep_id && r.status == 0 && r.inflight == 0 && !*o->interrupted && r.job &&
	    (r.ev || r.replay)) {
		/* For the next chunk of this problem, or the next problem (run.h);
		 * what this run did not take of the last one's goes */
		keep_clear(o->keep);
		*o->keep = (struct tune_run_keep){ r.keep_id, r.job, r.props, r.ev, r.replay, r.info,
		                                   r.eval.device.backend, device_id(&r.eval) };
		r.keep_id = NULL;
		r.job = NULL;
		r.props = NULL;
		r.ev = NULL;
		r.replay = NULL;
	}
	free(r.keep_id);
	tune_replay_close(r.replay);
	if (r.trace && fclose(r.trace) != 0 && r.status == 0) {
		fprintf(o->err, "spacetune: error: %s: cannot write: %s\n", o->trace_path, strerror(errno));
		r.status = 1;
	}
	if (r.ev)
		tune_evaluator_stop(r.ev);
	view_release(&r.view);
	tune_job_free(r.job);
	tune_device_props_free(r.props);
	free(r.names);
	free(r.texts);
	free(r.text_buf);
	return r.status;
}
