/* The performance manager: every watched port's PerfMgt counters, read through the SMP pipe, and
 * each port's two latest readings turned into a sample of rates (metrics.h).
 *
 * A poll sends, for every watched port, a PortCounters Get (errors, PortXmitWait, and the 32-bit
 * data counters) and a PortCountersExtended Get (the 64-bit data and packet counters) to the LID
 * of the port's node, LID-routed, through the same window, timeouts and retries as the SM's SMPs.
 * A node whose agent refuses PortCountersExtended (status 0x0c) is asked for PortCounters alone
 * from then on, and its data and packet rates come from the 32-bit counters.
 *
 * Counters are never cleared: a reading is compared with the port's previous one with
 * cs_pma_delta, so a counter that went down (reset by someone, or a rebooted agent) counts from
 * 0, and a 32-bit or narrower counter that stopped at its largest value counts what it gained
 * before it stopped; either way the sample is flagged (CS_METRIC_RESET, CS_METRIC_SATURATED) and
 * its rates are lower bounds. A port that did not answer gets no sample; its next one covers the
 * whole time since the last reading it gave.
 *
 * Intervals are measured on the pipe's clock (monotonic; the SMA model's own clock in tests); a
 * poll's samples are stamped with the wall-clock time the poll ended.
 */
#ifndef CLOUDSM_PERFMGR_H
#define CLOUDSM_PERFMGR_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/metrics.h"
#include "cloudsm/partitions.h"
#include "cloudsm/smp_pipe.h"

/* What the last poll did. */
struct cs_perfmgr_poll {
    uint32_t ports;        /* watched ports */
    uint32_t read;         /* ports whose counters came back */
    uint32_t failed;       /* ports that did not answer, or answered with an error */
    uint32_t sampled;      /* ports that got a sample (read now and before) */
    uint32_t flagged;      /* samples flagged reset or saturated */
    uint32_t first_sample; /* this poll's samples: metrics.samples[first, first + sampled) */
    uint64_t mads;         /* requests sent (retries not counted) */
    uint64_t timeouts;     /* requests that gave up */
    double ms;             /* first request sent to last reply */
};

struct cs_perfmgr_reading; /* one port's latest counters (src/sm/perfmgr.c) */

struct cs_perfmgr {
    struct cs_metrics metrics; /* the watched ports, and the samples of the last keep_s seconds */
    double keep_s;
    struct cs_perfmgr_reading *last; /* one per metrics port */
    bool *no_extended;               /* one per metrics node: PortCountersExtended refused */
    uint64_t polls;
    struct cs_perfmgr_poll last_poll;
    double last_poll_wall;       /* the last poll's stamp (wall clock, seconds) */
    double last_poll_interval_s; /* between the last two polls' stamps; 0 after the first */
};

/* A manager that keeps keep_s seconds of samples in metrics (older ones are dropped after each
 * poll). */
void cs_perfmgr_init(struct cs_perfmgr *pm, double keep_s);
void cs_perfmgr_free(struct cs_perfmgr *pm);

/* Watch the ports of a swept fabric (cs_metrics_set_fabric). A port watched before, by node
 * GUID and port number, keeps its last reading, so the first poll after a sweep samples it; the
 * samples kept are carried over for the ports still watched. */
int cs_perfmgr_set_fabric(struct cs_perfmgr *pm, const struct cs_fabric *f,
                          const struct cs_partition_set *pset, struct cs_error *err);

/* Read every watched port once and append the samples (stamped wall_s, the wall-clock time in
 * seconds since the epoch the caller takes when the poll ends: pass the time after the call, or a
 * test's clock). Returns -1 with err only on a transport failure; ports that do not answer are
 * counted in the result. */
int cs_perfmgr_poll(struct cs_perfmgr *pm, struct cs_smp_pipe *pipe, double (*wall_s)(void),
                    struct cs_perfmgr_poll *out, struct cs_error *err);

/* Seconds since the epoch (CLOCK_REALTIME): what cloudsmd passes as wall_s. */
double cs_perfmgr_wall_clock(void);

#endif
