/*
 * merge.c - `spacetune merge` (see merge.h).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spacert.h"
#include "tuner/db.h"
#include "tuner/merge.h"

struct record {
	char *key;   /* the duplicate key */
	char *time;  /* the "time" field, "" when absent */
	char *line;  /* the record as written out */
	int rank;    /* of its status: lower is better */
};

/* Better first: a kernel's own outcome before the environment's. */
static const char *const status_order[] = {
	"ok", "wrong_result", "launch_error", "build_error", "timeout", "crashed", "skipped", NULL
};

static int status_rank(const char *status)
{
	int i = 0;
	for (; status && status_order[i]; i++)
		if (strcmp(status, status_order[i]) == 0)
			return i;
	return (int)(sizeof status_order / sizeof status_order[0]);
}

static const char *field_text(struct json_object *o, const char *name)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, name, &v) || !v)
		return "null";
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The parameters as "name=value" pairs sorted by name, whatever their order in the line. */
static char *params_text(struct json_object *line)
{
	struct json_object *params;
	if (!json_object_object_get_ex(line, "params", &params) ||
	    !json_object_is_type(params, json_type_object))
		return strdup(field_text(line, "params"));
	size_t n = (size_t)json_object_object_length(params), k = 0, len = 1;
	char **pairs = calloc(n + 1, sizeof *pairs);
	char *text = NULL;
	if (!pairs)
		return NULL;
	json_object_object_foreach(params, name, value) {
		const char *v = json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN |
		                                                      JSON_C_TO_STRING_NOSLASHESCAPE);
		size_t m = strlen(name) + strlen(v) + 2;
		if (!(pairs[k] = malloc(m)))
			goto out;
		snprintf(pairs[k++], m, "%s=%s", name, v);
		len += m;
	}
	qsort(pairs, k, sizeof *pairs, cmp_str);
	if ((text = calloc(len, 1)))
		for (size_t i = 0; i < k; i++) {
			strcat(text, pairs[i]);
			strcat(text, "\x1f");
		}
out:
	for (size_t i = 0; i < n; i++)
		free(pairs[i]);
	free(pairs);
	return text;
}

static int take(void *user, struct json_object *line, long lineno)
{
	(void)lineno;
	struct tune_db_list *m = user;  /* of struct record */
	struct record *r = tune_db_list_add(m);
	if (!r)
		return 1;
	char *params = params_text(line);
	static const char *const fields[] = { "space", "device", "platform", "driver", "source_hash",
	                                      "problem" };
	size_t len = (params ? strlen(params) : 0) + 1;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		len += strlen(field_text(line, fields[i])) + 1;
	char *key = params ? malloc(len) : NULL;
	if (key) {
		key[0] = '\0';
		/* \x1f (unit separator) cannot occur in JSON text unescaped */
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
			strcat(key, field_text(line, fields[i]));
			strcat(key, "\x1f");
		}
		strcat(key, params);
	}
	free(params);
	struct json_object *t, *s;
	const char *time = json_object_object_get_ex(line, "time", &t) && json_object_is_type(t, json_type_string)
	                           ? json_object_get_string(t) : "";
	const char *status = json_object_object_get_ex(line, "status", &s) && json_object_is_type(s, json_type_string)
	                             ? json_object_get_string(s) : NULL;
	*r = (struct record){ key, strdup(time),
	                      strdup(json_object_to_json_string_ext(line, JSON_C_TO_STRING_PLAIN |
	                                                                      JSON_C_TO_STRING_NOSLASHESCAPE)),
	                      status_rank(status) };
	return r->key && r->time && r->line ? 0 : tune_db_list_oom(m);
}

static void record_free(void *e)
{
	struct record *r = e;
	free(r->key);
	free(r->time);
	free(r->line);
}

/* Duplicates together, the one to keep first. */
static int cmp_keep(const void *a, const void *b)
{
	const struct record *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if ((c = strcmp(x->time, y->time)))
		return c;
	return strcmp(x->line, y->line);
}

static int cmp_output(const void *a, const void *b)
{
	const struct record *x = a, *y = b;
	int c = strcmp(x->time, y->time);
	if (c)
		return c;
	if ((c = strcmp(x->key, y->key)))
		return c;
	return strcmp(x->line, y->line);
}

static int write_all(FILE *f, const struct record *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fputs(v[i].line, f) == EOF || fputc('\n', f) == EOF)
			return -1;
	return 0;
}

int tune_merge(const char *const *inputs, int ninputs, const char *output, FILE *out, FILE *err)
{
	struct tune_db_list m = { .size = sizeof(struct record) };
	int rc = 1;
	for (int i = 0; i < ninputs; i++) {
		char *why = NULL;
		if (tune_db_scan(inputs[i], err, take, &m, &why) != 0) {
			/* the scanner's message already names the system error */
			if (why)
				fprintf(err, "spacetune: error: %s\n", why);
			else
				fprintf(err, "spacetune: error: %s: %s\n", inputs[i], strerror(errno));
			free(why);
			goto done;
		}
		if (m.oom)
			goto oom;
	}
	struct record *v = m.v;
	size_t read = m.n, kept = 0;
	if (read)
		qsort(v, read, sizeof *v, cmp_keep);
	for (size_t i = 0; i < read; i++) {
		if (kept && strcmp(v[kept - 1].key, v[i].key) == 0) {
			record_free(&v[i]);
			continue;
		}
		v[kept++] = v[i];
	}
	m.n = kept;
	if (kept)
		qsort(v, kept, sizeof *v, cmp_output);
	/* the runtime's rule: beside and renamed, a device written in place */
	struct sprt_output o;
	FILE *f = sprt_output_open(&o, output, NULL);
	if (!f || sprt_output_close(&o, write_all(f, v, kept) != 0) != 0) {
		fprintf(err, "spacetune: error: cannot write '%s': %s\n", output, strerror(errno));
		goto done;
	}
	fprintf(out, "spacetune: merged %zu records from %d files into %zu in %s (%zu duplicates)\n", read,
	        ninputs, kept, output, read - kept);
	rc = 0;
	goto done;
oom:
	fprintf(err, "spacetune: error: out of memory\n");
done:
	tune_db_list_free(&m, record_free);
	return rc;
}
