/*
 * strategy_pso.c - particle swarm optimisation on the coordinate grid.
 *
 * Positions live in [0, 1] per parameter (the index of the value over the
 * number of values), so parameters with few and many values move alike.
 * Each particle is pulled towards its own best and the swarm's best, then
 * snapped to the nearest unseen valid point: that keeps every proposal
 * new and valid, and stops a converged swarm from stalling.  Particles
 * move asynchronously: one waits only for its own evaluation, and the
 * free ones take turns, so with one evaluation in flight the whole swarm
 * moves, one particle after the other.
 *
 * The knobs were chosen on the recorded conv2d datasets (bench/search/,
 * the same for all three; docs/TUNING.md): 8 particles, inertia 0.5,
 * pulls 1.49 each, velocity at most 0.5 of an axis.  A swarm of 8 starts
 * moving early enough for budgets of 1-2 % of those spaces (its first 8
 * evaluations are random), and inertia 0.5, below the constriction
 * weights' 0.729, settles it sooner; swarms of 5-20, inertia 0.5-0.729,
 * pulls 1.49/1.49 or 2.0/1.0 and velocity limits 0.3-0.5 were tried.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/strategy_int.h"

enum { MIN_SWARM = 8 };

static const double inertia = 0.5, pull_own = 1.49, pull_swarm = 1.49;

struct particle {
	double *pos, *vel, *best_pos;
	double best_cost;
	long waiting;      /* -1: free */
	bool started;
};

struct pso {
	int nparticles, np;
	int turn;          /* the particle proposals start from: they take turns */
	struct particle *particles;
	double *swarm_best;
	double swarm_best_cost;
	double *storage;
};

static int pso_init(struct tune_strategy *s)
{
	struct pso *w = s->impl;
	w->np = s->space->nparams;
	w->nparticles = s->opts.batch > MIN_SWARM ? s->opts.batch : MIN_SWARM;
	size_t np = (size_t)w->np;
	w->particles = strategy_alloc(s, (size_t)w->nparticles, sizeof *w->particles);
	w->storage = strategy_alloc(s, (3 * (size_t)w->nparticles + 1) * np, sizeof *w->storage);
	if (!w->particles || !w->storage)
		return -1;
	for (int i = 0; i < w->nparticles; i++) {
		struct particle *p = &w->particles[i];
		p->pos = w->storage + (3 * (size_t)i) * np;
		p->vel = p->pos + np;
		p->best_pos = p->vel + np;
		p->best_cost = INFINITY;
		p->waiting = -1;
	}
	w->swarm_best = w->storage + 3 * (size_t)w->nparticles * np;
	w->swarm_best_cost = INFINITY;
	return 0;
}

/* The position of a point, each coordinate scaled to [0, 1]. */
static void position_of(struct tune_strategy *s, size_t point, double *pos)
{
	const uint32_t *c = strategy_coords(s, point);
	for (int p = 0; p < s->space->nparams; p++) {
		double span = s->nvalues[p] > 1 ? s->nvalues[p] - 1 : 1;
		pos[p] = c ? c[p] / span : 0;
	}
}

static void move(struct tune_strategy *s, struct pso *w, struct particle *p)
{
	bool swarm_known = isfinite(w->swarm_best_cost);
	bool own_known = isfinite(p->best_cost);
	for (int d = 0; d < w->np; d++) {
		double v = inertia * p->vel[d];
		if (own_known)
			v += pull_own * rng_uniform(&s->rng) * (p->best_pos[d] - p->pos[d]);
		if (swarm_known)
			v += pull_swarm * rng_uniform(&s->rng) * (w->swarm_best[d] - p->pos[d]);
		if (v > 0.5)
			v = 0.5;
		if (v < -0.5)
			v = -0.5;
		double x = p->pos[d] + v;
		if (x < 0 || x > 1) {
			/* bounce off the walls */
			x = x < 0 ? -x : 2 - x;
			v = -v;
		}
		p->pos[d] = x;
		p->vel[d] = v;
	}
}

static size_t pso_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct pso *w = s->impl;
	size_t n = 0;
	/* Particles take turns: with one evaluation in flight, starting from
	 * the first free particle every time would move particle 0 alone. */
	for (int k = 0; k < w->nparticles && n < max; k++) {
		struct particle *p = &w->particles[(w->turn + k) % w->nparticles];
		if (p->waiting >= 0)
			continue;
		long q;
		if (!p->started) {
			q = strategy_random_unseen(s);
			for (int d = 0; d < w->np; d++)
				p->vel[d] = (rng_uniform(&s->rng) - 0.5) * 0.2;
			p->started = true;
		} else {
			move(s, w, p);
			q = strategy_nearest_unseen(s, p->pos);
		}
		if (q < 0 || !strategy_take(s, (size_t)q, out, &n))
			break;
		position_of(s, (size_t)q, p->pos);
		p->waiting = q;
		w->turn = (int)(p - w->particles + 1) % w->nparticles;
	}
	return n;
}

static void pso_report(struct tune_strategy *s, size_t point, double cost)
{
	struct pso *w = s->impl;
	for (int i = 0; i < w->nparticles; i++) {
		struct particle *p = &w->particles[i];
		if (p->waiting != (long)point)
			continue;
		p->waiting = -1;
		if (cost < p->best_cost) {
			p->best_cost = cost;
			memcpy(p->best_pos, p->pos, (size_t)w->np * sizeof *p->pos);
		}
		if (cost < w->swarm_best_cost) {
			w->swarm_best_cost = cost;
			memcpy(w->swarm_best, p->pos, (size_t)w->np * sizeof *p->pos);
		}
		return;
	}
}

const struct strategy_ops strategy_pso = {
	.impl_size = sizeof(struct pso),
	.init = pso_init,
	.propose = pso_propose,
	.report = pso_report,
};
