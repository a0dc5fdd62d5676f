/* Min-hop machinery shared by minhop and updn: see hops.h. */
#include "route/hops.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/lid.h"
#include "core/grow.h"
#include "route/osm_order.h"

static bool is_switch_node(const struct cs_fabric *f, uint32_t node)
{
    return cs_node_is_switch(&f->nodes[node]);
}

/* The switch an external port of a switch leads to, or CS_NONE (unconnected, end port, or a
 * cable back to the same switch). */
static uint32_t peer_switch(const struct cs_hops_graph *g, uint32_t port)
{
    const struct cs_fabric *f = g->fabric;
    uint32_t peer = f->ports[port].peer;
    if (peer == CS_NONE)
        return CS_NONE;
    uint32_t node = f->ports[peer].node;
    if (node == f->ports[port].node)
        return CS_NONE;
    return g->node_sw[node];
}

/* The end port an external port of a switch leads to, or CS_NONE. */
static uint32_t peer_end_port(const struct cs_fabric *f, uint32_t port)
{
    uint32_t peer = f->ports[port].peer;
    if (peer == CS_NONE || is_switch_node(f, f->ports[peer].node))
        return CS_NONE;
    return peer;
}

struct group_key {
    uint32_t end_ports;
    uint32_t sw;
    uint64_t swapped_guid;
};

static int compare_groups(const void *a, const void *b)
{
    const struct group_key *x = a, *y = b;
    if (x->end_ports != y->end_ports)
        return x->end_ports > y->end_ports ? -1 : 1;
    if (x->swapped_guid != y->swapped_guid)
        return x->swapped_guid < y->swapped_guid ? -1 : 1;
    return x->sw < y->sw ? -1 : x->sw > y->sw;
}

static int build_switches(struct cs_hops_graph *g, struct cs_error *err)
{
    const struct cs_fabric *f = g->fabric;
    g->node_sw = cs_calloc_array(f->num_nodes, sizeof *g->node_sw, err);
    if (!g->node_sw)
        return -1;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        g->node_sw[n] = is_switch_node(f, n) ? g->num_switches : CS_NONE;
        g->num_switches += is_switch_node(f, n);
    }
    g->sw_node = cs_calloc_array(g->num_switches, sizeof *g->sw_node, err);
    if (!g->sw_node)
        return -1;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (g->node_sw[n] != CS_NONE)
            g->sw_node[g->node_sw[n]] = n;
    return 0;
}

static int build_links(struct cs_hops_graph *g, struct cs_error *err)
{
    const struct cs_fabric *f = g->fabric;
    g->first_link = cs_calloc_array(g->num_switches + 1, sizeof *g->first_link, err);
    if (!g->first_link)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t count = 0;
        for (uint32_t s = 0; s < g->num_switches; s++) {
            const struct cs_node *node = &f->nodes[g->sw_node[s]];
            g->first_link[s] = count;
            for (unsigned p = 1; p <= node->num_ports; p++) {
                uint32_t port = node->first_port + p;
                uint32_t peer = peer_switch(g, port);
                if (peer == CS_NONE)
                    continue;
                if (pass == 1) {
                    g->link_peer[count] = peer;
                    g->link_port[count] = port;
                }
                count++;
            }
        }
        g->first_link[g->num_switches] = count;
        if (pass == 0) {
            g->num_links = count;
            g->link_peer = cs_calloc_array(count, sizeof *g->link_peer, err);
            g->link_port = cs_calloc_array(count, sizeof *g->link_port, err);
            if (!g->link_peer || !g->link_port)
                return -1;
        }
    }
    return 0;
}

static int build_targets(struct cs_hops_graph *g, struct cs_error *err)
{
    const struct cs_fabric *f = g->fabric;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid)
            continue;
        if (p->lmc > 7) /* PortInfo:LMC is 3 bits */
            return cs_fail(err, "port 0x%016llx has LMC %u (at most 7)",
                           (unsigned long long)p->guid, p->lmc);
        if (p->lmc > g->max_lmc)
            g->max_lmc = p->lmc;
    }

    struct group_key *keys = cs_calloc_array(g->num_switches, sizeof *keys, err);
    if (!keys)
        return -1;
    uint32_t num_keys = 0, targets = 0;
    for (uint32_t s = 0; s < g->num_switches; s++) {
        const struct cs_node *node = &f->nodes[g->sw_node[s]];
        uint32_t end_ports = 0, with_lid = 0;
        for (unsigned p = 1; p <= node->num_ports; p++) {
            uint32_t end = peer_end_port(f, node->first_port + p);
            end_ports += end != CS_NONE;
            with_lid += end != CS_NONE && f->ports[end].lid != 0;
        }
        /* OpenSM sorts by cabled end ports; one without a LID is skipped when routed. */
        if (with_lid) {
            keys[num_keys++] = (struct group_key){end_ports, s, cs_osm_map_key(node->guid)};
            targets += with_lid;
        }
    }
    qsort(keys, num_keys, sizeof *keys, compare_groups);

    g->num_groups = num_keys;
    g->num_targets = targets;
    g->group_first = cs_calloc_array(num_keys + 1, sizeof *g->group_first, err);
    g->group_switch = cs_calloc_array(num_keys, sizeof *g->group_switch, err);
    g->target_port = cs_calloc_array(targets, sizeof *g->target_port, err);
    if (!g->group_first || !g->group_switch || !g->target_port) {
        free(keys);
        return -1;
    }
    uint32_t t = 0;
    for (uint32_t k = 0; k < num_keys; k++) {
        const struct cs_node *node = &f->nodes[g->sw_node[keys[k].sw]];
        g->group_first[k] = t;
        g->group_switch[k] = keys[k].sw;
        for (unsigned p = 1; p <= node->num_ports; p++) {
            uint32_t end = peer_end_port(f, node->first_port + p);
            if (end != CS_NONE && f->ports[end].lid)
                g->target_port[t++] = end;
        }
    }
    g->group_first[num_keys] = t;
    free(keys);
    return 0;
}

int cs_hops_graph_build(struct cs_hops_graph *g, const struct cs_fabric *f, struct cs_error *err)
{
    memset(g, 0, sizeof *g);
    g->fabric = f;
    if (build_switches(g, err) < 0 || build_links(g, err) < 0 || build_targets(g, err) < 0) {
        cs_hops_graph_free(g);
        return -1;
    }
    return 0;
}

void cs_hops_graph_free(struct cs_hops_graph *g)
{
    free(g->sw_node);
    free(g->node_sw);
    free(g->first_link);
    free(g->link_peer);
    free(g->link_port);
    free(g->group_first);
    free(g->group_switch);
    free(g->target_port);
    memset(g, 0, sizeof *g);
}

void cs_hops_bfs(const struct cs_hops_graph *g, uint32_t dest, uint32_t *dist, uint32_t *queue)
{
    const uint32_t *first = g->first_link, *peer = g->link_peer;
    for (uint32_t s = 0; s < g->num_switches; s++)
        dist[s] = CS_HOPS_UNREACHABLE;
    uint32_t head = 0, tail = 0;
    dist[dest] = 0;
    queue[tail++] = dest;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t l = first[u]; l < first[u + 1]; l++) {
            uint32_t v = peer[l];
            if (dist[v] == CS_HOPS_UNREACHABLE) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
}

void cs_hops_mark_shortest(const struct cs_hops_graph *g, const uint32_t *dist, uint8_t *next)
{
    /* Locals, not g->...: next[] is a byte array and could alias the graph. */
    const uint32_t *first = g->first_link, *peer = g->link_peer;
    for (uint32_t s = 0; s < g->num_switches; s++) {
        uint32_t d = dist[s];
        for (uint32_t l = first[s]; l < first[s + 1]; l++) {
            uint32_t p = dist[peer[l]];
            next[l] = d != CS_HOPS_UNREACHABLE && p != CS_HOPS_UNREACHABLE && p + 1 == d;
        }
    }
}

/* The links of s that next[] marks, in port order. Returns how many. */
static unsigned candidates(const struct cs_hops_graph *g, uint32_t s, const uint8_t *next,
                           uint32_t *cand)
{
    unsigned n = 0;
    for (uint32_t l = g->first_link[s], end = g->first_link[s + 1]; l < end; l++)
        if (next[l])
            cand[n++] = l;
    return n;
}

/* osm_switch_recommend_path for LMC 0: the fewest routes so far, the lowest port on a tie (the
 * links are in port order, so the first minimum). */
static uint32_t least_used(const uint32_t *cand, unsigned n, const uint32_t *routes)
{
    uint32_t best = cand[0];
    for (unsigned i = 1; i < n; i++)
        if (routes[cand[i]] < routes[best])
            best = cand[i];
    return best;
}

static uint8_t port_number(const struct cs_hops_graph *g, uint32_t link)
{
    return g->fabric->ports[g->link_port[link]].num;
}

static bool lfts_match(const struct cs_hops_graph *g, const struct cs_lfts *lfts,
                       struct cs_error *err)
{
    if (lfts->num_switches != g->num_switches) {
        cs_fail(err, "routing: %u tables for %u switches", lfts->num_switches, g->num_switches);
        return false;
    }
    for (uint32_t s = 0; s < g->num_switches; s++)
        if (lfts->switches[s].node != g->sw_node[s]) {
            cs_fail(err, "routing: table %u is not for switch 0x%016llx", s,
                    (unsigned long long)g->fabric->nodes[g->sw_node[s]].guid);
            return false;
        }
    uint16_t max_lid = cs_fabric_max_lid(g->fabric);
    if (max_lid >= lfts->capacity) {
        cs_fail(err, "routing: LID %u beyond the tables' %u entries", max_lid, lfts->capacity);
        return false;
    }
    return true;
}

/* Routes to the end ports of group k at LID offset `offset`, on every switch; counted.
 *
 * Taking, target after target, the least used candidate (lowest port on a tie) fills the
 * candidates level by level: every candidate at the lowest count, in port order, then every
 * one at the next count, and so on. Doing it a level at a time costs one scan of the candidates
 * per level instead of one per target, and on a balanced fabric there is only one level. */
static void route_group(const struct cs_hops_graph *g, uint32_t k, unsigned offset,
                        const uint8_t *next, uint32_t *routes, uint32_t *cand, struct cs_lfts *lfts)
{
    const struct cs_fabric *f = g->fabric;
    uint32_t dest = g->group_switch[k], first = g->group_first[k], end = g->group_first[k + 1];
    for (uint32_t s = 0; s < g->num_switches; s++) {
        if (s == dest) {
            for (uint32_t t = first; t < end; t++) {
                const struct cs_port *p = &f->ports[g->target_port[t]];
                if (offset < (1u << p->lmc))
                    cs_lfts_set(lfts, s, p->lid + offset, f->ports[p->peer].num);
            }
            continue;
        }
        unsigned n = candidates(g, s, next, cand);
        if (n == 0)
            continue;
        uint32_t t = first;
        while (t < end) {
            uint32_t level = routes[cand[0]];
            for (unsigned i = 1; i < n; i++)
                if (routes[cand[i]] < level)
                    level = routes[cand[i]];
            for (unsigned i = 0; i < n && t < end; i++) {
                if (routes[cand[i]] != level)
                    continue;
                /* The next target that has a LID at this offset. */
                while (t < end && offset >= (1u << f->ports[g->target_port[t]].lmc))
                    t++;
                if (t == end)
                    break;
                cs_lfts_set(lfts, s, f->ports[g->target_port[t]].lid + offset,
                            port_number(g, cand[i]));
                routes[cand[i]]++;
                t++;
            }
        }
    }
}

/* Routes to switch dest's own LIDs, from the final counters; not counted. */
static void route_switch_lids(const struct cs_hops_graph *g, uint32_t dest, const uint8_t *next,
                              const uint32_t *routes, uint32_t *cand, struct cs_lfts *lfts)
{
    const struct cs_port *mgmt = &g->fabric->ports[g->fabric->nodes[g->sw_node[dest]].first_port];
    for (uint32_t s = 0; s < g->num_switches; s++) {
        unsigned n = s == dest ? 0 : candidates(g, s, next, cand);
        if (s != dest && n == 0)
            continue;
        uint8_t port = s == dest ? 0 : port_number(g, least_used(cand, n, routes));
        for (uint32_t i = 0; i < (1u << mgmt->lmc); i++)
            cs_lfts_set(lfts, s, mgmt->lid + i, port);
    }
}

int cs_hops_route(const struct cs_hops_graph *g, cs_hops_next_fn next_fn, void *ctx,
                  struct cs_lfts *lfts, struct cs_error *err)
{
    if (!lfts_match(g, lfts, err))
        return -1;
    const struct cs_fabric *f = g->fabric;
    uint32_t *routes = cs_calloc_array(g->num_links, sizeof *routes, err);
    uint8_t *next = cs_calloc_array(g->num_links, sizeof *next, err);
    uint32_t cand[CS_MAX_PORTS + 1];
    int rc = -1;
    if (!routes || !next)
        goto out;

    for (unsigned offset = 0; offset < (1u << g->max_lmc); offset++)
        for (uint32_t k = 0; k < g->num_groups; k++) {
            bool any = false;
            for (uint32_t t = g->group_first[k]; t < g->group_first[k + 1] && !any; t++)
                any = offset < (1u << f->ports[g->target_port[t]].lmc);
            if (!any)
                continue;
            if (next_fn(ctx, g->group_switch[k], next, err) < 0)
                goto out;
            route_group(g, k, offset, next, routes, cand, lfts);
        }
    for (uint32_t d = 0; d < g->num_switches; d++) {
        if (!f->ports[f->nodes[g->sw_node[d]].first_port].lid)
            continue;
        if (next_fn(ctx, d, next, err) < 0)
            goto out;
        route_switch_lids(g, d, next, routes, cand, lfts);
    }
    rc = 0;
out:
    free(routes);
    free(next);
    return rc;
}
