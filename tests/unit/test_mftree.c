/* mftree (src/route/mftree.c, metabase.c, metabase_db.c; docs/routing/mftree.md): phase I's
 * paths are different spanning trees, balanced over the leaves, disjoint when asked; the tables
 * deliver every pair on full, oversubscribed, PGFT and damaged trees; phase II follows the node
 * order, the weights and OpenSM's port order; the metabase is kept in the route state and in an
 * SQLite file, rebuilt when the fabric changes, and a file that is not a metabase is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "analyze_fixtures.h"
#include "route_fixtures.h"

#include "cloudsm/analyze.h"
#include "cloudsm/mutate.h"
#include "cloudsm/spanning.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/weights.h"
#include "route/metabase.h"
#include "route/route_state.h"

/* The top-level switches of a generated tree (topo_gen.h's GUID rule): a damaged tree needs them,
 * as OpenSM's ftree does, since its validation refuses a tree with a cable missing. */
static void top_switches(const struct cs_fabric *f, unsigned levels, struct cs_guid_list *roots)
{
    roots->guids = calloc(f->num_nodes, sizeof *roots->guids);
    assert_non_null(roots->guids);
    roots->count = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (cs_node_is_switch(&f->nodes[n]) &&
            (f->nodes[n].guid - CS_GUID_SWITCH_BASE) >> 32 == levels)
            roots->guids[roots->count++] = f->nodes[n].guid;
}

static void route_opt(const struct cs_fabric *f, const struct cs_route_options *opt,
                      const struct cs_route_inputs *in, struct cs_lfts *t,
                      struct cs_route_result *res)
{
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    struct cs_route_result unused;
    if (cs_route_with("mftree", f, opt, in, t, &stats, res ? res : &unused, &err) != 0)
        fail_msg("mftree: %s", err.msg);
    assert_false(stats.fell_back);
    if (!res)
        cs_route_result_free(&unused);
}

static void route_mf(const struct cs_fabric *f, const struct cs_route_inputs *in, struct cs_lfts *t,
                     struct cs_route_result *res)
{
    route_opt(f, NULL, in, t, res);
}

static void build_opt(const struct cs_fabric *f, const struct cs_route_options *opt, uint32_t paths,
                      struct cs_metabase *mb)
{
    struct cs_error err = {{0}};
    if (cs_metabase_build(f, opt, paths, 1, mb, &err) != 0)
        fail_msg("phase I: %s", err.msg);
}

static void build(const struct cs_fabric *f, uint32_t paths, struct cs_metabase *mb)
{
    struct cs_error err = {{0}};
    if (cs_metabase_build(f, NULL, paths, 1, mb, &err) != 0)
        fail_msg("phase I: %s", err.msg);
}

static const char *const trees[] = {
    "2;4,4;1,4",           /* 4-ary-2-tree */
    "3;4,4,4;1,4,4",       /* 4-ary-3-tree */
    "3;4,4,3;1,2,3",       /* the paper's XGFT */
    "2;12,4;1,4",          /* 3:1 oversubscribed 4-ary-2 */
    "3;8,4,4;1,4,4",       /* 2:1 oversubscribed 4-ary-3 */
    "3;4,4,4;1,2,2;1,2,1", /* PGFT with parallel cables */
    "2;6,6;1,3;1,2",       /* PGFT, one switch level, two cables per pair */
};

/* Every pair delivered on shortest paths, without loops or credit loops: on every tree, with
 * every different tree per leaf, the disjoint ones, and one path per leaf. A column copied to
 * the wrong switch or LID, or a leaf entry left to the path's, fails the walk. (Switch LIDs are
 * routed as ftree routes them: between two roots only with -z, so CA LIDs here.) */
static void test_tables_deliver(void **state)
{
    (void)state;
    static const uint32_t paths[] = {0, CS_METABASE_PATHS_DISJOINT, 1};
    for (size_t i = 0; i < sizeof trees / sizeof *trees; i++) {
        for (size_t j = 0; j < sizeof paths / sizeof *paths; j++) {
            struct cs_fabric f;
            struct cs_lfts t;
            rt_generate_cut(&f, trees[i], 0);
            struct cs_route_inputs in = {.metabase_paths = paths[j]};
            route_mf(&f, &in, &t, NULL);
            struct cs_check_result r;
            rt_check(&f, &t, &r);
            if (!r.ok)
                fail_msg("%s, paths %u: %llu of %llu pairs undelivered", trees[i], paths[j],
                         (unsigned long long)r.unreachable, (unsigned long long)r.pairs);
            rt_assert_shortest(&f, &t, true);
            cs_check_result_free(&r);
            cs_lfts_free(&t);
            cs_fabric_free(&f);
        }
    }
}

/* The K paths of a leaf are K different spanning trees: their columns differ pairwise (two equal
 * columns would be the same tree). Without the policy, ftree's least-loaded climb gives the second
 * round of a leaf's paths the chains of the first on the 4-ary-3-tree. */
static void test_paths_are_different_trees(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof trees / sizeof *trees; i++) {
        struct cs_fabric f;
        struct cs_metabase mb;
        rt_generate_cut(&f, trees[i], 0);
        struct cs_pgft_spec s;
        struct cs_spanning sp;
        struct cs_error err = {{0}};
        bool parallel = strchr(strchr(strchr(trees[i], ';') + 1, ';') + 1, ';') != NULL;
        assert_int_equal(cs_pgft_parse(&s, trees[i], parallel, &err), 0);
        assert_int_equal(cs_spanning_pgft(&s, &sp, &err), 0);
        /* The default: every different tree a leaf can use (no more than its nodes). */
        build(&f, 0, &mb);
        uint64_t nodes = s.m[0]; /* hosts per leaf */
        assert_int_equal(mb.paths, sp.different < nodes ? sp.different : nodes);
        cs_metabase_free(&mb);
        build(&f, (uint32_t)sp.different, &mb); /* every different tree, asked for */
        assert_int_equal(mb.paths, sp.different);
        uint32_t width = cs_metabase_columns(&mb);
        for (uint32_t l = 0; l < mb.num_leaves; l++) {
            assert_int_equal(mb.leaf_paths[l], mb.paths);
            for (uint32_t a = 0; a < mb.paths; a++)
                for (uint32_t b = a + 1; b < mb.paths; b++) {
                    bool differ = false;
                    for (uint32_t s2 = 0; s2 < mb.num_switches && !differ; s2++) {
                        const uint8_t *row = mb.rows + (size_t)s2 * width;
                        differ = row[l * mb.paths + a] != row[l * mb.paths + b];
                    }
                    if (!differ)
                        fail_msg("%s: leaf %u, paths %u and %u are one tree", trees[i], l, a, b);
                }
        }
        cs_metabase_free(&mb);
        cs_fabric_free(&f);
    }
}

/* Count the chains crossing each up port (fabric port index). */
static void chain_use(const struct cs_fabric *f, const struct cs_metabase *mb, uint32_t first_path,
                      uint32_t paths, uint32_t *use)
{
    memset(use, 0, f->num_port_slots * sizeof *use);
    for (uint32_t l = 0; l < mb->num_leaves; l++)
        for (uint32_t k = first_path; k < first_path + paths && k < mb->leaf_paths[l]; k++)
            for (uint32_t h = 0; h < mb->depth; h++) {
                uint32_t p = mb->chains[((size_t)l * mb->paths + k) * mb->depth + h];
                if (p != CS_NONE)
                    use[p]++;
            }
}

/* Balanced over all leaves: on k-ary-n-trees, with all paths, every up cable of a level carries
 * as many of the leaves' chains as any other; with the first j paths of every leaf (what phase II
 * uses on a leaf with j nodes), the up cables of each switch differ by at most one chain. Routing
 * leaf by leaf instead of path by path fails the second: on the 4-ary-3-tree every leaf's first
 * path would climb to the same top switch. */
static void test_paths_balanced(void **state)
{
    (void)state;
    static const char *const specs[] = {"2;4,4;1,4", "3;4,4,4;1,4,4", "3;2,2,2;1,2,2"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_fabric f;
        struct cs_metabase mb;
        rt_generate_cut(&f, specs[i], 0);
        build(&f, 0, &mb);
        uint32_t *use = calloc(f.num_port_slots, sizeof *use);
        assert_non_null(use);
        for (uint32_t prefix = 1; prefix <= mb.paths; prefix++) {
            chain_use(&f, &mb, 0, prefix, use);
            uint32_t lo[8], hi[8];
            for (int l = 0; l < 8; l++)
                lo[l] = UINT32_MAX, hi[l] = 0;
            for (uint32_t n = 0; n < f.num_nodes; n++) {
                const struct cs_node *node = &f.nodes[n];
                if (!cs_node_is_switch(node))
                    continue;
                unsigned level = (unsigned)((node->guid - CS_GUID_SWITCH_BASE) >> 32);
                uint32_t least = UINT32_MAX, most = 0;
                for (unsigned p = 1; p <= node->num_ports; p++) {
                    const struct cs_port *port = &f.ports[node->first_port + p];
                    if (port->peer == CS_NONE)
                        continue;
                    const struct cs_node *m = &f.nodes[f.ports[port->peer].node];
                    if (!cs_node_is_switch(m) || m->guid < node->guid) /* up: a higher level */
                        continue;
                    uint32_t u = use[node->first_port + p];
                    least = u < least ? u : least;
                    most = u > most ? u : most;
                    lo[level] = u < lo[level] ? u : lo[level];
                    hi[level] = u > hi[level] ? u : hi[level];
                }
                if (most > least + 1)
                    fail_msg("%s, first %u paths: switch 0x%llx's up cables carry %u to %u "
                             "chains",
                             specs[i], prefix, (unsigned long long)node->guid, least, most);
            }
            for (int l = 0; prefix == mb.paths && l < 8; l++)
                if (hi[l] && lo[l] != hi[l])
                    fail_msg("%s: level %d up cables carry %u to %u chains", specs[i], l, lo[l],
                             hi[l]);
        }
        free(use);
        cs_metabase_free(&mb);
        cs_fabric_free(&f);
    }
}

/* --paths disjoint: the paper's XGFT has 2 per leaf, k-ary-n-trees k; the chains of a leaf share
 * no cable. */
static void test_disjoint_paths(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        uint32_t paths;
    } cases[] = {{"3;4,4,3;1,2,3", 2}, {"3;4,4,4;1,4,4", 4}, {"2;8,8;1,8", 8}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cs_fabric f;
        struct cs_metabase mb;
        rt_generate_cut(&f, cases[i].spec, 0);
        build(&f, CS_METABASE_PATHS_DISJOINT, &mb);
        assert_int_equal(mb.paths, cases[i].paths);
        uint32_t *use = calloc(f.num_port_slots, sizeof *use);
        assert_non_null(use);
        for (uint32_t l = 0; l < mb.num_leaves; l++) {
            memset(use, 0, f.num_port_slots * sizeof *use);
            for (uint32_t k = 0; k < mb.paths; k++)
                for (uint32_t h = 0; h < mb.depth; h++) {
                    uint32_t p = mb.chains[((size_t)l * mb.paths + k) * mb.depth + h];
                    if (p != CS_NONE && use[p]++)
                        fail_msg("%s: leaf %u's disjoint paths share a cable", cases[i].spec, l);
                }
        }
        free(use);
        cs_metabase_free(&mb);
        cs_fabric_free(&f);
    }
}

/* On two-level trees phase I routes the paths exactly as ftree routes the nodes (the k-th node of
 * every leaf climbs to the k-th least loaded root either way), and the switch LIDs come after the
 * same loads: with K = the roots, every entry equals ftree's, oversubscribed trees included (node
 * k of a leaf takes path k mod K, as ftree's counters send it through root k mod K). */
static void test_equals_ftree_on_two_level_trees(void **state)
{
    (void)state;
    static const char *const specs[] = {"2;4,4;1,4", "2;8,8;1,8", "2;8,4;1,4", "2;12,4;1,4"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_fabric f;
        rt_generate_cut(&f, specs[i], 0);
        struct cs_lfts ft, mf;
        rt_route("ftree", &f, NULL, &ft);
        struct cs_route_inputs in = {0};
        route_mf(&f, &in, &mf, NULL);
        rt_assert_same_tables(&ft, &mf);
        cs_lfts_free(&ft);
        cs_lfts_free(&mf);
        cs_fabric_free(&f);
    }
}

/* The node port of generated host i (topo_gen.h's GUID rule). */
static uint32_t host_port(const struct cs_fabric *f, unsigned i)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == CS_GUID_HOST_BASE + ((uint64_t)i << 8))
            return cs_fabric_port(f, n, 1);
    fail_msg("no host %u", i);
    return CS_NONE;
}

/* The top switch a LID's route from switch node s climbs to (the switch whose entry turns down:
 * in a 2-level tree, the root it goes through). */
static uint32_t root_of(const struct cs_fabric *f, const struct cs_lfts *t, uint32_t from_host,
                        uint32_t lid)
{
    uint32_t leaf = f->ports[f->ports[from_host].peer].node;
    uint32_t out = cs_fabric_port(f, leaf, rt_port(t, f, leaf, lid));
    return f->ports[f->ports[out].peer].node;
}

/* Phase II on a 4-ary-2-tree (K = 4 roots): no order = round robin in port order (host j of a
 * leaf through root j); an order that reverses every leaf gives its k-th node path k (Algorithm
 * 5): the last host of each leaf goes through the first root; the order equal to port order is
 * no order at all. */
static void test_node_order(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate_cut(&f, "2;4,4;1,4", 0);
    struct cs_lfts plain, reversed, same;
    struct cs_route_state *rs = cs_route_state_new();
    struct cs_route_inputs in = {.state = rs};
    route_mf(&f, &in, &plain, NULL);
    struct cs_guid_list order = {0}, port_order = {0};
    order.guids = calloc(16, sizeof *order.guids);
    port_order.guids = calloc(16, sizeof *port_order.guids);
    for (unsigned leaf = 0; leaf < 4; leaf++)
        for (unsigned j = 0; j < 4; j++) {
            order.guids[order.count++] = f.ports[host_port(&f, leaf * 4 + 3 - j)].guid;
            port_order.guids[port_order.count++] = f.ports[host_port(&f, leaf * 4 + j)].guid;
        }
    in.node_order = &order;
    struct cs_route_result res;
    route_mf(&f, &in, &reversed, &res);
    assert_true(res.build_kept); /* phase II only */
    in.node_order = &port_order;
    route_mf(&f, &in, &same, NULL);
    rt_assert_same_tables(&plain, &same);
    uint32_t src = host_port(&f, 15); /* on the last leaf */
    for (unsigned j = 0; j < 4; j++) {
        uint16_t lid = f.ports[host_port(&f, j)].lid;
        uint16_t mirror = f.ports[host_port(&f, 3 - j)].lid;
        assert_int_equal(root_of(&f, &reversed, src, lid), root_of(&f, &plain, src, mirror));
        for (unsigned k = 0; k < j; k++) /* four hosts, four roots */
            assert_int_not_equal(root_of(&f, &plain, src, lid),
                                 root_of(&f, &plain, src, f.ports[host_port(&f, k)].lid));
    }
    struct cs_check_result r;
    rt_check(&f, &reversed, &r);
    assert_true(r.ok);
    cs_check_result_free(&r);
    cs_route_result_free(&res);
    free(order.guids);
    free(port_order.guids);
    cs_lfts_free(&plain);
    cs_lfts_free(&reversed);
    cs_lfts_free(&same);
    cs_route_state_free(rs);
    cs_fabric_free(&f);
}

/* Weights on a 3:1 oversubscribed 4-ary-2-tree (12 nodes, 4 paths per leaf): the heaviest node of
 * the first leaf gets a path of its own (no other node of its leaf goes through its root), where
 * round robin puts three nodes on every path. */
static void test_weights(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate_cut(&f, "2;12,4;1,4", 0);
    struct cs_node_weights w = {0};
    w.entries = calloc(1, sizeof *w.entries);
    w.entries[0].guid = f.ports[host_port(&f, 5)].guid;
    w.entries[0].weight = 100;
    w.count = 1;
    struct cs_lfts t;
    struct cs_route_inputs in = {.weights = &w};
    route_mf(&f, &in, &t, NULL);
    uint32_t src = host_port(&f, 40); /* another leaf */
    uint32_t heavy_root = root_of(&f, &t, src, f.ports[host_port(&f, 5)].lid);
    unsigned sharing = 0;
    for (unsigned j = 0; j < 12; j++)
        sharing += j != 5 && root_of(&f, &t, src, f.ports[host_port(&f, j)].lid) == heavy_root;
    assert_int_equal(sharing, 0);
    free(w.entries);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* A cut cable: a damaged leaf gets fewer paths, the tables still deliver every pair between
 * nodes (so nothing uses the dead cable), and exactly the switches that have an entry for a node
 * under ftree have one under mftree (some switches have none in either: the cut leaves them no
 * downward path, and ftree, hence mftree, routes switches down only from above). */
static void test_degraded_tree(void **state)
{
    (void)state;
    static const char *const specs[] = {"2;4,4;1,4", "3;4,4,4;1,4,4", "3;8,4,4;1,4,4"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct cs_fabric f;
        rt_generate_cut(&f, specs[i], 1);
        struct cs_guid_list roots;
        top_switches(&f, specs[i][0] - '0', &roots);
        struct cs_route_options opt = {.root_guids = &roots};
        struct cs_metabase mb;
        build_opt(&f, &opt, 65535, &mb); /* as many as any leaf has */
        uint32_t fewer = 0;
        for (uint32_t l = 0; l < mb.num_leaves; l++)
            fewer += mb.leaf_paths[l] < mb.paths;
        assert_true(fewer >= 1);
        cs_metabase_free(&mb);
        struct cs_lfts t;
        struct cs_route_inputs in = {0};
        route_opt(&f, &opt, &in, &t, NULL);
        struct cs_check_result r;
        rt_check(&f, &t, &r);
        assert_true(r.ok);
        cs_check_result_free(&r);
        struct cs_lfts ft;
        struct cs_route_stats st;
        struct cs_error err = {{0}};
        assert_int_equal(cs_route("ftree", &f, &opt, &ft, &st, &err), 0);
        assert_false(st.fell_back);
        for (uint32_t p = 0; p < f.num_port_slots; p++) {
            if (!f.ports[p].lid || cs_node_is_switch(&f.nodes[f.ports[p].node]))
                continue;
            for (uint32_t sw = 0; sw < t.num_switches; sw++)
                assert_int_equal(cs_lfts_get(&t, sw, f.ports[p].lid) == CS_LFT_NO_ROUTE,
                                 cs_lfts_get(&ft, sw, f.ports[p].lid) == CS_LFT_NO_ROUTE);
        }
        cs_lfts_free(&ft);
        cs_lfts_free(&t);
        free(roots.guids);
        cs_fabric_free(&f);
    }
}

/* The state keeps the metabase: a second routing of the same fabric skips phase I and gives the
 * same tables; another fabric (another fingerprint) runs phase I again. */
static void test_state_reuse(void **state)
{
    (void)state;
    struct cs_fabric f, g;
    rt_generate_cut(&f, "3;4,4,4;1,4,4", 0);
    rt_generate_cut(&g, "3;4,4,4;1,4,2", 0);
    struct cs_route_state *rs = cs_route_state_new();
    struct cs_route_inputs in = {.state = rs};
    struct cs_lfts a, b, c;
    struct cs_route_result ra, rb, rc;
    route_mf(&f, &in, &a, &ra);
    route_mf(&f, &in, &b, &rb);
    route_mf(&g, &in, &c, &rc);
    assert_false(ra.build_kept);
    assert_true(rb.build_kept);
    assert_false(rc.build_kept);
    rt_assert_same_tables(&a, &b);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_lfts_free(&c);
    cs_route_state_free(rs);
    cs_fabric_free(&f);
    cs_fabric_free(&g);
}

struct captured {
    char last[CS_ERROR_MAX];
    unsigned warnings;
};

static void capture(void *arg, enum cs_log_level level, const char *msg)
{
    struct captured *c = arg;
    if (level <= CS_LOG_WARN) {
        c->warnings++;
        snprintf(c->last, sizeof c->last, "%s", msg);
    }
}

static void sql(const char *path, const char *statement)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, statement, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* The file: written by phase I, loaded by the next routing of the same fabric (same tables, phase
 * I skipped), replaced for another fabric; a metabase whose rows do not add up is reported by
 * path and rebuilt; a file that is not a metabase is refused by path and left as it was. */
static void test_metabase_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_mftree.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    struct cs_fabric f, g;
    rt_generate_cut(&f, "3;4,4,4;1,4,4", 0);
    rt_generate_cut(&g, "3;4,4,4;1,4,2", 0);
    struct captured log = {{0}, 0};
    struct cs_route_inputs in = {.metabase_file = path, .log = &(struct cs_log){capture, &log}};
    struct cs_lfts a, b, c, d;
    struct cs_route_result ra, rb, rc, rd;
    route_mf(&f, &in, &a, &ra);
    assert_false(ra.build_kept);
    assert_int_equal(access(path, R_OK), 0);
    route_mf(&f, &in, &b, &rb);
    assert_true(rb.build_kept);
    rt_assert_same_tables(&a, &b);
    route_mf(&g, &in, &c, &rc); /* another fabric: rebuilt and replaced */
    assert_false(rc.build_kept);
    route_mf(&g, &in, &d, &rd);
    assert_true(rd.build_kept);
    rt_assert_same_tables(&c, &d);
    cs_lfts_free(&c);
    cs_lfts_free(&d);
    assert_int_equal(log.warnings, 1); /* "another fabric's" */

    /* Ours, but inconsistent: a count that does not match the rows. */
    sql(path, "UPDATE meta SET leaves = leaves - 1");
    route_mf(&g, &in, &c, &rc);
    assert_false(rc.build_kept);
    assert_int_equal(log.warnings, 2);
    assert_non_null(strstr(log.last, path));
    route_mf(&g, &in, &d, &rd); /* replaced by a good one */
    assert_true(rd.build_kept);
    cs_lfts_free(&c);
    cs_lfts_free(&d);

    /* Not a metabase: refused, untouched. */
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs("this is a topology file, not a metabase\n", out);
    fclose(out);
    struct cs_route_stats stats;
    struct cs_error err = {{0}};
    assert_int_equal(cs_route_with("mftree", &f, NULL, &in, &c, &stats, NULL, &err), -1);
    assert_non_null(strstr(err.msg, path));
    out = fopen(path, "r");
    char line[64] = {0};
    assert_non_null(fgets(line, sizeof line, out));
    fclose(out);
    assert_string_equal(line, "this is a topology file, not a metabase\n");
    /* An SQLite database of someone else's. */
    unlink(path);
    sql(path, "CREATE TABLE t(x); INSERT INTO t VALUES(1)");
    assert_int_equal(cs_route_with("mftree", &f, NULL, &in, &c, &stats, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "not a metabase"));
    unlink(path);

    cs_lfts_free(&a);
    cs_lfts_free(&b);
    cs_fabric_free(&f);
    cs_fabric_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_deliver),
        cmocka_unit_test(test_paths_are_different_trees),
        cmocka_unit_test(test_paths_balanced),
        cmocka_unit_test(test_disjoint_paths),
        cmocka_unit_test(test_equals_ftree_on_two_level_trees),
        cmocka_unit_test(test_node_order),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_degraded_tree),
        cmocka_unit_test(test_state_reuse),
        cmocka_unit_test(test_metabase_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
