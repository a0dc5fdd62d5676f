/* SMInfoRecords (src/sa/sa_sm_info.c) on the PGFT rig as ibsim shows it to OpenSM (host k's port
 * GUID 0x0010000000000k01; host 0, the SM's, has LID 1, hosts 1.. LIDs 8..): the SM first, then the
 * SMs it polled, by OpenSM 3.3.23's rules. What was checked against OpenSM on ibsim is in
 * tests/integration/cloudsmd_standby_opensm.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sa_rig.h"

#define HOST0 1
#define HOST1 8
#define HOST2 9

struct srig {
    struct rig r;
    struct cs_sm_identity sm;
};

static void srig_open(struct srig *x, const char *partitions)
{
    struct cs_fabric f;
    gen_pgft(&f);
    rig_ibsim(&x->r, &f);
    cs_fabric_free(&f);
    /* We are master of priority 3 on host 0; host 2 runs a standby of priority 1; an SM that
     * answered from a port the sweep does not have is left out. */
    x->sm = (struct cs_sm_identity){
        .guid = HOST_PORT_GUID(0), .priority = 3, .state = CS_SMP_SM_STATE_MASTER, .num_known = 2};
    x->sm.known[0] = (struct cs_smp_sm_info){.guid = HOST_PORT_GUID(2),
                                             .sm_key = 0x1234,
                                             .act_count = 77,
                                             .priority = 1,
                                             .sm_state = CS_SMP_SM_STATE_STANDBY};
    x->sm.known[1] = (struct cs_smp_sm_info){.guid = 0x99, .sm_state = CS_SMP_SM_STATE_STANDBY};
    x->r.opt.sm = &x->sm;
    if (partitions)
        rig_partition(&x->r, partitions);
    rig_build_db(&x->r);
}

/* SMInfoRecords requester asks for with mask and the record's LID, GUID, state: how many. */
static uint32_t smir(struct srig *x, uint16_t requester, uint64_t mask, uint16_t lid, uint64_t guid,
                     uint8_t state)
{
    uint8_t rec[32] = {0};
    cs_bits_set(rec, 0, 16, lid);
    cs_bits_set(rec, 32, 64, guid);
    rec[24] = state;
    assert_int_equal(query(&x->r, requester, CS_SA_METHOD_GET_TABLE, CS_SA_ATTR_SM_INFO_RECORD,
                           mask, 0, rec, CS_SA_SM_INFO_RECORD_SIZE),
                     0);
    return reply_records(&x->r, CS_SA_SM_INFO_RECORD_SIZE);
}

static void decode(const struct srig *x, uint32_t i, uint16_t *lid, struct cs_smp_sm_info *sm)
{
    const uint8_t *rec = record_at(&x->r, CS_SA_SM_INFO_RECORD_SIZE, i);
    *lid = (uint16_t)cs_bits_get(rec, 0, 16);
    uint8_t data[CS_SMP_DATA_SIZE] = {0};
    memcpy(data, rec + 4, CS_SA_SM_INFO_RECORD_SIZE - 4);
    cs_smp_sm_info_decode(data, sm);
}

static void test_records(void **state)
{
    (void)state;
    struct srig x;
    srig_open(&x, NULL);
    assert_int_equal(smir(&x, HOST1, 0, 0, 0, 0), 2);
    assert_int_equal(reply_header(&x.r).attr_offset, 4); /* 25 bytes in 8-byte words */
    uint16_t lid;
    struct cs_smp_sm_info sm;
    decode(&x, 0, &lid, &sm);
    assert_int_equal(lid, HOST0);
    assert_true(sm.guid == HOST_PORT_GUID(0));
    assert_int_equal(sm.priority, 3);
    assert_int_equal(sm.sm_state, CS_SMP_SM_STATE_MASTER);
    decode(&x, 1, &lid, &sm);
    assert_int_equal(lid, HOST2);
    assert_true(sm.guid == HOST_PORT_GUID(2));
    assert_int_equal(sm.sm_state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(sm.act_count, 77);
    assert_true(sm.sm_key == 0); /* never shown */
    /* By LID: that port's SM; a port without one, or a LID that is no port's base: none. */
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_LID, HOST2, 0, 0), 1);
    decode(&x, 0, &lid, &sm);
    assert_int_equal(lid, HOST2);
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_LID, HOST0, 0, 0), 1);
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_LID, HOST1, 0, 0), 0);
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_LID, 999, 0, 0), 0);
    /* By GUID and by state. */
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_GUID, 0, HOST_PORT_GUID(2), 0), 1);
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_STATE, 0, 0, CS_SMP_SM_STATE_MASTER), 1);
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_STATE, 0, 0, CS_SMP_SM_STATE_NOT_ACTIVE), 0);
    rig_close(&x.r);
}

/* Every port is at least a limited member of the default partition, the SM's port a full one
 * (as OpenSM makes them): a host of another partition sees the SM's record too. (OpenSM answers
 * nothing at all, ERR 2805, to a requester that shares no partition with its port, which its
 * own partitioning never leaves.) */
static void test_partitions(void **state)
{
    (void)state;
    struct srig x;
    srig_open(&x, "Default=0x7fff : 0x0010000000000001=full, 0x0010000000000201=full ;\n"
                  "Blue=0x0001 : 0x0010000000000101=full, 0x0010000000000201=full ;\n");
    assert_int_equal(smir(&x, HOST1, 0, 0, 0, 0), 2);
    assert_int_equal(smir(&x, HOST1, CS_SA_SMIR_LID, HOST2, 0, 0), 1);
    rig_close(&x.r);
}

/* Without an identity the SA has no SMInfoRecords. */
static void test_without_identity(void **state)
{
    (void)state;
    struct srig x;
    srig_open(&x, NULL);
    x.r.opt.sm = NULL;
    rig_build_db(&x.r);
    uint8_t rec[32] = {0};
    assert_int_equal(query(&x.r, HOST1, CS_SA_METHOD_GET_TABLE, CS_SA_ATTR_SM_INFO_RECORD, 0, 0,
                           rec, CS_SA_SM_INFO_RECORD_SIZE),
                     CS_SMP_STATUS_ATTR_UNSUPPORTED);
    rig_close(&x.r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_partitions),
        cmocka_unit_test(test_without_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
