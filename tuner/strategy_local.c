/*
 * strategy_local.c - steepest-descent local search with random restarts
 * ("local").
 *
 * A climber measures every neighbour of its point (in parallel: they are
 * proposed together), moves to the best one if it is faster, and restarts
 * at a random unseen point when no neighbour is: a local minimum.  One
 * climber per evaluation kept in flight.
 */
#include <stdlib.h>

#include "tuner/strategy_int.h"

enum { MAX_MOVES = 64 };

struct climber {
	long current;      /* -1: restarting */
	double cost;
	long start;        /* the restart point being measured, or -1 */
	int noutstanding;  /* neighbours proposed and not reported */
	size_t *outstanding;
};

struct local {
	int nclimbers;
	struct climber *climbers;
	size_t *neighbours, *storage;
};

static int local_init(struct tune_strategy *s)
{
	struct local *l = s->impl;
	size_t width = 2 * (size_t)s->space->nparams + 1;
	l->nclimbers = s->opts.batch;
	l->climbers = strategy_alloc(s, (size_t)l->nclimbers, sizeof *l->climbers);
	l->storage = strategy_alloc(s, ((size_t)l->nclimbers + 1) * width, sizeof *l->storage);
	if (!l->climbers || !l->storage)
		return -1;
	l->neighbours = l->storage + (size_t)l->nclimbers * width;
	for (int i = 0; i < l->nclimbers; i++) {
		l->climbers[i].current = l->climbers[i].start = -1;
		l->climbers[i].outstanding = l->storage + (size_t)i * width;
	}
	return 0;
}

static void climb(struct tune_strategy *s, struct local *l, struct climber *c,
                  size_t *out, size_t *n, size_t max)
{
	for (int moves = 0; moves < MAX_MOVES && *n < max; moves++) {
		if (c->start >= 0 || c->noutstanding > 0)
			return;  /* waiting for measurements */
		if (c->current < 0) {
			long q = strategy_random_unseen(s);
			if (q >= 0 && strategy_take(s, (size_t)q, out, n))
				c->start = q;
			return;
		}
		int k = strategy_neighbours(s, (size_t)c->current, l->neighbours);
		bool pending = false;
		long best = -1;
		for (int i = 0; i < k; i++) {
			size_t q = l->neighbours[i];
			if (strategy_state(s, q) == POINT_UNSEEN && *n < max) {
				strategy_take(s, q, out, n);
				c->outstanding[c->noutstanding++] = q;
			} else if (strategy_state(s, q) != POINT_DONE) {
				pending = true;
			} else if (best < 0 || strategy_cost(s, q) < strategy_cost(s, best)) {
				best = (long)q;
			}
		}
		if (c->noutstanding > 0 || pending)
			return;
		if (best >= 0 && strategy_cost(s, best) < c->cost) {
			c->current = best;
			c->cost = strategy_cost(s, best);
		} else {
			c->current = -1;  /* a local minimum: restart */
		}
	}
}

static size_t local_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct local *l = s->impl;
	size_t n = 0;
	for (int i = 0; i < l->nclimbers && n < max; i++)
		climb(s, l, &l->climbers[i], out, &n, max);
	return n;
}

static void local_report(struct tune_strategy *s, size_t point, double cost)
{
	struct local *l = s->impl;
	for (int i = 0; i < l->nclimbers; i++) {
		struct climber *c = &l->climbers[i];
		if (c->start == (long)point) {
			c->start = -1;
			c->current = (long)point;
			c->cost = cost;
			return;
		}
		for (int k = 0; k < c->noutstanding; k++) {
			if (c->outstanding[k] == point) {
				c->outstanding[k] = c->outstanding[--c->noutstanding];
				return;
			}
		}
	}
}

const struct strategy_ops strategy_local = {
	.impl_size = sizeof(struct local),
	.init = local_init,
	.propose = local_propose,
	.report = local_report,
};
