/* The fat-tree machinery's invariants (src/route/fattree.h) and noftree on top of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "route_fixtures.h"

#include "cloudsm/analyze.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/topo_gen.h"
#include "route/fattree.h"

static const char *const fabrics[] = {"2;4,4;1,4", "3;4,3,2;1,2,3",       "3;2,2,2;1,2,2",
                                      "2;6,3;1,2", "3;4,3,2;1,2,2;1,2,1", "2;4,4;1,2;1,3"};

static void expect_same_tables(const struct cs_lfts *a, const struct cs_lfts *b)
{
    assert_int_equal(a->num_switches, b->num_switches);
    for (uint32_t s = 0; s < a->num_switches; s++)
        for (uint32_t lid = 0; lid <= a->max_lid; lid++)
            if (cs_lfts_table(a, s)[lid] != cs_lfts_table(b, s)[lid])
                fail_msg("switch %u LID %u: %u != %u", s, lid, cs_lfts_table(a, s)[lid],
                         cs_lfts_table(b, s)[lid]);
}

static void route_engine(const char *engine, const struct cs_fabric *f,
                         const struct cs_route_inputs *in, struct cs_lfts *t)
{
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    if (cs_route_with(engine, f, NULL, in, t, &stats, NULL, &err) != 0)
        fail_msg("%s: %s", engine, err.msg);
    assert_false(stats.fell_back);
}

/* Tables as cs_route prepares them, routed by the machinery with a policy. */
static void route_machinery(const struct cs_fabric *f, const struct cs_ft_policy *policy,
                            struct cs_lfts *t, struct cs_ft *ft)
{
    struct cs_error err = {{0}};
    assert_int_equal(cs_lfts_for_fabric(t, f, &err), 0);
    for (uint32_t s = 0; s < t->num_switches; s++)
        cs_lfts_set(t, s, t->switches[s].lid, 0);
    assert_int_equal(cs_ft_build(ft, f, NULL, &err), 0);
    assert_int_equal(cs_ft_bind(ft, t, policy, &err), 0);
}

static void route_opensm_targets(struct cs_ft *ft)
{
    struct cs_ft_targets targets = {0};
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_targets_opensm(ft, &targets, &err), 0);
    cs_ft_route_targets(ft, &targets);
    cs_ft_targets_free(&targets);
}

static unsigned first_up_group(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t,
                               uint32_t sw)
{
    (void)ctx, (void)ft, (void)t, (void)sw;
    return 0;
}

static void count_hop(void *ctx, struct cs_ft *ft, const struct cs_ft_target *t, uint32_t sw,
                      uint32_t g, uint32_t cable, enum cs_ft_hop_dir dir, bool main)
{
    (void)ft, (void)t, (void)sw, (void)g, (void)cable, (void)dir, (void)main;
    (*(uint64_t *)ctx)++;
}

/* OpenSM's cable choice, made again through the load accessors: the first cable with the
 * least load_down (a climb) or load_up (the downward pass). */
static unsigned least_loaded_cable(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t,
                                   uint32_t g, bool up)
{
    (void)t;
    const struct cs_ft_group *grp = &ft->groups[g];
    unsigned best = 0;
    for (unsigned i = 1; i < grp->num_ports; i++)
        if (cs_ft_cable_load(ft, g, grp->first_port + i, !up) <
            cs_ft_cable_load(ft, g, grp->first_port + best, !up))
            best = i;
    (*(uint64_t *)ctx) += grp->num_ports > 1;
    return best;
}

static bool admit_all(void *ctx, const struct cs_ft *ft, const struct cs_ft_target *t, uint32_t sw,
                      uint32_t g)
{
    (void)ctx, (void)ft, (void)t, (void)sw, (void)g;
    return true;
}

/* A policy that is told everything and changes nothing (its cable choice is OpenSM's, made
 * through the load accessors), in exact mode, gives ftree. */
static void test_do_nothing_policy_is_ftree(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
        struct cs_fabric f;
        rt_generate(&f, fabrics[i]);
        struct cs_lfts want, got;
        route_engine("ftree", &f, NULL, &want);
        uint64_t hops = 0;
        struct cs_ft_policy policy = {.ctx = &hops,
                                      .up_group = first_up_group,
                                      .cable = least_loaded_cable,
                                      .hop = count_hop,
                                      .admit_down = admit_all,
                                      .exact = true};
        struct cs_ft ft;
        route_machinery(&f, &policy, &got, &ft);
        route_opensm_targets(&ft);
        assert_true(hops > 0);
        expect_same_tables(&want, &got);
        cs_ft_free(&ft);
        cs_lfts_free(&want);
        cs_lfts_free(&got);
        cs_fabric_free(&f);
    }
}

/* One build, routed, reset, routed again: the tables and loads of a fresh build. */
static void test_reset_routes_as_fresh(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
        struct cs_fabric f;
        rt_generate(&f, fabrics[i]);
        struct cs_lfts want, got;
        route_engine("ftree", &f, NULL, &want);
        struct cs_ft ft;
        route_machinery(&f, NULL, &got, &ft);
        /* A different first routing (reversed targets), so that the reset has work to do. */
        struct cs_ft_targets targets = {0};
        struct cs_error err = {{0}};
        assert_int_equal(cs_ft_targets_opensm(&ft, &targets, &err), 0);
        for (uint32_t a = 0, b = targets.count - 1; a < b; a++, b--) {
            struct cs_ft_target tmp = targets.items[a];
            targets.items[a] = targets.items[b];
            targets.items[b] = tmp;
        }
        cs_ft_route_targets(&ft, &targets);
        cs_ft_targets_free(&targets);
        cs_ft_reset(&ft);
        route_opensm_targets(&ft);
        expect_same_tables(&want, &got);
        cs_ft_free(&ft);
        cs_lfts_free(&want);
        cs_lfts_free(&got);
        cs_fabric_free(&f);
    }
}

/* A scoped routing writes no table outside the scope. */
static void test_scope_limits_tables(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "3;4,3,2;1,2,3");
    struct cs_lfts t;
    struct cs_ft ft;
    route_machinery(&f, NULL, &t, &ft);
    /* Everything NO_ROUTE but the switches' own LIDs: a routing outside the scope would show. */
    uint32_t scope[2] = {ft.sw[ft.leaves[0]].node, ft.sw[ft.leaves[1]].node};
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_set_scope(&ft, scope, 2, &err), 0);
    route_opensm_targets(&ft);
    uint32_t inside_entries = 0;
    for (uint32_t s = 0; s < t.num_switches; s++) {
        bool inside = t.switches[s].node == scope[0] || t.switches[s].node == scope[1];
        for (uint32_t lid = 1; lid <= t.max_lid; lid++) {
            uint8_t port = cs_lfts_table(&t, s)[lid];
            if (lid == t.switches[s].lid)
                continue;
            if (!inside && port != CS_LFT_NO_ROUTE)
                fail_msg("switch %u outside the scope got LID %u -> %u", s, lid, port);
            inside_entries += inside && port != CS_LFT_NO_ROUTE;
        }
    }
    assert_true(inside_entries > 0);
    /* An unknown node is refused. */
    uint32_t bad = f.num_nodes + 5;
    assert_int_equal(cs_ft_set_scope(&ft, &bad, 1, &err), -1);
    cs_ft_free(&ft);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* noftree without an order, or with one that names nothing routed, is ftree. */
static void test_noftree_empty_order_is_ftree(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
        struct cs_fabric f;
        rt_generate(&f, fabrics[i]);
        struct cs_lfts want, got, got2;
        route_engine("ftree", &f, NULL, &want);
        route_engine("noftree", &f, NULL, &got);
        expect_same_tables(&want, &got);
        uint64_t unknown = 0x1234;
        struct cs_guid_list order = {.guids = &unknown, .count = 1};
        route_engine("noftree", &f, &(struct cs_route_inputs){.node_order = &order}, &got2);
        expect_same_tables(&want, &got2);
        cs_lfts_free(&want);
        cs_lfts_free(&got);
        cs_lfts_free(&got2);
        cs_fabric_free(&f);
    }
}

/* Hybrid Fig. 5/6: four leaves of four nodes (a-d, e-h, i-l, m-p) under four spines. ftree
 * routes e, i, m (each its leaf's first node) down from the same spine, so b, c, d -> e, i, m
 * share the link up to it (1/3); noftree with the order e, i, m puts i in slot 2 and m in slot 3:
 * three spines, no shared link (1.0). */
static void test_noftree_fig5_fig6(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "2;4,4;1,4");
    struct cs_ft ft;
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_build(&ft, &f, NULL, &err), 0);
    assert_int_equal(ft.num_leaves, 4);
    assert_int_equal(ft.max_cn_per_leaf, 4);
    uint32_t node[4][4]; /* leaf (tuple order), slot: CA port index, as ftree routes them */
    for (unsigned l = 0; l < 4; l++) {
        unsigned k = 0;
        const struct cs_ft_switch *sw = &ft.sw[ft.leaves[l]];
        for (unsigned d = 0; d < sw->num_down; d++) {
            const struct cs_ft_group *g = cs_ft_group_at(&ft, sw->down, d);
            if (g->remote_is_ca)
                node[l][k++] = g->remote;
        }
        assert_int_equal(k, 4);
    }
    cs_ft_free(&ft);
    const uint32_t src[3] = {node[0][1], node[0][2], node[0][3]}; /* b, c, d */
    const uint32_t dst[3] = {node[1][0], node[2][0], node[3][0]}; /* e, i, m */

    struct cs_lfts t;
    route_engine("ftree", &f, NULL, &t);
    assert_true(rt_worst_share(&f, &t, src, dst, 3) < 0.34);
    assert_true(rt_worst_share(&f, &t, src, dst, 3) > 0.33);
    cs_lfts_free(&t);

    uint64_t guids[3] = {f.ports[dst[0]].guid, f.ports[dst[1]].guid, f.ports[dst[2]].guid};
    struct cs_guid_list order = {.guids = guids, .count = 3};
    route_engine("noftree", &f, &(struct cs_route_inputs){.node_order = &order}, &t);
    assert_true(rt_worst_share(&f, &t, src, dst, 3) == 1.0);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_do_nothing_policy_is_ftree),
        cmocka_unit_test(test_reset_routes_as_fresh),
        cmocka_unit_test(test_scope_limits_tables),
        cmocka_unit_test(test_noftree_empty_order_is_ftree),
        cmocka_unit_test(test_noftree_fig5_fig6),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
