/*
 * exec.h - what one worker process does (tuner/eval.c): build a variant
 * (through the program-binary cache), launch it, time it and verify its
 * outputs; and compute the reference outputs, on the job's backend
 * (tuner/device.h).  Internal to the evaluator: callers use eval.h.
 *
 * The parent prepares a struct exec_shared per problem: the arguments'
 * initial contents (generated once from their seeds) and room for the
 * reference outputs, in one shared memory file (sh->data, a memfd).  A
 * worker forked now maps it by inheritance; a live worker kept from the
 * last problem is sent the description and the file's descriptor
 * (worker.c: SETUP) and maps it too: the data is never copied per worker.
 * The first worker writes the reference outputs into that file; the
 * others may verify only once told (REF_READY), or when forked after.
 */
#ifndef SPACEC_TUNER_EXEC_H
#define SPACEC_TUNER_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tuner/eval.h"
#include "tuner/device.h"

/* printf into a new string (NULL only when out of memory). */
char *tune_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* write(2) all of it, through EINTR; false on error. */
bool tune_write_all(int fd, const void *data, size_t n);
/* read(2) to EOF into a new NUL-terminated string; NULL on out of memory. */
char *tune_read_fd(int fd, size_t *len);
/* Monotonic clock, seconds. */
double tune_now(void);
/* SPACETUNE_TRACE_LOCK is set (and not 0): trace lines on stderr. */
bool tune_trace_on(void);

/* One kernel argument as the job lays it out, with its host data. */
struct exec_arg {
	struct tune_arg arg;   /* deep copy: name and init.path owned */
	void *init;            /* buffers: initial contents (out: zeros), in sh->data */
	size_t bytes;          /* buffers: count * element size */
	void *ref;             /* out/inout buffers with a reference: its output, in sh->data; or NULL */
};

struct exec_shared {
	struct tune_device_sel sel;  /* strings owned */
	const struct dev_ops *ops;   /* sel.backend's */
	int warmup, repeat;
	char *cache_dir;
	pid_t temporary_owner;       /* the process whose private cache_dir this is, or 0 */
	struct tune_reference ref;   /* strings owned */
	int nargs;
	struct exec_arg *args;
	/* MAP_SHARED view of the memfd data_fd (both owned; NULL and -1
	 * when the job has no buffer): every init, then every ref. */
	char *data;
	size_t data_len;
	int data_fd;
	bool ref_ready;              /* the refs hold the reference's outputs (or there is none) */
};

/* Copies everything and generates the initial contents.  0, or -1 with *err. */
int exec_shared_init(struct exec_shared *sh, const struct tune_eval_opts *o,
                     const struct tune_reference *ref, const struct tune_variant *proto, char **err);
void exec_shared_release(struct exec_shared *sh);
/* Lays the buffers (args' bytes set) out in sh->data: in a new memfd when
 * fd < 0, else in fd's (taken over, closed on failure).  0, or -1 with *err. */
int exec_shared_map(struct exec_shared *sh, int fd, char **err);

/*
 * What a worker tells its parent while it evaluates: acquire and release
 * bracket the timed section, so that one worker at a time uses the
 * device; started and finished bracket each kernel run (and the C
 * reference's call), so that the parent's run limit covers the kernel's
 * own execution and its build limit everything else.  Any may be NULL.
 */
struct exec_hooks {
	int (*acquire)(void *user);  /* 0, or -1: the parent is gone */
	void (*release)(void *user);
	void (*started)(void *user);
	void (*finished)(void *user);
	void *user;
};

struct exec_worker {
	struct exec_shared *sh;
	const struct dev_ops *ops;
	struct dev *dev;
	struct tune_device_info info;
	struct dev_buf **mems; /* per argument, created at first use */
	/* Per argument, its initial contents kept on the device (NULL: none,
	 * written from the host each time): eval.c's reset_buffer. */
	struct dev_buf **pristine;
	void **host;           /* per argument, read-back space */
	struct exec_hooks hooks;
	/* Set after a driver error at run time: the context may be unusable,
	 * so the worker exits and the parent starts a fresh one. */
	bool poisoned;
	bool lost_parent;      /* acquire failed: exit without a result */
};

int exec_worker_open(struct exec_worker *w, struct exec_shared *sh, char **err);
void exec_worker_close(struct exec_worker *w);
/* The next problem's state (*next, taken over; its sel and ops are the
 * worker's): the device buffers go, the device stays.  0, or -1 with *err. */
int exec_worker_adopt(struct exec_worker *w, struct exec_shared *next, char **err);

/* Builds, runs, times and verifies one variant; fills *r (every field). */
void exec_worker_eval(struct exec_worker *w, const struct tune_variant *v, struct tune_result *r);

/*
 * Runs the reference (kernel or C) with the job's arguments and writes its
 * outputs to w->sh->args[i].ref for every out/inout buffer.  0, or -1 with
 * *err.
 */
int exec_worker_reference(struct exec_worker *w, char **err);

#endif
