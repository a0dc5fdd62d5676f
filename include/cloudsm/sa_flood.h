/* Paper I's SA Flooder (SAF) and its experiment template (Algorithm 1, thesis lines 1969-1991),
 * as a library over the SA client (sa_client.h).
 *
 * An SAF instance is synchronous: it sends one PathRecord query, waits for the reply or a
 * timeout, logs the response time, and sends the next (thesis lines 2052-2055). A flooder host
 * runs many; here one struct cs_saflood multiplexes its instances on one SA client, each instance
 * being one query in flight, so a thousand instances cost a thousand outstanding queries, not a
 * thousand processes. The experiment runs one flooder per host: the SIF (Single Instance
 * Flooder) with one instance at all times, measuring the response time, and MIF1..MIFn (Multiple
 * Instance Flooders), each adding k instances every round from round 2 on; a round collects for
 * a fixed time after its spawn gap, which is left out of the figures (thesis lines 2027-2047,
 * 2429-2432).
 *
 * Every figure of Table V (thesis lines 2312-2405) comes from struct cs_saflood_window: Q/s
 * served per flooder and the SIF's mean, median and standard deviation of the response time;
 * and what the paper does not report: queries sent, answered, timed out and refused.
 */
#ifndef CLOUDSM_SA_FLOOD_H
#define CLOUDSM_SA_FLOOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sa_client.h"

/* ---- Algorithm 1's arithmetic ---------------------------------------------------------- */

/* SAF instances a MIF runs in round `round` (1-based): none in round 1 (the SIF alone), then k
 * more every round: k * (round - 1). */
uint64_t cs_saflood_mif_instances(unsigned k, unsigned round);
/* Instances in the whole experiment in round `round` with n MIFs: 1 + n * k * (round - 1)
 * (961 in round 25 with n = 5, k = 8; 121 with k = 1: thesis lines 2276-2285). */
uint64_t cs_saflood_total_instances(unsigned n, unsigned k, unsigned round);

/* Eq. 1 (thesis lines 2219-2223): the most the flooders can ask for, the sum of each host's
 * capacity, SIF_max + sum of MIF_x_max for x = 1..n. */
double cs_saflood_capacity(double sif_max, const double *mif_max, unsigned n);
/* Paper I's host capacities (Table IV): the SIF ~440 Q/s, MIF1-MIF4 ~2100, MIF5 ~1150. */
#define CS_SAFLOOD_PAPER_SIF_MAX 440.0
extern const double cs_saflood_paper_mif_max[5];

/* ---- Response times --------------------------------------------------------------------- */

struct cs_latency_summary {
    uint64_t count;
    double mean_ms, median_ms, stddev_ms; /* stddev: sample standard deviation (n - 1) */
    double p99_ms, min_ms, max_ms;
};
/* Summarize count response times in microseconds (sorted in place). The median of an even count
 * is the mean of the middle two; p99 the nearest rank. All zero for no sample. */
void cs_latency_summarize(double *samples_us, size_t count, struct cs_latency_summary *out);

/* ---- A flooder host -------------------------------------------------------------------- */

/* A port a query may name: its GUID (for a GID) and LID. */
struct cs_saflood_target {
    uint64_t guid;
    uint16_t lid;
};

struct cs_saflood_options {
    /* Destinations, drawn uniformly (seeded) for every query; at least one. */
    const struct cs_saflood_target *targets;
    uint32_t num_targets;
    /* SGID/DGID queries with Reversible and NumbPath 1, what rdma_cm asks for; false: SLID/DLID
     * only. */
    bool by_gid;
    /* The source drawn from the targets too (any pair); false: always `source`. */
    bool random_source;
    struct cs_saflood_target source;
    uint64_t subnet_prefix; /* of the GIDs */
    uint64_t seed;
    /* Queries to send in all; 0: no limit (the experiment runs by time). */
    uint64_t limit;
};

struct cs_saflood_counts {
    uint64_t sent;     /* queries sent */
    uint64_t answered; /* replies with status 0 */
    uint64_t refused;  /* replies with an error status, or that did not decode */
    uint64_t timeouts; /* no reply within the client's timeout */
};

/* What one flooder did in a collection window. */
struct cs_saflood_window {
    double seconds;
    struct cs_saflood_counts counts;   /* queries sent, and completed, in the window */
    double qps;                        /* answered / seconds: the served rate */
    struct cs_latency_summary latency; /* of the answered queries */
};

struct cs_saflood;

/* A flooder on client sa (its timeout is the SAF timeout; use 0 retries: an instance moves on).
 * The options' targets are copied. */
int cs_saflood_create(struct cs_sa_client *sa, const struct cs_saflood_options *opt,
                      struct cs_saflood **out, struct cs_error *err);
void cs_saflood_destroy(struct cs_saflood *f);

/* Start `count` more instances: each sends its first query now. */
int cs_saflood_add_instances(struct cs_saflood *f, unsigned count, struct cs_error *err);
unsigned cs_saflood_instances(const struct cs_saflood *f);

/* Drive the client (through its transport's recv) until its clock reaches until_us
 * (cs_sa_client_now_us), every completion starting the instance's next query. */
int cs_saflood_run_until(struct cs_saflood *f, uint64_t until_us, struct cs_error *err);
/* Start no more queries: every instance stops when its query in flight completes. */
void cs_saflood_stop(struct cs_saflood *f);
/* Until no query is in flight: with a limit, every query has been sent and has completed; after
 * cs_saflood_stop, every instance has stopped (at most one timeout later). A flooder drains
 * before its port closes, so that no reply arrives at a port being torn down. */
int cs_saflood_drain(struct cs_saflood *f, struct cs_error *err);

/* A collection window: counts and response times from begin to end. */
void cs_saflood_window_begin(struct cs_saflood *f);
int cs_saflood_window_end(struct cs_saflood *f, struct cs_saflood_window *out,
                          struct cs_error *err);

/* Since creation. */
struct cs_saflood_counts cs_saflood_totals(const struct cs_saflood *f);

#endif
