/* Partitions on a live fabric (src/sm/pkeys.c): P_Key tables and partition enforcement, on the
 * in-process SMA model of tests/data/lft/ft2x2.net with the SM on spine0's port 0, as ibsim runs
 * it (its first node).
 *
 * The expected tables are what OpenSM 3.3.23 programmed on ibsim 0.10 for the same fabric and
 * the same partitions.conf text, entry by entry and index by index. Captured with a scratch
 * script (not committed): ibsim -s -n tests/data/lft/ft2x2.net; OSM_CACHE_DIR=dir
 * LD_PRELOAD=libumad2sim.so opensm -D 0xff -P FILE [-W]; after "SUBNET UP", `smpquery pkeys LID`
 * for every CA and every switch port 0, `smpquery pkeys LID PORT` for leaf ports 1..3 (facing
 * hosts) and 5 (facing spine0), `smpquery portinfo LID PORT` for the enforcement bits. The
 * "after" cases ran OpenSM with a first file until SUBNET UP, killed it, and started it again
 * with the second file on the same ibsim (which keeps the tables). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/partitions.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_io.h"
#include "sm_fixtures.h"

#define SPINE0 UINT64_C(0x0002c90000000201) /* the SM's node; its port 0 is SELF */
#define SPINE1 UINT64_C(0x0002c90000000202)
#define LEAF0 UINT64_C(0x0002c90000000101)
#define LEAF1 UINT64_C(0x0002c90000000102)
#define HOST(i) (UINT64_C(0x0002c90000001000) + 0x10u * (i)) /* node GUID; port 1 = +1 */

/* Two partitions besides Default, with P_Keys whose order in OpenSM's partition map (network
 * byte order) is not their numeric order: Blue (0x0100) comes before Red (0x0002). */
static const char TWO_CONF[] =
    "Default=0x7fff : ALL, SELF=full ;\n"
    "Blue=0x0100 : 0x0002c90000001001=full, 0x0002c90000001011=full, 0x0002c90000001021 ;\n"
    "Red=0x0002 : 0x0002c90000001021=full, 0x0002c90000001031=full, 0x0002c90000001001 ;\n";

/* ---- A running SM on the model ---- */

struct rig {
    struct cs_fabric f;
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct cs_sm_pkey_tables held, want;
    struct log_capture lc;
    struct cs_log log;
};

static void rig_pipe(struct rig *r)
{
    struct cs_error err;
    struct cs_smp_transport t = cs_sma_model_transport(r->m);
    /* A lost SMP costs one short timeout: the model answers at once or never. */
    struct cs_smp_pipe_options opt = {.window = 16, .timeout_ms = 2, .retries = 1};
    r->pipe = cs_smp_pipe_create(&t, &opt, &err);
    assert_non_null(r->pipe);
}

static void rig_open(struct rig *r)
{
    memset(r, 0, sizeof *r);
    r->m = fx_model_ft2x2(&r->f, SPINE0);
    rig_pipe(r);
    cs_sm_sweep_init(&r->s);
    cs_sm_pkey_tables_init(&r->held);
    cs_sm_pkey_tables_init(&r->want);
    r->log = (struct cs_log){capture_log, &r->lc};
}

/* A restarted SM: same fabric (model), new pipe, nothing remembered. */
static void rig_restart(struct rig *r)
{
    cs_smp_pipe_destroy(r->pipe);
    rig_pipe(r);
    cs_sm_sweep_free(&r->s);
    cs_sm_sweep_init(&r->s);
    cs_sm_pkey_tables_free(&r->held);
    cs_sm_pkey_tables_free(&r->want);
    free(r->lc.text);
    r->lc = (struct log_capture){0};
}

static void rig_close(struct rig *r)
{
    cs_sm_pkey_tables_free(&r->held);
    cs_sm_pkey_tables_free(&r->want);
    cs_sm_sweep_free(&r->s);
    cs_smp_pipe_destroy(r->pipe);
    cs_sma_model_destroy(r->m);
    cs_fabric_free(&r->f);
    free(r->lc.text);
}

static void discover(struct rig *r)
{
    struct cs_error err = {""};
    if (cs_sm_discover(r->pipe, &r->log, &r->s, &err) != 0)
        fail_msg("%s", err.msg);
}

/* The SMPs of a phase, as the model saw them. */
struct smps {
    uint64_t node_info_get, pkey_get, pkey_set, port_info_set, requests;
};

static struct smps take_smps(struct rig *r)
{
    struct smps c = {
        .node_info_get = cs_sma_model_count(r->m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET),
        .pkey_get = cs_sma_model_count(r->m, CS_SMP_ATTR_PKEY_TABLE, CS_SMP_METHOD_GET),
        .pkey_set = cs_sma_model_count(r->m, CS_SMP_ATTR_PKEY_TABLE, CS_SMP_METHOD_SET),
        .port_info_set = cs_sma_model_count(r->m, CS_SMP_ATTR_PORT_INFO, CS_SMP_METHOD_SET),
        .requests = cs_sma_model_stats(r->m).requests,
    };
    cs_sma_model_reset_counts(r->m);
    return c;
}

/* What cloudsmd does with a partitions file after a heavy sweep: read, compute, program.
 * Returns the P_Keys that did not fit; the counts of the two SMP phases go to *read, *prog. */
static int run_partitions(struct rig *r, const char *conf, const struct cs_sm_pkey_options *opt,
                          struct cs_sm_pkey_counts *read, struct cs_sm_pkey_counts *prog)
{
    struct cs_error err = {""};
    struct cs_partitions p;
    if (cs_partitions_parse(&p, conf, strlen(conf), "test.conf", &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_partition_resolve_options ropt = {SPINE0, opt && opt->allow_both_pkeys};
    struct cs_partition_set set;
    if (cs_partitions_resolve(&p, &r->s.fabric, &ropt, &set, &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_sm_pkey_options o = opt ? *opt : (struct cs_sm_pkey_options){0};
    o.config = &p;
    struct cs_sm_pkey_counts dummy;
    if (cs_sm_read_pkeys(r->pipe, &r->s, &r->held, &r->log, read ? read : &dummy, &err) < 0)
        fail_msg("%s", err.msg);
    int dropped = cs_sm_pkey_tables(&r->s, &set, &o, &r->held, &r->want, &r->log, &err);
    if (dropped < 0)
        fail_msg("%s", err.msg);
    if (cs_sm_program_pkeys(r->pipe, &r->s, &r->want, &r->held, &r->log, prog ? prog : &dummy,
                            &err) != 0)
        fail_msg("%s", err.msg);
    cs_partition_set_free(&set);
    cs_partitions_free(&p);
    return dropped;
}

/* ---- Expectations ---- */

/* A port's table as smpquery prints it: the entries up to the last non-zero one. */
static void table_text(const struct rig *r, uint32_t port, char *out, size_t size)
{
    unsigned last = 0;
    for (unsigned i = 0; i < 1024; i++)
        if (cs_sma_model_pkey(r->m, port, i))
            last = i + 1;
    out[0] = '\0';
    for (unsigned i = 0; i < last; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s0x%04x", i ? " " : "",
                 cs_sma_model_pkey(r->m, port, i));
}

struct expected_table {
    uint64_t node;
    unsigned port;
    const char *entries;
};

static void check_tables(const struct rig *r, const char *what, const struct expected_table *e,
                         size_t count)
{
    for (size_t i = 0; i < count; i++) {
        char got[512];
        table_text(r, fx_port(r->m, e[i].node, e[i].port), got, sizeof got);
        if (strcmp(got, e[i].entries) != 0)
            fail_msg("%s: node 0x%016llx port %u holds \"%s\", OpenSM programmed \"%s\"", what,
                     (unsigned long long)e[i].node, e[i].port, got, e[i].entries);
    }
}

#define CHECK_TABLES(r, what, table) check_tables(r, what, table, sizeof table / sizeof table[0])

/* OpenSM 3.3.23 on ibsim, TWO_CONF. */
static const struct expected_table OPENSM_TWO[] = {
    {HOST(0), 1, "0x7fff 0x8100 0x0002"},
    {HOST(1), 1, "0x7fff 0x8100"},
    {HOST(2), 1, "0x7fff 0x0100 0x8002"},
    {HOST(3), 1, "0x7fff 0x8002"},
    {HOST(4), 1, "0x7fff"},
    {HOST(5), 1, "0x7fff"},
    {SPINE0, 0, "0xffff"},
    {SPINE1, 0, "0x7fff"},
    {LEAF0, 0, "0x7fff"},
    {LEAF1, 0, "0x7fff"},
    {LEAF0, 1, "0x7fff 0x8100 0x0002"},
    {LEAF0, 2, "0x7fff 0x8100"},
    {LEAF0, 3, "0x7fff 0x0100 0x8002"},
    {LEAF0, 5, "0xffff"}, /* facing a switch: not programmed */
    {LEAF1, 1, "0x7fff 0x8002"},
    {LEAF1, 2, "0x7fff"},
    {LEAF1, 3, "0x7fff"},
    {LEAF1, 5, "0xffff"},
};

/* ---- Tests ---- */

/* Two partitions and Default: the tables OpenSM programs, with the SMPs counted exactly, and a
 * restarted SM that finds them in place sends no Set. */
static void test_two_partitions_like_opensm(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    discover(&r);
    take_smps(&r);
    struct cs_sm_pkey_counts read, prog;
    assert_int_equal(run_partitions(&r, TWO_CONF, NULL, &read, &prog), 0);
    CHECK_TABLES(&r, "two partitions", OPENSM_TWO);

    /* Reads: NodeInfo of 4 switches and 6 hosts; 2 blocks of each host port (64 entries), 1 of
     * each switch port 0 (8 entries), 2 of each of the 6 leaf ports facing a host (64). */
    assert_int_equal(read.node_info_gets, 10);
    assert_int_equal(read.blocks_read, 6 * 2 + 4 * 1 + 6 * 2);
    /* Sets: block 0 of every host, of every switch port 0 but the SM's (0xffff stays: SELF is
     * a full member), and of the 6 leaf ports facing hosts. ibsim's switches cannot enforce:
     * no PortInfo Set. */
    assert_int_equal(prog.blocks_sent, 6 + 3 + 6);
    assert_int_equal(prog.port_info_sets, 0);
    assert_int_equal(read.failures + prog.failures, 0);
    struct smps c = take_smps(&r);
    assert_int_equal(c.node_info_get, 10);
    assert_int_equal(c.pkey_get, 28);
    assert_int_equal(c.pkey_set, 15);
    assert_int_equal(c.port_info_set, 0);
    assert_int_equal(c.requests, 10 + 28 + 15);
    assert_int_equal(r.lc.warnings, 0);

    /* The same SM again: everything is read, nothing written. */
    assert_int_equal(run_partitions(&r, TWO_CONF, NULL, &read, &prog), 0);
    c = take_smps(&r);
    assert_int_equal(c.pkey_get, 28);
    assert_int_equal(c.pkey_set, 0);
    assert_int_equal(prog.blocks_sent, 0);

    /* A restarted SM (new sweep, nothing remembered): the same. */
    rig_restart(&r);
    discover(&r);
    take_smps(&r);
    assert_int_equal(run_partitions(&r, TWO_CONF, NULL, &read, &prog), 0);
    c = take_smps(&r);
    assert_int_equal(c.pkey_set + c.port_info_set, 0);
    CHECK_TABLES(&r, "after a restart", OPENSM_TWO);

    /* Tracked tables: program again with what cs_sm_program_pkeys left in held, no read. */
    struct cs_sm_pkey_counts again;
    struct cs_error err = {""};
    assert_int_equal(cs_sm_program_pkeys(r.pipe, &r.s, &r.want, &r.held, &r.log, &again, &err), 0);
    c = take_smps(&r);
    assert_int_equal(c.requests, 0);
    rig_close(&r);
}

/* A restarted SM with another file keeps the indices the ports use: what stays, stays where it
 * is (a removed P_Key leaves a hole), what is new goes after the highest index in use. */
static void test_changed_file_keeps_indices(void **state)
{
    (void)state;
    static const char change[] =
        "Default=0x7fff : ALL, SELF=full ;\n"
        "Green=0x0003 : 0x0002c90000001001=full, 0x0002c90000001031=full ;\n"
        "Red=0x0002 : 0x0002c90000001021=full, 0x0002c90000001001=full ;\n";
    /* OpenSM with TWO_CONF, then OpenSM with this file. */
    static const struct expected_table opensm[] = {
        {HOST(0), 1, "0x7fff 0x0000 0x8002 0x8003"},
        {HOST(1), 1, "0x7fff"},
        {HOST(2), 1, "0x7fff 0x0000 0x8002"},
        {HOST(3), 1, "0x7fff 0x8003"},
        {HOST(4), 1, "0x7fff"},
        {SPINE0, 0, "0xffff"},
        {LEAF1, 0, "0x7fff"},
        {LEAF0, 1, "0x7fff 0x8002 0x8003"},
        {LEAF0, 2, "0x7fff"},
        {LEAF0, 3, "0x7fff 0x8002"},
        {LEAF0, 5, "0xffff"},
        {LEAF1, 1, "0x7fff 0x8003"},
        {LEAF1, 2, "0x7fff"},
    };
    struct rig r;
    rig_open(&r);
    discover(&r);
    run_partitions(&r, TWO_CONF, NULL, NULL, NULL);
    rig_restart(&r);
    discover(&r);
    take_smps(&r);
    struct cs_sm_pkey_counts prog;
    assert_int_equal(run_partitions(&r, change, NULL, NULL, &prog), 0);
    CHECK_TABLES(&r, "changed file", opensm);
    /* Only what changed: hosts 0..3 and the leaf ports facing hosts 0..3 (OpenSM's log shows
     * the same four hosts' blocks updated). */
    assert_int_equal(prog.blocks_sent, 8);
    assert_int_equal(take_smps(&r).pkey_set, 8);
    rig_close(&r);
}

/* Switch port 0 holds 8 P_Keys on ibsim (a switch's PartitionCap). Nine partitions with every
 * switch: the last two in OpenSM's order do not fit and are left out, logged (OpenSM: "ERR 0512:
 * Failed to set PKey 0x8018 because Pkey table is full"). The order is OpenSM's map order, not
 * the file's: P9 is written first but sorts last. */
static void test_full_table_truncated(void **state)
{
    (void)state;
    static const char conf[] = "Default=0x7fff : ALL, SELF=full ;\n"
                               "P9=0x19 : ALL_SWITCHES=full, 0x0002c90000001001=full ;\n"
                               "P1=0x11 : ALL_SWITCHES=full, 0x0002c90000001001 ;\n"
                               "P2=0x12 : ALL_SWITCHES=full ;\n"
                               "P3=0x13 : ALL_SWITCHES=full ;\n"
                               "P4=0x14 : ALL_SWITCHES=full ;\n"
                               "P5=0x15 : ALL_SWITCHES=full ;\n"
                               "P6=0x16 : ALL_SWITCHES=full ;\n"
                               "P7=0x17 : ALL_SWITCHES=full ;\n"
                               "P8=0x18 : ALL_SWITCHES=full ;\n";
    static const struct expected_table opensm[] = {
        {HOST(0), 1, "0x7fff 0x0011 0x8019"},
        {HOST(1), 1, "0x7fff"},
        {SPINE0, 0, "0xffff 0x8011 0x8012 0x8013 0x8014 0x8015 0x8016 0x8017"},
        {SPINE1, 0, "0x7fff 0x8011 0x8012 0x8013 0x8014 0x8015 0x8016 0x8017"},
        {LEAF0, 0, "0x7fff 0x8011 0x8012 0x8013 0x8014 0x8015 0x8016 0x8017"},
        {LEAF1, 0, "0x7fff 0x8011 0x8012 0x8013 0x8014 0x8015 0x8016 0x8017"},
        {LEAF0, 1, "0x7fff 0x0011 0x8019"},
        {LEAF0, 2, "0x7fff"},
    };
    struct rig r;
    rig_open(&r);
    discover(&r);
    assert_int_equal(run_partitions(&r, conf, NULL, NULL, NULL), 2 * 4);
    CHECK_TABLES(&r, "nine partitions", opensm);
    assert_int_equal(log_count(&r.lc, "P_Key 0x8018 does not fit the 8-entry P_Key table"), 4);
    assert_int_equal(log_count(&r.lc, "P_Key 0x8019 does not fit the 8-entry P_Key table"), 4);
    assert_int_equal(r.lc.warnings, 8);

    /* A restart with P2 gone and P8 in: P8 takes the hole P2 left (OpenSM: "Reusing
     * PKeyTable block index 0 pkey index 2 for pkey 0x8018"). */
    static const char seven_b[] = "Default=0x7fff : ALL, SELF=full ;\n"
                                  "P1=0x11 : ALL_SWITCHES=full ;\n"
                                  "P3=0x13 : ALL_SWITCHES=full ;\n"
                                  "P4=0x14 : ALL_SWITCHES=full ;\n"
                                  "P5=0x15 : ALL_SWITCHES=full ;\n"
                                  "P6=0x16 : ALL_SWITCHES=full ;\n"
                                  "P7=0x17 : ALL_SWITCHES=full ;\n"
                                  "P8=0x18 : ALL_SWITCHES=full ;\n";
    static const struct expected_table reused[] = {
        {SPINE0, 0, "0xffff 0x8011 0x8018 0x8013 0x8014 0x8015 0x8016 0x8017"},
        {LEAF1, 0, "0x7fff 0x8011 0x8018 0x8013 0x8014 0x8015 0x8016 0x8017"},
        {HOST(0), 1, "0x7fff"},
    };
    rig_restart(&r);
    discover(&r);
    assert_int_equal(run_partitions(&r, seven_b, NULL, NULL, NULL), 0);
    CHECK_TABLES(&r, "hole reused", reused);
    rig_close(&r);
}

/* indx0: the flagged partition's P_Key takes index 0 on its members; Default moves after the
 * others. */
static void test_indx0(void **state)
{
    (void)state;
    static const char conf[] =
        "Default=0x7fff : ALL, SELF=full ;\n"
        "Blue=0x0100 : 0x0002c90000001001=full, 0x0002c90000001011=full, 0x0002c90000001021 ;\n"
        "Red=0x0002,indx0 : 0x0002c90000001021=full, 0x0002c90000001031=full, "
        "0x0002c90000001001 ;\n";
    static const struct expected_table opensm[] = {
        {HOST(0), 1, "0x0002 0x8100 0x7fff"},
        {HOST(1), 1, "0x7fff 0x8100"},
        {HOST(2), 1, "0x8002 0x0100 0x7fff"},
        {HOST(3), 1, "0x8002 0x7fff"},
        {HOST(4), 1, "0x7fff"},
        {SPINE0, 0, "0xffff"},
        {SPINE1, 0, "0x7fff"},
        {LEAF0, 1, "0x0002 0x8100 0x7fff"},
        {LEAF0, 2, "0x7fff 0x8100"},
        {LEAF0, 3, "0x8002 0x0100 0x7fff"},
        {LEAF1, 1, "0x8002 0x7fff"},
        {LEAF1, 2, "0x7fff"},
    };
    struct rig r;
    rig_open(&r);
    discover(&r);
    run_partitions(&r, conf, NULL, NULL, NULL);
    CHECK_TABLES(&r, "indx0", opensm);
    /* Stable: a second run keeps everything where it is. */
    take_smps(&r);
    run_partitions(&r, conf, NULL, NULL, NULL);
    assert_int_equal(take_smps(&r).pkey_set, 0);
    rig_close(&r);
}

/* allow_both_pkeys (-W): a port both a full and a limited member holds both entries (the switch
 * port facing it only the full one), and the limited Default entry is not "the default P_Key"
 * (0xffff) any more: index 0 is left empty. tests/data/partitions/both.conf. */
static void test_allow_both(void **state)
{
    (void)state;
    static const char conf[] = "P=0x5 : 0x0002c90000001001=both, 0x0002c90000001011=limi ;\n";
    static const struct expected_table opensm[] = {
        {HOST(0), 1, "0x0000 0x0005 0x8005 0x7fff"},
        {HOST(1), 1, "0x0000 0x0005 0x7fff"},
        {HOST(2), 1, "0x0000 0x7fff"},
        {HOST(5), 1, "0x0000 0x7fff"},
        {SPINE0, 0, "0xffff"},
        {SPINE1, 0, "0x0000 0x7fff"},
        {LEAF0, 0, "0x0000 0x7fff"},
        {LEAF0, 1, "0x8005 0x7fff"},
        {LEAF0, 2, "0x0005 0x7fff"},
        {LEAF0, 3, "0x7fff"},
        {LEAF0, 5, "0xffff"},
        {LEAF1, 1, "0x7fff"},
    };
    struct rig r;
    rig_open(&r);
    discover(&r);
    struct cs_sm_pkey_options opt = {.allow_both_pkeys = true};
    run_partitions(&r, conf, &opt, NULL, NULL);
    CHECK_TABLES(&r, "allow_both_pkeys", opensm);
    take_smps(&r);
    run_partitions(&r, conf, &opt, NULL, NULL);
    assert_int_equal(take_smps(&r).pkey_set, 0);
    rig_close(&r);
}

static void leaf_caps(struct rig *r, uint64_t leaf, uint16_t enforcement_cap)
{
    struct cs_error err;
    struct cs_sma_model_partition_caps caps = {.partition_cap = CS_SMA_MODEL_SWITCH_PKEY_ENTRIES,
                                               .enforcement_cap = enforcement_cap,
                                               .inbound = true,
                                               .outbound = true};
    assert_int_equal(cs_sma_model_set_partition_caps(r->m, fx_node(r->m, leaf), &caps, &err), 0);
}

static unsigned enforce_of(const struct rig *r, uint64_t node, unsigned num)
{
    struct cs_smp_port_info pi;
    cs_sma_model_port_info(r->m, fx_port(r->m, node, num), &pi);
    return (pi.partition_enforcement_inbound ? CS_SM_ENFORCE_INBOUND : 0) |
           (pi.partition_enforcement_outbound ? CS_SM_ENFORCE_OUTBOUND : 0);
}

/* Switches that can enforce (real ones; ibsim's cannot) get PartitionEnforcementInbound and
 * Outbound on the ports facing hosts, once, and not between switches; part_enforce picks the
 * bits; bits found between switches are cleared. */
static void test_enforcement(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    leaf_caps(&r, LEAF0, 64);
    leaf_caps(&r, LEAF1, 64);
    discover(&r);
    take_smps(&r);
    struct cs_sm_pkey_counts prog;
    run_partitions(&r, TWO_CONF, NULL, NULL, &prog);
    CHECK_TABLES(&r, "with enforcement", OPENSM_TWO);
    assert_int_equal(prog.port_info_sets, 6);
    assert_int_equal(take_smps(&r).port_info_set, 6);
    for (unsigned p = 1; p <= 3; p++) {
        assert_int_equal(enforce_of(&r, LEAF0, p), CS_SM_ENFORCE_INBOUND | CS_SM_ENFORCE_OUTBOUND);
        assert_int_equal(enforce_of(&r, LEAF1, p), CS_SM_ENFORCE_INBOUND | CS_SM_ENFORCE_OUTBOUND);
    }
    assert_int_equal(enforce_of(&r, LEAF0, 5), 0);
    /* The PortInfo Sets moved nothing else: the links stay up, the ports keep their state. */
    assert_int_equal(cs_sma_model_port_state(r.m, fx_port(r.m, LEAF0, 1)), CS_SMP_PORT_STATE_INIT);

    /* Again: the bits are there, nothing is sent. */
    run_partitions(&r, TWO_CONF, NULL, NULL, &prog);
    assert_int_equal(take_smps(&r).port_info_set + prog.blocks_sent, 0);

    /* Inbound only; restarted SM: the 6 ports lose their outbound bit. */
    rig_restart(&r);
    discover(&r);
    take_smps(&r);
    struct cs_sm_pkey_options in = {.part_enforce = CS_SM_PART_ENFORCE_IN};
    run_partitions(&r, TWO_CONF, &in, NULL, &prog);
    assert_int_equal(prog.port_info_sets, 6);
    assert_int_equal(prog.blocks_sent, 0);
    assert_int_equal(enforce_of(&r, LEAF1, 2), CS_SM_ENFORCE_INBOUND);

    /* Off: the bits go, and the switch ports' tables are no business of the SM's. */
    rig_restart(&r);
    discover(&r);
    take_smps(&r);
    struct cs_sm_pkey_options off = {.part_enforce = CS_SM_PART_ENFORCE_OFF};
    run_partitions(&r, TWO_CONF, &off, NULL, &prog);
    assert_int_equal(prog.port_info_sets, 6);
    assert_int_equal(enforce_of(&r, LEAF0, 1), 0);
    rig_close(&r);
}

/* Both enforcement bits of leaf0's port 5 set by a PortInfo Set of our own (as another SM would),
 * sent along spine0 port 1 -> leaf0. */
static void set_leaf0_port5_bits(struct rig *r)
{
    struct cs_smp_port_info pi;
    cs_sma_model_port_info(r->m, fx_port(r->m, LEAF0, 5), &pi);
    pi.partition_enforcement_inbound = 1;
    pi.partition_enforcement_outbound = 1;
    pi.port_state = CS_SMP_PORT_STATE_NO_CHANGE;
    struct cs_smp smp;
    struct cs_error err;
    uint8_t path[2] = {0, 1};
    assert_int_equal(
        cs_smp_init_directed(&smp, CS_SMP_METHOD_SET, CS_SMP_ATTR_PORT_INFO, 5, path, 1, 1, &err),
        0);
    cs_smp_port_info_encode(&pi, smp.data);
    uint8_t wire[CS_SMP_SIZE], reply[CS_SMP_SIZE];
    uint16_t slid;
    cs_smp_encode(&smp, wire);
    assert_int_equal(cs_sma_model_process(r->m, wire, CS_SMP_PERMISSIVE_LID, reply, &slid), 1);
    struct cs_smp answer;
    cs_smp_decode(reply, &answer);
    assert_int_equal(answer.status & CS_SMP_STATUS_CODE_MASK, 0);
}

/* Bits set between two switches (by someone else) are cleared, as OpenSM does. A switch without
 * the capability (ibsim's) does not even keep them. */
static void test_enforcement_cleared_between_switches(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    set_leaf0_port5_bits(&r);
    assert_int_equal(enforce_of(&r, LEAF0, 5), 0);
    leaf_caps(&r, LEAF0, 64);
    set_leaf0_port5_bits(&r);
    assert_int_equal(enforce_of(&r, LEAF0, 5), CS_SM_ENFORCE_INBOUND | CS_SM_ENFORCE_OUTBOUND);

    discover(&r);
    take_smps(&r);
    struct cs_sm_pkey_counts prog;
    run_partitions(&r, TWO_CONF, NULL, NULL, &prog);
    assert_int_equal(enforce_of(&r, LEAF0, 5), 0);
    /* leaf0's three host ports switched on, port 5 cleared; leaf1 cannot enforce. */
    assert_int_equal(prog.port_info_sets, 3 + 1);
    rig_close(&r);
}

/* A switch port that cannot hold all of its host's P_Keys keeps what fits and does not enforce
 * (OpenSM's ERR 0507: "Not enough pkey entries ... Clearing Enforcement bit"). */
static void test_switch_port_too_small(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    leaf_caps(&r, LEAF0, 2); /* host0 and host2 have 3 P_Keys, host1 has 2 */
    discover(&r);
    struct cs_sm_pkey_counts prog;
    assert_int_equal(run_partitions(&r, TWO_CONF, NULL, NULL, &prog), 0);
    static const struct expected_table expected[] = {
        {HOST(0), 1, "0x7fff 0x8100 0x0002"},
        {LEAF0, 1, "0x7fff 0x8100"},
        {LEAF0, 2, "0x7fff 0x8100"},
        {LEAF0, 3, "0x7fff 0x0100"},
    };
    CHECK_TABLES(&r, "2-entry switch ports", expected);
    assert_int_equal(enforce_of(&r, LEAF0, 1), 0);
    assert_int_equal(enforce_of(&r, LEAF0, 2), CS_SM_ENFORCE_INBOUND | CS_SM_ENFORCE_OUTBOUND);
    assert_int_equal(enforce_of(&r, LEAF0, 3), 0);
    assert_int_equal(prog.port_info_sets, 1);
    assert_int_equal(log_count(&r.lc, "no partition enforcement there"), 2);
    rig_close(&r);
}

/* A host that stops answering while its table is written: the failure is counted and logged,
 * its table becomes unknown, and the next call writes it whole; the switch port in front of it
 * is programmed (and enforces) all the same. */
static void test_failed_set_is_retried(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    leaf_caps(&r, LEAF1, 64);
    discover(&r);
    struct cs_error err = {""};
    struct cs_partitions p;
    assert_int_equal(cs_partitions_parse(&p, TWO_CONF, strlen(TWO_CONF), "two", &err), 0);
    struct cs_partition_resolve_options ropt = {SPINE0, false};
    struct cs_partition_set set;
    assert_int_equal(cs_partitions_resolve(&p, &r.s.fabric, &ropt, &set, &err), 0);
    struct cs_sm_pkey_counts c;
    assert_int_equal(cs_sm_read_pkeys(r.pipe, &r.s, &r.held, &r.log, &c, &err), 0);
    assert_int_equal(cs_sm_pkey_tables(&r.s, &set, NULL, &r.held, &r.want, &r.log, &err), 0);

    cs_sma_model_set_unresponsive(r.m, fx_node(r.m, HOST(3)), true);
    take_smps(&r);
    assert_int_equal(cs_sm_program_pkeys(r.pipe, &r.s, &r.want, &r.held, &r.log, &c, &err), 0);
    assert_int_equal(c.failures, 1);
    assert_int_equal(log_count(&r.lc, "Set P_KeyTable(0) to 0x0002c90000001030"), 1);
    assert_int_equal(cs_sma_model_pkey(r.m, fx_port(r.m, HOST(3), 1), 0), 0xffff);
    assert_int_equal(enforce_of(&r, LEAF1, 1), CS_SM_ENFORCE_INBOUND | CS_SM_ENFORCE_OUTBOUND);
    assert_int_equal(take_smps(&r).pkey_set, 15 + 1); /* one retry of the lost Set */

    cs_sma_model_set_unresponsive(r.m, fx_node(r.m, HOST(3)), false);
    assert_int_equal(cs_sm_program_pkeys(r.pipe, &r.s, &r.want, &r.held, &r.log, &c, &err), 0);
    assert_int_equal(c.failures, 0);
    assert_int_equal(c.blocks_sent, 2); /* both blocks: nothing was known of that table */
    static const struct expected_table host3[] = {{HOST(3), 1, "0x7fff 0x8002"}};
    CHECK_TABLES(&r, "after the retry", host3);
    assert_int_equal(cs_sm_program_pkeys(r.pipe, &r.s, &r.want, &r.held, &r.log, &c, &err), 0);
    assert_int_equal(c.blocks_sent + c.port_info_sets, 0);

    /* Tables of another fabric are refused. */
    struct cs_sm_pkey_tables other;
    cs_sm_pkey_tables_init(&other);
    assert_int_equal(cs_sm_program_pkeys(r.pipe, &r.s, &r.want, &other, &r.log, &c, &err), -1);
    assert_non_null(strstr(err.msg, "changed shape"));
    assert_int_equal(cs_sm_pkey_tables(&r.s, &set, NULL, &other, &r.want, &r.log, &err), -1);
    assert_non_null(strstr(err.msg, "read them back first"));
    cs_partition_set_free(&set);
    cs_partitions_free(&p);
    rig_close(&r);
}

/* The model's own P_Key bookkeeping: table sizes as ibsim has them, partial last blocks. */
static void test_model_table_sizes(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    discover(&r);
    struct cs_sm_pkey_counts c;
    struct cs_error err;
    assert_int_equal(cs_sm_read_pkeys(r.pipe, &r.s, &r.held, &r.log, &c, &err), 0);
    for (uint32_t p = 0; p < r.s.fabric.num_port_slots; p++) {
        const struct cs_port *port = &r.s.fabric.ports[p];
        bool sw = cs_node_is_switch(&r.s.fabric.nodes[port->node]);
        uint16_t expect = 0;
        if (sw && port->num == 0)
            expect = CS_SMA_MODEL_SWITCH_PKEY_ENTRIES;
        else if (!sw && port->num == 1)
            expect = CS_SMA_MODEL_PKEY_ENTRIES;
        else if (sw && port->peer != CS_NONE &&
                 !cs_node_is_switch(&r.s.fabric.nodes[r.s.fabric.ports[port->peer].node]))
            expect = 64;
        assert_int_equal(r.held.capacity[p], expect);
        if (expect) {
            assert_true(r.held.known[p]);
            assert_int_equal(cs_sm_pkey_table(&r.held, p)[0], 0xffff);
        }
    }
    /* A 40-entry table: block 1 keeps 8 of the 32 entries written. */
    struct cs_sma_model_partition_caps caps = {.partition_cap = 40};
    assert_int_equal(cs_sma_model_set_partition_caps(r.m, fx_node(r.m, HOST(0)), &caps, &err), 0);
    assert_int_equal(cs_sma_model_set_partition_caps(r.m, 999, &caps, &err), -1);
    discover(&r);
    assert_int_equal(cs_sm_read_pkeys(r.pipe, &r.s, &r.held, &r.log, &c, &err), 0);
    uint32_t host0 = CS_NONE;
    for (uint32_t p = 0; p < r.s.fabric.num_port_slots; p++)
        if (r.s.fabric.ports[p].guid == HOST(0) + 1)
            host0 = p;
    assert_int_equal(r.held.capacity[host0], 40);
    struct cs_sm_pkey_tables want;
    cs_sm_pkey_tables_init(&want);
    struct cs_partitions p;
    static const char many[] = "A=0x1:0x0002c90000001001=full;B=0x2:0x0002c90000001001=full;"
                               "C=0x3:0x0002c90000001001=full;D=0x4:0x0002c90000001001=full;"
                               "E=0x5:0x0002c90000001001=full;F=0x6:0x0002c90000001001=full;"
                               "G=0x7:0x0002c90000001001=full;H=0x8:0x0002c90000001001=full;"
                               "I=0x9:0x0002c90000001001=full;J=0xa:0x0002c90000001001=full;"
                               "K=0xb:0x0002c90000001001=full;L=0xc:0x0002c90000001001=full;"
                               "M=0xd:0x0002c90000001001=full;N=0xe:0x0002c90000001001=full;"
                               "O=0xf:0x0002c90000001001=full;P=0x10:0x0002c90000001001=full;"
                               "Q=0x11:0x0002c90000001001=full;R=0x12:0x0002c90000001001=full;"
                               "S=0x13:0x0002c90000001001=full;T=0x14:0x0002c90000001001=full;"
                               "U=0x15:0x0002c90000001001=full;V=0x16:0x0002c90000001001=full;"
                               "W=0x17:0x0002c90000001001=full;X=0x18:0x0002c90000001001=full;"
                               "Y=0x19:0x0002c90000001001=full;Z=0x1a:0x0002c90000001001=full;"
                               "a=0x1b:0x0002c90000001001=full;b=0x1c:0x0002c90000001001=full;"
                               "c=0x1d:0x0002c90000001001=full;d=0x1e:0x0002c90000001001=full;"
                               "e=0x1f:0x0002c90000001001=full;f=0x20:0x0002c90000001001=full;"
                               "g=0x21:0x0002c90000001001=full;h=0x22:0x0002c90000001001=full;"
                               "i=0x23:0x0002c90000001001=full;j=0x24:0x0002c90000001001=full;"
                               "k=0x25:0x0002c90000001001=full;l=0x26:0x0002c90000001001=full;"
                               "m=0x27:0x0002c90000001001=full;n=0x28:0x0002c90000001001=full;";
    assert_int_equal(cs_partitions_parse(&p, many, strlen(many), "many", &err), 0);
    struct cs_partition_resolve_options ropt = {SPINE0, false};
    struct cs_partition_set set;
    assert_int_equal(cs_partitions_resolve(&p, &r.s.fabric, &ropt, &set, &err), 0);
    /* Default and 40 partitions: 41 P_Keys for 40 entries. */
    assert_int_equal(cs_sm_pkey_tables(&r.s, &set, NULL, &r.held, &want, &r.log, &err), 1);
    assert_int_equal(cs_sm_program_pkeys(r.pipe, &r.s, &want, &r.held, &r.log, &c, &err), 0);
    uint32_t mp = fx_port(r.m, HOST(0), 1);
    assert_int_equal(cs_sma_model_pkey(r.m, mp, 39), cs_sm_pkey_table(&want, host0)[39]);
    assert_int_not_equal(cs_sma_model_pkey(r.m, mp, 39), 0);
    assert_int_equal(cs_sma_model_pkey(r.m, mp, 40), 0);
    /* Read back: equal to what was wanted, so a second program call sends nothing. */
    assert_int_equal(cs_sm_program_pkeys(r.pipe, &r.s, &want, &r.held, &r.log, &c, &err), 0);
    assert_int_equal(c.blocks_sent, 0);
    cs_partition_set_free(&set);
    cs_partitions_free(&p);
    cs_sm_pkey_tables_free(&want);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_partitions_like_opensm),
        cmocka_unit_test(test_changed_file_keeps_indices),
        cmocka_unit_test(test_full_table_truncated),
        cmocka_unit_test(test_indx0),
        cmocka_unit_test(test_allow_both),
        cmocka_unit_test(test_enforcement),
        cmocka_unit_test(test_enforcement_cleared_between_switches),
        cmocka_unit_test(test_switch_port_too_small),
        cmocka_unit_test(test_failed_set_is_retried),
        cmocka_unit_test(test_model_table_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
