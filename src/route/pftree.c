/* pftree: pFTree, pFTree-Ext and pFTree-Wt (pFTree (FGCS 2017), docs/routing/pftree.md) on the
 * shared fat-tree machinery: a target order and a policy, not a walk of its own.
 *
 *  - Order (Alg. 2, L515-L567): on each leaf the compute nodes are sorted by the isolation of
 *    their partition (phy, vlane, def), then given the slots that send one partition's nodes
 *    up the same links (a partition's next node takes its last slot + the leaf's up groups);
 *    with weights, a partition's nodes take its slots heaviest first (L1140-L1157).
 *  - Policy (Alg. 3, L572-L626): among the least loaded up groups, the one whose upper switch
 *    has routed the most nodes of the target's partition downward; else the first (in the
 *    machinery's load order) whose upper switch carries no partition of a higher isolation.
 *    Main-path hops mark the upper switch. Alg. 4's choice is the machinery's: its downward
 *    pass gives every lower switch an entry (L616-L618), so only the cable is chosen, by load.
 *  - Afterwards, over the final tables: which partitions' intra-partition flows share each
 *    switch-to-switch link, AssignVirtualLanes (Alg. 5 corrected, L646-L692) and
 *    ValidatePolicies (L691-L692): strict fails naming the partition and the link, best-effort
 *    warns and counts each violation.
 * Without partitions (or none with members on two leaves) no target is tagged and pftree is
 * ftree entry for entry; with weights it is ftree's walk on weighted loads. */
#include "cloudsm/route.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/partitions.h"
#include "core/grow.h"
#include "route/fattree.h"

/* VLs an engine may hand out: VL0 (shared) and VL1..VL7, what 9-VL hardware (8 data VLs and
 * VL15) offers (L1326-L1328). */
#define PFTREE_MAX_VLS 8
#define NO_TAG 0

struct pftree {
    const struct cs_fabric *fabric;
    struct cs_partition_set set;
    uint32_t num_tags;     /* set.count + 1: tag p + 1 is set.partitions[p] */
    uint8_t *isolation;    /* [tag] enum cs_isolation (NO_TAG: def) */
    uint32_t *tag_of_port; /* [fabric port] the tag its target carries */
    /* [switch * num_tags + tag]: nodes of the partition routed down through the switch (its
     * DWN mark, L622-L626); [switch] bit i: some partition of isolation i marked it. */
    uint32_t *down_count;
    uint8_t *down_isolations;
};

/* The partition a port routes as (pFTree takes one key per node, L1281-L1283): of the
 * partitions it is in, the one with the highest isolation, the first in the file on a tie. */
static uint32_t tenant_tag(const struct pftree *pt, uint32_t port)
{
    uint32_t best = NO_TAG;
    for (uint32_t p = 0; p < pt->set.count; p++) {
        const struct cs_resolved_partition *rp = &pt->set.partitions[p];
        if (rp->pkey == CS_PKEY_DEFAULT || !cs_partition_membership(&pt->set, p, port))
            continue;
        if (best == NO_TAG || rp->isolation > pt->isolation[best])
            best = p + 1;
    }
    return best;
}

/* ---- Alg. 2: OrderComputeNodes ------------------------------------------------------------ */

static uint32_t first_free(const uint8_t *taken, uint32_t n)
{
    uint32_t i = 0;
    while (i < n && taken[i])
        i++;
    return i;
}

/* One leaf's compute nodes (n of them, a block of targets) in pFTree-Ext's order. */
static void order_leaf(const struct pftree *pt, struct cs_ft_target *cns, uint32_t n,
                       uint32_t up_groups, bool weighted, struct cs_ft_target *scratch,
                       uint8_t *taken, uint32_t *last_slot)
{
    /* Line 4: phy, then vlane, then def (stable: port order within a class). */
    uint32_t k = 0;
    for (int iso = CS_ISOLATION_PHY; iso >= CS_ISOLATION_DEF; iso--)
        for (uint32_t i = 0; i < n; i++)
            if (pt->isolation[cns[i].tag] == iso)
                scratch[k++] = cns[i];
    memcpy(cns, scratch, n * sizeof *cns);
    /* pFTree-Wt: a partition's nodes take the places it holds, heaviest first (an insertion
     * sort of each partition's subsequence: stable). */
    for (uint32_t i = 1; weighted && i < n; i++) {
        for (uint32_t cur = i; cns[cur].tag != NO_TAG;) {
            uint32_t prev = cur;
            while (prev > 0 && cns[--prev].tag != cns[cur].tag)
                ;
            if (cns[prev].tag != cns[cur].tag || cns[prev].weight >= cns[cur].weight)
                break;
            struct cs_ft_target t = cns[prev];
            cns[prev] = cns[cur];
            cns[cur] = t;
            cur = prev;
        }
    }
    /* Lines 5-7 ("return" read as "continue"): every node has an up group of its own. */
    if (n <= up_groups)
        return;
    memset(taken, 0, n);
    for (uint32_t tag = 0; tag < pt->num_tags; tag++)
        last_slot[tag] = CS_NONE;
    uint32_t id = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag = cns[i].tag;
        /* A node of no partition is a partition of its own: it takes the next free slot. */
        if (tag == NO_TAG || last_slot[tag] == CS_NONE) { /* lines 14-20 */
            if (taken[id])
                id = first_free(taken, n);
        } else { /* lines 21-28 */
            id = last_slot[tag] + up_groups;
            if (id >= n || taken[id])
                id = first_free(taken, n);
        }
        taken[id] = 1;
        if (tag != NO_TAG)
            last_slot[tag] = id;
        scratch[id] = cns[i];
    }
    memcpy(cns, scratch, n * sizeof *cns); /* line 31 */
}

/* Tag, weigh and order the compute-node targets (leaf blocks of max_cn_per_leaf: compute
 * nodes in port order, then dummies). */
static int order_targets(struct pftree *pt, const struct cs_ft *ft, struct cs_ft_targets *cns,
                         const struct cs_node_weights *weights, struct cs_error *err)
{
    uint32_t slots = ft->max_cn_per_leaf;
    struct cs_ft_target *scratch = cs_calloc_array(slots + 1, sizeof *scratch, err);
    uint8_t *taken = cs_calloc_array(slots + 1, 1, err);
    uint32_t *last_slot = cs_calloc_array(pt->num_tags, sizeof *last_slot, err);
    int rc = -1;
    if (!scratch || !taken || !last_slot)
        goto out;
    for (uint32_t i = 0; i < cns->count; i++) {
        struct cs_ft_target *t = &cns->items[i];
        if (t->kind != CS_FT_TARGET_CA)
            continue;
        t->tag = pt->tag_of_port[t->port];
        if (weights)
            t->weight = ft->unit * cs_node_weights_find(weights, pt->fabric->ports[t->port].guid);
    }
    for (uint32_t first = 0; slots && first + slots <= cns->count; first += slots) {
        struct cs_ft_target *block = cns->items + first;
        uint32_t n = 0;
        while (n < slots && block[n].kind == CS_FT_TARGET_CA)
            n++;
        order_leaf(pt, block, n, ft->sw[block[0].leaf].num_up, weights != NULL, scratch, taken,
                   last_slot);
    }
    rc = 0;
out:
    free(scratch);
    free(taken);
    free(last_slot);
    return rc;
}

/* ---- Alg. 3: the policy ------------------------------------------------------------------- */

static unsigned pick_up_group(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t,
                              uint32_t sw)
{
    const struct pftree *pt = ctx;
    if (t->kind != CS_FT_TARGET_CA || t->tag == NO_TAG)
        return 0; /* OpenSM's choice */
    const struct cs_ft_switch *s = &ft->sw[sw];
    cs_ft_load least = cs_ft_group_at(ft, s->up, 0)->load_down;
    /* Lines 1-11 with L622-L626: the least loaded group whose switch routed most of ours. */
    unsigned best = 0;
    uint32_t best_count = 0;
    for (unsigned i = 0; i < s->num_up; i++) {
        const struct cs_ft_group *g = cs_ft_group_at(ft, s->up, i);
        if (g->load_down != least)
            break;
        uint32_t c = pt->down_count[(size_t)g->remote * pt->num_tags + t->tag];
        if (c > best_count) {
            best = i;
            best_count = c;
        }
    }
    if (best_count)
        return best;
    /* Lines 12-21: the first (by load) not held by a partition of a higher isolation; when all
     * are, the least loaded: ValidatePolicies reports what that shares. */
    unsigned mine = pt->isolation[t->tag];
    for (unsigned i = 0; i < s->num_up; i++) {
        const struct cs_ft_group *g = cs_ft_group_at(ft, s->up, i);
        if ((pt->down_isolations[g->remote] >> (mine + 1)) == 0)
            return i;
    }
    return 0;
}

/* Line 23-24: the upper switch of a main path is marked with the partition (and counts it). */
static void mark_hop(void *ctx, struct cs_ft *ft, const struct cs_ft_target *t, uint32_t sw,
                     uint32_t g, uint32_t cable, enum cs_ft_hop_dir dir, bool main)
{
    (void)sw;
    (void)cable;
    struct pftree *pt = ctx;
    if (!main || dir != CS_FT_HOP_DOWN || t->kind != CS_FT_TARGET_CA || t->tag == NO_TAG)
        return;
    uint32_t r = ft->groups[g].remote;
    pt->down_count[(size_t)r * pt->num_tags + t->tag]++;
    pt->down_isolations[r] |= (uint8_t)(1u << pt->isolation[t->tag]);
}

/* ---- Link sharing, Alg. 5 and ValidatePolicies -------------------------------------------- */

/* Which partitions' flows cross each switch-to-switch link, from the tables: per partition, a
 * bit per fabric port (the link leaving it). A flow runs from a member to a member when one of
 * them is a full member (L221-L224). The routes to one destination form a tree, and those of
 * 64 destinations of one partition are followed together: a switch holds a 64-bit mask of the
 * destinations whose flows reach it, and each switch forwards the bits it has not forwarded
 * yet along its table entries. Switches are visited leaves first, then roots first, until no
 * mask moves: two sweeps for up-then-down routes, more only if the tables route otherwise.
 * So the work is one table read per (switch, destination) on the routes, with each switch's
 * row read for 64 destinations at a time, instead of one walk per pair of members. */
struct sharing {
    uint64_t *bits; /* [partition * words + port / 64] */
    uint32_t words;
    uint8_t *conflict; /* [p * count + q]: p and q share a link */
};

/* The switch graph as the propagation reads it: per machinery switch, per port number, the
 * switch at the other end: CS_NONE for a CA or nothing (the flow ends: not a switch-to-switch
 * link), BEYOND for a switch the machinery did not rank (the link counts, nothing follows). */
#define BEYOND (CS_NONE - 1)
struct switch_graph {
    uint32_t stride;  /* port numbers per switch (the largest num_ports + 1) */
    uint32_t *next;   /* [s * stride + port] */
    uint32_t *sweep;  /* switches, deepest rank first, then the same reversed */
    uint32_t *sw_of;  /* [fabric node] machinery switch index, CS_NONE for a CA */
    uint64_t *reach;  /* [s] destinations (batch bits) whose flows reach s */
    uint64_t *passed; /* [s] of those, the ones s has forwarded */
};

static int graph_init(struct switch_graph *g, const struct cs_ft *ft, struct cs_error *err)
{
    const struct cs_fabric *f = ft->fabric;
    g->stride = 1;
    for (uint32_t s = 0; s < ft->num_sw; s++)
        if (f->nodes[ft->sw[s].node].num_ports + 1u > g->stride)
            g->stride = f->nodes[ft->sw[s].node].num_ports + 1u;
    g->next = cs_calloc_array((size_t)ft->num_sw * g->stride + 1, sizeof *g->next, err);
    g->sweep = cs_calloc_array(2 * (size_t)ft->num_sw + 1, sizeof *g->sweep, err);
    g->sw_of = cs_calloc_array(f->num_nodes + 1, sizeof *g->sw_of, err);
    g->reach = cs_calloc_array(ft->num_sw + 1, sizeof *g->reach, err);
    g->passed = cs_calloc_array(ft->num_sw + 1, sizeof *g->passed, err);
    if (!g->next || !g->sweep || !g->sw_of || !g->reach || !g->passed)
        return -1;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        g->sw_of[n] = CS_NONE;
    for (uint32_t s = 0; s < ft->num_sw; s++)
        g->sw_of[ft->sw[s].node] = s;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        uint32_t node = ft->sw[s].node;
        for (unsigned num = 0; num < g->stride; num++) {
            uint32_t peer = num >= 1 && num <= f->nodes[node].num_ports
                                ? f->ports[cs_fabric_port(f, node, num)].peer
                                : CS_NONE;
            uint32_t far = peer == CS_NONE ? CS_NONE : f->ports[peer].node;
            uint32_t next = CS_NONE;
            if (far != CS_NONE && cs_node_is_switch(&f->nodes[far]))
                next = g->sw_of[far] == CS_NONE ? BEYOND : g->sw_of[far];
            g->next[(size_t)s * g->stride + num] = next;
        }
    }
    /* Deepest rank first. The order only sets the speed (the sweeps repeat until nothing
     * moves), so a rank past max_rank, which a built tree does not have, just goes first. */
    uint32_t i = 0;
    for (uint32_t s = 0; s < ft->num_sw; s++)
        if (ft->sw[s].rank > ft->max_rank)
            g->sweep[i++] = s;
    for (uint32_t r = ft->max_rank + 1; r-- > 0;)
        for (uint32_t s = 0; s < ft->num_sw; s++)
            if (ft->sw[s].rank == r)
                g->sweep[i++] = s;
    for (i = 0; i < ft->num_sw; i++)
        g->sweep[2 * ft->num_sw - 1 - i] = g->sweep[i];
    return 0;
}

static void graph_free(struct switch_graph *g)
{
    free(g->next);
    free(g->sweep);
    free(g->sw_of);
    free(g->reach);
    free(g->passed);
}

/* Follow the flows to up to 64 destinations (lids[k] is bit k) from the switches in
 * g->reach; set a bit in `links` for every switch-to-switch link they cross. */
static void follow_batch(const struct cs_ft *ft, struct switch_graph *g, const uint16_t *lids,
                         uint64_t *links)
{
    const struct cs_fabric *f = ft->fabric;
    memset(g->passed, 0, ft->num_sw * sizeof *g->passed);
    for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t i = 0; i < 2 * ft->num_sw; i++) {
            uint32_t s = g->sweep[i];
            uint64_t fresh = g->reach[s] & ~g->passed[s];
            if (!fresh)
                continue;
            g->passed[s] |= fresh;
            const uint8_t *row = ft->rows[s];
            uint32_t node = ft->sw[s].node;
            for (; fresh; fresh &= fresh - 1) {
                unsigned k = (unsigned)__builtin_ctzll(fresh);
                uint8_t out = row[lids[k]];
                if (out == 0 || out >= g->stride)
                    continue; /* the destination's switch itself, no route, or a bad entry */
                uint32_t t = g->next[(size_t)s * g->stride + out];
                if (t == CS_NONE)
                    continue; /* the destination's own cable: its membership, not routing */
                uint32_t link = cs_fabric_port(f, node, out);
                links[link / 64] |= UINT64_C(1) << (link % 64);
                if (t != BEYOND && !(g->reach[t] & (UINT64_C(1) << k))) {
                    g->reach[t] |= UINT64_C(1) << k;
                    moved = true;
                }
            }
        }
    }
}

/* Partition p's links: its members' leaves start the flows (every member's leaf for a full
 * destination, full members' leaves for a limited one), 64 destinations at a time. */
static void partition_links(const struct pftree *pt, const struct cs_ft *ft, struct switch_graph *g,
                            uint32_t p, uint64_t *links)
{
    const struct cs_fabric *f = pt->fabric;
    const struct cs_resolved_partition *rp = &pt->set.partitions[p];
    const struct cs_partition_port *members = &pt->set.ports[rp->first];
    uint16_t lids[64];
    uint64_t full = 0;
    unsigned n = 0;
    for (uint32_t di = 0; di <= rp->count; di++) {
        if (di < rp->count) {
            const struct cs_port *dst = &f->ports[members[di].port];
            if (!dst->lid || cs_node_is_switch(&f->nodes[dst->node]))
                continue;
            if (members[di].membership & CS_MEMBER_FULL)
                full |= UINT64_C(1) << n;
            lids[n++] = dst->lid;
        }
        if (n == 0 || (n < 64 && di < rp->count))
            continue;
        uint64_t all = n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
        memset(g->reach, 0, ft->num_sw * sizeof *g->reach);
        for (uint32_t si = 0; si < rp->count; si++) {
            const struct cs_port *src = &f->ports[members[si].port];
            if (src->peer == CS_NONE || cs_node_is_switch(&f->nodes[src->node]))
                continue;
            uint32_t leaf = g->sw_of[f->ports[src->peer].node];
            if (leaf != CS_NONE)
                g->reach[leaf] |= members[si].membership & CS_MEMBER_FULL ? all : full;
        }
        follow_batch(ft, g, lids, links);
        n = 0;
        full = 0;
    }
}

static int compute_sharing(const struct pftree *pt, const struct cs_ft *ft, struct sharing *sh,
                           struct cs_error *err)
{
    const struct cs_fabric *f = pt->fabric;
    uint32_t count = pt->set.count;
    struct switch_graph g = {0};
    sh->words = (f->num_port_slots + 63) / 64;
    sh->bits = cs_calloc_array((size_t)count * sh->words + 1, sizeof *sh->bits, err);
    sh->conflict = cs_calloc_array((size_t)count * count + 1, 1, err);
    if (!sh->bits || !sh->conflict || graph_init(&g, ft, err) != 0) {
        graph_free(&g);
        return -1;
    }
    for (uint32_t p = 0; p < count; p++)
        if (pt->set.partitions[p].pkey != CS_PKEY_DEFAULT)
            partition_links(pt, ft, &g, p, sh->bits + (size_t)p * sh->words);
    graph_free(&g);
    for (uint32_t p = 0; p < count; p++)
        for (uint32_t q = p + 1; q < count; q++)
            for (uint32_t w = 0; w < sh->words; w++)
                if (sh->bits[(size_t)p * sh->words + w] & sh->bits[(size_t)q * sh->words + w]) {
                    sh->conflict[(size_t)p * count + q] = sh->conflict[(size_t)q * count + p] = 1;
                    break;
                }
    return 0;
}

/* The first link p and q share (a fabric port index). */
static uint32_t shared_link(const struct pftree *pt, const struct sharing *sh, uint32_t p,
                            uint32_t q)
{
    for (uint32_t w = 0; w < sh->words; w++) {
        uint64_t both = sh->bits[(size_t)p * sh->words + w] & sh->bits[(size_t)q * sh->words + w];
        if (both)
            return w * 64 + (uint32_t)__builtin_ctzll(both);
    }
    (void)pt;
    return CS_NONE;
}

/* A violation: strict fails with it (err), best-effort logs it and counts it. */
static int violation(const struct pftree *pt, const struct sharing *sh, uint32_t p, uint32_t q,
                     const char *what, const struct cs_log *log, struct cs_route_result *res,
                     struct cs_error *err)
{
    const struct cs_fabric *f = pt->fabric;
    const struct cs_resolved_partition *a = &pt->set.partitions[p], *b = &pt->set.partitions[q];
    uint32_t link = shared_link(pt, sh, p, q);
    const struct cs_port *out = &f->ports[link];
    const struct cs_port *in = &f->ports[out->peer];
    char msg[CS_ERROR_MAX];
    snprintf(msg, sizeof msg,
             "pftree: partition '%s' (0x%04x, isolation=%s) shares the link from switch "
             "0x%016llx port %u to switch 0x%016llx port %u with partition '%s' (0x%04x)%s",
             a->name, a->pkey, cs_isolation_name(a->isolation),
             (unsigned long long)f->nodes[out->node].guid, out->num,
             (unsigned long long)f->nodes[in->node].guid, in->num, b->name, b->pkey, what);
    if (pt->set.policy == CS_ISOLATION_STRICT)
        return cs_fail(err, "%s (isolation_policy=strict)", msg);
    cs_logf(log, CS_LOG_WARN, "%s (isolation_policy=best-effort: routing kept)", msg);
    res->violations++;
    return 0;
}

/* The lowest of VL1..VL7 not in the set `used`, or 0. */
static uint8_t lowest_lane(unsigned used)
{
    for (uint8_t lane = 1; lane < PFTREE_MAX_VLS; lane++)
        if (!(used >> lane & 1))
            return lane;
    return 0;
}

/* Alg. 5, corrected (docs/routing/pftree.md): partitions in isolation order (phy, vlane, def),
 * each that shares a link gets the lowest VL from VL1 that no partition it shares a link with
 * holds; when none is left, one no phy or vlane partition it meets holds, else VL1 (the
 * paper's wrap), a violation for a vlane partition that meets its lane. Then
 * ValidatePolicies: a phy partition shares no link; a vlane partition shares none with a
 * partition on its VL. */
static int assign_and_validate(const struct pftree *pt, const struct sharing *sh,
                               const struct cs_log *log, struct cs_route_result *res,
                               struct cs_error *err)
{
    uint32_t count = pt->set.count;
    uint8_t *vl = cs_calloc_array(count + 1, 1, err);
    if (!vl)
        return -1;
    int rc = 0;
    for (int iso = CS_ISOLATION_PHY; iso >= CS_ISOLATION_DEF && rc == 0; iso--)
        for (uint32_t p = 0; p < count; p++) {
            if (pt->set.partitions[p].isolation != iso)
                continue;
            unsigned used = 0, used_isolated = 0, sharing = 0;
            for (uint32_t q = 0; q < count; q++)
                if (sh->conflict[(size_t)p * count + q]) {
                    sharing = 1;
                    used |= 1u << vl[q];
                    if (pt->set.partitions[q].isolation != CS_ISOLATION_DEF)
                        used_isolated |= 1u << vl[q];
                }
            if (!sharing)
                continue;
            /* With no lane left, one that no phy or vlane partition it meets holds (L687-L690:
             * spare the higher policies), else VL1. */
            vl[p] = lowest_lane(used);
            if (!vl[p])
                vl[p] = lowest_lane(used_isolated);
            if (!vl[p])
                vl[p] = 1;
        }
    for (uint32_t p = 0; p < count && rc == 0; p++) {
        uint8_t iso = pt->set.partitions[p].isolation;
        for (uint32_t q = 0; q < count && rc == 0; q++) {
            if (!sh->conflict[(size_t)p * count + q])
                continue;
            if (iso == CS_ISOLATION_PHY)
                rc = violation(pt, sh, p, q, "", log, res, err);
            else if (iso == CS_ISOLATION_VLANE && vl[p] == vl[q])
                rc = violation(pt, sh, p, q, " on the same VL: no VL left", log, res, err);
        }
    }
    for (uint32_t p = 0; p < count && rc == 0; p++)
        res->partition_sl[pt->set.partitions[p].config_index] = vl[p];
    free(vl);
    return rc;
}

/* ---- The engine --------------------------------------------------------------------------- */

/* Tags: every CA port's tenant partition, kept only for partitions with members on two leaves
 * or more (the rest never cross a link above a leaf, L355). */
static int tag_ports(struct pftree *pt, struct cs_error *err)
{
    const struct cs_fabric *f = pt->fabric;
    uint32_t *leaf = cs_calloc_array(pt->num_tags, sizeof *leaf, err);
    uint8_t *spans = cs_calloc_array(pt->num_tags, 1, err);
    pt->tag_of_port = cs_calloc_array(f->num_port_slots + 1, sizeof *pt->tag_of_port, err);
    if (!leaf || !spans || !pt->tag_of_port) {
        free(leaf);
        free(spans);
        return -1;
    }
    for (uint32_t tag = 0; tag < pt->num_tags; tag++)
        leaf[tag] = CS_NONE;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *port = &f->ports[i];
        if (port->peer == CS_NONE || cs_node_is_switch(&f->nodes[port->node]))
            continue;
        uint32_t tag = tenant_tag(pt, i);
        pt->tag_of_port[i] = tag;
        uint32_t sw = f->ports[port->peer].node;
        if (leaf[tag] == CS_NONE)
            leaf[tag] = sw;
        else if (leaf[tag] != sw)
            spans[tag] = 1;
    }
    for (uint32_t i = 0; i < f->num_port_slots; i++)
        if (!spans[pt->tag_of_port[i]])
            pt->tag_of_port[i] = NO_TAG;
    free(leaf);
    free(spans);
    return 0;
}

static int prepare(struct pftree *pt, const struct cs_fabric *f, const struct cs_ft *ft,
                   const struct cs_partitions *partitions, struct cs_error *err)
{
    pt->fabric = f;
    if (cs_partitions_resolve(partitions, f, NULL, &pt->set, err) != 0)
        return -1;
    pt->num_tags = pt->set.count + 1;
    pt->isolation = cs_calloc_array(pt->num_tags, 1, err);
    pt->down_count =
        cs_calloc_array((size_t)ft->num_sw * pt->num_tags, sizeof *pt->down_count, err);
    pt->down_isolations = cs_calloc_array(ft->num_sw + 1, 1, err);
    if (!pt->isolation || !pt->down_count || !pt->down_isolations)
        return -1;
    for (uint32_t p = 0; p < pt->set.count; p++)
        pt->isolation[p + 1] = pt->set.partitions[p].isolation;
    return tag_ports(pt, err);
}

static void pftree_free(struct pftree *pt)
{
    cs_partition_set_free(&pt->set);
    free(pt->isolation);
    free(pt->tag_of_port);
    free(pt->down_count);
    free(pt->down_isolations);
}

int cs_route_pftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err)
{
    struct cs_partitions none;
    const struct cs_partitions *partitions = in->partitions;
    if (!partitions) {
        if (cs_partitions_init(&none, err) != 0)
            return -1;
        partitions = &none;
    }
    struct pftree pt = {0};
    struct sharing sh = {0};
    struct cs_ft ft;
    struct cs_ft_targets targets = {0};
    int rc = cs_ft_build(&ft, f, opt, err);
    if (rc == 0)
        rc = prepare(&pt, f, &ft, partitions, err);
    if (rc == 0) {
        struct cs_ft_policy policy = {
            .ctx = &pt, .up_group = pick_up_group, .hop = mark_hop, .main_hops_only = true};
        rc = cs_ft_bind(&ft, lfts, &policy, err);
    }
    if (rc == 0)
        rc = cs_ft_targets_cns(&ft, &targets, err);
    if (rc == 0)
        rc = order_targets(&pt, &ft, &targets, in->weights, err);
    if (rc == 0)
        rc = cs_ft_targets_rest(&ft, &targets, err);
    if (rc == 0) {
        cs_ft_route_targets(&ft, &targets);
        if (opt && opt->connect_roots)
            cs_ft_connect_roots(&ft);
        cs_lfts_mark_all(lfts);
        rc = compute_sharing(&pt, &ft, &sh, err);
    }
    if (rc == 0) {
        res->num_partitions = partitions->count;
        res->partition_sl = cs_calloc_array(partitions->count + 1, 1, err);
        rc = res->partition_sl ? assign_and_validate(&pt, &sh, in->log, res, err) : -1;
    }
    free(sh.bits);
    free(sh.conflict);
    cs_ft_targets_free(&targets);
    pftree_free(&pt);
    cs_ft_free(&ft);
    if (partitions == &none)
        cs_partitions_free(&none);
    return rc;
}
