/* Planning a firing rule's re-routing: what the measurements teach (learned weights, the
 * traffic), the candidate the engine gives with them, and its cost and expected gain
 * (candidate.h). cloudsmd's loop and `cloudsm adapt simulate` plan through this one function, so
 * a replay decides as the SM would have.
 *
 * The traffic is each CA port's send and receive rate over a window: the action's learned(over
 * D) window when it has one (the weights and the traffic then describe the same time), else the
 * context's default window (the last poll's interval). Learned weights are pFTree-Wt's Eq. 1 on
 * [1, 100] over the bytes each CA port received in that window.
 */
#ifndef CLOUDSM_ADAPT_PLAN_H
#define CLOUDSM_ADAPT_PLAN_H

#include <stdint.h>

#include "cloudsm/adapt.h"
#include "cloudsm/candidate.h"
#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/json.h"
#include "cloudsm/lft.h"
#include "cloudsm/metrics.h"
#include "cloudsm/route.h"
#include "cloudsm/weights.h"

#define CS_ADAPT_WEIGHT_MIN 1 /* pFTree-Wt's scale */
#define CS_ADAPT_WEIGHT_MAX 100

struct cs_adapt_plan_context {
    const struct cs_fabric *fabric; /* as swept: the tables' LIDs */
    const struct cs_lfts *current;  /* the tables in force */
    struct cs_route_options options;
    struct cs_route_inputs inputs; /* the SM's (its weights, order, kept state, partitions) */
    double t_smp_ms;               /* the last programming's time per LFT SMP (Eq. 1); 0 unknown */
    const struct cs_metrics *metrics;
    double now;
    double default_window; /* seconds of traffic when the action learns nothing */
    double min_gain;       /* the operator's minimum gain (a fraction): picks among candidates */
    uint64_t max_smps;     /* the LFT SMPs the operator's budget has left (UINT64_MAX: no limit) */
};

/* The metabase-aided engine, the cheap alternative for a re-routing by weights or an order:
 * the paths stay, only their assignment to the nodes is redone (routing/mftree.md). */
#define CS_ADAPT_METABASE_ENGINE "mftree"
#define CS_ADAPT_PLAN_MAX_CANDIDATES 2

/* What a candidate that was considered came to (the audit lists them). */
struct cs_adapt_plan_option {
    char engine[16];
    uint64_t blocks;
    double gain;
};

struct cs_adapt_plan {
    const char *engine;             /* the chosen candidate's: the one to execute */
    const char *asked_engine;       /* the action's */
    struct cs_node_weights weights; /* learned (has_weights) */
    bool has_weights;
    struct cs_guid_list order; /* the action's order file, read (has_order) */
    bool has_order;
    const char *order_file;
    uint64_t *subtree; /* the action's sub-tree nodes (copied) */
    uint32_t num_subtree;
    double traffic_since, traffic_until;
    struct cs_candidate candidate; /* the chosen one */
    struct cs_adapt_plan_option considered[CS_ADAPT_PLAN_MAX_CANDIDATES];
    uint32_t num_considered;
};

/* Plan reroute action a (cs_adapt_action with name "reroute"). The candidate is the action's
 * engine's. When it does not bring ctx->min_gain or needs more than ctx->max_smps, and the action
 * gives weights or an order (and no sub-tree), the metabase-aided engine with the same inputs is
 * priced too, and the cheaper that brings the gain is chosen (fewest LFT SMPs, then more gain,
 * then the action's); when neither does, the one with more gain. (Pricing both every time would
 * double a decision's time on a large fabric for an alternative that matters only when the first
 * choice is refused.) A metabase candidate that cannot be routed is left out. out is initialised
 * here; free it with cs_adapt_plan_free either way. Errors: no CA port has data in the window, an
 * order file that cannot be read, a sub-tree the fabric cannot give, the action's engine failing.
 */
int cs_adapt_plan_reroute(const struct cs_adapt_plan_context *ctx, const struct cs_adapt_action *a,
                          struct cs_adapt_plan *out, struct cs_error *err);
void cs_adapt_plan_free(struct cs_adapt_plan *p);

/* The plan as the adaptation loop's audit records write it, as members of the JSON object j is
 * in: engine, learned_over_s and weights (learned weights), traffic_since, traffic_until,
 * subtree_nodes (a sub-tree), and candidate {engine, lft_smps, lft_entries, switches,
 * congestion_cost_before, congestion_cost_after, max_utilisation_before, max_utilisation_after,
 * expected_gain}, with route_ms and predicted_ms when timing (they are measured: a replay that
 * must print the same twice leaves them out). */
void cs_adapt_plan_json(struct cs_json *j, const struct cs_adapt_plan *p, bool timing);

/* Each port index of f's send and receive rates (bytes/s) over [since, until] from m: CA ports
 * with data; 0 elsewhere. *xmit and *rcv (f->num_port_slots each) are malloc'd. */
int cs_adapt_traffic(const struct cs_fabric *f, const struct cs_metrics *m, double since,
                     double until, double **xmit, double **rcv, struct cs_error *err);

#endif
