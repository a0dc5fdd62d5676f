/* The fabric model: nodes and ports in flat arrays addressed by index.
 *
 * Every node owns num_ports + 1 consecutive slots in the port array, one for each port number
 * 0..num_ports, so that "port p of node n" is ports[nodes[n].first_port + p] without a search.
 * Slot 0 is the switch management port (it holds the switch's port GUID and LID); on CAs and
 * routers slot 0 exists but is unused. Links are stored on both ends as the peer's port index.
 *
 * There are no pointers inside nodes or ports, so a fabric can be copied with cs_fabric_copy,
 * compared with cs_fabric_equal and written to disk without fix-ups.
 */
#ifndef CLOUDSM_FABRIC_H
#define CLOUDSM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/key_index.h"

/* "No index": an unconnected port's peer, a lookup that found nothing. */
#define CS_NONE UINT32_MAX

/* NodeDescription is 64 bytes on the wire (IBA 14.2.5.2). */
#define CS_DESC_MAX 64

/* Port numbers are 8 bit and 255 means "no route" in an LFT, so a node has at most 254 ports. */
#define CS_MAX_PORTS 254

/* Values of NodeInfo:NodeType. */
enum cs_node_type {
    CS_NODE_CA = 1,
    CS_NODE_SWITCH = 2,
    CS_NODE_ROUTER = 3,
};

/* Link speed of a port as ibnetdiscover names it ("4xQDR" is width 4, CS_SPEED_QDR). */
enum cs_link_speed {
    CS_SPEED_UNKNOWN = 0,
    CS_SPEED_SDR,
    CS_SPEED_DDR,
    CS_SPEED_QDR,
    CS_SPEED_FDR10,
    CS_SPEED_FDR,
    CS_SPEED_EDR,
    CS_SPEED_HDR,
    CS_SPEED_NDR,
    CS_SPEED_XDR,
};

struct cs_port {
    uint64_t guid; /* port GUID: CA/router ports, and switch port 0; 0 on switch external ports */
    uint32_t node; /* owning node */
    uint32_t peer; /* port index at the other end of the cable, CS_NONE if unconnected */
    uint16_t lid;  /* base LID, 0 = not assigned */
    uint8_t num;   /* port number on its node */
    uint8_t lmc;   /* LID mask control: the port answers 2^lmc LIDs from lid */
    uint8_t width; /* active lanes: 1, 2, 4, 8, 12; 0 = unknown */
    uint8_t speed; /* enum cs_link_speed */
};

struct cs_node {
    uint64_t guid;
    uint64_t sysimg_guid;
    uint32_t first_port; /* index of this node's port 0 slot in the port array */
    uint32_t vendor_id;
    uint32_t device_id;
    uint8_t type;        /* enum cs_node_type */
    uint8_t num_ports;   /* NodeInfo:NumPorts, external ports 1..num_ports */
    bool enhanced_port0; /* switch port 0 is an enhanced port (ibnetdiscover "enhanced port 0") */
    char desc[CS_DESC_MAX + 1];
};

struct cs_fabric {
    struct cs_node *nodes;
    struct cs_port *ports;
    uint32_t num_nodes;
    uint32_t num_port_slots; /* used entries of ports[], including the port 0 slots */
    uint32_t node_capacity;
    uint32_t port_capacity;
};

void cs_fabric_init(struct cs_fabric *f);
void cs_fabric_free(struct cs_fabric *f);

/* Reserve room for more nodes and port slots so that a builder that knows the size does not
 * reallocate (generators use this). */
int cs_fabric_reserve(struct cs_fabric *f, uint32_t nodes, uint32_t port_slots,
                      struct cs_error *err);

/* Add a node with num_ports external ports. Port GUIDs follow ibsim's rule (switch port 0 =
 * node GUID; CA/router port p = node GUID + p) and can be overwritten afterwards. The system
 * image GUID starts equal to the node GUID. desc is truncated to CS_DESC_MAX bytes. Returns the
 * new node's index, or CS_NONE with err set. */
uint32_t cs_fabric_add_node(struct cs_fabric *f, enum cs_node_type type, uint64_t guid,
                            unsigned num_ports, const char *desc, struct cs_error *err);

/* Port index of port `num` of `node`, or CS_NONE if the node has no such port. */
static inline uint32_t cs_fabric_port(const struct cs_fabric *f, uint32_t node, unsigned num)
{
    if (node >= f->num_nodes || num > f->nodes[node].num_ports)
        return CS_NONE;
    return f->nodes[node].first_port + num;
}

/* Cable two ports. Both must exist, be unconnected, be distinct, and neither may be a switch
 * port 0. */
int cs_fabric_connect(struct cs_fabric *f, uint32_t port_a, uint32_t port_b, struct cs_error *err);

/* Set width/speed on both ends of the link at `port`. */
void cs_fabric_set_link_rate(struct cs_fabric *f, uint32_t port, uint8_t width,
                             enum cs_link_speed speed);

/* Deep copy: dst is initialised and owns its own arrays. */
int cs_fabric_copy(struct cs_fabric *dst, const struct cs_fabric *src, struct cs_error *err);

/* True if both fabrics have the same nodes and ports, in the same order, with the same fields.
 * When they differ and why is not NULL, one line saying where is written there. */
bool cs_fabric_equal(const struct cs_fabric *a, const struct cs_fabric *b, struct cs_error *why);

/* Ports of a node that need a LID: switch port 0; every connected CA/router port. */
bool cs_port_needs_lid(const struct cs_fabric *f, uint32_t port);

static inline bool cs_node_is_switch(const struct cs_node *n)
{
    return n->type == CS_NODE_SWITCH;
}

/* "Switch", "Channel Adapter" or "Router", as OpenSM and ibroute print node types ("UNKNOWN"
 * for anything else, as OpenSM does). */
const char *cs_node_type_long_name(enum cs_node_type type);
/* The reverse; 0 if the text names no node type. */
enum cs_node_type cs_node_type_parse_long_name(const char *s, size_t len);

/* "SDR", "QDR", "FDR10", ...; "" for unknown. */
const char *cs_link_speed_name(enum cs_link_speed speed);
/* Parse a speed name (as written by cs_link_speed_name); CS_SPEED_UNKNOWN if not recognised. */
enum cs_link_speed cs_link_speed_parse(const char *s, size_t len);
/* Data rate of one lane at speed, bytes per second after line encoding (8b/10b up to QDR,
 * 64b/66b from FDR10); 0 for an unknown speed. */
double cs_link_lane_bytes_per_s(enum cs_link_speed speed);
/* Data rate of the link at port index `port` (width x lane rate), bytes per second; 0 when its
 * width or speed is unknown. */
double cs_port_bytes_per_s(const struct cs_fabric *f, uint32_t port);

/* GUID indexes of a fabric (see key_index.h): node GUID -> node index, port GUID -> port index
 * (every port that has a GUID). Both fail on a duplicate GUID, naming it. */
int cs_key_index_nodes(struct cs_key_index *ix, const struct cs_fabric *f, struct cs_error *err);
int cs_key_index_ports(struct cs_key_index *ix, const struct cs_fabric *f, struct cs_error *err);

#endif
