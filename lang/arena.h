/*
 * arena.h - bump allocation grouped by lifetime.
 *
 * The AST, interned names and semantic tables live in one arena and are
 * released together; nothing is freed one node at a time.  Allocation
 * failure is fatal only through the caller's choice: arena_alloc returns
 * NULL and callers in the compiler treat that as out-of-memory.
 */
#ifndef SPACEC_ARENA_H
#define SPACEC_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	size_t block_size;
};

#define ARENA_INIT { NULL, 0 }

void arena_init(struct arena *a);
/* Zeroed, max-aligned memory that lives until arena_release. */
void *arena_alloc(struct arena *a, size_t size);
/* Copies of strings and memory in the arena. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
void *arena_memdup(struct arena *a, const void *p, size_t n);
/* printf into the arena. */
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void arena_release(struct arena *a);

/*
 * A growable array of pointers, stored in the heap (not the arena) so it
 * can be resized; callers release it with ptrvec_release.
 */
struct ptrvec {
	void **items;
	size_t len, cap;
};

#define PTRVEC_INIT { NULL, 0, 0 }

void ptrvec_push(struct ptrvec *v, void *item);
void ptrvec_release(struct ptrvec *v);

/* Abort with a message on allocation failure (compiler side only). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
