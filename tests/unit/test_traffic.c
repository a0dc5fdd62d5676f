/* Link loads of measured traffic (src/analyze/traffic.c): the gravity model's flows routed by
 * real tables, checked link by link on a tree small enough to follow by hand, and the comparison
 * the adaptation loop makes: hot receivers that ftree sends down one root and wftree, weighing
 * them, spreads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "cloudsm/analyze.h"
#include "cloudsm/route.h"
#include "cloudsm/traffic.h"
#include "cloudsm/weights.h"
#include "route_fixtures.h"

/* The port index of the first port of the n-th CA (fabric order). */
static uint32_t host_port(const struct cs_fabric *f, unsigned n)
{
    for (uint32_t i = 0; i < f->num_nodes; i++)
        if (f->nodes[i].type == CS_NODE_CA && n-- == 0)
            return f->nodes[i].first_port + 1;
    fail_msg("no CA %u", n);
    return CS_NONE;
}

static double *zeros(const struct cs_fabric *f)
{
    double *v = calloc(f->num_port_slots, sizeof *v);
    assert_non_null(v);
    return v;
}

/* 2-ary-2-tree: hosts 0, 1 on one leaf, 2, 3 on the other. Everyone sends 100 B/s; host 3
 * alone receives. The gravity model sends each of 0, 1, 2 100 B/s to 3 and 3's traffic nowhere
 * (it would be to itself). */
static void test_one_receiver_by_hand(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "2;2,2;1,2;1,1");
    struct cs_lfts lfts;
    rt_route("ftree", &f, NULL, &lfts);
    struct cs_tracer t;
    struct cs_error err = {{0}};
    assert_int_equal(cs_tracer_init(&t, &f, &lfts, &err), 0);
    double *xmit = zeros(&f), *rcv = zeros(&f);
    uint32_t h[4];
    for (unsigned i = 0; i < 4; i++) {
        h[i] = host_port(&f, i);
        xmit[h[i]] = 100;
    }
    rcv[h[3]] = 300;
    struct cs_traffic_load l;
    assert_int_equal(cs_traffic_load(&t, xmit, rcv, &l, &err), 0);
    assert_true(l.routed == 300);
    assert_int_equal(l.undelivered, 0);
    /* Into host 3: its leaf's link down to it carries all 300. */
    uint32_t into3 = cs_link_reverse(&f, &t.links, t.links.out[h[3]]);
    assert_true(l.load[into3] == 300);
    /* Host uplinks: what each sends, 3's own nothing. */
    assert_true(l.load[t.links.out[h[0]]] == 100);
    assert_true(l.load[t.links.out[h[3]]] == 0);
    /* Between switches: 0's and 1's 200 go up one link and down one link, nothing else. */
    double between = 0;
    unsigned used = 0;
    for (uint32_t k = 0; k < t.links.count; k++) {
        uint32_t from = t.links.from[k];
        if (f.nodes[f.ports[from].node].type != CS_NODE_SWITCH ||
            f.nodes[f.ports[f.ports[from].peer].node].type != CS_NODE_SWITCH)
            continue;
        between += l.load[k];
        used += l.load[k] > 0;
        if (l.load[k] > 0)
            assert_true(l.load[k] == 200);
    }
    assert_true(between == 400);
    assert_int_equal(used, 2);
    assert_true(l.max_load == 200);
    double capacity = cs_port_bytes_per_s(&f, t.links.from[l.max_link]);
    assert_true(capacity > 0);
    assert_true(l.max_utilisation == 200 / capacity);
    assert_true(l.overload == 0);
    cs_traffic_load_free(&l);
    free(xmit);
    free(rcv);
    cs_tracer_free(&t);
    cs_lfts_free(&lfts);
    cs_fabric_free(&f);
}

/* The loads of hot receivers' traffic under one engine's tables (free it). */
static struct cs_traffic_load routed_load(const struct cs_fabric *f, const char *engine,
                                          const struct cs_node_weights *w, const double *xmit,
                                          const double *rcv)
{
    struct cs_lfts lfts;
    struct cs_route_stats st;
    struct cs_route_inputs in = {.weights = w};
    struct cs_error err = {{0}};
    if (cs_route_with(engine, f, NULL, &in, &lfts, &st, NULL, &err) != 0)
        fail_msg("%s: %s", engine, err.msg);
    struct cs_tracer t;
    assert_int_equal(cs_tracer_init(&t, f, &lfts, &err), 0);
    struct cs_traffic_load l;
    assert_int_equal(cs_traffic_load(&t, xmit, rcv, &l, &err), 0);
    /* Every flow arrives: the receivers' own links bring in all that was routed. */
    double in_total = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (rcv[p] > 0)
            in_total += l.load[cs_link_reverse(f, &t.links, t.links.out[p])];
    assert_true(in_total > l.routed * (1 - 1e-9) && in_total < l.routed * (1 + 1e-9));
    assert_int_equal(l.undelivered, 0);
    /* Where ftree and wftree differ: the leaves' up-links (how many links and the busiest). */
    cs_tracer_free(&t);
    cs_lfts_free(&lfts);
    return l;
}

/* The busiest up-link of a leaf (rank 0) to a root, and how many carry anything. */
static double busiest_uplink(const struct cs_fabric *f, const struct cs_traffic_load *l,
                             unsigned *used)
{
    struct cs_links links;
    struct cs_error err = {{0}};
    assert_int_equal(cs_links_build(&links, f, &err), 0);
    double busiest = 0;
    *used = 0;
    for (uint32_t k = 0; k < links.count; k++) {
        if (links.cls[k] != CS_LINK_UP)
            continue;
        *used += l->load[k] > 0;
        if (l->load[k] > busiest)
            busiest = l->load[k];
    }
    cs_links_free(&links);
    return busiest;
}

/* 4-ary-2-tree (16 hosts, 4 leaves, 4 roots): the first host of every leaf receives hard, every
 * host sends 3 GB/s
 * (the tree's links are 4x EDR: 12.1 GB/s). ftree, blind to traffic, sends all four receivers'
 * traffic up to the same root; wftree with the receivers weighted 100 spreads them over the roots.
 * The links down into each receiver's leaf carry the same either way (every destination has one
 * root), so the busiest link does not tell them apart; the up-links and the congestion cost do. */
static void test_hot_receivers_ftree_vs_wftree(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "2;4,4;1,4;1,1");
    double *xmit = zeros(&f), *rcv = zeros(&f);
    struct cs_node_weights w;
    cs_node_weights_init(&w);
    struct cs_error err = {{0}};
    for (unsigned i = 0; i < 16; i++) {
        uint32_t p = host_port(&f, i);
        bool hot = i % 4 == 0;
        xmit[p] = 3e9;
        rcv[p] = hot ? 11.25e9 : 0;
        assert_int_equal(cs_node_weights_add(&w, f.ports[p].guid, hot ? 100 : 1, &err), 0);
    }
    assert_int_equal(cs_node_weights_sort(&w, "test", &err), 0);
    struct cs_traffic_load ftree = routed_load(&f, "ftree", NULL, xmit, rcv);
    struct cs_traffic_load wftree = routed_load(&f, "wftree", &w, xmit, rcv);
    /* A leaf's four senders send 3 GB/s to each remote receiver (4 x 3 GB/s x 1/4). */
    unsigned ftree_used, wftree_used;
    double ftree_up = busiest_uplink(&f, &ftree, &ftree_used);
    double wftree_up = busiest_uplink(&f, &wftree, &wftree_used);
    assert_true(ftree_up == 9e9); /* three receivers' traffic on one up-link per leaf */
    assert_int_equal(ftree_used, 4);
    assert_true(wftree_up == 3e9); /* one each */
    assert_int_equal(wftree_used, 12);
    assert_true(ftree.max_load == 9e9 && wftree.max_load == 9e9); /* the down-links */
    /* Per leaf, one up-link at u = 0.74 (cost 2.9) against three at 0.25 (0.33 each); the four
     * down-links at 0.74 in both: about 23.3 against 15.6. */
    assert_true(wftree.congestion_cost < 0.7 * ftree.congestion_cost);
    assert_true(ftree.max_utilisation == wftree.max_utilisation);
    cs_traffic_load_free(&ftree);
    cs_traffic_load_free(&wftree);
    cs_node_weights_free(&w);
    free(xmit);
    free(rcv);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_receiver_by_hand),
        cmocka_unit_test(test_hot_receivers_ftree_vs_wftree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
