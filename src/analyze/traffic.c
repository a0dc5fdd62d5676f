/* Link loads of measured traffic (include/cloudsm/traffic.h).
 *
 * Receivers are taken in LID order, 64 at a time: one transposed read of the tables' block
 * (cs_tracer_lft_columns) serves 64 destinations' routes. The receivers are split between
 * threads, each with its own routes, weights and link sums, added up at the end: every sum is of
 * integers (1/SCALE bytes/s), so the result does not depend on the number of threads, and a load
 * relative to another can take out and put back receivers' flows exactly. */
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
    free(l->scaled);
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

/* ---- The traffic, independent of the tables ---- */

struct job {
    const struct cs_fabric *f;
    const double *xmit, *rcv;
    double *sending; /* [switch] what the senders behind it send */
    uint32_t *entry; /* [port] the switch it enters the fabric at, CS_NONE */
    uint32_t *dests; /* receiving port indices, ascending LID */
    uint32_t num_dests;
    double received;
};

static int cmp_lid(const void *a, const void *b, void *fabric)
{
    const struct cs_fabric *f = fabric;
    uint16_t x = f->ports[*(const uint32_t *)a].lid, y = f->ports[*(const uint32_t *)b].lid;
    return (x > y) - (x < y);
}

static void job_free(struct job *j)
{
    free(j->sending);
    free(j->entry);
    free(j->dests);
}

/* The senders behind each switch, the receivers, the total received. The switch a port enters
 * at is the fabric's, so any tracer of the fabric gives the same job. */
static int job_init(struct job *j, const struct cs_tracer *t, const double *xmit, const double *rcv,
                    struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    memset(j, 0, sizeof(*j));
    *j = (struct job){.f = f, .xmit = xmit, .rcv = rcv};
    j->sending = cs_calloc_array(t->num_switches, sizeof(*j->sending), err);
    j->entry = cs_calloc_array(f->num_port_slots, sizeof(*j->entry), err);
    j->dests = cs_calloc_array(f->num_port_slots, sizeof(*j->dests), err);
    if (j->sending == NULL || j->entry == NULL || j->dests == NULL) {
        job_free(j);
        return -1;
    }
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        j->entry[p] = CS_NONE;
        if (!is_end_port(f, p))
            continue;
        j->entry[p] = cs_tracer_entry_switch(t, p);
        if (j->entry[p] != CS_NONE)
            j->sending[j->entry[p]] += xmit[p];
        j->received += rcv[p];
        if (rcv[p] > 0 && f->ports[p].lid != 0)
            j->dests[j->num_dests++] = p;
    }
    qsort_r(j->dests, j->num_dests, sizeof(*j->dests), cmp_lid, (void *)f);
    return 0;
}

/* ---- Routing receivers' flows over one set of tables ---- */

/* What flows to some receivers put on the links, in 1/SCALE bytes/s. */
struct sums {
    uint64_t *scaled; /* [link] */
    double routed;
    uint32_t undelivered;
};

/* One thread's share of the receivers and its sums. */
struct part {
    const struct job *job;
    const struct cs_tracer *t;
    const uint32_t *dests;
    uint32_t first, last; /* dests[first .. last) */
    struct cs_dest_routes dr;
    uint8_t *columns;
    uint64_t *weight;
    struct sums sums;
    pthread_t thread;
    bool started;
};

static void *run_part(void *arg)
{
    struct part *p = arg;
    const struct job *j = p->job;
    const struct cs_tracer *t = p->t;
    uint32_t block = UINT32_MAX;
    for (uint32_t i = p->first; i < p->last; i++) {
        uint32_t d = p->dests[i], lid = j->f->ports[d].lid;
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
                p->sums.undelivered++;
                continue;
            }
            p->weight[s] = (uint64_t)llround(from_here * share * SCALE);
            p->sums.routed += from_here * share;
        }
        cs_dest_routes_load(&p->dr, p->weight, p->sums.scaled);
    }
    return NULL;
}

/* The flows to dests[0 .. count) over t's tables, added into out (its scaled array zeroed). */
static int route_flows(const struct job *j, const struct cs_tracer *t, const uint32_t *dests,
                       uint32_t count, struct sums *out, struct cs_error *err)
{
    /* Threads only where the work pays for them: a destination costs a pass over the switches. */
    unsigned threads =
        cs_threads_for(0, (uint64_t)count * (t->num_switches + 1), 1u << 20, 64, count ? count : 1);
    struct part *parts = cs_calloc_array(threads, sizeof(*parts), err);
    int rc = -1;
    if (parts == NULL)
        return -1;
    for (unsigned i = 0; i < threads; i++) {
        struct part *p = &parts[i];
        *p = (struct part){.job = j,
                           .t = t,
                           .dests = dests,
                           .first = (uint32_t)((uint64_t)count * i / threads),
                           .last = (uint32_t)((uint64_t)count * (i + 1) / threads)};
        p->columns = cs_calloc_array((size_t)CS_LFT_BLOCK * t->num_switches, 1, err);
        p->weight = cs_calloc_array(t->num_switches, sizeof(*p->weight), err);
        p->sums.scaled = cs_calloc_array(t->links.count, sizeof(*p->sums.scaled), err);
        if (p->columns == NULL || p->weight == NULL || p->sums.scaled == NULL ||
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
    for (unsigned i = 0; i < threads; i++) {
        for (uint32_t k = 0; k < t->links.count; k++)
            out->scaled[k] += parts[i].sums.scaled[k];
        out->routed += parts[i].sums.routed;
        out->undelivered += parts[i].sums.undelivered;
    }
    rc = 0;
out:
    for (unsigned i = 0; i < threads; i++) {
        cs_dest_routes_free(&parts[i].dr);
        free(parts[i].columns);
        free(parts[i].weight);
        free(parts[i].sums.scaled);
    }
    free(parts);
    return rc;
}

/* ---- The load: sums, host links, summary ---- */

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

/* out's loads from its sums, plus what the senders' own links carry (each sender's flows to
 * every destination but itself, whatever the tables), then the summary. */
static void finish(const struct job *j, const struct cs_tracer *t, struct cs_traffic_load *out)
{
    for (uint32_t k = 0; k < t->links.count; k++)
        out->load[k] = (double)out->scaled[k] / SCALE;
    for (uint32_t p = 0; p < j->f->num_port_slots; p++)
        if (j->entry[p] != CS_NONE && t->links.out[p] != CS_NONE)
            out->load[t->links.out[p]] += j->xmit[p] * (j->received - j->rcv[p]) / j->received;
    summarise(t, out);
}

static int load_init(struct cs_traffic_load *out, const struct cs_tracer *t, struct cs_error *err)
{
    memset(out, 0, sizeof(*out));
    out->num_links = t->links.count;
    out->load = cs_calloc_array(t->links.count, sizeof(*out->load), err);
    out->scaled = cs_calloc_array(t->links.count, sizeof(*out->scaled), err);
    if (out->load == NULL || out->scaled == NULL) {
        cs_traffic_load_free(out);
        return -1;
    }
    return 0;
}

int cs_traffic_load(const struct cs_tracer *t, const double *xmit, const double *rcv,
                    struct cs_traffic_load *out, struct cs_error *err)
{
    struct job j;
    if (load_init(out, t, err) < 0)
        return -1;
    if (job_init(&j, t, xmit, rcv, err) < 0) {
        cs_traffic_load_free(out);
        return -1;
    }
    int rc = 0;
    if (j.received > 0) {
        struct sums s = {.scaled = out->scaled};
        rc = route_flows(&j, t, j.dests, j.num_dests, &s, err);
        out->routed = s.routed;
        out->undelivered = s.undelivered;
        if (rc == 0)
            finish(&j, t, out);
    }
    job_free(&j);
    if (rc < 0)
        cs_traffic_load_free(out);
    return rc;
}

/* The receivers whose route from some switch differs between the two tracers' tables. */
static uint32_t changed_receivers(const struct job *j, const struct cs_tracer *t,
                                  const struct cs_tracer *base, uint32_t *changed, uint8_t *cols,
                                  uint8_t *base_cols)
{
    uint32_t count = 0, block = UINT32_MAX;
    size_t S = t->num_switches;
    for (uint32_t i = 0; i < j->num_dests; i++) {
        uint32_t lid = j->f->ports[j->dests[i]].lid, first = lid - lid % CS_LFT_BLOCK;
        if (first != block) {
            cs_tracer_lft_columns(t, first, CS_LFT_BLOCK, cols);
            cs_tracer_lft_columns(base, first, CS_LFT_BLOCK, base_cols);
            block = first;
        }
        size_t at = (size_t)(lid - first) * S;
        if (memcmp(cols + at, base_cols + at, S) != 0)
            changed[count++] = j->dests[i];
    }
    return count;
}

int cs_traffic_load_since(const struct cs_tracer *t, const struct cs_tracer *base_tracer,
                          const struct cs_traffic_load *base, const double *xmit, const double *rcv,
                          struct cs_traffic_load *out, struct cs_error *err)
{
    struct job j;
    if (job_init(&j, t, xmit, rcv, err) < 0)
        return -1;
    uint32_t *changed = cs_calloc_array(j.num_dests + 1, sizeof(*changed), err);
    uint8_t *cols = cs_calloc_array((size_t)CS_LFT_BLOCK * t->num_switches + 1, 1, err);
    uint8_t *base_cols = cs_calloc_array((size_t)CS_LFT_BLOCK * t->num_switches + 1, 1, err);
    uint64_t *old = cs_calloc_array(t->links.count + 1, sizeof(*old), err);
    int rc = -1;
    if (changed == NULL || cols == NULL || base_cols == NULL || old == NULL)
        goto out;
    uint32_t count = changed_receivers(&j, t, base_tracer, changed, cols, base_cols);
    if (count > j.num_dests / 2 || j.received <= 0) { /* not worth it: the whole load */
        rc = cs_traffic_load(t, xmit, rcv, out, err);
        goto out;
    }
    /* The changed receivers' flows come out (as the base routed them) and go back in (as t
     * routes them): integer sums, so what comes out is exactly what the base put in. */
    if (load_init(out, t, err) < 0)
        goto out;
    struct sums was = {.scaled = old}, now = {.scaled = out->scaled};
    if (route_flows(&j, base_tracer, changed, count, &was, err) < 0 ||
        route_flows(&j, t, changed, count, &now, err) < 0) {
        cs_traffic_load_free(out);
        goto out;
    }
    for (uint32_t k = 0; k < t->links.count; k++)
        out->scaled[k] += base->scaled[k] - old[k];
    out->routed = base->routed - was.routed + now.routed;
    out->undelivered = base->undelivered - was.undelivered + now.undelivered;
    finish(&j, t, out);
    rc = 0;
out:
    free(changed);
    free(cols);
    free(base_cols);
    free(old);
    job_free(&j);
    return rc;
}
