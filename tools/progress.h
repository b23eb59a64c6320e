/*
 * progress.h - one status line with an ETA on stderr, for spacec and
 * spacetune's work outside an enumeration (the interpreter, the C
 * compiler, a tuning run).
 *
 * A thread of its own redraws the line four times a second, so it keeps
 * moving while the caller blocks on a compiler or a worker; unless asked
 * for, nothing is drawn before the line has been open one second, so
 * quick commands print nothing.  The caller names the phase of work and, as it goes, the share
 * of it done; where it cannot count, an expected duration stands in.
 */
#ifndef SPACEC_PROGRESS_H
#define SPACEC_PROGRESS_H

struct progress_line;

/*
 * mode: 1 on (and drawn from the start), 0 off, -1 on when stderr is a
 * terminal and $CI is unset (drawn after a second).  NULL when off
 * (every function below accepts NULL and does nothing).
 */
struct progress_line *progress_open(int mode);

/* A new phase: its label, and the seconds it should take (0: unknown). */
void progress_phase(struct progress_line *p, const char *label, double expected_s);

/* The share of the phase done (0..1; negative: unknown) and a short
 * detail ("1.2M candidates", "[3/40] best 1.2 ms"), copied. */
void progress_update(struct progress_line *p, double fraction, const char *detail);

/* Erases the line now; the next redraw brings it back (before printing
 * other text to the terminal). */
void progress_erase(struct progress_line *p);

/* Erases the line and stops the thread. */
void progress_close(struct progress_line *p);

#endif
