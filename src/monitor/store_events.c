/* Events in the monitoring store (include/cloudsm/monitor.h): what happened to the fabric and
 * what the adaptation loop did about it, with a JSON detail the loop amends after the fact. */
#include <math.h>
#include <string.h>

#include "store_internal.h"

static int check_kind(struct cs_monitor *mon, const char *kind, struct cs_error *err)
{
    size_t len = kind ? strlen(kind) : 0;
    if (len == 0 || len > CS_MONITOR_KIND_MAX ||
        strspn(kind, "abcdefghijklmnopqrstuvwxyz0123456789_-") != len)
        return cs_fail(err, "%s: event kind '%s': 1 to %d characters of a-z, 0-9, _ and -",
                       mon->path, kind ? kind : "", CS_MONITOR_KIND_MAX);
    return 0;
}

/* A step that failed on the detail's CHECK (json_valid) says so plainly. */
static int step_failed(struct cs_monitor *mon, const char *what, struct cs_error *err)
{
    if (sqlite3_extended_errcode(mon->db) == SQLITE_CONSTRAINT_CHECK ||
        strstr(sqlite3_errmsg(mon->db), "JSON"))
        return cs_fail(err, "%s: %s: the detail is not valid JSON", mon->path, what);
    return store_fail(mon, err, what);
}

int cs_monitor_put_event(struct cs_monitor *mon, double time, const char *kind, const char *subject,
                         const char *text, const char *json_detail, int64_t *id,
                         struct cs_error *err)
{
    if (store_writable(mon, err) < 0 || check_kind(mon, kind, err) < 0)
        return -1;
    if (!isfinite(time) || !text)
        return cs_fail(err, "%s: an event needs a finite time and a text", mon->path);
    sqlite3_stmt *st;
    if (store_prepare(mon,
                      "INSERT INTO events(time, kind, subject, text, detail) VALUES(?, ?, ?, ?, ?)",
                      &st, err) < 0)
        return -1;
    sqlite3_bind_double(st, 1, time);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, subject, -1, SQLITE_STATIC); /* NULL binds NULL */
    sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, json_detail, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : step_failed(mon, "cannot record an event", err);
    sqlite3_finalize(st);
    if (rc == 0 && id)
        *id = sqlite3_last_insert_rowid(mon->db);
    return rc;
}

int cs_monitor_amend_event(struct cs_monitor *mon, int64_t id, const char *json_detail,
                           struct cs_error *err)
{
    if (store_writable(mon, err) < 0)
        return -1;
    if (!json_detail)
        return cs_fail(err, "%s: amending event %lld with nothing", mon->path, (long long)id);
    sqlite3_stmt *st;
    if (store_prepare(mon,
                      "UPDATE events SET detail = json_patch(coalesce(detail, '{}'), ?2)"
                      " WHERE id = ?1",
                      &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, json_detail, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : step_failed(mon, "cannot amend an event", err);
    sqlite3_finalize(st);
    if (rc == 0 && sqlite3_changes(mon->db) == 0)
        rc = cs_fail(err, "%s: no event %lld to amend", mon->path, (long long)id);
    return rc;
}

int cs_monitor_events(struct cs_monitor *mon, double since, double until, const char *kind,
                      cs_monitor_event_fn fn, void *ctx, struct cs_error *err)
{
    if (kind && check_kind(mon, kind, err) < 0)
        return -1;
    sqlite3_stmt *st;
    if (store_prepare(mon,
                      "SELECT id, time, kind, subject, text, detail FROM events"
                      " WHERE time >= ?1 AND time <= ?2 AND (?3 IS NULL OR kind = ?3)"
                      " ORDER BY time, id",
                      &st, err) < 0)
        return -1;
    sqlite3_bind_double(st, 1, since);
    sqlite3_bind_double(st, 2, until);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct cs_monitor_event e = {
            .id = sqlite3_column_int64(st, 0),
            .time = sqlite3_column_double(st, 1),
            .kind = (const char *)sqlite3_column_text(st, 2),
            .subject = (const char *)sqlite3_column_text(st, 3),
            .text = (const char *)sqlite3_column_text(st, 4),
            .detail = (const char *)sqlite3_column_text(st, 5),
        };
        rc = fn(ctx, &e, err);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(mon, err, "cannot read the events");
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}
