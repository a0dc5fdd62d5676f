/* The SM core's monitor (core_internal.h): the performance manager's polls on the serving
 * master's turns, what they measured and what happened to the fabric kept in the monitoring
 * store (STATE_DIR/monitor.sqlite), and the adaptation loop after each poll. The store is an
 * aid, not a duty: when it cannot be opened or written the SM logs it and goes on serving. */
#include <stdarg.h>
#include <stdio.h>

#include "cloudsm/clock.h"
#include "core_internal.h"

/* The store, opened on first use (logged once when it cannot be). */
static struct cs_monitor *store(struct cs_sm_core *c)
{
    if (c->monitor != NULL || c->monitor_failed)
        return c->monitor;
    char path[CS_SM_CONFIG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", c->cfg.state_dir, CS_MONITOR_STORE_NAME);
    struct cs_error err;
    if (cs_monitor_open(path, CS_MONITOR_READ_WRITE, &c->monitor, &err) < 0) {
        cs_logf(&c->log, CS_LOG_ERROR, "monitor: %s (counters are kept in memory only)", err.msg);
        c->monitor = NULL;
        c->monitor_failed = true;
    }
    return c->monitor;
}

void cs_sm_core_note(struct cs_sm_core *c, enum cs_log_level level, const char *kind,
                     const char *subject, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cs_logf(&c->log, level, "%s", text);
    if (!c->cfg.perfmgr || store(c) == NULL)
        return;
    struct cs_error err;
    if (cs_monitor_put_event(c->monitor, c->wall_clock(), kind, subject, text, NULL, NULL, &err) <
        0)
        cs_logf(&c->log, CS_LOG_ERROR, "monitor: event: %s", err.msg);
}

/* This poll's samples (and the fabric, after a heavy sweep) into the store, then the retention
 * rules. */
static void keep(struct cs_sm_core *c, const struct cs_perfmgr_poll *res, double now)
{
    if (store(c) == NULL)
        return;
    struct cs_error err;
    if (c->monitor_sweeps != c->perf_sweeps) {
        if (cs_monitor_put_topology(c->monitor, &c->perf.metrics, now, &err) < 0) {
            cs_logf(&c->log, CS_LOG_ERROR, "monitor: %s", err.msg);
            return;
        }
        c->monitor_sweeps = c->perf_sweeps;
    }
    if (res->sampled > 0 &&
        cs_monitor_put_samples(c->monitor, &c->perf.metrics,
                               &c->perf.metrics.samples[res->first_sample], res->sampled, &err) < 0)
        cs_logf(&c->log, CS_LOG_ERROR, "monitor: %s", err.msg);
    if (cs_monitor_compact(c->monitor, now, NULL, NULL, &err) < 0)
        cs_logf(&c->log, CS_LOG_ERROR, "monitor: %s", err.msg);
}

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
    if (cs_perfmgr_poll(&c->perf, c->pipe, c->wall_clock, &res, err) < 0)
        return -1;
    c->next_perf_ms = cs_clock_ms() + c->cfg.perfmgr_sweep_time_s * 1000.0;
    /* The first poll and any with trouble at INFO; routine ones at DEBUG. */
    bool notable = c->perf.polls == 1 || res.failed > 0 || res.flagged > 0;
    cs_logf(&c->log, notable ? CS_LOG_INFO : CS_LOG_DEBUG,
            "perfmgr: poll %llu: %u ports, %u read, %u failed, %u sampled (%u reset or saturated), "
            "%llu MADs in %.1f ms",
            (unsigned long long)c->perf.polls, res.ports, res.read, res.failed, res.sampled,
            res.flagged, (unsigned long long)res.mads, res.ms);
    double now = c->perf.last_poll_wall;
    keep(c, &res, now);
    return cs_sm_core_adapt_turn(c, now, err);
}
