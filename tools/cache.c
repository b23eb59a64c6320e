/*
 * cache.c - private cache directories and verified entries (see cache.h).
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "config.h"
#include "cache.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void cache_warn_once(bool *once, const char *fmt, ...)
{
	if (*once)
		return;
	*once = true;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: warning: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static const char *tmp_root(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t == '/' ? t : "/tmp";
}

char *cache_default_dir(const char *name)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/%s", xdg, name);
	const char *home = getenv("HOME");
	if (home && *home)
		return xasprintf("%s/.cache/%s", home, name);
	return xasprintf("%s/%s-cache-%ld", tmp_root(), name, (long)geteuid());
}

/* A directory above the cache: only root or this user may change what it holds,
 * unless it is sticky, where nobody can rename another's entry. */
static bool ancestor_safe(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return false;
	return (st->st_mode & (S_IWGRP | S_IWOTH)) == 0 || (st->st_mode & S_ISVTX);
}

char *cache_dir_unsafe(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st))
		return xasprintf("%s", strerror(errno));
	if (S_ISLNK(st.st_mode))
		return xasprintf("it is a symbolic link");
	if (!S_ISDIR(st.st_mode))
		return xasprintf("it is not a directory");
	if (st.st_uid != geteuid())
		return xasprintf("it belongs to user %ld", (long)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return xasprintf("group or others may write to it (mode %03o)", (unsigned)(st.st_mode & 0777));
	char *real = realpath(dir, NULL);
	if (!real)
		return xasprintf("%s", strerror(errno));
	char *why = NULL;
	for (char *slash = strrchr(real, '/'); slash && !why; slash = strrchr(real, '/')) {
		*slash = 0;
		const char *up = slash == real ? "/" : real;
		if (stat(up, &st))
			why = xasprintf("'%s': %s", up, strerror(errno));
		else if (!ancestor_safe(&st))
			why = xasprintf("others may replace it: '%s' belongs to user %ld, mode %03o", up,
					(long)st.st_uid, (unsigned)(st.st_mode & 07777));
		if (slash == real)
			break;
	}
	free(real);
	return why;
}

int cache_dir_prepare(const char *dir, char **why)
{
	char *path = xasprintf("%s", dir);
	if (!path) {
		*why = NULL;
		return -1;
	}
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(path, 0700) && errno != EEXIST) {
			*why = xasprintf("cannot create '%s': %s", path, strerror(errno));
			free(path);
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	free(path);
	if ((*why = cache_dir_unsafe(dir)))
		return -1;
	if (access(dir, W_OK | X_OK)) {
		*why = xasprintf("%s", strerror(errno));
		return -1;
	}
	return 0;
}

char *cache_private_dir(const char *prefix)
{
	char *dir = xasprintf("%s/%s-XXXXXX", tmp_root(), prefix);
	if (dir && !mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

void cache_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		for (struct dirent *e; (e = readdir(d));)
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

void cache_identity(struct cache_id *id, int nparts, const char *const parts[], const size_t lens[])
{
	struct sha256_ctx h;
	sha256_init(&h);
	for (int i = 0; i < nparts; i++) {
		uint64_t n = lens[i];
		sha256_update(&h, sizeof n, (const uint8_t *)&n);
		sha256_update(&h, lens[i], (const uint8_t *)parts[i]);
	}
	sha256_digest(&h, sizeof id->b, id->b);
}

void cache_id_stem(const struct cache_id *id, char out[17])
{
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", id->b[i]);
}

/* ---- entries ------------------------------------------------------------------ */

static const char entry_magic[16] = "spacec entry v1\n";

struct trailer {
	char magic[16];
	unsigned char identity[CACHE_ID_SIZE];
	unsigned char content[CACHE_ID_SIZE];  /* SHA-256 of the object */
	unsigned char size[8];                 /* the object's length, little-endian */
};

/* SHA-256 of the first `size` bytes of fd; -1 on a short read. */
static int hash_prefix(int fd, uint64_t size, unsigned char out[CACHE_ID_SIZE])
{
	struct sha256_ctx h;
	sha256_init(&h);
	unsigned char buf[65536];
	for (uint64_t off = 0; off < size;) {
		size_t want = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
		ssize_t got = pread(fd, buf, want, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		sha256_update(&h, (size_t)got, buf);
		off += (uint64_t)got;
	}
	sha256_digest(&h, CACHE_ID_SIZE, out);
	return 0;
}

int cache_write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int cache_entry_seal(const char *tmp, const char *path, const struct cache_id *id, char **why)
{
	*why = NULL;
	int fd = open(tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	struct trailer t;
	memcpy(t.magic, entry_magic, sizeof t.magic);
	memcpy(t.identity, id->b, sizeof t.identity);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    hash_prefix(fd, (uint64_t)st.st_size, t.content)) {
		*why = xasprintf("cannot read '%s': %s", tmp, strerror(errno));
	} else {
		for (int i = 0; i < 8; i++)
			t.size[i] = (unsigned char)((uint64_t)st.st_size >> (8 * i));
		if (lseek(fd, 0, SEEK_END) < 0 || cache_write_all(fd, &t, sizeof t) || close(fd)) {
			fd = -1;
			*why = xasprintf("cannot write '%s': %s", tmp, strerror(errno));
		} else {
			fd = -1;
			if (rename(tmp, path))
				*why = xasprintf("cannot rename '%s': %s", tmp, strerror(errno));
		}
	}
	if (fd >= 0)
		close(fd);
	if (*why)
		unlink(tmp);
	return *why ? -1 : 0;
}

/* Why the open entry cannot be what `id` names, or NULL. */
static char *entry_mismatch(int fd, const struct cache_id *id)
{
	struct stat st;
	struct trailer t;
	if (fstat(fd, &st))
		return xasprintf("%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return xasprintf("it is not a regular file");
	if (st.st_uid != geteuid())
		return xasprintf("it belongs to user %ld", (long)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return xasprintf("group or others may write to it");
	if ((uint64_t)st.st_size < sizeof t ||
	    pread(fd, &t, sizeof t, st.st_size - (off_t)sizeof t) != (ssize_t)sizeof t ||
	    memcmp(t.magic, entry_magic, sizeof t.magic))
		return xasprintf("it is not a sealed spacec entry (truncated, or not written by spacec)");
	uint64_t size = 0;
	for (int i = 0; i < 8; i++)
		size |= (uint64_t)t.size[i] << (8 * i);
	if (size != (uint64_t)st.st_size - sizeof t)
		return xasprintf("its length is not the one it was sealed with");
	if (memcmp(t.identity, id->b, sizeof t.identity))
		return xasprintf("it was built from other source, compiler or flags");
	unsigned char content[CACHE_ID_SIZE];
	if (hash_prefix(fd, size, content) || memcmp(content, t.content, sizeof content))
		return xasprintf("its contents changed after it was built");
	return NULL;
}

void *cache_entry_dlopen(const char *path, const struct cache_id *id, char **why)
{
	*why = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			*why = errno == ELOOP ? xasprintf("it is a symbolic link") : xasprintf("%s", strerror(errno));
		return NULL;
	}
	void *dl = NULL;
	if (!(*why = entry_mismatch(fd, id))) {
		/* Through the descriptor: the file that was checked, even if the
		 * name has been replaced since. */
		char self[64];
		/* The dynamic linker matches a name before it looks at the
		 * file: an object still loaded as /proc/self/fd/N (spacetune
		 * keeps a big space's enumerator) would be returned again for
		 * another file opened as N.  A copy of the descriptor under an
		 * unused name avoids that. */
		int use = fd, dups[8], ndups = 0;
		for (;;) {
			snprintf(self, sizeof self, "/proc/self/fd/%d", use);
			void *old = dlopen(self, RTLD_LAZY | RTLD_NOLOAD);
			if (!old)
				break;
			dlclose(old);
			int d = ndups < 8 ? fcntl(fd, F_DUPFD_CLOEXEC, use + 1) : -1;
			if (d < 0) {
				snprintf(self, sizeof self, "%s", path);
				break;
			}
			dups[ndups++] = use = d;
		}
		dl = dlopen(access(self, F_OK) == 0 ? self : path, RTLD_NOW | RTLD_LOCAL);
		if (!dl)
			*why = xasprintf("%s", dlerror());
		while (ndups > 0)
			close(dups[--ndups]);
	}
	close(fd);
	return dl;
}
