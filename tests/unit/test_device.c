/*
 * test_device.c - Criterion tests of the device seam (tuner/device.h) that
 * need no device: every backend built in answers exactly the device-query
 * names the language accepts (lang/sema.c's list, the independent side),
 * in the same order, so a query a .space file may name is never unknown
 * to a backend; the kernel file's extension picks the backend; and the
 * GPUs batch workers are made for (every backend's, a GPU number resolved
 * by the backend the problem picks).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/redirect.h>

#include "sema.h"
#include "tuner/device.h"

Test(device, every_backend_answers_the_language_s_query_names)
{
	const struct dev_ops *const *b = dev_backends();
	cr_assert_not_null(b[0], "no backend at all");
	int nsema = 0;
	while (sema_device_queries[nsema])
		nsema++;
	for (int k = 0; b[k]; k++) {
		int n = 0;
		for (; b[k]->query_name(n); n++)
			cr_expect_str_eq(b[k]->query_name(n), sema_device_queries[n < nsema ? n : 0],
			                 "%s: query %d", b[k]->name, n);
		cr_expect_eq(n, nsema, "%s answers %d names, the language has %d", b[k]->name, n, nsema);
		cr_expect_null(b[k]->query_name(-1));
	}
}

Test(device, the_kernel_file_picks_the_backend)
{
	cr_expect_str_eq(dev_backend_of_path("kernels/gemm.cu"), "cuda");
	cr_expect_str_eq(dev_backend_of_path("../kernels/gemm.cl"), "opencl");
	cr_expect_str_eq(dev_backend_of_path("gemm.cuh"), "opencl");
	cr_expect_str_eq(dev_backend_of_path("cu"), "opencl");
	cr_expect_str_eq(dev_backend_of_path(".cu"), "opencl");  /* no name before it */
	cr_expect_eq(dev_backend(NULL), dev_backend("opencl"));
	cr_expect_null(dev_backend("vulkan"));
}

Test(device, selectors)
{
	cr_expect(dev_sel_matches(NULL, 3, "anything"));
	cr_expect(dev_sel_matches("1", 1, "NVIDIA H100"));
	cr_expect(!dev_sel_matches("1", 0, "NVIDIA H100"));
	cr_expect(dev_sel_matches("h100", 0, "NVIDIA H100 80GB HBM3"));
	cr_expect(!dev_sel_matches("h200", 0, "NVIDIA H100 80GB HBM3"));
}

/*
 * A GPU number (tune_device_sel.gpu, batch workers) is resolved through
 * the backend's own gpus() list into its platform and device indices;
 * a fake backend stands for one with two GPUs on platform 1.
 */
static struct tune_device_sel opened;
static char opened_platform[16], opened_device[16];

static int fake_gpus(int (*out)[2], int max)
{
	static const int pairs[][2] = { { 1, 0 }, { 1, 2 } };
	int n = max < 2 ? max : 2;
	memcpy(out, pairs, (size_t)n * sizeof pairs[0]);
	return n;
}

static int fake_open(struct dev **out, const struct tune_device_sel *sel, struct tune_device_info *info,
                     char **err)
{
	(void)info;
	(void)err;
	*out = NULL;
	opened = *sel;
	snprintf(opened_platform, sizeof opened_platform, "%s", sel->platform ? sel->platform : "(null)");
	snprintf(opened_device, sizeof opened_device, "%s", sel->device ? sel->device : "(null)");
	return 0;
}

static int queries_only;  /* which entry opened: 1 open_queries, 0 open */

static int fake_open_queries(struct dev **out, const struct tune_device_sel *sel,
                             struct tune_device_info *info, char **err)
{
	int rc = fake_open(out, sel, info, err);
	queries_only = 1;
	return rc;
}

static int fake_open_full(struct dev **out, const struct tune_device_sel *sel,
                          struct tune_device_info *info, char **err)
{
	int rc = fake_open(out, sel, info, err);
	queries_only = 0;
	return rc;
}

static const struct dev_ops fake = { .name = "fake", .gpus = fake_gpus, .open = fake_open_full,
                                     .open_queries = fake_open_queries };

/* The device query (tuner/worker.c) opens without a context: open_queries,
 * with the GPU number resolved as for a worker's open. */
Test(device, a_query_opens_for_queries_the_same_gpu)
{
	struct dev *d;
	struct tune_device_info info;
	char *err = NULL;
	struct tune_device_sel sel = { .backend = "fake", .gpu = 2 };
	cr_assert_eq(dev_open_queries(&fake, &d, &sel, &info, &err), 0);
	cr_expect_eq(queries_only, 1);
	cr_expect_str_eq(opened_platform, "1");
	cr_expect_str_eq(opened_device, "2");
	cr_assert_eq(dev_open(&fake, &d, &sel, &info, &err), 0);
	cr_expect_eq(queries_only, 0);
	cr_expect_str_eq(opened_device, "2");
	sel = (struct tune_device_sel){ .gpu = 3 };
	cr_expect_neq(dev_open_queries(&fake, &d, &sel, &info, &err), 0, "a third GPU of two");
	free(err);
}

Test(device, a_gpu_number_is_the_backend_s_own_gpu)
{
	struct dev *d;
	struct tune_device_info info;
	char *err = NULL;
	struct tune_device_sel sel = { .backend = "fake", .gpu = 2 };
	cr_assert_eq(dev_open(&fake, &d, &sel, &info, &err), 0);
	cr_expect_str_eq(opened_platform, "1");
	cr_expect_str_eq(opened_device, "2");
	cr_expect_str_eq(opened.backend, "fake");
	cr_expect_eq(opened.gpu, 0, "the number is resolved, not passed on");

	sel = (struct tune_device_sel){ .platform = "0", .device = "cpu" };
	cr_assert_eq(dev_open(&fake, &d, &sel, &info, &err), 0);
	cr_expect_str_eq(opened_device, "cpu", "without a number the selection goes through as it is");

	sel = (struct tune_device_sel){ .gpu = 3 };
	cr_expect_neq(dev_open(&fake, &d, &sel, &info, &err), 0, "a third GPU of two");
	cr_assert_not_null(err);
	cr_expect(strstr(err, "fake lists 2"), "%s", err);
	free(err);
}

/* Workers follow the backend that lists the most GPUs, OpenCL (0) on a
 * tie: an NVIDIA machine's cards are listed by both. */
Test(device, workers_follow_the_backend_with_most_gpus)
{
	if (!dev_backends()[1])
		cr_skip_test("one backend built in");
	struct tune_gpu tie[] = { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 1, 1 }, { 1, 0, 1 } };
	cr_assert_eq(dev_worker_gpus(tie, 4), 2);
	cr_expect(tie[0].backend == 0 && tie[0].device == 0 && tie[1].backend == 0 && tie[1].device == 1);
	struct tune_gpu more[] = { { 0, 2, 0 }, { 1, 0, 0 }, { 1, 0, 1 } };
	cr_assert_eq(dev_worker_gpus(more, 3), 2);
	cr_expect(more[0].backend == 1 && more[0].device == 0 && more[1].device == 1);
	cr_expect_eq(dev_worker_gpus(more, 0), 0);
}

/* Every backend's GPUs, each named by a backend built in; one without a
 * driver (CUDA on a build machine without GPU) lists none and says
 * nothing, so a batch there does not warn on every start. */
Test(device, gpus_without_a_driver_are_none_silently, .init = cr_redirect_stderr)
{
	/* In a child, as the tuner asks (drivers do not survive fork). */
	struct tune_gpu all[TUNE_MAX_GPUS];
	int n = tune_list_gpus(all, TUNE_MAX_GPUS);
	cr_expect(n >= 0 && n <= TUNE_MAX_GPUS, "%d", n);
	int nbackends = 0;
	while (dev_backends()[nbackends])
		nbackends++;
	for (int i = 0; i < n; i++)
		cr_expect(all[i].backend >= 0 && all[i].backend < nbackends, "GPU %d: backend %d", i, all[i].backend);
	/* Nothing but a sanitizer's own lines ("==PID==...", from the child
	 * of a sanitized build, where PoCL's threads outlive its leak check). */
	fflush(stderr);
	FILE *f = cr_get_redirected_stderr();
	char line[512];
	while (fgets(line, sizeof line, f))
		cr_expect(!strncmp(line, "==", 2), "stderr: %s", line);
}
