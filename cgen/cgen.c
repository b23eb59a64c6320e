/*
 * cgen.c - the enumerator as C: state, definitions, the loop nest and the
 * descriptor.
 *
 * The output has five parts, written in this order:
 *   1. a header line and <spacert.h>, whose spacert_gen.h has the fixed
 *      helpers the code calls (nothing fixed is pasted in);
 *   2. the string table and `struct space_state`, one sprt_val per
 *      definition (plus each iterator's iterable, each closure's yields
 *      and each definition's scratch vectors);
 *   3. one static function per definition, `def_NAME`, computing its value
 *      (an iterator: its iterable) into *out, or returning a nonzero
 *      SPRT_E* code for a domain error; each is preceded by a comment
 *      quoting the .space text and wrapped in #line directives;
 *   4. run(): level -1 once, then the loop nest in the final loop order with
 *      each derived value and constraint at its level, in prog->defs
 *      order, counting exactly as lang/interp.c does;
 *   5. the descriptor `spacec_space` and, for `spacec emit`, main().
 *
 * Everything is generated into memory first; `#line` directives back into
 * the C file are numbered in a last pass.
 */
#include "cgen.h"

#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_int.h"

/* The statement's text: from the start of its first line, trailing blanks
 * dropped, common indentation removed; one C comment line per line. */
static void quote_source(struct cg *c, struct sbuf *b, const struct ast_stmt *st)
{
	const char *src = c->opt->source_text;
	size_t len = c->opt->source_len;
	if (!src || !st || st->src_begin < 0 || st->src_end <= st->src_begin || (size_t)st->src_end > len)
		return;
	size_t begin = (size_t)st->src_begin, end = (size_t)st->src_end;
	while (begin > 0 && (src[begin - 1] == ' ' || src[begin - 1] == '\t'))
		begin--;
	while (end > begin && (src[end - 1] == ' ' || src[end - 1] == '\t' || src[end - 1] == '\n' ||
			       src[end - 1] == '\r'))
		end--;
	/* Common indentation of non-blank lines. */
	size_t indent = (size_t)-1;
	for (size_t p = begin; p < end;) {
		size_t q = p, w = 0;
		while (q < end && (src[q] == ' ' || src[q] == '\t'))
			q++, w++;
		if (q < end && src[q] != '\n' && w < indent)
			indent = w;
		while (q < end && src[q] != '\n')
			q++;
		p = q + 1;
	}
	if (indent == (size_t)-1)
		indent = 0;
	sbuf_puts(b, " *\n");
	for (size_t p = begin; p < end;) {
		size_t q = p;
		while (q < end && src[q] != '\n')
			q++;
		size_t from = p;
		for (size_t k = 0; k < indent && from < q && (src[from] == ' ' || src[from] == '\t'); k++)
			from++;
		size_t to = q;
		while (to > from && (src[to - 1] == ' ' || src[to - 1] == '\t' || src[to - 1] == '\r'))
			to--;
		if (to > from) {
			sbuf_puts(b, " *   ");
			cg_comment_text(b, src + from, to - from);
			sbuf_puts(b, "\n");
		} else {
			sbuf_puts(b, " *\n");
		}
		p = q + 1;
	}
}

/* The text of a device's or setting's default: after the first '='. */
static const char *default_text(struct cg *c, const struct sema_def *d)
{
	const char *src = c->opt->source_text;
	const struct ast_stmt *st = d->stmt;
	if (!src || !st || st->src_begin < 0 || (size_t)st->src_end > c->opt->source_len)
		return NULL;
	const char *p = src + st->src_begin, *end = src + st->src_end;
	while (p < end && *p != '=')
		p++;
	if (p == end)
		return NULL;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *q = p;
	while (q < end && *q != '\n' && *q != '#')
		q++;
	while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r'))
		q--;
	struct sbuf b = { 0 };
	sbuf_add(&b, p, (size_t)(q - p));
	cg_keep(c, b.s);
	return b.s;
}

/*
 * The source line of a device's or setting's name, for the runtime's
 * located error (sprt_bindable_report); NULL where it is not at hand or
 * too long to quote whole.  Control bytes become '?', as in spacec's own
 * quotes, so the caret under it stays aligned.
 */
static const char *name_line(struct cg *c, const struct sema_def *d)
{
	const char *src = c->opt->source_text;
	const struct ast_stmt *st = d->stmt;
	if (!src || !st || st->src_begin < 0 || (size_t)st->src_begin > c->opt->source_len)
		return NULL;
	size_t begin = (size_t)st->src_begin, end = begin;
	while (begin > 0 && src[begin - 1] != '\n')
		begin--;
	if (begin == 0 && c->opt->source_len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3))
		begin = 3; /* the byte order mark: columns start after it */
	while (end < c->opt->source_len && src[end] != '\n')
		end++;
	if (end > begin && src[end - 1] == '\r')
		end--;
	if (end - begin > 200)
		return NULL;
	struct sbuf b = { 0 };
	for (size_t i = begin; i < end; i++) {
		unsigned char ch = (unsigned char)src[i];
		char out = (ch == '\t' || (ch >= 0x20 && ch < 0x7f) || ch >= 0x80) ? (char)ch : '?';
		sbuf_add(&b, &out, 1);
	}
	if (!b.s)
		sbuf_puts(&b, "");
	cg_keep(c, b.s);
	return b.s;
}

static const char *kind_word(const struct sema_def *d)
{
	switch (d->kind) {
	case SEMA_DEVICE: return "device parameter";
	case SEMA_SETTING: return "setting";
	case SEMA_CONST: return "constant";
	case SEMA_TABLE: return "table";
	case SEMA_ITER:
		return d->form == SEMA_FORM_CLOSURE ? "iterator (closure)" :
		       d->form == SEMA_FORM_DEF ? "iterator (def)" : "iterator";
	case SEMA_DERIVED: return "derived";
	case SEMA_CONSTRAINT:
		switch (d->cclass) {
		case AST_HARD: return d->require ? "hard requirement" : "hard constraint";
		case AST_SOFT: return d->require ? "soft requirement" : "soft constraint";
		case AST_CORRECT: return d->require ? "correctness requirement" : "correctness constraint";
		}
	}
	return "definition";
}

/* ---- definitions ------------------------------------------------------------------------- */

static void gen_def(struct cg *c, struct sbuf *out, const struct sema_def *d)
{
	struct sbuf code = { 0 };
	c->fn = d;
	c->code = &code;
	sbuf_release(&c->decls);
	c->indent = 1;
	c->ntemps = 0;
	bool typed = d->kind != SEMA_ITER && c->ctype[d->id] != CG_T_VAL;
	if (typed)
		cg_line(c, "*out = %s;", cg_int_operand(c, d->expr));
	else if (d->form == SEMA_FORM_EXPR)
		cg_expr_into(c, d->expr, "(*out)");
	else
		cg_body(c, d);
	if (d->form == SEMA_FORM_EXPR)
		cg_line(c, "return 0;");

	sbuf_printf(out, "/*\n * %s: %s", d->cname, kind_word(d));
	if (d->kind != SEMA_DEVICE && d->kind != SEMA_SETTING)
		sbuf_printf(out, cg_level(c, d) < 0 ? ", computed once" : ", at loop level %d", cg_level(c, d));
	if (d->version > 0)
		sbuf_printf(out, d->replaces ? "\n * (version %d of '%s', an update of the previous one)"
					     : "\n * (version %d of '%s', assigned inside a top-level 'if')",
			    d->version, d->name);
	if (d->specialized && d->kind != SEMA_DEVICE && d->kind != SEMA_SETTING)
		sbuf_printf(out, "\n * -O%d: specialization: %s", c->opt->opt_level,
			    !d->written ? "the def body is the expression it returns, for the run's bindings"
					: "the run's bindings folded in");
	sbuf_puts(out, "\n");
	quote_source(c, out, d->stmt);
	sbuf_puts(out, " */\n");
	if (c->opt->line_directives)
		sbuf_printf(out, "#line %d %s\n", d->stmt ? d->stmt->loc.line : d->loc.line, c->src_quoted);
	sbuf_printf(out, "static int def_%s(struct sprt_ctx *ctx, struct space_state *st, %s *out)\n{\n",
		    c->member[d->id], typed ? "int64_t" : "sprt_val");
	if (c->decls.len)
		sbuf_add(out, c->decls.s, c->decls.len);
	sbuf_puts(out, "\t(void)ctx;\n\t(void)st;\n");
	sbuf_add(out, code.s, code.len);
	sbuf_puts(out, "}\n");
	if (c->opt->line_directives)
		sbuf_puts(out, "\001\n");
	sbuf_puts(out, "\n");
	sbuf_release(&code);
	c->code = NULL;
}

/* ---- the loop nest ------------------------------------------------------------------------- */

static bool is_range_iter(const struct sema_def *d)
{
	const struct ast_expr *e = d->expr;
	return d->form == SEMA_FORM_EXPR && e && e->kind == AST_CALL && e->items[0]->kind == AST_NAME &&
	       !e->items[0]->ref && e->items[0]->local < 0 && !strcmp(e->items[0]->name, "range");
}

/* The call of def_<m> into `dst` for report row r: a domain error is
 * counted in the row's stats and skips the point. */
static void gen_counted_def(struct cg *c, const char *m, const char *dst, int r, const char *skip)
{
	cg_line(c, "if (def_%s(ctx, st, &%s)) {", m, dst);
	cg_line(c, "\tctx->stats[%d].domain_errors++;", r);
	cg_line(c, "\t%s", skip);
	cg_line(c, "}");
}

/* Evaluates or checks one non-iterator definition at its place. */
static void gen_place(struct cg *c, const struct sema_def *d, const char *skip)
{
	const char *m = c->member[d->id];
	int r = c->row[d->id];
	switch (d->kind) {
	case SEMA_DEVICE:
	case SEMA_SETTING:
		cg_line(c, "/* %s %s: bound at run time, else its default */",
			d->kind == SEMA_DEVICE ? "device" : "setting", d->name);
		{
			struct sbuf name = { 0 };
			cg_c_string(&name, d->name, strlen(d->name), false);
			bool typed = c->ctype[d->id] != CG_T_VAL;
			cg_line(c, "rc = sprt_binding_get(ctx, %s, %s, &found);", name.s,
				typed ? "&v" : cg_fmt(c, "&st->%s", m));
			sbuf_release(&name);
			cg_line(c, "if (rc)");
			cg_line(c, "\treturn -rc;");
			if (typed) {
				/* Compiled for the kind spacec saw bound (cg_options.bound_types). */
				cg_line(c, "if (found && v.kind != %s)", c->ctype[d->id] == CG_T_BOOL ? "SPRT_BOOL" : "SPRT_INT");
				cg_line(c, "\treturn -SPRT_ETYPE;");
				cg_line(c, "if (found)");
				cg_line(c, "\tst->%s = v.u.i;", m);
			}
		}
		cg_line(c, "if (!found && def_%s(ctx, st, &st->%s))", m, m);
		cg_line(c, "\t%s", skip);
		if (d->assumed) {
			/* The program was specialized to this value (lang/specialize.c):
			 * another one is refused, never enumerated wrongly. */
			cg_line(c, "/* -O%d: specialized to %s's value: another binding is refused */",
				c->opt->opt_level, d->name);
			if (c->ctype[d->id] != CG_T_VAL) {
				cg_line(c, "if (st->%s != %" PRId64 ")", m, d->assumed->ival);
				cg_line(c, "\treturn -SPRT_EVALUE;");
			} else {
				cg_line(c, "{");
				c->indent++;
				cg_line(c, "bool same_ = false;");
				cg_line(c, "sprt_val assumed_;");
				cg_expr_into(c, d->assumed, "assumed_");
				cg_line(c, "if (sprt_cmp(ctx, '=', st->%s, assumed_, &same_) || !same_)", m);
				cg_line(c, "\treturn -SPRT_EVALUE;");
				c->indent--;
				cg_line(c, "}");
			}
		}
		return;
	case SEMA_CONST:
	case SEMA_TABLE:
		cg_line(c, "/* %s %s */", d->kind == SEMA_CONST ? "constant" : "table", d->cname);
		cg_line(c, "if (def_%s(ctx, st, &st->%s))", m, m);
		cg_line(c, "\t%s", skip);
		return;
	case SEMA_DERIVED:
		cg_line(c, "/* %s */", d->cname);
		cg_line(c, "ctx->stats[%d].evaluated++;", r);
		gen_counted_def(c, m, cg_fmt(c, "st->%s", m), r, skip);
		return;
	case SEMA_CONSTRAINT:
		cg_line(c, "/* %s %s: %s */", ast_cclass_name(d->cclass), d->cname,
			d->require ? "keeps the point where true" : "rejects the point where true");
		if (d->cclass == AST_SOFT)
			cg_line(c, "if (!ctx->no_soft && (!ctx->disabled || !ctx->disabled[%d])) {", r);
		else
			cg_line(c, "if (!ctx->disabled || !ctx->disabled[%d]) {", r);
		c->indent++;
		cg_line(c, "ctx->stats[%d].evaluated++;", r);
		if (c->ctype[d->id] != CG_T_VAL) {
			gen_counted_def(c, m, "iv", r, skip);
			cg_line(c, "if (%siv) {", d->require ? "!" : "");
		} else {
			gen_counted_def(c, m, "v", r, skip);
			cg_line(c, "if (%ssprt_is_true(ctx, v)) {", d->require ? "!" : "");
		}
		cg_line(c, "\tctx->stats[%d].rejected++;", r);
		if (cg_opt_break(c, d) && cg_level(c, d) >= 0)
		{
			cg_line(c, "\tif (%s) /* monotone: every later value is rejected too */", cg_opt_break(c, d));
			cg_line(c, "\t\tbreak;");
		}
		c->indent++;
		cg_interval_reject(c, d);
		c->indent--;
		cg_line(c, "\t%s", skip);
		cg_line(c, "}");
		c->indent--;
		cg_line(c, "}");
		return;
	case SEMA_ITER:
		return;
	}
}

static void gen_level(struct cg *c, int level, const char *skip)
{
	const struct sema_program *P = c->P;
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		if (d->kind != SEMA_ITER && cg_level(c, d) == level)
			gen_place(c, d, skip);
	}
}

static void gen_loops(struct cg *c, int k)
{
	const struct sema_program *P = c->P;
	if (k == c->loop_end && cg_factor_innermost(c))
		return;
	if (k == c->loop_end) {
		cg_line(c, "/* a valid point */");
		cg_line(c, "ctx->valid++;");
		if (!P->niters) {
			cg_line(c, "if (ctx->emit && ctx->emit(ctx->emit_user, NULL, 0))");
			cg_line(c, "\tctx->stop = true;");
			return;
		}
		cg_line(c, "if (ctx->emit) {");
		c->indent++;
		cg_emit_point(c);
		c->indent--;
		cg_line(c, "}");
		return;
	}
	const struct sema_def *d = c->order[k];
	const char *m = c->member[d->id], *it = c->iter_member[d->id];
	const char *skip = k == c->loop_first ? "return 0;" : "continue;";
	bool typed = c->ctype[d->id] != CG_T_VAL;
	int r = c->row[d->id];
	cg_hooks(c, CG_AT_ENTER, k);
	cg_line(c, "/* loop %d: %s */", k, d->cname);
	cg_line(c, "ctx->stats[%d].evaluated++;", r);
	if (cg_hoisted(c, d))
		cg_line(c, "if (once_%s) {", m);
	else
		cg_line(c, "if (def_%s(ctx, st, &st->%s)) {", m, it);
	cg_line(c, "\tctx->stats[%d].domain_errors++;", r);
	cg_line(c, "\t%s", skip);
	cg_line(c, "}");
	if (c->plan && c->plan[k].any) {
		/* Values from a constraint-driven source (cg_opt.c). */
		cg_opt_loop_open(c, k);
		if (typed) {
			cg_line(c, "sprt_val x_%s;", m);
			cg_line(c, "for (uint64_t i_%s = 0; !ctx->stop && sprt_opt_next(&o_%s, &x_%s); i_%s++) {", m, m, m, m);
		} else {
			cg_line(c, "for (uint64_t i_%s = 0; !ctx->stop && sprt_opt_next(&o_%s, &st->%s); i_%s++) {", m, m, m,
				m);
		}
		c->indent++;
		cg_hooks(c, CG_AT_ITERATION, k);
		cg_line(c, "ctx->candidates++;");
		if (typed)
			cg_line(c, "st->%s = x_%s.u.i;", m, m);
		cg_line(c, "const uint64_t n_%s = o_%s.n;", m, m);
		cg_line(c, "(void)n_%s;", m);
	} else if (is_range_iter(d) && !c->plan[k].filter) {
		/* A plain counted loop: the length is computed once, without
		 * overflow, and every value start + i*step is in range. */
		cg_line(c, "const int64_t start_%s = st->%s.u.i, step_%s = st->%s.r_step;", m, it, m, it);
		cg_line(c, "const uint64_t n_%s = sprt_range_len(start_%s, st->%s.r_stop, step_%s);", m, m, it, m);
		cg_line(c, "for (uint64_t i_%s = 0; i_%s < n_%s && !ctx->stop; i_%s++) {", m, m, m, m);
		c->indent++;
		cg_hooks(c, CG_AT_ITERATION, k);
		cg_line(c, "ctx->candidates++;");
		if (typed)
			cg_line(c, "st->%s = (int64_t)((uint64_t)start_%s + i_%s * (uint64_t)step_%s);", m, m, m, m);
		else
			cg_line(c, "st->%s = sprt_int((int64_t)((uint64_t)start_%s + i_%s * (uint64_t)step_%s));", m,
				m, m, m);
	} else {
		cg_line(c, "const uint64_t n_%s = sprt_loop_len(st->%s);", m, it);
		cg_line(c, "for (uint64_t i_%s = 0; i_%s < n_%s && !ctx->stop; i_%s++) {", m, m, m, m);
		c->indent++;
		cg_hooks(c, CG_AT_ITERATION, k);
		cg_line(c, "ctx->candidates++;");
		cg_line(c, "st->%s = sprt_loop_at(st->%s, i_%s)%s;", m, it, m, typed ? ".u.i" : "");
	}
	if (c->block >= 0) {
		/* no progress ticks inside a sub-nest */
	} else if (c->plan && c->plan[k].any) {
		if (k == 0)
			cg_line(c, "sprt_progress_tick(ctx, -1.0);");
	} else if (k == 0)
		cg_line(c, "sprt_progress_tick(ctx, (double)i_%s / (double)n_%s);", m, m);
	else if (k == 1 && !(c->plan && c->plan[0].any)) {
		const char *m0 = c->member[c->order[0]->id];
		cg_line(c, "sprt_progress_tick(ctx, ((double)i_%s + (double)i_%s / (double)n_%s) / (double)n_%s);",
			m0, m, m, m0);
	}
	cg_hooks(c, CG_AT_VALUE, k);
	gen_level(c, k, "continue;");
	cg_hooks(c, CG_AT_CHECKED, k);
	gen_loops(c, k + 1);
	c->indent--;
	cg_line(c, "}");
	cg_hooks(c, CG_AT_LEAVE, k);
}

static void gen_run(struct cg *c, struct sbuf *out)
{
	const struct sema_program *P = c->P;
	struct sbuf code = { 0 };
	c->code = &code;
	c->indent = 1;
	bool any_typed = false, any_val = false;
	for (int i = 0; i < P->ndefs; i++)
		if (P->defs[i]->kind == SEMA_CONSTRAINT) {
			any_typed |= c->ctype[P->defs[i]->id] != CG_T_VAL;
			any_val |= c->ctype[P->defs[i]->id] == CG_T_VAL;
		} else if ((P->defs[i]->kind == SEMA_DEVICE || P->defs[i]->kind == SEMA_SETTING) &&
			   c->ctype[P->defs[i]->id] != CG_T_VAL) {
			any_val = true; /* a typed binding is read into v first */
		}
	if (any_val)
		cg_line(c, "sprt_val v = sprt_undef();");
	if (any_typed)
		cg_line(c, "int64_t iv = 0;");
	if (c->fac) { /* the constraints may all be in sub-nests */
		if (any_val)
			cg_line(c, "(void)v;");
		if (any_typed)
			cg_line(c, "(void)iv;");
	}
	if (P->nbindable) {
		cg_line(c, "bool found = false;");
		cg_line(c, "int rc;");
	}
	cg_hooks(c, CG_AT_PROLOGUE, -1);
	sbuf_puts(c->code, "\n");
	cg_line(c, "/* Level -1, once: bindings and defaults, constants, tables, checks. */");
	gen_level(c, -1, "return 0;");
	sbuf_puts(c->code, "\n");
	bool any_hoisted = false;
	for (int k = 0; k < P->niters; k++) {
		const struct sema_def *d = c->order[k];
		if (!cg_hoisted(c, d))
			continue;
		if (!any_hoisted)
			cg_line(c, "/* Iterables that depend only on level -1: computed once, 0 or a domain error. */");
		any_hoisted = true;
		cg_line(c, "const int once_%s = def_%s(ctx, st, &st->%s);", c->member[d->id], c->member[d->id],
			c->iter_member[d->id]);
	}
	if (any_hoisted)
		sbuf_puts(c->code, "\n");
	cg_hooks(c, CG_AT_NEST, -1);
	cg_line(c, "/* The loop nest, in level-set order. */");
	gen_loops(c, 0);
	cg_line(c, "return 0;");

	sbuf_puts(out, "/* Enumerates the space: 0, or a negative SPRT_E* code for a fatal error. */\n");
	sbuf_puts(out, "static int run(struct sprt_ctx *ctx, struct space_state *st)\n{\n");
	sbuf_add(out, code.s, code.len);
	sbuf_puts(out, "}\n\n");
	sbuf_release(&code);
	c->code = NULL;

	sbuf_puts(out, "static int enumerate(struct sprt_ctx *ctx)\n{\n");
	sbuf_puts(out, "\tstruct space_state st = { 0 };\n");
	cg_factor_take_state(c, out);
	sbuf_puts(out, "\tint rc = run(ctx, &st);\n");
	cg_factor_free_state(c, out);
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		int n = c->nscratch[d->id];
		if (n == 1)
			sbuf_printf(out, "\tsprt_vec_free(&st.%s[0]);\n", c->scratch_member[d->id]);
		else if (n > 1)
			sbuf_printf(out, "\tfor (int i = 0; i < %d; i++)\n\t\tsprt_vec_free(&st.%s[i]);\n", n,
				    c->scratch_member[d->id]);
		if (d->form == SEMA_FORM_CLOSURE)
			sbuf_printf(out, "\tsprt_vec_free(&st.%s);\n", c->yield_member[d->id]);
	}
	for (int k = 0; k < P->niters; k++)
		if (c->plan[k].filter)
			sbuf_printf(out, "\tsprt_vec_free(&st.%s);\n", c->dom_member[c->order[k]->id]);
	sbuf_puts(out, "\treturn rc;\n}\n\n");
}

/* ---- the state and the descriptor ---------------------------------------------------------- */

static void gen_state(struct cg *c, struct sbuf *out)
{
	const struct sema_program *P = c->P;
	sbuf_puts(out, "/* Everything one enumeration holds: the current value of every definition. */\n");
	sbuf_puts(out, "struct space_state {\n");
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		sbuf_printf(out, "\t%s %s;", cg_ctype_c(c, d), c->member[d->id]);
		if (d->kind == SEMA_CONSTRAINT)
			sbuf_puts(out, " /* constraints have no value */");
		sbuf_puts(out, "\n");
	}
	bool extra = false;
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		bool dom = d->kind == SEMA_ITER && c->plan[cg_pos(c, d)].filter;
		if (d->kind != SEMA_ITER && d->form != SEMA_FORM_CLOSURE && !c->nscratch[d->id])
			continue;
		if (!extra)
			sbuf_puts(out, "\t/* Iterables, closure yields, and the lists each definition builds. */\n");
		extra = true;
		if (d->kind == SEMA_ITER)
			sbuf_printf(out, "\tsprt_val %s;\n", c->iter_member[d->id]);
		if (dom)
			sbuf_printf(out, "\tstruct sprt_vec %s;\n", c->dom_member[d->id]);
		if (d->form == SEMA_FORM_CLOSURE)
			sbuf_printf(out, "\tstruct sprt_vec %s;\n", c->yield_member[d->id]);
		if (c->nscratch[d->id])
			sbuf_printf(out, "\tstruct sprt_vec %s[%d];\n", c->scratch_member[d->id], c->nscratch[d->id]);
	}
	for (int p = 0; p < CG_NPASSES; p++)
		if (cg_pass(p)->state)
			cg_pass(p)->state(c, out);
	if (!P->ndefs)
		sbuf_puts(out, "\tint empty;\n");
	sbuf_puts(out, "};\n\n");
}

static const char *type_enum(enum sema_type t)
{
	switch (t) {
	case TY_INT: return "SPRT_INT";
	case TY_FLOAT: return "SPRT_FLOAT";
	case TY_BOOL: return "SPRT_BOOL";
	case TY_STR: return "SPRT_STR";
	default: return "SPRT_UNDEF";
	}
}

static const char *class_enum(enum ast_cclass k)
{
	switch (k) {
	case AST_HARD: return "SPRT_HARD";
	case AST_SOFT: return "SPRT_SOFT";
	case AST_CORRECT: return "SPRT_CORRECT";
	}
	return "SPRT_HARD";
}

static const char *file_stem(struct cg *c, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	struct sbuf b = { 0 };
	sbuf_add(&b, base, n);
	cg_keep(c, b.s);
	return b.s;
}

static void gen_descriptor(struct cg *c, struct sbuf *out)
{
	const struct sema_program *P = c->P;
	if (P->niters) {
		sbuf_puts(out, "/* The output columns: iterators in definition order. */\n");
		sbuf_puts(out, "static const struct sprt_param_desc params[] = {\n");
		for (int i = 0; i < P->niters; i++) {
			sbuf_puts(out, "\t{ ");
			cg_quoted(out, P->iters[i]->cname);
			sbuf_printf(out, ", %s },\n", type_enum(P->iters[i]->type));
		}
		sbuf_puts(out, "};\n\n");
	}
	int nrows = 0;
	for (int i = 0; i < P->ndefs; i++)
		nrows += c->row[P->defs[i]->id] >= 0;
	if (nrows) {
		sbuf_puts(out, "/* The statistics rows: name, kind, class, require, line, level. */\n");
		sbuf_puts(out, "static const struct sprt_def_desc defs[] = {\n");
		for (int i = 0; i < P->ndefs; i++) {
			const struct sema_def *d = P->defs[i];
			if (c->row[d->id] < 0)
				continue;
			sbuf_puts(out, "\t{ ");
			cg_quoted(out, d->cname);
			sbuf_printf(out, ", %s, %s, %s, %d, %d },\n",
				    d->kind == SEMA_ITER ? "SPRT_DEF_ITER" :
				    d->kind == SEMA_DERIVED ? "SPRT_DEF_DERIVED" : "SPRT_DEF_CONSTRAINT",
				    class_enum(d->cclass), d->require ? "true" : "false", d->loc.line, cg_level(c, d));
		}
		sbuf_puts(out, "};\n\n");
	}
	if (P->nbindable) {
		sbuf_puts(out, "/* Device parameters and settings: their defaults' text, the type a\n"
			       " * binding must have, where each is named. */\n");
		sbuf_puts(out, "static const struct sprt_bindable_desc bindables[] = {\n");
		for (int i = 0; i < P->nbindable; i++) {
			const struct sema_def *d = P->bindable[i];
			sbuf_puts(out, "\t{ ");
			cg_quoted(out, d->name);
			sbuf_printf(out, ", %s, ", d->kind == SEMA_SETTING ? "true" : "false");
			cg_quoted(out, default_text(c, d));
			sbuf_printf(out, ", %s, %d, %d,\n\t  ", type_enum(d->type), d->loc.line, d->loc.col);
			cg_quoted(out, name_line(c, d));
			sbuf_puts(out, " },\n");
		}
		sbuf_puts(out, "};\n\n");
	}
	const char *src = c->opt->source_name ? c->opt->source_name : "";
	sbuf_puts(out, "extern const struct sprt_space spacec_space;\n");
	sbuf_puts(out, "const struct sprt_space spacec_space = {\n");
	sbuf_puts(out, "\t.abi_version = SPRT_ABI_VERSION,\n\t.name = ");
	cg_quoted(out, file_stem(c, src));
	sbuf_puts(out, ",\n\t.source_file = ");
	cg_quoted(out, src);
	sbuf_puts(out, ",\n\t.doc = ");
	if (P->mod && P->mod->docstring)
		cg_c_string(out, P->mod->docstring, strlen(P->mod->docstring), true);
	else
		sbuf_puts(out, "NULL");
	sbuf_printf(out, ",\n\t.nparams = %d,\n\t.params = %s,\n", P->niters, P->niters ? "params" : "NULL");
	sbuf_printf(out, "\t.ndefs = %d,\n\t.defs = %s,\n", nrows, nrows ? "defs" : "NULL");
	sbuf_printf(out, "\t.nbindables = %d,\n\t.bindables = %s,\n", P->nbindable,
		    P->nbindable ? "bindables" : "NULL");
	sbuf_printf(out, "\t.strings = { %d, %s },\n", c->nstrs, c->nstrs ? "strings" : "NULL");
	sbuf_puts(out, "\t.enumerate = enumerate,\n");
	cg_par_descriptor(c, out);
	sbuf_puts(out, "};\n\n");
	if (c->opt->standalone)
		sbuf_puts(out, "/*\n * spacec's count, list and stats with the same options (--help lists\n"
			       " * them).  Built with -DSPACEC_NO_MAIN, the file is only the descriptor\n"
			       " * above, for a program of your own that calls sprt_main or sprt_run.\n */\n"
			       "#ifndef SPACEC_NO_MAIN\nint main(int argc, char **argv)\n{\n"
			       "\treturn sprt_main(&spacec_space, argc, argv);\n}\n#endif\n");
}

/* Writes `b` to `out`, turning each CG_LINE_BACK line into a #line back. */
static void write_out(struct cg *c, const struct sbuf *b, FILE *out)
{
	const char *name = c->opt->output_name ? c->opt->output_name : "<stdout>";
	struct sbuf q = { 0 };
	cg_c_string(&q, name, strlen(name), false);
	int line = 1;
	const char *p = b->s, *end = b->s + b->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (n >= 1 && p[0] == CG_LINE_BACK)
			fprintf(out, "#line %d %s\n", line + 1, q.s);
		else
			fwrite(p, 1, n, out);
		line++;
		p += n;
	}
	sbuf_release(&q);
}

int cg_emit(const struct sema_program *prog, const struct cg_options *opt, FILE *out,
	    struct diag *diag)
{
	struct cg cg;
	memset(&cg, 0, sizeof(cg));
	struct cg *c = &cg;
	struct cg_options o = *opt;
	if (!o.source_name)
		o.source_name = prog->mod && prog->mod->filename ? prog->mod->filename : "input.space";
	c->P = prog;
	c->opt = &o;
	c->diag = diag;
	size_t n = (size_t)prog->ndefs + 1;
	c->member = xcalloc(n, sizeof(*c->member));
	c->iter_member = xcalloc(n, sizeof(*c->iter_member));
	c->yield_member = xcalloc(n, sizeof(*c->yield_member));
	c->scratch_member = xcalloc(n, sizeof(*c->scratch_member));
	c->dom_member = xcalloc(n, sizeof(*c->dom_member));
	c->nscratch = xcalloc(n, sizeof(*c->nscratch));
	c->row = xcalloc(n, sizeof(*c->row));
	cg_assign_names(c);
	ast_module_init(&c->nodes, NULL);
	struct sbuf q = { 0 };
	cg_c_string(&q, o.source_name, strlen(o.source_name), false);
	cg_keep(c, q.s);
	c->src_quoted = q.s;

	/* The string table, in first-use order over the definitions. */
	for (int i = 0; i < prog->ndefs; i++) {
		const struct sema_def *d = prog->defs[i];
		if (d->form == SEMA_FORM_EXPR)
			cg_collect_strings(c, d->expr);
		else if (d->stmt)
			cg_collect_strings_block(c, &d->stmt->body);
	}

	struct sbuf defs = { 0 }, nest = { 0 }, head = { 0 }, all = { 0 }, subnests = { 0 };
	/* The passes decide everything before any C is written (cg_pass.c). */
	for (int p = 0; p < CG_NPASSES; p++)
		if (cg_pass(p)->plan)
			cg_pass(p)->plan(c);
	for (int i = 0; i < prog->ndefs; i++)
		gen_def(c, &defs, prog->defs[i]);
	gen_run(c, &nest);
	cg_factor_functions(c, &subnests, gen_loops);

	sbuf_puts(&head, "/* Generated by spacec from ");
	cg_comment_text(&head, o.source_name, strlen(o.source_name));
	/* One line, so that the #line numbers below stay put. */
	sbuf_puts(&head, o.standalone ? "; do not edit.  Build a program with:"
				        " cc -O2 THIS.c $(pkg-config --cflags --libs spacert) */\n"
				      : "; do not edit. */\n");
	sbuf_puts(&head, "#include <spacert.h>\n\n");
	if (c->nstrs) {
		sbuf_puts(&head, "/* String literals; a string value is an index into this table. */\n");
		sbuf_puts(&head, "static const char *const strings[] = {\n");
		for (int i = 0; i < c->nstrs; i++) {
			sbuf_puts(&head, "\t");
			cg_quoted(&head, c->strs[i]);
			sbuf_printf(&head, ", /* %d */\n", i);
		}
		sbuf_puts(&head, "};\n\n");
	}
	gen_state(c, &head);

	sbuf_add(&all, head.s, head.len);
	sbuf_add(&all, defs.s, defs.len);
	if (c->aux.len) {
		sbuf_puts(&all, "/* Invariants and directions for the constraint-driven loops (-O1, -O2). */\n");
		sbuf_add(&all, c->aux.s, c->aux.len);
	}
	if (subnests.len)
		sbuf_add(&all, subnests.s, subnests.len);
	sbuf_add(&all, nest.s, nest.len);
	gen_descriptor(c, &all);
	if (!c->errors)
		write_out(c, &all, out);

	sbuf_release(&head);
	sbuf_release(&defs);
	sbuf_release(&nest);
	sbuf_release(&subnests);
	sbuf_release(&all);
	sbuf_release(&c->decls);
	for (int p = CG_NPASSES - 1; p >= 0; p--)
		if (cg_pass(p)->release)
			cg_pass(p)->release(c);
	for (size_t i = 0; i < c->pool.len; i++)
		free(c->pool.items[i]);
	ptrvec_release(&c->pool);
	free(c->member);
	free(c->iter_member);
	free(c->yield_member);
	free(c->scratch_member);
	free(c->dom_member);
	free(c->nscratch);
	free(c->row);
	free(c->strs);
	ast_module_release(&c->nodes);
	return c->errors;
}
