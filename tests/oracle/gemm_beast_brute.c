/*
 * gemm_beast_brute.c - independent brute-force count of spaces/gemm_beast.space
 *
 * Written by hand from the BEAST paper's description (Luszczek et al.,
 * IPDPSW 2016) and the reconstructions listed at the top of
 * spaces/gemm_beast.space.  It shares no code with spacec: it is plain
 * nested loops over the 15 iterators, each constraint tested in the
 * innermost loop where all of its variables are bound (which changes how
 * long the count takes, never the count).
 *
 * Semantics follow the language: 64-bit ints, '//' floors and '%' takes the
 * sign of the divisor (Python), '/' is true division, a division by zero or
 * an out-of-range table index rejects the point.  A constraint that is True
 * rejects the point (BEAST polarity); a point is valid when no hard, soft or
 * correctness constraint rejects it.
 *
 * Usage:
 *   gemm_beast_brute [--h100-single] [--plain] [--set NAME=VALUE]...
 *
 *   --h100-single   the profile of spaces/gemm_beast_h100_sp.json
 *   --set N=V       override one device parameter or setting (precision and
 *                   arithmetic take a word, the rest integers); applied after
 *                   --h100-single, so small spaces can be cross-checked
 *   --plain         iterate every one of the 15 loops in full (slow: use it
 *                   with a small --set max_threads_dim_x / _y to check the
 *                   default mode, which counts the reading shapes and the
 *                   on/off switches in closed form)
 *
 * Build: gcc -O2 -Wall -Wextra -o gemm_beast_brute gemm_beast_brute.c
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int64_t i64;

struct params {
	/* Fig. 8 device query (Tesla K40c defaults) */
	i64 max_threads_per_block;
	i64 max_threads_dim_x;
	i64 max_threads_dim_y;
	i64 max_shared_mem_per_block;
	i64 warp_size;
	i64 max_regs_per_block;
	i64 max_threads_per_multi_processor;
	i64 max_registers_per_multi_processor;
	i64 max_shmem_per_multi_processor;
	i64 float_size;
	i64 cudamajor;
	i64 cudaminor;
	/* settings */
	int double_precision;	/* precision == "double" */
	int complex_arith;	/* arithmetic == "complex" */
	i64 trans_a;
	i64 trans_b;
};

/* Python '//' and '%'; *err is set on a zero divisor */
static i64 floordiv(i64 a, i64 b, int *err)
{
	i64 q;

	if (b == 0) {
		*err = 1;
		return 0;
	}
	q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static i64 pymod(i64 a, i64 b, int *err)
{
	i64 r;

	if (b == 0) {
		*err = 1;
		return 0;
	}
	r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

static i64 min2(i64 a, i64 b)
{
	return a < b ? a : b;
}

/* Fig. 9 tables, [cudamajor][cudaminor], -1 where no such device exists */
#define NMAJ 10
#define NMIN 10
static const i64 cc_blocks[NMAJ][NMIN] = {
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
static const i64 cc_warps[NMAJ][NMIN] = {
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
static const i64 cc_regs[NMAJ][NMIN] = {
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

/* Python indexing: negative counts from the end; out of range is an error */
static int pyindex(i64 i, i64 n, i64 *out)
{
	if (i < 0)
		i += n;
	if (i < 0 || i >= n)
		return -1;
	*out = i;
	return 0;
}

static int table(const i64 t[NMAJ][NMIN], i64 maj, i64 min, i64 *out)
{
	i64 a, b;

	if (pyindex(maj, NMAJ, &a) || pyindex(min, NMIN, &b))
		return -1;
	*out = t[a][b];
	return 0;
}

static void set_k40c(struct params *p)
{
	p->max_threads_per_block = 1024;
	p->max_threads_dim_x = 1024;
	p->max_threads_dim_y = 1024;
	p->max_shared_mem_per_block = 49152;
	p->warp_size = 32;
	p->max_regs_per_block = 65536;
	p->max_threads_per_multi_processor = 2048;
	p->max_registers_per_multi_processor = 65536;
	p->max_shmem_per_multi_processor = 49152;
	p->float_size = 4;
	p->cudamajor = 3;
	p->cudaminor = 5;
	p->double_precision = 1;
	p->complex_arith = 0;
	p->trans_a = 0;
	p->trans_b = 0;
}

static void set_h100_single(struct params *p)
{
	p->double_precision = 0;
	p->max_shared_mem_per_block = 232448;
	p->max_shmem_per_multi_processor = 233472;
	p->cudamajor = 9;
	p->cudaminor = 0;
}

static int set_one(struct params *p, const char *arg)
{
	static const struct { const char *name; size_t off; } ints[] = {
#define F(n) { #n, offsetof(struct params, n) }
		F(max_threads_per_block), F(max_threads_dim_x),
		F(max_threads_dim_y), F(max_shared_mem_per_block),
		F(warp_size), F(max_regs_per_block),
		F(max_threads_per_multi_processor),
		F(max_registers_per_multi_processor),
		F(max_shmem_per_multi_processor), F(float_size),
		F(cudamajor), F(cudaminor), F(trans_a), F(trans_b),
#undef F
	};
	const char *eq = strchr(arg, '=');
	size_t len, i;

	if (!eq)
		return -1;
	len = (size_t)(eq - arg);
	if (len == 9 && !strncmp(arg, "precision", len)) {
		if (!strcmp(eq + 1, "double"))
			p->double_precision = 1;
		else if (!strcmp(eq + 1, "single"))
			p->double_precision = 0;
		else
			return -1;
		return 0;
	}
	if (len == 10 && !strncmp(arg, "arithmetic", len)) {
		if (!strcmp(eq + 1, "complex"))
			p->complex_arith = 1;
		else if (!strcmp(eq + 1, "real"))
			p->complex_arith = 0;
		else
			return -1;
		return 0;
	}
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (strlen(ints[i].name) == len && !strncmp(arg, ints[i].name, len)) {
			char *end;
			long long v = strtoll(eq + 1, &end, 10);

			if (*end || end == eq + 1)
				return -1;
			*(i64 *)((char *)p + ints[i].off) = (i64)v;
			return 0;
		}
	}
	return -1;
}

struct counts {
	i64 valid;		/* points that no constraint rejects */
	i64 outer;		/* (dim_m .. dim_vec) prefixes reaching the inner loops */
	i64 domain_errors;	/* points rejected by a division by zero */
};

/*
 * Reading shapes for one tile of extent (bm_t x bn_t): cant_reshape_x1 and
 * cant_reshape_x2 both false.  'plain' walks both loops; otherwise dim_n_x
 * is the one value that can satisfy dim_m_x * dim_n_x == threads.
 */
static i64 count_reshapes(i64 bm_t, i64 bn_t, i64 threads, i64 dim_vec, int plain, int *err)
{
	i64 n = 0, dm, dn;

	for (dm = 1; dm < bm_t + 1; dm++) {
		if (plain) {
			for (dn = 1; dn < bn_t + 1; dn++) {
				int e = 0;
				int c1 = dm * dn != threads;
				int c2 = pymod(bm_t, dm * dim_vec, &e) != 0 ||
					 pymod(bn_t, dn, &e) != 0;

				if (e) {
					(*err)++;
					continue;
				}
				if (!c1 && !c2)
					n++;
			}
		} else {
			int e = 0;

			if (threads % dm != 0)
				continue;
			dn = threads / dm;
			if (dn < 1 || dn > bn_t)
				continue;
			if (pymod(bm_t, dm * dim_vec, &e) != 0 || pymod(bn_t, dn, &e) != 0)
				continue;
			if (e) {
				(*err)++;
				continue;
			}
			n++;
		}
	}
	return n;
}

static int count_space(const struct params *p, int plain, struct counts *out)
{
	i64 max_blocks, max_warps, max_regs_thread;
	i64 regs_per_element, element_size;
	const i64 min_threads_per_multi_processor = 256;
	const i64 min_fmas_per_load = 2;
	i64 dim_vec_list[2], n_dim_vec;
	i64 dim_m, dim_n, blk_m, blk_n, blk_k, iv;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (table(cc_blocks, p->cudamajor, p->cudaminor, &max_blocks) ||
	    table(cc_warps, p->cudamajor, p->cudaminor, &max_warps) ||
	    table(cc_regs, p->cudamajor, p->cudaminor, &max_regs_thread))
		return -1;	/* every point is a domain error */

	regs_per_element = 1;
	if (p->double_precision)
		regs_per_element = 2;
	if (p->complex_arith)
		regs_per_element = regs_per_element * 2;
	element_size = p->float_size * regs_per_element;

	/* dim_vec(precision, arithmetic) */
	if (p->double_precision && !p->complex_arith) {
		dim_vec_list[0] = 1; dim_vec_list[1] = 2; n_dim_vec = 2;
	} else if (p->double_precision) {
		dim_vec_list[0] = 1; n_dim_vec = 1;
	} else if (!p->complex_arith) {
		dim_vec_list[0] = 1; dim_vec_list[1] = 4; n_dim_vec = 2;
	} else {
		dim_vec_list[0] = 1; dim_vec_list[1] = 2; n_dim_vec = 2;
	}

	for (dim_m = 1; dim_m < p->max_threads_dim_x + 1; dim_m++)
	for (dim_n = 1; dim_n < p->max_threads_dim_y + 1; dim_n++) {
		i64 threads_per_block = dim_m * dim_n;
		i64 warps_per_block, blocks_per_mp;

		err = 0;
		/* hard over_max_threads */
		if (threads_per_block > p->max_threads_per_block)
			continue;
		/* soft partial_warps */
		if (pymod(threads_per_block, p->warp_size, &err) != 0 || err) {
			out->domain_errors += err;
			continue;
		}
		warps_per_block = floordiv(threads_per_block + p->warp_size - 1, p->warp_size, &err);
		blocks_per_mp = min2(max_blocks,
			min2(floordiv(p->max_threads_per_multi_processor, threads_per_block, &err),
			     floordiv(max_warps, warps_per_block, &err)));
		if (err) {
			out->domain_errors++;
			continue;
		}

		for (blk_m = dim_m; blk_m < p->max_threads_dim_x + 1; blk_m += dim_m)
		for (blk_n = dim_n; blk_n < p->max_threads_dim_y + 1; blk_n += dim_n)
		for (blk_k = 1; blk_k < p->max_threads_dim_x + 1; blk_k++) {
			i64 shmem_per_block = (blk_m * blk_k + blk_k * blk_n) * element_size;
			i64 fmas_per_block = blk_m * blk_n * blk_k;
			i64 loads_per_block = blk_m * blk_k + blk_k * blk_n;
			i64 blocks_shmem, threads_mp_shmem;
			i64 blk_m_a, blk_n_a, blk_m_b, blk_n_b;

			err = 0;
			/* hard over_max_shmem */
			if (shmem_per_block > p->max_shared_mem_per_block)
				continue;
			/* soft low_fmas (true division) */
			if (loads_per_block == 0) {
				out->domain_errors++;
				continue;
			}
			if ((double)fmas_per_block / (double)loads_per_block < (double)min_fmas_per_load)
				continue;
			/* soft low_occupancy_shmem */
			blocks_shmem = min2(blocks_per_mp,
				floordiv(p->max_shmem_per_multi_processor, shmem_per_block, &err));
			if (err) {
				out->domain_errors++;
				continue;
			}
			threads_mp_shmem = blocks_shmem * threads_per_block;
			if (threads_mp_shmem < min_threads_per_multi_processor)
				continue;

			blk_m_a = p->trans_a == 0 ? blk_m : blk_k;
			blk_n_a = p->trans_a == 0 ? blk_k : blk_m;
			blk_m_b = p->trans_b == 0 ? blk_k : blk_n;
			blk_n_b = p->trans_b == 0 ? blk_n : blk_k;

			for (iv = 0; iv < n_dim_vec; iv++) {
				i64 dim_vec = dim_vec_list[iv];
				i64 n_vec_mul = dim_vec == 1 ? 1 : 2;	/* vec_mul(dim_vec) */
				i64 pre_a, pre_b;
				i64 n_switch = 0;

				out->outer++;
				if (!plain) {
					/* switches (pre_a, pre_b, vec_mul, tex_a, tex_b) and
					 * reading shapes (dim_m_a .. dim_n_b) constrain
					 * disjoint variables: count each, multiply */
					int e = 0;
					i64 na, nb;

					for (pre_a = 0; pre_a < 2; pre_a++)
					for (pre_b = 0; pre_b < 2; pre_b++) {
						i64 regs_c, regs_ab, regs_pre, regs_per_thread;
						i64 regs_per_block, blocks_regs;

						e = 0;
						regs_c = floordiv(blk_m, dim_m, &e) * floordiv(blk_n, dim_n, &e) * regs_per_element;
						regs_ab = (floordiv(blk_m, dim_m, &e) + floordiv(blk_n, dim_n, &e)) * regs_per_element;
						regs_pre = (pre_a * floordiv(blk_m * blk_k, threads_per_block, &e)
							  + pre_b * floordiv(blk_k * blk_n, threads_per_block, &e)) * regs_per_element;
						regs_per_thread = regs_c + regs_ab + regs_pre;
						regs_per_block = regs_per_thread * threads_per_block;
						if (regs_per_thread > max_regs_thread)
							continue;
						if (regs_per_block > p->max_regs_per_block)
							continue;
						blocks_regs = min2(blocks_per_mp,
							floordiv(p->max_registers_per_multi_processor, regs_per_block, &e));
						if (e) {
							out->domain_errors++;
							continue;
						}
						if (blocks_regs * threads_per_block < min_threads_per_multi_processor)
							continue;
						n_switch += n_vec_mul * 2 * 2;	/* vec_mul, tex_a, tex_b */
					}
					if (n_switch == 0)
						continue;
					e = 0;
					na = count_reshapes(blk_m_a, blk_n_a, threads_per_block, dim_vec, 0, &e);
					if (na == 0)
						continue;
					nb = count_reshapes(blk_m_b, blk_n_b, threads_per_block, dim_vec, 0, &e);
					out->valid += n_switch * na * nb;
					continue;
				}

				/* --plain: every loop in full, innermost last */
				for (pre_a = 0; pre_a < 2; pre_a++)
				for (pre_b = 0; pre_b < 2; pre_b++) {
					i64 regs_c, regs_ab, regs_pre, regs_per_thread;
					i64 regs_per_block, blocks_regs, vec_mul, tex_a, tex_b;
					int e = 0;

					regs_c = floordiv(blk_m, dim_m, &e) * floordiv(blk_n, dim_n, &e) * regs_per_element;
					regs_ab = (floordiv(blk_m, dim_m, &e) + floordiv(blk_n, dim_n, &e)) * regs_per_element;
					regs_pre = (pre_a * floordiv(blk_m * blk_k, threads_per_block, &e)
						  + pre_b * floordiv(blk_k * blk_n, threads_per_block, &e)) * regs_per_element;
					regs_per_thread = regs_c + regs_ab + regs_pre;
					regs_per_block = regs_per_thread * threads_per_block;
					if (regs_per_thread > max_regs_thread)		/* hard over_max_regs_per_thread */
						continue;
					if (regs_per_block > p->max_regs_per_block)	/* hard over_max_regs_per_block */
						continue;
					blocks_regs = min2(blocks_per_mp,
						floordiv(p->max_registers_per_multi_processor, regs_per_block, &e));
					if (e) {
						out->domain_errors++;
						continue;
					}
					if (blocks_regs * threads_per_block < min_threads_per_multi_processor)
						continue;				/* soft low_occupancy_regs */

					for (vec_mul = 0; vec_mul < n_vec_mul; vec_mul++)
					for (tex_a = 0; tex_a < 2; tex_a++)
					for (tex_b = 0; tex_b < 2; tex_b++) {
						i64 dim_m_a, dim_n_a, dim_m_b, dim_n_b;

						for (dim_m_a = 1; dim_m_a < blk_m_a + 1; dim_m_a++)
						for (dim_n_a = 1; dim_n_a < blk_n_a + 1; dim_n_a++) {
							int ea = 0;

							if (dim_m_a * dim_n_a != threads_per_block)	/* correct cant_reshape_a1 */
								continue;
							if (pymod(blk_m_a, dim_m_a * dim_vec, &ea) != 0 ||
							    pymod(blk_n_a, dim_n_a, &ea) != 0)		/* correct cant_reshape_a2 */
								continue;
							for (dim_m_b = 1; dim_m_b < blk_m_b + 1; dim_m_b++)
							for (dim_n_b = 1; dim_n_b < blk_n_b + 1; dim_n_b++) {
								int eb = 0;

								if (dim_m_b * dim_n_b != threads_per_block)	/* correct cant_reshape_b1 */
									continue;
								if (pymod(blk_m_b, dim_m_b * dim_vec, &eb) != 0 ||
								    pymod(blk_n_b, dim_n_b, &eb) != 0)		/* correct cant_reshape_b2 */
									continue;
								out->valid++;
							}
						}
					}
				}
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct params p;
	struct counts c;
	int plain = 0, h100 = 0, i;
	struct timespec t0, t1;

	set_k40c(&p);
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--h100-single"))
			h100 = 1;
	if (h100)
		set_h100_single(&p);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--h100-single")) {
			continue;
		} else if (!strcmp(argv[i], "--plain")) {
			plain = 1;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (set_one(&p, argv[++i])) {
				fprintf(stderr, "gemm_beast_brute: bad --set '%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr,
				"usage: %s [--h100-single] [--plain] [--set NAME=VALUE]...\n",
				argv[0]);
			return 2;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (count_space(&p, plain, &c)) {
		fprintf(stderr, "gemm_beast_brute: cc %" PRId64 ".%" PRId64
			" is outside the Fig. 9 tables\n", p.cudamajor, p.cudaminor);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("%" PRId64 "\n", c.valid);
	fprintf(stderr, "profile: %s%s, %s %s, trans %" PRId64 "%" PRId64
		", cc %" PRId64 ".%" PRId64 "\n",
		h100 ? "h100-single" : "k40c", plain ? " (plain)" : "",
		p.double_precision ? "double" : "single",
		p.complex_arith ? "complex" : "real", p.trans_a, p.trans_b,
		p.cudamajor, p.cudaminor);
	fprintf(stderr, "valid points: %" PRId64 "\n", c.valid);
	fprintf(stderr, "outer prefixes (dim_m..dim_vec) reaching inner loops: %" PRId64 "\n", c.outer);
	fprintf(stderr, "domain errors: %" PRId64 "\n", c.domain_errors);
	fprintf(stderr, "time: %.3f s\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return 0;
}
