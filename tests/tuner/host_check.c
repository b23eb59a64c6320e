/*
 * host_check.c - the oracle of tests/tuner/host.sh: runs a C reference
 * (tuner/variant.h's ABI; compiled in with -DREF=name) on the inputs a
 * program from `spacetune best --host` wrote with -o DIR, and compares
 * what the kernel wrote with what the reference computes.
 *
 *   host_check DIR REL ABS     exit 0 when every out/inout element agrees
 *
 * DIR/args.txt has one line per kernel argument: "scalar TYPE VALUE",
 * "local TYPE COUNT" or "buffer TYPE ACCESS COUNT NAME", with the buffer's
 * contents before the run in DIR/NAME.in and after it in DIR/NAME.out.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int REF(int nargs, void **args);

enum { MAX_ARGS = 64 };

static size_t type_size(const char *t)
{
	if (!strcmp(t, "char") || !strcmp(t, "uchar"))
		return 1;
	if (!strcmp(t, "short") || !strcmp(t, "ushort") || !strcmp(t, "half"))
		return 2;
	if (!strcmp(t, "int") || !strcmp(t, "uint") || !strcmp(t, "float"))
		return 4;
	return 8;
}

static double element(const char *t, const void *p, size_t i)
{
	if (!strcmp(t, "float"))
		return ((const float *)p)[i];
	if (!strcmp(t, "double"))
		return ((const double *)p)[i];
	if (!strcmp(t, "int"))
		return ((const int32_t *)p)[i];
	if (!strcmp(t, "uint"))
		return ((const uint32_t *)p)[i];
	if (!strcmp(t, "long"))
		return (double)((const int64_t *)p)[i];
	if (!strcmp(t, "ulong"))
		return (double)((const uint64_t *)p)[i];
	if (!strcmp(t, "short"))
		return ((const int16_t *)p)[i];
	if (!strcmp(t, "ushort"))
		return ((const uint16_t *)p)[i];
	if (!strcmp(t, "char"))
		return ((const int8_t *)p)[i];
	return ((const uint8_t *)p)[i];
}

static void *load(const char *dir, const char *name, const char *ext, size_t size)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
	FILE *f = fopen(path, "rb");
	void *p = calloc(size ? size : 1, 1);
	if (!f || !p || fread(p, 1, size, f) != size) {
		fprintf(stderr, "host_check: %s: cannot read %zu bytes\n", path, size);
		exit(2);
	}
	fclose(f);
	return p;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fputs("usage: host_check DIR REL ABS\n", stderr);
		return 2;
	}
	const char *dir = argv[1];
	double rel = atof(argv[2]), abs_tol = atof(argv[3]);
	char path[4096], kind[16], type[16], access[16], name[256];
	snprintf(path, sizeof path, "%s/args.txt", dir);
	FILE *list = fopen(path, "r");
	if (!list) {
		fprintf(stderr, "host_check: %s: cannot read\n", path);
		return 2;
	}
	void *args[MAX_ARGS] = { 0 }, *kernel_out[MAX_ARGS] = { 0 };
	char types[MAX_ARGS][16];
	size_t counts[MAX_ARGS] = { 0 };
	char names[MAX_ARGS][256];
	int nargs = 0;
	while (nargs < MAX_ARGS && fscanf(list, "%15s %15s", kind, type) == 2) {
		snprintf(types[nargs], sizeof types[nargs], "%s", type);
		if (!strcmp(kind, "scalar")) {
			double x;
			if (fscanf(list, "%lf", &x) != 1)
				return 2;
			union { int8_t c; int16_t s; int32_t i; int64_t l; float f; double d; } *v = calloc(1, 8);
			size_t n = type_size(type);
			if (!strcmp(type, "float"))
				v->f = (float)x;
			else if (!strcmp(type, "double"))
				v->d = x;
			else if (n == 1)
				v->c = (int8_t)x;
			else if (n == 2)
				v->s = (int16_t)x;
			else if (n == 4)
				v->i = (int32_t)(int64_t)x;
			else
				v->l = (int64_t)x;
			args[nargs] = v;
		} else if (!strcmp(kind, "local")) {
			unsigned long long c;
			if (fscanf(list, "%llu", &c) != 1)
				return 2;
		} else {
			unsigned long long c;
			if (fscanf(list, "%15s %llu %255s", access, &c, name) != 3)
				return 2;
			counts[nargs] = (size_t)c;
			snprintf(names[nargs], sizeof names[nargs], "%s", name);
			args[nargs] = load(dir, name, "in", counts[nargs] * type_size(type));
			if (strcmp(access, "in") != 0)
				kernel_out[nargs] = load(dir, name, "out", counts[nargs] * type_size(type));
		}
		nargs++;
	}
	fclose(list);
	if (REF(nargs, args) != 0) {
		fputs("host_check: the reference failed\n", stderr);
		return 2;
	}
	long bad = 0, compared = 0;
	for (int a = 0; a < nargs; a++) {
		if (!kernel_out[a])
			continue;
		for (size_t i = 0; i < counts[a]; i++) {
			double want = element(types[a], args[a], i), got = element(types[a], kernel_out[a], i);
			compared++;
			if (!(fabs(got - want) <= abs_tol + rel * fabs(want))) {
				if (bad++ < 5)
					fprintf(stderr, "host_check: %s[%zu] = %.9g, the reference says %.9g\n",
					        names[a], i, got, want);
			}
		}
	}
	printf("%ld elements compared, %ld differ\n", compared, bad);
	for (int a = 0; a < nargs; a++) {
		free(args[a]);
		free(kernel_out[a]);
	}
	return bad || !compared ? 1 : 0;
}
