/*
 * ktexport.c - one problem's records as a Kernel Tuner cache file and a
 * T4 results file (see ktexport.h).
 */
#define _GNU_SOURCE /* strcasestr, as the device selections elsewhere */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tuner/db.h"
#include "tuner/best.h"
#include "tuner/ktexport.h"

struct lines {
	const struct tune_kt_opts *o;
	struct tune_db_list list;  /* of retained lines (struct json_object *) */
};

static const char *problem_of(struct json_object *line)
{
	const char *p = tune_db_str(line, "problem");
	return p ? p : "";
}

static int take(void *user, struct json_object *line, long lineno)
{
	struct lines *l = user;
	const struct tune_kt_opts *o = l->o;
	struct json_object *params;
	(void)lineno;
	const char *space = tune_db_str(line, "space"), *device = tune_db_str(line, "device");
	if (!space || !device || !tune_db_str(line, "status") ||
	    !json_object_object_get_ex(line, "params", &params) ||
	    !json_object_is_type(params, json_type_object) ||
	    !tune_select_match(&o->select, space, device, problem_of(line)))
		return 0;
	struct json_object **e = tune_db_list_add(&l->list);
	if (!e)
		return -1;
	*e = json_object_get(line);
	return 0;
}

static void put_line(void *e)
{
	json_object_put(*(struct json_object **)e);
}

static bool same_group(struct json_object *a, struct json_object *b)
{
	return !strcmp(tune_db_str(a, "space"), tune_db_str(b, "space")) &&
	       !strcmp(tune_db_str(a, "device"), tune_db_str(b, "device")) &&
	       !strcmp(problem_of(a), problem_of(b));
}

/* The value as Python's str() prints what json.loads makes of it: the
 * text of Kernel Tuner's cache keys. */
static void py_str(struct json_object *v, char *buf, size_t n)
{
	if (!v) {
		snprintf(buf, n, "None");
	} else if (json_object_is_type(v, json_type_boolean)) {
		snprintf(buf, n, "%s", json_object_get_boolean(v) ? "True" : "False");
	} else if (json_object_is_type(v, json_type_int)) {
		snprintf(buf, n, "%lld", (long long)json_object_get_int64(v));
	} else if (json_object_is_type(v, json_type_double)) {
		double x = json_object_get_double(v);
		if (x == floor(x) && fabs(x) < 1e16) {
			snprintf(buf, n, "%.1f", x);  /* Python: 2.0 */
		} else {
			for (int digits = 1; digits <= 17; digits++) {
				snprintf(buf, n, "%.*g", digits, x);
				if (strtod(buf, NULL) == x)
					break;
			}
		}
	} else {
		snprintf(buf, n, "%s", json_object_get_string(v));
	}
}

enum kt_error { KT_OK, KT_COMPILE, KT_RUNTIME, KT_INVALID };

static enum kt_error kt_error_of(const char *status)
{
	if (!strcmp(status, "ok"))
		return KT_OK;
	if (!strcmp(status, "build_error"))
		return KT_COMPILE;
	if (!strcmp(status, "skipped"))
		return KT_INVALID;
	return KT_RUNTIME;  /* launch_error, wrong_result, timeout, crashed */
}

static const char *const kt_error_names[] = {
	[KT_COMPILE] = "CompilationFailedConfig", [KT_RUNTIME] = "RuntimeFailedConfig",
	[KT_INVALID] = "InvalidConfig",
};

/* T4's "invalidity" of a recorded status. */
static const char *t4_validity(const char *status)
{
	static const char *const map[][2] = {
		{ "ok", "correct" }, { "build_error", "compile" }, { "launch_error", "runtime" },
		{ "crashed", "runtime" }, { "timeout", "timeout" }, { "wrong_result", "correctness" },
		{ "skipped", "constraints" },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcmp(status, map[i][0]))
			return map[i][1];
	return "runtime";
}

static double median_ms(struct json_object *line)
{
	struct json_object *t;
	if (!json_object_object_get_ex(line, "time_ms", &t) || !t)
		return NAN;
	return tune_db_num(t, "median", NAN);
}

/* Milliseconds the record's evaluation held the device (replay.h's rule). */
static double benchmark_ms(struct json_object *line)
{
	double device_s = tune_db_num(line, "device_s", NAN);
	if (isfinite(device_s))
		return device_s * 1e3;
	double ms = median_ms(line), runs = tune_db_num(line, "runs", 0);
	return isfinite(ms) ? (runs + 1) * ms : 0;
}

static struct json_object *number(double x)
{
	return tune_db_json_number(x);
}

static int write_json(const char *path, struct json_object *root, FILE *err)
{
	/* Plain: the cache then ends in "}}}", which Kernel Tuner's reader
	 * takes for a closed file (util.py, correct_open_cache). */
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		fprintf(err, "spacetune: error: %s: cannot write: out of memory\n", path);
		return -1;
	}
	return tune_write_whole(path, text, err);
}

/* Adds a parameter's value to tune_params[name] unless there. */
static void add_value(struct json_object *tune_params, const char *name, struct json_object *v)
{
	struct json_object *list;
	if (!json_object_object_get_ex(tune_params, name, &list))
		return;
	const char *text = v ? json_object_to_json_string(v) : "null";
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *e = json_object_array_get_idx(list, i);
		if (!strcmp(e ? json_object_to_json_string(e) : "null", text))
			return;
	}
	json_object_array_add(list, json_object_get(v));
}

static int cmp_values(const void *a, const void *b)
{
	struct json_object *x = *(struct json_object *const *)a, *y = *(struct json_object *const *)b;
	bool nx = x && (json_object_is_type(x, json_type_int) || json_object_is_type(x, json_type_double));
	bool ny = y && (json_object_is_type(y, json_type_int) || json_object_is_type(y, json_type_double));
	if (nx && ny) {
		double p = json_object_get_double(x), q = json_object_get_double(y);
		return (p > q) - (p < q);
	}
	if (nx != ny)
		return nx ? -1 : 1;
	return strcmp(x ? json_object_get_string(x) : "", y ? json_object_get_string(y) : "");
}

static struct json_object *kt_entry(struct json_object *line, struct json_object *params)
{
	struct json_object *e = json_object_new_object();
	json_object_object_foreach(params, name, value)
		json_object_object_add(e, name, json_object_get(value));
	const char *status = tune_db_str(line, "status");
	enum kt_error ke = kt_error_of(status);
	if (ke == KT_OK) {
		json_object_object_add(e, "time", number(median_ms(line)));
		struct json_object *t, *metrics;
		if (json_object_object_get_ex(line, "time_ms", &t) && t)
			json_object_object_add(e, "time_min", number(tune_db_num(t, "min", NAN)));
		if (json_object_object_get_ex(line, "metrics", &metrics) && json_object_is_type(metrics, json_type_object)) {
			json_object_object_foreach(metrics, m, v)
				if (v)
					json_object_object_add(e, m, json_object_get(v));
		}
	} else {
		json_object_object_add(e, "time", json_object_new_string(kt_error_names[ke]));
	}
	json_object_object_add(e, "compile_time", number(tune_db_num(line, "build_s", 0) * 1e3));
	json_object_object_add(e, "verification_time", json_object_new_int(0));
	json_object_object_add(e, "benchmark_time", number(benchmark_ms(line)));
	json_object_object_add(e, "strategy_time", json_object_new_int(0));
	json_object_object_add(e, "framework_time", json_object_new_int(0));
	const char *stamp = tune_db_str(line, "time");
	json_object_object_add(e, "timestamp", json_object_new_string(stamp ? stamp : ""));
	json_object_object_add(e, "spacetune_status", json_object_new_string(status));
	return e;
}

static struct json_object *measurement(const char *name, struct json_object *value, const char *unit)
{
	struct json_object *m = json_object_new_object();
	json_object_object_add(m, "name", json_object_new_string(name));
	json_object_object_add(m, "value", value);
	json_object_object_add(m, "unit", json_object_new_string(unit));
	return m;
}

static struct json_object *t4_entry(struct json_object *line, struct json_object *params)
{
	struct json_object *e = json_object_new_object(), *t, *metrics;
	const char *status = tune_db_str(line, "status"), *stamp = tune_db_str(line, "time");
	if (stamp)
		json_object_object_add(e, "timestamp", json_object_new_string(stamp));
	json_object_object_add(e, "configuration", json_object_get(params));
	struct json_object *times = json_object_new_object();
	json_object_object_add(times, "compilation", number(tune_db_num(line, "build_s", 0) * 1e3));
	json_object_object_add(times, "benchmark", number(benchmark_ms(line)));
	json_object_object_add(times, "framework", json_object_new_int(0));
	json_object_object_add(times, "search_algorithm", json_object_new_int(0));
	json_object_object_add(times, "validation", json_object_new_int(0));
	/* The database keeps the median and the minimum, not every run. */
	json_object_object_add(times, "runtimes", json_object_new_array());
	json_object_object_add(e, "times", times);
	json_object_object_add(e, "invalidity", json_object_new_string(t4_validity(status)));
	json_object_object_add(e, "correctness", json_object_new_int(strcmp(status, "wrong_result") != 0));
	struct json_object *ms = json_object_new_array();
	if (json_object_object_get_ex(line, "time_ms", &t) && t) {
		double med = tune_db_num(t, "median", NAN), min = tune_db_num(t, "min", NAN);
		if (isfinite(med))
			json_object_array_add(ms, measurement("time", number(med), "ms"));
		if (isfinite(min))
			json_object_array_add(ms, measurement("time_min", number(min), "ms"));
	}
	if (json_object_object_get_ex(line, "metrics", &metrics) && json_object_is_type(metrics, json_type_object)) {
		json_object_object_foreach(metrics, m, v)
			if (v)
				json_object_array_add(ms, measurement(m, json_object_get(v), ""));
	}
	json_object_object_add(e, "measurements", ms);
	struct json_object *objectives = json_object_new_array();
	json_object_array_add(objectives, json_object_new_string("time"));
	json_object_object_add(e, "objectives", objectives);
	return e;
}

/* The selected records, deduplicated (the latest line wins, in the place
 * of the first), as the two files. */
static int write_files(const struct tune_kt_opts *o, struct json_object **v, size_t n)
{
	struct json_object *first_params;
	json_object_object_get_ex(v[0], "params", &first_params);
	struct json_object *cache = json_object_new_object(), *tune_params = json_object_new_object();
	struct json_object *keys = json_object_new_array(), *t4 = json_object_new_array();
	json_object_object_foreach(first_params, name, value0) {
		(void)value0;
		json_object_array_add(keys, json_object_new_string(name));
		json_object_object_add(tune_params, name, json_object_new_array());
	}
	size_t nkeys = json_object_array_length(keys);
	size_t written = 0, odd = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *params;
		json_object_object_get_ex(v[i], "params", &params);
		/* Kernel Tuner's key: the values in tune_params_keys' order. */
		char key[4096] = "", text[256];
		size_t len = 0;
		bool complete = (size_t)json_object_object_length(params) == nkeys;
		for (size_t k = 0; complete && k < nkeys; k++) {
			const char *pname = json_object_get_string(json_object_array_get_idx(keys, k));
			struct json_object *val;
			if (!json_object_object_get_ex(params, pname, &val)) {
				complete = false;
				break;
			}
			py_str(val, text, sizeof text);
			len += (size_t)snprintf(key + len, len < sizeof key ? sizeof key - len : 0, "%s%s",
			                        k ? "," : "", text);
			add_value(tune_params, pname, val);
		}
		if (!complete || len >= sizeof key) {
			odd++;  /* other parameters than the first record's: not this space */
			continue;
		}
		struct json_object *old;
		bool again = json_object_object_get_ex(cache, key, &old);
		json_object_object_add(cache, key, kt_entry(v[i], params));
		if (!again)
			written++;
	}
	/* T4: the latest line of each configuration too, the one the cache kept. */
	struct json_object *last = json_object_new_object();
	char **pkeys = calloc(n + 1, sizeof *pkeys);
	for (size_t i = 0; pkeys && i < n; i++)
		if ((pkeys[i] = tune_db_line_params_key(v[i])))
			json_object_object_add(last, pkeys[i], json_object_new_int64((int64_t)i));
	for (size_t i = 0; pkeys && i < n; i++) {
		struct json_object *params, *at;
		json_object_object_get_ex(v[i], "params", &params);
		if (pkeys[i] && json_object_object_get_ex(last, pkeys[i], &at) &&
		    json_object_get_int64(at) == (int64_t)i && (size_t)json_object_object_length(params) == nkeys)
			json_object_array_add(t4, t4_entry(v[i], params));
		free(pkeys[i]);
	}
	free(pkeys);
	json_object_put(last);
	json_object_object_foreach(tune_params, pname, list) {
		(void)pname;
		json_object_array_sort(list, cmp_values);
	}
	int rc = 0;
	if (o->cache_path) {
		struct json_object *root = json_object_new_object();
		json_object_object_add(root, "device_name", json_object_new_string(tune_db_str(v[0], "device")));
		const char *kernel = tune_db_str(v[0], "kernel");
		json_object_object_add(root, "kernel_name", json_object_new_string(kernel ? kernel : ""));
		json_object_object_add(root, "tune_params_keys", keys);
		json_object_object_add(root, "tune_params", tune_params);
		json_object_object_add(root, "objective", json_object_new_string("time"));
		/* Ours, which Kernel Tuner's reader ignores: where the records came from. */
		json_object_object_add(root, "spacetune_space", json_object_new_string(tune_db_str(v[0], "space")));
		json_object_object_add(root, "spacetune_problem", json_object_new_string(problem_of(v[0])));
		json_object_object_add(root, "spacetune_source_hash",
		                       json_object_new_string(tune_db_str(v[0], "source_hash")));
		json_object_object_add(root, "cache", json_object_get(cache));
		rc |= write_json(o->cache_path, root, o->err);
		json_object_put(root);
	} else {
		json_object_put(keys);
		json_object_put(tune_params);
	}
	if (o->t4_path) {
		struct json_object *root = json_object_new_object(), *meta = json_object_new_object();
		json_object_object_add(root, "schema_version", json_object_new_string("1.0.0"));
		json_object_object_add(meta, "timeunit", json_object_new_string("milliseconds"));
		json_object_object_add(meta, "device", json_object_new_string(tune_db_str(v[0], "device")));
		json_object_object_add(meta, "space", json_object_new_string(tune_db_str(v[0], "space")));
		json_object_object_add(meta, "problem", json_object_new_string(problem_of(v[0])));
		json_object_object_add(root, "metadata", meta);
		json_object_object_add(root, "results", json_object_get(t4));
		rc |= write_json(o->t4_path, root, o->err);
		json_object_put(root);
	}
	json_object_put(t4);
	json_object_put(cache);
	if (rc == 0)
		fprintf(o->out, "%s on %s (%s): %zu configurations exported%s%s%s%s\n",
		        tune_db_str(v[0], "space"), tune_db_str(v[0], "device"),
		        *problem_of(v[0]) ? problem_of(v[0]) : "no problem", written,
		        o->cache_path ? ", Kernel Tuner cache " : "", o->cache_path ? o->cache_path : "",
		        o->t4_path ? ", T4 " : "", o->t4_path ? o->t4_path : "");
	if (odd)
		fprintf(o->err, "spacetune: warning: %zu records with other parameters than the first "
		        "left out\n", odd);
	return rc ? -1 : 0;
}

int tune_export_kt(const struct tune_kt_opts *o)
{
	struct lines l = { .o = o, .list = { .size = sizeof(struct json_object *) } };
	int status = 1;
	for (int i = 0; i < o->ninputs; i++) {
		char *why = NULL;
		if (tune_db_scan(o->inputs[i], o->err, take, &l, &why) != 0 || l.list.oom) {
			fprintf(o->err, "spacetune: error: %s\n", why ? why : "out of memory");
			free(why);
			goto out;
		}
	}
	struct json_object **v = l.list.v;
	size_t n = l.list.n;
	if (n == 0) {
		fprintf(o->err, "spacetune: error: no records%s%s%s%s%s%s to export\n",
		        o->select.space ? " of space " : "", o->select.space ? o->select.space : "",
		        o->select.device ? " on a device matching " : "", o->select.device ? o->select.device : "",
		        o->select.problem ? " for problem " : "", o->select.problem ? o->select.problem : "");
		goto out;
	}
	/* One problem: a cache file describes one kernel, device and problem size. */
	for (size_t i = 1; i < n; i++) {
		if (same_group(v[0], v[i]))
			continue;
		fprintf(o->err, "spacetune: error: the records hold several problems; choose one with "
		        "--space, --device and --problem:\n  space %s, device %s, problem '%s'\n"
		        "  space %s, device %s, problem '%s'\n", tune_db_str(v[0], "space"),
		        tune_db_str(v[0], "device"), problem_of(v[0]), tune_db_str(v[i], "space"),
		        tune_db_str(v[i], "device"), problem_of(v[i]));
		goto out;
	}
	/* The newest source hash: the kernel as last tuned. */
	const char *hash = tune_db_str(v[n - 1], "source_hash");
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		const char *h = tune_db_str(v[i], "source_hash");
		if (hash && h && strcmp(h, hash) != 0) {
			json_object_put(v[i]);
			continue;
		}
		v[kept++] = v[i];
	}
	if (kept < n)
		fprintf(o->err, "spacetune: warning: %zu records of older kernel sources left out "
		        "(exported: source hash %s)\n", n - kept, hash);
	l.list.n = kept;
	status = write_files(o, v, kept) == 0 ? 0 : 1;
out:
	tune_db_list_free(&l.list, put_line);
	return status;
}
