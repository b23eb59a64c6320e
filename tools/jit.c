#include "config.h"
#include "jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBTCC
#include <libtcc.h>
#endif

#include "cache.h"
#include "spacert.h"
#include "spawn.h"

/* runtime headers, generated from runtime/ at build time (spacert_embed.c) */
struct embedded_file {
	const char *name;
	const char *text;
};
extern const struct embedded_file spacec_embedded_headers[];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One warning a run about the cache: where it could not be used, or an
 * entry that had to be rebuilt. */
static bool cache_warned;

static const struct embedded_file *embedded(const char *name, size_t n)
{
	for (const struct embedded_file *f = spacec_embedded_headers; f->name; f++)
		if (strlen(f->name) == n && !memcmp(f->name, name, n))
			return f;
	return NULL;
}

/* The name cgen gives the generated text in its #line directives. */
#define GENERATED_NAME "<generated>"

/*
 * Appends `text` with each #include of a runtime header replaced by the
 * header's own text, the first time (they all have include guards).  The
 * compilers then read no header from a directory anyone else could have
 * written to, and tcc needs no directory at all.
 */
static void inline_headers(FILE *out, const char *name, const char *text, size_t len, unsigned *done)
{
	int line = 1;
	for (const char *p = text, *end = text + len; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);
		const char *q = p;
		while (q < p + n && (*q == ' ' || *q == '\t'))
			q++;
		const struct embedded_file *f = NULL;
		if ((size_t)(p + n - q) > 10 && !memcmp(q, "#include", 8)) {
			const char *a = q + 8;
			while (*a == ' ' || *a == '\t')
				a++;
			const char *b = a + 1;
			while (b < p + n && *b != '>' && *b != '"')
				b++;
			if ((*a == '<' || *a == '"') && b < p + n)
				f = embedded(a + 1, (size_t)(b - a - 1));
		}
		if (!f) {
			fwrite(p, 1, n, out);
		} else {
			unsigned bit = 1u << (f - spacec_embedded_headers);
			if (!(*done & bit)) {
				*done |= bit;
				fprintf(out, "#line 1 \"%s\"\n", f->name);
				inline_headers(out, f->name, f->text, strlen(f->text), done);
			}
			fprintf(out, "#line %d \"%s\"\n", line + 1, name);
		}
		p += n;
	}
}

/* The generated text with the runtime headers in it (malloc'd, NUL-terminated). */
static char *with_headers(const char *c_text, size_t len, size_t *out_len)
{
	char *text = NULL;
	FILE *m = open_memstream(&text, out_len);
	unsigned done = 0;
	if (!m)
		return NULL;
	inline_headers(m, GENERATED_NAME, c_text, len, &done);
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
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

/* The words of a command-line string, split at blanks (no quoting: no shell). */
static int split_words(const char *s, char **words, int max, char **store)
{
	*store = xasprintf("%s", s);
	int n = 0;
	char *save = NULL;
	for (char *w = *store ? strtok_r(*store, " \t\n", &save) : NULL; w && n < max;
	     w = strtok_r(NULL, " \t\n", &save))
		words[n++] = w;
	return n;
}

/* Runs the compiler on `src`, building `object`; 0, or -1 with *err. */
static int run_cc(const char *cc, const char *cflags, const char *src, const char *object, char **err)
{
	enum { MAX_WORDS = 64 };
	char *argv[2 * MAX_WORDS + 8];
	char *cc_words, *flag_words;
	int n = split_words(cc, argv, MAX_WORDS, &cc_words);
	n += split_words(cflags, argv + n, MAX_WORDS, &flag_words);
	char *fixed[] = { "-std=c11", "-fPIC", "-shared", "-o", (char *)object, (char *)src, NULL };
	memcpy(argv + n, fixed, sizeof fixed);
	char *output = NULL;
	int status = n && cc_words && flag_words ? spawn_capture(argv, &output) : -1;
	if (status)
		*err = xasprintf("the C compiler failed (%s %s, exit %d):\n%s", cc, cflags, status,
				 output ? output : "");
	free(output);
	free(cc_words);
	free(flag_words);
	return status ? -1 : 0;
}

/* Writes the C text to a fresh file `stem-XXXXXX.c` in dir. */
static char *write_source(const char *dir, const char *stem, const char *text, size_t len)
{
	char *src = xasprintf("%s/%s-XXXXXX.c", dir, stem);
	int fd = src ? mkstemps(src, 2) : -1;
	if (fd >= 0) {
		int failed = cache_write_all(fd, text, len);
		if (close(fd) || failed) {
			unlink(src);
			fd = -1;
		}
	}
	if (fd < 0) {
		free(src);
		return NULL;
	}
	return src;
}

/* Where cc builds: the cache where it is safe, else a private directory
 * that goes once the enumerator is loaded. */
struct build_dir {
	char *path;
	bool temporary;
};

static int build_dir_open(struct build_dir *bd, char *cache, char **err)
{
	char *why = NULL;
	bd->temporary = false;
	bd->path = cache;
	if (cache && cache_dir_prepare(cache, &why) == 0)
		return 0;
	bd->temporary = true;
	bd->path = cache_private_dir("spacec");
	cache_warn_once(&cache_warned, "not using the cache directory '%s' (%s); %s", cache ? cache : "?",
			why ? why : "out of memory",
			bd->path ? "building in a private temporary directory"
			: jit_have_tcc() ? "compiling in memory with tcc" : "and no other directory");
	free(why);
	free(cache);
	if (!bd->path) {
		*err = xasprintf("no directory to build the enumerator in: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * cc: returns 0 with the enumerator loaded; -1 with *err where it does
 * not build or load; -2 where there is nowhere to build (the caller may
 * use tcc) or, with only_cached, nothing cached.
 */
static int load_cc(const char *c_text, size_t len, const struct jit_options *opt,
		   struct jit_handle *h, bool only_cached, char **err)
{
	const char *cc = opt->cc ? opt->cc : getenv("CC");
	if (!cc || !*cc)
		cc = "cc";
	const char *cflags = opt->cflags ? opt->cflags : "-O2";
	size_t text_len;
	char *text = with_headers(c_text, len, &text_len);
	if (!text) {
		*err = xasprintf("out of memory");
		return -1;
	}
	const char *parts[] = { "spacec cc", cc, cflags, text };
	size_t lens[] = { 9, strlen(cc), strlen(cflags), text_len };
	struct cache_id id;
	cache_identity(&id, 4, parts, lens);
	char stem[17];
	cache_id_stem(&id, stem);

	int rc = -2;
	double t0 = now();
	char *cache = cache_default_dir("spacec");
	char *unsafe = cache ? cache_dir_unsafe(cache) : NULL;
	char *so = cache ? xasprintf("%s/%s.so", cache, stem) : NULL;
	if (!opt->no_cache && cache && !unsafe && so) {
		char *why;
		h->dl = cache_entry_dlopen(so, &id, &why);
		if (h->dl && (h->space = check_space(dlsym(h->dl, "spacec_space"), err))) {
			h->backend = "cc (cached)";
			h->compile_seconds = now() - t0;
			rc = 0;
			goto out;
		}
		if (h->dl) {
			why = *err;
			*err = NULL;
			dlclose(h->dl);
			h->dl = NULL;
		}
		if (why) {
			cache_warn_once(&cache_warned, "the cache entry '%s' cannot be used (%s); rebuilding it",
					so, why);
			unlink(so);
		}
		free(why);
	}
	if (only_cached)
		goto out;
	struct build_dir bd;
	free(so);
	so = NULL;
	if (build_dir_open(&bd, cache, err)) {
		cache = NULL;
		goto out;
	}
	cache = NULL;
	so = xasprintf("%s/%s.so", bd.path, stem);
	char *src = write_source(bd.path, stem, text, text_len);
	char *object = src ? xasprintf("%s/%s-XXXXXX.so", bd.path, stem) : NULL;
	int ofd = object ? mkstemps(object, 3) : -1;
	rc = -1;
	if (!so || ofd < 0) {
		*err = xasprintf("cannot write to '%s': %s", bd.path, strerror(errno));
	} else {
		close(ofd);
		char *why = NULL;
		if (run_cc(cc, cflags, src, object, err) == 0 && cache_entry_seal(object, so, &id, &why) == 0 &&
		    (h->dl = cache_entry_dlopen(so, &id, &why)) &&
		    (h->space = check_space(dlsym(h->dl, "spacec_space"), err)))
			rc = 0;
		if (why && !*err)
			*err = xasprintf("cannot load the enumerator built at '%s': %s", so, why);
		free(why);
		unlink(object);
	}
	if (src)
		unlink(src);
	free(src);
	free(object);
	if (bd.temporary)
		cache_remove_dir(bd.path);
	free(bd.path);
	h->backend = "cc";
	h->compile_seconds = now() - t0;
out:
	if (rc && h->dl) {
		dlclose(h->dl);
		h->dl = NULL;
	}
	free(unsafe);
	free(cache);
	free(so);
	free(text);
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
	size_t n;
	char *text = with_headers(c_text, len, &n);
	TCCState *s = text ? tcc_new() : NULL;
	if (!s) {
		free(text);
		*err = xasprintf("out of memory");
		return -1;
	}
	tcc_set_error_func(s, err, tcc_error_cb);
	tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
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
	int rc;
	switch (opt->mode) {
	case JIT_CC:
		rc = load_cc(c_text, len, opt, h, false, err);
		break;
	case JIT_TCC:
		return load_tcc(c_text, len, h, err);
	case JIT_AUTO:
	default:
		if (load_cc(c_text, len, opt, h, true, err) == 0)
			return 0;
		free(*err);
		*err = NULL;
		if (!opt->prefer_cc && jit_have_tcc()) {
			if (load_tcc(c_text, len, h, err) == 0)
				return 0;
			/* tcc cannot build here (a copied binary without tcc's
			 * runtime files, say): cc stands in, as tcc does for cc */
			free(*err);
			*err = NULL;
			memset(h, 0, sizeof(*h));
		}
		rc = load_cc(c_text, len, opt, h, false, err);
		break;
	}
	/* Nowhere to build with cc: tcc builds in memory (the cache warning said why). */
	if (rc == -2 && jit_have_tcc()) {
		free(*err);
		*err = NULL;
		return load_tcc(c_text, len, h, err);
	}
	return rc ? -1 : 0;
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
