#include "cloudsm/key_index.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void cs_key_index_init(struct cs_key_index *ix)
{
    memset(ix, 0, sizeof *ix);
}

void cs_key_index_free(struct cs_key_index *ix)
{
    free(ix->entries);
    cs_key_index_init(ix);
}

int cs_key_index_reserve(struct cs_key_index *ix, uint32_t count, struct cs_error *err)
{
    return cs_grow((void **)&ix->entries, &ix->capacity, (uint64_t)ix->count + count,
                   sizeof *ix->entries, err);
}

int cs_key_index_add(struct cs_key_index *ix, uint64_t key, uint32_t value, struct cs_error *err)
{
    if (ix->count == ix->capacity && cs_key_index_reserve(ix, 1, err) < 0)
        return -1;
    ix->entries[ix->count++] = (struct cs_key_entry){key, value};
    return 0;
}

static int by_key_then_value(const void *a, const void *b)
{
    const struct cs_key_entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

void cs_key_index_sort(struct cs_key_index *ix)
{
    if (ix->count > 1)
        qsort(ix->entries, ix->count, sizeof *ix->entries, by_key_then_value);
}

uint32_t cs_lower_bound_u64(const void *base, uint32_t count, size_t stride, size_t key_offset,
                            uint64_t key)
{
    const unsigned char *b = base;
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t at;
        memcpy(&at, b + (size_t)mid * stride + key_offset, sizeof at);
        if (at < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t cs_key_index_find(const struct cs_key_index *ix, uint64_t key)
{
    uint32_t lo = cs_lower_bound_u64(ix->entries, ix->count, sizeof *ix->entries,
                                     offsetof(struct cs_key_entry, key), key);
    return lo < ix->count && ix->entries[lo].key == key ? ix->entries[lo].value : UINT32_MAX;
}

uint32_t cs_key_index_distinct(const struct cs_key_index *ix)
{
    uint32_t distinct = ix->count > 0;
    for (uint32_t i = 1; i < ix->count; i++)
        distinct += ix->entries[i].key != ix->entries[i - 1].key;
    return distinct;
}

bool cs_key_index_duplicate(const struct cs_key_index *ix, uint64_t *key, uint32_t *first,
                            uint32_t *second)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < ix->count; i++)
        if (ix->entries[i].key == ix->entries[i - 1].key &&
            (!best || ix->entries[i].value < ix->entries[best].value))
            best = i;
    if (!best)
        return false;
    *key = ix->entries[best].key;
    *first = ix->entries[best - 1].value;
    *second = ix->entries[best].value;
    return true;
}
