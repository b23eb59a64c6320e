/*
 * gemm_beast_brute.c - brute-force count of BEAST's GEMM search space
 *
 * Written from the paper alone: P. Luszczek, M. Gates, J. Kurzak,
 * A. Danalis, J. Dongarra, "Search Space Generation and Pruning System for
 * Autotuners", IPDPSW 2016, Figures 8-15 (text in
 * ../shared/seeds/002_e64c616ea0f0df3a.txt).  It reads no .space file and
 * shares no code with spacec: plain C loops over the paper's 15 iterators,
 * the derived variables of Fig. 12 in the order printed, and the hard, soft
 * and correctness constraints of Figs. 13-15, each rejecting a point where
 * it returns True (the paper's polarity).
 *
 * Where the printed figures cannot be taken literally, the line says
 * "READING:" and why.  The readings in one place:
 *   - Python 2's integer '/' is floor division ('//'), in the iterators of
 *     Fig. 11 and the derived variables of Fig. 12;
 *   - fmas_per_block / loads_per_block (Fig. 14, low_fmas) stays a true
 *     division: it is a ratio compared with min_fmas_per_load;
 *   - dim_vec (Fig. 11) tests `arithmetic == "double"` and
 *     `precision == "real"`, the two names swapped in print: read as
 *     double real {1,2}, double complex 1, single real {1,4}, single
 *     complex {1,2};
 *   - the Fig. 9 tables stop at compute capability 3.x; rows 4.x-9.x are
 *     added so the H100 profile (cc 9.0) resolves: 32 blocks, 64 warps,
 *     255 registers per thread at [9][0].
 * A run-time error of the language (a division or modulo by zero, an index
 * outside a table) rejects the point, as spacec's documented semantics say
 * (docs/LANGUAGE.md); no point of the shipped profiles reaches one except
 * the few with loads_per_block == 0, which cant_reshape_a1/a2 reject anyway.
 *
 * Usage:
 *   gemm_beast_brute [--h100-single] [--plain] [--set NAME=VALUE]...
 *
 *   (default)       Fig. 8's Tesla K40c with Fig. 10's settings: double
 *                   precision, real arithmetic, neither A nor B transposed
 *   --h100-single   spaces/gemm_beast_h100_sp.json: single precision,
 *                   232448 B of shared memory per block, 233472 B per
 *                   multiprocessor, compute capability 9.0; every other
 *                   device value stays the K40c's
 *   --set N=V       rebind a device parameter (Fig. 8), a setting (Fig. 10:
 *                   precision, arithmetic take a word, trans_a, trans_b an
 *                   int) or a soft-constraint threshold (Fig. 14:
 *                   min_threads_per_multi_processor, min_fmas_per_load);
 *                   applied after --h100-single
 *   --plain         walk every one of the 15 loops in full.  The default
 *                   solves dim_n_a (dim_n_b) from cant_reshape_a1 (b1),
 *                   dim_m_a * dim_n_a == threads_per_block, by walking the
 *                   divisors of threads_per_block, and multiplies by the
 *                   sizes of vec_mul, tex_a, tex_b, shmem_l1 and shmem_banks,
 *                   which no constraint reads; tests/oracle/run.sh checks
 *                   that both modes agree on small devices.
 *
 * Every constraint is tested in the innermost loop where all of its
 * variables are bound (BEAST's level sets), which changes how long the
 * count takes, never the count.
 *
 * Prints the number of valid points on stdout and a summary on stderr.
 */

#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int64_t i64;

/* Fig. 8 (device query), Fig. 10 (settings), Fig. 14 (thresholds) */
struct space_params {
	i64 max_threads_per_block;
	i64 max_threads_dim_x;
	i64 max_threads_dim_y;
	i64 max_shared_mem_per_block;
	i64 warp_size;
	i64 max_regs_per_block;
	i64 max_threads_per_multi_processor;
	i64 cudamajor;
	i64 cudaminor;
	i64 max_registers_per_multi_processor;
	i64 max_shmem_per_multi_processor;
	i64 float_size;
	int precision_double;	/* precision == "double" */
	int arithmetic_complex;	/* arithmetic == "complex" */
	i64 trans_a;
	i64 trans_b;
	i64 min_threads_per_multi_processor;
	i64 min_fmas_per_load;
};

static void tesla_k40c(struct space_params *p)
{
	/* Fig. 8 */
	p->max_threads_per_block = 1024;
	p->max_threads_dim_x = 1024;
	p->max_threads_dim_y = 1024;
	p->max_shared_mem_per_block = 49152;
	p->warp_size = 32;
	p->max_regs_per_block = 65536;
	p->max_threads_per_multi_processor = 2048;
	p->cudamajor = 3;
	p->cudaminor = 5;
	p->max_registers_per_multi_processor = 65536;
	p->max_shmem_per_multi_processor = 49152;
	p->float_size = 4;
	/* Fig. 10 */
	p->precision_double = 1;
	p->arithmetic_complex = 0;
	p->trans_a = 0;
	p->trans_b = 0;
	/* Fig. 14 */
	p->min_threads_per_multi_processor = 256;
	p->min_fmas_per_load = 2;
}

/* the values of spaces/gemm_beast_h100_sp.json, over the K40c's */
static void h100_single(struct space_params *p)
{
	p->precision_double = 0;
	p->max_shared_mem_per_block = 232448;
	p->max_shmem_per_multi_processor = 233472;
	p->cudamajor = 9;
	p->cudaminor = 0;
}

/*
 * Fig. 9, indexed [cudamajor][cudaminor].  Rows 0-3 are the paper's.
 * READING: rows 4-9 are not in the paper (it predates them); they are added
 * so that cc 9.0 resolves, with the CUDA programming guide's values for the
 * devices that exist (5.0/5.2/5.3, 6.0-6.2, 7.0/7.2/7.5, 8.0/8.6/8.7/8.9,
 * 9.0) and -1 elsewhere, as the paper pads.  Only [3][5] (K40c) and [9][0]
 * (H100: 32 blocks, 64 warps, 255 registers) are used by the shipped
 * profiles.
 */
#define CC_MAJORS 10
#define CC_MINORS 10
static const i64 max_blocks_per_multi_processor_table[CC_MAJORS][CC_MINORS] = {
	{ -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	{ 8, 8, 8, 8, -1, -1, -1, -1, -1, -1 },
	{ 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 },
	{ 16, -1, -1, -1, -1, 16, -1, -1, -1, -1 },
	{ -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	{ 32, -1, 32, 32, -1, -1, -1, -1, -1, -1 },
	{ 32, 32, 32, -1, -1, -1, -1, -1, -1, -1 },
	{ 32, -1, 32, -1, -1, 16, -1, -1, -1, -1 },
	{ 32, -1, -1, -1, -1, -1, 16, 16, -1, 24 },
	{ 32, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
};
static const i64 max_warps_per_multi_processor_table[CC_MAJORS][CC_MINORS] = {
	{ -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	{ 24, 24, 32, 32, -1, -1, -1, -1, -1, -1 },
	{ 48, 48, 48, 48, 48, 48, 48, 48, 48, 48 },
	{ 64, -1, -1, -1, -1, 64, -1, -1, -1, -1 },
	{ -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	{ 64, -1, 64, 64, -1, -1, -1, -1, -1, -1 },
	{ 64, 64, 64, -1, -1, -1, -1, -1, -1, -1 },
	{ 64, -1, 64, -1, -1, 32, -1, -1, -1, -1 },
	{ 64, -1, -1, -1, -1, -1, 48, 48, -1, 48 },
	{ 64, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
};
/* READING: the paper prints "- 1" in row 0; it is -1 */
static const i64 max_registers_per_thread_table[CC_MAJORS][CC_MINORS] = {
	{ -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	{ 128, 128, 128, 128, -1, -1, -1, -1, -1, -1 },
	{ 63, 63, 63, 63, 63, 63, 63, 63, 63, 63 },
	{ 63, -1, -1, -1, -1, 255, -1, -1, -1, -1 },
	{ -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	{ 255, -1, 255, 255, -1, -1, -1, -1, -1, -1 },
	{ 255, 255, 255, -1, -1, -1, -1, -1, -1, -1 },
	{ 255, -1, 255, -1, -1, 255, -1, -1, -1, -1 },
	{ 255, -1, -1, -1, -1, -1, 255, 255, -1, 255 },
	{ 255, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
};

/* Python's list indexing: a negative index counts from the end */
static int python_index(i64 i, i64 n, i64 *out)
{
	if (i < 0)
		i += n;
	if (i < 0 || i >= n)
		return -1;
	*out = i;
	return 0;
}

static int table_lookup(const i64 t[CC_MAJORS][CC_MINORS], i64 major, i64 minor, i64 *out)
{
	i64 row, col;

	if (python_index(major, CC_MAJORS, &row) || python_index(minor, CC_MINORS, &col))
		return -1;
	*out = t[row][col];
	return 0;
}

/* Python's '//' and '%'; a zero divisor sets *error (the point is rejected) */
static i64 floor_div(i64 a, i64 b, int *error)
{
	i64 q;

	if (b == 0) {
		*error = 1;
		return 0;
	}
	q = a / b;
	if (a % b != 0 && (a < 0) != (b < 0))
		q--;
	return q;
}

static i64 python_mod(i64 a, i64 b, int *error)
{
	i64 r;

	if (b == 0) {
		*error = 1;
		return 0;
	}
	r = a % b;
	if (r != 0 && (r < 0) != (b < 0))
		r += b;
	return r;
}

static i64 min_i64(i64 a, i64 b)
{
	return a < b ? a : b;
}

/* Fig. 9's three lookups */
struct compute_capability {
	i64 max_blocks_per_multi_processor;
	i64 max_warps_per_multi_processor;	/* looked up, never read (as in the paper) */
	i64 max_registers_per_thread;
};

/* The derived variables of Fig. 12, in the order printed */
struct derived {
	i64 threads_per_block;
	i64 thr_m, thr_n;
	i64 regs_per_thread, regs_per_block;
	i64 shmem_per_block;
	i64 max_blocks_by_regs, max_threads_by_regs;
	i64 max_blocks_by_shmem, max_threads_by_shmem;
	i64 loads_per_thread, loads_per_block;
	i64 fmas_per_thread, fmas_per_block;
};

/* (dim_m, dim_n) level */
static void derive_threads(struct derived *d, i64 dim_m, i64 dim_n)
{
	d->threads_per_block = dim_m * dim_n;
}

/* (blk_m, blk_n) level: the registers */
static int derive_registers(const struct space_params *p, const struct compute_capability *cc,
			    struct derived *d, i64 dim_m, i64 dim_n, i64 blk_m, i64 blk_n)
{
	int error = 0;

	/* READING: Python 2 '/' on ints (exact here: blk_m is a multiple of dim_m) */
	d->thr_m = floor_div(blk_m, dim_m, &error);
	d->thr_n = floor_div(blk_n, dim_n, &error);
	d->regs_per_thread = d->thr_m * d->thr_n;
	if (p->precision_double)
		d->regs_per_thread = d->regs_per_thread * 2;
	if (p->arithmetic_complex)
		d->regs_per_thread = d->regs_per_thread * 2;
	d->regs_per_block = d->regs_per_thread * d->threads_per_block;
	/* READING: Python 2 '/' on ints */
	d->max_blocks_by_regs = floor_div(p->max_registers_per_multi_processor, d->regs_per_block, &error);
	d->max_blocks_by_regs = min_i64(d->max_blocks_by_regs, cc->max_blocks_per_multi_processor);
	d->max_threads_by_regs = d->max_blocks_by_regs * d->threads_per_block;
	return error;
}

/* blk_k level: shared memory and FMAs */
static int derive_stripe(const struct space_params *p, const struct compute_capability *cc,
			 struct derived *d, i64 blk_m, i64 blk_n, i64 blk_k)
{
	int error = 0;

	d->shmem_per_block = blk_k * (blk_m + blk_n) * p->float_size;
	if (p->precision_double)
		d->shmem_per_block = d->shmem_per_block * 2;
	if (p->arithmetic_complex)
		d->shmem_per_block = d->shmem_per_block * 2;
	/* READING: Python 2 '/' on ints */
	d->max_blocks_by_shmem = floor_div(p->max_shmem_per_multi_processor, d->shmem_per_block, &error);
	d->max_blocks_by_shmem = min_i64(d->max_blocks_by_shmem, cc->max_blocks_per_multi_processor);
	d->max_threads_by_shmem = d->max_blocks_by_shmem * d->threads_per_block;
	d->fmas_per_thread = d->thr_m * d->thr_n * blk_k;
	d->fmas_per_block = d->fmas_per_thread * d->threads_per_block;
	if (p->arithmetic_complex)
		d->fmas_per_block = d->fmas_per_block * 4;
	return error;
}

/* dim_vec level: the loads */
static int derive_loads(const struct space_params *p, struct derived *d, i64 blk_k, i64 dim_vec)
{
	int error = 0;

	/* READING: Python 2 '/' on ints, evaluated left to right:
	 * ((thr_m + thr_n) * blk_k) // dim_vec */
	d->loads_per_thread = floor_div((d->thr_m + d->thr_n) * blk_k, dim_vec, &error);
	d->loads_per_block = d->loads_per_thread * d->threads_per_block;
	if (p->arithmetic_complex)
		d->loads_per_block = d->loads_per_block * 2;
	return error;
}

/* ---- Fig. 13: hard constraints (True rejects) ---- */
static int over_max_threads(const struct space_params *p, const struct derived *d)
{
	return d->threads_per_block > p->max_threads_per_block;
}

static int over_max_regs_per_thread(const struct compute_capability *cc, const struct derived *d)
{
	return d->regs_per_thread > cc->max_registers_per_thread;
}

static int over_max_regs_per_block(const struct space_params *p, const struct derived *d)
{
	return d->regs_per_block > p->max_regs_per_block;
}

static int over_max_shmem(const struct space_params *p, const struct derived *d)
{
	return d->shmem_per_block > p->max_shared_mem_per_block;
}

/* ---- Fig. 14: soft constraints (True rejects) ---- */
static int low_occupancy_regs(const struct space_params *p, const struct derived *d)
{
	return d->max_threads_by_regs < p->min_threads_per_multi_processor;
}

static int low_occupancy_shmem(const struct space_params *p, const struct derived *d)
{
	return d->max_threads_by_shmem < p->min_threads_per_multi_processor;
}

/*
 * READING: a true division (a ratio, not Python 2's floor).  Compared
 * exactly: with loads_per_block > 0, fmas / loads < m iff fmas < m * loads.
 * loads_per_block == 0 is a division by zero: the point is rejected.
 */
static int low_fmas(const struct space_params *p, const struct derived *d, int *error)
{
	if (d->loads_per_block == 0) {
		*error = 1;
		return 1;
	}
	if (d->loads_per_block > 0)
		return d->fmas_per_block < p->min_fmas_per_load * d->loads_per_block;
	return d->fmas_per_block > p->min_fmas_per_load * d->loads_per_block;
}

static int partial_warps(const struct space_params *p, const struct derived *d, int *error)
{
	return python_mod(d->threads_per_block, p->warp_size, error) != 0;
}

/* ---- Fig. 15: correctness constraints (True rejects) ---- */
static int cant_reshape_1(i64 dim_m_x, i64 dim_n_x, const struct derived *d)
{
	return dim_m_x * dim_n_x != d->threads_per_block;
}

static int cant_reshape_a2(const struct space_params *p, i64 blk_m, i64 blk_k, i64 dim_m_a,
			   i64 dim_n_a, i64 dim_vec, int *error)
{
	if (p->trans_a == 0)
		return python_mod(blk_m, dim_m_a * dim_vec, error) != 0 ||
		       python_mod(blk_k, dim_n_a, error) != 0;
	return python_mod(blk_k, dim_m_a * dim_vec, error) != 0 ||
	       python_mod(blk_m, dim_n_a, error) != 0;
}

static int cant_reshape_b2(const struct space_params *p, i64 blk_k, i64 blk_n, i64 dim_m_b,
			   i64 dim_n_b, i64 dim_vec, int *error)
{
	if (p->trans_b == 0)
		return python_mod(blk_k, dim_m_b * dim_vec, error) != 0 ||
		       python_mod(blk_n, dim_n_b, error) != 0;
	return python_mod(blk_n, dim_m_b * dim_vec, error) != 0 ||
	       python_mod(blk_k, dim_n_b, error) != 0;
}

/* ---- Fig. 11: the iterators whose ranges depend on others ---- */

/*
 * dim_vec(arithmetic, precision).  READING: the figure tests
 * `arithmetic == "double"` and `precision == "real"`; the names are swapped
 * in print (arithmetic is real/complex, precision single/double).
 * double real: range(1, 3); double complex: 1; single real: range(1, 5, 3);
 * single complex: range(1, 3).
 */
static int dim_vec_values(const struct space_params *p, i64 out[2])
{
	if (p->precision_double) {
		if (!p->arithmetic_complex) {
			out[0] = 1;
			out[1] = 2;
			return 2;
		}
		out[0] = 1;
		return 1;
	}
	if (!p->arithmetic_complex) {
		out[0] = 1;
		out[1] = 4;
		return 2;
	}
	out[0] = 1;
	out[1] = 2;
	return 2;
}

/* vec_mul(dim_vec): 0 when dim_vec == 1, else range(0, 2) */
static i64 vec_mul_count(i64 dim_vec)
{
	return dim_vec == 1 ? 1 : 2;
}

/* dim_m_a, dim_n_a, dim_m_b, dim_n_b: range(1, stop) */
struct reading_bounds {
	i64 dim_m_a_stop, dim_n_a_stop, dim_m_b_stop, dim_n_b_stop;
};

static int reading_bounds(const struct space_params *p, i64 blk_m, i64 blk_n, i64 blk_k,
			  i64 dim_vec, struct reading_bounds *r)
{
	int error = 0;

	/* READING: Python 2 '/' on ints in blk_m/dim_vec+1 and the like */
	if (p->trans_a == 0) {
		r->dim_m_a_stop = floor_div(blk_m, dim_vec, &error) + 1;
		r->dim_n_a_stop = blk_k + 1;
	} else {
		r->dim_m_a_stop = floor_div(blk_k, dim_vec, &error) + 1;
		r->dim_n_a_stop = blk_m + 1;
	}
	if (p->trans_b == 0) {
		r->dim_m_b_stop = floor_div(blk_k, dim_vec, &error) + 1;
		r->dim_n_b_stop = blk_n + 1;
	} else {
		r->dim_m_b_stop = floor_div(blk_n, dim_vec, &error) + 1;
		r->dim_n_b_stop = blk_k + 1;
	}
	return error;
}

/* the divisors of n > 0, ascending (two passes: the count, then the list) */
static i64 *divisors_of(i64 n, i64 *count)
{
	i64 k = 0, low, *list;

	for (low = 1; low * low <= n; low++)
		if (n % low == 0)
			k += low == n / low ? 1 : 2;
	list = malloc(sizeof(*list) * (size_t)k);
	if (!list)
		abort();
	*count = k;
	k = 0;
	for (low = 1; low * low <= n; low++)
		if (n % low == 0) {
			list[k] = low;
			list[*count - 1 - k] = n / low;
			k++;
		}
	return list;
}

/*
 * Reading shapes for one operand: pairs (dim_m_x, dim_n_x) in
 * range(1, m_stop) x range(1, n_stop) that pass cant_reshape_x1 and
 * cant_reshape_x2.  The default mode walks only the divisors dim_m_x of
 * threads_per_block, with the one dim_n_x that can give the product.
 */
typedef int (*reshape2_fn)(const struct space_params *, i64, i64, i64, i64, i64, int *);

static i64 count_reading_shapes(const struct space_params *p, const struct derived *d,
				const i64 *divisors, i64 n_divisors, i64 m_stop, i64 n_stop,
				reshape2_fn reshape2, i64 tile_1, i64 tile_2, i64 dim_vec)
{
	i64 n = 0, i;

	for (i = 0; i < n_divisors; i++) {
		i64 dim_m_x = divisors[i], dim_n_x;
		int error = 0;

		if (dim_m_x >= m_stop)
			break;
		dim_n_x = d->threads_per_block / dim_m_x;
		if (dim_n_x < 1 || dim_n_x >= n_stop)
			continue;
		if (cant_reshape_1(dim_m_x, dim_n_x, d))
			continue;
		if (reshape2(p, tile_1, tile_2, dim_m_x, dim_n_x, dim_vec, &error) || error)
			continue;
		n++;
	}
	return n;
}

struct totals {
	i64 valid;
	i64 prefixes;		/* (dim_m .. dim_vec) bindings that reach the reading shapes */
	i64 domain_errors;	/* evaluations that hit a language run-time error */
};

/* --plain: the remaining ten loops in full, innermost last */
static void walk_plain(const struct space_params *p, const struct derived *d, i64 blk_m,
		       i64 blk_n, i64 blk_k, i64 dim_vec, const struct reading_bounds *r,
		       struct totals *t)
{
	i64 vec_mul, dim_m_a, dim_n_a, dim_m_b, dim_n_b;
	i64 tex_a, tex_b, shmem_l1, shmem_banks;

	for (vec_mul = 0; vec_mul < vec_mul_count(dim_vec); vec_mul++)
	for (dim_m_a = 1; dim_m_a < r->dim_m_a_stop; dim_m_a++)
	for (dim_n_a = 1; dim_n_a < r->dim_n_a_stop; dim_n_a++) {
		int error = 0;

		if (cant_reshape_1(dim_m_a, dim_n_a, d))
			continue;
		if (cant_reshape_a2(p, blk_m, blk_k, dim_m_a, dim_n_a, dim_vec, &error) || error) {
			t->domain_errors += error;
			continue;
		}
		for (dim_m_b = 1; dim_m_b < r->dim_m_b_stop; dim_m_b++)
		for (dim_n_b = 1; dim_n_b < r->dim_n_b_stop; dim_n_b++) {
			if (cant_reshape_1(dim_m_b, dim_n_b, d))
				continue;
			if (cant_reshape_b2(p, blk_k, blk_n, dim_m_b, dim_n_b, dim_vec, &error) || error) {
				t->domain_errors += error;
				continue;
			}
			for (tex_a = 0; tex_a < 2; tex_a++)
			for (tex_b = 0; tex_b < 2; tex_b++)
			for (shmem_l1 = 0; shmem_l1 < 2; shmem_l1++)
			for (shmem_banks = 0; shmem_banks < 2; shmem_banks++)
				t->valid++;
		}
	}
}

static int count_space(const struct space_params *p, int plain, struct totals *t)
{
	struct compute_capability cc;
	i64 dim_vecs[2], n_dim_vecs;
	i64 dim_m, dim_n, blk_m, blk_n, blk_k, iv;
	i64 blk_k_stop;

	memset(t, 0, sizeof(*t));
	/* Fig. 9 lookups: an index outside the tables rejects every point */
	if (table_lookup(max_blocks_per_multi_processor_table, p->cudamajor, p->cudaminor,
			 &cc.max_blocks_per_multi_processor) ||
	    table_lookup(max_warps_per_multi_processor_table, p->cudamajor, p->cudaminor,
			 &cc.max_warps_per_multi_processor) ||
	    table_lookup(max_registers_per_thread_table, p->cudamajor, p->cudaminor,
			 &cc.max_registers_per_thread))
		return -1;
	n_dim_vecs = dim_vec_values(p, dim_vecs);
	/* blk_k = range(1, min(max_threads_dim_x, max_threads_dim_y)+1) */
	blk_k_stop = min_i64(p->max_threads_dim_x, p->max_threads_dim_y) + 1;

	/* dim_m = range(1, max_threads_dim_x+1); dim_n = range(1, max_threads_dim_y+1) */
	for (dim_m = 1; dim_m < p->max_threads_dim_x + 1; dim_m++)
	for (dim_n = 1; dim_n < p->max_threads_dim_y + 1; dim_n++) {
		struct derived d;
		i64 *divisors = NULL, n_divisors = 0;
		int error = 0;

		derive_threads(&d, dim_m, dim_n);
		if (over_max_threads(p, &d))
			continue;
		if (partial_warps(p, &d, &error) || error) {
			t->domain_errors += error;
			continue;
		}
		if (!plain)
			divisors = divisors_of(d.threads_per_block, &n_divisors);

		/* blk_m(dim_m) = range(dim_m, max_threads_dim_x+1, dim_m), blk_n alike */
		for (blk_m = dim_m; blk_m < p->max_threads_dim_x + 1; blk_m += dim_m)
		for (blk_n = dim_n; blk_n < p->max_threads_dim_y + 1; blk_n += dim_n) {
			if (derive_registers(p, &cc, &d, dim_m, dim_n, blk_m, blk_n)) {
				t->domain_errors++;
				continue;
			}
			if (over_max_regs_per_thread(&cc, &d) || over_max_regs_per_block(p, &d) ||
			    low_occupancy_regs(p, &d))
				continue;

			for (blk_k = 1; blk_k < blk_k_stop; blk_k++) {
				if (derive_stripe(p, &cc, &d, blk_m, blk_n, blk_k)) {
					t->domain_errors++;
					continue;
				}
				if (over_max_shmem(p, &d) || low_occupancy_shmem(p, &d))
					continue;

				for (iv = 0; iv < n_dim_vecs; iv++) {
					i64 dim_vec = dim_vecs[iv];
					struct reading_bounds r;
					i64 shapes_a, shapes_b;

					error = 0;
					if (derive_loads(p, &d, blk_k, dim_vec) ||
					    reading_bounds(p, blk_m, blk_n, blk_k, dim_vec, &r)) {
						t->domain_errors++;
						continue;
					}
					if (low_fmas(p, &d, &error)) {
						t->domain_errors += error;
						continue;
					}
					t->prefixes++;
					if (plain) {
						walk_plain(p, &d, blk_m, blk_n, blk_k, dim_vec, &r, t);
						continue;
					}
					/* cant_reshape_a2 reads (blk_m, blk_k), b2 (blk_k, blk_n) */
					shapes_a = count_reading_shapes(p, &d, divisors, n_divisors,
						r.dim_m_a_stop, r.dim_n_a_stop,
						cant_reshape_a2, blk_m, blk_k, dim_vec);
					if (shapes_a == 0)
						continue;
					shapes_b = count_reading_shapes(p, &d, divisors, n_divisors,
						r.dim_m_b_stop, r.dim_n_b_stop,
						cant_reshape_b2, blk_k, blk_n, dim_vec);
					/* vec_mul, then tex_a, tex_b, shmem_l1, shmem_banks:
					 * range(0, 2) each, read by no constraint */
					t->valid += vec_mul_count(dim_vec) * shapes_a * shapes_b * 16;
				}
			}
		}
		free(divisors);
	}
	return 0;
}

static int parse_int(const char *s, i64 *out)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	v = strtoll(s, &end, 10);
	if (*end)
		return -1;
	*out = (i64)v;
	return 0;
}

static int set_param(struct space_params *p, const char *arg)
{
	static const struct {
		const char *name;
		size_t offset;
	} ints[] = {
#define FIELD(n) { #n, offsetof(struct space_params, n) }
		FIELD(max_threads_per_block), FIELD(max_threads_dim_x),
		FIELD(max_threads_dim_y), FIELD(max_shared_mem_per_block),
		FIELD(warp_size), FIELD(max_regs_per_block),
		FIELD(max_threads_per_multi_processor), FIELD(cudamajor),
		FIELD(cudaminor), FIELD(max_registers_per_multi_processor),
		FIELD(max_shmem_per_multi_processor), FIELD(float_size),
		FIELD(trans_a), FIELD(trans_b),
		FIELD(min_threads_per_multi_processor), FIELD(min_fmas_per_load),
#undef FIELD
	};
	const char *eq = strchr(arg, '=');
	size_t len, i;

	if (!eq)
		return -1;
	len = (size_t)(eq - arg);
	if (len == strlen("precision") && !strncmp(arg, "precision", len)) {
		if (strcmp(eq + 1, "double") && strcmp(eq + 1, "single"))
			return -1;
		p->precision_double = !strcmp(eq + 1, "double");
		return 0;
	}
	if (len == strlen("arithmetic") && !strncmp(arg, "arithmetic", len)) {
		if (strcmp(eq + 1, "complex") && strcmp(eq + 1, "real"))
			return -1;
		p->arithmetic_complex = !strcmp(eq + 1, "complex");
		return 0;
	}
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (strlen(ints[i].name) == len && !strncmp(arg, ints[i].name, len))
			return parse_int(eq + 1, (i64 *)(void *)((char *)p + ints[i].offset));
	return -1;
}

int main(int argc, char **argv)
{
	struct space_params p;
	struct totals t;
	int plain = 0, h100 = 0, i;
	struct timespec t0, t1;

	tesla_k40c(&p);
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--h100-single"))
			h100 = 1;
	if (h100)
		h100_single(&p);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--h100-single"))
			continue;
		if (!strcmp(argv[i], "--plain")) {
			plain = 1;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (set_param(&p, argv[++i])) {
				fprintf(stderr, "gemm_beast_brute: bad --set '%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: %s [--h100-single] [--plain] [--set NAME=VALUE]...\n",
				argv[0]);
			return 2;
		}
	}
	if (p.max_threads_dim_x > 1 << 20 || p.max_threads_dim_y > 1 << 20) {
		fprintf(stderr, "gemm_beast_brute: thread dimensions above 2^20 are not supported\n");
		return 2;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (count_space(&p, plain, &t)) {
		/* every point is rejected by the failing lookup */
		t.valid = 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("%" PRId64 "\n", t.valid);
	fprintf(stderr, "%s%s: %s %s, trans_a %" PRId64 ", trans_b %" PRId64 ", cc %" PRId64
		".%" PRId64 ", dims %" PRId64 "x%" PRId64 "\n",
		h100 ? "h100-single" : "k40c", plain ? " (plain)" : "",
		p.precision_double ? "double" : "single", p.arithmetic_complex ? "complex" : "real",
		p.trans_a, p.trans_b, p.cudamajor, p.cudaminor, p.max_threads_dim_x,
		p.max_threads_dim_y);
	fprintf(stderr, "valid points: %" PRId64 "\n", t.valid);
	fprintf(stderr, "prefixes (dim_m..dim_vec) reaching the reading shapes: %" PRId64 "\n",
		t.prefixes);
	fprintf(stderr, "domain errors: %" PRId64 "\n", t.domain_errors);
	fprintf(stderr, "time: %.3f s\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return 0;
}
