/* The SA client (src/sa/sa_client.c) against the library's own SA: the PGFT of sm_fixtures.h
 * brought up by the SM core on the SMA model, cs_sa_answer at the far end of the transport
 * (sa_client_fixtures.h). Records are compared with what the SA answers when asked directly,
 * queries are counted at the SA, and the reply decoder is checked on malformed replies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/sa_client.h"
#include "sa_client_fixtures.h"
#include "sm_fixtures.h"

struct ctx {
    struct cs_fabric f;
    struct sa_fabric x;
    struct sa_loop loop;
    struct cs_gmp_transport t;
    struct cs_sa_client *c;
};

static void open_ctx(struct ctx *k, bool caching, const struct cs_sa_client_options *opt)
{
    struct cs_error err;
    gen_pgft(&k->f);
    sa_fabric_up(&k->x, &k->f, caching);
    sa_loop_init(&k->loop, &k->x, FX_HOST_PORT_GUID(3));
    k->t = sa_loop_transport(&k->loop);
    assert_int_equal(cs_sa_client_create(&k->t, opt, &k->c, &err), 0);
}

static void close_ctx(struct ctx *k)
{
    cs_sa_client_destroy(k->c);
    sa_loop_free(&k->loop);
    sa_fabric_down(&k->x);
    cs_fabric_free(&k->f);
}

/* SGID/DGID query between two hosts, the form rdma_cm and the path cache send. */
static struct cs_sa_path_query gid_query(uint64_t src_guid, uint64_t dst_guid)
{
    struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET};
    q.component_mask = CS_SA_PR_DGID | CS_SA_PR_SGID | CS_SA_PR_REVERSIBLE | CS_SA_PR_NUMB_PATH;
    cs_gid_make(q.record.sgid, FX_LINK_LOCAL, src_guid);
    cs_gid_make(q.record.dgid, FX_LINK_LOCAL, dst_guid);
    q.record.reversible = 1;
    q.record.numb_path = 1;
    return q;
}

/* What the SA answers to the same request asked directly: the reference. */
static void direct_answer(struct ctx *k, const struct cs_sa_path_query *q, uint8_t *resp,
                          size_t cap, size_t *len)
{
    uint8_t req[CS_SA_MAD_SIZE];
    cs_sa_path_request_encode(q, 0x1234, 0, req);
    assert_int_equal(cs_sa_answer(k->x.db, sa_fabric_lid(&k->x, FX_HOST_PORT_GUID(3)), req,
                                  sizeof req, resp, cap, len),
                     1);
}

static void test_get_matches_direct_answer(void **state)
{
    (void)state;
    struct ctx k;
    open_ctx(&k, false, NULL);
    struct cs_error err;
    struct cs_sa_path_query q = gid_query(FX_HOST_PORT_GUID(3), FX_HOST_PORT_GUID(9));
    struct cs_sa_path_record got;
    uint16_t status = 0xffff;
    assert_int_equal(cs_sa_path_get(k.c, &q, &got, &status, &err), 0);
    assert_int_equal(status, 0);
    assert_int_equal(k.loop.requests, 1);

    uint8_t resp[CS_SA_MAD_SIZE];
    size_t len;
    direct_answer(&k, &q, resp, sizeof resp, &len);
    struct cs_sa_path_record want;
    cs_sa_path_record_decode(resp + CS_SA_HEADER_SIZE, &want);
    assert_memory_equal(&got, &want, sizeof got);
    assert_int_equal(got.dlid, sa_fabric_lid(&k.x, FX_HOST_PORT_GUID(9)));
    assert_int_equal(got.slid, sa_fabric_lid(&k.x, FX_HOST_PORT_GUID(3)));
    assert_int_equal(got.reserved_353, 0); /* no caching flag from this SM */

    /* The request on the wire: SubnAdmGet of a PathRecord, the record and mask as asked. */
    struct cs_sa_header h;
    cs_sa_header_decode(k.loop.last_request, &h);
    assert_int_equal(h.mgmt_class, CS_SA_CLASS);
    assert_int_equal(h.class_version, CS_SA_CLASS_VERSION);
    assert_int_equal(h.method, CS_SA_METHOD_GET);
    assert_int_equal(h.attr_id, CS_SA_ATTR_PATH_RECORD);
    assert_true(h.component_mask == q.component_mask);

    struct cs_sa_client_stats st = cs_sa_client_stats(k.c);
    assert_int_equal(st.queries, 1);
    assert_int_equal(st.sent, 1);
    assert_int_equal(st.answered, 1);
    assert_int_equal(st.timeouts + st.status + st.malformed + st.stray, 0);
    close_ctx(&k);
}

static void test_caching_flag_decoded(void **state)
{
    (void)state;
    struct ctx k;
    open_ctx(&k, true, NULL);
    struct cs_error err;
    struct cs_sa_path_query q = gid_query(FX_HOST_PORT_GUID(3), FX_HOST_PORT_GUID(0));
    struct cs_sa_path_record got;
    assert_int_equal(cs_sa_path_get(k.c, &q, &got, NULL, &err), 0);
    assert_int_equal(got.reserved_353, CS_SA_PATH_CACHING_FLAG);
    close_ctx(&k);
}

static void test_status_no_records(void **state)
{
    (void)state;
    struct ctx k;
    open_ctx(&k, false, NULL);
    struct cs_error err;
    /* A GUID the subnet does not have. */
    struct cs_sa_path_query q = gid_query(FX_HOST_PORT_GUID(3), UINT64_C(0x00aa000000000001));
    struct cs_sa_path_record got;
    uint16_t status = 0;
    assert_int_equal(cs_sa_path_get(k.c, &q, &got, &status, &err), 1);
    assert_int_equal(status, CS_SA_STATUS_NO_RECORDS);
    struct cs_sa_client_stats st = cs_sa_client_stats(k.c);
    assert_int_equal(st.status, 1);
    assert_int_equal(st.answered, 0);
    close_ctx(&k);
}

/* Collects every reply handed to a callback. */
struct collected {
    unsigned calls;
    enum cs_sa_result result;
    uint16_t status;
    unsigned attempts;
    uint32_t count;
    struct cs_sa_path_record records[64];
    uint64_t response_us;
};

static void collect(void *arg, const struct cs_sa_path_reply *reply)
{
    struct collected *c = arg;
    c->calls++;
    c->result = reply->result;
    c->status = reply->status;
    c->attempts = reply->attempts;
    c->response_us = reply->response_us;
    c->count = reply->count < 64 ? reply->count : 64;
    if (reply->count)
        memcpy(c->records, reply->records, c->count * sizeof *c->records);
}

/* A GetTable from one host to every end port: the same records the SA gives directly, in the
 * same order. */
static void test_get_table(void **state)
{
    (void)state;
    struct ctx k;
    open_ctx(&k, false, NULL);
    struct cs_error err;
    struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET_TABLE, .component_mask = CS_SA_PR_SGID};
    cs_gid_make(q.record.sgid, FX_LINK_LOCAL, FX_HOST_PORT_GUID(3));

    size_t cap = cs_sa_response_bound(k.x.db), len;
    uint8_t *resp = malloc(cap);
    assert_non_null(resp);
    direct_answer(&k, &q, resp, cap, &len);
    uint32_t want = (uint32_t)((len - CS_SA_HEADER_SIZE) / CS_SA_PATH_RECORD_SIZE);
    /* 12 hosts and 16 switches (port 0): every end port, itself included. */
    assert_int_equal(want, 28);

    struct collected got = {0};
    assert_int_equal(cs_sa_client_submit(k.c, &q, collect, &got, &err), 0);
    assert_int_equal(cs_sa_client_outstanding(k.c), 1);
    assert_int_equal(cs_sa_client_run(k.c, &err), 0);
    assert_int_equal(got.calls, 1);
    assert_int_equal(got.result, CS_SA_OK);
    assert_int_equal(got.count, want);
    for (uint32_t i = 0; i < want; i++) {
        struct cs_sa_path_record r;
        cs_sa_path_record_decode(resp + CS_SA_HEADER_SIZE + i * CS_SA_PATH_RECORD_SIZE, &r);
        assert_memory_equal(&got.records[i], &r, sizeof r);
    }
    assert_int_equal(k.loop.requests, 1);
    free(resp);
    close_ctx(&k);
}

/* No SA: every attempt times out; with 2 retries the query is sent 3 times, each after one
 * timeout of the transport's clock, then completes once as a timeout. */
static void test_timeout_and_retries(void **state)
{
    (void)state;
    struct ctx k;
    struct cs_sa_client_options opt = {.timeout_ms = 50, .retries = 2};
    open_ctx(&k, false, &opt);
    k.loop.sm_down = true;
    struct cs_error err;
    struct cs_sa_path_query q = gid_query(FX_HOST_PORT_GUID(3), FX_HOST_PORT_GUID(9));
    struct collected got = {0};
    assert_int_equal(cs_sa_client_submit(k.c, &q, collect, &got, &err), 0);
    assert_int_equal(cs_sa_client_run(k.c, &err), 0);
    assert_int_equal(got.calls, 1);
    assert_int_equal(got.result, CS_SA_TIMEOUT);
    assert_int_equal(got.attempts, 3);
    assert_int_equal(k.loop.requests, 3);
    assert_int_equal(k.loop.now_us, 150 * 1000);
    struct cs_sa_client_stats st = cs_sa_client_stats(k.c);
    assert_int_equal(st.sent, 3);
    assert_int_equal(st.retries, 2);
    assert_int_equal(st.timeouts, 1);

    /* The synchronous form says so. */
    struct cs_sa_path_record rec;
    assert_int_equal(cs_sa_path_get(k.c, &q, &rec, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "after 3 attempts of 50 ms"));

    /* One lost request, then the SA answers the resend. */
    k.loop.sm_down = false;
    k.loop.drop = 1;
    memset(&got, 0, sizeof got);
    assert_int_equal(cs_sa_client_submit(k.c, &q, collect, &got, &err), 0);
    assert_int_equal(cs_sa_client_run(k.c, &err), 0);
    assert_int_equal(got.result, CS_SA_OK);
    assert_int_equal(got.attempts, 2);
    close_ctx(&k);
}

/* Replies are matched by transaction id: a reply delivered twice, or one to a query that timed
 * out long ago, is stray and runs no callback. */
static void test_stray_replies(void **state)
{
    (void)state;
    struct ctx k;
    struct cs_sa_client_options opt = {.timeout_ms = 10};
    open_ctx(&k, false, &opt);
    struct cs_error err;
    struct cs_sa_path_query q = gid_query(FX_HOST_PORT_GUID(3), FX_HOST_PORT_GUID(5));
    struct collected got = {0};
    assert_int_equal(cs_sa_client_submit(k.c, &q, collect, &got, &err), 0);
    assert_int_equal(k.loop.count, 1);
    uint8_t reply[CS_SA_MAD_SIZE];
    memcpy(reply, k.loop.queue[k.loop.head], sizeof reply);
    assert_int_equal(cs_sa_client_run(k.c, &err), 0);
    assert_int_equal(got.calls, 1);
    assert_int_equal(cs_sa_client_deliver(k.c, reply, sizeof reply), 0); /* again */
    assert_int_equal(got.calls, 1);

    /* A reply held back until its query timed out, then delivered. */
    memset(&got, 0, sizeof got);
    assert_int_equal(cs_sa_client_submit(k.c, &q, collect, &got, &err), 0);
    memcpy(reply, k.loop.queue[k.loop.head], sizeof reply);
    sa_loop_free(&k.loop); /* lost on the way */
    assert_int_equal(cs_sa_client_run(k.c, &err), 0);
    assert_int_equal(got.result, CS_SA_TIMEOUT);
    assert_int_equal(cs_sa_client_deliver(k.c, reply, sizeof reply), 0);
    assert_int_equal(got.calls, 1);
    /* Not an SA MAD at all. */
    reply[1] = 0x04;
    assert_int_equal(cs_sa_client_deliver(k.c, reply, sizeof reply), 0);
    assert_int_equal(cs_sa_client_stats(k.c).stray, 3);
    close_ctx(&k);
}

/* Many queries in flight at once, each answered once, to the right caller. */
static void test_many_in_flight(void **state)
{
    (void)state;
    struct ctx k;
    open_ctx(&k, false, NULL);
    struct cs_error err;
    enum { N = 300 };
    static struct collected got[N];
    memset(got, 0, sizeof got);
    for (unsigned i = 0; i < N; i++) {
        struct cs_sa_path_query q = gid_query(FX_HOST_PORT_GUID(3), FX_HOST_PORT_GUID(i % 12));
        assert_int_equal(cs_sa_client_submit(k.c, &q, collect, &got[i], &err), 0);
    }
    assert_int_equal(cs_sa_client_outstanding(k.c), N);
    assert_int_equal(cs_sa_client_run(k.c, &err), 0);
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(got[i].calls, 1);
        assert_int_equal(got[i].result, CS_SA_OK);
        assert_int_equal(got[i].records[0].dlid, sa_fabric_lid(&k.x, FX_HOST_PORT_GUID(i % 12)));
    }
    assert_int_equal(k.loop.requests, N);
    assert_int_equal(cs_sa_client_stats(k.c).answered, N);
    /* A method the client does not send. */
    struct cs_sa_path_query bad = gid_query(FX_HOST_PORT_GUID(3), FX_HOST_PORT_GUID(5));
    bad.method = CS_SA_METHOD_SET;
    assert_int_equal(cs_sa_client_submit(k.c, &bad, collect, &got[0], &err), -1);
    assert_non_null(strstr(err.msg, "not Get or GetTable"));
    close_ctx(&k);
}

/* ---- The decoder ---- */

static size_t reply_of(uint8_t method, uint16_t status, uint16_t attr_offset, unsigned records,
                       uint8_t *out)
{
    struct cs_sa_header h = {
        .base_version = 1,
        .mgmt_class = CS_SA_CLASS,
        .class_version = CS_SA_CLASS_VERSION,
        .method = method,
        .status = status,
        .attr_id = CS_SA_ATTR_PATH_RECORD,
        .attr_offset = attr_offset,
    };
    memset(out, 0, 1024);
    cs_sa_header_encode(&h, out);
    for (unsigned r = 0; r < records; r++) {
        struct cs_sa_path_record rec = {.dlid = (uint16_t)(100 + r), .slid = 7, .mtu = 4};
        cs_sa_path_record_encode(&rec, out + CS_SA_HEADER_SIZE + r * attr_offset * 8);
    }
    return CS_SA_HEADER_SIZE + records * attr_offset * 8;
}

static void test_decode(void **state)
{
    (void)state;
    uint8_t mad[1024];
    struct cs_sa_header h;
    struct cs_sa_path_record recs[8];
    uint32_t n;
    struct cs_error err;

    size_t len = reply_of(CS_SA_METHOD_GET_RESP, 0, 8, 1, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, CS_SA_MAD_SIZE, &h, recs, 8, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].dlid, 100);
    /* A GetResp one byte short of its record. */
    assert_int_equal(cs_sa_path_reply_decode(mad, len - 1, &h, recs, 8, &n, &err), -1);
    assert_non_null(strstr(err.msg, "no whole PathRecord"));
    /* Shorter than the SA header. */
    assert_int_equal(cs_sa_path_reply_decode(mad, 55, &h, recs, 8, &n, &err), -1);
    /* Another attribute, another class, a request method, another class version. */
    cs_bits_set(mad, 16 * 8, 16, CS_SA_ATTR_NODE_RECORD);
    assert_int_equal(cs_sa_path_reply_decode(mad, len, &h, recs, 8, &n, &err), -1);
    assert_non_null(strstr(err.msg, "not PathRecord"));
    reply_of(CS_SA_METHOD_GET_RESP, 0, 8, 1, mad);
    mad[1] = 0x04;
    assert_int_equal(cs_sa_path_reply_decode(mad, len, &h, recs, 8, &n, &err), -1);
    reply_of(CS_SA_METHOD_GET, 0, 8, 1, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, len, &h, recs, 8, &n, &err), -1);
    reply_of(CS_SA_METHOD_GET_RESP, 0, 8, 1, mad);
    mad[2] = 1;
    assert_int_equal(cs_sa_path_reply_decode(mad, len, &h, recs, 8, &n, &err), -1);
    /* A stride smaller than a PathRecord. */
    reply_of(CS_SA_METHOD_GET_RESP, 0, 7, 1, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, CS_SA_MAD_SIZE, &h, recs, 8, &n, &err), -1);
    /* A status: well formed, no records whatever follows. */
    reply_of(CS_SA_METHOD_GET_RESP, CS_SA_STATUS_NO_RECORDS, 0, 0, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, CS_SA_MAD_SIZE, &h, recs, 8, &n, &err), 0);
    assert_int_equal(h.status, CS_SA_STATUS_NO_RECORDS);
    assert_int_equal(n, 0);

    /* GetTableResp: the length says how many; an empty table has AttributeOffset 0. */
    len = reply_of(CS_SA_METHOD_GET_TABLE_RESP, 0, 8, 5, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, len, &h, recs, 8, &n, &err), 0);
    assert_int_equal(n, 5);
    assert_int_equal(recs[4].dlid, 104);
    assert_int_equal(cs_sa_path_reply_decode(mad, len, &h, recs, 3, &n, &err), 0);
    assert_int_equal(n, 3); /* at most cap */
    len = reply_of(CS_SA_METHOD_GET_TABLE_RESP, 0, 0, 0, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, CS_SA_MAD_SIZE, &h, recs, 8, &n, &err), 0);
    assert_int_equal(n, 0);
    /* A first segment padded to 256 bytes: PayloadLength (20 + 2 * 64) bounds the records. */
    reply_of(CS_SA_METHOD_GET_TABLE_RESP, 0, 8, 2, mad);
    struct cs_sa_header with;
    cs_sa_header_decode(mad, &with);
    with.rmpp_flags = CS_RMPP_FLAG_ACTIVE | CS_RMPP_FLAG_FIRST | CS_RMPP_FLAG_LAST;
    with.rmpp_payload_length = 20 + 2 * 64;
    cs_sa_header_encode(&with, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, CS_SA_MAD_SIZE, &h, recs, 8, &n, &err), 0);
    assert_int_equal(n, 2);
    /* Without the payload length the padding would read as a third record. */
    with.rmpp_payload_length = 0;
    cs_sa_header_encode(&with, mad);
    assert_int_equal(cs_sa_path_reply_decode(mad, CS_SA_MAD_SIZE, &h, recs, 8, &n, &err), 0);
    assert_int_equal(n, 3);
}

/* A malformed reply to a query in flight completes it as such, with the reason. */
static void test_malformed_reply_completes(void **state)
{
    (void)state;
    struct ctx k;
    open_ctx(&k, false, NULL);
    struct cs_error err;
    struct cs_sa_path_query q = gid_query(FX_HOST_PORT_GUID(3), FX_HOST_PORT_GUID(5));
    struct collected got = {0};
    assert_int_equal(cs_sa_client_submit(k.c, &q, collect, &got, &err), 0);
    uint8_t *reply = k.loop.queue[k.loop.head];
    cs_bits_set(reply, 16 * 8, 16, CS_SA_ATTR_NODE_RECORD); /* the right tid, the wrong attribute */
    assert_int_equal(cs_sa_client_run(k.c, &err), 0);
    assert_int_equal(got.calls, 1);
    assert_int_equal(got.result, CS_SA_MALFORMED);
    assert_int_equal(cs_sa_client_stats(k.c).malformed, 1);
    close_ctx(&k);
}

static void test_gid_text(void **state)
{
    (void)state;
    uint8_t gid[16];
    char buf[CS_GID_TEXT_SIZE];
    struct cs_error err;
    cs_gid_make(gid, FX_LINK_LOCAL, UINT64_C(0x0010000000000101));
    assert_string_equal(cs_gid_format(gid, buf), "fe80::10:0:0:101");
    uint8_t back[16];
    assert_int_equal(cs_gid_parse("fe80:0000:0000:0000:0010:0000:0000:0101", back, &err), 0);
    assert_memory_equal(gid, back, 16);
    assert_true(cs_gid_prefix(back) == FX_LINK_LOCAL);
    assert_true(cs_gid_guid(back) == UINT64_C(0x0010000000000101));
    assert_int_equal(cs_gid_parse("fe80::10::1", back, &err), -1);
    assert_non_null(strstr(err.msg, "'fe80::10::1' is not a GID"));
    assert_int_equal(cs_gid_parse("0x0010000000000101", back, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_matches_direct_answer),
        cmocka_unit_test(test_caching_flag_decoded),
        cmocka_unit_test(test_status_no_records),
        cmocka_unit_test(test_get_table),
        cmocka_unit_test(test_timeout_and_retries),
        cmocka_unit_test(test_stray_replies),
        cmocka_unit_test(test_many_in_flight),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_malformed_reply_completes),
        cmocka_unit_test(test_gid_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
