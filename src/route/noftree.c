/* noftree: NoFTree, ftree with the compute nodes of each leaf routed in an order the operator
 * gives (docs/routing/noftree.md). The machinery's walk and OpenSM's targets, reordered: no
 * policy. With no order (or none of its GUIDs routed) it is ftree entry for entry. */
#include "cloudsm/route.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "route/fattree.h"

/* One leaf's block of OpenSM's compute-node targets (its compute nodes in port order, then
 * dummies; every leaf has max_cn_per_leaf of them), put into NoFTree's slots:
 *  - the k-th node of the order (0-based, counting the order's routed compute nodes only)
 *    takes slot k % max_cn_per_leaf; if that slot is taken by an earlier node of the order,
 *    the next free slot after it (wrapping round);
 *  - the leaf's other compute nodes fill the free slots in port order, from slot 0;
 *  - dummies fill what is left. */
static void place_block(struct cs_ft_target *block, uint32_t slots, uint32_t *position,
                        struct cs_ft_target *placed, uint8_t *taken)
{
    memset(taken, 0, slots);
    /* Ordered nodes, in order position (few per leaf: a selection by smallest position). */
    for (;;) {
        uint32_t best = CS_NONE;
        for (uint32_t i = 0; i < slots; i++)
            if (position[i] != CS_NONE && (best == CS_NONE || position[i] < position[best]))
                best = i;
        if (best == CS_NONE)
            break;
        uint32_t slot = position[best] % slots;
        while (taken[slot])
            slot = (slot + 1) % slots;
        placed[slot] = block[best];
        taken[slot] = 1;
        position[best] = CS_NONE;
        block[best].kind = UINT8_MAX; /* used */
    }
    uint32_t slot = 0;
    for (int pass = 0; pass < 2; pass++) { /* compute nodes, then dummies */
        uint8_t kind = pass == 0 ? CS_FT_TARGET_CA : CS_FT_TARGET_DUMMY;
        for (uint32_t i = 0; i < slots; i++) {
            if (block[i].kind != kind)
                continue;
            while (taken[slot])
                slot++;
            placed[slot] = block[i];
            taken[slot] = 1;
        }
    }
    memcpy(block, placed, slots * sizeof *block);
}

/* Reorder the compute-node targets by the node order. */
static int apply_order(const struct cs_ft *ft, struct cs_ft_targets *cns,
                       const struct cs_guid_list *order, const struct cs_log *log,
                       struct cs_error *err)
{
    uint32_t slots = ft->max_cn_per_leaf;
    if (!order || order->count == 0 || slots == 0)
        return 0;
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    uint32_t *position = cs_calloc_array(cns->count + 1, sizeof *position, err);
    struct cs_ft_target *placed = cs_calloc_array(slots, sizeof *placed, err);
    uint8_t *taken = cs_calloc_array(slots, 1, err);
    int rc = -1;
    if (!position || !placed || !taken)
        goto out;
    for (uint32_t i = 0; i < cns->count; i++) {
        position[i] = CS_NONE;
        const struct cs_ft_target *t = &cns->items[i];
        if (t->kind == CS_FT_TARGET_CA &&
            cs_key_index_add(&by_guid, ft->fabric->ports[t->port].guid, i, err) < 0)
            goto out;
    }
    cs_key_index_sort(&by_guid);
    uint32_t n = 0;
    for (uint32_t k = 0; k < order->count; k++) {
        uint32_t i = cs_key_index_find(&by_guid, order->guids[k]);
        if (i == CS_NONE) {
            cs_logf(log, CS_LOG_WARN,
                    "noftree: node order entry %u (0x%016llx) is not a routed compute node", k + 1,
                    (unsigned long long)order->guids[k]);
            continue;
        }
        if (position[i] == CS_NONE)
            position[i] = n++;
    }
    for (uint32_t first = 0; first + slots <= cns->count; first += slots)
        place_block(cns->items + first, slots, position + first, placed, taken);
    rc = 0;
out:
    cs_key_index_free(&by_guid);
    free(position);
    free(placed);
    free(taken);
    return rc;
}

/* OpenSM's targets with the compute nodes placed by the order. */
static int ordered_targets(const struct cs_ft *ft, const struct cs_route_inputs *in,
                           struct cs_ft_targets *list, struct cs_error *err)
{
    int rc = cs_ft_targets_cns(ft, list, err);
    if (rc == 0)
        rc = apply_order(ft, list, in->node_order, in->log, err);
    if (rc == 0)
        rc = cs_ft_targets_rest(ft, list, err);
    return rc;
}

int cs_route_noftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                     const struct cs_route_inputs *in, struct cs_lfts *lfts,
                     struct cs_route_result *res, struct cs_error *err)
{
    return cs_ft_run(f, opt, in, &(struct cs_ft_variant){.targets = ordered_targets}, lfts, res,
                     err);
}
