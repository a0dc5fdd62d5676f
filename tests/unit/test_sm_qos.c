/* QoS on a live fabric (src/sm/vlarb.c, and sl2vl.c's templates), on the in-process SMA model of
 * tests/data/lft/ft2x2.net with the SM on spine0's port 0, as ibsim runs it.
 *
 * Ports QoS programs on ft2x2: 6 host ports, each spine's 4 linked ports, each leaf's 7 (port 0
 * is a base port: no VL arbitration): 28 ports, each with ibsim's caps (8 low, 8 high), so blocks
 * 1 and 3 (low and high 0-31): 56 blocks. SL2VL: the 158 tables of test_sm_sl2vl.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/mcast.h"
#include "cloudsm/partitions.h"
#include "cloudsm/qos.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "sm_fixtures.h"

#define SPINE0 UINT64_C(0x0002c90000000201)
#define LEAF0 UINT64_C(0x0002c90000000101)
#define HOST(i) (UINT64_C(0x0002c90000001000) + 0x10u * (i)) /* node GUID; port 1 = +1 */
#define PORTS 28u
#define BLOCKS (2 * PORTS)
#define TABLES 158u
#define BLOCK_LOW 0
#define BLOCK_LOW_HIGHER 1
#define BLOCK_HIGH 2

struct rig {
    struct cs_fabric f;
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct log_capture lc;
    struct cs_log log;
    struct cs_qos_options general, cls[CS_QOS_CLASSES];
};

static void rig_open(struct rig *r)
{
    memset(r, 0, sizeof *r);
    struct cs_error err = {""};
    r->m = fx_model_ft2x2(&r->f, SPINE0);
    struct cs_smp_transport t = cs_sma_model_transport(r->m);
    struct cs_smp_pipe_options opt = {.window = 16, .timeout_ms = 2, .retries = 1};
    r->pipe = cs_smp_pipe_create(&t, &opt, &err);
    assert_non_null(r->pipe);
    cs_sm_sweep_init(&r->s);
    r->log = (struct cs_log){capture_log, &r->lc};
    if (cs_sm_discover(r->pipe, &r->log, &r->s, &err) != 0)
        fail_msg("%s", err.msg);
    cs_sma_model_reset_counts(r->m);
    cs_qos_options_unset(&r->general);
    for (unsigned k = 0; k < CS_QOS_CLASSES; k++)
        cs_qos_options_unset(&r->cls[k]);
}

static void rig_close(struct rig *r)
{
    cs_sm_sweep_free(&r->s);
    cs_smp_pipe_destroy(r->pipe);
    cs_sma_model_destroy(r->m);
    cs_fabric_free(&r->f);
    free(r->lc.text);
}

static void vlarb_list(struct cs_qos_vlarb_list *l, const char *text)
{
    struct cs_error err = {""};
    if (cs_qos_vlarb_parse(text, strlen(text), l, &err) != 0)
        fail_msg("%s: %s", text, err.msg);
}

static void program(struct rig *r, struct cs_sm_vlarb_counts *vc, struct cs_sm_sl2vl_counts *sc)
{
    struct cs_error err = {""};
    struct cs_qos_config q;
    cs_qos_resolve_all(&r->general, r->cls, &q);
    if (cs_sm_program_sl2vl_qos(r->pipe, &r->s, &q, &r->log, sc, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    if (cs_sm_program_vlarb(r->pipe, &r->s, &q, &r->log, vc, &err) != 0)
        fail_msg("%s", err.msg);
}

/* The sweep's slot of a port (the sweep numbers ports in the order it found them). */
static uint32_t swept_port(const struct rig *r, uint64_t port_guid)
{
    for (uint32_t p = 0; p < r->s.fabric.num_port_slots; p++)
        if (r->s.fabric.ports[p].guid == port_guid)
            return p;
    fail_msg("port 0x%016llx not swept", (unsigned long long)port_guid);
    return CS_NONE;
}

static void expect_entry(const struct rig *r, uint32_t port, unsigned block, unsigned i,
                         unsigned vl, unsigned weight)
{
    struct cs_smp_vlarb b;
    assert_int_equal(cs_sma_model_vlarb(r->m, port, block, &b), 0);
    if (b.vl[i] != vl || b.weight[i] != weight)
        fail_msg("port slot %u block %u entry %u: VL %u weight %u, expected %u %u", port, block, i,
                 b.vl[i], b.weight[i], vl, weight);
}

/* OpenSM's defaults are ibsim's VLArbitration tables on VL0-7 ports: every block is read, none
 * written. The default SL2VL template (SL 15 -> VL 7, SLs 8..14 cut to VLs 0..6) differs from
 * ibsim's table: all written once, then nothing. */
static void test_defaults(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    struct cs_sm_vlarb_counts vc;
    struct cs_sm_sl2vl_counts sc;
    program(&r, &vc, &sc);
    assert_int_equal(vc.blocks_read, BLOCKS);
    assert_int_equal(vc.blocks_sent, 0);
    assert_int_equal(vc.port_info_sets, 0); /* VLHighLimit 0 everywhere already */
    assert_int_equal(vc.failures, 0);
    assert_int_equal(cs_sma_model_count(r.m, CS_SMP_ATTR_VL_ARBITRATION, CS_SMP_METHOD_GET),
                     BLOCKS);
    assert_int_equal(sc.tables_sent, TABLES);
    uint32_t host0 = fx_port(r.m, HOST(0), 1);
    for (unsigned sl = 0; sl < 16; sl++)
        assert_int_equal(cs_sma_model_sl2vl(r.m, host0, 0, sl), sl < 8 ? sl : sl < 15 ? sl - 8 : 7);
    program(&r, &vc, &sc);
    assert_int_equal(sc.tables_sent, 0);
    assert_int_equal(vc.blocks_sent, 0);
    rig_close(&r);
}

/* Each class takes its own keys, else the general ones, else OpenSM's; VLs beyond the port's
 * VL0-7 are cut (VL 9 -> 1, 14 -> 6), SL2VL's VL 15 stays. Programmed once, nothing is sent
 * again but VLHighLimit, which ibsim (and the model) does not keep. */
static void test_classes(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    vlarb_list(&r.general.vlarb_low, "0:1,1:5,3:7,9:3");
    vlarb_list(&r.cls[CS_QOS_SWE].vlarb_low, "2:8,5:1,14:200");
    vlarb_list(&r.general.vlarb_high, "0:4,1:2,2:9");
    r.cls[CS_QOS_CA].high_limit = 4;
    r.cls[CS_QOS_CA].sl2vl.set = true;
    for (unsigned sl = 0; sl < 16; sl++)
        r.cls[CS_QOS_CA].sl2vl.vl[sl] = (uint8_t)sl;
    struct cs_sm_vlarb_counts vc;
    struct cs_sm_sl2vl_counts sc;
    program(&r, &vc, &sc);
    assert_int_equal(vc.blocks_read, BLOCKS);
    assert_int_equal(vc.blocks_sent, BLOCKS);
    assert_int_equal(vc.port_info_sets, 6); /* the CA ports' VLHighLimit 4 */
    assert_int_equal(cs_sma_model_count(r.m, CS_SMP_ATTR_VL_ARBITRATION, CS_SMP_METHOD_SET),
                     BLOCKS);
    uint32_t host0 = fx_port(r.m, HOST(0), 1), leaf_port = fx_port(r.m, LEAF0, 1);
    expect_entry(&r, host0, BLOCK_LOW, 0, 0, 1);
    expect_entry(&r, host0, BLOCK_LOW, 3, 1, 3); /* VL 9 on VL0-7 */
    expect_entry(&r, host0, BLOCK_LOW, 4, 0, 0); /* past the list */
    expect_entry(&r, host0, BLOCK_HIGH, 2, 2, 9);
    expect_entry(&r, leaf_port, BLOCK_LOW, 0, 2, 8);
    expect_entry(&r, leaf_port, BLOCK_LOW, 2, 6, 200);
    expect_entry(&r, leaf_port, BLOCK_HIGH, 1, 1, 2);
    struct cs_smp_vlarb none;
    assert_int_equal(cs_sma_model_vlarb(r.m, fx_port(r.m, LEAF0, 0), BLOCK_LOW, &none), 0);
    assert_int_equal(none.weight[1], 4); /* base port 0: left as ibsim has it */
    for (unsigned sl = 0; sl < 16; sl++)
        assert_int_equal(cs_sma_model_sl2vl(r.m, host0, 0, sl), sl == 15 ? 15 : sl & 7);
    /* a switch table: the swe template is the default one */
    assert_int_equal(cs_sma_model_sl2vl(r.m, fx_port(r.m, LEAF0, 2), 1, 9), 1);
    assert_int_equal(cs_sma_model_sl2vl(r.m, fx_port(r.m, LEAF0, 2), 1, 15), 7);

    cs_sma_model_reset_counts(r.m);
    program(&r, &vc, &sc);
    assert_int_equal(vc.blocks_sent, 0);
    assert_int_equal(sc.tables_sent, 0);
    assert_int_equal(cs_sma_model_count(r.m, CS_SMP_ATTR_VL_ARBITRATION, CS_SMP_METHOD_SET), 0);
    assert_int_equal(vc.port_info_sets, 6);
    rig_close(&r);
}

/* A port with 40 low entries and no high table: blocks 1 and 2 (the second holds 8 entries),
 * nothing of the high table; a port operating VL0-1 gets its VLs cut to 0 and 1. */
static void test_caps_and_mask(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    struct cs_error err = {""};
    uint32_t host0 = fx_port(r.m, HOST(0), 1), swept = swept_port(&r, HOST(0) + 1);
    assert_int_equal(cs_sma_model_set_vlarb_caps(r.m, host0, 40, 0, &err), 0);
    r.s.port_info[swept].vl_arbitration_low_cap = 40;
    r.s.port_info[swept].vl_arbitration_high_cap = 0;
    char text[512] = "";
    size_t used = 0;
    for (unsigned i = 0; i < 64; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%u:%u", i ? "," : "", i % 8,
                                 i + 1);
    vlarb_list(&r.general.vlarb_low, text);
    struct cs_sm_vlarb_counts vc;
    struct cs_sm_sl2vl_counts sc;
    program(&r, &vc, &sc);
    assert_int_equal(vc.blocks_read, BLOCKS); /* host0: two low blocks instead of low and high */
    expect_entry(&r, host0, BLOCK_LOW, 31, 7, 32);
    expect_entry(&r, host0, BLOCK_LOW_HIGHER, 0, 0, 33);
    expect_entry(&r, host0, BLOCK_LOW_HIGHER, 7, 7, 40);
    struct cs_smp_vlarb b;
    assert_int_equal(cs_sma_model_vlarb(r.m, host0, BLOCK_LOW_HIGHER, &b), 0);
    assert_int_equal(b.weight[8], 0); /* past the cap */
    assert_int_equal(cs_sma_model_vlarb(r.m, host0, BLOCK_HIGH, &b), -1);

    uint32_t host1 = fx_port(r.m, HOST(1), 1);
    r.s.port_info[swept_port(&r, HOST(1) + 1)].operational_vls = 2; /* VL0-1 */
    program(&r, &vc, &sc);
    expect_entry(&r, host1, BLOCK_LOW, 3, 1, 4); /* VL 3 -> 1 */
    expect_entry(&r, host1, BLOCK_LOW, 6, 0, 7); /* VL 6 -> 0 */
    assert_int_equal(cs_sma_model_sl2vl(r.m, host1, 0, 5), 1);
    assert_int_equal(vc.blocks_sent, 2); /* host1's low and high */
    rig_close(&r);
}

/* A node that does not answer: its Gets and Sets are failures, counted and logged; the rest of
 * the fabric is programmed. */
static void test_lost(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    vlarb_list(&r.general.vlarb_low, "0:9");
    cs_sma_model_set_unresponsive(r.m, fx_node(r.m, HOST(4)), true);
    struct cs_sm_vlarb_counts vc;
    struct cs_sm_sl2vl_counts sc;
    program(&r, &vc, &sc);
    /* host4: its 2 Gets, and its 2 Sets (a block not read is written) */
    assert_int_equal(vc.failures, 4);
    assert_int_equal(vc.blocks_sent, PORTS + 1); /* every low block, host4's high one */
    expect_entry(&r, fx_port(r.m, HOST(3), 1), BLOCK_LOW, 0, 0, 9);
    assert_int_equal(log_count(&r.lc, "Get VLArbitrationTable(65536) to 0x0002c90000001040"), 1);
    assert_int_equal(log_count(&r.lc, "Set VLArbitrationTable(196608) to 0x0002c90000001040"), 1);
    cs_sma_model_set_unresponsive(r.m, fx_node(r.m, HOST(4)), false);
    program(&r, &vc, &sc);
    assert_int_equal(vc.failures, 0);
    assert_int_equal(vc.blocks_sent, 1); /* host4's low block; its high one holds the default */
    rig_close(&r);
}

/* The SL a partition's sl= flag gives its PathRecords with QoS: the last valid one, as OpenSM
 * reads group flags; none (or only invalid ones): -1. */
static void test_partition_flag_sl(void **state)
{
    (void)state;
    const char *text = "Default=0x7fff, ipoib, sl=1 : ALL=full ;\n"
                       "Blue=0x0001, mtu=4, sl=0x3, rate=7 : ALL=limited ;\n"
                       "Red=0x0002, sl=16 : ALL=limited ;\n"
                       "Green=0x0003, sl=2, sl=x : ALL=limited ;\n"
                       "Plain=0x0004 : ALL=limited ;\n";
    struct cs_partitions p;
    struct cs_error err = {""};
    if (cs_partitions_parse(&p, text, strlen(text), "partitions.conf", &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p.count, 5);
    assert_int_equal(cs_partition_flag_sl(&p.partitions[0]), 1);
    assert_int_equal(cs_partition_flag_sl(&p.partitions[1]), 3);
    assert_int_equal(cs_partition_flag_sl(&p.partitions[2]), -1); /* out of range */
    assert_int_equal(cs_partition_flag_sl(&p.partitions[3]), 2);  /* sl=x is not taken */
    assert_int_equal(cs_partition_flag_sl(&p.partitions[4]), -1);
    cs_partitions_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),          cmocka_unit_test(test_classes),
        cmocka_unit_test(test_caps_and_mask),     cmocka_unit_test(test_lost),
        cmocka_unit_test(test_partition_flag_sl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
