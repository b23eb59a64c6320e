/*
 * output.c - the output file of `list -o FILE`, shared by a compiled
 * enumerator's driver and spacec's interpreter path, so both replace FILE
 * the same way: a temporary file beside it, renamed into place once
 * complete (FILE is either the old one or the whole new one).  A device
 * or a pipe is written in place.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "spacert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A temporary file beside `path`, created with the mode a new file gets. */
static FILE *open_beside(const char *path, char **tmp_path)
{
	size_t n = strlen(path) + sizeof(".tmpXXXXXX");
	char *t = malloc(n);
	if (!t)
		return NULL;
	snprintf(t, n, "%s.tmpXXXXXX", path);
	int fd = mkstemp(t);
	if (fd < 0) {
		free(t);
		return NULL;
	}
	/* mkstemp makes 0600; a plain output file is 0666 less the umask.
	 * An existing file keeps its mode. */
	struct stat st;
	mode_t mode;
	if (!stat(path, &st)) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	fchmod(fd, mode);
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(t);
		free(t);
		errno = e;
		return NULL;
	}
	*tmp_path = t;
	return f;
}

FILE *sprt_output_open(struct sprt_output *o, const char *path, const char *prog)
{
	*o = (struct sprt_output){ .f = stdout, .path = path, .prog = prog };
	struct stat st;
	if (!path)
		return o->f;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* A device or a pipe (/dev/null, a FIFO): nothing to replace
		 * atomically, and renaming over it would destroy it. */
		o->f = fopen(path, "wb");
		if (!o->f)
			fprintf(stderr, "%s: error: cannot open '%s': %s\n", prog, path, strerror(errno));
		return o->f;
	}
	o->f = open_beside(path, &o->tmp_path);
	if (!o->f)
		fprintf(stderr, "%s: error: cannot create a file beside '%s': %s\n", prog, path, strerror(errno));
	return o->f;
}

int sprt_output_close(struct sprt_output *o, int status)
{
	const char *what = o->path ? o->path : "the output";
	if (fflush(o->f) || ferror(o->f)) {
		if (!status)
			fprintf(stderr, "%s: error: writing %s: %s\n", o->prog, what, strerror(errno));
		status = 1;
	}
	if (o->tmp_path) {
		if (!status && fsync(fileno(o->f)) && errno != EINVAL) {
			fprintf(stderr, "%s: error: writing %s: %s\n", o->prog, o->path, strerror(errno));
			status = 1;
		}
		if (fclose(o->f) && !status) {
			fprintf(stderr, "%s: error: writing %s: %s\n", o->prog, o->path, strerror(errno));
			status = 1;
		}
		if (!status && rename(o->tmp_path, o->path)) {
			fprintf(stderr, "%s: error: cannot rename to '%s': %s\n", o->prog, o->path, strerror(errno));
			status = 1;
		}
		if (status)
			unlink(o->tmp_path);
		free(o->tmp_path);
	} else if (o->f != stdout && fclose(o->f) && !status) {
		fprintf(stderr, "%s: error: writing %s: %s\n", o->prog, o->path, strerror(errno));
		status = 1;
	}
	*o = (struct sprt_output){ 0 };
	return status;
}
