/* Directed links and route tracing on hand-built fabrics with hand-set LFT entries: delivered
 * routes link by link, each kind of failure, the per-destination view against single traces,
 * and link congestion of a set of flows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze_fixtures.h"

/* A line of three switches:
 *
 *   h0 -1[S0]2 -1[S1]2- 1[S2]2- h1
 *                 3 (unconnected)  3- h2
 *
 * LIDs by fabric order: S0 1, S1 2, S2 3, h0 4, h1 5, h2 6. */
struct line {
    struct cs_fabric f;
    struct cs_lfts t;
    uint32_t s0, s1, s2, h0, h1, h2;
};

static void line_build(struct line *l)
{
    cs_fabric_init(&l->f);
    l->s0 = fx_switch(&l->f, 0x100, 2, "S0");
    l->s1 = fx_switch(&l->f, 0x101, 3, "S1");
    l->s2 = fx_switch(&l->f, 0x102, 3, "S2");
    l->h0 = fx_ca(&l->f, 0x200, "h0");
    l->h1 = fx_ca(&l->f, 0x210, "h1");
    l->h2 = fx_ca(&l->f, 0x220, "h2");
    fx_link(&l->f, l->h0, 1, l->s0, 1);
    fx_link(&l->f, l->s0, 2, l->s1, 1);
    fx_link(&l->f, l->s1, 2, l->s2, 1);
    fx_link(&l->f, l->s2, 2, l->h1, 1);
    fx_link(&l->f, l->s2, 3, l->h2, 1);
    fx_lids(&l->f, 0);
    fx_lfts(&l->t, &l->f);
    fx_fill_shortest(&l->t, &l->f);
}

static void line_free(struct line *l)
{
    cs_lfts_free(&l->t);
    cs_fabric_free(&l->f);
}

static uint32_t port_of(const struct line *l, uint32_t node, unsigned num)
{
    return cs_fabric_port(&l->f, node, num);
}

static uint32_t link_of(const struct cs_tracer *tr, const struct line *l, uint32_t node,
                        unsigned num)
{
    return tr->links.out[port_of(l, node, num)];
}

static void trace_ok(const struct cs_tracer *tr, uint32_t src, uint32_t lid,
                     struct cs_route_trace *out, uint32_t *links, uint32_t max)
{
    struct cs_error err = {{0}};
    if (cs_trace_route(tr, src, lid, out, links, max, &err) != 0)
        fail_msg("trace: %s", err.msg);
}

static void test_link_ids_and_classes(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    struct cs_links links;
    struct cs_error err = {{0}};
    assert_int_equal(cs_links_build(&links, &l.f, &err), 0);
    assert_int_equal(links.count, 10); /* 5 cables, both directions */
    /* Ids in port-index order: S0's port 1 is the first connected port slot. */
    assert_int_equal(links.out[port_of(&l, l.s0, 1)], 0);
    assert_int_equal(links.out[port_of(&l, l.s0, 0)], CS_NONE);
    assert_int_equal(links.out[port_of(&l, l.s1, 3)], CS_NONE);
    for (uint32_t id = 0; id < links.count; id++) {
        assert_int_equal(links.out[links.from[id]], id);
        assert_int_equal(cs_link_reverse(&l.f, &links, cs_link_reverse(&l.f, &links, id)), id);
        if (id)
            assert_true(links.from[id] > links.from[id - 1]);
    }
    /* Ranks: S0 and S2 have CAs (0), S1 is one hop from them (1). */
    assert_int_equal(links.rank[l.s0], 0);
    assert_int_equal(links.rank[l.s1], 1);
    assert_int_equal(links.rank[l.s2], 0);
    assert_int_equal(links.rank[l.h0], CS_NONE);
    assert_int_equal(links.cls[links.out[port_of(&l, l.h0, 1)]], CS_LINK_HOST_UP);
    assert_int_equal(links.cls[links.out[port_of(&l, l.s0, 1)]], CS_LINK_HOST_DOWN);
    assert_int_equal(links.cls[links.out[port_of(&l, l.s0, 2)]], CS_LINK_UP);
    assert_int_equal(links.cls[links.out[port_of(&l, l.s1, 1)]], CS_LINK_DOWN);
    assert_int_equal(links.cls[links.out[port_of(&l, l.s2, 1)]], CS_LINK_UP);
    assert_string_equal(cs_link_class_name(CS_LINK_FLAT), "flat");
    cs_links_free(&links);
    line_free(&l);
}

static void test_delivered_routes(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    struct cs_tracer tr;
    fx_tracer(&tr, &l.f, &l.t);
    assert_int_equal(tr.num_switches, 3);
    assert_int_equal(tr.switches_without_table, 0);

    struct cs_route_trace t;
    uint32_t links[8];
    trace_ok(&tr, port_of(&l, l.h0, 1), fx_lid(&l.f, l.h1, 1), &t, links, 8);
    assert_int_equal(t.outcome, CS_TRACE_DELIVERED);
    assert_int_equal(t.hops, 4);
    assert_int_equal(t.end_port, port_of(&l, l.h1, 1));
    assert_int_equal(t.fault_node, CS_NONE);
    assert_int_equal(links[0], link_of(&tr, &l, l.h0, 1));
    assert_int_equal(links[1], link_of(&tr, &l, l.s0, 2));
    assert_int_equal(links[2], link_of(&tr, &l, l.s1, 2));
    assert_int_equal(links[3], link_of(&tr, &l, l.s2, 2));

    /* Two CAs on one leaf are 2 hops apart; a truncated buffer still counts every hop. */
    trace_ok(&tr, port_of(&l, l.h1, 1), fx_lid(&l.f, l.h2, 1), &t, links, 1);
    assert_int_equal(t.outcome, CS_TRACE_DELIVERED);
    assert_int_equal(t.hops, 2);
    assert_int_equal(links[0], link_of(&tr, &l, l.h1, 1));

    /* A CA's own LID never enters the fabric. */
    trace_ok(&tr, port_of(&l, l.h0, 1), fx_lid(&l.f, l.h0, 1), &t, NULL, 0);
    assert_int_equal(t.outcome, CS_TRACE_DELIVERED);
    assert_int_equal(t.hops, 0);

    /* From a switch (port 0) to another switch's LID: S0 -> S1 -> S2, ending at port 0. */
    trace_ok(&tr, port_of(&l, l.s0, 0), fx_lid(&l.f, l.s2, 0), &t, links, 8);
    assert_int_equal(t.outcome, CS_TRACE_DELIVERED);
    assert_int_equal(t.hops, 2);
    assert_int_equal(t.end_port, port_of(&l, l.s2, 0));

    /* Unusable sources. */
    struct cs_error err = {{0}};
    assert_int_equal(cs_trace_route(&tr, port_of(&l, l.s0, 1), 5, &t, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "port 0"));
    assert_int_equal(cs_trace_route(&tr, port_of(&l, l.h0, 0), 5, &t, NULL, 0, &err), -1);
    assert_int_equal(cs_trace_route(&tr, 100000, 5, &t, NULL, 0, &err), -1);
    cs_tracer_free(&tr);
    line_free(&l);
}

static void test_loop(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    uint32_t lid = fx_lid(&l.f, l.h1, 1);
    fx_set(&l.t, &l.f, l.s1, lid, 1); /* S1 sends h1's LID back to S0, which sends it to S1 */
    struct cs_tracer tr;
    fx_tracer(&tr, &l.f, &l.t);
    struct cs_route_trace t;
    trace_ok(&tr, port_of(&l, l.h0, 1), lid, &t, NULL, 0);
    assert_int_equal(t.outcome, CS_TRACE_LOOP);
    assert_true(t.fault_node == l.s0 || t.fault_node == l.s1);
    assert_int_equal(t.end_port, CS_NONE);

    uint32_t nodes[4];
    assert_int_equal(cs_trace_loop(&tr, lid, t.fault_node, nodes, 4), 2);
    assert_int_equal(nodes[0], t.fault_node);
    assert_int_equal(nodes[1], t.fault_node == l.s0 ? l.s1 : l.s0);
    assert_int_equal(cs_trace_loop(&tr, lid, l.s0, nodes, 1), 2); /* length even if cut */
    assert_int_equal(cs_trace_loop(&tr, lid, l.s2, nodes, 4), 0); /* S2 delivers */
    assert_int_equal(cs_trace_loop(&tr, lid, l.h0, nodes, 4), 0); /* not a switch */

    /* From S2 the route is fine; h2 reaches h1 directly. */
    trace_ok(&tr, port_of(&l, l.h2, 1), lid, &t, NULL, 0);
    assert_int_equal(t.outcome, CS_TRACE_DELIVERED);
    cs_tracer_free(&tr);
    line_free(&l);
}

static void expect_black_hole(struct line *l, uint8_t s1_entry, enum cs_trace_outcome want)
{
    uint32_t lid = fx_lid(&l->f, l->h1, 1);
    fx_set(&l->t, &l->f, l->s1, lid, s1_entry);
    struct cs_tracer tr;
    fx_tracer(&tr, &l->f, &l->t);
    struct cs_route_trace t;
    uint32_t links[8];
    trace_ok(&tr, port_of(l, l->h0, 1), lid, &t, links, 8);
    assert_int_equal(t.outcome, want);
    assert_true(cs_trace_is_black_hole(want));
    assert_int_equal(t.fault_node, l->s1);
    assert_int_equal(t.fault_entry, s1_entry);
    assert_int_equal(t.hops, 2); /* h0 -> S0 -> S1, then nowhere */
    cs_tracer_free(&tr);
}

static void test_black_holes(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    expect_black_hole(&l, CS_LFT_NO_ROUTE, CS_TRACE_NO_ENTRY);
    expect_black_hole(&l, 9, CS_TRACE_BAD_PORT);    /* S1 has 3 ports */
    expect_black_hole(&l, 3, CS_TRACE_UNCONNECTED); /* port 3 has no cable */
    expect_black_hole(&l, 0, CS_TRACE_PORT0);       /* S1 is not h1 */
    assert_string_equal(cs_trace_outcome_name(CS_TRACE_NO_ENTRY), "no entry");
    assert_string_equal(cs_trace_outcome_id(CS_TRACE_PORT0), "port0");

    /* A LID beyond every table: S0 has no entry for it. */
    struct cs_tracer tr;
    fx_tracer(&tr, &l.f, &l.t);
    struct cs_route_trace t;
    trace_ok(&tr, port_of(&l, l.h0, 1), 5000, &t, NULL, 0);
    assert_int_equal(t.outcome, CS_TRACE_NO_ENTRY);
    assert_int_equal(t.fault_node, l.s0);
    cs_tracer_free(&tr);

    /* A set without S1's table. */
    struct cs_lfts partial;
    struct cs_error err = {{0}};
    assert_int_equal(cs_lfts_init(&partial, l.t.max_lid, &err), 0);
    for (uint32_t s = 0; s < l.t.num_switches; s++) {
        if (l.t.switches[s].guid == l.f.nodes[l.s1].guid)
            continue;
        uint32_t copy = cs_lfts_add_switch(&partial, l.t.switches[s].guid, l.t.switches[s].lid,
                                           l.t.switches[s].desc, CS_NONE, &err);
        memcpy(cs_lfts_table(&partial, copy), cs_lfts_table(&l.t, s), l.t.capacity);
    }
    fx_tracer(&tr, &l.f, &partial);
    assert_int_equal(tr.switches_without_table, 1);
    assert_int_equal(tr.tables_without_switch, 0);
    trace_ok(&tr, port_of(&l, l.h0, 1), fx_lid(&l.f, l.h1, 1), &t, NULL, 0);
    assert_int_equal(t.outcome, CS_TRACE_NO_TABLE);
    assert_int_equal(t.fault_node, l.s1);
    cs_tracer_free(&tr);
    cs_lfts_free(&partial);
    line_free(&l);
}

static void test_wrong_delivery(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    uint32_t lid = fx_lid(&l.f, l.h1, 1);
    fx_set(&l.t, &l.f, l.s2, lid, 3); /* h1's LID handed to h2 */
    struct cs_tracer tr;
    fx_tracer(&tr, &l.f, &l.t);
    struct cs_route_trace t;
    trace_ok(&tr, port_of(&l, l.h0, 1), lid, &t, NULL, 0);
    assert_int_equal(t.outcome, CS_TRACE_WRONG_DELIVERY);
    assert_false(cs_trace_is_black_hole(CS_TRACE_WRONG_DELIVERY));
    assert_int_equal(t.fault_node, l.s2);
    assert_int_equal(t.end_port, port_of(&l, l.h2, 1));
    assert_int_equal(t.hops, 4);
    cs_tracer_free(&tr);
    line_free(&l);
}

/* The per-destination view agrees with tracing each route on its own, link for link. */
static void compare_views(const struct cs_tracer *tr, const struct cs_fabric *f)
{
    struct cs_dest_routes d;
    struct cs_error err = {{0}};
    assert_int_equal(cs_dest_routes_init(&d, tr, &err), 0);
    uint32_t a[16], b[16];
    for (uint32_t lid = 1; lid < tr->lid_limit + 2; lid++) {
        cs_dest_routes_compute(&d, tr, lid);
        assert_int_equal(d.owner_port, cs_tracer_owner(tr, lid));
        for (uint32_t k = 1; k < d.num_delivered; k++)
            assert_true(d.hops[d.order[k - 1]] >= d.hops[d.order[k]]);
        for (uint32_t src = 0; src < f->num_port_slots; src++) {
            const struct cs_port *p = &f->ports[src];
            bool is_switch = cs_node_is_switch(&f->nodes[p->node]);
            if (is_switch ? p->num != 0 : (p->num == 0 || p->peer == CS_NONE))
                continue;
            struct cs_route_trace t;
            if (cs_trace_route(tr, src, lid, &t, a, 16, &err) != 0)
                fail_msg("%s", err.msg);
            uint32_t count;
            enum cs_trace_outcome o = cs_dest_routes_path(&d, tr, src, b, 16, &count);
            assert_int_equal(o, t.outcome);
            if (o != CS_TRACE_LOOP) {
                assert_int_equal(count, t.hops);
                assert_memory_equal(a, b, count * sizeof *a);
            }
            uint32_t entry = cs_tracer_entry_switch(tr, src);
            if (entry != CS_NONE && o != CS_TRACE_DELIVERED && o != CS_TRACE_LOOP)
                assert_int_equal(tr->switch_node[d.fault_switch[entry]], t.fault_node);
            if (entry != CS_NONE && o == CS_TRACE_DELIVERED && src != d.owner_port)
                assert_int_equal(d.hops[entry] + !is_switch, t.hops);
        }
    }
    cs_dest_routes_free(&d);
}

static void test_dest_view_matches_traces(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    struct cs_tracer tr;
    fx_tracer(&tr, &l.f, &l.t);
    compare_views(&tr, &l.f);
    cs_tracer_free(&tr);

    /* And with one of each failure in the tables. */
    fx_set(&l.t, &l.f, l.s1, fx_lid(&l.f, l.h1, 1), 1);   /* loop */
    fx_set(&l.t, &l.f, l.s1, fx_lid(&l.f, l.h0, 1), 255); /* black hole */
    fx_set(&l.t, &l.f, l.s2, fx_lid(&l.f, l.h2, 1), 2);   /* wrong delivery */
    fx_set(&l.t, &l.f, l.s0, fx_lid(&l.f, l.s2, 0), 0);   /* port 0 */
    fx_tracer(&tr, &l.f, &l.t);
    compare_views(&tr, &l.f);

    struct cs_dest_routes d;
    struct cs_error err = {{0}};
    assert_int_equal(cs_dest_routes_init(&d, &tr, &err), 0);
    cs_dest_routes_compute(&d, &tr, fx_lid(&l.f, l.h1, 1));
    assert_int_equal(d.outcome[0], CS_TRACE_LOOP);
    assert_int_equal(d.outcome[1], CS_TRACE_LOOP);
    assert_int_equal(d.outcome[2], CS_TRACE_DELIVERED);
    assert_int_equal(d.hops[2], 1);
    assert_int_equal(d.num_delivered, 1);
    cs_dest_routes_compute(&d, &tr, fx_lid(&l.f, l.h0, 1));
    assert_int_equal(d.outcome[0], CS_TRACE_DELIVERED);
    assert_int_equal(d.outcome[1], CS_TRACE_NO_ENTRY);
    assert_int_equal(d.outcome[2], CS_TRACE_NO_ENTRY); /* through S1 */
    assert_int_equal(d.fault_switch[2], 1);
    assert_int_equal(d.next_link[1], CS_NONE);
    cs_dest_routes_free(&d);
    cs_tracer_free(&tr);
    line_free(&l);
}

static void test_flow_congestion(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    struct cs_tracer tr;
    fx_tracer(&tr, &l.f, &l.t);
    uint32_t h0 = port_of(&l, l.h0, 1), h1 = port_of(&l, l.h1, 1), h2 = port_of(&l, l.h2, 1);
    /* h0 -> h1 and h2 -> h1 share S2 -> h1; h1 -> h0 runs the other way; h2 -> h2 is local. */
    struct cs_flow flows[] = {
        {h0, fx_lid(&l.f, l.h1, 1)},
        {h2, fx_lid(&l.f, l.h1, 1)},
        {h1, fx_lid(&l.f, l.h0, 1)},
        {h2, fx_lid(&l.f, l.h2, 1)},
    };
    uint32_t route_max[4], max = 0;
    uint32_t *load = calloc(tr.links.count, sizeof *load);
    struct cs_error err = {{0}};
    assert_int_equal(cs_flows_congestion(&tr, flows, 4, route_max, load, &max, &err), 0);
    assert_int_equal(max, 2);
    assert_int_equal(route_max[0], 2);
    assert_int_equal(route_max[1], 2);
    assert_int_equal(route_max[2], 1);
    assert_int_equal(route_max[3], 0);
    assert_int_equal(load[link_of(&tr, &l, l.s2, 2)], 2);
    assert_int_equal(load[link_of(&tr, &l, l.s0, 2)], 1);
    assert_int_equal(load[link_of(&tr, &l, l.s1, 1)], 1);
    uint32_t total = 0;
    for (uint32_t i = 0; i < tr.links.count; i++)
        total += load[i];
    assert_int_equal(total, 4 + 2 + 4); /* hops of the three routes that enter the fabric */

    /* Without the optional outputs. */
    max = 0;
    assert_int_equal(cs_flows_congestion(&tr, flows, 3, NULL, NULL, &max, &err), 0);
    assert_int_equal(max, 2);
    cs_tracer_free(&tr);

    /* A broken route is an error naming the flow. */
    fx_set(&l.t, &l.f, l.s1, fx_lid(&l.f, l.h1, 1), 255);
    fx_tracer(&tr, &l.f, &l.t);
    assert_int_equal(cs_flows_congestion(&tr, flows, 4, route_max, load, &max, &err), -1);
    assert_non_null(strstr(err.msg, "flow 0"));
    assert_non_null(strstr(err.msg, "no entry"));
    free(load);
    cs_tracer_free(&tr);
    line_free(&l);
}

/* Two ports answering one LID cannot be traced. */
static void test_tracer_refuses_shared_lid(void **state)
{
    (void)state;
    struct line l;
    line_build(&l);
    l.f.ports[cs_fabric_port(&l.f, l.h2, 1)].lid = (uint16_t)fx_lid(&l.f, l.h1, 1);
    struct cs_tracer tr;
    struct cs_error err = {{0}};
    assert_int_equal(cs_tracer_init(&tr, &l.f, &l.t, &err), -1);
    assert_non_null(strstr(err.msg, "answered by"));
    line_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_ids_and_classes),
        cmocka_unit_test(test_delivered_routes),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_black_holes),
        cmocka_unit_test(test_wrong_delivery),
        cmocka_unit_test(test_dest_view_matches_traces),
        cmocka_unit_test(test_flow_congestion),
        cmocka_unit_test(test_tracer_refuses_shared_lid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
