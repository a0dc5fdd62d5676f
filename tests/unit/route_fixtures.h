/* Helpers for the routing-engine tests (include after <cmocka.h> and analyze_fixtures.h): route a
 * fabric with an engine, read entries, and check what routes do with code that shares nothing
 * with the engines (its own BFS, its own walk). */
#ifndef CLOUDSM_TEST_ROUTE_FIXTURES_H
#define CLOUDSM_TEST_ROUTE_FIXTURES_H

#include <stdlib.h>
#include <string.h>

#include "cloudsm/analyze.h"
#include "cloudsm/mutate.h"
#include "cloudsm/route.h"
#include "cloudsm/topo_gen.h"

/* A fabric from an XGFT spec "h;m..;w.." or a PGFT spec "h;m..;w..;p.." (parallel cables), with
 * `cut` switch cables cut at random (a fixed seed), then LIDs. */
static inline void rt_generate_cut(struct cs_fabric *f, const char *spec, uint32_t cut)
{
    struct cs_pgft_spec s;
    struct cs_error err = {{0}};
    bool parallel = strchr(strchr(strchr(spec, ';') + 1, ';') + 1, ';') != NULL;
    if (cs_pgft_parse(&s, spec, parallel, &err) != 0)
        fail_msg("parse %s: %s", spec, err.msg);
    cs_fabric_init(f);
    if (cs_pgft_generate(f, &s, &err) != 0)
        fail_msg("generate %s: %s", spec, err.msg);
    struct cs_mutation m = {.unlink_switch_links = cut, .seed = 11};
    if (cut && cs_fabric_mutate(f, &m, &err) != 0)
        fail_msg("%s", err.msg);
    fx_lids(f, 0);
}

static inline void rt_generate(struct cs_fabric *f, const char *spec)
{
    rt_generate_cut(f, spec, 0);
}

/* Route with `engine` and insist that it is that engine's table (no fallback). */
static inline void rt_route(const char *engine, const struct cs_fabric *f,
                            const struct cs_route_options *opt, struct cs_lfts *t)
{
    struct cs_route_stats st;
    struct cs_error err = {{0}};
    if (cs_route(engine, f, opt, t, &st, &err) != 0)
        fail_msg("%s: %s", engine, err.msg);
    if (strcmp(st.engine, engine) != 0)
        fail_msg("%s fell back to %s: %s", engine, st.engine, st.fallback_reason);
}

/* Entry of a switch (by fabric node) for a LID. */
static inline uint8_t rt_port(const struct cs_lfts *t, const struct cs_fabric *f,
                              uint32_t switch_node, uint32_t lid)
{
    uint32_t s = cs_lfts_find(t, f->nodes[switch_node].guid);
    assert_true(s != CS_NONE);
    return cs_lfts_get(t, s, lid);
}

/* The switch a LID ends at: the switch owning it, or the one its end port is cabled to. */
static inline uint32_t rt_lid_switch(const struct cs_fabric *f, uint32_t lid)
{
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid || lid < p->lid || lid >= p->lid + (1u << p->lmc))
            continue;
        if (cs_node_is_switch(&f->nodes[p->node]))
            return p->node;
        if (p->peer != CS_NONE && cs_node_is_switch(&f->nodes[f->ports[p->peer].node]))
            return f->ports[p->peer].node;
        return CS_NONE;
    }
    return CS_NONE;
}

static inline bool rt_is_switch_lid(const struct cs_fabric *f, uint32_t lid)
{
    uint32_t last = rt_lid_switch(f, lid);
    return last != CS_NONE && f->ports[f->nodes[last].first_port].lid == lid;
}

/* Both sets hold the same entries for the LIDs of end ports. */
static inline void rt_assert_same_ca_entries(const struct cs_fabric *f, const struct cs_lfts *a,
                                             const struct cs_lfts *b)
{
    assert_int_equal(a->num_switches, b->num_switches);
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid || cs_node_is_switch(&f->nodes[p->node]))
            continue;
        for (uint32_t lid = p->lid; lid < p->lid + (1u << p->lmc); lid++)
            for (uint32_t s = 0; s < a->num_switches; s++)
                if (cs_lfts_get(a, s, lid) != cs_lfts_get(b, s, lid))
                    fail_msg("switch %u LID %u: %u and %u", s, lid, cs_lfts_get(a, s, lid),
                             cs_lfts_get(b, s, lid));
    }
}

/* Hops between switches (fabric node indices), switch cables only: d[a * num_nodes + b],
 * CS_NONE when unreachable or not both switches. Caller frees. */
static inline uint32_t *rt_switch_distances(const struct cs_fabric *f)
{
    uint32_t n = f->num_nodes;
    uint32_t *d = malloc((size_t)n * n * sizeof *d + 1), *queue = malloc(n * sizeof *queue + 1);
    assert_non_null(d);
    assert_non_null(queue);
    for (size_t i = 0; i < (size_t)n * n; i++)
        d[i] = CS_NONE;
    for (uint32_t a = 0; a < n; a++) {
        if (!cs_node_is_switch(&f->nodes[a]))
            continue;
        uint32_t *row = d + (size_t)a * n, head = 0, tail = 0;
        row[a] = 0;
        queue[tail++] = a;
        while (head < tail) {
            uint32_t v = queue[head++];
            const struct cs_node *node = &f->nodes[v];
            for (unsigned p = 1; p <= node->num_ports; p++) {
                uint32_t peer = f->ports[node->first_port + p].peer;
                if (peer == CS_NONE)
                    continue;
                uint32_t w = f->ports[peer].node;
                if (cs_node_is_switch(&f->nodes[w]) && row[w] == CS_NONE) {
                    row[w] = row[v] + 1;
                    queue[tail++] = w;
                }
            }
        }
    }
    free(queue);
    return d;
}

/* Called for each switch-to-switch hop of a walk. */
typedef void (*rt_hop_fn)(void *ctx, uint32_t from_node, uint32_t to_node);

/* Follow the tables from switch node s to lid: the number of switch-to-switch hops, or -1 when
 * a switch has no route (255). Fails the test on a loop or on a delivery to the wrong port. */
static inline int rt_walk(const struct cs_fabric *f, const struct cs_lfts *t, uint32_t s,
                          uint32_t lid, rt_hop_fn hop, void *ctx)
{
    for (int hops = 0; hops <= (int)f->num_nodes; hops++) {
        uint8_t port = rt_port(t, f, s, lid);
        if (port == CS_LFT_NO_ROUTE)
            return -1;
        uint32_t out = cs_fabric_port(f, s, port);
        assert_true(out != CS_NONE);
        if (port == 0) {
            assert_int_equal(f->ports[out].lid, lid);
            return hops;
        }
        uint32_t peer = f->ports[out].peer;
        assert_true(peer != CS_NONE);
        uint32_t next = f->ports[peer].node;
        if (!cs_node_is_switch(&f->nodes[next])) {
            const struct cs_port *end = &f->ports[peer];
            if (lid < end->lid || lid >= end->lid + (1u << end->lmc))
                fail_msg("LID %u delivered to port GUID 0x%llx", lid,
                         (unsigned long long)end->guid);
            return hops;
        }
        if (hop)
            hop(ctx, s, next);
        s = next;
    }
    fail_msg("LID %u: forwarding loop through switch 0x%llx", lid,
             (unsigned long long)f->nodes[s].guid);
    return -1;
}

/* Every switch reaches every LID of the fabric (end ports cabled to a switch, and, unless
 * ca_only, switches) in exactly as many hops as the switch graph's distance. */
static inline void rt_assert_shortest(const struct cs_fabric *f, const struct cs_lfts *t,
                                      bool ca_only)
{
    uint32_t *d = rt_switch_distances(f);
    uint16_t max_lid = cs_fabric_max_lid(f);
    for (uint32_t lid = 1; lid <= max_lid; lid++) {
        uint32_t last = rt_lid_switch(f, lid);
        if (last == CS_NONE || (ca_only && rt_is_switch_lid(f, lid)))
            continue;
        for (uint32_t s = 0; s < f->num_nodes; s++) {
            if (!cs_node_is_switch(&f->nodes[s]))
                continue;
            int hops = rt_walk(f, t, s, lid, NULL, NULL);
            if (hops != (int)d[(size_t)s * f->num_nodes + last])
                fail_msg("switch 0x%llx to LID %u: %d hops, distance %d",
                         (unsigned long long)f->nodes[s].guid, lid, hops,
                         (int)d[(size_t)s * f->num_nodes + last]);
        }
    }
    free(d);
}

/* The all-pairs check of analyze.h on CA-to-CA routes. Returns the result (free it). */
static inline void rt_check(const struct cs_fabric *f, const struct cs_lfts *t,
                            struct cs_check_result *r)
{
    struct cs_tracer tr;
    struct cs_error err = {{0}};
    fx_tracer(&tr, f, t);
    struct cs_check_options opt = {.threads = 1};
    if (cs_check_lfts(&tr, &opt, r, &err) != 0)
        fail_msg("check: %s", err.msg);
    cs_tracer_free(&tr);
}

/* Both sets hold the same entries. */
static inline void rt_assert_same_tables(const struct cs_lfts *a, const struct cs_lfts *b)
{
    assert_int_equal(a->num_switches, b->num_switches);
    assert_int_equal(a->capacity, b->capacity);
    assert_memory_equal(a->ports, b->ports, (size_t)a->num_switches * a->capacity);
}

/* The worst per-flow share of a link: flows src[i] -> dst[i] (port slots) all at once, each
 * link's bandwidth split among the flows crossing it (the static flow model): 1.0 when no link
 * is shared. Every flow must be delivered (cs_flows_congestion fails otherwise). */
static inline double rt_worst_share(const struct cs_fabric *f, const struct cs_lfts *t,
                                    const uint32_t *src, const uint32_t *dst, uint32_t n)
{
    struct cs_tracer tr;
    struct cs_error err = {{0}};
    assert_int_equal(cs_tracer_init(&tr, f, t, &err), 0);
    struct cs_flow flows[16];
    assert_true(n <= 16);
    for (uint32_t i = 0; i < n; i++)
        flows[i] = (struct cs_flow){.src_port = src[i], .dst_lid = f->ports[dst[i]].lid};
    uint32_t worst = 0;
    if (cs_flows_congestion(&tr, flows, n, NULL, NULL, &worst, &err) != 0)
        fail_msg("%s", err.msg);
    cs_tracer_free(&tr);
    return 1.0 / worst;
}

#endif
