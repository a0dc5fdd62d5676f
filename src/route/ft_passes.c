/* Fat-tree machinery, stage 3 (fattree.h): OpenSM's targets in OpenSM's order
 * (fabric_route_to_cns, fabric_route_to_non_cns, fabric_route_to_switches) and its -z pass
 * (fabric_route_roots). */
#include "route/fattree.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "route/route_state.h"

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
 * dummies so that every leaf counts as many routes as the fullest. With a scope, its leaves
 * only (the fullest is the fullest in the scope). */
int cs_ft_targets_cns(const struct cs_ft *ft, struct cs_ft_targets *list, struct cs_error *err)
{
    for (uint32_t i = 0; i < ft->num_leaves; i++) {
        uint32_t s = ft->leaves[i];
        uint32_t routed = 0;
        if (ft->in_scope && !ft->in_scope[s])
            continue;
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

int cs_ft_machinery(const struct cs_fabric *f, const struct cs_route_options *opt,
                    struct cs_route_state *state, struct cs_ft *local, struct cs_ft **out,
                    bool *kept, struct cs_error *err)
{
    *kept = false;
    *out = NULL;
    if (!state) {
        *out = local;
        return cs_ft_build(local, f, opt, err);
    }
    uint64_t fingerprint = cs_ft_fingerprint(f, opt);
    struct cs_ft_kept *k = state->fattree;
    if (k && k->built && k->fingerprint == fingerprint) {
        k->ft.fabric = f; /* the same fabric, maybe another copy of it */
        k->ft.unit = 1;   /* as cs_ft_build sets it */
        *kept = true;
        *out = &k->ft;
        return 0;
    }
    if (!k) {
        k = state->fattree = calloc(1, sizeof *k);
        if (!k)
            return cs_fail(err, "out of memory");
    }
    if (k->built)
        cs_ft_free(&k->ft);
    k->built = false;
    int rc = cs_ft_build(&k->ft, f, opt, err);
    if (rc != 0) {
        cs_ft_free(&k->ft);
        return rc;
    }
    k->built = true;
    k->fingerprint = fingerprint;
    *out = &k->ft;
    return 0;
}

void cs_ft_kept_free(struct cs_ft_kept *kept)
{
    if (!kept)
        return;
    if (kept->built)
        cs_ft_free(&kept->ft);
    free(kept);
}

/* Sub-tree re-routing: every table starts as in->previous has it (matched by switch GUID), then
 * the scope is set, checked to be a sub-tree, and only its blocks are marked (it is all that will
 * be sent). */
static int start_from_previous(struct cs_ft *ft, const struct cs_route_inputs *in,
                               struct cs_lfts *lfts, struct cs_error *err)
{
    const struct cs_lfts *prev = in->previous;
    const struct cs_fabric *f = ft->fabric;
    if (in->num_scope_switches == 0)
        return cs_fail(err, "sub-tree re-routing: the scope has no switch");
    if (!prev)
        return cs_fail(err, "sub-tree re-routing starts from the tables in use: give the "
                            "previous tables (--previous FILE)");
    if (prev->max_lid < lfts->max_lid)
        return cs_fail(err,
                       "the previous tables cover LIDs up to %u but the fabric uses LID %u: "
                       "they are not this fabric's (route the whole fabric instead)",
                       prev->max_lid, lfts->max_lid);
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    int rc = 0;
    for (uint32_t p = 0; p < prev->num_switches && rc == 0; p++)
        rc = cs_key_index_add(&by_guid, prev->switches[p].guid, p, err);
    cs_key_index_sort(&by_guid);
    uint32_t copy = prev->capacity < lfts->capacity ? prev->capacity : lfts->capacity;
    for (uint32_t t = 0; t < lfts->num_switches && rc == 0; t++) {
        const struct cs_lft_switch *sw = &lfts->switches[t];
        uint32_t p = cs_key_index_find(&by_guid, sw->guid);
        const char *desc = sw->node < f->num_nodes ? f->nodes[sw->node].desc : "";
        if (p == CS_NONE) {
            rc = cs_fail(err,
                         "the previous tables have none for switch 0x%016llx ('%s'): they are "
                         "not this fabric's",
                         (unsigned long long)sw->guid, desc);
        } else if (sw->lid && cs_lfts_get(prev, p, sw->lid) != 0) {
            rc = cs_fail(err,
                         "the previous tables do not route switch 0x%016llx ('%s') to itself "
                         "at its LID %u: they were made for other LIDs",
                         (unsigned long long)sw->guid, desc, sw->lid);
        } else {
            memcpy(cs_lfts_table(lfts, t), cs_lfts_table(prev, p), copy);
        }
    }
    cs_key_index_free(&by_guid);
    if (rc == 0)
        rc = cs_ft_set_scope(ft, in->scope_switches, in->num_scope_switches, err);
    uint32_t bad_sw, bad_remote;
    if (rc == 0 && !cs_ft_is_subtree(ft, ft->in_scope, &bad_sw, &bad_remote)) {
        if (bad_sw == CS_NONE)
            rc = cs_fail(err, "the scope is not a sub-tree: it has no leaf switch");
        else
            rc = cs_fail(err,
                         "the scope is not a sub-tree: switch 0x%016llx ('%s') is in it, its "
                         "neighbour 0x%016llx ('%s') is not (cs_subtree_select picks one)",
                         (unsigned long long)f->nodes[ft->sw[bad_sw].node].guid,
                         f->nodes[ft->sw[bad_sw].node].desc,
                         (unsigned long long)f->nodes[ft->sw[bad_remote].node].guid,
                         f->nodes[ft->sw[bad_remote].node].desc);
    }
    if (rc == 0) {
        cs_lfts_clear_dirty(lfts);
        for (uint32_t s = 0; s < ft->num_sw; s++)
            for (uint32_t b = 0; ft->in_scope[s] && b < cs_lfts_blocks(lfts); b++)
                cs_lfts_mark_block(lfts, ft->sw[s].table, b, true);
    }
    return rc;
}

int cs_ft_run(const struct cs_fabric *f, const struct cs_route_options *opt,
              const struct cs_route_inputs *in, const struct cs_ft_variant *variant,
              struct cs_lfts *lfts, struct cs_route_result *res, struct cs_error *err)
{
    static const struct cs_route_inputs no_inputs = {0};
    if (!in)
        in = &no_inputs;
    struct cs_ft local, *ft = NULL;
    struct cs_ft_targets targets = {0};
    bool kept = false, scoped = in->scope_switches != NULL;
    double start = cs_clock_ms();
    int rc = cs_ft_machinery(f, opt, in->state, &local, &ft, &kept, err);
    if (res) {
        res->build_ms = cs_clock_ms() - start;
        res->build_kept = kept;
    }
    if (rc == 0)
        rc = cs_ft_bind(ft, lfts, variant->policy, err);
    if (rc == 0 && scoped)
        rc = start_from_previous(ft, in, lfts, err);
    if (rc == 0)
        rc = variant->targets(ft, in, &targets, err);
    if (rc == 0) {
        cs_ft_route_targets(ft, &targets);
        if (opt && opt->connect_roots)
            cs_ft_connect_roots(ft);
        if (!scoped)
            cs_lfts_mark_all(lfts);
        if (res)
            res->scoped = scoped;
    }
    cs_ft_targets_free(&targets);
    if (ft == &local)
        cs_ft_free(&local);
    else if (ft)
        ft->lfts = NULL; /* the caller's tables: bound again next time */
    return rc;
}

/* fabric_route_roots (-z): every switch above the leaves routes switch LIDs it has no entry for
 * the way it routes to the last leaf, if that leaf has a route to them. */
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
