/* Retention and downsampling of the monitoring store (include/cloudsm/monitor.h, the rules with
 * an example in docs/sm/monitoring.md):
 *
 *   C_raw  = min(the minute boundary at or before now - raw_s, the one at or before now, less a
 *            minute): raw samples with time <= C_raw are folded into minute buckets. The current
 *            minute and the one just ended are never folded (late samples may still come).
 *   C_hour = min(the hour boundary at or before now - minute_s, the one at or before the raw
 *            fold's reach): minute buckets with time <= C_hour are folded into hour buckets, so
 *            an hour is folded only once all its minutes are.
 *   hour buckets with time < now - hour_s and events with time < now - events_s are dropped.
 *
 * A fold reads the rows in key order and writes a bucket per port and bucket, or merges into the
 * one already there (a sample that came late): intervals add, rates are averaged weighted by
 * interval, flags are ORed; the folded rows are deleted. meta's minute_through / hour_through
 * record how far the folds have gone, which is what readers use to take each time from one
 * resolution. Every step is a range on a table's key; when none is due nothing is written at all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "store_internal.h"

#define MINUTE_MS INT64_C(60000)
#define HOUR_MS INT64_C(3600000)

/* t rounded down to a multiple of step (t may be negative). */
static int64_t floor_to(int64_t t, int64_t step)
{
    int64_t q = t / step;
    if (t % step < 0)
        q--;
    return q * step;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* A limit bound as the column's type: milliseconds (integers) or seconds (events' times). */
static void bind_limit(sqlite3_stmt *st, double limit, bool ms)
{
    if (ms)
        sqlite3_bind_int64(st, 1, (sqlite3_int64)limit);
    else
        sqlite3_bind_double(st, 1, limit);
}

/* Whether a table has a row with column < limit (strict) or <= limit: one index probe. */
static int has_row_before(struct cs_monitor *mon, const char *table, const char *column,
                          double limit, bool inclusive, bool *yes, struct cs_error *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s WHERE %s %s ? LIMIT 1", table, column,
             inclusive ? "<=" : "<");
    sqlite3_stmt *st;
    if (store_prepare(mon, sql, &st, err) < 0)
        return -1;
    bind_limit(st, limit, strcmp(column, "time_ms") == 0);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return store_fail(mon, err, "cannot read");
    *yes = step == SQLITE_ROW;
    return 0;
}

/* Run one statement with a limit as ?1; *changes gets the rows it changed. */
static int run_limited(struct cs_monitor *mon, const char *sql, double limit, bool ms,
                       uint64_t *changes, struct cs_error *err)
{
    sqlite3_stmt *st;
    if (store_prepare(mon, sql, &st, err) < 0)
        return -1;
    bind_limit(st, limit, ms);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail(mon, err, "cannot compact");
    sqlite3_finalize(st);
    if (rc == 0 && changes)
        *changes += (uint64_t)sqlite3_changes(mon->db);
    return rc;
}

/* A bucket being filled: one per port id, reused bucket after bucket. */
struct bucket {
    double interval, amount[CS_METRIC_COUNT]; /* amount: sum of rate x interval */
    uint32_t flags;
    bool touched;
};

struct folding {
    struct bucket *buckets; /* by store port id */
    uint32_t capacity;
    int64_t *touched; /* port ids with a bucket in progress */
    uint32_t num_touched, touched_capacity;
    int64_t time_ms; /* the buckets' end */
    sqlite3_stmt *upsert;
};

/* INSERT a bucket, or merge it into the one there: intervals add, rates are weighted by them. */
static int prepare_upsert(struct cs_monitor *mon, const char *table, sqlite3_stmt **st,
                          struct cs_error *err)
{
    char sql[2048];
    size_t n = (size_t)snprintf(sql, sizeof sql,
                                "INSERT INTO %s(time_ms, port_id, interval_s, flags", table);
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", cs_metric_name(k));
    n += (size_t)snprintf(sql + n, sizeof sql - n, ") VALUES(?, ?, ?, ?");
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", ?");
    n += (size_t)snprintf(sql + n, sizeof sql - n,
                          ") ON CONFLICT(time_ms, port_id) DO UPDATE SET"
                          " interval_s = interval_s + excluded.interval_s,"
                          " flags = flags | excluded.flags");
    for (int k = 0; k < CS_METRIC_COUNT; k++) {
        const char *c = cs_metric_name(k);
        n += (size_t)snprintf(sql + n, sizeof sql - n,
                              ", %s = (%s * interval_s + excluded.%s * excluded.interval_s) /"
                              " (interval_s + excluded.interval_s)",
                              c, c, c);
    }
    if (n >= sizeof sql)
        return cs_fail(err, "%s: fold query too long", mon->path);
    return store_prepare(mon, sql, st, err);
}

/* Write the buckets in progress. */
static int flush_buckets(struct cs_monitor *mon, struct folding *fo, uint64_t *written,
                         struct cs_error *err)
{
    for (uint32_t i = 0; i < fo->num_touched; i++) {
        struct bucket *b = &fo->buckets[fo->touched[i]];
        sqlite3_stmt *st = fo->upsert;
        sqlite3_bind_int64(st, 1, fo->time_ms);
        sqlite3_bind_int64(st, 2, fo->touched[i]);
        sqlite3_bind_double(st, 3, b->interval);
        sqlite3_bind_int64(st, 4, b->flags);
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            sqlite3_bind_double(st, 5 + k, b->amount[k] / b->interval);
        int step = sqlite3_step(st);
        sqlite3_reset(st);
        if (step != SQLITE_DONE)
            return store_fail(mon, err, "cannot write a bucket");
        *b = (struct bucket){0};
        (*written)++;
    }
    fo->num_touched = 0;
    return 0;
}

/* Add one row (time_ms, port_id, interval_s, flags, metrics...) to its bucket. */
static int add_row(struct cs_monitor *mon, struct folding *fo, sqlite3_stmt *row, int64_t width,
                   uint64_t *written, struct cs_error *err)
{
    int64_t time_ms = sqlite3_column_int64(row, 0), id = sqlite3_column_int64(row, 1);
    int64_t end = (time_ms + width - 1) / width * width; /* times are after the epoch */
    if (end != fo->time_ms && flush_buckets(mon, fo, written, err) < 0)
        return -1;
    fo->time_ms = end;
    if (id < 0 || id >= UINT32_MAX - 1)
        return cs_fail(err, "%s: damaged: a sample of port id %lld", mon->path, (long long)id);
    if (cs_grow_zeroed((void **)&fo->buckets, &fo->capacity, (uint64_t)id + 1, sizeof *fo->buckets,
                       err) < 0)
        return -1;
    struct bucket *b = &fo->buckets[id];
    if (!b->touched) {
        if (cs_grow((void **)&fo->touched, &fo->touched_capacity, (uint64_t)fo->num_touched + 1,
                    sizeof *fo->touched, err) < 0)
            return -1;
        fo->touched[fo->num_touched++] = id;
        b->touched = true;
    }
    double interval = sqlite3_column_double(row, 2);
    b->interval += interval;
    b->flags |= (uint32_t)sqlite3_column_int64(row, 3);
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        b->amount[k] += sqlite3_column_double(row, 4 + k) * interval;
    return 0;
}

/* Fold the rows of resolution `from` with time_ms <= limit into buckets of resolution `to`, and
 * delete them. The rows come in key order (time, port), so buckets complete one after the other:
 * one pass, no sort. */
static int fold(struct cs_monitor *mon, enum store_resolution from, enum store_resolution to,
                int64_t limit, uint64_t *written, uint64_t *folded, struct cs_error *err)
{
    char sql[512];
    size_t n = (size_t)snprintf(sql, sizeof sql, "SELECT time_ms, port_id, interval_s, flags");
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", cs_metric_name(k));
    snprintf(sql + n, sizeof sql - n, " FROM %s WHERE time_ms <= ?1 ORDER BY time_ms, port_id",
             store_sample_tables[from]);
    struct folding fo = {.time_ms = INT64_MIN};
    sqlite3_stmt *rows = NULL;
    int rc = prepare_upsert(mon, store_sample_tables[to], &fo.upsert, err);
    if (rc == 0)
        rc = store_prepare(mon, sql, &rows, err);
    if (rc == 0) {
        sqlite3_bind_int64(rows, 1, limit);
        int step;
        while (rc == 0 && (step = sqlite3_step(rows)) == SQLITE_ROW)
            rc = add_row(mon, &fo, rows, store_bucket_ms[to], written, err);
        if (rc == 0 && step != SQLITE_DONE)
            rc = store_fail(mon, err, "cannot read samples to fold");
    }
    if (rc == 0)
        rc = flush_buckets(mon, &fo, written, err);
    sqlite3_finalize(rows);
    sqlite3_finalize(fo.upsert);
    free(fo.buckets);
    free(fo.touched);
    if (rc < 0)
        return -1;
    snprintf(sql, sizeof sql, "DELETE FROM %s WHERE time_ms <= ?1", store_sample_tables[from]);
    return run_limited(mon, sql, (double)limit, true, folded, err);
}

static int check_retention(struct cs_monitor *mon, const struct cs_monitor_retention *r,
                           struct cs_error *err)
{
    if (!(r->raw_s >= 0 && r->raw_s <= r->minute_s && r->minute_s <= r->hour_s &&
          isfinite(r->hour_s) && r->events_s >= 0 && isfinite(r->events_s)))
        return cs_fail(err,
                       "%s: retention raw %g s, minute %g s, hour %g s, events %g s: needs 0 <= "
                       "raw <= minute <= hour and events >= 0",
                       mon->path, r->raw_s, r->minute_s, r->hour_s, r->events_s);
    return 0;
}

int cs_monitor_compact(struct cs_monitor *mon, double now, const struct cs_monitor_retention *r,
                       struct cs_monitor_compaction *done, struct cs_error *err)
{
    static const struct cs_monitor_retention defaults = CS_MONITOR_RETENTION_DEFAULTS;
    struct cs_monitor_compaction ignored;
    if (!done)
        done = &ignored;
    *done = (struct cs_monitor_compaction){0};
    if (!r)
        r = &defaults;
    if (store_writable(mon, err) < 0 || check_retention(mon, r, err) < 0)
        return -1;
    if (!isfinite(now))
        return cs_fail(err, "%s: compaction at time %g", mon->path, now);
    int64_t now_ms = store_ms(now);
    int64_t minute_through, hour_through;
    if (store_meta_get(mon, STORE_META_MINUTE_THROUGH, &minute_through, err) < 0 ||
        store_meta_get(mon, STORE_META_HOUR_THROUGH, &hour_through, err) < 0)
        return -1;
    int64_t raw_cut = min64(floor_to(now_ms - store_ms(r->raw_s), MINUTE_MS),
                            floor_to(now_ms, MINUTE_MS) - MINUTE_MS);
    int64_t new_minute_through = raw_cut > minute_through ? raw_cut : minute_through;
    int64_t hour_cut = min64(floor_to(now_ms - store_ms(r->minute_s), HOUR_MS),
                             floor_to(new_minute_through, HOUR_MS));
    int64_t new_hour_through = hour_cut > hour_through ? hour_cut : hour_through;
    double hour_drop = (double)(now_ms - store_ms(r->hour_s));
    double event_drop = now - r->events_s;

    /* What is due: a row past a cut, in each table (a fold can make rows due for the next step:
     * a raw fold may fill minute buckets past the hour cut, which the minute fold then takes). */
    bool raw_due = false, minute_due = false, hour_due = false, events_due = false;
    if (has_row_before(mon, store_sample_tables[STORE_RAW], "time_ms", (double)raw_cut, true,
                       &raw_due, err) < 0 ||
        has_row_before(mon, store_sample_tables[STORE_MINUTE], "time_ms", (double)hour_cut, true,
                       &minute_due, err) < 0 ||
        has_row_before(mon, store_sample_tables[STORE_HOUR], "time_ms", hour_drop, false, &hour_due,
                       err) < 0 ||
        has_row_before(mon, "events", "time", event_drop, false, &events_due, err) < 0)
        return -1;
    if (!raw_due && !minute_due && !hour_due && !events_due)
        return 0;

    if (store_begin(mon, err) < 0)
        return -1;
    char sql[128];
    int rc = 0;
    if (raw_due || minute_due)
        rc = fold(mon, STORE_RAW, STORE_MINUTE, raw_cut, &done->minute_written, &done->raw_folded,
                  err);
    if (rc == 0)
        rc = store_meta_set(mon, STORE_META_MINUTE_THROUGH, new_minute_through, err);
    if (rc == 0 && (raw_due || minute_due))
        rc = fold(mon, STORE_MINUTE, STORE_HOUR, hour_cut, &done->hour_written,
                  &done->minute_folded, err);
    if (rc == 0)
        rc = store_meta_set(mon, STORE_META_HOUR_THROUGH, new_hour_through, err);
    if (rc == 0) {
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE time_ms < ?1",
                 store_sample_tables[STORE_HOUR]);
        rc = run_limited(mon, sql, hour_drop, true, &done->hour_dropped, err);
    }
    if (rc == 0)
        rc = run_limited(mon, "DELETE FROM events WHERE time < ?1", event_drop, false,
                         &done->events_dropped, err);
    if (rc == 0)
        rc = store_commit(mon, err);
    if (rc < 0) {
        store_rollback(mon);
        *done = (struct cs_monitor_compaction){0};
    }
    return rc;
}
