/*
 * batch.h - a batch of tuning problems (`spacetune batch`): the batch
 * file's line format, its expansion into problems, and the runner that
 * tunes a list of problems on one device into one database.
 * Owner: tuner/batch.c.  The format is documented in docs/TUNING.md.
 *
 * The runner is split so that a distributed driver (Slurm array tasks,
 * MPI ranks) can reuse it: tune_batch_load() gives every problem with a
 * stable key, and tune_batch_run_problems() tunes any subset of them on
 * one device into one database, skipping problems already finished there.
 */
#ifndef SPACEC_TUNER_BATCH_H
#define SPACEC_TUNER_BATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tuner/eval.h"
#include "tuner/strategy.h"

/* One problem: a space with every setting bound to one value. */
struct tune_batch_problem {
	char *space_path;           /* resolved against the batch file's directory */
	int nsets;
	char **sets;                /* "NAME=VALUE", in the order the batch file gives them */
	const char *strategy;       /* a name from tune_strategy_names */
	struct tune_budget budget;
	uint64_t seed;
	char *objective;            /* as --objective; NULL: time */
	/* The sets sorted, "A=1 B=2": the records' "problem" field, as
	 * `spacetune run --set A=1,2 ...` writes it, so both resume each other. */
	char *problem;
	/* Identity, stable across runs: the space as written and the sets,
	 * one line of text.  A database's finished-problem list holds keys. */
	char *key;
	int line;                   /* of its `problem` line */
};

struct tune_batch {
	char *path;
	int nproblems;
	struct tune_batch_problem *problems;
	int ndevices;
	char **devices;             /* `device` lines: index or name substring */
};

/*
 * Reads and expands a batch file.  Errors are reported on `diag` as
 * file:line:col with the line and a caret.  0; 1 on an error in the file;
 * -1 when it cannot be read or memory runs out (reported too).
 */
int tune_batch_load(const char *path, FILE *diag, struct tune_batch **out);
void tune_batch_free(struct tune_batch *b);

/*
 * The estimated cost of each problem, in evaluations: the budget's share
 * of the space (tune_budget_evals), the space counted with every device
 * query at its default so that every shard computes the same numbers on
 * any machine; a time budget counts its seconds.  0; 1 when a problem
 * cannot be loaded (reported on diag); -1 out of memory.
 */
int tune_batch_costs(const struct tune_batch *b, double *costs, FILE *diag);

/*
 * Shard `shard` (0-based) of `nshards`: the longest-processing-time-first
 * split (problems by cost, largest first, ties by index, each to the shard
 * with the least cost so far, ties to the lowest shard), so the shards
 * partition the batch and differ by at most one problem's cost.  Writes
 * the shard's problem indices, ascending, to out; returns their count.
 */
int tune_batch_shard(const struct tune_batch *b, const double *costs, int shard, int nshards,
                     int *out);

/*
 * One worker: tunes problems[0..n) of the batch, in order, on eval->device
 * into the database db_path.  A problem whose key is in done_path was
 * finished by an earlier run and is skipped; one that runs to its end is
 * appended there (one line, fsync'd), so it is never reopened.  Within a
 * problem, `spacetune run`'s resume skips every evaluation already in the
 * database.  Each problem's summary and errors go to `log`.  For every
 * problem, one line "done INDEX BEST" (BEST the objective's best value,
 * "none" when no configuration ran correctly, "skip" when already
 * finished, "fail" on an error) is written
 * to report_fd (a pipe; one write, so lines of several workers never
 * interleave), or nothing when it is -1.  0; 1 when a problem failed;
 * 130 when interrupted.
 */
int tune_batch_run_problems(const struct tune_batch *b, const int *problems, int n,
                            const struct tune_eval_opts *eval, const char *db_path,
                            const char *done_path, FILE *log, int report_fd,
                            volatile sig_atomic_t *interrupted);

struct tune_batch_run_opts {
	const struct tune_batch *batch;
	const char *db_dir;             /* created if missing */
	int ndevices;                   /* 0: the default device (the first GPU, else the first device) */
	const char *const *devices;     /* index or name substring each; one worker each */
	const int *subset;              /* the problems to run (a shard), NULL: all */
	int nsubset;
	int shard, nshards;             /* nshards > 0: names get "shardI-of-N-" in front */
	struct tune_eval_opts eval;     /* jobs, warmup, repeat, timeout; the device is set per worker */
	bool live_progress, no_progress;
	FILE *err;
	volatile sig_atomic_t *interrupted;
};

/*
 * `spacetune batch`: one worker process per device, problem i of the list
 * going to worker i mod W (so a rerun with the same devices finds each
 * problem's database again); worker "NAME" keeps DIR/NAME.jsonl (results),
 * DIR/NAME.done (finished problems) and DIR/NAME.log (summaries).  One
 * progress display.  0; 1 when a problem failed; 130 when interrupted.
 */
int tune_batch_run(const struct tune_batch_run_opts *o);

#endif
