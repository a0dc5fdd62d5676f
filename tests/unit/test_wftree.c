/* wftree (src/route/wftree.c, docs/routing/wftree.md): heavy nodes get links of their own, the
 * order does not depend on the cabling, equal weights balance as ftree does, and on a hot-spot
 * pattern the receivers' flows get more bandwidth than under ftree. */
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

#include "cloudsm/analyze.h"
#include "cloudsm/mutate.h"
#include "cloudsm/sim.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/weights.h"

static void route_engine(const char *engine, const struct cs_fabric *f,
                         const struct cs_node_weights *weights, struct cs_lfts *t)
{
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    struct cs_route_inputs in = {.weights = weights};
    if (cs_route_with(engine, f, NULL, &in, t, &stats, NULL, &err) != 0)
        fail_msg("%s: %s", engine, err.msg);
    assert_false(stats.fell_back);
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

static uint32_t count_hosts(const struct cs_fabric *f)
{
    uint32_t hosts = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        hosts += f->nodes[n].type == CS_NODE_CA;
    return hosts;
}

/* Weight 100 on the listed hosts, 1 (the default) on the others. */
static void heavy_hosts(const struct cs_fabric *f, const unsigned *hosts, unsigned n,
                        struct cs_node_weights *w)
{
    struct cs_error err = {{0}};
    cs_node_weights_init(w);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(cs_node_weights_add(w, f->ports[host_port(f, hosts[i])].guid, 100, &err),
                         0);
    assert_int_equal(cs_node_weights_sort(w, "test", &err), 0);
}

/* Four leaves of four hosts (a-d, e-h, i-l, m-p) under four top switches; e, i and m weigh
 * 100. ftree routes each leaf's first host down from the same top switch, so b, c, d -> e, i,
 * m share leaf 1's up link to it (1/3 each). wftree routes e, i, m first: e takes the first top
 * switch; i's leaf sees four unloaded up links and takes the top switch with the least upward
 * weight (e's route climbs to the first from every other leaf: 3), the second; m the third.
 * No shared link. */
static void test_heavy_nodes_get_own_up_links(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "2;4,4;1,4");
    const unsigned heavy[3] = {4, 8, 12};
    struct cs_node_weights w;
    heavy_hosts(&f, heavy, 3, &w);
    const uint32_t src[3] = {host_port(&f, 1), host_port(&f, 2), host_port(&f, 3)};
    const uint32_t dst[3] = {host_port(&f, 4), host_port(&f, 8), host_port(&f, 12)};
    struct cs_lfts t;
    route_engine("ftree", &f, NULL, &t);
    double ftree_share = rt_worst_share(&f, &t, src, dst, 3);
    cs_lfts_free(&t);
    route_engine("wftree", &f, &w, &t);
    double wftree_share = rt_worst_share(&f, &t, src, dst, 3);
    /* The three heavy nodes go down from three different top switches. */
    uint32_t leaf1 = rt_lid_switch(&f, f.ports[src[0]].lid);
    uint8_t up_port[3];
    for (unsigned i = 0; i < 3; i++) {
        up_port[i] = rt_port(&t, &f, leaf1, f.ports[dst[i]].lid);
        for (unsigned j = 0; j < i; j++)
            assert_int_not_equal(up_port[i], up_port[j]);
    }
    cs_lfts_free(&t);
    assert_true(ftree_share > 0.33 && ftree_share < 0.34);
    assert_true(wftree_share == 1.0);
    cs_node_weights_free(&w);
    cs_fabric_free(&f);
}

/* Per switch port, how many CA LIDs its entries send through it (the route counts of every
 * switch egress port). */
static void route_counts(const struct cs_fabric *f, const struct cs_lfts *t, uint32_t *counts)
{
    memset(counts, 0, (size_t)t->num_switches * 256 * sizeof *counts);
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        if (!port->lid || cs_node_is_switch(&f->nodes[port->node]) || port->peer == CS_NONE)
            continue;
        for (uint32_t s = 0; s < t->num_switches; s++) {
            uint8_t out = cs_lfts_table(t, s)[port->lid];
            if (out != CS_LFT_NO_ROUTE)
                counts[s * 256 + out]++;
        }
    }
}

/* Equal weights (no weights file: every node weighs 1): loads are route counts, as ftree's, and
 * on full fat-trees every switch port carries as many routes as under ftree (both spread the
 * routes evenly); only which node takes which path differs (port GUID order, no dummies). */
static void test_equal_weights_balance_as_ftree(void **state)
{
    (void)state;
    static const char *const full[] = {"2;4,4;1,4", "3;4,4,4;1,4,4", "3;2,2,2;1,2,2",
                                       "3;4,4,8;1,4,4"};
    for (size_t i = 0; i < sizeof full / sizeof *full; i++) {
        struct cs_fabric f;
        rt_generate(&f, full[i]);
        struct cs_lfts a, b;
        route_engine("ftree", &f, NULL, &a);
        route_engine("wftree", &f, NULL, &b);
        assert_int_equal(a.num_switches, b.num_switches);
        uint32_t *ca = calloc((size_t)a.num_switches * 256, sizeof *ca);
        uint32_t *cb = calloc((size_t)a.num_switches * 256, sizeof *cb);
        assert_non_null(ca);
        assert_non_null(cb);
        route_counts(&f, &a, ca);
        route_counts(&f, &b, cb);
        for (uint32_t k = 0; k < a.num_switches * 256u; k++)
            if (ca[k] != cb[k])
                fail_msg("%s: switch %u port %u: ftree %u routes, wftree %u", full[i], k / 256,
                         k % 256, ca[k], cb[k]);
        free(ca);
        free(cb);
        cs_lfts_free(&a);
        cs_lfts_free(&b);
        cs_fabric_free(&f);
    }
}

/* Pseudo-random weights 1..100 for every host (splitmix64). */
static void random_weights(const struct cs_fabric *f, uint64_t seed, struct cs_node_weights *w)
{
    struct cs_error err = {{0}};
    cs_node_weights_init(w);
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        if (!port->lid || cs_node_is_switch(&f->nodes[port->node]))
            continue;
        seed += 0x9e3779b97f4a7c15ull;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        assert_int_equal(cs_node_weights_add(w, port->guid, (uint32_t)(z % 100) + 1, &err), 0);
    }
    assert_int_equal(cs_node_weights_sort(w, "test", &err), 0);
}

/* How many switch entries outside the hosts' own leaf entries differ: every entry except a
 * leaf's entry for a host cabled to it. */
static uint32_t differing_fabric_entries(const struct cs_fabric *f, const struct cs_lfts *a,
                                         const struct cs_lfts *b)
{
    uint32_t differ = 0;
    for (uint32_t s = 0; s < a->num_switches; s++)
        for (uint32_t lid = 1; lid <= a->max_lid; lid++) {
            uint32_t last = rt_lid_switch(f, lid);
            if (last == a->switches[s].node && !rt_is_switch_lid(f, lid))
                continue;
            differ += cs_lfts_table(a, s)[lid] != cs_lfts_table(b, s)[lid];
        }
    return differ;
}

/* Re-cabling the hosts of each leaf in another port order changes nothing above the leaves
 * under wftree (its order is weights and port GUIDs), while ftree's routes move (its order is
 * the leaf port order). */
static void test_order_independent_of_cabling(void **state)
{
    (void)state;
    static const char *const specs[] = {"3;4,4,4;1,4,4", "2;8,4;1,4", "3;4,4,8;1,4,2"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_fabric f, g;
        struct cs_error err = {{0}};
        rt_generate(&f, specs[i]);
        rt_generate(&g, specs[i]);
        struct cs_mutation m = {.shuffle_host_ports = true, .seed = 7};
        assert_int_equal(cs_fabric_mutate(&g, &m, &err), 0);
        for (uint32_t p = 0; p < f.num_port_slots; p++) /* same LIDs on both */
            assert_int_equal(f.ports[p].lid, g.ports[p].lid);
        for (int weighted = 0; weighted < 2; weighted++) {
            struct cs_node_weights w;
            if (weighted)
                random_weights(&f, 1 + i, &w);
            else
                cs_node_weights_init(&w);
            struct cs_lfts a, b;
            route_engine("wftree", &f, &w, &a);
            route_engine("wftree", &g, &w, &b);
            assert_int_equal(differing_fabric_entries(&f, &a, &b), 0);
            cs_lfts_free(&a);
            cs_lfts_free(&b);
            cs_node_weights_free(&w);
        }
        struct cs_lfts a, b;
        route_engine("ftree", &f, NULL, &a);
        route_engine("ftree", &g, NULL, &b);
        assert_true(differing_fabric_entries(&f, &a, &b) > 0);
        cs_lfts_free(&a);
        cs_lfts_free(&b);
        cs_fabric_free(&f);
        cs_fabric_free(&g);
    }
}

/* Effective bandwidth of the receivers' flows (the simulator's victim: receivers(k), every
 * other host sending to one receiver, ranks drawn at random each run) with the receivers given
 * weight 100; switch links only (a receiver's own link is shared by its senders under any
 * routing). */
static double hotspot_bandwidth(const char *engine, const struct cs_fabric *f,
                                const struct cs_node_weights *w, const uint64_t *receivers,
                                uint32_t k)
{
    struct cs_lfts t;
    route_engine(engine, f, w, &t);
    struct cs_tracer tr;
    struct cs_error err = {{0}};
    assert_int_equal(cs_tracer_init(&tr, f, &t, &err), 0);
    struct cs_sim_options o;
    memset(&o, 0, sizeof o);
    o.victim.pattern.kind = CS_PATTERN_RECEIVERS;
    o.victim.pattern.arg = k;
    o.select = CS_SELECT_RANDOM;
    o.order = receivers; /* the receivers take ranks 0..k-1 */
    o.order_count = k;
    o.runs = 20;
    o.seed = 1;
    o.threads = 1;
    o.exclude_host_links = true;
    struct cs_sim_result r;
    if (cs_simulate(&tr, &o, &r, &err) != 0)
        fail_msg("simulate: %s", err.msg);
    double bandwidth = r.effective_bandwidth_stat.mean;
    cs_sim_result_free(&r);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    return bandwidth;
}

/* The hot-spot evaluation (docs/routing/wftree.md): k receivers of weight 100, one per leaf on
 * the first leaves' first hosts (ftree routes a leaf's first host down from the same top
 * switch on every leaf), and a second placement spread over the fabric (host i * stride + i %
 * m1: different leaf ports). wftree >= ftree on every case, > on at least three fabrics. */
static void test_hotspot_receivers_bandwidth(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        const char *name;
        unsigned hosts_per_leaf;
    } fabrics[] = {
        {"3;4,4,4;1,4,4", "4-ary-3-tree", 4},
        {"2;8,8;1,8", "8-ary-2-tree", 8},
        {"3;4,4,4;1,2,2", "XGFT(3;4,4,4;1,2,2)", 4},
        {"2;8,4;1,4", "XGFT(2;8,4;1,4)", 8},
        {"3;8,4,4;1,4,2", "XGFT(3;8,4,4;1,4,2)", 8},
        {"3;8,4,4;1,2,2;1,2,1", "PGFT(3;8,4,4;1,2,2;1,2,1)", 8},
    };
    unsigned better = 0;
    for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
        struct cs_fabric f;
        rt_generate(&f, fabrics[i].spec);
        uint32_t hosts = count_hosts(&f);
        uint32_t m1 = fabrics[i].hosts_per_leaf;
        for (int spread = 0; spread < 2; spread++) {
            unsigned heavy[4];
            uint64_t receivers[4];
            uint32_t stride = hosts / 4;
            for (unsigned r = 0; r < 4; r++)
                heavy[r] = spread ? r * stride + r % m1 : r * m1;
            for (unsigned r = 0; r < 4; r++)
                receivers[r] = f.ports[host_port(&f, heavy[r])].guid;
            struct cs_node_weights w;
            heavy_hosts(&f, heavy, 4, &w);
            double ftree_bw = hotspot_bandwidth("ftree", &f, NULL, receivers, 4);
            double wftree_bw = hotspot_bandwidth("wftree", &f, &w, receivers, 4);
            print_message("hot-spot %-28s receivers %-7s ftree %.4f wftree %.4f (%+.0f%%)\n",
                          fabrics[i].name, spread ? "spread" : "aligned", ftree_bw, wftree_bw,
                          100.0 * (wftree_bw / ftree_bw - 1.0));
            assert_true(wftree_bw >= ftree_bw);
            better += wftree_bw > ftree_bw;
            cs_node_weights_free(&w);
        }
        cs_fabric_free(&f);
    }
    assert_true(better >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heavy_nodes_get_own_up_links),
        cmocka_unit_test(test_equal_weights_balance_as_ftree),
        cmocka_unit_test(test_order_independent_of_cabling),
        cmocka_unit_test(test_hotspot_receivers_bandwidth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
