/*
 * compile.c - `spacetune compile` (see compile.h).
 */
#include "tuner/compile.h"

#include <stdlib.h>
#include <string.h>

#include "tuner/device.h"
#include "tuner/job.h"

static int note_kernel(void *user, const char *path)
{
	const char **backend = user;
	if (!*backend)
		*backend = dev_backend_of_path(path);
	return 0;
}

/* The first lines of a build log: enough to see the error. */
static void print_log_head(FILE *f, const char *log)
{
	int lines = 0;
	for (const char *p = log; p && *p && lines < 8; lines++) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(f, "    %.*s\n", n, p);
		p = nl ? nl + 1 : p + n;
	}
}

int tune_compile(const struct tune_compile_opts *o)
{
	const char *backend = o->backend;
	struct tune_job_opts jo = {
		.space_path = o->space_path, .nsets = o->nsets, .sets = o->sets, .diag = o->err,
		.kernel_file = note_kernel, .query_user = &backend,
	};
	struct tune_job *job;
	if (tune_job_load(&jo, &job) != 0)
		return 1;
	const struct dev_ops *ops = dev_backend(backend);
	int rc = 1;
	if (!ops || !ops->compile_offline) {
		fprintf(o->err, "spacetune: error: the %s backend %s\n", backend,
		        ops ? "cannot build without a device" : "is not built into this spacetune");
		goto out;
	}
	size_t n = tune_job_npoints(job), want = o->sample && o->sample < n ? o->sample : n;
	size_t built = 0, failed = 0, skipped = 0;
	const struct tune_reference *ref = tune_job_reference(job);
	if (ref->kind == TUNE_REF_KERNEL) {
		char *log = NULL;
		if (ops->compile_offline(ref->source, ref->build_options, o->target, &log) != 0) {
			fprintf(o->err, "%s: reference kernel '%s' (%s) does not build:\n", o->space_path,
			        ref->name, ref->build_options ? ref->build_options : "");
			print_log_head(o->err, log);
			failed++;
		}
		free(log);
	}
	for (size_t k = 0; k < want; k++) {
		/* Evenly spread, the first and the last point included. */
		size_t i = want > 1 ? (size_t)((double)k * (double)(n - 1) / (double)(want - 1)) : 0;
		struct tune_variant v;
		const char *why;
		if (tune_job_variant(job, i, &v, &why) != 0) {
			skipped++;
			continue;
		}
		char *log = NULL;
		if (ops->compile_offline(v.source, v.build_options, o->target, &log) == 0) {
			built++;
		} else {
			failed++;
			fprintf(o->err, "%s: point %zu (%s) does not build:\n", o->space_path, i,
			        v.build_options);
			print_log_head(o->err, log);
		}
		free(log);
	}
	fprintf(o->out, "%s: %zu of %zu sampled variants built for %s with %s (%zu points; "
	        "%zu cannot be launched)\n", o->space_path, built, want - skipped, o->target,
	        ops->name, n, skipped);
	rc = failed ? 1 : 0;
out:
	tune_job_free(job);
	return rc;
}
