/*
 * par.c - multithreaded and sharded enumeration.
 *
 * The generated loop nest calls sprt_par_enter(ctx, k) in the loops at
 * levels k <= ctx->par_level once the level's own checks accepted an
 * iteration (nonzero skips the deeper levels), and sprt_par_leave(ctx, k)
 * when an iteration is over (at the top of the next one, and after the
 * loop).  Everything here is built on two facts:
 *
 *   - the walk is deterministic, so every walker numbers the iterations
 *     that reach a hook at level k identically (their ordinals);
 *   - skipping an iteration at a hook skips exactly its subtree.
 *
 * Tasks.  Every worker thread walks the levels above the split level D
 * itself (cheap: few iterations) and meets the same sequence of D-level
 * iterations, the tasks, numbered 0, 1, 2, ...  Task ordinals are handed
 * out dynamically in small chunks from one atomic counter: a worker runs
 * the subtree of a task only if its chunk holds the ordinal, and skips it
 * otherwise.  A worker that draws a chunk past the last task stops.
 *
 * The split level is chosen by counting walks (the walk with every
 * iteration at level d skipped, which counts the tasks at d, and which
 * weighs each task at d by its children at d + 1): the shallowest d with
 * at least 64 tasks per thread whose largest task holds at most 1/(4T)
 * of the children.  So an outer value holding 90% of the space is split
 * further down, not handed to one thread.  A walk to d + 1 over enough
 * tasks at d is itself shared out among the threads as a run is
 * (walk_parallel): the same counts, weights and statistics, a fraction of
 * the time (gemm_beast's H100 plan on 16 cores: 0.112 s to 0.026 s).
 *
 * Statistics.  Each worker counts the definitions it evaluates inside its
 * tasks in its own array; everything outside tasks (the shared walk) is
 * counted once, by the counting walk at the split level, which is exactly
 * that walk.  Totals are the sum, identical for every thread count.
 *
 * Shards.  --shard I/N cuts the tasks of a level Ds (chosen the same way
 * for N parts, independent of the thread count) into 16 N contiguous
 * blocks of equal weight and deals them out round-robin; a task's weight
 * is 1 + its descendants at the deepest level reached while each counting
 * walk visits at most REFINE_CANDIDATES candidates.  Every number used is
 * a count, never a time, so each shard computes the same cut on any
 * machine.  A shard walks the levels down to Ds like everyone else, skips
 * the other shards' tasks, and splits its own among its threads as
 * above.  The shared walk is counted
 * in shard 0 only, so the statistics of the N shards add up to the whole.
 *
 * Output.  Each worker encodes its points into a buffer of its own (a
 * child sink).  Unordered, a full buffer is appended to the output whole
 * under the sink's lock.  With --ordered, the points of a chunk are
 * written only once every earlier chunk is: a finished chunk waits in a
 * reorder queue; the worker holding the oldest unwritten chunk streams it
 * directly; a worker whose buffer or the queue grows past a bound waits
 * until its chunk is the oldest (that worker never waits, so this cannot
 * deadlock).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "spacert.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Tasks per thread wanted at the split level, and the largest share of
 * the children one task may hold: 1 / (BALANCE * parts). */
#define TASKS_PER_PART 64
#define BALANCE 4
/* Chunks of tasks: each 1 / (GUIDE * threads) of the weight left (job_tasks). */
#define GUIDE 4
#define MAX_CHUNK_TASKS 4096
/* Counting walks give up past this many tasks at their level. */
#define WALK_CAP (UINT64_C(1) << 22)
/* Shard weights come from the deepest walk reached while each walk
 * visits at most this many candidates (a count, so every shard agrees). */
#define REFINE_CANDIDATES (UINT64_C(1) << 15)
/* Blocks of tasks per shard, dealt out round-robin. */
#define BLOCKS 16
/* A worker hands its buffer over every FLUSH_ROWS points ... */
#define FLUSH_ROWS 1024
/* ... and, ordered, holds at most HOLD_BYTES while not at the head, with
 * at most QUEUE_BYTES in finished chunks waiting for their turn. */
#define HOLD_BYTES ((size_t)16 << 20)
/* Unordered, a worker's buffer goes out once it holds this much. */
#define HANDOVER_BYTES ((size_t)256 << 10)
#define QUEUE_BYTES ((size_t)64 << 20)
#define MAX_THREADS 1024
/* The calling thread enumerates alone this long before the other threads
 * start: a space done by then never pays for them.  Starting a thread
 * and waiting for it costs 0.1 ms on an idle machine and several ms on a
 * loaded one (a 1,200-point count: 0.25 ms on 1 thread, 8 ms on 2). */
#define LAZY_START_S 0.002

struct par_job;
struct walk;

/* A shard's tasks at its level: ordinal o is its own where o < n and mine[o]. */
struct shard {
	int level;                   /* -1: no shard, everything is its own */
	uint64_t n;
	unsigned char *mine;
	uint64_t own;                /* how many are its own */
};

/* One walker: a counting walk, or a worker thread. */
struct sprt_par {
	/* Workers sit side by side: a cache line of their own each. */
	_Alignas(64) struct par_job *job; /* NULL in a counting walk */
	struct sprt_ctx *ctx;
	uint64_t seen[SPRT_PAR_LEVELS]; /* iterations that reached each level's hook */
	/* The shard: other shards' ordinals at filter_level are skipped. */
	int filter_level;
	const struct shard *filter;
	/* Counting walk: iterations reaching stop_level are counted (and
	 * credited to the current ordinal at weight_level) and skipped. */
	int stop_level;
	uint64_t count, cap;
	bool capped;
	int weight_level;
	uint64_t *weights;
	size_t nweights, wcap;
	bool nomem;
	/* Worker: tasks at split_level, its chunk [lo, hi) of them. */
	int split_level;
	uint64_t tasks_seen;
	uint64_t chunk, lo, hi;
	bool have_chunk;
	bool in_task;
	bool walked_out;             /* stopped after drawing past the last chunk */
	/* Worker statistics: inside tasks (kept) and outside (dropped). */
	struct sprt_def_stats *walk_stats, *task_stats;
	uint64_t saved_valid, saved_cand, task_valid, task_cand;
	/* Worker output. */
	struct sprt_sink *child;
	sprt_point_fn child_fn;
	sprt_ints_fn child_ints;
	uint64_t rows;
	uint64_t tasks_run, pub_tasks, pub_cand, pub_valid;
	double busy;                 /* seconds inside tasks (verbose only) */
	int err;
	pthread_t tid;
	struct sprt_ctx own_ctx;
	/* A walk of runtime/access.c: the hooks are its, nothing else here. */
	struct sprt_access_walk_ *access;
};

struct par_job {
	struct sprt_ctx *main;
	struct sprt_sink *sink;      /* NULL: the caller's ctx->emit, under `lock` */
	bool ordered;
	bool verbose;                /* SPACERT_PAR_VERBOSE: the plan and the work, on stderr */
	int nthreads;
	int split_level;
	struct shard shard;
	uint64_t ntasks, nchunks;
	uint64_t *chunk_lo;          /* chunk c is tasks [chunk_lo[c], chunk_lo[c + 1]) */
	atomic_uint_fast64_t next_chunk;
	atomic_uint_fast64_t tasks_done;
	atomic_bool stop;
	atomic_int err;
	/* Ordered output and the caller's callback. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t next_write;         /* the oldest chunk not yet written */
	struct sprt_sink_block **queue; /* finished, unwritten chunks by number */
	size_t queue_bytes;
	/* Progress. */
	pthread_mutex_t done_lock;
	pthread_cond_t done_cond;
	int running;
	double last_tick;            /* the calling thread's last draw, as a worker */
	/* Lazy start: the calling thread works first (ws[nthreads - 1]);
	 * the others start once it has worked LAZY_START_S (spawn_at). */
	struct sprt_par *ws;
	double spawn_at;
	bool spawned;
	int started;
	atomic_uint_fast64_t pub_cand, pub_valid;
	/* A counting walk shared out by the workers (walk_parallel): the
	 * level whose iterations it counts (-1: a real run), each worker's
	 * cap, and where the sums go. */
	int walk_stop;
	uint64_t walk_cap;
	struct walk *walk_out;
	/* The tasks under each iteration at split_level - 1, by its ordinal
	 * (the planner's walk; NULL: unknown), for fast_forward. */
	const uint64_t *parent_tasks;
	size_t nparents;
};

/* ---- the hooks ----------------------------------------------------------------------------- */

static void task_begin(struct sprt_par *w)
{
	struct sprt_ctx *ctx = w->ctx;
	w->saved_valid = ctx->valid;
	w->saved_cand = ctx->candidates;
	ctx->stats = w->task_stats;
	w->in_task = true;
}

static void task_end(struct sprt_par *w)
{
	struct sprt_ctx *ctx = w->ctx;
	w->in_task = false;
	uint64_t dv = ctx->valid - w->saved_valid, dc = ctx->candidates - w->saved_cand;
	w->task_valid += dv;
	w->task_cand += dc;
	ctx->valid = w->saved_valid;
	ctx->candidates = w->saved_cand;
	ctx->stats = w->walk_stats;
	w->tasks_run++;
}

/* Makes the worker's progress visible to the progress line (per chunk:
 * shared counters touched per task would make tiny tasks contend). */
static void publish(struct sprt_par *w)
{
	struct par_job *job = w->job;
	atomic_fetch_add_explicit(&job->tasks_done, w->tasks_run - w->pub_tasks, memory_order_relaxed);
	atomic_fetch_add_explicit(&job->pub_cand, w->task_cand - w->pub_cand, memory_order_relaxed);
	atomic_fetch_add_explicit(&job->pub_valid, w->task_valid - w->pub_valid, memory_order_relaxed);
	w->pub_tasks = w->tasks_run;
	w->pub_cand = w->task_cand;
	w->pub_valid = w->task_valid;
}

static void finish_chunk(struct sprt_par *w);

/* Whether the worker may run task `o`, drawing chunks as it goes. */
static bool claim(struct sprt_par *w, uint64_t o)
{
	struct par_job *job = w->job;
	if (!w->have_chunk || o >= w->hi) {
		if (w->have_chunk)
			finish_chunk(w);
		publish(w);
		uint64_t c = atomic_fetch_add_explicit(&job->next_chunk, 1, memory_order_relaxed);
		w->have_chunk = c < job->nchunks;
		if (!w->have_chunk) {
			/* Nothing left for anyone: stop walking. */
			w->walked_out = true;
			w->ctx->stop = true;
			return false;
		}
		w->chunk = c;
		w->lo = job->chunk_lo[c];
		w->hi = job->chunk_lo[c + 1];
	}
	return o >= w->lo;
}

/*
 * At a parent of the tasks (level D - 1, ordinal o): one whose tasks all
 * lie before the worker's chunk, or that has none, is skipped whole, the
 * task numbering going on as if the worker had walked it (the planner
 * counted them).  A worker otherwise re-walks every parent and checks
 * every task at D only to skip it: on the device's 16 cores, about 6% of
 * each worker's time for gemm_beast's H100 count.  Nonzero: skip.
 */
static int fast_forward(struct sprt_par *w, uint64_t o)
{
	const struct par_job *job = w->job;
	uint64_t n = o < job->nparents ? job->parent_tasks[o] : 0;
	uint64_t t = w->tasks_seen;
	if (n > 0) {
		claim(w, t); /* the chunk task t falls in, or a later one */
		if (!w->have_chunk)
			return 1; /* none left: claim ended the walk */
		if (t + n > w->lo)
			return 0; /* some of them may be this worker's */
	}
	w->tasks_seen += n;
	w->seen[w->split_level] += n;
	return 1;
}

static void lazy_tick(struct par_job *job);

int sprt_par_enter(struct sprt_ctx *ctx, int k)
{
	struct sprt_par *w = ctx->par;
	if (!w || k < 0 || k >= SPRT_PAR_LEVELS)
		return 0;
	if (w->access)
		return sprt_access_enter_(ctx, w->access, k);
	uint64_t o = w->seen[k]++;
	if (k == w->filter_level && (o >= w->filter->n || !w->filter->mine[o]))
		return 1;
	if (k == w->stop_level) {
		w->count++;
		if (w->weight_level >= 0) {
			size_t i = (size_t)(w->seen[w->weight_level] - 1);
			if (i >= w->wcap) {
				size_t cap = w->wcap ? w->wcap * 2 : 1024;
				while (cap <= i)
					cap *= 2;
				uint64_t *v = realloc(w->weights, cap * sizeof(*v));
				if (!v) {
					w->nomem = true;
					ctx->stop = true;
					return 1;
				}
				memset(v + w->wcap, 0, (cap - w->wcap) * sizeof(*v));
				w->weights = v;
				w->wcap = cap;
			}
			w->weights[i]++;
			if (i + 1 > w->nweights)
				w->nweights = i + 1;
		}
		if (w->count > w->cap) {
			w->capped = true;
			ctx->stop = true;
		}
		return 1;
	}
	if (w->job && w->job->parent_tasks && k == w->split_level - 1)
		return fast_forward(w, o);
	if (!w->job || k != w->split_level)
		return 0;
	if (atomic_load_explicit(&w->job->stop, memory_order_relaxed)) {
		ctx->stop = true;
		return 1;
	}
	if (w == w->job->ws + w->job->nthreads - 1)
		lazy_tick(w->job);
	if (!claim(w, w->tasks_seen++))
		return 1;
	task_begin(w);
	return 0;
}

void sprt_par_leave(struct sprt_ctx *ctx, int k)
{
	struct sprt_par *w = ctx->par;
	if (w && w->access)
		sprt_access_leave_(ctx, w->access, k);
	else if (w && w->in_task && k == w->split_level)
		task_end(w);
}

uint64_t sprt_par_skip(struct sprt_ctx *ctx, uint64_t w)
{
	struct sprt_par *p = ctx->par;
	return p && p->access ? sprt_access_skip_(p->access, w) : 0;
}

const sprt_val *sprt_par_match(struct sprt_ctx *ctx)
{
	struct sprt_par *p = ctx->par;
	return p && p->access ? sprt_access_match_(p->access) : NULL;
}

struct sprt_memo **sprt_par_memos(struct sprt_ctx *ctx, int n)
{
	struct sprt_par *p = ctx->par;
	return p && p->access ? sprt_access_memos_(p->access, ctx, n) : NULL;
}

void sprt_par_pass(struct sprt_ctx *ctx, uint64_t n)
{
	struct sprt_par *p = ctx->par;
	if (p && p->access)
		sprt_access_pass_(p->access, n);
}

struct sprt_par *sprt_par_access_(struct sprt_access_walk_ *aw)
{
	struct sprt_par *w = aligned_alloc(_Alignof(struct sprt_par), sizeof(*w));
	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->filter_level = w->stop_level = w->weight_level = w->split_level = -1;
	w->access = aw;
	return w;
}

/* ---- counting walks -------------------------------------------------------------------------- */

/* What one counting walk found. */
struct walk {
	uint64_t count;              /* iterations reaching the stop level */
	bool capped;
	uint64_t *weights;           /* per ordinal at the weight level */
	size_t nweights;
	struct sprt_def_stats *stats; /* the walk's statistics */
	uint64_t valid, candidates;
};

static void walk_release(struct walk *r)
{
	free(r->weights);
	free(r->stats);
	memset(r, 0, sizeof(*r));
}

/*
 * Walks ctx's space with the iterations at `stop` counted and skipped.
 * Returns 0 or a negative SPRT_E* code.
 */
static int walk(struct sprt_ctx *ctx, const struct shard *f, int stop, int weight_level, uint64_t cap,
		struct walk *r)
{
	memset(r, 0, sizeof(*r));
	const struct sprt_space *sp = ctx->space;
	struct sprt_par *w = aligned_alloc(_Alignof(struct sprt_par), sizeof(*w));
	r->stats = calloc((size_t)sp->ndefs + 1, sizeof(*r->stats));
	if (w)
		memset(w, 0, sizeof(*w));
	if (!w || !r->stats) {
		free(w);
		free(r->stats);
		r->stats = NULL;
		return -SPRT_ENOMEM;
	}
	w->ctx = ctx;
	w->filter_level = f ? f->level : -1;
	w->filter = f;
	w->stop_level = stop;
	w->weight_level = weight_level;
	w->cap = cap;
	w->split_level = -1;
	struct sprt_def_stats *saved_stats = ctx->stats;
	sprt_point_fn saved_emit = ctx->emit;
	bool saved_progress = ctx->progress;
	ctx->stats = r->stats;
	ctx->valid = ctx->candidates = 0;
	ctx->stop = false;
	ctx->emit = NULL;
	ctx->progress = false;
	ctx->par = w;
	ctx->par_level = stop;
	double t0 = sprt_now_();
	int rc = sp->enumerate(ctx);
	if (getenv("SPACERT_PAR_VERBOSE"))
		fprintf(stderr, "spacert: walk to level %d (filter %d, weights %d): %llu tasks, %llu candidates, %.4f s\n",
			stop, w->filter_level, weight_level, (unsigned long long)w->count,
			(unsigned long long)ctx->candidates, sprt_now_() - t0);
	ctx->par = NULL;
	ctx->stop = false;
	ctx->stats = saved_stats;
	ctx->emit = saved_emit;
	ctx->progress = saved_progress;
	r->valid = ctx->valid;
	r->candidates = ctx->candidates;
	ctx->valid = ctx->candidates = 0;
	r->count = w->count;
	r->capped = w->capped;
	r->weights = w->weights;
	r->nweights = w->nweights;
	if (w->nomem && !rc)
		rc = -SPRT_ENOMEM;
	free(w);
	if (rc > 0)
		rc = -rc;
	return rc;
}

/* A job for `threads` workers on ctx: no tasks, no sink, no walk yet. */
static struct par_job *job_new(struct sprt_ctx *ctx, int threads)
{
	struct par_job *job = calloc(1, sizeof(*job));
	if (!job)
		return NULL;
	job->main = ctx;
	const char *verbose = getenv("SPACERT_PAR_VERBOSE");
	job->verbose = verbose && *verbose && strcmp(verbose, "0");
	job->nthreads = threads;
	job->shard.level = -1;
	job->walk_stop = -1;
	atomic_init(&job->next_chunk, 0);
	atomic_init(&job->tasks_done, 0);
	atomic_init(&job->stop, false);
	atomic_init(&job->err, 0);
	atomic_init(&job->pub_cand, 0);
	atomic_init(&job->pub_valid, 0);
	pthread_mutex_init(&job->lock, NULL);
	pthread_cond_init(&job->cond, NULL);
	pthread_mutex_init(&job->done_lock, NULL);
	pthread_cond_init(&job->done_cond, NULL);
	return job;
}

static void job_free(struct par_job *job)
{
	pthread_mutex_destroy(&job->lock);
	pthread_cond_destroy(&job->cond);
	pthread_mutex_destroy(&job->done_lock);
	pthread_cond_destroy(&job->done_cond);
	free(job->chunk_lo);
	free(job);
}

/*
 * ntasks tasks at the split level, drawn in chunks, guided: each chunk
 * takes 1 / (GUIDE * threads) of the weight still left (a task weighs 1 +
 * its children at the next level where the planner counted them, else
 * 1), at least one task and at most MAX_CHUNK_TASKS.  The first chunks
 * are large, so a worker keeps its near counts and walks few others'
 * tasks, and the last ones are single tasks, so the workers finish
 * together: gemm_beast's H100 count on the device's 16 cores had chunks
 * of 18 tasks, the workers busy for 0.148 to 0.167 s.  Nonzero: out of
 * memory.
 */
static int job_tasks(struct par_job *job, uint64_t ntasks, const uint64_t *weights, size_t nweights)
{
	job->ntasks = ntasks;
	uint64_t total = 0;
	for (uint64_t i = 0; i < ntasks; i++)
		total += 1 + (i < nweights ? weights[i] : 0);
	size_t cap = 64;
	free(job->chunk_lo);
	job->chunk_lo = malloc(cap * sizeof(*job->chunk_lo));
	if (!job->chunk_lo)
		return SPRT_ENOMEM;
	uint64_t n = 0, i = 0, left = total, per = (uint64_t)GUIDE * (uint64_t)job->nthreads;
	while (i < ntasks) {
		if (n + 2 > cap) {
			uint64_t *more = realloc(job->chunk_lo, 2 * cap * sizeof(*more));
			if (!more)
				return SPRT_ENOMEM;
			job->chunk_lo = more;
			cap *= 2;
		}
		job->chunk_lo[n++] = i;
		uint64_t want = left / per, got = 0, first = i;
		do {
			got += 1 + (i < nweights ? weights[i] : 0);
			i++;
		} while (i < ntasks && got < want && i - first < MAX_CHUNK_TASKS);
		left -= got;
	}
	job->chunk_lo[n] = ntasks;
	job->nchunks = n;
	return 0;
}

/* Lets the job's workers skip the parents of others' tasks (fast_forward),
 * from `at`, the walk to the split level, which counted each parent's
 * tasks; unsharded only, as fast_forward has always been. */
static void job_parents(struct par_job *job, const struct walk *at, bool filtered)
{
	if (!filtered && job->split_level > 0 && at->weights) {
		job->parent_tasks = at->weights;
		job->nparents = at->nweights;
	}
}

/* Adds worker w's part of a shared-out counting walk into r. */
static int walk_merge(struct walk *r, struct sprt_par *w)
{
	r->count += w->count;
	r->capped |= w->capped;
	int rc = w->nomem ? -SPRT_ENOMEM : 0;
	if (w->nweights > r->nweights) {
		uint64_t *v = realloc(r->weights, w->nweights * sizeof(*v));
		if (!v) {
			rc = -SPRT_ENOMEM;
		} else {
			memset(v + r->nweights, 0, (w->nweights - r->nweights) * sizeof(*v));
			r->weights = v;
			r->nweights = w->nweights;
		}
	}
	for (size_t i = 0; !rc && i < w->nweights; i++)
		r->weights[i] += w->weights[i];
	free(w->weights);
	w->weights = NULL;
	w->nweights = w->wcap = 0;
	return rc;
}

static int run_workers(struct par_job *job);

/*
 * The counting walk to level d + 1 weighing the tasks at d, shared out
 * among `threads` workers by those tasks as a run is (`at`: the walk to
 * d, which every worker repeats above the tasks).  The same numbers as
 * walk() gives: counts, weights and statistics (those of `at`, which is
 * what runs outside tasks, plus the workers' task statistics).  Each
 * worker stops past `cap` of its own; the walk is capped iff one did or
 * the sum passes cap, which is iff the serial walk would have been.  The
 * planner's deepest walk is most of its time (gemm_beast's H100 count:
 * 1.1M candidates, 0.09 s of a 0.28 s run on 16 cores, when serial).
 */
static int walk_parallel(struct sprt_ctx *ctx, const struct shard *f, int d, uint64_t cap, const struct walk *at,
			 int threads, struct walk *r)
{
	const struct sprt_space *sp = ctx->space;
	memset(r, 0, sizeof(*r));
	r->stats = calloc((size_t)sp->ndefs + 1, sizeof(*r->stats));
	struct par_job *job = r->stats ? job_new(ctx, threads) : NULL;
	if (!job) {
		free(r->stats);
		r->stats = NULL;
		return -SPRT_ENOMEM;
	}
	memcpy(r->stats, at->stats, (size_t)sp->ndefs * sizeof(*r->stats));
	r->valid = at->valid;
	r->candidates = at->candidates;
	if (f)
		job->shard = *f; /* borrowed */
	job->split_level = d;
	job->walk_stop = d + 1;
	job->walk_cap = cap;
	job->walk_out = r;
	/* As a run's workers do: otherwise every worker re-walked all of
	 * levels < d, 16 times the walk's own work at d + 1 for gemm_beast's
	 * H100 plan on 16 threads. */
	job_parents(job, at, f != NULL);
	if (job_tasks(job, at->count, NULL, 0)) {
		job_free(job);
		free(r->stats);
		r->stats = NULL;
		return -SPRT_ENOMEM;
	}
	uint64_t valid0 = ctx->valid, cand0 = ctx->candidates;
	bool stop0 = ctx->stop;
	double t0 = sprt_now_();
	int rc = run_workers(job);
	ctx->valid = valid0;
	ctx->candidates = cand0;
	ctx->stop = stop0;
	r->capped |= r->count > cap;
	if (job->verbose)
		fprintf(stderr, "spacert: walk to level %d (filter %d, weights %d) on %d threads: %llu tasks, %llu "
				"candidates, %.4f s\n",
			d + 1, f ? f->level : -1, d, threads, (unsigned long long)r->count,
			(unsigned long long)r->candidates, sprt_now_() - t0);
	job_free(job);
	if (rc)
		walk_release(r);
	return rc;
}

/* The levels with hooks. */
static int hooked_levels(const struct sprt_space *sp)
{
	int n = sp->par_levels < sp->nparams ? sp->par_levels : sp->nparams;
	return n < SPRT_PAR_LEVELS ? n : SPRT_PAR_LEVELS;
}

/* Whether no task at this level holds more than 1 / (BALANCE * parts) of the children. */
static bool balanced(const struct walk *children, int parts)
{
	uint64_t max = 0;
	for (size_t i = 0; i < children->nweights; i++)
		if (children->weights[i] > max)
			max = children->weights[i];
	return max <= children->count / ((uint64_t)BALANCE * (uint64_t)parts);
}

/*
 * Chooses the level at which to cut the (filtered) space into tasks for
 * `parts` workers: the shallowest level with TASKS_PER_PART tasks per part
 * where no task holds too much of the next level.  *at is the counting
 * walk at that level; *children the walk one level deeper weighing its
 * tasks (count 0 when there is none).
 */
static int choose_level(struct sprt_ctx *ctx, const struct shard *f, int parts, int threads, int *level,
			struct walk *at, struct walk *children)
{
	int nl = hooked_levels(ctx->space);
	int from = f && f->level > 0 ? f->level : 0;
	int rc = walk(ctx, f, from, -1, UINT64_MAX, at);
	memset(children, 0, sizeof(*children));
	if (rc)
		return rc;
	uint64_t want = (uint64_t)TASKS_PER_PART * (uint64_t)parts;
	for (int d = from;; d++) {
		*level = d;
		if (d + 1 >= nl || at->count == 0)
			return 0;
		/* shared out once there are tasks enough to share */
		if (threads > 1 && at->count >= (uint64_t)threads * 4)
			rc = walk_parallel(ctx, f, d, WALK_CAP, at, threads, children);
		else
			rc = walk(ctx, f, d + 1, d, WALK_CAP, children);
		if (rc)
			return rc;
		if (children->capped || children->count == 0 || (at->count >= want && balanced(children, parts)))
			return children->capped ? (walk_release(children), 0) : 0;
		/* One level deeper: the children walk is the next level's walk
		 * (its weights, tasks per parent, let workers skip parents). */
		walk_release(at);
		*at = *children;
		memset(children, 0, sizeof(*children));
	}
}

/* ---- shards ---------------------------------------------------------------------------------- */

/*
 * Shard `index` of `count`: the level's tasks cut into count * BLOCKS
 * contiguous blocks of equal weight, block b going to shard b % count.
 * Contiguous blocks keep what a shard lists in runs of the single-thread
 * order; dealing them out round-robin makes every shard a sample of the
 * whole space, so a region the weights underrate is shared out too, not
 * left to one shard.  *shared is the walk down to that level (counted in
 * shard 0 only).
 */
static int shard_plan(struct sprt_ctx *ctx, uint64_t index, uint64_t count, int threads, struct shard *out,
		      struct walk *shared)
{
	struct walk children;
	int parts = count > INT32_MAX / 64 ? INT32_MAX / 64 : (int)count;
	int rc = choose_level(ctx, NULL, parts, threads, &out->level, shared, &children);
	if (rc)
		return rc;
	int ds = out->level, nl = hooked_levels(ctx->space);
	uint64_t ntasks = shared->count;
	/* Finer weights: descendants as deep as REFINE_CANDIDATES allows. */
	for (int e = ds + 2; e < nl && children.count && children.candidates <= REFINE_CANDIDATES; e++) {
		struct walk deeper;
		rc = walk(ctx, NULL, e, ds, WALK_CAP, &deeper);
		if (rc) {
			walk_release(&children);
			return rc;
		}
		if (deeper.capped) {
			walk_release(&deeper);
			break;
		}
		walk_release(&children);
		children = deeper;
	}
	out->n = ntasks;
	out->mine = calloc((size_t)ntasks + 1, 1);
	if (!out->mine) {
		walk_release(&children);
		return -SPRT_ENOMEM;
	}
	/* Task i, starting at cumulative weight s, is in block s * nb / total. */
	uint64_t total = 0, nb = count * BLOCKS, sum = 0;
	for (uint64_t i = 0; i < ntasks; i++)
		total += 1 + (i < children.nweights ? children.weights[i] : 0);
	for (uint64_t i = 0; i < ntasks; i++) {
		uint64_t block = sum / total * nb + sum % total * nb / total;
		out->mine[i] = block % count == index;
		out->own += out->mine[i];
		sum += 1 + (i < children.nweights ? children.weights[i] : 0);
	}
	walk_release(&children);
	return 0;
}

/* ---- output ------------------------------------------------------------------------------------ */

static void set_err(struct par_job *job, int err)
{
	int zero = 0;
	atomic_compare_exchange_strong(&job->err, &zero, err);
	atomic_store(&job->stop, true);
}

/* Writes a block to the output (or frees it when stopping). */
static void put_block(struct par_job *job, struct sprt_sink_block *b)
{
	if (sprt_sink_put_(job->sink, b))
		atomic_store(&job->stop, true);
}

/* Marks a finished chunk that wrote nothing. */
static char empty_chunk;
#define EMPTY_CHUNK ((struct sprt_sink_block *)(void *)&empty_chunk)

/* Files a finished chunk's block and writes every chunk now due.  Holds job->lock. */
static void ordered_put(struct par_job *job, uint64_t chunk, struct sprt_sink_block *b)
{
	job->queue[chunk] = b ? b : EMPTY_CHUNK;
	job->queue_bytes += sprt_sink_block_size_(b);
	while (job->next_write < job->nchunks && job->queue[job->next_write]) {
		struct sprt_sink_block *head = job->queue[job->next_write];
		job->queue[job->next_write++] = NULL;
		if (head != EMPTY_CHUNK) {
			job->queue_bytes -= sprt_sink_block_size_(head);
			put_block(job, head);
		}
	}
	pthread_cond_broadcast(&job->cond);
}

/* Hands the worker's buffer over: `done` at the end of its chunk. */
static void flush(struct sprt_par *w, bool done)
{
	struct par_job *job = w->job;
	if (!w->child)
		return;
	w->rows = 0;
	if (!job->ordered) {
		/* Large writes: the output's lock and a write() per
		 * HANDOVER_BYTES, not per FLUSH_ROWS points. */
		if (!done && sprt_sink_buffered_(w->child) < HANDOVER_BYTES)
			return;
		struct sprt_sink_block *b;
		if (sprt_sink_detach_(w->child, &b))
			set_err(job, SPRT_ENOMEM);
		put_block(job, b);
		return;
	}
	/* Ordered: mid-chunk, only the head streams, and a worker holding
	 * too much waits for its turn. */
	if (!done && sprt_sink_buffered_(w->child) < HOLD_BYTES) {
		pthread_mutex_lock(&job->lock);
		bool head = job->next_write == w->chunk;
		pthread_mutex_unlock(&job->lock);
		if (!head)
			return;
	}
	struct sprt_sink_block *b;
	if (sprt_sink_detach_(w->child, &b))
		set_err(job, SPRT_ENOMEM);
	pthread_mutex_lock(&job->lock);
	size_t size = sprt_sink_block_size_(b);
	while (job->next_write != w->chunk && (!done || job->queue_bytes + size > QUEUE_BYTES) &&
	       !atomic_load(&job->stop))
		pthread_cond_wait(&job->cond, &job->lock);
	if (atomic_load(&job->stop)) {
		sprt_sink_block_free_(b);
	} else if (!done) {
		put_block(job, b); /* the head's partial output */
	} else {
		ordered_put(job, w->chunk, b);
	}
	pthread_mutex_unlock(&job->lock);
}

static void finish_chunk(struct sprt_par *w)
{
	flush(w, true);
}

/* After a point went into the child sink (failed: it could not). */
static int encoded(struct sprt_par *w, int failed)
{
	struct par_job *job = w->job;
	if (failed) {
		set_err(job, SPRT_ENOMEM);
		return 1;
	}
	if (++w->rows >= FLUSH_ROWS)
		flush(w, false);
	return atomic_load_explicit(&job->stop, memory_order_relaxed) ? 1 : 0;
}

/* The worker's point callback: the child sink, handed over in blocks. */
static int worker_emit(void *user, const sprt_val *pt, int n)
{
	struct sprt_par *w = user;
	struct par_job *job = w->job;
	if (atomic_load_explicit(&job->stop, memory_order_relaxed))
		return 1;
	if (!w->child) {
		/* The caller's own callback, one point at a time. */
		pthread_mutex_lock(&job->lock);
		int rc = job->main->emit(job->main->emit_user, pt, n);
		pthread_mutex_unlock(&job->lock);
		if (rc)
			atomic_store(&job->stop, true);
		return rc;
	}
	return encoded(w, w->child_fn(w->child, pt, n));
}

/* The same for a point of ints (ctx->emit_ints), into the child sink. */
static int worker_emit_ints(void *user, const int64_t *pt, int n)
{
	struct sprt_par *w = user;
	if (atomic_load_explicit(&w->job->stop, memory_order_relaxed))
		return 1;
	return encoded(w, w->child_ints(w->child, pt, n));
}

/* ---- workers ------------------------------------------------------------------------------------- */

static void *worker_main(void *arg)
{
	struct sprt_par *w = arg;
	struct par_job *job = w->job;
	double t0 = job->verbose ? sprt_now_() : 0;
	int rc = w->ctx->space->enumerate(w->ctx);
	if (job->verbose)
		w->busy = sprt_now_() - t0;
	if (w->in_task) /* a fatal error left it open */
		task_end(w);
	if (w->have_chunk)
		finish_chunk(w);
	publish(w);
	if (rc)
		set_err(job, rc < 0 ? -rc : rc);
	else if (!w->walked_out && !w->ctx->stop && !atomic_load(&job->stop) && w->tasks_seen != job->ntasks)
		set_err(job, SPRT_EVALUE); /* the walk was not deterministic */
	pthread_mutex_lock(&job->done_lock);
	job->running--;
	pthread_cond_signal(&job->done_cond);
	pthread_mutex_unlock(&job->done_lock);
	return NULL;
}

static int worker_init(struct sprt_par *w, struct par_job *job)
{
	struct sprt_ctx *m = job->main;
	const struct sprt_space *sp = m->space;
	w->job = job;
	w->ctx = &w->own_ctx;
	struct sprt_ctx *ctx = w->ctx;
	*ctx = *m;
	ctx->stats = NULL;
	ctx->nextra_strings = 0;
	ctx->extra_strings = NULL; /* interned again, in the same order */
	ctx->valid = ctx->candidates = 0;
	ctx->stop = false;
	ctx->progress = false;
	ctx->par = w;
	ctx->column_bounds = NULL; /* its own, set by its own walk */
	ctx->columns_bounded = false;
	ctx->par_level = job->split_level > job->shard.level ? job->split_level : job->shard.level;
	if (job->walk_stop > ctx->par_level)
		ctx->par_level = job->walk_stop;
	w->filter_level = job->shard.level;
	w->filter = &job->shard;
	w->stop_level = job->walk_stop;
	w->weight_level = job->walk_stop >= 0 ? job->split_level : -1;
	w->cap = job->walk_cap;
	w->split_level = job->split_level;
	/* Padded by a cache line, so no two workers' counters share one. */
	w->walk_stats = calloc((size_t)sp->ndefs + 3, sizeof(*w->walk_stats));
	w->task_stats = calloc((size_t)sp->ndefs + 3, sizeof(*w->task_stats));
	if (!w->walk_stats || !w->task_stats)
		return SPRT_ENOMEM;
	ctx->stats = w->walk_stats;
	if (job->walk_stop >= 0)
		ctx->emit = NULL; /* counting */
	else if (m->emit) {
		ctx->emit = worker_emit;
		ctx->emit_ints = NULL; /* the caller's callback: through sprt_emit_ints_ */
		ctx->emit_user = w;
		if (job->sink && sprt_sink_child_(job->sink, ctx, &w->child, &w->child_fn))
			return SPRT_ENOMEM;
		if (w->child && (w->child_ints = sprt_sink_ints_fn_(w->child)))
			ctx->emit_ints = worker_emit_ints;
	}
	return SPRT_OK;
}

static void worker_release(struct sprt_par *w)
{
	sprt_sink_child_free_(w->child);
	free(w->walk_stats);
	free(w->task_stats);
	for (int i = 0; i < w->own_ctx.nextra_strings; i++)
		free((char *)w->own_ctx.extra_strings[i]);
	free(w->own_ctx.extra_strings);
	free(w->own_ctx.column_bounds);
}

/* Draws the progress line from what the workers published. */
static void progress_draw(struct par_job *job)
{
	struct sprt_ctx *m = job->main;
	uint64_t c = m->candidates, v = m->valid;
	m->candidates = c + atomic_load_explicit(&job->pub_cand, memory_order_relaxed);
	m->valid = v + atomic_load_explicit(&job->pub_valid, memory_order_relaxed);
	uint64_t done = atomic_load_explicit(&job->tasks_done, memory_order_relaxed);
	sprt_progress_tick(m, job->ntasks ? (double)done / (double)job->ntasks : -1.0);
	m->candidates = c;
	m->valid = v;
}

/* Waits for the workers, drawing the progress line meanwhile. */
static void wait_workers(struct par_job *job)
{
	struct sprt_ctx *m = job->main;
	pthread_mutex_lock(&job->done_lock);
	while (job->running > 0) {
		if (!m->progress || job->walk_stop >= 0) {
			pthread_cond_wait(&job->done_cond, &job->done_lock);
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&job->done_cond, &job->done_lock, &ts);
		progress_draw(job);
	}
	pthread_mutex_unlock(&job->done_lock);
}

static void *worker_main(void *arg);

/* Starts the other workers (all but the calling thread's, the last). */
static void spawn_workers(struct par_job *job)
{
	job->spawned = true;
	for (int i = 0; i < job->nthreads - 1; i++) {
		pthread_mutex_lock(&job->done_lock);
		job->running++;
		pthread_mutex_unlock(&job->done_lock);
		if (pthread_create(&job->ws[i].tid, NULL, worker_main, &job->ws[i])) {
			pthread_mutex_lock(&job->done_lock);
			job->running--;
			pthread_mutex_unlock(&job->done_lock);
			break; /* the tasks are drawn: fewer workers still cover them */
		}
		job->started++;
	}
}

/* The calling thread's worker, at each task it meets: starts the others
 * once it has worked alone long enough, and draws the progress line that
 * it would otherwise draw while waiting. */
static void lazy_tick(struct par_job *job)
{
	struct sprt_ctx *m = job->main;
	if (job->spawned && (!m->progress || job->walk_stop >= 0))
		return;
	double t = sprt_now_();
	if (!job->spawned && t >= job->spawn_at)
		spawn_workers(job);
	if (m->progress && job->walk_stop < 0 && t - job->last_tick >= 0.1) {
		job->last_tick = t;
		progress_draw(job);
	}
}

/* Runs the job's workers; adds their task counts into the main context. */
static int run_workers(struct par_job *job)
{
	struct sprt_ctx *m = job->main;
	const struct sprt_space *sp = m->space;
	int n = job->nthreads;
	struct sprt_par *ws = aligned_alloc(_Alignof(struct sprt_par), (size_t)n * sizeof(*ws));
	if (!ws)
		return -SPRT_ENOMEM;
	memset(ws, 0, (size_t)n * sizeof(*ws));
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = worker_init(&ws[i], job);
	/* This thread is the last worker, and starts the others only once
	 * it has worked LAZY_START_S (lazy_tick): a tiny space is done by
	 * then.  Fewer threads than asked (pthread_create failing) still
	 * cover every task, since tasks are drawn. */
	job->ws = ws;
	job->running = 0;
	job->started = 0;
	job->spawned = false;
	job->spawn_at = sprt_now_() + LAZY_START_S;
	job->last_tick = 0;
	if (!rc) {
		pthread_mutex_lock(&job->done_lock);
		job->running++;
		pthread_mutex_unlock(&job->done_lock);
		worker_main(&ws[n - 1]);
		if (!job->spawned && !atomic_load(&job->stop) && atomic_load(&job->next_chunk) < job->nchunks)
			spawn_workers(job); /* it stopped early: leave nothing undone */
	}
	wait_workers(job);
	for (int i = 0; i < job->started; i++)
		pthread_join(ws[i].tid, NULL);
	for (int i = 0; i < n && job->verbose; i++)
		fprintf(stderr, "spacert: worker %d: %llu tasks, %llu candidates, %.3f s\n", i,
			(unsigned long long)ws[i].tasks_run, (unsigned long long)ws[i].task_cand, ws[i].busy);
	for (int i = 0; i < n; i++) {
		struct walk *r = job->walk_out;
		struct sprt_def_stats *to = r ? r->stats : m->stats;
		for (int d = 0; ws[i].task_stats && d < sp->ndefs; d++) {
			to[d].evaluated += ws[i].task_stats[d].evaluated;
			to[d].rejected += ws[i].task_stats[d].rejected;
			to[d].domain_errors += ws[i].task_stats[d].domain_errors;
		}
		if (r) {
			r->valid += ws[i].task_valid;
			r->candidates += ws[i].task_cand;
			if (walk_merge(r, &ws[i]))
				rc = rc ? rc : -SPRT_ENOMEM;
		} else {
			m->valid += ws[i].task_valid;
			m->candidates += ws[i].task_cand;
		}
		worker_release(&ws[i]);
	}
	free(ws);
	int e = atomic_load(&job->err);
	if (!rc && e)
		rc = -e;
	if (!rc && m->emit && job->sink && sprt_sink_failed(job->sink))
		m->stop = true;
	return rc;
}

/* ---- the entry point ------------------------------------------------------------------------------ */

int sprt_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void add_stats(struct sprt_ctx *m, const struct walk *w, int sign)
{
	for (int d = 0; d < m->space->ndefs; d++) {
		m->stats[d].evaluated += (uint64_t)sign * w->stats[d].evaluated;
		m->stats[d].rejected += (uint64_t)sign * w->stats[d].rejected;
		m->stats[d].domain_errors += (uint64_t)sign * w->stats[d].domain_errors;
	}
	m->valid += (uint64_t)sign * w->valid;
	m->candidates += (uint64_t)sign * w->candidates;
}

int sprt_run(struct sprt_ctx *ctx, struct sprt_sink *sink, const struct sprt_run_options *opt)
{
	const struct sprt_space *sp = ctx->space;
	int threads = opt->threads < 1 ? 1 : opt->threads > MAX_THREADS ? MAX_THREADS : opt->threads;
	uint64_t nshards = opt->shard_count ? opt->shard_count : 1;
	if (opt->shard_index >= nshards)
		return -SPRT_EVALUE;
	/* The one rule for a bound value's type, whoever bound it: a program
	 * calling sprt_run with its own bindings as much as sprt_main. */
	if (sprt_bindings_check(sp, ctx->bindings, ctx->nbindings, NULL, NULL, NULL))
		return -SPRT_ETYPE;
	if (ctx->emit && !sink && opt->ordered)
		threads = 1;
	bool sharded = nshards > 1;
	if ((threads == 1 && !sharded) || hooked_levels(sp) <= 0) {
		/* Nothing to split (no loop with hooks): all is shard 0's. */
		if (sharded && opt->shard_index != 0)
			return 0;
		ctx->par = NULL;
		int rc = sp->enumerate(ctx);
		return rc > 0 ? -rc : rc;
	}

	struct par_job *job = job_new(ctx, threads);
	if (!job)
		return -SPRT_ENOMEM;
	job->sink = ctx->emit ? sink : NULL;
	job->ordered = opt->ordered;
	struct walk shared = { 0 }, at = { 0 }, children = { 0 };
	int rc = 0;
	uint64_t valid0 = ctx->valid, cand0 = ctx->candidates;
	double t_plan = sprt_now_();
	if (sharded)
		rc = shard_plan(ctx, opt->shard_index, nshards, threads, &job->shard, &shared);
	if (!rc)
		rc = choose_level(ctx, sharded ? &job->shard : NULL, threads, threads, &job->split_level, &at,
				  &children);
	if (!rc) {
		if (job_tasks(job, at.count, children.weights, children.nweights))
			rc = -SPRT_ENOMEM;
		job_parents(job, &at, sharded);
		if (job->verbose)
			fprintf(stderr,
				"spacert: %d threads; shard level %d, %llu of %llu tasks; task level %d: %llu tasks "
				"in %llu chunks, %llu to %llu; planned in %.3f s\n",
				threads, job->shard.level, (unsigned long long)job->shard.own,
				(unsigned long long)job->shard.n, job->split_level, (unsigned long long)job->ntasks,
				(unsigned long long)job->nchunks,
				(unsigned long long)(job->nchunks ? job->chunk_lo[job->nchunks] - job->chunk_lo[job->nchunks - 1] : 0),
				(unsigned long long)(job->nchunks ? job->chunk_lo[1] - job->chunk_lo[0] : 0), sprt_now_() - t_plan);
		if (job->ordered && job->sink) {
			job->queue = calloc((size_t)job->nchunks + 1, sizeof(*job->queue));
			if (!job->queue)
				rc = -SPRT_ENOMEM;
		}
		/* Outside tasks: the walk at the split level, once; in a shard
		 * other than 0, less the walk down to the shard level that
		 * every shard shares. */
		ctx->valid = valid0;
		ctx->candidates = cand0;
		add_stats(ctx, &at, 1);
		if (sharded && opt->shard_index != 0)
			add_stats(ctx, &shared, -1);
		if (!rc)
			rc = run_workers(job);
	}
	walk_release(&shared);
	walk_release(&at);
	walk_release(&children);
	for (uint64_t i = 0; job->queue && i < job->nchunks; i++)
		if (job->queue[i] != EMPTY_CHUNK)
			sprt_sink_block_free_(job->queue[i]);
	free(job->queue);
	free(job->shard.mine);
	job_free(job);
	return rc;
}
