/* Fat-tree machinery, stage 3 (fattree.h): OpenSM's targets in OpenSM's order
 * (fabric_route_to_cns, fabric_route_to_non_cns, fabric_route_to_switches) and its -z pass
 * (fabric_route_roots). */
#include "route/fattree.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

int cs_ft_targets_add(struct cs_ft_targets *list, const struct cs_ft_target *t,
                      struct cs_error *err)
{
    if (cs_grow((void **)&list->items, &list->capacity, (uint64_t)list->count + 1,
                sizeof *list->items, err) < 0)
        return -1;
    list->items[list->count++] = *t;
    return 0;
}

void cs_ft_targets_free(struct cs_ft_targets *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* fabric_route_to_cns: leaves in tuple order; on each, the compute nodes in port order, then
 * dummies so that every leaf counts as many routes as the fullest. */
int cs_ft_targets_cns(const struct cs_ft *ft, struct cs_ft_targets *list, struct cs_error *err)
{
    for (uint32_t i = 0; i < ft->num_leaves; i++) {
        uint32_t s = ft->leaves[i];
        uint32_t routed = 0;
        for (unsigned k = 0; k < ft->sw[s].num_down; k++) {
            const struct cs_ft_group *g = cs_ft_group_at(ft, ft->sw[s].down, k);
            if (!g->remote_is_ca || !g->is_cn)
                continue;
            struct cs_ft_target t = cs_ft_target_behind(ft, s, g, ft->unit);
            if (cs_ft_targets_add(list, &t, err) < 0)
                return -1;
            routed++;
        }
        for (; routed < ft->max_cn_per_leaf; routed++) {
            struct cs_ft_target t = {
                .weight = ft->unit, .leaf = s, .port = CS_NONE, .kind = CS_FT_TARGET_DUMMY};
            if (cs_ft_targets_add(list, &t, err) < 0)
                return -1;
        }
    }
    return 0;
}

/* fabric_route_to_non_cns (hca_tbl order), then fabric_route_to_switches (sw_tbl order). */
int cs_ft_targets_rest(const struct cs_ft *ft, struct cs_ft_targets *list, struct cs_error *err)
{
    for (uint32_t i = 0; i < ft->num_ca_ports; i++) {
        const struct cs_ft_ca_port *cp = &ft->ca_ports[i];
        if (cp->is_cn)
            continue;
        struct cs_ft_target t = cs_ft_target_of_port(cp, ft->unit);
        if (cs_ft_targets_add(list, &t, err) < 0)
            return -1;
    }
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        struct cs_ft_target t = {.weight = ft->unit,
                                 .leaf = s,
                                 .port = CS_NONE,
                                 .lid = ft->sw[s].lid,
                                 .kind = CS_FT_TARGET_SWITCH};
        if (cs_ft_targets_add(list, &t, err) < 0)
            return -1;
    }
    return 0;
}

int cs_ft_targets_opensm(const struct cs_ft *ft, struct cs_ft_targets *list, struct cs_error *err)
{
    if (cs_ft_targets_cns(ft, list, err) < 0)
        return -1;
    return cs_ft_targets_rest(ft, list, err);
}

/* fabric_route_roots (-z): every switch above the leaves routes switch LIDs it has no entry for
 * the way it routes to the last leaf, if that leaf has a route to them. */
int cs_ft_run(const struct cs_fabric *f, const struct cs_route_options *opt,
              const struct cs_route_inputs *in, const struct cs_ft_variant *variant,
              struct cs_lfts *lfts, struct cs_error *err)
{
    struct cs_ft ft;
    struct cs_ft_targets targets = {0};
    int rc = cs_ft_build(&ft, f, opt, err);
    if (rc == 0)
        rc = cs_ft_bind(&ft, lfts, variant->policy, err);
    if (rc == 0)
        rc = variant->targets(&ft, in, &targets, err);
    if (rc == 0) {
        cs_ft_route_targets(&ft, &targets);
        if (opt && opt->connect_roots)
            cs_ft_connect_roots(&ft);
        cs_lfts_mark_all(lfts);
    }
    cs_ft_targets_free(&targets);
    cs_ft_free(&ft);
    return rc;
}

void cs_ft_connect_roots(struct cs_ft *ft)
{
    struct cs_lfts *t = ft->lfts;
    const struct cs_fabric *f = ft->fabric;
    cs_ft_flush(ft);
    if (ft->num_leaves == 0)
        return;
    uint8_t *is_switch_lid = calloc((size_t)t->capacity, 1);
    if (!is_switch_lid)
        return;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        if (!cs_node_is_switch(&f->nodes[n]))
            continue;
        for (unsigned p = 0; p <= f->nodes[n].num_ports; p++) {
            uint16_t lid = f->ports[f->nodes[n].first_port + p].lid;
            if (lid && lid < t->capacity)
                is_switch_lid[lid] = 1;
        }
    }
    const struct cs_ft_switch *leaf = &ft->sw[ft->leaves[ft->num_leaves - 1]];
    const uint8_t *leaf_table = cs_lfts_table(t, leaf->table);
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        if (ft->sw[s].rank >= ft->leaf_rank || ft->marks[s].outside)
            continue;
        uint8_t *table = cs_lfts_table(t, ft->sw[s].table);
        for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
            if (table[lid] != CS_LFT_NO_ROUTE || leaf_table[lid] == CS_LFT_NO_ROUTE ||
                !is_switch_lid[lid])
                continue;
            table[lid] = table[leaf->lid];
        }
    }
    free(is_switch_lid);
}
