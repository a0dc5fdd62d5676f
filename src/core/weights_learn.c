/* Learning node weights from two port counter snapshots (include/cloudsm/counters.h) with the
 * min-max map of pFTree-Wt (include/cloudsm/weights.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "cloudsm/counters.h"
#include "cloudsm/weights.h"
#include "core/grow.h"

/* (x - min) * (b - a) needs up to 64 + 20 bits: computed exactly in 128. */
__extension__ typedef unsigned __int128 wide_t;

uint32_t cs_weight_scale(uint64_t x, uint64_t min, uint64_t max, uint32_t a, uint32_t b)
{
    if (max <= min || x <= min || b <= a)
        return a;
    if (x >= max)
        return b;
    wide_t span = (wide_t)(max - min);
    wide_t scaled = (wide_t)(x - min) * (b - a);
    /* round(scaled / span), a half up: floor((2 * scaled + span) / (2 * span)) */
    return a + (uint32_t)((2 * scaled + span) / (2 * span));
}

/* The increase of every port's counter, in GUID order; both snapshots must name the same ports. */
static int increases(const struct cs_counter_snapshot *before,
                     const struct cs_counter_snapshot *after, uint64_t *received,
                     struct cs_error *err)
{
    uint32_t i = 0, j = 0;
    while (i < before->count || j < after->count) {
        const struct cs_port_counter *old = i < before->count ? &before->ports[i] : NULL;
        const struct cs_port_counter *now = j < after->count ? &after->ports[j] : NULL;
        if (!now || (old && old->guid < now->guid))
            return cs_fail_at(err, before->name, old->line,
                              "port 0x%016" PRIx64 " is not in %s: both snapshots must count the "
                              "same ports",
                              old->guid, after->name);
        if (!old || now->guid < old->guid)
            return cs_fail_at(err, after->name, now->line,
                              "port 0x%016" PRIx64 " is not in %s: both snapshots must count the "
                              "same ports",
                              now->guid, before->name);
        if (now->rcv_data < old->rcv_data)
            return cs_fail_at(err, after->name, now->line,
                              "port 0x%016" PRIx64 ": PortRcvData went down from %" PRIu64
                              " (%s:%u) to %" PRIu64
                              "; were the counters reset between the snapshots?",
                              now->guid, old->rcv_data, before->name, old->line, now->rcv_data);
        received[i] = now->rcv_data - old->rcv_data;
        i++;
        j++;
    }
    return 0;
}

int cs_node_weights_learn(struct cs_node_weights *w, uint64_t **received,
                          const struct cs_counter_snapshot *before,
                          const struct cs_counter_snapshot *after, uint32_t a, uint32_t b,
                          struct cs_error *err)
{
    cs_node_weights_init(w);
    if (received)
        *received = NULL;
    if (a < 1 || a > b || b > CS_WEIGHT_MAX)
        return cs_fail(err, "weights from %" PRIu32 " to %" PRIu32 ": need 1 <= a <= b <= %u", a, b,
                       CS_WEIGHT_MAX);
    if (before->count == 0)
        return cs_fail(err, "%s: no port to learn a weight for", before->name);
    uint64_t *increase = cs_calloc_array(before->count, sizeof *increase, err);
    if (!increase)
        return -1;
    int rc = increases(before, after, increase, err);
    uint64_t min = UINT64_MAX, max = 0;
    for (uint32_t i = 0; rc == 0 && i < before->count; i++) {
        min = increase[i] < min ? increase[i] : min;
        max = increase[i] > max ? increase[i] : max;
    }
    for (uint32_t i = 0; rc == 0 && i < before->count; i++)
        rc = cs_node_weights_add(w, before->ports[i].guid,
                                 cs_weight_scale(increase[i], min, max, a, b), err);
    /* The snapshots are sorted by GUID and hold each port once, so w is too. */
    if (rc < 0) {
        cs_node_weights_free(w);
        free(increase);
    } else if (received) {
        *received = increase;
    } else {
        free(increase);
    }
    return rc;
}
