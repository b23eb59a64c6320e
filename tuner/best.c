/*
 * best.c - `spacetune best` (see best.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "spacert.h"
#include "tuner/best.h"
#include "tuner/db.h"

struct record {
	struct json_object *line;  /* a reference of our own */
	const char *space, *group_device, *status;
	const char *objective;     /* as run ("max:GBS"), or NULL */
	double ms;                 /* median time when "ok", else INFINITY */
	char *group;               /* device, platform, driver and source hash */
};

struct records {
	const struct tune_best_opts *o;
	struct tune_db_list list;  /* of struct record */
};

/*
 * --objective [min:|max:]time|METRIC: the median time, minimised unless
 * max: says otherwise, or a metric's rate, maximised unless min: says so.
 * *metric is NULL for the time.
 */
int tune_objective_parse(const char *spec, const char **metric, bool *maximize)
{
	int dir = 0;
	if (strncmp(spec, "min:", 4) == 0 || strncmp(spec, "max:", 4) == 0) {
		dir = spec[1] == 'a' ? 1 : -1;
		spec += 4;
	}
	if (!*spec)
		return -1;
	*metric = strcmp(spec, "time") == 0 ? NULL : spec;
	*maximize = *metric ? dir >= 0 : dir > 0;
	return 0;
}

static const char *str_field(struct json_object *o, const char *name)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, name, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static double median_ms(struct json_object *line)
{
	struct json_object *t, *m;
	if (!json_object_object_get_ex(line, "time_ms", &t) || !json_object_object_get_ex(t, "median", &m) ||
	    !m)
		return INFINITY;
	double x = json_object_get_double(m);
	return isfinite(x) && x > 0 ? x : INFINITY;
}

static int keep_line(void *user, struct json_object *line, long lineno)
{
	struct records *rs = user;
	const struct tune_best_opts *o = rs->o;
	const char *space = str_field(line, "space"), *device = str_field(line, "device");
	const char *platform = str_field(line, "platform"), *driver = str_field(line, "driver");
	const char *hash = str_field(line, "source_hash"), *status = str_field(line, "status");
	(void)lineno;
	if (!space || !device || !platform || !driver || !hash || !status)
		return 0;  /* not a result line */
	const char *problem = str_field(line, "problem");
	if (!problem)
		problem = "";
	if (!tune_select_match(&o->select, space, device, problem))
		return 0;
	struct record *r = tune_db_list_add(&rs->list);
	if (!r)
		return 1;
	/* Each problem (the run's --set bindings) is a group of its own. */
	size_t glen = strlen(device) + strlen(platform) + strlen(driver) + strlen(hash) + strlen(problem) + 5;
	if (!(r->group = malloc(glen)))
		return tune_db_list_oom(&rs->list);
	snprintf(r->group, glen, "%s\x1f%s\x1f%s\x1f%s\x1f%s", device, platform, driver, hash, problem);
	r->line = json_object_get(line);
	r->space = space;
	r->group_device = device;
	r->status = status;
	r->objective = str_field(line, "objective");
	r->ms = strcmp(status, "ok") == 0 ? median_ms(line) : INFINITY;
	return 0;
}

static void record_release(void *e)
{
	struct record *r = e;
	free(r->group);
	json_object_put(r->line);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ---- writing files whole ------------------------------------------------------------ */

/*
 * Writes `text` to path through a temporary file in the same directory
 * and a rename, so readers see the old file or the complete new one; a
 * device or a pipe (/dev/null) is written in place, never renamed over
 * (the runtime's sprt_output, the rule of every output file).
 */
int tune_write_whole(const char *path, const char *text, FILE *err)
{
	struct sprt_output o;
	FILE *f = sprt_output_open(&o, path, NULL);
	if (!f || sprt_output_close(&o, fputs(text, f) < 0) != 0) {
		fprintf(err, "spacetune: error: %s: cannot write: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the C header -------------------------------------------------------------------- */

/*
 * Every string in the header comes from the database or the command line,
 * so none may end the comment it sits in, open another, splice lines or
 * start a directive: inside comments, "*" + "/", "/" + "*", backslashes
 * and control bytes are escaped; #define names must be C identifiers and their values one
 * line with no comment or trailing backslash, else the header is refused.
 */
void tune_comment_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c == '*' && s[1] == '/') || (c == '/' && s[1] == '*'))
			fprintf(f, "%c\\", c);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static void comment_json(FILE *f, struct json_object *v)
{
	tune_comment_text(f, v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
	                  : "null");
}

static bool c_identifier(const char *s, size_t n)
{
	if (n == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool macro_body(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return !strstr(s, "/*") && !strstr(s, "//") && !strstr(s, "*/") && !(n && s[n - 1] == '\\');
}

/* Appends "#define NAME VALUE" for each -DNAME[=VALUE] of a build-options string,
 * and returns the other options (caller frees) for a comment; NULL with *bad
 * (caller frees) naming an option that cannot be a #define. */
char *tune_defines_to_c(FILE *f, const char *options, char **bad)
{
	char *copy = strdup(options ? options : ""), *save = NULL;
	size_t rest_cap = strlen(options ? options : "") + 1, rest_len = 0;
	char *rest = calloc(rest_cap, 1);
	*bad = NULL;
	if (!copy || !rest) {
		free(copy);
		free(rest);
		return NULL;
	}
	bool pending_d = false;
	for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		const char *def = NULL;
		if (pending_d)
			def = tok;
		else if (strncmp(tok, "-D", 2) == 0 && tok[2])
			def = tok + 2;
		pending_d = !def && strcmp(tok, "-D") == 0;
		if (pending_d)
			continue;
		if (!def) {
			rest_len += (size_t)snprintf(rest + rest_len, rest_cap - rest_len, "%s%s",
			                             rest_len ? " " : "", tok);
			continue;
		}
		const char *eq = strchr(def, '=');
		size_t n = eq ? (size_t)(eq - def) : strlen(def);
		if (!c_identifier(def, n) || (eq && !macro_body(eq + 1))) {
			*bad = strdup(def);
			free(rest);
			rest = NULL;
			break;
		}
		if (eq)
			fprintf(f, "#define %.*s %s\n", (int)n, def, eq + 1);
		else
			fprintf(f, "#define %s 1\n", def);
	}
	free(copy);
	return rest;
}

static void guard_name(char *buf, size_t n, const char *space)
{
	size_t k = (size_t)snprintf(buf, n, "SPACETUNE_BEST_");
	for (const char *c = space; *c && k + 3 < n; c++)
		buf[k++] = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
	snprintf(buf + k, n - k, "_H");
}

static char *header_text(const struct record *best, const char *db_path, FILE *err)
{
	struct json_object *l = best->line, *params = json_object_object_get(l, "params");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	const char *kernel = str_field(l, "kernel");
	fputs("/*\n * Best configuration of '", f);
	tune_comment_text(f, best->space);
	fputs("' (kernel '", f);
	tune_comment_text(f, kernel ? kernel : "?");
	fputs("') found by spacetune on\n * ", f);
	tune_comment_text(f, best->group_device);
	fputs(" (", f);
	tune_comment_text(f, str_field(l, "platform"));
	fputs(", driver ", f);
	tune_comment_text(f, str_field(l, "driver"));
	fputs("), source hash ", f);
	tune_comment_text(f, str_field(l, "source_hash"));
	fprintf(f, ":\n * median %.6g ms", best->ms);
	struct json_object *metrics = json_object_object_get(l, "metrics");
	if (metrics && json_object_is_type(metrics, json_type_object)) {
		json_object_object_foreach(metrics, name, value)
			if (value) {
				fputs(", ", f);
				tune_comment_text(f, name);
				fprintf(f, " %.6g", json_object_get_double(value));
			}
	}
	fprintf(f, ".\n");
	if (params && json_object_is_type(params, json_type_object)) {
		fprintf(f, " * Parameters:");
		json_object_object_foreach(params, name, value) {
			fputc(' ', f);
			tune_comment_text(f, name);
			fputc('=', f);
			comment_json(f, value);
		}
		fprintf(f, "\n");
	}
	fputs(" * Launch: global ", f);
	comment_json(f, json_object_object_get(l, "global"));
	fputs(", local ", f);
	comment_json(f, json_object_object_get(l, "local"));
	fputs(".\n * Generated by 'spacetune best' from ", f);
	tune_comment_text(f, db_path);
	fputs(".\n */\n", f);
	char guard[128];
	guard_name(guard, sizeof guard, best->space);
	fprintf(f, "#ifndef %s\n#define %s\n\n", guard, guard);
	char *bad = NULL;
	char *rest = tune_defines_to_c(f, str_field(l, "defines"), &bad);
	if (rest && *rest) {
		fputs("\n/* Other build options: ", f);
		tune_comment_text(f, rest);
		fputs(" */\n", f);
	}
	free(rest);
	fprintf(f, "\n#endif\n");
	if (fclose(f) != 0 || bad) {
		if (bad) {
			fprintf(err, "spacetune: error: %s: the build option '-D", db_path);
			tune_comment_text(err, bad);
			fputs("' cannot be written as a C #define\n", err);
		}
		free(bad);
		free(text);
		return NULL;
	}
	return text;
}

/* ---- the JSON record ----------------------------------------------------------------- */

static void copy_field(struct json_object *to, const char *as, struct json_object *from, const char *name)
{
	struct json_object *v = NULL;
	json_object_object_get_ex(from, name, &v);
	json_object_object_add(to, as, json_object_get(v));
}

/*
 * CLTune's fields where they fit (kernel_name, time in ms, parameters,
 * device, and a "results" list of {kernel, time, parameters}), plus ours.
 */
static char *json_text(const struct record *best, const size_t *by_status_n,
                       const char *const *status_names, size_t nstatus, double median, double worst,
                       size_t total)
{
	struct json_object *l = best->line, *o = json_object_new_object();
	if (!o)
		return NULL;
	/* { output name, record name }, in the output's order around the times */
	static const char *const head[][2] = {
		{ "kernel_name", "kernel" }, { "space", "space" }, { "device", "device" },
		{ "platform", "platform" }, { "driver", "driver" }, { "source_hash", "source_hash" },
	};
	static const char *const tail[][2] = {
		{ "parameters", "params" }, { "defines", "defines" }, { "global", "global" },
		{ "local", "local" }, { "metrics", "metrics" }, { "runs", "runs" },
	};
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		copy_field(o, head[i][0], l, head[i][1]);
	json_object_object_add(o, "time", tune_db_json_number(best->ms));
	copy_field(o, "time_min", json_object_object_get(l, "time_ms"), "min");
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
		copy_field(o, tail[i][0], l, tail[i][1]);
	struct json_object *summary = json_object_new_object(), *counts = json_object_new_object();
	json_object_object_add(summary, "records", json_object_new_uint64(total));
	json_object_object_add(summary, "median_time", tune_db_json_number(median));
	json_object_object_add(summary, "worst_time", tune_db_json_number(worst));
	for (size_t s = 0; s < nstatus; s++)
		json_object_object_add(counts, status_names[s], json_object_new_uint64(by_status_n[s]));
	json_object_object_add(summary, "status", counts);
	json_object_object_add(o, "summary", summary);
	struct json_object *results = json_object_new_array(), *entry = json_object_new_object();
	copy_field(entry, "kernel", l, "kernel");
	json_object_object_add(entry, "time", tune_db_json_number(best->ms));
	copy_field(entry, "parameters", l, "params");
	json_object_array_add(results, entry);
	json_object_object_add(o, "results", results);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = s ? strlen(s) : 0;
	char *text = s ? malloc(n + 2) : NULL;
	if (text) {
		memcpy(text, s, n);
		memcpy(text + n, "\n", 2);
	}
	json_object_put(o);
	return text;
}

/* ---- the command --------------------------------------------------------------------- */

/* Distinct status names in first-seen order, with counts. */
struct status_counts {
	const char *names[16];
	size_t counts[16], n;
};

static void count_status(struct status_counts *c, const char *status)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->names[i], status) == 0) {
			c->counts[i]++;
			return;
		}
	if (c->n < 16) {
		c->names[c->n] = status;
		c->counts[c->n++] = 1;
	}
}

/* Picks the space (one, or --space) or reports the choice; NULL on error. */
static const char *pick_space(const struct tune_best_opts *o, const struct record *v, size_t n)
{
	const char *space = v[n - 1].space;
	bool several = false;
	for (size_t i = 0; i < n; i++)
		several |= strcmp(v[i].space, space) != 0;
	if (!several)
		return space;
	fprintf(o->err, "spacetune: error: %s holds several spaces; choose one with --space:", o->db_path);
	for (size_t i = 0; i < n; i++) {
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(v[j].space, v[i].space) != 0;
		if (first)
			fprintf(o->err, " %s", v[i].space);
	}
	fputc('\n', o->err);
	return NULL;
}

/* The record's value of the objective: its median time, or the rate
 * its metric recorded; NAN when it did not run correctly. */
static double objective_value(const struct record *r, const char *metric)
{
	if (!isfinite(r->ms))
		return NAN;
	if (!metric)
		return r->ms;
	struct json_object *metrics, *m;
	if (!json_object_object_get_ex(r->line, "metrics", &metrics) ||
	    !json_object_object_get_ex(metrics, metric, &m) || !m)
		return NAN;
	double x = json_object_get_double(m);
	return isfinite(x) ? x : NAN;
}

int tune_best(const struct tune_best_opts *o)
{
	struct records rs = { .o = o, .list = { .size = sizeof(struct record) } };
	char *err = NULL;
	int status = 1;
	if (tune_db_scan(o->db_path, o->err, keep_line, &rs, &err) != 0) {
		fprintf(o->err, "spacetune: error: %s\n", err ? err : o->db_path);
		free(err);
		goto out;
	}
	if (rs.list.oom) {
		fprintf(o->err, "spacetune: error: out of memory reading %s\n", o->db_path);
		goto out;
	}
	const struct record *v = rs.list.v;
	size_t n = rs.list.n;
	if (n == 0) {
		fprintf(o->err, "spacetune: error: %s has no results%s%s%s%s\n", o->db_path,
		        o->select.space ? " for space " : "", o->select.space ? o->select.space : "",
		        o->select.device ? " on a device matching " : "", o->select.device ? o->select.device : "");
		goto out;
	}
	const char *space = pick_space(o, v, n);
	if (!space)
		goto out;
	/* The group of the latest record: the run the user most likely means. */
	const char *group = v[n - 1].group;
	struct status_counts sc = { .n = 0 };
	size_t in_group = 0, others = 0, nok = 0;
	double *times = malloc(n * sizeof *times);
	const struct record *best = NULL;
	if (!times)
		goto out;
	/* The objective: as asked, else as the group's latest record was run. */
	const char *metric = o->objective_metric;
	bool maximize = o->maximize;
	if (!o->objective_given && v[n - 1].objective &&
	    tune_objective_parse(v[n - 1].objective, &metric, &maximize) != 0)
		metric = NULL, maximize = false;
	double best_value = NAN;
	for (size_t i = 0; i < n; i++) {
		const struct record *r = &v[i];
		if (strcmp(r->group, group) != 0) {
			others++;
			continue;
		}
		in_group++;
		count_status(&sc, r->status);
		double x = objective_value(r, metric);
		if (!isnan(x)) {
			times[nok++] = x;
			if (!best || (maximize ? x > best_value : x < best_value)) {
				best = r;
				best_value = x;
			}
		}
	}
	if (others)
		fprintf(o->err, "spacetune: note: using the %zu records of the latest device, source "
		        "hash and problem; %zu others left out (narrow with --device or --problem)\n",
		        in_group, others);
	fprintf(o->out, "%s on %s: %zu records,", space, v[n - 1].group_device, in_group);
	for (size_t s = 0; s < sc.n; s++)
		fprintf(o->out, " %s %zu", sc.names[s], sc.counts[s]);
	fputc('\n', o->out);
	if (!best) {
		fprintf(o->err, "spacetune: error: no configuration of '%s' ran correctly\n", space);
		free(times);
		goto out;
	}
	qsort(times, nok, sizeof *times, cmp_double);
	double median = nok % 2 ? times[nok / 2] : 0.5 * (times[nok / 2 - 1] + times[nok / 2]);
	double worst = maximize ? times[0] : times[nok - 1];
	free(times);
	const char *problem = str_field(best->line, "problem");
	if (problem)
		fprintf(o->out, "problem: %s\n", problem);
	fprintf(o->out, "objective: %s:%s\n", maximize ? "max" : "min", metric ? metric : "time");
	const char *unit = metric ? metric : "ms";
	/* How far each is from the best, as a factor >= 1 either way. */
	fprintf(o->out, "best   %10.4g %s\nmedian %10.4g %s  (%.2fx the best)\nworst  %10.4g %s  (%.2fx)\n",
	        best_value, unit, median, unit, maximize ? best_value / median : median / best_value,
	        worst, unit, maximize ? best_value / worst : worst / best_value);
	if (metric)
		fprintf(o->out, "time   %10.4g ms\n", best->ms);
	median = maximize ? NAN : median;
	worst = maximize ? NAN : worst;
	struct json_object *params = json_object_object_get(best->line, "params");
	if (params && json_object_is_type(params, json_type_object)) {
		fprintf(o->out, "parameters:");
		json_object_object_foreach(params, name, value)
			fprintf(o->out, " %s=%s", name,
			        value ? json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN) : "null");
		fputc('\n', o->out);
	}
	const char *defines = str_field(best->line, "defines");
	if (defines)
		fprintf(o->out, "build options: %s\n", defines);
	status = 0;
	if (o->best_line)
		*o->best_line = json_object_get(best->line);
	if (o->header_path) {
		char *text = header_text(best, o->db_path, o->err);
		if (!text || tune_write_whole(o->header_path, text, o->err) != 0)
			status = 1;
		free(text);
	}
	if (status == 0 && o->json_path) {
		char *text = json_text(best, sc.counts, sc.names, sc.n, median, worst, in_group);
		if (!text || tune_write_whole(o->json_path, text, o->err) != 0)
			status = 1;
		free(text);
	}
out:
	tune_db_list_free(&rs.list, record_release);
	return status;
}
