/*
 * host.c - the best configuration as a standalone OpenCL program and as
 * a kernel source with its defines written in (see host.h).
 *
 * The generated texts are meant to be read and shipped, so they are laid
 * out by hand here: the program is main() over three small functions
 * (pick a device, build the tuned kernel, launch it), every value a
 * named constant, every OpenCL call checked by one macro.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tuner/best.h"
#include "tuner/eval.h"
#include "tuner/host.h"
#include "tuner/job.h"

/* ---- pieces of C text ------------------------------------------------------------- */

/* A string as a C literal, one source line per literal line, so the
 * embedded kernel stays readable.  "??" is broken up: with -std=c11 it
 * could start a trigraph. */
static void c_string_lines(FILE *f, const char *s, const char *indent)
{
	if (!*s) {
		fprintf(f, "%s\"\"", indent);
		return;
	}
	while (*s) {
		fprintf(f, "%s\"", indent);
		for (; *s && *s != '\n'; s++) {
			unsigned char c = (unsigned char)*s;
			if (c == '\\' || c == '"')
				fprintf(f, "\\%c", c);
			else if (c == '?' && s[1] == '?')
				fputs("?\\", f);
			else if (c == '\t')
				fputs("\\t", f);
			else if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\%03o", c);
			else
				fputc(c, f);
		}
		if (*s == '\n') {
			fputs("\\n", f);
			s++;
		}
		fputs(*s ? "\"\n" : "\"", f);
	}
}

static const char *cl_type(enum tune_type t)
{
	static const char *const names[] = {
		/* ORDER enum tune_type */
		"cl_char", "cl_uchar", "cl_short", "cl_ushort", "cl_int", "cl_uint",
		"cl_long", "cl_ulong", "cl_half", "cl_float", "cl_double",
	};
	return names[t];
}

static bool is_real(enum tune_type t)
{
	return t == TUNE_FLOAT || t == TUNE_DOUBLE;
}

/* A scalar's value as a C constant of its type. */
static void c_scalar(FILE *f, const struct tune_arg *a)
{
	if (is_real(a->type)) {
		char buf[64];
		snprintf(buf, sizeof buf, a->type == TUNE_FLOAT ? "%.9g" : "%.17g", a->f);
		fputs(buf, f);
		if (!strpbrk(buf, ".eEni"))
			fputs(".0", f);
		if (a->type == TUNE_FLOAT)
			fputc('f', f);
	} else if (a->type == TUNE_ULONG || a->type == TUNE_UINT) {
		fprintf(f, "%" PRIu64 "u", (uint64_t)a->i);
	} else if (a->i == INT64_MIN) {
		fputs("INT64_MIN", f);
	} else {
		fprintf(f, "%" PRId64, a->i);
	}
	if (a->type == TUNE_LONG || a->type == TUNE_ULONG)
		fputs("ll", f);
}

/* A C identifier for argument i: the buffer's name from the .space file
 * when it is one, else argN. */
static void arg_name(char *buf, size_t n, const struct tune_arg *a, int i)
{
	size_t k = 0;
	if (a->name)
		for (const char *c = a->name; *c && k + 1 < n; c++)
			buf[k++] = isalnum((unsigned char)*c) ? *c : '_';
	buf[k] = 0;
	if (k == 0 || isdigit((unsigned char)buf[0]))
		snprintf(buf, n, "arg%d", i);
}

/*
 * The parameter names of `kernel` in the source, for readable variable
 * names: the text after "void KERNEL(" split at top-level commas, the
 * last identifier of each part.  Only a naming aid: false (and argN
 * names) when the declaration is not found or has another arity.
 */
static bool kernel_param_names(const char *src, const char *kernel, int nargs, char (*names)[64])
{
	size_t kn = strlen(kernel);
	for (const char *s = strstr(src, kernel); s; s = strstr(s + 1, kernel)) {
		const char *b = s;
		while (b > src && isspace((unsigned char)b[-1]))
			b--;
		if (b - src < 4 || strncmp(b - 4, "void", 4) != 0 ||
		    isalnum((unsigned char)s[kn]) || s[kn] == '_')
			continue;
		const char *c = s + kn;
		while (isspace((unsigned char)*c))
			c++;
		if (*c != '(')
			continue;
		int n = 0, depth = 0;
		const char *last = NULL;
		size_t lastn = 0;
		for (c++; *c; c++) {
			if (*c == '(' || *c == '[')
				depth++;
			else if ((*c == ')' || *c == ']') && depth > 0)
				depth--;
			else if ((*c == ',' || *c == ')') && depth == 0) {
				if (!last || n >= nargs || lastn >= 64)
					return false;
				snprintf(names[n++], 64, "%.*s", (int)lastn, last);
				if (*c == ')')
					return n == nargs;
				last = NULL;
			} else if (depth == 0 && (isalpha((unsigned char)*c) || *c == '_') &&
			           (c == src || !(isalnum((unsigned char)c[-1]) || c[-1] == '_'))) {
				last = c;
				for (lastn = 0; isalnum((unsigned char)c[lastn]) || c[lastn] == '_'; lastn++)
					;
			}
		}
		return false;
	}
	return false;
}

/* The generated program's own names, which an argument must not shadow. */
static bool ours(const char *name)
{
	static const char *const taken[] = {
		"argc", "argv", "context", "device", "device_index", "done", "dump", "end", "err",
		"got", "i", "in", "kernel", "list", "log", "main", "path", "platform", "program",
		"queue", "run", "seed", "source", "start", "status", NULL,
	};
	for (int k = 0; taken[k]; k++)
		if (strcmp(name, taken[k]) == 0)
			return true;
	return false;
}

static void upper(char *buf, size_t n, const char *s)
{
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		buf[k++] = isalnum((unsigned char)*s) ? (char)toupper((unsigned char)*s) : '_';
	buf[k] = 0;
}

static void comment_block(FILE *f, const char *about)
{
	fputs("/*\n * ", f);
	for (const char *s = about; *s; s++) {
		if (*s == '\n') {
			fputs(s[1] ? "\n * " : "", f);
			continue;
		}
		char one[2] = { *s, 0 };
		tune_comment_text(f, one);
	}
	fputs("\n */\n", f);
}

/* ---- the source -------------------------------------------------------------------------- */

int tune_host_source_text(const struct tune_variant *v, const char *about, char **text, char **bad)
{
	size_t len = 0;
	*text = NULL;
	*bad = NULL;
	FILE *f = open_memstream(text, &len);
	if (!f)
		return 1;
	comment_block(f, about);
	fputs("\n/* The tuned parameters (spacetune's -D build options). */\n", f);
	char *rest = tune_defines_to_c(f, v->build_options, bad);
	if (rest && *rest) {
		fputs("/* Build with: ", f);
		tune_comment_text(f, rest);
		fputs(" */\n", f);
	}
	fputs("\n", f);
	fputs(v->source, f);
	if (*v->source && v->source[strlen(v->source) - 1] != '\n')
		fputc('\n', f);
	bool ok = fclose(f) == 0 && rest;
	free(rest);
	if (!ok) {
		free(*text);
		*text = NULL;
		return 1;
	}
	return 0;
}

/* ---- the program ------------------------------------------------------------------------- */

static const char prologue[] =
	"#define CL_TARGET_OPENCL_VERSION 120\n"
	"#include <CL/cl.h>\n"
	"#include <stdint.h>\n"
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"\n"
	"static const char *cl_error_name(cl_int err)\n"
	"{\n"
	"\tswitch (err) {\n"
	"\tcase CL_DEVICE_NOT_FOUND: return \"CL_DEVICE_NOT_FOUND\";\n"
	"\tcase CL_DEVICE_NOT_AVAILABLE: return \"CL_DEVICE_NOT_AVAILABLE\";\n"
	"\tcase CL_COMPILER_NOT_AVAILABLE: return \"CL_COMPILER_NOT_AVAILABLE\";\n"
	"\tcase CL_MEM_OBJECT_ALLOCATION_FAILURE: return \"CL_MEM_OBJECT_ALLOCATION_FAILURE\";\n"
	"\tcase CL_OUT_OF_RESOURCES: return \"CL_OUT_OF_RESOURCES\";\n"
	"\tcase CL_OUT_OF_HOST_MEMORY: return \"CL_OUT_OF_HOST_MEMORY\";\n"
	"\tcase CL_PROFILING_INFO_NOT_AVAILABLE: return \"CL_PROFILING_INFO_NOT_AVAILABLE\";\n"
	"\tcase CL_BUILD_PROGRAM_FAILURE: return \"CL_BUILD_PROGRAM_FAILURE\";\n"
	"\tcase CL_INVALID_VALUE: return \"CL_INVALID_VALUE\";\n"
	"\tcase CL_INVALID_PLATFORM: return \"CL_INVALID_PLATFORM\";\n"
	"\tcase CL_INVALID_DEVICE: return \"CL_INVALID_DEVICE\";\n"
	"\tcase CL_INVALID_CONTEXT: return \"CL_INVALID_CONTEXT\";\n"
	"\tcase CL_INVALID_COMMAND_QUEUE: return \"CL_INVALID_COMMAND_QUEUE\";\n"
	"\tcase CL_INVALID_MEM_OBJECT: return \"CL_INVALID_MEM_OBJECT\";\n"
	"\tcase CL_INVALID_BUILD_OPTIONS: return \"CL_INVALID_BUILD_OPTIONS\";\n"
	"\tcase CL_INVALID_PROGRAM_EXECUTABLE: return \"CL_INVALID_PROGRAM_EXECUTABLE\";\n"
	"\tcase CL_INVALID_KERNEL_NAME: return \"CL_INVALID_KERNEL_NAME\";\n"
	"\tcase CL_INVALID_KERNEL: return \"CL_INVALID_KERNEL\";\n"
	"\tcase CL_INVALID_ARG_INDEX: return \"CL_INVALID_ARG_INDEX\";\n"
	"\tcase CL_INVALID_ARG_VALUE: return \"CL_INVALID_ARG_VALUE\";\n"
	"\tcase CL_INVALID_ARG_SIZE: return \"CL_INVALID_ARG_SIZE\";\n"
	"\tcase CL_INVALID_KERNEL_ARGS: return \"CL_INVALID_KERNEL_ARGS\";\n"
	"\tcase CL_INVALID_WORK_DIMENSION: return \"CL_INVALID_WORK_DIMENSION\";\n"
	"\tcase CL_INVALID_WORK_GROUP_SIZE: return \"CL_INVALID_WORK_GROUP_SIZE\";\n"
	"\tcase CL_INVALID_WORK_ITEM_SIZE: return \"CL_INVALID_WORK_ITEM_SIZE\";\n"
	"\tcase CL_INVALID_GLOBAL_OFFSET: return \"CL_INVALID_GLOBAL_OFFSET\";\n"
	"\tcase CL_INVALID_EVENT: return \"CL_INVALID_EVENT\";\n"
	"\tcase CL_INVALID_BUFFER_SIZE: return \"CL_INVALID_BUFFER_SIZE\";\n"
	"\tcase CL_INVALID_GLOBAL_WORK_SIZE: return \"CL_INVALID_GLOBAL_WORK_SIZE\";\n"
	"\tdefault: return \"an OpenCL error\";\n"
	"\t}\n"
	"}\n"
	"\n"
	"/* Every OpenCL call goes through CHECK: on an error it says which call\n"
	" * failed and why, and jumps to the function's clean-up. */\n"
	"#define CHECK(call)                                                          \\\n"
	"\tdo {                                                                  \\\n"
	"\t\tcl_int check_err_ = (call);                                   \\\n"
	"\t\tif (check_err_ != CL_SUCCESS) {                               \\\n"
	"\t\t\tfprintf(stderr, \"%s:%d: %s: %s (%d)\\n\", __FILE__,       \\\n"
	"\t\t\t        __LINE__, #call, cl_error_name(check_err_),    \\\n"
	"\t\t\t        (int)check_err_);                              \\\n"
	"\t\t\tgoto fail;                                            \\\n"
	"\t\t}                                                             \\\n"
	"\t} while (0)\n"
	"\n"
	"/* The platform and device: -p and -d indices, else the first GPU, else\n"
	" * the first device. */\n"
	"static int pick_device(int want_platform, int want_device, cl_device_id *out)\n"
	"{\n"
	"\tcl_platform_id platforms[16];\n"
	"\tcl_uint nplatforms = 0;\n"
	"\tCHECK(clGetPlatformIDs(16, platforms, &nplatforms));\n"
	"\tfor (int pass = 0; pass < 2; pass++) {\n"
	"\t\tfor (cl_uint p = 0; p < nplatforms; p++) {\n"
	"\t\t\tif (want_platform >= 0 && (cl_uint)want_platform != p)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\tcl_device_id devices[16];\n"
	"\t\t\tcl_uint ndevices = 0;\n"
	"\t\t\tcl_device_type type = pass == 0 && want_platform < 0 && want_device < 0\n"
	"\t\t\t                          ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;\n"
	"\t\t\tif (clGetDeviceIDs(platforms[p], type, 16, devices, &ndevices) != CL_SUCCESS)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\tint d = want_device >= 0 ? want_device : 0;\n"
	"\t\t\tif ((cl_uint)d < ndevices) {\n"
	"\t\t\t\t*out = devices[d];\n"
	"\t\t\t\treturn 0;\n"
	"\t\t\t}\n"
	"\t\t}\n"
	"\t}\n"
	"\tfprintf(stderr, \"no such OpenCL device\\n\");\n"
	"fail:\n"
	"\treturn -1;\n"
	"}\n"
	"\n"
	"/* Deterministic test data: splitmix64, uniform in [lo, hi). */\n"
	"static double next_uniform(uint64_t *state, double lo, double hi)\n"
	"{\n"
	"\tuint64_t z = (*state += 0x9e3779b97f4a7c15u);\n"
	"\tz = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;\n"
	"\tz = (z ^ (z >> 27)) * 0x94d049bb133111ebu;\n"
	"\tz ^= z >> 31;\n"
	"\treturn lo + (hi - lo) * (double)(z >> 11) * (1.0 / 9007199254740992.0);\n"
	"}\n"
	"\n"
	"static int write_file(const char *dir, const char *name, const void *data, size_t size)\n"
	"{\n"
	"\tchar path[4096];\n"
	"\tsnprintf(path, sizeof path, \"%s/%s\", dir, name);\n"
	"\tFILE *f = fopen(path, \"wb\");\n"
	"\tint ok = f && fwrite(data, 1, size, f) == size;\n"
	"\tif (f)\n"
	"\t\tok = fclose(f) == 0 && ok;\n"
	"\tif (!ok)\n"
	"\t\tfprintf(stderr, \"%s: cannot write\\n\", path);\n"
	"\treturn ok ? 0 : -1;\n"
	"}\n"
	"\n";

struct prog {
	FILE *f;
	const struct tune_variant *v;
	char fn[96];      /* the kernel's name as a C prefix */
	char up[96];      /* upper case, for constants */
	char (*names)[64];
};

static void param_list(struct prog *p, bool with_types)
{
	const struct tune_variant *v = p->v;
	for (int i = 0; i < v->nargs; i++) {
		const struct tune_arg *a = &v->args[i];
		if (a->kind == TUNE_ARG_LOCAL)
			continue;
		fputs(",\n\t", p->f);
		if (with_types)
			fprintf(p->f, "%s ", a->kind == TUNE_ARG_BUFFER ? "cl_mem" : cl_type(a->type));
		fputs(p->names[i], p->f);
	}
}

static void emit_build(struct prog *p)
{
	FILE *f = p->f;
	fprintf(f, "/* Builds the tuned program for one device and creates its kernels, in\n"
	           " * the order they run.  0, or -1 (the build log goes to stderr). */\n"
	           "int %s_build(cl_context context, cl_device_id device, cl_kernel kernels[%s_NKERNELS])\n{\n",
	        p->fn, p->up);
	fputs("\tcl_int err = CL_SUCCESS;\n"
	      "\tconst char *source = tuned_source;\n"
	      "\tcl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);\n"
	      "\tCHECK(err);\n", f);
	fprintf(f, "\terr = clBuildProgram(program, 1, &device, %s_OPTIONS, NULL, NULL);\n", p->up);
	fputs("\tif (err == CL_BUILD_PROGRAM_FAILURE) {\n"
	      "\t\tsize_t n = 0;\n"
	      "\t\tclGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);\n"
	      "\t\tchar *log = malloc(n + 1);\n"
	      "\t\tif (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {\n"
	      "\t\t\tlog[n] = 0;\n"
	      "\t\t\tfprintf(stderr, \"%s\\n\", log);\n"
	      "\t\t}\n"
	      "\t\tfree(log);\n"
	      "\t}\n"
	      "\tCHECK(err);\n", f);
	fprintf(f, "\tfor (int k = 0; k < %s_NKERNELS; k++) {\n"
	           "\t\tkernels[k] = clCreateKernel(program, %s_KERNELS[k], &err);\n"
	           "\t\tCHECK(err);\n\t}\n", p->up, p->up);
	fputs("\t/* The kernels keep the program alive. */\n"
	      "\tCHECK(clReleaseProgram(program));\n"
	      "\treturn 0;\n"
	      "fail:\n"
	      "\tif (program)\n"
	      "\t\tclReleaseProgram(program);\n"
	      "\treturn -1;\n}\n\n", f);
}

/* clSetKernelArg of argument i of the variant, as the kernel's j-th. */
static void emit_set_arg(struct prog *p, const char *ind, const char *kernel, int j, int i)
{
	const struct tune_arg *a = &p->v->args[i];
	if (a->kind == TUNE_ARG_LOCAL)
		fprintf(p->f, "%sCHECK(clSetKernelArg(%s, %d, %" PRIu64 " * sizeof(%s), NULL)); /* __local */\n", ind,
		        kernel, j, a->count, cl_type(a->type));
	else
		fprintf(p->f, "%sCHECK(clSetKernelArg(%s, %d, sizeof %s, &%s));\n", ind, kernel, j, p->names[i],
		        p->names[i]);
}

/* The comment, then `int NAME_launch(queue, kernels, the arguments, runs)` and its `{`. */
static void emit_launch_head(struct prog *p, const char *comment)
{
	fprintf(p->f, "%sint %s_launch(cl_command_queue queue, const cl_kernel kernels[%s_NKERNELS]", comment, p->fn,
	        p->up);
	param_list(p, true);
	fprintf(p->f, ",\n\tcl_event runs[%s_NKERNELS])\n{\n", p->up);
}

static void emit_launch(struct prog *p)
{
	FILE *f = p->f;
	const struct tune_variant *v = p->v;
	emit_launch_head(p, "/* Sets the arguments of each kernel, in the kernel's order, and enqueues\n"
	                    " * one run of each with the tuned sizes; runs (may be NULL) gets the\n"
	                    " * runs' events. */\n");
	fprintf(f, "\tfor (int k = 0; k < %s_NKERNELS; k++) {\n", p->up);
	for (int i = 0; i < v->nargs; i++)
		emit_set_arg(p, "\t\t", "kernels[k]", i, i);
	char local[112] = "NULL";
	if (v->local[0])
		snprintf(local, sizeof local, "%s_LOCAL", p->up);
	fprintf(f, "\t\tCHECK(clEnqueueNDRangeKernel(queue, kernels[k], %d, NULL, %s_GLOBAL, %s,\n"
	           "\t\t                             0, NULL, runs ? &runs[k] : NULL));\n\t}\n",
	        v->work_dim, p->up, local);
	fputs("\treturn 0;\nfail:\n\treturn -1;\n}\n\n", f);
}

/* The same for kernels with sizes and arguments of their own (variant.h,
 * tune_step): each kernel gets its arguments and its sizes, in order. */
static void emit_launch_steps(struct prog *p)
{
	FILE *f = p->f;
	const struct tune_variant *v = p->v;
	emit_launch_head(p, "/* Sets the arguments of each kernel, in the kernel's order, and enqueues\n"
	                    " * one run of each with its tuned sizes, in order: a buffer passed to two\n"
	                    " * kernels carries what the first wrote to the second.  runs (may be\n"
	                    " * NULL) gets the runs' events. */\n");
	const char *name = v->kernel_name;
	for (int k = 0; k < v->nsteps; k++) {
		const struct tune_step *st = &v->steps[k];
		size_t nl = strcspn(name, ",");
		fprintf(f, "\t/* %.*s */\n", (int)nl, name);
		name += name[nl] ? nl + 1 : nl;
		char kernel[32];
		snprintf(kernel, sizeof kernel, "kernels[%d]", k);
		for (int j = 0; j < st->nargs; j++)
			emit_set_arg(p, "\t", kernel, j, st->arg_index[j]);
		char local[136] = "NULL";
		if (st->local[0])
			snprintf(local, sizeof local, "%s_LOCAL_%d", p->up, k);
		fprintf(f, "\tCHECK(clEnqueueNDRangeKernel(queue, kernels[%d], %d, NULL, %s_GLOBAL_%d, %s,\n"
		           "\t                             0, NULL, runs ? &runs[%d] : NULL));\n",
		        k, st->work_dim, p->up, k, local, k);
	}
	fputs("\treturn 0;\nfail:\n\treturn -1;\n}\n\n", f);
}

/* NAME_GLOBAL[SUFFIX] and NAME_LOCAL[SUFFIX] (none without a work-group size). */
static void emit_sizes(struct prog *p, const char *suffix, int dim, const size_t *global, const size_t *local)
{
	FILE *f = p->f;
	fprintf(f, "static const size_t %s_GLOBAL%s[%d] = {", p->up, suffix, dim);
	for (int d = 0; d < dim; d++)
		fprintf(f, "%s%zu", d ? ", " : " ", global[d]);
	fputs(" };\n", f);
	if (local[0]) {
		fprintf(f, "static const size_t %s_LOCAL%s[%d] = {", p->up, suffix, dim);
		for (int d = 0; d < dim; d++)
			fprintf(f, "%s%zu", d ? ", " : " ", local[d]);
		fputs(" };\n", f);
	} else {
		fputs("/* No work-group size: the driver chooses. */\n", f);
	}
}

/*
 * Names for the arguments of a code whose kernels take arguments of their
 * own: each scalar after its kernel's parameter, each buffer after the
 * first kernel that takes it (else the .space file's names).  False when
 * a kernel's declaration is not found.
 */
static bool step_param_names(const struct tune_variant *v, char (*names)[64])
{
	const char *name = v->kernel_name;
	bool found = true;
	for (int k = 0; k < v->nsteps; k++) {
		const struct tune_step *st = &v->steps[k];
		char fn[96];
		size_t nl = strcspn(name, ",");
		snprintf(fn, sizeof fn, "%.*s", (int)nl, name);
		name += name[nl] ? nl + 1 : nl;
		char (*mine)[64] = calloc((size_t)st->nargs + 1, sizeof *mine);
		bool ok = mine && kernel_param_names(v->source, fn, st->nargs, mine);
		for (int j = 0; ok && j < st->nargs; j++)
			if (!names[st->arg_index[j]][0])
				snprintf(names[st->arg_index[j]], 64, "%s", mine[j]);
		found = found && ok;
		free(mine);
	}
	return found;
}

static const char *init_comment(const struct tune_arg *a, char *buf, size_t n)
{
	switch (a->init.kind) {
	case TUNE_INIT_ZEROS: return "zeros";
	case TUNE_INIT_CONST: snprintf(buf, n, "constant %g", a->init.value); return buf;
	case TUNE_INIT_RANDOM:
		snprintf(buf, n, "uniform in [%g, %g)", a->init.lo, a->init.hi);
		return buf;
	case TUNE_INIT_FILE: return "from a file";
	}
	return "";
}

/* With -o DIR, the program writes each buffer to DIR/NAME.SUFFIX. */
static void emit_dump_buffers(struct prog *p, const char *suffix)
{
	const struct tune_variant *v = p->v;
	for (int i = 0; i < v->nargs; i++)
		if (v->args[i].kind == TUNE_ARG_BUFFER)
			fprintf(p->f, "\t\tif (write_file(dump, \"%s.%s\", host_%s, %" PRIu64 " * sizeof *host_%s) != 0)\n"
			              "\t\t\tgoto fail;\n",
			        p->names[i], suffix, p->names[i], v->args[i].count, p->names[i]);
}

static void emit_main(struct prog *p)
{
	FILE *f = p->f;
	const struct tune_variant *v = p->v;
	fputs("#ifndef TUNED_NO_MAIN\n"
	      "/*\n"
	      " * Runs the kernel once on test data (the tune section's initial values,\n"
	      " * its random ones from a generator of this file's own) and prints the\n"
	      " * kernel's time.  -p N, -d N: the platform and device indices.  -o DIR:\n"
	      " * write DIR/args.txt (one line per argument) and each buffer's contents\n"
	      " * before (DIR/NAME.in) and after (DIR/NAME.out) the run.\n"
	      " */\n"
	      "int main(int argc, char **argv)\n{\n"
	      "\tint platform = -1, device_index = -1;\n"
	      "\tconst char *dump = NULL;\n"
	      "\tfor (int i = 1; i + 1 < argc; i += 2) {\n"
	      "\t\tif (strcmp(argv[i], \"-p\") == 0)\n"
	      "\t\t\tplatform = atoi(argv[i + 1]);\n"
	      "\t\telse if (strcmp(argv[i], \"-d\") == 0)\n"
	      "\t\t\tdevice_index = atoi(argv[i + 1]);\n"
	      "\t\telse if (strcmp(argv[i], \"-o\") == 0)\n"
	      "\t\t\tdump = argv[i + 1];\n"
	      "\t}\n"
	      "\tint status = 1;\n"
	      "\tcl_int err = CL_SUCCESS;\n"
	      "\tcl_device_id device;\n"
	      "\tcl_context context = NULL;\n"
	      "\tcl_command_queue queue = NULL;\n", f);
	fprintf(f, "\tcl_kernel kernels[%s_NKERNELS] = { NULL };\n"
	           "\tcl_event runs[%s_NKERNELS] = { NULL };\n", p->up, p->up);
	for (int i = 0; i < v->nargs; i++) {
		const struct tune_arg *a = &v->args[i];
		if (a->kind == TUNE_ARG_SCALAR) {
			fprintf(f, "\t%s %s = ", cl_type(a->type), p->names[i]);
			c_scalar(f, a);
			fputs(";\n", f);
		} else if (a->kind == TUNE_ARG_BUFFER) {
			fprintf(f, "\t%s *host_%s = NULL;\n\tcl_mem %s = NULL;\n", cl_type(a->type), p->names[i],
			        p->names[i]);
		}
	}
	fputs("\tif (pick_device(platform, device_index, &device) != 0)\n"
	      "\t\treturn 1;\n"
	      "\tcontext = clCreateContext(NULL, 1, &device, NULL, NULL, &err);\n"
	      "\tCHECK(err);\n"
	      "\tqueue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);\n"
	      "\tCHECK(err);\n", f);
	/* host data */
	for (int i = 0; i < v->nargs; i++) {
		const struct tune_arg *a = &v->args[i];
		if (a->kind != TUNE_ARG_BUFFER)
			continue;
		const char *n = p->names[i];
		char why[96];
		fprintf(f, "\n\t/* %s: %" PRIu64 " x %s, %s", n, a->count, tune_type_name(a->type),
		        a->access == TUNE_IN ? "in" : a->access == TUNE_OUT ? "out" : "inout");
		if (a->access != TUNE_OUT)
			fprintf(f, ", %s", init_comment(a, why, sizeof why));
		fputs(" */\n", f);
		fprintf(f, "\thost_%s = calloc(%" PRIu64 ", sizeof *host_%s);\n", n, a->count, n);
		fprintf(f, "\tif (!host_%s) {\n\t\tfprintf(stderr, \"out of memory\\n\");\n\t\tgoto fail;\n\t}\n", n);
		if (a->access == TUNE_OUT || a->init.kind == TUNE_INIT_ZEROS)
			continue;
		if (a->init.kind == TUNE_INIT_FILE) {
			fputs("\t{\n\t\tFILE *in = fopen(", f);
			c_string_lines(f, a->init.path, "");
			fputs(", \"rb\");\n", f);
			fprintf(f, "\t\tsize_t got = in ? fread(host_%s, sizeof *host_%s, %" PRIu64 ", in) : 0;\n"
			           "\t\tif (in)\n\t\t\tfclose(in);\n"
			           "\t\tif (got != %" PRIu64 ") {\n"
			           "\t\t\tfprintf(stderr, \"cannot read the data of %s\\n\");\n"
			           "\t\t\tgoto fail;\n\t\t}\n\t}\n", n, n, a->count, a->count, n);
			continue;
		}
		fputs("\t{\n", f);
		if (a->init.kind == TUNE_INIT_RANDOM)
			fprintf(f, "\t\tuint64_t seed = %" PRIu64 "u;\n", a->init.seed);
		fprintf(f, "\t\tfor (size_t i = 0; i < %" PRIu64 "; i++)\n\t\t\thost_%s[i] = (%s)", a->count, n,
		        cl_type(a->type));
		if (a->init.kind == TUNE_INIT_RANDOM)
			fprintf(f, "next_uniform(&seed, %.17g, %.17g);\n", a->init.lo, a->init.hi);
		else
			fprintf(f, "%.17g;\n", a->init.value);
		fputs("\t}\n", f);
	}
	/* buffers on the device */
	fputs("\n", f);
	for (int i = 0; i < v->nargs; i++) {
		const struct tune_arg *a = &v->args[i];
		if (a->kind != TUNE_ARG_BUFFER)
			continue;
		const char *flags = a->access == TUNE_IN ? "CL_MEM_READ_ONLY" : a->access == TUNE_OUT
		                    ? "CL_MEM_WRITE_ONLY" : "CL_MEM_READ_WRITE";
		fprintf(f, "\t%s = clCreateBuffer(context, %s | CL_MEM_COPY_HOST_PTR,\n"
		           "\t\t%" PRIu64 " * sizeof *host_%s, host_%s, &err);\n\tCHECK(err);\n",
		        p->names[i], flags, a->count, p->names[i], p->names[i]);
	}
	fputs("\tif (dump) {\n"
	      "\t\tchar path[4096];\n"
	      "\t\tsnprintf(path, sizeof path, \"%s/args.txt\", dump);\n"
	      "\t\tFILE *list = fopen(path, \"w\");\n"
	      "\t\tif (!list) {\n\t\t\tfprintf(stderr, \"%s: cannot write\\n\", path);\n\t\t\tgoto fail;\n\t\t}\n", f);
	for (int i = 0; i < v->nargs; i++) {
		const struct tune_arg *a = &v->args[i];
		const char *n = p->names[i];
		if (a->kind == TUNE_ARG_LOCAL)
			fprintf(f, "\t\tfprintf(list, \"local %s %" PRIu64 "\\n\");\n", tune_type_name(a->type),
			        a->count);
		else if (a->kind == TUNE_ARG_SCALAR)
			fprintf(f, "\t\tfprintf(list, \"scalar %s %%.17g\\n\", (double)%s);\n",
			        tune_type_name(a->type), n);
		else
			fprintf(f, "\t\tfprintf(list, \"buffer %s %s %" PRIu64 " %s\\n\");\n", tune_type_name(a->type),
			        a->access == TUNE_IN ? "in" : a->access == TUNE_OUT ? "out" : "inout", a->count, n);
	}
	fputs("\t\tif (fclose(list) != 0)\n\t\t\tgoto fail;\n", f);
	emit_dump_buffers(p, "in");
	fputs("\t}\n\n", f);
	fprintf(f, "\tif (%s_build(context, device, kernels) != 0)\n\t\tgoto fail;\n", p->fn);
	fprintf(f, "\tif (%s_launch(queue, kernels", p->fn);
	param_list(p, false);
	fputs(", runs) != 0)\n\t\tgoto fail;\n", f);
	for (int i = 0; i < v->nargs; i++) {
		const struct tune_arg *a = &v->args[i];
		if (a->kind == TUNE_ARG_BUFFER && a->access != TUNE_IN)
			fprintf(f, "\tCHECK(clEnqueueReadBuffer(queue, %s, CL_TRUE, 0,\n"
			           "\t\t%" PRIu64 " * sizeof *host_%s, host_%s, 0, NULL, NULL));\n",
			        p->names[i], a->count, p->names[i], p->names[i]);
	}
	fputs("\tCHECK(clFinish(queue));\n"
	      "\tcl_ulong start = 0, end = 0;\n"
	      "\t/* from the start of the first kernel to the end of the last */\n"
	      "\tCHECK(clGetEventProfilingInfo(runs[0], CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));\n", f);
	fprintf(f, "\tCHECK(clGetEventProfilingInfo(runs[%s_NKERNELS - 1], CL_PROFILING_COMMAND_END, sizeof end, &end,\n"
	           "\t                              NULL));\n", p->up);
	fprintf(f, "\tprintf(\"%s: %%.4f ms\\n\", (double)(end - start) * 1e-6);\n", v->kernel_name);
	fputs("\tif (dump) {\n", f);
	emit_dump_buffers(p, "out");
	fputs("\t}\n\tstatus = 0;\nfail:\n", f);
	fprintf(f, "\tfor (int k = 0; k < %s_NKERNELS; k++) {\n", p->up);
	fputs("\t\tif (runs[k])\n\t\t\tclReleaseEvent(runs[k]);\n"
	      "\t\tif (kernels[k])\n\t\t\tclReleaseKernel(kernels[k]);\n\t}\n", f);
	for (int i = 0; i < v->nargs; i++)
		if (v->args[i].kind == TUNE_ARG_BUFFER)
			fprintf(f, "\tif (%s)\n\t\tclReleaseMemObject(%s);\n\tfree(host_%s);\n", p->names[i],
			        p->names[i], p->names[i]);
	fputs("\tif (queue)\n\t\tclReleaseCommandQueue(queue);\n"
	      "\tif (context)\n\t\tclReleaseContext(context);\n"
	      "\treturn status;\n}\n#endif\n", f);
}

int tune_host_program_text(const struct tune_variant *v, const char *about, const char *source_name,
                           char **text, char **bad)
{
	*text = NULL;
	*bad = NULL;
	for (int i = 0; i < v->nargs; i++)
		if (v->args[i].type == TUNE_HALF) {
			*bad = strdup("a half argument (the program has no half arithmetic on the host)");
			return 1;
		}
	size_t len = 0;
	struct prog p = { .v = v };
	p.f = open_memstream(text, &len);
	p.names = calloc((size_t)v->nargs + 1, sizeof *p.names);
	if (!p.f || !p.names) {
		if (p.f)
			fclose(p.f);
		free(p.names);
		free(*text);
		*text = NULL;
		return 1;
	}
	FILE *f = p.f;
	snprintf(p.fn, sizeof p.fn, "%.*s", (int)strcspn(v->kernel_name, ","), v->kernel_name);
	for (char *c = p.fn; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	upper(p.up, sizeof p.up, p.fn);
	/* the kernel's own parameter names, else the buffers' names in the
	 * .space file and argN */
	bool from_kernel = v->nsteps ? step_param_names(v, p.names)
	                   : kernel_param_names(v->source, p.fn, v->nargs, p.names);
	for (int i = 0; i < v->nargs; i++) {
		if (!from_kernel)
			arg_name(p.names[i], sizeof p.names[i], &v->args[i], i);
		else if (strncmp(p.names[i], "host_", 5) == 0 || strncmp(p.names[i], "arg", 3) == 0 ||
		         ours(p.names[i]))
			snprintf(p.names[i], sizeof p.names[i], "arg%d", i);
		/* two buffers whose names differ only in punctuation */
		for (int j = 0; j < i; j++)
			if (strcmp(p.names[i], p.names[j]) == 0)
				snprintf(p.names[i], sizeof p.names[i], "arg%d", i);
	}
	comment_block(f, about);
	fprintf(f, "/*\n * Build: cc -O2 -Wall -Wextra -o %s %s.c -lOpenCL\n"
	           " * Use %s_build() and %s_launch() from a program of your own with\n"
	           " * -DTUNED_NO_MAIN; main() below shows how.\n */\n", p.fn, p.fn, p.fn, p.fn);
	fputs(prologue, f);
	/* the source and the tuned values */
	fputs("/* The kernel source with the tuned parameters written in as #defines", f);
	if (source_name) {
		fputs(" (the same\n * text as ", f);
		tune_comment_text(f, source_name);
		fputc(')', f);
	}
	fputs(". */\nstatic const char tuned_source[] =\n", f);
	char *src = NULL, *why = NULL;
	if (tune_host_source_text(v, about, &src, &why) != 0) {
		*bad = why;
		fclose(f);
		free(p.names);
		free(*text);
		*text = NULL;
		return 1;
	}
	c_string_lines(f, src, "\t");
	fputs(";\n\n", f);
	free(src);
	/* the options that are not defines */
	char *rest = NULL;
	FILE *sink = fopen("/dev/null", "w");
	if (sink) {
		rest = tune_defines_to_c(sink, v->build_options, &why);
		fclose(sink);
	}
	free(why);
	fprintf(f, "/* Build options other than the tuned defines. */\n#define %s_OPTIONS \"", p.up);
	for (const char *c = rest ? rest : ""; *c; c++)
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if ((unsigned char)*c >= 0x20)
			fputc(*c, f);
	fputs("\"\n", f);
	free(rest);
	if (!v->nsteps)
		fprintf(f, "/* The tuned NDRange: %d dimension%s. */\n", v->work_dim, v->work_dim > 1 ? "s" : "");
	int nk = 1;
	for (const char *c = v->kernel_name; *c; c++)
		nk += *c == ',';
	fprintf(f, "/* The kernels, run in this order%s. */\n"
	           "#define %s_NKERNELS %d\nstatic const char *const %s_KERNELS[%s_NKERNELS] = { \"",
	        v->nsteps ? "" : " on the same arguments", p.up, nk, p.up, p.up);
	for (const char *c = v->kernel_name; *c; c++)
		if (*c == ',')
			fputs("\", \"", f);
		else
			fputc(*c, f);
	fputs("\" };\n", f);
	if (!v->nsteps)
		emit_sizes(&p, "", v->work_dim, v->global, v->local);
	for (int k = 0; k < v->nsteps; k++) {
		char suffix[16];
		snprintf(suffix, sizeof suffix, "_%d", k);
		fprintf(f, "/* The tuned NDRange of kernel %d: %d dimension%s. */\n", k, v->steps[k].work_dim,
		        v->steps[k].work_dim > 1 ? "s" : "");
		emit_sizes(&p, suffix, v->steps[k].work_dim, v->steps[k].global, v->steps[k].local);
	}
	fputc('\n', f);
	/* prototypes, for -Wmissing-prototypes in a user's build */
	fprintf(f, "int %s_build(cl_context context, cl_device_id device, cl_kernel kernels[%s_NKERNELS]);\n",
	        p.fn, p.up);
	fprintf(f, "int %s_launch(cl_command_queue queue, const cl_kernel kernels[%s_NKERNELS]", p.fn, p.up);
	param_list(&p, true);
	fprintf(f, ",\n\tcl_event runs[%s_NKERNELS]);\n\n", p.up);
	emit_build(&p);
	if (v->nsteps)
		emit_launch_steps(&p);
	else
		emit_launch(&p);
	emit_main(&p);
	free(p.names);
	if (fclose(f) != 0) {
		free(*text);
		*text = NULL;
		return 1;
	}
	return 0;
}

/* ---- from the database line to the variant ------------------------------------------ */

static int query_props(void *user, const char *query, int64_t *value)
{
	return tune_device_props_get(user, query, value);
}

static const char *line_str(struct json_object *o, const char *name)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, name, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The point whose parameters have exactly the line's values (their JSON
 * texts, as the database wrote them), or -1. */
static long find_point(struct tune_job *job, struct json_object *params)
{
	int np = tune_job_nparams(job);
	double *values = calloc((size_t)np + 1, sizeof *values);
	const char **want = calloc((size_t)np + 1, sizeof *want);
	long found = -1;
	bool numeric = values && want;
	for (int p = 0; numeric && p < np; p++) {
		struct json_object *x = json_object_object_get(params, tune_job_param_name(job, p));
		if (!x) {
			numeric = false;
			np = -1;  /* the line is of another space */
			break;
		}
		want[p] = json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN);
		enum json_type t = json_object_get_type(x);
		if (t == json_type_int || t == json_type_double || t == json_type_boolean)
			values[p] = json_object_get_double(x);
		else
			numeric = false;
	}
	if (np >= 0 && numeric) {
		found = tune_job_find_point(job, values);
	} else if (np >= 0 && values && want) {
		/* a string parameter: compare the texts point by point */
		size_t n = tune_job_npoints(job);
		for (size_t i = 0; i < n && found < 0; i++) {
			struct tune_variant v;
			const char *why;
			if (tune_job_variant(job, i, &v, &why) != 0)
				continue;
			bool same = true;
			for (int p = 0; p < np && same; p++)
				same = strcmp(v.param_values[p], want[p]) == 0;
			if (same)
				found = (long)i;
		}
	}
	free(values);
	free(want);
	return found;
}

int tune_host_emit(const struct tune_host_opts *o)
{
	struct json_object *l = o->best;
	int status = 1;
	/* The problem's bindings, as the run had them ("M=64 N=64"). */
	const char *problem = line_str(l, "problem");
	char *copy = strdup(problem ? problem : "");
	const char **sets = calloc(strlen(copy ? copy : "") / 2 + 2, sizeof *sets);
	int nsets = 0;
	struct tune_device_props *props = NULL;
	struct tune_job *job = NULL;
	char *text = NULL, *bad = NULL, *about = NULL;
	if (!copy || !sets)
		goto out;
	char *save = NULL;
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		sets[nsets++] = t;
	/* The device's queries, when the device the line names is here; else
	 * the defaults of the file, and the point may not be in that space. */
	struct tune_device_sel sel = { .platform = line_str(l, "platform"), .device = line_str(l, "device") };
	char *err = NULL;
	if (tune_device_props_read(&sel, &props, &err) != 0) {
		fprintf(o->err, "spacetune: note: device '%s' is not here (%s); its queries take "
		        "the file's defaults\n", sel.device ? sel.device : "?", err ? err : "no OpenCL");
		free(err);
		props = NULL;
	}
	struct tune_job_opts jo = {
		.space_path = o->space_path, .nsets = nsets, .sets = sets,
		.query = props ? query_props : NULL, .query_user = props, .diag = o->err,
	};
	int rc = tune_job_load(&jo, &job);
	if (rc != 0) {
		if (rc < 0)
			fprintf(o->err, "spacetune: error: out of memory loading '%s'\n", o->space_path);
		goto out;
	}
	const char *hash = line_str(l, "source_hash");
	if (hash && strcmp(hash, tune_job_source_hash(job)) != 0)
		fprintf(o->err, "spacetune: warning: '%s' or its kernel changed since it was tuned "
		        "(source hash %s, was %s)\n", o->space_path, tune_job_source_hash(job), hash);
	long point = find_point(job, json_object_object_get(l, "params"));
	if (point < 0) {
		fprintf(o->err, "spacetune: error: the best configuration is not a point of '%s' as "
		        "loaded here (another space, problem or device?)\n", o->space_path);
		goto out;
	}
	struct tune_variant v;
	const char *why = NULL;
	if (tune_job_variant(job, (size_t)point, &v, &why) != 0) {
		fprintf(o->err, "spacetune: error: the best configuration cannot be launched: %s\n", why);
		goto out;
	}
	/* what the comments say about where the files came from */
	size_t alen = 0;
	FILE *a = open_memstream(&about, &alen);
	if (!a)
		goto out;
	fprintf(a, "Kernel '%s' of '%s', tuned by spacetune on\n%s (%s, driver %s)", v.kernel_name,
	        o->space_path, line_str(l, "device") ? line_str(l, "device") : "?",
	        line_str(l, "platform") ? line_str(l, "platform") : "?",
	        line_str(l, "driver") ? line_str(l, "driver") : "?");
	struct json_object *t, *m;
	if (json_object_object_get_ex(l, "time_ms", &t) && json_object_object_get_ex(t, "median", &m) && m)
		fprintf(a, ": median %.6g ms", json_object_get_double(m));
	fputs(".\n", a);
	if (problem)
		fprintf(a, "Problem: %s.\n", problem);
	fputs("Parameters:", a);
	for (int p = 0; p < v.nparams; p++)
		fprintf(a, " %s=%s", v.param_names[p], v.param_values[p]);
	fprintf(a, ".\nGenerated by 'spacetune best' from %s.\n", o->db_path);
	if (fclose(a) != 0)
		goto out;
	if (o->source_path) {
		if (tune_host_source_text(&v, about, &text, &bad) != 0 ||
		    tune_write_whole(o->source_path, text, o->err) != 0)
			goto failed;
		free(text);
		text = NULL;
	}
	if (o->host_path) {
		if (tune_host_program_text(&v, about, o->source_path, &text, &bad) != 0 ||
		    tune_write_whole(o->host_path, text, o->err) != 0)
			goto failed;
	}
	status = 0;
	goto out;
failed:
	if (bad)
		fprintf(o->err, "spacetune: error: cannot write the best configuration as C: %s\n", bad);
out:
	free(text);
	free(bad);
	free(about);
	if (job)
		tune_job_free(job);
	if (props)
		tune_device_props_free(props);
	free(sets);
	free(copy);
	return status;
}
