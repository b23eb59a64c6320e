/*
 * test_eval.c - the evaluator (tuner/eval.h) on a real OpenCL device
 * (PoCL in make check): every outcome from the fault-injection kernel
 * tests/tuner/faults.cl, the evaluator still working after each fault,
 * timing sanity, the program-binary cache, verification against a C and
 * a kernel reference, device listing and queries, and no child left over.
 *
 * Oracles: the expected outcome of each fault is fixed by construction
 * (faults.cl); the C reference (vadd_ref.c) is computed on the host
 * independently of OpenCL; a wrong element is off by exactly 1.
 *
 * Usage: test_eval SRCDIR   (the directory holding faults.cl, vadd.cl, vadd_ref.c)
 * Exit status: 0 all passed, 1 some failed, 77 no OpenCL device.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tuner/eval.h"

static int failures, checks;

#define CHECK(cond, ...)                                                          \
	do {                                                                      \
		checks++;                                                         \
		if (!(cond)) {                                                    \
			failures++;                                               \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                             \
			fputc('\n', stderr);                                      \
		}                                                                 \
	} while (0)

enum { N = 4096 };

static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = calloc(1, (size_t)len + 1);
	if (!s || fread(s, 1, (size_t)len, f) != (size_t)len)
		exit(1);
	fclose(f);
	return s;
}

/* The arguments of faults() and vadd(): n, a, b, c (inout), alpha. */
static struct tune_arg args[5];

static void init_args(void)
{
	memset(args, 0, sizeof args);
	args[0] = (struct tune_arg){.kind = TUNE_ARG_SCALAR, .type = TUNE_INT, .i = N};
	for (int k = 1; k <= 3; k++) {
		args[k].kind = TUNE_ARG_BUFFER;
		args[k].type = TUNE_FLOAT;
		args[k].count = N;
		args[k].access = k == 3 ? TUNE_INOUT : TUNE_IN;
		args[k].init = (struct tune_init){.kind = TUNE_INIT_RANDOM, .seed = (uint64_t)k,
		                                  .lo = -1, .hi = 1};
		args[k].compare = k == 3;
	}
	args[1].name = "a";
	args[2].name = "b";
	args[3].name = "c";
	args[4] = (struct tune_arg){.kind = TUNE_ARG_SCALAR, .type = TUNE_FLOAT, .f = 0.5};
}

static struct tune_variant variant(const char *source, const char *kernel, const char *options,
                                   size_t global, size_t local, size_t point)
{
	return (struct tune_variant){
		.point_index = point, .source = source, .source_hash = "test",
		.kernel_name = kernel, .build_options = options, .work_dim = 1,
		.global = {global, 1, 1}, .local = {local, 0, 0}, .nargs = 5, .args = args,
	};
}

/* Submits one variant and waits for it: the sequential path. */
static struct tune_result eval1(struct tune_evaluator *ev, const struct tune_variant *v)
{
	struct tune_result r;
	memset(&r, 0, sizeof r);
	CHECK(tune_evaluator_submit(ev, v) == 0, "submit of point %zu", v->point_index);
	long p = tune_evaluator_wait_any(ev, &r);
	CHECK(p == (long)v->point_index, "wait_any gave %ld, want %zu", p, v->point_index);
	return r;
}

static void expect(struct tune_result *r, enum tune_status want, const char *what)
{
	CHECK(r->status == want, "%s: status %s, want %s (error: %s)", what,
	      tune_status_name(r->status), tune_status_name(want), r->error ? r->error : "-");
}

static void expect_ok(struct tune_evaluator *ev, const char *src, const char *after, size_t point)
{
	struct tune_variant v = variant(src, "faults", "-DFAULT=0", N, 64, point);
	struct tune_result r = eval1(ev, &v);
	char what[128];
	snprintf(what, sizeof what, "correct variant after %s", after);
	expect(&r, TUNE_OK, what);
	tune_result_release(&r);
}

static int count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		size_t len = strlen(e->d_name), sl = strlen(suffix);
		n += len > sl && strcmp(e->d_name + len - sl, suffix) == 0;
	}
	closedir(d);
	return n;
}

static void test_devices(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int n = tune_list_devices(mem);
	fclose(mem);
	CHECK(n >= 1, "tune_list_devices gave %d", n);
	CHECK(text && strstr(text, "max work-group size"), "listing: %s", text ? text : "(null)");
	free(text);

	struct tune_device_sel sel = {0};
	int64_t v = 0;
	CHECK(tune_device_query(&sel, "max_work_group_size", &v) == 0 && v >= 1, "wg size %lld",
	      (long long)v);
	CHECK(tune_device_query(&sel, "no_such_query", &v) == -1, "unknown query");
	struct tune_device_props *p;
	char *err = NULL;
	CHECK(tune_device_props_read(&sel, &p, &err) == 0, "props: %s", err ? err : "-");
	if (p) {
		int64_t units = 0, local = 0;
		CHECK(tune_device_props_get(p, "max_compute_units", &units) == 0 && units >= 1, "units");
		CHECK(tune_device_props_get(p, "local_mem_size", &local) == 0 && local > 0, "local mem");
		/* PoCL has no cl_nv_device_attribute_query; an NVIDIA device does. */
		int w = tune_device_props_get(p, "warp_size", &v);
		bool nv = strstr(tune_device_props_info(p)->vendor, "NVIDIA") != NULL;
		CHECK(w == (nv ? 0 : 1), "warp_size answer %d on %s", w, tune_device_props_info(p)->vendor);
		tune_device_props_free(p);
	}
	/* Selection by name substring (case-insensitive) and by a bad index. */
	struct tune_device_sel bad = {.platform = "999"};
	CHECK(tune_device_props_read(&bad, &p, &err) == -1 && err, "platform 999 selected");
	free(err);
}

static void test_faults(const char *srcdir, const char *cache)
{
	char *src = slurp(srcdir, "faults.cl");
	char cpath[4096];
	snprintf(cpath, sizeof cpath, "%s/vadd_ref.c", srcdir);
	struct tune_reference ref = {.kind = TUNE_REF_C, .c_path = cpath, .name = "vadd_ref",
	                             .rel_tol = 1e-5, .abs_tol = 1e-6};
	struct tune_eval_opts o = {.jobs = 2, .warmup = 1, .repeat = 5, .build_timeout_s = 300,
	                           .run_timeout_s = TUNE_RUN_LIMIT_AUTO,
	                           .cache_dir = cache};
	struct tune_variant proto = variant(src, "faults", "", N, 64, 0);
	struct tune_evaluator *ev;
	struct tune_device_info info;
	char *err = NULL;
	if (tune_evaluator_start(&ev, &o, &ref, &proto, &info, &err) != 0) {
		CHECK(0, "start: %s", err);
		free(err);
		free(src);
		return;
	}
	CHECK(info.name[0] != 0, "device name");
	CHECK(count_files(cache, ".so") == 1, "the C reference is compiled into the cache");

	/* ok, with sane timing; the first build is real, the second cached. */
	struct tune_variant v = variant(src, "faults", "-DFAULT=0", N, 64, 1);
	struct tune_result r = eval1(ev, &v);
	expect(&r, TUNE_OK, "FAULT=0");
	CHECK(r.runs == 5, "runs %d", r.runs);
	CHECK(r.time_min_ms > 0 && r.time_min_ms <= r.time_median_ms, "min %g median %g",
	      r.time_min_ms, r.time_median_ms);
	CHECK(r.build_s > 0 && !r.build_cached, "first build took %g s (cached: %d)", r.build_s,
	      r.build_cached);
	CHECK(r.max_abs_err <= 1e-5 && r.nonfinite == 0, "error %g", r.max_abs_err);
	double first_build = r.build_s;
	tune_result_release(&r);
	r = eval1(ev, &v);
	expect(&r, TUNE_OK, "FAULT=0 again");
	CHECK(r.build_cached && r.build_s == 0, "second build: cached %d, took %g s (first %g s)",
	      r.build_cached, r.build_s, first_build);
	tune_result_release(&r);
	CHECK(count_files(cache, ".clbin") >= 1, "program binaries in the cache");

	v = variant(src, "faults", "-DFAULT=1", N, 64, 2);
	r = eval1(ev, &v);
	expect(&r, TUNE_BUILD_ERROR, "FAULT=1");
	CHECK(r.log && strstr(r.log, "fault 1: this variant does not build"), "log: %s",
	      r.log ? r.log : "(null)");
	tune_result_release(&r);
	expect_ok(ev, src, "a build error", 3);

	v = variant(src, "faults", "-DFAULT=2", N, 64, 4);
	r = eval1(ev, &v);
	expect(&r, TUNE_WRONG_RESULT, "FAULT=2");
	CHECK(fabs(r.max_abs_err - 1.0) < 1e-3, "max_abs_err %g, want 1", r.max_abs_err);
	CHECK(r.runs == 5, "a wrong result is still timed: runs %d", r.runs);
	tune_result_release(&r);
	expect_ok(ev, src, "a wrong result", 5);

	v = variant(src, "faults", "-DFAULT=3", N, 64, 6);
	r = eval1(ev, &v);
	expect(&r, TUNE_TIMEOUT, "FAULT=3");
	/* The automatic limit, scaled with the best correct time so far. */
	CHECK(r.error && strstr(r.error, "run limit") && strstr(r.error, "automatic: 10 x the best"),
	      "error %s", r.error ? r.error : "(null)");
	CHECK(r.time_min_ms > 0, "a timeout's partial time: %g ms", r.time_min_ms);
	tune_result_release(&r);
	expect_ok(ev, src, "a timeout", 7);

	v = variant(src, "faults", "-DFAULT=4", N, 64, 8);
	r = eval1(ev, &v);
	expect(&r, TUNE_CRASHED, "FAULT=4");
	CHECK(r.error != NULL, "crash without a reason");
	fprintf(stderr, "(FAULT=4 crashed the worker as intended: %s)\n", r.error ? r.error : "?");
	tune_result_release(&r);
	expect_ok(ev, src, "a crash", 9);

	v = variant(src, "faults", "-DFAULT=5", N, 64, 10);
	r = eval1(ev, &v);
	expect(&r, TUNE_LAUNCH_ERROR, "FAULT=5");
	CHECK(r.error && strcmp(r.error, "CL_INVALID_WORK_GROUP_SIZE") == 0, "error %s",
	      r.error ? r.error : "(null)");
	tune_result_release(&r);
	expect_ok(ev, src, "a launch error from the driver", 11);

	/* A local size above CL_KERNEL_WORK_GROUP_SIZE: caught before the launch. */
	v = variant(src, "faults", "-DFAULT=0", 1 << 20, 1 << 16, 12);
	r = eval1(ev, &v);
	expect(&r, TUNE_LAUNCH_ERROR, "local size 65536");
	CHECK(r.error && strstr(r.error, "CL_INVALID_WORK"), "error %s", r.error ? r.error : "(null)");
	tune_result_release(&r);
	expect_ok(ev, src, "a too large work-group", 13);

	/* Parallel: both workers busy, each result arrives once. */
	int idle = tune_evaluator_idle_workers(ev);
	CHECK(idle == 2, "idle workers %d", idle);
	struct tune_variant a = variant(src, "faults", "-DFAULT=0 -DX=1", N, 64, 20);
	struct tune_variant b = variant(src, "faults", "-DFAULT=2 -DX=1", N, 64, 21);
	CHECK(tune_evaluator_submit(ev, &a) == 0, "submit a");
	CHECK(tune_evaluator_submit(ev, &b) == 0, "submit b");
	CHECK(tune_evaluator_idle_workers(ev) == 0, "no idle worker left");
	struct tune_variant c = variant(src, "faults", "-DFAULT=0", N, 64, 22);
	CHECK(tune_evaluator_submit(ev, &c) == -1, "submit with no idle worker");
	bool seen[2] = {false, false};
	for (int k = 0; k < 2; k++) {
		long p = tune_evaluator_wait_any(ev, &r);
		CHECK(p == 20 || p == 21, "point %ld", p);
		if (p == 20 || p == 21) {
			CHECK(!seen[p - 20], "point %ld twice", p);
			seen[p - 20] = true;
			expect(&r, p == 20 ? TUNE_OK : TUNE_WRONG_RESULT, "parallel");
		}
		tune_result_release(&r);
	}
	CHECK(tune_evaluator_wait_any(ev, &r) == -1, "nothing in flight");
	tune_result_release(&r);

	tune_evaluator_stop(ev);
	free(src);
}

/*
 * A child that feeds the FIFO `path` once a reader opened it, `delay_s`
 * later: a kernel that #includes it builds for at least that long, on any
 * machine.  It gives up (exit 1) if nobody opens the FIFO within 120 s.
 */
static pid_t feed_fifo_later(const char *path, double delay_s)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int fd = -1;
	for (int tries = 0; tries < 120 * 100 && fd < 0; tries++) {
		fd = open(path, O_WRONLY | O_NONBLOCK);  /* ENXIO while no reader */
		if (fd < 0)
			nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	if (fd < 0)
		_exit(1);
	struct timespec ts = {(time_t)delay_s, (long)((delay_s - (double)(time_t)delay_s) * 1e9)};
	nanosleep(&ts, NULL);
	static const char text[] = "#define SLOW_HEADER 1\n";
	ssize_t n = write(fd, text, sizeof text - 1);
	close(fd);
	_exit(n == (ssize_t)(sizeof text - 1) ? 0 : 1);
}

static struct tune_evaluator *start_without_reference(const struct tune_eval_opts *o,
                                                     const struct tune_variant *proto)
{
	struct tune_evaluator *ev;
	char *err = NULL;
	if (tune_evaluator_start(&ev, o, NULL, proto, NULL, &err) == 0)
		return ev;
	CHECK(0, "start: %s", err);
	free(err);
	return NULL;
}

/*
 * The two limits (issue 13): the build limit covers building, the run
 * limit one kernel run from its start.  A build longer than the run limit
 * is no timeout; a kernel that spins past the run limit is one, with the
 * time it had run; a build that never ends is a build error within the
 * build limit.  Oracles: the delays are set here (a FIFO the build must
 * read), the limits are the options given.
 */
static void test_limits(const char *srcdir, const char *cache)
{
	char *faults = slurp(srcdir, "faults.cl");
	char dir[4200], slow_h[4300], hang_h[4300], options[4400], src[65536];
	snprintf(dir, sizeof dir, "%s/include", cache);
	snprintf(slow_h, sizeof slow_h, "%s/slow.h", dir);
	snprintf(hang_h, sizeof hang_h, "%s/hang.h", dir);
	CHECK(mkdir(dir, 0700) == 0 && mkfifo(slow_h, 0600) == 0 && mkfifo(hang_h, 0600) == 0,
	      "FIFOs in %s: %s", dir, strerror(errno));
	const double run_limit = 0.5, build_delay = 1.5;
	struct tune_eval_opts o = {.jobs = 1, .warmup = 1, .repeat = 2, .cache_dir = cache,
	                           .build_timeout_s = 300, .run_timeout_s = run_limit};
	struct tune_variant proto = variant(faults, "faults", "", N, 64, 0);
	struct tune_evaluator *ev = start_without_reference(&o, &proto);
	if (!ev) {
		free(faults);
		return;
	}
	/* A build that takes three times the run limit: ok, and its build time says so. */
	snprintf(src, sizeof src, "#include \"slow.h\"\n%s", faults);
	snprintf(options, sizeof options, "-DFAULT=0 -I%s", dir);
	pid_t feeder = feed_fifo_later(slow_h, build_delay);
	struct tune_variant v = variant(src, "faults", options, N, 64, 1);
	struct tune_result r = eval1(ev, &v);
	expect(&r, TUNE_OK, "a build longer than the run limit");
	CHECK(r.build_s >= build_delay, "build took %g s, the FIFO held it %g s", r.build_s, build_delay);
	tune_result_release(&r);
	int status = 0;
	CHECK(waitpid(feeder, &status, 0) == feeder && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the FIFO was never read");

	/* A kernel that never ends: a timeout at the run limit, with its partial time. */
	v = variant(faults, "faults", "-DFAULT=3", N, 64, 2);
	r = eval1(ev, &v);
	expect(&r, TUNE_TIMEOUT, "an endless kernel");
	CHECK(r.time_min_ms >= run_limit * 1e3 && r.time_median_ms == r.time_min_ms,
	      "partial time %g ms (median %g), limit %g s", r.time_min_ms, r.time_median_ms, run_limit);
	CHECK(r.runs == 0, "timed runs done: %d", r.runs);
	CHECK(r.error && strstr(r.error, "kernel run 1 of 3") && strstr(r.error, "run limit of 0.5 s"),
	      "error %s", r.error ? r.error : "(null)");
	tune_result_release(&r);
	expect_ok(ev, faults, "a kernel stopped at the run limit", 3);
	tune_evaluator_stop(ev);

	/* A build that never ends (nobody feeds hang.h): a build error at the build limit. */
	o.build_timeout_s = 2;
	if (!(ev = start_without_reference(&o, &proto))) {
		free(faults);
		return;
	}
	snprintf(src, sizeof src, "#include \"hang.h\"\n%s", faults);
	v = variant(src, "faults", options, N, 64, 4);
	r = eval1(ev, &v);
	expect(&r, TUNE_BUILD_ERROR, "a build that never ends");
	CHECK(r.error && strstr(r.error, "build limit of 2 s"), "error %s", r.error ? r.error : "(null)");
	tune_result_release(&r);
	expect_ok(ev, faults, "a build stopped at the build limit", 5);
	tune_evaluator_stop(ev);
	free(faults);
}

/* Kills this process's children (the workers) with `sig`; how many. */
static int kill_children(int sig)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t len = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[len] = 0;
	int n = 0;
	for (char *s = buf, *end; (void)(end = NULL), *s; s = end) {
		long pid = strtol(s, &end, 10);
		if (end == s)
			break;
		n += pid > 0 && kill((pid_t)pid, sig) == 0;
	}
	return n;
}

/* No reference: only NaN/Inf are caught.  Also: a worker killed from outside. */
static void test_no_reference(const char *srcdir, const char *cache)
{
	char *src = slurp(srcdir, "faults.cl");
	char log[4200];
	snprintf(log, sizeof log, "%s/workers.log", cache);
	struct tune_eval_opts o = {.jobs = 1, .warmup = 0, .repeat = 1, .cache_dir = cache,
	                           .build_timeout_s = 300, .run_timeout_s = 120, .worker_log = log};
	struct tune_variant proto = variant(src, "faults", "", N, 64, 0);
	struct tune_evaluator *ev;
	char *err = NULL;
	if (tune_evaluator_start(&ev, &o, NULL, &proto, NULL, &err) != 0) {
		CHECK(0, "start: %s", err);
		free(err);
		free(src);
		return;
	}
	struct tune_variant v = variant(src, "faults", "-DFAULT=2", N, 64, 1);
	struct tune_result r = eval1(ev, &v);
	expect(&r, TUNE_OK, "FAULT=2 without a reference");
	tune_result_release(&r);
	v = variant(src, "faults", "-DFAULT=6", N, 64, 2);
	r = eval1(ev, &v);
	expect(&r, TUNE_WRONG_RESULT, "FAULT=6 without a reference");
	CHECK(r.nonfinite == 1, "nonfinite %llu", (unsigned long long)r.nonfinite);
	tune_result_release(&r);

	/* The endless loop, its worker killed by someone else: crashed, SIGKILL. */
	v = variant(src, "faults", "-DFAULT=3", N, 64, 3);
	CHECK(tune_evaluator_submit(ev, &v) == 0, "submit FAULT=3");
	sleep(2);
	CHECK(kill_children(SIGKILL) == 1, "one worker to kill");
	CHECK(tune_evaluator_wait_any(ev, &r) == 3, "point 3");
	expect(&r, TUNE_CRASHED, "killed worker");
	CHECK(r.error && strcmp(r.error, "SIGKILL") == 0, "error %s", r.error ? r.error : "(null)");
	tune_result_release(&r);
	expect_ok(ev, src, "a worker killed from outside", 4);
	tune_evaluator_stop(ev);
	CHECK(access(log, F_OK) == 0, "no worker log at %s", log);
	free(src);
}

/*
 * The workers' lock trace (SPACETUNE_TRACE_LOCK): no two held intervals
 * may overlap.  Returns the number of intervals, or -1 on an overlap.
 */
static int check_lock_trace(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	static struct lock_event { long pid; double t; int up; } ev[4096];
	int n = 0;
	char line[512];
	while (n < 4096 && fgets(line, sizeof line, f)) {
		char what[32];
		if (sscanf(line, "spacetune-lock %ld %31s %lf", &ev[n].pid, what, &ev[n].t) == 3) {
			ev[n].up = strcmp(what, "acquired") == 0;
			n++;
		}
	}
	fclose(f);
	/* Sort by time (insertion sort: small), then at most one holder at a time. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && ev[j].t < ev[j - 1].t; j--) {
			struct lock_event tmp = ev[j];
			ev[j] = ev[j - 1];
			ev[j - 1] = tmp;
		}
	long holder = 0;
	int intervals = 0;
	for (int i = 0; i < n; i++) {
		if (ev[i].up) {
			if (holder != 0)
				return -1;
			holder = ev[i].pid;
			intervals++;
		} else if (holder == ev[i].pid) {
			holder = 0;
		} else {
			return -1;
		}
	}
	return intervals;
}

/* A reference kernel; the tuned kernel with several work-per-thread values. */
static void test_kernel_reference(const char *srcdir, const char *cache)
{
	char *src = slurp(srcdir, "vadd.cl");
	struct tune_reference ref = {.kind = TUNE_REF_KERNEL, .source = src, .name = "vadd_ref",
	                             .build_options = "", .work_dim = 1, .global = {N, 1, 1},
	                             .rel_tol = 1e-5, .abs_tol = 1e-6};
	char trace[4200];
	snprintf(trace, sizeof trace, "%s/lock-trace.log", cache);
	struct tune_eval_opts o = {.jobs = 2, .warmup = 2, .repeat = 3, .build_timeout_s = 300,
	                           .run_timeout_s = 60,
	                           .cache_dir = cache, .worker_log = trace};
	struct tune_variant proto = variant(src, "vadd", "", N, 0, 0);
	struct tune_evaluator *ev;
	char *err = NULL;
	setenv("SPACETUNE_TRACE_LOCK", "1", 1);
	int started = tune_evaluator_start(&ev, &o, &ref, &proto, NULL, &err);
	if (started != 0) {
		unsetenv("SPACETUNE_TRACE_LOCK");
		CHECK(0, "start: %s", err);
		free(err);
		free(src);
		return;
	}
	static const char *const opts[] = {"-DWPT=1", "-DWPT=2", "-DWPT=4", "-DWPT=8"};
	static const size_t locals[] = {0, 32, 16, 8};
	int next = 0, done = 0;
	while (done < 4) {
		while (next < 4 && tune_evaluator_idle_workers(ev) > 0) {
			struct tune_variant v = variant(src, "vadd", opts[next],
			                                N / (size_t)(1 << next), locals[next], (size_t)next);
			CHECK(tune_evaluator_submit(ev, &v) == 0, "submit %d", next);
			next++;
		}
		struct tune_result r;
		long p = tune_evaluator_wait_any(ev, &r);
		CHECK(p >= 0 && p < 4, "point %ld", p);
		expect(&r, TUNE_OK, p >= 0 && p < 4 ? opts[p] : "?");
		CHECK(r.runs == 3 && r.time_min_ms <= r.time_median_ms, "runs %d", r.runs);
		tune_result_release(&r);
		done++;
		if (p < 0)
			break;
	}
	/* Same options again, both at once: the builds are cached, so without
	 * the lock the two timed sections would run side by side. */
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < 2; k++) {
			struct tune_variant v = variant(src, "vadd", opts[k], N / (size_t)(1 << k),
			                                locals[k], (size_t)(10 + k));
			CHECK(tune_evaluator_submit(ev, &v) == 0, "submit %d", 10 + k);
		}
		for (int k = 0; k < 2; k++) {
			struct tune_result r;
			long p = tune_evaluator_wait_any(ev, &r);
			expect(&r, TUNE_OK, p == 10 ? "WPT=1 again" : "WPT=2 again");
			tune_result_release(&r);
		}
	}
	tune_evaluator_stop(ev);
	unsetenv("SPACETUNE_TRACE_LOCK");
	int intervals = check_lock_trace(trace);
	CHECK(intervals == 10, "device-lock intervals: %d (-1: two workers timed at once)", intervals);

	/* A reference that does not build fails the start with its log. */
	ref.build_options = "-DWPT=\"";
	struct tune_reference broken = ref;
	broken.source = "__kernel void vadd_ref(int n) { syntax error }";
	CHECK(tune_evaluator_start(&ev, &o, &broken, &proto, NULL, &err) == -1 && err &&
	      strstr(err, "does not build"), "broken reference: %s", err ? err : "(started)");
	free(err);
	free(src);
}

int main(int argc, char **argv)
{
	const char *srcdir = argc > 1 ? argv[1] : "tests/tuner";
	init_args();
	struct tune_device_sel sel = {0};
	int64_t v;
	if (tune_device_query(&sel, "max_compute_units", &v) != 0) {
		fprintf(stderr, "test_eval: no OpenCL device: skipped\n");
		return 77;
	}
	char cache[] = "/tmp/spacetune-test-XXXXXX";
	if (!mkdtemp(cache))
		return 1;
	test_devices();
	test_faults(srcdir, cache);
	test_no_reference(srcdir, cache);
	test_limits(srcdir, cache);
	test_kernel_reference(srcdir, cache);

	/* Every worker was reaped: no child is left, not even a zombie. */
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, "a child process is left over");

	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", cache);
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
