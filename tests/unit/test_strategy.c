/*
 * test_strategy.c - Criterion tests of the search strategies and budgets
 * (tuner/strategy.h) on a synthetic space with holes.
 *
 * The space: three parameters of 12 values each (powers of two, 0..11,
 * halves), a point being valid unless (i + 2j + 3k) % 7 == 0 for its value
 * indices (i, j, k), so neighbourhoods must step over invalid points.  The
 * oracles are brute force over that definition: validity, duplicates,
 * coverage, the nearest valid neighbour along an axis, and the optimum of
 * a convex bowl (with a failing region costing INFINITY).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/strategy_int.h"

enum { NV = 12, NP = 3 };

struct synth {
	double values[NP][NV];
	long index_of[NV][NV][NV];  /* -1: invalid */
	int coords[NV * NV * NV][NP];
	size_t npoints;
};

static bool synth_valid(int i, int j, int k)
{
	return (i + 2 * j + 3 * k) % 7 != 0;
}

static void synth_init(struct synth *s)
{
	memset(s, 0, sizeof *s);
	for (int v = 0; v < NV; v++) {
		s->values[0][v] = (double)(1 << v);
		s->values[1][v] = v;
		s->values[2][v] = 0.5 * (v + 1);
	}
	for (int i = 0; i < NV; i++)
		for (int j = 0; j < NV; j++)
			for (int k = 0; k < NV; k++) {
				if (!synth_valid(i, j, k)) {
					s->index_of[i][j][k] = -1;
					continue;
				}
				s->index_of[i][j][k] = (long)s->npoints;
				s->coords[s->npoints][0] = i;
				s->coords[s->npoints][1] = j;
				s->coords[s->npoints][2] = k;
				s->npoints++;
			}
}

static double synth_value(void *user, size_t i, int p)
{
	struct synth *s = user;
	return s->values[p][s->coords[i][p]];
}

static int synth_values(void *user, int p, const double **values)
{
	struct synth *s = user;
	*values = s->values[p];
	return NV;
}

static int find_index(const double *values, double x)
{
	for (int v = 0; v < NV; v++)
		if (values[v] == x)
			return v;
	return -1;
}

static long synth_find(void *user, const double *values)
{
	struct synth *s = user;
	int c[NP];
	for (int p = 0; p < NP; p++)
		if ((c[p] = find_index(s->values[p], values[p])) < 0)
			return -1;
	return s->index_of[c[0]][c[1]][c[2]];
}

static struct synth space_data;
static struct tune_space space;

static void setup(void)
{
	synth_init(&space_data);
	space = (struct tune_space){ space_data.npoints, NP, &space_data, synth_value, synth_values,
	                             synth_find };
}

/* The bowl's minimum is at index (8, 3, 9); a whole face fails. */
static double bowl(size_t point)
{
	const int *c = space_data.coords[point];
	if (c[0] == 0)
		return INFINITY;
	double a = c[0] - 8, b = c[1] - 3, d = c[2] - 9;
	return 1 + a * a + b * b + d * d;
}

static size_t bowl_optimum(void)
{
	return (size_t)space_data.index_of[8][3][9];
}

/* A rugged bowl: the bowl's squared distance plus a fixed pseudo-random
 * bump per point (up to 40), so a walk meets many local minima. */
static double rugged(size_t point)
{
	const int *c = space_data.coords[point];
	uint64_t h = ((uint64_t)point + 1) * UINT64_C(0x9e3779b97f4a7c15);
	h ^= h >> 31;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 29;
	double a = c[0] - 8, b = c[1] - 3, d = c[2] - 9;
	return 1 + a * a + b * b + d * d + 40 * (double)(h >> 11) * 0x1.0p-53;
}

/* The cost drive() reports. */
static double (*landscape)(size_t point) = bowl;

struct outcome {
	size_t evaluated;
	double best;
	size_t *order;      /* proposals in order, evaluated entries */
};

/*
 * Drives a search the way spacetune does: keeps `batch` evaluations in
 * flight and reports them back in a shuffled order.  Every proposal is
 * checked for validity and novelty as it arrives.  `seconds_per_eval`
 * advances a fake clock per report, for time budgets.
 */
static struct outcome drive(const char *name, uint64_t seed, int batch,
                            const struct tune_budget *budget, double seconds_per_eval)
{
	struct tune_strategy *s;
	struct tune_strategy_opts o = { .seed = seed, .budget = tune_budget_evals(budget, space.npoints), .batch = batch };
	cr_assert_eq(tune_strategy_new(&s, name, &space, &o), 0, "strategy %s", name);
	struct tune_search q;
	tune_search_init(&q, s, budget, space.npoints);
	bool *seen = calloc(space.npoints, 1);
	size_t *flight = calloc((size_t)batch + 1, sizeof *flight), nflight = 0;
	size_t buf[64];
	struct outcome r = { 0, INFINITY, calloc(space.npoints + 1, sizeof *r.order) };
	uint64_t shuffle = seed * 2654435761u + 1;
	double clock = 0;
	for (;;) {
		size_t n = tune_search_next(&q, clock, buf, (size_t)batch - nflight);
		for (size_t i = 0; i < n; i++) {
			cr_assert_lt(buf[i], space.npoints, "%s proposed an invalid point", name);
			cr_assert(!seen[buf[i]], "%s proposed point %zu twice", name, buf[i]);
			seen[buf[i]] = true;
			r.order[r.evaluated++] = buf[i];
			flight[nflight++] = buf[i];
		}
		cr_assert_leq(nflight, (size_t)batch, "%s exceeded the batch", name);
		if (nflight == 0)
			break;
		shuffle = shuffle * 6364136223846793005u + 1442695040888963407u;
		size_t pick = (size_t)(shuffle >> 33) % nflight;
		size_t point = flight[pick];
		flight[pick] = flight[--nflight];
		double cost = landscape(point);
		if (cost < r.best)
			r.best = cost;
		clock += seconds_per_eval;
		tune_search_report(&q, point, cost);
	}
	cr_assert(tune_search_done(&q, clock), "%s: the search should be done", name);
	free(seen);
	free(flight);
	tune_strategy_free(s);
	return r;
}

/* Not bfs, which ends after its levels (tested below against its oracle). */
static const char *const names[] = { "exhaustive", "random", "anneal", "pso", "genetic", "local", "bo",
                                     "bandit" };

/* Criterion runs each parameterised case in a fresh process, so cases hold
 * an index into names[], never a pointer. */
struct strategy_case {
	int which;
	int batch;
};

enum { NSTRATEGIES = sizeof names / sizeof *names };

/* Every strategy with batch size b1, then (if b2 > 0) with b2. */
static size_t every_strategy(struct strategy_case *cases, int b1, int b2)
{
	size_t n = 0;
	for (int i = 0; i < NSTRATEGIES; i++) {
		cases[n++] = (struct strategy_case){ i, b1 };
		if (b2 > 0)
			cases[n++] = (struct strategy_case){ i, b2 };
	}
	return n;
}

ParameterizedTestParameters(strategy, covers_the_space)
{
	static struct strategy_case cases[2 * NSTRATEGIES];
	return cr_make_param_array(struct strategy_case, cases, every_strategy(cases, 1, 5));
}

/* With no budget, every strategy visits every valid point exactly once. */
ParameterizedTest(struct strategy_case *c, strategy, covers_the_space, .init = setup)
{
	struct tune_budget none = { TUNE_BUDGET_NONE, 0 };
	struct outcome r = drive(names[c->which], 7, c->batch, &none, 0);
	cr_expect_eq(r.evaluated, space.npoints, "%s batch %d: %zu of %zu points", names[c->which],
	             c->batch, r.evaluated, space.npoints);
	cr_expect_eq(r.best, 1.0);
	free(r.order);
}

Test(strategy, space_has_holes, .init = setup)
{
	/* The fixture itself: 1728 combinations, a seventh of them invalid. */
	size_t valid = 0;
	for (int i = 0; i < NV; i++)
		for (int j = 0; j < NV; j++)
			for (int k = 0; k < NV; k++)
				valid += synth_valid(i, j, k);
	cr_assert_eq(space.npoints, valid);
	cr_assert_lt(valid, NV * NV * NV);
}

Test(strategy, exhaustive_is_in_order, .init = setup)
{
	struct tune_budget none = { TUNE_BUDGET_NONE, 0 };
	struct outcome r = drive("exhaustive", 1, 3, &none, 0);
	for (size_t i = 0; i < r.evaluated; i++)
		cr_assert_eq(r.order[i], i);
	free(r.order);
}

ParameterizedTestParameters(strategy, budget_is_respected)
{
	static struct strategy_case cases[NSTRATEGIES];
	return cr_make_param_array(struct strategy_case, cases, every_strategy(cases, 4, 0));
}

ParameterizedTest(struct strategy_case *c, strategy, budget_is_respected, .init = setup)
{
	struct tune_budget evals = { TUNE_BUDGET_EVALS, 100 };
	struct outcome r = drive(names[c->which], 3, c->batch, &evals, 0);
	cr_expect_eq(r.evaluated, 100);
	free(r.order);

	struct tune_budget fraction = { TUNE_BUDGET_FRACTION, 0.05 };
	r = drive(names[c->which], 3, c->batch, &fraction, 0);
	cr_expect_eq(r.evaluated, (size_t)ceil(0.05 * (double)space.npoints));
	free(r.order);

	/* 0.1 s per evaluation and 5 s: proposals stop once the clock passes
	 * 5 s, with at most a batch still in flight then. */
	struct tune_budget seconds = { TUNE_BUDGET_SECONDS, 5 };
	r = drive(names[c->which], 3, c->batch, &seconds, 0.1);
	cr_expect_geq(r.evaluated, 50);
	cr_expect_leq(r.evaluated, 50 + (size_t)c->batch);
	free(r.order);
}

ParameterizedTestParameters(strategy, deterministic)
{
	static struct strategy_case cases[NSTRATEGIES];
	return cr_make_param_array(struct strategy_case, cases, every_strategy(cases, 3, 0));
}

/* Seeded strategies replay the same proposals. */
ParameterizedTest(struct strategy_case *c, strategy, deterministic, .init = setup)
{
	struct tune_budget evals = { TUNE_BUDGET_EVALS, 200 };
	struct outcome a = drive(names[c->which], 11, c->batch, &evals, 0);
	struct outcome b = drive(names[c->which], 11, c->batch, &evals, 0);
	cr_assert_eq(a.evaluated, b.evaluated);
	cr_expect_arr_eq(a.order, b.order, a.evaluated * sizeof *a.order);
	free(a.order);
	free(b.order);
}

/*
 * On the bowl with a budget of 8% of the space, the guided strategies
 * must find the exact optimum far more often than random search, whose
 * chance per seed is about 8%.
 */
Test(strategy, guided_beat_random_on_a_bowl, .init = setup)
{
	enum { SEEDS = 20 };
	struct tune_budget budget = { TUNE_BUDGET_FRACTION, 0.08 };
	int hits[NSTRATEGIES] = { 0 };
	for (size_t n = 1; n < NSTRATEGIES; n++) {
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			struct outcome r = drive(names[n], seed, 4, &budget, 0);
			hits[n] += r.best == bowl(bowl_optimum());
			free(r.order);
		}
		cr_log_info("%-8s found the optimum for %d of %d seeds", names[n], hits[n], SEEDS);
	}
	for (size_t n = 2; n < NSTRATEGIES; n++) {
		cr_expect_gt(hits[n], hits[1], "%s (%d) should beat random (%d)", names[n], hits[n], hits[1]);
		cr_expect_geq(hits[n], SEEDS / 2, "%s found the optimum for only %d of %d seeds",
		              names[n], hits[n], SEEDS);
	}
}

/*
 * A swarm explores with all its particles also with one evaluation in
 * flight: on the rugged bowl, with 5% of the space, it finds the optimum
 * (brute force over the landscape) for at least 17 of 20 seeds; random
 * search's chance per seed is about 5%.  When the first free particle
 * always moved, one evaluation in flight made a swarm of one, which
 * found it for 13 (15 with today's knobs).
 */
Test(strategy, pso_swarm_moves_with_one_in_flight, .init = setup)
{
	enum { SEEDS = 20 };
	struct tune_budget budget = { TUNE_BUDGET_FRACTION, 0.05 };
	landscape = rugged;
	double optimum = INFINITY;
	for (size_t i = 0; i < space.npoints; i++)
		optimum = fmin(optimum, rugged(i));
	int hits = 0;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct outcome r = drive("pso", seed, 1, &budget, 0);
		hits += r.best == optimum;
		free(r.order);
	}
	cr_log_info("pso, one in flight: the optimum for %d of %d seeds", hits, SEEDS);
	cr_expect_geq(hits, SEEDS * 17 / 20, "the optimum for only %d of %d seeds", hits, SEEDS);
}

/*
 * bfs under a budget smaller than the space goes on after its last level
 * (passes from its best, restarts from random points), so it measures
 * the whole budget, each point once (drive() checks), where one pass
 * measures at most 3 x 11 + 1 points; and on the rugged bowl what it
 * finds at 10% of the space beats what it had after that many, for at
 * least 8 of 10 seeds (bfs without that measured one pass and ended).
 */
Test(strategy, bfs_uses_its_budget, .init = setup)
{
	enum { SEEDS = 10, PASS = 3 * (NV - 1) + 1 };
	landscape = rugged;
	struct tune_budget budget = { TUNE_BUDGET_FRACTION, 0.1 }, pass = { TUNE_BUDGET_EVALS, PASS };
	size_t want = (size_t)ceil(0.1 * (double)space.npoints);
	for (int batch = 1; batch <= 4; batch += 3) {
		int better = 0;
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			struct outcome r = drive("bfs", seed, batch, &budget, 0);
			struct outcome one = drive("bfs", seed, batch, &pass, 0);
			cr_expect_eq(r.evaluated, want, "batch %d seed %d: %zu of %zu evaluations", batch,
			             (int)seed, r.evaluated, want);
			better += r.best < one.best;
			free(r.order);
			free(one.order);
		}
		cr_log_info("bfs batch %d: better than after %d evaluations for %d of %d seeds", batch,
		            PASS, better, SEEDS);
		cr_expect_geq(better, SEEDS * 8 / 10, "batch %d: better than after %d evaluations for only %d of %d seeds",
		              batch, PASS, better, SEEDS);
	}
}

/*
 * The model-based search needs far fewer evaluations on a smooth
 * landscape: within 2% of the space (30 evaluations, a third of them its
 * random design) it finds the bowl's exact optimum for most seeds, where
 * random search's chance per seed is 2%, and it never ends far from it.
 */
Test(strategy, bo_finds_the_bowl_optimum_early, .init = setup)
{
	enum { SEEDS = 10 };
	struct tune_budget budget = { TUNE_BUDGET_FRACTION, 0.02 };
	for (int batch = 1; batch <= 4; batch += 3) {
		int hits = 0;
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			struct outcome r = drive("bo", seed, batch, &budget, 0);
			hits += r.best == bowl(bowl_optimum());
			cr_expect_leq(r.best, 3, "batch %d seed %d: best %g", batch, (int)seed, r.best);
			free(r.order);
		}
		cr_log_info("bo, batch %d: the optimum for %d of %d seeds", batch, hits, SEEDS);
		cr_expect_geq(hits, SEEDS * 7 / 10, "batch %d: the optimum for only %d of %d seeds",
		              batch, hits, SEEDS);
	}
}

/*
 * bo's local phase (tuner/strategy_bo.c): after its random design (a fifth
 * of the budget, at most 20 points), once STALL (5) reports in a row have
 * not beaten the best cost, each proposal changes one parameter, to any of
 * its values, of one of the 5 best points measured; when no such point is
 * unseen, of the 10, 20 or 40 best (the first of those with one), also
 * beyond the 96 points the model is fitted to.  The oracle keeps its own
 * record of the reports and checks every proposal against brute force over
 * the space, on the rugged bowl (where a search stalls often), one
 * evaluation in flight; the phase must have been reached.
 */
static bool one_change(size_t a, size_t b)
{
	int changes = 0;
	for (int p = 0; p < NP; p++)
		changes += space_data.coords[a][p] != space_data.coords[b][p];
	return changes <= 1;
}

Test(strategy, bo_local_phase_moves_one_parameter_of_the_best, .init = setup)
{
	enum { STALL = 5, TOP = 40, SEEDS = 4, BUDGET = 150, DESIGN = 20 };
	landscape = rugged;
	size_t checked = 0;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct tune_strategy *s;
		struct tune_strategy_opts o = { .seed = seed, .budget = BUDGET, .batch = 1 };
		cr_assert_eq(tune_strategy_new(&s, "bo", &space, &o), 0);
		bool *seen = calloc(space.npoints, 1);
		size_t top[TOP + 1], ntop = 0, since = 0;  /* the best measured, best first */
		double best = INFINITY;
		for (int e = 0; e < BUDGET; e++) {
			size_t point;
			cr_assert_eq(tune_strategy_propose(s, &point, 1), 1);
			for (size_t k = 5; e >= DESIGN && since >= STALL && k <= TOP; k *= 2) {
				bool any_near = false, near = false;
				for (size_t q = 0; q < space.npoints; q++)
					for (size_t t = 0; t < k && t < ntop; t++)
						if (one_change(q, top[t])) {
							any_near |= !seen[q];
							near |= q == point;
						}
				if (any_near) {
					cr_expect(near, "seed %d evaluation %d: point %zu is not one parameter away from the %zu best",
					          (int)seed, e + 1, point, k);
					checked++;
					break;
				}
			}
			seen[point] = true;
			double cost = rugged(point);
			/* insert into the best list (ties: the lower index first, as bo) */
			size_t at = ntop < TOP ? ntop++ : TOP;
			while (at > 0 && (cost < rugged(top[at - 1]) ||
			                  (cost == rugged(top[at - 1]) && point < top[at - 1]))) {
				top[at] = top[at - 1];
				at--;
			}
			top[at] = point;
			since = cost < best ? 0 : since + 1;
			best = fmin(best, cost);
			tune_strategy_report(s, point, cost);
		}
		free(seen);
		tune_strategy_free(s);
	}
	cr_log_info("bo: %zu proposals of the local phase checked", checked);
	cr_expect_geq(checked, 20, "the local phase was reached for only %zu proposals", checked);
}

/* ---- budgets -------------------------------------------------------------------- */

struct budget_case {
	char text[16];
	int rc;
	int kind;
	double amount;
};

ParameterizedTestParameters(budget, parse)
{
	static struct budget_case cases[] = {
		{ "100", 0, TUNE_BUDGET_EVALS, 100 },
		{ "1", 0, TUNE_BUDGET_EVALS, 1 },
		{ "30s", 0, TUNE_BUDGET_SECONDS, 30 },
		{ "1.5m", 0, TUNE_BUDGET_SECONDS, 90 },
		{ "2h", 0, TUNE_BUDGET_SECONDS, 7200 },
		{ "10%", 0, TUNE_BUDGET_FRACTION, 0.1 },
		{ "100%", 0, TUNE_BUDGET_FRACTION, 1 },
		{ "0", -1, 0, 0 },
		{ "-5", -1, 0, 0 },
		{ "1.5", -1, 0, 0 },
		{ "101%", -1, 0, 0 },
		{ "10x", -1, 0, 0 },
		{ "", -1, 0, 0 },
		{ "s", -1, 0, 0 },
		{ "nan", -1, 0, 0 },
		{ "inf", -1, 0, 0 },
	};
	return cr_make_param_array(struct budget_case, cases, sizeof cases / sizeof *cases);
}

ParameterizedTest(struct budget_case *c, budget, parse)
{
	struct tune_budget b = { TUNE_BUDGET_NONE, 0 };
	cr_assert_eq(tune_budget_parse(c->text, &b), c->rc, "'%s'", c->text);
	if (c->rc == 0) {
		cr_expect_eq((int)b.kind, c->kind, "'%s'", c->text);
		cr_expect_float_eq(b.amount, c->amount, 1e-12, "'%s'", c->text);
	}
}

Test(budget, evaluations)
{
	struct tune_budget b = { TUNE_BUDGET_FRACTION, 0.001 };
	cr_expect_eq(tune_budget_evals(&b, 10), 1, "a tiny fraction still runs one point");
	b = (struct tune_budget){ TUNE_BUDGET_FRACTION, 0.25 };
	cr_expect_eq(tune_budget_evals(&b, 10), 3);
	b = (struct tune_budget){ TUNE_BUDGET_EVALS, 50 };
	cr_expect_eq(tune_budget_evals(&b, 10), 10);
	b = (struct tune_budget){ TUNE_BUDGET_SECONDS, 5 };
	cr_expect_eq(tune_budget_evals(&b, 10), 10);
}

Test(strategy, unknown_name, .init = setup)
{
	struct tune_strategy *s;
	struct tune_strategy_opts o = { .seed = 1, .batch = 1 };
	cr_expect_eq(tune_strategy_new(&s, "bogus", &space, &o), 1);
	cr_expect_null(s);
	for (const char *const *n = tune_strategy_names; *n; n++) {
		cr_assert_eq(tune_strategy_new(&s, *n, &space, &o), 0, "%s", *n);
		tune_strategy_free(s);
	}
}

/*
 * Neighbours against brute force: for each parameter and direction, the
 * nearest index along that axis that gives a valid point.
 */
Test(strategy, neighbours_are_nearest_valid_along_each_axis, .init = setup)
{
	struct tune_strategy *s;
	struct tune_strategy_opts o = { .seed = 1, .batch = 1 };
	cr_assert_eq(tune_strategy_new(&s, "local", &space, &o), 0);
	size_t got[2 * NP];
	for (size_t i = 0; i < space.npoints; i++) {
		int n = strategy_neighbours(s, i, got);
		long want[2 * NP];
		int nwant = 0;
		for (int p = 0; p < NP; p++)
			for (int dir = -1; dir <= 1; dir += 2) {
				int c[NP] = { space_data.coords[i][0], space_data.coords[i][1],
				              space_data.coords[i][2] };
				for (c[p] += dir; c[p] >= 0 && c[p] < NV; c[p] += dir)
					if (synth_valid(c[0], c[1], c[2])) {
						want[nwant++] = space_data.index_of[c[0]][c[1]][c[2]];
						break;
					}
			}
		cr_assert_eq(n, nwant, "point %zu", i);
		for (int k = 0; k < n; k++)
			cr_assert_eq((long)got[k], want[k], "point %zu neighbour %d", i, k);
	}
	tune_strategy_free(s);
}

/* ---- breadth-first search (OCLoptimizer) ------------------------------------------ */

/* A bowl that never fails, so the search starts at point 0; minimum at (5, 7, 2). */
static double bowl2(size_t point)
{
	const int *c = space_data.coords[point];
	double a = c[0] - 5, b = c[1] - 7, d = c[2] - 2;
	return 1 + a * a + 2 * b * b + 3 * d * d;
}

struct bfs_case {
	int groups[NP];    /* the level of each parameter (levels run 0, 1, ...) */
	int nlevels;
	double tolerance;  /* per cent; < 0 none */
	size_t number;     /* 0: no cap */
	bool as_stages;    /* given as stages (else: the defaults' filters) */
};

/*
 * The oracle: the level-by-level procedure of OCLoptimizer written out
 * over the synthetic space's own coordinates, independent of the
 * strategy's bookkeeping.  Returns the set of points measured.
 */
static bool *bfs_oracle(const struct bfs_case *c)
{
	size_t n = space.npoints;
	bool *measured = calloc(n, 1), *surv = calloc(n, 1), *member = calloc(n, 1);
	measured[0] = surv[0] = true;
	for (int level = 0; level < c->nlevels; level++) {
		memset(member, 0, n);
		for (size_t i = 0; i < n; i++)
			for (size_t q = 0; q < n && !member[i]; q++) {
				if (!surv[q])
					continue;
				bool same = true;
				for (int p = 0; p < NP; p++)
					if (c->groups[p] != level && space_data.coords[i][p] != space_data.coords[q][p])
						same = false;
				member[i] = same;
			}
		double best = INFINITY;
		for (size_t i = 0; i < n; i++)
			if (member[i]) {
				measured[i] = true;
				if (bowl2(i) < best)
					best = bowl2(i);
			}
		memset(surv, 0, n);
		/* keep the `number` best within the tolerance: repeatedly the cheapest left */
		size_t kept = 0;
		for (;;) {
			long pick = -1;
			for (size_t i = 0; i < n; i++)
				if (member[i] && !surv[i] && (pick < 0 || bowl2(i) < bowl2((size_t)pick)))
					pick = (long)i;
			if (pick < 0 || (c->number && kept >= c->number) ||
			    (c->tolerance >= 0 && bowl2((size_t)pick) > best * (1 + c->tolerance / 100)))
				break;
			surv[pick] = true;
			kept++;
		}
	}
	free(surv);
	free(member);
	return measured;
}

ParameterizedTestParameters(bfs, levels_match_the_oracle)
{
	static struct bfs_case cases[] = {
		{ { 0, 1, 2 }, 3, -1, 1, false },   /* the default: one parameter a level, the best goes on */
		{ { 0, 1, 2 }, 3, 20, 0, false },   /* within 20% of each level's best */
		{ { 0, 1, 2 }, 3, -1, 3, false },   /* the three best */
		{ { 0, 1, 2 }, 3, 100, 2, false },  /* both filters */
		{ { 0, 1, 1 }, 2, -1, 2, true },    /* parameters 1 and 2 as one annotation */
		{ { 0, 1, 1 }, 2, 50, 0, true },
	};
	return cr_make_param_array(struct bfs_case, cases, sizeof cases / sizeof *cases);
}

/*
 * Without a budget the search measures exactly the oracle's points and
 * then ends, whatever the batch; and its best is the oracle's best.
 */
ParameterizedTest(struct bfs_case *c, bfs, levels_match_the_oracle, .init = setup)
{
	bool *want = bfs_oracle(c);
	size_t nwant = 0;
	double want_best = INFINITY;
	for (size_t i = 0; i < space.npoints; i++)
		if (want[i]) {
			nwant++;
			if (bowl2(i) < want_best)
				want_best = bowl2(i);
		}
	int p1[] = { 1, 2 };
	struct tune_stage stage = { 2, p1, true, c->tolerance, c->number };
	for (int batch = 1; batch <= 8; batch += 7) {
		struct tune_strategy *s;
		struct tune_strategy_opts o = { .seed = 1, .batch = batch };
		if (c->as_stages) {
			o.nstages = 1;
			o.stages = &stage;
		}
		o.bfs_filters = true;
		o.bfs_tolerance = c->tolerance;
		o.bfs_number = c->number;
		cr_assert_eq(tune_strategy_new(&s, "bfs", &space, &o), 0);
		struct tune_budget budget = { TUNE_BUDGET_NONE, 0 };
		struct tune_search q;
		tune_search_init(&q, s, &budget, space.npoints);
		bool *got = calloc(space.npoints, 1);
		size_t flight[16], nflight = 0, buf[16], ngot = 0;
		double best = INFINITY;
		for (;;) {
			size_t n = tune_search_next(&q, 0, buf, (size_t)batch - nflight);
			for (size_t i = 0; i < n; i++) {
				cr_assert(!got[buf[i]], "point %zu proposed twice", buf[i]);
				got[buf[i]] = true;
				ngot++;
				flight[nflight++] = buf[i];
			}
			if (nflight == 0)
				break;
			/* report the oldest last: out of order */
			size_t point = flight[nflight - 1];
			nflight--;
			if (bowl2(point) < best)
				best = bowl2(point);
			tune_search_report(&q, point, bowl2(point));
		}
		cr_expect_eq(ngot, nwant, "batch %d: %zu points measured, the oracle %zu", batch, ngot, nwant);
		for (size_t i = 0; i < space.npoints; i++)
			cr_expect_eq(got[i], want[i], "batch %d: point %zu", batch, i);
		cr_expect_eq(best, want_best);
		free(got);
		tune_strategy_free(s);
	}
	free(want);
}

/* ---- a space too big for per-point arrays (sparse mode) ------------------------------ */

/*
 * Four parameters of HK values each, valid where a <= b: HK (HK + 1) / 2
 * pairs times HK * HK, 5.0e11 points in lexicographic order, indexed in
 * closed form.  Per-point arrays would need terabytes; sparse mode must
 * keep memory to the points it touched.  The oracle is the definition:
 * every proposed point satisfies a <= b and maps back to its index.
 */
enum { HK = 1000 };
static double huge_vals[HK];

static size_t pairs_before(size_t a)
{
	return a * HK - a * (a - 1) / 2; /* pairs (a', b) with a' < a */
}

static void huge_point(size_t i, size_t *a, size_t *b, size_t *c, size_t *d)
{
	size_t q = i / ((size_t)HK * HK), r = i % ((size_t)HK * HK);
	size_t lo = 0, hi = HK - 1;
	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;
		if (pairs_before(mid) <= q)
			lo = mid;
		else
			hi = mid - 1;
	}
	*a = lo;
	*b = lo + (q - pairs_before(lo));
	*c = r / HK;
	*d = r % HK;
}

static double huge_value(void *user, size_t i, int p)
{
	(void)user;
	size_t v[4];
	huge_point(i, &v[0], &v[1], &v[2], &v[3]);
	return (double)v[p];
}

static int huge_values(void *user, int p, const double **values)
{
	(void)user;
	(void)p;
	*values = huge_vals;
	return HK;
}

static long huge_find(void *user, const double *x)
{
	(void)user;
	for (int p = 0; p < 4; p++)
		if (x[p] < 0 || x[p] >= HK || x[p] != floor(x[p]))
			return -1;
	size_t a = (size_t)x[0], b = (size_t)x[1], c = (size_t)x[2], d = (size_t)x[3];
	if (a > b)
		return -1;
	return (long)((pairs_before(a) + (b - a)) * HK * HK + c * HK + d);
}

static double huge_cost(size_t i)
{
	double v[4];
	for (int p = 0; p < 4; p++)
		v[p] = huge_value(NULL, i, p);
	return pow(v[0] - 300, 2) + pow(v[1] - 700, 2) + pow(v[2] - 50, 2) + pow(v[3] - 950, 2);
}

ParameterizedTestParameters(strategy, huge_space_sparse)
{
	static struct strategy_case cases[NSTRATEGIES];
	return cr_make_param_array(struct strategy_case, cases, every_strategy(cases, 4, 0));
}

ParameterizedTest(struct strategy_case *c, strategy, huge_space_sparse)
{
	for (int v = 0; v < HK; v++)
		huge_vals[v] = v;
	size_t n = (size_t)HK * (HK + 1) / 2 * HK * HK;
	struct tune_space sp = { n, 4, NULL, huge_value, huge_values, huge_find };
	struct tune_strategy_opts o = { .seed = 5, .budget = 2000, .batch = c->batch };
	struct tune_strategy *s;
	cr_assert_eq(tune_strategy_new(&s, names[c->which], &sp, &o), 0, "%s", names[c->which]);
	cr_assert(s->sparse);
	size_t seen_cap = 1 << 14, *seen = calloc(seen_cap, sizeof *seen), nprop = 0;
	size_t pts[8];
	while (nprop < 2000) {
		size_t k = tune_strategy_propose(s, pts, 4);
		cr_assert_gt(k, 0, "%s stalled after %zu", names[c->which], nprop);
		for (size_t j = 0; j < k; j++) {
			size_t a, b, cc, d;
			cr_assert_lt(pts[j], n);
			huge_point(pts[j], &a, &b, &cc, &d);
			cr_assert_leq(a, b, "%s proposed an invalid point", names[c->which]);
			double x[4] = { (double)a, (double)b, (double)cc, (double)d };
			cr_assert_eq(huge_find(NULL, x), (long)pts[j]);
			size_t h = (pts[j] * 0x9e3779b97f4a7c15ull >> 20) & (seen_cap - 1);
			while (seen[h] && seen[h] != pts[j] + 1)
				h = (h + 1) & (seen_cap - 1);
			cr_assert_eq(seen[h], 0, "%s proposed a point twice", names[c->which]);
			seen[h] = pts[j] + 1;
			nprop++;
		}
		for (size_t j = 0; j < k; j++)
			tune_strategy_report(s, pts[j], huge_cost(pts[j]));
	}
	/* The touched points only: far below a byte per point (5e11 bytes). */
	cr_expect_leq(s->vcap * sizeof(struct visit), (size_t)1 << 20);
	tune_strategy_free(s);
	free(seen);
}

/*
 * bfs on the same 5e11 points, in sparse mode (its levels found by lookups,
 * not a scan): from point 0 = (0, 0, 0, 0), one parameter a level, the one
 * best going on.  The oracle, from the definition: level a adds nothing
 * (a <= b = 0), level b measures (0, b, 0, 0) for every b, the best being
 * b = 700 (huge_cost's bowl), then (0, 700, c, 0) for every c (best 50),
 * then (0, 700, 50, d) for every d; then it ends.
 */
Test(strategy, huge_space_bfs)
{
	for (int v = 0; v < HK; v++)
		huge_vals[v] = v;
	size_t n = (size_t)HK * (HK + 1) / 2 * HK * HK;
	struct tune_space sp = { n, 4, NULL, huge_value, huge_values, huge_find };
	struct tune_strategy_opts o = { .seed = 5, .budget = 0, .batch = 4 };
	struct tune_strategy *s;
	cr_assert_eq(tune_strategy_new(&s, "bfs", &sp, &o), 0);
	cr_assert(s->sparse);
	size_t want_n = 1 + 3 * (HK - 1), got = 0;
	bool *seen_b = calloc(HK, 1), *seen_c = calloc(HK, 1), *seen_d = calloc(HK, 1);
	size_t pts[4];
	for (;;) {
		size_t k = tune_strategy_propose(s, pts, 4);
		if (k == 0)
			break;
		for (size_t j = 0; j < k; j++) {
			size_t a, b, c, d;
			huge_point(pts[j], &a, &b, &c, &d);
			got++;
			if (a == 0 && c == 0 && d == 0 && !seen_b[b])
				seen_b[b] = true;
			else if (a == 0 && b == 700 && d == 0 && c != 0 && !seen_c[c])
				seen_c[c] = true;
			else if (a == 0 && b == 700 && c == 50 && d != 0 && !seen_d[d])
				seen_d[d] = true;
			else
				cr_assert_fail("bfs proposed (%zu, %zu, %zu, %zu), outside the oracle's levels",
				               a, b, c, d);
			tune_strategy_report(s, pts[j], huge_cost(pts[j]));
		}
	}
	cr_expect_eq(got, want_n, "bfs proposed %zu points, the oracle %zu", got, want_n);
	cr_expect_leq(s->vcap * sizeof(struct visit), (size_t)1 << 20);
	tune_strategy_free(s);
	free(seen_b);
	free(seen_c);
	free(seen_d);
}

/*
 * Sparse mode memoizes its two lookups, each a walk of the enumerator on
 * a real space (strategy_int.h): over three memos' worth of random points
 * (so slots are reused), every answer is still the closed form's, a
 * repeated question costs no call of the space, and a point found at
 * coordinates has those coordinates without asking the space.
 */
static size_t value_calls, find_calls;

static double counted_value(void *user, size_t i, int p)
{
	value_calls++;
	return huge_value(user, i, p);
}

static long counted_find(void *user, const double *x)
{
	find_calls++;
	return huge_find(user, x);
}

Test(strategy, sparse_lookups_are_memoized)
{
	for (int v = 0; v < HK; v++)
		huge_vals[v] = v;
	size_t n = (size_t)HK * (HK + 1) / 2 * HK * HK;
	struct tune_space sp = { n, 4, NULL, counted_value, huge_values, counted_find };
	struct tune_strategy_opts o = { .seed = 5, .budget = 10, .batch = 1 };
	struct tune_strategy *s;
	cr_assert_eq(tune_strategy_new(&s, "random", &sp, &o), 0);
	cr_assert(s->sparse);
	struct rng r;
	rng_seed(&r, 9);
	for (size_t k = 0; k < 3 * MEMO_SLOTS; k++) {
		size_t i = rng_below(&r, n), v[4];
		huge_point(i, &v[0], &v[1], &v[2], &v[3]);
		for (int again = 0; again < 2; again++) {
			size_t before = value_calls;
			const uint32_t *c = strategy_coords(s, i);
			for (int p = 0; p < 4; p++)
				cr_assert_eq(c[p], v[p], "point %zu, parameter %d: %u, want %zu", i, p, c[p], v[p]);
			if (again)
				cr_assert_eq(value_calls, before, "point %zu's coordinates asked again", i);
		}
		/* a neighbour along d, found once */
		uint32_t at[4] = { (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)((v[3] + 1) % HK) };
		double x[4] = { (double)at[0], (double)at[1], (double)at[2], (double)at[3] };
		long want = huge_find(NULL, x);
		size_t finds = find_calls;
		cr_assert_eq(strategy_at(s, at), want);
		cr_assert_eq(strategy_at(s, at), want);
		cr_assert_eq(find_calls, finds + 1, "the same coordinates looked up twice");
		size_t before = value_calls;
		const uint32_t *c = strategy_coords(s, (size_t)want);
		cr_assert(!memcmp(c, at, sizeof at));
		cr_assert_eq(value_calls, before, "a point found at coordinates asked for them");
		/* an invalid combination (a > b), remembered as such */
		if (v[0] < v[1]) {
			uint32_t bad[4] = { (uint32_t)v[1], (uint32_t)v[0], (uint32_t)v[2], (uint32_t)v[3] };
			finds = find_calls;
			cr_assert_eq(strategy_at(s, bad), -1);
			cr_assert_eq(strategy_at(s, bad), -1);
			cr_assert_eq(find_calls, finds + 1);
		}
	}
	tune_strategy_free(s);
}
