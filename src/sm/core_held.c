/* The routes the switches hold (src/sm/core_internal.h): kept where they still lead where they
 * should, for live VM routes across sweeps and for a restart on the tables the SM left. */
#include <stdlib.h>

#include "cloudsm/analyze.h"
#include "core/grow.h"
#include "sm/core_internal.h"

/* Whether every switch's block holding lid is known. */
static bool held_blocks_known(const struct cs_sm_core *c, uint32_t lid)
{
    uint32_t block = lid / CS_LFT_BLOCK;
    if (lid >= c->held.capacity || lid >= c->lfts.capacity)
        return false;
    for (uint32_t sw = 0; sw < c->held.num_switches; sw++)
        if (cs_lfts_block_dirty(&c->held, sw, block))
            return false;
    return true;
}

int cs_sm_core_read_held(struct cs_sm_core *c, struct cs_sm_lft_counts *reads, struct cs_error *err)
{
    struct cs_sm_lft_counts lc;
    if (cs_sm_read_lfts(c->pipe, &c->sweep, &c->held, &c->log, &lc, err) < 0)
        return -1;
    reads->blocks_read += lc.blocks_read;
    reads->failures += lc.failures;
    return 0;
}

int cs_sm_core_keep_held_routes(struct cs_sm_core *c, const uint16_t *lids, uint32_t count,
                                bool *kept, struct cs_error *err)
{
    /* The held route to a LID against the one routing wants: kept when it delivers from every
     * switch the wanted one delivers from (a fat-tree engine leaves some switch-to-switch pairs
     * unrouted: the held route may too). */
    struct cs_tracer held, want;
    struct cs_dest_routes held_routes, want_routes;
    int rc = 0;
    if (cs_tracer_init(&held, &c->sweep.fabric, &c->held, err) < 0)
        return -1;
    if (cs_tracer_init(&want, &c->sweep.fabric, &c->lfts, err) < 0) {
        cs_tracer_free(&held);
        return -1;
    }
    if (cs_dest_routes_init(&held_routes, &held, err) < 0)
        rc = -1;
    else if (cs_dest_routes_init(&want_routes, &want, err) < 0) {
        cs_dest_routes_free(&held_routes);
        rc = -1;
    }
    int n = 0;
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        uint16_t lid = lids[i];
        bool keep = held_blocks_known(c, lid);
        if (keep && cs_tracer_owner(&held, lid) != CS_NONE) {
            cs_dest_routes_compute(&held_routes, &held, lid);
            cs_dest_routes_compute(&want_routes, &want, lid);
            for (uint32_t sw = 0; keep && sw < held.num_switches; sw++)
                keep = want_routes.outcome[sw] != CS_TRACE_DELIVERED ||
                       held_routes.outcome[sw] == CS_TRACE_DELIVERED;
        }
        if (keep) {
            for (uint32_t sw = 0; sw < c->lfts.num_switches; sw++)
                cs_lfts_set(&c->lfts, sw, lid, cs_lfts_get(&c->held, sw, lid));
            n++;
        }
        if (kept)
            kept[i] = keep;
    }
    if (rc == 0) {
        cs_dest_routes_free(&held_routes);
        cs_dest_routes_free(&want_routes);
    }
    cs_tracer_free(&held);
    cs_tracer_free(&want);
    return rc < 0 ? -1 : n;
}
