/*
 * status_stub.h - tune_status_name for unit tests that link tuner/db.c
 * without the evaluator (tuner/eval.c), which names statuses: the names
 * below are the contract's (TUNE-SPEC), not copied from eval.c's table.
 */
#ifndef SPACEC_TESTS_UNIT_STATUS_STUB_H
#define SPACEC_TESTS_UNIT_STATUS_STUB_H
#include "tuner/eval.h"

const char *tune_status_name(enum tune_status s)
{
	static const char *const names[] = { "ok", "build_error", "launch_error", "wrong_result",
	                                     "timeout", "crashed", "skipped" };
	return names[s];
}
#endif
