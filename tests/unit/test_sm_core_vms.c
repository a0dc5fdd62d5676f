/* Live VM operations of the SM core (src/sm/core_vms.c, docs/sm/vms.md) on the in-process SMA
 * model: a 2-ary-3-tree of 7 vSwitch hypervisors with 2 VFs each and a plain host the SM runs
 * on, brought up by cs_sm_core_sweep as cloudsmd does. Every assertion reads the model back:
 * the SMPs that arrived (by attribute), the LIDs the VF ports answer, the GUIDInfo entries and
 * the routes the switches hold, followed hop by hop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloudsm/sm_core.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_gen.h"
#include "sm_fixtures.h"

#define HYPERVISORS 7
#define VFS 2
#define HYP(i) (CS_GUID_HOST_BASE + ((uint64_t)(i) << 8))
#define VF_NODE(i, k) (CS_GUID_VF_BASE + ((uint64_t)(i) << 16) + ((uint64_t)(k) << 8))
#define VGUID(n) (UINT64_C(0x0200000000000000) + (n))

struct rig {
    struct cs_fabric f;
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_core core;
    bool core_up;
    struct cs_sm_config cfg;
    char dir[64];
    struct log_capture lc;
    struct cs_log log;
};

static uint32_t vf_port(const struct rig *r, unsigned hyp, unsigned vf)
{
    return fx_port(r->m, VF_NODE(hyp, vf), 1);
}

/* A core on the model with the state directory's files, brought up (a first heavy sweep). */
static void core_up(struct rig *r)
{
    struct cs_error err = {""};
    struct cs_sm_files files;
    assert_int_equal(cs_sm_core_load_files(&r->cfg, &files, &r->log, &err), 0);
    uint64_t sm_port = r->f.ports[fx_port(r->m, HYP(HYPERVISORS), 1)].guid;
    cs_sm_core_init(&r->core, &r->cfg, &files, r->pipe, sm_port, &r->log);
    r->core_up = true;
    if (cs_sm_core_sweep(&r->core, true, &err) != 0)
        fail_msg("bring-up: %s\n%s", err.msg, r->lc.text ? r->lc.text : "");
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_MASTER);
}

static void rig_up(struct rig *r, const char *policy)
{
    memset(r, 0, sizeof *r);
    struct cs_error err = {""};
    struct cs_pgft_spec spec;
    assert_int_equal(cs_pgft_kary(&spec, 2, 3, &err), 0);
    spec.vfs_per_hypervisor = VFS;
    spec.plain_hosts = 1;
    cs_fabric_init(&r->f);
    assert_int_equal(cs_pgft_generate(&r->f, &spec, &err), 0);
    uint32_t sm_node = CS_NONE;
    for (uint32_t n = 0; n < r->f.num_nodes; n++)
        if (r->f.nodes[n].guid == HYP(HYPERVISORS))
            sm_node = n;
    r->m = cs_sma_model_create(&r->f, sm_node, 1, &err);
    assert_non_null(r->m);
    for (unsigned i = 0; i < HYPERVISORS; i++) /* room for a vGUID beside the port GUID */
        for (unsigned k = 1; k <= VFS; k++)
            assert_int_equal(cs_sma_model_set_guid_cap(r->m, vf_port(r, i, k), 8, &err), 0);
    struct cs_smp_transport t = cs_sma_model_transport(r->m);
    struct cs_smp_pipe_options po = {.window = 16, .timeout_ms = 2, .retries = 1};
    r->pipe = cs_smp_pipe_create(&t, &po, &err);
    assert_non_null(r->pipe);
    r->log = (struct cs_log){.fn = capture_log, .arg = &r->lc};
    snprintf(r->dir, sizeof r->dir, "/tmp/cloudsm-test-vms.XXXXXX");
    assert_non_null(mkdtemp(r->dir));
    cs_sm_config_defaults(&r->cfg);
    assert_int_equal(cs_sm_config_set(&r->cfg, "routing_engine", "vftree", NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "state_dir", r->dir, NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "sweep_interval", "0", NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "vm_lid_policy", policy, NULL, &err), 0);
    core_up(r);
}

static void rig_down(struct rig *r)
{
    if (r->core_up)
        cs_sm_core_free(&r->core);
    cs_smp_pipe_destroy(r->pipe);
    cs_sma_model_destroy(r->m);
    cs_fabric_free(&r->f);
    const char *names[] = {"guid2lid", "vms", "lfts.digest"};
    char path[128];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", r->dir, names[i]);
        unlink(path);
    }
    assert_int_equal(rmdir(r->dir), 0); /* nothing else was left there */
    free(r->lc.text);
}

static struct cs_sm_vm_job job(uint8_t op, const char *name, unsigned hyp, uint64_t vguid,
                               uint8_t method)
{
    struct cs_sm_vm_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.name, sizeof j.name, "%s", name);
    j.req = (struct cs_vm_request){.op = op, .name = j.name, .vguid = vguid};
    j.req.hypervisor = op == CS_VM_DESTROY ? 0 : HYP(hyp);
    j.opt.method = method;
    return j;
}

/* Run jobs as one batch; the call itself must not fail. */
static void run(struct rig *r, struct cs_sm_vm_job *jobs, uint32_t count)
{
    struct cs_error err = {""};
    for (uint32_t i = 0; i < count; i++)
        jobs[i].req.name = jobs[i].name;
    if (cs_sm_core_vm_run(&r->core, jobs, count, &err) < 0)
        fail_msg("vm_run: %s", err.msg);
}

static uint64_t model_sets(const struct rig *r, uint16_t attr)
{
    return cs_sma_model_count(r->m, attr, CS_SMP_METHOD_SET);
}

/* The CA port a packet to lid reaches from switch node, following the model's tables (CS_NONE:
 * dropped or looping). */
static uint32_t reach(const struct rig *r, uint32_t node, uint16_t lid)
{
    const struct cs_fabric *f = cs_sma_model_fabric(r->m);
    for (unsigned hops = 0; hops < 16; hops++) {
        uint8_t out = cs_sma_model_lft_entry(r->m, node, lid);
        if (out == 255 || out == 0 || out >= f->nodes[node].num_ports + 1u)
            return CS_NONE;
        uint32_t peer = f->ports[cs_fabric_port(f, node, out)].peer;
        if (peer == CS_NONE)
            return CS_NONE;
        node = f->ports[peer].node;
        if (f->nodes[node].type != CS_NODE_SWITCH)
            return peer;
    }
    return CS_NONE;
}

/* From every switch, vSwitches included, lid leads to port `to`. */
static void assert_routed_to(const struct rig *r, uint16_t lid, uint32_t to)
{
    const struct cs_fabric *f = cs_sma_model_fabric(r->m);
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].type == CS_NODE_SWITCH && reach(r, n, lid) != to)
            fail_msg("LID %u from switch 0x%016llx does not reach the VM's VF", lid,
                     (unsigned long long)f->nodes[n].guid);
}

/* What the core believes the switches hold is what they hold, for every LID it routes. */
static void assert_tables_held(const struct rig *r)
{
    const struct cs_lfts *t = &r->core.lfts;
    for (uint32_t sw = 0; sw < t->num_switches; sw++) {
        uint32_t node = fx_node(r->m, t->switches[sw].guid);
        for (uint32_t lid = 1; lid <= t->max_lid; lid++)
            if (cs_lfts_get(t, sw, lid) != cs_sma_model_lft_entry(r->m, node, lid))
                fail_msg("switch 0x%016llx LID %u: the core says port %u, the switch holds %u",
                         (unsigned long long)t->switches[sw].guid, lid, cs_lfts_get(t, sw, lid),
                         cs_sma_model_lft_entry(r->m, node, lid));
    }
}

/* Prepopulated LIDs: a create takes the VF's LID and sends no LFT block; a migration swaps the
 * LIDs of the two VFs (PortInfo), their vSwitches' blocks and the physical switches' entries,
 * and from then on the VM's LID reaches it from every switch while the displaced LID reaches
 * the VF it went to. */
static void test_prepopulated_create_migrate(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r, "prepopulated");
    uint16_t lid_a = cs_sma_model_port_lid(r.m, vf_port(&r, 0, 1));
    uint16_t lid_b = cs_sma_model_port_lid(r.m, vf_port(&r, 4, 1));
    assert_true(lid_a && lid_b && lid_a != lid_b);

    cs_sma_model_reset_counts(r.m);
    struct cs_sm_vm_job create = job(CS_VM_CREATE, "web-1", 0, VGUID(1), CS_PLAN_FTREEMINRC);
    run(&r, &create, 1);
    assert_int_equal(create.status, 0);
    assert_int_equal(create.result.lid, lid_a);
    assert_int_equal(create.result.vf, 1);
    assert_int_equal(create.result.lft_smps, 0);
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_LINEAR_FT), 0);
    assert_int_equal(cs_sma_model_guid(r.m, vf_port(&r, 0, 1), 1), VGUID(1));
    assert_int_equal(create.result.guid_info_refused, 0);
    assert_int_equal(create.result.failures, 0);

    /* Across the roots, FTreeMinRC. */
    cs_sma_model_reset_counts(r.m);
    struct cs_sm_vm_job move = job(CS_VM_MIGRATE, "web-1", 4, 0, CS_PLAN_FTREEMINRC);
    run(&r, &move, 1);
    assert_int_equal(move.status, 0);
    const struct cs_sm_vm_result *res = &move.result;
    assert_int_equal(res->lid, lid_a);
    assert_int_equal(res->hypervisor, HYP(4));
    assert_int_equal(res->failures, 0);
    assert_int_equal(res->batch_size, 1);
    assert_true(res->lft_smps > 0);
    /* Every SMP the result counts arrived, and nothing else. */
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_LINEAR_FT),
                     res->lft_smps + res->vswitch_lft_smps + res->port255_smps);
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_PORT_INFO), res->port_info_smps);
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_GUID_INFO), res->guid_info_smps);
    assert_int_equal(res->total_smps, res->lft_smps + res->vswitch_lft_smps + res->port255_smps +
                                          res->port_info_smps + res->guid_info_smps);
    assert_int_equal(res->port_info_smps, 2); /* the two VFs swap LIDs */
    /* The LIDs moved with the swap, and so did the routes and the vGUID. */
    assert_int_equal(cs_sma_model_port_lid(r.m, vf_port(&r, 4, 1)), lid_a);
    assert_int_equal(cs_sma_model_port_lid(r.m, vf_port(&r, 0, 1)), lid_b);
    assert_routed_to(&r, lid_a, vf_port(&r, 4, 1));
    assert_routed_to(&r, lid_b, vf_port(&r, 0, 1));
    assert_int_equal(cs_sma_model_guid(r.m, vf_port(&r, 4, 1), 1), VGUID(1));
    assert_tables_held(&r);
    const struct cs_vm_state *vms = cs_sm_core_vms(&r.core);
    assert_int_equal(vms->count, 1);
    assert_int_equal(vms->vms[0].hypervisor, HYP(4));
    assert_true(cs_vm_state_route_is_live(vms, lid_a));

    /* Back within one leaf's reach with ItRC: more switches visited, same outcome. */
    cs_sma_model_reset_counts(r.m);
    struct cs_sm_vm_job back = job(CS_VM_MIGRATE, "web-1", 1, 0, CS_PLAN_ITRC);
    run(&r, &back, 1);
    assert_int_equal(back.status, 0);
    assert_true(back.result.switches_selected > res->switches_selected);
    assert_routed_to(&r, lid_a, vf_port(&r, 1, 1));
    assert_tables_held(&r);
    rig_down(&r);
}

/* Requests that arrive together: disjoint sub-trees run as one batch, one that meets an earlier
 * one's switches is deferred (status 1) with nothing sent for it, and runs in the next call; a
 * refused request changes nothing and sends nothing. */
static void test_batches_and_refusals(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r, "prepopulated");
    struct cs_sm_vm_job c[3] = {job(CS_VM_CREATE, "a", 0, VGUID(1), CS_PLAN_FTREEMINRC),
                                job(CS_VM_CREATE, "b", 4, VGUID(2), CS_PLAN_FTREEMINRC),
                                job(CS_VM_CREATE, "c", 2, VGUID(3), CS_PLAN_FTREEMINRC)};
    run(&r, c, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(c[i].status, 0);

    /* a: within leaf 0 (hypervisors 0 -> 1); b: within leaf 2 (4 -> 5); c: onto leaf 0. */
    struct cs_sm_vm_job m[3] = {job(CS_VM_MIGRATE, "a", 1, 0, CS_PLAN_FTREEMINRC),
                                job(CS_VM_MIGRATE, "b", 5, 0, CS_PLAN_FTREEMINRC),
                                job(CS_VM_MIGRATE, "c", 0, 0, CS_PLAN_FTREEMINRC)};
    cs_sma_model_reset_counts(r.m);
    run(&r, m, 3);
    assert_int_equal(m[0].status, 0);
    assert_int_equal(m[1].status, 0);
    assert_int_equal(m[2].status, 1);
    assert_int_equal(m[0].result.batch_size, 2);
    assert_int_equal(m[1].result.batch_size, 2);
    assert_int_equal(m[0].result.switches_selected, 1); /* the leaf alone */
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_PORT_INFO),
                     m[0].result.port_info_smps + m[1].result.port_info_smps);
    const struct cs_vm_state *vms = cs_sm_core_vms(&r.core);
    assert_int_equal(vms->vms[2].hypervisor, HYP(2)); /* c has not moved */

    run(&r, &m[2], 1);
    assert_int_equal(m[2].status, 0);
    assert_int_equal(m[2].result.batch_size, 1);
    assert_routed_to(&r, m[0].result.lid, vf_port(&r, 1, 1));
    assert_routed_to(&r, m[1].result.lid, vf_port(&r, 5, 1));
    assert_routed_to(&r, m[2].result.lid, vf_port(&r, 0, 1));

    /* Refusals: an unknown VM, a move to where it runs, a vGUID in use, a VF taken. */
    struct cs_sm_vm_job bad[4] = {job(CS_VM_MIGRATE, "nope", 3, 0, CS_PLAN_FTREEMINRC),
                                  job(CS_VM_MIGRATE, "a", 1, 0, CS_PLAN_FTREEMINRC),
                                  job(CS_VM_CREATE, "d", 3, VGUID(1), CS_PLAN_FTREEMINRC),
                                  job(CS_VM_CREATE, "e", 1, VGUID(5), CS_PLAN_FTREEMINRC)};
    bad[1].req.vf = 1;
    bad[3].req.vf = 1;
    cs_sma_model_reset_counts(r.m);
    struct cs_sma_model_stats before = cs_sma_model_stats(r.m);
    for (int i = 0; i < 4; i++) {
        run(&r, &bad[i], 1);
        assert_int_equal(bad[i].status, -1);
        assert_true(bad[i].error.msg[0] != '\0');
    }
    assert_non_null(strstr(bad[0].error.msg, "nope"));
    assert_int_equal(cs_sma_model_stats(r.m).requests, before.requests);
    assert_int_equal(cs_sm_core_vms(&r.core)->count, 3);
    rig_down(&r);
}

/* A clean stop and a start on the same fabric and state directory: the VMs are where the state
 * says, their LIDs pinned, and the routes the switches hold are kept, so no LFT block is sent; a
 * start after a crash (no digest) routes with the engine but keeps the moved VM's live route,
 * which the engine alone would route differently (a reroute shows it). */
static void test_restart_keeps_live_routes(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r, "prepopulated");
    struct cs_sm_vm_job create[4] = {job(CS_VM_CREATE, "web-1", 0, VGUID(1), CS_PLAN_FTREEMINRC),
                                     job(CS_VM_CREATE, "web-2", 0, VGUID(2), CS_PLAN_FTREEMINRC),
                                     job(CS_VM_CREATE, "web-3", 1, VGUID(3), CS_PLAN_FTREEMINRC),
                                     job(CS_VM_CREATE, "web-4", 2, VGUID(4), CS_PLAN_FTREEMINRC)};
    for (int i = 0; i < 4; i++) {
        run(&r, &create[i], 1);
        assert_int_equal(create[i].status, 0);
    }
    struct cs_sm_vm_job move = job(CS_VM_MIGRATE, "web-1", 5, 0, CS_PLAN_FTREEMINRC);
    run(&r, &move, 1);
    assert_int_equal(move.status, 0);
    uint16_t lid = move.result.lid;
    struct cs_error err = {""};
    assert_int_equal(cs_sm_core_vm_settle(&r.core, &err), 0);
    assert_int_equal(cs_sm_core_save_tables(&r.core, &err), 0);
    cs_sm_core_free(&r.core);
    r.core_up = false;

    cs_sma_model_reset_counts(r.m);
    core_up(&r);
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_LINEAR_FT), 0);
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_PORT_INFO), 0); /* LIDs and states as they were */
    const struct cs_vm_state *vms = cs_sm_core_vms(&r.core);
    assert_int_equal(vms->count, 4);
    assert_int_equal(vms->vms[0].hypervisor, HYP(5));
    assert_int_equal(vms->vms[0].lid, lid);
    assert_int_equal(cs_sma_model_port_lid(r.m, vf_port(&r, 5, 1)), lid);
    assert_routed_to(&r, lid, vf_port(&r, 5, 1));
    assert_tables_held(&r);

    /* A start without the digest (a crash) routes with the engine, and still keeps the live
     * route where it delivers: the VM is reached, and the tables are what the core says. */
    assert_int_equal(cs_sm_core_save_tables(&r.core, &err), 0);
    char digest[128];
    snprintf(digest, sizeof digest, "%s/lfts.digest", r.dir);
    assert_int_equal(unlink(digest), 0);
    cs_sm_core_free(&r.core);
    r.core_up = false;
    cs_sma_model_reset_counts(r.m);
    core_up(&r);
    assert_routed_to(&r, lid, vf_port(&r, 5, 1));
    assert_tables_held(&r);
    assert_true(cs_vm_state_route_is_live(cs_sm_core_vms(&r.core), lid));

    /* Routing again replaces the live routes with the engine's: the VM's route changes on some
     * switch (so the route kept above was not the engine's), and the VM is still reached. */
    const struct cs_fabric *mf = cs_sma_model_fabric(r.m);
    uint8_t *before = calloc(mf->num_nodes, 1);
    assert_non_null(before);
    for (uint32_t n = 0; n < mf->num_nodes; n++)
        before[n] = cs_sma_model_lft_entry(r.m, n, lid);
    cs_sma_model_reset_counts(r.m);
    struct cs_sm_reconfig rc;
    assert_int_equal(cs_sm_core_reroute(&r.core, NULL, &rc, &err), 0);
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_LINEAR_FT), rc.lc.blocks_sent);
    unsigned changed = 0;
    for (uint32_t n = 0; n < mf->num_nodes; n++)
        changed += before[n] != cs_sma_model_lft_entry(r.m, n, lid);
    free(before);
    assert_true(changed > 0);
    assert_false(cs_vm_state_route_is_live(cs_sm_core_vms(&r.core), lid));
    assert_routed_to(&r, lid, vf_port(&r, 5, 1));
    assert_tables_held(&r);
    rig_down(&r);
}

/* Dynamic LIDs: a VF has a LID only while a VM runs on it; a create takes the lowest free LID
 * and copies the PF's entries to every physical switch, a destroy takes the LID back. */
static void test_dynamic_create_destroy(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r, "dynamic");
    assert_int_equal(cs_sma_model_port_lid(r.m, vf_port(&r, 3, 1)), 0);
    cs_sma_model_reset_counts(r.m);
    struct cs_sm_vm_job create = job(CS_VM_CREATE, "db", 3, VGUID(9), CS_PLAN_FTREEMINRC);
    run(&r, &create, 1);
    assert_int_equal(create.status, 0);
    uint16_t lid = create.result.lid;
    assert_true(lid > 0);
    assert_true(create.result.lft_smps > 0);
    assert_int_equal(cs_sma_model_port_lid(r.m, vf_port(&r, 3, 1)), lid);
    assert_routed_to(&r, lid, vf_port(&r, 3, 1));
    assert_int_equal(model_sets(&r, CS_SMP_ATTR_LINEAR_FT),
                     create.result.lft_smps + create.result.vswitch_lft_smps);
    assert_tables_held(&r);

    struct cs_sm_vm_job destroy = job(CS_VM_DESTROY, "db", 0, 0, CS_PLAN_FTREEMINRC);
    run(&r, &destroy, 1);
    assert_int_equal(destroy.status, 0);
    assert_int_equal(destroy.result.lid, lid);
    assert_int_equal(cs_sma_model_port_lid(r.m, vf_port(&r, 3, 1)), 0);
    assert_int_equal(cs_sm_core_vms(&r.core)->count, 0);
    rig_down(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prepopulated_create_migrate),
        cmocka_unit_test(test_batches_and_refusals),
        cmocka_unit_test(test_restart_keeps_live_routes),
        cmocka_unit_test(test_dynamic_create_destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
