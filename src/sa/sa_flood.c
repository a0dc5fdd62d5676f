/* The SA flooder (include/cloudsm/sa_flood.h): Algorithm 1's arithmetic, response-time
 * summaries, and synchronous SAF instances multiplexed on one SA client. */
#include "cloudsm/sa_flood.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/rng.h"
#include "cloudsm/sim.h"

const double cs_saflood_paper_mif_max[5] = {2100, 2100, 2100, 2100, 1150};

uint64_t cs_saflood_mif_instances(unsigned k, unsigned round)
{
    return round >= 2 ? (uint64_t)k * (round - 1) : 0;
}

uint64_t cs_saflood_total_instances(unsigned n, unsigned k, unsigned round)
{
    return 1 + (uint64_t)n * cs_saflood_mif_instances(k, round);
}

double cs_saflood_capacity(double sif_max, const double *mif_max, unsigned n)
{
    double sum = sif_max;
    for (unsigned x = 0; x < n; x++)
        sum += mif_max[x];
    return sum;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cs_latency_summarize(double *samples_us, size_t count, struct cs_latency_summary *out)
{
    memset(out, 0, sizeof *out);
    if (count == 0)
        return;
    qsort(samples_us, count, sizeof *samples_us, cmp_double);
    /* Mean and standard deviation as the simulator's summaries compute them. */
    struct cs_sim_stat s;
    cs_sim_stat_compute(samples_us, count > UINT32_MAX ? UINT32_MAX : (uint32_t)count, &s);
    double median =
        count % 2 ? samples_us[count / 2] : (samples_us[count / 2 - 1] + samples_us[count / 2]) / 2;
    size_t rank = (size_t)((double)count * 0.99 + 0.999999); /* nearest rank, 1-based */
    if (rank < 1)
        rank = 1;
    if (rank > count)
        rank = count;
    *out = (struct cs_latency_summary){
        .count = count,
        .mean_ms = s.mean / 1000,
        .median_ms = median / 1000,
        .stddev_ms = s.stddev / 1000,
        .p99_ms = samples_us[rank - 1] / 1000,
        .min_ms = samples_us[0] / 1000,
        .max_ms = samples_us[count - 1] / 1000,
    };
}

struct cs_saflood {
    struct cs_sa_client *sa;
    struct cs_saflood_options opt;
    struct cs_saflood_target *targets;
    struct cs_rng rng;
    unsigned instances;
    unsigned idle; /* instances that stopped at the limit or after cs_saflood_stop */
    bool stopped;  /* cs_saflood_stop: start no more queries */
    bool failed;   /* a submit failed inside a callback */
    struct cs_error failure;
    struct cs_saflood_counts totals;
    /* The window. */
    bool in_window;
    uint64_t window_start_us;
    struct cs_saflood_counts at_start;
    double *samples;
    size_t num_samples, cap_samples;
};

int cs_saflood_create(struct cs_sa_client *sa, const struct cs_saflood_options *opt,
                      struct cs_saflood **out, struct cs_error *err)
{
    *out = NULL;
    if (opt->num_targets == 0)
        return cs_fail(err, "SA flooder: no target ports to ask paths to");
    struct cs_saflood *f = calloc(1, sizeof *f);
    if (!f)
        return cs_fail(err, "out of memory");
    f->targets = malloc(opt->num_targets * sizeof *f->targets);
    if (!f->targets) {
        free(f);
        return cs_fail(err, "out of memory");
    }
    memcpy(f->targets, opt->targets, opt->num_targets * sizeof *f->targets);
    f->sa = sa;
    f->opt = *opt;
    f->opt.targets = f->targets;
    cs_rng_seed(&f->rng, opt->seed);
    *out = f;
    return 0;
}

void cs_saflood_destroy(struct cs_saflood *f)
{
    if (!f)
        return;
    free(f->targets);
    free(f->samples);
    free(f);
}

unsigned cs_saflood_instances(const struct cs_saflood *f)
{
    return f->instances;
}

static const struct cs_saflood_target *draw(struct cs_saflood *f)
{
    return &f->targets[cs_rng_below(&f->rng, f->opt.num_targets)];
}

static void instance_done(void *arg, const struct cs_sa_path_reply *reply);

/* One instance's next query. */
static int ask(struct cs_saflood *f, struct cs_error *err)
{
    if (f->stopped || (f->opt.limit && f->totals.sent >= f->opt.limit)) {
        f->idle++;
        return 0;
    }
    const struct cs_saflood_target *src = f->opt.random_source ? draw(f) : &f->opt.source;
    const struct cs_saflood_target *dst = draw(f);
    struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET};
    if (f->opt.by_gid) {
        q.component_mask = CS_SA_PR_DGID | CS_SA_PR_SGID | CS_SA_PR_REVERSIBLE | CS_SA_PR_NUMB_PATH;
        cs_gid_make(q.record.dgid, f->opt.subnet_prefix, dst->guid);
        cs_gid_make(q.record.sgid, f->opt.subnet_prefix, src->guid);
        q.record.reversible = 1;
        q.record.numb_path = 1;
    } else {
        q.component_mask = CS_SA_PR_DLID | CS_SA_PR_SLID;
        q.record.dlid = dst->lid;
        q.record.slid = src->lid;
    }
    if (cs_sa_client_submit(f->sa, &q, instance_done, f, err) < 0)
        return -1;
    f->totals.sent++;
    return 0;
}

static void instance_done(void *arg, const struct cs_sa_path_reply *reply)
{
    struct cs_saflood *f = arg;
    switch (reply->result) {
    case CS_SA_OK:
        f->totals.answered++;
        if (f->in_window) {
            if (f->num_samples == f->cap_samples) {
                size_t cap = f->cap_samples ? 2 * f->cap_samples : 4096;
                double *grown = realloc(f->samples, cap * sizeof *grown);
                if (!grown) {
                    f->failed = true;
                    cs_fail(&f->failure, "out of memory for response times");
                    return;
                }
                f->samples = grown;
                f->cap_samples = cap;
            }
            f->samples[f->num_samples++] = (double)reply->response_us;
        }
        break;
    case CS_SA_TIMEOUT:
        f->totals.timeouts++;
        break;
    case CS_SA_STATUS:
    case CS_SA_MALFORMED:
        f->totals.refused++;
        break;
    }
    if (!f->failed && ask(f, &f->failure) < 0)
        f->failed = true;
}

int cs_saflood_add_instances(struct cs_saflood *f, unsigned count, struct cs_error *err)
{
    for (unsigned i = 0; i < count; i++) {
        if (ask(f, err) < 0)
            return -1;
        f->instances++;
    }
    return 0;
}

static int step(struct cs_saflood *f, int timeout_ms, struct cs_error *err)
{
    if (cs_sa_client_wait(f->sa, timeout_ms, err) < 0)
        return -1;
    if (f->failed) {
        *err = f->failure;
        return -1;
    }
    return 0;
}

int cs_saflood_run_until(struct cs_saflood *f, uint64_t until_us, struct cs_error *err)
{
    for (;;) {
        uint64_t now = cs_sa_client_now_us(f->sa);
        if (now >= until_us)
            return 0;
        uint64_t left_ms = (until_us - now + 999) / 1000;
        if (step(f, left_ms > 1000 ? 1000 : (int)left_ms, err) < 0)
            return -1;
    }
}

void cs_saflood_stop(struct cs_saflood *f)
{
    f->stopped = true;
}

int cs_saflood_drain(struct cs_saflood *f, struct cs_error *err)
{
    if (!f->opt.limit && !f->stopped)
        return cs_fail(err, "SA flooder: no query limit, and not stopped: it would run forever");
    while (cs_sa_client_outstanding(f->sa) > 0)
        if (step(f, 1000, err) < 0)
            return -1;
    return 0;
}

void cs_saflood_window_begin(struct cs_saflood *f)
{
    f->in_window = true;
    f->window_start_us = cs_sa_client_now_us(f->sa);
    f->at_start = f->totals;
    f->num_samples = 0;
}

int cs_saflood_window_end(struct cs_saflood *f, struct cs_saflood_window *out, struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!f->in_window)
        return cs_fail(err, "SA flooder: no collection window was begun");
    f->in_window = false;
    out->seconds = (double)(cs_sa_client_now_us(f->sa) - f->window_start_us) / 1e6;
    out->counts = (struct cs_saflood_counts){
        .sent = f->totals.sent - f->at_start.sent,
        .answered = f->totals.answered - f->at_start.answered,
        .refused = f->totals.refused - f->at_start.refused,
        .timeouts = f->totals.timeouts - f->at_start.timeouts,
    };
    out->qps = out->seconds > 0 ? (double)out->counts.answered / out->seconds : 0;
    cs_latency_summarize(f->samples, f->num_samples, &out->latency);
    return 0;
}

struct cs_saflood_counts cs_saflood_totals(const struct cs_saflood *f)
{
    return f->totals;
}
