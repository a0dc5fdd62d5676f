/* A bump allocator (internal to src/adapt): the syntax tree, its strings and everything the
 * checker attaches to it live in one arena, freed at once. A parse that fails part-way, on any
 * input, then leaves nothing behind without a destructor for every grammar symbol. */
#ifndef CLOUDSM_ADAPT_ARENA_H
#define CLOUDSM_ADAPT_ARENA_H

#include <stddef.h>

struct adapt_arena_block;

struct adapt_arena {
    struct adapt_arena_block *head;
};

/* size zeroed bytes, aligned for any type; NULL when out of memory. */
void *adapt_alloc(struct adapt_arena *a, size_t size);
/* A NUL-terminated copy of n bytes of s; NULL when out of memory. */
char *adapt_strndup(struct adapt_arena *a, const char *s, size_t n);
void adapt_arena_free(struct adapt_arena *a);

#endif
