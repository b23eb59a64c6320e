/*
 * sim.c - spacetune's strategies (tuner/strategy*.c, linked directly) over
 * a table of recorded costs, for bench/search/run.py.
 *
 *   sim TABLE.csv STRATEGY EVALS SEED_FROM SEED_TO
 *
 * TABLE.csv: a header of parameter names and "cost", then one row per
 * point: its (numeric) parameter values and its cost (inf: failed).  The
 * space is exactly the rows.  For each seed, one line: the seed, then the
 * cost of each evaluation in the order they were reported, one evaluation
 * in flight at a time (as Kernel Tuner's simulation mode runs).
 *
 * Why not `spacetune run --replay`: that replays a whole job (the space
 * file, the database, the virtual clock) and costs a process and a space
 * compilation per run; the bench runs thousands, and this measures the
 * strategies alone on the same recorded points.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/strategy.h"

struct table {
	size_t n;
	int np;
	double *v;       /* n * np */
	double *cost;
	double **sorted; /* per parameter: distinct values */
	int *nsorted;
	long *slots;     /* open addressing: point index or -1 */
	size_t nslots;
};

static unsigned long long hash_row(const double *v, int np)
{
	unsigned long long h = 1469598103934665603ull;
	for (int p = 0; p < np; p++) {
		unsigned long long bits;
		double x = v[p] == 0 ? 0 : v[p];
		memcpy(&bits, &x, sizeof bits);
		h = (h ^ bits) * 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static double tv(void *user, size_t i, int p)
{
	struct table *t = user;
	return t->v[i * (size_t)t->np + (size_t)p];
}

static int tvalues(void *user, int p, const double **values)
{
	struct table *t = user;
	*values = t->sorted[p];
	return t->nsorted[p];
}

static long tfind(void *user, const double *values)
{
	struct table *t = user;
	size_t h = hash_row(values, t->np) % t->nslots;
	for (;; h = (h + 1) % t->nslots) {
		long i = t->slots[h];
		if (i < 0)
			return -1;
		if (memcmp(t->v + (size_t)i * (size_t)t->np, values, (size_t)t->np * sizeof *values) == 0)
			return i;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "sim: %s\n", what);
	exit(1);
}

static void load(struct table *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1 << 16];
	if (!f || !fgets(line, sizeof line, f))
		die("cannot read the table");
	t->np = 0;
	for (char *c = line; *c; c++)
		t->np += *c == ',';
	size_t cap = 1024;
	t->v = malloc(cap * (size_t)t->np * sizeof *t->v);
	t->cost = malloc(cap * sizeof *t->cost);
	while (fgets(line, sizeof line, f)) {
		if (t->n == cap) {
			cap *= 2;
			t->v = realloc(t->v, cap * (size_t)t->np * sizeof *t->v);
			t->cost = realloc(t->cost, cap * sizeof *t->cost);
		}
		char *c = line;
		for (int p = 0; p < t->np; p++, c++)
			t->v[t->n * (size_t)t->np + (size_t)p] = strtod(c, &c);
		t->cost[t->n] = strtod(c, NULL);
		t->n++;
	}
	fclose(f);
	t->sorted = malloc((size_t)t->np * sizeof *t->sorted);
	t->nsorted = malloc((size_t)t->np * sizeof *t->nsorted);
	for (int p = 0; p < t->np; p++) {
		double *s = malloc(t->n * sizeof *s);
		for (size_t i = 0; i < t->n; i++)
			s[i] = tv(t, i, p);
		qsort(s, t->n, sizeof *s, cmp_double);
		int k = 0;
		for (size_t i = 0; i < t->n; i++)
			if (k == 0 || s[i] != s[k - 1])
				s[k++] = s[i];
		t->sorted[p] = s;
		t->nsorted[p] = k;
	}
	t->nslots = 2 * t->n + 1;
	t->slots = malloc(t->nslots * sizeof *t->slots);
	for (size_t h = 0; h < t->nslots; h++)
		t->slots[h] = -1;
	for (size_t i = 0; i < t->n; i++) {
		const double *row = t->v + i * (size_t)t->np;
		if (tfind(t, row) >= 0)
			die("a point appears twice");
		size_t h = hash_row(row, t->np) % t->nslots;
		while (t->slots[h] >= 0)
			h = (h + 1) % t->nslots;
		t->slots[h] = (long)i;
	}
}

int main(int argc, char **argv)
{
	if (argc != 6)
		die("usage: sim TABLE.csv STRATEGY EVALS SEED_FROM SEED_TO");
	struct table t = { 0 };
	load(&t, argv[1]);
	struct tune_space space = { t.n, t.np, &t, tv, tvalues, tfind };
	size_t evals = strtoul(argv[3], NULL, 10);
	for (unsigned long seed = strtoul(argv[4], NULL, 10); seed <= strtoul(argv[5], NULL, 10);
	     seed++) {
		struct tune_strategy_opts o = { .seed = seed, .budget = evals, .batch = 1 };
		struct tune_strategy *s;
		if (tune_strategy_new(&s, argv[2], &space, &o) != 0)
			die("unknown strategy");
		struct tune_budget b = { TUNE_BUDGET_EVALS, (double)evals };
		struct tune_search q;
		tune_search_init(&q, s, &b, t.n);
		printf("%lu", seed);
		size_t point;
		while (tune_search_next(&q, 0, &point, 1) == 1) {
			tune_search_report(&q, point, t.cost[point]);
			printf(" %.9g", t.cost[point]);
		}
		printf("\n");
		tune_strategy_free(s);
	}
	return 0;
}
