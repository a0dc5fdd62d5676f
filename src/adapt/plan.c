/* Planning a firing rule's re-routing (include/cloudsm/adapt_plan.h). */
#include "cloudsm/adapt_plan.h"

#include <math.h>
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
    p->engine = engine->text;
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
    if (rc == 0) {
        struct cs_candidate_traffic traffic = {xmit, rcv};
        rc = cs_candidates_evaluate(ctx->fabric, ctx->current, &rq, 1, &traffic, ctx->t_smp_ms,
                                    &out->candidate, err);
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
