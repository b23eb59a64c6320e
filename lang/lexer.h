/*
 * lexer.h - state shared by the reentrant flex scanner and the parser.
 *
 * The scanner turns indentation into INDENT/DEDENT tokens (Python's
 * algorithm: a stack of indentation widths), drops newlines inside
 * brackets and after a backslash, and reports its own errors; it then
 * hands bison YYerror so the parser recovers without a second message.
 */
#ifndef SPACEC_LEXER_H
#define SPACEC_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "diag.h"

#define LEX_MAX_INDENT_DEPTH 100
#define LEX_MAX_BRACKET_DEPTH 200

/* Bison's location type: exclusive end column, plus byte offsets. */
struct lex_loc {
	int first_line, first_column;
	int last_line, last_column;
	int begin, end; /* byte offsets into the source */
};

struct lex_state {
	struct ast_module *mod;
	struct diag *diag;
	const char *src;
	size_t src_len;
	/* Position of the next byte to scan. */
	int line, col, offset;
	int indents[LEX_MAX_INDENT_DEPTH + 1];
	int nindents;
	int pending_dedents;
	int pending_indent;   /* one INDENT waiting to be returned */
	int bracket_depth;
	/* Open brackets, innermost last, for "never closed" errors. */
	struct lex_loc bracket_loc[LEX_MAX_BRACKET_DEPTH + 1];
	char bracket_char[LEX_MAX_BRACKET_DEPTH + 1];
	bool emitted_any;     /* a token on the current logical line */
	bool at_eof;
	/* The last token's location, for the tokens made by the wrapper. */
	struct lex_loc last_loc;
	/* Scratch for string literals. */
	char *strbuf;
	size_t strlen, strcap;
	int str_quote;       /* ' or " */
	bool str_triple;
	bool str_bad;        /* an escape in it was an error */
	struct lex_loc str_start;
	/*
	 * The tune: section's contextual keywords (parse_lex): its words are
	 * keywords only at the start of a line of the block (and a few right
	 * after `arg`, `reference` or inside a kernel/reference line), so
	 * spaces that use them as names keep working.
	 */
	bool tune_expect_block; /* after `tune:`, until its INDENT */
	int tune_depth;         /* nindents of the block's lines; 0: outside */
	int line_first;         /* the first token of the current logical line */
	int prev_tok;           /* the token returned before this one */
	/* The current logical line's first token, where it is a name (for
	 * "did you mean 'require'?" after `requrie x > 1`), and how many
	 * tokens the line has had. */
	const char *line_first_name;
	struct lex_loc line_first_loc;
	int line_ntok;
};

/* Puts a fresh scanner in its beginning-of-line state (lexer.l). */
void lex_start(void *scanner);

#endif
