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

/* Give f's ports the LIDs of an OpenSM guid2lid file (by port GUID). */
int apply_guid2lid_file(struct cs_fabric *f, const char *path, struct cs_error *err);

/* Read a topology into an initialised fabric and give every port that needs a LID one: the
 * topology's, then the guid2lid file's (if given), then cloudsm's rule (lid.h) with lmc. */
int load_topology_with_lids(struct cs_fabric *f, const char *topology, const char *guid2lid,
                            unsigned lmc, struct cs_error *err);

/* LIDs come from guid2lid if given, else from the topology if it has any, else from the LFT
 * dump's comments (the port GUID behind each LID). LFTs for switches the topology does not have
 * mean the two files describe different fabrics: an error unless allow_extra. */
int routed_fabric_load(struct routed_fabric *r, const char *topology, const char *lfts,
                       const char *guid2lid, bool allow_extra, struct cs_error *err);
void routed_fabric_free(struct routed_fabric *r);

#endif
