/* Reconfiguration candidates: the tables an engine would give now, what sending them costs, and
 * what they are expected to gain on the traffic the monitor measured. The adaptation loop's plan
 * step evaluates its rule's candidates against the tables in force and keeps the best.
 *
 *   cost   the LFT blocks that differ from the tables in force (one SubnSet(LFT) SMP each, as
 *          the SM sends them) and the time the seeds' Eq. 1 predicts: the routing time plus the
 *          blocks times the SMP time the SM measured on its last programming;
 *   gain   the learned traffic (traffic.h: what each port sends and receives, spread by the
 *          gravity model) routed by the tables in force and by the candidate's: the congestion
 *          cost before and after, and the relative reduction.
 *
 * Candidates are routed offline: nothing is sent. Routing is deterministic, so the SM's
 * re-routing with the same engine and inputs programs exactly the tables evaluated here.
 */
#ifndef CLOUDSM_CANDIDATE_H
#define CLOUDSM_CANDIDATE_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/route.h"

/* One candidate to evaluate. */
struct cs_candidate_request {
    const char *engine;
    struct cs_route_options options;
    struct cs_route_inputs inputs; /* previous: the tables in force (slimupdate keeps them) */
};

struct cs_candidate {
    char engine[16];     /* the engine that routed (a fallback shows here) */
    struct cs_lfts lfts; /* its tables */
    double route_ms;     /* the engine's time */
    uint64_t blocks;     /* LFT blocks that differ from the tables in force: SMPs to send */
    uint64_t entries;    /* LFT entries that differ */
    uint32_t switches;   /* switches that get at least one block */
    double predicted_ms; /* route_ms + blocks x t_smp (Eq. 1) */
    double cost_before;  /* congestion cost of the learned traffic on the tables in force */
    double cost_after;   /* ... on the candidate's */
    double max_utilisation_before, max_utilisation_after;
    double gain; /* (cost_before - cost_after) / cost_before; 0 without traffic */
};

/* The learned traffic: bytes/s each port index of f sends and receives (CA ports). */
struct cs_candidate_traffic {
    const double *xmit;
    const double *rcv;
};

/* Evaluate count candidates on fabric f with the tables in force `current`: each is routed,
 * diffed and loaded with the traffic; the traffic's load on `current` is computed once. t_smp_ms
 * is the measured time of one LFT SMP (0: unknown; predicted_ms is then the routing time). out
 * (count entries) is filled; on failure (err names the candidate's engine) nothing is kept. */
int cs_candidates_evaluate(const struct cs_fabric *f, const struct cs_lfts *current,
                           const struct cs_candidate_request *requests, uint32_t count,
                           const struct cs_candidate_traffic *traffic, double t_smp_ms,
                           struct cs_candidate *out, struct cs_error *err);
void cs_candidate_free(struct cs_candidate *c);

#endif
