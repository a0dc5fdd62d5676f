/* The performance manager (include/cloudsm/perfmgr.h). */
#include "cloudsm/perfmgr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloudsm/pma.h"
#include "cloudsm/smp.h"
#include "core/grow.h"

/* The error counters of PortCounters, and their widths: all of them sum into
 * CS_METRIC_ERRORS. */
enum { NUM_ERROR_COUNTERS = 12 };
static const unsigned error_bits[NUM_ERROR_COUNTERS] = {16, 8, 8, 16, 16, 16, 16, 8, 8, 4, 4, 16};

static void error_counters(const struct cs_pma_port_counters *c, uint64_t v[NUM_ERROR_COUNTERS])
{
    v[0] = c->symbol_errors;
    v[1] = c->link_error_recovery;
    v[2] = c->link_downed;
    v[3] = c->rcv_errors;
    v[4] = c->rcv_remote_physical_errors;
    v[5] = c->rcv_switch_relay_errors;
    v[6] = c->xmit_discards;
    v[7] = c->xmit_constraint_errors;
    v[8] = c->rcv_constraint_errors;
    v[9] = c->local_link_integrity_errors;
    v[10] = c->excessive_buffer_overruns;
    v[11] = c->vl15_dropped;
}

static uint32_t flag_of(enum cs_pma_change c)
{
    return c == CS_PMA_RESET ? CS_METRIC_RESET : c == CS_PMA_SATURATED ? CS_METRIC_SATURATED : 0;
}

/* One port's counters at one moment: what a sample is the difference of. */
struct cs_perfmgr_reading {
    bool valid;
    bool data_32bit;    /* the data and packet counters are PortCounters' 32-bit ones */
    uint64_t at_us;     /* the pipe's clock when the last of its replies came */
    uint64_t data[4];   /* xmit_data, rcv_data (octets / 4), xmit_pkts, rcv_pkts */
    uint64_t xmit_wait; /* 32-bit */
    uint64_t errors[NUM_ERROR_COUNTERS];
};

/* What one poll collects for one port before it becomes a reading. */
struct pending {
    struct cs_pma_port_counters counters;
    struct cs_pma_port_counters_ext extended;
    bool got_counters, got_extended, refused_extended, failed;
    uint64_t at_us;
};

struct poll_ctx {
    struct cs_perfmgr *pm;
    struct cs_smp_pipe *pipe;
    struct pending *pending;
    uint64_t timeouts;
};

struct request_ref {
    struct poll_ctx *ctx;
    uint32_t port;
};

void cs_perfmgr_init(struct cs_perfmgr *pm, double keep_s)
{
    memset(pm, 0, sizeof(*pm));
    cs_metrics_init(&pm->metrics);
    pm->keep_s = keep_s;
}

void cs_perfmgr_free(struct cs_perfmgr *pm)
{
    cs_metrics_free(&pm->metrics);
    free(pm->last);
    free(pm->no_extended);
    double keep_s = pm->keep_s;
    cs_perfmgr_init(pm, keep_s);
}

double cs_perfmgr_wall_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cs_perfmgr_set_fabric(struct cs_perfmgr *pm, const struct cs_fabric *f,
                          const struct cs_partition_set *pset, struct cs_error *err)
{
    struct cs_metrics next;
    cs_metrics_init(&next);
    if (cs_metrics_set_fabric(&next, f, pset, err) < 0)
        return -1;
    struct cs_perfmgr_reading *last = cs_calloc_array(next.num_ports, sizeof(*last), err);
    bool *no_extended = cs_calloc_array(next.num_nodes, sizeof(*no_extended), err);
    uint32_t *moved = cs_calloc_array(pm->metrics.num_ports, sizeof(*moved), err);
    if (last == NULL || no_extended == NULL || moved == NULL) {
        free(last);
        free(no_extended);
        free(moved);
        cs_metrics_free(&next);
        return -1;
    }
    const struct cs_metrics *old = &pm->metrics;
    for (uint32_t i = 0; i < old->num_ports; i++) {
        const struct cs_metric_port *p = &old->ports[i];
        uint64_t node_guid = old->nodes[p->node].guid;
        moved[i] = cs_metrics_find_port(&next, node_guid, p->num);
        if (moved[i] != UINT32_MAX)
            last[moved[i]] = pm->last[i];
    }
    for (uint32_t n = 0; n < old->num_nodes; n++) {
        uint32_t at = cs_metrics_find_node(&next, old->nodes[n].guid);
        if (at != UINT32_MAX)
            no_extended[at] = pm->no_extended[n];
    }
    int rc = 0;
    for (uint32_t s = 0; s < old->num_samples && rc == 0; s++) {
        struct cs_metric_sample sample = old->samples[s];
        if (moved[sample.port] == UINT32_MAX)
            continue;
        sample.port = moved[sample.port];
        rc = cs_metrics_add_sample(&next, &sample, err);
    }
    free(moved);
    if (rc < 0) {
        free(last);
        free(no_extended);
        cs_metrics_free(&next);
        return -1;
    }
    cs_metrics_free(&pm->metrics);
    free(pm->last);
    free(pm->no_extended);
    pm->metrics = next;
    pm->last = last;
    pm->no_extended = no_extended;
    return 0;
}

/* A port's reply, of either attribute (the request says which). */
static int reply_done(void *arg, enum cs_smp_result result, const uint8_t *request,
                      const uint8_t *reply, struct cs_error *err)
{
    (void)err;
    struct request_ref *ref = arg;
    struct pending *p = &ref->ctx->pending[ref->port];
    struct cs_mad_header asked, got;
    cs_mad_header_decode(request, &asked);
    bool extended = asked.attr_id == CS_PMA_ATTR_PORT_COUNTERS_EXT;
    if (result == CS_SMP_TIMEOUT)
        ref->ctx->timeouts++;
    if (reply != NULL)
        cs_mad_header_decode(reply, &got);
    if (extended && result == CS_SMP_STATUS && (got.status & 0x1c) == 0x0c) {
        p->refused_extended = true; /* unsupported attribute: the agent has no 64-bit counters */
        return 0;
    }
    struct cs_error ignored;
    int decoded =
        result != CS_SMP_OK ? -1
        : extended ? cs_pma_decode_port_counters_ext(reply, CS_PMA_MAD_SIZE, &p->extended, &ignored)
                   : cs_pma_decode_port_counters(reply, CS_PMA_MAD_SIZE, &p->counters, &ignored);
    if (decoded < 0) {
        p->failed = true;
        return 0;
    }
    if (extended) {
        p->got_extended = true;
    } else {
        p->got_counters = true;
        p->at_us = cs_smp_pipe_now_us(ref->ctx->pipe);
    }
    return 0;
}

/* The reading a port's replies make, or false if they do not make one. */
static bool make_reading(const struct pending *p, bool extended, struct cs_perfmgr_reading *r)
{
    if (p->failed || !p->got_counters || (extended && !p->got_extended))
        return false;
    memset(r, 0, sizeof(*r));
    r->valid = true;
    r->at_us = p->at_us;
    r->data_32bit = !extended;
    if (extended) {
        r->data[0] = p->extended.xmit_data;
        r->data[1] = p->extended.rcv_data;
        r->data[2] = p->extended.xmit_pkts;
        r->data[3] = p->extended.rcv_pkts;
    } else {
        r->data[0] = p->counters.xmit_data;
        r->data[1] = p->counters.rcv_data;
        r->data[2] = p->counters.xmit_pkts;
        r->data[3] = p->counters.rcv_pkts;
    }
    r->xmit_wait = p->counters.xmit_wait;
    error_counters(&p->counters, r->errors);
    return true;
}

/* The sample between two readings of one port; false if they cannot be compared (different
 * counter widths, no time between them). */
static bool make_sample(const struct cs_perfmgr_reading *before,
                        const struct cs_perfmgr_reading *now, uint32_t port, double wall_s,
                        struct cs_metric_sample *s)
{
    if (!before->valid || before->data_32bit != now->data_32bit || now->at_us <= before->at_us)
        return false;
    memset(s, 0, sizeof(*s));
    s->time = wall_s;
    s->interval = (double)(now->at_us - before->at_us) / 1e6;
    s->port = port;
    unsigned data_bits = now->data_32bit ? 32 : 64;
    static const enum cs_metric data_metric[4] = {CS_METRIC_XMIT_BYTES, CS_METRIC_RCV_BYTES,
                                                  CS_METRIC_XMIT_PKTS, CS_METRIC_RCV_PKTS};
    uint64_t delta;
    for (int i = 0; i < 4; i++) {
        enum cs_pma_change c = cs_pma_delta(before->data[i], now->data[i], data_bits, &delta);
        s->flags |= flag_of(c);
        /* The data counters count octets divided by 4. */
        double units = i < 2 ? 4.0 * (double)delta : (double)delta;
        s->value[data_metric[i]] = units / s->interval;
    }
    enum cs_pma_change c = cs_pma_delta(before->xmit_wait, now->xmit_wait, 32, &delta);
    s->flags |= flag_of(c);
    s->value[CS_METRIC_XMIT_WAIT] = (double)delta / s->interval;
    uint64_t errors = 0;
    for (int i = 0; i < NUM_ERROR_COUNTERS; i++) {
        c = cs_pma_delta(before->errors[i], now->errors[i], error_bits[i], &delta);
        s->flags |= flag_of(c);
        errors += delta;
    }
    s->value[CS_METRIC_ERRORS] = (double)errors / s->interval;
    return true;
}

/* Drop the samples older than keep_s before now. */
static void trim(struct cs_perfmgr *pm, double now)
{
    struct cs_metrics *m = &pm->metrics;
    uint32_t drop = 0;
    while (drop < m->num_samples && m->samples[drop].time < now - pm->keep_s)
        drop++;
    if (drop == 0)
        return;
    memmove(m->samples, m->samples + drop, (m->num_samples - drop) * sizeof(*m->samples));
    m->num_samples -= drop;
}

static int submit(struct poll_ctx *ctx, struct request_ref *ref, uint16_t attr,
                  struct cs_error *err)
{
    const struct cs_metric_port *port = &ctx->pm->metrics.ports[ref->port];
    uint8_t mad[CS_PMA_MAD_SIZE];
    cs_pma_get_request(mad, attr, port->num, 0);
    return cs_smp_pipe_submit_mad(ctx->pipe, mad, port->lid, reply_done, ref, err);
}

int cs_perfmgr_poll(struct cs_perfmgr *pm, struct cs_smp_pipe *pipe, double (*wall_s)(void),
                    struct cs_perfmgr_poll *out, struct cs_error *err)
{
    struct cs_metrics *m = &pm->metrics;
    struct cs_perfmgr_poll res = {.ports = m->num_ports, .first_sample = m->num_samples};
    struct poll_ctx ctx = {.pm = pm, .pipe = pipe};
    ctx.pending = cs_calloc_array(m->num_ports, sizeof(*ctx.pending), err);
    struct request_ref *refs = cs_calloc_array(m->num_ports, sizeof(*refs), err);
    int rc = -1;
    if (ctx.pending == NULL || refs == NULL)
        goto out;
    struct cs_smp_pipe_stats before = cs_smp_pipe_stats(pipe);
    uint64_t start_us = cs_smp_pipe_now_us(pipe);
    for (uint32_t i = 0; i < m->num_ports; i++) {
        refs[i] = (struct request_ref){&ctx, i};
        if (submit(&ctx, &refs[i], CS_PMA_ATTR_PORT_COUNTERS, err) < 0)
            goto out;
        if (!pm->no_extended[m->ports[i].node] &&
            submit(&ctx, &refs[i], CS_PMA_ATTR_PORT_COUNTERS_EXT, err) < 0)
            goto out;
    }
    if (cs_smp_pipe_run(pipe, err) < 0)
        goto out;
    struct cs_smp_pipe_stats used = cs_smp_pipe_stats(pipe);
    used = cs_smp_pipe_stats_since(&used, &before);
    res.mads = used.gets + used.sets;
    res.timeouts = ctx.timeouts;
    res.ms = (double)(cs_smp_pipe_now_us(pipe) - start_us) / 1e3;
    double stamp = wall_s();
    for (uint32_t i = 0; i < m->num_ports; i++) {
        struct pending *p = &ctx.pending[i];
        uint32_t node = m->ports[i].node;
        if (p->refused_extended)
            pm->no_extended[node] = true; /* asked for PortCounters alone from the next poll on */
        struct cs_perfmgr_reading now;
        if (!make_reading(p, !pm->no_extended[node], &now)) {
            res.failed++;
            continue;
        }
        res.read++;
        struct cs_metric_sample s;
        if (make_sample(&pm->last[i], &now, i, stamp, &s)) {
            if (cs_metrics_add_sample(m, &s, err) < 0)
                goto out;
            res.sampled++;
            res.flagged += s.flags != 0;
        }
        pm->last[i] = now;
    }
    trim(pm, stamp);
    res.first_sample = m->num_samples - res.sampled;
    pm->polls++;
    pm->last_poll = res;
    pm->last_poll_interval_s = pm->polls > 1 ? stamp - pm->last_poll_wall : 0;
    pm->last_poll_wall = stamp;
    if (out != NULL)
        *out = res;
    rc = 0;
out:
    free(ctx.pending);
    free(refs);
    return rc;
}
