/*
 * ktexport.h - `spacetune export --kt-cache / --t4`: one tuning problem's
 * records in Kernel Tuner's formats, so its strategies can replay the
 * same ground truth (simulation_mode=True with cache=).  Owner:
 * tuner/ktexport.c; the formats are described in docs/TUNING.md.
 *
 * The records are those of one space, device and problem (chosen with
 * space/device/problem when the inputs hold several), of the newest
 * source hash among them, the latest line for a configuration winning.
 *
 * The cache file is Kernel Tuner's (kernel_tuner/util.py, process_cache):
 * device_name, kernel_name, tune_params_keys (the record's parameter
 * order), tune_params (the values recorded), objective "time", and
 * "cache", keyed by the values joined with "," as Python's str() prints
 * them.  An entry holds the parameters, "time" (the median in ms, or
 * Kernel Tuner's error names: CompilationFailedConfig for a build error,
 * InvalidConfig for a skipped point, RuntimeFailedConfig for any other
 * failure, a wrong result included), the metrics, and compile_time and
 * benchmark_time in ms from build_s and device_s, which its simulation
 * clock adds up.  The T4 file is the "Open Autotuning Results Schema"
 * 1.0.0 (kernel_tuner/schema/T4): every record with its validity
 * (correct, compile, runtime, timeout, correctness, constraints).
 */
#ifndef SPACEC_TUNER_KTEXPORT_H
#define SPACEC_TUNER_KTEXPORT_H

#include <stdio.h>

#include "tuner/db.h"

struct tune_kt_opts {
	const char *const *inputs;  /* results databases */
	int ninputs;
	const char *cache_path;     /* Kernel Tuner cache file, or NULL */
	const char *t4_path;        /* T4 results file, or NULL */
	struct tune_select select;  /* the records exported */
	FILE *out, *err;
};

/* 0; 1 on an error (reported on err): unreadable, nothing selected, or
 * several problems and no selection. */
int tune_export_kt(const struct tune_kt_opts *o);

#endif
