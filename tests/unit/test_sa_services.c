/* ServiceRecords: the store (include/cloudsm/services.h: identity, order, leases on an explicit
 * clock), the codec, and the SA's rules (src/sa/sa_service.c) on the rig's ibsim view of the PGFT
 * (sa_rig.h): what a Set needs, the P_Key checks with partitions, who sees which record, the
 * ServiceKey, components, and leases through the SA's clock. The same requests against OpenSM
 * 3.3.23 on ibsim: tests/integration/cloudsmd_sa_services.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/rng.h"
#include "cloudsm/services.h"
#include "sa_rig.h"

static struct cs_sa_service_record service(uint64_t id, uint64_t port_guid, uint16_t pkey,
                                           uint32_t lease, const char *name)
{
    struct cs_sa_service_record r;
    memset(&r, 0, sizeof r);
    r.id = id;
    cs_bits_set(r.gid, 0, 64, LINK_LOCAL);
    cs_bits_set(r.gid, 64, 64, port_guid);
    r.pkey = pkey;
    r.lease = lease;
    memcpy(r.name, name, strlen(name));
    return r;
}

/* ---- The store ---- */

static void test_store_identity_and_order(void **state)
{
    (void)state;
    struct cs_error err;
    struct cs_services *s = cs_services_create(&err);
    assert_non_null(s);
    struct cs_sa_service_record a = service(1, 0x101, 0, 10, "a"),
                                b = service(2, 0x101, 0, 10, "b"),
                                c = service(1, 0x101, 0xffff, 10, "c");
    assert_int_equal(cs_services_set(s, &a, 0, &err), 0);
    assert_int_equal(cs_services_set(s, &b, 0, &err), 0);
    assert_int_equal(cs_services_set(s, &c, 0, &err), 0); /* another P_Key: another record */
    assert_int_equal(cs_services_count(s), 3);
    /* Newest first. */
    assert_string_equal((const char *)cs_services_at(s, 0)->name, "c");
    assert_string_equal((const char *)cs_services_at(s, 2)->name, "a");
    /* Same ID, GID and P_Key: replaced in place. */
    struct cs_sa_service_record a2 = service(1, 0x101, 0, 10, "a2");
    assert_int_equal(cs_services_set(s, &a2, 0, &err), 0);
    assert_int_equal(cs_services_count(s), 3);
    assert_string_equal((const char *)cs_services_at(s, 2)->name, "a2");
    /* Delete by identity, whatever the other fields say. */
    struct cs_sa_service_record removed, probe = service(2, 0x101, 0, 0, "");
    assert_int_equal(cs_services_delete(s, &probe, 0, &removed), 1);
    assert_string_equal((const char *)removed.name, "b");
    assert_int_equal(cs_services_delete(s, &probe, 0, NULL), 0);
    assert_int_equal(cs_services_count(s), 2);
    cs_services_destroy(s);
}

static void test_store_leases(void **state)
{
    (void)state;
    struct cs_error err;
    struct cs_services *s = cs_services_create(&err);
    struct cs_sa_service_record short_lease = service(1, 0x101, 0, 2, "short"),
                                forever = service(2, 0x101, 0, CS_SA_SERVICE_LEASE_INFINITE, "f"),
                                zero = service(3, 0x101, 0, 0, "zero");
    assert_int_equal(cs_services_set(s, &short_lease, 1000, &err), 0);
    assert_int_equal(cs_services_set(s, &forever, 1000, &err), 0);
    assert_int_equal(cs_services_set(s, &zero, 1000, &err), 0);
    /* A lease of 0 s ends at once; 2 s from 1000 ms end at 3000 ms. */
    cs_services_expire(s, 1000);
    assert_int_equal(cs_services_count(s), 2);
    cs_services_expire(s, 2999);
    assert_int_equal(cs_services_count(s), 2);
    /* A Set restarts the lease. */
    assert_int_equal(cs_services_set(s, &short_lease, 2500, &err), 0);
    cs_services_expire(s, 3000);
    assert_int_equal(cs_services_count(s), 2);
    cs_services_expire(s, 4500);
    assert_int_equal(cs_services_count(s), 1);
    assert_string_equal((const char *)cs_services_at(s, 0)->name, "f");
    /* The infinite one outlives any time. */
    cs_services_expire(s, 1e15);
    assert_int_equal(cs_services_count(s), 1);
    /* Delete and Set expire first: an ended lease cannot be deleted. */
    assert_int_equal(cs_services_set(s, &short_lease, 0, &err), 0);
    assert_int_equal(cs_services_delete(s, &short_lease, 2000, NULL), 0);
    cs_services_destroy(s);
}

static void test_codec(void **state)
{
    (void)state;
    struct cs_rng rng;
    cs_rng_seed(&rng, 11);
    for (int i = 0; i < 100; i++) {
        struct cs_sa_service_record r, back;
        uint8_t *bytes = (uint8_t *)&r;
        for (size_t k = 0; k < sizeof r; k++)
            bytes[k] = (uint8_t)cs_rng_next(&rng);
        uint8_t wire[CS_SA_SERVICE_RECORD_SIZE];
        cs_sa_service_record_encode(&r, wire);
        cs_sa_service_record_decode(wire, &back);
        assert_true(r.id == back.id && r.pkey == back.pkey && r.lease == back.lease);
        assert_memory_equal(r.gid, back.gid, 16);
        assert_memory_equal(r.key, back.key, 16);
        assert_memory_equal(r.name, back.name, sizeof r.name);
        assert_memory_equal(r.data8, back.data8, sizeof r.data8);
        assert_memory_equal(r.data16, back.data16, sizeof r.data16);
        assert_memory_equal(r.data32, back.data32, sizeof r.data32);
        assert_memory_equal(r.data64, back.data64, sizeof r.data64);
    }
    /* Layout: ID, GID, P_Key, 2 reserved bytes, lease, key, name at 48, data8 at 112. */
    struct cs_sa_service_record r = service(0x0102030405060708, 0x101, 0xabcd, 0x11223344, "n");
    r.data8[0] = 0x99;
    r.data64[1] = 0x77;
    uint8_t w[CS_SA_SERVICE_RECORD_SIZE];
    cs_sa_service_record_encode(&r, w);
    assert_int_equal(w[0], 1);
    assert_int_equal(w[7], 8);
    assert_int_equal(w[8], 0xfe);
    assert_int_equal(w[23], 0x01);
    assert_int_equal(w[24], 0xab);
    assert_int_equal(w[26], 0);
    assert_int_equal(w[28], 0x11);
    assert_int_equal(w[48], 'n');
    assert_int_equal(w[112], 0x99);
    assert_int_equal(w[175], 0x77);
}

/* ---- The SA ---- */

static double fake_now;
static double fake_clock(void)
{
    return fake_now;
}

struct sr_rig {
    struct rig r;
    struct cs_services *services;
};

static void sr_open(struct sr_rig *t)
{
    struct cs_fabric f;
    struct cs_error err;
    gen_pgft(&f);
    rig_ibsim(&t->r, &f);
    cs_fabric_free(&f);
    t->services = cs_services_create(&err);
    assert_non_null(t->services);
    t->r.opt.services = t->services;
    t->r.opt.clock_ms = fake_clock;
    t->r.opt.sm_key = 1;
    fake_now = 0;
    rig_build_db(&t->r);
}

static void sr_close(struct sr_rig *t)
{
    rig_close(&t->r);
    cs_services_destroy(t->services);
}

/* A ServiceRecord request from requester; the reply's status, its record in *got. */
static uint16_t sr(struct sr_rig *t, uint16_t requester, uint8_t method, uint64_t mask,
                   uint64_t sm_key, const struct cs_sa_service_record *want,
                   struct cs_sa_service_record *got)
{
    uint8_t req[CS_SA_MAD_SIZE], rec[CS_SA_SERVICE_RECORD_SIZE];
    cs_sa_service_record_encode(want, rec);
    sa_request(method, CS_SA_ATTR_SERVICE_RECORD, mask, 0, 0x42, rec, sizeof rec, req);
    cs_bits_set(req, 36 * 8, 64, sm_key);
    assert_int_equal(ask(&t->r, requester, req, sizeof req), 1);
    struct cs_sa_header h = reply_header(&t->r);
    if (got && h.status == 0 && reply_records(&t->r, CS_SA_SERVICE_RECORD_SIZE) > 0)
        cs_sa_service_record_decode(record_at(&t->r, CS_SA_SERVICE_RECORD_SIZE, 0), got);
    return h.status;
}

#define IDGID (CS_SA_SR_ID | CS_SA_SR_GID)

static void test_set_rules(void **state)
{
    (void)state;
    struct sr_rig t;
    sr_open(&t);
    struct cs_sa_service_record a = service(0x10, HOST_PORT_GUID(1), 0, 60, "a"), got;
    /* ID and GID are required. */
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, CS_SA_SR_ID, 0, &a, NULL),
                     CS_SA_STATUS_REQ_INVALID);
    /* Without the P_Key component the answer says 0xffff, the store keeps what came; without the
     * lease component the lease is infinite. */
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID, 0, &a, &got), 0);
    assert_int_equal(reply_header(&t.r).method, CS_SA_METHOD_GET_RESP);
    assert_int_equal(got.pkey, 0xffff);
    assert_int_equal(got.lease, CS_SA_SERVICE_LEASE_INFINITE);
    assert_int_equal(cs_services_count(t.services), 1);
    assert_int_equal(cs_services_at(t.services, 0)->pkey, 0);
    /* The ServiceKey goes back to trusted requesters only. */
    memset(a.key, 0x5a, sizeof a.key);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID | CS_SA_SR_KEY, 0, &a, &got), 0);
    assert_int_equal(got.key[15], 0);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, IDGID, 1, &a, &got), 0);
    assert_int_equal(got.key[15], 0x5a);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, IDGID, 0, &a, &got), 0);
    assert_int_equal(got.key[15], 0);
    /* A GID of no port, with a P_Key: refused; a P_Key the requester lacks: refused. */
    struct cs_sa_service_record nowhere = service(0x11, 0x99, 0xffff, 60, "x");
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID | CS_SA_SR_PKEY, 0, &nowhere, NULL),
                     CS_SA_STATUS_REQ_INVALID);
    struct cs_sa_service_record foreign = service(0x12, HOST_PORT_GUID(1), 0x8001, 60, "y");
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID | CS_SA_SR_PKEY, 0, &foreign, NULL),
                     CS_SA_STATUS_REQ_INVALID);
    /* Delete: the record back as DeleteResp, then nothing to delete. */
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_DELETE, IDGID, 0, &a, &got), 0);
    assert_int_equal(reply_header(&t.r).method, CS_SA_METHOD_DELETE_RESP);
    assert_string_equal((const char *)got.name, "a");
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_DELETE, IDGID, 0, &a, NULL), CS_SA_STATUS_NO_RECORDS);
    /* Without a store: Set is not supported, Get finds nothing. */
    t.r.opt.services = NULL;
    rig_build_db(&t.r);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID, 0, &a, NULL),
                     CS_SMP_STATUS_METHOD_UNSUPPORTED);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, IDGID, 0, &a, NULL), CS_SA_STATUS_NO_RECORDS);
    sr_close(&t);
}

static void test_get_components_and_partitions(void **state)
{
    (void)state;
    struct sr_rig t;
    sr_open(&t);
    rig_partition(&t.r, "Default=0x7fff : ALL=full ;\n"
                        "P1=0x0001 : 0x0010000000000101=full, 0x0010000000000201=full ;\n");
    struct cs_sa_service_record a = service(0x10, HOST_PORT_GUID(1), 0xffff, 60, "alpha"),
                                b = service(0x11, HOST_PORT_GUID(1), 0x8001, 60, "beta"), got;
    a.data8[3] = 7;
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID | CS_SA_SR_PKEY, 0, &a, NULL), 0);
    /* P1: host 1 (LID 8) and its GID's port have it; host 3 (LID 10) does not. */
    assert_int_equal(sr(&t, 10, CS_SA_METHOD_SET, IDGID | CS_SA_SR_PKEY, 0, &b, NULL),
                     CS_SA_STATUS_REQ_INVALID);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID | CS_SA_SR_PKEY, 0, &b, NULL), 0);
    /* Who sees what: the P1 record only for P1's members. */
    uint8_t rec[CS_SA_SERVICE_RECORD_SIZE] = {0};
    assert_int_equal(table(&t.r, 8, CS_SA_ATTR_SERVICE_RECORD, 0, 0, rec, sizeof rec), 2);
    assert_int_equal(table(&t.r, 10, CS_SA_ATTR_SERVICE_RECORD, 0, 0, rec, sizeof rec), 1);
    /* Components: name, a ServiceData8 byte; the lease never matters. */
    struct cs_sa_service_record q = service(0, 0, 0, 12345, "alpha");
    assert_int_equal(sr(&t, 10, CS_SA_METHOD_GET, CS_SA_SR_NAME | CS_SA_SR_LEASE, 0, &q, &got), 0);
    assert_int_equal(got.id, 0x10);
    q.data8[3] = 7;
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, CS_SA_SR_DATA8(3), 0, &q, &got), 0);
    assert_int_equal(got.id, 0x10);
    q.data8[3] = 8;
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, CS_SA_SR_DATA8(3), 0, &q, NULL),
                     CS_SA_STATUS_NO_RECORDS);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, 0, 0, &q, NULL), CS_SA_STATUS_TOO_MANY_RECORDS);
    sr_close(&t);
}

static void test_leases_through_the_sa(void **state)
{
    (void)state;
    struct sr_rig t;
    sr_open(&t);
    struct cs_sa_service_record a = service(0x10, HOST_PORT_GUID(1), 0, 5, "a");
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID | CS_SA_SR_LEASE, 0, &a, NULL), 0);
    fake_now = 4999;
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, IDGID, 0, &a, NULL), 0);
    fake_now = 5000;
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, IDGID, 0, &a, NULL), CS_SA_STATUS_NO_RECORDS);
    /* The store outlives the db: a new db (the next sweep) still has what was registered. */
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_SET, IDGID, 0, &a, NULL), 0);
    rig_build_db(&t.r);
    assert_int_equal(sr(&t, 8, CS_SA_METHOD_GET, IDGID, 0, &a, NULL), 0);
    sr_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_identity_and_order),
        cmocka_unit_test(test_store_leases),
        cmocka_unit_test(test_codec),
        cmocka_unit_test(test_set_rules),
        cmocka_unit_test(test_get_components_and_partitions),
        cmocka_unit_test(test_leases_through_the_sa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
