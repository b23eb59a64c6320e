/*
 * test_dag.c - the dependency graph: successor edges, levels, independent
 * sub-nests, the DOT rendering (shapes, colours, ranks), and the loop order.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "dag.h"
#include "helpers.h"
#include "order.h"

/* Builds the graph of `src`, which must be free of errors. */
static void build(struct fe *f, struct dag *g, const char *src)
{
	cr_assert_eq(fe_check(f, src), 0, "errors in test source:\n%s", fe_diag(f));
	dag_build(g, &f->prog);
}

static const struct dag_node *node(const struct fe *f, const struct dag *g, const char *cname)
{
	struct sema_def *d = fe_cdef(f, cname);
	cr_assert_not_null(d, "no definition '%s'", cname);
	return &g->nodes[d->id];
}

static bool has_succ(const struct fe *f, const struct dag *g, const char *from, const char *to)
{
	const struct dag_node *n = node(f, g, from);
	for (int i = 0; i < n->nsucc; i++)
		if (!strcmp(n->succ[i]->def->cname, to))
			return true;
	return false;
}

static char *dot_of(const struct dag *g)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	cr_assert_not_null(m);
	dag_write_dot(g, m);
	fclose(m);
	return s;
}

/* The DOT line that declares node `id` (quoted), or NULL. */
static const char *dot_node_line(const char *dot, const char *id, char *buf, size_t cap)
{
	char want[128];
	snprintf(want, sizeof(want), "\t\"%s\" [", id);
	const char *p = strstr(dot, want);
	cr_assert_not_null(p, "no node %s in:\n%s", id, dot);
	const char *e = strchr(p, '\n');
	size_t n = e ? (size_t)(e - p) : strlen(p);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return buf;
}

static const char *const gemm_like =
	"device max_threads = 1024\n"
	"dim_m = range(1, 9)\n"
	"dim_n = range(1, 9)\n"
	"blk_m = range(dim_m, 33, dim_m)\n"
	"threads = dim_m * dim_n\n"
	"hard over = threads > max_threads\n"
	"soft small = threads < 32\n"
	"correct tiles = blk_m % dim_m != 0\n";

Test(dag, successor_edges)
{
	struct fe f;
	struct dag g;
	build(&f, &g, gemm_like);
	cr_assert_eq(g.nnodes, f.prog.ndefs);
	cr_assert(has_succ(&f, &g, "dim_m", "blk_m"));
	cr_assert(has_succ(&f, &g, "dim_m", "threads"));
	cr_assert(has_succ(&f, &g, "dim_n", "threads"));
	cr_assert(has_succ(&f, &g, "threads", "over"));
	cr_assert(has_succ(&f, &g, "threads", "small"));
	cr_assert(has_succ(&f, &g, "max_threads", "over"));
	cr_assert(has_succ(&f, &g, "blk_m", "tiles"));
	cr_assert_not(has_succ(&f, &g, "threads", "dim_m"));
	cr_assert_eq(node(&f, &g, "over")->nsucc, 0);
	/* Each edge once: dim_m is used twice by tiles' inputs but feeds
	 * blk_m, threads and tiles once each. */
	cr_assert_eq(node(&f, &g, "dim_m")->nsucc, 3);
	dag_release(&g);
	fe_release(&f);
}

Test(dag, levels)
{
	struct fe f;
	struct dag g;
	build(&f, &g, gemm_like);
	cr_assert_eq(g.nlevels, 3);
	cr_assert_eq(node(&f, &g, "max_threads")->def->level, -1);
	cr_assert_eq(node(&f, &g, "max_threads")->subnest, -1);
	dag_release(&g);
	fe_release(&f);
}

/* Inline arrays: Criterion may run each case in a fresh process. */
struct nest_case {
	char src[160];
	int nsubnests;
	char same[2][8];  /* two iterators in one sub-nest, or "" */
	char apart[2][8]; /* two iterators in different sub-nests, or "" */
};

ParameterizedTestParameters(dag, subnests)
{
	static struct nest_case cases[] = {
		/* Nothing shared: three independent loops. */
		{ "a = range(3)\nb = range(4)\nc = range(5)\n", 3, { "", "" }, { "a", "c" } },
		/* A shared derived value joins two iterators. */
		{ "a = range(3)\nb = range(4)\nc = range(5)\nd = a + b\n", 2, { "a", "b" }, { "a", "c" } },
		/* So does a constraint, and transitively a chain of them. */
		{ "a = range(3)\nb = range(4)\nc = range(5)\nd = a + b\nhard k = d > c\n", 1,
		  { "a", "c" }, { "", "" } },
		/* A dependent iterator is in its input's sub-nest. */
		{ "a = range(3)\nb = range(a)\nc = range(5)\n", 2, { "a", "b" }, { "b", "c" } },
		/* Level -1 definitions do not join anything. */
		{ "device n = 4\nk = n * 2\na = range(n)\nb = range(k)\nhard big = k > 100\n", 2,
		  { "", "" }, { "a", "b" } },
		/* A constraint over one iterator only keeps it apart. */
		{ "a = range(3)\nb = range(4)\nsoft odd = a % 2 == 1\ncorrect even = b % 2 == 0\n", 2,
		  { "", "" }, { "a", "b" } },
	};
	return cr_make_param_array(struct nest_case, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct nest_case *c, dag, subnests)
{
	struct fe f;
	struct dag g;
	build(&f, &g, c->src);
	cr_assert_eq(g.nsubnests, c->nsubnests, "%s: %d sub-nests, want %d", c->src, g.nsubnests,
		     c->nsubnests);
	if (c->same[0][0])
		cr_assert_eq(node(&f, &g, c->same[0])->subnest, node(&f, &g, c->same[1])->subnest);
	if (c->apart[0][0])
		cr_assert_neq(node(&f, &g, c->apart[0])->subnest, node(&f, &g, c->apart[1])->subnest);
	/* Ids run 0..n-1, the outermost loop in sub-nest 0. */
	cr_assert_eq(node(&f, &g, f.prog.loop_order[0]->cname)->subnest, 0);
	for (int i = 0; i < f.prog.niters; i++) {
		int s = node(&f, &g, f.prog.iters[i]->cname)->subnest;
		cr_assert(s >= 0 && s < g.nsubnests);
	}
	dag_release(&g);
	fe_release(&f);
}

Test(dag, dot_shapes_and_colours)
{
	struct fe f;
	struct dag g;
	char buf[256];
	build(&f, &g, gemm_like);
	char *dot = dot_of(&g);
	cr_assert(!strncmp(dot, "digraph ", 8), "%s", dot);
	cr_assert(dot[strlen(dot) - 2] == '}');
	cr_assert_not_null(strstr(dot_node_line(dot, "dim_m", buf, sizeof(buf)), "shape=ellipse"));
	cr_assert_not_null(strstr(dot_node_line(dot, "threads", buf, sizeof(buf)), "shape=box"));
	const char *over = dot_node_line(dot, "over", buf, sizeof(buf));
	cr_assert_not_null(strstr(over, "shape=octagon"));
	cr_assert_not_null(strstr(over, "fillcolor=red"));
	cr_assert_not_null(strstr(dot_node_line(dot, "small", buf, sizeof(buf)), "fillcolor=orange"));
	cr_assert_not_null(strstr(dot_node_line(dot, "tiles", buf, sizeof(buf)), "fillcolor=lightblue"));
	cr_assert_not_null(strstr(dot_node_line(dot, "max_threads", buf, sizeof(buf)), "shape=note"));
	cr_assert_not_null(strstr(dot, "\t\"dim_m\" -> \"threads\";\n"));
	cr_assert_not_null(strstr(dot, "\t\"threads\" -> \"over\";\n"));
	free(dot);
	dag_release(&g);
	fe_release(&f);
}

Test(dag, dot_ranks_are_level_sets)
{
	struct fe f;
	struct dag g;
	build(&f, &g, gemm_like);
	char *dot = dot_of(&g);
	/* Level -1 on top, then one rank per loop, holding what is placed there. */
	const char *top = strstr(dot, "{ rank=min;");
	cr_assert_not_null(top, "%s", dot);
	cr_assert_not_null(strstr(top, "\"max_threads\";"));
	int ranks = 0;
	for (const char *p = dot; (p = strstr(p, "{ rank=same;")); p++)
		ranks++;
	cr_assert_eq(ranks, g.nlevels, "%s", dot);
	/* threads is computed at dim_n's level, with dim_n. */
	const struct sema_def *dn = fe_cdef(&f, "dim_n");
	char want[64];
	snprintf(want, sizeof(want), "/* level %d */", dn->level);
	const char *r = strstr(dot, want);
	cr_assert_not_null(r);
	const char *end = strchr(r, '}');
	const char *t = strstr(r, "\"threads\";");
	cr_assert(t && t < end, "threads not in dim_n's rank:\n%s", dot);
	free(dot);
	dag_release(&g);
	fe_release(&f);
}

Test(dag, dot_versions_are_labelled)
{
	struct fe f;
	struct dag g;
	build(&f, &g, "setting p = 1\nx = range(4)\ny = x * 2\nif p == 2:\n    y = y + 1\nhard big = y > 6\n");
	char *dot = dot_of(&g);
	cr_assert_not_null(strstr(dot, "\"y__v1\""), "%s", dot);
	cr_assert_not_null(strstr(dot, "\"y\" -> \"y__v1\";"), "%s", dot);
	free(dot);
	dag_release(&g);
	fe_release(&f);
}

/* ---- the loop order (dag/order.c) ---------------------------------------------------- */

/* Whether definition d depends on iterator it, through its dependencies
 * (computed here from sema's lists, not from dag's supports). */
static bool reads(const struct sema_def *d, const struct sema_def *it)
{
	for (int k = 0; k < d->ndeps; k++)
		if (d->deps[k] != d && (d->deps[k] == it || reads(d->deps[k], it)))
			return true;
	return false;
}

/* b and c are independent once a is bound, and keyed by t = a % 3, not
 * by a itself, so a sub-nest keyed by t is found again: a factorizes. */
static const char *const split_src = "a = range(1, 9)\n"
				     "t = a % 3\n"
				     "b = range(1, 9)\n"
				     "c = range(1, 9)\n"
				     "hard x = t * b > 10\n"
				     "hard y = t + c > 9\n";

Test(order, final_order_regroups_into_chain_and_subnests)
{
	struct fe f;
	cr_assert_eq(fe_check(&f, split_src), 0, "%s", fe_diag(&f));
	const struct sema_program *P = &f.prog;
	struct dag_order o;
	dag_order_plan(P, false, true, &o);
	cr_assert_eq(o.nchain, 1);
	cr_assert_str_eq(o.order[0]->name, "a");
	cr_assert_eq(o.nblocks, 2);
	int next = o.nchain;
	for (int b = 0; b < o.nblocks; b++) {
		cr_assert_eq(o.blocks[b].first, next, "sub-nests are contiguous, after the chain");
		cr_assert(o.blocks[b].last >= o.blocks[b].first);
		cr_assert(o.blocks[b].at >= -1 && o.blocks[b].at < o.nchain);
		next = o.blocks[b].last + 1;
	}
	cr_assert_eq(next, P->niters);
	for (int p = 0; p < P->niters; p++)
		for (int q = p + 1; q < P->niters; q++) {
			cr_assert_neq(o.order[p], o.order[q], "not a permutation");
			cr_assert(!reads(o.order[p], o.order[q]), "%s opens before its input %s",
				  o.order[p]->name, o.order[q]->name);
		}
	/* No constraint reads iterators of two sub-nests. */
	for (int i = 0; i < P->nconstraints; i++) {
		int seen = -1;
		for (int b = 0; b < o.nblocks; b++)
			for (int p = o.blocks[b].first; p <= o.blocks[b].last; p++)
				if (reads(P->constraints[i], o.order[p])) {
					cr_assert(seen < 0 || seen == b, "%s joins two sub-nests", P->constraints[i]->name);
					seen = b;
				}
	}
	dag_order_release(&o);
	fe_release(&f);
}

/* Without factorization the final order is the default one, which the
 * program holds for the interpreter (the pipeline placed it). */
Test(order, unfactorized_order_is_the_interpreters)
{
	struct fe f;
	cr_assert_eq(fe_check(&f, split_src), 0, "%s", fe_diag(&f));
	for (int level_sets = 0; level_sets <= 1; level_sets++) {
		struct dag_order o;
		dag_order_plan(&f.prog, level_sets, false, &o);
		cr_assert_eq(o.nchain, f.prog.niters);
		cr_assert_eq(o.nblocks, 0);
		dag_order_place(&f.prog, level_sets);
		for (int p = 0; p < f.prog.niters; p++) {
			cr_assert_eq(o.order[p], f.prog.loop_order[p]);
			cr_assert_eq(o.order[p]->loop_pos, p);
		}
		dag_order_release(&o);
	}
	fe_release(&f);
}
