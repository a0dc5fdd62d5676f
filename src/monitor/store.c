/* The monitoring store (include/cloudsm/monitor.h): opening, refusing what is not a store, the
 * schema, and the SQL helpers the other parts share.
 *
 *   PRAGMA application_id = 0x43534d4d ("CSMM"): what makes a file a monitoring store
 *   meta(key, value)                      schema version, how far the folds have gone
 *   nodes(guid, type, description, seen, removed)
 *   ports(id, node_guid, num, guid, lid, peer_node_guid, peer_num, link_bytes_per_s, seen,
 *         removed)                        id: the store's stable key for (node_guid, num)
 *   partitions(ord, pkey, name), partition_members(pkey, node_guid)
 *   samples_raw / samples_minute / samples_hour(time_ms, port_id, interval_s, flags,
 *         xmit_bytes, rcv_bytes, xmit_pkts, rcv_pkts, xmit_wait, errors)
 *                                         WITHOUT ROWID, keyed (time_ms, port_id): the key is
 *                                         the time index, polls append at its end
 *   events(id, time, kind, subject, text, detail), index on time
 *
 * docs/sm/monitoring.md describes every column with its unit. */
#include "io/sqlite_value.h"
#include "store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STORE_APP_ID 0x43534d4d

const char *const store_sample_tables[STORE_RESOLUTIONS] = {"samples_raw", "samples_minute",
                                                            "samples_hour"};
const int64_t store_bucket_ms[STORE_RESOLUTIONS] = {0, 60000, 3600000};

int store_fail(struct cs_monitor *mon, struct cs_error *err, const char *what)
{
    return cs_fail(err, "%s: %s: %s", mon->path, what, sqlite3_errmsg(mon->db));
}

int store_exec(struct cs_monitor *mon, const char *sql, struct cs_error *err)
{
    if (sqlite3_exec(mon->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return store_fail(mon, err, "cannot run SQL");
    return 0;
}

int store_prepare(struct cs_monitor *mon, const char *sql, sqlite3_stmt **st, struct cs_error *err)
{
    if (sqlite3_prepare_v2(mon->db, sql, -1, st, NULL) != SQLITE_OK)
        return store_fail(mon, err, "cannot prepare a query");
    return 0;
}

int store_writable(struct cs_monitor *mon, struct cs_error *err)
{
    if (!mon->writable)
        return cs_fail(err, "%s: opened read-only", mon->path);
    return 0;
}

int store_begin(struct cs_monitor *mon, struct cs_error *err)
{
    if (store_writable(mon, err) < 0)
        return -1;
    if (sqlite3_exec(mon->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return store_fail(mon, err, "cannot start writing");
    return 0;
}

int store_commit(struct cs_monitor *mon, struct cs_error *err)
{
    if (sqlite3_exec(mon->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        int rc = store_fail(mon, err, "cannot commit");
        store_rollback(mon);
        return rc;
    }
    return 0;
}

void store_rollback(struct cs_monitor *mon)
{
    if (!sqlite3_get_autocommit(mon->db))
        sqlite3_exec(mon->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_begin_read(struct cs_monitor *mon, struct cs_error *err)
{
    if (sqlite3_exec(mon->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return store_fail(mon, err, "cannot start reading");
    return 0;
}

void store_end_read(struct cs_monitor *mon)
{
    if (!sqlite3_get_autocommit(mon->db))
        sqlite3_exec(mon->db, "COMMIT", NULL, NULL, NULL);
}

int64_t store_ms(double seconds)
{
    return llround(seconds * 1000);
}

int store_meta_get(struct cs_monitor *mon, const char *key, int64_t *value, struct cs_error *err)
{
    sqlite3_stmt *st;
    if (store_prepare(mon, "SELECT value FROM meta WHERE key = ?", &st, err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    int rc = 0;
    if (step == SQLITE_ROW)
        *value = sqlite3_column_int64(st, 0);
    else if (step == SQLITE_DONE)
        rc = cs_fail(err, "%s: damaged: the meta table has no %s", mon->path, key);
    else
        rc = store_fail(mon, err, "cannot read the meta table");
    sqlite3_finalize(st);
    return rc;
}

int store_meta_set(struct cs_monitor *mon, const char *key, int64_t value, struct cs_error *err)
{
    sqlite3_stmt *st;
    if (store_prepare(mon, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", &st, err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, value);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail(mon, err, "cannot write meta");
    sqlite3_finalize(st);
    return rc;
}

/* CREATE TABLE for one resolution's samples, the metric columns named as metrics.h names them. */
static void sample_table_sql(char *buf, size_t size, const char *table)
{
    size_t n = (size_t)snprintf(buf, size,
                                "CREATE TABLE %s(time_ms INTEGER NOT NULL, port_id INTEGER NOT "
                                "NULL, interval_s REAL NOT NULL, flags INTEGER NOT NULL",
                                table);
    for (int k = 0; k < CS_METRIC_COUNT && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, ", %s REAL NOT NULL", cs_metric_name(k));
    if (n < size)
        snprintf(buf + n, size - n, ", PRIMARY KEY(time_ms, port_id)) WITHOUT ROWID;");
}

static const char schema[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE nodes(guid INTEGER PRIMARY KEY, type INTEGER NOT NULL,"
    " description TEXT NOT NULL, seen REAL NOT NULL, removed REAL);"
    "CREATE TABLE ports(id INTEGER PRIMARY KEY, node_guid INTEGER NOT NULL, num INTEGER NOT NULL,"
    " guid INTEGER NOT NULL, lid INTEGER NOT NULL, peer_node_guid INTEGER NOT NULL,"
    " peer_num INTEGER NOT NULL, link_bytes_per_s REAL NOT NULL, seen REAL NOT NULL,"
    " removed REAL, UNIQUE(node_guid, num));"
    "CREATE TABLE partitions(ord INTEGER PRIMARY KEY, pkey INTEGER NOT NULL UNIQUE,"
    " name TEXT NOT NULL);"
    "CREATE TABLE partition_members(pkey INTEGER NOT NULL, node_guid INTEGER NOT NULL,"
    " PRIMARY KEY(pkey, node_guid)) WITHOUT ROWID;"
    "CREATE TABLE events(id INTEGER PRIMARY KEY, time REAL NOT NULL, kind TEXT NOT NULL,"
    " subject TEXT, text TEXT NOT NULL, detail TEXT CHECK(detail IS NULL OR json_valid(detail)));"
    "CREATE INDEX events_time ON events(time);";

static int create_schema(struct cs_monitor *mon, struct cs_error *err)
{
    if (store_begin(mon, err) < 0)
        return -1;
    /* Another process may have made it meanwhile: the lock is held now, look again. */
    int64_t tables = 0;
    if (cs_sqlite_int(mon->db, "SELECT count(*) FROM sqlite_schema", &tables) < 0) {
        store_rollback(mon);
        return store_fail(mon, err, "cannot read the schema");
    }
    if (tables > 0) {
        store_rollback(mon);
        return 0;
    }
    char sql[1024];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APP_ID);
    int rc = store_exec(mon, sql, err);
    if (rc == 0)
        rc = store_exec(mon, schema, err);
    for (int r = 0; rc == 0 && r < STORE_RESOLUTIONS; r++) {
        sample_table_sql(sql, sizeof sql, store_sample_tables[r]);
        rc = store_exec(mon, sql, err);
    }
    if (rc == 0)
        rc = store_meta_set(mon, STORE_META_SCHEMA, CS_MONITOR_SCHEMA, err);
    if (rc == 0)
        rc = store_meta_set(mon, STORE_META_MINUTE_THROUGH, 0, err);
    if (rc == 0)
        rc = store_meta_set(mon, STORE_META_HOUR_THROUGH, 0, err);
    if (rc < 0) {
        store_rollback(mon);
        return -1;
    }
    return store_commit(mon, err);
}

/* Is this a store of a schema we read? Creates the schema in an empty file opened to write. */
static int check_store(struct cs_monitor *mon, struct cs_error *err)
{
    int64_t app_id = 0, tables = 0;
    if (cs_sqlite_int(mon->db, "PRAGMA application_id", &app_id) < 0 ||
        cs_sqlite_int(mon->db, "SELECT count(*) FROM sqlite_schema", &tables) < 0)
        return cs_fail(err, "%s: not a cloudsm monitoring store (%s); refusing to use it",
                       mon->path, sqlite3_errmsg(mon->db));
    if (app_id == 0 && tables == 0) {
        if (!mon->writable)
            return cs_fail(err, "%s: an empty file, not a monitoring store yet", mon->path);
        if (create_schema(mon, err) < 0)
            return -1;
    } else if (app_id != STORE_APP_ID) {
        return cs_fail(err,
                       "%s: an SQLite database but not a cloudsm monitoring store (application id "
                       "0x%llx); refusing to use it",
                       mon->path, (unsigned long long)app_id);
    }
    int64_t version;
    if (store_meta_get(mon, STORE_META_SCHEMA, &version, err) < 0)
        return -1;
    if (version > CS_MONITOR_SCHEMA)
        return cs_fail(err,
                       "%s: monitoring store schema %lld is newer than this cloudsm's (%d); "
                       "refusing to use it (a newer cloudsm wrote it)",
                       mon->path, (long long)version, CS_MONITOR_SCHEMA);
    if (version < 1)
        return cs_fail(err, "%s: damaged: schema version %lld", mon->path, (long long)version);
    return 0;
}

static int configure_writer(struct cs_monitor *mon, struct cs_error *err)
{
    /* WAL: readers (cloudsm sm counters) never wait for the writer nor it for them. NORMAL:
     * in WAL mode a crash cannot corrupt the store; a power cut may lose the last polls. */
    sqlite3_stmt *st;
    if (store_prepare(mon, "PRAGMA journal_mode = WAL", &st, err) < 0)
        return -1;
    bool wal = sqlite3_step(st) == SQLITE_ROW &&
               strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
    sqlite3_finalize(st);
    if (!wal)
        return store_fail(mon, err, "cannot switch to WAL mode");
    return store_exec(mon, "PRAGMA synchronous = NORMAL", err);
}

int cs_monitor_open(const char *path, enum cs_monitor_mode mode, struct cs_monitor **out,
                    struct cs_error *err)
{
    *out = NULL;
    struct stat sb;
    if (mode == CS_MONITOR_READ_ONLY && stat(path, &sb) < 0)
        return cs_fail(err, "%s: no monitoring store: %s", path, strerror(errno));
    struct cs_monitor *mon = calloc(1, sizeof *mon);
    if (!mon || !(mon->path = strdup(path))) {
        free(mon);
        return cs_fail(err, "out of memory");
    }
    mon->writable = mode == CS_MONITOR_READ_WRITE;
    int flags = mon->writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = 0;
    if (sqlite3_open_v2(path, &mon->db, flags, NULL) != SQLITE_OK)
        rc = cs_fail(err, "%s: cannot open: %s", path,
                     mon->db ? sqlite3_errmsg(mon->db) : "out of memory");
    else if (sqlite3_busy_timeout(mon->db, CS_MONITOR_BUSY_TIMEOUT_MS) != SQLITE_OK)
        rc = store_fail(mon, err, "cannot set the busy timeout");
    if (rc == 0)
        rc = check_store(mon, err);
    if (rc == 0 && mon->writable)
        rc = configure_writer(mon, err);
    if (rc < 0) {
        cs_monitor_close(mon);
        return -1;
    }
    *out = mon;
    return 0;
}

void cs_monitor_close(struct cs_monitor *mon)
{
    if (!mon)
        return;
    sqlite3_finalize(mon->insert_sample);
    sqlite3_finalize(mon->upsert_node);
    sqlite3_finalize(mon->upsert_port);
    sqlite3_close(mon->db);
    free(mon->keys);
    free(mon->ids);
    free(mon->path);
    free(mon);
}

const char *cs_monitor_path(const struct cs_monitor *mon)
{
    return mon->path;
}
