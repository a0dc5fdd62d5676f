/* VM lifecycle planning: LID swap and copy (Paper II Fig. 5, thesis lines 3576-3595; n' = 1,
 * thesis lines 3819-3824), port-255 invalidation (section VI-C, thesis lines 3834-3848),
 * FTreeMinRC's marking and ItRC (Paper V, thesis lines 6382-6454), VM create / migrate /
 * destroy (vSwitch and, for contrast, shared port), the transition check for credit loops, and
 * Table I (thesis lines 4001-4043) on its four trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/analyze.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/vm_plan.h"

/* ---- LID level ---- */

/* A set of `n` switches holding LIDs 0..max_lid, all no route. */
static void small_set(struct cs_lfts *t, uint32_t n, uint16_t max_lid)
{
    struct cs_error err = {{0}};
    assert_int_equal(cs_lfts_init(t, max_lid, &err), 0);
    for (uint32_t s = 0; s < n; s++)
        assert_int_not_equal(
            cs_lfts_add_switch(t, 0x100 + s, (uint16_t)(s + 1), "sw", CS_NONE, &err), CS_NONE);
}

/* Fig. 5: VM1 (LID 2) moves to the free VF3 of hypervisor 3 (LID 12); on the upper-left switch
 * LID 2 goes out port 2 and LID 12 port 4 before, the other way round after: "only one SMP
 * needs to be sent ... both LID 2 and 12 are part of the same block"; with a VF LID of 64 or
 * more, two. */
static void test_fig5_swap(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_error err = {{0}};
    small_set(&t, 1, 100);
    cs_lfts_set(&t, 0, 2, 2);
    cs_lfts_set(&t, 0, 12, 4);
    cs_lfts_set(&t, 0, 70, 4);
    uint32_t tables[1] = {0};
    struct cs_plan plan;
    cs_plan_init(&plan);
    struct cs_lid_update u = {.kind = CS_LID_SWAP, .lid = 2, .other = 12};
    assert_int_equal(cs_lid_update_apply(&t, &u, tables, 1, 0, false, true, &plan, &err), 0);
    assert_int_equal(cs_lfts_get(&t, 0, 2), 4);
    assert_int_equal(cs_lfts_get(&t, 0, 12), 2);
    assert_int_equal(plan.lft_smps, 1);
    assert_int_equal(plan.switches_updated, 1);
    assert_int_equal(plan.smps[0].block, 0);
    assert_int_equal(plan.smps[0].entries, 2);
    cs_plan_free(&plan);

    /* The same with the VF's LID >= 64: the VM LID's block and the VF LID's block. LID 2 now
     * goes out port 4 like LID 70: nothing to swap on this switch (n' = 0). */
    cs_plan_init(&plan);
    u.other = 70;
    assert_int_equal(cs_lid_update_apply(&t, &u, tables, 1, 0, false, true, &plan, &err), 0);
    assert_int_equal(plan.lft_smps, 0);
    assert_int_equal(plan.switches_updated, 0);
    cs_plan_free(&plan);
    cs_plan_init(&plan);
    cs_lfts_set(&t, 0, 70, 3);
    assert_int_equal(cs_lid_update_apply(&t, &u, tables, 1, 0, false, true, &plan, &err), 0);
    assert_int_equal(plan.lft_smps, 2);
    assert_int_equal(plan.smps[0].block, 0);
    assert_int_equal(plan.smps[1].block, 1);
    assert_int_equal(cs_lfts_get(&t, 0, 2), 3);
    assert_int_equal(cs_lfts_get(&t, 0, 70), 4);
    cs_plan_free(&plan);
    cs_lfts_free(&t);
}

/* n' = 1 (thesis lines 3819-3824): "If LID 2 was swapped with any of the LIDs in hypervisor 2
 * (6, 7 or 8), then the upper left switch would not need to be updated at all, because the
 * initial routing already routes LID 2 and LIDs 6, 7 and 8 from the same port (Port 2)". */
static void test_n_prime_one(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_error err = {{0}};
    small_set(&t, 2, 127);
    cs_lfts_set(&t, 0, 2, 2); /* upper-left switch */
    cs_lfts_set(&t, 0, 6, 2);
    cs_lfts_set(&t, 1, 2, 1); /* lower-left leaf: hypervisor 1 on port 1, 2 on port 2 */
    cs_lfts_set(&t, 1, 6, 2);
    uint32_t tables[2] = {0, 1};
    struct cs_plan plan;
    cs_plan_init(&plan);
    struct cs_lid_update u = {.kind = CS_LID_SWAP, .lid = 2, .other = 6};
    assert_int_equal(cs_lid_update_apply(&t, &u, tables, 2, 0, false, true, &plan, &err), 0);
    assert_int_equal(plan.switches_updated, 1);
    assert_int_equal(plan.lft_smps, 1);
    assert_int_equal(plan.smps[0].table, 1);
    cs_plan_free(&plan);

    /* Port 255 first: exactly n' more SMPs, all before the new entries. */
    cs_plan_init(&plan);
    cs_lfts_set(&t, 0, 6, 3);
    u.other = 6;
    assert_int_equal(cs_lid_update_apply(&t, &u, tables, 2, 0, true, true, &plan, &err), 0);
    assert_int_equal(plan.switches_updated, 2);
    assert_int_equal(plan.port255_smps, 2);
    assert_int_equal(plan.lft_smps, 2);
    assert_int_equal(plan.smps[0].kind, CS_PLAN_SMP_PORT255);
    assert_int_equal(plan.smps[1].kind, CS_PLAN_SMP_PORT255);
    assert_int_equal(plan.smps[2].kind, CS_PLAN_SMP_LFT_BLOCK);
    cs_plan_free(&plan);

    /* Copy: one LID, one block. */
    cs_plan_init(&plan);
    cs_lfts_set(&t, 0, 65, 1);
    struct cs_lid_update copy = {.kind = CS_LID_COPY, .lid = 2, .other = 65};
    assert_int_equal(cs_lid_update_apply(&t, &copy, tables, 2, 0, false, false, &plan, &err), 0);
    assert_int_equal(plan.switches_updated, 2); /* 65 is no route on switch 1: copied too */
    assert_int_equal(plan.lft_smps, 2);
    assert_int_equal(plan.smps[0].block, 0);
    assert_int_equal(cs_lfts_get(&t, 0, 2), 1);
    assert_int_equal(cs_lfts_get(&t, 1, 2), CS_LFT_NO_ROUTE);
    cs_plan_free(&plan);
    cs_lfts_free(&t);
}

/* ---- A plain fat-tree: the switch selection ---- */

static void gen_routed(struct cs_fabric *f, struct cs_lfts *t, const char *xgft)
{
    struct cs_error err = {{0}};
    struct cs_pgft_spec spec;
    struct cs_route_stats st;
    cs_fabric_init(f);
    assert_int_equal(cs_pgft_parse(&spec, xgft, false, &err), 0);
    assert_int_equal(cs_pgft_generate(f, &spec, &err), 0);
    assert_int_equal(cs_lids_assign(f, 0, &err), 0);
    assert_int_equal(cs_route("ftree", f, NULL, t, &st, &err), 0);
    assert_false(st.fell_back);
}

/* The leaf switch behind host h (hosts come first in a generated fabric). */
static uint32_t leaf_of(const struct cs_fabric *f, uint32_t host)
{
    return f->ports[f->ports[cs_fabric_port(f, host, 1)].peer].node;
}

static uint16_t lid_of(const struct cs_fabric *f, uint32_t host)
{
    return f->ports[cs_fabric_port(f, host, 1)].lid;
}

/* XGFT(3;2,2,2;1,2,2), the 12-switch fat-tree of Paper V's Fig. 3: FTreeMinRC marks the leaf
 * for a leaf-local move, both leaves and their two shared level-2 switches within a pod, and
 * 2 + 4 + 4 across the pods (the roots are the common ancestors). */
static void test_minrc_marking(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_lfts t;
    struct cs_error err = {{0}};
    gen_routed(&f, &t, "3;2,2,2;1,2,2");
    struct cs_switch_tree tr;
    assert_int_equal(cs_switch_tree_init(&tr, &f, NULL, &t, &err), 0);
    assert_int_equal(tr.num_physical, 12);
    uint32_t nodes[12];
    assert_int_equal(cs_minrc_mark(&tr, leaf_of(&f, 0), leaf_of(&f, 1), nodes), 1);
    assert_int_equal(cs_minrc_mark(&tr, leaf_of(&f, 0), leaf_of(&f, 2), nodes), 4);
    assert_int_equal(tr.level[nodes[2]], 1);
    assert_int_equal(tr.level[nodes[3]], 1);
    assert_int_equal(cs_minrc_mark(&tr, leaf_of(&f, 0), leaf_of(&f, 7), nodes), 10);
    for (unsigned i = 6; i < 10; i++)
        assert_int_equal(tr.level[nodes[i]], 2);
    cs_switch_tree_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* Paper V (thesis lines 6382-6392): a VM moving between the two hosts of leaf 1, LIDs copied
 * from the destination (dynamic): ItRC updates every switch whose entries for the two differ,
 * "however, only the single leaf switch needs to be updated" (FTreeMinRC). With one host per
 * hypervisor, ftree sends the two hosts' LIDs up different ports on the three other leaves and
 * on one of the other pod's level-2 switches: 5 of 12 (the paper's 6/12 is on its vSwitch
 * fabric, where a leaf holds more LIDs). */
static void test_itrc_vs_minrc_leaf_local(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    for (unsigned m = 0; m < 2; m++) {
        struct cs_fabric f;
        struct cs_lfts t;
        gen_routed(&f, &t, "3;2,2,2;1,2,2");
        struct cs_switch_tree tr;
        assert_int_equal(cs_switch_tree_init(&tr, &f, NULL, &t, &err), 0);
        struct cs_plan_ends ends = {leaf_of(&f, 0), leaf_of(&f, 1), lid_of(&f, 0), lid_of(&f, 1)};
        uint32_t tables[12], active;
        enum cs_plan_method method = m ? CS_PLAN_FTREEMINRC : CS_PLAN_ITRC;
        uint32_t count = cs_plan_select(&tr, method, &t, &ends, tables, &active);
        assert_int_equal(count, m ? 1 : 12);
        struct cs_plan plan;
        cs_plan_init(&plan);
        struct cs_lid_update u = {
            .kind = CS_LID_COPY, .lid = lid_of(&f, 0), .other = lid_of(&f, 1)};
        assert_int_equal(cs_lid_update_apply(&t, &u, tables, count, active, false, !m, &plan, &err),
                         0);
        assert_int_equal(plan.switches_updated, m ? 1 : 5);
        assert_int_equal(plan.lft_smps, m ? 1 : 5);
        cs_plan_free(&plan);
        cs_switch_tree_free(&tr);
        cs_lfts_free(&t);
        cs_fabric_free(&f);
    }
}

/* ---- Transitions ---- */

static void check_tables(const struct cs_fabric *f, const struct cs_lfts *t,
                         const struct cs_lfts *from, bool skip, struct cs_check_result *r)
{
    struct cs_error err = {{0}};
    struct cs_tracer tracer;
    assert_int_equal(cs_tracer_init(&tracer, f, t, &err), 0);
    struct cs_check_options opt = {
        .threads = 1, .skip_ports_without_lid = skip, .transition_from = from};
    assert_int_equal(cs_check_lfts(&tracer, &opt, r, &err), 0);
    cs_tracer_free(&tracer);
}

/* A ring of four switches A B C D (port 1 to the next, 2 to the previous, 3 a host), host a on A,
 * b on B. To a: old tables go B -> A, C -> B, D -> C; new ones the other way round, B -> C ->
 * D -> A. Each is free of credit loops; while both are in use (some switches updated, some not)
 * a packet from b may go B -> C -> B -> C...: the transition check finds the cycle. */
static void test_transition_credit_loop(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t sw[4], host[2];
    for (unsigned i = 0; i < 4; i++)
        sw[i] = cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x200 + i, 3, "ring", &err);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(cs_fabric_connect(&f, cs_fabric_port(&f, sw[i], 1),
                                           cs_fabric_port(&f, sw[(i + 1) % 4], 2), &err),
                         0);
    for (unsigned i = 0; i < 2; i++) {
        host[i] = cs_fabric_add_node(&f, CS_NODE_CA, 0x900 + i, 1, "host", &err);
        assert_int_equal(cs_fabric_connect(&f, cs_fabric_port(&f, host[i], 1),
                                           cs_fabric_port(&f, sw[i], 3), &err),
                         0);
    }
    assert_int_equal(cs_lids_assign(&f, 0, &err), 0);
    uint16_t a = lid_of(&f, host[0]), b = lid_of(&f, host[1]);
    struct cs_lfts old_set, new_set;
    assert_int_equal(cs_lfts_for_fabric(&old_set, &f, &err), 0);
    assert_int_equal(cs_lfts_for_fabric(&new_set, &f, &err), 0);
    uint8_t to_a_old[4] = {3, 2, 2, 2}, to_a_new[4] = {3, 1, 1, 1}, to_b[4] = {1, 3, 2, 2};
    for (unsigned i = 0; i < 4; i++) {
        cs_lfts_set(&old_set, i, a, to_a_old[i]);
        cs_lfts_set(&new_set, i, a, to_a_new[i]);
        cs_lfts_set(&old_set, i, b, to_b[i]);
        cs_lfts_set(&new_set, i, b, to_b[i]);
    }
    struct cs_check_result r;
    check_tables(&f, &old_set, NULL, false, &r);
    assert_true(r.ok);
    cs_check_result_free(&r);
    check_tables(&f, &new_set, NULL, false, &r);
    assert_true(r.ok);
    cs_check_result_free(&r);
    check_tables(&f, &new_set, &old_set, false, &r);
    assert_int_equal(r.transition_lids, 1);
    assert_true(r.credit_loop);
    assert_int_equal(r.delivered, r.pairs); /* the new tables alone still deliver */
    cs_check_result_free(&r);
    cs_lfts_free(&old_set);
    cs_lfts_free(&new_set);
    cs_fabric_free(&f);
}

/* ---- A vSwitch fabric: the VM level ---- */

/* Two spines, `leaves` leaves (ports 1-2 hypervisors, 3-4 spines), below each leaf two
 * hypervisors of `vfs` VFs (vSwitch port 1 up, VF k on port k + 1). Hypervisors and VFs come
 * first, so their LIDs are the low ones. dynamic: VFs get no LID. Routed by minhop. */
struct vfab {
    struct cs_fabric f;
    struct cs_lfts t;
    struct cs_hypervisors h;
    struct cs_switch_tree tr;
    uint32_t hyp[8], leaf[4];
};

static void build_vfab(struct vfab *v, unsigned leaves, unsigned vfs, bool dynamic)
{
    struct cs_error err = {{0}};
    struct cs_fabric *f = &v->f;
    cs_fabric_init(f);
    for (unsigned i = 0; i < 2 * leaves; i++) {
        v->hyp[i] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x1000 + (i << 8), vfs + 1, "hyp", &err);
        for (unsigned k = 1; k <= vfs; k++) {
            uint32_t vf = cs_fabric_add_node(f, CS_NODE_CA, 0x3000 + (i << 8) + k, 1, "vf", &err);
            f->ports[cs_fabric_port(f, vf, 1)].guid = 0x5000 + (i << 8) + k;
            assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, vf, 1),
                                               cs_fabric_port(f, v->hyp[i], k + 1), &err),
                             0);
        }
    }
    uint32_t spine[2];
    for (unsigned s = 0; s < 2; s++)
        spine[s] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x200 + s, 4, "spine", &err);
    for (unsigned l = 0; l < leaves; l++) {
        v->leaf[l] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100 + l, 4, "leaf", &err);
        for (unsigned k = 0; k < 2; k++) {
            assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, v->hyp[2 * l + k], 1),
                                               cs_fabric_port(f, v->leaf[l], 1 + k), &err),
                             0);
            assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, v->leaf[l], 3 + k),
                                               cs_fabric_port(f, spine[k], 1 + l), &err),
                             0);
        }
    }
    for (uint32_t n = 0; n < f->num_nodes; n++) /* switch port GUIDs: their node GUIDs */
        if (cs_node_is_switch(&f->nodes[n]))
            f->ports[cs_fabric_port(f, n, 0)].guid = f->nodes[n].guid;
    assert_int_equal(cs_lids_assign(f, 0, &err), 0);
    if (dynamic)
        for (uint32_t p = 0; p < f->num_port_slots; p++)
            if (f->nodes[f->ports[p].node].type == CS_NODE_CA)
                f->ports[p].lid = 0;
    struct cs_route_stats st;
    assert_int_equal(cs_route("minhop", f, NULL, &v->t, &st, &err), 0);
    assert_int_equal(cs_hypervisors_find(f, &v->h, &err), 0);
    assert_int_equal(v->h.count, 2 * leaves);
    assert_int_equal(cs_switch_tree_init(&v->tr, f, &v->h, &v->t, &err), 0);
    assert_int_equal(v->tr.num_physical, leaves + 2);
}

static void free_vfab(struct vfab *v)
{
    cs_switch_tree_free(&v->tr);
    cs_hypervisors_free(&v->h);
    cs_lfts_free(&v->t);
    cs_fabric_free(&v->f);
}

static void copy_lfts(struct cs_lfts *dst, const struct cs_lfts *src)
{
    struct cs_error err = {{0}};
    assert_int_equal(cs_lfts_init(dst, src->max_lid, &err), 0);
    for (uint32_t s = 0; s < src->num_switches; s++) {
        assert_int_equal(cs_lfts_add_switch(dst, src->switches[s].guid, src->switches[s].lid,
                                            src->switches[s].desc, src->switches[s].node, &err),
                         s);
        memcpy(cs_lfts_table(dst, s), cs_lfts_table(src, s), src->capacity);
    }
    memcpy(dst->targets, src->targets, src->capacity * sizeof *dst->targets);
}

static uint64_t hyp_guid(const struct vfab *v, unsigned i)
{
    return v->f.nodes[v->hyp[i]].guid;
}

/* Prepopulated: VM on VF 1 of hypervisor 0 migrates to hypervisor 3 (another leaf), then to
 * hypervisor 2 (same leaf): the VM keeps its LID, the VF LIDs change owner, the tables stay
 * correct and free of credit loops, also during the transition; FTreeMinRC's leaf-local move
 * touches the leaf only. */
static void test_vm_migrate_prepopulated(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    for (unsigned m = 0; m < 3; m++) { /* itrc, ftreeminrc, ftreeminrc with port 255 */
        struct vfab v;
        build_vfab(&v, 2, 2, false);
        struct cs_vm_state s;
        cs_vm_state_init(&s);
        uint32_t vf_port = cs_hypervisor_vf_port(&v.h, 0, 1);
        uint16_t vm_lid = v.f.ports[vf_port].lid;
        struct cs_vm vm = {
            .name = "web", .vguid = 0x77, .lid = vm_lid, .hypervisor = hyp_guid(&v, 0), .vf = 1};
        assert_int_equal(cs_vm_state_add(&s, &vm, &err), 0);
        /* Two more VMs to send it traffic, one below each leaf. */
        for (unsigned k = 0; k < 2; k++) {
            struct cs_vm peer = {.vguid = 0x80 + k, .hypervisor = hyp_guid(&v, 1 + k), .vf = 2};
            snprintf(peer.name, sizeof peer.name, "peer%u", k);
            peer.lid = v.f.ports[cs_hypervisor_vf_port(&v.h, 1 + k, 2)].lid;
            assert_int_equal(cs_vm_state_add(&s, &peer, &err), 0);
        }
        assert_int_equal(cs_vm_state_check(&s, &v.f, &v.h, NULL, &err), 0);
        struct cs_lfts old_set;
        copy_lfts(&old_set, &v.t);
        uint16_t dst_lid = v.f.ports[cs_hypervisor_vf_port(&v.h, 3, 1)].lid;

        struct cs_vm_request req = {
            .op = CS_VM_MIGRATE, .name = "web", .hypervisor = hyp_guid(&v, 3)};
        struct cs_vm_plan_options opt = {.method = m ? CS_PLAN_FTREEMINRC : CS_PLAN_ITRC,
                                         .port255 = m == 2};
        struct cs_plan plan;
        cs_plan_init(&plan);
        assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), 0);
        assert_int_equal(s.vms[0].lid, vm_lid);
        assert_int_equal(s.vms[0].hypervisor, hyp_guid(&v, 3));
        assert_int_equal(s.vms[0].vf, 1);
        assert_int_equal(v.f.ports[vf_port].lid, dst_lid);
        assert_int_equal(v.f.ports[cs_hypervisor_vf_port(&v.h, 3, 1)].lid, vm_lid);
        assert_int_equal(cs_vm_state_check(&s, &v.f, &v.h, NULL, &err), 0);
        assert_int_equal(plan.hypervisor_smps, 3); /* LID at both ends, vGUID at the destination */
        /* [invalidations], destination (LID, vGUID), the LFT blocks, the source last */
        uint32_t first = (uint32_t)plan.port255_smps;
        assert_int_equal(plan.port255_smps, m == 2 ? plan.switches_updated : 0);
        assert_int_equal(plan.smps[first].kind, CS_PLAN_SMP_LID_SET);
        assert_int_equal(plan.smps[first].lid, vm_lid);
        assert_int_equal(plan.smps[first + 1].kind, CS_PLAN_SMP_VGUID_SET);
        assert_int_equal(plan.smps[plan.count - 1].kind, CS_PLAN_SMP_LID_SET);
        assert_int_equal(plan.smps[plan.count - 1].lid, dst_lid);
        assert_int_equal(plan.switches_selected, 4); /* 2 levels: every physical switch */
        assert_true(plan.switches_updated >= 2 && plan.switches_updated <= 4);
        assert_int_equal(plan.lft_smps, plan.switches_updated); /* both LIDs in block 0 */
        struct cs_check_result r;
        check_tables(&v.f, &v.t, NULL, false, &r);
        assert_true(r.ok); /* the new tables alone */
        cs_check_result_free(&r);
        /* Old and new entries together: the VM's LID may bounce leaf 0 -> spine -> leaf 1 ->
         * spine -> leaf 0 (leaf 0 and the spine updated, leaf 1 not yet, and back): the credit
         * loop Paper II warns of ("deadlocks could possibly occur when swapping LIDs"); the
         * plan's LFT phase is where it is. */
        check_tables(&v.f, &v.t, &old_set, false, &r);
        assert_int_equal(r.transition_lids, 2);
        assert_true(r.credit_loop);
        cs_check_result_free(&r);
        /* Phase by phase, the traffic of the VMs: the loop is in the LFT phase; with port 255
         * first, each phase mixes one routing with dropped entries only (docs/vswitch.md). */
        struct cs_plan_transition tx;
        assert_int_equal(
            cs_plan_check_transition(&v.f, &v.h, &v.tr, &old_set, &v.t, &plan, &s, &tx, &err), 0);
        assert_int_equal(tx.phases, m == 2 ? 4 : 3);
        assert_int_equal(tx.loop_phase, m == 2 ? CS_NONE : 1);
        cs_plan_free(&plan);

        /* Back to the first leaf, hypervisor 1: leaf-local from hypervisor 3's leaf? No: to
         * hypervisor 2, the other hypervisor of the same leaf. */
        cs_plan_init(&plan);
        req.hypervisor = hyp_guid(&v, 2);
        assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), 0);
        assert_int_equal(plan.switches_updated, 1);
        assert_int_equal(plan.lft_smps, 1);
        assert_int_equal(plan.switches_selected, m ? 1 : 4);
        check_tables(&v.f, &v.t, NULL, false, &r);
        assert_true(r.ok);
        cs_check_result_free(&r);
        cs_plan_free(&plan);

        /* A full destination fails and changes nothing. */
        cs_plan_init(&plan);
        req.vf = 1;
        req.hypervisor = hyp_guid(&v, 2);
        assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), -1);
        assert_non_null(strstr(err.msg, "runs on hypervisor"));
        assert_int_equal(plan.count, 0);
        cs_plan_free(&plan);
        cs_lfts_free(&old_set);
        cs_vm_state_free(&s);
        free_vfab(&v);
    }
}

/* Dynamic LIDs (PF 1, VFs 2 and 3 of hypervisor 0 without LIDs, ...): create takes the lowest free
 * LID and copies the PF's entry on every physical switch (one block each, n SMPs), port 255 adds
 * exactly n' more on a migration, destroy frees the LID without LFT SMPs, and a new VM reuses it.
 */
static void test_vm_dynamic_lifecycle(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    struct vfab v;
    build_vfab(&v, 2, 2, true);
    struct cs_vm_state s;
    cs_vm_state_init(&s);
    s.lid_policy = CS_LID_DYNAMIC;

    struct cs_vm_request req = {
        .op = CS_VM_CREATE, .name = "a", .vguid = 0xa1, .hypervisor = hyp_guid(&v, 0)};
    struct cs_vm_plan_options opt = {.method = CS_PLAN_FTREEMINRC};
    struct cs_plan plan;
    cs_plan_init(&plan);
    assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), 0);
    assert_int_equal(s.vms[0].lid, 2);
    assert_int_equal(s.vms[0].vf, 1);
    assert_int_equal(plan.switches_selected, 4);
    assert_int_equal(plan.switches_updated, 4);
    assert_int_equal(plan.lft_smps, 4);
    assert_int_equal(plan.hypervisor_smps, 2);
    struct cs_check_result r;
    check_tables(&v.f, &v.t, NULL, true, &r);
    assert_true(r.ok);
    assert_int_equal(r.sources, 1);
    cs_check_result_free(&r);
    cs_plan_free(&plan);

    /* A second VM elsewhere, so that there is someone to talk to. */
    cs_plan_init(&plan);
    req.name = "b";
    req.vguid = 0xb1;
    req.hypervisor = hyp_guid(&v, 3);
    assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), 0);
    assert_int_equal(s.vms[1].lid, 3);
    cs_plan_free(&plan);

    /* Migrate a to hypervisor 2 (the other leaf) with port 255 first. */
    struct cs_lfts old_set;
    copy_lfts(&old_set, &v.t);
    cs_plan_init(&plan);
    req = (struct cs_vm_request){.op = CS_VM_MIGRATE, .name = "a", .hypervisor = hyp_guid(&v, 2)};
    opt.port255 = true;
    assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), 0);
    assert_int_equal(plan.port255_smps, plan.switches_updated);
    assert_int_equal(plan.lft_smps, plan.switches_updated); /* copy: one block */
    assert_true(plan.switches_updated >= 2);
    assert_int_equal(plan.hypervisor_smps, 3);
    for (uint32_t i = 0; i < plan.port255_smps; i++)
        assert_int_equal(plan.smps[i].kind, CS_PLAN_SMP_PORT255);
    assert_int_equal(plan.smps[plan.port255_smps].kind, CS_PLAN_SMP_LID_SET);
    assert_int_equal(plan.smps[plan.count - 1].kind, CS_PLAN_SMP_LID_UNSET);
    assert_int_equal(s.vms[0].lid, 2);
    check_tables(&v.f, &v.t, NULL, true, &r);
    assert_true(r.ok);
    assert_int_equal(r.sources, 2);
    cs_check_result_free(&r);
    /* Without the invalidation the old and new entries together close a credit loop; with it,
     * each phase mixes one routing with dropped entries only: no loop in either. */
    check_tables(&v.f, &v.t, &old_set, true, &r);
    assert_int_equal(r.transition_lids, 1);
    assert_true(r.credit_loop);
    cs_check_result_free(&r);
    struct cs_plan_transition tx;
    assert_int_equal(
        cs_plan_check_transition(&v.f, &v.h, &v.tr, &old_set, &v.t, &plan, &s, &tx, &err), 0);
    assert_int_equal(tx.phases, 4); /* invalidations, destination, LFT blocks, source */
    assert_int_equal(tx.loop_phase, CS_NONE);
    assert_true(tx.lids_changing >= 3);
    cs_plan_free(&plan);

    /* Destroy a: no LFT SMP; the LID is free for the next VM. */
    cs_plan_init(&plan);
    req = (struct cs_vm_request){.op = CS_VM_DESTROY, .name = "a"};
    assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), 0);
    assert_int_equal(plan.lft_smps, 0);
    assert_int_equal(plan.hypervisor_smps, 2);
    assert_int_equal(s.count, 1);
    cs_plan_free(&plan);
    cs_plan_init(&plan);
    req = (struct cs_vm_request){
        .op = CS_VM_CREATE, .name = "c", .vguid = 0xc1, .hypervisor = hyp_guid(&v, 1)};
    assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), 0);
    assert_int_equal(s.vms[1].lid, 2);
    check_tables(&v.f, &v.t, NULL, true, &r);
    assert_true(r.ok);
    cs_check_result_free(&r);
    cs_plan_free(&plan);
    cs_lfts_free(&old_set);
    cs_vm_state_free(&s);
    free_vfab(&v);
}

/* Dynamic LIDs run out at 49151 (0xBFFF): with every unicast LID a target of the tables, a
 * create is refused with a message that says so, and the state, the tables and the plan stay
 * as they were. */
static void test_vm_dynamic_no_free_lid(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    struct vfab v;
    build_vfab(&v, 2, 2, true);
    assert_int_equal(cs_lfts_grow(&v.t, CS_LID_UCAST_MAX, &err), 0);
    for (uint32_t lid = 1; lid <= CS_LID_UCAST_MAX; lid++)
        if (!v.t.targets[lid].type)
            v.t.targets[lid].type = CS_NODE_CA; /* another subnet's worth of ports */
    struct cs_lfts before;
    copy_lfts(&before, &v.t);
    struct cs_vm_state s;
    cs_vm_state_init(&s);
    s.lid_policy = CS_LID_DYNAMIC;
    struct cs_vm_request req = {
        .op = CS_VM_CREATE, .name = "a", .vguid = 0xa1, .hypervisor = hyp_guid(&v, 0)};
    struct cs_vm_plan_options opt = {.method = CS_PLAN_FTREEMINRC};
    struct cs_plan plan;
    cs_plan_init(&plan);
    assert_int_equal(cs_vm_plan_run(&v.f, &v.h, &v.tr, &v.t, &s, &req, &opt, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "no free unicast LID: all 49151 are taken"));
    assert_int_equal(s.count, 0);
    assert_int_equal(plan.count, 0);
    assert_int_equal(memcmp(before.ports, v.t.ports, (size_t)v.t.num_switches * v.t.capacity), 0);
    cs_plan_free(&plan);
    cs_lfts_free(&before);
    cs_vm_state_free(&s);
    free_vfab(&v);
}

/* Shared port, for contrast (Paper II, thesis lines 3288-3293 and 3323-3335): on a plain fat
 * tree, VMs on HCAs share their LIDs; a create and a destroy are one vGUID SMP each, a migration
 * two and no LFT SMP, the tables stay byte for byte, and the VM's LID becomes the destination's
 * ("a migrating VM will have its LID changed to the LID of the destination hypervisor"). */
static void test_vm_shared_port(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    struct cs_fabric f;
    struct cs_lfts t, before;
    gen_routed(&f, &t, "2;4,4;1,4");
    copy_lfts(&before, &t);
    struct cs_hypervisors h;
    struct cs_switch_tree tr;
    assert_int_equal(cs_hypervisors_find(&f, &h, &err), 0);
    assert_int_equal(h.count, 0);
    assert_int_equal(cs_switch_tree_init(&tr, &f, &h, &t, &err), 0);
    struct cs_vm_state s;
    cs_vm_state_init(&s);
    s.lid_policy = CS_LID_SHARED_PORT;
    struct cs_vm_plan_options opt = {.method = CS_PLAN_FTREEMINRC, .port255 = true};
    uint64_t hca0 = f.nodes[0].guid, hca5 = f.nodes[5].guid; /* hosts come first */
    const char *names[2] = {"a", "b"};
    for (unsigned i = 0; i < 2; i++) { /* two VMs on HCA 0: VF 1 and 2, its LID */
        struct cs_vm_request req = {
            .op = CS_VM_CREATE, .name = names[i], .vguid = 0x70 + i, .hypervisor = hca0};
        struct cs_plan plan;
        cs_plan_init(&plan);
        assert_int_equal(cs_vm_plan_run(&f, &h, &tr, &t, &s, &req, &opt, &plan, &err), 0);
        assert_int_equal(plan.count, 1);
        assert_int_equal(plan.smps[0].kind, CS_PLAN_SMP_VGUID_SET);
        assert_int_equal(plan.smps[0].node, 0);
        assert_int_equal(plan.smps[0].vf, i + 1);
        assert_int_equal(plan.vm_lid_after, lid_of(&f, 0));
        assert_int_equal(cs_plan_total_smps(&plan), 1);
        cs_plan_free(&plan);
    }
    assert_int_equal(cs_vm_state_check(&s, &f, &h, NULL, &err), 0);
    /* Migrate b to HCA 5 (another leaf): two SMPs, destination first; the LID changes. */
    struct cs_vm_request req = {.op = CS_VM_MIGRATE, .name = "b", .hypervisor = hca5};
    struct cs_plan plan;
    cs_plan_init(&plan);
    assert_int_equal(cs_vm_plan_run(&f, &h, &tr, &t, &s, &req, &opt, &plan, &err), 0);
    assert_int_equal(plan.count, 2);
    assert_int_equal(plan.smps[0].kind, CS_PLAN_SMP_VGUID_SET);
    assert_int_equal(plan.smps[0].node, 5);
    assert_int_equal(plan.smps[1].kind, CS_PLAN_SMP_VGUID_UNSET);
    assert_int_equal(plan.smps[1].node, 0);
    assert_int_equal(plan.lft_smps + plan.port255_smps + plan.switches_updated, 0);
    assert_int_equal(plan.vm_lid_before, lid_of(&f, 0));
    assert_int_equal(plan.vm_lid_after, lid_of(&f, 5));
    assert_int_equal(s.vms[1].lid, lid_of(&f, 5));
    assert_int_equal(s.vms[1].vf, 1);
    for (uint32_t sw = 0; sw < t.num_switches; sw++)
        assert_memory_equal(cs_lfts_table(&t, sw), cs_lfts_table(&before, sw), t.capacity);
    assert_int_equal(cs_vm_state_check(&s, &f, &h, NULL, &err), 0);
    cs_plan_free(&plan);
    /* Errors change nothing: a switch is no HCA; a taken VF. */
    cs_plan_init(&plan);
    req.name = "a";
    req.hypervisor = f.nodes[leaf_of(&f, 0)].guid;
    assert_int_equal(cs_vm_plan_run(&f, &h, &tr, &t, &s, &req, &opt, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "is not a cabled CA (HCA)"));
    req.hypervisor = hca5;
    req.vf = 1;
    assert_int_equal(cs_vm_plan_run(&f, &h, &tr, &t, &s, &req, &opt, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "runs VM 'b'"));
    assert_int_equal(plan.count, 0);
    assert_int_equal(s.vms[0].hypervisor, hca0);
    /* Destroy: one SMP. */
    struct cs_vm_request gone = {.op = CS_VM_DESTROY, .name = "a"};
    assert_int_equal(cs_vm_plan_run(&f, &h, &tr, &t, &s, &gone, &opt, &plan, &err), 0);
    assert_int_equal(plan.count, 1);
    assert_int_equal(plan.smps[0].kind, CS_PLAN_SMP_VGUID_UNSET);
    assert_int_equal(plan.vm_lid_after, 0);
    assert_int_equal(s.count, 1);
    cs_plan_free(&plan);
    cs_vm_state_free(&s);
    cs_switch_tree_free(&tr);
    cs_hypervisors_free(&h);
    cs_lfts_free(&before);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* ---- Table I (thesis lines 4001-4043) on the four trees ---- */

/* SMPs a swap of a and b costs over every physical switch (ItRC): 1 or 2 per differing one. */
static uint32_t swap_cost(const struct cs_lfts *t, uint16_t a, uint16_t b)
{
    uint32_t blocks = a / CS_LFT_BLOCK == b / CS_LFT_BLOCK ? 1 : 2, cost = 0;
    for (uint32_t s = 0; s < t->num_switches; s++)
        if (cs_lfts_get(t, s, a) != cs_lfts_get(t, s, b))
            cost += blocks;
    return cost;
}

/* One VM per compute node, as the paper's emulation: swapping two nodes' LIDs. Min 1: two nodes
 * of one leaf, one block, FTreeMinRC updates only the leaf ("a minimum of only one SMP if the VM
 * is migrated within the same leaf switch"); max: the worst pair with ItRC, bounded by 2n and
 * equal to it: every switch changes, in two blocks. Full RC: switches x blocks. The plan for the
 * worst pair sends exactly that many SMPs and leaves correct tables. */
static void table1_row(const char *xgft, uint32_t nodes, uint32_t switches, uint32_t lids,
                       uint32_t blocks, uint32_t full, uint32_t max)
{
    struct cs_error err = {{0}};
    struct cs_fabric f;
    struct cs_lfts t;
    gen_routed(&f, &t, xgft);
    uint32_t hosts = 0;
    while (hosts < f.num_nodes && f.nodes[hosts].type == CS_NODE_CA)
        hosts++;
    assert_int_equal(hosts, nodes);
    assert_int_equal(t.num_switches, switches);
    assert_int_equal(cs_fabric_max_lid(&f), lids);
    assert_int_equal(cs_lfts_blocks(&t), blocks);
    assert_int_equal(t.num_switches * cs_lfts_blocks(&t), full);
    struct cs_switch_tree tr;
    assert_int_equal(cs_switch_tree_init(&tr, &f, NULL, &t, &err), 0);
    uint32_t *tables = calloc(switches, sizeof *tables), active;
    struct cs_plan plan;
    {
        struct cs_plan_ends ends = {leaf_of(&f, 0), leaf_of(&f, 1), lid_of(&f, 0), lid_of(&f, 1)};
        uint32_t count = cs_plan_select(&tr, CS_PLAN_FTREEMINRC, &t, &ends, tables, &active);
        assert_int_equal(count, 1);
        cs_plan_init(&plan);
        struct cs_lid_update u = {
            .kind = CS_LID_SWAP, .lid = lid_of(&f, 0), .other = lid_of(&f, 1)};
        assert_int_equal(
            cs_lid_update_apply(&t, &u, tables, count, active, false, false, &plan, &err), 0);
        assert_int_equal(cs_plan_total_smps(&plan), 1);
        cs_plan_free(&plan);
        /* swapped back (the same single SMP), for the search below */
        cs_plan_init(&plan);
        assert_int_equal(
            cs_lid_update_apply(&t, &u, tables, count, active, false, false, &plan, &err), 0);
        cs_plan_free(&plan);
    }
    /* The search: the first host of the first, middle and last leaves against every host in
     * another block on another leaf, until the bound 2n is met. */
    uint32_t worst = 0, worst_a = 0, worst_b = 0, leaf_hosts = 0;
    while (leaf_hosts < hosts && leaf_of(&f, leaf_hosts) == leaf_of(&f, 0))
        leaf_hosts++;
    uint32_t sources[3] = {0, (hosts / leaf_hosts / 2) * leaf_hosts, hosts - leaf_hosts};
    for (unsigned k = 0; k < 3 && worst < 2 * switches; k++)
        for (uint32_t b = 0; b < hosts && worst < 2 * switches; b++) {
            uint32_t a = sources[k];
            if (lid_of(&f, a) / CS_LFT_BLOCK == lid_of(&f, b) / CS_LFT_BLOCK ||
                leaf_of(&f, a) == leaf_of(&f, b))
                continue;
            uint32_t cost = swap_cost(&t, lid_of(&f, a), lid_of(&f, b));
            if (cost > worst) {
                worst = cost;
                worst_a = a;
                worst_b = b;
            }
        }
    assert_int_equal(worst, max);
    assert_true(worst <= 2 * switches);

    uint16_t la = lid_of(&f, worst_a), lb = lid_of(&f, worst_b);
    struct cs_plan_ends ends = {leaf_of(&f, worst_a), leaf_of(&f, worst_b), la, lb};
    /* FTreeMinRC: both leaves and the spines above them, the route's leaf, spine, leaf first;
     * correct tables with fewer SMPs. Swapped back by the same plan (a swap undoes itself). */
    struct cs_check_result r;
    for (unsigned back = 0; back < 2; back++) {
        ends.lid_at_src = back ? lb : la; /* after the first swap b answers la */
        ends.lid_at_dst = back ? la : lb;
        uint32_t count = cs_plan_select(&tr, CS_PLAN_FTREEMINRC, &t, &ends, tables, &active);
        /* both leaves and every switch above them up to their common ancestors */
        assert_true(count >= 2 && count < switches);
        /* the route there and back: leaf, (level 2, root, level 2,) leaf, each way; the way
         * back may cross other switches above the leaves: at most 2 x 5 - 2 on 3 levels */
        assert_true(active >= 3 && active <= 8);
        cs_plan_init(&plan);
        struct cs_lid_update u = {.kind = CS_LID_SWAP, .lid = la, .other = lb};
        assert_int_equal(
            cs_lid_update_apply(&t, &u, tables, count, active, false, false, &plan, &err), 0);
        assert_true(plan.lft_smps < max);
        assert_true(plan.smps[0].active_route);
        cs_plan_free(&plan);
        f.ports[cs_fabric_port(&f, worst_a, 1)].lid = back ? la : lb;
        f.ports[cs_fabric_port(&f, worst_b, 1)].lid = back ? lb : la;
        check_tables(&f, &t, NULL, false, &r);
        assert_true(r.ok);
        cs_check_result_free(&r);
    }
    uint32_t count = cs_plan_select(&tr, CS_PLAN_ITRC, &t, &ends, tables, &active);
    assert_int_equal(count, switches);
    assert_int_equal(active, 0);
    cs_plan_init(&plan);
    struct cs_lid_update u = {.kind = CS_LID_SWAP, .lid = la, .other = lb};
    assert_int_equal(cs_lid_update_apply(&t, &u, tables, count, active, false, true, &plan, &err),
                     0);
    assert_int_equal(plan.lft_smps, max);
    f.ports[cs_fabric_port(&f, worst_a, 1)].lid = lb;
    f.ports[cs_fabric_port(&f, worst_b, 1)].lid = la;
    check_tables(&f, &t, NULL, false, &r);
    assert_true(r.ok);
    cs_check_result_free(&r);
    cs_plan_free(&plan);
    free(tables);
    cs_switch_tree_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

static void test_table1_324(void **state)
{
    (void)state;
    table1_row("2;18,18;1,18", 324, 36, 360, 6, 216, 72);
}

static void test_table1_648(void **state)
{
    (void)state;
    table1_row("2;18,36;1,18", 648, 54, 702, 11, 594, 108);
}

static void test_table1_5832(void **state)
{
    (void)state;
    table1_row("3;18,18,18;1,18,18", 5832, 972, 6804, 107, 104004, 1944);
}

static void test_table1_11664(void **state)
{
    (void)state;
    table1_row("3;18,18,36;1,18,18", 11664, 1620, 13284, 208, 336960, 3240);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig5_swap),
        cmocka_unit_test(test_n_prime_one),
        cmocka_unit_test(test_minrc_marking),
        cmocka_unit_test(test_itrc_vs_minrc_leaf_local),
        cmocka_unit_test(test_transition_credit_loop),
        cmocka_unit_test(test_vm_migrate_prepopulated),
        cmocka_unit_test(test_vm_dynamic_lifecycle),
        cmocka_unit_test(test_vm_dynamic_no_free_lid),
        cmocka_unit_test(test_vm_shared_port),
        cmocka_unit_test(test_table1_324),
        cmocka_unit_test(test_table1_648),
        cmocka_unit_test(test_table1_5832),
        cmocka_unit_test(test_table1_11664),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
