/* Fabric summary: generated fat trees (figures from the seeds) and a hand-built odd fabric. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>
#include <time.h>

#include "cloudsm/fabric.h"
#include "cloudsm/summary.h"
#include "cloudsm/topo_gen.h"

static void summarize_ok(const struct cs_fabric *f, unsigned lmc, struct cs_fabric_summary *s)
{
    struct cs_error err = {{0}};
    memset(s, 0xa5, sizeof *s); /* every field must be written */
    if (cs_fabric_summarize(f, lmc, s, &err) != 0)
        fail_msg("summarize: %s", err.msg);
}

static void generate(struct cs_fabric *f, const char *text, bool with_parallel,
                     unsigned hosts_per_leaf)
{
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    if (cs_pgft_parse(&spec, text, with_parallel, &err) != 0)
        fail_msg("parse %s: %s", text, err.msg);
    spec.hosts_per_leaf = hosts_per_leaf;
    cs_fabric_init(f);
    if (cs_pgft_generate(f, &spec, &err) != 0)
        fail_msg("generate %s: %s", text, err.msg);
}

/* The four vSwitch-paper trees with the LIDs and minimum LFT blocks of Paper V's Table 2
 * (docs/references.md; LIDs = nodes + switches). */
static void test_seed_trees_lids_and_blocks(void **state)
{
    (void)state;
    static const struct {
        const char *xgft;
        unsigned levels, hosts, switches, leaves, per_leaf, lids, blocks;
    } rows[] = {
        {"2;18,18;1,18", 2, 324, 36, 18, 18, 360, 6},
        {"2;18,36;1,18", 2, 648, 54, 36, 18, 702, 11},
        {"3;18,18,18;1,18,18", 3, 5832, 972, 324, 18, 6804, 107},
        {"3;18,18,36;1,18,18", 3, 11664, 1620, 648, 18, 13284, 208},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct cs_fabric f;
        struct cs_fabric_summary s;
        generate(&f, rows[i].xgft, false, 0);
        summarize_ok(&f, 0, &s);
        assert_int_equal(s.switches, rows[i].switches);
        assert_int_equal(s.cas, rows[i].hosts);
        assert_int_equal(s.hosts, rows[i].hosts);
        assert_int_equal(s.routers, 0);
        assert_int_equal(s.levels, rows[i].levels);
        assert_int_equal(s.leaves, rows[i].leaves);
        assert_int_equal(s.hosts_per_leaf_min, rows[i].per_leaf);
        assert_int_equal(s.hosts_per_leaf_max, rows[i].per_leaf);
        assert_int_equal(s.unreachable_switches, 0);
        assert_int_equal(s.lids, rows[i].lids);
        assert_int_equal(s.lft_blocks_min, rows[i].blocks);
        assert_int_equal(s.max_lid, 0); /* the generator assigns no LIDs */
        /* Single-homed hosts: every cable that is not a host cable joins two switches. */
        assert_int_equal(s.links - s.switch_links, rows[i].hosts);
        cs_fabric_free(&f);
    }
}

/* 16-ary-3-tree: 4864 LIDs, so a full LFT is 4864/64 + 1 = 77 blocks. */
static void test_16_ary_3_tree(void **state)
{
    (void)state;
    struct cs_pgft_spec spec;
    assert_int_equal(cs_pgft_kary(&spec, 16, 3, NULL), 0);
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_generate(&f, &spec, NULL), 0);
    struct cs_fabric_summary s;
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.lids, 4864);
    assert_int_equal(s.lft_blocks_min, 77);
    assert_int_equal(s.levels, 3);
    assert_int_equal(s.switches, 768);
    assert_int_equal(s.links, 4096 + 2 * 256 * 16);
    assert_int_equal(s.switch_links, 2 * 256 * 16);

    /* LMC 2: every LID-holding port takes 4 LIDs. */
    summarize_ok(&f, 2, &s);
    assert_int_equal(s.lids, 4 * 4864);
    assert_int_equal(s.lft_blocks_min, 4 * 4864 / 64 + 1);

    struct cs_error err = {{0}};
    assert_int_equal(cs_fabric_summarize(&f, 8, &s, &err), -1);
    assert_non_null(strstr(err.msg, "LMC"));
    cs_fabric_free(&f);
}

static void test_levels_match_tree_height(void **state)
{
    (void)state;
    static const char *const specs[] = {"1;6;1", "2;4,8;1,4", "3;4,4,8;1,4,4", "4;2,2,2,2;1,2,2,2",
                                        "5;2,2,2,2,2;1,2,1,2,1"};
    for (unsigned h = 1; h <= 5; h++) {
        struct cs_fabric f;
        struct cs_fabric_summary s;
        generate(&f, specs[h - 1], false, 0);
        summarize_ok(&f, 0, &s);
        if (s.levels != h)
            fail_msg("%s: levels %u, expected %u", specs[h - 1], s.levels, h);
        cs_fabric_free(&f);
    }
}

static void test_hosts_per_leaf_and_parallel_links(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_fabric_summary s;
    /* PGFT(2;4,4;1,2;1,2) with 3 hosts on each of the 4 leaves, 2 cables to each of 2 roots. */
    generate(&f, "2;4,4;1,2;1,2", true, 3);
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.hosts, 12);
    assert_int_equal(s.leaves, 4);
    assert_int_equal(s.hosts_per_leaf_min, 3);
    assert_int_equal(s.hosts_per_leaf_max, 3);
    assert_int_equal(s.links, 12 + 4 * 2 * 2);
    assert_int_equal(s.switch_links, 4 * 2 * 2);
    assert_int_equal(s.lids, 6 + 12);
    assert_int_equal(s.levels, 2);
    cs_fabric_free(&f);

    /* PGFT(1;3;2;2): 3 hosts each cabled twice to each of 2 switches. A leaf counts CA ports,
     * so 6 per leaf; hosts are still 3, but each needs 4 LIDs. */
    generate(&f, "1;3;2;2", true, 0);
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.hosts, 3);
    assert_int_equal(s.cas, 3);
    assert_int_equal(s.hosts_per_leaf_min, 6);
    assert_int_equal(s.hosts_per_leaf_max, 6);
    assert_int_equal(s.links, 12);
    assert_int_equal(s.switch_links, 0);
    assert_int_equal(s.lids, 2 + 3 * 4);
    assert_int_equal(s.levels, 1);
    cs_fabric_free(&f);
}

static uint32_t add(struct cs_fabric *f, enum cs_node_type type, uint64_t guid, unsigned ports)
{
    struct cs_error err = {{0}};
    uint32_t n = cs_fabric_add_node(f, type, guid, ports, NULL, &err);
    if (n == CS_NONE)
        fail_msg("add_node: %s", err.msg);
    return n;
}

static void cable(struct cs_fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
    struct cs_error err = {{0}};
    if (cs_fabric_connect(f, cs_fabric_port(f, a, pa), cs_fabric_port(f, b, pb), &err) != 0)
        fail_msg("connect: %s", err.msg);
}

/* Leaves A (3 CA ports) and D (1) under spine B; a server with two HCAs (same system image) on
 * A, one of them with a spare port; a router between B and switch E; E cabled to C. E and C
 * reach a leaf only through the router, which does not count as a switch path; an unconnected
 * CA is a host without LIDs. */
static void build_odd_fabric(struct cs_fabric *f)
{
    cs_fabric_init(f);
    uint32_t a = add(f, CS_NODE_SWITCH, 0xa0, 8);
    uint32_t b = add(f, CS_NODE_SWITCH, 0xb0, 8);
    uint32_t c = add(f, CS_NODE_SWITCH, 0xc0, 4);
    uint32_t d = add(f, CS_NODE_SWITCH, 0xd0, 8);
    uint32_t e = add(f, CS_NODE_SWITCH, 0xe0, 4);
    uint32_t hca1 = add(f, CS_NODE_CA, 0x100, 1);
    uint32_t hca2 = add(f, CS_NODE_CA, 0x200, 2);
    uint32_t y = add(f, CS_NODE_CA, 0x300, 1);
    uint32_t z = add(f, CS_NODE_CA, 0x400, 1);
    (void)add(f, CS_NODE_CA, 0x500, 1);
    uint32_t router = add(f, CS_NODE_ROUTER, 0x600, 2);
    f->nodes[hca1].sysimg_guid = 0xaaa;
    f->nodes[hca2].sysimg_guid = 0xaaa;

    cable(f, hca1, 1, a, 1);
    cable(f, hca2, 1, a, 2);
    cable(f, y, 1, a, 3);
    cable(f, z, 1, d, 1);
    cable(f, a, 8, b, 1);
    cable(f, d, 8, b, 2);
    cable(f, router, 1, b, 3);
    cable(f, router, 2, e, 1);
    cable(f, c, 1, e, 2);
}

static void test_hand_built_fabric(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_fabric_summary s;
    build_odd_fabric(&f);
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.switches, 5);
    assert_int_equal(s.cas, 5);
    assert_int_equal(s.routers, 1);
    assert_int_equal(s.hosts, 4); /* the two HCAs of system image 0xaaa are one host */
    assert_int_equal(s.links, 9);
    assert_int_equal(s.switch_links, 3);
    assert_int_equal(s.leaves, 2);
    assert_int_equal(s.hosts_per_leaf_min, 1);
    assert_int_equal(s.hosts_per_leaf_max, 3);
    assert_int_equal(s.levels, 2);
    assert_int_equal(s.unreachable_switches, 2);
    /* 5 switches + 4 cabled CA ports + 2 cabled router ports. */
    assert_int_equal(s.lids, 11);
    assert_int_equal(s.lft_blocks_min, 1);
    assert_int_equal(s.max_lid, 0);

    summarize_ok(&f, 1, &s);
    assert_int_equal(s.lids, 22);

    /* Assigned LIDs: a port with LMC 2 at base 7 answers 7..10. */
    f.ports[cs_fabric_port(&f, 0, 0)].lid = 1;
    f.ports[cs_fabric_port(&f, 5, 1)].lid = 7;
    f.ports[cs_fabric_port(&f, 5, 1)].lmc = 2;
    f.ports[cs_fabric_port(&f, 7, 1)].lid = 9;
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.max_lid, 10);
    f.ports[cs_fabric_port(&f, 7, 1)].lid = 0xbfff;
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.max_lid, 0xbfff);
    cs_fabric_free(&f);
}

static void test_empty_and_switch_only(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_fabric_summary s;
    cs_fabric_init(&f);
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.switches, 0);
    assert_int_equal(s.hosts, 0);
    assert_int_equal(s.links, 0);
    assert_int_equal(s.levels, 0);
    assert_int_equal(s.leaves, 0);
    assert_int_equal(s.hosts_per_leaf_min, 0);
    assert_int_equal(s.hosts_per_leaf_max, 0);
    assert_int_equal(s.lids, 0);
    assert_int_equal(s.lft_blocks_min, 1);

    /* Two cabled switches and no CA: no leaf, so nothing is measured and both are
     * unreachable. */
    uint32_t a = add(&f, CS_NODE_SWITCH, 1, 4);
    uint32_t b = add(&f, CS_NODE_SWITCH, 2, 4);
    cable(&f, a, 1, b, 1);
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.switches, 2);
    assert_int_equal(s.levels, 0);
    assert_int_equal(s.unreachable_switches, 2);
    assert_int_equal(s.links, 1);
    assert_int_equal(s.switch_links, 1);
    assert_int_equal(s.lids, 2);
    cs_fabric_free(&f);
}

/* Many CAs sharing few system images: distinct count must be exact (hash set, not a guess). */
static void test_many_system_images(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t n = add(&f, CS_NODE_CA, 0x1000 + i, 1);
        /* 1000 servers with three HCAs each, plus GUID 0 images that collide in no table. */
        f.nodes[n].sysimg_guid = i < 2997 ? UINT64_C(0x5000000000000000) + (i % 999) * 4096 : 0;
    }
    struct cs_fabric_summary s;
    summarize_ok(&f, 0, &s);
    assert_int_equal(s.cas, 3000);
    assert_int_equal(s.hosts, 999 + 1);
    cs_fabric_free(&f);
}

/* Linear time: the 12-ary-4-tree (27648 nodes) summarizes in well under 100 ms. */
static void test_summary_is_fast(void **state)
{
    (void)state;
    struct cs_pgft_spec spec;
    assert_int_equal(cs_pgft_kary(&spec, 12, 4, NULL), 0);
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_generate(&f, &spec, NULL), 0);
    struct timespec t0, t1;
    struct cs_fabric_summary s;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    summarize_ok(&f, 0, &s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    print_message("12-ary-4-tree summarized in %.1f ms\n", ms);
    assert_true(ms < 1000.0);
    assert_int_equal(s.levels, 4);
    assert_int_equal(s.lids, 20736 + 6912);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_trees_lids_and_blocks),
        cmocka_unit_test(test_16_ary_3_tree),
        cmocka_unit_test(test_levels_match_tree_height),
        cmocka_unit_test(test_hosts_per_leaf_and_parallel_links),
        cmocka_unit_test(test_hand_built_fabric),
        cmocka_unit_test(test_empty_and_switch_only),
        cmocka_unit_test(test_many_system_images),
        cmocka_unit_test(test_summary_is_fast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
