/* mftree's phase I (Compact Network Reconfiguration in Fat-Trees, Sect. 7, Algorithm 4): K
 * leaf-to-leaf spanning trees toward every leaf, computed by the fat-tree machinery as path ids
 * routed into a shadow set of tables; and the fingerprint that says which fabric they are for.
 * See metabase.h for the layout, docs/routing/mftree.md for the design. */
#include "route/metabase.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void cs_metabase_free(struct cs_metabase *mb)
{
    if (!mb)
        return;
    free(mb->switch_guids);
    free(mb->leaf_guids);
    free(mb->leaf_paths);
    free(mb->rest_guids);
    free(mb->rows);
    free(mb->chains);
    memset(mb, 0, sizeof *mb);
}

void cs_metabase_delete(struct cs_metabase *mb)
{
    cs_metabase_free(mb);
    free(mb);
}

/* ------------------------------------------------------------------------------------------ */
/* Fingerprint                                                                                 */

/* FNV-1a over 64-bit words, byte by byte: what the fingerprint covers is a sequence of words. */
static void mix(uint64_t *h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        *h ^= (v >> (8 * i)) & 0xff;
        *h *= UINT64_C(0x100000001b3);
    }
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A CA port the machinery routes as a compute node: every CA port, or the listed ones. */
static bool is_compute_node(const struct cs_fabric *f, const struct cs_route_options *opt,
                            const struct cs_key_index *cns, uint32_t port)
{
    (void)f;
    return !opt || !opt->cn_guids || cs_key_index_find(cns, f->ports[port].guid) != CS_NONE;
}

int cs_metabase_fingerprint(const struct cs_fabric *f, const struct cs_route_options *opt,
                            uint32_t requested_paths, uint64_t *out, struct cs_error *err)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    mix(&h, CS_METABASE_VERSION);
    mix(&h, requested_paths);
    mix(&h, opt && opt->connect_roots);
    struct cs_key_index cns;
    cs_key_index_init(&cns);
    uint32_t switches = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        switches += cs_node_is_switch(&f->nodes[n]);
    /* Switches by GUID (any order of the same fabric gives the same words). */
    struct cs_key_entry *by_guid = cs_calloc_array(switches + 1, sizeof *by_guid, err);
    uint64_t *roots = NULL;
    int rc = -1;
    if (!by_guid)
        goto out;
    if (opt && opt->root_guids) {
        uint32_t count = opt->root_guids->count;
        roots = cs_calloc_array(count + 1, sizeof *roots, err);
        if (!roots)
            goto out;
        memcpy(roots, opt->root_guids->guids, count * sizeof *roots);
        qsort(roots, count, sizeof *roots, compare_u64);
        mix(&h, count);
        for (uint32_t i = 0; i < count; i++)
            mix(&h, roots[i]);
    }
    if (opt && opt->cn_guids) {
        for (uint32_t i = 0; i < opt->cn_guids->count; i++)
            if (cs_key_index_add(&cns, opt->cn_guids->guids[i], i, err) < 0)
                goto out;
        cs_key_index_sort(&cns);
    }
    uint32_t k = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (cs_node_is_switch(&f->nodes[n]))
            by_guid[k++] = (struct cs_key_entry){f->nodes[n].guid, n};
    qsort(by_guid, switches, sizeof *by_guid, compare_u64); /* the key is the first member */
    mix(&h, switches);
    for (uint32_t i = 0; i < switches; i++) {
        const struct cs_node *sw = &f->nodes[by_guid[i].value];
        mix(&h, sw->guid);
        /* Words per cable: a switch neighbour (port, GUID, its port); a compute node only counts
         * as "this switch has compute nodes" (they may move between its ports); another CA port
         * by its GUID and port. */
        bool has_cn = false;
        for (unsigned p = 1; p <= sw->num_ports; p++) {
            uint32_t q = f->ports[sw->first_port + p].peer;
            if (q == CS_NONE)
                continue;
            const struct cs_node *m = &f->nodes[f->ports[q].node];
            if (cs_node_is_switch(m)) {
                mix(&h, p);
                mix(&h, m->guid);
                mix(&h, f->ports[q].num);
            } else if (m->type == CS_NODE_CA && is_compute_node(f, opt, &cns, q)) {
                has_cn = true;
            } else {
                mix(&h, p | UINT64_C(1) << 32);
                mix(&h, f->ports[q].guid);
            }
        }
        mix(&h, has_cn ? UINT64_C(0xc0) : UINT64_C(0x5e));
    }
    *out = h;
    rc = 0;
out:
    cs_key_index_free(&cns);
    free(by_guid);
    free(roots);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Chains                                                                                      */

static bool is_top(const struct cs_ft *ft, uint32_t s)
{
    return ft->sw[s].rank == 0 || ft->sw[s].num_up == 0;
}

int cs_ft_chain_counts(const struct cs_ft *ft, uint64_t **chains, struct cs_error *err)
{
    uint64_t *c = cs_calloc_array(ft->num_sw + 1, sizeof *c, err);
    if (!c)
        return -1;
    /* Up groups lead to a lower rank: count from the roots down. */
    for (uint32_t rank = 0; rank <= ft->max_rank; rank++) {
        for (uint32_t s = 0; s < ft->num_sw; s++) {
            if (ft->sw[s].rank != rank)
                continue;
            if (is_top(ft, s)) {
                c[s] = 1;
                continue;
            }
            uint64_t sum = 0;
            for (unsigned i = 0; i < ft->sw[s].num_up; i++) {
                const struct cs_ft_group *g = cs_ft_group_at(ft, ft->sw[s].up, i);
                uint64_t add = c[g->remote] > UINT64_MAX / g->num_ports
                                   ? UINT64_MAX
                                   : c[g->remote] * g->num_ports;
                sum = sum > UINT64_MAX - add ? UINT64_MAX : sum + add;
            }
            c[s] = sum;
        }
    }
    *chains = c;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The policy that makes the K paths of a leaf K different spanning trees                      */

/* Each leaf's chains taken so far form a trie: a node per cable taken after the same prefix. A
 * cable may carry another path of the leaf while it leads to an unused chain: fewer used
 * chains below it than the remote switch has. */
struct trie_node {
    uint64_t used; /* finished chains through this node */
    uint32_t parent, child, sibling;
    uint32_t cable; /* index into cs_ft.ports */
};

struct distinct_paths {
    const uint64_t *chains;  /* per switch */
    const uint32_t *leaf_of; /* per switch: leaf index or CS_NONE */
    struct trie_node *nodes; /* [0..num_leaves) are the leaves' roots */
    uint32_t num_nodes, capacity;
    uint32_t paths; /* K (column stride) */
    /* The target being climbed. */
    uint32_t seq, cur, hop, column;
    /* The cable chosen with the up group, handed to the cable callback. */
    bool pending;
    uint32_t pending_group, pending_cable;
    /* Chains as taken (metabase.h), depth entries per column. */
    uint32_t *record;
    uint32_t depth;
};

static uint64_t used_through(const struct distinct_paths *dp, uint32_t node, uint32_t cable)
{
    for (uint32_t c = dp->nodes[node].child; c != CS_NONE; c = dp->nodes[c].sibling)
        if (dp->nodes[c].cable == cable)
            return dp->nodes[c].used;
    return 0;
}

/* Take cable (of group g at switch s) on the current chain. The nodes were counted before the
 * routing (every path adds at most depth of them), so this never allocates. */
static void take(struct distinct_paths *dp, const struct cs_ft *ft, uint32_t s, uint32_t g,
                 uint32_t cable)
{
    uint32_t c = dp->nodes[dp->cur].child;
    while (c != CS_NONE && dp->nodes[c].cable != cable)
        c = dp->nodes[c].sibling;
    if (c == CS_NONE && dp->num_nodes < dp->capacity) {
        c = dp->num_nodes++;
        dp->nodes[c] = (struct trie_node){.parent = dp->cur,
                                          .child = CS_NONE,
                                          .sibling = dp->nodes[dp->cur].child,
                                          .cable = cable};
        dp->nodes[dp->cur].child = c;
    }
    if (c == CS_NONE) { /* cannot happen: capacity counts every node */
        dp->cur = CS_NONE;
        return;
    }
    if (dp->hop < dp->depth) {
        const struct cs_node *node = &ft->fabric->nodes[ft->sw[s].node];
        dp->record[(size_t)dp->column * dp->depth + dp->hop] =
            node->first_port + ft->ports[cable].num;
    }
    dp->hop++;
    dp->cur = c;
    dp->pending = true;
    dp->pending_group = g;
    dp->pending_cable = cable;
    if (is_top(ft, ft->groups[g].remote))
        for (uint32_t n = c; n != CS_NONE; n = dp->nodes[n].parent)
            dp->nodes[n].used++;
}

/* up_group: OpenSM's order (least loaded first), skipping groups whose cables lead only to chains
 * the leaf already has; in the group, the least loaded such cable (load_down, first on ties, as
 * OpenSM picks a cable). Targets other than paths (tag 0) get OpenSM's choice. */
static unsigned distinct_up_group(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t,
                                  uint32_t s)
{
    struct distinct_paths *dp = ctx;
    if (t->tag == 0)
        return 0;
    if (dp->seq != ft->seq) { /* a new path: start at its leaf's trie */
        dp->seq = ft->seq;
        dp->column = t->tag - 1;
        dp->cur = dp->leaf_of[t->leaf];
        dp->hop = 0;
    }
    const struct cs_ft_switch *sw = &ft->sw[s];
    for (unsigned i = 0; dp->cur != CS_NONE && i < sw->num_up; i++) {
        uint32_t g = ft->lists[sw->up + i];
        const struct cs_ft_group *grp = &ft->groups[g];
        uint32_t best = CS_NONE;
        for (uint32_t c = grp->first_port; c < grp->first_port + grp->num_ports; c++) {
            if (used_through(dp, dp->cur, c) >= dp->chains[grp->remote])
                continue;
            if (best == CS_NONE ||
                cs_ft_cable_load(ft, g, c, false) < cs_ft_cable_load(ft, g, best, false))
                best = c;
        }
        if (best != CS_NONE) {
            take(dp, ft, s, g, best);
            return i;
        }
    }
    return 0;
}

/* cable: the one distinct_up_group chose for the main path's climb; OpenSM's elsewhere (the first
 * with the least load_down going up, load_up going down). Installed only on fabrics with parallel
 * cables: one-cable groups need no choice, and a NULL callback keeps the walk's fast path. */
static unsigned distinct_cable(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t,
                               uint32_t g, bool up)
{
    struct distinct_paths *dp = ctx;
    (void)t;
    const struct cs_ft_group *grp = &ft->groups[g];
    if (up && dp->pending && dp->pending_group == g) {
        dp->pending = false;
        return dp->pending_cable - grp->first_port;
    }
    return cs_ft_least_loaded_cable(ft, g, up);
}

/* ------------------------------------------------------------------------------------------ */
/* Phase I                                                                                     */

/* Path ids go to the shadow tables this many at a time (LIDs 1..PATH_CHUNK), then are copied
 * out: the shadow stays the size of the fabric's tables, however many paths there are. */
#define PATH_CHUNK 4096u

/* Copy LIDs first..first+count-1 of the shadow into columns column.. of every row. */
static void copy_out(const struct cs_ft *ft, const struct cs_lfts *shadow, struct cs_metabase *mb,
                     const uint16_t *lids, const uint32_t *columns, uint32_t count)
{
    uint32_t width = cs_metabase_columns(mb);
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        const uint8_t *table = cs_lfts_table(shadow, ft->sw[s].table);
        uint8_t *row = mb->rows + (size_t)s * width;
        for (uint32_t i = 0; i < count; i++)
            row[columns[i]] = table[lids[i]];
    }
}

/* The most up cables of a switch of each rank below the roots, and their minimum over ranks: the
 * disjoint count (spanning.h). */
static uint64_t disjoint_count(const struct cs_ft *ft)
{
    uint64_t least = UINT64_MAX;
    for (uint32_t rank = 1; rank <= ft->leaf_rank; rank++) {
        uint64_t most = 0;
        for (uint32_t s = 0; s < ft->num_sw; s++) {
            if (ft->sw[s].rank != rank)
                continue;
            uint64_t cables = 0;
            for (unsigned i = 0; i < ft->sw[s].num_up; i++)
                cables += cs_ft_group_at(ft, ft->sw[s].up, i)->num_ports;
            if (cables > most)
                most = cables;
        }
        if (most < least)
            least = most;
    }
    return least == UINT64_MAX || least == 0 ? 1 : least;
}

void cs_ft_spanning_counts(const struct cs_ft *ft, const uint64_t *chains, uint64_t *different,
                           uint64_t *disjoint, uint64_t *fewest)
{
    uint64_t most = 0, least = UINT64_MAX;
    for (uint32_t i = 0; i < ft->num_leaves; i++) {
        uint64_t c = chains[ft->leaves[i]];
        most = c > most ? c : most;
        least = c < least ? c : least;
    }
    *different = most;
    *disjoint = disjoint_count(ft);
    *fewest = ft->num_leaves ? least : 0;
}

static int route_paths(struct cs_ft *ft, struct cs_lfts *shadow, struct cs_metabase *mb,
                       struct cs_error *err)
{
    struct cs_ft_targets list = {0};
    uint16_t *lids = cs_calloc_array(PATH_CHUNK, sizeof *lids, err);
    uint32_t *columns = cs_calloc_array(PATH_CHUNK, sizeof *columns, err);
    int rc = -1;
    if (!lids || !columns)
        goto out;
    /* Path-major: path 0 of every leaf, then path 1 of every leaf, ... so that the first k paths
     * of every leaf (the ones phase II uses on a leaf with k nodes) are balanced among
     * themselves, as ftree balances k nodes per leaf. */
    for (uint32_t k = 0; k < mb->paths; k++) {
        for (uint32_t i = 0; i < mb->num_leaves; i++) {
            if (k >= mb->leaf_paths[i])
                continue;
            uint32_t column = i * mb->paths + k;
            struct cs_ft_target t = {.weight = ft->unit,
                                     .leaf = ft->leaves[i],
                                     .port = CS_NONE,
                                     .tag = column + 1,
                                     .lid = (uint16_t)(list.count + 1),
                                     .kind = CS_FT_TARGET_CA};
            lids[list.count] = t.lid;
            columns[list.count] = column;
            if (cs_ft_targets_add(&list, &t, err) < 0)
                goto out;
            if (list.count == PATH_CHUNK) {
                cs_ft_route_targets(ft, &list);
                copy_out(ft, shadow, mb, lids, columns, list.count);
                list.count = 0;
            }
        }
    }
    if (list.count) { /* the last, partial chunk */
        cs_ft_route_targets(ft, &list);
        copy_out(ft, shadow, mb, lids, columns, list.count);
    }
    rc = 0;
out:
    cs_ft_targets_free(&list);
    free(lids);
    free(columns);
    return rc;
}

/* The other CA ports and the switch LIDs, as ftree routes them (after its compute nodes; here
 * after the paths), at their own LIDs in a cleared shadow, -z included. */
static int route_rest(struct cs_ft *ft, const struct cs_route_options *opt, struct cs_lfts *shadow,
                      struct cs_metabase *mb, struct cs_error *err)
{
    struct cs_ft_targets list = {0};
    if (cs_ft_targets_rest(ft, &list, err) < 0) {
        cs_ft_targets_free(&list);
        return -1;
    }
    uint16_t *lids = cs_calloc_array(list.count + 1, sizeof *lids, err);
    uint32_t *columns = cs_calloc_array(list.count + 1, sizeof *columns, err);
    mb->rest_guids = cs_calloc_array(list.count + 1, sizeof *mb->rest_guids, err);
    int rc = -1;
    if (!lids || !columns || !mb->rest_guids)
        goto out;
    if (list.count != mb->num_rest) {
        rc = cs_fail(err, "mftree: %u targets besides the compute nodes, %u expected", list.count,
                     mb->num_rest);
        goto out;
    }
    memset(shadow->ports, CS_LFT_NO_ROUTE, (size_t)shadow->num_switches * shadow->capacity);
    for (uint32_t r = 0; r < list.count; r++) {
        const struct cs_ft_target *t = &list.items[r];
        lids[r] = t->lid;
        columns[r] = mb->num_leaves * mb->paths + r;
        mb->rest_guids[r] = t->kind == CS_FT_TARGET_CA
                                ? ft->fabric->ports[t->port].guid
                                : ft->fabric->nodes[ft->sw[t->leaf].node].guid;
    }
    cs_ft_route_targets(ft, &list);
    if (opt && opt->connect_roots)
        cs_ft_connect_roots(ft);
    cs_ft_flush(ft);
    copy_out(ft, shadow, mb, lids, columns, list.count);
    rc = 0;
out:
    cs_ft_targets_free(&list);
    free(lids);
    free(columns);
    return rc;
}

static uint32_t count_rest(const struct cs_ft *ft)
{
    uint32_t n = ft->num_sw;
    for (uint32_t i = 0; i < ft->num_ca_ports; i++)
        n += !ft->ca_ports[i].is_cn;
    return n;
}

int cs_metabase_build(const struct cs_fabric *f, const struct cs_route_options *opt,
                      uint32_t requested_paths, uint64_t fingerprint, struct cs_metabase *mb,
                      struct cs_error *err)
{
    memset(mb, 0, sizeof *mb);
    struct cs_ft ft;
    struct cs_lfts shadow = {0};
    uint64_t *chains = NULL;
    uint32_t *leaf_of = NULL;
    struct distinct_paths dp = {0};
    int rc = cs_ft_build(&ft, f, opt, err);
    if (rc != 0)
        goto out;
    rc = -1;
    if (cs_ft_chain_counts(&ft, &chains, err) < 0)
        goto out;
    uint64_t different, disjoint, fewest;
    cs_ft_spanning_counts(&ft, chains, &different, &disjoint, &fewest);
    /* By default every different tree a leaf can use: phase II gives each compute node of a
     * leaf one path, so more paths than the fullest leaf has nodes would never be used (and on
     * the 11664-host XGFT every different tree, 324 a leaf, would be 340 MB). */
    uint64_t usable = different < ft.max_cn_per_leaf ? different : ft.max_cn_per_leaf;
    uint64_t k = requested_paths == 0                            ? usable
                 : requested_paths == CS_METABASE_PATHS_DISJOINT ? disjoint
                                                                 : requested_paths;
    if (k > different) /* more columns than any leaf can fill */
        k = different;
    if (k == 0)
        k = 1;
    mb->fingerprint = fingerprint;
    mb->num_switches = ft.num_sw;
    mb->num_leaves = ft.num_leaves;
    mb->num_rest = count_rest(&ft);
    uint64_t width = (uint64_t)ft.num_leaves * k + mb->num_rest;
    if (width * ft.num_sw > (UINT64_C(1) << 31)) {
        rc = cs_fail(err,
                     "mftree: %llu paths per leaf on %u leaves and %u switches would take %llu MB: "
                     "ask for fewer (--paths)",
                     (unsigned long long)k, ft.num_leaves, ft.num_sw,
                     (unsigned long long)(width * ft.num_sw >> 20));
        goto out;
    }
    mb->paths = (uint32_t)k;
    mb->depth = ft.leaf_rank ? ft.leaf_rank : 1;
    mb->switch_guids = cs_calloc_array(ft.num_sw + 1, sizeof *mb->switch_guids, err);
    mb->leaf_guids = cs_calloc_array(ft.num_leaves + 1, sizeof *mb->leaf_guids, err);
    mb->leaf_paths = cs_calloc_array(ft.num_leaves + 1, sizeof *mb->leaf_paths, err);
    mb->rows = cs_calloc_array((size_t)(width * ft.num_sw) + 1, 1, err);
    mb->chains =
        cs_calloc_array((size_t)ft.num_leaves * k * mb->depth + 1, sizeof *mb->chains, err);
    leaf_of = cs_calloc_array(ft.num_sw + 1, sizeof *leaf_of, err);
    if (!mb->switch_guids || !mb->leaf_guids || !mb->leaf_paths || !mb->rows || !mb->chains ||
        !leaf_of)
        goto out;
    memset(mb->rows, CS_LFT_NO_ROUTE, (size_t)(width * ft.num_sw));
    for (size_t i = 0; i < (size_t)ft.num_leaves * k * mb->depth; i++)
        mb->chains[i] = CS_NONE;
    uint64_t total_paths = 0;
    for (uint32_t s = 0; s < ft.num_sw; s++) {
        mb->switch_guids[s] = f->nodes[ft.sw[s].node].guid;
        leaf_of[s] = CS_NONE;
    }
    for (uint32_t i = 0; i < ft.num_leaves; i++) {
        uint32_t s = ft.leaves[i];
        mb->leaf_guids[i] = f->nodes[ft.sw[s].node].guid;
        mb->leaf_paths[i] = (uint32_t)(chains[s] < k ? chains[s] : k);
        total_paths += mb->leaf_paths[i];
        leaf_of[s] = i; /* the index of its trie's root node */
    }

    dp = (struct distinct_paths){.chains = chains,
                                 .leaf_of = leaf_of,
                                 .paths = mb->paths,
                                 .seq = UINT32_MAX,
                                 .cur = CS_NONE,
                                 .record = mb->chains,
                                 .depth = mb->depth};
    dp.capacity = ft.num_leaves + (uint32_t)(total_paths * mb->depth);
    dp.nodes = cs_calloc_array(dp.capacity + 1, sizeof *dp.nodes, err);
    if (!dp.nodes)
        goto out;
    for (uint32_t i = 0; i < ft.num_leaves; i++)
        dp.nodes[i] = (struct trie_node){.parent = CS_NONE, .child = CS_NONE, .sibling = CS_NONE};
    dp.num_nodes = ft.num_leaves;
    bool parallel = false;
    for (uint32_t g = 0; g < ft.num_groups; g++)
        parallel |= ft.groups[g].num_ports > 1;
    struct cs_ft_policy policy = {.ctx = &dp, .up_group = distinct_up_group};
    if (parallel)
        policy.cable = distinct_cable;

    /* The shadow: the fabric's tables (the machinery binds only those), grown to hold a chunk of
     * path ids. */
    if (cs_lfts_for_fabric(&shadow, f, err) < 0 ||
        (shadow.max_lid < PATH_CHUNK && cs_lfts_grow(&shadow, PATH_CHUNK, err) < 0))
        goto out;
    if (cs_ft_bind(&ft, &shadow, &policy, err) < 0 || route_paths(&ft, &shadow, mb, err) < 0 ||
        route_rest(&ft, opt, &shadow, mb, err) < 0)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        cs_metabase_free(mb);
    free(dp.nodes);
    free(leaf_of);
    free(chains);
    cs_lfts_free(&shadow);
    cs_ft_free(&ft);
    return rc;
}
