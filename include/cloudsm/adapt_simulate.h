/* Simulating the adaptation loop over a recording (`cloudsm adapt simulate`): what cloudsmd's
 * loop (src/sm/core_adapt.c) would have done had it run these rules over these samples.
 *
 * The rules are stepped through the recorded samples as cs_adapt_replay steps them (at every
 * distinct sample time, or every step_s seconds; each step sees only the samples that ended by
 * its time). Without a fabric that is all: the firings are reported and every firing counts as
 * executed, as in a replay. Given the recorded fabric (with the LIDs the tables use) and the
 * tables in force at the start, every firing's actions are carried out as the live loop does,
 * in evaluation order, action by action:
 *
 *   reroute     planned by cs_adapt_plan_reroute (learned weights and traffic over the action's
 *               window, else over the last sample's interval; the candidate's LFT SMPs and
 *               expected gain against the tables in force), then judged by cs_adapt_decide with
 *               the caller's policy: the hour's SMP budget spent by the simulated executions,
 *               quiet hours on the sample times' local (or UTC) clock, never busy. An "execute"
 *               replaces the tables in force by the candidate's, so later plans start from them
 *               (a second identical firing is "no-change"). The routing inputs are the default
 *               route options and, from the action only, its weights, order and sub-tree.
 *   set         applied to the rules' parameter in mode on (later steps see it), as the loop
 *               does; reported but not applied in dry-run. The parameters are restored before
 *               cs_adapt_simulate returns.
 *   log         executed (reported).
 *   set_policy, migrate
 *               not simulated (the recording has neither partitions' policies nor VMs):
 *               reported as "not-simulated", not executed.
 *
 * A firing is executed when one of its actions is (cs_adapt_state_outcome), as in the loop.
 * Deterministic: the same rules, recording, fabric, tables and options give the same calls with
 * the same values, except the routing times the plans measure (candidate.route_ms and
 * predicted_ms); distribute_ms (Eq. 1's distribution time) is exact.
 */
#ifndef CLOUDSM_ADAPT_SIMULATE_H
#define CLOUDSM_ADAPT_SIMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/adapt.h"
#include "cloudsm/adapt_decision.h"
#include "cloudsm/adapt_plan.h"
#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/metrics.h"

struct cs_adapt_sim_options {
    double step_s;                  /* 0: at every distinct sample time */
    const struct cs_fabric *fabric; /* the recorded fabric, with LIDs; NULL: firings only */
    const struct cs_lfts *lfts;     /* the tables in force at the start (with fabric) */
    struct cs_adapt_policy policy;  /* the operator's limits (mode on or dry-run) */
    bool utc;                       /* quiet hours on the UTC clock, not the local one */
    double t_smp_ms;                /* Eq. 1's time per LFT SMP (0: unknown) */
};

/* What the simulation did with one action of a firing. */
struct cs_adapt_sim_decision {
    uint32_t firing; /* index in the step's firings */
    uint32_t action; /* index in that firing's actions */
    /* A reroute planned and judged: verdict is cs_adapt_decide's and verdict_name its name.
     * Otherwise verdict_name is "unplannable" (a reroute that cannot be planned: why says
     * why), "execute" (set in mode on, log), "dry-run" (set in dry-run), "failed" (a set the
     * rules refuse), or "not-simulated" (set_policy, migrate). */
    bool decided;
    enum cs_adapt_verdict verdict;
    const char *verdict_name;
    bool executed;
    char why[CS_ERROR_MAX];
    bool planned;              /* plan holds a reroute's plan (its tables, if executed, moved
                                  into the tables in force: plan.candidate.lfts is then empty) */
    struct cs_adapt_plan plan; /* (planned) */
    double distribute_ms;      /* (planned) LFT SMPs x t_smp_ms (Eq. 1 without the routing) */
};

/* One simulated step, after its decisions. */
struct cs_adapt_sim_step {
    double now;
    const struct cs_adapt_state *state; /* the rules' state: status, explanation, outcome */
    const struct cs_adapt_firing *firings;
    uint32_t num_firings;
    const struct cs_adapt_sim_decision *decisions; /* firing by firing, action by action */
    uint32_t num_decisions;
    const struct cs_lfts *tables; /* in force after the step (NULL without a fabric) */
};

/* Called after every step; a non-zero return stops the simulation, which returns it. */
typedef int (*cs_adapt_sim_fn)(void *ctx, const struct cs_adapt_sim_step *step);

struct cs_adapt_sim_totals {
    uint64_t steps;
    uint64_t firings;
    uint64_t reroutes;   /* reroutes planned and decided */
    uint64_t executions; /* reroutes executed */
    uint64_t smps;       /* LFT SMPs the executions sent */
    double first, last;  /* the first and last step's times (steps > 0) */
};

/* Simulate the loop over recorded (see above); rules' parameters may change during the run (set
 * actions) and are restored at its end. totals (NULL: not wanted) is filled. Returns 0, -1 with
 * err set (bad options, out of memory, time going back), or fn's non-zero return. An action that
 * cannot be planned is a decision ("unplannable"), not an error. */
int cs_adapt_simulate(struct cs_adapt_rules *rules, const struct cs_metrics *recorded,
                      const struct cs_adapt_sim_options *o, cs_adapt_sim_fn fn, void *ctx,
                      struct cs_adapt_sim_totals *totals, struct cs_error *err);

#endif
