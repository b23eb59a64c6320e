/*
 * kopt.c - the kernel optimizer (kopt.h): libclang parses the kernel,
 * the tree is flattened into `struct node`s carrying byte extents, and
 * each variant's source is the original text re-emitted with the
 * annotated constructs rewritten.  No C is parsed here: operators, types
 * and references all come from clang's cursors and tokens.
 *
 * Legality is proved by sufficient syntactic rules (docs/TUNING.md lists
 * them per transformation); whatever they cannot show safe is rejected
 * with a located error rather than transformed.
 */
#define _GNU_SOURCE /* vasprintf */

#include "optimizer/kopt.h"

#include <clang-c/Index.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"

/* ---- the flattened tree ------------------------------------------------------------ */

struct node {
	enum CXCursorKind kind;
	unsigned b, e;          /* byte extent in the source (expansion locations) */
	int parent, first, next, nkids;
	unsigned decl;          /* references: the declaration's name offset + 1; 0: elsewhere */
	unsigned at;            /* declarations: the offset of the name */
	char *name;             /* the cursor's spelling */
	char *type;             /* its type, address-space and const words removed */
	char op[8];             /* operators: the operator token */
	bool has_ival;
	long long ival;         /* integer literals */
	bool macro;             /* comes from a macro expansion */
	bool is_const;          /* declarations: the type is const-qualified */
	bool is_local;          /* the type is in the __local address space */
};

/* An affine index: sum of c * a * b over atoms a, b (-1: none).  Atoms
 * are declarations (node indices) or ATOM_GID + d for get_global_id(d). */
enum { ATOM_GID = -10, MAX_TERMS = 24 };
struct term {
	long long c;
	int a, b;
};
struct poly {
	int n;
	struct term t[MAX_TERMS];
};

/* One access of a locally cached array: its offsets from the work-item's
 * global index, per dimension. */
struct access {
	int node;               /* the ArraySubscriptExpr */
	struct poly off[2];
	bool rows;              /* KOPT_VLOAD: the index follows get_global_id(1) too */
	int tile;               /* KOPT_VLOAD: the tile that stages its array, or -1 */
};

/* One annotation. */
struct pragma {
	enum kopt_kind kind;
	unsigned b, e;          /* the pragma line, newline included */
	int line, col;
	char *params[2];
	int nparams;
	long long *vals;
	int nvals;
	double tolerance;
	int number;
	int target;             /* the ForStmt, or the FunctionDecl */
	char *array;            /* KOPT_LOCAL; KOPT_TILE: "A,B" */
	/* loops */
	int var;                /* the loop variable's VarDecl */
	int init, bound, body;  /* nodes */
	bool le;                /* condition `<=` rather than `<` */
	bool jam;               /* KOPT_COARSEN `jam`: the items' copies of the body's loop fused */
	int loop;               /* KOPT_COARSEN `jam`: the body's one top-level for loop */
	long long step, trip;   /* trip < 0: unknown */
	int inner;              /* KOPT_UNROLL_JAM: the inner loop */
	char *elem;             /* KOPT_VECTOR / KOPT_LOCAL: the element type */
	/* KOPT_LOCAL */
	int param_index;        /* the array's position among the kernel's arguments */
	int dims;
	long long lo[2], hi[2]; /* the offsets' range per dimension */
	int pitch;              /* 2-D: the row pitch parameter's ParmDecl */
	struct access *acc;     /* the cached array's accesses */
	int nacc;
	/* KOPT_TILE: per array (names split from `array`), its kernel
	 * argument, element type, the dimension of the NDRange its rows
	 * follow (1: A[gid1 * K + k], a row per work-group row; 0: a column
	 * per work-group column; -1: neither, one tile for all), and the
	 * first access in the loop (the index whose text the load uses) */
	int ntiles;
	struct tile {
		char *name, *elem;
		int dim, index;
	} *tiles;
};

struct kopt {
	char *src;
	size_t len;
	char *filename;
	struct diag diag;
	struct node *n;
	int nn, cap;
	struct pragma *p;
	int np;
	char *space;
	char *kernel;           /* the kernel's name */
	int func;               /* the kernel's FunctionDecl, -1 if none */
	int tile_var;           /* while checking a tile: its loop variable, an atom of poly_of */
};

static int kid(const struct kopt *k, int n, int i)
{
	int c = k->n[n].first;
	while (c >= 0 && i-- > 0)
		c = k->n[c].next;
	return c;
}

/* Through implicit casts and parentheses to the expression that matters. */
static int strip(const struct kopt *k, int n)
{
	while (n >= 0 && (k->n[n].kind == CXCursor_UnexposedExpr || k->n[n].kind == CXCursor_ParenExpr) &&
	       k->n[n].nkids == 1)
		n = k->n[n].first;
	return n;
}

static bool within(const struct kopt *k, int n, int ancestor)
{
	for (; n >= 0; n = k->n[n].parent)
		if (n == ancestor)
			return true;
	return false;
}

static char *xstrndup_local(const char *s, size_t n)
{
	char *r = xmalloc(n + 1);
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

static char *cx_dup(CXString s)
{
	const char *c = clang_getCString(s);
	char *r = xstrdup(c ? c : "");
	clang_disposeString(s);
	return r;
}

/* "const __global float *__private" -> "float *": what a declaration of a copy would say. */
static char *plain_type(const char *t, bool *is_const)
{
	static const char *const drop[] = { "__private", "__global", "__local", "__constant", "private",
					    "global", "local", "constant", "const", "volatile", "restrict",
					    "__restrict", NULL };
	char *r = xmalloc(strlen(t) + 1);
	size_t n = 0;
	*is_const = false;
	for (const char *s = t; *s;) {
		if (isalpha((unsigned char)*s) || *s == '_') {
			const char *w = s;
			while (isalnum((unsigned char)*s) || *s == '_')
				s++;
			bool gone = false;
			for (int i = 0; drop[i]; i++)
				if ((size_t)(s - w) == strlen(drop[i]) && !strncmp(w, drop[i], (size_t)(s - w))) {
					gone = true;
					if (!strcmp(drop[i], "const") && !strchr(s, '*'))
						*is_const = true;
				}
			if (!gone) {
				if (n && r[n - 1] != ' ' && r[n - 1] != '*')
					r[n++] = ' ';
				memcpy(r + n, w, (size_t)(s - w));
				n += (size_t)(s - w);
			}
			continue;
		}
		if (*s == '*') {
			if (n && r[n - 1] != ' ')
				r[n++] = ' ';
			r[n++] = '*';
		}
		s++;
	}
	while (n && r[n - 1] == ' ')
		n--;
	r[n] = 0;
	return r;
}

struct build {
	struct kopt *k;
	CXTranslationUnit tu;
	CXFile file;
	CXToken *toks;
	unsigned ntoks;
	int parent;
};

static bool offset_of(struct build *B, CXSourceLocation l, unsigned *off, bool *macro)
{
	CXFile f, sf;
	unsigned line, col, o, so;
	clang_getExpansionLocation(l, &f, &line, &col, &o);
	if (!f || !clang_File_isEqual(f, B->file))
		return false;
	clang_getSpellingLocation(l, &sf, &line, &col, &so);
	if (macro)
		*macro = !sf || !clang_File_isEqual(sf, B->file) || so != o;
	*off = o;
	return true;
}

/* The first token starting at or after `off`; ntoks if none. */
static unsigned tok_at(struct build *B, unsigned off)
{
	unsigned lo = 0, hi = B->ntoks;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		unsigned o;
		if (!offset_of(B, clang_getTokenLocation(B->tu, B->toks[mid]), &o, NULL))
			o = 0;
		if (o < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void tok_text(struct build *B, unsigned t, char *buf, size_t n)
{
	buf[0] = 0;
	if (t >= B->ntoks)
		return;
	CXString s = clang_getTokenSpelling(B->tu, B->toks[t]);
	snprintf(buf, n, "%s", clang_getCString(s));
	clang_disposeString(s);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data);

static int add_node(struct build *B, CXCursor c)
{
	struct kopt *k = B->k;
	CXSourceRange r = clang_getCursorExtent(c);
	unsigned b, e;
	bool macro = false, m2 = false;
	if (!offset_of(B, clang_getRangeStart(r), &b, &macro) || !offset_of(B, clang_getRangeEnd(r), &e, &m2))
		return -1;
	if (e < b || e > k->len)
		return -1;
	if (k->nn == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->n = xrealloc(k->n, (size_t)k->cap * sizeof(*k->n));
	}
	int i = k->nn++;
	struct node *n = &k->n[i];
	memset(n, 0, sizeof(*n));
	n->kind = clang_getCursorKind(c);
	n->b = b;
	n->e = e;
	n->macro = macro || m2;
	n->parent = B->parent;
	n->first = n->next = -1;
	n->name = cx_dup(clang_getCursorSpelling(c));
	char *t = cx_dup(clang_getTypeSpelling(clang_getCursorType(c)));
	n->type = plain_type(t, &n->is_const);
	n->is_local = strstr(t, "__local") != NULL;
	free(t);
	if (clang_isDeclaration(n->kind))
		offset_of(B, clang_getCursorLocation(c), &n->at, NULL);
	if (n->kind == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(c);
		unsigned o;
		if (!clang_Cursor_isNull(d) && offset_of(B, clang_getCursorLocation(d), &o, NULL))
			n->decl = o + 1;
	}
	if (n->kind == CXCursor_IntegerLiteral) {
		CXEvalResult ev = clang_Cursor_Evaluate(c);
		if (ev && clang_EvalResult_getKind(ev) == CXEval_Int) {
			n->has_ival = true;
			n->ival = clang_EvalResult_getAsLongLong(ev);
		}
		if (ev)
			clang_EvalResult_dispose(ev);
	}
	if (n->kind == CXCursor_BinaryOperator || n->kind == CXCursor_CompoundAssignOperator ||
	    n->kind == CXCursor_UnaryOperator)
		n->op[0] = 1; /* filled once the children are known */
	/* Link as the parent's last child. */
	if (B->parent >= 0) {
		struct node *p = &k->n[B->parent];
		p->nkids++;
		if (p->first < 0)
			p->first = i;
		else {
			int c2 = p->first;
			while (k->n[c2].next >= 0)
				c2 = k->n[c2].next;
			k->n[c2].next = i;
		}
	}
	return i;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct build *B = data;
	int i = add_node(B, c);
	if (i < 0)
		return CXChildVisit_Continue;
	int saved = B->parent;
	B->parent = i;
	clang_visitChildren(c, visit, B);
	B->parent = saved;
	return CXChildVisit_Continue;
}

/* Operator tokens: a binary operator sits right after its left operand;
 * a unary one is the first token, or the last for a postfix ++/--. */
static void fill_ops(struct build *B)
{
	struct kopt *k = B->k;
	for (int i = 0; i < k->nn; i++) {
		struct node *n = &k->n[i];
		if (!n->op[0])
			continue;
		char t[8];
		if (n->kind == CXCursor_UnaryOperator) {
			tok_text(B, tok_at(B, n->b), t, sizeof(t));
			if (isalnum((unsigned char)t[0]) || t[0] == '_' || t[0] == '(') {
				/* postfix: the last token of the extent */
				unsigned j = tok_at(B, n->e);
				tok_text(B, j ? j - 1 : 0, t, sizeof(t));
				snprintf(n->op, sizeof(n->op), "%c%s", 'p', t[0] == '+' ? "++" : "--");
				continue;
			}
		} else {
			int l = n->first;
			if (l < 0) {
				n->op[0] = 0;
				continue;
			}
			tok_text(B, tok_at(B, k->n[l].e), t, sizeof(t));
		}
		snprintf(n->op, sizeof(n->op), "%s", t);
	}
}

/* ---- diagnostics ----------------------------------------------------------------- */

static struct srcloc loc_of(const struct kopt *k, unsigned b, unsigned e)
{
	struct srcloc l = { 1, 1, 1, 2 };
	for (unsigned i = 0; i < b && i < k->len; i++) {
		if (k->src[i] == '\n') {
			l.line++;
			l.col = 1;
		} else
			l.col++;
	}
	l.end_line = l.line;
	l.end_col = l.col + 1;
	for (unsigned i = b; i < e && i < k->len && k->src[i] != '\n'; i++)
		l.end_col = l.col + (int)(i - b) + 1;
	return l;
}

__attribute__((format(printf, 3, 4)))
static int err_at(struct kopt *k, int node, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct srcloc l = loc_of(k, k->n[node].b, k->n[node].e);
	diag_error(&k->diag, l, "%s", msg);
	return 1;
}

__attribute__((format(printf, 4, 5)))
static int err_off(struct kopt *k, unsigned b, unsigned e, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error(&k->diag, loc_of(k, b, e), "%s", msg);
	return 1;
}

/* ---- facts about the code -------------------------------------------------------- */

static int find_decl(const struct kopt *k, unsigned decl)
{
	for (int i = 0; decl && i < k->nn; i++)
		if ((k->n[i].kind == CXCursor_VarDecl || k->n[i].kind == CXCursor_ParmDecl) && k->n[i].at + 1 == decl)
			return i;
	return -1;
}

/* Does this reference write its variable (x = , x += , ++x, x++, &x)? */
static bool writes(const struct kopt *k, int ref)
{
	int c = ref, p = k->n[ref].parent;
	while (p >= 0 && k->n[p].kind == CXCursor_ParenExpr) {
		c = p;
		p = k->n[p].parent;
	}
	if (p < 0)
		return false;
	const struct node *P = &k->n[p];
	if (P->kind == CXCursor_UnaryOperator)
		return !strcmp(P->op, "++") || !strcmp(P->op, "--") || !strcmp(P->op, "p++") ||
		       !strcmp(P->op, "p--") || !strcmp(P->op, "&");
	if (P->kind == CXCursor_CompoundAssignOperator)
		return P->first == c;
	if (P->kind == CXCursor_BinaryOperator)
		return P->first == c && !strcmp(P->op, "=");
	return false;
}

/* The array subscript `X[...]` whose array is the reference i, or -1 when
 * X is used otherwise. */
static int subscript_of(const struct kopt *k, int i)
{
	int sub = k->n[i].parent;
	while (sub >= 0 && k->n[sub].kind == CXCursor_UnexposedExpr)
		sub = k->n[sub].parent;
	return sub >= 0 && k->n[sub].kind == CXCursor_ArraySubscriptExpr && within(k, i, k->n[sub].first) ? sub : -1;
}

/* Is variable `decl` written anywhere in the subtree of `scope`? */
static bool written_in(const struct kopt *k, unsigned decl, int scope)
{
	for (int i = scope; i < k->nn && k->n[i].b < k->n[scope].e; i++)
		if (k->n[i].kind == CXCursor_DeclRefExpr && k->n[i].decl == decl && within(k, i, scope) &&
		    writes(k, i))
			return true;
	return false;
}

static bool is_loop(enum CXCursorKind c)
{
	return c == CXCursor_ForStmt || c == CXCursor_WhileStmt || c == CXCursor_DoStmt;
}

/* The function a node is in. */
static int func_of(const struct kopt *k, int n)
{
	while (n >= 0 && k->n[n].kind != CXCursor_FunctionDecl)
		n = k->n[n].parent;
	return n;
}

/* An integer constant: literals, macros, + - * / of those, and const
 * variables initialised with one and never written. */
static bool const_eval(const struct kopt *k, int n, long long *v)
{
	n = strip(k, n);
	if (n < 0)
		return false;
	const struct node *x = &k->n[n];
	long long a, b;
	switch (x->kind) {
	case CXCursor_IntegerLiteral:
		*v = x->ival;
		return x->has_ival;
	case CXCursor_CStyleCastExpr:
		return const_eval(k, kid(k, n, x->nkids - 1), v);
	case CXCursor_UnaryOperator:
		if (!const_eval(k, x->first, &a))
			return false;
		if (!strcmp(x->op, "-"))
			*v = -a;
		else if (!strcmp(x->op, "+"))
			*v = a;
		else
			return false;
		return true;
	case CXCursor_BinaryOperator:
		if (!const_eval(k, kid(k, n, 0), &a) || !const_eval(k, kid(k, n, 1), &b))
			return false;
		if (!strcmp(x->op, "+"))
			*v = a + b;
		else if (!strcmp(x->op, "-"))
			*v = a - b;
		else if (!strcmp(x->op, "*"))
			*v = a * b;
		else if (!strcmp(x->op, "/") && b)
			*v = a / b;
		else
			return false;
		return llabs(*v) < (1LL << 40);
	case CXCursor_DeclRefExpr: {
		int d = find_decl(k, x->decl);
		if (d < 0 || k->n[d].kind != CXCursor_VarDecl || !k->n[d].nkids)
			return false;
		int f = func_of(k, d);
		if (f >= 0 && written_in(k, x->decl, f))
			return false;
		int init = kid(k, d, k->n[d].nkids - 1);
		return k->n[init].kind != CXCursor_TypeRef && const_eval(k, init, v);
	}
	default:
		return false;
	}
}

/* ---- pragmas ---------------------------------------------------------------------- */

int kopt_has_pragmas(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '#' || (i && s[i - 1] != '\n' && !isspace((unsigned char)s[i - 1])))
			continue;
		size_t j = i + 1;
		while (j < len && (s[j] == ' ' || s[j] == '\t'))
			j++;
		if (len - j >= 6 && !strncmp(s + j, "pragma", 6)) {
			j += 6;
			while (j < len && (s[j] == ' ' || s[j] == '\t'))
				j++;
			if (len - j >= 9 && !strncmp(s + j, "spacetune", 9))
				return 1;
		}
	}
	return 0;
}

struct word {
	unsigned b, e;
	char text[64];
};

static bool is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool is_int(const char *s, long long *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (!*s || *end || errno || llabs(x) > 1000000000LL)
		return false;
	*v = x;
	return true;
}

static void add_val(struct pragma *p, long long v)
{
	p->vals = xrealloc(p->vals, (size_t)(p->nvals + 1) * sizeof(*p->vals));
	p->vals[p->nvals++] = v;
}

static const char *kind_name(enum kopt_kind k)
{
	static const char *const names[] = { "unroll", "unroll_jam", "vector", "coarsen", "local", "tile", "vload" };
	return (unsigned)k < sizeof(names) / sizeof(*names) ? names[k] : "?";
}

/*
 * #pragma spacetune KIND [ARRAY] [NAME [NAME]] [INIT END STEP] [tolerance T] [number N]
 * STEP is an integer (added) or *INTEGER (multiplied).
 */
static int parse_pragma(struct kopt *k, unsigned b, unsigned e, struct pragma *p)
{
	struct word w[24];
	int nw = 0;
	memset(p, 0, sizeof(*p));
	for (unsigned i = b; i < e;) {
		while (i < e && isspace((unsigned char)k->src[i]))
			i++;
		if (i >= e)
			break;
		unsigned s = i;
		while (i < e && !isspace((unsigned char)k->src[i]))
			i++;
		if (nw == 24)
			return err_off(k, s, i, "too many words in the pragma");
		w[nw].b = s;
		w[nw].e = i;
		snprintf(w[nw].text, sizeof(w[nw].text), "%.*s", (int)(i - s), k->src + s);
		nw++;
	}
	/* w[0] "#pragma" or "#", w[1] "spacetune" ... normalise "# pragma" */
	int i = 0;
	if (!strcmp(w[0].text, "#"))
		i = 1;
	i += 2; /* pragma spacetune */
	if (i >= nw)
		return err_off(k, b, e, "'#pragma spacetune' needs a transformation: unroll, unroll_jam, vector, coarsen, "
			       "local, tile or vload");
	p->target = p->var = p->init = p->bound = p->body = p->inner = p->pitch = -1;
	p->tolerance = -1;
	p->b = b;
	struct srcloc l = loc_of(k, b, b + 1);
	p->line = l.line;
	p->col = l.col;
	const char *kinds[] = { "unroll", "unroll_jam", "vector", "coarsen", "local", "tile", "vload" };
	int kind = -1;
	for (int j = 0; j < 7; j++)
		if (!strcmp(w[i].text, kinds[j]))
			kind = j;
	if (kind < 0)
		return err_off(k, w[i].b, w[i].e,
			       "unknown transformation '%s'; expected unroll, unroll_jam, vector, coarsen, local, tile or vload",
			       w[i].text);
	p->kind = (enum kopt_kind)kind;
	i++;
	if (p->kind == KOPT_LOCAL) {
		if (i >= nw || !is_ident(w[i].text))
			return err_off(k, w[i - 1].b, w[i - 1].e, "'local' needs the name of the array to cache");
		p->array = xstrdup(w[i++].text);
	}
	if (p->kind == KOPT_TILE || p->kind == KOPT_VLOAD) {
		/* tile A,B: the arrays, comma-separated without blanks */
		bool names = i < nw;
		for (char *t = i < nw ? w[i].text : NULL, *c; names && t; t = c ? c + 1 : NULL) {
			c = strchr(t, ',');
			char one[64];
			snprintf(one, sizeof(one), "%.*s", (int)(c ? c - t : (long)strlen(t)), t);
			names = is_ident(one);
		}
		if (!names)
			return err_off(k, w[i - (i < nw ? 0 : 1)].b, w[i - (i < nw ? 0 : 1)].e,
				       "'%s' needs the arrays, separated by commas: %s A,B", kind_name(p->kind),
				       kind_name(p->kind));
		p->array = xstrdup(w[i++].text);
	}
	int maxnames = p->kind == KOPT_COARSEN || p->kind == KOPT_LOCAL ? 2 : 1;
	while (i < nw && is_ident(w[i].text) && strcmp(w[i].text, "tolerance") && strcmp(w[i].text, "number") &&
	       strcmp(w[i].text, "jam")) {
		if (p->nparams == maxnames)
			return err_off(k, w[i].b, w[i].e, "'%s' takes at most %d parameter name%s", kind_name(p->kind),
				       maxnames, maxnames > 1 ? "s" : "");
		p->params[p->nparams++] = xstrdup(w[i++].text);
	}
	long long r[3];
	bool mul = false;
	int nr = 0;
	while (i < nw && nr < 3 && strcmp(w[i].text, "tolerance") && strcmp(w[i].text, "number") &&
	       strcmp(w[i].text, "jam")) {
		const char *t = w[i].text;
		if (nr == 2 && t[0] == '*') {
			mul = true;
			t++;
		}
		if (!is_int(t, &r[nr]))
			return err_off(k, w[i].b, w[i].e, "expected an integer, got '%s'", w[i].text);
		nr++;
		i++;
	}
	if (nr != 0 && nr != 3)
		return err_off(k, w[i - 1].b, w[i - 1].e, "a range is INIT END STEP (three integers)");
	if (nr == 3) {
		if (r[0] < 1 || r[1] < r[0] || (mul ? r[2] < 2 : r[2] < 1))
			return err_off(k, w[i - 3].b, w[i - 1].e,
				       "the range %lld %lld %s%lld is empty or not positive", r[0], r[1], mul ? "*" : "",
				       r[2]);
		for (long long v = r[0]; v <= r[1] && p->nvals < 4096; v = mul ? v * r[2] : v + r[2])
			add_val(p, v);
	}
	while (i < nw) {
		if (!strcmp(w[i].text, "jam")) {
			if (p->kind != KOPT_COARSEN)
				return err_off(k, w[i].b, w[i].e, "'jam' is an option of 'coarsen'");
			p->jam = true;
			i++;
			continue;
		}
		if (i + 1 >= nw)
			return err_off(k, w[i].b, w[i].e, "'%s' needs a value", w[i].text);
		long long v;
		if (!strcmp(w[i].text, "tolerance")) {
			char *end;
			double t = strtod(w[i + 1].text, &end);
			if (*end || !(t >= 0 && t <= 100))
				return err_off(k, w[i + 1].b, w[i + 1].e, "tolerance is a percentage from 0 to 100");
			p->tolerance = t;
		} else if (!strcmp(w[i].text, "number")) {
			if (!is_int(w[i + 1].text, &v) || v < 1)
				return err_off(k, w[i + 1].b, w[i + 1].e, "number needs a positive integer");
			p->number = (int)v;
		} else
			return err_off(k, w[i].b, w[i].e, "unexpected '%s'", w[i].text);
		i += 2;
	}
	/* Default names: the transformation and the line, e.g. unroll_12. */
	int want = p->nparams ? p->nparams : 1;
	for (int j = p->nparams; j < want; j++) {
		char name[64];
		snprintf(name, sizeof(name), "%s_%d", kind_name(p->kind), p->line);
		p->params[j] = xstrdup(name);
	}
	p->nparams = want;
	return 0;
}

/* ---- loops ------------------------------------------------------------------------ */

/* Break/continue that leave this loop, and goto anywhere. */
static int check_jumps(struct kopt *k, int n, bool in_inner_loop, bool in_switch)
{
	for (int c = k->n[n].first; c >= 0; c = k->n[c].next) {
		enum CXCursorKind ck = k->n[c].kind;
		if (ck == CXCursor_GotoStmt || ck == CXCursor_IndirectGotoStmt || ck == CXCursor_LabelStmt)
			return err_at(k, c, "the optimizer does not transform loops with goto or labels");
		if (ck == CXCursor_ContinueStmt && !in_inner_loop)
			return err_at(k, c, "'continue' in an annotated loop");
		if (ck == CXCursor_BreakStmt && !in_inner_loop && !in_switch)
			return err_at(k, c, "'break' in an annotated loop");
		if (check_jumps(k, c, in_inner_loop || is_loop(ck), in_switch || ck == CXCursor_SwitchStmt))
			return 1;
	}
	return 0;
}

/* Every name in the expression keeps its value while the loop runs, and
 * the expression reads no memory and calls nothing but work-item queries. */
static int check_invariant(struct kopt *k, int expr, int loop, const char *what)
{
	for (int i = expr; i < k->nn && k->n[i].b < k->n[expr].e; i++) {
		if (!within(k, i, expr))
			continue;
		const struct node *x = &k->n[i];
		if (x->kind == CXCursor_ArraySubscriptExpr || (x->kind == CXCursor_UnaryOperator && !strcmp(x->op, "*")))
			return err_at(k, i, "the %s reads memory; the optimizer cannot show it stays the same", what);
		if (x->kind == CXCursor_CallExpr && strncmp(x->name, "get_", 4))
			return err_at(k, i, "the %s calls '%s'", what, x->name);
		if (x->kind == CXCursor_DeclRefExpr && x->decl && written_in(k, x->decl, loop))
			return err_at(k, i, "the %s depends on '%s', which the loop changes", what, x->name);
		if (x->macro && x->kind == CXCursor_DeclRefExpr && find_decl(k, x->decl) >= 0)
			return err_at(k, i, "'%s' is used inside a macro expansion, which the optimizer cannot rewrite",
				      x->name);
	}
	return 0;
}

static bool integer_type(const char *t)
{
	static const char *const ok[] = { "int", "uint", "unsigned int", "long", "ulong", "unsigned long",
					  "short", "ushort", "unsigned short", "size_t", "char", "uchar", NULL };
	for (int i = 0; ok[i]; i++)
		if (!strcmp(t, ok[i]))
			return true;
	return false;
}

/* for (T v = INIT; v < BOUND or v <= BOUND; v++ or v += STEP) BODY, with v
 * not written by BODY and BOUND invariant. */
static int analyse_loop(struct kopt *k, struct pragma *p, int f)
{
	const struct node *F = &k->n[f];
	if (F->nkids != 4)
		return err_at(k, f, "the annotated loop needs an initialisation, a condition and an increment");
	int init = kid(k, f, 0), cond = strip(k, kid(k, f, 1)), inc = strip(k, kid(k, f, 2));
	p->body = kid(k, f, 3);
	if (k->n[init].kind != CXCursor_DeclStmt || k->n[init].nkids != 1 ||
	    k->n[k->n[init].first].kind != CXCursor_VarDecl)
		return err_at(k, init, "the annotated loop must declare its variable: for (int i = ...; ...)");
	p->var = k->n[init].first;
	struct node *V = &k->n[p->var];
	if (!integer_type(V->type))
		return err_at(k, p->var, "the loop variable '%s' is not of an integer type", V->name);
	p->init = kid(k, p->var, V->nkids - 1);
	if (p->init < 0 || k->n[p->init].kind == CXCursor_TypeRef)
		return err_at(k, p->var, "the loop variable '%s' has no initial value", V->name);
	unsigned vd = V->at + 1;
	int l = cond >= 0 ? strip(k, kid(k, cond, 0)) : -1;
	if (cond < 0 || k->n[cond].kind != CXCursor_BinaryOperator ||
	    (strcmp(k->n[cond].op, "<") && strcmp(k->n[cond].op, "<=")) || l < 0 ||
	    k->n[l].kind != CXCursor_DeclRefExpr || k->n[l].decl != vd)
		return err_at(k, cond >= 0 ? cond : f, "the loop condition must be '%s < BOUND' or '%s <= BOUND'",
			      V->name, V->name);
	p->le = !strcmp(k->n[cond].op, "<=");
	p->bound = kid(k, cond, 1);
	const struct node *I = inc >= 0 ? &k->n[inc] : NULL;
	int iv = I ? strip(k, I->first) : -1;
	if (!I || iv < 0 || k->n[iv].kind != CXCursor_DeclRefExpr || k->n[iv].decl != vd)
		return err_at(k, inc >= 0 ? inc : f, "the increment must be '%s++' or '%s += STEP'", V->name, V->name);
	if (I->kind == CXCursor_UnaryOperator && (!strcmp(I->op, "++") || !strcmp(I->op, "p++")))
		p->step = 1;
	else if (I->kind == CXCursor_CompoundAssignOperator && !strcmp(I->op, "+=") &&
		 const_eval(k, kid(k, inc, 1), &p->step) && p->step > 0)
		;
	else
		return err_at(k, inc, "the increment must be '%s++' or '%s += STEP' with a positive constant STEP",
			      V->name, V->name);
	for (int i = p->body; i < k->nn && k->n[i].b < k->n[p->body].e; i++)
		if (k->n[i].kind == CXCursor_DeclRefExpr && k->n[i].decl == vd && within(k, i, p->body)) {
			if (writes(k, i))
				return err_at(k, i, "the loop body changes the loop variable '%s'", V->name);
			if (k->n[i].macro)
				return err_at(k, i, "'%s' is used inside a macro expansion, which the optimizer cannot rewrite",
					      V->name);
		}
	if (check_invariant(k, p->bound, f, "loop bound") || check_invariant(k, p->init, f, "initial value"))
		return 1;
	if (k->n[p->body].kind != CXCursor_CompoundStmt && k->n[p->body].kind == CXCursor_DeclStmt)
		return err_at(k, p->body, "the loop body must be a statement or a block");
	if (check_jumps(k, p->body, false, false))
		return 1;
	long long a, z;
	p->trip = -1;
	if (const_eval(k, p->init, &a) && const_eval(k, p->bound, &z)) {
		long long last = p->le ? z : z - 1;
		p->trip = last < a ? 0 : (last - a) / p->step + 1;
	}
	return 0;
}

/* The nearest for statement that starts after the pragma, in the same function. */
static int loop_after(const struct kopt *k, unsigned off)
{
	for (int i = 0; i < k->nn; i++)
		if (k->n[i].b >= off) {
			if (k->n[i].kind == CXCursor_ForStmt)
				return i;
			if (k->n[i].kind != CXCursor_CompoundStmt)
				return -1;
		}
	return -1;
}

static void default_factors(struct pragma *p, long long cap)
{
	if (cap > 0 && cap <= 16) {
		for (long long v = 1; v <= cap; v++)
			add_val(p, v);
		return;
	}
	for (long long v = 1; v <= 32 && (cap < 0 || v <= cap); v *= 2)
		add_val(p, v);
}

/* Unroll factors: the pragma's range, else from a constant trip count. */
static int factors(struct kopt *k, struct pragma *p)
{
	if (!p->nvals) {
		if (p->trip < 0)
			return err_off(k, p->b, p->e - 1,
				       "the trip count of this loop is not a constant: give the factors as INIT END STEP");
		default_factors(p, p->trip);
	}
	return 0;
}

static int check_unroll(struct kopt *k, struct pragma *p)
{
	return analyse_loop(k, p, p->target) || factors(k, p);
}

/* A call of a function defined in this file (builtins are declared
 * implicitly and have no node of their own). */
static bool calls_file_function(const struct kopt *k, int call)
{
	int callee = strip(k, k->n[call].first);
	if (callee < 0 || k->n[callee].kind != CXCursor_DeclRefExpr || !k->n[callee].decl)
		return false;
	for (int i = 0; i < k->nn; i++)
		if (k->n[i].kind == CXCursor_FunctionDecl && k->n[i].at + 1 == k->n[callee].decl)
			return true;
	return false;
}

/* Builtins that tie work-items together or write memory behind the optimizer's back. */
static bool collective(const char *f)
{
	static const char *const pre[] = { "barrier", "mem_fence", "read_mem_fence", "write_mem_fence",
					   "work_group_", "sub_group_", "get_local_id", "get_group_id",
					   "get_local_size", "get_num_groups", "get_global_offset",
					   "get_enqueued_local_size", "async_work_group", "wait_group_events", NULL };
	for (int i = 0; pre[i]; i++)
		if (!strncmp(f, pre[i], strlen(pre[i])))
			return true;
	return false;
}

static bool writes_memory_call(const char *f)
{
	return !strncmp(f, "atomic_", 7) || !strncmp(f, "atom_", 5) || !strncmp(f, "vstore", 6) ||
	       !strncmp(f, "barrier", 7) || !strncmp(f, "work_group_", 11);
}

static int last_kid(const struct kopt *k, int n) { return kid(k, n, k->n[n].nkids - 1); }

/*
 * For the transformations that rewrite a read-only array's reads ('tile',
 * 'vload'): whether node i, a reference to the argument parm, is a read
 * `name[index]` inside `inner`.  *sub is its subscript node, or -1 where i
 * is no reference to parm or lies outside inner (left as it is).  1 after
 * a located error: used other than subscripted, written (`written`, with
 * the name), or inside a macro expansion.
 */
static int array_read(struct kopt *k, int i, int parm, int inner, const char *name, const char *written,
		      int *sub)
{
	*sub = -1;
	const struct node *x = &k->n[i];
	if (x->kind != CXCursor_DeclRefExpr || x->decl != k->n[parm].at + 1)
		return 0;
	int s = subscript_of(k, i);
	if (s < 0)
		return err_at(k, i, "'%s' is used other than as '%s[index]'", name, name);
	if (writes(k, s))
		return err_at(k, s, written, name);
	if (!within(k, s, inner))
		return 0;
	if (x->macro)
		return err_at(k, i, "'%s' is used inside a macro expansion, which the optimizer cannot rewrite", name);
	*sub = s;
	return 0;
}

/* Work per item: the kernel body becomes a function of the global index,
 * called F times per work-item; so no work-item may depend on another. */
static int check_coarsen_jam(struct kopt *k, struct pragma *p);

static int check_coarsen(struct kopt *k, struct pragma *p)
{
	int f = p->target;
	if (f != k->func)
		return err_off(k, p->b, p->e - 1, "'coarsen' must be in the tuned kernel '%s'",
			       k->kernel ? k->kernel : "?");
	int body = last_kid(k, f), nparm = 0;
	for (int c = k->n[f].first; c >= 0; c = k->n[c].next)
		if (k->n[c].kind == CXCursor_ParmDecl) {
			nparm++;
			if (k->n[c].is_local)
				return err_at(k, c, "'coarsen' cannot share the __local argument '%s' between items",
					      k->n[c].name);
		}
	if (!nparm)
		return err_at(k, f, "'coarsen' needs a kernel with arguments");
	for (unsigned i = k->n[f].b; i + 13 < k->n[body].b; i++)
		if (!strncmp(k->src + i, "__attribute__", 13))
			return err_off(k, i, i + 13, "'coarsen' does not keep kernel attributes");
	for (int i = body; i < k->nn && k->n[i].b < k->n[body].e; i++) {
		const struct node *x = &k->n[i];
		if (!within(k, i, body))
			continue;
		if (x->kind == CXCursor_VarDecl && x->is_local)
			return err_at(k, i, "'coarsen' cannot share the __local variable '%s' between items", x->name);
		if (x->kind != CXCursor_CallExpr)
			continue;
		if (collective(x->name))
			return err_at(k, i, "'%s' ties work-items together: 'coarsen' would change its meaning", x->name);
		if (calls_file_function(k, i))
			return err_at(k, i, "'coarsen' does not look into '%s', a function of this file", x->name);
		if (!strcmp(x->name, "get_global_id") || !strcmp(x->name, "get_global_size")) {
			long long d;
			if (x->nkids != 2 || !const_eval(k, last_kid(k, i), &d) || d < 0 || d > 2)
				return err_at(k, i, "'coarsen' needs a constant dimension in '%s'", x->name);
			if (x->macro && d < p->nparams)
				return err_at(k, i, "'%s' is used inside a macro expansion, which the optimizer cannot rewrite",
					      x->name);
		}
	}
	if (p->jam && check_coarsen_jam(k, p))
		return 1;
	if (!p->nvals)
		for (long long v = 1; v <= 8; v *= 2)
			add_val(p, v);
	return 0;
}

/* Statements of the outer loop's body around its one inner loop. */
static int check_jam(struct kopt *k, struct pragma *p)
{
	if (analyse_loop(k, p, p->target))
		return 1;
	int outer = p->target, body = p->body;
	if (k->n[body].kind != CXCursor_CompoundStmt)
		return err_at(k, body, "'unroll_jam' needs a block with an inner for loop");
	p->inner = -1;
	for (int c = k->n[body].first; c >= 0; c = k->n[c].next) {
		if (k->n[c].kind == CXCursor_ForStmt) {
			if (p->inner >= 0)
				return err_at(k, c, "'unroll_jam' needs exactly one inner loop");
			p->inner = c;
		}
	}
	if (p->inner < 0)
		return err_at(k, body, "'unroll_jam' needs an inner for loop directly in the loop's block");
	int in = p->inner, ib = last_kid(k, in);
	if (k->n[in].nkids != 4)
		return err_at(k, in, "the inner loop needs an initialisation, a condition and an increment");
	if (check_jumps(k, ib, false, false))
		return 1;
	for (int i = outer + 1; i < k->nn && k->n[i].b < k->n[outer].e; i++) {
		const struct node *x = &k->n[i];
		if (!within(k, i, body))
			continue;
		bool in_inner = within(k, i, in), in_ibody = within(k, i, ib);
		if (is_loop(x->kind) && !in_inner)
			return err_at(k, i, "'unroll_jam' needs the inner loop to be the only loop of the outer body");
		if (x->kind == CXCursor_ReturnStmt)
			return err_at(k, i, "'return' inside a loop nest annotated 'unroll_jam'");
		if (x->kind == CXCursor_CallExpr && (writes_memory_call(x->name) || collective(x->name)))
			return err_at(k, i, "'%s' inside a loop nest annotated 'unroll_jam'", x->name);
		if (x->kind == CXCursor_CallExpr && calls_file_function(k, i))
			return err_at(k, i, "the call of '%s' may write memory; 'unroll_jam' cannot reorder it", x->name);
		if (x->kind != CXCursor_DeclRefExpr || !x->decl)
			continue;
		int d = find_decl(k, x->decl);
		bool local = d >= 0 && within(k, d, body);
		/* The inner loop's header runs once for all copies. */
		if (in_inner && !in_ibody && (x->decl == k->n[p->var].at + 1 || (local && !within(k, d, in))))
			return err_at(k, i, "the inner loop's bounds depend on '%s', which changes with the outer loop",
				      x->name);
		if (x->macro && (local || x->decl == k->n[p->var].at + 1))
			return err_at(k, i, "'%s' is used inside a macro expansion, which the optimizer cannot rewrite",
				      x->name);
		if (local || x->decl == k->n[p->var].at + 1)
			continue;
		/* A variable from outside the nest: read only, or a pure += / -= reduction. */
		bool w = writes(k, i);
		int par = k->n[i].parent;
		bool reduction = w && k->n[par].kind == CXCursor_CompoundAssignOperator &&
				 (!strcmp(k->n[par].op, "+=") || !strcmp(k->n[par].op, "-="));
		if (w && !reduction)
			return err_at(k, i, "'%s' is written in the nest; 'unroll_jam' would reorder the writes", x->name);
		for (int j = outer + 1; reduction && j < k->nn && k->n[j].b < k->n[outer].e; j++)
			if (j != i && k->n[j].kind == CXCursor_DeclRefExpr && k->n[j].decl == x->decl && within(k, j, body))
				return err_at(k, j, "'%s' is a += reduction of the nest and cannot be read in it", x->name);
	}
	/* Stores to memory: only after the inner loop, to arrays the nest does not read. */
	for (int i = outer + 1; i < k->nn && k->n[i].b < k->n[outer].e; i++) {
		const struct node *x = &k->n[i];
		if (!within(k, i, body) || x->kind != CXCursor_ArraySubscriptExpr)
			continue;
		int base = strip(k, x->first);
		int d = base >= 0 && k->n[base].kind == CXCursor_DeclRefExpr ? find_decl(k, k->n[base].decl) : -1;
		bool store = false;
		int c = i, par = x->parent;
		while (par >= 0 && k->n[par].kind == CXCursor_ParenExpr) {
			c = par;
			par = k->n[par].parent;
		}
		if (par >= 0 && ((k->n[par].kind == CXCursor_BinaryOperator && !strcmp(k->n[par].op, "=")) ||
				 k->n[par].kind == CXCursor_CompoundAssignOperator) && k->n[par].first == c)
			store = true;
		if (par >= 0 && k->n[par].kind == CXCursor_UnaryOperator) {
			if (!strcmp(k->n[par].op, "&"))
				return err_at(k, i, "the address of an element is taken in a nest annotated 'unroll_jam'");
			store = strchr(k->n[par].op, '+') || strchr(k->n[par].op, '-');
		}
		if (!store)
			continue;
		if (d < 0 || k->n[d].kind != CXCursor_ParmDecl)
			return err_at(k, i, "a store the optimizer cannot track (not a kernel argument's array)");
		if (within(k, i, in) || k->n[i].b < k->n[in].b)
			return err_at(k, i, "a store to '%s' before or in the inner loop; 'unroll_jam' would reorder it",
				      k->n[d].name);
		for (int j = outer + 1; j < k->nn && k->n[j].b < k->n[outer].e; j++)
			if (k->n[j].kind == CXCursor_DeclRefExpr && k->n[j].decl == k->n[d].at + 1 && j != base &&
			    within(k, j, body))
				return err_at(k, j, "'%s' is stored after the inner loop and also used in the nest",
					      k->n[d].name);
	}
	for (int i = outer + 1; i < k->nn && k->n[i].b < k->n[outer].e; i++)
		if (within(k, i, body) && k->n[i].kind == CXCursor_UnaryOperator && !strcmp(k->n[i].op, "*") &&
		    k->n[i].parent >= 0)
			return err_at(k, i, "pointer dereferences in a nest annotated 'unroll_jam' are not supported");
	return factors(k, p);
}


/* ---- vector width ------------------------------------------------------------------ */

/* Which statements of a vectorised loop body are which. */
enum vstmt { VS_DECL, VS_REDUCE, VS_STORE, VS_ASSIGN };

/* An index `... + v + ...` where v, the loop variable, is added once and
 * everything else is invariant: consecutive iterations touch consecutive elements. */
static int contiguous(struct kopt *k, int idx, const struct pragma *p, int *nvar)
{
	int x = strip(k, idx);
	if (x < 0)
		return 1;
	const struct node *X = &k->n[x];
	if (X->kind == CXCursor_DeclRefExpr && X->decl == k->n[p->var].at + 1) {
		++*nvar;
		return 0;
	}
	if (X->kind == CXCursor_BinaryOperator && (!strcmp(X->op, "+") || !strcmp(X->op, "-"))) {
		if (contiguous(k, kid(k, x, 0), p, nvar))
			return 1;
		int before = *nvar;
		if (contiguous(k, kid(k, x, 1), p, nvar))
			return 1;
		return !strcmp(X->op, "-") && *nvar != before;
	}
	for (int i = x; i < k->nn && k->n[i].b < X->e; i++)
		if (within(k, i, x) && k->n[i].kind == CXCursor_DeclRefExpr && k->n[i].decl == k->n[p->var].at + 1)
			return 1;
	return check_invariant(k, x, p->target, "index") ? 2 : 0;
}

static bool is_vlocal(const struct kopt *k, const struct pragma *p, unsigned decl)
{
	int d = find_decl(k, decl);
	return d >= 0 && within(k, d, p->body);
}

/* An expression that works element-wise on vectors of the loop's type. */
static int vector_expr(struct kopt *k, struct pragma *p, int e)
{
	int x = strip(k, e);
	const struct node *X = &k->n[x];
	switch (X->kind) {
	case CXCursor_IntegerLiteral:
	case CXCursor_FloatingLiteral:
		return 0;
	case CXCursor_DeclRefExpr:
		if (X->decl == k->n[p->var].at + 1)
			return err_at(k, x, "'vector' needs the loop variable only in contiguous indices");
		if (is_vlocal(k, p, X->decl))
			return 0;
		if (X->decl && written_in(k, X->decl, p->target))
			return err_at(k, x, "'%s' changes in the loop and is not a vectorised variable", X->name);
		if (X->macro)
			return err_at(k, x, "'%s' is used inside a macro expansion, which the optimizer cannot rewrite",
				      X->name);
		return 0;
	case CXCursor_ArraySubscriptExpr: {
		int nvar = 0, rc = contiguous(k, kid(k, x, 1), p, &nvar);
		if (rc == 2)
			return 1;
		if (rc || nvar != 1)
			return err_at(k, x, "this access is not to consecutive elements of the loop's iterations");
		if (!p->elem)
			p->elem = xstrdup(X->type);
		if (strcmp(p->elem, X->type))
			return err_at(k, x, "'vector' needs one element type; this is '%s', not '%s'", X->type, p->elem);
		return 0;
	}
	case CXCursor_BinaryOperator:
		if (strcmp(X->op, "+") && strcmp(X->op, "-") && strcmp(X->op, "*") && strcmp(X->op, "/"))
			return err_at(k, x, "'vector' cannot vectorise the operator '%s'", X->op);
		return vector_expr(k, p, kid(k, x, 0)) || vector_expr(k, p, kid(k, x, 1));
	case CXCursor_UnaryOperator:
		if (strcmp(X->op, "-") && strcmp(X->op, "+"))
			return err_at(k, x, "'vector' cannot vectorise the operator '%s'", X->op);
		return vector_expr(k, p, X->first);
	case CXCursor_CallExpr: {
		static const char *const fn[] = { "sqrt", "fabs", "exp", "log", "sin", "cos", "fma", "mad", "fmin",
						  "fmax", "native_sqrt", "native_exp", "rsqrt", NULL };
		bool ok = false;
		for (int i = 0; fn[i]; i++)
			ok |= !strcmp(X->name, fn[i]);
		if (!ok)
			return err_at(k, x, "'vector' cannot vectorise the call of '%s'", X->name);
		for (int c = kid(k, x, 1); c >= 0; c = k->n[c].next)
			if (vector_expr(k, p, c))
				return 1;
		return 0;
	}
	default:
		return err_at(k, x, "'vector' cannot vectorise this expression");
	}
}

static enum vstmt vstmt_kind(const struct kopt *k, const struct pragma *p, int st)
{
	const struct node *S = &k->n[st];
	if (S->kind == CXCursor_DeclStmt)
		return VS_DECL;
	int l = strip(k, S->first);
	if (k->n[l].kind == CXCursor_ArraySubscriptExpr)
		return VS_STORE;
	return is_vlocal(k, p, k->n[l].decl) ? VS_ASSIGN : VS_REDUCE;
}

static bool vector_width_ok(long long w)
{
	return w == 1 || w == 2 || w == 3 || w == 4 || w == 8 || w == 16;
}

static int check_vector(struct kopt *k, struct pragma *p)
{
	if (analyse_loop(k, p, p->target))
		return 1;
	if (p->step != 1)
		return err_at(k, p->target, "'vector' needs a loop that steps by 1");
	int body = p->body;
	int first = k->n[body].kind == CXCursor_CompoundStmt ? k->n[body].first : body;
	unsigned stored = 0;
	int store_idx = -1;
	for (int st = first; st >= 0; st = k->n[body].kind == CXCursor_CompoundStmt ? k->n[st].next : -1) {
		const struct node *S = &k->n[st];
		if (S->kind == CXCursor_DeclStmt) {
			int d = S->first;
			if (S->nkids != 1 || k->n[d].kind != CXCursor_VarDecl || k->n[d].nkids < 1 ||
			    k->n[last_kid(k, d)].kind == CXCursor_TypeRef)
				return err_at(k, st, "'vector' needs one initialised variable per declaration");
			if (vector_expr(k, p, last_kid(k, d)))
				return 1;
			continue;
		}
		bool assign = S->kind == CXCursor_BinaryOperator && !strcmp(S->op, "=");
		bool compound = S->kind == CXCursor_CompoundAssignOperator &&
				(!strcmp(S->op, "+=") || !strcmp(S->op, "-=") || !strcmp(S->op, "*="));
		if (!assign && !compound)
			return err_at(k, st, "'vector' handles declarations, assignments and += reductions only");
		int l = strip(k, S->first), r = kid(k, st, 1);
		if (vector_expr(k, p, r))
			return 1;
		if (k->n[l].kind == CXCursor_ArraySubscriptExpr) {
			int nvar = 0, rc = contiguous(k, kid(k, l, 1), p, &nvar);
			if (rc == 2)
				return 1;
			if (rc || nvar != 1)
				return err_at(k, l, "this store is not to consecutive elements of the loop's iterations");
			int base = strip(k, k->n[l].first);
			if (k->n[base].kind != CXCursor_DeclRefExpr || find_decl(k, k->n[base].decl) < 0 ||
			    k->n[find_decl(k, k->n[base].decl)].kind != CXCursor_ParmDecl)
				return err_at(k, l, "a store the optimizer cannot track (not a kernel argument's array)");
			if (stored)
				return err_at(k, l, "'vector' handles one store per loop");
			stored = k->n[base].decl;
			store_idx = kid(k, l, 1);
			if (!p->elem)
				p->elem = xstrdup(k->n[l].type);
			if (strcmp(p->elem, k->n[l].type))
				return err_at(k, l, "'vector' needs one element type; this is '%s', not '%s'",
					      k->n[l].type, p->elem);
			continue;
		}
		if (k->n[l].kind != CXCursor_DeclRefExpr)
			return err_at(k, l, "'vector' cannot store through this expression");
		if (is_vlocal(k, p, k->n[l].decl))
			continue;
		if (!compound || !strcmp(S->op, "*="))
			return err_at(k, l, "'%s' is assigned in the loop: only += and -= reductions are vectorised",
				      k->n[l].name);
		int d = find_decl(k, k->n[l].decl);
		if (d < 0 || strcmp(k->n[d].type, p->elem ? p->elem : k->n[d].type))
			return err_at(k, l, "the reduction '%s' is not of the loop's element type", k->n[l].name);
		for (int j = body; j < k->nn && k->n[j].b < k->n[body].e; j++)
			if (j != l && within(k, j, body) && k->n[j].kind == CXCursor_DeclRefExpr &&
			    k->n[j].decl == k->n[l].decl)
				return err_at(k, j, "the reduction '%s' cannot be used elsewhere in the loop", k->n[l].name);
	}
	if (!p->elem)
		return err_at(k, p->target, "'vector' found no array access to vectorise");
	for (int st = first; st >= 0; st = k->n[body].kind == CXCursor_CompoundStmt ? k->n[st].next : -1)
		if (k->n[st].kind == CXCursor_DeclStmt && strcmp(k->n[k->n[st].first].type, p->elem))
			return err_at(k, k->n[st].first, "'%s' is '%s', not the loop's element type '%s'",
				      k->n[k->n[st].first].name, k->n[k->n[st].first].type, p->elem);
	/* A stored array is read only at the stored element. */
	for (int j = body; stored && j < k->nn && k->n[j].b < k->n[body].e; j++) {
		if (!within(k, j, body) || k->n[j].kind != CXCursor_ArraySubscriptExpr)
			continue;
		int base = strip(k, k->n[j].first), idx = kid(k, j, 1);
		if (k->n[base].kind != CXCursor_DeclRefExpr || k->n[base].decl != stored)
			continue;
		if (k->n[idx].e - k->n[idx].b != k->n[store_idx].e - k->n[store_idx].b ||
		    memcmp(k->src + k->n[idx].b, k->src + k->n[store_idx].b, k->n[idx].e - k->n[idx].b))
			return err_at(k, j, "this reads the stored array at another element");
	}
	for (int i = 0; i < p->nvals; i++)
		if (!vector_width_ok(p->vals[i]))
			return err_off(k, p->b, p->e - 1, "vector widths are 1, 2, 3, 4, 8 or 16, not %lld", p->vals[i]);
	if (!p->nvals)
		for (long long w = 1; w <= 16 && (p->trip < 0 || w <= p->trip); w *= 2)
			add_val(p, w);
	return 0;
}


/* ---- local-memory caching ----------------------------------------------------------- */

static void poly_add_term(struct poly *P, long long c, int a, int b, bool *ok)
{
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	if (a == -1 && b != -1) {
		a = b;
		b = -1;
	}
	for (int i = 0; i < P->n; i++)
		if (P->t[i].a == a && P->t[i].b == b) {
			P->t[i].c += c;
			return;
		}
	if (P->n == MAX_TERMS) {
		*ok = false;
		return;
	}
	P->t[P->n++] = (struct term){ c, a, b };
}

/* The loop whose variable `d` is, with constant bounds: its range. */
static bool loop_range(const struct kopt *k, int d, long long *lo, long long *hi)
{
	int ds = k->n[d].parent, f = ds >= 0 ? k->n[ds].parent : -1;
	if (f < 0 || k->n[f].kind != CXCursor_ForStmt || kid(k, f, 0) != ds || k->n[f].nkids != 4)
		return false;
	/* analyse_loop reports errors; this only asks */
	int cond = strip(k, kid(k, f, 1)), init = last_kid(k, d);
	long long a, z, step = 0;
	if (cond < 0 || k->n[cond].kind != CXCursor_BinaryOperator || !k->n[d].nkids)
		return false;
	int l = strip(k, kid(k, cond, 0)), inc = strip(k, kid(k, f, 2));
	if (k->n[l].kind != CXCursor_DeclRefExpr || k->n[l].decl != k->n[d].at + 1)
		return false;
	if (!const_eval(k, init, &a) || !const_eval(k, kid(k, cond, 1), &z))
		return false;
	if (k->n[inc].kind == CXCursor_UnaryOperator && strchr(k->n[inc].op, '+'))
		step = 1;
	else if (k->n[inc].kind == CXCursor_CompoundAssignOperator && !strcmp(k->n[inc].op, "+="))
		const_eval(k, kid(k, inc, 1), &step);
	if (step <= 0 || written_in(k, k->n[d].at + 1, last_kid(k, f)))
		return false;
	if (!strcmp(k->n[cond].op, "<"))
		z--;
	else if (strcmp(k->n[cond].op, "<="))
		return false;
	*lo = a;
	*hi = z;
	return z >= a;
}

static bool poly_of(const struct kopt *k, int e, int f, struct poly *P, int depth)
{
	memset(P, 0, sizeof(*P));
	int x = strip(k, e);
	if (x < 0 || depth > 16)
		return false;
	const struct node *X = &k->n[x];
	bool ok = true;
	struct poly A, B;
	switch (X->kind) {
	case CXCursor_IntegerLiteral:
		poly_add_term(P, X->ival, -1, -1, &ok);
		return X->has_ival;
	case CXCursor_CStyleCastExpr:
		return integer_type(X->type) && poly_of(k, last_kid(k, x), f, P, depth + 1);
	case CXCursor_UnaryOperator:
		if (!poly_of(k, X->first, f, P, depth + 1) || (strcmp(X->op, "-") && strcmp(X->op, "+")))
			return false;
		for (int i = 0; X->op[0] == '-' && i < P->n; i++)
			P->t[i].c = -P->t[i].c;
		return true;
	case CXCursor_BinaryOperator:
		if (!poly_of(k, kid(k, x, 0), f, &A, depth + 1) || !poly_of(k, kid(k, x, 1), f, &B, depth + 1))
			return false;
		if (!strcmp(X->op, "+") || !strcmp(X->op, "-")) {
			*P = A;
			for (int i = 0; i < B.n; i++)
				poly_add_term(P, X->op[0] == '-' ? -B.t[i].c : B.t[i].c, B.t[i].a, B.t[i].b, &ok);
			return ok;
		}
		if (strcmp(X->op, "*"))
			return false;
		for (int i = 0; i < A.n; i++)
			for (int j = 0; j < B.n; j++) {
				int atoms[4] = { A.t[i].a, A.t[i].b, B.t[j].a, B.t[j].b }, m = 0, a = -1, b = -1;
				for (int q = 0; q < 4; q++) {
					if (atoms[q] == -1)
						continue;
					if (m++ == 0)
						a = atoms[q];
					else
						b = atoms[q];
				}
				if (m > 2)
					return false;
				poly_add_term(P, A.t[i].c * B.t[j].c, a, b, &ok);
			}
		return ok;
	case CXCursor_CallExpr: {
		long long d;
		if (strcmp(X->name, "get_global_id") || X->nkids != 2 || !const_eval(k, last_kid(k, x), &d) || d < 0 ||
		    d > 1 || X->macro)
			return false;
		poly_add_term(P, 1, ATOM_GID + (int)d, -1, &ok);
		return true;
	}
	case CXCursor_DeclRefExpr: {
		int d = find_decl(k, X->decl);
		long long lo, hi;
		if (d < 0 || X->macro)
			return false;
		if (d == k->tile_var) {             /* the tiled loop's variable (check_tile) */
			poly_add_term(P, 1, d, -1, &ok);
			return true;
		}
		if (loop_range(k, d, &lo, &hi)) {   /* its own loop writes it: checked there */
			poly_add_term(P, 1, d, -1, &ok);
			return true;
		}
		if (written_in(k, X->decl, f))
			return false;
		if (k->n[d].kind == CXCursor_ParmDecl) {
			poly_add_term(P, 1, d, -1, &ok);
			return true;
		}
		if (k->n[d].kind != CXCursor_VarDecl || !k->n[d].nkids ||
		    k->n[last_kid(k, d)].kind == CXCursor_TypeRef)
			return false;
		return poly_of(k, last_kid(k, d), f, P, depth + 1);
	}
	default:
		return false;
	}
}

static long long elem_size(const char *t)
{
	static const struct { const char *t; long long n; } sz[] = {
		{ "char", 1 }, { "uchar", 1 }, { "short", 2 }, { "ushort", 2 }, { "half", 2 }, { "int", 4 },
		{ "uint", 4 }, { "float", 4 }, { "long", 8 }, { "ulong", 8 }, { "double", 8 }, { NULL, 0 } };
	for (int i = 0; sz[i].t; i++)
		if (!strcmp(t, sz[i].t))
			return sz[i].n;
	return 0;
}

/* An access index split as gid0 + offx (1-D) or gid1 * W + gid0 + W * offy + offx (2-D). */
static int split_access(struct kopt *k, struct pragma *p, int sub, struct access *A)
{
	struct poly P;
	int f = p->target;
	memset(A, 0, sizeof(*A));
	A->node = sub;
	if (!poly_of(k, kid(k, sub, 1), f, &P, 0))
		return err_at(k, sub, "the index of '%s' is not an affine function of get_global_id and constants",
			      p->array);
	bool g0 = false, g1 = false;
	/* the row pitch first: the factor of get_global_id(1) */
	for (int i = 0; p->dims == 2 && p->pitch < 0 && i < P.n; i++)
		if (P.t[i].c == 1 && (P.t[i].a == ATOM_GID + 1 || P.t[i].b == ATOM_GID + 1))
			p->pitch = P.t[i].a == ATOM_GID + 1 ? P.t[i].b : P.t[i].a;
	for (int i = 0; i < P.n; i++) {
		struct term t = P.t[i];
		if (!t.c)
			continue;
		bool ok = true;
		if (t.a == ATOM_GID + 0 && t.b == -1 && t.c == 1)
			g0 = true;
		else if (p->dims == 2 && (t.a == ATOM_GID + 1 || t.b == ATOM_GID + 1) && t.c == 1) {
			int w = t.a == ATOM_GID + 1 ? t.b : t.a;
			if (w < 0 || k->n[w].kind != CXCursor_ParmDecl || (p->pitch >= 0 && p->pitch != w))
				ok = false;
			p->pitch = w;
			g1 = true;
		} else if (t.a == ATOM_GID + 0 || t.a == ATOM_GID + 1 || t.b == ATOM_GID + 0 || t.b == ATOM_GID + 1)
			ok = false;
		else if (p->dims == 2 && t.b >= 0 && (t.a == p->pitch || t.b == p->pitch) && p->pitch >= 0) {
			int v = t.a == p->pitch ? t.b : t.a;
			poly_add_term(&A->off[1], t.c, v, -1, &ok);
		} else if (p->dims == 2 && t.a >= 0 && t.b == -1 && t.a == p->pitch)
			poly_add_term(&A->off[1], t.c, -1, -1, &ok);
		else if (t.b == -1)
			poly_add_term(&A->off[0], t.c, t.a, -1, &ok);
		else
			ok = false;
		/* offsets may only be constants and loop variables of constant range */
		long long lo, hi;
		for (int d = 0; ok && d < 2; d++)
			for (int j = 0; j < A->off[d].n; j++)
				if (A->off[d].t[j].a >= 0 && !loop_range(k, A->off[d].t[j].a, &lo, &hi))
					ok = false;
		if (!ok)
			return err_at(k, sub, "the index of '%s' is not %s", p->array,
				      p->dims == 2 ? "get_global_id(1) * W + get_global_id(0) plus W * (constant offsets) "
						     "plus constant offsets" :
						     "get_global_id(0) plus constant offsets");
	}
	if (!g0 || (p->dims == 2 && !g1))
		return err_at(k, sub, "the index of '%s' does not follow get_global_id(%s)", p->array,
			      !g0 ? "0" : "1");
	/* the offsets' ranges */
	for (int d = 0; d < p->dims; d++) {
		long long lo = 0, hi = 0;
		for (int j = 0; j < A->off[d].n; j++) {
			struct term t = A->off[d].t[j];
			long long a = t.c, b = t.c;
			if (t.a >= 0) {
				long long l, h;
				loop_range(k, t.a, &l, &h);
				a = t.c * l;
				b = t.c * h;
				if (a > b) {
					long long x = a;
					a = b;
					b = x;
				}
			}
			lo += a;
			hi += b;
		}
		if (hi - lo > 64)
			return err_at(k, sub, "the offsets of '%s' span %lld elements; at most 64 are cached", p->array,
				      hi - lo);
		if (A == p->acc || lo < p->lo[d])
			p->lo[d] = lo;
		if (A == p->acc || hi > p->hi[d])
			p->hi[d] = hi;
	}
	return 0;
}

static int check_local(struct kopt *k, struct pragma *p)
{
	int f = p->target;
	if (f != k->func)
		return err_off(k, p->b, p->e - 1, "'local' must be in the tuned kernel '%s'", k->kernel ? k->kernel : "?");
	p->dims = p->nparams;
	p->pitch = -1;
	int parm = -1, idx = 0;
	for (int c = k->n[f].first; c >= 0; c = k->n[c].next)
		if (k->n[c].kind == CXCursor_ParmDecl) {
			if (!strcmp(k->n[c].name, p->array)) {
				parm = c;
				p->param_index = idx;
			}
			idx++;
		}
	if (parm < 0)
		return err_off(k, p->b, p->e - 1, "'%s' is not an argument of kernel '%s'", p->array, k->n[f].name);
	const char *t = k->n[parm].type;
	size_t tl = strlen(t);
	if (tl < 3 || strcmp(t + tl - 2, " *") || strchr(t, '*') != t + tl - 1)
		return err_at(k, parm, "'%s' is not a pointer to elements", p->array);
	p->elem = xstrndup_local(t, tl - 2);
	if (!elem_size(p->elem))
		return err_at(k, parm, "'local' caches arrays of scalars, not '%s'", p->elem);
	for (int i = 0; i < k->np; i++)
		if (k->p[i].kind == KOPT_COARSEN && k->p[i].target == f)
			return err_off(k, p->b, p->e - 1, "'local' and 'coarsen' cannot share a kernel");
	int body = last_kid(k, f);
	for (int i = body; i < k->nn && k->n[i].b < k->n[body].e; i++) {
		const struct node *x = &k->n[i];
		if (!within(k, i, body))
			continue;
		if (x->kind == CXCursor_CallExpr && (collective(x->name) || writes_memory_call(x->name) ||
						      calls_file_function(k, i)))
			return err_at(k, i, "'%s' in a kernel with 'local' caching is not supported", x->name);
		if (x->kind == CXCursor_CallExpr && !strcmp(x->name, "get_global_size")) {
			long long d;
			if (x->nkids != 2 || !const_eval(k, last_kid(k, i), &d) || x->macro)
				return err_at(k, i, "'local' needs '%s' with a constant dimension, outside macros", x->name);
		}
		if (x->kind != CXCursor_DeclRefExpr || x->decl != k->n[parm].at + 1)
			continue;
		int sub = subscript_of(k, i);
		if (sub < 0)
			return err_at(k, i, "'%s' is used other than as '%s[index]'", p->array, p->array);
		if (x->macro)
			return err_at(k, i, "'%s' is used inside a macro expansion, which the optimizer cannot rewrite",
				      x->name);
		if (writes(k, sub) || (k->n[sub].parent >= 0 &&
				       ((k->n[k->n[sub].parent].kind == CXCursor_BinaryOperator &&
					 !strcmp(k->n[k->n[sub].parent].op, "=")) ||
					k->n[k->n[sub].parent].kind == CXCursor_CompoundAssignOperator) &&
				       k->n[k->n[sub].parent].first == sub))
			return err_at(k, sub, "'%s' is written; 'local' caches read-only arrays", p->array);
		p->acc = xrealloc(p->acc, (size_t)(p->nacc + 1) * sizeof(*p->acc));
		p->nacc++;
	}
	if (!p->nacc)
		return err_off(k, p->b, p->e - 1, "'%s' is never read in the kernel", p->array);
	int a = 0;
	for (int i = body; i < k->nn && k->n[i].b < k->n[body].e; i++) {
		if (!within(k, i, body) || k->n[i].kind != CXCursor_ArraySubscriptExpr)
			continue;
		int base = strip(k, k->n[i].first);
		if (k->n[base].kind != CXCursor_DeclRefExpr || k->n[base].decl != k->n[parm].at + 1)
			continue;
		if (split_access(k, p, i, &p->acc[a++]))
			return 1;
	}
	if (!p->nvals)
		for (long long v = p->dims == 2 ? 1 : 16; v <= (p->dims == 2 ? 32 : 512); v *= 2)
			add_val(p, v);
	return 0;
}

/* The kernel f's argument `name` (named at b..e in a pragma), a pointer
 * to scalars: its ParmDecl, and its element type malloc'd into *elem;
 * -1 and a located error if it is none. */
static int scalar_array_arg(struct kopt *k, int f, const char *name, unsigned b, unsigned e, const char *who,
			    char **elem)
{
	int parm = -1;
	for (int c = k->n[f].first; c >= 0; c = k->n[c].next)
		if (k->n[c].kind == CXCursor_ParmDecl && !strcmp(k->n[c].name, name))
			parm = c;
	if (parm < 0) {
		err_off(k, b, e, "'%s' is not an argument of kernel '%s'", name, k->n[f].name);
		return -1;
	}
	const char *t = k->n[parm].type;
	size_t tl = strlen(t);
	*elem = tl >= 3 ? xstrndup_local(t, tl - 2) : xstrdup("?");
	if (tl < 3 || strcmp(t + tl - 2, " *") || strchr(t, '*') != t + tl - 1 || !elem_size(*elem)) {
		free(*elem);
		*elem = NULL;
		err_at(k, parm, "'%s' works on arrays of scalars; '%s' is not one", who, name);
		return -1;
	}
	return parm;
}

/*
 * tile A,B on `for (T k = INIT; k < BOUND; k++) BODY`: each array is read
 * in BODY at one index `R + k * S` whose rest R follows one dimension of
 * the NDRange at most (A[row * K + k] with row = get_global_id(1): the
 * same for a whole row of the work-group).  The loop then runs over tiles
 * of T iterations: the work-group copies each array's tile into __local
 * memory (its rows, its columns, or one shared strip), waits at a
 * barrier, and BODY reads the tile.  Every work-item of a work-group must
 * reach both barriers equally often, so the loop is a statement of the
 * kernel's body itself (no return before it, no coarsening item by
 * item: jammed items share the loop, and the tiles hold their rows and
 * columns; bounds the same for every work-item), and the arrays are never
 * written.
 */
static int tile_array(struct kopt *k, struct pragma *p, const void *unused, const char *name, unsigned b,
		      unsigned e)
{
	(void)unused;
	int f = func_of(k, p->target);
	char *elem;
	int parm = scalar_array_arg(k, f, name, b, e, "tile", &elem);
	if (parm < 0)
		return 1;
	struct tile T = { .name = xstrdup(name), .elem = elem, .dim = -2, .index = -1 };
	p->tiles = xrealloc(p->tiles, (size_t)(p->ntiles + 1) * sizeof(*p->tiles));
	p->tiles[p->ntiles++] = T;
	struct tile *tp = &p->tiles[p->ntiles - 1];
	int body = last_kid(k, f);
	struct poly first;
	memset(&first, 0, sizeof(first));
	for (int i = body; i < k->nn && k->n[i].b < k->n[body].e; i++) {
		int sub;
		if (!within(k, i, body))
			continue;
		if (array_read(k, i, parm, p->body, name, "'%s' is written; 'tile' stages read-only arrays", &sub))
			return 1;
		if (sub < 0)
			continue;   /* not the array, or a read outside the loop: stays as it is */
		int idx = kid(k, sub, 1);
		struct poly P;
		k->tile_var = p->var;
		bool ok = poly_of(k, idx, p->target, &P, 0);
		k->tile_var = -1;
		if (!ok)
			return err_at(k, idx, "the index of '%s' is not an affine function of the loop variable, "
				      "get_global_id and the kernel's arguments", name);
		/* R: the terms without the loop variable; they follow at most one dimension */
		int dim = -1;
		bool stride = false;
		for (int j = 0; j < P.n; j++) {
			struct term u = P.t[j];
			if (!u.c)
				continue;
			bool var = u.a == p->var || u.b == p->var;
			int atoms[2] = { u.a, u.b };
			for (int q = 0; q < 2; q++) {
				int a = atoms[q];
				if (a == -1 || a == p->var)
					continue;
				if (a == ATOM_GID + 0 || a == ATOM_GID + 1) {
					if (var)
						return err_at(k, idx, "the index of '%s' multiplies the loop variable by "
							      "get_global_id; 'tile' needs the same stride for every work-item",
							      name);
					if (dim >= 0 && dim != a - ATOM_GID)
						return err_at(k, idx, "the index of '%s' follows both get_global_id(0) and "
							      "get_global_id(1); 'tile' stages a row or a column of a "
							      "work-group, not a block", name);
					dim = a - ATOM_GID;
				} else if (a < 0 || k->n[a].kind != CXCursor_ParmDecl) {
					return err_at(k, idx, "the index of '%s' depends on '%s', which is not a kernel "
						      "argument; 'tile' needs it the same for a row of work-items", name,
						      a >= 0 ? k->n[a].name : "?");
				}
			}
			stride |= var;
		}
		if (!stride)
			return err_at(k, idx, "the index of '%s' does not follow the loop variable '%s'", name,
				      k->n[p->var].name);
		/* the load evaluates this index's text: its names must be in scope there */
		for (int j = idx; j < k->nn && k->n[j].b < k->n[idx].e; j++)
			if (within(k, j, idx) && k->n[j].kind == CXCursor_DeclRefExpr && k->n[j].decl &&
			    k->n[j].decl != k->n[p->var].at + 1) {
				int d = find_decl(k, k->n[j].decl);
				if (d >= 0 && within(k, d, p->target))
					return err_at(k, j, "the index of '%s' uses '%s', declared inside the loop; "
						      "'tile' loads the tile before the loop body runs", name, k->n[j].name);
			}
		if (tp->index < 0) {
			tp->index = idx;
			tp->dim = dim;
			first = P;
		} else {
			bool same = first.n == P.n;
			for (int j = 0; same && j < P.n; j++)
				same = first.t[j].c == P.t[j].c && first.t[j].a == P.t[j].a && first.t[j].b == P.t[j].b;
			if (!same)
				return err_at(k, idx, "'%s' is read at two different indices in the loop; 'tile' stages "
					      "one", name);
		}
	}
	if (tp->index < 0)
		return err_off(k, b, e, "'%s' is not read in the loop", name);
	return 0;
}

/* fn(k, p, ctx, NAME, b, e) for each NAME of the pragma's `A,B` list (at
 * b..e in the source), each named once; 1 at the first that fails. */
static int each_array(struct kopt *k, struct pragma *p,
		      int (*fn)(struct kopt *, struct pragma *, const void *, const char *, unsigned, unsigned),
		      const void *ctx)
{
	unsigned b = p->b;
	const char *a0 = strstr(k->src + p->b, p->array);
	if (a0 && a0 < k->src + p->e)
		b = (unsigned)(a0 - k->src);
	unsigned e = b + (unsigned)strlen(p->array);
	for (char *t = p->array, *c; t; t = c ? c + 1 : NULL) {
		c = strchr(t, ',');
		char one[64];
		snprintf(one, sizeof(one), "%.*s", (int)(c ? c - t : (long)strlen(t)), t);
		for (char *u = p->array, *d; u < t; u = d + 1) {
			d = strchr(u, ',');
			if ((size_t)(d - u) == strlen(one) && !strncmp(u, one, strlen(one)))
				return err_off(k, b, e, "'%s' is named twice", one);
		}
		if (fn(k, p, ctx, one, b, e))
			return 1;
	}
	return 0;
}

/* The loop's bounds read only kernel arguments, constants and sizes: the
 * same for every work-item (tile) or every item of one (coarsen jam). */
static int uniform_bounds(struct kopt *k, const struct pragma *p, const char *loop, const char *who)
{
	int ends[2] = { p->init, p->bound };
	for (int j = 0; j < 2; j++)
		for (int i = ends[j]; i < k->nn && k->n[i].b < k->n[ends[j]].e; i++) {
			const struct node *x = &k->n[i];
			if (!within(k, i, ends[j]))
				continue;
			if (x->kind == CXCursor_CallExpr && strncmp(x->name, "get_num_groups", 14) &&
			    strncmp(x->name, "get_global_size", 15) && strncmp(x->name, "get_local_size", 14) &&
			    strncmp(x->name, "get_work_dim", 12))
				return err_at(k, i, "the bounds of a %s must be the same for every %s; '%s' may differ",
					      loop, who, x->name);
			if (x->kind == CXCursor_DeclRefExpr && x->decl) {
				int d = find_decl(k, x->decl);
				if (d >= 0 && k->n[d].kind != CXCursor_ParmDecl)
					return err_at(k, i, "the bounds of a %s must be the same for every %s: use kernel "
						      "arguments and constants, not '%s'", loop, who, x->name);
			}
		}
	return 0;
}

/*
 * coarsen ... jam: the kernel's body is statements, one for loop, and
 * statements; each work-item runs the statements before the loop for its
 * F items (their variables renamed), one loop whose body holds the F
 * items' copies (HPL's register tiling: the items share what they load),
 * and the statements after it.  Where the factors do not divide the
 * NDRange, the items past it compute on clamped indices and skip the
 * statements after the loop, so nothing before them may store.
 * Work-items do not order their memory
 * accesses among themselves, so interleaving F of them is one of the
 * schedules the kernel already allows; the loop must run the same
 * iterations for each item, and no item may leave early.
 */
static int check_coarsen_jam(struct kopt *k, struct pragma *p)
{
	int body = last_kid(k, p->target);
	p->loop = -1;
	for (int st = k->n[body].first; st >= 0; st = k->n[st].next)
		if (k->n[st].kind == CXCursor_ForStmt) {
			if (p->loop >= 0)
				return err_at(k, st, "'coarsen ... jam' fuses the one for loop of the kernel's body; this "
					      "is a second");
			p->loop = st;
		}
	if (p->loop < 0)
		return err_off(k, p->b, p->e - 1, "'coarsen ... jam' needs a for loop among the statements of the "
			       "kernel's body");
	for (int i = body; i < k->nn && k->n[i].b < k->n[body].e; i++)
		if (within(k, i, body) && k->n[i].kind == CXCursor_ReturnStmt)
			return err_at(k, i, "a 'return' in a kernel with 'coarsen ... jam': one item would end the "
				      "others");
	/* An item past the NDRange (the global size rounded up) runs on
	 * clamped indices, a copy of a real item: it may compute, not store
	 * before the statements after the loop, which kopt_apply guards. */
	for (int i = body; i < k->nn && k->n[i].b < k->n[p->loop].e; i++) {
		const struct node *x = &k->n[i];
		if (!within(k, i, body))
			continue;
		bool store = (x->kind == CXCursor_ArraySubscriptExpr ||
			      (x->kind == CXCursor_UnaryOperator && !strcmp(x->op, "*"))) && writes(k, i);
		if (store || (x->kind == CXCursor_CallExpr && (writes_memory_call(x->name) || collective(x->name) ||
								calls_file_function(k, i))))
			return err_at(k, i, "'coarsen ... jam' runs the loop for items past the NDRange too: the "
				      "statements before it and its body may not write memory (store after the loop)");
	}
	struct pragma q;
	memset(&q, 0, sizeof(q));
	q.target = q.var = q.init = q.bound = q.body = q.inner = q.pitch = -1;
	q.b = p->b;
	q.e = p->e;
	int rc = analyse_loop(k, &q, p->loop) || uniform_bounds(k, &q, "jammed loop", "item");
	p->var = q.var;   /* the jammed loop's variable (check_vload's indices) */
	return rc;
}

static int check_tile(struct kopt *k, struct pragma *p)
{
	int f = func_of(k, p->target);
	if (analyse_loop(k, p, p->target))
		return 1;
	if (f != k->func)
		return err_off(k, p->b, p->e - 1, "'tile' must be in the tuned kernel '%s'", k->kernel ? k->kernel : "?");
	if (p->step != 1)
		return err_at(k, p->target, "'tile' needs a loop that steps by 1");
	if (k->n[p->target].parent != last_kid(k, f))
		return err_at(k, p->target, "'tile' puts barriers in this loop, so every work-item must run it: "
			      "it must be a statement of the kernel's body, not inside an if or another loop");
	for (int i = 0; i < k->np; i++) {
		const struct pragma *q = &k->p[i];
		if (q->kind == KOPT_LOCAL && q->target == f)
			return err_off(k, p->b, p->e - 1, "'tile' and 'local' cannot share a kernel");
		/* with coarsen, a point uses one of them (space_text's require) */
		if (q < p && q->kind == KOPT_TILE && func_of(k, q->target) == f)
			return err_off(k, p->b, p->e - 1, "a kernel has one 'tile' (line %d has it)", q->line);
		if (q != p && q->target >= 0 && q->target != p->target && within(k, q->target, p->target))
			return err_off(k, q->b, q->e - 1, "a loop inside a tiled loop cannot carry an annotation");
	}
	for (int i = last_kid(k, f); i < k->nn && k->n[i].b < k->n[p->target].e; i++)
		if (within(k, i, last_kid(k, f)) && k->n[i].kind == CXCursor_ReturnStmt)
			return err_at(k, i, "a 'return' before the end of a tiled loop: the work-items that leave "
				      "would miss its barriers");
	/* the bounds: the same for every work-item of a work-group */
	if (uniform_bounds(k, p, "tiled loop", "work-item"))
		return 1;
	if (each_array(k, p, tile_array, NULL))
		return 1;
	if (!p->nvals)
		for (long long v = 1; v <= 64; v *= 2)
			add_val(p, v);
	return 0;
}

/*
 * vload A,B (after every other annotation is checked): with the kernel's
 * `coarsen ... jam`, a work-item's items along dimension 0 become runs
 * of W consecutive indices, so the W reads of such an array that a run's
 * items make in one iteration of the jammed loop are W consecutive
 * elements, read by one vloadW (from the array, or from its tile).  The
 * load is hoisted to the top of the loop body's copy, so: the array is
 * never written in the kernel, each read in the loop is at an index
 * affine in get_global_id(0) with coefficient 1 (consecutive items,
 * consecutive elements) and in names set before the loop, and no read is
 * under a condition (each item's own read happened unconditionally, so
 * the vector reads nothing the kernel did not).
 */
static int check_vload_array(struct kopt *k, struct pragma *p, const void *coarsen, const char *name,
			     unsigned b, unsigned e)
{
	const struct pragma *cj = coarsen;
	int f = p->target, lbody = last_kid(k, cj->loop), body = last_kid(k, f);
	char *elem;
	int parm = scalar_array_arg(k, f, name, b, e, "vload", &elem);
	if (parm < 0)
		return 1;
	if (!p->elem)
		p->elem = xstrdup(elem);
	if (strcmp(p->elem, elem)) {
		int rc = err_at(k, parm, "'vload' needs one element type; '%s' is '%s', not '%s'", name, elem, p->elem);
		free(elem);
		return rc;
	}
	free(elem);
	int found = 0;
	for (int i = body; i < k->nn && k->n[i].b < k->n[body].e; i++) {
		int sub;
		if (!within(k, i, body))
			continue;
		if (array_read(k, i, parm, lbody, name,
			       "'%s' is written or its address taken; 'vload' reads read-only arrays", &sub))
			return 1;
		if (sub < 0)
			continue;   /* not the array, or a read outside the jammed loop: stays as it is */
		for (int a = k->n[sub].parent; a >= 0 && a != lbody; a = k->n[a].parent) {
			const struct node *A = &k->n[a];
			if (A->kind == CXCursor_IfStmt || A->kind == CXCursor_ConditionalOperator || is_loop(A->kind) ||
			    A->kind == CXCursor_SwitchStmt ||
			    (A->kind == CXCursor_BinaryOperator && (!strcmp(A->op, "&&") || !strcmp(A->op, "||"))))
				return err_at(k, sub, "'%s' is read under a condition or in an inner loop; 'vload' reads "
					      "a run of items' elements together, at the top of the loop body", name);
		}
		int idx = kid(k, sub, 1);
		struct poly P;
		k->tile_var = cj->var;
		bool ok = poly_of(k, idx, f, &P, 0);
		k->tile_var = -1;
		if (!ok)
			return err_at(k, idx, "the index of '%s' is not an affine function of the loop variable, "
				      "get_global_id and the kernel's arguments", name);
		long long c0 = 0;
		bool rows = false;
		for (int j = 0; j < P.n; j++) {
			if (!P.t[j].c)
				continue;
			bool g0 = P.t[j].a == ATOM_GID + 0 || P.t[j].b == ATOM_GID + 0;
			if (g0 && P.t[j].b != -1)
				return err_at(k, idx, "the index of '%s' multiplies get_global_id(0) by '%s'; 'vload' needs "
					      "consecutive items to read consecutive elements", name,
					      P.t[j].a == ATOM_GID + 0 ? (P.t[j].b >= 0 ? k->n[P.t[j].b].name : "?")
								      : (P.t[j].a >= 0 ? k->n[P.t[j].a].name : "?"));
			if (g0)
				c0 += P.t[j].c;
			rows |= P.t[j].a == ATOM_GID + 1 || P.t[j].b == ATOM_GID + 1;
		}
		if (c0 != 1)
			return err_at(k, idx, "the index of '%s' %s; 'vload' needs consecutive items (get_global_id(0) "
				      "+ 1) to read consecutive elements", name,
				      c0 ? "steps by more than 1 with get_global_id(0)" : "does not follow get_global_id(0)");
		/* the hoisted load evaluates this index: its names must be set before the loop */
		for (int j = idx; j < k->nn && k->n[j].b < k->n[idx].e; j++)
			if (within(k, j, idx) && k->n[j].kind == CXCursor_DeclRefExpr && k->n[j].decl) {
				int d = find_decl(k, k->n[j].decl);
				if (d >= 0 && within(k, d, lbody))
					return err_at(k, j, "the index of '%s' uses '%s', declared inside the loop; 'vload' "
						      "reads at the top of the loop body", name, k->n[j].name);
			}
		p->acc = xrealloc(p->acc, (size_t)(p->nacc + 1) * sizeof(*p->acc));
		memset(&p->acc[p->nacc], 0, sizeof(*p->acc));
		p->acc[p->nacc].node = sub;
		p->acc[p->nacc].rows = rows;
		p->acc[p->nacc].tile = -1;
		p->nacc++;
		found++;
	}
	if (!found)
		return err_off(k, b, e, "'%s' is not read in the jammed loop", name);
	return 0;
}

static int check_vload(struct kopt *k, struct pragma *p)
{
	const struct pragma *cj = NULL;
	if (p->target != k->func)
		return err_off(k, p->b, p->e - 1, "'vload' must be in the tuned kernel '%s'", k->kernel ? k->kernel : "?");
	for (int i = 0; i < k->np; i++) {
		if (k->p[i].kind == KOPT_COARSEN && k->p[i].jam && k->p[i].target == p->target)
			cj = &k->p[i];
		if (&k->p[i] < p && k->p[i].kind == KOPT_VLOAD && k->p[i].target == p->target)
			return err_off(k, p->b, p->e - 1, "a kernel has one 'vload' (line %d has it): its width "
				       "orders the items of every array", k->p[i].line);
	}
	if (!cj)
		return err_off(k, p->b, p->e - 1, "'vload' needs 'coarsen ... jam' in the kernel: its vectors are "
			       "the elements of a work-item's items along dimension 0");
	if (each_array(k, p, check_vload_array, cj))
		return 1;
	for (int i = 0; i < p->nacc; i++)   /* a staged array is read from its tile */
		for (int j = 0; j < k->np; j++)
			for (int t = 0; k->p[j].kind == KOPT_TILE && k->p[j].target == cj->loop && t < k->p[j].ntiles; t++)
				if (!strcmp(k->p[j].tiles[t].name,
					    k->n[strip(k, k->n[p->acc[i].node].first)].name))
					p->acc[i].tile = t;
	for (int i = 0; i < p->nvals; i++)
		if (!vector_width_ok(p->vals[i]))
			return err_off(k, p->b, p->e - 1, "vector widths are 1, 2, 3, 4, 8 or 16, not %lld", p->vals[i]);
	if (!p->nvals)
		for (long long w = 1; w <= 8; w *= 2)
			add_val(p, w);
	return 0;
}

/* ---- loading ---------------------------------------------------------------------- */

static int check_pragma(struct kopt *k, struct pragma *p)
{
	switch (p->kind) {
	case KOPT_UNROLL:
		return check_unroll(k, p);
	case KOPT_UNROLL_JAM:
		return check_jam(k, p);
	case KOPT_COARSEN:
		return check_coarsen(k, p);
	case KOPT_VECTOR:
		return check_vector(k, p);
	case KOPT_LOCAL:
		return check_local(k, p);
	case KOPT_TILE:
		return check_tile(k, p);
	case KOPT_VLOAD:
		return check_vload(k, p);
	default:
		return err_off(k, p->b, p->e - 1, "'%s' is not implemented yet", kind_name(p->kind));
	}
}

static void space_text(struct kopt *k)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		abort();
	int devices = 0;
	for (int i = 0; i < k->np; i++) {
		const struct pragma *p = &k->p[i];
		fprintf(f, "\n# %s:%d: #pragma spacetune %s\n", k->filename, p->line, kind_name(p->kind));
		for (int j = 0; j < p->nparams; j++) {
			fprintf(f, "%s = [", p->params[j]);
			for (int v = 0; v < p->nvals; v++)
				fprintf(f, "%s%lld", v ? ", " : "", p->vals[v]);
			fprintf(f, "]\n");
		}
		if ((p->kind == KOPT_UNROLL || p->kind == KOPT_UNROLL_JAM || p->kind == KOPT_VECTOR) && p->trip > 0)
			fprintf(f, "require %s <= %lld\n", p->params[0], p->trip);
		for (int j = 0; p->kind == KOPT_TILE && j < k->np; j++)
			if (k->p[j].kind == KOPT_COARSEN && !k->p[j].jam && k->p[j].target == func_of(k, p->target)) {
				/* item by item, a point tiles or coarsens, not both (check_tile);
				 * jammed items share one loop, and so its tiles */
				fprintf(f, "require %s == 1 or (%s == 1", p->params[0], k->p[j].params[0]);
				if (k->p[j].nparams > 1)
					fprintf(f, " and %s == 1", k->p[j].params[1]);
				fputs(")\n", f);
			}
		for (int j = 0; p->kind == KOPT_VLOAD && j < k->np; j++)
			if (k->p[j].kind == KOPT_COARSEN && k->p[j].jam && k->p[j].target == p->target)
				/* runs of W items: W divides the items along dimension 0 */
				fprintf(f, "require %s %% %s == 0\n", k->p[j].params[0], p->params[0]);
		if (p->kind == KOPT_LOCAL) {
			/* the work-group and the tile must fit the device */
			if (!devices++)
				fprintf(f, "device spacetune_max_wg = query(\"max_work_group_size\", 256)\n"
					   "device spacetune_local_mem = query(\"local_mem_size\", 32768)\n");
			fprintf(f, "require %s%s%s <= spacetune_max_wg\n", p->params[0], p->dims == 2 ? " * " : "",
				p->dims == 2 ? p->params[1] : "");
			fprintf(f, "require (%s + %lld)", p->params[0], p->hi[0] - p->lo[0]);
			if (p->dims == 2)
				fprintf(f, " * (%s + %lld)", p->params[1], p->hi[1] - p->lo[1]);
			fprintf(f, " * %lld <= spacetune_local_mem\n", elem_size(p->elem));
		}
	}
	fclose(f);
	k->space = buf;
}

static int parse_tu(struct kopt *k)
{
	CXIndex index = clang_createIndex(0, 0);
	/* OpenCL C 1.2 with the builtins declared lazily (fast), no headers. */
	const char *args[] = { "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
			       "-Xclang", "-fdeclare-opencl-builtins", "-Wno-unknown-pragmas" };
	struct CXUnsavedFile uf = { k->filename, k->src, (unsigned long)k->len };
	CXTranslationUnit tu = NULL;
	enum CXErrorCode ec = clang_parseTranslationUnit2(index, k->filename, args, sizeof(args) / sizeof(*args),
							  &uf, 1, CXTranslationUnit_None, &tu);
	if (ec != CXError_Success || !tu) {
		diag_plain(&k->diag, DIAG_ERROR, "libclang could not parse '%s' (error %d)", k->filename, (int)ec);
		clang_disposeIndex(index);
		return -1;
	}
	int rc = 0;
	/* clang's own errors, located the project's way. */
	for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXFile f;
			unsigned line, col, off;
			clang_getSpellingLocation(clang_getDiagnosticLocation(d), &f, &line, &col, &off);
			char *msg = cx_dup(clang_getDiagnosticSpelling(d));
			if (off > k->len)
				off = 0;
			err_off(k, off, off + 1, "%s", msg);
			free(msg);
			rc = 1;
		}
		clang_disposeDiagnostic(d);
	}
	struct build B = { .k = k, .tu = tu, .parent = 0 };
	B.file = clang_getFile(tu, k->filename);
	CXSourceRange all = clang_getRange(clang_getLocationForOffset(tu, B.file, 0),
					   clang_getLocationForOffset(tu, B.file, (unsigned)k->len));
	clang_tokenize(tu, all, &B.toks, &B.ntoks);
	/* node 0: the file */
	k->cap = 256;
	k->n = xcalloc((size_t)k->cap, sizeof(*k->n));
	k->nn = 1;
	k->n[0] = (struct node){ .kind = CXCursor_TranslationUnit, .b = 0, .e = (unsigned)k->len, .parent = -1,
				 .first = -1, .next = -1, .name = xstrdup(""), .type = xstrdup("") };
	clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &B);
	fill_ops(&B);
	clang_disposeTokens(tu, B.toks, B.ntoks);
	clang_disposeTranslationUnit(tu);
	clang_disposeIndex(index);
	return rc;
}

static void pragma_release(struct pragma *p)
{
	free(p->params[0]);
	free(p->params[1]);
	free(p->vals);
	free(p->array);
	free(p->elem);
	free(p->acc);
	for (int t = 0; t < p->ntiles; t++) {
		free(p->tiles[t].name);
		free(p->tiles[t].elem);
	}
	free(p->tiles);
}

static int find_pragmas(struct kopt *k)
{
	int rc = 0;
	for (size_t i = 0; i < k->len; i++) {
		if (k->src[i] != '#' || (i && k->src[i - 1] != '\n' && !isspace((unsigned char)k->src[i - 1])))
			continue;
		size_t e = i;
		while (e < k->len && k->src[e] != '\n')
			e++;
		if (!kopt_has_pragmas(k->src + i, e - i))
			continue;
		size_t b = i;
		while (b > 0 && k->src[b - 1] != '\n')
			b--;
		k->p = xrealloc(k->p, (size_t)(k->np + 1) * sizeof(*k->p));
		struct pragma *p = &k->p[k->np];
		if (parse_pragma(k, (unsigned)i, (unsigned)e, p)) {
			pragma_release(p);
			rc = 1;
			i = e;
			continue;
		}
		p->b = (unsigned)b;
		p->e = (unsigned)(e < k->len ? e + 1 : e);
		k->np++;
		i = e;
	}
	return rc;
}

static int check_all(struct kopt *k)
{
	int rc = 0;
	for (int i = 0; i < k->np; i++) {
		struct pragma *p = &k->p[i];
		for (int j = 0; j < i; j++)
			for (int a = 0; a < p->nparams; a++)
				for (int b = 0; b < k->p[j].nparams; b++)
					if (!strcmp(p->params[a], k->p[j].params[b])) {
						rc |= err_off(k, p->b, p->e - 1, "parameter '%s' is already used at line %d",
							      p->params[a], k->p[j].line);
					}
		if (p->kind == KOPT_UNROLL || p->kind == KOPT_UNROLL_JAM || p->kind == KOPT_VECTOR ||
		    p->kind == KOPT_TILE) {
			p->target = loop_after(k, p->e);
			if (p->target < 0) {
				rc |= err_off(k, p->b, p->e - 1, "'#pragma spacetune %s' must stand right before a for loop",
					      kind_name(p->kind));
				continue;
			}
			/* a tiled loop may also be unrolled: its loop over one tile is */
			for (int j = 0; j < i; j++)
				if (k->p[j].target == p->target &&
				    !((p->kind == KOPT_TILE && k->p[j].kind == KOPT_UNROLL) ||
				      (p->kind == KOPT_UNROLL && k->p[j].kind == KOPT_TILE)))
					rc |= err_off(k, p->b, p->e - 1, "this loop already has an annotation at line %d",
						      k->p[j].line);
		} else {
			int f = func_of(k, loop_after(k, p->e));
			for (int j = 0; f < 0 && j < k->nn; j++)
				if (k->n[j].kind == CXCursor_FunctionDecl && k->n[j].b <= p->b && p->b < k->n[j].e)
					f = j;
			if (f < 0 || (k->kernel && strcmp(k->n[f].name, k->kernel)))
				f = k->func;
			if (f < 0) {
				rc |= err_off(k, p->b, p->e - 1, "'%s' must be inside the kernel", kind_name(p->kind));
				continue;
			}
			p->target = f;
		}
		/* vload reads what coarsen ... jam and tile found: checked after them */
		if (!rc && p->kind != KOPT_VLOAD && check_pragma(k, p))
			rc = 1;
	}
	for (int i = 0; !rc && i < k->np; i++)
		if (k->p[i].kind == KOPT_VLOAD && check_pragma(k, &k->p[i]))
			rc = 1;
	return rc;
}

int kopt_load(const struct kopt_input *in, struct kopt **out)
{
	struct kopt *k = xcalloc(1, sizeof(*k));
	*out = NULL;
	k->src = xmalloc(in->len + 1);
	memcpy(k->src, in->source, in->len);
	k->src[in->len] = 0;
	k->len = in->len;
	k->filename = xstrdup(in->filename);
	k->kernel = in->kernel ? xstrdup(in->kernel) : NULL;
	k->func = -1;
	k->tile_var = -1;
	diag_init(&k->diag, in->filename, k->src, k->len, in->diag ? in->diag : stderr);
	k->diag.program = "spacetune";
	int rc = parse_tu(k);
	if (rc) {
		kopt_free(k);
		return rc;
	}
	for (int i = 0; i < k->nn; i++)
		if (k->n[i].kind == CXCursor_FunctionDecl && k->n[i].parent == 0 &&
		    (k->kernel ? !strcmp(k->n[i].name, k->kernel) : k->func < 0) && k->n[i].nkids &&
		    k->n[kid(k, i, k->n[i].nkids - 1)].kind == CXCursor_CompoundStmt)
			k->func = i;
	if (find_pragmas(k) | check_all(k)) {
		kopt_free(k);
		return 1;
	}
	space_text(k);
	*out = k;
	return 0;
}

void kopt_free(struct kopt *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->nn; i++) {
		free(k->n[i].name);
		free(k->n[i].type);
	}
	free(k->n);
	for (int i = 0; i < k->np; i++)
		pragma_release(&k->p[i]);
	free(k->p);
	diag_release(&k->diag);
	free(k->space);
	free(k->src);
	free(k->filename);
	free(k->kernel);
	free(k);
}

const char *kopt_space(const struct kopt *k) { return k->space ? k->space : ""; }
int kopt_npragmas(const struct kopt *k) { return k->np; }
enum kopt_kind kopt_pragma_kind(const struct kopt *k, int i) { return k->p[i].kind; }
int kopt_pragma_line(const struct kopt *k, int i) { return k->p[i].line; }
int kopt_pragma_nparams(const struct kopt *k, int i) { return k->p[i].nparams; }
const char *kopt_pragma_param(const struct kopt *k, int i, int p) { return k->p[i].params[p]; }
double kopt_pragma_tolerance(const struct kopt *k, int i) { return k->p[i].tolerance; }
int kopt_pragma_number(const struct kopt *k, int i) { return k->p[i].number; }

/* ---- emitting a variant ------------------------------------------------------------ */

struct sub {
	unsigned decl;          /* references to this declaration ... */
	char *text;             /* ... become this text */
	bool rename;            /* the declaration's own name too */
};

struct emit {
	const struct kopt *k;
	FILE *out;
	long long (*val)[2];    /* per pragma: the chosen values */
	struct kopt_variant *v;
	struct sub *subs;
	int nsubs;
	unsigned resume;        /* a rewritten node also consumed the text up to here */
	const struct pragma *coarsen; /* inside the coarsened kernel's body */
	const struct pragma *vector;  /* inside a vectorised loop: loads become vloadN */
	const struct pragma *local;   /* the kernel's locally cached array */
	const struct pragma *tile;    /* inside a tiled loop's body: its arrays read the tiles */
	const struct pragma *cjam;    /* in a kernel coarsened with `jam`: its loop's body is copied */
	long long cf[2];              /* ... its factors, and the copy (item) being emitted */
	long long copy[2];
	long long vw;                 /* vload width: dimension 0's items in runs of vw (1: interleaved) */
	const struct pragma *vwp;     /* ... the vload annotation */
	const struct pragma *vload;   /* ... and its reads, as vectors (NULL: scalar reads) */
	bool copying;                 /* emitting the copies of the jammed loop's body */
	bool ragged;                  /* ... and some items fall past the NDRange */
	bool ragged0;                 /* ... along dimension 0 */
	int local_index;
	long long width;
	size_t orig_global[3];
};

static void emit_node(struct emit *E, int n);

static const struct sub *sub_of(const struct emit *E, unsigned decl)
{
	for (int i = E->nsubs - 1; i >= 0; i--)
		if (E->subs[i].decl == decl)
			return &E->subs[i];
	return NULL;
}

static void push_sub(struct emit *E, unsigned decl, char *text, bool rename)
{
	E->subs = xrealloc(E->subs, (size_t)(E->nsubs + 1) * sizeof(*E->subs));
	E->subs[E->nsubs++] = (struct sub){ decl, text, rename };
}

static void pop_subs(struct emit *E, int to)
{
	while (E->nsubs > to)
		free(E->subs[--E->nsubs].text);
}

/* Source text between nodes, without the spacetune pragma lines. */
static void emit_gap(struct emit *E, unsigned b, unsigned e)
{
	const struct kopt *k = E->k;
	while (b < e) {
		unsigned next = e;
		const struct pragma *hit = NULL;
		for (int i = 0; i < k->np; i++)
			if (k->p[i].b >= b && k->p[i].b < next && k->p[i].e <= e) {
				next = k->p[i].b;
				hit = &k->p[i];
			}
		fwrite(k->src + b, 1, next - b, E->out);
		if (!hit)
			return;
		b = hit->e;
	}
}

/* A node's text from b to e, with its children emitted (rewritten). */
static void emit_span(struct emit *E, int n, unsigned b, unsigned e)
{
	const struct kopt *k = E->k;
	unsigned pos = b;
	for (int c = k->n[n].first; c >= 0; c = k->n[c].next) {
		const struct node *C = &k->n[c];
		if (C->b < pos || C->e > e || C->e <= C->b)
			continue;
		/* A renamed declaration's name lies in the gap before its children. */
		if ((k->n[n].kind == CXCursor_VarDecl) && k->n[n].at >= pos && k->n[n].at < C->b) {
			const struct sub *s = sub_of(E, k->n[n].at + 1);
			if (s && s->rename) {
				emit_gap(E, pos, k->n[n].at);
				fputs(s->text, E->out);
				pos = k->n[n].at + (unsigned)strlen(k->n[n].name);
			}
		}
		emit_gap(E, pos, C->b);
		E->resume = 0;
		emit_node(E, c);
		pos = C->e > E->resume ? C->e : E->resume;
		E->resume = 0;
	}
	if (k->n[n].kind == CXCursor_VarDecl && k->n[n].at >= pos && k->n[n].at < e) {
		const struct sub *s = sub_of(E, k->n[n].at + 1);
		if (s && s->rename) {
			emit_gap(E, pos, k->n[n].at);
			fputs(s->text, E->out);
			pos = k->n[n].at + (unsigned)strlen(k->n[n].name);
		}
	}
	emit_gap(E, pos, e);
}

static void indent_of(const struct kopt *k, unsigned off, char *buf, size_t n)
{
	unsigned b = off;
	while (b > 0 && k->src[b - 1] != '\n')
		b--;
	size_t i = 0;
	while (b < off && (k->src[b] == ' ' || k->src[b] == '\t') && i + 1 < n)
		buf[i++] = k->src[b++];
	buf[i] = 0;
}

/* Where a statement really ends: an expression statement's extent stops
 * before its ';'. */
static unsigned stmt_end(const struct kopt *k, int n)
{
	unsigned e = k->n[n].e;
	if (k->n[n].kind == CXCursor_CompoundStmt || k->n[n].kind == CXCursor_ForStmt)
		return e;
	unsigned i = e;
	while (i < k->len && isspace((unsigned char)k->src[i]))
		i++;
	return i < k->len && k->src[i] == ';' ? i + 1 : e;
}

/* A loop body as a block (`{ ... }` stays, a single statement gets
 * braces), its lines indented `extra` more tabs than in the original. */
static void emit_block(struct emit *E, int body, int extra)
{
	const struct kopt *k = E->k;
	FILE *saved = E->out;
	char *text = NULL;
	size_t n = 0;
	E->out = open_memstream(&text, &n);
	if (!E->out)
		abort();
	if (k->n[body].kind == CXCursor_CompoundStmt ||
	    (E->cjam && !E->copying && body == last_kid(k, E->cjam->loop)))
		emit_node(E, body);   /* a block, or a jammed body: emit_jam_body's block */
	else {
		fputs("{ ", E->out);
		emit_node(E, body);
		if (stmt_end(k, body) != k->n[body].e)
			fputs(";", E->out);
		fputs(" }", E->out);
	}
	fclose(E->out);
	E->out = saved;
	for (const char *t = text; *t; t++) {
		fputc(*t, E->out);
		if (*t == '\n' && t[1] && t[1] != '\n')
			for (int i = 0; i < extra; i++)
				fputc('\t', E->out);
	}
	free(text);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = NULL;
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

/* The loop header's pieces: `TYPE v = INIT;`, the test `v + OFF < BOUND`. */
static void emit_test(struct emit *E, const struct pragma *p, long long off)
{
	const struct node *V = &E->k->n[p->var];
	if (off)
		fprintf(E->out, "%s + %lld %s ", V->name, off, p->le ? "<=" : "<");
	else
		fprintf(E->out, "%s %s ", V->name, p->le ? "<=" : "<");
	emit_node(E, p->bound);
}

/*
 * `for (; v < BOUND; v += STEP) BODY`, at indentation ind plus one tab:
 * the iterations an unrolled, jammed or vectorised loop leaves over, run
 * one at a time from where the transformed loop stopped.
 */
static void emit_remainder(struct emit *E, const struct pragma *p, const char *ind, int body)
{
	const char *v = E->k->n[p->var].name;
	fprintf(E->out, "%s\tfor (; ", ind);
	emit_test(E, p, 0);
	if (p->step == 1)
		fprintf(E->out, "; %s++) ", v);
	else
		fprintf(E->out, "; %s += %lld) ", v, p->step);
	emit_block(E, body, 1);
}

static void emit_unroll(struct emit *E, const struct pragma *p, long long F)
{
	const struct kopt *k = E->k;
	const struct node *V = &k->n[p->var];
	char ind[64];
	indent_of(k, k->n[p->target].b, ind, sizeof(ind));
	fprintf(E->out, "{ /* spacetune: unroll %s = %lld */\n%s\t%s %s = ", p->params[0], F, ind, V->type, V->name);
	emit_node(E, p->init);
	fprintf(E->out, ";\n%s\tfor (; ", ind);
	emit_test(E, p, (F - 1) * p->step);
	fprintf(E->out, "; %s += %lld) {\n", V->name, F * p->step);
	for (long long j = 0; j < F; j++) {
		int mark = E->nsubs;
		if (j)
			push_sub(E, V->at + 1, fmt("(%s + %lld)", V->name, j * p->step), false);
		fprintf(E->out, "%s\t\t", ind);
		emit_block(E, p->body, 2);
		fputs("\n", E->out);
		pop_subs(E, mark);
	}
	fprintf(E->out, "%s\t}\n", ind);
	if (p->trip < 0 || p->trip % F) {
		emit_remainder(E, p, ind, p->body);
		fputs("\n", E->out);
	}
	fprintf(E->out, "%s}", ind);
	E->resume = stmt_end(k, p->body);
}


/* Work per item: the kernel's body as a function of the global index
 * (renamed NAME_spacetune_item), and a kernel of the same name and
 * arguments calling it for F items, interleaved by the new global size so
 * neighbouring work-items still touch neighbouring elements. */
static void emit_coarsen(struct emit *E, const struct pragma *p, int pi)
{
	const struct kopt *k = E->k;
	int f = p->target, body = last_kid(k, f), first = -1, last = -1;
	const struct node *F = &k->n[f];
	for (int c = F->first; c >= 0; c = k->n[c].next)
		if (k->n[c].kind == CXCursor_ParmDecl) {
			if (first < 0)
				first = c;
			last = c;
		}
	/* the helper: `__kernel` dropped, the name changed, the indices as arguments */
	unsigned b = F->b;
	for (unsigned i = F->b; i < F->at; i++) {
		bool word = (i == F->b || !(isalnum((unsigned char)k->src[i - 1]) || k->src[i - 1] == '_'));
		size_t n = !strncmp(k->src + i, "__kernel", 8) ? 8 : !strncmp(k->src + i, "kernel", 6) ? 6 : 0;
		if (word && n && !(isalnum((unsigned char)k->src[i + n]) || k->src[i + n] == '_')) {
			fwrite(k->src + b, 1, i - b, E->out);
			b = (unsigned)(i + n);
			while (b < F->at && k->src[b] == ' ')
				b++;
			break;
		}
	}
	fprintf(E->out, "/* spacetune: coarsen");
	for (int d = 0; d < p->nparams; d++)
		fprintf(E->out, " %s = %lld", p->params[d], E->val[pi][d]);
	fprintf(E->out, ": one item of the original NDRange */\n");
	fwrite(k->src + b, 1, F->at - b, E->out);
	fprintf(E->out, "%s_spacetune_item", F->name);
	fwrite(k->src + F->at + strlen(F->name), 1, k->n[last].e - F->at - strlen(F->name), E->out);
	for (int d = 0; d < p->nparams; d++)
		fprintf(E->out, ", size_t spt_gid%d", d);
	emit_gap(E, k->n[last].e, k->n[body].b);
	E->coarsen = p;
	emit_node(E, body);
	E->coarsen = NULL;
	/* the kernel */
	fprintf(E->out, "\n\n__kernel void %s(", F->name);
	fwrite(k->src + k->n[first].b, 1, k->n[last].e - k->n[first].b, E->out);
	fprintf(E->out, ")\n{\n");
	char ind[16] = "\t";
	for (int d = p->nparams - 1; d >= 0; d--) {
		fprintf(E->out, "%sfor (size_t spt_c%d = 0; spt_c%d < %lld; spt_c%d++)\n", ind, d, d, E->val[pi][d], d);
		strcat(ind, "\t");
	}
	fprintf(E->out, "%s{\n", ind);
	for (int d = 0; d < p->nparams; d++)
		fprintf(E->out, "%s\tsize_t spt_g%d = get_global_id(%d) + spt_c%d * get_global_size(%d);\n", ind, d, d,
			d, d);
	fprintf(E->out, "%s\tif (", ind);
	for (int d = 0; d < p->nparams; d++)
		fprintf(E->out, "%sspt_g%d < %zu", d ? " && " : "", d, E->orig_global[d]);
	fprintf(E->out, ")\n%s\t\t%s_spacetune_item(", ind, F->name);
	for (int c = F->first, n = 0; c >= 0; c = k->n[c].next)
		if (k->n[c].kind == CXCursor_ParmDecl)
			fprintf(E->out, "%s%s", n++ ? ", " : "", k->n[c].name);
	for (int d = 0; d < p->nparams; d++)
		fprintf(E->out, ", spt_g%d", d);
	fprintf(E->out, ");\n%s}\n}", ind);
}

static void emit_stmt(struct emit *E, int st, const char *ind);

/* Item c of a jammed coarsening: its indices, its own variables. */
static void push_item(struct emit *E, long long c)
{
	const struct kopt *k = E->k;
	E->copy[0] = c % E->cf[0];
	E->copy[1] = c / E->cf[0];
	if (!c)
		return;
	for (int st = k->n[last_kid(k, E->cjam->target)].first; st >= 0; st = k->n[st].next)
		if (k->n[st].kind == CXCursor_DeclStmt)
			for (int d = k->n[st].first; d >= 0; d = k->n[d].next)
				if (k->n[d].kind == CXCursor_VarDecl)
					push_sub(E, k->n[d].at + 1, fmt("%s_spt%lld", k->n[d].name, c), true);
}

/* Item c's index along dimension d, unclamped: interleaved by the global
 * size, or along dimension 0 with vload width W in runs of W consecutive
 * indices, the runs interleaved. */
static char *item_index(const struct emit *E, int d, long long c)
{
	if (d == 0 && E->vw > 1)
		return fmt("(get_global_id(0) + %lld * get_global_size(0)) * %lld + %lld", c / E->vw, E->vw, c % E->vw);
	return fmt("get_global_id(%d) + %lld * get_global_size(%d)", d, c, d);
}

static void emit_tile_index(struct emit *E, const struct tile *t, const char *pos);

/* At the top of a copy of the jammed loop's body: for each read of a
 * vload array, one vector per run of W items (and per item row where the
 * index follows get_global_id(1)), read from the array at the run's first
 * item's index, or from its tile (check_vload). */
static void emit_vloads(struct emit *E, const char *ind)
{
	const struct kopt *k = E->k;
	const struct pragma *p = E->vload;
	for (int a = 0; a < p->nacc; a++) {
		const struct access *A = &p->acc[a];
		for (long long c1 = 0; c1 < (A->rows ? E->cf[1] : 1); c1++)
			for (long long g = 0; g < E->cf[0] / E->vw; g++) {
				int mark = E->nsubs;
				push_item(E, c1 * E->cf[0] + g * E->vw);
				fprintf(E->out, "%s\tconst %s%lld spt_v%d_%lld_%lld = vload%lld(0, &", ind, p->elem, E->vw, a, g,
					c1, E->vw);
				if (A->tile >= 0 && E->tile) {
					const struct node *V = &k->n[E->tile->var];
					const struct sub *s = sub_of(E, V->at + 1);
					char *pos = fmt("%s - spt_k0", s ? s->text : V->name);
					emit_tile_index(E, &E->tile->tiles[A->tile], pos);
					free(pos);
				} else {
					emit_span(E, A->node, k->n[A->node].b, k->n[A->node].e);
				}
				fputs(");\n", E->out);
				pop_subs(E, mark);
			}
	}
}

/* A vload array's read by the current item: its element of its run's vector. */
static bool emit_vload_elem(struct emit *E, int n)
{
	const struct pragma *p = E->vload;
	for (int a = 0; a < p->nacc; a++)
		if (p->acc[a].node == n) {
			fprintf(E->out, "spt_v%d_%lld_%lld.s%c", a, E->copy[0] / E->vw, p->acc[a].rows ? E->copy[1] : 0,
				"0123456789abcdef"[E->copy[0] % E->vw]);
			return true;
		}
	return false;
}

/* The jammed loop's body (check_coarsen_jam): one copy per item, each in braces. */
static void emit_jam_body(struct emit *E, int body)
{
	const struct kopt *k = E->k;
	const struct pragma *p = E->cjam;
	char ind[64];   /* laid out as a block of the loop's: its lines one deeper */
	indent_of(k, k->n[p->loop].b, ind, sizeof(ind));
	fputs("{\n", E->out);
	if (E->vload)
		emit_vloads(E, ind);
	E->copying = true;
	for (long long c = 0; c < E->cf[0] * E->cf[1]; c++) {
		int mark = E->nsubs;
		push_item(E, c);
		fprintf(E->out, "%s\t", ind);
		emit_block(E, body, 1);
		fputs("\n", E->out);
		pop_subs(E, mark);
	}
	fprintf(E->out, "%s}", ind);
	E->copying = false;
	E->resume = stmt_end(k, body);
}

/* The kernel with its items jammed (check_coarsen_jam): their indices,
 * the statements before the loop per item, the loop once with every
 * item's copy of its body, the statements after it per item. */
static void emit_coarsen_jam(struct emit *E, const struct pragma *p, int pi)
{
	const struct kopt *k = E->k;
	int f = p->target, body = last_kid(k, f);
	emit_gap(E, k->n[f].b, k->n[body].b);
	fprintf(E->out, "{\n\t/* spacetune: coarsen");
	for (int d = 0; d < p->nparams; d++)
		fprintf(E->out, " %s = %lld", p->params[d], E->val[pi][d]);
	fprintf(E->out, ", jam: each work-item computes %lld items, one loop",
		E->val[pi][0] * (p->nparams > 1 ? E->val[pi][1] : 1));
	if (E->vw > 1)
		fprintf(E->out, "; vload %s = %lld: dimension 0's items in runs of %lld%s", E->vwp->params[0], E->vw,
			E->vw, E->vload ? "" : " (reads stay scalar: some items fall past the NDRange)");
	fputs(" */\n", E->out);
	E->cf[0] = E->val[pi][0];
	E->cf[1] = p->nparams > 1 ? E->val[pi][1] : 1;
	for (int d = 0; d < p->nparams; d++)
		for (long long c = 0; c < E->cf[d]; c++) {
			char *ix = item_index(E, d, c);
			if (E->ragged)   /* an item past the NDRange computes on the last index */
				fprintf(E->out, "\tconst size_t spt_gid%d_%lld = min(%s, (size_t)%zu);\n", d, c, ix,
					E->orig_global[d] - 1);
			else
				fprintf(E->out, "\tconst size_t spt_gid%d_%lld = %s;\n", d, c, ix);
			free(ix);
		}
	E->coarsen = p;
	E->cjam = p;
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			E->copy[0] = E->copy[1] = 0;
			emit_stmt(E, p->loop, "\t");
			continue;
		}
		for (long long c = 0; c < E->cf[0] * E->cf[1]; c++) {
			int mark = E->nsubs;
			push_item(E, c);
			const char *ind = "\t";
			if (pass == 2 && E->ragged) {
				/* the item's stores: only if it is inside the NDRange */
				fputs("\tif (", E->out);
				for (int d = 0; d < p->nparams; d++) {
					char *ix = item_index(E, d, E->copy[d]);
					fprintf(E->out, "%s%s < %zu", d ? " && " : "", ix, E->orig_global[d]);
					free(ix);
				}
				fputs(") {\n", E->out);
				ind = "\t\t";
			}
			for (int st = k->n[body].first; st >= 0; st = k->n[st].next)
				if (st != p->loop && (k->n[st].b < k->n[p->loop].b) == (pass == 0))
					emit_stmt(E, st, ind);
			if (pass == 2 && E->ragged)
				fputs("\t}\n", E->out);
			pop_subs(E, mark);
		}
	}
	E->coarsen = NULL;
	E->cjam = NULL;
	fputs("}", E->out);
}

/* One statement of the outer body, as written (its ';' included). */
static void emit_stmt(struct emit *E, int st, const char *ind)
{
	fputs(ind, E->out);
	emit_node(E, st);
	if (stmt_end(E->k, st) != E->k->n[st].e)
		fputs(";", E->out);
	fputs("\n", E->out);
}

/* Copy c of the outer body: the outer variable offset, its own declarations renamed. */
static void push_copy(struct emit *E, const struct pragma *p, long long c)
{
	const struct kopt *k = E->k;
	const struct node *V = &k->n[p->var];
	if (!c)
		return;
	push_sub(E, V->at + 1, fmt("(%s + %lld)", V->name, c * p->step), false);
	for (int st = k->n[p->body].first; st >= 0; st = k->n[st].next)
		if (k->n[st].kind == CXCursor_DeclStmt)
			for (int d = k->n[st].first; d >= 0; d = k->n[d].next)
				if (k->n[d].kind == CXCursor_VarDecl)
					push_sub(E, k->n[d].at + 1, fmt("%s_spt%lld", k->n[d].name, c), true);
}

static void emit_jam(struct emit *E, const struct pragma *p, long long F)
{
	const struct kopt *k = E->k;
	const struct node *V = &k->n[p->var];
	int in = p->inner, ib = last_kid(k, in);
	char ind[64], ind2[72];
	indent_of(k, k->n[p->target].b, ind, sizeof(ind));
	snprintf(ind2, sizeof(ind2), "%s\t\t", ind);
	fprintf(E->out, "{ /* spacetune: unroll_jam %s = %lld */\n%s\t%s %s = ", p->params[0], F, ind, V->type,
		V->name);
	emit_node(E, p->init);
	fprintf(E->out, ";\n%s\tfor (; ", ind);
	emit_test(E, p, (F - 1) * p->step);
	fprintf(E->out, "; %s += %lld) {\n", V->name, F * p->step);
	for (int pass = 0; pass < 2; pass++)   /* before the inner loop, then after it */
		for (long long c = 0; c < F; c++) {
			int mark = E->nsubs;
			push_copy(E, p, c);
			for (int st = k->n[p->body].first; st >= 0; st = k->n[st].next)
				if (st != in && (k->n[st].b < k->n[in].b) == (pass == 0))
					emit_stmt(E, st, ind2);
			pop_subs(E, mark);
			if (pass == 0 && c == F - 1) {
				fputs(ind2, E->out);
				emit_span(E, in, k->n[in].b, k->n[ib].b);
				fputs("{\n", E->out);
				for (long long j = 0; j < F; j++) {
					int m2 = E->nsubs;
					push_copy(E, p, j);
					fprintf(E->out, "%s\t", ind2);
					emit_block(E, ib, 3);
					fputs("\n", E->out);
					pop_subs(E, m2);
				}
				fprintf(E->out, "%s}\n", ind2);
			}
		}
	fprintf(E->out, "%s\t}\n", ind);
	emit_remainder(E, p, ind, p->body);
	fprintf(E->out, "\n%s}", ind);
}


static void emit_vector(struct emit *E, const struct pragma *p, int pi, long long W)
{
	const struct kopt *k = E->k;
	const struct node *V = &k->n[p->var];
	int body = p->body;
	bool block = k->n[body].kind == CXCursor_CompoundStmt;
	char ind[64];
	indent_of(k, k->n[p->target].b, ind, sizeof(ind));
	fprintf(E->out, "{ /* spacetune: vector %s = %lld */\n%s\t%s %s = ", p->params[0], W, ind, V->type, V->name);
	emit_node(E, p->init);
	fputs(";\n", E->out);
	for (int st = block ? k->n[body].first : body; st >= 0; st = block ? k->n[st].next : -1)
		if (vstmt_kind(k, p, st) == VS_REDUCE)
			fprintf(E->out, "%s\t%s%lld spt_%s = (%s%lld)(0);\n", ind, p->elem, W,
				k->n[strip(k, k->n[st].first)].name, p->elem, W);
	fprintf(E->out, "%s\tfor (; ", ind);
	emit_test(E, p, W - 1);
	fprintf(E->out, "; %s += %lld) {\n", V->name, W);
	E->vector = p;
	E->width = W;
	for (int st = block ? k->n[body].first : body; st >= 0; st = block ? k->n[st].next : -1) {
		const struct node *S = &k->n[st];
		int l = strip(k, S->first);
		fprintf(E->out, "%s\t\t", ind);
		switch (vstmt_kind(k, p, st)) {
		case VS_DECL:
			fprintf(E->out, "%s%lld %s = ", p->elem, W, k->n[l].name);
			emit_node(E, last_kid(k, l));
			break;
		case VS_REDUCE:
			fprintf(E->out, "spt_%s %s ", k->n[l].name, S->op);
			emit_node(E, kid(k, st, 1));
			break;
		case VS_ASSIGN:
			fprintf(E->out, "%s %s ", k->n[l].name, S->op);
			emit_node(E, kid(k, st, 1));
			break;
		case VS_STORE:
			fprintf(E->out, "vstore%lld(", W);
			if (S->kind == CXCursor_CompoundAssignOperator) {
				emit_node(E, l);
				fprintf(E->out, " %c ", S->op[0]);
			}
			fputs("(", E->out);
			emit_node(E, kid(k, st, 1));
			fputs("), 0, &", E->out);
			E->vector = NULL;
			emit_node(E, l);
			E->vector = p;
			fputs(")", E->out);
			break;
		}
		fputs(";\n", E->out);
	}
	E->vector = NULL;
	fprintf(E->out, "%s\t}\n", ind);
	for (int st = block ? k->n[body].first : body; st >= 0; st = block ? k->n[st].next : -1)
		if (vstmt_kind(k, p, st) == VS_REDUCE) {
			const char *name = k->n[strip(k, k->n[st].first)].name;
			fprintf(E->out, "%s\t%s += ", ind, name);
			for (long long c = 0; c < W; c++)
				fprintf(E->out, "%sspt_%s.s%c", c ? " + " : "", name, "0123456789abcdef"[c]);
			fputs(";\n", E->out);
		}
	(void)pi;
	emit_remainder(E, p, ind, body);  /* a vector loop steps by 1 (check_vector) */
	fprintf(E->out, "\n%s}", ind);
	E->resume = stmt_end(k, body);
}


/* An offset as C: `2 * dy + -1`, through the current substitutions. */
static void emit_poly(struct emit *E, const struct poly *P)
{
	const struct kopt *k = E->k;
	bool any = false;
	for (int i = 0; i < P->n; i++) {
		const struct term *t = &P->t[i];
		if (!t->c)
			continue;
		fputs(any ? " + " : "", E->out);
		any = true;
		if (t->a < 0) {
			fprintf(E->out, "(%lld)", t->c);
			continue;
		}
		const struct sub *s = sub_of(E, k->n[t->a].at + 1);
		if (t->c != 1)
			fprintf(E->out, "(%lld) * ", t->c);
		fputs(s ? s->text : k->n[t->a].name, E->out);
	}
	if (!any)
		fputs("0", E->out);
}

/* The tile load at the top of the kernel: every work-item copies a share
 * of the work-group's footprint (its indices plus the offsets' range)
 * into __local memory, reading only elements inside the buffer, then the
 * work-items past the original NDRange (the global size was rounded up
 * to the work-group) leave. */
static void emit_local_load(struct emit *E, const struct pragma *p, int pi)
{
	const struct kopt *k = E->k;
	long long w0 = E->val[pi][0], w1 = p->dims == 2 ? E->val[pi][1] : 1;
	long long tx = w0 + p->hi[0] - p->lo[0], ty = p->dims == 2 ? w1 + p->hi[1] - p->lo[1] : 1;
	uint64_t count = E->v->arg_counts && p->param_index < E->v->nargs ? E->v->arg_counts[p->param_index] : 0;
	fprintf(E->out, "\n\t/* spacetune: local %s, work-group %lld", p->array, w0);
	if (p->dims == 2)
		fprintf(E->out, " x %lld, tile %lld x %lld */\n\t__local %s spt_%s[%lld][%lld];\n", w1, ty, tx,
			p->elem, p->array, ty, tx);
	else
		fprintf(E->out, ", tile %lld */\n\t__local %s spt_%s[%lld];\n", tx, p->elem, p->array, tx);
	fprintf(E->out, "\t{\n\t\tconst long spt_x0 = (long)get_group_id(0) * %lld + (%lld);\n", w0, p->lo[0]);
	if (p->dims == 2)
		fprintf(E->out, "\t\tconst long spt_y0 = (long)get_group_id(1) * %lld + (%lld);\n", w1, p->lo[1]);
	fprintf(E->out, "\t\tfor (int spt_t = %s; spt_t < %lld; spt_t += %lld) {\n",
		p->dims == 2 ? "(int)(get_local_id(1) * get_local_size(0) + get_local_id(0))" : "(int)get_local_id(0)",
		tx * ty, w0 * w1);
	if (p->dims == 2)
		fprintf(E->out, "\t\t\tconst long spt_i = (spt_y0 + spt_t / %lld) * (long)%s + spt_x0 + spt_t %% %lld;\n"
				"\t\t\tspt_%s[spt_t / %lld][spt_t %% %lld] = ",
			tx, k->n[p->pitch].name, tx, p->array, tx, tx);
	else
		fprintf(E->out, "\t\t\tconst long spt_i = spt_x0 + spt_t;\n\t\t\tspt_%s[spt_t] = ", p->array);
	fprintf(E->out, "spt_i >= 0 && spt_i < %" PRIu64 " ? %s[spt_i] : (%s)0;\n\t\t}\n"
			"\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n\t}\n\tif (get_global_id(0) >= %zu",
		count, p->array, p->elem, E->orig_global[0]);
	if (p->dims == 2)
		fprintf(E->out, " || get_global_id(1) >= %zu", E->orig_global[1]);
	fputs(")\n\t\treturn;", E->out);
}

static void emit_local_access(struct emit *E, const struct pragma *p, int n)
{
	const struct access *A = NULL;
	for (int i = 0; i < p->nacc; i++)
		if (p->acc[i].node == n)
			A = &p->acc[i];
	fprintf(E->out, "spt_%s", p->array);
	for (int d = p->dims - 1; d >= 0; d--) {
		fprintf(E->out, "[get_local_id(%d) + ", d);
		emit_poly(E, &A->off[d]);
		fprintf(E->out, " - (%lld)]", p->lo[d]);
	}
}

/* The annotation of node n (a tile aside: tile_on), or NULL. */
static const struct pragma *pragma_on(const struct emit *E, int n, int *index)
{
	for (int i = 0; i < E->k->np; i++)
		if (E->k->p[i].target == n && E->k->p[i].kind != KOPT_TILE) {
			*index = i;
			return &E->k->p[i];
		}
	return NULL;
}

static const struct pragma *tile_on(const struct emit *E, int n, int *index)
{
	for (int i = 0; i < E->k->np; i++)
		if (E->k->p[i].target == n && E->k->p[i].kind == KOPT_TILE) {
			*index = i;
			return &E->k->p[i];
		}
	return NULL;
}

/* The current item's place along dimension d of the work-group's tile.
 * Without jammed coarsening, the work-item's local id.  With it, the
 * work-group's items of dimension d form F blocks of L (its local size):
 * item c's column is c * L + get_local_id(d), as its global index is
 * get_global_id(d) + c * get_global_size(d); along dimension 0 with
 * vload width W, runs of W consecutive items (item c = g * W + w, global
 * index (get_global_id(0) + g * get_global_size(0)) * W + w) sit at
 * g * L * W + get_local_id(0) * W + w. */
static void emit_tile_slot(struct emit *E, int d)
{
	long long c = E->cjam ? E->copy[d] : 0, W = d == 0 ? E->vw : 1;
	long long L = (long long)E->v->local[d], at = c / W * L * W + c % W;
	if (W > 1)
		fprintf(E->out, "get_local_id(%d) * %lld", d, W);
	else
		fprintf(E->out, "get_local_id(%d)", d);
	if (at)
		fprintf(E->out, " + %lld", at);
}

/* spt_A[...] of a tile (check_tile): its row, its column or its strip,
 * at `pos` along the loop (from the tile's first iteration), for the
 * current item. */
static void emit_tile_index(struct emit *E, const struct tile *t, const char *pos)
{
	fprintf(E->out, "spt_%s[", t->name);
	if (t->dim == 1) {
		emit_tile_slot(E, 1);
		fprintf(E->out, "][%s]", pos);
	} else if (t->dim == 0) {
		fprintf(E->out, "%s][", pos);
		emit_tile_slot(E, 0);
		fputs("]", E->out);
	} else
		fprintf(E->out, "%s]", pos);
}

/* The items a tile's load covers: those of its dimension (jammed coarsening). */
static long long tile_items(const struct emit *E, const struct tile *t)
{
	return !E->cjam || t->dim < 0 ? 1 : E->cf[t->dim];
}

/* `for (V = FROM; V OP BOUND and V < spt_k0 + T; V++) BODY` at ind, the
 * loop over one tile (OP the loop's own < or <=; no BOUND test when the
 * tile is known full), unrolled by U. */
static void emit_tile_loop(struct emit *E, const struct pragma *p, long long T, long long U, bool full,
			   const char *ind, int depth)
{
	const struct kopt *k = E->k;
	const struct node *V = &k->n[p->var];
	if (U > 1)
		fprintf(E->out, "%sfor (%s %s = spt_k0; %s + %lld < spt_k0 + %lld", ind, V->type, V->name, V->name,
			U - 1, T);
	else
		fprintf(E->out, "%sfor (%s %s = spt_k0; %s < spt_k0 + %lld", ind, V->type, V->name, V->name, T);
	if (!full) {
		fputs(" && ", E->out);
		emit_test(E, p, U - 1);
	}
	if (U > 1)
		fprintf(E->out, "; %s += %lld) {\n", V->name, U);
	else
		fprintf(E->out, "; %s++) {\n", V->name);
	for (long long j = 0; j < U; j++) {
		int mark = E->nsubs;
		if (j)
			push_sub(E, V->at + 1, fmt("(%s + %lld)", V->name, j), false);
		fprintf(E->out, "%s\t", ind);
		emit_block(E, p->body, depth);
		fputs("\n", E->out);
		pop_subs(E, mark);
	}
	fprintf(E->out, "%s}\n", ind);
}

/*
 * A tiled loop (check_tile): for each tile of T iterations, every array's
 * tile copied into __local memory by the work-group (each work-item a
 * share, only elements the loop reads), a barrier, the loop over the tile
 * reading __local memory (unrolled by the loop's `unroll` factor, with
 * a test of the bound only in the last, partial tile), and a barrier
 * before the next tile overwrites this one.
 */
static void emit_tile(struct emit *E, const struct pragma *p, int pi)
{
	const struct kopt *k = E->k;
	const struct node *V = &k->n[p->var];
	long long T = E->val[pi][0], U = 1;
	size_t lx = E->v->local[0], ly = E->v->work_dim > 1 ? E->v->local[1] : 1;
	int ui;
	const struct pragma *u = pragma_on(E, p->target, &ui);
	if (u && u->kind == KOPT_UNROLL)
		U = E->val[ui][0];
	char ind[64];
	indent_of(k, k->n[p->target].b, ind, sizeof(ind));
	/* __local variables belong to the kernel's outermost block: the
	 * tiles are declared there, before the loop (check_tile) */
	fprintf(E->out, "/* spacetune: tile %s = %lld: %s in __local memory, work-group %zu x %zu", p->params[0],
		T, p->array, lx, ly);
	if (E->cjam)
		fprintf(E->out, " of %lld x %lld items", E->cf[0], E->cf[1]);
	if (U > 1)
		fprintf(E->out, "; unroll %s = %lld", u->params[0], U);
	fputs(" */\n", E->out);
	for (int i = 0; i < p->ntiles; i++) {
		const struct tile *t = &p->tiles[i];
		fprintf(E->out, "%s__local %s spt_%s", ind, t->elem, t->name);
		if (t->dim == 1)
			fprintf(E->out, "[%lld][%lld];\n", (long long)ly * tile_items(E, t), T);
		else if (t->dim == 0)
			fprintf(E->out, "[%lld][%lld];\n", T, (long long)lx * tile_items(E, t));
		else
			fprintf(E->out, "[%lld];\n", T);
	}
	fprintf(E->out, "%sfor (%s spt_k0 = ", ind, V->type);
	emit_node(E, p->init);
	fprintf(E->out, "; spt_k0 %s ", p->le ? "<=" : "<");
	emit_node(E, p->bound);
	fprintf(E->out, "; spt_k0 += %lld) {\n", T);
	for (int i = 0; i < p->ntiles; i++) {
		const struct tile *t = &p->tiles[i];
		/* a row: its work-items share out the T elements; a column:
		 * likewise down the work-group; a strip: all of them */
		const char *from = t->dim == 1 ? "get_local_id(0)" : t->dim == 0 ? "get_local_id(1)"
				   : "get_local_id(1) * get_local_size(0) + get_local_id(0)";
		size_t by = t->dim == 1 ? lx : t->dim == 0 ? ly : lx * ly;
		fprintf(E->out, "%s\tfor (int spt_kk = (int)(%s); spt_kk < %lld; spt_kk += %zu)\n%s\t\tif (",
			ind, from, T, by, ind);
		int mark = E->nsubs;
		push_sub(E, V->at + 1, xstrdup("(spt_k0 + spt_kk)"), false);
		fprintf(E->out, "spt_k0 + spt_kk %s ", p->le ? "<=" : "<");
		emit_node(E, p->bound);
		pop_subs(E, mark);
		/* a vload array's run of W items: W consecutive elements, to W
		 * consecutive places of the tile (unless items fall past the
		 * NDRange, whose clamped indices are not consecutive) */
		bool vec = false;
		for (int a = 0; E->vload && !E->ragged0 && t->dim == 0 && a < E->vload->nacc; a++)
			vec |= E->vload->acc[a].tile == i;
		long long n = tile_items(E, t), step = vec ? E->vw : 1;
		fprintf(E->out, ")%s", n > step ? " {\n" : "\n");
		/* each of the work-item's items along the tile's dimension
		 * loads its own element: the index with that item's names */
		for (long long c = 0; c < n; c += step) {
			mark = E->nsubs;
			if (E->cjam)
				push_item(E, t->dim == 1 ? c * E->cf[0] : c);
			push_sub(E, V->at + 1, xstrdup("(spt_k0 + spt_kk)"), false);
			fprintf(E->out, "%s\t\t\t", ind);
			if (vec) {
				fprintf(E->out, "vstore%lld(vload%lld(0, &%s[", step, step, t->name);
				emit_node(E, t->index);
				fputs("]), 0, &", E->out);
				emit_tile_index(E, t, "spt_kk");
				fputs(");\n", E->out);
			} else {
				emit_tile_index(E, t, "spt_kk");
				fprintf(E->out, " = %s[", t->name);
				emit_node(E, t->index);
				fputs("];\n", E->out);
			}
			pop_subs(E, mark);
		}
		E->copy[0] = E->copy[1] = 0;
		if (n > step)
			fprintf(E->out, "%s\t\t}\n", ind);
	}
	fprintf(E->out, "%s\tbarrier(CLK_LOCAL_MEM_FENCE);\n", ind);
	E->tile = p;
	char ind2[80], ind3[80];
	snprintf(ind2, sizeof(ind2), "%s\t", ind);
	snprintf(ind3, sizeof(ind3), "%s\t\t", ind);
	if (U > 1) {
		/* a full tile: T iterations, no bound to test */
		fprintf(E->out, "%sif (spt_k0 + %lld %s ", ind2, T - 1, p->le ? "<=" : "<");
		emit_node(E, p->bound);
		fputs(") {\n", E->out);
		emit_tile_loop(E, p, T, U, true, ind3, 3);
		if (T % U) {
			E->tile = p;
			fprintf(E->out, "%sfor (%s %s = spt_k0 + %lld; %s < spt_k0 + %lld; %s++) ", ind3, V->type, V->name,
				T - T % U, V->name, T, V->name);
			emit_block(E, p->body, 2);
			fputs("\n", E->out);
		}
		fprintf(E->out, "%s} else {\n", ind2);
		emit_tile_loop(E, p, T, 1, false, ind3, 3);
		fprintf(E->out, "%s}\n", ind2);
	} else {
		emit_tile_loop(E, p, T, 1, false, ind2, 2);
	}
	E->tile = NULL;
	fprintf(E->out, "%s\tbarrier(CLK_LOCAL_MEM_FENCE);\n%s}", ind, ind);
	E->resume = stmt_end(k, p->body);
}

static void emit_node(struct emit *E, int n)
{
	const struct kopt *k = E->k;
	const struct node *x = &k->n[n];
	int pi;
	long long d;
	const struct pragma *p = x->kind == CXCursor_ForStmt ? tile_on(E, n, &pi) : NULL;
	if (p && E->val[pi][0] > 1) {
		emit_tile(E, p, pi);
		return;
	}
	if (E->vload && E->copying && x->kind == CXCursor_ArraySubscriptExpr && emit_vload_elem(E, n))
		return;
	if (E->tile && x->kind == CXCursor_ArraySubscriptExpr) {
		int base = strip(k, x->first);
		for (int i = 0; k->n[base].kind == CXCursor_DeclRefExpr && i < E->tile->ntiles; i++)
			if (!strcmp(k->n[base].name, E->tile->tiles[i].name) && within(k, n, E->tile->body)) {
				const struct node *V = &k->n[E->tile->var];
				const struct sub *s = sub_of(E, V->at + 1);
				char *pos = fmt("%s - spt_k0", s ? s->text : V->name);
				emit_tile_index(E, &E->tile->tiles[i], pos);
				free(pos);
				return;
			}
	}
	p = x->kind == CXCursor_ForStmt ? pragma_on(E, n, &pi) : NULL;
	if (p && p->kind == KOPT_UNROLL && E->val[pi][0] > 1) {
		emit_unroll(E, p, E->val[pi][0]);
		return;
	}
	if (E->local && x->kind == CXCursor_CompoundStmt && n == last_kid(k, E->local->target)) {
		fputs("{", E->out);
		emit_local_load(E, E->local, E->local_index);
		emit_span(E, n, x->b + 1, x->e);
		return;
	}
	if (E->local && x->kind == CXCursor_CallExpr && !strcmp(x->name, "get_global_size") && x->nkids == 2 &&
	    const_eval(k, last_kid(k, n), &d) && d < E->local->dims && func_of(k, n) == E->local->target) {
		/* the NDRange was rounded up to the work-group: the kernel sees the original */
		fprintf(E->out, "(size_t)%zu", E->orig_global[d]);
		return;
	}
	if (E->local && x->kind == CXCursor_ArraySubscriptExpr) {
		int base = strip(k, x->first);
		if (k->n[base].kind == CXCursor_DeclRefExpr && !strcmp(k->n[base].name, E->local->array) &&
		    func_of(k, n) == E->local->target) {
			emit_local_access(E, E->local, n);
			return;
		}
	}
	if (p && p->kind == KOPT_VECTOR && E->val[pi][0] > 1) {
		emit_vector(E, p, pi, E->val[pi][0]);
		return;
	}
	if (E->vector && x->kind == CXCursor_ArraySubscriptExpr) {
		fprintf(E->out, "vload%lld(0, &", E->width);
		const struct pragma *saved = E->vector;
		E->vector = NULL;
		emit_span(E, n, x->b, x->e);
		E->vector = saved;
		fputs(")", E->out);
		return;
	}
	if (p && p->kind == KOPT_UNROLL_JAM && E->val[pi][0] > 1) {
		emit_jam(E, p, E->val[pi][0]);
		return;
	}
	if (x->kind == CXCursor_FunctionDecl && (p = pragma_on(E, n, &pi)) && p->kind == KOPT_COARSEN &&
	    (E->val[pi][0] > 1 || E->val[pi][1] > 1)) {
		if (p->jam)
			emit_coarsen_jam(E, p, pi);
		else
			emit_coarsen(E, p, pi);
		return;
	}
	if (E->cjam && !E->copying && n == last_kid(k, E->cjam->loop)) {
		emit_jam_body(E, n);
		return;
	}
	if (E->coarsen && x->kind == CXCursor_CallExpr && x->nkids == 2 && const_eval(k, last_kid(k, n), &d) &&
	    d < E->coarsen->nparams) {
		if (!strcmp(x->name, "get_global_id")) {
			if (E->cjam)
				fprintf(E->out, "spt_gid%lld_%lld", d, E->copy[d]);
			else
				fprintf(E->out, "spt_gid%lld", d);
			return;
		}
		if (!strcmp(x->name, "get_global_size")) {
			fprintf(E->out, "(size_t)%zu", E->orig_global[d]);
			return;
		}
	}
	if (x->kind == CXCursor_DeclRefExpr && !x->macro) {
		const struct sub *s = sub_of(E, x->decl);
		if (s) {
			fputs(s->text, E->out);
			return;
		}
	}
	emit_span(E, n, x->b, x->e);
}

int kopt_apply(const struct kopt *k, struct kopt_variant *v, char **source, char *why, size_t whylen)
{
	*source = NULL;
	struct emit E = { .k = k, .v = v, .vw = 1 };
	E.val = xcalloc((size_t)k->np + 1, sizeof(*E.val));
	for (int i = 0; i < k->np; i++) {
		const struct pragma *p = &k->p[i];
		for (int j = 0; j < p->nparams; j++) {
			const char *text = NULL;
			for (int a = 0; a < v->nparams; a++)
				if (!strcmp(v->names[a], p->params[j]))
					text = v->values[a];
			long long x;
			if (!text || !is_int(text, &x) || x < 1) {
				snprintf(why, whylen, "parameter '%s' (%s:%d) has %s%s", p->params[j], k->filename,
					 p->line, text ? "no positive integer value: " : "no value", text ? text : "");
				free(E.val);
				return 1;
			}
			E.val[i][j] = x;
		}
	}
	memcpy(E.orig_global, v->global, sizeof(E.orig_global));
	for (int i = 0; i < k->np; i++) {
		const struct pragma *p = &k->p[i];
		if (p->kind != KOPT_COARSEN)
			continue;
		if (v->work_dim < p->nparams) {
			snprintf(why, whylen, "%s:%d: 'coarsen' has %d factors but the NDRange has %d dimension%s",
				 k->filename, p->line, p->nparams, v->work_dim, v->work_dim > 1 ? "s" : "");
			free(E.val);
			return 1;
		}
		if (p->nparams == 1)
			E.val[i][1] = 1;
		/* jam: guards only where the items do not tile the NDRange exactly */
		bool ragged0 = false;
		for (int d = 0; p->jam && d < p->nparams; d++) {
			size_t F = (size_t)E.val[i][d];
			if (v->global[d] % F || (v->local[d] && v->global[d] / F % v->local[d])) {
				E.ragged = true;
				ragged0 |= d == 0;
			}
		}
		for (int j = 0; p->jam && j < k->np; j++)
			if (k->p[j].kind == KOPT_VLOAD && k->p[j].target == p->target && E.val[j][0] > 1) {
				if (E.val[i][0] % E.val[j][0]) {
					snprintf(why, whylen, "%s:%d: 'vload' width %lld does not divide the %lld items of "
						 "dimension 0", k->filename, k->p[j].line, E.val[j][0], E.val[i][0]);
					free(E.val);
					return 1;
				}
				E.vw = E.val[j][0];
				E.vwp = &k->p[j];
				/* a run's vector from the array itself would read past the
				 * NDRange's last item where items fall past it: then only
				 * the tiled arrays (whose tiles hold the clamped items) are
				 * read as vectors, so all stay scalar rather than mix */
				bool tiled = true;
				for (int a = 0; a < k->p[j].nacc; a++)
					tiled &= k->p[j].acc[a].tile >= 0;
				for (int t = 0; t < k->np; t++)   /* ... and staged at this point */
					if (k->p[t].kind == KOPT_TILE && k->p[t].target == p->loop && E.val[t][0] < 2)
						tiled = false;
				if (!ragged0 || tiled)
					E.vload = &k->p[j];
				E.ragged0 = ragged0;
			}
		for (int d = 0; d < p->nparams; d++) {
			size_t g = (v->global[d] + (size_t)E.val[i][d] - 1) / (size_t)E.val[i][d];
			if (v->local[d])
				g = (g + v->local[d] - 1) / v->local[d] * v->local[d];
			v->global[d] = g;
		}
	}
	for (int i = 0; i < k->np; i++) {
		const struct pragma *p = &k->p[i];
		if (p->kind != KOPT_LOCAL)
			continue;
		if (v->work_dim < p->dims || (v->arg_counts && p->param_index < v->nargs &&
					      !v->arg_counts[p->param_index])) {
			snprintf(why, whylen, "%s:%d: 'local' needs a %d-D NDRange and '%s' a buffer argument",
				 k->filename, p->line, p->dims, p->array);
			free(E.val);
			return 1;
		}
		E.local = p;
		E.local_index = i;
		for (int d = 0; d < p->dims; d++) {
			size_t w = (size_t)E.val[i][d];
			v->local[d] = w;
			v->global[d] = (v->global[d] + w - 1) / w * w;
		}
		for (int d = p->dims; d < v->work_dim; d++) {
			/* the other dimensions: work-groups of one */
			v->local[d] = 1;
		}
	}
	for (int i = 0; i < k->np; i++) {
		const struct pragma *p = &k->p[i];
		if (p->kind != KOPT_TILE || E.val[i][0] < 2)
			continue;
		/* the tiles' shapes are the work-group's: the space must give it */
		bool rows = false;
		long long bytes = 0, items[2] = { 1, 1 };
		for (int j = 0; j < k->np; j++)   /* jammed items: a tile holds every item's row or column */
			if (k->p[j].kind == KOPT_COARSEN && k->p[j].jam && k->p[j].target == func_of(k, p->target)) {
				items[0] = E.val[j][0];
				items[1] = E.val[j][1];
			}
		for (int t = 0; t < p->ntiles; t++) {
			rows |= p->tiles[t].dim == 1;
			long long cells = p->tiles[t].dim == 1 ? (long long)(v->work_dim > 1 ? v->local[1] : 1) * items[1]
					  : p->tiles[t].dim == 0 ? (long long)v->local[0] * items[0] : 1;
			bytes += cells * E.val[i][0] * elem_size(p->tiles[t].elem);
		}
		const char *bad = !v->local[0] ? "needs the work-group size (a 'local' line)"
				  : rows && v->work_dim < 2 ? "stages rows of a 2-D NDRange, and this one is 1-D"
				  : bytes > 32768 ? "would use more than 32 KiB of __local memory" : NULL;
		if (bad) {
			snprintf(why, whylen, "%s:%d: 'tile' %s", k->filename, p->line, bad);
			free(E.val);
			return 1;
		}
	}
	size_t n = 0;
	E.out = open_memstream(source, &n);
	if (!E.out)
		abort();
	emit_span(&E, 0, 0, (unsigned)k->len);
	fclose(E.out);
	pop_subs(&E, 0);
	free(E.subs);
	free(E.val);
	return 0;
}
