/* Fat-tree machinery, stage 2 (fattree.h): binding tables, reset and scope, and the walk of one
 * target (OpenSM's fabric_route_downgoing_by_going_up and fabric_route_upgoing_by_going_down)
 * under a policy. */
#include "route/fattree.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

static const struct cs_node *sw_node(const struct cs_ft *ft, uint32_t s)
{
    return &ft->fabric->nodes[ft->sw[s].node];
}

/* How the downward pass starts at each switch (struct cs_ft_mark), and which switches it may
 * enter: the family bound only when nothing makes the walk depend on more than the loads. */
static void set_marks(struct cs_ft *ft)
{
    ft->shortcuts = !ft->policy.exact && !ft->policy.admit_down && !ft->in_scope;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        const struct cs_ft_switch *sw = &ft->sw[s];
        struct cs_ft_mark *m = &ft->marks[s];
        m->family = sw->family;
        m->has_ca = sw->has_ca;
        m->top = sw->rank == 0 || sw->num_up == 0;
        m->outside = ft->in_scope && !ft->in_scope[s];
        if (sw->num_down == 0)
            m->below = CS_FT_BELOW_NONE;
        else if (sw->num_children == 0 && sw->num_sib == 0)
            m->below = CS_FT_BELOW_CAS;
        else if (ft->shortcuts && ft->lazy_sort && sw->num_sib == 0)
            m->below = CS_FT_BELOW_FAMILY;
        else
            m->below = CS_FT_BELOW_EXACT;
        ft->rows[s] = m->outside ? ft->scratch_row : cs_lfts_table(ft->lfts, sw->table);
    }
}

void cs_ft_reset(struct cs_ft *ft)
{
    ft->batch_len = 0; /* columns not yet written are dropped with the loads that made them */
    memcpy(ft->lists, ft->built_lists, (size_t)ft->num_lists * sizeof *ft->lists);
    for (uint32_t g = 0; g < ft->num_groups; g++)
        ft->groups[g].load_up = ft->groups[g].load_down = 0;
    for (uint32_t p = 0; p < ft->num_ports; p++)
        ft->ports[p].load_up = ft->ports[p].load_down = 0;
    memset(ft->min_load_down, 0, (size_t)ft->num_sw * sizeof *ft->min_load_down);
    ft->min_epoch = 0;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        ft->sw[s].load_up_changed = false;
        ft->sw[s].up_dirty = true;
        ft->sw[s].up_epoch = 0;
    }
    /* Marks and family bounds are valid for one sequence number only: a new one voids them. */
    ft->seq++;
}

/* The compute nodes on the fullest leaf the walk routes (in the scope, if there is one). */
static void scope_max_cn_per_leaf(struct cs_ft *ft)
{
    if (!ft->in_scope) {
        ft->max_cn_per_leaf = ft->tree_max_cn_per_leaf;
        return;
    }
    ft->max_cn_per_leaf = 0;
    for (uint32_t i = 0; i < ft->num_leaves; i++) {
        const struct cs_ft_switch *sw = &ft->sw[ft->leaves[i]];
        if (!ft->in_scope[ft->leaves[i]])
            continue;
        uint32_t cns = 0;
        for (unsigned k = 0; k < sw->num_down; k++) {
            const struct cs_ft_group *g = cs_ft_group_at(ft, sw->down, k);
            cns += g->remote_is_ca && g->is_cn;
        }
        if (cns > ft->max_cn_per_leaf)
            ft->max_cn_per_leaf = cns;
    }
}

int cs_ft_set_scope(struct cs_ft *ft, const uint32_t *nodes, uint32_t count, struct cs_error *err)
{
    cs_ft_flush(ft);
    free(ft->in_scope);
    ft->in_scope = NULL;
    int rc = 0;
    if (count > 0) {
        uint32_t num_nodes = ft->fabric->num_nodes;
        uint32_t *sw_of_node = cs_calloc_array(num_nodes + 1, sizeof *sw_of_node, err);
        ft->in_scope = cs_calloc_array(ft->num_sw, 1, err);
        if (!sw_of_node || !ft->in_scope) {
            rc = -1;
        } else {
            for (uint32_t n = 0; n < num_nodes; n++)
                sw_of_node[n] = CS_NONE;
            for (uint32_t s = 0; s < ft->num_sw; s++)
                sw_of_node[ft->sw[s].node] = s;
            for (uint32_t i = 0; i < count && rc == 0; i++) {
                uint32_t s = nodes[i] < num_nodes ? sw_of_node[nodes[i]] : CS_NONE;
                if (s == CS_NONE)
                    rc = cs_fail(err, "scope: node %u is not a switch of the fat tree", nodes[i]);
                else
                    ft->in_scope[s] = 1;
            }
        }
        free(sw_of_node);
        if (rc < 0) {
            free(ft->in_scope);
            ft->in_scope = NULL;
        }
    }
    scope_max_cn_per_leaf(ft);
    set_marks(ft);
    return rc;
}

bool cs_ft_is_subtree(const struct cs_ft *ft, const uint8_t *member, uint32_t *sw, uint32_t *remote)
{
    uint32_t top = CS_FT_UNRANKED, leaf = CS_NONE;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        if (!member[s])
            continue;
        if (ft->sw[s].rank < top)
            top = ft->sw[s].rank;
        if (ft->sw[s].is_leaf && leaf == CS_NONE)
            leaf = s;
    }
    *sw = *remote = CS_NONE;
    if (leaf == CS_NONE)
        return false;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        if (!member[s])
            continue;
        const struct cs_ft_switch *x = &ft->sw[s];
        unsigned groups = x->num_down + (x->rank > top ? x->num_up : 0u);
        for (unsigned k = 0; k < groups; k++) {
            const struct cs_ft_group *g = k < x->num_down
                                              ? cs_ft_group_at(ft, x->down, k)
                                              : cs_ft_group_at(ft, x->up, k - x->num_down);
            if (!g->remote_is_ca && !member[g->remote]) {
                *sw = s;
                *remote = g->remote;
                return false;
            }
        }
    }
    return true;
}

int cs_ft_bind(struct cs_ft *ft, struct cs_lfts *lfts, const struct cs_ft_policy *policy,
               struct cs_error *err)
{
    const struct cs_fabric *f = ft->fabric;
    uint32_t *table_of_node = cs_calloc_array(f->num_nodes, sizeof *table_of_node, err);
    if (!table_of_node)
        return -1;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        table_of_node[n] = CS_NONE;
    for (uint32_t t = 0; t < lfts->num_switches; t++)
        if (lfts->switches[t].node < f->num_nodes)
            table_of_node[lfts->switches[t].node] = t;
    int rc = 0;
    for (uint32_t s = 0; s < ft->num_sw && rc == 0; s++) {
        ft->sw[s].table = table_of_node[ft->sw[s].node];
        if (ft->sw[s].table == CS_NONE || ft->sw[s].lid >= lfts->capacity)
            rc = cs_fail(err, "ftree: switch 0x%016llx has no table for its LIDs",
                         (unsigned long long)sw_node(ft, s)->guid);
    }
    for (uint32_t i = 0; i < ft->num_ca_ports && rc == 0; i++)
        if (ft->ca_ports[i].lid >= lfts->capacity)
            rc = cs_fail(err, "ftree: LID %u is beyond the tables", ft->ca_ports[i].lid);
    free(table_of_node);
    if (rc < 0)
        return rc;
    free(ft->rows);
    free(ft->marks);
    free(ft->min_load_down);
    free(ft->columns);
    free(ft->batch_lids);
    free(ft->families);
    free(ft->scratch_row);
    ft->rows = cs_calloc_array(ft->num_sw, sizeof *ft->rows, err);
    ft->marks = cs_calloc_array(ft->num_sw, sizeof *ft->marks, err);
    ft->min_load_down = cs_calloc_array(ft->num_sw, sizeof *ft->min_load_down, err);
    ft->columns = cs_calloc_array((size_t)(CS_FT_BATCH + 1) * ft->num_sw, 1, err);
    ft->batch_lids = cs_calloc_array(CS_FT_BATCH, sizeof *ft->batch_lids, err);
    ft->families = cs_calloc_array(ft->num_families + 1, sizeof *ft->families, err);
    ft->scratch_row = cs_calloc_array(lfts->capacity, 1, err);
    if (!ft->rows || !ft->marks || !ft->min_load_down || !ft->columns || !ft->batch_lids ||
        !ft->families || !ft->scratch_row)
        return -1;
    static const struct cs_ft_policy opensm = {0};
    ft->policy = policy ? *policy : opensm;
    ft->lfts = lfts;
    free(ft->in_scope);
    ft->in_scope = NULL;
    scope_max_cn_per_leaf(ft);
    set_marks(ft);
    cs_ft_reset(ft);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Routing one target                                                                          */

/* OpenSM's "already has a route with fewer (or as many) hops": hops[] set and h >= hops. */
static inline bool reached(const struct cs_ft *ft, uint32_t s, unsigned h)
{
    const struct cs_ft_mark *m = &ft->marks[s];
    return m->seq == ft->seq && h >= m->hops;
}

/* new_lft[target] != NO_PATH, for the target being routed. */
static inline bool has_entry(const struct cs_ft *ft, uint32_t s)
{
    const struct cs_ft_mark *m = &ft->marks[s];
    return m->seq == ft->seq && m->port != CS_LFT_NO_ROUTE;
}

/* new_lft[target] = port and hops[target] = h (the LFT itself only for a real LID). */
static inline void set_entry(struct cs_ft *ft, uint32_t s, uint8_t port, unsigned h)
{
    struct cs_ft_mark *m = &ft->marks[s];
    m->seq = ft->seq;
    m->hops = (uint8_t)h;
    m->port = port;
    ft->column[s] = port;
}

/* Tell the policy of an entry just set at g's remote, through cable. */
static inline void took_hop(struct cs_ft *ft, uint32_t s, uint32_t g, uint32_t cable,
                            enum cs_ft_hop_dir dir, bool main)
{
    if (ft->policy.hop && (main || !ft->policy.main_hops_only))
        ft->policy.hop(ft->policy.ctx, ft, ft->target, s, g, cable, dir, main);
}

/* The cable of group g that carries a route (an index into ft->ports): the policy's, or
 * OpenSM's (cs_ft_least_loaded_cable). */
static inline uint32_t pick_cable(const struct cs_ft *ft, uint32_t g, bool up)
{
    const struct cs_ft_group *grp = &ft->groups[g];
    if (grp->num_ports == 1)
        return grp->first_port;
    if (ft->policy.cable)
        return grp->first_port + ft->policy.cable(ft->policy.ctx, ft, ft->target, g, up);
    return grp->first_port + cs_ft_least_loaded_cable(ft, g, up);
}

/* The far end's port number of a cable of group g. */
static inline uint8_t cable_remote_num(const struct cs_ft *ft, uint32_t g, uint32_t cable)
{
    const struct cs_ft_group *grp = &ft->groups[g];
    return grp->num_ports == 1 ? grp->remote_num : ft->ports[cable].remote_num;
}

/* Count a route on group g and its cable (see struct cs_ft_port for one-cable groups). */
static inline void count_up(struct cs_ft *ft, uint32_t g, uint32_t cable)
{
    struct cs_ft_group *grp = &ft->groups[g];
    grp->load_up += ft->weight;
    if (grp->num_ports > 1)
        ft->ports[cable].load_up += ft->weight;
}

static inline void count_down(struct cs_ft *ft, uint32_t g, uint32_t cable)
{
    struct cs_ft_group *grp = &ft->groups[g];
    grp->load_down += ft->weight;
    if (grp->num_ports > 1)
        ft->ports[cable].load_down += ft->weight;
}

/* port_group_compare_load_up: load_up, then the remote switch's tuple. */
static inline int compare_load_up(const struct cs_ft *ft, uint32_t a, uint32_t b)
{
    const struct cs_ft_group *ga = &ft->groups[a], *gb = &ft->groups[b];
    if (ga->load_up != gb->load_up)
        return ga->load_up > gb->load_up ? 1 : -1;
    return ga->remote_key > gb->remote_key ? 1 : ga->remote_key < gb->remote_key ? -1 : 0;
}

/* port_group_compare_load_down, quirk included: load_down; then, only when the first
 * remote's least loaded down group is heavier, "greater"; otherwise the tuples decide. */
static inline int compare_load_down(const struct cs_ft *ft, uint32_t a, uint32_t b)
{
    const struct cs_ft_group *ga = &ft->groups[a], *gb = &ft->groups[b];
    if (ga->load_down != gb->load_down)
        return ga->load_down > gb->load_down ? 1 : -1;
    if (ft->min_load_down[ga->remote] > ft->min_load_down[gb->remote])
        return 1;
    return ga->remote_key > gb->remote_key ? 1 : ga->remote_key < gb->remote_key ? -1 : 0;
}

/* OpenSM's bubble sorts (bubble_sort_up/down/siblings): the passes and swaps are OpenSM's,
 * which matters when the comparison is not a total order. */
static void bubble_sort(const struct cs_ft *ft, uint32_t *list, unsigned n, bool by_load_down)
{
    bool swapped = true;
    for (unsigned pass = 0; swapped; pass++) {
        swapped = false;
        for (unsigned j = 1; j + pass < n; j++) {
            int c = by_load_down ? compare_load_down(ft, list[j], list[j - 1])
                                 : compare_load_up(ft, list[j], list[j - 1]);
            if (c < 0) {
                uint32_t t = list[j];
                list[j] = list[j - 1];
                list[j - 1] = t;
                swapped = true;
            }
        }
    }
}

/* recalculate_min_load_down */
static void recalc_min_load_down(struct cs_ft *ft, uint32_t s)
{
    const struct cs_ft_switch *sw = &ft->sw[s];
    cs_ft_load min = CS_FT_LOAD_MAX;
    for (unsigned i = 0; i < sw->num_down; i++) {
        cs_ft_load c = cs_ft_group_at(ft, sw->down, i)->load_down;
        if (c < min)
            min = c;
    }
    if (ft->min_load_down[s] != min)
        ft->min_epoch++;
    ft->min_load_down[s] = min;
}

static bool route_below_slow(struct cs_ft *ft, uint32_t s, uint32_t prev, unsigned hops);

/* fabric_route_upgoing_by_going_down on switch s, entered with `hops`. The cases answered
 * without a walk are inline: a leaf (OpenSM's loop only notes that CAs are there) and a
 * family bound that says every child already has a route at least as short as the one it
 * would get from us (OpenSM would skip every group). */
static inline bool route_below(struct cs_ft *ft, uint32_t s, uint32_t prev, unsigned hops)
{
    const struct cs_ft_mark *m = &ft->marks[s];
    if (m->below == CS_FT_BELOW_FAMILY) {
        const struct cs_ft_family *fam = &ft->families[m->family];
        if (fam->seq == ft->seq && fam->bound <= hops + 1)
            return m->has_ca;
    } else if (m->below == CS_FT_BELOW_CAS) {
        return true;
    } else if (m->below == CS_FT_BELOW_NONE) {
        return false;
    }
    return route_below_slow(ft, s, prev, hops);
}

/* One group of fabric_route_upgoing_by_going_down's loop, past the checks: the remote switch
 * routes up to us, then everything below it; counters count the route if it reached a CA
 * (whatever the target: OpenSM counts secondary and switch routes here too). */
static inline bool route_down_group(struct cs_ft *ft, uint32_t s, uint32_t g, unsigned hops,
                                    bool sibling)
{
    struct cs_ft_group *grp = &ft->groups[g];
    uint32_t r = grp->remote;
    bool hop = ft->policy.hop && !ft->policy.main_hops_only;
    if (grp->num_ports == 1 && !hop) { /* the common case */
        set_entry(ft, r, grp->remote_num, hops + 1);
        bool routed = route_below(ft, r, CS_NONE, hops + 1);
        if (routed) {
            grp->load_up += ft->weight;
            ft->sw[s].load_up_changed = true;
        }
        return routed;
    }
    uint32_t cable = pick_cable(ft, g, false);
    set_entry(ft, r, cable_remote_num(ft, g, cable), hops + 1);
    took_hop(ft, s, g, cable, sibling ? CS_FT_HOP_SIBLING : CS_FT_HOP_UP, false);
    bool routed = route_below(ft, r, CS_NONE, hops + 1);
    if (routed) {
        count_up(ft, g, cable);
        ft->sw[s].load_up_changed = true;
    }
    return routed;
}

/* fabric_route_upgoing_by_going_down, literally: sort (when counters moved), walk the down
 * groups (and the siblings for a real LID) in order. Afterwards every child has a route of at
 * most `bound` hops for the rest of this target (hop counts only shrink), which the family
 * remembers (struct cs_ft_family); a child without a route (only `prev` could be one) voids
 * the bound. */
static inline bool admitted(const struct cs_ft *ft, uint32_t s, uint32_t g)
{
    return !ft->policy.admit_down || ft->policy.admit_down(ft->policy.ctx, ft, ft->target, s, g);
}

static bool route_below_slow(struct cs_ft *ft, uint32_t s, uint32_t prev, unsigned hops)
{
    struct cs_ft_switch *sw = &ft->sw[s];
    if (sw->num_down == 0)
        return false;
    if (sw->load_up_changed) {
        bubble_sort(ft, &ft->lists[sw->down], sw->num_down, false);
        sw->load_up_changed = false;
    }
    if (sw->num_sib)
        bubble_sort(ft, &ft->lists[sw->sib], sw->num_sib, false);
    bool created = false;
    unsigned bound = 0;
    const uint32_t *list = &ft->lists[sw->down];
    for (unsigned k = 0; k < sw->num_down; k++) {
        uint32_t g = list[k];
        const struct cs_ft_group *grp = &ft->groups[g];
        if (grp->remote_is_ca) {
            created = true;
            continue;
        }
        uint32_t r = grp->remote;
        const struct cs_ft_mark *m = &ft->marks[r];
        unsigned h = m->seq == ft->seq ? m->hops : 255;
        if (r != prev && h > hops + 1 && !m->outside && admitted(ft, s, g)) {
            /* not reached(ft, r, hops + 1) */
            created |= route_down_group(ft, s, g, hops, false);
            h = hops + 1;
        }
        if (h > bound)
            bound = h;
    }
    /* Siblings (real LIDs only), after the down groups, as OpenSM walks them. */
    for (unsigned k = 0; ft->real && k < sw->num_sib; k++) {
        uint32_t g = ft->lists[sw->sib + k];
        uint32_t r = ft->groups[g].remote;
        if (r != prev && !reached(ft, r, hops + 1) && !ft->marks[r].outside && admitted(ft, s, g))
            created |= route_down_group(ft, s, g, hops, true);
    }
    if (ft->marks[s].below == CS_FT_BELOW_FAMILY && bound < 255) {
        struct cs_ft_family *fam = &ft->families[sw->family];
        if (fam->seq != ft->seq || bound < fam->bound) {
            fam->seq = ft->seq;
            fam->bound = (uint8_t)bound;
        }
    }
    return created;
}

static bool route_up_slow(struct cs_ft *ft, uint32_t s, uint32_t prev, bool main_path,
                          unsigned hops);

/* fabric_route_downgoing_by_going_up (no reverse hops: I/O nodes are not supported); at a
 * root it is only the downward pass. */
static inline bool route_up_from(struct cs_ft *ft, uint32_t s, uint32_t prev, bool main_path,
                                 unsigned hops)
{
    if (ft->marks[s].top)
        return route_below(ft, s, prev, hops);
    return route_up_slow(ft, s, prev, main_path, hops);
}

static bool route_up_slow(struct cs_ft *ft, uint32_t s, uint32_t prev, bool main_path,
                          unsigned hops)
{
    bool created = route_below(ft, s, prev, hops);
    struct cs_ft_switch *sw = &ft->sw[s];

    uint32_t *up = &ft->lists[sw->up];
    /* A bubble sort of a list it left sorted is a no-op unless something it compares moved:
     * the groups' load_down (up_dirty) or a remote's min_load_down (min_epoch). */
    if (sw->up_dirty || sw->up_epoch != ft->min_epoch) {
        bubble_sort(ft, up, sw->num_up, true);
        sw->up_dirty = false;
        sw->up_epoch = ft->min_epoch;
    }
    unsigned chosen = 0;
    if (main_path && ft->policy.up_group)
        chosen = ft->policy.up_group(ft->policy.ctx, ft, ft->target, s);
    uint32_t g0 = up[chosen];
    uint32_t cable0 = pick_cable(ft, g0, true);

    if (main_path && !ft->marks[ft->groups[g0].remote].outside) {
        struct cs_ft_group *grp = &ft->groups[g0];
        uint32_t r = grp->remote;
        count_down(ft, g0, cable0);
        sw->up_dirty = true;
        /* OpenSM: recalculate when the group just left the remote's minimum. */
        if (grp->load_down - ft->weight == ft->min_load_down[r])
            recalc_min_load_down(ft, r);
        if (!has_entry(ft, r) || hops + 1 < ft->marks[r].hops) {
            set_entry(ft, r, cable_remote_num(ft, g0, cable0), hops + 1);
            took_hop(ft, s, g0, cable0, CS_FT_HOP_DOWN, true);
        }
        created |= route_up_from(ft, r, s, true, hops + 1);
    }

    /* Secondary paths: the other up groups (switch-to-switch and switch-to-CA routes, not
     * counted going up). */
    for (unsigned i = 0; i < sw->num_up; i++) {
        if (main_path && i == chosen)
            continue;
        uint32_t g = up[i];
        uint32_t r = ft->groups[g].remote;
        if ((has_entry(ft, r) && hops + 1 >= ft->marks[r].hops) || ft->marks[r].outside)
            continue;
        uint32_t cable = pick_cable(ft, g, true);
        set_entry(ft, r, cable_remote_num(ft, g, cable), hops + 1);
        took_hop(ft, s, g, cable, CS_FT_HOP_DOWN, false);
        created |= route_up_from(ft, r, s, false, hops + 1);
    }

    if (sw->num_sib) {
        uint32_t *sib = &ft->lists[sw->sib];
        bubble_sort(ft, sib, sw->num_sib, true);
        for (unsigned i = 0; i < sw->num_sib; i++) {
            uint32_t g = sib[i];
            uint32_t r = ft->groups[g].remote;
            if ((has_entry(ft, r) && hops + 1 >= ft->marks[r].hops) || ft->marks[r].outside)
                continue;
            uint32_t cable = pick_cable(ft, g, true);
            set_entry(ft, r, cable_remote_num(ft, g, cable), hops + 1);
            took_hop(ft, s, g, cable, CS_FT_HOP_SIBLING, false);
            bool routed = route_up_from(ft, r, s, false, hops + 1);
            created |= routed;
            if (routed) { /* OpenSM counts it on the main group and cable */
                count_down(ft, g0, cable0);
                sw->up_dirty = true;
            }
        }
    }
    return created;
}

void cs_ft_flush(struct cs_ft *ft)
{
    uint32_t n = ft->batch_len;
    if (n == 0)
        return;
    /* Columns in LID order, so that each table is written front to back. */
    uint32_t order[CS_FT_BATCH];
    uint16_t lids[CS_FT_BATCH];
    const uint8_t *cols[CS_FT_BATCH];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        while (j > 0 && ft->batch_lids[order[j - 1]] > ft->batch_lids[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (uint32_t k = 0; k < n; k++) {
        lids[k] = ft->batch_lids[order[k]];
        cols[k] = ft->columns + (size_t)order[k] * ft->num_sw;
    }
    /* A blocked transpose: eight switches at a time, so that each column is read 8 bytes at a
     * time and each table line is written by the whole batch at once. */
    uint32_t s = 0;
    for (; s + 8 <= ft->num_sw; s += 8) {
        uint8_t *row[8];
        for (unsigned j = 0; j < 8; j++)
            row[j] = ft->rows[s + j];
        for (uint32_t k = 0; k < n; k++) {
            uint64_t v;
            memcpy(&v, cols[k] + s, sizeof v);
            for (unsigned j = 0; j < 8; j++)
                row[j][lids[k]] = (uint8_t)(v >> (8 * j));
        }
    }
    for (; s < ft->num_sw; s++)
        for (uint32_t k = 0; k < n; k++)
            ft->rows[s][lids[k]] = cols[k][s];
    ft->batch_len = 0;
}

static void begin_target(struct cs_ft *ft, const struct cs_ft_target *t, bool real)
{
    ft->seq++;
    ft->target = t;
    ft->real = real;
    ft->weight = t->weight;
    if (real) {
        if (ft->batch_len == CS_FT_BATCH)
            cs_ft_flush(ft);
        ft->column = ft->columns + (size_t)ft->batch_len * ft->num_sw;
        ft->batch_lids[ft->batch_len++] = t->lid;
    } else {
        ft->column = ft->columns + (size_t)CS_FT_BATCH * ft->num_sw; /* scratch */
    }
    memset(ft->column, CS_LFT_NO_ROUTE, ft->num_sw);
}

void cs_ft_route_target(struct cs_ft *ft, const struct cs_ft_target *t)
{
    if (ft->marks[t->leaf].outside)
        return;
    switch (t->kind) {
    case CS_FT_TARGET_CA:
        begin_target(ft, t, true);
        set_entry(ft, t->leaf, t->leaf_port, 1);
        route_up_from(ft, t->leaf, CS_NONE, true, 1);
        break;
    case CS_FT_TARGET_DUMMY: {
        begin_target(ft, t, false);
        /* OpenSM sets hops[0] = 1 on the leaf but no LFT entry; LID 0 is forgotten afterwards. */
        struct cs_ft_mark *m = &ft->marks[t->leaf];
        m->seq = ft->seq;
        m->hops = 1;
        m->port = CS_LFT_NO_ROUTE;
        route_up_from(ft, t->leaf, CS_NONE, true, 1);
        break;
    }
    case CS_FT_TARGET_SWITCH:
    case CS_FT_TARGET_SWITCH_MAIN:
        begin_target(ft, t, true);
        set_entry(ft, t->leaf, 0, 0);
        route_up_from(ft, t->leaf, CS_NONE, t->kind == CS_FT_TARGET_SWITCH_MAIN, 0);
        break;
    }
}

void cs_ft_route_targets(struct cs_ft *ft, const struct cs_ft_targets *list)
{
    for (uint32_t i = 0; i < list->count; i++)
        cs_ft_route_target(ft, &list->items[i]);
    cs_ft_flush(ft);
}
