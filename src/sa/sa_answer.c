/* SA requests to responses (include/cloudsm/sa.h): the MAD checks, the response framing, the
 * dispatch by attribute, and the NodeRecord, PortInfoRecord, LinkRecord, GUIDInfoRecord and
 * ClassPortInfo answers (PathRecord: sa_path.c; the switches' and ports' tables: sa_tables.c;
 * ServiceRecord: sa_service.c; MCMemberRecord: sa_mcast.c; InformInfo: sa_inform.c;
 * SMInfoRecord: sa_sm_info.c). A new record
 * is a case in record_size and one in the dispatch. Records are encoded into a scratch buffer,
 * compared with the request under its component mask, and copied into the response in place. */
#include <string.h>

#include "cloudsm/informs.h"
#include "sa/sa_internal.h"

/* ---- Emitting and matching ---- */

void sa_emit(struct sa_emit *e, const uint8_t *record)
{
    if (e->overflow)
        return;
    if (e->get && e->count >= 1) {
        e->count++; /* a Get keeps only the first: the rest only decide "too many" */
        return;
    }
    size_t at = (size_t)e->count * e->stride;
    if (at + e->stride > e->room) {
        e->overflow = true;
        return;
    }
    memcpy(e->base + at, record, e->size);
    memset(e->base + at + e->size, 0, e->stride - e->size);
    e->count++;
}

bool sa_components_match(const struct sa_component *table, size_t count, uint64_t mask,
                         const uint8_t *request, const uint8_t *candidate)
{
    for (size_t i = 0; i < count; i++) {
        const struct sa_component *c = &table[i];
        if (!(mask & (UINT64_C(1) << c->bit)))
            continue;
        if (c->bit_offset % 8 == 0 && c->bit_count % 8 == 0) {
            if (memcmp(request + c->bit_offset / 8, candidate + c->bit_offset / 8,
                       c->bit_count / 8) != 0)
                return false;
        } else if (cs_bits_get(request, c->bit_offset, c->bit_count) !=
                   cs_bits_get(candidate, c->bit_offset, c->bit_count)) {
            return false;
        }
    }
    return true;
}

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))
#define BIT(n) (UINT64_C(1) << (n))

/* Component mask bits with a rule of their own (LID ranges, descriptions, bitwise masks). */
enum {
    NR_LID = 0,
    NR_NODE_GUID = 7,
    NR_PORT_GUID = 8,
    NR_NODE_DESCRIPTION = 14,
    PIR_LID = 0,
    PIR_PORT_NUM = 1,
    PIR_CAPABILITY_MASK = 7,
    LR_FROM_LID = 0,
    LR_FROM_PORT = 1,
    LR_TO_PORT = 2,
    LR_TO_LID = 3,
    GIR_LID = 0,
    GIR_BLOCK = 1,
};

/* NodeRecord (IBA Table 191 with NodeInfo Table 148 at bit 32); LID and NodeDescription apart. */
static const struct sa_component node_record_components[] = {
    {2, 32, 8},   {3, 40, 8},   {4, 48, 8},    {5, 56, 8},    {6, 64, 64},  {7, 128, 64},
    {8, 192, 64}, {9, 256, 16}, {10, 272, 16}, {11, 288, 32}, {12, 320, 8}, {13, 328, 24},
};

/* PortInfoRecord (IBA Table 192 with PortInfo Table 151 at bit 32); LID apart. Reserved
 * components (19, 46, 51, 56) have no row. */
static const struct sa_component port_info_record_components[] = {
    {1, 16, 8},         {2, 24, 8},         {3, 32 + 0, 64},    {4, 32 + 64, 64},
    {5, 32 + 128, 16},  {6, 32 + 144, 16},  {7, 32 + 160, 32},  {8, 32 + 192, 16},
    {9, 32 + 208, 16},  {10, 32 + 224, 8},  {11, 32 + 232, 8},  {12, 32 + 240, 8},
    {13, 32 + 248, 8},  {14, 32 + 256, 4},  {15, 32 + 260, 4},  {16, 32 + 264, 4},
    {17, 32 + 268, 4},  {18, 32 + 272, 2},  {20, 32 + 277, 3},  {21, 32 + 280, 4},
    {22, 32 + 284, 4},  {23, 32 + 288, 4},  {24, 32 + 292, 4},  {25, 32 + 296, 4},
    {26, 32 + 300, 4},  {27, 32 + 304, 8},  {28, 32 + 312, 8},  {29, 32 + 320, 8},
    {30, 32 + 328, 4},  {31, 32 + 332, 4},  {32, 32 + 336, 3},  {33, 32 + 339, 5},
    {34, 32 + 344, 4},  {35, 32 + 348, 1},  {36, 32 + 349, 1},  {37, 32 + 350, 1},
    {38, 32 + 351, 1},  {39, 32 + 352, 16}, {40, 32 + 368, 16}, {41, 32 + 384, 16},
    {42, 32 + 400, 8},  {43, 32 + 408, 1},  {44, 32 + 409, 2},  {45, 32 + 411, 5},
    {47, 32 + 419, 5},  {48, 32 + 424, 4},  {49, 32 + 428, 4},  {50, 32 + 432, 16},
    {52, 32 + 456, 24}, {53, 32 + 480, 16}, {54, 32 + 496, 4},  {55, 32 + 500, 4},
    {57, 32 + 507, 5},
};

/* LinkRecord (IBA Table 201); the LIDs apart. */
static const struct sa_component link_record_components[] = {
    {LR_FROM_PORT, 16, 8},
    {LR_TO_PORT, 24, 8},
};

/* GUIDInfoRecord (IBA Table 207); LID apart. */
static const struct sa_component guid_info_record_components[] = {
    {1, 16, 8},   {4, 64, 64},  {5, 128, 64},  {6, 192, 64},  {7, 256, 64},
    {8, 320, 64}, {9, 384, 64}, {10, 448, 64}, {11, 512, 64},
};

/* ---- NodeRecord ---- */

static void node_record_of(const struct cs_sa_db *db, uint32_t node, uint32_t port,
                           struct cs_sa_node_record *r)
{
    const struct cs_node *n = &db->fabric->nodes[node];
    const struct cs_port *p = &db->fabric->ports[port];
    memset(r, 0, sizeof *r);
    r->lid = sa_port_base_lid(db, port);
    if (db->node_info) {
        r->node_info = db->node_info[node];
    } else {
        r->node_info = (struct cs_smp_node_info){
            .base_version = CS_SMP_BASE_VERSION,
            .class_version = CS_SMP_CLASS_VERSION,
            .node_type = n->type,
            .num_ports = n->num_ports,
            .system_image_guid = n->sysimg_guid,
            .node_guid = n->guid,
            .device_id = (uint16_t)n->device_id,
            .vendor_id = n->vendor_id,
        };
    }
    /* The record is about its port, whichever port the sweep first arrived through: a switch's
     * records describe port 0 (OpenSM answers LocalPortNum 0 for them). */
    r->node_info.local_port_num = cs_node_is_switch(n) ? 0 : p->num;
    r->node_info.port_guid = p->guid;
    memcpy(r->node_description.text, n->desc, sizeof r->node_description.text);
}

/* OpenSM compares descriptions with strncmp: up to the first NUL. */
static bool same_description(const uint8_t *a, const uint8_t *b)
{
    for (size_t i = 0; i < CS_SMP_DATA_SIZE; i++) {
        if (a[i] != b[i])
            return false;
        if (a[i] == 0)
            return true;
    }
    return true;
}

/* A switch answers for its port 0 only, a CA for each of its ports. */
static void node_records_of_node(struct sa_query *q, uint32_t node)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_node *n = &db->fabric->nodes[node];
    unsigned first = cs_node_is_switch(n) ? 0 : 1, last = cs_node_is_switch(n) ? 0 : n->num_ports;
    for (unsigned num = first; num <= last && !sa_emit_done(q->emit); num++) {
        uint32_t port = n->first_port + num;
        if (!sa_port_present(db, port) || !sa_requester_sees(q, port))
            continue;
        if ((q->mask & BIT(NR_LID)) &&
            !sa_lid_in_range(cs_bits_get(q->record, 0, 16), sa_port_base_lid(db, port),
                             sa_port_lmc(db, port)))
            continue;
        struct cs_sa_node_record r;
        uint8_t encoded[CS_SA_NODE_RECORD_SIZE];
        node_record_of(db, node, port, &r);
        cs_sa_node_record_encode(&r, encoded);
        if (!sa_components_match(node_record_components, COUNT(node_record_components), q->mask,
                                 q->record, encoded))
            continue;
        if ((q->mask & BIT(NR_NODE_DESCRIPTION)) && !same_description(q->record + 44, encoded + 44))
            continue;
        sa_emit(q->emit, encoded);
    }
}

static void node_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    /* A LID or a GUID names one node: no need to look at the others. */
    uint32_t only = CS_NONE;
    if (q->mask & BIT(NR_LID)) {
        uint32_t owner = cs_tracer_owner(&db->tracer, (uint32_t)cs_bits_get(q->record, 0, 16));
        if (owner == CS_NONE)
            return;
        only = db->fabric->ports[owner].node;
    } else if (q->mask & BIT(NR_PORT_GUID)) {
        uint32_t port = cs_key_index_find(&db->end_port_by_guid, cs_bits_get(q->record, 192, 64));
        if (port == CS_NONE)
            return;
        only = db->fabric->ports[port].node;
    } else if (q->mask & BIT(NR_NODE_GUID)) {
        only = cs_key_index_find(&db->node_by_guid, cs_bits_get(q->record, 128, 64));
        if (only == CS_NONE)
            return;
    }
    if (only != CS_NONE) {
        node_records_of_node(q, only);
        return;
    }
    for (uint32_t i = 0; i < db->fabric->num_nodes && !sa_emit_done(q->emit); i++)
        node_records_of_node(q, db->node_order[i]);
}

/* ---- PortInfoRecord ---- */

static void port_info_records_of_node(struct sa_query *q, uint32_t node)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_node *n = &db->fabric->nodes[node];
    unsigned first = 0, last = n->num_ports;
    if (q->mask & BIT(PIR_PORT_NUM)) {
        first = last = q->record[2];
        if (first > n->num_ports)
            return;
    }
    uint64_t mask = q->mask;
    bool bitwise_caps = (q->attr_mod & 0x80000000u) && (mask & BIT(PIR_CAPABILITY_MASK));
    if (bitwise_caps)
        mask &= ~BIT(PIR_CAPABILITY_MASK);
    uint32_t want_caps = (uint32_t)cs_bits_get(q->record, 32 + 160, 32);
    for (unsigned num = first; num <= last && !sa_emit_done(q->emit); num++) {
        uint32_t port = n->first_port + num;
        if (!sa_port_present(db, port) || !db->sweep->port_info_valid[port] ||
            !sa_requester_sees(q, port))
            continue;
        struct cs_sa_port_info_record r = {
            .lid = sa_port_base_lid(db, port),
            .port_num = (uint8_t)num,
            .port_info = db->sweep->port_info[port],
        };
        /* IBA 15.2.5.3: the M_Key is shown only to a trusted requester. */
        if (!q->trusted)
            r.port_info.m_key = 0;
        if ((q->mask & BIT(PIR_LID)) &&
            !sa_lid_in_range(cs_bits_get(q->record, 0, 16), r.lid, sa_port_lmc(db, port)))
            continue;
        uint8_t encoded[CS_SA_PORT_INFO_RECORD_SIZE];
        cs_sa_port_info_record_encode(&r, encoded);
        if (!sa_components_match(port_info_record_components, COUNT(port_info_record_components),
                                 mask, q->record, encoded))
            continue;
        /* IBA 1.2 erratum: with bit 31 of the modifier, CapabilityMask matches when every bit
         * asked for is set. */
        if (bitwise_caps && (r.port_info.capability_mask & want_caps) != want_caps)
            continue;
        sa_emit(q->emit, encoded);
    }
}

static void port_info_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    if (q->mask & BIT(PIR_LID)) {
        uint32_t owner = cs_tracer_owner(&db->tracer, (uint32_t)cs_bits_get(q->record, 0, 16));
        if (owner != CS_NONE)
            port_info_records_of_node(q, db->fabric->ports[owner].node);
        return;
    }
    for (uint32_t i = 0; i < db->fabric->num_nodes && !sa_emit_done(q->emit); i++)
        port_info_records_of_node(q, db->node_order[i]);
}

/* ---- LinkRecord ---- */

static void link_record(struct sa_query *q, uint32_t from, uint32_t to)
{
    const struct cs_sa_db *db = q->db;
    if (from == CS_NONE || to == CS_NONE || !sa_port_present(db, from) || !sa_port_present(db, to))
        return;
    /* OpenSM: both ends and the requester must share partitions pairwise. */
    if (!sa_share_pkey(db, from, to) || !sa_requester_sees(q, from) || !sa_requester_sees(q, to))
        return;
    struct cs_sa_link_record r = {
        .from_lid = sa_port_base_lid(db, from),
        .from_port = db->fabric->ports[from].num,
        .to_port = db->fabric->ports[to].num,
        .to_lid = sa_port_base_lid(db, to),
    };
    if ((q->mask & BIT(LR_FROM_LID)) &&
        !sa_lid_in_range(cs_bits_get(q->record, 0, 16), r.from_lid, sa_port_lmc(db, from)))
        return;
    if ((q->mask & BIT(LR_TO_LID)) &&
        !sa_lid_in_range(cs_bits_get(q->record, 32, 16), r.to_lid, sa_port_lmc(db, to)))
        return;
    uint8_t encoded[CS_SA_LINK_RECORD_SIZE];
    cs_sa_link_record_encode(&r, encoded);
    if (sa_components_match(link_record_components, COUNT(link_record_components), q->mask,
                            q->record, encoded))
        sa_emit(q->emit, encoded);
}

static uint32_t lid_node(const struct cs_sa_db *db, uint32_t lid)
{
    uint32_t owner = cs_tracer_owner(&db->tracer, lid);
    return owner == CS_NONE ? CS_NONE : db->fabric->ports[owner].node;
}

/* The links leaving node `from` (to node `to` only, unless CS_NONE), by port. */
static void links_from_node(struct sa_query *q, uint32_t from, uint32_t to)
{
    const struct cs_fabric *f = q->db->fabric;
    const struct cs_node *n = &f->nodes[from];
    for (unsigned num = 1; num <= n->num_ports && !sa_emit_done(q->emit); num++) {
        uint32_t port = n->first_port + num, peer = f->ports[port].peer;
        if (peer == CS_NONE || (to != CS_NONE && f->ports[peer].node != to))
            continue;
        link_record(q, port, peer);
    }
}

static void link_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_fabric *f = db->fabric;
    uint32_t from = CS_NONE, to = CS_NONE;
    if (q->mask & BIT(LR_FROM_LID)) {
        from = lid_node(db, (uint32_t)cs_bits_get(q->record, 0, 16));
        if (from == CS_NONE)
            return;
    }
    if (q->mask & BIT(LR_TO_LID)) {
        to = lid_node(db, (uint32_t)cs_bits_get(q->record, 32, 16));
        if (to == CS_NONE)
            return;
    }
    if (from != CS_NONE) {
        links_from_node(q, from, to);
    } else if (to != CS_NONE) {
        /* Only the destination is known: its ports in order, each with the port facing it. */
        const struct cs_node *n = &f->nodes[to];
        for (unsigned num = 1; num <= n->num_ports && !sa_emit_done(q->emit); num++) {
            uint32_t port = n->first_port + num;
            link_record(q, f->ports[port].peer, port);
        }
    } else {
        for (uint32_t i = 0; i < f->num_nodes && !sa_emit_done(q->emit); i++)
            links_from_node(q, db->node_order[i], CS_NONE);
    }
}

/* ---- GUIDInfoRecord ---- */

/* Blocks of 8 GUIDs a port has (PortInfo:GUIDCap); OpenSM skips ports with none. The port GUID
 * is entry 0 of block 0, the other entries its alias GUIDs (sa_guid_block). */
static void guid_info_records_of_node(struct sa_query *q, uint32_t node)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_node *n = &db->fabric->nodes[node];
    unsigned first = cs_node_is_switch(n) ? 0 : 1, last = cs_node_is_switch(n) ? 0 : n->num_ports;
    for (unsigned num = first; num <= last && !sa_emit_done(q->emit); num++) {
        uint32_t port = n->first_port + num;
        if (!sa_port_present(db, port) || !db->sweep->port_info_valid[port] ||
            !sa_requester_sees(q, port))
            continue;
        unsigned blocks = (db->sweep->port_info[port].guid_cap + 7u) / 8u;
        struct cs_sa_guid_info_record r = {.lid = sa_port_base_lid(db, port)};
        if ((q->mask & BIT(GIR_LID)) &&
            !sa_lid_in_range(cs_bits_get(q->record, 0, 16), r.lid, sa_port_lmc(db, port)))
            continue;
        for (unsigned block = 0; block < blocks && !sa_emit_done(q->emit); block++) {
            if ((q->mask & BIT(GIR_BLOCK)) && q->record[2] != block)
                continue;
            r.block = (uint8_t)block;
            sa_guid_block(db, port, block, r.guids.guid);
            uint8_t encoded[CS_SA_GUID_INFO_RECORD_SIZE];
            cs_sa_guid_info_record_encode(&r, encoded);
            if (sa_components_match(guid_info_record_components, COUNT(guid_info_record_components),
                                    q->mask, q->record, encoded))
                sa_emit(q->emit, encoded);
        }
    }
}

static void guid_info_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    if (q->mask & BIT(GIR_LID)) {
        uint32_t node = lid_node(db, (uint32_t)cs_bits_get(q->record, 0, 16));
        if (node != CS_NONE)
            guid_info_records_of_node(q, node);
        return;
    }
    for (uint32_t i = 0; i < db->fabric->num_nodes && !sa_emit_done(q->emit); i++)
        guid_info_records_of_node(q, db->node_order[i]);
}

/* ---- ClassPortInfo (IBA 13.4.8.1) ---- */

/* What OpenSM 3.3.23 answers, less the capabilities cloudsm lacks (multipath, PortInfo
 * CapabilityMask matching as OpenSM defines it, and the CapabilityMask2 bits): of the optional
 * capabilities IsSubnGetSetNoticeSupported when the SA has a subscription store (Set(InformInfo),
 * Reports) and IsAdditionalGUIDsSupported when it has an alias GUID store; RespTimeValue 16; the
 * redirect and trap fields name QP1 with its well-known Q_Key. */
#define CLASS_PORT_INFO_SIZE 72
#define SA_RESP_TIME_VALUE 16
#define QP1_QKEY 0x80010000u
#define CAP2_ADDITIONAL_GUIDS (1u << 5) /* IsAdditionalGUIDsSupported (IBA RefID 4705) */
#define CAP_GET_SET_NOTICE (1u << 1)    /* IsSubnGetSetNoticeSupported */
static void class_port_info(const struct cs_sa_db *db, uint8_t data[CLASS_PORT_INFO_SIZE])
{
    memset(data, 0, CLASS_PORT_INFO_SIZE);
    data[0] = CS_SA_BASE_VERSION;
    data[1] = CS_SA_CLASS_VERSION;
    cs_bits_set(data, 16, 16, db->opt.informs ? CAP_GET_SET_NOTICE : 0);
    /* CapabilityMask2 (27 bits), then RespTimeValue (5 bits). */
    uint32_t cap2 = db->opt.aliases ? CAP2_ADDITIONAL_GUIDS : 0;
    cs_bits_set(data, 32, 27, cap2);
    cs_bits_set(data, 59, 5, SA_RESP_TIME_VALUE);
    cs_bits_set(data, 256, 32, 1);        /* RedirectQP */
    cs_bits_set(data, 288, 32, QP1_QKEY); /* RedirectQ_Key */
    cs_bits_set(data, 544, 32, QP1_QKEY); /* TrapQ_Key */
}

/* ---- Framing ---- */

/* An error reply as OpenSM makes one: the request's bytes with the status, the response method
 * (a Set answers as GetResp), SM_Key 0, and AttributeOffset 0 on a GetTable. */
static size_t error_reply(const uint8_t request[CS_SA_MAD_SIZE], uint16_t status, uint8_t *resp)
{
    struct cs_sa_header h;
    memcpy(resp, request, CS_SA_MAD_SIZE);
    cs_sa_header_decode(request, &h);
    h.status = status;
    if (h.method == CS_SA_METHOD_SET)
        h.method = CS_SA_METHOD_GET;
    else if (h.method == CS_SA_METHOD_GET_TABLE)
        h.attr_offset = 0;
    h.method |= CS_SA_METHOD_RESPONSE;
    h.sm_key = 0;
    cs_sa_header_encode(&h, resp);
    return CS_SA_MAD_SIZE;
}

static size_t record_size(uint16_t attr_id);

/* SubnAdmSet / SubnAdmDelete of a GUIDInfoRecord, an MCMemberRecord or a ServiceRecord: one
 * record back, as a GetResp (a Set) or a DeleteResp, or an error. */
static int change_reply(const struct cs_sa_db *db, uint32_t requester,
                        const struct cs_sa_address *from, const struct cs_sa_header *h,
                        uint8_t request[CS_SA_MAD_SIZE], uint8_t *resp, size_t *resp_len)
{
    bool silent = false;
    uint8_t *record = request + CS_SA_HEADER_SIZE;
    uint16_t status;
    switch (h->attr_id) {
    case CS_SA_ATTR_MCMEMBER_RECORD:
        status = sa_mcmember_change(db, requester, h, record, &silent);
        break;
    case CS_SA_ATTR_SERVICE_RECORD:
        status = sa_service_change(db, requester, h, record);
        break;
    case CS_SA_ATTR_INFORM_INFO:
        status = sa_inform_info_set(db, requester, from, record);
        break;
    default:
        status = sa_guid_info_change(db, requester, h, record, &silent);
        break;
    }
    size_t size = record_size(h->attr_id);
    if (silent)
        return 0;
    if (status != 0) {
        *resp_len = error_reply(request, status, resp);
        return 1;
    }
    struct cs_sa_header out = *h;
    out.method = h->method == CS_SA_METHOD_SET ? CS_SA_METHOD_GET_RESP : CS_SA_METHOD_DELETE_RESP;
    out.status = 0;
    out.sm_key = 0;
    out.rmpp_version = out.rmpp_type = out.rmpp_resp_time = out.rmpp_flags = out.rmpp_status = 0;
    out.rmpp_segment = out.rmpp_payload_length = 0;
    out.attr_offset = (uint16_t)(cs_sa_record_stride(size) / 8);
    memset(resp, 0, CS_SA_MAD_SIZE);
    cs_sa_header_encode(&out, resp);
    memcpy(resp + CS_SA_HEADER_SIZE, record, size);
    *resp_len = CS_SA_MAD_SIZE;
    return 1;
}

static bool unanswered_method(uint8_t method)
{
    return (method & CS_SA_METHOD_RESPONSE) || method == CS_SA_METHOD_SEND ||
           method == CS_SA_METHOD_TRAP || method == CS_SA_METHOD_TRAP_REPRESS;
}

static size_t record_size(uint16_t attr_id)
{
    switch (attr_id) {
    case CS_SA_ATTR_NODE_RECORD:
        return CS_SA_NODE_RECORD_SIZE;
    case CS_SA_ATTR_PORT_INFO_RECORD:
        return CS_SA_PORT_INFO_RECORD_SIZE;
    case CS_SA_ATTR_LINK_RECORD:
        return CS_SA_LINK_RECORD_SIZE;
    case CS_SA_ATTR_GUID_INFO_RECORD:
        return CS_SA_GUID_INFO_RECORD_SIZE;
    case CS_SA_ATTR_PATH_RECORD:
        return CS_SA_PATH_RECORD_SIZE;
    case CS_SA_ATTR_SWITCH_INFO_RECORD:
        return CS_SA_SWITCH_INFO_RECORD_SIZE;
    case CS_SA_ATTR_LFT_RECORD:
        return CS_SA_LFT_RECORD_SIZE;
    case CS_SA_ATTR_SL2VL_TABLE_RECORD:
        return CS_SA_SL2VL_RECORD_SIZE;
    case CS_SA_ATTR_PKEY_TABLE_RECORD:
        return CS_SA_PKEY_TABLE_RECORD_SIZE;
    case CS_SA_ATTR_VL_ARB_TABLE_RECORD:
        return CS_SA_VL_ARB_RECORD_SIZE;
    case CS_SA_ATTR_SERVICE_RECORD:
        return CS_SA_SERVICE_RECORD_SIZE;
    case CS_SA_ATTR_MCMEMBER_RECORD:
        return CS_SA_MCMEMBER_RECORD_SIZE;
    case CS_SA_ATTR_MFT_RECORD:
        return CS_SA_MFT_RECORD_SIZE;
    case CS_SA_ATTR_INFORM_INFO:
        return CS_INFORM_INFO_SIZE;
    case CS_SA_ATTR_INFORM_INFO_RECORD:
        return CS_SA_INFORM_INFO_RECORD_SIZE;
    case CS_SA_ATTR_SM_INFO_RECORD:
        return CS_SA_SM_INFO_RECORD_SIZE;
    default:
        return 0;
    }
}

int cs_sa_answer(const struct cs_sa_db *db, uint16_t requester_lid, const uint8_t *req,
                 size_t req_len, uint8_t *resp, size_t resp_cap, size_t *resp_len)
{
    struct cs_sa_address from = {.lid = requester_lid, .qpn = 1};
    return cs_sa_answer_from(db, &from, req, req_len, resp, resp_cap, resp_len);
}

int cs_sa_answer_from(const struct cs_sa_db *db, const struct cs_sa_address *from,
                      const uint8_t *req, size_t req_len, uint8_t *resp, size_t resp_cap,
                      size_t *resp_len)
{
    static const struct cs_sa_address local;
    if (from == NULL)
        from = &local;
    uint16_t requester_lid = from->lid;
    *resp_len = 0;
    if (!db || !req || !resp || req_len < 24 || resp_cap < CS_SA_MAD_SIZE)
        return 0;
    uint8_t request[CS_SA_MAD_SIZE] = {0};
    memcpy(request, req, req_len < CS_SA_MAD_SIZE ? req_len : CS_SA_MAD_SIZE);
    struct cs_sa_header h;
    cs_sa_header_decode(request, &h);
    if (h.mgmt_class != CS_SA_CLASS || unanswered_method(h.method))
        return 0;
    if (h.base_version != CS_SA_BASE_VERSION || h.class_version != CS_SA_CLASS_VERSION) {
        *resp_len = error_reply(request, CS_SMP_STATUS_BAD_VERSION, resp);
        return 1;
    }
    if (req_len < CS_SA_HEADER_SIZE) {
        *resp_len = error_reply(request, CS_SMP_STATUS_INVALID_FIELD, resp);
        return 1;
    }
    /* C15-0.1.5: a wrong SM_Key is discarded, not answered. */
    if (h.sm_key != 0 && h.sm_key != db->opt.sm_key)
        return 0;
    bool changes_store = (db->opt.aliases && h.attr_id == CS_SA_ATTR_GUID_INFO_RECORD) ||
                         (db->opt.mcast && h.attr_id == CS_SA_ATTR_MCMEMBER_RECORD) ||
                         (db->opt.services && h.attr_id == CS_SA_ATTR_SERVICE_RECORD);
    bool change =
        changes_store && (h.method == CS_SA_METHOD_SET || h.method == CS_SA_METHOD_DELETE);
    /* InformInfo is only ever Set; OpenSM answers any other method as an unknown attribute. */
    if (h.attr_id == CS_SA_ATTR_INFORM_INFO) {
        if (db->opt.informs == NULL || h.method != CS_SA_METHOD_SET) {
            *resp_len = error_reply(request, CS_SMP_STATUS_ATTR_UNSUPPORTED, resp);
            return 1;
        }
        change = true;
    }
    if (h.method != CS_SA_METHOD_GET && h.method != CS_SA_METHOD_GET_TABLE && !change) {
        *resp_len = error_reply(request, CS_SMP_STATUS_METHOD_UNSUPPORTED, resp);
        return 1;
    }
    /* Like OpenSM, a Set or Delete that lacks the LID or the block is refused before the
     * requester is looked at (IBA RefID 4704). */
    if (change && h.attr_id == CS_SA_ATTR_GUID_INFO_RECORD &&
        (h.component_mask & (CS_SA_GIR_LID | CS_SA_GIR_BLOCK)) !=
            (CS_SA_GIR_LID | CS_SA_GIR_BLOCK)) {
        *resp_len = error_reply(request, CS_SA_STATUS_INSUFFICIENT_COMPONENTS, resp);
        return 1;
    }
    bool get = h.method == CS_SA_METHOD_GET;
    size_t size = record_size(h.attr_id);
    if ((h.attr_id == CS_SA_ATTR_MCMEMBER_RECORD && db->opt.mcast == NULL) ||
        (h.attr_id == CS_SA_ATTR_MFT_RECORD && db->opt.mfts == NULL) ||
        (h.attr_id == CS_SA_ATTR_INFORM_INFO_RECORD && db->opt.informs == NULL) ||
        (h.attr_id == CS_SA_ATTR_SM_INFO_RECORD && db->opt.sm == NULL))
        size = 0;
    if (size == 0 && !(h.attr_id == CS_SA_ATTR_CLASS_PORT_INFO && get)) {
        *resp_len = error_reply(request, CS_SMP_STATUS_ATTR_UNSUPPORTED, resp);
        return 1;
    }
    /* Like OpenSM: no answer for a requester that is not in the subnet. */
    uint32_t requester = CS_NONE;
    if (requester_lid != 0) {
        requester = cs_tracer_owner(&db->tracer, requester_lid);
        if (requester == CS_NONE)
            return 0;
    }

    struct cs_sa_header out = h;
    out.status = 0;
    out.sm_key = 0;
    out.rmpp_version = out.rmpp_type = out.rmpp_resp_time = out.rmpp_flags = out.rmpp_status = 0;
    out.rmpp_segment = out.rmpp_payload_length = 0;
    if (size == 0) { /* ClassPortInfo */
        memset(resp, 0, CS_SA_MAD_SIZE);
        out.method = CS_SA_METHOD_GET_RESP;
        out.attr_offset = 0;
        cs_sa_header_encode(&out, resp);
        class_port_info(db, resp + CS_SA_HEADER_SIZE);
        *resp_len = CS_SA_MAD_SIZE;
        return 1;
    }

    if (change)
        return change_reply(db, requester, from, &h, request, resp, resp_len);

    struct sa_emit emit = {
        .base = resp + CS_SA_HEADER_SIZE,
        .room = (resp_cap < db->max_reply ? resp_cap : db->max_reply) - CS_SA_HEADER_SIZE,
        .size = size,
        .stride = cs_sa_record_stride(size),
        .get = get,
    };
    struct sa_query q = {
        .db = db,
        .record = request + CS_SA_HEADER_SIZE,
        .mask = h.component_mask,
        .attr_mod = h.attr_mod,
        .requester = requester,
        .trusted = h.sm_key != 0,
        .emit = &emit,
    };
    uint16_t status = 0;
    switch (h.attr_id) {
    case CS_SA_ATTR_NODE_RECORD:
        node_records(&q);
        break;
    case CS_SA_ATTR_PORT_INFO_RECORD:
        port_info_records(&q);
        break;
    case CS_SA_ATTR_LINK_RECORD:
        link_records(&q);
        break;
    case CS_SA_ATTR_GUID_INFO_RECORD:
        guid_info_records(&q);
        break;
    case CS_SA_ATTR_SWITCH_INFO_RECORD:
        sa_switch_info_records(&q);
        break;
    case CS_SA_ATTR_LFT_RECORD:
        sa_lft_records(&q);
        break;
    case CS_SA_ATTR_SL2VL_TABLE_RECORD:
        sa_sl2vl_records(&q);
        break;
    case CS_SA_ATTR_PKEY_TABLE_RECORD:
        status = sa_pkey_table_records(&q);
        break;
    case CS_SA_ATTR_VL_ARB_TABLE_RECORD:
        sa_vl_arb_records(&q);
        break;
    case CS_SA_ATTR_SERVICE_RECORD:
        sa_service_records(&q);
        break;
    case CS_SA_ATTR_MCMEMBER_RECORD:
        sa_mcmember_records(db, requester, q.trusted, q.mask, q.record, &emit);
        break;
    case CS_SA_ATTR_MFT_RECORD:
        sa_mft_records(db, requester, q.mask, q.record, &emit);
        break;
    case CS_SA_ATTR_INFORM_INFO_RECORD:
        sa_inform_info_records(&q);
        break;
    case CS_SA_ATTR_SM_INFO_RECORD:
        if (sa_sm_info_records(&q) < 0)
            return 0;
        break;
    case CS_SA_ATTR_PATH_RECORD:
        status = sa_path_records(db, requester, get, &h, q.record, &emit);
        break;
    default: /* record_size named every attribute above */
        break;
    }
    if (status == 0 && emit.overflow)
        status = CS_SA_STATUS_NO_RESOURCES;
    if (status == 0 && get && emit.count != 1)
        status = emit.count == 0 ? CS_SA_STATUS_NO_RECORDS : CS_SA_STATUS_TOO_MANY_RECORDS;
    if (status != 0) {
        *resp_len = error_reply(request, status, resp);
        return 1;
    }
    out.attr_offset = emit.count ? (uint16_t)(emit.stride / 8) : 0;
    size_t records = (size_t)emit.count * emit.stride;
    if (get) {
        out.method = CS_SA_METHOD_GET_RESP;
        memset(resp + CS_SA_HEADER_SIZE + records, 0, CS_SA_DATA_SIZE - records);
        *resp_len = CS_SA_MAD_SIZE;
    } else {
        /* One RMPP transfer: the kernel's RMPP agent cuts it into segments (rewriting FIRST,
         * LAST, segment numbers and lengths per segment); a transport without one sends it as
         * this single, complete segment. */
        out.method = CS_SA_METHOD_GET_TABLE_RESP;
        out.rmpp_version = CS_RMPP_VERSION;
        out.rmpp_type = CS_RMPP_TYPE_DATA;
        out.rmpp_flags = CS_RMPP_FLAG_ACTIVE | CS_RMPP_FLAG_FIRST | CS_RMPP_FLAG_LAST;
        out.rmpp_segment = 1;
        out.rmpp_payload_length = (uint32_t)(CS_SA_HEADER_SIZE - CS_SA_PAYLOAD_BASE + records);
        *resp_len = CS_SA_HEADER_SIZE + records;
    }
    cs_sa_header_encode(&out, resp);
    return 1;
}
