/*
 * strategy_bfs.c - OCLoptimizer's breadth-first search ("bfs"; Fabeiro
 * et al., seed 003, Section 2.2 and Fig. 6).
 *
 * The search goes level by level.  Level 0 measures one starting point
 * (the space's first, or a random one while the start fails).  Each
 * later level takes one parameter, or the parameters of one annotation
 * (struct tune_stage), and, for every version that survived the level
 * before, measures every valid point that differs from it only in those
 * parameters.  Of all the versions of the level, those that pass its
 * filters (within `tolerance` per cent of the level's best, at most
 * `number`) survive.  After the last level the best survivor is the
 * result and the search ends, as OCLoptimizer's does: unlike the other
 * strategies it is not topped up with random points (strategy_ops.ends).
 *
 * Levels whose points are all measured already (a resumed run, or
 * points shared with an earlier level) pass without waiting.
 *
 * Under a budget smaller than the space the search goes on instead of
 * ending: a pass that found a better point than the one it started from
 * is followed by another pass from its best survivors (the levels again,
 * which is coordinate descent with the default filters), and a pass that
 * found nothing better (or whose versions all failed) by a pass from a
 * random unmeasured point.  One pass and an end measured 12 of 595
 * points of the conv11 dataset and gave the same best (0.376 of the
 * optimum) for every budget above that (bench/search/).
 *
 * A level's members are found by scanning the space (dense mode) or, on a
 * space too big to list (sparse mode, strategy_int.h), by trying every
 * combination of the varied parameters' values around each survivor, a
 * lookup each; the lists grow with the members, not with the space.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/strategy_int.h"

struct ranked {
	double cost;
	size_t point;
};

struct level {
	int nparams;
	int *params;
	double tolerance;   /* < 0: none */
	size_t number;      /* 0: no cap */
};

struct bfs {
	int nlevels;
	struct level *levels;
	int current;        /* -1: the start; nlevels: done */
	long start;         /* the starting point being measured, or -1 */
	size_t *survivors, nsurvivors;
	size_t *members, nmembers;  /* the versions of the current level */
	size_t cap;                 /* of survivors, members and ranked */
	struct ranked *ranked;      /* scratch: the members sorted by cost */
	uint32_t *mark;     /* per point: the stamp of the level it was made a member of (dense mode) */
	bool *varied;       /* per parameter: varied by the current level */
	bool started;
	bool again;         /* a budget smaller than the space: passes go on */
	long pass_start;    /* the best point the pass started from */
	uint32_t pass;      /* passes before this one (mark's stamps differ) */
};

static int bfs_init(struct tune_strategy *s)
{
	struct bfs *b = s->impl;
	int np = s->space->nparams;
	size_t n = s->space->npoints;
	bool *named = strategy_alloc(s, (size_t)np, sizeof *named);
	b->levels = strategy_alloc(s, (size_t)np + (size_t)s->opts.nstages, sizeof *b->levels);
	b->cap = s->sparse ? 1024 : n + 1;
	b->survivors = strategy_alloc(s, b->cap, sizeof *b->survivors);
	b->members = strategy_alloc(s, b->cap, sizeof *b->members);
	b->mark = s->sparse ? NULL : strategy_alloc(s, n, sizeof *b->mark);
	b->varied = strategy_alloc(s, (size_t)np, sizeof *b->varied);
	b->ranked = strategy_alloc(s, b->cap, sizeof *b->ranked);
	if (!named || !b->levels || !b->survivors || !b->members || !(b->mark || s->sparse) ||
	    !b->varied || !b->ranked)
		return -1;
	for (int k = 0; k < s->opts.nstages; k++)
		for (int j = 0; j < s->opts.stages[k].nparams; j++)
			if (s->opts.stages[k].params[j] >= 0 && s->opts.stages[k].params[j] < np)
				named[s->opts.stages[k].params[j]] = true;
	/* The parameters no annotation names (the work-group shape, the
	 * hand-written ones) first, one level each, as OCLoptimizer searches
	 * the workspace before the annotations. */
	double tol = s->opts.bfs_filters ? s->opts.bfs_tolerance : -1;
	size_t number = s->opts.bfs_filters ? s->opts.bfs_number : 1;
	for (int p = 0; p < np; p++) {
		if (named[p])
			continue;
		struct level *l = &b->levels[b->nlevels++];
		l->params = strategy_alloc(s, 1, sizeof *l->params);
		if (!l->params)
			return -1;
		l->nparams = 1;
		l->params[0] = p;
		l->tolerance = tol;
		l->number = number;
	}
	strategy_free(s, named);
	for (int k = 0; k < s->opts.nstages; k++) {
		const struct tune_stage *st = &s->opts.stages[k];
		struct level *l = &b->levels[b->nlevels++];
		l->params = strategy_alloc(s, (size_t)st->nparams, sizeof *l->params);
		if (!l->params)
			return -1;
		for (int j = 0; j < st->nparams; j++)
			if (st->params[j] >= 0 && st->params[j] < np)
				l->params[l->nparams++] = st->params[j];
		l->tolerance = st->filters ? st->tolerance : tol;
		l->number = st->filters ? st->number : number;
	}
	b->current = -1;
	b->start = -1;
	b->again = s->opts.budget < n;
	return 0;
}

/* True when points i and j agree on every parameter the level does not vary. */
static bool same_elsewhere(struct tune_strategy *s, struct bfs *b, size_t i, size_t j)
{
	const struct tune_space *sp = s->space;
	for (int p = 0; p < sp->nparams; p++)
		if (!b->varied[p] && sp->value(sp->user, i, p) != sp->value(sp->user, j, p))
			return false;
	return true;
}

/* Room for one more member (sparse mode's lists grow); false when out of memory. */
static bool room(struct tune_strategy *s, struct bfs *b)
{
	if (b->nmembers < b->cap)
		return true;
	size_t cap = 2 * b->cap;
	size_t *sv = strategy_realloc(s, b->survivors, cap, sizeof *sv);
	if (sv)
		b->survivors = sv;
	size_t *m = strategy_realloc(s, b->members, cap, sizeof *m);
	if (m)
		b->members = m;
	struct ranked *r = strategy_realloc(s, b->ranked, cap, sizeof *r);
	if (r)
		b->ranked = r;
	if (!sv || !m || !r)
		return false;
	b->cap = cap;
	return true;
}

static int by_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, c = *(const size_t *)y;
	return (a > c) - (a < c);
}

/* Sparse mode's members: each survivor with the level's parameters set to
 * every combination of their values that the constraints accept, in
 * point order (as the dense scan finds them), without repeats. */
static void open_level_sparse(struct tune_strategy *s, struct bfs *b, const struct level *l)
{
	int np = s->space->nparams;
	uint32_t *at = s->coord_scratch;
	for (size_t q = 0; q < b->nsurvivors; q++) {
		const uint32_t *c = strategy_coords(s, b->survivors[q]);
		if (!c)
			return;
		memcpy(at, c, (size_t)np * sizeof *at);
		for (int j = 0; j < l->nparams; j++)
			at[l->params[j]] = 0;
		/* an odometer over the varied parameters' value indices */
		for (;;) {
			long i = strategy_at(s, at);
			if (i >= 0) {
				if (!room(s, b))
					return;
				b->members[b->nmembers++] = (size_t)i;
			}
			int j = 0;
			while (j < l->nparams && ++at[l->params[j]] == (uint32_t)s->nvalues[l->params[j]])
				at[l->params[j++]] = 0;
			if (j == l->nparams)
				break;
		}
	}
	qsort(b->members, b->nmembers, sizeof *b->members, by_index);
	size_t k = 0;
	for (size_t m = 0; m < b->nmembers; m++)
		if (k == 0 || b->members[m] != b->members[k - 1])
			b->members[k++] = b->members[m];
	b->nmembers = k;
}

/* The members of level k: every point that differs from a survivor only
 * in the level's parameters (the survivors included). */
static void open_level(struct tune_strategy *s, struct bfs *b, int k)
{
	const struct level *l = &b->levels[k];
	memset(b->varied, 0, (size_t)s->space->nparams * sizeof *b->varied);
	for (int j = 0; j < l->nparams; j++)
		b->varied[l->params[j]] = true;
	b->nmembers = 0;
	if (s->sparse) {
		open_level_sparse(s, b, l);
		return;
	}
	uint32_t stamp = b->pass * ((uint32_t)b->nlevels + 1) + (uint32_t)k + 2;
	for (size_t i = 0; i < s->space->npoints; i++)
		for (size_t q = 0; q < b->nsurvivors; q++)
			if (b->mark[i] != stamp && same_elsewhere(s, b, i, b->survivors[q])) {
				b->mark[i] = stamp;
				b->members[b->nmembers++] = i;
				break;
			}
}

static int by_cost(const void *x, const void *y)
{
	const struct ranked *a = x, *c = y;
	if (a->cost != c->cost)
		return a->cost < c->cost ? -1 : 1;
	/* equal times: the earlier point, so the order is deterministic */
	return (a->point > c->point) - (a->point < c->point);
}

/* The level is measured: the versions that pass its filters survive.
 * When every version failed none does, and the search ends. */
static void close_level(struct tune_strategy *s, struct bfs *b, int k)
{
	const struct level *l = &b->levels[k];
	size_t n = 0;
	for (size_t m = 0; m < b->nmembers; m++)
		if (isfinite(strategy_cost(s, b->members[m])))
			b->ranked[n++] = (struct ranked){ strategy_cost(s, b->members[m]), b->members[m] };
	qsort(b->ranked, n, sizeof *b->ranked, by_cost);
	b->nsurvivors = 0;
	for (size_t m = 0; m < n; m++) {
		if (l->number && b->nsurvivors >= l->number)
			break;
		if (l->tolerance >= 0 && b->ranked[m].cost > b->ranked[0].cost * (1 + l->tolerance / 100))
			break;
		b->survivors[b->nsurvivors++] = b->ranked[m].point;
	}
}

/* After the last level, under a budget: another pass from the best
 * survivors where the pass improved on its start, else from a random
 * point (the start again).  False when the search ends. */
static bool next_pass(struct tune_strategy *s, struct bfs *b)
{
	b->pass++;
	if (b->nsurvivors > 0 && b->survivors[0] != (size_t)b->pass_start &&
	    strategy_cost(s, b->survivors[0]) < strategy_cost(s, (size_t)b->pass_start)) {
		b->pass_start = (long)b->survivors[0];
		b->current = 0;
		if (b->nlevels == 0)
			return false;
		open_level(s, b, 0);
		return true;
	}
	if (s->nunseen == 0)
		return false;
	b->current = -1;
	b->start = -1;
	return true;
}

static size_t bfs_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct bfs *b = s->impl;
	size_t n = 0;
	for (;;) {
		if (b->current < 0) {
			if (b->start >= 0 && strategy_state(s, b->start) == POINT_UNSEEN && n < max)
				strategy_take(s, (size_t)b->start, out, &n);
			if (b->start >= 0 && strategy_state(s, b->start) != POINT_DONE)
				return n;  /* waiting for the start */
			if (b->start >= 0 && isfinite(strategy_cost(s, b->start))) {
				b->survivors[0] = (size_t)b->start;
				b->nsurvivors = 1;
				b->pass_start = b->start;
				b->current = 0;
				if (b->nlevels > 0)
					open_level(s, b, 0);
				continue;
			}
			/* no start yet, or it failed: the first point, then random ones */
			long q = !b->started ? 0 : strategy_random_unseen(s);
			b->started = true;
			if (q < 0 || (size_t)q >= s->space->npoints) {
				b->current = b->nlevels;
				b->again = false;
				return n;
			}
			b->start = q;
			continue;
		}
		if (b->current >= b->nlevels) {
			if (!b->again || !next_pass(s, b))
				return n;
			continue;
		}
		bool waiting = false;
		for (size_t m = 0; m < b->nmembers; m++) {
			size_t q = b->members[m];
			if (strategy_state(s, q) == POINT_UNSEEN && n < max)
				strategy_take(s, q, out, &n);
			if (strategy_state(s, q) != POINT_DONE)
				waiting = true;
		}
		if (waiting)
			return n;
		close_level(s, b, b->current);
		b->current++;
		if (b->nsurvivors == 0)
			b->current = b->nlevels;
		if (b->current < b->nlevels)
			open_level(s, b, b->current);
	}
}

const struct strategy_ops strategy_bfs = {
	.impl_size = sizeof(struct bfs),
	.init = bfs_init,
	.propose = bfs_propose,
	.ends = true,
};
