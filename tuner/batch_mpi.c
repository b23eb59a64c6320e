/*
 * batch_mpi.c - `spacetune batch --mpi` (see batch.h).
 *
 * Open MPI does the distribution; no socket or shared file of ours
 * carries a request.  Rank 0 runs the ordinary batch (tune_batch_run)
 * with one local worker, a forked process of its own that never calls
 * MPI, and serves the other ranks from its hand-out loop: a rank sends
 * what it finished and asks for more in one message, rank 0 answers with
 * the next unit or -1.  So the hand-out is dynamic (a free rank takes the
 * next unit) and a rank that dies loses only the unit it was running:
 * every unit any rank finished is in its .done file, every evaluation in
 * its database, and the rerun's hand-out skips both.
 *
 * Open MPI ends the whole job when a rank dies, rank 0 included, so the
 * missing-work report cannot come from this job: it comes from the files,
 * printed by every batch run at its end and by `spacetune batch --report`.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tuner/batch.h"
#include "tuner/device.h"

#ifndef HAVE_MPI

int tune_batch_mpi_start(int *argc, char ***argv, int *rank, int *nranks, FILE *err)
{
	(void)argc;
	(void)argv;
	*rank = 0;
	*nranks = 1;
	fprintf(err, "spacetune: error: --mpi: this spacetune was built without MPI (configure found "
	        "neither 'pkg-config ompi-c' nor mpicc, or was given --without-mpi); install Open MPI "
	        "(Debian: openmpi-bin libopenmpi-dev), configure again and rebuild, or run without "
	        "--mpi\n");
	return 1;
}

void tune_batch_mpi_costs(double *costs, int n)
{
	(void)costs;
	(void)n;
}

void tune_batch_mpi_end(void)
{
}

int tune_batch_mpi(struct tune_batch_run_opts *o)
{
	(void)o;
	return 1;
}

#else

#include <mpi.h>

#include "tuner/merge.h"

enum { TAG_ASK = 1, TAG_UNIT = 2 };
/* a request: the done lines of a run of at most TUNE_BATCH_RUN_MAX units, and "want" */
enum { MSG_MAX = TUNE_BATCH_RUN_MAX * 128 + 64 };

/*
 * Waits for a request by testing it every millisecond.  Open MPI's
 * blocking calls spin on a core; R ranks oversubscribed on a few cores
 * (a replayed device, a node with more GPUs than free cores) would take
 * the CPU from the ranks that work, while they wait for a unit or, done
 * early, for the others at the end.
 */
static void wait_calmly(MPI_Request *req)
{
	int flag = 0;
	const struct timespec ms = { 0, 1000000 };
	while (MPI_Test(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
		nanosleep(&ms, NULL);
}

/* The node-local rank: Open MPI's variable, else a split by shared memory. */
static int local_rank(void)
{
	const char *env = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	if (env && *env)
		return atoi(env);
	MPI_Comm node;
	int r = 0;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &r);
	MPI_Comm_free(&node);
	return r;
}

/* The device of this rank: local rank modulo the node's devices. */
static void rank_device(const struct tune_batch_run_opts *o, int lr, struct tune_device_sel *sel)
{
	*sel = (struct tune_device_sel){ .device = NULL };
	if (o->ndevices > 0) {
		sel->device = o->devices[lr % o->ndevices];
		return;
	}
	struct tune_gpu gpus[TUNE_MAX_GPUS];
	int ngpus = tune_list_gpus(gpus, TUNE_MAX_GPUS);
	if (ngpus > 0)
		ngpus = dev_worker_gpus(gpus, ngpus);
	if (ngpus > 0)
		sel->gpu = lr % ngpus + 1;  /* else the default device: PoCL's CPU on a machine without GPU */
}

struct serve {
	int nranks, running;     /* remote ranks that have not been told to stop */
};

/* Rank 0: answers every request waiting; returns the ranks still running. */
static int serve(void *user, struct tune_batch_hub *h)
{
	struct serve *s = user;
	for (;;) {
		int flag = 0;
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			break;
		char msg[MSG_MAX + 1];
		int len = 0;
		MPI_Recv(msg, MSG_MAX, MPI_CHAR, st.MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_CHAR, &len);
		msg[len < 0 ? 0 : len] = '\0';
		/* "done ..." lines first, then "want" or "bye" */
		bool want = false;
		for (char *save = NULL, *l = strtok_r(msg, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (strcmp(l, "want") == 0)
				want = true;
			else if (strcmp(l, "bye") == 0)
				s->running--;
			else
				tune_batch_hub_note(h, l);
		}
		if (want) {
			int run[2];
			run[0] = tune_batch_hub_take(h, st.MPI_SOURCE, &run[1]);
			MPI_Send(run, 2, MPI_INT, st.MPI_SOURCE, TAG_UNIT, MPI_COMM_WORLD);
			if (run[0] < 0)
				s->running--;
		}
	}
	return s->running;
}

/* Ranks 1..: ask, run, report, until rank 0 says -1 or the rank is interrupted. */
static int remote_rank(const struct tune_batch_run_opts *o, int rank, const struct tune_batch_worker *w)
{
	char msg[MSG_MAX];
	size_t len = 0;
	int status = 0;
	for (;;) {
		len += (size_t)snprintf(msg + len, sizeof msg - len, "%s\n", *o->interrupted ? "bye" : "want");
		MPI_Send(msg, (int)len, MPI_CHAR, 0, TAG_ASK, MPI_COMM_WORLD);
		len = 0;
		if (*o->interrupted)
			return 130;
		int run[2];
		MPI_Request req;
		MPI_Irecv(run, 2, MPI_INT, 0, TAG_UNIT, MPI_COMM_WORLD, &req);
		wait_calmly(&req);
		int unit = run[0], count = run[1];
		if (unit < 0 || unit >= o->nunits || count < 1 || unit + count > o->nunits)
			break;
		char what[64];
		double kernel_s = 0;
		int rc = tune_batch_run_unit(o->batch, o->units, unit, count, w, -1, o->interrupted, what,
		                             sizeof what, &kernel_s);
		if (rc == 130) {
			status = 130;
			continue;  /* says "bye" */
		}
		if (rc != 0)
			status = 1;
		len = (size_t)tune_batch_done_line(msg, sizeof msg - 8, unit, count, rank, what, kernel_s);
	}
	return status;
}

/* Rank 0, at the end: the ranks' databases into DIR/merged.jsonl. */
static int merge_ranks(const struct tune_batch_run_opts *o, int nranks)
{
	char **paths = calloc((size_t)nranks, sizeof *paths);
	int n = 0, rc = 1;
	if (!paths)
		return 1;
	for (int r = 0; r < nranks; r++) {
		size_t len = strlen(o->db_dir) + 32;
		if (!(paths[r] = malloc(len)))
			goto out;
		snprintf(paths[r], len, "%s/rank-%d.jsonl", o->db_dir, r);
		if (access(paths[r], R_OK) == 0) {
			char *t = paths[n];
			paths[n++] = paths[r];
			paths[r] = t;
		}
	}
	char out[4096];
	snprintf(out, sizeof out, "%s/merged.jsonl", o->db_dir);
	rc = n ? tune_merge((const char *const *)paths, n, out, o->err, o->err) : 0;
out:
	for (int r = 0; r < nranks; r++)
		free(paths[r]);
	free(paths);
	return rc;
}

int tune_batch_mpi_start(int *argc, char ***argv, int *rank, int *nranks, FILE *err)
{
	int provided = 0;
	*rank = 0;
	*nranks = 1;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
		fprintf(err, "spacetune: error: --mpi: MPI_Init failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, nranks);
	return 0;
}

void tune_batch_mpi_costs(double *costs, int n)
{
	/* the other ranks wait while rank 0 loads every problem: calmly */
	MPI_Request req;
	MPI_Ibcast(costs, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);
	wait_calmly(&req);
}

void tune_batch_mpi_end(void)
{
	MPI_Finalize();
}

int tune_batch_mpi(struct tune_batch_run_opts *o)
{
	int rank = 0, nranks = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	int lr = local_rank();
	char name[64];
	struct tune_device_sel sel;
	rank_device(o, lr, &sel);
	snprintf(name, sizeof name, "rank-%d", rank);
	/* Every rank writes into the directory: it must exist before any opens a file there. */
	if (rank == 0 && mkdir(o->db_dir, 0777) != 0 && errno != EEXIST)
		fprintf(o->err, "spacetune: error: cannot create '%s': %s\n", o->db_dir, strerror(errno));
	MPI_Barrier(MPI_COMM_WORLD);
	int rc;
	if (rank == 0) {
		char (*names)[32] = calloc((size_t)nranks, sizeof *names);
		const char **name_ptrs = calloc((size_t)nranks, sizeof *name_ptrs);
		if (!names || !name_ptrs) {
			fprintf(o->err, "spacetune: error: out of memory\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		for (int r = 0; r < nranks; r++) {
			snprintf(names[r], sizeof names[r], "rank-%d", r);
			name_ptrs[r] = names[r];
		}
		struct serve s = { nranks, nranks - 1 };
		o->worker_name = name;
		o->worker_sel = sel;
		o->nworkers = nranks;
		o->worker_names = name_ptrs;
		o->remote = serve;
		o->remote_user = &s;
		fprintf(o->err, "spacetune: batch: %d MPI ranks, %d units of work\n", nranks, o->nunits);
		rc = tune_batch_run(o);
		if (merge_ranks(o, nranks) != 0 && rc == 0)
			rc = 1;
		free(names);
		free(name_ptrs);
	} else {
		struct tune_batch_worker w;
		struct tune_eval_opts eval = o->eval;
		eval.device = sel;
		if (eval.jobs <= 0)
			eval.jobs = tune_batch_default_jobs(1, true);
		if (tune_batch_worker_open(&w, o->db_dir, name, &eval, o->err) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		rc = remote_rank(o, rank, &w);
		tune_batch_worker_close(&w);
	}
	/* Every rank here before MPI_Finalize, whose wait spins */
	MPI_Request done;
	MPI_Ibarrier(MPI_COMM_WORLD, &done);
	wait_calmly(&done);
	MPI_Finalize();
	return rc;
}

#endif
