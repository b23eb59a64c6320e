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
 *   kernel; every REFIT_EVERY evaluations one length scale and the noise
 *   are picked from a small grid by the marginal likelihood, then refined
 *   into a length scale per parameter (ARD, ard_fit) once there are
 *   ARD_MIN_POINTS points.  A failed
 *   evaluation counts as the worst cost seen, so the model learns to
 *   avoid failing regions instead of ignoring them.
 * - Each proposal maximises expected improvement over the best cost so far
 *   among candidates: up to MAX_CANDIDATES unseen points drawn at random
 *   (all of them in a small space), plus every unseen neighbour of the
 *   best points, where the fine steps near an optimum are.
 * - The local phase: once STALL reports in a row have not improved on the
 *   best cost, the candidates are the unseen points that change one
 *   parameter (to any of its values) of one of the INCUMBENTS best points,
 *   taken by the lowest predicted cost (the model's mean), not by expected
 *   improvement.  When those are all measured, the best 10, 20, then
 *   MAX_CENTRES points are the centres; with none left, a random point.
 *   An improvement ends the phase.  Why: on the gemm datasets
 *   (bench/search/README.md) expected improvement alone kept proposing
 *   far, uncertain points once the design had found a good region, and
 *   missed the better points one parameter away from the good ones
 *   (a recorded neighbour there is often several grid steps away, so
 *   "any value" rather than the next one); dense mode only.
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
#include <gsl/gsl_multimin.h>
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
	MAX_CENTRES = 40,      /* the local phase's centres, INCUMBENTS doubled up to this */
	REFIT_EVERY = 5,       /* evaluations between hyperparameter searches */
	STALL = 5,             /* reports without a better cost before the local phase */
	LOCAL_CHANGES = 1,     /* the local phase's neighbourhood: parameters changed */
};

/* Expected improvement's margin, in standard deviations of the log cost. */
static const double xi = 0.01;
/* The hyperparameter grid: length scales (as fractions of the unit cube's
 * diagonal: distance() divides by sqrt(nparams)) and noise variances (of
 * the standardised log cost). */
static const double length_grid[] = { 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5 };
static const double noise_grid[] = { 1e-4, 1e-2, 1e-1 };
/* ARD (see ard_fit): from this many training points, at most this
 * many BFGS steps; the log-normal prior's standard deviation; bounds. */
enum { ARD_MIN_POINTS = 10, ARD_ITERATIONS = 40 };
#define PRIOR_SD 1.0
#define LOG_LS_MIN (-4.6)  /* 0.01 */
#define LOG_LS_MAX 4.6     /* 100 */
#define NOISE_MIN 1e-6
#define NOISE_MAX 1.0

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
	double length, noise;  /* the grid's choice (isotropic) */
	double *ls;         /* per-parameter length scales in scaled coordinates (ARD) */
	const int *nvalues; /* the strategy's, per parameter */
	gsl_matrix *kinv;   /* MAX_TRAIN^2: the inverse, for the likelihood's gradient */
	double *grad_ls;    /* 2 * np: the gradient, then ard_objective's length scales */
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
	/* the local phase */
	struct scored top[MAX_CENTRES];  /* the best points, best first (find_top) */
	int ntop;
	int ncentres;       /* the best this many are the centres */
	bool local;         /* this proposal is local */
	size_t since_best;  /* reports since the best cost last improved */
	double best_cost;
	uint32_t *topc;     /* np: collect_local's trial coordinates */
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
	b->best_cost = INFINITY;
	size_t design = s->opts.budget / INIT_SHARE;
	b->ninit = design < MIN_INIT ? MIN_INIT : design > MAX_INIT ? MAX_INIT : (int)design;
	size_t np = (size_t)b->np + 1, ncap = candidates_cap(s);
	b->observed_cap = 64;
	b->observed = malloc(b->observed_cap * sizeof *b->observed);
	b->x = malloc(MAX_TRAIN * np * sizeof *b->x);
	b->k = gsl_matrix_alloc(MAX_TRAIN, MAX_TRAIN);
	b->kinv = gsl_matrix_alloc(MAX_TRAIN, MAX_TRAIN);
	b->ls = malloc(np * sizeof *b->ls);
	b->grad_ls = malloc(2 * np * sizeof *b->grad_ls);
	b->nvalues = s->nvalues;
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
	b->topc = malloc(np * sizeof *b->topc);
	if (!b->observed || !b->x || !b->k || !b->kinv || !b->ls || !b->grad_ls || !b->y || !b->alpha || !b->cand || !b->cx ||
	    !b->ks || !(b->is_cand || b->at) || !b->neighbours || !b->xbest || !b->topc)
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

/* Matern 5/2 of a distance already divided by the length scales. */
static double matern52(double r)
{
	double t = sqrt(5.0) * r;
	return (1 + t + t * t / 3) * exp(-t);
}

/* The distance between two points in length scales (ARD). */
static double scaled_distance(const double *a, const double *b, const double *ls, int np)
{
	double d = 0;
	for (int p = 0; p < np; p++) {
		double t = (a[p] - b[p]) / ls[p];
		d += t * t;
	}
	return sqrt(d);
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
 * Factors K + noise I for the current training set under the length
 * scales ls into b->k and solves for alpha; returns the log marginal
 * likelihood, or -INFINITY if the matrix is not positive definite.
 */
static double factor(struct bo *b, const double *ls, double noise)
{
	size_t n = b->ntrain;
	gsl_matrix_view k = gsl_matrix_submatrix(b->k, 0, 0, n, n);
	gsl_vector_view y = gsl_vector_subvector(b->y, 0, n);
	gsl_vector_view alpha = gsl_vector_subvector(b->alpha, 0, n);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++) {
			double v = matern52(scaled_distance(b->x + i * (size_t)b->np, b->x + j * (size_t)b->np,
			                                    ls, b->np));
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

/* The isotropic length scale of the grid as per-parameter ones. */
static void isotropic(struct bo *b, double length, double *ls)
{
	for (int p = 0; p < b->np; p++)
		ls[p] = length * sqrt((double)b->np);
}

/*
 * ARD: the length scales, one per parameter that varies, and the noise
 * are refined from the grid's choice by maximising the marginal
 * likelihood times a log-normal prior on each length scale (BFGS on their
 * logarithms, GSL's multimin, with the likelihood's gradient).  A
 * parameter that barely changes the cost gets a long length scale and
 * stops hiding the ones that do (an isotropic model has to average them).
 * The prior, centred on the grid's length scale, keeps a length scale
 * that a few points cannot decide from running off.
 */
struct ard {
	struct bo *b;
	int *dims;          /* the parameters optimised (those with 2+ values) */
	int ndims;
	double centre;      /* the prior's mean of log ls */
};

/* Minus the log posterior at theta = (log ls of dims..., log noise), and its gradient. */
static double ard_objective(const gsl_vector *theta, void *params, gsl_vector *grad)
{
	struct ard *a = params;
	struct bo *b = a->b;
	int np = b->np, nd = a->ndims;
	double *ls = b->grad_ls + np;  /* the trial's length scales */
	memcpy(ls, b->ls, (size_t)np * sizeof *ls);
	double penalty = 0;
	for (int d = 0; d < nd; d++) {
		double t = gsl_vector_get(theta, d);
		ls[a->dims[d]] = exp(t);
		double u = (t - a->centre) / PRIOR_SD;
		penalty += 0.5 * u * u;
	}
	/* a floor under the noise keeps K well conditioned, smoothly */
	double noise = NOISE_MIN + exp(gsl_vector_get(theta, nd));
	double ll = factor(b, ls, noise);
	if (!isfinite(ll)) {
		if (grad)
			gsl_vector_set_zero(grad);
		return 1e30;
	}
	if (grad) {
		size_t n = b->ntrain;
		gsl_matrix_view kinv = gsl_matrix_submatrix(b->kinv, 0, 0, n, n);
		gsl_matrix_view l = gsl_matrix_submatrix(b->k, 0, 0, n, n);
		gsl_matrix_memcpy(&kinv.matrix, &l.matrix);
		gsl_linalg_cholesky_invert(&kinv.matrix);
		double *g = b->grad_ls;
		memset(g, 0, (size_t)np * sizeof *g);
		double gnoise = 0;
		for (size_t i = 0; i < n; i++) {
			const double *x_i = b->x + i * (size_t)np;
			double ai = gsl_vector_get(b->alpha, i);
			gnoise += ai * ai - gsl_matrix_get(&kinv.matrix, i, i);
			for (size_t j = 0; j < i; j++) {
				const double *x_j = b->x + j * (size_t)np;
				double w = ai * gsl_vector_get(b->alpha, j) - gsl_matrix_get(&kinv.matrix, i, j);
				double t = sqrt(5.0) * scaled_distance(x_i, x_j, ls, np);
				/* dk/dlog ls_p = 5/3 (1 + t) exp(-t) (dx_p / ls_p)^2; the
				 * pair counts twice (K is symmetric), the half cancels */
				double f = w * (5.0 / 3) * (1 + t) * exp(-t);
				for (int d = 0; d < nd; d++) {
					int p = a->dims[d];
					double u = (x_i[p] - x_j[p]) / ls[p];
					g[p] += f * u * u;
				}
			}
		}
		for (int d = 0; d < nd; d++) {
			double t = gsl_vector_get(theta, d);
			gsl_vector_set(grad, d, -g[a->dims[d]] + (t - a->centre) / (PRIOR_SD * PRIOR_SD));
		}
		gsl_vector_set(grad, nd, -0.5 * gnoise * (noise - NOISE_MIN));
	}
	return -ll + penalty;
}

static double ard_f(const gsl_vector *theta, void *params)
{
	return ard_objective(theta, params, NULL);
}

static void ard_df(const gsl_vector *theta, void *params, gsl_vector *grad)
{
	ard_objective(theta, params, grad);
}

static void ard_fdf(const gsl_vector *theta, void *params, double *f, gsl_vector *grad)
{
	*f = ard_objective(theta, params, grad);
}

/* Refines b->ls and b->noise from the grid's choice (already in them). */
static void ard_fit(struct bo *b)
{
	int dims[b->np > 0 ? b->np : 1], nd = 0;
	for (int p = 0; p < b->np; p++)
		if (b->nvalues[p] > 1)
			dims[nd++] = p;
	if (nd == 0)
		return;
	struct ard a = { b, dims, nd, log(b->length * sqrt((double)b->np)) };
	gsl_multimin_function_fdf fn = { ard_f, ard_df, ard_fdf, (size_t)nd + 1, &a };
	gsl_vector *theta = gsl_vector_alloc((size_t)nd + 1);
	gsl_multimin_fdfminimizer *m = gsl_multimin_fdfminimizer_alloc(
		gsl_multimin_fdfminimizer_vector_bfgs, (size_t)nd + 1);
	if (!theta || !m)
		goto out;
	for (int d = 0; d < nd; d++)
		gsl_vector_set(theta, d, log(b->ls[dims[d]]));
	gsl_vector_set(theta, nd, log(b->noise - NOISE_MIN));
	double start = ard_objective(theta, &a, NULL);
	if (gsl_multimin_fdfminimizer_set(m, &fn, theta, 0.1, 0.1) != GSL_SUCCESS)
		goto out;
	for (int it = 0; it < ARD_ITERATIONS; it++) {
		if (gsl_multimin_fdfminimizer_iterate(m) != GSL_SUCCESS)
			break;
		if (gsl_multimin_test_gradient(m->gradient, 1e-3) == GSL_SUCCESS)
			break;
	}
	if (m->f < start) {
		for (int d = 0; d < nd; d++) {
			double t = gsl_vector_get(m->x, d);
			b->ls[dims[d]] = exp(t < LOG_LS_MIN ? LOG_LS_MIN : t > LOG_LS_MAX ? LOG_LS_MAX : t);
		}
		b->noise = fmin(NOISE_MIN + exp(gsl_vector_get(m->x, nd)), NOISE_MAX);
	}
out:
	if (m)
		gsl_multimin_fdfminimizer_free(m);
	if (theta)
		gsl_vector_free(theta);
}

/* Fits the model: the grid search, then ARD, when due; else the kept hyperparameters. */
static bool fit(struct bo *b)
{
	if (b->length == 0 || b->nobserved >= b->fitted_at + REFIT_EVERY) {
		double best = -INFINITY;
		for (size_t i = 0; i < sizeof length_grid / sizeof *length_grid; i++)
			for (size_t j = 0; j < sizeof noise_grid / sizeof *noise_grid; j++) {
				isotropic(b, length_grid[i], b->grad_ls);
				double ll = factor(b, b->grad_ls, noise_grid[j]);
				if (ll > best) {
					best = ll;
					b->length = length_grid[i];
					b->noise = noise_grid[j];
				}
			}
		b->fitted_at = b->nobserved;
		if (!isfinite(best))
			return false;
		isotropic(b, b->length, b->ls);
		if (b->ntrain >= ARD_MIN_POINTS)
			ard_fit(b);
	}
	return isfinite(factor(b, b->ls, b->noise));
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

/* The best few observed points, best first, into b->top. */
static void find_top(struct tune_strategy *s, struct bo *b)
{
	struct scored *top = b->top;
	int ntop = 0;
	for (size_t i = 0; i < b->nobserved; i++) {
		size_t q = b->observed[i];
		if (!isfinite(strategy_cost(s, q)))
			continue;
		struct scored e = { strategy_cost(s, q), q };
		if (ntop < MAX_CENTRES)
			top[ntop++] = e;
		else if (by_key(&e, &top[MAX_CENTRES - 1]) < 0)
			top[MAX_CENTRES - 1] = e;
		else
			continue;
		qsort(top, (size_t)ntop, sizeof *top, by_key);
	}
	b->ntop = ntop;
}

/* The unseen neighbours of the best few observed points. */
static void incumbents_neighbours(struct tune_strategy *s, struct bo *b)
{
	const struct scored *top = b->top;
	for (int t = 0; t < b->ntop && t < INCUMBENTS; t++) {
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
 * The local phase's candidates: the unseen points that change one
 * parameter of one of the ncentres best points to any other of its values
 * (strategy_at looks each up: no scan of the space, so the cost is the
 * centres times the parameters' values), at most MAX_CANDIDATES.
 */
static bool collect_local(struct tune_strategy *s, struct bo *b)
{
	int np = b->np;
	uint32_t *trial = b->topc;
	b->ncand = 0;
	for (int t = 0; t < b->ntop && t < b->ncentres; t++) {
		const uint32_t *c = strategy_coords(s, b->top[t].point);
		if (!c)
			return false;
		for (int p = 0; p < np; p++) {
			memcpy(trial, c, (size_t)np * sizeof *trial);
			for (int v = 0; v < s->nvalues[p] && b->ncand < MAX_CANDIDATES; v++) {
				if ((uint32_t)v == c[p])
					continue;
				trial[p] = (uint32_t)v;
				long q = strategy_at(s, trial);
				if (q >= 0)
					add_candidate(s, b, (size_t)q);
			}
		}
	}
	for (size_t i = 0; i < b->ncand; i++) {
		if (b->is_cand)
			b->is_cand[b->cand[i].point] = 0;
		if (!scaled(s, b->cand[i].point, b->cx + i * (size_t)np))
			return false;
	}
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
			               matern52(scaled_distance(b->x + i * (size_t)np, b->cx + j * (size_t)np,
			                                        b->ls, np)));
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
		/* the local phase exploits: the lowest predicted cost first */
		b->cand[j].key = b->local ? b->cand[j].key : -ei;
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
	find_top(s, b);
	b->local = !s->sparse && b->since_best >= STALL;
	b->ncentres = INCUMBENTS;
	if (!scaled(s, (size_t)best, b->xbest) ||
	    !(b->local ? collect_local(s, b) :
	      s->sparse ? collect_sparse(s, b, best, b->xbest) : collect(s, b, b->xbest)))
		return n;
	/* the centres' neighbourhoods all measured: those of more of the
	 * best points (about as good on the recorded data as a random point,
	 * better than going back to expected improvement) */
	for (b->ncentres = 2 * INCUMBENTS; b->local && b->ncand == 0 && b->ncentres <= MAX_CENTRES;
	     b->ncentres *= 2)
		if (!collect_local(s, b))
			return n;
	if (b->ncand == 0) {
		/* those too, or the whole space: a random point, if any */
		long q = strategy_random_unseen(s);
		if (q >= 0)
			strategy_take(s, (size_t)q, out, &n);
		return n;
	}
	score(b);
	qsort(b->cand, b->ncand, sizeof *b->cand, by_key);
	for (size_t i = 0; i < b->ncand && n < max; i++)
		strategy_take(s, b->cand[i].point, out, &n);
	return n;
}

static void bo_report(struct tune_strategy *s, size_t point, double cost)
{
	struct bo *b = s->impl;
	if (b->nobserved == b->observed_cap) {
		size_t *more = realloc(b->observed, 2 * b->observed_cap * sizeof *more);
		if (!more)
			return;  /* the model goes on without it */
		b->observed = more;
		b->observed_cap *= 2;
	}
	b->observed[b->nobserved++] = point;
	if (cost < b->best_cost) {
		b->best_cost = cost;
		b->since_best = 0;
	} else {
		b->since_best++;
	}
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
	if (b->kinv)
		gsl_matrix_free(b->kinv);
	free(b->ls);
	free(b->grad_ls);
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
	free(b->topc);
	free(b);
}

const struct strategy_ops strategy_bo = {
	.init = bo_init,
	.propose = bo_propose,
	.report = bo_report,
	.release = bo_release,
};
