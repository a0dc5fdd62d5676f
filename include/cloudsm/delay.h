/* Workload delay as a QoS metric and delay-aware VM consolidation (Tasoulas et al., NCA 2017).
 *
 * Delay engine. A host (bin) of C cores serves the summed CPU demand d(t) of its VMs, in percent
 * of one core per step; its capacity is C*100 percent. Work that does not fit waits:
 *
 *     q(t) = max(q(t-1) + d(t) - capacity, 0),   q(0) = 0
 *
 * q is backlog in percent-steps. The "current delay" seen by newly arriving work is, by default,
 * the time the host needs to drain the backlog, q/capacity (CS_DELAY_DRAIN_TIME); the alternative
 * CS_DELAY_CORE_TIME counts the backlog in core-time, q/100. Both are converted to minutes with the
 * step length. The total delay is the sum of the current delays over the steps (eq. 1 of the
 * paper); the spec (workload-delay.md section 1.3) explains why drain time matches Table I.
 * Served utilization is min(capacity, d(t) + q(t-1)): above the demand while a queue drains.
 *
 * Packers (cs_pack) consolidate VMs into bins of equal core count, in order of decreasing
 * training-window average (ties: lower VM index first):
 *  - CS_PACK_UTIL: a VM fits a bin if the bins' summed averages stay <= threshold * capacity.
 *    CS_FIT_FIRST takes the first bin that fits (the procedure the paper describes), CS_FIT_BEST
 *    the fitting bin with the least room left (true best-fit, the paper's name "BFD").
 *  - CS_PACK_DELAY: a VM fits a bin if the bin's total delay over the training window, computed
 *    at capacity threshold * cores * 100, stays <= delay_limit. A VM that opens a new bin always
 *    stays there, even if alone it exceeds the limit.
 * Evaluation (cs_packing_eval) always uses the full capacity cores * 100.
 *
 * All functions are deterministic; the experiment runner's results do not depend on the number of
 * threads. Nothing prints. See docs/delay.md.
 */
#ifndef CLOUDSM_DELAY_H
#define CLOUDSM_DELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/trace.h"

enum cs_delay_unit {
    CS_DELAY_DRAIN_TIME = 0, /* q / capacity: how long the host needs to clear the backlog */
    CS_DELAY_CORE_TIME = 1,  /* q / 100: the backlog as core-time */
};

struct cs_delay_stats {
    double total_delay;       /* sum over steps of the current delay, minutes */
    double max_delay;         /* largest current delay, minutes */
    double mean_when_delayed; /* mean current delay over the delayed steps; 0 if none */
    double delayed_fraction;  /* delayed steps / steps */
    double filling;           /* mean demand / capacity (1 = 100%); from demand, may exceed 1 */
    double final_queue;       /* q at the last step, percent-steps */
    uint32_t delayed_steps;   /* steps with q > 0 */
    uint32_t steps;
};

/* Run the recursion over demand[0..steps) at capacity_pct (percent; C cores = C*100). */
void cs_delay_eval(const double *demand, uint32_t steps, double capacity_pct,
                   enum cs_delay_unit unit, double step_minutes, struct cs_delay_stats *out);

/* Per-step series (any output may be NULL): queue q(t), served utilization, current delay. */
void cs_delay_series(const double *demand, uint32_t steps, double capacity_pct,
                     enum cs_delay_unit unit, double step_minutes, double *queue, double *served,
                     double *current_delay);

/* Total delay of (base + extra) (extra may be NULL), stopping as soon as the running total exceeds
 * limit; returns the total, or a value > limit when it was exceeded. The packers' inner loop. */
double cs_delay_total_bounded(const double *base, const float *extra, uint32_t steps,
                              double capacity_pct, enum cs_delay_unit unit, double step_minutes,
                              double limit);

/* A demand matrix: demand[vm * steps + t], percent of one core, no NaN (clean traces first). */
struct cs_demand {
    const float *demand;
    uint32_t num_vms;
    uint32_t steps;
    double step_minutes;
};

/* The whole trace as a demand matrix (no copy). */
struct cs_demand cs_demand_of_trace(const struct cs_trace *t);

/* Copy steps [begin, end) of every VM into *out (out->demand is malloc'ed: free((void *)...)).
 * Ranges are concatenated in order. */
struct cs_step_range {
    uint32_t begin, end;
};
int cs_demand_slice(const struct cs_demand *in, const struct cs_step_range *ranges,
                    uint32_t num_ranges, struct cs_demand *out, struct cs_error *err);

enum cs_pack_policy { CS_PACK_UTIL = 0, CS_PACK_DELAY = 1 };
enum cs_pack_fit { CS_FIT_FIRST = 0, CS_FIT_BEST = 1 };

struct cs_pack_options {
    enum cs_pack_policy policy;
    enum cs_pack_fit fit;
    uint32_t cores;          /* per bin */
    double threshold;        /* bin-filling threshold, fraction of capacity (0.9 = 90%) */
    double delay_limit;      /* CS_PACK_DELAY: accepted total delay over the window, minutes */
    enum cs_delay_unit unit; /* for the delay test */
};

struct cs_packing {
    uint32_t *bin_of_vm; /* num_vms entries */
    uint32_t num_vms;
    uint32_t num_bins;
};

void cs_packing_free(struct cs_packing *p);

/* Pack the VMs of train into bins. Fails only on bad options or out of memory. */
int cs_pack(const struct cs_demand *train, const struct cs_pack_options *opt,
            struct cs_packing *out, struct cs_error *err);

/* Evaluate each bin on test (same VMs) at full capacity cores*100; stats[num_bins]. Queues start
 * empty. vms_in_bin (optional, num_bins entries) receives each bin's VM count. */
int cs_packing_eval(const struct cs_demand *test, const struct cs_packing *p, uint32_t cores,
                    enum cs_delay_unit unit, struct cs_delay_stats *stats, uint32_t *vms_in_bin,
                    struct cs_error *err);

/* Experiments: a grid cores x thresholds x accepted delays, either on the whole period (packing
 * and evaluation on the whole trace, one "fold") or leave-one-day-out (each day in turn is the
 * test day, the other days, concatenated in time order, the training window).
 *
 * Accepted delay, minutes: in the whole-period mode the limit over the whole trace (Fig. 5: 1000);
 * in leave-one-day-out mode per day, so the training limit is accepted * training days. With the
 * utilization policy accepted values are ignored (give none). */
struct cs_experiment {
    enum cs_pack_policy policy;
    enum cs_pack_fit fit;
    enum cs_delay_unit unit;
    bool leave_one_day_out;
    uint32_t steps_per_day; /* 0: 1440 minutes / step length */
    const uint32_t *cores;
    uint32_t num_cores;
    const double *thresholds; /* fractions */
    uint32_t num_thresholds;
    const double *accepted; /* minutes; CS_PACK_DELAY only */
    uint32_t num_accepted;
    unsigned threads; /* 0 = 1 */
};

struct cs_bin_result {
    uint32_t fold; /* test day (0 in whole-period mode) */
    uint32_t cores;
    double threshold;
    double accepted; /* 0 for the utilization policy */
    uint32_t bin;    /* index within its packing */
    uint32_t vms;
    uint32_t bins_in_packing;
    struct cs_delay_stats stats; /* on the test window at full capacity */
};

struct cs_experiment_result {
    struct cs_bin_result *bins; /* ordered by fold, cores, threshold, accepted, bin */
    size_t num_bins;
    uint32_t folds;
    double window_days; /* length of one test window in days */
};

void cs_experiment_result_free(struct cs_experiment_result *r);

int cs_experiment_run(const struct cs_demand *d, const struct cs_experiment *e,
                      struct cs_experiment_result *out, struct cs_error *err);

/* One row of Tables I/II: bins pooled over core counts and folds with this threshold (and
 * accepted delay; pass a negative value to pool over all). Filling and fractions as fractions. */
struct cs_table_row {
    double threshold, accepted;
    size_t bins;
    double avg_delay, med_delay, max_delay;
    double avg_filling, med_filling, max_filling;
    double avg_delayed_fraction;
    double avg_delay_when_delayed;
};

int cs_experiment_table_row(const struct cs_experiment_result *r, double threshold, double accepted,
                            struct cs_table_row *row, struct cs_error *err);

/* SLA view over the bins with this threshold and accepted value (accepted < 0: any): a bin
 * meets the SLA on its test window if its total delay per day (total / window_days) stays within
 * accepted_per_day. In leave-one-day-out mode each bin's window is one day, so this is the
 * per-bin, per-day check; in whole-period mode it is the mean per day. Lone-VM bins are also
 * counted apart (no packer can help them). */
struct cs_sla_summary {
    size_t bins, compliant, lone_vm_bins, lone_vm_violations;
    double compliance_rate; /* compliant / bins */
    double mean_overshoot;  /* over violating bins, minutes per day above the accepted value */
    double max_overshoot;
};

void cs_experiment_sla(const struct cs_experiment_result *r, double threshold, double accepted,
                       double accepted_per_day, struct cs_sla_summary *out);

#endif
