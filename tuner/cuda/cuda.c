/*
 * cuda.c - the CUDA backend (tuner/device.h): NVRTC compiles the kernel
 * source with the tune section's defines, the driver API loads, launches
 * and times it with events.
 *
 * Both libraries are opened with dlopen at first use, never linked: a
 * spacetune built where the toolkit is installed still starts, lists its
 * OpenCL devices and tunes on them where there is no NVIDIA driver (or
 * no NVRTC), and says so only when CUDA is asked for.  cuda.h and nvrtc.h
 * give the types; the symbol names come from cuda.h's own versioning
 * macros (cuMemAlloc is cuMemAlloc_v2), so they match the header built
 * against.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/cuda/map.h"
#include "tuner/device.h"
#include "tuner/exec.h"

/* ---- the libraries ---------------------------------------------------------- */

#define CU_FUNCS(X)                                                                   \
	X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet)             \
	X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                 \
	X(cuDeviceGetPCIBusId)                                                         \
	X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)    \
	X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuEventCreate)   \
	X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize)       \
	X(cuEventElapsedTime) X(cuModuleLoadData) X(cuModuleUnload)                    \
	X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuFuncSetAttribute)            \
	X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoH)                \
	X(cuMemcpyDtoDAsync) X(cuLaunchKernel) X(cuGetErrorName)

#define NVRTC_FUNCS(X)                                                                \
	X(nvrtcCreateProgram) X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize)         \
	X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)                    \
	X(nvrtcDestroyProgram) X(nvrtcGetErrorString)

/* Members are named through the macros too, so api.cuMemAlloc is the
 * pointer to cuMemAlloc_v2 wherever cuda.h says so. */
#define MEMBER(f) __typeof__(f) *f;
static struct {
	CU_FUNCS(MEMBER)
	NVRTC_FUNCS(MEMBER)
} api;
#undef MEMBER

#define NAME_(f) #f
#define NAME(f) NAME_(f)

/* dlsym, then the unversioned name (a driver older than the header). */
static void *symbol(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	const char *v = strstr(name, "_v");
	if (!p && v) {
		char base[64];
		snprintf(base, sizeof base, "%.*s", (int)(v - name), name);
		p = dlsym(lib, base);
	}
	return p;
}

/* A function a library must have: its name, the member of `api` it
 * fills, and why the library is refused without it (static text). */
struct symbol_ref {
	const char *name;
	void **slot;
	const char *lacks;
};

#define SYMBOL(soname, f) { NAME(f), (void **)&api.f, soname " lacks " NAME(f) },
#define NVRTC_SYMBOL(f) SYMBOL("libnvrtc.so", f)
#define CU_SYMBOL(f) SYMBOL("libcuda.so", f)
static const struct symbol_ref nvrtc_symbols[] = { NVRTC_FUNCS(NVRTC_SYMBOL) };
static const struct symbol_ref cu_symbols[] = { CU_FUNCS(CU_SYMBOL) };
#undef CU_SYMBOL
#undef NVRTC_SYMBOL
#undef SYMBOL

/*
 * One library to load: the names dlopen tries in order, why it is
 * missing when none opens, its functions, and what must succeed once
 * they are all there (NULL: nothing; else NULL or why not).  Loaded at
 * most once; `why` is the outcome.
 */
struct library {
	const char *const *sonames;
	const char *absent;
	const struct symbol_ref *symbols;
	size_t nsymbols;
	const char *(*start)(void);
	bool tried;
	const char *why;
};

static const char *driver_start(void)
{
	return api.cuInit(0) == CUDA_SUCCESS ? NULL : "the CUDA driver does not initialise (cuInit failed)";
}

static const char *const nvrtc_sonames[] = { "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                             "libnvrtc.so.11.2", NULL };
static const char *const cu_sonames[] = { "libcuda.so.1", "libcuda.so", NULL };

static struct library nvrtc_lib = {
	nvrtc_sonames, "NVRTC (libnvrtc.so) cannot be loaded", nvrtc_symbols,
	sizeof nvrtc_symbols / sizeof nvrtc_symbols[0], NULL, false, NULL,
};
static struct library driver_lib = {
	cu_sonames, "no NVIDIA driver (libcuda.so.1 cannot be loaded)", cu_symbols,
	sizeof cu_symbols / sizeof cu_symbols[0], driver_start, false, NULL,
};

/* NULL once loaded (and started), else why not (static text). */
static const char *load(struct library *l)
{
	if (l->tried)
		return l->why;
	l->tried = true;
	void *lib = NULL;
	for (int i = 0; l->sonames[i] && !lib; i++)
		lib = dlopen(l->sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return l->why = l->absent;
	for (size_t i = 0; i < l->nsymbols; i++)
		if (!(*l->symbols[i].slot = symbol(lib, l->symbols[i].name)))
			return l->why = l->symbols[i].lacks;
	return l->why = l->start ? l->start() : NULL;
}

static const char *load_nvrtc(void)
{
	return load(&nvrtc_lib);
}

static const char *load_driver(void)
{
	return load(&driver_lib);
}

/* ---- errors ------------------------------------------------------------------ */

/* NVRTC's codes are kept apart from the driver's by this offset. */
#define NVRTC_BASE 100000

static const char *cuda_error_name(int rc)
{
	if (rc >= NVRTC_BASE && api.nvrtcGetErrorString)
		return api.nvrtcGetErrorString((nvrtcResult)(rc - NVRTC_BASE));
	const char *name = NULL;
	if (rc < NVRTC_BASE && api.cuGetErrorName &&
	    api.cuGetErrorName((CUresult)rc, &name) == CUDA_SUCCESS && name)
		return name;
	/* The codes this file returns itself, for a machine with no driver. */
	switch (rc) {
	case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
	case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
	case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
	case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
	case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
	default: return "CUDA_ERROR_UNKNOWN";
	}
}

/* ---- devices and queries ---------------------------------------------------- */

struct dev {
	CUdevice device;
	CUcontext context;
	CUstream stream;
	CUevent start, end;
	char arch[16];        /* "sm_90" */
	int index;            /* in the driver's order: the messages' */
	struct tune_device_info info;
};

struct dev_module {
	CUmodule module;
	void *cubin;
	size_t len;
};

/* ORDER lang/sema.c sema_device_queries: the same names, CUDA's answers. */
static const struct {
	const char *name;
	int attr;  /* a CUdevice_attribute, or one of the specials below */
	int scale; /* divide by */
} queries[] = {
	{"max_work_group_size", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1},
	{"max_work_item_size_x", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1},
	{"max_work_item_size_y", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1},
	{"max_work_item_size_z", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 1},
	/* Static __shared__ arrays are limited to this (48 KiB); the opt-in
	 * maximum needs dynamic shared memory and an attribute. */
	{"local_mem_size", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 1},
	{"max_compute_units", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1},
	{"global_mem_size", -1, 1},
	{"max_clock_frequency", CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1000},  /* kHz -> MHz */
	{"max_constant_buffer_size", CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 1},
	{"warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1},
	{"registers_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 1},
	{"compute_capability_major", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 1},
	{"compute_capability_minor", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 1},
	{"preferred_vector_width_float", -2, 1},  /* no such notion: the default applies */
	{"double_fp", -3, 1},                     /* every CUDA device has doubles */
};
enum { NQUERIES = sizeof queries / sizeof queries[0] };

static const char *cuda_query_name(int i)
{
	return i >= 0 && i < NQUERIES ? queries[i].name : NULL;
}

static int query_device(CUdevice dev, const char *name, int64_t *value)
{
	for (int i = 0; i < NQUERIES; i++) {
		if (strcmp(queries[i].name, name) != 0)
			continue;
		if (queries[i].attr == -1) {
			size_t bytes = 0;
			if (api.cuDeviceTotalMem(&bytes, dev) != CUDA_SUCCESS)
				return 1;
			*value = (int64_t)bytes;
			return 0;
		}
		if (queries[i].attr == -2)
			return 1;
		if (queries[i].attr == -3) {
			*value = 1;
			return 0;
		}
		int v = 0;
		if (api.cuDeviceGetAttribute(&v, (CUdevice_attribute)queries[i].attr, dev) != CUDA_SUCCESS)
			return 1;
		*value = v / queries[i].scale;
		return 0;
	}
	return -1;
}

static int cuda_query(struct dev *d, const char *name, int64_t *value)
{
	return query_device(d->device, name, value);
}

static void fill_info(CUdevice dev, int index, struct tune_device_info *info)
{
	memset(info, 0, sizeof *info);
	int version = 0, major = 0, minor = 0;
	api.cuDriverGetVersion(&version);
	api.cuDeviceGetName(info->name, sizeof info->name - 1, dev);
	api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
	api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	snprintf(info->platform, sizeof info->platform, "CUDA");
	snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
	snprintf(info->driver, sizeof info->driver, "CUDA %d.%d", version / 1000, version % 1000 / 10);
	snprintf(info->version, sizeof info->version, "compute capability %d.%d", major, minor);
	info->platform_index = 0;
	info->device_index = index;
	info->gpu = true;
	/* The driver writes "0000:65:00.0" (upper-case hex); the OpenCL
	 * backend's form is lower-case, so that one card has one name. */
	char bus[32];
	unsigned domain, b, device, function;
	if (api.cuDeviceGetPCIBusId(bus, sizeof bus, dev) == CUDA_SUCCESS &&
	    sscanf(bus, "%x:%x:%x.%x", &domain, &b, &device, &function) == 4)
		snprintf(info->pci, sizeof info->pci, "%04x:%02x:%02x.%x", domain, b, device, function);
}

static int device_count(void)
{
	int n = 0;
	if (load_driver() || api.cuDeviceGetCount(&n) != CUDA_SUCCESS)
		return 0;
	return n;
}

static int cuda_list(FILE *out)
{
	const char *why = load_driver();
	if (why) {
		fprintf(out, "CUDA: %s\n", why);
		return -1;
	}
	int version = 0, n = device_count();
	api.cuDriverGetVersion(&version);
	fprintf(out, "CUDA (driver API %d.%d; --backend cuda)%s\n", version / 1000, version % 1000 / 10,
	        load_nvrtc() ? "; NVRTC cannot be loaded: nothing can be built" : "");
	for (int i = 0; i < n; i++) {
		CUdevice dev;
		if (api.cuDeviceGet(&dev, i) != CUDA_SUCCESS)
			continue;
		struct tune_device_info info;
		fill_info(dev, i, &info);
		int64_t v[NQUERIES];
		for (int q = 0; q < NQUERIES; q++)
			if (query_device(dev, queries[q].name, &v[q]) != 0)
				v[q] = 0;
		/* Indices follow the ORDER of `queries`. */
		fprintf(out, "  device %d: %s [GPU]\n    %s; driver %s\n", i, info.name, info.version,
		        info.driver);
		fprintf(out, "    compute units: %lld at %lld MHz; global memory: %lld MiB; "
		        "constant memory: %lld KiB\n", (long long)v[5], (long long)v[7],
		        (long long)(v[6] >> 20), (long long)(v[8] >> 10));
		fprintf(out, "    max threads per block: %lld; max block: %lld x %lld x %lld; "
		        "shared memory: %lld KiB; warp %lld; registers per block %lld\n",
		        (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3],
		        (long long)(v[4] >> 10), (long long)v[9], (long long)v[10]);
	}
	return n;
}

static int cuda_gpus(int (*out)[2], int max)
{
	int n = device_count();
	for (int i = 0; i < n && i < max; i++) {
		out[i][0] = 0;
		out[i][1] = i;
	}
	return n < max ? n : max;
}

static void cuda_close(struct dev *d)
{
	if (!d)
		return;
	if (d->context) {
		api.cuCtxSetCurrent(d->context);
		if (d->stream) {
			api.cuStreamSynchronize(d->stream);
			api.cuStreamDestroy(d->stream);
		}
		if (d->start)
			api.cuEventDestroy(d->start);
		if (d->end)
			api.cuEventDestroy(d->end);
		api.cuDevicePrimaryCtxRelease(d->device);
	}
	free(d);
}

static int cuda_open_queries(struct dev **out, const struct tune_device_sel *sel,
                             struct tune_device_info *info, char **err)
{
	*out = NULL;
	const char *why = load_driver();
	if (!why)
		why = load_nvrtc();
	if (why) {
		*err = tune_strfmt("CUDA: %s", why);
		return -1;
	}
	/* CUDA has one platform: index 0, or a name within "CUDA". */
	if (sel->platform && !dev_sel_matches(sel->platform, 0, "CUDA")) {
		*err = tune_strfmt("CUDA has one platform, 0 ('CUDA'), not '%s'", sel->platform);
		return -1;
	}
	int n = device_count(), pick = -1;
	for (int i = 0; i < n && pick < 0; i++) {
		CUdevice dev;
		char name[256] = "";
		if (api.cuDeviceGet(&dev, i) == CUDA_SUCCESS &&
		    api.cuDeviceGetName(name, sizeof name - 1, dev) == CUDA_SUCCESS &&
		    dev_sel_matches(sel->device, (unsigned)i, name))
			pick = i;
	}
	if (pick < 0) {
		*err = n ? tune_strfmt("no CUDA device matches '%s'", sel->device)
		         : tune_strfmt("no CUDA device");
		return -1;
	}
	struct dev *d = calloc(1, sizeof *d);
	if (!d) {
		*err = tune_strfmt("out of memory");
		return -1;
	}
	CUresult rc = api.cuDeviceGet(&d->device, pick);
	if (rc != CUDA_SUCCESS) {
		*err = tune_strfmt("cannot open CUDA device %d: %s", pick, cuda_error_name(rc));
		free(d);
		return -1;
	}
	fill_info(d->device, pick, &d->info);
	int64_t major = 0, minor = 0;
	query_device(d->device, "compute_capability_major", &major);
	query_device(d->device, "compute_capability_minor", &minor);
	snprintf(d->arch, sizeof d->arch, "sm_%d%d", (int)major, (int)minor);
	d->index = pick;
	*info = d->info;
	*out = d;
	return 0;
}

static int cuda_open(struct dev **out, const struct tune_device_sel *sel,
                     struct tune_device_info *info, char **err)
{
	struct dev *d;
	if (cuda_open_queries(&d, sel, info, err) != 0)
		return -1;
	*out = NULL;
	CUresult rc = api.cuDevicePrimaryCtxRetain(&d->context, d->device);
	if (rc == CUDA_SUCCESS)
		rc = api.cuCtxSetCurrent(d->context);
	if (rc == CUDA_SUCCESS)
		rc = api.cuStreamCreate(&d->stream, CU_STREAM_DEFAULT);
	if (rc == CUDA_SUCCESS)
		rc = api.cuEventCreate(&d->start, CU_EVENT_DEFAULT);
	if (rc == CUDA_SUCCESS)
		rc = api.cuEventCreate(&d->end, CU_EVENT_DEFAULT);
	if (rc != CUDA_SUCCESS) {
		*err = tune_strfmt("cannot open CUDA device %d: %s", d->index, cuda_error_name(rc));
		cuda_close(d);
		return -1;
	}
	*info = d->info;
	*out = d;
	return 0;
}

/* ---- programs ------------------------------------------------------------------ */

/* Build logs longer than this are cut: they go into every db line. */
#define MAX_LOG 65536

/* NVRTC alone: source and options to a cubin for `arch`.  No driver. */
static int nvrtc_build(const char *source, const char *options, const char *arch, void **cubin,
                       size_t *len, char **log)
{
	*cubin = NULL;
	*len = 0;
	*log = NULL;
	const char *why = load_nvrtc();
	if (why) {
		*log = tune_strfmt("%s", why);
		return NVRTC_BASE + NVRTC_ERROR_INTERNAL_ERROR;
	}
	char **argv;
	int argc;
	if (cuda_options(options, arch, &argv, &argc) != 0)
		return DEV_E_NOMEM;
	nvrtcProgram prog;
	nvrtcResult rc = api.nvrtcCreateProgram(&prog, source, "kernel.cu", 0, NULL, NULL);
	if (rc != NVRTC_SUCCESS) {
		free(argv);
		return NVRTC_BASE + rc;
	}
	rc = api.nvrtcCompileProgram(prog, argc, (const char *const *)argv);
	free(argv);
	size_t size = 0;
	if (api.nvrtcGetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1 &&
	    (*log = malloc(size + 1))) {
		if (api.nvrtcGetProgramLog(prog, *log) != NVRTC_SUCCESS)
			size = 0;
		(*log)[size] = 0;
		if (size > MAX_LOG)
			strcpy(*log + MAX_LOG - 20, "\n[log truncated]\n");
	}
	if (rc == NVRTC_SUCCESS)
		rc = api.nvrtcGetCUBINSize(prog, len);
	if (rc == NVRTC_SUCCESS && !(*cubin = malloc(*len ? *len : 1)))
		rc = NVRTC_ERROR_OUT_OF_MEMORY;
	if (rc == NVRTC_SUCCESS)
		rc = api.nvrtcGetCUBIN(prog, *cubin);
	api.nvrtcDestroyProgram(&prog);
	if (rc != NVRTC_SUCCESS) {
		free(*cubin);
		*cubin = NULL;
		return NVRTC_BASE + rc;
	}
	return 0;
}

/* For `spacetune compile`: does the source build for `arch`? */
static int cuda_compile_offline(const char *source, const char *options, const char *arch, char **log)
{
	void *cubin;
	size_t len;
	int rc = nvrtc_build(source, options, arch, &cubin, &len, log);
	free(cubin);
	return rc;
}

static int cuda_load(struct dev *d, const void *bin, size_t len, const char *options,
                     struct dev_module **out)
{
	(void)options;
	*out = NULL;
	struct dev_module *m = calloc(1, sizeof *m);
	if (!m)
		return DEV_E_NOMEM;
	m->cubin = malloc(len);
	if (!m->cubin) {
		free(m);
		return DEV_E_NOMEM;
	}
	memcpy(m->cubin, bin, len);
	m->len = len;
	api.cuCtxSetCurrent(d->context);
	CUresult rc = api.cuModuleLoadData(&m->module, m->cubin);
	if (rc != CUDA_SUCCESS) {
		free(m->cubin);
		free(m);
		return rc;
	}
	*out = m;
	return 0;
}

static int cuda_compile(struct dev *d, const char *source, const char *options,
                        struct dev_module **out, char **log)
{
	void *cubin;
	size_t len;
	*out = NULL;
	int rc = nvrtc_build(source, options, d->arch, &cubin, &len, log);
	if (rc != 0)
		return rc;
	rc = cuda_load(d, cubin, len, options, out);
	free(cubin);
	return rc;
}

static int cuda_binary(struct dev *d, struct dev_module *m, void **bin, size_t *len)
{
	(void)d;
	*bin = malloc(m->len);
	if (!*bin)
		return DEV_E_NOMEM;
	memcpy(*bin, m->cubin, m->len);
	*len = m->len;
	return 0;
}

static void cuda_module_free(struct dev *d, struct dev_module *m)
{
	(void)d;
	if (!m)
		return;
	api.cuModuleUnload(m->module);
	free(m->cubin);
	free(m);
}

static int cuda_kernel(struct dev *d, struct dev_module *m, const char *name, struct dev_kernel **out)
{
	(void)d;
	CUfunction f = NULL;
	CUresult rc = api.cuModuleGetFunction(&f, m->module, name);
	*out = (struct dev_kernel *)f;
	return rc;
}

static void cuda_kernel_free(struct dev *d, struct dev_kernel *k)
{
	(void)d;
	(void)k;  /* functions live as long as their module */
}

/* ---- buffers -------------------------------------------------------------------- */

/* A device pointer is an integer; the buffer handle holds it. */
struct dev_buf {
	CUdeviceptr ptr;
};

static int cuda_alloc(struct dev *d, size_t bytes, struct dev_buf **out)
{
	(void)d;
	struct dev_buf *b = calloc(1, sizeof *b);
	*out = NULL;
	if (!b)
		return DEV_E_NOMEM;
	CUresult rc = api.cuMemAlloc(&b->ptr, bytes);
	if (rc != CUDA_SUCCESS) {
		free(b);
		return rc;
	}
	*out = b;
	return 0;
}

static void cuda_buf_free(struct dev *d, struct dev_buf *b)
{
	(void)d;
	if (b) {
		api.cuMemFree(b->ptr);
		free(b);
	}
}

static int cuda_write(struct dev *d, struct dev_buf *b, const void *src, size_t bytes)
{
	return api.cuMemcpyHtoDAsync(b->ptr, src, bytes, d->stream);
}

static int cuda_read(struct dev *d, struct dev_buf *b, void *dst, size_t bytes)
{
	CUresult rc = api.cuStreamSynchronize(d->stream);
	return rc != CUDA_SUCCESS ? (int)rc : (int)api.cuMemcpyDtoH(dst, b->ptr, bytes);
}

static int cuda_copy(struct dev *d, struct dev_buf *dst, struct dev_buf *src, size_t bytes)
{
	return api.cuMemcpyDtoDAsync(dst->ptr, src->ptr, bytes, d->stream);
}

static void cuda_finish(struct dev *d)
{
	api.cuStreamSynchronize(d->stream);
}

/* ---- launches ------------------------------------------------------------------- */

/* Local-memory arguments become the launch's dynamic shared memory: the
 * kernel declares one `extern __shared__` array and the sizes add up. */
static size_t dynamic_shared(const struct dev_launch *l)
{
	size_t bytes = 0;
	for (int i = 0; i < l->nargs; i++)
		if (l->args[i].kind == TUNE_ARG_LOCAL)
			bytes += l->args[i].size;
	return bytes;
}

static int cuda_check(struct dev *d, struct dev_kernel *k, const struct dev_launch *l, char **detail)
{
	unsigned grid[3], block[3];
	const char *why = NULL;
	if (cuda_geometry(l->dim, l->global, l->local, grid, block, &why) != 0) {
		*detail = tune_strfmt("%s", why);
		return CUDA_ERROR_INVALID_VALUE;
	}
	static const char *const dims = "xyz";
	int64_t max_block[3] = {0, 0, 0};
	query_device(d->device, "max_work_item_size_x", &max_block[0]);
	query_device(d->device, "max_work_item_size_y", &max_block[1]);
	query_device(d->device, "max_work_item_size_z", &max_block[2]);
	for (int i = 0; i < 3; i++)
		if (max_block[i] && block[i] > max_block[i]) {
			*detail = tune_strfmt("block %c of %u exceeds the device's %lld", dims[i], block[i],
			                      (long long)max_block[i]);
			return CUDA_ERROR_INVALID_VALUE;
		}
	int kernel_max = 0;
	api.cuFuncGetAttribute(&kernel_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, (CUfunction)k);
	size_t threads = (size_t)block[0] * block[1] * block[2];
	if (kernel_max > 0 && threads > (size_t)kernel_max) {
		*detail = tune_strfmt("block of %zu threads exceeds the kernel's limit of %d "
		                      "(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: its registers)",
		                      threads, kernel_max);
		return CUDA_ERROR_INVALID_VALUE;
	}
	size_t shared = dynamic_shared(l);
	if (shared > 48 * 1024 &&
	    api.cuFuncSetAttribute((CUfunction)k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                           (int)shared) != CUDA_SUCCESS) {
		*detail = tune_strfmt("%zu bytes of dynamic shared memory are more than the device allows",
		                      shared);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return 0;
}

/* As OpenCL's CL_RUNNING: the start event has passed once the work queued
 * before the kernel is done, so the run limit starts about there. */
static bool kernel_started(void *arg)
{
	return api.cuEventQuery(((struct dev *)arg)->start) != CUDA_ERROR_NOT_READY;
}

static int cuda_launch(struct dev *d, struct dev_kernel *k, const struct dev_launch *l,
                       const struct exec_hooks *hooks, double *ms)
{
	unsigned grid[3], block[3];
	const char *why;
	*ms = 0;
	if (cuda_geometry(l->dim, l->global, l->local, grid, block, &why) != 0)
		return CUDA_ERROR_INVALID_VALUE;
	void **params = calloc((size_t)l->nargs + 1, sizeof *params);
	if (!params)
		return DEV_E_NOMEM;
	int n = 0;
	for (int i = 0; i < l->nargs; i++) {
		const struct dev_arg *a = &l->args[i];
		if (a->kind == TUNE_ARG_SCALAR)
			params[n++] = (void *)a->value;
		else if (a->kind == TUNE_ARG_BUFFER)
			params[n++] = &a->buf->ptr;
	}
	CUresult rc = api.cuEventRecord(d->start, d->stream);
	if (rc == CUDA_SUCCESS)
		rc = api.cuLaunchKernel((CUfunction)k, grid[0], grid[1], grid[2], block[0], block[1],
		                        block[2], (unsigned)dynamic_shared(l), d->stream, params, NULL);
	if (rc == CUDA_SUCCESS)
		rc = api.cuEventRecord(d->end, d->stream);
	free(params);
	if (rc != CUDA_SUCCESS)
		return rc;
	dev_await_start(kernel_started, d, hooks);
	rc = api.cuEventSynchronize(d->end);
	if (hooks && hooks->finished)
		hooks->finished(hooks->user);
	float elapsed = 0;
	if (rc == CUDA_SUCCESS)
		rc = api.cuEventElapsedTime(&elapsed, d->start, d->end);
	*ms = elapsed;
	return rc;
}

const struct dev_ops dev_cuda = {
	.name = "cuda",
	DEV_OPS_OF(cuda),
	.compile_offline = cuda_compile_offline,
};
