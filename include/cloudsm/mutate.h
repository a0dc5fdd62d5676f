/* Deliberate damage and disorder for experiments and tests: cut switch-to-switch cables,
 * re-cable the hosts of each leaf in a shuffled port order. Seeded, so repeatable. */
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
    uint64_t seed;
};

int cs_fabric_mutate(struct cs_fabric *f, const struct cs_mutation *m, struct cs_error *err);

#endif
