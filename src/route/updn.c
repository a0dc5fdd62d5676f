/* updn: up*\/down* routing (OpenSM's osm_ucast_updn.c), on the min-hop machinery of hops.h.
 *
 * Switches are ranked by their distance from the root switches. A move from switch y to a
 * neighbour x goes "up" when x is nearer the roots (lower rank), or, at equal rank, when x has
 * the smaller node GUID; otherwise it goes "down". That is a total order, so up moves alone,
 * and down moves alone, can never come back to where they started; a route that never goes up
 * after going down therefore cannot close a cycle of channel dependencies: no credit loops.
 * (One exception, kept from OpenSM: a move between two roots counts as down both ways, so roots
 * cabled to each other in a ring of four or more could close a loop among themselves.)
 *
 * Per destination switch D, one BFS from D backwards along legal moves, as OpenSM does: each
 * switch is first met either by a down move (it is then "goes_down": it reaches D going down
 * only, and routes may come down into it) or by an up move (routes may not come down into it).
 * A switch's candidate ports are its shortest legal hops, except that a goes_down switch that
 * some route comes down into takes only its down hops: a packet that has gone down keeps going
 * down.
 *
 * That exception is where we differ from OpenSM 3.3.23, by design: OpenSM offers such a switch
 * its equally short up hops too, and when a switch's BFS entry is revisited it overwrites the
 * way the switch was met; either can make a route turn up after going down (seen on random
 * graphs, tests/data/updn-turn.net). On fat-trees neither happens and the tables are the same.
 * docs/routing/minhop-updn.md has the details.
 *
 * Roots come from opt->root_guids (node GUIDs) or, as OpenSM does, from the hop histogram: a
 * switch is a root when, weighting each switch by the end ports cabled to it, more than 90% of
 * all end ports sit at one hop distance from it and no other distance holds more than 5%.
 */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "cloudsm/route.h"
#include "route/hops.h"

/* IB_SUBNET_PATH_HOPS_MAX: OpenSM's histogram ignores longer distances. */
#define HOP_HISTOGRAM_SIZE 64

struct updn {
    const struct cs_hops_graph *graph;
    uint32_t *rank;     /* distance from the nearest root, UINT32_MAX if no root reaches it */
    uint8_t *link_dir;  /* per link: LINK_UP, LINK_BACK_UP (fixed once ranks are known) */
    uint32_t *dist;     /* per destination: hops to it */
    uint8_t *goes_down; /* per destination: GOES_DOWN, ENTERED_FROM_ABOVE */
    uint32_t *queue;
    /* OpenSM's connect_roots: routes to a root's LIDs use plain shortest paths. */
    bool roots_by_min_hop;
};

/* link_dir flags */
#define LINK_UP 1      /* the move along the link goes up */
#define LINK_BACK_UP 2 /* the move back along it goes up */

/* goes_down flags */
#define GOES_DOWN 1          /* first met by a down move: reaches dest going down only */
#define ENTERED_FROM_ABOVE 2 /* some switch routes down into it */

static uint64_t switch_guid(const struct cs_hops_graph *g, uint32_t s)
{
    return g->fabric->nodes[g->sw_node[s]].guid;
}

/* Does the move from switch x to its neighbour y go up? OpenSM's updn_get_dir, seen from the
 * packet: a cable between two roots counts as down both ways (OpenSM's "root nodes connection"
 * rule: roots are normally not cabled to each other, and when they are, this lets each root
 * reach the others). */
static bool moves_up(const struct updn *u, uint32_t x, uint32_t y)
{
    uint32_t rx = u->rank[x], ry = u->rank[y];
    if (rx == 0 && ry == 0)
        return false;
    if (rx != ry)
        return ry < rx;
    return switch_guid(u->graph, y) < switch_guid(u->graph, x);
}

static void classify_links(struct updn *u)
{
    const struct cs_hops_graph *g = u->graph;
    for (uint32_t x = 0; x < g->num_switches; x++)
        for (uint32_t l = g->first_link[x]; l < g->first_link[x + 1]; l++) {
            uint32_t y = g->link_peer[l];
            u->link_dir[l] =
                (moves_up(u, x, y) ? LINK_UP : 0) | (moves_up(u, y, x) ? LINK_BACK_UP : 0);
        }
}

/* One BFS from dest, backwards along legal moves, as OpenSM's updn_bfs_by_node does: switches
 * are met in distance order (ties in queue order, links in port order), and the move by which a
 * switch is first met decides whether routes may come down into it. A route may hop from y to x
 * (x nearer dest) when that goes up, or when x itself only goes down from there. */
static int updn_next(void *ctx, uint32_t dest, uint8_t *next, struct cs_error *err)
{
    (void)err;
    struct updn *u = ctx;
    const struct cs_hops_graph *g = u->graph;
    if (u->roots_by_min_hop && u->rank[dest] == 0) {
        cs_hops_bfs(g, dest, u->dist, u->queue);
        cs_hops_mark_shortest(g, u->dist, next);
        return 0;
    }
    /* Locals, not u->...: next[] is a byte array and could alias the structures. */
    const uint32_t *first = g->first_link, *peer = g->link_peer;
    const uint8_t *dir = u->link_dir;
    uint32_t *dist = u->dist, *queue = u->queue;
    uint8_t *down = u->goes_down;
    for (uint32_t s = 0; s < g->num_switches; s++)
        dist[s] = CS_HOPS_UNREACHABLE;
    memset(down, 0, g->num_switches);
    uint32_t head = 0, tail = 0;
    dist[dest] = 0;
    down[dest] = GOES_DOWN;
    queue[tail++] = dest;
    while (head < tail) {
        uint32_t x = queue[head++];
        for (uint32_t l = first[x]; l < first[x + 1]; l++) {
            uint32_t y = peer[l];
            bool y_goes_up = dir[l] & LINK_BACK_UP;
            if (dist[y] == CS_HOPS_UNREACHABLE && (y_goes_up || (down[x] & GOES_DOWN))) {
                dist[y] = dist[x] + 1;
                down[y] = y_goes_up ? 0 : GOES_DOWN;
                queue[tail++] = y;
            }
        }
    }
    for (uint32_t y = 0; y < g->num_switches; y++) {
        uint32_t d = dist[y];
        bool y_down = down[y] & GOES_DOWN;
        for (uint32_t l = first[y]; l < first[y + 1]; l++) {
            uint32_t x = peer[l];
            bool up = dir[l] & LINK_UP;
            bool hop = dist[x] != CS_HOPS_UNREACHABLE && dist[x] + 1 == d &&
                       (up ? !y_down : (down[x] & GOES_DOWN));
            next[l] = hop;
            if (hop && !up)
                down[x] |= ENTERED_FROM_ABOVE;
        }
    }

    /* A goes_down switch that no route enters from above only carries packets that came up to
     * it (or start there), so it may also go up, by an equally short hop. OpenSM offers those
     * hops too, entered from above or not; taking them only here keeps its choice (by the route
     * counters) wherever that choice is safe. */
    for (uint32_t y = 0; y < g->num_switches; y++) {
        if (down[y] != GOES_DOWN || y == dest)
            continue;
        for (uint32_t l = first[y]; l < first[y + 1]; l++)
            if ((dir[l] & LINK_UP) && dist[peer[l]] != CS_HOPS_UNREACHABLE &&
                dist[peer[l]] + 1 == dist[y])
                next[l] = 1;
    }
    return 0;
}

/* Roots named by node GUID; GUIDs that are not switches of this fabric are skipped, as OpenSM
 * skips them. Returns the number of roots, or -1. */
static int roots_from_list(struct updn *u, const struct cs_guid_list *list, struct cs_error *err)
{
    const struct cs_hops_graph *g = u->graph;
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    if (cs_key_index_nodes(&ix, g->fabric, err) < 0) {
        cs_key_index_free(&ix);
        return -1;
    }
    int roots = 0;
    for (uint32_t i = 0; i < list->count; i++) {
        uint32_t node = cs_key_index_find(&ix, list->guids[i]);
        if (node == CS_NONE || g->node_sw[node] == CS_NONE || u->rank[g->node_sw[node]] == 0)
            continue;
        u->rank[g->node_sw[node]] = 0;
        roots++;
    }
    cs_key_index_free(&ix);
    return roots;
}

/* OpenSM's updn_find_root_nodes_by_min_hop. */
static int roots_by_histogram(struct updn *u, struct cs_error *err)
{
    const struct cs_hops_graph *g = u->graph;
    uint32_t *hist = calloc((size_t)g->num_switches * HOP_HISTOGRAM_SIZE + 1, sizeof *hist);
    if (!hist)
        return cs_fail(err, "updn: out of memory");
    for (uint32_t k = 0; k < g->num_groups; k++) {
        uint32_t end_ports = g->group_first[k + 1] - g->group_first[k];
        cs_hops_bfs(g, g->group_switch[k], u->dist, u->queue);
        for (uint32_t s = 0; s < g->num_switches; s++)
            if (u->dist[s] < HOP_HISTOGRAM_SIZE)
                hist[(size_t)s * HOP_HISTOGRAM_SIZE + u->dist[s]] += end_ports;
    }
    /* OpenSM's thresholds, computed in double as there. */
    double most = g->num_targets * 0.9, some = g->num_targets * 0.05;
    int roots = 0;
    for (uint32_t s = 0; s < g->num_switches; s++) {
        unsigned over_most = 0, over_some = 0;
        for (unsigned h = 0; h < HOP_HISTOGRAM_SIZE; h++) {
            double bar = hist[(size_t)s * HOP_HISTOGRAM_SIZE + h];
            over_most += bar > most;
            over_some += bar > some;
        }
        if (over_most == 1 && over_some == 1) {
            u->rank[s] = 0;
            roots++;
        }
    }
    free(hist);
    return roots;
}

/* Ranks: BFS from all roots at once. */
static void rank_switches(struct updn *u)
{
    const struct cs_hops_graph *g = u->graph;
    uint32_t head = 0, tail = 0;
    for (uint32_t s = 0; s < g->num_switches; s++)
        if (u->rank[s] == 0)
            u->queue[tail++] = s;
    while (head < tail) {
        uint32_t x = u->queue[head++];
        for (uint32_t l = g->first_link[x]; l < g->first_link[x + 1]; l++) {
            uint32_t y = g->link_peer[l];
            if (u->rank[y] == UINT32_MAX) {
                u->rank[y] = u->rank[x] + 1;
                u->queue[tail++] = y;
            }
        }
    }
}

int cs_route_updn(const struct cs_fabric *f, const struct cs_route_options *opt,
                  const struct cs_route_inputs *in, struct cs_lfts *lfts,
                  struct cs_route_result *res, struct cs_error *err)
{
    (void)in; /* minhop and updn read no inputs and report nothing beyond the tables */
    (void)res;
    struct cs_hops_graph g;
    if (cs_hops_graph_build(&g, f, err) < 0)
        return -1;
    size_t n = (size_t)g.num_switches + 1;
    struct updn u = {
        .graph = &g,
        .rank = malloc(n * sizeof *u.rank),
        .link_dir = malloc((size_t)g.num_links + 1),
        .dist = malloc(n * sizeof *u.dist),
        .goes_down = malloc(n),
        .queue = malloc(n * sizeof *u.queue),
    };
    int rc = -1;
    if (!u.rank || !u.link_dir || !u.dist || !u.goes_down || !u.queue) {
        cs_fail(err, "updn: out of memory");
        goto out;
    }
    for (uint32_t s = 0; s < g.num_switches; s++)
        u.rank[s] = UINT32_MAX;

    bool from_list = opt && opt->root_guids;
    int roots = from_list ? roots_from_list(&u, opt->root_guids, err) : roots_by_histogram(&u, err);
    if (roots < 0)
        goto out;
    if (roots == 0) {
        cs_fail(err,
                from_list ? "updn: none of the %u root GUIDs is a switch of this fabric"
                          : "updn: no root switches found by the hop histogram (%u end ports): "
                            "give them with --root-guids",
                from_list ? opt->root_guids->count : g.num_targets);
        rc = CS_ROUTE_UNSUITABLE;
        goto out;
    }
    /* OpenSM keeps plain min-hop routes to the roots' LIDs under connect_roots, except with a
     * single root named in a file, where it never computes them. */
    u.roots_by_min_hop = opt && opt->connect_roots && (!from_list || roots > 1);
    rank_switches(&u);
    classify_links(&u);
    rc = cs_hops_route(&g, updn_next, &u, lfts, err);
out:
    free(u.rank);
    free(u.link_dir);
    free(u.dist);
    free(u.goes_down);
    free(u.queue);
    cs_hops_graph_free(&g);
    return rc;
}
