/* The records of what the SM read from and programmed into the switches and ports: the
 * SwitchInfoRecord (SwitchInfo as the sweep read it, LinearFDBTop as the SM set it), the
 * LFTRecord (the tables the SM programmed), the SL2VLTableRecord (the SL to VL tables as the SM
 * read and programmed them), the P_KeyTableRecord (the P_Key tables as the SM
 * read and programmed them) and the VLArbitrationTableRecord (docs/sm/sa.md "Switch and port
 * tables"). The component masks and the record order are OpenSM 3.3.23's: switches in its
 * switch table's order, ports in its port table's order (the db's node and end port orders),
 * and only the components OpenSM looks at (the LID, the port and block numbers). */
#include <string.h>

#include "sa/sa_internal.h"

/* The end port a LID names (a CA port, or a switch's port 0), or CS_NONE. */
static uint32_t lid_end_port(const struct cs_sa_db *db, const uint8_t *record)
{
    return cs_tracer_owner(&db->tracer, (uint32_t)cs_bits_get(record, 0, 16));
}

static bool is_switch(const struct cs_sa_db *db, uint32_t node)
{
    return cs_node_is_switch(&db->fabric->nodes[node]);
}

/* ---- SwitchInfoRecord and LFTRecord: one switch at a time ---- */

/* Port 0 of switch `node` if the query may see it: the requester shares a partition with it,
 * and a LID in the mask (`lid_bit`) is one of its LIDs (a LID of 0 matches nothing). */
static uint32_t visible_switch(const struct sa_query *q, uint32_t node, uint64_t lid_bit)
{
    const struct cs_sa_db *db = q->db;
    uint32_t port0 = db->fabric->nodes[node].first_port;
    if (!is_switch(db, node) || !sa_port_present(db, port0) || !sa_requester_sees(q, port0))
        return CS_NONE;
    if ((q->mask & lid_bit) &&
        !sa_lid_in_range(cs_bits_get(q->record, 0, 16), sa_port_base_lid(db, port0),
                         sa_port_lmc(db, port0)))
        return CS_NONE;
    return port0;
}

void sa_switch_info_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    for (uint32_t i = 0; i < db->fabric->num_nodes && !sa_emit_done(q->emit); i++) {
        uint32_t node = db->node_order[i];
        uint32_t port0 = visible_switch(q, node, CS_SA_SWIR_LID);
        if (port0 == CS_NONE)
            continue;
        struct cs_sa_switch_info_record r = {
            .lid = sa_port_base_lid(db, port0),
            .switch_info = db->sweep->switch_info[node],
        };
        uint8_t encoded[CS_SA_SWITCH_INFO_RECORD_SIZE];
        cs_sa_switch_info_record_encode(&r, encoded);
        sa_emit(q->emit, encoded);
    }
}

/* Blocks 0 .. LinearFDBTop / 64: the blocks the switch's table holds valid entries in, as the SM
 * set its top (OpenSM: the blocks up to its highest LID). */
static void lft_records_of_switch(struct sa_query *q, uint32_t node, uint32_t port0)
{
    const struct cs_sa_db *db = q->db;
    unsigned last = db->sweep->switch_info[node].linear_fdb_top / CS_LFT_BLOCK, first = 0;
    if (q->mask & CS_SA_LFTR_BLOCK) {
        first = (unsigned)cs_bits_get(q->record, 16, 16);
        if (first > last)
            return;
        last = first;
    }
    uint32_t sw = db->tracer.node_switch[node];
    uint32_t table = sw == CS_NONE ? CS_NONE : db->tracer.switch_table[sw];
    struct cs_sa_lft_record r = {.lid = sa_port_base_lid(db, port0)};
    for (unsigned block = first; block <= last && !sa_emit_done(q->emit); block++) {
        r.block = (uint16_t)block;
        for (unsigned i = 0; i < CS_LFT_PORTS_PER_BLOCK; i++)
            r.lft.port[i] = table == CS_NONE
                                ? CS_LFT_NO_ROUTE
                                : cs_lfts_get(db->tracer.lfts, table, block * CS_LFT_BLOCK + i);
        uint8_t encoded[CS_SA_LFT_RECORD_SIZE];
        cs_sa_lft_record_encode(&r, encoded);
        sa_emit(q->emit, encoded);
    }
}

void sa_lft_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    for (uint32_t i = 0; i < db->fabric->num_nodes && !sa_emit_done(q->emit); i++) {
        uint32_t node = db->node_order[i];
        uint32_t port0 = visible_switch(q, node, CS_SA_LFTR_LID);
        if (port0 != CS_NONE)
            lft_records_of_switch(q, node, port0);
    }
}

/* ---- The ports a query names (P_KeyTableRecord, VLArbitrationTableRecord) ---- */

/* The physical ports a query names on the node of end port `end`: a CA's own port whatever the
 * request says; on a switch, the port of the request's port field (at byte `port_at`) when its
 * mask bit is set and the port exists, else all of them, 0 first. Each is handed to `each` when
 * the requester may see it. */
static void ports_of_end_port(struct sa_query *q, uint32_t end, uint64_t port_bit, size_t port_at,
                              void (*each)(struct sa_query *q, uint32_t port))
{
    const struct cs_sa_db *db = q->db;
    const struct cs_port *p = &db->fabric->ports[end];
    const struct cs_node *n = &db->fabric->nodes[p->node];
    unsigned first = 0, last = n->num_ports;
    if (!cs_node_is_switch(n)) {
        first = last = p->num;
    } else if (q->mask & port_bit) {
        first = last = q->record[port_at];
        if (first > n->num_ports)
            return;
    }
    for (unsigned num = first; num <= last && !sa_emit_done(q->emit); num++) {
        uint32_t port = n->first_port + num;
        if (sa_port_present(db, port) && sa_requester_sees(q, port))
            each(q, port);
    }
}

/* Every end port the query names: the one its LID names (OpenSM looks the LID up among its
 * ports' LIDs), or all of them in OpenSM's port order. */
static void end_ports(struct sa_query *q, uint64_t lid_bit, uint64_t port_bit, size_t port_at,
                      void (*each)(struct sa_query *q, uint32_t port))
{
    const struct cs_sa_db *db = q->db;
    if (q->mask & lid_bit) {
        uint32_t end = lid_end_port(db, q->record);
        if (end != CS_NONE)
            ports_of_end_port(q, end, port_bit, port_at, each);
        return;
    }
    for (uint32_t i = 0; i < db->num_end_ports && !sa_emit_done(q->emit); i++)
        ports_of_end_port(q, db->end_port_order[i], port_bit, port_at, each);
}

/* ---- SL2VLTableRecord ---- */

static const struct cs_sm_sl2vl_tables *sl2vl_tables(const struct cs_sa_db *db)
{
    const struct cs_sm_sl2vl_tables *t = db->opt.sl2vl_tables;
    return t && t->num_ports == db->fabric->num_port_slots && t->count ? t : NULL;
}

/* The first entry of output port `port` (entries are ordered by output port, then input port). */
static uint32_t first_sl2vl(const struct cs_sm_sl2vl_tables *t, uint32_t port)
{
    uint32_t lo = 0, hi = t->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->entries[mid].out_port < port)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The tables of output port `port` the SM knows, input ports ascending (or the one the request
 * names). A CA's or router's table shows input and output port 0, as OpenSM 3.3.23 answers it. */
static void sl2vl_records_of_port(struct sa_query *q, uint32_t port)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_sm_sl2vl_tables *t = sl2vl_tables(db);
    const struct cs_port *p = &db->fabric->ports[port];
    bool sw = is_switch(db, p->node);
    for (uint32_t i = first_sl2vl(t, port);
         i < t->count && t->entries[i].out_port == port && !sa_emit_done(q->emit); i++) {
        const struct cs_sm_sl2vl_entry *e = &t->entries[i];
        if (sw && (q->mask & CS_SA_SL2VL_IN_PORT) && q->record[2] != e->in_port)
            continue;
        struct cs_sa_sl2vl_record r = {
            .lid = sa_port_base_lid(db, port),
            .in_port = sw ? e->in_port : 0,
            .out_port = sw ? p->num : 0,
            .sl2vl = e->table,
        };
        uint8_t encoded[CS_SA_SL2VL_RECORD_SIZE];
        cs_sa_sl2vl_record_encode(&r, encoded);
        sa_emit(q->emit, encoded);
    }
}

/* OpenSM's order: a switch's output ports ascending, each with its input ports; the output port
 * the request names (mask bit 2) alone. */
static void sl2vl_records_of_end_port(struct sa_query *q, uint32_t end)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_port *p = &db->fabric->ports[end];
    const struct cs_node *n = &db->fabric->nodes[p->node];
    if (!cs_node_is_switch(n)) {
        if (sa_requester_sees(q, end))
            sl2vl_records_of_port(q, end);
        return;
    }
    unsigned first = 0, last = n->num_ports;
    if (q->mask & CS_SA_SL2VL_OUT_PORT) {
        first = last = q->record[3];
        if (first > n->num_ports)
            return;
    }
    for (unsigned num = first; num <= last && !sa_emit_done(q->emit); num++) {
        uint32_t port = n->first_port + num;
        if (sa_port_present(db, port) && sa_requester_sees(q, port))
            sl2vl_records_of_port(q, port);
    }
}

void sa_sl2vl_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    if (sl2vl_tables(db) == NULL)
        return;
    if (q->mask & CS_SA_SL2VL_LID) {
        uint32_t end = lid_end_port(db, q->record);
        if (end != CS_NONE)
            sl2vl_records_of_end_port(q, end);
        return;
    }
    for (uint32_t i = 0; i < db->num_end_ports && !sa_emit_done(q->emit); i++)
        sl2vl_records_of_end_port(q, db->end_port_order[i]);
}

/* ---- P_KeyTableRecord ---- */

static const struct cs_sm_pkey_tables *pkey_tables(const struct cs_sa_db *db)
{
    const struct cs_sm_pkey_tables *t = db->opt.pkey_tables;
    return t && t->num_ports == db->fabric->num_port_slots && t->capacity ? t : NULL;
}

/* The blocks of the port's table the SM knows (every block of its capacity), or the one the
 * request names. */
static void pkey_records_of_port(struct sa_query *q, uint32_t port)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_sm_pkey_tables *t = pkey_tables(db);
    if (!t->known[port] || t->capacity[port] == 0)
        return;
    unsigned blocks = (t->capacity[port] + CS_PKEYS_PER_BLOCK - 1u) / CS_PKEYS_PER_BLOCK;
    unsigned first = 0, last = blocks - 1;
    if (q->mask & CS_SA_PKTR_BLOCK) {
        first = last = cs_sa_pkey_table_request_block(q->record);
        if (first >= blocks)
            return;
    }
    struct cs_sa_pkey_table_record r = {
        .lid = sa_port_base_lid(db, port),
        .port_num = db->fabric->ports[port].num,
    };
    const uint16_t *table = cs_sm_pkey_table(t, port);
    for (unsigned block = first; block <= last && !sa_emit_done(q->emit); block++) {
        r.block = (uint16_t)block;
        memcpy(r.pkeys.pkey, table + (size_t)block * CS_PKEYS_PER_BLOCK, sizeof r.pkeys.pkey);
        uint8_t encoded[CS_SA_PKEY_TABLE_RECORD_SIZE];
        cs_sa_pkey_table_record_encode(&r, encoded);
        sa_emit(q->emit, encoded);
    }
}

uint16_t sa_pkey_table_records(struct sa_query *q)
{
    /* IBA C15-0.2.1 (P_KeyTableRecords go to trusted requesters only), as OpenSM: REQ_INVALID. */
    if (!q->trusted && q->requester != CS_NONE)
        return CS_SA_STATUS_REQ_INVALID;
    if (pkey_tables(q->db) == NULL)
        return 0;
    end_ports(q, CS_SA_PKTR_LID, CS_SA_PKTR_PORT, 4, pkey_records_of_port);
    return 0;
}

/* Blocks 1..4 (or the one the request names). The SM neither reads nor programs VL arbitration
 * (it runs without QoS), so it knows no entry: every record is empty, which is what OpenSM 3.3.23
 * answers without QoS too (its tables stay as it allocated them, zeroed). */
static void vl_arb_records_of_port(struct sa_query *q, uint32_t port)
{
    const struct cs_sa_db *db = q->db;
    unsigned first = 1, last = 4;
    if (q->mask & CS_SA_VLAR_BLOCK) {
        first = last = q->record[3];
        if (first < 1 || first > 4)
            return;
    }
    struct cs_sa_vl_arb_record r = {
        .lid = sa_port_base_lid(db, port),
        .port_num = db->fabric->ports[port].num,
    };
    for (unsigned block = first; block <= last && !sa_emit_done(q->emit); block++) {
        r.block = (uint8_t)block;
        uint8_t encoded[CS_SA_VL_ARB_RECORD_SIZE];
        cs_sa_vl_arb_record_encode(&r, encoded);
        sa_emit(q->emit, encoded);
    }
}

void sa_vl_arb_records(struct sa_query *q)
{
    end_ports(q, CS_SA_VLAR_LID, CS_SA_VLAR_OUT_PORT, 2, vl_arb_records_of_port);
}
