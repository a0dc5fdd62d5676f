#include "routed.h"

#include <string.h>

#include "cloudsm/lft_io.h"
#include "cloudsm/lid.h"
#include "cloudsm/topo_io.h"

static int load_lids(struct routed_fabric *r, const char *guid2lid, struct cs_error *err)
{
    if (guid2lid) {
        struct cs_guid2lid g = {0};
        int rc = cs_guid2lid_read(&g, guid2lid, err);
        if (rc == 0)
            rc = cs_guid2lid_apply(&g, &r->fabric, err) < 0 ? -1 : 0;
        cs_guid2lid_free(&g);
        r->lid_source = "guid2lid";
        return rc;
    }
    if (cs_fabric_max_lid(&r->fabric)) {
        r->lid_source = "topology";
        return 0;
    }
    r->lid_source = "lfts";
    return cs_lids_from_lfts(&r->fabric, &r->lfts, err) < 0 ? -1 : 0;
}

int routed_fabric_load(struct routed_fabric *r, const char *topology, const char *lfts,
                       const char *guid2lid, struct cs_error *err)
{
    memset(r, 0, sizeof *r);
    cs_fabric_init(&r->fabric);
    if (cs_topo_read(&r->fabric, topology, err) < 0 || cs_lfts_read(&r->lfts, lfts, err) < 0 ||
        load_lids(r, guid2lid, err) < 0 ||
        cs_tracer_init(&r->tracer, &r->fabric, &r->lfts, err) < 0) {
        routed_fabric_free(r);
        return -1;
    }
    return 0;
}

void routed_fabric_free(struct routed_fabric *r)
{
    cs_tracer_free(&r->tracer);
    cs_lfts_free(&r->lfts);
    cs_fabric_free(&r->fabric);
}
