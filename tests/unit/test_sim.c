/* Congestion simulator (sim.h): the Tasoulas thesis two-flow example, shift and bisect on
 * ftree-routed full-bisection k-ary-n-trees, a deliberately unbalanced routing with congestion
 * worked out by hand, pattern versus pattern and dep_max_delay, rank selection, agreement with
 * cs_flows_congestion (analyze.h, an independent route walk) on random runs, determinism over
 * thread counts, statistics, and errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "route_fixtures.h"

#include "cloudsm/sim.h"

/* ---- helpers ---- */

struct routed {
    struct cs_fabric f;
    struct cs_lfts t;
    struct cs_tracer tr;
};

/* XGFT(spec) with LIDs and ftree's tables; the tracer is made by ready(). */
static void route_tree(struct routed *r, const char *xgft)
{
    fx_generate(&r->f, xgft);
    fx_lids(&r->f, 0);
    rt_route("ftree", &r->f, NULL, &r->t);
}

static void ready(struct routed *r)
{
    fx_tracer(&r->tr, &r->f, &r->t);
}

static void routed_free(struct routed *r)
{
    cs_tracer_free(&r->tr);
    cs_lfts_free(&r->t);
    cs_fabric_free(&r->f);
}

/* Port index of port 1 of generated host i (GUID rule of topo_gen.h). */
static uint32_t host_port(const struct cs_fabric *f, unsigned i)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == CS_GUID_HOST_BASE + ((uint64_t)i << 8))
            return cs_fabric_port(f, n, 1);
    fail_msg("no host %u", i);
    return CS_NONE;
}

static uint64_t host_port_guid(const struct cs_fabric *f, unsigned i)
{
    return f->ports[host_port(f, i)].guid;
}

static uint32_t count_hosts(const struct cs_fabric *f)
{
    uint32_t hosts = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        hosts += f->nodes[n].type == CS_NODE_CA;
    return hosts;
}

static struct cs_sim_options options(enum cs_pattern_kind kind, uint32_t arg)
{
    struct cs_sim_options o;
    memset(&o, 0, sizeof o);
    o.victim.pattern.kind = kind;
    o.victim.pattern.arg = arg;
    o.select = CS_SELECT_LINEAR;
    o.runs = 1;
    o.seed = 1;
    o.threads = 1;
    return o;
}

static void simulate(const struct cs_tracer *tr, const struct cs_sim_options *o,
                     struct cs_sim_result *r)
{
    struct cs_error err = {{0}};
    if (cs_simulate(tr, o, r, &err) != 0)
        fail_msg("simulate: %s", err.msg);
}

/* The weight histogram is exactly `want` (pairs weight:count, ended by 0). */
static void expect_histogram(const struct cs_sim_result *r, const uint64_t *want)
{
    uint64_t expected[64] = {0};
    uint32_t top = 0;
    for (; want[0]; want += 2) {
        expected[want[0]] = want[1];
        if (want[0] > top)
            top = (uint32_t)want[0];
    }
    assert_int_equal(r->weight_histogram_len, top + 1);
    for (uint32_t w = 0; w <= top; w++)
        if (r->weight_histogram[w] != expected[w])
            fail_msg("weight %u: %llu flows, want %llu", w,
                     (unsigned long long)r->weight_histogram[w], (unsigned long long)expected[w]);
}

/* Point every leaf's up traffic at its first up-port (port k+1 of a k-ary-n-tree leaf: down
 * ports 1..k come first, topo_gen.h). Entries for the hosts below the leaf stay. */
static void unbalance_leaves(struct routed *r, unsigned k)
{
    const struct cs_fabric *f = &r->f;
    for (uint32_t leaf = 0; leaf < f->num_nodes; leaf++) {
        if (!cs_node_is_switch(&f->nodes[leaf]) || ((f->nodes[leaf].guid >> 32) & 0xff) != 1)
            continue;
        for (uint32_t n = 0; n < f->num_nodes; n++) {
            if (f->nodes[n].type != CS_NODE_CA)
                continue;
            uint32_t port = cs_fabric_port(f, n, 1);
            if (f->ports[f->ports[port].peer].node != leaf)
                fx_set(&r->t, f, leaf, f->ports[port].lid, (uint8_t)(k + 1));
        }
    }
}

/* ---- the Tasoulas thesis, Fig. 2.7 (spec thesis-tasoulas-background.md, section 3.3) ---- */

/* Two switches, A (hosts 1 and 2) and B (hosts 3 and 4), joined by two cables (A3-B3, A4-B4).
 * Flows 1->3 and 2->4 (bisect over ranks ordered 1, 3, 2, 4). (a) A sends host 3 and host 4
 * down different cables: no shared link, each flow alone on every link: weight 1, effective
 * bandwidth 1.0 (the thesis prints max congestion "0": it counts sharing beyond the first
 * flow; ORCS's code and cloudsm say 1). (b) A sends both down cable A3: that link carries both
 * flows: weight 2 each, effective bandwidth 0.5, max congestion 2. */
static void two_flows(bool shared, bool exclude_host_links, struct cs_sim_result *res)
{
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t a = fx_switch(&f, 0xa0, 4, "A"), b = fx_switch(&f, 0xb0, 4, "B");
    uint32_t h[5];
    for (unsigned i = 1; i <= 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "host%u", i);
        h[i] = fx_ca(&f, 0x100 * i, name);
    }
    fx_link(&f, h[1], 1, a, 1);
    fx_link(&f, h[2], 1, a, 2);
    fx_link(&f, a, 3, b, 3);
    fx_link(&f, a, 4, b, 4);
    fx_link(&f, h[3], 1, b, 1);
    fx_link(&f, h[4], 1, b, 2);
    fx_lids(&f, 0);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    fx_set(&t, &f, a, fx_lid(&f, h[1], 1), 1);
    fx_set(&t, &f, a, fx_lid(&f, h[2], 1), 2);
    fx_set(&t, &f, a, fx_lid(&f, h[3], 1), 3);
    fx_set(&t, &f, a, fx_lid(&f, h[4], 1), shared ? 3 : 4);
    fx_set(&t, &f, b, fx_lid(&f, h[3], 1), 1);
    fx_set(&t, &f, b, fx_lid(&f, h[4], 1), 2);
    fx_set(&t, &f, b, fx_lid(&f, h[1], 1), 3);
    fx_set(&t, &f, b, fx_lid(&f, h[2], 1), 4);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    uint64_t order[4] = {
        f.ports[cs_fabric_port(&f, h[1], 1)].guid, f.ports[cs_fabric_port(&f, h[3], 1)].guid,
        f.ports[cs_fabric_port(&f, h[2], 1)].guid, f.ports[cs_fabric_port(&f, h[4], 1)].guid};
    struct cs_sim_options o = options(CS_PATTERN_BISECT, 0);
    o.order = order;
    o.order_count = 4;
    o.exclude_host_links = exclude_host_links;
    simulate(&tr, &o, res);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

static void test_thesis_two_flows(void **state)
{
    (void)state;
    for (int exclude = 0; exclude < 2; exclude++) {
        struct cs_sim_result r;
        two_flows(false, exclude, &r);
        assert_int_equal(r.victim_flows, 2);
        assert_true(r.effective_bandwidth[0] == 1.0);
        assert_int_equal(r.max_congestion[0], 1);
        assert_int_equal(r.sum_max_congestion[0], 1);
        assert_int_equal(r.max_delay[0], 1);
        expect_histogram(&r, (const uint64_t[]){1, 2, 0});
        cs_sim_result_free(&r);

        two_flows(true, exclude, &r);
        assert_true(r.effective_bandwidth[0] == 0.5);
        assert_int_equal(r.max_congestion[0], 2);
        assert_int_equal(r.sum_max_congestion[0], 2);
        assert_int_equal(r.max_delay[0], 2);
        expect_histogram(&r, (const uint64_t[]){2, 2, 0});
        cs_sim_result_free(&r);
    }
}

/* ---- full-bisection k-ary-n-trees routed by ftree ---- */

/* ftree routes the generated trees so that every shift permutation is free of shared links when
 * the hosts are in its routing order, which for the generator is host index order = fabric
 * order (test_ftree.c, test_shift_permutations): --select linear. So every flow of every shift
 * level has weight 1: N(N-1) flows of weight 1, sum_max_cong = N-1 levels x 1, and the delay
 * chain runs through all N-1 levels (every rank sends after it received) = N-1. */
static void test_ftree_shift_weight_one(void **state)
{
    (void)state;
    static const char *trees[] = {"2;4,4;1,4", "3;4,4,4;1,4,4", "3;3,3,3;1,3,3",
                                  "4;2,2,2,2;1,2,2,2"};
    for (size_t i = 0; i < sizeof trees / sizeof *trees; i++) {
        struct routed rt;
        route_tree(&rt, trees[i]);
        ready(&rt);
        uint32_t n = count_hosts(&rt.f);
        struct cs_sim_options o = options(CS_PATTERN_SHIFT, 0);
        struct cs_sim_result r;
        simulate(&rt.tr, &o, &r);
        assert_int_equal(r.levels, n - 1);
        assert_int_equal(r.victim_flows, (uint64_t)n * (n - 1));
        expect_histogram(&r, (const uint64_t[]){1, (uint64_t)n * (n - 1), 0});
        assert_true(r.effective_bandwidth[0] == 1.0);
        assert_int_equal(r.max_congestion[0], 1);
        assert_int_equal(r.sum_max_congestion[0], n - 1);
        assert_int_equal(r.max_delay[0], n - 1);
        cs_sim_result_free(&r);

        /* Bisect by shift: ranks ordered host 0, host N/2, host 1, host N/2+1, ... so that
         * bisect's pairs (2i, 2i+1) are host i -> host i+N/2, half of the shift N/2
         * permutation, and bisect_fb_sym is all of it: weight 1 everywhere. (N even: with 27
         * hosts the way back would be another shift.) */
        if (n % 2) {
            routed_free(&rt);
            continue;
        }
        uint64_t *order = calloc(n, sizeof *order);
        assert_non_null(order);
        for (uint32_t h = 0; h < n / 2; h++) {
            order[2 * h] = host_port_guid(&rt.f, h);
            order[2 * h + 1] = host_port_guid(&rt.f, h + n / 2);
        }
        o = options(CS_PATTERN_BISECT, 0);
        o.order = order;
        o.order_count = n;
        simulate(&rt.tr, &o, &r);
        expect_histogram(&r, (const uint64_t[]){1, n / 2, 0});
        assert_true(r.effective_bandwidth[0] == 1.0);
        assert_int_equal(r.max_congestion[0], 1);
        cs_sim_result_free(&r);
        o.victim.pattern.kind = CS_PATTERN_BISECT_FB_SYM;
        simulate(&rt.tr, &o, &r);
        expect_histogram(&r, (const uint64_t[]){1, n, 0});
        assert_true(r.effective_bandwidth[0] == 1.0);
        cs_sim_result_free(&r);
        free(order);
        routed_free(&rt);
    }
}

/* Random bisections are not all congestion-free on the same tree: that is what the effective
 * bisection bandwidth measures. Seed 1, 200 runs on the 4-ary-3-tree: at least one run shares
 * a link (min < 1); 200 runs x 32 flows are in the histogram. */
static void test_ftree_random_bisect(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "3;4,4,4;1,4,4");
    ready(&rt);
    struct cs_sim_options o = options(CS_PATTERN_BISECT, 0);
    o.select = CS_SELECT_RANDOM;
    o.runs = 200;
    struct cs_sim_result r;
    simulate(&rt.tr, &o, &r);
    assert_true(r.effective_bandwidth_stat.min < 1.0);
    assert_true(r.effective_bandwidth_stat.min > 0);
    assert_true(r.effective_bandwidth_stat.max <= 1.0);
    assert_int_equal(r.effective_bandwidth_stat.samples, 200);
    uint64_t flows = 0;
    for (uint32_t w = 0; w < r.weight_histogram_len; w++)
        flows += r.weight_histogram[w];
    assert_int_equal(flows, 200 * 32);
    cs_sim_result_free(&r);
    routed_free(&rt);
}

/* ---- a deliberately unbalanced routing, by hand ---- */

/* 4-ary-2-tree (16 hosts, 4 leaves of 4 hosts, 4 spines), ftree's tables, then every leaf sends
 * all remote traffic up its first up-port, to spine 0 (spine 0 has one down cable per leaf).
 * Shift s, ranks = hosts: leaf L's hosts are 4L..4L+3; host i sends to i+s mod 16.
 * R(s) = flows leaving a leaf = flows entering a leaf (the same for every leaf):
 *   s = 1, 2, 3:     R = s        (hosts with i%4 + s >= 4 leave), the other 4-s stay local
 *   s = 4 .. 12:     R = 4        (all leave; s = 12 + 0 included)
 *   s = 13, 14, 15:  R = 16 - s   (t = s-12 hosts wrap round to their own leaf)
 * A remote flow crosses its leaf's up-link (R flows) and spine 0's down-link into the target
 * leaf (R flows): weight R. A local flow crosses only its two host links: weight 1.
 * Histogram over the 15 levels x 16 flows: weight 1: 16+8+4 + 4+8+16 = 56; weight 2: 8+8 = 16;
 * weight 3: 12+12 = 24; weight 4: 9 x 16 = 144. Effective bandwidth (56 + 16/2 + 24/3 +
 * 144/4) / 240 = 108/240 = 0.45. sum_max_cong = 1+2+3 + 9x4 + 3+2+1 = 48; max congestion 4.
 * Delay: every rank sends once and receives once per level, so a chain runs through all 15
 * levels; the one starting at rank 2 (senders 2,3,5,8,12,1,7,14,6,15,9,4,0,13,11) has weights
 * 1,2,3,4x9,3,2,1 = 48, the most any chain can have (each level's maximum). Leaf 0's up-link to
 * spine 0 carries R(s) in level s: 48 over the run, 4 at most; its second up-link carries 0. */
static void test_unbalanced_shift(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "2;4,4;1,4");
    unbalance_leaves(&rt, 4);
    ready(&rt);
    struct cs_sim_options o = options(CS_PATTERN_SHIFT, 0);
    o.runs = 2;
    o.threads = 2;
    o.link_stats = true;
    struct cs_sim_result r;
    simulate(&rt.tr, &o, &r);
    expect_histogram(&r, (const uint64_t[]){1, 2 * 56, 2, 2 * 16, 3, 2 * 24, 4, 2 * 144, 0});
    for (int run = 0; run < 2; run++) {
        assert_true(r.effective_bandwidth[run] == 108.0 / 240.0);
        assert_int_equal(r.max_congestion[run], 4);
        assert_int_equal(r.sum_max_congestion[run], 48);
        assert_int_equal(r.max_delay[run], 48);
    }
    uint32_t leaf0 = CS_NONE;
    for (uint32_t n = 0; n < rt.f.num_nodes; n++)
        if (rt.f.nodes[n].guid == CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32))
            leaf0 = n;
    assert_true(leaf0 != CS_NONE);
    uint32_t up1 = rt.tr.links.out[cs_fabric_port(&rt.f, leaf0, 5)];
    uint32_t up2 = rt.tr.links.out[cs_fabric_port(&rt.f, leaf0, 6)];
    assert_int_equal(r.link_max[up1], 4);
    assert_int_equal(r.link_sum[up1], 2 * 48);
    assert_int_equal(r.link_max[up2], 0);
    assert_int_equal(r.link_sum[up2], 0);
    /* Host links: one flow each way per level, 15 levels, 2 runs. */
    uint32_t host0_up = rt.tr.links.out[host_port(&rt.f, 0)];
    assert_int_equal(r.link_max[host0_up], 1);
    assert_int_equal(r.link_sum[host0_up], 30);
    cs_sim_result_free(&r);

    /* Bisect by shift 8 (host i -> i+8): all 4 flows of a leaf leave by one up-link: weight 4. */
    uint64_t order[16];
    for (unsigned h = 0; h < 8; h++) {
        order[2 * h] = host_port_guid(&rt.f, h);
        order[2 * h + 1] = host_port_guid(&rt.f, h + 8);
    }
    o = options(CS_PATTERN_BISECT, 0);
    o.order = order;
    o.order_count = 16;
    simulate(&rt.tr, &o, &r);
    expect_histogram(&r, (const uint64_t[]){4, 8, 0});
    assert_true(r.effective_bandwidth[0] == 0.25);
    cs_sim_result_free(&r);
    routed_free(&rt);
}

/* ---- pattern versus pattern ---- */

/* The unbalanced 4-ary-2-tree again. Victim: tree on hosts 0, 4, 8, 12 (one per leaf): level 0
 * 0->4; level 1 0->8 and 4->12. Aggressor: gather on hosts 13 (rank 0, pinned by --order),
 * 1, 2, 3: 1,2,3 -> 13 in every level (one level, repeated).
 * Level 0: leaf 0's up-link carries 0->4 and the three aggressor flows: the victim flow weighs 4.
 * Level 1: 0->8 again shares leaf 0's up-link with three aggressor flows (4); 4->12 shares
 * spine 0's down-link into leaf 3 with them (4). Victim weights 4, 4, 4: effective bandwidth
 * 0.25, sum_max_cong 4+4 = 8. Delay: host 4 received in level 0 (ends at 4) and sends first in
 * level 1: 4+4 = 8; host 0's level-1 send does not wait (it received nothing). Without the
 * aggressor (null) every victim weight is 1: delay 1+1 = 2. */
static void test_versus_delay(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "2;4,4;1,4");
    unbalance_leaves(&rt, 4);
    ready(&rt);
    uint32_t victim[4] = {host_port(&rt.f, 0), host_port(&rt.f, 4), host_port(&rt.f, 8),
                          host_port(&rt.f, 12)};
    uint32_t aggressor[4] = {host_port(&rt.f, 1), host_port(&rt.f, 2), host_port(&rt.f, 3),
                             host_port(&rt.f, 13)};
    uint64_t order[1] = {host_port_guid(&rt.f, 13)};
    struct cs_sim_options o = options(CS_PATTERN_TREE, 0);
    o.victim.ports = victim;
    o.victim.num_ports = 4;
    o.versus = true;
    o.aggressor.pattern.kind = CS_PATTERN_GATHER;
    o.aggressor.ports = aggressor;
    o.aggressor.num_ports = 4;
    o.order = order;
    o.order_count = 1;
    for (int exclude = 0; exclude < 2; exclude++) {
        o.exclude_host_links = exclude; /* the shared links are switch links */
        struct cs_sim_result r;
        simulate(&rt.tr, &o, &r);
        assert_int_equal(r.levels, 2);
        assert_int_equal(r.victim_flows, 3);
        assert_int_equal(r.aggressor_flows, 6);
        expect_histogram(&r, (const uint64_t[]){4, 3, 0});
        assert_true(r.effective_bandwidth[0] == 0.25);
        assert_int_equal(r.sum_max_congestion[0], 8);
        assert_int_equal(r.max_delay[0], 8);
        assert_int_equal(r.max_congestion[0], 4);
        cs_sim_result_free(&r);
    }
    o.exclude_host_links = false;
    o.aggressor.pattern.kind = CS_PATTERN_NULL;
    struct cs_sim_result r;
    simulate(&rt.tr, &o, &r);
    assert_int_equal(r.levels, 2);
    assert_int_equal(r.aggressor_flows, 0);
    expect_histogram(&r, (const uint64_t[]){1, 3, 0});
    assert_int_equal(r.max_delay[0], 2);
    assert_int_equal(r.sum_max_congestion[0], 2);
    cs_sim_result_free(&r);

    /* A null victim: no victim flow, so no effective bandwidth (NaN); the aggressor still
     * loads the links (gather on 4 hosts: 3 flows into host 13's link). */
    o.victim.pattern.kind = CS_PATTERN_NULL;
    o.aggressor.pattern.kind = CS_PATTERN_GATHER;
    simulate(&rt.tr, &o, &r);
    assert_int_equal(r.levels, 1);
    assert_true(isnan(r.effective_bandwidth[0]));
    assert_int_equal(r.max_congestion[0], 3);
    assert_int_equal(r.max_delay[0], 0);
    cs_sim_result_free(&r);
    routed_free(&rt);
}

/* Level counts when victim and aggressor differ: whole aggressor cycles, max(1, ceil(V/A)) * A
 * (ORCS's ptrnvsptrn). Victim shift on 5 hosts: V = 4; aggressor bruck on 8 hosts: A = 3 ->
 * 6 levels, the aggressor's 8 flows in each: 48. Victim tree on 4 hosts: V = 2 -> 3 levels. */
static void test_versus_levels(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "2;4,4;1,4");
    ready(&rt);
    uint32_t victim[5], aggressor[8];
    for (unsigned i = 0; i < 5; i++)
        victim[i] = host_port(&rt.f, i);
    for (unsigned i = 0; i < 8; i++)
        aggressor[i] = host_port(&rt.f, 8 + i);
    struct cs_sim_options o = options(CS_PATTERN_SHIFT, 0);
    o.victim.ports = victim;
    o.victim.num_ports = 5;
    o.versus = true;
    o.aggressor.pattern.kind = CS_PATTERN_BRUCK;
    o.aggressor.ports = aggressor;
    o.aggressor.num_ports = 8;
    struct cs_sim_result r;
    simulate(&rt.tr, &o, &r);
    assert_int_equal(r.victim_levels, 4);
    assert_int_equal(r.aggressor_levels, 3);
    assert_int_equal(r.levels, 6);
    assert_int_equal(r.victim_flows, 20);
    assert_int_equal(r.aggressor_flows, 48);
    cs_sim_result_free(&r);
    o.victim.pattern.kind = CS_PATTERN_TREE;
    o.victim.num_ports = 4;
    simulate(&rt.tr, &o, &r);
    assert_int_equal(r.levels, 3);
    assert_int_equal(r.victim_flows, 3);
    assert_int_equal(r.aggressor_flows, 24);
    cs_sim_result_free(&r);
    routed_free(&rt);
}

/* ---- rank selection ---- */

static void ranks_of(const struct cs_tracer *tr, const struct cs_sim_options *o, uint32_t run,
                     uint32_t *v, uint32_t *nv, uint32_t *a, uint32_t *na)
{
    struct cs_error err = {{0}};
    if (cs_sim_ranks(tr, o, run, v, nv, a, na, &err) != 0)
        fail_msg("ranks: %s", err.msg);
}

static void test_selection(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "2;4,4;1,4");
    ready(&rt);
    uint32_t v[16], a[16], nv, na;
    struct cs_sim_options o = options(CS_PATTERN_BISECT, 0);

    ranks_of(&rt.tr, &o, 0, v, &nv, NULL, NULL);
    assert_int_equal(nv, 16);
    for (unsigned i = 0; i < 16; i++)
        assert_int_equal(v[i], host_port(&rt.f, i)); /* linear: fabric order */
    o.select = CS_SELECT_GUID_DESC;
    ranks_of(&rt.tr, &o, 0, v, &nv, NULL, NULL);
    for (unsigned i = 0; i < 16; i++)
        assert_int_equal(v[i], host_port(&rt.f, 15 - i));
    o.select = CS_SELECT_GUID_ASC;
    ranks_of(&rt.tr, &o, 0, v, &nv, NULL, NULL);
    for (unsigned i = 0; i < 16; i++)
        assert_int_equal(v[i], host_port(&rt.f, i));

    /* Order: host 5 by node GUID, host 3 by port GUID, an unknown GUID and a repeat skipped;
     * then the rest in selection order; commsize keeps the first 6. */
    o.select = CS_SELECT_LINEAR;
    uint64_t order[4] = {rt.f.nodes[rt.f.ports[host_port(&rt.f, 5)].node].guid,
                         host_port_guid(&rt.f, 3), 0x1234, host_port_guid(&rt.f, 5)};
    o.order = order;
    o.order_count = 4;
    o.victim.commsize = 6;
    ranks_of(&rt.tr, &o, 0, v, &nv, NULL, NULL);
    assert_int_equal(nv, 6);
    static const unsigned want[6] = {5, 3, 0, 1, 2, 4};
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(v[i], host_port(&rt.f, want[i]));

    /* Random: pinned ranks stay first; each run is a permutation of the rest; a run is the same
     * every time it is asked for; runs differ. */
    o.select = CS_SELECT_RANDOM;
    o.victim.commsize = 0;
    uint32_t v2[16], nv2;
    ranks_of(&rt.tr, &o, 3, v, &nv, NULL, NULL);
    ranks_of(&rt.tr, &o, 3, v2, &nv2, NULL, NULL);
    assert_memory_equal(v, v2, sizeof v);
    assert_int_equal(v[0], host_port(&rt.f, 5));
    assert_int_equal(v[1], host_port(&rt.f, 3));
    uint8_t seen[16] = {0};
    for (unsigned i = 0; i < 16; i++)
        for (unsigned h = 0; h < 16; h++)
            seen[h] += v[i] == host_port(&rt.f, h);
    for (unsigned h = 0; h < 16; h++)
        assert_int_equal(seen[h], 1);
    ranks_of(&rt.tr, &o, 4, v2, &nv2, NULL, NULL);
    assert_true(memcmp(v, v2, sizeof v) != 0);

    /* Split (ORCS's part_commsize): 4 victim ranks, the other 12 the aggressor's. */
    o.order_count = 0;
    o.versus = true;
    o.split = true;
    o.aggressor.pattern.kind = CS_PATTERN_BISECT;
    o.victim.commsize = 4;
    ranks_of(&rt.tr, &o, 0, v, &nv, a, &na);
    assert_int_equal(nv, 4);
    assert_int_equal(na, 12);
    memset(seen, 0, sizeof seen);
    for (unsigned h = 0; h < 16; h++) {
        for (unsigned i = 0; i < 4; i++)
            seen[h] += v[i] == host_port(&rt.f, h);
        for (unsigned i = 0; i < 12; i++)
            seen[h] += a[i] == host_port(&rt.f, h);
    }
    for (unsigned h = 0; h < 16; h++)
        assert_int_equal(seen[h], 1);
    routed_free(&rt);

    /* Run seeds: the (r+1)-th output of splitmix64 seeded with the seed. */
    struct cs_rng g;
    cs_rng_seed(&g, 77);
    for (uint32_t run = 0; run < 5; run++)
        assert_true(cs_rng_next(&g) == cs_sim_run_seed(77, run));
}

/* ---- agreement with cs_flows_congestion ---- */

/* For each run the ranks come from cs_sim_ranks; the flows then go through cs_flows_congestion
 * (analyze.h: its own route tracing, per-flow max link load) and the effective bandwidth is
 * summed the same way (by weight). Both must agree exactly, run by run. */
static void cross_check(const struct routed *rt, struct cs_sim_options o, uint32_t runs)
{
    o.runs = runs;
    struct cs_sim_result r;
    simulate(&rt->tr, &o, &r);
    uint32_t n = count_hosts(&rt->f);
    uint32_t *ports = calloc(n, sizeof *ports), nports;
    assert_non_null(ports);
    for (uint32_t run = 0; run < runs; run++) {
        ranks_of(&rt->tr, &o, run, ports, &nports, NULL, NULL);
        struct cs_pattern p;
        struct cs_error err = {{0}};
        assert_int_equal(cs_pattern_init(&p, &o.victim.pattern, nports, NULL, &err), 0);
        uint64_t hist[4096] = {0};
        uint32_t top = 0, max_cong = 0;
        for (uint32_t l = 0; l < p.levels; l++) {
            uint32_t size = (uint32_t)cs_pattern_level_size(&p, l);
            struct cs_pair *pairs = calloc(size, sizeof *pairs);
            struct cs_flow *flows = calloc(size, sizeof *flows);
            uint32_t *route_max = calloc(size, sizeof *route_max);
            assert_true(pairs && flows && route_max);
            cs_pattern_pairs(&p, l, 0, size, pairs);
            for (uint32_t i = 0; i < size; i++) {
                flows[i].src_port = ports[pairs[i].src];
                flows[i].dst_lid = rt->f.ports[ports[pairs[i].dst]].lid;
            }
            uint32_t level_max;
            if (cs_flows_congestion(&rt->tr, flows, size, route_max, NULL, &level_max, &err) != 0)
                fail_msg("%s", err.msg);
            if (level_max > max_cong)
                max_cong = level_max;
            for (uint32_t i = 0; i < size; i++) {
                assert_true(route_max[i] < 4096);
                hist[route_max[i]]++;
                if (route_max[i] > top)
                    top = route_max[i];
            }
            free(pairs);
            free(flows);
            free(route_max);
        }
        double inverse = 0;
        uint64_t total = 0;
        for (uint32_t w = 1; w <= top; w++)
            if (hist[w]) {
                inverse += (double)hist[w] / w;
                total += hist[w];
            }
        if (r.effective_bandwidth[run] != inverse / (double)total)
            fail_msg("run %u: effective bandwidth %.17g, flows say %.17g", run,
                     r.effective_bandwidth[run], inverse / (double)total);
        assert_int_equal(r.max_congestion[run], max_cong);
        cs_pattern_free(&p);
    }
    free(ports);
    cs_sim_result_free(&r);
}

static void test_agrees_with_flows_congestion(void **state)
{
    (void)state;
    /* Shortest-path tables with a lid % k tie break (not ftree): plenty of shared links. */
    struct routed rt;
    fx_generate(&rt.f, "3;4,4,4;1,4,4");
    fx_lids(&rt.f, 0);
    fx_lfts(&rt.t, &rt.f);
    fx_fill_shortest(&rt.t, &rt.f);
    ready(&rt);
    struct cs_sim_options o = options(CS_PATTERN_BISECT, 0);
    o.select = CS_SELECT_RANDOM;
    o.seed = 2024;
    cross_check(&rt, o, 40);
    o.victim.pattern.kind = CS_PATTERN_BRUCK;
    o.victim.commsize = 40;
    cross_check(&rt, o, 10);
    o.victim.pattern.kind = CS_PATTERN_RECEIVERS;
    o.victim.pattern.arg = 3;
    cross_check(&rt, o, 10);
    routed_free(&rt);

    /* All-to-all on 300 of the 512 hosts of the 8-ary-3-tree: 89700 flows in one level, more
     * than the simulator keeps routes for (65536), so its second pass walks them again; 250
     * hosts (62250 flows) take the kept-routes path. */
    route_tree(&rt, "3;8,8,8;1,8,8");
    ready(&rt);
    o = options(CS_PATTERN_ALLTOALL, 0);
    o.victim.commsize = 300;
    cross_check(&rt, o, 1);
    o.victim.commsize = 250;
    cross_check(&rt, o, 1);
    routed_free(&rt);
}

/* ---- determinism ---- */

static void expect_same(const struct cs_sim_result *a, const struct cs_sim_result *b)
{
    assert_int_equal(a->runs, b->runs);
    assert_memory_equal(a->effective_bandwidth, b->effective_bandwidth,
                        a->runs * sizeof *a->effective_bandwidth);
    assert_memory_equal(a->max_congestion, b->max_congestion, a->runs * sizeof *a->max_congestion);
    assert_memory_equal(a->sum_max_congestion, b->sum_max_congestion,
                        a->runs * sizeof *a->sum_max_congestion);
    assert_memory_equal(a->max_delay, b->max_delay, a->runs * sizeof *a->max_delay);
    assert_memory_equal(&a->effective_bandwidth_stat, &b->effective_bandwidth_stat,
                        sizeof a->effective_bandwidth_stat);
    assert_memory_equal(&a->max_congestion_stat, &b->max_congestion_stat,
                        sizeof a->max_congestion_stat);
    assert_memory_equal(&a->sum_max_congestion_stat, &b->sum_max_congestion_stat,
                        sizeof a->sum_max_congestion_stat);
    assert_memory_equal(&a->max_delay_stat, &b->max_delay_stat, sizeof a->max_delay_stat);
    assert_int_equal(a->weight_histogram_len, b->weight_histogram_len);
    assert_memory_equal(a->weight_histogram, b->weight_histogram,
                        a->weight_histogram_len * sizeof *a->weight_histogram);
    assert_int_equal(a->num_links, b->num_links);
    assert_true((a->link_max == NULL) == (b->link_max == NULL));
    if (a->link_max) {
        assert_memory_equal(a->link_max, b->link_max, a->num_links * sizeof *a->link_max);
        assert_memory_equal(a->link_sum, b->link_sum, a->num_links * sizeof *a->link_sum);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "3;4,4,4;1,4,4");
    ready(&rt);
    /* Random ranks, a random victim pattern and an aggressor, split ORCS-style. */
    struct cs_sim_options o = options(CS_PATTERN_RAND, 0);
    o.select = CS_SELECT_RANDOM;
    o.versus = true;
    o.split = true;
    o.victim.commsize = 24;
    o.aggressor.pattern.kind = CS_PATTERN_BRUCK;
    o.runs = 300;
    o.seed = 42;
    o.link_stats = true;
    struct cs_sim_result one, two, three, again;
    o.threads = 1;
    simulate(&rt.tr, &o, &one);
    o.threads = 2;
    simulate(&rt.tr, &o, &two);
    o.threads = 3;
    simulate(&rt.tr, &o, &three);
    o.threads = 2;
    simulate(&rt.tr, &o, &again);
    assert_int_equal(one.threads_used, 1);
    assert_int_equal(two.threads_used, 2);
    expect_same(&one, &two);
    expect_same(&one, &three);
    expect_same(&two, &again);
    /* The runs are not all alike, and another seed gives other runs. */
    assert_true(one.effective_bandwidth_stat.min < one.effective_bandwidth_stat.max);
    struct cs_sim_result other;
    o.seed = 43;
    simulate(&rt.tr, &o, &other);
    assert_true(memcmp(one.effective_bandwidth, other.effective_bandwidth,
                       300 * sizeof *one.effective_bandwidth) != 0);
    cs_sim_result_free(&one);
    cs_sim_result_free(&two);
    cs_sim_result_free(&three);
    cs_sim_result_free(&again);
    cs_sim_result_free(&other);

    /* Plain random bisect, 1 and 2 threads. */
    o = options(CS_PATTERN_BISECT, 0);
    o.select = CS_SELECT_RANDOM;
    o.runs = 500;
    o.seed = 7;
    simulate(&rt.tr, &o, &one);
    o.threads = 2;
    simulate(&rt.tr, &o, &two);
    expect_same(&one, &two);
    cs_sim_result_free(&one);
    cs_sim_result_free(&two);
    routed_free(&rt);
}

/* ---- pinned results ---- */

/* FNV-1a over bytes: one number standing for a whole result array. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Everything a result holds that a seed fixes: per-run values, statistics, histogram, links. */
static uint64_t result_digest(const struct cs_sim_result *r)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    h = fnv1a(h, r->effective_bandwidth, r->runs * sizeof *r->effective_bandwidth);
    h = fnv1a(h, r->max_congestion, r->runs * sizeof *r->max_congestion);
    h = fnv1a(h, r->sum_max_congestion, r->runs * sizeof *r->sum_max_congestion);
    h = fnv1a(h, r->max_delay, r->runs * sizeof *r->max_delay);
    const struct cs_sim_stat *stats[] = {&r->effective_bandwidth_stat, &r->max_congestion_stat,
                                         &r->sum_max_congestion_stat, &r->max_delay_stat};
    for (int i = 0; i < 4; i++) {
        const double v[] = {stats[i]->min, stats[i]->mean, stats[i]->max, stats[i]->stddev,
                            stats[i]->ci99};
        h = fnv1a(h, v, sizeof v);
    }
    h = fnv1a(h, r->weight_histogram, r->weight_histogram_len * sizeof *r->weight_histogram);
    if (r->link_max) {
        h = fnv1a(h, r->link_max, r->num_links * sizeof *r->link_max);
        h = fnv1a(h, r->link_sum, r->num_links * sizeof *r->link_sum);
    }
    return h;
}

/* XGFT(3;4,4,4;1,4,4) with 2-VF vSwitch hypervisors (128 VFs), ftree's tables; `ports` gets
 * the VF ports of hypervisors' VFs except every fourth (96 of them), as a VM placement might. */
static uint32_t vswitch_tree(struct routed *r, uint32_t *ports)
{
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pgft_parse(&spec, "3;4,4,4;1,4,4", false, &err), 0);
    spec.vfs_per_hypervisor = 2;
    cs_fabric_init(&r->f);
    assert_int_equal(cs_pgft_generate(&r->f, &spec, &err), 0);
    fx_lids(&r->f, 0);
    rt_route("ftree", &r->f, NULL, &r->t);
    ready(r);
    uint32_t count = 0, vf = 0;
    for (uint32_t n = 0; n < r->f.num_nodes; n++)
        if (r->f.nodes[n].type == CS_NODE_CA && vf++ % 4 != 3)
            ports[count++] = cs_fabric_port(&r->f, n, 1);
    assert_int_equal(vf, 128);
    return count;
}

/* The simulator's contract is that a seed fixes every value. These are the values the
 * simulator gave before its speed-up (per-route walking, commit 87d16be) for random bisect
 * over a 96-port group of a vSwitch fat tree: the first runs in full, all 2000 runs and the
 * rest of the result as a digest; also with link statistics, an aggressor and without host
 * links. Any change to what is simulated shows up here, and 1, 2 and 3 threads agree. */
static void test_pinned_vswitch_bisect(void **state)
{
    (void)state;
    struct routed rt;
    uint32_t ports[128];
    uint32_t count = vswitch_tree(&rt, ports);
    struct cs_sim_options o = options(CS_PATTERN_BISECT, 0);
    o.select = CS_SELECT_RANDOM;
    o.victim.ports = ports;
    o.victim.num_ports = count;
    o.runs = 2000;
    o.seed = 2024;
    static const double want_bw[12] = {
        0x1.d1c71c71c71c7p-2,
        0x1.eaaaaaaaaaaabp-2,
        0x1.1aaaaaaaaaaabp-1,
        0x1.2555555555555p-1,
        0x1.0555555555555p-1,
        0x1.f1c71c71c71c7p-2,
        0x1.0aaaaaaaaaaabp-1,
        0x1.2p-1,
        0x1.01c71c71c71c7p-1,
        0x1.0555555555555p-1,
        0x1.ep-2,
        0x1.d1c71c71c71c7p-2,
    };
    static const uint32_t want_cong[12] = {4, 4, 3, 3, 3, 3, 3, 3, 4, 4, 3, 3};
    for (unsigned threads = 1; threads <= 3; threads++) {
        struct cs_sim_result r;
        o.threads = threads;
        simulate(&rt.tr, &o, &r);
        for (int i = 0; i < 12; i++) {
            assert_true(r.effective_bandwidth[i] == want_bw[i]);
            assert_int_equal(r.max_congestion[i], want_cong[i]);
        }
        assert_int_equal(result_digest(&r), UINT64_C(0xd254f0916d567259));
        cs_sim_result_free(&r);
    }

    /* The same group with link statistics and a shift aggressor on the other 32 VFs... */
    uint32_t others[128], num_others = 0, vf = 0;
    for (uint32_t n = 0; n < rt.f.num_nodes; n++)
        if (rt.f.nodes[n].type == CS_NODE_CA && vf++ % 4 == 3)
            others[num_others++] = cs_fabric_port(&rt.f, n, 1);
    o.runs = 500;
    o.link_stats = true;
    o.versus = true;
    o.aggressor.pattern.kind = CS_PATTERN_SHIFT;
    o.aggressor.ports = others;
    o.aggressor.num_ports = num_others;
    struct cs_sim_result r;
    o.threads = 2;
    simulate(&rt.tr, &o, &r);
    assert_int_equal(result_digest(&r), UINT64_C(0x95e9cf623e8852e6));
    cs_sim_result_free(&r);
    /* ... and without host links. */
    o.exclude_host_links = true;
    simulate(&rt.tr, &o, &r);
    assert_int_equal(result_digest(&r), UINT64_C(0x977ee68d3646009a));
    cs_sim_result_free(&r);
    routed_free(&rt);
}

/* ---- host links ---- */

/* Gather onto host 0 from the other three hosts of its leaf: the leaf's link down to host 0
 * carries 3 flows, and no switch link is used. With host links: weight 3 each, effective
 * bandwidth 1/3. Without: nothing counted, weight 1 each (nothing shares their path), max
 * congestion 0 (no counted link carries anything). */
static void test_exclude_host_links(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "2;4,4;1,4");
    ready(&rt);
    struct cs_sim_options o = options(CS_PATTERN_GATHER, 0);
    o.victim.commsize = 4;
    struct cs_sim_result r;
    simulate(&rt.tr, &o, &r);
    expect_histogram(&r, (const uint64_t[]){3, 3, 0});
    assert_true(r.effective_bandwidth[0] == 1.0 / 3.0);
    assert_int_equal(r.max_congestion[0], 3);
    cs_sim_result_free(&r);
    o.exclude_host_links = true;
    simulate(&rt.tr, &o, &r);
    expect_histogram(&r, (const uint64_t[]){1, 3, 0});
    assert_true(r.effective_bandwidth[0] == 1.0);
    assert_int_equal(r.max_congestion[0], 0);
    cs_sim_result_free(&r);
    routed_free(&rt);
}

/* ---- statistics ---- */

static void expect_near(double got, double want, double tolerance)
{
    if (!(fabs(got - want) <= tolerance))
        fail_msg("%.12g, want %.12g", got, want);
}

/* Hand-worked samples. {1,2,3,4,5}: mean 3, squares 10, sample sd sqrt(10/4) = 1.58113883,
 * 5 samples -> t(0.995, 4) = 4.60409487: half-width 4.60409487 * 1.58113883 / sqrt(5)
 * = 4.60409487 * 0.70710678 = 3.255587; ORCS: 2.576 * (10/5) / sqrt(5) = 2.30404.
 * 30 zeros and 30 ones: mean 0.5, sd sqrt(15/59) = 0.50421948; 60 > 50 samples -> z 2.576:
 * 2.576 * 0.50421948 / sqrt(60) = 0.167683. */
static void test_stats(void **state)
{
    (void)state;
    struct cs_sim_stat s;
    const double five[5] = {4, 2, 5, 1, 3};
    cs_sim_stat_compute(five, 5, &s);
    assert_int_equal(s.samples, 5);
    assert_true(s.min == 1 && s.max == 5 && s.mean == 3);
    expect_near(s.stddev, 1.58113883, 1e-8);
    expect_near(s.ci99, 3.255587, 1e-6);
    expect_near(s.orcs_error, 2.30404, 1e-5);

    double sixty[60];
    for (int i = 0; i < 60; i++)
        sixty[i] = i % 2;
    cs_sim_stat_compute(sixty, 60, &s);
    assert_true(s.mean == 0.5);
    expect_near(s.stddev, 0.50421948, 1e-8);
    expect_near(s.ci99, 0.167683, 1e-6);

    /* Quantile boundaries: t for 2..50 samples, z above. */
    expect_near(cs_sim_ci99_quantile(2), 63.6567412, 1e-7);
    expect_near(cs_sim_ci99_quantile(31), 2.74999565, 1e-8); /* df 30: tables say 2.750 */
    expect_near(cs_sim_ci99_quantile(50), 2.67995197, 1e-8);
    assert_true(cs_sim_ci99_quantile(51) == 2.576);
    assert_true(isnan(cs_sim_ci99_quantile(1)));

    const double one[1] = {7};
    cs_sim_stat_compute(one, 1, &s);
    assert_true(s.mean == 7 && s.stddev == 0);
    assert_true(isnan(s.ci99));
    cs_sim_stat_compute(NULL, 0, &s);
    assert_true(isnan(s.mean));
}

/* ORCS's band histogram: 20 bins of width 0.0505 over [0, 1.01). */
static void test_histogram(void **state)
{
    (void)state;
    const double values[] = {0, 0.05, 0.0505, 0.5, 1.0, 1.01, -1, NAN, 0.101};
    uint64_t counts[CS_SIM_BAND_BINS];
    cs_sim_histogram(values, sizeof values / sizeof *values, CS_SIM_BAND_LOW, CS_SIM_BAND_HIGH,
                     CS_SIM_BAND_BINS, counts);
    uint64_t want[CS_SIM_BAND_BINS] = {0};
    want[0] = 3;  /* 0, 0.05, and -1 clamped */
    want[1] = 1;  /* 0.0505 sits on the edge of bin 1 */
    want[2] = 1;  /* 0.101 = 2 x 0.0505 */
    want[9] = 1;  /* 0.5 / 0.0505 = 9.9 */
    want[19] = 2; /* 1.0 (19.8) and 1.01 clamped */
    assert_memory_equal(counts, want, sizeof want);
}

/* ---- errors ---- */

static void expect_error(const struct cs_tracer *tr, const struct cs_sim_options *o,
                         const char *says)
{
    struct cs_sim_result r;
    struct cs_error err = {{0}};
    assert_int_equal(cs_simulate(tr, o, &r, &err), -1);
    if (!strstr(err.msg, says))
        fail_msg("'%s' does not say '%s'", err.msg, says);
}

static void test_errors(void **state)
{
    (void)state;
    struct routed rt;
    route_tree(&rt, "2;4,4;1,4");
    uint32_t leaf0 = rt.f.ports[rt.f.ports[host_port(&rt.f, 0)].peer].node;
    uint32_t lid4 = rt.f.ports[host_port(&rt.f, 4)].lid;
    fx_set(&rt.t, &rt.f, leaf0, lid4, CS_LFT_NO_ROUTE); /* leaf 0 cannot reach host 4 */
    ready(&rt);
    struct cs_sim_options o = options(CS_PATTERN_BISECT, 0);
    expect_error(&rt.tr, &o, "no route from port 1 of 0x0010000000000000");
    expect_error(&rt.tr, &o, "no entry at switch");
    /* The routes are checked on several threads; the message does not depend on how many. */
    struct cs_sim_result r;
    struct cs_error one = {{0}}, three = {{0}};
    o.runs = 3;
    assert_int_equal(cs_simulate(&rt.tr, &o, &r, &one), -1);
    o.threads = 3;
    assert_int_equal(cs_simulate(&rt.tr, &o, &r, &three), -1);
    assert_string_equal(one.msg, three.msg);
    o.runs = 1;
    o.threads = 1;

    /* Only routes within the group matter: hosts 8..15 never need leaf 0's entry. */
    uint32_t ports[8];
    for (unsigned i = 0; i < 8; i++)
        ports[i] = host_port(&rt.f, 8 + i);
    o.victim.ports = ports;
    o.victim.num_ports = 8;
    simulate(&rt.tr, &o, &r);
    cs_sim_result_free(&r);
    /* Host 0 alone under leaf 0 with host 4: host 0 -> host 4 is needed. */
    ports[0] = host_port(&rt.f, 0);
    ports[1] = host_port(&rt.f, 4);
    o.victim.num_ports = 2;
    expect_error(&rt.tr, &o, "no route from port 1");

    o.victim.num_ports = 8;
    ports[0] = ports[1] = host_port(&rt.f, 9);
    expect_error(&rt.tr, &o, "listed twice");
    ports[0] = rt.f.nodes[leaf0].first_port + 1;
    expect_error(&rt.tr, &o, "is a switch port");
    ports[0] = host_port(&rt.f, 8);
    ports[1] = host_port(&rt.f, 9);
    o.victim.commsize = 9;
    expect_error(&rt.tr, &o, "commsize 9 exceeds the 8 ports");
    o.victim.commsize = 0;
    o.runs = 0;
    expect_error(&rt.tr, &o, "at least 1");
    o.runs = 1;
    o.split = true;
    expect_error(&rt.tr, &o, "needs an aggressor");
    o.versus = true;
    o.victim.commsize = 8;
    expect_error(&rt.tr, &o, "must leave some for the aggressor");
    o.victim.commsize = 2;
    o.aggressor.commsize = 7;
    expect_error(&rt.tr, &o, "2 victim + 7 aggressor ranks, but 8 ports");
    o.split = false;
    o.versus = false;
    o.victim.pattern.kind = CS_PATTERN_NEIGHBOR; /* needs its count */
    expect_error(&rt.tr, &o, "needs a count");

    enum cs_select sel;
    struct cs_error err = {{0}};
    assert_int_equal(cs_select_parse(&sel, "guid-desc", &err), 0);
    assert_int_equal(sel, CS_SELECT_GUID_DESC);
    assert_int_equal(cs_select_parse(&sel, "random", &err), 0);
    assert_int_equal(sel, CS_SELECT_RANDOM);
    assert_int_equal(cs_select_parse(&sel, "bfs", &err), -1);
    assert_non_null(strstr(err.msg, "unknown selection 'bfs'"));
    routed_free(&rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thesis_two_flows),
        cmocka_unit_test(test_ftree_shift_weight_one),
        cmocka_unit_test(test_ftree_random_bisect),
        cmocka_unit_test(test_unbalanced_shift),
        cmocka_unit_test(test_versus_delay),
        cmocka_unit_test(test_versus_levels),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_agrees_with_flows_congestion),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_pinned_vswitch_bisect),
        cmocka_unit_test(test_exclude_host_links),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
