/*
 * device.c - the backends built into spacetune, and what they share.
 */
#define _GNU_SOURCE
#include "tuner/device.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuner/exec.h"

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

extern const struct dev_ops dev_opencl;
#ifdef HAVE_CUDA
extern const struct dev_ops dev_cuda;
#endif

static const struct dev_ops *const backends[] = {
	&dev_opencl,
#ifdef HAVE_CUDA
	&dev_cuda,
#endif
	NULL,
};

const struct dev_ops *const *dev_backends(void)
{
	return backends;
}

const struct dev_ops *dev_backend(const char *name)
{
	if (!name)
		return &dev_opencl;
	for (int i = 0; backends[i]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

const char *dev_backend_of_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 3 && strcmp(path + n - 3, ".cu") == 0 ? "cuda" : "opencl";
}

const char *dev_error_name(const struct dev_ops *ops, int rc)
{
	return rc == DEV_E_NOMEM ? "out of host memory" : ops->error_name(rc);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool dev_sel_matches(const char *want, unsigned index, const char *name)
{
	if (!want)
		return true;
	if (all_digits(want))
		return strtoul(want, NULL, 10) == index;
	return strcasestr(name, want) != NULL;
}

void dev_await_start(bool (*started)(void *arg), void *arg, const struct exec_hooks *hooks)
{
	long pause_ns = 20 * 1000;
	while (!started(arg)) {
		struct timespec ts = {0, pause_ns};
		nanosleep(&ts, NULL);
		if (pause_ns < 1000 * 1000)
			pause_ns *= 2;
	}
	if (hooks && hooks->started)
		hooks->started(hooks->user);
}
