#include "cloudsm/mutate.h"

#include <stdlib.h>

#include "cloudsm/lid.h"
#include "cloudsm/rng.h"

static bool is_switch_port(const struct cs_fabric *f, uint32_t port)
{
    return cs_node_is_switch(&f->nodes[f->ports[port].node]);
}

static void disconnect(struct cs_fabric *f, uint32_t port)
{
    uint32_t peer = f->ports[port].peer;
    f->ports[port].peer = CS_NONE;
    f->ports[peer].peer = CS_NONE;
}

static int unlink_random(struct cs_fabric *f, uint32_t count, struct cs_rng *rng,
                         struct cs_error *err)
{
    /* Each cable once, by its lower port index; a partial shuffle picks `count` of them. */
    uint32_t *cables = malloc((f->num_port_slots ? f->num_port_slots : 1) * sizeof *cables);
    if (!cables)
        return cs_fail(err, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        uint32_t peer = f->ports[i].peer;
        if (peer != CS_NONE && peer > i && is_switch_port(f, i) && is_switch_port(f, peer))
            cables[n++] = i;
    }
    if (count > n) {
        free(cables);
        return cs_fail(err, "cannot cut %u switch-to-switch cables: the fabric has %u", count, n);
    }
    for (uint32_t k = 0; k < count; k++) {
        uint32_t j = k + cs_rng_below(rng, n - k);
        uint32_t t = cables[k];
        cables[k] = cables[j];
        cables[j] = t;
        disconnect(f, cables[k]);
    }
    free(cables);
    return 0;
}

static int shuffle_hosts(struct cs_fabric *f, struct cs_rng *rng, struct cs_error *err)
{
    uint32_t *ports = malloc((CS_MAX_PORTS + 1) * sizeof *ports);
    uint32_t *hosts = malloc((CS_MAX_PORTS + 1) * sizeof *hosts);
    if (!ports || !hosts) {
        free(ports);
        free(hosts);
        return cs_fail(err, "out of memory");
    }
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        if (!cs_node_is_switch(node))
            continue;
        uint32_t count = 0;
        for (unsigned p = 1; p <= node->num_ports; p++) {
            uint32_t port = node->first_port + p, peer = f->ports[port].peer;
            if (peer != CS_NONE && !is_switch_port(f, peer)) {
                ports[count] = port;
                hosts[count++] = peer;
            }
        }
        cs_rng_shuffle(rng, hosts, count);
        for (uint32_t i = 0; i < count; i++) {
            f->ports[ports[i]].peer = hosts[i];
            f->ports[hosts[i]].peer = ports[i];
        }
    }
    free(ports);
    free(hosts);
    return 0;
}

int cs_fabric_remove_nodes(struct cs_fabric *f, const bool *gone, struct cs_error *err)
{
    /* New port slots in node order; then the nodes move down in place (a node's new index is
     * never above its old one) and the ports go to a fresh array. */
    uint32_t *slot = malloc((f->num_port_slots ? f->num_port_slots : 1) * sizeof *slot);
    if (!slot)
        return cs_fail(err, "out of memory");
    uint32_t kept_slots = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        for (unsigned p = 0; p <= node->num_ports; p++)
            slot[node->first_port + p] = gone[n] ? CS_NONE : kept_slots++;
    }
    struct cs_port *ports = malloc((kept_slots ? kept_slots : 1) * sizeof *ports);
    if (!ports) {
        free(slot);
        return cs_fail(err, "out of memory");
    }
    uint32_t kept = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        if (gone[n])
            continue;
        struct cs_node node = f->nodes[n];
        for (unsigned p = 0; p <= node.num_ports; p++) {
            struct cs_port *to = &ports[slot[node.first_port + p]];
            *to = f->ports[node.first_port + p];
            to->node = kept;
            to->peer = to->peer == CS_NONE ? CS_NONE : slot[to->peer];
        }
        node.first_port = slot[node.first_port];
        f->nodes[kept++] = node;
    }
    free(slot);
    free(f->ports);
    f->ports = ports;
    f->num_port_slots = f->port_capacity = kept_slots;
    f->num_nodes = kept;
    return 0;
}

static int shutdown_hosts(struct cs_fabric *f, uint32_t count, struct cs_rng *rng,
                          struct cs_error *err)
{
    if (cs_lids_assign(f, 0, err) < 0)
        return -1;
    uint32_t *hosts = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof *hosts);
    bool *gone = calloc(f->num_nodes ? f->num_nodes : 1, sizeof *gone);
    if (!hosts || !gone) {
        free(hosts);
        free(gone);
        return cs_fail(err, "out of memory");
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->num_nodes; i++)
        if (f->nodes[i].type == CS_NODE_CA)
            hosts[n++] = i;
    int rc = 0;
    if (count > n) {
        rc = cs_fail(err, "cannot shut %u hosts down: the fabric has %u", count, n);
    } else {
        for (uint32_t k = 0; k < count; k++) {
            uint32_t j = k + cs_rng_below(rng, n - k);
            uint32_t t = hosts[k];
            hosts[k] = hosts[j];
            hosts[j] = t;
            gone[hosts[k]] = true;
        }
        rc = cs_fabric_remove_nodes(f, gone, err);
    }
    free(hosts);
    free(gone);
    return rc;
}

int cs_fabric_mutate(struct cs_fabric *f, const struct cs_mutation *m, struct cs_error *err)
{
    struct cs_rng rng;
    cs_rng_seed(&rng, m->seed);
    if (m->unlink_switch_links && unlink_random(f, m->unlink_switch_links, &rng, err) < 0)
        return -1;
    if (m->shuffle_host_ports && shuffle_hosts(f, &rng, err) < 0)
        return -1;
    if (m->shutdown_hosts && shutdown_hosts(f, m->shutdown_hosts, &rng, err) < 0)
        return -1;
    return 0;
}
