/* The values of a selection (internal to src/adapt): ENTITY.METRIC over a time window, for each
 * entity that has one, from the samples of a struct cs_metrics. The semantics are
 * docs/adapt/language.md#entities-and-metrics. */
#ifndef CLOUDSM_ADAPT_WINDOW_H
#define CLOUDSM_ADAPT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapt/ast.h"
#include "cloudsm/metrics.h"

struct adapt_selection {
    enum adapt_entity entity;
    enum adapt_quantity quantity;
    const char *partition; /* NULL: every entity */
    bool last_poll;        /* the window is the last sample's interval, not `window` */
    double window;         /* seconds back from now */
};

/* One entity's value: index is a node index (node, switch), a port index (port; link: the
 * link's first end), 0 for the fabric. */
struct adapt_entity_value {
    uint32_t index;
    double value;
};

/* The entities of sel with a value at time now, in entity order (*values is malloc'd; NULL and
 * 0 when none). Returns 0; 1 when the selection cannot be evaluated at all (an unknown
 * partition, no sample yet) with why filled; -1 with err set when out of memory. */
int adapt_window_values(const struct cs_metrics *m, double now, const struct adapt_selection *sel,
                        struct adapt_entity_value **values, uint32_t *count, char *why,
                        size_t why_size, struct cs_error *err);

#endif
