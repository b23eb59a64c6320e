/*
 * dag.c - the dependency graph of a checked program, and its DOT form.
 *
 * sema has already ordered the definitions and placed each at a loop
 * level; here we only turn the dependency lists around (successors),
 * find each definition's support (the iterators it depends on), and the
 * independent sub-nests: two iterators end up in one component exactly
 * when some chain of derived values and constraints joins them, i.e. when
 * they share a descendant or one feeds the other.  The loop order
 * (order.c) asks for the components of what is left as it binds iterators.
 */
#include "dag.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"

static int uf_find(int *parent, int x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static void uf_union(int *parent, int a, int b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a != b)
		parent[a > b ? a : b] = a < b ? a : b;
}

void dag_build(struct dag *g, const struct sema_program *prog)
{
	int n = prog->ndefs;
	memset(g, 0, sizeof(*g));
	g->prog = prog;
	g->nnodes = n;
	g->nlevels = prog->niters;
	g->nodes = xcalloc((size_t)n + 1, sizeof(*g->nodes));

	/* Successors: count, then fill, so each list is one allocation. */
	for (int i = 0; i < n; i++) {
		struct sema_def *d = prog->defs[i];
		g->nodes[d->id].def = d;
	}
	for (int i = 0; i < n; i++) {
		struct sema_def *d = prog->defs[i];
		for (int k = 0; k < d->ndeps; k++)
			if (d->deps[k] != d)
				g->nodes[d->deps[k]->id].nsucc++;
	}
	for (int i = 0; i < n; i++) {
		struct dag_node *nd = &g->nodes[i];
		nd->succ = xcalloc((size_t)nd->nsucc + 1, sizeof(*nd->succ));
		nd->nsucc = 0;
	}
	/* In topological order, so successor lists are too. */
	for (int i = 0; i < n; i++) {
		struct sema_def *d = prog->defs[i];
		for (int k = 0; k < d->ndeps; k++) {
			if (d->deps[k] == d)
				continue;
			struct dag_node *p = &g->nodes[d->deps[k]->id];
			p->succ[p->nsucc++] = &g->nodes[d->id];
		}
	}

	/* Supports, in topological order: a definition's is its inputs'. */
	int ni = prog->niters;
	g->supp = xcalloc((size_t)n * (size_t)ni + 1, sizeof(bool));
	for (int i = 0; i < n; i++) {
		const struct sema_def *d = prog->defs[i];
		bool *mine = g->supp + (size_t)d->id * (size_t)ni;
		for (int k = 0; k < d->ndeps; k++) {
			if (d->deps[k] == d)
				continue;
			const bool *theirs = dag_supp(g, d->deps[k]);
			for (int x = 0; x < ni; x++)
				mine[x] |= theirs[x];
		}
		if (d->kind == SEMA_ITER)
			mine[d->decl_pos] = true;
	}

	/* Sub-nests: the components of all iterators, numbered in loop
	 * order, so sub-nest 0 holds the outermost loop; a level >= 0
	 * definition is in its iterators' one. */
	bool *all = xcalloc((size_t)ni + 1, sizeof(bool));
	int *comp = xcalloc((size_t)ni + 1, sizeof(int));
	int *ids = xcalloc((size_t)ni + 1, sizeof(int));
	for (int x = 0; x < ni; x++) {
		all[x] = true;
		ids[x] = -1;
	}
	dag_components(g, all, comp);
	for (int k = 0; k < ni; k++) {
		int root = comp[prog->loop_order[k]->decl_pos];
		if (ids[root] < 0)
			ids[root] = g->nsubnests++;
	}
	for (int i = 0; i < n; i++) {
		struct dag_node *nd = &g->nodes[i];
		nd->subnest = -1;
		if (!nd->def || nd->def->level < 0)
			continue;
		const bool *s = dag_supp(g, nd->def);
		for (int x = 0; x < ni && nd->subnest < 0; x++)
			if (s[x])
				nd->subnest = ids[comp[x]];
	}
	free(ids);
	free(comp);
	free(all);
}

int dag_components(const struct dag *g, const bool *set, int *comp)
{
	const struct sema_program *P = g->prog;
	int n = g->nlevels;
	for (int x = 0; x < n; x++)
		comp[x] = x;
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		if (d->kind != SEMA_ITER && d->kind != SEMA_DERIVED && d->kind != SEMA_CONSTRAINT)
			continue;
		const bool *s = dag_supp(g, d);
		int first = -1;
		for (int x = 0; x < n; x++) {
			if (!s[x] || !set[x])
				continue;
			if (first < 0)
				first = x;
			else
				uf_union(comp, first, x);
		}
	}
	int count = 0;
	for (int x = 0; x < n; x++) {
		if (!set[x])
			continue;
		comp[x] = uf_find(comp, x);
		count += comp[x] == x;
	}
	return count;
}

void dag_release(struct dag *g)
{
	for (int i = 0; i < g->nnodes; i++)
		free(g->nodes[i].succ);
	free(g->nodes);
	free(g->supp);
	memset(g, 0, sizeof(*g));
}

/* ---- DOT ------------------------------------------------------------------ */

static void dot_id(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static const char *class_fill(enum ast_cclass c)
{
	switch (c) {
	case AST_HARD: return "red";
	case AST_SOFT: return "orange";
	case AST_CORRECT: return "lightblue";
	}
	return "white";
}

static void dot_node(FILE *out, const struct sema_def *d)
{
	fputc('\t', out);
	dot_id(out, d->cname);
	switch (d->kind) {
	case SEMA_ITER:
		fputs(" [shape=ellipse", out);
		break;
	case SEMA_DERIVED:
		fputs(" [shape=box", out);
		break;
	case SEMA_CONSTRAINT:
		fprintf(out, " [shape=octagon, style=filled, fillcolor=%s%s", class_fill(d->cclass),
			d->cclass == AST_HARD ? ", fontcolor=white" : "");
		break;
	case SEMA_DEVICE:
	case SEMA_SETTING:
	case SEMA_CONST:
	case SEMA_TABLE:
		fprintf(out, " [shape=note, color=gray50, fontcolor=gray30, tooltip=\"%s\"",
			sema_kind_name(d->kind));
		break;
	}
	if (d->cname != d->name && strcmp(d->cname, d->name)) {
		fputs(", label=", out);
		dot_id(out, d->cname);
	}
	fputs("];\n", out);
}

void dag_write_dot(const struct dag *g, FILE *out)
{
	const struct sema_program *P = g->prog;
	const char *name = P->mod && P->mod->filename ? P->mod->filename : "space";
	fputs("digraph ", out);
	dot_id(out, name);
	fputs(" {\n\trankdir=TB;\n\tnode [fontname=\"Helvetica\"];\n", out);
	for (int i = 0; i < P->ndefs; i++)
		dot_node(out, P->defs[i]);
	for (int i = 0; i < P->ndefs; i++) {
		const struct sema_def *d = P->defs[i];
		const struct dag_node *nd = &g->nodes[d->id];
		for (int k = 0; k < nd->nsucc; k++) {
			fputc('\t', out);
			dot_id(out, d->cname);
			fputs(" -> ", out);
			dot_id(out, nd->succ[k]->def->cname);
			fputs(";\n", out);
		}
	}
	/* Level sets as ranks: level -1 (computed once) at the top, then one
	 * rank per loop position, with what is placed at that level. */
	for (int lvl = -1; lvl < g->nlevels; lvl++) {
		bool any = false;
		for (int i = 0; i < P->ndefs; i++) {
			const struct sema_def *d = P->defs[i];
			if (d->level != lvl)
				continue;
			if (!any)
				fprintf(out, "\t{ rank=%s; /* level %d */", lvl < 0 ? "min" : "same", lvl);
			any = true;
			fputc(' ', out);
			dot_id(out, d->cname);
			fputc(';', out);
		}
		if (any)
			fputs(" }\n", out);
	}
	fputs("}\n", out);
}
