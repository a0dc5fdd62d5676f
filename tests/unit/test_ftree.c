/* ftree: parity with OpenSM 3.3.23 on committed OpenSM dumps (tests/data/ftree), the seeds'
 * worked example, delivery and shortest paths on generated trees, balance and shift
 * permutations on k-ary-n-trees, the options (root, CN lists, connect_roots), OpenSM's fallback
 * decisions, determinism, and facts of the machinery (map order, tuples, counters). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "route_fixtures.h"

#include "cloudsm/guid_list.h"
#include "cloudsm/lft_io.h"
#include "cloudsm/topo_io.h"
#include "route/fattree.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static void generate(struct cs_fabric *f, const char *spec, bool pgft, unsigned hosts_per_leaf)
{
    struct cs_pgft_spec s;
    struct cs_error err = {{0}};
    if (cs_pgft_parse(&s, spec, pgft, &err) != 0)
        fail_msg("parse %s: %s", spec, err.msg);
    s.hosts_per_leaf = hosts_per_leaf;
    cs_fabric_init(f);
    if (cs_pgft_generate(f, &s, &err) != 0)
        fail_msg("generate %s: %s", spec, err.msg);
    fx_lids(f, 0);
}

/* Switch j of level l of a generated tree (GUID rule of topo_gen.h). */
static uint32_t gen_switch(const struct cs_fabric *f, unsigned level, unsigned j)
{
    uint64_t guid = CS_GUID_SWITCH_BASE + ((uint64_t)level << 32) + j;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == guid)
            return n;
    fail_msg("no switch %u of level %u", j, level);
    return CS_NONE;
}

static uint32_t gen_host(const struct cs_fabric *f, unsigned i)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == CS_GUID_HOST_BASE + ((uint64_t)i << 8))
            return n;
    fail_msg("no host %u", i);
    return CS_NONE;
}

static void guid_list_of(struct cs_guid_list *l, const uint64_t *guids, uint32_t count)
{
    memset(l, 0, sizeof *l);
    l->guids = malloc((count ? count : 1) * sizeof *l->guids);
    assert_non_null(l->guids);
    memcpy(l->guids, guids, count * sizeof *guids);
    l->count = l->capacity = count;
}

/* cs_route_ftree on its own: the engine's verdict, before any fallback. */
static int ftree_alone(const struct cs_fabric *f, const struct cs_route_options *opt,
                       struct cs_error *err)
{
    struct cs_lfts t;
    struct cs_error e = {{0}};
    if (cs_lfts_for_fabric(&t, f, &e) != 0)
        fail_msg("%s", e.msg);
    int rc =
        cs_route_ftree(f, opt, &(struct cs_route_inputs){0}, &t, &(struct cs_route_result){0}, err);
    cs_lfts_free(&t);
    return rc;
}

static void expect_unsuitable(const struct cs_fabric *f, const struct cs_route_options *opt,
                              const char *reason_part)
{
    struct cs_error err = {{0}};
    assert_int_equal(ftree_alone(f, opt, &err), CS_ROUTE_UNSUITABLE);
    if (!strstr(err.msg, reason_part))
        fail_msg("reason '%s' does not say '%s'", err.msg, reason_part);
}

/* All CA-to-CA pairs delivered, no credit loop; CA routes are shortest. */
static void expect_valid(const struct cs_fabric *f, const struct cs_lfts *t)
{
    struct cs_check_result r;
    rt_check(f, t, &r);
    assert_true(r.pairs > 0);
    assert_int_equal(r.delivered, r.pairs);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
    rt_assert_shortest(f, t, true);
}

/* Every entry of `opensm` (read from an OpenSM dump) equals ours, switch by GUID, LID by LID;
 * and we have no entry OpenSM does not. */
static void expect_same_as_dump(const struct cs_lfts *ours, const char *dump)
{
    struct cs_lfts theirs;
    struct cs_error err = {{0}};
    if (cs_lfts_read(&theirs, dump, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(ours->num_switches, theirs.num_switches);
    uint32_t compared = 0;
    for (uint32_t s = 0; s < theirs.num_switches; s++) {
        uint32_t o = cs_lfts_find(ours, theirs.switches[s].guid);
        assert_true(o != CS_NONE);
        uint32_t top = ours->max_lid > theirs.max_lid ? ours->max_lid : theirs.max_lid;
        for (uint32_t lid = 1; lid <= top; lid++) {
            uint8_t a = cs_lfts_get(ours, o, lid), b = cs_lfts_get(&theirs, s, lid);
            if (a != b)
                fail_msg("switch 0x%016llx LID %u: ours %u, OpenSM %u",
                         (unsigned long long)theirs.switches[s].guid, lid, a, b);
            compared += b != CS_LFT_NO_ROUTE;
        }
    }
    assert_true(compared > 100);
    cs_lfts_free(&theirs);
}

static void load_fixture(struct cs_fabric *f, const char *name)
{
    char path[512];
    struct cs_error err = {{0}};
    struct cs_guid2lid g = {0};
    cs_fabric_init(f);
    snprintf(path, sizeof path, "%s/ftree/%s.topo", CLOUDSM_TEST_DATA, name);
    if (cs_topo_read(f, path, &err) != 0)
        fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/ftree/%s.guid2lid", CLOUDSM_TEST_DATA, name);
    if (cs_guid2lid_read(&g, path, &err) != 0 || cs_guid2lid_apply(&g, f, &err) < 0 ||
        cs_lids_assign(f, 0, &err) != 0)
        fail_msg("%s", err.msg);
    cs_guid2lid_free(&g);
}

/* ---- parity with OpenSM on committed dumps --------------------------------------------- */

/* PGFT with parallel links, 3 hosts per leaf, shuffled host cabling; OpenSM's own LIDs. */
static void test_opensm_dump_plain(void **state)
{
    (void)state;
    struct cs_fabric f;
    load_fixture(&f, "plain");
    struct cs_lfts t;
    rt_route("ftree", &f, NULL, &t);
    expect_same_as_dump(&t, CLOUDSM_TEST_DATA "/ftree/plain.lfts");
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* OpenSM with -u (17 of 24 CA ports are compute nodes: a dummy on one leaf, 7 non-CN ports
 * routed afterwards in hca_tbl order) and -z (roots route each other through the last leaf). */
static void test_opensm_dump_options(void **state)
{
    (void)state;
    struct cs_fabric f;
    load_fixture(&f, "options");
    struct cs_guid_list cns = {0};
    struct cs_error err = {{0}};
    if (cs_guid_list_read(&cns, CLOUDSM_TEST_DATA "/ftree/options.cns", &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_route_options opt = {.cn_guids = &cns, .connect_roots = true};
    struct cs_lfts t, plain;
    rt_route("ftree", &f, &opt, &t);
    expect_same_as_dump(&t, CLOUDSM_TEST_DATA "/ftree/options.lfts");
    /* The options matter here: without them the tables differ. */
    rt_route("ftree", &f, NULL, &plain);
    assert_memory_not_equal(plain.ports, t.ports, (size_t)t.num_switches * t.capacity);
    cs_lfts_free(&plain);
    cs_lfts_free(&t);
    cs_guid_list_free(&cns);
    cs_fabric_free(&f);
}

/* ---- the seeds' worked example ---------------------------------------------------------- */

struct path {
    uint32_t nodes[8];
    unsigned len;
};

static void record_hop(void *ctx, uint32_t from, uint32_t to)
{
    struct path *p = ctx;
    if (p->len == 0)
        p->nodes[p->len++] = from;
    assert_true(p->len < 8);
    p->nodes[p->len++] = to;
}

/* Paper III (docs/references.md), Fig. 2 (12 switches: leaves 1-4, middle 5-8,
 * roots 9-12, nodes a..h): f -> a takes 3,7,9,5,1 and f -> b takes 3,8,10,6,1. The figure's tree
 * is XGFT(3;2,2,2;1,2,2). Switch numbers map to the generator's levels in index order (1-4 =
 * level 1 index 0-3, 5-8 = level 2, 9-12 = level 3); with that mapping the figure's cables exist
 * (7-9, 9-5, 8-10, 10-6: level-2 switch j is cabled to roots j%2 and j%2+2), nodes a..h are
 * hosts 0..7, a and b on leaf 1, f the second host of leaf 3. */
static void test_fig2_worked_example(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "3;2,2,2;1,2,2", false, 0);
    struct cs_lfts t;
    rt_route("ftree", &f, NULL, &t);
    uint32_t number[13];
    for (unsigned i = 0; i < 12; i++)
        number[i + 1] = gen_switch(&f, 1 + i / 4, i % 4);
    uint32_t a = gen_host(&f, 0), b = gen_host(&f, 1), node_f = gen_host(&f, 5);
    assert_int_equal(f.ports[f.ports[cs_fabric_port(&f, node_f, 1)].peer].node, number[3]);
    static const unsigned want_a[] = {3, 7, 9, 5, 1}, want_b[] = {3, 8, 10, 6, 1};
    const unsigned *want[2] = {want_a, want_b};
    uint32_t dest[2] = {a, b};
    for (unsigned d = 0; d < 2; d++) {
        struct path p = {.len = 0};
        int hops = rt_walk(&f, &t, number[3], fx_lid(&f, dest[d], 1), record_hop, &p);
        assert_int_equal(hops, 4);
        assert_int_equal(p.len, 5);
        for (unsigned i = 0; i < 5; i++)
            if (p.nodes[i] != number[want[d][i]])
                fail_msg("f -> %c: hop %u is %s, the figure says switch %u", "ab"[d], i,
                         f.nodes[p.nodes[i]].desc, want[d][i]);
    }
    /* "every switch holds an entry for every LID" (of a CA) */
    for (uint32_t s = 1; s <= 12; s++)
        for (unsigned h = 0; h < 8; h++)
            assert_int_not_equal(rt_port(&t, &f, number[s], fx_lid(&f, gen_host(&f, h), 1)),
                                 CS_LFT_NO_ROUTE);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* ---- delivery, balance, shift permutations --------------------------------------------- */

static void test_all_pairs_on_trees(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        bool pgft;
        unsigned hosts_per_leaf;
    } trees[] = {
        {"2;4,4;1,4", false, 0},          /* 2-level k-ary */
        {"3;3,3,3;1,3,3", false, 0},      /* 3-level k-ary */
        {"3;4,3,2;1,2,3", false, 0},      /* unequal arities */
        {"2;8,4;1,4", false, 0},          /* oversubscribed: 8 hosts, 4 up per leaf */
        {"3;4,2,2;1,2,2;1,2,2", true, 0}, /* parallel links */
        {"3;4,4,2;1,2,2", false, 3},      /* missing hosts */
        {"4;2,2,2,2;1,2,2,2", false, 0},  /* 4 levels */
    };
    for (unsigned i = 0; i < sizeof trees / sizeof *trees; i++) {
        struct cs_fabric f;
        generate(&f, trees[i].spec, trees[i].pgft, trees[i].hosts_per_leaf);
        struct cs_lfts t;
        rt_route("ftree", &f, NULL, &t);
        expect_valid(&f, &t);
        cs_lfts_free(&t);
        cs_fabric_free(&f);
    }
}

/* CA LIDs a switch forwards through each of its ports. */
static void count_ca_routes(const struct cs_fabric *f, const struct cs_lfts *t, uint32_t sw,
                            unsigned *per_port)
{
    memset(per_port, 0, (CS_MAX_PORTS + 1) * sizeof *per_port);
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid || cs_node_is_switch(&f->nodes[p->node]))
            continue;
        uint8_t port = rt_port(t, f, sw, p->lid);
        assert_int_not_equal(port, CS_LFT_NO_ROUTE);
        per_port[port]++;
    }
}

/* k-ary-n-tree = XGFT(n; k..k; 1,k..k): a level-l switch (1 = leaf) has ports 1..k down and
 * k+1..2k up. Below each down port sit k^(l-1) CAs, and every one of them is reached down that
 * port (the only shortest path). The other k^n - k^l CAs leave through the k up ports; ftree
 * spreads them evenly: k^(n-1) - k^(l-1) per up port. Roots have no up cables. */
static void test_kary_balance(void **state)
{
    (void)state;
    static const unsigned shapes[][2] = {{4, 2}, {4, 3}, {3, 3}, {2, 4}};
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        unsigned k = shapes[i][0], n = shapes[i][1];
        struct cs_pgft_spec s;
        struct cs_error err = {{0}};
        assert_int_equal(cs_pgft_kary(&s, k, n, &err), 0);
        struct cs_fabric f;
        cs_fabric_init(&f);
        assert_int_equal(cs_pgft_generate(&f, &s, &err), 0);
        fx_lids(&f, 0);
        struct cs_lfts t;
        rt_route("ftree", &f, NULL, &t);
        unsigned per_port[CS_MAX_PORTS + 1];
        unsigned kn = 1, checked = 0;
        for (unsigned j = 0; j < n; j++)
            kn *= k;
        for (uint32_t node = 0; node < f.num_nodes; node++) {
            if (!cs_node_is_switch(&f.nodes[node]))
                continue;
            unsigned level = (unsigned)((f.nodes[node].guid >> 32) & 0xff);
            unsigned below = 1; /* k^(level-1) */
            for (unsigned j = 1; j < level; j++)
                below *= k;
            count_ca_routes(&f, &t, node, per_port);
            for (unsigned p = 1; p <= 2 * k; p++) {
                unsigned want = p <= k ? below : level == n ? 0 : kn / k - below;
                if (per_port[p] != want)
                    fail_msg("%u-ary-%u-tree, %s port %u: %u CA routes, want %u", k, n,
                             f.nodes[node].desc, p, per_port[p], want);
            }
            checked++;
        }
        assert_int_equal(checked, n * kn / k);
        cs_lfts_free(&t);
        cs_fabric_free(&f);
    }
}

struct link_load {
    uint16_t *load; /* [from * num_nodes + to] */
    uint32_t num_nodes;
    unsigned max;
};

static void count_link(void *ctx, uint32_t from, uint32_t to)
{
    struct link_load *l = ctx;
    unsigned v = ++l->load[(size_t)from * l->num_nodes + to];
    if (v > l->max)
        l->max = v;
}

/* The non-blocking property the seeds cite for ftree on full-bisection k-ary-n-trees: in every
 * shift permutation (host i sends to host i+s mod N, hosts in ftree's routing order, which for
 * the generator is host index order) no switch-to-switch link carries two flows. */
static void test_shift_permutations(void **state)
{
    (void)state;
    static const unsigned shapes[][2] = {{4, 2}, {4, 3}, {3, 3}};
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        struct cs_pgft_spec s;
        struct cs_error err = {{0}};
        assert_int_equal(cs_pgft_kary(&s, shapes[i][0], shapes[i][1], &err), 0);
        struct cs_fabric f;
        cs_fabric_init(&f);
        assert_int_equal(cs_pgft_generate(&f, &s, &err), 0);
        fx_lids(&f, 0);
        struct cs_lfts t;
        rt_route("ftree", &f, NULL, &t);
        uint32_t hosts = 0;
        for (uint32_t node = 0; node < f.num_nodes; node++)
            hosts += f.nodes[node].type == CS_NODE_CA;
        struct link_load l = {.num_nodes = f.num_nodes};
        l.load = calloc((size_t)f.num_nodes * f.num_nodes, sizeof *l.load);
        assert_non_null(l.load);
        for (uint32_t shift = 1; shift < hosts; shift++) {
            memset(l.load, 0, (size_t)f.num_nodes * f.num_nodes * sizeof *l.load);
            l.max = 0;
            for (uint32_t h = 0; h < hosts; h++) {
                uint32_t src = gen_host(&f, h), dst = gen_host(&f, (h + shift) % hosts);
                uint32_t leaf = f.ports[f.ports[cs_fabric_port(&f, src, 1)].peer].node;
                assert_true(rt_walk(&f, &t, leaf, fx_lid(&f, dst, 1), count_link, &l) >= 0);
            }
            if (l.max > 1)
                fail_msg("%u-ary-%u-tree, shift %u: a link carries %u flows", shapes[i][0],
                         shapes[i][1], shift, l.max);
        }
        free(l.load);
        cs_lfts_free(&t);
        cs_fabric_free(&f);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    struct cs_fabric f, copy;
    struct cs_error err = {{0}};
    generate(&f, "3;4,3,2;1,2,3", false, 0);
    assert_int_equal(cs_fabric_copy(&copy, &f, &err), 0);
    struct cs_lfts a, b, c;
    rt_route("ftree", &f, NULL, &a);
    rt_route("ftree", &f, NULL, &b);
    rt_route("ftree", &copy, NULL, &c);
    rt_assert_same_tables(&a, &b);
    rt_assert_same_tables(&a, &c);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_lfts_free(&c);
    cs_fabric_free(&copy);
    cs_fabric_free(&f);
}

/* ---- fallback ---------------------------------------------------------------------------- */

/* Six switches in a ring, one CA each: every switch is at distance 0 from a CA, so all come out
 * as roots (OpenSM ERR AB2B); cs_route falls back to minhop and says why. */
static void test_fallback_ring(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t sw[6];
    for (unsigned i = 0; i < 6; i++) {
        sw[i] = fx_switch(&f, 0x20 + i, 4, "ring");
        fx_link(&f, fx_ca(&f, 0x100 + 0x10 * i, "host"), 1, sw[i], 1);
    }
    for (unsigned i = 0; i < 6; i++)
        fx_link(&f, sw[i], 3, sw[(i + 1) % 6], 4);
    fx_lids(&f, 0);
    expect_unsuitable(&f, NULL, "more than one root");

    struct cs_lfts t;
    struct cs_route_stats st;
    struct cs_error err = {{0}};
    assert_int_equal(cs_route("ftree", &f, NULL, &t, &st, &err), 0);
    assert_true(st.fell_back);
    assert_string_equal(st.requested, "ftree");
    assert_string_equal(st.engine, "minhop");
    assert_non_null(strstr(st.fallback_reason, "more than one root"));
    cs_lfts_free(&t);

    struct cs_route_options strict = {.no_fallback = true};
    assert_int_equal(cs_route("ftree", &f, &strict, &t, &st, &err), -1);
    cs_fabric_free(&f);
}

/* The other refusals of construct_fabric and fabric_validate_topology. */
static void test_fallback_reasons(void **state)
{
    (void)state;
    struct cs_fabric f;

    /* LMC > 0 */
    generate(&f, "2;2,2;1,2", false, 0);
    for (uint32_t i = 0; i < f.num_port_slots; i++)
        f.ports[i].lid = 0;
    fx_lids(&f, 1);
    expect_unsuitable(&f, NULL, "LMC > 0");
    cs_fabric_free(&f);

    /* one switch */
    cs_fabric_init(&f);
    uint32_t s = fx_switch(&f, 0x20, 4, "alone");
    fx_link(&f, fx_ca(&f, 0x100, "a"), 1, s, 1);
    fx_link(&f, fx_ca(&f, 0x200, "b"), 1, s, 2);
    fx_lids(&f, 0);
    expect_unsuitable(&f, NULL, "1 switch");
    cs_fabric_free(&f);

    /* two CAs cabled back to back next to a tree */
    generate(&f, "2;2,2;1,2", false, 0);
    uint32_t x = cs_fabric_add_node(&f, CS_NODE_CA, 0x900, 1, "x", NULL);
    uint32_t y = cs_fabric_add_node(&f, CS_NODE_CA, 0xa00, 1, "y", NULL);
    fx_link(&f, x, 1, y, 1);
    fx_lids(&f, 0);
    expect_unsuitable(&f, NULL, "cabled directly");
    cs_fabric_free(&f);

    /* a 4-ary-3-tree with one leaf-to-middle cable cut: the leaf has 3 up groups, the others
     * 4 (OpenSM ERR AB09) */
    generate(&f, "3;4,4,4;1,4,4", false, 0);
    uint32_t leaf = gen_switch(&f, 1, 5);
    uint32_t up = cs_fabric_port(&f, leaf, 6);
    f.ports[f.ports[up].peer].peer = CS_NONE;
    f.ports[up].peer = CS_NONE;
    expect_unsuitable(&f, NULL, "different number of upward port groups");
    cs_fabric_free(&f);

    /* A CA on a spine of a 2-level tree: ranked from the CAs, that spine is farthest from the
     * other spine, which alone becomes the root; the leaves come out at rank 1, the CA's spine
     * at rank 2 = the leaf rank, and the leaves' CNs are on the wrong rank (OpenSM ERR AB26). */
    generate(&f, "2;2,2;1,2", false, 0);
    uint32_t extra = cs_fabric_add_node(&f, CS_NODE_CA, 0x900, 1, "on a spine", NULL);
    fx_link(&f, extra, 1, gen_switch(&f, 2, 0), 3);
    fx_lids(&f, 0);
    expect_unsuitable(&f, NULL, "leaf rank is 2");
    cs_fabric_free(&f);
}

/* ---- options ----------------------------------------------------------------------------- */

static uint32_t level_guids(const struct cs_fabric *f, unsigned level, uint64_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->num_nodes; i++)
        if (cs_node_is_switch(&f->nodes[i]) && ((f->nodes[i].guid >> 32) & 0xff) == level)
            out[n++] = f->nodes[i].guid;
    return n;
}

static void test_root_guids(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint64_t guids[64];
    struct cs_guid_list roots;
    struct cs_lfts a, b;

    /* The real roots of a pure tree: the same ranks as automatic ranking, hence the same tables
     * (validation is skipped, leaf rank taken from the first CN: same here). */
    generate(&f, "3;4,3,2;1,2,3", false, 0);
    guid_list_of(&roots, guids, level_guids(&f, 3, guids));
    struct cs_route_options opt = {.root_guids = &roots};
    rt_route("ftree", &f, NULL, &a);
    rt_route("ftree", &f, &opt, &b);
    rt_assert_same_tables(&a, &b);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_guid_list_free(&roots);

    /* No listed GUID is a switch: OpenSM ranks from the CAs (ERR AB25) but still treats the
     * roots as given. */
    uint64_t ca_only = CS_GUID_HOST_BASE;
    guid_list_of(&roots, &ca_only, 1);
    rt_route("ftree", &f, &opt, &b);
    rt_route("ftree", &f, NULL, &a);
    rt_assert_same_tables(&a, &b);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_guid_list_free(&roots);

    /* One middle switch as the root: its pod's leaves are at rank 1 (the leaf rank, from the
     * first CN, host 0), the other pod's leaves at rank 3 (OpenSM ERR AB26). */
    uint64_t middle = f.nodes[gen_switch(&f, 2, 0)].guid;
    guid_list_of(&roots, &middle, 1);
    expect_unsuitable(&f, &opt, "leaf rank is 1");
    cs_guid_list_free(&roots);
    cs_fabric_free(&f);

    /* A degraded tree: refused without roots, routed with them, every CA still reaches every
     * CA (not all by shortest paths: a cut cable can force a detour via another middle). */
    generate(&f, "3;4,4,4;1,4,4", false, 0);
    for (unsigned cut = 0; cut < 3; cut++) {
        uint32_t mid = gen_switch(&f, 2, 3 * cut + 1);
        uint32_t port = cs_fabric_port(&f, mid, 5 + cut);
        f.ports[f.ports[port].peer].peer = CS_NONE;
        f.ports[port].peer = CS_NONE;
    }
    expect_unsuitable(&f, NULL, "port groups");
    guid_list_of(&roots, guids, level_guids(&f, 3, guids));
    rt_route("ftree", &f, &opt, &a);
    struct cs_check_result r;
    rt_check(&f, &a, &r);
    assert_int_equal(r.delivered, 64 * 63);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
    cs_lfts_free(&a);
    cs_guid_list_free(&roots);
    cs_fabric_free(&f);
}

static void test_cn_guids(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "3;4,3,2;1,2,3", false, 0);
    uint64_t guids[64];
    uint32_t count = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++)
        if (f.nodes[n].type == CS_NODE_CA)
            guids[count++] = f.ports[cs_fabric_port(&f, n, 1)].guid;
    assert_int_equal(count, 24);
    struct cs_guid_list cns;
    struct cs_route_options opt = {.cn_guids = &cns};
    struct cs_lfts all, none;

    /* Every CA port listed: as without a list. */
    guid_list_of(&cns, guids, count);
    rt_route("ftree", &f, &opt, &all);
    rt_route("ftree", &f, NULL, &none);
    rt_assert_same_tables(&all, &none);
    cs_lfts_free(&all);
    cs_guid_list_free(&cns);

    /* Every other port of host 0..11 and all of 12..23: leaves with fewer CNs route dummies
     * (up to the fullest leaf), the rest are routed afterwards, counted. All still reachable,
     * and the CN routes differ from the unlisted case (the dummies and the order changed). */
    uint64_t some[24];
    uint32_t n_some = 0;
    for (uint32_t i = 0; i < count; i++)
        if (i >= 12 || i % 2 == 0)
            some[n_some++] = guids[i];
    guid_list_of(&cns, some, n_some);
    struct cs_ft ft;
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_build(&ft, &f, &opt, &err), 0);
    assert_int_equal(ft.cn_count, n_some);
    assert_int_equal(ft.max_cn_per_leaf, 4);
    cs_ft_free(&ft);
    struct cs_lfts t;
    rt_route("ftree", &f, &opt, &t);
    expect_valid(&f, &t);
    assert_memory_not_equal(t.ports, none.ports, (size_t)t.num_switches * t.capacity);
    cs_lfts_free(&t);
    cs_guid_list_free(&cns);
    cs_lfts_free(&none);

    /* An empty list (OpenSM ERR AB27), and one naming no port of the fabric. */
    guid_list_of(&cns, guids, 0);
    expect_unsuitable(&f, &opt, "no GUIDs");
    cs_guid_list_free(&cns);
    uint64_t stranger = 0x1234;
    guid_list_of(&cns, &stranger, 1);
    expect_unsuitable(&f, &opt, "no valid compute nodes");
    cs_guid_list_free(&cns);
    cs_fabric_free(&f);
}

/* Roots route no other root's LID unless asked; asked (-z), they route it the way they route to
 * the last leaf of the leaf array, when that leaf can reach it. */
static void test_connect_roots(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "2;4,4;1,4", false, 0);
    struct cs_ft ft;
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_build(&ft, &f, NULL, &err), 0);
    uint32_t last_leaf = ft.sw[ft.leaves[ft.num_leaves - 1]].node;
    cs_ft_free(&ft);
    uint16_t last_leaf_lid = f.ports[f.nodes[last_leaf].first_port].lid;

    uint64_t root_guid[8];
    uint32_t roots = level_guids(&f, 2, root_guid);
    assert_int_equal(roots, 4);
    struct cs_route_options z = {.connect_roots = true};
    struct cs_lfts plain, joined;
    rt_route("ftree", &f, NULL, &plain);
    rt_route("ftree", &f, &z, &joined);
    unsigned pairs = 0;
    for (uint32_t i = 0; i < roots; i++) {
        uint32_t ri = gen_switch(&f, 2, i);
        for (uint32_t j = 0; j < roots; j++) {
            if (i == j)
                continue;
            uint32_t rj = gen_switch(&f, 2, j);
            uint16_t lid = f.ports[f.nodes[rj].first_port].lid;
            assert_int_equal(rt_port(&plain, &f, ri, lid), CS_LFT_NO_ROUTE);
            assert_int_equal(rt_port(&joined, &f, ri, lid), rt_port(&plain, &f, ri, last_leaf_lid));
            assert_true(rt_walk(&f, &joined, ri, lid, NULL, NULL) == 2);
            pairs++;
        }
    }
    assert_int_equal(pairs, 12);
    cs_lfts_free(&plain);
    cs_lfts_free(&joined);
    cs_fabric_free(&f);
}

/* ---- machinery facts --------------------------------------------------------------------- */

/* sw_tbl order is the byte-swapped GUID order (OpenSM's cl_qmap keyed by the GUID in network
 * byte order): GUIDs 0x..0100 < 0x..0201 numerically, but byte-swapped 0x0002.. > 0x0001..
 * decide by the low byte first. The first leaf in that order starts the indexing. */
static void test_map_order_and_tuples(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    /* Two leaves and two spines of a 2-level tree, GUIDs chosen so that numeric and byte-swapped
     * orders differ: 0x0201 < 0x0300 numerically, but 0x0300 comes first byte-swapped. */
    uint32_t leaf_a = fx_switch(&f, 0x0201, 4, "leaf-a");
    uint32_t leaf_b = fx_switch(&f, 0x0300, 4, "leaf-b");
    uint32_t spine_a = fx_switch(&f, 0x1101, 4, "spine-a");
    uint32_t spine_b = fx_switch(&f, 0x1000, 4, "spine-b");
    uint32_t leaves[2] = {leaf_a, leaf_b}, spines[2] = {spine_a, spine_b};
    for (unsigned l = 0; l < 2; l++) {
        for (unsigned h = 0; h < 2; h++)
            fx_link(&f, fx_ca(&f, 0x10000 + 0x100 * (2 * l + h), "h"), 1, leaves[l], 1 + h);
        for (unsigned s = 0; s < 2; s++)
            fx_link(&f, leaves[l], 3 + s, spines[s], 1 + l);
    }
    fx_lids(&f, 0);
    struct cs_ft ft;
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_build(&ft, &f, NULL, &err), 0);
    assert_int_equal(ft.num_sw, 4);
    /* byte-swapped: 0x0300 -> 0x0003.., 0x1000 -> 0x0010.., 0x0201 -> 0x0102..,
     * 0x1101 -> 0x0111.. */
    assert_int_equal(ft.sw[0].node, leaf_b);
    assert_int_equal(ft.sw[1].node, spine_b);
    assert_int_equal(ft.sw[2].node, leaf_a);
    assert_int_equal(ft.sw[3].node, spine_a);
    assert_int_equal(ft.leaf_rank, 1);
    /* leaf-b, first in that order, starts the indexing: [1].0 */
    assert_int_equal(ft.sw[0].tuple >> 48, 0x0100);
    /* the spines get [0].x in leaf-b's up-port order (port 3 -> spine-a first) */
    assert_int_equal(ft.sw[3].tuple >> 48, 0x0000);
    assert_int_equal(ft.sw[1].tuple >> 48, 0x0001);
    /* leaf-a is reached down from spine-a: [1].1 ([1].0 is taken); leaves in tuple order */
    assert_int_equal(ft.sw[2].tuple >> 48, 0x0101);
    assert_int_equal(ft.num_leaves, 2);
    assert_int_equal(ft.leaves[0], 0);
    assert_int_equal(ft.leaves[1], 2);
    assert_int_equal(ft.max_cn_per_leaf, 2);
    cs_ft_free(&ft);
    cs_fabric_free(&f);
}

/* Switch LIDs travel secondary paths only: no load_down moves. OpenSM's downward pass still
 * counts load_up when it reaches a leaf with CAs, whatever the target (kept on purpose). */
static void test_switch_lids_and_counters(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "3;4,3,2;1,2,3", false, 0);
    struct cs_ft ft;
    struct cs_lfts t;
    struct cs_error err = {{0}};
    assert_int_equal(cs_ft_build(&ft, &f, NULL, &err), 0);
    fx_lfts(&t, &f);
    assert_int_equal(cs_ft_bind(&ft, &t, NULL, &err), 0);
    struct cs_ft_targets cns = {0}, rest = {0};
    assert_int_equal(cs_ft_targets_cns(&ft, &cns, &err), 0);
    assert_int_equal(cs_ft_targets_rest(&ft, &rest, &err), 0);
    uint32_t non_cn_end = 0; /* the rest: non-CN CA ports first, then switches */
    while (non_cn_end < rest.count && rest.items[non_cn_end].kind == CS_FT_TARGET_CA)
        non_cn_end++;
    struct cs_ft_targets non_cns = {rest.items, non_cn_end, non_cn_end};
    struct cs_ft_targets switches = {rest.items + non_cn_end, rest.count - non_cn_end, 0};
    cs_ft_route_targets(&ft, &cns);
    cs_ft_route_targets(&ft, &non_cns);
    uint64_t *down = malloc(ft.num_groups * sizeof *down), *up = malloc(ft.num_groups * sizeof *up);
    assert_non_null(down);
    assert_non_null(up);
    uint64_t total_down = 0;
    for (uint32_t g = 0; g < ft.num_groups; g++) {
        down[g] = ft.groups[g].load_down;
        up[g] = ft.groups[g].load_up;
        total_down += down[g];
    }
    /* Each CN's main path counts one route per switch level it climbs: 24 CNs, the leaf and the
     * middle switch climb (roots do not). */
    assert_int_equal(total_down, 24 * 2);
    assert_int_equal(switches.count, ft.num_sw);
    cs_ft_route_targets(&ft, &switches);
    bool up_moved = false;
    for (uint32_t g = 0; g < ft.num_groups; g++) {
        assert_int_equal(ft.groups[g].load_down, down[g]);
        up_moved |= ft.groups[g].load_up != up[g];
    }
    assert_true(up_moved);
    cs_ft_targets_free(&cns);
    cs_ft_targets_free(&rest);
    free(down);
    free(up);
    cs_ft_free(&ft);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opensm_dump_plain),
        cmocka_unit_test(test_opensm_dump_options),
        cmocka_unit_test(test_fig2_worked_example),
        cmocka_unit_test(test_all_pairs_on_trees),
        cmocka_unit_test(test_kary_balance),
        cmocka_unit_test(test_shift_permutations),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_fallback_ring),
        cmocka_unit_test(test_fallback_reasons),
        cmocka_unit_test(test_root_guids),
        cmocka_unit_test(test_cn_guids),
        cmocka_unit_test(test_connect_roots),
        cmocka_unit_test(test_map_order_and_tuples),
        cmocka_unit_test(test_switch_lids_and_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
