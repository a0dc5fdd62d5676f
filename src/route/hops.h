/* Min-hop machinery shared by the topology-agnostic engines (minhop, updn).
 *
 * OpenSM's default routing (osm_ucast_mgr.c, osm_switch.c: osm_switch_recommend_path) works in
 * two steps, and so does this module:
 *
 *  1. Hops. For a destination switch D, which links of every switch start a usable path to D.
 *     OpenSM keeps a hop-count matrix (switch x LID x port); every end port hangs on one switch
 *     and is reached through it, so what matters is the switch-to-switch distance, and one BFS
 *     per destination switch gives it. The engine decides what "usable" means (minhop: any
 *     shortest path; updn: shortest legal up*\/down* path) and marks those links.
 *
 *  2. Choice. Every switch keeps one route counter per port. Targets are visited in OpenSM's
 *     order (see below); for each, the switch takes, among the marked links, the one with the
 *     fewest routes so far, the lowest port number on a tie, and counts the route. Routes to
 *     switch LIDs are chosen the same way but not counted (OpenSM's port_profile_switch_nodes
 *     is off by default), so they are done last, from the final counters.
 *
 * OpenSM's target order (ucast_mgr_build_lfts, sort_ports_by_switch_load): switches sorted by
 * the number of end ports cabled to them, most first, ties in OpenSM's switch table order
 * (ascending byte-swapped node GUID: the table is keyed by the GUID in network byte order);
 * for each switch, its end ports in port-number order. With LMC > 0 OpenSM routes LID offset 0
 * of every port, then offset 1, and so on; so do we (see docs/routing/minhop-updn.md for what
 * we do not reproduce there).
 *
 * The counters of a switch only see that switch's own choices, so switches are independent and
 * the route for (switch, target) depends only on the targets before it: the result is the same
 * whatever order switches are visited in, which is what lets us loop over destinations outside
 * and switches inside, with one BFS per destination and no hop matrix.
 */
#ifndef CLOUDSM_ROUTE_HOPS_H
#define CLOUDSM_ROUTE_HOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"

#define CS_HOPS_UNREACHABLE UINT32_MAX

/* The switches of a fabric, the cables between them, and the end ports to route. Switch s is
 * the s-th switch in fabric order, which is also its table index in a struct cs_lfts made by
 * cs_lfts_for_fabric. */
struct cs_hops_graph {
    const struct cs_fabric *fabric;
    uint32_t num_switches;
    uint32_t *sw_node; /* switch -> fabric node */
    uint32_t *node_sw; /* fabric node -> switch, CS_NONE for CAs and routers */

    /* Links: switch s's cables to other switches are links first_link[s] .. first_link[s+1]-1,
     * in port-number order (parallel cables are separate links; a cable from a switch to
     * itself is left out, as OpenSM does). */
    uint32_t num_links;
    uint32_t *first_link; /* num_switches + 1 */
    uint32_t *link_peer;  /* switch at the other end */
    uint32_t *link_port;  /* fabric port index of the local end */

    /* End ports (CA and router ports with a LID, cabled to a switch) in OpenSM's routing order,
     * grouped by the switch they hang on: group g holds targets group_first[g] ..
     * group_first[g+1]-1 and its switch is group_switch[g]. */
    uint32_t num_groups;
    uint32_t num_targets;
    uint32_t *group_first;  /* num_groups + 1 */
    uint32_t *group_switch; /* the switch every end port of the group is cabled to */
    uint32_t *target_port;  /* fabric port index of the end port */
    uint8_t max_lmc;        /* largest LMC of any LID-bearing port */
};

int cs_hops_graph_build(struct cs_hops_graph *g, const struct cs_fabric *f, struct cs_error *err);
void cs_hops_graph_free(struct cs_hops_graph *g);

/* Hops from every switch to dest over all switch cables (BFS); CS_HOPS_UNREACHABLE where there
 * is no path. queue is scratch room for num_switches entries. */
void cs_hops_bfs(const struct cs_hops_graph *g, uint32_t dest, uint32_t *dist, uint32_t *queue);

/* next[l] = 1 for every link l that starts a shortest path (the peer is one hop closer), else 0. */
void cs_hops_mark_shortest(const struct cs_hops_graph *g, const uint32_t *dist, uint8_t *next);

/* An engine's step 1: fill next[] (one byte per link) for destination switch dest. Links of
 * dest itself are ignored. Returns 0 or -1 with err set. */
typedef int (*cs_hops_next_fn)(void *ctx, uint32_t dest, uint8_t *next, struct cs_error *err);

/* Step 2 for every LID of the fabric: end ports in OpenSM's order, counted, then switch LIDs,
 * uncounted. A switch with no marked link towards a destination gets no route (255) for it, as
 * OpenSM leaves it. lfts must be the fabric's tables (cs_lfts_for_fabric). */
int cs_hops_route(const struct cs_hops_graph *g, cs_hops_next_fn next_fn, void *ctx,
                  struct cs_lfts *lfts, struct cs_error *err);

#endif
