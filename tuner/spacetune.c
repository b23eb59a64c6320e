/*
 * spacetune - the OpenCL kernel tuner over a .space file's tune: section.
 *
 *   spacetune devices                 platforms, devices and their limits
 *   spacetune run FILE.space [...]    search, evaluate, record (run.h)
 *   spacetune best [--db F] [...]     the best recorded configuration (best.h)
 *   spacetune batch FILE --db DIR     many problems, one worker per device (batch.h)
 *   spacetune merge --out F DB...     databases into one, duplicates once (merge.h)
 *   spacetune export DB|DIR... --c H  the tuned-parameter database for applications (export.h)
 *   spacetune cache path|clear        the program-binary cache (eval.h)
 *
 * Exit status: 0 done, 1 an error (diagnosed), 2 a usage error,
 * 130 interrupted (what was recorded stays; the same command resumes).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "spacec.h"
#include "spacert.h"
#include "tools/cache.h"
#include "tuner/batch.h"
#include "tuner/best.h"
#include "tuner/compile.h"
#include "tuner/device.h"
#include "tuner/eval.h"
#include "tuner/job.h"
#include "tuner/export.h"
#include "tuner/ktexport.h"
#include "tuner/host.h"
#include "tuner/merge.h"
#include "tuner/run.h"
#include "tuner/strategy.h"

enum exit_code { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

/* Defaults, documented in usage() and docs/spacetune.1. */
#define DEFAULT_DB "results.jsonl"
#define DEFAULT_STRATEGY "auto"
enum { DEFAULT_REPEAT = 10, DEFAULT_WARMUP = 1, DEFAULT_SEED = 1 };
static const double default_build_timeout_s = 300.0;

/* "opencl, cuda": the backends built in. */
static const char *backend_names(void)
{
	static char names[64];
	const struct dev_ops *const *b = dev_backends();
	names[0] = 0;
	for (int i = 0; b[i]; i++)
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
		         b[i]->name);
	return names;
}

static void usage(FILE *out)
{
	fputs("usage: spacetune devices\n"
	      "       spacetune run FILE.space [OPTIONS]\n"
	      "       spacetune best [--db FILE] [--space NAME] [--device D] [--header FILE.h] [--json FILE.json]\n"
	      "                      [--host OUT.c] [--source OUT.cl] [FILE.space]\n"
	      "       spacetune batch FILE --db DIR [--devices D,...] [--shard I/N] [--mpi] [--list] [OPTIONS]\n"
	      "       spacetune merge --out FILE DB...\n"
	      "       spacetune export DB|DIR... [--c OUT.h] [--json OUT.json]\n"
	      "       spacetune export DB... --kt-cache OUT.json|--t4 OUT.json [--space S]\n"
	      "                        [--device D] [--problem P]\n"
	      "       spacetune cache path|clear\n"
	      "       spacetune compile FILE.space [--backend B] [--target sm_XY] [--sample N] [--set N=V]...\n"
	      "       spacetune variant FILE.space [--set NAME=VALUE]... [PARAM=VALUE]...\n"
	      "\n"
	      "Options of 'run':\n"
	      "  --backend B         opencl, or cuda where built in (default: cuda for a .cu\n"
	      "                      kernel, else opencl)\n"
	      "  --platform P        OpenCL platform, by index or name substring\n"
	      "  --device D          device, by index or name substring (default: the first GPU)\n"
	      "  --db FILE           results database, appended to (default " DEFAULT_DB ")\n"
	      "  --strategy NAME     auto (default: every point without a budget, else bo),\n"
	      "                      exhaustive, random, anneal, pso, genetic, local, bo,\n"
	      "                      bandit (ATF's AUC bandit over bo and anneal),\n"
	      "                      bfs (OCLoptimizer's breadth-first search)\n"
	      "  --bfs-tolerance T   bfs: versions within T per cent of a level's best go on\n"
	      "  --bfs-number N      bfs: at most N versions go on (0: no cap); with neither\n"
	      "                      option the one best goes on\n"
	      "  --budget B          N evaluations, Ns/Nm/Nh of wall time, or P% of the space\n"
	      "                      (default: the whole space)\n"
	      "  --seed S            seed of the randomised strategies (default 1)\n"
	      "  -O0, -O1, -O2, -fno-..., --jit=auto|cc|tcc\n"
	      "                      how the space's enumerator is built, as for spacec\n"
	      "                      (default -O2, auto)\n"
	      "  --seeds A..B        with --replay: one search per seed from A to B, one line\n"
	      "                      each, the job and database loaded once\n"
	      "  --set NAME=VALUE    bind a setting or device parameter (repeatable); with\n"
	      "                      NAME=V1,V2,... one problem per value, and the cross\n"
	      "                      product of several such, each tuned and recorded apart\n"
	      "  --objective OBJ     what 'best' means: time (default, minimised) or the name\n"
	      "                      of a 'metric' of the tune section (maximised); a prefix\n"
	      "                      min: or max: sets the direction\n"
	      "  --repeat R          timed runs per configuration (default 10)\n"
	      "  --warmup W          untimed runs before them (default 1)\n"
	      "  --jobs J            worker processes: parallel builds (default: online cores)\n"
	      "  --build-timeout S   building one configuration, the driver's preparation\n"
	      "                      and transfers included (default 300; 0: none)\n"
	      "  --run-timeout S     one kernel run, from its start: auto (default: 10 x the\n"
	      "                      best time so far + 1 s) or seconds (0: none)\n"
	      "  --timeout S         deprecated: the same as --run-timeout S\n"
	      "  --progress, --no-progress\n"
	      "                      redraw one status line with an ETA (default: when stderr\n"
	      "                      is a terminal; else a plain line every 5 s)\n"
	      "  --replay DB         no device: each evaluation returns what DB (a .jsonl,\n"
	      "                      .jsonl.xz or a directory of them) recorded, on a virtual\n"
	      "                      clock of recorded build and device times (--jobs builds\n"
	      "                      in parallel); nothing is written unless --db is given\n"
	      "  --replay-sleep      really wait the recorded times out\n"
	      "  --replay-recorded   search only the configurations DB records (a partial\n"
	      "                      database), with the values they take\n"
	      "  --trace FILE        append one CSV line per evaluation: eval, clock_s, point,\n"
	      "                      status, cost, best so far\n"
	      "\n"
	      "Options of 'best':\n"
	      "  --db FILE           results database to read (default " DEFAULT_DB ")\n"
	      "  --space NAME        the space to report when the file holds several\n"
	      "  --device D          only records of devices whose name contains D\n"
	      "  --problem P         the problem of those --set bindings (\"A=1 B=2\")\n"
	      "  --objective OBJ     as for 'run' (default: the one the records were run with)\n"
	      "  --header FILE.h     write the best configuration as #defines\n"
	      "  --json FILE.json    write it as a JSON record (CLTune's fields where they fit)\n"
	      "  --host OUT.c        write a standalone OpenCL program that builds, sets up and\n"
	      "                      launches the best configuration (needs FILE.space)\n"
	      "  --source OUT.cl     write the kernel source with its tuned defines written in\n"
	      "                      (needs FILE.space)\n"
	      "\n"
	      "Options of 'batch' (the file's format: TUNING.md, section Batches):\n"
	      "  --db DIR            one database per worker in DIR (required unless --list)\n"
	      "  --devices D,...     one worker per device, by index or name substring\n"
	      "                      (default: the batch file's device lines, else every\n"
	      "                      GPU (OpenCL's or CUDA's), else the first device)\n"
	      "  --list              print the problems, one a line, and run nothing\n"
	      "  --shard I/N         only shard I (0-based) of N, balanced by estimated cost\n"
	      "  --mpi               under mpirun: rank 0 hands the problems out to the ranks\n"
	      "                      as they ask, each rank on its node-local device\n"
	      "  --chunk N           cut an exhaustive or random search of more than N\n"
	      "                      evaluations into chunks of about N, handed out apart\n"
	      "  --slots N           N workers per device, each with its own problems and\n"
	      "                      --jobs (default: a share of the device's cores); their\n"
	      "                      timings take turns (default 1)\n"
	      "  --report            print what is missing in DIR (exit 0: nothing) and run nothing\n"
	      "  --repeat, --warmup, --jobs, --build-timeout, --run-timeout, --progress,\n"
	      "  --no-progress, --replay, --replay-sleep: as for 'run'; --jobs is per device,\n"
	      "                      by default the usable cores shared among the node's devices\n"
	      "\n"
	      "'merge' writes the records of the databases DB... to FILE (which may be one of\n"
	      "them), each evaluation once: the better status, then the earlier record.\n"
	      "\n"
	      "'export' writes, for each space, device and problem, the best verified\n"
	      "configuration: a C header with a lookup function per space, and JSON.\n"
	      "With --kt-cache or --t4 it writes every record of one space, device and\n"
	      "problem as a Kernel Tuner cache file (simulation_mode=True replays it) or\n"
	      "a T4 results file (TUNING.md says how statuses map).\n"
	      "\n"
	      "'variant' prints the kernel source, build options and sizes of the first\n"
	      "valid point with the given parameter values (the kernel optimizer's\n"
	      "transformed source, for #pragma spacetune kernels); no device is used.\n"
	      "\n"
	      "'cache path' prints where built kernels are cached ($XDG_CACHE_HOME/spacetune,\n"
	      "else ~/.cache/spacetune); 'cache clear' deletes them.\n"
	      "\n"
	      "The tune: section of a .space file is described in " SPACEC_DOCDIR "/TUNING.md;\n"
	      "see also man spacetune.\n"
	      "\n"
	      "  -h, --help          show this help\n"
	      "  --version           show the version\n", out);
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("spacetune: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n(see 'spacetune --help')\n", stderr);
	va_end(ap);
	return EXIT_USAGE;
}

static int parse_int(const char *text, int lo, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || *end || errno || v < lo || v > 1000000)
		return -1;
	*out = (int)v;
	return 0;
}

static volatile sig_atomic_t interrupted;
static bool live_stderr;  /* a progress line may be on the terminal */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
	/* At once, so that nobody takes the wait for a hang; write(2) is async-signal-safe. */
	static const char note[] = "\nspacetune: interrupted: stopping (a second signal ends it at once)\n";
	ssize_t ignored = write(STDERR_FILENO, note + !live_stderr, sizeof note - 1 - !live_stderr);
	(void)ignored;
}

/* First SIGINT/SIGTERM: give what is in flight a moment, record it, stop;
 * a second one kills. */
static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

enum {
	OPT_PLATFORM = 256, OPT_BACKEND, OPT_DEVICE, OPT_DB, OPT_STRATEGY, OPT_BUDGET, OPT_SEED, OPT_SET, OPT_REPEAT,
	OPT_WARMUP, OPT_JOBS, OPT_TIMEOUT, OPT_BUILD_TIMEOUT, OPT_RUN_TIMEOUT, OPT_HEADER, OPT_JSON,
	OPT_SPACE, OPT_VERSION, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_OBJECTIVE, OPT_PROBLEM, OPT_DEVICES,
	OPT_LIST, OPT_SHARD, OPT_OUT, OPT_C, OPT_REPLAY, OPT_REPLAY_SLEEP, OPT_TRACE, OPT_KT_CACHE,
	OPT_T4, OPT_HOST, OPT_SOURCE, OPT_BFS_TOLERANCE, OPT_BFS_NUMBER, OPT_MPI, OPT_REPORT, OPT_CHUNK, OPT_SLOTS, OPT_JIT,
	OPT_SEEDS, OPT_REPLAY_RECORDED, OPT_END
};

/* Seconds >= 0 (or "auto" where `can_auto`: TUNE_RUN_LIMIT_AUTO); -1 if malformed. */
static int parse_seconds(const char *text, bool can_auto, double *out)
{
	if (can_auto && strcmp(text, "auto") == 0) {
		*out = TUNE_RUN_LIMIT_AUTO;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end || errno || !(v >= 0) || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* The value of option `name`: a count >= lo, or seconds (parse_seconds).
 * 0, or EXIT_USAGE with the usage error reported. */
static int count_option(const char *name, const char *arg, int lo, int *out)
{
	if (parse_int(arg, lo, out) == 0)
		return 0;
	return bad_usage("bad %s '%s': want a count >= %d", name, arg, lo);
}

static int seconds_option(const char *name, const char *arg, bool can_auto, double *out)
{
	if (parse_seconds(arg, can_auto, out) == 0)
		return 0;
	return bad_usage("bad %s '%s': want %sseconds >= 0", name, arg, can_auto ? "'auto' or " : "");
}

/*
 * The options 'run' and 'batch' share: evaluation, progress and --help.
 * 0, or nonzero when the command ends with *rc: after --help (EXIT_OK), a
 * usage error reported, or an option that is not one of them (getopt has
 * reported an unknown one).
 */
static int parse_shared_option(int c, const char *arg, struct tune_eval_opts *e, int *progress, int *rc)
{
	*rc = EXIT_USAGE;
	switch (c) {
	case 'h':
		usage(stdout);
		*rc = EXIT_OK;
		return 1;
	case OPT_PROGRESS:
	case OPT_NO_PROGRESS:
		*progress = c == OPT_PROGRESS;
		return 0;
	case OPT_REPEAT:
		return count_option("--repeat", arg, 1, &e->repeat);
	case OPT_WARMUP:
		return count_option("--warmup", arg, 0, &e->warmup);
	case OPT_JOBS:
		return count_option("--jobs", arg, 1, &e->jobs);
	case OPT_BUILD_TIMEOUT:
		return seconds_option("--build-timeout", arg, false, &e->build_timeout_s);
	case OPT_RUN_TIMEOUT:
		return seconds_option("--run-timeout", arg, true, &e->run_timeout_s);
	case OPT_REPLAY:
		e->replay = arg;
		return 0;
	case OPT_REPLAY_SLEEP:
		e->replay_sleep = true;
		return 0;
	case OPT_TIMEOUT:
		if (seconds_option("--timeout", arg, false, &e->run_timeout_s) != 0)
			return EXIT_USAGE;
		/* It used to bound the whole evaluation, so that builds on a loaded
		 * machine became timeouts; say what it means now. */
		fputs("spacetune: warning: --timeout is deprecated: it now sets --run-timeout "
		      "(one kernel run, from its start); builds have --build-timeout\n", stderr);
		return 0;
	default:
		return -1;
	}
}

/* The one file argument of `cmd` (a `what`) after its options; NULL
 * after a usage error. */
static const char *one_file(int argc, char **argv, const char *cmd, const char *what)
{
	if (optind + 1 == argc)
		return argv[optind];
	char why[128];
	snprintf(why, sizeof why, optind == argc ? "'%s' needs a %s" : "'%s' takes one %s", cmd, what);
	bad_usage("%s", why);
	return NULL;
}

/* Before 'run' or 'batch' evaluates: live progress on stderr as --progress
 * and --no-progress (progress 1, 0) say, else (-1) on a terminal outside
 * CI; and the signals that end the run caught. */
static void start_evaluations(int progress, bool *live, bool *none)
{
	*live = live_stderr = progress >= 0 ? progress == 1 : isatty(STDERR_FILENO) && !getenv("CI");
	*none = progress == 0;
	catch_signals();
}

/* The commands that take an option (all_options). */
enum { IN_RUN = 1, IN_BATCH = 2, IN_BEST = 4, IN_EXPORT = 8, IN_MERGE = 16 };

/* Every long option of the commands that use getopt, once, with the
 * commands that take it (parse_shared_option's go to run and batch). */
static const struct {
	struct option o;
	unsigned in;
} all_options[] = {
	{ { "backend", required_argument, NULL, OPT_BACKEND }, IN_RUN },
	{ { "jit", required_argument, NULL, OPT_JIT }, IN_RUN },
	{ { "platform", required_argument, NULL, OPT_PLATFORM }, IN_RUN },
	{ { "device", required_argument, NULL, OPT_DEVICE }, IN_RUN | IN_BEST | IN_EXPORT },
	{ { "db", required_argument, NULL, OPT_DB }, IN_RUN | IN_BEST | IN_BATCH },
	{ { "strategy", required_argument, NULL, OPT_STRATEGY }, IN_RUN },
	{ { "budget", required_argument, NULL, OPT_BUDGET }, IN_RUN },
	{ { "seed", required_argument, NULL, OPT_SEED }, IN_RUN },
	{ { "seeds", required_argument, NULL, OPT_SEEDS }, IN_RUN },
	{ { "replay-recorded", no_argument, NULL, OPT_REPLAY_RECORDED }, IN_RUN },
	{ { "set", required_argument, NULL, OPT_SET }, IN_RUN },
	{ { "objective", required_argument, NULL, OPT_OBJECTIVE }, IN_RUN | IN_BEST },
	{ { "trace", required_argument, NULL, OPT_TRACE }, IN_RUN },
	{ { "bfs-tolerance", required_argument, NULL, OPT_BFS_TOLERANCE }, IN_RUN },
	{ { "bfs-number", required_argument, NULL, OPT_BFS_NUMBER }, IN_RUN },
	{ { "repeat", required_argument, NULL, OPT_REPEAT }, IN_RUN | IN_BATCH },
	{ { "warmup", required_argument, NULL, OPT_WARMUP }, IN_RUN | IN_BATCH },
	{ { "jobs", required_argument, NULL, OPT_JOBS }, IN_RUN | IN_BATCH },
	{ { "timeout", required_argument, NULL, OPT_TIMEOUT }, IN_RUN | IN_BATCH },
	{ { "build-timeout", required_argument, NULL, OPT_BUILD_TIMEOUT }, IN_RUN | IN_BATCH },
	{ { "run-timeout", required_argument, NULL, OPT_RUN_TIMEOUT }, IN_RUN | IN_BATCH },
	{ { "progress", no_argument, NULL, OPT_PROGRESS }, IN_RUN | IN_BATCH },
	{ { "no-progress", no_argument, NULL, OPT_NO_PROGRESS }, IN_RUN | IN_BATCH },
	{ { "replay", required_argument, NULL, OPT_REPLAY }, IN_RUN | IN_BATCH },
	{ { "replay-sleep", no_argument, NULL, OPT_REPLAY_SLEEP }, IN_RUN | IN_BATCH },
	{ { "space", required_argument, NULL, OPT_SPACE }, IN_BEST | IN_EXPORT },
	{ { "problem", required_argument, NULL, OPT_PROBLEM }, IN_BEST | IN_EXPORT },
	{ { "header", required_argument, NULL, OPT_HEADER }, IN_BEST },
	{ { "json", required_argument, NULL, OPT_JSON }, IN_BEST | IN_EXPORT },
	{ { "host", required_argument, NULL, OPT_HOST }, IN_BEST },
	{ { "source", required_argument, NULL, OPT_SOURCE }, IN_BEST },
	{ { "devices", required_argument, NULL, OPT_DEVICES }, IN_BATCH },
	{ { "list", no_argument, NULL, OPT_LIST }, IN_BATCH },
	{ { "shard", required_argument, NULL, OPT_SHARD }, IN_BATCH },
	{ { "mpi", no_argument, NULL, OPT_MPI }, IN_BATCH },
	{ { "report", no_argument, NULL, OPT_REPORT }, IN_BATCH },
	{ { "chunk", required_argument, NULL, OPT_CHUNK }, IN_BATCH },
	{ { "slots", required_argument, NULL, OPT_SLOTS }, IN_BATCH },
	{ { "out", required_argument, NULL, OPT_OUT }, IN_MERGE },
	{ { "c", required_argument, NULL, OPT_C }, IN_EXPORT },
	{ { "kt-cache", required_argument, NULL, OPT_KT_CACHE }, IN_EXPORT },
	{ { "t4", required_argument, NULL, OPT_T4 }, IN_EXPORT },
	{ { "help", no_argument, NULL, 'h' }, IN_RUN | IN_BATCH | IN_BEST | IN_EXPORT | IN_MERGE },
};

/*
 * The next option of command `in` (getopt_long over `shortopts` and its
 * rows of all_options), or -1 at the end.  An option whose argument is
 * only kept has a place in `stored` (indexed by getopt's value): the
 * argument goes there and the option is not returned.
 */
static int next_option(int argc, char **argv, const char *shortopts, unsigned in,
                       const char **const stored[OPT_END])
{
	static struct option longopts[sizeof all_options / sizeof *all_options + 1];
	size_t n = 0;
	for (size_t i = 0; i < sizeof all_options / sizeof *all_options; i++)
		if (all_options[i].in & in)
			longopts[n++] = all_options[i].o;
	longopts[n] = (struct option){ 0 };
	int c;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0 && c < OPT_END && stored[c])
		*stored[c] = optarg;
	return c;
}

/* The places of --space, --device and --problem (best and export). */
static void store_select(const char **stored[OPT_END], struct tune_select *s)
{
	stored[OPT_SPACE] = &s->space;
	stored[OPT_DEVICE] = &s->device;
	stored[OPT_PROBLEM] = &s->problem;
}

/* One --set: its name and its values (several make one problem each). */
struct set_values {
	char *name;
	int n;
	char **values;
};

static void set_values_free(struct set_values *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].name);
		for (int k = 0; k < v[i].n; k++)
			free(v[i].values[k]);
		free(v[i].values);
	}
	free(v);
}

/* Splits NAME=V1,V2,... (a quoted value is one value, commas and all);
 * a later --set of the same name replaces an earlier one.  0 or -1. */
static int set_values_add(struct set_values *v, int *n, const char *text)
{
	const char *eq = strchr(text, '=');
	char *name = strndup(text, (size_t)(eq - text));
	if (!name)
		return -1;
	int at = *n;
	for (int i = 0; i < *n; i++)
		if (strcmp(v[i].name, name) == 0)
			at = i;
	if (at < *n) {
		free(name);
		name = v[at].name;
		for (int k = 0; k < v[at].n; k++)
			free(v[at].values[k]);
		free(v[at].values);
	} else {
		(*n)++;
	}
	const char *val = eq + 1;
	bool quoted = *val == '"' || *val == '\'';
	int count = 1;
	for (const char *p = val; !quoted && *p; p++)
		count += *p == ',';
	v[at] = (struct set_values){ name, 0, calloc((size_t)count, sizeof(char *)) };
	if (!v[at].values)
		return -1;
	for (const char *p = val;;) {
		size_t len = quoted ? strlen(p) : strcspn(p, ",");
		if (len == 0 && !quoted)
			return 1; /* an empty value */
		if (!(v[at].values[v[at].n++] = strndup(p, len)))
			return -1;
		if (quoted || !p[len])
			break;
		p += len + 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Runs the problems of the --set lists one after the other, each with its
 * own bindings and problem text; stops at an error or an interruption.
 */
static int run_problems(struct tune_run_opts *o, struct set_values *sv, int nsv)
{
	long total = 1;
	for (int i = 0; i < nsv; i++)
		total *= sv[i].n;
	char **sets = calloc((size_t)nsv + 1, sizeof *sets);
	char **sorted = calloc((size_t)nsv + 1, sizeof *sorted);
	int *pick = calloc((size_t)nsv + 1, sizeof *pick);
	int rc = EXIT_INPUT;
	if (!sets || !sorted || !pick)
		goto out;
	for (long k = 0; k < total; k++) {
		size_t len = 1;
		for (int i = 0; i < nsv; i++) {
			free(sets[i]);
			size_t n = strlen(sv[i].name) + strlen(sv[i].values[pick[i]]) + 2;
			if (!(sets[i] = malloc(n)))
				goto out;
			snprintf(sets[i], n, "%s=%s", sv[i].name, sv[i].values[pick[i]]);
			sorted[i] = sets[i];
			len += n;
		}
		qsort(sorted, (size_t)nsv, sizeof *sorted, cmp_str);
		char *problem = calloc(len, 1);
		if (!problem)
			goto out;
		for (int i = 0; i < nsv; i++) {
			if (i)
				strcat(problem, " ");
			strcat(problem, sorted[i]);
		}
		if (total > 1)
			fprintf(o->out, "problem %ld of %ld: %s\n", k + 1, total, problem);
		o->sets = (const char *const *)sets;
		o->nsets = nsv;
		o->problem = problem;
		rc = tune_run(o);
		free(problem);
		o->problem = NULL;
		if (rc != 0 || (interrupted && k + 1 < total)) {
			if (rc == 0)
				rc = 130;
			break;
		}
		/* The next combination: the last --set varies fastest. */
		for (int i = nsv - 1; i >= 0 && ++pick[i] == sv[i].n; i--)
			pick[i] = 0;
	}
out:
	if (rc == EXIT_INPUT && (!sets || !sorted || !pick))
		fputs("spacetune: out of memory\n", stderr);
	for (int i = 0; sets && i < nsv; i++)
		free(sets[i]);
	free(sets);
	free(sorted);
	free(pick);
	return rc;
}

static bool known_strategy(const char *name)
{
	if (strcmp(name, "auto") == 0)  /* resolved by tune_run (run.c) */
		return true;
	for (const char *const *n = tune_strategy_names; *n; n++)
		if (strcmp(*n, name) == 0)
			return true;
	return false;
}

static int cmd_run(int argc, char **argv)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct tune_run_opts o = {
		.db_path = DEFAULT_DB, .strategy = DEFAULT_STRATEGY,
		.budget = { TUNE_BUDGET_NONE, 0 }, .seed = DEFAULT_SEED,
		.eval = { .jobs = cores > 0 ? (int)cores : 1, .warmup = DEFAULT_WARMUP,
		          .repeat = DEFAULT_REPEAT, .build_timeout_s = default_build_timeout_s,
		          .run_timeout_s = TUNE_RUN_LIMIT_AUTO, .interrupted = &interrupted },
		.out = stdout, .err = stderr, .interrupted = &interrupted,
	};
	int progress = -1; /* --progress 1, --no-progress 0 */
	bool db_given = false;
	struct set_values *sets = calloc((size_t)argc + 1, sizeof *sets);
	int nsets = 0;
	if (!sets) {
		fputs("spacetune: out of memory\n", stderr);
		return EXIT_INPUT;
	}
	int c, rc = EXIT_USAGE;
	char *end;
	/* how the space's enumerator is built: spacec's -O, -f and --jit */
	struct spacec_options compiler;
	spacec_options_init(&compiler);
	o.compiler = &compiler;
	const char **stored[OPT_END] = {
		[OPT_PLATFORM] = &o.eval.device.platform, [OPT_DEVICE] = &o.eval.device.device,
		[OPT_TRACE] = &o.trace_path,
	};
	while ((c = next_option(argc, argv, "hO:f:", IN_RUN, stored)) != -1) {
		switch (c) {
		case 'O':
		case 'f':
		case OPT_JIT: {
			char why[256];
			if (spacec_option(&compiler, c == OPT_JIT ? "--jit" : c == 'O' ? "-O" : "-f", optarg, why,
					  sizeof why)) {
				bad_usage("%s", why);
				goto out;
			}
			break;
		}
		case OPT_BACKEND:
			if (!dev_backend(optarg)) {
				fprintf(stderr, "spacetune: this spacetune has the backends %s\n", backend_names());
				bad_usage("unknown backend '%s'", optarg);
				goto out;
			}
			o.eval.device.backend = optarg;
			break;
		case OPT_DB: o.db_path = optarg; db_given = true; break;
		case OPT_STRATEGY:
			if (!known_strategy(optarg)) {
				bad_usage("unknown strategy '%s'", optarg);
				goto out;
			}
			o.strategy = optarg;
			break;
		case OPT_BUDGET:
			if (tune_budget_parse(optarg, &o.budget) != 0) {
				bad_usage("bad --budget '%s': want N, Ns, Nm, Nh or P%%", optarg);
				goto out;
			}
			break;
		case OPT_SEED:
			errno = 0;
			o.seed = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || *optarg == '-') {
				bad_usage("bad --seed '%s'", optarg);
				goto out;
			}
			break;
		case OPT_SEEDS: {
			unsigned long long a, b;
			int len = -1;
			if (sscanf(optarg, "%llu..%llu%n", &a, &b, &len) != 2 || optarg[len] || b < a ||
			    *optarg == '-' || strchr(optarg, '-')) {
				bad_usage("bad --seeds '%s': want A..B, A <= B", optarg);
				goto out;
			}
			o.seed = a;
			o.seed_last = b;
			break;
		}
		case OPT_REPLAY_RECORDED: o.replay_recorded = true; break;
		case OPT_SET: {
			/* The runtime's rule for the argument as a whole; each value of
			 * a list is checked by it again when its problem is loaded. */
			char why[256];
			if (sprt_set_check(optarg, NULL, why, sizeof why)) {
				bad_usage("%s", why);
				goto out;
			}
			int bad = set_values_add(sets, &nsets, optarg);
			if (bad < 0) {
				fputs("spacetune: out of memory\n", stderr);
				rc = EXIT_INPUT;
				goto out;
			}
			if (bad) {
				bad_usage("bad --set '%s': want NAME=VALUE or NAME=V1,V2,...", optarg);
				goto out;
			}
			break;
		}
		case OPT_OBJECTIVE:
			if (tune_objective_parse(optarg, &o.objective_metric, &o.maximize) != 0) {
				bad_usage("bad --objective '%s': want time or a metric's name, maybe after min: or max:",
				          optarg);
				goto out;
			}
			break;
		case OPT_BFS_TOLERANCE:
		case OPT_BFS_NUMBER: {
			errno = 0;
			double x = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(x >= 0 && x <= 1e9) ||
			    (c == OPT_BFS_NUMBER && x != floor(x))) {
				bad_usage(c == OPT_BFS_NUMBER ? "bad --bfs-number '%s': want a whole number >= 0"
				          : "bad --bfs-tolerance '%s': want a number of per cent >= 0", optarg);
				goto out;
			}
			if (!o.bfs_filters)
				o.bfs_tolerance = -1, o.bfs_number = 0;
			o.bfs_filters = true;
			if (c == OPT_BFS_NUMBER)
				o.bfs_number = (size_t)x;
			else
				o.bfs_tolerance = x;
			break;
		}
		default:
			if (parse_shared_option(c, optarg, &o.eval, &progress, &rc) != 0)
				goto out;
			break;
		}
	}
	if (!(o.space_path = one_file(argc, argv, "run", ".space file")))
		goto out;
	/* A replay records nothing unless asked: the database it would resume
	 * from would make a second run with another seed a different search. */
	if (o.eval.replay && !db_given)
		o.db_path = NULL;
	if (o.eval.replay_sleep && !o.eval.replay) {
		bad_usage("%s", "--replay-sleep needs --replay DB");
		goto out;
	}
	if ((o.replay_recorded || o.seed_last > o.seed) && !o.eval.replay) {
		bad_usage("%s", o.replay_recorded ? "--replay-recorded needs --replay DB"
		                                  : "--seeds needs --replay DB (a device run records and resumes)");
		goto out;
	}
	if (o.seed_last > o.seed && db_given) {
		bad_usage("%s", "--seeds runs its searches without --db: each seed would resume from the last");
		goto out;
	}
	start_evaluations(progress, &o.live_progress, &o.no_progress);
	/* A replay opens no device. */
	pid_t keeper = o.eval.replay ? 0 : tune_gpu_keeper_start(&o.eval.device);
	rc = run_problems(&o, sets, nsets);
	tune_gpu_keeper_stop(keeper);
out:
	set_values_free(sets, nsets);
	return rc;
}

static int cmd_best(int argc, char **argv)
{
	struct tune_best_opts o = { .db_path = DEFAULT_DB, .out = stdout, .err = stderr };
	struct tune_host_opts host = { .host_path = NULL };
	const char **stored[OPT_END] = {
		[OPT_DB] = &o.db_path, [OPT_HEADER] = &o.header_path, [OPT_JSON] = &o.json_path,
		[OPT_HOST] = &host.host_path, [OPT_SOURCE] = &host.source_path,
	};
	store_select(stored, &o.select);
	int c;
	while ((c = next_option(argc, argv, "h", IN_BEST, stored)) != -1) {
		switch (c) {
		case OPT_OBJECTIVE:
			if (tune_objective_parse(optarg, &o.objective_metric, &o.maximize) != 0)
				return bad_usage("bad --objective '%s': want time or a metric's name, maybe after "
				                 "min: or max:", optarg);
			o.objective_given = true;
			break;
		case 'h': usage(stdout); return EXIT_OK;
		default: return EXIT_USAGE;
		}
	}
	bool emit = host.host_path || host.source_path;
	if (optind + (emit ? 1 : 0) != argc) {
		if (!emit)
			return bad_usage("'best' takes a file argument only with --host or --source: '%s' "
			                 "(use --db)", argv[optind]);
		return bad_usage("--host and --source need the tuned .space file, once%s", "");
	}
	if (!emit)
		return tune_best(&o);
	/* The database line names the parameters; the arguments and sizes
	 * come from the .space file, evaluated at that point (host.h). */
	struct json_object *line = NULL;
	o.best_line = &line;
	int rc = tune_best(&o);
	if (rc == 0) {
		host.space_path = argv[optind];
		host.best = line;
		host.db_path = o.db_path;
		host.err = stderr;
		rc = tune_host_emit(&host);
	}
	json_object_put(line);
	return rc;
}

/* The problems of the list (all when list is NULL), with their costs when known. */
static void list_problems(const struct tune_batch *b, const int *list, int n, const double *costs)
{
	for (int k = 0; k < n; k++) {
		int i = list ? list[k] : k;
		const struct tune_batch_problem *p = &b->problems[i];
		char budget[48] = "all";
		if (p->budget.kind == TUNE_BUDGET_EVALS)
			snprintf(budget, sizeof budget, "%.0f", p->budget.amount);
		else if (p->budget.kind == TUNE_BUDGET_SECONDS)
			snprintf(budget, sizeof budget, "%gs", p->budget.amount);
		else if (p->budget.kind == TUNE_BUDGET_FRACTION)
			snprintf(budget, sizeof budget, "%g%%", p->budget.amount * 100);
		printf("%s\tstrategy=%s budget=%s seed=%llu objective=%s", p->key, p->strategy, budget,
		       (unsigned long long)p->seed, p->objective ? p->objective : "time");
		if (costs)
			printf(" cost=%.17g", costs[i]);
		putchar('\n');
	}
}

static int cmd_batch(int argc, char **argv)
{
	struct tune_batch_run_opts o = {
		/* jobs 0: tune_batch_default_jobs, once the local devices are known */
		.eval = { .jobs = 0, .warmup = DEFAULT_WARMUP,
		          .repeat = DEFAULT_REPEAT, .build_timeout_s = default_build_timeout_s,
		          .run_timeout_s = TUNE_RUN_LIMIT_AUTO, .interrupted = &interrupted },
		.err = stderr, .interrupted = &interrupted,
	};
	int progress = -1, rc = EXIT_USAGE, c;
	pid_t keeper = 0;  /* tune_gpu_keeper_start */
	bool list = false, mpi = false, report = false, mpi_on = false;
	int mpi_rank = 0, mpi_size = 1;
	int chunk = 0;
	int shard = -1, nshards = 0;
	int *subset = NULL, nsubset = 0;
	double *costs = NULL;
	char *devices_text = NULL;
	const char **devices = NULL;
	struct tune_batch *b = NULL;
	struct tune_batch_unit *units = NULL;
	int nunits = 0;
	const char **stored[OPT_END] = { [OPT_DB] = &o.db_dir };
	while ((c = next_option(argc, argv, "h", IN_BATCH, stored)) != -1) {
		switch (c) {
		case OPT_DEVICES: free(devices_text); devices_text = strdup(optarg); break;
		case OPT_LIST: list = true; break;
		case OPT_MPI: mpi = true; break;
		case OPT_REPORT: report = true; break;
		case OPT_CHUNK:
			if (parse_int(optarg, 1, &chunk) != 0) {
				bad_usage("bad --chunk '%s': want a count of evaluations >= 1", optarg);
				goto out;
			}
			break;
		case OPT_SLOTS:
			if (parse_int(optarg, 1, &o.slots) != 0 || o.slots > TUNE_BATCH_MAX_SLOTS) {
				bad_usage("bad --slots '%s': want a count of workers per device, 1 to %d", optarg,
				          TUNE_BATCH_MAX_SLOTS);
				goto out;
			}
			break;
		case OPT_SHARD: {
			char tail;
			if (sscanf(optarg, "%d/%d%c", &shard, &nshards, &tail) != 2 || nshards < 1 ||
			    nshards > 1000000 || shard < 0 || shard >= nshards) {
				bad_usage("bad --shard '%s': want I/N with 0 <= I < N", optarg);
				goto out;
			}
			break;
		}
		default:
			if (parse_shared_option(c, optarg, &o.eval, &progress, &rc) != 0)
				goto out;
			break;
		}
	}
	if (!one_file(argc, argv, "batch", "batch file"))
		goto out;
	if (!list && !o.db_dir) {
		bad_usage("%s", "'batch' needs --db DIR (one database per worker goes there)");
		goto out;
	}
	if (mpi && nshards > 0) {
		bad_usage("%s", "--mpi hands the whole batch out; it takes no --shard");
		goto out;
	}
	if (mpi && o.slots > 1) {
		bad_usage("%s", "--mpi takes no --slots: each rank is one worker, so start more ranks "
		          "per node (ranks on one GPU take turns timing)");
		goto out;
	}
	int lrc = tune_batch_load(argv[optind], stderr, &b);
	if (lrc != 0) {
		rc = EXIT_INPUT;
		goto out;
	}
	/* Set up while the costs are computed: the workers' first opens then
	 * find each GPU up (eval.h says why).  Under mpirun one keeper a node
	 * (local rank 0), not one a rank. */
	const char *local_rank = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	if (!list && !report && !o.eval.replay && (!mpi || !local_rank || strcmp(local_rank, "0") == 0))
		keeper = tune_gpu_keeper_start(NULL);
	/* The costs: for the shards, the chunks and the missing-work report. */
	costs = calloc((size_t)b->nproblems, sizeof *costs);
	subset = calloc((size_t)b->nproblems, sizeof *subset);
	if (!costs || !subset)
		goto oom;
	nsubset = b->nproblems;
	if (list && nshards == 0) {
		list_problems(b, NULL, nsubset, NULL);
		rc = fflush(stdout) || ferror(stdout) ? EXIT_INPUT : EXIT_OK;
		goto out;
	}
	if (nshards > 0 && tune_batch_costs(b, costs, stderr) != 0) {
		rc = EXIT_INPUT;
		goto out;
	}
	if (mpi && !list && !report) {
		if (tune_batch_mpi_start(&argc, &argv, &mpi_rank, &mpi_size, stderr) != 0) {
			rc = EXIT_INPUT;
			goto out;
		}
		mpi_on = true;
	}
	if (nshards == 0 && mpi_rank == 0) {
		/* A problem that cannot be loaded fails when it runs, with its
		 * diagnostic in the worker's log; here it only has no cost. */
		FILE *quiet = fopen("/dev/null", "w");
		for (int i = 0; quiet && i < b->nproblems; i++)
			tune_batch_cost(b, i, &costs[i], quiet);
		if (quiet)
			fclose(quiet);
	}
	if (mpi_on)
		tune_batch_mpi_costs(costs, b->nproblems);
	for (int i = 0; i < b->nproblems; i++)
		subset[i] = i;
	if (nshards > 0) {
		nsubset = tune_batch_shard(b, costs, shard, nshards, subset);
		if (nsubset < 0)
			goto oom;
		o.shard = shard;
		o.nshards = nshards;
	}
	if (list) {
		list_problems(b, subset, nsubset, nshards > 0 ? costs : NULL);
		rc = fflush(stdout) || ferror(stdout) ? EXIT_INPUT : EXIT_OK;
		goto out;
	}
	if (mpi && chunk == 0) {
		/* No --chunk: cut for the ranks mpirun started (batch.h), so a
		 * batch of fewer problems than ranks keeps them all busy. */
		const char *size = getenv("OMPI_COMM_WORLD_SIZE");
		chunk = (int)tune_batch_default_chunk(b, subset, nsubset, costs,
		                                      mpi_on ? mpi_size : size ? atoi(size) : 1);
	}
	nunits = tune_batch_units(b, subset, nsubset, costs, chunk, &units);
	if (nunits < 0) {
		nunits = 0;
		goto oom;
	}
	o.units = units;
	o.nunits = nunits;
	o.costs = costs;
	o.batch = b;
	if (report) {
		/* What a rerun would do, and nothing else: 0 when nothing is missing. */
		int missing = tune_batch_report(b, units, nunits, costs, o.db_dir, stdout);
		rc = missing == 0 ? EXIT_OK : EXIT_INPUT;
		goto out;
	}
	if (devices_text) {
		devices = calloc(strlen(devices_text) + 1, sizeof *devices);
		if (!devices) {
			fputs("spacetune: out of memory\n", stderr);
			rc = EXIT_INPUT;
			goto out;
		}
		for (char *save = NULL, *t = strtok_r(devices_text, ",", &save); t; t = strtok_r(NULL, ",", &save))
			devices[o.ndevices++] = t;
		if (o.ndevices == 0) {
			bad_usage("%s", "--devices needs at least one device");
			goto out;
		}
		o.devices = devices;
	} else {
		o.ndevices = b->ndevices;
		o.devices = (const char *const *)b->devices;
	}
	start_evaluations(progress, &o.live_progress, &o.no_progress);
	rc = mpi ? tune_batch_mpi(&o) : tune_batch_run(&o);
	mpi_on = false;  /* tune_batch_mpi ended it */
	goto out;
oom:
	fputs("spacetune: out of memory\n", stderr);
	rc = EXIT_INPUT;
out:
	tune_gpu_keeper_stop(keeper);
	if (mpi_on)
		tune_batch_mpi_end();
	tune_batch_units_free(units, nunits);
	tune_batch_free(b);
	free(costs);
	free(subset);
	free(devices);
	free(devices_text);
	return rc;
}

static int cmd_merge(int argc, char **argv)
{
	const char *output = NULL;
	const char **stored[OPT_END] = { ['o'] = &output, [OPT_OUT] = &output };
	int c;
	while ((c = next_option(argc, argv, "ho:", IN_MERGE, stored)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		default: return EXIT_USAGE;
		}
	}
	if (!output)
		return bad_usage("%s", "'merge' needs --out FILE");
	if (optind == argc)
		return bad_usage("%s", "'merge' needs at least one database");
	return tune_merge((const char *const *)argv + optind, argc - optind, output, stdout, stderr);
}

static int cmd_export(int argc, char **argv)
{
	struct tune_export_opts o = { .out = stdout, .err = stderr };
	struct tune_kt_opts kt = { .out = stdout, .err = stderr };
	const char **stored[OPT_END] = {
		[OPT_C] = &o.c_path, [OPT_JSON] = &o.json_path, [OPT_KT_CACHE] = &kt.cache_path,
		[OPT_T4] = &kt.t4_path,
	};
	store_select(stored, &kt.select);
	int c;
	while ((c = next_option(argc, argv, "h", IN_EXPORT, stored)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		default: return EXIT_USAGE;
		}
	}
	if (optind == argc)
		return bad_usage("%s", "'export' needs a database or a directory of them");
	bool kt_files = kt.cache_path || kt.t4_path;
	if (!o.c_path && !o.json_path && !kt_files)
		return bad_usage("%s", "'export' needs --c OUT.h, --json OUT.json, --kt-cache OUT.json or "
		                       "--t4 OUT.json");
	if ((kt.select.space || kt.select.device || kt.select.problem) && !kt_files)
		return bad_usage("%s", "--space, --device and --problem choose what --kt-cache and --t4 export");
	o.inputs = kt.inputs = (const char *const *)argv + optind;
	o.ninputs = kt.ninputs = argc - optind;
	int rc = o.c_path || o.json_path ? tune_export(&o) : 0;
	if (rc == 0 && kt_files)
		rc = tune_export_kt(&kt);
	return rc;
}

/* A file the evaluator put in its cache: HASH.clbin, cref-HASH.so, or
 * one of their temporary files, left by a killed worker. */
static bool cache_file_name(const char *name)
{
	size_t n = strlen(name);
	return (n > 6 && strcmp(name + n - 6, ".clbin") == 0) || strstr(name, ".clbin.tmp.") != NULL ||
	       (strncmp(name, "cref-", 5) == 0 && strstr(name, ".so") != NULL);
}

static int cmd_cache(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "path") != 0 && strcmp(argv[1], "clear") != 0))
		return bad_usage("%s", "'cache' takes 'path' or 'clear'");
	/* the evaluator's default (tuner/eval.c) */
	char *dir = cache_default_dir("spacetune");
	if (!dir) {
		fputs("spacetune: out of memory\n", stderr);
		return EXIT_INPUT;
	}
	if (strcmp(argv[1], "path") == 0) {
		printf("%s\n", dir);
		free(dir);
		return fflush(stdout) || ferror(stdout) ? EXIT_INPUT : EXIT_OK;
	}
	DIR *d = opendir(dir);
	if (!d) {
		int rc = EXIT_OK;
		if (errno == ENOENT) {
			printf("spacetune: nothing cached (%s does not exist)\n", dir);
		} else {
			fprintf(stderr, "spacetune: error: cannot read '%s': %s\n", dir, strerror(errno));
			rc = EXIT_INPUT;
		}
		free(dir);
		return rc;
	}
	size_t removed = 0, failed = 0;
	double bytes = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (!cache_file_name(e->d_name))
			continue;
		char path[8192];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		/* Only plain files: never follow a link out of the cache. */
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (unlink(path) == 0) {
			removed++;
			bytes += (double)st.st_size;
		} else {
			failed++;
			fprintf(stderr, "spacetune: error: cannot remove '%s': %s\n", path, strerror(errno));
		}
	}
	closedir(d);
	printf("spacetune: removed %zu cached files (%.1f MB) from %s\n", removed, bytes / 1e6, dir);
	free(dir);
	return failed ? EXIT_INPUT : EXIT_OK;
}

/* spacetune variant: one point's source and launch, as the evaluator would get them. */
static int cmd_variant(int argc, char **argv)
{
	const char *path = NULL;
	const char **sets = calloc((size_t)argc + 1, sizeof(*sets));
	const char **want = calloc((size_t)argc + 1, sizeof(*want));
	int nsets = 0, nwant = 0, rc = EXIT_USAGE;
	if (!sets || !want) {
		fputs("spacetune: out of memory\n", stderr);
		rc = EXIT_INPUT;
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--set") && i + 1 < argc)
			sets[nsets++] = argv[++i];
		else if (!strncmp(argv[i], "--set=", 6))
			sets[nsets++] = argv[i] + 6;
		else if (argv[i][0] == '-') {
			bad_usage("'variant': unknown option '%s'", argv[i]);
			goto out;
		} else if (strchr(argv[i], '=') && path)
			want[nwant++] = argv[i];
		else if (!path)
			path = argv[i];
		else {
			bad_usage("'variant' takes one .space file: '%s'", argv[i]);
			goto out;
		}
	}
	if (!path) {
		bad_usage("%s", "'variant' needs a .space file");
		goto out;
	}
	rc = EXIT_INPUT;
	struct tune_job_opts jo = { .space_path = path, .nsets = nsets, .sets = sets };
	struct tune_job *job;
	if (tune_job_load(&jo, &job))
		goto out;
	long found = -1;
	for (size_t i = 0; found < 0 && i < tune_job_npoints(job); i++) {
		bool match = true;
		for (int w = 0; match && w < nwant; w++) {
			const char *eq = strchr(want[w], '=');
			int p = 0;
			while (p < tune_job_nparams(job) &&
			       (strlen(tune_job_param_name(job, p)) != (size_t)(eq - want[w]) ||
				strncmp(tune_job_param_name(job, p), want[w], (size_t)(eq - want[w]))))
				p++;
			if (p == tune_job_nparams(job)) {
				fprintf(stderr, "spacetune: error: '%.*s' is not a parameter of '%s'\n",
					(int)(eq - want[w]), want[w], path);
				tune_job_free(job);
				goto out;
			}
			match = tune_job_point_value(job, i, p) == strtod(eq + 1, NULL);
		}
		if (match)
			found = (long)i;
	}
	if (found < 0) {
		fprintf(stderr, "spacetune: error: no valid point of '%s' has those values\n", path);
		tune_job_free(job);
		goto out;
	}
	struct tune_variant v;
	const char *why;
	if (tune_job_variant(job, (size_t)found, &v, &why)) {
		fprintf(stderr, "spacetune: error: that point cannot be launched: %s\n", why);
		tune_job_free(job);
		goto out;
	}
	printf("/* spacetune variant of %s:", path);
	for (int p = 0; p < v.nparams; p++)
		printf(" %s=%s", v.param_names[p], v.param_values[p]);
	printf("\n * options: %s\n * global:", v.build_options);
	for (int d = 0; d < v.work_dim; d++)
		printf(" %zu", v.global[d]);
	printf("\n * local:");
	for (int d = 0; d < v.work_dim; d++)
		printf(" %zu", v.local[d]);
	/* kernels with sizes and arguments of their own: each one's */
	const char *kn = v.kernel_name;
	for (int k = 0; k < v.nsteps; k++) {
		size_t len = strcspn(kn, ",");
		printf("\n * kernel %d %.*s: global", k, (int)len, kn);
		kn += kn[len] ? len + 1 : len;
		for (int d = 0; d < v.steps[k].work_dim; d++)
			printf(" %zu", v.steps[k].global[d]);
		printf(", local");
		for (int d = 0; d < v.steps[k].work_dim; d++)
			printf(" %zu", v.steps[k].local[d]);
		printf(", arguments");
		for (int j = 0; j < v.steps[k].nargs; j++)
			printf(" %d", v.steps[k].arg_index[j]);
	}
	printf("\n */\n%s", v.source);
	tune_job_free(job);
	rc = fflush(stdout) || ferror(stdout) ? EXIT_INPUT : EXIT_OK;
out:
	free(sets);
	free(want);
	return rc;
}

static int cmd_compile(int argc, char **argv)
{
	struct tune_compile_opts o = { .target = "sm_90", .out = stdout, .err = stderr };
	const char **sets = calloc((size_t)argc + 1, sizeof(*sets));
	if (!sets) {
		fputs("spacetune: out of memory\n", stderr);
		return EXIT_INPUT;
	}
	int rc = EXIT_USAGE;
	for (int i = 1; i < argc; i++) {
		const char *arg = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--set") && arg)
			sets[o.nsets++] = argv[++i];
		else if (!strcmp(argv[i], "--backend") && arg)
			o.backend = argv[++i];
		else if (!strcmp(argv[i], "--target") && arg)
			o.target = argv[++i];
		else if (!strcmp(argv[i], "--sample") && arg) {
			int n;
			if (parse_int(arg, 1, &n) != 0) {
				bad_usage("--sample needs a positive count: '%s'", arg);
				goto out;
			}
			o.sample = (size_t)n;
			i++;
		} else if (argv[i][0] == '-') {
			bad_usage("'compile': unknown option or missing value '%s'", argv[i]);
			goto out;
		} else if (!o.space_path)
			o.space_path = argv[i];
		else {
			bad_usage("'compile' takes one .space file: '%s'", argv[i]);
			goto out;
		}
	}
	if (!o.space_path) {
		bad_usage("%s", "'compile' needs a .space file");
		goto out;
	}
	o.sets = sets;
	rc = tune_compile(&o) ? EXIT_INPUT : EXIT_OK;
out:
	free(sets);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr), EXIT_USAGE;
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("spacetune %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "devices") == 0) {
		if (argc != 2)
			return bad_usage("'devices' takes no arguments: '%s'", argv[2]);
		return tune_list_devices(stdout) < 0 ? EXIT_INPUT : EXIT_OK;
	}
	/* Each command gets its own argv: its name, then its arguments. */
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} commands[] = {
		{ "run", cmd_run }, { "best", cmd_best }, { "export", cmd_export },
		{ "merge", cmd_merge }, { "batch", cmd_batch }, { "cache", cmd_cache },
		{ "variant", cmd_variant }, { "compile", cmd_compile },
	};
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(cmd, commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	return bad_usage("unknown command '%s'", cmd);
}
