/*
 * memo.c - the memo tables of factorized sub-nests (see spacert.h).
 *
 * An open-addressing hash table of (hash, entry) slots; each entry (header,
 * key, statistics deltas) is carved from 1 MiB chunks, so growing the table
 * never moves an entry a caller holds, entries made one after another sit
 * together, and starting over frees nothing but the listed points (the
 * chunks are reused).  Points are one allocation per entry.  The
 * table watches its own hit rate: a sub-nest whose input tuples rarely
 * repeat is cheaper to enumerate every time than to remember, so after a
 * trial window with few hits the table stops inserting and hands out its
 * scratch entry instead (results do not depend on it: the caller replays
 * or records the same statistics either way).
 */
#include <stdlib.h>
#include <string.h>

#include "spacert.h"

/*
 * Per table; then it starts over.  Small on purpose: a sub-nest's input
 * tuples repeat over a short distance (gemm_beast's A-reshape: the
 * (blk_k, dim_vec) pairs of one blk_m, once per blk_n), and a table that
 * stays in the core's cache answers those cheaply, while a big one turns
 * each probe into a cache miss.  gemm_beast, H100 profile, 1 thread:
 * 64 MiB 7.4 s, 16 MiB 6.8 s, 4 MiB 6.2 s, 1 MiB 5.9 s (bench/README.md).
 */
#define MEMO_MAX_BYTES ((size_t)1 << 20)
#define MEMO_TRIAL 4096                     /* lookups before judging the hit rate */

/*
 * A table is worth its lookups where a hit saves more than a probe costs.
 * A probe into a table out of the core's cache costs about as much as
 * visiting this many candidates; a hit saves what a miss cost (its
 * entries' candidates, on average).  gemm_beast's counts: near counts
 * (cg_factor.c) answer most lookups before the table, which then keeps
 * 26-30% hits of about 6 candidates each (K40c), 11-14% of 6-11 (H100):
 * bypassed, K40c count 0.100 -> 0.092 s, H100 1.28 -> 1.26 s.  Only
 * where the entries keep nothing but candidates (see worth_keeping).
 */
#define MEMO_PROBE_CANDIDATES 2

/* Entries are carved from chunks (an entry never spans two).  The first
 * is small and each next one twice as large, up to MEMO_CHUNK: a run over
 * a tiny space (conv2d_cltune: 0.1 ms) would otherwise spend a good part
 * of its time mapping and unmapping 1 MiB per table. */
#define MEMO_FIRST_CHUNK ((size_t)16 << 10)
#define MEMO_CHUNK ((size_t)1 << 20)

/*
 * A slot is live when the low 16 bits of its stamp are the table's
 * generation; the other bits are the key's hash (its bits 16 and up
 * also pick the slot).  Starting over is then one increment, not a pass
 * over every slot: with the small tables above, gemm_beast's A-reshape
 * table starts over ~1400 times in one count (1-2% of its time).
 */
#define GEN_BITS 16
#define GEN_MASK ((UINT64_C(1) << GEN_BITS) - 1)

struct memo_slot {
	uint64_t stamp;                 /* hash bits 16.., generation in bits 0..15 */
	struct sprt_memo_entry *e;
};

struct memo_chunk {
	struct memo_chunk *next;
	size_t size, used;              /* bytes of data[] */
	_Alignas(16) unsigned char data[];
};

struct sprt_memo {
	int nkey, nstats, width;
	bool ints;                      /* keys are int64_t (sprt_memo_find_ints), not sprt_val */
	size_t cap, n;                  /* slots (a power of two), entries */
	struct memo_slot *slots;        /* stamp and entry side by side: one cache line per probe */
	uint64_t gen;                   /* live slots' generation, 1..GEN_MASK */
	bool has_points;                /* some entry holds points (listing) */
	size_t entry_size;              /* header, key, statistics deltas (rounded up) */
	size_t entry_bytes, max_entries;/* what an entry costs, with its slots */
	struct memo_chunk *chunks;      /* the first one is being filled */
	struct memo_chunk *spare;       /* emptied by a clear, reused before malloc */
	size_t next_chunk;              /* bytes of the next chunk to allocate (0: the first) */
	struct sprt_memo_entry *scratch;/* for uncacheable keys */
	uint64_t lookups, hits;
	bool bypass;                    /* too few hits: stopped inserting */
	uint64_t clears;                /* start-overs so far (sprt_memo_epoch) */
};

/* Ranges compare by all three fields; vectors are not keys (see below). */
static bool val_same(const sprt_val *a, const sprt_val *b)
{
	if (a->kind != b->kind || a->u.i != b->u.i)
		return false;
	return a->kind != SPRT_RANGE || (a->r_stop == b->r_stop && a->r_step == b->r_step);
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	return (h ^ x) * UINT64_C(0x9e3779b97f4a7c15);
}

/* Never 0: a zero hash marks an empty slot. */
static uint64_t key_hash(const sprt_val *key, int n)
{
	uint64_t h = (uint64_t)n;
	for (int i = 0; i < n; i++) {
		h = mix(h, (uint64_t)key[i].u.i + ((uint64_t)key[i].kind << 56));
		if (key[i].kind == SPRT_RANGE)
			h = mix(mix(h, (uint64_t)key[i].r_stop), (uint64_t)key[i].r_step);
	}
	h ^= h >> 31;
	return h ? h : 1;
}

/* Never 0, like key_hash. */
static uint64_t key_hash_ints(const int64_t *key, int n)
{
	uint64_t h = (uint64_t)n;
	for (int i = 0; i < n; i++)
		h = mix(h, (uint64_t)key[i]);
	h ^= h >> 31;
	return h ? h : 1;
}

static size_t key_bytes(const struct sprt_memo *m)
{
	return (size_t)m->nkey * (m->ints ? sizeof(int64_t) : sizeof(sprt_val));
}

/* The key stored right after the entry's header. */
static void *entry_key(struct sprt_memo_entry *e)
{
	return e + 1;
}

static void entry_init(const struct sprt_memo *m, struct sprt_memo_entry *e, const void *key)
{
	memset(e, 0, m->entry_size);
	if (m->nkey)
		memcpy(entry_key(e), key, key_bytes(m));
	e->stats = (uint64_t *)(void *)((unsigned char *)entry_key(e) + key_bytes(m));
}

static bool key_same(const struct sprt_memo *m, struct sprt_memo_entry *e, const void *key)
{
	if (m->ints) {
		const int64_t *a = entry_key(e), *b = key;
		for (int i = 0; i < m->nkey; i++)
			if (a[i] != b[i])
				return false;
		return true;
	}
	const sprt_val *a = entry_key(e), *b = key;
	for (int i = 0; i < m->nkey; i++)
		if (!val_same(&a[i], &b[i]))
			return false;
	return true;
}

/* A fresh entry from the chunks (NULL: out of memory). */
static struct sprt_memo_entry *entry_new(struct sprt_memo *m, const void *key)
{
	struct memo_chunk *c = m->chunks;
	if (!c || c->used + m->entry_size > c->size) {
		c = m->spare;
		if (c) {
			m->spare = c->next;
		} else {
			size_t bytes = m->next_chunk ? m->next_chunk : MEMO_FIRST_CHUNK;
			m->next_chunk = bytes < MEMO_CHUNK ? 2 * bytes : MEMO_CHUNK;
			if (bytes < sizeof(*c) + m->entry_size)
				bytes = sizeof(*c) + m->entry_size;
			if (!(c = malloc(bytes)))
				return NULL;
			c->size = bytes - sizeof(*c);
		}
		c->used = 0;
		c->next = m->chunks;
		m->chunks = c;
	}
	struct sprt_memo_entry *e = (struct sprt_memo_entry *)(void *)(c->data + c->used);
	c->used += m->entry_size;
	entry_init(m, e, key);
	return e;
}

static bool slot_live(const struct sprt_memo *m, size_t i)
{
	return (m->slots[i].stamp & GEN_MASK) == m->gen;
}

static size_t slot_of(const struct sprt_memo *m, uint64_t h)
{
	return (size_t)(h >> GEN_BITS) & (m->cap - 1);
}

/* Forgets every entry (the table keeps its size, the chunks are reused). */
static void memo_clear(struct sprt_memo *m)
{
	if (m->has_points) {
		for (struct memo_chunk *c = m->chunks; c; c = c->next)
			for (size_t at = 0; at + m->entry_size <= c->used; at += m->entry_size)
				free(((struct sprt_memo_entry *)(void *)(c->data + at))->points);
		m->has_points = false;
	}
	if (++m->gen > GEN_MASK) {
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
		m->gen = 1;
	}
	while (m->chunks) {
		struct memo_chunk *c = m->chunks;
		m->chunks = c->next;
		c->next = m->spare;
		m->spare = c;
	}
	m->n = 0;
	m->clears++;
}

static int memo_grow(struct sprt_memo *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct memo_slot *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return SPRT_ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		if (!slot_live(m, i))
			continue;
		size_t j = (size_t)(m->slots[i].stamp >> GEN_BITS) & (cap - 1);
		while (slots[j].stamp)
			j = (j + 1) & (cap - 1);
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

static void entry_reset(const struct sprt_memo *m, struct sprt_memo_entry *e)
{
	e->count = 0;
	e->npoints = 0;
	memset(e->stats, 0, sizeof(uint64_t) * (size_t)m->nstats);
}

/*
 * At the trial: whether hits save enough.  Too few hits (under 1 in 8)
 * never do; otherwise a hit's saving is the candidates of the entries
 * made so far (each a miss's count), on average.
 */
static bool worth_keeping(const struct sprt_memo *m)
{
	if (m->hits * 8 < m->lookups)
		return false;
	/* Where entries keep statistics (nstats > 1), a miss also counts every
	 * definition's evaluations, and tables with these hit rates paid off
	 * (gemm_beast stats: 0.163 s, 0.178 s with them bypassed): the hit
	 * rate alone decides.  Only candidates (count, list): the work too. */
	if (m->nstats != 1)
		return true;
	uint64_t work = 0, entries = 0;
	for (const struct memo_chunk *c = m->chunks; c; c = c->next)
		for (size_t at = 0; at + m->entry_size <= c->used; at += m->entry_size) {
			const struct sprt_memo_entry *e = (const void *)(c->data + at);
			/* A miss when listing also records its points (a copy
			 * each, and an allocation per entry): gemm_beast's
			 * {vec_mul} in the Kernel Tuner form, 2 candidates and
			 * 1-2 points per key, looked up at every (blk_k, dim_vec):
			 * counted with the candidates alone, its table was
			 * turned off and the K40c list recorded its points
			 * 1.18M times (0.2 s, 1.5x the paper form). */
			uint64_t w = e->stats[0] + e->npoints;
			/* capped: hits (<= MEMO_TRIAL) times the sum stays in 64 bits */
			work += w < (UINT64_C(1) << 32) ? w : UINT64_C(1) << 32;
			entries++;
		}
	/* hits * (work / entries) >= lookups * MEMO_PROBE_CANDIDATES, in ints */
	return !entries || m->hits * work >= m->lookups * entries * MEMO_PROBE_CANDIDATES;
}

/* Both lookups: key is nkey sprt_vals, or nkey int64_t where ints. */
static inline int memo_find(struct sprt_memo **mp, const void *key, bool ints, int nkey, int nstats, int width,
			    struct sprt_memo_entry **out)
{
	struct sprt_memo *m = *mp;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return -SPRT_ENOMEM;
		m->nkey = nkey;
		m->ints = ints;
		m->gen = 1;
		m->nstats = nstats;
		m->width = width;
		m->entry_size = sizeof(struct sprt_memo_entry) + key_bytes(m) + sizeof(uint64_t) * (size_t)nstats;
		m->entry_size = (m->entry_size + 15) & ~(size_t)15;
		/* An entry, its two slots, and the points it may hold. */
		m->entry_bytes = m->entry_size + 2 * sizeof(struct memo_slot);
		m->max_entries = MEMO_MAX_BYTES / m->entry_bytes;
		m->scratch = malloc(m->entry_size);
		if (!m->scratch) {
			free(m);
			return -SPRT_ENOMEM;
		}
		entry_init(m, m->scratch, key);
		*mp = m;
	}
	/* A list's contents can change under the same pointer: never a key. */
	bool cacheable = !m->bypass;
	for (int i = 0; i < nkey && cacheable && !ints; i++)
		cacheable = ((const sprt_val *)key)[i].kind != SPRT_VEC;
	if (!cacheable) {
		entry_reset(m, m->scratch);
		*out = m->scratch;
		return 0;
	}
	m->lookups++;
	if (m->lookups == MEMO_TRIAL && !worth_keeping(m)) {
		m->bypass = true;
		memo_clear(m);
		entry_reset(m, m->scratch);
		*out = m->scratch;
		return 0;
	}
	const uint64_t h = ((ints ? key_hash_ints(key, nkey) : key_hash(key, nkey)) & ~GEN_MASK) | m->gen;
	if (m->cap) {
		size_t j = slot_of(m, h);
		for (; slot_live(m, j); j = (j + 1) & (m->cap - 1)) {
			if (m->slots[j].stamp != h)
				continue;
			struct sprt_memo_entry *e = m->slots[j].e;
			if (key_same(m, e, key)) {
				m->hits++;
				*out = e;
				return 1;
			}
		}
	}
	if (m->n >= m->max_entries)
		memo_clear(m);
	const uint64_t stamp = (h & ~GEN_MASK) | m->gen; /* the generation may be new */
	if ((m->n + 1) * 2 > m->cap && memo_grow(m))
		return -SPRT_ENOMEM;
	struct sprt_memo_entry *e = entry_new(m, key);
	if (!e)
		return -SPRT_ENOMEM;
	size_t j = slot_of(m, stamp);
	while (slot_live(m, j))
		j = (j + 1) & (m->cap - 1);
	m->slots[j].e = e;
	m->slots[j].stamp = stamp;
	m->n++;
	*out = e;
	return 0;
}

int sprt_memo_find(struct sprt_memo **mp, const sprt_val *key, int nkey, int nstats, int width,
		   struct sprt_memo_entry **out)
{
	return memo_find(mp, key, false, nkey, nstats, width, out);
}

int sprt_memo_find_ints(struct sprt_memo **mp, const int64_t *key, int nkey, int nstats, int width,
			struct sprt_memo_entry **out)
{
	return memo_find(mp, key, true, nkey, nstats, width, out);
}

int sprt_memo_add_point(struct sprt_memo *m, struct sprt_memo_entry *e, const sprt_val *point)
{
	size_t w = (size_t)m->width;
	if (e->npoints == e->cap_points) {
		size_t cap = e->cap_points ? e->cap_points * 2 : 4;
		if (cap > SIZE_MAX / sizeof(sprt_val) / (w ? w : 1))
			return SPRT_ENOMEM;
		sprt_val *p = realloc(e->points, cap * w * sizeof(sprt_val));
		if (!p)
			return SPRT_ENOMEM;
		e->points = p;
		e->cap_points = cap;
	}
	if (w)
		memcpy(e->points + e->npoints * w, point, w * sizeof(sprt_val));
	e->npoints++;
	m->has_points = true;
	return 0;
}

void sprt_memo_free(struct sprt_memo *m)
{
	if (!m)
		return;
	memo_clear(m);
	free(m->slots);
	while (m->spare) {
		struct memo_chunk *c = m->spare;
		m->spare = c->next;
		free(c);
	}
	free(m->scratch->points);
	free(m->scratch);
	free(m);
}

void sprt_memo_near_hit(struct sprt_memo *m)
{
	/* a hit the table would have had: it counts for the hit rate, which
	 * would otherwise fall to what the near counts let through (their
	 * misses) and turn the table off where it earns most */
	if (m && m->lookups + 1 != MEMO_TRIAL) {
		m->lookups++;
		m->hits++;
	}
}

uint64_t sprt_memo_epoch(const struct sprt_memo *m)
{
	return !m || m->bypass ? 0 : m->clears + 1;
}

struct sprt_memo_near *sprt_memo_near_new(uint64_t n)
{
	if (n == 0 || n > SIZE_MAX / sizeof(struct sprt_memo_near))
		return NULL;
	return calloc((size_t)n, sizeof(struct sprt_memo_near));
}

void sprt_memo_near_free(struct sprt_memo_near *a)
{
	free(a);
}
