/*
 * strategy.h - search strategies over a space's list of valid points,
 * and the budgeted search that drives one.  Owner: tuner/strategy*.c.
 *
 * A strategy sees the space only through struct tune_space: the number of
 * valid points, each point's parameter values, the sorted distinct values
 * of each parameter, and a lookup from values to a point.  spacetune binds
 * it to a job (job.h); the unit tests bind it to synthetic spaces.
 *
 * Strategies minimise a cost (the median time; a failed evaluation costs
 * INFINITY).  They work in batches so several evaluations can be in
 * flight: propose() hands out points, report() gives their costs back in
 * any order.  A strategy never proposes a point twice and never proposes
 * an invalid one.  When it has nothing better to try and nothing is in
 * flight, it proposes an unvisited point at random, so every strategy
 * covers the whole space if the budget allows.
 *
 * The neighbourhood of a point, used by annealing, local search and the
 * mutations of the genetic algorithm: change one parameter to the next
 * larger or smaller value for which the other parameters still give a
 * valid point.
 */
#ifndef SPACEC_TUNER_STRATEGY_H
#define SPACEC_TUNER_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tune_space {
	size_t npoints;
	int nparams;
	void *user;
	/* Value of parameter p at point i. */
	double (*value)(void *user, size_t i, int p);
	/* Sorted distinct values of parameter p; returns their count. */
	int (*values)(void *user, int p, const double **values);
	/* The point with exactly these values (one per parameter), or -1. */
	long (*find)(void *user, const double *values);
};

/*
 * One level of the breadth-first search ("bfs"): the parameters varied
 * together (one annotation's), and which of the versions measured at that
 * level go on to the next: those within `tolerance` per cent of the
 * level's best time (< 0: no such filter), at most `number` of them (0:
 * no cap).  With neither filter every correct version goes on, as in
 * OCLoptimizer.
 */
struct tune_stage {
	int nparams;
	const int *params;
	bool filters;       /* false: the run's bfs filters (opts below) apply */
	double tolerance;
	size_t number;
};

struct tune_strategy_opts {
	uint64_t seed;
	size_t budget;  /* evaluations planned, for schedules (annealing); 0: the whole space */
	int batch;      /* evaluations the caller keeps in flight; >= 1 */
	/* bfs: its levels, in order, after one level per parameter that no
	 * stage names (in parameter order).  The filters of those levels are
	 * bfs_tolerance and bfs_number when bfs_filters is set, else "the one
	 * best" (number 1). */
	int nstages;
	const struct tune_stage *stages;
	bool bfs_filters;
	double bfs_tolerance;
	size_t bfs_number;
};

struct tune_strategy;

/* Spaces of more points than this are too big for per-point arrays: the
 * strategies keep state only for the points they touch. */
#define TUNE_DENSE_MAX ((size_t)1 << 24)

/* The strategies' names, NULL-terminated, in the order `--help` lists them. */
extern const char *const tune_strategy_names[];

/*
 * Creates the strategy called `name` over `space` (which must outlive it).
 * 0, 1 for an unknown name, -1 on allocation failure.  Every strategy
 * works on a space of any size: beyond TUNE_DENSE_MAX points they keep
 * state only for the points they touch.
 */
int tune_strategy_new(struct tune_strategy **out, const char *name,
                      const struct tune_space *space, const struct tune_strategy_opts *o);
void tune_strategy_free(struct tune_strategy *s);

/*
 * Up to `max` points to evaluate next, written to `points`; returns how
 * many.  0 means: nothing to propose until a report arrives, or, if none
 * is in flight, the strategy has finished (every point visited, or
 * exhaustive search done).
 */
size_t tune_strategy_propose(struct tune_strategy *s, size_t *points, size_t max);

/* The cost of a proposed point (INFINITY for a failure).  Others are ignored. */
void tune_strategy_report(struct tune_strategy *s, size_t point, double cost);

/* Points proposed and not yet reported. */
size_t tune_strategy_in_flight(const struct tune_strategy *s);

/* ---- budgets ----------------------------------------------------------------- */

struct tune_budget {
	enum { TUNE_BUDGET_NONE, TUNE_BUDGET_EVALS, TUNE_BUDGET_SECONDS, TUNE_BUDGET_FRACTION } kind;
	double amount;  /* evaluations, seconds, or a fraction in (0, 1] */
};

/*
 * Parses "N" (evaluations), "Ns", "Nm", "Nh" (wall time) or "P%" (a
 * fraction of the space).  0, or -1 if the text is none of these.
 */
int tune_budget_parse(const char *text, struct tune_budget *b);

/* Evaluations the budget allows on a space of n points (n for a time budget). */
size_t tune_budget_evals(const struct tune_budget *b, size_t npoints);

/* ---- the budgeted search --------------------------------------------------------- */

/*
 * Wraps a strategy with a budget: tune_search_next() stops handing out
 * points once the planned number of evaluations has been proposed or the
 * time is up.  `elapsed_s` is the caller's clock, so tests can drive time.
 */
struct tune_search {
	struct tune_strategy *strategy;
	size_t planned;     /* evaluations the budget allows */
	double seconds;     /* time budget; 0: none */
	size_t proposed, reported;
};

void tune_search_init(struct tune_search *q, struct tune_strategy *s,
                      const struct tune_budget *b, size_t npoints);
size_t tune_search_next(struct tune_search *q, double elapsed_s, size_t *points, size_t max);
void tune_search_report(struct tune_search *q, size_t point, double cost);
/* True when nothing is in flight and nothing more will be proposed. */
bool tune_search_done(struct tune_search *q, double elapsed_s);

#endif
