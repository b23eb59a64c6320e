/*
 * device.c - the backends built into spacetune, and what they share.
 */
#define _GNU_SOURCE
#include "tuner/device.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

typedef int open_fn(struct dev **out, const struct tune_device_sel *sel, struct tune_device_info *info,
                    char **err);

static int open_with(const struct dev_ops *ops, open_fn *open, struct dev **out,
                     const struct tune_device_sel *sel, struct tune_device_info *info, char **err)
{
	if (sel->gpu <= 0)
		return open(out, sel, info, err);
	*out = NULL;
	int gpus[TUNE_MAX_GPUS][2];
	int n = ops->gpus(gpus, TUNE_MAX_GPUS);
	if (sel->gpu > n) {
		*err = tune_strfmt("GPU %d was asked for, but %s lists %d", sel->gpu, ops->name, n < 0 ? 0 : n);
		return -1;
	}
	char platform[16], device[16];
	snprintf(platform, sizeof platform, "%d", gpus[sel->gpu - 1][0]);
	snprintf(device, sizeof device, "%d", gpus[sel->gpu - 1][1]);
	struct tune_device_sel s = { .backend = sel->backend, .platform = platform, .device = device };
	return open(out, &s, info, err);
}

int dev_open(const struct dev_ops *ops, struct dev **out, const struct tune_device_sel *sel,
             struct tune_device_info *info, char **err)
{
	return open_with(ops, ops->open, out, sel, info, err);
}

int dev_open_queries(const struct dev_ops *ops, struct dev **out, const struct tune_device_sel *sel,
                     struct tune_device_info *info, char **err)
{
	return open_with(ops, ops->open_queries, out, sel, info, err);
}

int dev_worker_gpus(struct tune_gpu *gpus, int n)
{
	enum { NBACKENDS = sizeof backends / sizeof *backends - 1 };
	int best = -1, count[NBACKENDS + 1] = { 0 };
	for (int i = 0; i < n; i++)
		if (gpus[i].backend >= 0 && gpus[i].backend < NBACKENDS)
			count[gpus[i].backend]++;
	for (int k = 0; k < NBACKENDS; k++)
		if (count[k] > 0 && (best < 0 || count[k] > count[best]))
			best = k;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (gpus[i].backend == best)
			gpus[m++] = gpus[i];
	return m;
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

/* ---- the host's lock on a device's timings ------------------------------------ */

int dev_lock_open(const char *backend, const struct tune_device_info *info, char *path, size_t size)
{
	const char *want = getenv("SPACETUNE_DEVICE_LOCK");
	if (want && strcmp(want, "0") == 0)
		return -1;
	if (!info->gpu && !(want && strcmp(want, "1") == 0))
		return -1;
	char key[sizeof info->name + 64];
	if (info->pci[0])
		snprintf(key, sizeof key, "pci-%s", info->pci);
	else
		snprintf(key, sizeof key, "%s-%d.%d-%s", backend ? backend : "opencl", info->platform_index,
		         info->device_index, info->name);
	for (char *c = key; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-')
			*c = '_';
	const char *dir = getenv("SPACETUNE_LOCK_DIR");
	int n = snprintf(path, size, "%s/spacetune-device-%s.lock", dir && *dir ? dir : "/tmp", key);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -2;
	}
	/* Read-only: flock needs no more, and another user's file (0666 is
	 * asked for, the umask may take some) still opens. */
	int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -2;
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0666) != 0666)
		fchmod(fd, 0666);
	return fd;
}

void dev_lock_take(int fd)
{
	if (fd >= 0)
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
}

void dev_lock_drop(int fd)
{
	if (fd >= 0)
		flock(fd, LOCK_UN);
}
