/* The arena of src/adapt (arena.h): blocks of at least 16 KiB, each allocation rounded up to the
 * strictest alignment. */
#include "adapt/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_MIN 16384

struct adapt_arena_block {
    struct adapt_arena_block *next;
    size_t used, size;
    alignas(max_align_t) unsigned char data[];
};

void *adapt_alloc(struct adapt_arena *a, size_t size)
{
    const size_t align = alignof(max_align_t);
    if (size > SIZE_MAX / 2)
        return NULL;
    size = (size + align - 1) / align * align;
    struct adapt_arena_block *b = a->head;
    if (b == NULL || b->size - b->used < size) {
        size_t want = size > BLOCK_MIN ? size : BLOCK_MIN;
        b = malloc(sizeof(*b) + want);
        if (b == NULL)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->size = want;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *adapt_strndup(struct adapt_arena *a, const char *s, size_t n)
{
    char *copy = adapt_alloc(a, n + 1);
    if (copy != NULL && n > 0)
        memcpy(copy, s, n);
    return copy;
}

void adapt_arena_free(struct adapt_arena *a)
{
    while (a->head != NULL) {
        struct adapt_arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}
