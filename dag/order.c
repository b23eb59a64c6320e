/*
 * order.c - the loop order (order.h): the default order of a nest, and
 * the final order of the compiled code, which factorization regroups.
 *
 * Factorization.  Given a set O of bound iterators, the other iterators
 * fall into components: two are joined when some definition (an
 * iterable, a derived value, a constraint) depends on both, directly or
 * through derived values.  A component's points, given O, do not depend
 * on any other component, and nothing outside it reads its iterators, so
 * the rest of the nest is the cross product of the components: its count
 * is the product of their counts, and each count is a function of the few
 * outer values the component reads (its key).  cgen/cg_factor.c writes
 * the code that counts each sub-nest once per key (memo tables).
 *
 * Starting from O = {}, each component either splits, after some of its
 * iterators are bound, into several components, or never does.  We bind
 * greedily: among the iterators ready to open (inputs bound), the one
 * whose binding leaves the most components, ties broken by the default
 * order, until the component splits (those iterators join the main
 * chain, and the pieces are planned in turn) or is used up (the component
 * becomes a sub-nest).  The chain is then ordered by its own rules
 * (order_chain), and the sub-nests follow it, each contiguous and in the
 * default order inside.  If nothing splits, the default order stays.
 * The supports and the components are dag/'s (dag_supp, dag_components).
 */
#include "order.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

/* ---- the default order ------------------------------------------------------------- */

static bool set_empty(const uint64_t *set, size_t words)
{
	for (size_t w = 0; w < words; w++)
		if (set[w])
			return false;
	return true;
}

/* The number of values of an iterable written with literals only, or -1. */
static int64_t literal_size(const struct sema_def *it)
{
	/* As written: a range that specialization made literal
	 * (range(1, max_threads_dim_x + 1)) is not one the user wrote. */
	const struct ast_expr *e = it->specialized ? it->written : it->expr;
	if (it->form != SEMA_FORM_EXPR || !e)
		return -1;
	if (e->kind == AST_LIST || e->kind == AST_TUPLE)
		return e->nitems;
	if (e->kind != AST_CALL || e->items[0]->kind != AST_NAME || strcmp(e->items[0]->name, "range") ||
	    e->items[0]->ref || e->nitems < 2 || e->nitems > 4)
		return -1;
	int64_t a[3] = { 0, 0, 1 };
	for (int i = 1; i < e->nitems; i++)
		if (e->items[i]->kind != AST_INT)
			return -1;
	if (e->nitems == 2) {
		a[1] = e->items[1]->ival;
	} else {
		a[0] = e->items[1]->ival;
		a[1] = e->items[2]->ival;
		if (e->nitems == 4)
			a[2] = e->items[3]->ival;
	}
	/* In double the difference cannot overflow, but range(-2**62, 2**62)
	 * has more values than int64_t counts: such a size saturates. */
	double n = a[2] > 0 ? ((double)a[1] - (double)a[0]) / (double)a[2] :
		   a[2] < 0 ? ((double)a[0] - (double)a[1]) / -(double)a[2] : 0;
	if (n >= 9223372036854775808.0)
		return INT64_MAX;
	return n > 0 ? (int64_t)n : 0;
}

/* An iterator this wide opens after the narrow ones it shares a constraint with. */
#define WIDE_ITERATOR 1000

/*
 * The greedy order (order.h).  Each definition's set of the iterators it
 * depends on (dag's support, an iterator's without itself) is a bitset
 * over decl_pos, so that the counts below are popcounts.
 */
static void greedy(const struct sema_program *prog, const struct dag *g, struct sema_def **order)
{
	int n = prog->ndefs, niters = prog->niters;
	size_t words = ((size_t)niters + 63) / 64;
	if (!words)
		return;
	uint64_t *sets = xcalloc((size_t)n * words, sizeof(uint64_t));
	for (int i = 0; i < n; i++) {
		const struct sema_def *d = prog->defs[i];
		const bool *s = dag_supp(g, d);
		for (int x = 0; x < niters; x++)
			if (s[x] && !(d->kind == SEMA_ITER && x == d->decl_pos))
				sets[(size_t)d->id * words + (size_t)x / 64] |= 1ull << (x % 64);
	}
	uint64_t *bound = xcalloc(words, sizeof(uint64_t));
	bool *feeds = xcalloc((size_t)niters, sizeof(bool));
	for (int i = 0; i < n; i++) {
		const struct sema_def *d = prog->defs[i];
		if (d->kind != SEMA_CONSTRAINT)
			continue;
		for (int j = 0; j < niters; j++)
			if (sets[(size_t)d->id * words + (size_t)j / 64] >> (j % 64) & 1)
				feeds[j] = true;
	}
	/*
	 * Unary constraints: ones that read a single iterator X (and nothing
	 * else that varies), where X's iterable depends on no iterator.  The
	 * compiled code filters X's values by them once, before the nest
	 * (cg_opt.c, domain filtering), so they prune the same wherever X's
	 * loop is: opening X early for them would only multiply the rest of
	 * the nest by X's survivors (synthetic_wide: 10x the work).  The
	 * greedy below does not count them.
	 */
	bool *unary = xcalloc((size_t)prog->nconstraints + 1, sizeof(bool));
	for (int c = 0; c < prog->nconstraints; c++) {
		const struct sema_def *d = prog->constraints[c];
		const uint64_t *cs = sets + (size_t)d->id * words;
		int count = 0, j = -1;
		for (int i = 0; i < niters; i++)
			if (cs[i / 64] >> (i % 64) & 1)
				count++, j = i;
		if (count != 1 || !set_empty(sets + (size_t)prog->iters[j]->id * words, words))
			continue;
		bool ok = true;
		for (int k = 0; k < d->ndeps && ok; k++) {
			const struct sema_def *p = d->deps[k];
			ok = p == prog->iters[j] ||
			     (p->kind != SEMA_ITER && set_empty(sets + (size_t)p->id * words, words));
		}
		unary[c] = ok;
	}
	/* Independent sub-nests: iterators joined by any definition that
	 * depends on both (dag_components).  A sub-nest, once opened, is
	 * finished before another starts, so independent nests never
	 * interleave: a rejection in one is not repeated for every value of
	 * the other, and the nest stays a product that counting can factor. */
	int *comp = xcalloc((size_t)niters, sizeof(int));
	bool *all = xcalloc((size_t)niters, sizeof(bool));
	for (int j = 0; j < niters; j++)
		all[j] = true;
	dag_components(g, all, comp);
	free(all);
	/*
	 * Wide iterators (a literal range of more than WIDE_ITERATOR values)
	 * wait for the narrow iterators they share a constraint with: opened
	 * first, a wide loop multiplies everything inside it, while opened
	 * after them its constraints are complete at once and the loop
	 * transformations (equality solving, divisors, congruences) can skip
	 * most of its values.  synthetic_wide: 10^5 values of n under 192
	 * (wg, wpt) pairs, stepped by wg * wpt.
	 */
	bool *wide = xcalloc((size_t)niters, sizeof(bool));
	bool any_wide = false;
	for (int j = 0; j < niters; j++)
		any_wide |= wide[j] = literal_size(prog->iters[j]) > WIDE_ITERATOR;
	/* (Quadratic in the iterators: built only when one is wide.) */
	bool *shares = xcalloc(any_wide ? (size_t)niters * (size_t)niters : 1, sizeof(bool));
	for (int c = 0; c < prog->nconstraints && any_wide; c++) {
		const uint64_t *cs = sets + (size_t)prog->constraints[c]->id * words;
		if (unary[c])
			continue;
		for (int i = 0; i < niters; i++)
			for (int j = 0; j < niters; j++)
				if ((cs[i / 64] >> (i % 64) & 1) && (cs[j / 64] >> (j % 64) & 1))
					shares[(size_t)i * (size_t)niters + (size_t)j] = true;
	}
	bool *ready_now = xcalloc((size_t)niters, sizeof(bool));
	int current = -1; /* the sub-nest being enumerated */
	for (int pos = 0; pos < niters; pos++) {
		int best = -1, best_done = -1;
		double best_near = -1;
		bool best_feeds = false;
		bool stay = false;
		for (int j = 0; j < niters && current >= 0 && !stay; j++) {
			if ((bound[j / 64] >> (j % 64) & 1) || comp[j] != current)
				continue;
			const uint64_t *need = sets + (size_t)prog->iters[j]->id * words;
			bool ready = true;
			for (size_t w = 0; w < words && ready; w++)
				ready = (need[w] & ~bound[w]) == 0;
			stay = ready;
		}
		for (int j = 0; j < niters; j++) {
			ready_now[j] = false;
			if ((bound[j / 64] >> (j % 64) & 1) || (stay && comp[j] != current))
				continue;
			const uint64_t *need = sets + (size_t)prog->iters[j]->id * words;
			bool ready = true;
			for (size_t w = 0; w < words && ready; w++)
				ready = (need[w] & ~bound[w]) == 0;
			ready_now[j] = ready;
		}
		for (int j = 0; j < niters; j++) {
			if (!ready_now[j])
				continue;
			if (wide[j]) {
				bool waits = false;
				for (int i = 0; i < niters; i++)
					waits |= ready_now[i] && !wide[i] && shares[(size_t)i * (size_t)niters + (size_t)j];
				if (waits)
					continue;
			}
			/* Constraints checkable once `it` is bound, and not before. */
			/* Then, how near it brings the others: 1/k for a
			 * constraint still k iterators short. */
			int done = 0;
			double near = 0;
			bound[j / 64] |= 1ull << (j % 64);
			for (int c = 0; c < prog->nconstraints; c++) {
				const uint64_t *cs = sets + (size_t)prog->constraints[c]->id * words;
				if (unary[c] || !(cs[j / 64] >> (j % 64) & 1))
					continue;
				int missing = 0;
				for (size_t w = 0; w < words; w++)
					missing += __builtin_popcountll(cs[w] & ~bound[w]);
				if (missing == 0)
					done++;
				else
					near += 1.0 / missing;
			}
			bound[j / 64] &= ~(1ull << (j % 64));
			if (done > best_done || (done == best_done && near > best_near) ||
			    (done == best_done && near == best_near && feeds[j] && !best_feeds)) {
				best = j;
				best_done = done;
				best_near = near;
				best_feeds = feeds[j];
			}
		}
		if (best < 0) /* cannot happen in an acyclic program */
			break;
		bound[best / 64] |= 1ull << (best % 64);
		order[pos] = prog->iters[best];
		current = comp[best];
	}
	free(comp);
	free(sets);
	free(bound);
	free(feeds);
	free(unary);
	free(wide);
	free(shares);
	free(ready_now);
}


struct fplan {
	const struct sema_program *P;
	int n;               /* iterators, indexed by decl_pos */
	const struct dag *g; /* supports and components (dag/dag.c) */
	bool *bound;         /* decl_pos: in the main chain */
	int *orig_pos;       /* decl_pos: its position in the default order */
	int *chain;          /* main chain, decl_pos */
	int nchain;
	int *block_of;       /* decl_pos: sub-nest index, or -1 */
	int nblocks;
};

static const bool *supp_of(struct fplan *f, const struct sema_def *d)
{
	return dag_supp(f->g, d);
}

static int components(struct fplan *f, const bool *set, int *comp)
{
	return dag_components(f->g, set, comp);
}

/* Whether iterator x can open once the main chain is bound. */
static bool ready(struct fplan *f, int x)
{
	const bool *s = supp_of(f, f->P->iters[x]);
	for (int y = 0; y < f->n; y++)
		if (y != x && s[y] && !f->bound[y])
			return false;
	return true;
}

static void plan_component(struct fplan *f, const bool *set, bool top);

/* Iterators, derived values and constraints: what runs per point. */
static bool per_point(const struct sema_def *d)
{
	return d->kind == SEMA_ITER || d->kind == SEMA_DERIVED || d->kind == SEMA_CONSTRAINT;
}

/* Whether two sets of iterators meet. */
static bool meets(const bool *a, const bool *b, int n)
{
	for (int x = 0; x < n; x++)
		if (a[x] && b[x])
			return true;
	return false;
}

/* How many bound iterators the definitions touching `set` read: the key
 * of a sub-nest made of `set`. */
static int key_size(struct fplan *f, const bool *set)
{
	const struct sema_program *P = f->P;
	bool *key = xcalloc((size_t)f->n, sizeof(bool));
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		const bool *s = supp_of(f, d);
		if (!per_point(d) || !meets(s, set, f->n))
			continue;
		for (int x = 0; x < f->n; x++)
			key[x] |= s[x] && f->bound[x];
	}
	int k = 0;
	for (int x = 0; x < f->n; x++)
		k += key[x];
	free(key);
	return k;
}

/*
 * A component about to become a sub-nest whose key is every iterator
 * bound so far can never be found in its memo table (the chain visits
 * each prefix once).  Binding one of its iterators in the chain instead
 * may leave a rest that can: gemm_beast's {blk_n, dim_m_b, dim_n_b} reads
 * blk_m through the register and shared-memory limits, but with blk_n in
 * the chain, {dim_m_b, dim_n_b} is keyed without blk_m, so it is counted
 * once per blk_m loop (near counts) instead of once per point.  Returns
 * the ready iterator whose rest has the smallest key, where that is
 * smaller than the chain; else -1 (a sub-nest as planned).
 */
static int never_reused(struct fplan *f, const bool *set)
{
	int nbound = 0;
	for (int x = 0; x < f->n; x++)
		nbound += f->bound[x];
	if (nbound == 0 || key_size(f, set) < nbound)
		return -1;
	bool *rest = xcalloc((size_t)f->n, sizeof(bool));
	int best = -1, best_key = nbound + 1; /* the chain and x */
	for (int x = 0; x < f->n; x++) {
		if (!set[x] || !ready(f, x))
			continue;
		memcpy(rest, set, sizeof(bool) * (size_t)f->n);
		rest[x] = false;
		f->bound[x] = true;
		int k = key_size(f, rest);
		f->bound[x] = false;
		if (k < best_key || (k == best_key && best >= 0 && f->orig_pos[x] < f->orig_pos[best])) {
			best = x;
			best_key = k;
		}
	}
	free(rest);
	return best_key <= nbound ? best : -1;
}

/* Plans each component of `set` (comp, ncomp: its components given the
 * bound chain) in turn. */
static void plan_parts(struct fplan *f, const bool *set, const int *comp, int ncomp, bool top)
{
	int n = f->n;
	bool *part = xcalloc((size_t)n, sizeof(bool));
	/* Components in the default order of their first loop. */
	bool *done = xcalloc((size_t)n, sizeof(bool));
	for (int k = 0; k < ncomp; k++) {
		int best = -1;
		for (int x = 0; x < n; x++)
			if (set[x] && !done[comp[x]] && (best < 0 || f->orig_pos[x] < f->orig_pos[best]))
				best = x;
		done[comp[best]] = true;
		for (int x = 0; x < n; x++)
			part[x] = set[x] && comp[x] == comp[best];
		plan_component(f, part, top && ncomp == 1);
	}
	free(done);
	free(part);
}

static void plan_components(struct fplan *f, const bool *set, bool top)
{
	int *comp = xcalloc((size_t)f->n, sizeof(int));
	plan_parts(f, set, comp, components(f, set, comp), top);
	free(comp);
}

/*
 * One component: bind iterators until it splits (they join the main
 * chain; the pieces are planned in turn) or is used up (a sub-nest; when
 * `alone`, the whole program, it stays in the main chain unfactorized).
 */
static void plan_component(struct fplan *f, const bool *set, bool alone)
{
	int n = f->n;
	bool *rest = xcalloc((size_t)n, sizeof(bool));
	memcpy(rest, set, sizeof(bool) * (size_t)n);
	int *comp = xcalloc((size_t)n, sizeof(int));
	int *pulled = xcalloc((size_t)n, sizeof(int));
	int npulled = 0, left = 0;
	for (int x = 0; x < n; x++)
		left += rest[x];
	bool split = false;
	while (left > 0 && !split) {
		int best = -1, best_parts = -1;
		for (int x = 0; x < n; x++) {
			if (!rest[x] || !ready(f, x))
				continue;
			rest[x] = false;
			f->bound[x] = true;
			int parts = components(f, rest, comp);
			f->bound[x] = false;
			rest[x] = true;
			if (parts > best_parts || (parts == best_parts && f->orig_pos[x] < f->orig_pos[best])) {
				best = x;
				best_parts = parts;
			}
		}
		if (best < 0) /* cannot happen: the first of the default order is ready */
			break;
		rest[best] = false;
		f->bound[best] = true;
		pulled[npulled++] = best;
		left--;
		split = best_parts >= 2;
	}
	if (split || alone) {
		for (int i = 0; i < npulled; i++)
			f->chain[f->nchain++] = pulled[i];
		if (left)
			plan_components(f, rest, false);
	} else {
		/* A sub-nest: nothing of it stays bound. */
		for (int i = 0; i < npulled; i++)
			f->bound[pulled[i]] = false;
		int pull = npulled > 1 ? never_reused(f, set) : -1;
		if (pull >= 0) {
			f->bound[pull] = true;
			f->chain[f->nchain++] = pull;
			memcpy(rest, set, sizeof(bool) * (size_t)n);
			rest[pull] = false;
			plan_components(f, rest, false);
		} else {
			for (int x = 0; x < n; x++)
				if (set[x])
					f->block_of[x] = f->nblocks;
			f->nblocks++;
		}
	}
	free(pulled);
	free(comp);
	free(rest);
}

/*
 * What the checkpoints need of each sub-nest b, from its definitions:
 * nkey[b], the outer values it reads (its memo key); first_orig[b], the
 * default order's position of its first loop; prunes[b], whether it has a constraint; and,
 * where `at` is given, at[b], the chain position of the deepest iterator
 * those values depend on (its checkpoint level, -1: before the loops).
 */
static void block_inputs(struct fplan *f, int *nkey, int *first_orig, bool *prunes, int *at)
{
	const struct sema_program *P = f->P;
	int n = f->n;
	bool *counted = xcalloc(((size_t)P->ndefs + 1) * (size_t)f->nblocks, sizeof(bool));
	for (int b = 0; b < f->nblocks; b++) {
		nkey[b] = 0;
		first_orig[b] = n;
		prunes[b] = false;
		if (at)
			at[b] = -1;
	}
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		const bool *s = supp_of(f, d);
		int b = -1;
		for (int x = 0; x < n && b < 0; x++)
			if (s[x] && f->block_of[x] >= 0)
				b = f->block_of[x];
		if (b < 0 || !per_point(d))
			continue;
		if (d->kind == SEMA_ITER && f->orig_pos[d->decl_pos] < first_orig[b])
			first_orig[b] = f->orig_pos[d->decl_pos];
		prunes[b] |= d->kind == SEMA_CONSTRAINT;
		for (int k = 0; k < d->ndeps; k++) {
			const struct sema_def *p = d->deps[k];
			const bool *ps = supp_of(f, p);
			bool inside = false, outer = false;
			for (int x = 0; x < n; x++) {
				inside |= ps[x] && f->block_of[x] == b;
				outer |= ps[x];
			}
			if (inside || !outer)
				continue; /* its own, or computed once */
			if (!counted[(size_t)p->id * (size_t)f->nblocks + (size_t)b]) {
				counted[(size_t)p->id * (size_t)f->nblocks + (size_t)b] = true;
				nkey[b]++;
			}
			/* The deepest main iterator p depends on sets its level. */
			for (int j = 0; at && j < f->nchain; j++)
				if (ps[f->chain[j]] && j > at[b])
					at[b] = j;
		}
	}
	free(counted);
}

/* Whether sub-nest p is looked up before q where both are at one level:
 * those with a constraint first, then the smaller key, then the default
 * order (cgen/cg_factor.c, cg_factor_checkpoints). */
static bool block_before(const int *nkey, const int *first_orig, const bool *prunes, int p, int q)
{
	if (prunes[p] != prunes[q])
		return prunes[p];
	return nkey[p] < nkey[q] || (nkey[p] == nkey[q] && first_orig[p] < first_orig[q]);
}

/*
 * For each chain iterator, the first sub-nest (in the order of
 * block_before) whose key it is read by, as a rank (f->nblocks: none).
 */
static void key_rank(struct fplan *f, int *rank)
{
	const struct sema_program *P = f->P;
	int n = f->n, nb = f->nblocks;
	int *nkey = xcalloc((size_t)nb, sizeof(int)), *first_orig = xcalloc((size_t)nb, sizeof(int));
	int *order = xcalloc((size_t)nb, sizeof(int));
	bool *prunes = xcalloc((size_t)nb, sizeof(bool));
	block_inputs(f, nkey, first_orig, prunes, NULL);
	for (int b = 0; b < nb; b++) {
		int r = 0;
		for (int q = 0; q < nb; q++)
			r += q != b && block_before(nkey, first_orig, prunes, q, b);
		order[b] = r;
	}
	for (int x = 0; x < n; x++)
		rank[x] = nb;
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		const bool *s = supp_of(f, d);
		if (!per_point(d))
			continue;
		for (int x = 0; x < n; x++) {
			int b = f->block_of[x];
			if (!s[x] || b < 0)
				continue;
			for (int y = 0; y < n; y++)
				if (s[y] && f->block_of[y] < 0 && order[b] < rank[y])
					rank[y] = order[b];
		}
	}
	free(prunes);
	free(order);
	free(first_orig);
	free(nkey);
}

/*
 * The main chain's order.  Pulling put splitting iterators first; the
 * order now follows the usual rules of a good nest instead: first an
 * iterator that completes a constraint of the chain (a rejection as
 * early as possible), else one whose range depends on a bound iterator
 * (fail first: the bound value narrows it, as blk_m = range(dim_m, N,
 * dim_m) is narrowed by dim_m, while an independent range is as wide as
 * ever and, opened last, is where bound tightening cuts), else one that
 * brings the chain's constraints nearest to complete (1/k for one still
 * k iterators short, as the greedy order counts), else one read by the
 * key of a sub-nest looked up earlier (key_rank), else the default order.
 *
 * Only the chain's own constraints count as near: those of the sub-nests
 * are checked inside them whatever the chain's order.  The greedy
 * default order counts both, and was the tie-break before the key rule: the
 * Kernel Tuner form of gemm_beast (bench/formulations/gemm_beast_kt.space)
 * writes 'dim_n_b <= blk_n', a constraint of the B reshape that binding
 * blk_n brings one iterator short, so the default opens blk_n before blk_m,
 * where the paper's form opens blk_m first; for the chain the two are
 * alike.  Nearness is asked before the key rule, which alone would open
 * synthetic_sparse's tx (read by the {tz} sub-nest) before wy (wx * wy in
 * a set, ty * wy >= 64): 490K candidates instead of 97K.
 *
 * The key rule.  A sub-nest's near counts (cgen/cg_factor.c) are kept by the values
 * of the loops its key varies with inside the innermost loop it does not
 * vary with; a loop it does not read, opened inside those it reads, keeps
 * that array small.  gemm_beast's A reshape reads blk_m, the B reshape
 * blk_n: with blk_m outside blk_n, A's counts are kept by (blk_k,
 * dim_vec) and B's by (blk_n, blk_k, dim_vec), and the other way round
 * where blk_n comes first.  The sub-nest looked up first at a checkpoint
 * is looked up at every visit, the next ones only where it was not empty,
 * so the first gets the small array.  With blk_n first (the Kernel Tuner
 * form before this rule), A's counts outgrew their array of NEAR_MAX
 * entries: the H100 count enumerated A 12.5M times instead of 5.6M, and
 * took 1.8x the paper form's time.
 */
static void order_chain(struct fplan *f)
{
	const struct sema_program *P = f->P;
	int n = f->n;
	int *rank = xcalloc((size_t)n, sizeof(int));
	key_rank(f, rank);
	bool *in_chain = xcalloc((size_t)n, sizeof(bool));
	for (int i = 0; i < f->nchain; i++)
		in_chain[f->chain[i]] = true;
	memset(f->bound, 0, sizeof(bool) * (size_t)n);
	for (int pos = 0; pos < f->nchain; pos++) {
		int best = -1, best_done = -1;
		bool best_dep = false;
		double best_near = -1;
		for (int x = 0; x < n; x++) {
			if (!in_chain[x] || f->bound[x] || !ready(f, x))
				continue;
			int done = 0;
			double near = 0;
			for (int c = 0; c < P->nconstraints; c++) {
				const bool *cs = supp_of(f, P->constraints[c]);
				int missing = 0;
				bool chain_only = true;
				for (int y = 0; y < n; y++) {
					chain_only &= !cs[y] || in_chain[y];
					missing += cs[y] && y != x && !(in_chain[y] && f->bound[y]);
				}
				done += cs[x] && !missing;
				if (cs[x] && missing && chain_only)
					near += 1.0 / missing;
			}
			const bool *xs = supp_of(f, P->iters[x]);
			bool dep = false;
			for (int y = 0; y < n; y++)
				dep |= y != x && xs[y];
			if (best < 0 || done > best_done || (done == best_done && dep && !best_dep) ||
			    (done == best_done && dep == best_dep &&
			     (near > best_near || (near == best_near && rank[x] < rank[best]) ||
			      (near == best_near && rank[x] == rank[best] && f->orig_pos[x] < f->orig_pos[best])))) {
				best = x;
				best_done = done;
				best_dep = dep;
				best_near = near;
			}
		}
		f->bound[best] = true;
		f->chain[pos] = best;
	}
	free(in_chain);
	free(rank);
}

/*
 * Whether some sub-nest can ever be found in its memo table.  One whose
 * key holds, as themselves, every chain iterator up to the deepest it
 * reads sees a new key at every visit (the chain visits each prefix once),
 * so memoizing it saves nothing, while the chain it forces can cost a
 * lot: synthetic_wide's {wpt}, keyed by (wg, n), pulled n ahead of wpt and
 * so lost the congruence stepping of n over multiples of wg * wpt (40x the
 * candidates).  A plan in which no sub-nest can be reused is dropped.
 */
static bool any_block_reused(struct fplan *f)
{
	const struct sema_program *P = f->P;
	int n = f->n;
	for (int b = 0; b < f->nblocks; b++) {
		bool *direct = xcalloc((size_t)n, sizeof(bool));
		int deepest = -1;
		for (int i = 0; i < P->ndefs; i++) {
			const struct sema_def *d = P->defs[i];
			if (d->kind != SEMA_ITER && d->kind != SEMA_DERIVED && d->kind != SEMA_CONSTRAINT)
				continue;
			const bool *s = supp_of(f, d);
			bool mine = false;
			for (int x = 0; x < n && !mine; x++)
				mine = s[x] && f->block_of[x] == b;
			if (!mine)
				continue;
			for (int k = 0; k < d->ndeps; k++) {
				const struct sema_def *p = d->deps[k];
				const bool *ps = supp_of(f, p);
				for (int j = 0; j < f->nchain; j++) {
					if (!ps[f->chain[j]])
						continue;
					if (j > deepest)
						deepest = j;
					if (p->kind == SEMA_ITER && p->decl_pos == f->chain[j])
						direct[j] = true;
				}
			}
		}
		bool fresh = deepest >= 0;
		for (int j = 0; j <= deepest && fresh; j++)
			fresh = direct[j];
		free(direct);
		if (!fresh)
			return true;
	}
	return false;
}


/* ---- the final order ----------------------------------------------------------------- */

void dag_order_default(const struct sema_program *prog, bool level_sets, struct sema_def **order)
{
	sema_level_set_order(prog, order);
	if (level_sets || prog->niters < 2)
		return;
	struct dag g;
	dag_build(&g, prog);
	greedy(prog, &g, order);
	dag_release(&g);
}

void dag_order_place(struct sema_program *prog, bool level_sets)
{
	struct sema_def **order = xcalloc((size_t)prog->niters + 1, sizeof(*order));
	dag_order_default(prog, level_sets, order);
	sema_set_loop_order(prog, order);
	free(order);
}

/* The default order, regrouped: the chain, then each sub-nest in the
 * order of its checkpoint (see below), each in the default order inside. */
static void regroup(struct fplan *f, struct sema_def *const *deflt, struct dag_order *o)
{
	const struct sema_program *P = f->P;
	int n = f->n;
	o->nchain = f->nchain;
	o->nblocks = f->nblocks;
	o->blocks = xcalloc((size_t)f->nblocks, sizeof(*o->blocks));
	for (int i = 0; i < f->nchain; i++)
		o->order[i] = P->iters[f->chain[i]];
	int *at = xcalloc((size_t)f->nblocks, sizeof(int));
	int *first_orig = xcalloc((size_t)f->nblocks, sizeof(int));
	int *nkey = xcalloc((size_t)f->nblocks, sizeof(int));
	bool *prunes = xcalloc((size_t)f->nblocks, sizeof(bool));
	block_inputs(f, nkey, first_orig, prunes, at);
	/*
	 * The smaller key first: likelier memo hits, so cheaper, and its
	 * zeros prune the dearer ones; so no sub-nest is counted before
	 * one with a smaller key (it waits for that one's level).  The
	 * blocks follow the chain in that order of checkpoints.
	 */
	int *border = xcalloc((size_t)f->nblocks, sizeof(int));
	for (int b = 0; b < f->nblocks; b++)
		border[b] = b;
	for (int i = 1; i < f->nblocks; i++)
		for (int j = i; j > 0; j--) {
			int p = border[j - 1], q = border[j];
			if (nkey[p] < nkey[q] || (nkey[p] == nkey[q] && first_orig[p] <= first_orig[q]))
				break;
			border[j - 1] = q;
			border[j] = p;
		}
	for (int i = 1; i < f->nblocks; i++)
		if (at[border[i]] < at[border[i - 1]])
			at[border[i]] = at[border[i - 1]];
	int pos = f->nchain;
	for (int bi = 0; bi < f->nblocks; bi++) {
		int b = border[bi];
		struct dag_block *bd = &o->blocks[bi];
		bd->first = pos;
		bd->at = at[b];
		for (int p = 0; p < n; p++)
			if (f->block_of[deflt[p]->decl_pos] == b)
				o->order[pos++] = deflt[p];
		bd->last = pos - 1;
	}
	free(border);
	free(at);
	free(first_orig);
	free(nkey);
	free(prunes);
}

void dag_order_plan(const struct sema_program *P, bool level_sets, bool factorize, struct dag_order *o)
{
	memset(o, 0, sizeof(*o));
	int n = P->niters;
	o->order = xcalloc((size_t)n + 1, sizeof(*o->order));
	o->nchain = n;
	dag_build(&o->g, P);
	sema_level_set_order(P, o->order);
	if (!level_sets && n >= 2)
		greedy(P, &o->g, o->order);
	if (!factorize || n < 2)
		return;
	struct fplan f = { .P = P, .n = n, .g = &o->g };
	f.bound = xcalloc((size_t)n, sizeof(bool));
	f.orig_pos = xcalloc((size_t)n, sizeof(int));
	f.chain = xcalloc((size_t)n, sizeof(int));
	f.block_of = xcalloc((size_t)n, sizeof(int));
	for (int p = 0; p < n; p++)
		f.orig_pos[o->order[p]->decl_pos] = p;
	for (int x = 0; x < n; x++)
		f.block_of[x] = -1;
	/* Nothing bound yet: the components are dag's sub-nests. */
	bool *all = xcalloc((size_t)n, sizeof(bool));
	int *comp = xcalloc((size_t)n, sizeof(int));
	for (int x = 0; x < n; x++) {
		all[x] = true;
		comp[x] = o->g.nodes[P->iters[x]->id].subnest;
	}
	plan_parts(&f, all, comp, o->g.nsubnests, true);
	free(comp);
	free(all);
	if (f.nblocks > 0)
		order_chain(&f);
	if (f.nblocks > 0 && any_block_reused(&f)) {
		struct sema_def **deflt = xcalloc((size_t)n, sizeof(*deflt));
		memcpy(deflt, o->order, sizeof(*deflt) * (size_t)n);
		regroup(&f, deflt, o);
		free(deflt);
	}
	free(f.bound);
	free(f.orig_pos);
	free(f.chain);
	free(f.block_of);
}

void dag_order_release(struct dag_order *o)
{
	free(o->order);
	free(o->blocks);
	dag_release(&o->g);
	memset(o, 0, sizeof(*o));
}
