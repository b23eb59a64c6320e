/*
 * test_device.c - Criterion tests of the device seam (tuner/device.h) that
 * need no device: every backend built in answers exactly the device-query
 * names the language accepts (lang/sema.c's list, the independent side),
 * in the same order, so a query a .space file may name is never unknown
 * to a backend; and the kernel file's extension picks the backend.
 */
#include <criterion/criterion.h>

#include <string.h>

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
