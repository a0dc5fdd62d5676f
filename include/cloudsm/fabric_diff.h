/* What differs between two fabrics, matched by node GUID (not by order): nodes present in one
 * only, nodes whose type, port count, system image GUID or description differ, ports whose GUID
 * differs, and ports whose cable leads elsewhere. `cloudsm topo diff` prints this; the ibsim
 * integration tests use it to check that a discovered fabric is the one we generated. */
#ifndef CLOUDSM_FABRIC_DIFF_H
#define CLOUDSM_FABRIC_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

#define CS_FABRIC_DIFF_EXAMPLES 10

struct cs_fabric_diff_options {
    bool lids;  /* also compare port LIDs (off: an SM may renumber) */
    bool rates; /* also compare link width and speed */
};

struct cs_fabric_diff {
    uint32_t nodes_only_a;
    uint32_t nodes_only_b;
    uint32_t nodes_changed;  /* type, port count, system image GUID or description */
    uint32_t ports_changed;  /* port GUID (or LID, rate when asked) */
    uint32_t ports_relinked; /* ports (of nodes in both) whose peer differs, seen from each end */
    uint32_t differences;    /* sum of the above */
    uint32_t num_examples;
    char examples[CS_FABRIC_DIFF_EXAMPLES][160]; /* the first differences, one line each */
};

int cs_fabric_diff(const struct cs_fabric *a, const struct cs_fabric *b,
                   const struct cs_fabric_diff_options *opt, struct cs_fabric_diff *d,
                   struct cs_error *err);

#endif
