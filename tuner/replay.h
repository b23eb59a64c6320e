/*
 * replay.h - a recorded database as the device (`spacetune run --replay`,
 * `spacetune batch --replay`): each evaluation returns what the database
 * recorded for that configuration, on a virtual clock.  Owner: tuner/replay.c.
 *
 * The clock models what the device run spent: `jobs` workers, each
 * evaluation holding one from its submission to its end; its build takes
 * the recorded build_s on the worker (builds run in parallel), then it
 * waits for the device, which runs one evaluation at a time, in the order
 * their builds end, for the recorded device_s (the device phase as the
 * worker timed it) or, in records without it, (warmup + runs) x the
 * median.  So a time budget stops a replay where it would have stopped
 * the recorded run, up to the host's own overheads.  Ties go to the
 * earlier submission: a replay is a function of its inputs and the seed.
 *
 * A configuration the database does not have is not invented: submit
 * says so and the caller reports it.
 */
#ifndef SPACEC_TUNER_REPLAY_H
#define SPACEC_TUNER_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "tuner/eval.h"

struct tune_replay_opts {
	/* A JSONL database, one compressed with xz (NAME.xz, decoded with
	 * liblzma), or a directory: every *.jsonl and *.jsonl.xz in it.  Read
	 * once per process while its files are unchanged: the next open of
	 * the same path, another problem's included, parses nothing. */
	const char *path;
	const char *space;        /* the records' "space" */
	const char *problem;      /* their "problem" (NULL or "": none) */
	/* Which recorded device: a case-insensitive substring of its name;
	 * NULL or an index (digits, a live device's selection) when the
	 * records of this space and problem have one device. */
	const char *device;
	/* The job's source hash: its records are preferred; records of another
	 * hash (the kernel edited since) are used with a warning on err. */
	const char *source_hash;
	int jobs;                 /* workers modelled (>= 1) */
	int warmup;               /* untimed runs per evaluation, for old records */
	/* Really wait out the virtual clock (a replayed device for measuring
	 * a distributed driver), instead of returning at once. */
	bool sleep;
	/* With sleep: a lock file (created if missing) that the replays of one
	 * device share, taken for each evaluation's device time as a worker
	 * takes the card's (dev_lock_open); NULL: a device of its own. */
	const char *device_lock;
	FILE *err;                /* warnings */
};

struct tune_replay;

/* 0; -1 with *err (malloc'd): unreadable, or no records for the space,
 * problem and device, or several devices and no selection. */
int tune_replay_open(struct tune_replay **out, const struct tune_replay_opts *o, char **err);
void tune_replay_close(struct tune_replay *rp);

/* The recorded device, platform and driver (indices -1). */
const struct tune_device_info *tune_replay_device(const struct tune_replay *rp);
/* How many opens read their dataset, and how many found it kept from an
 * earlier open of this process (unchanged since: replay.c). */
void tune_replay_reads(long *read, long *kept);
/* Records loaded for the selected device and hash. */
long tune_replay_nrecords(const struct tune_replay *rp);

/* Starts the variant's recorded evaluation at the current virtual time:
 * 0; 1 when the database has no record of it (nothing starts); -1 when
 * all `jobs` workers are busy. */
int tune_replay_submit(struct tune_replay *rp, const struct tune_variant *v);

/* Advances the clock to the next evaluation's end and gives its point and
 * recorded result (error string malloc'd: tune_result_release); -1 when
 * none is in flight. */
long tune_replay_wait_any(struct tune_replay *rp, struct tune_result *res);

/* Virtual seconds since the open (or the last restart). */
double tune_replay_clock(const struct tune_replay *rp);

/* The clock back to 0, as if just opened (a kept replay's next run,
 * another seed's search); nothing may be in flight. */
void tune_replay_restart(struct tune_replay *rp);

/* Whether the database records this variant's configuration. */
bool tune_replay_has(const struct tune_replay *rp, const struct tune_variant *v);

#endif
