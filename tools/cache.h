/*
 * cache.h - directories and entries for compiled code that spacec and
 * spacetune run: generated enumerators and C references.
 *
 * Whatever sits in a cache directory ends up running in this process, so
 * a directory is used only when nobody else can write to it, as ssh and
 * gpg require of theirs: it is owned by this user, it is not a symbolic
 * link, neither group nor others may write to it, and every directory
 * above it is owned by this user or root and not writable by group or
 * others unless it is sticky (/tmp).  Otherwise the caller builds in a
 * private mkdtemp directory that lives only as long as the build.
 *
 * An entry is a shared object followed by a trailer: a magic string, the
 * SHA-256 identity of what it was built from (compiler, flags, source),
 * the SHA-256 of the object's bytes and their length.  The trailer is
 * checked before dlopen, since loading an object runs its constructors:
 * a copy of another entry, a truncated or torn file, or a symbolic link
 * is rejected without running any of it.  The verified file is then
 * loaded through its open descriptor, so what was checked is what runs.
 */
#ifndef SPACEC_CACHE_H
#define SPACEC_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#define CACHE_ID_SIZE 32

struct cache_id {
	unsigned char b[CACHE_ID_SIZE];
};

/* $XDG_CACHE_HOME/NAME, else $HOME/.cache/NAME, else ${TMPDIR:-/tmp}/NAME-cache-UID
 * (malloc'd). */
char *cache_default_dir(const char *name);

/* NULL when `dir` may hold code this process runs, else why not (malloc'd). */
char *cache_dir_unsafe(const char *dir);

/* Makes `dir` (parents too, mode 0700) where absent and checks it as
 * cache_dir_unsafe does, and that it is writable.  0, or -1 and *why. */
int cache_dir_prepare(const char *dir, char **why);

/* A fresh private directory under $TMPDIR or /tmp (malloc'd), or NULL. */
char *cache_private_dir(const char *prefix);

/* Removes the files in `dir` (not subdirectories), then `dir`. */
void cache_remove_dir(const char *dir);

/* The identity of a build: SHA-256 over each part and its length. */
void cache_identity(struct cache_id *id, int nparts, const char *const parts[], const size_t lens[]);

/* The entry's file name stem: the first 16 hex digits of the identity. */
void cache_id_stem(const struct cache_id *id, char out[17]);

/* Appends the trailer to the object at `tmp` and renames it to `path`.
 * 0, or -1 with *why (tmp is removed). */
int cache_entry_seal(const char *tmp, const char *path, const struct cache_id *id, char **why);

/*
 * Verifies the entry at `path` against `id` and loads it with dlopen
 * (RTLD_NOW | RTLD_LOCAL).  NULL when it is absent (*why stays NULL) or
 * fails a check or to load (*why says which; the caller rebuilds it).
 */
void *cache_entry_dlopen(const char *path, const struct cache_id *id, char **why);

/* Writes the n bytes at p to fd, again where a signal interrupts; 0, or -1. */
int cache_write_all(int fd, const void *p, size_t n);

/* printf into a malloc'd string (NULL when out of memory). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Says "PROGRAM: warning: TEXT" on stderr, once per process for each `once` flag. */
void cache_warn_once(bool *once, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
