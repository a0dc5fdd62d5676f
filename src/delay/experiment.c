/* Consolidation experiments (whole period, leave-one-day-out), Table I/II rows and the SLA view
 * (delay.h). Configurations of one fold run on worker threads; each writes only its own slot, so
 * the results do not depend on the thread count. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/delay.h"
#include "core/grow.h"

void cs_experiment_result_free(struct cs_experiment_result *r)
{
    free(r->bins);
    memset(r, 0, sizeof *r);
}

struct config {
    uint32_t cores;
    double threshold, accepted;
    /* outputs of one fold */
    struct cs_packing packing;
    struct cs_delay_stats *stats;
    uint32_t *vms;
    int rc;
    struct cs_error err;
};

struct fold_work {
    const struct cs_experiment *e;
    const struct cs_demand *train, *test;
    double train_days;
    struct config *configs;
    uint32_t num_configs;
    atomic_uint next;
};

static void run_config(struct fold_work *w, struct config *c)
{
    const struct cs_experiment *e = w->e;
    struct cs_pack_options opt = {
        .policy = e->policy,
        .fit = e->fit,
        .cores = c->cores,
        .threshold = c->threshold,
        .delay_limit = e->leave_one_day_out ? c->accepted * w->train_days : c->accepted,
        .unit = e->unit,
    };
    c->rc = cs_pack(w->train, &opt, &c->packing, &c->err);
    if (c->rc)
        return;
    c->stats = calloc(c->packing.num_bins ? c->packing.num_bins : 1, sizeof *c->stats);
    c->vms = calloc(c->packing.num_bins ? c->packing.num_bins : 1, sizeof *c->vms);
    if (!c->stats || !c->vms) {
        c->rc = cs_fail(&c->err, "out of memory evaluating bins");
        return;
    }
    c->rc = cs_packing_eval(w->test, &c->packing, c->cores, e->unit, c->stats, c->vms, &c->err);
}

static void *worker(void *arg)
{
    struct fold_work *w = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&w->next, 1);
        if (i >= w->num_configs)
            return NULL;
        run_config(w, &w->configs[i]);
    }
}

static void configs_reset(struct config *c, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        cs_packing_free(&c[i].packing);
        free(c[i].stats);
        free(c[i].vms);
        c[i].stats = NULL;
        c[i].vms = NULL;
        c[i].rc = 0;
    }
}

static int run_fold(struct fold_work *w, unsigned threads, struct cs_error *err)
{
    atomic_store(&w->next, 0);
    if (threads > w->num_configs)
        threads = w->num_configs;
    pthread_t tid[64];
    unsigned started = 0;
    for (; started + 1 < threads && started < 64; started++)
        if (pthread_create(&tid[started], NULL, worker, w) != 0)
            break;
    worker(w);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    for (uint32_t i = 0; i < w->num_configs; i++)
        if (w->configs[i].rc) {
            *err = w->configs[i].err;
            return -1;
        }
    return 0;
}

int cs_experiment_run(const struct cs_demand *d, const struct cs_experiment *e,
                      struct cs_experiment_result *out, struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    bool by_delay = e->policy == CS_PACK_DELAY;
    uint32_t num_acc = by_delay ? e->num_accepted : 1;
    if (e->num_cores == 0 || e->num_thresholds == 0 || num_acc == 0)
        return cs_fail(err, "experiment needs core counts, thresholds%s",
                       by_delay ? " and accepted delays" : "");
    if (d->steps == 0 || d->num_vms == 0)
        return cs_fail(err, "empty trace");
    uint32_t per_day = e->steps_per_day;
    if (per_day == 0)
        per_day = (uint32_t)lround(1440.0 / d->step_minutes);
    uint32_t days = per_day ? d->steps / per_day : 0;
    uint32_t folds = 1;
    if (e->leave_one_day_out) {
        if (days < 2)
            return cs_fail(err,
                           "leave-one-day-out needs at least 2 whole days, the trace has %u "
                           "steps of %g minutes",
                           d->steps, d->step_minutes);
        folds = days;
    }
    uint32_t num_configs = e->num_cores * e->num_thresholds * num_acc;
    struct config *configs = cs_calloc_array(num_configs, sizeof *configs, err);
    if (!configs)
        return -1;
    uint32_t ci = 0;
    for (uint32_t a = 0; a < e->num_cores; a++)
        for (uint32_t b = 0; b < e->num_thresholds; b++)
            for (uint32_t c = 0; c < num_acc; c++, ci++) {
                configs[ci].cores = e->cores[a];
                configs[ci].threshold = e->thresholds[b];
                configs[ci].accepted = by_delay ? e->accepted[c] : 0;
            }
    uint32_t cap = 0;
    int rc = 0;
    for (uint32_t fold = 0; fold < folds && rc == 0; fold++) {
        struct cs_demand train_buf = {0}, test_buf = {0};
        const struct cs_demand *train = d, *test = d;
        double train_days = (double)d->steps / per_day;
        if (e->leave_one_day_out) {
            /* The training window is the other days in time order, concatenated: the queue
             * carries across the removed day (documented choice, docs/delay.md). Steps after
             * the last whole day are not used. */
            struct cs_step_range tr[2] = {{0, fold * per_day},
                                          {(fold + 1) * per_day, days * per_day}};
            struct cs_step_range te = {fold * per_day, (fold + 1) * per_day};
            if (cs_demand_slice(d, tr, 2, &train_buf, err) ||
                cs_demand_slice(d, &te, 1, &test_buf, err)) {
                free((void *)train_buf.demand);
                rc = -1;
                break;
            }
            train = &train_buf;
            test = &test_buf;
            train_days = days - 1;
        }
        struct fold_work w = {e, train, test, train_days, configs, num_configs, 0};
        rc = run_fold(&w, e->threads ? e->threads : 1, err);
        for (uint32_t i = 0; i < num_configs && rc == 0; i++) {
            struct config *c = &configs[i];
            uint64_t need = out->num_bins + c->packing.num_bins;
            if (cs_grow((void **)&out->bins, &cap, need, sizeof *out->bins, err)) {
                rc = -1;
                break;
            }
            for (uint32_t k = 0; k < c->packing.num_bins; k++) {
                struct cs_bin_result *r = &out->bins[out->num_bins++];
                memset(r, 0, sizeof *r); /* padding too: results compare bytewise */
                r->fold = fold;
                r->cores = c->cores;
                r->threshold = c->threshold;
                r->accepted = c->accepted;
                r->bin = k;
                r->vms = c->vms[k];
                r->bins_in_packing = c->packing.num_bins;
                r->stats = c->stats[k];
            }
        }
        configs_reset(configs, num_configs);
        free((void *)train_buf.demand);
        free((void *)test_buf.demand);
    }
    free(configs);
    if (rc) {
        cs_experiment_result_free(out);
        return -1;
    }
    out->folds = folds;
    out->window_days = e->leave_one_day_out ? 1.0 : (double)d->steps / per_day;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool same(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

int cs_experiment_table_row(const struct cs_experiment_result *r, double threshold, double accepted,
                            struct cs_table_row *row, struct cs_error *err)
{
    memset(row, 0, sizeof *row);
    row->threshold = threshold;
    row->accepted = accepted;
    size_t n = 0;
    for (size_t i = 0; i < r->num_bins; i++)
        if (same(r->bins[i].threshold, threshold) &&
            (accepted < 0 || same(r->bins[i].accepted, accepted)))
            n++;
    if (n == 0)
        return 0;
    double *delay = cs_calloc_array(n, sizeof *delay, err);
    double *fill = cs_calloc_array(n, sizeof *fill, err);
    if (!delay || !fill) {
        free(delay);
        free(fill);
        return -1;
    }
    size_t j = 0;
    double sum_d = 0, sum_f = 0, sum_frac = 0, sum_when = 0;
    for (size_t i = 0; i < r->num_bins; i++) {
        const struct cs_bin_result *b = &r->bins[i];
        if (!same(b->threshold, threshold) || (accepted >= 0 && !same(b->accepted, accepted)))
            continue;
        delay[j] = b->stats.total_delay;
        fill[j] = b->stats.filling;
        j++;
        sum_d += b->stats.total_delay;
        sum_f += b->stats.filling;
        sum_frac += b->stats.delayed_fraction;
        /* Bins that never delay count as 0, as the small values of Table I imply (spec 3.5). */
        sum_when += b->stats.mean_when_delayed;
    }
    qsort(delay, n, sizeof *delay, cmp_double);
    qsort(fill, n, sizeof *fill, cmp_double);
    row->bins = n;
    row->avg_delay = sum_d / n;
    row->med_delay = median_sorted(delay, n);
    row->max_delay = delay[n - 1];
    row->avg_filling = sum_f / n;
    row->med_filling = median_sorted(fill, n);
    row->max_filling = fill[n - 1];
    row->avg_delayed_fraction = sum_frac / n;
    row->avg_delay_when_delayed = sum_when / n;
    free(delay);
    free(fill);
    return 0;
}

void cs_experiment_sla(const struct cs_experiment_result *r, double threshold, double accepted,
                       double accepted_per_day, struct cs_sla_summary *out)
{
    memset(out, 0, sizeof *out);
    double days = r->window_days > 0 ? r->window_days : 1;
    double sum_over = 0;
    size_t violations = 0;
    for (size_t i = 0; i < r->num_bins; i++) {
        const struct cs_bin_result *b = &r->bins[i];
        if ((threshold >= 0 && !same(b->threshold, threshold)) ||
            (accepted >= 0 && !same(b->accepted, accepted)))
            continue;
        out->bins++;
        double per_day = b->stats.total_delay / days;
        bool lone = b->vms == 1;
        out->lone_vm_bins += lone;
        if (per_day <= accepted_per_day) {
            out->compliant++;
            continue;
        }
        out->lone_vm_violations += lone;
        violations++;
        double over = per_day - accepted_per_day;
        sum_over += over;
        if (over > out->max_overshoot)
            out->max_overshoot = over;
    }
    out->compliance_rate = out->bins ? (double)out->compliant / out->bins : 1.0;
    out->mean_overshoot = violations ? sum_over / violations : 0.0;
}
