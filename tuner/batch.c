/*
 * batch.c - the batch file (see batch.h and docs/TUNING.md).
 *
 * A line format rather than JSON: every error can then point at the
 * exact word (json-c reports no positions for values), and a batch of
 * shapes reads like the command lines it replaces.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lang/diag.h"
#include "tuner/batch.h"
#include "tuner/best.h"
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
		char *v = value(ps, "a value");
		if (!v)
			goto fail;
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

static void parse_strategy(struct parser *ps, const char *kw)
{
	struct scope *sc = current(ps);
	skip_blanks(ps);
	const char *start = ps->p;
	char *name = value(ps, "a strategy's name");
	if (!name)
		return;
	const char *known = NULL;
	for (const char *const *n = tune_strategy_names; *n; n++)
		if (strcmp(*n, name) == 0)
			known = *n;
	if (!known) {
		char list[256] = "";
		for (const char *const *n = tune_strategy_names; *n; n++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			         n == tune_strategy_names ? "" : ", ", *n);
		error_at(ps, start, ps->p, "unknown strategy '%s' (known: %s)", name, list);
	} else if (sc->strategy) {
		error_at(ps, kw, kw + 8, "'strategy' given twice %s",
		         sc->line ? "in this problem" : "before the first problem");
	} else if (expect_end(ps)) {
		sc->strategy = known;
	}
	free(name);
}

static void parse_objective(struct parser *ps, const char *kw)
{
	struct scope *sc = current(ps);
	skip_blanks(ps);
	const char *start = ps->p;
	char *text = value(ps, "an objective");
	if (!text)
		return;
	const char *metric;
	bool maximize;
	if (tune_objective_parse(text, &metric, &maximize) != 0 || text[0] == '"')
		error_at(ps, start, ps->p, "bad objective '%s': want time or a metric's name, maybe after min: or max:",
		         text);
	else if (sc->objective)
		error_at(ps, kw, kw + 9, "'objective' given twice %s",
		         sc->line ? "in this problem" : "before the first problem");
	else if (expect_end(ps)) {
		sc->objective = text;
		return;
	}
	free(text);
}

static void parse_budget(struct parser *ps, const char *kw)
{
	struct scope *sc = current(ps);
	skip_blanks(ps);
	const char *start = ps->p;
	char *text = value(ps, "a budget");
	if (!text)
		return;
	struct tune_budget b;
	if (tune_budget_parse(text, &b) != 0)
		error_at(ps, start, ps->p, "bad budget '%s': want N, Ns, Nm, Nh or P%%", text);
	else if (sc->has_budget)
		error_at(ps, kw, kw + 6, "'budget' given twice %s",
		         sc->line ? "in this problem" : "before the first problem");
	else if (expect_end(ps)) {
		sc->budget = b;
		sc->has_budget = true;
	}
	free(text);
}

static void parse_seed(struct parser *ps, const char *kw)
{
	struct scope *sc = current(ps);
	skip_blanks(ps);
	const char *start = ps->p;
	char *text = value(ps, "a seed");
	if (!text)
		return;
	char *end;
	errno = 0;
	unsigned long long seed = strtoull(text, &end, 10);
	if (end == text || *end || errno || *text == '-')
		error_at(ps, start, ps->p, "bad seed '%s': want a count >= 0", text);
	else if (sc->has_seed)
		error_at(ps, kw, kw + 4, "'seed' given twice %s",
		         sc->line ? "in this problem" : "before the first problem");
	else if (expect_end(ps)) {
		sc->seed = seed;
		sc->has_seed = true;
	}
	free(text);
}

static void parse_problem(struct parser *ps)
{
	skip_blanks(ps);
	const char *start = ps->p;
	char *path = value(ps, "the .space file of the problem");
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
		return parse_strategy(ps, kw);
	if (n == 6 && memcmp(kw, "budget", 6) == 0)
		return parse_budget(ps, kw);
	if (n == 4 && memcmp(kw, "seed", 4) == 0)
		return parse_seed(ps, kw);
	if (n == 9 && memcmp(kw, "objective", 9) == 0)
		return parse_objective(ps, kw);
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

/* Appends every combination of one problem's sets (the first set varies slowest). */
static int expand(struct parser *ps, const struct scope *pr, struct tune_batch *b)
{
	const struct set_line **sets = calloc((size_t)(ps->defaults.nsets + pr->nsets) + 1, sizeof *sets);
	int nsets = sets ? merged_sets(ps, pr, sets) : 0;
	int *at = calloc((size_t)nsets + 1, sizeof *at);
	if (!sets || !at)
		goto oom;
	for (;;) {
		struct tune_batch_problem *np = realloc(b->problems, (size_t)(b->nproblems + 1) * sizeof *np);
		if (!np)
			goto oom;
		b->problems = np;
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
	/* The same problem twice would be tuned twice into one database. */
	for (int i = 0; i < b->nproblems && !ps.oom; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(b->problems[i].key, b->problems[j].key) == 0) {
				struct srcloc loc = { b->problems[i].line, 1, b->problems[i].line, 8 };
				diag_error(&ps.diag, loc, "the problem '%s' is already in the batch (line %d)",
				           b->problems[i].key, b->problems[j].line);
				break;
			}
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

int tune_batch_costs(const struct tune_batch *b, double *costs, FILE *diag)
{
	for (int i = 0; i < b->nproblems; i++) {
		const struct tune_batch_problem *p = &b->problems[i];
		struct tune_job_opts jo = { .space_path = p->space_path, .nsets = p->nsets,
		                            .sets = (const char *const *)p->sets, .diag = diag };
		struct tune_job *job = NULL;
		int rc = tune_job_load(&jo, &job);
		if (rc != 0) {
			fprintf(diag, "%s:%d: note: in the problem '%s'\n", b->path, p->line, p->key);
			return rc;
		}
		size_t n = tune_job_npoints(job);
		tune_job_free(job);
		costs[i] = p->budget.kind == TUNE_BUDGET_SECONDS ? p->budget.amount
		                                                : (double)tune_budget_evals(&p->budget, n);
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

/* ---- running ------------------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Whether the done file has the line "KEY\tdone" (a missing file: no). */
static bool finished_before(const char *done_path, const char *key)
{
	FILE *f = fopen(done_path, "r");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool found = false;
	while (!found && (n = getline(&line, &cap, f)) > 0) {
		/* a line torn by a crash has no newline and does not count */
		if (line[n - 1] != '\n')
			break;
		/* "KEY\tdone": a line torn short of its end never matches a shorter key */
		size_t klen = strlen(key);
		found = (size_t)n == klen + 6 && memcmp(line, key, klen) == 0 &&
		        memcmp(line + klen, "\tdone\n", 6) == 0;
	}
	free(line);
	fclose(f);
	return found;
}

static int append_line(const char *path, const char *text)
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
	size_t len = strlen(text), lead = last != '\n';
	char *line = malloc(len + 8);
	int rc = -1;
	if (line) {
		line[0] = '\n';
		memcpy(line + lead, text, len);
		memcpy(line + lead + len, "\tdone\n", 6);
		size_t n = lead + len + 6;
		rc = write(fd, line, n) == (ssize_t)n && fsync(fd) == 0 ? 0 : -1;
		free(line);
	}
	close(fd);
	return rc;
}

static void report(int fd, int problem, const char *what)
{
	if (fd < 0)
		return;
	char line[96];
	int n = snprintf(line, sizeof line, "done %d %s\n", problem, what);
	if (write(fd, line, (size_t)n) != n) {
		/* the display misses one line; the databases are what counts */
	}
}

struct count_report {
	int fd, problem;
};

/* "prog INDEX DONE PLANNED BEST": a running problem's state, for the display. */
static void report_count(void *user, size_t done, size_t planned, double best)
{
	const struct count_report *c = user;
	char line[128];
	int n = snprintf(line, sizeof line, "prog %d %zu %zu %.17g\n", c->problem, done, planned, best);
	if (write(c->fd, line, (size_t)n) != n) {
		/* the display misses one update */
	}
}

int tune_batch_run_problems(const struct tune_batch *b, const int *problems, int n,
                            const struct tune_eval_opts *eval, const char *db_path,
                            const char *done_path, FILE *log, int report_fd,
                            volatile sig_atomic_t *interrupted)
{
	int status = 0;
	for (int k = 0; k < n && !*interrupted; k++) {
		const struct tune_batch_problem *p = &b->problems[problems[k]];
		if (finished_before(done_path, p->key)) {
			report(report_fd, problems[k], "skip");
			continue;
		}
		fprintf(log, "== %s (%s, line %d)\n", p->key, b->path, p->line);
		fflush(log);
		double best = NAN;
		struct tune_run_opts o = {
			.space_path = p->space_path, .db_path = db_path, .strategy = p->strategy,
			.budget = p->budget, .seed = p->seed, .nsets = p->nsets,
			.sets = (const char *const *)p->sets, .problem = p->problem, .eval = *eval,
			.no_progress = true, .out = log, .err = log, .interrupted = interrupted, .best = &best,
		};
		if (p->objective)
			tune_objective_parse(p->objective, &o.objective_metric, &o.maximize);
		struct count_report cr = { report_fd, problems[k] };
		if (report_fd >= 0) {
			o.on_count = report_count;
			o.on_count_user = &cr;
		}
		int rc = tune_run(&o);
		fflush(log);
		if (rc == 130 || *interrupted)
			return 130;
		if (rc != 0) {
			report(report_fd, problems[k], "fail");
			status = 1;
			continue;
		}
		if (append_line(done_path, p->key) != 0) {
			fprintf(log, "spacetune: error: %s: cannot write: %s\n", done_path, strerror(errno));
			report(report_fd, problems[k], "fail");
			status = 1;
			continue;
		}
		char ms[48];
		snprintf(ms, sizeof ms, "%.17g", best);
		report(report_fd, problems[k], isfinite(best) ? ms : "none");
	}
	return *interrupted ? 130 : status;
}

/* One worker: its device selection and its file name. */
struct worker {
	char name[128];
	char platform[16], device[16];   /* indices of a GPU found */
	struct tune_device_sel sel;
};

/*
 * The workers: one per --devices selector ("device-" and the selector made
 * safe), else one per OpenCL GPU ("gpu-P.D"), else one on the default
 * device ("default": the first device, PoCL's CPU on a machine without GPU).
 */
static int find_workers(const struct tune_batch_run_opts *o, struct worker **out)
{
	int gpus[TUNE_MAX_GPUS][2];
	int ngpus = o->ndevices > 0 ? 0 : tune_list_gpus(gpus, TUNE_MAX_GPUS);
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
			snprintf(w[i].name, sizeof w[i].name, "gpu-%d.%d", gpus[i][0], gpus[i][1]);
			snprintf(w[i].platform, sizeof w[i].platform, "%d", gpus[i][0]);
			snprintf(w[i].device, sizeof w[i].device, "%d", gpus[i][1]);
			w[i].sel.platform = w[i].platform;
			w[i].sel.device = w[i].device;
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
	*out = w;
	return n;
}

struct running {
	bool active;
	bool finished;              /* reported done, skipped or failed */
	bool failed;
	size_t done, planned;
	double best;
};

struct display {
	const struct tune_batch_run_opts *o;
	int total, done, skipped, failed;
	double start, last_plain;
	struct running *run;        /* per problem of the batch */
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

static void eta_text(const struct display *d, char *buf, size_t n)
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

/* The running problems: "KEY 12/40 best 0.1 ms; ..." */
static void running_text(const struct display *d, char *buf, size_t n)
{
	const struct tune_batch *b = d->o->batch;
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < b->nproblems && k + 1 < n; i++) {
		const struct running *r = &d->run[i];
		if (!r->active)
			continue;
		int w = isfinite(r->best)
		                ? snprintf(buf + k, n - k, "%s%s %zu/%zu best %.4g %s", k ? "; " : "",
		                           b->problems[i].key, r->done, r->planned, r->best, unit_of(&b->problems[i]))
		                : snprintf(buf + k, n - k, "%s%s %zu/%zu best -", k ? "; " : "", b->problems[i].key,
		                           r->done, r->planned);
		k = w > 0 && (size_t)w < n - k ? k + (size_t)w : n - 1;
	}
}

/* Redraws the live line, or prints a plain status line at most every 10 s. */
static void display_running(struct display *d)
{
	char running[400], line[512], eta[32];
	running_text(d, running, sizeof running);
	if (d->line) {
		double share = d->done;
		for (int i = 0; i < d->o->batch->nproblems; i++)
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

static void display_line(struct display *d, int problem, const char *what)
{
	char eta[32];
	eta_text(d, eta, sizeof eta);
	FILE *err = d->o->err;
	progress_erase(d->line);
	fprintf(err, "spacetune: batch [%d/%d] %s: %s | ETA %s\n", d->done, d->total,
	        d->o->batch->problems[problem].key, what, eta);
	fflush(err);
}

int tune_batch_run(const struct tune_batch_run_opts *o)
{
	const struct tune_batch *b = o->batch;
	struct worker *workers = NULL;
	int nworkers = find_workers(o, &workers);
	if (nworkers < 0) {
		if (nworkers == -1)
			fprintf(o->err, "spacetune: error: out of memory\n");
		return 1;
	}
	int nlist = o->subset ? o->nsubset : b->nproblems;
	if (mkdir(o->db_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(o->err, "spacetune: error: cannot create '%s': %s\n", o->db_dir, strerror(errno));
		free(workers);
		return 1;
	}
	int pipefd[2];
	if (pipe(pipefd) != 0) {
		fprintf(o->err, "spacetune: error: pipe: %s\n", strerror(errno));
		free(workers);
		return 1;
	}
	int *list = malloc(((size_t)nlist + 1) * sizeof *list);
	pid_t *pids = calloc((size_t)nworkers, sizeof *pids);
	struct display d = { .o = o, .total = nlist, .start = now_s(), .last_plain = now_s() };
	d.run = calloc((size_t)b->nproblems + 1, sizeof *d.run);
	if (!list || !pids || !d.run) {
		free(d.run);
		free(list);
		free(pids);
		free(workers);
		close(pipefd[0]);
		close(pipefd[1]);
		fprintf(o->err, "spacetune: error: out of memory\n");
		return 1;
	}
	int status = 0;
	pid_t parent = getpid();
	fflush(NULL);
	for (int w = 0; w < nworkers; w++) {
		const char *name = workers[w].name;
		char db[4096], done[4096], logp[4096];
		snprintf(db, sizeof db, "%s/%s.jsonl", o->db_dir, name);
		snprintf(done, sizeof done, "%s/%s.done", o->db_dir, name);
		snprintf(logp, sizeof logp, "%s/%s.log", o->db_dir, name);
		int n = 0;
		for (int i = w; i < nlist; i += nworkers)
			list[n++] = o->subset ? o->subset[i] : i;
		/* The parent never touches OpenCL, so forking here is safe. */
		pids[w] = fork();
		if (pids[w] < 0) {
			fprintf(o->err, "spacetune: error: fork: %s\n", strerror(errno));
			status = 1;
			break;
		}
		if (pids[w] == 0) {
			/* A batch killed with -9 must not leave workers tuning on. */
			tune_die_with_parent(parent);
			close(pipefd[0]);
			FILE *log = fopen(logp, "a");
			if (!log) {
				fprintf(o->err, "spacetune: error: cannot write '%s': %s\n", logp, strerror(errno));
				_exit(1);
			}
			struct tune_eval_opts eval = o->eval;
			eval.device = workers[w].sel;
			int rc = tune_batch_run_problems(b, list, n, &eval, db, done, log, pipefd[1],
			                                 o->interrupted);
			fclose(log);
			_exit(rc);
		}
	}
	close(pipefd[1]);
	/* Only now, with every worker forked: the line's thread must not be
	 * running across a fork. */
	d.line = o->live_progress && !o->no_progress ? progress_open(1) : NULL;
	progress_phase(d.line, "batch", 0);
	FILE *reports = fdopen(pipefd[0], "r");
	char *line = NULL;
	size_t cap = 0;
	while (reports && getline(&line, &cap, reports) > 0) {
		int problem;
		char what[64];
		size_t done, planned;
		double best;
		if (sscanf(line, "prog %d %zu %zu %lf", &problem, &done, &planned, &best) == 4 &&
		    problem >= 0 && problem < b->nproblems) {
			d.run[problem] = (struct running){ .active = true, .done = done, .planned = planned, .best = best };
			display_running(&d);
			continue;
		}
		if (sscanf(line, "done %d %63s", &problem, what) != 2 || problem < 0 ||
		    problem >= b->nproblems)
			continue;
		d.run[problem].active = false;
		d.run[problem].finished = true;
		d.run[problem].failed = strcmp(what, "fail") == 0;
		d.done++;
		char text[96];
		if (strcmp(what, "skip") == 0) {
			d.skipped++;
			snprintf(text, sizeof text, "finished before");
		} else if (strcmp(what, "fail") == 0) {
			d.failed++;
			snprintf(text, sizeof text, "failed (see the worker's .log in %s)", o->db_dir);
		} else if (strcmp(what, "none") == 0) {
			snprintf(text, sizeof text, "no configuration ran correctly");
		} else {
			snprintf(text, sizeof text, "best %.4g %s", strtod(what, NULL), unit_of(&b->problems[problem]));
		}
		if (!o->no_progress)
			display_line(&d, problem, text);
		display_running(&d);
	}
	progress_close(d.line);
	free(line);
	if (reports)
		fclose(reports);
	else
		close(pipefd[0]);
	bool interrupted = false;
	for (int w = 0; w < nworkers; w++) {
		int ws;
		if (pids[w] <= 0 || waitpid(pids[w], &ws, 0) < 0)
			continue;
		if (WIFEXITED(ws) && WEXITSTATUS(ws) == 130)
			interrupted = true;
		else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
			status = 1;
	}
	free(list);
	free(pids);
	free(workers);
	fprintf(o->err, "spacetune: batch: %d of %d problems done (%d finished before, %d failed) in %.1f s\n",
	        d.done - d.failed, d.total, d.skipped, d.failed, now_s() - d.start);
	/* What a rerun of the same command will do: the failed and the unfinished. */
	int listed = 0;
	for (int k = 0; k < nlist; k++) {
		int i = o->subset ? o->subset[k] : k;
		if (d.run[i].finished && !d.run[i].failed)
			continue;
		if (listed++ < 20)
			fprintf(o->err, "spacetune: batch: %s: %s\n", b->problems[i].key,
			        d.run[i].failed ? "failed" : "not finished");
	}
	if (listed > 20)
		fprintf(o->err, "spacetune: batch: ... and %d more not done\n", listed - 20);
	free(d.run);
	if (interrupted || *o->interrupted) {
		fprintf(o->err, "spacetune: interrupted; run the same command again to resume\n");
		return 130;
	}
	return status;
}
