/* PLACEHOLDER: replaced by the updn engine. */
#include "cloudsm/route.h"

int cs_route_updn(const struct cs_fabric *f, const struct cs_route_options *opt,
                struct cs_lfts *lfts, struct cs_error *err)
{
    (void)f;
    (void)opt;
    (void)lfts;
    return cs_fail(err, "updn: not implemented yet");
}
