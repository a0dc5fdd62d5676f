/* Multicast groups in the SA (include/cloudsm/mcast.h, src/sa/sa_mcast.c, mcast_groups.c,
 * mcast_partitions.c): the IPoIB groups partitions.conf makes, and joins, leaves and queries of
 * MCMemberRecords by OpenSM 3.3.23's rules, on the PGFT rig as ibsim shows it to OpenSM (host k's
 * port GUID 0x0010000000000k01; host 0 has LID 1, hosts 1.. LIDs 8..). What each rule was checked
 * against on ibsim is in tests/integration/cloudsmd_mcast.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/mcast.h"
#include "sa_rig.h"

#define HOST0 1
#define HOST1 8
#define HOST2 9
#define HOST3 10
#define HOST4 11

static const uint8_t BCAST[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,    0,
                                  0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
static const uint8_t BLUE[16] = {0xff, 0x12, 0x40, 0x1b, 0x80, 0x01, 0,    0,
                                 0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
static const uint8_t NAMED[16] = {0xff, 0x15, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

static const char PARTITIONS[] =
    "Default=0x7fff, ipoib : ALL=full ;\n"
    "Blue=0x0001, ipoib, mtu=4, rate=3, TClass=7 : 0x0010000000000101=full,\n"
    "  0x0010000000000201=full ;\n"
    "Red=0x0002, ipoib, scope=5, Q_Key=0x1234 : 0x0010000000000301=full,\n"
    "  mgid=ff12:a01b::77 ;\n";

#define JOIN_MASK (CS_SA_MCR_MGID | CS_SA_MCR_PORT_GID | CS_SA_MCR_JOIN_STATE)
#define CREATE_MASK                                                                                \
    (JOIN_MASK | CS_SA_MCR_QKEY | CS_SA_MCR_PKEY | CS_SA_MCR_TCLASS | CS_SA_MCR_SL |               \
     CS_SA_MCR_FLOW_LABEL)

struct mrig {
    struct rig r;
    struct cs_mcast_groups *g;
};

static void mrig_open(struct mrig *m, const char *partitions)
{
    struct cs_fabric f;
    struct cs_error err;
    gen_pgft(&f);
    rig_ibsim(&m->r, &f);
    cs_fabric_free(&f);
    m->g = cs_mcast_groups_create(&err);
    assert_non_null(m->g);
    m->r.opt.mcast = m->g;
    if (partitions)
        rig_partition(&m->r, partitions);
    struct cs_log log = {0};
    struct cs_partitions none;
    assert_int_equal(cs_partitions_init(&none, &err), 0);
    int made = cs_mcast_groups_sync_partitions(m->g, partitions ? &m->r.parts : &none,
                                               partitions ? &m->r.set : NULL, false,
                                               CS_SA_DEFAULT_SUBNET_TIMEOUT, &log, &err);
    assert_true(made >= 1);
    cs_partitions_free(&none);
    rig_build_db(&m->r);
}

static void mrig_close(struct mrig *m)
{
    rig_close(&m->r);
    cs_mcast_groups_destroy(m->g);
}

static struct cs_mcmember_record member(const uint8_t mgid[16], unsigned host, uint8_t join)
{
    struct cs_mcmember_record r = {0};
    memcpy(r.mgid, mgid, 16);
    uint64_t guid = HOST_PORT_GUID(host);
    for (int i = 0; i < 8; i++) {
        r.port_gid[i] = (uint8_t)(LINK_LOCAL >> (56 - 8 * i));
        r.port_gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
    }
    r.scope_state = (uint8_t)(CS_MCAST_SCOPE_LINK_LOCAL << 4 | join);
    return r;
}

/* A Set (join), Delete (leave), Get or GetTable of rec with mask from requester; the status, and
 * the first record of the reply in *out (when there is one). */
static uint16_t send_mcr(struct mrig *m, uint16_t requester, uint8_t method, uint64_t mask,
                         const struct cs_mcmember_record *rec, struct cs_mcmember_record *out,
                         uint64_t sm_key)
{
    uint8_t record[CS_SA_MCMEMBER_RECORD_SIZE], req[CS_SA_MAD_SIZE];
    cs_sa_mcmember_record_encode(rec, record);
    sa_request(method, CS_SA_ATTR_MCMEMBER_RECORD, mask, 0, 0x77, record, sizeof record, req);
    struct cs_sa_header h;
    cs_sa_header_decode(req, &h);
    h.sm_key = sm_key;
    cs_sa_header_encode(&h, req);
    assert_int_equal(ask(&m->r, requester, req, sizeof req), 1);
    struct cs_sa_header rh = reply_header(&m->r);
    if (out && m->r.resp_len >= CS_SA_HEADER_SIZE + CS_SA_MCMEMBER_RECORD_SIZE)
        cs_sa_mcmember_record_decode(m->r.resp + CS_SA_HEADER_SIZE, out);
    return rh.status;
}

static uint32_t records_in_reply(const struct mrig *m)
{
    return (uint32_t)((m->r.resp_len - CS_SA_HEADER_SIZE) /
                      cs_sa_record_stride(CS_SA_MCMEMBER_RECORD_SIZE));
}

/* partitions.conf's groups as OpenSM makes them: the broadcast group of each ipoib partition with
 * its flags (no scope: the broadcast group stays link-local; Q_Key and TClass apply), mgid= groups
 * at the partition's scopes, MLIDs in file order from 0xC000. */
static void test_partition_groups(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, PARTITIONS);
    assert_int_equal(cs_mcast_groups_count(m.g), 4);
    const struct cs_mcast_group *d = cs_mcast_groups_by_mlid(m.g, 0xc000);
    assert_non_null(d);
    assert_memory_equal(d->rec.mgid, BCAST, 16);
    assert_int_equal(d->rec.qkey, 0x0b1b);
    assert_int_equal(d->rec.pkey, 0xffff);
    assert_int_equal(d->rec.mtu, 0x84);
    assert_int_equal(d->rec.rate, 0x83);
    assert_int_equal(d->rec.packet_life, 0x80 | CS_SA_DEFAULT_SUBNET_TIMEOUT);
    assert_int_equal(d->rec.scope_state, 0x21);
    assert_int_equal(d->rec.hop_limit, 0);
    assert_true(d->well_known);
    const struct cs_mcast_group *b = cs_mcast_groups_by_mlid(m.g, 0xc001);
    assert_memory_equal(b->rec.mgid, BLUE, 16);
    assert_int_equal(b->rec.tclass, 7);
    assert_int_equal(b->rec.pkey, 0x8001);
    const struct cs_mcast_group *red = cs_mcast_groups_by_mlid(m.g, 0xc002);
    assert_int_equal(red->rec.mgid[1], 0x12); /* scope=5 is not the broadcast group's */
    assert_int_equal(red->rec.qkey, 0x1234);
    const struct cs_mcast_group *named = cs_mcast_groups_by_mlid(m.g, 0xc003);
    static const uint8_t ff15[16] = {0xff, 0x15, 0xa0, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x77};
    assert_memory_equal(named->rec.mgid, ff15, 16);
    assert_int_equal(named->rec.hop_limit, 0xff); /* beyond link-local */
    assert_int_equal(named->rec.qkey, 0x1234);
    /* Reading the same set again makes nothing new. */
    struct cs_error err;
    struct cs_log log = {0};
    assert_int_equal(
        cs_mcast_groups_sync_partitions(m.g, &m.r.parts, &m.r.set, false, 18, &log, &err), 0);
    assert_int_equal(cs_mcast_groups_count(m.g), 4);
    mrig_close(&m);
}

/* With QoS a partition's sl= flag is its groups' SL too (OpenSM uses it only then). */
static void test_partition_sl_with_qos(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, "Default=0x7fff, ipoib : ALL=full ;\n"
                  "Blue=0x0001, ipoib, sl=3 : 0x0010000000000101=full ;\n");
    assert_int_equal(cs_mcast_groups_by_mlid(m.g, 0xc001)->rec.sl, 0); /* made without QoS */
    struct cs_mcast_groups *with_qos;
    struct cs_error err;
    struct cs_log log = {0};
    assert_non_null(with_qos = cs_mcast_groups_create(&err));
    assert_int_equal(
        cs_mcast_groups_sync_partitions(with_qos, &m.r.parts, &m.r.set, true, 18, &log, &err), 2);
    assert_int_equal(cs_mcast_groups_by_mlid(with_qos, 0xc001)->rec.sl, 3);
    assert_int_equal(cs_mcast_groups_by_mlid(with_qos, 0xc000)->rec.sl, 0);
    cs_mcast_groups_destroy(with_qos);
    mrig_close(&m);
}

/* Without a partitions file: Default's broadcast group alone, with OpenSM's defaults. */
static void test_default_group_without_file(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, NULL);
    assert_int_equal(cs_mcast_groups_count(m.g), 1);
    assert_memory_equal(cs_mcast_groups_at(m.g, 0)->rec.mgid, BCAST, 16);
    assert_int_equal(cs_mcast_groups_at(m.g, 0)->rec.mlid, 0xc000);
    mrig_close(&m);
}

static void test_join_and_query(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, PARTITIONS);
    struct cs_mcmember_record rec = member(BCAST, 1, CS_MCAST_JOIN_FULL), out;
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_SET, JOIN_MASK, &rec, &out, 0), 0);
    assert_int_equal(reply_header(&m.r).method, CS_SA_METHOD_GET_RESP);
    assert_int_equal(out.mlid, 0xc000);
    assert_int_equal(out.qkey, 0x0b1b);
    assert_int_equal(out.mtu, 0x84);
    assert_int_equal(out.scope_state, 0x21);
    assert_memory_equal(out.port_gid, rec.port_gid, 16);
    rec = member(BCAST, 0, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST0, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0), 0);
    /* A second join adds its join state to the membership. */
    rec = member(BCAST, 1, CS_MCAST_JOIN_NON);
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_SET, JOIN_MASK, &rec, &out, 0), 0);
    assert_int_equal(out.scope_state, 0x23);
    const struct cs_mcast_group *d = cs_mcast_groups_by_mlid(m.g, 0xc000);
    assert_int_equal(d->num_members, 2);
    assert_int_equal(d->full_members, 2);
    /* Members in OpenSM's order: byte-swapped port GUIDs (0x..0001 before 0x..0101). */
    assert_int_equal(d->members[0].guid, HOST_PORT_GUID(0));
    /* Untrusted query: one record per group, PortGID and JoinState zero. */
    struct cs_mcmember_record q = {0};
    q.mlid = 0xc000;
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_GET_TABLE, CS_SA_MCR_MLID, &q, &out, 0), 0);
    assert_int_equal(records_in_reply(&m), 1);
    static const uint8_t zero[16];
    assert_memory_equal(out.port_gid, zero, 16);
    assert_int_equal(out.scope_state, 0x20);
    /* Trusted (the SM's key): every member. */
    m.r.opt.sm_key = 5;
    rig_build_db(&m.r);
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_GET_TABLE, CS_SA_MCR_MLID, &q, &out, 5), 0);
    assert_int_equal(records_in_reply(&m), 2);
    assert_int_equal(out.scope_state, 0x21);
    /* A requester sees only its partitions' groups: host 3 is in Red, not Blue. */
    assert_int_equal(send_mcr(&m, HOST3, CS_SA_METHOD_GET_TABLE, 0, &q, NULL, 0), 0);
    assert_int_equal(records_in_reply(&m), 3); /* Default, Red, Red's mgid= group */
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_GET_TABLE, 0, &q, NULL, 0), 0);
    assert_int_equal(records_in_reply(&m), 2); /* Default, Blue */
    mrig_close(&m);
}

static void test_join_refusals(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, PARTITIONS);
    struct cs_mcmember_record rec = member(BLUE, 4, CS_MCAST_JOIN_FULL);
    /* Not in the group's partition (OpenSM ERR 1B14). */
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    /* MGID, PortGID and JoinState are required. */
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET, CS_SA_MCR_MGID, &rec, NULL, 0),
                     CS_SA_STATUS_INSUFFICIENT_COMPONENTS);
    /* A group that does not exist: no create components, then not a full member. */
    rec = member(NAMED, 4, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_INSUFFICIENT_COMPONENTS);
    rec = member(NAMED, 4, CS_MCAST_JOIN_NON);
    rec.qkey = 1;
    rec.pkey = 0xffff;
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET, CREATE_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    /* Join state 0. */
    rec = member(BCAST, 4, 0);
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    /* An MTU the group does not have, asked exactly. */
    rec = member(BCAST, 4, CS_MCAST_JOIN_FULL);
    rec.mtu = CS_SA_SELECTOR_EXACTLY << 6 | 5;
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET,
                              JOIN_MASK | CS_SA_MCR_MTU | CS_SA_MCR_MTU_SELECTOR, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    /* A port the subnet does not have. */
    rec = member(BCAST, 4, CS_MCAST_JOIN_FULL);
    rec.port_gid[15] = 0x77;
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    /* Nothing changed. */
    assert_int_equal(cs_mcast_groups_count(m.g), 4);
    assert_int_equal(cs_mcast_groups_by_mlid(m.g, 0xc000)->num_members, 0);
    assert_false(cs_mcast_groups_dirty(m.g));
    mrig_close(&m);
}

static void test_create_and_delete(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, PARTITIONS);
    /* MGID 0: the SA makes one, ff12:a01b + prefix with a count over bytes 10..13; the next
     * free MLID. */
    struct cs_mcmember_record rec = member((const uint8_t[16]){0}, 4, CS_MCAST_JOIN_FULL), out;
    rec.qkey = 0x11;
    rec.pkey = 0xffff;
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_SET, CREATE_MASK, &rec, &out, 0), 0);
    static const uint8_t made[16] = {0xff, 0x12, 0xa0, 0x1b, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(out.mgid, made, 16);
    assert_int_equal(out.mlid, 0xc004);
    assert_int_equal(out.qkey, 0x11);
    assert_int_equal(out.mtu, 0x84); /* the creator's MTUCap */
    /* A named group: joined send-only by another, then its only full member leaves: the group
     * goes with its send-only member, and its MLID is free and dirty. */
    rec = member(NAMED, 2, CS_MCAST_JOIN_FULL);
    rec.qkey = 0x22;
    rec.pkey = 0xffff;
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_SET, CREATE_MASK, &rec, &out, 0), 0);
    assert_int_equal(out.mlid, 0xc005);
    rec = member(NAMED, 3, CS_MCAST_JOIN_SEND_ONLY);
    assert_int_equal(send_mcr(&m, HOST3, CS_SA_METHOD_SET, JOIN_MASK, &rec, &out, 0), 0);
    assert_int_equal(out.scope_state, 0x24);
    uint16_t dirty[8];
    assert_int_equal(cs_mcast_groups_take_dirty(m.g, dirty, 8), 2);
    assert_int_equal(dirty[0], 0xc004);
    assert_int_equal(dirty[1], 0xc005);
    /* Leave: not a member; bits it does not hold; then the full member. */
    rec = member(NAMED, 4, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    rec = member(NAMED, 3, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST3, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    /* Another port may not leave for a member that joined itself. */
    rec = member(NAMED, 2, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST3, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, &out, 0), 0);
    assert_int_equal(reply_header(&m.r).method, CS_SA_METHOD_DELETE_RESP);
    assert_int_equal(out.scope_state, 0x20);
    assert_null(cs_mcast_groups_by_mlid(m.g, 0xc005));
    assert_int_equal(cs_mcast_groups_take_dirty(m.g, dirty, 8), 1);
    assert_int_equal(dirty[0], 0xc005);
    /* The MLID is given again; a group whose P_Key the creator lacks is refused. */
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_SET, CREATE_MASK, &rec, &out, 0),
                     CS_SA_STATUS_REQ_INVALID);
    assert_null(cs_mcast_groups_find(m.g, NAMED));
    rec.pkey = 0xffff;
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_SET, CREATE_MASK, &rec, &out, 0), 0);
    assert_int_equal(out.mlid, 0xc005);
    mrig_close(&m);
}

/* A well-known group keeps existing without members; leaving keeps a membership with other bits
 * while another full member holds the group. */
static void test_well_known_and_partial_leave(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, PARTITIONS);
    struct cs_mcmember_record rec = member(BCAST, 1, CS_MCAST_JOIN_FULL | CS_MCAST_JOIN_NON), out;
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0), 0);
    rec = member(BCAST, 2, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0), 0);
    rec = member(BCAST, 1, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, &out, 0), 0);
    assert_int_equal(out.scope_state, 0x22); /* still a non-member */
    const struct cs_mcast_group *d = cs_mcast_groups_by_mlid(m.g, 0xc000);
    assert_int_equal(d->num_members, 2);
    assert_int_equal(d->full_members, 1);
    rec = member(BCAST, 2, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, NULL, 0), 0);
    /* No full member left: the non-member goes too, the group stays (well known). */
    d = cs_mcast_groups_by_mlid(m.g, 0xc000);
    assert_non_null(d);
    assert_int_equal(d->num_members, 0);
    mrig_close(&m);
}

/* A proxy join: another port of the partition joins for a port; only a port of the partition may
 * change that membership later. */
static void test_proxy_join(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, PARTITIONS);
    struct cs_mcmember_record rec = member(BLUE, 2, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0), 0);
    const struct cs_mcast_group *b = cs_mcast_groups_by_mlid(m.g, 0xc001);
    assert_true(b->members[0].proxy);
    /* Host 4 shares Default with host 2 but is not in Blue. */
    assert_int_equal(send_mcr(&m, HOST4, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, NULL, 0),
                     CS_SA_STATUS_REQ_INVALID);
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_DELETE, JOIN_MASK, &rec, NULL, 0), 0);
    mrig_close(&m);
}

/* Partitions read again: a group whose partition went stops being well known and goes when it
 * has no full member; ports that left the fabric lose their memberships. */
static bool none_present(void *arg, uint64_t guid)
{
    (void)arg;
    return guid != HOST_PORT_GUID(2);
}

static void test_partitions_change_and_ports_gone(void **state)
{
    (void)state;
    struct mrig m;
    mrig_open(&m, PARTITIONS);
    struct cs_mcmember_record rec = member(BLUE, 1, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST1, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0), 0);
    rec = member(BLUE, 2, CS_MCAST_JOIN_FULL);
    assert_int_equal(send_mcr(&m, HOST2, CS_SA_METHOD_SET, JOIN_MASK, &rec, NULL, 0), 0);
    static const char ONLY_DEFAULT[] = "Default=0x7fff, ipoib : ALL=full ;\n";
    rig_partition(&m.r, ONLY_DEFAULT);
    struct cs_error err;
    struct cs_log log = {0};
    assert_int_equal(
        cs_mcast_groups_sync_partitions(m.g, &m.r.parts, &m.r.set, false, 18, &log, &err), 0);
    /* Red's groups had no member: gone. Blue's is held by its members, no longer well known. */
    assert_int_equal(cs_mcast_groups_count(m.g), 2);
    const struct cs_mcast_group *b = cs_mcast_groups_by_mlid(m.g, 0xc001);
    assert_non_null(b);
    assert_false(b->well_known);
    /* Host 2 is gone from the fabric; host 1's membership holds the group. */
    assert_int_equal(cs_mcast_groups_drop_ports(m.g, none_present, NULL), 1);
    assert_non_null(cs_mcast_groups_by_mlid(m.g, 0xc001));
    assert_int_equal(cs_mcast_groups_by_mlid(m.g, 0xc001)->num_members, 1);
    mrig_close(&m);
}

/* The codec: every field where IBA 15.2.5.17 puts it. */
static void test_record_codec(void **state)
{
    (void)state;
    struct cs_mcmember_record r = member(BCAST, 3, CS_MCAST_JOIN_FULL), back;
    r.qkey = 0x01020304;
    r.mlid = 0xc123;
    r.mtu = 0x84;
    r.tclass = 0x56;
    r.pkey = 0x8001;
    r.rate = 0x87;
    r.packet_life = 0x92;
    r.sl = 0xa;
    r.flow_label = 0xbcdef;
    r.hop_limit = 0x3f;
    r.proxy_join = 1;
    uint8_t b[CS_SA_MCMEMBER_RECORD_SIZE];
    cs_sa_mcmember_record_encode(&r, b);
    assert_int_equal(b[32], 0x01);
    assert_int_equal(b[36], 0xc1);
    assert_int_equal(b[38], 0x84);
    assert_int_equal(b[44], 0xab); /* SL 0xa, FlowLabel 0xbcdef */
    assert_int_equal(b[45], 0xcd);
    assert_int_equal(b[46], 0xef);
    assert_int_equal(b[47], 0x3f);
    assert_int_equal(b[48], 0x21);
    assert_int_equal(b[49], 0x80);
    cs_sa_mcmember_record_decode(b, &back);
    uint8_t again[CS_SA_MCMEMBER_RECORD_SIZE];
    cs_sa_mcmember_record_encode(&back, again);
    assert_memory_equal(again, b, sizeof b);
    assert_int_equal(back.flow_label, 0xbcdef);
    assert_int_equal(back.sl, 0xa);
    assert_int_equal(back.proxy_join, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_groups),
        cmocka_unit_test(test_default_group_without_file),
        cmocka_unit_test(test_partition_sl_with_qos),
        cmocka_unit_test(test_join_and_query),
        cmocka_unit_test(test_join_refusals),
        cmocka_unit_test(test_create_and_delete),
        cmocka_unit_test(test_well_known_and_partial_leave),
        cmocka_unit_test(test_proxy_join),
        cmocka_unit_test(test_partitions_change_and_ports_gone),
        cmocka_unit_test(test_record_codec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
