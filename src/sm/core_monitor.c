/* The SM core's monitor (core_internal.h): the performance manager's polls, on the serving
 * master's turns. */
#include <stdio.h>

#include "cloudsm/clock.h"
#include "core_internal.h"

int cs_sm_core_monitor_turn(struct cs_sm_core *c, struct cs_error *err)
{
    if (!c->cfg.perfmgr || c->me.state != CS_SMP_SM_STATE_MASTER || c->sweeps == 0 ||
        cs_clock_ms() < c->next_perf_ms)
        return 0;
    if (c->perf_sweeps != c->sweeps || c->perf.polls == 0) {
        /* A heavy sweep since the last poll: watch its fabric (readings of ports still there
         * are kept). */
        if (cs_perfmgr_set_fabric(&c->perf, &c->sweep.fabric, &c->pset, err) < 0) {
            cs_logf(&c->log, CS_LOG_ERROR, "perfmgr: %s", err->msg);
            c->next_perf_ms = cs_clock_ms() + c->cfg.perfmgr_sweep_time_s * 1000.0;
            return 0;
        }
        c->perf_sweeps = c->sweeps;
    }
    struct cs_perfmgr_poll res;
    if (cs_perfmgr_poll(&c->perf, c->pipe, cs_perfmgr_wall_clock, &res, err) < 0)
        return -1;
    c->next_perf_ms = cs_clock_ms() + c->cfg.perfmgr_sweep_time_s * 1000.0;
    /* The first poll and any with trouble at INFO; routine ones at DEBUG. */
    bool notable = c->perf.polls == 1 || res.failed > 0 || res.flagged > 0;
    cs_logf(&c->log, notable ? CS_LOG_INFO : CS_LOG_DEBUG,
            "perfmgr: poll %llu: %u ports, %u read, %u failed, %u sampled (%u reset or saturated), "
            "%llu MADs in %.1f ms",
            (unsigned long long)c->perf.polls, res.ports, res.read, res.failed, res.sampled,
            res.flagged, (unsigned long long)res.mads, res.ms);
    return 0;
}
