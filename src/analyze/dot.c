/* ORCS-compatible dot export (include/cloudsm/static_metrics.h, docs/analysis.md).
 *
 * ORCS routes a pair by walking, from the source vertex, the out-edge whose `comment` names the
 * destination host. Destination-based routing gives that directly: a switch's edge names the
 * hosts whose LFT entry is its port. Per switch, the hosts are bucketed by their entry (one pass
 * over the switch's LFT row), so the export costs O(switches x hosts) and never traces a route.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/static_metrics.h"
#include "core/grow.h"
#include "io/outbuf.h"

static char vertex_letter(const struct cs_fabric *f, uint32_t port)
{
    switch (f->nodes[f->ports[port].node].type) {
    case CS_NODE_SWITCH:
        return 'S';
    case CS_NODE_ROUTER:
        return 'R';
    default:
        return 'H';
    }
}

/* "S-<node GUID>" for a switch, "H-<port GUID>" / "R-<port GUID>" for a CA / router port. */
static void vertex_name(struct cs_outbuf *o, const struct cs_fabric *f, uint32_t port)
{
    const struct cs_port *p = &f->ports[port];
    char letter = vertex_letter(f, port);
    cs_outbuf_char(o, '"');
    cs_outbuf_char(o, letter);
    cs_outbuf_char(o, '-');
    cs_outbuf_hex(o, letter == 'S' ? f->nodes[p->node].guid : p->guid, 16);
    cs_outbuf_char(o, '"');
}

static void quoted(struct cs_outbuf *o, const char *s)
{
    cs_outbuf_char(o, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            cs_outbuf_char(o, '\\');
        cs_outbuf_char(o, *s);
    }
    cs_outbuf_char(o, '"');
}

static void edge_start(struct cs_outbuf *o, const struct cs_fabric *f, uint32_t port)
{
    cs_outbuf_str(o, "  ");
    vertex_name(o, f, port);
    cs_outbuf_str(o, " -> ");
    vertex_name(o, f, f->ports[port].peer);
    cs_outbuf_str(o, " [comment=\"");
}

static void edge_end(struct cs_outbuf *o, const struct cs_fabric *f, uint32_t port)
{
    cs_outbuf_str(o, "\", taillabel=\"");
    cs_outbuf_dec(o, f->ports[port].num);
    cs_outbuf_str(o, "\", headlabel=\"");
    cs_outbuf_dec(o, f->ports[f->ports[port].peer].num);
    cs_outbuf_str(o, "\"];\n");
}

int cs_orcs_dot_write(FILE *out, const struct cs_tracer *t, struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    uint32_t *hosts = cs_calloc_array(f->num_port_slots, sizeof *hosts, err);
    uint32_t *bucket = cs_calloc_array(f->num_port_slots, sizeof *bucket, err);
    uint32_t start[CS_MAX_PORTS + 2];
    uint32_t num_hosts = 0;
    int rc = -1;
    if (!hosts || !bucket)
        goto done;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (f->nodes[p->node].type != CS_NODE_CA || !p->num || p->peer == CS_NONE)
            continue;
        if (!p->lid) {
            const struct cs_node *n = &f->nodes[p->node];
            cs_fail(err,
                    "CA port %u of 0x%016" PRIx64 " ('%s') has no LID: ORCS routes to every host",
                    p->num, n->guid, n->desc);
            goto done;
        }
        hosts[num_hosts++] = i;
    }

    struct cs_outbuf o;
    if (cs_outbuf_init(&o, out, err) < 0)
        goto done;
    cs_outbuf_str(&o, "digraph cloudsm {\n");
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        for (unsigned pn = 0; pn <= node->num_ports; pn++) {
            uint32_t port = node->first_port + pn;
            /* One vertex per switch (its port 0), per cabled CA or router port. */
            if (cs_node_is_switch(node) ? pn != 0 : pn == 0 || f->ports[port].peer == CS_NONE)
                continue;
            cs_outbuf_str(&o, "  ");
            vertex_name(&o, f, port);
            cs_outbuf_str(&o, " [label=");
            quoted(&o, node->desc);
            cs_outbuf_str(&o, "];\n");
        }
    }
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        uint32_t sw = t->node_switch[n];
        if (sw == CS_NONE) {
            /* A host's (router's) cable is its only way out: every destination. */
            for (unsigned pn = 1; pn <= node->num_ports; pn++) {
                uint32_t port = node->first_port + pn;
                if (f->ports[port].peer == CS_NONE)
                    continue;
                edge_start(&o, f, port);
                cs_outbuf_char(&o, '*');
                edge_end(&o, f, port);
            }
            continue;
        }
        /* Hosts by this switch's LFT entry for their base LID (counting sort, host order). */
        memset(start, 0, sizeof start);
        uint32_t table = t->switch_table[sw];
        for (uint32_t h = 0; h < num_hosts; h++) {
            uint8_t e = table == CS_NONE ? CS_LFT_NO_ROUTE
                                         : cs_lfts_get(t->lfts, table, f->ports[hosts[h]].lid);
            if (e >= 1 && e <= node->num_ports)
                start[e + 1]++;
        }
        for (unsigned pn = 1; pn <= node->num_ports; pn++)
            start[pn + 1] += start[pn];
        for (uint32_t h = 0; h < num_hosts; h++) {
            uint8_t e = table == CS_NONE ? CS_LFT_NO_ROUTE
                                         : cs_lfts_get(t->lfts, table, f->ports[hosts[h]].lid);
            if (e >= 1 && e <= node->num_ports)
                bucket[start[e]++] = hosts[h];
        }
        /* start[pn] is now where bucket pn + 1 begins: bucket pn is [start[pn - 1], start[pn]). */
        for (unsigned pn = 1; pn <= node->num_ports; pn++) {
            uint32_t port = node->first_port + pn;
            if (f->ports[port].peer == CS_NONE)
                continue;
            uint32_t first = pn > 1 ? start[pn - 1] : 0, last = start[pn];
            edge_start(&o, f, port);
            if (num_hosts && last - first == num_hosts) {
                cs_outbuf_char(&o, '*');
            } else {
                for (uint32_t k = first; k < last; k++) {
                    if (k > first)
                        cs_outbuf_char(&o, ',');
                    cs_outbuf_str(&o, "H-");
                    cs_outbuf_hex(&o, f->ports[bucket[k]].guid, 16);
                }
            }
            edge_end(&o, f, port);
        }
    }
    cs_outbuf_str(&o, "}\n");
    rc = cs_outbuf_finish(&o, "the dot graph", err);
done:
    free(hosts);
    free(bucket);
    return rc;
}
