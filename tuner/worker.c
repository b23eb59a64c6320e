/*
 * worker.c - the evaluator's worker processes: spawning, the socket
 * protocol, the device lock, timeouts and crash recovery; and the device
 * listing and queries, which run in a child for the same reason workers
 * are forked: the calling process must never initialise a compute API
 * (OpenCL, CUDA).
 *
 * Protocol: every message is a 16-byte header {u32 type, u32 0, u64 length}
 * and a payload, over a SOCK_STREAM socketpair (one per worker).
 *
 *   parent -> worker: EVAL(variant)  GRANT  REFERENCE  REF_READY
 *                     SETUP(problem, with the data's memfd: exec.h)
 *   worker -> parent: HELLO(device info) | HELLO_FAIL(message)
 *                     ACQUIRE ... RELEASE   (around the timed runs)
 *                     RUNNING(t) ... RAN(t) (around each kernel run, and
 *                                            the C reference's call)
 *                     RESULT(result)  REF_DONE | REF_FAIL(message)
 *
 * Workers live as long as their evaluator, which a batch worker keeps
 * from problem to problem (tune_evaluator_restart): a problem's state
 * comes by inheritance to a worker forked during it, else by SETUP, after
 * which the worker frees its device buffers but keeps its device.  All
 * are forked at the start; the first computes the reference (REFERENCE)
 * into the shared data, and the others, told by REF_READY, evaluate only
 * after it: the parent sends them no EVAL before, and a worker that gets
 * one anyway exits.
 *
 * An evaluation goes only to a worker that is ready (its HELLO seen) and
 * idle.  Until there is one it waits in the evaluator's queue, and the
 * first worker to become free, by a result or by its HELLO, takes it:
 * opening a device can take seconds (NVIDIA: 14 s for 16 contexts at
 * once), and an evaluation bound to a worker still opening one would wait
 * that long while ready workers idle (bench/README.md, issue 14).
 *
 * RUNNING and RAN carry the worker's CLOCK_MONOTONIC time (one clock for
 * every process).  They drive the parent's two limits: the run limit
 * covers one kernel run, from RUNNING; the build limit covers the rest of
 * an evaluation (building, the driver's preparation before the first run
 * starts, transfers, verification), and stops while the worker starts or
 * waits for the device.
 *
 * The parent reads without blocking into a per-worker buffer and acts only
 * on complete messages, so a worker dying mid-message is seen as EOF, never
 * as a hang.  Sends use MSG_NOSIGNAL: a dead peer gives EPIPE, not SIGPIPE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "tuner/buf.h"
#include "tuner/exec.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

enum msg_type {
	MSG_EVAL = 1, MSG_GRANT, MSG_REFERENCE, MSG_SETUP, MSG_REF_READY,
	MSG_HELLO = 16, MSG_HELLO_FAIL, MSG_ACQUIRE, MSG_RELEASE, MSG_RESULT, MSG_REF_DONE,
	MSG_REF_FAIL, MSG_RUNNING, MSG_RAN, MSG_LOCKED
};

struct msg_header {
	uint32_t type, zero;
	uint64_t len;
};

/* Payloads beyond this are a protocol error (reference outputs may be big). */
#define MAX_MSG ((uint64_t)1 << 36)
/* How long a worker may take to start (driver initialisation) or to accept a message. */
#define START_LIMIT_S 300.0
#define SEND_STALL_S 60.0
/* Consecutive workers dying before they are ready: then the device is unusable. */
#define MAX_FAILED_STARTS 3
/* The automatic run limit (TUNE_RUN_LIMIT_AUTO): RUN_AUTO_FACTOR times the
 * fastest correct median so far (before there is one, the reference's
 * run) plus RUN_AUTO_FLOOR_S, which absorbs a loaded machine's stalls;
 * RUN_AUTO_UNKNOWN_S while neither is known; the reference itself, whose
 * scale nothing tells, gets RUN_AUTO_REFERENCE_S. */
#define RUN_AUTO_FACTOR 10.0
#define RUN_AUTO_FLOOR_S 1.0
#define RUN_AUTO_UNKNOWN_S 30.0
#define RUN_AUTO_REFERENCE_S 600.0
/* After SIGINT/SIGTERM, evaluations in flight get this long to finish. */
#define INTERRUPT_GRACE_S 2.0
/* While an interruption may come, waits wake at least this often to see it. */
#define INTERRUPT_POLL_MS 200

/* ---- serialisation -------------------------------------------------------------- */

static void wb_u64(struct tune_buf *b, uint64_t v) { tune_buf_add(b, &v, sizeof v); }
static void wb_f64(struct tune_buf *b, double v) { tune_buf_add(b, &v, sizeof v); }

static void wb_str(struct tune_buf *b, const char *s)
{
	if (!s) {
		wb_u64(b, UINT64_MAX);
		return;
	}
	size_t n = strlen(s);
	wb_u64(b, n);
	tune_buf_add(b, s, n + 1);
}

struct rbuf {
	const char *p;
	size_t len, pos;
	bool bad;
};

static void rb_get(struct rbuf *b, void *out, size_t n)
{
	if (b->bad || b->len - b->pos < n) {
		b->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, b->p + b->pos, n);
	b->pos += n;
}

static uint64_t rb_u64(struct rbuf *b) { uint64_t v; rb_get(b, &v, sizeof v); return v; }
static double rb_f64(struct rbuf *b) { double v; rb_get(b, &v, sizeof v); return v; }

/* A string inside the buffer (NUL-terminated there), or NULL. */
static const char *rb_str(struct rbuf *b)
{
	uint64_t n = rb_u64(b);
	if (b->bad || n == UINT64_MAX)
		return NULL;
	if (n >= b->len - b->pos || b->p[b->pos + n] != 0) {
		b->bad = true;
		return NULL;
	}
	const char *s = b->p + b->pos;
	b->pos += n + 1;
	return s;
}

static void encode_arg(struct tune_buf *b, const struct tune_arg *a)
{
	wb_u64(b, a->kind);
	wb_u64(b, a->type);
	wb_str(b, a->name);
	wb_u64(b, (uint64_t)a->i);
	wb_f64(b, a->f);
	wb_u64(b, a->count);
	wb_u64(b, a->access);
	wb_u64(b, a->init.kind);
	wb_u64(b, a->init.seed);
	wb_f64(b, a->init.lo);
	wb_f64(b, a->init.hi);
	wb_f64(b, a->init.value);
	wb_str(b, a->init.path);
	wb_u64(b, a->compare);
}

/* Strings point into the message. */
static void decode_arg(struct rbuf *b, struct tune_arg *a)
{
	a->kind = (enum tune_arg_kind)rb_u64(b);
	a->type = (enum tune_type)rb_u64(b);
	a->name = rb_str(b);
	a->i = (int64_t)rb_u64(b);
	a->f = rb_f64(b);
	a->count = rb_u64(b);
	a->access = (enum tune_access)rb_u64(b);
	a->init.kind = (enum tune_init_kind)rb_u64(b);
	a->init.seed = rb_u64(b);
	a->init.lo = rb_f64(b);
	a->init.hi = rb_f64(b);
	a->init.value = rb_f64(b);
	a->init.path = rb_str(b);
	a->compare = rb_u64(b) != 0;
	if (a->kind > TUNE_ARG_LOCAL || a->type > TUNE_DOUBLE || a->access > TUNE_INOUT)
		b->bad = true;
}

static void encode_variant(struct tune_buf *b, const struct tune_variant *v)
{
	wb_str(b, v->source);
	wb_str(b, v->kernel_name);
	wb_str(b, v->build_options);
	wb_u64(b, (uint64_t)v->work_dim);
	for (int d = 0; d < 3; d++) {
		wb_u64(b, v->global[d]);
		wb_u64(b, v->local[d]);
	}
	wb_u64(b, (uint64_t)v->nargs);
	for (int i = 0; i < v->nargs; i++)
		encode_arg(b, &v->args[i]);
	uint64_t nidx = 0;
	for (int k = 0; k < v->nsteps; k++)
		nidx += (uint64_t)v->steps[k].nargs;
	wb_u64(b, (uint64_t)v->nsteps);
	wb_u64(b, nidx);
	for (int k = 0; k < v->nsteps; k++) {
		const struct tune_step *st = &v->steps[k];
		wb_u64(b, (uint64_t)st->work_dim);
		for (int d = 0; d < 3; d++) {
			wb_u64(b, st->global[d]);
			wb_u64(b, st->local[d]);
		}
		wb_u64(b, (uint64_t)st->nargs);
		for (int i = 0; i < st->nargs; i++)
			wb_u64(b, (uint64_t)st->arg_index[i]);
	}
}

/* The steps of a multi-kernel variant into one malloc'd block (*mem):
 * the step array, then every step's argument indices. */
static int decode_steps(struct rbuf *b, struct tune_variant *v, void **mem)
{
	uint64_t ns = rb_u64(b), nidx = rb_u64(b);
	if (b->bad || ns > b->len / 8 || nidx > b->len / 8)
		return -1;
	if (ns == 0)
		return 0;
	struct tune_step *steps = calloc(1, ns * sizeof *steps + nidx * sizeof(int));
	if (!steps)
		return -1;
	*mem = steps;
	int *idx = (int *)(steps + ns);
	uint64_t used = 0;
	for (uint64_t k = 0; k < ns && !b->bad; k++) {
		struct tune_step *st = &steps[k];
		st->work_dim = (int)rb_u64(b);
		for (int d = 0; d < 3; d++) {
			st->global[d] = (size_t)rb_u64(b);
			st->local[d] = (size_t)rb_u64(b);
		}
		uint64_t n = rb_u64(b);
		if (n > nidx - used) {
			b->bad = true;
			break;
		}
		st->nargs = (int)n;
		st->arg_index = idx + used;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t a = rb_u64(b);
			if (a >= (uint64_t)v->nargs)
				b->bad = true;
			idx[used++] = (int)a;
		}
	}
	v->nsteps = (int)ns;
	v->steps = steps;
	return b->bad ? -1 : 0;
}

/* Strings point into the message; *args is malloc'd.  0, or -1 if malformed. */
static int decode_variant(struct rbuf *b, struct tune_variant *v, struct tune_arg **args, void **steps)
{
	memset(v, 0, sizeof *v);
	v->source = rb_str(b);
	v->kernel_name = rb_str(b);
	v->build_options = rb_str(b);
	v->work_dim = (int)rb_u64(b);
	for (int d = 0; d < 3; d++) {
		v->global[d] = (size_t)rb_u64(b);
		v->local[d] = (size_t)rb_u64(b);
	}
	uint64_t n = rb_u64(b);
	if (b->bad || n > b->len / 8 || !v->source || !v->kernel_name)
		return -1;
	*args = calloc(n + 1, sizeof **args);
	if (!*args)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		decode_arg(b, &(*args)[i]);
	v->nargs = (int)n;
	v->args = *args;
	return b->bad || decode_steps(b, v, steps) ? -1 : 0;
}

static void encode_result(struct tune_buf *b, const struct tune_result *r)
{
	wb_u64(b, r->status);
	wb_f64(b, r->time_median_ms);
	wb_f64(b, r->time_min_ms);
	wb_u64(b, (uint64_t)r->runs);
	wb_f64(b, r->max_abs_err);
	wb_f64(b, r->max_rel_err);
	wb_u64(b, r->nonfinite);
	wb_f64(b, r->build_s);
	wb_f64(b, r->device_s);
	wb_u64(b, r->build_cached);
	wb_str(b, r->error);
	wb_str(b, r->log);
}

/* After the result, one flag: the worker retires (its context may be broken). */

static int decode_result(struct rbuf *b, struct tune_result *r)
{
	memset(r, 0, sizeof *r);
	r->status = (enum tune_status)rb_u64(b);
	r->time_median_ms = rb_f64(b);
	r->time_min_ms = rb_f64(b);
	r->runs = (int)rb_u64(b);
	r->max_abs_err = rb_f64(b);
	r->max_rel_err = rb_f64(b);
	r->nonfinite = rb_u64(b);
	r->build_s = rb_f64(b);
	r->device_s = rb_f64(b);
	r->build_cached = rb_u64(b) != 0;
	const char *error = rb_str(b), *log = rb_str(b);
	if (b->bad || r->status > TUNE_SKIPPED)
		return -1;
	r->error = error ? strdup(error) : NULL;
	r->log = log ? strdup(log) : NULL;
	return 0;
}

/*
 * A problem's state for a live worker (SETUP): all of struct exec_shared
 * but the device selection, which a worker keeps, and the data, which
 * comes as sh->data_fd beside the message and is laid out again from the
 * arguments' sizes.
 */
static void encode_shared(struct tune_buf *b, const struct exec_shared *sh)
{
	wb_u64(b, (uint64_t)sh->warmup);
	wb_u64(b, (uint64_t)sh->repeat);
	wb_str(b, sh->cache_dir);
	const struct tune_reference *r = &sh->ref;
	wb_u64(b, r->kind);
	wb_str(b, r->source);
	wb_str(b, r->c_path);
	wb_str(b, r->name);
	wb_str(b, r->build_options);
	wb_u64(b, (uint64_t)r->work_dim);
	for (int d = 0; d < 3; d++) {
		wb_u64(b, r->global[d]);
		wb_u64(b, r->local[d]);
	}
	wb_f64(b, r->rel_tol);
	wb_f64(b, r->abs_tol);
	wb_u64(b, sh->ref_ready);
	wb_u64(b, sh->data_len);
	wb_u64(b, (uint64_t)sh->nargs);
	for (int i = 0; i < sh->nargs; i++) {
		encode_arg(b, &sh->args[i].arg);
		wb_u64(b, sh->args[i].bytes);
	}
}

static char *dup_str(struct rbuf *b)
{
	const char *s = rb_str(b);
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		b->bad = true;
	return d;
}

/* Into *sh (zeroed first; release it either way), mapping fd (taken
 * over).  0, or -1 with *err. */
static int decode_shared(struct rbuf *b, struct exec_shared *sh, int fd, char **err)
{
	memset(sh, 0, sizeof *sh);
	sh->data_fd = -1;
	sh->warmup = (int)rb_u64(b);
	sh->repeat = (int)rb_u64(b);
	sh->cache_dir = dup_str(b);
	struct tune_reference *r = &sh->ref;
	r->kind = (enum tune_ref_kind)rb_u64(b);
	r->source = dup_str(b);
	r->c_path = dup_str(b);
	r->name = dup_str(b);
	r->build_options = dup_str(b);
	r->work_dim = (int)rb_u64(b);
	for (int d = 0; d < 3; d++) {
		r->global[d] = (size_t)rb_u64(b);
		r->local[d] = (size_t)rb_u64(b);
	}
	r->rel_tol = rb_f64(b);
	r->abs_tol = rb_f64(b);
	sh->ref_ready = rb_u64(b) != 0;
	uint64_t data_len = rb_u64(b), n = rb_u64(b);
	if (b->bad || !sh->cache_dir || r->kind > TUNE_REF_C || n > b->len / 8 ||
	    !(sh->args = calloc(n + 1, sizeof *sh->args))) {
		if (fd >= 0)
			close(fd);
		*err = tune_strfmt("malformed problem message");
		return -1;
	}
	sh->nargs = (int)n;
	if (fd < 0 && data_len > 0)
		b->bad = true;  /* the descriptor did not come */
	for (uint64_t i = 0; i < n; i++) {
		struct exec_arg *ea = &sh->args[i];
		decode_arg(b, &ea->arg);
		ea->bytes = (size_t)rb_u64(b);
		ea->arg.name = ea->arg.name ? strdup(ea->arg.name) : NULL;
		ea->arg.init.path = ea->arg.init.path ? strdup(ea->arg.init.path) : NULL;
		if (ea->arg.kind == TUNE_ARG_BUFFER &&
		    (ea->arg.count > SIZE_MAX / tune_type_size(ea->arg.type) ||
		     ea->bytes != ea->arg.count * tune_type_size(ea->arg.type)))
			b->bad = true;
	}
	if (b->bad) {
		if (fd >= 0)
			close(fd);
		*err = tune_strfmt("malformed problem message");
		return -1;
	}
	if (exec_shared_map(sh, fd, err) != 0)
		return -1;
	if (sh->data_len != data_len) {
		*err = tune_strfmt("the problem's data holds %llu bytes, not %zu", (unsigned long long)data_len,
		                   sh->data_len);
		return -1;
	}
	return 0;
}

/* ---- blocking I/O (the worker's side) ------------------------------------------ */

static int send_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int send_msg(int fd, uint32_t type, const void *payload, size_t len)
{
	struct msg_header h = {type, 0, len};
	return send_all(fd, &h, sizeof h) == 0 && send_all(fd, payload, len) == 0 ? 0 : -1;
}

static int recv_all(int fd, void *data, size_t n)
{
	char *p = data;
	while (n > 0) {
		ssize_t k = recv(fd, p, n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * The first bytes of a header, with the descriptor that may come with them
 * (SCM_RIGHTS, attached to a header's first byte by parent_send): into
 * *passed, or closed when passed is NULL.  The bytes read, or -1.
 */
static ssize_t recv_first(int fd, void *data, size_t n, int *passed)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = {data, n};
	for (;;) {
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
		                   .msg_controllen = sizeof ctl.space};
		ssize_t k = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
		if (k < 0 && errno == EINTR)
			continue;
		for (struct cmsghdr *c = k > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
			    c->cmsg_len == CMSG_LEN(sizeof(int))) {
				int got;
				memcpy(&got, CMSG_DATA(c), sizeof got);
				if (passed && *passed < 0)
					*passed = got;
				else
					close(got);
			}
		return k;
	}
}

/* One message; *payload is malloc'd and NUL-terminated; *passed: the
 * descriptor that came with it, or -1 (passed NULL: none is wanted).
 * -1 on EOF or error. */
static int recv_msg(int fd, uint32_t *type, char **payload, size_t *len, int *passed)
{
	struct msg_header h;
	*payload = NULL;
	if (passed)
		*passed = -1;
	ssize_t k = recv_first(fd, &h, sizeof h, passed);
	if (k <= 0 || recv_all(fd, (char *)&h + k, sizeof h - (size_t)k) != 0 || h.len > MAX_MSG) {
		if (passed && *passed >= 0)
			close(*passed);
		return -1;
	}
	char *p = malloc((size_t)h.len + 1);
	if (!p || recv_all(fd, p, (size_t)h.len) != 0) {
		free(p);
		if (passed && *passed >= 0)
			close(*passed);
		return -1;
	}
	p[h.len] = 0;
	*type = h.type;
	*payload = p;
	*len = (size_t)h.len;
	return 0;
}

/* ---- the worker process ----------------------------------------------------------- */

/* Leaves a forked child: reports leaks first under ASan, since _exit skips
 * the atexit check, and exit() would run the parent's atexit handlers. */
static _Noreturn void child_exit(int code)
{
#ifdef HAVE_LSAN
	__lsan_do_leak_check();
#endif
	_exit(code);
}

void tune_die_with_parent(pid_t parent)
{
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);  /* it died before the request took hold */
#else
	(void)parent;
#endif
}

/* What every forked child does first. */
static void child_setup(pid_t parent)
{
	/* A worker stuck in a kernel must not outlive a parent killed with -9. */
	tune_die_with_parent(parent);
	/* A group of its own: the terminal's ^C reaches only the parent, which
	 * decides what to keep, and killing the group also ends what the
	 * worker started (the C compiler of a reference). */
	setpgid(0, 0);
	signal(SIGPIPE, SIG_IGN);
}

/* SIGKILL to a child and its process group. */
static void kill_child(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* fork() with the parent's stdio flushed (or the child could write its
 * buffered output again); the child comes back set up. */
static pid_t fork_child(void)
{
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		child_setup(parent);
	else if (pid > 0)
		setpgid(pid, pid);  /* also here: kill_child may come before the child runs */
	return pid;
}

/* The worker's end of the device lock. */
struct lock_user {
	int fd;
	bool trace;  /* SPACETUNE_TRACE_LOCK: log the held intervals (tests check them) */
	int host;    /* the host's lock on the device (dev_lock_open), or -1 */
};

/* "TAG PID WHAT TIME" on stderr under SPACETUNE_TRACE_LOCK: the lock's
 * intervals (spacetune-lock) and a worker's start (spacetune-start: forked,
 * opened, the reference), on lines of their own so that the lock's stay
 * the lock's. */
static void trace_event(const struct lock_user *u, const char *tag, const char *what)
{
	if (!u->trace)
		return;
	char line[128];
	int n = snprintf(line, sizeof line, "%s %ld %s %.9f\n", tag, (long)getpid(), what, tune_now());
	/* One write: lines from several workers never interleave (O_APPEND). */
	if (n > 0 && (size_t)n < sizeof line)
		tune_write_all(2, line, (size_t)n);
}

static void trace_lock(const struct lock_user *u, const char *what)
{
	trace_event(u, "spacetune-lock", what);
}

static void trace_start(const struct lock_user *u, const char *what)
{
	trace_event(u, "spacetune-start", what);
}

static int lock_acquire(void *user)
{
	struct lock_user *u = user;
	uint32_t type;
	char *payload;
	size_t len;
	if (send_msg(u->fd, MSG_ACQUIRE, NULL, 0) != 0 || recv_msg(u->fd, &type, &payload, &len, NULL) != 0)
		return -1;
	free(payload);
	if (type != MSG_GRANT)
		return -1;
	/* The evaluator's own workers queue in the parent; other processes on
	 * the card (dev_lock_open) queue here.  The parent's build clock
	 * waits for LOCKED: time spent waiting for another process's kernels
	 * is not this build's. */
	dev_lock_take(u->host);
	if (send_msg(u->fd, MSG_LOCKED, NULL, 0) != 0) {
		dev_lock_drop(u->host);
		return -1;
	}
	trace_lock(u, "acquired");
	return 0;
}

static void lock_release(void *user)
{
	struct lock_user *u = user;
	trace_lock(u, "released");
	dev_lock_drop(u->host);
	send_msg(u->fd, MSG_RELEASE, NULL, 0);
}

static void kernel_started(void *user)
{
	double t = tune_now();
	send_msg(((struct lock_user *)user)->fd, MSG_RUNNING, &t, sizeof t);
}

static void kernel_finished(void *user)
{
	double t = tune_now();
	send_msg(((struct lock_user *)user)->fd, MSG_RAN, &t, sizeof t);
}

static void send_text(int fd, uint32_t type, const char *text)
{
	send_msg(fd, type, text ? text : "", text ? strlen(text) : 0);
}

static void worker_eval_message(struct exec_worker *w, int fd, const char *payload, size_t len)
{
	struct rbuf b = {payload, len, 0, false};
	struct tune_variant v;
	struct tune_arg *args = NULL;
	void *steps = NULL;
	struct tune_result r;
	if (decode_variant(&b, &v, &args, &steps) != 0) {
		memset(&r, 0, sizeof r);
		r.status = TUNE_SKIPPED;
		r.error = tune_strfmt("malformed variant message");
	} else {
		exec_worker_eval(w, &v, &r);
	}
	free(args);
	free(steps);
	if (w->lost_parent) {
		tune_result_release(&r);
		return;
	}
	struct tune_buf out = {0};
	encode_result(&out, &r);
	wb_u64(&out, w->poisoned);
	tune_result_release(&r);
	if (out.failed || send_msg(fd, MSG_RESULT, out.p, out.len) != 0)
		w->lost_parent = true;
	free(out.p);
}

static void worker_reference_message(struct exec_worker *w, int fd)
{
	char *err = NULL;
	if (exec_worker_reference(w, &err) != 0) {
		send_text(fd, MSG_REF_FAIL, err ? err : "out of memory");
		free(err);
		return;
	}
	/* The outputs are in the shared data, where every worker sees them. */
	w->sh->ref_ready = true;
	send_msg(fd, MSG_REF_DONE, NULL, 0);
}

/* SETUP: the next problem's state; false when this worker cannot take it
 * (it exits, and the parent forks a fresh one, which inherits it). */
static bool worker_setup_message(struct exec_worker *w, const char *payload, size_t len, int passed)
{
	struct rbuf b = {payload, len, 0, false};
	struct exec_shared next;
	char *err = NULL;
	bool ok = decode_shared(&b, &next, passed, &err) == 0 && exec_worker_adopt(w, &next, &err) == 0;
	if (!ok) {
		fprintf(stderr, "spacetune: worker %ld: %s\n", (long)getpid(), err ? err : "out of memory");
		exec_shared_release(&next);
	}
	free(err);
	return ok;
}

/*
 * SPACETUNE_TEST_START_DELAY_MS, for tests and bench/batch/ramp.sh only:
 * milliseconds that a worker waits before it opens its device, standing
 * for a driver slow to create contexts (NVIDIA's take seconds, PoCL's
 * not).  A comma-separated list gives one per worker slot, the last for
 * the slots after it ("0,4000": all but worker 0 wait 4 s).  The parent
 * closing the socket ends the wait and the worker, so that an evaluator
 * stops without waiting it out.
 */
static void test_start_delay(int slot, int fd)
{
	const char *s = getenv("SPACETUNE_TEST_START_DELAY_MS");
	long ms = 0;
	for (int k = 0; s && *s; k++) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s)
			break;
		ms = v;
		if (k == slot || *end != ',')
			break;
		s = end + 1;
	}
	double until = tune_now() + (double)ms * 1e-3;
	for (double left; ms > 0 && (left = until - tune_now()) > 0;) {
		/* Not POLLIN: messages may come (REF_READY, SETUP) and wait. */
		struct pollfd pfd = {fd, POLLRDHUP, 0};
		if (poll(&pfd, 1, (int)(left * 1000) + 1) > 0 && pfd.revents)
			child_exit(0);
	}
}

static _Noreturn void worker_main(struct exec_shared *sh, int fd, int slot)
{
	struct exec_worker w;
	char *err = NULL;
	struct lock_user lock = {fd, tune_trace_on(), -1};
	trace_start(&lock, "forked");
	test_start_delay(slot, fd);
	if (exec_worker_open(&w, sh, &err) != 0) {
		send_text(fd, MSG_HELLO_FAIL, err ? err : "out of memory");
		free(err);
		if (w.sh)
			exec_worker_close(&w);
		close(fd);
		child_exit(1);
	}
	char lock_path[4096];
	lock.host = dev_lock_open(w.ops->name, &w.info, lock_path, sizeof lock_path);
	if (lock.host == -2)
		fprintf(stderr, "spacetune: warning: cannot open the device's lock '%s': %s; other processes' "
		        "timings on it may overlap this worker's\n", lock_path, strerror(errno));
	w.hooks = (struct exec_hooks){lock_acquire, lock_release, kernel_started, kernel_finished,
	                              &lock};
	trace_start(&lock, "opened");
	send_msg(fd, MSG_HELLO, &w.info, sizeof w.info);
	for (;;) {
		uint32_t type;
		char *payload;
		size_t len;
		int passed;
		if (recv_msg(fd, &type, &payload, &len, &passed) != 0)
			break;  /* the parent closed the socket: stop */
		bool go_on = true;
		if (type == MSG_SETUP)
			go_on = worker_setup_message(&w, payload, len, passed);
		else if (passed >= 0)
			close(passed);
		if (type == MSG_EVAL && w.sh->ref_ready)
			worker_eval_message(&w, fd, payload, len);
		else if (type == MSG_REFERENCE) {
			trace_start(&lock, "reference-begin");
			worker_reference_message(&w, fd);
			trace_start(&lock, "reference-end");
		}
		else if (type == MSG_REF_READY)
			w.sh->ref_ready = true;
		else if (type != MSG_SETUP)
			go_on = false;  /* unknown, or an evaluation without the reference's outputs */
		free(payload);
		if (!go_on || w.poisoned || w.lost_parent)
			break;
	}
	exec_worker_close(&w);
	close(fd);
	child_exit(0);
}

/* ---- the parent's view of its workers -------------------------------------------- */

struct worker {
	pid_t pid;            /* 0: no process */
	int fd;               /* -1: none */
	bool ready;           /* HELLO seen */
	bool busy;            /* an evaluation is in flight */
	bool waiting_lock, holding_lock;
	bool eof;             /* the socket reached EOF: handle after the buffered messages */
	bool retiring;        /* said it exits after its result: replace it */
	bool has_ref;         /* has (or will have read) the reference's outputs: may evaluate */
	long point;
	/* The evaluation's clocks.  The build clock runs (deadline set,
	 * build_left kept when it stops) while the worker builds, prepares,
	 * transfers and verifies; it stops while the worker starts, waits for
	 * the device lock or runs a kernel.  A kernel run (running) has its own
	 * deadline, run_limit after run_since. */
	double deadline, build_left;
	bool running;
	double run_since, run_limit;
	int runs_started;     /* kernel runs of this evaluation, warm-ups included */
	char run_why[96];     /* how run_limit was set, for the timeout's message */
	double started;       /* when it was forked: a start-up that never ends is a crash */
	char *in;             /* bytes received, not yet handled */
	size_t inlen, incap;
};

/* A submitted evaluation no worker has taken yet: its EVAL message. */
struct queued {
	char *msg;
	size_t len;
	long point;
};

struct tune_evaluator {
	struct exec_shared sh;
	double build_limit_s;    /* 0: none */
	double run_limit_s;      /* 0: none; TUNE_RUN_LIMIT_AUTO: scaled (run_limit_now) */
	double best_ms;          /* the fastest correct median seen; INFINITY: none */
	double reference_ms;     /* the reference's run; 0: unknown */
	volatile sig_atomic_t *interrupted;
	double interrupted_at;   /* when the interruption was first seen; 0: not yet */
	int nworkers;
	struct worker *w;
	struct queued *queue; /* FIFO of evaluations waiting for a ready, idle worker */
	int nqueued;          /* at most nworkers, less those busy */
	int lock_holder;      /* worker index, or -1 */
	int *lock_queue;      /* FIFO of worker indices waiting for the lock */
	int nqueue;
	int failed_starts;
	char *start_error;    /* why the last worker could not start */
	bool broken;          /* too many failed starts: no more respawns */
	char *worker_log;     /* workers' stdout and stderr, or NULL: inherited */
	struct tune_device_info info;  /* worker 0's HELLO */
};

static const struct { int sig; const char *name; } signal_names[] = {
	{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"},
	{SIGILL, "SIGILL"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
	{SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"}, {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"},
	{SIGHUP, "SIGHUP"}, {SIGQUIT, "SIGQUIT"},
};

static char *describe_status(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
			if (signal_names[i].sig == sig)
				return tune_strfmt("%s", signal_names[i].name);
		return tune_strfmt("signal %d", sig);
	}
	if (WIFEXITED(status))
		return tune_strfmt("worker exited with status %d", WEXITSTATUS(status));
	return tune_strfmt("worker ended (status %#x)", status);
}

/* waitpid, giving the process `grace` seconds before SIGKILL. */
static int reap(pid_t pid, double grace)
{
	int status = 0;
	double until = tune_now() + grace;
	for (;;) {
		pid_t r = waitpid(pid, &status, grace > 0 ? WNOHANG : 0);
		if (r == pid)
			return status;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 0;  /* not our child any more: nothing to reap */
		if (tune_now() >= until) {
			kill_child(pid);
			grace = 0;
			continue;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Closes every descriptor above 2 but the n of keep (-1: none). */
static void close_other_fds(const int *keep, int n)
{
	int lo = 3;
	for (;;) {
		int next = INT_MAX;  /* the lowest kept descriptor at or above lo */
		for (int k = 0; k < n; k++)
			if (keep[k] >= lo && keep[k] < next)
				next = keep[k];
		if (next > lo && close_range((unsigned)lo, (unsigned)next - 1, 0) != 0) {
			long max = sysconf(_SC_OPEN_MAX);  /* a kernel without close_range */
			for (long fd = lo; fd < next && fd < (max > 0 ? max : 65536); fd++)
				close((int)fd);
		}
		if (next == INT_MAX)
			return;
		lo = next + 1;
	}
}

static int spawn(struct tune_evaluator *ev, int i)
{
	struct worker *w = &ev->w[i];
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid_t pid = fork_child();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		if (ev->worker_log) {
			int fd = open(ev->worker_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
				close(fd);
			}
		}
		/* Nothing else of the parent's: other workers' sockets (a copy
		 * here would hide their EOF), and above all the files it opened
		 * and locked, such as the database of the problem being run: a
		 * worker lives on into the next problems, whose runs could not
		 * lock that file again. */
		int keep[2] = {sv[1], ev->sh.data ? ev->sh.data_fd : -1};
		close_other_fds(keep, 2);
		worker_main(&ev->sh, sv[1], i);
	}
	close(sv[1]);
	w->pid = pid;
	w->fd = sv[0];
	w->ready = w->busy = w->waiting_lock = w->holding_lock = w->eof = w->retiring = false;
	w->has_ref = ev->sh.ref_ready;  /* what it inherits */
	w->running = false;
	w->deadline = w->build_left = 0;
	w->started = tune_now();
	w->inlen = 0;
	return 0;
}

/* send(), with the descriptor `pass` (>= 0) attached to the first byte. */
static ssize_t send_passing(int fd, const void *data, size_t n, int pass)
{
	if (pass < 0)
		return send(fd, data, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	memset(&ctl, 0, sizeof ctl);
	struct iovec iov = {(void *)data, n};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
	                   .msg_controllen = sizeof ctl.space};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &pass, sizeof pass);
	return sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Sends one message to a worker, with the descriptor `pass` unless it is
 * -1; gives up if the worker stops reading for SEND_STALL_S. */
static int parent_send_fd(struct worker *w, uint32_t type, const void *payload, size_t len, int pass)
{
	struct msg_header h = {type, 0, len};
	const void *parts[2] = {&h, payload};
	size_t sizes[2] = {sizeof h, len};
	for (int p = 0; p < 2; p++) {
		const char *data = parts[p];
		size_t n = sizes[p];
		while (n > 0) {
			ssize_t k = send_passing(w->fd, data, n, pass);
			if (k > 0)
				pass = -1;  /* it went with the first byte */
			if (k > 0) {
				data += k;
				n -= (size_t)k;
				continue;
			}
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				struct pollfd pfd = {w->fd, POLLOUT, 0};
				int rc = poll(&pfd, 1, (int)(SEND_STALL_S * 1000));
				if (rc > 0 || (rc < 0 && errno == EINTR))
					continue;
			}
			return -1;
		}
	}
	return 0;
}

static int parent_send(struct worker *w, uint32_t type, const void *payload, size_t len)
{
	return parent_send_fd(w, type, payload, len, -1);
}

/* Reads what is available; sets w->eof on EOF or error. */
static void parent_read(struct worker *w)
{
	for (;;) {
		if (w->incap - w->inlen < 65536) {
			size_t cap = w->incap ? w->incap * 2 : 131072;
			char *p = realloc(w->in, cap);
			if (!p) {
				w->eof = true;  /* treat as lost: cannot hold its messages */
				return;
			}
			w->in = p;
			w->incap = cap;
		}
		ssize_t k = recv(w->fd, w->in + w->inlen, w->incap - w->inlen, MSG_DONTWAIT);
		if (k > 0) {
			w->inlen += (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		w->eof = true;
		return;
	}
}

/* The first complete message in w->in: 1 and its parts, 0 if none yet, -1 if malformed. */
static int take_message(struct worker *w, uint32_t *type, struct rbuf *payload, size_t *consumed)
{
	struct msg_header h;
	if (w->inlen < sizeof h)
		return 0;
	memcpy(&h, w->in, sizeof h);
	if (h.len > MAX_MSG || h.zero != 0)
		return -1;
	if (w->inlen - sizeof h < h.len)
		return 0;
	*type = h.type;
	*payload = (struct rbuf){w->in + sizeof h, (size_t)h.len, 0, false};
	*consumed = sizeof h + (size_t)h.len;
	return 1;
}

static void drop_message(struct worker *w, size_t consumed)
{
	memmove(w->in, w->in + consumed, w->inlen - consumed);
	w->inlen -= consumed;
}

/* ---- the clocks ------------------------------------------------------------------ */

/* The limit of a kernel run starting now; `why` (may be NULL) says how it was set. */
static double run_limit_now(const struct tune_evaluator *ev, char *why, size_t size)
{
	if (why && size)
		why[0] = 0;
	if (ev->run_limit_s != TUNE_RUN_LIMIT_AUTO)
		return ev->run_limit_s;
	bool have_best = isfinite(ev->best_ms);
	double scale_ms = have_best ? ev->best_ms : ev->reference_ms;
	if (!(scale_ms > 0)) {
		if (why)
			snprintf(why, size, " (automatic: no run time known yet)");
		return RUN_AUTO_UNKNOWN_S;
	}
	if (why)
		snprintf(why, size, " (automatic: %g x the %s %.3g ms + %g s)", RUN_AUTO_FACTOR,
		         have_best ? "best" : "reference's", scale_ms, RUN_AUTO_FLOOR_S);
	return RUN_AUTO_FACTOR * scale_ms * 1e-3 + RUN_AUTO_FLOOR_S;
}

static void build_clock_start(struct tune_evaluator *ev, struct worker *w)
{
	w->deadline = ev->build_limit_s > 0 ? tune_now() + w->build_left : 0;
}

static void build_clock_stop(struct tune_evaluator *ev, struct worker *w)
{
	if (ev->build_limit_s > 0 && w->deadline > 0 && !w->running) {
		w->build_left = w->deadline - tune_now();
		if (w->build_left < 0)
			w->build_left = 0;
	}
	w->deadline = 0;
}

/* RUNNING at the worker's time t: the build clock stops, the run's starts. */
static void run_clock_start(struct tune_evaluator *ev, struct worker *w, double t,
                            double limit)
{
	build_clock_stop(ev, w);
	w->running = true;
	w->runs_started++;
	w->run_since = t;
	w->run_limit = limit;
	w->deadline = limit > 0 ? t + limit : 0;
}

/* RAN: back to the build clock (read-back, the next run's preparation). */
static void run_clock_stop(struct tune_evaluator *ev, struct worker *w)
{
	w->running = false;
	build_clock_start(ev, w);
}

static void grant_next(struct tune_evaluator *ev)
{
	while (ev->lock_holder < 0 && ev->nqueue > 0) {
		int i = ev->lock_queue[0];
		memmove(ev->lock_queue, ev->lock_queue + 1, (size_t)--ev->nqueue * sizeof *ev->lock_queue);
		struct worker *w = &ev->w[i];
		w->waiting_lock = false;
		w->holding_lock = true;
		ev->lock_holder = i;
		/* The build clock restarts at LOCKED (lock_acquire). */
		/* On failure the worker is gone; its EOF releases the lock. */
		parent_send(w, MSG_GRANT, NULL, 0);
	}
}

static void release_lock_of(struct tune_evaluator *ev, int i)
{
	struct worker *w = &ev->w[i];
	if (w->holding_lock) {
		w->holding_lock = false;
		ev->lock_holder = -1;
	}
	if (w->waiting_lock) {
		for (int q = 0; q < ev->nqueue; q++)
			if (ev->lock_queue[q] == i) {
				memmove(ev->lock_queue + q, ev->lock_queue + q + 1,
				        (size_t)(ev->nqueue - q - 1) * sizeof *ev->lock_queue);
				ev->nqueue--;
				break;
			}
		w->waiting_lock = false;
	}
	grant_next(ev);
}

/*
 * A worker is gone (EOF, protocol error) or must go (timeout): kill and
 * reap it, start a fresh one, and if it had an evaluation in flight fill
 * *res and return 1.
 */
static int worker_lost(struct tune_evaluator *ev, int i, bool timed_out, struct tune_result *res,
                       long *point)
{
	struct worker *w = &ev->w[i];
	if (timed_out || !w->eof)
		kill_child(w->pid);
	/* After EOF the worker is exiting (or wedged in the driver): a short grace. */
	int status = reap(w->pid, w->eof && !timed_out ? 5.0 : 0);
	close(w->fd);
	w->fd = -1;
	w->pid = 0;
	release_lock_of(ev, i);
	int produced = 0;
	if (!w->ready) {
		if (++ev->failed_starts >= MAX_FAILED_STARTS)
			ev->broken = true;
		if (!ev->start_error)  /* HELLO_FAIL says more than the exit status */
			ev->start_error = describe_status(status);
	}
	if (w->busy) {
		memset(res, 0, sizeof *res);
		if (timed_out && w->running) {
			/* Slower than the limit, or hung: what is known of its time. */
			double elapsed = tune_now() - w->run_since;
			int timed_done = w->runs_started - 1 - ev->sh.warmup;
			res->status = TUNE_TIMEOUT;
			res->time_median_ms = res->time_min_ms = elapsed * 1e3;
			res->runs = timed_done > 0 ? timed_done : 0;
			res->error = tune_strfmt("kernel run %d of %d still running after %.3g s, past the "
			                         "run limit of %.3g s%s", w->runs_started,
			                         ev->sh.warmup + ev->sh.repeat, elapsed, w->run_limit,
			                         w->run_why);
		} else if (timed_out && w->runs_started == 0) {
			res->status = TUNE_BUILD_ERROR;
			res->build_s = ev->build_limit_s;
			res->error = tune_strfmt("not built within the build limit of %g s", ev->build_limit_s);
		} else if (timed_out) {
			res->status = TUNE_TIMEOUT;
			res->error = tune_strfmt("no result within the build limit of %g s (after %d kernel "
			                         "runs: transfers and verification)", ev->build_limit_s,
			                         w->runs_started);
		} else {
			res->status = TUNE_CRASHED;
			res->error = !w->ready && ev->start_error
			             ? tune_strfmt("worker failed to start: %s", ev->start_error)
			             : describe_status(status);
		}
		*point = w->point;
		w->busy = false;
		produced = 1;
	}
	w->inlen = 0;
	w->eof = false;
	if (!ev->broken)
		spawn(ev, i);  /* on failure the slot stays empty; submit retries */
	return produced;
}

/* Handles one buffered message of worker i: 1 = a result in *res, 0 = none or
 * not complete yet (*more says whether one was handled), -1 = protocol error. */
static int handle_message(struct tune_evaluator *ev, int i, struct tune_result *res, long *point,
                          bool *more)
{
	struct worker *w = &ev->w[i];
	uint32_t type;
	struct rbuf b;
	size_t consumed;
	*more = false;
	int got = take_message(w, &type, &b, &consumed);
	if (got <= 0)
		return got;
	*more = true;
	int rc = 0;
	switch (type) {
	case MSG_HELLO:
		w->ready = true;
		ev->failed_starts = 0;
		free(ev->start_error);
		ev->start_error = NULL;
		if (w->busy)
			build_clock_start(ev, w);
		break;
	case MSG_HELLO_FAIL:
		free(ev->start_error);
		ev->start_error = strndup(b.p, b.len);
		break;
	case MSG_ACQUIRE:
		if (!w->busy || w->waiting_lock || w->holding_lock) {
			rc = -1;
			break;
		}
		build_clock_stop(ev, w);
		w->waiting_lock = true;
		ev->lock_queue[ev->nqueue++] = i;
		grant_next(ev);
		break;
	case MSG_LOCKED:
		if (!w->holding_lock) {
			rc = -1;
			break;
		}
		build_clock_start(ev, w);
		break;
	case MSG_RELEASE:
		if (!w->holding_lock) {
			rc = -1;
			break;
		}
		release_lock_of(ev, i);
		break;
	case MSG_RUNNING: {
		double t = rb_f64(&b);
		if (!w->busy || w->running || b.bad) {
			rc = -1;
			break;
		}
		run_clock_start(ev, w, t, run_limit_now(ev, w->run_why, sizeof w->run_why));
		break;
	}
	case MSG_RAN:
		if (!w->running) {
			rc = -1;
			break;
		}
		run_clock_stop(ev, w);
		break;
	case MSG_RESULT:
		if (!w->busy || decode_result(&b, res) != 0) {
			rc = -1;
			break;
		}
		release_lock_of(ev, i);
		*point = w->point;
		w->busy = w->running = false;
		w->deadline = 0;
		if (rb_u64(&b) != 0)
			w->retiring = true;
		if (res->status == TUNE_OK)
			tune_evaluator_observe(ev, res->time_median_ms);
		rc = 1;
		break;
	default:
		rc = -1;
	}
	drop_message(w, consumed);
	if (w->retiring) {
		/* Replace it now, so that no evaluation is sent to a process on its way out. */
		kill_child(w->pid);
		reap(w->pid, 0);
		close(w->fd);
		w->fd = -1;
		w->pid = 0;
		w->retiring = false;
		spawn(ev, i);
	}
	return rc;
}

static bool any_busy(const struct tune_evaluator *ev)
{
	for (int i = 0; i < ev->nworkers; i++)
		if (ev->w[i].busy)
			return true;
	return false;
}

/* A worker that may be sent an evaluation now: live, ready, idle and
 * with the reference's outputs; -1 if none. */
static int free_worker(const struct tune_evaluator *ev)
{
	for (int i = 0; i < ev->nworkers; i++) {
		const struct worker *w = &ev->w[i];
		if (w->pid > 0 && w->ready && !w->busy && !w->eof && w->has_ref)
			return i;
	}
	return -1;
}

static void unqueue(struct tune_evaluator *ev)
{
	free(ev->queue[0].msg);
	memmove(ev->queue, ev->queue + 1, (size_t)--ev->nqueued * sizeof *ev->queue);
}

/*
 * Hands the queued evaluations, oldest first, to the workers free for
 * them; an empty slot (a fork that failed) gets a new worker first,
 * unless the device is broken.  After an interruption nothing more
 * starts.
 */
static void send_queued(struct tune_evaluator *ev)
{
	if (ev->nqueued == 0 || (ev->interrupted && *ev->interrupted))
		return;
	for (int i = 0; i < ev->nworkers && !ev->broken; i++)
		if (ev->w[i].pid == 0)
			spawn(ev, i);
	int i;
	while (ev->nqueued > 0 && (i = free_worker(ev)) >= 0) {
		struct worker *w = &ev->w[i];
		struct queued *q = &ev->queue[0];
		if (parent_send(w, MSG_EVAL, q->msg, q->len) != 0) {
			/* Gone: replaced, and the evaluation waits for the next. */
			struct tune_result ignored;
			long p;
			w->eof = true;
			worker_lost(ev, i, false, &ignored, &p);
			continue;
		}
		w->busy = true;
		w->point = q->point;
		w->build_left = ev->build_limit_s;
		w->deadline = 0;
		w->running = false;
		w->runs_started = 0;
		build_clock_start(ev, w);
		unqueue(ev);
	}
}

static bool any_live(const struct tune_evaluator *ev)
{
	for (int i = 0; i < ev->nworkers; i++)
		if (ev->w[i].pid > 0)
			return true;
	return false;
}

long tune_evaluator_wait_any(struct tune_evaluator *ev, struct tune_result *res)
{
	long point = -1;
	memset(res, 0, sizeof *res);
	struct pollfd *pfds = calloc((size_t)ev->nworkers, sizeof *pfds);
	int *idx = calloc((size_t)ev->nworkers, sizeof *idx);
	if (!pfds || !idx)
		goto out;
	for (;;) {
		/* 1. What is already buffered, then the EOFs behind it. */
		for (int i = 0; i < ev->nworkers; i++) {
			if (ev->w[i].pid == 0)
				continue;
			bool more = true;
			while (more) {
				int rc = handle_message(ev, i, res, &point, &more);
				if (rc == 1)
					goto out;
				if (rc < 0) {
					ev->w[i].eof = true;
					break;
				}
			}
			if (ev->w[i].eof && worker_lost(ev, i, false, res, &point))
				goto out;
		}
		/* 2. Queued evaluations to the workers ready now (a HELLO above);
		 * with no worker left to take them (every start failed, and the
		 * device is broken), they fail as a start that failed under them
		 * did. */
		send_queued(ev);
		if (!any_busy(ev) && ev->nqueued == 0)
			goto out;
		if (ev->nqueued > 0 && !any_live(ev)) {
			res->status = TUNE_CRASHED;
			res->error = tune_strfmt("worker failed to start: %s",
			                         ev->start_error ? ev->start_error : "no worker process");
			point = ev->queue[0].point;
			unqueue(ev);
			goto out;
		}
		/* 3. An interruption: what is still in flight after a grace (at
		 * once if it is only queued) is abandoned. */
		double now = tune_now(), next = -1;
		if (ev->interrupted && *ev->interrupted) {
			if (ev->interrupted_at == 0)
				ev->interrupted_at = now;
			next = ev->interrupted_at + INTERRUPT_GRACE_S;
			if (now >= next || !any_busy(ev)) {
				point = TUNE_EVAL_ABANDONED;
				goto out;
			}
		}
		/* 4. Limits.  A worker gets an evaluation only once ready: the
		 * start's limit is the worker's, its failure no evaluation's. */
		for (int i = 0; i < ev->nworkers; i++) {
			struct worker *w = &ev->w[i];
			if (!w->ready && w->pid > 0) {
				if (now >= w->started + START_LIMIT_S) {
					free(ev->start_error);
					ev->start_error = tune_strfmt("the device did not open within %g s",
					                              START_LIMIT_S);
					if (worker_lost(ev, i, false, res, &point))
						goto out;
					continue;
				}
				if (next < 0 || w->started + START_LIMIT_S < next)
					next = w->started + START_LIMIT_S;
			}
			if (!w->busy || w->deadline <= 0)
				continue;
			if (w->deadline <= now) {
				if (worker_lost(ev, i, true, res, &point))
					goto out;
				continue;
			}
			if (next < 0 || w->deadline < next)
				next = w->deadline;
		}
		/* 5. Wait for input. */
		int n = 0;
		for (int i = 0; i < ev->nworkers; i++)
			if (ev->w[i].fd >= 0) {
				pfds[n] = (struct pollfd){ev->w[i].fd, POLLIN, 0};
				idx[n++] = i;
			}
		int ms = next < 0 ? -1 : (int)((next - now) * 1000) + 1;
		if (ev->interrupted && (ms < 0 || ms > INTERRUPT_POLL_MS))
			ms = INTERRUPT_POLL_MS;
		int rc = poll(pfds, (nfds_t)n, ms);
		if (rc < 0 && errno != EINTR)
			goto out;
		for (int k = 0; rc > 0 && k < n; k++)
			if (pfds[k].revents)
				parent_read(&ev->w[idx[k]]);
	}
out:
	/* The worker that gave the result takes the next queued evaluation
	 * now, not when the caller comes back. */
	if (point >= 0)
		send_queued(ev);
	free(pfds);
	free(idx);
	return point;
}

/* Evaluations the evaluator takes now: one per worker (a live one, or a
 * slot that may fork one), less those in flight or queued. */
int tune_evaluator_idle_workers(const struct tune_evaluator *ev)
{
	int n = 0;
	for (int i = 0; i < ev->nworkers; i++)
		if (!ev->w[i].busy && (ev->w[i].pid > 0 || !ev->broken))
			n++;
	return n > ev->nqueued ? n - ev->nqueued : 0;
}

int tune_evaluator_submit(struct tune_evaluator *ev, const struct tune_variant *v)
{
	if (tune_evaluator_idle_workers(ev) <= 0)
		return -1;
	struct tune_buf b = {0};
	encode_variant(&b, v);
	if (b.failed) {
		free(b.p);
		return -1;
	}
	ev->queue[ev->nqueued++] = (struct queued){b.p, b.len, (long)v->point_index};
	send_queued(ev);
	return 0;
}

/* ---- start and stop ---------------------------------------------------------------- */

/* How start_recv ends, besides 0 (a message). */
enum { START_LOST = -1, START_BUILD_LIMIT = -2, START_RUN_LIMIT = -3, START_INTERRUPTED = -4 };

/*
 * Waits for worker 0's next message during start-up, other than RUNNING
 * and RAN, which time the reference: `limit` bounds the rest (opening the
 * device, or building the reference, its C compiler included) and
 * `run_limit` the reference's run, from its start.  0 with the message, or
 * a START_* code.
 */
static int start_recv(struct tune_evaluator *ev, double limit, double run_limit, uint32_t *type,
                      char **payload, size_t *len)
{
	struct worker *w = &ev->w[0];
	double left = limit, deadline = limit > 0 ? tune_now() + limit : 0, run_since = 0;
	bool running = false;
	for (;;) {
		struct rbuf b;
		size_t consumed;
		int got = take_message(w, type, &b, &consumed);
		if (got < 0)
			return START_LOST;
		if (got > 0 && (*type == MSG_RUNNING || *type == MSG_RAN)) {
			double t = rb_f64(&b);
			drop_message(w, consumed);
			if (*type == MSG_RUNNING && !running) {
				if (deadline > 0 && (left = deadline - tune_now()) < 0)
					left = 0;
				running = true;
				run_since = t;
				deadline = run_limit > 0 ? t + run_limit : 0;
			} else if (*type == MSG_RAN && running) {
				running = false;
				ev->reference_ms = (t - run_since) * 1e3;
				deadline = limit > 0 ? tune_now() + left : 0;
			}
			continue;
		}
		if (got > 0) {
			*payload = malloc(b.len + 1);
			if (!*payload)
				return START_LOST;
			memcpy(*payload, b.p, b.len);
			(*payload)[b.len] = 0;
			*len = b.len;
			drop_message(w, consumed);
			return 0;
		}
		if (w->eof)
			return START_LOST;
		if (ev->interrupted && *ev->interrupted)
			return START_INTERRUPTED;
		int ms = -1;
		if (deadline > 0) {
			double until = deadline - tune_now();
			if (until <= 0)
				return running ? START_RUN_LIMIT : START_BUILD_LIMIT;
			ms = (int)(until * 1000) + 1;
		}
		if (ev->interrupted && (ms < 0 || ms > INTERRUPT_POLL_MS))
			ms = INTERRUPT_POLL_MS;
		struct pollfd pfd = {w->fd, POLLIN, 0};
		int rc = poll(&pfd, 1, ms);
		if (rc < 0 && errno != EINTR)
			return START_LOST;
		if (rc > 0)
			parent_read(w);
	}
}

/* Kills worker i at once (it may be stuck in a reference) and reaps it: its status. */
static int discard_worker(struct tune_evaluator *ev, int i)
{
	struct worker *w = &ev->w[i];
	if (w->pid <= 0)
		return 0;
	kill_child(w->pid);
	int status = reap(w->pid, 0);
	w->pid = 0;
	close(w->fd);
	w->fd = -1;
	return status;
}

/* Why start_recv failed, in a sentence about `what`; NULL: the worker died. */
static char *start_failure(int rc, const char *what, double limit, double run_limit)
{
	switch (rc) {
	case START_BUILD_LIMIT:
		return tune_strfmt("%s did not finish within the build limit of %g s (--build-timeout)",
		                   what, limit);
	case START_RUN_LIMIT:
		return tune_strfmt("%s was still running after the run limit of %g s (--run-timeout)",
		                   what, run_limit);
	case START_INTERRUPTED:
		return tune_strfmt("interrupted while %s was computed", what);
	}
	return NULL;
}

/*
 * Worker 0 ready (forked now, or its HELLO still to come, unless a kept
 * one is), the other workers forked at once so that their devices open
 * while worker 0 computes the reference; then the reference, whose
 * outputs the others are told of (REF_READY).  0, or -1 with *err.
 */
static int start_workers(struct tune_evaluator *ev, struct tune_device_info *info, char **err)
{
	uint32_t type;
	char *payload = NULL;
	size_t len;
	if (ev->w[0].pid == 0 && spawn(ev, 0) != 0) {
		*err = tune_strfmt("cannot start a worker process: %s", strerror(errno));
		return -1;
	}
	for (int i = 1; i < ev->nworkers; i++)
		if (ev->w[i].pid == 0)
			spawn(ev, i);  /* on failure the slot stays empty; submit retries */
	if (!ev->w[0].ready) {
		int rc = start_recv(ev, START_LIMIT_S, 0, &type, &payload, &len);
		if (rc != 0 || type != MSG_HELLO || len != sizeof ev->info) {
			if (rc == 0 && type == MSG_HELLO_FAIL)
				*err = strdup(payload);
			else if (rc == START_BUILD_LIMIT)
				*err = tune_strfmt("the worker did not open the device within %g s", START_LIMIT_S);
			else if (rc == START_INTERRUPTED)
				*err = tune_strfmt("interrupted while the worker opened the device");
			free(payload);
			char *why = describe_status(discard_worker(ev, 0));
			if (!*err)
				*err = tune_strfmt("the worker failed while opening the device: %s", why);
			free(why);
			return -1;
		}
		ev->w[0].ready = true;
		memcpy(&ev->info, payload, sizeof ev->info);
		free(payload);
	}
	if (info)
		*info = ev->info;
	if (ev->sh.ref_ready)
		return 0;
	/* Nothing tells the reference's scale: under the automatic run limit it gets its own. */
	double run_limit = ev->run_limit_s == TUNE_RUN_LIMIT_AUTO ? RUN_AUTO_REFERENCE_S
	                                                            : ev->run_limit_s;
	int rc = START_LOST;
	if (parent_send(&ev->w[0], MSG_REFERENCE, NULL, 0) != 0 ||
	    (rc = start_recv(ev, ev->build_limit_s, run_limit, &type, &payload, &len)) != 0) {
		char *what = tune_strfmt("the %s reference '%s'",
		                         ev->sh.ref.kind == TUNE_REF_C ? "C" : "kernel",
		                         ev->sh.ref.name ? ev->sh.ref.name : "?");
		*err = start_failure(rc, what ? what : "the reference", ev->build_limit_s, run_limit);
		char *why = describe_status(discard_worker(ev, 0));
		if (!*err)
			*err = tune_strfmt("the reference crashed its worker: %s", why);
		free(why);
		free(what);
		return -1;
	}
	if (type != MSG_REF_DONE) {
		*err = type == MSG_REF_FAIL ? strdup(payload) : tune_strfmt("malformed reference outputs");
		free(payload);
		return -1;
	}
	free(payload);
	/* In the shared data now (exec.h).  A worker that cannot be told is
	 * gone: its EOF is handled by the next wait, which forks a
	 * replacement that inherits ref_ready. */
	ev->sh.ref_ready = true;
	for (int i = 0; i < ev->nworkers; i++) {
		struct worker *w = &ev->w[i];
		if (w->pid > 0 && !w->has_ref && i > 0 && parent_send(w, MSG_REF_READY, NULL, 0) != 0)
			w->eof = true;
		w->has_ref = true;
	}
	return 0;
}

/* The per-problem part of the options. */
static void evaluator_limits(struct tune_evaluator *ev, const struct tune_eval_opts *o)
{
	ev->build_limit_s = o->build_timeout_s > 0 ? o->build_timeout_s : 0;
	ev->run_limit_s = o->run_timeout_s == TUNE_RUN_LIMIT_AUTO || o->run_timeout_s > 0
	                  ? o->run_timeout_s : 0;
	ev->best_ms = INFINITY;
	ev->reference_ms = 0;
	ev->interrupted = o->interrupted;
	ev->interrupted_at = 0;
}

int tune_evaluator_start(struct tune_evaluator **out, const struct tune_eval_opts *o,
                         const struct tune_reference *ref, const struct tune_variant *proto,
                         struct tune_device_info *info, char **err)
{
	*out = NULL;
	*err = NULL;
	struct tune_evaluator *ev = calloc(1, sizeof *ev);
	if (!ev) {
		*err = tune_strfmt("out of memory");
		return -1;
	}
	ev->lock_holder = -1;
	ev->worker_log = o->worker_log ? strdup(o->worker_log) : NULL;
	evaluator_limits(ev, o);
	ev->nworkers = o->jobs > 0 ? o->jobs : 1;
	ev->w = calloc((size_t)ev->nworkers, sizeof *ev->w);
	ev->lock_queue = calloc((size_t)ev->nworkers, sizeof *ev->lock_queue);
	ev->queue = calloc((size_t)ev->nworkers, sizeof *ev->queue);
	if (!ev->w || !ev->lock_queue || !ev->queue) {
		free(ev->w);
		free(ev->lock_queue);
		free(ev->queue);
		free(ev);
		*err = tune_strfmt("out of memory");
		return -1;
	}
	for (int i = 0; i < ev->nworkers; i++)
		ev->w[i].fd = -1;
	if (exec_shared_init(&ev->sh, o, ref, proto, err) != 0 || start_workers(ev, info, err) != 0) {
		if (!*err)
			*err = tune_strfmt("out of memory");
		tune_evaluator_stop(ev);
		return -1;
	}
	*out = ev;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int tune_evaluator_restart(struct tune_evaluator *ev, const struct tune_eval_opts *o,
                           const struct tune_reference *ref, const struct tune_variant *proto,
                           struct tune_device_info *info, char **err)
{
	*err = NULL;
	const struct tune_device_sel *a = &ev->sh.sel, *b = &o->device;
	if (any_busy(ev) || ev->nqueued > 0 || ev->nworkers != (o->jobs > 0 ? o->jobs : 1) ||
	    dev_backend(a->backend) != dev_backend(b->backend) || !same_str(a->platform, b->platform) ||
	    !same_str(a->device, b->device) || a->gpu != b->gpu || !same_str(ev->worker_log, o->worker_log))
		return 1;
	struct exec_shared next;
	if (exec_shared_init(&next, o, ref, proto, err) != 0) {
		exec_shared_release(&next);
		tune_evaluator_stop(ev);
		return -1;
	}
	exec_shared_release(&ev->sh);
	ev->sh = next;
	evaluator_limits(ev, o);
	/* Another chance for a device that failed to open during the last problem. */
	ev->failed_starts = 0;
	ev->broken = false;
	struct tune_buf msg = {0};
	encode_shared(&msg, &ev->sh);
	for (int i = 0; i < ev->nworkers && !msg.failed; i++) {
		struct worker *w = &ev->w[i];
		if (w->pid <= 0)
			continue;
		w->has_ref = ev->sh.ref_ready;
		/* One that died while idle (killed, out of memory) is seen here,
		 * not later as a lost reference. */
		parent_read(w);
		if (w->eof || parent_send_fd(w, MSG_SETUP, msg.p, msg.len, ev->sh.data_fd) != 0) {
			/* Gone: a fresh one inherits the new state. */
			struct tune_result ignored;
			long point;
			w->eof = true;
			worker_lost(ev, i, false, &ignored, &point);
		}
	}
	bool failed = msg.failed;
	free(msg.p);
	/* The reference goes to worker 0: one that is ready, where worker 0
	 * is still opening its device (replaced during the last problem) and
	 * another is not.  Slots are interchangeable while none is busy. */
	for (int i = 1; i < ev->nworkers && !ev->w[0].ready; i++)
		if (ev->w[i].ready && ev->w[i].pid > 0) {
			struct worker t = ev->w[0];
			ev->w[0] = ev->w[i];
			ev->w[i] = t;
		}
	if (failed || start_workers(ev, info, err) != 0) {
		if (!*err)
			*err = tune_strfmt("out of memory");
		tune_evaluator_stop(ev);
		return -1;
	}
	return 0;
}

void tune_evaluator_observe(struct tune_evaluator *ev, double median_ms)
{
	if (median_ms > 0 && median_ms < ev->best_ms)
		ev->best_ms = median_ms;
}

void tune_evaluator_stop(struct tune_evaluator *ev)
{
	if (!ev)
		return;
	/* Busy workers may sit in a kernel for ever, and one still opening its
	 * device may take seconds more (never having had work, it has nothing
	 * to lose): kill them.  Idle ones see EOF and exit by themselves
	 * (running their leak check). */
	for (int i = 0; i < ev->nworkers; i++) {
		struct worker *w = &ev->w[i];
		if (w->pid > 0 && (w->busy || !w->ready))
			kill_child(w->pid);
		if (w->fd >= 0)
			close(w->fd);
		w->fd = -1;
	}
	for (int i = 0; i < ev->nworkers; i++) {
		struct worker *w = &ev->w[i];
		if (w->pid > 0) {
			int status = reap(w->pid, 10.0);
			/* One that never opened the device said why (HELLO_FAIL) */
			if (!w->busy && w->ready && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
				char *why = describe_status(status);
				fprintf(stderr, "spacetune: warning: worker %d ended badly: %s\n", i,
				        why ? why : "?");
				free(why);
			}
		}
		free(w->in);
	}
	while (ev->nqueued > 0)
		unqueue(ev);
	free(ev->queue);
	exec_shared_release(&ev->sh);
	free(ev->start_error);
	free(ev->worker_log);
	free(ev->lock_queue);
	free(ev->w);
	free(ev);
}

/* ---- listing and queries, in a child -------------------------------------------- */

/*
 * Runs fn in a forked child that writes its answer to a pipe; collects it.
 * Returns 0 with *out (malloc'd, NUL-terminated) or -1 with *err.
 */
static int run_in_child(void (*fn)(void *arg, int fd), void *arg, char **out, size_t *outlen,
                        char **err)
{
	int p[2];
	*out = NULL;
	if (pipe2(p, O_CLOEXEC) != 0) {
		*err = tune_strfmt("pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork_child();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		*err = tune_strfmt("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		fn(arg, p[1]);
		close(p[1]);
		child_exit(0);
	}
	close(p[1]);
	struct worker w = {.pid = pid, .fd = p[0]};
	double until = tune_now() + START_LIMIT_S;
	while (!w.eof) {
		struct pollfd pfd = {p[0], POLLIN, 0};
		double left = until - tune_now();
		if (left <= 0)
			break;
		int rc = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (rc < 0 && errno != EINTR)
			break;
		if (rc <= 0)
			continue;
		/* recv does not work on a pipe: read it here. */
		char buf[65536];
		ssize_t k = read(p[0], buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w.eof = true;
			break;
		}
		if (w.inlen + (size_t)k + 1 > w.incap) {
			size_t cap = (w.inlen + (size_t)k + 1) * 2;
			char *np = realloc(w.in, cap);
			if (!np)
				break;
			w.in = np;
			w.incap = cap;
		}
		memcpy(w.in + w.inlen, buf, (size_t)k);
		w.inlen += (size_t)k;
	}
	close(p[0]);
	if (!w.eof)
		kill_child(pid);
	int status = reap(pid, w.eof ? 10.0 : 0);
	if (!w.eof || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *why = describe_status(status);
		*err = tune_strfmt("the driver failed in a child process: %s", why ? why : "?");
		free(why);
		free(w.in);
		return -1;
	}
	if (!w.in)
		w.in = calloc(1, 1);
	else
		w.in[w.inlen] = 0;
	*out = w.in;
	*outlen = w.inlen;
	return *out ? 0 : -1;
}

static void list_in_child(void *arg, int fd)
{
	(void)arg;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int count = -1;
	if (mem) {
		/* Every backend built in, one after the other; the count of
		 * devices found, -1 when no backend has a driver. */
		const struct dev_ops *const *b = dev_backends();
		for (int i = 0; b[i]; i++) {
			int n = b[i]->list(mem);
			if (n >= 0)
				count = (count < 0 ? 0 : count) + n;
		}
		fclose(mem);
	}
	tune_write_all(fd, &count, sizeof count);
	if (text)
		tune_write_all(fd, text, len);
	free(text);
}

static void gpus_in_child(void *arg, int fd)
{
	(void)arg;
	const struct dev_ops *const *b = dev_backends();
	for (int k = 0; b[k]; k++) {
		int pairs[TUNE_MAX_GPUS][2];
		int n = b[k]->gpus(pairs, TUNE_MAX_GPUS);
		for (int i = 0; i < n; i++) {
			struct tune_gpu g = { k, pairs[i][0], pairs[i][1] };
			tune_write_all(fd, &g, sizeof g);
		}
	}
}

int tune_list_gpus(struct tune_gpu *out, int max)
{
	char *buf, *err = NULL;
	size_t len;
	if (run_in_child(gpus_in_child, NULL, &buf, &len, &err) != 0) {
		free(err);
		return -1;
	}
	int n = (int)(len / sizeof out[0]);
	if (n > max)
		n = max;
	memcpy(out, buf, (size_t)n * sizeof out[0]);
	free(buf);
	return n;
}

/* The keeper's body: the GPUs open until it is killed (or its parent dies:
 * child_setup's PR_SET_PDEATHSIG).  It times nothing and launches nothing:
 * an idle context does not disturb the workers' timings.  `only`: the
 * one device a run selected, held if it is a GPU; NULL: every GPU. */
static _Noreturn void keep_gpus_open(const struct tune_device_sel *only)
{
	const struct dev_ops *const *b = dev_backends();
	struct dev *held[TUNE_MAX_GPUS];
	int nheld = 0;
	for (int k = 0; b[k] && nheld == 0; k++) {
		int pairs[TUNE_MAX_GPUS][2];
		int n = b[k]->gpus(pairs, TUNE_MAX_GPUS);
		if (only && n > 0) {
			struct tune_device_info info;
			char *err = NULL;
			if (dev_open(b[k], &held[0], only, &info, &err) == 0) {
				bool gpu = false;
				for (int i = 0; i < n; i++)
					gpu |= pairs[i][0] == info.platform_index && pairs[i][1] == info.device_index;
				if (gpu)
					nheld = 1;
				else
					b[k]->close(held[0]);
			}
			free(err);
			break;  /* the run's backend may differ: this one's context serves it too */
		}
		for (int i = 0; i < n; i++) {
			struct tune_device_sel sel = { .backend = b[k]->name, .gpu = i + 1 };
			struct tune_device_info info;
			char *err = NULL;
			if (dev_open(b[k], &held[nheld], &sel, &info, &err) == 0)
				nheld++;
			free(err);
		}
	}
	if (nheld == 0)
		child_exit(0);
	for (;;)
		pause();
}

pid_t tune_gpu_keeper_start(const struct tune_device_sel *only)
{
	const char *env = getenv("SPACETUNE_KEEP_GPUS");
	if (env && strcmp(env, "0") == 0)
		return 0;
	pid_t pid = fork_child();
	if (pid == 0) {
#ifdef __linux__
		/* Told apart from the workers in ps and pgrep */
		prctl(PR_SET_NAME, "spacetune-gpus");
#endif
		/* Nothing of the parent's to read or write. */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			close(null);
		}
		keep_gpus_open(only);
	}
	return pid > 0 ? pid : 0;
}

void tune_gpu_keeper_stop(pid_t keeper)
{
	if (keeper <= 0)
		return;
	kill_child(keeper);
	while (waitpid(keeper, NULL, 0) < 0 && errno == EINTR)
		;
}

int tune_list_devices(FILE *out)
{
	char *buf, *err = NULL;
	size_t len;
	if (run_in_child(list_in_child, NULL, &buf, &len, &err) != 0) {
		fprintf(stderr, "spacetune: %s\n", err ? err : "out of memory");
		free(err);
		return -1;
	}
	int count = -1;
	if (len >= sizeof count) {
		memcpy(&count, buf, sizeof count);
		fwrite(buf + sizeof count, 1, len - sizeof count, out);
	}
	free(buf);
	return count;
}

#define MAX_QUERIES 32

struct tune_device_props {
	struct tune_device_info info;
	char backend[16];
	int nqueries;
	int64_t value[MAX_QUERIES];
	int have[MAX_QUERIES];  /* the backend's answer: 0 has it, 1 lacks it */
};

static void props_in_child(void *arg, int fd)
{
	const struct tune_device_sel *sel = arg;
	const struct dev_ops *ops = dev_backend(sel->backend);
	struct dev *dev = NULL;
	struct tune_device_props p;
	memset(&p, 0, sizeof p);
	char *err = NULL;
	if (!ops)
		err = tune_strfmt("spacetune was built without the '%s' backend", sel->backend);
	/* Queries only: no context, the seconds a worker's open costs on a GPU */
	if (!ops || dev_open_queries(ops, &dev, sel, &p.info, &err) != 0) {
		tune_write_all(fd, "E", 1);
		tune_write_all(fd, err ? err : "?", err ? strlen(err) : 1);
		free(err);
		return;
	}
	for (int q = 0; q < MAX_QUERIES && ops->query_name(q); q++) {
		p.have[q] = ops->query(dev, ops->query_name(q), &p.value[q]);
		p.nqueries = q + 1;
	}
	ops->close(dev);
	tune_write_all(fd, "P", 1);
	tune_write_all(fd, &p, sizeof p);
}

int tune_device_props_read(const struct tune_device_sel *sel, struct tune_device_props **out,
                           char **err)
{
	char *buf;
	size_t len;
	*out = NULL;
	*err = NULL;
	const struct dev_ops *ops = dev_backend(sel->backend);
	if (!ops) {
		*err = tune_strfmt("spacetune was built without the '%s' backend", sel->backend);
		return -1;
	}
	if (run_in_child(props_in_child, (void *)sel, &buf, &len, err) != 0)
		return -1;
	if (len != 1 + sizeof **out || buf[0] != 'P') {
		*err = len > 1 && buf[0] == 'E' ? strdup(buf + 1) : tune_strfmt("no %s device", ops->name);
		free(buf);
		return -1;
	}
	*out = malloc(sizeof **out);
	if (*out) {
		memcpy(*out, buf + 1, sizeof **out);
		snprintf((*out)->backend, sizeof (*out)->backend, "%s", ops->name);
	}
	else
		*err = tune_strfmt("out of memory");
	free(buf);
	return *out ? 0 : -1;
}

const struct tune_device_info *tune_device_props_info(const struct tune_device_props *p)
{
	return &p->info;
}

int tune_device_props_get(const struct tune_device_props *p, const char *query, int64_t *value)
{
	const struct dev_ops *ops = dev_backend(p->backend);
	for (int q = 0; q < p->nqueries; q++)
		if (strcmp(ops->query_name(q), query) == 0) {
			if (p->have[q] != 0)
				return 1;
			*value = p->value[q];
			return 0;
		}
	return -1;
}

void tune_device_props_free(struct tune_device_props *p)
{
	free(p);
}

int tune_device_query(const struct tune_device_sel *sel, const char *query, int64_t *value)
{
	bool known = false;
	const struct dev_ops *ops = dev_backend(sel->backend);
	for (int q = 0; ops && ops->query_name(q); q++)
		known |= strcmp(ops->query_name(q), query) == 0;
	if (!known)
		return -1;
	struct tune_device_props *p;
	char *err = NULL;
	if (tune_device_props_read(sel, &p, &err) != 0) {
		free(err);
		return -1;
	}
	int rc = tune_device_props_get(p, query, value);
	tune_device_props_free(p);
	return rc;
}
