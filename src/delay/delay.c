/* The workload delay engine: the backlog recursion q(t) = max(q(t-1) + d(t) - C, 0) and its
 * statistics (delay.h, docs/delay.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/delay.h"
#include "core/grow.h"

/* Minutes of current delay per percent-step of backlog. */
static double delay_scale(double capacity_pct, enum cs_delay_unit unit, double step_minutes)
{
    double per = unit == CS_DELAY_CORE_TIME ? 100.0 : capacity_pct;
    return per > 0 ? step_minutes / per : 0.0;
}

void cs_delay_series(const double *demand, uint32_t steps, double capacity_pct,
                     enum cs_delay_unit unit, double step_minutes, double *queue, double *served,
                     double *current_delay)
{
    double scale = delay_scale(capacity_pct, unit, step_minutes);
    double q = 0;
    for (uint32_t t = 0; t < steps; t++) {
        double offered = q + demand[t];
        if (served)
            served[t] = offered < capacity_pct ? offered : capacity_pct;
        q = offered > capacity_pct ? offered - capacity_pct : 0.0;
        if (queue)
            queue[t] = q;
        if (current_delay)
            current_delay[t] = q * scale;
    }
}

void cs_delay_eval(const double *demand, uint32_t steps, double capacity_pct,
                   enum cs_delay_unit unit, double step_minutes, struct cs_delay_stats *out)
{
    double scale = delay_scale(capacity_pct, unit, step_minutes);
    double q = 0, total_q = 0, max_q = 0, sum_demand = 0;
    uint32_t delayed = 0;
    for (uint32_t t = 0; t < steps; t++) {
        sum_demand += demand[t];
        q += demand[t] - capacity_pct;
        if (q > 0) {
            delayed++;
            total_q += q;
            if (q > max_q)
                max_q = q;
        } else {
            q = 0;
        }
    }
    memset(out, 0, sizeof *out);
    out->steps = steps;
    out->delayed_steps = delayed;
    out->total_delay = total_q * scale;
    out->max_delay = max_q * scale;
    out->mean_when_delayed = delayed ? total_q * scale / delayed : 0.0;
    out->delayed_fraction = steps ? (double)delayed / steps : 0.0;
    out->filling = steps && capacity_pct > 0 ? sum_demand / steps / capacity_pct : 0.0;
    out->final_queue = q;
}

double cs_delay_total_bounded(const double *base, const float *extra, uint32_t steps,
                              double capacity_pct, enum cs_delay_unit unit, double step_minutes,
                              double limit)
{
    double scale = delay_scale(capacity_pct, unit, step_minutes);
    if (scale <= 0)
        return 0;
    /* Compare in backlog units so the loop has no multiply; check the limit every block of
     * steps only, since the running total never decreases. */
    double limit_q = limit / scale;
    double q = 0, total_q = 0;
    uint32_t t = 0;
    while (t < steps) {
        uint32_t end = steps - t > 256 ? t + 256 : steps;
        if (extra) {
            for (; t < end; t++) {
                q += base[t] + (double)extra[t] - capacity_pct;
                q = q > 0 ? q : 0;
                total_q += q;
            }
        } else {
            for (; t < end; t++) {
                q += base[t] - capacity_pct;
                q = q > 0 ? q : 0;
                total_q += q;
            }
        }
        if (total_q > limit_q)
            return total_q * scale > limit ? total_q * scale : nextafter(limit, INFINITY);
    }
    return total_q * scale;
}

struct cs_demand cs_demand_of_trace(const struct cs_trace *t)
{
    struct cs_demand d = {t->demand, t->num_vms, t->steps,
                          (t->step_seconds ? t->step_seconds : 60) / 60.0};
    return d;
}

int cs_demand_slice(const struct cs_demand *in, const struct cs_step_range *ranges,
                    uint32_t num_ranges, struct cs_demand *out, struct cs_error *err)
{
    uint64_t steps = 0;
    for (uint32_t r = 0; r < num_ranges; r++) {
        if (ranges[r].begin > ranges[r].end || ranges[r].end > in->steps)
            return cs_fail(err, "step range [%u, %u) outside the trace's %u steps", ranges[r].begin,
                           ranges[r].end, in->steps);
        steps += ranges[r].end - ranges[r].begin;
    }
    if (steps > UINT32_MAX)
        return cs_fail(err, "step ranges too long");
    float *dst = cs_calloc_array((size_t)in->num_vms * steps, sizeof *dst, err);
    if (!dst)
        return -1;
    for (uint32_t vm = 0; vm < in->num_vms; vm++) {
        float *p = dst + (size_t)vm * steps;
        const float *src = in->demand + (size_t)vm * in->steps;
        for (uint32_t r = 0; r < num_ranges; r++) {
            size_t n = ranges[r].end - ranges[r].begin;
            memcpy(p, src + ranges[r].begin, n * sizeof *p);
            p += n;
        }
    }
    out->demand = dst;
    out->num_vms = in->num_vms;
    out->steps = (uint32_t)steps;
    out->step_minutes = in->step_minutes;
    return 0;
}
