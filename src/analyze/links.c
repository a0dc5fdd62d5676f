/* Directed link ids: one per cable end, in port-index order, with a direction class. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/analyze.h"

#include "analyze/link_csv.h"
#include "cloudsm/summary.h"

static enum cs_link_class classify(const struct cs_fabric *f, const uint32_t *rank,
                                   uint32_t from_port, uint32_t to_port)
{
    uint32_t a = f->ports[from_port].node, b = f->ports[to_port].node;
    bool a_switch = cs_node_is_switch(&f->nodes[a]), b_switch = cs_node_is_switch(&f->nodes[b]);
    if (!a_switch && !b_switch)
        return CS_LINK_HOST_HOST;
    if (!a_switch)
        return CS_LINK_HOST_UP;
    if (!b_switch)
        return CS_LINK_HOST_DOWN;
    if (rank[a] == CS_NONE || rank[b] == CS_NONE || rank[a] == rank[b])
        return CS_LINK_FLAT;
    return rank[b] > rank[a] ? CS_LINK_UP : CS_LINK_DOWN;
}

int cs_links_build(struct cs_links *l, const struct cs_fabric *f, struct cs_error *err)
{
    memset(l, 0, sizeof *l);
    uint32_t connected = 0;
    for (uint32_t i = 0; i < f->num_port_slots; i++)
        connected += f->ports[i].peer != CS_NONE;
    l->num_port_slots = f->num_port_slots;
    l->out = malloc((f->num_port_slots ? f->num_port_slots : 1) * sizeof *l->out);
    l->from = malloc((connected ? connected : 1) * sizeof *l->from);
    l->cls = malloc(connected ? connected : 1);
    l->rank = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof *l->rank);
    if (!l->out || !l->from || !l->cls || !l->rank) {
        cs_links_free(l);
        return cs_fail(err, "out of memory for %u directed links", connected);
    }
    if (cs_fabric_leaf_distances(f, l->rank, err) < 0) {
        cs_links_free(l);
        return -1;
    }
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        uint32_t peer = f->ports[i].peer;
        if (peer == CS_NONE) {
            l->out[i] = CS_NONE;
            continue;
        }
        l->out[i] = l->count;
        l->from[l->count] = i;
        l->cls[l->count] = (uint8_t)classify(f, l->rank, i, peer);
        l->count++;
    }
    return 0;
}

void cs_links_free(struct cs_links *l)
{
    free(l->out);
    free(l->from);
    free(l->cls);
    free(l->rank);
    memset(l, 0, sizeof *l);
}

const char *cs_link_class_name(enum cs_link_class c)
{
    static const char *const names[CS_LINK_CLASSES] = {
        [CS_LINK_HOST_UP] = "host_up", [CS_LINK_HOST_DOWN] = "host_down",
        [CS_LINK_UP] = "up",           [CS_LINK_DOWN] = "down",
        [CS_LINK_FLAT] = "flat",       [CS_LINK_HOST_HOST] = "host_host",
    };
    return (unsigned)c < CS_LINK_CLASSES ? names[c] : "?";
}

void cs_link_csv_ends(struct cs_outbuf *o, const struct cs_tracer *t, uint32_t l)
{
    const struct cs_fabric *f = t->fabric;
    const struct cs_port *a = &f->ports[t->links.from[l]];
    const struct cs_port *b = &f->ports[a->peer];
    cs_outbuf_str(o, "0x");
    cs_outbuf_hex(o, f->nodes[a->node].guid, 16);
    cs_outbuf_char(o, ',');
    cs_outbuf_dec(o, a->num);
    cs_outbuf_str(o, ",0x");
    cs_outbuf_hex(o, f->nodes[b->node].guid, 16);
    cs_outbuf_char(o, ',');
    cs_outbuf_dec(o, b->num);
    cs_outbuf_char(o, ',');
    cs_outbuf_str(o, cs_link_class_name((enum cs_link_class)t->links.cls[l]));
}
