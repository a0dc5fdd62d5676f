/* What the measurements teach: node weights for the weighted fat-tree engines, learned from the
 * traffic the end ports received, and short-term traffic predictions. Both read measured rates
 * (metrics.h) in memory or straight from the monitoring store (monitor.h);
 * docs/sm/monitoring.md explains them with examples.
 */
#ifndef CLOUDSM_LEARN_H
#define CLOUDSM_LEARN_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/metrics.h"
#include "cloudsm/monitor.h"
#include "cloudsm/weights.h"

/* ---- Learned node weights ------------------------------------------------------------------ */

/* pFTree-Wt: "After setting up the network with equal initial weights for all nodes, new weights
 * can be learned after a specified time period." Each CA port with a port GUID whose samples
 * cover some of [since, until] gets the bytes it received in the window (rcv_bytes rate x seconds
 * covered, rounded to whole bytes) mapped onto [a, b] by cs_weight_scale (pFTree-Wt's Eq. 1 in
 * its min-max form); ports without data are left out (they keep CS_WEIGHT_DEFAULT). out is
 * initialised here, sorted by port GUID (the weights file's key); received (NULL: not wanted)
 * gets each entry's bytes, parallel to out->entries (free it). Needs 1 <= a <= b <= CS_WEIGHT_MAX
 * and at least one CA port with data. */
int cs_metrics_learn_weights(const struct cs_metrics *m, double since, double until, uint32_t a,
                             uint32_t b, struct cs_node_weights *out, uint64_t **received,
                             struct cs_error *err);
/* The same from the store, streamed (a long window of a large fabric is never held in memory). */
int cs_monitor_learn_weights(struct cs_monitor *mon, double since, double until, uint32_t a,
                             uint32_t b, struct cs_node_weights *out, uint64_t **received,
                             struct cs_error *err);

/* ---- Traffic predictors -------------------------------------------------------------------- */

/* Over one port's samples x_1..x_n of a metric at times t_1 < .. < t_n (interval ends), with
 * d_k = t_k - t_{k-1}:
 *
 *   EWMA:  L_1 = x_1;  L_k = alpha x_k + (1 - alpha) L_{k-1};  forecast(h) = L_n
 *   Holt (double exponential smoothing, trend per second, irregular steps):
 *          L_1 = x_1, T_1 = (x_2 - x_1) / d_2 (0 when n = 1);
 *          L_k = alpha x_k + (1 - alpha) (L_{k-1} + d_k T_{k-1})
 *          T_k = beta (L_k - L_{k-1}) / d_k + (1 - beta) T_{k-1};  forecast(h) = L_n + h T_n
 *
 * for the rate at t_n + h (h = horizon_s >= 0). A constant series forecasts itself with both; a
 * linear ramp is continued exactly by Holt. 0 < alpha <= 1, 0 < beta <= 1 (Holt). */
enum cs_predictor { CS_PREDICT_EWMA, CS_PREDICT_HOLT };

struct cs_predictor_params {
    double alpha; /* level smoothing */
    double beta;  /* trend smoothing (Holt) */
};

/* The forecast for one port (index in m->ports); a port without samples is an error. */
int cs_metrics_predict(const struct cs_metrics *m, uint32_t port, enum cs_metric metric,
                       enum cs_predictor method, const struct cs_predictor_params *params,
                       double horizon_s, double *out, struct cs_error *err);
/* The forecast for every port in one pass over the samples: out[i] for m->ports[i], NaN for a
 * port without samples. */
int cs_metrics_predict_ports(const struct cs_metrics *m, enum cs_metric metric,
                             enum cs_predictor method, const struct cs_predictor_params *params,
                             double horizon_s, double *out, struct cs_error *err);

#endif
