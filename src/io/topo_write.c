/* Writer for topology files in ibnetdiscover's layout (docs/formats/topology.md).
 *
 * Every node gets its vendid/devid/sysimgguid lines and a switchguid=/caguid=/rtguid= line, so
 * that ibsim gives each node the GUID we wrote instead of one from its sequential counters, and
 * cs_topo_parse gives back the same fabric. Lines stay well under ibsim's 256-byte line buffer
 * (the longest possible one is about 200 bytes).
 *
 * The fabric is checked before the first byte is written, so a fabric the format cannot carry is
 * refused instead of producing a file that reads back differently. Lines are formatted by hand
 * into one buffer: the 11664-host tree has ~70k port lines and printf would dominate.
 */
#include "cloudsm/topo_io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"

/* Flushed to the FILE when fuller than this; leaves room for one whole line. */
#define OUT_CHUNK 65536
#define OUT_LINE_MAX 512

struct out {
    FILE *fp;
    size_t len;
    char buf[OUT_CHUNK + OUT_LINE_MAX];
};

static void put_mem(struct out *o, const char *s, size_t n)
{
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void put_str(struct out *o, const char *s)
{
    put_mem(o, s, strlen(s));
}

static void put_char(struct out *o, char c)
{
    o->buf[o->len++] = c;
}

static void put_dec(struct out *o, unsigned v)
{
    char tmp[12];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        put_char(o, tmp[--n]);
}

/* Lowercase hex without leading zeros unless min_digits asks for them (%x / %016x). */
static void put_hex(struct out *o, uint64_t v, int min_digits)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    while (n < min_digits)
        tmp[n++] = '0';
    while (n)
        put_char(o, tmp[--n]);
}

/* A description inside double quotes. A '"' cannot be represented (neither ibnetdiscover nor
 * ibsim has an escape), so it becomes '\'', which the reader does too; a newline would end the
 * line. In port-line comments '=' becomes '-', because ibsim takes any '=' on a port line for a
 * port option. */
static void put_desc(struct out *o, const char *desc, bool on_port_line)
{
    size_t n = strnlen(desc, CS_DESC_MAX);
    put_char(o, '"');
    for (size_t i = 0; i < n; i++) {
        char c = desc[i];
        if (c == '"')
            c = '\'';
        else if (c == '\n')
            c = ' ';
        else if (c == '=' && on_port_line)
            c = '-';
        put_char(o, c);
    }
    put_char(o, '"');
}

static int end_line(struct out *o)
{
    put_char(o, '\n');
    if (o->len >= OUT_CHUNK) {
        if (fwrite(o->buf, 1, o->len, o->fp) != o->len)
            return -1;
        o->len = 0;
    }
    return 0;
}

static char id_letter(uint8_t type)
{
    return type == CS_NODE_SWITCH ? 'S' : type == CS_NODE_CA ? 'H' : 'R';
}

/* "S-0002c90000000101" in quotes: ibnetdiscover's node id, made from the node GUID. */
static void put_node_id(struct out *o, const struct cs_node *n)
{
    put_char(o, '"');
    put_char(o, id_letter(n->type));
    put_char(o, '-');
    put_hex(o, n->guid, 16);
    put_char(o, '"');
}

/* "<W>x<SPEED>" as ibnetdiscover prints it, "??" / "???" for the unknown half; nothing when both
 * are unknown. */
static void put_rate(struct out *o, const struct cs_port *p)
{
    if (!p->width && !p->speed)
        return;
    put_char(o, ' ');
    if (p->width) {
        put_dec(o, p->width);
        put_char(o, 'x');
    } else {
        put_str(o, "??");
    }
    put_str(o, p->speed ? cs_link_speed_name(p->speed) : "???");
}

static uint16_t remote_lid(const struct cs_fabric *f, const struct cs_port *remote)
{
    const struct cs_node *rn = &f->nodes[remote->node];
    return cs_node_is_switch(rn) ? f->ports[rn->first_port].lid : remote->lid;
}

static void put_port_line(struct out *o, const struct cs_fabric *f, const struct cs_node *n,
                          const struct cs_port *p)
{
    const struct cs_port *rp = &f->ports[p->peer];
    const struct cs_node *rn = &f->nodes[rp->node];
    bool switch_line = cs_node_is_switch(n);
    put_char(o, '[');
    put_dec(o, p->num);
    put_char(o, ']');
    if (!switch_line) {
        put_char(o, '(');
        put_hex(o, p->guid, 0);
        put_str(o, ") ");
    }
    put_char(o, '\t');
    put_node_id(o, rn);
    put_char(o, '[');
    put_dec(o, rp->num);
    put_char(o, ']');
    if (!cs_node_is_switch(rn)) {
        /* ibnetdiscover's spacing differs between switch and CA port lines; keep it. */
        put_str(o, switch_line ? "(" : " (");
        put_hex(o, rp->guid, 0);
        put_str(o, ") ");
    }
    put_str(o, "\t\t# ");
    if (!switch_line) {
        put_str(o, "lid ");
        put_dec(o, p->lid);
        put_str(o, " lmc ");
        put_dec(o, p->lmc);
        put_char(o, ' ');
    }
    put_desc(o, rn->desc, true);
    put_str(o, " lid ");
    put_dec(o, remote_lid(f, rp));
    put_rate(o, p);
}

static void put_node_header(struct out *o, const struct cs_fabric *f, const struct cs_node *n)
{
    put_str(o, "vendid=0x");
    put_hex(o, n->vendor_id, 0);
    put_str(o, "\ndevid=0x");
    put_hex(o, n->device_id, 0);
    put_str(o, "\nsysimgguid=0x");
    put_hex(o, n->sysimg_guid, 0);
    put_char(o, '\n');
    const struct cs_port *port0 = &f->ports[n->first_port];
    switch (n->type) {
    case CS_NODE_SWITCH:
        put_str(o, "switchguid=0x");
        put_hex(o, n->guid, 0);
        put_char(o, '(');
        put_hex(o, port0->guid, 0);
        put_str(o, ")\nSwitch\t");
        break;
    case CS_NODE_CA:
        put_str(o, "caguid=0x");
        put_hex(o, n->guid, 0);
        put_str(o, "\nCa\t");
        break;
    default:
        put_str(o, "rtguid=0x");
        put_hex(o, n->guid, 0);
        put_str(o, "\nRt\t");
        break;
    }
    put_dec(o, n->num_ports);
    put_char(o, ' ');
    put_node_id(o, n);
    put_str(o, "\t\t# ");
    put_desc(o, n->desc, false);
    if (cs_node_is_switch(n)) {
        put_str(o, n->enhanced_port0 ? " enhanced" : " base");
        put_str(o, " port 0 lid ");
        put_dec(o, port0->lid);
        put_str(o, " lmc ");
        put_dec(o, port0->lmc);
    }
}

static bool valid_width(uint8_t w)
{
    return w == 0 || w == 1 || w == 2 || w == 4 || w == 8 || w == 12;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
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
    uint64_t *guids = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof *guids);
    if (!guids)
        return cs_fail(err, "out of memory");
    for (uint32_t i = 0; i < f->num_nodes; i++)
        guids[i] = f->nodes[i].guid;
    qsort(guids, f->num_nodes, sizeof *guids, cmp_u64);
    int rc = 0;
    for (uint32_t i = 1; i < f->num_nodes; i++)
        if (guids[i] == guids[i - 1]) {
            rc = cs_fail(err, "two nodes have GUID 0x%016" PRIx64, guids[i]);
            break;
        }
    free(guids);
    return rc;
}

int cs_topo_write(FILE *out, const struct cs_fabric *f, struct cs_error *err)
{
    if (check_writable(f, err) < 0)
        return -1;
    struct out *o = malloc(sizeof *o);
    if (!o)
        return cs_fail(err, "out of memory");
    o->fp = out;
    o->len = 0;
    int rc = 0;
    put_str(o, "#\n# Topology file: written by cloudsm (ibnetdiscover format)\n#\n");
    rc |= end_line(o);
    for (uint32_t i = 0; i < f->num_nodes && rc == 0; i++) {
        const struct cs_node *n = &f->nodes[i];
        put_node_header(o, f, n);
        rc |= end_line(o);
        for (unsigned p = 1; p <= n->num_ports && rc == 0; p++) {
            const struct cs_port *port = &f->ports[n->first_port + p];
            if (port->peer == CS_NONE)
                continue;
            put_port_line(o, f, n, port);
            rc |= end_line(o);
        }
        rc |= end_line(o); /* a blank line ends the node record */
    }
    if (rc == 0 && o->len && fwrite(o->buf, 1, o->len, out) != o->len)
        rc = -1;
    free(o);
    if (rc != 0 || fflush(out) != 0 || ferror(out))
        return cs_fail(err, "writing the topology failed: %s", strerror(errno));
    return 0;
}

static int write_cb(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_topo_write(out, ctx, err);
}

int cs_topo_write_file(const char *path, const struct cs_fabric *f, struct cs_error *err)
{
    return cs_atomic_write(path, write_cb, f, err);
}
