/*
 * cgen.h - C emission: from a checked program to a readable enumerator.
 *
 * The output is C11 that includes only <spacert.h>.  It defines one
 * exported descriptor, `const struct sprt_space spacec_space`, whose
 * `enumerate` runs the loop nest: iterators in the loop order of dag/order.c,
 * each derived value and constraint at its level (in that order) in
 * prog->defs order, so a rejection skips the whole subtree.  Every
 * definition is preceded by a comment quoting its .space text and a
 * `#line` directive into the .space file, then one back into the C file.
 * With cg_options.standalone (spacec emit) the file also has a main()
 * that calls sprt_main(), unless compiled with -DSPACEC_NO_MAIN.  The same input always gives the same bytes.
 */
#ifndef SPACEC_CGEN_H
#define SPACEC_CGEN_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "sema.h"

struct cg_options {
	const char *source_text;   /* the .space source, for quoting */
	size_t source_len;
	const char *source_name;   /* as written in #line and the header */
	const char *output_name;   /* the C file's name, for #line back out */
	bool line_directives;      /* default true */
	int opt_level;             /* 0: BEAST's level sets only; 2: default */
	/*
	 * The -fno- switches of the passes (cgen/cg_pass.c names them and
	 * says from which -O level each runs); -O0 applies none but typed
	 * values.  Set them with cg_set_switch.
	 */
	bool no_equality;          /* -fno-equality-solving: pin X from X == e, a*X != c, ... */
	bool no_bounds;            /* -fno-bound-tightening: break out of monotone rejections */
	bool no_divisors;          /* -fno-divisor-iteration: c % X, X*Y == c visit divisors only */
	bool no_factorize;         /* -fno-factorization: memoized sub-nests */
	bool no_cse;               /* -fno-cse: common subexpressions (-O2) */
	bool no_filter;            /* -fno-domain-filtering: unary constraints filter X once */
	bool no_interval;          /* -fno-interval-pruning: bound deep constraints at outer levels (-O2) */
	bool no_specialize;        /* -fno-specialization: read by the caller (lang/specialize.c runs before cgen) */
	bool no_typed;             /* -fno-typed-values: every value a tagged sprt_val (cg_type.c) */
	/*
	 * Where the caller knows what the run will bind (spacec count, list
	 * and stats), the kind of value each device parameter and setting
	 * will hold, indexed by sema_def.id: CG_BOUND_DEFAULT (not bound: its
	 * default expression), CG_BOUND_INT, CG_BOUND_BOOL or CG_BOUND_OTHER.
	 * Bound ints and bools are then typed like any other int (cg_type.c),
	 * and the generated code refuses a binding of another kind.  NULL
	 * (spacec emit): a standalone enumerator may be bound to anything, so
	 * they stay tagged values.
	 */
	const unsigned char *bound_types;
	/*
	 * spacec emit: the file is a program by itself, with a main() over
	 * sprt_main unless compiled with -DSPACEC_NO_MAIN, and its header
	 * comment gives the command that builds it.  In-process builds (the
	 * JIT, spacetune) leave main() out.
	 */
	bool standalone;
};

enum { CG_BOUND_DEFAULT = 0, CG_BOUND_INT, CG_BOUND_BOOL, CG_BOUND_OTHER };

/*
 * The passes, in the order cg_emit runs them (cgen/cg_pass.c holds the
 * table: name, -O level, switch, functions).
 */
enum cg_pass_id {
	CG_PASS_SPECIALIZATION, /* lang/specialize.c, before cgen */
	CG_PASS_LOOP_ORDER,     /* dag/order.c; -O0: BEAST's level sets */
	CG_PASS_FACTORIZATION,
	CG_PASS_TYPED_VALUES,
	CG_PASS_CSE,
	CG_PASS_DOMAIN_FILTERING,
	CG_PASS_EQUALITY,
	CG_PASS_BOUNDS,
	CG_PASS_DIVISORS,
	CG_PASS_INTERVAL,
	CG_PASS_TASK_HOOKS,
	CG_NPASSES
};

/* Whether pass p runs under o: its -O level reached, its switch not off. */
bool cg_pass_on(const struct cg_options *o, enum cg_pass_id p);
/* Applies -f's argument ("no-cse"); false where no pass has that switch. */
bool cg_set_switch(struct cg_options *o, const char *arg);
/* The -fno- switches, for --help: indented lines, in pass order. */
void cg_switch_help(FILE *out);

/*
 * Writes the generated C for `prog` to `out`.  Returns 0, or the number
 * of errors reported to `diag` (constructs the compiled path cannot
 * handle are located errors that suggest --interpret).
 */
int cg_emit(const struct sema_program *prog, const struct cg_options *opt,
	    FILE *out, struct diag *diag);

#endif
