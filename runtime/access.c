/*
 * access.c - random access to a space without listing it: its size, the
 * point at an index (unrank), the index of a point (rank) and uniform
 * samples.  The index is the point's position in the single-thread order
 * of the same enumerator (`list --ordered`).
 *
 * Everything is built on the task hooks of the loop nest (runtime/par.c,
 * cgen/cg_par.c): generated code calls sprt_par_enter(ctx, k) once per
 * accepted iteration of each of the first par_levels loops, in loop order,
 * and skipping there skips exactly that iteration's subtree.  So a walk
 * can fix a prefix of the nest, "iteration o0 at level 0, o1 under it at
 * level 1, ...", by skipping every other iteration at those levels, and
 * count the points under each iteration at the next level (ctx->valid
 * grows by the subtree's count between its enter and its leave).  Counting
 * a subtree costs what `count` costs on it, memoized sub-nests included:
 * a factorized nest counts its sub-nests' products without listing them.
 *
 * Unrank(i) descends a trie of such counts: at a node (a prefix), the
 * children's counts (one walk, then cached) say which child holds i;
 * below the last hooked level, or once a subtree holds at most LEAF_POINTS
 * points, one walk lists that subtree and stops at the point wanted.
 * Rank(p) descends the same trie: a child's value of the iterator its
 * loop binds (the def of kind ITER at that level, by name) is read from
 * the child's first point, and the child whose value matches p's is
 * entered.  Below the trie, a rank walk does not list a factorized
 * product of sub-nests: the generated code finds each sub-nest's digit of
 * the one point of the product that can be p (sprt_par_match) and lists
 * that point alone.  Samples are uniform indices (xoshiro256**, Lemire's
 * unbiased bounded draw), unranked.
 *
 * The trie keeps only visited prefixes; past MAX_ENTRIES children in all
 * it is dropped and rebuilt, so memory stays bounded on any space.
 */
#include "spacert.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A subtree this small is listed rather than counted further. */
#define LEAF_POINTS 256
/* Children kept in the trie before it is dropped (about 24 bytes each). */
#define MAX_ENTRIES ((size_t)1 << 21)

struct node {
	bool expanded;
	uint32_t n;             /* children (accepted iterations at this level) */
	uint64_t *cum;          /* n + 1: points before each child, cum[n] the total */
	struct node **kids;     /* n, lazily */
	sprt_val *key;          /* n: each child's value of its level's iterator, lazily */
	bool *key_known;
};

struct sprt_access {
	struct sprt_ctx *ctx;
	int levels;             /* hooked levels usable */
	int col[SPRT_PAR_LEVELS]; /* the point column each level binds, or -1 */
	struct node *root;
	uint64_t total;
	bool have_total;
	size_t entries;
	sprt_val *scratch;      /* nparams */
	/* The sub-nests' memo tables kept between walks (sprt_par_memos):
	 * [0] for walks that count, [1] for walks that list. */
	struct sprt_memo **kept[2];
	int nkept[2];
};

/* ---- walks ------------------------------------------------------------------------------------ */

enum { WALK_CHILDREN, WALK_LEAF };

/* One restricted walk of the nest (runtime-private, see internal.h). */
struct sprt_access_walk_ {
	struct sprt_access *a;
	int mode;
	int depth;              /* prefix length */
	const uint32_t *prefix;
	uint64_t next[SPRT_PAR_LEVELS + 1];
	/* WALK_CHILDREN */
	uint64_t *counts;
	size_t n, cap;
	bool open;
	uint64_t base;
	bool nomem;
	/* WALK_LEAF: the target'th point, or the position of `match` */
	uint64_t seen, target;
	const sprt_val *match;
	int nparams;
	sprt_val *out;
	bool found;
	int err;
};

int sprt_access_enter_(struct sprt_ctx *ctx, struct sprt_access_walk_ *w, int k)
{
	if (k > w->depth || k >= SPRT_PAR_LEVELS)
		return 0;
	uint64_t o = w->next[k]++;
	w->next[k + 1] = 0;
	if (k < w->depth) {
		if (o < w->prefix[k])
			return 1;
		if (o > w->prefix[k]) {
			/* Past the prefix: nothing after it is wanted. */
			ctx->stop = true;
			return 1;
		}
		return 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		uint64_t *v = realloc(w->counts, cap * sizeof(*v));
		if (!v) {
			w->nomem = true;
			ctx->stop = true;
			return 1;
		}
		w->counts = v;
		w->cap = cap;
	}
	w->counts[w->n++] = 0;
	w->open = true;
	w->base = ctx->valid;
	return 0;
}

void sprt_access_leave_(struct sprt_ctx *ctx, struct sprt_access_walk_ *w, int k)
{
	if (k == w->depth && w->open) {
		w->counts[w->n - 1] = ctx->valid - w->base;
		w->open = false;
	}
}

/* A product of n points is about to be listed: skip those before the one
 * wanted (the points of a leaf walk that looks for an index). */
uint64_t sprt_access_skip_(struct sprt_access_walk_ *w, uint64_t n)
{
	if (w->mode != WALK_LEAF || w->match || w->found)
		return 0;
	uint64_t left = w->target - w->seen;
	uint64_t k = left < n ? left : n;
	w->seen += k;
	return k;
}

const sprt_val *sprt_access_match_(const struct sprt_access_walk_ *w)
{
	return w->mode == WALK_LEAF && !w->found ? w->match : NULL;
}

void sprt_access_pass_(struct sprt_access_walk_ *w, uint64_t n)
{
	w->seen += n;
}

struct sprt_memo **sprt_access_memos_(struct sprt_access_walk_ *w, const struct sprt_ctx *ctx, int n)
{
	struct sprt_access *a = w->a;
	int k = ctx->emit != NULL;
	if (n <= 0)
		return NULL;
	if (!a->kept[k]) {
		a->kept[k] = calloc((size_t)n, sizeof(struct sprt_memo *));
		if (!a->kept[k])
			return NULL; /* the walk keeps its own */
		a->nkept[k] = n;
	}
	return a->nkept[k] == n ? a->kept[k] : NULL;
}

/* Drops the kept memo tables (a walk that failed may have left an entry half made). */
static void drop_kept(struct sprt_access *a)
{
	for (int k = 0; k < 2; k++) {
		for (int i = 0; a->kept[k] && i < a->nkept[k]; i++)
			sprt_memo_free(a->kept[k][i]);
		free(a->kept[k]);
		a->kept[k] = NULL;
		a->nkept[k] = 0;
	}
}

bool sprt_val_same(sprt_val a, sprt_val b)
{
	if (a.kind != b.kind) {
		/* 1 == 1.0 == True in Python, but a point's column holds one kind
		 * per value; mixed kinds are different points here. */
		return false;
	}
	switch (a.kind) {
	case SPRT_FLOAT: return a.u.f == b.u.f || (a.u.f != a.u.f && b.u.f != b.u.f);
	case SPRT_RANGE: return a.u.i == b.u.i && a.r_stop == b.r_stop && a.r_step == b.r_step;
	case SPRT_VEC: return false;
	default: return a.u.i == b.u.i;
	}
}

static int leaf_point(void *user, const sprt_val *point, int n)
{
	struct sprt_access_walk_ *w = user;
	if (w->match) {
		for (int i = 0; i < n; i++)
			if (!sprt_val_same(point[i], w->match[i]))
				goto next;
		w->found = true;
		w->target = w->seen;
		return 1;
	next:
		w->seen++;
		return 0;
	}
	if (w->seen++ != w->target)
		return 0;
	for (int i = 0; i < n && i < w->nparams; i++) {
		if (point[i].kind == SPRT_VEC)
			w->err = SPRT_ETYPE; /* a borrowed list: no copy outlives the walk */
		w->out[i] = point[i];
	}
	w->found = true;
	return 1;
}

/* Runs one walk on the access's context, leaving the context as found. */
static int walk(struct sprt_access *a, struct sprt_access_walk_ *w)
{
	struct sprt_ctx *ctx = a->ctx;
	struct sprt_ctx saved = *ctx;
	struct sprt_par *par = NULL;
	w->a = a;
	int par_level = w->mode == WALK_CHILDREN ? w->depth : w->depth - 1;
	if (a->levels == 0)
		par_level = -1; /* no hooks: a plain walk of the whole nest */
	if (par_level >= 0) {
		par = sprt_par_access_(w);
		if (!par)
			return SPRT_ENOMEM;
	}
	ctx->par = par;
	ctx->par_level = par_level;
	ctx->emit = w->mode == WALK_LEAF ? leaf_point : NULL;
	/* A sink opened on ctx installed its own emit_ints, whose user is the
	 * sink: the walk's points must reach leaf_point (via sprt_emit_ints_). */
	ctx->emit_ints = NULL;
	ctx->emit_user = w;
	ctx->valid = 0;
	ctx->candidates = 0;
	ctx->stop = false;
	ctx->no_stats = true;
	ctx->progress = false;
	int rc = ctx->space->enumerate(ctx);
	uint64_t valid = ctx->valid;
	/* Keep what the walk allocated in the context (run-time strings,
	 * the column bounds: the same for every walk), restore the rest. */
	saved.nextra_strings = ctx->nextra_strings;
	saved.extra_strings = ctx->extra_strings;
	saved.column_bounds = ctx->column_bounds;
	saved.columns_bounded = ctx->columns_bounded;
	*ctx = saved;
	free(par);
	if (rc) {
		drop_kept(a);
		return rc < 0 ? rc : -rc;
	}
	if (w->nomem)
		return -SPRT_ENOMEM;
	if (w->err)
		return -w->err;
	if (par_level < 0)
		w->base = valid;
	return 0;
}

/* ---- the trie ------------------------------------------------------------------------------- */

static void node_free(struct node *n)
{
	if (!n)
		return;
	if (n->kids)
		for (uint32_t i = 0; i < n->n; i++)
			node_free(n->kids[i]);
	free(n->kids);
	free(n->cum);
	free(n->key);
	free(n->key_known);
	free(n);
}

static int expand(struct sprt_access *a, struct node *nd, const uint32_t *prefix, int depth)
{
	struct sprt_access_walk_ w = { .mode = WALK_CHILDREN, .depth = depth, .prefix = prefix };
	int rc = walk(a, &w);
	if (rc) {
		free(w.counts);
		return rc;
	}
	if (w.n > UINT32_MAX) {
		free(w.counts);
		return -SPRT_ENOMEM;
	}
	nd->n = (uint32_t)w.n;
	nd->cum = malloc((w.n + 1) * sizeof(uint64_t));
	nd->kids = calloc(w.n + 1, sizeof(struct node *));
	nd->key = calloc(w.n + 1, sizeof(sprt_val));
	nd->key_known = calloc(w.n + 1, sizeof(bool));
	if (!nd->cum || !nd->kids || !nd->key || !nd->key_known) {
		free(w.counts);
		return -SPRT_ENOMEM;
	}
	uint64_t s = 0;
	for (size_t i = 0; i < w.n; i++) {
		nd->cum[i] = s;
		s += w.counts[i];
	}
	nd->cum[w.n] = s;
	free(w.counts);
	nd->expanded = true;
	a->entries += w.n + 1;
	return 0;
}

static void columns(struct sprt_access *a)
{
	const struct sprt_space *sp = a->ctx->space;
	a->levels = sp->par_levels < SPRT_PAR_LEVELS ? sp->par_levels : SPRT_PAR_LEVELS;
	for (int k = 0; k < SPRT_PAR_LEVELS; k++) {
		a->col[k] = -1;
		for (int d = 0; d < sp->ndefs && k < a->levels; d++) {
			if (sp->defs[d].kind != SPRT_DEF_ITER || sp->defs[d].level != k)
				continue;
			for (int p = 0; p < sp->nparams; p++)
				if (!strcmp(sp->params[p].name, sp->defs[d].name))
					a->col[k] = p;
		}
	}
}

int sprt_access_open(struct sprt_access **out, struct sprt_ctx *ctx)
{
	/* sprt_run's rule for a bound value's type, checked before any walk:
	 * a caller's own bindings go through the same gate as sprt_main's. */
	if (sprt_bindings_check(ctx->space, ctx->bindings, ctx->nbindings, NULL, NULL, NULL))
		return SPRT_ETYPE;
	struct sprt_access *a = calloc(1, sizeof(*a));
	if (!a)
		return SPRT_ENOMEM;
	a->ctx = ctx;
	a->scratch = calloc((size_t)ctx->space->nparams + 1, sizeof(sprt_val));
	if (!a->scratch) {
		free(a);
		return SPRT_ENOMEM;
	}
	columns(a);
	*out = a;
	return 0;
}

void sprt_access_free(struct sprt_access *a)
{
	if (!a)
		return;
	node_free(a->root);
	drop_kept(a);
	free(a->scratch);
	free(a);
}

/* The root, expanded where the nest has hooks; drops a trie grown too big. */
static int root(struct sprt_access *a)
{
	if (a->root && a->entries > MAX_ENTRIES) {
		node_free(a->root);
		a->root = NULL;
		a->entries = 0;
	}
	if (a->root)
		return 0;
	a->root = calloc(1, sizeof(struct node));
	if (!a->root)
		return -SPRT_ENOMEM;
	if (a->levels == 0) {
		struct sprt_access_walk_ w = { .mode = WALK_CHILDREN, .depth = 0 };
		int rc = walk(a, &w);
		free(w.counts);
		if (rc)
			return rc;
		a->total = w.base;
	} else {
		uint32_t none = 0;
		int rc = expand(a, a->root, &none, 0);
		if (rc)
			return rc;
		a->total = a->root->cum[a->root->n];
	}
	a->have_total = true;
	return 0;
}

int sprt_access_size(struct sprt_access *a, uint64_t *n)
{
	int rc = root(a);
	if (rc)
		return -rc;
	*n = a->total;
	return 0;
}

/* The child of nd holding index *r (made relative to it); its ordinal. */
static uint32_t find_child(const struct node *nd, uint64_t *r)
{
	uint32_t lo = 0, hi = nd->n; /* cum[lo] <= r < cum[hi] */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (nd->cum[mid] <= *r)
			lo = mid;
		else
			hi = mid;
	}
	*r -= nd->cum[lo];
	return lo;
}

static int child(struct node *nd, uint32_t i, struct node **out)
{
	if (!nd->kids[i] && !(nd->kids[i] = calloc(1, sizeof(struct node))))
		return -SPRT_ENOMEM;
	*out = nd->kids[i];
	return 0;
}

/* The point at index r of the subtree at `prefix` (depth d, count `count`). */
static int unrank_at(struct sprt_access *a, struct node *nd, uint32_t *prefix, int d, uint64_t count,
		     uint64_t r, sprt_val *point)
{
	while (d < a->levels && count > LEAF_POINTS) {
		if (!nd->expanded) {
			int rc = expand(a, nd, prefix, d);
			if (rc)
				return rc;
		}
		uint32_t i = find_child(nd, &r);
		count = nd->cum[i + 1] - nd->cum[i];
		prefix[d++] = i;
		int rc = child(nd, i, &nd);
		if (rc)
			return rc;
	}
	struct sprt_access_walk_ w = { .mode = WALK_LEAF, .depth = d, .prefix = prefix, .target = r,
				       .nparams = a->ctx->space->nparams, .out = point };
	int rc = walk(a, &w);
	if (rc)
		return rc;
	return w.found ? 0 : -SPRT_EVALUE;
}

int sprt_access_unrank(struct sprt_access *a, uint64_t index, sprt_val *point)
{
	int rc = root(a);
	if (rc)
		return -rc;
	if (index >= a->total)
		return SPRT_EVALUE;
	uint32_t prefix[SPRT_PAR_LEVELS + 1];
	return -unrank_at(a, a->root, prefix, 0, a->total, index, point);
}

int sprt_access_rank(struct sprt_access *a, const sprt_val *point, uint64_t *index, bool *found)
{
	int rc = root(a);
	if (rc)
		return -rc;
	*found = false;
	uint32_t prefix[SPRT_PAR_LEVELS + 1];
	struct node *nd = a->root;
	uint64_t count = a->total, base = 0;
	int d = 0;
	while (d < a->levels && count > LEAF_POINTS && a->col[d] >= 0) {
		if (!nd->expanded && (rc = expand(a, nd, prefix, d)))
			return -rc;
		int c = a->col[d];
		uint32_t pick = UINT32_MAX;
		for (uint32_t i = 0; i < nd->n && pick == UINT32_MAX; i++) {
			if (nd->cum[i + 1] == nd->cum[i])
				continue; /* no point below */
			if (!nd->key_known[i]) {
				/* The child's first point carries its level's value. */
				prefix[d] = i;
				struct sprt_access_walk_ w = { .mode = WALK_LEAF, .depth = d + 1, .prefix = prefix,
							       .target = 0, .nparams = a->ctx->space->nparams,
							       .out = a->scratch };
				if ((rc = walk(a, &w)))
					return -rc;
				if (!w.found)
					return SPRT_EVALUE;
				nd->key[i] = a->scratch[c];
				nd->key_known[i] = true;
			}
			if (sprt_val_same(nd->key[i], point[c]))
				pick = i;
		}
		if (pick == UINT32_MAX)
			return 0;
		base += nd->cum[pick];
		count = nd->cum[pick + 1] - nd->cum[pick];
		prefix[d++] = pick;
		if ((rc = child(nd, pick, &nd)))
			return -rc;
	}
	struct sprt_access_walk_ w = { .mode = WALK_LEAF, .depth = d, .prefix = prefix, .match = point,
				       .nparams = a->ctx->space->nparams };
	if ((rc = walk(a, &w)))
		return -rc;
	if (w.found) {
		*found = true;
		*index = base + w.target;
	}
	return 0;
}

/* ---- uniform samples -------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void sprt_rng_seed(struct sprt_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sprt_rng_next(struct sprt_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return x;
}

uint64_t sprt_rng_below(struct sprt_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)sprt_rng_next(r) * n;
	uint64_t l = (uint64_t)m;
	if (l < n) {
		uint64_t t = -n % n;
		while (l < t) {
			m = (unsigned __int128)sprt_rng_next(r) * n;
			l = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

void sprt_sample_indices(uint64_t seed, uint64_t n, uint64_t k, bool replace, uint64_t *out)
{
	struct sprt_rng s;
	sprt_rng_seed(&s, seed);
	if (replace) {
		for (uint64_t i = 0; i < k; i++)
			out[i] = sprt_rng_below(&s, n);
		return;
	}
	/* Distinct: redraw a repeat, found in an open-addressing set of the
	 * draws so far (k <= n; a draw repeats with probability < k / n, so
	 * k = n costs about n log n draws). */
	size_t cap = 16;
	while (cap < 2 * (size_t)k)
		cap *= 2;
	uint64_t *set = malloc(cap * sizeof(uint64_t));
	if (!set) {
		/* Without the set, a linear scan of the draws does the same. */
		for (uint64_t i = 0; i < k; i++) {
			bool again;
			do {
				out[i] = sprt_rng_below(&s, n);
				again = false;
				for (uint64_t j = 0; j < i && !again; j++)
					again = out[j] == out[i];
			} while (again);
		}
		return;
	}
	memset(set, 0xff, cap * sizeof(uint64_t)); /* UINT64_MAX: empty (never an index) */
	for (uint64_t i = 0; i < k; i++) {
		for (;;) {
			uint64_t v = sprt_rng_below(&s, n);
			size_t h = (size_t)((v * UINT64_C(0x9e3779b97f4a7c15)) >> 7) & (cap - 1);
			while (set[h] != UINT64_MAX && set[h] != v)
				h = (h + 1) & (cap - 1);
			if (set[h] == v)
				continue;
			set[h] = v;
			out[i] = v;
			break;
		}
	}
	free(set);
}
