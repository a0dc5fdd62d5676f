/* Spanning-tree counts (spanning.h): of a PGFT spec, and of a built fat-tree through the
 * machinery's view (the chains mftree's phase I routes). */
#include "cloudsm/spanning.h"

#include <stdlib.h>

#include "route/fattree.h"
#include "route/metabase.h"

int cs_spanning_pgft(const struct cs_pgft_spec *s, struct cs_spanning *out, struct cs_error *err)
{
    struct cs_pgft_counts counts;
    if (cs_pgft_count(s, &counts, err) < 0)
        return -1;
    uint64_t different = 1, disjoint = UINT64_MAX;
    /* Switch levels 2..h: spec index 1..h-1. Level 1's w_1 * p_1 are the hosts' cables. */
    for (unsigned l = 1; l < s->levels; l++) {
        uint64_t cables = (uint64_t)s->w[l] * s->p[l];
        different = different > UINT64_MAX / cables ? UINT64_MAX : different * cables;
        if (cables < disjoint)
            disjoint = cables;
    }
    *out = (struct cs_spanning){.different = different,
                                .disjoint = disjoint == UINT64_MAX ? 1 : disjoint,
                                .fewest = different};
    return 0;
}

int cs_spanning_fabric(const struct cs_fabric *f, const struct cs_route_options *opt,
                       struct cs_spanning *out, struct cs_error *err)
{
    struct cs_ft ft;
    uint64_t *chains = NULL;
    int rc = cs_ft_build(&ft, f, opt, err);
    if (rc == 0)
        rc = cs_ft_chain_counts(&ft, &chains, err);
    if (rc == 0)
        cs_ft_spanning_counts(&ft, chains, &out->different, &out->disjoint, &out->fewest);
    free(chains);
    cs_ft_free(&ft);
    return rc;
}
