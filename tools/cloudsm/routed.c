#include "routed.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/lft_io.h"
#include "cloudsm/lid.h"
#include "cloudsm/topo_io.h"

int apply_guid2lid_file(struct cs_fabric *f, const char *path, struct cs_error *err)
{
    struct cs_guid2lid g = {0};
    int rc = cs_guid2lid_read(&g, path, err);
    if (rc == 0)
        rc = cs_guid2lid_apply(&g, f, err) < 0 ? -1 : 0;
    cs_guid2lid_free(&g);
    return rc;
}

int load_topology_with_lids(struct cs_fabric *f, const char *topology, const char *guid2lid,
                            unsigned lmc, struct cs_error *err)
{
    if (cs_topo_read(f, topology, err) < 0)
        return -1;
    if (guid2lid && apply_guid2lid_file(f, guid2lid, err) < 0)
        return -1;
    return cs_lids_assign(f, lmc, err);
}

static int load_lids(struct routed_fabric *r, const char *guid2lid, struct cs_error *err)
{
    if (guid2lid) {
        r->lid_source = "guid2lid";
        return apply_guid2lid_file(&r->fabric, guid2lid, err);
    }
    if (cs_fabric_max_lid(&r->fabric)) {
        r->lid_source = "topology";
        return 0;
    }
    r->lid_source = "lfts";
    return cs_lids_from_lfts(&r->fabric, &r->lfts, err) < 0 ? -1 : 0;
}

/* An error naming the first LFT (in file order) whose switch the topology does not have. */
static int refuse_extra_tables(const struct routed_fabric *r, const char *lfts,
                               struct cs_error *err)
{
    const struct cs_tracer *t = &r->tracer;
    bool *matched = calloc(r->lfts.num_switches ? r->lfts.num_switches : 1, sizeof *matched);
    if (!matched)
        return cs_fail(err, "out of memory");
    for (uint32_t s = 0; s < t->num_switches; s++)
        if (t->switch_table[s] != CS_NONE)
            matched[t->switch_table[s]] = true;
    uint32_t first = 0;
    while (first < r->lfts.num_switches && matched[first])
        first++;
    free(matched);
    return cs_fail(
        err,
        "%s: %u switch table%s for switches not in the topology (the first: 0x%016" PRIx64
        "): the files describe different fabrics (--allow-extra to use them anyway)",
        lfts, t->tables_without_switch, t->tables_without_switch == 1 ? "" : "s",
        r->lfts.switches[first].guid);
}

int routed_fabric_load(struct routed_fabric *r, const char *topology, const char *lfts,
                       const char *guid2lid, bool allow_extra, struct cs_error *err)
{
    memset(r, 0, sizeof *r);
    cs_fabric_init(&r->fabric);
    if (cs_topo_read(&r->fabric, topology, err) < 0 || cs_lfts_read(&r->lfts, lfts, err) < 0 ||
        load_lids(r, guid2lid, err) < 0 ||
        cs_tracer_init(&r->tracer, &r->fabric, &r->lfts, err) < 0 ||
        (r->tracer.tables_without_switch && !allow_extra &&
         refuse_extra_tables(r, lfts, err) < 0)) {
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
