/*
 * jit.h - turns generated C into a loaded enumerator.
 *
 * Two back ends:
 *   - cc: `$CC` (default "cc") with -O2 builds a shared object, run
 *     without a shell (CC and the flags are split at blanks), cached in
 *     $XDG_CACHE_HOME/spacec (else ~/.cache/spacec, else
 *     ${TMPDIR:-/tmp}/spacec-cache-UID) under the SHA-256 of the C text,
 *     the compiler and its flags.  tools/cache.h says which directories
 *     are used and how each entry is verified before it is loaded; where
 *     the cache cannot be used, cc builds in a private temporary directory
 *     (or tcc compiles in memory), with one warning.
 *   - tcc: libtcc compiles in memory in milliseconds (no optimisation),
 *     for the many spaces that enumerate in microseconds.
 * `auto` uses a cached cc build when there is one; else tcc for spaces
 * that will enumerate quickly anyway, cc for large ones (prefer_cc, which
 * the caller sets from the shape of the space).
 *
 * The runtime headers are embedded in spacec and pasted into the text in
 * place of their #include, so neither compiler reads them from a file.
 */
#ifndef SPACEC_JIT_H
#define SPACEC_JIT_H

#include <stdbool.h>
#include <stddef.h>

struct sprt_space;

enum jit_mode { JIT_AUTO, JIT_CC, JIT_TCC };

struct jit_options {
	enum jit_mode mode;
	const char *cc;       /* NULL: $CC, else "cc" */
	const char *cflags;   /* NULL: "-O2" */
	bool no_cache;
	bool verbose;         /* say which back end ran and how long it took */
	bool prefer_cc;       /* auto: build with cc rather than tcc when nothing is cached */
};

struct jit_handle {
	void *dl;             /* dlopen handle (cc) */
	void *tcc;            /* TCCState (tcc) */
	const struct sprt_space *space;
	const char *backend;  /* "cc (cached)", "cc", "tcc" */
	double compile_seconds;
};

/* Returns 0, or -1 with a malloc'd message in *err. */
int jit_load(const char *c_text, size_t len, const struct jit_options *opt,
	     struct jit_handle *h, char **err);
void jit_unload(struct jit_handle *h);

/* True when the tcc back end was built in. */
bool jit_have_tcc(void);

#endif
