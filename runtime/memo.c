/*
 * memo.c - the memo tables of factorized sub-nests (see spacert.h).
 *
 * An open-addressing hash table of pointers to entries; each entry is one
 * allocation (header, key, statistics deltas) and its points are a second
 * one, so growing the table never moves an entry a caller holds.  The
 * table watches its own hit rate: a sub-nest whose input tuples rarely
 * repeat is cheaper to enumerate every time than to remember, so after a
 * trial window with few hits the table stops inserting and hands out its
 * scratch entry instead (results do not depend on it: the caller replays
 * or records the same statistics either way).
 */
#include <stdlib.h>
#include <string.h>

#include "spacert.h"

#define MEMO_MAX_BYTES ((size_t)64 << 20)   /* per table; then it starts over */
#define MEMO_TRIAL 4096                     /* lookups before judging the hit rate */

struct sprt_memo {
	int nkey, nstats, width;
	size_t cap, n;                  /* slots (a power of two), entries */
	struct sprt_memo_entry **slots;
	uint64_t *hashes;               /* per slot, so probing reads no entry */
	size_t entry_bytes, max_entries;
	struct sprt_memo_entry *scratch;/* for uncacheable keys */
	uint64_t lookups, hits;
	bool bypass;                    /* too few hits: stopped inserting */
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

static sprt_val *entry_key(struct sprt_memo_entry *e)
{
	return (sprt_val *)(e + 1);
}

static struct sprt_memo_entry *entry_new(const struct sprt_memo *m, const sprt_val *key)
{
	size_t size = sizeof(struct sprt_memo_entry) + sizeof(sprt_val) * (size_t)m->nkey +
		      sizeof(uint64_t) * (size_t)m->nstats;
	struct sprt_memo_entry *e = calloc(1, size);
	if (!e)
		return NULL;
	if (m->nkey)
		memcpy(entry_key(e), key, sizeof(sprt_val) * (size_t)m->nkey);
	e->stats = (uint64_t *)(entry_key(e) + m->nkey);
	return e;
}

static void entry_free(struct sprt_memo_entry *e)
{
	if (e) {
		free(e->points);
		free(e);
	}
}

/* Forgets every entry (the table keeps its size). */
static void memo_clear(struct sprt_memo *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		entry_free(m->slots[i]);
		m->slots[i] = NULL;
		m->hashes[i] = 0;
	}
	m->n = 0;
}

static int memo_grow(struct sprt_memo *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct sprt_memo_entry **slots = calloc(cap, sizeof(*slots));
	uint64_t *hashes = calloc(cap, sizeof(*hashes));
	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return SPRT_ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i])
			continue;
		size_t j = (size_t)m->hashes[i] & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = m->slots[i];
		hashes[j] = m->hashes[i];
	}
	free(m->slots);
	free(m->hashes);
	m->slots = slots;
	m->hashes = hashes;
	m->cap = cap;
	return 0;
}

static void entry_reset(const struct sprt_memo *m, struct sprt_memo_entry *e)
{
	e->count = 0;
	e->npoints = 0;
	memset(e->stats, 0, sizeof(uint64_t) * (size_t)m->nstats);
}

int sprt_memo_find(struct sprt_memo **mp, const sprt_val *key, int nkey, int nstats, int width,
		   struct sprt_memo_entry **out)
{
	struct sprt_memo *m = *mp;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return -SPRT_ENOMEM;
		m->nkey = nkey;
		m->nstats = nstats;
		m->width = width;
		/* An entry, its two slots, and the points it may hold. */
		m->entry_bytes = sizeof(struct sprt_memo_entry) + sizeof(sprt_val) * (size_t)nkey +
				 sizeof(uint64_t) * (size_t)nstats + 2 * (sizeof(void *) + sizeof(uint64_t));
		m->max_entries = MEMO_MAX_BYTES / m->entry_bytes;
		m->scratch = entry_new(m, key);
		if (!m->scratch) {
			free(m);
			return -SPRT_ENOMEM;
		}
		*mp = m;
	}
	/* A list's contents can change under the same pointer: never a key. */
	bool cacheable = !m->bypass;
	for (int i = 0; i < nkey && cacheable; i++)
		cacheable = key[i].kind != SPRT_VEC;
	if (!cacheable) {
		entry_reset(m, m->scratch);
		*out = m->scratch;
		return 0;
	}
	m->lookups++;
	if (m->lookups == MEMO_TRIAL && m->hits * 8 < m->lookups) {
		m->bypass = true;
		memo_clear(m);
		entry_reset(m, m->scratch);
		*out = m->scratch;
		return 0;
	}
	const uint64_t h = key_hash(key, nkey);
	if (m->cap) {
		size_t j = (size_t)h & (m->cap - 1);
		for (; m->hashes[j]; j = (j + 1) & (m->cap - 1)) {
			if (m->hashes[j] != h)
				continue;
			struct sprt_memo_entry *e = m->slots[j];
			const sprt_val *k = entry_key(e);
			bool same = true;
			for (int i = 0; i < nkey && same; i++)
				same = val_same(&k[i], &key[i]);
			if (same) {
				m->hits++;
				*out = e;
				return 1;
			}
		}
	}
	if (m->n >= m->max_entries)
		memo_clear(m);
	if ((m->n + 1) * 2 > m->cap && memo_grow(m))
		return -SPRT_ENOMEM;
	struct sprt_memo_entry *e = entry_new(m, key);
	if (!e)
		return -SPRT_ENOMEM;
	size_t j = (size_t)h & (m->cap - 1);
	while (m->hashes[j])
		j = (j + 1) & (m->cap - 1);
	m->slots[j] = e;
	m->hashes[j] = h;
	m->n++;
	*out = e;
	return 0;
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
	return 0;
}

void sprt_memo_free(struct sprt_memo *m)
{
	if (!m)
		return;
	memo_clear(m);
	free(m->slots);
	free(m->hashes);
	entry_free(m->scratch);
	free(m);
}
