/* minhop: OpenSM's default engine. Every switch sends each LID out of one of its shortest-path
 * ports, the one that carries the fewest routes so far (hops.h has the machinery and OpenSM's
 * order and tie-breaks; docs/routing/minhop-updn.md what is and is not reproduced). */
#include <stdlib.h>

#include "cloudsm/route.h"
#include "route/hops.h"

struct minhop {
    const struct cs_hops_graph *graph;
    uint32_t *dist;
    uint32_t *queue;
};

static int minhop_next(void *ctx, uint32_t dest, uint8_t *next, struct cs_error *err)
{
    (void)err;
    struct minhop *m = ctx;
    cs_hops_bfs(m->graph, dest, m->dist, m->queue);
    cs_hops_mark_shortest(m->graph, m->dist, next);
    return 0;
}

int cs_route_minhop(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err)
{
    (void)in; /* minhop and updn read no inputs and report nothing beyond the tables */
    (void)res;
    (void)opt; /* roots, compute nodes and connect_roots do not apply to minhop */
    struct cs_hops_graph g;
    if (cs_hops_graph_build(&g, f, err) < 0)
        return -1;
    struct minhop m = {&g, calloc(g.num_switches + 1, sizeof *m.dist),
                       calloc(g.num_switches + 1, sizeof *m.queue)};
    int rc;
    if (!m.dist || !m.queue)
        rc = cs_fail(err, "minhop: out of memory");
    else
        rc = cs_hops_route(&g, minhop_next, &m, lfts, err);
    free(m.dist);
    free(m.queue);
    cs_hops_graph_free(&g);
    return rc;
}
