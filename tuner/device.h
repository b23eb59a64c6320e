/*
 * device.h - the seam between the evaluator and a compute API.  Owner:
 * tuner/device.c (the registry); one implementation per API, each in its
 * own folder: tuner/opencl/ (OpenCL), tuner/cuda/ (NVRTC and the CUDA
 * driver API).
 *
 * The evaluator (tuner/eval.c, in a worker process) does everything that
 * does not depend on the API through this table: the program-binary
 * cache, argument contents, the warm-up/timed-run loop and its median,
 * verification, and the C reference.  A backend only enumerates and opens
 * devices, answers the device queries by spacec's names, compiles and
 * (de)serialises programs, moves buffers, and launches one kernel run,
 * timed by the API's own events.
 *
 * Every function that can fail returns 0 or a backend error code; the
 * backend's error_name() spells it (CL_INVALID_WORK_GROUP_SIZE,
 * CUDA_ERROR_LAUNCH_FAILED, ...), and the result records that name.
 * DEV_E_NOMEM is the one code every backend shares (host memory).
 *
 * Processes: list, gpus and open initialise the API in the calling
 * process.  Drivers keep threads and locks that do not survive fork(), so
 * the tuner calls them only in children (tuner/worker.c).
 */
#ifndef SPACEC_TUNER_DEVICE_H
#define SPACEC_TUNER_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tuner/eval.h"

#define DEV_E_NOMEM (-1000000)

struct exec_hooks;  /* tuner/exec.h */

struct dev;         /* an opened device with its context and queue/stream */
struct dev_module;  /* a built program */
struct dev_kernel;  /* one kernel of a module */
struct dev_buf;     /* device memory */

/* One kernel argument of a launch. */
struct dev_arg {
	enum tune_arg_kind kind;
	size_t size;            /* SCALAR: bytes of *value; LOCAL: bytes of local memory */
	const void *value;      /* SCALAR */
	struct dev_buf *buf;    /* BUFFER */
};

/* A launch in OpenCL's terms: global = total work-items per dimension;
 * local[0] == 0 lets the backend choose the work-group. */
struct dev_launch {
	int dim;
	const size_t *global, *local;
	int nargs;
	const struct dev_arg *args;
};

struct dev_ops {
	const char *name;                 /* "opencl", "cuda": --backend's values */
	/* The query names it answers: query_name(0), (1), ... up to a NULL. */
	const char *(*query_name)(int i);

	/* spacetune devices: writes the listing, returns the count (-1: no driver). */
	int (*list)(FILE *out);
	/* GPUs as (platform index, device index), at most max; the count. */
	int (*gpus)(int (*out)[2], int max);
	/* Selects (tune_device_sel's rules) and opens a device. */
	int (*open)(struct dev **out, const struct tune_device_sel *sel,
	            struct tune_device_info *info, char **err);
	/* The same selection opened for query and close only: no context or
	 * stream, which is most of an open's time on a GPU (about 2 s for
	 * NVIDIA's OpenCL on an H100, where listing takes 0.3 s). */
	int (*open_queries)(struct dev **out, const struct tune_device_sel *sel,
	                    struct tune_device_info *info, char **err);
	/* 0 and *value; 1 if the device lacks it; -1 on a name not in queries. */
	int (*query)(struct dev *d, const char *name, int64_t *value);
	void (*close)(struct dev *d);
	const char *(*error_name)(int rc);

	/* Builds source with the tune section's options; *log gets the
	 * compiler's log (malloc'd, or NULL). */
	int (*compile)(struct dev *d, const char *source, const char *options,
	               struct dev_module **out, char **log);
	/* The module's binary, for the cache (malloc'd), and a module from one. */
	int (*binary)(struct dev *d, struct dev_module *m, void **bin, size_t *len);
	int (*load)(struct dev *d, const void *bin, size_t len, const char *options,
	            struct dev_module **out);
	void (*module_free)(struct dev *d, struct dev_module *m);
	int (*kernel)(struct dev *d, struct dev_module *m, const char *name, struct dev_kernel **out);
	void (*kernel_free)(struct dev *d, struct dev_kernel *k);

	int (*alloc)(struct dev *d, size_t bytes, struct dev_buf **out);
	void (*buf_free)(struct dev *d, struct dev_buf *b);
	/* Queued in order before the next launch; read waits for everything. */
	int (*write)(struct dev *d, struct dev_buf *b, const void *src, size_t bytes);
	int (*read)(struct dev *d, struct dev_buf *b, void *dst, size_t bytes);
	/* Device to device, queued like write. */
	int (*copy)(struct dev *d, struct dev_buf *dst, struct dev_buf *src, size_t bytes);

	/* The launch against the device's and the kernel's limits, before it
	 * is queued (drivers differ in whether they report a violation). */
	int (*check)(struct dev *d, struct dev_kernel *k, const struct dev_launch *l, char **detail);
	/*
	 * One run: queues the launch, calls hooks->started once the kernel
	 * runs (or as soon as it is queued, where the API cannot tell) and
	 * hooks->finished when it has ended; *ms is its time by the API's
	 * events.
	 */
	int (*launch)(struct dev *d, struct dev_kernel *k, const struct dev_launch *l,
	              const struct exec_hooks *hooks, double *ms);
	/* Waits for everything queued (after an error). */
	void (*finish)(struct dev *d);

	/* Builds without a device, for `target` (CUDA: "sm_90"), to check
	 * that a variant compiles: spacetune compile.  NULL where the API
	 * cannot (OpenCL compiles for an opened device). */
	int (*compile_offline)(const char *source, const char *options, const char *target, char **log);
};

/*
 * A backend's table of the required entries, its functions named
 * prefix_<entry>: one it lacks is a compile error, not a NULL found at run
 * time.  The name and optional entries (compile_offline) follow by hand.
 */
#define DEV_OPS_OF(prefix)                                                              \
	.query_name = prefix##_query_name, .list = prefix##_list, .gpus = prefix##_gpus,   \
	.open = prefix##_open, .open_queries = prefix##_open_queries,                      \
	.query = prefix##_query, .close = prefix##_close,                                  \
	.error_name = prefix##_error_name, .compile = prefix##_compile,                    \
	.binary = prefix##_binary, .load = prefix##_load, .module_free = prefix##_module_free, \
	.kernel = prefix##_kernel, .kernel_free = prefix##_kernel_free,                    \
	.alloc = prefix##_alloc, .buf_free = prefix##_buf_free, .write = prefix##_write,   \
	.read = prefix##_read, .copy = prefix##_copy, .check = prefix##_check,             \
	.launch = prefix##_launch,                                                         \
	.finish = prefix##_finish

/*
 * For a backend's launch: polls started(arg) from 20 us up to every 1 ms
 * (a short kernel costs no more than it runs) until it returns true, then
 * calls hooks->started, whose run limit starts there.
 */
void dev_await_start(bool (*started)(void *arg), void *arg, const struct exec_hooks *hooks);

/*
 * ops->open with the selection's GPU number resolved: sel->gpu > 0 opens
 * the backend's gpu-th GPU in the order of its gpus() (an error where it
 * lists fewer); else the selection as it is.
 */
int dev_open_queries(const struct dev_ops *ops, struct dev **out, const struct tune_device_sel *sel,
                     struct tune_device_info *info, char **err);
int dev_open(const struct dev_ops *ops, struct dev **out, const struct tune_device_sel *sel,
             struct tune_device_info *info, char **err);
/*
 * Of the GPUs every backend lists (tune_list_gpus), those that batch
 * workers and MPI ranks are made for: the backend that lists the most,
 * the first built in (OpenCL) on a tie, since on an NVIDIA machine OpenCL
 * and CUDA list the same cards and two workers on one card would disturb
 * each other's timings.  Worker k is then every backend's k-th GPU
 * (tune_device_sel.gpu = k + 1), whichever its problem's kernel picks.
 * Moves them to the front of `gpus`; returns their count.
 */
int dev_worker_gpus(struct tune_gpu *gpus, int n);
/* The backend named `name` (NULL: OpenCL), or NULL when it is not built in. */
const struct dev_ops *dev_backend(const char *name);
/* The backend a kernel file asks for: "cuda" for .cu, else "opencl". */
const char *dev_backend_of_path(const char *path);
/* The backends built in, NULL-terminated, OpenCL first. */
const struct dev_ops *const *dev_backends(void);
/* A code's name through ops, DEV_E_NOMEM included. */
const char *dev_error_name(const struct dev_ops *ops, int rc);
/* Does the selector `want` (an index, all digits, or a case-insensitive
 * substring of the name) pick item `index` named `name`?  NULL picks all. */
bool dev_sel_matches(const char *want, unsigned index, const char *name);

/*
 * The host's lock on one device's timings: a file that every spacetune
 * process timing on the card flock()s, so that two evaluators on one GPU
 * (batch slots, more MPI ranks than GPUs, two runs) never time at once.
 * The card's name is its PCI address where the backend tells it, else
 * backend, indices and name.  GPUs only, unless SPACETUNE_DEVICE_LOCK=1
 * (every device: tests on PoCL) or =0 (none); in SPACETUNE_LOCK_DIR,
 * else /tmp.  An open descriptor; -1 where none is wanted; -2 (errno
 * set, *path the file) where the file cannot be opened, for the caller
 * to warn: timings then go unguarded, as before the lock existed.
 */
int dev_lock_open(const char *backend, const struct tune_device_info *info, char *path, size_t size);
/* Blocks until the lock is this process's; fd -1: nothing to do. */
void dev_lock_take(int fd);
void dev_lock_drop(int fd);

#endif
