/*
 * batch.c - the batch file (see batch.h and docs/TUNING.md).
 *
 * A line format rather than JSON: every error can then point at the
 * exact word (json-c reports no positions for values), and a batch of
 * shapes reads like the command lines it replaces.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lang/diag.h"
#include "spacert.h"
#include "tuner/batch.h"
#include "tuner/best.h"
#include "tuner/db.h"
#include "tuner/device.h"
#include "tuner/job.h"
#include "tuner/run.h"
#include "tools/progress.h"

/* What a scope (the top of the file, or one problem) sets. */
struct set_line {
	char *name;
	int nvalues;
	char **values;
};

struct scope {
	int line;                 /* of the `problem` line; 0 for the defaults */
	char *space;              /* as written */
	int space_col;
	int nsets;
	struct set_line *sets;
	const char *strategy;     /* NULL: inherit */
	char *objective;          /* NULL: inherit */
	bool has_budget, has_seed;
	struct tune_budget budget;
	uint64_t seed;
};

struct parser {
	struct diag diag;
	const char *line;         /* the current line, NUL-terminated copy */
	int lineno;
	const char *p;            /* cursor in line */
	struct scope defaults;
	struct scope *problems;
	int nproblems;
	char **devices;
	int ndevices;
	int problems_cap;         /* of the batch's expanded problems */
	bool oom;
};

static void *xrealloc_or_flag(struct parser *ps, void *ptr, size_t n)
{
	void *q = realloc(ptr, n ? n : 1);
	if (!q)
		ps->oom = true;
	return q;
}

static char *dup_range(struct parser *ps, const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d) {
		ps->oom = true;
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static int col_of(const struct parser *ps, const char *at)
{
	return (int)(at - ps->line) + 1;
}

static void error_at(struct parser *ps, const char *from, const char *to, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void error_at(struct parser *ps, const char *from, const char *to, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (to <= from)
		to = from + 1;
	struct srcloc loc = { ps->lineno, col_of(ps, from), ps->lineno, col_of(ps, to) };
	diag_error(&ps->diag, loc, "%s", msg);
}

static void skip_blanks(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static bool at_end(struct parser *ps)
{
	skip_blanks(ps);
	return *ps->p == '\0' || *ps->p == '#';
}

/* A bare word: anything up to a blank, a comma or a comment. */
static const char *word_end(const char *s)
{
	while (*s && *s != ' ' && *s != '\t' && *s != ',' && *s != '#')
		s++;
	return s;
}

/*
 * One value: a double-quoted string (kept with its quotes, as --set reads
 * it; \" and \\ inside) or a bare word.  Returns it, or NULL after an error.
 */
static char *value(struct parser *ps, const char *what)
{
	skip_blanks(ps);
	const char *start = ps->p;
	if (*start == '"') {
		const char *s = start + 1;
		while (*s && *s != '"') {
			if (*s == '\\' && s[1])
				s++;
			s++;
		}
		if (*s != '"') {
			error_at(ps, start, s, "unterminated string");
			return NULL;
		}
		ps->p = s + 1;
		return dup_range(ps, start, (size_t)(ps->p - start));
	}
	const char *end = word_end(start);
	if (end == start) {
		error_at(ps, start, start, "expected %s", what);
		return NULL;
	}
	ps->p = end;
	return dup_range(ps, start, (size_t)(end - start));
}

static bool expect_end(struct parser *ps)
{
	if (at_end(ps))
		return true;
	error_at(ps, ps->p, word_end(ps->p), "unexpected text after the value");
	return false;
}

static struct scope *current(struct parser *ps)
{
	return ps->nproblems ? &ps->problems[ps->nproblems - 1] : &ps->defaults;
}

/* The value as --set would take NAME=VALUE (the runtime's one rule):
 * false after a located error. */
static bool set_value_ok(struct parser *ps, const char *name, const char *v, const char *at)
{
	size_t n = strlen(name) + strlen(v) + 2;
	char *arg = malloc(n);
	char why[256];
	if (!arg) {
		error_at(ps, at, ps->p, "out of memory");
		return false;
	}
	snprintf(arg, n, "%s=%s", name, v);
	int rc = sprt_set_check(arg, NULL, why, sizeof why);
	free(arg);
	if (rc)
		error_at(ps, at, ps->p, "%s", why);
	return rc == 0;
}

/* value(), and where it starts: a bad one gets a caret under itself. */
static char *value_at(struct parser *ps, const char *what, const char **start)
{
	skip_blanks(ps);
	*start = ps->p;
	return value(ps, what);
}

/*
 * Whether a scope's setting, its value already checked, may be stored: it
 * was not given before in this scope (the file's defaults or one problem)
 * and nothing follows it on the line.  Says what is wrong otherwise.
 */
static bool may_set(struct parser *ps, const char *kw, const char *name, bool given)
{
	if (given) {
		error_at(ps, kw, kw + strlen(name), "'%s' given twice %s", name,
		         current(ps)->line ? "in this problem" : "before the first problem");
		return false;
	}
	return expect_end(ps);
}

static void parse_set(struct parser *ps)
{
	skip_blanks(ps);
	const char *name = ps->p;
	const char *name_end = name;
	while (isalnum((unsigned char)*name_end) || *name_end == '_')
		name_end++;
	if (name_end == name || isdigit((unsigned char)*name)) {
		error_at(ps, name, word_end(name), "expected a setting's name after 'set'");
		return;
	}
	struct scope *sc = current(ps);
	for (int i = 0; i < sc->nsets; i++)
		if (strlen(sc->sets[i].name) == (size_t)(name_end - name) &&
		    memcmp(sc->sets[i].name, name, (size_t)(name_end - name)) == 0) {
			error_at(ps, name, name_end, "'%s' is set twice %s", sc->sets[i].name,
			         sc->line ? "in this problem" : "before the first problem");
			return;
		}
	ps->p = name_end;
	skip_blanks(ps);
	if (*ps->p != '=') {
		error_at(ps, ps->p, ps->p, "expected '=' after the setting's name");
		return;
	}
	ps->p++;
	struct set_line s = { dup_range(ps, name, (size_t)(name_end - name)), 0, NULL };
	for (;;) {
		skip_blanks(ps);
		const char *at = ps->p;
		char *v = value(ps, "a value");
		if (!v)
			goto fail;
		if (!set_value_ok(ps, s.name, v, at)) {
			free(v);
			goto fail;
		}
		char **nv = xrealloc_or_flag(ps, s.values, (size_t)(s.nvalues + 1) * sizeof *nv);
		if (!nv) {
			free(v);
			goto fail;
		}
		s.values = nv;
		s.values[s.nvalues++] = v;
		skip_blanks(ps);
		if (*ps->p != ',')
			break;
		ps->p++;
	}
	if (!expect_end(ps))
		goto fail;
	struct set_line *ns = xrealloc_or_flag(ps, sc->sets, (size_t)(sc->nsets + 1) * sizeof *ns);
	if (!ns)
		goto fail;
	sc->sets = ns;
	sc->sets[sc->nsets++] = s;
	return;
fail:
	for (int i = 0; i < s.nvalues; i++)
		free(s.values[i]);
	free(s.values);
	free(s.name);
}

/*
 * The settings a scope holds once (strategy, objective, budget, seed): each
 * checks its value `text` (which starts at `start`), stores it if may_set()
 * allows, and returns whether the scope kept `text` itself.
 */
typedef bool setting_fn(struct parser *ps, const char *kw, const char *start, char *text,
                        struct scope *sc);

static bool set_strategy(struct parser *ps, const char *kw, const char *start, char *name,
                         struct scope *sc)
{
	const char *known = strcmp(name, "auto") == 0 ? "auto" : NULL;  /* resolved by tune_run */
	for (const char *const *n = tune_strategy_names; *n; n++)
		if (strcmp(*n, name) == 0)
			known = *n;
	if (!known) {
		char list[256] = "";
		for (const char *const *n = tune_strategy_names; *n; n++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			         n == tune_strategy_names ? "" : ", ", *n);
		error_at(ps, start, ps->p, "unknown strategy '%s' (known: %s)", name, list);
	} else if (may_set(ps, kw, "strategy", sc->strategy != NULL)) {
		sc->strategy = known;
	}
	return false;
}

static bool set_objective(struct parser *ps, const char *kw, const char *start, char *text,
                          struct scope *sc)
{
	const char *metric;
	bool maximize;
	if (tune_objective_parse(text, &metric, &maximize) != 0 || text[0] == '"')
		error_at(ps, start, ps->p, "bad objective '%s': want time or a metric's name, maybe after min: or max:",
		         text);
	else if (may_set(ps, kw, "objective", sc->objective != NULL)) {
		sc->objective = text;
		return true;
	}
	return false;
}

static bool set_budget(struct parser *ps, const char *kw, const char *start, char *text,
                       struct scope *sc)
{
	struct tune_budget b;
	if (tune_budget_parse(text, &b) != 0)
		error_at(ps, start, ps->p, "bad budget '%s': want N, Ns, Nm, Nh or P%%", text);
	else if (may_set(ps, kw, "budget", sc->has_budget)) {
		sc->budget = b;
		sc->has_budget = true;
	}
	return false;
}

static bool set_seed(struct parser *ps, const char *kw, const char *start, char *text,
                     struct scope *sc)
{
	char *end;
	errno = 0;
	unsigned long long seed = strtoull(text, &end, 10);
	if (end == text || *end || errno || *text == '-')
		error_at(ps, start, ps->p, "bad seed '%s': want a count >= 0", text);
	else if (may_set(ps, kw, "seed", sc->has_seed)) {
		sc->seed = seed;
		sc->has_seed = true;
	}
	return false;
}

static void parse_setting(struct parser *ps, const char *kw, const char *what, setting_fn *set)
{
	const char *start;
	char *text = value_at(ps, what, &start);
	if (text && !set(ps, kw, start, text, current(ps)))
		free(text);
}

static void parse_problem(struct parser *ps)
{
	const char *start;
	char *path = value_at(ps, "the .space file of the problem", &start);
	if (!path)
		return;
	if (!expect_end(ps)) {
		free(path);
		return;
	}
	if (path[0] == '"') {
		/* the quotes only protect blanks and commas; no escapes in paths */
		memmove(path, path + 1, strlen(path));
		path[strlen(path) - 1] = '\0';
	}
	struct scope *np = xrealloc_or_flag(ps, ps->problems, (size_t)(ps->nproblems + 1) * sizeof *np);
	if (!np) {
		free(path);
		return;
	}
	ps->problems = np;
	ps->problems[ps->nproblems++] = (struct scope){ .line = ps->lineno, .space = path,
	                                                .space_col = col_of(ps, start) };
}

static void parse_device(struct parser *ps, const char *kw)
{
	if (ps->nproblems) {
		error_at(ps, kw, kw + 6, "'device' lines go before the first problem (they apply to the whole batch)");
		return;
	}
	for (;;) {
		char *d = value(ps, "a device (an index or a name substring)");
		if (!d)
			return;
		if (d[0] == '"') {
			memmove(d, d + 1, strlen(d));
			d[strlen(d) - 1] = '\0';
		}
		char **nd = xrealloc_or_flag(ps, ps->devices, (size_t)(ps->ndevices + 1) * sizeof *nd);
		if (!nd) {
			free(d);
			return;
		}
		ps->devices = nd;
		ps->devices[ps->ndevices++] = d;
		skip_blanks(ps);
		if (*ps->p != ',')
			break;
		ps->p++;
	}
	expect_end(ps);
}

static const char *const keywords[] = { "problem", "set", "strategy", "budget", "seed", "objective",
                                        "device", NULL };

static void parse_line(struct parser *ps)
{
	if (at_end(ps))
		return;
	const char *kw = ps->p;
	const char *kw_end = kw;
	while (isalpha((unsigned char)*kw_end))
		kw_end++;
	size_t n = (size_t)(kw_end - kw);
	ps->p = kw_end;
	if (n == 7 && memcmp(kw, "problem", 7) == 0)
		return parse_problem(ps);
	if (n == 6 && memcmp(kw, "device", 6) == 0)
		return parse_device(ps, kw);
	if (n == 3 && memcmp(kw, "set", 3) == 0)
		return parse_set(ps);
	if (n == 8 && memcmp(kw, "strategy", 8) == 0)
		return parse_setting(ps, kw, "a strategy's name", set_strategy);
	if (n == 6 && memcmp(kw, "budget", 6) == 0)
		return parse_setting(ps, kw, "a budget", set_budget);
	if (n == 4 && memcmp(kw, "seed", 4) == 0)
		return parse_setting(ps, kw, "a seed", set_seed);
	if (n == 9 && memcmp(kw, "objective", 9) == 0)
		return parse_setting(ps, kw, "an objective", set_objective);
	const char *end = word_end(kw);
	char word[64];
	snprintf(word, sizeof word, "%.*s", (int)(end - kw), kw);
	const char *best = NULL;
	int best_d = 3;
	for (const char *const *k = keywords; *k; k++) {
		int d = diag_edit_distance(word, *k);
		if (d < best_d) {
			best_d = d;
			best = *k;
		}
	}
	if (best)
		error_at(ps, kw, end, "unknown line '%s'; did you mean '%s'?", word, best);
	else
		error_at(ps, kw, end, "unknown line '%s' (want problem, set, strategy, budget, seed, objective or device)",
		         word);
}

/* ---- expansion -------------------------------------------------------------------- */

static void free_scope(struct scope *s)
{
	for (int i = 0; i < s->nsets; i++) {
		for (int j = 0; j < s->sets[i].nvalues; j++)
			free(s->sets[i].values[j]);
		free(s->sets[i].values);
		free(s->sets[i].name);
	}
	free(s->sets);
	free(s->space);
	free(s->objective);
}

/* The set lines in force for a problem: the defaults not overridden, then its own. */
static int merged_sets(const struct parser *ps, const struct scope *pr, const struct set_line **out)
{
	int n = 0;
	for (int i = 0; i < ps->defaults.nsets; i++) {
		bool overridden = false;
		for (int j = 0; j < pr->nsets; j++)
			overridden |= strcmp(pr->sets[j].name, ps->defaults.sets[i].name) == 0;
		if (!overridden)
			out[n++] = &ps->defaults.sets[i];
	}
	for (int j = 0; j < pr->nsets; j++)
		out[n++] = &pr->sets[j];
	return n;
}

static char *resolve(const char *batch_path, const char *space)
{
	const char *slash = strrchr(batch_path, '/');
	size_t dir = space[0] == '/' || !slash ? 0 : (size_t)(slash - batch_path) + 1;
	char *r = malloc(dir + strlen(space) + 1);
	if (r) {
		memcpy(r, batch_path, dir);
		strcpy(r + dir, space);
	}
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "A=1 B=2": the sets sorted by name, as `spacetune run` writes a problem. */
static char *problem_text(char **sets, int n)
{
	char **sorted = calloc((size_t)n + 1, sizeof *sorted);
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(sets[i]) + 1;
	char *text = sorted ? calloc(len, 1) : NULL;
	if (text) {
		memcpy(sorted, sets, (size_t)n * sizeof *sorted);
		qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
		for (int i = 0; i < n; i++) {
			if (i)
				strcat(text, " ");
			strcat(text, sorted[i]);
		}
	}
	free(sorted);
	return text;
}

/* How many problems expand() makes of pr (a double: it may not fit an int); -1: no memory. */
static double combinations(const struct parser *ps, const struct scope *pr)
{
	const struct set_line **sets = calloc((size_t)(ps->defaults.nsets + pr->nsets) + 1, sizeof *sets);
	if (!sets)
		return -1;
	double n = 1;
	for (int i = merged_sets(ps, pr, sets); i-- > 0;)
		n *= sets[i]->nvalues;
	free(sets);
	return n;
}

/* Appends every combination of one problem's sets (the first set varies slowest). */
static int expand(struct parser *ps, const struct scope *pr, struct tune_batch *b)
{
	const struct set_line **sets = calloc((size_t)(ps->defaults.nsets + pr->nsets) + 1, sizeof *sets);
	int nsets = sets ? merged_sets(ps, pr, sets) : 0;
	int *at = calloc((size_t)nsets + 1, sizeof *at);
	if (!sets || !at)
		goto oom;
	for (;;) {
		if (b->nproblems == ps->problems_cap) {
			int cap = ps->problems_cap ? 2 * ps->problems_cap : 16;
			struct tune_batch_problem *np = realloc(b->problems, (size_t)cap * sizeof *np);
			if (!np)
				goto oom;
			b->problems = np;
			ps->problems_cap = cap;
		}
		struct tune_batch_problem *p = &b->problems[b->nproblems++];
		memset(p, 0, sizeof *p);
		p->line = pr->line;
		p->strategy = pr->strategy ? pr->strategy : ps->defaults.strategy ? ps->defaults.strategy
		                                                                  : "exhaustive";
		p->budget = pr->has_budget ? pr->budget : ps->defaults.budget;
		p->seed = pr->has_seed ? pr->seed : ps->defaults.has_seed ? ps->defaults.seed : 1;
		const char *objective = pr->objective ? pr->objective : ps->defaults.objective;
		p->objective = objective ? strdup(objective) : NULL;
		if (objective && !p->objective)
			goto oom;
		p->space_path = resolve(b->path, pr->space);
		p->sets = calloc((size_t)nsets + 1, sizeof *p->sets);
		size_t key_len = strlen(pr->space) + 1;
		for (int i = 0; i < nsets; i++)
			key_len += strlen(sets[i]->name) + strlen(sets[i]->values[at[i]]) + 2;
		p->key = malloc(key_len);
		if (!p->space_path || !p->sets || !p->key)
			goto oom;
		strcpy(p->key, pr->space);
		for (int i = 0; i < nsets; i++) {
			size_t n = strlen(sets[i]->name) + strlen(sets[i]->values[at[i]]) + 2;
			p->sets[i] = malloc(n);
			if (!p->sets[i])
				goto oom;
			p->nsets = i + 1;
			snprintf(p->sets[i], n, "%s=%s", sets[i]->name, sets[i]->values[at[i]]);
			strcat(p->key, " ");
			strcat(p->key, p->sets[i]);
		}
		if (!(p->problem = problem_text(p->sets, p->nsets)))
			goto oom;
		int i = nsets - 1;
		while (i >= 0 && ++at[i] == sets[i]->nvalues)
			at[i--] = 0;
		if (i < 0)
			break;
	}
	free(sets);
	free(at);
	return 0;
oom:
	free(sets);
	free(at);
	return -1;
}

void tune_batch_free(struct tune_batch *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nproblems; i++) {
		struct tune_batch_problem *p = &b->problems[i];
		for (int j = 0; j < p->nsets; j++)
			free(p->sets[j]);
		free(p->sets);
		free(p->space_path);
		free(p->key);
		free(p->problem);
		free(p->objective);
	}
	free(b->problems);
	for (int i = 0; i < b->ndevices; i++)
		free(b->devices[i]);
	free(b->devices);
	free(b->path);
	free(b);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = (cap + 4096) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	int failed = ferror(f);
	fclose(f);
	if (failed) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int tune_batch_load(const char *path, FILE *diag_out, struct tune_batch **out)
{
	*out = NULL;
	size_t len = 0;
	char *text = read_file(path, &len);
	if (!text) {
		fprintf(diag_out, "spacetune: error: cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	struct parser ps = { 0 };
	struct tune_batch *b = NULL;
	diag_init(&ps.diag, path, text, len, diag_out);
	ps.diag.program = "spacetune";
	if (memchr(text, '\0', len)) {
		diag_plain(&ps.diag, DIAG_ERROR, "'%s' holds a NUL byte: not a batch file", path);
		goto done;
	}
	for (char *line = text; line && !ps.oom;) {
		char *nl = strchr(line, '\n');
		if (nl) {
			*nl = '\0';
			if (nl > line && nl[-1] == '\r')
				nl[-1] = '\0';
		}
		ps.lineno++;
		ps.line = ps.p = line;
		parse_line(&ps);
		line = nl ? nl + 1 : NULL;
	}
	if (ps.oom || ps.diag.errors)
		goto done;
	if (ps.nproblems == 0) {
		diag_plain(&ps.diag, DIAG_ERROR, "%s: the batch has no 'problem' line", path);
		goto done;
	}
	/* A space that cannot be read is found now, not hours into the batch. */
	b = calloc(1, sizeof *b);
	if (!b || !(b->path = strdup(path))) {
		ps.oom = true;
		goto done;
	}
	/* A few set lines of many values multiply: refuse a batch too large
	 * to list (1e10 problems would hang here, then exhaust memory). */
	double total = 0;
	for (int i = 0; i < ps.nproblems; i++) {
		double n = combinations(&ps, &ps.problems[i]);
		if (n < 0) {
			ps.oom = true;
			goto done;
		}
		total += n;
		if (total > TUNE_BATCH_MAX_PROBLEMS) {
			struct srcloc loc = { ps.problems[i].line, 1, ps.problems[i].line, 8 };
			diag_error(&ps.diag, loc, "the batch expands to more than %d problems here (this one "
			           "alone, the cross product of its set lines, to %.0f)",
			           TUNE_BATCH_MAX_PROBLEMS, n);
			goto done;
		}
	}
	for (int i = 0; i < ps.nproblems && !ps.oom; i++) {
		char *resolved = resolve(path, ps.problems[i].space);
		if (!resolved) {
			ps.oom = true;
			break;
		}
		if (access(resolved, R_OK) != 0) {
			struct srcloc loc = { ps.problems[i].line, ps.problems[i].space_col, ps.problems[i].line,
			                      ps.problems[i].space_col + (int)strlen(ps.problems[i].space) };
			diag_error(&ps.diag, loc, "cannot read '%s': %s", resolved, strerror(errno));
		}
		free(resolved);
		if (expand(&ps, &ps.problems[i], b) != 0)
			ps.oom = true;
	}
	/* The same problem twice would be tuned twice into one database.
	 * (A table, not all pairs: a batch may hold 10^5 problems.) */
	struct lh_table *keys = ps.oom ? NULL : lh_kchar_table_new(1024, NULL);
	if (!keys && !ps.oom)
		ps.oom = true;
	for (int i = 0; i < b->nproblems && !ps.oom; i++) {
		struct lh_entry *e = lh_table_lookup_entry(keys, b->problems[i].key);
		if (e) {
			int j = (int)(intptr_t)lh_entry_v(e);
			struct srcloc loc = { b->problems[i].line, 1, b->problems[i].line, 8 };
			diag_error(&ps.diag, loc, "the problem '%s' is already in the batch (line %d)",
			           b->problems[i].key, b->problems[j].line);
		} else if (lh_table_insert(keys, b->problems[i].key, (void *)(intptr_t)i) != 0) {
			ps.oom = true;
		}
	}
	if (keys)
		lh_table_free(keys);
	b->devices = ps.devices;
	b->ndevices = ps.ndevices;
	ps.devices = NULL;
	ps.ndevices = 0;
done:;
	int rc = ps.oom ? -1 : ps.diag.errors ? 1 : 0;
	if (ps.oom)
		fprintf(diag_out, "spacetune: error: out of memory reading '%s'\n", path);
	free_scope(&ps.defaults);
	for (int i = 0; i < ps.nproblems; i++)
		free_scope(&ps.problems[i]);
	free(ps.problems);
	for (int i = 0; i < ps.ndevices; i++)
		free(ps.devices[i]);
	free(ps.devices);
	diag_release(&ps.diag);
	free(text);
	if (rc == 0)
		*out = b;
	else
		tune_batch_free(b);
	return rc;
}

/* ---- shards ------------------------------------------------------------------------ */

int tune_batch_default_jobs(int local_workers, bool mpi)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef __linux__
	cpu_set_t mask;
	if (sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) > 0)
		cores = CPU_COUNT(&mask);
#endif
	const char *ranks = mpi ? getenv("OMPI_COMM_WORLD_LOCAL_SIZE") : NULL;
	if (ranks)
		local_workers = atoi(ranks);
	if (local_workers < 1)
		local_workers = 1;
	long jobs = cores / local_workers;
	return jobs > 0 ? (int)jobs : 1;
}

int tune_batch_cost(const struct tune_batch *b, int i, double *cost, FILE *diag)
{
	const struct tune_batch_problem *p = &b->problems[i];
	struct tune_job_opts jo = { .space_path = p->space_path, .nsets = p->nsets,
	                            .sets = (const char *const *)p->sets, .diag = diag };
	struct tune_job *job = NULL;
	*cost = NAN;
	int rc = tune_job_load(&jo, &job);
	if (rc != 0)
		return rc;
	size_t n = tune_job_npoints(job);
	tune_job_free(job);
	*cost = p->budget.kind == TUNE_BUDGET_SECONDS ? p->budget.amount
	                                             : (double)tune_budget_evals(&p->budget, n);
	return 0;
}

int tune_batch_costs(const struct tune_batch *b, double *costs, FILE *diag)
{
	for (int i = 0; i < b->nproblems; i++) {
		int rc = tune_batch_cost(b, i, &costs[i], diag);
		if (rc != 0) {
			fprintf(diag, "%s:%d: note: in the problem '%s'\n", b->path, b->problems[i].line,
			        b->problems[i].key);
			return rc;
		}
	}
	return 0;
}

struct by_cost {
	double cost;
	int index;
};

static int cmp_by_cost(const void *a, const void *b)
{
	const struct by_cost *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->index - y->index;
}

int tune_batch_shard(const struct tune_batch *b, const double *costs, int shard, int nshards,
                     int *out)
{
	struct by_cost *order = calloc((size_t)b->nproblems + 1, sizeof *order);
	double *load = calloc((size_t)nshards, sizeof *load);
	bool *mine = calloc((size_t)b->nproblems + 1, sizeof *mine);
	int n = -1;
	if (order && load && mine) {
		for (int i = 0; i < b->nproblems; i++)
			order[i] = (struct by_cost){ costs[i], i };
		qsort(order, (size_t)b->nproblems, sizeof *order, cmp_by_cost);
		for (int k = 0; k < b->nproblems; k++) {
			int least = 0;
			for (int s = 1; s < nshards; s++)
				if (load[s] < load[least])
					least = s;
			load[least] += order[k].cost;
			mine[order[k].index] = least == shard;
		}
		n = 0;
		for (int i = 0; i < b->nproblems; i++)
			if (mine[i])
				out[n++] = i;
	}
	free(order);
	free(load);
	free(mine);
	return n;
}

/* ---- units ------------------------------------------------------------------------- */

static char *unit_key(const struct tune_batch_problem *p, int chunk, int nchunks)
{
	size_t n = strlen(p->key) + 48;
	char *k = malloc(n);
	if (!k)
		return NULL;
	if (nchunks > 0)
		snprintf(k, n, "%s [chunk %d/%d]", p->key, chunk + 1, nchunks);
	else
		snprintf(k, n, "%s", p->key);
	return k;
}

/* Only these searches' evaluations can be drawn before they run. */
static bool chunkable(const struct tune_batch_problem *p)
{
	return (strcmp(p->strategy, "exhaustive") == 0 || strcmp(p->strategy, "random") == 0) &&
	       p->budget.kind != TUNE_BUDGET_SECONDS;
}

double tune_batch_default_chunk(const struct tune_batch *b, const int *list, int n,
                                const double *costs, int workers)
{
	if (workers < 1 || n >= 4 * workers)
		return 0;
	double total = 0;
	for (int k = 0; k < n; k++) {
		int i = list ? list[k] : k;
		if (chunkable(&b->problems[i]) && isfinite(costs[i]))
			total += costs[i];
	}
	return total > 0 ? fmax(1, ceil(total / (32.0 * workers))) : 0;
}

int tune_batch_units(const struct tune_batch *b, const int *list, int n, const double *costs,
                     double chunk_evals, struct tune_batch_unit **out)
{
	int cap = 16, nu = 0;
	struct tune_batch_unit *u = malloc((size_t)cap * sizeof *u);
	if (!u)
		return -1;
	for (int k = 0; k < n; k++) {
		int i = list ? list[k] : k;
		const struct tune_batch_problem *p = &b->problems[i];
		int nchunks = 0;
		if (costs && chunk_evals > 0 && costs[i] > chunk_evals && chunkable(p))
			nchunks = (int)fmin(ceil(costs[i] / chunk_evals), 10000);
		for (int c = 0; c < (nchunks ? nchunks : 1); c++) {
			if (nu == cap) {
				struct tune_batch_unit *g = realloc(u, (size_t)(cap *= 2) * sizeof *u);
				if (!g)
					goto oom;
				u = g;
			}
			u[nu] = (struct tune_batch_unit){ i, c, nchunks, unit_key(p, c, nchunks) };
			if (!u[nu++].key)
				goto oom;
		}
	}
	*out = u;
	return nu;
oom:
	tune_batch_units_free(u, nu);
	return -1;
}

void tune_batch_units_free(struct tune_batch_unit *u, int n)
{
	for (int i = 0; u && i < n; i++)
		free(u[i].key);
	free(u);
}

/* The files NAME.EXT of dir, sorted (so reports and merges do not depend
 * on the directory's order); NULL-terminated, caller frees each and it. */
static char **files_with(const char *dir, const char *ext)
{
	DIR *d = opendir(dir);
	size_t n = 0, cap = 8, elen = strlen(ext);
	char **v = malloc(cap * sizeof *v);
	if (!v) {
		if (d)
			closedir(d);
		return NULL;
	}
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= elen || strcmp(e->d_name + len - elen, ext) != 0 || e->d_name[0] == '.')
			continue;
		if (n + 1 == cap) {
			char **g = realloc(v, (cap *= 2) * sizeof *v);
			if (!g)
				break;
			v = g;
		}
		size_t plen = strlen(dir) + len + 2;
		if (!(v[n] = malloc(plen)))
			break;
		snprintf(v[n++], plen, "%s/%s", dir, e->d_name);
	}
	v[n] = NULL;
	if (d)
		closedir(d);
	qsort(v, n, sizeof *v, cmp_str);
	return v;
}

static void free_files(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Marks done[u] for each unit whose "KEY\tdone" line is in the file. */
static void read_done(const char *path, const struct tune_batch_unit *u, int n, bool *done)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		/* a line torn by a crash has no newline and does not count */
		if (line[len - 1] != '\n' || len < 7 || strcmp(line + len - 6, "\tdone\n") != 0)
			continue;
		line[len - 6] = '\0';
		for (int i = 0; i < n; i++)
			if (!done[i] && strcmp(u[i].key, line) == 0)
				done[i] = true;
	}
	free(line);
	fclose(f);
}

int tune_batch_finished(const char *db_dir, const struct tune_batch_unit *u, int n, bool *done)
{
	char **files = files_with(db_dir, ".done");
	if (!files)
		return -1;
	int count = 0;
	memset(done, 0, (size_t)n * sizeof *done);
	for (size_t f = 0; files[f]; f++)
		read_done(files[f], u, n, done);
	for (int i = 0; i < n; i++)
		count += done[i];
	free_files(files);
	return count;
}

/* ---- running ------------------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double real_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Appends "KEY\tdone\n" for units[0..n) in one write, fsync'd. */
static int append_done(const char *path, const struct tune_batch_unit *units, int n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	/* After a torn last line (a crash mid-write) start a new one, so the
	 * torn text stays a line of its own that matches no key. */
	struct stat st;
	char last = '\n';
	if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(units[i].key) + 6;
	char *text = malloc(len + 1);
	int rc = -1;
	if (text) {
		size_t k = 0;
		if (last != '\n')
			text[k++] = '\n';
		for (int i = 0; i < n; i++)
			k += (size_t)sprintf(text + k, "%s\tdone\n", units[i].key);
		rc = write(fd, text, k) == (ssize_t)k && fsync(fd) == 0 ? 0 : -1;
		free(text);
	}
	close(fd);
	return rc;
}

struct count_report {
	int fd, unit;
};

/* "prog UNIT DONE PLANNED BEST": a running unit's state, for the display. */
static void report_count(void *user, size_t done, size_t planned, double best)
{
	const struct count_report *c = user;
	char line[128];
	int n = snprintf(line, sizeof line, "prog %d %zu %zu %.17g\n", c->unit, done, planned, best);
	if (write(c->fd, line, (size_t)n) != n) {
		/* the display misses one update */
	}
}

int tune_batch_run_unit(const struct tune_batch *b, const struct tune_batch_unit *units, int unit,
                        int count, const struct tune_batch_worker *w, int progress_fd,
                        volatile sig_atomic_t *interrupted, char *what, size_t nwhat, double *kernel_s)
{
	const struct tune_batch_unit *u = &units[unit];
	const struct tune_batch_problem *p = &b->problems[u->problem];
	if (count < 1 || u->nchunks == 0)
		count = 1;
	/* Any worker's: one may have died between finishing them and saying so. */
	bool done[TUNE_BATCH_RUN_MAX] = { false }, all = true;
	if (count > TUNE_BATCH_RUN_MAX)
		count = TUNE_BATCH_RUN_MAX;
	char **dones = files_with(w->db_dir, ".done");
	for (size_t i = 0; dones && dones[i]; i++)
		read_done(dones[i], u, count, done);
	free_files(dones);
	for (int i = 0; i < count; i++)
		all &= done[i];
	if (all) {
		snprintf(what, nwhat, "skip");
		return 0;
	}
	/* The other workers' databases: a unit a killed worker had begun is
	 * finished here without timing again what that worker recorded. */
	char **dbs = files_with(w->db_dir, ".jsonl");
	int nalso = 0;
	for (size_t i = 0; dbs && dbs[i]; i++)
		if (strcmp(dbs[i], w->db_path) != 0) {
			char *t = dbs[nalso];
			dbs[nalso++] = dbs[i];
			dbs[i] = t;
		}
	/* The clock of every worker and rank alike (CLOCK_REALTIME, one host
	 * or NTP), for a batch's timeline: bench/batch/timeline.py. */
	double t0 = real_s();
	if (count > 1)
		fprintf(w->log, "== %s and %d chunks after it (%s, line %d) at %.3f\n", u->key, count - 1,
		        b->path, p->line, t0);
	else
		fprintf(w->log, "== %s (%s, line %d) at %.3f\n", u->key, b->path, p->line, t0);
	fflush(w->log);
	double best = NAN;
	struct tune_run_opts o = {
		.space_path = p->space_path, .db_path = w->db_path, .strategy = p->strategy,
		.budget = p->budget, .seed = p->seed, .nsets = p->nsets,
		.sets = (const char *const *)p->sets, .problem = p->problem, .eval = w->eval,
		.no_progress = true, .out = w->log, .err = w->log, .interrupted = interrupted, .best = &best,
		.also_dbs = (const char *const *)dbs, .nalso_dbs = nalso,
		.chunk = u->chunk, .nchunks = u->nchunks, .chunks = count, .kernel_s = kernel_s,
		.keep = w->keep, .also_view = w->also,
	};
	if (p->objective)
		tune_objective_parse(p->objective, &o.objective_metric, &o.maximize);
	struct count_report cr = { progress_fd, unit };
	if (progress_fd >= 0) {
		o.on_count = report_count;
		o.on_count_user = &cr;
	}
	int rc = dbs ? tune_run(&o) : 1;
	if (!dbs)
		fprintf(w->log, "spacetune: error: out of memory\n");
	free_files(dbs);
	fflush(w->log);
	if (rc == 130 || *interrupted)
		return 130;
	if (rc != 0) {
		snprintf(what, nwhat, "fail");
		return 1;
	}
	if (append_done(w->done_path, u, count) != 0) {
		fprintf(w->log, "spacetune: error: %s: cannot write: %s\n", w->done_path, strerror(errno));
		snprintf(what, nwhat, "fail");
		return 1;
	}
	if (isfinite(best))
		snprintf(what, nwhat, "%.17g", best);
	else
		snprintf(what, nwhat, "none");
	fprintf(w->log, "-- %d unit%s finished at %.3f, %.3f s\n", count, count == 1 ? "" : "s", real_s(),
	        real_s() - t0);
	fflush(w->log);
	return 0;
}

/* ---- the missing-work report -------------------------------------------------------- */

/* The "space" field the records of a problem carry: the file's name less ".space". */
static void space_name(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len > 6 && strcmp(base + len - 6, ".space") == 0)
		len -= 6;
	snprintf(out, n, "%.*s", (int)len, base);
}

struct tally {
	const struct tune_batch *b;
	char (*names)[256];
	struct lh_table *seen;      /* record keys, each counted once */
	long *records;              /* per problem */
};

static int tally_line(void *user, struct json_object *line, long lineno)
{
	struct tally *t = user;
	(void)lineno;
	struct json_object *o;
	const char *space = json_object_object_get_ex(line, "space", &o) ? json_object_get_string(o) : NULL;
	const char *problem = json_object_object_get_ex(line, "problem", &o) && o ? json_object_get_string(o) : "";
	char *key = tune_db_line_key(line);
	if (!key || !space || lh_table_lookup_entry(t->seen, key)) {
		free(key);
		return 0;
	}
	if (lh_table_insert(t->seen, key, NULL) != 0) {
		free(key);
		return -1;
	}
	for (int i = 0; i < t->b->nproblems; i++)
		if (strcmp(t->names[i], space) == 0 && strcmp(t->b->problems[i].problem, problem) == 0)
			t->records[i]++;
	return 0;
}

static void free_key(struct lh_entry *e)
{
	free(lh_entry_k(e));
}

int tune_batch_report(const struct tune_batch *b, const struct tune_batch_unit *u, int n,
                      const double *costs, const char *db_dir, FILE *out)
{
	bool *done = calloc((size_t)n + 1, sizeof *done);
	struct tally t = { .b = b };
	t.names = calloc((size_t)b->nproblems + 1, sizeof *t.names);
	t.records = calloc((size_t)b->nproblems + 1, sizeof *t.records);
	t.seen = lh_kchar_table_new(1024, free_key);
	int *units = calloc((size_t)b->nproblems + 1, sizeof *units);
	int *finished = calloc((size_t)b->nproblems + 1, sizeof *finished);
	char **dbs = files_with(db_dir, ".jsonl");
	int missing = -1;
	if (!done || !t.names || !t.records || !t.seen || !units || !finished || !dbs ||
	    tune_batch_finished(db_dir, u, n, done) < 0) {
		fprintf(out, "spacetune: error: out of memory\n");
		goto out;
	}
	for (int i = 0; i < b->nproblems; i++)
		space_name(b->problems[i].space_path, t.names[i], sizeof t.names[i]);
	for (size_t f = 0; dbs[f]; f++) {
		char *err = NULL;
		if (tune_db_scan(dbs[f], NULL, tally_line, &t, &err) != 0) {
			fprintf(out, "spacetune: error: %s\n", err ? err : dbs[f]);
			free(err);
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		units[u[i].problem]++;
		finished[u[i].problem] += done[i];
	}
	int nprob = 0, open = 0;
	long recorded = 0;
	double planned = 0;
	missing = 0;
	for (int i = 0; i < b->nproblems; i++) {
		if (!units[i])
			continue;
		nprob++;
		if (finished[i] == units[i])
			continue;
		open++;
		missing += units[i] - finished[i];
		recorded += t.records[i];
		const struct tune_batch_problem *p = &b->problems[i];
		char chunks[64] = "";
		if (units[i] > 1)
			snprintf(chunks, sizeof chunks, ", %d of %d chunks finished", finished[i], units[i]);
		if (p->budget.kind == TUNE_BUDGET_SECONDS)
			fprintf(out, "spacetune: batch: unfinished: %s: %ld evaluations recorded (a budget of "
			        "%g s)%s\n", p->key, t.records[i], p->budget.amount, chunks);
		else {
			planned += costs ? costs[i] : 0;
			fprintf(out, "spacetune: batch: unfinished: %s: %ld of %.0f evaluations recorded, "
			        "%.0f missing%s\n", p->key, t.records[i], costs ? costs[i] : NAN,
			        costs && costs[i] > t.records[i] ? costs[i] - t.records[i] : 0, chunks);
		}
	}
	if (open == 0)
		fprintf(out, "spacetune: batch: complete: all %d problems finished (%s)\n", nprob, db_dir);
	else
		fprintf(out, "spacetune: batch: incomplete: %d of %d problems unfinished, %ld of their "
		        "evaluations recorded, %.0f missing; the same command run again does exactly "
		        "the missing work\n", open, nprob, recorded, planned > recorded ? planned - recorded : 0);
out:
	fflush(out);
	free(done);
	free(t.names);
	free(t.records);
	if (t.seen)
		lh_table_free(t.seen);
	free(units);
	free(finished);
	free_files(dbs);
	return missing;
}

/* ---- the hand-out ----------------------------------------------------------------- */

/* One worker: its device selection and its file name. */
struct worker {
	char name[128];
	char device[128];  /* its device's first worker's name: the slots' common one */
	struct tune_device_sel sel;
};

/*
 * The workers: one per --devices selector ("device-" and the selector made
 * safe), else one per GPU (dev_worker_gpus: "gpu-P.D" after an OpenCL
 * GPU's indices, "gpu-B-D" after another backend B's), else one on the
 * default device ("default": the first device, PoCL's CPU on a machine
 * without GPU).  With --slots K, each K times: NAME, NAME-slot2, ...
 */
static int find_workers(const struct tune_batch_run_opts *o, struct worker **out)
{
	struct tune_gpu gpus[TUNE_MAX_GPUS];
	int ngpus = o->ndevices > 0 ? 0 : tune_list_gpus(gpus, TUNE_MAX_GPUS);
	if (ngpus > 0)
		ngpus = dev_worker_gpus(gpus, ngpus);
	int n = o->ndevices > 0 ? o->ndevices : ngpus > 0 ? ngpus : 1;
	struct worker *w = calloc((size_t)n, sizeof *w);
	if (!w)
		return -1;
	for (int i = 0; i < n; i++) {
		if (o->ndevices > 0) {
			snprintf(w[i].name, sizeof w[i].name, "device-%s", o->devices[i]);
			for (char *c = w[i].name + 7; *c; c++)
				if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
					*c = '_';
			w[i].sel.device = o->devices[i];
		} else if (ngpus > 0) {
			const char *backend = dev_backends()[gpus[i].backend]->name;
			if (gpus[i].backend == 0)
				snprintf(w[i].name, sizeof w[i].name, "gpu-%d.%d", gpus[i].platform, gpus[i].device);
			else
				snprintf(w[i].name, sizeof w[i].name, "gpu-%s-%d", backend, gpus[i].device);
			w[i].sel.gpu = i + 1;
		} else {
			snprintf(w[i].name, sizeof w[i].name, "default");
		}
	}
	/* Shards may share one directory (array tasks on a shared file system). */
	for (int i = 0; i < n && o->nshards > 0; i++) {
		char name[sizeof w[i].name];
		snprintf(name, sizeof name, "shard%d-of-%d-%s", o->shard, o->nshards, w[i].name);
		memcpy(w[i].name, name, sizeof name);
	}
	/* Two workers on one file would interleave their databases. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(w[i].name, w[j].name) == 0) {
				fprintf(o->err, "spacetune: error: the devices '%s' and '%s' would share the database %s.jsonl\n",
				        o->devices[j], o->devices[i], w[i].name);
				free(w);
				return -2;
			}
	int slots = o->slots > 1 ? o->slots : 1;
	if (slots > 1) {
		struct worker *all = calloc((size_t)n * (size_t)slots, sizeof *all);
		if (!all) {
			free(w);
			return -1;
		}
		/* Slot-major: workers 0..n-1 are the first slot of each device, so
		 * that a batch smaller than the workers still spreads over the devices. */
		for (int s = 0; s < slots; s++)
			for (int i = 0; i < n; i++) {
				struct worker *x = &all[s * n + i];
				*x = w[i];
				if (s > 0)
					snprintf(x->name, sizeof x->name, "%.100s-slot%d", w[i].name, s + 1);
			}
		free(w);
		w = all;
		n *= slots;
	}
	for (int i = 0; i < n; i++)
		if (!w[i].device[0])
			snprintf(w[i].device, sizeof w[i].device, "%s", w[i % (n / slots)].name);
	*out = w;
	return n;
}

/* What the hub knows of one unit. */
struct running {
	bool given;                 /* handed to a worker in this run */
	bool active;                /* has reported progress and is not finished */
	bool finished;              /* reported done, skipped or failed */
	bool failed;
	size_t done, planned;
	double best;
};

struct hub_worker {
	char name[128];
	int units;                  /* units it ran to their end in this run */
	double kernel_s;            /* their kernels' time (tune_run_opts.kernel_s) */
	int problem1;               /* 1 + the problem it was last handed; 0: none */
};

struct tune_batch_hub {
	const struct tune_batch_run_opts *o;
	const struct tune_batch_unit *units;
	int nunits, next;
	int total, done, skipped, failed, before;
	double start, last_plain;
	struct running *run;        /* per unit */
	int nworkers;
	struct hub_worker *workers;
	int *open_of;               /* per problem: take()'s scratch */
	struct progress_line *line; /* on a terminal */
};

static const char *unit_of(const struct tune_batch_problem *p)
{
	const char *metric = NULL;
	bool maximize;
	if (p->objective)
		tune_objective_parse(p->objective, &metric, &maximize);
	return metric ? metric : "ms";
}

static void eta_text(const struct tune_batch_hub *d, char *buf, size_t n)
{
	double elapsed = now_s() - d->start;
	int fresh = d->done - d->skipped;
	if (d->done == d->total)
		snprintf(buf, n, "0:00");
	else if (fresh > 0) {
		double s = elapsed / fresh * (d->total - d->done);
		snprintf(buf, n, "%d:%02d", (int)s / 60, (int)s % 60);
	} else
		snprintf(buf, n, "?");
}

/* The running units: "KEY 12/40 best 0.1 ms; ..." */
static void running_text(const struct tune_batch_hub *d, char *buf, size_t n)
{
	const struct tune_batch *b = d->o->batch;
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < d->nunits && k + 1 < n; i++) {
		const struct running *r = &d->run[i];
		if (!r->active)
			continue;
		const struct tune_batch_problem *p = &b->problems[d->units[i].problem];
		int w = isfinite(r->best)
		                ? snprintf(buf + k, n - k, "%s%s %zu/%zu best %.4g %s", k ? "; " : "",
		                           d->units[i].key, r->done, r->planned, r->best, unit_of(p))
		                : snprintf(buf + k, n - k, "%s%s %zu/%zu best -", k ? "; " : "",
		                           d->units[i].key, r->done, r->planned);
		k = w > 0 && (size_t)w < n - k ? k + (size_t)w : n - 1;
	}
}

/* Redraws the live line, or prints a plain status line at most every 10 s. */
static void display_running(struct tune_batch_hub *d)
{
	char running[400], line[512], eta[32];
	running_text(d, running, sizeof running);
	if (d->line) {
		double share = d->done;
		for (int i = 0; i < d->nunits; i++)
			if (d->run[i].active && d->run[i].planned)
				share += (double)d->run[i].done / (double)d->run[i].planned;
		snprintf(line, sizeof line, "[%d/%d] %s", d->done, d->total, running);
		progress_update(d->line, d->total ? share / d->total : -1, line);
	} else if (!d->o->no_progress && now_s() - d->last_plain >= 10) {
		d->last_plain = now_s();
		eta_text(d, eta, sizeof eta);
		fprintf(d->o->err, "spacetune: batch [%d/%d] running: %s | ETA %s\n", d->done, d->total,
		        running[0] ? running : "-", eta);
		fflush(d->o->err);
	}
}

static void display_line(struct tune_batch_hub *d, int unit, const char *what)
{
	char eta[32];
	eta_text(d, eta, sizeof eta);
	FILE *err = d->o->err;
	progress_erase(d->line);
	fprintf(err, "spacetune: batch [%d/%d] %s: %s | ETA %s\n", d->done, d->total,
	        d->units[unit].key, what, eta);
	fflush(err);
}

/* A unit given to a worker that died: the next worker that asks gets it. */
static void give_back(struct tune_batch_hub *d, int unit)
{
	d->run[unit].given = false;
	d->run[unit].active = false;
	if (unit < d->next)
		d->next = unit;
}

static bool open_unit(const struct tune_batch_hub *d, int u)
{
	return !d->run[u].given && !d->run[u].finished;
}

int tune_batch_hub_take(struct tune_batch_hub *d, int worker, int *count)
{
	*count = 0;
	if (*d->o->interrupted)
		return -1;
	while (d->next < d->nunits && !open_unit(d, d->next))
		d->next++;
	if (d->next == d->nunits)
		return -1;
	int left = 0, u = -1;
	struct hub_worker *hw = worker >= 0 && worker < d->nworkers ? &d->workers[worker] : NULL;
	int *open = d->open_of;
	memset(open, 0, (size_t)d->o->batch->nproblems * sizeof *open);
	for (int i = d->next; i < d->nunits; i++) {
		if (!open_unit(d, i))
			continue;
		left++;
		open[d->units[i].problem]++;
		/* The problem the worker ran last, while it has open units: its
		 * job and evaluator (or replay) are still loaded (tune_run_opts.keep). */
		if (u < 0 && hw && d->units[i].problem + 1 == hw->problem1)
			u = i;
	}
	if (u < 0) {
		/* Else the problem with the most open units per worker on it, so
		 * that the workers spread over the problems and each loads few. */
		double best = -1;
		for (int i = d->next; i < d->nunits; i++) {
			int p = d->units[i].problem;
			if (!open_unit(d, i) || open[p] < 0)
				continue;
			int on = 0;
			for (int w = 0; w < d->nworkers; w++)
				on += d->workers[w].problem1 == p + 1;
			double share = open[p] / (1.0 + on);
			if (share > best) {
				best = share;
				u = i;
			}
			open[p] = -1;  /* its first open unit seen */
		}
	}
	int want = (left + 4 * d->nworkers - 1) / (4 * d->nworkers);
	if (want > TUNE_BATCH_RUN_MAX)
		want = TUNE_BATCH_RUN_MAX;
	const struct tune_batch_unit *first = &d->units[u];
	int n = 1;
	while (n < want && u + n < d->nunits && open_unit(d, u + n) && first->nchunks > 0 &&
	       d->units[u + n].problem == first->problem && d->units[u + n].chunk == first->chunk + n)
		n++;
	for (int i = 0; i < n; i++)
		d->run[u + i].given = true;
	if (hw)
		hw->problem1 = first->problem + 1;
	*count = n;
	return u;
}

void tune_batch_hub_note(struct tune_batch_hub *d, const char *line)
{
	int unit, worker;
	char what[64];
	size_t done, planned;
	double best, kernel_s;
	if (sscanf(line, "prog %d %zu %zu %lf", &unit, &done, &planned, &best) == 4 && unit >= 0 &&
	    unit < d->nunits) {
		d->run[unit] = (struct running){ .given = true, .active = true, .done = done,
		                                 .planned = planned, .best = best };
		display_running(d);
		return;
	}
	if (sscanf(line, "done %d %d %63s %lf", &unit, &worker, what, &kernel_s) != 4 || unit < 0 ||
	    unit >= d->nunits || d->run[unit].finished)
		return;
	struct running *r = &d->run[unit];
	r->active = false;
	r->finished = true;
	r->failed = strcmp(what, "fail") == 0;
	d->done++;
	if (worker >= 0 && worker < d->nworkers) {
		d->workers[worker].kernel_s += kernel_s;
		d->workers[worker].units += strcmp(what, "skip") != 0 && !r->failed;
	}
	const struct tune_batch_problem *p = &d->o->batch->problems[d->units[unit].problem];
	char text[96];
	if (strcmp(what, "skip") == 0) {
		d->skipped++;
		snprintf(text, sizeof text, "finished before");
	} else if (r->failed) {
		d->failed++;
		snprintf(text, sizeof text, "failed (see the worker's .log in %s)", d->o->db_dir);
	} else if (strcmp(what, "none") == 0) {
		snprintf(text, sizeof text, "no configuration ran correctly");
	} else {
		snprintf(text, sizeof text, "best %.4g %s", strtod(what, NULL), unit_of(p));
	}
	if (!d->o->no_progress)
		display_line(d, unit, text);
	display_running(d);
}

/* "done UNIT WORKER WHAT KERNEL_S": lines written in one write, so lines
 * of several workers never interleave in the pipe. */
int tune_batch_done_line(char *buf, size_t n, int unit, int count, int worker, const char *what,
                         double kernel_s)
{
	size_t k = 0;
	for (int i = 0; i < (count > 1 ? count : 1) && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "done %d %d %s %.17g\n", unit + i, worker, what,
		                      i ? 0.0 : kernel_s);
	return k < n ? (int)k : (int)n - 1;
}

/* A local worker: asks for a unit on the report pipe, gets its index on
 * its own command pipe (end of file: no more), runs it, says so. */
static int worker_loop(const struct tune_batch_run_opts *o, const struct tune_batch_unit *units,
                       int index, const struct tune_batch_worker *w, int report_fd, int cmd_fd)
{
	FILE *cmd = fdopen(cmd_fd, "r");
	if (!cmd)
		return 1;
	int status = 0;
	char line[TUNE_BATCH_RUN_MAX * 128];
	for (;;) {
		int n = snprintf(line, sizeof line, "want %d\n", index);
		if (write(report_fd, line, (size_t)n) != n)
			break;
		int unit, count;
		if (!fgets(line, sizeof line, cmd) || sscanf(line, "%d %d", &unit, &count) != 2)
			break;
		char what[64];
		double kernel_s = 0;
		int rc = tune_batch_run_unit(o->batch, units, unit, count, w, report_fd, o->interrupted,
		                             what, sizeof what, &kernel_s);
		if (rc == 130) {
			status = 130;
			break;
		}
		if (rc != 0)
			status = 1;
		n = tune_batch_done_line(line, sizeof line, unit, count, index, what, kernel_s);
		if (write(report_fd, line, (size_t)n) != n) {
			/* the display misses one line; the .done files are what counts */
		}
	}
	fclose(cmd);
	return status;
}

static void worker_paths(struct tune_batch_worker *w, const char *dir, const char *name)
{
	snprintf(w->db_path, sizeof w->db_path, "%s/%s.jsonl", dir, name);
	snprintf(w->done_path, sizeof w->done_path, "%s/%s.done", dir, name);
	snprintf(w->log_path, sizeof w->log_path, "%s/%s.log", dir, name);
	w->db_dir = dir;
}

int tune_batch_worker_open(struct tune_batch_worker *w, const char *dir, const char *name,
                           const struct tune_eval_opts *eval, FILE *err)
{
	worker_paths(w, dir, name);
	w->eval = *eval;
	w->keep = tune_run_keep_new();
	w->also = tune_db_also_new();
	w->log = fopen(w->log_path, "a");
	if (!w->log)
		fprintf(err, "spacetune: error: cannot write '%s': %s\n", w->log_path, strerror(errno));
	if (!w->keep || !w->also)
		fprintf(err, "spacetune: error: out of memory\n");
	if (w->log && w->keep && w->also) {
		fprintf(w->log, "spacetune: batch worker %s: %d worker process%s (--jobs)\n", name, eval->jobs,
		        eval->jobs == 1 ? "" : "es");
		fflush(w->log);
		return 0;
	}
	tune_batch_worker_close(w);
	return -1;
}

void tune_batch_worker_close(struct tune_batch_worker *w)
{
	if (w->log)
		fclose(w->log);
	tune_run_keep_free(w->keep);
	tune_db_also_free(w->also);
	w->log = NULL;
	w->keep = NULL;
	w->also = NULL;
}

/* The hub's own allocations: freed when it is done, and at once in each
 * forked worker, to whom its copies are of no use. */
static void free_hub(struct tune_batch_hub *d, int (*cmd)[2], pid_t *pids, bool *before)
{
	free(cmd);
	free(pids);
	free(before);
	free(d->run);
	free(d->workers);
	free(d->open_of);
}

int tune_batch_run(const struct tune_batch_run_opts *o)
{
	const struct tune_batch *b = o->batch;
	struct worker *workers = NULL;
	int nlocal;
	if (o->worker_name) {
		/* MPI's rank 0: its own worker, the other ranks served by o->remote. */
		workers = calloc(1, sizeof *workers);
		nlocal = workers ? 1 : -1;
		if (workers) {
			snprintf(workers[0].name, sizeof workers[0].name, "%s", o->worker_name);
			workers[0].sel = o->worker_sel;
		}
	} else
		nlocal = find_workers(o, &workers);
	if (nlocal < 0) {
		if (nlocal == -1)
			fprintf(o->err, "spacetune: error: out of memory\n");
		return 1;
	}
	if (mkdir(o->db_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(o->err, "spacetune: error: cannot create '%s': %s\n", o->db_dir, strerror(errno));
		free(workers);
		return 1;
	}
	int nworkers = o->nworkers > nlocal ? o->nworkers : nlocal;
	struct tune_batch_hub d = { .o = o, .units = o->units, .nunits = o->nunits, .total = o->nunits,
	                            .start = now_s(), .last_plain = now_s(), .nworkers = nworkers };
	d.run = calloc((size_t)o->nunits + 1, sizeof *d.run);
	d.workers = calloc((size_t)nworkers, sizeof *d.workers);
	d.open_of = calloc((size_t)b->nproblems + 1, sizeof *d.open_of);
	bool *before = calloc((size_t)o->nunits + 1, sizeof *before);
	pid_t *pids = calloc((size_t)nlocal, sizeof *pids);
	int (*cmd)[2] = calloc((size_t)nlocal, sizeof *cmd);
	int pipefd[2] = { -1, -1 };
	int status = 0;
	if (!d.run || !d.workers || !d.open_of || !before || !pids || !cmd ||
	    tune_batch_finished(o->db_dir, o->units, o->nunits, before) < 0) {
		fprintf(o->err, "spacetune: error: out of memory\n");
		status = 1;
		goto out;
	}
	for (int w = 0; w < nworkers; w++)
		snprintf(d.workers[w].name, sizeof d.workers[w].name, "%s",
		         w < nlocal && !o->worker_name ? workers[w].name : "");
	for (int w = 0; o->worker_names && w < nworkers; w++)
		snprintf(d.workers[w].name, sizeof d.workers[w].name, "%s", o->worker_names[w]);
	/* Units finished by earlier runs (any worker's .done file) are not handed out. */
	for (int i = 0; i < o->nunits; i++)
		if (before[i]) {
			d.run[i].finished = true;
			d.done++;
			d.skipped++;
			d.before++;
		}
	if (d.before)
		fprintf(o->err, "spacetune: batch: %d of %d finished before (in %s); resuming the rest\n",
		        d.before, o->nunits, o->db_dir);
	for (int w = 0; w < nlocal; w++)
		cmd[w][0] = cmd[w][1] = -1;
	if (pipe(pipefd) != 0) {
		fprintf(o->err, "spacetune: error: pipe: %s\n", strerror(errno));
		status = 1;
		goto out;
	}
	for (int w = 0; w < nlocal; w++)
		if (pipe(cmd[w]) != 0) {
			fprintf(o->err, "spacetune: error: pipe: %s\n", strerror(errno));
			status = 1;
			goto out;
		}
	pid_t parent = getpid();
	fflush(NULL);
	int forked = 0;
	bool interrupted = false;
	/* A worker gone leaves its command pipe without a reader: an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	for (int w = 0; w < nlocal; w++) {
		/* The parent never touches OpenCL, so forking here is safe. */
		pids[w] = fork();
		if (pids[w] < 0) {
			fprintf(o->err, "spacetune: error: fork: %s\n", strerror(errno));
			status = 1;
			break;
		}
		forked++;
		if (pids[w] == 0) {
			/* A batch killed with -9 must not leave workers tuning on. */
			tune_die_with_parent(parent);
			close(pipefd[0]);
			/* Only its own command pipe's reading end: a write end left open
			 * in a worker would keep another from ever seeing the end. */
			for (int k = 0; k < nlocal; k++) {
				close(cmd[k][1]);
				if (k != w)
					close(cmd[k][0]);
			}
			int mine = cmd[w][0];
			/* The hub's state is the parent's; the worker's own children
			 * (device readers, evaluators) must not see it as a leak. */
			free_hub(&d, cmd, pids, before);
			struct worker self = workers[w];
			free(workers);
			struct tune_batch_worker wk;
			struct tune_eval_opts eval = o->eval;
			eval.device = self.sel;
			if (eval.jobs <= 0)
				eval.jobs = tune_batch_default_jobs(nlocal, o->worker_name != NULL);
			/* A replayed device's slots queue for it as a card's do (dev_lock_open). */
			char replay_lock[4200];
			if (o->slots > 1 && eval.replay && eval.replay_sleep) {
				snprintf(replay_lock, sizeof replay_lock, "%s/.replay-lock-%s", o->db_dir, self.device);
				eval.replay_lock = replay_lock;
			}
			if (tune_batch_worker_open(&wk, o->db_dir, self.name, &eval, o->err) != 0)
				_exit(1);
			int rc = worker_loop(o, o->units, w, &wk, pipefd[1], mine);
			tune_batch_worker_close(&wk);
			_exit(rc);
		}
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	for (int w = 0; w < nlocal; w++) {
		close(cmd[w][0]);
		cmd[w][0] = -1;
		if (w >= forked) {
			close(cmd[w][1]);
			cmd[w][1] = -1;
		}
	}
	/* Only now, with every worker forked: the line's thread must not be
	 * running across a fork. */
	d.line = o->live_progress && !o->no_progress ? progress_open(1) : NULL;
	progress_phase(d.line, "batch", 0);
	/* the units each local worker runs: [cur, cur + ncur) */
	int *cur = malloc((size_t)nlocal * sizeof *cur), *ncur = malloc((size_t)nlocal * sizeof *ncur);
	for (int w = 0; cur && ncur && w < nlocal; w++)
		cur[w] = -1, ncur[w] = 0;
	char *line = NULL;
	size_t cap = 0, have = 0;
	bool local_open = cur && ncur;
	int remote = o->remote ? 1 : 0;
	while (local_open || remote > 0) {
		if (local_open) {
			struct pollfd pfd = { pipefd[0], POLLIN, 0 };
			int pr = poll(&pfd, 1, o->remote ? 2 : 250);
			if (pr < 0 && errno != EINTR)
				local_open = false;
			if (pr > 0) {
				if (have + 4096 + 1 > cap) {
					char *g = realloc(line, cap = have + 8192);
					if (!g) {
						local_open = false;
						continue;
					}
					line = g;
				}
				ssize_t got = read(pipefd[0], line + have, cap - have - 1);
				if (got <= 0) {
					if (got == 0 || errno != EINTR)
						local_open = false;
				} else {
					have += (size_t)got;
					line[have] = '\0';
					char *start = line, *nl;
					while ((nl = strchr(start, '\n'))) {
						*nl = '\0';
						int w;
						if (sscanf(start, "want %d", &w) == 1 && w >= 0 && w < nlocal) {
							int k, u = tune_batch_hub_take(&d, w, &k);
							char text[32];
							int n = snprintf(text, sizeof text, "%d %d\n", u, k);
							cur[w] = -1;
							if (u < 0 || cmd[w][1] < 0 || write(cmd[w][1], text, (size_t)n) != n) {
								for (int i = 0; u >= 0 && i < k; i++)
									give_back(&d, u + i);
								if (cmd[w][1] >= 0)
									close(cmd[w][1]);
								cmd[w][1] = -1;
							} else
								cur[w] = u, ncur[w] = k;
						} else {
							tune_batch_hub_note(&d, start);
						}
						start = nl + 1;
					}
					have -= (size_t)(start - line);
					memmove(line, start, have);
				}
			}
		} else if (remote > 0)
			usleep(5000);
		/* A worker killed (kill -9, the OOM killer, a driver crash) costs
		 * only the evaluations it had in flight: its unit goes to the next
		 * worker that asks, which finds what it recorded in its database. */
		for (int w = 0; cur && w < forked; w++) {
			int ws;
			if (pids[w] <= 0 || waitpid(pids[w], &ws, WNOHANG) != pids[w])
				continue;
			pids[w] = -1;
			if (WIFEXITED(ws) && WEXITSTATUS(ws) == 130)
				interrupted = true;
			else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
				status = 1;
				progress_erase(d.line);
				fprintf(o->err, "spacetune: batch: worker %s ended (%s %d)%s%s%s\n", workers[w].name,
				        WIFSIGNALED(ws) ? "signal" : "exit status",
				        WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws),
				        cur[w] >= 0 ? "; its unit '" : "", cur[w] >= 0 ? o->units[cur[w]].key : "",
				        cur[w] < 0 ? "" : ncur[w] > 1 ? "' and the chunks after it go to the next worker free"
				                                      : "' goes to the next worker free");
				for (int i = 0; cur[w] >= 0 && i < ncur[w]; i++)
					if (!d.run[cur[w] + i].finished)
						give_back(&d, cur[w] + i);
			}
			cur[w] = -1;
			if (cmd[w][1] >= 0)
				close(cmd[w][1]);
			cmd[w][1] = -1;
		}
		if (o->remote)
			remote = o->remote(o->remote_user, &d);
	}
	progress_close(d.line);
	free(line);
	free(cur);
	free(ncur);
	for (int w = 0; w < forked; w++) {
		int ws;
		if (pids[w] <= 0 || waitpid(pids[w], &ws, 0) < 0)
			continue;
		if (WIFEXITED(ws) && WEXITSTATUS(ws) == 130)
			interrupted = true;
		else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
			status = 1;
	}
	double wall = now_s() - d.start;
	bool chunked = false;
	for (int i = 0; i < o->nunits; i++)
		chunked |= o->units[i].nchunks > 0;
	fprintf(o->err, "spacetune: batch: %d of %d %s done (%d finished before, %d failed) in %.1f s\n",
	        d.done - d.failed, d.total, chunked ? "units (problems and chunks)" : "problems", d.skipped,
	        d.failed, wall);
	/* Each device's share of the wall time spent running kernels being timed. */
	for (int w = 0; w < nworkers; w++)
		if (d.workers[w].units)
			fprintf(o->err, "spacetune: batch: %s: %d units, kernels timed %.3g s of %.1f s (%.1f%%)\n",
			        d.workers[w].name, d.workers[w].units, d.workers[w].kernel_s, wall,
			        wall > 0 ? 100 * d.workers[w].kernel_s / wall : 0);
	for (int i = 0; i < o->nunits; i++)
		if (d.run[i].failed)
			fprintf(o->err, "spacetune: batch: %s: failed\n", o->units[i].key);
	/* What a rerun will do, from the files (whatever this run saw). */
	if (tune_batch_report(b, o->units, o->nunits, o->costs, o->db_dir, o->err) > 0 && status == 0)
		status = 1;
	if (interrupted || *o->interrupted) {
		fprintf(o->err, "spacetune: interrupted; run the same command again to resume\n");
		status = 130;
	}
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	for (int w = 0; cmd && w < nlocal; w++) {
		if (cmd[w][0] >= 0)
			close(cmd[w][0]);
		if (cmd[w][1] >= 0)
			close(cmd[w][1]);
	}
	free_hub(&d, cmd, pids, before);
	free(workers);
	return status;
}
