/* The all-pairs LFT check: hand-made fabrics with counts worked out by hand (a ring routed
 * clockwise has a credit loop, a tree routed up/down has none, per-link counts, hops, each kind
 * of failure), OpenSM's own dumps, and a brute-force comparison (every pair traced on its own)
 * on a tree with deliberately damaged tables, for several thread counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "analyze_fixtures.h"
#include "cloudsm/lft_io.h"
#include "cloudsm/rng.h"
#include "cloudsm/topo_io.h"
#include "testlib.h"

static void check_ok(const struct cs_tracer *tr, const struct cs_check_options *opt,
                     struct cs_check_result *r)
{
    struct cs_error err = {{0}};
    if (cs_check_lfts(tr, opt, r, &err) != 0)
        fail_msg("check: %s", err.msg);
}

static uint64_t routes_on(const struct cs_tracer *tr, const struct cs_check_result *r,
                          const struct cs_fabric *f, uint32_t node, unsigned port)
{
    return r->link_routes[tr->links.out[cs_fabric_port(f, node, port)]];
}

struct csv_ctx {
    const struct cs_tracer *tr;
    const struct cs_check_result *r;
};

static int write_csv(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct csv_ctx *c = ctx;
    return cs_check_write_links_csv(out, c->tr, c->r, err);
}

/* ---- A ring routed clockwise: a credit loop ---- */

static void test_ring_clockwise_has_credit_loop(void **state)
{
    (void)state;
    /* Switch i: port 1 its CA, port 2 to switch i+1 (its port 3), port 3 from switch i-1. */
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t sw[4], ca[4];
    for (unsigned i = 0; i < 4; i++)
        sw[i] = fx_switch(&f, 0x100 + i, 3, "ring");
    for (unsigned i = 0; i < 4; i++) {
        ca[i] = fx_ca(&f, 0x200 + 0x10 * i, "host");
        fx_link(&f, ca[i], 1, sw[i], 1);
    }
    for (unsigned i = 0; i < 4; i++)
        fx_link(&f, sw[i], 2, sw[(i + 1) % 4], 3);
    fx_lids(&f, 0);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    for (unsigned dst = 0; dst < 4; dst++)
        for (unsigned i = 0; i < 4; i++)
            fx_set(&t, &f, sw[i], fx_lid(&f, ca[dst], 1), i == dst ? 1 : 2);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    struct cs_check_result r;
    check_ok(&tr, NULL, &r);

    assert_int_equal(r.pairs, 12);
    assert_int_equal(r.delivered, 12);
    assert_int_equal(r.unreachable, 0);
    /* Clockwise distances 1, 2, 3 switches: 3, 4, 5 hops, four pairs each. */
    assert_int_equal(r.hops_min, 3);
    assert_int_equal(r.hops_max, 5);
    assert_true(fabs(r.hops_mean - 4.0) < 1e-9);
    assert_int_equal(r.hops_histogram[3], 4);
    assert_int_equal(r.hops_histogram[4], 4);
    assert_int_equal(r.hops_histogram[5], 4);

    assert_true(r.credit_loop);
    assert_false(r.ok);
    assert_int_equal(r.cdg_vertices, 8);
    /* Each clockwise link turns into the next one wherever a route goes on: 4 edges. */
    assert_int_equal(r.cdg_edges, 4);
    assert_int_equal(r.credit_cycle_len, 4);
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t link = r.credit_cycle[k], next = r.credit_cycle[(k + 1) % 4];
        const struct cs_port *from = &f.ports[tr.links.from[link]];
        assert_int_equal(from->num, 2); /* clockwise */
        /* link ends where next starts */
        assert_int_equal(f.ports[cs_link_to(&f, &tr.links, link)].node,
                         f.ports[tr.links.from[next]].node);
    }
    /* Every switch is a leaf: the ring links are "flat"; clockwise ones carry 1+2+3 routes. */
    assert_int_equal(r.classes[CS_LINK_FLAT].links, 8);
    assert_int_equal(routes_on(&tr, &r, &f, sw[0], 2), 6);
    assert_int_equal(routes_on(&tr, &r, &f, sw[0], 3), 0);
    assert_int_equal(r.switch_links.max, 6);
    assert_int_equal(r.switch_links.min, 0);
    assert_int_equal(r.switch_links.spread, 6);
    cs_check_result_free(&r);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* ---- A two-level tree routed up/down by hand ---- */

/*      S0          S1
 *     1  2        1  2
 *     3  3        4  4          (leaf port 3 to S0, port 4 to S1)
 *    [L0]        [L1]
 *    1  2        1  2
 *    a  b        c  d
 */
struct tree {
    struct cs_fabric f;
    struct cs_lfts t;
    uint32_t l0, l1, s0, s1, a, b, c, d;
};

static void tree_build(struct tree *x)
{
    struct cs_fabric *f = &x->f;
    cs_fabric_init(f);
    x->l0 = fx_switch(f, 0x110, 4, "L0");
    x->l1 = fx_switch(f, 0x111, 4, "L1");
    x->s0 = fx_switch(f, 0x120, 2, "S0");
    x->s1 = fx_switch(f, 0x121, 2, "S1");
    x->a = fx_ca(f, 0x300, "a");
    x->b = fx_ca(f, 0x310, "b");
    x->c = fx_ca(f, 0x320, "c");
    x->d = fx_ca(f, 0x330, "d");
    fx_link(f, x->a, 1, x->l0, 1);
    fx_link(f, x->b, 1, x->l0, 2);
    fx_link(f, x->c, 1, x->l1, 1);
    fx_link(f, x->d, 1, x->l1, 2);
    fx_link(f, x->l0, 3, x->s0, 1);
    fx_link(f, x->l1, 3, x->s0, 2);
    fx_link(f, x->l0, 4, x->s1, 1);
    fx_link(f, x->l1, 4, x->s1, 2);
    fx_lids(f, 0);
    fx_lfts(&x->t, f);
    uint32_t a = fx_lid(f, x->a, 1), b = fx_lid(f, x->b, 1), c = fx_lid(f, x->c, 1),
             d = fx_lid(f, x->d, 1);
    /* Down: leaves to their CAs, spines to the leaf. Up: L0 sends c via S0 and d via S1; L1
     * sends both a and b via S0 (deliberately unbalanced). */
    fx_set(&x->t, f, x->l0, a, 1);
    fx_set(&x->t, f, x->l0, b, 2);
    fx_set(&x->t, f, x->l0, c, 3);
    fx_set(&x->t, f, x->l0, d, 4);
    fx_set(&x->t, f, x->l1, c, 1);
    fx_set(&x->t, f, x->l1, d, 2);
    fx_set(&x->t, f, x->l1, a, 3);
    fx_set(&x->t, f, x->l1, b, 3);
    uint32_t spines[2] = {x->s0, x->s1};
    for (int i = 0; i < 2; i++) {
        fx_set(&x->t, f, spines[i], a, 1);
        fx_set(&x->t, f, spines[i], b, 1);
        fx_set(&x->t, f, spines[i], c, 2);
        fx_set(&x->t, f, spines[i], d, 2);
    }
    /* Switch LIDs: every switch reaches every other by a shortest up/down path. */
    uint32_t l0 = fx_lid(f, x->l0, 0), l1 = fx_lid(f, x->l1, 0), s0 = fx_lid(f, x->s0, 0),
             s1 = fx_lid(f, x->s1, 0);
    fx_set(&x->t, f, x->l0, l1, 3);
    fx_set(&x->t, f, x->l0, s0, 3);
    fx_set(&x->t, f, x->l0, s1, 4);
    fx_set(&x->t, f, x->l1, l0, 3);
    fx_set(&x->t, f, x->l1, s0, 3);
    fx_set(&x->t, f, x->l1, s1, 4);
    for (int i = 0; i < 2; i++) {
        fx_set(&x->t, f, spines[i], l0, 1);
        fx_set(&x->t, f, spines[i], l1, 2);
        fx_set(&x->t, f, spines[i], i ? s0 : s1, 1); /* via L0 */
    }
}

static void tree_free(struct tree *x)
{
    cs_lfts_free(&x->t);
    cs_fabric_free(&x->f);
}

static void test_tree_counts_by_hand(void **state)
{
    (void)state;
    struct tree x;
    tree_build(&x);
    struct cs_tracer tr;
    fx_tracer(&tr, &x.f, &x.t);
    struct cs_check_result r;
    struct cs_check_options opt = {.threads = 1};
    check_ok(&tr, &opt, &r);
    const struct cs_fabric *f = &x.f;

    assert_int_equal(r.sources, 4);
    assert_int_equal(r.destinations, 4);
    assert_int_equal(r.pairs, 12);
    assert_int_equal(r.delivered, 12);
    assert_true(r.ok);
    assert_false(r.credit_loop);
    assert_int_equal(r.credit_cycle_len, 0);
    /* 4 same-leaf pairs at 2 hops, 8 across at 4: mean 40/12. */
    assert_int_equal(r.hops_min, 2);
    assert_int_equal(r.hops_max, 4);
    assert_int_equal(r.hops_histogram[2], 4);
    assert_int_equal(r.hops_histogram[3], 0);
    assert_int_equal(r.hops_histogram[4], 8);
    assert_true(fabs(r.hops_mean - 40.0 / 12) < 1e-9);

    /* Host links: each CA sends to 3 and receives from 3. */
    assert_int_equal(routes_on(&tr, &r, f, x.a, 1), 3);
    assert_int_equal(routes_on(&tr, &r, f, x.l1, 2), 3);
    /* Up: L0->S0 carries a,b->c (2); L0->S1 a,b->d (2); L1->S0 c,d->a,b (4); L1->S1 none. */
    assert_int_equal(routes_on(&tr, &r, f, x.l0, 3), 2);
    assert_int_equal(routes_on(&tr, &r, f, x.l0, 4), 2);
    assert_int_equal(routes_on(&tr, &r, f, x.l1, 3), 4);
    assert_int_equal(routes_on(&tr, &r, f, x.l1, 4), 0);
    /* Down: S0->L0 4, S0->L1 2, S1->L0 0, S1->L1 2. */
    assert_int_equal(routes_on(&tr, &r, f, x.s0, 1), 4);
    assert_int_equal(routes_on(&tr, &r, f, x.s0, 2), 2);
    assert_int_equal(routes_on(&tr, &r, f, x.s1, 1), 0);
    assert_int_equal(routes_on(&tr, &r, f, x.s1, 2), 2);
    /* Up links {2,2,4,0}: max 4, min 0, mean 2, spread 4, stddev sqrt(8/4). */
    const struct cs_link_stats *up = &r.classes[CS_LINK_UP];
    assert_int_equal(up->links, 4);
    assert_int_equal(up->max, 4);
    assert_int_equal(up->min, 0);
    assert_int_equal(up->spread, 4);
    assert_true(fabs(up->mean - 2.0) < 1e-9);
    assert_true(fabs(up->stddev - sqrt(2.0)) < 1e-9);
    assert_int_equal(r.classes[CS_LINK_DOWN].max, 4);
    assert_int_equal(r.classes[CS_LINK_HOST_UP].links, 4);
    assert_int_equal(r.classes[CS_LINK_HOST_UP].spread, 0);
    assert_int_equal(r.switch_links.links, 8);
    assert_true(fabs(r.switch_links.mean - 2.0) < 1e-9);
    assert_int_equal(r.classes[CS_LINK_FLAT].links, 0);
    /* CDG: S0 turns 1->2 (a,b to c) and 2->1 (c,d to a,b), S1 turns 1->2 (a,b to d). */
    assert_int_equal(r.cdg_vertices, 8);
    assert_int_equal(r.cdg_edges, 3);

    /* The per-link CSV: a header and one line per directed link. */
    struct csv_ctx ctx = {&tr, &r};
    char *csv = capture(write_csv, &ctx);
    unsigned lines = 0;
    for (const char *p = csv; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 16);
    assert_true(strncmp(csv, "from_guid,from_port,to_guid,to_port,class,routes\n", 49) == 0);
    assert_non_null(strstr(csv, "\n0x0000000000000111,3,0x0000000000000120,2,up,4\n"));
    assert_non_null(strstr(csv, "\n0x0000000000000121,1,0x0000000000000110,4,down,0\n"));
    free(csv);
    cs_check_result_free(&r);

    /* --all-lids: switch LIDs too, from CAs only: 4 x 3 + 4 x 4 pairs. */
    opt.all_lids = true;
    check_ok(&tr, &opt, &r);
    assert_int_equal(r.destinations, 8);
    assert_int_equal(r.pairs, 28);
    assert_int_equal(r.delivered, 28);
    assert_true(r.ok);
    cs_check_result_free(&r);
    cs_tracer_free(&tr);
    tree_free(&x);
}

/* ---- Failures, counted and described ---- */

/* The line of test_trace.c: h0 - S0 - S1 - S2 - h1, h2 (LIDs S0 1, S1 2, S2 3, h0 4, h1 5,
 * h2 6), shortest routes, then one failure of each kind. */
static void test_failures_counted_and_described(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t s0 = fx_switch(&f, 0x100, 2, "S0"), s1 = fx_switch(&f, 0x101, 3, "S1"),
             s2 = fx_switch(&f, 0x102, 3, "S2");
    uint32_t h0 = fx_ca(&f, 0x200, "h0"), h1 = fx_ca(&f, 0x210, "h1"), h2 = fx_ca(&f, 0x220, "h2");
    fx_link(&f, h0, 1, s0, 1);
    fx_link(&f, s0, 2, s1, 1);
    fx_link(&f, s1, 2, s2, 1);
    fx_link(&f, s2, 2, h1, 1);
    fx_link(&f, s2, 3, h2, 1);
    fx_lids(&f, 0);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    fx_fill_shortest(&t, &f);
    assert_int_equal(fx_lid(&f, h0, 1), 4);
    fx_set(&t, &f, s1, 4, CS_LFT_NO_ROUTE); /* h1, h2 -> h0: black hole at S1 */
    fx_set(&t, &f, s1, 5, 1);               /* h0 -> h1: loop S0 <-> S1 */
    fx_set(&t, &f, s2, 6, 2);               /* h0, h1 -> h2: handed to h1 */
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    struct cs_check_result r;
    check_ok(&tr, NULL, &r);

    assert_int_equal(r.pairs, 6);
    assert_int_equal(r.delivered, 1); /* h2 -> h1 */
    assert_int_equal(r.unreachable, 5);
    assert_int_equal(r.loops, 1);
    assert_int_equal(r.black_holes, 2);
    assert_int_equal(r.outcomes[CS_TRACE_NO_ENTRY], 2);
    assert_int_equal(r.wrong_deliveries, 2);
    assert_false(r.ok);
    assert_false(r.credit_loop);
    assert_int_equal(r.hops_min, 2);
    assert_int_equal(r.hops_max, 2);
    /* Only h2 -> h1 is counted on links. */
    assert_int_equal(r.link_routes[tr.links.out[cs_fabric_port(&f, h2, 1)]], 1);
    assert_int_equal(r.link_routes[tr.links.out[cs_fabric_port(&f, s2, 2)]], 1);
    assert_int_equal(r.link_routes[tr.links.out[cs_fabric_port(&f, h0, 1)]], 0);

    /* By LID, then source port. */
    assert_int_equal(r.num_failures, 5);
    const struct cs_check_failure *fl = r.failures;
    assert_int_equal(fl[0].lid, 4);
    assert_int_equal(fl[0].src_port, cs_fabric_port(&f, h1, 1));
    assert_int_equal(fl[0].trace.outcome, CS_TRACE_NO_ENTRY);
    assert_int_equal(fl[0].trace.fault_node, s1);
    assert_int_equal(fl[1].src_port, cs_fabric_port(&f, h2, 1));
    assert_int_equal(fl[2].lid, 5);
    assert_int_equal(fl[2].src_port, cs_fabric_port(&f, h0, 1));
    assert_int_equal(fl[2].trace.outcome, CS_TRACE_LOOP);
    assert_int_equal(fl[2].loop_count, 2);
    uint32_t on_loop[2] = {r.loop_nodes[fl[2].loop_first], r.loop_nodes[fl[2].loop_first + 1]};
    assert_true((on_loop[0] == s0 && on_loop[1] == s1) || (on_loop[0] == s1 && on_loop[1] == s0));
    assert_int_equal(fl[3].lid, 6);
    assert_int_equal(fl[3].trace.outcome, CS_TRACE_WRONG_DELIVERY);
    assert_int_equal(fl[3].trace.fault_node, s2);
    assert_int_equal(fl[3].trace.end_port, cs_fabric_port(&f, h1, 1));
    assert_int_equal(fl[4].src_port, cs_fabric_port(&f, h1, 1));
    cs_check_result_free(&r);

    /* Fewer described, the same counted. */
    struct cs_check_options opt = {.max_failures = 2};
    check_ok(&tr, &opt, &r);
    assert_int_equal(r.num_failures, 2);
    assert_int_equal(r.unreachable, 5);
    cs_check_result_free(&r);
    cs_tracer_free(&tr);

    /* A CA port without a LID stops the check. */
    f.ports[cs_fabric_port(&f, h2, 1)].lid = 0;
    fx_tracer(&tr, &f, &t);
    struct cs_error err = {{0}};
    assert_int_equal(cs_check_lfts(&tr, NULL, &r, &err), -1);
    assert_non_null(strstr(err.msg, "has no LID"));
    assert_non_null(strstr(err.msg, "'h2'"));
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* ---- OpenSM's dumps (tests/data/lft, made on ibsim with ft2x2.guid2lid) ---- */

static void read_ft2x2(struct cs_fabric *f, struct cs_lfts *t, const char *dump)
{
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    if (cs_topo_read(f, CLOUDSM_TEST_DATA "/lft/ft2x2.net", &err) != 0)
        fail_msg("%s", err.msg);
    char path[512];
    snprintf(path, sizeof path, CLOUDSM_TEST_DATA "/lft/%s", dump);
    if (cs_lfts_read(t, path, &err) != 0)
        fail_msg("%s", err.msg);
}

static void apply_guid2lid(struct cs_fabric *f, const char *name)
{
    struct cs_error err = {{0}};
    struct cs_guid2lid g = {0};
    char path[512];
    snprintf(path, sizeof path, CLOUDSM_TEST_DATA "/lft/%s", name);
    if (cs_guid2lid_read(&g, path, &err) != 0 || cs_guid2lid_apply(&g, f, &err) < 0)
        fail_msg("%s", err.msg);
    cs_guid2lid_free(&g);
}

static void test_lids_from_dump_match_guid2lid(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_lfts t;
    struct cs_error err = {{0}};
    read_ft2x2(&a, &t, "ft2x2-ftree.dump");
    /* 4 switches (from the comments, spine1's from other switches' entries) + 6 CAs. */
    assert_int_equal(cs_lids_from_lfts(&a, &t, &err), 10);
    cs_fabric_init(&b);
    assert_int_equal(cs_topo_read(&b, CLOUDSM_TEST_DATA "/lft/ft2x2.net", &err), 0);
    apply_guid2lid(&b, "ft2x2.guid2lid");
    assert_true(cs_fabric_equal(&a, &b, &err));
    cs_fabric_free(&b);
    cs_lfts_free(&t);
    cs_fabric_free(&a);
}

static void test_opensm_dumps_check_clean(void **state)
{
    (void)state;
    static const char *const dumps[] = {"ft2x2-ftree.dump", "ft2x2-minhop.dump"};
    for (size_t i = 0; i < 2; i++) {
        struct cs_fabric f;
        struct cs_lfts t;
        read_ft2x2(&f, &t, dumps[i]);
        apply_guid2lid(&f, "ft2x2.guid2lid");
        struct cs_tracer tr;
        fx_tracer(&tr, &f, &t);
        assert_int_equal(tr.switches_without_table, 0);
        struct cs_check_result r;
        check_ok(&tr, NULL, &r);
        assert_true(r.ok);
        assert_int_equal(r.pairs, 30);
        assert_int_equal(r.delivered, 30);
        assert_false(r.credit_loop);
        /* 3 + 3 hosts: 12 pairs on a leaf (2 hops), 18 across (4 hops). */
        assert_int_equal(r.hops_histogram[2], 12);
        assert_int_equal(r.hops_histogram[4], 18);
        assert_true(fabs(r.hops_mean - 3.2) < 1e-9);
        /* Up links carry the 18 crossing routes between them. */
        uint64_t up = 0;
        for (uint32_t l = 0; l < tr.links.count; l++)
            if (tr.links.cls[l] == CS_LINK_UP)
                up += r.link_routes[l];
        assert_int_equal(up, 18);
        if (i == 0) {
            /* ftree's leaf0 sends host3, host4, host5 (3 sources each) up ports 5, 6, 7 and
             * nothing up port 8 (ft2x2-ftree.dump lines 6-10). */
            uint32_t leaf0 = CS_NONE;
            for (uint32_t n = 0; n < f.num_nodes; n++)
                if (f.nodes[n].guid == 0x0002c90000000101)
                    leaf0 = n;
            assert_int_equal(routes_on(&tr, &r, &f, leaf0, 5), 3);
            assert_int_equal(routes_on(&tr, &r, &f, leaf0, 6), 3);
            assert_int_equal(routes_on(&tr, &r, &f, leaf0, 7), 3);
            assert_int_equal(routes_on(&tr, &r, &f, leaf0, 8), 0);
        }
        cs_check_result_free(&r);
        cs_tracer_free(&tr);
        cs_lfts_free(&t);
        cs_fabric_free(&f);
    }

    /* The other guid2lid (OpenSM's own LIDs on a fresh cache) does not match these tables. */
    struct cs_fabric f;
    struct cs_lfts t;
    read_ft2x2(&f, &t, "ft2x2-ftree.dump");
    apply_guid2lid(&f, "ft2x2-opensm-default.guid2lid");
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    struct cs_check_result r;
    check_ok(&tr, NULL, &r);
    assert_false(r.ok);
    assert_int_equal(r.unreachable, 30);
    cs_check_result_free(&r);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* ---- Against brute force, on damaged tables, for several thread counts ---- */

struct brute {
    uint64_t outcomes[CS_TRACE_OUTCOMES];
    uint64_t pairs;
    uint64_t *link_routes;
    uint64_t hist[64];
    uint8_t *edge; /* [a * links + b]: a route crosses switch links a then b */
    uint64_t edges;
};

static bool switch_link(const struct cs_tracer *tr, uint32_t l)
{
    return tr->links.cls[l] == CS_LINK_UP || tr->links.cls[l] == CS_LINK_DOWN ||
           tr->links.cls[l] == CS_LINK_FLAT;
}

static void brute_force(const struct cs_tracer *tr, bool all_lids, struct brute *b)
{
    const struct cs_fabric *f = tr->fabric;
    uint32_t n = tr->links.count;
    memset(b, 0, sizeof *b);
    b->link_routes = calloc(n, sizeof *b->link_routes);
    b->edge = calloc((size_t)n * n, 1);
    uint32_t links[64];
    for (uint32_t lid = 1; lid < tr->lid_limit; lid++) {
        uint32_t owner = tr->lid_owner[lid];
        if (owner == CS_NONE)
            continue;
        bool ca = f->nodes[f->ports[owner].node].type == CS_NODE_CA;
        if (!ca && !all_lids)
            continue;
        for (uint32_t src = 0; src < f->num_port_slots; src++) {
            const struct cs_port *p = &f->ports[src];
            if (f->nodes[p->node].type != CS_NODE_CA || p->peer == CS_NONE || src == owner)
                continue;
            struct cs_route_trace t;
            struct cs_error err = {{0}};
            assert_int_equal(cs_trace_route(tr, src, lid, &t, links, 64, &err), 0);
            b->pairs++;
            b->outcomes[t.outcome]++;
            if (t.outcome != CS_TRACE_DELIVERED)
                continue;
            b->hist[t.hops]++;
            for (uint32_t k = 0; k < t.hops; k++) {
                b->link_routes[links[k]]++;
                if (k && switch_link(tr, links[k - 1]) && switch_link(tr, links[k]))
                    b->edge[(size_t)links[k - 1] * n + links[k]] = 1;
            }
        }
    }
    for (size_t i = 0; i < (size_t)n * n; i++)
        b->edges += b->edge[i];
}

/* Cycle in the brute-force CDG, by repeatedly removing links without a predecessor. */
static bool brute_has_cycle(const struct cs_tracer *tr, const struct brute *b)
{
    uint32_t n = tr->links.count;
    bool *gone = calloc(n, sizeof *gone);
    bool progress = true;
    while (progress) {
        progress = false;
        for (uint32_t v = 0; v < n; v++) {
            if (gone[v])
                continue;
            bool has_pred = false;
            for (uint32_t u = 0; u < n && !has_pred; u++)
                has_pred = !gone[u] && b->edge[(size_t)u * n + v];
            if (!has_pred) {
                gone[v] = true;
                progress = true;
            }
        }
    }
    bool cycle = false;
    for (uint32_t v = 0; v < n; v++)
        cycle |= !gone[v];
    free(gone);
    return cycle;
}

static void compare_with_brute_force(const struct cs_tracer *tr, const struct brute *b,
                                     const struct cs_check_result *r)
{
    uint32_t n = tr->links.count;
    assert_int_equal(r->pairs, b->pairs);
    for (unsigned o = 0; o < CS_TRACE_OUTCOMES; o++)
        assert_int_equal(r->outcomes[o], b->outcomes[o]);
    assert_memory_equal(r->link_routes, b->link_routes, n * sizeof *b->link_routes);
    for (uint32_t h = 0; h < 64; h++)
        assert_int_equal(h < r->hops_histogram_len ? r->hops_histogram[h] : 0, b->hist[h]);
    assert_int_equal(r->cdg_edges, b->edges);
    assert_int_equal(r->credit_loop, brute_has_cycle(tr, b));
    for (uint32_t k = 0; k < r->credit_cycle_len; k++) {
        uint32_t from = r->credit_cycle[k], to = r->credit_cycle[(k + 1) % r->credit_cycle_len];
        assert_true(b->edge[(size_t)from * n + to]);
    }
    /* Every described failure really fails, in (LID, source) order. */
    for (uint32_t i = 0; i < r->num_failures; i++) {
        assert_int_not_equal(r->failures[i].trace.outcome, CS_TRACE_DELIVERED);
        if (i)
            assert_true(r->failures[i - 1].lid < r->failures[i].lid ||
                        (r->failures[i - 1].lid == r->failures[i].lid &&
                         r->failures[i - 1].src_port < r->failures[i].src_port));
    }
}

static void test_matches_brute_force_on_damaged_tables(void **state)
{
    (void)state;
    /* XGFT(3;3,3,3;1,3,3): 27 hosts, 27 switches, 3-ary-3-tree (docs/topology-generators.md). */
    struct cs_fabric f;
    fx_generate(&f, "3;3,3,3;1,3,3");
    fx_lids(&f, 0);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    fx_fill_shortest(&t, &f);

    bool saw[4] = {false, false, false, false}; /* loop, black hole, wrong, credit loop */
    for (int round = 0; round < 5; round++) {
        struct cs_tracer tr;
        fx_tracer(&tr, &f, &t);
        for (int all = 0; all < 2; all++) {
            struct brute b;
            brute_force(&tr, all, &b);
            struct cs_check_result first = {0};
            for (unsigned threads = 1; threads <= 5; threads += 2) {
                struct cs_check_options opt = {
                    .all_lids = all, .threads = threads, .max_failures = 7};
                struct cs_check_result r;
                check_ok(&tr, &opt, &r);
                assert_int_equal(r.threads_used, threads);
                compare_with_brute_force(&tr, &b, &r);
                saw[0] |= r.loops > 0;
                saw[1] |= r.black_holes > 0;
                saw[2] |= r.wrong_deliveries > 0;
                saw[3] |= r.credit_loop;
                if (threads == 1) {
                    first = r;
                    continue;
                }
                /* Identical whatever the thread count, described failures included. */
                assert_int_equal(r.num_failures, first.num_failures);
                for (uint32_t i = 0; i < r.num_failures; i++) {
                    assert_int_equal(r.failures[i].lid, first.failures[i].lid);
                    assert_int_equal(r.failures[i].src_port, first.failures[i].src_port);
                }
                assert_int_equal(r.credit_cycle_len, first.credit_cycle_len);
                if (r.credit_cycle_len)
                    assert_memory_equal(r.credit_cycle, first.credit_cycle,
                                        r.credit_cycle_len * sizeof *r.credit_cycle);
                cs_check_result_free(&r);
            }
            if (round == 0)
                assert_true(first.ok); /* undamaged shortest up/down routes */
            cs_check_result_free(&first);
            free(b.link_routes);
            free(b.edge);
        }
        cs_tracer_free(&tr);
        /* Damage, seed 7 + round. Rounds 0-1: 40 entries get a random port (0..ports+1) or
         * 255: loops, black holes, wrong deliveries. Rounds 2-3: 60 entries get a random
         * port leading to another switch: detours that turn down then up, the stuff of credit
         * loops. */
        struct cs_rng rng;
        cs_rng_seed(&rng, 7 + (uint64_t)round);
        for (int k = 0; k < (round < 2 ? 40 : 60); k++) {
            uint32_t s = cs_rng_below(&rng, t.num_switches);
            uint32_t lid = 1 + cs_rng_below(&rng, t.max_lid);
            const struct cs_node *node = &f.nodes[t.switches[s].node];
            uint32_t v = cs_rng_below(&rng, node->num_ports + 3u);
            if (round >= 2) {
                uint32_t peer = f.ports[node->first_port + 1 + v % node->num_ports].peer;
                if (peer == CS_NONE || !cs_node_is_switch(&f.nodes[f.ports[peer].node]))
                    continue;
                v = 1 + v % node->num_ports;
            } else if (v == node->num_ports + 2u) {
                v = CS_LFT_NO_ROUTE;
            }
            cs_lfts_set(&t, s, lid, (uint8_t)v);
        }
    }
    /* The damage reached every kind of problem (seeds 7..11, 3-ary-3-tree). */
    for (int k = 0; k < 4; k++)
        assert_true(saw[k]);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* With LMC 1 every CA port has two LIDs, each a destination of its own. */
static void test_lmc_counts_every_lid(void **state)
{
    (void)state;
    struct cs_fabric f;
    fx_generate(&f, "2;4,4;1,2");
    fx_lids(&f, 1);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    fx_fill_shortest(&t, &f);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    struct cs_check_result r;
    check_ok(&tr, NULL, &r);
    assert_int_equal(r.sources, 16);
    assert_int_equal(r.destinations, 32);
    assert_int_equal(r.pairs, 16 * 15 * 2);
    assert_true(r.ok);
    cs_check_result_free(&r);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* No switch at all: two CAs back to back reach each other in one hop. */
static void test_back_to_back_cas(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t a = fx_ca(&f, 0x500, "a"), b = fx_ca(&f, 0x510, "b");
    fx_link(&f, a, 1, b, 1);
    fx_lids(&f, 0);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    assert_int_equal(tr.num_switches, 0);
    struct cs_check_result r;
    check_ok(&tr, NULL, &r);
    assert_int_equal(r.pairs, 2);
    assert_int_equal(r.delivered, 2);
    assert_int_equal(r.hops_min, 1);
    assert_int_equal(r.hops_max, 1);
    assert_int_equal(r.classes[CS_LINK_HOST_HOST].links, 2);
    assert_int_equal(r.classes[CS_LINK_HOST_HOST].max, 1);
    assert_int_equal(r.switch_links.links, 0);
    assert_int_equal(r.cdg_vertices, 0);
    assert_true(r.ok);
    cs_check_result_free(&r);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_clockwise_has_credit_loop),
        cmocka_unit_test(test_tree_counts_by_hand),
        cmocka_unit_test(test_failures_counted_and_described),
        cmocka_unit_test(test_lids_from_dump_match_guid2lid),
        cmocka_unit_test(test_opensm_dumps_check_clean),
        cmocka_unit_test(test_matches_brute_force_on_damaged_tables),
        cmocka_unit_test(test_lmc_counts_every_lid),
        cmocka_unit_test(test_back_to_back_cas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
