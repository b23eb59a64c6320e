#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->block_size = 0;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("spacec: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fputs("spacec: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("spacec: out of memory\n", stderr);
		abort();
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

void *arena_alloc(struct arena *a, size_t size)
{
	const size_t align = sizeof(max_align_t);
	size = (size + align - 1) / align * align;
	if (!a->head || a->head->size - a->head->used < size) {
		/* Blocks grow geometrically so a large file needs few mallocs. */
		size_t bs = a->block_size ? a->block_size * 2 : 16384;
		if (bs > (1u << 22))
			bs = 1u << 22;
		if (bs < size)
			bs = size;
		a->block_size = bs;
		struct arena_block *b = xmalloc(sizeof(*b) + bs);
		b->next = a->head;
		b->used = 0;
		b->size = bs;
		a->head = b;
	}
	void *p = (char *)a->head->data + a->head->used;
	a->head->used += size;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void *arena_memdup(struct arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n);
	if (n && p)
		memcpy(q, p, n);
	return q;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->block_size = 0;
}

void ptrvec_push(struct ptrvec *v, void *item)
{
	if (v->len == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->items = xrealloc(v->items, v->cap * sizeof(*v->items));
	}
	v->items[v->len++] = item;
}

void ptrvec_release(struct ptrvec *v)
{
	free(v->items);
	v->items = NULL;
	v->len = v->cap = 0;
}
