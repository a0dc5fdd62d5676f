/* Replay (cs_adapt_replay): the rules stepped through a recording. Each step evaluates over a
 * view of the recording cut at the step's time, so that no step can see a later sample even
 * through a window that reaches past it. The walk is shared with the simulation (simulate.c). */
#include "adapt/replay.h"

#include <math.h>
#include <stdlib.h>

#include "cloudsm/adapt.h"

/* A longer replay is refused rather than run for hours: step_s is likely a mistake. */
#define REPLAY_STEPS_MAX 10000000.0

static int walk_step(const struct cs_metrics *recorded, double now, adapt_walk_fn fn, void *ctx)
{
    struct cs_metrics view = *recorded;
    view.num_samples = cs_metrics_samples_ended_by(recorded, now);
    return fn(ctx, now, &view);
}

int adapt_replay_walk(const struct cs_metrics *recorded, double step_s, adapt_walk_fn fn, void *ctx,
                      struct cs_error *err)
{
    if (!(step_s >= 0) || !isfinite(step_s))
        return cs_fail(err, "replay step of %g s: want 0 (each sample time) or more", step_s);
    if (recorded->num_samples == 0)
        return 0;
    double first = recorded->samples[0].time,
           last = recorded->samples[recorded->num_samples - 1].time;
    if (step_s > 0 && (last - first) / step_s > REPLAY_STEPS_MAX)
        return cs_fail(err, "replay of %.0f s in steps of %g s: more than %.0f steps", last - first,
                       step_s, REPLAY_STEPS_MAX);
    int rc = 0;
    if (step_s == 0) {
        for (uint32_t i = 0; i < recorded->num_samples && rc == 0; i++)
            if (i == 0 || recorded->samples[i].time != recorded->samples[i - 1].time)
                rc = walk_step(recorded, recorded->samples[i].time, fn, ctx);
    } else {
        /* times from a count, not a running sum: no drift over long replays */
        for (uint64_t k = 0; rc == 0; k++) {
            double now = first + (double)k * step_s;
            if (now > last)
                break;
            rc = walk_step(recorded, now, fn, ctx);
        }
    }
    return rc;
}

struct replay {
    const struct cs_adapt_rules *rules;
    struct cs_adapt_state state;
    cs_adapt_replay_fn fn;
    void *ctx;
    struct cs_error *err;
};

static int replay_step(void *arg, double now, const struct cs_metrics *view)
{
    struct replay *r = arg;
    struct cs_adapt_firing *firings;
    uint32_t count;
    if (cs_adapt_step(r->rules, &r->state, view, now, &firings, &count, r->err) < 0)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        cs_adapt_state_outcome(&r->state, firings[i].rule, true);
    int rc = r->fn(r->ctx, now, &r->state, firings, count);
    cs_adapt_firings_free(firings, count);
    return rc;
}

int cs_adapt_replay(const struct cs_adapt_rules *r, const struct cs_metrics *recorded,
                    double step_s, cs_adapt_replay_fn fn, void *ctx, struct cs_error *err)
{
    struct replay rp = {.rules = r, .fn = fn, .ctx = ctx, .err = err};
    if (cs_adapt_state_init(&rp.state, r, err) < 0)
        return -1;
    int rc = adapt_replay_walk(recorded, step_s, replay_step, &rp, err);
    cs_adapt_state_free(&rp.state);
    return rc;
}
