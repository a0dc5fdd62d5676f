/* Leaf-to-leaf spanning trees of a fat-tree: how many different and how many disjoint ones reach
 * a leaf switch (Compact Network Reconfiguration in Fat-Trees, Sect. 7.3, Eq. 2-5).
 *
 * A spanning tree toward leaf L is one up-path ("chain") from L to a top switch, each hop a cable,
 * together with the down-paths from that top switch that every other switch takes toward L: once
 * the chain is chosen the rest follows (docs/routing/mftree.md). Two trees differ when their
 * chains differ in at least one cable; they are disjoint when their chains share no cable.
 *
 * For PGFT(h; m_1..m_h; w_1..w_h; p_1..p_h), a leaf has w_{l}*p_{l} up cables at every switch
 * level l = 2..h (level 1 is the leaves; w_1*p_1 is how many cables a host has to the leaves, which
 * no leaf-to-leaf chain crosses), so
 *     different = prod_{l=2..h} w_l * p_l                (Eq. 2 for XGFT, Eq. 4 for PGFT)
 *     disjoint  = min_{l=2..h}  w_l * p_l                (Eq. 3, Eq. 5)
 * The paper writes both over l = 1..h; its own example, XGFT(3;4,4,3;1,2,3) with 6 different and 2
 * disjoint trees, and its k-ary-n-tree counts k^(n-1) and k, hold only with the host level left
 * out, which is the reading used here. A one-level tree (one switch) has one trivial tree of each.
 */
#ifndef CLOUDSM_SPANNING_H
#define CLOUDSM_SPANNING_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/route.h"
#include "cloudsm/topo_gen.h"

struct cs_spanning {
    uint64_t different; /* the most different spanning trees any leaf has (saturates) */
    uint64_t disjoint;  /* disjoint ones: the fewest up cables a switch level offers */
    uint64_t fewest;    /* the fewest different ones of any leaf (a degraded tree: < different) */
};

/* The counts of a PGFT/XGFT spec (cs_pgft_count must accept it). */
int cs_spanning_pgft(const struct cs_pgft_spec *s, struct cs_spanning *out, struct cs_error *err);

/* The counts of a built fabric, as the fat-tree machinery sees it (the options' root and compute
 * node lists apply): different = the most chains of a leaf; disjoint = over the switch ranks below
 * the roots, the fewest of the largest up-cable count of a switch of that rank; fewest = the
 * fewest chains of a leaf. CS_ROUTE_UNSUITABLE when ftree would not take the fabric. */
int cs_spanning_fabric(const struct cs_fabric *f, const struct cs_route_options *opt,
                       struct cs_spanning *out, struct cs_error *err);

#endif
