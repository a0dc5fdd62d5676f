/* Node weights: how much traffic each end port is known (or learned) to receive, for the
 * weighted fat-tree engines (wftree, pftree with weights).
 *
 * File form, one port per line (docs/formats/weights.md):
 *
 *     # port GUID          weight
 *     0x0010000000000101   100
 *     0x0010000000000201   1
 *
 * A weight is a whole number from 1 to CS_WEIGHT_MAX; a port that the file does not name weighs
 * CS_WEIGHT_DEFAULT. Blank lines and `#` comments (also after the weight) are skipped; a GUID
 * named twice, and a file without any entry, are errors. `cloudsm weights learn` makes such a file
 * from port counters (include/cloudsm/counters.h).
 */
#ifndef CLOUDSM_WEIGHTS_H
#define CLOUDSM_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"

#define CS_WEIGHT_DEFAULT 1u
#define CS_WEIGHT_MAX 1000000u

struct cs_node_weight {
    uint64_t guid; /* port GUID */
    uint32_t weight;
    unsigned line; /* where it was read (0 when made in memory) */
};

/* Sorted by GUID after reading (cs_node_weights_find is a binary search). */
struct cs_node_weights {
    struct cs_node_weight *entries;
    uint32_t count, capacity;
};

void cs_node_weights_init(struct cs_node_weights *w);
void cs_node_weights_free(struct cs_node_weights *w);
/* dst (initialised here) = src; -1 with err when out of memory (dst then empty). */
int cs_node_weights_copy(struct cs_node_weights *dst, const struct cs_node_weights *src,
                         struct cs_error *err);

/* Parse text (name in error messages) into w (initialised here; empty on failure). */
int cs_node_weights_parse(struct cs_node_weights *w, const char *text, size_t len, const char *name,
                          struct cs_error *err);
/* Read a file (plain or gzip; streamed). */
int cs_node_weights_read(struct cs_node_weights *w, const char *path, struct cs_error *err);

/* Add one weight (then call cs_node_weights_sort before lookups). */
int cs_node_weights_add(struct cs_node_weights *w, uint64_t guid, uint32_t weight,
                        struct cs_error *err);
/* Sort by GUID; a GUID present twice is an error naming both lines. */
int cs_node_weights_sort(struct cs_node_weights *w, const char *name, struct cs_error *err);

/* The weight of a port GUID: its entry, or CS_WEIGHT_DEFAULT. w may be NULL (all default). */
uint32_t cs_node_weights_find(const struct cs_node_weights *w, uint64_t guid);

/* pFTree-Wt's Eq. 1 with its erratum fixed (src/core/weights_learn.c): the min-max map of a
 * measurement x in [min, max] onto the weights [a, b],
 *
 *     W(x) = (x - min) * (b - a) / (max - min) + a
 *
 * rounded to the nearest whole number, a half rounded up (exactly, in integer arithmetic). When
 * max == min every port measured the same and weighs a. Needs min <= x <= max and a <= b. */
uint32_t cs_weight_scale(uint64_t x, uint64_t min, uint64_t max, uint32_t a, uint32_t b);

int cs_node_weights_write(FILE *out, const struct cs_node_weights *w, struct cs_error *err);
/* Atomic: written to a temporary file, then renamed. */
int cs_node_weights_write_file(const char *path, const struct cs_node_weights *w,
                               struct cs_error *err);

#endif
