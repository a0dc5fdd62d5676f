/* What engines keep between routings of one fabric (cs_route_inputs.state). */
#ifndef CLOUDSM_ROUTE_STATE_H
#define CLOUDSM_ROUTE_STATE_H

#include "cloudsm/route.h"

struct cs_metabase;

struct cs_route_state {
    int unused; /* the fat-tree machinery and the metabase are added here by their engines */
    /* mftree: the metabase of the last routing (src/route/metabase.h); reused while the fabric's
     * fingerprint stays the same, so a caller that routes again skips phase I. */
    struct cs_metabase *metabase;
};

#endif
