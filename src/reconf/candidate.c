/* Reconfiguration candidates (include/cloudsm/candidate.h). */
#include "cloudsm/candidate.h"

#include <stdio.h>
#include <string.h>

#include "cloudsm/analyze.h"
#include "cloudsm/lft_diff.h"
#include "cloudsm/traffic.h"

void cs_candidate_free(struct cs_candidate *c)
{
    cs_lfts_free(&c->lfts);
    memset(c, 0, sizeof(*c));
}

/* The learned traffic's load on the tables in force, kept to price every candidate from. */
struct baseline {
    struct cs_tracer tracer;
    struct cs_traffic_load load;
};

/* The traffic's load on a candidate's tables: its congestion cost and busiest link's
 * utilisation, from the baseline (only the receivers whose routes the candidate changes are
 * routed again). */
static int load_of(const struct cs_fabric *f, const struct baseline *base,
                   const struct cs_candidate_traffic *traffic, struct cs_candidate *c,
                   struct cs_error *err)
{
    struct cs_tracer t;
    if (cs_tracer_init(&t, f, &c->lfts, err) < 0)
        return -1;
    struct cs_traffic_load load;
    int rc = cs_traffic_load_since(&t, &base->tracer, &base->load, traffic->xmit, traffic->rcv,
                                   &load, err);
    if (rc == 0) {
        c->cost_after = load.congestion_cost;
        c->max_utilisation_after = load.max_utilisation;
        cs_traffic_load_free(&load);
    }
    cs_tracer_free(&t);
    return rc;
}

static int evaluate(const struct cs_fabric *f, const struct cs_lfts *current,
                    const struct cs_candidate_request *rq, const struct baseline *base,
                    const struct cs_candidate_traffic *traffic, double t_smp_ms,
                    struct cs_candidate *c, struct cs_error *err)
{
    struct cs_route_stats st;
    if (cs_route_with(rq->engine, f, &rq->options, &rq->inputs, &c->lfts, &st, NULL, err) < 0)
        return -1;
    snprintf(c->engine, sizeof c->engine, "%s", st.engine);
    c->route_ms = st.route_ms;
    struct cs_lft_diff d;
    if (cs_lft_diff(current, &c->lfts, &d, err) < 0)
        return -1;
    c->blocks = d.blocks_changed;
    c->entries = d.entries_changed;
    c->switches = d.switches_changed;
    c->predicted_ms = c->route_ms + cs_lft_diff_predicted_ms(&d, t_smp_ms);
    cs_lft_diff_free(&d);
    c->cost_before = c->cost_after = base ? base->load.congestion_cost : 0;
    c->max_utilisation_before = c->max_utilisation_after = base ? base->load.max_utilisation : 0;
    if (base == NULL || c->blocks == 0) /* the same tables: the same load */
        return 0;
    if (load_of(f, base, traffic, c, err) < 0)
        return -1;
    c->gain = c->cost_before > 0 ? (c->cost_before - c->cost_after) / c->cost_before : 0;
    return 0;
}

int cs_candidates_evaluate(const struct cs_fabric *f, const struct cs_lfts *current,
                           const struct cs_candidate_request *requests, uint32_t count,
                           const struct cs_candidate_traffic *traffic, double t_smp_ms,
                           struct cs_candidate *out, struct cs_error *err)
{
    memset(out, 0, count * sizeof(*out));
    struct baseline base;
    bool have_base = false;
    if (traffic != NULL) {
        if (cs_tracer_init(&base.tracer, f, current, err) < 0)
            return -1;
        if (cs_traffic_load(&base.tracer, traffic->xmit, traffic->rcv, &base.load, err) < 0) {
            cs_tracer_free(&base.tracer);
            return -1;
        }
        have_base = true;
    }
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        if (evaluate(f, current, &requests[i], have_base ? &base : NULL, traffic, t_smp_ms, &out[i],
                     err) < 0) {
            struct cs_error why = *err;
            cs_fail(err, "candidate %u (%s): %s", i + 1, requests[i].engine, why.msg);
            for (uint32_t k = 0; k <= i; k++)
                cs_candidate_free(&out[k]);
            rc = -1;
        }
    }
    if (have_base) {
        cs_traffic_load_free(&base.load);
        cs_tracer_free(&base.tracer);
    }
    return rc;
}
