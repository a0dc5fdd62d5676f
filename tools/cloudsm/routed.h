/* A topology with its LFTs, LIDs and a tracer over them: what `lft check` and `analyze` load. */
#ifndef CLOUDSM_CLI_ROUTED_H
#define CLOUDSM_CLI_ROUTED_H

#include "cloudsm/analyze.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"

struct routed_fabric {
    struct cs_fabric fabric;
    struct cs_lfts lfts;
    struct cs_tracer tracer; /* points into fabric and lfts: do not copy the struct */
    const char *lid_source;  /* "guid2lid", "topology" or "lfts" */
};

/* LIDs come from guid2lid if given, else from the topology if it has any, else from the LFT
 * dump's comments (the port GUID behind each LID). */
int routed_fabric_load(struct routed_fabric *r, const char *topology, const char *lfts,
                       const char *guid2lid, struct cs_error *err);
void routed_fabric_free(struct routed_fabric *r);

#endif
