/* The monitoring store's insides (internal to src/monitor/store*.c): the handle, the schema's
 * names, and the helpers every part uses to run SQL with errors that name the store. */
#ifndef CLOUDSM_MONITOR_STORE_INTERNAL_H
#define CLOUDSM_MONITOR_STORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "cloudsm/monitor.h"

/* The three resolutions, finest first; a table of samples each. */
enum store_resolution { STORE_RAW, STORE_MINUTE, STORE_HOUR, STORE_RESOLUTIONS };

/* "samples_raw", "samples_minute", "samples_hour". */
extern const char *const store_sample_tables[STORE_RESOLUTIONS];
/* A bucket's width in milliseconds (raw: 0, no buckets). */
extern const int64_t store_bucket_ms[STORE_RESOLUTIONS];

/* Meta rows besides the schema version: how far each fold has gone (milliseconds). Raw samples
 * at or before minute_through are in minute buckets; minute buckets at or before hour_through
 * are in hour buckets. */
#define STORE_META_SCHEMA "schema"
#define STORE_META_MINUTE_THROUGH "minute_through_ms"
#define STORE_META_HOUR_THROUGH "hour_through_ms"

/* A port the store has, for mapping a cs_metrics' ports to store ids. */
struct store_port_key {
    uint64_t node_guid;
    int64_t id;
    uint8_t num;
    bool present;
};

struct cs_monitor {
    sqlite3 *db;
    char *path;
    bool writable;
    /* Prepared when first needed, kept until close: every poll and sweep uses them. */
    sqlite3_stmt *insert_sample, *upsert_node, *upsert_port;
    /* The store's ports sorted by (node GUID, number); loaded when put_samples needs it, dropped
     * when the ports change. */
    struct store_port_key *keys;
    uint32_t num_keys, keys_capacity;
    bool keys_loaded;
    int64_t *ids; /* put_samples: the store id of each port of the caller's cs_metrics */
    uint32_t ids_capacity;
};

/* err = "PATH: what: SQLite's message"; returns -1. */
int store_fail(struct cs_monitor *mon, struct cs_error *err, const char *what);
int store_exec(struct cs_monitor *mon, const char *sql, struct cs_error *err);
int store_prepare(struct cs_monitor *mon, const char *sql, sqlite3_stmt **st, struct cs_error *err);
/* A write transaction (BEGIN IMMEDIATE: the lock is taken at once, waited for up to the busy
 * timeout), and its end; rollback never fails (it is the path of an error already reported). */
int store_begin(struct cs_monitor *mon, struct cs_error *err);
int store_commit(struct cs_monitor *mon, struct cs_error *err);
void store_rollback(struct cs_monitor *mon);
/* A read transaction, so that several queries see one state of the store. */
int store_begin_read(struct cs_monitor *mon, struct cs_error *err);
void store_end_read(struct cs_monitor *mon);

int store_meta_get(struct cs_monitor *mon, const char *key, int64_t *value, struct cs_error *err);
int store_meta_set(struct cs_monitor *mon, const char *key, int64_t value, struct cs_error *err);

/* Writers only: a read-only store says so. */
int store_writable(struct cs_monitor *mon, struct cs_error *err);

/* Seconds to the store's milliseconds. */
int64_t store_ms(double seconds);

/* Insert or update m's node `node` and port `port` (UINT32_MAX: only the node) as present at
 * `seen`; drops the port key cache. Inside a write transaction. */
int store_upsert_node(struct cs_monitor *mon, const struct cs_metrics *m, uint32_t node,
                      double seen, struct cs_error *err);
int store_upsert_port(struct cs_monitor *mon, const struct cs_metrics *m, uint32_t port,
                      double seen, struct cs_error *err);
/* The store's ports into mon->keys (if not loaded). */
int store_load_keys(struct cs_monitor *mon, struct cs_error *err);

#endif
