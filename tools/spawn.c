/*
 * spawn.c - running compilers without a shell (see spawn.h).
 */
#define _GNU_SOURCE /* pipe2 */
#include "config.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { KEEP = 64 * 1024 };

int spawn_capture(char *const argv[], char **output)
{
	*output = NULL;
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC)) {
		*output = strdup(strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		size_t n = strlen(argv[0]) + strlen(strerror(rc)) + 16;
		if ((*output = malloc(n)))
			snprintf(*output, n, "cannot run '%s': %s", argv[0], strerror(rc));
		return -1;
	}
	char *buf = malloc(KEEP + 1);
	size_t len = 0;
	char sink[4096];
	for (;;) {
		char *to = buf && len < KEEP ? buf + len : sink;
		size_t room = buf && len < KEEP ? KEEP - len : sizeof sink;
		ssize_t got = read(pipefd[0], to, room);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (to != sink)
			len += (size_t)got;
	}
	close(pipefd[0]);
	if (buf)
		buf[len] = 0;
	*output = buf;
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status) && buf && len + 64 < KEEP)
		snprintf(buf + len, KEEP + 1 - len, "\n(%s died of signal %d)\n", argv[0], WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
