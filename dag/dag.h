/*
 * dag.h - the dependency graph of a checked program.
 *
 * Nodes are sema definitions (devices, settings, constants, tables,
 * iterators, SSA versions of derived values, constraints); an edge a -> b
 * means "a is used to compute b".  sema already rejected cycles and
 * computed level sets and placement; this module exposes them as a graph
 * for the code generator and for `spacec dot`, and finds independent
 * sub-nests: groups of iterators whose descendants are disjoint.
 */
#ifndef SPACEC_DAG_H
#define SPACEC_DAG_H

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
};

void dag_build(struct dag *g, const struct sema_program *prog);
void dag_release(struct dag *g);

/*
 * Writes Graphviz DOT in the spirit of BEAST's figure 16: iterators as
 * ellipses, derived values as boxes, constraints as octagons coloured by
 * class, one rank per loop level.
 */
void dag_write_dot(const struct dag *g, FILE *out);

#endif
