/*
 * batch.h - a batch of tuning problems (`spacetune batch`): the batch
 * file's line format, its expansion into problems, and the runner that
 * tunes a list of problems on one device into one database.
 * Owner: tuner/batch.c.  The format is documented in docs/TUNING.md.
 *
 * The runner is split so that a distributed driver (Slurm array tasks,
 * MPI ranks) can reuse it: tune_batch_load() gives every problem with a
 * stable key, tune_batch_units() cuts them into units of work, and
 * tune_batch_run_unit() tunes one unit on one device into one database,
 * skipping what any worker of the directory finished.
 */
#ifndef SPACEC_TUNER_BATCH_H
#define SPACEC_TUNER_BATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tuner/eval.h"
#include "tuner/strategy.h"

struct tune_run_keep;
struct tune_db_also;

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

/* More expanded problems than this is an error of the batch file. */
#define TUNE_BATCH_MAX_PROBLEMS 100000

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
/* The same for problem i alone; *cost NAN when it cannot be loaded. */
int tune_batch_cost(const struct tune_batch *b, int i, double *cost, FILE *diag);

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
 * A unit of work the batch hands out: a problem, or one chunk of an
 * exhaustive search too large for one worker (tune_run_opts.chunk).
 */
struct tune_batch_unit {
	int problem;
	int chunk, nchunks;         /* nchunks 0: the whole problem */
	char *key;                  /* the problem's key, and " [chunk I/N]" (1-based) */
};

/*
 * The units of the problems list[0..n) (all of the batch's when list is
 * NULL), in that order.  A problem with an exhaustive search under an
 * evaluation budget whose cost (costs[i]; costs NULL: none is cut) is
 * above chunk_evals > 0 becomes ceil(cost / chunk_evals) chunks; any
 * other problem one unit.  Their count, or -1 out of memory.
 */
int tune_batch_units(const struct tune_batch *b, const int *list, int n, const double *costs,
                     double chunk_evals, struct tune_batch_unit **out);
/*
 * The chunk size (evaluations) a batch run by `workers` workers gets
 * without --chunk: where it has fewer than 4 problems per worker, its
 * chunkable problems (above) cut into about 32 units per worker, so that
 * no worker waits while another runs a whole problem; else 0 (none cut).
 * A function of the batch and the worker count alone: the same command
 * run again cuts the same units.
 */
double tune_batch_default_chunk(const struct tune_batch *b, const int *list, int n,
                                const double *costs, int workers);
void tune_batch_units_free(struct tune_batch_unit *u, int n);

/*
 * A batch worker's --jobs when none is given: the cores this process may
 * run on (its affinity mask: taskset, Slurm's binding) shared among the
 * batch workers of the node, at least 1.  local_workers: this run's local
 * devices; under mpirun (`mpi`) the node's ranks instead
 * (OMPI_COMM_WORLD_LOCAL_SIZE).  Each worker taking every core made two
 * GPUs run twice the processes of one on the same cores.
 */
int tune_batch_default_jobs(int local_workers, bool mpi);

/*
 * Sets done[i] for each unit some worker finished before: its key has a
 * line "KEY\tdone" in one of the *.done files of db_dir (a torn line does
 * not count).  The count, or -1 out of memory.
 */
int tune_batch_finished(const char *db_dir, const struct tune_batch_unit *u, int n, bool *done);

/*
 * A worker's files: db_dir/NAME.jsonl (its results, which only it
 * writes), NAME.done (the units it finished) and NAME.log (their
 * summaries and errors), and the device it drives.
 */
struct tune_batch_worker {
	const char *db_dir;
	char db_path[4096], done_path[4096], log_path[4096];
	struct tune_eval_opts eval;
	FILE *log;
	/* The last problem's job and evaluator (or replay), for its next
	 * chunks (tune_run_opts.keep) */
	struct tune_run_keep *keep;
	/* The other workers' databases as read so far (tune_run_opts.also_view) */
	struct tune_db_also *also;
};

/* Fills w and opens its log (errors on err).  0 or -1. */
int tune_batch_worker_open(struct tune_batch_worker *w, const char *dir, const char *name,
                           const struct tune_eval_opts *eval, FILE *err);
/* Closes the log and frees what it kept. */
void tune_batch_worker_close(struct tune_batch_worker *w);

/*
 * Runs units[unit .. unit + count) (count > 1: consecutive chunks of one
 * problem, as the hand-out gives them: one search over their union) on
 * the worker's device into its database.  Every
 * other database of the directory is read too (tune_run_opts.also_dbs:
 * what it gained since the worker's last unit), so what any worker
 * recorded of this unit is not timed again.  When it
 * runs to its end their keys are appended to the worker's .done file (one
 * write, fsync'd) and they are never reopened.  `what` gets the outcome:
 * "skip" (finished before), "fail", "none" (no configuration ran
 * correctly) or the objective's best value.  Progress lines "prog UNIT
 * DONE PLANNED BEST" go to progress_fd unless it is -1.  kernel_s gets
 * the time of the kernels it timed added.  0; 1 failed; 130 interrupted.
 */
int tune_batch_run_unit(const struct tune_batch *b, const struct tune_batch_unit *units, int unit,
                        int count, const struct tune_batch_worker *w, int progress_fd,
                        volatile sig_atomic_t *interrupted, char *what, size_t nwhat, double *kernel_s);

/* The lines a worker reports the end of units [unit, unit + count) with:
 * "done UNIT WORKER WHAT KERNEL_S\n" each (the kernel time on the first). */
int tune_batch_done_line(char *buf, size_t n, int unit, int count, int worker, const char *what,
                         double kernel_s);

/*
 * The missing-work report, from the files alone (so a rerun, a Slurm
 * merge job or `spacetune batch --report` can print it after any crash):
 * for each problem of the units not finished, the evaluations recorded
 * for it in db_dir's databases (each once, whichever files hold it) and
 * those its budget plans (costs, by tune_batch_costs; may be NULL), and
 * a total line, "complete" or "incomplete".  Returns the number of units
 * unfinished, -1 on an error (reported).
 */
int tune_batch_report(const struct tune_batch *b, const struct tune_batch_unit *u, int n,
                      const double *costs, const char *db_dir, FILE *out);

/*
 * The hand-out of a running batch (its state lives in tune_batch_run).
 * A remote driver (MPI) serves its workers through these two: take() is
 * the next unit not finished nor handed out, -1 when none is left (or
 * the batch is interrupted), and in *count how many units from it the
 * worker runs together: guided self-scheduling, a run of consecutive
 * chunks of its problem about (units left) / (4 x workers) long, at most
 * TUNE_BATCH_RUN_MAX (4, not guided self-scheduling's 1: units differ in
 * cost, and a long run handed out early must not be the last to end),
 * so the first hand-outs are long (a worker's set-up
 * paid once for many chunks) and the last ones single chunks (no worker
 * left running a long tail alone), from the problem the worker (0 the
 * local one, MPI: the rank) ran last while that has units open (its set-up
 * is kept: tune_run_opts.keep); note() takes a worker's report line.
 */
#define TUNE_BATCH_RUN_MAX 32
#define TUNE_BATCH_MAX_SLOTS 16
struct tune_batch_hub;
int tune_batch_hub_take(struct tune_batch_hub *h, int worker, int *count);
void tune_batch_hub_note(struct tune_batch_hub *h, const char *line);

struct tune_batch_run_opts {
	const struct tune_batch *batch;
	const char *db_dir;             /* created if missing */
	const struct tune_batch_unit *units;
	int nunits;
	const double *costs;            /* per problem, for the report; may be NULL */
	int ndevices;                   /* 0: every GPU (dev_worker_gpus), else the default device */
	const char *const *devices;     /* index or name substring each; one worker each */
	int shard, nshards;             /* nshards > 0: names get "shardI-of-N-" in front */
	/* Workers per device (0 or 1: one), each a worker of the hub with its
	 * own evaluator; the second and later are named "NAME-slotK". */
	int slots;
	/* One local worker of this name on this device instead (MPI's rank 0). */
	const char *worker_name;
	struct tune_device_sel worker_sel;
	/* Remote workers: their number with the local one (for the summary,
	 * worker_names[w] each, the local one 0), and a function called often,
	 * which serves them through the hub and returns how many still run. */
	int nworkers;
	const char *const *worker_names;
	int (*remote)(void *user, struct tune_batch_hub *h);
	void *remote_user;
	struct tune_eval_opts eval;     /* jobs, warmup, repeat, timeout; the device is set per worker */
	bool live_progress, no_progress;
	FILE *err;
	volatile sig_atomic_t *interrupted;
};

/*
 * `spacetune batch`: one worker process per device; each, when free,
 * takes the next unit that is neither finished (by any worker, now or
 * before: tune_batch_finished) nor taken.  Worker "NAME" keeps the files
 * of struct tune_batch_worker in DIR.  One progress display; at the end
 * each worker's share of the wall time spent timing kernels and the
 * missing-work report.  0; 1 when a unit failed or is missing; 130 when
 * interrupted.
 */
int tune_batch_run(const struct tune_batch_run_opts *o);

/*
 * `spacetune batch --mpi` under mpirun: rank 0 runs tune_batch_run with
 * a worker of its own and hands units to the other ranks as they ask;
 * rank R keeps worker files "rank-R" and drives the device of its local
 * rank (OMPI_COMM_WORLD_LOCAL_RANK) modulo the node's devices (those of
 * o->devices, else its GPUs, else the default device).  At the end rank
 * 0 merges DIR/rank-*.jsonl into DIR/merged.jsonl.  Built without MPI,
 * it says so and returns 1.
 */
int tune_batch_mpi(struct tune_batch_run_opts *o);

/*
 * --mpi's start, before the units are cut: MPI_Init, *rank and *nranks.
 * Then tune_batch_mpi_costs: the costs rank 0 computed, sent to every
 * rank (a batch of many problems is not loaded once per rank before any
 * work starts).  0; 1 when MPI cannot start or this spacetune was built
 * without it (said on err).  After a start, tune_batch_mpi ends MPI, or
 * tune_batch_mpi_end does on an error.
 */
int tune_batch_mpi_start(int *argc, char ***argv, int *rank, int *nranks, FILE *err);
void tune_batch_mpi_costs(double *costs, int n);
void tune_batch_mpi_end(void);

#endif
