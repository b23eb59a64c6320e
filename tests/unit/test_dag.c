/*
 * test_dag.c - the dependency graph: successor edges, levels, independent
 * sub-nests, and the DOT rendering (shapes, colours, ranks).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "dag.h"
#include "helpers.h"

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
