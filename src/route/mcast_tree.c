/* A multicast group's spanning tree into MFTs (include/cloudsm/mft.h, cs_mcast_tree): OpenSM
 * 3.3.23's root choice and branching (osm_mcast_mgr.c, osm_switch.c; facts only, the code is
 * ours) on min-hop distances between switches. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/mft.h"

#define UNREACHED UINT16_MAX
#define MAX_DEPTH 64 /* the IBA's hop limit; OpenSM stops a branch there */

struct tree {
    const struct cs_fabric *f;
    const bool *capable;
    struct cs_mfts *t;
    uint32_t mlid_index;
    uint32_t num_targets;
    uint32_t *target_of;   /* [member] index of its switch among the targets, CS_NONE: none */
    uint16_t *dist;        /* [target * num_nodes + node] switch hops from node to the target */
    uint8_t *port_of;      /* [member] the port it leaves the current switch by */
    uint32_t *scratch;     /* members, sorted by port */
    const uint32_t *ports; /* [member] its port index in f */
    uint32_t reached;
};

static bool is_switch(const struct cs_fabric *f, uint32_t node)
{
    return cs_node_is_switch(&f->nodes[node]);
}

/* The switch a member hangs off: its own node for a switch port 0, the switch its cable leads to
 * for a CA port; CS_NONE if neither. */
static uint32_t member_switch(const struct cs_fabric *f, uint32_t port)
{
    const struct cs_port *p = &f->ports[port];
    if (is_switch(f, p->node))
        return p->node;
    if (p->peer == CS_NONE || !is_switch(f, f->ports[p->peer].node))
        return CS_NONE;
    return f->ports[p->peer].node;
}

/* Breadth-first hops from target to every switch, over switch-to-switch cables. */
static int bfs(const struct cs_fabric *f, uint32_t target, uint16_t *dist, uint32_t *queue)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        dist[n] = UNREACHED;
    uint32_t head = 0, tail = 0;
    dist[target] = 0;
    queue[tail++] = target;
    while (head < tail) {
        uint32_t n = queue[head++];
        const struct cs_node *node = &f->nodes[n];
        for (uint32_t p = 1; p <= node->num_ports; p++) {
            uint32_t peer = f->ports[node->first_port + p].peer;
            if (peer == CS_NONE)
                continue;
            uint32_t m = f->ports[peer].node;
            if (is_switch(f, m) && dist[m] == UNREACHED) {
                dist[m] = (uint16_t)(dist[n] + 1);
                queue[tail++] = m;
            }
        }
    }
    return 0;
}

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

/* OpenSM's osm_switch_recommend_mcast_path with ignore_existing: the port of switch `node` that
 * member m leaves by, or -1 when there is none. */
static int member_port(const struct tree *w, uint32_t node, uint32_t m)
{
    const struct cs_fabric *f = w->f;
    const struct cs_port *mp = &f->ports[w->ports[m]];
    if (mp->node == node)
        return 0; /* the switch itself joined */
    if (!is_switch(f, mp->node) && mp->peer != CS_NONE && f->ports[mp->peer].node == node)
        return f->ports[mp->peer].num;
    if (w->target_of[m] == CS_NONE)
        return -1;
    const uint16_t *dist = &w->dist[(size_t)w->target_of[m] * f->num_nodes];
    uint16_t least = dist[node];
    if (least == UNREACHED)
        return -1;
    const struct cs_node *sw = &f->nodes[node];
    /* No load balancing: the first port on a shortest path, so that two branches never reach
     * one switch (a loop). */
    for (uint32_t p = 1; p <= sw->num_ports; p++) {
        uint32_t peer = f->ports[sw->first_port + p].peer;
        if (peer == CS_NONE || !is_switch(f, f->ports[peer].node))
            continue;
        uint16_t d = dist[f->ports[peer].node];
        if (d != UNREACHED && d + 1 == least)
            return (int)p;
    }
    return -1;
}

/* Route members[0..count) from switch node (OpenSM's mcast_mgr_branch). */
static void branch(struct tree *w, uint32_t node, uint32_t *members, uint32_t count, unsigned depth,
                   unsigned upstream)
{
    const struct cs_fabric *f = w->f;
    if (++depth >= MAX_DEPTH || (w->capable && !w->capable[node]))
        return; /* OpenSM drops the members of this branch */
    const struct cs_node *sw = &f->nodes[node];
    uint32_t per_port[256] = {0};
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; i++) {
        int p = member_port(w, node, members[i]);
        w->port_of[members[i]] = (uint8_t)(p < 0 ? 0 : p);
        if (p < 0 || (depth > 1 && (unsigned)p == upstream))
            continue;
        per_port[p]++;
        members[kept++] = members[i];
    }
    if (depth > 1)
        set_port(w, node, upstream);
    /* Members grouped by port, in their order (a counting sort). */
    uint32_t start[257];
    start[0] = 0;
    for (unsigned p = 0; p <= sw->num_ports; p++)
        start[p + 1] = start[p] + per_port[p];
    uint32_t fill[256];
    memcpy(fill, start, sizeof fill);
    for (uint32_t i = 0; i < kept; i++)
        w->scratch[fill[w->port_of[members[i]]]++] = members[i];
    memcpy(members, w->scratch, kept * sizeof *members);
    for (unsigned p = 0; p <= sw->num_ports; p++) {
        if (per_port[p] == 0)
            continue;
        set_port(w, node, p);
        if (p == 0) {
            w->reached += per_port[p];
            continue;
        }
        uint32_t peer = f->ports[sw->first_port + p].peer;
        if (peer == CS_NONE)
            continue;
        if (is_switch(f, f->ports[peer].node))
            branch(w, f->ports[peer].node, members + start[p], per_port[p], depth,
                   f->ports[peer].num);
        else
            w->reached += per_port[p];
    }
}

/* OpenSM's order of its switch table: node GUIDs in network order read as host integers. */
static uint64_t switch_key(const struct cs_fabric *f, uint32_t node)
{
    return __builtin_bswap64(f->nodes[node].guid);
}

int cs_mcast_tree(const struct cs_fabric *f, const bool *multicast_capable, const uint32_t *members,
                  uint32_t count, uint32_t mlid_index, struct cs_mfts *t, uint32_t *root,
                  struct cs_error *err)
{
    *root = CS_NONE;
    if (count < 2)
        return 0;
    struct tree w = {
        .f = f, .capable = multicast_capable, .t = t, .mlid_index = mlid_index, .ports = members};
    uint32_t *targets = malloc(count * sizeof *targets);
    uint8_t *target_joined = calloc(count, 1);
    w.target_of = malloc(count * sizeof *w.target_of);
    w.port_of = malloc(count);
    w.scratch = malloc(count * sizeof *w.scratch);
    uint32_t *list = malloc(count * sizeof *list);
    uint32_t *queue = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof *queue);
    int rc = -1;
    if (!targets || !target_joined || !w.target_of || !w.port_of || !w.scratch || !list || !queue) {
        cs_fail(err, "out of memory for a multicast tree");
        goto out;
    }
    /* The distinct switches of the members. */
    for (uint32_t m = 0; m < count; m++) {
        uint32_t sw = member_switch(f, members[m]);
        w.target_of[m] = CS_NONE;
        if (sw == CS_NONE)
            continue;
        uint32_t k = 0;
        while (k < w.num_targets && targets[k] != sw)
            k++;
        if (k == w.num_targets)
            targets[w.num_targets++] = sw;
        w.target_of[m] = k;
        if (f->ports[members[m]].node == sw)
            target_joined[k] = 1;
    }
    w.dist = malloc(((size_t)w.num_targets * f->num_nodes + 1) * sizeof *w.dist);
    if (w.dist == NULL) {
        cs_fail(err, "out of memory for a multicast tree");
        goto out;
    }
    for (uint32_t k = 0; k < w.num_targets; k++)
        bfs(f, targets[k], &w.dist[(size_t)k * f->num_nodes], queue);
    /* The root: the smallest largest distance to a member (a switch that holds only CA members
     * is one hop short of them); the first in OpenSM's order on a tie. */
    uint32_t best = CS_NONE, best_hops = UINT32_MAX;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        if (!is_switch(f, n) || (multicast_capable && !multicast_capable[n]))
            continue;
        uint32_t hops = 0;
        for (uint32_t k = 0; k < w.num_targets; k++) {
            uint32_t d = w.dist[(size_t)k * f->num_nodes + n];
            d = d == UNREACHED ? UINT16_MAX : d + (target_joined[k] ? 0 : 1);
            if (d > hops)
                hops = d;
        }
        if (hops < best_hops || (hops == best_hops && switch_key(f, n) < switch_key(f, best))) {
            best = n;
            best_hops = hops;
        }
    }
    rc = 0;
    if (best == CS_NONE)
        goto out;
    *root = best;
    for (uint32_t m = 0; m < count; m++)
        list[m] = m;
    branch(&w, best, list, count, 0, 0);
    rc = (int)w.reached;
out:
    free(targets);
    free(target_joined);
    free(w.target_of);
    free(w.port_of);
    free(w.scratch);
    free(w.dist);
    free(list);
    free(queue);
    return rc;
}
