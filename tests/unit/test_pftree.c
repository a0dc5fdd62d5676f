/* pftree: the worked examples of pFTree (FGCS 2017) (docs/references.md): Fig. 4 (Alg. 2's
 * order and the marks, L375-L404), Fig. 5 -> Fig. 6 (a phy partition, L417-L433, L716-L719),
 * Fig. 12 (pFTree-Wt, L1159-L1176); strict and best-effort (Table 1, L491-L514); VLs
 * (Alg. 5, L646-L692); ftree without partitions; delivery on generated trees. */
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

#include "cloudsm/partitions.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/weights.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static void generate(struct cs_fabric *f, const char *xgft)
{
    fx_generate(f, xgft);
    fx_lids(f, 0);
}

static uint32_t gen_node(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == guid)
            return n;
    fail_msg("no node 0x%016llx", (unsigned long long)guid);
    return CS_NONE;
}

static bool gen_node_exists(const struct cs_fabric *f, unsigned i)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == CS_GUID_HOST_BASE + ((uint64_t)i << 8))
            return true;
    return false;
}

static uint32_t host(const struct cs_fabric *f, unsigned i)
{
    return gen_node(f, CS_GUID_HOST_BASE + ((uint64_t)i << 8));
}

static uint64_t host_port_guid(unsigned i)
{
    return CS_GUID_HOST_BASE + ((uint64_t)i << 8) + 1;
}

static uint32_t gen_switch(const struct cs_fabric *f, unsigned level, unsigned j)
{
    return gen_node(f, CS_GUID_SWITCH_BASE + ((uint64_t)level << 32) + j);
}

/* A partitions.conf: one line per partition, "name=pkey,flags : hosts" with hosts a string of
 * host indices as letters ('a' = host 0), every member full. */
struct part {
    const char *name;
    const char *flags; /* "" or ",isolation=phy" ... */
    const char *hosts;
};

static void make_conf(struct cs_partitions *p, const char *global, const struct part *parts,
                      unsigned count)
{
    char text[4096];
    size_t len = 0;
    for (unsigned i = 0; i < count; i++) {
        len += (size_t)snprintf(text + len, sizeof text - len, "%s=0x%04x%s%s :", parts[i].name,
                                i + 1, parts[i].flags, i == 0 ? global : "");
        for (const char *h = parts[i].hosts; *h; h++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s 0x%016llx=full",
                                    h == parts[i].hosts ? "" : ",",
                                    (unsigned long long)host_port_guid((unsigned)(*h - 'a')));
        len += (size_t)snprintf(text + len, sizeof text - len, " ;\n");
    }
    struct cs_error err = {{0}};
    if (cs_partitions_parse(p, text, len, "test.conf", &err) != 0)
        fail_msg("%s\n%s", err.msg, text);
}

struct captured {
    unsigned warnings;
    char last[512];
};

static void capture(void *arg, enum cs_log_level level, const char *msg)
{
    struct captured *c = arg;
    if (level == CS_LOG_WARN) {
        c->warnings++;
        snprintf(c->last, sizeof c->last, "%s", msg);
    }
}

/* Route with pftree; returns cs_route_with's verdict. */
static int route_pf(const struct cs_fabric *f, const struct cs_partitions *p,
                    const struct cs_node_weights *w, struct captured *log_to, struct cs_lfts *t,
                    struct cs_route_result *res, struct cs_error *err)
{
    struct cs_log log = {capture, log_to};
    struct cs_route_inputs in = {.partitions = p, .weights = w, .log = &log};
    struct cs_route_stats st;
    struct cs_route_options opt = {.no_fallback = true};
    return cs_route_with("pftree", f, &opt, &in, t, &st, res, err);
}

/* The root a route from leaf `from` to host x climbs to (the root whose down link to x's leaf
 * carries x's traffic in a two-level tree). */
static uint32_t root_of(const struct cs_fabric *f, const struct cs_lfts *t, uint32_t from,
                        unsigned x)
{
    uint8_t port = rt_port(t, f, from, fx_lid(f, host(f, x), 1));
    assert_true(port != 0 && port != CS_LFT_NO_ROUTE);
    return f->ports[f->ports[cs_fabric_port(f, from, port)].peer].node;
}

static void expect_delivers(const struct cs_fabric *f, const struct cs_lfts *t)
{
    struct cs_check_result r;
    rt_check(f, t, &r);
    assert_true(r.pairs > 0);
    assert_int_equal(r.delivered, r.pairs);
    assert_false(r.credit_loop);
    cs_check_result_free(&r);
}

/* Independent of the engine: which partitions' flows (member to member, every member full)
 * cross the same switch-to-switch link, from rt_walk over the tables. shares[i][j] for
 * partitions i, j of parts. */
struct hops {
    const struct cs_fabric *f;
    uint8_t *used; /* [from * num_nodes + to] */
};

static void note_hop(void *ctx, uint32_t from, uint32_t to)
{
    struct hops *h = ctx;
    h->used[(size_t)from * h->f->num_nodes + to] = 1;
}

/* Mark in used[] every switch-to-switch hop of the flows among hosts[0..n) (each to each). */
static void mark_flows(const struct cs_fabric *f, const struct cs_lfts *t, const unsigned *hosts,
                       unsigned n, uint8_t *used)
{
    struct hops h = {f, used};
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            if (i == j)
                continue;
            uint32_t a = host(f, hosts[i]);
            uint32_t leaf = f->ports[f->ports[cs_fabric_port(f, a, 1)].peer].node;
            uint32_t lid = fx_lid(f, host(f, hosts[j]), 1);
            assert_true(rt_walk(f, t, leaf, lid, note_hop, &h) >= 0);
        }
}

static bool any_common(const uint8_t *a, const uint8_t *b, size_t cells)
{
    for (size_t c = 0; c < cells; c++)
        if (a[c] && b[c])
            return true;
    return false;
}

static void link_sharing(const struct cs_fabric *f, const struct cs_lfts *t,
                         const struct part *parts, unsigned count, bool shares[8][8])
{
    size_t cells = (size_t)f->num_nodes * f->num_nodes;
    uint8_t *used[8];
    for (unsigned k = 0; k < count; k++) {
        used[k] = calloc(cells, 1);
        assert_non_null(used[k]);
        unsigned hosts[64], n = 0;
        for (const char *c = parts[k].hosts; *c && n < 64; c++)
            hosts[n++] = (unsigned)(*c - 'a');
        mark_flows(f, t, hosts, n, used[k]);
    }
    for (unsigned i = 0; i < count; i++)
        for (unsigned j = 0; j < count; j++)
            shares[i][j] = i != j && any_common(used[i], used[j], cells);
    for (unsigned k = 0; k < count; k++)
        free(used[k]);
}

/* ---- Fig. 4 ------------------------------------------------------------------------------- */

/* L375-L404: leaves L1 (a, b, c, d) and L2 (e, f, g, h), roots R1 and R2; green {a, d, g, h},
 * pink {b, c, e, f}. Alg. 2 orders L1 a, b, d, c; a and d climb to one root (R1, the one a
 * takes), b and c to the other; L2's nodes follow the marks: two disjoint sub-networks, no
 * shared link, no VL needed. */
static void test_fig4(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "2;4,2;1,2");
    struct cs_partitions p;
    static const struct part parts[] = {{"green", "", "adgh"}, {"pink", "", "bcef"}};
    make_conf(&p, "", parts, 2);
    struct cs_lfts t;
    struct cs_route_result res;
    struct cs_error err = {{0}};
    struct captured log = {0};
    if (route_pf(&f, &p, NULL, &log, &t, &res, &err) != 0)
        fail_msg("%s", err.msg);
    uint32_t l1 = gen_switch(&f, 1, 0), l2 = gen_switch(&f, 1, 1);
    uint32_t r1 = root_of(&f, &t, l2, 0), r2 = root_of(&f, &t, l2, 1);
    assert_int_not_equal(r1, r2);
    assert_int_equal(root_of(&f, &t, l2, 3), r1); /* d with a */
    assert_int_equal(root_of(&f, &t, l2, 2), r2); /* c with b */
    assert_int_equal(root_of(&f, &t, l1, 6), r1); /* g, h: green */
    assert_int_equal(root_of(&f, &t, l1, 7), r1);
    assert_int_equal(root_of(&f, &t, l1, 4), r2); /* e, f: pink */
    assert_int_equal(root_of(&f, &t, l1, 5), r2);
    /* ftree (port order a, b, c, d) puts a and c on one root: the order is what differs. */
    struct cs_lfts ft;
    rt_route("ftree", &f, NULL, &ft);
    assert_int_equal(root_of(&f, &ft, l2, 2), root_of(&f, &ft, l2, 0));
    cs_lfts_free(&ft);
    assert_int_equal(res.num_partitions, 3);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(res.partition_sl[i], 0); /* nothing shared */
    assert_int_equal(res.violations, 0);
    assert_int_equal(log.warnings, 0);
    expect_delivers(&f, &t);
    cs_route_result_free(&res);
    cs_lfts_free(&t);
    cs_partitions_free(&p);
    cs_fabric_free(&f);
}

/* ---- Fig. 5 -> Fig. 6 --------------------------------------------------------------------- */

/* L417-L433, L716-L719: nine nodes A..I on three leaves, two roots; P1 = {A, E}, P2 = {B, F,
 * G, I}, P3 = {C, D, H} (the figure's B, F, I in P2 and C in P3; D, G, H placed to fill). With
 * every partition def (pFTree), P1 shares a link; with P1 phy (pFTree-Ext) neither A nor E
 * shares any link and P2, P3 share R2's down links (on different VLs). */
static const struct part fig5[] = {{"P1", "", "ae"}, {"P2", "", "bfgi"}, {"P3", "", "cdh"}};

static void route_fig5(const char *p1_flags, const char *p2_flags, const char *p3_flags,
                       const char *global, struct cs_lfts *t, struct cs_route_result *res,
                       struct captured *log, int *rc, struct cs_error *err, bool shares[8][8])
{
    struct cs_fabric f;
    generate(&f, "2;3,3;1,2");
    struct part parts[3] = {fig5[0], fig5[1], fig5[2]};
    parts[0].flags = p1_flags;
    parts[1].flags = p2_flags;
    parts[2].flags = p3_flags;
    struct cs_partitions p;
    make_conf(&p, global, parts, 3);
    *rc = route_pf(&f, &p, NULL, log, t, res, err);
    if (*rc == 0) {
        expect_delivers(&f, t);
        link_sharing(&f, t, parts, 3, shares);
        cs_lfts_free(t);
    }
    cs_partitions_free(&p);
    cs_fabric_free(&f);
}

static void test_fig5_pftree_shares(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_route_result res;
    struct captured log = {0};
    struct cs_error err = {{0}};
    int rc;
    bool shares[8][8];
    route_fig5("", "", "", "", &t, &res, &log, &rc, &err, shares);
    assert_int_equal(rc, 0);
    assert_true(shares[0][1] || shares[0][2]);    /* P1 shares a link (seen from the tables)... */
    assert_int_not_equal(res.partition_sl[1], 0); /* ...so it gets a VL of its own */
    assert_int_equal(res.violations, 0);          /* def asks for nothing */
    cs_route_result_free(&res);
}

static void test_fig6_phy(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "2;3,3;1,2");
    struct cs_partitions p;
    struct part parts[3] = {fig5[0], fig5[1], fig5[2]};
    parts[0].flags = ",isolation=phy";
    make_conf(&p, ",isolation_policy=strict", parts, 3);
    struct cs_lfts t;
    struct cs_route_result res;
    struct captured log = {0};
    struct cs_error err = {{0}};
    if (route_pf(&f, &p, NULL, &log, &t, &res, &err) != 0)
        fail_msg("%s", err.msg);
    uint32_t leaf[3];
    for (unsigned l = 0; l < 3; l++)
        leaf[l] = gen_switch(&f, 1, l);
    /* A (host 0) and E (host 4) through R1; everyone else through R2. */
    uint32_t r1 = root_of(&f, &t, leaf[1], 0);
    assert_int_equal(root_of(&f, &t, leaf[0], 4), r1);
    for (unsigned x = 0; x < 9; x++) {
        if (x == 0 || x == 4)
            continue;
        uint32_t other = leaf[(x / 3 + 1) % 3];
        assert_int_not_equal(root_of(&f, &t, other, x), r1);
    }
    assert_int_equal(res.partition_sl[1], 0);     /* P1 shares nothing */
    assert_int_not_equal(res.partition_sl[2], 0); /* P2 and P3 share R2's down links */
    assert_int_not_equal(res.partition_sl[3], 0);
    assert_int_not_equal(res.partition_sl[2], res.partition_sl[3]);
    assert_int_equal(res.violations, 0);
    expect_delivers(&f, &t);
    cs_route_result_free(&res);
    cs_lfts_free(&t);
    cs_partitions_free(&p);
    cs_fabric_free(&f);
}

/* ---- strict and best-effort (Table 1) ----------------------------------------------------- */

/* Two phy partitions and a third on two roots: the third must share with a phy one. */
static void test_strict_fails_naming_partition(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_route_result res;
    struct captured log = {0};
    struct cs_error err = {{0}};
    int rc;
    bool shares[8][8];
    route_fig5(",isolation=phy", ",isolation=phy", "", ",isolation_policy=strict", &t, &res, &log,
               &rc, &err, shares);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, "isolation=phy"));
    assert_true(strstr(err.msg, "partition 'P1'") || strstr(err.msg, "partition 'P2'"));
    assert_non_null(strstr(err.msg, "with partition 'P3'"));
    assert_non_null(strstr(err.msg, "shares the link from switch 0x"));
    assert_non_null(strstr(err.msg, "strict"));
    assert_null(res.partition_sl); /* nothing returned */
}

static void test_best_effort_warns(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_route_result res;
    struct captured log = {0};
    struct cs_error err = {{0}};
    int rc;
    bool shares[8][8];
    route_fig5(",isolation=phy", ",isolation=phy", "", "", &t, &res, &log, &rc, &err, shares);
    assert_int_equal(rc, 0);
    assert_true(res.violations > 0);
    assert_int_equal(log.warnings, res.violations);
    assert_non_null(strstr(log.last, "best-effort"));
    assert_non_null(strstr(log.last, "shares the link"));
    cs_route_result_free(&res);
}

/* ---- VLs (Alg. 5) ------------------------------------------------------------------------- */

/* vlane partitions that share links get distinct VLs; no violation while VLs last. */
static void test_vlane_distinct_vls(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_route_result res;
    struct captured log = {0};
    struct cs_error err = {{0}};
    int rc;
    bool shares[8][8];
    route_fig5(",isolation=vlane", ",isolation=vlane", ",isolation=vlane",
               ",isolation_policy=strict", &t, &res, &log, &rc, &err, shares);
    if (rc != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(res.violations, 0);
    unsigned nonzero = 0, sharing = 0;
    for (unsigned i = 0; i < 3; i++) {
        nonzero += res.partition_sl[i + 1] != 0;
        for (unsigned j = i + 1; j < 3; j++)
            if (shares[i][j]) {
                sharing++;
                assert_int_not_equal(res.partition_sl[i + 1], res.partition_sl[j + 1]);
            }
    }
    assert_true(sharing >= 1); /* two roots, three partitions: not all isolated */
    assert_true(nonzero >= 2);
    cs_route_result_free(&res);
}

/* Nine vlane partitions (hosts i and 9 + i) all crossing the one root need more than the 7 VLs:
 * strict fails, best-effort wraps (the paper's VL1) and counts. */
static void test_vlane_out_of_vls(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "2;9,2;1,1"); /* one root: every partition crosses it to the other leaf */
    struct part parts[9];
    static char hosts[9][3];
    static const char *names[9] = {"V0", "V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8"};
    for (unsigned i = 0; i < 9; i++) {
        hosts[i][0] = (char)('a' + i);
        hosts[i][1] = (char)('a' + 9 + i);
        hosts[i][2] = 0;
        parts[i] = (struct part){names[i], ",isolation=vlane", hosts[i]};
    }
    for (int strict = 0; strict < 2; strict++) {
        struct cs_partitions p;
        make_conf(&p, strict ? ",isolation_policy=strict" : "", parts, 9);
        struct cs_lfts t;
        struct cs_route_result res;
        struct captured log = {0};
        struct cs_error err = {{0}};
        int rc = route_pf(&f, &p, NULL, &log, &t, &res, &err);
        if (strict) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err.msg, "no VL left"));
        } else {
            assert_int_equal(rc, 0);
            assert_true(res.violations > 0);
            for (unsigned i = 1; i <= 9; i++)
                assert_true(res.partition_sl[i] >= 1 && res.partition_sl[i] <= 7);
            cs_route_result_free(&res);
            cs_lfts_free(&t);
        }
        cs_partitions_free(&p);
    }
    cs_fabric_free(&f);
}

/* ---- Fig. 12: pFTree-Wt ------------------------------------------------------------------- */

/* L1159-L1176: Fig. 4's sample with a (green) weighing 100, the rest 1. a is alone on its
 * root's link to L1; b, c, d share the other root's link to L1; g, h (green) take one root down
 * to L2 and e, f (pink) the other; of the root-to-leaf links exactly one carries both
 * partitions: the one to L1 with b, c, d. */
static void fig12(unsigned heavy)
{
    struct cs_fabric f;
    generate(&f, "2;4,2;1,2");
    struct cs_partitions p;
    static const struct part parts[] = {{"green", "", "adgh"}, {"pink", "", "bcef"}};
    make_conf(&p, "", parts, 2);
    struct cs_node_weights w;
    struct cs_error err = {{0}};
    cs_node_weights_init(&w);
    assert_int_equal(cs_node_weights_add(&w, host_port_guid(heavy), 100, &err), 0);
    assert_int_equal(cs_node_weights_sort(&w, "w", &err), 0);
    struct cs_lfts t;
    struct cs_route_result res;
    struct captured log = {0};
    if (route_pf(&f, &p, &w, &log, &t, &res, &err) != 0)
        fail_msg("%s", err.msg);
    uint32_t l1 = gen_switch(&f, 1, 0), l2 = gen_switch(&f, 1, 1);
    uint32_t ra = root_of(&f, &t, l2, heavy);
    for (unsigned x = 0; x < 4; x++)
        if (x != heavy)
            assert_int_not_equal(root_of(&f, &t, l2, x), ra);
    assert_int_equal(root_of(&f, &t, l1, 6), root_of(&f, &t, l1, 7));
    assert_int_equal(root_of(&f, &t, l1, 4), root_of(&f, &t, l1, 5));
    assert_int_not_equal(root_of(&f, &t, l1, 4), root_of(&f, &t, l1, 6));
    /* Root-to-leaf links carrying destinations of both partitions. */
    static const int green[8] = {1, 0, 0, 1, 0, 0, 1, 1};
    unsigned shared = 0;
    for (unsigned r = 0; r < 2; r++)
        for (unsigned l = 0; l < 2; l++) {
            unsigned seen[2] = {0, 0};
            uint32_t root = gen_switch(&f, 2, r), other = l ? l1 : l2;
            for (unsigned x = 4 * l; x < 4 * l + 4; x++)
                if (root_of(&f, &t, other, x) == root)
                    seen[green[x]] = 1;
            shared += seen[0] && seen[1];
        }
    assert_int_equal(shared, 1);
    assert_int_not_equal(res.partition_sl[1], res.partition_sl[2]);
    expect_delivers(&f, &t);
    cs_route_result_free(&res);
    cs_lfts_free(&t);
    cs_node_weights_free(&w);
    cs_partitions_free(&p);
    cs_fabric_free(&f);
}

static void test_fig12_weights(void **state)
{
    (void)state;
    fig12(0);
    /* The same with d heavy: d is routed first of green (a partition's nodes heaviest first),
     * so d, not a, has a root's link to L1 to itself. */
    fig12(3);
}

/* ---- ftree without partitions; delivery on generated trees -------------------------------- */

static void test_no_partitions_is_ftree(void **state)
{
    (void)state;
    static const char *trees[] = {"2;8,4;1,4", "3;4,4,2;1,2,2", "3;3,3,3;1,3,3"};
    for (unsigned i = 0; i < 3; i++) {
        struct cs_fabric f;
        generate(&f, trees[i]);
        struct cs_lfts a, b;
        struct cs_route_result res;
        struct cs_error err = {{0}};
        struct captured log = {0};
        if (route_pf(&f, NULL, NULL, &log, &a, &res, &err) != 0)
            fail_msg("%s", err.msg);
        rt_route("ftree", &f, NULL, &b);
        rt_assert_same_tables(&a, &b);
        assert_int_equal(res.violations, 0);
        cs_route_result_free(&res);
        cs_lfts_free(&a);
        cs_lfts_free(&b);
        cs_fabric_free(&f);
    }
}

/* 4 to 8 partitions, mixed policies, members scattered (a fixed pseudo-random draw): every
 * pair delivered, no credit loop, and phy partitions that report no violation share nothing. */
static void test_generated_trees_deliver(void **state)
{
    (void)state;
    static const char *trees[] = {"2;8,4;1,4", "3;4,4,2;1,2,2", "3;3,3,3;1,3,3", "2;12,4;1,4"};
    static const char *flags[] = {",isolation=phy", ",isolation=vlane", ""};
    static const char *names[8] = {"T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7"};
    uint32_t seed = 12345;
    for (unsigned i = 0; i < 4; i++) {
        struct cs_fabric f;
        generate(&f, trees[i]);
        unsigned hosts = 0;
        while (gen_node_exists(&f, hosts))
            hosts++;
        unsigned count = 4 + i;
        static char members[8][64];
        unsigned used[8] = {0};
        for (unsigned h = 0; h < hosts && h < 62; h++) {
            seed = seed * 1103515245u + 12345u;
            unsigned k = (seed >> 16) % count;
            members[k][used[k]++] = (char)('a' + h);
        }
        struct part parts[8];
        for (unsigned k = 0; k < count; k++) {
            members[k][used[k]] = 0;
            parts[k] = (struct part){names[k], flags[k % 3], members[k]};
        }
        struct cs_partitions p;
        make_conf(&p, "", parts, count);
        struct cs_lfts t;
        struct cs_route_result res;
        struct cs_error err = {{0}};
        struct captured log = {0};
        if (route_pf(&f, &p, NULL, &log, &t, &res, &err) != 0)
            fail_msg("%s: %s", trees[i], err.msg);
        expect_delivers(&f, &t);
        assert_int_equal(log.warnings, res.violations);
        cs_route_result_free(&res);
        cs_lfts_free(&t);
        cs_partitions_free(&p);
        cs_fabric_free(&f);
    }
}

/* The engine follows a partition's destinations 64 at a time: a phy partition of 100 hosts and
 * a def one of two hosts on two leaves, drawn 40 times on 128 hosts: each time, the violation
 * pftree reports (best-effort: 1 if the two share a link, else 0) is what an independent walk of
 * every flow over the final tables finds; both answers occur. */
static void test_sharing_beyond_64_members(void **state)
{
    (void)state;
    struct cs_fabric f;
    generate(&f, "2;16,8;1,8");
    size_t cells = (size_t)f.num_nodes * f.num_nodes;
    uint8_t *big_used = calloc(cells, 1), *small_used = calloc(cells, 1);
    assert_non_null(big_used);
    assert_non_null(small_used);
    uint32_t seed = 4242;
    unsigned outcomes[2] = {0, 0};
    for (unsigned draw = 0; draw < 40; draw++) {
        unsigned order[128];
        for (unsigned i = 0; i < 128; i++)
            order[i] = i;
        for (unsigned i = 127; i > 0; i--) {
            seed = seed * 1103515245u + 12345u;
            unsigned j = (seed >> 8) % (i + 1), tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        unsigned small[2] = {order[100], order[101]};
        if (small[0] / 16 == small[1] / 16) /* same leaf: nothing crosses a link */
            small[1] = (small[0] + 16) % 128;
        unsigned big[100], n = 0;
        for (unsigned i = 0; i < 128 && n < 100; i++)
            if (order[i] != small[0] && order[i] != small[1])
                big[n++] = order[i];
        char text[8192];
        size_t len = (size_t)snprintf(text, sizeof text,
                                      "Big=0x0001, isolation=phy, isolation_policy=best-effort :");
        for (unsigned i = 0; i < n; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s 0x%016llx=full",
                                    i ? "," : "", (unsigned long long)host_port_guid(big[i]));
        len += (size_t)snprintf(text + len, sizeof text - len,
                                " ;\nSmall=0x0002 : 0x%016llx=full, 0x%016llx=full ;\n",
                                (unsigned long long)host_port_guid(small[0]),
                                (unsigned long long)host_port_guid(small[1]));
        struct cs_partitions p;
        struct cs_error err = {{0}};
        assert_int_equal(cs_partitions_parse(&p, text, len, "draw.conf", &err), 0);
        struct cs_lfts t;
        struct cs_route_result res;
        struct captured log = {0};
        assert_int_equal(route_pf(&f, &p, NULL, &log, &t, &res, &err), 0);
        memset(big_used, 0, cells);
        memset(small_used, 0, cells);
        mark_flows(&f, &t, big, n, big_used);
        mark_flows(&f, &t, small, 2, small_used);
        bool shared = any_common(big_used, small_used, cells);
        assert_int_equal(res.violations, shared ? 1 : 0);
        outcomes[shared]++;
        cs_route_result_free(&res);
        cs_lfts_free(&t);
        cs_partitions_free(&p);
    }
    assert_true(outcomes[0] > 0 && outcomes[1] > 0);
    free(big_used);
    free(small_used);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig4),
        cmocka_unit_test(test_fig5_pftree_shares),
        cmocka_unit_test(test_fig6_phy),
        cmocka_unit_test(test_strict_fails_naming_partition),
        cmocka_unit_test(test_best_effort_warns),
        cmocka_unit_test(test_vlane_distinct_vls),
        cmocka_unit_test(test_vlane_out_of_vls),
        cmocka_unit_test(test_fig12_weights),
        cmocka_unit_test(test_no_partitions_is_ftree),
        cmocka_unit_test(test_generated_trees_deliver),
        cmocka_unit_test(test_sharing_beyond_64_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
