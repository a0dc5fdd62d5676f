/* The monitoring store: one SQLite file (STATE_DIR/monitor.sqlite) in which cloudsmd keeps what
 * its performance manager measured, the per-interval rates of every watched port (metrics.h),
 * and what happened to the fabric (events), and from which `cloudsm sm counters|events`, learned
 * weights (learn.h) and the adaptation loop's rules read them back. docs/sm/monitoring.md has the
 * schema, the retention and downsampling rules with an example, and the commands.
 *
 * One writer (cloudsmd) and any number of readers, in other processes too: the file is in WAL
 * mode, so a reader sees the last committed batch and never waits for the writer, and every
 * write is one transaction (a reader sees a whole batch or none of it). A lock held by another
 * writer is waited for up to CS_MONITOR_BUSY_TIMEOUT_MS.
 *
 * Times are seconds since the epoch; the store keeps samples' times to the millisecond. Samples
 * name their port by (node GUID, port number) through the store's own port ids, never by an index
 * into a cs_metrics, so they stay valid across topology changes. Every error message starts with
 * the store's path and, where SQLite failed, ends with SQLite's message.
 */
#ifndef CLOUDSM_MONITOR_H
#define CLOUDSM_MONITOR_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/metrics.h"

/* The store's name in cloudsmd's state directory. */
#define CS_MONITOR_STORE_NAME "monitor.sqlite"
/* The schema this code reads and writes (the meta table's "schema" row). A store with a newer
 * schema is refused; one with this schema is used as it is. */
#define CS_MONITOR_SCHEMA 1
#define CS_MONITOR_BUSY_TIMEOUT_MS 5000
/* The longest interval a raw sample may cover (its poll period). Bounds how far past a window's
 * end a sample can still overlap it, so that reading a window stays a range scan. */
#define CS_MONITOR_MAX_INTERVAL_S 3600.0

enum cs_monitor_mode {
    CS_MONITOR_READ_ONLY,  /* the file must exist and be a store */
    CS_MONITOR_READ_WRITE, /* created (empty store) if missing or empty */
};

struct cs_monitor;

/* Open the store at path. Refused, naming the path and why: a file that is not SQLite, an SQLite
 * database that is not a cloudsm monitoring store (its application id), a store of a newer
 * schema; read-only, a file that does not exist. Nothing is written to a refused file. */
int cs_monitor_open(const char *path, enum cs_monitor_mode mode, struct cs_monitor **out,
                    struct cs_error *err);
void cs_monitor_close(struct cs_monitor *mon);
const char *cs_monitor_path(const struct cs_monitor *mon);

/* ---- writing (CS_MONITOR_READ_WRITE) ------------------------------------------------------ */

/* The fabric as it is at `now`: nodes and ports are inserted or updated (description, LID, peer,
 * link rate) and marked present; those of the store that m lacks are marked removed at now (kept:
 * their samples stay readable). The partitions become m's (a partition's members are replaced).
 * One transaction. */
int cs_monitor_put_topology(struct cs_monitor *mon, const struct cs_metrics *m, double now,
                            struct cs_error *err);

/* Append n samples of m's ports (s[i].port indexes m->ports), in one transaction. A sample of the
 * same port and time as a stored one replaces it. A port the store does not have, or has as
 * removed, is added (with its node) as present. Each sample needs a time after the epoch, an
 * interval in (0, CS_MONITOR_MAX_INTERVAL_S] and finite values; otherwise nothing is written. */
int cs_monitor_put_samples(struct cs_monitor *mon, const struct cs_metrics *m,
                           const struct cs_metric_sample *s, uint32_t n, struct cs_error *err);

/* ---- events ------------------------------------------------------------------------------- */

/* Kinds the SM and the adaptation loop write; any kind of 1 to CS_MONITOR_KIND_MAX characters
 * from [a-z0-9_-] is accepted. */
#define CS_MONITOR_EVENT_SWEEP "sweep"                     /* a heavy sweep and what it found */
#define CS_MONITOR_EVENT_FAULT "fault"                     /* a link or node went away */
#define CS_MONITOR_EVENT_RECONFIGURATION "reconfiguration" /* tables re-routed and sent */
#define CS_MONITOR_EVENT_VM "vm"                           /* a VM created, moved, destroyed */
#define CS_MONITOR_EVENT_ADAPT "adapt" /* the loop's audit: why, what, cost, expected gain */
#define CS_MONITOR_KIND_MAX 32

struct cs_monitor_event {
    int64_t id;
    double time;
    const char *kind;
    const char *subject; /* what it is about (a GUID, a VM, a rule), or NULL */
    const char *text;    /* one line for people */
    const char *detail;  /* a JSON document, or NULL */
};

/* Record an event; *id (if not NULL) gets its id. json_detail may be NULL; otherwise it must be
 * valid JSON. */
int cs_monitor_put_event(struct cs_monitor *mon, double time, const char *kind, const char *subject,
                         const char *text, const char *json_detail, int64_t *id,
                         struct cs_error *err);
/* Add to an event's detail after the fact (the measured effect of an adaptation): json_detail is
 * merged into the stored detail as an RFC 7396 merge patch (keys it names are set, a null
 * removes one, the others stay). An unknown id is an error. */
int cs_monitor_amend_event(struct cs_monitor *mon, int64_t id, const char *json_detail,
                           struct cs_error *err);

/* Called once per event; the strings live until it returns. Non-zero stops the walk: a negative
 * value (with err set) is returned as the walk's error. */
typedef int (*cs_monitor_event_fn)(void *ctx, const struct cs_monitor_event *e,
                                   struct cs_error *err);
/* The events with since <= time <= until, of one kind (NULL: all), in time order (then id). */
int cs_monitor_events(struct cs_monitor *mon, double since, double until, const char *kind,
                      cs_monitor_event_fn fn, void *ctx, struct cs_error *err);

/* ---- retention and downsampling ----------------------------------------------------------- */

/* Ages, in seconds before `now`: raw samples younger than raw_s stay raw; older ones are folded
 * into 1-minute buckets, kept while younger than minute_s; older minute buckets are folded into
 * 1-hour buckets, dropped when older than hour_s. Events are dropped when older than events_s.
 * Needs 0 <= raw_s <= minute_s <= hour_s and events_s >= 0. */
struct cs_monitor_retention {
    double raw_s, minute_s, hour_s, events_s;
};
#define CS_MONITOR_RETENTION_DEFAULTS                                                              \
    {                                                                                              \
        .raw_s = 3600, .minute_s = 86400, .hour_s = 30 * 86400.0, .events_s = 30 * 86400.0         \
    }

/* What a compaction did (rows). */
struct cs_monitor_compaction {
    uint64_t raw_folded;     /* raw samples folded into minute buckets (and deleted) */
    uint64_t minute_written; /* minute buckets written or merged into */
    uint64_t minute_folded;  /* minute buckets folded into hour buckets (and deleted) */
    uint64_t hour_written;   /* hour buckets written or merged into */
    uint64_t hour_dropped;   /* hour buckets past hour_s */
    uint64_t events_dropped; /* events past events_s */
};

/* Apply the retention (r NULL: CS_MONITOR_RETENTION_DEFAULTS) at now. A bucket gets a port's
 * samples whose times fall in it (a bucket ending at E holds times in (E - width, E]); its time is
 * E, its interval the sum of theirs, its rates their means weighted by interval, its flags their
 * OR. Only whole minutes that have ended at least a minute before now are folded, so a minute that
 * may still receive samples is left alone; a sample that arrives for an already folded minute is
 * merged into its bucket by the next compaction. Idempotent; when nothing is due it reads a few
 * index entries and writes nothing. done may be NULL. */
int cs_monitor_compact(struct cs_monitor *mon, double now, const struct cs_monitor_retention *r,
                       struct cs_monitor_compaction *done, struct cs_error *err);

/* ---- reading ------------------------------------------------------------------------------ */

/* Batches of samples in time order (samples of one time in port order, never split across two
 * batches), their ports indexing topology->ports. Non-zero stops the scan; a negative value (with
 * err set) is the scan's error. */
typedef int (*cs_monitor_sample_fn)(void *ctx, const struct cs_metrics *topology,
                                    const struct cs_metric_sample *s, uint32_t n,
                                    struct cs_error *err);

/* Stream the window [since, until]: topology (initialised here; free it with cs_metrics_free)
 * gets the store's nodes, ports and partitions, and fn the samples that overlap the window (a
 * sample covers (time - interval, time]; those with since <= time come, and those ending after
 * until that started before it). Ports: those present at the last topology put and those removed
 * at or after since. Each time comes from one resolution: raw where the store keeps raw samples,
 * else minute buckets, else hour buckets (a sample's interval tells which). node_guids (NULL:
 * every node) restricts the topology and the samples to those nodes; a GUID the store does not
 * know is an error. */
int cs_monitor_scan(struct cs_monitor *mon, double since, double until, const uint64_t *node_guids,
                    uint32_t num_node_guids, struct cs_metrics *topology, cs_monitor_sample_fn fn,
                    void *ctx, struct cs_error *err);

/* cs_monitor_scan of every node into memory: out (initialised here) holds the topology and the
 * samples. For long windows of a large fabric, scan instead. */
int cs_monitor_load(struct cs_monitor *mon, double since, double until, struct cs_metrics *out,
                    struct cs_error *err);

#endif
