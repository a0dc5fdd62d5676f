/* The SA's index over one sweep (include/cloudsm/sa.h, src/sa/sa_internal.h): built once, read by
 * every answer without allocating. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "route/osm_order.h"
#include "sa/sa_internal.h"

/* PortInfo:CapabilityMask bit 14, IsExtendedSpeedsSupported: only then does OpenSM read
 * LinkSpeedExtActive. */
#define CAP_EXTENDED_SPEEDS 0x00004000u

/* IBA rate codes (PathRecord Rate, Table 209). */
enum {
    RATE_2_5 = 2,
    RATE_10 = 3,
    RATE_30 = 4,
    RATE_5 = 5,
    RATE_20 = 6,
    RATE_40 = 7,
    RATE_60 = 8,
    RATE_80 = 9,
    RATE_120 = 10,
    RATE_14 = 11,
    RATE_56 = 12,
    RATE_112 = 13,
    RATE_168 = 14,
    RATE_25 = 15,
    RATE_100 = 16,
    RATE_200 = 17,
    RATE_300 = 18,
    RATE_28 = 19,
    RATE_50 = 20,
    RATE_400 = 21,
    RATE_600 = 22,
};

/* The rate of a link as OpenSM's ib_port_info_compute_rate sees it: lanes (LinkWidthActive: 1 =
 * 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x) times the lane speed. Anything it cannot name is 2.5
 * Gb/s, as there. */
static uint8_t port_rate(const struct cs_smp_port_info *pi, bool extended)
{
    /* Rows: lane speed; columns: 1x, 2x, 4x, 8x, 12x. */
    static const uint8_t classic[3][5] = {
        {RATE_2_5, RATE_5, RATE_10, RATE_20, RATE_30},  /* SDR */
        {RATE_5, RATE_10, RATE_20, RATE_40, RATE_60},   /* DDR */
        {RATE_10, RATE_20, RATE_40, RATE_80, RATE_120}, /* QDR */
    };
    static const uint8_t ext[3][5] = {
        {RATE_14, RATE_28, RATE_56, RATE_112, RATE_168},   /* FDR */
        {RATE_25, RATE_50, RATE_100, RATE_200, RATE_300},  /* EDR */
        {RATE_50, RATE_100, RATE_200, RATE_400, RATE_600}, /* HDR */
    };
    int lanes;
    switch (pi->link_width_active) {
    case 1:
        lanes = 0;
        break;
    case 16:
        lanes = 1;
        break;
    case 2:
        lanes = 2;
        break;
    case 4:
        lanes = 3;
        break;
    case 8:
        lanes = 4;
        break;
    default:
        return RATE_2_5;
    }
    if (extended) {
        switch (pi->link_speed_ext_active) {
        case 1:
            return ext[0][lanes];
        case 2:
            return ext[1][lanes];
        case 4:
            return ext[2][lanes];
        default:
            break; /* no extended speed active: the classic one counts */
        }
    }
    switch (pi->link_speed_active) {
    case 1:
        return classic[0][lanes];
    case 2:
        return classic[1][lanes];
    case 4:
        return classic[2][lanes];
    default:
        return RATE_2_5;
    }
}

bool sa_port_present(const struct cs_sa_db *db, uint32_t port)
{
    const struct cs_port *p = &db->fabric->ports[port];
    if (cs_node_is_switch(&db->fabric->nodes[p->node]))
        return db->sweep->port_info_valid[port];
    return p->num != 0 && p->guid != 0;
}

uint16_t sa_port_base_lid(const struct cs_sa_db *db, uint32_t port)
{
    const struct cs_port *p = &db->fabric->ports[port];
    const struct cs_node *n = &db->fabric->nodes[p->node];
    return cs_node_is_switch(n) ? db->fabric->ports[n->first_port].lid : p->lid;
}

uint8_t sa_port_lmc(const struct cs_sa_db *db, uint32_t port)
{
    const struct cs_port *p = &db->fabric->ports[port];
    const struct cs_node *n = &db->fabric->nodes[p->node];
    return cs_node_is_switch(n) ? db->fabric->ports[n->first_port].lmc : p->lmc;
}

/* ---- Partitions ---- */

static bool full(uint8_t membership)
{
    return (membership & CS_MEMBER_FULL) != 0;
}

static uint16_t pkey_order(uint16_t pkey)
{
    return (uint16_t)(((pkey & 0xff) << 8) | (pkey >> 8));
}

/* Whose P_Key table a port has: a switch port cabled to a CA or router carries that port's table
 * (partition enforcement: OpenSM's pkey manager copies it there, and OpenSM 3.3.23 then hides a
 * switch port from requesters that could not talk to the CA behind it); other switch ports have
 * none. */
static uint32_t table_port(const struct cs_sa_db *db, uint32_t port)
{
    const struct cs_fabric *f = db->fabric;
    const struct cs_port *p = &f->ports[port];
    if (p->num != 0 && p->peer != CS_NONE && cs_node_is_switch(&f->nodes[p->node]) &&
        !cs_node_is_switch(&f->nodes[f->ports[p->peer].node]))
        return p->peer;
    return port;
}

bool sa_share_pkey(const struct cs_sa_db *db, uint32_t a, uint32_t b)
{
    if (a == b || db->default_only)
        return true;
    a = table_port(db, a);
    b = table_port(db, b);
    uint32_t i = db->pkey_first[a], i_end = db->pkey_first[a + 1];
    uint32_t j = db->pkey_first[b], j_end = db->pkey_first[b + 1];
    if (i == i_end || j == j_end)
        return true;
    return sa_common_pkey(db, a, b) != 0;
}

uint16_t sa_common_pkey(const struct cs_sa_db *db, uint32_t a, uint32_t b)
{
    if (db->default_only)
        return CS_PKEY_FULL_BIT | CS_PKEY_DEFAULT;
    uint32_t i = db->pkey_first[a], i_end = db->pkey_first[a + 1];
    uint32_t j = db->pkey_first[b], j_end = db->pkey_first[b + 1];
    while (i < i_end && j < j_end) {
        const struct sa_pkey *x = &db->pkeys[i], *y = &db->pkeys[j];
        if (x->order == y->order) {
            if (full(x->membership) || full(y->membership))
                return (uint16_t)(x->pkey | (full(x->membership) ? CS_PKEY_FULL_BIT : 0));
            i++;
            j++;
        } else if (x->order < y->order) {
            i++;
        } else {
            j++;
        }
    }
    return 0;
}

static const struct sa_pkey *find_pkey(const struct cs_sa_db *db, uint32_t port, uint16_t pkey)
{
    for (uint32_t i = db->pkey_first[port]; i < db->pkey_first[port + 1]; i++)
        if (db->pkeys[i].pkey == pkey)
            return &db->pkeys[i];
    return NULL;
}

bool sa_share_this_pkey(const struct cs_sa_db *db, uint32_t a, uint32_t b, uint16_t pkey)
{
    uint16_t base = pkey & CS_PKEY_MASK;
    if (base == 0)
        return false; /* 0x0000 and 0x8000 are the invalid P_Key */
    if (db->default_only)
        return base == CS_PKEY_DEFAULT;
    const struct sa_pkey *x = find_pkey(db, a, base), *y = find_pkey(db, b, base);
    return x && y && (full(x->membership) || full(y->membership));
}

bool sa_port_has_pkey(const struct cs_sa_db *db, uint32_t port, uint16_t pkey)
{
    uint16_t base = pkey & CS_PKEY_MASK;
    if (db->default_only)
        return base == CS_PKEY_DEFAULT;
    return base != 0 && find_pkey(db, port, base) != NULL;
}

uint8_t sa_pkey_sl(const struct cs_sa_db *db, uint32_t a, uint32_t b, uint16_t pkey)
{
    if (db->default_only || db->opt.partition_sl == NULL)
        return 0;
    const struct sa_pkey *x = find_pkey(db, a, pkey & CS_PKEY_MASK);
    if (x == NULL)
        x = find_pkey(db, b, pkey & CS_PKEY_MASK);
    return x ? x->sl : 0;
}

static uint8_t partition_sl(const struct cs_sa_db *db, const struct cs_resolved_partition *rp)
{
    const struct cs_sa_options *o = &db->opt;
    return o->partition_sl && rp->config_index < o->num_partition_sl
               ? o->partition_sl[rp->config_index]
               : 0;
}

/* Each port's entries, in OpenSM's order: partitions are visited in that order, so every port's
 * list comes out sorted. */
static int index_partitions(struct cs_sa_db *db, const struct cs_partition_set *set,
                            struct cs_error *err)
{
    uint32_t slots = db->fabric->num_port_slots;
    db->pkey_first = cs_calloc_array((size_t)slots + 1, sizeof *db->pkey_first, err);
    if (!db->pkey_first)
        return -1;
    if (!set) {
        db->default_only = true;
        return 0;
    }
    struct cs_key_index by_order;
    cs_key_index_init(&by_order);
    if (cs_key_index_reserve(&by_order, set->count, err) < 0)
        return -1;
    for (uint32_t i = 0; i < set->count; i++)
        cs_key_index_add(&by_order, pkey_order(set->partitions[i].pkey), i, err);
    cs_key_index_sort(&by_order);

    for (uint32_t i = 0; i < set->count; i++) {
        const struct cs_resolved_partition *rp = &set->partitions[i];
        for (uint32_t k = rp->first; k < rp->first + rp->count && k < set->num_ports; k++)
            if (set->ports[k].port < slots)
                db->pkey_first[set->ports[k].port + 1]++;
    }
    for (uint32_t p = 0; p < slots; p++)
        db->pkey_first[p + 1] += db->pkey_first[p];
    db->pkeys = cs_calloc_array(db->pkey_first[slots], sizeof *db->pkeys, err);
    uint32_t *fill = cs_calloc_array(slots ? slots : 1, sizeof *fill, err);
    if (!db->pkeys || !fill) {
        free(fill);
        cs_key_index_free(&by_order);
        return -1;
    }
    memcpy(fill, db->pkey_first, (size_t)slots * sizeof *fill);
    for (uint32_t o = 0; o < by_order.count; o++) {
        const struct cs_resolved_partition *rp = &set->partitions[by_order.entries[o].value];
        for (uint32_t k = rp->first; k < rp->first + rp->count && k < set->num_ports; k++) {
            const struct cs_partition_port *pp = &set->ports[k];
            if (pp->port >= slots)
                continue;
            db->pkeys[fill[pp->port]++] = (struct sa_pkey){
                .order = pkey_order(rp->pkey & CS_PKEY_MASK),
                .pkey = rp->pkey & CS_PKEY_MASK,
                .membership = pp->membership,
                .sl = partition_sl(db, rp),
            };
        }
    }
    free(fill);
    cs_key_index_free(&by_order);
    return 0;
}

/* ---- Build ---- */

/* indices of count items sorted by key(i) (ties by index). */
static uint32_t *order_by(uint32_t count, const uint64_t *keys, const uint32_t *items,
                          struct cs_error *err)
{
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    uint32_t *order = cs_calloc_array(count ? count : 1, sizeof *order, err);
    if (!order || cs_key_index_reserve(&ix, count, err) < 0) {
        free(order);
        return NULL;
    }
    for (uint32_t i = 0; i < count; i++)
        cs_key_index_add(&ix, keys[i], items[i], err);
    cs_key_index_sort(&ix);
    for (uint32_t i = 0; i < count; i++)
        order[i] = ix.entries[i].value;
    cs_key_index_free(&ix);
    return order;
}

static int index_tables(struct cs_sa_db *db, struct cs_error *err)
{
    const struct cs_fabric *f = db->fabric;
    if (cs_key_index_nodes(&db->node_by_guid, f, err) < 0 ||
        cs_key_index_ports(&db->end_port_by_guid, f, err) < 0)
        return -1;
    uint32_t n = f->num_nodes, ports = db->end_port_by_guid.count;
    uint64_t *keys = cs_calloc_array((size_t)(n > ports ? n : ports) + 1, sizeof *keys, err);
    uint32_t *items = cs_calloc_array((size_t)(n > ports ? n : ports) + 1, sizeof *items, err);
    if (!keys || !items) {
        free(keys);
        free(items);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        keys[i] = cs_osm_map_key(f->nodes[i].guid);
        items[i] = i;
    }
    db->node_order = order_by(n, keys, items, err);
    for (uint32_t i = 0; i < ports; i++) {
        uint32_t p = db->end_port_by_guid.entries[i].value;
        keys[i] = cs_osm_map_key(f->ports[p].guid);
        items[i] = p;
    }
    db->num_end_ports = ports;
    db->end_port_order = order_by(ports, keys, items, err);
    free(keys);
    free(items);
    return db->node_order && db->end_port_order ? 0 : -1;
}

static int index_ports(struct cs_sa_db *db, struct cs_error *err)
{
    const struct cs_fabric *f = db->fabric;
    const struct cs_sm_sweep *s = db->sweep;
    db->mtu_cap = cs_calloc_array(f->num_port_slots + 1, 1, err);
    db->rate = cs_calloc_array(f->num_port_slots + 1, 1, err);
    if (!db->mtu_cap || !db->rate)
        return -1;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        if (!s->port_info_valid[p])
            continue;
        const struct cs_node *node = &f->nodes[f->ports[p].node];
        /* On a switch, port 0 says whether the switch speaks extended speeds (OpenSM reads the
         * switch's port 0 CapabilityMask for every port of it; external ports leave it 0). */
        uint32_t cap_port = cs_node_is_switch(node) ? node->first_port : p;
        bool extended = s->port_info_valid[cap_port] &&
                        (s->port_info[cap_port].capability_mask & CAP_EXTENDED_SPEEDS);
        db->mtu_cap[p] = s->port_info[p].mtu_cap;
        db->rate[p] = port_rate(&s->port_info[p], extended);
    }
    return 0;
}

/* The largest reply of each kind, for cs_sa_response_bound. PathRecords: a port answers for each
 * of its GUIDs (its own and up to GUIDCap - 1 aliases, which may be registered after the db is
 * built) and each of its LIDs; the table of every pair is the square of their sum. Every reply is
 * capped by max_reply: a larger one is refused, so no buffer needs more. */
static void compute_bound(struct cs_sa_db *db)
{
    const struct cs_fabric *f = db->fabric;
    uint64_t node_records = 0, port_records = 0, links = 0, guid_blocks = 0, endpoints = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        if (!sa_port_present(db, p))
            continue;
        const struct cs_port *port = &f->ports[p];
        bool sw = cs_node_is_switch(&f->nodes[port->node]);
        port_records++;
        if (port->peer != CS_NONE && sa_port_present(db, port->peer))
            links++;
        if (!sw || port->num == 0) {
            node_records++;
            unsigned cap = db->sweep->port_info_valid[p] ? db->sweep->port_info[p].guid_cap : 0;
            guid_blocks += (cap + 7u) / 8u;
            uint64_t guids = db->opt.aliases && cap > 1 ? cap : 1;
            endpoints += guids << (sa_port_lmc(db, p) & 7);
        }
    }
    uint64_t most = node_records * cs_sa_record_stride(CS_SA_NODE_RECORD_SIZE);
    uint64_t candidates[] = {
        port_records * cs_sa_record_stride(CS_SA_PORT_INFO_RECORD_SIZE),
        links * cs_sa_record_stride(CS_SA_LINK_RECORD_SIZE),
        guid_blocks * cs_sa_record_stride(CS_SA_GUID_INFO_RECORD_SIZE),
        endpoints * endpoints * CS_SA_PATH_RECORD_SIZE,
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (candidates[i] > most)
            most = candidates[i];
    most += CS_SA_HEADER_SIZE;
    if (most > db->max_reply)
        most = db->max_reply;
    db->response_bound = most < CS_SA_MAD_SIZE ? CS_SA_MAD_SIZE : (size_t)most;
}

int cs_sa_db_build(const struct cs_sm_sweep *sweep, const struct cs_lfts *lfts,
                   const struct cs_partition_set *partitions, const struct cs_sa_options *opt,
                   struct cs_sa_db **out, struct cs_error *err)
{
    *out = NULL;
    if (!sweep || !lfts)
        return cs_fail(err, "SA: a sweep and its LFTs are needed");
    struct cs_sa_db *db = cs_calloc_array(1, sizeof *db, err);
    if (!db)
        return -1;
    db->sweep = sweep;
    db->fabric = &sweep->fabric;
    if (opt) {
        db->opt = *opt;
    } else {
        db->opt.subnet_prefix = UINT64_C(0xfe80000000000000);
        db->opt.subnet_timeout = CS_SA_DEFAULT_SUBNET_TIMEOUT;
    }
    cs_key_index_init(&db->node_by_guid);
    cs_key_index_init(&db->end_port_by_guid);
    if (cs_tracer_init(&db->tracer, db->fabric, lfts, err) < 0) {
        free(db);
        return -1;
    }
    db->node_info = db->opt.node_info ? db->opt.node_info : sweep->node_info;
    if (index_tables(db, err) < 0 || index_ports(db, err) < 0 ||
        index_partitions(db, partitions, err) < 0) {
        cs_sa_db_free(db);
        return -1;
    }
    db->max_reply = db->opt.max_reply ? db->opt.max_reply : (size_t)CS_SA_DEFAULT_MAX_REPLY;
    if (db->max_reply < CS_SA_MAD_SIZE)
        db->max_reply = CS_SA_MAD_SIZE;
    compute_bound(db);
    *out = db;
    return 0;
}

void cs_sa_db_free(struct cs_sa_db *db)
{
    if (!db)
        return;
    cs_tracer_free(&db->tracer);
    cs_key_index_free(&db->node_by_guid);
    cs_key_index_free(&db->end_port_by_guid);
    free(db->node_order);
    free(db->end_port_order);
    free(db->mtu_cap);
    free(db->rate);
    free(db->pkey_first);
    free(db->pkeys);
    free(db);
}

size_t cs_sa_response_bound(const struct cs_sa_db *db)
{
    return db->response_bound;
}

int cs_sa_db_ports_lids_changed(struct cs_sa_db *db, const uint32_t *ports, uint32_t count)
{
    /* The LID -> port table is the only part of the db that reads the ports' LIDs; records read
     * them from the fabric when they are built. */
    return cs_tracer_ports_lids_changed(&db->tracer, ports, count);
}
