/* vftree (src/route/vftree.c, docs/routing/vftree.md): Paper V's Fig. 2 worked example (thesis
 * lines 6362-6373) with the loads read from the tables, the VM state (idle VFs on their PF's
 * path, dynamic LIDs), and the equivalence with ftree when every hypervisor runs one VM
 * (thesis lines 6642-6644). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "route_fixtures.h"

#include "cloudsm/topo_gen.h"
#include "cloudsm/vm.h"
#include "cloudsm/vswitch.h"

/* Fig. 2: roots R1, R2; leaves L1, L2, each cabled to both roots (ports 3, 4); vSw1, vSw2 on
 * L1 ports 1, 2; vSw3, vSw4 on L2 ports 1, 2 (vSw3 first in port and GUID order, so only the
 * VM count puts vSw4 first). vSwitch h has vfs[h] VFs, VF k on its port k + 1. */
struct fig2 {
    struct cs_fabric f;
    uint32_t root[2], leaf[2], vsw[4];
};

static void build_fig2(struct fig2 *x, const unsigned vfs[4])
{
    struct cs_error err = {{0}};
    struct cs_fabric *f = &x->f;
    cs_fabric_init(f);
    for (unsigned i = 0; i < 2; i++)
        x->root[i] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x200 + i, 4, "R", &err);
    for (unsigned i = 0; i < 2; i++) {
        x->leaf[i] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100 + i, 4, "L", &err);
        for (unsigned r = 0; r < 2; r++)
            assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, x->leaf[i], 3 + r),
                                               cs_fabric_port(f, x->root[r], 1 + i), &err),
                             0);
    }
    for (unsigned h = 0; h < 4; h++) {
        x->vsw[h] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x1000 + (h << 8), 5, "vSw", &err);
        assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, x->vsw[h], 1),
                                           cs_fabric_port(f, x->leaf[h / 2], 1 + h % 2), &err),
                         0);
        for (unsigned k = 1; k <= vfs[h]; k++) {
            uint32_t vf = cs_fabric_add_node(f, CS_NODE_CA, 0x3000 + (h << 8) + k, 1, "vf", &err);
            assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, vf, 1),
                                               cs_fabric_port(f, x->vsw[h], k + 1), &err),
                             0);
        }
    }
    fx_lids(f, 0);
}

/* LID of VF k of vSwitch h (the CA cabled to its port k + 1). */
static uint16_t vf_lid(const struct fig2 *x, unsigned h, unsigned k)
{
    uint32_t peer = x->f.ports[cs_fabric_port(&x->f, x->vsw[h], k + 1)].peer;
    assert_true(peer != CS_NONE);
    return x->f.ports[peer].lid;
}

/* Every switch reaches every end port and every vSwitch's own LID (the PFs, which vftree
 * routes like VMs) in as many hops as the switch graph's distance. */
static void assert_shortest_to_pfs(const struct cs_fabric *f, const struct cs_lfts *t)
{
    rt_assert_shortest(f, t, true);
    struct cs_hypervisors h;
    struct cs_error err = {{0}};
    assert_int_equal(cs_hypervisors_find(f, &h, &err), 0);
    uint32_t *d = rt_switch_distances(f);
    for (uint32_t i = 0; i < h.count; i++) {
        uint32_t v = h.items[i].node;
        uint16_t pf = f->ports[cs_fabric_port(f, v, 0)].lid;
        for (uint32_t s = 0; s < f->num_nodes; s++)
            if (cs_node_is_switch(&f->nodes[s]) &&
                rt_walk(f, t, s, pf, NULL, NULL) != (int)d[(size_t)s * f->num_nodes + v])
                fail_msg("switch 0x%llx to PF LID %u: not a shortest path",
                         (unsigned long long)f->nodes[s].guid, pf);
    }
    free(d);
    cs_hypervisors_free(&h);
}

static void route_with(const char *engine, const struct cs_fabric *f, const struct cs_vm_state *vms,
                       struct cs_lfts *t)
{
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    struct cs_route_inputs in = {.vms = vms};
    if (cs_route_with(engine, f, NULL, &in, t, &stats, NULL, &err) != 0)
        fail_msg("%s: %s", engine, err.msg);
    assert_false(stats.fell_back);
}

/* Link loads traced through the tables: load[from][to] over switch-to-switch hops. */
#define MAX_NODES 40
struct loads {
    uint64_t load[MAX_NODES][MAX_NODES];
    uint64_t weight; /* of the route being traced */
};

static void count_hop(void *ctx, uint32_t from, uint32_t to)
{
    struct loads *l = ctx;
    assert_true(from < MAX_NODES && to < MAX_NODES);
    l->load[from][to] += l->weight;
}

/* Every running VM (vms[h] on vSwitch h, its VFs 1..vms[h]) traced from the other leaf, with
 * weight 6/vms[h] (6 = lcm(2, 3, 1): sixths are exact). Returns the root each VM came down
 * from in via[h][k-1]. */
static void trace_vms(const struct fig2 *x, const struct cs_lfts *t, const unsigned vms[4],
                      struct loads *l, uint32_t via[4][4])
{
    memset(l, 0, sizeof *l);
    for (unsigned h = 0; h < 4; h++) {
        for (unsigned k = 1; k <= vms[h]; k++) {
            l->weight = 6 / vms[h];
            uint32_t from = x->leaf[1 - h / 2];
            uint8_t up = rt_port(t, &x->f, from, vf_lid(x, h, k));
            uint32_t root = x->f.ports[x->f.ports[cs_fabric_port(&x->f, from, up)].peer].node;
            via[h][k - 1] = root;
            /* leaf -> root -> leaf -> vSwitch: three switch hops */
            assert_int_equal(rt_walk(&x->f, t, from, vf_lid(x, h, k), count_hop, l), 3);
        }
    }
}

/* Fig. 2: VM 1 and 3 come down R1, VM 2 and 4 R2 (0.5 each: both L1 links carry 1.0); on L2,
 * vSw4 (one VM) is routed first: VM 8 takes R1 (1.0), and vSw3's three VMs (1/3 each) all
 * take R2 (1.0). ftree, which counts routes and goes in port order, loads R1 -> L2 with 2/3
 * and R2 -> L2 with 4/3 on the same fabric. */
static void test_fig2(void **state)
{
    (void)state;
    static const unsigned vms[4] = {2, 2, 3, 1};
    struct fig2 x;
    build_fig2(&x, vms);
    struct cs_lfts t;
    route_with("vftree", &x.f, NULL, &t);
    struct loads l;
    uint32_t via[4][4];
    trace_vms(&x, &t, vms, &l, via);
    uint32_t R1 = x.root[0], R2 = x.root[1], L1 = x.leaf[0], L2 = x.leaf[1];
    assert_int_equal(l.load[R1][L1], 6);
    assert_int_equal(l.load[R2][L1], 6);
    assert_int_equal(l.load[R1][L2], 6);
    assert_int_equal(l.load[R2][L2], 6);
    assert_int_equal(via[0][0], R1); /* VM 1 */
    assert_int_equal(via[0][1], R2); /* VM 2 */
    assert_int_equal(via[1][0], R1); /* VM 3 */
    assert_int_equal(via[1][1], R2); /* VM 4 */
    assert_int_equal(via[3][0], R1); /* VM 8 */
    for (unsigned k = 0; k < 3; k++)
        assert_int_equal(via[2][k], R2); /* VMs 5, 6, 7 */
    /* The PFs, weight 1 each after the VMs: the two of each leaf come down different roots
     * (ftree routes switch LIDs on secondary paths: both down the first root). */
    for (unsigned i = 0; i < 2; i++) {
        uint32_t root_of[2];
        for (unsigned j = 0; j < 2; j++) {
            uint16_t pf = x.f.ports[cs_fabric_port(&x.f, x.vsw[2 * i + j], 0)].lid;
            uint32_t from = x.leaf[1 - i];
            uint8_t up = rt_port(&t, &x.f, from, pf);
            root_of[j] = x.f.ports[x.f.ports[cs_fabric_port(&x.f, from, up)].peer].node;
        }
        assert_int_not_equal(root_of[0], root_of[1]);
    }
    /* Every switch reaches every VM and every PF, on shortest paths. */
    assert_shortest_to_pfs(&x.f, &t);
    cs_lfts_free(&t);

    route_with("ftree", &x.f, NULL, &t);
    trace_vms(&x, &t, vms, &l, via);
    assert_int_equal(l.load[R1][L2], 4); /* VMs 5 and 7: 2/3 */
    assert_int_equal(l.load[R2][L2], 8); /* VMs 6 and 8: 4/3 */
    cs_lfts_free(&t);
    cs_fabric_free(&x.f);
}

static void add_vm(struct cs_vm_state *s, const struct fig2 *x, unsigned h, unsigned k,
                   uint16_t lid)
{
    struct cs_vm vm = {.vguid = 0x0200000000000000 + (h << 8) + k,
                       .lid = lid,
                       .hypervisor = x->f.nodes[x->vsw[h]].guid,
                       .vf = (uint8_t)k};
    snprintf(vm.name, sizeof vm.name, "vm-%u-%u", h, k);
    struct cs_error err = {{0}};
    if (cs_vm_state_add(s, &vm, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Every vSwitch has 4 VFs; the VM state runs Fig. 2's VMs on VFs 1..n. The VMs' loads are
 * Fig. 2's; an idle VF (prepopulated: it has a LID) takes its PF's entry on every switch but
 * its vSwitch, which sends it down the VF's port. */
static void test_vm_state_prepopulated(void **state)
{
    (void)state;
    static const unsigned vfs[4] = {4, 4, 4, 4}, vms[4] = {2, 2, 3, 1};
    struct fig2 x;
    build_fig2(&x, vfs);
    struct cs_vm_state s;
    cs_vm_state_init(&s);
    for (unsigned h = 0; h < 4; h++)
        for (unsigned k = 1; k <= vms[h]; k++)
            add_vm(&s, &x, h, k, vf_lid(&x, h, k));
    struct cs_lfts t;
    route_with("vftree", &x.f, &s, &t);
    struct loads l;
    uint32_t via[4][4];
    trace_vms(&x, &t, vms, &l, via);
    for (unsigned r = 0; r < 2; r++)
        for (unsigned i = 0; i < 2; i++)
            assert_int_equal(l.load[x.root[r]][x.leaf[i]], 6);
    unsigned idle = 0;
    for (unsigned h = 0; h < 4; h++) {
        uint16_t pf = x.f.ports[cs_fabric_port(&x.f, x.vsw[h], 0)].lid;
        for (unsigned k = vms[h] + 1; k <= 4; k++, idle++) {
            for (uint32_t sw = 0; sw < t.num_switches; sw++) {
                uint8_t want =
                    t.switches[sw].node == x.vsw[h] ? (uint8_t)(k + 1) : cs_lfts_get(&t, sw, pf);
                assert_int_equal(cs_lfts_get(&t, sw, vf_lid(&x, h, k)), want);
            }
        }
    }
    assert_int_equal(idle, 8);
    assert_shortest_to_pfs(&x.f, &t);
    cs_lfts_free(&t);
    cs_vm_state_free(&s);
    cs_fabric_free(&x.f);
}

/* Dynamic LIDs: a VF without a VM has no LID and is not routed, a VM's LID is the state's (here
 * one the fabric gave an idle VF), and a VM may not take a switch's LID. */
static void test_vm_state_dynamic(void **state)
{
    (void)state;
    static const unsigned vfs[4] = {2, 2, 2, 2};
    struct fig2 x;
    build_fig2(&x, vfs);
    struct cs_vm_state s;
    cs_vm_state_init(&s);
    s.lid_policy = CS_LID_DYNAMIC;
    uint16_t borrowed = vf_lid(&x, 3, 2); /* vSw4's VF 2 runs nothing */
    add_vm(&s, &x, 0, 1, borrowed);
    add_vm(&s, &x, 2, 2, vf_lid(&x, 2, 2));
    struct cs_lfts t;
    route_with("vftree", &x.f, &s, &t);
    /* The VM on vSw1 VF 1 has LID `borrowed`: L1 sends it to vSw1, vSw1 to port 2, L2 up. */
    assert_int_equal(rt_port(&t, &x.f, x.vsw[0], borrowed), 2);
    assert_int_equal(rt_port(&t, &x.f, x.leaf[0], borrowed), 1);
    assert_true(rt_port(&t, &x.f, x.leaf[1], borrowed) >= 3);
    assert_int_equal(rt_port(&t, &x.f, x.vsw[3], borrowed), 1); /* vSw4: up, not to its VF */
    assert_int_equal(rt_port(&t, &x.f, x.vsw[2], vf_lid(&x, 2, 2)), 3);
    /* Idle VFs: no route anywhere. */
    const uint16_t idle[] = {vf_lid(&x, 0, 2), vf_lid(&x, 1, 1), vf_lid(&x, 1, 2), vf_lid(&x, 2, 1),
                             vf_lid(&x, 3, 1)};
    for (unsigned i = 0; i < sizeof idle / sizeof *idle; i++)
        for (uint32_t sw = 0; sw < t.num_switches; sw++)
            assert_int_equal(cs_lfts_get(&t, sw, idle[i]), CS_LFT_NO_ROUTE);
    cs_lfts_free(&t);

    /* A VM on a switch's LID. */
    s.vms[0].lid = x.f.ports[cs_fabric_port(&x.f, x.root[0], 0)].lid;
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    struct cs_route_inputs in = {.vms = &s};
    assert_int_equal(cs_route_with("vftree", &x.f, NULL, &in, &t, &stats, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "VM 'vm-0-1': LID"));
    assert_non_null(strstr(err.msg, "switch"));
    cs_vm_state_free(&s);
    cs_fabric_free(&x.f);
}

/* A VM state naming a hypervisor the fabric does not have is an error, not a guess. */
static void test_vm_state_mismatch(void **state)
{
    (void)state;
    static const unsigned vfs[4] = {1, 1, 1, 1};
    struct fig2 x;
    build_fig2(&x, vfs);
    struct cs_vm_state s;
    cs_vm_state_init(&s);
    add_vm(&s, &x, 0, 1, vf_lid(&x, 0, 1));
    s.vms[0].hypervisor = 0x4242;
    struct cs_lfts t;
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    struct cs_route_inputs in = {.vms = &s};
    assert_int_equal(cs_route_with("vftree", &x.f, NULL, &in, &t, &stats, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "is not a vSwitch"));
    cs_vm_state_free(&s);
    cs_fabric_free(&x.f);
}

/* Paper V (thesis lines 6642-6644): "if only one VM is running on each of the hypervisors,
 * vSwitchFatTree will generate the same routing tables as the original Fat-Tree routing
 * algorithm". On generated --vswitch 1 fabrics: every VM LID and every physical switch LID
 * has ftree's entry on every switch (vSwitches included); only the PF LIDs differ, which
 * vftree routes on counted main paths and ftree as switch LIDs (secondary paths). */
static void test_one_vm_per_hypervisor_is_ftree(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "2;4,4;1,4",     "2;8,8;1,8", "3;4,4,4;1,4,4", "3;4,4,4;1,2,2",
        "3;6,6,6;1,6,6", "2;8,4;1,4", "3;8,4,4;1,4,2",
    };
    for (unsigned i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_pgft_spec spec;
        struct cs_error err = {{0}};
        assert_int_equal(cs_pgft_parse(&spec, specs[i], false, &err), 0);
        spec.vfs_per_hypervisor = 1;
        struct cs_fabric f;
        cs_fabric_init(&f);
        if (cs_pgft_generate(&f, &spec, &err) != 0)
            fail_msg("%s: %s", specs[i], err.msg);
        fx_lids(&f, 0);
        struct cs_hypervisors h;
        assert_int_equal(cs_hypervisors_find(&f, &h, &err), 0);
        assert_true(h.count > 0);
        struct cs_lfts ft, vft;
        route_with("ftree", &f, NULL, &ft);
        route_with("vftree", &f, NULL, &vft);
        rt_assert_same_ca_entries(&f, &ft, &vft);
        unsigned pf_differ = 0, pf_entries = 0;
        for (uint32_t n = 0; n < f.num_nodes; n++) {
            if (!cs_node_is_switch(&f.nodes[n]))
                continue;
            uint16_t lid = f.ports[cs_fabric_port(&f, n, 0)].lid;
            for (uint32_t sw = 0; sw < ft.num_switches; sw++) {
                bool same = cs_lfts_get(&ft, sw, lid) == cs_lfts_get(&vft, sw, lid);
                if (h.of_node[n] == CS_NONE && !same)
                    fail_msg("%s: switch LID %u differs on table %u", specs[i], lid, sw);
                pf_differ += !same;
                pf_entries += h.of_node[n] != CS_NONE;
            }
        }
        print_message("%-14s %u hypervisors: VM and switch LIDs as ftree, %u of %u PF entries "
                      "differ\n",
                      specs[i], h.count, pf_differ, pf_entries);
        assert_shortest_to_pfs(&f, &vft);
        cs_lfts_free(&ft);
        cs_lfts_free(&vft);
        cs_hypervisors_free(&h);
        cs_fabric_free(&f);
    }
}

/* More VFs than VMs on generated fabrics: every vSwitch's VMs weigh 1 in all, so the loads
 * on each leaf's up links (routes to the leaf's VMs coming down) add up to its vSwitches
 * with VMs, whatever the VM counts (1..4 here, unit 12), and stay within one VM's weight of
 * each other. */
static void test_uneven_vms_balance(void **state)
{
    (void)state;
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pgft_parse(&spec, "2;4,4;1,4", false, &err), 0);
    spec.vfs_per_hypervisor = 4;
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_generate(&f, &spec, &err), 0);
    fx_lids(&f, 0);
    struct cs_hypervisors h;
    assert_int_equal(cs_hypervisors_find(&f, &h, &err), 0);
    struct cs_vm_state s;
    cs_vm_state_init(&s);
    unsigned *vms_of = calloc(h.count, sizeof *vms_of);
    assert_non_null(vms_of);
    for (uint32_t i = 0; i < h.count; i++) {
        vms_of[i] = 1 + (i * 7 + i / 4) % 4; /* 1..4, mixed on every leaf */
        for (unsigned k = 1; k <= vms_of[i]; k++) {
            uint32_t port = cs_hypervisor_vf_port(&h, i, k);
            struct cs_vm vm = {.vguid = 0x0200000000000000 + (i << 8) + k,
                               .lid = f.ports[port].lid,
                               .hypervisor = f.nodes[h.items[i].node].guid,
                               .vf = (uint8_t)k};
            snprintf(vm.name, sizeof vm.name, "vm-%u-%u", i, k);
            assert_int_equal(cs_vm_state_add(&s, &vm, &err), 0);
        }
    }
    struct cs_lfts t;
    route_with("vftree", &f, &s, &t);
    /* Down loads into each leaf from each root, traced from every other leaf's view: take
     * the route from one fixed other leaf (every leaf's up entry leads to the same root). */
    uint32_t leaves[4], num_leaves = 0;
    for (uint32_t i = 0; i < h.count; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < num_leaves; j++)
            seen |= leaves[j] == h.items[i].leaf;
        if (!seen)
            leaves[num_leaves++] = h.items[i].leaf;
    }
    assert_int_equal(num_leaves, 4);
    for (uint32_t li = 0; li < num_leaves; li++) {
        uint32_t leaf = leaves[li], from = leaves[(li + 1) % num_leaves];
        uint64_t per_port[64] = {0}, total = 0;
        unsigned vswitches = 0;
        for (uint32_t i = 0; i < h.count; i++) {
            if (h.items[i].leaf != leaf)
                continue;
            vswitches++;
            for (unsigned k = 1; k <= vms_of[i]; k++) {
                uint16_t lid = f.ports[cs_hypervisor_vf_port(&h, i, k)].lid;
                uint8_t up = rt_port(&t, &f, from, lid);
                uint32_t root = f.ports[f.ports[cs_fabric_port(&f, from, up)].peer].node;
                uint8_t down = rt_port(&t, &f, root, lid);
                uint32_t into = f.ports[f.ports[cs_fabric_port(&f, root, down)].peer].node;
                assert_int_equal(into, leaf);
                uint8_t leaf_port = f.ports[f.ports[cs_fabric_port(&f, root, down)].peer].num;
                assert_true(leaf_port < 64);
                per_port[leaf_port] += 12 / vms_of[i];
                total += 12 / vms_of[i];
            }
        }
        assert_int_equal(total, 12 * vswitches);
        uint64_t lo = UINT64_MAX, hi = 0;
        for (unsigned p = 0; p < 64; p++) {
            if (!per_port[p])
                continue;
            lo = per_port[p] < lo ? per_port[p] : lo;
            hi = per_port[p] > hi ? per_port[p] : hi;
        }
        assert_true(hi - lo <= 12);
    }
    cs_lfts_free(&t);
    free(vms_of);
    cs_vm_state_free(&s);
    cs_hypervisors_free(&h);
    cs_fabric_free(&f);
}

/* A fabric without vSwitches: its hosts are routed as ftree's compute nodes, weight 1 each, no
 * dummies; on full trees (no leaf short of hosts, so ftree routes no dummies) that is ftree. */
static void test_no_hypervisors_is_ftree(void **state)
{
    (void)state;
    static const char *const specs[] = {"2;4,4;1,4", "3;4,4,4;1,2,2"};
    for (unsigned i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_pgft_spec spec;
        struct cs_error err = {{0}};
        assert_int_equal(cs_pgft_parse(&spec, specs[i], false, &err), 0);
        struct cs_fabric f;
        cs_fabric_init(&f);
        assert_int_equal(cs_pgft_generate(&f, &spec, &err), 0);
        fx_lids(&f, 0);
        struct cs_lfts ft, vft;
        route_with("ftree", &f, NULL, &ft);
        route_with("vftree", &f, NULL, &vft);
        rt_assert_same_tables(&ft, &vft);
        cs_lfts_free(&ft);
        cs_lfts_free(&vft);
        cs_fabric_free(&f);
    }
}

/* Plain hosts among the hypervisors (topo gen --plain-hosts): CAs of their own on physical
 * leaves. vftree routes them as non-compute CAs and ranks from the roots, so it does not fall
 * back; every route is shortest, and the check finds every pair delivered and no credit loop.
 * One management node shares a leaf with a hypervisor; two fill a leaf of their own, and nine a
 * whole pod of the 3-ary-3-tree: such a leaf is as far from the vSwitches as the roots are, and
 * must not be taken for one (it was: its switch had no routes to the VFs). */
static void route_plain_hosts(unsigned k, unsigned vfs, unsigned plain)
{
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pgft_kary(&spec, k, 3, &err), 0);
    spec.vfs_per_hypervisor = vfs;
    spec.plain_hosts = plain;
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_generate(&f, &spec, &err), 0);
    fx_lids(&f, 0);
    struct cs_lfts t;
    route_with("vftree", &f, NULL, &t); /* fails on a fallback */
    rt_assert_shortest(&f, &t, true);
    struct cs_check_result r;
    rt_check(&f, &t, &r);
    assert_int_equal(r.delivered, r.pairs);
    assert_true(r.pairs > 0);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

static void test_plain_hosts(void **state)
{
    (void)state;
    route_plain_hosts(2, 2, 1);
    route_plain_hosts(2, 4, 2);
    route_plain_hosts(3, 2, 9);
    route_plain_hosts(3, 2, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig2),
        cmocka_unit_test(test_vm_state_prepopulated),
        cmocka_unit_test(test_vm_state_dynamic),
        cmocka_unit_test(test_vm_state_mismatch),
        cmocka_unit_test(test_one_vm_per_hypervisor_is_ftree),
        cmocka_unit_test(test_uneven_vms_balance),
        cmocka_unit_test(test_no_hypervisors_is_ftree),
        cmocka_unit_test(test_plain_hosts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
