/*
 * test_sema.c - the semantic pass: classification, SSA versions,
 * dependencies, ordering, and every error and warning it reports.
 *
 * Expectations come from the language rules (sema.h, DESIGN.md §2), worked
 * out by hand for each small program.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* Parses and analyses `src`, asserting that it parsed cleanly. */
static void analyse(struct fe *f, const char *src)
{
	fe_parse(f, src);
	cr_assert_eq(f->parse_errors, 0, "parse errors:\n%s", fe_diag(f));
	fe_sema(f);
}

static struct sema_def *def_of(struct fe *f, const char *name)
{
	struct sema_def *d = fe_def(f, name);
	cr_assert_not_null(d, "no definition '%s'", name);
	return d;
}

/* The dependencies of a definition as "cname cname ...". */
static void expect_deps(struct sema_def *d, const char *want)
{
	char *got = fe_names(d->deps, d->ndeps);
	cr_expect_str_eq(got, want, "dependencies of '%s'", d->cname);
	free(got);
}

static void expect_loop_order(struct fe *f, const char *want)
{
	char *got = fe_names(f->prog.loop_order, f->prog.niters);
	cr_expect_str_eq(got, want, "loop order");
	free(got);
}

/* ---- classification ----------------------------------------------------------- */

struct kcase {
	char src[192];
	char name[16];
	enum sema_kind kind;
	enum sema_type type;
};

ParameterizedTestParameters(sema, classification)
{
	static struct kcase cases[] = {
		{ "device d = 1024\nrequire a < d\na = range(3)\n", "d", SEMA_DEVICE, TY_INT },
		{ "setting p = \"double\"\nrequire a < 1 if p == 'x' else 2\na = range(3)\n", "p", SEMA_SETTING, TY_STR },
		{ "C = 3\nrequire a < C\na = range(3)\n", "C", SEMA_CONST, TY_INT },
		{ "C = 3.5 * 2\nrequire a < C\na = range(3)\n", "C", SEMA_CONST, TY_FLOAT },
		{ "C = 1 < 2\nrequire a < C\na = range(3)\n", "C", SEMA_CONST, TY_BOOL },
		{ "device d = 4\nC = d * 2\nrequire a < C\na = range(3)\n", "C", SEMA_CONST, TY_INT },
		{ "T = [[1, 2], [3, 4]]\nrequire a < T[0][1]\na = range(3)\n", "T", SEMA_TABLE, TY_TABLE },
		{ "T = [[-1] * 10, [128] * 4 + [-1] * 6]\nrequire a < T[0][1]\na = range(3)\n",
		  "T", SEMA_TABLE, TY_TABLE },
		/* A flat list is iterable: an iterator over its elements. */
		{ "a = [1, 2, 4, 8]\nrequire a > 1\n", "a", SEMA_ITER, TY_UNKNOWN },
		{ "a = range(1, 9)\nrequire a > 1\n", "a", SEMA_ITER, TY_INT },
		{ "a = [1, 2] | range(16, 129, 16)\nrequire a > 1\n", "a", SEMA_ITER, TY_UNKNOWN },
		{ "n = range(4)\na = range(n)\nrequire a > 1\n", "a", SEMA_ITER, TY_INT },
		{ "a = range(4)\nx = a * 2\nrequire x > 1\n", "x", SEMA_DERIVED, TY_INT },
		{ "a = range(4)\nx = a / 2\ny = x + 1\nrequire y > 1\n", "y", SEMA_DERIVED, TY_FLOAT },
		{ "a = range(4)\nhard h = a > 2\n", "h", SEMA_CONSTRAINT, TY_BOOL },
		{ "a = range(4)\nrequire soft s = a > 2\n", "s", SEMA_CONSTRAINT, TY_BOOL },
		{ "a = range(4)\n@iterator\ndef it(a):\n    return range(a)\n", "it", SEMA_ITER, TY_UNKNOWN },
		{ "a = range(4)\n@correct\ndef c(a):\n    return a > 1\n", "c", SEMA_CONSTRAINT, TY_UNKNOWN },
	};
	return cr_make_param_array(struct kcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct kcase *c, sema, classification)
{
	struct fe f;
	analyse(&f, c->src);
	cr_expect_str_eq(fe_diag(&f), "", "source:\n%s", c->src);
	struct sema_def *d = def_of(&f, c->name);
	cr_expect_eq(d->kind, c->kind, "source:\n%s\n'%s' is a %s, not a %s", c->src, c->name,
		     sema_kind_name(d->kind), sema_kind_name(c->kind));
	cr_expect_eq(d->type, c->type, "source:\n%s\n'%s' has type %s, not %s", c->src, c->name,
		     sema_type_name(d->type), sema_type_name(c->type));
	fe_release(&f);
}

Test(sema, forms_of_defs)
{
	struct fe f;
	analyse(&f, "MAX = 100\n"
		    "@iterator\n"
		    "def fib():\n"
		    "    k = n = 1\n"
		    "    while n <= MAX:\n"
		    "        yield n\n"
		    "        n, k = n + k, n\n"
		    "@iterator\n"
		    "def vec(fib):\n"
		    "    if fib == 1:\n"
		    "        return 0\n"
		    "    return range(0, 2)\n"
		    "@hard\n"
		    "def over(fib, vec):\n"
		    "    return fib * vec > MAX\n"
		    "x = fib + 1\n"
		    "require x > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	cr_expect_eq(def_of(&f, "fib")->form, SEMA_FORM_CLOSURE);
	cr_expect_eq(def_of(&f, "vec")->form, SEMA_FORM_DEF);
	cr_expect_eq(def_of(&f, "over")->form, SEMA_FORM_DEF);
	cr_expect_eq(def_of(&f, "over")->cclass, AST_HARD);
	cr_expect_eq(def_of(&f, "x")->form, SEMA_FORM_EXPR);
	cr_expect_eq(def_of(&f, "x")->kind, SEMA_DERIVED);
	/* Locals: parameters first, then names assigned in the body. */
	struct sema_def *fib = def_of(&f, "fib");
	cr_expect_eq(fib->nparams, 0);
	cr_expect_eq(fib->nlocals, 2);
	cr_expect_str_eq(fib->local_names[0], "k");
	cr_expect_str_eq(fib->local_names[1], "n");
	struct sema_def *over = def_of(&f, "over");
	cr_expect_eq(over->nparams, 2);
	cr_expect_eq(over->param_defs[0], fib);
	cr_expect_eq(over->param_defs[1], def_of(&f, "vec"));
	fe_release(&f);
}

Test(sema, constraint_classes_and_polarity)
{
	struct fe f;
	analyse(&f, "a = range(4)\n"
		    "hard h = a > 2\n"
		    "soft s = a > 2\n"
		    "correct c = a > 2\n"
		    "require a > 0\n"
		    "require soft rs = a < 3\n");
	cr_expect_str_eq(fe_diag(&f), "");
	cr_assert_eq(f.prog.nconstraints, 5);
	char *names = fe_names(f.prog.constraints, f.prog.nconstraints);
	cr_expect_str_eq(names, "h s c line_5 rs");
	free(names);
	cr_expect(!def_of(&f, "h")->require);
	cr_expect_eq(def_of(&f, "h")->cclass, AST_HARD);
	cr_expect_eq(def_of(&f, "s")->cclass, AST_SOFT);
	cr_expect_eq(def_of(&f, "c")->cclass, AST_CORRECT);
	cr_expect(def_of(&f, "line_5")->require);
	cr_expect_eq(def_of(&f, "line_5")->cclass, AST_CORRECT);
	cr_expect(def_of(&f, "rs")->require);
	cr_expect_eq(def_of(&f, "rs")->cclass, AST_SOFT);
	fe_release(&f);
}

Test(sema, bindable_in_definition_order)
{
	struct fe f;
	analyse(&f, "setting s = 1\ndevice b = s + 1\ndevice a = 2\nx = range(a + b)\nrequire x > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	char *names = fe_names(f.prog.bindable, f.prog.nbindable);
	cr_expect_str_eq(names, "s b a");
	free(names);
	fe_release(&f);
}

/* ---- SSA --------------------------------------------------------------------------- */

Test(sema, ssa_versions_for_if_elif_else)
{
	struct fe f;
	analyse(&f, "setting p = 'double'\n"
		    "a = range(1, 4)\n"
		    "x = a * 2\n"
		    "before = x\n"
		    "if p == 'double':\n"
		    "    x = x * 2\n"
		    "elif p == 'single':\n"
		    "    x = x + 1\n"
		    "else:\n"
		    "    x = 0\n"
		    "after = x\n"
		    "require before + after > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	struct sema_def *v0 = fe_cdef(&f, "x"), *v1 = fe_cdef(&f, "x__v1"),
			*v2 = fe_cdef(&f, "x__v2"), *v3 = fe_cdef(&f, "x__v3");
	cr_assert(v0 && v1 && v2 && v3);
	cr_expect_null(fe_cdef(&f, "x__v4"));
	cr_expect_eq(v0->version, 0);
	cr_expect_eq(v3->version, 3);
	cr_expect_str_eq(v3->name, "x");
	cr_expect(!v0->is_final && !v1->is_final && !v2->is_final && v3->is_final);
	cr_expect_eq(fe_def(&f, "x"), v3);
	/* Each version is `new if guard else previous`; elif/else conjoin the
	 * negated earlier guards. */
	char *s = fe_dump_expr(v1->expr);
	cr_expect_str_eq(s, "(cond (compare p == \"double\") (binary * x 2) x)");
	free(s);
	s = fe_dump_expr(v2->expr);
	cr_expect_str_eq(s, "(cond (and (unary not (compare p == \"double\")) (compare p == \"single\")) "
			    "(binary + x 1) x)");
	free(s);
	s = fe_dump_expr(v3->expr);
	cr_expect_str_eq(s, "(cond (and (unary not (compare p == \"double\")) "
			    "(unary not (compare p == \"single\"))) 0 x)");
	free(s);
	/* The previous value and the right-hand side see the version above. */
	cr_expect_eq(v1->expr->items[2]->ref, v0);
	cr_expect_eq(v1->expr->items[1]->items[0]->ref, v0);
	cr_expect_eq(v2->expr->items[2]->ref, v1);
	cr_expect_eq(v2->expr->items[1]->items[0]->ref, v1);
	cr_expect_eq(v3->expr->items[2]->ref, v2);
	/* A use above the if sees version 0, a use below the final one. */
	cr_expect_eq(def_of(&f, "before")->expr->ref, v0);
	cr_expect_eq(def_of(&f, "after")->expr->ref, v3);
	expect_deps(v1, "p x");
	expect_deps(v2, "p x__v1");
	expect_deps(v3, "p x__v2");
	/* Versions of a derived value stay derived. */
	cr_expect_eq(v3->kind, SEMA_DERIVED);
	cr_expect(!v3->partial);
	fe_release(&f);
}

Test(sema, ssa_guard_is_evaluated_before_the_block)
{
	/* As in Python, `if C > 1:` tests C before the block reassigns it. */
	struct fe f;
	analyse(&f, "C = 3\nif C > 1:\n    C = C + 1\n    C += 2\nx = range(C)\nrequire x > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	struct sema_def *v0 = fe_cdef(&f, "C"), *v1 = fe_cdef(&f, "C__v1"), *v2 = fe_cdef(&f, "C__v2");
	cr_assert(v0 && v1 && v2);
	char *s = fe_dump_expr(v2->expr);
	cr_expect_str_eq(s, "(cond (compare C > 1) (binary + C 2) C)");
	free(s);
	cr_expect_eq(v2->expr->items[0]->items[0]->ref, v0);     /* guard */
	cr_expect_eq(v2->expr->items[1]->items[0]->ref, v1);     /* C += 2 */
	cr_expect_eq(v2->expr->items[2]->ref, v1);               /* else */
	cr_expect_eq(v2->kind, SEMA_CONST);
	fe_release(&f);
}

Test(sema, ssa_nested_ifs_conjoin_guards)
{
	struct fe f;
	analyse(&f, "p = 1\nq = 2\nx = 0\nif p:\n    if q:\n        x = 1\ny = range(x + 1)\nrequire y > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	char *s = fe_dump_expr(fe_cdef(&f, "x__v1")->expr);
	cr_expect_str_eq(s, "(cond (and p q) 1 x)");
	free(s);
	fe_release(&f);
}

Test(sema, forward_reference_sees_the_final_version)
{
	struct fe f;
	analyse(&f, "y = x + 1\nx = 1\nif x > 0:\n    x = 2\na = range(y)\nrequire a > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	expect_deps(def_of(&f, "y"), "x__v1");
	fe_release(&f);
}

Test(sema, partial_definition_is_an_error)
{
	struct fe f;
	analyse(&f, "p = 1\nif p:\n    z = 1\ny = z + 1\n");
	cr_expect_str_eq(fe_diag(&f),
			 "t.space:4:1: error: 'y' uses 'z', which is not defined on every path\n"
			 "    4 | y = z + 1\n"
			 "      | ^\n"
			 "t.space:3:5: note: 'z' is only assigned inside 'if'\n"
			 "    3 |     z = 1\n"
			 "      |     ^\n");
	cr_expect(fe_cdef(&f, "z")->partial);
	fe_release(&f);
}

Test(sema, defined_in_every_branch_is_complete)
{
	struct fe f;
	analyse(&f, "p = 1\nif p:\n    z = 1\nelse:\n    z = 2\na = range(z)\nrequire a > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	cr_expect(!fe_def(&f, "z")->partial);
	fe_release(&f);
}

/* ---- dependencies and order ------------------------------------------------------------ */

Test(sema, dependencies_once_in_first_use_order)
{
	struct fe f;
	analyse(&f, "device d = 8\n"
		    "a = range(d)\n"
		    "b = range(a, d, a)\n"
		    "x = b * a + b * d\n"
		    "@hard\n"
		    "def h(a, b, x):\n"
		    "    t = b + a + x + b\n"
		    "    return t > d\n");
	cr_expect_str_eq(fe_diag(&f), "", "%s", fe_diag(&f));
	expect_deps(def_of(&f, "a"), "d");
	expect_deps(def_of(&f, "b"), "a d");
	expect_deps(def_of(&f, "x"), "b a d");
	/* In a def: true uses, in the order the body reads them. */
	expect_deps(def_of(&f, "h"), "b a x d");
	cr_expect(def_of(&f, "d")->used);
	cr_expect(def_of(&f, "x")->used);
	cr_expect(!def_of(&f, "h")->used);
	fe_release(&f);
}

Test(sema, topological_order)
{
	struct fe f;
	analyse(&f, "z = y + 1\ny = x * 2\nx = range(3)\nrequire z > 1\n");
	cr_expect_str_eq(fe_diag(&f), "");
	int px = fe_topo_pos(&f, "x"), py = fe_topo_pos(&f, "y"), pz = fe_topo_pos(&f, "z"),
	    pr = fe_topo_pos(&f, "line_4");
	cr_expect(px >= 0 && px < py && py < pz && pz < pr, "x %d y %d z %d line_4 %d", px, py, pz, pr);
	cr_expect_eq(f.prog.ndefs, 4);
	/* ids number the definitions in source order. */
	cr_expect_eq(def_of(&f, "z")->id, 0);
	cr_expect_eq(def_of(&f, "x")->id, 2);
	fe_release(&f);
}

Test(sema, levels)
{
	struct fe f;
	analyse(&f, "device d = 8\n"
		    "C = d * 2\n"
		    "a = range(1, d)\n"
		    "b = range(a, C, a)\n"
		    "xa = a * C\n"
		    "xb = a * b\n"
		    "hard ha = xa > 4\n"
		    "hard hb = xb > 4\n");
	cr_expect_str_eq(fe_diag(&f), "");
	expect_loop_order(&f, "a b");
	struct sema_def *a = def_of(&f, "a"), *b = def_of(&f, "b");
	cr_expect_eq(a->loop_pos, 0);
	cr_expect_eq(b->loop_pos, 1);
	cr_expect_eq(a->level, 0);
	cr_expect_eq(b->level, 1);
	cr_expect_eq(def_of(&f, "d")->level, -1);
	cr_expect_eq(def_of(&f, "C")->level, -1);
	cr_expect_eq(def_of(&f, "xa")->level, 0);
	cr_expect_eq(def_of(&f, "ha")->level, 0);
	cr_expect_eq(def_of(&f, "xb")->level, 1);
	cr_expect_eq(def_of(&f, "hb")->level, 1);
	cr_expect_eq(def_of(&f, "d")->loop_pos, -1);
	cr_expect_eq(def_of(&f, "xa")->loop_pos, -1);
	/* BEAST's level sets: 0 for no iterator input, else 1 + deepest. */
	cr_expect_eq(a->level_set, 0);
	cr_expect_eq(b->level_set, 1);
	fe_release(&f);
}

Test(sema, level_sets_of_a_chain)
{
	struct fe f;
	analyse(&f, "c = range(b)\nb = range(a)\na = range(4)\nz = range(2)\n"
		    "require a + b + c + z > 0\n");
	cr_expect_str_eq(fe_diag(&f), "");
	cr_expect_eq(def_of(&f, "a")->level_set, 0);
	cr_expect_eq(def_of(&f, "z")->level_set, 0);
	cr_expect_eq(def_of(&f, "b")->level_set, 1);
	cr_expect_eq(def_of(&f, "c")->level_set, 2);
	/* Inputs always open first. */
	cr_expect_lt(def_of(&f, "a")->loop_pos, def_of(&f, "b")->loop_pos);
	cr_expect_lt(def_of(&f, "b")->loop_pos, def_of(&f, "c")->loop_pos);
	/* prog->iters is definition order, the output columns. */
	char *names = fe_names(f.prog.iters, f.prog.niters);
	cr_expect_str_eq(names, "c b a z");
	free(names);
	for (int i = 0; i < f.prog.niters; i++)
		cr_expect_eq(f.prog.iters[i]->decl_pos, i);
	fe_release(&f);
}

Test(sema, loop_order_without_constraints_is_definition_order)
{
	struct fe f;
	analyse(&f, "a = range(3)\nb = range(3)\nc = range(3)\n");
	cr_expect_str_eq(fe_diag(&f), "");
	expect_loop_order(&f, "a b c");
	fe_release(&f);
}

Test(sema, loop_order_opens_a_constrained_iterator_first)
{
	/* Binding b first lets its constraint prune before a and c loop. */
	struct fe f;
	analyse(&f, "a = range(3)\nb = range(3)\nc = range(3)\nrequire b > 1\n");
	cr_expect_str_eq(fe_diag(&f), "");
	expect_loop_order(&f, "b a c");
	cr_expect_eq(def_of(&f, "line_4")->level, 0);
	fe_release(&f);
}

Test(sema, loop_order_respects_inputs)
{
	struct fe f;
	analyse(&f, "a = range(3)\nb = range(a)\nc = range(3)\n@iterator\ndef it(c):\n    return range(c)\n"
		    "require b > 1\n");
	cr_expect_str_eq(fe_diag(&f), "", "%s", fe_diag(&f));
	struct sema_def *a = def_of(&f, "a"), *b = def_of(&f, "b"), *c = def_of(&f, "c"), *it = def_of(&f, "it");
	cr_expect_lt(a->loop_pos, b->loop_pos);
	cr_expect_lt(c->loop_pos, it->loop_pos);
	/* A permutation of the iterators. */
	int seen = 0;
	for (int i = 0; i < f.prog.niters; i++)
		seen |= 1 << f.prog.iters[i]->loop_pos;
	cr_expect_eq(seen, 0xf);
	fe_release(&f);
}

/* ---- errors ----------------------------------------------------------------------------- */

struct ecase {
	char src[160];
	char diag[400]; /* the expected start of the diagnostics */
};

ParameterizedTestParameters(sema, errors)
{
	static struct ecase cases[] = {
		/* Unknown names, with a suggestion when one is close. */
		{ "tile_x = range(4)\nrequire tilex > 1\n",
		  "t.space:2:9: error: unknown name 'tilex'\n"
		  "    2 | require tilex > 1\n"
		  "      |         ^~~~~\n"
		  "t.space:1:1: note: did you mean 'tile_x'?\n"
		  "    1 | tile_x = range(4)\n"
		  "      | ^~~~~~\n" },
		{ "a = range(4)\nrequire zzzzz > 1\n",
		  "t.space:2:9: error: unknown name 'zzzzz'\n"
		  "    2 | require zzzzz > 1\n"
		  "      |         ^~~~~\n" },
		{ "a = rnge(4)\n", "t.space:1:5: error: unknown name 'rnge'\n" },
		{ "a = range(4)\n@hard\ndef h(a):\n    return a > limit\nlimits = 3\n",
		  "t.space:4:16: error: unknown name 'limit'\n"
		  "    4 |     return a > limit\n"
		  "      |                ^~~~~\n"
		  "t.space:5:1: note: did you mean 'limits'?\n" },
		/* Duplicates. */
		{ "a = 1\na = 2\n",
		  "t.space:2:1: error: duplicate definition of 'a'\n"
		  "    2 | a = 2\n"
		  "      | ^\n"
		  "t.space:1:1: note: 'a' was first defined here\n"
		  "    1 | a = 1\n"
		  "      | ^\n"
		  "t.space:2:1: note: to change a value conditionally, reassign it inside a top-level 'if'\n" },
		{ "device d = 1\nhard d = 2 > 1\n",
		  "t.space:2:6: error: duplicate definition of 'd'\n"
		  "    2 | hard d = 2 > 1\n"
		  "      |      ^\n"
		  "t.space:1:8: note: 'd' was first defined here\n" },
		{ "a = range(2)\n@iterator\ndef a():\n    return range(3)\n",
		  "t.space:3:5: error: duplicate definition of 'a'\n" },
		{ "range = 3\n", "t.space:1:1: error: 'range' is a builtin function and cannot be redefined\n" },
		{ "device d = 1\nif d:\n    d = 2\n",
		  "t.space:3:5: error: cannot reassign 'd', a device\n"
		  "    3 |     d = 2\n"
		  "      |     ^\n"
		  "t.space:1:8: note: 'd' is defined here\n" },
		{ "x = 1\nx += 1\n", "t.space:2:1: error: augmented assignment redefines 'x' at top level\n" },
		{ "p = 1\nif p:\n    x += 1\n", "t.space:3:5: error: 'x' is updated before it is defined\n" },
		/* Cycles, printed in order, with the other members as notes. */
		{ "a = b + 1\nb = c\nc = a\n",
		  "t.space:1:1: error: dependency cycle: 'a' -> 'b' -> 'c' -> 'a'\n"
		  "    1 | a = b + 1\n"
		  "      | ^\n"
		  "t.space:2:1: note: 'b' is defined here\n"
		  "    2 | b = c\n"
		  "      | ^\n"
		  "t.space:3:1: note: 'c' is defined here\n"
		  "    3 | c = a\n"
		  "      | ^\n" },
		{ "a = a + 1\n", "t.space:1:1: error: dependency cycle: 'a' -> 'a'\n" },
		{ "@iterator\ndef f():\n    return range(g)\n@iterator\ndef g():\n    return range(f)\n",
		  "t.space:2:5: error: dependency cycle: 'f' -> 'g' -> 'f'\n" },
		{ "@iterator\ndef f(f):\n    return range(3)\n",
		  "t.space:2:7: error: 'f' cannot depend on itself\n" },
		/* Context errors. */
		{ "yield 1\n", "t.space:1:1: error: 'yield' outside @iterator\n" },
		{ "@hard\ndef f():\n    yield 1\n",
		  "t.space:3:5: error: 'yield' outside @iterator\n"
		  "    3 |     yield 1\n"
		  "      |     ^~~~~~~\n" },
		{ "return 1\n", "t.space:1:1: error: 'return' outside a def\n" },
		{ "break\n", "t.space:1:1: error: 'break' outside a loop\n" },
		{ "continue\n", "t.space:1:1: error: 'continue' outside a loop\n" },
		{ "@iterator\ndef f():\n    break\n", "t.space:3:5: error: 'break' outside a loop\n" },
		{ "@iterator\ndef f():\n    while True:\n        pass\n    else:\n        continue\n",
		  "t.space:6:9: error: 'continue' outside a loop\n" },
		{ "@iterator\ndef g():\n    x = 1\n    yield x\n    return 2\n",
		  "t.space:5:12: error: 'return' with a value in an iterator that yields\n" },
		{ "@iterator\ndef g():\n    device d = 1\n    return [d]\n",
		  "t.space:3:5: error: a device is only allowed at top level\n" },
		{ "p = 1\nif p:\n    hard h = p > 0\n",
		  "t.space:3:5: error: a constraint cannot be defined inside 'if'; only assignments can\n" },
		{ "for i in range(3):\n    pass\n", "t.space:1:1: error: a 'for' loop is only allowed inside a def\n" },
		{ "x = 1\nx\n", "t.space:2:1: error: an expression statement has no effect at top level\n" },
		{ "a, b = 1, 2\n", "t.space:1:1: error: only a single name can be assigned at top level\n" },
		{ "x = lst.append(1)\n", "t.space:1:5: error: attribute '.append' is only allowed inside a def\n" },
		/* Parameters. */
		{ "@hard\ndef f(nope):\n    return 1\n",
		  "t.space:2:7: error: parameter 'nope' names no definition\n"
		  "    2 | def f(nope):\n"
		  "      |       ^~~~\n" },
		{ "tile_x = range(4)\n@hard\ndef f(tilex):\n    return tilex > 1\n",
		  "t.space:3:7: error: parameter 'tilex' names no definition\n"
		  "    3 | def f(tilex):\n"
		  "      |       ^~~~~\n"
		  "t.space:1:1: note: did you mean 'tile_x'?\n" },
		{ "a = range(4)\n@hard\ndef f(a, a):\n    return a > 1\n",
		  "t.space:3:10: error: duplicate parameter 'a'\n" },
		/* Static types. */
		{ "x = \"a\" * 2.5\n",
		  "t.space:1:5: error: unsupported operand types for '*': 'str' and 'float'\n"
		  "    1 | x = \"a\" * 2.5\n"
		  "      |     ^~~~~~~~~\n" },
		{ "x = \"x\" - 1\n", "t.space:1:5: error: unsupported operand types for '-': 'str' and 'int'\n" },
		{ "x = None + 1\n", "t.space:1:5: error: unsupported operand types for '+': 'NoneType' and 'int'\n" },
		{ "x = 1.5 | 2\n", "t.space:1:5: error: unsupported operand types for '|': 'float' and 'int'\n" },
		{ "x = [1] * 2.0\n", "t.space:1:5: error: unsupported operand types for '*': 'list' and 'float'\n" },
		{ "x = [1] + 2\n", "t.space:1:5: error: unsupported operand types for '+': 'list' and 'int'\n" },
		{ "r = range(1.5)\n",
		  "t.space:1:11: error: range() arguments must be integers, not 'float'\n"
		  "    1 | r = range(1.5)\n"
		  "      |           ^~~\n" },
		{ "r = range(1, 'a')\n", "t.space:1:14: error: range() arguments must be integers, not 'str'\n" },
		{ "r = range()\n", "t.space:1:5: error: range() takes 1 to 3 arguments (0 given)\n" },
		{ "r = range(1, 2, 3, 4)\n", "t.space:1:5: error: range() takes 1 to 3 arguments (4 given)\n" },
		{ "x = abs(1, 2)\n", "t.space:1:5: error: abs() takes 1 argument (2 given)\n" },
		{ "x = abs('a')\n", "t.space:1:9: error: bad operand type for abs(): 'str'\n" },
		{ "x = len(3)\n", "t.space:1:9: error: object of type 'int' has no len()\n" },
		{ "x = min(3)\n", "t.space:1:9: error: 'int' object is not iterable\n" },
		{ "x = -'a'\n", "t.space:1:5: error: bad operand type for unary '-': 'str'\n" },
		{ "x = ~1.5\n", "t.space:1:5: error: bad operand type for unary '~': 'float'\n" },
		{ "x = 1 < 'a'\n", "t.space:1:5: error: '<' not supported between 'int' and 'str'\n" },
		{ "x = 1 in 2\n", "t.space:1:10: error: argument of 'in' is not iterable ('int')\n" },
		{ "x = 5[0]\n", "t.space:1:5: error: 'int' object is not subscriptable\n" },
		{ "T = [[1]]\nx = T[1.5]\n", "t.space:2:7: error: indices must be integers, not 'float'\n" },
		{ "C = 3\nx = C(1)\n", "t.space:2:5: error: 'C' is not a function\n" },
		{ "a = range(3)\ndevice d = a\n", "t.space:2:8: error: the default of 'd' depends on an iterator\n" },
		{ "device d = [1, 2]\n", "t.space:1:12: error: 'd' must be a scalar, not 'list'\n" },
		{ "a = range(3)\nT = [[a]]\n", "t.space:2:1: error: table 'T' must not depend on iterators\n" },
		{ "p = 1\na = range(3)\nif p:\n    a = range(4)\n",
		  "t.space:4:5: error: cannot reassign iterator 'a' inside 'if'\n" },
		{ "x = 1 if 1 else [1]\n",
		  "t.space:1:5: error: conditional mixes an iterable ('list') and a scalar ('int')\n" },
		{ "@hard\ndef h():\n    return x.pop()\n",
		  "t.space:3:12: error: unknown method '.pop'; lists have '.append'\n" },
	};
	return cr_make_param_array(struct ecase, cases, sizeof(cases) / sizeof(*cases));
}

/* `src` parses, and its semantic diagnostics start with `diag`. */
static void expect_sema_error(const char *src, const char *diag)
{
	struct fe f;
	fe_parse(&f, src);
	cr_assert_eq(f.parse_errors, 0, "source:\n%s\nparse errors:\n%s", src, fe_diag(&f));
	int errors = fe_sema(&f);
	cr_expect(!strncmp(fe_diag(&f), diag, strlen(diag)),
		  "source:\n%s\nexpected start:\n%s\ngot:\n%s", src, diag, fe_diag(&f));
	cr_expect_gt(errors, 0, "source:\n%s", src);
	cr_expect_eq(errors, f.diag.errors);
	fe_release(&f);
}

ParameterizedTest(struct ecase *c, sema, errors)
{
	expect_sema_error(c->src, c->diag);
}

Test(sema, every_unknown_name_is_reported)
{
	struct fe f;
	analyse(&f, "a = b1 + 1\nc = b2 * 2\n@hard\ndef h():\n    return b3\n");
	cr_expect_eq(f.sema_errors, 3, "%s", fe_diag(&f));
	cr_expect(fe_diag_has(&f, "unknown name 'b1'"));
	cr_expect(fe_diag_has(&f, "unknown name 'b2'"));
	cr_expect(fe_diag_has(&f, "unknown name 'b3'"));
	fe_release(&f);
}

Test(sema, no_warnings_when_there_are_errors)
{
	struct fe f;
	analyse(&f, "unused = 1\nC = 3\nrequire C > 2\nx = nope\n");
	cr_expect_eq(f.sema_errors, 1);
	cr_expect_eq(fe_diag_count(&f, "warning:"), 0, "%s", fe_diag(&f));
	fe_release(&f);
}

/* ---- warnings ------------------------------------------------------------------------------ */

struct wcase {
	char src[192];
	char diag[400]; /* the whole expected output */
};

ParameterizedTestParameters(sema, warnings)
{
	static struct wcase cases[] = {
		{ "a = range(3)\nk = 5\nrequire a > 1\n",
		  "t.space:2:1: warning: 'k' is defined but never used [-Wunused]\n"
		  "    2 | k = 5\n"
		  "      | ^\n" },
		{ "a = range(3)\nx = a * 2\nrequire a > 1\n",
		  "t.space:2:1: warning: 'x' is defined but never used [-Wunused]\n"
		  "    2 | x = a * 2\n"
		  "      | ^\n" },
		{ "a = range(3)\nT = [[1], [2]]\nrequire a > 1\n",
		  "t.space:2:1: warning: 'T' is defined but never used [-Wunused]\n"
		  "    2 | T = [[1], [2]]\n"
		  "      | ^\n" },
		/* Reassigned and still unused: reported once, at the first. */
		{ "a = range(3)\np = 1\nx = 1\nif p:\n    x = 2\nrequire a > p\n",
		  "t.space:3:1: warning: 'x' is defined but never used [-Wunused]\n"
		  "    3 | x = 1\n"
		  "      | ^\n" },
		{ "C = 3\nrequire C > 2\n",
		  "t.space:2:1: warning: constraint 'line_2' depends on no iterator; it is checked once for the whole space [-Wconstant-constraint]\n"
		  "    2 | require C > 2\n"
		  "      | ^~~~~~~\n" },
		{ "device d = 3\nhard h = d > 2\n",
		  "t.space:2:6: warning: constraint 'h' depends on no iterator; it is checked once for the whole space [-Wconstant-constraint]\n"
		  "    2 | hard h = d > 2\n"
		  "      |      ^\n" },
		{ "a = range(3)\nsoft s = 1 > 2\nrequire a > 0\n",
		  "t.space:2:6: warning: constraint 's' depends on no iterator; it is checked once for the whole space [-Wconstant-constraint]\n"
		  "    2 | soft s = 1 > 2\n"
		  "      |      ^\n"
		  "t.space:2:6: warning: soft constraint 's' can never reject a point [-Wsoft-never-rejects]\n"
		  "    2 | soft s = 1 > 2\n"
		  "      |      ^\n" },
		{ "a = range(3)\nrequire soft s = 1 < 2\nrequire a > 0\n",
		  "t.space:2:14: warning: constraint 's' depends on no iterator; it is checked once for the whole space [-Wconstant-constraint]\n"
		  "    2 | require soft s = 1 < 2\n"
		  "      |              ^\n"
		  "t.space:2:14: warning: soft constraint 's' can never reject a point [-Wsoft-never-rejects]\n"
		  "    2 | require soft s = 1 < 2\n"
		  "      |              ^\n" },
		{ "a = range(3)\nb = range(3)\n@hard\ndef h(a, b):\n    return a > 1\n",
		  "t.space:4:10: warning: parameter 'b' of 'h' is declared but not used [-Wunused-parameter]\n"
		  "    4 | def h(a, b):\n"
		  "      |          ^\n" },
		{ "a = range(3)\nb = range(3)\n@hard\ndef h(a):\n    return a > b\n",
		  "t.space:4:5: warning: 'h' uses 'b' but does not declare it as a parameter [-Wundeclared-dependency]\n"
		  "    4 | def h(a):\n"
		  "      |     ^\n" },
		/* Device limits read without declaring them are BEAST's style. */
		{ "device m = 3\na = range(3)\n@hard\ndef h(a):\n    return a > m\n", "" },
		/* Soft constraints that can reject, and used definitions: quiet. */
		{ "a = range(3)\nsoft s = a > 1\nx = a * 2\nrequire x > 0\n", "" },
	};
	return cr_make_param_array(struct wcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct wcase *c, sema, warnings)
{
	struct fe f;
	analyse(&f, c->src);
	cr_expect_str_eq(fe_diag(&f), c->diag, "source:\n%s", c->src);
	cr_expect_eq(f.sema_errors, 0, "source:\n%s", c->src);
	fe_release(&f);
}

Test(sema, warnings_can_be_disabled_or_made_errors)
{
	struct fe f;
	fe_parse(&f, "C = 3\nk = 1\nrequire C > 2\n");
	f.diag.disabled_warnings = "unused";
	fe_sema(&f);
	cr_expect_eq(fe_diag_count(&f, "[-Wunused]"), 0, "%s", fe_diag(&f));
	cr_expect_eq(fe_diag_count(&f, "[-Wconstant-constraint]"), 1, "%s", fe_diag(&f));
	fe_release(&f);

	fe_parse(&f, "C = 3\nrequire C > 2\n");
	f.diag.werror = true;
	cr_expect_eq(fe_sema(&f), 1);
	cr_expect(fe_diag_has(&f, "t.space:2:1: error: constraint 'line_2' depends on no iterator"),
		  "%s", fe_diag(&f));
	fe_release(&f);
}

static void expect_clean_space(const char *path)
{
	size_t len;
	char *src = parse_read_file(path, &len);
	struct fe f;

	cr_assert(src, "cannot read %s", path);
	fe_parsen(&f, src, len);
	free(src);
	fe_sema(&f);
	cr_expect_eq(f.diag.errors, 0, "%s:\n%s", path, fe_diag(&f));
	fe_release(&f);
}

Test(sema, example_spaces_are_clean)
{
	/* The shipped spaces must analyse without errors: every file in
	 * spaces/examples/ (the BEAST paper's figures among them) and
	 * gemm_beast.space. */
	const char *top = getenv("top_srcdir");
	char dir_path[1024], path[1400];
	struct dirent *entry;
	DIR *dir;
	int examples = 0;

	snprintf(dir_path, sizeof(dir_path), "%s/spaces/examples", top ? top : ".");
	dir = opendir(dir_path);
	cr_assert(dir, "cannot open %s", dir_path);
	while ((entry = readdir(dir)) != NULL) {
		size_t n = strlen(entry->d_name);

		if (n < 6 || strcmp(entry->d_name + n - 6, ".space") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir_path, entry->d_name);
		expect_clean_space(path);
		examples++;
	}
	closedir(dir);
	cr_expect_geq(examples, 6, "only %d example spaces in %s", examples, dir_path);
	snprintf(path, sizeof(path), "%s/spaces/gemm_beast.space", top ? top : ".");
	expect_clean_space(path);
}

Test(sema, unconditional_update_makes_a_version)
{
	/* BEAST's Fig. 12: `x = min(x, ...)` at top level updates x. */
	struct fe f;
	analyse(&f, "a = range(1, 9)\nx = 64 // a\nx = min(x, 4)\nrequire x > 2\n");
	cr_expect_str_eq(fe_diag(&f), "");
	expect_deps(fe_def(&f, "x"), "x");
	cr_expect_str_eq(fe_def(&f, "x")->cname, "x__v1");
	fe_release(&f);
}

Test(sema, update_of_an_iterator_is_an_error)
{
	struct fe f;
	analyse(&f, "a = range(1, 9) if 1 > 0 else [2]\nb = 3\na = a + b\nrequire a > 2\n");
	cr_expect(fe_diag_has(&f, "t.space:3:1: error: duplicate definition of 'a'\n"), "%s", fe_diag(&f));
	fe_release(&f);
}

/* The program specialized to a binding: `s` decides the branches. */
static void analyse_known(struct fe *f, const char *src, const char *name, int64_t value)
{
	fe_parse(f, src);
	cr_assert_eq(f->parse_errors, 0, "parse errors:\n%s", fe_diag(f));
	struct sema_known k = { ast_intern(&f->mod, name, strlen(name)),
				ast_expr_new(&f->mod, AST_INT, (struct srcloc){ 0 }) };
	k.value->ival = value;
	f->sema_errors = sema_analyze_known(&f->mod, &f->diag, &f->prog, &k, 1);
}

Test(sema, known_setting_makes_a_deferred_iterator_a_range)
{
	static const char src[] =
		"setting s = 0\n"
		"b = range(1, 5)\n"
		"c = range(1, 3)\n"
		"@iterator\n"
		"def a(b, c):\n"
		"    if s == 0:\n"
		"        return range(1, b + 1)\n"
		"    else:\n"
		"        return range(1, c + 1)\n"
		"@hard\n"
		"def h(a, b, c):\n"
		"    return (s == 0 and a * 2 > b) or (s != 0 and a > c)\n";
	struct fe f;
	analyse_known(&f, src, "s", 1);
	cr_expect_str_eq(fe_diag(&f), "");
	struct sema_def *a = def_of(&f, "a"), *h = def_of(&f, "h");
	cr_expect_eq(a->form, SEMA_FORM_EXPR);
	cr_expect_eq(a->kind, SEMA_ITER);
	expect_deps(a, "c");
	cr_expect_eq(h->form, SEMA_FORM_EXPR);
	expect_deps(h, "a c");
	cr_expect_eq(h->expr->kind, AST_COMPARE, "the test is `a > c` alone");
	fe_release(&f);

	/* Without bindings, the defaults decide: s == 0. */
	fe_parse(&f, src);
	f.sema_errors = sema_analyze_known(&f.mod, &f.diag, &f.prog, NULL, 0);
	expect_deps(def_of(&f, "a"), "b");
	fe_release(&f);

	/* Not asked: the program as written. */
	analyse(&f, src);
	cr_expect_eq(def_of(&f, "a")->form, SEMA_FORM_DEF);
	fe_release(&f);
}

Test(sema, deferred_iterator_with_statements_stays_a_def)
{
	struct fe f;
	analyse_known(&f, "setting s = 0\nb = range(1, 5)\n@iterator\ndef a(b):\n    x = b + s\n"
			  "    return range(x)\nrequire a > 0\n", "s", 1);
	cr_expect_str_eq(fe_diag(&f), "");
	cr_expect_eq(def_of(&f, "a")->form, SEMA_FORM_DEF);
	fe_release(&f);
}

Test(sema, duplicate_iterator_gets_no_reassign_advice)
{
	/* Reassigning an iterator inside 'if' is itself an error, so the
	 * note suggesting it would lead the user into a second error. */
	struct fe f;
	analyse(&f, "a = range(3)\na = range(4)\nrequire a > 1\n");
	cr_expect(fe_diag_has(&f, "t.space:2:1: error: duplicate definition of 'a'\n"), "%s", fe_diag(&f));
	cr_expect(!fe_diag_has(&f, "reassign it inside a top-level 'if'"), "%s", fe_diag(&f));
	fe_release(&f);
}

Test(sema, reassigned_iterator_is_one_error)
{
	struct fe f;
	analyse(&f, "p = 1\na = range(3)\nif p:\n    a = range(4)\nrequire a > 1\n");
	cr_expect_eq(f.sema_errors, 1, "%s", fe_diag(&f));
	cr_expect(!fe_diag_has(&f, "conditional mixes"), "%s", fe_diag(&f));
	fe_release(&f);
}

/* Independent sub-nests are not interleaved: {a, b} is finished before
 * {c, d} opens, even though c is defined before b. */
Test(sema, independent_subnests_are_kept_apart)
{
	struct fe f;
	cr_assert_eq(fe_check(&f, "a = range(1, 6)\n"
				  "c = range(1, 5)\n"
				  "b = range(a, 8)\n"
				  "d = range(c, 6)\n"
				  "hard x = a * b > 12\n"
				  "hard y = c + d > 7\n"), 0, "%s", fe_diag(&f));
	expect_loop_order(&f, "a b c d");
	fe_release(&f);
}

/* -O0 is BEAST's plain level-set order: every iterator without iterator
 * inputs first, in definition order. */
Test(sema, level_set_order_for_O0)
{
	struct fe f;
	cr_assert_eq(fe_check(&f, "a = range(1, 6)\n"
				  "b = range(a, 8)\n"
				  "c = range(1, 5)\n"
				  "hard x = a * b > 12\n"
				  "hard y = c > 3\n"), 0, "%s", fe_diag(&f));
	dag_order_place(&f.prog, true);
	expect_loop_order(&f, "a c b");
	cr_expect_eq(fe_def(&f, "x")->level, 2);
	dag_order_place(&f.prog, false);
	cr_expect_eq(fe_def(&f, "x")->level, fe_def(&f, "b")->loop_pos);
	fe_release(&f);
}

/* ---- the tune: section and device queries ---------------------------------------- */

/* A correct section: names resolve to final versions and count as uses. */
Test(sema, tune_section_resolves_and_marks_uses)
{
	struct fe f;
	analyse(&f, "setting M = 64\n"
		    "device wg = query(\"max_work_group_size\", 256)\n"
		    "a = range(1, 5)\n"
		    "t = a * 2\n"
		    "require a <= wg\n"
		    "tune:\n"
		    "    kernel k from \"k.cl\"\n"
		    "    global [M, t]\n"
		    "    local [1, a]\n"
		    "    arg in float A[M] = random(1)\n");
	cr_expect_eq(f.sema_errors, 0, "%s", fe_diag(&f));
	cr_expect_eq(fe_diag_count(&f, "warning:"), 0, "'t' is used by the tune section:\n%s", fe_diag(&f));
	const struct ast_tune_line *g = f.mod.tune->lines[1];
	cr_expect_eq(g->global->items[1]->ref, def_of(&f, "t"));
	struct sema_def *wg = def_of(&f, "wg");
	cr_expect_str_eq(wg->query, "max_work_group_size");
	cr_expect_eq(wg->kind, SEMA_DEVICE);
	cr_expect_eq(wg->expr->kind, AST_INT, "the default is the value");
	cr_expect_eq(wg->expr->ival, 256);
	cr_expect_eq(wg->query_loc.line, 2);
	cr_expect_eq(wg->query_loc.col, 19);
	fe_release(&f);
}

Test(sema, tune_types_and_queries_are_listed)
{
	cr_expect_eq(sema_tune_type("char"), 0);
	cr_expect_eq(sema_tune_type("double"), 10);
	cr_expect_eq(sema_tune_type("float4"), -1);
	cr_expect_str_eq(sema_device_queries[0], "max_work_group_size");
}

struct tcase {
	char src[320];
	char diag[400]; /* the expected start of the diagnostics */
};

#define TUNE_HEAD "setting M = 64\na = range(1, 5)\nd = a * 2\nT = [[1], [2]]\ntune:\n    kernel k from \"k.cl\"\n"

ParameterizedTestParameters(sema, tune_errors)
{
	static struct tcase cases[] = {
		{ "device wg = query(\"max_work_group_sise\", 256)\n",
		  "t.space:1:19: error: unknown device query 'max_work_group_sise'\n"
		  "    1 | device wg = query(\"max_work_group_sise\", 256)\n"
		  "      |                   ^~~~~~~~~~~~~~~~~~~~~\n"
		  "t.space:1:19: note: did you mean 'max_work_group_size'?\n" },
		{ "device wg = query(256)\n",
		  "t.space:1:13: error: query() takes 2 arguments, a query name and a default (1 given)\n" },
		{ "device wg = query(wg2, 256)\nwg2 = 1\n",
		  "t.space:1:19: error: the query name must be a string literal\n" },
		{ "x = query(\"warp_size\", 32)\n",
		  "t.space:1:5: error: 'query(...)' is only allowed as the whole value of a 'device' line\n" },
		{ "device w = 2 * query(\"warp_size\", 32)\n",
		  "t.space:1:16: error: 'query(...)' is only allowed as the whole value of a 'device' line\n" },
		/* several kernel lines: a code whose kernels have sizes and
		 * arguments of their own (docs/TUNING.md) */
		{ TUNE_HEAD "    global [M]\n    kernel j from \"j.cl\"\n    global [M]\n",
		  "t.space:8:19: error: the kernels of one code are built as one program: name the same source "
		  "files as the first kernel line\n"
		  "    8 |     kernel j from \"j.cl\"\n"
		  "      |                   ^~~~~~\n"
		  "t.space:6:5: note: the first kernel line is here\n" },
		{ TUNE_HEAD "    global [M]\n    kernel j, i from \"k.cl\"\n    global [M]\n",
		  "t.space:8:15: error: a kernel line of a code with several kernel lines names one kernel\n" },
		{ TUNE_HEAD "    global [M]\n    kernel j from \"k.cl\"\n    local [a]\n",
		  "t.space:8:5: error: this kernel has no 'global' line (each kernel line of a code with several "
		  "needs one, after it)\n" },
		{ TUNE_HEAD "    kernel j from \"k.cl\"\n    global [M]\n",
		  "t.space:6:5: error: this kernel has no 'global' line" },
		{ TUNE_HEAD "    global [M]\n    arg out float t[M]\n    kernel j from \"k.cl\"\n    global [M]\n"
		  "    arg u\n",
		  "t.space:11:9: error: 'u' is no buffer of an earlier line; 'arg NAME' passes a buffer declared "
		  "before it again (write 'arg TYPE VALUE' for a scalar)\n" },
		{ TUNE_HEAD "    global [M]\n    arg out float t[M]\n    arg t\n",
		  "t.space:9:5: error: 'arg NAME' passes a buffer again to a later kernel line's kernel; this tune "
		  "section has one kernel line\n" },
		{ TUNE_HEAD "    global [M]\n    kernel j from \"k.cl\"\n    global [M]\n    arg u\n"
		  "    arg out float u[M]\n",
		  "t.space:10:9: error: 'u' is no buffer of an earlier line" },
		{ TUNE_HEAD "    global [M]\n    global [a]\n", "t.space:8:5: error: duplicate 'global' line\n" },
		{ TUNE_HEAD "    global [M]\n    reference c r from \"r.c\"\n    reference c s from \"s.c\"\n",
		  "t.space:9:5: error: duplicate 'reference' line\n" },
		{ "M = 1\ntune:\n    global [M]\n", "t.space:2:1: error: the tune section has no 'kernel' line\n" },
		{ TUNE_HEAD "    local [a]\n", "t.space:5:1: error: the tune section has no 'global' line\n" },
		{ TUNE_HEAD "    global [M, a]\n    local [a]\n",
		  "t.space:8:11: error: 'local' has 1 sizes but 'global' has 2\n" },
		{ TUNE_HEAD "    global [M, 1, 1, 1]\n",
		  "t.space:7:12: error: 'global' has 4 sizes; a launch has 1 to 3 dimensions\n" },
		{ TUNE_HEAD "    global [Mm]\n",
		  "t.space:7:13: error: unknown name 'Mm'\n"
		  "    7 |     global [Mm]\n"
		  "      |             ^~\n"
		  "t.space:1:9: note: did you mean 'M'?\n" },
		{ TUNE_HEAD "    global [M]\n    define a, b\n", "t.space:8:15: error: unknown name 'b'\n" },
		{ TUNE_HEAD "    global [M]\n    define a\n    define a = 3\n",
		  "t.space:9:12: error: define 'a' is given twice\n" },
		{ TUNE_HEAD "    global [M]\n    define T\n",
		  "t.space:8:12: error: 'T' is a table; only scalar values can be defined\n" },
		{ TUNE_HEAD "    global [M]\n    define X = [1, 2]\n",
		  "t.space:8:16: error: a define's value must be a number, a string or a bool, not 'list'\n" },
		{ "hard c = a > 2\n" TUNE_HEAD "    global [M]\n    define c\n",
		  "t.space:9:12: error: 'c' is a constraint; the tune section can use values, not constraints\n" },
		{ TUNE_HEAD "    global [M / a]\n",
		  "t.space:7:13: error: a work size must be an integer, not 'float'\n" },
		{ TUNE_HEAD "    global [M]\n    arg quad 1\n", "t.space:8:9: error: unknown argument type 'quad'\n" },
		{ TUNE_HEAD "    global [M]\n    arg float4 1\n",
		  "t.space:8:9: error: unknown argument type 'float4'\n"
		  "    8 |     arg float4 1\n"
		  "      |         ^~~~~~\n"
		  "t.space:8:9: note: did you mean 'float'?\n" },
		{ TUNE_HEAD "    global [M]\n    arg int 2.5\n",
		  "t.space:8:13: error: an argument of type 'int' must be an integer, not 'float'\n" },
		{ TUNE_HEAD "    global [M]\n    arg float \"x\"\n",
		  "t.space:8:15: error: an argument of type 'float' must be a number, not 'str'\n" },
		{ TUNE_HEAD "    global [M]\n    arg in float A[M * d]\n",
		  "t.space:8:24: error: the size of buffer 'A' depends on 'd', which varies from point to point\n"
		  "    8 |     arg in float A[M * d]\n"
		  "      |                        ^\n"
		  "t.space:3:1: note: 'd' is a derived value; buffers and the reference are set up once per job\n" },
		{ TUNE_HEAD "    global [M]\n    arg in float A[M] = constant(a)\n",
		  "t.space:8:34: error: the initialiser of buffer 'A' depends on 'a', which varies from point to point\n" },
		{ TUNE_HEAD "    global [M]\n    arg in float A[M] = random(1.5)\n",
		  "t.space:8:32: error: a seed must be an integer, not 'float'\n" },
		{ TUNE_HEAD "    global [M]\n    arg in float A[M] = random(1, 2)\n",
		  "t.space:8:25: error: random() takes a seed, or a seed and the bounds LO, HI (2 given)\n" },
		{ TUNE_HEAD "    global [M]\n    arg in float A[M] = randon(1)\n",
		  "t.space:8:25: error: a buffer is initialised with random(SEED[, LO, HI]), zeros(), constant(X) or file(PATH)\n"
		  "    8 |     arg in float A[M] = randon(1)\n"
		  "      |                         ^~~~~~\n"
		  "t.space:8:25: note: did you mean 'random'?\n" },
		{ TUNE_HEAD "    global [M]\n    arg in float A[M] = file(3)\n",
		  "t.space:8:30: error: a file name must be a string, not 'int'\n" },
		{ TUNE_HEAD "    global [M]\n    arg out float A[M] = zeros()\n",
		  "t.space:8:26: error: output buffer 'A' is zero-filled and takes no initialiser\n" },
		{ TUNE_HEAD "    global [M]\n    arg out float A[M]\n    arg in float A[M]\n",
		  "t.space:9:18: error: buffer 'A' is given twice\n" },
		{ TUNE_HEAD "    global [M]\n    arg in float A[M]\n    compare A\n",
		  "t.space:9:13: error: 'A' is an input buffer; only 'out' and 'inout' buffers can be compared\n" },
		{ TUNE_HEAD "    global [M]\n    compare Z\n", "t.space:8:13: error: 'Z' is not a buffer argument\n" },
		{ TUNE_HEAD "    global [M]\n    metric G = 2 * M flops\n",
		  "t.space:8:22: error: unknown metric unit 'flops'; write 'flop' (GFLOP/s), 'byte' (GB/s) or nothing\n" },
		{ TUNE_HEAD "    global [M]\n    metric G = \"x\"\n",
		  "t.space:8:16: error: a metric must be a number, not 'str'\n" },
		{ TUNE_HEAD "    global [M]\n    metric G = 1\n    metric G = 2\n",
		  "t.space:9:12: error: metric 'G' is given twice\n" },
		{ TUNE_HEAD "    global [M]\n    options 3\n",
		  "t.space:8:13: error: the build options must be a string, not 'int'\n" },
		{ TUNE_HEAD "    global [M]\n    tolerance rel a\n",
		  "t.space:8:19: error: the tolerance depends on 'a', which varies from point to point\n" },
		{ TUNE_HEAD "    global [M]\n    reference kernel r from \"r.cl\"\n",
		  "t.space:8:5: error: a reference kernel needs its 'global [...]' sizes\n" },
		{ TUNE_HEAD "    global [M]\n    reference kernel r from \"r.cl\" global [M, a]\n",
		  "t.space:8:47: error: the reference's global size depends on 'a', which varies from point to point\n" },
		{ TUNE_HEAD "    global [M]\n    reference kernel r from \"r.cl\" global [M, 1] local [1]\n",
		  "t.space:8:56: error: 'local' has 1 sizes but 'global' has 2\n" },
		{ TUNE_HEAD "    global [M.x]\n",
		  "t.space:7:13: error: attribute '.x' is only allowed inside a def\n" },
	};
	return cr_make_param_array(struct tcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct tcase *c, sema, tune_errors)
{
	expect_sema_error(c->src, c->diag);
}

/* A space that names `query` itself keeps its own meaning. */
Test(sema, a_definition_named_query_is_a_name)
{
	struct fe f;
	analyse(&f, "query = 3\na = range(query)\n");
	cr_expect_eq(f.sema_errors, 0, "%s", fe_diag(&f));
	fe_release(&f);
}
