/* Stepping through a recording (internal to src/adapt): the times cs_adapt_replay and
 * cs_adapt_simulate step at, each with a view of the recording cut at its time. */
#ifndef CLOUDSM_ADAPT_REPLAY_H
#define CLOUDSM_ADAPT_REPLAY_H

#include "cloudsm/error.h"
#include "cloudsm/metrics.h"

/* Called at each step with the recording cut there (only the samples that ended by now: a view
 * sharing recorded's arrays). A non-zero return stops the walk, which returns it. */
typedef int (*adapt_walk_fn)(void *ctx, double now, const struct cs_metrics *view);

/* Walk recorded in time order: at every distinct sample time (step_s 0), or every step_s seconds
 * from the first sample's time to the last. Returns 0, -1 with err set (a bad step_s, too many
 * steps), or fn's non-zero return. */
int adapt_replay_walk(const struct cs_metrics *recorded, double step_s, adapt_walk_fn fn, void *ctx,
                      struct cs_error *err);

#endif
