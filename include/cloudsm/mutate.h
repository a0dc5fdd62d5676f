/* Deliberate damage and disorder for experiments and tests: cut switch-to-switch cables,
 * re-cable the hosts of each leaf in a shuffled port order, shut hosts down. Seeded, so
 * repeatable; applying a mutation to a mutated fabric with another seed adds to the damage (a
 * sequence of failures, one step per call). */
#ifndef CLOUDSM_MUTATE_H
#define CLOUDSM_MUTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

struct cs_mutation {
    uint32_t unlink_switch_links; /* cut this many switch-to-switch cables, chosen at random */
    bool shuffle_host_ports;      /* per leaf, permute which of its host-facing ports each host
                                     is cabled to */
    /* Shut this many CA nodes down, chosen at random: each disappears from the fabric with its
     * cables, as ibnetdiscover would no longer see it. Every other port keeps its LID: a port
     * that needs one and has none (a topology without LIDs) first gets one by cs_lids_assign's
     * rule with LMC 0, which is what routing the intact fabric gives it. */
    uint32_t shutdown_hosts;
    uint64_t seed;
};

/* In this order: cut cables, shuffle host cabling, shut hosts down (one random sequence). */
int cs_fabric_mutate(struct cs_fabric *f, const struct cs_mutation *m, struct cs_error *err);

/* Remove the nodes whose gone[node] is set, with their cables; the others keep their order and
 * every field (node and port indices change). */
int cs_fabric_remove_nodes(struct cs_fabric *f, const bool *gone, struct cs_error *err);

#endif
