/*
 * bigsearch.c - one of spacetune's strategies over a tuning job's space,
 * as `spacetune run` drives it (tuner/run.c), with a made-up cost instead
 * of a kernel: the strategy side alone, for spaces too big to list.
 *
 *   bigsearch SPACE STRATEGY BUDGET SEED [NAME=VALUE]...
 *
 * Loads the job (the space is listed, or reached by index beyond
 * TUNE_JOB_LIST_MAX points), proposes BUDGET points in batches of 4 and
 * writes each as a CSV row of the parameters' numbers (a header first);
 * on stderr, the points in the space, how it was enumerated, the seconds,
 * the calls of tune_strategy_propose and the seconds in them (all, the
 * longest), whether it runs under ASan, and the process's peak resident
 * set (getrusage, KiB).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tuner/job.h"
#include "tuner/strategy.h"

/* A smooth bowl over log2 of the values, so guided strategies have a slope. */
static double mock_cost(struct tune_job *job, size_t i)
{
	double c = 0;
	for (int p = 0; p < tune_job_nparams(job); p++) {
		double v = tune_job_point_value(job, i, p);
		double x = log2(fabs(v) + 1) - (double)(p % 5);
		c += x * x;
	}
	return c;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bigsearch SPACE STRATEGY BUDGET SEED [NAME=VALUE]...\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct tune_job_opts jo = { .space_path = argv[1], .nsets = argc - 5,
				    .sets = (const char *const *)argv + 5 };
	struct tune_job *job;
	if (tune_job_load(&jo, &job))
		return 1;
	size_t n = tune_job_npoints(job);
	int np = tune_job_nparams(job);
	struct tune_space sp;
	tune_job_space(job, &sp);
	struct tune_strategy_opts so = { .seed = strtoull(argv[4], NULL, 10), .budget = strtoull(argv[3], NULL, 10),
					  .batch = 4 };
	struct tune_strategy *s;
	if (tune_strategy_new(&s, argv[2], &sp, &so)) {
		fprintf(stderr, "bigsearch: cannot start strategy '%s'\n", argv[2]);
		tune_job_free(job);
		return 1;
	}
	for (int p = 0; p < np; p++)
		printf("%s%s", p ? "," : "", tune_job_param_name(job, p));
	putchar('\n');
	size_t budget = so.budget < n ? so.budget : n, done = 0, pts[4], calls = 0;
	double in_propose = 0, longest = 0;
	while (done < budget) {
		struct timespec p0, p1;
		clock_gettime(CLOCK_MONOTONIC, &p0);
		size_t k = tune_strategy_propose(s, pts, budget - done < 4 ? budget - done : 4);
		clock_gettime(CLOCK_MONOTONIC, &p1);
		double dt = (double)(p1.tv_sec - p0.tv_sec) + (p1.tv_nsec - p0.tv_nsec) * 1e-9;
		calls++;
		in_propose += dt;
		longest = dt > longest ? dt : longest;
		if (k == 0)
			break;
		for (size_t j = 0; j < k; j++) {
			for (int p = 0; p < np; p++)
				printf("%s%.17g", p ? "," : "", tune_job_point_value(job, pts[j], p));
			putchar('\n');
		}
		for (size_t j = 0; j < k; j++)
			tune_strategy_report(s, pts[j], mock_cost(job, pts[j]));
		done += k;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
/* ASan's shadow memory and quarantine add hundreds of MiB to any run. */
#if defined(__SANITIZE_ADDRESS__)
	const int sanitized = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	const int sanitized = 1;
#else
	const int sanitized = 0;
#endif
#else
	const int sanitized = 0;
#endif
	fprintf(stderr,
		"points %zu enumerator %s proposed %zu seconds %.3f proposals %zu propose_s %.3f propose_max_s %.4f "
		"asan %d maxrss_kib %ld\n",
		n, tune_job_enumerator(job), done, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9,
		calls, in_propose, longest, sanitized, ru.ru_maxrss);
	tune_strategy_free(s);
	tune_job_free(job);
	return fflush(stdout) ? 1 : 0;
}
