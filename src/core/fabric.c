#include "cloudsm/fabric.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void cs_fabric_init(struct cs_fabric *f)
{
    memset(f, 0, sizeof *f);
}

void cs_fabric_free(struct cs_fabric *f)
{
    free(f->nodes);
    free(f->ports);
    cs_fabric_init(f);
}

int cs_fabric_reserve(struct cs_fabric *f, uint32_t nodes, uint32_t port_slots,
                      struct cs_error *err)
{
    if (cs_grow((void **)&f->nodes, &f->node_capacity, (uint64_t)f->num_nodes + nodes,
                sizeof *f->nodes, err) < 0)
        return -1;
    return cs_grow((void **)&f->ports, &f->port_capacity, (uint64_t)f->num_port_slots + port_slots,
                   sizeof *f->ports, err);
}

uint32_t cs_fabric_add_node(struct cs_fabric *f, enum cs_node_type type, uint64_t guid,
                            unsigned num_ports, const char *desc, struct cs_error *err)
{
    if (type != CS_NODE_CA && type != CS_NODE_SWITCH && type != CS_NODE_ROUTER) {
        cs_fail(err, "bad node type %d", (int)type);
        return CS_NONE;
    }
    if (num_ports < 1 || num_ports > CS_MAX_PORTS) {
        cs_fail(err, "node 0x%016" PRIx64 ": %u ports (a node has 1 to %d)", guid, num_ports,
                CS_MAX_PORTS);
        return CS_NONE;
    }
    if (cs_fabric_reserve(f, 1, num_ports + 1, err) < 0)
        return CS_NONE;

    uint32_t index = f->num_nodes++;
    struct cs_node *n = &f->nodes[index];
    memset(n, 0, sizeof *n);
    n->guid = guid;
    n->sysimg_guid = guid;
    n->type = (uint8_t)type;
    n->num_ports = (uint8_t)num_ports;
    n->first_port = f->num_port_slots;
    if (desc) {
        size_t len = strnlen(desc, CS_DESC_MAX);
        memcpy(n->desc, desc, len);
        n->desc[len] = '\0';
    }
    for (unsigned p = 0; p <= num_ports; p++) {
        struct cs_port *port = &f->ports[f->num_port_slots++];
        memset(port, 0, sizeof *port);
        port->node = index;
        port->peer = CS_NONE;
        port->num = (uint8_t)p;
        if (type == CS_NODE_SWITCH)
            port->guid = p == 0 ? guid : 0;
        else
            port->guid = p == 0 ? 0 : guid + p;
    }
    return index;
}

static bool is_switch_port0(const struct cs_fabric *f, uint32_t port)
{
    return f->ports[port].num == 0 && f->nodes[f->ports[port].node].type == CS_NODE_SWITCH;
}

int cs_fabric_connect(struct cs_fabric *f, uint32_t a, uint32_t b, struct cs_error *err)
{
    if (a >= f->num_port_slots || b >= f->num_port_slots)
        return cs_fail(err, "connect: port index out of range");
    if (a == b)
        return cs_fail(err, "connect: a port cannot be cabled to itself");
    const struct cs_port *pa = &f->ports[a], *pb = &f->ports[b];
    const struct cs_node *na = &f->nodes[pa->node], *nb = &f->nodes[pb->node];
    if (pa->num == 0 && !is_switch_port0(f, a))
        return cs_fail(err, "connect: node 0x%016" PRIx64 " has no port 0", na->guid);
    if (pb->num == 0 && !is_switch_port0(f, b))
        return cs_fail(err, "connect: node 0x%016" PRIx64 " has no port 0", nb->guid);
    if (is_switch_port0(f, a) || is_switch_port0(f, b))
        return cs_fail(err, "connect: switch port 0 is internal and cannot be cabled");
    if (pa->peer != CS_NONE)
        return cs_fail(err, "connect: port %u of node 0x%016" PRIx64 " is already connected",
                       pa->num, na->guid);
    if (pb->peer != CS_NONE)
        return cs_fail(err, "connect: port %u of node 0x%016" PRIx64 " is already connected",
                       pb->num, nb->guid);
    f->ports[a].peer = b;
    f->ports[b].peer = a;
    return 0;
}

void cs_fabric_set_link_rate(struct cs_fabric *f, uint32_t port, uint8_t width,
                             enum cs_link_speed speed)
{
    f->ports[port].width = width;
    f->ports[port].speed = (uint8_t)speed;
    uint32_t peer = f->ports[port].peer;
    if (peer != CS_NONE) {
        f->ports[peer].width = width;
        f->ports[peer].speed = (uint8_t)speed;
    }
}

int cs_fabric_copy(struct cs_fabric *dst, const struct cs_fabric *src, struct cs_error *err)
{
    cs_fabric_init(dst);
    if (cs_fabric_reserve(dst, src->num_nodes, src->num_port_slots, err) < 0) {
        cs_fabric_free(dst);
        return -1;
    }
    if (src->num_nodes)
        memcpy(dst->nodes, src->nodes, (size_t)src->num_nodes * sizeof *src->nodes);
    if (src->num_port_slots)
        memcpy(dst->ports, src->ports, (size_t)src->num_port_slots * sizeof *src->ports);
    dst->num_nodes = src->num_nodes;
    dst->num_port_slots = src->num_port_slots;
    return 0;
}

static bool node_equal(const struct cs_node *a, const struct cs_node *b)
{
    return a->guid == b->guid && a->sysimg_guid == b->sysimg_guid &&
           a->first_port == b->first_port && a->vendor_id == b->vendor_id &&
           a->device_id == b->device_id && a->type == b->type && a->num_ports == b->num_ports &&
           a->enhanced_port0 == b->enhanced_port0 && strcmp(a->desc, b->desc) == 0;
}

static bool port_equal(const struct cs_port *a, const struct cs_port *b)
{
    return a->guid == b->guid && a->node == b->node && a->peer == b->peer && a->lid == b->lid &&
           a->num == b->num && a->lmc == b->lmc && a->width == b->width && a->speed == b->speed;
}

bool cs_fabric_equal(const struct cs_fabric *a, const struct cs_fabric *b, struct cs_error *why)
{
    if (a->num_nodes != b->num_nodes) {
        cs_fail(why, "node count differs: %u vs %u", a->num_nodes, b->num_nodes);
        return false;
    }
    if (a->num_port_slots != b->num_port_slots) {
        cs_fail(why, "port slot count differs: %u vs %u", a->num_port_slots, b->num_port_slots);
        return false;
    }
    for (uint32_t i = 0; i < a->num_nodes; i++)
        if (!node_equal(&a->nodes[i], &b->nodes[i])) {
            cs_fail(why, "node %u differs (0x%016" PRIx64 " '%s' vs 0x%016" PRIx64 " '%s')", i,
                    a->nodes[i].guid, a->nodes[i].desc, b->nodes[i].guid, b->nodes[i].desc);
            return false;
        }
    for (uint32_t i = 0; i < a->num_port_slots; i++)
        if (!port_equal(&a->ports[i], &b->ports[i])) {
            const struct cs_port *p = &a->ports[i];
            cs_fail(why, "port %u of node 0x%016" PRIx64 " differs", p->num,
                    a->nodes[p->node].guid);
            return false;
        }
    return true;
}

bool cs_port_needs_lid(const struct cs_fabric *f, uint32_t port)
{
    const struct cs_port *p = &f->ports[port];
    if (f->nodes[p->node].type == CS_NODE_SWITCH)
        return p->num == 0;
    return p->num != 0 && p->peer != CS_NONE;
}

static const char *const node_type_names[] = {
    [CS_NODE_CA] = "Channel Adapter",
    [CS_NODE_SWITCH] = "Switch",
    [CS_NODE_ROUTER] = "Router",
};

const char *cs_node_type_long_name(enum cs_node_type type)
{
    if (type < CS_NODE_CA || type > CS_NODE_ROUTER)
        return "UNKNOWN"; /* what OpenSM's ib_get_node_type_str() prints */
    return node_type_names[type];
}

enum cs_node_type cs_node_type_parse_long_name(const char *s, size_t len)
{
    for (int t = CS_NODE_CA; t <= CS_NODE_ROUTER; t++)
        if (strlen(node_type_names[t]) == len && memcmp(node_type_names[t], s, len) == 0)
            return (enum cs_node_type)t;
    return (enum cs_node_type)0;
}

static const char *const speed_names[] = {
    [CS_SPEED_UNKNOWN] = "", [CS_SPEED_SDR] = "SDR",     [CS_SPEED_DDR] = "DDR",
    [CS_SPEED_QDR] = "QDR",  [CS_SPEED_FDR10] = "FDR10", [CS_SPEED_FDR] = "FDR",
    [CS_SPEED_EDR] = "EDR",  [CS_SPEED_HDR] = "HDR",     [CS_SPEED_NDR] = "NDR",
    [CS_SPEED_XDR] = "XDR",
};

const char *cs_link_speed_name(enum cs_link_speed speed)
{
    if ((unsigned)speed >= sizeof speed_names / sizeof speed_names[0])
        return "";
    return speed_names[speed];
}

enum cs_link_speed cs_link_speed_parse(const char *s, size_t len)
{
    for (unsigned i = 1; i < sizeof speed_names / sizeof speed_names[0]; i++)
        if (strlen(speed_names[i]) == len && memcmp(speed_names[i], s, len) == 0)
            return (enum cs_link_speed)i;
    return CS_SPEED_UNKNOWN;
}

static int index_unique(struct cs_key_index *ix, const char *what, struct cs_error *err)
{
    cs_key_index_sort(ix);
    uint64_t guid;
    uint32_t first, second;
    if (cs_key_index_duplicate(ix, &guid, &first, &second)) {
        cs_key_index_free(ix);
        return cs_fail(err, "duplicate %s GUID 0x%016" PRIx64, what, guid);
    }
    return 0;
}

int cs_key_index_nodes(struct cs_key_index *ix, const struct cs_fabric *f, struct cs_error *err)
{
    cs_key_index_init(ix);
    if (cs_key_index_reserve(ix, f->num_nodes, err) < 0)
        return -1;
    for (uint32_t i = 0; i < f->num_nodes; i++)
        cs_key_index_add(ix, f->nodes[i].guid, i, err);
    return index_unique(ix, "node", err);
}

int cs_key_index_ports(struct cs_key_index *ix, const struct cs_fabric *f, struct cs_error *err)
{
    cs_key_index_init(ix);
    if (cs_key_index_reserve(ix, f->num_port_slots, err) < 0)
        return -1;
    for (uint32_t i = 0; i < f->num_port_slots; i++)
        if (f->ports[i].guid)
            cs_key_index_add(ix, f->ports[i].guid, i, err);
    return index_unique(ix, "port", err);
}

double cs_link_lane_bytes_per_s(enum cs_link_speed speed)
{
    /* Signalling rate per lane in Gb/s times the encoding's payload share, over 8 bits. */
    switch (speed) {
    case CS_SPEED_SDR:
        return 2.5e9 * 0.8 / 8;
    case CS_SPEED_DDR:
        return 5e9 * 0.8 / 8;
    case CS_SPEED_QDR:
        return 10e9 * 0.8 / 8;
    case CS_SPEED_FDR10:
        return 10.3125e9 * 64 / 66 / 8;
    case CS_SPEED_FDR:
        return 14.0625e9 * 64 / 66 / 8;
    case CS_SPEED_EDR:
        return 25.78125e9 * 64 / 66 / 8;
    case CS_SPEED_HDR:
        return 53.125e9 * 64 / 66 / 8; /* PAM4, 50 Gb/s of data per lane */
    case CS_SPEED_NDR:
        return 106.25e9 * 64 / 66 / 8;
    case CS_SPEED_XDR:
        return 212.5e9 * 64 / 66 / 8;
    default:
        return 0;
    }
}

double cs_port_bytes_per_s(const struct cs_fabric *f, uint32_t port)
{
    const struct cs_port *p = &f->ports[port];
    return p->width * cs_link_lane_bytes_per_s((enum cs_link_speed)p->speed);
}
