/*
 * spawn.h - runs a program from an argument vector, never through a
 * shell: no word of it (a path with a quote, a `$(...)`) is interpreted.
 */
#ifndef SPACEC_SPAWN_H
#define SPACEC_SPAWN_H

/*
 * Runs argv[0] (searched in PATH) with argv, stdin from /dev/null, and
 * its stdout and stderr together into *output (malloc'd, at most the
 * first 64 KiB; the rest is read and dropped).  Returns its exit status,
 * or -1 where it could not run or died of a signal (*output says which).
 */
int spawn_capture(char *const argv[], char **output);

#endif
