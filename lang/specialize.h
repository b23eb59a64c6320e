/*
 * specialize.h - a program specialized to its known bindings (specialize.c).
 */
#ifndef SPACEC_SPECIALIZE_H
#define SPACEC_SPECIALIZE_H

#include "sema.h"

/*
 * Rewrites the definitions (sema's stage 2b: names resolved, kinds of
 * plain assignments still provisional) for the values known before the
 * run: `known` binds device parameters and settings by name (the last
 * binding of a name wins; a literal AST node allocated in `mod`), and
 * unbound ones take their literal defaults.  Recomputes the dependencies
 * of every definition it changes.
 */
void sema_specialize_defs(struct ast_module *mod, struct sema_def **defs, int n,
			  const struct sema_known *known, int nknown);

#endif
