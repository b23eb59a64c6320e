/*
 * strategy_bo.c - Bayesian optimisation with a Gaussian process ("bo").
 *
 * Kernel times are smooth enough over the coordinate grid (strategy_int.h)
 * that a model of the points measured so far predicts where the fast ones
 * are: the recorded data (bench/search/README.md) shows it finding in a
 * few dozen evaluations what the blind searches need hundreds for.
 *
 * - The first evaluations are random points, the design the model starts
 *   from: a fifth of the budget, at least MIN_INIT and at most MAX_INIT.
 * - The model: a Gaussian process over the coordinates (each scaled to
 *   [0, 1]) of the log of the cost, standardised, with a Matern 5/2
 *   kernel; its length scale and noise are picked from a small grid by
 *   the marginal likelihood every REFIT_EVERY evaluations.  A failed
 *   evaluation counts as the worst cost seen, so the model learns to
 *   avoid failing regions instead of ignoring them.
 * - Each proposal maximises expected improvement over the best cost so far
 *   among candidates: up to MAX_CANDIDATES unseen points drawn at random
 *   (all of them in a small space), plus every unseen neighbour of the
 *   best points, where the fine steps near an optimum are.
 * - On a space too big to list (sparse mode, strategy_int.h) nothing is
 *   kept per point and no scan of the space is made: the random half of
 *   the candidates is drawn by index (the enumerator's sampler, uniform
 *   over the valid points), the other half moves one to three parameters
 *   of the best point by up to a quarter of their values (within the
 *   trust region once there is one), each kept if the constraints accept
 *   it (a rank of the enumerator); SPARSE_CANDIDATES in all, as each
 *   costs an enumerator walk.
 * - The model sees at most MAX_TRAIN points: beyond that, the ones nearest
 *   the best point, and the candidates are limited to that neighbourhood
 *   (a trust region, as in TuRBO), so the cost of a proposal stays bounded
 *   and a long search turns into a local refinement.
 *
 * The linear algebra (Cholesky factorisation, triangular solves) and the
 * normal distribution are GSL's.  The knobs' defaults were chosen on the
 * recorded datasets, the same for all of them (docs/TUNING.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>

#include "tuner/strategy_int.h"

enum {
	MIN_INIT = 5,          /* random design before the model: budget / INIT_SHARE, */
	MAX_INIT = 20,         /* clamped to these */
	INIT_SHARE = 5,
	MAX_TRAIN = 96,        /* points the model is fitted to */
	MAX_CANDIDATES = 1024, /* random unseen points scored per proposal */
	/* candidates in sparse mode, where each costs a rank or unrank of
	 * the enumerator (about 0.5 ms on gaussian) instead of an array read */
	SPARSE_CANDIDATES = 128,
	INCUMBENTS = 5,        /* best points whose neighbours are always candidates */
	REFIT_EVERY = 5,       /* evaluations between hyperparameter searches */
};

/* Expected improvement's margin, in standard deviations of the log cost. */
static const double xi = 0.01;
/* The hyperparameter grid: length scales (as fractions of the unit cube's
 * diagonal: distance() divides by sqrt(nparams)) and noise variances (of
 * the standardised log cost). */
static const double length_grid[] = { 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5 };
static const double noise_grid[] = { 1e-4, 1e-2, 1e-1 };

struct scored {
	double key;
	size_t point;
};

struct bo {
	int np;
	size_t *observed;   /* reported points, in order */
	size_t nobserved, observed_cap;
	int initial;        /* random design points proposed */
	int ninit;          /* of the design's size */
	size_t fitted_at;   /* nobserved when the hyperparameters were last chosen */
	double length, noise;
	/* the fit */
	size_t ntrain;
	size_t train[MAX_TRAIN];
	double *x;          /* MAX_TRAIN * np scaled coordinates */
	double y_best;      /* standardised */
	gsl_matrix *k;      /* MAX_TRAIN^2: the kernel matrix, then its factor */
	gsl_vector *y, *alpha;
	double radius;      /* candidates' distance limit from the best point */
	/* candidates */
	struct scored *cand;
	size_t ncand;
	double *cx;         /* MAX_CANDIDATES + neighbours, * np */
	gsl_matrix *ks;     /* MAX_TRAIN x (candidates): cross-covariances, then L^-1 k* */
	uint8_t *is_cand;   /* per point (dense mode) */
	uint32_t *at;       /* sparse mode: coordinates being tried */
	size_t *neighbours;
	double *xbest;      /* the best point's scaled coordinates */
	struct scored *dist;  /* per observed point, for the nearest-to-best training set */
	size_t dist_cap;
};

static size_t candidates_cap(const struct tune_strategy *s)
{
	return MAX_CANDIDATES + INCUMBENTS * 2 * (size_t)s->space->nparams;
}

static int bo_init(struct tune_strategy *s)
{
	struct bo *b = calloc(1, sizeof *b);
	if (!b)
		return -1;
	s->impl = b;
	/* GSL's default handler aborts; a matrix that is not positive
	 * definite is an outcome here (the next noise level is tried). */
	gsl_set_error_handler_off();
	b->np = s->space->nparams;
	size_t design = s->opts.budget / INIT_SHARE;
	b->ninit = design < MIN_INIT ? MIN_INIT : design > MAX_INIT ? MAX_INIT : (int)design;
	size_t np = (size_t)b->np + 1, ncap = candidates_cap(s);
	b->observed_cap = 64;
	b->observed = malloc(b->observed_cap * sizeof *b->observed);
	b->x = malloc(MAX_TRAIN * np * sizeof *b->x);
	b->k = gsl_matrix_alloc(MAX_TRAIN, MAX_TRAIN);
	b->y = gsl_vector_alloc(MAX_TRAIN);
	b->alpha = gsl_vector_alloc(MAX_TRAIN);
	b->cand = malloc(ncap * sizeof *b->cand);
	b->cx = malloc(ncap * np * sizeof *b->cx);
	b->ks = gsl_matrix_alloc(MAX_TRAIN, ncap);
	if (s->sparse)
		b->at = malloc(np * sizeof *b->at);
	else
		b->is_cand = calloc(s->space->npoints + 1, 1);
	b->neighbours = malloc((2 * np + 1) * sizeof *b->neighbours);
	b->xbest = malloc(np * sizeof *b->xbest);
	if (!b->observed || !b->x || !b->k || !b->y || !b->alpha || !b->cand || !b->cx ||
	    !b->ks || !(b->is_cand || b->at) || !b->neighbours || !b->xbest)
		return -1;
	return 0;
}

/* A point's coordinates scaled to [0, 1]; false on allocation failure. */
static bool scaled(struct tune_strategy *s, size_t point, double *x)
{
	const uint32_t *c = strategy_coords(s, point);
	if (!c)
		return false;
	for (int p = 0; p < s->space->nparams; p++)
		x[p] = s->nvalues[p] > 1 ? (double)c[p] / (s->nvalues[p] - 1) : 0;
	return true;
}

static double distance(const double *a, const double *b, int np)
{
	double d = 0;
	for (int p = 0; p < np; p++)
		d += (a[p] - b[p]) * (a[p] - b[p]);
	return sqrt(d / (np > 0 ? np : 1));
}

static double matern52(double r, double length)
{
	double t = sqrt(5.0) * r / length;
	return (1 + t + t * t / 3) * exp(-t);
}

static int by_key(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

/* The observed point with the lowest cost, or -1 if every one failed. */
static long incumbent(const struct tune_strategy *s, const struct bo *b)
{
	long best = -1;
	for (size_t i = 0; i < b->nobserved; i++) {
		size_t q = b->observed[i];
		if (isfinite(strategy_cost(s, q)) && (best < 0 || strategy_cost(s, q) < strategy_cost(s, best)))
			best = (long)q;
	}
	return best;
}

/*
 * Chooses the training set (every observation, or the MAX_TRAIN nearest the
 * best one) and its standardised targets; sets the trust radius.  False
 * when nothing finite was measured yet or on allocation failure.
 */
static bool gather(struct tune_strategy *s, struct bo *b, long best)
{
	int np = b->np;
	double *xbest = b->xbest;
	if (!scaled(s, (size_t)best, xbest))
		return false;
	b->radius = INFINITY;
	if (b->nobserved <= MAX_TRAIN) {
		b->ntrain = b->nobserved;
		memcpy(b->train, b->observed, b->ntrain * sizeof *b->train);
	} else {
		if (b->dist_cap < b->nobserved) {
			struct scored *d = realloc(b->dist, b->nobserved * 2 * sizeof *d);
			if (!d)
				return false;
			b->dist = d;
			b->dist_cap = b->nobserved * 2;
		}
		for (size_t i = 0; i < b->nobserved; i++) {
			if (!scaled(s, b->observed[i], b->x))
				return false;
			b->dist[i] = (struct scored){ distance(b->x, xbest, np), b->observed[i] };
		}
		qsort(b->dist, b->nobserved, sizeof *b->dist, by_key);
		b->ntrain = MAX_TRAIN;
		for (size_t i = 0; i < MAX_TRAIN; i++)
			b->train[i] = b->dist[i].point;
		b->radius = b->dist[MAX_TRAIN - 1].key;
	}
	/* log costs; failures as the worst finite one */
	double worst = -INFINITY, sum = 0, sum2 = 0;
	for (size_t i = 0; i < b->ntrain; i++)
		if (isfinite(strategy_cost(s, b->train[i])) && log(strategy_cost(s, b->train[i])) > worst)
			worst = log(strategy_cost(s, b->train[i]));
	for (size_t i = 0; i < b->ntrain; i++) {
		double c = strategy_cost(s, b->train[i]);
		double v = isfinite(c) && c > 0 ? log(c) : worst;
		gsl_vector_set(b->y, i, v);
		sum += v;
		sum2 += v * v;
		if (!scaled(s, b->train[i], b->x + i * (size_t)np))
			return false;
	}
	double n = (double)b->ntrain, mean = sum / n, var = sum2 / n - mean * mean;
	double sd = var > 1e-12 ? sqrt(var) : 1;
	for (size_t i = 0; i < b->ntrain; i++)
		gsl_vector_set(b->y, i, (gsl_vector_get(b->y, i) - mean) / sd);
	b->y_best = (log(strategy_cost(s, best)) - mean) / sd;
	return true;
}

/*
 * Factors K + noise I for the current training set into b->k and solves
 * for alpha; returns the log marginal likelihood, or -INFINITY if the
 * matrix is not positive definite.
 */
static double factor(struct bo *b, double length, double noise)
{
	size_t n = b->ntrain;
	gsl_matrix_view k = gsl_matrix_submatrix(b->k, 0, 0, n, n);
	gsl_vector_view y = gsl_vector_subvector(b->y, 0, n);
	gsl_vector_view alpha = gsl_vector_subvector(b->alpha, 0, n);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++) {
			double v = matern52(distance(b->x + i * (size_t)b->np, b->x + j * (size_t)b->np, b->np),
			                    length);
			gsl_matrix_set(&k.matrix, i, j, v);
			gsl_matrix_set(&k.matrix, j, i, v);
		}
		gsl_matrix_set(&k.matrix, i, i, 1 + noise);
	}
	if (gsl_linalg_cholesky_decomp1(&k.matrix) != GSL_SUCCESS ||
	    gsl_linalg_cholesky_solve(&k.matrix, &y.vector, &alpha.vector) != GSL_SUCCESS)
		return -INFINITY;
	double fit = 0, logdet = 0;
	gsl_blas_ddot(&y.vector, &alpha.vector, &fit);
	for (size_t i = 0; i < n; i++)
		logdet += log(gsl_matrix_get(&k.matrix, i, i));
	return -0.5 * fit - logdet;
}

/* Fits the model: the grid search when due, else the kept hyperparameters. */
static bool fit(struct bo *b)
{
	if (b->length == 0 || b->nobserved >= b->fitted_at + REFIT_EVERY) {
		double best = -INFINITY;
		for (size_t i = 0; i < sizeof length_grid / sizeof *length_grid; i++)
			for (size_t j = 0; j < sizeof noise_grid / sizeof *noise_grid; j++) {
				double ll = factor(b, length_grid[i], noise_grid[j]);
				if (ll > best) {
					best = ll;
					b->length = length_grid[i];
					b->noise = noise_grid[j];
				}
			}
		b->fitted_at = b->nobserved;
		if (!isfinite(best))
			return false;
	}
	return isfinite(factor(b, b->length, b->noise));
}

/* Dense mode marks candidates in is_cand; sparse mode removes repeats at the end. */
static void add_candidate(struct tune_strategy *s, struct bo *b, size_t q)
{
	if (strategy_state(s, q) != POINT_UNSEEN || (b->is_cand && b->is_cand[q]))
		return;
	if (b->is_cand)
		b->is_cand[q] = 1;
	b->cand[b->ncand++].point = q;
}

/* The unseen neighbours of the best few observed points. */
static void incumbents_neighbours(struct tune_strategy *s, struct bo *b)
{
	struct scored top[INCUMBENTS];
	int ntop = 0;
	for (size_t i = 0; i < b->nobserved; i++) {
		size_t q = b->observed[i];
		if (!isfinite(strategy_cost(s, q)))
			continue;
		struct scored e = { strategy_cost(s, q), q };
		if (ntop < INCUMBENTS)
			top[ntop++] = e;
		else if (by_key(&e, &top[INCUMBENTS - 1]) < 0)
			top[INCUMBENTS - 1] = e;
		else
			continue;
		qsort(top, (size_t)ntop, sizeof *top, by_key);
	}
	for (int t = 0; t < ntop; t++) {
		int k = strategy_neighbours(s, top[t].point, b->neighbours);
		for (int i = 0; i < k; i++)
			add_candidate(s, b, b->neighbours[i]);
	}
}

static int by_point(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;
	return (x->point > y->point) - (x->point < y->point);
}

/*
 * Sparse mode's candidates (see the top): no scan and nothing per point.
 * Half drawn by index while there is no trust region, the rest moves of
 * the best point, then the incumbents' neighbours; repeats removed.
 */
static bool collect_sparse(struct tune_strategy *s, struct bo *b, long best, const double *xbest)
{
	int np = b->np;
	double *x = b->cx + candidates_cap(s) * (size_t)np - (size_t)np;  /* last slot: scratch */
	uint32_t *centre = b->at;
	b->ncand = 0;
	size_t uniform = isfinite(b->radius) ? 0 : SPARSE_CANDIDATES / 2;
	for (size_t i = 0; i < uniform; i++) {
		long q = strategy_random_unseen(s);
		if (q < 0)
			break;
		b->cand[b->ncand++].point = (size_t)q;
	}
	/* A move spans up to this share of a parameter's values. */
	double reach = isfinite(b->radius) ? b->radius * sqrt((double)np) : 0.25;
	uint32_t *trial = s->coord_scratch;
	const uint32_t *c = strategy_coords(s, (size_t)best);
	if (!c)
		return false;
	memcpy(centre, c, (size_t)np * sizeof *centre);
	for (int t = 0; t < 4 * SPARSE_CANDIDATES && b->ncand < SPARSE_CANDIDATES; t++) {
		memcpy(trial, centre, (size_t)np * sizeof *trial);
		int moves = 1 + (int)rng_below(&s->rng, 3);
		for (int m = 0; m < moves; m++) {
			int p = (int)rng_below(&s->rng, (size_t)np);
			if (s->nvalues[p] < 2)
				continue;
			long w = (long)ceil(reach * (s->nvalues[p] - 1));
			w = w < 1 ? 1 : w;
			long k = (long)trial[p] + (long)rng_below(&s->rng, 2 * (size_t)w + 1) - w;
			trial[p] = (uint32_t)(k < 0 ? 0 : k >= s->nvalues[p] ? s->nvalues[p] - 1 : k);
		}
		long q = strategy_at(s, trial);
		if (q < 0 || strategy_state(s, (size_t)q) != POINT_UNSEEN)
			continue;
		if (isfinite(b->radius)) {
			if (!scaled(s, (size_t)q, x))
				return false;
			if (distance(x, xbest, np) > b->radius)
				continue;
		}
		b->cand[b->ncand++].point = (size_t)q;
	}
	incumbents_neighbours(s, b);
	qsort(b->cand, b->ncand, sizeof *b->cand, by_point);
	size_t k = 0;
	for (size_t i = 0; i < b->ncand; i++)
		if (k == 0 || b->cand[i].point != b->cand[k - 1].point)
			b->cand[k++] = b->cand[i];
	b->ncand = k;
	for (size_t i = 0; i < b->ncand; i++)
		if (!scaled(s, b->cand[i].point, b->cx + i * (size_t)np))
			return false;
	return true;
}

/*
 * The candidates: unseen points within the trust radius of the best one,
 * MAX_CANDIDATES of them sampled uniformly (reservoir sampling) when there
 * are more, plus the unseen neighbours of the best points.
 */
static bool collect(struct tune_strategy *s, struct bo *b, const double *xbest)
{
	int np = b->np;
	size_t seen = 0;
	b->ncand = 0;
	double *x = b->cx + candidates_cap(s) * (size_t)np - (size_t)np;  /* last slot: scratch */
	for (size_t q = 0; q < s->space->npoints; q++) {
		if (strategy_state(s, q) != POINT_UNSEEN)
			continue;
		if (isfinite(b->radius)) {
			if (!scaled(s, q, x))
				return false;
			if (distance(x, xbest, np) > b->radius)
				continue;
		}
		seen++;
		if (b->ncand < MAX_CANDIDATES) {
			b->cand[b->ncand++].point = q;
		} else {
			size_t r = rng_below(&s->rng, seen);
			if (r < MAX_CANDIDATES)
				b->cand[r].point = q;
		}
	}
	for (size_t i = 0; i < b->ncand; i++)
		b->is_cand[b->cand[i].point] = 1;
	/* the best few observed points' neighbourhoods */
	incumbents_neighbours(s, b);
	for (size_t i = 0; i < b->ncand; i++) {
		b->is_cand[b->cand[i].point] = 0;
		if (!scaled(s, b->cand[i].point, b->cx + i * (size_t)np))
			return false;
	}
	return true;
}

/* Scores every candidate by expected improvement (stored negated in key). */
static void score(struct bo *b)
{
	size_t n = b->ntrain, m = b->ncand;
	int np = b->np;
	gsl_matrix_view ks = gsl_matrix_submatrix(b->ks, 0, 0, n, m);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m; j++)
			gsl_matrix_set(&ks.matrix, i, j,
			               matern52(distance(b->x + i * (size_t)np, b->cx + j * (size_t)np, np),
			                        b->length));
	/* the means before the solve overwrites the cross-covariances */
	for (size_t j = 0; j < m; j++) {
		double mu = 0;
		for (size_t i = 0; i < n; i++)
			mu += gsl_matrix_get(&ks.matrix, i, j) * gsl_vector_get(b->alpha, i);
		b->cand[j].key = mu;
	}
	gsl_matrix_view l = gsl_matrix_submatrix(b->k, 0, 0, n, n);
	gsl_blas_dtrsm(CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, 1.0, &l.matrix, &ks.matrix);
	for (size_t j = 0; j < m; j++) {
		double v = 1;
		for (size_t i = 0; i < n; i++) {
			double e = gsl_matrix_get(&ks.matrix, i, j);
			v -= e * e;
		}
		double sd = v > 1e-12 ? sqrt(v) : 1e-6, gain = b->y_best - b->cand[j].key - xi;
		double z = gain / sd;
		double ei = gain * gsl_cdf_ugaussian_P(z) + sd * gsl_ran_ugaussian_pdf(z);
		b->cand[j].key = -ei;
	}
}

static size_t bo_propose(struct tune_strategy *s, size_t *out, size_t max)
{
	struct bo *b = s->impl;
	size_t n = 0;
	while (n < max && b->initial < b->ninit) {
		long q = strategy_random_unseen(s);
		if (q < 0 || !strategy_take(s, (size_t)q, out, &n))
			return n;
		b->initial++;
	}
	if (n == max)
		return n;
	long best = incumbent(s, b);
	/* Nothing to model yet: wait for the design, or (all failed) keep
	 * sampling at random through the framework's top-up. */
	if (best < 0 || b->nobserved < 2)
		return n;
	if (!gather(s, b, best) || !fit(b))
		return n;
	if (!scaled(s, (size_t)best, b->xbest) ||
	    !(s->sparse ? collect_sparse(s, b, best, b->xbest) : collect(s, b, b->xbest)) ||
	    b->ncand == 0)
		return n;
	score(b);
	qsort(b->cand, b->ncand, sizeof *b->cand, by_key);
	for (size_t i = 0; i < b->ncand && n < max; i++)
		strategy_take(s, b->cand[i].point, out, &n);
	return n;
}

static void bo_report(struct tune_strategy *s, size_t point, double cost)
{
	struct bo *b = s->impl;
	(void)cost;
	if (b->nobserved == b->observed_cap) {
		size_t *more = realloc(b->observed, 2 * b->observed_cap * sizeof *more);
		if (!more)
			return;  /* the model goes on without it */
		b->observed = more;
		b->observed_cap *= 2;
	}
	b->observed[b->nobserved++] = point;
}

static void bo_release(struct tune_strategy *s)
{
	struct bo *b = s->impl;
	if (!b)
		return;
	free(b->observed);
	free(b->x);
	if (b->k)
		gsl_matrix_free(b->k);
	if (b->y)
		gsl_vector_free(b->y);
	if (b->alpha)
		gsl_vector_free(b->alpha);
	free(b->cand);
	free(b->cx);
	if (b->ks)
		gsl_matrix_free(b->ks);
	free(b->is_cand);
	free(b->at);
	free(b->neighbours);
	free(b->dist);
	free(b->xbest);
	free(b);
}

const struct strategy_ops strategy_bo = {
	.init = bo_init,
	.propose = bo_propose,
	.report = bo_report,
	.release = bo_release,
};
