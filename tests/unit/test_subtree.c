/* Fast hybrid reconfiguration ("Fast Hybrid Network Reconfiguration for Large-Scale Lossless
 * Interconnection Networks", docs/routing/hybrid.md): sub-tree selection (Sect. IV-A), sub-tree
 * re-routing on the fat-tree machinery, the machinery kept between routings, the testbed
 * experiment of Sect. V-A (Figs. 7, 8) and the Table I trees. */
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
#include "cloudsm/mutate.h"
#include "cloudsm/subtree.h"
#include "cloudsm/topo_gen.h"
#include "route/fattree.h"

static void preset(struct cs_fabric *f, const char *name)
{
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    if (cs_topo_preset_generate(f, name, 0, &err) != 0)
        fail_msg("preset %s: %s", name, err.msg);
    fx_lids(f, 0);
}

static void xgft(struct cs_fabric *f, const char *spec)
{
    struct cs_pgft_spec s;
    struct cs_error err = {{0}};
    if (cs_pgft_parse(&s, spec, false, &err) != 0)
        fail_msg("parse %s: %s", spec, err.msg);
    cs_fabric_init(f);
    if (cs_pgft_generate(f, &s, &err) != 0)
        fail_msg("generate %s: %s", spec, err.msg);
    fx_lids(f, 0);
}

/* The node described `name` (CN1, S5, ...). */
static uint32_t named(const struct cs_fabric *f, const char *name)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (strcmp(f->nodes[n].desc, name) == 0)
            return n;
    fail_msg("no node named %s", name);
    return CS_NONE;
}

static uint32_t port1(const struct cs_fabric *f, uint32_t node)
{
    return cs_fabric_port(f, node, 1);
}

static uint32_t lid_of(const struct cs_fabric *f, const char *name)
{
    return f->ports[port1(f, named(f, name))].lid;
}

static uint64_t port_guid(const struct cs_fabric *f, const char *name)
{
    return f->ports[port1(f, named(f, name))].guid;
}

/* The switch that switch `sw`'s entry for lid leads to (CS_NONE: a CA or no route). */
static uint32_t next_switch(const struct cs_fabric *f, const struct cs_lfts *t, uint32_t sw,
                            uint32_t lid)
{
    uint8_t port = rt_port(t, f, sw, lid);
    if (port == 0 || port == CS_LFT_NO_ROUTE)
        return CS_NONE;
    uint32_t peer = f->ports[cs_fabric_port(f, sw, port)].peer;
    uint32_t next = f->ports[peer].node;
    return cs_node_is_switch(&f->nodes[next]) ? next : CS_NONE;
}

static bool in_list(const uint32_t *list, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == x)
            return true;
    return false;
}

static void select_ok(const struct cs_fabric *f, const uint64_t *guids, uint32_t count,
                      struct cs_subtree *s)
{
    struct cs_error err = {{0}};
    if (cs_subtree_select(f, NULL, NULL, guids, count, s, &err) != 0)
        fail_msg("select: %s", err.msg);
}

static void expect_switches(const struct cs_fabric *f, const struct cs_subtree *s,
                            const char *const *names, uint32_t n)
{
    assert_int_equal(s->num_switches, n);
    for (uint32_t i = 0; i < n; i++)
        if (!in_list(s->switches, s->num_switches, named(f, names[i])))
            fail_msg("%s is not in the sub-tree", names[i]);
}

/* Route with inputs; fails the test on an error. */
static void route_in(const char *engine, const struct cs_fabric *f,
                     const struct cs_route_inputs *in, struct cs_lfts *t,
                     struct cs_route_result *res)
{
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    if (cs_route_with(engine, f, NULL, in, t, &stats, res, &err) != 0)
        fail_msg("%s: %s", engine, err.msg);
    assert_false(stats.fell_back);
}

static int route_fails(const char *engine, const struct cs_fabric *f,
                       const struct cs_route_inputs *in, struct cs_error *err)
{
    struct cs_lfts t;
    struct cs_route_stats stats;
    int rc = cs_route_with(engine, f, NULL, in, &t, &stats, NULL, err);
    if (rc == 0)
        cs_lfts_free(&t);
    return rc;
}

/* Every switch outside `scope` has exactly its previous table; every switch in it has its
 * previous entries for the LIDs that do not end in the sub-tree. Returns the switches whose
 * tables changed. */
static uint32_t expect_changes_inside(const struct cs_fabric *f, const struct cs_lfts *before,
                                      const struct cs_lfts *after, const struct cs_subtree *sub)
{
    uint32_t changed = 0;
    for (uint32_t s = 0; s < after->num_switches; s++) {
        uint32_t node = after->switches[s].node;
        bool inside = in_list(sub->switches, sub->num_switches, node);
        bool differs = false;
        for (uint32_t lid = 1; lid <= after->max_lid; lid++) {
            uint8_t old = cs_lfts_get(before, s, lid), now = cs_lfts_get(after, s, lid);
            if (old == now)
                continue;
            differs = true;
            if (!inside)
                fail_msg("switch '%s' outside the sub-tree changed LID %u: %u -> %u",
                         f->nodes[node].desc, lid, old, now);
            uint32_t end = rt_lid_switch(f, lid);
            if (!in_list(sub->switches, sub->num_switches, end))
                fail_msg("switch '%s' changed LID %u, which ends outside the sub-tree",
                         f->nodes[node].desc, lid);
        }
        changed += differs;
        /* Only the sub-tree's tables are marked to be sent. */
        assert_int_equal(cs_lfts_block_dirty(after, s, 0), inside);
    }
    return changed;
}

/* The all-pairs check, and the same with the transition from `before` (a packet may meet old
 * entries on some switches and new ones on others): no loop, no black hole, no credit loop. */
static void expect_clean(const struct cs_fabric *f, const struct cs_lfts *t,
                         const struct cs_lfts *before)
{
    struct cs_check_result r;
    rt_check(f, t, &r);
    if (!r.ok)
        fail_msg("check: %llu loops, %llu black holes, credit loop %d", (unsigned long long)r.loops,
                 (unsigned long long)r.black_holes, r.credit_loop);
    cs_check_result_free(&r);
    if (!before)
        return;
    struct cs_tracer tr;
    struct cs_error err = {{0}};
    fx_tracer(&tr, f, t);
    struct cs_check_options opt = {.threads = 1, .transition_from = before};
    if (cs_check_lfts(&tr, &opt, &r, &err) != 0)
        fail_msg("check: %s", err.msg);
    assert_true(r.transition_lids > 0);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
    cs_tracer_free(&tr);
}

/* ------------------------------------------------------------------------------------------ */

/* The testbed as built from the paper's prose: 10 switches, 14 nodes, 4 leaves of 4 slots (the
 * last with 2 nodes), S5 and S6 above S1 and S2 (the lower-left sub-tree), CN1..CN4 on S1. */
static void test_testbed_preset(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset(&f, "hybrid-testbed");
    uint32_t switches = 0, cas = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        switches += cs_node_is_switch(&f.nodes[n]);
        cas += f.nodes[n].type == CS_NODE_CA;
    }
    assert_int_equal(switches, 10);
    assert_int_equal(cas, 14);
    const char *leaf_of[14] = {"S1", "S1", "S1", "S1", "S2", "S2", "S2",
                               "S2", "S3", "S3", "S3", "S3", "S4", "S4"};
    for (unsigned i = 0; i < 14; i++) {
        char name[8];
        snprintf(name, sizeof name, "CN%u", i + 1);
        uint32_t peer = f.ports[port1(&f, named(&f, name))].peer;
        assert_int_equal(f.ports[peer].node, named(&f, leaf_of[i]));
    }
    /* S5 and S6 are the two switches above S1 (and S2); S9, S10 the roots. */
    const char *above[2][2] = {{"S1", "S5"}, {"S1", "S6"}};
    for (unsigned i = 0; i < 2; i++) {
        uint32_t a = named(&f, above[i][0]), b = named(&f, above[i][1]);
        bool cabled = false;
        for (unsigned p = 1; p <= f.nodes[a].num_ports; p++) {
            uint32_t peer = f.ports[cs_fabric_port(&f, a, p)].peer;
            cabled |= peer != CS_NONE && f.ports[peer].node == b;
        }
        assert_true(cabled);
    }
    cs_fabric_free(&f);
}

/* Table I: all 16 trees, node and switch counts exactly as printed. */
static void test_table_1_presets(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint32_t nodes, switches;
    } rows[] = {
        {"8-3-1-half", 512, 192},     {"8-3-1-full", 1024, 320},    {"8-3-2-half", 1024, 192},
        {"8-3-2-full", 2048, 320},    {"8-3-4-half", 2048, 192},    {"8-3-4-full", 4096, 320},
        {"12-3-1-half", 1728, 432},   {"12-3-1-full", 3456, 720},   {"12-3-2-half", 3456, 432},
        {"12-3-2-full", 6912, 720},   {"16-3-1-half", 4096, 768},   {"16-3-1-full", 8192, 1280},
        {"16-3-2-half", 8192, 768},   {"16-3-2-full", 16384, 1280}, {"18-3-1-half", 5832, 972},
        {"18-3-1-full", 11664, 1620},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "hybrid-%s", rows[i].name);
        struct cs_fabric f;
        struct cs_error err = {{0}};
        cs_fabric_init(&f);
        if (cs_topo_preset_generate(&f, name, 0, &err) != 0)
            fail_msg("%s: %s", name, err.msg);
        uint32_t switches = 0, cas = 0;
        for (uint32_t n = 0; n < f.num_nodes; n++) {
            switches += cs_node_is_switch(&f.nodes[n]);
            cas += f.nodes[n].type == CS_NODE_CA;
        }
        if (cas != rows[i].nodes || switches != rows[i].switches)
            fail_msg("%s: %u/%u, Table I says %u/%u", name, cas, switches, rows[i].nodes,
                     rows[i].switches);
        cs_fabric_free(&f);
    }
}

/* Sect. IV-A on the testbed: nodes of one pod select that pod's two-level sub-tree with every
 * node on its leaves; nodes of two pods select the whole tree. Could fail: a wrong tuple digit
 * compared, a one-level (leaf only) sub-tree, nodes left out of step 4. */
static void test_select_testbed(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset(&f, "hybrid-testbed");
    static const char *const lower_left[] = {"S1", "S2", "S5", "S6"};
    static const char *const lower_right[] = {"S3", "S4", "S7", "S8"};
    struct cs_subtree s;

    /* CN1 by port GUID, CN3 by node GUID. */
    uint64_t guids[2] = {port_guid(&f, "CN1"), f.nodes[named(&f, "CN3")].guid};
    select_ok(&f, guids, 2, &s);
    expect_switches(&f, &s, lower_left, 4);
    assert_int_equal(s.levels, 2);
    assert_int_equal(s.tree_levels, 3);
    assert_int_equal(s.num_leaves, 2);
    assert_int_equal(s.leaves[0], named(&f, "S1"));
    assert_int_equal(s.leaves[1], named(&f, "S2"));
    assert_int_equal(s.num_ca_ports, 8); /* CN1..CN8: all nodes of the leaves */
    for (unsigned i = 1; i <= 8; i++) {
        char name[8];
        snprintf(name, sizeof name, "CN%u", i);
        assert_true(in_list(s.ca_ports, s.num_ca_ports, port1(&f, named(&f, name))));
    }
    cs_subtree_free(&s);

    /* One node: still its pod (a leaf alone has no route to choose). */
    guids[0] = port_guid(&f, "CN1");
    select_ok(&f, guids, 1, &s);
    expect_switches(&f, &s, lower_left, 4);
    cs_subtree_free(&s);

    /* The other pod, with its short leaf: 6 nodes. */
    guids[0] = port_guid(&f, "CN14");
    select_ok(&f, guids, 1, &s);
    expect_switches(&f, &s, lower_right, 4);
    assert_int_equal(s.num_ca_ports, 6);
    cs_subtree_free(&s);

    /* Across pods: the whole tree. */
    guids[0] = port_guid(&f, "CN5");
    guids[1] = port_guid(&f, "CN9");
    select_ok(&f, guids, 2, &s);
    assert_int_equal(s.num_switches, 10);
    assert_int_equal(s.levels, 3);
    assert_int_equal(s.prefix_len, 0);
    assert_int_equal(s.num_ca_ports, 14);
    cs_subtree_free(&s);
    cs_fabric_free(&f);
}

/* A 4-level tree (2-ary-4-tree): the common ancestor sub-tree has 2, 3 or 4 levels depending on
 * where the leaves part. */
static void test_select_four_levels(void **state)
{
    (void)state;
    struct cs_fabric f;
    xgft(&f, "4;2,2,2,2;1,2,2,2"); /* hosts 0..15, 2 per leaf; 8 leaves, 32 switches */
    static const struct {
        unsigned a, b;
        uint32_t switches, levels, nodes;
    } cases[] = {
        {0, 2, 4, 2, 4},   /* leaves 0 and 1: one pod (2 leaves, 2 switches above) */
        {0, 1, 4, 2, 4},   /* one leaf: its pod */
        {0, 4, 12, 3, 8},  /* leaves 0 and 2: the level-3 sub-tree (4 + 4 + 4 switches) */
        {0, 8, 32, 4, 16}, /* the two halves: the whole tree */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t guids[2] = {f.ports[port1(&f, cases[i].a)].guid,
                             f.ports[port1(&f, cases[i].b)].guid};
        struct cs_subtree s;
        select_ok(&f, guids, 2, &s);
        if (s.num_switches != cases[i].switches || s.levels != cases[i].levels ||
            s.num_ca_ports != cases[i].nodes)
            fail_msg("hosts %u, %u: %u switches, %u levels, %u nodes", cases[i].a, cases[i].b,
                     s.num_switches, s.levels, s.num_ca_ports);
        /* Every host on the selected leaves, and none other. */
        for (uint32_t h = 0; h < 16; h++) {
            uint32_t leaf = f.ports[f.ports[port1(&f, h)].peer].node;
            assert_int_equal(in_list(s.ca_ports, s.num_ca_ports, port1(&f, h)),
                             in_list(s.switches, s.num_switches, leaf));
        }
        cs_subtree_free(&s);
    }
    cs_fabric_free(&f);
}

static void test_select_errors(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset(&f, "hybrid-testbed");
    struct cs_subtree s;
    struct cs_error err = {{0}};
    uint64_t unknown = 0x1234;
    assert_int_equal(cs_subtree_select(&f, NULL, NULL, &unknown, 1, &s, &err), -1);
    assert_non_null(strstr(err.msg, "no node or port has GUID 0x0000000000001234"));
    uint64_t sw = f.nodes[named(&f, "S5")].guid;
    assert_int_equal(cs_subtree_select(&f, NULL, NULL, &sw, 1, &s, &err), -1);
    assert_non_null(strstr(err.msg, "the switch 'S5', not a CA"));
    assert_int_equal(cs_subtree_select(&f, NULL, NULL, &unknown, 0, &s, &err), -1);
    /* A CA cabled to nothing is on no fat tree. */
    uint32_t loose = fx_ca(&f, 0x0099000000000000, "loose");
    f.ports[port1(&f, loose)].guid = 0x0099000000000001;
    uint64_t g = 0x0099000000000001;
    assert_int_equal(cs_subtree_select(&f, NULL, NULL, &g, 1, &s, &err), -1);
    assert_non_null(strstr(err.msg, "'loose' (0x0099000000000001) is on no fat tree"));
    cs_fabric_free(&f);

    /* Two switches cabled to each other, nodes on both: no fat tree (ftree's reason). */
    cs_fabric_init(&f);
    uint32_t a = fx_switch(&f, 0x100, 4, "a"), b = fx_switch(&f, 0x200, 4, "b");
    fx_link(&f, a, 1, b, 1);
    uint32_t h1 = fx_ca(&f, 0x300, "h1"), h2 = fx_ca(&f, 0x400, "h2");
    f.ports[port1(&f, h1)].guid = 0x301;
    f.ports[port1(&f, h2)].guid = 0x401;
    fx_link(&f, a, 2, h1, 1);
    fx_link(&f, b, 2, h2, 1);
    fx_lids(&f, 0);
    g = 0x301;
    assert_int_equal(cs_subtree_select(&f, NULL, NULL, &g, 1, &s, &err), -1);
    assert_non_null(strstr(err.msg, "not a fat tree"));
    cs_fabric_free(&f);
}

/* ------------------------------------------------------------------------------------------ */

/* Sect. V-A, Figs. 7 and 8: ftree routes CN1 and CN3 down from S5, so CN5 -> CN1 and CN7 -> CN3
 * share the link S5 -> S1 (half speed each, ~16 of 32 Gbps); re-routing only the lower-left
 * sub-tree with NoFTree, CN1 and CN3 first, routes CN1 from S5 and CN3 from S6: full speed each.
 * Why this order: NoFTree puts the k-th ordered node of a leaf in slot k % 4, so CN1 takes slot 0
 * (S5, the first up group) and CN3 slot 1 (S6); without an order, the sub-tree routed again by
 * ftree (or noftree, which is then ftree) shares the link as before. */
static void test_testbed_experiment(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset(&f, "hybrid-testbed");
    uint32_t s2 = named(&f, "S2"), s5 = named(&f, "S5"), s6 = named(&f, "S6");
    uint32_t cn1 = lid_of(&f, "CN1"), cn3 = lid_of(&f, "CN3");
    const uint32_t src[2] = {port1(&f, named(&f, "CN5")), port1(&f, named(&f, "CN7"))};
    const uint32_t dst[2] = {port1(&f, named(&f, "CN1")), port1(&f, named(&f, "CN3"))};

    struct cs_lfts ftree;
    route_in("ftree", &f, NULL, &ftree, NULL);
    assert_int_equal(next_switch(&f, &ftree, s2, cn1), s5);
    assert_int_equal(next_switch(&f, &ftree, s2, cn3), s5);
    assert_true(rt_worst_share(&f, &ftree, src, dst, 2) == 0.5);

    uint64_t nodes[2] = {port_guid(&f, "CN1"), port_guid(&f, "CN3")};
    struct cs_subtree sub;
    select_ok(&f, nodes, 2, &sub);
    struct cs_guid_list order = {.guids = nodes, .count = 2};
    struct cs_route_inputs in = {.previous = &ftree,
                                 .scope_switches = sub.switches,
                                 .num_scope_switches = sub.num_switches,
                                 .node_order = &order};
    struct cs_lfts hybrid;
    struct cs_route_result res;
    route_in("noftree", &f, &in, &hybrid, &res);
    assert_true(res.scoped);
    assert_int_equal(next_switch(&f, &hybrid, s2, cn1), s5);
    assert_int_equal(next_switch(&f, &hybrid, s2, cn3), s6);
    assert_true(rt_worst_share(&f, &hybrid, src, dst, 2) == 1.0);
    assert_true(expect_changes_inside(&f, &ftree, &hybrid, &sub) > 0);
    expect_clean(&f, &hybrid, &ftree);
    cs_route_result_free(&res);

    /* The same sub-tree without an order: FTree's balance again, the link shared again. */
    struct cs_lfts again;
    in.node_order = NULL;
    route_in("noftree", &f, &in, &again, NULL);
    assert_true(rt_worst_share(&f, &again, src, dst, 2) == 0.5);
    rt_assert_same_tables(&ftree, &again);
    cs_lfts_free(&again);

    /* Fig. 4's statement: traffic from outside the sub-tree keeps its old path and enters the
     * sub-tree where it used to: CN9 -> CN3 still comes down through S5, while CN7 -> CN3, inside
     * the sub-tree, now goes up to S6. */
    uint32_t s3 = named(&f, "S3");
    uint32_t old_entry = CS_NONE, new_entry = CS_NONE;
    for (uint32_t s = s3, hops = 0; s != CS_NONE && hops < 8; hops++) {
        uint32_t next = next_switch(&f, &ftree, s, cn3);
        if (next == s5 || next == s6) {
            old_entry = next;
            break;
        }
        s = next;
    }
    for (uint32_t s = s3, hops = 0; s != CS_NONE && hops < 8; hops++) {
        uint32_t next = next_switch(&f, &hybrid, s, cn3);
        if (next == s5 || next == s6) {
            new_entry = next;
            break;
        }
        s = next;
    }
    assert_int_equal(old_entry, s5);
    assert_int_equal(new_entry, s5);
    assert_int_equal(next_switch(&f, &hybrid, s5, cn3), named(&f, "S1"));
    cs_subtree_free(&sub);
    cs_lfts_free(&hybrid);
    cs_lfts_free(&ftree);
    cs_fabric_free(&f);
}

/* A sub-tree that is the whole tree is a full routing started from any tables: entry for entry
 * ftree (the scope turns the walk's shortcuts off, which must not change a choice). */
static void test_whole_tree_scope_is_ftree(void **state)
{
    (void)state;
    const char *trees[] = {"3;4,4,4;1,4,4", "3;8,4,8;1,4,4", "4;2,2,2,2;1,2,2,2"};
    for (size_t i = 0; i < sizeof trees / sizeof *trees; i++) {
        struct cs_fabric f;
        xgft(&f, trees[i]);
        struct cs_lfts want, minhop, got;
        route_in("ftree", &f, NULL, &want, NULL);
        route_in("minhop", &f, NULL, &minhop, NULL); /* previous tables unlike ftree's */
        uint32_t hosts = 0; /* the first and the last host: the whole tree */
        while (f.nodes[hosts].type == CS_NODE_CA)
            hosts++;
        uint64_t guids[2] = {f.ports[port1(&f, 0)].guid, f.ports[port1(&f, hosts - 1)].guid};
        struct cs_subtree sub;
        select_ok(&f, guids, 2, &sub);
        assert_int_equal(sub.prefix_len, 0);
        struct cs_route_inputs in = {.previous = &minhop,
                                     .scope_switches = sub.switches,
                                     .num_scope_switches = sub.num_switches};
        route_in("ftree", &f, &in, &got, NULL);
        rt_assert_same_tables(&want, &got);
        cs_subtree_free(&sub);
        cs_lfts_free(&want);
        cs_lfts_free(&minhop);
        cs_lfts_free(&got);
        cs_fabric_free(&f);
    }
}

/* A pod of a Table I tree re-routed by noftree in reverse port order: only the pod's tables
 * change, and only for the pod's LIDs; everything stays delivered, and neither the new tables
 * nor any mix of old and new entries has a credit loop (the paper gives no argument for the
 * transition; this checks it on this case). */
static void test_table_1_pod(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset(&f, "hybrid-8-3-1-half");
    struct cs_lfts ftree, hybrid;
    route_in("ftree", &f, NULL, &ftree, NULL);
    uint64_t first = f.ports[port1(&f, 0)].guid;
    struct cs_subtree sub;
    select_ok(&f, &first, 1, &sub);
    assert_int_equal(sub.num_switches, 16); /* 8 leaves, 8 above them */
    assert_int_equal(sub.num_ca_ports, 64);
    uint64_t *reversed = calloc(sub.num_ca_ports, sizeof *reversed);
    assert_non_null(reversed);
    for (uint32_t i = 0; i < sub.num_ca_ports; i++)
        reversed[i] = f.ports[sub.ca_ports[sub.num_ca_ports - 1 - i]].guid;
    struct cs_guid_list order = {.guids = reversed, .count = sub.num_ca_ports};
    struct cs_route_inputs in = {.previous = &ftree,
                                 .scope_switches = sub.switches,
                                 .num_scope_switches = sub.num_switches,
                                 .node_order = &order};
    route_in("noftree", &f, &in, &hybrid, NULL);
    assert_true(expect_changes_inside(&f, &ftree, &hybrid, &sub) > 0);
    expect_clean(&f, &hybrid, &ftree);
    free(reversed);
    cs_subtree_free(&sub);
    cs_lfts_free(&ftree);
    cs_lfts_free(&hybrid);
    cs_fabric_free(&f);
}

/* The scope is routed as a fat-tree of its own: dummies fill its leaves up to its fullest leaf,
 * not the whole tree's. Here the lower-left pod's leaves have 2 compute nodes (the others are
 * routed as non-compute CAs), the right pod's first leaf 4. */
static void test_scope_dummies(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset(&f, "hybrid-testbed");
    const char *cn_names[] = {"CN1", "CN2", "CN5", "CN6", "CN9", "CN10", "CN11", "CN12"};
    uint64_t cn_guids[8];
    for (unsigned i = 0; i < 8; i++)
        cn_guids[i] = port_guid(&f, cn_names[i]);
    struct cs_guid_list cns = {.guids = cn_guids, .count = 8};
    struct cs_route_options opt = {.cn_guids = &cns};
    struct cs_ft ft;
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_build(&ft, &f, &opt, &err), 0);
    assert_int_equal(ft.max_cn_per_leaf, 4);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    assert_int_equal(cs_ft_bind(&ft, &t, NULL, &err), 0);
    uint32_t pod[4] = {named(&f, "S1"), named(&f, "S2"), named(&f, "S5"), named(&f, "S6")};
    assert_int_equal(cs_ft_set_scope(&ft, pod, 4, &err), 0);
    assert_int_equal(ft.max_cn_per_leaf, 2);
    struct cs_ft_targets list = {0};
    assert_int_equal(cs_ft_targets_cns(&ft, &list, &err), 0);
    assert_int_equal(list.count, 4); /* CN1, CN2, CN5, CN6: no dummy */
    for (uint32_t i = 0; i < list.count; i++)
        assert_int_equal(list.items[i].kind, CS_FT_TARGET_CA);
    cs_ft_targets_free(&list);
    assert_int_equal(cs_ft_set_scope(&ft, NULL, 0, &err), 0);
    assert_int_equal(ft.max_cn_per_leaf, 4);
    assert_int_equal(cs_ft_targets_cns(&ft, &list, &err), 0);
    assert_int_equal(list.count, 12); /* S1..S3 x 4 (S4 has no compute node: no leaf to ftree) */
    cs_ft_targets_free(&list);
    cs_ft_free(&ft);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

static void test_scope_errors(void **state)
{
    (void)state;
    struct cs_fabric f;
    preset(&f, "hybrid-testbed");
    struct cs_lfts ftree;
    route_in("ftree", &f, NULL, &ftree, NULL);
    uint32_t pod[4] = {named(&f, "S1"), named(&f, "S2"), named(&f, "S5"), named(&f, "S6")};
    struct cs_route_inputs in = {.scope_switches = pod, .num_scope_switches = 4};
    struct cs_error err = {{0}};

    assert_int_equal(route_fails("ftree", &f, &in, &err), -1); /* no previous tables */
    assert_non_null(strstr(err.msg, "give the previous tables"));

    in.previous = &ftree;
    /* Engines not on the machinery refuse a scope instead of routing everything. */
    assert_int_equal(route_fails("minhop", &f, &in, &err), -1);
    assert_non_null(strstr(err.msg, "minhop cannot re-route a sub-tree"));
    assert_int_equal(route_fails("updn", &f, &in, &err), -1);
    assert_non_null(strstr(err.msg, "updn cannot re-route a sub-tree"));

    /* A leaf and a root: not a sub-tree (S1's up neighbours are outside it). */
    uint32_t odd[2] = {named(&f, "S1"), named(&f, "S9")};
    in.scope_switches = odd;
    in.num_scope_switches = 2;
    assert_int_equal(route_fails("ftree", &f, &in, &err), -1);
    assert_non_null(strstr(err.msg, "not a sub-tree: switch"));
    assert_non_null(strstr(err.msg, "('S1') is in it"));

    /* Previous tables of another fabric: a switch without a table. */
    struct cs_lfts partial;
    struct cs_error e2 = {{0}};
    assert_int_equal(cs_lfts_init(&partial, ftree.max_lid, &e2), 0);
    for (uint32_t s = 0; s + 1 < ftree.num_switches; s++) {
        uint32_t i = cs_lfts_add_switch(&partial, ftree.switches[s].guid, ftree.switches[s].lid,
                                        ftree.switches[s].desc, CS_NONE, &e2);
        assert_true(i != CS_NONE);
        memcpy(cs_lfts_table(&partial, i), cs_lfts_table(&ftree, s), partial.capacity);
    }
    in.scope_switches = pod;
    in.num_scope_switches = 4;
    in.previous = &partial;
    assert_int_equal(route_fails("ftree", &f, &in, &err), -1);
    assert_non_null(strstr(err.msg, "the previous tables have none for switch"));
    cs_lfts_free(&partial);

    /* A damaged tree (the cable S1-S5 cut, inside the pod): ftree refuses it (OpenSM's checks)
     * and a sub-tree re-routing does not fall back to minhop, which cannot keep to the sub-tree;
     * slimupdate, which routes damaged trees, re-routes the sub-tree. Could fail if the fallback
     * were taken (the whole fabric routed by minhop). */
    uint32_t s1 = named(&f, "S1"), s5 = named(&f, "S5");
    for (unsigned p = 1; p <= f.nodes[s1].num_ports; p++) {
        uint32_t port = f.nodes[s1].first_port + p, peer = f.ports[port].peer;
        if (peer != CS_NONE && f.ports[peer].node == s5) {
            f.ports[port].peer = CS_NONE;
            f.ports[peer].peer = CS_NONE;
            break;
        }
    }
    in.previous = &ftree;
    assert_int_equal(route_fails("ftree", &f, &in, &err), -1);
    assert_non_null(strstr(err.msg, "a sub-tree re-routing does not fall back to minhop"));
    struct cs_lfts slim;
    struct cs_route_stats st;
    if (cs_route_with("slimupdate", &f, NULL, &in, &slim, &st, NULL, &err) != 0)
        fail_msg("slimupdate: %s", err.msg);
    assert_false(st.fell_back);
    unsigned changed_in = 0, changed_out = 0;
    for (uint32_t t = 0; t < slim.num_switches; t++) {
        bool inside = false;
        for (unsigned i = 0; i < 4; i++)
            inside |= slim.switches[t].node == pod[i];
        uint32_t o = cs_lfts_find(&ftree, slim.switches[t].guid);
        bool differs =
            memcmp(cs_lfts_table(&slim, t), cs_lfts_table(&ftree, o), slim.max_lid + 1) != 0;
        changed_in += inside && differs;
        changed_out += !inside && differs;
    }
    assert_int_equal(changed_out, 0);
    assert_true(changed_in > 0); /* S1 lost a cable: its routes up it moved */
    cs_lfts_free(&slim);
    cs_lfts_free(&ftree);
    cs_fabric_free(&f);
}

/* ------------------------------------------------------------------------------------------ */

/* The machinery kept in a cs_route_state: the second routing of the same fabric reuses it (no
 * build) and gives exactly what a fresh one gives, whatever ran on it before (ftree, noftree
 * with an order, a scoped re-routing); a copy of the fabric is the same fabric; a changed one
 * (hosts cabled to other leaf ports) is detected and rebuilt. */
static void test_kept_machinery(void **state)
{
    (void)state;
    struct cs_fabric f;
    xgft(&f, "3;4,4,4;1,4,4");
    struct cs_route_state *kept = cs_route_state_new();
    assert_non_null(kept);
    uint32_t hosts = 0;
    while (f.nodes[hosts].type == CS_NODE_CA)
        hosts++;
    uint64_t *order_guids = calloc(hosts, sizeof *order_guids);
    for (uint32_t i = 0; i < hosts; i++) /* a scrambled order */
        order_guids[i] = f.ports[port1(&f, (i * 7 + 3) % hosts)].guid;
    struct cs_guid_list order = {.guids = order_guids, .count = hosts};

    struct cs_lfts fresh_ftree, fresh_noftree, t;
    struct cs_route_result res;
    route_in("ftree", &f, NULL, &fresh_ftree, NULL);
    route_in("noftree", &f, &(struct cs_route_inputs){.node_order = &order}, &fresh_noftree, NULL);

    struct cs_route_inputs in = {.state = kept};
    route_in("ftree", &f, &in, &t, &res);
    assert_false(res.build_kept);
    rt_assert_same_tables(&fresh_ftree, &t);
    cs_lfts_free(&t);

    in.node_order = &order;
    route_in("noftree", &f, &in, &t, &res);
    assert_true(res.build_kept);
    rt_assert_same_tables(&fresh_noftree, &t);
    cs_lfts_free(&t);

    /* A scoped re-routing on the kept machinery equals one on a fresh build. */
    uint64_t first = f.ports[port1(&f, 0)].guid;
    struct cs_subtree sub;
    select_ok(&f, &first, 1, &sub);
    struct cs_route_inputs scoped = {.previous = &fresh_ftree,
                                     .scope_switches = sub.switches,
                                     .num_scope_switches = sub.num_switches,
                                     .node_order = &order};
    struct cs_lfts fresh_scoped;
    route_in("noftree", &f, &scoped, &fresh_scoped, NULL);
    scoped.state = kept;
    route_in("noftree", &f, &scoped, &t, &res);
    assert_true(res.build_kept);
    assert_true(res.scoped);
    rt_assert_same_tables(&fresh_scoped, &t);
    cs_lfts_free(&t);

    /* After a scope and an order: plain ftree again, on a copy of the fabric. */
    struct cs_fabric copy;
    struct cs_error err = {{0}};
    cs_fabric_init(&copy);
    assert_int_equal(cs_fabric_copy(&copy, &f, &err), 0);
    in.node_order = NULL;
    route_in("ftree", &copy, &in, &t, &res);
    assert_true(res.build_kept);
    rt_assert_same_tables(&fresh_ftree, &t);
    cs_lfts_free(&t);

    /* A changed fabric: rebuilt, and routed as a fresh build routes it. */
    struct cs_mutation m = {.shuffle_host_ports = true, .seed = 7};
    assert_int_equal(cs_fabric_mutate(&copy, &m, &err), 0);
    struct cs_lfts fresh_changed;
    route_in("ftree", &copy, NULL, &fresh_changed, NULL);
    route_in("ftree", &copy, &in, &t, &res);
    assert_false(res.build_kept);
    rt_assert_same_tables(&fresh_changed, &t);
    cs_lfts_free(&t);
    /* ...and kept from then on, by the sub-tree selection too. */
    struct cs_subtree sub2;
    assert_int_equal(cs_subtree_select(&copy, NULL, kept, &first, 1, &sub2, &err), 0);
    assert_int_equal(sub2.num_switches, sub.num_switches);
    cs_subtree_free(&sub2);
    route_in("ftree", &copy, &in, &t, &res);
    assert_true(res.build_kept);
    rt_assert_same_tables(&fresh_changed, &t);
    cs_lfts_free(&t);
    /* A selection on another fabric rebuilds it; the next routing of this one rebuilds again. */
    assert_int_equal(cs_subtree_select(&f, NULL, kept, &first, 1, &sub2, &err), 0);
    cs_subtree_free(&sub2);
    route_in("ftree", &copy, &in, &t, &res);
    assert_false(res.build_kept);
    rt_assert_same_tables(&fresh_changed, &t);
    cs_lfts_free(&t);

    cs_lfts_free(&fresh_changed);
    cs_lfts_free(&fresh_scoped);
    cs_subtree_free(&sub);
    cs_lfts_free(&fresh_ftree);
    cs_lfts_free(&fresh_noftree);
    free(order_guids);
    cs_route_state_free(kept);
    cs_fabric_free(&copy);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_testbed_preset),
        cmocka_unit_test(test_table_1_presets),
        cmocka_unit_test(test_select_testbed),
        cmocka_unit_test(test_select_four_levels),
        cmocka_unit_test(test_select_errors),
        cmocka_unit_test(test_testbed_experiment),
        cmocka_unit_test(test_whole_tree_scope_is_ftree),
        cmocka_unit_test(test_table_1_pod),
        cmocka_unit_test(test_scope_dummies),
        cmocka_unit_test(test_scope_errors),
        cmocka_unit_test(test_kept_machinery),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
