/* Writer for topology files in ibnetdiscover's layout (docs/formats/topology.md).
 *
 * Every node gets its vendid/devid/sysimgguid lines and a switchguid=/caguid=/rtguid= line, so
 * that ibsim gives each node the GUID we wrote instead of one from its sequential counters, and
 * cs_topo_parse gives back the same fabric. Lines stay well under ibsim's 256-byte line buffer
 * (the longest possible one is about 200 bytes).
 *
 * The fabric is checked before the first byte is written, so a fabric the format cannot carry is
 * refused instead of producing a file that reads back differently. Lines are formatted by hand
 * (io/outbuf.h): the 11664-host tree has ~70k port lines and printf would dominate.
 */
#include "cloudsm/topo_io.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"
#include "io/outbuf.h"

/* A description inside double quotes. A '"' cannot be represented (neither ibnetdiscover nor
 * ibsim has an escape), so it becomes '\'', which the reader does too; a newline would end the
 * line. In port-line comments '=' becomes '-', because ibsim takes any '=' on a port line for a
 * port option. */
static void put_desc(struct cs_outbuf *o, const char *desc, bool on_port_line)
{
    size_t n = strnlen(desc, CS_DESC_MAX);
    cs_outbuf_char(o, '"');
    for (size_t i = 0; i < n; i++) {
        char c = desc[i];
        if (c == '"')
            c = '\'';
        else if (c == '\n')
            c = ' ';
        else if (c == '=' && on_port_line)
            c = '-';
        cs_outbuf_char(o, c);
    }
    cs_outbuf_char(o, '"');
}

static char id_letter(uint8_t type)
{
    return type == CS_NODE_SWITCH ? 'S' : type == CS_NODE_CA ? 'H' : 'R';
}

/* "S-0002c90000000101" in quotes: ibnetdiscover's node id, made from the node GUID. */
static void put_node_id(struct cs_outbuf *o, const struct cs_node *n)
{
    cs_outbuf_char(o, '"');
    cs_outbuf_char(o, id_letter(n->type));
    cs_outbuf_char(o, '-');
    cs_outbuf_hex(o, n->guid, 16);
    cs_outbuf_char(o, '"');
}

/* "<W>x<SPEED>" as ibnetdiscover prints it, "??" / "???" for the unknown half; nothing when both
 * are unknown. */
static void put_rate(struct cs_outbuf *o, const struct cs_port *p)
{
    if (!p->width && !p->speed)
        return;
    cs_outbuf_char(o, ' ');
    if (p->width) {
        cs_outbuf_dec(o, p->width);
        cs_outbuf_char(o, 'x');
    } else {
        cs_outbuf_str(o, "??");
    }
    cs_outbuf_str(o, p->speed ? cs_link_speed_name(p->speed) : "???");
}

static uint16_t remote_lid(const struct cs_fabric *f, const struct cs_port *remote)
{
    const struct cs_node *rn = &f->nodes[remote->node];
    return cs_node_is_switch(rn) ? f->ports[rn->first_port].lid : remote->lid;
}

static void put_port_line(struct cs_outbuf *o, const struct cs_fabric *f, const struct cs_node *n,
                          const struct cs_port *p)
{
    const struct cs_port *rp = &f->ports[p->peer];
    const struct cs_node *rn = &f->nodes[rp->node];
    bool switch_line = cs_node_is_switch(n);
    cs_outbuf_char(o, '[');
    cs_outbuf_dec(o, p->num);
    cs_outbuf_char(o, ']');
    if (!switch_line) {
        cs_outbuf_char(o, '(');
        cs_outbuf_hex(o, p->guid, 0);
        cs_outbuf_str(o, ") ");
    }
    cs_outbuf_char(o, '\t');
    put_node_id(o, rn);
    cs_outbuf_char(o, '[');
    cs_outbuf_dec(o, rp->num);
    cs_outbuf_char(o, ']');
    if (!cs_node_is_switch(rn)) {
        /* ibnetdiscover's spacing differs between switch and CA port lines; keep it. */
        cs_outbuf_str(o, switch_line ? "(" : " (");
        cs_outbuf_hex(o, rp->guid, 0);
        cs_outbuf_str(o, ") ");
    }
    cs_outbuf_str(o, "\t\t# ");
    if (!switch_line) {
        cs_outbuf_str(o, "lid ");
        cs_outbuf_dec(o, p->lid);
        cs_outbuf_str(o, " lmc ");
        cs_outbuf_dec(o, p->lmc);
        cs_outbuf_char(o, ' ');
    }
    put_desc(o, rn->desc, true);
    cs_outbuf_str(o, " lid ");
    cs_outbuf_dec(o, remote_lid(f, rp));
    put_rate(o, p);
}

static void put_node_header(struct cs_outbuf *o, const struct cs_fabric *f, const struct cs_node *n)
{
    cs_outbuf_str(o, "vendid=0x");
    cs_outbuf_hex(o, n->vendor_id, 0);
    cs_outbuf_str(o, "\ndevid=0x");
    cs_outbuf_hex(o, n->device_id, 0);
    cs_outbuf_str(o, "\nsysimgguid=0x");
    cs_outbuf_hex(o, n->sysimg_guid, 0);
    cs_outbuf_char(o, '\n');
    const struct cs_port *port0 = &f->ports[n->first_port];
    switch (n->type) {
    case CS_NODE_SWITCH:
        cs_outbuf_str(o, "switchguid=0x");
        cs_outbuf_hex(o, n->guid, 0);
        cs_outbuf_char(o, '(');
        cs_outbuf_hex(o, port0->guid, 0);
        cs_outbuf_str(o, ")\nSwitch\t");
        break;
    case CS_NODE_CA:
        cs_outbuf_str(o, "caguid=0x");
        cs_outbuf_hex(o, n->guid, 0);
        cs_outbuf_str(o, "\nCa\t");
        break;
    default:
        cs_outbuf_str(o, "rtguid=0x");
        cs_outbuf_hex(o, n->guid, 0);
        cs_outbuf_str(o, "\nRt\t");
        break;
    }
    cs_outbuf_dec(o, n->num_ports);
    cs_outbuf_char(o, ' ');
    put_node_id(o, n);
    cs_outbuf_str(o, "\t\t# ");
    put_desc(o, n->desc, false);
    if (cs_node_is_switch(n)) {
        cs_outbuf_str(o, n->enhanced_port0 ? " enhanced" : " base");
        cs_outbuf_str(o, " port 0 lid ");
        cs_outbuf_dec(o, port0->lid);
        cs_outbuf_str(o, " lmc ");
        cs_outbuf_dec(o, port0->lmc);
    }
}

static bool valid_width(uint8_t w)
{
    return w == 0 || w == 1 || w == 2 || w == 4 || w == 8 || w == 12;
}

/* What the format cannot carry, found before anything is written. */
static int check_writable(const struct cs_fabric *f, struct cs_error *err)
{
    for (uint32_t i = 0; i < f->num_nodes; i++) {
        const struct cs_node *n = &f->nodes[i];
        if (n->type != CS_NODE_CA && n->type != CS_NODE_SWITCH && n->type != CS_NODE_ROUTER)
            return cs_fail(err, "node 0x%016" PRIx64 " has no valid type (%u)", n->guid, n->type);
        if (n->num_ports < 1 || n->num_ports > CS_MAX_PORTS)
            return cs_fail(err, "node 0x%016" PRIx64 " has %u ports", n->guid, n->num_ports);
        for (unsigned p = 0; p <= n->num_ports; p++) {
            const struct cs_port *port = &f->ports[n->first_port + p];
            if (port->lmc > 7)
                return cs_fail(err, "port %u of node 0x%016" PRIx64 ": LMC %u is not 0 to 7", p,
                               n->guid, port->lmc);
            if (port->peer == CS_NONE)
                continue;
            const struct cs_port *peer = &f->ports[port->peer];
            if (!valid_width(port->width) || port->speed > CS_SPEED_XDR)
                return cs_fail(err,
                               "port %u of node 0x%016" PRIx64 ": width %u / speed %u cannot "
                               "be written",
                               p, n->guid, port->width, port->speed);
            if (peer->width != port->width || peer->speed != port->speed)
                return cs_fail(err,
                               "port %u of node 0x%016" PRIx64 ": the two ends of the link have "
                               "different widths or speeds",
                               p, n->guid);
        }
    }
    /* Node ids are made from node GUIDs, and the reader refuses duplicates. */
    struct cs_key_index ix;
    if (cs_key_index_nodes(&ix, f, err) < 0)
        return -1;
    cs_key_index_free(&ix);
    return 0;
}

int cs_topo_write(FILE *out, const struct cs_fabric *f, struct cs_error *err)
{
    struct cs_outbuf o;
    if (check_writable(f, err) < 0 || cs_outbuf_init(&o, out, err) < 0)
        return -1;
    cs_outbuf_str(&o, "#\n# Topology file: written by cloudsm (ibnetdiscover format)\n#\n\n");
    for (uint32_t i = 0; i < f->num_nodes; i++) {
        const struct cs_node *n = &f->nodes[i];
        put_node_header(&o, f, n);
        cs_outbuf_char(&o, '\n');
        for (unsigned p = 1; p <= n->num_ports; p++) {
            const struct cs_port *port = &f->ports[n->first_port + p];
            if (port->peer == CS_NONE)
                continue;
            put_port_line(&o, f, n, port);
            cs_outbuf_char(&o, '\n');
        }
        cs_outbuf_char(&o, '\n'); /* a blank line ends the node record */
    }
    return cs_outbuf_finish(&o, "writing the topology", err);
}

static int write_cb(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_topo_write(out, ctx, err);
}

int cs_topo_write_file(const char *path, const struct cs_fabric *f, struct cs_error *err)
{
    return cs_atomic_write(path, write_cb, f, err);
}
