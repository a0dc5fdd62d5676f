/* The SA on arbitrary request bytes: a fixed small subnet (the PGFT of sm_fixtures.h as ibsim
 * shows it, routed by ftree, two partitions, the caching flag on, an alias GUID store, replies up
 * to ROOM) answers whatever arrives. No crash, no leak, and every reply is sane: nothing or a
 * response MAD echoing the request's transaction id; a single MAD is CS_SA_MAD_SIZE bytes, a
 * longer reply is a successful GetTableResp of whole records marked as one RMPP transfer; a reply
 * never exceeds the room. The SM's SL2VL and P_Key tables are made up (hold_tables). After the
 * requests the alias store is consistent: every alias is found where its port's table says, in
 * OpenSM's order, and no alias is a port's own GUID; and so is the multicast group store (joins
 * and leaves of MCMemberRecords): groups in MGID order with distinct MLIDs, members in OpenSM's
 * order, the full members counted right, no group without a full member unless it is well
 * known; and no two services share ServiceID, ServiceGID and ServiceP_Key; and so is the event
 * subscription store (Sets of InformInfo): no subscription twice, each a Subscribe of a port
 * the subnet has, its QPN the requester's, and the Reports queued (traps 66 and 67 of joins and
 * leaves, and a trap 64 made up at the end) go to subscribers' LIDs.
 *
 * Input: requests of 257 bytes each (the last may be shorter), so that Sets and Deletes change
 * the store the requests after them read: byte 0 picks the requester LID (mod 32: the subnet's
 * LIDs are 1..28, host k has LID k + 1, 0 is a local caller, the rest unknown), the rest is the
 * request MAD. Every input starts from empty stores (but the partitions' IPoIB group); the
 * services' clock moves 500 ms per request, so that short leases end within an input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/sa_fixtures.h"
#include "cloudsm/alias_guids.h"
#include "cloudsm/informs.h"
#include "cloudsm/lid.h"
#include "cloudsm/mcast.h"
#include "cloudsm/partitions.h"
#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/services.h"
#include "cloudsm/topo_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOM (1u << 20)

static const char PARTITIONS[] =
    "Default=0x7fff, ipoib : ALL, SELF=full ;\n"
    "P1=0x0001 : 0x0010000000000001=full, 0x0010000000000101=full ;\n"
    "P2=0x0002 : 0x0010000000000201=full, 0x0010000000000301, 0x0010000000000401=both ;\n";

static struct {
    struct cs_sm_sweep sweep;
    struct cs_lfts lfts;
    struct cs_partitions parts;
    struct cs_partition_set set;
    struct cs_sa_options opt;
    struct cs_sa_db *db;
    uint8_t *resp;
    double now_ms;
    struct cs_sm_sl2vl_tables sl2vl;
    struct cs_sm_pkey_tables pkeys;
    struct cs_sm_identity sm; /* the SM on host 0, master, and another SM it polled */
} subnet;

static double fuzz_clock(void)
{
    return subnet.now_ms;
}

/* Tables as the SM would hold them, so that SL2VL and P_KeyTable records have something to show:
 * every switch (input, output) pair and every CA port's SL2VL table; one P_Key block on every
 * port with a GUID (a CA port's table unknown every third port). */
static void hold_tables(void)
{
    const struct cs_fabric *f = &subnet.sweep.fabric;
    uint32_t n = f->num_port_slots, count = 0;
    subnet.sl2vl.entries = calloc((size_t)n * 40 + 1, sizeof *subnet.sl2vl.entries);
    subnet.pkeys.capacity = calloc(n, sizeof *subnet.pkeys.capacity);
    subnet.pkeys.first = calloc(n, sizeof *subnet.pkeys.first);
    subnet.pkeys.known = calloc(n, sizeof *subnet.pkeys.known);
    subnet.pkeys.pkeys = calloc((size_t)n * CS_PKEYS_PER_BLOCK, sizeof *subnet.pkeys.pkeys);
    if (!subnet.sl2vl.entries || !subnet.pkeys.capacity || !subnet.pkeys.first ||
        !subnet.pkeys.known || !subnet.pkeys.pkeys)
        abort();
    for (uint32_t p = 0; p < n; p++) {
        const struct cs_port *port = &f->ports[p];
        const struct cs_node *node = &f->nodes[port->node];
        bool sw = cs_node_is_switch(node);
        if (sw && port->num != 0)
            for (unsigned in = 0; in <= node->num_ports && in < 40; in++)
                subnet.sl2vl.entries[count++] = (struct cs_sm_sl2vl_entry){
                    .out_port = p, .in_port = (uint8_t)in, .table = {.vl = {(uint8_t)in}}};
        else if (!sw && port->guid != 0)
            subnet.sl2vl.entries[count++] = (struct cs_sm_sl2vl_entry){.out_port = p};
        if (port->guid != 0 || sw) {
            subnet.pkeys.capacity[p] = CS_PKEYS_PER_BLOCK;
            subnet.pkeys.first[p] = (uint64_t)p * CS_PKEYS_PER_BLOCK;
            subnet.pkeys.known[p] = p % 3 != 0;
            subnet.pkeys.pkeys[subnet.pkeys.first[p]] = 0xffff;
        }
    }
    subnet.sl2vl.count = count;
    subnet.sl2vl.num_ports = n;
    subnet.pkeys.num_ports = n;
}

static void build_subnet(void)
{
    struct cs_error err;
    struct cs_fabric f;
    struct cs_pgft_spec s = {.levels = 3, .m = {2, 2, 3}, .w = {1, 2, 2}, .p = {1, 2, 1}};
    cs_fabric_init(&f);
    struct cs_route_options ropt = {0};
    struct cs_route_stats st;
    struct cs_partition_resolve_options ro = {.sm_port_guid = UINT64_C(0x0010000000000001)};
    if (cs_pgft_generate(&f, &s, &err) != 0 || cs_lids_assign(&f, 0, &err) != 0 ||
        sa_ibsim_sweep(&subnet.sweep, &f, cs_fabric_port(&f, 0, 1), UINT64_C(0xfe80000000000000),
                       &err) != 0 ||
        cs_route("ftree", &subnet.sweep.fabric, &ropt, &subnet.lfts, &st, &err) != 0 ||
        cs_partitions_parse(&subnet.parts, PARTITIONS, strlen(PARTITIONS), "p", &err) != 0 ||
        cs_partitions_resolve(&subnet.parts, &subnet.sweep.fabric, &ro, &subnet.set, &err) != 0)
        abort();
    cs_fabric_free(&f);
    hold_tables();
    subnet.sm = (struct cs_sm_identity){.guid = UINT64_C(0x0010000000000001),
                                        .priority = 3,
                                        .state = CS_SMP_SM_STATE_MASTER,
                                        .num_known = 1};
    subnet.sm.known[0] = (struct cs_smp_sm_info){
        .guid = UINT64_C(0x0010000000000201), .priority = 1, .sm_state = CS_SMP_SM_STATE_STANDBY};
    subnet.opt = (struct cs_sa_options){
        .sl2vl_tables = &subnet.sl2vl,
        .pkey_tables = &subnet.pkeys,
        .subnet_prefix = UINT64_C(0xfe80000000000000),
        .sm_key = 0x5,
        .path_caching = true,
        .subnet_timeout = CS_SA_DEFAULT_SUBNET_TIMEOUT,
        .max_reply = ROOM,
        .sm = &subnet.sm,
    };
    subnet.resp = malloc(ROOM);
    if (!subnet.resp)
        abort();
}

/* A fresh store and a db on it. */
static void fresh_store(void)
{
    struct cs_error err;
    cs_sa_db_free(subnet.db);
    cs_alias_guids_destroy(subnet.opt.aliases);
    cs_mcast_groups_destroy(subnet.opt.mcast);
    cs_services_destroy(subnet.opt.services);
    cs_informs_destroy(subnet.opt.informs);
    subnet.opt.informs = cs_informs_create(&err);
    subnet.opt.aliases = cs_alias_guids_create(&err);
    subnet.opt.mcast = cs_mcast_groups_create(&err);
    subnet.opt.services = cs_services_create(&err);
    subnet.opt.clock_ms = fuzz_clock;
    subnet.now_ms = 0;
    struct cs_log log = {0};
    if (!subnet.opt.aliases || !subnet.opt.mcast || !subnet.opt.services || !subnet.opt.informs ||
        cs_mcast_groups_sync_partitions(subnet.opt.mcast, &subnet.parts, &subnet.set, false,
                                        CS_SA_DEFAULT_SUBNET_TIMEOUT, &log, &err) != 1 ||
        cs_sa_db_build(&subnet.sweep, &subnet.lfts, &subnet.set, &subnet.opt, &subnet.db, &err) !=
            0 ||
        cs_sa_response_bound(subnet.db) > ROOM)
        abort();
}

/* Every alias is where its port's table says, in OpenSM's order (byte-swapped GUID ascending),
 * and none is a port's own GUID. */
static void check_store(void)
{
    const struct cs_alias_guids *a = subnet.opt.aliases;
    uint64_t prev = 0;
    for (uint32_t i = 0; i < cs_alias_guids_count(a); i++) {
        uint64_t guid, port, owner, block[CS_ALIAS_GUIDS_PER_BLOCK];
        unsigned index;
        cs_alias_guids_at(a, i, &guid, &port);
        uint64_t key = __builtin_bswap64(guid);
        if ((i > 0 && key <= prev) || !cs_alias_guids_find(a, guid, &owner, &index) ||
            owner != port || index == 0 || index >= cs_alias_guids_capacity(a, port) ||
            !cs_alias_guids_block(a, port, index / CS_ALIAS_GUIDS_PER_BLOCK, block) ||
            block[index % CS_ALIAS_GUIDS_PER_BLOCK] != guid)
            abort();
        for (uint32_t p = 0; p < subnet.sweep.fabric.num_port_slots; p++)
            if (subnet.sweep.fabric.ports[p].guid == guid)
                abort();
        prev = key;
    }
}

/* No two services with the same ServiceID, ServiceGID and ServiceP_Key. */
static void check_services(void)
{
    const struct cs_services *s = subnet.opt.services;
    for (uint32_t i = 0; i < cs_services_count(s); i++)
        for (uint32_t j = i + 1; j < cs_services_count(s); j++) {
            const struct cs_sa_service_record *a = cs_services_at(s, i), *b = cs_services_at(s, j);
            if (a->id == b->id && a->pkey == b->pkey && memcmp(a->gid, b->gid, 16) == 0)
                abort();
        }
}

static void check_groups(void)
{
    const struct cs_mcast_groups *g = subnet.opt.mcast;
    for (uint32_t i = 0; i < cs_mcast_groups_count(g); i++) {
        const struct cs_mcast_group *group = cs_mcast_groups_at(g, i);
        uint16_t mlid = group->rec.mlid;
        if (mlid < CS_MCAST_MLID_FIRST || mlid > CS_MCAST_MLID_LAST ||
            cs_mcast_groups_by_mlid(g, mlid) != group ||
            (i > 0 && memcmp(cs_mcast_groups_at(g, i - 1)->rec.mgid, group->rec.mgid, 16) >= 0))
            abort();
        uint32_t full = 0;
        for (uint32_t k = 0; k < group->num_members; k++) {
            const struct cs_mcast_member *m = &group->members[k];
            if ((m->scope_state & 0x0f) == 0 ||
                (k > 0 &&
                 __builtin_bswap64(group->members[k - 1].guid) >= __builtin_bswap64(m->guid)))
                abort();
            full += (m->scope_state & CS_MCAST_JOIN_ANY_FULL) != 0;
        }
        if (full != group->full_members || (full == 0 && !group->well_known))
            abort();
    }
}

/* The port slot that owns lid, or UINT32_MAX. */
static uint32_t port_of_lid(uint16_t lid)
{
    const struct cs_fabric *f = &subnet.sweep.fabric;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (f->ports[p].lid == lid && lid != 0)
            return p;
    return UINT32_MAX;
}

/* Every Report waiting goes to a subscriber's LID; the outbox is left empty. */
static void drain_reports(uint16_t trap_low, uint16_t trap_high)
{
    struct cs_informs *s = subnet.opt.informs;
    struct cs_report r;
    while (cs_informs_take_reports(s, &r, 1) == 1) {
        bool subscriber = false;
        for (uint32_t i = 0; i < cs_informs_count(s); i++)
            subscriber |= cs_informs_at(s, i)->to.lid == r.to.lid;
        if (!subscriber || r.notice.trap_number < trap_low || r.notice.trap_number > trap_high)
            abort();
    }
}

/* No subscription twice (each is the first of its kind), each a Subscribe from a port of the
 * subnet, kept with the requester's QPN (1: cs_sa_answer's). */
static void check_informs(void)
{
    const struct cs_informs *s = subnet.opt.informs;
    const struct cs_fabric *f = &subnet.sweep.fabric;
    for (uint32_t i = 0; i < cs_informs_count(s); i++) {
        const struct cs_subscription *sub = cs_informs_at(s, i);
        uint32_t port = port_of_lid(sub->to.lid);
        if (cs_informs_find(s, sub) != i || sub->info.subscribe != 1 || sub->info.qpn != 1 ||
            sub->to.qpn != 1 || port == UINT32_MAX || f->ports[port].guid != sub->subscriber_guid)
            abort();
    }
}

static size_t stride_of(uint16_t attr_id)
{
    switch (attr_id) {
    case CS_SA_ATTR_NODE_RECORD:
        return cs_sa_record_stride(CS_SA_NODE_RECORD_SIZE);
    case CS_SA_ATTR_PORT_INFO_RECORD:
        return cs_sa_record_stride(CS_SA_PORT_INFO_RECORD_SIZE);
    case CS_SA_ATTR_LINK_RECORD:
        return cs_sa_record_stride(CS_SA_LINK_RECORD_SIZE);
    case CS_SA_ATTR_GUID_INFO_RECORD:
        return cs_sa_record_stride(CS_SA_GUID_INFO_RECORD_SIZE);
    case CS_SA_ATTR_PATH_RECORD:
        return CS_SA_PATH_RECORD_SIZE;
    case CS_SA_ATTR_SWITCH_INFO_RECORD:
        return cs_sa_record_stride(CS_SA_SWITCH_INFO_RECORD_SIZE);
    case CS_SA_ATTR_LFT_RECORD:
        return cs_sa_record_stride(CS_SA_LFT_RECORD_SIZE);
    case CS_SA_ATTR_SL2VL_TABLE_RECORD:
        return cs_sa_record_stride(CS_SA_SL2VL_RECORD_SIZE);
    case CS_SA_ATTR_MCMEMBER_RECORD:
        return cs_sa_record_stride(CS_SA_MCMEMBER_RECORD_SIZE);
    case CS_SA_ATTR_PKEY_TABLE_RECORD:
        return cs_sa_record_stride(CS_SA_PKEY_TABLE_RECORD_SIZE);
    case CS_SA_ATTR_VL_ARB_TABLE_RECORD:
        return cs_sa_record_stride(CS_SA_VL_ARB_RECORD_SIZE);
    case CS_SA_ATTR_SERVICE_RECORD:
        return cs_sa_record_stride(CS_SA_SERVICE_RECORD_SIZE);
    case CS_SA_ATTR_MFT_RECORD:
        return cs_sa_record_stride(CS_SA_MFT_RECORD_SIZE);
    case CS_SA_ATTR_INFORM_INFO_RECORD:
        return cs_sa_record_stride(CS_SA_INFORM_INFO_RECORD_SIZE);
    case CS_SA_ATTR_SM_INFO_RECORD:
        return cs_sa_record_stride(CS_SA_SM_INFO_RECORD_SIZE);
    default:
        return 0;
    }
}

static void check_reply(const uint8_t *req, size_t req_len, int rc, const uint8_t *resp, size_t len,
                        size_t room)
{
    if (rc == 0) {
        if (len != 0)
            abort();
        return;
    }
    if (rc != 1 || len < CS_SA_HEADER_SIZE || len > room || req_len < 24)
        abort();
    struct cs_sa_header h;
    cs_sa_header_decode(resp, &h);
    if (!(h.method & CS_SA_METHOD_RESPONSE) || h.sm_key != 0 || memcmp(resp + 8, req + 8, 8) != 0 ||
        h.mgmt_class != CS_SA_CLASS)
        abort();
    if (len == CS_SA_MAD_SIZE)
        return;
    /* Anything else is a successful table of whole records. */
    size_t stride = stride_of(h.attr_id);
    if (h.method != CS_SA_METHOD_GET_TABLE_RESP || h.status != 0 || stride == 0 ||
        (len - CS_SA_HEADER_SIZE) % stride != 0 ||
        h.rmpp_flags != (CS_RMPP_FLAG_ACTIVE | CS_RMPP_FLAG_FIRST | CS_RMPP_FLAG_LAST) ||
        h.rmpp_payload_length != len - CS_SA_PAYLOAD_BASE ||
        (len > CS_SA_HEADER_SIZE && h.attr_offset * 8u != stride))
        abort();
    /* Every PathRecord carries the caching flag. */
    if (h.attr_id == CS_SA_ATTR_PATH_RECORD)
        for (size_t at = CS_SA_HEADER_SIZE; at < len; at += stride)
            if ((resp[at + 44] & 0x70) != 0x40)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!subnet.resp)
        build_subnet();
    fresh_store();
    for (size_t at = 0; at < size; at += 1 + CS_SA_MAD_SIZE) {
        uint16_t requester = data[at] % 32;
        subnet.now_ms += 500;
        const uint8_t *req = data + at + 1;
        size_t req_len = size - at - 1 < CS_SA_MAD_SIZE ? size - at - 1 : CS_SA_MAD_SIZE;
        size_t len = 12345;
        int rc = cs_sa_answer(subnet.db, requester, req, req_len, subnet.resp, ROOM, &len);
        check_reply(req, req_len, rc, subnet.resp, len, ROOM);
        drain_reports(CS_TRAP_MGID_CREATED, CS_TRAP_MGID_DESTROYED);
        /* With only one MAD of room, a table that does not fit is refused, never cut (a Set or
         * Delete asked again finds what the first one left: the same reply or a refusal). */
        rc = cs_sa_answer(subnet.db, requester, req, req_len, subnet.resp, CS_SA_MAD_SIZE, &len);
        check_reply(req, req_len, rc, subnet.resp, len, CS_SA_MAD_SIZE);
        drain_reports(CS_TRAP_MGID_CREATED, CS_TRAP_MGID_DESTROYED);
    }
    check_store();
    check_services();
    check_groups();
    check_informs();
    /* Host 3 comes into service: Reports only to subscribers, never more than there are. */
    struct cs_notice n;
    uint8_t gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0x03, 0x01};
    cs_notice_from_sm(CS_TRAP_GID_IN_SERVICE, 1, subnet.opt.subnet_prefix, subnet.sm.guid, gid, &n);
    struct cs_error err;
    uint32_t before = cs_informs_count(subnet.opt.informs);
    int queued = cs_sa_report_notice(subnet.db, &n, &err);
    if (queued < 0 || (uint32_t)queued > before)
        abort();
    drain_reports(CS_TRAP_GID_IN_SERVICE, CS_TRAP_GID_IN_SERVICE);
    check_informs();
    return 0;
}
