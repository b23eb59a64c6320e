/*
 * eval.c - inside a worker: build (with the program-binary cache), launch,
 * time and verify one variant; compute the reference outputs.  Everything
 * that depends on the compute API goes through the backend (device.h).
 */
#define _GNU_SOURCE
#include "tuner/exec.h"
#include "tuner/device.h"
#include "tools/cache.h"
#include "tools/spawn.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *tune_strfmt(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

bool tune_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

char *tune_read_fd(int fd, size_t *len)
{
	size_t cap = 8192;
	char *buf = malloc(cap);
	*len = 0;
	while (buf) {
		if (cap - *len < 4096) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				break;
			buf = nb;
		}
		ssize_t k = read(fd, buf + *len, cap - *len - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			buf[*len] = 0;
			return buf;
		}
		*len += (size_t)k;
	}
	free(buf);
	return NULL;
}

bool tune_trace_on(void)
{
	const char *t = getenv("SPACETUNE_TRACE_LOCK");
	return t && *t && strcmp(t, "0") != 0;
}

double tune_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ORDER tune_status */
static const char *const status_names[] = {
	"ok", "build_error", "launch_error", "wrong_result", "timeout", "crashed", "skipped"
};

const char *tune_status_name(enum tune_status s)
{
	return (unsigned)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "?";
}

void tune_result_release(struct tune_result *r)
{
	free(r->error);
	free(r->log);
	r->error = NULL;
	r->log = NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* ---- element conversions ----------------------------------------------------- */

static uint16_t half_from_float(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof x);
	uint32_t sign = (x >> 16) & 0x8000u;
	uint32_t mant = x & 0x7fffffu;
	int exp = (int)((x >> 23) & 0xff);
	if (exp == 0xff)  /* Inf or NaN */
		return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
	exp = exp - 127 + 15;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) {  /* subnormal half, or zero */
		if (exp < -10)
			return (uint16_t)sign;
		mant |= 0x800000u;
		unsigned shift = (unsigned)(14 - exp);
		uint32_t h = mant >> shift;
		uint32_t rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
		if (rest > halfway || (rest == halfway && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)exp << 10) | (mant >> 13);
	uint32_t rest = mant & 0x1fffu;
	if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
		h++;  /* may carry into the exponent, which rounds up correctly */
	return (uint16_t)(sign | h);
}

static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	int exp = (h >> 10) & 0x1f;
	uint32_t mant = h & 0x3ffu;
	float f;
	if (exp == 0)
		f = ldexpf((float)mant, -24);
	else if (exp == 31)
		f = mant ? NAN : INFINITY;
	else
		f = ldexpf((float)(mant | 0x400u), exp - 25);
	uint32_t x;
	memcpy(&x, &f, sizeof x);
	x |= sign;
	memcpy(&f, &x, sizeof f);
	return f;
}

/* Converts v to an integer type's range first: out-of-range conversion is UB. */
static double clamp(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	return v < lo ? lo : v > hi ? hi : v;
}

static void store_element(void *base, enum tune_type t, size_t k, double v)
{
	switch (t) {
	case TUNE_CHAR: ((int8_t *)base)[k] = (int8_t)clamp(v, INT8_MIN, INT8_MAX); break;
	case TUNE_UCHAR: ((uint8_t *)base)[k] = (uint8_t)clamp(v, 0, UINT8_MAX); break;
	case TUNE_SHORT: ((int16_t *)base)[k] = (int16_t)clamp(v, INT16_MIN, INT16_MAX); break;
	case TUNE_USHORT: ((uint16_t *)base)[k] = (uint16_t)clamp(v, 0, UINT16_MAX); break;
	case TUNE_INT: ((int32_t *)base)[k] = (int32_t)clamp(v, INT32_MIN, INT32_MAX); break;
	case TUNE_UINT: ((uint32_t *)base)[k] = (uint32_t)clamp(v, 0, UINT32_MAX); break;
	/* 2^63 and 2^64 are the first doubles out of range. */
	case TUNE_LONG: ((int64_t *)base)[k] = (int64_t)clamp(v, -0x1p63, 0x1.fffffffffffffp62); break;
	case TUNE_ULONG: ((uint64_t *)base)[k] = (uint64_t)clamp(v, 0, 0x1.fffffffffffffp63); break;
	case TUNE_HALF: ((uint16_t *)base)[k] = half_from_float((float)v); break;
	case TUNE_FLOAT: ((float *)base)[k] = (float)v; break;
	case TUNE_DOUBLE: ((double *)base)[k] = v; break;
	}
}

static double load_element(const void *base, enum tune_type t, size_t k)
{
	switch (t) {
	case TUNE_CHAR: return ((const int8_t *)base)[k];
	case TUNE_UCHAR: return ((const uint8_t *)base)[k];
	case TUNE_SHORT: return ((const int16_t *)base)[k];
	case TUNE_USHORT: return ((const uint16_t *)base)[k];
	case TUNE_INT: return ((const int32_t *)base)[k];
	case TUNE_UINT: return ((const uint32_t *)base)[k];
	case TUNE_LONG: return (double)((const int64_t *)base)[k];
	case TUNE_ULONG: return (double)((const uint64_t *)base)[k];
	case TUNE_HALF: return half_to_float(((const uint16_t *)base)[k]);
	case TUNE_FLOAT: return ((const float *)base)[k];
	case TUNE_DOUBLE: return ((const double *)base)[k];
	}
	return 0;
}

static bool is_integer_type(enum tune_type t)
{
	return t != TUNE_HALF && t != TUNE_FLOAT && t != TUNE_DOUBLE;
}

/* A scalar argument's bytes in its declared type. */
union scalar {
	int8_t c; uint8_t uc; int16_t s; uint16_t us; int32_t i; uint32_t ui;
	int64_t l; uint64_t ul; uint16_t h; float f; double d;
};

static void scalar_value(const struct tune_arg *a, union scalar *out)
{
	memset(out, 0, sizeof *out);
	/* Integers keep all 64 bits: going through a double would round them. */
	switch (a->type) {
	case TUNE_CHAR: out->c = (int8_t)a->i; break;
	case TUNE_UCHAR: out->uc = (uint8_t)a->i; break;
	case TUNE_SHORT: out->s = (int16_t)a->i; break;
	case TUNE_USHORT: out->us = (uint16_t)a->i; break;
	case TUNE_INT: out->i = (int32_t)a->i; break;
	case TUNE_UINT: out->ui = (uint32_t)a->i; break;
	case TUNE_LONG: out->l = a->i; break;
	case TUNE_ULONG: out->ul = (uint64_t)a->i; break;
	case TUNE_HALF: out->h = half_from_float((float)a->f); break;
	case TUNE_FLOAT: out->f = (float)a->f; break;
	case TUNE_DOUBLE: out->d = a->f; break;
	}
}

/* ---- initial contents ----------------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): one state word, passes BigCrush,
 * and the sequence is fully defined by the seed, so runs are repeatable. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A buffer's size in bytes into ea->bytes. */
static int arg_bytes(struct exec_arg *ea, char **err)
{
	const struct tune_arg *a = &ea->arg;
	const char *name = a->name ? a->name : "?";
	size_t size = tune_type_size(a->type);
	if (a->count == 0 || a->count > SIZE_MAX / size) {
		*err = tune_strfmt("buffer '%s' has an unusable size of %llu elements", name,
		                   (unsigned long long)a->count);
		return -1;
	}
	ea->bytes = (size_t)a->count * size;
	return 0;
}

/* The initial contents into ea->init (zeroed memory, sh->data's). */
static int fill_init(struct exec_arg *ea, char **err)
{
	const struct tune_arg *a = &ea->arg;
	const char *name = a->name ? a->name : "?";
	if (a->access == TUNE_OUT)
		return 0;
	switch (a->init.kind) {
	case TUNE_INIT_ZEROS:
		break;
	case TUNE_INIT_CONST:
		for (size_t k = 0; k < a->count; k++)
			store_element(ea->init, a->type, k, a->init.value);
		break;
	case TUNE_INIT_RANDOM: {
		uint64_t state = a->init.seed;
		double lo = a->init.lo, span = a->init.hi - a->init.lo;
		for (size_t k = 0; k < a->count; k++) {
			double u = (double)(splitmix64(&state) >> 11) * 0x1p-53;  /* [0, 1) */
			double v = lo + span * u;
			store_element(ea->init, a->type, k, is_integer_type(a->type) ? floor(v) : v);
		}
		break;
	}
	case TUNE_INIT_FILE: {
		FILE *f = a->init.path ? fopen(a->init.path, "rb") : NULL;
		if (!f) {
			*err = tune_strfmt("cannot read '%s' for buffer '%s': %s",
			                   a->init.path ? a->init.path : "(none)", name, strerror(errno));
			return -1;
		}
		size_t got = fread(ea->init, 1, ea->bytes, f);
		fclose(f);
		if (got != ea->bytes) {
			*err = tune_strfmt("'%s' holds %zu bytes; buffer '%s' needs %zu", a->init.path,
			                   got, name, ea->bytes);
			return -1;
		}
		break;
	}
	}
	return 0;
}

int exec_shared_init(struct exec_shared *sh, const struct tune_eval_opts *o,
                     const struct tune_reference *ref, const struct tune_variant *proto, char **err)
{
	memset(sh, 0, sizeof *sh);
	sh->sel.backend = dup_or_null(o->device.backend);
	sh->sel.platform = dup_or_null(o->device.platform);
	sh->sel.device = dup_or_null(o->device.device);
	sh->sel.gpu = o->device.gpu;
	sh->warmup = o->warmup > 0 ? o->warmup : 0;
	sh->repeat = o->repeat > 0 ? o->repeat : 1;
	sh->cache_dir = o->cache_dir ? strdup(o->cache_dir) : cache_default_dir("spacetune");
	if (ref)
		sh->ref = *ref;
	else
		sh->ref.kind = TUNE_REF_NONE;
	sh->ref.source = dup_or_null(sh->ref.source);
	sh->ref.c_path = dup_or_null(sh->ref.c_path);
	sh->ref.name = dup_or_null(sh->ref.name);
	sh->ref.build_options = dup_or_null(sh->ref.build_options);
	sh->ops = dev_backend(sh->sel.backend);
	if (!sh->ops) {
		*err = tune_strfmt("spacetune was built without the '%s' backend", sh->sel.backend);
		return -1;
	}
	sh->nargs = proto->nargs;
	sh->args = calloc(proto->nargs > 0 ? (size_t)proto->nargs : 1, sizeof *sh->args);
	if (!sh->cache_dir || !sh->args) {
		*err = tune_strfmt("out of memory");
		return -1;
	}
	/* Kernel binaries and the C reference from the cache run here: only a
	 * directory nobody else can write to will do (tools/cache.h). */
	char *why = NULL;
	if (cache_dir_prepare(sh->cache_dir, &why) != 0) {
		char *tmp = cache_private_dir("spacetune");
		fprintf(stderr, "spacetune: warning: not using the cache directory '%s' (%s); %s\n",
		        sh->cache_dir, why ? why : "out of memory",
		        tmp ? "building in a private temporary directory" : "and no other directory");
		free(why);
		if (!tmp) {
			*err = tune_strfmt("no directory to build in: %s", strerror(errno));
			return -1;
		}
		free(sh->cache_dir);
		sh->cache_dir = tmp;
		sh->temporary_owner = getpid();
	}
	for (int i = 0; i < proto->nargs; i++) {
		struct exec_arg *ea = &sh->args[i];
		ea->arg = proto->args[i];
		ea->arg.name = dup_or_null(ea->arg.name);
		ea->arg.init.path = dup_or_null(ea->arg.init.path);
		if (ea->arg.kind == TUNE_ARG_BUFFER && arg_bytes(ea, err) != 0)
			return -1;
	}
	if (exec_shared_map(sh, -1, err) != 0)
		return -1;
	for (int i = 0; i < proto->nargs; i++)
		if (sh->args[i].arg.kind == TUNE_ARG_BUFFER && fill_init(&sh->args[i], err) != 0)
			return -1;
	sh->ref_ready = sh->ref.kind == TUNE_REF_NONE;
	return 0;
}

/* The layout of sh->data: every buffer's initial contents, then (with a
 * reference) the reference's outputs of every out/inout buffer, each at a
 * multiple of 64 bytes.  The total, or SIZE_MAX on overflow. */
static size_t data_layout(struct exec_shared *sh, char *base)
{
	size_t off = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < sh->nargs; i++) {
			struct exec_arg *ea = &sh->args[i];
			if (ea->arg.kind != TUNE_ARG_BUFFER ||
			    (pass == 1 && (sh->ref.kind == TUNE_REF_NONE || ea->arg.access == TUNE_IN)))
				continue;
			if (base)
				*(pass ? &ea->ref : &ea->init) = base + off;
			size_t step = (ea->bytes + 63) & ~(size_t)63;
			if (step < ea->bytes || off > SIZE_MAX - step)
				return SIZE_MAX;
			off += step;
		}
	return off;
}

int exec_shared_map(struct exec_shared *sh, int fd, char **err)
{
	size_t len = data_layout(sh, NULL);
	if (len == SIZE_MAX) {
		*err = tune_strfmt("the job's buffers are too big together");
		return -1;
	}
	if (len == 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (fd < 0 && ((fd = memfd_create("spacetune-data", MFD_CLOEXEC)) < 0 ||
	               ftruncate(fd, (off_t)len) != 0)) {
		*err = tune_strfmt("cannot make room for the job's buffers (%zu bytes): %s", len,
		                   strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct stat st;
	void *p = fstat(fd, &st) == 0 && (uint64_t)st.st_size >= len
	          ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (p == MAP_FAILED) {
		*err = tune_strfmt("cannot map the job's buffers (%zu bytes): %s", len, strerror(errno));
		close(fd);
		return -1;
	}
	sh->data = p;
	sh->data_len = len;
	sh->data_fd = fd;
	data_layout(sh, p);
	return 0;
}

void exec_shared_release(struct exec_shared *sh)
{
	free((char *)sh->sel.backend);
	free((char *)sh->sel.platform);
	free((char *)sh->sel.device);
	if (sh->temporary_owner == getpid())  /* not the forked workers */
		cache_remove_dir(sh->cache_dir);
	free(sh->cache_dir);
	free((char *)sh->ref.source);
	free((char *)sh->ref.c_path);
	free((char *)sh->ref.name);
	free((char *)sh->ref.build_options);
	for (int i = 0; i < sh->nargs && sh->args; i++) {
		free((char *)sh->args[i].arg.name);
		free((char *)sh->args[i].arg.init.path);
	}
	free(sh->args);
	if (sh->data) {
		munmap(sh->data, sh->data_len);
		close(sh->data_fd);
	}
	memset(sh, 0, sizeof *sh);
}

/* ---- the program-binary cache ------------------------------------------------- */

/* FNV-1a then a splitmix finaliser for avalanche.  Collisions cannot give a
 * wrong binary: each cache file holds its whole key, checked on load. */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t hash_string(const char *s)
{
	uint64_t h = hash_bytes(0xcbf29ce484222325ULL, s, strlen(s));
	return splitmix64(&h);
}

static const char cache_magic[8] = "SPTBIN1";

/* The identity of a build: backend, device, driver, options and the
 * source's hash. */
static char *cache_key(const struct exec_worker *w, const char *source, const char *options)
{
	const struct tune_device_info *d = &w->info;
	return tune_strfmt("%s\n%s\n%s\n%s\n%s\n%s\n%016llx\n", w->ops->name, d->platform, d->name,
	                   d->driver, d->version, options ? options : "",
	                   (unsigned long long)hash_string(source));
}

static char *cache_path(const struct exec_worker *w, const char *key)
{
	return tune_strfmt("%s/%016llx.%sbin", w->sh->cache_dir, (unsigned long long)hash_string(key),
	                   w->ops == dev_backend("opencl") ? "cl" : w->ops->name);
}

static bool read_exact(FILE *f, void *p, size_t n)
{
	return fread(p, 1, n, f) == n;
}

/* A program from the cache, loaded; NULL when absent, stale or unusable. */
static struct dev_module *cache_load(struct exec_worker *w, const char *path, const char *key,
                                     const char *options)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct dev_module *m = NULL;
	char magic[8];
	uint64_t keylen, binlen;
	char *filekey = NULL;
	unsigned char *bin = NULL;
	size_t want = strlen(key);
	if (!read_exact(f, magic, 8) || memcmp(magic, cache_magic, 8) != 0 ||
	    !read_exact(f, &keylen, 8) || keylen != want)
		goto out;
	filekey = malloc(want + 1);
	if (!filekey || !read_exact(f, filekey, want) || memcmp(filekey, key, want) != 0 ||
	    !read_exact(f, &binlen, 8) || binlen == 0 || binlen > ((uint64_t)1 << 32))
		goto out;
	bin = malloc((size_t)binlen);
	if (!bin || !read_exact(f, bin, (size_t)binlen))
		goto out;
	if (w->ops->load(w->dev, bin, (size_t)binlen, options, &m) != 0)
		m = NULL;
out:
	free(bin);
	free(filekey);
	fclose(f);
	return m;
}

/* Writes to a private temporary name and renames: readers (other workers,
 * other runs) see the whole file or none.  Failure only costs a rebuild. */
static void cache_store(struct exec_worker *w, struct dev_module *m, const char *path, const char *key)
{
	void *bin = NULL;
	size_t binlen = 0;
	if (w->ops->binary(w->dev, m, &bin, &binlen) != 0 || binlen == 0) {
		free(bin);
		return;
	}
	char *tmp = tune_strfmt("%s.tmp.%ld", path, (long)getpid());
	if (!tmp)
		goto out;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	uint64_t keylen = strlen(key), len64 = binlen;
	bool ok = tune_write_all(fd, cache_magic, 8) && tune_write_all(fd, &keylen, 8) &&
	          tune_write_all(fd, key, strlen(key)) && tune_write_all(fd, &len64, 8) &&
	          tune_write_all(fd, bin, binlen);
	if (close(fd) != 0)
		ok = false;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
out:
	free(tmp);
	free(bin);
}

/*
 * Builds `source` with `options` for the worker's device, through the
 * cache.  NULL on failure with r->status = TUNE_BUILD_ERROR and the log.
 */
static struct dev_module *build(struct exec_worker *w, const char *source, const char *options,
                                struct tune_result *r)
{
	char *key = cache_key(w, source, options);
	char *path = key ? cache_path(w, key) : NULL;
	struct dev_module *m = path ? cache_load(w, path, key, options) : NULL;
	if (m) {
		r->build_s = 0;
		r->build_cached = true;
		goto out;
	}
	double t0 = tune_now();
	int rc = w->ops->compile(w->dev, source, options, &m, &r->log);
	r->build_s = tune_now() - t0;
	if (rc != 0) {
		r->status = TUNE_BUILD_ERROR;
		r->error = strdup(dev_error_name(w->ops, rc));
		m = NULL;
		goto out;
	}
	if (path)
		cache_store(w, m, path, key);
out:
	free(path);
	free(key);
	return m;
}

/* ---- the worker's device state --------------------------------------------- */

/* A slot per kernel argument for its device buffer, pristine device copy
 * and read-back space; ensure_buffers allocates the buffers themselves. */
static int alloc_buffer_slots(struct exec_worker *w, char **err)
{
	size_t n = w->sh->nargs > 0 ? (size_t)w->sh->nargs : 1;
	w->mems = calloc(n, sizeof *w->mems);
	w->pristine = calloc(n, sizeof *w->pristine);
	w->host = calloc(n, sizeof *w->host);
	if (!w->mems || !w->pristine || !w->host) {
		*err = tune_strfmt("out of memory");
		return -1;
	}
	return 0;
}

int exec_worker_open(struct exec_worker *w, struct exec_shared *sh, char **err)
{
	memset(w, 0, sizeof *w);
	w->sh = sh;
	w->ops = sh->ops;
	if (dev_open(w->ops, &w->dev, &sh->sel, &w->info, err) != 0)
		return -1;
	return alloc_buffer_slots(w, err);
}

/* The device buffers and read-back space of the current job. */
static void free_buffers(struct exec_worker *w)
{
	for (int i = 0; i < w->sh->nargs; i++) {
		if (w->mems && w->mems[i])
			w->ops->buf_free(w->dev, w->mems[i]);
		if (w->pristine && w->pristine[i])
			w->ops->buf_free(w->dev, w->pristine[i]);
		if (w->host)
			free(w->host[i]);
	}
	free(w->mems);
	free(w->pristine);
	free(w->host);
	w->mems = NULL;
	w->pristine = NULL;
	w->host = NULL;
}

int exec_worker_adopt(struct exec_worker *w, struct exec_shared *next, char **err)
{
	free_buffers(w);
	/* The device and its backend stay: they are what makes keeping the worker worth it. */
	next->sel = w->sh->sel;
	next->ops = w->sh->ops;
	memset(&w->sh->sel, 0, sizeof w->sh->sel);
	exec_shared_release(w->sh);
	*w->sh = *next;
	memset(next, 0, sizeof *next);
	return alloc_buffer_slots(w, err);
}

void exec_worker_close(struct exec_worker *w)
{
	free_buffers(w);
	if (w->dev)
		w->ops->close(w->dev);
	w->dev = NULL;
}

static void set_launch_error(const struct exec_worker *w, struct tune_result *r, int rc, char *detail)
{
	r->status = TUNE_LAUNCH_ERROR;
	free(r->error);
	r->error = strdup(dev_error_name(w->ops, rc));
	free(r->log);
	r->log = detail;
}

/*
 * Whether the job's buffers get a second, pristine copy on the device:
 * while both copies of every worker's buffers stay within half the
 * device's memory, taking up to 32 workers (the workers share the GPU,
 * and a driver may place a buffer only at its first use, too late to
 * fall back).
 */
static bool pristine_fits(const struct exec_worker *w)
{
	/* Test-only: the host's writes, as where the copies do not fit
	 * (tests/tuner/faults.sh runs both ways). */
	const char *host = getenv("SPACETUNE_TEST_HOST_RESETS");
	if (host && strcmp(host, "1") == 0)
		return false;
	int64_t mem = 0;
	if (w->ops->query(w->dev, "global_mem_size", &mem) != 0 || mem <= 0)
		return false;
	uint64_t total = 0;
	for (int i = 0; i < w->sh->nargs; i++)
		if (w->sh->args[i].arg.kind == TUNE_ARG_BUFFER)
			total += w->sh->args[i].bytes;
	return total <= (uint64_t)mem / 128;
}

/* Device buffers live as long as the worker: every variant of a job has
 * the same buffers (their sizes cannot depend on the point).  Where they
 * fit twice, each also gets its initial contents once on the device,
 * from which every reset copies: before, every evaluation wrote them from
 * the host, inside the device lock, which on an H100 took 0.17 s of a
 * 4096^3 SGEMM's evaluation whose six runs take 0.02 s. */
static int ensure_buffers(struct exec_worker *w)
{
	int keep = -1;  /* pristine_fits, asked once */
	for (int i = 0; i < w->sh->nargs; i++) {
		const struct exec_arg *ea = &w->sh->args[i];
		if (ea->arg.kind != TUNE_ARG_BUFFER || w->mems[i])
			continue;
		int rc = w->ops->alloc(w->dev, ea->bytes, &w->mems[i]);
		if (rc != 0) {
			w->mems[i] = NULL;
			return rc;
		}
		if (ea->arg.access != TUNE_IN && !(w->host[i] = malloc(ea->bytes)))
			return DEV_E_NOMEM;
		if (keep < 0)
			keep = pristine_fits(w);
		if (!keep)
			continue;
		if (w->ops->alloc(w->dev, ea->bytes, &w->pristine[i]) != 0) {
			w->pristine[i] = NULL;  /* the host's copy serves */
		} else if (w->ops->write(w->dev, w->pristine[i], ea->init, ea->bytes) != 0) {
			w->ops->finish(w->dev);
			w->ops->buf_free(w->dev, w->pristine[i]);
			w->pristine[i] = NULL;
		}
	}
	return 0;
}

/* Argument i's buffer back to its initial contents (queued). */
static int reset_buffer(struct exec_worker *w, int i)
{
	const struct exec_arg *ea = &w->sh->args[i];
	return w->pristine[i] ? w->ops->copy(w->dev, w->mems[i], w->pristine[i], ea->bytes)
	                      : w->ops->write(w->dev, w->mems[i], ea->init, ea->bytes);
}

/* Checks the variant against the job's layout: buffers are shared data. */
static char *layout_mismatch(const struct exec_shared *sh, const struct tune_variant *v)
{
	if (v->nargs != sh->nargs)
		return tune_strfmt("the variant has %d arguments, the job %d", v->nargs, sh->nargs);
	for (int i = 0; i < v->nargs; i++) {
		const struct tune_arg *a = &v->args[i], *b = &sh->args[i].arg;
		if (a->kind != b->kind || a->type != b->type ||
		    (a->kind == TUNE_ARG_BUFFER && (a->count != b->count || a->access != b->access)))
			return tune_strfmt("argument %d differs from the job's layout", i);
	}
	return NULL;
}

/* The launch of a variant (or the reference kernel): the scalars come
 * from `args` (the variant's or the job's), the buffers are the worker's. */
struct launch {
	struct dev_kernel *k;
	/* A sequence (variant.h: "a,b,c"): the kernels after k, run in
	 * order, with the same arguments and sizes, or with those of
	 * steps[j] where the variant gives each kernel its own. */
	struct dev_kernel *const *more;
	int nmore;
	struct launch *steps;
	struct dev_launch l;
	struct dev_arg *args;
	union scalar *scalars;
};

/* `index`: which of the job's arguments the kernel takes, in its order
 * (n of them; a tune_step's), or NULL for all of them. */
static int launch_init(struct launch *la, const struct exec_worker *w, struct dev_kernel *k,
                       const struct tune_arg *args, int dim, const size_t *global, const size_t *local,
                       int n, const int *index)
{
	if (!index)
		n = w->sh->nargs;
	la->k = k;
	la->args = calloc((size_t)n + 1, sizeof *la->args);
	la->scalars = calloc((size_t)n + 1, sizeof *la->scalars);
	la->l = (struct dev_launch){dim, global, local, n, la->args};
	if (!la->args || !la->scalars)
		return DEV_E_NOMEM;
	for (int j = 0; j < n; j++) {
		int i = index ? index[j] : j;
		const struct tune_arg *a = &args[i];
		struct dev_arg *d = &la->args[j];
		d->kind = a->kind;
		d->size = tune_type_size(a->type);
		if (a->kind == TUNE_ARG_SCALAR) {
			scalar_value(a, &la->scalars[j]);
			d->value = &la->scalars[j];
		} else if (a->kind == TUNE_ARG_BUFFER) {
			d->buf = w->mems[i];
		} else {
			d->size *= (size_t)a->count;
		}
	}
	return 0;
}

static void launch_release(struct launch *la)
{
	for (int j = 0; la->steps && j < la->nmore; j++)
		launch_release(&la->steps[j]);
	free(la->steps);
	free(la->args);
	free(la->scalars);
}

/* The launch of kernel j of a sequence (0: the first). */
static const struct dev_launch *step_launch(const struct launch *la, int j)
{
	return j > 0 && la->steps ? &la->steps[j - 1].l : &la->l;
}

/* Every kernel's launch, each with the sizes and arguments of its step
 * where the variant has steps. */
static int launch_init_all(struct launch *la, const struct exec_worker *w, struct dev_kernel **ks, int nk,
                           const struct tune_variant *v)
{
	const struct tune_step *st = v->nsteps == nk ? v->steps : NULL;
	int rc = st ? launch_init(la, w, ks[0], v->args, st[0].work_dim, st[0].global, st[0].local, st[0].nargs,
	                          st[0].arg_index)
	         : launch_init(la, w, ks[0], v->args, v->work_dim, v->global, v->local, 0, NULL);
	la->more = ks + 1;
	la->nmore = nk - 1;
	if (rc != 0 || !st || nk < 2)
		return rc;
	if (!(la->steps = calloc((size_t)nk, sizeof *la->steps)))
		return DEV_E_NOMEM;
	for (int j = 1; j < nk && rc == 0; j++)
		rc = launch_init(&la->steps[j - 1], w, ks[j], v->args, st[j].work_dim, st[j].global, st[j].local,
		                 st[j].nargs, st[j].arg_index);
	return rc;
}

/*
 * Resets the written buffers, then launches once.  `last`: the run whose
 * outputs are read back.  An inout buffer is reset before every run (each
 * must start from the same data); an out-only one only before the last:
 * no run reads it, and the last one's reset is what catches a variant that
 * writes nothing (stale outputs of an earlier run would pass).  A large
 * out buffer rewritten before each of 11 runs was most of an evaluation's
 * device time (conv2d at 8192 x 4096: 128 MB each).
 */
static int launch(struct exec_worker *w, const struct launch *la, bool last, double *ms)
{
	for (int i = 0; i < w->sh->nargs; i++) {
		const struct exec_arg *ea = &w->sh->args[i];
		if (ea->arg.kind != TUNE_ARG_BUFFER || ea->arg.access == TUNE_IN ||
		    (ea->arg.access == TUNE_OUT && !last))
			continue;
		int rc = reset_buffer(w, i);
		if (rc != 0)
			return rc;
	}
	int rc = w->ops->launch(w->dev, la->k, &la->l, &w->hooks, ms);
	/* The rest of a sequence, each after the one before has ended: its
	 * time is the sum of theirs, each by the API's events. */
	for (int j = 0; j < la->nmore && rc == 0; j++) {
		double more_ms = 0;
		rc = w->ops->launch(w->dev, la->more[j], step_launch(la, j + 1), &w->hooks, &more_ms);
		*ms += more_ms;
	}
	return rc;
}

static int upload_inputs(struct exec_worker *w)
{
	for (int i = 0; i < w->sh->nargs; i++) {
		const struct exec_arg *ea = &w->sh->args[i];
		if (ea->arg.kind != TUNE_ARG_BUFFER || ea->arg.access != TUNE_IN)
			continue;
		int rc = reset_buffer(w, i);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int read_outputs(struct exec_worker *w)
{
	for (int i = 0; i < w->sh->nargs; i++) {
		const struct exec_arg *ea = &w->sh->args[i];
		if (ea->arg.kind != TUNE_ARG_BUFFER || ea->arg.access == TUNE_IN)
			continue;
		int rc = w->ops->read(w->dev, w->mems[i], w->host[i], ea->bytes);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * W warm-up and R timed runs, outputs reset as launch() says, inside the device
 * lock.  The outputs of the last run are left in w->host.
 */
static void time_runs(struct exec_worker *w, const struct launch *la, struct tune_result *r)
{
	int total = w->sh->warmup + w->sh->repeat;
	double *times = calloc((size_t)w->sh->repeat, sizeof *times);
	if (!times) {
		set_launch_error(w, r, DEV_E_NOMEM, NULL);
		return;
	}
	if (w->hooks.acquire && w->hooks.acquire(w->hooks.user) != 0) {
		w->lost_parent = true;
		free(times);
		return;
	}
	double held_since = tune_now();
	int rc = upload_inputs(w);
	for (int run = 0; run < total && rc == 0; run++) {
		double ms = 0;
		rc = launch(w, la, run == total - 1, &ms);
		if (rc == 0 && run >= w->sh->warmup)
			times[r->runs++] = ms;
	}
	if (rc == 0)
		rc = read_outputs(w);
	if (rc != 0) {
		/* The kernel or the transfer failed in the driver: the context
		 * may be broken for good, so this worker retires after reporting. */
		w->poisoned = true;
		set_launch_error(w, r, rc, NULL);
		w->ops->finish(w->dev);
	}
	r->device_s = tune_now() - held_since;
	if (w->hooks.release)
		w->hooks.release(w->hooks.user);
	if (r->runs > 0) {
		qsort(times, (size_t)r->runs, sizeof *times, compare_doubles);
		r->time_min_ms = times[0];
		r->time_median_ms = r->runs % 2 ? times[r->runs / 2]
		                              : 0.5 * (times[r->runs / 2 - 1] + times[r->runs / 2]);
	}
	free(times);
}

/* Compares the outputs in w->host with the reference (or only for NaN/Inf). */
static void verify(struct exec_worker *w, const struct tune_variant *v, struct tune_result *r)
{
	const struct tune_reference *ref = &w->sh->ref;
	uint64_t bad_total = 0;
	for (int i = 0; i < w->sh->nargs; i++) {
		const struct exec_arg *ea = &w->sh->args[i];
		if (ea->arg.kind != TUNE_ARG_BUFFER || ea->arg.access == TUNE_IN || !v->args[i].compare)
			continue;
		const void *out = w->host[i], *want = ea->ref;
		uint64_t bad = 0, nonfinite = 0;
		for (size_t e = 0; e < ea->arg.count; e++) {
			double x = load_element(out, ea->arg.type, e);
			double y = want ? load_element(want, ea->arg.type, e) : 0;
			if (!isfinite(x)) {
				/* A NaN or Inf the reference produces too is a match. */
				if (!want || !(isnan(x) ? isnan(y) : x == y))
					nonfinite++;
				continue;
			}
			if (!want)
				continue;
			double diff = fabs(x - y);
			if (!isfinite(y) || diff > ref->abs_tol + ref->rel_tol * fabs(y))
				bad++;
			if (!isfinite(y))
				continue;
			if (diff > r->max_abs_err)
				r->max_abs_err = diff;
			/* Relative error where it is defined; at ref == 0 only abs counts. */
			if (y != 0 && diff / fabs(y) > r->max_rel_err)
				r->max_rel_err = diff / fabs(y);
		}
		r->nonfinite += nonfinite;
		if ((bad || nonfinite) && !r->error)
			r->error = tune_strfmt("'%s': %llu of %llu elements outside the tolerance, %llu not finite",
			                       ea->arg.name ? ea->arg.name : "?", (unsigned long long)bad,
			                       (unsigned long long)ea->arg.count,
			                       (unsigned long long)nonfinite);
		bad_total += bad + nonfinite;
	}
	if (bad_total)
		r->status = TUNE_WRONG_RESULT;
}

void exec_worker_eval(struct exec_worker *w, const struct tune_variant *v, struct tune_result *r)
{
	memset(r, 0, sizeof *r);
	r->status = TUNE_OK;
	char *why = layout_mismatch(w->sh, v);
	if (why) {
		r->status = TUNE_SKIPPED;
		r->error = why;
		return;
	}
	struct dev_module *m = build(w, v->source, v->build_options, r);
	if (!m)
		return;
	/* "a", or a sequence "a,b,c" (variant.h) */
	enum { MAX_KERNELS = 64 };
	struct dev_kernel *ks[MAX_KERNELS];
	int nk = 0, rc = 0;
	for (const char *name = v->kernel_name; name; nk++) {
		size_t n = strcspn(name, ",");
		char *one = nk < MAX_KERNELS ? tune_strfmt("%.*s", (int)n, name) : NULL;
		rc = one ? w->ops->kernel(w->dev, m, one, &ks[nk]) : DEV_E_NOMEM;
		if (rc != 0) {
			r->status = TUNE_BUILD_ERROR;
			r->error = nk >= MAX_KERNELS ? tune_strfmt("more than %d kernels in one sequence", MAX_KERNELS)
			           : tune_strfmt("%s: no kernel '%s'", dev_error_name(w->ops, rc), one ? one : "?");
			free(one);
			for (int j = 0; j < nk; j++)
				w->ops->kernel_free(w->dev, ks[j]);
			w->ops->module_free(w->dev, m);
			return;
		}
		free(one);
		name = name[n] ? name + n + 1 : NULL;
	}
	char *detail = NULL;
	struct launch la = {0};
	if ((rc = ensure_buffers(w)) != 0) {
		set_launch_error(w, r, rc, tune_strfmt("cannot allocate the job's buffers"));
	} else if (v->nsteps && v->nsteps != nk) {
		r->status = TUNE_SKIPPED;
		r->error = tune_strfmt("%d kernels but sizes and arguments for %d", nk, v->nsteps);
	} else if ((rc = launch_init_all(&la, w, ks, nk, v)) != 0) {
		set_launch_error(w, r, rc, NULL);
	} else {
		for (int j = 0; j < nk && rc == 0; j++)
			if ((rc = w->ops->check(w->dev, ks[j], step_launch(&la, j), &detail)) != 0)
				set_launch_error(w, r, rc, detail);
		if (rc == 0) {
			time_runs(w, &la, r);
			if (r->status == TUNE_OK && !w->lost_parent)
				verify(w, v, r);
		}
	}
	launch_release(&la);
	for (int j = 0; j < nk; j++)
		w->ops->kernel_free(w->dev, ks[j]);
	w->ops->module_free(w->dev, m);
}

/* ---- references ------------------------------------------------------------- */

static int kernel_reference(struct exec_worker *w, char **err)
{
	const struct tune_reference *ref = &w->sh->ref;
	struct tune_result r = {0};
	struct dev_module *m = build(w, ref->source, ref->build_options, &r);
	if (!m) {
		*err = tune_strfmt("the reference kernel '%s' does not build (%s)%s%s", ref->name,
		                   r.error ? r.error : "?", r.log ? ":\n" : "", r.log ? r.log : "");
		tune_result_release(&r);
		return -1;
	}
	char *detail = NULL;
	struct dev_kernel *k = NULL;
	struct launch la = {0};
	int rc = w->ops->kernel(w->dev, m, ref->name, &k);
	struct tune_arg *args = calloc((size_t)w->sh->nargs + 1, sizeof *args);
	for (int i = 0; args && i < w->sh->nargs; i++)
		args[i] = w->sh->args[i].arg;
	if (rc != 0)
		*err = tune_strfmt("no reference kernel '%s': %s", ref->name, dev_error_name(w->ops, rc));
	else if (!args)
		*err = tune_strfmt("out of memory");
	else if ((rc = ensure_buffers(w)) != 0 ||
	         (rc = launch_init(&la, w, k, args, ref->work_dim, ref->global, ref->local, 0, NULL)) != 0 ||
	         (rc = w->ops->check(w->dev, k, &la.l, &detail)) != 0)
		*err = tune_strfmt("the reference kernel '%s' cannot be launched: %s%s%s", ref->name,
		                   dev_error_name(w->ops, rc), detail ? ": " : "", detail ? detail : "");
	else {
		double ms;
		rc = upload_inputs(w);
		if (rc == 0)
			rc = launch(w, &la, true, &ms);
		if (rc == 0)
			rc = read_outputs(w);
		if (rc != 0)
			*err = tune_strfmt("the reference kernel '%s' failed: %s", ref->name,
			                   dev_error_name(w->ops, rc));
	}
	launch_release(&la);
	free(detail);
	free(args);
	if (k)
		w->ops->kernel_free(w->dev, k);
	w->ops->module_free(w->dev, m);
	if (*err)
		return -1;
	for (int i = 0; i < w->sh->nargs; i++)
		if (w->host[i] && w->sh->args[i].ref)  /* the out/inout buffers, into sh->data */
			memcpy(w->sh->args[i].ref, w->host[i], w->sh->args[i].bytes);
	return 0;
}

static char *read_text_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t len;
	char *text = tune_read_fd(fd, &len);
	close(fd);
	return text;
}

/* Compiles the C reference into the cache (keyed by its text and the
 * compiler's arguments) and loads it, verified (tools/cache.h). */
static void *load_c_reference(struct exec_worker *w, char **err)
{
	const struct tune_reference *ref = &w->sh->ref;
	char *text = read_text_file(ref->c_path);
	if (!text) {
		*err = tune_strfmt("cannot read the C reference '%s': %s", ref->c_path, strerror(errno));
		return NULL;
	}
	static const char compile[] = "cc -O2 -shared -fPIC -lm";
	const char *parts[] = {"spacetune cref", compile, text};
	size_t lens[] = {strlen(parts[0]), strlen(compile), strlen(text)};
	struct cache_id id;
	cache_identity(&id, 3, parts, lens);
	free(text);
	char stem[17];
	cache_id_stem(&id, stem);
	char *so = tune_strfmt("%s/cref-%s.so", w->sh->cache_dir, stem);
	char *tmp = tune_strfmt("%s/cref-%s-XXXXXX.so", w->sh->cache_dir, stem);
	char *why = NULL;
	void *handle = NULL;
	if (!so || !tmp) {
		*err = tune_strfmt("out of memory");
		goto out;
	}
	if ((handle = cache_entry_dlopen(so, &id, &why)))
		goto out;
	if (why) {
		fprintf(stderr, "spacetune: warning: the cache entry '%s' cannot be used (%s); rebuilding it\n",
		        so, why);
		free(why);
		why = NULL;
	}
	int fd = mkstemps(tmp, 3);
	if (fd < 0) {
		*err = tune_strfmt("cannot write to '%s': %s", w->sh->cache_dir, strerror(errno));
		goto out;
	}
	close(fd);
	char *argv[] = {"cc", "-O2", "-shared", "-fPIC", "-o", tmp, (char *)ref->c_path, "-lm", NULL};
	char *output = NULL;
	if (spawn_capture(argv, &output) != 0) {
		*err = tune_strfmt("cannot compile the C reference '%s' (%s)%s%s", ref->c_path, compile,
		                   output && *output ? ":\n" : "", output ? output : "");
		unlink(tmp);
	} else if (cache_entry_seal(tmp, so, &id, &why) == 0) {
		handle = cache_entry_dlopen(so, &id, &why);
	}
	free(output);
	if (!handle && !*err)
		*err = tune_strfmt("cannot load the C reference: %s", why ? why : "?");
out:
	free(why);
	free(tmp);
	free(so);
	return handle;
}

static int c_reference(struct exec_worker *w, char **err)
{
	const struct tune_reference *ref = &w->sh->ref;
	void *handle = load_c_reference(w, err);
	if (!handle)
		return -1;
	tune_c_reference_fn fn;
	void *sym = dlsym(handle, ref->name);
	memcpy(&fn, &sym, sizeof fn);  /* object to function pointer, as POSIX allows */
	int n = w->sh->nargs;
	void **argv = calloc((size_t)n + 1, sizeof *argv);
	union scalar *scalars = calloc((size_t)n + 1, sizeof *scalars);
	int rc = -1;
	if (!sym) {
		*err = tune_strfmt("no function '%s' in the C reference '%s'", ref->name, ref->c_path);
		goto out;
	}
	if (!argv || !scalars) {
		*err = tune_strfmt("out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct exec_arg *ea = &w->sh->args[i];
		if (ea->arg.kind == TUNE_ARG_SCALAR) {
			scalar_value(&ea->arg, &scalars[i]);
			argv[i] = &scalars[i];
		} else if (ea->arg.kind == TUNE_ARG_BUFFER) {
			/* A private copy: the reference may scribble on its inputs. */
			if (!(argv[i] = malloc(ea->bytes))) {
				*err = tune_strfmt("out of memory");
				goto out;
			}
			memcpy(argv[i], ea->init, ea->bytes);
		}
	}
	if (w->hooks.started)
		w->hooks.started(w->hooks.user);
	int ret = fn(n, argv);
	if (w->hooks.finished)
		w->hooks.finished(w->hooks.user);
	if (ret != 0) {
		*err = tune_strfmt("the C reference '%s' returned %d", ref->name, ret);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct exec_arg *ea = &w->sh->args[i];
		if (ea->arg.kind == TUNE_ARG_BUFFER && ea->arg.access != TUNE_IN && ea->ref)
			memcpy(ea->ref, argv[i], ea->bytes);
	}
	rc = 0;
out:
	for (int i = 0; argv && i < n; i++)
		if (w->sh->args[i].arg.kind == TUNE_ARG_BUFFER)
			free(argv[i]);
	free(argv);
	free(scalars);
	dlclose(handle);
	return rc;
}

int exec_worker_reference(struct exec_worker *w, char **err)
{
	*err = NULL;
	switch (w->sh->ref.kind) {
	case TUNE_REF_NONE:
		return 0;
	case TUNE_REF_KERNEL:
		return kernel_reference(w, err);
	case TUNE_REF_C:
		return c_reference(w, err);
	}
	return 0;
}
