/* SL to VL mapping on a live fabric (src/sm/sl2vl.c), on the in-process SMA model of
 * tests/data/lft/ft2x2.net with the SM on spine0's port 0, as ibsim runs it (its first node).
 *
 * Tables on ft2x2: 6 host ports; each spine has 4 linked ports, so 5 input ports (0 and the 4)
 * times 4 output ports = 20 tables; each leaf 7 linked ports, 8 x 7 = 56. 6 + 2*20 + 2*56 = 158.
 * ibsim starts every table at SL s -> VL s (SL 15 -> VL 7), which is not the rule's for SLs
 * 8..15 on its VL0-7 links, so the first call writes all 158. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_io.h"
#include "sm_fixtures.h"

#define SPINE0 UINT64_C(0x0002c90000000201)
#define LEAF0 UINT64_C(0x0002c90000000101)
#define HOST(i) (UINT64_C(0x0002c90000001000) + 0x10u * (i)) /* node GUID; port 1 = +1 */
#define TABLES 158u
#define OPERATIONAL_VL0_1 2 /* OperationalVLs code: 2 data VLs */

struct rig {
    struct cs_fabric f;
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct log_capture lc;
    struct cs_log log;
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
}

static void rig_close(struct rig *r)
{
    cs_sm_sweep_free(&r->s);
    cs_smp_pipe_destroy(r->pipe);
    cs_sma_model_destroy(r->m);
    cs_fabric_free(&r->f);
    free(r->lc.text);
}

static uint64_t gets(const struct rig *r)
{
    return cs_sma_model_count(r->m, CS_SMP_ATTR_SL2VL_TABLE, CS_SMP_METHOD_GET);
}

static uint64_t sets(const struct rig *r)
{
    return cs_sma_model_count(r->m, CS_SMP_ATTR_SL2VL_TABLE, CS_SMP_METHOD_SET);
}

static void program(struct rig *r, unsigned num_sls, struct cs_sm_sl2vl_counts *c)
{
    struct cs_error err = {""};
    if (cs_sm_program_sl2vl(r->pipe, &r->s, num_sls, &r->log, c, NULL, &err) != 0)
        fail_msg("%s", err.msg);
}

/* The table of a port (host: out 0; switch: input port slot, output port number) as 16 VLs. */
static void expect_table(const struct rig *r, uint32_t port, unsigned out, const uint8_t vl[16])
{
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
        if (cs_sma_model_sl2vl(r->m, port, out, sl) != vl[sl])
            fail_msg("port slot %u out %u: SL %u on VL %u, want %u", port, out, sl,
                     cs_sma_model_sl2vl(r->m, port, out, sl), vl[sl]);
}

static const uint8_t EIGHT_VLS[16] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t TWO_VLS[16] = {0, 1};
static const uint8_t IBSIM_DEFAULT[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7};

static void test_rule(void **state)
{
    (void)state;
    assert_int_equal(cs_sm_sl2vl_vl(8, 0), 0);
    assert_int_equal(cs_sm_sl2vl_vl(8, 7), 7);
    assert_int_equal(cs_sm_sl2vl_vl(8, 8), 0);
    assert_int_equal(cs_sm_sl2vl_vl(15, 14), 14);
    assert_int_equal(cs_sm_sl2vl_vl(15, 15), 0);
    assert_int_equal(cs_sm_sl2vl_vl(1, 3), 0);
}

/* First call: every table read once, every one written (ibsim's default differs); second call:
 * read again, nothing written. */
static void test_program_then_nothing(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    expect_table(&r, fx_port(r.m, HOST(0), 1), 0, IBSIM_DEFAULT);
    struct cs_sm_sl2vl_counts c;
    program(&r, 3, &c);
    assert_int_equal(c.tables_read, TABLES);
    assert_int_equal(c.tables_sent, TABLES);
    assert_int_equal(c.failures, 0);
    assert_int_equal(c.short_ports, 0);
    assert_int_equal(gets(&r), TABLES);
    assert_int_equal(sets(&r), TABLES);
    expect_table(&r, fx_port(r.m, HOST(0), 1), 0, EIGHT_VLS);
    expect_table(&r, fx_port(r.m, HOST(5), 1), 0, EIGHT_VLS);
    /* leaf0: from host0's port (1) to spine0's (5), from port 0 to host2's (3). */
    expect_table(&r, fx_port(r.m, LEAF0, 1), 5, EIGHT_VLS);
    expect_table(&r, fx_port(r.m, LEAF0, 0), 3, EIGHT_VLS);
    /* leaf0 has no port 4 linked: no table towards it, none from it. */
    expect_table(&r, fx_port(r.m, LEAF0, 1), 4, IBSIM_DEFAULT);
    expect_table(&r, fx_port(r.m, LEAF0, 4), 1, IBSIM_DEFAULT);
    /* spine0: to port 0 (the switch itself) nothing. */
    expect_table(&r, fx_port(r.m, SPINE0, 1), 0, IBSIM_DEFAULT);
    expect_table(&r, fx_port(r.m, SPINE0, 2), 3, EIGHT_VLS);

    cs_sma_model_reset_counts(r.m);
    program(&r, 3, &c);
    assert_int_equal(c.tables_read, TABLES);
    assert_int_equal(c.tables_sent, 0);
    assert_int_equal(sets(&r), 0);
    assert_int_equal(r.lc.warnings, 0);
    rig_close(&r);
}

/* The port slot of node guid's port num in the sweep. */
static uint32_t sweep_port(const struct rig *r, uint64_t guid, unsigned num)
{
    for (uint32_t n = 0; n < r->s.fabric.num_nodes; n++)
        if (r->s.fabric.nodes[n].guid == guid)
            return r->s.fabric.nodes[n].first_port + num;
    fail_msg("no node 0x%016llx", (unsigned long long)guid);
    return CS_NONE;
}

/* What the ports hold after programming, kept for the SA: every table, ordered by output port
 * slot and input port, each as the port answered. */
static void test_tables_kept(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    struct cs_sm_sl2vl_counts c;
    struct cs_sm_sl2vl_tables held;
    cs_sm_sl2vl_tables_init(&held);
    struct cs_error err = {""};
    assert_int_equal(cs_sm_program_sl2vl(r.pipe, &r.s, 3, &r.log, &c, &held, &err), 0);
    assert_int_equal(held.count, TABLES);
    assert_int_equal(held.num_ports, r.s.fabric.num_port_slots);
    for (uint32_t i = 0; i < held.count; i++) {
        assert_memory_equal(held.entries[i].table.vl, EIGHT_VLS, sizeof EIGHT_VLS);
        if (i > 0)
            assert_true(held.entries[i - 1].out_port < held.entries[i].out_port ||
                        (held.entries[i - 1].out_port == held.entries[i].out_port &&
                         held.entries[i - 1].in_port < held.entries[i].in_port));
    }
    /* A host's table has input port 0; leaf0's output port 3 has port 0's among its inputs. */
    uint32_t host0 = sweep_port(&r, HOST(0), 1), leaf0_3 = sweep_port(&r, LEAF0, 3);
    unsigned host_tables = 0, leaf_inputs = 0;
    for (uint32_t i = 0; i < held.count; i++) {
        host_tables += held.entries[i].out_port == host0 && held.entries[i].in_port == 0;
        leaf_inputs += held.entries[i].out_port == leaf0_3;
    }
    assert_int_equal(host_tables, 1);
    assert_true(leaf_inputs >= 2);
    cs_sm_sl2vl_tables_free(&held);
    assert_int_equal(held.count, 0);
    rig_close(&r);
}

/* A link that operates two data VLs: SLs 2.. share VL 0 on it, at both ends; logged. */
static void test_short_link(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    uint32_t host0 = fx_port(r.m, HOST(0), 1), swept = CS_NONE;
    for (uint32_t p = 0; p < r.s.fabric.num_port_slots; p++)
        if (r.s.fabric.ports[p].guid == HOST(0) + 1)
            swept = p; /* the sweep numbers ports in the order it found them */
    assert_true(swept != CS_NONE && r.s.port_info_valid[swept]);
    r.s.port_info[swept].operational_vls = OPERATIONAL_VL0_1;
    struct cs_sm_sl2vl_counts c;
    program(&r, 3, &c);
    assert_int_equal(c.tables_sent, TABLES);
    assert_int_equal(c.short_ports, 2); /* host0's port and leaf0's port 1 */
    expect_table(&r, host0, 0, TWO_VLS);
    for (unsigned in = 0; in <= 8; in++)
        if (in != 4)
            expect_table(&r, fx_port(r.m, LEAF0, in), 1, TWO_VLS);
    expect_table(&r, fx_port(r.m, LEAF0, 1), 2, EIGHT_VLS);
    assert_int_equal(log_count(&r.lc, "2 ports have fewer data VLs than the 3 SLs in use"), 1);
    /* Two SLs fit everywhere: nothing to warn about. */
    free(r.lc.text);
    r.lc = (struct log_capture){0};
    program(&r, 2, &c);
    assert_int_equal(c.short_ports, 0);
    assert_int_equal(c.tables_sent, 0);
    assert_int_equal(r.lc.warnings, 0);
    rig_close(&r);
}

/* A node whose agent refuses SL2VL: its Get and Set are failures, counted and logged; the rest
 * of the fabric is programmed. A node that does not answer: the same, after the retries. */
static void test_refused_and_lost(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    struct cs_error err = {""};
    assert_int_equal(cs_sma_model_set_sl2vl_unsupported(r.m, fx_node(r.m, HOST(2)), true, &err), 0);
    struct cs_sm_sl2vl_counts c;
    program(&r, 2, &c);
    assert_int_equal(c.failures, 2);
    assert_int_equal(c.tables_sent, TABLES); /* a table not read is written */
    assert_int_equal(log_count(&r.lc, "Get SL2VLMappingTable(0) to 0x0002c90000001020"), 1);
    assert_int_equal(log_count(&r.lc, "Set SL2VLMappingTable(0) to 0x0002c90000001020"), 1);
    assert_int_equal(log_count(&r.lc, "refused (status 0x000c)"), 2);
    expect_table(&r, fx_port(r.m, HOST(1), 1), 0, EIGHT_VLS);
    expect_table(&r, fx_port(r.m, HOST(2), 1), 0, IBSIM_DEFAULT);

    /* Fixed: the next call writes that one table only. */
    assert_int_equal(cs_sma_model_set_sl2vl_unsupported(r.m, fx_node(r.m, HOST(2)), false, &err),
                     0);
    cs_sma_model_set_unresponsive(r.m, fx_node(r.m, HOST(4)), true);
    cs_sma_model_reset_counts(r.m);
    program(&r, 2, &c);
    assert_int_equal(c.failures, 2); /* host4: its Get and its Set got no answer */
    assert_int_equal(c.tables_sent, 2);
    assert_int_equal(log_count(&r.lc, "to 0x0002c90000001040"), 2);
    expect_table(&r, fx_port(r.m, HOST(2), 1), 0, EIGHT_VLS);
    rig_close(&r);
}

/* The model's SL2VL as ibsim: a switch addresses (input, output) by the modifier, a port beyond
 * the switch is refused, a CA ignores the modifier. */
static void test_model_addressing(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    struct cs_error err = {""};
    struct cs_smp smp;
    uint8_t req[CS_SMP_SIZE], reply[CS_SMP_SIZE];
    uint16_t slid;
    uint8_t path[CS_SMP_PATH_SIZE] = {0};
    /* spine0 itself (hop 0): in port 9 does not exist. */
    assert_int_equal(cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_SL2VL_TABLE,
                                          9u << 8 | 1, path, 0, 0, &err),
                     0);
    cs_smp_encode(&smp, req);
    assert_int_equal(cs_sma_model_process(r.m, req, CS_SMP_PERMISSIVE_LID, reply, &slid), 1);
    cs_smp_decode(reply, &smp);
    assert_int_equal(smp.status & CS_SMP_STATUS_CODE_MASK, CS_SMP_STATUS_INVALID_FIELD);
    /* A Set of (in 2, out 3) lands there and nowhere else. */
    struct cs_smp_sl2vl t = {{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}};
    assert_int_equal(cs_smp_init_directed(&smp, CS_SMP_METHOD_SET, CS_SMP_ATTR_SL2VL_TABLE,
                                          2u << 8 | 3, path, 0, 0, &err),
                     0);
    cs_smp_sl2vl_encode(&t, smp.data);
    cs_smp_encode(&smp, req);
    assert_int_equal(cs_sma_model_process(r.m, req, CS_SMP_PERMISSIVE_LID, reply, &slid), 1);
    cs_smp_decode(reply, &smp);
    assert_int_equal(smp.status & CS_SMP_STATUS_CODE_MASK, 0);
    assert_int_equal(cs_sma_model_sl2vl(r.m, fx_port(r.m, SPINE0, 2), 3, 15), 3);
    assert_int_equal(cs_sma_model_sl2vl(r.m, fx_port(r.m, SPINE0, 3), 2, 15), 7);
    assert_int_equal(cs_sma_model_sl2vl(r.m, fx_port(r.m, SPINE0, 2), 4, 15), 7);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_program_then_nothing),
        cmocka_unit_test(test_tables_kept),
        cmocka_unit_test(test_short_link),
        cmocka_unit_test(test_refused_and_lost),
        cmocka_unit_test(test_model_addressing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
