/* Arrays (internal): the one place that allocates a zeroed array with an error message, and the
 * one place that doubles a capacity and reallocates. */
#ifndef CLOUDSM_CORE_GROW_H
#define CLOUDSM_CORE_GROW_H

#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"

/* Make *array (of elements of `elem` bytes, *capacity of them allocated) hold at least `needed`,
 * doubling from 64. On failure (out of memory, or more than UINT32_MAX - 1 elements) *array is
 * unchanged, err says why, and -1 is returned. */
int cs_grow(void **array, uint32_t *capacity, uint64_t needed, size_t elem, struct cs_error *err);

/* cs_grow, and the new elements (beyond the old capacity) are zero: for counter arrays. */
int cs_grow_zeroed(void **array, uint32_t *capacity, uint64_t needed, size_t elem,
                   struct cs_error *err);

/* A zeroed array of count elements (a valid pointer even for count 0), or NULL with err set. */
void *cs_calloc_array(size_t count, size_t elem, struct cs_error *err);

#endif
