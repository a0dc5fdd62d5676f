/* minhop: small fabrics whose tables are worked out by hand from OpenSM's rules (shortest paths;
 * fewest routes so far, lowest port on a tie; end ports in order of switch load, then
 * byte-swapped switch GUID; switch LIDs not counted), balance and shortest paths on fat-trees,
 * determinism, fabrics with a router, an island, a back-to-back CA pair, a looped cable, LMC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "route_fixtures.h"

/* s0 - s1 - s2, one CA each on port 1. */
static void test_line(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t s[3], h[3];
    for (unsigned i = 0; i < 3; i++)
        s[i] = fx_switch(&f, 0x10 + i, 4, "line");
    for (unsigned i = 0; i < 3; i++) {
        h[i] = fx_ca(&f, 0x100 + 0x10 * i, "host");
        fx_link(&f, h[i], 1, s[i], 1);
    }
    fx_link(&f, s[0], 3, s[1], 3);
    fx_link(&f, s[1], 4, s[2], 3);
    fx_lids(&f, 0);
    struct cs_lfts t;
    rt_route("minhop", &f, NULL, &t);
    static const uint8_t expect_ca[3][3] = {{1, 3, 3}, {3, 1, 4}, {3, 3, 1}};
    static const uint8_t expect_sw[3][3] = {{0, 3, 3}, {3, 0, 4}, {3, 3, 0}};
    for (unsigned a = 0; a < 3; a++)
        for (unsigned b = 0; b < 3; b++) {
            assert_int_equal(rt_port(&t, &f, s[a], fx_lid(&f, h[b], 1)), expect_ca[a][b]);
            assert_int_equal(rt_port(&t, &f, s[a], fx_lid(&f, s[b], 0)), expect_sw[a][b]);
        }
    rt_assert_shortest(&f, &t, false);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* A ring r0..r3 (r_i port 3 to r_(i+1) port 4); one CA per switch on port 1, and a second on r2
 * port 2. r2 has the most end ports, so its CAs are routed first; then r0, r1, r3 (byte-swapped
 * GUIDs 0x10..0x13 keep that order). Opposite switches have two shortest paths. */
static void test_ring_counters_and_ties(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t r[4], h[4];
    for (unsigned i = 0; i < 4; i++)
        r[i] = fx_switch(&f, 0x10 + i, 4, "ring");
    for (unsigned i = 0; i < 4; i++) {
        h[i] = fx_ca(&f, 0x100 + 0x10 * i, "host");
        fx_link(&f, h[i], 1, r[i], 1);
    }
    uint32_t h2b = fx_ca(&f, 0x200, "host");
    fx_link(&f, h2b, 1, r[2], 2);
    for (unsigned i = 0; i < 4; i++)
        fx_link(&f, r[i], 3, r[(i + 1) % 4], 4);
    fx_lids(&f, 0);
    struct cs_lfts t;
    rt_route("minhop", &f, NULL, &t);

    /* r0: h2 and h2b both 2 hops away, through port 3 (r1) or 4 (r3): h2 takes 3 (both
     * unused, lowest port), h2b takes 4 (3 has one route). Then h1 -> 3, h3 -> 4. */
    assert_int_equal(rt_port(&t, &f, r[0], fx_lid(&f, h[2], 1)), 3);
    assert_int_equal(rt_port(&t, &f, r[0], fx_lid(&f, h2b, 1)), 4);
    assert_int_equal(rt_port(&t, &f, r[0], fx_lid(&f, h[1], 1)), 3);
    assert_int_equal(rt_port(&t, &f, r[0], fx_lid(&f, h[3], 1)), 4);
    /* r2's switch LID: ports 3 and 4 carry 2 routes each: the lower. Had the switch LID of r1
     * (routed before, through port 3 only) been counted, port 4 would win. */
    assert_int_equal(rt_port(&t, &f, r[0], fx_lid(&f, r[2], 0)), 3);
    /* r1 (3 -> r2, 4 -> r0): h2, h2b direct through 3; h0 through 4; h3 is 2 hops either way,
     * port 3 has 2 routes, port 4 one: 4. r3's switch LID: 2 and 2: 3. */
    assert_int_equal(rt_port(&t, &f, r[1], fx_lid(&f, h[3], 1)), 4);
    assert_int_equal(rt_port(&t, &f, r[1], fx_lid(&f, r[3], 0)), 3);
    /* r3 (3 -> r0, 4 -> r2): h1 either way; port 3 has 1 route (h0), port 4 two: 3. */
    assert_int_equal(rt_port(&t, &f, r[3], fx_lid(&f, h[1], 1)), 3);
    /* r2 (3 -> r3, 4 -> r1): h0 either way, nothing routed yet: 3. r0's LID: 3 has h0 and h3,
     * 4 has h1: 4. */
    assert_int_equal(rt_port(&t, &f, r[2], fx_lid(&f, h[0], 1)), 3);
    assert_int_equal(rt_port(&t, &f, r[2], fx_lid(&f, r[0], 0)), 4);
    rt_assert_shortest(&f, &t, false);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* S reaches the leaves A and B through M1 (port 1) or M2 (port 2). A's GUID is 0x0102, B's
 * 0x0201: OpenSM's switch table is ordered by the GUID in network byte order, read as a host
 * integer, so B (0x0102000000000000) comes before A (0x0201000000000000). */
static void build_two_leaves(struct cs_fabric *f, unsigned cas_on_a, uint32_t *s, uint32_t *a_ca,
                             uint32_t *b_ca)
{
    cs_fabric_init(f);
    *s = fx_switch(f, 0x1, 2, "S");
    uint32_t m1 = fx_switch(f, 0x2, 3, "M1"), m2 = fx_switch(f, 0x3, 3, "M2");
    uint32_t a = fx_switch(f, 0x0102, 4, "A"), b = fx_switch(f, 0x0201, 4, "B");
    fx_link(f, *s, 1, m1, 1);
    fx_link(f, *s, 2, m2, 1);
    fx_link(f, a, 1, m1, 2);
    fx_link(f, a, 2, m2, 2);
    fx_link(f, b, 1, m1, 3);
    fx_link(f, b, 2, m2, 3);
    for (unsigned i = 0; i < cas_on_a; i++) {
        a_ca[i] = fx_ca(f, 0x1000 + 0x10 * i, "a");
        fx_link(f, a_ca[i], 1, a, 3 + i);
    }
    *b_ca = fx_ca(f, 0x2000, "b");
    fx_link(f, *b_ca, 1, b, 3);
    fx_lids(f, 0);
}

static void test_order_by_load_then_swapped_guid(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t s, a_ca[2], b_ca;
    struct cs_lfts t;

    /* One CA each: B's first (swapped GUID order), so B's CA gets port 1, A's port 2. */
    build_two_leaves(&f, 1, &s, a_ca, &b_ca);
    rt_route("minhop", &f, NULL, &t);
    assert_int_equal(rt_port(&t, &f, s, fx_lid(&f, b_ca, 1)), 1);
    assert_int_equal(rt_port(&t, &f, s, fx_lid(&f, a_ca[0], 1)), 2);
    cs_lfts_free(&t);
    cs_fabric_free(&f);

    /* Two CAs on A: A is loaded more and goes first (ports 1, 2); B's CA: 1 and 1, port 1. */
    build_two_leaves(&f, 2, &s, a_ca, &b_ca);
    rt_route("minhop", &f, NULL, &t);
    assert_int_equal(rt_port(&t, &f, s, fx_lid(&f, a_ca[0], 1)), 1);
    assert_int_equal(rt_port(&t, &f, s, fx_lid(&f, a_ca[1], 1)), 2);
    assert_int_equal(rt_port(&t, &f, s, fx_lid(&f, b_ca, 1)), 1);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* Two leaves with 4 CAs each (ports 1-4), each with two parallel cables to one spine: leaf
 * ports 5, 6 to spine ports 1, 2 (L0) and 3, 4 (L1). The routes alternate over the cables. */
static void test_parallel_links(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t l0 = fx_switch(&f, 0x10, 6, "L0"), l1 = fx_switch(&f, 0x11, 6, "L1");
    uint32_t sp = fx_switch(&f, 0x20, 4, "S");
    uint32_t c0[4], c1[4];
    for (unsigned i = 0; i < 4; i++) {
        c0[i] = fx_ca(&f, 0x100 + 0x10 * i, "c0");
        c1[i] = fx_ca(&f, 0x200 + 0x10 * i, "c1");
        fx_link(&f, c0[i], 1, l0, 1 + i);
        fx_link(&f, c1[i], 1, l1, 1 + i);
    }
    fx_link(&f, l0, 5, sp, 1);
    fx_link(&f, l0, 6, sp, 2);
    fx_link(&f, l1, 5, sp, 3);
    fx_link(&f, l1, 6, sp, 4);
    fx_lids(&f, 0);
    struct cs_lfts t;
    rt_route("minhop", &f, NULL, &t);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(rt_port(&t, &f, l0, fx_lid(&f, c1[i], 1)), 5 + i % 2);
        assert_int_equal(rt_port(&t, &f, l1, fx_lid(&f, c0[i], 1)), 5 + i % 2);
        assert_int_equal(rt_port(&t, &f, sp, fx_lid(&f, c0[i], 1)), 1 + i % 2);
        assert_int_equal(rt_port(&t, &f, sp, fx_lid(&f, c1[i], 1)), 3 + i % 2);
    }
    rt_assert_shortest(&f, &t, false);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* Switch A: port 1 a CA, port 2 a router, port 3 to switch B, ports 4 and 5 cabled to each
 * other. B: port 1 a CA. An island: switch C with a CA. Two CAs cabled back to back. */
static void test_router_island_and_odd_cables(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err = {{0}};
    cs_fabric_init(&f);
    uint32_t a = fx_switch(&f, 0x10, 5, "A"), b = fx_switch(&f, 0x11, 3, "B");
    uint32_t c = fx_switch(&f, 0x12, 3, "C");
    uint32_t ha = fx_ca(&f, 0x100, "ha"), hb = fx_ca(&f, 0x110, "hb"), hc = fx_ca(&f, 0x120, "hc");
    uint32_t rt = cs_fabric_add_node(&f, CS_NODE_ROUTER, 0x300, 1, "router", &err);
    assert_true(rt != CS_NONE);
    uint32_t x = fx_ca(&f, 0x400, "x"), y = fx_ca(&f, 0x410, "y");
    fx_link(&f, ha, 1, a, 1);
    fx_link(&f, rt, 1, a, 2);
    fx_link(&f, a, 3, b, 3);
    fx_link(&f, a, 4, a, 5);
    fx_link(&f, hb, 1, b, 1);
    fx_link(&f, hc, 1, c, 1);
    fx_link(&f, x, 1, y, 1);
    fx_lids(&f, 0);
    struct cs_lfts t;
    rt_route("minhop", &f, NULL, &t);
    /* The router is an end port like a CA. */
    assert_int_equal(rt_port(&t, &f, a, fx_lid(&f, rt, 1)), 2);
    assert_int_equal(rt_port(&t, &f, b, fx_lid(&f, rt, 1)), 3);
    assert_int_equal(rt_port(&t, &f, b, fx_lid(&f, ha, 1)), 3);
    assert_int_equal(rt_port(&t, &f, a, fx_lid(&f, b, 0)), 3);
    /* The island and the back-to-back pair are left without routes, as OpenSM leaves them. */
    assert_int_equal(rt_port(&t, &f, a, fx_lid(&f, hc, 1)), CS_LFT_NO_ROUTE);
    assert_int_equal(rt_port(&t, &f, a, fx_lid(&f, c, 0)), CS_LFT_NO_ROUTE);
    assert_int_equal(rt_port(&t, &f, c, fx_lid(&f, ha, 1)), CS_LFT_NO_ROUTE);
    assert_int_equal(rt_port(&t, &f, c, fx_lid(&f, hc, 1)), 1);
    for (uint32_t sw = 0; sw < t.num_switches; sw++) {
        assert_int_equal(cs_lfts_get(&t, sw, fx_lid(&f, x, 1)), CS_LFT_NO_ROUTE);
        assert_int_equal(cs_lfts_get(&t, sw, fx_lid(&f, y, 1)), CS_LFT_NO_ROUTE);
        /* The looped cable (ports 4, 5) carries nothing. */
        for (uint32_t lid = 1; lid < t.capacity; lid++)
            assert_true(sw != 0 ||
                        (cs_lfts_get(&t, sw, lid) != 4 && cs_lfts_get(&t, sw, lid) != 5));
    }
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* Routes per output port of a switch, counting CA LIDs only (what the counters count). */
static void count_ca_routes(const struct cs_fabric *f, const struct cs_lfts *t, uint32_t node,
                            unsigned *per_port)
{
    memset(per_port, 0, sizeof(unsigned) * (CS_MAX_PORTS + 1));
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid || cs_node_is_switch(&f->nodes[p->node]))
            continue;
        for (uint32_t lid = p->lid; lid < p->lid + (1u << p->lmc); lid++)
            per_port[rt_port(t, f, node, lid)]++;
    }
}

/* 4-ary-3-tree (64 CAs; ports: 4 down, then 4 up): every leaf sends the 60 remote CAs 15 per up
 * port, every middle switch the 48 CAs outside its pod 12 per up port and each leaf's 4 down
 * its port; every top switch 16 per down port. Shortest, all pairs delivered, no credit loop. */
static void test_kary_balance(void **state)
{
    (void)state;
    struct cs_fabric f;
    fx_generate(&f, "3;4,4,4;1,4,4");
    fx_lids(&f, 0);
    struct cs_lfts t;
    rt_route("minhop", &f, NULL, &t);
    unsigned per_port[CS_MAX_PORTS + 1];
    unsigned checked = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        if (!cs_node_is_switch(&f.nodes[n]))
            continue;
        unsigned level = (unsigned)((f.nodes[n].guid >> 32) & 0xff);
        count_ca_routes(&f, &t, n, per_port);
        for (unsigned p = 1; p <= 8; p++) {
            unsigned expect = level == 1   ? (p <= 4 ? 1 : 15)
                              : level == 2 ? (p <= 4 ? 4 : 12)
                                           : (p <= 4 ? 16 : 0);
            assert_int_equal(per_port[p], expect);
        }
        checked++;
    }
    assert_int_equal(checked, 48);
    rt_assert_shortest(&f, &t, false);
    struct cs_check_result r;
    rt_check(&f, &t, &r);
    assert_int_equal(r.delivered, 64 * 63);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* The same fabric, routed twice or copied, gives the same tables. */
static void test_deterministic(void **state)
{
    (void)state;
    struct cs_fabric f, copy;
    struct cs_error err = {{0}};
    fx_generate(&f, "3;4,3,6;1,4,3");
    fx_lids(&f, 0);
    assert_int_equal(cs_fabric_copy(&copy, &f, &err), 0);
    struct cs_lfts a, b, c;
    rt_route("minhop", &f, NULL, &a);
    rt_route("minhop", &f, NULL, &b);
    rt_route("minhop", &copy, NULL, &c);
    rt_assert_same_tables(&a, &b);
    rt_assert_same_tables(&a, &c);
    rt_assert_shortest(&f, &a, false);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_lfts_free(&c);
    cs_fabric_free(&copy);
    cs_fabric_free(&f);
}

/* LMC 1 on XGFT(2;4,4;1,4): both LIDs of every CA routed, shortest; a leaf sends the 12 remote
 * CAs' 24 LIDs 6 per up port. */
static void test_lmc(void **state)
{
    (void)state;
    struct cs_fabric f;
    fx_generate(&f, "2;4,4;1,4");
    fx_lids(&f, 1);
    struct cs_lfts t;
    rt_route("minhop", &f, NULL, &t);
    rt_assert_shortest(&f, &t, false);
    unsigned per_port[CS_MAX_PORTS + 1];
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        if (!cs_node_is_switch(&f.nodes[n]) || ((f.nodes[n].guid >> 32) & 0xff) != 1)
            continue;
        count_ca_routes(&f, &t, n, per_port);
        for (unsigned p = 5; p <= 8; p++)
            assert_int_equal(per_port[p], 6);
    }
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* Tables that are not the fabric's are refused. */
static void test_tables_must_match(void **state)
{
    (void)state;
    struct cs_fabric f, other;
    struct cs_error err = {{0}};
    fx_generate(&f, "2;4,4;1,4");
    fx_lids(&f, 0);
    fx_generate(&other, "2;2,2;1,2");
    fx_lids(&other, 0);
    struct cs_lfts t;
    fx_lfts(&t, &other);
    assert_int_equal(cs_route_minhop(&f, NULL, NULL, &t, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "tables"));
    cs_lfts_free(&t);
    cs_fabric_free(&other);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_ring_counters_and_ties),
        cmocka_unit_test(test_order_by_load_then_swapped_guid),
        cmocka_unit_test(test_parallel_links),
        cmocka_unit_test(test_router_island_and_odd_cables),
        cmocka_unit_test(test_kary_balance),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_lmc),
        cmocka_unit_test(test_tables_must_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
