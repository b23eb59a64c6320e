/*
 * test_bo.c - Criterion tests of bo's model fit (tuner/strategy_bo.c),
 * whose functions are static: the file is included here under another
 * name for its strategy_ops, so the strategy framework links as usual.
 *
 * - The marginal likelihood's gradient that ARD's BFGS follows, against
 *   central finite differences of the same objective.
 * - ARD itself: on costs that depend on one parameter only, the fitted
 *   length scale of that parameter is the shortest by far.  The oracle is
 *   the function the costs come from.
 */
#include <criterion/criterion.h>

#define strategy_bo strategy_bo_under_test
#include "tuner/strategy_bo.c"
#undef strategy_bo

enum { NP = 4, N = 40 };

static int nvalues[NP] = { 8, 8, 8, 8 };

/* A model with room for MAX_TRAIN points of NP parameters, N of them set. */
static struct bo *model(double (*cost)(const double *x), uint64_t seed)
{
	struct bo *b = calloc(1, sizeof *b);
	b->np = NP;
	b->nvalues = nvalues;
	b->x = calloc(MAX_TRAIN * NP, sizeof *b->x);
	b->k = gsl_matrix_alloc(MAX_TRAIN, MAX_TRAIN);
	b->kinv = gsl_matrix_alloc(MAX_TRAIN, MAX_TRAIN);
	b->y = gsl_vector_alloc(MAX_TRAIN);
	b->alpha = gsl_vector_alloc(MAX_TRAIN);
	b->ls = calloc(NP, sizeof *b->ls);
	b->grad_ls = calloc(2 * NP, sizeof *b->grad_ls);
	struct rng r;
	rng_seed(&r, seed);
	double sum = 0, sum2 = 0;
	for (size_t i = 0; i < N; i++) {
		double *x = b->x + i * NP;
		for (int p = 0; p < NP; p++)
			x[p] = (double)rng_below(&r, (size_t)nvalues[p]) / (nvalues[p] - 1);
		double y = cost(x);
		gsl_vector_set(b->y, i, y);
		sum += y;
		sum2 += y * y;
	}
	double mean = sum / N, sd = sqrt(sum2 / N - mean * mean);
	for (size_t i = 0; i < N; i++)
		gsl_vector_set(b->y, i, (gsl_vector_get(b->y, i) - mean) / sd);
	b->ntrain = N;
	b->nobserved = N;
	return b;
}

/* The strategy's own release, which takes what model() left unset. */
static void model_free(struct bo *b)
{
	struct tune_strategy s = { .impl = b };
	bo_release(&s);
}

/* Smooth in every parameter, each with its own scale. */
static double mixed(const double *x)
{
	return sin(3 * x[0]) + 0.5 * cos(5 * x[1]) + x[2] * x[2] + 0.2 * x[3];
}

/* Only the first parameter matters (a bump and a slope). */
static double first_only(const double *x)
{
	return exp(-20 * (x[0] - 0.4) * (x[0] - 0.4)) - 0.5 * x[0];
}

Test(bo_model, likelihood_gradient_matches_finite_differences)
{
	gsl_set_error_handler_off();
	struct bo *b = model(mixed, 3);
	int dims[NP] = { 0, 1, 2, 3 };
	struct ard a = { b, dims, NP, log(0.5) };
	const double start[NP + 1] = { log(0.3), log(0.8), log(1.6), log(0.5), log(0.02) };
	gsl_vector *theta = gsl_vector_alloc(NP + 1), *grad = gsl_vector_alloc(NP + 1);
	for (int d = 0; d <= NP; d++)
		gsl_vector_set(theta, d, start[d]);
	double f = ard_objective(theta, &a, grad);
	cr_assert(isfinite(f) && f < 1e29, "the objective at the start: %g", f);
	for (int d = 0; d <= NP; d++) {
		const double h = 1e-5;
		gsl_vector_set(theta, d, start[d] + h);
		double up = ard_objective(theta, &a, NULL);
		gsl_vector_set(theta, d, start[d] - h);
		double down = ard_objective(theta, &a, NULL);
		gsl_vector_set(theta, d, start[d]);
		double numeric = (up - down) / (2 * h), analytic = gsl_vector_get(grad, d);
		cr_expect(fabs(numeric - analytic) <= 1e-4 * fmax(1, fabs(numeric)),
		          "d/dtheta[%d]: analytic %.8g, finite differences %.8g", d, analytic, numeric);
	}
	gsl_vector_free(theta);
	gsl_vector_free(grad);
	model_free(b);
}

Test(bo_model, ard_finds_the_parameter_that_matters)
{
	gsl_set_error_handler_off();
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct bo *b = model(first_only, seed);
		cr_assert(fit(b), "seed %d: the fit failed", (int)seed);
		for (int p = 1; p < NP; p++)
			cr_expect_gt(b->ls[p], 3 * b->ls[0],
			             "seed %d: length scale of parameter %d (%g) not well above the first's (%g)",
			             (int)seed, p, b->ls[p], b->ls[0]);
		model_free(b);
	}
}
