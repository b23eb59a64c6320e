/*
 * ocl.c - the OpenCL backend (tuner/device.h): platforms and devices,
 * queries by spacec's names, a context with a profiling queue, programs,
 * buffers and timed launches.
 */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/device.h"
#include "tuner/exec.h"

struct dev {
	cl_platform_id platform;
	cl_device_id device;
	struct tune_device_info info;
	cl_context context;
	cl_command_queue queue;
};

/* ORDER OpenCL error codes (CL 1.2 core, then extensions seen in practice). */
static const struct { cl_int code; const char *name; } error_names[] = {
	{0, "CL_SUCCESS"},
	{-1, "CL_DEVICE_NOT_FOUND"},
	{-2, "CL_DEVICE_NOT_AVAILABLE"},
	{-3, "CL_COMPILER_NOT_AVAILABLE"},
	{-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
	{-5, "CL_OUT_OF_RESOURCES"},
	{-6, "CL_OUT_OF_HOST_MEMORY"},
	{-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
	{-8, "CL_MEM_COPY_OVERLAP"},
	{-9, "CL_IMAGE_FORMAT_MISMATCH"},
	{-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
	{-11, "CL_BUILD_PROGRAM_FAILURE"},
	{-12, "CL_MAP_FAILURE"},
	{-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
	{-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
	{-15, "CL_COMPILE_PROGRAM_FAILURE"},
	{-16, "CL_LINKER_NOT_AVAILABLE"},
	{-17, "CL_LINK_PROGRAM_FAILURE"},
	{-18, "CL_DEVICE_PARTITION_FAILED"},
	{-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
	{-30, "CL_INVALID_VALUE"},
	{-31, "CL_INVALID_DEVICE_TYPE"},
	{-32, "CL_INVALID_PLATFORM"},
	{-33, "CL_INVALID_DEVICE"},
	{-34, "CL_INVALID_CONTEXT"},
	{-35, "CL_INVALID_QUEUE_PROPERTIES"},
	{-36, "CL_INVALID_COMMAND_QUEUE"},
	{-37, "CL_INVALID_HOST_PTR"},
	{-38, "CL_INVALID_MEM_OBJECT"},
	{-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
	{-40, "CL_INVALID_IMAGE_SIZE"},
	{-41, "CL_INVALID_SAMPLER"},
	{-42, "CL_INVALID_BINARY"},
	{-43, "CL_INVALID_BUILD_OPTIONS"},
	{-44, "CL_INVALID_PROGRAM"},
	{-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
	{-46, "CL_INVALID_KERNEL_NAME"},
	{-47, "CL_INVALID_KERNEL_DEFINITION"},
	{-48, "CL_INVALID_KERNEL"},
	{-49, "CL_INVALID_ARG_INDEX"},
	{-50, "CL_INVALID_ARG_VALUE"},
	{-51, "CL_INVALID_ARG_SIZE"},
	{-52, "CL_INVALID_KERNEL_ARGS"},
	{-53, "CL_INVALID_WORK_DIMENSION"},
	{-54, "CL_INVALID_WORK_GROUP_SIZE"},
	{-55, "CL_INVALID_WORK_ITEM_SIZE"},
	{-56, "CL_INVALID_GLOBAL_OFFSET"},
	{-57, "CL_INVALID_EVENT_WAIT_LIST"},
	{-58, "CL_INVALID_EVENT"},
	{-59, "CL_INVALID_OPERATION"},
	{-60, "CL_INVALID_GL_OBJECT"},
	{-61, "CL_INVALID_BUFFER_SIZE"},
	{-62, "CL_INVALID_MIP_LEVEL"},
	{-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
	{-64, "CL_INVALID_PROPERTY"},
	{-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
	{-66, "CL_INVALID_COMPILER_OPTIONS"},
	{-67, "CL_INVALID_LINKER_OPTIONS"},
	{-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
	{-69, "CL_INVALID_PIPE_SIZE"},
	{-70, "CL_INVALID_DEVICE_QUEUE"},
	{-71, "CL_INVALID_SPEC_ID"},
	{-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
	{-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
	{-1094, "CL_INVALID_ACCELERATOR_INTEL"},
	{-9999, "CL_NV_ILLEGAL_ACCESS"},  /* NVIDIA: a kernel faulted (not in any header) */
};

static const char *ocl_error_name(int err)
{
	for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++)
		if (error_names[i].code == err)
			return error_names[i].name;
	return "CL_UNKNOWN_ERROR";
}

/* ---- strings of platforms and devices ------------------------------------ */

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t size)
{
	buf[0] = 0;
	if (clGetPlatformInfo(p, what, size - 1, buf, NULL) != CL_SUCCESS)
		buf[0] = 0;
	buf[size - 1] = 0;
}

static void device_string(cl_device_id d, cl_device_info what, char *buf, size_t size)
{
	buf[0] = 0;
	if (clGetDeviceInfo(d, what, size - 1, buf, NULL) != CL_SUCCESS)
		buf[0] = 0;
	buf[size - 1] = 0;
}

static bool has_extension(cl_device_id d, const char *ext)
{
	size_t size = 0;
	if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || size == 0)
		return false;
	char *all = malloc(size + 1);
	if (!all)
		return false;
	bool found = false;
	if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, size, all, NULL) == CL_SUCCESS) {
		all[size] = 0;
		size_t n = strlen(ext);
		for (char *s = all; (s = strstr(s, ext)) != NULL; s += n)
			if ((s == all || s[-1] == ' ') && (s[n] == 0 || s[n] == ' ')) {
				found = true;
				break;
			}
	}
	free(all);
	return found;
}

/* Platform and device ids; the caller frees *platforms (and *devices). */
static cl_uint get_platforms(cl_platform_id **out)
{
	cl_uint n = 0;
	*out = NULL;
	if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0)
		return 0;
	*out = calloc(n, sizeof **out);
	if (!*out || clGetPlatformIDs(n, *out, &n) != CL_SUCCESS) {
		free(*out);
		*out = NULL;
		return 0;
	}
	return n;
}

static cl_uint get_devices(cl_platform_id p, cl_device_id **out)
{
	cl_uint n = 0;
	*out = NULL;
	if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS || n == 0)
		return 0;
	*out = calloc(n, sizeof **out);
	if (!*out || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, *out, &n) != CL_SUCCESS) {
		free(*out);
		*out = NULL;
		return 0;
	}
	return n;
}

static bool is_gpu(cl_device_id d)
{
	cl_device_type type = 0;
	return clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
	       (type & CL_DEVICE_TYPE_GPU);
}

/* cl_khr_pci_bus_info, else NVIDIA's own attributes (cl_nv_device_attribute_query;
 * the slot packs device << 3 | function); "" where neither answers. */
enum { NV_PCI_BUS_ID = 0x4008, NV_PCI_SLOT_ID = 0x4009, NV_PCI_DOMAIN_ID = 0x400A };
static void pci_address(cl_device_id d, char *out, size_t size)
{
	cl_device_pci_bus_info_khr khr;
	cl_uint bus, slot, domain = 0;
	out[0] = 0;
	if (clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof khr, &khr, NULL) == CL_SUCCESS)
		snprintf(out, size, "%04x:%02x:%02x.%x", khr.pci_domain, khr.pci_bus, khr.pci_device,
		         khr.pci_function);
	else if (clGetDeviceInfo(d, NV_PCI_BUS_ID, sizeof bus, &bus, NULL) == CL_SUCCESS &&
	         clGetDeviceInfo(d, NV_PCI_SLOT_ID, sizeof slot, &slot, NULL) == CL_SUCCESS) {
		if (clGetDeviceInfo(d, NV_PCI_DOMAIN_ID, sizeof domain, &domain, NULL) != CL_SUCCESS)
			domain = 0;
		snprintf(out, size, "%04x:%02x:%02x.%x", domain, bus, (slot >> 3) & 0x1f, slot & 7);
	}
}

static void fill_info(struct dev *d, unsigned pi, unsigned di)
{
	struct tune_device_info *info = &d->info;
	memset(info, 0, sizeof *info);
	platform_string(d->platform, CL_PLATFORM_NAME, info->platform, sizeof info->platform);
	device_string(d->device, CL_DEVICE_NAME, info->name, sizeof info->name);
	device_string(d->device, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
	device_string(d->device, CL_DRIVER_VERSION, info->driver, sizeof info->driver);
	device_string(d->device, CL_DEVICE_VERSION, info->version, sizeof info->version);
	info->platform_index = (int)pi;
	info->device_index = (int)di;
	info->gpu = is_gpu(d->device);
	pci_address(d->device, info->pci, sizeof info->pci);
}

static int ocl_select(const struct tune_device_sel *sel, struct dev *out, char **err)
{
	cl_platform_id *plats;
	cl_uint np = get_platforms(&plats);
	if (np == 0) {
		*err = tune_strfmt("no OpenCL platform found");
		return -1;
	}
	/* Pass 0 takes only GPUs when nothing is asked for; pass 1 takes any device. */
	bool choose_gpu = !sel->platform && !sel->device;
	for (int pass = choose_gpu ? 0 : 1; pass < 2; pass++) {
		for (cl_uint pi = 0; pi < np; pi++) {
			char pname[256];
			platform_string(plats[pi], CL_PLATFORM_NAME, pname, sizeof pname);
			if (!dev_sel_matches(sel->platform, pi, pname))
				continue;
			cl_device_id *devs;
			cl_uint nd = get_devices(plats[pi], &devs);
			for (cl_uint di = 0; di < nd; di++) {
				char dname[256];
				device_string(devs[di], CL_DEVICE_NAME, dname, sizeof dname);
				if (!dev_sel_matches(sel->device, di, dname) || (pass == 0 && !is_gpu(devs[di])))
					continue;
				out->platform = plats[pi];
				out->device = devs[di];
				fill_info(out, pi, di);
				free(devs);
				free(plats);
				return 0;
			}
			free(devs);
		}
	}
	free(plats);
	*err = tune_strfmt("no OpenCL device matches platform '%s' device '%s'",
	                   sel->platform ? sel->platform : "(any)", sel->device ? sel->device : "(any)");
	return -1;
}

/* ---- queries ---------------------------------------------------------------- */

enum query_kind { Q_UINT, Q_ULONG, Q_SIZE, Q_WORK_ITEM, Q_BOOL_FP64, Q_NV };

static const struct query {
	const char *name;
	cl_device_info param;
	enum query_kind kind;
	int dim;  /* Q_WORK_ITEM */
} queries[] = {
	{"max_work_group_size", CL_DEVICE_MAX_WORK_GROUP_SIZE, Q_SIZE, 0},
	{"max_work_item_size_x", CL_DEVICE_MAX_WORK_ITEM_SIZES, Q_WORK_ITEM, 0},
	{"max_work_item_size_y", CL_DEVICE_MAX_WORK_ITEM_SIZES, Q_WORK_ITEM, 1},
	{"max_work_item_size_z", CL_DEVICE_MAX_WORK_ITEM_SIZES, Q_WORK_ITEM, 2},
	{"local_mem_size", CL_DEVICE_LOCAL_MEM_SIZE, Q_ULONG, 0},
	{"max_compute_units", CL_DEVICE_MAX_COMPUTE_UNITS, Q_UINT, 0},
	{"global_mem_size", CL_DEVICE_GLOBAL_MEM_SIZE, Q_ULONG, 0},
	{"max_clock_frequency", CL_DEVICE_MAX_CLOCK_FREQUENCY, Q_UINT, 0},
	{"max_constant_buffer_size", CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, Q_ULONG, 0},
	{"warp_size", CL_DEVICE_WARP_SIZE_NV, Q_NV, 0},
	{"registers_per_block", CL_DEVICE_REGISTERS_PER_BLOCK_NV, Q_NV, 0},
	{"compute_capability_major", CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, Q_NV, 0},
	{"compute_capability_minor", CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, Q_NV, 0},
	{"preferred_vector_width_float", CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, Q_UINT, 0},
	{"double_fp", CL_DEVICE_DOUBLE_FP_CONFIG, Q_BOOL_FP64, 0},
};

static int ocl_query_id(cl_device_id dev, const char *name, int64_t *value)
{
	const struct query *q = NULL;
	for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
		if (strcmp(queries[i].name, name) == 0)
			q = &queries[i];
	if (!q)
		return -1;
	switch (q->kind) {
	case Q_NV:  /* a cl_uint, where the extension exists */
		if (!has_extension(dev, "cl_nv_device_attribute_query"))
			return 1;
		/* fall through */
	case Q_UINT: {
		cl_uint v;
		if (clGetDeviceInfo(dev, q->param, sizeof v, &v, NULL) != CL_SUCCESS)
			return 1;
		*value = v;
		return 0;
	}
	case Q_ULONG: {
		cl_ulong v;
		if (clGetDeviceInfo(dev, q->param, sizeof v, &v, NULL) != CL_SUCCESS)
			return 1;
		*value = v > INT64_MAX ? INT64_MAX : (int64_t)v;
		return 0;
	}
	case Q_SIZE: {
		size_t v;
		if (clGetDeviceInfo(dev, q->param, sizeof v, &v, NULL) != CL_SUCCESS)
			return 1;
		*value = (int64_t)v;
		return 0;
	}
	case Q_WORK_ITEM: {
		size_t v[3] = {1, 1, 1};
		cl_uint dims = 3;
		clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims, NULL);
		if (dims > 3)
			dims = 3;
		if ((cl_uint)q->dim >= dims ||
		    clGetDeviceInfo(dev, q->param, dims * sizeof v[0], v, NULL) != CL_SUCCESS)
			return 1;
		*value = (int64_t)v[q->dim];
		return 0;
	}
	case Q_BOOL_FP64: {
		cl_device_fp_config v = 0;
		if (clGetDeviceInfo(dev, q->param, sizeof v, &v, NULL) != CL_SUCCESS)
			v = 0;
		*value = v != 0;
		return 0;
	}
	}
	return -1;
}

/* ---- listing -------------------------------------------------------------- */

static void list_device(FILE *out, cl_device_id d, unsigned di)
{
	char name[256], driver[256], version[256];
	device_string(d, CL_DEVICE_NAME, name, sizeof name);
	device_string(d, CL_DRIVER_VERSION, driver, sizeof driver);
	device_string(d, CL_DEVICE_VERSION, version, sizeof version);
	cl_device_type type = 0;
	clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
	const char *tname = type & CL_DEVICE_TYPE_GPU ? "GPU" : type & CL_DEVICE_TYPE_CPU ? "CPU"
	                    : type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other";
	fprintf(out, "  device %u: %s [%s]\n", di, name, tname);
	fprintf(out, "    version: %s; driver %s\n", version, driver);
	int64_t v[sizeof queries / sizeof queries[0]];
	int have[sizeof queries / sizeof queries[0]];
	for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
		have[i] = ocl_query_id(d, queries[i].name, &v[i]) == 0;
	/* Indices follow the ORDER of `queries`. */
	fprintf(out, "    compute units: %lld at %lld MHz; global memory: %lld MiB; "
	        "constant buffer: %lld KiB\n", (long long)v[5], (long long)v[7],
	        (long long)(v[6] >> 20), (long long)(v[8] >> 10));
	fprintf(out, "    max work-group size: %lld; max work-item sizes: %lld x %lld x %lld; "
	        "local memory: %lld KiB\n", (long long)v[0], (long long)v[1],
	        have[2] ? (long long)v[2] : 1LL, have[3] ? (long long)v[3] : 1LL,
	        (long long)(v[4] >> 10));
	fprintf(out, "    preferred float vector width: %lld; double precision: %s\n",
	        (long long)v[13], v[14] ? "yes" : "no");
	if (have[9])
		fprintf(out, "    NVIDIA: compute capability %lld.%lld; warp size %lld; "
		        "registers per block %lld\n", (long long)v[11], (long long)v[12],
		        (long long)v[9], (long long)v[10]);
}

static int ocl_list(FILE *out)
{
	cl_platform_id *plats;
	cl_uint np = get_platforms(&plats);
	if (np == 0) {
		fprintf(stderr, "spacetune: no OpenCL platform found\n");
		return -1;
	}
	int total = 0;
	for (cl_uint pi = 0; pi < np; pi++) {
		char name[256], vendor[256], version[256];
		platform_string(plats[pi], CL_PLATFORM_NAME, name, sizeof name);
		platform_string(plats[pi], CL_PLATFORM_VENDOR, vendor, sizeof vendor);
		platform_string(plats[pi], CL_PLATFORM_VERSION, version, sizeof version);
		fprintf(out, "platform %u: %s (%s; %s)\n", pi, name, vendor, version);
		cl_device_id *devs;
		cl_uint nd = get_devices(plats[pi], &devs);
		if (nd == 0)
			fprintf(out, "  no devices\n");
		for (cl_uint di = 0; di < nd; di++)
			list_device(out, devs[di], di);
		free(devs);
		total += (int)nd;
	}
	free(plats);
	return total;
}

/* Every GPU as (platform index, device index), at most max; the count found. */
static int ocl_gpus(int (*out)[2], int max)
{
	cl_platform_id *plats;
	cl_uint np = get_platforms(&plats);
	int n = 0;
	for (cl_uint pi = 0; pi < np; pi++) {
		cl_device_id *devs;
		cl_uint nd = get_devices(plats[pi], &devs);
		for (cl_uint di = 0; di < nd; di++) {
			cl_device_type type = 0;
			clGetDeviceInfo(devs[di], CL_DEVICE_TYPE, sizeof type, &type, NULL);
			if ((type & CL_DEVICE_TYPE_GPU) && n < max) {
				out[n][0] = (int)pi;
				out[n][1] = (int)di;
				n++;
			}
		}
		free(devs);
	}
	free(plats);
	return n;
}

/* ---- the backend: devices ------------------------------------------------- */

static const char *ocl_query_name(int i)
{
	return i >= 0 && (size_t)i < sizeof queries / sizeof queries[0] ? queries[i].name : NULL;
}

static void ocl_close(struct dev *d)
{
	if (!d)
		return;
	if (d->queue) {
		clFinish(d->queue);
		clReleaseCommandQueue(d->queue);
	}
	if (d->context)
		clReleaseContext(d->context);
	free(d);
}

static int ocl_open_queries(struct dev **out, const struct tune_device_sel *sel,
                            struct tune_device_info *info, char **err)
{
	struct dev *d = calloc(1, sizeof *d);
	*out = NULL;
	if (!d) {
		*err = tune_strfmt("out of memory");
		return -1;
	}
	if (ocl_select(sel, d, err) != 0) {
		free(d);
		return -1;
	}
	*info = d->info;
	*out = d;
	return 0;
}

static int ocl_open(struct dev **out, const struct tune_device_sel *sel,
                    struct tune_device_info *info, char **err)
{
	struct dev *d;
	if (ocl_open_queries(&d, sel, info, err) != 0)
		return -1;
	cl_int rc;
	cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
	d->context = clCreateContext(props, 1, &d->device, NULL, NULL, &rc);
	if (!d->context) {
		*err = tune_strfmt("cannot create an OpenCL context on '%s': %s", d->info.name,
		                   ocl_error_name(rc));
		ocl_close(d);
		return -1;
	}
	d->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &rc);
	if (!d->queue) {
		*err = tune_strfmt("cannot create a profiling queue on '%s': %s", d->info.name,
		                   ocl_error_name(rc));
		ocl_close(d);
		return -1;
	}
	*info = d->info;
	*out = d;
	return 0;
}

static int ocl_query(struct dev *d, const char *name, int64_t *value)
{
	return ocl_query_id(d->device, name, value);
}

/* ---- programs ------------------------------------------------------------- */

/* Build logs longer than this are cut: they go into every db line. */
#define MAX_LOG 65536

static char *build_log(struct dev *d, cl_program prog)
{
	size_t size = 0;
	if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS)
		return NULL;
	char *log = malloc(size + 1);
	if (!log)
		return NULL;
	if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS)
		size = 0;
	log[size] = 0;
	if (size > MAX_LOG)
		strcpy(log + MAX_LOG - 20, "\n[log truncated]\n");
	return log;
}

static int ocl_compile(struct dev *d, const char *source, const char *options,
                       struct dev_module **out, char **log)
{
	cl_int rc;
	*out = NULL;
	*log = NULL;
	cl_program prog = clCreateProgramWithSource(d->context, 1, &source, NULL, &rc);
	if (!prog)
		return rc;
	rc = clBuildProgram(prog, 1, &d->device, options, NULL, NULL);
	if (rc != CL_SUCCESS) {
		*log = build_log(d, prog);
		clReleaseProgram(prog);
		return rc;
	}
	*out = (struct dev_module *)prog;
	return CL_SUCCESS;
}

static int ocl_binary(struct dev *d, struct dev_module *m, void **bin, size_t *len)
{
	(void)d;
	cl_program prog = (cl_program)m;
	*bin = NULL;
	cl_int rc = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof *len, len, NULL);
	if (rc != CL_SUCCESS)
		return rc;
	if (*len == 0 || !(*bin = malloc(*len)))
		return CL_OUT_OF_HOST_MEMORY;
	unsigned char *bins[1] = {*bin};
	rc = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
	if (rc != CL_SUCCESS) {
		free(*bin);
		*bin = NULL;
	}
	return rc;
}

static int ocl_load(struct dev *d, const void *bin, size_t len, const char *options,
                    struct dev_module **out)
{
	const unsigned char *bins[1] = {bin};
	cl_int rc, status;
	*out = NULL;
	cl_program prog = clCreateProgramWithBinary(d->context, 1, &d->device, &len, bins, &status, &rc);
	if (!prog)
		return rc;
	if (rc == CL_SUCCESS && status != CL_SUCCESS)
		rc = status;
	if (rc == CL_SUCCESS)
		rc = clBuildProgram(prog, 1, &d->device, options, NULL, NULL);
	if (rc != CL_SUCCESS) {
		clReleaseProgram(prog);
		return rc;
	}
	*out = (struct dev_module *)prog;
	return CL_SUCCESS;
}

static void ocl_module_free(struct dev *d, struct dev_module *m)
{
	(void)d;
	if (m)
		clReleaseProgram((cl_program)m);
}

static int ocl_kernel(struct dev *d, struct dev_module *m, const char *name, struct dev_kernel **out)
{
	(void)d;
	cl_int rc;
	cl_kernel k = clCreateKernel((cl_program)m, name, &rc);
	*out = (struct dev_kernel *)k;
	return k ? CL_SUCCESS : rc;
}

static void ocl_kernel_free(struct dev *d, struct dev_kernel *k)
{
	(void)d;
	if (k)
		clReleaseKernel((cl_kernel)k);
}

/* ---- buffers -------------------------------------------------------------- */

static int ocl_alloc(struct dev *d, size_t bytes, struct dev_buf **out)
{
	cl_int rc;
	cl_mem m = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &rc);
	*out = (struct dev_buf *)m;
	return m ? CL_SUCCESS : rc;
}

static void ocl_buf_free(struct dev *d, struct dev_buf *b)
{
	(void)d;
	if (b)
		clReleaseMemObject((cl_mem)b);
}

static int ocl_write(struct dev *d, struct dev_buf *b, const void *src, size_t bytes)
{
	return clEnqueueWriteBuffer(d->queue, (cl_mem)b, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
}

static int ocl_read(struct dev *d, struct dev_buf *b, void *dst, size_t bytes)
{
	return clEnqueueReadBuffer(d->queue, (cl_mem)b, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
}

static int ocl_copy(struct dev *d, struct dev_buf *dst, struct dev_buf *src, size_t bytes)
{
	return clEnqueueCopyBuffer(d->queue, (cl_mem)src, (cl_mem)dst, 0, 0, bytes, 0, NULL, NULL);
}

static void ocl_finish(struct dev *d)
{
	clFinish(d->queue);
}

/* ---- launches ------------------------------------------------------------- */

static int ocl_check(struct dev *d, struct dev_kernel *kernel, const struct dev_launch *l,
                     char **detail)
{
	cl_kernel k = (cl_kernel)kernel;
	int dim = l->dim;
	const size_t *global = l->global, *local = l->local;
	if (dim < 1 || dim > 3) {
		*detail = tune_strfmt("work_dim %d", dim);
		return CL_INVALID_WORK_DIMENSION;
	}
	for (int i = 0; i < dim; i++)
		if (global[i] == 0) {
			*detail = tune_strfmt("global size %d is 0", i);
			return CL_INVALID_GLOBAL_WORK_SIZE;
		}
	if (local[0] == 0)
		return CL_SUCCESS;
	size_t kernel_max = 0, item_max[3] = {0, 0, 0}, product = 1;
	clGetKernelWorkGroupInfo(k, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
	                         &kernel_max, NULL);
	clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max, item_max, NULL);
	for (int i = 0; i < dim; i++) {
		if (local[i] == 0 || global[i] % local[i] != 0) {
			*detail = tune_strfmt("global size %zu is not a multiple of local size %zu (dimension %d)",
			                      global[i], local[i], i);
			return CL_INVALID_WORK_GROUP_SIZE;
		}
		if (item_max[i] && local[i] > item_max[i]) {
			*detail = tune_strfmt("local size %zu exceeds the device's %zu in dimension %d",
			                      local[i], item_max[i], i);
			return CL_INVALID_WORK_ITEM_SIZE;
		}
		product *= local[i];
	}
	if (kernel_max && product > kernel_max) {
		*detail = tune_strfmt("work-group of %zu items exceeds the kernel's limit of %zu "
		                      "(CL_KERNEL_WORK_GROUP_SIZE)", product, kernel_max);
		return CL_INVALID_WORK_GROUP_SIZE;
	}
	return CL_SUCCESS;
}

/*
 * The kernel of `ev` runs (or has ended).  Drivers may compile for the
 * launch's geometry between CL_SUBMITTED and CL_RUNNING (PoCL does, for
 * seconds on a loaded machine): that is building, not running.
 */
static bool kernel_running(void *arg)
{
	cl_int status = CL_COMPLETE;
	return clGetEventInfo((cl_event)arg, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
	                      NULL) != CL_SUCCESS || status <= CL_RUNNING;
}

static cl_int set_args(cl_kernel k, const struct dev_launch *l)
{
	for (int i = 0; i < l->nargs; i++) {
		const struct dev_arg *a = &l->args[i];
		cl_int rc;
		if (a->kind == TUNE_ARG_SCALAR)
			rc = clSetKernelArg(k, (cl_uint)i, a->size, a->value);
		else if (a->kind == TUNE_ARG_BUFFER)
			rc = clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &a->buf);
		else
			rc = clSetKernelArg(k, (cl_uint)i, a->size, NULL);
		if (rc != CL_SUCCESS)
			return rc;
	}
	return CL_SUCCESS;
}

static int ocl_launch(struct dev *d, struct dev_kernel *kernel, const struct dev_launch *l,
                      const struct exec_hooks *hooks, double *ms)
{
	cl_kernel k = (cl_kernel)kernel;
	cl_event ev = NULL;
	*ms = 0;
	cl_int rc = set_args(k, l);
	if (rc != CL_SUCCESS)
		return rc;
	rc = clEnqueueNDRangeKernel(d->queue, k, (cl_uint)l->dim, NULL, l->global,
	                            l->local[0] ? l->local : NULL, 0, NULL, &ev);
	if (rc != CL_SUCCESS)
		return rc;
	clFlush(d->queue);
	dev_await_start(kernel_running, ev, hooks);
	rc = clWaitForEvents(1, &ev);
	if (hooks && hooks->finished)
		hooks->finished(hooks->user);
	cl_int status = CL_COMPLETE;
	if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) ==
	        CL_SUCCESS && status < 0)
		rc = status;
	if (rc == CL_SUCCESS) {
		cl_ulong start = 0, end = 0;
		rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
		if (rc == CL_SUCCESS)
			rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
		*ms = end > start ? (double)(end - start) * 1e-6 : 0.0;
	}
	clReleaseEvent(ev);
	return rc;
}

const struct dev_ops dev_opencl = {
	.name = "opencl",
	DEV_OPS_OF(ocl),
};
