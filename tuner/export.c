/*
 * export.c - `spacetune export` (see export.h and docs/TUNING.md).
 */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spacert.h"
#include "tuner/db.h"
#include "tuner/export.h"

/* One verified record, reduced to what the export needs. */
struct rec {
	char *space, *device, *problem, *hash, *time, *defines, *params;
	char *kernel_sizes;   /* a multi-kernel code's per-kernel sizes (JSON), or NULL */
	double cost, time_ms;
	int work_dim;
	long long global[3], local[3];
};

struct setting {
	char *name;
	char *text;      /* the value as written, quotes removed */
	bool numeric;
	double number;
};

static const char *str_field(struct json_object *o, const char *name)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, name, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool num_field(struct json_object *o, const char *name, double *x)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, name, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return false;
	*x = json_object_get_double(v);
	return isfinite(*x);
}

/* The record's cost under its recorded objective ("min:time" when absent); lower is better. */
static bool cost_of(struct json_object *line, double time_ms, double *cost)
{
	const char *objective = str_field(line, "objective");
	if (!objective || strcmp(objective, "min:time") == 0 || strcmp(objective, "max:time") == 0) {
		*cost = time_ms;
		return true;
	}
	bool maximize = strncmp(objective, "max:", 4) == 0;
	const char *metric = strchr(objective, ':') ? strchr(objective, ':') + 1 : objective;
	struct json_object *metrics;
	double x;
	if (!json_object_object_get_ex(line, "metrics", &metrics) || !num_field(metrics, metric, &x))
		return false;
	*cost = maximize ? -x : x;
	return true;
}

static int sizes_field(struct json_object *line, const char *name, long long out[3])
{
	struct json_object *a;
	out[0] = out[1] = out[2] = 0;
	if (!json_object_object_get_ex(line, name, &a) || !json_object_is_type(a, json_type_array))
		return 0;
	int n = (int)json_object_array_length(a);
	if (n > 3)
		return -1;
	for (int i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(a, (size_t)i);
		if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 1)
			return -1;
		out[i] = json_object_get_int64(x);
	}
	return n;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int take(void *user, struct json_object *line, long lineno)
{
	(void)lineno;
	struct tune_db_list *c = user;  /* of struct rec */
	const char *status = str_field(line, "status");
	struct json_object *t, *params;
	double time_ms, cost;
	if (!status || strcmp(status, "ok") != 0 || !json_object_object_get_ex(line, "time_ms", &t) ||
	    !num_field(t, "median", &time_ms) || !cost_of(line, time_ms, &cost) || !str_field(line, "space") ||
	    !str_field(line, "device"))
		return 0;
	struct rec r = { .cost = cost, .time_ms = time_ms };
	r.work_dim = sizes_field(line, "global", r.global);
	if (r.work_dim < 1 || sizes_field(line, "local", r.local) < 0)
		return 0;
	struct rec *e = tune_db_list_add(c);
	if (!e)
		return 1;
	r.space = dup_or_empty(str_field(line, "space"));
	r.device = dup_or_empty(str_field(line, "device"));
	r.problem = dup_or_empty(str_field(line, "problem"));
	r.hash = dup_or_empty(str_field(line, "source_hash"));
	r.time = dup_or_empty(str_field(line, "time"));
	r.defines = dup_or_empty(str_field(line, "defines"));
	r.params = strdup(json_object_object_get_ex(line, "params", &params)
	                          ? json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN |
	                                                                   JSON_C_TO_STRING_NOSLASHESCAPE)
	                          : "{}");
	struct json_object *ks;
	if (json_object_object_get_ex(line, "kernel_sizes", &ks) && ks)
		r.kernel_sizes = strdup(json_object_to_json_string_ext(ks, JSON_C_TO_STRING_PLAIN));
	*e = r;
	bool whole = r.space && r.device && r.problem && r.hash && r.time && r.defines && r.params;
	return whole ? 0 : tune_db_list_oom(c);
}

static void rec_free(void *e)
{
	struct rec *r = e;
	free(r->space);
	free(r->device);
	free(r->problem);
	free(r->hash);
	free(r->time);
	free(r->defines);
	free(r->params);
	free(r->kernel_sizes);
}

static int cmp_group(const struct rec *x, const struct rec *y)
{
	int c = strcmp(x->space, y->space);
	if (!c)
		c = strcmp(x->device, y->device);
	if (!c)
		c = strcmp(x->problem, y->problem);
	return c;
}

/* Groups together; within one, by source hash, then best first. */
static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c = cmp_group(x, y);
	if (!c)
		c = strcmp(x->hash, y->hash);
	if (!c && x->cost != y->cost)
		c = x->cost < y->cost ? -1 : 1;
	if (!c)
		c = strcmp(x->time, y->time);
	if (!c)
		c = strcmp(x->params, y->params);
	return c;
}

static int scan_input(const char *path, struct tune_db_list *c, FILE *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(err, "spacetune: error: cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		char *why = NULL;
		if (tune_db_scan(path, err, take, c, &why) != 0) {
			/* the scanner's message already names the system error */
			if (why)
				fprintf(err, "spacetune: error: %s\n", why);
			else
				fprintf(err, "spacetune: error: %s: %s\n", path, strerror(errno));
			free(why);
			return -1;
		}
		return c->oom ? -1 : 0;
	}
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(err, "spacetune: error: cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);
		if (rc == 0 && len > 6 && strcmp(names[i]->d_name + len - 6, ".jsonl") == 0) {
			char *file = malloc(strlen(path) + len + 2);
			if (!file) {
				c->oom = true;
				rc = -1;
			} else {
				sprintf(file, "%s/%s", path, names[i]->d_name);
				rc = scan_input(file, c, err);
				free(file);
			}
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* ---- the problem's settings ---------------------------------------------------------- */

/* "A=1 B=\"x y\"" into settings; a quoted value is one value.  -1 out of memory. */
static int parse_problem(const char *text, struct setting **out, int *n)
{
	*out = NULL;
	*n = 0;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		const char *eq = strchr(p, '=');
		if (!*p || !eq)
			break;
		const char *v = eq + 1, *end;
		size_t vlen;
		if (*v == '"' || *v == '\'') {
			end = strchr(v + 1, *v);
			end = end ? end + 1 : v + strlen(v);
			vlen = (size_t)(end - v) >= 2 && end[-1] == *v ? (size_t)(end - v) - 2 : (size_t)(end - v) - 1;
			v++;
		} else {
			end = v + strcspn(v, " ");
			vlen = (size_t)(end - v);
		}
		struct setting *ns = realloc(*out, (size_t)(*n + 1) * sizeof *ns);
		if (!ns)
			return -1;
		*out = ns;
		struct setting *s = &ns[(*n)++];
		s->name = strndup(p, (size_t)(eq - p));
		s->text = strndup(v, vlen);
		if (!s->name || !s->text)
			return -1;
		char *num_end;
		s->number = strtod(s->text, &num_end);
		s->numeric = v[-1] != '"' && v[-1] != '\'' && *s->text && !*num_end && isfinite(s->number);
		p = end;
	}
	return 0;
}

static void settings_free(struct setting *s, int n)
{
	for (int i = 0; i < n; i++) {
		free(s[i].name);
		free(s[i].text);
	}
	free(s);
}

/* ---- C output ----------------------------------------------------------------------- */

/* A C string literal: printable ASCII as is, everything else in octal; '?' escaped against trigraphs. */
static void c_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\' || *p == '?')
			fprintf(f, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, f);
		else
			fprintf(f, "\\%03o", *p);
	}
	fputc('"', f);
}

static const char *const c_keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
	"extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
	"short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
	"volatile", "while", "bool", "true", "false", "device_name", NULL
};

/* A C identifier from a name: other characters become '_', a keyword gets a trailing '_'. */
static void c_ident(char *buf, size_t n, const char *name)
{
	size_t k = 0;
	if (!(name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')))
		buf[k++] = '_';
	for (const char *p = name; *p && k + 2 < n; p++)
		buf[k++] = (*p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
		            (*p >= 'a' && *p <= 'z')) ? *p : '_';
	buf[k] = '\0';
	for (const char *const *kw = c_keywords; *kw; kw++)
		if (strcmp(buf, *kw) == 0 && k + 2 < n) {
			buf[k] = '_';
			buf[k + 1] = '\0';
		}
}

/* A space's settings: the union over its entries, strings first, each kind by name. */
struct column {
	const char *name;
	char ident[128];
	bool numeric;
};

static int cmp_column(const void *a, const void *b)
{
	const struct column *x = a, *y = b;
	if (x->numeric != y->numeric)
		return x->numeric ? 1 : -1;
	return strcmp(x->name, y->name);
}

static const struct setting *find_setting(const struct setting *s, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0)
			return &s[i];
	return NULL;
}

static void write_sizes(FILE *f, const long long v[3])
{
	fprintf(f, "{ %lld, %lld, %lld }", v[0], v[1], v[2]);
}

/* entries[0..n) of one space, with their parsed settings. */
static int write_space_c(FILE *f, const struct rec *const *entries, struct setting **sets, const int *nsets,
                         size_t n)
{
	struct column *cols = NULL;
	int ncols = 0;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < nsets[i]; k++) {
			int at = -1;
			for (int c = 0; c < ncols; c++)
				if (strcmp(cols[c].name, sets[i][k].name) == 0)
					at = c;
			if (at < 0) {
				struct column *nc = realloc(cols, (size_t)(ncols + 1) * sizeof *nc);
				if (!nc) {
					free(cols);
					return -1;
				}
				cols = nc;
				at = ncols++;
				cols[at] = (struct column){ .name = sets[i][k].name, .numeric = true };
				c_ident(cols[at].ident, sizeof cols[at].ident, cols[at].name);
			}
			cols[at].numeric &= sets[i][k].numeric;
		}
	if (ncols)
		qsort(cols, (size_t)ncols, sizeof *cols, cmp_column);
	char space[128];
	c_ident(space, sizeof space, entries[0]->space);
	fprintf(f, "\n/* The space ");
	c_string(f, entries[0]->space);
	fprintf(f, ": %zu tuned entries. */\nstruct %s_entry_ {\n\tstruct spacetune_params params;\n", n, space);
	for (int c = 0; c < ncols; c++)
		fprintf(f, "\tunsigned char has_%s;\n\t%s %s;\n", cols[c].ident,
		        cols[c].numeric ? "double" : "const char *", cols[c].ident);
	fprintf(f, "};\n\nstatic const struct %s_entry_ %s_entries_[] = {\n", space, space);
	for (size_t i = 0; i < n; i++) {
		const struct rec *r = entries[i];
		fprintf(f, "\t{ { ");
		c_string(f, r->device);
		fputs(", ", f);
		c_string(f, r->problem);
		fputs(", ", f);
		c_string(f, r->defines);
		fprintf(f, ", %d, ", r->work_dim);
		write_sizes(f, r->global);
		fputs(", ", f);
		write_sizes(f, r->local);
		fprintf(f, ", %.17g }", r->time_ms);
		for (int c = 0; c < ncols; c++) {
			const struct setting *s = find_setting(sets[i], nsets[i], cols[c].name);
			if (!s)
				fprintf(f, ", 0, %s", cols[c].numeric ? "0" : "\"\"");
			else if (cols[c].numeric)
				fprintf(f, ", 1, %.17g", s->number);
			else {
				fputs(", 1, ", f);
				c_string(f, s->text);
			}
		}
		fputs(" },\n", f);
	}
	fprintf(f, "};\n\n");
	fprintf(f, "/* The tuned entry for this problem on this device, else the nearest (see the top). */\n");
	fprintf(f, "static inline const struct spacetune_params *%s_params(const char *device_name", space);
	for (int c = 0; c < ncols; c++)
		fprintf(f, ", %s%s", cols[c].numeric ? "double " : "const char *", cols[c].ident);
	fprintf(f, ")\n{\n"
	           "\tconst struct spacetune_params *best = NULL;\n"
	           "\tint best_device = 0, best_categorical = 0;\n"
	           "\tdouble best_distance = 0;\n"
	           "\tfor (size_t i = 0; i < sizeof %s_entries_ / sizeof %s_entries_[0]; i++) {\n"
	           "\t\tconst struct %s_entry_ *e = &%s_entries_[i];\n"
	           "\t\tint device = device_name == NULL || strcmp(e->params.device, device_name) != 0;\n"
	           "\t\tint categorical = 0;\n"
	           "\t\tdouble distance = 0;\n",
	        space, space, space, space);
	for (int c = 0; c < ncols; c++) {
		const char *id = cols[c].ident;
		if (cols[c].numeric)
			fprintf(f, "\t\tif (e->has_%s)\n\t\t\tdistance += spacetune_log2_distance_(e->%s, %s);\n"
			           "\t\telse\n\t\t\tcategorical++;\n", id, id, id);
		else
			fprintf(f, "\t\tcategorical += !e->has_%s || %s == NULL || strcmp(e->%s, %s) != 0;\n", id,
			        id, id, id);
	}
	fprintf(f, "\t\tif (!best || device < best_device ||\n"
	           "\t\t    (device == best_device && (categorical < best_categorical ||\n"
	           "\t\t                               (categorical == best_categorical && distance < best_distance)))) {\n"
	           "\t\t\tbest = &e->params;\n"
	           "\t\t\tbest_device = device;\n"
	           "\t\t\tbest_categorical = categorical;\n"
	           "\t\t\tbest_distance = distance;\n"
	           "\t\t}\n"
	           "\t}\n"
	           "\treturn best;\n"
	           "}\n");
	free(cols);
	return 0;
}

static const char c_preamble[] =
	"#include <math.h>\n"
	"#include <stddef.h>\n"
	"#include <string.h>\n"
	"\n"
	"#ifndef SPACETUNE_PARAMS_DEFINED\n"
	"#define SPACETUNE_PARAMS_DEFINED\n"
	"/* One tuned configuration. */\n"
	"struct spacetune_params {\n"
	"\tconst char *device;   /* the device it was tuned on */\n"
	"\tconst char *problem;  /* its settings, \"A=1 B=2\" */\n"
	"\tconst char *defines;  /* the -D options to build the kernel with */\n"
	"\tunsigned work_dim;\n"
	"\tsize_t global[3];\n"
	"\tsize_t local[3];      /* all 0: the driver chooses (a NULL local size) */\n"
	"\tdouble time_ms;       /* its median time when tuned */\n"
	"};\n"
	"\n"
	"static inline double spacetune_log2_distance_(double a, double b)\n"
	"{\n"
	"\treturn fabs(log2(fabs(a) + 1) - log2(fabs(b) + 1));\n"
	"}\n"
	"#endif\n";

static int write_c(const char *path, struct rec *const *best, size_t n, struct setting **sets,
                   const int *nsets)
{
	struct sprt_output out;
	FILE *f = sprt_output_open(&out, path, NULL);
	if (!f)
		return -1;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char guard[128];
	c_ident(guard, sizeof guard, base);
	for (char *g = guard; *g; g++)
		if (*g >= 'a' && *g <= 'z')
			*g = (char)(*g - 'a' + 'A');
	fprintf(f, "/*\n * Tuned kernel parameters, written by spacetune export: do not edit.\n"
	           " *\n"
	           " * SPACE_params(device_name, settings...) returns the entry tuned on that\n"
	           " * device for exactly that problem, else the nearest: entries of the same\n"
	           " * device first, then the fewest string settings that differ, then the\n"
	           " * smallest sum over numeric settings of |log2(|a| + 1) - log2(|b| + 1)|,\n"
	           " * then the first in the table (sorted by device, then problem).  The\n"
	           " * settings come strings first, then numbers, each kind sorted by name.\n"
	           " * Never NULL: the table is never empty.  Link with -lm.\n"
	           " */\n#ifndef SPACETUNE_%s\n#define SPACETUNE_%s\n\n%s", guard, guard, c_preamble);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0;) {
		size_t j = i;
		while (j < n && strcmp(best[j]->space, best[i]->space) == 0)
			j++;
		rc = write_space_c(f, (const struct rec *const *)best + i, sets + i, nsets + i, j - i);
		i = j;
	}
	fprintf(f, "\n#endif\n");
	return sprt_output_close(&out, rc != 0) ? -1 : 0;
}

/* ---- JSON output ---------------------------------------------------------------------- */

static struct json_object *sizes_json(const long long v[3], int dim)
{
	if (v[0] == 0)
		return NULL;
	struct json_object *a = json_object_new_array();
	for (int i = 0; a && i < dim; i++)
		json_object_array_add(a, json_object_new_int64(v[i]));
	return a;
}

static int write_json(const char *path, struct rec *const *best, size_t n, struct setting **sets,
                      const int *nsets)
{
	struct json_object *list = json_object_new_array();
	if (!list)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct rec *r = best[i];
		struct json_object *e = json_object_new_object(), *s = json_object_new_object();
		if (!e || !s) {
			json_object_put(e);
			json_object_put(s);
			json_object_put(list);
			return -1;
		}
		for (int k = 0; k < nsets[i]; k++)
			json_object_object_add(s, sets[i][k].name,
			                       sets[i][k].numeric ? tune_db_json_number(sets[i][k].number)
			                                          : json_object_new_string(sets[i][k].text));
		json_object_object_add(e, "space", json_object_new_string(r->space));
		json_object_object_add(e, "device", json_object_new_string(r->device));
		json_object_object_add(e, "problem", json_object_new_string(r->problem));
		json_object_object_add(e, "settings", s);
		json_object_object_add(e, "defines", json_object_new_string(r->defines));
		json_object_object_add(e, "global", sizes_json(r->global, r->work_dim));
		json_object_object_add(e, "local", sizes_json(r->local, r->work_dim));
		if (r->kernel_sizes)   /* each kernel's own, where a code has several kernel lines */
			json_object_object_add(e, "kernel_sizes", json_tokener_parse(r->kernel_sizes));
		json_object_object_add(e, "time_ms", tune_db_json_number(r->time_ms));
		json_object_object_add(e, "params", json_tokener_parse(r->params));
		json_object_object_add(e, "source_hash", json_object_new_string(r->hash));
		json_object_array_add(list, e);
	}
	const char *text = json_object_to_json_string_ext(list, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	                                                               JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = -1;
	if (text) {
		struct sprt_output out;
		FILE *f = sprt_output_open(&out, path, NULL);
		rc = f && sprt_output_close(&out, fputs(text, f) < 0) == 0 ? 0 : -1;
	}
	json_object_put(list);
	return rc;
}

/* ---- the command -------------------------------------------------------------------- */

int tune_export(const struct tune_export_opts *o)
{
	struct tune_db_list c = { .size = sizeof(struct rec) };
	struct rec **best = NULL;
	struct setting **sets = NULL;
	int *nsets = NULL;
	size_t nbest = 0;
	int rc = 1;
	for (int i = 0; i < o->ninputs; i++)
		if (scan_input(o->inputs[i], &c, o->err) != 0) {
			if (c.oom)
				fprintf(o->err, "spacetune: error: out of memory\n");
			goto done;
		}
	struct rec *v = c.v;
	size_t n = c.n;
	if (n == 0) {
		fprintf(o->err, "spacetune: error: no verified ('ok') record in the databases\n");
		goto done;
	}
	qsort(v, n, sizeof *v, cmp_rec);
	best = calloc(n, sizeof *best);
	sets = calloc(n, sizeof *sets);
	nsets = calloc(n, sizeof *nsets);
	if (!best || !sets || !nsets)
		goto oom;
	/* Per group, the newest source hash (the kernel as last tuned), then its best record. */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		const struct rec *pick = NULL;
		const char *newest = NULL;
		while (j < n && cmp_group(&v[i], &v[j]) == 0) {
			size_t k = j;
			const char *latest = "";
			while (k < n && cmp_group(&v[i], &v[k]) == 0 && strcmp(v[k].hash, v[j].hash) == 0) {
				if (strcmp(v[k].time, latest) > 0)
					latest = v[k].time;
				k++;
			}
			if (!newest || strcmp(latest, newest) > 0) {
				newest = latest;
				pick = &v[j]; /* the best of this hash: sorted first */
			}
			j = k;
		}
		best[nbest] = (struct rec *)pick;
		if (parse_problem(pick->problem, &sets[nbest], &nsets[nbest]) != 0)
			goto oom;
		nbest++;
		i = j;
	}
	if (o->c_path && write_c(o->c_path, best, nbest, sets, nsets) != 0) {
		fprintf(o->err, "spacetune: error: cannot write '%s': %s\n", o->c_path, strerror(errno));
		goto done;
	}
	if (o->json_path && write_json(o->json_path, best, nbest, sets, nsets) != 0) {
		fprintf(o->err, "spacetune: error: cannot write '%s': %s\n", o->json_path, strerror(errno));
		goto done;
	}
	fprintf(o->out, "spacetune: exported %zu tuned entries from %zu verified records\n", nbest, n);
	rc = 0;
	goto done;
oom:
	fprintf(o->err, "spacetune: error: out of memory\n");
done:
	for (size_t i = 0; i < nbest; i++)
		settings_free(sets[i], nsets[i]);
	free(sets);
	free(nsets);
	free(best);
	tune_db_list_free(&c, rec_free);
	return rc;
}
