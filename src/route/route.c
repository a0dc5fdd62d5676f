/* Engine registry and the one entry point that every caller (CLI, SM) uses. */
#define _POSIX_C_SOURCE 200809L
#include "cloudsm/route.h"

#include "cloudsm/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloudsm/lid.h"
#include "route/fattree.h"
#include "route/metabase.h"
#include "route/route_state.h"

const struct cs_route_engine cs_route_engines[] = {
    {"ftree", "OpenSM 3.3.23's fat-tree routing, entry for entry on the same LIDs", cs_route_ftree,
     true},
    {"noftree", "NoFTree: ftree with the compute nodes routed in a given node order",
     cs_route_noftree, true},
    {"wftree", "wFatTree: ftree routing nodes in decreasing receive weight, loads = weights",
     cs_route_wftree, true},
    {"pftree", "pFTree: partition-aware fat-tree with isolation policies, weights and VLs",
     cs_route_pftree, false},
    {"vftree", "vSwitchFatTree: ftree routing each VM with weight 1/(VMs on its vSwitch), then PFs",
     cs_route_vftree, false},
    {"slimupdate",
     "SlimUpdate: ftree keeping the previous tables' routes while balanced (fewest changes)",
     cs_route_slimupdate, true},
    {"mftree", "metabase-aided fat-tree: leaf-to-leaf spanning trees kept, then assigned to nodes",
     cs_route_mftree, false},
    {"minhop", "shortest paths, balanced by per-port route counters (OpenSM's default)",
     cs_route_minhop, false},
    {"updn", "up*/down* shortest paths from the root switches: no credit loops", cs_route_updn,
     false},
    {NULL, NULL, NULL, false},
};

const struct cs_route_engine *cs_route_engine_find(const char *name)
{
    for (const struct cs_route_engine *e = cs_route_engines; e->name; e++)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

const char *cs_route_engine_names(char *buf, size_t size)
{
    size_t used = 0;
    if (size > 0)
        buf[0] = '\0';
    for (const struct cs_route_engine *e = cs_route_engines; e->name && used < size; e++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", e->name);
    return buf;
}

/* Empty tables, and each switch reaching itself through port 0 (every engine wants that). */
static int prepare(const struct cs_fabric *f, struct cs_lfts *lfts, struct cs_error *err)
{
    if (cs_lfts_for_fabric(lfts, f, err) < 0)
        return -1;
    for (uint32_t sw = 0; sw < lfts->num_switches; sw++)
        if (lfts->switches[sw].lid)
            cs_lfts_set(lfts, sw, lfts->switches[sw].lid, 0);
    return 0;
}

static void copy_name(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

struct cs_route_state *cs_route_state_new(void)
{
    return calloc(1, sizeof(struct cs_route_state));
}

void cs_route_state_free(struct cs_route_state *s)
{
    if (!s)
        return;
    cs_ft_kept_free(s->fattree);
    cs_metabase_delete(s->metabase);
    free(s);
}

void cs_route_result_free(struct cs_route_result *r)
{
    free(r->partition_sl);
    memset(r, 0, sizeof *r);
}

int cs_route(const char *engine, const struct cs_fabric *f, const struct cs_route_options *opt,
             struct cs_lfts *lfts, struct cs_route_stats *stats, struct cs_error *err)
{
    return cs_route_with(engine, f, opt, NULL, lfts, stats, NULL, err);
}

int cs_route_with(const char *engine, const struct cs_fabric *f, const struct cs_route_options *opt,
                  const struct cs_route_inputs *in, struct cs_lfts *lfts,
                  struct cs_route_stats *stats, struct cs_route_result *res, struct cs_error *err)
{
    static const struct cs_route_options defaults = {0};
    static const struct cs_route_inputs no_inputs = {0};
    struct cs_route_result unwanted = {0};
    if (!in)
        in = &no_inputs;
    if (!res)
        res = &unwanted;
    memset(res, 0, sizeof *res);
    memset(stats, 0, sizeof *stats);
    memset(lfts, 0, sizeof *lfts);
    if (!opt)
        opt = &defaults;
    const struct cs_route_engine *e = cs_route_engine_find(engine);
    if (!e) {
        char names[128];
        return cs_fail(err, "no routing engine '%s' (engines: %s)", engine,
                       cs_route_engine_names(names, sizeof names));
    }
    copy_name(stats->requested, sizeof stats->requested, e->name);
    if (in->scope_switches && !e->subtree) {
        char names[128] = "";
        size_t used = 0;
        for (const struct cs_route_engine *x = cs_route_engines; x->name; x++)
            if (x->subtree && used < sizeof names)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                         used ? ", " : "", x->name);
        return cs_fail(err, "%s cannot re-route a sub-tree (the engines that can: %s)", e->name,
                       names);
    }

    uint32_t switches = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        if (cs_node_is_switch(node) && !f->ports[node->first_port].lid)
            return cs_fail(err, "switch 0x%016llx has no LID: assign LIDs before routing",
                           (unsigned long long)node->guid);
        switches += cs_node_is_switch(node);
    }

    double start = cs_clock_ms();
    int rc = prepare(f, lfts, err);
    if (rc == 0)
        rc = e->route(f, opt, in, lfts, res, err);
    if (rc == CS_ROUTE_UNSUITABLE && in->scope_switches) {
        /* minhop cannot keep to a sub-tree: no fallback for a sub-tree re-routing. */
        char why[CS_ERROR_MAX];
        copy_name(why, sizeof why, err->msg);
        rc = cs_fail(err,
                     "%s cannot route this fabric (%.*s); a sub-tree re-routing does not fall "
                     "back to minhop",
                     e->name, (int)(sizeof why / 2), why);
    } else if (rc == CS_ROUTE_UNSUITABLE && !opt->no_fallback) {
        /* OpenSM: "Topologies that do not comply cause a fallback to min hop routing." */
        stats->fell_back = true;
        copy_name(stats->fallback_reason, sizeof stats->fallback_reason, err->msg);
        e = cs_route_engine_find("minhop");
        cs_lfts_free(lfts);
        cs_route_result_free(res);
        rc = prepare(f, lfts, err);
        if (rc == 0)
            rc = e->route(f, opt, in, lfts, res, err);
    } else if (rc == CS_ROUTE_UNSUITABLE) {
        rc = -1;
    }
    if (rc == 0 && in->scope_switches && !res->scoped) /* a registry entry that lies */
        rc = cs_fail(err, "%s did not keep to the sub-tree", e->name);
    stats->route_ms = cs_clock_ms() - start;
    if (rc != 0) {
        cs_lfts_free(lfts);
        cs_route_result_free(res);
        return -1;
    }
    cs_route_result_free(&unwanted);
    copy_name(stats->engine, sizeof stats->engine, e->name);
    stats->switches = switches;
    stats->max_lid = lfts->max_lid;
    for (uint32_t i = 0; i < f->num_port_slots; i++)
        if (f->ports[i].lid)
            stats->lids += 1u << f->ports[i].lmc;
    stats->lft_blocks = (uint64_t)switches * cs_lfts_blocks(lfts);
    return 0;
}

int cs_route_files_load(const struct cs_route_files *paths, struct cs_route_loaded *loaded,
                        struct cs_error *err)
{
    if (paths->node_order_file) {
        if (cs_guid_list_read(&loaded->node_order, paths->node_order_file, err) < 0)
            return -1;
        loaded->has_node_order = true;
    }
    if (paths->node_weights_file) {
        if (cs_node_weights_read(&loaded->weights, paths->node_weights_file, err) < 0)
            return -1;
        loaded->has_weights = true;
    }
    if (paths->partitions_file) {
        if (cs_partitions_read(&loaded->partitions, paths->partitions_file, err) < 0)
            return -1;
        loaded->has_partitions = true;
    }
    if (paths->vm_state_file) {
        if (cs_vm_state_read(&loaded->vms, paths->vm_state_file, err) < 0)
            return -1;
        loaded->has_vms = true;
    }
    return 0;
}

void cs_route_loaded_free(struct cs_route_loaded *loaded)
{
    cs_guid_list_free(&loaded->node_order);
    cs_node_weights_free(&loaded->weights);
    cs_partitions_free(&loaded->partitions);
    cs_vm_state_free(&loaded->vms);
    memset(loaded, 0, sizeof *loaded);
}

void cs_route_loaded_inputs(const struct cs_route_loaded *loaded, struct cs_route_inputs *in)
{
    if (loaded->has_node_order)
        in->node_order = &loaded->node_order;
    if (loaded->has_weights)
        in->weights = &loaded->weights;
    if (loaded->has_partitions)
        in->partitions = &loaded->partitions;
    if (loaded->has_vms)
        in->vms = &loaded->vms;
}
