/* ftree: OpenSM 3.3.23's fat-tree routing, entry for entry (docs/routing/ftree.md). The work is
 * in the shared machinery (fattree.h): OpenSM's targets in OpenSM's order, no policy. */
#include "cloudsm/route.h"
#include "route/fattree.h"

/* OpenSM reads nothing but the options. */
static int opensm_targets(const struct cs_ft *ft, const struct cs_route_inputs *in,
                          struct cs_ft_targets *list, struct cs_error *err)
{
    (void)in;
    return cs_ft_targets_opensm(ft, list, err);
}

int cs_route_ftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                   const struct cs_route_inputs *in, struct cs_lfts *lfts,
                   struct cs_route_result *res, struct cs_error *err)
{
    return cs_ft_run(f, opt, in, &(struct cs_ft_variant){.targets = opensm_targets}, lfts, res,
                     err);
}
