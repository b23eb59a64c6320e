/*
 * run.h - `spacetune run`: load a tuning job, search its space with a
 * strategy under a budget, evaluate on an OpenCL or CUDA device, record every
 * evaluation in the results database.  Owner: tuner/run.c.
 *
 * Order of work, so that a bad input leaves nothing behind: the device is
 * checked, the job loaded (device queries bound), the evaluator started
 * (reference computed) and only then the database opened.  Configurations
 * already in the database for the same device and source hash are not
 * evaluated again: their recorded cost is fed to the strategy, and they
 * count towards an evaluation budget, so re-running an interrupted
 * command completes the original plan.
 *
 * With eval.replay set, a recorded database stands in for the device
 * (replay.h): the device is not read (the space's device parameters keep
 * their query() defaults unless --set), and the clock of budgets, progress
 * and summary is the replay's.  Proposed configurations the database
 * lacks are counted, listed in the summary and reported to the strategy
 * as failures; nothing is invented for them (unless replay_recorded
 * keeps the search inside the records).
 */
#ifndef SPACEC_TUNER_RUN_H
#define SPACEC_TUNER_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tuner/eval.h"
#include "tuner/strategy.h"

struct spacec_options;

struct tune_run_opts {
	const char *space_path;
	const char *db_path;          /* NULL: none (a replay need not record) */
	/* When set, one CSV line per evaluation counted: its number, the
	 * clock (virtual in a replay), point, status, cost and best so far. */
	const char *trace_path;
	const char *strategy;
	struct tune_budget budget;
	/* One search per seed from `seed` to `seed_last` (--seeds A..B; less
	 * than `seed`: just `seed`), one after the other on the loaded job: a
	 * replay's cheap way to run many searches (not with a database, whose
	 * records would resume the next seed's search).  Each search prints a
	 * line "seed S: ..." instead of the summary, and its trace its header. */
	uint64_t seed, seed_last;
	/* With eval.replay: the strategy's space is the configurations the
	 * database records, not the job's whole space (a partial database's
	 * searches stay inside it, as Kernel Tuner's simulation mode does);
	 * the parameters' values are those of the recorded points. */
	bool replay_recorded;
	int nsets;
	const char *const *sets;      /* "NAME=VALUE" */
	/* The problem the sets make ("A=1 B=2", see tune_db_set_run; NULL: ""),
	 * and the objective: the median time (objective_metric NULL) or the
	 * rate of the tune section's metric of that name, minimised or, with
	 * `maximize`, maximised. */
	const char *problem;
	const char *objective_metric;
	bool maximize;
	/* --strategy bfs: the filters of its levels (strategy.h); when
	 * bfs_filters is false, the one best version goes on. */
	bool bfs_filters;
	double bfs_tolerance;         /* per cent; < 0: none */
	size_t bfs_number;            /* 0: no cap */
	struct tune_eval_opts eval;   /* device, jobs, warmup, repeat, timeout */
	const struct spacec_options *compiler; /* -O, -f, --jit (lib/spacec.h); NULL: defaults */
	bool live_progress;           /* redraw one line (a terminal) or print plain lines */
	bool no_progress;             /* neither (--no-progress) */
	FILE *out;                    /* the final summary */
	FILE *err;                    /* progress and errors */
	/* Set asynchronously (SIGINT/SIGTERM): stop submitting, drain, report. */
	volatile sig_atomic_t *interrupted;
	/* When set, receives the objective's best value as the progress line
	 * shows it (ms, or the metric's rate); NAN when none ran correctly. */
	double *best;
	/* When set, called after every evaluation counted (run or found in the
	 * database) with the count so far, the count planned and the best value
	 * as *best would get it: a batch's display follows its problems so. */
	void (*on_count)(void *user, size_t done, size_t planned, double best);
	void *on_count_user;
	/* Other workers' databases, read only (tune_db_also_read): what they
	 * recorded is not evaluated again.  A batch's workers share a problem's
	 * finished evaluations so, whichever worker gets it next.  Read into
	 * also_view when set (a worker's, kept from run to run: only what the
	 * files gained since its last run is read), else into one of this run. */
	const char *const *also_dbs;
	int nalso_dbs;
	struct tune_db_also *also_view;
	/* With nchunks > 1, only chunk `chunk` (0-based) of an exhaustive or
	 * random search: the evaluations the budget plans, cut into nchunks
	 * parts of equal size (+-1); together they are the whole search, each
	 * evaluation in one part.  Exhaustive: in enumeration order; random:
	 * in the order of a permutation drawn from the seed alone (so not the
	 * points an uncut random search visits).  Other strategies: an error. */
	int chunk, nchunks;
	/* With nchunks > 1, chunks [chunk, chunk + chunks) as one search
	 * (chunks 0: 1): a batch hands out runs of consecutive chunks, so a
	 * worker loads the problem once for several. */
	int chunks;
	/* When set, what a run loaded for its problem (the job, the device's
	 * properties, the evaluator with its reference outputs, or the replay)
	 * is left here at the end of a run that ends normally, and the next
	 * run of the same space, settings and device takes it instead of
	 * loading again: a batch worker's consecutive chunks of one problem
	 * pay its set-up once.  A run of another problem frees it first. */
	struct tune_run_keep *keep;
	/* When set, the kernel time of the evaluations run here (not those
	 * found in a database) is added to it, in seconds: each one's timed
	 * runs times their median (the database keeps no more). */
	double *kernel_s;
};

/* 0 when the search ran to its end, 1 on an error (reported), 130 when interrupted. */
int tune_run(const struct tune_run_opts *o);

struct tune_run_keep;
struct tune_db_also;
/* An empty keep (tune_run_opts.keep), or NULL out of memory. */
struct tune_run_keep *tune_run_keep_new(void);
/* Stops a kept evaluator and frees everything kept; NULL is a no-op. */
void tune_run_keep_free(struct tune_run_keep *k);

#endif
