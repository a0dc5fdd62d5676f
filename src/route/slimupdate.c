/* slimupdate: SlimUpdate (Zahid et al., "Compact Network Reconfiguration in Fat-Trees",
 * Algorithms 1-3), the Minimal Routing Update on the fat-tree machinery
 * (docs/routing/slimupdate.md). Its difference from ftree is a policy and a target order:
 *
 *  - targets: on every leaf the compute nodes the previous tables route come first (Alg. 1
 *    line 4), then the new ones, in leaf port order each, then ftree's dummies; the rest as ftree;
 *  - up_group (Alg. 2): a main path keeps the up group its previous route came down through while
 *    that group's load is under its maximum counter; otherwise the least loaded group (OpenSM's
 *    measure: the group's downward load, then the remote switch's least loaded down group), ties
 *    to the remote switch with the highest GUID;
 *  - cable (Alg. 2 for up groups, Alg. 3 for down groups): the cable the previous route used
 *    while its load is under the cable's maximum counter, else the least loaded, first in port
 *    order on ties.
 *
 * Maximum counters (set_max_counter_on_ports, whose formula the paper does not give), in routes
 * of weight 1 per cable, from the targets ftree counts (compute nodes and dummies):
 *    downward, on each up cable of switch s:  ceil(below(s) / up_cables(s))
 *    upward,   on each cable into child c:    ceil((all - below(c)) / up_cables(c))
 * below(s) = targets on the leaves under s, all = every target, up_cables = live cables up. A
 * group's maximum is its cables' sum. These are the loads a perfectly balanced routing puts on a
 * cable (rounded up), so a kept route never makes a cable carry more than a fresh balanced
 * routing would; when a cable dies, its routes go to the least loaded survivors and the maxima
 * (recomputed on the damaged tree) let every survivor keep its own.
 *
 * "The group a previous route came down through": previous tables set an entry toward a
 * destination on every switch (ftree's secondary paths), so an entry alone does not say which
 * up group carried the main path. The traffic does: the switches that the previous routes from
 * every leaf cross on their way to the destination. Of the up groups whose remote switch the
 * previous traffic crossed and that forwarded it toward this switch, the main path's is the one
 * the most leaves' routes cross: after a fault, a secondary path may carry a few leaves' traffic
 * too (a switch cut from the main root goes through another), never more than the main path. */
#include "cloudsm/route.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "route/fattree.h"

struct slim {
    const struct cs_lfts *previous;
    uint32_t *prev_table;  /* per switch: its table in previous, or CS_NONE */
    uint32_t *next_switch; /* per switch, per port number: the switch behind it, or CS_NONE */
    uint32_t *group_owner; /* per group: the switch that owns it */
    cs_ft_load *down_max;  /* per switch: downward maximum of one of its up cables */
    cs_ft_load *up_max;    /* per switch: upward maximum of one cable into it from above */
    uint32_t *carried;     /* per switch: carried_lid's previous traffic crosses it */
    uint32_t *crossings;   /* per switch where carried: how many leaves' routes cross it */
    uint32_t carried_lid;  /* LID `carried` describes (0: none yet) */
    uint32_t carried_seq;  /* stamp of the current LID in `carried` */
    uint32_t max_hops;     /* a previous route longer than this is a loop */
    uint32_t matched;      /* switches that have a previous table */
};

static void slim_free(struct slim *st)
{
    free(st->prev_table);
    free(st->next_switch);
    free(st->group_owner);
    free(st->down_max);
    free(st->up_max);
    free(st->carried);
    free(st->crossings);
}

/* The previous entry of switch s toward lid, CS_LFT_NO_ROUTE when unknown. */
static uint8_t previous_port(const struct slim *st, uint32_t s, uint32_t lid)
{
    uint32_t table = st->prev_table[s];
    if (table == CS_NONE || lid == 0 || lid >= st->previous->capacity)
        return CS_LFT_NO_ROUTE;
    return cs_lfts_get(st->previous, table, lid);
}

static uint32_t up_cables(const struct cs_ft *ft, uint32_t s)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < ft->sw[s].num_up; i++)
        n += cs_ft_group_at(ft, ft->sw[s].up, i)->num_ports;
    return n;
}

static cs_ft_load ceil_share(uint64_t targets, uint32_t cables, cs_ft_load unit)
{
    if (cables == 0)
        return CS_FT_LOAD_MAX;
    return (cs_ft_load)((targets + cables - 1) / cables) * unit;
}

/* Targets under each switch: the leaves below it (each carries max_cn_per_leaf targets: its
 * compute nodes and dummies), found by a walk down its groups. */
static int count_below(const struct cs_ft *ft, uint64_t *below, struct cs_error *err)
{
    uint32_t *seen = cs_calloc_array(ft->num_sw, sizeof *seen, err);
    uint32_t *stack = cs_calloc_array(ft->num_sw + 1, sizeof *stack, err);
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return -1;
    }
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        uint32_t depth = 0, leaves = 0;
        stack[depth++] = s;
        seen[s] = s + 1;
        while (depth) {
            uint32_t x = stack[--depth];
            leaves += ft->sw[x].is_leaf;
            for (unsigned i = 0; i < ft->sw[x].num_down; i++) {
                const struct cs_ft_group *g = cs_ft_group_at(ft, ft->sw[x].down, i);
                if (g->remote_is_ca || seen[g->remote] == s + 1)
                    continue;
                seen[g->remote] = s + 1;
                stack[depth++] = g->remote;
            }
        }
        below[s] = (uint64_t)leaves * ft->max_cn_per_leaf;
    }
    free(seen);
    free(stack);
    return 0;
}

/* Everything the callbacks read, for the machinery just bound. */
static int slim_prepare(struct slim *st, const struct cs_ft *ft, struct cs_error *err)
{
    uint32_t n = ft->num_sw;
    st->prev_table = cs_calloc_array(n, sizeof *st->prev_table, err);
    st->next_switch = cs_calloc_array((size_t)n * 256, sizeof *st->next_switch, err);
    st->down_max = cs_calloc_array(n, sizeof *st->down_max, err);
    st->up_max = cs_calloc_array(n, sizeof *st->up_max, err);
    st->carried = cs_calloc_array(n, sizeof *st->carried, err);
    st->crossings = cs_calloc_array(n, sizeof *st->crossings, err);
    st->group_owner = cs_calloc_array(ft->num_groups + 1, sizeof *st->group_owner, err);
    uint64_t *below = cs_calloc_array(n, sizeof *below, err);
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    int rc = -1;
    if (!st->prev_table || !st->next_switch || !st->down_max || !st->up_max || !st->carried ||
        !st->crossings || !st->group_owner || !below || count_below(ft, below, err) < 0)
        goto out;
    for (uint32_t t = 0; st->previous && t < st->previous->num_switches; t++)
        if (cs_key_index_add(&by_guid, st->previous->switches[t].guid, t, err) < 0)
            goto out;
    cs_key_index_sort(&by_guid);
    uint64_t all = (uint64_t)ft->num_leaves * ft->max_cn_per_leaf;
    for (uint32_t s = 0; s < n; s++) {
        const struct cs_ft_switch *sw = &ft->sw[s];
        st->prev_table[s] = cs_key_index_find(&by_guid, ft->fabric->nodes[sw->node].guid);
        st->matched += st->prev_table[s] != CS_NONE;
        uint32_t *next = &st->next_switch[(size_t)s * 256];
        for (unsigned p = 0; p < 256; p++)
            next[p] = CS_NONE;
        for (uint32_t l = 0; l < (uint32_t)sw->num_down + sw->num_up + sw->num_sib; l++) {
            uint32_t first = l < sw->num_down ? sw->down + l
                             : l < (uint32_t)sw->num_down + sw->num_up
                                 ? sw->up + l - sw->num_down
                                 : sw->sib + l - sw->num_down - sw->num_up;
            const struct cs_ft_group *g = &ft->groups[ft->lists[first]];
            st->group_owner[ft->lists[first]] = s;
            if (g->remote_is_ca)
                continue;
            for (uint32_t c = g->first_port; c < g->first_port + g->num_ports; c++)
                next[ft->ports[c].num] = g->remote;
        }
        st->down_max[s] = ceil_share(below[s], up_cables(ft, s), ft->unit);
        st->up_max[s] = ceil_share(all - below[s], up_cables(ft, s), ft->unit);
    }
    st->max_hops = 2 * (ft->max_rank + 1) + 2;
    rc = 0;
out:
    cs_key_index_free(&by_guid);
    free(below);
    return rc;
}

/* Mark the switches the previous routes toward lid cross, from every leaf, counting the routes
 * that cross each (a route is at most max_hops long: leaves x levels steps per LID). */
static void trace_previous(struct slim *st, const struct cs_ft *ft, uint32_t lid)
{
    if (st->carried_lid == lid)
        return;
    st->carried_lid = lid;
    if (++st->carried_seq == 0) {
        memset(st->carried, 0, ft->num_sw * sizeof *st->carried);
        st->carried_seq = 1;
    }
    uint32_t seq = st->carried_seq;
    for (uint32_t i = 0; i < ft->num_leaves; i++) {
        uint32_t s = ft->leaves[i];
        for (uint32_t hop = 0; hop < st->max_hops; hop++) {
            uint8_t port = previous_port(st, s, lid);
            if (port == CS_LFT_NO_ROUTE || port == 0)
                break;
            uint32_t next = st->next_switch[(size_t)s * 256 + port];
            if (next == CS_NONE)
                break;
            if (st->carried[next] != seq) {
                st->carried[next] = seq;
                st->crossings[next] = 0;
            }
            st->crossings[next]++;
            s = next;
        }
    }
}

/* The cable of group g (owned by s) whose far end the previous entry of g's remote switch
 * toward lid names, or CS_NONE. */
static uint32_t previous_cable(const struct slim *st, const struct cs_ft *ft, uint32_t g,
                               uint32_t lid)
{
    const struct cs_ft_group *grp = &ft->groups[g];
    uint8_t port = previous_port(st, grp->remote, lid);
    if (port == CS_LFT_NO_ROUTE)
        return CS_NONE;
    if (grp->num_ports == 1)
        return grp->remote_num == port ? grp->first_port : CS_NONE;
    for (uint32_t c = grp->first_port; c < grp->first_port + grp->num_ports; c++)
        if (ft->ports[c].remote_num == port)
            return c;
    return CS_NONE;
}

/* Alg. 2: the previous main path's group while under its maximum, else the least loaded. */
static unsigned keep_or_least_loaded_group(void *ctx, const struct cs_ft *ft,
                                           const struct cs_ft_target *t, uint32_t s)
{
    struct slim *st = ctx;
    const struct cs_ft_switch *sw = &ft->sw[s];
    if (t->lid && st->previous) {
        trace_previous(st, ft, t->lid);
        unsigned main = UINT32_MAX;
        uint32_t most = 0;
        for (unsigned i = 0; i < sw->num_up; i++) {
            uint32_t g = ft->lists[sw->up + i];
            uint32_t r = ft->groups[g].remote;
            if (st->carried[r] == st->carried_seq && st->crossings[r] > most &&
                previous_cable(st, ft, g, t->lid) != CS_NONE) {
                most = st->crossings[r];
                main = i;
            }
        }
        if (main != UINT32_MAX) {
            const struct cs_ft_group *grp = cs_ft_group_at(ft, sw->up, main);
            if (grp->load_down < st->down_max[s] * grp->num_ports)
                return main;
        }
    }
    /* OpenSM's sort put the least loaded first (its load, then the remote's least loaded down
     * group); of those tied with the first, the remote switch with the highest GUID. */
    const struct cs_ft_group *first = cs_ft_group_at(ft, sw->up, 0);
    unsigned chosen = 0;
    uint64_t best_guid = 0;
    for (unsigned i = 0; i < sw->num_up; i++) {
        const struct cs_ft_group *grp = cs_ft_group_at(ft, sw->up, i);
        if (grp->load_down != first->load_down ||
            ft->min_load_down[grp->remote] != ft->min_load_down[first->remote])
            continue;
        uint64_t guid = ft->fabric->nodes[ft->sw[grp->remote].node].guid;
        if (guid > best_guid) {
            best_guid = guid;
            chosen = i;
        }
    }
    return chosen;
}

/* Alg. 2/3 for the cables of a group: the previous one while under its maximum. */
static unsigned keep_or_least_loaded_cable(void *ctx, const struct cs_ft *ft,
                                           const struct cs_ft_target *t, uint32_t g, bool up)
{
    const struct cs_ft_group *grp = &ft->groups[g];
    const struct slim *st = ctx;
    if (t->lid && st->previous) {
        uint32_t cable = previous_cable(st, ft, g, t->lid);
        /* An up group's cable: routes come down it into its owner, within the owner's
         * downward maximum. A down group's: routes go up it from the remote switch, within
         * the remote's upward maximum. */
        if (cable != CS_NONE) {
            cs_ft_load load = up ? ft->ports[cable].load_down : ft->ports[cable].load_up;
            cs_ft_load max = up ? st->down_max[st->group_owner[g]] : st->up_max[grp->remote];
            if (load < max)
                return cable - grp->first_port;
        }
    }
    return cs_ft_least_loaded_cable(ft, g, up);
}

/* Alg. 1 line 4: on every leaf, the compute nodes the previous tables route first. */
static int previous_first(const struct cs_ft *ft, const struct cs_route_inputs *in,
                          struct cs_ft_targets *list, struct cs_error *err)
{
    struct slim *st = ft->policy.ctx;
    if (slim_prepare(st, ft, err) < 0) /* the machinery is bound: what the callbacks read */
        return -1;
    if (cs_ft_targets_cns(ft, list, err) < 0)
        return -1;
    uint32_t slots = ft->max_cn_per_leaf;
    struct cs_ft_target *block = cs_calloc_array(slots + 1, sizeof *block, err);
    if (!block)
        return -1;
    for (uint32_t first = 0; in->previous && first + slots <= list->count; first += slots) {
        struct cs_ft_target *items = list->items + first;
        uint32_t n = 0;
        for (int pass = 0; pass < 3; pass++)
            for (uint32_t i = 0; i < slots; i++) {
                const struct cs_ft_target *t = &items[i];
                bool known = t->kind == CS_FT_TARGET_CA &&
                             previous_port(st, t->leaf, t->lid) != CS_LFT_NO_ROUTE;
                int class = t->kind != CS_FT_TARGET_CA ? 2 : known ? 0 : 1;
                if (class == pass)
                    block[n++] = *t;
            }
        memcpy(items, block, slots * sizeof *block);
    }
    free(block);
    return cs_ft_targets_rest(ft, list, err);
}

int cs_route_slimupdate(const struct cs_fabric *f, const struct cs_route_options *opt,
                        const struct cs_route_inputs *in, struct cs_lfts *lfts,
                        struct cs_route_result *res, struct cs_error *err)
{
    struct cs_route_options degraded_ok = opt ? *opt : (struct cs_route_options){0};
    degraded_ok.tolerate_degraded = true;
    struct slim st = {.previous = in->previous};
    struct cs_ft_policy policy = {
        .ctx = &st, .up_group = keep_or_least_loaded_group, .cable = keep_or_least_loaded_cable};
    int rc = cs_ft_run(f, &degraded_ok, in, &(struct cs_ft_variant){&policy, previous_first}, lfts,
                       res, err);
    if (rc == 0 && in->previous && in->previous->num_switches > 0 && st.matched == 0)
        cs_logf(in->log, CS_LOG_WARN,
                "slimupdate: none of the %u switches of the previous tables is in the fabric: "
                "routed afresh",
                in->previous->num_switches);
    slim_free(&st);
    return rc;
}
