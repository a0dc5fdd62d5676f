/* Static route metrics (static_metrics.h): partition flows per link, pFTree-Wt contention and
 * inter-partition interference (spec pftree-isolation-and-weights.md section 5.4, seed 004
 * L1191-L1194 and L1222-L1226), hand-computed on a small two-level tree and compared with
 * brute-force tracing of every pair on a routed tree; and the ORCS dot export. */
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
#include "cloudsm/rng.h"
#include "cloudsm/static_metrics.h"

/* ---- The hand-computed tree --------------------------------------------------------------
 *
 *            S0            S1          spines: port 1 -> L0, port 2 -> L1
 *           /  \  \    /  /  \
 *         L0 (ports 4: S0, 5: S1)   L1 (same)
 *        / | \                     / | \
 *      h0 h1 h2                  h3 h4 h5   (leaf ports 1, 2, 3)
 *
 * Up-links for remote hosts: L1 sends h0, h2 to S0 and h1 to S1; L0 sends h3, h5 to S0 and h4
 * to S1 ("balanced"), or all three to S0 ("all on S0"). */

struct tree {
    struct cs_fabric f;
    struct cs_lfts t;
    struct cs_tracer tr;
    uint32_t s[2], l[2], h[6];
};

static void build_tree(struct tree *x, bool all_on_s0)
{
    cs_fabric_init(&x->f);
    for (int i = 0; i < 2; i++) {
        char name[8];
        snprintf(name, sizeof name, "S%d", i);
        x->s[i] = fx_switch(&x->f, 0x100 + (uint64_t)i, 4, name);
    }
    for (int i = 0; i < 2; i++) {
        char name[8];
        snprintf(name, sizeof name, "L%d", i);
        x->l[i] = fx_switch(&x->f, 0x200 + (uint64_t)i, 8, name);
    }
    for (int i = 0; i < 6; i++) {
        char name[8];
        snprintf(name, sizeof name, "h%d", i);
        x->h[i] = fx_ca(&x->f, 0x1000 + 0x10 * (uint64_t)i, name);
    }
    for (int leaf = 0; leaf < 2; leaf++) {
        for (int k = 0; k < 3; k++)
            fx_link(&x->f, x->l[leaf], 1 + (unsigned)k, x->h[3 * leaf + k], 1);
        fx_link(&x->f, x->l[leaf], 4, x->s[0], 1 + (unsigned)leaf);
        fx_link(&x->f, x->l[leaf], 5, x->s[1], 1 + (unsigned)leaf);
    }
    fx_lids(&x->f, 0);
    fx_lfts(&x->t, &x->f);
    static const uint8_t l1_up[3] = {4, 5, 4};
    const uint8_t l0_up[3] = {4, (uint8_t)(all_on_s0 ? 4 : 5), 4};
    for (int k = 0; k < 3; k++) {
        uint32_t lid0 = fx_lid(&x->f, x->h[k], 1), lid1 = fx_lid(&x->f, x->h[3 + k], 1);
        fx_set(&x->t, &x->f, x->l[0], lid0, (uint8_t)(1 + k));
        fx_set(&x->t, &x->f, x->l[1], lid1, (uint8_t)(1 + k));
        fx_set(&x->t, &x->f, x->l[1], lid0, l1_up[k]);
        fx_set(&x->t, &x->f, x->l[0], lid1, l0_up[k]);
        for (int sp = 0; sp < 2; sp++) {
            fx_set(&x->t, &x->f, x->s[sp], lid0, 1);
            fx_set(&x->t, &x->f, x->s[sp], lid1, 2);
        }
    }
    fx_tracer(&x->tr, &x->f, &x->t);
}

static void free_tree(struct tree *x)
{
    cs_tracer_free(&x->tr);
    cs_lfts_free(&x->t);
    cs_fabric_free(&x->f);
}

/* Directed link from port a of node n. */
static uint32_t link_of(const struct tree *x, uint32_t node, unsigned port)
{
    return x->tr.links.out[cs_fabric_port(&x->f, node, port)];
}

static uint32_t host_port(const struct tree *x, int i)
{
    return cs_fabric_port(&x->f, x->h[i], 1);
}

static void metrics(const struct tree *x, const struct cs_static_options *opt,
                    struct cs_static_result *r)
{
    struct cs_error err = {""};
    if (cs_static_metrics(&x->tr, opt, r, &err) != 0)
        fail_msg("%s", err.msg);
}

static void resolve(const struct tree *x, const char *conf, uint64_t sm, struct cs_partition_set *s)
{
    struct cs_partitions p;
    struct cs_error err = {""};
    if (cs_partitions_parse(&p, conf, strlen(conf), "p.conf", &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_partition_resolve_options opt = {sm, false};
    if (cs_partitions_resolve(&p, &x->f, &opt, s, &err) != 0)
        fail_msg("%s", err.msg);
    cs_partitions_free(&p);
}

/* Every CA pair, no partitions: the same counts as the all-pairs check. */
static void test_all_pairs_flows(void **state)
{
    (void)state;
    struct tree x;
    build_tree(&x, false);
    struct cs_static_result r;
    metrics(&x, NULL, &r);
    assert_int_equal(r.num_partitions, 1);
    assert_int_equal(r.partitions[0].pkey, 0);
    assert_int_equal(r.partitions[0].members, 6);
    assert_int_equal(r.flows, 30);
    assert_int_equal(r.undelivered, 0);
    /* L0 -> S0 carries h0, h1, h2 to h3 and h5; L0 -> S1 them to h4. */
    assert_int_equal(r.link_flows[link_of(&x, x.l[0], 4)], 6);
    assert_int_equal(r.link_flows[link_of(&x, x.l[0], 5)], 3);
    assert_int_equal(r.link_flows[link_of(&x, x.h[0], 1)], 5);
    const struct cs_link_stats *up = &r.classes[CS_LINK_UP].flows;
    assert_int_equal(up->links, 4);
    assert_int_equal(up->max, 6);
    assert_int_equal(up->min, 3);
    assert_int_equal(up->spread, 3);
    assert_true(up->mean == 4.5);
    /* One partition: nothing is shared. */
    assert_int_equal(r.all.interference, 0);
    assert_int_equal(r.all.shared_links, 0);
    assert_null(r.link_receivers);

    struct cs_check_result c;
    struct cs_check_options copt = {.threads = 1};
    struct cs_error err = {""};
    assert_int_equal(cs_check_lfts(&x.tr, &copt, &c, &err), 0);
    assert_memory_equal(c.link_routes, r.link_flows, r.num_links * sizeof *r.link_flows);
    assert_int_equal(c.classes[CS_LINK_UP].max, up->max);
    cs_check_result_free(&c);
    cs_static_result_free(&r);
    free_tree(&x);
}

static void expect_contention(const struct tree *x, const int *receivers, unsigned n,
                              unsigned distinct, uint64_t up, uint64_t down, uint64_t host_up,
                              uint32_t host_up_links, uint64_t all)
{
    uint32_t ports[6];
    for (unsigned i = 0; i < n; i++)
        ports[i] = host_port(x, receivers[i]);
    struct cs_static_options opt = {.receivers = ports, .num_receivers = n};
    struct cs_static_result r;
    metrics(x, &opt, &r);
    assert_int_equal(r.receivers, distinct);
    if (r.classes[CS_LINK_UP].contention != up || r.classes[CS_LINK_DOWN].contention != down ||
        r.classes[CS_LINK_HOST_UP].contention != host_up ||
        r.classes[CS_LINK_HOST_UP].contended_links != host_up_links || r.all.contention != all)
        fail_msg("contention up %llu down %llu host_up %llu (%u links) all %llu; expected %llu "
                 "%llu %llu (%u) %llu",
                 (unsigned long long)r.classes[CS_LINK_UP].contention,
                 (unsigned long long)r.classes[CS_LINK_DOWN].contention,
                 (unsigned long long)r.classes[CS_LINK_HOST_UP].contention,
                 r.classes[CS_LINK_HOST_UP].contended_links, (unsigned long long)r.all.contention,
                 (unsigned long long)up, (unsigned long long)down, (unsigned long long)host_up,
                 host_up_links, (unsigned long long)all);
    /* A contended switch link is contended in one direction: up and down count the same links. */
    assert_int_equal(r.classes[CS_LINK_UP].contended_links, up ? 1 : 0);
    assert_int_equal(r.classes[CS_LINK_HOST_DOWN].contention, 0);
    cs_static_result_free(&r);
}

/* "a link is contended if routes towards more than one receiver node pass through it in one
 * direction. If R receiver node flows share a link, we set contention on the link to R - 1"
 * (seed 004 L1191-L1193). Every host sends to every other (no partitions). */
static void test_contention(void **state)
{
    (void)state;
    struct tree x;
    build_tree(&x, false);
    /* h3 and h4 arrive over different spines: no switch link carries both. Host up-links carry
     * routes to both from h0, h1, h2 (remote) and h5 (local): contention 1 each. */
    static const int r34[] = {3, 4};
    expect_contention(&x, r34, 2, 2, 0, 0, 4, 4, 4);
    /* h3 and h5 share S0: L0 -> S0 and S0 -> L1 carry both (R = 2, contention 1 each). */
    static const int r35[] = {3, 5};
    expect_contention(&x, r35, 2, 2, 1, 1, 4, 4, 6);
    free_tree(&x);

    /* All of leaf 1 over S0: R = 3 on L0 -> S0 and S0 -> L1, contention 2 each; host up-links:
     * h0, h1, h2 carry 3 receivers (2 each), h3, h4, h5 the other two (1 each). */
    build_tree(&x, true);
    static const int r345[] = {3, 4, 5, 3}; /* a receiver given twice counts once */
    expect_contention(&x, r345, 4, 3, 2, 2, 9, 6, 13);
    free_tree(&x);
}

/* "the number of occurrences when a traffic flow between any source-destination pair, belonging
 * to one partition, shares a link with any other flow of a different partition" (seed 004
 * L1222-L1226): one occurrence per flow per link that carries another partition's flow. */
static void test_interference(void **state)
{
    (void)state;
    struct tree x;
    build_tree(&x, false);
    struct cs_partition_set s;
    /* P1 = {h0, h3} and P2 = {h2, h5} both cross S0; P3 = {h1, h4} alone on S1. */
    resolve(&x,
            "P1=0x1 : 0x1001=full, 0x1031=full ;\n"
            "P2=0x2 : 0x1021=full, 0x1051=full ;\n"
            "P3=0x3 : 0x1011=full, 0x1041=full ;\n",
            0, &s);
    struct cs_static_options opt = {.partitions = &s};
    struct cs_static_result r;
    metrics(&x, &opt, &r);
    assert_int_equal(r.num_partitions, 3); /* Default left out */
    assert_int_equal(r.flows, 6);
    for (unsigned p = 0; p < 3; p++) {
        assert_int_equal(r.partitions[p].pkey, p + 1);
        assert_int_equal(r.partitions[p].flows, 2);
        assert_int_equal(r.partitions[p].links, 8);
    }
    /* L0 -> S0, S0 -> L1, L1 -> S0, S0 -> L0 carry one flow of P1 and one of P2: 4 shared links,
     * 2 occurrences each. */
    assert_int_equal(r.all.shared_links, 4);
    assert_int_equal(r.all.interference, 8);
    assert_int_equal(r.classes[CS_LINK_UP].interference, 4);
    assert_int_equal(r.classes[CS_LINK_DOWN].interference, 4);
    assert_int_equal(r.classes[CS_LINK_UP].shared_links, 2);
    assert_int_equal(r.partitions[0].interference, 4);
    assert_int_equal(r.partitions[0].shared_links, 4);
    assert_int_equal(r.partitions[1].interference, 4);
    assert_int_equal(r.partitions[2].interference, 0);
    assert_int_equal(r.partitions[2].shared_links, 0);
    uint32_t l0s0 = link_of(&x, x.l[0], 4);
    assert_int_equal(r.link_partitions[l0s0], 2);
    assert_int_equal(r.link_flows[l0s0], 2);
    assert_int_equal(r.partition_link_flows[0 * r.num_links + l0s0], 1);
    assert_int_equal(r.partition_link_flows[2 * r.num_links + l0s0], 0);
    assert_int_equal(r.link_partitions[link_of(&x, x.l[0], 5)], 1);
    cs_static_result_free(&r);
    cs_partition_set_free(&s);
    free_tree(&x);
}

/* Limited members do not talk to each other; Default (management) is left out unless asked. */
static void test_membership_rules(void **state)
{
    (void)state;
    struct tree x;
    build_tree(&x, false);
    struct cs_partition_set s;
    resolve(&x, "P=0x1 : 0x1001=full, 0x1011, 0x1021 ;\n", UINT64_C(0x1001), &s);
    struct cs_static_options opt = {.partitions = &s};
    struct cs_static_result r;
    metrics(&x, &opt, &r);
    assert_int_equal(r.num_partitions, 1);
    /* h0 <-> h1 and h0 <-> h2; not h1 <-> h2. */
    assert_int_equal(r.flows, 4);
    assert_int_equal(r.link_flows[link_of(&x, x.h[1], 1)], 1);
    assert_int_equal(r.link_flows[link_of(&x, x.l[0], 2)], 1);
    assert_int_equal(r.link_flows[link_of(&x, x.h[0], 1)], 2);
    assert_int_equal(r.link_flows[link_of(&x, x.l[0], 1)], 2);
    assert_int_equal(r.classes[CS_LINK_UP].flows.max, 0);
    cs_static_result_free(&r);

    /* Default with the SM at h0: everyone limited but h0, so 18 flows, h0 <-> 9 others (the 6
     * CAs and 4 switches). These LFTs route no switch LID but each switch's own: h0 reaches
     * L0's LID only, so 3 of them are undelivered. */
    opt.include_default = true;
    metrics(&x, &opt, &r);
    assert_int_equal(r.num_partitions, 2);
    assert_int_equal(r.partitions[0].pkey, CS_PKEY_DEFAULT);
    assert_int_equal(r.partitions[0].members, 10);
    assert_int_equal(r.partitions[0].flows + r.partitions[0].undelivered, 2 * 9);
    assert_int_equal(r.partitions[0].undelivered, 3);
    /* P's flows and Default's share h0's cable: interference on host links too. */
    assert_true(r.classes[CS_LINK_HOST_UP].interference > 0);
    cs_static_result_free(&r);
    cs_partition_set_free(&s);
    free_tree(&x);
}

/* A black hole: the flows into it are undelivered and on no link. */
static void test_undelivered(void **state)
{
    (void)state;
    struct tree x;
    build_tree(&x, false);
    fx_set(&x.t, &x.f, x.s[0], fx_lid(&x.f, x.h[3], 1), CS_LFT_NO_ROUTE);
    struct cs_static_result r;
    metrics(&x, NULL, &r);
    /* h0, h1, h2 reach h3 over S0 (L0's choice): 3 pairs lost. */
    assert_int_equal(r.undelivered, 3);
    assert_int_equal(r.flows, 27);
    assert_int_equal(r.link_flows[link_of(&x, x.l[0], 4)], 3);
    assert_int_equal(r.link_flows[link_of(&x, x.h[0], 1)], 4);
    cs_static_result_free(&r);
    free_tree(&x);
}

/* Two CAs cabled to each other: their flows cross the cable, no switch. */
static void test_back_to_back(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t a = fx_ca(&f, 0x10, "a"), b = fx_ca(&f, 0x20, "b");
    fx_link(&f, a, 1, b, 1);
    fx_lids(&f, 0);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    struct cs_static_result r;
    struct cs_error err = {""};
    uint32_t receiver = cs_fabric_port(&f, b, 1);
    struct cs_static_options opt = {.receivers = &receiver, .num_receivers = 1};
    assert_int_equal(cs_static_metrics(&tr, &opt, &r, &err), 0);
    assert_int_equal(r.flows, 2);
    assert_int_equal(r.undelivered, 0);
    assert_int_equal(r.classes[CS_LINK_HOST_HOST].flows.links, 2);
    assert_int_equal(r.classes[CS_LINK_HOST_HOST].flows.min, 1);
    assert_int_equal(r.link_receivers[tr.links.out[cs_fabric_port(&f, a, 1)]], 1);
    assert_int_equal(r.link_receivers[tr.links.out[receiver]], 0);
    cs_static_result_free(&r);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* ---- Brute force on a routed tree ------------------------------------------------------- */

struct brute {
    uint64_t *flows;     /* [p * L + l] */
    uint32_t *receivers; /* [l] */
};

static void brute_force(const struct cs_tracer *tr, const struct cs_partition_set *s,
                        const uint8_t *is_receiver, struct brute *b)
{
    const struct cs_fabric *f = tr->fabric;
    uint32_t L = tr->links.count, P = s->count;
    b->flows = calloc((size_t)P * L + 1, sizeof *b->flows);
    b->receivers = calloc(L + 1, sizeof *b->receivers);
    uint8_t *seen = calloc(L + 1, 1);
    uint32_t links[64];
    for (uint32_t dest = 0; dest < f->num_port_slots; dest++) {
        memset(seen, 0, L);
        bool any = false;
        for (uint32_t p = 0; p < P; p++) {
            uint8_t dm = cs_partition_membership(s, p, dest);
            if (!dm)
                continue;
            any = true;
            const struct cs_resolved_partition *rp = &s->partitions[p];
            for (uint32_t k = rp->first; k < rp->first + rp->count; k++) {
                uint32_t src = s->ports[k].port;
                if (src == dest || !((dm | s->ports[k].membership) & CS_MEMBER_FULL))
                    continue;
                struct cs_route_trace t;
                struct cs_error err = {""};
                assert_int_equal(cs_trace_route(tr, src, f->ports[dest].lid, &t, links, 64, &err),
                                 0);
                if (t.outcome != CS_TRACE_DELIVERED)
                    continue;
                for (uint32_t h = 0; h < t.hops; h++) {
                    b->flows[(size_t)p * L + links[h]]++;
                    seen[links[h]] = 1;
                }
            }
        }
        if (any && is_receiver[dest])
            for (uint32_t l = 0; l < L; l++)
                b->receivers[l] += seen[l];
    }
    free(seen);
}

static void test_brute_force(void **state)
{
    (void)state;
    struct cs_fabric f;
    fx_generate(&f, "2;6,4;1,3");
    fx_lids(&f, 0);
    struct cs_lfts t;
    rt_route("ftree", &f, NULL, &t);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    struct cs_rng rng;
    cs_rng_seed(&rng, 4);
    uint32_t cas[64], n = 0;
    for (uint32_t i = 0; i < f.num_port_slots; i++)
        if (f.nodes[f.ports[i].node].type == CS_NODE_CA && f.ports[i].num &&
            f.ports[i].peer != CS_NONE)
            cas[n++] = i;
    assert_int_equal(n, 24);
    for (int round = 0; round < 6; round++) {
        /* Three partitions of random members, some limited, some ports in two of them; a
         * partition also holds a switch. */
        char conf[4096] = "";
        for (int p = 1; p <= 3; p++) {
            snprintf(conf + strlen(conf), sizeof conf - strlen(conf), "P%d=0x%d :%s", p, p,
                     p == 3 ? " ALL_SWITCHES=full," : "");
            for (uint32_t i = 0; i < n; i++) {
                uint32_t pick = cs_rng_below(&rng, 6);
                if (pick < 2)
                    snprintf(conf + strlen(conf), sizeof conf - strlen(conf), " 0x%llx=%s,",
                             (unsigned long long)f.ports[cas[i]].guid, pick ? "full" : "limited");
            }
            strcat(conf, " ;\n");
        }
        struct cs_partitions cfg;
        struct cs_partition_set s;
        struct cs_error err = {""};
        if (cs_partitions_parse(&cfg, conf, strlen(conf), "random", &err) != 0 ||
            cs_partitions_resolve(&cfg, &f, NULL, &s, &err) != 0)
            fail_msg("%s", err.msg);
        uint8_t is_receiver[4096] = {0};
        uint32_t receivers[8];
        for (int k = 0; k < 8; k++) {
            receivers[k] = cas[cs_rng_below(&rng, n)];
            is_receiver[receivers[k]] = 1;
        }
        struct cs_static_options opt = {
            .partitions = &s, .include_default = true, .receivers = receivers, .num_receivers = 8};
        struct cs_static_result r;
        if (cs_static_metrics(&tr, &opt, &r, &err) != 0)
            fail_msg("%s", err.msg);
        struct brute b;
        brute_force(&tr, &s, is_receiver, &b);
        assert_int_equal(r.num_partitions, s.count);
        uint32_t L = tr.links.count;
        assert_memory_equal(r.partition_link_flows, b.flows, (size_t)s.count * L * sizeof *b.flows);
        assert_memory_equal(r.link_receivers, b.receivers, L * sizeof *b.receivers);
        uint64_t interference = 0, contention = 0;
        for (uint32_t l = 0; l < L; l++) {
            uint32_t parts = 0;
            uint64_t flows = 0;
            for (uint32_t p = 0; p < s.count; p++) {
                parts += b.flows[(size_t)p * L + l] != 0;
                flows += b.flows[(size_t)p * L + l];
            }
            if (parts >= 2)
                interference += flows;
            if (b.receivers[l] >= 2)
                contention += b.receivers[l] - 1;
        }
        assert_int_equal(r.all.interference, interference);
        assert_int_equal(r.all.contention, contention);
        assert_true(r.all.interference > 0); /* random partitions do share links */
        free(b.flows);
        free(b.receivers);
        cs_static_result_free(&r);
        cs_partition_set_free(&s);
        cs_partitions_free(&cfg);
    }
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

static void test_links_csv(void **state)
{
    (void)state;
    struct tree x;
    build_tree(&x, false);
    struct cs_partition_set s;
    resolve(&x, "P1=0x1 : 0x1001=full, 0x1031=full ;\nP2=0x2 : 0x1021=full, 0x1051=full ;\n", 0,
            &s);
    struct cs_static_options opt = {.partitions = &s};
    struct cs_static_result r;
    metrics(&x, &opt, &r);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct cs_error err = {""};
    assert_int_equal(cs_static_write_links_csv(out, &x.tr, &r, &err), 0);
    fclose(out);
    assert_non_null(strstr(text, "from_guid,from_port,to_guid,to_port,class,flows,partitions,"
                                 "receivers,pkeys\n"));
    /* L0 port 4 -> S0 port 1 carries one flow of each partition. */
    assert_non_null(strstr(text, "0x0000000000000200,4,0x0000000000000100,1,up,2,2,0,0x0001 "
                                 "0x0002\n"));
    free(text);
    cs_static_result_free(&r);
    cs_partition_set_free(&s);
    free_tree(&x);
}

/* ---- ORCS dot export --------------------------------------------------------------------- */

struct dot_edge {
    char tail[40], head[40];
    unsigned tail_port, head_port;
    char *comment;
};

static char *field(const char *line, const char *key, char *buf, size_t size)
{
    const char *p = strstr(line, key);
    if (!p)
        return NULL;
    p += strlen(key);
    const char *q = strchr(p, '"');
    assert_non_null(q);
    size_t n = (size_t)(q - p);
    char *out = buf ? buf : malloc(n + 1);
    if (buf)
        assert_true(n < size);
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

/* The comment holds name, as ORCS matches it (or is "*"). */
static bool names(const char *comment, const char *name)
{
    if (strcmp(comment, "*") == 0)
        return true;
    size_t n = strlen(name);
    for (const char *p = comment; (p = strstr(p, name)) != NULL; p += n)
        if ((p == comment || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

static void test_orcs_dot(void **state)
{
    (void)state;
    struct cs_fabric f;
    fx_generate(&f, "2;4,4;1,2");
    fx_lids(&f, 0);
    struct cs_lfts t;
    rt_route("ftree", &f, NULL, &t);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct cs_error err = {""};
    assert_int_equal(cs_orcs_dot_write(out, &tr, &err), 0);
    fclose(out);
    assert_true(strncmp(text, "digraph cloudsm {\n", 18) == 0);

    /* Parse the edges back: one per directed link, in link id order. */
    struct dot_edge *edges = calloc(tr.links.count, sizeof *edges);
    uint32_t num_edges = 0, vertices = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strstr(line, " -> ")) {
            vertices += strstr(line, "[label=") != NULL;
            continue;
        }
        assert_true(num_edges < tr.links.count);
        struct dot_edge *e = &edges[num_edges++];
        assert_int_equal(sscanf(line, " \"%39[^\"]\" -> \"%39[^\"]\"", e->tail, e->head), 2);
        char num[16];
        e->tail_port = (unsigned)atoi(field(line, "taillabel=\"", num, sizeof num));
        e->head_port = (unsigned)atoi(field(line, "headlabel=\"", num, sizeof num));
        e->comment = field(line, "comment=\"", NULL, 0);
    }
    assert_int_equal(num_edges, tr.links.count);
    uint32_t hosts = 0, switches = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        if (cs_node_is_switch(&f.nodes[n]))
            switches++;
        else
            hosts++;
    }
    assert_int_equal(vertices, hosts + switches);

    /* Each edge's list is exactly the hosts whose route leaves over that link (cs_dest_routes),
     * and names the link's ends. */
    struct cs_dest_routes d;
    assert_int_equal(cs_dest_routes_init(&d, &tr, &err), 0);
    for (uint32_t l = 0; l < tr.links.count; l++) {
        const struct cs_port *from = &f.ports[tr.links.from[l]];
        const struct cs_port *to = &f.ports[from->peer];
        char tail[40];
        bool from_switch = cs_node_is_switch(&f.nodes[from->node]);
        snprintf(tail, sizeof tail, "%c-%016llx", from_switch ? 'S' : 'H',
                 (unsigned long long)(from_switch ? f.nodes[from->node].guid : from->guid));
        assert_string_equal(edges[l].tail, tail);
        assert_int_equal(edges[l].tail_port, from->num);
        assert_int_equal(edges[l].head_port, to->num);
        if (!from_switch) {
            assert_string_equal(edges[l].comment, "*");
            continue;
        }
        char expected[4096] = "";
        for (uint32_t i = 0; i < f.num_port_slots; i++) {
            const struct cs_port *p = &f.ports[i];
            if (cs_node_is_switch(&f.nodes[p->node]) || !p->num || p->peer == CS_NONE)
                continue;
            cs_dest_routes_compute(&d, &tr, p->lid);
            if (d.next_link[tr.node_switch[from->node]] == l)
                snprintf(expected + strlen(expected), sizeof expected - strlen(expected),
                         "%sH-%016llx", *expected ? "," : "", (unsigned long long)p->guid);
        }
        assert_string_equal(edges[l].comment, expected);
    }

    /* ORCS's walk (find_route: follow the out-edge whose comment names the destination) gives
     * the traced route of every host pair. */
    for (uint32_t a = 0; a < f.num_port_slots; a++) {
        const struct cs_port *pa = &f.ports[a];
        if (cs_node_is_switch(&f.nodes[pa->node]) || !pa->num)
            continue;
        for (uint32_t b = 0; b < f.num_port_slots; b++) {
            const struct cs_port *pb = &f.ports[b];
            if (b == a || cs_node_is_switch(&f.nodes[pb->node]) || !pb->num)
                continue;
            char at[40], target[40];
            snprintf(at, sizeof at, "H-%016llx", (unsigned long long)pa->guid);
            snprintf(target, sizeof target, "H-%016llx", (unsigned long long)pb->guid);
            uint32_t walked[16], hops = 0;
            while (strcmp(at, target) != 0) {
                uint32_t next = CS_NONE;
                for (uint32_t l = 0; l < num_edges; l++)
                    if (strcmp(edges[l].tail, at) == 0 && names(edges[l].comment, target)) {
                        assert_true(next == CS_NONE); /* one way on, as LFTs give */
                        next = l;
                    }
                assert_true(next != CS_NONE && hops < 16);
                walked[hops++] = next;
                strcpy(at, edges[next].head);
            }
            uint32_t traced[16];
            struct cs_route_trace tt;
            assert_int_equal(cs_trace_route(&tr, a, pb->lid, &tt, traced, 16, &err), 0);
            assert_int_equal(tt.outcome, CS_TRACE_DELIVERED);
            assert_int_equal(tt.hops, hops);
            assert_memory_equal(walked, traced, hops * sizeof *walked);
        }
    }
    cs_dest_routes_free(&d);
    for (uint32_t l = 0; l < num_edges; l++)
        free(edges[l].comment);
    free(edges);
    free(text);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

/* A switch edge that carries every host is "*"; a host without a LID cannot be exported. */
static void test_orcs_dot_star(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    uint32_t a = fx_switch(&f, 0xa, 2, "a\"q"), b = fx_switch(&f, 0xb, 2, "b");
    uint32_t h = fx_ca(&f, 0x10, "h");
    fx_link(&f, a, 1, b, 1);
    fx_link(&f, b, 2, h, 1);
    fx_lids(&f, 0);
    struct cs_lfts t;
    fx_lfts(&t, &f);
    fx_fill_shortest(&t, &f);
    struct cs_tracer tr;
    fx_tracer(&tr, &f, &t);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct cs_error err = {""};
    assert_int_equal(cs_orcs_dot_write(out, &tr, &err), 0);
    fclose(out);
    assert_non_null(strstr(text, "  \"S-000000000000000a\" [label=\"a\\\"q\"];\n"));
    assert_non_null(strstr(text, "  \"S-000000000000000a\" -> \"S-000000000000000b\" "
                                 "[comment=\"*\", taillabel=\"1\", headlabel=\"1\"];\n"));
    assert_non_null(strstr(text, "  \"S-000000000000000b\" -> \"S-000000000000000a\" "
                                 "[comment=\"\", taillabel=\"1\", headlabel=\"1\"];\n"));
    free(text);
    cs_tracer_free(&tr);
    f.ports[cs_fabric_port(&f, h, 1)].lid = 0;
    fx_tracer(&tr, &f, &t);
    out = open_memstream(&text, &len);
    assert_int_equal(cs_orcs_dot_write(out, &tr, &err), -1);
    fclose(out);
    assert_string_equal(err.msg, "CA port 1 of 0x0000000000000010 ('h') has no LID: ORCS routes "
                                 "to every host");
    free(text);
    cs_tracer_free(&tr);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_pairs_flows), cmocka_unit_test(test_contention),
        cmocka_unit_test(test_interference),    cmocka_unit_test(test_membership_rules),
        cmocka_unit_test(test_undelivered),     cmocka_unit_test(test_back_to_back),
        cmocka_unit_test(test_brute_force),     cmocka_unit_test(test_links_csv),
        cmocka_unit_test(test_orcs_dot),        cmocka_unit_test(test_orcs_dot_star),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
