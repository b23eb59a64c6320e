/*
 * driver.c - sprt_main: the command line of a compiled enumerator, and
 * sprt_command_run: the same commands as data (spacec calls it directly).
 *
 *   ENUMERATOR count|list|stats [options]
 *   ENUMERATOR sample -n K [--seed S] [--replace] [options]
 *   ENUMERATOR unrank INDEX... | rank POINT... [options]
 *
 * Exit status: 0 success, 1 error (bad profile, failed write, fatal
 * enumeration error), 2 usage error.  Listing to --output FILE writes a
 * temporary file beside FILE and renames it into place, so FILE is either
 * the old one or complete.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "spacert.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#ifndef SPRT_VERSION
#define SPRT_VERSION "0.1.0"
#endif

/* sample_n before -n is given (parse_count never reads a count this big). */
#define SAMPLE_N_UNSET UINT64_MAX

/* sprt_main's argv as a command, and the storage the command points into. */
struct argv_command {
	struct sprt_command c;
	struct sprt_bindings sets;
	int ndisable, nargs;
	const char **disable;
	const char **args;
};

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void usage(const struct sprt_space *sp, const char *prog, FILE *f)
{
	fprintf(f, "usage: %s count|list|stats [options]\n", prog);
	fprintf(f, "       %s sample -n K [--seed S] [--replace] | unrank INDEX... | rank POINT... [options]\n",
		prog);
	if (sp->doc && *sp->doc) {
		const char *nl = strchr(sp->doc, '\n');
		fprintf(f, "%.*s\n", nl ? (int)(nl - sp->doc) : (int)strlen(sp->doc), sp->doc);
	}
	fputs("\ncommands:\n"
	      "  count                    print the number of valid points\n"
	      "  list                     write the valid points\n"
	      "  stats                    print per-definition statistics\n"
	      "  sample -n K              K valid points drawn uniformly, distinct unless\n"
	      "                           --replace (--seed S, default 0), in list's format\n"
	      "  unrank INDEX...          the point at each index of the single-thread order\n"
	      "  rank POINT...            the index of each point, a CSV row as list writes\n"
	      "                           it (values in column order)\n"
	      "\noptions:\n"
	      "  --format csv|jsonl|binary  format of 'list' (default csv)\n"
	      "  -o, --output FILE        write to FILE (atomically) instead of stdout\n"
	      "  --set NAME=VALUE         bind a device parameter or setting (repeatable)\n"
	      "  --device-profile FILE    bind device parameters from a flat JSON object\n"
	      "  --no-soft                drop soft constraints\n"
	      "  -w, --no-warnings        no warning (e.g. that a definition always failed)\n"
	      "  --disable NAME           drop a constraint (repeatable)\n"
	      "  --threads N              worker threads (default: the online CPUs)\n"
	      "  --ordered                list in the single-thread order\n"
	      "  -v, --verbose            print the enumeration time on stderr (also --timing)\n"
	      "  --progress, --no-progress\n"
	      "                           a progress line with an ETA on stderr (default:\n"
	      "                           when stderr is a terminal and CI is not set)\n"
	      "  --shard I/N              only part I of N (0 <= I < N), balanced by work\n"
	      "  --help                   show this help\n"
	      "  --version                show the version\n",
	      f);
	if (sp->nbindables) {
		fputs("\nbindable (--set, --device-profile):\n", f);
		for (int i = 0; i < sp->nbindables; i++) {
			const struct sprt_bindable_desc *b = &sp->bindables[i];
			fprintf(f, "  %-24s %s, default %s\n", b->name, b->is_setting ? "setting" : "device",
				b->default_text ? b->default_text : "(none)");
		}
	}
	bool any = false;
	for (int i = 0; i < sp->ndefs; i++) {
		if (sp->defs[i].kind != SPRT_DEF_CONSTRAINT)
			continue;
		if (!any)
			fputs("\nconstraints (--disable):\n", f);
		any = true;
		static const char *const cls[] = { "hard", "soft", "correct" };
		fprintf(f, "  %-24s %s%s, line %d\n", sp->defs[i].name, sp->defs[i].require ? "require " : "",
			(unsigned)sp->defs[i].cls < 3 ? cls[sp->defs[i].cls] : "?", sp->defs[i].line);
	}
}

enum sprt_command_kind sprt_command_kind_of(const char *name)
{
	/* ORDER: enum sprt_command_kind, from SPRT_CMD_COUNT */
	static const char *const names[] = { "count", "list", "stats", "sample", "rank", "unrank" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i]))
			return (enum sprt_command_kind)(SPRT_CMD_COUNT + i);
	return SPRT_CMD_NONE;
}

static int usage_error(const struct sprt_command *o, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: error: ", o->prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", o->prog);
	return 2;
}

/* Takes the value of --opt VALUE or --opt=VALUE; NULL if missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static bool opt_is(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, name, n) && (arg[n] == 0 || arg[n] == '=');
}

/* A decimal number without sign, blanks or excess (at most `max`). */
static bool parse_count(const char *s, const char **end, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9') {
		x = x * 10 + (uint64_t)(*p - '0');
		if (x > max)
			return false;
		p++;
	}
	*end = p;
	*out = x;
	return p != s;
}

int sprt_parse_threads(const char *v, int *threads)
{
	const char *end;
	uint64_t n;
	if (!parse_count(v, &end, 1024, &n) || *end || n < 1)
		return -1;
	*threads = (int)n;
	return 0;
}

/* "I/N", 0 <= I < N: the shard (0-based, as Slurm's array indices). */
int sprt_parse_shard(const char *v, uint64_t *index, uint64_t *count)
{
	const char *end;
	if (!parse_count(v, &end, UINT64_C(1) << 20, index) || *end != '/')
		return -1;
	if (!parse_count(end + 1, &end, UINT64_C(1) << 20, count) || *end || *index >= *count)
		return -1;
	return 0;
}

int sprt_parse_count(const char *v, uint64_t *out)
{
	const char *end;
	return parse_count(v, &end, UINT64_MAX / 16, out) && !*end ? 0 : -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(const struct sprt_space *sp, struct argv_command *ac, int argc, char **argv)
{
	struct sprt_command *o = &ac->c;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(sp, o->prog, stdout);
			return fflush(stdout) || ferror(stdout) ? 1 : 0;
		} else if (!strcmp(a, "--version")) {
			printf("%s (spacert %s, ABI %d)\n", sp->name ? sp->name : o->prog, SPRT_VERSION,
			       SPRT_ABI_VERSION);
			return fflush(stdout) || ferror(stdout) ? 1 : 0;
		} else if (opt_is(a, "--format")) {
			if (!(v = opt_value(argc, argv, &i, "--format")))
				return usage_error(o, "option '%s' needs a value", "--format");
			if (!strcmp(v, "csv"))
				o->fmt = SPRT_FMT_CSV;
			else if (!strcmp(v, "jsonl"))
				o->fmt = SPRT_FMT_JSONL;
			else if (!strcmp(v, "binary"))
				o->fmt = SPRT_FMT_BINARY;
			else
				return usage_error(o, "unknown format '%s' (csv, jsonl or binary)", v);
		} else if (opt_is(a, "--output") || !strcmp(a, "-o")) {
			if (!(v = opt_value(argc, argv, &i, a[1] == 'o' ? "-o" : "--output")) || !*v)
				return usage_error(o, "option '%s' needs a value", "--output");
			o->output = v;
		} else if (opt_is(a, "--set")) {
			if (!(v = opt_value(argc, argv, &i, "--set")))
				return usage_error(o, "option '%s' needs a value", "--set");
			char why[256];
			int e = sprt_bindings_set_arg(&ac->sets, v, why, sizeof why);
			if (e == SPRT_ENOMEM) {
				fprintf(stderr, "%s: error: out of memory\n", o->prog);
				return 1;
			}
			if (e)
				return usage_error(o, "%s", why);
		} else if (opt_is(a, "--device-profile")) {
			if (!(v = opt_value(argc, argv, &i, "--device-profile")) || !*v)
				return usage_error(o, "option '%s' needs a value", "--device-profile");
			o->profile = v;
		} else if (!strcmp(a, "--no-soft")) {
			o->no_soft = true;
		} else if (!strcmp(a, "-w") || !strcmp(a, "--no-warnings")) {
			o->no_warnings = true;
		} else if (opt_is(a, "--disable")) {
			if (!(v = opt_value(argc, argv, &i, "--disable")))
				return usage_error(o, "option '%s' needs a value", "--disable");
			ac->disable[ac->ndisable++] = v;
		} else if (opt_is(a, "--threads")) {
			if (!(v = opt_value(argc, argv, &i, "--threads")))
				return usage_error(o, "option '%s' needs a value", "--threads");
			if (sprt_parse_threads(v, &o->run.threads))
				return usage_error(o, "--threads needs a number from 1 to 1024, not '%s'", v);
		} else if (!strcmp(a, "--timing") || !strcmp(a, "--verbose") || !strcmp(a, "-v")) {
			o->timing = true;
		} else if (!strcmp(a, "--progress") || !strcmp(a, "--no-progress")) {
			o->progress = a[2] == 'p';
		} else if (!strcmp(a, "--ordered")) {
			o->run.ordered = true;
		} else if (opt_is(a, "--shard")) {
			if (!(v = opt_value(argc, argv, &i, "--shard")))
				return usage_error(o, "option '%s' needs a value", "--shard");
			if (sprt_parse_shard(v, &o->run.shard_index, &o->run.shard_count))
				return usage_error(o, "--shard needs I/N with 0 <= I < N <= 1048576, not '%s'", v);
		} else if (!strcmp(a, "-n") || opt_is(a, "--count")) {
			if (!(v = opt_value(argc, argv, &i, a[1] == 'n' ? "-n" : "--count")))
				return usage_error(o, "option '%s' needs a value", "-n");
			if (sprt_parse_count(v, &o->sample_n))
				return usage_error(o, "-n needs a count of points, not '%s'", v);
		} else if (opt_is(a, "--seed")) {
			if (!(v = opt_value(argc, argv, &i, "--seed")) || sprt_parse_count(v, &o->seed))
				return usage_error(o, "--seed needs a number, not '%s'", v ? v : "");
		} else if (!strcmp(a, "--replace")) {
			o->replace = true;
		} else if ((o->cmd == SPRT_CMD_RANK || o->cmd == SPRT_CMD_UNRANK) && (a[0] != '-' || (a[1] >= '0' && a[1] <= '9'))) {
			ac->args[ac->nargs++] = a;
		} else if (a[0] == '-' && a[1]) {
			return usage_error(o, "unknown option '%s'", a);
		} else if (o->cmd != SPRT_CMD_NONE) {
			return usage_error(o, "unexpected argument '%s'", a);
		} else if ((o->cmd = sprt_command_kind_of(a)) == SPRT_CMD_NONE) {
			return usage_error(o, "unknown command '%s' (count, list, stats, sample, rank or unrank)", a);
		}
	}
	if (o->cmd == SPRT_CMD_NONE)
		return usage_error(o, "%s", "no command given (count, list, stats, sample, rank or unrank)");
	o->sets = &ac->sets;
	o->ndisable = ac->ndisable;
	o->disable = ac->disable;
	o->nargs = ac->nargs;
	o->args = ac->args;
	return -1;
}

/* What a command's options must agree on; -1 to go on, else the exit status. */
static int check_command(const struct sprt_command *o)
{
	if (o->cmd == SPRT_CMD_NONE)
		return usage_error(o, "%s", "no command given (count, list, stats, sample, rank or unrank)");
	if (o->cmd == SPRT_CMD_SAMPLE && o->sample_n == SAMPLE_N_UNSET)
		return usage_error(o, "%s", "sample needs -n K, the number of points");
	if ((o->cmd == SPRT_CMD_RANK || o->cmd == SPRT_CMD_UNRANK) && o->nargs == 0)
		return usage_error(o, "%s needs at least one argument", o->cmd == SPRT_CMD_RANK ? "rank" : "unrank");
	if (o->cmd >= SPRT_CMD_SAMPLE && o->fmt == SPRT_FMT_BINARY)
		return usage_error(o, "%s", "sample and unrank write csv or jsonl");
	if (o->cmd >= SPRT_CMD_SAMPLE && o->run.shard_count > 1)
		return usage_error(o, "%s", "--shard is for count, list and stats");
	return -1;
}

static int read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			char *nb = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	int err = buf && ferror(f) ? EIO : 0;
	fclose(f);
	if (!buf || err) {
		free(buf);
		errno = err ? err : ENOMEM;
		return -1;
	}
	*text = buf;
	*len = n;
	return 0;
}

/* "name1, name2, ..." of the bindables or of the constraints. */
static void list_names(FILE *f, const struct sprt_space *sp, bool constraints)
{
	bool first = true;
	int n = constraints ? sp->ndefs : sp->nbindables;
	for (int i = 0; i < n; i++) {
		if (constraints && sp->defs[i].kind != SPRT_DEF_CONSTRAINT)
			continue;
		fprintf(f, "%s'%s'", first ? "" : ", ", constraints ? sp->defs[i].name : sp->bindables[i].name);
		first = false;
	}
	if (first)
		fputs("(none)", f);
}

static int setup_bindings(const struct sprt_space *sp, const struct sprt_command *o, struct sprt_bindings *b)
{
	if (o->profile) {
		char *text;
		size_t len;
		if (read_file(o->profile, &text, &len)) {
			fprintf(stderr, "%s: error: cannot read '%s': %s\n", o->prog, o->profile, strerror(errno));
			return 1;
		}
		char err[512];
		int e = sprt_bindings_load_json(b, o->profile, text, len, err, sizeof(err));
		free(text);
		if (e == SPRT_ENOMEM) {
			fprintf(stderr, "%s: error: out of memory\n", o->prog);
			return 1;
		}
		if (e) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
	}
	for (int i = 0; o->sets && i < o->sets->n; i++) {
		const struct sprt_binding *x = &o->sets->v[i];
		int k;
		for (k = 0; k < sp->nbindables; k++)
			if (!strcmp(sp->bindables[k].name, x->name))
				break;
		if (k == sp->nbindables) {
			fprintf(stderr, "%s: error: unknown --set name '%s'; valid names: ", o->prog, x->name);
			list_names(stderr, sp, false);
			fputc('\n', stderr);
			return 2;
		}
		int e = sprt_bindings_set(b, x->name, x->value, x->text);
		if (e) {
			fprintf(stderr, "%s: error: out of memory\n", o->prog);
			return 1;
		}
	}
	/* Every value against its definition's type, --set's and the
	 * profile's alike: a located error at the definition, as spacec's. */
	return sprt_bindings_check(sp, b->v, b->n, o->sets, o->profile, stderr) ? 1 : 0;
}

static int setup_disabled(const struct sprt_space *sp, const struct sprt_command *o, bool *disabled)
{
	for (int i = 0; i < o->ndisable; i++) {
		int k;
		for (k = 0; k < sp->ndefs; k++)
			if (sp->defs[k].kind == SPRT_DEF_CONSTRAINT && !strcmp(sp->defs[k].name, o->disable[i]))
				break;
		if (k == sp->ndefs) {
			fprintf(stderr, "%s: error: unknown constraint '%s'; constraints: ", o->prog, o->disable[i]);
			list_names(stderr, sp, true);
			fputc('\n', stderr);
			return 2;
		}
		disabled[k] = true;
	}
	return 0;
}

/* SIGPIPE's action when sprt_main began (it ignores SIGPIPE while running). */
static bool sigpipe_was_default;

/*
 * A reader that went away (`list | head`) ends us as it ends cat: by
 * SIGPIPE, silently, where that is the signal's action we were given.
 * Returns only where it is not.
 */
static void die_of_closed_pipe(void)
{
	if (!sigpipe_was_default)
		return;
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
}

static const char *err_word(int e)
{
	switch (e) {
	case SPRT_ENOMEM: return "out of memory";
	case SPRT_EOVERFLOW: return "integer overflow";
	case SPRT_EZERODIV: return "division by zero";
	case SPRT_ETYPE: return "type error";
	case SPRT_EVALUE: return "bad value";
	case SPRT_EUNDEF: return "undefined value";
	case SPRT_ESTEPS: return "step limit reached";
	default: return "error";
	}
}

static int run(const struct sprt_command *o, struct sprt_ctx *ctx)
{
	struct sprt_output output;
	FILE *out = sprt_output_open(&output, o->output, o->prog);
	int status = 0;
	if (!out)
		return 1;
	struct sprt_sink *sink = NULL;
	enum sprt_format fmt = o->cmd == SPRT_CMD_LIST ? o->fmt : SPRT_FMT_COUNT;
	if (sprt_sink_open(&sink, ctx, fmt, out)) {
		fprintf(stderr, "%s: error: out of memory\n", o->prog);
		status = 1;
		goto done;
	}
	ctx->progress = o->progress >= 0 ? o->progress : isatty(STDERR_FILENO) && !getenv("CI");
	ctx->no_stats = o->cmd != SPRT_CMD_STATS;
	double t0 = sprt_now_();
	ctx->progress_start = t0;
	int e = sprt_run(ctx, sink, &o->run);
	double elapsed = sprt_now_() - t0;
	sprt_progress_done(ctx);
	if (o->timing)
		fprintf(stderr, "%s: enumerated in %.6f s (%" PRIu64 " valid points)\n", o->prog, elapsed,
			ctx->valid);
	bool write_failed = sprt_sink_failed(sink);
	if (sprt_sink_close(sink) || write_failed) {
		if (errno == EPIPE)
			die_of_closed_pipe();
		fprintf(stderr, "%s: error: writing %s: %s\n", o->prog, o->output ? o->output : "the output",
			errno == EINVAL ? "a value has no encoding in this format" :
			errno == E2BIG ? "a range longer than a list may be has no JSON form (csv writes it as a range)" :
			strerror(errno));
		status = 1;
		goto done;
	}
	if (e < 0 || e > 0) {
		int code = e < 0 ? -e : e;
		fprintf(stderr, "%s: error: enumeration failed: %s\n", o->prog, err_word(code));
		status = 1;
		goto done;
	}
	if (!o->no_warnings)
		sprt_stats_warn_domain(ctx, stderr);
	if (o->cmd == SPRT_CMD_COUNT)
		fprintf(out, "%" PRIu64 "\n", ctx->valid);
	else if (o->cmd == SPRT_CMD_STATS)
		sprt_stats_print(ctx, out, elapsed);
done:
	/* A reader gone: die as it killed us, once the threads have stopped. */
	if (!status && (fflush(out) || ferror(out)) && errno == EPIPE)
		die_of_closed_pipe();
	return sprt_output_close(&output, status);
}

/*
 * One field of a CSV row as a value of column `col`: strings by their
 * text (an id of ctx's, or *absent where no point can hold the text),
 * everything else as --set reads it (int, float, True/False).
 */
static void parse_field(struct sprt_ctx *ctx, int col, const char *text, sprt_val *out, bool *absent)
{
	const struct sprt_space *sp = ctx->space;
	const char *t;
	size_t n;
	sprt_parse_value_(text, out, &t, &n);
	if (sp->params[col].type == SPRT_STR || (out->kind == SPRT_STR && sp->params[col].type == SPRT_UNDEF)) {
		int64_t total = sp->strings.n + ctx->nextra_strings;
		for (int64_t id = 0; id < total; id++) {
			if (!strcmp(sprt_str_text(ctx, id), text)) {
				*out = sprt_str(id);
				return;
			}
		}
		*absent = true;
	}
}

/* Splits a CSV row (quotes as list writes them) into ncols fields of *row;
 * -1 if it has another number of fields. */
static int split_row(char *row, char **fields, int ncols)
{
	int k = 0;
	char *p = row;
	for (;;) {
		if (k == ncols)
			return -1;
		char *w = p;
		fields[k++] = w;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			if (*p && *p != ',')
				return -1;
		} else {
			while (*p && *p != ',')
				*w++ = *p++;
		}
		char c = *p;
		*w = 0;
		if (!c)
			break;
		p++;
	}
	return k == ncols ? 0 : -1;
}

/* sample, rank and unrank: random access (access.c) on ctx. */
static int run_access(const struct sprt_space *sp, const struct sprt_command *o, struct sprt_ctx *ctx)
{
	struct sprt_output output;
	FILE *out = sprt_output_open(&output, o->output, o->prog);
	if (!out)
		return 1;
	int status = 0, e = 0;
	struct sprt_sink *sink = NULL;
	struct sprt_access *acc = NULL;
	uint64_t *idx = NULL;
	sprt_val *point = calloc((size_t)sp->nparams + 1, sizeof(sprt_val));
	char **fields = calloc((size_t)sp->nparams + 1, sizeof(char *));
	enum sprt_format fmt = o->cmd == SPRT_CMD_RANK ? SPRT_FMT_COUNT : o->fmt;
	if (!point || !fields || sprt_sink_open(&sink, ctx, fmt, out) || sprt_access_open(&acc, ctx)) {
		fprintf(stderr, "%s: error: out of memory\n", o->prog);
		status = 1;
		goto done;
	}
	double t0 = sprt_now_();
	uint64_t n = 0;
	if ((e = sprt_access_size(acc, &n)))
		goto failed;
	if (o->cmd == SPRT_CMD_SAMPLE) {
		if (!o->replace && o->sample_n > n) {
			fprintf(stderr, "%s: error: -n %" PRIu64 " distinct points asked for, the space has %" PRIu64
				" (--replace draws with replacement)\n", o->prog, o->sample_n, n);
			status = 1;
			goto done;
		}
		if (o->sample_n && n == 0) {
			fprintf(stderr, "%s: error: the space has no point to sample\n", o->prog);
			status = 1;
			goto done;
		}
		idx = malloc((size_t)(o->sample_n ? o->sample_n : 1) * sizeof(uint64_t));
		if (!idx) {
			fprintf(stderr, "%s: error: out of memory\n", o->prog);
			status = 1;
			goto done;
		}
		sprt_sample_indices(o->seed, n, o->sample_n, o->replace, idx);
		for (uint64_t i = 0; i < o->sample_n && !sprt_sink_failed(sink); i++) {
			if ((e = sprt_access_unrank(acc, idx[i], point)))
				goto failed;
			ctx->emit(ctx->emit_user, point, sp->nparams);
		}
	} else if (o->cmd == SPRT_CMD_UNRANK) {
		for (int i = 0; i < o->nargs && !sprt_sink_failed(sink); i++) {
			const char *end;
			uint64_t k;
			if (!parse_count(o->args[i], &end, UINT64_MAX, &k) || *end || k >= n) {
				fprintf(stderr, "%s: error: unrank: '%s' is not an index from 0 to %" PRIu64 "\n", o->prog,
					o->args[i], n ? n - 1 : 0);
				status = 1;
				goto done;
			}
			if ((e = sprt_access_unrank(acc, k, point)))
				goto failed;
			ctx->emit(ctx->emit_user, point, sp->nparams);
		}
	} else {
		for (int i = 0; i < o->nargs; i++) {
			char *row = strdup(o->args[i]);
			bool absent = false;
			if (!row || split_row(row, fields, sp->nparams)) {
				fprintf(stderr, "%s: error: rank: '%s' is not a CSV row of %d values (the columns of "
					"list)\n", o->prog, o->args[i], sp->nparams);
				free(row);
				status = 1;
				goto done;
			}
			for (int c = 0; c < sp->nparams; c++)
				parse_field(ctx, c, fields[c], &point[c], &absent);
			free(row);
			uint64_t k = 0;
			bool found = false;
			if (!absent && (e = sprt_access_rank(acc, point, &k, &found)))
				goto failed;
			if (!found) {
				fprintf(stderr, "%s: error: rank: '%s' is not a point of the space\n", o->prog,
					o->args[i]);
				status = 1;
				goto done;
			}
			fprintf(out, "%" PRIu64 "\n", k);
		}
	}
	if (o->timing)
		fprintf(stderr, "%s: %s in %.6f s (%" PRIu64 " valid points)\n", o->prog,
			o->cmd == SPRT_CMD_SAMPLE ? "sampled" : o->cmd == SPRT_CMD_RANK ? "ranked" : "unranked",
			sprt_now_() - t0, n);
	goto done;
failed:
	fprintf(stderr, "%s: error: %s failed: %s\n", o->prog,
		o->cmd == SPRT_CMD_SAMPLE ? "sampling" : o->cmd == SPRT_CMD_RANK ? "ranking" : "unranking",
		e == SPRT_ETYPE ? "a point holds a list, which random access cannot return" :
		err_word(e < 0 ? -e : e));
	status = 1;
done:
	sprt_access_free(acc);
	free(idx);
	free(point);
	free(fields);
	if (sink) {
		bool write_failed = sprt_sink_failed(sink);
		if ((sprt_sink_close(sink) || write_failed) && !status) {
			if (errno == EPIPE)
				die_of_closed_pipe();
			fprintf(stderr, "%s: error: writing %s: %s\n", o->prog, o->output ? o->output : "the output",
				strerror(errno));
			status = 1;
		}
	}
	if (!status && (fflush(out) || ferror(out)) && errno == EPIPE)
		die_of_closed_pipe();
	return sprt_output_close(&output, status);
}

void sprt_command_init(struct sprt_command *c, const char *prog)
{
	memset(c, 0, sizeof *c);
	c->prog = prog;
	c->progress = -1;
	c->fmt = SPRT_FMT_CSV;
	c->run.threads = sprt_default_threads();
	c->sample_n = SAMPLE_N_UNSET;
}

int sprt_command_run(const struct sprt_space *space, const struct sprt_command *c)
{
	if (space->abi_version != SPRT_ABI_VERSION) {
		fprintf(stderr, "%s: error: enumerator built for runtime ABI %d, this runtime is ABI %d\n", c->prog,
			space->abi_version, SPRT_ABI_VERSION);
		return 1;
	}
	int status = check_command(c);
	if (status >= 0)
		return status;
	/* A closed pipe is seen as EPIPE, after the threads have stopped and
	 * the files are cleaned up (die_of_closed_pipe). */
	void (*sigpipe_action)(int) = signal(SIGPIPE, SIG_IGN);
	sigpipe_was_default = sigpipe_action == SIG_DFL;
	bool *disabled = calloc((size_t)space->ndefs + 1, sizeof(*disabled));
	struct sprt_bindings b = { 0 };
	struct sprt_ctx ctx;
	bool ctx_ok = false;
	if (!disabled) {
		fprintf(stderr, "%s: error: out of memory\n", c->prog);
		status = 1;
		goto out;
	}
	if ((status = setup_disabled(space, c, disabled)) || (status = setup_bindings(space, c, &b)))
		goto out;
	if (sprt_ctx_init(&ctx, space)) {
		fprintf(stderr, "%s: error: out of memory\n", c->prog);
		status = 1;
		goto out;
	}
	ctx_ok = true;
	ctx.bindings = b.v;
	ctx.nbindings = b.n;
	ctx.no_soft = c->no_soft;
	ctx.disabled = disabled;
	status = c->cmd >= SPRT_CMD_SAMPLE ? run_access(space, c, &ctx) : run(c, &ctx);
out:
	if (ctx_ok)
		sprt_ctx_release(&ctx);
	sprt_bindings_release(&b);
	free(disabled);
	if (sigpipe_action != SIG_ERR)
		signal(SIGPIPE, sigpipe_action);
	return status;
}

int sprt_main(const struct sprt_space *space, int argc, char **argv)
{
	struct argv_command a = { 0 };
	sprt_command_init(&a.c, argc > 0 && argv[0] ? basename_of(argv[0]) : "enumerator");
	a.disable = calloc((size_t)argc + 1, sizeof(*a.disable));
	a.args = calloc((size_t)argc + 1, sizeof(*a.args));
	int status;
	if (!a.disable || !a.args) {
		fprintf(stderr, "%s: error: out of memory\n", a.c.prog);
		status = 1;
	} else if ((status = parse_args(space, &a, argc, argv)) < 0) {
		status = sprt_command_run(space, &a.c);
	}
	sprt_bindings_release(&a.sets);
	free(a.disable);
	free(a.args);
	return status;
}
