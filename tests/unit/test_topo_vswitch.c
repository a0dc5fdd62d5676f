/* vSwitch hypervisors from the fat-tree generator, the `hosts` limit, and the paper presets:
 * counts, GUIDs, ports, the one-uplink rule the hypervisor detection relies on, LID order,
 * the papers' switch numbering, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cloudsm/fabric.h"
#include "cloudsm/lid.h"
#include "cloudsm/topo_gen.h"
#include "testlib.h"

/* --- helpers --- */

static void kary_spec(struct cs_pgft_spec *s, unsigned k, unsigned n, unsigned vfs)
{
    assert_int_equal(cs_pgft_kary(s, k, n, NULL), 0);
    s->vfs_per_hypervisor = vfs;
}

static void generate_ok(struct cs_fabric *f, const struct cs_pgft_spec *s)
{
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    if (cs_pgft_generate(f, s, &err) != 0)
        fail_msg("generate: %s", err.msg);
}

static void preset_ok(struct cs_fabric *f, const char *name, unsigned vfs)
{
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    if (cs_topo_preset_generate(f, name, vfs, &err) != 0)
        fail_msg("preset %s: %s", name, err.msg);
}

static uint32_t node_by_desc(const struct cs_fabric *f, const char *desc)
{
    uint32_t found = CS_NONE;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (strcmp(f->nodes[n].desc, desc) == 0) {
            if (found != CS_NONE)
                fail_msg("two nodes described \"%s\"", desc);
            found = n;
        }
    if (found == CS_NONE)
        fail_msg("no node described \"%s\"", desc);
    return found;
}

/* Ports of node n cabled to switches. */
static unsigned switch_neighbours(const struct cs_fabric *f, uint32_t n)
{
    unsigned count = 0;
    for (unsigned port = 1; port <= f->nodes[n].num_ports; port++) {
        uint32_t peer = peer_node(f, n, port);
        if (peer != CS_NONE && f->nodes[peer].type == CS_NODE_SWITCH)
            count++;
    }
    return count;
}

/* The hypervisor model every vSwitch must follow: a switch whose port 1 goes to a tree switch
 * and whose ports 2..V+1 go each to port 1 of a one-port CA (the VFs, in order after it). */
static void expect_hypervisor(const struct cs_fabric *f, uint32_t vswitch, uint64_t i, unsigned vfs)
{
    char desc[CS_DESC_MAX + 1];
    const struct cs_node *node = &f->nodes[vswitch];
    assert_int_equal(node->type, CS_NODE_SWITCH);
    assert_int_equal(node->guid, CS_GUID_HOST_BASE + (i << 8));
    assert_int_equal(f->ports[cs_fabric_port(f, vswitch, 0)].guid, node->guid);
    assert_int_equal(node->num_ports, vfs + 1);
    snprintf(desc, sizeof desc, "hyp-%" PRIu64, i);
    assert_string_equal(node->desc, desc);

    uint32_t uplink = peer_node(f, vswitch, 1);
    assert_int_not_equal(uplink, CS_NONE);
    assert_int_equal(f->nodes[uplink].type, CS_NODE_SWITCH);
    assert_int_equal(f->nodes[uplink].guid >> 48, CS_GUID_SWITCH_BASE >> 48); /* a tree switch */
    assert_int_equal(switch_neighbours(f, vswitch), 1);

    for (unsigned k = 1; k <= vfs; k++) {
        uint32_t vf = vswitch + k; /* fabric order: the vSwitch, then its VFs */
        const struct cs_node *vf_node = &f->nodes[vf];
        assert_int_equal(vf_node->type, CS_NODE_CA);
        assert_int_equal(vf_node->num_ports, 1);
        assert_int_equal(vf_node->guid, CS_GUID_VF_BASE + (i << 16) + ((uint64_t)k << 8));
        assert_int_equal(f->ports[cs_fabric_port(f, vf, 1)].guid, vf_node->guid + 1);
        snprintf(desc, sizeof desc, "hyp-%" PRIu64 " vf-%u", i, k);
        assert_string_equal(vf_node->desc, desc);
        assert_int_equal(peer_node(f, vswitch, k + 1), vf);
        assert_int_equal(peer_port(f, vswitch, k + 1), 1);
    }
}

/* --- tests --- */

/* k-ary-2-tree with k = 2 and 3 VFs: 4 hypervisors, 12 VFs, 4 tree switches; cables 4 uplinks
 * + 2 leaves x 2 up + 12 VF cables = 20; LIDs 4 x (1 + 3) + 4 = 20. */
static void test_counts(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    struct cs_pgft_counts c;
    kary_spec(&s, 2, 2, 3);
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.hosts, 4);
    assert_int_equal(c.hypervisors, 4);
    assert_int_equal(c.vfs, 12);
    assert_int_equal(c.switches, 4);
    assert_int_equal(c.links, 20);
    assert_int_equal(c.lids, 20);

    struct cs_fabric f;
    generate_ok(&f, &s);
    assert_int_equal(f.num_nodes, 4 + 12 + 4);
    unsigned switches = 0, cas = 0, cables = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        f.nodes[n].type == CS_NODE_SWITCH ? switches++ : cas++;
        for (unsigned port = 1; port <= f.nodes[n].num_ports; port++)
            cables += peer_node(&f, n, port) != CS_NONE;
    }
    assert_int_equal(switches, 4 + 4);
    assert_int_equal(cas, 12);
    assert_int_equal(cables, 2 * 20);
    cs_fabric_free(&f);

    /* Without VFs the new counts are 0 and LIDs are switches + host ports. */
    kary_spec(&s, 4, 3, 0);
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.hypervisors, 0);
    assert_int_equal(c.vfs, 0);
    assert_int_equal(c.lids, 48 + 64);
}

/* Every hypervisor follows the model, and its uplink lands exactly where the plain host of the
 * same index was cabled; the tree itself is unchanged. */
static void test_structure_matches_plain_tree(void **state)
{
    (void)state;
    static const char *const trees[] = {"2;4,4;1,2", "3;4,4,8;1,4,4", "3;2,2,2;1,2,2"};
    static const unsigned vf_counts[] = {1, 2, 5, CS_VFS_MAX};
    for (size_t t = 0; t < sizeof trees / sizeof trees[0]; t++)
        for (size_t v = 0; v < sizeof vf_counts / sizeof vf_counts[0]; v++) {
            struct cs_pgft_spec s;
            assert_int_equal(cs_pgft_parse(&s, trees[t], false, NULL), 0);
            struct cs_fabric plain, virt;
            generate_ok(&plain, &s);
            const unsigned vfs = vf_counts[v];
            s.vfs_per_hypervisor = vfs;
            generate_ok(&virt, &s);
            struct cs_pgft_counts c;
            assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
            assert_int_equal(virt.num_nodes, c.hosts * (vfs + 1) + c.switches);

            for (uint64_t i = 0; i < c.hosts; i++) {
                uint32_t vswitch = (uint32_t)(i * (vfs + 1));
                expect_hypervisor(&virt, vswitch, i, vfs);
                uint32_t host = (uint32_t)i;
                assert_int_equal(virt.nodes[peer_node(&virt, vswitch, 1)].guid,
                                 plain.nodes[peer_node(&plain, host, 1)].guid);
                assert_int_equal(peer_port(&virt, vswitch, 1), peer_port(&plain, host, 1));
            }
            /* Tree switches: same GUIDs, descriptions and port counts, in the same order. */
            for (uint64_t j = 0; j < c.switches; j++) {
                const struct cs_node *a = &plain.nodes[c.hosts + j];
                const struct cs_node *b = &virt.nodes[c.hosts * (vfs + 1) + j];
                assert_int_equal(a->guid, b->guid);
                assert_string_equal(a->desc, b->desc);
                assert_int_equal(a->num_ports, b->num_ports);
            }
            cs_fabric_free(&plain);
            cs_fabric_free(&virt);
        }
}

/* --lids order: hypervisor i's PF (the vSwitch) gets i*(V+1)+1, VF k the next LIDs; the tree's
 * switches follow. The vSwitch paper's Fig. 3: PF 1, VFs 2-4, PF 5, VFs 6-8, PF 9, VFs 10-12. */
static void test_lid_order_vswitch_fig3(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset_ok(&f, "vswitch-fig3", 0);
    assert_int_equal(cs_lids_assign(&f, 0, NULL), 0);
    static const struct {
        const char *desc;
        uint16_t lid;
    } expected[] = {
        {"hyp-0", 1},    {"hyp-0 vf-1", 2},  {"hyp-0 vf-2", 3},  {"hyp-0 vf-3", 4},
        {"hyp-1", 5},    {"hyp-1 vf-1", 6},  {"hyp-1 vf-2", 7},  {"hyp-1 vf-3", 8},
        {"hyp-2", 9},    {"hyp-2 vf-1", 10}, {"hyp-2 vf-2", 11}, {"hyp-2 vf-3", 12},
        {"sw-L1-0", 13}, {"sw-L1-1", 14},    {"sw-L2-0", 15},    {"sw-L2-1", 16},
    };
    assert_int_equal(f.num_nodes, sizeof expected / sizeof expected[0]);
    for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
        uint32_t n = node_by_desc(&f, expected[e].desc);
        unsigned port = f.nodes[n].type == CS_NODE_SWITCH ? 0 : 1;
        if (f.ports[cs_fabric_port(&f, n, port)].lid != expected[e].lid)
            fail_msg("%s: LID %u, expected %u", expected[e].desc,
                     f.ports[cs_fabric_port(&f, n, port)].lid, expected[e].lid);
    }
    /* Hypervisors 1 and 2 of the figure (hyp-0, hyp-1) share leaf 1; hypervisor 3 is alone on
     * leaf 2, whose second host port stays free. */
    uint32_t leaf1 = node_by_desc(&f, "sw-L1-0"), leaf2 = node_by_desc(&f, "sw-L1-1");
    assert_int_equal(peer_node(&f, node_by_desc(&f, "hyp-0"), 1), leaf1);
    assert_int_equal(peer_node(&f, node_by_desc(&f, "hyp-1"), 1), leaf1);
    assert_int_equal(peer_node(&f, node_by_desc(&f, "hyp-2"), 1), leaf2);
    assert_int_equal(peer_node(&f, leaf2, 2), CS_NONE);
    /* Each leaf reaches both spines. */
    for (unsigned port = 3; port <= 4; port++) {
        assert_int_equal(f.nodes[peer_node(&f, leaf1, port)].guid >> 32,
                         (CS_GUID_SWITCH_BASE >> 32) + 2);
        assert_int_equal(f.nodes[peer_node(&f, leaf2, port)].guid >> 32,
                         (CS_GUID_SWITCH_BASE >> 32) + 2);
    }
    cs_fabric_free(&f);

    /* The VF count can be overridden; the layout stays. */
    preset_ok(&f, "vswitch-fig3", 1);
    assert_int_equal(f.num_nodes, 3 * 2 + 4);
    expect_hypervisor(&f, 2, 1, 1);
    cs_fabric_free(&f);
}

/* Tree level of a tree switch, from its GUID. */
static unsigned switch_level(const struct cs_fabric *f, uint32_t n)
{
    return (unsigned)((f->nodes[n].guid - CS_GUID_SWITCH_BASE) >> 32);
}

/* A path of paper switch numbers is cabled hop by hop and goes strictly up, then strictly
 * down (an up-down path). */
static void expect_up_down_path(const struct cs_fabric *f, const unsigned *path, size_t length)
{
    bool going_down = false;
    for (size_t s = 0; s + 1 < length; s++) {
        char desc[16];
        snprintf(desc, sizeof desc, "sw-%u", path[s]);
        uint32_t from = node_by_desc(f, desc);
        snprintf(desc, sizeof desc, "sw-%u", path[s + 1]);
        uint32_t to = node_by_desc(f, desc);
        bool cabled = false;
        for (unsigned port = 1; port <= f->nodes[from].num_ports; port++)
            cabled |= peer_node(f, from, port) == to;
        if (!cabled)
            fail_msg("sw-%u and sw-%u are not cabled", path[s], path[s + 1]);
        bool up = switch_level(f, to) > switch_level(f, from);
        if (up && going_down)
            fail_msg("sw-%u -> sw-%u goes up after going down", path[s], path[s + 1]);
        going_down |= !up;
    }
    assert_true(going_down);
}

/* The journal paper's Fig. 3: 12 switches numbered as in the paper, so that its paths
 * P1 = 12 -> 9 -> 5 -> 3 -> 1 and P2 = 12 -> 10 -> 6 -> 4 -> 1 exist as up-down paths and
 * leaf 1 holds hypervisors 1 and 2. */
static void test_journal_fig3(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset_ok(&f, "vswitch-journal-fig3", 0);
    /* 8 hypervisors x (1 + 2 VFs) + 12 switches. */
    assert_int_equal(f.num_nodes, 8 * 3 + 12);
    for (uint64_t i = 0; i < 8; i++)
        expect_hypervisor(&f, (uint32_t)(i * 3), i, 2);
    for (unsigned number = 1; number <= 12; number++) {
        char desc[16];
        snprintf(desc, sizeof desc, "sw-%u", number);
        uint32_t n = node_by_desc(&f, desc);
        unsigned level = switch_level(&f, n);
        /* Leaves 1, 2, 11, 12; middles 3, 4, 9, 10; roots 5..8. */
        unsigned expected = number >= 5 && number <= 8                                  ? 3
                            : number == 3 || number == 4 || number == 9 || number == 10 ? 2
                                                                                        : 1;
        if (level != expected)
            fail_msg("sw-%u is at level %u, expected %u", number, level, expected);
    }
    static const unsigned p1[] = {12, 9, 5, 3, 1}, p2[] = {12, 10, 6, 4, 1};
    expect_up_down_path(&f, p1, 5);
    expect_up_down_path(&f, p2, 5);
    uint32_t leaf1 = node_by_desc(&f, "sw-1");
    assert_int_equal(peer_node(&f, node_by_desc(&f, "hyp-0"), 1), leaf1);
    assert_int_equal(peer_node(&f, node_by_desc(&f, "hyp-1"), 1), leaf1);
    /* Leaf 12 is in the other level-2 sub-tree: no middle switch is shared with leaf 1. */
    uint32_t leaf12 = node_by_desc(&f, "sw-12");
    for (unsigned a = 3; a <= 4; a++)
        for (unsigned b = 3; b <= 4; b++)
            assert_int_not_equal(peer_node(&f, leaf1, a), peer_node(&f, leaf12, b));
    cs_fabric_free(&f);

    preset_ok(&f, "vswitch-journal-fig3", 4);
    assert_int_equal(f.num_nodes, 8 * 5 + 12);
    expect_hypervisor(&f, 5 * 7, 7, 4);
    cs_fabric_free(&f);
}

/* hosts keeps the first N host slots (after hosts_per_leaf); switches stay. */
static void test_hosts_limit(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    kary_spec(&s, 2, 2, 0);
    s.hosts = 3;
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.hosts, 3);
    assert_int_equal(c.per_level[0], 3);
    assert_int_equal(c.switches, 4);
    assert_int_equal(c.links, 3 + 4);
    assert_int_equal(c.lids, 3 + 4);
    struct cs_fabric f;
    generate_ok(&f, &s);
    assert_int_equal(f.num_nodes, 3 + 4);
    assert_string_equal(f.nodes[3].desc, "sw-L1-0");
    assert_int_equal(peer_node(&f, 2, 1), 4); /* host-2 on leaf 1's port 1 */
    assert_int_equal(peer_node(&f, 4, 2), CS_NONE);
    cs_fabric_free(&f);

    /* With hosts_per_leaf first: 4-ary-2-tree, 2 per leaf = 8 slots, keep 5. */
    kary_spec(&s, 4, 2, 1);
    s.hosts_per_leaf = 2;
    s.hosts = 5;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.hosts, 5);
    assert_int_equal(c.vfs, 5);
    generate_ok(&f, &s);
    expect_hypervisor(&f, 8, 4, 1); /* hyp-4: the first slot of leaf 2 */
    assert_string_equal(f.nodes[peer_node(&f, 8, 1)].desc, "sw-L1-2");
    assert_int_equal(peer_port(&f, 8, 1), 1);
    cs_fabric_free(&f);
}

static void expect_count_error(const struct cs_pgft_spec *s, const char *needle)
{
    struct cs_error err = {{0}};
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(s, &c, &err), -1);
    if (!strstr(err.msg, needle))
        fail_msg("error \"%s\" does not say \"%s\"", err.msg, needle);
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_generate(&f, s, &err), -1);
    assert_int_equal(f.num_nodes, 0);
    cs_fabric_free(&f);
}

static void test_errors(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    kary_spec(&s, 2, 2, CS_VFS_MAX + 1);
    expect_count_error(&s, "1 to 126");

    /* Dual-homed hosts (w1 = 2) and parallel host cables (p1 = 2) cannot be vSwitches. */
    assert_int_equal(cs_pgft_parse(&s, "2;4,4;2,2", false, NULL), 0);
    s.vfs_per_hypervisor = 2;
    expect_count_error(&s, "w1*p1 = 1");
    assert_int_equal(cs_pgft_parse(&s, "2;4,4;1,2;2,1", true, NULL), 0);
    s.vfs_per_hypervisor = 2;
    expect_count_error(&s, "w1*p1 = 1");

    /* The LID budget counts V+1 per hypervisor: XGFT(2;18,36;1,18) has 648 hosts and 54
     * switches; 74 VFs need 648 * 75 + 54 = 48654 LIDs (fits), 75 VFs 49302 (does not). */
    assert_int_equal(cs_pgft_parse(&s, "2;18,36;1,18", false, NULL), 0);
    s.vfs_per_hypervisor = 74;
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.lids, 48654);
    s.vfs_per_hypervisor = 75;
    expect_count_error(&s, "needs 49302 LIDs (54 switches + 648 hypervisors x (1 PF + 75 VFs))");

    kary_spec(&s, 2, 2, 0);
    s.hosts = 5;
    expect_count_error(&s, "5 hosts asked for, but the tree has only 4 host slots");

    struct cs_error err = {{0}};
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_topo_preset_generate(&f, "fig-99", 0, &err), -1);
    assert_non_null(strstr(err.msg, "vswitch-fig3, vswitch-journal-fig3"));
    assert_int_equal(cs_topo_preset_generate(&f, "vswitch-fig3", 127, &err), -1);
    assert_int_equal(f.num_nodes, 0);
    cs_fabric_free(&f);
}

/* The list the CLI prints is the list that builds. */
static void test_preset_table(void **state)
{
    (void)state;
    size_t count;
    const struct cs_topo_preset *presets = cs_topo_presets(&count);
    assert_true(count >= 2);
    for (size_t i = 0; i < count; i++) {
        struct cs_fabric f;
        preset_ok(&f, presets[i].name, 0);
        assert_true(f.num_nodes > 0);
        assert_non_null(presets[i].summary);
        cs_fabric_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_structure_matches_plain_tree),
        cmocka_unit_test(test_lid_order_vswitch_fig3),
        cmocka_unit_test(test_journal_fig3),
        cmocka_unit_test(test_hosts_limit),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_preset_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
