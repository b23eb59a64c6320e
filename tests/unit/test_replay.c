/*
 * test_replay.c - Criterion tests of the replay's dataset reading
 * (tuner/replay.h): a dataset is parsed once per process and kept while
 * its files are unchanged, whichever problem an open asks for, and read
 * again when a file changes or is added.  The oracle is the lines the
 * test writes: how many records of each problem, and which file changed.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/replay.h"
#include "status_stub.h"

/* a scratch directory, and its first dataset file */
static char dir[] = "/tmp/test_replay.XXXXXX", file[96];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof file, "%s/a.jsonl", dir);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* n records of problem "N=<size>" with parameter X = first .. first + n - 1 */
static void write_records(const char *path, int size, int first, int n)
{
	FILE *f = fopen(path, "a");
	cr_assert_not_null(f);
	for (int i = first; i < first + n; i++)
		fprintf(f, "{\"space\":\"s\",\"problem\":\"N=%d\",\"device\":\"Dev\",\"platform\":\"P\","
		        "\"driver\":\"1\",\"source_hash\":\"h\",\"params\":{\"X\":%d},\"status\":\"ok\","
		        "\"time_ms\":{\"median\":%d.5,\"min\":1}}\n", size, i, i);
	cr_assert_eq(fclose(f), 0);
}

/* Opens the problem's replay: its record count, and what the open read. */
static long records_of(const char *path, int size, long *read, long *kept)
{
	char problem[32];
	snprintf(problem, sizeof problem, "N=%d", size);
	struct tune_replay_opts o = { .path = path, .space = "s", .problem = problem, .jobs = 1 };
	struct tune_replay *rp;
	char *err = NULL;
	long before_read, before_kept;
	tune_replay_reads(&before_read, &before_kept);
	cr_assert_eq(tune_replay_open(&rp, &o, &err), 0, "%s", err ? err : "");
	long n = tune_replay_nrecords(rp);
	cr_assert_str_eq(tune_replay_device(rp)->name, "Dev");
	tune_replay_close(rp);
	tune_replay_reads(read, kept);
	*read -= before_read;
	*kept -= before_kept;
	return n;
}

TestSuite(replay, .init = setup, .fini = teardown);

Test(replay, parsed_once_for_every_problem)
{
	write_records(file, 1024, 0, 3);
	write_records(file, 2048, 0, 5);
	long read, kept;
	cr_expect_eq(records_of(file, 1024, &read, &kept), 3);
	cr_expect_eq(read, 1);
	cr_expect_eq(kept, 0);
	cr_expect_eq(records_of(file, 2048, &read, &kept), 5, "another problem of the same dataset");
	cr_expect_eq(read, 0, "not parsed again");
	cr_expect_eq(kept, 1);
	cr_expect_eq(records_of(file, 1024, &read, &kept), 3);
	cr_expect_eq(kept, 1);
}

Test(replay, a_changed_file_is_read_again)
{
	write_records(file, 1024, 0, 3);
	long read, kept;
	cr_expect_eq(records_of(file, 1024, &read, &kept), 3);
	write_records(file, 1024, 3, 2);
	cr_expect_eq(records_of(file, 1024, &read, &kept), 5, "the appended records");
	cr_expect_eq(read, 1);
	cr_expect_eq(kept, 0);
}

Test(replay, a_directory_with_a_new_file_is_read_again)
{
	write_records(file, 1024, 0, 3);
	long read, kept;
	cr_expect_eq(records_of(dir, 1024, &read, &kept), 3);
	cr_expect_eq(records_of(dir, 1024, &read, &kept), 3);
	cr_expect_eq(kept, 1);
	char other[128];
	snprintf(other, sizeof other, "%s/b.jsonl", dir);
	write_records(other, 1024, 10, 4);
	cr_expect_eq(records_of(dir, 1024, &read, &kept), 7, "b.jsonl's records too");
	cr_expect_eq(read, 1);
}

/* A replay still open keeps its dataset when another open reads a newer one. */
Test(replay, an_open_replay_outlives_the_kept_dataset)
{
	write_records(file, 1024, 0, 3);
	struct tune_replay_opts o = { .path = file, .space = "s", .problem = "N=1024", .jobs = 1 };
	struct tune_replay *first;
	char *err = NULL;
	cr_assert_eq(tune_replay_open(&first, &o, &err), 0);
	write_records(file, 1024, 3, 1);
	long read, kept;
	cr_expect_eq(records_of(file, 1024, &read, &kept), 4);
	cr_expect_eq(read, 1);
	cr_expect_eq(tune_replay_nrecords(first), 3, "the first open's records, unchanged");
	cr_expect_str_eq(tune_replay_device(first)->name, "Dev");
	tune_replay_close(first);
}

Test(replay, no_records_of_the_problem)
{
	write_records(file, 1024, 0, 3);
	struct tune_replay_opts o = { .path = file, .space = "s", .problem = "N=4096", .jobs = 1 };
	struct tune_replay *rp = NULL;
	char *err = NULL;
	cr_expect_eq(tune_replay_open(&rp, &o, &err), -1);
	cr_expect_null(rp);
	cr_assert_not_null(err);
	cr_expect(strstr(err, "no records of space 's' for the problem (N=4096)") != NULL, "%s", err);
	free(err);
}

/*
 * Only lines that can be the problem's are parsed, but every one that is
 * counts: a problem spelt with JSON escapes is the same problem, and a
 * line naming the problem in another field is not the problem's.
 */
Test(replay, escaped_and_look_alike_lines)
{
	write_records(file, 1024, 0, 2);
	FILE *f = fopen(file, "a");
	cr_assert_not_null(f);
	fputs("{\"space\":\"s\",\"problem\":\"N\\u003d1024\",\"device\":\"Dev\",\"platform\":\"P\","
	      "\"driver\":\"1\",\"source_hash\":\"h\",\"params\":{\"X\":7},\"status\":\"ok\","
	      "\"time_ms\":{\"median\":1,\"min\":1}}\n", f);
	fputs("{\"space\":\"s\",\"problem\":\"N=2048\",\"note\":\"N=1024\",\"device\":\"Dev\",\"platform\":\"P\","
	      "\"driver\":\"1\",\"source_hash\":\"h\",\"params\":{\"X\":8},\"status\":\"ok\","
	      "\"time_ms\":{\"median\":1,\"min\":1}}\n", f);
	cr_assert_eq(fclose(f), 0);
	long read, kept;
	cr_expect_eq(records_of(file, 1024, &read, &kept), 3, "two plain lines and the escaped one");
	cr_expect_eq(records_of(file, 2048, &read, &kept), 1, "the look-alike is N=2048's");
}

/* A line with NUL bytes (what a crash can leave in a file's middle when
 * the file system had not written the blocks) is one bad line: the
 * records after it are still the problem's. */
Test(replay, a_line_with_nul_bytes_hides_nothing_after_it)
{
	write_records(file, 1024, 0, 2);
	static const char torn[] = "{\"space\":\"s\",\"problem\":\"N=1024\",\"dev\0\0\0ice\":\"Dev\"}\n";
	FILE *f = fopen(file, "a");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(torn, 1, sizeof torn - 1, f), sizeof torn - 1);
	cr_assert_eq(fclose(f), 0);
	write_records(file, 1024, 2, 2);
	long read, kept;
	cr_expect_eq(records_of(file, 1024, &read, &kept), 4, "the two records before the bad line and the two after");
}
