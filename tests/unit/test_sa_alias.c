/* Alias GUIDs in the SA (src/sa/sa_alias.c and the PathRecord endpoints of sa_path.c) on the ibsim
 * rig of sa_rig.h (OpenSM's LIDs: host-0, the SM, LID 1; host-1 LID 8; host-2 LID 9; host-3 LID
 * 10; the first switch LID 2; ibsim's GUIDCap: 32 on CA ports, 1 on switch port 0), and the
 * PathRecord table of every pair with its size limit.
 *
 * The Set/Delete sequence of test_set_delete_as_opensm is the one tests/integration/
 * cloudsmd_sa_alias.sh sends to OpenSM 3.3.23 on ibsim (a 2-ary-2-tree there, other LIDs): every
 * expected reply below is what OpenSM answered there. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/alias_guids.h"
#include "sa_rig.h"

#define HOST1 8
#define HOST2 9
#define HOST3 10
#define SWITCH 2
#define ASSIGNED(n) (UINT64_C(0x0014050000000000) + (n))
#define MELLANOX UINT64_C(0x0002c90300001111)

/* The rig with an alias store. */
static void rig_aliases(struct rig *r, struct cs_alias_guids **a)
{
    struct cs_fabric f;
    struct cs_error err;
    gen_pgft(&f);
    rig_ibsim(r, &f);
    cs_fabric_free(&f);
    *a = cs_alias_guids_create(&err);
    assert_non_null(*a);
    r->opt.aliases = *a;
    rig_build_db(r);
}

/* SubnAdmSet / SubnAdmDelete / SubnAdmGet of a GUIDInfoRecord; the reply's status, its record in
 * *got. */
static uint16_t gir(struct rig *r, uint16_t requester, uint8_t method, uint64_t mask, uint16_t lid,
                    uint8_t block, const uint64_t guids[8], struct cs_sa_guid_info_record *got)
{
    struct cs_sa_guid_info_record want = {.lid = lid, .block = block};
    for (unsigned i = 0; guids && i < 8; i++)
        want.guids.guid[i] = guids[i];
    uint8_t rec[CS_SA_GUID_INFO_RECORD_SIZE];
    cs_sa_guid_info_record_encode(&want, rec);
    uint16_t status =
        query(r, requester, method, CS_SA_ATTR_GUID_INFO_RECORD, mask, 0, rec, sizeof rec);
    assert_int_equal(r->resp_len, CS_SA_MAD_SIZE);
    if (got)
        cs_sa_guid_info_record_decode(r->resp + CS_SA_HEADER_SIZE, got);
    return status;
}

#define LB (CS_SA_GIR_LID | CS_SA_GIR_BLOCK)

static void expect_guids(const struct cs_sa_guid_info_record *g, uint64_t g0, uint64_t g1,
                         uint64_t g2, uint64_t g3)
{
    assert_true(g->guids.guid[0] == g0);
    assert_true(g->guids.guid[1] == g1);
    assert_true(g->guids.guid[2] == g2);
    assert_true(g->guids.guid[3] == g3);
    for (unsigned i = 4; i < 8; i++)
        assert_true(g->guids.guid[i] == 0);
}

static void test_set_delete_as_opensm(void **state)
{
    (void)state;
    struct rig r;
    struct cs_alias_guids *a;
    rig_aliases(&r, &a);
    struct cs_sa_guid_info_record g;
    uint64_t v[8] = {0};
    const uint64_t h1 = HOST_PORT_GUID(1), h2 = HOST_PORT_GUID(2);

    /* Nothing registered: the port GUID alone. */
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_GET, LB, HOST1, 0, NULL, &g), 0);
    expect_guids(&g, h1, 0, 0, 0);
    /* A GUID of the host's own, then two the SM assigns (OUI 0x001405, byte 0, count 1, 2). */
    v[1] = MELLANOX;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), HOST1, 0, v, &g), 0);
    struct cs_sa_header h = reply_header(&r);
    assert_int_equal(h.method, CS_SA_METHOD_GET_RESP);
    assert_int_equal(h.attr_offset, 9);
    assert_int_equal(g.lid, HOST1);
    expect_guids(&g, h1, MELLANOX, 0, 0);
    v[1] = 0;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(2), HOST1, 0, v, &g), 0);
    expect_guids(&g, h1, MELLANOX, ASSIGNED(1), 0);
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(3), HOST1, 0, v, &g), 0);
    expect_guids(&g, h1, MELLANOX, ASSIGNED(1), ASSIGNED(2));
    /* Block 1 entry 0 is index 8: not the port GUID, so it may be set. */
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(0), HOST1, 1, v, &g), 0);
    expect_guids(&g, ASSIGNED(3), 0, 0, 0);
    assert_int_equal(g.block, 1);
    /* Block 0 entry 0 is: REQ_INVALID, the request echoed, nothing changed. */
    v[0] = 0x1234;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(0), HOST1, 0, v, &g),
                     CS_SA_STATUS_REQ_INVALID);
    expect_guids(&g, 0x1234, 0, 0, 0);
    /* Another port asks for host-1's alias, then for host-1's own GUID: both refused, with
     * status 0 and the entry as it was (0). */
    v[0] = 0;
    v[1] = MELLANOX;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), HOST2, 0, v, &g), 0);
    expect_guids(&g, h2, 0, 0, 0);
    v[1] = h1;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), HOST2, 0, v, &g), 0);
    expect_guids(&g, h2, 0, 0, 0);
    /* Block 4 of 32 GUIDs does not exist; LID and block are required. */
    v[1] = 0x99;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), HOST1, 4, v, &g),
                     CS_SA_STATUS_NO_RECORDS);
    assert_int_equal(
        gir(&r, 1, CS_SA_METHOD_SET, CS_SA_GIR_LID | CS_SA_GIR_GUID(1), HOST1, 0, v, &g),
        CS_SA_STATUS_INSUFFICIENT_COMPONENTS);
    /* ... even from a requester the subnet does not have (checked first, as OpenSM). */
    assert_int_equal(gir(&r, 999, CS_SA_METHOD_DELETE, CS_SA_GIR_BLOCK, HOST1, 0, v, &g),
                     CS_SA_STATUS_INSUFFICIENT_COMPONENTS);
    assert_int_equal(reply_header(&r).method, CS_SA_METHOD_DELETE_RESP);
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_GET, LB, HOST1, 0, NULL, &g), 0);
    expect_guids(&g, h1, MELLANOX, ASSIGNED(1), ASSIGNED(2));

    /* Delete entry 2 (a DeleteResp), then entry 5, which holds nothing. */
    memset(v, 0, sizeof v);
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_DELETE, LB | CS_SA_GIR_GUID(2), HOST1, 0, v, &g), 0);
    assert_int_equal(reply_header(&r).method, CS_SA_METHOD_DELETE_RESP);
    expect_guids(&g, h1, MELLANOX, 0, ASSIGNED(2));
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_DELETE, LB | CS_SA_GIR_GUID(5), HOST1, 0, v, &g), 0);
    expect_guids(&g, h1, MELLANOX, 0, ASSIGNED(2));
    /* Asking for 0 again at entry 2 gives back what the SM assigned there. */
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(2), HOST1, 0, v, &g), 0);
    expect_guids(&g, h1, MELLANOX, ASSIGNED(1), ASSIGNED(2));
    /* host-2 got a table from its refused Sets: a Delete there looks at the block. */
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_DELETE, LB | CS_SA_GIR_GUID(1), HOST2, 0, v, &g), 0);
    expect_guids(&g, h2, 0, 0, 0);
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_DELETE, LB | CS_SA_GIR_GUID(1), HOST2, 5, v, &g),
                     CS_SA_STATUS_NO_RECORDS);
    /* host-3 never had a Set: a Delete comes back as it was sent, whatever the block. */
    v[1] = 0x77;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_DELETE, LB | CS_SA_GIR_GUID(1), HOST3, 9, v, &g), 0);
    assert_int_equal(g.block, 9);
    expect_guids(&g, 0, 0x77, 0, 0);
    /* A switch (GUIDCap 1): the Set looks at entry 0 only, changes nothing. */
    v[1] = 0x5555;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), SWITCH, 0, v, &g), 0);
    expect_guids(&g, UINT64_C(0x0020000100000000), 0, 0, 0); /* LID 2: OpenSM's guid2lid */
    v[0] = 0x5555;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(0), SWITCH, 0, v, &g),
                     CS_SA_STATUS_REQ_INVALID);
    /* No port with this LID. */
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), 999, 0, v, &g),
                     CS_SA_STATUS_NO_RECORDS);
    assert_int_equal(cs_alias_guids_count(a), 4);

    /* The byte of assigned GUIDs (sm_assigned_guid); the count goes on. */
    cs_alias_guids_set_assigned_byte(a, 0x42);
    memset(v, 0, sizeof v);
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(4), HOST1, 0, v, &g), 0);
    assert_true(g.guids.guid[4] == UINT64_C(0x0014054200000004));

    /* GUIDInfoRecords show them: host-1 has 4 blocks, block 1 holds index 8. */
    struct cs_sa_guid_info_record want = {.lid = HOST1};
    uint8_t rec[CS_SA_GUID_INFO_RECORD_SIZE];
    cs_sa_guid_info_record_encode(&want, rec);
    assert_int_equal(table(&r, 1, CS_SA_ATTR_GUID_INFO_RECORD, CS_SA_GIR_LID, 0, rec, sizeof rec),
                     4);
    cs_sa_guid_info_record_decode(record_at(&r, CS_SA_GUID_INFO_RECORD_SIZE, 1), &g);
    assert_true(g.guids.guid[0] == ASSIGNED(3));
    /* Which port has this alias: GUID 1 as a component. */
    want = (struct cs_sa_guid_info_record){.guids.guid[1] = MELLANOX};
    cs_sa_guid_info_record_encode(&want, rec);
    assert_int_equal(
        table(&r, 1, CS_SA_ATTR_GUID_INFO_RECORD, CS_SA_GIR_GUID(1), 0, rec, sizeof rec), 1);
    cs_sa_guid_info_record_decode(record_at(&r, CS_SA_GUID_INFO_RECORD_SIZE, 0), &g);
    assert_int_equal(g.lid, HOST1);

    /* Without a store, Set and Delete are not supported, and ClassPortInfo says so. */
    uint8_t req[CS_SA_MAD_SIZE];
    sa_request(CS_SA_METHOD_GET, CS_SA_ATTR_CLASS_PORT_INFO, 0, 0, 1, NULL, 0, req);
    assert_int_equal(ask(&r, 1, req, sizeof req), 1);
    assert_int_equal(cs_bits_get(r.resp + CS_SA_HEADER_SIZE, 32, 27), 1u << 5);
    assert_int_equal(cs_bits_get(r.resp + CS_SA_HEADER_SIZE, 59, 5), 16);
    r.opt.aliases = NULL;
    rig_build_db(&r);
    assert_int_equal(ask(&r, 1, req, sizeof req), 1);
    assert_int_equal(cs_bits_get(r.resp + CS_SA_HEADER_SIZE, 32, 27), 0);
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), HOST1, 0, v, &g),
                     CS_SMP_STATUS_METHOD_UNSUPPORTED);
    rig_close(&r);
    cs_alias_guids_destroy(a);
}

/* A requester that shares no P_Key with the port gets no answer (OpenSM), one that does gets it. */
static void test_set_within_partitions(void **state)
{
    (void)state;
    struct rig r;
    struct cs_alias_guids *a;
    rig_aliases(&r, &a);
    rig_partition(&r, "Default=0x7fff : ALL, SELF=full ;\n"
                      "P1=0x0001 : 0x0010000000000101=full, 0x0010000000000201=full ;\n"
                      "P2=0x0002 : 0x0010000000000301=full ;\n");
    uint64_t v[8] = {0};
    uint8_t rec[CS_SA_GUID_INFO_RECORD_SIZE];
    struct cs_sa_guid_info_record want = {.lid = HOST1};
    cs_sa_guid_info_record_encode(&want, rec);
    uint8_t req[CS_SA_MAD_SIZE];
    sa_request(CS_SA_METHOD_SET, CS_SA_ATTR_GUID_INFO_RECORD, LB | CS_SA_GIR_GUID(1), 0, 7, rec,
               sizeof rec, req);
    assert_int_equal(ask(&r, HOST3, req, sizeof req), 0); /* host-3 (P2 only) asks: nothing */
    assert_int_equal(cs_alias_guids_count(a), 0);
    struct cs_sa_guid_info_record g;
    assert_int_equal(gir(&r, HOST2, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(1), HOST1, 0, v, &g), 0);
    assert_true(g.guids.guid[1] == ASSIGNED(1));
    rig_close(&r);
    cs_alias_guids_destroy(a);
}

/* ---- PathRecords ---- */

static uint8_t *gid(uint8_t out[16], uint64_t guid)
{
    cs_bits_set(out, 0, 64, LINK_LOCAL);
    cs_bits_set(out, 64, 64, guid);
    return out;
}

static uint64_t record_guid(const struct rig *r, uint32_t i, bool source)
{
    return cs_bits_get(record_at(r, CS_SA_PATH_RECORD_SIZE, i), source ? 192 + 64 : 64 + 64, 64);
}

static int by_swapped(const void *x, const void *y)
{
    uint64_t a = __builtin_bswap64(*(const uint64_t *)x),
             b = __builtin_bswap64(*(const uint64_t *)y);
    return (a > b) - (a < b);
}

static void test_paths_by_alias(void **state)
{
    (void)state;
    struct rig r;
    struct cs_alias_guids *a;
    rig_aliases(&r, &a);
    uint64_t v[8] = {0};
    struct cs_sa_guid_info_record g;
    /* host-1: its GUID and 3 aliases (MELLANOX, assigned 1 and 2); host-2: one (assigned 3). */
    v[1] = MELLANOX;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET,
                         LB | CS_SA_GIR_GUID(1) | CS_SA_GIR_GUID(2) | CS_SA_GIR_GUID(3), HOST1, 0,
                         v, &g),
                     0);
    v[1] = 0;
    assert_int_equal(gir(&r, 1, CS_SA_METHOD_SET, LB | CS_SA_GIR_GUID(7), HOST2, 0, v, &g), 0);
    assert_int_equal(cs_alias_guids_count(a), 4);

    /* SGID an alias, DGID a port GUID: the record carries the alias, host-1's LID. */
    struct cs_sa_path_record want = {0}, got;
    gid(want.sgid, ASSIGNED(2));
    gid(want.dgid, HOST_PORT_GUID(3));
    assert_int_equal(
        path_query(&r, 1, CS_SA_METHOD_GET, CS_SA_PR_SGID | CS_SA_PR_DGID, &want, &got), 0);
    assert_true(cs_bits_get(got.sgid, 64, 64) == ASSIGNED(2));
    assert_int_equal(got.slid, HOST1);
    assert_int_equal(got.dlid, HOST3);
    /* The same path by LIDs: the same MTU, rate, lifetime. */
    struct cs_sa_path_record by_lid;
    assert_int_equal(path(&r, 1, HOST1, HOST3, &by_lid), 0);
    assert_int_equal(got.mtu, by_lid.mtu);
    assert_int_equal(got.rate, by_lid.rate);
    assert_int_equal(got.packet_life, by_lid.packet_life);
    /* DGID an alias. */
    want = (struct cs_sa_path_record){0};
    gid(want.dgid, MELLANOX);
    gid(want.sgid, ASSIGNED(3));
    assert_int_equal(
        path_query(&r, 1, CS_SA_METHOD_GET, CS_SA_PR_SGID | CS_SA_PR_DGID, &want, &got), 0);
    assert_int_equal(got.slid, HOST2);
    assert_int_equal(got.dlid, HOST1);
    /* An alias and a LID of another port for the same end: REQ_INVALID (OpenSM). */
    want.slid = HOST3;
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE,
                                CS_SA_PR_SGID | CS_SA_PR_SLID | CS_SA_PR_DGID, &want, NULL),
                     CS_SA_STATUS_REQ_INVALID);
    want.slid = HOST2;
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE,
                                CS_SA_PR_SGID | CS_SA_PR_SLID | CS_SA_PR_DGID, &want, NULL),
                     0);
    assert_int_equal(reply_records(&r, CS_SA_PATH_RECORD_SIZE), 1);
    /* An alias nobody has: no records. */
    gid(want.dgid, 0x4242);
    assert_int_equal(
        path_query(&r, 1, CS_SA_METHOD_GET_TABLE, CS_SA_PR_SGID | CS_SA_PR_DGID, &want, NULL), 0);
    assert_int_equal(reply_records(&r, CS_SA_PATH_RECORD_SIZE), 0);

    /* SLID and DLID name every GUID of both ports, the source's outside, in OpenSM's order. */
    uint64_t h1[4] = {HOST_PORT_GUID(1), MELLANOX, ASSIGNED(1), ASSIGNED(2)};
    uint64_t h2[2] = {HOST_PORT_GUID(2), ASSIGNED(3)};
    qsort(h1, 4, sizeof *h1, by_swapped);
    qsort(h2, 2, sizeof *h2, by_swapped);
    want = (struct cs_sa_path_record){.slid = HOST1, .dlid = HOST2};
    assert_int_equal(
        path_query(&r, 1, CS_SA_METHOD_GET_TABLE, CS_SA_PR_SLID | CS_SA_PR_DLID, &want, NULL), 0);
    assert_int_equal(reply_records(&r, CS_SA_PATH_RECORD_SIZE), 8);
    for (uint32_t i = 0; i < 8; i++) {
        assert_true(record_guid(&r, i, true) == h1[i / 2]);
        assert_true(record_guid(&r, i, false) == h2[i % 2]);
    }
    /* A Get answers the first of them. */
    assert_int_equal(path(&r, 1, HOST1, HOST2, &got), 0);
    assert_true(cs_bits_get(got.sgid, 64, 64) == h1[0]);

    /* The table of every pair: every GUID of every end port (28 ports, 4 aliases), destination
     * by destination, each against every source; the same records as the pair queries. */
    want = (struct cs_sa_path_record){0};
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE, 0, &want, NULL), 0);
    uint32_t world = reply_records(&r, CS_SA_PATH_RECORD_SIZE);
    uint8_t *all = malloc((size_t)world * CS_SA_PATH_RECORD_SIZE);
    assert_non_null(all);
    memcpy(all, r.resp + CS_SA_HEADER_SIZE, (size_t)world * CS_SA_PATH_RECORD_SIZE);
    uint64_t guids[32];
    uint32_t n = 0;
    for (uint32_t p = 0; p < r.s.fabric.num_port_slots; p++)
        if (r.s.fabric.ports[p].guid != 0) /* the end ports: CA ports, switch ports 0 */
            guids[n++] = r.s.fabric.ports[p].guid;
    for (uint32_t i = 0; i < cs_alias_guids_count(a); i++) {
        uint64_t port;
        cs_alias_guids_at(a, i, &guids[n++], &port);
    }
    assert_int_equal(n, 32);
    qsort(guids, n, sizeof *guids, by_swapped);
    uint32_t at = 0;
    for (uint32_t d = 0; d < n; d++)
        for (uint32_t s = 0; s < n; s++) {
            want = (struct cs_sa_path_record){0};
            gid(want.sgid, guids[s]);
            gid(want.dgid, guids[d]);
            assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE,
                                        CS_SA_PR_SGID | CS_SA_PR_DGID, &want, NULL),
                             0);
            uint32_t k = reply_records(&r, CS_SA_PATH_RECORD_SIZE);
            assert_true(at + k <= world);
            assert_memory_equal(all + (size_t)at * CS_SA_PATH_RECORD_SIZE,
                                r.resp + CS_SA_HEADER_SIZE, (size_t)k * CS_SA_PATH_RECORD_SIZE);
            at += k;
        }
    assert_int_equal(at, world);
    assert_true(world > 28 * 12); /* every host pair at least, aliases included */
    free(all);
    rig_close(&r);
    cs_alias_guids_destroy(a);
}

/* The limit: a reply larger than max_reply is refused with NO_RESOURCES, never cut; the bound a
 * caller allocates never exceeds it. */
static void test_reply_limit(void **state)
{
    (void)state;
    struct rig r;
    struct cs_alias_guids *a;
    rig_aliases(&r, &a);
    /* GUIDCap 32 on 12 hosts: (12 * 32 + 16)^2 records could come, far above 1 MiB. */
    size_t unlimited = cs_sa_response_bound(r.db);
    assert_true(unlimited == (12 * 32 + 16) * (12 * 32 + 16) * 64 + CS_SA_HEADER_SIZE);
    struct cs_sa_path_record want = {0};
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE, 0, &want, NULL), 0);
    uint32_t world = reply_records(&r, CS_SA_PATH_RECORD_SIZE);
    assert_true(world > 400);

    r.opt.max_reply = CS_SA_HEADER_SIZE + 100 * CS_SA_PATH_RECORD_SIZE;
    rig_build_db(&r);
    assert_int_equal(cs_sa_response_bound(r.db), r.opt.max_reply);
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE, 0, &want, NULL),
                     CS_SA_STATUS_NO_RESOURCES);
    assert_int_equal(r.resp_len, CS_SA_MAD_SIZE);
    /* Exactly at the limit: answered. */
    want.slid = HOST1;
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE, CS_SA_PR_SLID, &want, NULL), 0);
    uint32_t half = reply_records(&r, CS_SA_PATH_RECORD_SIZE);
    r.opt.max_reply = CS_SA_HEADER_SIZE + half * CS_SA_PATH_RECORD_SIZE;
    rig_build_db(&r);
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE, CS_SA_PR_SLID, &want, NULL), 0);
    assert_int_equal(reply_records(&r, CS_SA_PATH_RECORD_SIZE), half);
    r.opt.max_reply -= 1;
    rig_build_db(&r);
    assert_int_equal(path_query(&r, 1, CS_SA_METHOD_GET_TABLE, CS_SA_PR_SLID, &want, NULL),
                     CS_SA_STATUS_NO_RESOURCES);
    /* The default, and a limit below one MAD, which is raised to one MAD. */
    r.opt.max_reply = 0;
    rig_build_db(&r);
    assert_int_equal(cs_sa_response_bound(r.db), unlimited);
    r.opt.max_reply = 1;
    rig_build_db(&r);
    assert_int_equal(cs_sa_response_bound(r.db), CS_SA_MAD_SIZE);
    rig_close(&r);
    cs_alias_guids_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_delete_as_opensm),
        cmocka_unit_test(test_set_within_partitions),
        cmocka_unit_test(test_paths_by_alias),
        cmocka_unit_test(test_reply_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
