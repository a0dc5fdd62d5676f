/* Consolidation packers: utilization-based first/best fit and delay-based packing (delay.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/delay.h"
#include "core/grow.h"

void cs_packing_free(struct cs_packing *p)
{
    free(p->bin_of_vm);
    memset(p, 0, sizeof *p);
}

struct vm_avg {
    double avg;
    uint32_t vm;
};

static int by_decreasing_average(const void *a, const void *b)
{
    const struct vm_avg *x = a, *y = b;
    if (x->avg != y->avg)
        return x->avg > y->avg ? -1 : 1;
    return x->vm < y->vm ? -1 : x->vm > y->vm;
}

struct bins {
    double *avg_sum; /* per bin: summed training averages */
    double *demand;  /* per bin: summed demand series (delay policy only) */
    bool *closed;    /* per bin: its own delay already exceeds the limit */
    uint32_t count, capacity;
    uint32_t steps;
};

static void bins_free(struct bins *b)
{
    free(b->avg_sum);
    free(b->demand);
    free(b->closed);
}

static int bins_open(struct bins *b, bool with_series, struct cs_error *err)
{
    if (b->count == b->capacity) {
        uint32_t cap = b->capacity ? b->capacity * 2 : 16;
        double *a = realloc(b->avg_sum, cap * sizeof *a);
        if (!a)
            return cs_fail(err, "out of memory packing bins");
        b->avg_sum = a;
        bool *c = realloc(b->closed, cap * sizeof *c);
        if (!c)
            return cs_fail(err, "out of memory packing bins");
        b->closed = c;
        if (with_series) {
            double *d = realloc(b->demand, (size_t)cap * b->steps * sizeof *d);
            if (!d)
                return cs_fail(err, "out of memory packing bins (%u bins of %u steps)", cap,
                               b->steps);
            b->demand = d;
        }
        b->capacity = cap;
    }
    b->avg_sum[b->count] = 0;
    b->closed[b->count] = false;
    if (with_series)
        memset(b->demand + (size_t)b->count * b->steps, 0, b->steps * sizeof *b->demand);
    return (int)b->count++;
}

int cs_pack(const struct cs_demand *train, const struct cs_pack_options *opt,
            struct cs_packing *out, struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (opt->cores == 0)
        return cs_fail(err, "bins need at least one core");
    if (!(opt->threshold > 0))
        return cs_fail(err, "bin-filling threshold must be positive");
    if (opt->policy == CS_PACK_DELAY && !(opt->delay_limit >= 0))
        return cs_fail(err, "accepted delay must be >= 0");
    uint32_t n = train->num_vms, steps = train->steps;
    struct vm_avg *order = cs_calloc_array(n, sizeof *order, err);
    uint32_t *bin_of = cs_calloc_array(n, sizeof *bin_of, err);
    if (!order || !bin_of) {
        free(order);
        free(bin_of);
        return -1;
    }
    for (uint32_t vm = 0; vm < n; vm++) {
        const float *d = train->demand + (size_t)vm * steps;
        double s = 0;
        for (uint32_t t = 0; t < steps; t++)
            s += d[t];
        order[vm].avg = steps ? s / steps : 0;
        order[vm].vm = vm;
    }
    qsort(order, n, sizeof *order, by_decreasing_average);

    bool by_delay = opt->policy == CS_PACK_DELAY;
    double capacity = opt->threshold * opt->cores * 100.0;
    struct bins b = {.steps = steps};
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        uint32_t vm = order[i].vm;
        double avg = order[i].avg;
        const float *d = train->demand + (size_t)vm * steps;
        long chosen = -1;
        for (uint32_t k = 0; k < b.count; k++) {
            bool fits;
            if (by_delay) {
                if (b.closed[k])
                    continue;
                double total =
                    cs_delay_total_bounded(b.demand + (size_t)k * steps, d, steps, capacity,
                                           opt->unit, train->step_minutes, opt->delay_limit);
                fits = total <= opt->delay_limit;
            } else {
                fits = b.avg_sum[k] + avg <= capacity;
            }
            if (!fits)
                continue;
            if (opt->fit == CS_FIT_FIRST) {
                chosen = k;
                break;
            }
            if (chosen < 0 || b.avg_sum[k] > b.avg_sum[chosen])
                chosen = k;
        }
        if (chosen < 0) {
            int k = bins_open(&b, by_delay, err);
            if (k < 0) {
                rc = -1;
                break;
            }
            chosen = k;
        }
        bin_of[vm] = (uint32_t)chosen;
        b.avg_sum[chosen] += avg;
        if (by_delay) {
            double *bd = b.demand + (size_t)chosen * steps;
            for (uint32_t t = 0; t < steps; t++)
                bd[t] += d[t];
            /* Monotonicity: once a bin alone exceeds the limit (a lone heavy VM), no VM can
             * join it; skip it from now on. */
            double own = cs_delay_total_bounded(bd, NULL, steps, capacity, opt->unit,
                                                train->step_minutes, opt->delay_limit);
            b.closed[chosen] = own > opt->delay_limit;
        }
    }
    uint32_t count = b.count;
    bins_free(&b);
    free(order);
    if (rc) {
        free(bin_of);
        return rc;
    }
    out->bin_of_vm = bin_of;
    out->num_vms = n;
    out->num_bins = count;
    return 0;
}

int cs_packing_eval(const struct cs_demand *test, const struct cs_packing *p, uint32_t cores,
                    enum cs_delay_unit unit, struct cs_delay_stats *stats, uint32_t *vms_in_bin,
                    struct cs_error *err)
{
    if (p->num_vms != test->num_vms)
        return cs_fail(err, "packing has %u VMs, the test window %u", p->num_vms, test->num_vms);
    uint32_t steps = test->steps;
    double *sum = cs_calloc_array((size_t)p->num_bins * steps, sizeof *sum, err);
    if (!sum)
        return -1;
    if (vms_in_bin)
        memset(vms_in_bin, 0, p->num_bins * sizeof *vms_in_bin);
    for (uint32_t vm = 0; vm < p->num_vms; vm++) {
        double *bd = sum + (size_t)p->bin_of_vm[vm] * steps;
        const float *d = test->demand + (size_t)vm * steps;
        for (uint32_t t = 0; t < steps; t++)
            bd[t] += d[t];
        if (vms_in_bin)
            vms_in_bin[p->bin_of_vm[vm]]++;
    }
    for (uint32_t k = 0; k < p->num_bins; k++)
        cs_delay_eval(sum + (size_t)k * steps, steps, cores * 100.0, unit, test->step_minutes,
                      &stats[k]);
    free(sum);
    return 0;
}
