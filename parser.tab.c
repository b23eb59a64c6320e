/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison implementation for Yacc-like parsers in C

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

/* C LALR(1) parser skeleton written by Richard Stallman, by
   simplifying the original so-called "semantic" parser.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

/* All symbols defined below should begin with yy or YY, to avoid
   infringing on user name space.  This should be done even for local
   variables, as they might otherwise be expanded by user macros.
   There are some unavoidable exceptions within include files to
   define necessary library symbols; they are noted "INFRINGES ON
   USER NAME SPACE" below.  */

/* Identify Bison output, and Bison version.  */
#define YYBISON 30802

/* Bison version string.  */
#define YYBISON_VERSION "3.8.2"

/* Skeleton name.  */
#define YYSKELETON_NAME "yacc.c"

/* Pure parsers.  */
#define YYPURE 2

/* Push parsers.  */
#define YYPUSH 0

/* Pull parsers.  */
#define YYPULL 1

/* "%code top" blocks.  */
#line 10 "lang/parser.y"

/* bison's own initialiser of yylloc names only the four standard fields. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#line 78 "parser.tab.c"




# ifndef YY_CAST
#  ifdef __cplusplus
#   define YY_CAST(Type, Val) static_cast<Type> (Val)
#   define YY_REINTERPRET_CAST(Type, Val) reinterpret_cast<Type> (Val)
#  else
#   define YY_CAST(Type, Val) ((Type) (Val))
#   define YY_REINTERPRET_CAST(Type, Val) ((Type) (Val))
#  endif
# endif
# ifndef YY_NULLPTR
#  if defined __cplusplus
#   if 201103L <= __cplusplus
#    define YY_NULLPTR nullptr
#   else
#    define YY_NULLPTR 0
#   endif
#  else
#   define YY_NULLPTR ((void*)0)
#  endif
# endif

#include "parser.tab.h"
/* Symbol kind.  */
enum yysymbol_kind_t
{
  YYSYMBOL_YYEMPTY = -2,
  YYSYMBOL_YYEOF = 0,                      /* "end of file"  */
  YYSYMBOL_YYerror = 1,                    /* error  */
  YYSYMBOL_YYUNDEF = 2,                    /* "invalid token"  */
  YYSYMBOL_NAME = 3,                       /* "name"  */
  YYSYMBOL_STRING = 4,                     /* "string"  */
  YYSYMBOL_INT = 5,                        /* "integer"  */
  YYSYMBOL_FLOAT = 6,                      /* "float"  */
  YYSYMBOL_AUGASSIGN = 7,                  /* "augmented assignment"  */
  YYSYMBOL_NEWLINE = 8,                    /* "end of line"  */
  YYSYMBOL_INDENT = 9,                     /* "indent"  */
  YYSYMBOL_DEDENT = 10,                    /* "dedent"  */
  YYSYMBOL_AND = 11,                       /* "'and'"  */
  YYSYMBOL_OR = 12,                        /* "'or'"  */
  YYSYMBOL_NOT = 13,                       /* "'not'"  */
  YYSYMBOL_IN = 14,                        /* "'in'"  */
  YYSYMBOL_IF = 15,                        /* "'if'"  */
  YYSYMBOL_ELIF = 16,                      /* "'elif'"  */
  YYSYMBOL_ELSE = 17,                      /* "'else'"  */
  YYSYMBOL_WHILE = 18,                     /* "'while'"  */
  YYSYMBOL_FOR = 19,                       /* "'for'"  */
  YYSYMBOL_DEF = 20,                       /* "'def'"  */
  YYSYMBOL_RETURN = 21,                    /* "'return'"  */
  YYSYMBOL_YIELD = 22,                     /* "'yield'"  */
  YYSYMBOL_BREAK = 23,                     /* "'break'"  */
  YYSYMBOL_CONTINUE = 24,                  /* "'continue'"  */
  YYSYMBOL_PASS = 25,                      /* "'pass'"  */
  YYSYMBOL_TRUE = 26,                      /* "'True'"  */
  YYSYMBOL_FALSE = 27,                     /* "'False'"  */
  YYSYMBOL_NONE = 28,                      /* "'None'"  */
  YYSYMBOL_DEVICE = 29,                    /* "'device'"  */
  YYSYMBOL_SETTING = 30,                   /* "'setting'"  */
  YYSYMBOL_REQUIRE = 31,                   /* "'require'"  */
  YYSYMBOL_HARD = 32,                      /* "'hard'"  */
  YYSYMBOL_SOFT = 33,                      /* "'soft'"  */
  YYSYMBOL_CORRECT = 34,                   /* "'correct'"  */
  YYSYMBOL_POW = 35,                       /* "'**'"  */
  YYSYMBOL_FLOORDIV = 36,                  /* "'//'"  */
  YYSYMBOL_LSHIFT = 37,                    /* "'<<'"  */
  YYSYMBOL_RSHIFT = 38,                    /* "'>>'"  */
  YYSYMBOL_LE = 39,                        /* "'<='"  */
  YYSYMBOL_GE = 40,                        /* "'>='"  */
  YYSYMBOL_EQ = 41,                        /* "'=='"  */
  YYSYMBOL_NE = 42,                        /* "'!='"  */
  YYSYMBOL_43_ = 43,                       /* '='  */
  YYSYMBOL_44_ = 44,                       /* ':'  */
  YYSYMBOL_45_ = 45,                       /* '@'  */
  YYSYMBOL_46_ = 46,                       /* '('  */
  YYSYMBOL_47_ = 47,                       /* ')'  */
  YYSYMBOL_48_ = 48,                       /* ','  */
  YYSYMBOL_49_ = 49,                       /* '<'  */
  YYSYMBOL_50_ = 50,                       /* '>'  */
  YYSYMBOL_51_ = 51,                       /* '|'  */
  YYSYMBOL_52_ = 52,                       /* '^'  */
  YYSYMBOL_53_ = 53,                       /* '&'  */
  YYSYMBOL_54_ = 54,                       /* '+'  */
  YYSYMBOL_55_ = 55,                       /* '-'  */
  YYSYMBOL_56_ = 56,                       /* '*'  */
  YYSYMBOL_57_ = 57,                       /* '/'  */
  YYSYMBOL_58_ = 58,                       /* '%'  */
  YYSYMBOL_59_ = 59,                       /* '~'  */
  YYSYMBOL_60_ = 60,                       /* '['  */
  YYSYMBOL_61_ = 61,                       /* ']'  */
  YYSYMBOL_62_ = 62,                       /* '.'  */
  YYSYMBOL_YYACCEPT = 63,                  /* $accept  */
  YYSYMBOL_file = 64,                      /* file  */
  YYSYMBOL_module = 65,                    /* module  */
  YYSYMBOL_stmts = 66,                     /* stmts  */
  YYSYMBOL_block = 67,                     /* block  */
  YYSYMBOL_cclass = 68,                    /* cclass  */
  YYSYMBOL_opt_cclass = 69,                /* opt_cclass  */
  YYSYMBOL_simple_stmt = 70,               /* simple_stmt  */
  YYSYMBOL_assign_chain = 71,              /* assign_chain  */
  YYSYMBOL_compound_stmt = 72,             /* compound_stmt  */
  YYSYMBOL_if_stmt = 73,                   /* if_stmt  */
  YYSYMBOL_elif_chain = 74,                /* elif_chain  */
  YYSYMBOL_else_block = 75,                /* else_block  */
  YYSYMBOL_while_stmt = 76,                /* while_stmt  */
  YYSYMBOL_for_stmt = 77,                  /* for_stmt  */
  YYSYMBOL_decorator = 78,                 /* decorator  */
  YYSYMBOL_def_stmt = 79,                  /* def_stmt  */
  YYSYMBOL_params = 80,                    /* params  */
  YYSYMBOL_param_list = 81,                /* param_list  */
  YYSYMBOL_target_list = 82,               /* target_list  */
  YYSYMBOL_target_items = 83,              /* target_items  */
  YYSYMBOL_testlist = 84,                  /* testlist  */
  YYSYMBOL_tuple_items = 85,               /* tuple_items  */
  YYSYMBOL_expr = 86,                      /* expr  */
  YYSYMBOL_or_test = 87,                   /* or_test  */
  YYSYMBOL_and_test = 88,                  /* and_test  */
  YYSYMBOL_not_test = 89,                  /* not_test  */
  YYSYMBOL_comparison = 90,                /* comparison  */
  YYSYMBOL_comp_chain = 91,                /* comp_chain  */
  YYSYMBOL_comp_op = 92,                   /* comp_op  */
  YYSYMBOL_bitor = 93,                     /* bitor  */
  YYSYMBOL_bitxor = 94,                    /* bitxor  */
  YYSYMBOL_bitand = 95,                    /* bitand  */
  YYSYMBOL_shift = 96,                     /* shift  */
  YYSYMBOL_arith = 97,                     /* arith  */
  YYSYMBOL_term = 98,                      /* term  */
  YYSYMBOL_factor = 99,                    /* factor  */
  YYSYMBOL_power = 100,                    /* power  */
  YYSYMBOL_primary = 101,                  /* primary  */
  YYSYMBOL_args = 102,                     /* args  */
  YYSYMBOL_arglist = 103,                  /* arglist  */
  YYSYMBOL_atom = 104,                     /* atom  */
  YYSYMBOL_list_items = 105                /* list_items  */
};
typedef enum yysymbol_kind_t yysymbol_kind_t;



/* Unqualified %code blocks.  */
#line 52 "lang/parser.y"

#include "parse.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
	do {                                                                 \
		if (N) {                                                     \
			(Cur).first_line = YYRHSLOC(Rhs, 1).first_line;      \
			(Cur).first_column = YYRHSLOC(Rhs, 1).first_column;  \
			(Cur).begin = YYRHSLOC(Rhs, 1).begin;                \
			(Cur).last_line = YYRHSLOC(Rhs, N).last_line;        \
			(Cur).last_column = YYRHSLOC(Rhs, N).last_column;    \
			(Cur).end = YYRHSLOC(Rhs, N).end;                    \
		} else {                                                     \
			(Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line; \
			(Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
			(Cur).begin = (Cur).end = YYRHSLOC(Rhs, 0).end;      \
		}                                                            \
	} while (0)

#define yylex parse_lex
#define M (ctx->mod)

static struct srcloc L(YYLTYPE l)
{
	struct srcloc s = { l.first_line, l.first_column, l.last_line, l.last_column };
	return s;
}

static void yyerror(YYLTYPE *loc, yyscan_t scanner, struct parse_ctx *ctx, const char *msg)
{
	(void)scanner;
	diag_error(ctx->diag, L(*loc), "%s", msg);
}

static void plist_push(struct ast_module *m, struct plist *l, void *item)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 4;
		void **v = arena_alloc(&m->arena, sizeof(*v) * (size_t)cap);
		if (l->n)
			memcpy(v, l->v, sizeof(*v) * (size_t)l->n);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = item;
}

static struct plist *plist_new(struct ast_module *m)
{
	return arena_alloc(&m->arena, sizeof(struct plist));
}

static struct ast_block to_block(struct plist *l)
{
	struct ast_block b = { 0, NULL };
	if (l) {
		b.n = l->n;
		b.stmts = (struct ast_stmt **)l->v;
	}
	return b;
}

static struct ast_expr *mk(struct parse_ctx *ctx, enum ast_expr_kind k, YYLTYPE loc)
{
	return ast_expr_new(ctx->mod, k, L(loc));
}

static struct ast_expr *mk2(struct parse_ctx *ctx, enum ast_expr_kind k, enum ast_op op,
			    struct ast_expr *a, struct ast_expr *b, YYLTYPE loc)
{
	struct ast_expr *e = mk(ctx, k, loc);
	struct ast_expr *items[2] = { a, b };
	e->op = op;
	ast_expr_set_items(ctx->mod, e, items, b ? 2 : 1);
	return e;
}

/* and/or chains flatten into one n-ary node, as Python's BoolOp does. */
static struct ast_expr *mkbool(struct parse_ctx *ctx, enum ast_expr_kind k,
			       struct ast_expr *a, struct ast_expr *b, YYLTYPE loc)
{
	if (a->kind != k)
		return mk2(ctx, k, 0, a, b, loc);
	struct ast_expr **items = arena_alloc(&M->arena, sizeof(*items) * (size_t)(a->nitems + 1));
	memcpy(items, a->items, sizeof(*items) * (size_t)a->nitems);
	items[a->nitems] = b;
	a->items = items;
	a->nitems++;
	a->loc = L(loc);
	return a;
}

static struct ast_expr *from_list(struct parse_ctx *ctx, enum ast_expr_kind k,
				  struct plist *l, YYLTYPE loc)
{
	struct ast_expr *e = mk(ctx, k, loc);
	if (l)
		ast_expr_set_items(ctx->mod, e, (struct ast_expr **)l->v, l->n);
	return e;
}

static struct ast_stmt *mks(struct parse_ctx *ctx, enum ast_stmt_kind k, YYLTYPE loc)
{
	struct ast_stmt *s = ast_stmt_new(ctx->mod, k, L(loc));
	s->src_begin = loc.begin;
	s->src_end = loc.end;
	return s;
}

static bool valid_target(const struct ast_expr *e, bool allow_tuple)
{
	if (e->kind == AST_NAME || e->kind == AST_INDEX)
		return true;
	if (e->kind == AST_TUPLE && allow_tuple) {
		for (int i = 0; i < e->nitems; i++)
			if (!valid_target(e->items[i], false))
				return false;
		return e->nitems > 0;
	}
	return false;
}

static void check_target(struct parse_ctx *ctx, struct ast_expr *e, bool allow_tuple)
{
	if (!valid_target(e, allow_tuple))
		diag_error(ctx->diag, e->loc, "cannot assign to %s",
			   e->kind == AST_CALL ? "a function call" :
			   e->kind == AST_TUPLE ? "this tuple" : "an expression");
}

/*
 * Expression depth is bounded here, once, so that every later recursive
 * pass (sema, interpreter, code generator) is safe from stack overflow.
 */
static int expr_depth(const struct ast_expr *e, int limit)
{
	if (!e || limit <= 0)
		return 0;
	int best = 0;
	for (int i = 0; i < e->nitems; i++) {
		int d = expr_depth(e->items[i], limit - 1);
		if (d > best)
			best = d;
	}
	return best + 1;
}

static struct ast_expr *checked(struct parse_ctx *ctx, struct ast_expr *e)
{
	if (e && expr_depth(e, PARSE_MAX_EXPR_DEPTH + 1) > PARSE_MAX_EXPR_DEPTH) {
		diag_error(ctx->diag, e->loc, "expression nested too deeply (more than %d levels)",
			   PARSE_MAX_EXPR_DEPTH);
		struct ast_expr *z = ast_expr_new(M, AST_INT, e->loc);
		return z;
	}
	return e;
}

static void mark_yield(struct ast_stmt *s, bool *found);

static void mark_yield_block(struct ast_block *b, bool *found)
{
	for (int i = 0; i < b->n; i++)
		mark_yield(b->stmts[i], found);
}

static void mark_yield(struct ast_stmt *s, bool *found)
{
	if (s->kind == AST_S_YIELD)
		*found = true;
	/* A nested def has a scope of its own. */
	if (s->kind == AST_S_DEF)
		return;
	mark_yield_block(&s->body, found);
	mark_yield_block(&s->orelse, found);
}

#line 399 "parser.tab.c"

#ifdef short
# undef short
#endif

/* On compilers that do not define __PTRDIFF_MAX__ etc., make sure
   <limits.h> and (if available) <stdint.h> are included
   so that the code can choose integer types of a good width.  */

#ifndef __PTRDIFF_MAX__
# include <limits.h> /* INFRINGES ON USER NAME SPACE */
# if defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stdint.h> /* INFRINGES ON USER NAME SPACE */
#  define YY_STDINT_H
# endif
#endif

/* Narrow types that promote to a signed type and that can represent a
   signed or unsigned integer of at least N bits.  In tables they can
   save space and decrease cache pressure.  Promoting to a signed type
   helps avoid bugs in integer arithmetic.  */

#ifdef __INT_LEAST8_MAX__
typedef __INT_LEAST8_TYPE__ yytype_int8;
#elif defined YY_STDINT_H
typedef int_least8_t yytype_int8;
#else
typedef signed char yytype_int8;
#endif

#ifdef __INT_LEAST16_MAX__
typedef __INT_LEAST16_TYPE__ yytype_int16;
#elif defined YY_STDINT_H
typedef int_least16_t yytype_int16;
#else
typedef short yytype_int16;
#endif

/* Work around bug in HP-UX 11.23, which defines these macros
   incorrectly for preprocessor constants.  This workaround can likely
   be removed in 2023, as HPE has promised support for HP-UX 11.23
   (aka HP-UX 11i v2) only through the end of 2022; see Table 2 of
   <https://h20195.www2.hpe.com/V2/getpdf.aspx/4AA4-7673ENW.pdf>.  */
#ifdef __hpux
# undef UINT_LEAST8_MAX
# undef UINT_LEAST16_MAX
# define UINT_LEAST8_MAX 255
# define UINT_LEAST16_MAX 65535
#endif

#if defined __UINT_LEAST8_MAX__ && __UINT_LEAST8_MAX__ <= __INT_MAX__
typedef __UINT_LEAST8_TYPE__ yytype_uint8;
#elif (!defined __UINT_LEAST8_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST8_MAX <= INT_MAX)
typedef uint_least8_t yytype_uint8;
#elif !defined __UINT_LEAST8_MAX__ && UCHAR_MAX <= INT_MAX
typedef unsigned char yytype_uint8;
#else
typedef short yytype_uint8;
#endif

#if defined __UINT_LEAST16_MAX__ && __UINT_LEAST16_MAX__ <= __INT_MAX__
typedef __UINT_LEAST16_TYPE__ yytype_uint16;
#elif (!defined __UINT_LEAST16_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST16_MAX <= INT_MAX)
typedef uint_least16_t yytype_uint16;
#elif !defined __UINT_LEAST16_MAX__ && USHRT_MAX <= INT_MAX
typedef unsigned short yytype_uint16;
#else
typedef int yytype_uint16;
#endif

#ifndef YYPTRDIFF_T
# if defined __PTRDIFF_TYPE__ && defined __PTRDIFF_MAX__
#  define YYPTRDIFF_T __PTRDIFF_TYPE__
#  define YYPTRDIFF_MAXIMUM __PTRDIFF_MAX__
# elif defined PTRDIFF_MAX
#  ifndef ptrdiff_t
#   include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  endif
#  define YYPTRDIFF_T ptrdiff_t
#  define YYPTRDIFF_MAXIMUM PTRDIFF_MAX
# else
#  define YYPTRDIFF_T long
#  define YYPTRDIFF_MAXIMUM LONG_MAX
# endif
#endif

#ifndef YYSIZE_T
# ifdef __SIZE_TYPE__
#  define YYSIZE_T __SIZE_TYPE__
# elif defined size_t
#  define YYSIZE_T size_t
# elif defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  define YYSIZE_T size_t
# else
#  define YYSIZE_T unsigned
# endif
#endif

#define YYSIZE_MAXIMUM                                  \
  YY_CAST (YYPTRDIFF_T,                                 \
           (YYPTRDIFF_MAXIMUM < YY_CAST (YYSIZE_T, -1)  \
            ? YYPTRDIFF_MAXIMUM                         \
            : YY_CAST (YYSIZE_T, -1)))

#define YYSIZEOF(X) YY_CAST (YYPTRDIFF_T, sizeof (X))


/* Stored state numbers (used for stacks). */
typedef yytype_uint8 yy_state_t;

/* State numbers in computations.  */
typedef int yy_state_fast_t;

#ifndef YY_
# if defined YYENABLE_NLS && YYENABLE_NLS
#  if ENABLE_NLS
#   include <libintl.h> /* INFRINGES ON USER NAME SPACE */
#   define YY_(Msgid) dgettext ("bison-runtime", Msgid)
#  endif
# endif
# ifndef YY_
#  define YY_(Msgid) Msgid
# endif
#endif


#ifndef YY_ATTRIBUTE_PURE
# if defined __GNUC__ && 2 < __GNUC__ + (96 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_PURE __attribute__ ((__pure__))
# else
#  define YY_ATTRIBUTE_PURE
# endif
#endif

#ifndef YY_ATTRIBUTE_UNUSED
# if defined __GNUC__ && 2 < __GNUC__ + (7 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_UNUSED __attribute__ ((__unused__))
# else
#  define YY_ATTRIBUTE_UNUSED
# endif
#endif

/* Suppress unused-variable warnings by "using" E.  */
#if ! defined lint || defined __GNUC__
# define YY_USE(E) ((void) (E))
#else
# define YY_USE(E) /* empty */
#endif

/* Suppress an incorrect diagnostic about yylval being uninitialized.  */
#if defined __GNUC__ && ! defined __ICC && 406 <= __GNUC__ * 100 + __GNUC_MINOR__
# if __GNUC__ * 100 + __GNUC_MINOR__ < 407
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")
# else
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")              \
    _Pragma ("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
# endif
# define YY_IGNORE_MAYBE_UNINITIALIZED_END      \
    _Pragma ("GCC diagnostic pop")
#else
# define YY_INITIAL_VALUE(Value) Value
#endif
#ifndef YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_END
#endif
#ifndef YY_INITIAL_VALUE
# define YY_INITIAL_VALUE(Value) /* Nothing. */
#endif

#if defined __cplusplus && defined __GNUC__ && ! defined __ICC && 6 <= __GNUC__
# define YY_IGNORE_USELESS_CAST_BEGIN                          \
    _Pragma ("GCC diagnostic push")                            \
    _Pragma ("GCC diagnostic ignored \"-Wuseless-cast\"")
# define YY_IGNORE_USELESS_CAST_END            \
    _Pragma ("GCC diagnostic pop")
#endif
#ifndef YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_END
#endif


#define YY_ASSERT(E) ((void) (0 && (E)))

#if 1

/* The parser invokes alloca or malloc; define the necessary symbols.  */

# ifdef YYSTACK_ALLOC
   /* Pacify GCC's 'empty if-body' warning.  */
#  define YYSTACK_FREE(Ptr) do { /* empty */; } while (0)
#  ifndef YYSTACK_ALLOC_MAXIMUM
    /* The OS might guarantee only one guard page at the bottom of the stack,
       and a page size can be as small as 4096 bytes.  So we cannot safely
       invoke alloca (N) if N exceeds 4096.  Use a slightly smaller number
       to allow for a few compiler-allocated temporary stack slots.  */
#   define YYSTACK_ALLOC_MAXIMUM 4032 /* reasonable circa 2006 */
#  endif
# else
#  define YYSTACK_ALLOC YYMALLOC
#  define YYSTACK_FREE YYFREE
#  ifndef YYSTACK_ALLOC_MAXIMUM
#   define YYSTACK_ALLOC_MAXIMUM YYSIZE_MAXIMUM
#  endif
#  if (defined __cplusplus && ! defined EXIT_SUCCESS \
       && ! ((defined YYMALLOC || defined malloc) \
             && (defined YYFREE || defined free)))
#   include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
#   ifndef EXIT_SUCCESS
#    define EXIT_SUCCESS 0
#   endif
#  endif
#  ifndef YYMALLOC
#   define YYMALLOC malloc
#   if ! defined malloc && ! defined EXIT_SUCCESS
void *malloc (YYSIZE_T); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
#  ifndef YYFREE
#   define YYFREE free
#   if ! defined free && ! defined EXIT_SUCCESS
void free (void *); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
# endif
# define YYCOPY_NEEDED 1
#endif /* 1 */

#if (! defined yyoverflow \
     && (! defined __cplusplus \
         || (defined YYLTYPE_IS_TRIVIAL && YYLTYPE_IS_TRIVIAL \
             && defined YYSTYPE_IS_TRIVIAL && YYSTYPE_IS_TRIVIAL)))

/* A type that is properly aligned for any stack member.  */
union yyalloc
{
  yy_state_t yyss_alloc;
  YYSTYPE yyvs_alloc;
  YYLTYPE yyls_alloc;
};

/* The size of the maximum gap between one aligned stack and the next.  */
# define YYSTACK_GAP_MAXIMUM (YYSIZEOF (union yyalloc) - 1)

/* The size of an array large to enough to hold all stacks, each with
   N elements.  */
# define YYSTACK_BYTES(N) \
     ((N) * (YYSIZEOF (yy_state_t) + YYSIZEOF (YYSTYPE) \
             + YYSIZEOF (YYLTYPE)) \
      + 2 * YYSTACK_GAP_MAXIMUM)

# define YYCOPY_NEEDED 1

/* Relocate STACK from its old location to the new one.  The
   local variables YYSIZE and YYSTACKSIZE give the old and new number of
   elements in the stack, and YYPTR gives the new location of the
   stack.  Advance YYPTR to a properly aligned location for the next
   stack.  */
# define YYSTACK_RELOCATE(Stack_alloc, Stack)                           \
    do                                                                  \
      {                                                                 \
        YYPTRDIFF_T yynewbytes;                                         \
        YYCOPY (&yyptr->Stack_alloc, Stack, yysize);                    \
        Stack = &yyptr->Stack_alloc;                                    \
        yynewbytes = yystacksize * YYSIZEOF (*Stack) + YYSTACK_GAP_MAXIMUM; \
        yyptr += yynewbytes / YYSIZEOF (*yyptr);                        \
      }                                                                 \
    while (0)

#endif

#if defined YYCOPY_NEEDED && YYCOPY_NEEDED
/* Copy COUNT objects from SRC to DST.  The source and destination do
   not overlap.  */
# ifndef YYCOPY
#  if defined __GNUC__ && 1 < __GNUC__
#   define YYCOPY(Dst, Src, Count) \
      __builtin_memcpy (Dst, Src, YY_CAST (YYSIZE_T, (Count)) * sizeof (*(Src)))
#  else
#   define YYCOPY(Dst, Src, Count)              \
      do                                        \
        {                                       \
          YYPTRDIFF_T yyi;                      \
          for (yyi = 0; yyi < (Count); yyi++)   \
            (Dst)[yyi] = (Src)[yyi];            \
        }                                       \
      while (0)
#  endif
# endif
#endif /* !YYCOPY_NEEDED */

/* YYFINAL -- State number of the termination state.  */
#define YYFINAL  3
/* YYLAST -- Last index in YYTABLE.  */
#define YYLAST   608

/* YYNTOKENS -- Number of terminals.  */
#define YYNTOKENS  63
/* YYNNTS -- Number of nonterminals.  */
#define YYNNTS  43
/* YYNRULES -- Number of rules.  */
#define YYNRULES  138
/* YYNSTATES -- Number of states.  */
#define YYNSTATES  236

/* YYMAXUTOK -- Last valid token kind.  */
#define YYMAXUTOK   297


/* YYTRANSLATE(TOKEN-NUM) -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex, with out-of-bounds checking.  */
#define YYTRANSLATE(YYX)                                \
  (0 <= (YYX) && (YYX) <= YYMAXUTOK                     \
   ? YY_CAST (yysymbol_kind_t, yytranslate[YYX])        \
   : YYSYMBOL_YYUNDEF)

/* YYTRANSLATE[TOKEN-NUM] -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex.  */
static const yytype_int8 yytranslate[] =
{
       0,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,    58,    53,     2,
      46,    47,    56,    54,    48,    55,    62,    57,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,    44,     2,
      49,    43,    50,     2,    45,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,    60,     2,    61,    52,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,    51,     2,    59,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     1,     2,     3,     4,
       5,     6,     7,     8,     9,    10,    11,    12,    13,    14,
      15,    16,    17,    18,    19,    20,    21,    22,    23,    24,
      25,    26,    27,    28,    29,    30,    31,    32,    33,    34,
      35,    36,    37,    38,    39,    40,    41,    42
};

#if YYDEBUG
/* YYRLINE[YYN] -- Source line where rule number YYN was defined.  */
static const yytype_int16 yyrline[] =
{
       0,   278,   278,   291,   292,   293,   294,   295,   304,   305,
     306,   307,   308,   309,   310,   319,   320,   324,   325,   326,
     330,   331,   335,   339,   343,   347,   352,   361,   372,   383,
     384,   385,   386,   387,   388,   389,   393,   394,   398,   399,
     400,   401,   405,   423,   424,   438,   442,   443,   447,   456,
     469,   478,   479,   480,   484,   502,   523,   524,   525,   529,
     535,   545,   546,   547,   548,   552,   553,   559,   560,   561,
     562,   566,   567,   571,   572,   580,   581,   585,   586,   590,
     591,   595,   596,   603,   611,   625,   626,   627,   628,   629,
     630,   631,   632,   636,   637,   641,   642,   646,   647,   651,
     652,   653,   657,   658,   659,   663,   664,   665,   666,   667,
     671,   672,   673,   674,   679,   680,   684,   685,   695,   696,
     700,   701,   702,   706,   707,   711,   712,   713,   714,   715,
     726,   727,   728,   729,   730,   731,   732,   736,   737
};
#endif

/** Accessing symbol of state STATE.  */
#define YY_ACCESSING_SYMBOL(State) YY_CAST (yysymbol_kind_t, yystos[State])

#if 1
/* The user-facing name of the symbol whose (internal) number is
   YYSYMBOL.  No bounds checking.  */
static const char *yysymbol_name (yysymbol_kind_t yysymbol) YY_ATTRIBUTE_UNUSED;

static const char *
yysymbol_name (yysymbol_kind_t yysymbol)
{
  static const char *const yy_sname[] =
  {
  "end of file", "error", "invalid token", "name", "string", "integer",
  "float", "augmented assignment", "end of line", "indent", "dedent",
  "'and'", "'or'", "'not'", "'in'", "'if'", "'elif'", "'else'", "'while'",
  "'for'", "'def'", "'return'", "'yield'", "'break'", "'continue'",
  "'pass'", "'True'", "'False'", "'None'", "'device'", "'setting'",
  "'require'", "'hard'", "'soft'", "'correct'", "'**'", "'//'", "'<<'",
  "'>>'", "'<='", "'>='", "'=='", "'!='", "'='", "':'", "'@'", "'('",
  "')'", "','", "'<'", "'>'", "'|'", "'^'", "'&'", "'+'", "'-'", "'*'",
  "'/'", "'%'", "'~'", "'['", "']'", "'.'", "$accept", "file", "module",
  "stmts", "block", "cclass", "opt_cclass", "simple_stmt", "assign_chain",
  "compound_stmt", "if_stmt", "elif_chain", "else_block", "while_stmt",
  "for_stmt", "decorator", "def_stmt", "params", "param_list",
  "target_list", "target_items", "testlist", "tuple_items", "expr",
  "or_test", "and_test", "not_test", "comparison", "comp_chain", "comp_op",
  "bitor", "bitxor", "bitand", "shift", "arith", "term", "factor", "power",
  "primary", "args", "arglist", "atom", "list_items", YY_NULLPTR
  };
  return yy_sname[yysymbol];
}
#endif

#define YYPACT_NINF (-127)

#define yypact_value_is_default(Yyn) \
  ((Yyn) == YYPACT_NINF)

#define YYTABLE_NINF (-3)

#define yytable_value_is_error(Yyn) \
  0

/* YYPACT[STATE-NUM] -- Index in YYTABLE of the portion describing
   STATE-NUM.  */
static const yytype_int16 yypact[] =
{
    -127,    10,   198,  -127,    19,  -127,  -127,  -127,  -127,   438,
     503,   503,   503,   146,    49,   503,   503,  -127,  -127,  -127,
    -127,  -127,  -127,    57,    71,     3,  -127,  -127,  -127,   125,
     503,   548,   548,   548,   108,    76,    97,    64,  -127,  -127,
    -127,  -127,  -127,    24,    61,    62,    72,   107,  -127,  -127,
     106,    15,    65,    73,   -19,    14,   -24,  -127,  -127,   118,
     120,  -127,   114,   258,   117,  -127,  -127,    85,    93,   127,
      91,   148,    96,  -127,  -127,   100,   101,  -127,   533,  -127,
    -127,  -127,  -127,   152,   119,  -127,  -127,  -127,  -127,  -127,
     -37,   122,  -127,   503,   503,   503,   503,   503,   503,   503,
     503,   147,  -127,  -127,  -127,  -127,  -127,  -127,  -127,   548,
     548,   548,   548,   548,   548,   548,   548,   548,   548,   548,
     548,   548,   548,   503,   503,   167,  -127,  -127,   163,   438,
    -127,   171,  -127,  -127,    17,    17,   503,   146,   146,   172,
     503,   503,   138,  -127,   162,  -127,   473,  -127,   503,  -127,
    -127,  -127,  -127,  -127,   107,    41,  -127,  -127,   132,    65,
     132,    73,   -19,    14,    14,   -24,   -24,  -127,  -127,  -127,
    -127,  -127,  -127,   139,   137,   126,  -127,  -127,   318,  -127,
     179,    69,   182,   176,   153,    13,    13,  -127,   158,   161,
    -127,  -127,   503,   209,  -127,  -127,  -127,   503,  -127,   503,
    -127,  -127,   438,   503,   189,  -127,  -127,   190,  -127,    17,
     191,   233,  -127,   192,  -127,  -127,   378,   193,    17,    17,
     176,    17,  -127,   172,  -127,    17,  -127,  -127,  -127,  -127,
     194,    69,   195,  -127,    17,  -127
};

/* YYDEFACT[STATE-NUM] -- Default reduction number in state STATE-NUM.
   Performed when YYTABLE does not specify something else to do.  Zero
   means the default is an error.  */
static const yytype_uint8 yydefact[] =
{
       3,     0,     0,     1,     0,   125,   128,   126,   127,     0,
       0,     0,     0,     0,     0,    33,     0,    30,    31,    32,
     130,   131,   132,     0,     0,    20,    17,    18,    19,     0,
       0,     0,     0,     0,     0,     0,     0,    27,     5,    38,
      39,    40,    41,    29,    69,    67,    73,    75,    77,    79,
      82,    81,    93,    95,    97,    99,   102,   105,   110,   114,
     116,     6,     0,     0,     0,     9,    80,     0,     0,     0,
      63,    61,     0,    34,    35,     0,     0,    21,     0,    50,
      51,    52,    53,     0,     0,   112,   111,   113,   134,   137,
       0,     0,     4,     0,     0,     0,    70,    68,     0,     0,
       0,     0,    91,    87,    88,    89,    90,    85,    86,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,   120,     0,     0,   129,    10,     0,     0,
       7,     0,    12,     8,     0,     0,     0,    64,    62,    56,
       0,     0,   125,    26,     0,   133,     0,   135,     0,    37,
      28,    36,    72,    71,    76,     0,    78,    92,    84,    94,
      83,    96,    98,   100,   101,   103,   104,   108,   106,   107,
     109,   115,   123,     0,   121,     0,   119,    13,     0,    11,
       0,    43,     0,    46,     0,    66,    65,    59,     0,    57,
      22,    23,     0,     0,   136,   138,    24,     0,   117,   122,
     118,    14,     0,     0,     0,    42,    15,     0,    48,     0,
       0,    58,    25,     0,    74,   124,     0,     0,     0,     0,
      46,     0,    60,    56,    16,     0,    45,    47,    49,    55,
       0,    43,     0,    44,     0,    54
};

/* YYPGOTO[NTERM-NUM].  */
static const yytype_int16 yypgoto[] =
{
    -127,  -127,  -127,  -124,  -126,   215,  -127,    -2,  -127,    -1,
    -127,    11,    25,  -127,  -127,  -127,  -127,    23,  -127,  -127,
    -127,   -13,  -127,    -8,   149,   151,     6,  -127,  -127,   196,
     -15,   140,   142,   143,   -17,   -26,   -18,  -127,    -7,  -127,
    -127,  -127,  -127
};

/* YYDEFGOTO[NTERM-NUM].  */
static const yytype_uint8 yydefgoto[] =
{
       0,     1,     2,    63,   181,    35,    78,   182,    37,    65,
      39,   205,   208,    40,    41,    83,    42,   188,   189,    69,
      70,    43,    44,    45,    46,    47,    48,    49,    50,   109,
      51,    52,    53,    54,    55,    56,    57,    58,    59,   173,
     174,    60,    90
};

/* YYTABLE[YYPACT[STATE-NUM]] -- What to do in state STATE-NUM.  If
   positive, shift that token.  If negative, reduce the rule whose
   number is the opposite.  If YYTABLE_NINF, syntax error.  */
static const yytype_int16 yytable[] =
{
      36,    38,    73,    67,    68,   178,    71,    64,    74,   183,
       3,   146,   118,    85,    86,    87,    66,    84,   114,   115,
       5,     6,     7,     8,   147,   180,    89,    61,   101,   102,
      10,    94,   119,   120,   121,    26,    27,    28,    15,    16,
      17,    18,    19,    20,    21,    22,    23,    24,    25,    26,
      27,    28,    72,    98,   103,   104,   105,   106,   197,   123,
      75,   131,   132,    30,   107,   108,   110,    95,   116,   117,
     143,    31,    32,   124,    76,   125,    33,    34,   216,    91,
     149,   150,   151,   220,    98,   203,   204,    99,   152,   153,
     165,   166,   226,   227,   158,   229,   160,   163,   164,   231,
     167,   168,   169,   170,   171,    92,   156,    93,   235,    96,
      97,     5,     6,     7,     8,   172,   175,   112,   100,   101,
     102,    10,   127,   184,   126,   133,   113,    64,    79,   134,
     185,   186,   190,   191,    20,    21,    22,   135,   195,   137,
     196,   136,   139,   140,   141,   103,   104,   105,   106,     5,
       6,     7,     8,   122,    30,   107,   108,    80,    81,    82,
     144,   157,    31,    32,   123,   148,   145,    33,    34,    88,
     176,   177,    20,    21,    22,   187,   131,   132,   124,   179,
     125,   192,   193,   110,   212,   199,   198,   200,   202,   214,
     206,   215,    30,   207,   123,   217,   138,   209,    -2,     4,
      64,     5,     6,     7,     8,   210,    34,     9,   124,   211,
     125,    10,   213,    11,   131,   132,    12,    13,    14,    15,
      16,    17,    18,    19,    20,    21,    22,    23,    24,    25,
      26,    27,    28,   218,   219,   221,   222,   225,   223,   234,
      77,   232,   233,    29,    30,   228,   230,   111,   155,   154,
     159,     0,    31,    32,   161,     0,   162,    33,    34,   128,
       0,     5,     6,     7,     8,     0,     0,   129,   130,     0,
       0,    10,     0,    11,     0,     0,    12,    13,    14,    15,
      16,    17,    18,    19,    20,    21,    22,    23,    24,    25,
      26,    27,    28,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,    29,    30,     0,     0,     0,     0,     0,
       0,     0,    31,    32,     0,     0,     0,    33,    34,   128,
       0,     5,     6,     7,     8,     0,     0,   129,   201,     0,
       0,    10,     0,    11,     0,     0,    12,    13,    14,    15,
      16,    17,    18,    19,    20,    21,    22,    23,    24,    25,
      26,    27,    28,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,    29,    30,     0,     0,     0,     0,     0,
       0,     0,    31,    32,     0,     0,     0,    33,    34,   128,
       0,     5,     6,     7,     8,     0,     0,   129,   224,     0,
       0,    10,     0,    11,     0,     0,    12,    13,    14,    15,
      16,    17,    18,    19,    20,    21,    22,    23,    24,    25,
      26,    27,    28,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,    29,    30,     0,     0,     0,     0,     0,
       0,     0,    31,    32,     0,     0,     0,    33,    34,    62,
       0,     5,     6,     7,     8,     0,     0,     0,     0,     0,
       0,    10,     0,    11,     0,     0,    12,    13,    14,    15,
      16,    17,    18,    19,    20,    21,    22,    23,    24,    25,
      26,    27,    28,     0,     0,     0,     5,     6,     7,     8,
       0,     0,     0,    29,    30,     0,    10,     0,     0,     0,
       0,     0,    31,    32,     0,     0,     0,    33,    34,    20,
      21,    22,     0,     0,     0,     0,     5,     6,     7,     8,
       0,     0,     0,     0,     0,     0,    10,     0,     0,    30,
       0,     0,     0,     0,     0,     0,     0,    31,    32,    20,
      21,    22,    33,    34,   194,     0,   142,     6,     7,     8,
       0,     0,     0,     0,     0,     0,    10,     0,     0,    30,
       0,     5,     6,     7,     8,     0,     0,    31,    32,    20,
      21,    22,    33,    34,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,    20,    21,    22,     0,     0,    30,
       0,     0,     0,     0,     0,     0,     0,    31,    32,     0,
       0,     0,    33,    34,    30,     0,     0,     0,     0,     0,
       0,     0,    31,    32,     0,     0,     0,    33,    34
};

static const yytype_int16 yycheck[] =
{
       2,     2,    15,    11,    12,   129,    13,     9,    16,   135,
       0,    48,    36,    31,    32,    33,    10,    30,    37,    38,
       3,     4,     5,     6,    61,     8,    34,     8,    13,    14,
      13,     7,    56,    57,    58,    32,    33,    34,    21,    22,
      23,    24,    25,    26,    27,    28,    29,    30,    31,    32,
      33,    34,     3,    12,    39,    40,    41,    42,    17,    46,
       3,    63,    63,    46,    49,    50,    51,    43,    54,    55,
      78,    54,    55,    60,     3,    62,    59,    60,   202,     3,
      93,    94,    95,   209,    12,    16,    17,    15,    96,    97,
     116,   117,   218,   219,   109,   221,   111,   114,   115,   225,
     118,   119,   120,   121,   122,     8,   100,    43,   234,    48,
      48,     3,     4,     5,     6,   123,   124,    52,    11,    13,
      14,    13,     8,   136,     4,     8,    53,   129,     3,    44,
     137,   138,   140,   141,    26,    27,    28,    44,   146,    48,
     148,    14,    46,    43,    43,    39,    40,    41,    42,     3,
       4,     5,     6,    35,    46,    49,    50,    32,    33,    34,
       8,    14,    54,    55,    46,    43,    47,    59,    60,    61,
       3,     8,    26,    27,    28,     3,   178,   178,    60,     8,
      62,    43,    20,    51,   192,    48,    47,    61,     9,   197,
       8,   199,    46,    17,    46,   203,    48,    44,     0,     1,
     202,     3,     4,     5,     6,    47,    60,     9,    60,    48,
      62,    13,     3,    15,   216,   216,    18,    19,    20,    21,
      22,    23,    24,    25,    26,    27,    28,    29,    30,    31,
      32,    33,    34,    44,    44,    44,     3,    44,    46,    44,
      25,    47,   231,    45,    46,   220,   223,    51,    99,    98,
     110,    -1,    54,    55,   112,    -1,   113,    59,    60,     1,
      -1,     3,     4,     5,     6,    -1,    -1,     9,    10,    -1,
      -1,    13,    -1,    15,    -1,    -1,    18,    19,    20,    21,
      22,    23,    24,    25,    26,    27,    28,    29,    30,    31,
      32,    33,    34,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    45,    46,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    54,    55,    -1,    -1,    -1,    59,    60,     1,
      -1,     3,     4,     5,     6,    -1,    -1,     9,    10,    -1,
      -1,    13,    -1,    15,    -1,    -1,    18,    19,    20,    21,
      22,    23,    24,    25,    26,    27,    28,    29,    30,    31,
      32,    33,    34,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    45,    46,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    54,    55,    -1,    -1,    -1,    59,    60,     1,
      -1,     3,     4,     5,     6,    -1,    -1,     9,    10,    -1,
      -1,    13,    -1,    15,    -1,    -1,    18,    19,    20,    21,
      22,    23,    24,    25,    26,    27,    28,    29,    30,    31,
      32,    33,    34,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    45,    46,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    54,    55,    -1,    -1,    -1,    59,    60,     1,
      -1,     3,     4,     5,     6,    -1,    -1,    -1,    -1,    -1,
      -1,    13,    -1,    15,    -1,    -1,    18,    19,    20,    21,
      22,    23,    24,    25,    26,    27,    28,    29,    30,    31,
      32,    33,    34,    -1,    -1,    -1,     3,     4,     5,     6,
      -1,    -1,    -1,    45,    46,    -1,    13,    -1,    -1,    -1,
      -1,    -1,    54,    55,    -1,    -1,    -1,    59,    60,    26,
      27,    28,    -1,    -1,    -1,    -1,     3,     4,     5,     6,
      -1,    -1,    -1,    -1,    -1,    -1,    13,    -1,    -1,    46,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    54,    55,    26,
      27,    28,    59,    60,    61,    -1,     3,     4,     5,     6,
      -1,    -1,    -1,    -1,    -1,    -1,    13,    -1,    -1,    46,
      -1,     3,     4,     5,     6,    -1,    -1,    54,    55,    26,
      27,    28,    59,    60,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    -1,    26,    27,    28,    -1,    -1,    46,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    54,    55,    -1,
      -1,    -1,    59,    60,    46,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    54,    55,    -1,    -1,    -1,    59,    60
};

/* YYSTOS[STATE-NUM] -- The symbol kind of the accessing symbol of
   state STATE-NUM.  */
static const yytype_int8 yystos[] =
{
       0,    64,    65,     0,     1,     3,     4,     5,     6,     9,
      13,    15,    18,    19,    20,    21,    22,    23,    24,    25,
      26,    27,    28,    29,    30,    31,    32,    33,    34,    45,
      46,    54,    55,    59,    60,    68,    70,    71,    72,    73,
      76,    77,    79,    84,    85,    86,    87,    88,    89,    90,
      91,    93,    94,    95,    96,    97,    98,    99,   100,   101,
     104,     8,     1,    66,    70,    72,    89,    86,    86,    82,
      83,   101,     3,    84,    86,     3,     3,    68,    69,     3,
      32,    33,    34,    78,    84,    99,    99,    99,    61,    86,
     105,     3,     8,    43,     7,    43,    48,    48,    12,    15,
      11,    13,    14,    39,    40,    41,    42,    49,    50,    92,
      51,    92,    52,    53,    37,    38,    54,    55,    36,    56,
      57,    58,    35,    46,    60,    62,     4,     8,     1,     9,
      10,    70,    72,     8,    44,    44,    14,    48,    48,    46,
      43,    43,     3,    86,     8,    47,    48,    61,    43,    84,
      84,    84,    86,    86,    88,    87,    89,    14,    93,    94,
      93,    95,    96,    97,    97,    98,    98,    99,    99,    99,
      99,    99,    86,   102,   103,    86,     3,     8,    66,     8,
       8,    67,    70,    67,    84,   101,   101,     3,    80,    81,
      86,    86,    43,    20,    61,    86,    86,    17,    47,    48,
      61,    10,     9,    16,    17,    74,     8,    17,    75,    44,
      47,    48,    86,     3,    86,    86,    66,    86,    44,    44,
      67,    44,     3,    46,    10,    44,    67,    67,    75,    67,
      80,    67,    47,    74,    44,    67
};

/* YYR1[RULE-NUM] -- Symbol kind of the left-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr1[] =
{
       0,    63,    64,    65,    65,    65,    65,    65,    66,    66,
      66,    66,    66,    66,    66,    67,    67,    68,    68,    68,
      69,    69,    70,    70,    70,    70,    70,    70,    70,    70,
      70,    70,    70,    70,    70,    70,    71,    71,    72,    72,
      72,    72,    73,    74,    74,    74,    75,    75,    76,    77,
      78,    78,    78,    78,    79,    79,    80,    80,    80,    81,
      81,    82,    82,    82,    82,    83,    83,    84,    84,    84,
      84,    85,    85,    86,    86,    87,    87,    88,    88,    89,
      89,    90,    90,    91,    91,    92,    92,    92,    92,    92,
      92,    92,    92,    93,    93,    94,    94,    95,    95,    96,
      96,    96,    97,    97,    97,    98,    98,    98,    98,    98,
      99,    99,    99,    99,   100,   100,   101,   101,   101,   101,
     102,   102,   102,   103,   103,   104,   104,   104,   104,   104,
     104,   104,   104,   104,   104,   104,   104,   105,   105
};

/* YYR2[RULE-NUM] -- Number of symbols on the right-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr2[] =
{
       0,     2,     1,     0,     3,     2,     3,     4,     2,     1,
       2,     3,     2,     3,     4,     2,     4,     1,     1,     1,
       0,     1,     4,     4,     4,     5,     3,     1,     3,     1,
       1,     1,     1,     1,     2,     2,     3,     3,     1,     1,
       1,     1,     5,     0,     5,     3,     0,     3,     5,     7,
       1,     1,     1,     1,    10,     7,     0,     1,     2,     1,
       3,     1,     2,     1,     2,     3,     3,     1,     2,     1,
       2,     3,     3,     1,     5,     1,     3,     1,     3,     1,
       2,     1,     1,     3,     3,     1,     1,     1,     1,     1,
       1,     1,     2,     1,     3,     1,     3,     1,     3,     1,
       3,     3,     1,     3,     3,     1,     3,     3,     3,     3,
       1,     2,     2,     2,     1,     3,     1,     4,     4,     3,
       0,     1,     2,     1,     3,     1,     1,     1,     1,     2,
       1,     1,     1,     3,     2,     3,     4,     1,     3
};


enum { YYENOMEM = -2 };

#define yyerrok         (yyerrstatus = 0)
#define yyclearin       (yychar = TOK_YYEMPTY)

#define YYACCEPT        goto yyacceptlab
#define YYABORT         goto yyabortlab
#define YYERROR         goto yyerrorlab
#define YYNOMEM         goto yyexhaustedlab


#define YYRECOVERING()  (!!yyerrstatus)

#define YYBACKUP(Token, Value)                                    \
  do                                                              \
    if (yychar == TOK_YYEMPTY)                                        \
      {                                                           \
        yychar = (Token);                                         \
        yylval = (Value);                                         \
        YYPOPSTACK (yylen);                                       \
        yystate = *yyssp;                                         \
        YY_LAC_DISCARD ("YYBACKUP");                              \
        goto yybackup;                                            \
      }                                                           \
    else                                                          \
      {                                                           \
        yyerror (&yylloc, scanner, ctx, YY_("syntax error: cannot back up")); \
        YYERROR;                                                  \
      }                                                           \
  while (0)

/* Backward compatibility with an undocumented macro.
   Use TOK_YYerror or TOK_YYUNDEF. */
#define YYERRCODE TOK_YYUNDEF

/* YYLLOC_DEFAULT -- Set CURRENT to span from RHS[1] to RHS[N].
   If N is 0, then set CURRENT to the empty location which ends
   the previous symbol: RHS[0] (always defined).  */

#ifndef YYLLOC_DEFAULT
# define YYLLOC_DEFAULT(Current, Rhs, N)                                \
    do                                                                  \
      if (N)                                                            \
        {                                                               \
          (Current).first_line   = YYRHSLOC (Rhs, 1).first_line;        \
          (Current).first_column = YYRHSLOC (Rhs, 1).first_column;      \
          (Current).last_line    = YYRHSLOC (Rhs, N).last_line;         \
          (Current).last_column  = YYRHSLOC (Rhs, N).last_column;       \
        }                                                               \
      else                                                              \
        {                                                               \
          (Current).first_line   = (Current).last_line   =              \
            YYRHSLOC (Rhs, 0).last_line;                                \
          (Current).first_column = (Current).last_column =              \
            YYRHSLOC (Rhs, 0).last_column;                              \
        }                                                               \
    while (0)
#endif

#define YYRHSLOC(Rhs, K) ((Rhs)[K])


/* Enable debugging if requested.  */
#if YYDEBUG

# ifndef YYFPRINTF
#  include <stdio.h> /* INFRINGES ON USER NAME SPACE */
#  define YYFPRINTF fprintf
# endif

# define YYDPRINTF(Args)                        \
do {                                            \
  if (yydebug)                                  \
    YYFPRINTF Args;                             \
} while (0)


/* YYLOCATION_PRINT -- Print the location on the stream.
   This macro was not mandated originally: define only if we know
   we won't break user code: when these are the locations we know.  */

# ifndef YYLOCATION_PRINT

#  if defined YY_LOCATION_PRINT

   /* Temporary convenience wrapper in case some people defined the
      undocumented and private YY_LOCATION_PRINT macros.  */
#   define YYLOCATION_PRINT(File, Loc)  YY_LOCATION_PRINT(File, *(Loc))

#  elif defined YYLTYPE_IS_TRIVIAL && YYLTYPE_IS_TRIVIAL

/* Print *YYLOCP on YYO.  Private, do not rely on its existence. */

YY_ATTRIBUTE_UNUSED
static int
yy_location_print_ (FILE *yyo, YYLTYPE const * const yylocp)
{
  int res = 0;
  int end_col = 0 != yylocp->last_column ? yylocp->last_column - 1 : 0;
  if (0 <= yylocp->first_line)
    {
      res += YYFPRINTF (yyo, "%d", yylocp->first_line);
      if (0 <= yylocp->first_column)
        res += YYFPRINTF (yyo, ".%d", yylocp->first_column);
    }
  if (0 <= yylocp->last_line)
    {
      if (yylocp->first_line < yylocp->last_line)
        {
          res += YYFPRINTF (yyo, "-%d", yylocp->last_line);
          if (0 <= end_col)
            res += YYFPRINTF (yyo, ".%d", end_col);
        }
      else if (0 <= end_col && yylocp->first_column < end_col)
        res += YYFPRINTF (yyo, "-%d", end_col);
    }
  return res;
}

#   define YYLOCATION_PRINT  yy_location_print_

    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT(File, Loc)  YYLOCATION_PRINT(File, &(Loc))

#  else

#   define YYLOCATION_PRINT(File, Loc) ((void) 0)
    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT  YYLOCATION_PRINT

#  endif
# endif /* !defined YYLOCATION_PRINT */


# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)                    \
do {                                                                      \
  if (yydebug)                                                            \
    {                                                                     \
      YYFPRINTF (stderr, "%s ", Title);                                   \
      yy_symbol_print (stderr,                                            \
                  Kind, Value, Location, scanner, ctx); \
      YYFPRINTF (stderr, "\n");                                           \
    }                                                                     \
} while (0)


/*-----------------------------------.
| Print this symbol's value on YYO.  |
`-----------------------------------*/

static void
yy_symbol_value_print (FILE *yyo,
                       yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, yyscan_t scanner, struct parse_ctx *ctx)
{
  FILE *yyoutput = yyo;
  YY_USE (yyoutput);
  YY_USE (yylocationp);
  YY_USE (scanner);
  YY_USE (ctx);
  if (!yyvaluep)
    return;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}


/*---------------------------.
| Print this symbol on YYO.  |
`---------------------------*/

static void
yy_symbol_print (FILE *yyo,
                 yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, yyscan_t scanner, struct parse_ctx *ctx)
{
  YYFPRINTF (yyo, "%s %s (",
             yykind < YYNTOKENS ? "token" : "nterm", yysymbol_name (yykind));

  YYLOCATION_PRINT (yyo, yylocationp);
  YYFPRINTF (yyo, ": ");
  yy_symbol_value_print (yyo, yykind, yyvaluep, yylocationp, scanner, ctx);
  YYFPRINTF (yyo, ")");
}

/*------------------------------------------------------------------.
| yy_stack_print -- Print the state stack from its BOTTOM up to its |
| TOP (included).                                                   |
`------------------------------------------------------------------*/

static void
yy_stack_print (yy_state_t *yybottom, yy_state_t *yytop)
{
  YYFPRINTF (stderr, "Stack now");
  for (; yybottom <= yytop; yybottom++)
    {
      int yybot = *yybottom;
      YYFPRINTF (stderr, " %d", yybot);
    }
  YYFPRINTF (stderr, "\n");
}

# define YY_STACK_PRINT(Bottom, Top)                            \
do {                                                            \
  if (yydebug)                                                  \
    yy_stack_print ((Bottom), (Top));                           \
} while (0)


/*------------------------------------------------.
| Report that the YYRULE is going to be reduced.  |
`------------------------------------------------*/

static void
yy_reduce_print (yy_state_t *yyssp, YYSTYPE *yyvsp, YYLTYPE *yylsp,
                 int yyrule, yyscan_t scanner, struct parse_ctx *ctx)
{
  int yylno = yyrline[yyrule];
  int yynrhs = yyr2[yyrule];
  int yyi;
  YYFPRINTF (stderr, "Reducing stack by rule %d (line %d):\n",
             yyrule - 1, yylno);
  /* The symbols being reduced.  */
  for (yyi = 0; yyi < yynrhs; yyi++)
    {
      YYFPRINTF (stderr, "   $%d = ", yyi + 1);
      yy_symbol_print (stderr,
                       YY_ACCESSING_SYMBOL (+yyssp[yyi + 1 - yynrhs]),
                       &yyvsp[(yyi + 1) - (yynrhs)],
                       &(yylsp[(yyi + 1) - (yynrhs)]), scanner, ctx);
      YYFPRINTF (stderr, "\n");
    }
}

# define YY_REDUCE_PRINT(Rule)          \
do {                                    \
  if (yydebug)                          \
    yy_reduce_print (yyssp, yyvsp, yylsp, Rule, scanner, ctx); \
} while (0)

/* Nonzero means print parse trace.  It is left uninitialized so that
   multiple parsers can coexist.  */
int yydebug;
#else /* !YYDEBUG */
# define YYDPRINTF(Args) ((void) 0)
# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)
# define YY_STACK_PRINT(Bottom, Top)
# define YY_REDUCE_PRINT(Rule)
#endif /* !YYDEBUG */


/* YYINITDEPTH -- initial size of the parser's stacks.  */
#ifndef YYINITDEPTH
# define YYINITDEPTH 200
#endif

/* YYMAXDEPTH -- maximum size the stacks can grow to (effective only
   if the built-in stack extension method is used).

   Do not make this value too large; the results are undefined if
   YYSTACK_ALLOC_MAXIMUM < YYSTACK_BYTES (YYMAXDEPTH)
   evaluated with infinite-precision integer arithmetic.  */

#ifndef YYMAXDEPTH
# define YYMAXDEPTH 10000
#endif


/* Given a state stack such that *YYBOTTOM is its bottom, such that
   *YYTOP is either its top or is YYTOP_EMPTY to indicate an empty
   stack, and such that *YYCAPACITY is the maximum number of elements it
   can hold without a reallocation, make sure there is enough room to
   store YYADD more elements.  If not, allocate a new stack using
   YYSTACK_ALLOC, copy the existing elements, and adjust *YYBOTTOM,
   *YYTOP, and *YYCAPACITY to reflect the new capacity and memory
   location.  If *YYBOTTOM != YYBOTTOM_NO_FREE, then free the old stack
   using YYSTACK_FREE.  Return 0 if successful or if no reallocation is
   required.  Return YYENOMEM if memory is exhausted.  */
static int
yy_lac_stack_realloc (YYPTRDIFF_T *yycapacity, YYPTRDIFF_T yyadd,
#if YYDEBUG
                      char const *yydebug_prefix,
                      char const *yydebug_suffix,
#endif
                      yy_state_t **yybottom,
                      yy_state_t *yybottom_no_free,
                      yy_state_t **yytop, yy_state_t *yytop_empty)
{
  YYPTRDIFF_T yysize_old =
    *yytop == yytop_empty ? 0 : *yytop - *yybottom + 1;
  YYPTRDIFF_T yysize_new = yysize_old + yyadd;
  if (*yycapacity < yysize_new)
    {
      YYPTRDIFF_T yyalloc = 2 * yysize_new;
      yy_state_t *yybottom_new;
      /* Use YYMAXDEPTH for maximum stack size given that the stack
         should never need to grow larger than the main state stack
         needs to grow without LAC.  */
      if (YYMAXDEPTH < yysize_new)
        {
          YYDPRINTF ((stderr, "%smax size exceeded%s", yydebug_prefix,
                      yydebug_suffix));
          return YYENOMEM;
        }
      if (YYMAXDEPTH < yyalloc)
        yyalloc = YYMAXDEPTH;
      yybottom_new =
        YY_CAST (yy_state_t *,
                 YYSTACK_ALLOC (YY_CAST (YYSIZE_T,
                                         yyalloc * YYSIZEOF (*yybottom_new))));
      if (!yybottom_new)
        {
          YYDPRINTF ((stderr, "%srealloc failed%s", yydebug_prefix,
                      yydebug_suffix));
          return YYENOMEM;
        }
      if (*yytop != yytop_empty)
        {
          YYCOPY (yybottom_new, *yybottom, yysize_old);
          *yytop = yybottom_new + (yysize_old - 1);
        }
      if (*yybottom != yybottom_no_free)
        YYSTACK_FREE (*yybottom);
      *yybottom = yybottom_new;
      *yycapacity = yyalloc;
    }
  return 0;
}

/* Establish the initial context for the current lookahead if no initial
   context is currently established.

   We define a context as a snapshot of the parser stacks.  We define
   the initial context for a lookahead as the context in which the
   parser initially examines that lookahead in order to select a
   syntactic action.  Thus, if the lookahead eventually proves
   syntactically unacceptable (possibly in a later context reached via a
   series of reductions), the initial context can be used to determine
   the exact set of tokens that would be syntactically acceptable in the
   lookahead's place.  Moreover, it is the context after which any
   further semantic actions would be erroneous because they would be
   determined by a syntactically unacceptable token.

   YY_LAC_ESTABLISH should be invoked when a reduction is about to be
   performed in an inconsistent state (which, for the purposes of LAC,
   includes consistent states that don't know they're consistent because
   their default reductions have been disabled).  Iff there is a
   lookahead token, it should also be invoked before reporting a syntax
   error.  This latter case is for the sake of the debugging output.

   For parse.lac=full, the implementation of YY_LAC_ESTABLISH is as
   follows.  If no initial context is currently established for the
   current lookahead, then check if that lookahead can eventually be
   shifted if syntactic actions continue from the current context.
   Report a syntax error if it cannot.  */
#define YY_LAC_ESTABLISH                                                \
do {                                                                    \
  if (!yy_lac_established)                                              \
    {                                                                   \
      YYDPRINTF ((stderr,                                               \
                  "LAC: initial context established for %s\n",          \
                  yysymbol_name (yytoken)));                            \
      yy_lac_established = 1;                                           \
      switch (yy_lac (yyesa, &yyes, &yyes_capacity, yyssp, yytoken))    \
        {                                                               \
        case YYENOMEM:                                                  \
          YYNOMEM;                                                      \
        case 1:                                                         \
          goto yyerrlab;                                                \
        }                                                               \
    }                                                                   \
} while (0)

/* Discard any previous initial lookahead context because of Event,
   which may be a lookahead change or an invalidation of the currently
   established initial context for the current lookahead.

   The most common example of a lookahead change is a shift.  An example
   of both cases is syntax error recovery.  That is, a syntax error
   occurs when the lookahead is syntactically erroneous for the
   currently established initial context, so error recovery manipulates
   the parser stacks to try to find a new initial context in which the
   current lookahead is syntactically acceptable.  If it fails to find
   such a context, it discards the lookahead.  */
#if YYDEBUG
# define YY_LAC_DISCARD(Event)                                           \
do {                                                                     \
  if (yy_lac_established)                                                \
    {                                                                    \
      YYDPRINTF ((stderr, "LAC: initial context discarded due to "       \
                  Event "\n"));                                          \
      yy_lac_established = 0;                                            \
    }                                                                    \
} while (0)
#else
# define YY_LAC_DISCARD(Event) yy_lac_established = 0
#endif

/* Given the stack whose top is *YYSSP, return 0 iff YYTOKEN can
   eventually (after perhaps some reductions) be shifted, return 1 if
   not, or return YYENOMEM if memory is exhausted.  As preconditions and
   postconditions: *YYES_CAPACITY is the allocated size of the array to
   which *YYES points, and either *YYES = YYESA or *YYES points to an
   array allocated with YYSTACK_ALLOC.  yy_lac may overwrite the
   contents of either array, alter *YYES and *YYES_CAPACITY, and free
   any old *YYES other than YYESA.  */
static int
yy_lac (yy_state_t *yyesa, yy_state_t **yyes,
        YYPTRDIFF_T *yyes_capacity, yy_state_t *yyssp, yysymbol_kind_t yytoken)
{
  yy_state_t *yyes_prev = yyssp;
  yy_state_t *yyesp = yyes_prev;
  /* Reduce until we encounter a shift and thereby accept the token.  */
  YYDPRINTF ((stderr, "LAC: checking lookahead %s:", yysymbol_name (yytoken)));
  if (yytoken == YYSYMBOL_YYUNDEF)
    {
      YYDPRINTF ((stderr, " Always Err\n"));
      return 1;
    }
  while (1)
    {
      int yyrule = yypact[+*yyesp];
      if (yypact_value_is_default (yyrule)
          || (yyrule += yytoken) < 0 || YYLAST < yyrule
          || yycheck[yyrule] != yytoken)
        {
          /* Use the default action.  */
          yyrule = yydefact[+*yyesp];
          if (yyrule == 0)
            {
              YYDPRINTF ((stderr, " Err\n"));
              return 1;
            }
        }
      else
        {
          /* Use the action from yytable.  */
          yyrule = yytable[yyrule];
          if (yytable_value_is_error (yyrule))
            {
              YYDPRINTF ((stderr, " Err\n"));
              return 1;
            }
          if (0 < yyrule)
            {
              YYDPRINTF ((stderr, " S%d\n", yyrule));
              return 0;
            }
          yyrule = -yyrule;
        }
      /* By now we know we have to simulate a reduce.  */
      YYDPRINTF ((stderr, " R%d", yyrule - 1));
      {
        /* Pop the corresponding number of values from the stack.  */
        YYPTRDIFF_T yylen = yyr2[yyrule];
        /* First pop from the LAC stack as many tokens as possible.  */
        if (yyesp != yyes_prev)
          {
            YYPTRDIFF_T yysize = yyesp - *yyes + 1;
            if (yylen < yysize)
              {
                yyesp -= yylen;
                yylen = 0;
              }
            else
              {
                yyesp = yyes_prev;
                yylen -= yysize;
              }
          }
        /* Only afterwards look at the main stack.  */
        if (yylen)
          yyesp = yyes_prev -= yylen;
      }
      /* Push the resulting state of the reduction.  */
      {
        yy_state_fast_t yystate;
        {
          const int yylhs = yyr1[yyrule] - YYNTOKENS;
          const int yyi = yypgoto[yylhs] + *yyesp;
          yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyesp
                     ? yytable[yyi]
                     : yydefgoto[yylhs]);
        }
        if (yyesp == yyes_prev)
          {
            yyesp = *yyes;
            YY_IGNORE_USELESS_CAST_BEGIN
            *yyesp = YY_CAST (yy_state_t, yystate);
            YY_IGNORE_USELESS_CAST_END
          }
        else
          {
            if (yy_lac_stack_realloc (yyes_capacity, 1,
#if YYDEBUG
                                      " (", ")",
#endif
                                      yyes, yyesa, &yyesp, yyes_prev))
              {
                YYDPRINTF ((stderr, "\n"));
                return YYENOMEM;
              }
            YY_IGNORE_USELESS_CAST_BEGIN
            *++yyesp = YY_CAST (yy_state_t, yystate);
            YY_IGNORE_USELESS_CAST_END
          }
        YYDPRINTF ((stderr, " G%d", yystate));
      }
    }
}

/* Context of a parse error.  */
typedef struct
{
  yy_state_t *yyssp;
  yy_state_t *yyesa;
  yy_state_t **yyes;
  YYPTRDIFF_T *yyes_capacity;
  yysymbol_kind_t yytoken;
  YYLTYPE *yylloc;
} yypcontext_t;

/* Put in YYARG at most YYARGN of the expected tokens given the
   current YYCTX, and return the number of tokens stored in YYARG.  If
   YYARG is null, return the number of expected tokens (guaranteed to
   be less than YYNTOKENS).  Return YYENOMEM on memory exhaustion.
   Return 0 if there are more than YYARGN expected tokens, yet fill
   YYARG up to YYARGN. */
static int
yypcontext_expected_tokens (const yypcontext_t *yyctx,
                            yysymbol_kind_t yyarg[], int yyargn)
{
  /* Actual size of YYARG. */
  int yycount = 0;

  int yyx;
  for (yyx = 0; yyx < YYNTOKENS; ++yyx)
    {
      yysymbol_kind_t yysym = YY_CAST (yysymbol_kind_t, yyx);
      if (yysym != YYSYMBOL_YYerror && yysym != YYSYMBOL_YYUNDEF)
        switch (yy_lac (yyctx->yyesa, yyctx->yyes, yyctx->yyes_capacity, yyctx->yyssp, yysym))
          {
          case YYENOMEM:
            return YYENOMEM;
          case 1:
            continue;
          default:
            if (!yyarg)
              ++yycount;
            else if (yycount == yyargn)
              return 0;
            else
              yyarg[yycount++] = yysym;
          }
    }
  if (yyarg && yycount == 0 && 0 < yyargn)
    yyarg[0] = YYSYMBOL_YYEMPTY;
  return yycount;
}




/* The kind of the lookahead of this context.  */
static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx)
{
  return yyctx->yytoken;
}

/* The location of the lookahead of this context.  */
static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx)
{
  return yyctx->yylloc;
}

/* User defined function to report a syntax error.  */
static int
yyreport_syntax_error (const yypcontext_t *yyctx, yyscan_t scanner, struct parse_ctx *ctx);

/*-----------------------------------------------.
| Release the memory associated to this symbol.  |
`-----------------------------------------------*/

static void
yydestruct (const char *yymsg,
            yysymbol_kind_t yykind, YYSTYPE *yyvaluep, YYLTYPE *yylocationp, yyscan_t scanner, struct parse_ctx *ctx)
{
  YY_USE (yyvaluep);
  YY_USE (yylocationp);
  YY_USE (scanner);
  YY_USE (ctx);
  if (!yymsg)
    yymsg = "Deleting";
  YY_SYMBOL_PRINT (yymsg, yykind, yyvaluep, yylocationp);

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}






/*----------.
| yyparse.  |
`----------*/

int
yyparse (yyscan_t scanner, struct parse_ctx *ctx)
{
/* Lookahead token kind.  */
int yychar;


/* The semantic value of the lookahead symbol.  */
/* Default value used for initialization, for pacifying older GCCs
   or non-GCC compilers.  */
YY_INITIAL_VALUE (static YYSTYPE yyval_default;)
YYSTYPE yylval YY_INITIAL_VALUE (= yyval_default);

/* Location data for the lookahead symbol.  */
static YYLTYPE yyloc_default
# if defined YYLTYPE_IS_TRIVIAL && YYLTYPE_IS_TRIVIAL
  = { 1, 1, 1, 1 }
# endif
;
YYLTYPE yylloc = yyloc_default;

    /* Number of syntax errors so far.  */
    int yynerrs = 0;

    yy_state_fast_t yystate = 0;
    /* Number of tokens to shift before error messages enabled.  */
    int yyerrstatus = 0;

    /* Refer to the stacks through separate pointers, to allow yyoverflow
       to reallocate them elsewhere.  */

    /* Their size.  */
    YYPTRDIFF_T yystacksize = YYINITDEPTH;

    /* The state stack: array, bottom, top.  */
    yy_state_t yyssa[YYINITDEPTH];
    yy_state_t *yyss = yyssa;
    yy_state_t *yyssp = yyss;

    /* The semantic value stack: array, bottom, top.  */
    YYSTYPE yyvsa[YYINITDEPTH];
    YYSTYPE *yyvs = yyvsa;
    YYSTYPE *yyvsp = yyvs;

    /* The location stack: array, bottom, top.  */
    YYLTYPE yylsa[YYINITDEPTH];
    YYLTYPE *yyls = yylsa;
    YYLTYPE *yylsp = yyls;

    yy_state_t yyesa[20];
    yy_state_t *yyes = yyesa;
    YYPTRDIFF_T yyes_capacity = 20 < YYMAXDEPTH ? 20 : YYMAXDEPTH;

  /* Whether LAC context is established.  A Boolean.  */
  int yy_lac_established = 0;
  int yyn;
  /* The return value of yyparse.  */
  int yyresult;
  /* Lookahead symbol kind.  */
  yysymbol_kind_t yytoken = YYSYMBOL_YYEMPTY;
  /* The variables used to return semantic value and location from the
     action routines.  */
  YYSTYPE yyval;
  YYLTYPE yyloc;

  /* The locations where the error started and ended.  */
  YYLTYPE yyerror_range[3];



#define YYPOPSTACK(N)   (yyvsp -= (N), yyssp -= (N), yylsp -= (N))

  /* The number of symbols on the RHS of the reduced rule.
     Keep to zero when no symbol should be popped.  */
  int yylen = 0;

  YYDPRINTF ((stderr, "Starting parse\n"));

  yychar = TOK_YYEMPTY; /* Cause a token to be read.  */


/* User initialization code.  */
#line 235 "lang/parser.y"
{ yylloc.first_line = yylloc.last_line = 1; yylloc.first_column = yylloc.last_column = 1; yylloc.begin = yylloc.end = 0; }

#line 1811 "parser.tab.c"

  yylsp[0] = yylloc;
  goto yysetstate;


/*------------------------------------------------------------.
| yynewstate -- push a new state, which is found in yystate.  |
`------------------------------------------------------------*/
yynewstate:
  /* In all cases, when you get here, the value and location stacks
     have just been pushed.  So pushing a state here evens the stacks.  */
  yyssp++;


/*--------------------------------------------------------------------.
| yysetstate -- set current state (the top of the stack) to yystate.  |
`--------------------------------------------------------------------*/
yysetstate:
  YYDPRINTF ((stderr, "Entering state %d\n", yystate));
  YY_ASSERT (0 <= yystate && yystate < YYNSTATES);
  YY_IGNORE_USELESS_CAST_BEGIN
  *yyssp = YY_CAST (yy_state_t, yystate);
  YY_IGNORE_USELESS_CAST_END
  YY_STACK_PRINT (yyss, yyssp);

  if (yyss + yystacksize - 1 <= yyssp)
#if !defined yyoverflow && !defined YYSTACK_RELOCATE
    YYNOMEM;
#else
    {
      /* Get the current used size of the three stacks, in elements.  */
      YYPTRDIFF_T yysize = yyssp - yyss + 1;

# if defined yyoverflow
      {
        /* Give user a chance to reallocate the stack.  Use copies of
           these so that the &'s don't force the real ones into
           memory.  */
        yy_state_t *yyss1 = yyss;
        YYSTYPE *yyvs1 = yyvs;
        YYLTYPE *yyls1 = yyls;

        /* Each stack pointer address is followed by the size of the
           data in use in that stack, in bytes.  This used to be a
           conditional around just the two extra args, but that might
           be undefined if yyoverflow is a macro.  */
        yyoverflow (YY_("memory exhausted"),
                    &yyss1, yysize * YYSIZEOF (*yyssp),
                    &yyvs1, yysize * YYSIZEOF (*yyvsp),
                    &yyls1, yysize * YYSIZEOF (*yylsp),
                    &yystacksize);
        yyss = yyss1;
        yyvs = yyvs1;
        yyls = yyls1;
      }
# else /* defined YYSTACK_RELOCATE */
      /* Extend the stack our own way.  */
      if (YYMAXDEPTH <= yystacksize)
        YYNOMEM;
      yystacksize *= 2;
      if (YYMAXDEPTH < yystacksize)
        yystacksize = YYMAXDEPTH;

      {
        yy_state_t *yyss1 = yyss;
        union yyalloc *yyptr =
          YY_CAST (union yyalloc *,
                   YYSTACK_ALLOC (YY_CAST (YYSIZE_T, YYSTACK_BYTES (yystacksize))));
        if (! yyptr)
          YYNOMEM;
        YYSTACK_RELOCATE (yyss_alloc, yyss);
        YYSTACK_RELOCATE (yyvs_alloc, yyvs);
        YYSTACK_RELOCATE (yyls_alloc, yyls);
#  undef YYSTACK_RELOCATE
        if (yyss1 != yyssa)
          YYSTACK_FREE (yyss1);
      }
# endif

      yyssp = yyss + yysize - 1;
      yyvsp = yyvs + yysize - 1;
      yylsp = yyls + yysize - 1;

      YY_IGNORE_USELESS_CAST_BEGIN
      YYDPRINTF ((stderr, "Stack size increased to %ld\n",
                  YY_CAST (long, yystacksize)));
      YY_IGNORE_USELESS_CAST_END

      if (yyss + yystacksize - 1 <= yyssp)
        YYABORT;
    }
#endif /* !defined yyoverflow && !defined YYSTACK_RELOCATE */


  if (yystate == YYFINAL)
    YYACCEPT;

  goto yybackup;


/*-----------.
| yybackup.  |
`-----------*/
yybackup:
  /* Do appropriate processing given the current state.  Read a
     lookahead token if we need one and don't already have one.  */

  /* First try to decide what to do without reference to lookahead token.  */
  yyn = yypact[yystate];
  if (yypact_value_is_default (yyn))
    goto yydefault;

  /* Not known => get a lookahead token if don't already have one.  */

  /* YYCHAR is either empty, or end-of-input, or a valid lookahead.  */
  if (yychar == TOK_YYEMPTY)
    {
      YYDPRINTF ((stderr, "Reading a token\n"));
      yychar = yylex (&yylval, &yylloc, scanner);
    }

  if (yychar <= TOK_YYEOF)
    {
      yychar = TOK_YYEOF;
      yytoken = YYSYMBOL_YYEOF;
      YYDPRINTF ((stderr, "Now at end of input.\n"));
    }
  else if (yychar == TOK_YYerror)
    {
      /* The scanner already issued an error message, process directly
         to error recovery.  But do not keep the error token as
         lookahead, it is too special and may lead us to an endless
         loop in error recovery. */
      yychar = TOK_YYUNDEF;
      yytoken = YYSYMBOL_YYerror;
      yyerror_range[1] = yylloc;
      goto yyerrlab1;
    }
  else
    {
      yytoken = YYTRANSLATE (yychar);
      YY_SYMBOL_PRINT ("Next token is", yytoken, &yylval, &yylloc);
    }

  /* If the proper action on seeing token YYTOKEN is to reduce or to
     detect an error, take that action.  */
  yyn += yytoken;
  if (yyn < 0 || YYLAST < yyn || yycheck[yyn] != yytoken)
    {
      YY_LAC_ESTABLISH;
      goto yydefault;
    }
  yyn = yytable[yyn];
  if (yyn <= 0)
    {
      if (yytable_value_is_error (yyn))
        goto yyerrlab;
      yyn = -yyn;
      YY_LAC_ESTABLISH;
      goto yyreduce;
    }

  /* Count tokens shifted since error; after three, turn off error
     status.  */
  if (yyerrstatus)
    yyerrstatus--;

  /* Shift the lookahead token.  */
  YY_SYMBOL_PRINT ("Shifting", yytoken, &yylval, &yylloc);
  yystate = yyn;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END
  *++yylsp = yylloc;

  /* Discard the shifted token.  */
  yychar = TOK_YYEMPTY;
  YY_LAC_DISCARD ("shift");
  goto yynewstate;


/*-----------------------------------------------------------.
| yydefault -- do the default action for the current state.  |
`-----------------------------------------------------------*/
yydefault:
  yyn = yydefact[yystate];
  if (yyn == 0)
    goto yyerrlab;
  goto yyreduce;


/*-----------------------------.
| yyreduce -- do a reduction.  |
`-----------------------------*/
yyreduce:
  /* yyn is the number of a rule to reduce with.  */
  yylen = yyr2[yyn];

  /* If YYLEN is nonzero, implement the default value of the action:
     '$$ = $1'.

     Otherwise, the following line sets YYVAL to garbage.
     This behavior is undocumented and Bison
     users should not rely upon it.  Assigning to YYVAL
     unconditionally makes the parser a bit smaller, and it avoids a
     GCC warning that YYVAL may be used uninitialized.  */
  yyval = yyvsp[1-yylen];

  /* Default location. */
  YYLLOC_DEFAULT (yyloc, (yylsp - yylen), yylen);
  yyerror_range[1] = yyloc;
  YY_REDUCE_PRINT (yyn);
  {
    int yychar_backup = yychar;
    switch (yyn)
      {
  case 2: /* file: module  */
#line 278 "lang/parser.y"
               {
		struct ast_block b = to_block((yyvsp[0].list));
		/* A leading string statement is the module's docstring. */
		if (b.n && b.stmts[0]->kind == AST_S_EXPR && b.stmts[0]->value->kind == AST_STR) {
			M->docstring = b.stmts[0]->value->sval;
			b.n--;
			b.stmts++;
		}
		M->body = b;
	}
#line 2040 "parser.tab.c"
    break;

  case 3: /* module: %empty  */
#line 291 "lang/parser.y"
               { (yyval.list) = plist_new(M); }
#line 2046 "parser.tab.c"
    break;

  case 4: /* module: module simple_stmt "end of line"  */
#line 292 "lang/parser.y"
                                     { (yyval.list) = (yyvsp[-2].list); if ((yyvsp[-1].stmt)) plist_push(M, (yyval.list), (yyvsp[-1].stmt)); }
#line 2052 "parser.tab.c"
    break;

  case 5: /* module: module compound_stmt  */
#line 293 "lang/parser.y"
                               { (yyval.list) = (yyvsp[-1].list); if ((yyvsp[0].stmt)) plist_push(M, (yyval.list), (yyvsp[0].stmt)); }
#line 2058 "parser.tab.c"
    break;

  case 6: /* module: module error "end of line"  */
#line 294 "lang/parser.y"
                               { (yyval.list) = (yyvsp[-2].list); yyerrok; if (ctx->diag->stopped) YYABORT; }
#line 2064 "parser.tab.c"
    break;

  case 7: /* module: module "indent" stmts "dedent"  */
#line 295 "lang/parser.y"
                                     {
		(yyval.list) = (yyvsp[-3].list);
		diag_error(ctx->diag, L((yylsp[-2])), "unexpected indent");
		for (int i = 0; i < (yyvsp[-1].list)->n; i++)
			plist_push(M, (yyval.list), (yyvsp[-1].list)->v[i]);
	}
#line 2075 "parser.tab.c"
    break;

  case 8: /* stmts: simple_stmt "end of line"  */
#line 304 "lang/parser.y"
                            { (yyval.list) = plist_new(M); if ((yyvsp[-1].stmt)) plist_push(M, (yyval.list), (yyvsp[-1].stmt)); }
#line 2081 "parser.tab.c"
    break;

  case 9: /* stmts: compound_stmt  */
#line 305 "lang/parser.y"
                        { (yyval.list) = plist_new(M); if ((yyvsp[0].stmt)) plist_push(M, (yyval.list), (yyvsp[0].stmt)); }
#line 2087 "parser.tab.c"
    break;

  case 10: /* stmts: error "end of line"  */
#line 306 "lang/parser.y"
                        { (yyval.list) = plist_new(M); yyerrok; if (ctx->diag->stopped) YYABORT; }
#line 2093 "parser.tab.c"
    break;

  case 11: /* stmts: stmts simple_stmt "end of line"  */
#line 307 "lang/parser.y"
                                    { (yyval.list) = (yyvsp[-2].list); if ((yyvsp[-1].stmt)) plist_push(M, (yyval.list), (yyvsp[-1].stmt)); }
#line 2099 "parser.tab.c"
    break;

  case 12: /* stmts: stmts compound_stmt  */
#line 308 "lang/parser.y"
                              { (yyval.list) = (yyvsp[-1].list); if ((yyvsp[0].stmt)) plist_push(M, (yyval.list), (yyvsp[0].stmt)); }
#line 2105 "parser.tab.c"
    break;

  case 13: /* stmts: stmts error "end of line"  */
#line 309 "lang/parser.y"
                              { (yyval.list) = (yyvsp[-2].list); yyerrok; if (ctx->diag->stopped) YYABORT; }
#line 2111 "parser.tab.c"
    break;

  case 14: /* stmts: stmts "indent" stmts "dedent"  */
#line 310 "lang/parser.y"
                                    {
		(yyval.list) = (yyvsp[-3].list);
		diag_error(ctx->diag, L((yylsp[-2])), "unexpected indent");
		for (int i = 0; i < (yyvsp[-1].list)->n; i++)
			plist_push(M, (yyval.list), (yyvsp[-1].list)->v[i]);
	}
#line 2122 "parser.tab.c"
    break;

  case 15: /* block: simple_stmt "end of line"  */
#line 319 "lang/parser.y"
                            { (yyval.list) = plist_new(M); if ((yyvsp[-1].stmt)) plist_push(M, (yyval.list), (yyvsp[-1].stmt)); }
#line 2128 "parser.tab.c"
    break;

  case 16: /* block: "end of line" "indent" stmts "dedent"  */
#line 320 "lang/parser.y"
                                      { (yyval.list) = (yyvsp[-1].list); }
#line 2134 "parser.tab.c"
    break;

  case 17: /* cclass: "'hard'"  */
#line 324 "lang/parser.y"
             { (yyval.num) = AST_HARD; }
#line 2140 "parser.tab.c"
    break;

  case 18: /* cclass: "'soft'"  */
#line 325 "lang/parser.y"
               { (yyval.num) = AST_SOFT; }
#line 2146 "parser.tab.c"
    break;

  case 19: /* cclass: "'correct'"  */
#line 326 "lang/parser.y"
                  { (yyval.num) = AST_CORRECT; }
#line 2152 "parser.tab.c"
    break;

  case 20: /* opt_cclass: %empty  */
#line 330 "lang/parser.y"
               { (yyval.num) = AST_CORRECT; }
#line 2158 "parser.tab.c"
    break;

  case 21: /* opt_cclass: cclass  */
#line 331 "lang/parser.y"
                 { (yyval.num) = (yyvsp[0].num); }
#line 2164 "parser.tab.c"
    break;

  case 22: /* simple_stmt: "'device'" "name" '=' expr  */
#line 335 "lang/parser.y"
                             {
		(yyval.stmt) = mks(ctx, AST_S_DEVICE, (yyloc));
		(yyval.stmt)->name = (yyvsp[-2].name); (yyval.stmt)->name_loc = L((yylsp[-2])); (yyval.stmt)->value = checked(ctx, (yyvsp[0].expr));
	}
#line 2173 "parser.tab.c"
    break;

  case 23: /* simple_stmt: "'setting'" "name" '=' expr  */
#line 339 "lang/parser.y"
                                {
		(yyval.stmt) = mks(ctx, AST_S_SETTING, (yyloc));
		(yyval.stmt)->name = (yyvsp[-2].name); (yyval.stmt)->name_loc = L((yylsp[-2])); (yyval.stmt)->value = checked(ctx, (yyvsp[0].expr));
	}
#line 2182 "parser.tab.c"
    break;

  case 24: /* simple_stmt: cclass "name" '=' expr  */
#line 343 "lang/parser.y"
                               {
		(yyval.stmt) = mks(ctx, AST_S_CONSTRAINT, (yyloc));
		(yyval.stmt)->cclass = (yyvsp[-3].num); (yyval.stmt)->name = (yyvsp[-2].name); (yyval.stmt)->name_loc = L((yylsp[-2])); (yyval.stmt)->value = checked(ctx, (yyvsp[0].expr));
	}
#line 2191 "parser.tab.c"
    break;

  case 25: /* simple_stmt: "'require'" opt_cclass "name" '=' expr  */
#line 347 "lang/parser.y"
                                           {
		(yyval.stmt) = mks(ctx, AST_S_CONSTRAINT, (yyloc));
		(yyval.stmt)->require = true; (yyval.stmt)->cclass = (yyvsp[-3].num); (yyval.stmt)->name = (yyvsp[-2].name); (yyval.stmt)->name_loc = L((yylsp[-2]));
		(yyval.stmt)->value = checked(ctx, (yyvsp[0].expr));
	}
#line 2201 "parser.tab.c"
    break;

  case 26: /* simple_stmt: "'require'" opt_cclass expr  */
#line 352 "lang/parser.y"
                                  {
		(yyval.stmt) = mks(ctx, AST_S_CONSTRAINT, (yyloc));
		(yyval.stmt)->require = true; (yyval.stmt)->unnamed = true; (yyval.stmt)->cclass = (yyvsp[-1].num);
		char buf[32];
		snprintf(buf, sizeof(buf), "line_%d", (yylsp[-2]).first_line);
		(yyval.stmt)->name = ast_intern(M, buf, strlen(buf));
		(yyval.stmt)->name_loc = L((yylsp[-2]));
		(yyval.stmt)->value = checked(ctx, (yyvsp[0].expr));
	}
#line 2215 "parser.tab.c"
    break;

  case 27: /* simple_stmt: assign_chain  */
#line 361 "lang/parser.y"
                       {
		/* The list holds targets then the value, in source order. */
		(yyval.stmt) = mks(ctx, AST_S_ASSIGN, (yyloc));
		(yyval.stmt)->ntargets = (yyvsp[0].list)->n - 1;
		(yyval.stmt)->targets = (struct ast_expr **)(yyvsp[0].list)->v;
		(yyval.stmt)->value = (yyvsp[0].list)->v[(yyvsp[0].list)->n - 1];
		for (int i = 0; i < (yyval.stmt)->ntargets; i++)
			check_target(ctx, (yyval.stmt)->targets[i], true);
		if ((yyval.stmt)->ntargets == 1 && (yyval.stmt)->targets[0]->kind == AST_NAME)
			(yyval.stmt)->name = (yyval.stmt)->targets[0]->name, (yyval.stmt)->name_loc = (yyval.stmt)->targets[0]->loc;
	}
#line 2231 "parser.tab.c"
    break;

  case 28: /* simple_stmt: testlist "augmented assignment" testlist  */
#line 372 "lang/parser.y"
                                      {
		(yyval.stmt) = mks(ctx, AST_S_AUGASSIGN, (yyloc));
		(yyval.stmt)->op = (yyvsp[-1].op);
		(yyval.stmt)->ntargets = 1;
		(yyval.stmt)->targets = arena_alloc(&M->arena, sizeof(*(yyval.stmt)->targets));
		(yyval.stmt)->targets[0] = (yyvsp[-2].expr);
		(yyval.stmt)->value = (yyvsp[0].expr);
		check_target(ctx, (yyvsp[-2].expr), false);
		if ((yyvsp[-2].expr)->kind == AST_NAME)
			(yyval.stmt)->name = (yyvsp[-2].expr)->name, (yyval.stmt)->name_loc = (yyvsp[-2].expr)->loc;
	}
#line 2247 "parser.tab.c"
    break;

  case 29: /* simple_stmt: testlist  */
#line 383 "lang/parser.y"
                   { (yyval.stmt) = mks(ctx, AST_S_EXPR, (yyloc)); (yyval.stmt)->value = (yyvsp[0].expr); }
#line 2253 "parser.tab.c"
    break;

  case 30: /* simple_stmt: "'break'"  */
#line 384 "lang/parser.y"
                { (yyval.stmt) = mks(ctx, AST_S_BREAK, (yyloc)); }
#line 2259 "parser.tab.c"
    break;

  case 31: /* simple_stmt: "'continue'"  */
#line 385 "lang/parser.y"
                   { (yyval.stmt) = mks(ctx, AST_S_CONTINUE, (yyloc)); }
#line 2265 "parser.tab.c"
    break;

  case 32: /* simple_stmt: "'pass'"  */
#line 386 "lang/parser.y"
               { (yyval.stmt) = mks(ctx, AST_S_PASS, (yyloc)); }
#line 2271 "parser.tab.c"
    break;

  case 33: /* simple_stmt: "'return'"  */
#line 387 "lang/parser.y"
                 { (yyval.stmt) = mks(ctx, AST_S_RETURN, (yyloc)); }
#line 2277 "parser.tab.c"
    break;

  case 34: /* simple_stmt: "'return'" testlist  */
#line 388 "lang/parser.y"
                          { (yyval.stmt) = mks(ctx, AST_S_RETURN, (yyloc)); (yyval.stmt)->value = (yyvsp[0].expr); }
#line 2283 "parser.tab.c"
    break;

  case 35: /* simple_stmt: "'yield'" expr  */
#line 389 "lang/parser.y"
                     { (yyval.stmt) = mks(ctx, AST_S_YIELD, (yyloc)); (yyval.stmt)->value = checked(ctx, (yyvsp[0].expr)); }
#line 2289 "parser.tab.c"
    break;

  case 36: /* assign_chain: testlist '=' testlist  */
#line 393 "lang/parser.y"
                              { (yyval.list) = plist_new(M); plist_push(M, (yyval.list), (yyvsp[-2].expr)); plist_push(M, (yyval.list), checked(ctx, (yyvsp[0].expr))); }
#line 2295 "parser.tab.c"
    break;

  case 37: /* assign_chain: assign_chain '=' testlist  */
#line 394 "lang/parser.y"
                                    { (yyval.list) = (yyvsp[-2].list); plist_push(M, (yyval.list), checked(ctx, (yyvsp[0].expr))); }
#line 2301 "parser.tab.c"
    break;

  case 42: /* if_stmt: "'if'" expr ':' block elif_chain  */
#line 405 "lang/parser.y"
                                     {
		(yyval.stmt) = mks(ctx, AST_S_IF, (yyloc));
		(yyval.stmt)->value = checked(ctx, (yyvsp[-3].expr));
		(yyval.stmt)->body = to_block((yyvsp[-1].list));
		if ((yyvsp[0].stmt)) {
			if ((yyvsp[0].stmt)->kind == AST_S_PASS && (yyvsp[0].stmt)->body.n) { /* plain else */
				(yyval.stmt)->orelse = (yyvsp[0].stmt)->body;
			} else {
				(yyval.stmt)->orelse.n = 1;
				(yyval.stmt)->orelse.stmts = arena_alloc(&M->arena, sizeof(struct ast_stmt *));
				(yyval.stmt)->orelse.stmts[0] = (yyvsp[0].stmt);
			}
		}
	}
#line 2320 "parser.tab.c"
    break;

  case 43: /* elif_chain: %empty  */
#line 423 "lang/parser.y"
               { (yyval.stmt) = NULL; }
#line 2326 "parser.tab.c"
    break;

  case 44: /* elif_chain: "'elif'" expr ':' block elif_chain  */
#line 424 "lang/parser.y"
                                         {
		(yyval.stmt) = mks(ctx, AST_S_IF, (yyloc));
		(yyval.stmt)->value = checked(ctx, (yyvsp[-3].expr));
		(yyval.stmt)->body = to_block((yyvsp[-1].list));
		if ((yyvsp[0].stmt)) {
			if ((yyvsp[0].stmt)->kind == AST_S_PASS && (yyvsp[0].stmt)->body.n) {
				(yyval.stmt)->orelse = (yyvsp[0].stmt)->body;
			} else {
				(yyval.stmt)->orelse.n = 1;
				(yyval.stmt)->orelse.stmts = arena_alloc(&M->arena, sizeof(struct ast_stmt *));
				(yyval.stmt)->orelse.stmts[0] = (yyvsp[0].stmt);
			}
		}
	}
#line 2345 "parser.tab.c"
    break;

  case 45: /* elif_chain: "'else'" ':' block  */
#line 438 "lang/parser.y"
                         { (yyval.stmt) = mks(ctx, AST_S_PASS, (yyloc)); (yyval.stmt)->body = to_block((yyvsp[0].list)); }
#line 2351 "parser.tab.c"
    break;

  case 46: /* else_block: %empty  */
#line 442 "lang/parser.y"
               { (yyval.list) = NULL; }
#line 2357 "parser.tab.c"
    break;

  case 47: /* else_block: "'else'" ':' block  */
#line 443 "lang/parser.y"
                         { (yyval.list) = (yyvsp[0].list); }
#line 2363 "parser.tab.c"
    break;

  case 48: /* while_stmt: "'while'" expr ':' block else_block  */
#line 447 "lang/parser.y"
                                        {
		(yyval.stmt) = mks(ctx, AST_S_WHILE, (yyloc));
		(yyval.stmt)->value = checked(ctx, (yyvsp[-3].expr));
		(yyval.stmt)->body = to_block((yyvsp[-1].list));
		(yyval.stmt)->orelse = to_block((yyvsp[0].list));
	}
#line 2374 "parser.tab.c"
    break;

  case 49: /* for_stmt: "'for'" target_list "'in'" testlist ':' block else_block  */
#line 456 "lang/parser.y"
                                                         {
		(yyval.stmt) = mks(ctx, AST_S_FOR, (yyloc));
		check_target(ctx, (yyvsp[-5].expr), true);
		(yyval.stmt)->ntargets = 1;
		(yyval.stmt)->targets = arena_alloc(&M->arena, sizeof(*(yyval.stmt)->targets));
		(yyval.stmt)->targets[0] = (yyvsp[-5].expr);
		(yyval.stmt)->value = checked(ctx, (yyvsp[-3].expr));
		(yyval.stmt)->body = to_block((yyvsp[-1].list));
		(yyval.stmt)->orelse = to_block((yyvsp[0].list));
	}
#line 2389 "parser.tab.c"
    break;

  case 50: /* decorator: "name"  */
#line 469 "lang/parser.y"
             {
		if (!strcmp((yyvsp[0].name), "iterator")) {
			(yyval.num) = AST_DEC_ITERATOR;
		} else {
			diag_error(ctx->diag, L((yylsp[0])), "unknown decorator '@%s'", (yyvsp[0].name));
			diag_note(ctx->diag, L((yylsp[0])), "the decorators are '@iterator', '@hard', '@soft' and '@correct'");
			(yyval.num) = AST_DEC_NONE;
		}
	}
#line 2403 "parser.tab.c"
    break;

  case 51: /* decorator: "'hard'"  */
#line 478 "lang/parser.y"
               { (yyval.num) = AST_DEC_HARD; }
#line 2409 "parser.tab.c"
    break;

  case 52: /* decorator: "'soft'"  */
#line 479 "lang/parser.y"
               { (yyval.num) = AST_DEC_SOFT; }
#line 2415 "parser.tab.c"
    break;

  case 53: /* decorator: "'correct'"  */
#line 480 "lang/parser.y"
                  { (yyval.num) = AST_DEC_CORRECT; }
#line 2421 "parser.tab.c"
    break;

  case 54: /* def_stmt: '@' decorator "end of line" "'def'" "name" '(' params ')' ':' block  */
#line 484 "lang/parser.y"
                                                                {
		(yyval.stmt) = mks(ctx, AST_S_DEF, (yyloc));
		(yyval.stmt)->decorator = (yyvsp[-8].num);
		(yyval.stmt)->decorator_loc = L((yylsp[-8]));
		(yyval.stmt)->name = (yyvsp[-5].name);
		(yyval.stmt)->name_loc = L((yylsp[-5]));
		(yyval.stmt)->loc = L((yylsp[-6]));
		if ((yyvsp[-3].list)) {
			(yyval.stmt)->nparams = (yyvsp[-3].list)->n;
			(yyval.stmt)->params = arena_alloc(&M->arena, sizeof(struct ast_param) * (size_t)((yyvsp[-3].list)->n ? (yyvsp[-3].list)->n : 1));
			for (int i = 0; i < (yyvsp[-3].list)->n; i++)
				(yyval.stmt)->params[i] = *(struct ast_param *)(yyvsp[-3].list)->v[i];
		}
		(yyval.stmt)->body = to_block((yyvsp[0].list));
		bool y = false;
		mark_yield_block(&(yyval.stmt)->body, &y);
		(yyval.stmt)->has_yield = y;
	}
#line 2444 "parser.tab.c"
    break;

  case 55: /* def_stmt: "'def'" "name" '(' params ')' ':' block  */
#line 502 "lang/parser.y"
                                            {
		(yyval.stmt) = mks(ctx, AST_S_DEF, (yyloc));
		(yyval.stmt)->decorator = AST_DEC_NONE;
		(yyval.stmt)->name = (yyvsp[-5].name);
		(yyval.stmt)->name_loc = L((yylsp[-5]));
		if ((yyvsp[-3].list)) {
			(yyval.stmt)->nparams = (yyvsp[-3].list)->n;
			(yyval.stmt)->params = arena_alloc(&M->arena, sizeof(struct ast_param) * (size_t)((yyvsp[-3].list)->n ? (yyvsp[-3].list)->n : 1));
			for (int i = 0; i < (yyvsp[-3].list)->n; i++)
				(yyval.stmt)->params[i] = *(struct ast_param *)(yyvsp[-3].list)->v[i];
		}
		(yyval.stmt)->body = to_block((yyvsp[0].list));
		bool y = false;
		mark_yield_block(&(yyval.stmt)->body, &y);
		(yyval.stmt)->has_yield = y;
		diag_error(ctx->diag, L((yylsp[-6])), "'def %s' needs a decorator", (yyvsp[-5].name));
		diag_note(ctx->diag, L((yylsp[-6])), "write '@iterator' for an iterator, or '@hard', '@soft' or '@correct' for a constraint");
	}
#line 2467 "parser.tab.c"
    break;

  case 56: /* params: %empty  */
#line 523 "lang/parser.y"
               { (yyval.list) = NULL; }
#line 2473 "parser.tab.c"
    break;

  case 57: /* params: param_list  */
#line 524 "lang/parser.y"
                     { (yyval.list) = (yyvsp[0].list); }
#line 2479 "parser.tab.c"
    break;

  case 58: /* params: param_list ','  */
#line 525 "lang/parser.y"
                         { (yyval.list) = (yyvsp[-1].list); }
#line 2485 "parser.tab.c"
    break;

  case 59: /* param_list: "name"  */
#line 529 "lang/parser.y"
             {
		(yyval.list) = plist_new(M);
		struct ast_param *p = arena_alloc(&M->arena, sizeof(*p));
		p->name = (yyvsp[0].name); p->loc = L((yylsp[0]));
		plist_push(M, (yyval.list), p);
	}
#line 2496 "parser.tab.c"
    break;

  case 60: /* param_list: param_list ',' "name"  */
#line 535 "lang/parser.y"
                              {
		(yyval.list) = (yyvsp[-2].list);
		struct ast_param *p = arena_alloc(&M->arena, sizeof(*p));
		p->name = (yyvsp[0].name); p->loc = L((yylsp[0]));
		plist_push(M, (yyval.list), p);
	}
#line 2507 "parser.tab.c"
    break;

  case 61: /* target_list: primary  */
#line 545 "lang/parser.y"
                { (yyval.expr) = (yyvsp[0].expr); }
#line 2513 "parser.tab.c"
    break;

  case 62: /* target_list: primary ','  */
#line 546 "lang/parser.y"
                      { struct plist *l = plist_new(M); plist_push(M, l, (yyvsp[-1].expr)); (yyval.expr) = from_list(ctx, AST_TUPLE, l, (yyloc)); }
#line 2519 "parser.tab.c"
    break;

  case 63: /* target_list: target_items  */
#line 547 "lang/parser.y"
                       { (yyval.expr) = from_list(ctx, AST_TUPLE, (yyvsp[0].list), (yyloc)); }
#line 2525 "parser.tab.c"
    break;

  case 64: /* target_list: target_items ','  */
#line 548 "lang/parser.y"
                           { (yyval.expr) = from_list(ctx, AST_TUPLE, (yyvsp[-1].list), (yyloc)); }
#line 2531 "parser.tab.c"
    break;

  case 65: /* target_items: primary ',' primary  */
#line 552 "lang/parser.y"
                            { (yyval.list) = plist_new(M); plist_push(M, (yyval.list), (yyvsp[-2].expr)); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2537 "parser.tab.c"
    break;

  case 66: /* target_items: target_items ',' primary  */
#line 553 "lang/parser.y"
                                   { (yyval.list) = (yyvsp[-2].list); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2543 "parser.tab.c"
    break;

  case 67: /* testlist: expr  */
#line 559 "lang/parser.y"
             { (yyval.expr) = (yyvsp[0].expr); }
#line 2549 "parser.tab.c"
    break;

  case 68: /* testlist: expr ','  */
#line 560 "lang/parser.y"
                   { struct plist *l = plist_new(M); plist_push(M, l, (yyvsp[-1].expr)); (yyval.expr) = from_list(ctx, AST_TUPLE, l, (yyloc)); }
#line 2555 "parser.tab.c"
    break;

  case 69: /* testlist: tuple_items  */
#line 561 "lang/parser.y"
                      { (yyval.expr) = from_list(ctx, AST_TUPLE, (yyvsp[0].list), (yyloc)); }
#line 2561 "parser.tab.c"
    break;

  case 70: /* testlist: tuple_items ','  */
#line 562 "lang/parser.y"
                          { (yyval.expr) = from_list(ctx, AST_TUPLE, (yyvsp[-1].list), (yyloc)); }
#line 2567 "parser.tab.c"
    break;

  case 71: /* tuple_items: expr ',' expr  */
#line 566 "lang/parser.y"
                      { (yyval.list) = plist_new(M); plist_push(M, (yyval.list), (yyvsp[-2].expr)); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2573 "parser.tab.c"
    break;

  case 72: /* tuple_items: tuple_items ',' expr  */
#line 567 "lang/parser.y"
                               { (yyval.list) = (yyvsp[-2].list); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2579 "parser.tab.c"
    break;

  case 73: /* expr: or_test  */
#line 571 "lang/parser.y"
                { (yyval.expr) = (yyvsp[0].expr); }
#line 2585 "parser.tab.c"
    break;

  case 74: /* expr: or_test "'if'" or_test "'else'" expr  */
#line 572 "lang/parser.y"
                                       {
		(yyval.expr) = mk(ctx, AST_COND, (yyloc));
		struct ast_expr *items[3] = { (yyvsp[-2].expr), (yyvsp[-4].expr), (yyvsp[0].expr) };
		ast_expr_set_items(M, (yyval.expr), items, 3);
	}
#line 2595 "parser.tab.c"
    break;

  case 76: /* or_test: or_test "'or'" and_test  */
#line 581 "lang/parser.y"
                              { (yyval.expr) = mkbool(ctx, AST_OR, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2601 "parser.tab.c"
    break;

  case 78: /* and_test: and_test "'and'" not_test  */
#line 586 "lang/parser.y"
                                { (yyval.expr) = mkbool(ctx, AST_AND, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2607 "parser.tab.c"
    break;

  case 80: /* not_test: "'not'" not_test  */
#line 591 "lang/parser.y"
                       { (yyval.expr) = mk2(ctx, AST_UNARY, AST_OP_NOT, (yyvsp[0].expr), NULL, (yyloc)); }
#line 2613 "parser.tab.c"
    break;

  case 82: /* comparison: comp_chain  */
#line 596 "lang/parser.y"
                     {
		(yyval.expr) = from_list(ctx, AST_COMPARE, &(yyvsp[0].chain)->exprs, (yyloc));
		(yyval.expr)->cmp = (yyvsp[0].chain)->ops;
	}
#line 2622 "parser.tab.c"
    break;

  case 83: /* comp_chain: bitor comp_op bitor  */
#line 603 "lang/parser.y"
                            {
		(yyval.chain) = arena_alloc(&M->arena, sizeof(*(yyval.chain)));
		plist_push(M, &(yyval.chain)->exprs, (yyvsp[-2].expr));
		plist_push(M, &(yyval.chain)->exprs, (yyvsp[0].expr));
		(yyval.chain)->capops = 4;
		(yyval.chain)->ops = arena_alloc(&M->arena, sizeof(enum ast_op) * 4);
		(yyval.chain)->ops[(yyval.chain)->nops++] = (yyvsp[-1].op);
	}
#line 2635 "parser.tab.c"
    break;

  case 84: /* comp_chain: comp_chain comp_op bitor  */
#line 611 "lang/parser.y"
                                   {
		(yyval.chain) = (yyvsp[-2].chain);
		plist_push(M, &(yyval.chain)->exprs, (yyvsp[0].expr));
		if ((yyval.chain)->nops == (yyval.chain)->capops) {
			enum ast_op *ops = arena_alloc(&M->arena, sizeof(enum ast_op) * (size_t)(yyval.chain)->capops * 2);
			memcpy(ops, (yyval.chain)->ops, sizeof(enum ast_op) * (size_t)(yyval.chain)->nops);
			(yyval.chain)->ops = ops;
			(yyval.chain)->capops *= 2;
		}
		(yyval.chain)->ops[(yyval.chain)->nops++] = (yyvsp[-1].op);
	}
#line 2651 "parser.tab.c"
    break;

  case 85: /* comp_op: '<'  */
#line 625 "lang/parser.y"
            { (yyval.op) = AST_OP_LT; }
#line 2657 "parser.tab.c"
    break;

  case 86: /* comp_op: '>'  */
#line 626 "lang/parser.y"
              { (yyval.op) = AST_OP_GT; }
#line 2663 "parser.tab.c"
    break;

  case 87: /* comp_op: "'<='"  */
#line 627 "lang/parser.y"
             { (yyval.op) = AST_OP_LE; }
#line 2669 "parser.tab.c"
    break;

  case 88: /* comp_op: "'>='"  */
#line 628 "lang/parser.y"
             { (yyval.op) = AST_OP_GE; }
#line 2675 "parser.tab.c"
    break;

  case 89: /* comp_op: "'=='"  */
#line 629 "lang/parser.y"
             { (yyval.op) = AST_OP_EQ; }
#line 2681 "parser.tab.c"
    break;

  case 90: /* comp_op: "'!='"  */
#line 630 "lang/parser.y"
             { (yyval.op) = AST_OP_NE; }
#line 2687 "parser.tab.c"
    break;

  case 91: /* comp_op: "'in'"  */
#line 631 "lang/parser.y"
             { (yyval.op) = AST_OP_IN; }
#line 2693 "parser.tab.c"
    break;

  case 92: /* comp_op: "'not'" "'in'"  */
#line 632 "lang/parser.y"
                 { (yyval.op) = AST_OP_NOT_IN; }
#line 2699 "parser.tab.c"
    break;

  case 94: /* bitor: bitor '|' bitxor  */
#line 637 "lang/parser.y"
                           { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_BITOR, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2705 "parser.tab.c"
    break;

  case 96: /* bitxor: bitxor '^' bitand  */
#line 642 "lang/parser.y"
                            { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_BITXOR, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2711 "parser.tab.c"
    break;

  case 98: /* bitand: bitand '&' shift  */
#line 647 "lang/parser.y"
                           { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_BITAND, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2717 "parser.tab.c"
    break;

  case 100: /* shift: shift "'<<'" arith  */
#line 652 "lang/parser.y"
                             { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_LSHIFT, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2723 "parser.tab.c"
    break;

  case 101: /* shift: shift "'>>'" arith  */
#line 653 "lang/parser.y"
                             { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_RSHIFT, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2729 "parser.tab.c"
    break;

  case 103: /* arith: arith '+' term  */
#line 658 "lang/parser.y"
                         { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_ADD, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2735 "parser.tab.c"
    break;

  case 104: /* arith: arith '-' term  */
#line 659 "lang/parser.y"
                         { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_SUB, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2741 "parser.tab.c"
    break;

  case 106: /* term: term '*' factor  */
#line 664 "lang/parser.y"
                          { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_MUL, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2747 "parser.tab.c"
    break;

  case 107: /* term: term '/' factor  */
#line 665 "lang/parser.y"
                          { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_DIV, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2753 "parser.tab.c"
    break;

  case 108: /* term: term "'//'" factor  */
#line 666 "lang/parser.y"
                               { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_FLOORDIV, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2759 "parser.tab.c"
    break;

  case 109: /* term: term '%' factor  */
#line 667 "lang/parser.y"
                          { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_MOD, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2765 "parser.tab.c"
    break;

  case 111: /* factor: '-' factor  */
#line 672 "lang/parser.y"
                     { (yyval.expr) = mk2(ctx, AST_UNARY, AST_OP_NEG, (yyvsp[0].expr), NULL, (yyloc)); }
#line 2771 "parser.tab.c"
    break;

  case 112: /* factor: '+' factor  */
#line 673 "lang/parser.y"
                     { (yyval.expr) = mk2(ctx, AST_UNARY, AST_OP_POS, (yyvsp[0].expr), NULL, (yyloc)); }
#line 2777 "parser.tab.c"
    break;

  case 113: /* factor: '~' factor  */
#line 674 "lang/parser.y"
                     { (yyval.expr) = mk2(ctx, AST_UNARY, AST_OP_INVERT, (yyvsp[0].expr), NULL, (yyloc)); }
#line 2783 "parser.tab.c"
    break;

  case 115: /* power: primary "'**'" factor  */
#line 680 "lang/parser.y"
                             { (yyval.expr) = mk2(ctx, AST_BINARY, AST_OP_POW, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc)); }
#line 2789 "parser.tab.c"
    break;

  case 117: /* primary: primary '(' args ')'  */
#line 685 "lang/parser.y"
                               {
		(yyval.expr) = mk(ctx, AST_CALL, (yyloc));
		int n = (yyvsp[-1].list) ? (yyvsp[-1].list)->n : 0;
		struct ast_expr **items = arena_alloc(&M->arena, sizeof(*items) * (size_t)(n + 1));
		items[0] = (yyvsp[-3].expr);
		for (int i = 0; i < n; i++)
			items[i + 1] = (yyvsp[-1].list)->v[i];
		(yyval.expr)->items = items;
		(yyval.expr)->nitems = n + 1;
	}
#line 2804 "parser.tab.c"
    break;

  case 118: /* primary: primary '[' expr ']'  */
#line 695 "lang/parser.y"
                               { (yyval.expr) = mk2(ctx, AST_INDEX, 0, (yyvsp[-3].expr), (yyvsp[-1].expr), (yyloc)); }
#line 2810 "parser.tab.c"
    break;

  case 119: /* primary: primary '.' "name"  */
#line 696 "lang/parser.y"
                           { (yyval.expr) = mk2(ctx, AST_ATTR, 0, (yyvsp[-2].expr), NULL, (yyloc)); (yyval.expr)->name = (yyvsp[0].name); }
#line 2816 "parser.tab.c"
    break;

  case 120: /* args: %empty  */
#line 700 "lang/parser.y"
               { (yyval.list) = NULL; }
#line 2822 "parser.tab.c"
    break;

  case 121: /* args: arglist  */
#line 701 "lang/parser.y"
                  { (yyval.list) = (yyvsp[0].list); }
#line 2828 "parser.tab.c"
    break;

  case 122: /* args: arglist ','  */
#line 702 "lang/parser.y"
                      { (yyval.list) = (yyvsp[-1].list); }
#line 2834 "parser.tab.c"
    break;

  case 123: /* arglist: expr  */
#line 706 "lang/parser.y"
             { (yyval.list) = plist_new(M); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2840 "parser.tab.c"
    break;

  case 124: /* arglist: arglist ',' expr  */
#line 707 "lang/parser.y"
                           { (yyval.list) = (yyvsp[-2].list); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2846 "parser.tab.c"
    break;

  case 125: /* atom: "name"  */
#line 711 "lang/parser.y"
             { (yyval.expr) = mk(ctx, AST_NAME, (yyloc)); (yyval.expr)->name = (yyvsp[0].name); }
#line 2852 "parser.tab.c"
    break;

  case 126: /* atom: "integer"  */
#line 712 "lang/parser.y"
              { (yyval.expr) = mk(ctx, AST_INT, (yyloc)); (yyval.expr)->ival = (yyvsp[0].ival); }
#line 2858 "parser.tab.c"
    break;

  case 127: /* atom: "float"  */
#line 713 "lang/parser.y"
                { (yyval.expr) = mk(ctx, AST_FLOAT, (yyloc)); (yyval.expr)->fval = (yyvsp[0].fval); }
#line 2864 "parser.tab.c"
    break;

  case 128: /* atom: "string"  */
#line 714 "lang/parser.y"
                 { (yyval.expr) = mk(ctx, AST_STR, (yyloc)); (yyval.expr)->sval = (yyvsp[0].name); }
#line 2870 "parser.tab.c"
    break;

  case 129: /* atom: atom "string"  */
#line 715 "lang/parser.y"
                      {
		/* Adjacent string literals concatenate, as in Python. */
		if ((yyvsp[-1].expr)->kind != AST_STR) {
			diag_error(ctx->diag, L((yylsp[0])), "unexpected string after an expression");
			(yyval.expr) = (yyvsp[-1].expr);
		} else {
			char *s = arena_printf(&M->arena, "%s%s", (yyvsp[-1].expr)->sval, (yyvsp[0].name));
			(yyval.expr) = mk(ctx, AST_STR, (yyloc));
			(yyval.expr)->sval = ast_intern(M, s, strlen(s));
		}
	}
#line 2886 "parser.tab.c"
    break;

  case 130: /* atom: "'True'"  */
#line 726 "lang/parser.y"
               { (yyval.expr) = mk(ctx, AST_BOOL, (yyloc)); (yyval.expr)->ival = 1; }
#line 2892 "parser.tab.c"
    break;

  case 131: /* atom: "'False'"  */
#line 727 "lang/parser.y"
                { (yyval.expr) = mk(ctx, AST_BOOL, (yyloc)); (yyval.expr)->ival = 0; }
#line 2898 "parser.tab.c"
    break;

  case 132: /* atom: "'None'"  */
#line 728 "lang/parser.y"
               { (yyval.expr) = mk(ctx, AST_NONE, (yyloc)); }
#line 2904 "parser.tab.c"
    break;

  case 133: /* atom: '(' testlist ')'  */
#line 729 "lang/parser.y"
                           { (yyval.expr) = (yyvsp[-1].expr); (yyval.expr)->loc = L((yyloc)); }
#line 2910 "parser.tab.c"
    break;

  case 134: /* atom: '[' ']'  */
#line 730 "lang/parser.y"
                  { (yyval.expr) = mk(ctx, AST_LIST, (yyloc)); }
#line 2916 "parser.tab.c"
    break;

  case 135: /* atom: '[' list_items ']'  */
#line 731 "lang/parser.y"
                             { (yyval.expr) = from_list(ctx, AST_LIST, (yyvsp[-1].list), (yyloc)); }
#line 2922 "parser.tab.c"
    break;

  case 136: /* atom: '[' list_items ',' ']'  */
#line 732 "lang/parser.y"
                                 { (yyval.expr) = from_list(ctx, AST_LIST, (yyvsp[-2].list), (yyloc)); }
#line 2928 "parser.tab.c"
    break;

  case 137: /* list_items: expr  */
#line 736 "lang/parser.y"
             { (yyval.list) = plist_new(M); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2934 "parser.tab.c"
    break;

  case 138: /* list_items: list_items ',' expr  */
#line 737 "lang/parser.y"
                              { (yyval.list) = (yyvsp[-2].list); plist_push(M, (yyval.list), (yyvsp[0].expr)); }
#line 2940 "parser.tab.c"
    break;


#line 2944 "parser.tab.c"

        default: break;
      }
    if (yychar_backup != yychar)
      YY_LAC_DISCARD ("yychar change");
  }
  /* User semantic actions sometimes alter yychar, and that requires
     that yytoken be updated with the new translation.  We take the
     approach of translating immediately before every use of yytoken.
     One alternative is translating here after every semantic action,
     but that translation would be missed if the semantic action invokes
     YYABORT, YYACCEPT, or YYERROR immediately after altering yychar or
     if it invokes YYBACKUP.  In the case of YYABORT or YYACCEPT, an
     incorrect destructor might then be invoked immediately.  In the
     case of YYERROR or YYBACKUP, subsequent parser actions might lead
     to an incorrect destructor call or verbose syntax error message
     before the lookahead is translated.  */
  YY_SYMBOL_PRINT ("-> $$ =", YY_CAST (yysymbol_kind_t, yyr1[yyn]), &yyval, &yyloc);

  YYPOPSTACK (yylen);
  yylen = 0;

  *++yyvsp = yyval;
  *++yylsp = yyloc;

  /* Now 'shift' the result of the reduction.  Determine what state
     that goes to, based on the state we popped back to and the rule
     number reduced by.  */
  {
    const int yylhs = yyr1[yyn] - YYNTOKENS;
    const int yyi = yypgoto[yylhs] + *yyssp;
    yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyssp
               ? yytable[yyi]
               : yydefgoto[yylhs]);
  }

  goto yynewstate;


/*--------------------------------------.
| yyerrlab -- here on detecting error.  |
`--------------------------------------*/
yyerrlab:
  /* Make sure we have latest lookahead translation.  See comments at
     user semantic actions for why this is necessary.  */
  yytoken = yychar == TOK_YYEMPTY ? YYSYMBOL_YYEMPTY : YYTRANSLATE (yychar);
  /* If not already recovering from an error, report this error.  */
  if (!yyerrstatus)
    {
      ++yynerrs;
      {
        yypcontext_t yyctx
          = {yyssp, yyesa, &yyes, &yyes_capacity, yytoken, &yylloc};
        if (yychar != TOK_YYEMPTY)
          YY_LAC_ESTABLISH;
        if (yyreport_syntax_error (&yyctx, scanner, ctx) == 2)
          YYNOMEM;
      }
    }

  yyerror_range[1] = yylloc;
  if (yyerrstatus == 3)
    {
      /* If just tried and failed to reuse lookahead token after an
         error, discard it.  */

      if (yychar <= TOK_YYEOF)
        {
          /* Return failure if at end of input.  */
          if (yychar == TOK_YYEOF)
            YYABORT;
        }
      else
        {
          yydestruct ("Error: discarding",
                      yytoken, &yylval, &yylloc, scanner, ctx);
          yychar = TOK_YYEMPTY;
        }
    }

  /* Else will try to reuse lookahead token after shifting the error
     token.  */
  goto yyerrlab1;


/*---------------------------------------------------.
| yyerrorlab -- error raised explicitly by YYERROR.  |
`---------------------------------------------------*/
yyerrorlab:
  /* Pacify compilers when the user code never invokes YYERROR and the
     label yyerrorlab therefore never appears in user code.  */
  if (0)
    YYERROR;
  ++yynerrs;

  /* Do not reclaim the symbols of the rule whose action triggered
     this YYERROR.  */
  YYPOPSTACK (yylen);
  yylen = 0;
  YY_STACK_PRINT (yyss, yyssp);
  yystate = *yyssp;
  goto yyerrlab1;


/*-------------------------------------------------------------.
| yyerrlab1 -- common code for both syntax error and YYERROR.  |
`-------------------------------------------------------------*/
yyerrlab1:
  yyerrstatus = 3;      /* Each real token shifted decrements this.  */

  /* Pop stack until we find a state that shifts the error token.  */
  for (;;)
    {
      yyn = yypact[yystate];
      if (!yypact_value_is_default (yyn))
        {
          yyn += YYSYMBOL_YYerror;
          if (0 <= yyn && yyn <= YYLAST && yycheck[yyn] == YYSYMBOL_YYerror)
            {
              yyn = yytable[yyn];
              if (0 < yyn)
                break;
            }
        }

      /* Pop the current state because it cannot handle the error token.  */
      if (yyssp == yyss)
        YYABORT;

      yyerror_range[1] = *yylsp;
      yydestruct ("Error: popping",
                  YY_ACCESSING_SYMBOL (yystate), yyvsp, yylsp, scanner, ctx);
      YYPOPSTACK (1);
      yystate = *yyssp;
      YY_STACK_PRINT (yyss, yyssp);
    }

  /* If the stack popping above didn't lose the initial context for the
     current lookahead token, the shift below will for sure.  */
  YY_LAC_DISCARD ("error recovery");

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END

  yyerror_range[2] = yylloc;
  ++yylsp;
  YYLLOC_DEFAULT (*yylsp, yyerror_range, 2);

  /* Shift the error token.  */
  YY_SYMBOL_PRINT ("Shifting", YY_ACCESSING_SYMBOL (yyn), yyvsp, yylsp);

  yystate = yyn;
  goto yynewstate;


/*-------------------------------------.
| yyacceptlab -- YYACCEPT comes here.  |
`-------------------------------------*/
yyacceptlab:
  yyresult = 0;
  goto yyreturnlab;


/*-----------------------------------.
| yyabortlab -- YYABORT comes here.  |
`-----------------------------------*/
yyabortlab:
  yyresult = 1;
  goto yyreturnlab;


/*-----------------------------------------------------------.
| yyexhaustedlab -- YYNOMEM (memory exhaustion) comes here.  |
`-----------------------------------------------------------*/
yyexhaustedlab:
  yyerror (&yylloc, scanner, ctx, YY_("memory exhausted"));
  yyresult = 2;
  goto yyreturnlab;


/*----------------------------------------------------------.
| yyreturnlab -- parsing is finished, clean up and return.  |
`----------------------------------------------------------*/
yyreturnlab:
  if (yychar != TOK_YYEMPTY)
    {
      /* Make sure we have latest lookahead translation.  See comments at
         user semantic actions for why this is necessary.  */
      yytoken = YYTRANSLATE (yychar);
      yydestruct ("Cleanup: discarding lookahead",
                  yytoken, &yylval, &yylloc, scanner, ctx);
    }
  /* Do not reclaim the symbols of the rule whose action triggered
     this YYABORT or YYACCEPT.  */
  YYPOPSTACK (yylen);
  YY_STACK_PRINT (yyss, yyssp);
  while (yyssp != yyss)
    {
      yydestruct ("Cleanup: popping",
                  YY_ACCESSING_SYMBOL (+*yyssp), yyvsp, yylsp, scanner, ctx);
      YYPOPSTACK (1);
    }
#ifndef yyoverflow
  if (yyss != yyssa)
    YYSTACK_FREE (yyss);
#endif
  if (yyes != yyesa)
    YYSTACK_FREE (yyes);

  return yyresult;
}

#line 740 "lang/parser.y"


static int yyreport_syntax_error(const yypcontext_t *pctx, yyscan_t scanner,
				 struct parse_ctx *ctx)
{
	(void)scanner;
	enum { MAX_EXPECTED = 6 };
	yysymbol_kind_t expected[MAX_EXPECTED];
	int n = yypcontext_expected_tokens(pctx, expected, MAX_EXPECTED);
	yysymbol_kind_t got = yypcontext_token(pctx);
	const YYLTYPE *loc = yypcontext_location(pctx);
	char msg[512];
	size_t len = 0;
	if (got == YYSYMBOL_INDENT)
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected indent");
	else if (got == YYSYMBOL_DEDENT)
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected unindent");
	else
		len = (size_t)snprintf(msg, sizeof(msg), "syntax error, unexpected %s",
				       got == YYSYMBOL_YYEMPTY ? "end of file" : yysymbol_name(got));
	if (n > 0 && len < sizeof(msg)) {
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, ", expected ");
		for (int i = 0; i < n && len < sizeof(msg); i++)
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s",
						i == 0 ? "" : i == n - 1 ? " or " : ", ",
						yysymbol_name(expected[i]));
	}
	struct srcloc l = { loc->first_line, loc->first_column, loc->last_line, loc->last_column };
	diag_error(ctx->diag, l, "%s", msg);
	return 0;
}

/* Defined in lexer.l. */
int spc_yylex_init_extra(struct lex_state *st, yyscan_t *scanner);
int spc_yylex_destroy(yyscan_t scanner);
struct yy_buffer_state *spc_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);

int parse_source(struct ast_module *mod, struct diag *diag, const char *src, size_t len)
{
	struct lex_state st;
	memset(&st, 0, sizeof(st));
	st.mod = mod;
	st.diag = diag;
	st.src = src;
	st.src_len = len;
	st.line = 1;
	st.col = 1;
	st.nindents = 1;
	int errors_before = diag->errors;
	if (len > (size_t)INT32_MAX / 2) {
		struct srcloc none = { 0, 0, 0, 0 };
		diag_error(diag, none, "file too large");
		return diag->errors - errors_before;
	}
	yyscan_t scanner;
	if (spc_yylex_init_extra(&st, &scanner)) {
		struct srcloc none = { 0, 0, 0, 0 };
		diag_error(diag, none, "cannot start the scanner");
		return 1;
	}
	spc_yy_scan_bytes(src, (int)len, scanner);
	lex_start(scanner);
	struct parse_ctx ctx = { mod, diag };
	int rc = yyparse(scanner, &ctx);
	if (rc == 2) {
		struct srcloc none = { 0, 0, 0, 0 };
		diag_error(diag, none, "out of memory while parsing (nesting too deep?)");
	}
	spc_yylex_destroy(scanner);
	free(st.strbuf);
	int errs = diag->errors - errors_before;
	if (rc != 0 && errs == 0)
		errs = 1;
	return errs;
}

char *parse_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}
