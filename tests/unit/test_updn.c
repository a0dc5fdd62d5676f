/* updn: root selection (named, or OpenSM's hop histogram with its 90% / 5% thresholds), the
 * up*\/down* rule checked by walking every route with ranks computed here, no credit loops (the
 * all-pairs check of analyze.h) on rings, a torus and random graphs where minhop has them,
 * hand-worked routes, connect_roots, fallback, and equality with minhop on fat-trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/rng.h"
#include "cloudsm/topo_io.h"
#include "route_fixtures.h"

/* ---- The up*\/down* rule, computed here from the roots ---------------------------------- */

struct updown {
    const struct cs_fabric *f;
    uint32_t *rank; /* per node: hops from the nearest root, UINT32_MAX if none */
    bool down;      /* the walk in progress has gone down */
    unsigned illegal;
};

static void updown_init(struct updown *u, const struct cs_fabric *f, const uint64_t *roots,
                        unsigned num_roots)
{
    u->f = f;
    u->rank = malloc(f->num_nodes * sizeof *u->rank + 1);
    uint32_t *queue = malloc(f->num_nodes * sizeof *queue + 1);
    assert_non_null(u->rank);
    assert_non_null(queue);
    uint32_t head = 0, tail = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        u->rank[n] = UINT32_MAX;
        for (unsigned r = 0; r < num_roots; r++)
            if (f->nodes[n].guid == roots[r] && cs_node_is_switch(&f->nodes[n])) {
                u->rank[n] = 0;
                queue[tail++] = n;
            }
    }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (unsigned p = 1; p <= f->nodes[v].num_ports; p++) {
            uint32_t peer = f->ports[f->nodes[v].first_port + p].peer;
            if (peer == CS_NONE)
                continue;
            uint32_t w = f->ports[peer].node;
            if (cs_node_is_switch(&f->nodes[w]) && u->rank[w] == UINT32_MAX) {
                u->rank[w] = u->rank[v] + 1;
                queue[tail++] = w;
            }
        }
    }
    free(queue);
    u->illegal = 0;
}

/* Up: towards a lower rank; at equal rank, towards the smaller GUID; root to root is down. */
static bool goes_up(const struct updown *u, uint32_t from, uint32_t to)
{
    if (u->rank[from] == 0 && u->rank[to] == 0)
        return false;
    if (u->rank[from] != u->rank[to])
        return u->rank[to] < u->rank[from];
    return u->f->nodes[to].guid < u->f->nodes[from].guid;
}

static void updown_hop(void *ctx, uint32_t from, uint32_t to)
{
    struct updown *u = ctx;
    if (goes_up(u, from, to))
        u->illegal += u->down;
    else
        u->down = true;
}

/* Walk every switch to every LID. Returns the number of (switch, LID) pairs without a route;
 * fails if any route goes up after going down. */
static unsigned assert_up_down(struct updown *u, const struct cs_lfts *t)
{
    unsigned unrouted = 0;
    uint16_t max_lid = cs_fabric_max_lid(u->f);
    for (uint32_t lid = 1; lid <= max_lid; lid++) {
        if (rt_lid_switch(u->f, lid) == CS_NONE)
            continue;
        for (uint32_t s = 0; s < u->f->num_nodes; s++) {
            if (!cs_node_is_switch(&u->f->nodes[s]))
                continue;
            u->down = false;
            unrouted += rt_walk(u->f, t, s, lid, updown_hop, u) < 0;
        }
    }
    assert_int_equal(u->illegal, 0);
    return unrouted;
}

static void updown_free(struct updown *u)
{
    free(u->rank);
}

static struct cs_guid_list guid_list(const uint64_t *guids, uint32_t count)
{
    struct cs_guid_list l = {(uint64_t *)guids, count, count};
    return l;
}

/* ---- Fabrics ------------------------------------------------------------------------------ */

/* A ring of n switches (GUID 0x10 + i): switch i port 3 to switch i+1 port 4, a CA on port 1. */
static void build_ring(struct cs_fabric *f, unsigned n, uint32_t *sw, uint32_t *ca)
{
    cs_fabric_init(f);
    for (unsigned i = 0; i < n; i++)
        sw[i] = fx_switch(f, 0x10 + i, 4, "ring");
    for (unsigned i = 0; i < n; i++) {
        ca[i] = fx_ca(f, 0x100 + 0x10 * i, "host");
        fx_link(f, ca[i], 1, sw[i], 1);
    }
    for (unsigned i = 0; i < n; i++)
        fx_link(f, sw[i], 3, sw[(i + 1) % n], 4);
    fx_lids(f, 0);
}

/* A connected random graph: a random spanning tree plus chords, 0-2 CAs per switch, switch
 * GUIDs scrambled so that GUID order is not fabric order. */
static void build_random(struct cs_fabric *f, uint64_t seed, unsigned *num_switches)
{
    struct cs_rng rng;
    cs_rng_seed(&rng, seed);
    cs_fabric_init(f);
    unsigned n = 5 + cs_rng_below(&rng, 10), used[16] = {0};
    uint32_t sw[16];
    for (unsigned i = 0; i < n; i++)
        sw[i] = fx_switch(f, (cs_rng_next(&rng) & 0xffffff00) | i, 16, "random");
    for (unsigned i = 0; i < n; i++) {
        unsigned cas = i == 0 ? 1 : cs_rng_below(&rng, 3);
        for (unsigned c = 0; c < cas; c++) {
            uint32_t ca = fx_ca(f, 0x1000 + 0x100 * i + 0x10 * c, "host");
            fx_link(f, ca, 1, sw[i], ++used[i]);
        }
    }
    unsigned cables = n - 1 + cs_rng_below(&rng, n + 1);
    for (unsigned k = 0; k < cables; k++) {
        unsigned a = k + 1 < n ? k + 1 : cs_rng_below(&rng, n);
        unsigned b = k + 1 < n ? cs_rng_below(&rng, k + 1) : cs_rng_below(&rng, n);
        if (a == b || used[a] == 16 || used[b] == 16)
            continue;
        fx_link(f, sw[a], ++used[a], sw[b], ++used[b]);
    }
    fx_lids(f, 0);
    *num_switches = n;
}

/* ---- Tests -------------------------------------------------------------------------------- */

/* Ring of 6, root r0: ranks 0, 1, 2, 3, 2, 1. r2 -> r3 -> r4 would go down then up, so r2
 * reaches r4 the long way, r2 -> r1 -> r0 -> r5 -> r4 (port 4). minhop takes the short way
 * round and has a credit loop; updn has none. */
static void test_ring(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t sw[6], ca[6];
    build_ring(&f, 6, sw, ca);
    static const uint64_t roots[] = {0x10};
    struct cs_guid_list list = guid_list(roots, 1);
    struct cs_route_options opt = {.root_guids = &list};
    struct cs_lfts t, m;
    rt_route("updn", &f, &opt, &t);
    assert_int_equal(rt_port(&t, &f, sw[2], fx_lid(&f, ca[4], 1)), 4);
    assert_int_equal(rt_walk(&f, &t, sw[2], fx_lid(&f, ca[4], 1), NULL, NULL), 4);
    assert_int_equal(rt_port(&t, &f, sw[3], fx_lid(&f, ca[4], 1)), 3);
    assert_int_equal(rt_port(&t, &f, sw[4], fx_lid(&f, ca[2], 1)), 3);

    struct updown u;
    updown_init(&u, &f, roots, 1);
    assert_int_equal(assert_up_down(&u, &t), 0);
    updown_free(&u);
    struct cs_check_result r;
    rt_check(&f, &t, &r);
    assert_int_equal(r.delivered, 30);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);

    rt_route("minhop", &f, NULL, &m);
    rt_check(&f, &m, &r);
    assert_true(r.credit_loop);
    cs_check_result_free(&r);
    cs_lfts_free(&m);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* 3x3 torus, switch (x, y) port 3 to (x+1, y) port 4 and port 5 to (x, y+1) port 6, two CAs
 * each; one root, then two: (0, 0) and (1, 1). With two roots neither reaches the other (a root
 * can only go down, and a root can only be entered going up), so each misses the other's LID and
 * its two CAs: 6 switch-LID pairs and 2 x 2 x 2 = 8 CA pairs without a route, as in OpenSM. */
static void test_torus(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t sw[9];
    for (unsigned i = 0; i < 9; i++)
        sw[i] = fx_switch(&f, 0x10 + i, 6, "torus");
    for (unsigned i = 0; i < 9; i++)
        for (unsigned c = 0; c < 2; c++)
            fx_link(&f, fx_ca(&f, 0x100 + 0x10 * i + c, "host"), 1, sw[i], 1 + c);
    for (unsigned x = 0; x < 3; x++)
        for (unsigned y = 0; y < 3; y++) {
            fx_link(&f, sw[3 * x + y], 3, sw[3 * ((x + 1) % 3) + y], 4);
            fx_link(&f, sw[3 * x + y], 5, sw[3 * x + (y + 1) % 3], 6);
        }
    fx_lids(&f, 0);
    static const uint64_t roots[] = {0x10, 0x14};
    for (unsigned n = 1; n <= 2; n++) {
        struct cs_guid_list list = guid_list(roots, n);
        struct cs_route_options opt = {.root_guids = &list};
        struct cs_lfts t;
        rt_route("updn", &f, &opt, &t);
        struct updown u;
        updown_init(&u, &f, roots, n);
        assert_int_equal(assert_up_down(&u, &t), n == 1 ? 0 : 6);
        updown_free(&u);
        struct cs_check_result r;
        rt_check(&f, &t, &r);
        assert_int_equal(r.delivered, 18 * 17 - (n == 1 ? 0 : 8));
        assert_int_equal(r.loops + r.wrong_deliveries, 0);
        assert_false(r.credit_loop);
        cs_check_result_free(&r);
        cs_lfts_free(&t);
    }
    cs_fabric_free(&f);
}

/* Random graphs, one to three random roots: every route legal and no credit loop; with one root
 * every pair is reachable (up to the root, then down). */
static void test_random_graphs(void **state)
{
    (void)state;
    unsigned with_minhop_loops = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        struct cs_fabric f;
        unsigned n;
        build_random(&f, seed, &n);
        struct cs_rng rng;
        cs_rng_seed(&rng, seed * 7919);
        unsigned num_roots = 1 + (seed % 3);
        uint64_t roots[3];
        for (unsigned r = 0; r < num_roots; r++)
            roots[r] = f.nodes[cs_rng_below(&rng, n)].guid; /* switches come first */
        if (num_roots > 1 && roots[1] == roots[0])
            num_roots = 1;
        if (num_roots > 2 && (roots[2] == roots[0] || roots[2] == roots[1]))
            num_roots = 2;
        struct cs_guid_list list = guid_list(roots, num_roots);
        struct cs_route_options opt = {.root_guids = &list};
        struct cs_lfts t, m;
        rt_route("updn", &f, &opt, &t);
        struct updown u;
        updown_init(&u, &f, roots, num_roots);
        unsigned unrouted = assert_up_down(&u, &t);
        updown_free(&u);
        struct cs_check_result r;
        rt_check(&f, &t, &r);
        assert_false(r.credit_loop);
        if (num_roots == 1) {
            assert_int_equal(unrouted, 0);
            assert_int_equal(r.delivered, r.pairs);
        }
        cs_check_result_free(&r);
        rt_route("minhop", &f, NULL, &m);
        rt_check(&f, &m, &r);
        with_minhop_loops += r.credit_loop;
        cs_check_result_free(&r);
        cs_lfts_free(&m);
        cs_lfts_free(&t);
        cs_fabric_free(&f);
    }
    /* The graphs are not trivial: minhop has credit loops on some of them. */
    assert_true(with_minhop_loops > 0);
}

/* tests/data/updn-turn.net: a random graph (13 switches, roots s4 and s9) where OpenSM 3.3.23
 * routes switch s6 to s12's LID up after coming down from s9 (OpenSM offers s6 an up hop as short
 * as its down hop although s9 comes down into it). Ours: every route legal. */
static void test_opensm_turn_avoided(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err = {{0}};
    cs_fabric_init(&f);
    if (cs_topo_read(&f, CLOUDSM_TEST_DATA "/updn-turn.net", &err) != 0)
        fail_msg("%s", err.msg);
    fx_lids(&f, 0);
    static const uint64_t roots[] = {0x0002c9005339aa04, 0x0002c900d7b45009};
    struct cs_guid_list list = guid_list(roots, 2);
    struct cs_route_options opt = {.root_guids = &list};
    struct cs_lfts t;
    rt_route("updn", &f, &opt, &t);
    struct updown u;
    updown_init(&u, &f, roots, 2);
    assert_up_down(&u, &t);
    updown_free(&u);
    struct cs_check_result r;
    rt_check(&f, &t, &r);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

static uint64_t level_guid(unsigned level, unsigned index)
{
    return CS_GUID_SWITCH_BASE + ((uint64_t)level << 32) + index;
}

/* 4-ary-3-tree: the histogram picks the 16 top switches (all 64 CAs 2 hops away; a middle switch
 * has 16 at 1 hop and 48 at 3, a leaf 4 at 0, 12 at 2, 48 at 4), so naming them gives the same
 * tables. On a fat-tree every shortest path between CAs is up*\/down*, so for CA LIDs updn
 * equals minhop; switch LIDs differ: two middle switches of one pod reach each other only
 * through a leaf, down then up, so updn leaves them without a route (as OpenSM does). Naming
 * one top switch only gives other tables, still legal and complete. */
static void test_fat_tree_roots(void **state)
{
    (void)state;
    struct cs_fabric f;
    fx_generate(&f, "3;4,4,4;1,4,4");
    fx_lids(&f, 0);
    uint64_t top[16];
    for (unsigned i = 0; i < 16; i++)
        top[i] = level_guid(3, i);
    struct cs_guid_list top_list = guid_list(top, 16), one_list = guid_list(top, 1);
    struct cs_route_options by_top = {.root_guids = &top_list};
    struct cs_route_options by_one = {.root_guids = &one_list};
    struct cs_lfts a, b, c, m;
    rt_route("updn", &f, NULL, &a);
    rt_route("updn", &f, &by_top, &b);
    rt_route("updn", &f, &by_one, &c);
    rt_route("minhop", &f, NULL, &m);
    rt_assert_same_tables(&a, &b);
    rt_assert_same_ca_entries(&f, &a, &m);
    assert_memory_not_equal(a.ports, m.ports, (size_t)a.num_switches * a.capacity);
    assert_memory_not_equal(a.ports, c.ports, (size_t)a.num_switches * a.capacity);
    rt_assert_shortest(&f, &a, true);
    struct updown u;
    updown_init(&u, &f, top, 1);
    assert_int_equal(assert_up_down(&u, &c), 0);
    updown_free(&u);
    struct cs_check_result r;
    rt_check(&f, &c, &r);
    assert_int_equal(r.delivered, r.pairs);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_lfts_free(&c);
    cs_lfts_free(&m);
    cs_fabric_free(&f);
}

/* One spine above two leaves, with leaf_cas[l] CAs on leaf l, spine_cas on the spine itself and,
 * when deep, a chain of two more switches below leaf 0 with one CA each (2 and 3 hops from the
 * spine). 20 CAs in all in each case below, so OpenSM's thresholds are exactly 18 (90%) and 1
 * (5%) and a bar must be strictly above them. No leaf can be a root (it has 9 or 10 CAs at hop
 * 0 and the others 2 hops away). */
static void build_spine(struct cs_fabric *f, const unsigned leaf_cas[2], unsigned spine_cas,
                        bool deep)
{
    cs_fabric_init(f);
    uint32_t spine = fx_switch(f, 0x10, 2 + spine_cas, "spine"), leaf[2];
    for (unsigned l = 0; l < 2; l++) {
        leaf[l] = fx_switch(f, 0x20 + l, 12, "leaf");
        fx_link(f, leaf[l], 11, spine, 1 + l);
        for (unsigned c = 0; c < leaf_cas[l]; c++)
            fx_link(f, fx_ca(f, 0x1000 + 0x100 * l + 0x10 * c, "host"), 1, leaf[l], 1 + c);
    }
    for (unsigned c = 0; c < spine_cas; c++)
        fx_link(f, fx_ca(f, 0x3000 + 0x10 * c, "host"), 1, spine, 3 + c);
    if (deep) {
        uint32_t x = fx_switch(f, 0x40, 3, "x"), y = fx_switch(f, 0x41, 3, "y");
        fx_link(f, x, 1, leaf[0], 12);
        fx_link(f, y, 1, x, 2);
        fx_link(f, fx_ca(f, 0x4000, "host"), 1, x, 3);
        fx_link(f, fx_ca(f, 0x4100, "host"), 1, y, 3);
    }
    fx_lids(f, 0);
}

static int route_updn_raw(const struct cs_fabric *f, struct cs_error *err)
{
    struct cs_lfts t;
    fx_lfts(&t, f);
    int rc = cs_route_updn(f, NULL, NULL, &t, NULL, err);
    cs_lfts_free(&t);
    return rc;
}

static void test_histogram_thresholds(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err = {{0}};
    /* 19 CAs at 1 hop (> 18), 1 at 0 hops (not > 1): the spine is a root. */
    build_spine(&f, (const unsigned[]){10, 9}, 1, false);
    assert_int_equal(route_updn_raw(&f, &err), 0);
    cs_fabric_free(&f);
    /* 18 at 1 hop and 2 at 0 hops: no root at all, updn gives up. */
    build_spine(&f, (const unsigned[]){9, 9}, 2, false);
    assert_int_equal(route_updn_raw(&f, &err), CS_ROUTE_UNSUITABLE);
    assert_non_null(strstr(err.msg, "no root switches"));
    cs_fabric_free(&f);
    /* 18 at 1 hop (not > 18), 1 at 2 and 1 at 3: no root either. */
    build_spine(&f, (const unsigned[]){9, 9}, 0, true);
    assert_int_equal(route_updn_raw(&f, &err), CS_ROUTE_UNSUITABLE);
    cs_fabric_free(&f);
}

/* Three roots cabled in a chain R0 - R1 - R2 (GUIDs 0x10, 0x12, 0x11), a leaf with a CA under
 * each. OpenSM counts a move between two roots as down whichever way it goes, so L0 -> R0 -> R1
 * -> R2 -> L2 is legal (with GUID order alone, R1 -> R2 would go up after R0 -> R1 went down, and
 * L0's CA could not reach L2's). Every pair is delivered, and no credit loop. */
static void test_roots_cabled_together(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    static const uint64_t roots[] = {0x10, 0x12, 0x11};
    uint32_t r[3];
    for (unsigned i = 0; i < 3; i++)
        r[i] = fx_switch(&f, roots[i], 3, "root");
    fx_link(&f, r[0], 2, r[1], 2);
    fx_link(&f, r[1], 3, r[2], 2);
    for (unsigned i = 0; i < 3; i++) {
        uint32_t leaf = fx_switch(&f, 0x20 + i, 2, "leaf");
        fx_link(&f, leaf, 2, r[i], 1);
        fx_link(&f, fx_ca(&f, 0x100 + 0x10 * i, "host"), 1, leaf, 1);
    }
    fx_lids(&f, 0);
    struct cs_guid_list list = guid_list(roots, 3);
    struct cs_route_options opt = {.root_guids = &list};
    struct cs_lfts t;
    rt_route("updn", &f, &opt, &t);
    struct cs_check_result res;
    rt_check(&f, &t, &res);
    assert_int_equal(res.delivered, 6);
    assert_false(res.credit_loop);
    cs_check_result_free(&res);
    struct updown u;
    updown_init(&u, &f, roots, 3);
    assert_up_down(&u, &t);
    updown_free(&u);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* R (root) - M; D, X, E below M (rank 2), and E - D, X - E cabled at equal rank: GUIDs X 0x30 <
 * E 0x31 < D 0x32, so X -> E -> D goes down twice. X reaches D's CA in 2 hops down through E
 * (port 2) or up then down through M (port 1); the BFS from D meets X first from E (D lists E
 * before M), so X "goes down". Nothing comes down into X, so it may still take the up hop, and
 * takes it (lowest port, no routes yet), as OpenSM 3.3.23 does (checked with ibsim:
 * tests/data/updn-uphop.net). */
static void test_down_switch_may_go_up(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t r = fx_switch(&f, 0x10, 4, "R"), m = fx_switch(&f, 0x20, 4, "M");
    uint32_t x = fx_switch(&f, 0x30, 4, "X"), e = fx_switch(&f, 0x31, 4, "E");
    uint32_t d = fx_switch(&f, 0x32, 4, "D"), h = fx_ca(&f, 0x100, "h");
    fx_link(&f, m, 1, r, 1);
    fx_link(&f, m, 2, d, 2);
    fx_link(&f, m, 3, x, 1);
    fx_link(&f, m, 4, e, 3);
    fx_link(&f, x, 2, e, 2);
    fx_link(&f, e, 1, d, 1);
    fx_link(&f, h, 1, d, 3);
    fx_lids(&f, 0);
    static const uint64_t roots[] = {0x10};
    struct cs_guid_list list = guid_list(roots, 1);
    struct cs_route_options opt = {.root_guids = &list};
    struct cs_lfts t;
    rt_route("updn", &f, &opt, &t);
    assert_int_equal(rt_port(&t, &f, x, fx_lid(&f, h, 1)), 1);
    assert_int_equal(rt_port(&t, &f, x, fx_lid(&f, d, 0)), 2); /* port 1 has a route now */
    struct updown u;
    updown_init(&u, &f, roots, 1);
    assert_int_equal(assert_up_down(&u, &t), 0);
    updown_free(&u);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* Without roots (a ring has no switch with 90% of the CAs at one distance) cs_route falls back
 * to minhop, or fails when told not to; root GUIDs that name no switch count as none. */
static void test_no_roots(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t sw[6], ca[6];
    build_ring(&f, 6, sw, ca);
    struct cs_lfts t;
    struct cs_route_stats st;
    struct cs_error err = {{0}};
    assert_int_equal(cs_route("updn", &f, NULL, &t, &st, &err), 0);
    assert_true(st.fell_back);
    assert_string_equal(st.engine, "minhop");
    assert_non_null(strstr(st.fallback_reason, "no root switches"));
    cs_lfts_free(&t);

    struct cs_route_options strict = {.no_fallback = true};
    assert_int_equal(cs_route("updn", &f, &strict, &t, &st, &err), -1);

    static const uint64_t not_switches[] = {0x100, 0x999};
    struct cs_guid_list list = guid_list(not_switches, 2);
    struct cs_route_options named = {.root_guids = &list};
    fx_lfts(&t, &f);
    assert_int_equal(cs_route_updn(&f, &named, NULL, &t, NULL, &err), CS_ROUTE_UNSUITABLE);
    assert_non_null(strstr(err.msg, "none of the 2 root GUIDs"));
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* Two leaves (ports 1, 2: CAs; 3, 4: spines) under two spines (port i to leaf i): both spines
 * are roots. A spine reaches the other only down then up, so it has no route to its LID; with
 * connect_roots the roots' LIDs are routed by plain shortest paths: through leaf 0 (port 1, both
 * ports carrying 2 CA routes). CA routes do not change. */
static void test_connect_roots(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t s0 = fx_switch(&f, 0x10, 2, "S0"), s1 = fx_switch(&f, 0x11, 2, "S1");
    for (unsigned l = 0; l < 2; l++) {
        uint32_t leaf = fx_switch(&f, 0x20 + l, 4, "leaf");
        fx_link(&f, leaf, 3, s0, 1 + l);
        fx_link(&f, leaf, 4, s1, 1 + l);
        for (unsigned c = 0; c < 2; c++)
            fx_link(&f, fx_ca(&f, 0x1000 + 0x100 * l + 0x10 * c, "host"), 1, leaf, 1 + c);
    }
    fx_lids(&f, 0);
    struct cs_lfts plain, connected;
    rt_route("updn", &f, NULL, &plain);
    struct cs_route_options opt = {.connect_roots = true};
    rt_route("updn", &f, &opt, &connected);
    assert_int_equal(rt_port(&plain, &f, s0, fx_lid(&f, s1, 0)), CS_LFT_NO_ROUTE);
    assert_int_equal(rt_port(&plain, &f, s1, fx_lid(&f, s0, 0)), CS_LFT_NO_ROUTE);
    assert_int_equal(rt_port(&connected, &f, s0, fx_lid(&f, s1, 0)), 1);
    assert_int_equal(rt_port(&connected, &f, s1, fx_lid(&f, s0, 0)), 1);
    for (uint32_t i = 0; i < f.num_port_slots; i++) {
        const struct cs_port *p = &f.ports[i];
        if (p->lid && !cs_node_is_switch(&f.nodes[p->node]))
            for (uint32_t s = 0; s < plain.num_switches; s++)
                assert_int_equal(cs_lfts_get(&plain, s, p->lid),
                                 cs_lfts_get(&connected, s, p->lid));
    }
    cs_lfts_free(&plain);
    cs_lfts_free(&connected);
    cs_fabric_free(&f);
}

static void test_deterministic(void **state)
{
    (void)state;
    struct cs_fabric f, copy;
    struct cs_error err = {{0}};
    unsigned n;
    build_random(&f, 42, &n);
    assert_int_equal(cs_fabric_copy(&copy, &f, &err), 0);
    uint64_t root = f.nodes[0].guid;
    struct cs_guid_list list = guid_list(&root, 1);
    struct cs_route_options opt = {.root_guids = &list};
    struct cs_lfts a, b, c;
    rt_route("updn", &f, &opt, &a);
    rt_route("updn", &f, &opt, &b);
    rt_route("updn", &copy, &opt, &c);
    rt_assert_same_tables(&a, &b);
    rt_assert_same_tables(&a, &c);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_lfts_free(&c);
    cs_fabric_free(&copy);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_torus),
        cmocka_unit_test(test_random_graphs),
        cmocka_unit_test(test_opensm_turn_avoided),
        cmocka_unit_test(test_fat_tree_roots),
        cmocka_unit_test(test_histogram_thresholds),
        cmocka_unit_test(test_roots_cabled_together),
        cmocka_unit_test(test_down_switch_may_go_up),
        cmocka_unit_test(test_no_roots),
        cmocka_unit_test(test_connect_roots),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
