/* A multicast group's spanning tree into MFTs (include/cloudsm/mft.h, cs_mcast_tree): OpenSM
 * 3.3.23's root choice and branching (osm_mcast_mgr.c, osm_switch.c; facts only, the code is
 * ours) on min-hop distances between switches, over the min-hop machinery's switch graph
 * (hops.h). The distances to a member's switch are computed once (one BFS) and kept in the
 * router for the life of the fabric: a join rebuilds its group's tree without a BFS. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/mft.h"
#include "route/hops.h"

#define MAX_DEPTH 64 /* the IBA's hop limit; OpenSM stops a branch there */

struct cs_mcast_router {
    const struct cs_fabric *f;
    struct cs_hops_graph g;
    bool *capable;   /* [switch] may be on a tree (MulticastFDBCap > 0) */
    uint32_t **dist; /* [target switch] hops from every switch to it; NULL until needed */
    uint32_t *queue; /* BFS scratch */
    uint32_t *order; /* switches in OpenSM's order (byte-swapped node GUIDs) */
};

static uint64_t switch_key(const struct cs_mcast_router *r, uint32_t sw)
{
    return __builtin_bswap64(r->f->nodes[r->g.sw_node[sw]].guid);
}

static int by_key(const void *a, const void *b, void *arg)
{
    uint64_t x = switch_key(arg, *(const uint32_t *)a), y = switch_key(arg, *(const uint32_t *)b);
    return x < y ? -1 : x > y;
}

struct cs_mcast_router *cs_mcast_router_create(const struct cs_fabric *f,
                                               const bool *multicast_capable, struct cs_error *err)
{
    struct cs_mcast_router *r = calloc(1, sizeof *r);
    if (r == NULL) {
        cs_fail(err, "out of memory for the multicast trees");
        return NULL;
    }
    r->f = f;
    if (cs_hops_graph_build(&r->g, f, err) < 0) {
        free(r);
        return NULL;
    }
    uint32_t n = r->g.num_switches ? r->g.num_switches : 1;
    r->capable = calloc(n, sizeof *r->capable);
    r->dist = calloc(n, sizeof *r->dist);
    r->queue = malloc(n * sizeof *r->queue);
    r->order = malloc(n * sizeof *r->order);
    if (!r->capable || !r->dist || !r->queue || !r->order) {
        cs_mcast_router_destroy(r);
        cs_fail(err, "out of memory for the multicast trees");
        return NULL;
    }
    for (uint32_t s = 0; s < r->g.num_switches; s++) {
        r->capable[s] = multicast_capable == NULL || multicast_capable[r->g.sw_node[s]];
        r->order[s] = s;
    }
    qsort_r(r->order, r->g.num_switches, sizeof *r->order, by_key, r);
    return r;
}

void cs_mcast_router_destroy(struct cs_mcast_router *r)
{
    if (r == NULL)
        return;
    for (uint32_t s = 0; r->dist && s < r->g.num_switches; s++)
        free(r->dist[s]);
    free(r->dist);
    free(r->capable);
    free(r->queue);
    free(r->order);
    cs_hops_graph_free(&r->g);
    free(r);
}

/* Hops from every switch to switch `to`: one BFS the first time. */
static const uint32_t *distances(struct cs_mcast_router *r, uint32_t to)
{
    if (r->dist[to] == NULL) {
        uint32_t *d = malloc(r->g.num_switches * sizeof *d);
        if (d == NULL)
            return NULL;
        cs_hops_bfs(&r->g, to, d, r->queue);
        r->dist[to] = d;
    }
    return r->dist[to];
}

/* One tree in the making. */
struct tree {
    struct cs_mcast_router *r;
    struct cs_mfts *t;
    uint32_t mlid_index;
    const uint32_t *ports;        /* [member] its port index in the fabric */
    const uint32_t **target_dist; /* [member] distances to its switch; NULL: unreachable */
    uint32_t *target_sw;          /* [member] its switch, CS_NONE: none */
    uint16_t *port_of;            /* [member] the port it leaves the current switch by */
    uint32_t *scratch;            /* members, sorted by port */
    uint32_t reached;
};

static void set_port(struct tree *w, uint32_t node, unsigned port)
{
    uint32_t sw = cs_mfts_switch(w->t, node);
    if (sw == CS_NONE)
        return;
    cs_mfts_entry(w->t, sw, w->mlid_index)[port / CS_MFT_POSITION] |=
        (uint16_t)(1u << (port % CS_MFT_POSITION));
    int32_t block = (int32_t)(w->mlid_index / CS_MFT_BLOCK);
    if (block > w->t->switches[sw].last_block_used)
        w->t->switches[sw].last_block_used = block;
}

/* OpenSM's osm_switch_recommend_mcast_path with ignore_existing: the port of switch sw that member
 * m leaves by, or -1 when there is none. */
static int member_port(const struct tree *w, uint32_t sw, uint32_t m)
{
    const struct cs_fabric *f = w->r->f;
    const struct cs_hops_graph *g = &w->r->g;
    uint32_t node = g->sw_node[sw];
    const struct cs_port *mp = &f->ports[w->ports[m]];
    if (mp->node == node)
        return 0; /* the switch itself joined */
    if (w->target_sw[m] == sw)
        return f->ports[mp->peer].num; /* a CA on this switch */
    const uint32_t *dist = w->target_dist[m];
    if (dist == NULL || dist[sw] == CS_HOPS_UNREACHABLE)
        return -1;
    /* No load balancing: the first port on a shortest path (links are in port order), so that
     * two branches never reach one switch (a loop). */
    for (uint32_t l = g->first_link[sw]; l < g->first_link[sw + 1]; l++)
        if (dist[g->link_peer[l]] + 1 == dist[sw])
            return f->ports[g->link_port[l]].num;
    return -1;
}

/* Route members[0..count) from switch sw (OpenSM's mcast_mgr_branch). */
static void branch(struct tree *w, uint32_t sw, uint32_t *members, uint32_t count, unsigned depth,
                   unsigned upstream)
{
    const struct cs_fabric *f = w->r->f;
    if (++depth >= MAX_DEPTH || !w->r->capable[sw])
        return; /* OpenSM drops the members of this branch */
    uint32_t node = w->r->g.sw_node[sw];
    const struct cs_node *sn = &f->nodes[node];
    uint32_t per_port[256] = {0};
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; i++) {
        int p = member_port(w, sw, members[i]);
        if (p < 0 || (depth > 1 && (unsigned)p == upstream))
            continue;
        w->port_of[members[i]] = (uint16_t)p;
        per_port[p]++;
        members[kept++] = members[i];
    }
    if (depth > 1)
        set_port(w, node, upstream);
    /* Members grouped by port, in their order (a counting sort). */
    uint32_t start[257];
    start[0] = 0;
    for (unsigned p = 0; p <= sn->num_ports; p++)
        start[p + 1] = start[p] + per_port[p];
    uint32_t fill[256];
    memcpy(fill, start, sizeof fill);
    for (uint32_t i = 0; i < kept; i++)
        w->scratch[fill[w->port_of[members[i]]]++] = members[i];
    memcpy(members, w->scratch, kept * sizeof *members);
    for (unsigned p = 0; p <= sn->num_ports; p++) {
        if (per_port[p] == 0)
            continue;
        set_port(w, node, p);
        uint32_t peer = p == 0 ? CS_NONE : f->ports[sn->first_port + p].peer;
        uint32_t next = peer == CS_NONE ? CS_NONE : w->r->g.node_sw[f->ports[peer].node];
        if (next == CS_NONE)
            w->reached += per_port[p]; /* the switch itself, or a CA */
        else
            branch(w, next, members + start[p], per_port[p], depth, f->ports[peer].num);
    }
}

/* The switch a member hangs off: its own for a switch port 0, the one its cable leads to for a CA
 * port; CS_NONE if neither. */
static uint32_t member_switch(const struct cs_mcast_router *r, uint32_t port)
{
    const struct cs_fabric *f = r->f;
    const struct cs_port *p = &f->ports[port];
    uint32_t own = r->g.node_sw[p->node];
    if (own != CS_NONE)
        return own;
    return p->peer == CS_NONE ? CS_NONE : r->g.node_sw[f->ports[p->peer].node];
}

int cs_mcast_tree(struct cs_mcast_router *r, const uint32_t *members, uint32_t count,
                  uint32_t mlid_index, struct cs_mfts *t, uint32_t *root, struct cs_error *err)
{
    *root = CS_NONE;
    if (count < 2)
        return 0;
    uint32_t n = r->g.num_switches;
    struct tree w = {.r = r, .t = t, .mlid_index = mlid_index, .ports = members};
    w.target_dist = malloc(count * sizeof *w.target_dist);
    w.target_sw = malloc(count * sizeof *w.target_sw);
    w.port_of = malloc(count * sizeof *w.port_of);
    w.scratch = malloc(count * sizeof *w.scratch);
    uint32_t *list = malloc(count * sizeof *list);
    /* The distinct member switches, and whether only CAs hang there (one hop further). */
    uint32_t *targets = malloc((n ? n : 1) * sizeof *targets);
    uint8_t *target_kind = calloc(n ? n : 1, 1); /* 1: a CA member, 2: the switch joined */
    int rc = -1;
    if (!w.target_dist || !w.target_sw || !w.port_of || !w.scratch || !list || !targets ||
        !target_kind) {
        cs_fail(err, "out of memory for a multicast tree");
        goto out;
    }
    uint32_t num_targets = 0;
    for (uint32_t m = 0; m < count; m++) {
        uint32_t sw = member_switch(r, members[m]);
        w.target_sw[m] = sw;
        w.target_dist[m] = NULL;
        if (sw == CS_NONE)
            continue;
        if (target_kind[sw] == 0)
            targets[num_targets++] = sw;
        target_kind[sw] |= r->f->ports[members[m]].node == r->g.sw_node[sw] ? 2 : 1;
        if ((w.target_dist[m] = distances(r, sw)) == NULL) {
            cs_fail(err, "out of memory for a multicast tree");
            goto out;
        }
    }
    /* The root: the smallest largest distance to a member; the first in OpenSM's order on a
     * tie. */
    uint32_t best = CS_NONE, best_hops = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = r->order[i];
        if (!r->capable[s])
            continue;
        uint32_t hops = 0;
        for (uint32_t k = 0; k < num_targets && hops < best_hops; k++) {
            uint32_t d = r->dist[targets[k]][s];
            d = d == CS_HOPS_UNREACHABLE ? UINT16_MAX : d + (target_kind[targets[k]] & 2 ? 0 : 1);
            if (d > hops)
                hops = d;
        }
        if (hops < best_hops) {
            best = s;
            best_hops = hops;
        }
    }
    rc = 0;
    if (best == CS_NONE)
        goto out;
    *root = r->g.sw_node[best];
    for (uint32_t m = 0; m < count; m++)
        list[m] = m;
    branch(&w, best, list, count, 0, 0);
    rc = (int)w.reached;
out:
    free(w.target_dist);
    free(w.target_sw);
    free(w.port_of);
    free(w.scratch);
    free(list);
    free(targets);
    free(target_kind);
    return rc;
}
