/* slimupdate (src/route/slimupdate.c, docs/routing/slimupdate.md): SlimUpdate's Minimal Routing
 * Update ("Compact Network Reconfiguration in Fat-Trees", Sect. 4-6). A first run balances as
 * ftree does; given tables that are balanced it keeps every route (ftree's own tables included);
 * after node shutdowns it keeps the survivors' routes (Fig. 1); after a cable cut it changes the
 * routes the cable carried and few others, fewer than ftree re-routing from scratch, and every
 * pair stays connected. */
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
#include "cloudsm/lft_diff.h"
#include "cloudsm/topo_gen.h"

/* Route with an engine from previous tables (NULL: none); roots: the fabric's top switches are
 * given as roots (how OpenSM's ftree routes a damaged tree). */
static void reroute(const char *engine, const struct cs_fabric *f, const struct cs_lfts *previous,
                    bool roots, struct cs_lfts *t)
{
    struct cs_guid_list root_list = {0};
    struct cs_route_options opt = {.no_fallback = true};
    if (roots) {
        uint32_t top = 0;
        for (uint32_t n = 0; n < f->num_nodes; n++)
            if (cs_node_is_switch(&f->nodes[n]) && f->nodes[n].guid >> 32 > top)
                top = (uint32_t)(f->nodes[n].guid >> 32);
        for (uint32_t n = 0; n < f->num_nodes; n++)
            if (cs_node_is_switch(&f->nodes[n]) && f->nodes[n].guid >> 32 == top) {
                root_list.guids =
                    realloc(root_list.guids, (root_list.count + 1) * sizeof(uint64_t));
                assert_non_null(root_list.guids);
                root_list.guids[root_list.count++] = f->nodes[n].guid;
            }
        opt.root_guids = &root_list;
    }
    struct cs_route_inputs in = {.previous = previous};
    struct cs_route_stats st;
    struct cs_error err = {{0}};
    if (cs_route_with(engine, f, &opt, &in, t, &st, NULL, &err) != 0)
        fail_msg("%s: %s", engine, err.msg);
    free(root_list.guids);
}

static uint64_t entries_changed(const struct cs_lfts *a, const struct cs_lfts *b)
{
    struct cs_lft_diff d;
    struct cs_error err = {{0}};
    if (cs_lft_diff(a, b, &d, &err) != 0)
        fail_msg("diff: %s", err.msg);
    uint64_t n = d.entries_changed;
    cs_lft_diff_free(&d);
    return n;
}

/* Every CA pair delivered, no credit loop; returns the spread of the down links' route counts. */
static uint64_t check_connected(const struct cs_fabric *f, const struct cs_lfts *t)
{
    struct cs_tracer tr;
    fx_tracer(&tr, f, t);
    struct cs_check_result r;
    struct cs_error err = {{0}};
    struct cs_check_options opt = {.threads = 1, .skip_ports_without_lid = true};
    if (cs_check_lfts(&tr, &opt, &r, &err) != 0)
        fail_msg("check: %s", err.msg);
    assert_int_equal(r.unreachable, 0);
    assert_true(r.ok);
    uint64_t spread = r.classes[CS_LINK_DOWN].spread;
    cs_check_result_free(&r);
    cs_tracer_free(&tr);
    return spread;
}

/* Cut the cable of port `port` of node n. */
static void cut(struct cs_fabric *f, uint32_t n, unsigned port)
{
    uint32_t p = f->nodes[n].first_port + port;
    uint32_t peer = f->ports[p].peer;
    assert_true(peer != CS_NONE);
    f->ports[p].peer = CS_NONE;
    f->ports[peer].peer = CS_NONE;
}

static uint32_t node_by_guid(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == guid)
            return n;
    fail_msg("no node 0x%016llx", (unsigned long long)guid);
    return CS_NONE;
}

/* First run: balanced as ftree (every down link carries as many routes as any other). Could fail
 * if the highest-GUID tie rule or the maxima unbalanced the tree. */
static void test_first_run_balanced(void **state)
{
    (void)state;
    static const char *const specs[] = {"2;16,16;1,16", "3;4,4,4;1,4,4", "2;8,4;1,4",
                                        "2;4,4;1,2;1,2"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_fabric f;
        rt_generate(&f, specs[i]);
        struct cs_lfts slim, ftree;
        reroute("slimupdate", &f, NULL, false, &slim);
        reroute("ftree", &f, NULL, false, &ftree);
        assert_int_equal(check_connected(&f, &slim), check_connected(&f, &ftree));
        cs_lfts_free(&slim);
        cs_lfts_free(&ftree);
        cs_fabric_free(&f);
    }
}

/* MRU: tables that are balanced are kept entry for entry, ftree's own included (so slimupdate
 * after a performance-neutral event sends nothing), and a re-run on its own tables changes
 * nothing. Could fail if the previous main path were misread (secondary entries point the same
 * way as the main one) or a maximum were too low. */
static void test_keeps_balanced_tables(void **state)
{
    (void)state;
    static const char *const specs[] = {"2;16,16;1,16", "3;4,4,4;1,4,4", "3;6,6,12;1,6,6",
                                        "2;8,4;1,4", "2;4,4;1,2;1,2"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_fabric f;
        rt_generate(&f, specs[i]);
        struct cs_lfts ftree, from_ftree, first, again;
        reroute("ftree", &f, NULL, false, &ftree);
        reroute("slimupdate", &f, &ftree, false, &from_ftree);
        assert_int_equal(entries_changed(&ftree, &from_ftree), 0);
        reroute("slimupdate", &f, NULL, false, &first);
        reroute("slimupdate", &f, &first, false, &again);
        assert_int_equal(entries_changed(&first, &again), 0);
        cs_lfts_free(&ftree);
        cs_lfts_free(&from_ftree);
        cs_lfts_free(&first);
        cs_lfts_free(&again);
        cs_fabric_free(&f);
    }
}

/* Fig. 1 and Sect. 5.1.4 (node shutdowns): on a 16-ary-2-tree, shut down hosts here and there;
 * slimupdate changes no entry of a surviving host's LID, while ftree, re-routing from scratch,
 * shifts the hosts after each gap on its leaf (it is the test's control: it must change some). */
static void test_node_shutdowns_keep_survivors(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "2;16,16;1,16");
    struct cs_lfts slim0, ftree0;
    reroute("slimupdate", &f, NULL, false, &slim0);
    reroute("ftree", &f, NULL, false, &ftree0);
    /* Hosts 0, 3 (leaf 0), 20 (leaf 1), 200 (leaf 12): port 1 of each. */
    static const unsigned down[] = {0, 3, 20, 200};
    for (size_t i = 0; i < sizeof down / sizeof *down; i++)
        cut(&f, node_by_guid(&f, CS_GUID_HOST_BASE + ((uint64_t)down[i] << 8)), 1);
    struct cs_lfts slim1, ftree1;
    reroute("slimupdate", &f, &slim0, false, &slim1);
    reroute("ftree", &f, NULL, false, &ftree1);
    check_connected(&f, &slim1);
    uint64_t slim_changed = 0, ftree_changed = 0;
    for (uint32_t p = 0; p < f.num_port_slots; p++) {
        const struct cs_port *port = &f.ports[p];
        if (!port->lid || port->peer == CS_NONE || cs_node_is_switch(&f.nodes[port->node]))
            continue;
        for (uint32_t s = 0; s < slim0.num_switches; s++) {
            slim_changed += cs_lfts_get(&slim0, s, port->lid) != cs_lfts_get(&slim1, s, port->lid);
            ftree_changed +=
                cs_lfts_get(&ftree0, s, port->lid) != cs_lfts_get(&ftree1, s, port->lid);
        }
    }
    assert_int_equal(slim_changed, 0);
    assert_true(ftree_changed > 0);
    cs_lfts_free(&slim0);
    cs_lfts_free(&slim1);
    cs_lfts_free(&ftree0);
    cs_lfts_free(&ftree1);
    cs_fabric_free(&f);
}

/* Sect. 5.1.3-5.1.4 (a link failure): cut a leaf's up cable on a 16-ary-2-tree. The routes the
 * cable carried must move: the one host whose main path came down it (an entry on every other
 * leaf and on the cut root), and the leaf's climbs to the destinations it went up for (one per
 * other leaf), and the cut root's entries for the leaf's hosts: about 2 x switches. ftree (with
 * root GUIDs, as OpenSM routes a damaged tree) re-routes from scratch and changes more. Every
 * pair stays connected, and routing again from its own tables changes nothing. Also with a 2:1
 * oversubscribed tree, a 3-level tree (a cut above a leaf, and above a middle switch) and a cut
 * between parallel cables. */
static void test_link_failure_changes_few(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        uint64_t leaf_guid;
        unsigned port;
        bool fewer;   /* than ftree; a parallel cable's routes move to its twin either way */
        bool leaf_up; /* a leaf's up cable: at most about 2 x switches entries move */
    } cases[] = {
        {"2;16,16;1,16", CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32) + 5, 16 + 3, true, true},
        {"2;32,16;1,16", CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32) + 2, 32 + 7, true, true},
        {"3;4,4,4;1,4,4", CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32) + 9, 4 + 2, true, true},
        /* a middle switch's cable to a root: the hosts of its pod routed down it move, and
         * every other pod's routes to them */
        {"3;4,4,4;1,4,4", CS_GUID_SWITCH_BASE + (UINT64_C(2) << 32) + 0, 4 + 1, true, false},
        {"2;4,4;1,2;1,2", CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32) + 1, 4 + 1, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cs_fabric f;
        rt_generate(&f, cases[i].spec);
        struct cs_lfts slim0, ftree0;
        reroute("slimupdate", &f, NULL, false, &slim0);
        reroute("ftree", &f, NULL, false, &ftree0);
        cut(&f, node_by_guid(&f, cases[i].leaf_guid), cases[i].port);
        struct cs_lfts slim1, ftree1;
        reroute("slimupdate", &f, &slim0, false, &slim1);
        reroute("ftree", &f, NULL, true, &ftree1);
        check_connected(&f, &slim1);
        check_connected(&f, &ftree1);
        uint64_t slim_changed = entries_changed(&slim0, &slim1);
        uint64_t ftree_changed = entries_changed(&ftree0, &ftree1);
        uint32_t switches = slim0.num_switches;
        print_message("%s: slimupdate %llu entries, ftree %llu\n", cases[i].spec,
                      (unsigned long long)slim_changed, (unsigned long long)ftree_changed);
        assert_true(slim_changed > 0);
        assert_true(cases[i].fewer ? slim_changed < ftree_changed : slim_changed <= ftree_changed);
        if (cases[i].leaf_up)
            assert_true(slim_changed <= 2 * (uint64_t)switches + 32);
        /* And on the damaged tree its own tables are kept: a secondary path that now carries a
         * few leaves' traffic must not be taken for the main one (it was, once). */
        struct cs_lfts again;
        reroute("slimupdate", &f, &slim1, false, &again);
        assert_int_equal(entries_changed(&slim1, &again), 0);
        cs_lfts_free(&again);
        cs_lfts_free(&slim0);
        cs_lfts_free(&slim1);
        cs_lfts_free(&ftree0);
        cs_lfts_free(&ftree1);
        cs_fabric_free(&f);
    }
}

/* The maximum counters: previous tables that send all four hosts of leaf 0 of a 4-ary-2-tree
 * down from root 0 are not kept as they are. One host keeps root 0 (its maximum,
 * ceil(4 hosts / 4 up cables) = 1), the others move, and the result is as balanced as ftree's.
 * Could fail if kept routes ignored the maximum (all four would stay on root 0). */
static void test_maximum_counters_rebalance(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "2;4,4;1,4");
    struct cs_lfts ftree, skewed, slim;
    reroute("ftree", &f, NULL, false, &ftree);
    struct cs_error err = {{0}};
    assert_int_equal(cs_lfts_copy(&skewed, &ftree, &err), 0);
    uint64_t leaf0 = CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32);
    for (unsigned h = 0; h < 4; h++) {
        uint32_t host = node_by_guid(&f, CS_GUID_HOST_BASE + ((uint64_t)h << 8));
        uint16_t lid = f.ports[f.nodes[host].first_port + 1].lid;
        for (unsigned leaf = 1; leaf < 4; leaf++) /* up port 5 = root 0 */
            cs_lfts_set(&skewed, cs_lfts_find(&skewed, leaf0 + leaf), lid, 5);
    }
    reroute("slimupdate", &f, &skewed, false, &slim);
    unsigned via_root0 = 0;
    for (unsigned h = 0; h < 4; h++) {
        uint32_t host = node_by_guid(&f, CS_GUID_HOST_BASE + ((uint64_t)h << 8));
        uint16_t lid = f.ports[f.nodes[host].first_port + 1].lid;
        via_root0 += cs_lfts_get(&slim, cs_lfts_find(&slim, leaf0 + 1), lid) == 5;
    }
    assert_int_equal(via_root0, 1);
    assert_int_equal(check_connected(&f, &slim), check_connected(&f, &ftree));
    cs_lfts_free(&ftree);
    cs_lfts_free(&skewed);
    cs_lfts_free(&slim);
    cs_fabric_free(&f);
}

/* A damaged tree that OpenSM's checks refuse (a leaf with fewer up groups) is routed, not sent
 * to minhop: slimupdate exists for re-routing after faults. Without previous tables too. */
static void test_routes_degraded_tree(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, "2;4,4;1,4");
    cut(&f, node_by_guid(&f, CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32) + 0), 4 + 1);
    struct cs_lfts t;
    struct cs_route_stats st;
    struct cs_error err = {{0}};
    assert_int_equal(cs_route("slimupdate", &f, NULL, &t, &st, &err), 0);
    assert_string_equal(st.engine, "slimupdate");
    assert_false(st.fell_back);
    check_connected(&f, &t);
    cs_lfts_free(&t);
    assert_int_equal(cs_route("ftree", &f, NULL, &t, &st, &err), 0);
    assert_true(st.fell_back); /* the control: OpenSM's ftree refuses it */
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_run_balanced),
        cmocka_unit_test(test_keeps_balanced_tables),
        cmocka_unit_test(test_node_shutdowns_keep_survivors),
        cmocka_unit_test(test_link_failure_changes_few),
        cmocka_unit_test(test_maximum_counters_rebalance),
        cmocka_unit_test(test_routes_degraded_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
