/* Fabric summary for `cloudsm topo info`. One pass over the ports plus a BFS over the switch
 * graph, so it stays linear in the size of the fabric (it runs on every topology a user loads).
 */
#include "cloudsm/summary.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "cloudsm/lid.h"
#include "cloudsm/vswitch.h"

/* LMC is a 3-bit field (PortInfo:LMC). */
#define SUMMARY_MAX_LMC 7

/* Breadth-first search from every leaf at once over switch-to-switch cables: distance[] gets
 * each switch's hop count to its nearest leaf (CS_NONE if no leaf reaches it). Returns the
 * largest distance found, or CS_NONE if no switch was reached. */
static uint32_t leaf_distances(const struct cs_fabric *f, const bool *is_leaf, uint32_t *distance,
                               uint32_t *queue)
{
    uint32_t head = 0, tail = 0, deepest = CS_NONE;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        distance[n] = CS_NONE;
        if (is_leaf[n]) {
            distance[n] = 0;
            queue[tail++] = n;
        }
    }
    while (head < tail) {
        uint32_t n = queue[head++];
        deepest = distance[n];
        const struct cs_node *node = &f->nodes[n];
        for (unsigned p = 1; p <= node->num_ports; p++) {
            uint32_t peer = f->ports[node->first_port + p].peer;
            if (peer == CS_NONE)
                continue;
            uint32_t next = f->ports[peer].node;
            if (f->nodes[next].type != CS_NODE_SWITCH || distance[next] != CS_NONE)
                continue;
            distance[next] = distance[n] + 1;
            queue[tail++] = next;
        }
    }
    return deepest;
}

static int summarize_vswitches(const struct cs_fabric *f, struct cs_fabric_summary *out,
                               struct cs_error *err)
{
    struct cs_hypervisors h;
    if (cs_hypervisors_find(f, &h, err) < 0)
        return -1;
    if (h.count > 0) {
        struct cs_lid_demand d;
        cs_lid_demand_of_fabric(f, &h, &d);
        out->vswitch.hypervisors = h.count;
        out->vswitch.vfs = h.num_vfs;
        out->vswitch.vfs_min = UINT32_MAX;
        for (uint32_t i = 0; i < h.count; i++) {
            uint32_t v = h.items[i].num_vfs;
            out->vswitch.vfs_min = v < out->vswitch.vfs_min ? v : out->vswitch.vfs_min;
            out->vswitch.vfs_max = v > out->vswitch.vfs_max ? v : out->vswitch.vfs_max;
        }
        out->vswitch.physical_switches = (uint32_t)d.switches;
        out->vswitch.lids_prepopulated = cs_lid_demand_total(&d, CS_LID_PREPOPULATED);
        out->vswitch.lids_dynamic_boot = cs_lid_demand_total(&d, CS_LID_DYNAMIC);
        struct cs_vswitch_limits l =
            cs_vswitch_limits(CS_LID_PREPOPULATED, out->vswitch.vfs_max, d.switches + d.others);
        out->vswitch.max_hypervisors = l.max_hypervisors;
        out->vswitch.max_vms = l.max_vms;
        l = cs_vswitch_limits(CS_LID_SHARED_PORT, out->vswitch.vfs_max, d.switches + d.others);
        out->vswitch.shared_port_max_hypervisors = l.max_hypervisors;
        out->vswitch.shared_port_max_vms = l.max_vms;
    }
    cs_hypervisors_free(&h);
    return 0;
}

int cs_fabric_summarize(const struct cs_fabric *f, unsigned lmc, struct cs_fabric_summary *s,
                        struct cs_error *err)
{
    if (lmc > SUMMARY_MAX_LMC)
        return cs_fail(err, "summary: LMC %u is out of range (0 to %d)", lmc, SUMMARY_MAX_LMC);

    struct cs_fabric_summary out;
    memset(&out, 0, sizeof out);

    uint32_t *ca_ports_attached = calloc(f->num_nodes ? f->num_nodes : 1, sizeof(uint32_t));
    bool *is_leaf = calloc(f->num_nodes ? f->num_nodes : 1, sizeof(bool));
    uint32_t *distance = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof(uint32_t));
    uint32_t *queue = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof(uint32_t));
    struct cs_key_index sysimages;
    cs_key_index_init(&sysimages);
    int rc = -1;
    if (!ca_ports_attached || !is_leaf || !distance || !queue)
        goto out_of_memory;

    uint32_t cas = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        cas += f->nodes[n].type == CS_NODE_CA;
    if (cs_key_index_reserve(&sysimages, cas, err) < 0)
        goto out_of_memory;

    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        switch (node->type) {
        case CS_NODE_SWITCH:
            out.switches++;
            break;
        case CS_NODE_CA:
            out.cas++;
            cs_key_index_add(&sysimages, node->sysimg_guid, n, err);
            break;
        case CS_NODE_ROUTER:
            out.routers++;
            break;
        }
    }
    cs_key_index_sort(&sysimages);
    out.hosts = cs_key_index_distinct(&sysimages);

    uint64_t lid_ports = 0;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *port = &f->ports[i];
        if (cs_port_needs_lid(f, i))
            lid_ports++;
        if (port->peer == CS_NONE || port->peer < i)
            continue; /* each cable is seen from both ends; count it at the lower index */
        const struct cs_node *a = &f->nodes[port->node];
        const struct cs_node *b = &f->nodes[f->ports[port->peer].node];
        out.links++;
        if (a->type == CS_NODE_SWITCH && b->type == CS_NODE_SWITCH)
            out.switch_links++;
        if (a->type == CS_NODE_SWITCH && b->type == CS_NODE_CA)
            ca_ports_attached[port->node]++;
        if (b->type == CS_NODE_SWITCH && a->type == CS_NODE_CA)
            ca_ports_attached[f->ports[port->peer].node]++;
    }
    out.max_lid = cs_fabric_max_lid(f);

    for (uint32_t n = 0; n < f->num_nodes; n++) {
        if (f->nodes[n].type != CS_NODE_SWITCH || ca_ports_attached[n] == 0)
            continue;
        is_leaf[n] = true;
        if (out.leaves == 0 || ca_ports_attached[n] < out.hosts_per_leaf_min)
            out.hosts_per_leaf_min = ca_ports_attached[n];
        if (ca_ports_attached[n] > out.hosts_per_leaf_max)
            out.hosts_per_leaf_max = ca_ports_attached[n];
        out.leaves++;
    }

    uint32_t deepest = leaf_distances(f, is_leaf, distance, queue);
    out.levels = deepest == CS_NONE ? 0 : deepest + 1;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].type == CS_NODE_SWITCH && distance[n] == CS_NONE)
            out.unreachable_switches++;

    uint64_t lids = lid_ports << lmc;
    if (lids > UINT32_MAX - 64) {
        cs_fail(err, "summary: %llu LIDs overflow the counter", (unsigned long long)lids);
        goto done;
    }
    out.lids = (uint32_t)lids;
    out.lft_blocks_min = out.lids / 64 + 1;
    if (summarize_vswitches(f, &out, err) < 0)
        goto done;
    *s = out;
    rc = 0;
    goto done;

out_of_memory:
    cs_fail(err, "summary: out of memory for a fabric of %u nodes", f->num_nodes);
done:
    cs_key_index_free(&sysimages);
    free(ca_ports_attached);
    free(is_leaf);
    free(distance);
    free(queue);
    return rc;
}

int cs_fabric_leaf_distances(const struct cs_fabric *f, uint32_t *distance, struct cs_error *err)
{
    bool *is_leaf = calloc(f->num_nodes ? f->num_nodes : 1, sizeof(bool));
    uint32_t *queue = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof(uint32_t));
    if (!is_leaf || !queue) {
        free(is_leaf);
        free(queue);
        return cs_fail(err, "out of memory for switch ranks of %u nodes", f->num_nodes);
    }
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *port = &f->ports[i];
        if (port->peer != CS_NONE && f->nodes[port->node].type == CS_NODE_SWITCH &&
            f->nodes[f->ports[port->peer].node].type == CS_NODE_CA)
            is_leaf[port->node] = true;
    }
    leaf_distances(f, is_leaf, distance, queue);
    free(is_leaf);
    free(queue);
    return 0;
}
