/*
 * strategy_bandit.c - a multi-armed bandit over other strategies
 * ("bandit"), with the area-under-the-curve credit of ATF's AUC bandit
 * (after OpenTuner's AUCBanditMetaTechnique; Fialho et al., "Comparison-
 * based adaptive strategy selection with bandits in differential
 * evolution").
 *
 * Each arm is a whole strategy over the same space, with its own seed.
 * For every evaluation the bandit asks the arm with the highest score
 *
 *     AUC(arm) + C * sqrt(2 log2(|history|) / uses(arm))
 *
 * (an arm not used yet first; ties at random), where the history is the
 * last WINDOW evaluations, each remembered as (arm, whether it found a new
 * best).  AUC(arm) is the area under the curve of the arm's own uses in
 * that window: its i-th use counts i if it found a new best, and the sum
 * is divided by uses (uses + 1) / 2, so recent successes weigh more and a
 * steady finder scores 1.  The defaults are ATF's: C = 0.05, WINDOW = 500.
 *
 * As in ATF, an arm hears only the costs of its own proposals.  A point
 * another arm already measured is answered from the shared results at
 * once (no evaluation, no credit); one still in flight is answered when
 * its cost arrives.
 *
 * The arms (ARMS below) were chosen on bench/search's datasets, once for
 * all of them: ATF's own set is simulated annealing, pattern search and
 * Torczon's simplex.  Of the sets tried (median of 50 seeds, best found /
 * optimum at 2 % of conv3, conv7, conv11): annealing, local search (a
 * pattern search over the neighbourhood) and genetic 0.944, 0.823, 0.743;
 * bo, annealing, local and genetic 0.988, 0.880, 0.796; bo and genetic
 * 0.999, 0.930, 0.740; bo and annealing 0.994, 0.958, 0.811, the default.
 * Each arm learns only from its own share of the evaluations, so at small
 * budgets the bandit stays behind bo alone (bench/search/README.md).
 */
#include <math.h>
#include <stdlib.h>

#include "tuner/strategy_int.h"

/* The arms (chosen as the top of the file says). */
static const char *const ARMS[] = { "bo", "anneal" };
enum { NARMS = sizeof ARMS / sizeof *ARMS, WINDOW = 500,
       /* proposals an arm may make per slot that turn out already measured */
       DUPLICATES = 64 };
static const double C = 0.05;

struct waiter {
	size_t point;
	int arm;
	bool owner;   /* the arm whose proposal is being evaluated */
};

struct bandit {
	struct tune_strategy *arms[NARMS];
	int history_arm[WINDOW];
	bool history_best[WINDOW];
	int nhistory, history_next;
	double best;
	struct waiter *waiters;
	size_t nwaiters, cap;
};

static uint64_t arm_seed(uint64_t seed, int arm)
{
	/* splitmix64 of seed and arm: unrelated streams per arm */
	uint64_t z = seed + (uint64_t)(arm + 1) * UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int bandit_init(struct tune_strategy *s)
{
	struct bandit *b = s->impl;
	b->best = INFINITY;
	for (int k = 0; k < NARMS; k++) {
		struct tune_strategy_opts o = s->opts;
		o.seed = arm_seed(s->opts.seed, k);
		if (tune_strategy_new(&b->arms[k], ARMS[k], s->space, &o) != 0)
			return -1;
	}
	return 0;
}

/* The arm's uses in the window and its AUC credit. */
static double auc(const struct bandit *b, int arm, int *uses)
{
	double score = 0;
	int pos = 0;
	int first = b->nhistory < WINDOW ? 0 : b->history_next;
	for (int i = 0; i < b->nhistory; i++) {
		int h = (first + i) % WINDOW;
		if (b->history_arm[h] != arm)
			continue;
		pos++;
		if (b->history_best[h])
			score += pos;
	}
	*uses = pos;
	return pos ? score * 2.0 / (pos * (pos + 1.0)) : 0;
}

/* The arms in the order of their scores, best first. */
static void rank_arms(struct tune_strategy *s, struct bandit *b, int *order, int *narms)
{
	double score[NARMS];
	int n = 0;
	for (int k = 0; k < NARMS; k++) {
		int uses;
		double credit = auc(b, k, &uses);
		score[k] = uses == 0 ? INFINITY
		           : credit + C * sqrt(2.0 * log2((double)b->nhistory) / uses);
		/* insertion at a random place among equals: ties at random */
		int at = n++;
		order[at] = k;
		while (at > 0 && (score[order[at - 1]] < score[k] ||
		                  (score[order[at - 1]] == score[k] && rng_below(&s->rng, 2)))) {
			order[at] = order[at - 1];
			order[--at] = k;
		}
	}
	*narms = n;
}

static bool add_waiter(struct tune_strategy *s, struct bandit *b, size_t point, int arm, bool owner)
{
	if (b->nwaiters == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct waiter *w = strategy_realloc(s, b->waiters, cap, sizeof *w);
		if (!w)
			return false;
		b->waiters = w;
		b->cap = cap;
	}
	b->waiters[b->nwaiters++] = (struct waiter){ point, arm, owner };
	return true;
}

/*
 * One point from the arm, taken into out; false when the arm offers none
 * that needs an evaluation now.  Already measured proposals are answered
 * here, so the arm moves on.
 */
static bool ask(struct tune_strategy *s, struct bandit *b, int arm, size_t *out, size_t *n)
{
	for (int tries = 0; tries < DUPLICATES; tries++) {
		size_t p;
		if (tune_strategy_propose(b->arms[arm], &p, 1) == 0)
			return false;
		switch (strategy_state(s, p)) {
		case POINT_UNSEEN:
			if (!add_waiter(s, b, p, arm, true))
				return false;
			strategy_take(s, p, out, n);
			return true;
		case POINT_DONE:
			tune_strategy_report(b->arms[arm], p, strategy_cost(s, p));
			break;
		case POINT_PENDING:
			if (!add_waiter(s, b, p, arm, false))
				return false;
			break;
		}
	}
	return false;
}

static size_t bandit_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct bandit *b = s->impl;
	size_t n = 0;
	while (n < max) {
		int order[NARMS], narms;
		rank_arms(s, b, order, &narms);
		bool took = false;
		for (int i = 0; i < narms && !took; i++)
			took = ask(s, b, order[i], out, &n);
		if (!took)
			break;
	}
	return n;
}

static void bandit_report(struct tune_strategy *s, size_t point, double cost)
{
	struct bandit *b = s->impl;
	for (size_t i = 0; i < b->nwaiters;) {
		struct waiter w = b->waiters[i];
		if (w.point != point) {
			i++;
			continue;
		}
		b->waiters[i] = b->waiters[--b->nwaiters];
		if (w.owner) {
			int h = b->history_next;
			b->history_arm[h] = w.arm;
			b->history_best[h] = cost < b->best;
			b->history_next = (h + 1) % WINDOW;
			if (b->nhistory < WINDOW)
				b->nhistory++;
			if (cost < b->best)
				b->best = cost;
		}
		tune_strategy_report(b->arms[w.arm], point, cost);
	}
}

static void bandit_release(struct tune_strategy *s)
{
	struct bandit *b = s->impl;
	for (int k = 0; k < NARMS; k++)
		tune_strategy_free(b->arms[k]);
}

const struct strategy_ops strategy_bandit = {
	.impl_size = sizeof(struct bandit),
	.init = bandit_init,
	.propose = bandit_propose,
	.report = bandit_report,
	.release = bandit_release,
};
