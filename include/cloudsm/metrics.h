/* The fabric as the monitor measures it: which ports are watched, what they belong to, and what
 * they did, interval by interval.
 *
 * One representation for everyone who touches measurements: the performance manager (cloudsmd)
 * turns PerfMgt counter readings into per-interval rates and appends them; the monitoring store
 * (monitor.h, SQLite) persists, downsamples and reloads them; IBAdapt rules (adapt.h), learned
 * node weights and traffic predictors read them. A rule evaluated in the live SM and the same
 * rule replayed from a recorded store therefore see the same numbers.
 *
 * Rates are per second over a sample's interval. Data rates are in bytes (the counters count
 * octets / 4; the performance manager multiplies). A sample whose counters were reset or stopped
 * at their largest value during the interval carries a flag: its rates are lower bounds.
 */
#ifndef CLOUDSM_METRICS_H
#define CLOUDSM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/partitions.h"

/* What a sample measures for one port, per second over its interval. */
enum cs_metric {
    CS_METRIC_XMIT_BYTES, /* bytes transmitted (PortXmitData x 4) */
    CS_METRIC_RCV_BYTES,  /* bytes received (PortRcvData x 4) */
    CS_METRIC_XMIT_PKTS,  /* packets transmitted */
    CS_METRIC_RCV_PKTS,   /* packets received */
    CS_METRIC_XMIT_WAIT,  /* PortXmitWait ticks: data to send, no credit to send it with */
    CS_METRIC_ERRORS,     /* increments of every error counter of PortCounters, summed */
    CS_METRIC_COUNT
};

/* "xmit_bytes", "rcv_bytes", "xmit_pkts", "rcv_pkts", "xmit_wait", "errors": the names the
 * store's columns, the rule language and the command-line tools use. */
const char *cs_metric_name(enum cs_metric m);
/* The metric a name (len bytes) names, or -1. */
int cs_metric_from_name(const char *name, size_t len);

#define CS_METRIC_RESET 0x1u     /* a counter went down (reset) during the interval */
#define CS_METRIC_SATURATED 0x2u /* a counter stopped at its largest value */

struct cs_metric_node {
    uint64_t guid;
    uint8_t type; /* enum cs_node_type */
    char desc[CS_DESC_MAX + 1];
};

/* A watched port: a CA port, or an external port of a switch. */
struct cs_metric_port {
    uint64_t guid;           /* the port's GUID (a switch's external ports: 0) */
    uint32_t node;           /* index in cs_metrics.nodes */
    uint8_t num;             /* port number on its node */
    uint8_t peer_num;        /* the port at the other end of the cable (0: none known) */
    uint16_t lid;            /* where its PMA answers: the port's LID, a switch's port 0 LID */
    uint64_t peer_node_guid; /* the node at the other end (0: none known) */
    double link_bytes_per_s; /* the link's data rate: width x lane rate after encoding; 0 if
                                unknown */
};

struct cs_metric_partition {
    char name[CS_PARTITION_NAME_MAX + 1];
    uint16_t pkey;     /* 15-bit id */
    uint32_t *members; /* node indices (CA nodes with a member port), ascending, no repeats */
    uint32_t num_members;
};

/* One port over one interval. */
struct cs_metric_sample {
    double time;     /* the interval's end, seconds since the epoch */
    double interval; /* seconds it covers (downsampled samples cover more) */
    uint32_t port;   /* index in cs_metrics.ports */
    uint32_t flags;  /* CS_METRIC_RESET | CS_METRIC_SATURATED */
    double value[CS_METRIC_COUNT];
};

struct cs_metrics {
    struct cs_metric_node *nodes; /* sorted by GUID */
    uint32_t num_nodes, nodes_capacity;
    struct cs_metric_port *ports; /* sorted by (node GUID, port number) */
    uint32_t num_ports, ports_capacity;
    struct cs_metric_partition *partitions; /* in configuration order */
    uint32_t num_partitions, partitions_capacity;
    struct cs_metric_sample *samples; /* ascending time; samples of one time ascending port */
    uint32_t num_samples, samples_capacity;
};

void cs_metrics_init(struct cs_metrics *m);
void cs_metrics_free(struct cs_metrics *m);
/* Drop the samples, keep the ports (a new window over the same fabric). */
void cs_metrics_clear_samples(struct cs_metrics *m);

/* The watched ports of a fabric: every node, every CA port with a LID, every connected external
 * switch port (its switch's port 0 LID); link rates from the ports' width and speed; partitions
 * from pset (NULL: none). Replaces what m held (samples included). */
int cs_metrics_set_fabric(struct cs_metrics *m, const struct cs_fabric *f,
                          const struct cs_partition_set *pset, struct cs_error *err);

/* Builders, for readers of stored topologies and for tests. Nodes must come in ascending GUID
 * order, ports in ascending (node, number) order, samples in ascending time. */
int cs_metrics_add_node(struct cs_metrics *m, uint64_t guid, uint8_t type, const char *desc,
                        struct cs_error *err);
int cs_metrics_add_port(struct cs_metrics *m, const struct cs_metric_port *p, struct cs_error *err);
int cs_metrics_add_partition(struct cs_metrics *m, const char *name, uint16_t pkey,
                             const uint32_t *members, uint32_t num_members, struct cs_error *err);
int cs_metrics_add_sample(struct cs_metrics *m, const struct cs_metric_sample *s,
                          struct cs_error *err);

/* How many samples ended by time t: the index of the first that ends later. */
uint32_t cs_metrics_samples_ended_by(const struct cs_metrics *m, double t);
/* Index of the node with guid, or UINT32_MAX. */
uint32_t cs_metrics_find_node(const struct cs_metrics *m, uint64_t guid);
/* Index of port num of the node with guid, or UINT32_MAX. */
uint32_t cs_metrics_find_port(const struct cs_metrics *m, uint64_t node_guid, uint8_t num);

/* ---- Rates over a window ------------------------------------------------------------------ */

/* A port's rate over a window [since, until] is the mean of its samples' rates weighted by how
 * many seconds of the window each covers: a sample covers (time - interval, time], and one that
 * began before since counts for its part in the window; one that ends after until does not
 * count (a window ending now must not see later samples: replays rely on it). The parts of the
 * window no sample covers do not count (the mean is over what was measured); a port whose samples
 * cover none of it has no rate (NaN). Samples flagged CS_METRIC_RESET or CS_METRIC_SATURATED count
 * like the others (their rates are lower bounds).
 *
 * This accumulator is the one place that weighs samples by overlap: the functions below, learned
 * weights, rules and the store's readers all feed it, so they agree to the last bit. */
struct cs_rate_window {
    double since, until;
    uint32_t num_ports;
    double *amount;  /* [port * CS_METRIC_COUNT + metric]: sum of rate x seconds covered */
    double *covered; /* [port]: seconds of the window covered */
};

/* A window over ports 0..num_ports-1; needs since < until, both finite. */
int cs_rate_window_init(struct cs_rate_window *w, uint32_t num_ports, double since, double until,
                        struct cs_error *err);
void cs_rate_window_free(struct cs_rate_window *w);
/* Count one sample: the part of it in the window. A sample that misses the window, or that ends
 * after until (still running then: counting part of it would look past the window's end),
 * adds nothing. */
void cs_rate_window_add(struct cs_rate_window *w, const struct cs_metric_sample *s);
/* The time-weighted mean rate of a port (NaN when nothing of the window is covered). */
double cs_rate_window_mean(const struct cs_rate_window *w, uint32_t port, enum cs_metric metric);
/* How much the port moved in the covered part: rate x seconds (bytes for the byte metrics). */
double cs_rate_window_amount(const struct cs_rate_window *w, uint32_t port, enum cs_metric metric);
/* Seconds of the window the port's samples cover. */
double cs_rate_window_covered(const struct cs_rate_window *w, uint32_t port);
/* Count every sample of m that ended in (since, until] (w over m's ports). */
void cs_rate_window_fill(struct cs_rate_window *w, const struct cs_metrics *m);

/* Each port's rate of metric over [since, until] from m's samples (cs_rate_window_fill's):
 * rate[i] for m->ports[i], NaN when no sample of the port counts; covered (NULL: not wanted) gets
 * the seconds covered. */
int cs_metrics_port_rates(const struct cs_metrics *m, enum cs_metric metric, double since,
                          double until, double *rate, double *covered, struct cs_error *err);
/* Each node's rate: the sum of its ports' rates (those that have one); NaN when none of its ports
 * has one. rate[i] for m->nodes[i]. */
int cs_metrics_node_rates(const struct cs_metrics *m, enum cs_metric metric, double since,
                          double until, double *rate, struct cs_error *err);

#endif
