/* ftree: OpenSM 3.3.23's fat-tree routing, entry for entry (docs/routing/ftree.md). The work is
 * in the shared machinery (fattree.h): OpenSM's targets in OpenSM's order, no policy. */
#include "cloudsm/route.h"
#include "route/fattree.h"

int cs_route_ftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                   const struct cs_route_inputs *in, struct cs_lfts *lfts,
                   struct cs_route_result *res, struct cs_error *err)
{
    (void)in; /* OpenSM's ftree reads only the options */
    (void)res;
    struct cs_ft ft;
    struct cs_ft_targets targets = {0};
    int rc = cs_ft_build(&ft, f, opt, err);
    if (rc == 0)
        rc = cs_ft_bind(&ft, lfts, NULL, err);
    if (rc == 0)
        rc = cs_ft_targets_opensm(&ft, &targets, err);
    if (rc == 0) {
        cs_ft_route_targets(&ft, &targets);
        if (opt && opt->connect_roots)
            cs_ft_connect_roots(&ft);
        /* Entries are written straight into the tables; a fresh routing programs them all. */
        cs_lfts_mark_all(lfts);
    }
    cs_ft_targets_free(&targets);
    cs_ft_free(&ft);
    return rc;
}
