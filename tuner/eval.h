/*
 * eval.h - evaluating variants on a device, isolated in worker
 * processes.  Owner: tuner/eval.c, tuner/worker.c; the compute APIs sit
 * behind tuner/device.h.
 *
 * A struct tune_evaluator owns a pool of `jobs` worker processes, each with
 * its own context on the selected device (OpenCL or CUDA).  Builds run in parallel in
 * the workers; timed runs are serialised on the device (one worker times at
 * a time) so measurements do not disturb each other.  A worker that
 * crashes, aborts or outlives a limit is killed and replaced; only its
 * evaluation is lost, recorded as TUNE_CRASHED, TUNE_TIMEOUT (a kernel run
 * past the run limit) or TUNE_BUILD_ERROR (no build within the build
 * limit).
 */
#ifndef SPACEC_TUNER_EVAL_H
#define SPACEC_TUNER_EVAL_H

#include <sys/types.h>
#include <signal.h>
#include <stdio.h>

#include "tuner/variant.h"

enum tune_status {
	TUNE_OK,
	TUNE_BUILD_ERROR,   /* log holds the build log */
	TUNE_LAUNCH_ERROR,  /* error holds the backend's error name, e.g. CL_INVALID_WORK_GROUP_SIZE */
	TUNE_WRONG_RESULT,  /* max_abs_err / max_rel_err / nonfinite say how wrong */
	TUNE_TIMEOUT,       /* a kernel run past the run limit: the time it had run
	                       (a lower bound) as median and min, runs = timed runs done */
	TUNE_CRASHED,       /* error holds the signal or exit status */
	TUNE_SKIPPED        /* rejected before building (e.g. global % local != 0) */
};

const char *tune_status_name(enum tune_status s); /* "ok", "build_error", ... */

struct tune_result {
	enum tune_status status;
	double time_median_ms, time_min_ms;  /* TUNE_OK, TUNE_WRONG_RESULT, TUNE_TIMEOUT */
	int runs;                            /* timed runs done */
	double max_abs_err, max_rel_err;
	uint64_t nonfinite;                  /* NaN/Inf elements in compared outputs */
	double build_s;                      /* wall time of the build (0 if cached) */
	bool build_cached;                   /* the program came from the cache, unbuilt */
	/* Wall time the evaluation held the device: inputs up, warm-up and
	 * timed runs, outputs back (0: it never got there).  A replay's clock
	 * (replay.h) charges it. */
	double device_s;
	char *error;                         /* short message, malloc'd or NULL */
	char *log;                           /* build log, malloc'd or NULL */
};
void tune_result_release(struct tune_result *r);

/* Device selection: index or case-insensitive substring of the name. */
struct tune_device_sel {
	const char *backend;   /* "opencl" (NULL), "cuda": tuner/device.h */
	const char *platform;  /* NULL: first platform with a matching device */
	const char *device;    /* NULL: first device; both NULL: the first GPU, else the first device */
	/* > 0: the backend's gpu-th GPU in its own order (dev_ops.gpus), in
	 * place of platform and device, so that one choice of card means a
	 * card whichever backend the problem's kernel picks (batch workers) */
	int gpu;
};

struct tune_device_info {
	char platform[256], name[256], vendor[256], driver[256], version[256];
	int platform_index, device_index;
	/* The card's PCI address ("0000:65:00.0") where the backend tells it,
	 * else "": names one card whichever backend opened it (tune_device_lock). */
	char pci[32];
	bool gpu;
};

/*
 * Lists platforms and devices with their key limits to `out` (spacetune
 * devices), every backend built in.  Returns the number of devices, or -1
 * if no backend has a driver (with a message on stderr or in the listing).
 */
int tune_list_devices(FILE *out);

/* A GPU that a backend lists: the backend (index in dev_backends()) and
 * its platform and device indices there. */
struct tune_gpu {
	int backend, platform, device;
};
/* The GPUs of every backend built in, each backend's in its order, found
 * in a child process like the listing; at most max (TUNE_MAX_GPUS is
 * plenty).  A backend without driver lists none, silently.  Returns the
 * count, 0 with no GPU, -1 when the child failed. */
enum { TUNE_MAX_GPUS = 64 };
int tune_list_gpus(struct tune_gpu *out, int max);

/*
 * The GPU keeper: a child that holds one context on every GPU of the
 * first backend that lists any, for as long as a run or batch lasts.
 * Where the NVIDIA driver runs without persistence mode, a GPU that no
 * process holds is torn down, and the next process to open it waits for
 * it to be set up again (seconds); the tuner opens devices only in
 * short-lived children (the listing, the device query, every worker), so
 * without a holder each of them could pay that.  `only`: hold just this
 * selection's device (a run's), if it is a GPU; NULL: every GPU (a batch).
 * Returns the keeper's pid (0: not started: SPACETUNE_KEEP_GPUS=0, or fork
 * failed); it exits by itself where there is no GPU, and with its parent.
 */
pid_t tune_gpu_keeper_start(const struct tune_device_sel *only);
/* Ends the keeper (0: nothing to do) and reaps it. */
void tune_gpu_keeper_stop(pid_t keeper);

/* For a just-forked child of `parent`: die with SIGKILL when the parent
 * dies (Linux), so a tuner killed with -9 leaves no child tuning on. */
void tune_die_with_parent(pid_t parent);

/*
 * Reads one device query by spacec's name ("max_work_group_size",
 * "max_work_item_size_x|y|z", "local_mem_size", "max_compute_units",
 * "global_mem_size", "max_clock_frequency", "max_constant_buffer_size",
 * "warp_size" and "registers_per_block" (NVIDIA extension),
 * "compute_capability_major|minor" (NVIDIA), "preferred_vector_width_float",
 * "double_fp" (0/1)).  Returns 0 and sets *value, 1 if the device does not
 * have it, -1 on an unknown name or no device.
 */
int tune_device_query(const struct tune_device_sel *sel, const char *query, int64_t *value);

/*
 * Every query of one device, read at once (tune_device_query opens the
 * device each time).  Listing and queries run in a child process: the
 * caller never initialises OpenCL or CUDA itself, so the evaluator can fork its
 * workers safely afterwards.
 */
struct tune_device_props;
int tune_device_props_read(const struct tune_device_sel *sel, struct tune_device_props **out,
                           char **err);
const struct tune_device_info *tune_device_props_info(const struct tune_device_props *p);
/* As tune_device_query: 0 and *value, 1 if the device lacks it, -1 on an unknown name. */
int tune_device_props_get(const struct tune_device_props *p, const char *query, int64_t *value);
void tune_device_props_free(struct tune_device_props *p);

struct tune_eval_opts {
	struct tune_device_sel device;
	int jobs;               /* worker processes (parallel builds); >= 1 */
	int warmup, repeat;     /* runs before timing; timed runs (>= 1) */
	/* Everything of an evaluation but its kernel runs: the build, the
	   driver's preparation before a run starts (PoCL compiles for the
	   work-group size there), transfers and verification; and the
	   reference's build.  The clock stops while the evaluation waits for a
	   worker to start or for its turn on the device.  0: none. */
	double build_timeout_s;
	/* One kernel run, from when the driver reports it running (CL_RUNNING;
	   a driver that never does leaves the run to the build clock), and the
	   C reference's call.  0: none; TUNE_RUN_LIMIT_AUTO: scaled with the
	   fastest correct median so far (worker.c says how). */
	double run_timeout_s;
	const char *cache_dir;  /* program-binary cache; NULL: $XDG_CACHE_HOME/spacetune */
	const char *worker_log; /* workers' stdout+stderr appended there (driver chatter,
	                           kernel printf, sanitizer reports); NULL: inherited */
	/* Set asynchronously (SIGINT/SIGTERM), or NULL: the start gives up at
	   once, and wait_any gives what is in flight a short grace. */
	volatile sig_atomic_t *interrupted;
	/* Not a device but a recorded database (a file, NAME.xz or a
	   directory; replay.h): spacetune run and batch replay it on a
	   virtual clock, really waiting it out with replay_sleep. */
	const char *replay;
	bool replay_sleep;
	/* With replay_sleep: a file whose flock() the replays of one device
	   share (batch --slots), so that their device times queue as on a
	   card; NULL: each replay has its own device. */
	const char *replay_lock;
};

#define TUNE_RUN_LIMIT_AUTO (-1.0)

struct tune_evaluator;

/*
 * Starts the workers and computes the reference outputs once (in the
 * first worker, while the others open the device, so a crashing
 * reference is reported, not fatal to the caller).  `proto`
 * gives the arguments (buffers, sizes, initialisers; scalars as for every
 * variant).  Returns 0, or -1 with a message in *err (malloc'd).
 */
int tune_evaluator_start(struct tune_evaluator **out, const struct tune_eval_opts *o,
                         const struct tune_reference *ref, const struct tune_variant *proto,
                         struct tune_device_info *info, char **err);

/*
 * The next problem on a started evaluator whose workers are idle: they
 * keep their processes and devices and are sent the new arguments and
 * reference (worker.c: SETUP), which is then computed as by start.  0;
 * 1 when the evaluator cannot serve these options (another device,
 * backend, worker count or log: nothing changed, stop it and start a new
 * one); -1 with *err, the evaluator stopped.
 */
int tune_evaluator_restart(struct tune_evaluator *ev, const struct tune_eval_opts *o,
                           const struct tune_reference *ref, const struct tune_variant *proto,
                           struct tune_device_info *info, char **err);

/*
 * Asynchronous interface, so the caller can keep `jobs` evaluations in
 * flight: submit returns at once (0, or -1 if no worker is free);
 * wait_any blocks until one submitted evaluation finishes and returns its
 * point_index and result (-1 if none is in flight; TUNE_EVAL_ABANDONED
 * once the run is interrupted and some are still in flight 2 s later:
 * they are not finished, and tune_evaluator_stop kills them).
 */
int tune_evaluator_submit(struct tune_evaluator *ev, const struct tune_variant *v);
int tune_evaluator_idle_workers(const struct tune_evaluator *ev);
long tune_evaluator_wait_any(struct tune_evaluator *ev, struct tune_result *res);
#define TUNE_EVAL_ABANDONED (-2L)

/* A correct median known from elsewhere (the database): it scales the
 * automatic run limit as the evaluator's own results do. */
void tune_evaluator_observe(struct tune_evaluator *ev, double median_ms);

void tune_evaluator_stop(struct tune_evaluator *ev);

#endif
