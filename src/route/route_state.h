/* What engines keep between routings of one fabric (cs_route_inputs.state). */
#ifndef CLOUDSM_ROUTE_STATE_H
#define CLOUDSM_ROUTE_STATE_H

#include "cloudsm/route.h"

struct cs_ft_kept;
struct cs_metabase;

struct cs_route_state {
    /* The fat-tree machinery as cs_ft_run built it (ft_passes.c): reset, not rebuilt, while the
     * fabric stays the same. NULL until a fat-tree engine routes. */
    struct cs_ft_kept *fattree;
    /* mftree: the metabase of the last routing (src/route/metabase.h); reused while the fabric's
     * fingerprint stays the same, so a caller that routes again skips phase I. */
    struct cs_metabase *metabase;
};

#endif
