/*
 * strategy_basic.c - exhaustive search (every point, in enumeration
 * order) and random search (uniform, without replacement).
 */
#include <stdlib.h>

#include "tuner/strategy_int.h"

struct exhaustive {
	size_t next;
};

static size_t exhaustive_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct exhaustive *e = s->impl;
	size_t n = 0;
	while (n < max && e->next < s->space->npoints)
		strategy_take(s, e->next++, out, &n);
	return n;
}

const struct strategy_ops strategy_exhaustive = {
	.impl_size = sizeof(struct exhaustive),
	.propose = exhaustive_propose,
};

static size_t random_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	size_t n = 0;
	long i;
	while (n < max && (i = strategy_random_unseen(s)) >= 0)
		strategy_take(s, (size_t)i, out, &n);
	return n;
}

const struct strategy_ops strategy_random = {
	.propose = random_propose,
};
