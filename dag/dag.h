/*
 * dag.h - the dependency graph of a checked program.
 *
 * Nodes are sema definitions (devices, settings, constants, tables,
 * iterators, SSA versions of derived values, constraints); an edge a -> b
 * means "a is used to compute b".  sema already rejected cycles and
 * computed level sets and placement; this module exposes them as a graph
 * for `spacec dot` and for the loop order (order.h), which orders the
 * nest and splits it for factorization with the same supports and
 * components: groups of iterators whose descendants are disjoint.
 */
#ifndef SPACEC_DAG_H
#define SPACEC_DAG_H

#include <stdbool.h>
#include <stdio.h>

#include "sema.h"

struct dag_node {
	struct sema_def *def;
	int nsucc;
	struct dag_node **succ;     /* users of this definition */
	int subnest;                /* iterators and what they reach: the
	                               independent sub-nest id; -1 for
	                               level -1 definitions */
};

struct dag {
	const struct sema_program *prog;
	int nnodes;
	struct dag_node *nodes;     /* indexed by sema_def.id */
	int nlevels;                /* loop positions: 0 .. nlevels-1 */
	int nsubnests;
	bool *supp;                 /* [sema_def.id * nlevels + decl_pos]: the
	                               iterators a definition depends on (an
	                               iterator: itself too), see dag_supp */
};

void dag_build(struct dag *g, const struct sema_program *prog);
void dag_release(struct dag *g);

/* The iterators d depends on, flags by decl_pos (prog->iters order). */
static inline const bool *dag_supp(const struct dag *g, const struct sema_def *d)
{
	return g->supp + (size_t)d->id * (size_t)g->nlevels;
}

/*
 * The independent sub-nests of the iterators in `set` (flags by
 * decl_pos): two are in one where a chain of iterators, derived values
 * and constraints depending on both joins them inside the set (leaving
 * iterators out of the set is binding them).  comp[x] is the component's
 * representative for each x in the set; returns the number of them.
 */
int dag_components(const struct dag *g, const bool *set, int *comp);

/*
 * Writes Graphviz DOT in the spirit of BEAST's figure 16: iterators as
 * ellipses, derived values as boxes, constraints as octagons coloured by
 * class, one rank per loop level.
 */
void dag_write_dot(const struct dag *g, FILE *out);

#endif
