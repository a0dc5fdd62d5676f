/* A selection's values over a window (window.h).
 *
 * First every watched port's time-weighted mean of the six measured rates over the window
 * (cs_rate_window_fill, metrics.h: a sample half inside counts half; only samples that ended by
 * `now` count, a sample still running at `now` is the future). Then the entities from their ports'
 * means: a node or a switch (and the fabric, over CA ports) sums its ports', a link takes the
 * busier of its two ends. */
#include "adapt/window.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/fabric.h"
#include "core/grow.h"

static bool measured(const struct cs_rate_window *w, uint32_t port)
{
    return cs_rate_window_covered(w, port) > 0;
}

static double mean(const struct cs_rate_window *w, uint32_t port, int k)
{
    return cs_rate_window_mean(w, port, (enum cs_metric)k);
}

/* The busier direction of a port, bytes/s. */
static double busier(const struct cs_rate_window *w, uint32_t port)
{
    return fmax(mean(w, port, CS_METRIC_XMIT_BYTES), mean(w, port, CS_METRIC_RCV_BYTES));
}

/* One port's value of q, if it has one. */
static bool port_value(const struct cs_metrics *m, const struct cs_rate_window *w, uint32_t port,
                       enum adapt_quantity q, double *out)
{
    double rate = m->ports[port].link_bytes_per_s;
    if (q == Q_LINK_RATE) {
        *out = rate;
        return rate > 0;
    }
    if (!measured(w, port))
        return false;
    if (q == Q_THROUGHPUT)
        *out = mean(w, port, CS_METRIC_XMIT_BYTES) + mean(w, port, CS_METRIC_RCV_BYTES);
    else if (q == Q_UTILISATION)
        *out = busier(w, port) / rate;
    else
        *out = mean(w, port, (int)q);
    return q != Q_UTILISATION || rate > 0;
}

/* A sum over ports (node, switch, fabric): utilisation is the ports' busier directions over
 * their rates, both summed over the ports with a known rate. */
struct port_sum {
    double value, busy, rate;
    bool any;
};

static void add_port(const struct cs_metrics *m, const struct cs_rate_window *w, uint32_t port,
                     enum adapt_quantity q, struct port_sum *sum)
{
    if (q == Q_UTILISATION) {
        double rate = m->ports[port].link_bytes_per_s;
        if (rate > 0 && measured(w, port)) {
            sum->busy += busier(w, port);
            sum->rate += rate;
            sum->any = true;
        }
        return;
    }
    double v;
    if (port_value(m, w, port, q, &v)) {
        sum->value += v;
        sum->any = true;
    }
}

static bool sum_value(const struct port_sum *sum, enum adapt_quantity q, double *out)
{
    *out = q == Q_UTILISATION ? sum->busy / sum->rate : sum->value;
    return sum->any;
}

/* A link's value: the busier end. throughput is the busier direction (either end's transmit
 * or receive), utilisation that over the link's rate. */
static bool link_value(const struct cs_metrics *m, const struct cs_rate_window *w,
                       const uint32_t *ends, int num_ends, enum adapt_quantity q, double *out)
{
    bool any = false;
    double best = 0, rate = 0;
    for (int e = 0; e < num_ends; e++)
        rate = fmax(rate, m->ports[ends[e]].link_bytes_per_s);
    for (int e = 0; e < num_ends; e++) {
        double v;
        if (q == Q_LINK_RATE) {
            v = rate;
        } else if (!measured(w, ends[e])) {
            continue;
        } else if (q == Q_THROUGHPUT || q == Q_UTILISATION) {
            v = busier(w, ends[e]);
        } else {
            v = mean(w, ends[e], (int)q);
        }
        best = any ? fmax(best, v) : v;
        any = true;
    }
    if (q == Q_UTILISATION || q == Q_LINK_RATE) {
        if (!(rate > 0))
            return false;
        if (q == Q_UTILISATION)
            best /= rate;
    }
    *out = best;
    return any;
}

struct collector {
    struct adapt_entity_value *values;
    uint32_t count, capacity;
};

static int collect(struct collector *c, uint32_t index, double value, struct cs_error *err)
{
    if (cs_grow((void **)&c->values, &c->capacity, (uint64_t)c->count + 1, sizeof(*c->values),
                err) < 0)
        return -1;
    c->values[c->count++] = (struct adapt_entity_value){index, value};
    return 0;
}

/* The node indices of a partition as a membership bitmap, or NULL if the partition is unknown
 * (*missing) or out of memory. */
static bool *partition_members(const struct cs_metrics *m, const char *name, bool *missing,
                               struct cs_error *err)
{
    *missing = false;
    for (uint32_t i = 0; i < m->num_partitions; i++) {
        const struct cs_metric_partition *p = &m->partitions[i];
        if (strcmp(p->name, name) != 0)
            continue;
        bool *in = cs_calloc_array(m->num_nodes, sizeof(*in), err);
        if (in != NULL)
            for (uint32_t k = 0; k < p->num_members; k++)
                in[p->members[k]] = true;
        return in;
    }
    *missing = true;
    return NULL;
}

static int collect_entities(const struct cs_metrics *m, const struct cs_rate_window *w,
                            const struct adapt_selection *sel, const bool *in, struct collector *c,
                            struct cs_error *err)
{
    enum adapt_quantity q = sel->quantity;
    double v;
    switch (sel->entity) {
    case ENT_PORT:
        for (uint32_t p = 0; p < m->num_ports; p++)
            if ((in == NULL || in[m->ports[p].node]) && port_value(m, w, p, q, &v) &&
                collect(c, p, v, err) < 0)
                return -1;
        return 0;
    case ENT_NODE:
    case ENT_SWITCH: {
        uint8_t type = sel->entity == ENT_NODE ? CS_NODE_CA : CS_NODE_SWITCH;
        uint32_t p = 0;
        for (uint32_t n = 0; n < m->num_nodes; n++) {
            struct port_sum sum = {0};
            for (; p < m->num_ports && m->ports[p].node == n; p++)
                add_port(m, w, p, q, &sum);
            if (m->nodes[n].type == type && (in == NULL || in[n]) && sum_value(&sum, q, &v) &&
                collect(c, n, v, err) < 0)
                return -1;
        }
        return 0;
    }
    case ENT_FABRIC: {
        struct port_sum sum = {0};
        for (uint32_t p = 0; p < m->num_ports; p++)
            if (m->nodes[m->ports[p].node].type == CS_NODE_CA &&
                (in == NULL || in[m->ports[p].node]))
                add_port(m, w, p, q, &sum);
        return sum_value(&sum, q, &v) ? collect(c, 0, v, err) : 0;
    }
    case ENT_LINK:
        /* A cable once: from the end with the lower index, or from its only watched end. */
        for (uint32_t p = 0; p < m->num_ports; p++) {
            const struct cs_metric_port *port = &m->ports[p];
            if (port->peer_node_guid == 0)
                continue;
            uint32_t ends[2] = {p, cs_metrics_find_port(m, port->peer_node_guid, port->peer_num)};
            if (ends[1] != UINT32_MAX && ends[1] < p)
                continue;
            int num_ends = ends[1] == UINT32_MAX ? 1 : 2;
            bool member =
                in == NULL || in[port->node] || (num_ends == 2 && in[m->ports[ends[1]].node]);
            if (member && link_value(m, w, ends, num_ends, q, &v) && collect(c, p, v, err) < 0)
                return -1;
        }
        return 0;
    default:
        return 0;
    }
}

int adapt_window_values(const struct cs_metrics *m, double now, const struct adapt_selection *sel,
                        struct adapt_entity_value **values, uint32_t *count, char *why,
                        size_t why_size, struct cs_error *err)
{
    *values = NULL;
    *count = 0;
    double start = now - sel->window, end = now;
    if (sel->last_poll && sel->quantity != Q_LINK_RATE) {
        uint32_t last = cs_metrics_samples_ended_by(m, now);
        if (last == 0) {
            snprintf(why, why_size, "no sample has ended yet");
            return 1;
        }
        end = m->samples[last - 1].time;
        start = end - m->samples[last - 1].interval;
    }
    bool missing = false;
    bool *in = NULL;
    if (sel->partition != NULL) {
        in = partition_members(m, sel->partition, &missing, err);
        if (missing) {
            snprintf(why, why_size, "no partition \"%s\" in the monitored fabric", sel->partition);
            return 1;
        }
        if (in == NULL)
            return -1;
    }
    /* link_rate needs no samples: an empty window (since = until) would be refused. */
    if (!(end > start))
        start = end - 1;
    struct cs_rate_window w;
    struct collector c = {0};
    int rc = -1;
    if (cs_rate_window_init(&w, m->num_ports, start, end, err) == 0) {
        if (sel->quantity != Q_LINK_RATE)
            cs_rate_window_fill(&w, m);
        rc = collect_entities(m, &w, sel, in, &c, err);
        cs_rate_window_free(&w);
    }
    free(in);
    if (rc < 0) {
        free(c.values);
        return -1;
    }
    *values = c.values;
    *count = c.count;
    return 0;
}
