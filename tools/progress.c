/*
 * progress.c - the status line of progress.h.
 */
#include "progress.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* By default nothing is drawn before the line is this old, so quick
 * commands stay quiet; asked for (--progress), it shows at once. */
static const double default_quiet_s = 1.0;

struct progress_line {
	pthread_t ticker;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping, drawn;
	double opened, quiet_s, phase_start, expected_s, fraction;
	char label[96];
	char detail[160];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void hms(char *buf, size_t n, double s)
{
	if (!isfinite(s) || s < 0)
		s = 0;
	if (s > 359999)
		s = 359999;
	unsigned t = (unsigned)(s + 0.5);
	snprintf(buf, n, "%u:%02u:%02u", t / 3600, t / 60 % 60, t % 60);
}

/* Called with the lock held. */
static void draw(struct progress_line *p)
{
	double t = now_s(), elapsed = t - p->phase_start;
	if (t - p->opened < p->quiet_s || !p->label[0])
		return;
	double f = p->fraction;
	bool guessed = false;
	if (!(f >= 0) && p->expected_s > 0) {
		/* No count to go by: the expected duration stands in until
		 * it is spent, then the time spent is all there is to say. */
		f = elapsed < p->expected_s ? elapsed / p->expected_s : -1;
		guessed = true;
	}
	char line[320], eta[32], spent[32];
	hms(spent, sizeof spent, elapsed);
	int n = snprintf(line, sizeof line, "%s%s%s", p->label, p->detail[0] ? ": " : "", p->detail);
	if (n < 0 || (size_t)n >= sizeof line)
		n = (int)sizeof line - 1;
	if (f > 0 && f <= 1.0) {
		hms(eta, sizeof eta, elapsed * (1.0 - f) / f);
		snprintf(line + n, sizeof line - (size_t)n, ", %s%.1f%%, ETA %s", guessed ? "~" : "",
			 f * 100.0, eta);
	} else {
		snprintf(line + n, sizeof line - (size_t)n, ", %s elapsed", spent);
	}
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	p->drawn = true;
}

static void erase(struct progress_line *p)
{
	if (p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->drawn = false;
	}
}

static void *tick(void *arg)
{
	struct progress_line *p = arg;
	pthread_mutex_lock(&p->lock);
	while (!p->stopping) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
		if (!p->stopping)
			draw(p);
	}
	erase(p);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* fork() while the ticker is inside fprintf (and the sanitizers'
 * interceptors around it) can hand the child a lock nobody will release:
 * spacetune forks its device reader and workers with the line open.  The
 * ticker draws only with its mutex held, so holding the mutex across fork
 * parks it in pthread_cond_timedwait, between draws. */
static pthread_mutex_t atfork_registry = PTHREAD_MUTEX_INITIALIZER;
static struct progress_line *atfork_line;

static void atfork_prepare(void)
{
	pthread_mutex_lock(&atfork_registry);
	if (atfork_line)
		pthread_mutex_lock(&atfork_line->lock);
}

static void atfork_parent(void)
{
	if (atfork_line)
		pthread_mutex_unlock(&atfork_line->lock);
	pthread_mutex_unlock(&atfork_registry);
}

static void atfork_child(void)
{
	/* The child has no ticker: it must never draw the parent's line. */
	if (atfork_line)
		pthread_mutex_unlock(&atfork_line->lock);
	atfork_line = NULL;
	pthread_mutex_unlock(&atfork_registry);
}

static void atfork_register(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

struct progress_line *progress_open(int mode)
{
	static pthread_once_t registered = PTHREAD_ONCE_INIT;
	bool asked = mode > 0;
	if (mode < 0)
		mode = isatty(STDERR_FILENO) && !getenv("CI");
	if (!mode)
		return NULL;
	struct progress_line *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->quiet_s = asked ? 0 : default_quiet_s;
	p->opened = p->phase_start = now_s();
	p->fraction = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	if (pthread_create(&p->ticker, NULL, tick, p) != 0) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	pthread_once(&registered, atfork_register);
	pthread_mutex_lock(&atfork_registry);
	if (!atfork_line)
		atfork_line = p;
	pthread_mutex_unlock(&atfork_registry);
	return p;
}

void progress_phase(struct progress_line *p, const char *label, double expected_s)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	snprintf(p->label, sizeof p->label, "%s", label);
	p->detail[0] = 0;
	p->fraction = -1;
	p->expected_s = expected_s;
	p->phase_start = now_s();
	/* Asked for (--progress), each phase shows as it starts, however
	 * quickly it ends: the ticker alone would miss phases under 0.25 s. */
	if (p->quiet_s <= 0)
		draw(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_update(struct progress_line *p, double fraction, const char *detail)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->fraction = fraction;
	snprintf(p->detail, sizeof p->detail, "%s", detail ? detail : "");
	pthread_mutex_unlock(&p->lock);
}

void progress_erase(struct progress_line *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	erase(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_close(struct progress_line *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&atfork_registry);
	if (atfork_line == p)
		atfork_line = NULL;
	pthread_mutex_unlock(&atfork_registry);
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->ticker, NULL);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
