/*
 * test_db.c - Criterion tests of the results database (tuner/db.h):
 * lines read back with json-c as an independent parser, resume keys,
 * torn and malformed lines, the lock, and what a failed write leaves.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tuner/db.h"

#include "status_stub.h"

static char dir[64], path[96];

static void setup(void)
{
	strcpy(dir, "/tmp/test_db.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/results.jsonl", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

static const struct tune_device_info dev = { .platform = "Portable Computing Language",
                                             .name = "cpu-x86-64", .driver = "3.1" };
static const char *const names[] = { "tile", "vec", "kind" };
static const struct tune_metric metrics[] = { { "GFLOPS", 2e9, TUNE_METRIC_FLOP } };

static struct tune_variant variant(const char *const *values)
{
	return (struct tune_variant){
		.point_index = 3, .nparams = 3, .param_names = names, .param_values = values,
		.source_hash = "abc123", .kernel_name = "k", .build_options = "-DTILE=16 -DVEC=2",
		.work_dim = 2, .global = { 64, 32 }, .local = { 8, 4 },
		.nmetrics = 1, .metrics = metrics,
	};
}

static struct tune_result ok_result(double ms)
{
	return (struct tune_result){ .status = TUNE_OK, .time_median_ms = ms, .time_min_ms = ms * 0.9,
	                             .runs = 10, .max_abs_err = 1e-7, .max_rel_err = 2e-6,
	                             .build_s = 0.25 };
}

static char *slurp(void)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static struct json_object *line_object(int k)
{
	char *text = slurp(), *save = NULL, *line = strtok_r(text, "\n", &save);
	for (int i = 0; i < k && line; i++)
		line = strtok_r(NULL, "\n", &save);
	cr_assert_not_null(line, "no line %d", k);
	struct json_object *o = json_tokener_parse(line);
	cr_assert_not_null(o, "line %d is not JSON: %s", k, line);
	return o;
}

static const char *field_str(struct json_object *o, const char *name)
{
	struct json_object *v;
	cr_assert(json_object_object_get_ex(o, name, &v), "no field %s", name);
	return json_object_get_string(v);
}

static bool field_is_null(struct json_object *o, const char *name)
{
	struct json_object *v;
	cr_assert(json_object_object_get_ex(o, name, &v), "no field %s", name);
	return v == NULL;
}

static double field_num(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v;
	cr_assert(json_object_object_get_ex(o, a, &v), "no field %s", a);
	if (b)
		cr_assert(json_object_object_get_ex(v, b, &v), "no field %s.%s", a, b);
	return json_object_get_double(v);
}

Test(db, line_holds_the_contract_fields, .init = setup, .fini = teardown)
{
	struct tune_db *db;
	char *err = NULL;
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_assert_eq(tune_db_set_space(db, "gemm"), 0);
	const char *values[] = { "16", "2", "\"wide \\\"x\\\"\"" };
	struct tune_variant v = variant(values);
	struct tune_result r = ok_result(2.0);
	cr_assert_eq(tune_db_append(db, &dev, &v, &r), 0);
	tune_db_close(db);

	struct json_object *o = line_object(0);
	cr_expect_eq(field_num(o, "v", NULL), 1);
	cr_expect_str_eq(field_str(o, "space"), "gemm");
	cr_expect_str_eq(field_str(o, "kernel"), "k");
	cr_expect_str_eq(field_str(o, "device"), "cpu-x86-64");
	cr_expect_str_eq(field_str(o, "platform"), "Portable Computing Language");
	cr_expect_str_eq(field_str(o, "driver"), "3.1");
	cr_expect_str_eq(field_str(o, "source_hash"), "abc123");
	cr_expect_str_eq(field_str(o, "defines"), "-DTILE=16 -DVEC=2");
	cr_expect_str_eq(field_str(o, "status"), "ok");
	cr_expect_eq(field_num(o, "params", "tile"), 16);
	cr_expect_str_eq(field_str(json_object_object_get(o, "params"), "kind"), "wide \"x\"");
	cr_expect_eq(field_num(o, "time_ms", "median"), 2.0);
	cr_expect_float_eq(field_num(o, "time_ms", "min"), 1.8, 1e-12);
	/* 2e9 flop in 2 ms is 1000 GFLOP/s */
	cr_expect_float_eq(field_num(o, "metrics", "GFLOPS"), 1000.0, 1e-9);
	cr_expect_eq(field_num(o, "runs", NULL), 10);
	cr_expect_eq(field_num(o, "build_s", NULL), 0.25);
	cr_expect(!json_object_get_boolean(json_object_object_get(o, "build_cached")));
	cr_expect(field_is_null(o, "error"));
	struct json_object *g = json_object_object_get(o, "global");
	cr_expect_eq(json_object_array_length(g), 2);
	cr_expect_eq(json_object_get_int(json_object_array_get_idx(g, 1)), 32);
	const char *stamp = field_str(o, "time");
	cr_expect_eq(strlen(stamp), 20, "timestamp %s", stamp);
	cr_expect_eq(stamp[19], 'Z');
	/* numbers are written in their shortest form */
	cr_expect(strstr(slurp(), "\"min\":1.8") != NULL, "%s", slurp());
	json_object_put(o);
}

/* A program loaded from the cache was not built: no build time, a flag. */
Test(db, cache_hits_are_recorded_as_hits, .init = setup, .fini = teardown)
{
	struct tune_db *db;
	char *err = NULL;
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_assert_eq(tune_db_set_space(db, "gemm"), 0);
	const char *values[] = { "16", "2", "\"a\"" };
	struct tune_variant v = variant(values);
	struct tune_result r = ok_result(2.0);
	r.build_s = 0;
	r.build_cached = true;
	cr_assert_eq(tune_db_append(db, &dev, &v, &r), 0);
	tune_db_close(db);
	struct json_object *o = line_object(0);
	cr_expect(field_is_null(o, "build_s"), "%s", slurp());
	struct json_object *flag = json_object_object_get(o, "build_cached");
	cr_expect(flag && json_object_get_boolean(flag), "%s", slurp());
	json_object_put(o);
}

Test(db, failures_have_no_times_and_nan_is_null, .init = setup, .fini = teardown)
{
	struct tune_db *db;
	char *err = NULL;
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	const char *values[] = { "8", "1", "\"a\"" };
	struct tune_variant v = variant(values);
	struct tune_result r = { .status = TUNE_BUILD_ERROR, .error = "build failed",
	                         .log = "x.cl:1: error: expected ';'", .time_median_ms = NAN };
	cr_assert_eq(tune_db_append(db, &dev, &v, &r), 0);
	struct tune_result w = ok_result(1.0);
	w.status = TUNE_WRONG_RESULT;
	w.max_abs_err = NAN;
	const char *values2[] = { "8", "2", "\"a\"" };
	struct tune_variant v2 = variant(values2);
	cr_assert_eq(tune_db_append(db, &dev, &v2, &w), 0);
	tune_db_close(db);

	struct json_object *o = line_object(0);
	cr_expect_str_eq(field_str(o, "status"), "build_error");
	cr_expect(field_is_null(o, "time_ms"));
	cr_expect(field_is_null(o, "max_abs_err"));
	cr_expect_str_eq(field_str(o, "error"), "build failed");
	cr_expect_str_eq(field_str(o, "log"), "x.cl:1: error: expected ';'");
	json_object_put(o);
	o = line_object(1);
	cr_expect_str_eq(field_str(o, "status"), "wrong_result");
	cr_expect_eq(field_num(o, "time_ms", "median"), 1.0);
	cr_expect(field_is_null(o, "max_abs_err"), "NaN must be written as null");
	cr_expect(field_is_null(json_object_object_get(o, "metrics"), "GFLOPS"),
	          "no throughput for a wrong result");
	json_object_put(o);
}

Test(db, resume_keys, .init = setup, .fini = teardown)
{
	struct tune_db *db;
	char *err = NULL;
	const char *a[] = { "16", "2", "\"x\"" }, *b[] = { "16", "4", "\"x\"" };
	const char *a_spelt[] = { "16", "2", "\"x\"" };
	struct tune_variant va = variant(a), vb = variant(b), va2 = variant(a_spelt);
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_expect(!tune_db_has(db, &dev, "abc123", &va));
	struct tune_result r = ok_result(3.5);
	cr_assert_eq(tune_db_append(db, &dev, &va, &r), 0);
	struct tune_result crash = { .status = TUNE_CRASHED, .error = "signal 11" };
	cr_assert_eq(tune_db_append(db, &dev, &vb, &crash), 0);
	cr_expect(tune_db_has(db, &dev, "abc123", &va), "known in the same session");
	tune_db_close(db);

	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_expect_eq(tune_db_nrecords(db), 2);
	double ms = 0;
	int st = -2;
	cr_expect(tune_db_lookup(db, &dev, "abc123", &va2, &ms, &st));
	cr_expect_eq(ms, 3.5);
	cr_expect_eq(st, TUNE_OK);
	cr_expect(tune_db_lookup(db, &dev, "abc123", &vb, &ms, &st));
	cr_expect(isinf(ms), "a crash costs infinity");
	cr_expect_eq(st, TUNE_CRASHED);
	cr_expect(!tune_db_has(db, &dev, "other", &va), "another source hash");
	struct tune_device_info other = dev;
	strcpy(other.driver, "3.2");
	cr_expect(!tune_db_has(db, &other, "abc123", &va), "another driver");
	const char *c[] = { "32", "2", "\"x\"" };
	struct tune_variant vc = variant(c);
	cr_expect(!tune_db_has(db, &dev, "abc123", &vc), "other parameters");
	tune_db_close(db);
}

static void append_raw(const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static off_t file_size(void)
{
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	return st.st_size;
}

static void write_two_lines(void)
{
	struct tune_db *db;
	char *err = NULL;
	const char *a[] = { "1", "2", "\"x\"" }, *b[] = { "2", "2", "\"x\"" };
	struct tune_variant va = variant(a), vb = variant(b);
	struct tune_result r = ok_result(1);
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_assert_eq(tune_db_append(db, &dev, &va, &r), 0);
	cr_assert_eq(tune_db_append(db, &dev, &vb, &r), 0);
	tune_db_close(db);
}

Test(db, torn_last_line_is_cut, .init = setup, .fini = teardown)
{
	cr_redirect_stderr();
	write_two_lines();
	off_t whole = file_size();
	append_raw("{\"v\":1,\"time\":\"2026-");  /* a crash in the middle of a write */
	struct tune_db *db;
	char *err = NULL;
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_expect_eq(tune_db_nrecords(db), 2);
	cr_expect_eq(file_size(), whole, "the torn tail is truncated");
	const char *c[] = { "3", "2", "\"x\"" };
	struct tune_variant vc = variant(c);
	struct tune_result r = ok_result(1);
	cr_assert_eq(tune_db_append(db, &dev, &vc, &r), 0);
	tune_db_close(db);
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_expect_eq(tune_db_nrecords(db), 3, "the next line starts cleanly");
	tune_db_close(db);
	fflush(stderr);
	char msg[256] = "";
	cr_expect_not_null(fgets(msg, sizeof msg, cr_get_redirected_stderr()));
	cr_expect(strstr(msg, "results.jsonl:3: warning: ignoring a torn last line (20 bytes)") != NULL,
	          "%s", msg);
}

Test(db, malformed_lines, .init = setup, .fini = teardown)
{
	write_two_lines();
	char text[4096];
	strcpy(text, slurp());
	char *second = strchr(text, '\n') + 1;
	FILE *f = fopen(path, "w");
	/* line 1, a malformed line 2, line 3, a line that is not a result,
	 * then a complete (newline-terminated) but malformed last line: a
	 * user's note, not a torn write */
	fprintf(f, "%.*snot json\n%s{\"v\":1}\n", (int)(second - text), text, second);
	fclose(f);
	append_raw("my note: rerun on the A100\n");
	char kept[4096];
	strcpy(kept, slurp());
	off_t before = file_size();
	struct tune_db *db;
	char *err = NULL;
	cr_redirect_stderr();
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_expect_eq(tune_db_nrecords(db), 2);
	cr_expect_eq(file_size(), before, "a complete line is never cut");
	cr_expect_str_eq(slurp(), kept, "every line is kept as it was");
	const char *c[] = { "3", "2", "\"x\"" };
	struct tune_variant vc = variant(c);
	struct tune_result r = ok_result(1);
	cr_assert_eq(tune_db_append(db, &dev, &vc, &r), 0);
	tune_db_close(db);
	cr_expect(!strncmp(slurp(), kept, strlen(kept)), "appending keeps the note");
	cr_assert_eq(tune_db_open(&db, path, &err), 0, "%s", err);
	cr_expect_eq(tune_db_nrecords(db), 3, "the record after the note reads back");
	tune_db_close(db);
	fflush(stderr);
	char msg[256] = "";
	FILE *diag = cr_get_redirected_stderr();
	cr_expect_not_null(fgets(msg, sizeof msg, diag));
	cr_expect(strstr(msg, "results.jsonl:2: warning: skipping a malformed line (kept") != NULL, "%s", msg);
	cr_expect_not_null(fgets(msg, sizeof msg, diag));
	cr_expect(strstr(msg, "results.jsonl:5: warning: skipping a malformed line (kept") != NULL, "%s", msg);
	cr_expect(fgets(msg, sizeof msg, diag) == NULL || !strstr(msg, "torn"), "nothing is torn: %s", msg);
}

Test(db, second_writer_is_refused, .init = setup, .fini = teardown)
{
	struct tune_db *a, *b;
	char *err = NULL;
	cr_assert_eq(tune_db_open(&a, path, &err), 0, "%s", err);
	cr_expect_eq(tune_db_open(&b, path, &err), -1);
	cr_assert_not_null(err);
	cr_expect(strstr(err, "in use") != NULL, "%s", err);
	free(err);
	tune_db_close(a);
}

Test(db, unwritable_path, .init = setup, .fini = teardown)
{
	struct tune_db *db;
	char *err = NULL, bad[128];
	snprintf(bad, sizeof bad, "%s/no/such/dir/r.jsonl", dir);
	cr_expect_eq(tune_db_open(&db, bad, &err), -1);
	cr_assert_not_null(err);
	cr_expect(strstr(err, "cannot open") != NULL, "%s", err);
	free(err);
}

static int count_lines(void *user, struct json_object *line, long lineno)
{
	(void)line;
	(void)lineno;
	++*(int *)user;
	return 0;
}

Test(db, scan_reads_without_writing, .init = setup, .fini = teardown)
{
	write_two_lines();
	append_raw("{\"torn");
	off_t size = file_size();
	int n = 0;
	char *err = NULL;
	FILE *diag = tmpfile();
	cr_assert_eq(tune_db_scan(path, diag, count_lines, &n, &err), 0);
	cr_expect_eq(n, 2);
	cr_expect_eq(file_size(), size, "scan leaves the file alone");
	rewind(diag);
	char msg[256] = "";
	cr_expect_not_null(fgets(msg, sizeof msg, diag));
	cr_expect(strstr(msg, ":3: warning: ignoring a torn last line") != NULL, "%s", msg);
	fclose(diag);
	char missing[128];
	snprintf(missing, sizeof missing, "%s/none.jsonl", dir);
	cr_expect_eq(tune_db_scan(missing, NULL, count_lines, &n, &err), -1);
	cr_expect(strstr(err, "cannot read") != NULL, "%s", err);
	free(err);
}

/*
 * Another worker's database as a batch worker sees it from unit to unit:
 * what the file gained since the last read, never a torn line (its
 * writer's line in progress, read once it is whole), the own file's
 * records winning.
 */
Test(db, other_workers_view_reads_what_was_appended, .init = setup, .fini = teardown)
{
	char own_path[128], line_path[128];
	snprintf(own_path, sizeof own_path, "%s/own.jsonl", dir);
	snprintf(line_path, sizeof line_path, "%s/line.jsonl", dir);
	const char *a[] = { "1", "2", "\"x\"" }, *b[] = { "2", "2", "\"x\"" }, *c[] = { "3", "2", "\"x\"" };
	struct tune_variant va = variant(a), vb = variant(b), vc = variant(c);
	struct tune_db *other, *own, *scratch;
	char *err = NULL;
	struct tune_result r1 = ok_result(1), r2 = ok_result(2), r5 = ok_result(5);
	cr_assert_eq(tune_db_open(&other, path, &err), 0, "%s", err);
	cr_assert_eq(tune_db_append(other, &dev, &va, &r1), 0);
	struct tune_db_also *also = tune_db_also_new();
	cr_assert_not_null(also);
	cr_assert_eq(tune_db_open(&own, own_path, &err), 0, "%s", err);
	cr_assert_eq(tune_db_also_read(also, path, &err), 0, "%s", err);
	tune_db_use_also(own, also);
	cr_expect(tune_db_has(own, &dev, "abc123", &va), "the other file's record");
	cr_expect(!tune_db_has(own, &dev, "abc123", &vb));

	cr_assert_eq(tune_db_append(other, &dev, &vb, &r2), 0);
	cr_expect(!tune_db_has(own, &dev, "abc123", &vb), "not read yet");
	cr_assert_eq(tune_db_also_read(also, path, &err), 0, "%s", err);
	double ms = 0;
	cr_expect(tune_db_lookup(own, &dev, "abc123", &vb, &ms, NULL), "appended, then read");
	cr_expect_eq(ms, 2);

	/* vc's line, written in two parts: the first is a torn line while alone */
	cr_assert_eq(tune_db_open(&scratch, line_path, &err), 0, "%s", err);
	cr_assert_eq(tune_db_append(scratch, &dev, &vc, &r1), 0);
	tune_db_close(scratch);
	FILE *f = fopen(line_path, "r");
	cr_assert_not_null(f);
	char text[8192];
	cr_assert_not_null(fgets(text, sizeof text, f));
	fclose(f);
	size_t half = strlen(text) / 2;
	char rest[8192];
	strcpy(rest, text + half);
	text[half] = '\0';
	tune_db_close(other);
	append_raw(text);
	cr_assert_eq(tune_db_also_read(also, path, &err), 0, "%s", err);
	cr_expect(!tune_db_has(own, &dev, "abc123", &vc), "half a line is not a record");
	append_raw(rest);
	cr_assert_eq(tune_db_also_read(also, path, &err), 0, "%s", err);
	cr_expect(tune_db_has(own, &dev, "abc123", &vc), "the whole line, once complete");

	cr_assert_eq(tune_db_append(own, &dev, &va, &r5), 0);
	cr_expect(tune_db_lookup(own, &dev, "abc123", &va, &ms, NULL));
	cr_expect_eq(ms, 5, "the own record wins");
	/* another file by the same name, longer than what was read: from its start */
	unlink(path);
	const char *d[] = { "4", "2", "\"x\"" }, *e[] = { "5", "2", "\"x\"" }, *g[] = { "6", "2", "\"x\"" },
	           *h[] = { "7", "2", "\"x\"" };
	struct tune_variant vd = variant(d), ve = variant(e), vg = variant(g), vh = variant(h);
	cr_assert_eq(tune_db_open(&other, path, &err), 0, "%s", err);
	cr_assert_eq(tune_db_append(other, &dev, &vd, &r1), 0);
	cr_assert_eq(tune_db_append(other, &dev, &ve, &r1), 0);
	cr_assert_eq(tune_db_append(other, &dev, &vg, &r1), 0);
	cr_assert_eq(tune_db_append(other, &dev, &vh, &r1), 0);
	tune_db_close(other);
	cr_assert_eq(tune_db_also_read(also, path, &err), 0, "%s", err);
	cr_expect(tune_db_has(own, &dev, "abc123", &vd) && tune_db_has(own, &dev, "abc123", &ve) &&
	          tune_db_has(own, &dev, "abc123", &vg) && tune_db_has(own, &dev, "abc123", &vh),
	          "the new file's four records");
	char missing[128];
	snprintf(missing, sizeof missing, "%s/none.jsonl", dir);
	cr_expect_eq(tune_db_also_read(also, missing, &err), 0, "a missing file is none");
	tune_db_close(own);
	tune_db_also_free(also);
	unlink(own_path);
	unlink(line_path);
}

/* The readers' array (best, export, merge): elements come zeroed and in
 * order, keep their contents across every doubling, and are each
 * released once; an element that cannot be allocated leaves the array
 * as it was and says so in oom. */
struct elem {
	long index;
	char pad[13];     /* an odd size: no element may overlap the next */
	int released;
};

static long released_sum;

static void release_elem(void *e)
{
	struct elem *x = e;
	x->released++;
	cr_expect_eq(x->released, 1, "element %ld released once", x->index);
	released_sum += x->index;
}

Test(db, reader_list_grows_keeps_and_releases)
{
	struct tune_db_list l = { .size = sizeof(struct elem) };
	const long n = 5000;  /* past several doublings */
	for (long i = 0; i < n; i++) {
		struct elem *e = tune_db_list_add(&l);
		cr_assert_not_null(e);
		cr_assert_eq(e->index, 0, "added zeroed");
		for (size_t k = 0; k < sizeof e->pad; k++)
			cr_assert_eq(e->pad[k], 0);
		e->index = i + 1;
		memset(e->pad, (int)(i & 0x7f), sizeof e->pad);
	}
	cr_assert_eq(l.n, (size_t)n);
	cr_assert_geq(l.cap, l.n);
	cr_assert(!l.oom);
	const struct elem *v = l.v;
	for (long i = 0; i < n; i++) {
		cr_assert_eq(v[i].index, i + 1, "element %ld kept", i);
		cr_assert_eq(v[i].pad[sizeof v[i].pad - 1], (char)(i & 0x7f));
		cr_assert_eq(v[i].released, 0);
	}
	released_sum = 0;
	tune_db_list_free(&l, release_elem);
	cr_expect_eq(released_sum, n * (n + 1) / 2, "every element released");
	cr_expect(l.v == NULL && l.n == 0 && l.cap == 0 && !l.oom);
	cr_expect_eq(l.size, sizeof(struct elem), "ready to be used again");
	tune_db_list_free(&l, NULL);  /* an empty list */
}

Test(db, reader_list_out_of_memory)
{
	/* an element whose first block of 256 cannot be sized: refused before
	 * any allocation, like a failed realloc */
	struct tune_db_list l = { .size = SIZE_MAX / 64 };
	cr_expect_null(tune_db_list_add(&l));
	cr_expect(l.oom);
	cr_expect(l.v == NULL && l.n == 0 && l.cap == 0);
	tune_db_list_free(&l, release_elem);
}
