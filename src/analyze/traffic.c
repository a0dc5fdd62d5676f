/* Link loads of measured traffic (include/cloudsm/traffic.h). */
#include "cloudsm/traffic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int cs_traffic_load(const struct cs_tracer *t, const double *xmit, const double *rcv,
                    struct cs_traffic_load *out, struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    memset(out, 0, sizeof(*out));
    out->num_links = t->links.count;
    out->load = cs_calloc_array(t->links.count, sizeof(*out->load), err);
    double *sending = cs_calloc_array(t->num_switches, sizeof(*sending), err);
    uint64_t *weight = cs_calloc_array(t->num_switches, sizeof(*weight), err);
    uint64_t *scaled = cs_calloc_array(t->links.count, sizeof(*scaled), err);
    uint32_t *entry = cs_calloc_array(f->num_port_slots, sizeof(*entry), err);
    struct cs_dest_routes dr;
    memset(&dr, 0, sizeof(dr));
    int rc = -1;
    if (out->load == NULL || sending == NULL || weight == NULL || scaled == NULL || entry == NULL ||
        cs_dest_routes_init(&dr, t, err) < 0)
        goto out;
    /* What the senders behind each switch send, and the total received. */
    double received = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        entry[p] = CS_NONE;
        if (!is_end_port(f, p))
            continue;
        entry[p] = cs_tracer_entry_switch(t, p);
        if (entry[p] != CS_NONE)
            sending[entry[p]] += xmit[p];
        received += rcv[p];
    }
    if (received <= 0) {
        rc = 0;
        goto out;
    }
    for (uint32_t d = 0; d < f->num_port_slots; d++) {
        if (!is_end_port(f, d) || rcv[d] <= 0 || f->ports[d].lid == 0)
            continue;
        double share = rcv[d] / received;
        cs_dest_routes_compute(&dr, t, f->ports[d].lid);
        for (uint32_t s = 0; s < t->num_switches; s++) {
            double from_here = sending[s] - (entry[d] == s ? xmit[d] : 0);
            weight[s] = 0;
            if (from_here <= 0)
                continue;
            if (dr.outcome[s] != CS_TRACE_DELIVERED) {
                out->undelivered++;
                continue;
            }
            weight[s] = (uint64_t)llround(from_here * share * SCALE);
            out->routed += from_here * share;
        }
        cs_dest_routes_load(&dr, weight, scaled);
    }
    for (uint32_t k = 0; k < t->links.count; k++)
        out->load[k] = (double)scaled[k] / SCALE;
    /* Host uplinks: each sender's flows to every destination but itself. */
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (entry[p] != CS_NONE && t->links.out[p] != CS_NONE)
            out->load[t->links.out[p]] += xmit[p] * (received - rcv[p]) / received;
    summarise(t, out);
    rc = 0;
out:
    cs_dest_routes_free(&dr);
    free(sending);
    free(weight);
    free(scaled);
    free(entry);
    if (rc < 0)
        cs_traffic_load_free(out);
    return rc;
}
