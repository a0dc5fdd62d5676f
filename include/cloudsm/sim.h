/* Congestion simulator: ORCS-style metrics of communication patterns (pattern.h) on a fabric
 * and its LFTs (a cs_tracer, analyze.h). See docs/simulation.md.
 *
 * One run: the ranks of each group are chosen (rank selection below), the patterns are drawn,
 * and the levels are simulated one after the other. In a level every flow is routed by the LFTs
 * (destination based, host links included unless exclude_host_links); the congestion of a
 * directed link is the number of the level's flows crossing it, and a flow's weight is the
 * largest congestion on its route. Convention, as ORCS's source counts: congestion 1 = a link
 * used by one flow only (the Tasoulas thesis text says 0 for that; cloudsm and ORCS's code say
 * 1). A flow that crosses no counted link (only possible with exclude_host_links, between two
 * hosts of one leaf) has weight 1: nothing shares its path.
 *
 * Pattern versus pattern: a victim pattern on one group of ports and an aggressor pattern on
 * another run together, level l of the run being level l of the victim and level l mod A of the
 * aggressor (A = its level count): the aggressor repeats while the victim has levels, and the
 * run ends when both are done with a whole aggressor cycle, max(1, ceil(V/A)) * A levels in
 * all (ORCS's ptrnvsptrn); without aggressor levels, V levels. Congestion counts every flow of
 * the level; the flow metrics (weights, effective bandwidth, sum_max_cong, dep_max_delay) are
 * those of the victim's flows; max_congestion and the per-link export are of all flows.
 *
 * Per run:
 *   effective bandwidth  mean over the victim's flows of all levels of 1/weight (ORCS's
 *                        hist_acc_band; for bisect, the effective bisection bandwidth); NaN
 *                        when the victim has no flow (null).
 *   max_congestion       the largest link congestion of any level.
 *   sum_max_congestion   sum over levels of the largest victim flow weight in that level
 *                        (ORCS's sum_max_cong).
 *   max_delay            ORCS's dep_max_delay: a forest whose vertices are the victim pairs'
 *                        ends; in each level, pair (s, d) is an edge of length = its weight;
 *                        the first pair sent by rank s in level l starts where the first pair
 *                        received by s in level l-1 ended (a zero-length edge); the value is
 *                        the longest path. For a one-level pattern: the largest victim weight.
 * Over runs: min, mean, max, standard deviation and a 99% confidence interval of the mean of
 * each (cs_sim_stat_compute); the histogram of victim flow weights summed over runs and levels
 * (ORCS's hist_max_cong); optionally per directed link the largest congestion in any level and
 * the sum over all levels and runs (ORCS's get_cable_cong accumulates that sum).
 *
 * Random choices: run r uses its own splitmix64 generator seeded with cs_sim_run_seed(seed, r);
 * within a run the draws are, in order: the victim ranks, the aggressor ranks, the victim
 * pattern, the aggressor pattern. So a run's result depends on (seed, r) only, and the result
 * is the same (byte for byte) for any number of threads.
 */
#ifndef CLOUDSM_SIM_H
#define CLOUDSM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/analyze.h"
#include "cloudsm/error.h"
#include "cloudsm/pattern.h"

/* How a group's ports become ranks 0..n-1. */
enum cs_select {
    CS_SELECT_RANDOM,    /* a fresh uniform shuffle every run (from the run's generator) */
    CS_SELECT_LINEAR,    /* fabric order: ascending port index */
    CS_SELECT_GUID_ASC,  /* ascending port GUID */
    CS_SELECT_GUID_DESC, /* descending port GUID */
};

/* "random", "linear", "guid-asc", "guid-desc". */
const char *cs_select_name(enum cs_select s);
int cs_select_parse(enum cs_select *s, const char *text, struct cs_error *err);

/* A group of ports running one pattern. */
struct cs_sim_group {
    struct cs_pattern_spec pattern;
    /* Candidate ports (port indices): connected CA or router ports with a LID, no duplicates,
     * e.g. a partition's members. NULL: every connected CA port of the fabric. */
    const uint32_t *ports;
    uint32_t num_ports;
    /* Ranks: the first `commsize` candidates in selection order; 0 = all of them. */
    uint32_t commsize;
};

struct cs_sim_options {
    struct cs_sim_group victim; /* the measured pattern (the only one without an aggressor) */
    bool versus;                /* run the aggressor alongside */
    struct cs_sim_group aggressor;
    /* ORCS's --part_commsize: one candidate list (victim.ports) ordered once per run; the victim
     * takes the first victim.commsize ranks (required, >= 1), the aggressor the next
     * aggressor.commsize (0 = all the rest). aggressor.ports is ignored. Needs versus. */
    bool split;

    enum cs_select select;
    /* ORCS's node_ordering_file: these GUIDs take the first ranks of their group, in this
     * order; the rest follow in selection order. A GUID is matched as a port GUID, else as a
     * node GUID standing for that node's first candidate port in selection order (ORCS lists
     * node GUIDs). GUIDs matching no candidate, and repeats, are skipped. */
    const uint64_t *order;
    uint32_t order_count;

    uint32_t runs; /* >= 1 */
    uint64_t seed;
    /* 0: one per online CPU. Runs use at most one thread each; the route check at set-up
     * splits destinations over all of them. */
    unsigned threads;
    bool exclude_host_links;
    bool link_stats; /* fill link_max / link_sum */
};

/* Summary of a per-run value. */
struct cs_sim_stat {
    uint32_t samples;
    double min, mean, max;
    double stddev; /* sample standard deviation (divides by n-1); 0 for one sample */
    /* Half-width of the 99% confidence interval of the mean: z = 2.576 times stddev/sqrt(n)
     * with more than 50 samples (ORCS's threshold for its normal quantile), Student's t
     * quantile t(0.995, n-1) times stddev/sqrt(n) with 2..50; NaN with fewer than 2. */
    double ci99;
    /* What ORCS prints as "Possible Error (99% confidency)": get_max_error(2.576) =
     * 2.576 * (population variance) / sqrt(n) -- a variance where a standard deviation belongs;
     * given for cross-checking with ORCS output only. */
    double orcs_error;
};

struct cs_sim_result {
    uint32_t runs;
    uint32_t threads_used; /* for the runs */
    uint32_t victim_ranks, aggressor_ranks;
    uint32_t victim_levels, aggressor_levels;
    uint32_t levels;          /* simulated per run */
    uint64_t victim_flows;    /* per run, over all levels */
    uint64_t aggressor_flows; /* per run, over all levels (repeats included) */

    /* Per run, indexed by run number. */
    double *effective_bandwidth;
    uint32_t *max_congestion;
    uint64_t *sum_max_congestion;
    uint64_t *max_delay;

    struct cs_sim_stat effective_bandwidth_stat;
    struct cs_sim_stat max_congestion_stat;
    struct cs_sim_stat sum_max_congestion_stat;
    struct cs_sim_stat max_delay_stat;

    /* [w] victim flows of weight w, over all runs and levels; [0] is always 0. */
    uint64_t *weight_histogram;
    uint32_t weight_histogram_len; /* largest weight + 1 */

    /* With link_stats, per directed link id (analyze.h): the largest congestion in any level of
     * any run, and the sum over all levels and runs. NULL otherwise. */
    uint32_t num_links;
    uint32_t *link_max;
    uint64_t *link_sum;
};

/* Run the simulation. Fails (err says which pair and what goes wrong) when the LFTs do not
 * deliver every route between two candidate ports of a group, and on bad options. */
int cs_simulate(const struct cs_tracer *t, const struct cs_sim_options *opt,
                struct cs_sim_result *r, struct cs_error *err);
void cs_sim_result_free(struct cs_sim_result *r);

/* The ports of run r's ranks (as cs_simulate uses them, for printing a name list): victim[i] is
 * rank i's port; aggressor[] likewise (may be NULL without versus). The arrays need room for
 * the group's candidate count. Counts go to *victim_count / *aggressor_count. */
int cs_sim_ranks(const struct cs_tracer *t, const struct cs_sim_options *opt, uint32_t run,
                 uint32_t *victim, uint32_t *victim_count, uint32_t *aggressor,
                 uint32_t *aggressor_count, struct cs_error *err);

/* With link_stats: one CSV line per directed link after a header, the five columns every
 * per-link table starts with (from_guid,from_port,to_guid,to_port,class), then
 * max_congestion,sum_congestion. */
int cs_sim_write_links_csv(FILE *out, const struct cs_tracer *t, const struct cs_sim_result *r,
                           struct cs_error *err);

/* Seed of run r's generator: the (r+1)-th output of splitmix64 seeded with `seed`. */
uint64_t cs_sim_run_seed(uint64_t seed, uint32_t run);

/* Summary of n values (NaN values make the mean NaN, as they should). */
void cs_sim_stat_compute(const double *values, uint32_t n, struct cs_sim_stat *s);
/* The 99% two-sided quantile used for n samples: t(0.995, n-1) for 2..50, 2.576 above, NaN
 * below 2. */
double cs_sim_ci99_quantile(uint32_t samples);

/* ORCS's effective-bandwidth histogram: 20 bins of equal width over [0, 1.01). */
#define CS_SIM_BAND_BINS 20
#define CS_SIM_BAND_LOW 0.0
#define CS_SIM_BAND_HIGH 1.01
/* Count values into `bins` equal bins over [low, high): bin i holds low + i*w <= v <
 * low + (i+1)*w, w = (high - low) / bins; values below low or at/above high are clamped to the
 * first/last bin; NaN is skipped. counts[] is zeroed first. */
void cs_sim_histogram(const double *values, uint32_t n, double low, double high, uint32_t bins,
                      uint64_t *counts);

#endif
