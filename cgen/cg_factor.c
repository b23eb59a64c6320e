/*
 * cg_factor.c - memoized factorization of independent sub-nests (-O1 and up).
 *
 * Which iterators form the main chain and which the sub-nests, and the
 * order of each, is the loop order's decision (dag/order.c, which says
 * why a nest splits and how): the order pass hands it over in c->order
 * and c->ord, the chain first, then the sub-nests, each contiguous.  A
 * component's points, given the chain's values, do not depend on any
 * other component, so the rest of the nest is the cross product of the
 * sub-nests: its count is the product of their counts, and each count is
 * a function of the few outer values the sub-nest reads (its key).
 *
 * The code.  Each sub-nest j gets count_j(), its loops as usual (the
 * other -O1 transformations included) with "count, and record the point
 * when listing" innermost, and fac_j(), which looks the key up in the
 * sub-nest's memo table (runtime/memo.c) and runs count_j on a miss.  In
 * the main chain, right after the level where the last of its key values
 * is computed (hoisted as far out as its inputs allow), the sub-nest is
 * counted: zero skips the rest of the point, else the count multiplies a
 * running product.  Innermost, counting adds the product; listing walks
 * the recorded points of every sub-nest, nested in loop order, so the
 * points come in exactly the order of the unfactorized nest with the same
 * loop order.
 *
 * Statistics.  A memo entry keeps what its enumeration added to every
 * counter of the sub-nest's definitions (and to the candidates), and a
 * hit adds those again, so the statistics are those of a nest that
 * counts each sub-nest afresh at its checkpoint: they do not depend on
 * hits, evictions or on which state (thread) did the work.  They do
 * differ from -fno-factorization's, like every -O1 transformation's.
 *
 * Memo tables live in struct space_state (one per enumeration state);
 * a state copied for another thread must start with its tables NULL.
 */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_int.h"
#include "order.h"

struct cg_block_def {
	int first, last;               /* loop positions */
	int at;                        /* checkpoint after this level (-1: before the loops) */
	int nkey;
	const struct sema_def **key;   /* the outer values it reads */
	int nrows;
	int *rows;                     /* statistics rows of its definitions */
	bool prunes;                   /* it has a constraint: its count may well be 0 */
	/* Near counts: the key does not vary with loop near_q (< at), only
	 * with loops near_q + 1 .. at inside it (-1: some loop up to `at`
	 * is none of those, or every one varies it). */
	int near_q;
};

struct cg_factor {
	int nmain;
	int nblocks;
	struct cg_block_def *blocks;
	const char *memo, *near;       /* state member prefixes: memo tables, near counts */
	const char *prod;              /* the running product in scope */
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

void cg_factor_plan(struct cg *c)
{
	const struct sema_program *P = c->P;
	const struct dag_order *o = &c->ord;
	int n = P->niters;
	c->loop_end = P->niters;
	c->block = -1;
	if (!o->nblocks)
		return;
	/* The order pass (dag/order.c) split the nest: the chain, then the
	 * sub-nests, already in c->order. */
	struct cg_factor *fc = xcalloc(1, sizeof(*fc));
	c->fac = fc;
	fc->memo = cg_internal_prefix(c, "memo_");
	fc->near = cg_internal_prefix(c, "near_");
	fc->nmain = o->nchain;
	c->loop_end = o->nchain;
	fc->nblocks = o->nblocks;
	fc->blocks = xcalloc((size_t)o->nblocks, sizeof(*fc->blocks));
	for (int bi = 0; bi < fc->nblocks; bi++) {
		fc->blocks[bi].first = o->blocks[bi].first;
		fc->blocks[bi].last = o->blocks[bi].last;
		fc->blocks[bi].at = o->blocks[bi].at;
	}
	/* Keys and statistics rows, from the final levels. */
	for (int bi = 0; bi < fc->nblocks; bi++) {
		struct cg_block_def *bd = &fc->blocks[bi];
		bool *in = xcalloc((size_t)P->ndefs + 1, sizeof(bool));
		for (int i = 0; i < P->ndefs; i++) {
			const struct sema_def *d = P->defs[i];
			in[d->id] = cg_level(c, d) >= bd->first && cg_level(c, d) <= bd->last &&
				    (d->kind == SEMA_ITER || d->kind == SEMA_DERIVED ||
				     d->kind == SEMA_CONSTRAINT);
		}
		bool *keyed = xcalloc((size_t)P->ndefs + 1, sizeof(bool));
		bd->key = xcalloc((size_t)P->ndefs + 1, sizeof(*bd->key));
		bd->rows = xcalloc((size_t)P->ndefs + 1, sizeof(int));
		for (int i = 0; i < P->ndefs; i++) {
			const struct sema_def *d = P->defs[i];
			if (!in[d->id])
				continue;
			if (c->row[d->id] >= 0)
				bd->rows[bd->nrows++] = c->row[d->id];
			bd->prunes |= d->kind == SEMA_CONSTRAINT;
			for (int k = 0; k < d->ndeps; k++) {
				const struct sema_def *p = d->deps[k];
				if (!in[p->id] && cg_level(c, p) >= 0 && !keyed[p->id]) {
					keyed[p->id] = true;
					bd->key[bd->nkey++] = p;
				}
			}
		}
		qsort(bd->rows, (size_t)bd->nrows, sizeof(int), cmp_int);
		free(keyed);
		free(in);
		/* The loops the key varies with, and the innermost one up
		 * to the checkpoint that it does not. */
		bool *varies = xcalloc((size_t)n + 1, sizeof(bool));
		for (int k = 0; k < bd->nkey; k++) {
			const bool *s = dag_supp(&o->g, bd->key[k]);
			for (int x = 0; x < n; x++)
				if (s[x])
					varies[cg_pos(c, P->iters[x])] = true;
		}
		bd->near_q = -1;
		for (int p = bd->at; p >= 0 && bd->near_q < 0; p--)
			if (!varies[p])
				bd->near_q = p;
		if (bd->near_q == bd->at)
			bd->near_q = -1;
		free(varies);
	}
}

void cg_factor_release(struct cg *c)
{
	struct cg_factor *fc = c->fac;
	if (!fc)
		return;
	for (int b = 0; b < fc->nblocks; b++) {
		free(fc->blocks[b].key);
		free(fc->blocks[b].rows);
	}
	free(fc->blocks);
	free(fc);
	c->fac = NULL;
}

bool cg_factor_main(const struct cg *c, int k)
{
	return !c->fac || k < c->fac->nmain;
}

int cg_factor_block(const struct cg *c, int k)
{
	for (int b = 0; c->fac && b < c->fac->nblocks; b++)
		if (k >= c->fac->blocks[b].first && k <= c->fac->blocks[b].last)
			return b;
	return -1;
}

int cg_factor_checkpoint(const struct cg *c, int b)
{
	return c->fac->blocks[b].at;
}

/* ---- code ---------------------------------------------------------------------------- */

static const char *level_word(struct cg *c)
{
	return c->opt->opt_level >= 2 ? "-O2" : "-O1";
}

/* The block's iterators as a comment-friendly list: {a, b}. */
static const char *block_names(struct cg *c, const struct cg_block_def *bd)
{
	struct sbuf b = { 0 };
	sbuf_puts(&b, "{");
	for (int p = bd->first; p <= bd->last; p++)
		sbuf_printf(&b, "%s%s", p > bd->first ? ", " : "", c->order[p]->cname);
	sbuf_puts(&b, "}");
	const char *s = cg_strdup(c, b.s);
	sbuf_release(&b);
	return s;
}

/*
 * Near counts.  A sub-nest's key often does not vary with some loop
 * outside its checkpoint: gemm_beast's A reshape reads blk_m, blk_k,
 * threads_per_block and dim_vec, never blk_n, which runs between blk_m
 * and blk_k.  Each blk_n value then looks the same (blk_k, dim_vec)
 * keys up again: 33.7M lookups of a hash table for the H100 count.
 * While loops 0 .. q - 1 keep their values (q: the innermost such loop),
 * the count is a function of the loops q + 1 .. at alone, so a small
 * array indexed by their values (within the bounds cg_interval_columns
 * proved) keeps it, stamped with a generation that entering loop q
 * bumps.  Only where statistics are not read (count, list): the
 * candidates, which stay exact, are kept with the count.  Listing also
 * needs the entry's points: the entry is kept too, and used while its
 * memo table has not started over since (sprt_memo_epoch); an empty
 * count has no points to keep and serves listing as long as counting
 * (gemm_beast's A reshape, H100 list: its table is switched off, 937 of
 * 4096 keys at the trial, most of them empty, and each near count was
 * thrown away, 29.5M sub-nest runs for the count's 5.6M).  An array
 * over NEAR_MAX entries is not made, and one that cannot be had is gone
 * without.  Where the loops' extents hold more values than that (but
 * their index still fits 64 bits), the array of NEAR_MAX entries is a
 * direct-mapped cache of them instead: the index, hashed, picks the entry
 * and is kept in it, and a collision evicts (the memo table then answers,
 * or counts again).  gemm_beast's B reshape is keyed by (blk_n, blk_k,
 * dim_vec) inside blk_m: 2M possible values, 61K distinct in the K40c
 * count, whose table lookups were a tenth of its time.
 */
#define NEAR_BITS 14
#define NEAR_MAX (1 << NEAR_BITS)

/* Iterator x's index in definition order: its columns in the bounds. */
static int column_of(const struct cg *c, const struct sema_def *x)
{
	for (int i = 0; i < c->P->niters; i++)
		if (c->P->iters[i] == x)
			return i;
	return -1;
}

/* The loop positions of block bd's near count, or false where it has none. */
static bool near_loops(const struct cg *c, const struct cg_block_def *bd, int *first, int *last)
{
	if (bd->near_q < 0 || !cg_interval_columns_member(c))
		return false;
	for (int p = bd->near_q + 1; p <= bd->at; p++)
		if (c->ctype[c->order[p]->id] != CG_T_INT ||
		    !cg_interval_column_bounded(c, column_of(c, c->order[p])))
			return false;
	*first = bd->near_q + 1;
	*last = bd->at;
	return true;
}

void cg_factor_state(struct cg *c, struct sbuf *out)
{
	if (!c->fac)
		return;
	sbuf_puts(out, "\t/* Memo tables of the factorized sub-nests (NULL until first used). */\n");
	for (int b = 0; b < c->fac->nblocks; b++)
		sbuf_printf(out, "\tstruct sprt_memo *%s%d;\n", c->fac->memo, b);
	for (int b = 0; b < c->fac->nblocks; b++) {
		int first, last;
		if (!near_loops(c, &c->fac->blocks[b], &first, &last))
			continue;
		sbuf_printf(out, "\t/* Sub-nest %d's near counts (NULL: none), their generation and extents. */\n", b);
		sbuf_printf(out, "\tstruct sprt_memo_near *%s%d;\n", c->fac->near, b);
		sbuf_printf(out, "\tuint64_t %s%d_gen;\n", c->fac->near, b);
		sbuf_printf(out, "\tuint64_t %s%d_span[%d];\n", c->fac->near, b, last - first + 1);
		sbuf_printf(out, "\tunsigned %s%d_shift; /* 0: one entry per index; else hashed: index * K >> shift */\n",
			    c->fac->near, b);
	}
}

/*
 * Each walk of random access (runtime/access.c) is a whole enumeration:
 * the memo tables it keeps from one walk to the next (sprt_par_memos)
 * spare every walk counting the sub-nests again (gaussian, 200 points of
 * spacetune's bo: 0.31 -> 0.22 CPU s).
 */
void cg_factor_take_state(struct cg *c, struct sbuf *out)
{
	if (!c->fac || c->fac->nblocks == 0)
		return;
	sbuf_printf(out, "\tstruct sprt_memo **kept_ = sprt_par_memos(ctx, %d);\n", c->fac->nblocks);
	sbuf_puts(out, "\tif (kept_) {\n");
	for (int b = 0; b < c->fac->nblocks; b++)
		sbuf_printf(out, "\t\tst.%s%d = kept_[%d];\n", c->fac->memo, b, b);
	sbuf_puts(out, "\t}\n");
}

void cg_factor_free_state(struct cg *c, struct sbuf *out)
{
	if (!c->fac)
		return;
	if (c->fac->nblocks > 0) {
		sbuf_puts(out, "\tif (kept_) {\n");
		for (int b = 0; b < c->fac->nblocks; b++)
			sbuf_printf(out, "\t\tkept_[%d] = st.%s%d;\n", b, c->fac->memo, b);
		sbuf_puts(out, "\t} else {\n");
		for (int b = 0; b < c->fac->nblocks; b++)
			sbuf_printf(out, "\t\tsprt_memo_free(st.%s%d);\n", c->fac->memo, b);
		sbuf_puts(out, "\t}\n");
	}
	for (int b = 0; b < c->fac->nblocks; b++) {
		int first, last;
		if (near_loops(c, &c->fac->blocks[b], &first, &last))
			sbuf_printf(out, "\tsprt_memo_near_free(st.%s%d);\n", c->fac->near, b);
	}
}

void cg_factor_near_setup(struct cg *c)
{
	struct cg_factor *fc = c->fac;
	const char *cb = cg_interval_columns_member(c);
	for (int b = 0; fc && b < fc->nblocks; b++) {
		const struct cg_block_def *bd = &fc->blocks[b];
		int first, last;
		if (!near_loops(c, bd, &first, &last))
			continue;
		struct sbuf names = { 0 };
		for (int p = first; p <= last; p++)
			sbuf_printf(&names, "%s%s", p > first ? ", " : "", c->order[p]->cname);
		cg_line(c, "/* %s: factorization: sub-nest %d's counts by (%s), which are all its key", level_word(c), b,
			names.s);
		cg_line(c, " * varies with inside '%s' (near counts; no statistics read) */",
			c->order[bd->near_q]->cname);
		sbuf_release(&names);
		struct sbuf ok = { 0 };
		for (int p = first; p <= last; p++)
			sbuf_printf(&ok, " && st->%s_ok[%d]", cb, column_of(c, c->order[p]));
		cg_line(c, "if (ctx->no_stats%s) {", ok.s ? ok.s : "");
		sbuf_release(&ok);
		c->indent++;
		cg_line(c, "uint64_t size_ = 1;");
		cg_line(c, "bool fits_ = true; /* the index fits 64 bits */");
		for (int p = first; p <= last; p++) {
			int i = column_of(c, c->order[p]);
			cg_line(c, "st->%s%d_span[%d] = (uint64_t)st->%s[%d] - (uint64_t)st->%s[%d] + 1;", fc->near, b, p - first,
				cb, 2 * i + 1, cb, 2 * i);
		}
		cg_line(c, "for (int i = 0; i < %d && fits_; i++) {", last - first + 1);
		cg_line(c, "\tfits_ = st->%s%d_span[i] != 0 && st->%s%d_span[i] <= UINT64_MAX / size_;", fc->near, b, fc->near, b);
		cg_line(c, "\tsize_ *= st->%s%d_span[i];", fc->near, b);
		cg_line(c, "}");
		cg_line(c, "st->%s%d_shift = fits_ && size_ > %d ? %d : 0;", fc->near, b, NEAR_MAX, 64 - NEAR_BITS);
		cg_line(c, "if (fits_)");
		cg_line(c, "\tst->%s%d = sprt_memo_near_new(size_ > %d ? %d : size_);", fc->near, b, NEAR_MAX, NEAR_MAX);
		c->indent--;
		cg_line(c, "}");
	}
}

void cg_factor_loop_entry(struct cg *c, int k)
{
	struct cg_factor *fc = c->fac;
	for (int b = 0; fc && c->block < 0 && b < fc->nblocks; b++) {
		int first, last;
		if (fc->blocks[b].near_q == k && near_loops(c, &fc->blocks[b], &first, &last))
			cg_line(c, "st->%s%d_gen++; /* sub-nest %d's near counts start over */", fc->near, b, b);
	}
}

/* The lookup of block b at its checkpoint into c_b (a count), through its
 * near count where it has one. */
static void near_lookup(struct cg *c, int b, int first, int last)
{
	const struct cg_factor *fc = c->fac;
	const char *cb = cg_interval_columns_member(c);
	cg_line(c, "struct sprt_memo_near *near_ = NULL;");
	cg_line(c, "uint64_t index_ = 0;");
	cg_line(c, "if (st->%s%d) {", fc->near, b);
	c->indent++;
	struct sbuf in = { 0 };
	const char *idx = "i0_";
	for (int p = first; p <= last; p++) {
		const struct sema_def *x = c->order[p];
		int j = p - first, i = column_of(c, x);
		cg_line(c, "const uint64_t i%d_ = (uint64_t)st->%s - (uint64_t)st->%s[%d];", j, c->member[x->id], cb, 2 * i);
		sbuf_printf(&in, "%si%d_ < st->%s%d_span[%d]", j ? " && " : "", j, fc->near, b, j);
		if (j)
			idx = cg_fmt(c, "%s%s%s * st->%s%d_span[%d] + i%d_", j > 1 ? "(" : "", idx, j > 1 ? ")" : "", fc->near, b,
				     j, j);
	}
	cg_line(c, "if (%s) {", in.s);
	cg_line(c, "\tindex_ = %s;", idx);
	cg_line(c, "\tnear_ = &st->%s%d[st->%s%d_shift ? index_ * UINT64_C(0x9E3779B97F4A7C15) >> st->%s%d_shift : index_];",
		fc->near, b, fc->near, b, fc->near, b);
	cg_line(c, "}");
	sbuf_release(&in);
	c->indent--;
	cg_line(c, "}");
	cg_line(c, "if (near_ && near_->stamp == st->%s%d_gen && near_->index == index_ &&", fc->near, b);
	cg_line(c, "    (!ctx->emit || !near_->count || (near_->epoch && near_->epoch == sprt_memo_epoch(st->%s%d)))) {",
		fc->memo, b);
	cg_line(c, "\tc_%d = near_->count;", b);
	cg_line(c, "\tctx->candidates += near_->candidates;");
	cg_line(c, "\tf_%d = c_%d ? near_->entry : NULL; /* its points, when listing */", b, b);
	cg_line(c, "\tif (ctx->emit) /* counting is faster with the table off where it misses */");
	cg_line(c, "\t\tsprt_memo_near_hit(st->%s%d);", fc->memo, b);
	cg_line(c, "} else {");
	c->indent++;
	cg_line(c, "const int rc_ = fac_%d(ctx, st, &f_%d);", b, b);
	cg_line(c, "if (rc_)");
	cg_line(c, "\treturn rc_;");
	cg_line(c, "c_%d = f_%d->count;", b, b);
	cg_line(c, "if (near_)");
	cg_line(c, "\t*near_ = (struct sprt_memo_near){ st->%s%d_gen, index_, c_%d, f_%d->stats[0], f_%d,", fc->near, b, b, b, b);
	cg_line(c, "\t\t\t\t\t  sprt_memo_epoch(st->%s%d) };", fc->memo, b);
	c->indent--;
	cg_line(c, "}");
}

/*
 * A sub-nest's recorded points are packed where all its iterators are
 * typed ints: four int64_t to a sprt_val's 32 bytes, so a point of w
 * values takes (w + 3) / 4 of them (synthetic_deep's 10-loop sub-nest
 * recorded 117 MiB of points when listing, most of its time in page
 * faults).  The table copies them with memcpy and hands them back as
 * they were written.
 */
static bool packed_points(const struct cg *c, const struct cg_block_def *bd)
{
	for (int p = bd->first; p <= bd->last; p++)
		if (c->ctype[c->order[p]->id] == CG_T_VAL)
			return false;
	return true;
}

/* A recorded point's width in sprt_vals (the table's width). */
static int point_width(const struct cg *c, const struct cg_block_def *bd)
{
	int w = bd->last - bd->first + 1;
	return packed_points(c, bd) ? (w + 3) / 4 : w;
}

/* The innermost code of count_b: one more point, recorded when listing. */
static void block_innermost(struct cg *c, const struct cg_block_def *bd)
{
	cg_line(c, "e->count++;");
	cg_line(c, "if (record) {");
	c->indent++;
	const bool packed = packed_points(c, bd);
	struct sbuf init = { 0 };
	for (int p = bd->first; p <= bd->last; p++)
		sbuf_printf(&init, "%s%s", p > bd->first ? ", " : "",
			    packed ? cg_fmt(c, "st->%s", c->member[c->order[p]->id])
				   : cg_value_of(c, c->order[p]));
	if (packed) {
		cg_line(c, "const int64_t pt[%d] = { %s }; /* packed: four to a sprt_val */", 4 * point_width(c, bd),
			init.s);
		cg_line(c, "const int rc_ = sprt_memo_add_point(st->%s%d, e, (const sprt_val *)(const void *)pt);",
			c->fac->memo, c->block);
	} else {
		cg_line(c, "const sprt_val pt[%d] = { %s };", bd->last - bd->first + 1, init.s);
		cg_line(c, "const int rc_ = sprt_memo_add_point(st->%s%d, e, pt);", c->fac->memo, c->block);
	}
	sbuf_release(&init);
	cg_line(c, "if (rc_)");
	cg_line(c, "\treturn -rc_;");
	c->indent--;
	cg_line(c, "}");
}

void cg_factor_functions(struct cg *c, struct sbuf *out, void (*loops)(struct cg *, int))
{
	struct cg_factor *fc = c->fac;
	if (!fc)
		return;
	const struct sema_program *P = c->P;
	for (int b = 0; b < fc->nblocks; b++) {
		const struct cg_block_def *bd = &fc->blocks[b];
		struct sbuf code = { 0 };
		struct sbuf *saved_code = c->code;
		int saved_indent = c->indent;
		c->code = &code;
		c->indent = 1;
		c->block = b;
		c->loop_first = bd->first;
		c->loop_end = bd->last + 1;
		loops(c, bd->first);
		c->block = -1;
		c->loop_first = 0;
		c->loop_end = fc->nmain;
		c->code = saved_code;
		c->indent = saved_indent;

		int nstats = 3 * bd->nrows + 1;
		sbuf_printf(out, "/*\n * Sub-nest %d, %s: independent of every other loop once its\n"
				 " * inputs are bound, so it is counted once per input tuple (",
			    b, block_names(c, bd));
		for (int k = 0; k < bd->nkey; k++)
			sbuf_printf(out, "%s%s", k ? ", " : "", bd->key[k]->cname);
		sbuf_puts(out, bd->nkey ? "" : "none: once");
		sbuf_puts(out, ") and\n * its points are recorded when listing.\n */\n");
		sbuf_printf(out, "static int count_%d(struct sprt_ctx *ctx, struct space_state *st, "
				 "struct sprt_memo_entry *e, bool record)\n{\n", b);
		sbuf_puts(out, "\tsprt_val v = sprt_undef();\n\tint64_t iv = 0;\n"
			       "\t(void)v;\n\t(void)iv;\n\t(void)record;\n");
		sbuf_add(out, code.s, code.len);
		sbuf_puts(out, "\treturn 0;\n}\n\n");
		sbuf_release(&code);

		sbuf_printf(out, "/* Sub-nest %d from its memo table; a hit replays its statistics (unless nobody reads them). */\n", b);
		sbuf_printf(out, "static int fac_%d(struct sprt_ctx *ctx, struct space_state *st, "
				 "const struct sprt_memo_entry **out)\n{\n", b);
		if (bd->nrows) {
			sbuf_printf(out, "\tstatic const int rows[%d] = { ", bd->nrows);
			for (int r = 0; r < bd->nrows; r++)
				sbuf_printf(out, "%s%d", r ? ", " : "", bd->rows[r]);
			sbuf_puts(out, " };\n");
		}
		/* typed keys hash and compare as plain int64_t */
		bool ints = bd->nkey > 0;
		for (int k = 0; k < bd->nkey; k++)
			ints &= cg_typed_member(c, bd->key[k]);
		if (ints) {
			sbuf_printf(out, "\tconst int64_t key[%d] = { ", bd->nkey);
			for (int k = 0; k < bd->nkey; k++)
				sbuf_printf(out, "%sst->%s", k ? ", " : "", c->member[bd->key[k]->id]);
			sbuf_puts(out, " };\n");
		} else if (bd->nkey) {
			sbuf_printf(out, "\tconst sprt_val key[%d] = { ", bd->nkey);
			for (int k = 0; k < bd->nkey; k++)
				sbuf_printf(out, "%s%s", k ? ", " : "", cg_value_of(c, bd->key[k]));
			sbuf_puts(out, " };\n");
		} else {
			sbuf_puts(out, "\tconst sprt_val key[1] = { sprt_none() };\n");
		}
		sbuf_puts(out, "\tstruct sprt_memo_entry *e;\n");
		/* stats[0]: the candidates; then 3 deltas a row, kept only
		 * when statistics are read (smaller entries: more of them
		 * fit the table's cap) */
		sbuf_printf(out, "\tconst int found = sprt_memo_find%s(&st->%s%d, key, %d, ctx->no_stats ? 1 : %d, %d, &e);\n",
			    ints ? "_ints" : "", fc->memo, b, bd->nkey, nstats, point_width(c, bd));
		sbuf_puts(out, "\tif (found < 0)\n\t\treturn found;\n");
		/* the statistics through the entry (spacert_gen.h) */
		const char *rows = bd->nrows ? "rows" : "NULL";
		sbuf_printf(out, "\tif (found) {\n\t\tsprt_memo_replay(ctx, e, %s, %d);\n\t} else {\n", rows, bd->nrows);
		sbuf_printf(out, "\t\tuint64_t before[%d] = { 0 };\n", nstats);
		sbuf_printf(out, "\t\tsprt_memo_mark(ctx, %s, %d, before);\n", rows, bd->nrows);
		sbuf_printf(out, "\t\tconst int rc = count_%d(ctx, st, e, ctx->emit != NULL);\n", b);
		sbuf_puts(out, "\t\tif (rc)\n\t\t\treturn rc;\n");
		sbuf_printf(out, "\t\tsprt_memo_record(ctx, %s, %d, before, e);\n", rows, bd->nrows);
		sbuf_puts(out, "\t}\n\t*out = e;\n\treturn 0;\n}\n\n");
	}
	(void)P;
}

void cg_factor_checkpoints(struct cg *c, int level, const char *skip)
{
	struct cg_factor *fc = c->fac;
	if (!fc || c->block >= 0)
		return;
	if (level < 0)
		fc->prod = NULL;
	bool any = false;
	struct sbuf prod = { 0 };
	sbuf_puts(&prod, fc->prod ? fc->prod : "(uint64_t)1");
	/*
	 * Those with a constraint first: a zero among them skips the lookups
	 * of the rest (a sub-nest without one, such as gemm_beast's vec_mul,
	 * is rarely empty).  Only the order of the checks changes: the
	 * product, and the order in which points are listed, do not.
	 */
	for (int i = 0; i < 2 * fc->nblocks; i++) {
		int b = i % fc->nblocks;
		const struct cg_block_def *bd = &fc->blocks[b];
		if (bd->at != level || bd->prunes != (i < fc->nblocks))
			continue;
		any = true;
		cg_line(c, "/* %s: factorization: sub-nest %d %s counted here, once per input tuple */",
			level_word(c), b, block_names(c, bd));
		int first, last;
		if (near_loops(c, bd, &first, &last)) {
			cg_line(c, "const struct sprt_memo_entry *f_%d = NULL; /* NULL: a near count */", b);
			cg_line(c, "uint64_t c_%d;", b);
			cg_line(c, "{");
			c->indent++;
			near_lookup(c, b, first, last);
			c->indent--;
			cg_line(c, "}");
			cg_line(c, "if (!c_%d)", b);
			cg_line(c, "\t%s", skip);
			sbuf_printf(&prod, " * c_%d", b);
			continue;
		}
		cg_line(c, "const struct sprt_memo_entry *f_%d;", b);
		cg_line(c, "{");
		cg_line(c, "\tconst int rc_ = fac_%d(ctx, st, &f_%d);", b, b);
		cg_line(c, "\tif (rc_)");
		cg_line(c, "\t\treturn rc_;");
		cg_line(c, "}");
		cg_line(c, "if (!f_%d->count)", b);
		cg_line(c, "\t%s", skip);
		sbuf_printf(&prod, " * f_%d->count", b);
	}
	if (any) {
		const char *w = cg_fmt(c, "w_%d", level + 1);
		cg_line(c, "const uint64_t %s = %s;", w, prod.s);
		fc->prod = w;
	}
	sbuf_release(&prod);
}

/* Sets the state from point p_b of sub-nest b (its loop variable's name),
 * through q_b. */
static void block_point(struct cg *c, int b)
{
	const struct cg_block_def *bd = &c->fac->blocks[b];
	const int w = point_width(c, bd);
	const bool packed = packed_points(c, bd);
	if (packed)
		cg_line(c, "const int64_t *q_%d = (const int64_t *)(const void *)(f_%d->points + p_%d * %d);", b, b, b, w);
	else
		cg_line(c, "const sprt_val *q_%d = f_%d->points + p_%d * %d;", b, b, b, w);
	for (int p = bd->first; p <= bd->last; p++) {
		const struct sema_def *x = c->order[p];
		cg_line(c, "st->%s = q_%d[%d]%s;", c->member[x->id], b, p - bd->first,
			packed || c->ctype[x->id] == CG_T_VAL ? "" : ".u.i");
	}
}

/* Whether the product can be ranked by its digits: it has sub-nests (each
 * f_b holds its points when listing, a near count's included). */
static bool rank_path(struct cg *c)
{
	return c->fac->nblocks > 0;
}

/*
 * A rank walk of random access (runtime/access.c) looks for one point.
 * The product's points are the sub-nests' in mixed radix (the last varies
 * fastest), so only one of them can be it: each sub-nest's digit is its
 * first point with the wanted point's values in its columns.  That one
 * point is listed (the walk compares the whole point: the columns set
 * outside the product may still differ) and the rest passed over
 * uncounted, instead of listing and comparing all w of them (gaussian:
 * 25,000 points a rank on average, 88% of spacetune bo's time there).
 */
static void product_rank(struct cg *c)
{
	struct cg_factor *fc = c->fac;
	const char *w = fc->prod ? fc->prod : "1";
	cg_line(c, "const sprt_val *m_ = par_level >= 0 ? sprt_par_match(ctx) : NULL;");
	cg_line(c, "if (m_) {");
	c->indent++;
	cg_line(c, "uint64_t at_ = 0;");
	cg_line(c, "bool in_ = true;");
	for (int b = 0; b < fc->nblocks; b++) {
		const struct cg_block_def *bd = &fc->blocks[b];
		cg_line(c, "size_t p_%d = 0;", b);
		cg_line(c, "for (; in_ && p_%d < f_%d->npoints; p_%d++) {", b, b, b);
		c->indent++;
		block_point(c, b);
		struct sbuf same = { 0 };
		for (int p = bd->first; p <= bd->last; p++) {
			const struct sema_def *x = c->order[p];
			sbuf_printf(&same, "%ssprt_val_same(%s, m_[%d])", same.len ? " && " : "", cg_value_of(c, x),
				    column_of(c, x));
		}
		cg_line(c, "if (%s)", same.len ? same.s : "true");
		cg_line(c, "	break;");
		sbuf_release(&same);
		c->indent--;
		cg_line(c, "}");
		cg_line(c, "in_ = in_ && p_%d < f_%d->npoints;", b, b);
		cg_line(c, "at_ = at_ * f_%d->npoints + p_%d;", b, b);
	}
	cg_line(c, "if (!in_) {");
	cg_line(c, "	sprt_par_pass(ctx, %s);", w);
	cg_line(c, "	ctx->valid += %s;", w);
	cg_line(c, "} else {");
	c->indent++;
	cg_line(c, "sprt_par_pass(ctx, at_);");
	cg_line(c, "ctx->valid += at_ + 1;");
	cg_emit_point(c);
	cg_line(c, "if (!ctx->stop) {");
	cg_line(c, "	sprt_par_pass(ctx, %s - at_ - 1);", w);
	cg_line(c, "	ctx->valid += %s - at_ - 1;", w);
	cg_line(c, "}");
	c->indent--;
	cg_line(c, "}");
	c->indent--;
	cg_line(c, "} else {");
	c->indent++;
}

/*
 * Innermost, in the main chain (count) or in a sub-nest (count_b).
 * Returns false when the caller should write the usual valid point.
 */
bool cg_factor_innermost(struct cg *c)
{
	struct cg_factor *fc = c->fac;
	if (!fc)
		return false;
	if (c->block >= 0) {
		block_innermost(c, &fc->blocks[c->block]);
		return true;
	}
	cg_line(c, "/* the sub-nests' product of points */");
	cg_line(c, "if (!ctx->emit) {");
	cg_line(c, "\tctx->valid += %s;", fc->prod ? fc->prod : "1");
	cg_line(c, "} else {");
	c->indent++;
	/* Random access (runtime/access.c) wants one point of the product:
	 * the runtime says how many come before it, and the loops start at
	 * that point's digits (the last sub-nest varies fastest), each loop
	 * starting from 0 again once the one around it moves on. */
	if (rank_path(c))
		product_rank(c);
	if (fc->nblocks > 0) {
		cg_line(c, "uint64_t skip_ = par_level >= 0 ? sprt_par_skip(ctx, %s) : 0;", fc->prod ? fc->prod : "1");
		for (int b = 0; b < fc->nblocks; b++)
			cg_line(c, "size_t s_%d = 0;", b);
		cg_line(c, "if (skip_) {");
		c->indent++;
		cg_line(c, "ctx->valid += skip_;");
		for (int b = fc->nblocks - 1; b >= 0; b--) {
			cg_line(c, "s_%d = f_%d->npoints ? (size_t)(skip_ %% f_%d->npoints) : 0;", b, b, b);
			cg_line(c, "skip_ = f_%d->npoints ? skip_ / f_%d->npoints : 0;", b, b);
		}
		cg_line(c, "if (skip_)");
		cg_line(c, "\ts_0 = f_0->npoints; /* all of it skipped */");
		c->indent--;
		cg_line(c, "}");
	}
	/*
	 * The point is kept across the product's loops, each loop storing
	 * only its own sub-nest's columns: the columns set outside stay as
	 * they are (gemm_beast's H100 list: 13 of 15 columns, 78M points,
	 * were copied from the state for each one; gaussian's: 9 of 20
	 * sprt_vals, 149M points).
	 */
	cg_point_decl(c, false, "point_");
	int opened = 0;
	for (int b = 0; b < fc->nblocks; b++) {
		cg_line(c, "for (size_t p_%d = s_%d; p_%d < f_%d->npoints && !ctx->stop; p_%d++) {", b, b, b, b, b);
		c->indent++;
		opened++;
		block_point(c, b);
		const struct cg_block_def *bd = &fc->blocks[b];
		for (int p = bd->first; p <= bd->last; p++)
			cg_line(c, "point_[%d] = %s;", column_of(c, c->order[p]), cg_point_value(c, c->order[p]));
	}
	cg_line(c, "ctx->valid++;");
	cg_point_emit(c, "point_");
	while (opened--) {
		c->indent--;
		cg_line(c, "}");
		if (opened > 0)
			cg_line(c, "s_%d = 0;", opened);
	}
	if (rank_path(c)) {
		c->indent--;
		cg_line(c, "}");
	}
	c->indent--;
	cg_line(c, "}");
	return true;
}

/*
 * An iterator whose inputs are all computed once has the same iterable
 * wherever its loop opens: it is computed once too, and each opening only
 * counts (and replays a domain error), as the interpreter would.
 */
bool cg_hoisted(const struct cg *c, const struct sema_def *d)
{
	if (cg_pos(c, d) == 0 || c->block >= 0 || !cg_factor_main(c, cg_pos(c, d)))
		return false;
	for (int k = 0; k < d->ndeps; k++)
		if (cg_level(c, d->deps[k]) >= 0 || d->deps[k]->kind == SEMA_ITER)
			return false;
	return true;
}
