/*
 * fuzz_db.c - libFuzzer target over the readers of results databases
 * (JSONL, one evaluation a line: tuner/db.c) and the replay loader that
 * reads them back (tuner/replay.c).
 *
 * Each input is one database file.  It is written to a temporary file and
 *   - opened as a run's database (tune_db_open): a crash's torn last line
 *     must be cut off and nothing before it lost, which is checked against
 *     the input (the file must be exactly the input up to its last '\n');
 *   - read as another worker's database (tune_db_also_read), twice: the
 *     second read finds nothing new;
 *   - scanned as a stream (tune_db_scan_stream), each line's keys built;
 *   - loaded for replay (tune_replay_open) for the space and problem of
 *     its first record that names one.
 * Warnings go to /dev/null; everything is released, so LeakSanitizer sees
 * any leak as a finding.  eval.c is linked for its status names alone
 * (fuzz/build.sh stubs the evaluator it calls).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tuner/db.h"
#include "tuner/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static char dir[64];

struct first {
	char *space, *problem;
	long lines;
};

static int each_line(void *user, struct json_object *line, long lineno)
{
	struct first *f = user;
	if (lineno <= f->lines)
		abort(); /* line numbers only grow */
	f->lines = lineno;
	free(tune_db_line_key(line));
	free(tune_db_line_params_key(line));
	const char *space = tune_db_str(line, "space");
	(void)tune_db_num(line, "runs", 0);
	if (space && !f->space) {
		const char *problem = tune_db_str(line, "problem");
		f->space = strdup(space);
		f->problem = strdup(problem ? problem : "");
	}
	return 0;
}

/* The scratch folder goes at exit (libFuzzer exits through exit()). */
static void cleanup(void)
{
	char p[128];
	snprintf(p, sizeof p, "%s/db.jsonl", dir);
	unlink(p);
	rmdir(dir);
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
	unlink(path); /* a new file each time: the replay keeps a dataset it has read */
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t put = fwrite(data, 1, size, f);
	return fclose(f) == 0 && put == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		/* In memory where there is a tmpfs: cutting a torn tail fsyncs,
		 * which should not make the disk's latency the fuzzer's. */
		snprintf(dir, sizeof dir, "%s/fuzzdb.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!devnull || !mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	char path[128];
	snprintf(path, sizeof path, "%s/db.jsonl", dir);

	/* As a run's own database: torn tail cut, the rest kept byte for byte. */
	if (write_file(path, data, size) != 0)
		abort();
	struct tune_db *db;
	char *err;
	FILE *saved = stderr;
	stderr = devnull; /* tune_db_open warns on stderr */
	int rc = tune_db_open(&db, path, &err);
	stderr = saved;
	if (rc != 0)
		abort(); /* a readable file always opens */
	tune_db_close(db);
	size_t keep = size;
	while (keep > 0 && data[keep - 1] != '\n')
		keep--;
	FILE *f = fopen(path, "rb");
	if (!f)
		abort();
	uint8_t *back = malloc(size + 1);
	size_t got = fread(back, 1, size + 1, f);
	fclose(f);
	if (got != keep || memcmp(back, data, keep) != 0)
		abort();
	free(back);

	/* As another worker's database. */
	if (write_file(path, data, size) != 0)
		abort();
	struct tune_db_also *also = tune_db_also_new();
	if (also) {
		if (tune_db_also_read(also, path, &err) != 0 || tune_db_also_read(also, path, &err) != 0)
			abort();
		tune_db_also_free(also);
	}

	/* As a stream. */
	struct first first = { 0 };
	f = fmemopen((void *)data, size, "rb");
	if (size && f) {
		tune_db_scan_stream(f, "fuzz.jsonl", devnull, each_line, &first);
		fclose(f);
	} else if (f) {
		fclose(f);
	}

	/* For replay. */
	if (first.space) {
		struct tune_replay_opts o = { 0 };
		o.path = path;
		o.space = first.space;
		o.problem = first.problem;
		o.jobs = 2;
		o.err = devnull;
		struct tune_replay *rp;
		if (tune_replay_open(&rp, &o, &err) == 0) {
			(void)tune_replay_nrecords(rp);
			(void)tune_replay_device(rp);
			tune_replay_close(rp);
		} else {
			if (!err || !err[0])
				abort(); /* a refusal says why */
			free(err);
		}
	}
	free(first.space);
	free(first.problem);
	return 0;
}
