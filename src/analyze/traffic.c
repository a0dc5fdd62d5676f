/* Link loads of measured traffic (include/cloudsm/traffic.h).
 *
 * Receivers are taken in LID order, 64 at a time: one transposed read of the tables' block
 * (cs_tracer_lft_columns) serves 64 destinations' routes. The receivers are split between
 * threads, each with its own routes, weights and link sums, added up at the end: every sum is of
 * integers (1/SCALE bytes/s), so the result does not depend on the number of threads. */
#include "cloudsm/traffic.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/grow.h"

/* cs_dest_routes_load adds integers: flows are carried in 1/SCALE bytes/s. */
#define SCALE 64.0

static bool is_end_port(const struct cs_fabric *f, uint32_t p)
{
    return f->nodes[f->ports[p].node].type != CS_NODE_SWITCH && f->ports[p].peer != CS_NONE;
}

void cs_traffic_load_free(struct cs_traffic_load *l)
{
    free(l->load);
    memset(l, 0, sizeof(*l));
}

/* u / (1 - u), continued along its tangent past CONGESTION_KNEE. */
#define CONGESTION_KNEE 0.99
static double link_congestion(double u)
{
    if (u < CONGESTION_KNEE)
        return u / (1 - u);
    double at = CONGESTION_KNEE / (1 - CONGESTION_KNEE);
    double slope = 1 / ((1 - CONGESTION_KNEE) * (1 - CONGESTION_KNEE));
    return at + (u - CONGESTION_KNEE) * slope;
}

static void summarise(const struct cs_tracer *t, struct cs_traffic_load *out)
{
    const struct cs_fabric *f = t->fabric;
    out->max_link = CS_NONE;
    for (uint32_t k = 0; k < t->links.count; k++) {
        uint32_t from = t->links.from[k];
        uint32_t to = f->ports[from].peer;
        if (f->nodes[f->ports[from].node].type != CS_NODE_SWITCH ||
            f->nodes[f->ports[to].node].type != CS_NODE_SWITCH || out->load[k] <= 0)
            continue;
        double capacity = cs_port_bytes_per_s(f, from);
        if (out->load[k] > out->max_load)
            out->max_load = out->load[k];
        if (capacity <= 0)
            continue;
        double u = out->load[k] / capacity;
        out->congestion_cost += link_congestion(u);
        if (out->max_link == CS_NONE || u > out->max_utilisation) {
            out->max_utilisation = u;
            out->max_link = k;
        }
        if (out->load[k] > capacity)
            out->overload += out->load[k] - capacity;
    }
}

/* What every thread reads. */
struct job {
    const struct cs_tracer *t;
    const double *xmit, *rcv;
    const double *sending; /* [switch] what the senders behind it send */
    const uint32_t *entry; /* [port] the switch it enters the fabric at, CS_NONE */
    const uint32_t *dests; /* receiving port indices, ascending LID */
    double received;
};

/* One thread's share of the receivers and its sums. */
struct part {
    const struct job *job;
    uint32_t first, last; /* dests[first .. last) */
    struct cs_dest_routes dr;
    uint8_t *columns;
    uint64_t *weight, *scaled;
    double routed;
    uint32_t undelivered;
    pthread_t thread;
    bool started;
};

static void *run_part(void *arg)
{
    struct part *p = arg;
    const struct job *j = p->job;
    const struct cs_tracer *t = j->t;
    const struct cs_fabric *f = t->fabric;
    uint32_t block = UINT32_MAX;
    for (uint32_t i = p->first; i < p->last; i++) {
        uint32_t d = j->dests[i], lid = f->ports[d].lid;
        uint32_t first = lid - lid % CS_LFT_BLOCK;
        if (first != block) {
            cs_tracer_lft_columns(t, first, CS_LFT_BLOCK, p->columns);
            block = first;
        }
        cs_dest_routes_compute_from(&p->dr, t, lid,
                                    p->columns + (size_t)(lid - first) * t->num_switches);
        double share = j->rcv[d] / j->received;
        for (uint32_t s = 0; s < t->num_switches; s++) {
            /* A receiver sends nothing to itself. */
            double from_here = j->sending[s] - (j->entry[d] == s ? j->xmit[d] : 0);
            p->weight[s] = 0;
            if (from_here <= 0)
                continue;
            if (p->dr.outcome[s] != CS_TRACE_DELIVERED) {
                p->undelivered++;
                continue;
            }
            p->weight[s] = (uint64_t)llround(from_here * share * SCALE);
            p->routed += from_here * share;
        }
        cs_dest_routes_load(&p->dr, p->weight, p->scaled);
    }
    return NULL;
}

static int cmp_lid(const void *a, const void *b, void *fabric)
{
    const struct cs_fabric *f = fabric;
    uint16_t x = f->ports[*(const uint32_t *)a].lid, y = f->ports[*(const uint32_t *)b].lid;
    return (x > y) - (x < y);
}

static void free_part(struct part *p)
{
    cs_dest_routes_free(&p->dr);
    free(p->columns);
    free(p->weight);
    free(p->scaled);
}

int cs_traffic_load(const struct cs_tracer *t, const double *xmit, const double *rcv,
                    struct cs_traffic_load *out, struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    memset(out, 0, sizeof(*out));
    out->num_links = t->links.count;
    out->load = cs_calloc_array(t->links.count, sizeof(*out->load), err);
    double *sending = cs_calloc_array(t->num_switches, sizeof(*sending), err);
    uint32_t *entry = cs_calloc_array(f->num_port_slots, sizeof(*entry), err);
    uint32_t *dests = cs_calloc_array(f->num_port_slots, sizeof(*dests), err);
    struct part *parts = NULL;
    unsigned threads = 0;
    int rc = -1;
    if (out->load == NULL || sending == NULL || entry == NULL || dests == NULL)
        goto out;
    /* What the senders behind each switch send, the total received, the receivers. */
    struct job job = {
        .t = t, .xmit = xmit, .rcv = rcv, .sending = sending, .entry = entry, .dests = dests};
    uint32_t num_dests = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        entry[p] = CS_NONE;
        if (!is_end_port(f, p))
            continue;
        entry[p] = cs_tracer_entry_switch(t, p);
        if (entry[p] != CS_NONE)
            sending[entry[p]] += xmit[p];
        job.received += rcv[p];
        if (rcv[p] > 0 && f->ports[p].lid != 0)
            dests[num_dests++] = p;
    }
    if (job.received <= 0) {
        rc = 0;
        goto out;
    }
    qsort_r(dests, num_dests, sizeof(*dests), cmp_lid, (void *)f);
    /* Threads only where the work pays for them: a destination costs a pass over the switches. */
    threads = cs_threads_for(0, (uint64_t)num_dests * (t->num_switches + 1), 1u << 20, 64,
                             num_dests ? num_dests : 1);
    parts = cs_calloc_array(threads, sizeof(*parts), err);
    if (parts == NULL)
        goto out;
    for (unsigned i = 0; i < threads; i++) {
        struct part *p = &parts[i];
        p->job = &job;
        p->first = (uint32_t)((uint64_t)num_dests * i / threads);
        p->last = (uint32_t)((uint64_t)num_dests * (i + 1) / threads);
        p->columns = cs_calloc_array((size_t)CS_LFT_BLOCK * t->num_switches, 1, err);
        p->weight = cs_calloc_array(t->num_switches, sizeof(*p->weight), err);
        p->scaled = cs_calloc_array(t->links.count, sizeof(*p->scaled), err);
        if (p->columns == NULL || p->weight == NULL || p->scaled == NULL ||
            cs_dest_routes_init(&p->dr, t, err) < 0)
            goto out;
    }
    for (unsigned i = 1; i < threads; i++)
        parts[i].started = pthread_create(&parts[i].thread, NULL, run_part, &parts[i]) == 0;
    run_part(&parts[0]);
    for (unsigned i = 1; i < threads; i++) {
        if (parts[i].started)
            pthread_join(parts[i].thread, NULL);
        else
            run_part(&parts[i]);
    }
    for (uint32_t k = 0; k < t->links.count; k++) {
        uint64_t sum = 0;
        for (unsigned i = 0; i < threads; i++)
            sum += parts[i].scaled[k];
        out->load[k] = (double)sum / SCALE;
    }
    for (unsigned i = 0; i < threads; i++) {
        out->routed += parts[i].routed;
        out->undelivered += parts[i].undelivered;
    }
    /* Host uplinks: each sender's flows to every destination but itself. */
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (entry[p] != CS_NONE && t->links.out[p] != CS_NONE)
            out->load[t->links.out[p]] += xmit[p] * (job.received - rcv[p]) / job.received;
    summarise(t, out);
    rc = 0;
out:
    for (unsigned i = 0; parts != NULL && i < threads; i++)
        free_part(&parts[i]);
    free(parts);
    free(sending);
    free(entry);
    free(dests);
    if (rc < 0)
        cs_traffic_load_free(out);
    return rc;
}
