/* Rates over a window (include/cloudsm/metrics.h): samples weighted by their overlap with it. */
#include <math.h>
#include <stdlib.h>

#include "cloudsm/metrics.h"
#include "core/grow.h"

int cs_rate_window_init(struct cs_rate_window *w, uint32_t num_ports, double since, double until,
                        struct cs_error *err)
{
    w->since = since;
    w->until = until;
    w->num_ports = num_ports;
    w->amount = NULL;
    w->covered = NULL;
    if (!isfinite(since) || !isfinite(until) || !(since < until))
        return cs_fail(err, "window [%.3f, %.3f]: needs a start before its end", since, until);
    w->amount = cs_calloc_array((size_t)num_ports * CS_METRIC_COUNT, sizeof *w->amount, err);
    w->covered = cs_calloc_array(num_ports, sizeof *w->covered, err);
    if (!w->amount || !w->covered) {
        cs_rate_window_free(w);
        return -1;
    }
    return 0;
}

void cs_rate_window_free(struct cs_rate_window *w)
{
    free(w->amount);
    free(w->covered);
    w->amount = NULL;
    w->covered = NULL;
    w->num_ports = 0;
}

void cs_rate_window_add(struct cs_rate_window *w, const struct cs_metric_sample *s)
{
    /* A sample still running at until (it ends later) is not seen at all: a window that ends
     * now must not see a later sample, whether it is read live, replayed or from the store. */
    if (s->time > w->until || s->port >= w->num_ports)
        return;
    double lo = fmax(s->time - s->interval, w->since);
    double hi = s->time;
    if (!(hi > lo))
        return;
    double seconds = hi - lo;
    double *amount = &w->amount[(size_t)s->port * CS_METRIC_COUNT];
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        amount[k] += s->value[k] * seconds;
    w->covered[s->port] += seconds;
}

double cs_rate_window_covered(const struct cs_rate_window *w, uint32_t port)
{
    return w->covered[port];
}

double cs_rate_window_amount(const struct cs_rate_window *w, uint32_t port, enum cs_metric metric)
{
    return w->amount[(size_t)port * CS_METRIC_COUNT + metric];
}

double cs_rate_window_mean(const struct cs_rate_window *w, uint32_t port, enum cs_metric metric)
{
    if (w->covered[port] <= 0)
        return NAN;
    return cs_rate_window_amount(w, port, metric) / w->covered[port];
}

void cs_rate_window_fill(struct cs_rate_window *w, const struct cs_metrics *m)
{
    for (uint32_t i = cs_metrics_samples_ended_by(m, w->since);
         i < m->num_samples && m->samples[i].time <= w->until; i++)
        cs_rate_window_add(w, &m->samples[i]);
}

int cs_metrics_port_rates(const struct cs_metrics *m, enum cs_metric metric, double since,
                          double until, double *rate, double *covered, struct cs_error *err)
{
    if ((unsigned)metric >= CS_METRIC_COUNT)
        return cs_fail(err, "metric %d: no such metric", (int)metric);
    struct cs_rate_window w;
    if (cs_rate_window_init(&w, m->num_ports, since, until, err) < 0)
        return -1;
    cs_rate_window_fill(&w, m);
    for (uint32_t p = 0; p < m->num_ports; p++) {
        rate[p] = cs_rate_window_mean(&w, p, metric);
        if (covered)
            covered[p] = cs_rate_window_covered(&w, p);
    }
    cs_rate_window_free(&w);
    return 0;
}

int cs_metrics_node_rates(const struct cs_metrics *m, enum cs_metric metric, double since,
                          double until, double *rate, struct cs_error *err)
{
    double *port_rate = cs_calloc_array(m->num_ports, sizeof *port_rate, err);
    if (!port_rate)
        return -1;
    int rc = cs_metrics_port_rates(m, metric, since, until, port_rate, NULL, err);
    if (rc == 0) {
        for (uint32_t n = 0; n < m->num_nodes; n++)
            rate[n] = NAN;
        for (uint32_t p = 0; p < m->num_ports; p++) {
            if (isnan(port_rate[p]))
                continue;
            double *r = &rate[m->ports[p].node];
            *r = isnan(*r) ? port_rate[p] : *r + port_rate[p];
        }
    }
    free(port_rate);
    return rc;
}
