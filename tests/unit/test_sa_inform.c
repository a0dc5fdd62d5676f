/* Event subscriptions in the SA (include/cloudsm/informs.h, src/sa/informs.c, sa_inform.c):
 * Set(InformInfo), InformInfoRecords and the matching of notices to subscribers by OpenSM 3.3.23's
 * rules, on the PGFT rig as ibsim shows it to OpenSM (host k's port GUID 0x0010000000000k01; host
 * 0, the SM's, has LID 1, hosts 1.. LIDs 8..). What each rule was checked against on ibsim is in
 * tests/integration/cloudsmd_inform.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/informs.h"
#include "cloudsm/mcast.h"
#include "sa_rig.h"

#define HOST0 1
#define HOST1 8
#define HOST2 9
#define HOST3 10

/* Hosts are limited members of the default partition (the SM's port a full one): two hosts
 * share a partition only in Blue (hosts 1 and 3). */
static const char PARTITIONS[] = "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
                                 "Blue=0x0001, ipoib : 0x0010000000000101=full,\n"
                                 "  0x0010000000000301=full ;\n";

struct irig {
    struct rig r;
    struct cs_sm_identity sm;
    struct cs_informs *s;
    struct cs_mcast_groups *g;
};

static void irig_open(struct irig *x, const char *partitions)
{
    struct cs_fabric f;
    struct cs_error err;
    gen_pgft(&f);
    rig_ibsim(&x->r, &f);
    cs_fabric_free(&f);
    assert_non_null(x->s = cs_informs_create(&err));
    assert_non_null(x->g = cs_mcast_groups_create(&err));
    x->r.opt.informs = x->s;
    x->r.opt.mcast = x->g;
    x->sm = (struct cs_sm_identity){.guid = HOST_PORT_GUID(0), .state = CS_SMP_SM_STATE_MASTER};
    x->r.opt.sm = &x->sm;
    if (partitions) {
        rig_partition(&x->r, partitions);
        struct cs_log log = {0};
        assert_true(cs_mcast_groups_sync_partitions(x->g, &x->r.parts, &x->r.set, false, 18, &log,
                                                    &err) >= 1);
    }
    rig_build_db(&x->r);
}

static void irig_close(struct irig *x)
{
    rig_close(&x->r);
    cs_informs_destroy(x->s);
    cs_mcast_groups_destroy(x->g);
}

static void port_gid(unsigned host, uint8_t gid[16])
{
    cs_bits_set(gid, 0, 64, LINK_LOCAL);
    cs_bits_set(gid, 64, 64, HOST_PORT_GUID(host));
}

/* A Set(InformInfo) from requester (QP qpn); the status and the reply's InformInfo. */
static uint16_t set_from(struct irig *x, uint16_t requester, uint32_t qpn,
                         const struct cs_inform_info *ii, struct cs_inform_info *out)
{
    uint8_t record[CS_INFORM_INFO_SIZE], req[CS_SA_MAD_SIZE];
    cs_inform_info_encode(ii, record);
    sa_request(CS_SA_METHOD_SET, CS_SA_ATTR_INFORM_INFO, 0, 0, 0x51, record, sizeof record, req);
    struct cs_sa_address from = {.lid = requester, .qpn = qpn};
    assert_int_equal(
        cs_sa_answer_from(x->r.db, &from, req, sizeof req, x->r.resp, RESP_CAP, &x->r.resp_len), 1);
    struct cs_sa_header h = reply_header(&x->r);
    assert_int_equal(h.method, CS_SA_METHOD_GET_RESP);
    if (out)
        cs_inform_info_decode(x->r.resp + CS_SA_HEADER_SIZE, out);
    return h.status;
}

static uint16_t set(struct irig *x, uint16_t requester, const struct cs_inform_info *ii)
{
    return set_from(x, requester, 1, ii, NULL);
}

/* InformInfoRecords requester sees (GetTable with mask and record): how many. */
static uint32_t records(struct irig *x, uint16_t requester, uint64_t mask, const uint8_t *rec)
{
    uint8_t zero[CS_SA_INFORM_INFO_RECORD_SIZE] = {0};
    assert_int_equal(query(&x->r, requester, CS_SA_METHOD_GET_TABLE, CS_SA_ATTR_INFORM_INFO_RECORD,
                           mask, 0, rec ? rec : zero, CS_SA_INFORM_INFO_RECORD_SIZE),
                     0);
    return reply_records(&x->r, CS_SA_INFORM_INFO_RECORD_SIZE);
}

static void test_codecs(void **state)
{
    (void)state;
    struct cs_inform_info ii = cs_inform_info_all(), back;
    ii.gid[15] = 7;
    ii.lid_range_end = 0x1234;
    ii.qpn = 0xabcdef;
    ii.resp_time = 0x1f;
    ii.producer_type = 0x123456;
    uint8_t wire[CS_INFORM_INFO_SIZE];
    cs_inform_info_encode(&ii, wire);
    /* IBA 13.4.8.3's offsets: QPN in bytes 28..30, RespTimeValue the low 5 bits of 31,
     * ProducerType in 33..35. */
    assert_int_equal(wire[28], 0xab);
    assert_int_equal(wire[30], 0xef);
    assert_int_equal(wire[31], 0x1f);
    assert_int_equal(wire[32], 0);
    assert_int_equal(wire[33], 0x12);
    assert_int_equal(wire[35], 0x56);
    cs_inform_info_decode(wire, &back);
    uint8_t again[CS_INFORM_INFO_SIZE];
    cs_inform_info_encode(&back, again);
    assert_memory_equal(again, wire, sizeof wire);
    assert_int_equal(back.qpn, 0xabcdef);
    assert_int_equal(back.producer_type, 0x123456);

    struct cs_notice n, nb;
    uint8_t gid[16];
    port_gid(3, gid);
    cs_notice_from_sm(CS_TRAP_GID_OUT_OF_SERVICE, 1, LINK_LOCAL, HOST_PORT_GUID(0), gid, &n);
    uint8_t nw[CS_NOTICE_SIZE];
    cs_notice_encode(&n, nw);
    assert_int_equal(nw[0], 0x83); /* generic, subnet management */
    assert_int_equal(nw[3], 4);    /* a class manager */
    assert_int_equal(nw[5], 65);
    assert_int_equal(nw[7], 1);
    assert_memory_equal(nw + 16, gid, 16); /* DataDetails byte 6 */
    assert_int_equal(nw[79], 0x01);        /* IssuerGID: the SM's port */
    cs_notice_decode(nw, &nb);
    uint8_t nagain[CS_NOTICE_SIZE];
    cs_notice_encode(&nb, nagain);
    assert_memory_equal(nagain, nw, sizeof nw);
    assert_ptr_equal(cs_notice_source_gid(&n), n.details + CS_NOTICE_DETAILS_GID_OFFSET);
    n.trap_number = 128;
    assert_ptr_equal(cs_notice_source_gid(&n), n.issuer_gid);
}

/* Subscribe, replace, refuse, unsubscribe (OpenSM's infr_rcv_process_set_method). */
static void test_set_rules(void **state)
{
    (void)state;
    struct irig x;
    irig_open(&x, NULL);
    struct cs_inform_info ii = cs_inform_info_all(), out;
    ii.qpn = 0x55; /* the InformInfo's QPN: answered as sent, kept as the requester's */
    assert_int_equal(set_from(&x, HOST1, 1, &ii, &out), 0);
    assert_int_equal(out.qpn, 0x55);
    assert_int_equal(out.subscribe, 1);
    assert_int_equal(reply_header(&x.r).attr_offset, 5); /* 36 bytes in 8-byte words */
    assert_int_equal(cs_informs_count(x.s), 1);
    const struct cs_subscription *sub = cs_informs_at(x.s, 0);
    assert_true(sub->subscriber_guid == HOST_PORT_GUID(1));
    assert_int_equal(sub->info.qpn, 1);
    assert_int_equal(sub->to.lid, HOST1);
    /* The same again replaces it; another RespTimeValue is another subscription, first. */
    assert_int_equal(set(&x, HOST1, &ii), 0);
    assert_int_equal(cs_informs_count(x.s), 1);
    ii.resp_time = 19;
    assert_int_equal(set(&x, HOST1, &ii), 0);
    assert_int_equal(cs_informs_count(x.s), 2);
    assert_int_equal(cs_informs_at(x.s, 0)->info.resp_time, 19);
    /* From another QP: another subscription. */
    assert_int_equal(set_from(&x, HOST1, 0x77, &ii, NULL), 0);
    assert_int_equal(cs_informs_count(x.s), 3);
    /* Subscribe 2: refused, answered as it came. */
    ii.subscribe = 2;
    assert_int_equal(set_from(&x, HOST1, 1, &ii, &out), CS_SA_STATUS_REQ_INVALID);
    assert_int_equal(out.subscribe, 2);
    /* Unsubscribing what is not there: refused with Subscribe 0. */
    struct cs_inform_info gone = cs_inform_info_all();
    gone.subscribe = 0;
    gone.trap_number = 99;
    assert_int_equal(set_from(&x, HOST1, 1, &gone, &out), CS_SA_STATUS_REQ_INVALID);
    assert_int_equal(out.subscribe, 0);
    /* Unsubscribing names the QPN kept (the requester's) and the RespTimeValue. */
    ii = cs_inform_info_all();
    ii.subscribe = 0;
    ii.qpn = 0x55;
    assert_int_equal(set(&x, HOST1, &ii), CS_SA_STATUS_REQ_INVALID);
    ii.qpn = 1;
    assert_int_equal(set(&x, HOST1, &ii), 0);
    assert_int_equal(cs_informs_count(x.s), 2);
    /* Only Set; a local caller has no port to report to. */
    uint8_t record[CS_INFORM_INFO_SIZE] = {0};
    assert_int_equal(
        query(&x.r, HOST1, CS_SA_METHOD_GET, CS_SA_ATTR_INFORM_INFO, 0, 0, record, sizeof record),
        CS_SMP_STATUS_ATTR_UNSUPPORTED);
    ii = cs_inform_info_all();
    assert_int_equal(set_from(&x, 0, 1, &ii, NULL), CS_SA_STATUS_REQ_INVALID);
    irig_close(&x);
}

/* o13-14.1.1: a subscription names only ports the requester shares a partition with. */
static void test_access_rules(void **state)
{
    (void)state;
    struct irig x;
    irig_open(&x, PARTITIONS);
    struct cs_inform_info ii = cs_inform_info_all(), out;
    port_gid(3, ii.gid);
    assert_int_equal(set_from(&x, HOST2, 1, &ii, &out), CS_SA_STATUS_REQ_INVALID);
    assert_int_equal(out.subscribe, 0);
    assert_int_equal(set(&x, HOST1, &ii), 0); /* Blue */
    ii.gid[15] = 0x77;                        /* no such port */
    assert_int_equal(set(&x, HOST1, &ii), CS_SA_STATUS_REQ_INVALID);
    port_gid(0, ii.gid); /* the SM's port: a full member */
    assert_int_equal(set(&x, HOST2, &ii), 0);
    memset(ii.gid, 0, 16);
    ii.lid_range_begin = HOST3;
    ii.lid_range_end = 0; /* the begin alone */
    assert_int_equal(set(&x, HOST2, &ii), CS_SA_STATUS_REQ_INVALID);
    ii.lid_range_begin = HOST0;
    ii.lid_range_end = HOST2; /* the SM, hosts 1 and 2 ... host 1 shares nothing with host 2 */
    assert_int_equal(set(&x, HOST2, &ii), CS_SA_STATUS_REQ_INVALID);
    ii.lid_range_begin = 2; /* switches 2..7: ALL made their port 0 limited members too */
    ii.lid_range_end = 7;
    assert_int_equal(set(&x, HOST2, &ii), CS_SA_STATUS_REQ_INVALID);
    ii.lid_range_begin = HOST0; /* the SM alone */
    ii.lid_range_end = HOST0;
    assert_int_equal(set(&x, HOST2, &ii), 0);
    ii.lid_range_begin = 20; /* to beyond the highest LID (28): cut there, all switches */
    ii.lid_range_end = 5000;
    assert_int_equal(set(&x, HOST2, &ii), CS_SA_STATUS_REQ_INVALID);
    ii.lid_range_begin = 1000; /* beyond the highest LID */
    ii.lid_range_end = 1001;
    assert_int_equal(set(&x, HOST2, &ii), CS_SA_STATUS_REQ_INVALID);
    irig_close(&x);
}

/* InformInfoRecords: SubscriberGID and Enum match, subscribers shown to who shares with them. */
static void test_records(void **state)
{
    (void)state;
    struct irig x;
    irig_open(&x, PARTITIONS);
    struct cs_inform_info ii = cs_inform_info_all();
    assert_int_equal(set(&x, HOST1, &ii), 0);
    ii.trap_number = 64;
    assert_int_equal(set(&x, HOST1, &ii), 0);
    assert_int_equal(set(&x, HOST2, &ii), 0);
    assert_int_equal(set(&x, HOST3, &ii), 0);
    assert_int_equal(records(&x, HOST1, 0, NULL), 3); /* its own and host 3's */
    assert_int_equal(records(&x, HOST2, 0, NULL), 1); /* its own */
    assert_int_equal(records(&x, 0, 0, NULL), 4);     /* a local caller sees all */
    /* Newest first, with the SubscriberGID, Enum 0 and the QPN kept. */
    const uint8_t *first = record_at(&x.r, CS_SA_INFORM_INFO_RECORD_SIZE, 0);
    uint8_t gid[16];
    port_gid(3, gid);
    assert_memory_equal(first, gid, 16);
    assert_int_equal(first[16] | first[17], 0);
    struct cs_inform_info got;
    cs_inform_info_decode(first + 24, &got);
    assert_int_equal(got.trap_number, 64);
    uint8_t want[CS_SA_INFORM_INFO_RECORD_SIZE] = {0};
    port_gid(1, want);
    assert_int_equal(records(&x, HOST1, CS_SA_IIR_SUBSCRIBER_GID, want), 2);
    assert_int_equal(records(&x, HOST2, CS_SA_IIR_SUBSCRIBER_GID, want), 0);
    want[17] = 1; /* Enum 1: none */
    assert_int_equal(records(&x, HOST1, CS_SA_IIR_SUBSCRIBER_GID | CS_SA_IIR_ENUM, want), 0);
    irig_close(&x);
}

/* The Reports a notice queues: to whom, for which filters, and who may see the source. */
static void test_notice_matching(void **state)
{
    (void)state;
    struct irig x;
    irig_open(&x, PARTITIONS);
    struct cs_error err;
    struct cs_inform_info all = cs_inform_info_all(), only64 = cs_inform_info_all(),
                          only128 = cs_inform_info_all();
    only64.trap_number = 64;
    only128.trap_number = 128;
    struct cs_inform_info vendor = cs_inform_info_all();
    vendor.is_generic = 0;
    struct cs_inform_info producer = cs_inform_info_all();
    producer.producer_type = 2; /* switches only */
    assert_int_equal(set(&x, HOST1, &all), 0);
    assert_int_equal(set_from(&x, HOST1, 2, &only64, NULL), 0);
    assert_int_equal(set_from(&x, HOST1, 3, &only128, NULL), 0);
    assert_int_equal(set_from(&x, HOST1, 4, &vendor, NULL), 0);
    assert_int_equal(set_from(&x, HOST1, 5, &producer, NULL), 0);
    assert_int_equal(set(&x, HOST2, &all), 0);
    struct cs_notice n;
    uint8_t gid[16];
    port_gid(3, gid);
    cs_notice_from_sm(CS_TRAP_GID_IN_SERVICE, HOST0, LINK_LOCAL, HOST_PORT_GUID(0), gid, &n);
    /* Host 1 (Blue with host 3): its "all" and its trap-64 subscription; host 2 shares nothing
     * with host 3. */
    assert_int_equal(cs_sa_report_notice(x.r.db, &n, &err), 2);
    struct cs_report out[8];
    assert_int_equal(cs_informs_take_reports(x.s, out, 8), 2);
    assert_int_equal(out[0].to.lid, HOST1);
    assert_int_equal(out[0].to.qpn, 2); /* newest subscription first */
    assert_int_equal(out[1].to.qpn, 1);
    assert_memory_equal(&out[0].notice, &n, sizeof n);
    /* By issuer GID: the SM is these traps' issuer. */
    struct cs_inform_info by_gid = cs_inform_info_all();
    port_gid(3, by_gid.gid);
    assert_int_equal(set_from(&x, HOST1, 6, &by_gid, NULL), 0);
    assert_int_equal(cs_sa_report_notice(x.r.db, &n, &err), 2);
    port_gid(0, by_gid.gid);
    assert_int_equal(set_from(&x, HOST1, 7, &by_gid, NULL), 0);
    assert_int_equal(cs_sa_report_notice(x.r.db, &n, &err), 3);
    assert_int_equal(cs_informs_take_reports(x.s, out, 8), 5);
    irig_close(&x);
}

/* o13-17.1.2: a LID-range subscription that may not see a notice's source is removed. */
static void test_lid_range_subscription_removed(void **state)
{
    (void)state;
    struct irig x;
    irig_open(&x, PARTITIONS);
    struct cs_error err;
    struct cs_inform_info range = cs_inform_info_all();
    range.lid_range_begin = 1;
    range.lid_range_end = 1; /* the SM's LID: the issuer of traps 64..67 */
    assert_int_equal(set(&x, HOST2, &range), 0);
    assert_int_equal(set(&x, HOST2,
                         &(struct cs_inform_info){.lid_range_begin = CS_INFORM_ALL_LIDS,
                                                  .is_generic = 1,
                                                  .subscribe = 1,
                                                  .type = CS_INFORM_ANY_16,
                                                  .trap_number = CS_INFORM_ANY_16,
                                                  .qpn = 1,
                                                  .resp_time = 3,
                                                  .producer_type = CS_INFORM_ANY_PRODUCER}),
                     0);
    assert_int_equal(cs_informs_count(x.s), 2);
    struct cs_notice n;
    uint8_t gid[16];
    port_gid(3, gid);
    cs_notice_from_sm(CS_TRAP_GID_OUT_OF_SERVICE, HOST0, LINK_LOCAL, HOST_PORT_GUID(0), gid, &n);
    assert_int_equal(cs_sa_report_notice(x.r.db, &n, &err), 0);
    assert_int_equal(cs_informs_count(x.s), 1); /* the all-LIDs one stays */
    assert_int_equal(cs_informs_at(x.s, 0)->info.resp_time, 3);
    irig_close(&x);
}

/* Traps 66 and 67 as joins make and empty a group, for the subscribers in its partition. */
static void test_group_traps(void **state)
{
    (void)state;
    struct irig x;
    irig_open(&x, PARTITIONS);
    struct cs_inform_info all = cs_inform_info_all();
    assert_int_equal(set(&x, HOST1, &all), 0);
    assert_int_equal(set(&x, HOST2, &all), 0);
    static const uint8_t blue[16] = {0xff, 0x12, 0x40, 0x1b, 0x80, 0x01, 0,    0,
                                     0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
    struct cs_mcmember_record m = {0};
    memcpy(m.mgid, blue, 16);
    port_gid(3, m.port_gid);
    m.scope_state = (uint8_t)(CS_MCAST_SCOPE_LINK_LOCAL << 4 | CS_MCAST_JOIN_FULL);
    uint8_t rec[CS_SA_MCMEMBER_RECORD_SIZE];
    cs_sa_mcmember_record_encode(&m, rec);
    uint64_t mask = CS_SA_MCR_MGID | CS_SA_MCR_PORT_GID | CS_SA_MCR_JOIN_STATE;
    assert_int_equal(
        query(&x.r, HOST3, CS_SA_METHOD_SET, CS_SA_ATTR_MCMEMBER_RECORD, mask, 0, rec, sizeof rec),
        0);
    struct cs_report out[4];
    assert_int_equal(cs_informs_take_reports(x.s, out, 4), 1); /* host 1 only: Blue's P_Key */
    assert_int_equal(out[0].to.lid, HOST1);
    assert_int_equal(out[0].notice.trap_number, CS_TRAP_MGID_CREATED);
    assert_memory_equal(out[0].notice.details + CS_NOTICE_DETAILS_GID_OFFSET, blue, 16);
    assert_int_equal(out[0].notice.issuer_lid, HOST0);
    /* A second full member: no trap. The last one leaving: 67. */
    port_gid(1, m.port_gid);
    cs_sa_mcmember_record_encode(&m, rec);
    assert_int_equal(
        query(&x.r, HOST1, CS_SA_METHOD_SET, CS_SA_ATTR_MCMEMBER_RECORD, mask, 0, rec, sizeof rec),
        0);
    assert_int_equal(cs_informs_pending(x.s), 0);
    assert_int_equal(query(&x.r, HOST1, CS_SA_METHOD_DELETE, CS_SA_ATTR_MCMEMBER_RECORD, mask, 0,
                           rec, sizeof rec),
                     0);
    assert_int_equal(cs_informs_pending(x.s), 0);
    port_gid(3, m.port_gid);
    cs_sa_mcmember_record_encode(&m, rec);
    assert_int_equal(query(&x.r, HOST3, CS_SA_METHOD_DELETE, CS_SA_ATTR_MCMEMBER_RECORD, mask, 0,
                           rec, sizeof rec),
                     0);
    assert_int_equal(cs_informs_take_reports(x.s, out, 4), 1);
    assert_int_equal(out[0].notice.trap_number, CS_TRAP_MGID_DESTROYED);
    irig_close(&x);
}

/* Traps the ports sent: forwarded with the issuer's GID, but not 129..131. */
static void test_trap_forwarding(void **state)
{
    (void)state;
    struct irig x;
    irig_open(&x, NULL);
    struct cs_error err;
    struct cs_inform_info all = cs_inform_info_all();
    assert_int_equal(set(&x, HOST1, &all), 0);
    struct cs_notice n = {
        .is_generic = true, .type = 1, .producer_type = 2, .trap_number = 128, .issuer_lid = 2};
    assert_int_equal(cs_sa_report_trap(x.r.db, &n, &err), 1);
    struct cs_report out[2];
    assert_int_equal(cs_informs_take_reports(x.s, out, 2), 1);
    assert_true(cs_bits_get(out[0].notice.issuer_gid, 64, 64) == UINT64_C(0x0020000100000000));
    assert_true(cs_bits_get(out[0].notice.issuer_gid, 0, 64) == LINK_LOCAL);
    n.trap_number = 129;
    assert_int_equal(cs_sa_report_trap(x.r.db, &n, &err), 0);
    n.trap_number = 128;
    n.issuer_lid = 999; /* nobody's */
    assert_int_equal(cs_sa_report_trap(x.r.db, &n, &err), 0);
    irig_close(&x);
}

/* The store: identity by address, the subscriber's drop, the outbox's order. */
static void test_store(void **state)
{
    (void)state;
    struct cs_error err;
    struct cs_informs *s = cs_informs_create(&err);
    assert_non_null(s);
    struct cs_subscription a = {
        .subscriber_guid = 1, .info = cs_inform_info_all(), .to = {.lid = 5, .qpn = 1}};
    struct cs_subscription b = a;
    b.to.qpn = 3; /* another address */
    assert_int_equal(cs_informs_add(s, &a, &err), 0);
    assert_int_equal(cs_informs_find(s, &b), UINT32_MAX);
    assert_int_equal(cs_informs_find(s, &a), 0);
    b.subscriber_guid = 2;
    assert_int_equal(cs_informs_add(s, &b, &err), 0);
    /* A GID subscription ignores the LID range; a zero-GID one compares it. */
    struct cs_subscription c = a;
    c.info.lid_range_end = 9;
    assert_int_equal(cs_informs_find(s, &c), UINT32_MAX);
    c = a;
    c.to.pkey_index = 5; /* the P_Key index and SL do not tell subscriptions apart */
    c.to.sl = 2;
    assert_int_equal(cs_informs_find(s, &c), 1); /* behind b, added after it */
    assert_int_equal(cs_informs_drop_subscriber(s, 1), 1);
    assert_int_equal(cs_informs_count(s), 1);
    struct cs_report r = {.to = {.lid = 1}};
    for (uint16_t i = 0; i < 3; i++) {
        r.notice.trap_number = i;
        assert_int_equal(cs_informs_queue_report(s, &r, &err), 0);
    }
    struct cs_report out[2];
    assert_int_equal(cs_informs_take_reports(s, out, 2), 2);
    assert_int_equal(out[0].notice.trap_number, 0);
    assert_int_equal(out[1].notice.trap_number, 1);
    assert_int_equal(cs_informs_pending(s), 1);
    assert_int_equal(cs_informs_take_reports(s, out, 2), 1);
    assert_int_equal(out[0].notice.trap_number, 2);
    /* A full outbox counts what it cannot hold. */
    for (uint32_t i = 0; i < CS_INFORMS_OUTBOX_MAX + 3; i++)
        assert_int_equal(cs_informs_queue_report(s, &r, &err), 0);
    assert_int_equal(cs_informs_pending(s), CS_INFORMS_OUTBOX_MAX);
    assert_int_equal(cs_informs_take_dropped(s), 3);
    assert_int_equal(cs_informs_take_dropped(s), 0);
    cs_informs_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codecs),
        cmocka_unit_test(test_set_rules),
        cmocka_unit_test(test_access_rules),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_notice_matching),
        cmocka_unit_test(test_lid_range_subscription_removed),
        cmocka_unit_test(test_group_traps),
        cmocka_unit_test(test_trap_forwarding),
        cmocka_unit_test(test_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
