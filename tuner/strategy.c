/*
 * strategy.c - the strategy framework: point bookkeeping, the random
 * generator, neighbourhoods, snapping to valid points, budgets and the
 * budgeted search (see strategy.h).  The strategies themselves live in
 * strategy_basic.c, strategy_anneal.c, strategy_pso.c,
 * strategy_genetic.c, strategy_local.c, strategy_bfs.c, strategy_bo.c
 * and strategy_bandit.c (a bandit over some of the others).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/strategy_int.h"

/* ORDER STRATEGIES: the ops of tune_strategy_names[i] (a name is written
 * only there). */
static const struct strategy_ops *const all_strategies[] = {
	&strategy_exhaustive, &strategy_random, &strategy_anneal, &strategy_pso,
	&strategy_genetic, &strategy_local, &strategy_bfs, &strategy_bo, &strategy_bandit,
};

/* ORDER STRATEGIES */
const char *const tune_strategy_names[] = {
	"exhaustive", "random", "anneal", "pso", "genetic", "local", "bfs", "bo", "bandit", NULL
};
_Static_assert(sizeof all_strategies / sizeof *all_strategies + 1 ==
               sizeof tune_strategy_names / sizeof *tune_strategy_names, "one name per strategy");

/* ---- memory a strategy owns ------------------------------------------------------ */

/* Each block has this header in front; the blocks of a strategy form a
 * list that tune_strategy_free frees, so neither the framework nor a
 * strategy frees its arrays one by one, and an init() that fails half-way
 * leaks nothing. */
struct owned {
	struct owned *next;
	max_align_t data[];
};

static struct owned *owned_of(void *p)
{
	return (struct owned *)((char *)p - offsetof(struct owned, data));
}

/* The link that points at p's block. */
static struct owned **owned_link(struct tune_strategy *s, void *p)
{
	struct owned **at = &s->owned;
	while (*at != owned_of(p))
		at = &(*at)->next;
	return at;
}

void *strategy_alloc(struct tune_strategy *s, size_t n, size_t size)
{
	if (size && n > (SIZE_MAX - sizeof(struct owned)) / size)
		return NULL;
	struct owned *b = calloc(1, sizeof *b + n * size);
	if (!b)
		return NULL;
	b->next = s->owned;
	s->owned = b;
	return b->data;
}

void *strategy_realloc(struct tune_strategy *s, void *p, size_t n, size_t size)
{
	if (!p)
		return strategy_alloc(s, n, size);
	if (size && n > (SIZE_MAX - sizeof(struct owned)) / size)
		return NULL;
	struct owned **at = owned_link(s, p);
	struct owned *b = realloc(*at, sizeof *b + n * size);
	if (!b)
		return NULL;
	*at = b;
	return b->data;
}

void strategy_free(struct tune_strategy *s, void *p)
{
	if (!p)
		return;
	struct owned **at = owned_link(s, p);
	struct owned *b = *at;
	*at = b->next;
	free(b);
}

/* ---- random numbers ---------------------------------------------------------- */

/* spacert's generator (runtime/access.c), so that `spacec sample` and the
 * strategies draw alike. */
void rng_seed(struct rng *r, uint64_t seed)
{
	sprt_rng_seed(&r->g, seed);
}

uint64_t rng_next(struct rng *r)
{
	return sprt_rng_next(&r->g);
}

double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

size_t rng_below(struct rng *r, size_t n)
{
	/* Lemire's rejection keeps the draw unbiased for any n. */
	uint64_t limit = -(uint64_t)n % n, x;
	do
		x = rng_next(r);
	while (x < limit);
	return (size_t)(x % n);
}

/* ---- points ---------------------------------------------------------------- */

static size_t visit_slot(const struct tune_strategy *s, size_t point)
{
	uint64_t h = ((uint64_t)point + 1) * UINT64_C(0x9e3779b97f4a7c15);
	size_t i = (size_t)(h >> 20) & (s->vcap - 1);
	while (s->visits[i].key && s->visits[i].key != (uint64_t)point + 1)
		i = (i + 1) & (s->vcap - 1);
	return i;
}

enum point_state strategy_state(const struct tune_strategy *s, size_t point)
{
	if (!s->sparse)
		return (enum point_state)s->state[point];
	const struct visit *v = &s->visits[visit_slot(s, point)];
	return v->key ? (enum point_state)v->state : POINT_UNSEEN;
}

double strategy_cost(const struct tune_strategy *s, size_t point)
{
	if (!s->sparse)
		return s->cost[point];
	const struct visit *v = &s->visits[visit_slot(s, point)];
	return v->key ? v->cost : INFINITY;
}

/* Sets a point's state (and cost); false where the table cannot grow. */
static bool set_state(struct tune_strategy *s, size_t point, enum point_state st, double cost)
{
	if (!s->sparse) {
		s->state[point] = (uint8_t)st;
		s->cost[point] = cost;
		return true;
	}
	if ((s->nvisits + 1) * 2 > s->vcap) {
		size_t cap = s->vcap * 2;
		struct visit *old = s->visits, *nv = strategy_alloc(s, cap, sizeof *nv);
		if (!nv)
			return false;
		size_t oldcap = s->vcap;
		s->visits = nv;
		s->vcap = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				s->visits[visit_slot(s, (size_t)old[i].key - 1)] = old[i];
		strategy_free(s, old);
	}
	struct visit *v = &s->visits[visit_slot(s, point)];
	if (!v->key) {
		v->key = (uint64_t)point + 1;
		s->nvisits++;
	}
	v->state = (uint8_t)st;
	v->cost = cost;
	return true;
}

bool strategy_take(struct tune_strategy *s, size_t point, size_t *out, size_t *n)
{
	if (point >= s->space->npoints || strategy_state(s, point) != POINT_UNSEEN)
		return false;
	if (!set_state(s, point, POINT_PENDING, INFINITY))
		return false;
	s->nunseen--;
	s->npending++;
	out[(*n)++] = point;
	return true;
}

long strategy_random_unseen(struct tune_strategy *s)
{
	size_t n = s->space->npoints;
	if (s->nunseen == 0)
		return -1;
	/* Rejection while unseen points are common; then a scan from a random
	 * start, so the cost stays bounded when few are left. */
	for (int tries = 0; tries < 32; tries++) {
		size_t i = rng_below(&s->rng, n);
		if (strategy_state(s, i) == POINT_UNSEEN)
			return (long)i;
	}
	if (s->sparse) {
		/* At most STRATEGY_DENSE_MAX / 2 points are ever touched here
		 * before memory runs out, so unseen ones are the rule: keep
		 * drawing (a scan would cost the space's size). */
		for (;;) {
			size_t i = rng_below(&s->rng, n);
			if (strategy_state(s, i) == POINT_UNSEEN)
				return (long)i;
		}
	}
	size_t start = rng_below(&s->rng, n);
	for (size_t k = 0; k < n; k++) {
		size_t i = (start + k) % n;
		if (s->state[i] == POINT_UNSEEN)
			return (long)i;
	}
	return -1;
}

static int value_index(const double *values, int n, double x)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (values[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t point_slot(size_t point)
{
	return (size_t)((((uint64_t)point + 1) * UINT64_C(0x9e3779b97f4a7c15)) >> 40) & (MEMO_SLOTS - 1);
}

static size_t coords_slot(const uint32_t *c, int np)
{
	uint64_t h = UINT64_C(1469598103934665603);
	for (int p = 0; p < np; p++)
		h = (h ^ c[p]) * UINT64_C(1099511628211);
	return (size_t)(h ^ (h >> 29)) & (MEMO_SLOTS - 1);
}

/* Sparse mode: the point's coordinates are known (strategy_at found it there). */
static void memo_coords(struct tune_strategy *s, size_t point, const uint32_t *c)
{
	size_t np = (size_t)s->space->nparams, slot = point_slot(point);
	s->coords_key[slot] = (uint64_t)point + 1;
	memcpy(s->coords_memo + slot * np, c, np * sizeof *c);
}

const uint32_t *strategy_coords(struct tune_strategy *s, size_t point)
{
	const struct tune_space *sp = s->space;
	size_t np = (size_t)sp->nparams;
	if (s->sparse) {
		uint32_t *c = s->coord_ring + (size_t)s->ring_next * np;
		s->ring_next = (s->ring_next + 1) % COORD_RING;
		size_t slot = point_slot(point);
		uint32_t *m = s->coords_memo + slot * np;
		if (s->coords_key[slot] != (uint64_t)point + 1) {
			for (size_t p = 0; p < np; p++)
				m[p] = (uint32_t)value_index(s->values[p], s->nvalues[p],
							     sp->value(sp->user, point, (int)p));
			s->coords_key[slot] = (uint64_t)point + 1;
		}
		memcpy(c, m, np * sizeof *c);
		return c;
	}
	if (!s->coords) {
		if (np && sp->npoints > SIZE_MAX / np / sizeof *s->coords)
			return NULL;
		s->coords = strategy_alloc(s, sp->npoints * np, sizeof *s->coords);
		if (!s->coords)
			return NULL;
		for (size_t i = 0; i < sp->npoints; i++)
			for (size_t p = 0; p < np; p++)
				s->coords[i * np + p] = (uint32_t)value_index(
					s->values[p], s->nvalues[p], sp->value(sp->user, i, (int)p));
	}
	return s->coords + point * np;
}

long strategy_at(struct tune_strategy *s, const uint32_t *coords)
{
	int np = s->space->nparams;
	size_t slot = 0;
	if (s->sparse) {
		slot = coords_slot(coords, np);
		if (s->at_used[slot] && !memcmp(s->at_coords + slot * (size_t)np, coords, (size_t)np * sizeof *coords))
			return s->at_point[slot];
	}
	for (int p = 0; p < np; p++)
		s->value_scratch[p] = s->values[p][coords[p]];
	long q = s->space->find(s->space->user, s->value_scratch);
	if (s->sparse) {
		s->at_used[slot] = 1;
		memcpy(s->at_coords + slot * (size_t)np, coords, (size_t)np * sizeof *coords);
		s->at_point[slot] = q;
		if (q >= 0)
			memo_coords(s, (size_t)q, coords);
	}
	return q;
}

int strategy_neighbours(struct tune_strategy *s, size_t point, size_t *out)
{
	int np = s->space->nparams, count = 0;
	const uint32_t *c = strategy_coords(s, point);
	uint32_t *at = s->coord_scratch;
	if (!c)
		return 0;
	for (int p = 0; p < np; p++) {
		for (int dir = -1; dir <= 1; dir += 2) {
			memcpy(at, c, (size_t)np * sizeof *at);
			for (long k = (long)c[p] + dir; k >= 0 && k < s->nvalues[p]; k += dir) {
				at[p] = (uint32_t)k;
				long q = strategy_at(s, at);
				if (q >= 0) {
					out[count++] = (size_t)q;
					break;
				}
			}
		}
	}
	return count;
}

/*
 * Sparse mode: no scan of the space.  Search outward from the grid point:
 * move 1, 2, 4, ... steps along random axes, keeping the first valid
 * unseen point; after NEAR_TRIES probes, a random unseen point.  Each
 * probe is one find() (a rank of the enumerator).
 */
#define NEAR_TRIES 64

static long nearest_sparse(struct tune_strategy *s, const uint32_t *grid)
{
	int np = s->space->nparams;
	uint32_t *at = calloc((size_t)np + 1, sizeof *at);
	if (!at)
		return strategy_random_unseen(s);
	for (int t = 0; t < NEAR_TRIES && np > 0; t++) {
		memcpy(at, grid, (size_t)np * sizeof *at);
		long radius = 1L << (t / 16); /* 1, then 2, 4, 8 */
		int moves = 1 + t % 3;
		for (int m = 0; m < moves; m++) {
			int p = (int)rng_below(&s->rng, (size_t)np);
			long k = (long)at[p] + (rng_below(&s->rng, 2) ? radius : -radius);
			at[p] = (uint32_t)(k < 0 ? 0 : k >= s->nvalues[p] ? s->nvalues[p] - 1 : k);
		}
		long q = strategy_at(s, at);
		if (q >= 0 && strategy_state(s, (size_t)q) == POINT_UNSEEN) {
			free(at);
			return q;
		}
	}
	free(at);
	return strategy_random_unseen(s);
}

long strategy_nearest_unseen(struct tune_strategy *s, const double *position)
{
	const struct tune_space *sp = s->space;
	int np = sp->nparams;
	if (s->nunseen == 0)
		return -1;
	/* The grid point under the position, when valid and unseen, is the answer. */
	uint32_t *grid = s->coord_scratch;
	for (int p = 0; p < np; p++) {
		double x = position[p] * (s->nvalues[p] - 1);
		long k = lround(x < 0 ? 0 : x);
		grid[p] = (uint32_t)(k >= s->nvalues[p] ? s->nvalues[p] - 1 : k);
	}
	long direct = strategy_at(s, grid);
	if (direct >= 0 && strategy_state(s, (size_t)direct) == POINT_UNSEEN)
		return direct;
	if (s->sparse)
		return nearest_sparse(s, grid);
	if (!strategy_coords(s, 0))
		return strategy_random_unseen(s);
	size_t n = sp->npoints, start = rng_below(&s->rng, n);
	long best = -1;
	double best_d = INFINITY;
	for (size_t k = 0; k < n; k++) {
		size_t i = (start + k) % n;
		if (s->state[i] != POINT_UNSEEN)
			continue;
		const uint32_t *c = s->coords + i * (size_t)np;
		double d = 0;
		for (int p = 0; p < np && d < best_d; p++) {
			double span = s->nvalues[p] > 1 ? s->nvalues[p] - 1 : 1;
			double diff = c[p] / span - position[p];
			d += diff * diff;
		}
		if (d < best_d) {
			best_d = d;
			best = (long)i;
		}
	}
	return best;
}

/* ---- the public interface ------------------------------------------------------ */

int tune_strategy_new(struct tune_strategy **out, const char *name,
                      const struct tune_space *space, const struct tune_strategy_opts *o)
{
	*out = NULL;
	const struct strategy_ops *ops = NULL;
	for (size_t i = 0; i < sizeof all_strategies / sizeof *all_strategies; i++)
		if (strcmp(tune_strategy_names[i], name) == 0)
			ops = all_strategies[i];
	if (!ops)
		return 1;
	struct tune_strategy *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->ops = ops;
	s->space = space;
	s->opts = *o;
	if (s->opts.batch < 1)
		s->opts.batch = 1;
	if (s->opts.budget == 0 || s->opts.budget > space->npoints)
		s->opts.budget = space->npoints;
	rng_seed(&s->rng, o->seed);
	s->nunseen = space->npoints;
	s->sparse = space->npoints > STRATEGY_DENSE_MAX;
	size_t np1 = (size_t)space->nparams + 1;
	if (s->sparse) {
		s->vcap = 1024;
		s->visits = strategy_alloc(s, s->vcap, sizeof *s->visits);
		s->coord_ring = strategy_alloc(s, (size_t)COORD_RING * np1, sizeof *s->coord_ring);
		s->coords_key = strategy_alloc(s, MEMO_SLOTS, sizeof *s->coords_key);
		s->coords_memo = strategy_alloc(s, MEMO_SLOTS * np1, sizeof *s->coords_memo);
		s->at_used = strategy_alloc(s, MEMO_SLOTS, 1);
		s->at_coords = strategy_alloc(s, MEMO_SLOTS * np1, sizeof *s->at_coords);
		s->at_point = strategy_alloc(s, MEMO_SLOTS, sizeof *s->at_point);
		if (!s->visits || !s->coord_ring || !s->coords_key || !s->coords_memo || !s->at_used ||
		    !s->at_coords || !s->at_point)
			goto fail;
	} else {
		s->state = strategy_alloc(s, space->npoints, 1);
		s->cost = strategy_alloc(s, space->npoints, sizeof *s->cost);
		if (!s->state || !s->cost)
			goto fail;
	}
	s->nvalues = strategy_alloc(s, np1, sizeof *s->nvalues);
	s->values = strategy_alloc(s, np1, sizeof *s->values);
	s->value_scratch = strategy_alloc(s, np1, sizeof *s->value_scratch);
	s->coord_scratch = strategy_alloc(s, np1, sizeof *s->coord_scratch);
	if (!s->nvalues || !s->values || !s->value_scratch || !s->coord_scratch)
		goto fail;
	for (int p = 0; p < space->nparams; p++)
		s->nvalues[p] = space->values(space->user, p, &s->values[p]);
	if (ops->impl_size && !(s->impl = strategy_alloc(s, 1, ops->impl_size)))
		goto fail;
	if (ops->init && ops->init(s) != 0)
		goto fail;
	*out = s;
	return 0;
fail:
	tune_strategy_free(s);
	return -1;
}

void tune_strategy_free(struct tune_strategy *s)
{
	if (!s)
		return;
	if (s->impl && s->ops->release)
		s->ops->release(s);
	while (s->owned) {
		struct owned *b = s->owned;
		s->owned = b->next;
		free(b);
	}
	free(s);
}

size_t tune_strategy_propose(struct tune_strategy *s, size_t *points, size_t max)
{
	if (max == 0 || s->nunseen == 0)
		return 0;
	size_t n = s->ops->propose(s, points, max);
	/* A strategy that waits for nothing and offers nothing would end the
	 * search early; it is topped up at random so every strategy covers
	 * the space when the budget allows. */
	if (n == 0 && s->npending == 0 && !s->ops->ends) {
		long i = strategy_random_unseen(s);
		if (i >= 0)
			strategy_take(s, (size_t)i, points, &n);
	}
	return n;
}

void tune_strategy_report(struct tune_strategy *s, size_t point, double cost)
{
	if (point >= s->space->npoints || strategy_state(s, point) != POINT_PENDING)
		return;
	if (isnan(cost))
		cost = INFINITY;
	set_state(s, point, POINT_DONE, cost); /* the entry exists: no allocation */
	s->npending--;
	if (s->ops->report)
		s->ops->report(s, point, cost);
}

size_t tune_strategy_in_flight(const struct tune_strategy *s)
{
	return s->npending;
}

/* ---- budgets and the budgeted search ------------------------------------------- */

int tune_budget_parse(const char *text, struct tune_budget *b)
{
	char *end;
	errno = 0;
	double x = strtod(text, &end);
	if (end == text || errno || !isfinite(x) || x <= 0)
		return -1;
	if (strcmp(end, "") == 0) {
		if (x != floor(x))
			return -1;
		b->kind = TUNE_BUDGET_EVALS;
		b->amount = x;
	} else if (strcmp(end, "s") == 0 || strcmp(end, "m") == 0 || strcmp(end, "h") == 0) {
		b->kind = TUNE_BUDGET_SECONDS;
		b->amount = x * (*end == 'h' ? 3600 : *end == 'm' ? 60 : 1);
	} else if (strcmp(end, "%") == 0 && x <= 100) {
		b->kind = TUNE_BUDGET_FRACTION;
		b->amount = x / 100;
	} else {
		return -1;
	}
	return 0;
}

size_t tune_budget_evals(const struct tune_budget *b, size_t npoints)
{
	switch (b->kind) {
	case TUNE_BUDGET_EVALS:
		return b->amount < (double)npoints ? (size_t)b->amount : npoints;
	case TUNE_BUDGET_FRACTION: {
		/* At least one point, so a tiny fraction of a small space still runs. */
		double n = ceil(b->amount * (double)npoints);
		return n < 1 ? 1 : n < (double)npoints ? (size_t)n : npoints;
	}
	case TUNE_BUDGET_NONE:
	case TUNE_BUDGET_SECONDS:
		break;
	}
	return npoints;
}

void tune_search_init(struct tune_search *q, struct tune_strategy *s,
                      const struct tune_budget *b, size_t npoints)
{
	memset(q, 0, sizeof *q);
	q->strategy = s;
	q->planned = tune_budget_evals(b, npoints);
	q->seconds = b->kind == TUNE_BUDGET_SECONDS ? b->amount : 0;
}

static bool out_of_time(const struct tune_search *q, double elapsed_s)
{
	return q->seconds > 0 && elapsed_s >= q->seconds;
}

size_t tune_search_next(struct tune_search *q, double elapsed_s, size_t *points, size_t max)
{
	if (out_of_time(q, elapsed_s) || q->proposed >= q->planned)
		return 0;
	if (max > q->planned - q->proposed)
		max = q->planned - q->proposed;
	size_t n = tune_strategy_propose(q->strategy, points, max);
	q->proposed += n;
	return n;
}

void tune_search_report(struct tune_search *q, size_t point, double cost)
{
	q->reported++;
	tune_strategy_report(q->strategy, point, cost);
}

bool tune_search_done(struct tune_search *q, double elapsed_s)
{
	if (tune_strategy_in_flight(q->strategy) > 0)
		return false;
	return out_of_time(q, elapsed_s) || q->proposed >= q->planned || q->strategy->nunseen == 0;
}
