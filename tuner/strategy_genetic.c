/*
 * strategy_genetic.c - a steady-state genetic algorithm.
 *
 * A population of the best points measured so far (size max(16, 2 *
 * batch)) starts from random points.  Each child takes every parameter
 * from one of two parents chosen by tournament (uniform crossover), then
 * mutates each parameter with probability 1/nparams to an adjacent value,
 * or rarely to any value; it is snapped to the nearest unseen valid
 * point.  A measured child replaces the worst member if it is better.
 * Steady state rather than generations, so children can be proposed
 * whenever an evaluation slot frees up.
 */
#include <math.h>
#include <stdlib.h>

#include "tuner/strategy_int.h"

enum { MIN_POPULATION = 16, TOURNAMENT = 3 };

struct member {
	size_t point;
	double cost;
};

struct genetic {
	int capacity, size;
	int seeded;            /* random founders proposed */
	struct member *members;
	double *child;         /* a position in [0, 1]^nparams */
};

static int genetic_init(struct tune_strategy *s)
{
	struct genetic *g = s->impl;
	g->capacity = 2 * s->opts.batch > MIN_POPULATION ? 2 * s->opts.batch : MIN_POPULATION;
	g->members = strategy_alloc(s, (size_t)g->capacity, sizeof *g->members);
	g->child = strategy_alloc(s, (size_t)s->space->nparams, sizeof *g->child);
	return g->members && g->child ? 0 : -1;
}

static const struct member *tournament(struct tune_strategy *s, struct genetic *g)
{
	const struct member *best = NULL;
	for (int k = 0; k < TOURNAMENT; k++) {
		const struct member *m = &g->members[rng_below(&s->rng, (size_t)g->size)];
		if (!best || m->cost < best->cost)
			best = m;
	}
	return best;
}

static long breed(struct tune_strategy *s, struct genetic *g)
{
	const uint32_t *a = strategy_coords(s, tournament(s, g)->point);
	const uint32_t *b = strategy_coords(s, tournament(s, g)->point);
	int np = s->space->nparams;
	if (!a || !b)
		return strategy_random_unseen(s);
	for (int p = 0; p < np; p++) {
		long k = rng_uniform(&s->rng) < 0.5 ? a[p] : b[p];
		long nv = s->nvalues[p];
		if (rng_uniform(&s->rng) < 1.0 / np) {
			if (rng_uniform(&s->rng) < 0.1)
				k = (long)rng_below(&s->rng, (size_t)nv);
			else
				k += rng_uniform(&s->rng) < 0.5 ? -1 : 1;
			k = k < 0 ? 0 : k >= nv ? nv - 1 : k;
		}
		g->child[p] = nv > 1 ? (double)k / (double)(nv - 1) : 0;
	}
	return strategy_nearest_unseen(s, g->child);
}

static size_t genetic_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct genetic *g = s->impl;
	size_t n = 0;
	while (n < max) {
		long q;
		if (g->seeded < g->capacity) {
			q = strategy_random_unseen(s);
			g->seeded++;
		} else if (g->size >= 2) {
			q = breed(s, g);
		} else {
			break;  /* founders still in flight */
		}
		if (q < 0 || !strategy_take(s, (size_t)q, out, &n))
			break;
	}
	return n;
}

static void genetic_report(struct tune_strategy *s, size_t point, double cost)
{
	struct genetic *g = s->impl;
	if (g->size < g->capacity) {
		g->members[g->size++] = (struct member){ point, cost };
		return;
	}
	int worst = 0;
	for (int i = 1; i < g->size; i++)
		if (g->members[i].cost > g->members[worst].cost)
			worst = i;
	if (cost < g->members[worst].cost || isinf(g->members[worst].cost))
		g->members[worst] = (struct member){ point, cost };
}

const struct strategy_ops strategy_genetic = {
	.impl_size = sizeof(struct genetic),
	.init = genetic_init,
	.propose = genetic_propose,
	.report = genetic_report,
};
