/* Traffic predictors (include/cloudsm/learn.h): EWMA and Holt's linear method over each port's
 * samples, in one pass over a cs_metrics. */
#include <math.h>
#include <stdlib.h>

#include "cloudsm/learn.h"
#include "core/grow.h"

/* One port's smoothing state. Holt's trend is initialised from the first two samples, so the
 * first sample is held until the second arrives. */
struct smoother {
    uint32_t seen; /* samples so far */
    double level, trend, last_time;
};

static void smooth(struct smoother *s, enum cs_predictor method,
                   const struct cs_predictor_params *p, double time, double x)
{
    if (s->seen == 0) {
        s->level = x;
        s->trend = 0;
    } else if (method == CS_PREDICT_EWMA) {
        s->level = p->alpha * x + (1 - p->alpha) * s->level;
    } else {
        double d = time - s->last_time;
        if (d > 0) { /* two samples of one port at one time cannot happen in a cs_metrics */
            if (s->seen == 1)
                s->trend = (x - s->level) / d;
            double previous = s->level;
            s->level = p->alpha * x + (1 - p->alpha) * (previous + d * s->trend);
            s->trend = p->beta * (s->level - previous) / d + (1 - p->beta) * s->trend;
        }
    }
    s->last_time = time;
    s->seen++;
}

static double forecast(const struct smoother *s, enum cs_predictor method, double horizon_s)
{
    if (s->seen == 0)
        return NAN;
    return method == CS_PREDICT_HOLT ? s->level + horizon_s * s->trend : s->level;
}

static int check(enum cs_metric metric, enum cs_predictor method,
                 const struct cs_predictor_params *p, double horizon_s, struct cs_error *err)
{
    if ((unsigned)metric >= CS_METRIC_COUNT)
        return cs_fail(err, "metric %d: no such metric", (int)metric);
    if (method != CS_PREDICT_EWMA && method != CS_PREDICT_HOLT)
        return cs_fail(err, "predictor %d: no such method", (int)method);
    if (!(p->alpha > 0 && p->alpha <= 1))
        return cs_fail(err, "alpha %g: needs 0 < alpha <= 1", p->alpha);
    if (method == CS_PREDICT_HOLT && !(p->beta > 0 && p->beta <= 1))
        return cs_fail(err, "beta %g: needs 0 < beta <= 1", p->beta);
    if (!(horizon_s >= 0) || !isfinite(horizon_s))
        return cs_fail(err, "horizon %g s: needs a finite number >= 0", horizon_s);
    return 0;
}

int cs_metrics_predict_ports(const struct cs_metrics *m, enum cs_metric metric,
                             enum cs_predictor method, const struct cs_predictor_params *params,
                             double horizon_s, double *out, struct cs_error *err)
{
    if (check(metric, method, params, horizon_s, err) < 0)
        return -1;
    struct smoother *s = cs_calloc_array(m->num_ports, sizeof *s, err);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < m->num_samples; i++) {
        const struct cs_metric_sample *x = &m->samples[i];
        if (x->port < m->num_ports)
            smooth(&s[x->port], method, params, x->time, x->value[metric]);
    }
    for (uint32_t p = 0; p < m->num_ports; p++)
        out[p] = forecast(&s[p], method, horizon_s);
    free(s);
    return 0;
}

int cs_metrics_predict(const struct cs_metrics *m, uint32_t port, enum cs_metric metric,
                       enum cs_predictor method, const struct cs_predictor_params *params,
                       double horizon_s, double *out, struct cs_error *err)
{
    if (check(metric, method, params, horizon_s, err) < 0)
        return -1;
    if (port >= m->num_ports)
        return cs_fail(err, "port %u of %u", port, m->num_ports);
    struct smoother s = {0};
    for (uint32_t i = 0; i < m->num_samples; i++)
        if (m->samples[i].port == port)
            smooth(&s, method, params, m->samples[i].time, m->samples[i].value[metric]);
    if (s.seen == 0)
        return cs_fail(err, "port %u of node 0x%016llx has no samples to predict from",
                       m->ports[port].num, (unsigned long long)m->nodes[m->ports[port].node].guid);
    *out = forecast(&s, method, horizon_s);
    return 0;
}
