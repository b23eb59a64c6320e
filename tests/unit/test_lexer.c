/*
 * test_lexer.c - the scanner: tokens, INDENT/DEDENT, literals, locations
 * and lexical errors.
 *
 * Most tests drive parse_lex() directly and render the token stream as a
 * line of text ("if x : NL INDENT pass NL DEDENT EOF"), so a table of cases
 * reads like the language.  Errors are checked through the diagnostics the
 * scanner writes, including their line:col and caret.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "lexer.h"
#include "parser.h"

/* The scanner's entry points (lexer.l), as parse_source uses them. */
int spc_yylex_init_extra(struct lex_state *st, yyscan_t *scanner);
int spc_yylex_destroy(yyscan_t scanner);
void lex_start(yyscan_t scanner);
struct yy_buffer_state *spc_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);

static const char *tok_text(int tok)
{
	switch (tok) {
	case TOK_YYEOF: return "EOF";
	case TOK_YYerror: return "ERR";
	case TOK_NEWLINE: return "NL";
	case TOK_INDENT: return "INDENT";
	case TOK_DEDENT: return "DEDENT";
	case TOK_AND: return "and";
	case TOK_OR: return "or";
	case TOK_NOT: return "not";
	case TOK_IN: return "in";
	case TOK_IF: return "if";
	case TOK_ELIF: return "elif";
	case TOK_ELSE: return "else";
	case TOK_WHILE: return "while";
	case TOK_FOR: return "for";
	case TOK_DEF: return "def";
	case TOK_RETURN: return "return";
	case TOK_YIELD: return "yield";
	case TOK_BREAK: return "break";
	case TOK_CONTINUE: return "continue";
	case TOK_PASS: return "pass";
	case TOK_TRUE: return "True";
	case TOK_FALSE: return "False";
	case TOK_NONE: return "None";
	case TOK_DEVICE: return "device";
	case TOK_SETTING: return "setting";
	case TOK_REQUIRE: return "require";
	case TOK_HARD: return "hard";
	case TOK_SOFT: return "soft";
	case TOK_CORRECT: return "correct";
	case TOK_POW: return "**";
	case TOK_FLOORDIV: return "//";
	case TOK_LSHIFT: return "<<";
	case TOK_RSHIFT: return ">>";
	case TOK_LE: return "<=";
	case TOK_GE: return ">=";
	case TOK_EQ: return "==";
	case TOK_NE: return "!=";
	default: return NULL;
	}
}

/* Token values are written the way a test would spell them. */
static void put_token(FILE *out, int tok, const YYSTYPE *v)
{
	const char *t = tok_text(tok);
	if (t) {
		fputs(t, out);
		return;
	}
	switch (tok) {
	case TOK_NAME:
		fprintf(out, "n:%s", v->name);
		return;
	case TOK_INT:
		fprintf(out, "i:%" PRId64, v->ival);
		return;
	case TOK_FLOAT:
		fprintf(out, "f:%.17g", v->fval);
		return;
	case TOK_STRING:
		fputs("s:\"", out);
		for (const unsigned char *p = (const unsigned char *)v->name; *p; p++) {
			if (*p == '\n')
				fputs("\\n", out);
			else if (*p == '\t')
				fputs("\\t", out);
			else if (*p == '"' || *p == '\\')
				fprintf(out, "\\%c", *p);
			else if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\x%02x", *p);
			else
				fputc(*p, out);
		}
		fputc('"', out);
		return;
	case TOK_AUGASSIGN:
		fprintf(out, "%s=", ast_op_text(v->op));
		return;
	default:
		if (tok > 0 && tok < 128)
			fputc(tok, out);
		else
			fprintf(out, "?%d", tok);
		return;
	}
}

struct lexed {
	char *tokens;   /* "n:x = i:1 NL EOF" */
	char *diags;    /* the diagnostics, "" when none */
	int errors;
};

/*
 * Runs the token stream of `src` to its end (or 2000 tokens, so a scanner
 * that loops shows up as a failure, not a hang).  With `locs`, each token
 * is followed by @line:col.
 */
static struct lexed lex_n(const char *src, size_t len, bool locs)
{
	struct ast_module mod;
	struct diag d;
	ast_module_init(&mod, FE_FILE);
	diag_init(&d, FE_FILE, src, len, NULL);
	struct lex_state st;
	memset(&st, 0, sizeof(st));
	st.mod = &mod;
	st.diag = &d;
	st.src = src;
	st.src_len = len;
	st.line = 1;
	st.col = 1;
	st.nindents = 1;
	yyscan_t sc;
	cr_assert_eq(spc_yylex_init_extra(&st, &sc), 0);
	spc_yy_scan_bytes(src, (int)len, sc);
	lex_start(sc);

	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	for (int i = 0; i < 2000; i++) {
		YYSTYPE v;
		YYLTYPE l;
		memset(&v, 0, sizeof(v));
		memset(&l, 0, sizeof(l));
		int tok = parse_lex(&v, &l, sc);
		if (i)
			fputc(' ', out);
		put_token(out, tok, &v);
		if (locs)
			fprintf(out, "@%d:%d", l.first_line, l.first_column);
		if (tok == 0)
			break;
	}
	fclose(out);
	spc_yylex_destroy(sc);
	free(st.strbuf);

	struct lexed r;
	r.tokens = buf;
	r.diags = strdup(d.buf ? d.buf : "");
	r.errors = d.errors;
	diag_release(&d);
	ast_module_release(&mod);
	return r;
}

static struct lexed lex(const char *src)
{
	return lex_n(src, strlen(src), false);
}

/*
 * The end of file is located just past the last line, where an
 * "unexpected end of file" caret belongs.
 */
static void lexed_free(struct lexed *r)
{
	free(r->tokens);
	free(r->diags);
}

/* Checks a token stream with no diagnostics. */
static void expect_tokens(const char *src, const char *tokens)
{
	struct lexed r = lex(src);
	cr_expect_str_eq(r.tokens, tokens, "source: [%s]", src);
	cr_expect_str_eq(r.diags, "", "source: [%s]", src);
	lexed_free(&r);
}

/* ---- parameterized tables --------------------------------------------------
 * Criterion may run each case in a re-executed worker where addresses differ,
 * so the cases hold their text in arrays, never pointers. */

struct tcase {
	char src[128];
	char tokens[256];
};

/* ---- basic tokens --------------------------------------------------------- */

ParameterizedTestParameters(lexer, tokens)
{
	static struct tcase cases[] = {
		{ "", "EOF" },
		{ "x", "n:x NL EOF" },
		{ "x\n", "n:x NL EOF" },
		{ "_a1 = B_2\n", "n:_a1 = n:B_2 NL EOF" },
		{ "a+b-c*d/e//f%g**h\n", "n:a + n:b - n:c * n:d / n:e // n:f % n:g ** n:h NL EOF" },
		{ "a|b&c^d~e<<f>>g\n", "n:a | n:b & n:c ^ n:d ~ n:e << n:f >> n:g NL EOF" },
		{ "a<b<=c>d>=e==f!=g\n", "n:a < n:b <= n:c > n:d >= n:e == n:f != n:g NL EOF" },
		{ "f(a,[b]).c:d@e\n", "n:f ( n:a , [ n:b ] ) . n:c : n:d @ n:e NL EOF" },
		{ "x += 1\n", "n:x += i:1 NL EOF" },
		{ "x-=1\nx*=1\nx/=1\n", "n:x -= i:1 NL n:x *= i:1 NL n:x /= i:1 NL EOF" },
		{ "x//=1\nx%=1\nx**=1\n", "n:x //= i:1 NL n:x %= i:1 NL n:x **= i:1 NL EOF" },
		{ "x|=1\nx&=1\nx^=1\nx<<=1\nx>>=1\n",
		  "n:x |= i:1 NL n:x &= i:1 NL n:x ^= i:1 NL n:x <<= i:1 NL n:x >>= i:1 NL EOF" },
		/* ** then *: maximal munch. */
		{ "a***b\n", "n:a ** * n:b NL EOF" },
		{ "and or not in if elif else while for def return yield\n",
		  "and or not in if elif else while for def return yield NL EOF" },
		{ "break continue pass True False None\n", "break continue pass True False None NL EOF" },
		{ "device setting require hard soft correct\n",
		  "device setting require hard soft correct NL EOF" },
		/* Keywords are case-sensitive and whole words. */
		{ "true none If iff android notin\n", "n:true n:none n:If n:iff n:android n:notin NL EOF" },
		{ "not in\n", "not in NL EOF" },
		/* Comments, trailing blanks, CRLF. */
		{ "x # comment\n", "n:x NL EOF" },
		{ "x = 1  \n", "n:x = i:1 NL EOF" },
		{ "x\r\ny\r\n", "n:x NL n:y NL EOF" },
		{ "# only a comment", "EOF" },
		{ "# c1\n# c2\n", "EOF" },
		{ "\n\n\n", "EOF" },
		{ "   \n", "EOF" },
		{ "x\n   ", "n:x NL EOF" },
		{ "x\n# trailing comment", "n:x NL EOF" },
		{ "x\n    # indented trailing comment", "n:x NL EOF" },
		{ "x \\\n  + 1\n", "n:x + i:1 NL EOF" },
		{ "x = (1 +\n  2)\n", "n:x = ( i:1 + i:2 ) NL EOF" },
		{ "x = [1,\n\n   2,\n# c\n 3]\n", "n:x = [ i:1 , i:2 , i:3 ] NL EOF" },
		{ "f(a,\n  [b:\n c])\n", "n:f ( n:a , [ n:b : n:c ] ) NL EOF" },
		/* A closing bracket without an opener does not go negative. */
	};
	return cr_make_param_array(struct tcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct tcase *c, lexer, tokens)
{
	expect_tokens(c->src, c->tokens);
}

/* ---- indentation ------------------------------------------------------------ */

ParameterizedTestParameters(lexer, indentation)
{
	static struct tcase cases[] = {
		{ "if a:\n    b\n", "if n:a : NL INDENT n:b NL DEDENT EOF" },
		{ "if a:\n    b\nc\n", "if n:a : NL INDENT n:b NL DEDENT n:c NL EOF" },
		/* Nested blocks closed one at a time. */
		{ "if a:\n  if b:\n    c\n  d\ne\n",
		  "if n:a : NL INDENT if n:b : NL INDENT n:c NL DEDENT n:d NL DEDENT n:e NL EOF" },
		/* Three levels closed at once. */
		{ "a\n b\n  c\n   d\ne\n",
		  "n:a NL INDENT n:b NL INDENT n:c NL INDENT n:d NL DEDENT DEDENT DEDENT n:e NL EOF" },
		/* Two of three levels closed at once. */
		{ "a\n b\n  c\n   d\n b2\n",
		  "n:a NL INDENT n:b NL INDENT n:c NL INDENT n:d NL DEDENT DEDENT n:b2 NL DEDENT EOF" },
		/* Blank and comment-only lines do not change the indentation. */
		{ "if a:\n    b\n\n  # comment\n\n    c\nd\n",
		  "if n:a : NL INDENT n:b NL n:c NL DEDENT n:d NL EOF" },
		{ "if a:\n\n    b\n", "if n:a : NL INDENT n:b NL DEDENT EOF" },
		{ "if a:\n    b\n        \nc\n", "if n:a : NL INDENT n:b NL DEDENT n:c NL EOF" },
		/* End of file inside blocks, with and without a final newline. */
		{ "if a:\n  if b:\n    c", "if n:a : NL INDENT if n:b : NL INDENT n:c NL DEDENT DEDENT EOF" },
		{ "if a:\n  if b:\n    c\n", "if n:a : NL INDENT if n:b : NL INDENT n:c NL DEDENT DEDENT EOF" },
		{ "if a:\n    b\n    ", "if n:a : NL INDENT n:b NL DEDENT EOF" },
		{ "if a:\n    b\n# end", "if n:a : NL INDENT n:b NL DEDENT EOF" },
		/* Continuation lines never indent. */
		{ "x = (1,\n        2)\ny\n", "n:x = ( i:1 , i:2 ) NL n:y NL EOF" },
		{ "x = 1 + \\\n        2\ny\n", "n:x = i:1 + i:2 NL n:y NL EOF" },
		{ "if a:\n    x = [1,\n2]\n    y\n",
		  "if n:a : NL INDENT n:x = [ i:1 , i:2 ] NL n:y NL DEDENT EOF" },
		/* A form feed counts as a blank, as in Python's tokenizer. */
		{ "if a:\n\f    b\n", "if n:a : NL INDENT n:b NL DEDENT EOF" },
	};
	return cr_make_param_array(struct tcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct tcase *c, lexer, indentation)
{
	expect_tokens(c->src, c->tokens);
}

Test(lexer, dedent_to_unknown_level)
{
	struct lexed r = lex("if a:\n    b\n  c\n");
	cr_expect(strstr(r.diags, "t.space:3:3: error: unindent does not match any outer indentation level\n"),
		  "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	/* The scanner carries on at the new width: c is in the same block. */
	cr_expect_str_eq(r.tokens, "if n:a : NL INDENT n:b NL n:c NL DEDENT EOF");
	lexed_free(&r);
}

Test(lexer, tab_in_indentation)
{
	struct lexed r = lex("if a:\n\tb\n");
	cr_expect_str_eq(r.diags,
			 "t.space:2:1: error: tab in indentation; indent with spaces only\n"
			 "    2 | \tb\n"
			 "      | ^\n");
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, tab_after_spaces_in_indentation)
{
	struct lexed r = lex("if a:\n  \t b\n");
	cr_expect(strstr(r.diags, "t.space:2:1: error: tab in indentation; indent with spaces only\n"),
		  "%s", r.diags);
	cr_expect(strstr(r.diags, "      | ^~~~\n"), "%s", r.diags);
	lexed_free(&r);
}

Test(lexer, tab_inside_a_line_is_fine)
{
	expect_tokens("x\t=\t1\n", "n:x = i:1 NL EOF");
}

Test(lexer, blocks_nested_too_deeply)
{
	/* LEX_MAX_INDENT_DEPTH + 1 levels of indentation. */
	char src[LEX_MAX_INDENT_DEPTH * (LEX_MAX_INDENT_DEPTH + 4) + 16];
	size_t n = 0;
	for (int i = 0; i <= LEX_MAX_INDENT_DEPTH + 1; i++) {
		memset(src + n, ' ', (size_t)i);
		n += (size_t)i;
		src[n++] = 'x';
		src[n++] = '\n';
	}
	struct lexed r = lex_n(src, n, false);
	cr_expect(strstr(r.diags, "error: blocks nested too deeply (more than 100 levels)"), "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, brackets_nested_too_deeply)
{
	char src[LEX_MAX_BRACKET_DEPTH + 8];
	memset(src, '(', LEX_MAX_BRACKET_DEPTH + 1);
	src[LEX_MAX_BRACKET_DEPTH + 1] = '\n';
	struct lexed r = lex_n(src, LEX_MAX_BRACKET_DEPTH + 2, false);
	cr_expect(strstr(r.diags, "t.space:1:201: error: brackets nested too deeply (more than 200 levels)"),
		  "%s", r.diags);
	lexed_free(&r);
}

/* ---- locations ------------------------------------------------------------- */

Test(lexer, token_locations)
{
	struct lexed r = lex_n("x = 1\nif y:\n    z\nw\n", 20, true);
	cr_expect_str_eq(r.tokens,
			 "n:x@1:1 =@1:3 i:1@1:5 NL@1:6 "
			 "if@2:1 n:y@2:4 :@2:5 NL@2:6 INDENT@3:5 n:z@3:5 NL@3:6 DEDENT@4:1 "
			 "n:w@4:1 NL@4:2 EOF@4:3");
	lexed_free(&r);
	/* Blocks still open at the end close where the file ends. */
	r = lex_n("if y:\n    z\n", 12, true);
	cr_expect_str_eq(r.tokens, "if@1:1 n:y@1:4 :@1:5 NL@1:6 INDENT@2:5 n:z@2:5 NL@2:6 DEDENT@2:7 EOF@2:7");
	lexed_free(&r);
}

Test(lexer, locations_after_continuation_and_string)
{
	struct lexed r = lex_n("a = \\\n  b\nc = '''x\ny''' + d\n", 28, true);
	cr_expect_str_eq(r.tokens,
			 "n:a@1:1 =@1:3 n:b@2:3 NL@2:4 n:c@3:1 =@3:3 s:\"x\\ny\"@3:5 +@4:6 n:d@4:8 NL@4:9 EOF@4:10");
	lexed_free(&r);
}

/* ---- numbers ---------------------------------------------------------------- */

ParameterizedTestParameters(lexer, numbers)
{
	static struct tcase cases[] = {
		{ "0", "i:0 NL EOF" },
		{ "00", "i:0 NL EOF" },
		{ "0_0", "i:0 NL EOF" },
		{ "7", "i:7 NL EOF" },
		{ "1_000_000", "i:1000000 NL EOF" },
		{ "0x1F", "i:31 NL EOF" },
		{ "0XfF", "i:255 NL EOF" },
		{ "0x_ff_ff", "i:65535 NL EOF" },
		{ "0o17", "i:15 NL EOF" },
		{ "0O_7", "i:7 NL EOF" },
		{ "0b101", "i:5 NL EOF" },
		{ "0B_1_0", "i:2 NL EOF" },
		{ "9223372036854775807", "i:9223372036854775807 NL EOF" },
		{ "0x7fffffffffffffff", "i:9223372036854775807 NL EOF" },
		/* The minus is an operator, never part of the literal. */
		{ "-1", "- i:1 NL EOF" },
		{ "1.5", "f:1.5 NL EOF" },
		{ "1.", "f:1 NL EOF" },
		{ ".5", "f:0.5 NL EOF" },
		{ "1e3", "f:1000 NL EOF" },
		{ "1E-2", "f:0.01 NL EOF" },
		{ "2.5e+1", "f:25 NL EOF" },
		{ "1_0.2_5", "f:10.25 NL EOF" },
		{ "0.1", "f:0.10000000000000001 NL EOF" },
		{ "007.5", "f:7.5 NL EOF" },
		{ "1e400", "f:inf NL EOF" },
		/* An attribute after a name, not a float. */
		{ "a.b", "n:a . n:b NL EOF" },
		{ "1 .real", "i:1 . n:real NL EOF" },
	};
	return cr_make_param_array(struct tcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct tcase *c, lexer, numbers)
{
	expect_tokens(c->src, c->tokens);
}

struct ecase {
	char src[128];
	char diag[256]; /* the start of the expected diagnostics */
};

ParameterizedTestParameters(lexer, bad_numbers)
{
	static struct ecase cases[] = {
		{ "x = 9223372036854775808\n",
		  "t.space:1:5: error: integer literal is out of range (ints are 64-bit, at most 9223372036854775807)\n" },
		{ "x = 99999999999999999999999\n",
		  "t.space:1:5: error: integer literal is out of range (ints are 64-bit, at most 9223372036854775807)\n" },
		{ "x = 0x8000000000000000\n",
		  "t.space:1:5: error: integer literal is out of range (ints are 64-bit, at most 9223372036854775807)\n" },
		{ "x = 0xffffffffffffffffff\n",
		  "t.space:1:5: error: integer literal is out of range (ints are 64-bit, at most 9223372036854775807)\n" },
		{ "x = 0b" "1111111111111111111111111111111111111111111111111111111111111111" "\n",
		  "t.space:1:5: error: integer literal is out of range (ints are 64-bit, at most 9223372036854775807)\n" },
		/* Python 3 has no leading-zero decimals. */
		{ "x = 012\n", "t.space:1:5: error: invalid numeric literal '012'\n" },
		{ "x = 1__0\n", "t.space:1:5: error: invalid numeric literal '1__0'\n" },
		{ "x = 10_\n", "t.space:1:5: error: invalid numeric literal '10_'\n" },
		{ "x = 0x\n", "t.space:1:5: error: invalid numeric literal '0x'\n" },
		{ "x = 0b102\n", "t.space:1:5: error: invalid numeric literal '0b102'\n" },
		{ "x = 0o8\n", "t.space:1:5: error: invalid numeric literal '0o8'\n" },
		{ "x = 12abc\n", "t.space:1:5: error: invalid numeric literal '12abc'\n" },
		{ "x = 1.2.3\n", "t.space:1:5: error: invalid numeric literal '1.2.3'\n" },
	};
	return cr_make_param_array(struct ecase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct ecase *c, lexer, bad_numbers)
{
	struct lexed r = lex(c->src);
	cr_expect(!strncmp(r.diags, c->diag, strlen(c->diag)), "source [%s]\nexpected: %s\ngot: %s",
		  c->src, c->diag, r.diags);
	cr_expect_eq(r.errors, 1, "source [%s]: %d errors", c->src, r.errors);
	lexed_free(&r);
}

Test(lexer, out_of_range_caret_spans_the_literal)
{
	struct lexed r = lex("x = 9223372036854775808 + 1\n");
	cr_expect_str_eq(r.diags,
			 "t.space:1:5: error: integer literal is out of range (ints are 64-bit, at most 9223372036854775807)\n"
			 "    1 | x = 9223372036854775808 + 1\n"
			 "      |     ^~~~~~~~~~~~~~~~~~~\n");
	/* The literal still is an INT token, so the parse carries on. */
	cr_expect_str_eq(r.tokens, "n:x = i:0 + i:1 NL EOF");
	lexed_free(&r);
}

/* ---- strings ------------------------------------------------------------------ */

ParameterizedTestParameters(lexer, strings)
{
	static struct tcase cases[] = {
		{ "'a'", "s:\"a\" NL EOF" },
		{ "\"a\"", "s:\"a\" NL EOF" },
		{ "''", "s:\"\" NL EOF" },
		{ "\"it's\"", "s:\"it's\" NL EOF" },
		{ "'say \"hi\"'", "s:\"say \\\"hi\\\"\" NL EOF" },
		{ "'a\\nb\\tc'", "s:\"a\\nb\\tc\" NL EOF" },
		{ "'\\\\'", "s:\"\\\\\" NL EOF" },
		{ "'\\''", "s:\"'\" NL EOF" },
		{ "\"\\\"\"", "s:\"\\\"\" NL EOF" },
		{ "'\\x41\\x7a'", "s:\"Az\" NL EOF" },
		{ "'\\r'", "s:\"\\x0d\" NL EOF" },
		/* Python's other escapes: \a \b \f \v, octal, \u, \U, \N{}, and
		 * \x as a code point (so U+00FF is two bytes of UTF-8). */
		{ "'\\a\\b\\f\\v'", "s:\"\\x07\\x08\\x0c\\x0b\" NL EOF" },
		{ "'\\101\\12\\0101'", "s:\"A\\n\\x081\" NL EOF" },
		{ "'\\xff\\u00e9\\U0001F600'", "s:\"\\xc3\\xbf\\xc3\\xa9\\xf0\\x9f\\x98\\x80\" NL EOF" },
		{ "'\\N{EURO SIGN}\\N{latin small letter e with acute}'", "s:\"\\xe2\\x82\\xac\\xc3\\xa9\" NL EOF" },
		/* An escaped newline joins the lines inside the literal. */
		{ "'ab\\\ncd'", "s:\"abcd\" NL EOF" },
		{ "'''a\nb'''", "s:\"a\\nb\" NL EOF" },
		{ "\"\"\"a'b\"c\"\"\"", "s:\"a'b\\\"c\" NL EOF" },
		{ "'''a\"\"\"b'''", "s:\"a\\\"\\\"\\\"b\" NL EOF" },
		{ "''''''", "s:\"\" NL EOF" },
		/* A triple-quoted string does not count as an indented line. */
		{ "x = '''\n    y\n'''\nz\n", "n:x = s:\"\\n    y\\n\" NL n:z NL EOF" },
		/* Adjacent literals are separate tokens (the parser joins them). */
		{ "'a' \"b\"", "s:\"a\" s:\"b\" NL EOF" },
		/* UTF-8 inside strings and comments is fine. */
		{ "'h\xc3\xa9'  # caf\xc3\xa9\n", "s:\"h\\xc3\\xa9\" NL EOF" },
		/* '#' inside a string is not a comment. */
		{ "'#x'", "s:\"#x\" NL EOF" },
	};
	return cr_make_param_array(struct tcase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct tcase *c, lexer, strings)
{
	expect_tokens(c->src, c->tokens);
}

Test(lexer, unterminated_string)
{
	struct lexed r = lex("x = 'abc\ny = 1\n");
	cr_expect_str_eq(r.diags,
			 "t.space:1:5: error: unterminated string literal\n"
			 "    1 | x = 'abc\n"
			 "      |     ^\n");
	/* The next line scans normally. */
	cr_expect_str_eq(r.tokens, "n:x = ERR NL n:y = i:1 NL EOF");
	lexed_free(&r);
}

Test(lexer, unterminated_string_at_eof)
{
	struct lexed r = lex("x = \"abc");
	cr_expect(!strncmp(r.diags, "t.space:1:5: error: unterminated string literal\n", 48), "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, unterminated_triple_quoted_string)
{
	struct lexed r = lex("x = 1\ny = '''abc\n\nz = 2\n");
	cr_expect(!strncmp(r.diags, "t.space:2:5: error: unterminated triple-quoted string literal\n", 62),
		  "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, nul_in_string)
{
	struct lexed r = lex_n("x = 'a\0b'\n", 10, false);
	cr_expect(strstr(r.diags, "t.space:1:7: error: NUL byte in string literal\n"), "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, nul_escape_in_string)
{
	struct lexed r = lex("x = 'a\\0b'\n");
	cr_expect(strstr(r.diags, "t.space:1:5: error: string literal contains a NUL character\n"), "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, invalid_utf8_in_string)
{
	struct lexed r = lex("x = 'a\xff'\n");
	cr_expect(strstr(r.diags, "t.space:1:5: error: invalid UTF-8 in string literal\n"), "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, unknown_escape_warns)
{
	/* Unknown escapes stay, with Python 3.11's warning. */
	struct lexed r = lex("x = '\\q'\n");
	cr_expect_str_eq(r.tokens, "n:x = s:\"\\\\q\" NL EOF");
	cr_expect(strstr(r.diags, "1:6: warning: invalid escape sequence '\\q' [-Winvalid-escape]"), "%s", r.diags);
	lexed_free(&r);
}

Test(lexer, escapes_python_rejects)
{
	static const char *const bad[] = { "'\\x4'", "'\\u12'", "'\\U00110000'", "'\\N{NO SUCH NAME}'", "'\\N'",
					   "'\\ud800'" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct lexed r = lex(bad[i]);
		cr_expect(strstr(r.diags, "1:2: error: "), "%s: %s", bad[i], r.diags);
		lexed_free(&r);
	}
}

/* ---- invalid input ------------------------------------------------------------ */

ParameterizedTestParameters(lexer, bad_characters)
{
	static struct ecase cases[] = {
		{ "x = 1 $ 2\n", "t.space:1:7: error: invalid character '$'\n    1 | x = 1 $ 2\n      |       ^\n" },
		{ "x = a ? b\n", "t.space:1:7: error: invalid character '?'\n" },
		{ "x = `a\n", "t.space:1:5: error: invalid character '`'\n" },
		{ "x = !a\n", "t.space:1:5: error: invalid character '!'\n" },
		{ "x = 1\x01\n", "t.space:1:6: error: invalid character (byte 0x01)\n" },
		{ "x = 1\x7f\n", "t.space:1:6: error: invalid character (byte 0x7f)\n" },
		{ "x = 1\r2\n", "t.space:1:6: error: invalid character (byte 0x0d)\n" },
		/* é as a name: well-formed UTF-8, but not ASCII. */
		{ "caf\xc3\xa9 = 1\n",
		  "t.space:1:4: error: non-ASCII character outside a string or comment\n" },
		{ "x = \xe2\x88\x9a" "2\n",
		  "t.space:1:5: error: non-ASCII character outside a string or comment\n" },
		{ "x = 1 \xff\n", "t.space:1:7: error: invalid UTF-8 in input\n" },
		{ "x = \xc0\xaf\n", "t.space:1:5: error: invalid UTF-8 in input\n" },          /* overlong */
		{ "x = \xed\xa0\x80\n", "t.space:1:5: error: invalid UTF-8 in input\n" },      /* surrogate */
		{ "x = \xf4\x90\x80\x80\n", "t.space:1:5: error: invalid UTF-8 in input\n" },  /* > U+10FFFF */
		{ "x = \xe2\x88\n", "t.space:1:5: error: invalid UTF-8 in input\n" },          /* truncated */
		{ "x = 1  # bad \xfe\n", "t.space:1:14: error: invalid UTF-8 in comment\n" },
	};
	return cr_make_param_array(struct ecase, cases, sizeof(cases) / sizeof(*cases));
}

ParameterizedTest(struct ecase *c, lexer, bad_characters)
{
	struct lexed r = lex(c->src);
	cr_expect(!strncmp(r.diags, c->diag, strlen(c->diag)), "source [%s]\nexpected: %s\ngot: %s",
		  c->src, c->diag, r.diags);
	cr_expect_eq(r.errors, 1, "source [%s]: %d errors:\n%s", c->src, r.errors, r.diags);
	lexed_free(&r);
}

Test(lexer, nul_byte_in_input)
{
	struct lexed r = lex_n("x = 1\ny = \0\nz = 2\n", 18, false);
	cr_expect_str_eq(r.diags,
			 "t.space:2:5: error: NUL byte in input\n"
			 "    2 | y = ?\n"
			 "      |     ^\n");
	cr_expect_str_eq(r.tokens, "n:x = i:1 NL n:y = ERR NL n:z = i:2 NL EOF");
	lexed_free(&r);
}

Test(lexer, nul_byte_at_line_start)
{
	struct lexed r = lex_n("\0x\n", 3, false);
	cr_expect(!strncmp(r.diags, "t.space:1:1: error: NUL byte in input\n", 38), "%s", r.diags);
	cr_expect_eq(r.errors, 1);
	lexed_free(&r);
}

Test(lexer, invalid_character_in_an_indented_line)
{
	struct lexed r = lex("if a:\n    $\n");
	cr_expect(!strncmp(r.diags, "t.space:2:5: error: invalid character '$'\n", 42), "%s", r.diags);
	cr_expect_str_eq(r.tokens, "if n:a : NL INDENT ERR NL DEDENT EOF");
	lexed_free(&r);
}

/* ---- through the parser: a lexer error is reported once ------------------- */

Test(lexer, lexer_errors_are_not_repeated_by_the_parser)
{
	struct fe f;
	fe_parse(&f, "x = 1 $ 2\ny = 'abc\nz = 0b2\n");
	cr_expect_eq(fe_diag_count(&f, "error:"), 3, "%s", fe_diag(&f));
	cr_expect_eq(fe_diag_count(&f, "syntax error"), 0, "%s", fe_diag(&f));
	cr_expect_eq(f.parse_errors, 3);
	fe_release(&f);
}

Test(lexer, statements_after_a_lexer_error_still_parse)
{
	struct fe f;
	fe_parse(&f, "x = $\ny = 2\n");
	cr_expect_str_eq(fe_dump(&f), "2: (assign y 2)\n");
	fe_release(&f);
}

Test(lexer, bracket_and_separator_errors)
{
	static const struct { const char *src, *diag; } cases[] = {
		{ "a = 1; b = 2\n", "1:6: error: ';' is not supported" },
		{ "a = {1}\n", "1:5: error: '{' is not supported" },
		{ "a = (1]\n", "1:7: error: closing ']' does not match '('" },
		{ ")\n", "1:1: error: unmatched ')'" },
		{ "a = f(1,\nb = 2\n", "1:6: error: '(' was never closed" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct lexed r = lex(cases[i].src);
		cr_expect(strstr(r.diags, cases[i].diag), "source [%s]: %s", cases[i].src, r.diags);
		lexed_free(&r);
	}
}
