/* Fabrics and LFTs for the route-analysis tests (include after <cmocka.h>): hand-built nodes and
 * cables, LIDs by the deterministic rule of lid.h, and a shortest-path LFT fill that stands in
 * for a routing engine. */
#ifndef CLOUDSM_TEST_ANALYZE_FIXTURES_H
#define CLOUDSM_TEST_ANALYZE_FIXTURES_H

#include <stdlib.h>
#include <string.h>

#include "cloudsm/analyze.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/lid.h"
#include "cloudsm/topo_gen.h"

static inline uint32_t fx_switch(struct cs_fabric *f, uint64_t guid, unsigned ports,
                                 const char *desc)
{
    struct cs_error err = {{0}};
    uint32_t n = cs_fabric_add_node(f, CS_NODE_SWITCH, guid, ports, desc, &err);
    if (n == CS_NONE)
        fail_msg("add switch: %s", err.msg);
    return n;
}

static inline uint32_t fx_ca(struct cs_fabric *f, uint64_t guid, const char *desc)
{
    struct cs_error err = {{0}};
    uint32_t n = cs_fabric_add_node(f, CS_NODE_CA, guid, 1, desc, &err);
    if (n == CS_NONE)
        fail_msg("add CA: %s", err.msg);
    return n;
}

static inline void fx_link(struct cs_fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
    struct cs_error err = {{0}};
    if (cs_fabric_connect(f, cs_fabric_port(f, a, pa), cs_fabric_port(f, b, pb), &err) != 0)
        fail_msg("connect: %s", err.msg);
}

static inline void fx_lids(struct cs_fabric *f, unsigned lmc)
{
    struct cs_error err = {{0}};
    if (cs_lids_assign(f, lmc, &err) != 0)
        fail_msg("LIDs: %s", err.msg);
}

/* Base LID of a node's port. */
static inline uint32_t fx_lid(const struct cs_fabric *f, uint32_t node, unsigned port)
{
    return f->ports[cs_fabric_port(f, node, port)].lid;
}

/* Tables for every switch of f, all "no route" but each switch's own LID (port 0). */
static inline void fx_lfts(struct cs_lfts *t, const struct cs_fabric *f)
{
    struct cs_error err = {{0}};
    if (cs_lfts_for_fabric(t, f, &err) != 0)
        fail_msg("LFTs: %s", err.msg);
    for (uint32_t s = 0; s < t->num_switches; s++)
        cs_lfts_set(t, s, t->switches[s].lid, 0);
}

static inline void fx_set(struct cs_lfts *t, const struct cs_fabric *f, uint32_t switch_node,
                          uint32_t lid, uint8_t port)
{
    uint32_t s = cs_lfts_find(t, f->nodes[switch_node].guid);
    assert_true(s != CS_NONE);
    cs_lfts_set(t, s, lid, port);
}

/* Shortest paths to every LID: BFS over switch cables from the switch that owns the LID (or that
 * its CA is cabled to); among the equally short next hops a switch takes number lid % count, in
 * port order, so that routes spread like d-mod-k. On a fat tree every shortest path goes up then
 * down, so the result is free of credit loops. */
static inline void fx_fill_shortest(struct cs_lfts *t, const struct cs_fabric *f)
{
    uint32_t n = f->num_nodes;
    uint32_t *dist = malloc(n * sizeof *dist), *queue = malloc(n * sizeof *queue);
    uint32_t *table = malloc(n * sizeof *table);
    assert_non_null(dist);
    assert_non_null(queue);
    assert_non_null(table);
    for (uint32_t v = 0; v < n; v++)
        table[v] = cs_node_is_switch(&f->nodes[v]) ? cs_lfts_find(t, f->nodes[v].guid) : CS_NONE;
    for (uint32_t root = 0; root < n; root++) {
        if (!cs_node_is_switch(&f->nodes[root]))
            continue;
        for (uint32_t v = 0; v < n; v++)
            dist[v] = CS_NONE;
        uint32_t head = 0, tail = 0;
        dist[root] = 0;
        queue[tail++] = root;
        while (head < tail) {
            const struct cs_node *node = &f->nodes[queue[head]];
            uint32_t d = dist[queue[head++]];
            for (unsigned p = 1; p <= node->num_ports; p++) {
                uint32_t peer = f->ports[node->first_port + p].peer;
                if (peer == CS_NONE)
                    continue;
                uint32_t next = f->ports[peer].node;
                if (cs_node_is_switch(&f->nodes[next]) && dist[next] == CS_NONE) {
                    dist[next] = d + 1;
                    queue[tail++] = next;
                }
            }
        }
        /* Every LID this switch is the last switch for. */
        for (uint32_t i = 0; i < f->num_port_slots; i++) {
            const struct cs_port *q = &f->ports[i];
            if (!q->lid)
                continue;
            uint8_t last_port;
            if (q->node == root && q->num == 0)
                last_port = 0;
            else if (!cs_node_is_switch(&f->nodes[q->node]) && q->peer != CS_NONE &&
                     f->ports[q->peer].node == root)
                last_port = f->ports[q->peer].num;
            else
                continue;
            for (uint32_t lid = q->lid; lid < q->lid + (1u << q->lmc); lid++) {
                cs_lfts_set(t, table[root], lid, last_port);
                for (uint32_t v = 0; v < n; v++) {
                    if (table[v] == CS_NONE || v == root || dist[v] == CS_NONE)
                        continue;
                    const struct cs_node *node = &f->nodes[v];
                    unsigned count = 0, pick = 0;
                    for (int pass = 0; pass < 2; pass++) {
                        unsigned seen = 0;
                        for (unsigned p = 1; p <= node->num_ports; p++) {
                            uint32_t peer = f->ports[node->first_port + p].peer;
                            if (peer == CS_NONE || dist[f->ports[peer].node] != dist[v] - 1 ||
                                !cs_node_is_switch(&f->nodes[f->ports[peer].node]))
                                continue;
                            if (pass == 1 && seen == lid % count)
                                pick = p;
                            seen++;
                        }
                        count = seen;
                    }
                    cs_lfts_set(t, table[v], lid, (uint8_t)pick);
                }
            }
        }
    }
    free(dist);
    free(queue);
    free(table);
}

static inline void fx_generate(struct cs_fabric *f, const char *xgft)
{
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    if (cs_pgft_parse(&spec, xgft, false, &err) != 0)
        fail_msg("parse %s: %s", xgft, err.msg);
    cs_fabric_init(f);
    if (cs_pgft_generate(f, &spec, &err) != 0)
        fail_msg("generate %s: %s", xgft, err.msg);
}

static inline void fx_tracer(struct cs_tracer *tr, const struct cs_fabric *f,
                             const struct cs_lfts *t)
{
    struct cs_error err = {{0}};
    if (cs_tracer_init(tr, f, t, &err) != 0)
        fail_msg("tracer: %s", err.msg);
}

#endif
