/* vSwitch hypervisors and LID demand (include/cloudsm/vswitch.h, docs/vswitch.md). */
#include "cloudsm/vswitch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* The seeds' rule: a switch with exactly one switch neighbour and at least one CA below it. A
 * switch cabled only to another such switch is not one (two vSwitches cannot face each other). */
static bool looks_like_vswitch(const struct cs_fabric *f, uint32_t n, uint32_t *uplink_port)
{
    const struct cs_node *node = &f->nodes[n];
    if (!cs_node_is_switch(node))
        return false;
    unsigned switches = 0, cas = 0;
    for (unsigned num = 1; num <= node->num_ports; num++) {
        uint32_t p = cs_fabric_port(f, n, num);
        uint32_t peer = f->ports[p].peer;
        if (peer == CS_NONE)
            continue;
        if (cs_node_is_switch(&f->nodes[f->ports[peer].node])) {
            switches++;
            *uplink_port = p;
        } else {
            cas++;
        }
    }
    return switches == 1 && cas >= 1;
}

void cs_hypervisors_free(struct cs_hypervisors *h)
{
    free(h->items);
    free(h->vf_port);
    free(h->vf_num);
    free(h->of_node);
    free(h->vf_of_port);
    cs_key_index_free(&h->by_guid);
    memset(h, 0, sizeof *h);
}

int cs_hypervisors_find(const struct cs_fabric *f, struct cs_hypervisors *h, struct cs_error *err)
{
    memset(h, 0, sizeof *h);
    uint32_t *uplink = cs_calloc_array(f->num_nodes + 1, sizeof *uplink, err);
    h->of_node = cs_calloc_array(f->num_nodes + 1, sizeof *h->of_node, err);
    h->vf_of_port = cs_calloc_array(f->num_port_slots + 1, sizeof *h->vf_of_port, err);
    if (!uplink || !h->of_node || !h->vf_of_port) {
        free(uplink);
        cs_hypervisors_free(h);
        return -1;
    }
    uint64_t vfs = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        h->of_node[n] = CS_NONE;
        if (!looks_like_vswitch(f, n, &uplink[n]))
            continue;
        h->of_node[n] = h->count++;
        vfs += f->nodes[n].num_ports - 1u; /* at most: every port but the uplink */
    }
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        h->vf_of_port[p] = CS_NONE;
    h->items = cs_calloc_array(h->count + 1, sizeof *h->items, err);
    h->vf_port = cs_calloc_array(vfs + 1, sizeof *h->vf_port, err);
    h->vf_num = cs_calloc_array(vfs + 1, 1, err);
    if (!h->items || !h->vf_port || !h->vf_num) {
        free(uplink);
        cs_hypervisors_free(h);
        return -1;
    }
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        uint32_t i = h->of_node[n];
        if (i == CS_NONE)
            continue;
        const struct cs_port *up = &f->ports[uplink[n]];
        struct cs_hypervisor *hv = &h->items[i];
        hv->node = n;
        hv->uplink = up->num;
        hv->leaf = f->ports[up->peer].node;
        hv->leaf_port = f->ports[up->peer].num;
        hv->first_vf = h->num_vfs;
        for (unsigned num = 1; num <= f->nodes[n].num_ports; num++) {
            uint32_t peer = f->ports[cs_fabric_port(f, n, num)].peer;
            if (peer == CS_NONE || num == hv->uplink)
                continue;
            h->vf_of_port[peer] = h->num_vfs;
            h->vf_num[h->num_vfs] = (uint8_t)num;
            h->vf_port[h->num_vfs++] = peer;
            hv->num_vfs++;
        }
    }
    free(uplink);
    cs_key_index_init(&h->by_guid);
    if (cs_key_index_reserve(&h->by_guid, h->count + 1, err) < 0) {
        cs_hypervisors_free(h);
        return -1;
    }
    for (uint32_t i = 0; i < h->count; i++)
        cs_key_index_add(&h->by_guid, f->nodes[h->items[i].node].guid, i, err);
    cs_key_index_sort(&h->by_guid);
    return 0;
}

uint32_t cs_hypervisor_by_guid(const struct cs_hypervisors *h, const struct cs_fabric *f,
                               uint64_t node_guid)
{
    (void)f; /* the index holds the GUIDs */
    return h->count ? cs_key_index_find(&h->by_guid, node_guid) : CS_NONE;
}

uint32_t cs_hypervisor_vf_port(const struct cs_hypervisors *h, uint32_t i, unsigned k)
{
    if (i >= h->count || k < 1 || k > h->items[i].num_vfs)
        return CS_NONE;
    return h->vf_port[h->items[i].first_vf + k - 1];
}

static const char *const lid_policy_names[] = {"prepopulated", "dynamic", "shared-port"};

const char *cs_lid_policy_name(enum cs_lid_policy p)
{
    return lid_policy_names[p];
}

int cs_lid_policy_parse(const char *text, enum cs_lid_policy *p)
{
    for (unsigned i = 0; i < sizeof lid_policy_names / sizeof lid_policy_names[0]; i++)
        if (strcmp(text, lid_policy_names[i]) == 0) {
            *p = (enum cs_lid_policy)i;
            return 0;
        }
    return -1;
}

uint64_t cs_lid_demand_total(const struct cs_lid_demand *d, enum cs_lid_policy p)
{
    uint64_t vms = p == CS_LID_PREPOPULATED ? d->vfs : p == CS_LID_DYNAMIC ? d->running_vms : 0;
    return d->switches + d->others + d->hypervisors + vms;
}

int cs_lid_demand_check(const struct cs_lid_demand *d, enum cs_lid_policy p, struct cs_error *err)
{
    uint64_t total = cs_lid_demand_total(d, p);
    if (total <= CS_UNICAST_LIDS)
        return 0;
    if (p == CS_LID_PREPOPULATED)
        return cs_fail(err,
                       "prepopulated VF LIDs need %" PRIu64 " unicast LIDs (%" PRIu64
                       " switches + %" PRIu64 " other ports + %" PRIu64 " hypervisors + %" PRIu64
                       " VFs), %" PRIu64 " more than the %u a subnet has",
                       total, d->switches, d->others, d->hypervisors, d->vfs,
                       total - CS_UNICAST_LIDS, CS_UNICAST_LIDS);
    if (p == CS_LID_SHARED_PORT)
        return cs_fail(err,
                       "shared-port HCAs need %" PRIu64 " unicast LIDs (%" PRIu64
                       " switches + %" PRIu64 " other ports + %" PRIu64 " hypervisors), %" PRIu64
                       " more than the %u a subnet has",
                       total, d->switches, d->others, d->hypervisors, total - CS_UNICAST_LIDS,
                       CS_UNICAST_LIDS);
    return cs_fail(err,
                   "dynamic VM LIDs need %" PRIu64 " unicast LIDs (%" PRIu64 " switches + %" PRIu64
                   " other ports + %" PRIu64 " hypervisors + %" PRIu64 " running VMs), %" PRIu64
                   " more than the %u a subnet has",
                   total, d->switches, d->others, d->hypervisors, d->running_vms,
                   total - CS_UNICAST_LIDS, CS_UNICAST_LIDS);
}

struct cs_vswitch_limits cs_vswitch_limits(enum cs_lid_policy p, unsigned vfs, uint64_t fixed)
{
    struct cs_vswitch_limits l = {0, 0};
    if (fixed >= CS_UNICAST_LIDS)
        return l;
    uint64_t lids_per_hypervisor = p == CS_LID_SHARED_PORT ? 1 : (uint64_t)vfs + 1;
    l.max_hypervisors = (CS_UNICAST_LIDS - fixed) / lids_per_hypervisor;
    l.max_vms = l.max_hypervisors * vfs;
    return l;
}

void cs_lid_demand_of_fabric(const struct cs_fabric *f, const struct cs_hypervisors *h,
                             struct cs_lid_demand *d)
{
    memset(d, 0, sizeof *d);
    d->hypervisors = h->count;
    d->vfs = h->num_vfs;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        if (cs_node_is_switch(node)) {
            if (h->of_node[n] == CS_NONE)
                d->switches++;
            continue;
        }
        for (unsigned num = 1; num <= node->num_ports; num++) {
            uint32_t p = cs_fabric_port(f, n, num);
            if (f->ports[p].peer != CS_NONE && h->vf_of_port[p] == CS_NONE)
                d->others++;
        }
    }
}

uint32_t cs_shared_port_of(const struct cs_fabric *f, const struct cs_key_index *nodes,
                           uint64_t node_guid)
{
    uint32_t n = cs_key_index_find(nodes, node_guid);
    if (n == CS_NONE || f->nodes[n].type != CS_NODE_CA)
        return CS_NONE;
    for (unsigned num = 1; num <= f->nodes[n].num_ports; num++) {
        uint32_t p = cs_fabric_port(f, n, num);
        if (f->ports[p].peer != CS_NONE)
            return p;
    }
    return CS_NONE;
}
