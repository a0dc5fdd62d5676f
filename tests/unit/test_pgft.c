/* Fat-tree generator: counts from the research seeds, structure, numbering rules, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloudsm/fabric.h"
#include "cloudsm/topo_gen.h"
#include "testlib.h"

/* --- helpers --- */

static void parse_ok(struct cs_pgft_spec *s, const char *text, bool with_parallel)
{
    struct cs_error err = {{0}};
    int rc = cs_pgft_parse(s, text, with_parallel, &err);
    if (rc != 0)
        fail_msg("parse \"%s\": %s", text, err.msg);
}

static void generate_ok(struct cs_fabric *f, const struct cs_pgft_spec *s)
{
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    if (cs_pgft_generate(f, s, &err) != 0)
        fail_msg("generate: %s", err.msg);
}

/* Level of a generated node, read back from its GUID (hosts 0, switches l). */
static unsigned node_level(const struct cs_fabric *f, uint32_t n)
{
    const struct cs_node *node = &f->nodes[n];
    if (node->type == CS_NODE_CA)
        return 0;
    return (unsigned)((node->guid - CS_GUID_SWITCH_BASE) >> 32);
}

/* Count node types in the fabric itself (not in the counts struct). */
static void count_types(const struct cs_fabric *f, uint64_t *hosts, uint64_t *switches)
{
    *hosts = *switches = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        if (f->nodes[n].type == CS_NODE_CA)
            ++*hosts;
        else if (f->nodes[n].type == CS_NODE_SWITCH)
            ++*switches;
        else
            fail_msg("unexpected node type %u", f->nodes[n].type);
    }
}

static void expect_tree(const char *text, bool with_parallel, uint64_t hosts, uint64_t switches)
{
    struct cs_pgft_spec s;
    struct cs_pgft_counts c;
    struct cs_error err = {{0}};
    parse_ok(&s, text, with_parallel);
    if (cs_pgft_count(&s, &c, &err) != 0)
        fail_msg("count \"%s\": %s", text, err.msg);
    if (c.hosts != hosts || c.switches != switches)
        fail_msg("\"%s\": counted %" PRIu64 "/%" PRIu64 ", expected %" PRIu64 "/%" PRIu64, text,
                 c.hosts, c.switches, hosts, switches);

    struct cs_fabric f;
    generate_ok(&f, &s);
    uint64_t got_hosts, got_switches;
    count_types(&f, &got_hosts, &got_switches);
    if (got_hosts != hosts || got_switches != switches)
        fail_msg("\"%s\": generated %" PRIu64 "/%" PRIu64 ", expected %" PRIu64 "/%" PRIu64, text,
                 got_hosts, got_switches, hosts, switches);
    cs_fabric_free(&f);
}

/* --- counts from the seeds --- */

/* The four trees of the vSwitch papers (Paper V, Table 2, also used in Paper II; see
 * docs/references.md), and the 4-level tree of Paper V's Table 3 (6912 switches / 20736
 * nodes). */
static void test_counts_vswitch_paper(void **state)
{
    (void)state;
    expect_tree("2;18,18;1,18", false, 324, 36);
    expect_tree("2;18,36;1,18", false, 648, 54);
    expect_tree("3;18,18,18;1,18,18", false, 5832, 972);
    expect_tree("3;18,18,36;1,18,18", false, 11664, 1620);
    expect_tree("4;12,12,12,12;1,12,12,12", false, 20736, 6912);

    /* Per-level split of the big tree: 648 + 648 + 324 switches (vswitch spec line 298). */
    struct cs_pgft_spec s;
    struct cs_pgft_counts c;
    parse_ok(&s, "3;18,18,36;1,18,18", false);
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.per_level[1], 648);
    assert_int_equal(c.per_level[2], 648);
    assert_int_equal(c.per_level[3], 324);
    assert_int_equal(c.switch_ports, 36); /* built from 36-port switches (vswitch spec l. 291) */
}

/* Table I of the hybrid-reconfiguration paper (Paper III, docs/references.md): k-3-x-half = XGFT(3;
 * x*k, k, k; 1, k, k), k-3-x-full = XGFT(3; x*k, k, 2k; 1, k, k). */
static void test_counts_hybrid_table_1(void **state)
{
    (void)state;
    static const struct {
        unsigned k, x;
        bool full;
        uint64_t nodes, switches;
    } rows[] = {
        {8, 1, false, 512, 192},    {8, 1, true, 1024, 320},    {8, 2, false, 1024, 192},
        {8, 2, true, 2048, 320},    {8, 4, false, 2048, 192},   {8, 4, true, 4096, 320},
        {12, 1, false, 1728, 432},  {12, 1, true, 3456, 720},   {12, 2, false, 3456, 432},
        {12, 2, true, 6912, 720},   {16, 1, false, 4096, 768},  {16, 1, true, 8192, 1280},
        {16, 2, false, 8192, 768},  {16, 2, true, 16384, 1280}, {18, 1, false, 5832, 972},
        {18, 1, true, 11664, 1620},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[64];
        unsigned k = rows[i].k;
        snprintf(text, sizeof text, "3;%u,%u,%u;1,%u,%u", rows[i].x * k, k,
                 rows[i].full ? 2 * k : k, k, k);
        expect_tree(text, false, rows[i].nodes, rows[i].switches);
    }
}

/* Table 4 of the vSwitch simulation (Paper V, docs/references.md), rewritten in the standard
 * notation (the paper lists the tuples top-down). */
static void test_counts_vswitch_simulation_table_4(void **state)
{
    (void)state;
    expect_tree("2;4,8;1,4", false, 32, 12);
    expect_tree("2;8,8;1,8", false, 64, 16);
    expect_tree("3;4,4,8;1,4,4", false, 128, 80);
    expect_tree("2;16,16;1,16", false, 256, 32);
    expect_tree("3;8,8,8;1,8,8", false, 512, 192);
    expect_tree("3;8,8,16;1,8,8", false, 1024, 320);
}

static void test_kary_spec(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_kary(&s, 16, 3, NULL), 0);
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    /* 16-ary-3-tree: 4096 hosts, 768 switches of 32 ports (the OpenSM speed anchor of
     * docs/routing/ftree.md). */
    assert_int_equal(c.hosts, 4096);
    assert_int_equal(c.switches, 768);
    assert_int_equal(c.switch_ports, 32);
    assert_int_equal(c.host_ports, 1);
    /* Every host has one cable up; each of the 2 inner switch levels has 256 * 16 cables up. */
    assert_int_equal(c.links, 4096 + 2 * 256 * 16);

    char buf[64];
    cs_pgft_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "XGFT(3;16,16,16;1,16,16)");

    struct cs_error err = {{0}};
    assert_int_equal(cs_pgft_kary(&s, 4, 0, &err), -1);
    assert_non_null(strstr(err.msg, "levels"));
    assert_int_equal(cs_pgft_kary(&s, 4, CS_PGFT_MAX_LEVELS + 1, &err), -1);
    assert_int_equal(cs_pgft_kary(&s, 0, 3, &err), -1);
}

/* The 12-ary-4-tree is the largest seed tree; generating it must be cheap enough to do on every
 * CLI call (budget 100 ms; asserted loosely here because sanitizer builds run slower). */
static void test_generate_12_ary_4_tree_is_fast(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    assert_int_equal(cs_pgft_kary(&s, 12, 4, NULL), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct cs_fabric f;
    generate_ok(&f, &s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    print_message("12-ary-4-tree generated in %.1f ms\n", ms);
    assert_true(ms < 1000.0);
    assert_int_equal(f.num_nodes, 20736 + 6912);
    /* Reserved exactly: no slack beyond the node and port slots used. */
    assert_int_equal(f.num_port_slots, 20736 * 2 + 6912 * 25);
    cs_fabric_free(&f);
}

/* --- structure --- */

/* Every cable joins adjacent levels; every switch has exactly m_l*p_l cables down on ports
 * 1..m_l*p_l and w_{l+1}*p_{l+1} up on the ports right after; hosts use all w_1*p_1 ports. */
static void check_structure(const char *text, bool with_parallel, unsigned hosts_per_leaf)
{
    struct cs_pgft_spec s;
    parse_ok(&s, text, with_parallel);
    s.hosts_per_leaf = hosts_per_leaf;
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    struct cs_fabric f;
    generate_ok(&f, &s);
    unsigned kept = hosts_per_leaf ? hosts_per_leaf : s.m[0];

    uint64_t cables = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        const struct cs_node *node = &f.nodes[n];
        unsigned l = node_level(&f, n);
        assert_true(l <= s.levels);
        unsigned down_ports = l == 0 ? 0 : s.m[l - 1] * s.p[l - 1];
        unsigned up_ports = l == s.levels ? 0 : s.w[l] * s.p[l];
        assert_int_equal(node->num_ports, l == 0 ? c.host_ports : c.switch_ports);
        for (unsigned port = 1; port <= node->num_ports; port++) {
            uint32_t peer = peer_node(&f, n, port);
            if (peer == CS_NONE) {
                /* Only leaf slots of hosts that were left out, and ports beyond the need. */
                bool missing_host = l == 1 && port <= down_ports && (port - 1) / s.p[0] >= kept;
                if (!missing_host && port <= down_ports + up_ports)
                    fail_msg("%s: node %u port %u unconnected", text, n, port);
                continue;
            }
            unsigned pl = node_level(&f, peer);
            if (port <= down_ports)
                assert_int_equal(pl + 1, l);
            else if (port <= down_ports + up_ports)
                assert_int_equal(pl, l + 1);
            else
                fail_msg("%s: node %u port %u beyond the used ports is cabled", text, n, port);
            if (l < pl)
                cables++;
            /* Width 4, EDR on every cable, both ends. */
            assert_int_equal(f.ports[cs_fabric_port(&f, n, port)].width, 4);
            assert_int_equal(f.ports[cs_fabric_port(&f, n, port)].speed, CS_SPEED_EDR);
        }
    }
    assert_int_equal(cables, c.links);
    cs_fabric_free(&f);
}

static void test_structure(void **state)
{
    (void)state;
    check_structure("2;4,8;1,4", false, 0);
    check_structure("3;4,4,8;1,4,4", false, 0);
    check_structure("3;3,4,2;2,3,2", false, 0);
    check_structure("3;4,2,3;2,2,2;1,2,3", true, 0);
    check_structure("2;4,4;1,2;1,2", true, 3);
    check_structure("3;5,2,2;2,2,1;2,1,3", true, 2);
    check_structure("1;6;3;2", true, 0);
}

/* Parallel cables to one neighbour sit on consecutive ports at both ends, and the peer of a
 * group member j is member j of the peer's group. */
static void test_parallel_links_consecutive(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    parse_ok(&s, "3;4,2,3;2,2,2;2,3,2", true);
    struct cs_fabric f;
    generate_ok(&f, &s);
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        unsigned l = node_level(&f, n);
        unsigned down = l == 0 ? 0 : s.m[l - 1] * s.p[l - 1];
        unsigned up = l == s.levels ? 0 : s.w[l] * s.p[l];
        /* Down groups have p_l members, up groups p_{l+1}. */
        for (unsigned port = 1; port <= down + up; port++) {
            unsigned group = port <= down ? s.p[l - 1] : s.p[l];
            unsigned first = port <= down ? 1 : down + 1;
            unsigned member = (port - first) % group;
            uint32_t leader = peer_node(&f, n, port - member);
            assert_int_equal(peer_node(&f, n, port), leader);
            assert_int_equal(peer_port(&f, n, port), peer_port(&f, n, port - member) + member);
        }
    }
    cs_fabric_free(&f);
}

struct expected_link {
    const char *node;
    unsigned port;
    const char *peer; /* NULL: unconnected */
    unsigned peer_port;
};

static uint32_t find_by_desc(const struct cs_fabric *f, const char *desc)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (strcmp(f->nodes[n].desc, desc) == 0)
            return n;
    fail_msg("no node '%s'", desc);
    return CS_NONE;
}

static void check_port_table(const struct cs_fabric *f, const struct expected_link *table,
                             size_t rows)
{
    for (size_t i = 0; i < rows; i++) {
        uint32_t n = find_by_desc(f, table[i].node);
        uint32_t peer = peer_node(f, n, table[i].port);
        if (!table[i].peer) {
            if (peer != CS_NONE)
                fail_msg("%s port %u should be unconnected", table[i].node, table[i].port);
            continue;
        }
        if (peer == CS_NONE || strcmp(f->nodes[peer].desc, table[i].peer) != 0 ||
            peer_port(f, n, table[i].port) != table[i].peer_port)
            fail_msg("%s port %u: expected %s port %u, got %s port %u", table[i].node,
                     table[i].port, table[i].peer, table[i].peer_port,
                     peer == CS_NONE ? "nothing" : f->nodes[peer].desc,
                     peer_port(f, n, table[i].port));
    }
}

/* PGFT(2;2,2;1,2;1,2), worked out by hand from the rules (the same table is drawn in
 * docs/topology-generators.md): 4 hosts, 2 leaves of 2 hosts, 2 roots, 2 parallel cables from
 * each leaf to each root. Leaves need 2 down + 2*2 up = 6 ports, roots 2*2 = 4: all get 6. */
static void test_port_table_pgft_2_2_2(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    parse_ok(&s, "2;2,2;1,2;1,2", true);
    struct cs_fabric f;
    generate_ok(&f, &s);
    assert_int_equal(f.num_nodes, 8);
    static const struct expected_link table[] = {
        {"host-0", 1, "sw-L1-0", 1},  {"host-1", 1, "sw-L1-0", 2},  {"host-2", 1, "sw-L1-1", 1},
        {"host-3", 1, "sw-L1-1", 2},  {"sw-L1-0", 3, "sw-L2-0", 1}, {"sw-L1-0", 4, "sw-L2-0", 2},
        {"sw-L1-0", 5, "sw-L2-1", 1}, {"sw-L1-0", 6, "sw-L2-1", 2}, {"sw-L1-1", 3, "sw-L2-0", 3},
        {"sw-L1-1", 4, "sw-L2-0", 4}, {"sw-L1-1", 5, "sw-L2-1", 3}, {"sw-L1-1", 6, "sw-L2-1", 4},
        {"sw-L2-0", 5, NULL, 0},      {"sw-L2-0", 6, NULL, 0},      {"sw-L2-1", 5, NULL, 0},
        {"sw-L2-1", 6, NULL, 0},
    };
    check_port_table(&f, table, sizeof table / sizeof table[0]);
    for (uint32_t n = 0; n < f.num_nodes; n++)
        assert_int_equal(f.nodes[n].num_ports, f.nodes[n].type == CS_NODE_CA ? 1 : 6);
    cs_fabric_free(&f);
}

/* PGFT(1;3;2;2): multi-homed hosts (w1 = 2) with 2 parallel cables to each of 2 switches.
 * Host port = 1 + switch*2 + j; switch port = 1 + host*2 + j. */
static void test_port_table_dual_homed_hosts(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    parse_ok(&s, "1;3;2;2", true);
    struct cs_fabric f;
    generate_ok(&f, &s);
    static const struct expected_link table[] = {
        {"host-0", 1, "sw-L1-0", 1}, {"host-0", 2, "sw-L1-0", 2}, {"host-0", 3, "sw-L1-1", 1},
        {"host-0", 4, "sw-L1-1", 2}, {"host-2", 1, "sw-L1-0", 5}, {"host-2", 2, "sw-L1-0", 6},
        {"host-2", 3, "sw-L1-1", 5}, {"host-2", 4, "sw-L1-1", 6}, {"sw-L1-1", 3, "host-1", 3},
        {"sw-L1-1", 4, "host-1", 4},
    };
    check_port_table(&f, table, sizeof table / sizeof table[0]);
    cs_fabric_free(&f);
}

/* A 3-level XGFT with w1 = 1, checked against the label rule by hand for a few nodes:
 * XGFT(3;2,3,2;1,2,2): leaves (a3,a2,b1) = 2*3*1 = 6, level 2 (a3,b2,b1) = 2*2 = 4, roots
 * (b3,b2,b1) = 4. Leaf 5 = (a3=1,a2=2): its parents are level-2 (1,b2) = nodes 2,3, where it is
 * child a2 = 2 (port 3); level-2 node 3 = (a3=1,b2=1) has roots (b3,1) = 1 and 3, as child 1. */
static void test_label_rule_three_levels(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    parse_ok(&s, "3;2,3,2;1,2,2", false);
    struct cs_fabric f;
    generate_ok(&f, &s);
    /* Leaves: 2 down + 2 up = 4; level 2: 3 down + 2 up = 5; roots: 2 down. */
    static const struct expected_link table[] = {
        {"host-11", 1, "sw-L1-5", 2}, {"sw-L1-5", 3, "sw-L2-2", 3}, {"sw-L1-5", 4, "sw-L2-3", 3},
        {"sw-L1-0", 3, "sw-L2-0", 1}, {"sw-L1-0", 4, "sw-L2-1", 1}, {"sw-L2-3", 4, "sw-L3-1", 2},
        {"sw-L2-3", 5, "sw-L3-3", 2}, {"sw-L2-0", 4, "sw-L3-0", 1}, {"sw-L2-0", 5, "sw-L3-2", 1},
        {"sw-L3-2", 3, NULL, 0},
    };
    check_port_table(&f, table, sizeof table / sizeof table[0]);
    cs_fabric_free(&f);
}

static void test_guids_and_descriptions(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    parse_ok(&s, "3;4,2,3;2,2,2;1,2,3", true);
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    struct cs_fabric f;
    generate_ok(&f, &s);
    uint32_t n = 0;
    char want[CS_DESC_MAX + 1];
    for (uint64_t i = 0; i < c.hosts; i++, n++) {
        const struct cs_node *node = &f.nodes[n];
        uint64_t guid = UINT64_C(0x0010000000000000) + (i << 8);
        assert_int_equal(node->type, CS_NODE_CA);
        assert_int_equal(node->guid, guid);
        assert_int_equal(node->sysimg_guid, guid);
        for (unsigned p = 1; p <= node->num_ports; p++)
            assert_int_equal(f.ports[cs_fabric_port(&f, n, p)].guid, guid + p);
        snprintf(want, sizeof want, "host-%" PRIu64, i);
        assert_string_equal(node->desc, want);
        assert_int_equal(f.ports[cs_fabric_port(&f, n, 1)].lid, 0);
    }
    for (unsigned l = 1; l <= s.levels; l++)
        for (uint64_t j = 0; j < c.per_level[l]; j++, n++) {
            const struct cs_node *node = &f.nodes[n];
            uint64_t guid = UINT64_C(0x0020000000000000) + ((uint64_t)l << 32) + j;
            assert_int_equal(node->type, CS_NODE_SWITCH);
            assert_int_equal(node->guid, guid);
            assert_int_equal(f.ports[cs_fabric_port(&f, n, 0)].guid, guid);
            assert_int_equal(f.ports[cs_fabric_port(&f, n, 0)].lid, 0);
            snprintf(want, sizeof want, "sw-L%u-%" PRIu64, l, j);
            assert_string_equal(node->desc, want);
        }
    assert_int_equal(n, f.num_nodes);

    /* No GUID is used twice (node or port). */
    struct cs_key_index ix;
    struct cs_error err = {{0}};
    assert_int_equal(cs_key_index_nodes(&ix, &f, &err), 0);
    cs_key_index_free(&ix);
    assert_int_equal(cs_key_index_ports(&ix, &f, &err), 0);
    cs_key_index_free(&ix);
    cs_fabric_free(&f);
}

/* Hosts of one leaf are consecutive; with hosts_per_leaf the numbering stays compact. */
static void test_hosts_per_leaf(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    parse_ok(&s, "2;4,4;1,2;1,2", true);
    s.hosts_per_leaf = 3;
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.hosts, 12);
    assert_int_equal(c.switches, 4 + 2);
    assert_int_equal(c.per_level[0], 12);
    assert_int_equal(c.links, 12 + 4 * 2 * 2);

    struct cs_fabric f;
    generate_ok(&f, &s);
    uint64_t hosts, switches;
    count_types(&f, &hosts, &switches);
    assert_int_equal(hosts, 12);
    assert_int_equal(switches, 6);
    for (uint32_t i = 0; i < 12; i++) {
        char leaf[16];
        snprintf(leaf, sizeof leaf, "sw-L1-%u", i / 3);
        uint32_t peer = peer_node(&f, i, 1);
        assert_string_equal(f.nodes[peer].desc, leaf);
        assert_int_equal(peer_port(&f, i, 1), i % 3 + 1);
    }
    /* The leaf keeps its port numbering: port 4 (the fourth host slot) is free, up ports
     * start at 5 as without hosts_per_leaf. */
    uint32_t leaf0 = find_by_desc(&f, "sw-L1-0");
    assert_int_equal(peer_node(&f, leaf0, 4), CS_NONE);
    assert_string_equal(f.nodes[peer_node(&f, leaf0, 5)].desc, "sw-L2-0");
    assert_string_equal(f.nodes[peer_node(&f, leaf0, 7)].desc, "sw-L2-1");

    struct cs_error err = {{0}};
    s.hosts_per_leaf = 5;
    assert_int_equal(cs_pgft_count(&s, &c, &err), -1);
    assert_non_null(strstr(err.msg, "hosts per leaf"));
    cs_fabric_free(&f);
}

static void test_radix(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    struct cs_pgft_counts c;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pgft_kary(&s, 4, 2, NULL), 0);
    s.radix = 36;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(c.switch_ports, 36);
    struct cs_fabric f;
    generate_ok(&f, &s);
    for (uint32_t n = 0; n < f.num_nodes; n++)
        if (f.nodes[n].type == CS_NODE_SWITCH)
            assert_int_equal(f.nodes[n].num_ports, 36);
    cs_fabric_free(&f);

    s.radix = 7;
    assert_int_equal(cs_pgft_count(&s, &c, &err), -1);
    assert_non_null(strstr(err.msg, "radix 7"));
    assert_non_null(strstr(err.msg, "8 ports"));
    s.radix = 255;
    assert_int_equal(cs_pgft_count(&s, &c, &err), -1);
    assert_non_null(strstr(err.msg, "254"));
}

static void test_deterministic(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    parse_ok(&s, "3;4,2,3;2,2,2;1,2,3", true);
    s.hosts_per_leaf = 3;
    struct cs_fabric a, b;
    generate_ok(&a, &s);
    generate_ok(&b, &s);
    struct cs_error why = {{0}};
    if (!cs_fabric_equal(&a, &b, &why))
        fail_msg("two generations differ: %s", why.msg);
    cs_fabric_free(&a);
    cs_fabric_free(&b);
}

/* In a k-ary-n-tree, hosts whose base-k labels first differ in digit d (0 = least significant)
 * meet first at level d + 1: they share an ancestor there and none below. Derived from the
 * cabling alone, by walking up links. */
static void ancestors_per_level(const struct cs_fabric *f, uint32_t host, unsigned levels,
                                bool *seen /* [levels+1][num_nodes] */)
{
    uint32_t frontier[4096], next[4096];
    size_t count = 1, next_count;
    frontier[0] = host;
    for (unsigned l = 1; l <= levels; l++) {
        next_count = 0;
        for (size_t i = 0; i < count; i++) {
            const struct cs_node *node = &f->nodes[frontier[i]];
            for (unsigned p = 1; p <= node->num_ports; p++) {
                uint32_t peer = peer_node(f, frontier[i], p);
                if (peer == CS_NONE || node_level(f, peer) != l)
                    continue;
                bool *mark = &seen[(size_t)l * f->num_nodes + peer];
                if (!*mark) {
                    *mark = true;
                    assert_true(next_count < 4096);
                    next[next_count++] = peer;
                }
            }
        }
        memcpy(frontier, next, next_count * sizeof *next);
        count = next_count;
    }
}

static void check_common_ancestor(unsigned k, unsigned n)
{
    struct cs_pgft_spec s;
    assert_int_equal(cs_pgft_kary(&s, k, n, NULL), 0);
    struct cs_fabric f;
    generate_ok(&f, &s);
    uint32_t hosts = 1;
    for (unsigned i = 0; i < n; i++)
        hosts *= k;
    size_t per_host = (size_t)(n + 1) * f.num_nodes;
    bool *seen = calloc((size_t)hosts * per_host, sizeof *seen);
    assert_non_null(seen);
    for (uint32_t h = 0; h < hosts; h++)
        ancestors_per_level(&f, h, n, seen + h * per_host);

    for (uint32_t x = 0; x < hosts; x++)
        for (uint32_t y = x + 1; y < hosts; y++) {
            unsigned differing = 0;
            for (unsigned d = 0, px = x, py = y; d < n; d++, px /= k, py /= k)
                if (px % k != py % k)
                    differing = d;
            for (unsigned l = 1; l <= n; l++) {
                bool common = false;
                for (uint32_t v = 0; v < f.num_nodes && !common; v++)
                    common = seen[x * per_host + (size_t)l * f.num_nodes + v] &&
                             seen[y * per_host + (size_t)l * f.num_nodes + v];
                if (common != (l >= differing + 1))
                    fail_msg("%u-ary-%u-tree hosts %u and %u: common ancestor at level %u is %d", k,
                             n, x, y, l, common);
            }
        }
    free(seen);
    cs_fabric_free(&f);
}

static void test_kary_common_ancestor(void **state)
{
    (void)state;
    check_common_ancestor(2, 4);
    check_common_ancestor(3, 3);
    check_common_ancestor(4, 2);
}

/* --- parsing, formatting, errors --- */

static void test_parse_and_format(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    char buf[128];
    parse_ok(&s, " 3 ; 18 , 18,36 ;1, 18 ,18 ", false);
    assert_int_equal(s.levels, 3);
    assert_int_equal(s.m[2], 36);
    assert_int_equal(s.w[0], 1);
    assert_int_equal(s.p[0], 1);
    assert_int_equal(s.p[2], 1);
    assert_int_equal(s.hosts_per_leaf, 0);
    assert_int_equal(s.radix, 0);
    cs_pgft_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "XGFT(3;18,18,36;1,18,18)");

    parse_ok(&s, "2;4,4;1,2;1,2", true);
    assert_int_equal(s.p[1], 2);
    cs_pgft_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "PGFT(2;4,4;1,2;1,2)");

    /* A PGFT with every p_i = 1 is an XGFT and is named so. */
    parse_ok(&s, "2;4,4;1,2;1,1", true);
    cs_pgft_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "XGFT(2;4,4;1,2)");

    /* Truncation is safe and NUL-terminated. */
    char tiny[6];
    parse_ok(&s, "3;18,18,36;1,18,18", false);
    cs_pgft_format(&s, tiny, sizeof tiny);
    assert_string_equal(tiny, "XGFT(");
}

static void expect_parse_error(const char *text, bool with_parallel, const char *needle)
{
    struct cs_pgft_spec s;
    memset(&s, 0x5a, sizeof s);
    struct cs_pgft_spec before = s;
    struct cs_error err = {{0}};
    if (cs_pgft_parse(&s, text, with_parallel, &err) != -1)
        fail_msg("\"%s\" should not parse", text ? text : "(null)");
    /* The message shows the expected form, and says what is wrong. */
    const char *form = with_parallel ? "h;m1,..,mh;w1,..,wh;p1,..,ph" : "h;m1,..,mh;w1,..,wh";
    if (!strstr(err.msg, form) || !strstr(err.msg, needle))
        fail_msg("\"%s\": message lacks \"%s\" or \"%s\": %s", text ? text : "(null)", form, needle,
                 err.msg);
    assert_memory_equal(&s, &before, sizeof s); /* untouched on failure */
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_parse_error("", false, "ends");
    expect_parse_error(NULL, false, "missing");
    expect_parse_error("3;18,18;1,18,18", false, "fewer");
    expect_parse_error("2;18,18,18;1,18", false, "more");
    expect_parse_error("3;18,x,36;1,18,18", false, "number");
    expect_parse_error("3;18,-1,36;1,18,18", false, "number");
    expect_parse_error("3;18,0,36;1,18,18", false, "at least 1");
    expect_parse_error("0;;", false, "at least 1");
    expect_parse_error("9;1,1,1,1,1,1,1,1,1;1,1,1,1,1,1,1,1,1", false, "larger than 8");
    expect_parse_error("3;18,18,36;1,18,18 junk", false, "trailing");
    expect_parse_error("3;18,18,36;1,18,18;1,1,1", false, "too many");
    expect_parse_error("3;18,18,36;1,18,18", true, "ends");
    expect_parse_error("2;4,4;1,2;1,2;", true, "too many");
    expect_parse_error("2;4,4;1,2;1,99999999999", true, "too large");
    expect_parse_error("2 4,4;1,2", false, "';'");
    expect_parse_error("2;4,,4;1,2", false, "number");
    expect_parse_error("2;4,4;1,2,", false, "more");
}

static void expect_count_error(const struct cs_pgft_spec *s, const char *needle)
{
    struct cs_pgft_counts c;
    struct cs_error err = {{0}};
    if (cs_pgft_count(s, &c, &err) != -1)
        fail_msg("spec should be rejected (%s)", needle);
    if (!strstr(err.msg, needle))
        fail_msg("message lacks \"%s\": %s", needle, err.msg);
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_generate(&f, s, &err), -1);
    assert_int_equal(f.num_nodes, 0);
    cs_fabric_free(&f);
}

static void test_count_errors(void **state)
{
    (void)state;
    struct cs_pgft_spec s;

    /* 24-ary-4-tree: 331776 hosts, far beyond one subnet. */
    assert_int_equal(cs_pgft_kary(&s, 24, 4, NULL), 0);
    expect_count_error(&s, "49151");
    expect_count_error(&s, "LIDs");
    expect_count_error(&s, "387072"); /* 331776 hosts + 4 * 24^3 = 55296 switches */

    /* 128-ary-2-tree needs 256-port switches. */
    assert_int_equal(cs_pgft_kary(&s, 128, 2, NULL), 0);
    expect_count_error(&s, "256 ports");

    /* Hosts with more than 254 ports. */
    parse_ok(&s, "1;2;127;3", true);
    expect_count_error(&s, "381 ports");

    /* A single entry beyond any port count. */
    parse_ok(&s, "2;300,2;1,2", false);
    expect_count_error(&s, "m1 = 300");

    /* Hand-made specs the parser would refuse. */
    parse_ok(&s, "2;4,4;1,4", false);
    s.levels = 0;
    expect_count_error(&s, "levels");
    s.levels = CS_PGFT_MAX_LEVELS + 1;
    expect_count_error(&s, "levels");
    parse_ok(&s, "2;4,4;1,4", false);
    s.w[1] = 0;
    expect_count_error(&s, "w2 is 0");
    parse_ok(&s, "2;4,4;1,4", false);
    s.p[0] = 0;
    expect_count_error(&s, "p1 is 0");

    /* Counts that overflow 64 bits before the LID limit can even be checked. */
    parse_ok(&s, "8;127,127,127,127,127,127,127,127;127,127,127,127,127,127,127,127", false);
    expect_count_error(&s, "too large");

    /* The largest seed tree fits; one level more does not. */
    assert_int_equal(cs_pgft_kary(&s, 12, 4, NULL), 0);
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(&s, &c, NULL), 0);
    assert_int_equal(cs_pgft_kary(&s, 12, 5, NULL), 0);
    expect_count_error(&s, "49151");
}

static void test_generate_needs_empty_fabric(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    assert_int_equal(cs_pgft_kary(&s, 2, 2, NULL), 0);
    struct cs_fabric f;
    generate_ok(&f, &s);
    struct cs_error err = {{0}};
    uint32_t before = f.num_nodes;
    assert_int_equal(cs_pgft_generate(&f, &s, &err), -1);
    assert_non_null(strstr(err.msg, "empty"));
    assert_int_equal(f.num_nodes, before);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_vswitch_paper),
        cmocka_unit_test(test_counts_hybrid_table_1),
        cmocka_unit_test(test_counts_vswitch_simulation_table_4),
        cmocka_unit_test(test_kary_spec),
        cmocka_unit_test(test_generate_12_ary_4_tree_is_fast),
        cmocka_unit_test(test_structure),
        cmocka_unit_test(test_parallel_links_consecutive),
        cmocka_unit_test(test_port_table_pgft_2_2_2),
        cmocka_unit_test(test_port_table_dual_homed_hosts),
        cmocka_unit_test(test_label_rule_three_levels),
        cmocka_unit_test(test_guids_and_descriptions),
        cmocka_unit_test(test_hosts_per_leaf),
        cmocka_unit_test(test_radix),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_kary_common_ancestor),
        cmocka_unit_test(test_parse_and_format),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_count_errors),
        cmocka_unit_test(test_generate_needs_empty_fabric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
