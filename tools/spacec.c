/*
 * spacec - the command over libspacec.
 *
 *   spacec check FILE          diagnostics only
 *   spacec count FILE          number of valid points
 *   spacec list FILE           the valid points (csv or jsonl)
 *   spacec stats FILE          per-constraint statistics
 *   spacec emit FILE -o OUT.c  the generated C
 *   spacec dot FILE            the dependency DAG in Graphviz DOT
 *   spacec dump FILE           the parsed AST (for debugging and tests)
 *
 * count, list and stats compile the space to C and run it in-process
 * (see jit.h); --interpret runs the reference interpreter instead.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cgen.h"
#include "dag.h"
#include "interp.h"
#include "jit.h"
#include "spacec.h"
#include "parse.h"
#include "progress.h"
#include "sema.h"
#include "spacert.h"

enum exit_code { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

struct cli {
	const char *command;
	const char *file;
	const char *format;
	bool no_soft;
	bool interpret;
	const char *output;
	const char *device_profile;
	struct spacec_options opts;      /* -O, -f, --jit, -W, -w: the library's (lib/spacec.h) */
	bool verbose;
	int progress;                    /* --progress 1, --no-progress 0, -1: on a terminal */
	char *disabled_warnings;
	int nbindings;
	char **binding_text;
	int ndisabled;
	const char **disabled;
	struct sprt_run_options run;     /* --threads, --ordered, --shard (the runtime's readers) */
	bool shard;
	bool specialize; /* emit: for the given bindings only (count/list/stats always are) */
	uint64_t sample_n, seed;
	bool have_n, replace;
	int nextra;
	char **extra;    /* rank's points, unrank's indices */
};

static void usage(FILE *out)
{
	fputs("usage: spacec COMMAND [OPTIONS] FILE.space\n"
	      "\n"
	      "Commands:\n"
	      "  check   report diagnostics only (exit status 0 or 1)\n"
	      "  count   print the number of valid points\n"
	      "  list    print the valid points, one column per iterator\n"
	      "  stats   print per-constraint and per-definition statistics\n"
	      "  sample  -n K [--seed S] [--replace]: K points drawn uniformly\n"
	      "  unrank  FILE INDEX...: the point at each index of list's order\n"
	      "  rank    FILE POINT...: the index of each point (a CSV row as list writes it)\n"
	      "  emit    write the generated C (-o FILE, default stdout)\n"
	      "  dot     print the dependency DAG in Graphviz DOT\n"
	      "  dump    print the syntax tree\n"
	      "\n"
	      "Options:\n"
	      "  --set NAME=VALUE    bind a device parameter or setting (repeatable)\n"
	      "  --no-soft           drop soft constraints\n"
	      "  --disable NAME      drop one constraint (repeatable)\n"
	      "  --format csv|jsonl|binary\n"
	      "                      output format of 'list' (default csv; binary:\n"
	      "                      compiled path only, see FORMAT.md)\n"
	      "  --device-profile F  bind device parameters from a JSON file\n"
	      "  --threads N         worker threads of count/list/stats (default: the\n"
	      "                      online CPUs; the interpreter uses one)\n"
	      "  --ordered           list in the single-thread order\n"
	      "  --shard I/N         only part I of N, 0 <= I < N (compiled path)\n"
	      "  --interpret         use the reference interpreter\n"
	      "  --jit=auto|cc|tcc   how to compile the enumerator (default auto:\n"
	      "                      a cached cc -O2 build, else libtcc in memory)\n"
	      "  -O0, -O1, -O2       optimisation level of the generated loops\n"
	      , out);
	cg_switch_help(out);
	fputs("                      switch one transformation off (-fno-typed-values:\n"
	      "                      every value tagged, no int64_t state)\n"
	      "  -o FILE             output of 'emit' and 'list' (written beside, then renamed)\n"
	      "  --specialize        emit: specialize to --set, --device-profile and the\n"
	      "                      defaults, as count, list and stats do (the program\n"
	      "                      then refuses other bindings)\n"
	      "  -v, --verbose       say how the enumerator was built and how long it ran\n"
	      "  --progress, --no-progress\n"
	      "                      a progress line with an ETA on stderr for long builds\n"
	      "                      and enumerations (default: when stderr is a terminal)\n"
	      "  -Werror             treat warnings as errors\n"
	      "  -Wno-NAME           silence one warning (e.g. -Wno-unused)\n"
	      "  -w                  silence all warnings\n"
	      "  -h, --help          show this help\n"
	      "  --version           show the version\n"
	      "\n"
	      "The language reference (LANGUAGE.md), spacetune's tune: section (TUNING.md)\n"
	      "and the binary format (FORMAT.md) are in " SPACEC_DOCDIR "; see also\n"
	      "man spacec.\n", out);
}

static int parse_args(struct cli *cli, int argc, char **argv)
{
	enum { OPT_SET = 256, OPT_NO_SOFT, OPT_FORMAT, OPT_INTERPRET, OPT_VERSION, OPT_DISABLE,
	       OPT_PROFILE, OPT_JIT, OPT_THREADS, OPT_ORDERED, OPT_SHARD, OPT_PROGRESS, OPT_NO_PROGRESS,
	       OPT_SPECIALIZE, OPT_SEED, OPT_REPLACE };
	static const struct option opts[] = {
		{ "set", required_argument, NULL, OPT_SET },
		{ "no-soft", no_argument, NULL, OPT_NO_SOFT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "interpret", no_argument, NULL, OPT_INTERPRET },
		{ "disable", required_argument, NULL, OPT_DISABLE },
		{ "device-profile", required_argument, NULL, OPT_PROFILE },
		{ "jit", required_argument, NULL, OPT_JIT },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "ordered", no_argument, NULL, OPT_ORDERED },
		{ "specialize", no_argument, NULL, OPT_SPECIALIZE },
		{ "shard", required_argument, NULL, OPT_SHARD },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "replace", no_argument, NULL, OPT_REPLACE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	cli->format = "csv";
	spacec_options_init(&cli->opts);
	cli->run.threads = sprt_default_threads();
	cli->progress = -1;
	cli->binding_text = calloc((size_t)argc + 1, sizeof(char *));
	cli->disabled = calloc((size_t)argc + 1, sizeof(char *));
	size_t wlen = 1;
	for (int i = 0; i < argc; i++)
		wlen += strlen(argv[i]) + 1;
	cli->disabled_warnings = calloc(wlen, 1);
	if (!cli->binding_text || !cli->disabled || !cli->disabled_warnings) {
		fputs("spacec: error: out of memory\n", stderr);
		return EXIT_INPUT;
	}
	cli->opts.disabled_warnings = cli->disabled_warnings;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hwvW:O:o:f:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (sprt_parse_count(optarg, &cli->sample_n)) {
				fprintf(stderr, "spacec: error: -n needs a count of points, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			cli->have_n = true;
			break;
		case OPT_SEED:
			if (sprt_parse_count(optarg, &cli->seed)) {
				fprintf(stderr, "spacec: error: --seed needs a number, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_REPLACE:
			cli->replace = true;
			break;
		case OPT_SET: {
			char why[256];
			if (sprt_set_check(optarg, NULL, why, sizeof why)) {
				fprintf(stderr, "spacec: error: %s\n", why);
				return EXIT_USAGE;
			}
			cli->binding_text[cli->nbindings++] = optarg;
			break;
		}
		case OPT_NO_SOFT:
			cli->no_soft = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "csv") && strcmp(optarg, "jsonl") && strcmp(optarg, "binary")) {
				fprintf(stderr, "spacec: error: unknown format '%s' (csv, jsonl or binary)\n", optarg);
				return EXIT_USAGE;
			}
			cli->format = optarg;
			break;
		case OPT_INTERPRET:
			cli->interpret = true;
			break;
		case OPT_DISABLE:
			cli->disabled[cli->ndisabled++] = optarg;
			break;
		case OPT_PROFILE:
			cli->device_profile = optarg;
			break;
		case OPT_THREADS:
			if (sprt_parse_threads(optarg, &cli->run.threads)) {
				fprintf(stderr, "spacec: error: --threads needs a number from 1 to 1024, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_ORDERED:
			cli->run.ordered = true;
			break;
		case OPT_PROGRESS:
		case OPT_NO_PROGRESS:
			cli->progress = c == OPT_PROGRESS;
			break;
		case OPT_SPECIALIZE:
			cli->specialize = true;
			break;
		case OPT_SHARD:
			if (sprt_parse_shard(optarg, &cli->run.shard_index, &cli->run.shard_count)) {
				fprintf(stderr, "spacec: error: --shard needs I/N with 0 <= I < N <= 1048576, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			cli->shard = true;
			break;
		case OPT_JIT:
		case 'O':
		case 'f': {
			char why[256];
			if (spacec_option(&cli->opts, c == OPT_JIT ? "--jit" : c == 'O' ? "-O" : "-f", optarg, why,
					  sizeof why)) {
				fprintf(stderr, "spacec: error: %s\n", why);
				return EXIT_USAGE;
			}
			break;
		}
		case 'o':
			cli->output = optarg;
			break;
		case 'v':
			cli->verbose = true;
			cli->opts.jit.verbose = true;
			break;
		case 'w':
			cli->opts.no_warnings = true;
			break;
		case 'W':
			if (!strcmp(optarg, "error")) {
				cli->opts.werror = true;
			} else if (!strncmp(optarg, "no-", 3)) {
				if (!diag_known_warning(optarg + 3)) {
					fprintf(stderr, "spacec: warning: unknown warning '-W%s'; the warnings are", optarg);
					for (int i = 0; diag_warning_names[i]; i++)
						fprintf(stderr, "%s %s", i ? "," : "", diag_warning_names[i]);
					fputc('\n', stderr);
				}
				if (*cli->disabled_warnings)
					strcat(cli->disabled_warnings, ",");
				strcat(cli->disabled_warnings, optarg + 3);
			} else if (strcmp(optarg, "all")) {
				fprintf(stderr, "spacec: error: unknown option '-W%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case OPT_VERSION:
			printf("spacec %s\n", PACKAGE_VERSION);
			exit(EXIT_OK);
		default:
			fprintf(stderr, "spacec: error: unknown or incomplete option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	/* GNU getopt permutes, so options may come before or after the
	 * command and the file. */
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cli->command = argv[optind++];
	if ((!strcmp(cli->command, "rank") || !strcmp(cli->command, "unrank")) && optind < argc) {
		/* The file, then the points or indices. */
		cli->file = argv[optind++];
		cli->extra = argv + optind;
		cli->nextra = argc - optind;
		return -1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "spacec: error: no input file\n"
					       : "spacec: error: expected exactly one input file\n");
		return EXIT_USAGE;
	}
	cli->file = argv[optind];
	return -1;
}

/* ---- output sinks for 'list' ------------------------------------------------ */

struct list_sink {
	const struct sema_program *prog;
	bool json;
	FILE *out;
	bool range_too_long; /* a range JSON cannot write (as the runtime's jsonl) */
};

static void csv_field(FILE *out, struct value v)
{
	if (v.kind == V_STR && strpbrk(v.u.s, ",\"\n\r")) {
		fputc('"', out);
		for (const char *p = v.u.s; *p; p++) {
			if (*p == '"')
				fputc('"', out);
			fputc(*p, out);
		}
		fputc('"', out);
		return;
	}
	if (v.kind == V_STR) {
		fputs(v.u.s, out);
		return;
	}
	value_print(out, v, false);
}

static void json_string(FILE *out, const char *s)
{
	struct value v = value_str(s);
	value_print(out, v, true);
}

static int list_point(void *ctx, const struct value *iters, int n)
{
	struct list_sink *s = ctx;
	for (int i = 0; s->json && i < n; i++)
		if (iters[i].kind == V_RANGE && value_range_len(iters[i]) > VLIST_MAX_LEN) {
			s->range_too_long = true;
			return 1;
		}
	for (int i = 0; i < n; i++) {
		if (s->json) {
			fputs(i ? ", " : "{", s->out);
			json_string(s->out, s->prog->iters[i]->name);
			fputs(": ", s->out);
			value_print(s->out, iters[i], true);
		} else {
			if (i)
				fputc(',', s->out);
			csv_field(s->out, iters[i]);
		}
	}
	fputs(s->json ? (n ? "}\n" : "{}\n") : "\n", s->out);
	/* Stop early on a write error (a full disk, a closed pipe). */
	return ferror(s->out) ? 1 : 0;
}

/* ---- stats ------------------------------------------------------------------ */

/*
 * The interpreter's statistics, printed by the runtime's own table code so
 * the two paths' outputs are comparable line for line.
 */
static int print_stats(const struct cli *cli, const struct sema_program *prog,
		       const struct interp_result *res, double seconds)
{
	struct sprt_def_desc *descs = calloc((size_t)prog->ndefs + 1, sizeof(*descs));
	bool *off = calloc((size_t)prog->ndefs + 1, sizeof(*off));
	int *row_of = calloc((size_t)prog->ndefs + 1, sizeof(*row_of));
	if (!descs || !off || !row_of) {
		fputs("spacec: error: out of memory\n", stderr);
		free(descs);
		free(off);
		free(row_of);
		return -1;
	}
	int n = 0;
	for (int i = 0; i < prog->ndefs; i++) {
		const struct sema_def *d = prog->defs[i];
		if (d->kind != SEMA_CONSTRAINT && d->kind != SEMA_DERIVED && d->kind != SEMA_ITER)
			continue;
		struct sprt_def_desc *x = &descs[n];
		x->name = d->cname;
		x->kind = d->kind == SEMA_ITER ? SPRT_DEF_ITER :
			  d->kind == SEMA_DERIVED ? SPRT_DEF_DERIVED : SPRT_DEF_CONSTRAINT;
		x->cls = d->cclass == AST_HARD ? SPRT_HARD : d->cclass == AST_SOFT ? SPRT_SOFT : SPRT_CORRECT;
		x->require = d->require;
		x->line = d->loc.line;
		x->level = d->level;
		for (int k = 0; k < cli->ndisabled; k++)
			off[n] |= d->kind == SEMA_CONSTRAINT && !strcmp(cli->disabled[k], d->name);
		row_of[i] = n++;
	}
	struct sprt_space sp = { .abi_version = SPRT_ABI_VERSION, .name = cli->file, .ndefs = n, .defs = descs };
	struct sprt_ctx ctx;
	int rc = sprt_ctx_init(&ctx, &sp);
	if (rc)
		fputs("spacec: error: out of memory\n", stderr);
	if (rc == 0) {
		ctx.no_soft = cli->no_soft;
		ctx.disabled = off;
		for (int i = 0; i < prog->ndefs; i++) {
			const struct sema_def *d = prog->defs[i];
			if (d->kind != SEMA_CONSTRAINT && d->kind != SEMA_DERIVED && d->kind != SEMA_ITER)
				continue;
			struct sprt_def_stats *t = &ctx.stats[row_of[i]];
			t->evaluated = res->stats[d->id].evaluated;
			t->rejected = res->stats[d->id].rejected;
			t->domain_errors = res->stats[d->id].domain_errors;
		}
		ctx.valid = res->valid;
		ctx.candidates = res->candidates;
		rc = sprt_stats_print(&ctx, stdout, seconds);
		sprt_ctx_release(&ctx);
	}
	free(descs);
	free(off);
	free(row_of);
	return rc;
}

/*
 * --device-profile then --set into `b`, through the runtime's parser so
 * every path reads values the same way.  Returns 0, or an exit code
 * (`b` released); `report` says whether to print why.
 */
static int read_bindings(const struct cli *cli, struct sprt_bindings *b, bool report)
{
	*b = (struct sprt_bindings){ 0, 0, NULL };
	if (cli->device_profile) {
		size_t len;
		char *text = parse_read_file(cli->device_profile, &len);
		if (!text) {
			if (report)
				fprintf(stderr, "spacec: error: cannot read '%s': %s\n", cli->device_profile,
					strerror(errno));
			return EXIT_INPUT;
		}
		char err[512];
		int rc = sprt_bindings_load_json(b, cli->device_profile, text, len, err, sizeof(err));
		free(text);
		if (rc) {
			if (report)
				fprintf(stderr, "%s\n", err);
			sprt_bindings_release(b);
			return EXIT_INPUT;
		}
	}
	for (int i = 0; i < cli->nbindings; i++) {
		char why[256];
		int rc = sprt_bindings_set_arg(b, cli->binding_text[i], why, sizeof why);
		if (rc && report)
			fprintf(stderr, "spacec: error: %s\n", why);
		if (rc) {
			sprt_bindings_release(b);
			return rc == SPRT_EVALUE ? EXIT_USAGE : EXIT_INPUT;
		}
	}
	return 0;
}

/* The interpreter's progress (interp_options.progress) onto the line. */
static void interp_progress(void *arg, double fraction, uint64_t candidates, uint64_t valid)
{
	char detail[96];
	snprintf(detail, sizeof detail, "%llu candidates, %llu valid", (unsigned long long)candidates,
		 (unsigned long long)valid);
	progress_update(arg, fraction, detail);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* spacec emit: the standalone program, specialized (--specialize) to the
 * bindings where they can be read. */
static int emit_file(const struct cli *cli, struct spacec_unit *u)
{
	const char *out = cli->output && strcmp(cli->output, "-") ? cli->output : NULL;
	struct sprt_bindings b;
	bool bound = cli->specialize && !read_bindings(cli, &b, false);
	struct spacec_build build = { .bindings = bound ? &b : NULL, .standalone = true, .specialize = bound,
				      .output_name = out ? out : "<stdout>" };
	size_t n;
	char *text = spacec_generate(u, &build, &n);
	if (bound)
		sprt_bindings_release(&b);
	if (!text)
		return EXIT_INPUT;
	int rc = EXIT_OK;
	if (!out) {
		if (fwrite(text, 1, n, stdout) != n || fflush(stdout))
			rc = EXIT_INPUT;
	} else {
		/* Atomic: a temporary file renamed into place, never a torn file
		 * (a device such as /dev/null is written in place). */
		struct sprt_output o;
		FILE *f = sprt_output_open(&o, out, NULL);
		if (!f || sprt_output_close(&o, fwrite(text, 1, n, f) != n) != 0) {
			fprintf(stderr, "spacec: error: cannot write '%s': %s\n", out, strerror(errno));
			rc = EXIT_INPUT;
		}
	}
	free(text);
	return rc;
}

/* The command on the loaded enumerator, through the runtime's structured
 * entry (the same code a standalone enumerator's sprt_main runs). */
static int run_command(const struct cli *cli, struct diag *diag, const struct sprt_space *space,
		       const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	struct sprt_command c;
	sprt_command_init(&c, slash ? slash + 1 : argv0);
	c.cmd = sprt_command_kind_of(cli->command);
	if (c.cmd == SPRT_CMD_LIST || c.cmd == SPRT_CMD_SAMPLE || c.cmd == SPRT_CMD_UNRANK) {
		c.fmt = !strcmp(cli->format, "jsonl") ? SPRT_FMT_JSONL
			: !strcmp(cli->format, "binary") ? SPRT_FMT_BINARY : SPRT_FMT_CSV;
		if (cli->output && strcmp(cli->output, "-"))
			c.output = cli->output;
	}
	if (cli->have_n)
		c.sample_n = cli->sample_n;
	c.seed = cli->seed;
	c.replace = cli->replace;
	c.nargs = cli->nextra;
	c.args = (const char *const *)cli->extra;
	c.ndisable = cli->ndisabled;
	c.disable = (const char *const *)cli->disabled;
	c.no_soft = cli->no_soft;
	c.no_warnings = diag_warning_disabled(diag, "domain-errors");
	c.profile = cli->device_profile;
	c.run = cli->run;
	c.timing = cli->verbose;
	c.progress = cli->progress;
	struct sprt_bindings sets = { 0, 0, NULL };
	for (int i = 0; i < cli->nbindings; i++) {
		char why[256];
		if (sprt_bindings_set_arg(&sets, cli->binding_text[i], why, sizeof why)) {
			fprintf(stderr, "spacec: error: %s\n", why);
			sprt_bindings_release(&sets);
			return EXIT_INPUT;
		}
	}
	c.sets = &sets;
	int rc = sprt_command_run(space, &c);
	sprt_bindings_release(&sets);
	return rc;
}

/* cc -O2 compiles about 100 kB of generated C a second here (0.4 s for
 * 10 kB, 7 s for gemm_beast's 400 kB on the loaded 2-core machine); a
 * cached build or tcc ends before the line shows. */
static void building(void *bar, size_t c_bytes)
{
	progress_phase(bar, "building the enumerator", 0.2 + (double)c_bytes / 100e3);
}

/*
 * Compiles the space for this run's bindings (lib/spacec.h) and hands it
 * to the runtime's commands, so the compiled path prints exactly what a
 * standalone enumerator would.
 */
static int run_compiled(const struct cli *cli, struct spacec_unit *u, const struct sprt_bindings *b,
			const char *argv0)
{
	struct progress_line *bar = progress_open(cli->progress);
	struct spacec_build build = { .bindings = b, .specialize = true, .listing = !strcmp(cli->command, "list"),
				      .no_soft = cli->no_soft, .building = building, .user = bar };
	struct spacec_enumerator e;
	char *err = NULL;
	int rc = spacec_load(u, &build, &e, &err);
	progress_close(bar);
	if (rc) {
		if (rc < 0)
			fprintf(stderr, "spacec: error: %s\n", err ? err : "cannot compile the enumerator");
		free(err);
		return EXIT_INPUT;
	}
	if (cli->verbose)
		fprintf(stderr, "spacec: enumerator built with %s in %.3f s\n", e.backend, e.compile_seconds);
	rc = run_command(cli, &u->diag, e.space, argv0);
	spacec_enumerator_release(&e);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli cli;
	memset(&cli, 0, sizeof(cli));
	int rc = parse_args(&cli, argc, argv);
	if (rc >= 0)
		goto done;
	static const char *const commands[] = { "check", "count", "list", "stats", "emit", "dot", "dump",
						"sample", "rank", "unrank", NULL };
	bool known = false;
	for (int i = 0; commands[i]; i++)
		known |= !strcmp(commands[i], cli.command);
	if (!known) {
		fprintf(stderr, "spacec: error: unknown command '%s'\n", cli.command);
		usage(stderr);
		rc = EXIT_USAGE;
		goto done;
	}

	size_t len;
	char *src = parse_read_file(cli.file, &len);
	if (!src && errno == EFBIG) {
		fprintf(stderr, "spacec: error: '%s' is larger than %u MiB, the limit of an input file\n", cli.file,
			PARSE_MAX_INPUT_BYTES >> 20);
		rc = EXIT_INPUT;
		goto done;
	}
	if (!src) {
		fprintf(stderr, "spacec: error: cannot read '%s': %s\n", cli.file, strerror(errno));
		rc = EXIT_INPUT;
		goto done;
	}
	double t_start = now();
	struct spacec_unit u = { 0 };
	struct sprt_bindings bindings = { 0, 0, NULL };
	int errors = spacec_parse(&u, cli.file, src, len, &cli.opts, stderr);
	char *src_copy = src;
	rc = EXIT_OK;
	if (!strcmp(cli.command, "dump")) {
		ast_dump(&u.mod, stdout);
		rc = errors ? EXIT_INPUT : EXIT_OK;
		goto flush;
	}
	if (spacec_analyze(&u)) {
		rc = EXIT_INPUT;
		goto out;
	}
	double t_front = now();
	if (!strcmp(cli.command, "check"))
		goto out;
	if (!strcmp(cli.command, "dot")) {
		struct dag g;
		dag_build(&g, &u.prog);
		dag_write_dot(&g, stdout);
		dag_release(&g);
		goto flush;
	}
	if (!strcmp(cli.command, "emit")) {
		rc = emit_file(&cli, &u);
		goto out;
	}
	if ((rc = read_bindings(&cli, &bindings, true)))
		goto out;
	if (spacec_check_bindings(&u, &bindings, (const char *const *)cli.binding_text, cli.nbindings,
				  cli.device_profile, true)) {
		rc = EXIT_INPUT;
		goto out;
	}
	if (!cli.interpret) {
		rc = run_compiled(&cli, &u, &bindings, argv[0]);
		goto out;
	}
	if (!strcmp(cli.command, "sample") || !strcmp(cli.command, "rank") || !strcmp(cli.command, "unrank")) {
		/* They descend the compiled nest's counts (runtime/access.c);
		 * the interpreter keeps none. */
		fprintf(stderr, "spacec: error: %s needs the compiled path (the interpreter has no counts to "
			"descend); drop --interpret\n", cli.command);
		rc = EXIT_USAGE;
		goto out;
	}
	if (cli.shard) {
		fprintf(stderr, "spacec: error: --shard needs the compiled path; drop --interpret\n");
		rc = EXIT_USAGE;
		goto out;
	}
	if (!strcmp(cli.command, "list") && !strcmp(cli.format, "binary")) {
		fprintf(stderr, "spacec: error: --format binary is written by the compiled path; drop --interpret\n");
		rc = EXIT_USAGE;
		goto out;
	}
	struct interp_binding *ibindings = spacec_interp_bindings(&u, &bindings);
	if (!ibindings) {
		fputs("spacec: error: out of memory\n", stderr);
		rc = EXIT_INPUT;
		goto out;
	}
	struct interp_options opt = {
		.no_soft = cli.no_soft,
		.nbindings = bindings.n,
		.bindings = ibindings,
		.ndisabled = cli.ndisabled,
		.disabled = cli.disabled,
	};
	for (int i = 0; i < cli.ndisabled; i++) {
		struct sema_def *d = sema_lookup(&u.prog, cli.disabled[i]);
		if (!d || d->kind != SEMA_CONSTRAINT) {
			fprintf(stderr, "spacec: error: --disable '%s': no constraint of that name\n", cli.disabled[i]);
			rc = EXIT_USAGE;
			free(ibindings);
			goto out;
		}
	}
	struct interp_result res;
	bool listing = !strcmp(cli.command, "list");
	/* -o FILE as the compiled path writes it: beside, then renamed. */
	struct sprt_output output;
	FILE *out = sprt_output_open(&output, listing && cli.output && strcmp(cli.output, "-") ? cli.output : NULL,
				     "spacec");
	if (!out) {
		rc = EXIT_INPUT;
		free(ibindings);
		goto out;
	}
	struct list_sink sink = { &u.prog, !strcmp(cli.format, "jsonl"), out, false };
	if (listing && !sink.json) {
		for (int i = 0; i < u.prog.niters; i++)
			fprintf(out, "%s%s", i ? "," : "", u.prog.iters[i]->name);
		fputc('\n', out);
	}
	struct progress_line *bar = progress_open(cli.progress);
	progress_phase(bar, "interpreting", 0);
	opt.progress = bar ? interp_progress : NULL;
	opt.progress_arg = bar;
	double t0 = now();
	int r = interp_run(&u.prog, &opt, listing ? list_point : NULL, &sink, &res, &u.diag);
	double t1 = now();
	progress_close(bar);
	free(ibindings);
	if (cli.verbose) {
		fprintf(stderr, "spacec: front end (parse, checks) in %.3f s\n", t_front - t_start);
		if (r >= 0)
			fprintf(stderr, "spacec: interpreted in %.6f s (%llu valid points, %llu candidates)\n",
				t1 - t0, (unsigned long long)res.valid, (unsigned long long)res.candidates);
	}
	if (sink.range_too_long)
		fprintf(stderr, "spacec: error: writing the output: a range longer than a list may be has no "
				"JSON form (csv writes it as a range)\n");
	if (sprt_output_close(&output, r < 0 || sink.range_too_long) && r >= 0) {
		interp_result_release(&res);
		rc = EXIT_INPUT;
		goto out;
	}
	if (r < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < u.prog.ndefs && res.valid == 0; i++) {
		const struct sema_def *d = u.prog.defs[i];
		const struct interp_def_stats *s = &res.stats[d->id];
		if ((d->kind == SEMA_ITER || d->kind == SEMA_DERIVED || d->kind == SEMA_CONSTRAINT) &&
		    s->domain_errors && s->domain_errors == s->evaluated)
			diag_warning(&u.diag, d->loc, "domain-errors", "every evaluation of '%s' failed with a domain "
				     "error (%llu times: overflow, division by zero, a type error or a bad value), "
				     "so no point is valid", d->cname, (unsigned long long)s->domain_errors);
	}
	if (!strcmp(cli.command, "count"))
		printf("%llu\n", (unsigned long long)res.valid);
	else if (!strcmp(cli.command, "stats") && print_stats(&cli, &u.prog, &res, t1 - t0))
		rc = EXIT_INPUT;
	interp_result_release(&res);
flush:
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "spacec: error: writing the output failed: %s\n", strerror(errno));
		rc = EXIT_INPUT;
	}
out:
	sprt_bindings_release(&bindings);
	spacec_unit_release(&u);
	free(src_copy);
done:
	free(cli.binding_text);
	free(cli.disabled);
	free(cli.disabled_warnings);
	return rc;
}
