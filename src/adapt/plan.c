/* Planning a firing rule's re-routing (include/cloudsm/adapt_plan.h). */
#include "cloudsm/adapt_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/learn.h"
#include "cloudsm/subtree.h"
#include "core/grow.h"

void cs_adapt_plan_free(struct cs_adapt_plan *p)
{
    cs_node_weights_free(&p->weights);
    cs_guid_list_free(&p->order);
    free(p->subtree);
    cs_candidate_free(&p->candidate);
    memset(p, 0, sizeof(*p));
}

int cs_adapt_traffic(const struct cs_fabric *f, const struct cs_metrics *m, double since,
                     double until, double **xmit, double **rcv, struct cs_error *err)
{
    *xmit = cs_calloc_array(f->num_port_slots, sizeof(**xmit), err);
    *rcv = cs_calloc_array(f->num_port_slots, sizeof(**rcv), err);
    double *port_xmit = cs_calloc_array(m->num_ports, sizeof(*port_xmit), err);
    double *port_rcv = cs_calloc_array(m->num_ports, sizeof(*port_rcv), err);
    int rc = -1;
    if (*xmit == NULL || *rcv == NULL || port_xmit == NULL || port_rcv == NULL ||
        cs_metrics_port_rates(m, CS_METRIC_XMIT_BYTES, since, until, port_xmit, NULL, err) < 0 ||
        cs_metrics_port_rates(m, CS_METRIC_RCV_BYTES, since, until, port_rcv, NULL, err) < 0)
        goto out;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        if (f->nodes[port->node].type != CS_NODE_CA || port->num == 0)
            continue;
        uint32_t at = cs_metrics_find_port(m, f->nodes[port->node].guid, port->num);
        if (at == UINT32_MAX)
            continue;
        (*xmit)[p] = isnan(port_xmit[at]) ? 0 : port_xmit[at];
        (*rcv)[p] = isnan(port_rcv[at]) ? 0 : port_rcv[at];
    }
    rc = 0;
out:
    free(port_xmit);
    free(port_rcv);
    if (rc < 0) {
        free(*xmit);
        free(*rcv);
        *xmit = *rcv = NULL;
    }
    return rc;
}

/* The action's arguments into the plan: engine, learned weights' window, sub-tree, order. */
static int read_arguments(const struct cs_adapt_plan_context *ctx, const struct cs_adapt_action *a,
                          struct cs_adapt_plan *p, struct cs_error *err)
{
    const struct cs_adapt_value *engine = cs_adapt_action_arg(a, "engine");
    const struct cs_adapt_value *weights = cs_adapt_action_arg(a, "weights");
    const struct cs_adapt_value *subtree = cs_adapt_action_arg(a, "subtree");
    const struct cs_adapt_value *order = cs_adapt_action_arg(a, "order");
    if (engine == NULL)
        return cs_fail(err, "reroute without an engine");
    p->engine = p->asked_engine = engine->text;
    p->traffic_until = ctx->now;
    p->traffic_since = ctx->now - (weights ? weights->number : ctx->default_window);
    if (weights != NULL) {
        if (cs_metrics_learn_weights(ctx->metrics, p->traffic_since, p->traffic_until,
                                     CS_ADAPT_WEIGHT_MIN, CS_ADAPT_WEIGHT_MAX, &p->weights, NULL,
                                     err) < 0)
            return -1;
        p->has_weights = true;
    }
    if (subtree != NULL && subtree->num_guids > 0) {
        p->subtree = cs_calloc_array(subtree->num_guids, sizeof(*p->subtree), err);
        if (p->subtree == NULL)
            return -1;
        memcpy(p->subtree, subtree->guids, subtree->num_guids * sizeof(*p->subtree));
        p->num_subtree = subtree->num_guids;
    }
    if (order != NULL) {
        if (cs_guid_list_read(&p->order, order->text, err) < 0)
            return -1;
        p->has_order = true;
        p->order_file = order->text;
    }
    return 0;
}

/* The cheapest candidate that brings min_gain: fewest LFT SMPs, then more gain, then the
 * earlier; when none does, the one with the most gain. */
static uint32_t choose(const struct cs_candidate *c, uint32_t count, double min_gain)
{
    uint32_t best = 0;
    bool best_enough = c[0].gain >= min_gain;
    for (uint32_t i = 1; i < count; i++) {
        bool enough = c[i].gain >= min_gain;
        bool better = enough && !best_enough;
        if (enough == best_enough)
            better = enough ? c[i].blocks < c[best].blocks ||
                                  (c[i].blocks == c[best].blocks && c[i].gain > c[best].gain)
                            : c[i].gain > c[best].gain;
        if (better) {
            best = i;
            best_enough = enough;
        }
    }
    return best;
}

int cs_adapt_plan_reroute(const struct cs_adapt_plan_context *ctx, const struct cs_adapt_action *a,
                          struct cs_adapt_plan *out, struct cs_error *err)
{
    memset(out, 0, sizeof(*out));
    cs_node_weights_init(&out->weights);
    if (read_arguments(ctx, a, out, err) < 0)
        return -1;
    struct cs_candidate_request rq = {
        .engine = out->engine, .options = ctx->options, .inputs = ctx->inputs};
    rq.inputs.previous = ctx->current->num_switches > 0 ? ctx->current : NULL;
    if (out->has_weights)
        rq.inputs.weights = &out->weights;
    if (out->has_order)
        rq.inputs.node_order = &out->order;
    struct cs_candidate_request requests[CS_ADAPT_PLAN_MAX_CANDIDATES] = {rq, rq};
    uint32_t count = 1;
    if ((out->has_weights || out->has_order) && out->num_subtree == 0 &&
        strcmp(out->engine, CS_ADAPT_METABASE_ENGINE) != 0)
        requests[count++].engine = CS_ADAPT_METABASE_ENGINE;
    struct cs_subtree scope = {0};
    if (out->num_subtree > 0) {
        if (cs_subtree_select(ctx->fabric, &ctx->options, ctx->inputs.state, out->subtree,
                              out->num_subtree, &scope, err) < 0) {
            cs_subtree_free(&scope);
            return -1;
        }
        rq.inputs.scope_switches = scope.switches;
        rq.inputs.num_scope_switches = scope.num_switches;
    }
    double *xmit = NULL, *rcv = NULL;
    int rc = cs_adapt_traffic(ctx->fabric, ctx->metrics, out->traffic_since, out->traffic_until,
                              &xmit, &rcv, err);
    struct cs_candidate cands[CS_ADAPT_PLAN_MAX_CANDIDATES];
    struct cs_candidate_traffic traffic = {xmit, rcv};
    if (rc == 0) {
        requests[0].inputs.scope_switches = rq.inputs.scope_switches;
        requests[0].inputs.num_scope_switches = rq.inputs.num_scope_switches;
        rc = cs_candidates_evaluate(ctx->fabric, ctx->current, requests, 1, &traffic, ctx->t_smp_ms,
                                    cands, err);
    }
    if (rc == 0 && count > 1 &&
        (cands[0].gain < ctx->min_gain || cands[0].blocks > ctx->max_smps)) {
        struct cs_error ignored; /* an alternative that cannot be routed is not one */
        if (cs_candidates_evaluate(ctx->fabric, ctx->current, &requests[1], 1, &traffic,
                                   ctx->t_smp_ms, &cands[1], &ignored) < 0)
            count = 1;
    } else {
        count = 1;
    }
    if (rc == 0) {
        uint32_t best = choose(cands, count, ctx->min_gain);
        for (uint32_t i = 0; i < count; i++) {
            struct cs_adapt_plan_option *o = &out->considered[i];
            snprintf(o->engine, sizeof o->engine, "%s", requests[i].engine);
            o->blocks = cands[i].blocks;
            o->gain = cands[i].gain;
            if (i != best)
                cs_candidate_free(&cands[i]);
        }
        out->num_considered = count;
        out->candidate = cands[best];
        out->engine = requests[best].engine;
    }
    free(xmit);
    free(rcv);
    cs_subtree_free(&scope);
    return rc;
}

void cs_adapt_plan_json(struct cs_json *j, const struct cs_adapt_plan *p, bool timing)
{
    const struct cs_candidate *cand = &p->candidate;
    cs_json_str(j, "engine", p->engine);
    if (p->num_considered > 1) {
        cs_json_str(j, "asked_engine", p->asked_engine);
        cs_json_array_begin(j, "considered");
        for (uint32_t i = 0; i < p->num_considered; i++) {
            cs_json_object_begin(j, NULL);
            cs_json_str(j, "engine", p->considered[i].engine);
            cs_json_u64(j, "lft_smps", p->considered[i].blocks);
            cs_json_double(j, "expected_gain", p->considered[i].gain);
            cs_json_object_end(j);
        }
        cs_json_array_end(j);
    }
    if (p->has_weights) {
        cs_json_double(j, "learned_over_s", p->traffic_until - p->traffic_since);
        cs_json_u64(j, "weights", p->weights.count);
    }
    cs_json_double_exact(j, "traffic_since", p->traffic_since);
    cs_json_double_exact(j, "traffic_until", p->traffic_until);
    if (p->num_subtree)
        cs_json_u64(j, "subtree_nodes", p->num_subtree);
    cs_json_object_begin(j, "candidate");
    cs_json_str(j, "engine", cand->engine);
    cs_json_u64(j, "lft_smps", cand->blocks);
    cs_json_u64(j, "lft_entries", cand->entries);
    cs_json_u64(j, "switches", cand->switches);
    if (timing) {
        cs_json_double(j, "route_ms", cand->route_ms);
        cs_json_double(j, "predicted_ms", cand->predicted_ms);
    }
    cs_json_double(j, "congestion_cost_before", cand->cost_before);
    cs_json_double(j, "congestion_cost_after", cand->cost_after);
    cs_json_double(j, "max_utilisation_before", cand->max_utilisation_before);
    cs_json_double(j, "max_utilisation_after", cand->max_utilisation_after);
    cs_json_double(j, "expected_gain", cand->gain);
    cs_json_object_end(j);
}
