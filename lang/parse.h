/*
 * parse.h - turns .space source into an AST.
 *
 * parse_source() runs the reentrant scanner and the pure bison parser over
 * a memory buffer.  Every syntax error is reported to `diag` (located, with
 * what was expected); the parser recovers at the next statement and gives
 * up after DIAG_MAX_ERRORS.  The module is filled with whatever parsed, so
 * later passes may still run for their own diagnostics when asked.
 */
#ifndef SPACEC_PARSE_H
#define SPACEC_PARSE_H

#include <stddef.h>

#include "ast.h"
#include "diag.h"

/* Deepest expression nesting accepted (later passes recurse on it). */
#define PARSE_MAX_EXPR_DEPTH 400
/* Most nodes in one statement's expression (list items, operands...). */
#define PARSE_MAX_EXPR_NODES 10000
/* Most statements in a file, def bodies included. */
#define PARSE_MAX_STATEMENTS 10000
/* Largest input read (parse_read_file fails with EFBIG beyond it). */
#define PARSE_MAX_INPUT_BYTES (16u << 20)

/* Returns the number of errors found (0: the module is complete). */
int parse_source(struct ast_module *mod, struct diag *diag,
		 const char *src, size_t len);

/*
 * Reads a whole file into a malloc'd, NUL-terminated buffer, up to its
 * first NUL byte (kept, for the lexer to report).  Returns NULL with errno
 * set on failure: EISDIR for a directory, EFBIG beyond
 * PARSE_MAX_INPUT_BYTES.
 */
char *parse_read_file(const char *path, size_t *len);

#endif
