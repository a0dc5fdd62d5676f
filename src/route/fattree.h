/* Fat-tree routing machinery (internal): OpenSM 3.3.23's ftree, taken apart so that variants
 * (noftree, wftree, pftree, vftree, slimupdate, mftree, sub-tree re-routing) are each "a policy
 * and a target order" on one walk instead of a copy of it.
 *
 * Stages, one file each:
 *
 *  1. Build (ft_build.c), cs_ft_build: what OpenSM's construct_fabric does. Switches and CAs are
 *     put in the order of their byte-swapped node GUIDs (OpenSM's sw_tbl/hca_tbl are cl_qmaps
 *     keyed by the GUID in network byte order, so that is their iteration order on x86),
 *     switches are ranked (BFS from the CA-attached switches, reversed, then again from the
 *     switches that came out as roots; or from the given roots), cables are bundled into port
 *     groups (all cables from one switch to one neighbour, directed DOWN, UP or SIBLING by
 *     rank), leaves are marked, every switch gets a tuple by a BFS from the first leaf
 *     (bfs_fabric_indexing), groups are sorted by the remote switch's tuple, the leaf array is
 *     sorted by tuple and trimmed to the first and last leaf with compute nodes, and, without a
 *     root list, the tree is validated. A fabric OpenSM would refuse gives CS_ROUTE_UNSUITABLE.
 *
 *  2. Walk (ft_walk.c): cs_ft_bind ties the view to a set of tables; cs_ft_route_target routes
 *     one target with OpenSM's two recursive passes (fabric_route_downgoing_by_going_up, then
 *     fabric_route_upgoing_by_going_down at every switch it climbs to), filling that LID's
 *     column. cs_ft_reset forgets every load and sort so that one build serves many routings
 *     (routing twice on a reset machinery equals a fresh build); cs_ft_set_scope limits the
 *     walk and the tables written to a subset of the switches (a sub-tree: fast hybrid
 *     re-routing).
 *
 *  3. Passes (ft_passes.c): OpenSM's targets in OpenSM's order, as data (cs_ft_targets_opensm:
 *     leaf by leaf in tuple order, compute nodes in leaf port order, then dummies up to the
 *     fullest leaf; other CA ports in hca_tbl order; switches in sw_tbl order), and its -z pass
 *     (cs_ft_connect_roots). cs_ft_run is the run every variant shares (build, bind with its
 *     policy, list its targets, route, -z); ftree is cs_ft_run with OpenSM's targets and no
 *     policy.
 *
 * Targets. A target is (leaf, leaf port, LID or 0 for a dummy, weight, tag): a CA port routed
 * on the main path and counted, a dummy (a missing compute node: counted, no entries), a
 * switch LID (secondary paths only), or a switch LID routed like a CA port, on a counted main
 * path (vftree's PF LIDs: a vSwitch's own LID is its hypervisor's PF). A variant builds its own
 * list: it reorders it (noftree, mftree), weights it (wftree, vftree) or tags it (pftree: the
 * partition) and routes it.
 *
 * Loads. Every counter is a cs_ft_load (64 bits) in units of ft->unit per route of weight 1:
 * a target of weight w adds w to each load on its path, and OpenSM's choices compare loads
 * exactly as they compared route counts. ftree's unit is 1 and every target weighs 1, so loads
 * are OpenSM's counters. A variant picks a unit that makes its weights integers: wftree's
 * 1..100 node weights are weights in unit 1; vftree's VM of a vSwitch with k VMs weighs unit/k
 * with unit = the least common multiple of the k's, so 1/k is exact.
 *
 * Policy (struct cs_ft_policy), instead of hooks on LIDs: each callback sees the target.
 *  - up_group: which of a switch's up groups (sorted by load as OpenSM sorts them; OpenSM takes
 *    the first) carries a main path;
 *  - cable: which cable of a group of parallel cables carries a route (a one-cable group has
 *    no choice: not asked);
 *  - hop: told of every entry the walk sets through a group (switch, group, cable, direction,
 *    main or secondary; not the leaf's entry to the target's own port): partition marks on
 *    switches per direction, per-partition counters; main_hops_only limits it to the main
 *    path, which keeps the downward pass on its fast path;
 *  - admit_down: may veto a downward group (isolation: a switch reserved for other partitions
 *    is not entered); a vetoed group is not walked and not counted.
 *  - exact: turns off the shortcuts that assume every child is walked (the family bound below)
 *    for a policy whose choices depend on more than the loads. admit_down and a scope imply it.
 * The do-nothing policy (all NULL, exact false) is OpenSM's choices: least loaded group after
 * OpenSM's bubble sort, least loaded cable, first in port order on ties. cs_ft_group_load and
 * cs_ft_cable_load read loads for a policy.
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

/* A load: routes times their weights, in units of cs_ft.unit (see the file comment). */
typedef uint64_t cs_ft_load;
#define CS_FT_LOAD_MAX UINT64_MAX

/* One cable of a port group, as its owner sees it. The cable of a one-cable group keeps no counters
 * of its own: they would always equal the group's (OpenSM counts a route on a group and on one of
 * its cables together). */
struct cs_ft_port {
    cs_ft_load load_up;   /* routes assigned upward through it (toward the roots) */
    cs_ft_load load_down; /* routes assigned downward through it */
    uint8_t num;          /* port number on the owner */
    uint8_t remote_num;   /* port number at the other end */
};

/* All cables from one switch to one neighbour (OpenSM's ftree_port_group_t). A switch owns one
 * group per neighbour and direction; the neighbour owns its own group for the same cables, with
 * its own counters. */
struct cs_ft_group {
    cs_ft_load load_up;
    cs_ft_load load_down;
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
    bool is_leaf;         /* at the leaf rank with compute nodes (OpenSM's is_leaf) */
    bool has_ca;          /* has a down group to a CA */
    bool load_up_changed; /* a down/sibling group's load_up moved since the last sort */
    bool up_dirty;        /* an up group's load_down moved since the up list was sorted */
    uint32_t up_epoch;    /* cs_ft.min_epoch when the up list was sorted */
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
    uint8_t hops;        /* OpenSM's hops[target] (8-bit, as OpenSM's) */
    uint8_t port;        /* OpenSM's new_lft[target]; CS_LFT_NO_ROUTE if no entry yet */
    uint8_t below : 2;   /* enum cs_ft_below: how the downward pass starts here (static) */
    uint8_t has_ca : 1;  /* the switch has a down group to a CA (static) */
    uint8_t top : 1;     /* a root, or no up groups: the upward pass stops here (static) */
    uint8_t outside : 1; /* outside the scope: the walk does not enter it (static) */
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

/* A destination, as the walk sees it (see the file comment). */
enum cs_ft_target_kind {
    CS_FT_TARGET_CA,          /* a CA port's LID: main path, counted */
    CS_FT_TARGET_DUMMY,       /* a missing compute node: counted, no table entries */
    CS_FT_TARGET_SWITCH,      /* a switch's LID: secondary paths only */
    CS_FT_TARGET_SWITCH_MAIN, /* a switch's LID on a counted main path, from the switch up */
};

struct cs_ft_target {
    cs_ft_load weight; /* what each load on its main path grows by, in units of cs_ft.unit */
    uint32_t leaf;     /* the switch it hangs from (a switch target: the switch itself) */
    uint32_t port;     /* fabric port index of the CA port; CS_NONE for a dummy or a switch */
    uint32_t tag;      /* the variant's (a partition, a VM's hypervisor, ...); OpenSM's: 0 */
    uint16_t lid;      /* 0 for a dummy */
    uint8_t leaf_port; /* the leaf's port to the CA (0 for a switch, a dummy) */
    uint8_t kind;      /* enum cs_ft_target_kind */
};

struct cs_ft_targets {
    struct cs_ft_target *items;
    uint32_t count, capacity;
};

/* Which way a hop set by the walk points. */
enum cs_ft_hop_dir {
    CS_FT_HOP_DOWN,    /* the remote switch is above: its entry points down to the owner */
    CS_FT_HOP_UP,      /* the remote switch is below: its entry points up to the owner */
    CS_FT_HOP_SIBLING, /* the remote is a sibling */
};

/* Overrides of OpenSM's choices (see the file comment); NULL callbacks keep OpenSM's. */
struct cs_ft_policy {
    void *ctx;
    /* Main path climbing from switch sw: the index into sw's up list (sorted by load as OpenSM
     * sorts it) of the group that carries the route. Must return < num_up. */
    unsigned (*up_group)(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t,
                         uint32_t sw);
    /* Which cable of group g carries a route: `up` for an up group on a climb (OpenSM: the
     * first cable with the least load_down), else a down or sibling group of the downward pass
     * (the first with the least load_up). Returns an index < the group's num_ports. */
    unsigned (*cable)(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t, uint32_t g,
                      bool up);
    /* The walk set the entry of g's remote switch toward the target, through `cable` (an index
     * into cs_ft.ports), owned by sw; main: on the counted main path. */
    void (*hop)(void *ctx, struct cs_ft *ft, const struct cs_ft_target *t, uint32_t sw, uint32_t g,
                uint32_t cable, enum cs_ft_hop_dir dir, bool main);
    /* hop only for the main path's hops: the downward pass, which sets only secondary entries,
     * keeps its fast path for one-cable groups. */
    bool main_hops_only;
    /* May the downward pass at sw walk down group g (to a switch)? false: skip it. */
    bool (*admit_down)(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t, uint32_t sw,
                       uint32_t g);
    bool exact; /* no shortcuts that assume every child is walked */
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
    uint32_t leaf_rank;            /* OpenSM's leaf_switch_rank */
    uint32_t max_rank;             /* OpenSM's max_switch_rank */
    uint32_t max_cn_per_leaf;      /* compute nodes on the fullest leaf: dummies fill the others
                                      (with a scope: the fullest leaf in the scope) */
    uint32_t tree_max_cn_per_leaf; /* the same over the whole tree, as built */
    uint32_t cn_count;
    bool roots_given;
    /* When every switch reached by a down group has its own tuple, the order of a down list is
     * a function of the counters (the sort keys are all distinct), so a sort may wait until
     * someone walks the list (family shortcut); otherwise sort exactly when OpenSM does. */
    bool lazy_sort;
    uint32_t *built_lists; /* the lists as built (tuple order), restored by cs_ft_reset */
    cs_ft_load unit;       /* load of one route of weight 1 (ftree: 1) */
    struct cs_ft_policy policy;
    /* Scope: switches the walk may enter and whose tables it writes (NULL: all). */
    uint8_t *in_scope;
    uint8_t *scratch_row; /* what a switch outside the scope "writes" to (one table's size) */

    /* Routing state (cs_ft_bind, cs_ft_route_*). */
    struct cs_lfts *lfts;
    uint8_t **rows;            /* per switch: its LFT */
    struct cs_ft_mark *marks;  /* per switch */
    cs_ft_load *min_load_down; /* per switch: OpenSM's min_counter_down */
    uint32_t min_epoch;        /* bumped whenever a min_load_down changes */
    /* LFT columns of the last targets, written to the tables a batch at a time (a blocked
     * transpose: one target's entries land in as many tables as there are switches, which
     * would miss the cache on every switch). */
    uint8_t *columns;     /* CS_FT_BATCH rows of num_sw entries */
    uint16_t *batch_lids; /* LID of each buffered column */
    uint32_t batch_len;
    uint8_t *column; /* the current target's column (a dummy writes a scratch one) */
    struct cs_ft_family *families;
    uint32_t seq;                      /* current target */
    const struct cs_ft_target *target; /* current target */
    bool real;                         /* current target has an LFT column (not a dummy) */
    bool shortcuts;                    /* the family bound may be used (no exact policy/scope) */
    cs_ft_load weight;                 /* load increment of the current target */
};

static inline const struct cs_ft_group *cs_ft_group_at(const struct cs_ft *ft, uint32_t list_offset,
                                                       unsigned i)
{
    return &ft->groups[ft->lists[list_offset + i]];
}

/* A CA target of weight w: the CA behind down group g of leaf s (a compute node as the leaf
 * sees it), or a CA port of the hca_tbl. */
static inline struct cs_ft_target cs_ft_target_behind(const struct cs_ft *ft, uint32_t s,
                                                      const struct cs_ft_group *g, cs_ft_load w)
{
    return (struct cs_ft_target){.weight = w,
                                 .leaf = s,
                                 .port = g->remote,
                                 .lid = g->remote_lid,
                                 .leaf_port = ft->ports[g->first_port].num,
                                 .kind = CS_FT_TARGET_CA};
}

static inline struct cs_ft_target cs_ft_target_of_port(const struct cs_ft_ca_port *cp, cs_ft_load w)
{
    return (struct cs_ft_target){.weight = w,
                                 .leaf = cp->sw,
                                 .port = cp->port,
                                 .lid = cp->lid,
                                 .leaf_port = cp->sw_port,
                                 .kind = CS_FT_TARGET_CA};
}

/* Loads for a policy: group g's, and one cable's (a one-cable group's cable carries exactly the
 * group's load). up: load_up, else load_down. */
static inline cs_ft_load cs_ft_group_load(const struct cs_ft *ft, uint32_t g, bool up)
{
    return up ? ft->groups[g].load_up : ft->groups[g].load_down;
}

static inline cs_ft_load cs_ft_cable_load(const struct cs_ft *ft, uint32_t g, uint32_t cable,
                                          bool up)
{
    if (ft->groups[g].num_ports == 1)
        return cs_ft_group_load(ft, g, up);
    return up ? ft->ports[cable].load_up : ft->ports[cable].load_down;
}

/* OpenSM's cable of group g for a route: the first cable with the least load (load_down for a
 * route going up from the owner: its packets come down the cable; load_up for one going down).
 * An index < the group's num_ports: the walk's choice, and a cable policy's when it keeps none
 * of its own. */
static inline unsigned cs_ft_least_loaded_cable(const struct cs_ft *ft, uint32_t g, bool up)
{
    const struct cs_ft_group *grp = &ft->groups[g];
    unsigned best = 0;
    for (unsigned i = 1; i < grp->num_ports; i++)
        if (cs_ft_cable_load(ft, g, grp->first_port + i, !up) <
            cs_ft_cable_load(ft, g, grp->first_port + best, !up))
            best = i;
    return best;
}

/* Build the fat-tree view of f (LIDs assigned) as OpenSM's construct_fabric does, with the
 * options' root_guids (rank from them, skip validation) and cn_guids (compute nodes; other CA
 * ports are routed after them). Returns 0, CS_ROUTE_UNSUITABLE (err: why OpenSM would fall back)
 * or -1 (err: out of memory). ft is initialised by this call; free it with cs_ft_free either way.
 */
int cs_ft_build(struct cs_ft *ft, const struct cs_fabric *f, const struct cs_route_options *opt,
                struct cs_error *err);
void cs_ft_free(struct cs_ft *ft);

/* Route into lfts (one table per switch of the fabric, as cs_lfts_for_fabric makes them), with
 * the policy (NULL: OpenSM's choices); the machinery starts reset and unscoped. */
int cs_ft_bind(struct cs_ft *ft, struct cs_lfts *lfts, const struct cs_ft_policy *policy,
               struct cs_error *err);

/* Forget every load, sort and mark: the next routing gives what a fresh build and bind would.
 * Keeps the tables, the policy and the scope. */
void cs_ft_reset(struct cs_ft *ft);

/* Limit the walk and the tables written to the switches whose fabric node indices are listed
 * (count 0: every switch again). The walk does not enter a switch outside the scope, targets
 * that hang from one are not routed (cs_ft_targets_cns does not list them), and their tables are
 * not written. The scope is routed as a fat-tree of its own: max_cn_per_leaf becomes that of its
 * fullest leaf, so dummies fill its leaves as ftree would fill them on that tree alone. Call
 * between routings (after a reset, or with nothing pending). Returns -1 on an unknown node or
 * out of memory. */
int cs_ft_set_scope(struct cs_ft *ft, const uint32_t *nodes, uint32_t count, struct cs_error *err);

/* Is the set of switches `member` (per switch of ft, 1 = in) a sub-tree, that is, a fat-tree with
 * fewer levels: it holds a leaf, every down neighbour of a member is a member, and every up
 * neighbour of a member below the set's top rank is a member? The walk then reaches every member
 * from every leaf in the set, so a scoped routing leaves no member without an entry. If not,
 * *sw and *remote (switch indices) name a member and the neighbour that is missing (remote
 * CS_NONE: no leaf). */
bool cs_ft_is_subtree(const struct cs_ft *ft, const uint8_t *member, uint32_t *sw,
                      uint32_t *remote);

/* A digest of everything cs_ft_build reads (nodes, ports, cables, LIDs, the options' root and
 * compute node lists): equal digests, equal builds (to the odds of a 64-bit hash). */
uint64_t cs_ft_fingerprint(const struct cs_fabric *f, const struct cs_route_options *opt);

/* Targets reach the tables in batches of this many; cs_ft_flush writes what is pending
 * (cs_ft_route_targets flushes when it ends). Nothing in the machinery reads the tables while
 * routing: the marks stand for them. A routed LID's column replaces that LID's entries in every
 * bound table in scope: switches its route does not reach get CS_LFT_NO_ROUTE. */
/* 512, not fewer: a variant that routes in its own order (wftree: by weight) scatters a batch's
 * LIDs over the tables, and each flush then touches up to one table line per LID; a larger
 * batch shares the lines among more LIDs (the buffer is 513 columns of one byte per switch). */
#define CS_FT_BATCH 512
void cs_ft_flush(struct cs_ft *ft);

/* Route one target (see the file comment); the target must stay valid until the call returns. */
void cs_ft_route_target(struct cs_ft *ft, const struct cs_ft_target *t);
/* Every target of the list, in its order, then flush. */
void cs_ft_route_targets(struct cs_ft *ft, const struct cs_ft_targets *list);

int cs_ft_targets_add(struct cs_ft_targets *list, const struct cs_ft_target *t,
                      struct cs_error *err);
void cs_ft_targets_free(struct cs_ft_targets *list);

/* OpenSM's targets in OpenSM's order, each weighing ft->unit (fabric_route_to_cns, then
 * fabric_route_to_non_cns, then fabric_route_to_switches), appended to list. */
int cs_ft_targets_opensm(const struct cs_ft *ft, struct cs_ft_targets *list, struct cs_error *err);
/* The compute-node part alone, leaf by leaf: on each leaf the compute nodes in leaf port order,
 * then dummies up to ft->max_cn_per_leaf. */
int cs_ft_targets_cns(const struct cs_ft *ft, struct cs_ft_targets *list, struct cs_error *err);
/* The rest: other CA ports, then switches. */
int cs_ft_targets_rest(const struct cs_ft *ft, struct cs_ft_targets *list, struct cs_error *err);

/* fabric_route_roots (-z), on the tables as routed (flushes first). */
void cs_ft_connect_roots(struct cs_ft *ft);

/* A fat-tree variant as the machinery runs it: its policy (NULL: OpenSM's choices) and the
 * function that lists its targets in its order (into an empty list, after the build). */
struct cs_ft_variant {
    const struct cs_ft_policy *policy;
    int (*targets)(const struct cs_ft *ft, const struct cs_route_inputs *in,
                   struct cs_ft_targets *list, struct cs_error *err);
};

/* One routing, the whole run every variant shares: build (or, with in->state, reuse the
 * machinery kept from the last routing of the same fabric: cs_ft_reset instead of a rebuild),
 * bind lfts with the variant's policy, list its targets, route them, -z when opt asks, and mark
 * every block written (a fresh routing programs them all).
 *
 * With in->scope_switches (sub-tree re-routing, docs/routing/hybrid.md): the tables start as
 * in->previous has them (required, for every switch of the fabric), the scope must be a sub-tree
 * (cs_ft_is_subtree), only the targets on its leaves are routed, inside it, only its switches'
 * tables are written, and only their blocks are marked.
 *
 * res (may be NULL) gets build_ms, build_kept and scoped. Returns what cs_ft_build or the target
 * list returns (0, -1, or CS_ROUTE_UNSUITABLE), or -1 on a scope it cannot route. */
int cs_ft_run(const struct cs_fabric *f, const struct cs_route_options *opt,
              const struct cs_route_inputs *in, const struct cs_ft_variant *variant,
              struct cs_lfts *lfts, struct cs_route_result *res, struct cs_error *err);

/* The machinery cs_ft_run keeps in cs_route_state between routings of one fabric. */
struct cs_ft_kept {
    struct cs_ft ft;
    uint64_t fingerprint; /* cs_ft_fingerprint of the fabric and options ft was built from */
    bool built;
};
void cs_ft_kept_free(struct cs_ft_kept *kept);

/* The machinery for a routing (or a look at the tree) of f under opt: the one kept in `state` if
 * it was built from the same fabric and options (*kept = true; reset it before routing: cs_ft_bind
 * does), else a fresh build, kept in `state` if there is one, else made in `local` (*out = local:
 * free it with cs_ft_free, also on failure). Returns what cs_ft_build returns. */
int cs_ft_machinery(const struct cs_fabric *f, const struct cs_route_options *opt,
                    struct cs_route_state *state, struct cs_ft *local, struct cs_ft **out,
                    bool *kept, struct cs_error *err);

#endif
