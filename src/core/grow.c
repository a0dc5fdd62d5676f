#include "core/grow.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int cs_grow(void **array, uint32_t *capacity, uint64_t needed, size_t elem, struct cs_error *err)
{
    if (needed <= *capacity)
        return 0;
    /* UINT32_MAX itself stays free: callers use it as "no index". */
    if (needed > UINT32_MAX - 1)
        return cs_fail(err, "too many entries (%" PRIu64 ")", needed);
    uint64_t cap = *capacity ? *capacity : 64;
    while (cap < needed)
        cap *= 2;
    if (cap > UINT32_MAX - 1)
        cap = UINT32_MAX - 1;
    void *p = realloc(*array, (size_t)cap * elem);
    if (!p)
        return cs_fail(err, "out of memory for %" PRIu64 " entries", cap);
    *array = p;
    *capacity = (uint32_t)cap;
    return 0;
}

void *cs_calloc_array(size_t count, size_t elem, struct cs_error *err)
{
    void *p = calloc(count ? count : 1, elem);
    if (!p)
        cs_fail(err, "out of memory for %zu entries of %zu bytes", count, elem);
    return p;
}

int cs_grow_zeroed(void **array, uint32_t *capacity, uint64_t needed, size_t elem,
                   struct cs_error *err)
{
    uint32_t old = *capacity;
    if (cs_grow(array, capacity, needed, elem, err) < 0)
        return -1;
    memset((char *)*array + (size_t)old * elem, 0, (size_t)(*capacity - old) * elem);
    return 0;
}
