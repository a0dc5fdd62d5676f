/* Programming a fabric (src/sm/program.c) and our SMInfo answers (src/sm/master.c; the election
 * is tested in test_sm_master.c), driven the way cloudsmd's bring_up drives them: discover,
 * assign LIDs, set them, route, program the LFTs, activate. The fabric is the in-process SMA
 * model; every assertion reads the model's own state back, and SMP counts are taken both from
 * the model (what arrived) and from the pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/key_index.h"
#include "cloudsm/lft.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_gen.h"
#include "sm_fixtures.h"

#define SUBNET_PREFIX UINT64_C(0xfec0000000001234) /* not the model's default: must be written */

/* ---- Fabrics ---- */

static uint32_t count_links(const struct cs_fabric *f)
{
    uint32_t links = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        links += f->ports[p].peer != CS_NONE && f->ports[p].peer > p;
    return links;
}

/* ---- A running SM on a model ---- */

/* SMPs of one phase: what the pipe sent (first attempts by method) and what reached the model
 * per attribute and method (retries included). */
struct smps {
    uint64_t gets, sets, timeouts, requests;
    uint64_t port_info_set, switch_info_set, lft_set, lft_get, sm_info_get;
};

struct rig {
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct cs_lfts lfts;
    bool routed;
    struct log_capture lc;
    struct cs_log log;
    struct cs_smp_pipe_stats mark; /* pipe counters at the start of the current phase */
    uint32_t *model_node;          /* sweep node index -> model node index (by GUID) */
    struct cs_route_options ropt;
};

static void rig_pipe(struct rig *r, unsigned retries)
{
    struct cs_error err;
    struct cs_smp_transport t = cs_sma_model_transport(r->m);
    /* A lost SMP costs one short timeout: the model answers at once or never. */
    struct cs_smp_pipe_options opt = {.window = 16, .timeout_ms = 2, .retries = retries};
    r->pipe = cs_smp_pipe_create(&t, &opt, &err);
    assert_non_null(r->pipe);
    r->mark = cs_smp_pipe_stats(r->pipe);
}

/* A model of f with the SM on (sm_node, sm_port), and a pipe on it. */
static void rig_open(struct rig *r, const struct cs_fabric *f, uint32_t sm_node, unsigned sm_port,
                     unsigned retries)
{
    memset(r, 0, sizeof *r);
    struct cs_error err;
    r->m = cs_sma_model_create(f, sm_node, sm_port, &err);
    assert_non_null(r->m);
    rig_pipe(r, retries);
    cs_sm_sweep_init(&r->s);
    r->log = (struct cs_log){capture_log, &r->lc};
}

/* What a restarted SM has: the same fabric (model), a new pipe, a new sweep, no tables. */
static void rig_restart(struct rig *r, unsigned retries)
{
    cs_smp_pipe_destroy(r->pipe);
    rig_pipe(r, retries);
    cs_sm_sweep_free(&r->s);
    cs_sm_sweep_init(&r->s);
    if (r->routed)
        cs_lfts_free(&r->lfts);
    r->routed = false;
    free(r->model_node);
    r->model_node = NULL;
    free(r->lc.text);
    r->lc = (struct log_capture){0};
}

static void rig_close(struct rig *r)
{
    if (r->routed)
        cs_lfts_free(&r->lfts);
    cs_sm_sweep_free(&r->s);
    cs_smp_pipe_destroy(r->pipe);
    cs_sma_model_destroy(r->m);
    free(r->model_node);
    free(r->lc.text);
}

/* The SMPs since the last call, and a fresh start for the next phase. */
static struct smps phase_smps(struct rig *r)
{
    struct cs_smp_pipe_stats now = cs_smp_pipe_stats(r->pipe);
    struct cs_smp_pipe_stats d = cs_smp_pipe_stats_since(&now, &r->mark);
    struct cs_sma_model_stats ms = cs_sma_model_stats(r->m);
    struct smps c = {
        .gets = d.gets,
        .sets = d.sets,
        .timeouts = d.timeouts,
        .requests = ms.requests,
        .port_info_set = cs_sma_model_count(r->m, CS_SMP_ATTR_PORT_INFO, CS_SMP_METHOD_SET),
        .switch_info_set = cs_sma_model_count(r->m, CS_SMP_ATTR_SWITCH_INFO, CS_SMP_METHOD_SET),
        .lft_set = cs_sma_model_count(r->m, CS_SMP_ATTR_LINEAR_FT, CS_SMP_METHOD_SET),
        .lft_get = cs_sma_model_count(r->m, CS_SMP_ATTR_LINEAR_FT, CS_SMP_METHOD_GET),
        .sm_info_get = cs_sma_model_count(r->m, CS_SMP_ATTR_SM_INFO, CS_SMP_METHOD_GET),
    };
    r->mark = now;
    cs_sma_model_reset_counts(r->m);
    return c;
}

static void map_nodes(struct rig *r)
{
    const struct cs_fabric *mf = cs_sma_model_fabric(r->m);
    struct cs_key_index ix;
    struct cs_error err;
    cs_key_index_init(&ix);
    assert_int_equal(cs_key_index_nodes(&ix, mf, &err), 0);
    free(r->model_node);
    r->model_node = malloc((r->s.fabric.num_nodes + 1) * sizeof *r->model_node);
    assert_non_null(r->model_node);
    for (uint32_t n = 0; n < r->s.fabric.num_nodes; n++) {
        r->model_node[n] = cs_key_index_find(&ix, r->s.fabric.nodes[n].guid);
        assert_int_not_equal(r->model_node[n], CS_NONE);
    }
    cs_key_index_free(&ix);
}

static void discover(struct rig *r)
{
    struct cs_error err;
    phase_smps(r);
    if (cs_sm_discover(r->pipe, &r->log, &r->s, &err) != 0)
        fail_msg("discover: %s", err.msg);
    assert_int_equal(r->s.problems, 0);
    map_nodes(r);
}

/* The model's port slot of sweep port slot p. */
static uint32_t model_port(const struct rig *r, uint32_t p)
{
    const struct cs_port *port = &r->s.fabric.ports[p];
    return cs_fabric_port(cs_sma_model_fabric(r->m), r->model_node[port->node], port->num);
}

static struct cs_sm_port_settings settings_of(const struct rig *r)
{
    return (struct cs_sm_port_settings){
        .sm_lid = r->s.fabric.ports[r->s.sm_port].lid,
        .subnet_prefix = SUBNET_PREFIX,
    };
}

static void route(struct rig *r)
{
    struct cs_error err;
    struct cs_route_stats st;
    if (r->routed)
        cs_lfts_free(&r->lfts);
    if (cs_route("ftree", &r->s.fabric, &r->ropt, &r->lfts, &st, &err) != 0)
        fail_msg("route: %s", err.msg);
    r->routed = true;
}

struct bring_up {
    int changed;
    int lid_failures;
    struct cs_sm_lft_counts lft;
    int activate_failures;
    unsigned activated;
    struct smps discover, lids, lfts, activate;
};

/* tools/cloudsmd/main.c's bring_up, minus files and the master check. */
static void bring_up(struct rig *r, const struct cs_guid2lid *guid2lid, struct bring_up *b)
{
    struct cs_error err;
    discover(r);
    b->discover = phase_smps(r);
    b->changed = cs_sm_assign_lids(&r->s, guid2lid, false, &r->log, &err);
    assert_true(b->changed >= 0);
    struct cs_sm_port_settings settings = settings_of(r);
    b->lid_failures = cs_sm_set_lids(r->pipe, &r->s, &settings, &r->log, &err);
    assert_true(b->lid_failures >= 0);
    b->lids = phase_smps(r);
    route(r);
    assert_int_equal(cs_sm_program_lfts(r->pipe, &r->s, &r->lfts, NULL, &r->log, &b->lft, &err), 0);
    b->lfts = phase_smps(r);
    b->activate_failures = cs_sm_activate(r->pipe, &r->s, &r->log, &b->activated, &err);
    assert_true(b->activate_failures >= 0);
    b->activate = phase_smps(r);
}

/* ---- Reading the model back ---- */

/* Every port that needs a LID (CA ports, switch ports 0) holds the sweep's LID, LMC 0, the SM's
 * LID and the subnet prefix; every linked port is ACTIVE. */
static void assert_ports(const struct rig *r)
{
    const struct cs_fabric *f = &r->s.fabric;
    uint16_t sm_lid = f->ports[r->s.sm_port].lid;
    assert_int_not_equal(sm_lid, 0);
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        uint32_t mp = model_port(r, p);
        struct cs_smp_port_info pi;
        cs_sma_model_port_info(r->m, mp, &pi);
        if (cs_port_needs_lid(f, p)) {
            assert_int_not_equal(f->ports[p].lid, 0);
            assert_int_equal(pi.lid, f->ports[p].lid);
            assert_int_equal(pi.master_sm_lid, sm_lid);
            assert_int_equal(pi.subnet_prefix, SUBNET_PREFIX);
            assert_int_equal(pi.lmc, 0);
        }
        if (f->ports[p].peer != CS_NONE)
            assert_int_equal(pi.port_state, CS_SMP_PORT_STATE_ACTIVE);
    }
}

/* Every switch's LinearFDBTop is the set's max LID and every entry of every programmed block is
 * the routed one. */
static void assert_lfts(const struct rig *r)
{
    const struct cs_lfts *t = &r->lfts;
    assert_int_equal(t->max_lid, cs_fabric_max_lid(&r->s.fabric));
    uint32_t entries = cs_lfts_blocks(t) * CS_LFT_BLOCK;
    for (uint32_t sw = 0; sw < t->num_switches; sw++) {
        uint32_t node = r->model_node[t->switches[sw].node];
        assert_int_equal(cs_sma_model_lft_top(r->m, node), t->max_lid);
        for (uint32_t lid = 0; lid < entries; lid++)
            if (cs_sma_model_lft_entry(r->m, node, lid) != cs_lfts_get(t, sw, lid))
                fail_msg("switch %u LID %u: model %u, routed %u", sw, lid,
                         cs_sma_model_lft_entry(r->m, node, lid), cs_lfts_get(t, sw, lid));
    }
}

/* The proof that LIDs, LFTs and port states fit together: a LID-routed NodeInfo Get to every
 * LID comes back from the node that owns it (the model forwards LID-routed SMPs only over
 * ACTIVE links and only by the LFTs, up to LinearFDBTop). */
static void assert_lid_routed_reachable(const struct rig *r)
{
    const struct cs_fabric *f = &r->s.fabric;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        if (!cs_port_needs_lid(f, p))
            continue;
        struct cs_smp smp;
        cs_smp_init_lid_routed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, 7);
        uint8_t wire[CS_SMP_SIZE], out[CS_SMP_SIZE];
        uint16_t slid = 0;
        cs_smp_encode(&smp, wire);
        if (cs_sma_model_process(r->m, wire, f->ports[p].lid, out, &slid) != 1)
            fail_msg("LID %u (port %u of \"%s\") is not reachable", f->ports[p].lid,
                     f->ports[p].num, f->nodes[f->ports[p].node].desc);
        struct cs_smp reply;
        cs_smp_decode(out, &reply);
        assert_int_equal(reply.status, 0);
        struct cs_smp_node_info ni;
        cs_smp_node_info_decode(reply.data, &ni);
        assert_int_equal(ni.node_guid, f->nodes[f->ports[p].node].guid);
        assert_int_equal(ni.port_guid, f->ports[p].guid);
        assert_int_equal(slid, f->ports[p].lid);
    }
}

/* A directed-route request sent straight to the model (as another tool or SM would). */
static int raw_dr(struct cs_sma_model *m, uint8_t method, uint16_t attr, uint32_t mod,
                  const struct cs_dr_path *path, const uint8_t *data, struct cs_smp *reply)
{
    struct cs_smp smp;
    struct cs_error err;
    assert_int_equal(
        cs_smp_init_directed(&smp, method, attr, mod, path->port, path->hops, 99, &err), 0);
    if (data != NULL)
        memcpy(smp.data, data, CS_SMP_DATA_SIZE);
    uint8_t wire[CS_SMP_SIZE], out[CS_SMP_SIZE];
    uint16_t slid;
    cs_smp_encode(&smp, wire);
    int got = cs_sma_model_process(m, wire, CS_SMP_PERMISSIVE_LID, out, &slid);
    if (got == 1)
        cs_smp_decode(out, reply);
    return got;
}

/* ---- Bring-up ---- */

/* A fresh PGFT (SM on host 0), phase by phase. SMP counts, derived:
 *   LIDs      every port that needs one: 12 CA ports + 16 switch ports 0 = 28 PortInfo Sets;
 *             max LID 28.
 *   LFTs      16 SwitchInfo Sets (LinearFDBTop 0 -> 28), and 16 * (28/64 + 1) = 16 blocks, all
 *             written without reading: a switch with LinearFDBTop 0 holds nothing.
 *   activate  48 links = 96 port ends, each INIT -> ARMED and ARMED -> ACTIVE: 192 Sets.
 * No Gets after discovery, nothing lost. */
static void test_bring_up_pgft(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    assert_int_equal(count_links(&src), 48);
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    struct bring_up b;
    bring_up(&r, NULL, &b);

    assert_int_equal(b.changed, 28);
    assert_int_equal(cs_fabric_max_lid(&r.s.fabric), 28);
    assert_int_equal(b.lid_failures, 0);
    assert_int_equal(b.lids.sets, 28);
    assert_int_equal(b.lids.port_info_set, 28);
    assert_int_equal(b.lids.requests, 28);

    assert_int_equal(b.lft.switch_info_sets, 16);
    assert_int_equal(b.lft.blocks_sent, 16);
    assert_int_equal(b.lft.blocks_read, 0);
    assert_int_equal(b.lft.failures, 0);
    assert_int_equal(b.lfts.switch_info_set, 16);
    assert_int_equal(b.lfts.lft_set, 16);
    assert_int_equal(b.lfts.lft_get, 0);
    assert_int_equal(b.lfts.sets, 32);
    assert_int_equal(b.lfts.gets, 0);
    assert_int_equal(b.lfts.requests, 32);

    assert_int_equal(b.activate_failures, 0);
    assert_int_equal(b.activated, 96);
    assert_int_equal(b.activate.port_info_set, 192);
    assert_int_equal(b.activate.sets, 192);
    assert_int_equal(b.activate.gets, 0);
    assert_int_equal(b.activate.timeouts + b.lfts.timeouts + b.lids.timeouts, 0);
    assert_int_equal(r.lc.warnings, 0);

    assert_ports(&r);
    assert_lfts(&r);
    assert_lid_routed_reachable(&r);
    /* LinearFDBTop was written without touching PortStateChange (writing 1 clears it). */
    struct cs_smp_switch_info si;
    cs_sma_model_switch_info(r.m, 12, &si);
    assert_int_equal(si.port_state_change, 1);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* The SM on a switch (a root's port 0): the same SMP counts as from a host, and every LID
 * reachable from there. */
static void test_bring_up_sm_on_switch(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 26, 0, 1);
    /* ftree routes root to root only when asked: the SM on a root must reach the other roots. */
    r.ropt.connect_roots = true;
    struct bring_up b;
    bring_up(&r, NULL, &b);
    assert_int_equal(r.s.fabric.nodes[r.s.sm_node].guid, src.nodes[26].guid);
    assert_int_equal(b.changed, 28);
    assert_int_equal(b.lids.port_info_set, 28);
    assert_int_equal(b.lft.switch_info_sets, 16);
    assert_int_equal(b.lft.blocks_sent, 16);
    assert_int_equal(b.activated, 96);
    assert_int_equal(b.activate.port_info_set, 192);
    assert_int_equal(b.lid_failures + b.activate_failures + (int)b.lft.failures, 0);
    assert_ports(&r);
    assert_lfts(&r);
    assert_lid_routed_reachable(&r);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* The same on a 4-ary-3-tree with the SM in the middle, and then a restart: a new sweep, LIDs
 * from the first run's guid2lid, the same fabric already programmed.
 * First run: 64 + 48 = 112 LIDs: 112 PortInfo Sets; 48 SwitchInfo Sets; 48 * (112/64 + 1) = 96
 * blocks; 192 links = 384 port ends: 768 state Sets.
 * Restart: 0 Sets. LinearFDBTop is already 112 everywhere, so both blocks of each switch lie at
 * or below it and are read back once: 96 LFT Gets, all equal. */
static void test_bring_up_kary_and_restart(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_kary(&src, 4, 3);
    assert_int_equal(count_links(&src), 192);
    struct rig r;
    rig_open(&r, &src, 37, 1, 1);
    struct bring_up b;
    bring_up(&r, NULL, &b);
    assert_int_equal(b.changed, 112);
    assert_int_equal(b.lids.port_info_set, 112);
    assert_int_equal(b.lft.switch_info_sets, 48);
    assert_int_equal(b.lft.blocks_sent, 96);
    assert_int_equal(b.lft.blocks_read, 0);
    assert_int_equal(b.lfts.lft_set, 96);
    assert_int_equal(b.lfts.lft_get, 0);
    assert_int_equal(b.activated, 384);
    assert_int_equal(b.activate.port_info_set, 768);
    assert_int_equal(b.lid_failures + b.activate_failures + (int)b.lft.failures, 0);
    assert_ports(&r);
    assert_lfts(&r);
    assert_lid_routed_reachable(&r);

    /* What the first run would have written to its state directory. */
    struct cs_error err;
    struct cs_guid2lid g;
    assert_int_equal(cs_guid2lid_from_fabric(&g, &r.s.fabric, &err), 0);
    assert_int_equal(g.count, 112);
    const struct cs_fabric *mf = cs_sma_model_fabric(r.m);
    uint16_t *lid_before = calloc(mf->num_port_slots, sizeof *lid_before);
    for (uint32_t p = 0; p < mf->num_port_slots; p++)
        lid_before[p] = cs_sma_model_port_lid(r.m, p);

    rig_restart(&r, 1);
    struct bring_up again;
    bring_up(&r, &g, &again);
    assert_int_equal(again.changed, 0);
    assert_int_equal(again.lid_failures, 0);
    assert_int_equal(again.discover.sets, 0);
    assert_int_equal(again.lids.sets + again.lfts.sets + again.activate.sets, 0);
    assert_int_equal(again.lids.requests, 0);
    assert_int_equal(again.lft.switch_info_sets, 0);
    assert_int_equal(again.lft.blocks_sent, 0);
    assert_int_equal(again.lft.blocks_read, 96);
    assert_int_equal(again.lfts.lft_get, 96);
    assert_int_equal(again.lfts.requests, 96);
    assert_int_equal(again.activated, 0);
    assert_int_equal(again.activate.requests, 0);
    assert_int_equal(again.activate_failures + (int)again.lft.failures, 0);
    for (uint32_t p = 0; p < mf->num_port_slots; p++)
        assert_int_equal(cs_sma_model_port_lid(r.m, p), lid_before[p]);
    assert_ports(&r);
    assert_lfts(&r);
    free(lid_before);
    cs_guid2lid_free(&g);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* A restart where the switches do not all hold what was programmed: one switch's LinearFDBTop
 * was lowered to 63 (block 1, LIDs 64..127, now lies above it), one to 64 (block 1 still at or
 * below it), and one entry of another switch's block 0 was changed behind the SM's back.
 * Expected: 2 SwitchInfo Sets; reads = 96 blocks - 1 (the block above top 63 is written without
 * reading); writes = that block + the changed block = 2. */
static void test_restart_reads_only_at_or_below_top(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_kary(&src, 4, 3);
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    struct bring_up b;
    bring_up(&r, NULL, &b);
    assert_int_equal(b.lft.blocks_sent, 96);
    struct cs_error err;
    struct cs_guid2lid g;
    assert_int_equal(cs_guid2lid_from_fabric(&g, &r.s.fabric, &err), 0);

    /* Switches by sweep index, through the paths the sweep found. */
    uint32_t sw_low = r.lfts.switches[3].node, sw_edge = r.lfts.switches[20].node,
             sw_changed = r.lfts.switches[40].node;
    uint32_t m_low = r.model_node[sw_low], m_edge = r.model_node[sw_edge];
    const uint16_t tops[2] = {63, 64};
    const uint32_t nodes[2] = {sw_low, sw_edge};
    for (int i = 0; i < 2; i++) {
        struct cs_smp_switch_info si = r.s.switch_info[nodes[i]];
        si.linear_fdb_top = tops[i];
        si.port_state_change = 0;
        uint8_t data[CS_SMP_DATA_SIZE];
        cs_smp_switch_info_encode(&si, data);
        struct cs_smp reply;
        assert_int_equal(raw_dr(r.m, CS_SMP_METHOD_SET, CS_SMP_ATTR_SWITCH_INFO, 0,
                                &r.s.path[nodes[i]], data, &reply),
                         1);
        assert_int_equal(reply.status & CS_SMP_STATUS_CODE_MASK, 0);
    }
    assert_int_equal(cs_sma_model_lft_top(r.m, m_low), 63);
    assert_int_equal(cs_sma_model_lft_top(r.m, m_edge), 64);
    struct cs_smp_lft_block blk;
    memcpy(blk.port, cs_lfts_table(&r.lfts, 40), CS_LFT_BLOCK);
    blk.port[5] = blk.port[5] == 1 ? 2 : 1;
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_lft_block_encode(&blk, data);
    struct cs_smp reply;
    assert_int_equal(raw_dr(r.m, CS_SMP_METHOD_SET, CS_SMP_ATTR_LINEAR_FT, 0, &r.s.path[sw_changed],
                            data, &reply),
                     1);

    rig_restart(&r, 1);
    struct bring_up again;
    bring_up(&r, &g, &again);
    assert_int_equal(again.lids.sets, 0);
    assert_int_equal(again.lft.switch_info_sets, 2);
    assert_int_equal(again.lft.blocks_read, 95);
    assert_int_equal(again.lft.blocks_sent, 2);
    assert_int_equal(again.lfts.lft_get, 95);
    assert_int_equal(again.lfts.lft_set, 2);
    assert_int_equal(again.lfts.switch_info_set, 2);
    assert_int_equal(again.lft.failures, 0);
    assert_int_equal(again.activate.sets, 0);
    assert_lfts(&r);
    assert_lid_routed_reachable(&r);
    cs_guid2lid_free(&g);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* Light sweep: the flags ibsim (and the model) raise when ports are linked are all reported
 * and cleared once; a quiet fabric then reports nothing; a pulled cable is reported by the
 * switches at both ends; a switch that stops answering counts as a change too. */
static void test_light_sweep(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_kary(&src, 4, 3);
    struct rig r;
    rig_open(&r, &src, 0, 1, 0);
    struct bring_up b;
    bring_up(&r, NULL, &b);
    struct cs_error err;
    phase_smps(&r);
    int first = cs_sm_light_sweep(r.pipe, &r.s, &r.log, &err);
    struct smps p = phase_smps(&r);
    assert_int_equal(p.gets, 48); /* one SwitchInfo per switch */
    /* Every switch was linked at creation: each reports (and gets a clearing Set) once. */
    assert_int_equal(first, 48);
    assert_int_equal(p.switch_info_set, 48);
    assert_int_equal(cs_sm_light_sweep(r.pipe, &r.s, &r.log, &err), 0);
    p = phase_smps(&r);
    assert_int_equal(p.gets, 48);
    assert_int_equal(p.sets, 0);

    /* Pull the cable between a leaf (S-..1-0000, node 64) and its first parent. */
    uint32_t leaf = 64, up = cs_fabric_port(&src, leaf, 5);
    assert_true(cs_node_is_switch(&src.nodes[leaf]) && src.ports[up].peer != CS_NONE);
    assert_int_equal(cs_sma_model_unlink(r.m, up, &err), 0);
    /* The two ends report the change; switches the sweep reached through that cable no longer
     * answer on their old paths: changes too, until a heavy sweep finds new paths. */
    int after_cut = cs_sm_light_sweep(r.pipe, &r.s, &r.log, &err);
    assert_true(after_cut >= 2);
    assert_true(after_cut <= 48);
    discover(&r);
    /* An end that was silent on its old path still holds its flag: reported once more. */
    assert_true(cs_sm_light_sweep(r.pipe, &r.s, &r.log, &err) <= 2);
    assert_int_equal(cs_sm_light_sweep(r.pipe, &r.s, &r.log, &err), 0);

    /* A root that stops answering. */
    cs_sma_model_set_unresponsive(r.m, 111, true);
    assert_true(cs_sm_light_sweep(r.pipe, &r.s, &r.log, &err) >= 1);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* Held tables carried to a new sweep by switch GUID: rows copied and known, blocks the old set
 * did not cover and switches it did not have unknown (dirty). */
static void test_carry_held(void **state)
{
    (void)state;
    struct cs_error err;
    struct cs_fabric f;
    gen_kary(&f, 4, 2);
    assert_int_equal(cs_lids_assign(&f, 0, &err), 0);
    struct cs_lfts old, want, out;
    struct cs_route_stats st;
    assert_int_equal(cs_route("ftree", &f, NULL, &old, &st, &err), 0);
    cs_lfts_clear_dirty(&old);
    cs_lfts_mark_block(&old, 3, 0, true); /* one block of switch 3 was unknown already */
    /* want: the same switches in reverse order and room for more LIDs. */
    assert_int_equal(cs_lfts_init(&want, (uint16_t)(old.max_lid + 100), &err), 0);
    for (uint32_t i = old.num_switches; i-- > 0;)
        assert_true(cs_lfts_add_switch(&want, old.switches[i].guid, old.switches[i].lid,
                                       old.switches[i].desc, CS_NONE, &err) != CS_NONE);
    assert_true(cs_lfts_add_switch(&want, 0x77, 0, "new", CS_NONE, &err) != CS_NONE);
    assert_int_equal(cs_sm_carry_held(&old, &want, &out, &err), 0);
    assert_int_equal(out.num_switches, want.num_switches);
    assert_int_equal(out.capacity, want.capacity);
    for (uint32_t i = 0; i < old.num_switches; i++) {
        uint32_t from = old.num_switches - 1 - i;
        assert_int_equal(out.switches[i].guid, old.switches[from].guid);
        assert_memory_equal(cs_lfts_table(&out, i), cs_lfts_table(&old, from), old.capacity);
        assert_int_equal(cs_lfts_block_dirty(&out, i, 0), from == 3);
        assert_true(cs_lfts_block_dirty(&out, i, cs_lfts_blocks(&out) - 1)); /* beyond old */
    }
    for (uint32_t b = 0; b < cs_lfts_blocks(&out); b++)
        assert_true(cs_lfts_block_dirty(&out, old.num_switches, b)); /* the new switch */
    cs_lfts_free(&out);
    cs_lfts_free(&want);
    cs_lfts_free(&old);
    cs_fabric_free(&f);
}

/* Tracked mode: the caller holds what the switches hold, so nothing is read and exactly the
 * blocks that differ are written. Changed entries (4-ary-3-tree, blocks 0..1):
 *   switch 0: LIDs 3 and 10 (block 0, one block) and LID 100 (block 1)
 *   switch 5: LID 64 (block 1)
 *   switch 7: LID 7 "changed" to the value it has (no block)
 * = 3 blocks. */
static void test_tracked_lfts(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_kary(&src, 4, 3);
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    struct bring_up b;
    bring_up(&r, NULL, &b);
    assert_int_equal(b.lft.failures, 0);
    struct cs_error err;
    /* held: what the switches now hold (routing is deterministic: the same tables again). */
    struct cs_lfts held;
    struct cs_route_stats st;
    assert_int_equal(cs_route("ftree", &r.s.fabric, NULL, &held, &st, &err), 0);
    cs_lfts_clear_dirty(&held); /* every block known: the switches were just programmed */
    assert_int_equal(held.capacity, r.lfts.capacity);
    assert_memory_equal(held.ports, r.lfts.ports, (size_t)held.num_switches * held.capacity);

    struct {
        uint32_t sw, lid;
    } changes[] = {{0, 3}, {0, 10}, {0, 100}, {5, 64}};
    for (unsigned i = 0; i < 4; i++) {
        uint8_t old = cs_lfts_get(&r.lfts, changes[i].sw, changes[i].lid);
        cs_lfts_set(&r.lfts, changes[i].sw, changes[i].lid, old == 1 ? 2 : 1);
    }
    cs_lfts_set(&r.lfts, 7, 7, cs_lfts_get(&r.lfts, 7, 7));

    struct cs_sm_lft_counts c;
    assert_int_equal(cs_sm_program_lfts(r.pipe, &r.s, &r.lfts, &held, &r.log, &c, &err), 0);
    struct smps p = phase_smps(&r);
    assert_int_equal(c.blocks_sent, 3);
    assert_int_equal(c.blocks_read, 0);
    assert_int_equal(c.switch_info_sets, 0);
    assert_int_equal(c.failures, 0);
    assert_int_equal(p.lft_set, 3);
    assert_int_equal(p.lft_get, 0);
    assert_int_equal(p.gets, 0);
    assert_int_equal(p.requests, 3);
    assert_memory_equal(held.ports, r.lfts.ports, (size_t)held.num_switches * held.capacity);
    assert_lfts(&r);

    /* Nothing differs any more: nothing at all is sent. */
    assert_int_equal(cs_sm_program_lfts(r.pipe, &r.s, &r.lfts, &held, &r.log, &c, &err), 0);
    assert_int_equal(c.blocks_sent, 0);
    assert_int_equal(phase_smps(&r).requests, 0);

    /* A block marked unknown (dirty in held) is read back, found equal, and not written; it is
     * known again afterwards. */
    cs_lfts_mark_block(&held, 2, 1, true);
    assert_int_equal(cs_sm_program_lfts(r.pipe, &r.s, &r.lfts, &held, &r.log, &c, &err), 0);
    assert_int_equal(c.blocks_read, 1);
    assert_int_equal(c.blocks_sent, 0);
    assert_int_equal(phase_smps(&r).lft_get, 1);
    assert_false(cs_lfts_block_dirty(&held, 2, 1));

    /* A held set for other switches is refused before anything is sent. */
    held.num_switches--;
    assert_int_equal(cs_sm_program_lfts(r.pipe, &r.s, &r.lfts, &held, &r.log, &c, &err), -1);
    assert_non_null(strstr(err.msg, "the fabric changed shape"));
    assert_int_equal(phase_smps(&r).requests, 0);
    held.num_switches++;
    cs_lfts_free(&held);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* ---- LID assignment ---- */

/* needs[i] = the i-th port of the sweep (fabric order) that needs a LID. */
static uint32_t lid_ports(const struct cs_fabric *f, uint32_t *needs)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (cs_port_needs_lid(f, p))
            needs[n++] = p;
    return n;
}

static void set_held(struct cs_sm_sweep *s, uint32_t p, uint16_t lid)
{
    assert_true(s->port_info_valid[p]);
    s->port_info[p].lid = lid;
}

/* guid2lid first, then held LIDs that are free (first in fabric order wins a conflict), then
 * the lowest free LIDs in fabric order. The held LIDs are planted in the sweep's port_info, which
 * is all cs_sm_assign_lids reads of the fabric's current state. */
static void test_assign_lids_rules(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    discover(&r);
    struct cs_sm_sweep *s = &r.s;
    const struct cs_fabric *f = &s->fabric;
    uint32_t needs[64];
    assert_int_equal(lid_ports(f, needs), 28);

    struct cs_guid2lid_entry entries[] = {
        {f->ports[needs[0]].guid, 40, 40}, /* A: holds 7, guid2lid says 40 */
        {f->ports[needs[6]].guid, 9, 9},   /* G: holds 9 too */
        {UINT64_C(0x0badc0ffee), 12, 12},  /* a port that is away: 12 is held for it */
    };
    struct cs_guid2lid g = {entries, 3, 3};
    set_held(s, needs[0], 7);      /* A -> 40 (changed) */
    set_held(s, needs[1], 40);     /* B: 40 belongs to A -> new (changed) */
    set_held(s, needs[2], 33);     /* C keeps 33 */
    set_held(s, needs[3], 50);     /* D keeps 50 (first of two) */
    set_held(s, needs[4], 50);     /* E: 50 is D's -> new (changed) */
    set_held(s, needs[5], 0xc000); /* F: a multicast LID -> new (changed) */
    set_held(s, needs[6], 9);      /* G keeps 9 (guid2lid) */
    set_held(s, needs[7], 3);      /* H keeps 3 */
    set_held(s, needs[8], 20);     /* K: its PortInfo was never read -> new (changed) */
    s->port_info_valid[needs[8]] = false;
    /* 7 is free again once A leaves it: the lowest-free order hands it out. */

    struct cs_error err;
    int changed = cs_sm_assign_lids(s, &g, false, &r.log, &err);
    assert_int_equal(f->ports[needs[0]].lid, 40);
    assert_int_equal(f->ports[needs[2]].lid, 33);
    assert_int_equal(f->ports[needs[3]].lid, 50);
    assert_int_equal(f->ports[needs[6]].lid, 9);
    assert_int_equal(f->ports[needs[7]].lid, 3);
    /* Lowest free in fabric order, around {3, 9, 12 (held), 33, 40, 50}: B 1, E 2, F 4, K 5,
     * then 6, 7, 8, 10, 11, 13, ... */
    assert_int_equal(f->ports[needs[1]].lid, 1);
    assert_int_equal(f->ports[needs[4]].lid, 2);
    assert_int_equal(f->ports[needs[5]].lid, 4);
    assert_int_equal(f->ports[needs[8]].lid, 5);
    static const uint16_t rest[] = {6,  7,  8,  10, 11, 13, 14, 15, 16, 17,
                                    18, 19, 20, 21, 22, 23, 24, 25, 26};
    for (unsigned i = 9; i < 28; i++)
        assert_int_equal(f->ports[needs[i]].lid, rest[i - 9]);
    /* New or changed: A, B, E, F, K and the 19 that held nothing = 24; kept: C, D, G, H. */
    assert_int_equal(changed, 24);
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (!cs_port_needs_lid(f, p))
            assert_int_equal(f->ports[p].lid, 0);

    /* Deterministic: the same inputs give the same LIDs (assign starts from scratch). */
    uint16_t first[64];
    for (unsigned i = 0; i < 28; i++)
        first[i] = f->ports[needs[i]].lid;
    assert_int_equal(cs_sm_assign_lids(s, &g, false, &r.log, &err), 24);
    for (unsigned i = 0; i < 28; i++)
        assert_int_equal(f->ports[needs[i]].lid, first[i]);

    /* Without guid2lid: A keeps 7, B keeps 40. */
    assert_int_equal(cs_sm_assign_lids(s, NULL, false, &r.log, &err), 24 - 2);
    assert_int_equal(f->ports[needs[0]].lid, 7);
    assert_int_equal(f->ports[needs[1]].lid, 40);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* A guid2lid range of 2 LIDs (LMC 1, e.g. a guid2lid written by OpenSM with lmc 1) claims both
 * LIDs: a port that holds the second one must not keep it. */
static void test_assign_lids_guid2lid_range(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    discover(&r);
    uint32_t needs[64];
    assert_int_equal(lid_ports(&r.s.fabric, needs), 28);
    struct cs_guid2lid_entry entries[] = {{r.s.fabric.ports[needs[0]].guid, 44, 45}};
    struct cs_guid2lid g = {entries, 1, 1};
    set_held(&r.s, needs[1], 45);
    struct cs_error err = {""};
    int changed = cs_sm_assign_lids(&r.s, &g, false, &r.log, &err);
    if (changed < 0)
        fail_msg("assign_lids failed: %s", err.msg);
    assert_int_equal(r.s.fabric.ports[needs[0]].lid, 44);
    assert_int_equal(r.s.fabric.ports[needs[0]].lmc, 1);
    assert_int_equal(r.s.fabric.ports[needs[1]].lid, 1);
    assert_int_equal(changed, 28);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* ---- Failures ---- */

/* A switch that is not on the way to any other node and has no host (a root here), so that
 * making it unresponsive loses exactly its own SMPs. */
static uint32_t quiet_switch(const struct cs_sm_sweep *s)
{
    const struct cs_fabric *f = &s->fabric;
    for (uint32_t n = f->num_nodes; n-- > 0;) {
        if (!cs_node_is_switch(&f->nodes[n]))
            continue;
        const struct cs_dr_path *pn = &s->path[n];
        bool transit = false;
        for (uint32_t o = 0; o < f->num_nodes && !transit; o++)
            transit = o != n && s->path[o].hops > pn->hops &&
                      memcmp(s->path[o].port + 1, pn->port + 1, pn->hops) == 0;
        const struct cs_node *node = &f->nodes[n];
        for (unsigned p = 1; p <= node->num_ports && !transit; p++) {
            uint32_t peer = f->ports[node->first_port + p].peer;
            transit = peer != CS_NONE && !cs_node_is_switch(&f->nodes[f->ports[peer].node]);
        }
        if (!transit)
            return n;
    }
    fail_msg("no switch off every path");
    return CS_NONE;
}

/* A switch dies between LID programming and LFT programming. Its SwitchInfo Set and its one LFT
 * block time out: 2 failures, each a WARN naming it. The run goes on: the other 15 switches are
 * programmed. In activation its k linked ports time out in the first round (k failures), their
 * peers go ARMED, and the peers' ARMED -> ACTIVE is refused (0x1c: the far end is still INIT):
 * k more. */
static void test_unresponsive_switch(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 0, 1, 0);
    struct cs_error err;
    discover(&r);
    assert_true(cs_sm_assign_lids(&r.s, NULL, false, &r.log, &err) >= 0);
    struct cs_sm_port_settings settings = settings_of(&r);
    assert_int_equal(cs_sm_set_lids(r.pipe, &r.s, &settings, &r.log, &err), 0);
    route(&r);
    uint32_t dead = quiet_switch(&r.s);
    const struct cs_node *dn = &r.s.fabric.nodes[dead];
    unsigned k = 0;
    for (unsigned p = 1; p <= dn->num_ports; p++)
        k += r.s.fabric.ports[dn->first_port + p].peer != CS_NONE;
    assert_true(k > 0);
    cs_sma_model_set_unresponsive(r.m, r.model_node[dead], true);
    phase_smps(&r);
    unsigned warnings_before = r.lc.warnings;

    struct cs_sm_lft_counts c;
    assert_int_equal(cs_sm_program_lfts(r.pipe, &r.s, &r.lfts, NULL, &r.log, &c, &err), 0);
    struct smps p = phase_smps(&r);
    assert_int_equal(c.failures, 2);
    assert_int_equal(c.blocks_sent, 16);
    assert_int_equal(c.switch_info_sets, 16);
    assert_int_equal(p.timeouts, 2);
    assert_int_equal(r.lc.warnings - warnings_before, 2);
    char guid[32];
    snprintf(guid, sizeof guid, "0x%016llx", (unsigned long long)dn->guid);
    assert_int_equal(log_count(&r.lc, guid), 2);
    assert_int_equal(log_count(&r.lc, "Set SwitchInfo(0)"), 1);
    assert_int_equal(log_count(&r.lc, "Set LinearForwardingTable(0)"), 1);
    assert_int_equal(log_count(&r.lc, "no answer"), 2);
    /* Every other switch got its table. */
    for (uint32_t sw = 0; sw < r.lfts.num_switches; sw++) {
        uint32_t node = r.lfts.switches[sw].node;
        uint16_t top = cs_sma_model_lft_top(r.m, r.model_node[node]);
        assert_int_equal(top, node == dead ? 0 : r.lfts.max_lid);
    }

    unsigned activated = 0;
    warnings_before = r.lc.warnings;
    int failures = cs_sm_activate(r.pipe, &r.s, &r.log, &activated, &err);
    p = phase_smps(&r);
    assert_int_equal(failures, (int)(2 * k));
    assert_int_equal(activated, 96 - 2 * k);
    assert_int_equal(p.timeouts, k);
    assert_int_equal(r.lc.warnings - warnings_before, 2 * k);
    assert_int_equal(log_count(&r.lc, "refused (status 0x001c)"), k);
    for (unsigned q = 1; q <= dn->num_ports; q++) {
        uint32_t port = dn->first_port + q, peer = r.s.fabric.ports[port].peer;
        if (peer == CS_NONE)
            continue;
        assert_int_equal(cs_sma_model_port_state(r.m, model_port(&r, port)),
                         CS_SMP_PORT_STATE_INIT);
        assert_int_equal(cs_sma_model_port_state(r.m, model_port(&r, peer)),
                         CS_SMP_PORT_STATE_ARMED);
    }
    rig_close(&r);
    cs_fabric_free(&src);
}

/* The sweep saw host 5's port ARMED, but it is INIT now (the link retrained): the SM skips it
 * in the first round and asks for ACTIVE in the second, which the model refuses (INIT -> ACTIVE
 * is two steps); its leaf port, ARMED, is refused too (its far end is INIT). 2 failures, both
 * logged; the other 94 port ends are ACTIVE. */
static void test_refused_state_set(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    discover(&r);
    struct cs_error err;
    assert_true(cs_sm_assign_lids(&r.s, NULL, false, &r.log, &err) >= 0);
    struct cs_sm_port_settings settings = settings_of(&r);
    assert_int_equal(cs_sm_set_lids(r.pipe, &r.s, &settings, &r.log, &err), 0);
    uint32_t host = CS_NONE;
    for (uint32_t n = 0; n < r.s.fabric.num_nodes; n++)
        if (r.s.fabric.nodes[n].guid == src.nodes[5].guid)
            host = n;
    assert_int_not_equal(host, CS_NONE);
    uint32_t hp = cs_fabric_port(&r.s.fabric, host, 1), leaf_port = r.s.fabric.ports[hp].peer;
    r.s.port_info[hp].port_state = CS_SMP_PORT_STATE_ARMED;
    phase_smps(&r);
    unsigned activated = 0;
    assert_int_equal(cs_sm_activate(r.pipe, &r.s, &r.log, &activated, &err), 2);
    assert_int_equal(activated, 94);
    assert_int_equal(r.lc.warnings, 2);
    assert_int_equal(log_count(&r.lc, "Set PortInfo(1)"), 1);
    assert_int_equal(log_count(&r.lc, "refused (status 0x001c)"), 2);
    /* Round 1: 95 (all but host 5's port); round 2: those 95 and host 5's. */
    assert_int_equal(phase_smps(&r).port_info_set, 95 + 96);
    assert_int_equal(cs_sma_model_port_state(r.m, model_port(&r, hp)), CS_SMP_PORT_STATE_INIT);
    assert_int_equal(cs_sma_model_port_state(r.m, model_port(&r, leaf_port)),
                     CS_SMP_PORT_STATE_ARMED);
    /* The SM's view follows the answers: what failed keeps its old state. */
    assert_int_equal(r.s.port_info[leaf_port].port_state, CS_SMP_PORT_STATE_ARMED);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* ---- Port paths ---- */

/* Where a NodeInfo Get sent along path lands: the node GUID and the port it arrived on. */
static void land(struct cs_sma_model *m, const struct cs_dr_path *path, uint64_t *guid,
                 unsigned *arrival)
{
    struct cs_smp reply;
    assert_int_equal(raw_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, path, NULL, &reply), 1);
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(reply.data, &ni);
    *guid = ni.node_guid;
    *arrival = ni.local_port_num;
}

/* Every port of a PGFT: a switch port's path is its switch's, a CA port's path arrives on that
 * very port (checked by where a NodeInfo Get lands in the model), the SM's own is empty. */
static void test_port_path_fat_tree(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 4, 1, 1);
    discover(&r);
    const struct cs_fabric *f = &r.s.fabric;
    unsigned ca_ports = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        const struct cs_node *node = &f->nodes[port->node];
        struct cs_dr_path path;
        memset(&path, 0xee, sizeof path);
        bool ok = cs_sm_port_path(&r.s, p, &path);
        if (cs_node_is_switch(node)) {
            assert_true(ok);
            assert_int_equal(path.hops, r.s.path[port->node].hops);
            assert_memory_equal(path.port + 1, r.s.path[port->node].port + 1, path.hops);
            continue;
        }
        if (port->num == 0)
            continue;
        assert_true(ok);
        if (p == r.s.sm_port) {
            assert_int_equal(path.hops, 0);
        } else {
            /* through the leaf it is cabled to, out of the leaf's port towards it */
            const struct cs_port *peer = &f->ports[port->peer];
            assert_int_equal(path.hops, r.s.path[peer->node].hops + 1);
            assert_int_equal(path.port[path.hops], peer->num);
        }
        uint64_t guid;
        unsigned arrival;
        land(r.m, &path, &guid, &arrival);
        assert_int_equal(guid, node->guid);
        assert_int_equal(arrival, port->num);
        ca_ports++;
    }
    assert_int_equal(ca_ports, 12);

    /* A route of 63 hops to the leaf leaves no room for one more to a host under it. */
    uint32_t host = CS_NONE;
    for (uint32_t n = 0; n < f->num_nodes && host == CS_NONE; n++)
        if (n != r.s.sm_node && !cs_node_is_switch(&f->nodes[n]))
            host = n;
    assert_int_not_equal(host, CS_NONE);
    uint32_t hp = cs_fabric_port(f, host, 1), leaf = f->ports[f->ports[hp].peer].node;
    struct cs_dr_path path;
    r.s.path[leaf].hops = CS_SMP_MAX_HOPS;
    assert_false(cs_sm_port_path(&r.s, hp, &path));
    r.s.path[leaf].hops = CS_SMP_MAX_HOPS - 1;
    assert_true(cs_sm_port_path(&r.s, hp, &path));
    assert_int_equal(path.hops, CS_SMP_MAX_HOPS);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* Odd cabling. First fabric: the SM's CA has a second port cabled to the switch, another CA has
 * an unlinked second port:
 *   sm (CA, 2 ports): p1 - sw p1, p2 - sw p2;  h (CA, 2 ports): p1 - sw p3, p2 unlinked.
 * Second fabric: two CAs back to back, the SM on one of them. */
static void test_port_path_odd_cabling(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    struct cs_error err;
    uint32_t sw = cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x50, 4, "sw", &err);
    uint32_t sm = cs_fabric_add_node(&f, CS_NODE_CA, 0x100, 2, "sm", &err);
    uint32_t h = cs_fabric_add_node(&f, CS_NODE_CA, 0x200, 2, "h", &err);
    assert_int_equal(
        cs_fabric_connect(&f, cs_fabric_port(&f, sm, 1), cs_fabric_port(&f, sw, 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(&f, cs_fabric_port(&f, sm, 2), cs_fabric_port(&f, sw, 2), &err), 0);
    assert_int_equal(
        cs_fabric_connect(&f, cs_fabric_port(&f, h, 1), cs_fabric_port(&f, sw, 3), &err), 0);
    struct rig r;
    rig_open(&r, &f, sm, 1, 1);
    discover(&r);
    const struct cs_fabric *sf = &r.s.fabric;
    uint32_t ssm = r.s.sm_node;
    assert_int_equal(sf->nodes[ssm].guid, 0x100);
    uint32_t sh = sf->nodes[2].guid == 0x200 ? 2 : 1;
    assert_int_equal(sf->nodes[sh].guid, 0x200);
    struct cs_dr_path path;
    /* The SM node's second port: out of the SM port, into the switch, back out of its port 2. */
    uint32_t sm2 = cs_fabric_port(sf, ssm, 2);
    assert_true(cs_sm_port_path(&r.s, sm2, &path));
    assert_int_equal(path.hops, 2);
    assert_int_equal(path.port[1], 1);
    assert_int_equal(path.port[2], 2);
    uint64_t guid;
    unsigned arrival;
    land(r.m, &path, &guid, &arrival);
    assert_int_equal(guid, 0x100);
    assert_int_equal(arrival, 2);
    /* h's unlinked port 2 has no route; its port 1 has. */
    assert_false(cs_sm_port_path(&r.s, cs_fabric_port(sf, sh, 2), &path));
    assert_true(cs_sm_port_path(&r.s, cs_fabric_port(sf, sh, 1), &path));
    assert_int_equal(path.port[path.hops], 3);
    /* A bring-up there: LIDs on sm p1, sm p2, h p1 and the switch; 3 links = 6 ends ACTIVE,
     * the SM's second port included (reached from outside, through the switch). */
    rig_restart(&r, 1);
    struct bring_up up;
    bring_up(&r, NULL, &up);
    assert_int_equal(up.changed, 4);
    assert_int_equal(up.lids.port_info_set, 4);
    assert_int_equal(up.lft.blocks_sent, 1);
    assert_int_equal(up.activated, 6);
    assert_int_equal(up.activate.port_info_set, 12);
    assert_int_equal(up.lid_failures + up.activate_failures + (int)up.lft.failures, 0);
    assert_ports(&r);
    assert_lfts(&r);
    assert_lid_routed_reachable(&r);
    rig_close(&r);
    cs_fabric_free(&f);

    /* Two CAs back to back: the far CA's port is reached by the path the sweep took to it. */
    cs_fabric_init(&f);
    uint32_t a = cs_fabric_add_node(&f, CS_NODE_CA, 0x300, 1, "a", &err);
    uint32_t b = cs_fabric_add_node(&f, CS_NODE_CA, 0x400, 1, "b", &err);
    assert_int_equal(
        cs_fabric_connect(&f, cs_fabric_port(&f, a, 1), cs_fabric_port(&f, b, 1), &err), 0);
    rig_open(&r, &f, a, 1, 1);
    discover(&r);
    assert_int_equal(r.s.fabric.num_nodes, 2);
    uint32_t bp = cs_fabric_port(&r.s.fabric, 1, 1);
    assert_true(cs_sm_port_path(&r.s, bp, &path));
    assert_int_equal(path.hops, 1);
    assert_int_equal(path.port[1], 1);
    land(r.m, &path, &guid, &arrival);
    assert_int_equal(guid, 0x400);
    assert_int_equal(arrival, 1);
    /* And a bring-up works there: two LIDs, one link ACTIVE at both ends. */
    assert_int_equal(cs_sm_assign_lids(&r.s, NULL, false, &r.log, &err), 2);
    struct cs_sm_port_settings settings = settings_of(&r);
    assert_int_equal(cs_sm_set_lids(r.pipe, &r.s, &settings, &r.log, &err), 0);
    unsigned activated = 0;
    assert_int_equal(cs_sm_activate(r.pipe, &r.s, &r.log, &activated, &err), 0);
    assert_int_equal(activated, 2);
    assert_int_equal(cs_sma_model_port_lid(r.m, model_port(&r, bp)), r.s.fabric.ports[bp].lid);
    assert_int_equal(cs_sma_model_port_state(r.m, model_port(&r, bp)), CS_SMP_PORT_STATE_ACTIVE);
    rig_close(&r);
    cs_fabric_free(&f);
}

/* ---- Master SM ---- */

static void set_sm(struct cs_sma_model *m, uint32_t port, uint64_t guid, uint8_t sm_state)
{
    struct cs_smp_sm_info info = {.guid = guid, .sm_key = 0, .priority = 5, .sm_state = sm_state};
    struct cs_error err;
    assert_int_equal(cs_sma_model_set_sm(m, port, &info, &err), 0);
}

/* The model's SMInfo: only where an SM was put, Get only. */
static void test_model_sm_info(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 0, 1, 0);
    set_sm(r.m, cs_fabric_port(&src, 26, 0), 0x2626, CS_SMP_SM_STATE_STANDBY);
    discover(&r);
    uint32_t root = CS_NONE;
    for (uint32_t n = 0; n < r.s.fabric.num_nodes; n++)
        if (r.s.fabric.nodes[n].guid == src.nodes[26].guid)
            root = n;
    assert_int_not_equal(root, CS_NONE);
    assert_true(r.s.port_info[r.s.fabric.nodes[root].first_port].capability_mask &
                CS_SMP_PORT_CAP_IS_SM);
    struct cs_smp reply;
    assert_int_equal(
        raw_dr(r.m, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, &r.s.path[root], NULL, &reply), 1);
    assert_int_equal(reply.status, CS_SMP_STATUS_DIRECTION);
    struct cs_smp_sm_info info;
    cs_smp_sm_info_decode(reply.data, &info);
    assert_int_equal(info.guid, 0x2626);
    assert_int_equal(info.sm_state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(info.priority, 5);
    /* A Set is a control (AttributeModifier): 0 names none, nothing changes; the answer is the
     * SM's SMInfo as it was. */
    assert_int_equal(
        raw_dr(r.m, CS_SMP_METHOD_SET, CS_SMP_ATTR_SM_INFO, 0, &r.s.path[root], NULL, &reply), 1);
    assert_int_equal(reply.status & CS_SMP_STATUS_CODE_MASK, 0);
    cs_smp_sm_info_decode(reply.data, &info);
    assert_int_equal(info.sm_state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(
        raw_dr(r.m, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, &r.s.path[root], NULL, &reply), 1);
    cs_smp_sm_info_decode(reply.data, &info);
    assert_int_equal(info.sm_state, CS_SMP_SM_STATE_STANDBY);
    /* Another root, no SM: unsupported, as before. */
    uint32_t other = r.s.fabric.nodes[root - 1].type == CS_NODE_SWITCH ? root - 1 : root + 1;
    assert_int_equal(
        raw_dr(r.m, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, &r.s.path[other], NULL, &reply), 1);
    assert_int_equal(reply.status & CS_SMP_STATUS_CODE_MASK, CS_SMP_STATUS_ATTR_UNSUPPORTED);
    rig_close(&r);
    cs_fabric_free(&src);
}

static int ignore_reply(void *arg, enum cs_smp_result result, const struct cs_smp *request,
                        const struct cs_smp *reply, struct cs_error *err)
{
    (void)arg, (void)request, (void)reply, (void)err;
    assert_int_equal(result, CS_SMP_OK);
    return 0;
}

/* Our answer to another SM's SubnGet(SMInfo): the request turned around. */
static void test_answer_sminfo(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct rig r;
    rig_open(&r, &src, 0, 1, 2);
    /* A sweep with a dead leaf, so that ActCount has something to count and the SMPs sent
     * (retries included, what ActCount counts) differ from the requests. */
    cs_sma_model_set_unresponsive(r.m, 15, true);
    struct cs_error err;
    assert_int_equal(cs_sm_discover(r.pipe, &r.log, &r.s, &err), 0);
    struct cs_smp_pipe_stats ps = cs_smp_pipe_stats(r.pipe);
    uint64_t sent = ps.sent;
    assert_true(sent > 100);
    assert_int_equal(sent, ps.gets + ps.retries);
    assert_true(ps.retries > 0);
    struct cs_sm_identity me = {
        .guid = 0x0002c90300001234,
        .sm_key = 0x5ec2e7,
        .m_key = 0,
        .priority = 9,
        .state = CS_SMP_SM_STATE_MASTER,
        .pipe = r.pipe,
    };
    const uint8_t path[] = {0, 3, 7, 1};
    struct cs_smp req, ans;
    assert_int_equal(cs_smp_init_directed(&req, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, path, 3,
                                          0x0000abcd12345678, &err),
                     0);
    req.hop_pointer = 4;
    req.return_path[1] = 5;
    req.return_path[2] = 6;
    req.return_path[3] = 2;
    memset(&ans, 0xaa, sizeof ans);
    assert_int_equal(cs_sm_answer_sminfo(&me, &req, &ans), 1);
    assert_int_equal(ans.method, CS_SMP_METHOD_GET_RESP);
    assert_int_equal(ans.status, CS_SMP_STATUS_DIRECTION);
    assert_int_equal(ans.mgmt_class, CS_SMP_CLASS_DIRECTED_ROUTE);
    assert_int_equal(ans.transaction_id, 0x0000abcd12345678);
    assert_int_equal(ans.attr_id, CS_SMP_ATTR_SM_INFO);
    assert_int_equal(ans.hop_count, 3);
    assert_int_equal(ans.hop_pointer, 4);
    assert_int_equal(ans.dr_slid, CS_SMP_PERMISSIVE_LID);
    assert_int_equal(ans.dr_dlid, CS_SMP_PERMISSIVE_LID);
    assert_memory_equal(ans.initial_path, req.initial_path, CS_SMP_PATH_SIZE);
    assert_memory_equal(ans.return_path, req.return_path, CS_SMP_PATH_SIZE);
    struct cs_smp_sm_info info;
    cs_smp_sm_info_decode(ans.data, &info);
    assert_int_equal(info.guid, me.guid);
    assert_int_equal(info.sm_key, me.sm_key);
    assert_int_equal(info.priority, 9);
    assert_int_equal(info.sm_state, CS_SMP_SM_STATE_MASTER);
    assert_int_equal(info.act_count, sent);
    /* It survives the wire. */
    uint8_t wire[CS_SMP_SIZE];
    struct cs_smp back;
    cs_smp_encode(&ans, wire);
    cs_smp_decode(wire, &back);
    assert_memory_equal(&back, &ans, sizeof back);

    /* LID-routed: no direction bit. ActCount follows the pipe. */
    struct cs_smp lreq;
    cs_smp_init_lid_routed(&lreq, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, 0x42);
    uint64_t sent2 = sent;
    {
        struct cs_smp ni;
        assert_int_equal(cs_smp_init_directed(&ni, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0,
                                              path, 0, 0, &err),
                         0);
        assert_int_equal(
            cs_smp_pipe_submit(r.pipe, &ni, CS_SMP_PERMISSIVE_LID, ignore_reply, NULL, &err), 0);
        assert_int_equal(cs_smp_pipe_run(r.pipe, &err), 0);
        sent2 = cs_smp_pipe_stats(r.pipe).sent;
        assert_int_equal(sent2, sent + 1);
    }
    assert_int_equal(cs_sm_answer_sminfo(&me, &lreq, &ans), 1);
    assert_int_equal(ans.status, 0);
    assert_int_equal(ans.mgmt_class, CS_SMP_CLASS_LID_ROUTED);
    assert_int_equal(ans.transaction_id, 0x42);
    cs_smp_sm_info_decode(ans.data, &info);
    assert_int_equal(info.act_count, sent2);

    /* SM_Key only for an asker that presents our M_Key. */
    me.m_key = 0x1111;
    req.m_key = 0x2222;
    assert_int_equal(cs_sm_answer_sminfo(&me, &req, &ans), 1);
    cs_smp_sm_info_decode(ans.data, &info);
    assert_int_equal(info.sm_key, 0);
    assert_int_equal(info.guid, me.guid);
    req.m_key = 0x1111;
    assert_int_equal(cs_sm_answer_sminfo(&me, &req, &ans), 1);
    cs_smp_sm_info_decode(ans.data, &info);
    assert_int_equal(info.sm_key, me.sm_key);
    assert_int_equal(ans.m_key, 0x1111);

    /* No pipe: ActCount 0. Not SMInfo, or neither Get nor Set: not ours to answer. */
    me.pipe = NULL;
    assert_int_equal(cs_sm_answer_sminfo(&me, &req, &ans), 1);
    cs_smp_sm_info_decode(ans.data, &info);
    assert_int_equal(info.act_count, 0);
    struct cs_smp other = req;
    other.attr_id = CS_SMP_ATTR_NODE_INFO;
    assert_int_equal(cs_sm_answer_sminfo(&me, &other, &ans), 0);
    other = req;
    other.method = CS_SMP_METHOD_TRAP;
    assert_int_equal(cs_sm_answer_sminfo(&me, &other, &ans), 0);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* ---- LIDs of ports that are away, and switches with a small LinearFDBCap ---- */

/* A sweep by a freshly started SM (the ports hold no LIDs: ibsim's Clear) of src with the hosts
 * in `away` unplugged, given the stored guid2lid `in`; the guid2lid to keep goes to out. */
static void sweep_with_map(const struct cs_fabric *src, const uint32_t *away, unsigned num_away,
                           const struct cs_guid2lid *in, struct cs_guid2lid *out, struct rig *r)
{
    struct cs_error err;
    rig_open(r, src, 0, 1, 0);
    for (unsigned i = 0; i < num_away; i++)
        assert_int_equal(cs_sma_model_unlink(r->m, cs_fabric_port(src, away[i], 1), &err), 0);
    discover(r);
    assert_true(cs_sm_assign_lids(&r->s, in, false, &r->log, &err) >= 0);
    assert_int_equal(cs_sm_guid2lid_update(&r->s, in, out, &err), 0);
}

static uint16_t lid_of(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (f->ports[p].guid == guid && cs_port_needs_lid(f, p))
            return f->ports[p].lid;
    return 0;
}

static uint16_t stored_lid(const struct cs_guid2lid *g, uint64_t guid)
{
    for (uint32_t i = 0; i < g->count; i++)
        if (g->entries[i].guid == guid)
            return g->entries[i].min_lid;
    return 0;
}

/* Hosts 5 and 7 go away holding LIDs 1 and 2: no other port takes those (free LIDs remain), the
 * guid2lid kept still holds them, and when the hosts come back one at a time, in the other
 * order, each gets its own LID again. */
static void test_assign_lids_absent_ports(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    uint64_t guid5 = src.ports[cs_fabric_port(&src, 5, 1)].guid;
    uint64_t guid7 = src.ports[cs_fabric_port(&src, 7, 1)].guid;
    struct cs_guid2lid_entry entries[] = {{guid5, 1, 1}, {guid7, 2, 2}};
    struct cs_guid2lid stored = {entries, 2, 2}, kept_both, kept_one, kept_none;
    struct rig r;

    uint32_t both[] = {5, 7};
    sweep_with_map(&src, both, 2, &stored, &kept_both, &r);
    const struct cs_fabric *f = &r.s.fabric;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (cs_port_needs_lid(f, p)) {
            assert_int_not_equal(f->ports[p].lid, 1);
            assert_int_not_equal(f->ports[p].lid, 2);
        }
    assert_int_equal(cs_fabric_max_lid(f), 28); /* 26 ports on 3..28 */
    assert_int_equal(kept_both.count, 26 + 2);
    assert_int_equal(stored_lid(&kept_both, guid5), 1);
    assert_int_equal(stored_lid(&kept_both, guid7), 2);
    rig_close(&r);

    /* Host 7 comes back first: LID 2; 5's LID stays held. */
    uint32_t only5[] = {5};
    sweep_with_map(&src, only5, 1, &kept_both, &kept_one, &r);
    assert_int_equal(lid_of(&r.s.fabric, guid7), 2);
    assert_int_equal(kept_one.count, 27 + 1);
    assert_int_equal(stored_lid(&kept_one, guid5), 1);
    rig_close(&r);

    /* Then host 5: LID 1; nobody else moved. */
    sweep_with_map(&src, NULL, 0, &kept_one, &kept_none, &r);
    assert_int_equal(lid_of(&r.s.fabric, guid5), 1);
    assert_int_equal(lid_of(&r.s.fabric, guid7), 2);
    assert_int_equal(kept_none.count, 28);
    for (uint32_t i = 0; i < kept_one.count; i++)
        assert_int_equal(lid_of(&r.s.fabric, kept_one.entries[i].guid),
                         kept_one.entries[i].min_lid);
    assert_int_equal(r.lc.warnings, 0);

    /* reassign without the stored map: what ports hold is ignored, numbering starts afresh. */
    struct cs_error err;
    assert_int_equal(cs_sm_assign_lids(&r.s, NULL, true, &r.log, &err), 28);
    assert_int_equal(cs_fabric_max_lid(&r.s.fabric), 28);
    assert_int_not_equal(lid_of(&r.s.fabric, guid5), 1); /* host 5 is not the first port */
    rig_close(&r);
    cs_guid2lid_free(&kept_both);
    cs_guid2lid_free(&kept_one);
    cs_guid2lid_free(&kept_none);
    cs_fabric_free(&src);
}

/* The aging rule: held LIDs go to new ports only when the LIDs within reach run out, lowest
 * first, each with a WARN. Every switch can forward LIDs up to 29 (LinearFDBCap 30); 26 ports
 * and two held LIDs fit, 28 ports do not: the lower held LID goes. */
static void test_assign_lids_held_until_full(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct cs_error err;
    uint64_t away1 = UINT64_C(0x0badc0ffee000001), away2 = UINT64_C(0x0badc0ffee000002);
    struct cs_guid2lid_entry entries[] = {{away2, 17, 17}, {away1, 9, 9}};
    struct cs_guid2lid stored = {entries, 2, 2}, kept;
    struct rig r;
    rig_open(&r, &src, 0, 1, 0);
    for (uint32_t n = 12; n < src.num_nodes; n++)
        assert_int_equal(cs_sma_model_set_linear_fdb_cap(r.m, n, 30, &err), 0);
    discover(&r);
    assert_int_equal(cs_sm_lid_limit(&r.s, NULL), 29);
    assert_int_equal(cs_sm_assign_lids(&r.s, &stored, false, &r.log, &err), 28);
    assert_int_equal(cs_fabric_max_lid(&r.s.fabric), 29);
    assert_int_equal(log_count(&r.lc, "LID 0x0009 of absent port 0x0badc0ffee000001 goes to"), 1);
    assert_int_equal(r.lc.warnings, 1);
    assert_int_equal(cs_sm_guid2lid_update(&r.s, &stored, &kept, &err), 0);
    assert_int_equal(kept.count, 29);
    assert_int_equal(stored_lid(&kept, away2), 17);
    assert_int_equal(stored_lid(&kept, away1), 0);
    for (uint32_t p = 0; p < r.s.fabric.num_port_slots; p++)
        assert_int_not_equal(r.s.fabric.ports[p].lid, 17);
    cs_guid2lid_free(&kept);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* issue 12's ibsim case on the model: guid2lid holds LIDs 0xbfb4.. and the switches forward
 * fewer LIDs (one of them only 0..1023). Every LID is re-assigned below the smallest cap with a
 * WARN naming the port, LinearFDBTop stays below every cap, and the tables work (every LID
 * answers LID-routed). */
static void test_lids_within_linear_fdb_cap(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct cs_error err;
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    for (uint32_t n = 12; n < src.num_nodes; n++)
        assert_int_equal(cs_sma_model_set_linear_fdb_cap(r.m, n, n == 20 ? 1024 : 30720, &err), 0);
    struct cs_guid2lid_entry entries[28];
    uint32_t count = 0;
    for (uint32_t p = 0; p < src.num_port_slots; p++)
        if (cs_port_needs_lid(&src, p)) {
            uint16_t lid = (uint16_t)(0xbfb4 + count);
            entries[count++] = (struct cs_guid2lid_entry){src.ports[p].guid, lid, lid};
        }
    assert_int_equal(count, 28);
    struct cs_guid2lid stored = {entries, count, count};
    struct bring_up b;
    bring_up(&r, &stored, &b);
    assert_int_equal(cs_sm_lid_limit(&r.s, NULL), 1023);
    assert_int_equal(cs_fabric_max_lid(&r.s.fabric), 28);
    assert_int_equal(log_count(&r.lc, "re-assigned LID"), 28);
    assert_int_equal(log_count(&r.lc, "LinearFDBCap 1024 of switch 0x"), 28);
    char first[64];
    snprintf(first, sizeof(first), "port GUID 0x%016llx: stored LIDs 0xbfb4-0xbfb4",
             (unsigned long long)entries[0].guid);
    assert_int_equal(log_count(&r.lc, first), 1);
    assert_int_equal(b.lid_failures, 0);
    assert_int_equal(b.lft.failures, 0);
    assert_int_equal(b.activate_failures, 0);
    assert_lfts(&r);
    assert_lid_routed_reachable(&r);
    struct cs_guid2lid kept;
    assert_int_equal(cs_sm_guid2lid_update(&r.s, &stored, &kept, &err), 0);
    assert_int_equal(kept.count, 28);
    for (uint32_t i = 0; i < kept.count; i++)
        assert_true(kept.entries[i].max_lid <= 28);
    cs_guid2lid_free(&kept);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* A switch that refuses its tables is a failure, logged with the switch: here one whose
 * LinearFDBCap shrank after the sweep read it (the SwitchInfo Set of LinearFDBTop 28 and the
 * blocks beyond 15 are refused). */
static void test_refused_lft_is_a_failure(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct cs_error err;
    struct rig r;
    rig_open(&r, &src, 0, 1, 0);
    discover(&r);
    assert_true(cs_sm_assign_lids(&r.s, NULL, false, &r.log, &err) >= 0);
    struct cs_sm_port_settings settings = settings_of(&r);
    assert_int_equal(cs_sm_set_lids(r.pipe, &r.s, &settings, &r.log, &err), 0);
    route(&r);
    assert_int_equal(cs_sma_model_set_linear_fdb_cap(r.m, 20, 16, &err), 0);
    struct cs_sm_lft_counts lc;
    assert_int_equal(cs_sm_program_lfts(r.pipe, &r.s, &r.lfts, NULL, &r.log, &lc, &err), 0);
    assert_int_equal(lc.failures, 1);
    char sw[32];
    snprintf(sw, sizeof(sw), "0x%016llx", (unsigned long long)src.nodes[20].guid);
    assert_int_equal(log_count(&r.lc, "Set SwitchInfo"), 1);
    assert_true(strstr(strstr(r.lc.text, "Set SwitchInfo"), sw) != NULL);
    assert_int_equal(cs_sma_model_lft_top(r.m, 20), 0);
    rig_close(&r);
    cs_fabric_free(&src);
}

/* ClientReregister (a new master's first sweep): every port that supports it gets a PortInfo Set
 * with the bit, even when its LID and SM LID are right; ports without the capability (ibsim's)
 * are left alone; without the flag nothing is sent to a programmed port. */
static void test_client_reregister(void **state)
{
    (void)state;
    struct cs_fabric src;
    struct cs_error err;
    gen_kary(&src, 2, 2); /* hosts are nodes 0..3 */
    struct rig r;
    rig_open(&r, &src, 0, 1, 1);
    const struct cs_fabric *mf = cs_sma_model_fabric(r.m);
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t port = mf->nodes[h].first_port + 1;
        struct cs_smp_port_info pi;
        cs_sma_model_port_info(r.m, port, &pi);
        assert_int_equal(cs_sma_model_set_capability_mask(
                             r.m, port, pi.capability_mask | CS_SMP_PORT_CAP_CLIENT_REREG, &err),
                         0);
    }
    struct bring_up b;
    bring_up(&r, NULL, &b);
    struct cs_sm_port_settings settings = settings_of(&r);
    phase_smps(&r);
    assert_int_equal(cs_sm_set_lids(r.pipe, &r.s, &settings, &r.log, &err), 0);
    assert_int_equal(phase_smps(&r).port_info_set, 0); /* programmed: nothing to send */
    settings.client_reregister = true;
    assert_int_equal(cs_sm_set_lids(r.pipe, &r.s, &settings, &r.log, &err), 0);
    assert_int_equal(phase_smps(&r).port_info_set, 2);
    for (uint32_t n = 0; n < mf->num_nodes; n++)
        for (unsigned num = 0; num <= mf->nodes[n].num_ports; num++)
            assert_int_equal(cs_sma_model_client_reregisters(r.m, mf->nodes[n].first_port + num),
                             n < 2 && num == 1 ? 1 : 0);
    assert_ports(&r); /* and nothing else moved */
    rig_close(&r);
    cs_fabric_free(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bring_up_pgft),
        cmocka_unit_test(test_bring_up_sm_on_switch),
        cmocka_unit_test(test_bring_up_kary_and_restart),
        cmocka_unit_test(test_client_reregister),
        cmocka_unit_test(test_restart_reads_only_at_or_below_top),
        cmocka_unit_test(test_tracked_lfts),
        cmocka_unit_test(test_light_sweep),
        cmocka_unit_test(test_carry_held),
        cmocka_unit_test(test_assign_lids_rules),
        cmocka_unit_test(test_assign_lids_guid2lid_range),
        cmocka_unit_test(test_assign_lids_absent_ports),
        cmocka_unit_test(test_assign_lids_held_until_full),
        cmocka_unit_test(test_lids_within_linear_fdb_cap),
        cmocka_unit_test(test_refused_lft_is_a_failure),
        cmocka_unit_test(test_unresponsive_switch),
        cmocka_unit_test(test_refused_state_set),
        cmocka_unit_test(test_port_path_fat_tree),
        cmocka_unit_test(test_port_path_odd_cabling),
        cmocka_unit_test(test_model_sm_info),
        cmocka_unit_test(test_answer_sminfo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
