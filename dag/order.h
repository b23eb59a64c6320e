/*
 * order.h - the loop order: the one place it is decided.
 *
 * sema gives only a dependency order (BEAST's level sets).  Two orders are
 * made from it here, and nowhere else:
 *
 *   - the default order, for the nest as one: the greedy order (below),
 *     or at -O0 the level sets themselves.  The pipeline (lib/spacec.c)
 *     places it in the checked program, so the interpreter runs it, and
 *     the compiled code with factorization off runs the same loops in the
 *     same order (tests/diff compares their statistics exactly);
 *   - the final order of the compiled code (dag_order_plan): the default
 *     order, regrouped where factorization splits the nest into a main
 *     chain and independent sub-nests: the chain first, in its own order
 *     (order.c, order_chain), then each sub-nest, contiguous and in the
 *     default order inside.  cgen's first pass takes it (cgen/cg_pass.c),
 *     into its own copy of the placement; the checked program stays as
 *     the pipeline placed it.
 */
#ifndef SPACEC_ORDER_H
#define SPACEC_ORDER_H

#include <stdbool.h>

#include "dag.h"
#include "sema.h"

/*
 * The default order of prog's iterators into `order`: BEAST's level sets
 * where `level_sets`, else greedily, of the iterators whose inputs are
 * bound, the one that lets the most constraints be checked, then the one
 * that brings the others nearest to complete, then one that feeds any
 * constraint.  Iterators no constraint looks at
 * thus become the innermost loops, where they multiply the fewest
 * evaluations.  Unary constraints (one hoisted iterator) do not count, a
 * literal range of more than 1000 values waits for the narrow iterators
 * it shares a constraint with, and independent sub-nests are kept apart
 * (each is finished before the next one opens).  Ties: definition order.
 */
void dag_order_default(const struct sema_program *prog, bool level_sets, struct sema_def **order);

/* The pipeline's step after sema: the default order placed in prog
 * (sema_set_loop_order), so that the interpreter runs it. */
void dag_order_place(struct sema_program *prog, bool level_sets);

/* A sub-nest of the final order: loop positions first..last, counted
 * after chain level `at` (-1: before the loops). */
struct dag_block {
	int first, last, at;
};

struct dag_order {
	struct sema_def **order;   /* loop position -> iterator (niters + 1) */
	int nchain;                /* positions [0, nchain): the main chain (niters: not factorized) */
	int nblocks;               /* sub-nests, in the order they follow the chain */
	struct dag_block *blocks;
	struct dag g;              /* the program's graph (supports), for the passes */
};

/*
 * The final loop order: dag_order_default, regrouped into a main chain
 * and memoizable sub-nests where `factorize` and that splits the nest so
 * that some sub-nest can be found again in its memo table.
 */
void dag_order_plan(const struct sema_program *prog, bool level_sets, bool factorize, struct dag_order *o);
void dag_order_release(struct dag_order *o);

#endif
