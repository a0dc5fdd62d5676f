/* What engines keep between routings of one fabric (cs_route_inputs.state). */
#ifndef CLOUDSM_ROUTE_STATE_H
#define CLOUDSM_ROUTE_STATE_H

#include "cloudsm/route.h"

struct cs_route_state {
    int unused; /* the fat-tree machinery and the metabase are added here by their engines */
};

#endif
