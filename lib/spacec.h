/*
 * spacec.h - the compiler as a library: a .space source, the run's
 * bindings and the compiler's options in, a loaded enumerator or located
 * diagnostics out.  Owner: lib/spacec.c.  spacec (tools/spacec.c),
 * spacetune's job loader (tuner/job.c) and the tests call it; nothing
 * else assembles parse, sema, specialization, cgen and the JIT.
 *
 *   struct spacec_options o;
 *   spacec_options_init(&o);                    -O2, --jit=auto, warnings on
 *   spacec_option(&o, "-O", "1", err, sizeof err); the command line's -O, -f, --jit
 *   struct spacec_unit u;
 *   struct spacec_enumerator e;
 *   if (spacec_compile(&u, "f.space", text, len, &o, &build, stderr, &e) == 0) {
 *           ... e.space (struct sprt_space): sprt_command_run, sprt_ctx ...
 *           spacec_enumerator_release(&e);
 *   }
 *   spacec_unit_release(&u);
 *
 * The steps are callable one by one (spacec dumps, checks and emits
 * between them; the tuner appends its optimizer's parameters to the text
 * between parsing and analysis).
 *
 * Errors: the front end reports located diagnostics to the unit's diag
 * (GNU format, source line and caret) and returns nonzero; spacec_load
 * returns -1 with a malloc'd message in *err for what has no location (the
 * C compiler failed, out of memory).  docs/ARCHITECTURE.md, "Errors".
 */
#ifndef SPACEC_LIB_H
#define SPACEC_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ast.h"
#include "cgen.h"
#include "diag.h"
#include "sema.h"
#include "tools/jit.h"

struct sprt_bindings;
struct interp_binding;

struct spacec_options {
	struct cg_options passes;        /* -O level and -fno- switches (cgen/cg_pass.c) */
	struct jit_options jit;          /* --jit=auto|cc|tcc, -v */
	bool werror, no_warnings;        /* -Werror, -w */
	const char *disabled_warnings;   /* -Wno-NAME...: "a,b" (the caller's string) */
	const char *program;             /* prefix of unlocated diagnostics; NULL: "spacec" */
};

/* -O2, --jit=auto, every warning. */
void spacec_options_init(struct spacec_options *o);
/*
 * One of the compiler's switches, as getopt splits it: `name` "-O" with
 * "0", "1" or "2"; "-f" with a pass switch ("no-cse": cg_set_switch's
 * names); "--jit" with "auto", "cc" or "tcc".  Returns 0 when taken, 1
 * when `name` is none of these, -1 for a bad value (why in err, errlen
 * bytes).  spacec and spacetune read them through it.
 */
int spacec_option(struct spacec_options *o, const char *name, const char *value, char *err, size_t errlen);

/* A source through the front end.  Zero it before the first spacec_parse. */
struct spacec_unit {
	const char *file;                /* names the source in diagnostics */
	const char *src;                 /* the caller's text; must outlive the unit */
	size_t len;
	struct diag diag;                /* located diagnostics, to the stream given */
	struct ast_module mod;
	struct sema_program prog;        /* valid after spacec_analyze returned 0 */
	int syntax_errors;
	bool parsed, analyzed;
	const struct spacec_options *opts;
};

/*
 * Parses `len` bytes of `src` (named `file`) with diagnostics to
 * `diag_out` (NULL: kept in u->diag.buf).  Returns the number of syntax
 * errors.  A unit parsed before is released first.
 */
int spacec_parse(struct spacec_unit *u, const char *file, const char *src, size_t len,
		 const struct spacec_options *o, FILE *diag_out);
/*
 * Checks the parsed unit (sema).  After syntax errors only unknown names
 * are reported.  At -O0 the loops keep BEAST's level-set order.  Returns
 * 0, or 1 after located errors.
 */
int spacec_analyze(struct spacec_unit *u);
void spacec_unit_release(struct spacec_unit *u);
/*
 * The bound values against the types their device parameters and
 * settings declare, by the runtime's one rule (sprt_bindable_check, the
 * check a compiled enumerator makes): each misfit is a located error at
 * its definition in u->diag.  A binding named by one of the `nsets` texts
 * NAME=VALUE came from --set; any other from the --device-profile file
 * `profile` (NULL: not checked, e.g. a device query's answer).
 * `one_problem`: the caller enumerates one problem, so a --set list of
 * values gets a note pointing to spacetune run.  Returns the error count.
 */
int spacec_check_bindings(struct spacec_unit *u, const struct sprt_bindings *b, const char *const *sets, int nsets,
			  const char *profile, bool one_problem);
/*
 * The bindings as the reference interpreter takes them (interp_options),
 * strings interned in the unit's module, so that both paths read the same
 * values: a calloc'd array of b->n (free it), or NULL on OOM.
 */
struct interp_binding *spacec_interp_bindings(struct spacec_unit *u, const struct sprt_bindings *b);

/* What the generated program is for. */
struct spacec_build {
	const struct sprt_bindings *bindings; /* the run's bindings (NULL: none known) */
	bool standalone;          /* spacec emit: a program with main(), bindable to anything */
	bool specialize;          /* fold `bindings` into the program (where the pass is on) */
	const char *output_name;  /* of the C text, for #line; NULL: "<generated>" */
	/* --jit=auto: the enumerator will list every point (a trial count
	 * may find cc worth its build), as the run will (no_soft) */
	bool listing, no_soft;
	bool prefer_cc;           /* --jit=auto: cc whatever the space's shape */
	bool quiet;               /* what cgen refuses is not reported (the caller interprets instead) */
	/* spacec_load: told the C text's size before the build starts (a
	 * progress line's estimate); NULL: nobody */
	void (*building)(void *user, size_t c_bytes);
	void *user;
};

/*
 * The C of the unit into a malloc'd buffer (*len bytes).  NULL after
 * located errors (constructs the compiled path refuses) or on OOM
 * (reported to u->diag).
 */
char *spacec_generate(struct spacec_unit *u, const struct spacec_build *b, size_t *len);

struct spacec_enumerator {
	const struct sprt_space *space;  /* what sprt_command_run and sprt_ctx take */
	const char *backend;             /* "cc", "cc (cached)" or "tcc" */
	double compile_seconds;
	struct jit_handle h;
};

/*
 * Generates the unit's C for a run with b->bindings and loads it: --jit
 * as the options say (auto: a cached cc build, else cc or tcc by the
 * space's shape and, listing, a trial count; tcc where cc fails).
 * Returns 0; 1 after located errors; -1 with a malloc'd message in *err.
 */
int spacec_load(struct spacec_unit *u, const struct spacec_build *b, struct spacec_enumerator *e, char **err);
void spacec_enumerator_release(struct spacec_enumerator *e);

/*
 * The one entry point: parse, analyze, load.  Returns 0 with a loaded
 * enumerator; 1 after located diagnostics (to diag_out); -1 with the
 * reason on diag_out.  Release u in every case.
 */
int spacec_compile(struct spacec_unit *u, const char *file, const char *src, size_t len,
		   const struct spacec_options *o, const struct spacec_build *b, FILE *diag_out,
		   struct spacec_enumerator *e);

#endif
