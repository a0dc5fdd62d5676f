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

/* The traffic's load on tables: its congestion cost and busiest link's utilisation. */
static int load_of(const struct cs_fabric *f, const struct cs_lfts *lfts,
                   const struct cs_candidate_traffic *traffic, double *cost, double *max_util,
                   struct cs_error *err)
{
    struct cs_tracer t;
    if (cs_tracer_init(&t, f, lfts, err) < 0)
        return -1;
    struct cs_traffic_load load;
    int rc = cs_traffic_load(&t, traffic->xmit, traffic->rcv, &load, err);
    if (rc == 0) {
        *cost = load.congestion_cost;
        *max_util = load.max_utilisation;
        cs_traffic_load_free(&load);
    }
    cs_tracer_free(&t);
    return rc;
}

static int evaluate(const struct cs_fabric *f, const struct cs_lfts *current,
                    const struct cs_candidate_request *rq,
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
    if (traffic == NULL)
        return 0;
    return load_of(f, &c->lfts, traffic, &c->cost_after, &c->max_utilisation_after, err);
}

int cs_candidates_evaluate(const struct cs_fabric *f, const struct cs_lfts *current,
                           const struct cs_candidate_request *requests, uint32_t count,
                           const struct cs_candidate_traffic *traffic, double t_smp_ms,
                           struct cs_candidate *out, struct cs_error *err)
{
    memset(out, 0, count * sizeof(*out));
    double cost_before = 0, util_before = 0;
    if (traffic != NULL && load_of(f, current, traffic, &cost_before, &util_before, err) < 0)
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        struct cs_candidate *c = &out[i];
        if (evaluate(f, current, &requests[i], traffic, t_smp_ms, c, err) < 0) {
            struct cs_error why = *err;
            cs_fail(err, "candidate %u (%s): %s", i + 1, requests[i].engine, why.msg);
            for (uint32_t k = 0; k <= i; k++)
                cs_candidate_free(&out[k]);
            return -1;
        }
        c->cost_before = cost_before;
        c->max_utilisation_before = util_before;
        c->gain = cost_before > 0 ? (cost_before - c->cost_after) / cost_before : 0;
    }
    return 0;
}
