/*
 * strategy_anneal.c - simulated annealing, one chain per evaluation kept
 * in flight.
 *
 * Each chain walks the neighbourhood graph.  A move to a worse point is
 * accepted with probability exp(-relative_loss / T); the temperature
 * falls geometrically from 1 to 0.01 over the planned evaluations, so
 * early on a chain accepts a point twice as slow with probability e^-1,
 * and at the end it only descends.  Costs are compared relatively because
 * kernel times span orders of magnitude.  A neighbour already measured
 * (by this chain or another) is judged from its known cost without a new
 * evaluation; a chain that finds no unseen neighbour in a few moves
 * restarts at a random unseen point.
 */
#include <math.h>
#include <stdlib.h>

#include "tuner/strategy_int.h"

enum { FREE_MOVES = 16 };

struct chain {
	long current;      /* -1: not started */
	double cost;       /* of current */
	long waiting;      /* proposed point whose cost the chain awaits, or -1 */
};

struct anneal {
	int nchains;
	struct chain *chains;
	size_t *neighbours;
	size_t reports;
};

static int anneal_init(struct tune_strategy *s)
{
	struct anneal *a = s->impl;
	a->nchains = s->opts.batch;
	a->chains = strategy_alloc(s, (size_t)a->nchains, sizeof *a->chains);
	a->neighbours = strategy_alloc(s, 2 * (size_t)s->space->nparams, sizeof *a->neighbours);
	if (!a->chains || !a->neighbours)
		return -1;
	for (int c = 0; c < a->nchains; c++)
		a->chains[c].current = a->chains[c].waiting = -1;
	return 0;
}

static double temperature(const struct tune_strategy *s, const struct anneal *a)
{
	double progress = (double)a->reports / (double)s->opts.budget;
	return pow(0.01, progress > 1 ? 1 : progress);
}

static bool accept(struct tune_strategy *s, struct anneal *a, double from, double to)
{
	if (to <= from || isinf(from))
		return true;
	if (isinf(to))
		return false;
	double loss = (to - from) / from;
	return rng_uniform(&s->rng) < exp(-loss / temperature(s, a));
}

static void restart(struct tune_strategy *s, struct chain *c, size_t *out, size_t *n)
{
	long i = strategy_random_unseen(s);
	c->current = -1;
	if (i >= 0 && strategy_take(s, (size_t)i, out, n))
		c->waiting = i;
}

static void step(struct tune_strategy *s, struct anneal *a, struct chain *c, size_t *out, size_t *n)
{
	if (c->current < 0) {
		restart(s, c, out, n);
		return;
	}
	for (int moves = 0; moves < FREE_MOVES; moves++) {
		int k = strategy_neighbours(s, (size_t)c->current, a->neighbours);
		if (k == 0)
			break;
		size_t q = a->neighbours[rng_below(&s->rng, (size_t)k)];
		if (strategy_state(s, q) == POINT_UNSEEN) {
			strategy_take(s, q, out, n);
			c->waiting = (long)q;
			return;
		}
		if (strategy_state(s, q) == POINT_DONE && accept(s, a, c->cost, strategy_cost(s, q))) {
			c->current = (long)q;
			c->cost = strategy_cost(s, q);
		}
	}
	restart(s, c, out, n);
}

static size_t anneal_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct anneal *a = s->impl;
	size_t n = 0;
	for (int i = 0; i < a->nchains && n < max; i++)
		if (a->chains[i].waiting < 0)
			step(s, a, &a->chains[i], out, &n);
	return n;
}

static void anneal_report(struct tune_strategy *s, size_t point, double cost)
{
	struct anneal *a = s->impl;
	a->reports++;
	for (int i = 0; i < a->nchains; i++) {
		struct chain *c = &a->chains[i];
		if (c->waiting != (long)point)
			continue;
		c->waiting = -1;
		if (c->current < 0 || accept(s, a, c->cost, cost)) {
			c->current = (long)point;
			c->cost = cost;
		}
		return;
	}
}

const struct strategy_ops strategy_anneal = {
	.impl_size = sizeof(struct anneal),
	.init = anneal_init,
	.propose = anneal_propose,
	.report = anneal_report,
};
