/* Learned node weights (include/cloudsm/learn.h): the bytes each CA port received over a window,
 * through the min-max map of pFTree-Wt (cs_weight_scale), from measured rates in memory or
 * streamed from the monitoring store. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "cloudsm/learn.h"
#include "core/grow.h"

/* Whole bytes from a rate x seconds (never negative, never past UINT64_MAX). */
static uint64_t whole_bytes(double amount)
{
    if (!(amount > 0))
        return 0;
    if (amount >= 18446744073709551615.0)
        return UINT64_MAX;
    return (uint64_t)llround(amount);
}

static int by_port_guid(const void *a, const void *b, void *topology)
{
    const struct cs_metrics *m = topology;
    uint64_t x = m->ports[*(const uint32_t *)a].guid, y = m->ports[*(const uint32_t *)b].guid;
    return (x > y) - (x < y);
}

/* The weights of topo's CA ports from a window fed with their samples; name starts messages. */
static int weights_from_window(const char *name, const struct cs_metrics *topo,
                               const struct cs_rate_window *w, uint32_t a, uint32_t b,
                               struct cs_node_weights *out, uint64_t **received,
                               struct cs_error *err)
{
    uint32_t *ports = cs_calloc_array(topo->num_ports, sizeof *ports, err);
    uint64_t *bytes = cs_calloc_array(topo->num_ports, sizeof *bytes, err);
    int rc = -1;
    if (!ports || !bytes)
        goto out;
    uint32_t count = 0;
    for (uint32_t p = 0; p < topo->num_ports; p++)
        if (topo->nodes[topo->ports[p].node].type == CS_NODE_CA && topo->ports[p].guid != 0 &&
            cs_rate_window_covered(w, p) > 0)
            ports[count++] = p;
    if (count == 0) {
        cs_fail(err, "%s: no CA port has samples in the window: nothing to learn from", name);
        goto out;
    }
    qsort_r(ports, count, sizeof *ports, by_port_guid, (void *)topo);
    uint64_t min = UINT64_MAX, max = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (i > 0 && topo->ports[ports[i]].guid == topo->ports[ports[i - 1]].guid) {
            cs_fail(err, "%s: port GUID 0x%016" PRIx64 " is on two ports", name,
                    topo->ports[ports[i]].guid);
            goto out;
        }
        bytes[i] = whole_bytes(cs_rate_window_amount(w, ports[i], CS_METRIC_RCV_BYTES));
        min = bytes[i] < min ? bytes[i] : min;
        max = bytes[i] > max ? bytes[i] : max;
    }
    rc = 0;
    for (uint32_t i = 0; rc == 0 && i < count; i++)
        rc = cs_node_weights_add(out, topo->ports[ports[i]].guid,
                                 cs_weight_scale(bytes[i], min, max, a, b), err);
out:
    free(ports);
    if (rc == 0 && received) {
        *received = bytes;
        bytes = NULL;
    }
    free(bytes);
    if (rc < 0)
        cs_node_weights_free(out);
    return rc;
}

static int check_range(uint32_t a, uint32_t b, struct cs_error *err)
{
    if (a < 1 || a > b || b > CS_WEIGHT_MAX)
        return cs_fail(err, "weights from %" PRIu32 " to %" PRIu32 ": need 1 <= a <= b <= %u", a, b,
                       CS_WEIGHT_MAX);
    return 0;
}

int cs_metrics_learn_weights(const struct cs_metrics *m, double since, double until, uint32_t a,
                             uint32_t b, struct cs_node_weights *out, uint64_t **received,
                             struct cs_error *err)
{
    cs_node_weights_init(out);
    if (received)
        *received = NULL;
    struct cs_rate_window w;
    if (check_range(a, b, err) < 0 || cs_rate_window_init(&w, m->num_ports, since, until, err) < 0)
        return -1;
    for (uint32_t i = 0; i < m->num_samples; i++)
        cs_rate_window_add(&w, &m->samples[i]);
    int rc = weights_from_window("measurements", m, &w, a, b, out, received, err);
    cs_rate_window_free(&w);
    return rc;
}

/* Streamed from the store: the window is made with the first batch, when the topology the scan
 * read is known (or after the scan, if no sample came). */
struct store_window {
    struct cs_rate_window w;
    bool ready;
    double since, until;
};

static int ready_window(struct store_window *sw, const struct cs_metrics *topology,
                        struct cs_error *err)
{
    if (!sw->ready &&
        cs_rate_window_init(&sw->w, topology->num_ports, sw->since, sw->until, err) < 0)
        return -1;
    sw->ready = true;
    return 0;
}

static int add_batch(void *ctx, const struct cs_metrics *topology, const struct cs_metric_sample *s,
                     uint32_t n, struct cs_error *err)
{
    struct store_window *sw = ctx;
    if (ready_window(sw, topology, err) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        cs_rate_window_add(&sw->w, &s[i]);
    return 0;
}

int cs_monitor_learn_weights(struct cs_monitor *mon, double since, double until, uint32_t a,
                             uint32_t b, struct cs_node_weights *out, uint64_t **received,
                             struct cs_error *err)
{
    cs_node_weights_init(out);
    if (received)
        *received = NULL;
    struct cs_metrics topology;
    struct store_window sw = {.ready = false, .since = since, .until = until};
    cs_metrics_init(&topology);
    int rc = check_range(a, b, err);
    if (rc == 0)
        rc = cs_monitor_scan(mon, since, until, NULL, 0, &topology, add_batch, &sw, err);
    if (rc == 0)
        rc = ready_window(&sw, &topology, err);
    if (rc == 0)
        rc = weights_from_window(cs_monitor_path(mon), &topology, &sw.w, a, b, out, received, err);
    if (sw.ready)
        cs_rate_window_free(&sw.w);
    cs_metrics_free(&topology);
    return rc;
}
