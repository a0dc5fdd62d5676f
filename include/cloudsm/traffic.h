/* Link loads of measured traffic: what each end port sends and receives (the monitor's rates),
 * routed by a fabric's LFTs, so that two sets of tables can be compared on the traffic the
 * fabric carries now: the adaptation loop's expected gain of a re-routing.
 *
 * Port counters say how much each port sends and receives, not to whom. The gravity model fills
 * that gap without inventing structure: source s sends to destination d in proportion to what d
 * receives, flow(s, d) = xmit(s) * rcv(d) / R, R the sum of every port's rcv. A hot receiver
 * thus draws traffic from every sender, over whatever routes the tables give towards it, which
 * is what a routing that weighs nodes by their receive rates (wftree with learned weights)
 * spreads better.
 *
 * Routes are walked per destination (cs_dest_routes_load: O(switches) each), with the senders
 * behind each switch summed once, so a fabric of D receiving ports costs O(D x switches).
 */
#ifndef CLOUDSM_TRAFFIC_H
#define CLOUDSM_TRAFFIC_H

#include <stdint.h>

#include "cloudsm/analyze.h"
#include "cloudsm/error.h"

struct cs_traffic_load {
    uint32_t num_links; /* directed links of the tracer */
    double *load;       /* [link] bytes/s */
    /* Over the links between switches (host links carry what their ports measured, whatever the
     * tables): */
    double max_utilisation; /* the largest load / data rate (links of unknown rate skipped) */
    uint32_t max_link;      /* where (CS_NONE: no such link carries anything) */
    double max_load;        /* the largest load, bytes/s */
    double overload;        /* sum of the loads above the links' data rates, bytes/s */
    /* Kleinrock's network delay cost: the sum over links of u / (1 - u), u = load / data rate,
     * each link an M/M/1 queue; convex, so a routing that spreads load lowers it even where
     * the busiest link (a hot receiver's own) stays as busy. Past u = 0.99 the curve goes on
     * along its tangent, so that overloaded links still compare. */
    double congestion_cost;
    double routed;        /* bytes/s of all flows */
    uint32_t undelivered; /* (receiver, sending switch) pairs whose route does not deliver:
                             their flows are left out */
    uint64_t *scaled;     /* [link] the routed flows in 1/64 bytes/s: exact sums, for
                             cs_traffic_load_since */
};

/* xmit[p] and rcv[p]: bytes/s of port index p (CA and router ports; others ignored, may be 0).
 * Fails only on a lack of memory. */
int cs_traffic_load(const struct cs_tracer *t, const double *xmit, const double *rcv,
                    struct cs_traffic_load *out, struct cs_error *err);
void cs_traffic_load_free(struct cs_traffic_load *l);

/* The same traffic's load on t's tables, from its load base on base_tracer's tables (same fabric):
 * only the receivers whose route differs at some switch are routed again, their flows taken out
 * as the base routed them and put back as t routes them. Exactly cs_traffic_load's result; the
 * cheaper the fewer receivers changed (past half of them, it computes the load afresh). */
int cs_traffic_load_since(const struct cs_tracer *t, const struct cs_tracer *base_tracer,
                          const struct cs_traffic_load *base, const double *xmit, const double *rcv,
                          struct cs_traffic_load *out, struct cs_error *err);

#endif
