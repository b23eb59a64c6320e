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
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sprt_mkstemp_(const char *a, const char *b, char **path)
{
	size_t n = strlen(a) + strlen(b) + sizeof("XXXXXX");
	char *t = malloc(n);
	if (!t)
		return -1;
	snprintf(t, n, "%s%sXXXXXX", a, b);
	int fd = mkstemp(t);
	if (fd < 0) {
		free(t);
		return -1;
	}
	*path = t;
	return fd;
}

/* A temporary file beside `path`, created with the mode a new file gets. */
static FILE *open_beside(const char *path, char **tmp_path)
{
	char *t;
	int fd = sprt_mkstemp_(path, ".tmp", &t);
	if (fd < 0)
		return NULL;
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

/*
 * -o FILE's temporary file, removed by the handler of SIGINT, SIGTERM and
 * SIGHUP while it exists: an interrupted listing left one of tens of MB.
 * The handler does only what is async-signal-safe (unlink, raise) and
 * then dies by the same signal, so the caller still sees it.
 */
static const int tmp_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction tmp_saved[3];
static bool tmp_guarded[3];
static char *volatile tmp_to_remove;

static void remove_tmp_and_die(int sig)
{
	char *path = tmp_to_remove;
	if (path)
		unlink(path);
	raise(sig); /* the action is the default again (SA_RESETHAND) */
}

static void guard_tmp(char *path)
{
	tmp_to_remove = path;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_tmp_and_die;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (int i = 0; i < 3; i++) {
		/* A signal ignored by whoever started us stays ignored. */
		tmp_guarded[i] = !sigaction(tmp_signals[i], NULL, &tmp_saved[i]) &&
				 tmp_saved[i].sa_handler != SIG_IGN &&
				 !sigaction(tmp_signals[i], &sa, NULL);
	}
}

/* After the rename or the unlink: the file is no longer ours to remove. */
static void unguard_tmp(void)
{
	for (int i = 0; i < 3; i++)
		if (tmp_guarded[i])
			sigaction(tmp_signals[i], &tmp_saved[i], NULL);
	tmp_to_remove = NULL;
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
		if (!o->f && prog)
			fprintf(stderr, "%s: error: cannot open '%s': %s\n", prog, path, strerror(errno));
		return o->f;
	}
	o->f = open_beside(path, &o->tmp_path);
	if (!o->f && prog)
		fprintf(stderr, "%s: error: cannot create a file beside '%s': %s\n", prog, path, strerror(errno));
	else if (o->f)
		guard_tmp(o->tmp_path);
	return o->f;
}

/* A failed step of sprt_output_close ("writing", "cannot rename to"):
 * reported unless silent, and its errno kept for a silent caller. */
static int output_failed(const struct sprt_output *o, int *saved, const char *doing)
{
	*saved = errno;
	if (o->prog && o->path)
		fprintf(stderr, "%s: error: %s '%s': %s\n", o->prog, doing, o->path, strerror(*saved));
	else if (o->prog)
		fprintf(stderr, "%s: error: %s the output: %s\n", o->prog, doing, strerror(*saved));
	return 1;
}

int sprt_output_close(struct sprt_output *o, int status)
{
	int saved = 0;
	if (fflush(o->f) || ferror(o->f)) {
		if (!status)
			output_failed(o, &saved, "writing");
		status = 1;
	}
	if (o->tmp_path) {
		if (!status && fsync(fileno(o->f)) && errno != EINVAL)
			status = output_failed(o, &saved, "writing");
		if (fclose(o->f) && !status)
			status = output_failed(o, &saved, "writing");
		if (!status && rename(o->tmp_path, o->path))
			status = output_failed(o, &saved, "cannot rename to");
		if (status)
			unlink(o->tmp_path);
		unguard_tmp();
		free(o->tmp_path);
	} else if (o->f != stdout && fclose(o->f) && !status) {
		status = output_failed(o, &saved, "writing");
	}
	*o = (struct sprt_output){ 0 };
	if (status && saved)
		errno = saved;
	return status;
}
