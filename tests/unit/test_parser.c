/*
 * test_parser.c - the grammar, through ast_dump's S-expressions.
 *
 * Expected trees are written from Python 3's grammar, not copied from the
 * implementation: `-2**2` is -(2**2), comparisons chain, `and`/`or` are
 * n-ary, `a if c else b` dumps as (cond c a b).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

/* Criterion may re-execute the binary per case: text lives in arrays. */
struct xcase {
	char expr[96];
	char dump[224];
};

/* Parses `x = EXPR` and checks the value's dump. */
static void expect_expr(const char *expr, const char *dump)
{
	char src[256], want[320];
	snprintf(src, sizeof(src), "x = %s\n", expr);
	snprintf(want, sizeof(want), "1: (assign x %s)\n", dump);
	struct fe f;
	fe_parse(&f, src);
	cr_expect_str_eq(fe_diag(&f), "", "expression [%s]", expr);
	cr_expect_str_eq(fe_dump(&f), want, "expression [%s]", expr);
	fe_release(&f);
}

/* Parses a whole file and checks its dump, with no diagnostics. */
static void expect_dump(const char *src, const char *dump)
{
	struct fe f;
	fe_parse(&f, src);
	cr_expect_str_eq(fe_diag(&f), "", "source:\n%s", src);
	cr_expect_eq(f.parse_errors, 0);
	cr_expect_str_eq(fe_dump(&f), dump, "source:\n%s", src);
	fe_release(&f);
}

/* ---- expressions ---------------------------------------------------------- */

ParameterizedTestParameters(parser, precedence)
{
	static struct xcase cases[] = {
		/* Atoms. */
		{ "42", "42" },
		{ "1.5", "1.5" },
		{ "'s'", "\"s\"" },
		{ "True", "True" },
		{ "False", "False" },
		{ "None", "None" },
		{ "y", "y" },
		{ "[]", "(list)" },
		{ "[1]", "(list 1)" },
		{ "[1, 2,]", "(list 1 2)" },
		{ "[[1, 2], [3]]", "(list (list 1 2) (list 3))" },
		{ "(1)", "1" },
		{ "((y))", "y" },
		{ "(1,)", "(tuple 1)" },
		{ "(1, 2)", "(tuple 1 2)" },
		{ "1, 2", "(tuple 1 2)" },
		{ "1, 2,", "(tuple 1 2)" },
		/* Adjacent string literals concatenate. */
		{ "'a' \"b\" 'c'", "\"abc\"" },
		{ "'''a''' 'b'", "\"ab\"" },
		/* Arithmetic: left-associative, * over +. */
		{ "a - b - c", "(binary - (binary - a b) c)" },
		{ "a + b * c", "(binary + a (binary * b c))" },
		{ "(a + b) * c", "(binary * (binary + a b) c)" },
		{ "a / b // c % d * e", "(binary * (binary % (binary // (binary / a b) c) d) e)" },
		/* ** is right-associative and binds tighter than a unary minus on
		 * its left, looser than one on its right. */
		{ "-2**2", "(unary - (binary ** 2 2))" },
		{ "2**-1", "(binary ** 2 (unary - 1))" },
		{ "2**3**2", "(binary ** 2 (binary ** 3 2))" },
		{ "-a**-b**c", "(unary - (binary ** a (unary - (binary ** b c))))" },
		{ "(-2)**2", "(binary ** (unary - 2) 2)" },
		{ "a * b ** c", "(binary * a (binary ** b c))" },
		{ "~-+a", "(unary ~ (unary - (unary + a)))" },
		{ "- a * b", "(binary * (unary - a) b)" },
		/* Bitwise levels: | < ^ < & < shifts < + */
		{ "a | b ^ c & d << e + f",
		  "(binary | a (binary ^ b (binary & c (binary << d (binary + e f)))))" },
		{ "a << b >> c", "(binary >> (binary << a b) c)" },
		{ "a & b | c & d", "(binary | (binary & a b) (binary & c d))" },
		/* Comparisons chain into one node, below | in precedence. */
		{ "a < b", "(compare a < b)" },
		{ "1 < a <= b != c", "(compare 1 < a <= b != c)" },
		{ "a == b >= c > d", "(compare a == b >= c > d)" },
		{ "a in b not in c", "(compare a in b not in c)" },
		{ "a | b < c", "(compare (binary | a b) < c)" },
		{ "32 <= y*z <= 1024", "(compare 32 <= (binary * y z) <= 1024)" },
		{ "(a < b) < c", "(compare (compare a < b) < c)" },
		{ "a in [1, 2]", "(compare a in (list 1 2))" },
		/* not is below comparisons, above and. */
		{ "not a", "(unary not a)" },
		{ "not not a", "(unary not (unary not a))" },
		{ "not a == b", "(unary not (compare a == b))" },
		{ "not a in b", "(unary not (compare a in b))" },
		{ "not a and b", "(and (unary not a) b)" },
		/* and/or flatten, and binds tighter. */
		{ "a and b", "(and a b)" },
		{ "a or b or c", "(or a b c)" },
		{ "a and b and c and d", "(and a b c d)" },
		{ "a or b and c", "(or a (and b c))" },
		{ "a and b or c and d", "(or (and a b) (and c d))" },
		{ "a or b and c or d", "(or a (and b c) d)" },
		{ "a and (b or c)", "(and a (or b c))" },
		/* Conditional expressions: lowest, right-nested. */
		{ "a if b else c", "(cond b a c)" },
		{ "a if b else c if d else e", "(cond b a (cond d c e))" },
		{ "(a if b else c) if d else e", "(cond d (cond b a c) e)" },
		{ "a or b if c and d else e", "(cond (and c d) (or a b) e)" },
		{ "1 if a < b else -1", "(cond (compare a < b) 1 (unary - 1))" },
		/* Calls, subscripts, attributes. */
		{ "f()", "(call f)" },
		{ "f(a)", "(call f a)" },
		{ "f(a, b + 1,)", "(call f a (binary + b 1))" },
		{ "range(1, n + 1, 2)", "(call range 1 (binary + n 1) 2)" },
		{ "t[i][j]", "(index (index t i) j)" },
		{ "t[i + 1]", "(index t (binary + i 1))" },
		{ "a.b", "(attr .b a)" },
		{ "f(a)[1].b", "(attr .b (index (call f a) 1))" },
		{ "-t[0] ** 2", "(unary - (binary ** (index t 0) 2))" },
		{ "[-1] * 10", "(binary * (list (unary - 1)) 10)" },
		{ "[1, 2] | range(3)", "(binary | (list 1 2) (call range 3))" },
	};
	return cr_make_param_array(struct xcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct xcase *c, parser, precedence)
{
	expect_expr(c->expr, c->dump);
}

Test(parser, string_escapes_in_dump)
{
	expect_expr("'a\"b\\\\c\\n'", "\"a\\\"b\\\\c\\n\"");
}

Test(parser, expression_locations)
{
	struct fe f;
	fe_parse(&f, "x = a + b * c\n");
	cr_assert_eq(f.mod.body.n, 1);
	struct ast_expr *e = f.mod.body.stmts[0]->value;
	cr_expect_eq(e->loc.line, 1);
	cr_expect_eq(e->loc.col, 5);
	cr_expect_eq(e->loc.end_col, 14);
	cr_expect_eq(e->items[1]->loc.col, 9);
	cr_expect_eq(e->items[1]->loc.end_col, 14);
	struct ast_stmt *s = f.mod.body.stmts[0];
	cr_expect_eq(s->name_loc.col, 1);
	cr_expect_eq(s->name_loc.end_col, 2);
	/* The statement's source span covers the text, for quoting. */
	cr_expect_eq(s->src_begin, 0);
	cr_expect_eq(s->src_end, 13);
	fe_release(&f);
}

/* ---- statements ------------------------------------------------------------- */

Test(parser, definitions)
{
	expect_dump("device max_threads = 1024\n"
		    "setting precision = \"double\"\n"
		    "hard h = a > 1\n"
		    "soft s = a > 2\n"
		    "correct c = a != b\n",
		    "1: (device max_threads 1024)\n"
		    "2: (setting precision \"double\")\n"
		    "3: (constraint hard h (compare a > 1))\n"
		    "4: (constraint soft s (compare a > 2))\n"
		    "5: (constraint correct c (compare a != b))\n");
}

Test(parser, require_forms)
{
	struct fe f;
	fe_parse(&f, "require 32 <= a\n"
		     "require soft a % 2 == 0\n"
		     "require hard big = a > 1\n"
		     "require named = a < 9\n"
		     "\n"
		     "require correct a\n");
	cr_expect_str_eq(fe_diag(&f), "");
	cr_expect_str_eq(fe_dump(&f),
			 "1: (constraint require correct line_1 (compare 32 <= a))\n"
			 "2: (constraint require soft line_2 (compare (binary % a 2) == 0))\n"
			 "3: (constraint require hard big (compare a > 1))\n"
			 "4: (constraint require correct named (compare a < 9))\n"
			 "6: (constraint require correct line_6 a)\n");
	struct ast_stmt **s = f.mod.body.stmts;
	cr_expect(s[0]->require && s[0]->unnamed);
	cr_expect(s[2]->require && !s[2]->unnamed);
	cr_expect_eq(s[1]->cclass, AST_SOFT);
	cr_expect_eq(s[2]->cclass, AST_HARD);
	cr_expect_eq(s[3]->cclass, AST_CORRECT);
	fe_release(&f);
}

Test(parser, assignments)
{
	expect_dump("x = 1\n"
		    "a, b = b, a\n"
		    "a, = t\n"
		    "(a, b) = 1, 2\n"
		    "x = y = z = 0\n"
		    "t[i] = 1\n"
		    "x += 1\n"
		    "x **= 2\n"
		    "x //= 3\n"
		    "x >>= 1\n",
		    "1: (assign x 1)\n"
		    "2: (assign (tuple a b) (tuple b a))\n"
		    "3: (assign (tuple a) t)\n"
		    "4: (assign (tuple a b) (tuple 1 2))\n"
		    "5: (assign x y z 0)\n"
		    "6: (assign (index t i) 1)\n"
		    "7: (augassign += x 1)\n"
		    "8: (augassign **= x 2)\n"
		    "9: (augassign //= x 3)\n"
		    "10: (augassign >>= x 1)\n");
}

Test(parser, if_elif_else)
{
	expect_dump("if a:\n"
		    "    x = 1\n"
		    "elif b:\n"
		    "    x = 2\n"
		    "elif c:\n"
		    "    x = 3\n"
		    "else:\n"
		    "    x = 4\n"
		    "    y = 5\n"
		    "z = 0\n",
		    "1: (if a)\n"
		    "  2: (assign x 1)\n"
		    "  else\n"
		    "  3: (if b)\n"
		    "    4: (assign x 2)\n"
		    "    else\n"
		    "    5: (if c)\n"
		    "      6: (assign x 3)\n"
		    "      else\n"
		    "      8: (assign x 4)\n"
		    "      9: (assign y 5)\n"
		    "10: (assign z 0)\n");
}

Test(parser, if_on_one_line_and_nested)
{
	expect_dump("if a: x = 1\n"
		    "if b:\n"
		    "  if c:\n"
		    "    y = 1\n"
		    "  else: y = 2\n",
		    "1: (if a)\n"
		    "  1: (assign x 1)\n"
		    "2: (if b)\n"
		    "  3: (if c)\n"
		    "    4: (assign y 1)\n"
		    "    else\n"
		    "    5: (assign y 2)\n");
}

Test(parser, iterator_def_with_loops)
{
	expect_dump("@iterator\n"
		    "def fib(a, b,):\n"
		    "    \"\"\"inner string\"\"\"\n"
		    "    k = n = 1\n"
		    "    while n <= a:\n"
		    "        yield n\n"
		    "        n, k = n + k, n\n"
		    "        if n > b:\n"
		    "            break\n"
		    "        continue\n"
		    "    else:\n"
		    "        pass\n"
		    "    for i, j in b:\n"
		    "        lst.append(i)\n"
		    "    else:\n"
		    "        return\n"
		    "    for i in range(3): pass\n",
		    "2: (def @iterator fib(a b) yield)\n"
		    "  3: (expr \"inner string\")\n"
		    "  4: (assign k n 1)\n"
		    "  5: (while (compare n <= a))\n"
		    "    6: (yield n)\n"
		    "    7: (assign (tuple n k) (tuple (binary + n k) n))\n"
		    "    8: (if (compare n > b))\n"
		    "      9: (break)\n"
		    "    10: (continue)\n"
		    "    else\n"
		    "    12: (pass)\n"
		    "  13: (for (tuple i j) b)\n"
		    "    14: (expr (call (attr .append lst) i))\n"
		    "    else\n"
		    "    16: (return)\n"
		    "  17: (for i (call range 3))\n"
		    "    17: (pass)\n");
}

Test(parser, constraint_defs)
{
	struct fe f;
	fe_parse(&f, "@hard\n"
		     "def over(t):\n"
		     "    return t > 1024\n"
		     "@soft\n"
		     "def few():\n"
		     "    return 1\n"
		     "@correct\n"
		     "def ok(a, b): return a == b\n"
		     "@iterator\n"
		     "def v(d):\n"
		     "    if d == 1:\n"
		     "        return 0\n"
		     "    return range(0, 2)\n");
	cr_expect_str_eq(fe_diag(&f), "");
	cr_expect_str_eq(fe_dump(&f),
			 "2: (def @hard over(t))\n"
			 "  3: (return (compare t > 1024))\n"
			 "5: (def @soft few())\n"
			 "  6: (return 1)\n"
			 "8: (def @correct ok(a b))\n"
			 "  8: (return (compare a == b))\n"
			 "10: (def @iterator v(d))\n"
			 "  11: (if (compare d == 1))\n"
			 "    12: (return 0)\n"
			 "  13: (return (call range 0 2))\n");
	/* No yield: a deferred iterator, not a closure. */
	cr_expect(!f.mod.body.stmts[3]->has_yield);
	cr_expect_eq(f.mod.body.stmts[0]->decorator, AST_DEC_HARD);
	cr_expect_eq(f.mod.body.stmts[1]->decorator, AST_DEC_SOFT);
	cr_expect_eq(f.mod.body.stmts[2]->decorator, AST_DEC_CORRECT);
	cr_expect_eq(f.mod.body.stmts[3]->decorator, AST_DEC_ITERATOR);
	/* A def's location is the 'def' line; its name's is the name. */
	cr_expect_eq(f.mod.body.stmts[0]->loc.line, 2);
	cr_expect_eq(f.mod.body.stmts[0]->name_loc.col, 5);
	cr_expect_eq(f.mod.body.stmts[0]->decorator_loc.line, 1);
	fe_release(&f);
}

Test(parser, yield_deep_inside_marks_the_def)
{
	struct fe f;
	fe_parse(&f, "@iterator\n"
		     "def g():\n"
		     "    for i in range(3):\n"
		     "        if i:\n"
		     "            yield i\n");
	cr_assert_eq(f.mod.body.n, 1);
	cr_expect(f.mod.body.stmts[0]->has_yield);
	fe_release(&f);
}

Test(parser, simple_statements)
{
	expect_dump("pass\n"
		    "break\n"
		    "continue\n"
		    "return\n"
		    "return 1\n"
		    "return 1, 2\n"
		    "yield x\n"
		    "f(x)\n",
		    "1: (pass)\n"
		    "2: (break)\n"
		    "3: (continue)\n"
		    "4: (return)\n"
		    "5: (return 1)\n"
		    "6: (return (tuple 1 2))\n"
		    "7: (yield x)\n"
		    "8: (expr (call f x))\n");
}

/* ---- docstring -------------------------------------------------------------- */

Test(parser, module_docstring)
{
	struct fe f;
	fe_parse(&f, "\"\"\"BEAST GEMM,\nTesla K40c\"\"\"\nx = 1\n");
	cr_expect_str_eq(f.mod.docstring, "BEAST GEMM,\nTesla K40c");
	cr_expect_str_eq(fe_dump(&f), "doc \"BEAST GEMM,\\nTesla K40c\"\n3: (assign x 1)\n");
	fe_release(&f);
}

Test(parser, docstring_after_comments)
{
	struct fe f;
	fe_parse(&f, "# header\n\n'doc'\n");
	cr_expect_str_eq(f.mod.docstring, "doc");
	cr_expect_eq(f.mod.body.n, 0);
	fe_release(&f);
}

Test(parser, only_the_first_statement_is_a_docstring)
{
	struct fe f;
	fe_parse(&f, "x = 1\n'not a docstring'\n");
	cr_expect_null(f.mod.docstring);
	cr_expect_str_eq(fe_dump(&f), "1: (assign x 1)\n2: (expr \"not a docstring\")\n");
	fe_release(&f);
}

Test(parser, empty_file)
{
	expect_dump("", "");
	expect_dump("\n\n# nothing\n", "");
}

/* ---- syntax errors -------------------------------------------------------------- */

struct ecase {
	char src[128];
	char diag[256]; /* the expected start of the diagnostics */
};

ParameterizedTestParameters(parser, errors)
{
	static struct ecase cases[] = {
		{ "if a:\nx = 1\n",
		  "t.space:2:1: error: syntax error, unexpected name, expected indent\n"
		  "    2 | x = 1\n"
		  "      | ^\n" },
		{ "def f(:\n",
		  "t.space:1:7: error: syntax error, unexpected ':', expected name or ')'\n" },
		{ "x = 1 2\n", "t.space:1:7: error: syntax error, unexpected integer" },
		{ "x = * 2\n", "t.space:1:5: error: syntax error, unexpected '*'" },
		{ "x = 1 +\n", "t.space:1:8: error: syntax error, unexpected end of line" },
		{ "if a\n    b\n", "t.space:1:5: error: syntax error, unexpected end of line" },
		{ "while True\n", "t.space:1:11: error: syntax error, unexpected end of line" },
		{ "device = 1\n", "t.space:1:8: error: syntax error, unexpected '=', expected name\n" },
		{ "hard 1 = x\n", "t.space:1:6: error: syntax error, unexpected integer, expected name\n" },
		{ "@iterator def f(): pass\n",
		  "t.space:1:11: error: syntax error, unexpected 'def', expected end of line\n" },
		{ "x = 1\n  y = 2\n",
		  "t.space:2:3: error: unexpected indent\n    2 |   y = 2\n      |   ^\n" },
		{ "f(x) = 1\n", "t.space:1:1: error: cannot assign to a function call\n" },
		{ "1 = x\n", "t.space:1:1: error: cannot assign to an expression\n" },
		{ "a + 1 += 2\n", "t.space:1:1: error: cannot assign to an expression\n" },
		{ "a, b += 2\n", "t.space:1:1: error: cannot assign to this tuple\n" },
		{ "for a + 1 in b:\n  pass\n", "t.space:1:7: error: syntax error, unexpected '+'" },
		{ "x = 'a' 1\n", "t.space:1:9: error: syntax error, unexpected integer" },
		{ "x = 1 'a'\n", "t.space:1:7: error: unexpected string after an expression\n" },
		{ "x = a if b else\n", "t.space:1:16: error: syntax error, unexpected end of line" },
		{ "@foo\ndef f():\n  return 1\n",
		  "t.space:1:2: error: unknown decorator '@foo'\n"
		  "    1 | @foo\n"
		  "      |  ^~~\n"
		  "t.space:1:2: note: the decorators are '@iterator', '@hard', '@soft' and '@correct'\n" },
		{ "def f():\n  return 1\n",
		  "t.space:1:1: error: 'def f' needs a decorator\n"
		  "    1 | def f():\n"
		  "      | ^~~\n"
		  "t.space:1:1: note: write '@iterator' for an iterator, or '@hard', '@soft' or '@correct' for a constraint\n" },
	};
	return cr_make_param_array(struct ecase, cases, sizeof(cases) / sizeof(*cases));
}

/* The diagnostics of `src` start with `diag`, and there are errors. */
static void expect_syntax_error(const char *src, const char *diag)
{
	struct fe f;
	fe_parse(&f, src);
	cr_expect(!strncmp(fe_diag(&f), diag, strlen(diag)),
		  "source:\n%s\nexpected start:\n%s\ngot:\n%s", src, diag, fe_diag(&f));
	cr_expect_gt(f.parse_errors, 0, "source:\n%s", src);
	fe_release(&f);
}

ParameterizedTest(struct ecase *c, parser, errors)
{
	expect_syntax_error(c->src, c->diag);
}

Test(parser, every_error_in_a_file_is_reported)
{
	struct fe f;
	fe_parse(&f, "a = 1 +\n"
		     "b = * 2\n"
		     "c = 3\n"
		     "if c\n"
		     "    d = 4\n"
		     "e = ]\n"
		     "@iterator\n"
		     "def g(x):\n"
		     "    return x x\n"
		     "h = 5\n");
	const char *d = fe_diag(&f);
	cr_expect(strstr(d, "t.space:1:8: error: syntax error, unexpected end of line"), "%s", d);
	cr_expect(strstr(d, "t.space:2:5: error: syntax error, unexpected '*'"), "%s", d);
	cr_expect(strstr(d, "t.space:4:5: error: syntax error, unexpected end of line"), "%s", d);
	cr_expect(strstr(d, "t.space:6:5: error: unmatched ']'"), "%s", d);
	cr_expect(strstr(d, "t.space:9:14: error: syntax error, unexpected name"), "%s", d);
	cr_expect_eq(f.parse_errors, fe_diag_count(&f, "error:"));
	cr_expect_geq(f.parse_errors, 5);
	/* The good statements between the errors are kept. */
	const char *dump = fe_dump(&f);
	cr_expect(strstr(dump, "3: (assign c 3)\n"), "%s", dump);
	cr_expect(strstr(dump, "10: (assign h 5)\n"), "%s", dump);
	fe_release(&f);
}

Test(parser, errors_stop_after_twenty)
{
	char src[2048];
	size_t n = 0;
	for (int i = 1; i <= 30; i++)
		n += (size_t)snprintf(src + n, sizeof(src) - n, "x%d = * %d\n", i, i);
	struct fe f;
	fe_parse(&f, src);
	const char *d = fe_diag(&f);
	cr_expect_eq(fe_diag_count(&f, ": error: "), 20, "%s", d);
	cr_expect(strstr(d, "t.space:20:7: error: syntax error, unexpected '*'"), "%s", d);
	cr_expect_null(strstr(d, "t.space:21:"), "%s", d);
	cr_expect_eq(fe_diag_count(&f, "t.space: fatal error: too many errors, stopping now\n"), 1, "%s", d);
	/* The message is the last line. */
	size_t len = strlen(d);
	const char *tail = "t.space: fatal error: too many errors, stopping now\n";
	cr_expect(len >= strlen(tail) && !strcmp(d + len - strlen(tail), tail), "%s", d);
	cr_expect(f.diag.stopped);
	cr_expect_gt(f.parse_errors, 20);
	fe_release(&f);
}

Test(parser, errors_stop_after_twenty_inside_blocks)
{
	char src[4096];
	size_t n = (size_t)snprintf(src, sizeof(src), "@iterator\ndef g():\n");
	for (int i = 1; i <= 30; i++)
		n += (size_t)snprintf(src + n, sizeof(src) - n, "    x%d = ) %d\n", i, i);
	struct fe f;
	fe_parse(&f, src);
	cr_expect_eq(fe_diag_count(&f, ": error: "), 20, "%s", fe_diag(&f));
	cr_expect_eq(fe_diag_count(&f, "too many errors"), 1, "%s", fe_diag(&f));
	fe_release(&f);
}

Test(parser, unexpected_indent_keeps_the_statements)
{
	struct fe f;
	fe_parse(&f, "x = 1\n  y = 2\n  z = 3\nw = 4\n");
	cr_expect_eq(fe_diag_count(&f, "error:"), 1, "%s", fe_diag(&f));
	cr_expect(strstr(fe_diag(&f), "t.space:2:3: error: unexpected indent\n"), "%s", fe_diag(&f));
	cr_expect_str_eq(fe_dump(&f), "1: (assign x 1)\n2: (assign y 2)\n3: (assign z 3)\n4: (assign w 4)\n");
	fe_release(&f);
}

Test(parser, unexpected_indent_in_a_block)
{
	struct fe f;
	fe_parse(&f, "@iterator\ndef g():\n    x = 1\n        y = 2\n    return x\n");
	cr_expect_eq(fe_diag_count(&f, "error:"), 1, "%s", fe_diag(&f));
	cr_expect(strstr(fe_diag(&f), "t.space:4:9: error: unexpected indent\n"), "%s", fe_diag(&f));
	fe_release(&f);
}

Test(parser, unindent_not_matching)
{
	struct fe f;
	fe_parse(&f, "if a:\n    x = 1\n  y = 2\n");
	cr_expect_str_eq(fe_diag(&f),
			 "t.space:3:3: error: unindent does not match any outer indentation level\n"
			 "    3 |   y = 2\n"
			 "      |   ^\n");
	cr_expect_eq(f.parse_errors, 1);
	fe_release(&f);
}

Test(parser, expression_nested_too_deeply)
{
	/* 150 parentheses: within the bracket limit, but each level adds a
	 * unary minus, so the tree is deeper than PARSE_MAX_EXPR_DEPTH. */
	char src[2048];
	size_t n = (size_t)snprintf(src, sizeof(src), "x = ");
	for (int i = 0; i < 450; i++)
		src[n++] = '-';
	n += (size_t)snprintf(src + n, sizeof(src) - n, "1\ny = 2\n");
	struct fe f;
	fe_parse(&f, src);
	cr_expect(strstr(fe_diag(&f), "t.space:1:5: error: expression nested too deeply (more than 400 levels)\n"),
		  "%s", fe_diag(&f));
	cr_expect_eq(f.parse_errors, 1);
	/* The rest still parses. */
	cr_expect(strstr(fe_dump(&f), "2: (assign y 2)\n"));
	fe_release(&f);
}

/*
 * Every statement's expression is bounded, not only assignments: later
 * passes recurse on all of them (a `return` 9000 levels deep overflowed
 * sema's stack on a 1 MiB stack).
 */
ParameterizedTestParameters(parser, depth_limit_in_every_statement)
{
	static struct xcase cases[] = {
		{ "    return ", "t.space:3:12: error: expression nested too deeply (more than 400 levels)\n" },
		{ "    x += ", "t.space:3:10: error: expression nested too deeply (more than 400 levels)\n" },
		{ "    yield ", "t.space:3:11: error: expression nested too deeply (more than 400 levels)\n" },
		{ "    ", "t.space:3:5: error: expression nested too deeply (more than 400 levels)\n" },
		{ "    x = ", "t.space:3:9: error: expression nested too deeply (more than 400 levels)\n" },
		{ "    for i in ", "t.space:3:14: error: expression nested too deeply (more than 400 levels)\n" },
		{ "    if ", "t.space:3:8: error: expression nested too deeply (more than 400 levels)\n" },
		{ "    while ", "t.space:3:11: error: expression nested too deeply (more than 400 levels)\n" },
	};
	return cr_make_param_array(struct xcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct xcase *c, parser, depth_limit_in_every_statement)
{
	char src[2048];
	size_t n = (size_t)snprintf(src, sizeof(src), "@iterator\ndef g():\n%s", c->expr);
	for (int i = 0; i < 500; i++)
		src[n++] = '-';
	bool compound = strstr(c->expr, "for") || strstr(c->expr, "if") || strstr(c->expr, "while");
	snprintf(src + n, sizeof(src) - n, "%s", compound ? "1:\n        pass\n" : "1\n");
	struct fe f;
	fe_parse(&f, src);
	cr_expect(!strncmp(fe_diag(&f), c->dump, strlen(c->dump)), "statement [%s]:\n%.300s", c->expr, fe_diag(&f));
	cr_expect_eq(f.parse_errors, 1, "statement [%s]", c->expr);
	fe_release(&f);
}

Test(parser, expression_at_the_depth_limit_is_fine)
{
	char src[2048];
	size_t n = (size_t)snprintf(src, sizeof(src), "x = ");
	/* 399 minus signs and the literal: 400 levels. */
	for (int i = 0; i < 399; i++)
		src[n++] = '-';
	snprintf(src + n, sizeof(src) - n, "1\n");
	struct fe f;
	fe_parse(&f, src);
	cr_expect_str_eq(fe_diag(&f), "");
	fe_release(&f);
}

Test(parser, parse_returns_the_error_count)
{
	struct fe f;
	cr_expect_eq(fe_parse(&f, "x = 1\n"), 0);
	fe_release(&f);
	cr_expect_eq(fe_parse(&f, "x = * 1\ny = * 2\n"), 2);
	fe_release(&f);
}

/* ---- the tune: section ------------------------------------------------------------ */

Test(parser, tune_section_every_line)
{
	expect_dump("setting M = 64\n"
		    "tune:\n"
		    "    kernel gemm from \"gemm.cl\", \"more.cl\"\n"
		    "    options \"-cl-mad-enable\"\n"
		    "    define a, b\n"
		    "    define REAL = \"float\" if M > 1 else \"double\"\n"
		    "    global [M // a, M,]\n"
		    "    local [a, 1]\n"
		    "    arg int M\n"
		    "    arg float 1.5\n"
		    "    arg in float A[M * M] = random(1, -2.0, 2.0)\n"
		    "    arg inout double C[M] = constant(3)\n"
		    "    arg out float D[M]\n"
		    "    arg local float[a * b]\n"
		    "    reference kernel ref from \"r.cl\" global [M] local [16] options \"-DX=1\"\n"
		    "    tolerance abs 1e-5 rel 0.5\n"
		    "    compare C, D\n"
		    "    metric GFLOPS = 2.0 * M flop\n"
		    "    metric N = 3\n"
		    "a = range(4)\n",
		    "1: (setting M 64)\n"
		    "20: (assign a (call range 4))\n"
		    "2: (tune)\n"
		    "  3: (kernel gemm from \"gemm.cl\" \"more.cl\")\n"
		    "  4: (options \"-cl-mad-enable\")\n"
		    "  5: (define a b)\n"
		    "  6: (define REAL = (cond (compare M > 1) \"float\" \"double\"))\n"
		    "  7: (global (list (binary // M a) M))\n"
		    "  8: (local (list a 1))\n"
		    "  9: (arg scalar int M)\n"
		    "  10: (arg scalar float 1.5)\n"
		    "  11: (arg in float A (binary * M M) = (call random 1 (unary - 2) 2))\n"
		    "  12: (arg inout double C M = (call constant 3))\n"
		    "  13: (arg out float D M)\n"
		    "  14: (arg local float (binary * a b))\n"
		    "  15: (reference kernel ref from \"r.cl\" global (list M) local (list 16) options \"-DX=1\")\n"
		    "  16: (tolerance rel 0.5 abs 1.0000000000000001e-05)\n"
		    "  17: (compare C D)\n"
		    "  18: (metric GFLOPS flop (binary * 2 M))\n"
		    "  19: (metric N 3)\n");
}

Test(parser, tune_reference_c)
{
	expect_dump("tune:\n    reference c gemm_ref from \"ref.c\"\n",
		    "1: (tune)\n  2: (reference c gemm_ref from \"ref.c\")\n");
}

/* The tune words are keywords only where the section gives them a meaning. */
Test(parser, tune_words_stay_names_elsewhere)
{
	expect_dump("kernel = range(3)\nlocal = 2\nglobal = 3\narg = 4\ndefine = 5\nout = 6\n"
		    "tune = 7\nfrom = 8\nmetric = kernel * local\n",
		    "1: (assign kernel (call range 3))\n"
		    "2: (assign local 2)\n"
		    "3: (assign global 3)\n"
		    "4: (assign arg 4)\n"
		    "5: (assign define 5)\n"
		    "6: (assign out 6)\n"
		    "7: (assign tune 7)\n"
		    "8: (assign from 8)\n"
		    "9: (assign metric (binary * kernel local))\n");
	/* Inside the block: names in expressions and after the line's keyword. */
	expect_dump("tune:\n"
		    "    kernel local from \"k.cl\"\n"
		    "    global [local, global, arg]\n"
		    "    arg int out\n"
		    "    arg out float kernel[local]\n"
		    "    define from, options\n"
		    "    reference kernel global from \"r.cl\" global [kernel]\n"
		    "x = 1\n"
		    "kernel = 2\n",
		    "8: (assign x 1)\n"
		    "9: (assign kernel 2)\n"
		    "1: (tune)\n"
		    "  2: (kernel local from \"k.cl\")\n"
		    "  3: (global (list local global arg))\n"
		    "  4: (arg scalar int out)\n"
		    "  5: (arg out float kernel local)\n"
		    "  6: (define from options)\n"
		    "  7: (reference kernel global from \"r.cl\" global (list kernel))\n");
}

Test(parser, device_query_is_a_call)
{
	expect_dump("device wg = query(\"max_work_group_size\", 1024)\n",
		    "1: (device wg (call query \"max_work_group_size\" 1024))\n");
}

ParameterizedTestParameters(parser, tune_errors)
{
	static struct ecase cases[] = {
		{ "tune:\n    kernel k \"a.cl\"\n",
		  "t.space:2:14: error: syntax error, unexpected string, expected 'from' or ','\n" },
		{ "tune:\n    kernel k from a\n",
		  "t.space:2:19: error: syntax error, unexpected name, expected string\n" },
		{ "tune:\n    global 4\n",
		  "t.space:2:12: error: syntax error, unexpected integer, expected '['\n" },
		{ "tune:\n    global []\n",
		  "t.space:2:13: error: syntax error, unexpected ']', expected an expression\n" },
		{ "tune:\n    arg\n",
		  "t.space:2:8: error: syntax error, unexpected end of line, expected a type, 'in', 'local', 'out' or 'inout'\n" },
		{ "tune:\n    arg out float\n",
		  "t.space:2:18: error: syntax error, unexpected end of line, expected name\n" },
		{ "tune:\n    arg in float A\n",
		  "t.space:2:19: error: syntax error, unexpected end of line, expected '['\n" },
		{ "tune:\n    arg local float 4\n",
		  "t.space:2:21: error: syntax error, unexpected integer, expected '['\n" },
		{ "tune:\n    foo = 3\n",
		  "t.space:2:5: error: syntax error, unexpected name, expected a tune line: 'kernel', 'options', "
		  "'define', 'global', 'local', 'arg', 'reference', 'tolerance', 'compare' or 'metric'\n" },
		{ "tune:\n    reference k from \"r.cl\"\n",
		  "t.space:2:15: error: syntax error, unexpected name, expected 'kernel' or 'c'\n" },
		{ "tune:\n    metric m = 3 flop byte\n",
		  "t.space:2:23: error: syntax error, unexpected name, expected end of line\n" },
		{ "tune:\n    tolerance 1e-3\n",
		  "t.space:2:15: error: syntax error, unexpected float, expected name\n" },
		{ "tune:\n    tolerance foo 3\n",
		  "t.space:2:15: error: unknown tolerance 'foo'; write 'rel' or 'abs' before each bound\n" },
		{ "tune:\n    tolerance rel 1 rel 2\n",
		  "t.space:2:21: error: 'rel' is given twice in this tolerance line\n" },
		{ "tune:\n    reference kernel r from \"r.cl\" global [1] global [2]\n",
		  "t.space:2:47: error: 'global' is given twice in this reference line\n" },
		{ "tune:\nx = 1\n", "t.space:2:1: error: syntax error, unexpected name, expected indent\n" },
		{ "if x:\n    tune:\n        kernel k from \"a.cl\"\n",
		  "t.space:2:5: error: a 'tune:' section is only allowed at top level\n" },
		{ "tune:\n    kernel k from \"a.cl\"\n        global [1]\n",
		  "t.space:3:9: error: unexpected indent\n" },
		{ "tune:\n    global [1]\ntune:\n    global [2]\n",
		  "t.space:3:1: error: a file has one 'tune:' section\n"
		  "    3 | tune:\n"
		  "      | ^~~~\n"
		  "t.space:1:1: note: the first 'tune:' section is here\n" },
	};
	return cr_make_param_array(struct ecase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct ecase *c, parser, tune_errors)
{
	expect_syntax_error(c->src, c->diag);
}

/* An error in one tune line does not hide the next ones. */
Test(parser, tune_errors_recover_at_the_next_line)
{
	struct fe f;
	fe_parse(&f, "tune:\n    global 4\n    arg\n    kernel k from \"a.cl\"\n    local [1]\n");
	cr_expect_eq(f.parse_errors, 2, "%s", fe_diag(&f));
	cr_expect(fe_diag_has(&f, "t.space:2:12:"));
	cr_expect(fe_diag_has(&f, "t.space:3:8:"));
	cr_expect_not_null(f.mod.tune);
	cr_expect_eq(f.mod.tune->n, 2);
	fe_release(&f);
}

Test(parser, comprehensions_and_imports)
{
	/* Each `for` clause holds its target, iterable and the `if`s after it. */
	expect_dump("import math\nfrom math import log2, pi\n"
		    "x = [a * b for a in range(3) if a for b in [1, 2] if b > a if b]\n"
		    "require any(v > 1 for v in x)\n"
		    "from = 2\n",
		    "1: (import math)\n"
		    "2: (import math log2 pi)\n"
		    "3: (assign x (comp (binary * a b) (comp_for a (call range 3) a) "
		    "(comp_for b (list 1 2) (compare b > a) b)))\n"
		    "4: (constraint require correct line_4 (call any (comp generator (compare v > 1) (comp_for v x))))\n"
		    "5: (assign from 2)\n");
}
