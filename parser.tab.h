/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison interface for Yacc-like parsers in C

   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,
   Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* As a special exception, you may create a larger work that contains
   part or all of the Bison parser skeleton and distribute that work
   under terms of your choice, so long as that work isn't itself a
   parser generator using the skeleton or a modified version thereof
   as a parser skeleton.  Alternatively, if you modify or redistribute
   the parser skeleton itself, you may (at your option) remove this
   special exception, which will cause the skeleton and the resulting
   Bison output files to be licensed under the GNU General Public
   License without this special exception.

   This special exception was added by the Free Software Foundation in
   version 2.2 of Bison.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

#ifndef YY_YY_PARSER_TAB_H_INCLUDED
# define YY_YY_PARSER_TAB_H_INCLUDED
/* Debug traces.  */
#ifndef YYDEBUG
# define YYDEBUG 0
#endif
#if YYDEBUG
extern int yydebug;
#endif
/* "%code requires" blocks.  */
#line 20 "lang/parser.y"

#include "ast.h"
#include "lexer.h"
typedef void *yyscan_t;

/* An arena-allocated growable list used while parsing. */
struct plist {
	int n, cap;
	void **v;
};

/* A comparison chain (a < b <= c) before it becomes one AST_COMPARE. */
struct chain {
	struct plist exprs;
	int nops, capops;
	enum ast_op *ops;
};

struct parse_ctx {
	struct ast_module *mod;
	struct diag *diag;
};

#define YYLTYPE struct lex_loc
#define YYLTYPE_IS_DECLARED 1
#define YYLTYPE_IS_TRIVIAL 1

#line 77 "parser.tab.h"

/* Token kinds.  */
#ifndef YYTOKENTYPE
# define YYTOKENTYPE
  enum yytokentype
  {
    TOK_YYEMPTY = -2,
    TOK_YYEOF = 0,                 /* "end of file"  */
    TOK_YYerror = 256,             /* error  */
    TOK_YYUNDEF = 257,             /* "invalid token"  */
    TOK_NAME = 258,                /* "name"  */
    TOK_STRING = 259,              /* "string"  */
    TOK_INT = 260,                 /* "integer"  */
    TOK_FLOAT = 261,               /* "float"  */
    TOK_AUGASSIGN = 262,           /* "augmented assignment"  */
    TOK_NEWLINE = 263,             /* "end of line"  */
    TOK_INDENT = 264,              /* "indent"  */
    TOK_DEDENT = 265,              /* "dedent"  */
    TOK_AND = 266,                 /* "'and'"  */
    TOK_OR = 267,                  /* "'or'"  */
    TOK_NOT = 268,                 /* "'not'"  */
    TOK_IN = 269,                  /* "'in'"  */
    TOK_IF = 270,                  /* "'if'"  */
    TOK_ELIF = 271,                /* "'elif'"  */
    TOK_ELSE = 272,                /* "'else'"  */
    TOK_WHILE = 273,               /* "'while'"  */
    TOK_FOR = 274,                 /* "'for'"  */
    TOK_DEF = 275,                 /* "'def'"  */
    TOK_RETURN = 276,              /* "'return'"  */
    TOK_YIELD = 277,               /* "'yield'"  */
    TOK_BREAK = 278,               /* "'break'"  */
    TOK_CONTINUE = 279,            /* "'continue'"  */
    TOK_PASS = 280,                /* "'pass'"  */
    TOK_TRUE = 281,                /* "'True'"  */
    TOK_FALSE = 282,               /* "'False'"  */
    TOK_NONE = 283,                /* "'None'"  */
    TOK_DEVICE = 284,              /* "'device'"  */
    TOK_SETTING = 285,             /* "'setting'"  */
    TOK_REQUIRE = 286,             /* "'require'"  */
    TOK_HARD = 287,                /* "'hard'"  */
    TOK_SOFT = 288,                /* "'soft'"  */
    TOK_CORRECT = 289,             /* "'correct'"  */
    TOK_POW = 290,                 /* "'**'"  */
    TOK_FLOORDIV = 291,            /* "'//'"  */
    TOK_LSHIFT = 292,              /* "'<<'"  */
    TOK_RSHIFT = 293,              /* "'>>'"  */
    TOK_LE = 294,                  /* "'<='"  */
    TOK_GE = 295,                  /* "'>='"  */
    TOK_EQ = 296,                  /* "'=='"  */
    TOK_NE = 297                   /* "'!='"  */
  };
  typedef enum yytokentype yytoken_kind_t;
#endif

/* Value type.  */
#if ! defined YYSTYPE && ! defined YYSTYPE_IS_DECLARED
union YYSTYPE
{
#line 240 "lang/parser.y"

	int64_t ival;
	double fval;
	const char *name;
	enum ast_op op;
	struct ast_expr *expr;
	struct ast_stmt *stmt;
	struct plist *list;
	struct chain *chain;
	int num;

#line 148 "parser.tab.h"

};
typedef union YYSTYPE YYSTYPE;
# define YYSTYPE_IS_TRIVIAL 1
# define YYSTYPE_IS_DECLARED 1
#endif

/* Location type.  */
#if ! defined YYLTYPE && ! defined YYLTYPE_IS_DECLARED
typedef struct YYLTYPE YYLTYPE;
struct YYLTYPE
{
  int first_line;
  int first_column;
  int last_line;
  int last_column;
};
# define YYLTYPE_IS_DECLARED 1
# define YYLTYPE_IS_TRIVIAL 1
#endif




int yyparse (yyscan_t scanner, struct parse_ctx *ctx);

/* "%code provides" blocks.  */
#line 48 "lang/parser.y"

int parse_lex(YYSTYPE *lval, YYLTYPE *lloc, yyscan_t scanner);

#line 180 "parser.tab.h"

#endif /* !YY_YY_PARSER_TAB_H_INCLUDED  */
