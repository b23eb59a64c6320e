/*
 * dag.c - the dependency graph of a checked program, and its DOT form.
 *
 * sema has already ordered the definitions and placed each at a loop
 * level; here we only turn the dependency lists around (successors), and
 * find the independent sub-nests: the connected components of the graph
 * restricted to definitions that depend on some iterator (level >= 0).
 * Two iterators end up in one component exactly when some chain of
 * derived values and constraints joins them, i.e. when they share a
 * descendant or one feeds the other.
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

	/* Sub-nests: components among the level >= 0 definitions. */
	int *parent = xcalloc((size_t)n + 1, sizeof(*parent));
	for (int i = 0; i < n; i++)
		parent[i] = i;
	for (int i = 0; i < n; i++) {
		struct sema_def *d = prog->defs[i];
		if (d->level < 0)
			continue;
		for (int k = 0; k < d->ndeps; k++)
			if (d->deps[k]->level >= 0)
				uf_union(parent, d->id, d->deps[k]->id);
	}
	/* Number the components in loop order, so sub-nest 0 holds the
	 * outermost loop. */
	int *ids = xcalloc((size_t)n + 1, sizeof(*ids));
	for (int i = 0; i < n; i++)
		ids[i] = -1;
	for (int k = 0; k < prog->niters; k++) {
		int root = uf_find(parent, prog->loop_order[k]->id);
		if (ids[root] < 0)
			ids[root] = g->nsubnests++;
	}
	for (int i = 0; i < n; i++) {
		struct dag_node *nd = &g->nodes[i];
		nd->subnest = nd->def && nd->def->level >= 0 ? ids[uf_find(parent, i)] : -1;
	}
	free(ids);
	free(parent);
}

void dag_release(struct dag *g)
{
	for (int i = 0; i < g->nnodes; i++)
		free(g->nodes[i].succ);
	free(g->nodes);
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
