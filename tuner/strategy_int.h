/*
 * strategy_int.h - what the strategies share (tuner/strategy.c), not part
 * of the public API.  Each strategy file defines one struct strategy_ops.
 *
 * A point's "coordinates" are the indices of its parameter values in the
 * sorted distinct values of each parameter; the geometric strategies
 * (PSO, genetic) move in that integer grid and snap back to valid points.
 */
#ifndef SPACEC_TUNER_STRATEGY_INT_H
#define SPACEC_TUNER_STRATEGY_INT_H

#include "tuner/strategy.h"
#include "spacert.h"

enum point_state { POINT_UNSEEN, POINT_PENDING, POINT_DONE };

struct rng {
	struct sprt_rng g; /* spacert's xoshiro256** */
};

/* A strategy's functions; its name is its place in tune_strategy_names. */
struct strategy_ops {
	/* The size of s->impl, which the framework allocates zeroed before
	 * init() (0: the strategy sets s->impl itself, or has none). */
	size_t impl_size;
	/* Fills s->impl, keeping its arrays in strategy_alloc's memory; 0 or -1. */
	int (*init)(struct tune_strategy *s);
	/* Proposes up to max points, each taken with strategy_take(). */
	size_t (*propose)(struct tune_strategy *s, size_t *out, size_t max);
	/* A reported cost; s->cost[point] is already set. */
	void (*report)(struct tune_strategy *s, size_t point, double cost);
	/* Frees what strategy_alloc does not own (NULL: nothing); called
	 * once s->impl is set, also after an init() that failed. */
	void (*release)(struct tune_strategy *s);
	/* The strategy has an end of its own (bfs after its last level): no
	 * random top-up once it proposes nothing with nothing in flight. */
	bool ends;
};

struct tune_strategy {
	const struct strategy_ops *ops;
	const struct tune_space *space;
	struct tune_strategy_opts opts;
	struct rng rng;
	uint8_t *state;          /* enum point_state per point */
	double *cost;            /* valid where state is POINT_DONE */
	size_t nunseen, npending;
	int *nvalues;            /* per parameter */
	const double **values;   /* per parameter, sorted */
	uint32_t *coords;        /* npoints * nparams, filled on first use (dense only) */
	/* Sparse mode, for spaces too big for per-point arrays (more than
	 * STRATEGY_DENSE_MAX points): state and cost of the touched points
	 * only, in an open-addressing table, and coordinates computed per
	 * call into a ring of COORD_RING buffers. */
	bool sparse;
	struct visit *visits;
	size_t nvisits, vcap;
	uint32_t *coord_ring;
	int ring_next;
	/* Sparse mode's memo of the two lookups that walk the enumerator
	 * (spacert's unrank and rank), each direct-mapped in MEMO_SLOTS
	 * slots (a new entry replaces its slot's): a point's coordinates
	 * (strategy_coords), and the point at coordinates, -1 included
	 * (strategy_at).  Strategies ask for the same ones again and again:
	 * bo every observed point's coordinates and the incumbents'
	 * neighbours at every proposal. */
	uint64_t *coords_key;    /* point + 1; 0: empty */
	uint32_t *coords_memo;   /* MEMO_SLOTS * nparams */
	uint8_t *at_used;
	uint32_t *at_coords;     /* MEMO_SLOTS * nparams */
	long *at_point;
	double *value_scratch;   /* nparams: strategy_at's argument to find() */
	uint32_t *coord_scratch; /* nparams: positions being probed */
	void *impl;
	struct owned *owned;     /* strategy_alloc's blocks */
};

/* Spaces with more points than this run in sparse mode (see above). */
#define STRATEGY_DENSE_MAX TUNE_DENSE_MAX
/* Slots of each of sparse mode's memos (about 88 bytes each at 20 parameters). */
#define MEMO_SLOTS ((size_t)1 << 14)
/* Coordinates from strategy_coords stay valid for this many more calls. */
#define COORD_RING 4

struct visit {
	uint64_t key;            /* point + 1; 0: an empty slot */
	uint8_t state;
	double cost;
};

/*
 * Zeroed memory for n objects of `size` that the strategy owns: freed with
 * it by tune_strategy_free, so strategies keep their arrays here and need
 * no release().  NULL when out of memory.  strategy_realloc resizes a
 * block, not zeroing what it adds (NULL p: a new one; NULL: out of memory,
 * p unchanged); strategy_free
 * frees one early (NULL: nothing).
 */
void *strategy_alloc(struct tune_strategy *s, size_t n, size_t size);
void *strategy_realloc(struct tune_strategy *s, void *p, size_t n, size_t size);
void strategy_free(struct tune_strategy *s, void *p);

/* A point's state, and its cost where POINT_DONE. */
enum point_state strategy_state(const struct tune_strategy *s, size_t point);
double strategy_cost(const struct tune_strategy *s, size_t point);

/* xoshiro256** seeded through splitmix64: fast, and the same on every host. */
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
double rng_uniform(struct rng *r);           /* [0, 1) */
size_t rng_below(struct rng *r, size_t n);   /* [0, n), n > 0 */

/* Marks an unseen point pending and stores it at out[*n]; false if it was not unseen. */
bool strategy_take(struct tune_strategy *s, size_t point, size_t *out, size_t *n);

/* A random unseen point, or -1 when none is left. */
long strategy_random_unseen(struct tune_strategy *s);

/* The coordinates of a point (nparams entries); NULL on allocation failure.
 * In sparse mode they are valid for COORD_RING - 1 more calls. */
const uint32_t *strategy_coords(struct tune_strategy *s, size_t point);

/* The point at these coordinates, or -1 if that combination is not valid. */
long strategy_at(struct tune_strategy *s, const uint32_t *coords);

/*
 * The valid neighbours of a point (see strategy.h), at most 2 * nparams,
 * written to out; returns the count.
 */
int strategy_neighbours(struct tune_strategy *s, size_t point, size_t *out);

/*
 * The unseen point nearest to a position in coordinate space (each axis
 * scaled to [0, 1]), ties broken at random; -1 when none is left.
 */
long strategy_nearest_unseen(struct tune_strategy *s, const double *position);

extern const struct strategy_ops strategy_exhaustive, strategy_random, strategy_anneal,
	strategy_pso, strategy_genetic, strategy_local, strategy_bfs, strategy_bo, strategy_bandit;

#endif
