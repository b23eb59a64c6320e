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
#include "parse.h"
#include "sema.h"
#include "spacert.h"

enum exit_code { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

struct cli {
	const char *command;
	const char *file;
	const char *format;
	bool no_soft;
	bool interpret;
	bool werror, no_warnings;
	const char *output;
	const char *device_profile;
	int opt_level;
	bool verbose;
	struct jit_options jit;
	char *disabled_warnings;
	int nbindings;
	char **binding_text;
	int ndisabled;
	const char **disabled;
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
	      "  emit    write the generated C (-o FILE, default stdout)\n"
	      "  dot     print the dependency DAG in Graphviz DOT\n"
	      "  dump    print the syntax tree\n"
	      "\n"
	      "Options:\n"
	      "  --set NAME=VALUE    bind a device parameter or setting (repeatable)\n"
	      "  --no-soft           drop soft constraints\n"
	      "  --disable NAME      drop one constraint (repeatable)\n"
	      "  --format csv|jsonl  output format of 'list' (default csv)\n"
	      "  --device-profile F  bind device parameters from a JSON file\n"
	      "  --interpret         use the reference interpreter\n"
	      "  --jit=auto|cc|tcc   how to compile the enumerator (default auto:\n"
	      "                      a cached cc -O2 build, else libtcc in memory)\n"
	      "  -O0, -O1, -O2       optimisation level of the generated loops\n"
	      "  -o FILE             output of 'emit'\n"
	      "  -v, --verbose       say how the enumerator was built\n"
	      "  -Werror             treat warnings as errors\n"
	      "  -Wno-NAME           silence one warning (e.g. -Wno-unused)\n"
	      "  -w                  silence all warnings\n"
	      "  -h, --help          show this help\n"
	      "  --version           show the version\n", out);
}

static int parse_args(struct cli *cli, int argc, char **argv)
{
	enum { OPT_SET = 256, OPT_NO_SOFT, OPT_FORMAT, OPT_INTERPRET, OPT_VERSION, OPT_DISABLE,
	       OPT_PROFILE, OPT_JIT };
	static const struct option opts[] = {
		{ "set", required_argument, NULL, OPT_SET },
		{ "no-soft", no_argument, NULL, OPT_NO_SOFT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "interpret", no_argument, NULL, OPT_INTERPRET },
		{ "disable", required_argument, NULL, OPT_DISABLE },
		{ "device-profile", required_argument, NULL, OPT_PROFILE },
		{ "jit", required_argument, NULL, OPT_JIT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	cli->format = "csv";
	cli->opt_level = 2;
	cli->binding_text = calloc((size_t)argc + 1, sizeof(char *));
	cli->disabled = calloc((size_t)argc + 1, sizeof(char *));
	size_t wlen = 1;
	for (int i = 0; i < argc; i++)
		wlen += strlen(argv[i]) + 1;
	cli->disabled_warnings = calloc(wlen, 1);
	if (!cli->binding_text || !cli->disabled || !cli->disabled_warnings) {
		fputs("spacec: out of memory\n", stderr);
		return EXIT_USAGE;
	}
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hwvW:O:o:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SET:
			if (!strchr(optarg, '=')) {
				fprintf(stderr, "spacec: error: --set needs NAME=VALUE, got '%s'\n", optarg);
				return EXIT_USAGE;
			}
			cli->binding_text[cli->nbindings++] = optarg;
			break;
		case OPT_NO_SOFT:
			cli->no_soft = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "csv") && strcmp(optarg, "jsonl")) {
				fprintf(stderr, "spacec: error: unknown format '%s' (csv or jsonl)\n", optarg);
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
		case OPT_JIT:
			if (!strcmp(optarg, "auto")) {
				cli->jit.mode = JIT_AUTO;
			} else if (!strcmp(optarg, "cc")) {
				cli->jit.mode = JIT_CC;
			} else if (!strcmp(optarg, "tcc")) {
				cli->jit.mode = JIT_TCC;
			} else {
				fprintf(stderr, "spacec: error: unknown --jit '%s' (auto, cc or tcc)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'O':
			if (strcmp(optarg, "0") && strcmp(optarg, "1") && strcmp(optarg, "2")) {
				fprintf(stderr, "spacec: error: unknown optimisation level '-O%s'\n", optarg);
				return EXIT_USAGE;
			}
			cli->opt_level = optarg[0] - '0';
			break;
		case 'o':
			cli->output = optarg;
			break;
		case 'v':
			cli->verbose = true;
			cli->jit.verbose = true;
			break;
		case 'w':
			cli->no_warnings = true;
			break;
		case 'W':
			if (!strcmp(optarg, "error")) {
				cli->werror = true;
			} else if (!strncmp(optarg, "no-", 3)) {
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

static void print_stats(const struct sema_program *prog, const struct interp_result *res,
			double seconds, bool no_soft)
{
	printf("%-34s %-10s %5s %14s %14s %8s %10s\n", "definition", "class", "level",
	       "evaluated", "rejected", "pruned%", "domain");
	for (int i = 0; i < prog->ndefs; i++) {
		const struct sema_def *d = prog->defs[i];
		if (d->kind != SEMA_CONSTRAINT && d->kind != SEMA_DERIVED && d->kind != SEMA_ITER)
			continue;
		const struct interp_def_stats *st = &res->stats[d->id];
		const char *cls = d->kind == SEMA_CONSTRAINT ? ast_cclass_name(d->cclass) : sema_kind_name(d->kind);
		if (d->kind == SEMA_CONSTRAINT && d->cclass == AST_SOFT && no_soft)
			cls = "soft(off)";
		double pct = st->evaluated ? 100.0 * (double)st->rejected / (double)st->evaluated : 0.0;
		printf("%-34s %-10s %5d %14llu %14llu %7.2f%% %10llu\n", d->cname, cls, d->level,
		       (unsigned long long)st->evaluated, (unsigned long long)st->rejected, pct,
		       (unsigned long long)st->domain_errors);
	}
	printf("\nvalid points:      %llu\n", (unsigned long long)res->valid);
	printf("candidates:        %llu\n", (unsigned long long)res->candidates);
	printf("time:              %.6f s\n", seconds);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Generates the C of a program into a malloc'd buffer. */
static char *generate(const struct cli *cli, const struct sema_program *prog, struct diag *diag,
		      const char *src, size_t len, const char *out_name, size_t *out_len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f) {
		fprintf(stderr, "spacec: error: out of memory\n");
		return NULL;
	}
	struct cg_options o = {
		.source_text = src,
		.source_len = len,
		.source_name = cli->file,
		.output_name = out_name,
		.line_directives = true,
		.opt_level = cli->opt_level,
	};
	int errs = cg_emit(prog, &o, f, diag);
	if (fclose(f) || errs) {
		free(buf);
		return NULL;
	}
	*out_len = n;
	return buf;
}

static int emit_file(const struct cli *cli, const struct sema_program *prog, struct diag *diag,
		     const char *src, size_t len)
{
	const char *out = cli->output && strcmp(cli->output, "-") ? cli->output : NULL;
	size_t n;
	char *text = generate(cli, prog, diag, src, len, out ? out : "<stdout>", &n);
	if (!text)
		return EXIT_INPUT;
	int rc = EXIT_OK;
	if (!out) {
		if (fwrite(text, 1, n, stdout) != n || fflush(stdout))
			rc = EXIT_INPUT;
	} else {
		/* Atomic: a temporary file renamed into place, never a torn file. */
		size_t tl = strlen(out) + 32;
		char *tmp = malloc(tl);
		snprintf(tmp, tl, "%s.tmp.%ld", out, (long)getpid());
		FILE *f = fopen(tmp, "wb");
		if (!f || fwrite(text, 1, n, f) != n || fclose(f) || rename(tmp, out)) {
			fprintf(stderr, "spacec: error: cannot write '%s': %s\n", out, strerror(errno));
			remove(tmp);
			rc = EXIT_INPUT;
		}
		free(tmp);
	}
	free(text);
	return rc;
}

/*
 * Compiles the space and hands it to the runtime's command line, so the
 * compiled path prints exactly what a standalone enumerator would.
 */
static int run_compiled(const struct cli *cli, const struct sema_program *prog, struct diag *diag,
			const char *src, size_t len, const char *argv0)
{
	size_t n;
	char *text = generate(cli, prog, diag, src, len, "<generated>", &n);
	if (!text)
		return EXIT_INPUT;
	struct jit_handle h;
	char *err = NULL;
	if (jit_load(text, n, &cli->jit, &h, &err)) {
		fprintf(stderr, "spacec: error: %s\n", err ? err : "cannot compile the enumerator");
		free(err);
		free(text);
		return EXIT_INPUT;
	}
	free(text);
	if (cli->verbose)
		fprintf(stderr, "spacec: enumerator built with %s in %.3f s\n", h.backend, h.compile_seconds);
	int max = 8 + 2 * (cli->nbindings + cli->ndisabled);
	char **args = calloc((size_t)max + 1, sizeof(char *));
	int k = 0;
	args[k++] = (char *)argv0;
	args[k++] = (char *)cli->command;
	if (!strcmp(cli->command, "list")) {
		args[k++] = "--format";
		args[k++] = (char *)cli->format;
	}
	for (int i = 0; i < cli->nbindings; i++) {
		args[k++] = "--set";
		args[k++] = cli->binding_text[i];
	}
	for (int i = 0; i < cli->ndisabled; i++) {
		args[k++] = "--disable";
		args[k++] = (char *)cli->disabled[i];
	}
	if (cli->no_soft)
		args[k++] = "--no-soft";
	if (cli->device_profile) {
		args[k++] = "--device-profile";
		args[k++] = (char *)cli->device_profile;
	}
	optind = 0; /* the runtime parses its arguments afresh */
	int rc = sprt_main(h.space, k, args);
	free(args);
	jit_unload(&h);
	return rc;
}

static const char *intern_cb(void *ctx, const char *s, size_t n)
{
	return ast_intern(ctx, s, n);
}

int main(int argc, char **argv)
{
	struct cli cli;
	memset(&cli, 0, sizeof(cli));
	int rc = parse_args(&cli, argc, argv);
	if (rc >= 0)
		return rc;
	static const char *const commands[] = { "check", "count", "list", "stats", "emit", "dot", "dump", NULL };
	bool known = false;
	for (int i = 0; commands[i]; i++)
		known |= !strcmp(commands[i], cli.command);
	if (!known) {
		fprintf(stderr, "spacec: error: unknown command '%s'\n", cli.command);
		usage(stderr);
		return EXIT_USAGE;
	}

	size_t len;
	char *src = parse_read_file(cli.file, &len);
	if (!src) {
		fprintf(stderr, "spacec: error: cannot read '%s': %s\n", cli.file, strerror(errno));
		return EXIT_INPUT;
	}
	struct diag diag;
	diag_init(&diag, cli.file, src, len, stderr);
	diag.werror = cli.werror;
	diag.no_warnings = cli.no_warnings;
	diag.disabled_warnings = cli.disabled_warnings;
	struct ast_module mod;
	ast_module_init(&mod, cli.file);
	int errors = parse_source(&mod, &diag, src, len);
	char *src_copy = src;
	rc = EXIT_OK;
	if (!strcmp(cli.command, "dump")) {
		ast_dump(&mod, stdout);
		rc = errors ? EXIT_INPUT : EXIT_OK;
		goto out;
	}
	struct sema_program prog;
	if (!errors)
		errors = sema_analyze(&mod, &diag, &prog);
	if (errors || diag.errors) {
		rc = EXIT_INPUT;
		goto out;
	}
	if (!strcmp(cli.command, "check"))
		goto out;
	if (!strcmp(cli.command, "dot")) {
		struct dag g;
		dag_build(&g, &prog);
		dag_write_dot(&g, stdout);
		dag_release(&g);
		goto flush;
	}
	if (!strcmp(cli.command, "emit")) {
		rc = emit_file(&cli, &prog, &diag, src_copy, len);
		goto out;
	}
	if (!cli.interpret) {
		rc = run_compiled(&cli, &prog, &diag, src_copy, len, argv[0]);
		goto out;
	}
	if (cli.device_profile) {
		fprintf(stderr, "spacec: error: --device-profile is not supported with --interpret yet\n");
		rc = EXIT_USAGE;
		goto out;
	}

	struct interp_binding *bindings = calloc((size_t)cli.nbindings + 1, sizeof(*bindings));
	for (int i = 0; i < cli.nbindings; i++) {
		char *eq = strchr(cli.binding_text[i], '=');
		bindings[i].name = ast_intern(&mod, cli.binding_text[i], (size_t)(eq - cli.binding_text[i]));
		bindings[i].value = value_parse(eq + 1, intern_cb, &mod);
	}
	struct interp_options opt = {
		.no_soft = cli.no_soft,
		.nbindings = cli.nbindings,
		.bindings = bindings,
		.ndisabled = cli.ndisabled,
		.disabled = cli.disabled,
	};
	for (int i = 0; i < cli.ndisabled; i++) {
		struct sema_def *d = sema_lookup(&prog, cli.disabled[i]);
		if (!d || d->kind != SEMA_CONSTRAINT) {
			fprintf(stderr, "spacec: error: --disable '%s': no constraint of that name\n", cli.disabled[i]);
			rc = EXIT_USAGE;
			free(bindings);
			goto out;
		}
	}
	struct interp_result res;
	struct list_sink sink = { &prog, !strcmp(cli.format, "jsonl"), stdout };
	bool listing = !strcmp(cli.command, "list");
	if (listing && !sink.json) {
		for (int i = 0; i < prog.niters; i++)
			printf("%s%s", i ? "," : "", prog.iters[i]->name);
		putchar('\n');
	}
	double t0 = now();
	int r = interp_run(&prog, &opt, listing ? list_point : NULL, &sink, &res, &diag);
	double t1 = now();
	free(bindings);
	if (r < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (!strcmp(cli.command, "count"))
		printf("%llu\n", (unsigned long long)res.valid);
	else if (!strcmp(cli.command, "stats"))
		print_stats(&prog, &res, t1 - t0, cli.no_soft);
	interp_result_release(&res);
flush:
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "spacec: error: writing the output failed: %s\n", strerror(errno));
		rc = EXIT_INPUT;
	}
out:
	free(src_copy);
	ast_module_release(&mod);
	diag_release(&diag);
	free(cli.binding_text);
	free(cli.disabled);
	free(cli.disabled_warnings);
	return rc;
}
