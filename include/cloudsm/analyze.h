/* Route analysis over LFTs: directed link ids, route tracing, the all-pairs check and link
 * congestion of a set of flows.
 *
 * Everything here reads a fabric (with LIDs, see lid.h) and a set of LFTs (lft.h) and changes
 * neither. Routing is destination based: the next hop of a packet depends only on the switch it
 * is in and its destination LID. So for one destination LID each switch has exactly one next hop,
 * and the route from any source is the source's cable followed by that chain. The per-destination
 * view (struct cs_dest_routes) computes the chain for every switch once; the all-pairs check and
 * the congestion functions are built on it and on single-route tracing (cs_trace_route), both
 * following one rule for what a switch does with a LID:
 *
 *   entry 255 / LID beyond the table / no table   black hole
 *   entry beyond the switch's ports               black hole
 *   entry to an unconnected port                  black hole
 *   entry 0 (the switch itself)                   delivered if the switch owns the LID, else
 *                                                 black hole
 *   entry to a port cabled to a switch            forward to that switch
 *   entry to a port cabled to a CA or router      delivered if that port owns the LID, else
 *                                                 wrong delivery
 *   a switch met twice                            loop
 *
 * Hops are links crossed, host links included: two CAs on one leaf are 2 hops apart. A route is
 * an array of directed link ids (struct cs_links). See docs/analysis.md.
 */
#ifndef CLOUDSM_ANALYZE_H
#define CLOUDSM_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"

/* ---- Directed links ------------------------------------------------------------------------ */

/* Where a directed link goes, for per-class summaries. Ranks are switch distances from the
 * nearest leaf (a switch with a CA cabled to it); "up" goes to a higher rank. */
enum cs_link_class {
    CS_LINK_HOST_UP,   /* CA or router -> switch */
    CS_LINK_HOST_DOWN, /* switch -> CA or router */
    CS_LINK_UP,        /* switch -> switch of higher rank */
    CS_LINK_DOWN,      /* switch -> switch of lower rank */
    CS_LINK_FLAT,      /* switch -> switch of the same rank, or a rank unknown (no leaf reaches) */
    CS_LINK_HOST_HOST, /* CA or router -> CA or router (back to back, no switch) */
    CS_LINK_CLASSES
};

/* Every cable gives two directed links, one leaving each end. Ids are dense, 0..count-1, given in
 * port-index order (the link leaving port i gets the next id when i is connected), so they depend
 * only on the fabric: assign them once and reuse them with any set of LFTs. */
struct cs_links {
    uint32_t count;          /* directed links (2 per cable) */
    uint32_t num_port_slots; /* entries of out[] (= fabric's num_port_slots) */
    uint32_t *out;           /* [port index] link leaving that port; CS_NONE if unconnected */
    uint32_t *from;          /* [link] port index it leaves; it arrives at ports[from].peer */
    uint8_t *cls;            /* [link] enum cs_link_class */
    uint32_t *rank;          /* [node] switch rank (hops to the nearest leaf); CS_NONE for CAs,
                                routers and switches no leaf reaches */
};

int cs_links_build(struct cs_links *l, const struct cs_fabric *f, struct cs_error *err);
void cs_links_free(struct cs_links *l);

/* Port index a link arrives at. */
static inline uint32_t cs_link_to(const struct cs_fabric *f, const struct cs_links *l,
                                  uint32_t link)
{
    return f->ports[l->from[link]].peer;
}

/* The same cable in the other direction. */
static inline uint32_t cs_link_reverse(const struct cs_fabric *f, const struct cs_links *l,
                                       uint32_t link)
{
    return l->out[cs_link_to(f, l, link)];
}

/* "host_up", "host_down", "up", "down", "flat", "host_host". */
const char *cs_link_class_name(enum cs_link_class c);

/* ---- Tracer: a fabric and its LFTs, ready for tracing ------------------------------------- */

/* Switches get dense indices 0..num_switches-1 in fabric order; the per-destination arrays below
 * are indexed by them. LFT tables are matched to switches by GUID. The tracer keeps pointers to
 * the fabric and the LFTs: both must outlive it and stay unchanged. */
struct cs_tracer {
    const struct cs_fabric *fabric;
    const struct cs_lfts *lfts;
    struct cs_links links;
    uint32_t num_switches;
    uint32_t *switch_node;       /* [switch] fabric node index */
    uint32_t *node_switch;       /* [node] switch index, CS_NONE for CAs and routers */
    uint32_t *switch_table;      /* [switch] table index in lfts; CS_NONE if the LFTs lack it */
    uint32_t *switch_first_port; /* [switch] its port 0's index (nodes[].first_port) */
    uint8_t *switch_ports;       /* [switch] its number of external ports */
    uint32_t *peer_switch;       /* [port index] switch at the other end of its cable, CS_NONE
                                    (a compact copy: tracing touches only these arrays) */
    uint32_t *lid_owner;         /* [lid] port index answering that LID (2^lmc per port); CS_NONE */
    uint32_t lid_limit;          /* entries of lid_owner: the fabric's highest LID + 1 */
    uint32_t switches_without_table; /* fabric switches the LFTs do not have */
    uint32_t tables_without_switch;  /* LFT tables whose GUID is no switch of the fabric */
};

int cs_tracer_init(struct cs_tracer *t, const struct cs_fabric *f, const struct cs_lfts *lfts,
                   struct cs_error *err);
void cs_tracer_free(struct cs_tracer *t);

/* The LIDs of ports[0..count) changed in the fabric (VFs taking or giving up LIDs, LMC 0, a
 * swap included): the owner table follows without a rebuild. -1 when a new LID is beyond the
 * LIDs the tracer was built for, or a port outside the list owns it: the table is then half
 * updated; build the tracer again. */
int cs_tracer_ports_lids_changed(struct cs_tracer *t, const uint32_t *ports, uint32_t count);

/* Port index that owns lid, or CS_NONE. */
static inline uint32_t cs_tracer_owner(const struct cs_tracer *t, uint32_t lid)
{
    return lid < t->lid_limit ? t->lid_owner[lid] : CS_NONE;
}

/* LFT entries of LIDs first..first+count-1 of every switch, transposed so that one LID's entries
 * are contiguous: out[k * num_switches + s] is switch s's entry for LID first + k
 * (CS_LFT_NO_ROUTE beyond a table or for a switch without one). Reading the tables 64 LIDs
 * (one cache line) at a time is what makes scanning every LID cheap. */
void cs_tracer_lft_columns(const struct cs_tracer *t, uint32_t first, uint32_t count, uint8_t *out);

/* ---- Tracing one route -------------------------------------------------------------------- */

enum cs_trace_outcome {
    CS_TRACE_DELIVERED,
    CS_TRACE_LOOP,           /* the route comes back to a switch it has crossed */
    CS_TRACE_NO_TABLE,       /* black hole: the switch has no LFT */
    CS_TRACE_NO_ENTRY,       /* black hole: entry 255, or the LID is beyond the table */
    CS_TRACE_BAD_PORT,       /* black hole: the entry names a port the switch does not have */
    CS_TRACE_UNCONNECTED,    /* black hole: the entry names an unconnected port */
    CS_TRACE_PORT0,          /* black hole: entry 0 on a switch that does not own the LID */
    CS_TRACE_WRONG_DELIVERY, /* the route reaches a CA or router port that does not own the LID */
    CS_TRACE_OUTCOMES
};

static inline bool cs_trace_is_black_hole(enum cs_trace_outcome o)
{
    return o >= CS_TRACE_NO_TABLE && o <= CS_TRACE_PORT0;
}

/* "delivered", "loop", "no LFT", "no entry", "port beyond the switch", "unconnected port",
 * "port 0 of a switch that does not own the LID", "wrong delivery". */
const char *cs_trace_outcome_name(enum cs_trace_outcome o);
/* The same as identifiers, for JSON keys: "delivered", "loop", "no_table", "no_entry",
 * "bad_port", "unconnected", "port0", "wrong_delivery". */
const char *cs_trace_outcome_id(enum cs_trace_outcome o);

struct cs_route_trace {
    uint8_t outcome;     /* enum cs_trace_outcome */
    uint8_t fault_entry; /* the LFT entry at fault_node (255 when it has no table) */
    uint32_t hops;       /* links crossed: to the destination when delivered, up to the fault
                            otherwise (a loop is cut once it has crossed every switch) */
    uint32_t fault_node; /* the switch where it goes wrong (a loop: a switch on the cycle);
                            CS_NONE when delivered */
    uint32_t end_port;   /* port where the route leaves the fabric: the destination port when
                            delivered, the wrong port on a wrong delivery; else CS_NONE */
};

/* Trace the route from src_port to lid. src_port is a connected CA or router port, or a switch's
 * port 0 (the route then starts in that switch). The links crossed go to links[] (at most
 * max_links written; links may be NULL with max_links 0); out->hops says how many there are.
 * Returns -1 (err set) only for an unusable source. */
int cs_trace_route(const struct cs_tracer *t, uint32_t src_port, uint32_t lid,
                   struct cs_route_trace *out, uint32_t *links, uint32_t max_links,
                   struct cs_error *err);

/* The switches (fabric node indices) of the forwarding loop for lid through switch node
 * on_loop, starting there, in forwarding order. Returns the loop's length, of which at most max
 * are written; 0 if on_loop is not on a loop for lid. */
uint32_t cs_trace_loop(const struct cs_tracer *t, uint32_t lid, uint32_t on_loop, uint32_t *nodes,
                       uint32_t max);

/* ---- All routes to one destination --------------------------------------------------------- */

/* For one destination LID: what the route starting at each switch does, in O(switches). The
 * route from a CA is its cable to its switch followed by that switch's route. */
struct cs_dest_routes {
    uint32_t lid;
    uint32_t owner_port; /* port answering lid, CS_NONE */
    uint32_t num_switches;
    uint8_t *outcome;       /* [switch] enum cs_trace_outcome of the route from that switch */
    uint32_t *next_link;    /* [switch] link it forwards lid on; CS_NONE if it forwards nowhere
                               (the destination switch, a black hole) */
    uint32_t *next_switch;  /* [switch] the switch next_link reaches, CS_NONE if not a switch */
    uint32_t *hops;         /* [switch] delivered: links to the destination (0 at the
                               destination switch itself) */
    uint32_t *fault_switch; /* [switch] not delivered: switch index where the route goes wrong
                               (a loop: a switch on the cycle); CS_NONE when delivered */
    uint32_t *order;        /* the delivered switches, farthest (most hops) first */
    uint32_t num_delivered;
    uint32_t *scratch; /* internal */
};

int cs_dest_routes_init(struct cs_dest_routes *d, const struct cs_tracer *t, struct cs_error *err);
void cs_dest_routes_free(struct cs_dest_routes *d);
/* Compute everything for lid, reading the LFTs. */
void cs_dest_routes_compute(struct cs_dest_routes *d, const struct cs_tracer *t, uint32_t lid);
/* The same from entries[s] = switch s's LFT entry for lid (one row of cs_tracer_lft_columns). */
void cs_dest_routes_compute_from(struct cs_dest_routes *d, const struct cs_tracer *t, uint32_t lid,
                                 const uint8_t *entries);
/* Switch index where a route from src_port enters the fabric, CS_NONE when its cable does not
 * lead to a switch (or src_port is unconnected). For a switch's port 0: that switch. */
uint32_t cs_tracer_entry_switch(const struct cs_tracer *t, uint32_t src_port);
/* The route from src_port (as cs_trace_route accepts) to d's LID: links written to links[] (at
 * most max), their number in *count; returns the outcome. */
enum cs_trace_outcome cs_dest_routes_path(const struct cs_dest_routes *d, const struct cs_tracer *t,
                                          uint32_t src_port, uint32_t *links, uint32_t max,
                                          uint32_t *count);
/* Count routes to d's LID on the links, from weights per starting switch: weight[s] = routes
 * that start at switch s (read only for delivered switches; set the others to 0). Walking the
 * delivered switches farthest first, each adds its weight to link_load[its next link] and passes
 * it on to the next switch, so that on return weight[s] = the routes crossing switch s. O(delivered
 * switches). Host links into the fabric are the caller's: routes start at a switch. */
void cs_dest_routes_load(const struct cs_dest_routes *d, uint64_t *weight, uint64_t *link_load);

/* ---- Congestion of a set of flows ---------------------------------------------------------- */

struct cs_flow {
    uint32_t src_port; /* as cs_trace_route accepts */
    uint32_t dst_lid;
};

/* Route every flow and count how many cross each directed link. *max_congestion = the largest
 * count on any link (1 for a permutation that shares no link); route_max[i] (if not NULL) = the
 * largest count on flow i's route (ORCS's per-pair weight); link_load[link] (if not NULL,
 * t->links.count entries) = the counts. A flow from a port to a LID of its own crosses no link
 * (route_max 0). Fails, naming the flow, when a route is not delivered. */
int cs_flows_congestion(const struct cs_tracer *t, const struct cs_flow *flows, uint32_t count,
                        uint32_t *route_max, uint32_t *link_load, uint32_t *max_congestion,
                        struct cs_error *err);

/* ---- The all-pairs check ------------------------------------------------------------------- */

#define CS_CHECK_DEFAULT_FAILURES 10

struct cs_check_options {
    bool all_lids;         /* destinations: every LID in the fabric, not only CA LIDs */
    unsigned threads;      /* 0: one per online CPU; results do not depend on it */
    unsigned max_failures; /* failing pairs to describe; 0: CS_CHECK_DEFAULT_FAILURES */
    /* Sources: only the CA ports that have a LID (a vSwitch fabric with dynamic VM LIDs, where a
     * VF without a VM has none); otherwise a CA port without one is an error. */
    bool skip_ports_without_lid;
    /* Check the transition from these tables to the tracer's (NULL: no transition). While an
     * update is under way a packet towards a LID whose entries change may meet old entries on
     * some switches and new ones on others, in any mix; so for each such LID the CDG also gets
     * every turn of the union of the two next hops, from every link a packet from a CA can reach
     * that way. Reachability, hops and link counts stay those of the tracer's tables. */
    const struct cs_lfts *transition_from;
};

/* Route counts of a group of directed links. spread = max - min; stddev is the population
 * standard deviation. All zero when the group is empty. */
struct cs_link_stats {
    uint32_t links;
    uint64_t min, max, spread;
    double mean, stddev;
};

/* Summary of values[link] over the links whose class is in class_mask (bits 1 << enum
 * cs_link_class). */
void cs_link_stats_of(const struct cs_links *links, const uint64_t *values, unsigned class_mask,
                      struct cs_link_stats *out);

struct cs_check_failure {
    uint32_t src_port; /* source CA port */
    uint32_t lid;      /* destination LID */
    struct cs_route_trace trace;
    uint32_t loop_first, loop_count; /* a loop's switches: loop_nodes[loop_first..+count) */
};

struct cs_check_result {
    uint32_t sources;      /* connected CA ports with a LID */
    uint32_t destinations; /* LIDs traced to: those of the sources (all LIDs with all_lids) */
    uint64_t pairs;        /* (source, destination LID) pairs, a port's own LIDs excluded */
    uint64_t delivered;
    uint64_t unreachable; /* = loops + black_holes + wrong_deliveries */
    uint64_t loops;
    uint64_t black_holes;
    uint64_t wrong_deliveries;
    uint64_t outcomes[CS_TRACE_OUTCOMES]; /* pairs per outcome */

    /* Hops of the delivered pairs. */
    uint32_t hops_min, hops_max;
    double hops_mean;
    uint64_t *hops_histogram; /* [h] delivered pairs with h hops, h < hops_histogram_len */
    uint32_t hops_histogram_len;

    /* Delivered routes crossing each directed link, and their summaries. */
    uint64_t *link_routes; /* [link] */
    uint32_t num_links;
    struct cs_link_stats classes[CS_LINK_CLASSES];
    struct cs_link_stats switch_links; /* up + down + flat: the links routing chooses */

    /* Channel dependency graph: vertices are the directed links between switches (links to and
     * from CAs cannot be on a cycle); an edge a -> b when a delivered route crosses a then b. */
    uint64_t cdg_vertices, cdg_edges;
    bool credit_loop;
    uint32_t transition_lids; /* with transition_from: destination LIDs whose entries change */
    uint32_t *credit_cycle;   /* link ids, each depends on the next and the last on the first */
    uint32_t credit_cycle_len;

    struct cs_check_failure *failures; /* the first failing pairs, by LID then source port */
    uint32_t num_failures;
    uint32_t *loop_nodes; /* switches of the loops in failures[] */
    uint32_t num_loop_nodes;

    uint32_t threads_used;
    bool ok; /* every pair delivered and no credit loop */
};

/* Check every (CA port, destination LID) pair. Every connected CA port must have a LID. */
int cs_check_lfts(const struct cs_tracer *t, const struct cs_check_options *opt,
                  struct cs_check_result *r, struct cs_error *err);
void cs_check_result_free(struct cs_check_result *r);

/* One CSV line per directed link: from_guid,from_port,to_guid,to_port,class,routes (node GUIDs,
 * port numbers), after a header line. */
int cs_check_write_links_csv(FILE *out, const struct cs_tracer *t, const struct cs_check_result *r,
                             struct cs_error *err);

/* Give f's ports the LIDs an LFT dump describes: each LID's target port GUID (the dump's
 * comments; consecutive LIDs of one port make its 2^LMC range) and each switch header's LID.
 * Ports the dump does not name are left as they are. Returns the number of ports set, or -1
 * (a port named at two separate LIDs, a misaligned range, a LID given to two ports). */
int cs_lids_from_lfts(struct cs_fabric *f, const struct cs_lfts *lfts, struct cs_error *err);

#endif
