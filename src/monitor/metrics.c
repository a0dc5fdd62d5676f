/* The monitor's data model (include/cloudsm/metrics.h): names, builders, lookups, and the
 * watched ports of a swept fabric. */
#include "cloudsm/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

static const char *const metric_names[CS_METRIC_COUNT] = {
    [CS_METRIC_XMIT_BYTES] = "xmit_bytes", [CS_METRIC_RCV_BYTES] = "rcv_bytes",
    [CS_METRIC_XMIT_PKTS] = "xmit_pkts",   [CS_METRIC_RCV_PKTS] = "rcv_pkts",
    [CS_METRIC_XMIT_WAIT] = "xmit_wait",   [CS_METRIC_ERRORS] = "errors",
};

const char *cs_metric_name(enum cs_metric m)
{
    return (unsigned)m < CS_METRIC_COUNT ? metric_names[m] : "";
}

int cs_metric_from_name(const char *name, size_t len)
{
    for (int m = 0; m < CS_METRIC_COUNT; m++)
        if (strlen(metric_names[m]) == len && memcmp(metric_names[m], name, len) == 0)
            return m;
    return -1;
}

void cs_metrics_init(struct cs_metrics *m)
{
    memset(m, 0, sizeof(*m));
}

void cs_metrics_free(struct cs_metrics *m)
{
    for (uint32_t i = 0; i < m->num_partitions; i++)
        free(m->partitions[i].members);
    free(m->partitions);
    free(m->nodes);
    free(m->ports);
    free(m->samples);
    cs_metrics_init(m);
}

void cs_metrics_clear_samples(struct cs_metrics *m)
{
    m->num_samples = 0;
}

int cs_metrics_add_node(struct cs_metrics *m, uint64_t guid, uint8_t type, const char *desc,
                        struct cs_error *err)
{
    if (m->num_nodes > 0 && m->nodes[m->num_nodes - 1].guid >= guid)
        return cs_fail(err, "node 0x%016llx out of order (GUIDs must ascend)",
                       (unsigned long long)guid);
    if (cs_grow((void **)&m->nodes, &m->nodes_capacity, (uint64_t)m->num_nodes + 1,
                sizeof(*m->nodes), err) < 0)
        return -1;
    struct cs_metric_node *n = &m->nodes[m->num_nodes++];
    memset(n, 0, sizeof(*n));
    n->guid = guid;
    n->type = type;
    if (desc != NULL) {
        strncpy(n->desc, desc, CS_DESC_MAX);
        n->desc[CS_DESC_MAX] = '\0';
    }
    return 0;
}

int cs_metrics_add_port(struct cs_metrics *m, const struct cs_metric_port *p, struct cs_error *err)
{
    if (p->node >= m->num_nodes)
        return cs_fail(err, "port %u names node %u of %u", p->num, p->node, m->num_nodes);
    if (m->num_ports > 0) {
        const struct cs_metric_port *last = &m->ports[m->num_ports - 1];
        if (last->node > p->node || (last->node == p->node && last->num >= p->num))
            return cs_fail(err, "port %u of node 0x%016llx out of order", p->num,
                           (unsigned long long)m->nodes[p->node].guid);
    }
    if (cs_grow((void **)&m->ports, &m->ports_capacity, (uint64_t)m->num_ports + 1,
                sizeof(*m->ports), err) < 0)
        return -1;
    m->ports[m->num_ports++] = *p;
    return 0;
}

int cs_metrics_add_partition(struct cs_metrics *m, const char *name, uint16_t pkey,
                             const uint32_t *members, uint32_t num_members, struct cs_error *err)
{
    for (uint32_t i = 0; i < num_members; i++) {
        if (members[i] >= m->num_nodes)
            return cs_fail(err, "partition %s: member %u of %u nodes", name, members[i],
                           m->num_nodes);
        if (i > 0 && members[i] <= members[i - 1])
            return cs_fail(err, "partition %s: members must ascend", name);
    }
    if (cs_grow((void **)&m->partitions, &m->partitions_capacity, (uint64_t)m->num_partitions + 1,
                sizeof(*m->partitions), err) < 0)
        return -1;
    uint32_t *copy = cs_calloc_array(num_members, sizeof(*copy), err);
    if (copy == NULL)
        return -1;
    if (num_members > 0)
        memcpy(copy, members, num_members * sizeof(*copy));
    struct cs_metric_partition *p = &m->partitions[m->num_partitions++];
    memset(p, 0, sizeof(*p));
    strncpy(p->name, name, CS_PARTITION_NAME_MAX);
    p->pkey = pkey;
    p->members = copy;
    p->num_members = num_members;
    return 0;
}

int cs_metrics_add_sample(struct cs_metrics *m, const struct cs_metric_sample *s,
                          struct cs_error *err)
{
    if (s->port >= m->num_ports)
        return cs_fail(err, "sample of port %u of %u", s->port, m->num_ports);
    if (m->num_samples > 0 && m->samples[m->num_samples - 1].time > s->time)
        return cs_fail(err, "sample at %.3f before the last one (%.3f)", s->time,
                       m->samples[m->num_samples - 1].time);
    if (cs_grow((void **)&m->samples, &m->samples_capacity, (uint64_t)m->num_samples + 1,
                sizeof(*m->samples), err) < 0)
        return -1;
    m->samples[m->num_samples++] = *s;
    return 0;
}

uint32_t cs_metrics_samples_ended_by(const struct cs_metrics *m, double t)
{
    uint32_t lo = 0, hi = m->num_samples;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->samples[mid].time <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t cs_metrics_find_node(const struct cs_metrics *m, uint64_t guid)
{
    uint32_t lo = 0, hi = m->num_nodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->nodes[mid].guid < guid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->num_nodes && m->nodes[lo].guid == guid ? lo : UINT32_MAX;
}

uint32_t cs_metrics_find_port(const struct cs_metrics *m, uint64_t node_guid, uint8_t num)
{
    uint32_t node = cs_metrics_find_node(m, node_guid);
    if (node == UINT32_MAX)
        return UINT32_MAX;
    uint32_t lo = 0, hi = m->num_ports;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct cs_metric_port *p = &m->ports[mid];
        if (p->node < node || (p->node == node && p->num < num))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->num_ports && m->ports[lo].node == node && m->ports[lo].num == num ? lo
                                                                                     : UINT32_MAX;
}

/* Order of fabric node indices by GUID. */
static int by_guid(const void *a, const void *b, void *fabric)
{
    const struct cs_fabric *f = fabric;
    uint64_t ga = f->nodes[*(const uint32_t *)a].guid;
    uint64_t gb = f->nodes[*(const uint32_t *)b].guid;
    return (ga > gb) - (ga < gb);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int cs_metrics_set_fabric(struct cs_metrics *m, const struct cs_fabric *f,
                          const struct cs_partition_set *pset, struct cs_error *err)
{
    cs_metrics_free(m);
    uint32_t *order = cs_calloc_array(f->num_nodes, sizeof(*order), err);
    uint32_t *metric_node = cs_calloc_array(f->num_nodes, sizeof(*metric_node), err);
    uint32_t *members = NULL;
    int rc = -1;
    if (order == NULL || metric_node == NULL)
        goto out;
    for (uint32_t i = 0; i < f->num_nodes; i++)
        order[i] = i;
    qsort_r(order, f->num_nodes, sizeof(*order), by_guid, (void *)f);
    for (uint32_t k = 0; k < f->num_nodes; k++) {
        const struct cs_node *n = &f->nodes[order[k]];
        metric_node[order[k]] = m->num_nodes;
        if (cs_metrics_add_node(m, n->guid, n->type, n->desc, err) < 0)
            goto out;
    }
    for (uint32_t k = 0; k < f->num_nodes; k++) {
        const struct cs_node *n = &f->nodes[order[k]];
        uint16_t switch_lid = n->type == CS_NODE_SWITCH ? f->ports[n->first_port].lid : 0;
        for (unsigned num = 1; num <= n->num_ports; num++) {
            uint32_t pi = cs_fabric_port(f, order[k], num);
            if (pi == CS_NONE)
                continue;
            const struct cs_port *p = &f->ports[pi];
            struct cs_metric_port mp = {.node = k, .num = (uint8_t)num, .guid = p->guid};
            if (p->peer != CS_NONE) {
                const struct cs_port *q = &f->ports[p->peer];
                mp.peer_num = q->num;
                mp.peer_node_guid = f->nodes[q->node].guid;
            }
            if (n->type == CS_NODE_SWITCH) {
                if (p->peer == CS_NONE)
                    continue; /* nothing to measure on an empty switch port */
                mp.lid = switch_lid;
            } else {
                if (p->lid == 0)
                    continue; /* no LID: its PMA cannot be reached */
                mp.lid = p->lid;
            }
            mp.link_bytes_per_s = cs_port_bytes_per_s(f, pi);
            if (cs_metrics_add_port(m, &mp, err) < 0)
                goto out;
        }
    }
    if (pset != NULL) {
        members = cs_calloc_array(pset->num_ports + 1, sizeof(*members), err);
        if (members == NULL)
            goto out;
        for (uint32_t i = 0; i < pset->count; i++) {
            const struct cs_resolved_partition *rp = &pset->partitions[i];
            uint32_t count = 0;
            for (uint32_t j = 0; j < rp->count; j++) {
                const struct cs_port *p = &f->ports[pset->ports[rp->first + j].port];
                if (f->nodes[p->node].type == CS_NODE_CA)
                    members[count++] = metric_node[p->node];
            }
            qsort(members, count, sizeof(*members), cmp_u32);
            uint32_t unique = 0;
            for (uint32_t j = 0; j < count; j++)
                if (unique == 0 || members[unique - 1] != members[j])
                    members[unique++] = members[j];
            if (cs_metrics_add_partition(m, rp->name, rp->pkey, members, unique, err) < 0)
                goto out;
        }
    }
    rc = 0;
out:
    free(order);
    free(metric_node);
    free(members);
    if (rc < 0)
        cs_metrics_free(m);
    return rc;
}
