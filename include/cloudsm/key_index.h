/* A sorted (64-bit key -> 32-bit value) index: GUID -> node, GUID -> switch, LID -> entry.
 *
 * Built by appending pairs and sorting once; looked up by binary search. Equal keys are kept
 * (sorted by value), so a caller can report duplicates with both values; readers use the value
 * to point at the input line of each, and cs_key_index_duplicate picks the duplicate that shows
 * up first when the input is read top to bottom.
 */
#ifndef CLOUDSM_KEY_INDEX_H
#define CLOUDSM_KEY_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"

struct cs_key_entry {
    uint64_t key;
    uint32_t value;
};

struct cs_key_index {
    struct cs_key_entry *entries;
    uint32_t count;
    uint32_t capacity;
};

void cs_key_index_init(struct cs_key_index *ix);
void cs_key_index_free(struct cs_key_index *ix);
/* Make room for `count` more pairs (optional: add grows as needed). */
int cs_key_index_reserve(struct cs_key_index *ix, uint32_t count, struct cs_error *err);
int cs_key_index_add(struct cs_key_index *ix, uint64_t key, uint32_t value, struct cs_error *err);
/* Sort by key, equal keys by value. Call after the last add, before find/duplicate. */
void cs_key_index_sort(struct cs_key_index *ix);
/* Value of the first pair with this key, or UINT32_MAX (CS_NONE). */
uint32_t cs_key_index_find(const struct cs_key_index *ix, uint64_t key);
/* Where key is, or would go, in count records of `stride` bytes at base, sorted by the 64-bit
 * key at key_offset in each: the first record whose key is not below key (count if none). The
 * one binary search of sorted arrays keyed by a GUID (the index above, the alias GUID store). */
uint32_t cs_lower_bound_u64(const void *base, uint32_t count, size_t stride, size_t key_offset,
                            uint64_t key);
/* Number of distinct keys (after sorting). */
uint32_t cs_key_index_distinct(const struct cs_key_index *ix);
/* A key present twice: among all such pairs, the one whose second value is smallest (the
 * duplicate met first in input order). Fills both values (first < second) and the key. */
bool cs_key_index_duplicate(const struct cs_key_index *ix, uint64_t *key, uint32_t *first,
                            uint32_t *second);

#endif
