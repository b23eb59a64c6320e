#include "config.h"
#include "jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBTCC
#include <libtcc.h>
#endif

#include "spacert.h"

/* runtime headers, generated from runtime/ at build time (spacert_embed.c) */
struct embedded_file {
	const char *name;
	const char *text;
};
extern const struct embedded_file spacec_embedded_headers[];

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int mkdir_p(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/spacec", xdg);
	const char *home = getenv("HOME");
	if (home && *home)
		return xasprintf("%s/.cache/spacec", home);
	return xasprintf("/tmp/spacec-cache-%ld", (long)getuid());
}

/* Writes `len` bytes to `path` atomically: a temporary file, then rename. */
static int write_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	if (!tmp)
		return -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			unlink(tmp);
			free(tmp);
			return -1;
		}
		off += (size_t)w;
	}
	if (close(fd) || rename(tmp, path)) {
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static uint64_t headers_hash(void)
{
	uint64_t h = 1469598103934665603ull;
	for (const struct embedded_file *f = spacec_embedded_headers; f->name; f++) {
		h = fnv(h, f->name, strlen(f->name));
		h = fnv(h, f->text, strlen(f->text));
	}
	return h;
}

/* The runtime headers in <cache>/include-HASH, written once. */
static char *ensure_headers(const char *dir)
{
	char *inc = xasprintf("%s/include-%016llx", dir, (unsigned long long)headers_hash());
	if (!inc || mkdir_p(inc)) {
		free(inc);
		return NULL;
	}
	for (const struct embedded_file *f = spacec_embedded_headers; f->name; f++) {
		char *p = xasprintf("%s/%s", inc, f->name);
		struct stat st;
		/* A file of the wrong size is a torn or foreign write: redo it. */
		if (p && (stat(p, &st) || (size_t)st.st_size != strlen(f->text)))
			write_atomic(p, f->text, strlen(f->text));
		free(p);
	}
	return inc;
}

static const struct sprt_space *check_space(void *sym, char **err)
{
	const struct sprt_space *sp = sym;
	if (!sp) {
		*err = xasprintf("the compiled enumerator exports no 'spacec_space'");
		return NULL;
	}
	if (sp->abi_version != SPRT_ABI_VERSION) {
		*err = xasprintf("the compiled enumerator has runtime ABI %d, spacec has %d",
				 sp->abi_version, SPRT_ABI_VERSION);
		return NULL;
	}
	return sp;
}

/* Runs a shell command; its stderr goes to a file read back on failure. */
static int run_cc(const char *cmd, const char *log, char **err)
{
	char *full = xasprintf("%s 2>'%s'", cmd, log);
	int status = full ? system(full) : -1;
	free(full);
	if (status == 0)
		return 0;
	FILE *f = fopen(log, "r");
	char buf[2048] = "";
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	*err = xasprintf("the C compiler failed (%s):\n%s", cmd, buf);
	return -1;
}

static int load_cc(const char *c_text, size_t len, const struct jit_options *opt,
		   struct jit_handle *h, bool only_cached, char **err)
{
	const char *cc = opt->cc ? opt->cc : getenv("CC");
	if (!cc || !*cc)
		cc = "cc";
	const char *cflags = opt->cflags ? opt->cflags : "-O2";
	char *dir = cache_dir();
	if (!dir || mkdir_p(dir)) {
		*err = xasprintf("cannot create the cache directory '%s': %s", dir ? dir : "?", strerror(errno));
		free(dir);
		return -1;
	}
	uint64_t key = headers_hash();
	key = fnv(key, c_text, len);
	key = fnv(key, cc, strlen(cc));
	key = fnv(key, cflags, strlen(cflags));
	char *so = xasprintf("%s/%016llx.so", dir, (unsigned long long)key);
	int rc = -1;
	if (!opt->no_cache && access(so, R_OK) == 0) {
		double t0 = now();
		h->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
		if (h->dl && (h->space = check_space(dlsym(h->dl, "spacec_space"), err))) {
			h->backend = "cc (cached)";
			h->compile_seconds = now() - t0;
			rc = 0;
			goto out;
		}
		/* A corrupt or stale entry: drop it and rebuild. */
		free(*err);
		*err = NULL;
		if (h->dl)
			dlclose(h->dl);
		h->dl = NULL;
		unlink(so);
	}
	if (only_cached)
		goto out;
	{
		double t0 = now();
		char *inc = ensure_headers(dir);
		char *src = xasprintf("%s/%016llx.%ld.c", dir, (unsigned long long)key, (long)getpid());
		char *tmp = xasprintf("%s.tmp.%ld", so, (long)getpid());
		char *log = xasprintf("%s/%016llx.%ld.log", dir, (unsigned long long)key, (long)getpid());
		if (!inc || !src || !tmp || !log || write_atomic(src, c_text, len)) {
			*err = xasprintf("cannot write to the cache directory '%s'", dir);
		} else {
			char *cmd = xasprintf("%s %s -std=c11 -fPIC -shared -I'%s' -o '%s' '%s'",
					      cc, cflags, inc, tmp, src);
			if (cmd && run_cc(cmd, log, err) == 0) {
				if (rename(tmp, so)) {
					*err = xasprintf("cannot rename '%s': %s", tmp, strerror(errno));
				} else {
					h->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
					if (!h->dl)
						*err = xasprintf("cannot load '%s': %s", so, dlerror());
					else if ((h->space = check_space(dlsym(h->dl, "spacec_space"), err)))
						rc = 0;
				}
			}
			free(cmd);
		}
		if (src)
			unlink(src);
		if (tmp)
			unlink(tmp);
		if (log)
			unlink(log);
		free(inc);
		free(src);
		free(tmp);
		free(log);
		h->backend = "cc";
		h->compile_seconds = now() - t0;
	}
out:
	free(dir);
	free(so);
	return rc;
}

#ifdef HAVE_LIBTCC
static void tcc_error_cb(void *opaque, const char *msg)
{
	char **err = opaque;
	if (!*err)
		*err = xasprintf("tcc: %s", msg);
}
#endif

static int load_tcc(const char *c_text, size_t len, struct jit_handle *h, char **err)
{
#ifdef HAVE_LIBTCC
	double t0 = now();
	char *dir = cache_dir();
	char *inc = dir && mkdir_p(dir) == 0 ? ensure_headers(dir) : NULL;
	free(dir);
	if (!inc) {
		*err = xasprintf("cannot write the runtime headers to the cache directory");
		return -1;
	}
	TCCState *s = tcc_new();
	if (!s) {
		free(inc);
		*err = xasprintf("tcc_new failed");
		return -1;
	}
	tcc_set_error_func(s, err, tcc_error_cb);
	tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
	tcc_add_include_path(s, inc);
	free(inc);
	/* tcc reads a NUL-terminated string. */
	char *text = malloc(len + 1);
	if (!text) {
		tcc_delete(s);
		*err = xasprintf("out of memory");
		return -1;
	}
	memcpy(text, c_text, len);
	text[len] = 0;
	int rc = tcc_compile_string(s, text);
	free(text);
	if (rc == 0)
		rc = tcc_relocate(s, TCC_RELOCATE_AUTO);
	if (rc == 0)
		h->space = check_space(tcc_get_symbol(s, "spacec_space"), err);
	if (rc != 0 || !h->space) {
		if (!*err)
			*err = xasprintf("tcc could not compile the enumerator");
		tcc_delete(s);
		return -1;
	}
	h->tcc = s;
	h->backend = "tcc";
	h->compile_seconds = now() - t0;
	return 0;
#else
	(void)c_text;
	(void)len;
	(void)h;
	*err = xasprintf("spacec was built without libtcc");
	return -1;
#endif
}

bool jit_have_tcc(void)
{
#ifdef HAVE_LIBTCC
	return true;
#else
	return false;
#endif
}

int jit_load(const char *c_text, size_t len, const struct jit_options *opt,
	     struct jit_handle *h, char **err)
{
	memset(h, 0, sizeof(*h));
	*err = NULL;
	switch (opt->mode) {
	case JIT_CC:
		return load_cc(c_text, len, opt, h, false, err);
	case JIT_TCC:
		return load_tcc(c_text, len, h, err);
	case JIT_AUTO:
		break;
	}
	if (load_cc(c_text, len, opt, h, true, err) == 0)
		return 0;
	free(*err);
	*err = NULL;
	if (!opt->prefer_cc && jit_have_tcc() && load_tcc(c_text, len, h, err) == 0)
		return 0;
	free(*err);
	*err = NULL;
	return load_cc(c_text, len, opt, h, false, err);
}

void jit_unload(struct jit_handle *h)
{
	if (h->dl)
		dlclose(h->dl);
#ifdef HAVE_LIBTCC
	if (h->tcc)
		tcc_delete(h->tcc);
#endif
	memset(h, 0, sizeof(*h));
}
