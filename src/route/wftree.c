/* wftree: wFatTree (Zahid thesis), ftree with receive weights (docs/routing/wftree.md). The
 * machinery's walk: OpenSM's choices already take the least loaded group and cable, so loads
 * that accumulate weights and targets routed in decreasing weight do most of the work. One
 * policy, for the up group of a main path: among the groups OpenSM's sort leaves tied on
 * accumulated downward weight, the one whose remote switch carries the least accumulated
 * upward weight. Without it a leaf's climb sees only its own up links, so the heaviest node of
 * every leaf goes down from the same top switch and every other leaf's up link to that switch
 * carries all of them.
 *
 * Targets: the compute nodes in decreasing weight, equal weights by ascending port GUID (an
 * order no re-cabling changes), each adding its weight to every load on its path; then the
 * other CA ports (only when a compute-node list leaves some out) in the same order; then the
 * switch LIDs as ftree routes them. No dummies: they keep ftree's leaf-by-leaf round robin in
 * step across leaves of unequal size, and wFatTree routes by weight across all leaves, where a
 * missing node weighs nothing. */
#include "cloudsm/route.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "route/fattree.h"

/* A CA target with what it is ordered by. */
struct weighted_target {
    struct cs_ft_target target;
    uint64_t guid;
};

/* The accumulated upward weight at switch s: the loads of the routes its down groups carry up
 * to it (each destination routed down from s is routed up to s from every other child). */
static cs_ft_load upward_weight(const struct cs_ft *ft, uint32_t s)
{
    const struct cs_ft_switch *sw = &ft->sw[s];
    cs_ft_load sum = 0;
    for (unsigned i = 0; i < sw->num_down; i++)
        sum += cs_ft_group_at(ft, sw->down, i)->load_up;
    return sum;
}

/* Policy up_group: the first of the groups tied on load_down (OpenSM's sort puts them first)
 * whose remote switch has the least upward weight. */
static unsigned least_upward_weight(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t,
                                    uint32_t s)
{
    (void)ctx;
    (void)t;
    const struct cs_ft_switch *sw = &ft->sw[s];
    cs_ft_load least_down = cs_ft_group_at(ft, sw->up, 0)->load_down;
    unsigned chosen = 0;
    cs_ft_load least_up = CS_FT_LOAD_MAX;
    for (unsigned i = 0; i < sw->num_up; i++) {
        const struct cs_ft_group *g = cs_ft_group_at(ft, sw->up, i);
        if (g->load_down != least_down)
            break;
        cs_ft_load up = upward_weight(ft, g->remote);
        if (up < least_up) {
            least_up = up;
            chosen = i;
        }
    }
    return chosen;
}

/* Heaviest first; equal weights by ascending port GUID (unique per port: a total order). */
static int heaviest_first(const void *a, const void *b)
{
    const struct weighted_target *x = a, *y = b;
    if (x->target.weight != y->target.weight)
        return x->target.weight > y->target.weight ? -1 : 1;
    return (x->guid > y->guid) - (x->guid < y->guid);
}

/* Weight the CA targets items[first..first+count) and sort them heaviest first. */
static int weigh_and_sort(const struct cs_ft *ft, const struct cs_node_weights *weights,
                          struct cs_ft_target *items, uint32_t count, struct cs_error *err)
{
    if (count == 0)
        return 0;
    struct weighted_target *sorted = cs_calloc_array(count, sizeof *sorted, err);
    if (!sorted)
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t guid = ft->fabric->ports[items[i].port].guid;
        sorted[i].target = items[i];
        sorted[i].target.weight = ft->unit * cs_node_weights_find(weights, guid);
        sorted[i].guid = guid;
    }
    qsort(sorted, count, sizeof *sorted, heaviest_first);
    for (uint32_t i = 0; i < count; i++)
        items[i] = sorted[i].target;
    free(sorted);
    return 0;
}

/* The compute nodes, then the other CA ports, each part heaviest first; then the switches. */
static int weighted_targets(const struct cs_ft *ft, const struct cs_route_inputs *in,
                            struct cs_ft_targets *list, struct cs_error *err)
{
    const struct cs_node_weights *weights = in->weights;
    struct cs_ft_targets cns = {0};
    int rc = cs_ft_targets_cns(ft, &cns, err);
    for (uint32_t i = 0; rc == 0 && i < cns.count; i++)
        if (cns.items[i].kind == CS_FT_TARGET_CA)
            rc = cs_ft_targets_add(list, &cns.items[i], err);
    cs_ft_targets_free(&cns);
    uint32_t num_cns = list->count;
    if (rc == 0)
        rc = weigh_and_sort(ft, weights, list->items, num_cns, err);
    if (rc == 0)
        rc = cs_ft_targets_rest(ft, list, err);
    uint32_t num_other_cas = 0;
    while (rc == 0 && num_cns + num_other_cas < list->count &&
           list->items[num_cns + num_other_cas].kind == CS_FT_TARGET_CA)
        num_other_cas++;
    if (rc == 0)
        rc = weigh_and_sort(ft, weights, list->items + num_cns, num_other_cas, err);
    return rc;
}

int cs_route_wftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err)
{
    static const struct cs_ft_policy policy = {.up_group = least_upward_weight};
    return cs_ft_run(f, opt, in, &(struct cs_ft_variant){&policy, weighted_targets}, lfts, res,
                     err);
}
