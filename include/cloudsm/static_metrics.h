/* Static route metrics over LFTs, per directed link, and the ORCS dot export.
 *
 * The traffic model is the partitions' own: within a partition every member may send to every
 * other member (IBA: a limited member cannot talk to another limited member, so such pairs are
 * left out), and a pair routes to the destination's base LID. A pair of ports that share two
 * partitions is a flow of each. Over those flows this computes, for every directed link
 * (analyze.h's link ids and classes):
 *
 *  - flows: how many flows cross it, in total and per partition (so which partitions use it);
 *  - contention (pFTree-Wt, FGCS 2017, spec pftree-isolation-and-weights.md section 5.4,
 *    seed 004 L1191-L1194): R = the receiver nodes with a route towards them crossing the link;
 *    "a link is contended if routes towards more than one receiver node pass through it in one
 *    direction", its contention is R - 1, and total contention is the sum over links;
 *  - inter-partition interference (seed 004 L1222-L1226): "the number of occurrences when a
 *    traffic flow between any source-destination pair, belonging to one partition, shares a link
 *    with any other flow of a different partition". One occurrence is one flow on one directed
 *    link that also carries a flow of another partition: a link with flows of two or more
 *    partitions counts all its flows. docs/analysis.md says why this reading.
 *
 * Summaries are per link class, like cs_check_lfts's. Cost: O(destinations x their partitions x
 * switches), by the per-destination route chains of cs_dest_routes (cs_dest_routes_load), never
 * per pair.
 */
#ifndef CLOUDSM_STATIC_METRICS_H
#define CLOUDSM_STATIC_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/analyze.h"
#include "cloudsm/error.h"
#include "cloudsm/partitions.h"

struct cs_static_options {
    /* The partitions (resolved on the tracer's fabric). NULL: one partition of every cabled CA
     * port, all full members (every CA pair is a flow). */
    const struct cs_partition_set *partitions;
    /* Count the Default partition (0x7fff) too. Off by default: it carries management traffic
     * (with a file, only the SM port is a full member), not a tenant's. */
    bool include_default;
    /* Receiver nodes for contention, as port indices (members of a counted partition; others
     * receive no flow). Duplicates count once. May be NULL. */
    const uint32_t *receivers;
    uint32_t num_receivers;
};

/* Per link class (or a group of classes). */
struct cs_static_class {
    struct cs_link_stats flows; /* flows per link: max, mean, spread (= max - min), ... */
    uint64_t contention;        /* sum over links of R - 1 where R >= 2 */
    uint32_t contended_links;   /* links with R >= 2 */
    uint64_t interference;      /* flows on links that carry two partitions or more */
    uint32_t shared_links;      /* links that carry two partitions or more */
};

struct cs_static_partition {
    uint16_t pkey;      /* 0 for the implicit all-CA partition */
    uint32_t set_index; /* in options.partitions; CS_NONE for the implicit one */
    uint32_t members;
    uint64_t flows;        /* delivered flows */
    uint64_t undelivered;  /* flows whose route is not delivered (not on any link) */
    uint64_t interference; /* its flows on shared links, summed over links */
    uint32_t links;        /* links its flows cross */
    uint32_t shared_links; /* of those, links that carry another partition too */
};

struct cs_static_result {
    uint32_t num_links;
    uint32_t num_partitions;
    struct cs_static_partition *partitions; /* [p], the counted partitions in set order */

    uint64_t *link_flows;           /* [link] flows crossing it, all partitions */
    uint64_t *partition_link_flows; /* [p * num_links + link] flows of partition p */
    uint32_t *link_partitions;      /* [link] partitions with a flow on it */
    uint32_t *link_receivers;       /* [link] R; NULL without receivers */

    uint32_t receivers;   /* distinct receivers given */
    uint64_t flows;       /* delivered flows, all partitions */
    uint64_t undelivered; /* not delivered (loops, black holes): on no link */

    struct cs_static_class classes[CS_LINK_CLASSES];
    struct cs_static_class switch_links; /* up + down + flat */
    struct cs_static_class all;          /* every link */
};

/* Refuses more than this many (partition x link) counters (8 bytes each). */
#define CS_STATIC_MAX_COUNTERS (UINT64_C(1) << 27)

/* Compute everything for the tracer's fabric and LFTs. Every member port needs a LID. */
int cs_static_metrics(const struct cs_tracer *t, const struct cs_static_options *opt,
                      struct cs_static_result *r, struct cs_error *err);
void cs_static_result_free(struct cs_static_result *r);

/* One CSV line per directed link after a header: from_guid,from_port,to_guid,to_port,class,
 * flows,partitions,receivers,pkeys (the PKeys of the partitions using it, space-separated; node
 * GUIDs and port numbers as cs_check_write_links_csv writes them). */
int cs_static_write_links_csv(FILE *out, const struct cs_tracer *t,
                              const struct cs_static_result *r, struct cs_error *err);

/* ---- ORCS export ----------------------------------------------------------------------------
 *
 * A graphviz digraph that ORCS (Schneider, Hoefler, Lumsdaine) reads: one vertex per switch
 * ("S-<node GUID>", 16 hex digits) and per cabled CA port ("H-<port GUID>": ORCS takes vertices
 * whose name starts with 'H' as hosts); router ports are "R-<port GUID>". One edge per directed
 * link, whose `comment` lists the hosts whose LID the LFT forwards over it: a switch's edge
 * carries host h when the switch's LFT entry for h's base LID is that edge's port (whether or
 * not a traced route reaches the switch); a host's edge, the only way out of it, is "*" (ORCS:
 * "matches any target"), and so is any edge that carries every host. Names are separated by
 * ','. See docs/analysis.md. */
int cs_orcs_dot_write(FILE *out, const struct cs_tracer *t, struct cs_error *err);

#endif
