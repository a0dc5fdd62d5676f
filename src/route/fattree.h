/* Fat-tree routing machinery (internal): OpenSM 3.3.23's ftree, taken apart so that variants
 * (wftree, pftree, noftree, vftree, slimupdate, mftree) reuse it instead of copying it.
 *
 * Three stages, each a function here:
 *
 *  1. cs_ft_build: what OpenSM's construct_fabric does. Switches and CAs are put in the order of
 *     their byte-swapped node GUIDs (OpenSM's sw_tbl/hca_tbl are cl_qmaps keyed by the GUID in
 *     network byte order, so that is their iteration order on x86), switches are ranked (BFS
 *     from the CA-attached switches, reversed, then again from the switches that came out as
 *     roots; or from the given roots), cables are bundled into port groups (all cables from one
 *     switch to one neighbour, directed DOWN, UP or SIBLING by rank), leaves are marked, every
 *     switch gets a tuple by a BFS from the first leaf (bfs_fabric_indexing), groups are sorted
 *     by the remote switch's tuple, the leaf array is sorted by tuple and trimmed to the first
 *     and last leaf with compute nodes, and, without a root list, the tree is validated. A
 *     fabric OpenSM would refuse gives CS_ROUTE_UNSUITABLE and the reason.
 *
 *  2. Targets: one destination at a time, the two recursive passes of OpenSM
 *     (fabric_route_downgoing_by_going_up, fabric_route_upgoing_by_going_down) fill one LFT
 *     column: cs_ft_route_ca (a CA port LID, counted on the main path), cs_ft_route_dummy
 *     (a missing compute node: counters only), cs_ft_route_switch (a switch LID: secondary
 *     paths only). A variant changes the node order by calling these in its own order, and the
 *     counter increments by the weight it passes.
 *
 *  3. OpenSM's passes in OpenSM's order: cs_ft_route_cns (leaf by leaf in tuple order, compute
 *     nodes in leaf port order, then dummies up to the fullest leaf), cs_ft_route_non_cns (other
 *     CA ports, hca_tbl order, counted), cs_ft_route_switches (sw_tbl order), and
 *     cs_ft_connect_roots (-z). ftree is exactly these four calls.
 *
 * Port-group choice: the hooks in struct cs_ft_hooks may override which up group a main path
 * takes and which cable of a group carries a route; NULL keeps OpenSM's choice (least loaded
 * group after OpenSM's bubble sort, least loaded cable, first in port order on ties).
 *
 * Hop counts. OpenSM keeps hops[LID] per switch (LIDs x switches bytes) only to answer "does
 * this switch already have a route to the LID with fewer hops?" while the LID is being routed:
 * every read of hops[X] happens while X is routed (each LID is routed once, LID 0 of the dummy
 * routes is cleared after each), except in fabric_route_roots, which reads the last leaf's
 * hops (set iff that leaf has an LFT entry) and nothing else. So a per-switch mark for the
 * current target (sequence number, hops, port) answers every question OpenSM asks, in
 * O(switches) memory. See struct cs_ft_mark.
 */
#ifndef CLOUDSM_ROUTE_FATTREE_H
#define CLOUDSM_ROUTE_FATTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/route.h"

/* OpenSM's FAT_TREE_MIN_RANK/MAX_RANK: a tuple is 8 bytes (rank + up to 7 digits). */
#define CS_FT_MIN_RANK 2
#define CS_FT_MAX_RANK 8
#define CS_FT_UNRANKED UINT32_MAX
/* A tuple nobody assigned (OpenSM: all bytes 0xFF). */
#define CS_FT_NO_TUPLE UINT64_MAX

/* One cable of a port group, as its owner sees it. Counters are 32-bit as in OpenSM (and
 * compared as OpenSM compares them); keeping the hot structures small is what keeps routing
 * in cache. The cable of a one-cable group keeps no counters of its own: they would always
 * equal the group's (OpenSM counts a route on a group and on one of its cables together). */
struct cs_ft_port {
    uint32_t counter_up;   /* routes assigned upward through it (toward the roots) */
    uint32_t counter_down; /* routes assigned downward through it */
    uint8_t num;           /* port number on the owner */
    uint8_t remote_num;    /* port number at the other end */
};

/* All cables from one switch to one neighbour (OpenSM's ftree_port_group_t). A switch owns one
 * group per neighbour and direction; the neighbour owns its own group for the same cables, with
 * its own counters. */
struct cs_ft_group {
    uint32_t counter_up;
    uint32_t counter_down;
    uint32_t remote;     /* switch index, or for a CA the fabric port index of the CA's port */
    uint32_t first_port; /* index of the first cable in cs_ft.ports */
    uint32_t remote_key; /* the remote switch's tuple as a rank (equal tuples, equal keys);
                            UINT32_MAX for a CA or a switch without a tuple */
    uint16_t remote_lid; /* the neighbour switch's LID, or the CA port's LID */
    uint8_t num_ports;
    uint8_t remote_is_ca : 1;
    uint8_t is_cn : 1;  /* CA group whose CA port is a compute node */
    uint8_t remote_num; /* port number at the other end of the first cable */
};

/* A switch. Its groups are listed in cs_ft.lists: num_down from `down`, num_up from `up`,
 * num_sib from `sib`; the lists are reordered as OpenSM reorders them (tuple order after
 * indexing, load order while routing). */
struct cs_ft_switch {
    uint64_t tuple; /* OpenSM's 8-byte tuple, byte 0 most significant (so < compares as OpenSM) */
    uint32_t node;  /* fabric node index */
    uint32_t table; /* index of its table in the bound cs_lfts */
    uint32_t rank;  /* 0 = root; CS_FT_UNRANKED until ranked */
    uint32_t down, up, sib; /* offsets of the group lists in cs_ft.lists */
    uint32_t children;      /* offset in cs_ft.children: switches behind the down groups */
    uint32_t family;        /* switches with the same children share a family */
    uint16_t lid;
    uint8_t num_down, num_up, num_sib, num_children;
    bool is_leaf;            /* at the leaf rank with compute nodes (OpenSM's is_leaf) */
    bool has_ca;             /* has a down group to a CA */
    bool counter_up_changed; /* a down/sibling group's counter_up moved since the last sort */
    bool up_dirty;           /* an up group's counter_down moved since the up list was sorted */
    uint32_t up_epoch;       /* cs_ft.min_epoch when the up list was sorted */
};

/* A CA port that ftree routes, in hca_tbl order (byte-swapped node GUID), then port order. */
struct cs_ft_ca_port {
    uint32_t port;   /* fabric port index */
    uint32_t sw;     /* switch it is cabled to */
    uint16_t lid;    /* its LID */
    uint8_t sw_port; /* the switch's port number on that cable */
    bool is_cn;
};

/* What a switch is to the target being routed (valid when seq is the target's), next to what
 * the downward pass needs to know about the switch before it looks further: one 12-byte
 * record per switch, so that visiting a switch touches one cache line, not several. */
struct cs_ft_mark {
    uint32_t seq;
    uint8_t hops;       /* OpenSM's hops[target] (8-bit, as OpenSM's) */
    uint8_t port;       /* OpenSM's new_lft[target]; CS_LFT_NO_ROUTE if no entry yet */
    uint8_t below : 2;  /* enum cs_ft_below: how the downward pass starts here (static) */
    uint8_t has_ca : 1; /* the switch has a down group to a CA (static) */
    uint8_t top : 1;    /* a root, or no up groups: the upward pass stops here (static) */
    uint8_t unused;
    uint32_t family; /* the switch's family (static) */
};

enum cs_ft_below {
    CS_FT_BELOW_NONE,   /* no down groups: OpenSM returns "no route created" */
    CS_FT_BELOW_CAS,    /* only CAs below (a leaf): "route created", nothing to walk */
    CS_FT_BELOW_FAMILY, /* switches below, no siblings, distinct sort keys: family bound first */
    CS_FT_BELOW_EXACT,  /* walk as OpenSM does */
};

/* Switches whose down groups reach the same switches form a family. Once one of them has been
 * through the downward pass for a target, every child has a route of at most `bound` hops for
 * the rest of that target (hop counts only shrink), so a family member entered with
 * hops + 1 >= bound would find nothing to do: OpenSM skips every group. */
struct cs_ft_family {
    uint32_t seq; /* target for which bound holds */
    uint8_t bound;
};

struct cs_ft;

/* Optional overrides of OpenSM's choices (NULL: OpenSM's). */
struct cs_ft_hooks {
    void *ctx;
    /* Main path going up from switch sw toward `lid` (0 for a dummy): which of sw's up groups
     * (an index into its list, sorted by load as OpenSM sorts it; OpenSM takes 0) carries the
     * route. Must return < num_up. */
    unsigned (*pick_up_group)(void *ctx, const struct cs_ft *ft, uint32_t sw, uint16_t lid);
    /* Which cable of group g (of more than one) carries a route to `lid`: `up` for an up group
     * on a climb (OpenSM: the first cable with the least counter_down), else a down group of
     * the downward pass (the first with the least counter_up). Returns an index < num_ports. */
    unsigned (*pick_port)(void *ctx, const struct cs_ft *ft, uint32_t g, bool up, uint16_t lid);
};

struct cs_ft {
    const struct cs_fabric *fabric;
    struct cs_ft_switch *sw; /* in sw_tbl order (byte-swapped node GUID), ranked ones only */
    struct cs_ft_group *groups;
    struct cs_ft_port *ports;
    uint32_t *lists; /* group indices, per switch: down, up, sibling */
    /* Per switch, from sw.children: the switches behind its switch down groups (ascending);
     * num_children entries further on, the group behind each. */
    uint32_t *children;
    struct cs_ft_ca_port *ca_ports;
    uint32_t *leaves; /* OpenSM's leaf_switches[]: by tuple, first to last real leaf */
    uint32_t num_sw, num_groups, num_ports, num_lists, num_children, num_ca_ports, num_leaves;
    uint32_t num_families;
    uint32_t leaf_rank;       /* OpenSM's leaf_switch_rank */
    uint32_t max_rank;        /* OpenSM's max_switch_rank */
    uint32_t max_cn_per_leaf; /* compute nodes on the fullest leaf: dummies fill the others */
    uint32_t cn_count;
    bool roots_given;
    /* When every switch reached by a down group has its own tuple, the order of a down list is
     * a function of the counters (the sort keys are all distinct), so a sort may wait until
     * someone walks the list (family shortcut); otherwise sort exactly when OpenSM does. */
    bool lazy_sort;
    struct cs_ft_hooks hooks;

    /* Routing state (cs_ft_bind, cs_ft_route_*). */
    struct cs_lfts *lfts;
    uint8_t **rows;             /* per switch: its LFT */
    struct cs_ft_mark *marks;   /* per switch */
    uint32_t *min_counter_down; /* per switch: OpenSM's min_counter_down */
    uint32_t min_epoch;         /* bumped whenever a min_counter_down changes */
    /* LFT columns of the last targets, written to the tables a batch at a time (a blocked
     * transpose: one target's entries land in as many tables as there are switches, which
     * would miss the cache on every switch). */
    uint8_t *columns;     /* CS_FT_BATCH rows of num_sw entries */
    uint16_t *batch_lids; /* LID of each buffered column */
    uint32_t batch_len;
    uint8_t *column; /* the current target's column (a dummy writes a scratch one) */
    struct cs_ft_family *families;
    uint32_t seq;    /* current target */
    uint16_t lid;    /* current target's LID (0: dummy) */
    bool real;       /* current target has an LFT column (not a dummy) */
    uint32_t weight; /* counter increment of the current target */
};

/* Build the fat-tree view of f (LIDs assigned) as OpenSM's construct_fabric does, with the
 * options' root_guids (rank from them, skip validation) and cn_guids (compute nodes; other CA
 * ports are routed after them). Returns 0, CS_ROUTE_UNSUITABLE (err: why OpenSM would fall back)
 * or -1 (err: out of memory). ft is initialised by this call; free it with cs_ft_free either way.
 */
int cs_ft_build(struct cs_ft *ft, const struct cs_fabric *f, const struct cs_route_options *opt,
                struct cs_error *err);
void cs_ft_free(struct cs_ft *ft);

/* Route into lfts (one table per switch of the fabric, as cs_lfts_for_fabric makes them). */
int cs_ft_bind(struct cs_ft *ft, struct cs_lfts *lfts, struct cs_error *err);

/* Targets routed with the cs_ft_route_ca/dummy/switch primitives reach the tables in batches
 * of this many; cs_ft_flush writes what is pending (the pass functions below flush when they
 * end). Nothing in the machinery reads the tables while routing: the marks stand for them.
 * A routed LID's column replaces that LID's entries in every bound table: switches its route
 * does not reach get CS_LFT_NO_ROUTE. */
#define CS_FT_BATCH 64
void cs_ft_flush(struct cs_ft *ft);

/* One target each (see the file comment). weight is what each counter on the path grows by
 * (OpenSM: 1). */
void cs_ft_route_ca(struct cs_ft *ft, uint32_t sw, uint8_t sw_port, uint16_t lid, uint32_t weight);
void cs_ft_route_dummy(struct cs_ft *ft, uint32_t leaf, uint32_t weight);
void cs_ft_route_switch(struct cs_ft *ft, uint32_t sw);

/* OpenSM's passes (fabric_route_to_cns, fabric_route_to_non_cns, fabric_route_to_switches,
 * fabric_route_roots), weight 1. */
void cs_ft_route_cns(struct cs_ft *ft);
void cs_ft_route_non_cns(struct cs_ft *ft);
void cs_ft_route_switches(struct cs_ft *ft);
void cs_ft_connect_roots(struct cs_ft *ft);

#endif
