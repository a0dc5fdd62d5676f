/* Sub-tree selection for fast hybrid reconfiguration ("Fast Hybrid Network Reconfiguration for
 * Large-Scale Lossless Interconnection Networks", Sect. IV-A; docs/routing/hybrid.md).
 *
 * Given the nodes that must take part in a re-routing (an administrator's list, or the nodes a
 * monitor saw change), the five steps of the paper:
 *  1. the nodes (CA port GUIDs or CA node GUIDs) are given;
 *  2. the tuples of their leaf switches (OpenSM ftree's (rank, a_h, .., a_1), as the fat-tree
 *     machinery assigns them) are compared and the common ancestor sub-tree is selected: the
 *     longest common prefix of the leaves' digits, at most leaf rank - 1 digits long so that the
 *     sub-tree has at least two levels (a leaf alone has no route to choose); the sub-tree is
 *     every switch at a rank >= the prefix length whose tuple starts with that prefix;
 *  3. all its switches are marked (`switches`: what a re-routing may write, the scope);
 *  4. its leaves are picked and every node on them takes part (`ca_ports`): all of them, since
 *     "otherwise we may end up with imbalanced routing";
 *  5. a routing engine routes those nodes inside the sub-tree and writes only its switches: pass
 *     `switches` as cs_route_inputs.scope_switches with the tables in use as .previous.
 * A prefix whose switch set is not closed (a down neighbour, or an up neighbour below its top,
 * outside it: possible on irregular trees) is shortened until it is; the empty prefix is the
 * whole tree.
 */
#ifndef CLOUDSM_SUBTREE_H
#define CLOUDSM_SUBTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/route.h"

struct cs_subtree {
    uint32_t *switches; /* fabric node indices of its switches, ascending */
    uint32_t num_switches;
    uint32_t *leaves; /* fabric node indices of its leaf switches, in tuple order */
    uint32_t num_leaves;
    uint32_t *ca_ports; /* fabric port indices of every CA port on its leaves (step 4) */
    uint32_t num_ca_ports;
    unsigned levels;      /* switch levels of the sub-tree (2 for a pod of a 3-level tree) */
    unsigned tree_levels; /* switch levels of the whole tree */
    unsigned prefix_len;  /* tuple digits the sub-tree's switches share (0: the whole tree) */
    uint8_t prefix[8];    /* those digits, a_h first */
};

/* Select the sub-tree of the nodes `guids` (count > 0; CA port GUIDs or CA node GUIDs, a node
 * GUID standing for all its ports) on fabric f (LIDs assigned), with the fat-tree as ftree sees
 * it under opt (root and compute node lists; NULL: none). With a state (cs_route_inputs.state)
 * the fat-tree machinery kept there is used (and kept: the re-routing that follows reuses it);
 * NULL: built for this call. out is initialised here; free it with cs_subtree_free either way.
 * Errors: a GUID the fabric does not have, a switch's GUID, a CA port not cabled to a leaf of the
 * fat-tree, a fabric that is not a fat-tree (ftree's reason). */
int cs_subtree_select(const struct cs_fabric *f, const struct cs_route_options *opt,
                      struct cs_route_state *state, const uint64_t *guids, uint32_t count,
                      struct cs_subtree *out, struct cs_error *err);
void cs_subtree_free(struct cs_subtree *s);

#endif
