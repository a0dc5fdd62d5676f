/* The metabase on disk: one SQLite database per file (metabase.h, docs/routing/mftree.md).
 *
 *   PRAGMA application_id = 0x43534d42 ("CSMB"): what makes a file a metabase
 *   meta(version, fingerprint, paths, switches, leaves, rest)   one row
 *   switches(idx PRIMARY KEY, guid, entries BLOB)  row idx of the metabase: one byte per column
 *   leaves(idx PRIMARY KEY, guid, paths)
 *   rest(idx PRIMARY KEY, guid)
 *
 * Every value read is checked against the others before it is used (counts, ranges, blob sizes):
 * a metabase that does not check out is reported and rebuilt. A file that is not SQLite, or an
 * SQLite database without the application id, is refused and never written. A save writes a new
 * database next to the file in one transaction and renames it over the file, so a reader sees
 * the old metabase or the new one, never a mix, whatever happens to the writer. */
#define _POSIX_C_SOURCE 200809L
#include "route/metabase.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/grow.h"
#include "io/sqlite_value.h"

#define METABASE_APP_ID 0x43534d42
/* Bounds a stored metabase must keep (what cs_metabase_build can make). */
#define MAX_ROW_BYTES (UINT64_C(1) << 31)

static const char schema[] =
    "CREATE TABLE meta(version INTEGER NOT NULL, fingerprint INTEGER NOT NULL,"
    " paths INTEGER NOT NULL, switches INTEGER NOT NULL, leaves INTEGER NOT NULL,"
    " rest INTEGER NOT NULL);"
    "CREATE TABLE switches(idx INTEGER PRIMARY KEY, guid INTEGER NOT NULL, entries BLOB NOT NULL);"
    "CREATE TABLE leaves(idx INTEGER PRIMARY KEY, guid INTEGER NOT NULL, paths INTEGER NOT NULL);"
    "CREATE TABLE rest(idx INTEGER PRIMARY KEY, guid INTEGER NOT NULL);";

/* Why a stored metabase is not used (a sentence for the warning). */
struct reject {
    char why[160];
};

static int rejected(struct reject *r, const char *why)
{
    snprintf(r->why, sizeof r->why, "%s", why);
    return 0;
}

/* Read the tables into mb; 1 when everything checks out, 0 with r->why set otherwise. */
static int read_tables(sqlite3 *db, uint64_t fingerprint, struct cs_metabase *mb, struct reject *r,
                       struct cs_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT version, fingerprint, paths, switches, leaves, rest FROM meta",
                           -1, &st, NULL) != SQLITE_OK)
        return rejected(r, "no meta table");
    int step = sqlite3_step(st);
    int64_t v[6] = {0};
    for (int i = 0; step == SQLITE_ROW && i < 6; i++)
        v[i] = sqlite3_column_int64(st, i);
    bool one_row = step == SQLITE_ROW && sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    if (!one_row)
        return rejected(r, "the meta table does not hold exactly one row");
    if (v[0] != CS_METABASE_VERSION)
        return rejected(r, "it was written by another version of mftree");
    if ((uint64_t)v[1] != fingerprint)
        return rejected(r, "it is another fabric's (fingerprint differs)");
    if (v[2] < 1 || v[3] < 1 || v[4] < 1 || v[4] > v[3] || v[5] < 0 || v[2] > UINT32_MAX ||
        v[3] > UINT32_MAX || v[5] > UINT32_MAX)
        return rejected(r, "its counts are out of range");
    uint64_t width = (uint64_t)v[4] * (uint64_t)v[2] + (uint64_t)v[5];
    if (width > MAX_ROW_BYTES || width * (uint64_t)v[3] > MAX_ROW_BYTES)
        return rejected(r, "its tables would be larger than any mftree makes");
    mb->fingerprint = fingerprint;
    mb->paths = (uint32_t)v[2];
    mb->num_switches = (uint32_t)v[3];
    mb->num_leaves = (uint32_t)v[4];
    mb->num_rest = (uint32_t)v[5];
    mb->switch_guids = cs_calloc_array(mb->num_switches + 1, sizeof *mb->switch_guids, err);
    mb->leaf_guids = cs_calloc_array(mb->num_leaves + 1, sizeof *mb->leaf_guids, err);
    mb->leaf_paths = cs_calloc_array(mb->num_leaves + 1, sizeof *mb->leaf_paths, err);
    mb->rest_guids = cs_calloc_array(mb->num_rest + 1, sizeof *mb->rest_guids, err);
    mb->rows = cs_calloc_array((size_t)(width * mb->num_switches) + 1, 1, err);
    if (!mb->switch_guids || !mb->leaf_guids || !mb->leaf_paths || !mb->rest_guids || !mb->rows)
        return -1;

    /* Each table: exactly its count of rows, idx 0..count-1 (a primary key: no repeats). */
    static const char *const queries[3] = {
        "SELECT idx, guid, entries FROM switches",
        "SELECT idx, guid, paths FROM leaves",
        "SELECT idx, guid FROM rest",
    };
    const uint32_t counts[3] = {mb->num_switches, mb->num_leaves, mb->num_rest};
    for (int table = 0; table < 3; table++) {
        if (sqlite3_prepare_v2(db, queries[table], -1, &st, NULL) != SQLITE_OK)
            return rejected(r, "a table is missing");
        uint32_t seen = 0;
        const char *bad = NULL;
        while (!bad && (step = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t idx = sqlite3_column_int64(st, 0);
            uint64_t guid = (uint64_t)sqlite3_column_int64(st, 1);
            if (idx < 0 || idx >= counts[table] || sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
                bad = "a row index is out of range";
                break;
            }
            seen++;
            if (table == 0) {
                const void *blob = sqlite3_column_blob(st, 2);
                if ((uint64_t)sqlite3_column_bytes(st, 2) != width || (!blob && width)) {
                    bad = "a switch's entries have the wrong size";
                    break;
                }
                mb->switch_guids[idx] = guid;
                memcpy(mb->rows + (size_t)idx * width, blob, (size_t)width);
            } else if (table == 1) {
                int64_t paths = sqlite3_column_int64(st, 2);
                if (paths < 0 || paths > mb->paths) {
                    bad = "a leaf has more paths than the metabase holds";
                    break;
                }
                mb->leaf_guids[idx] = guid;
                mb->leaf_paths[idx] = (uint32_t)paths;
            } else {
                mb->rest_guids[idx] = guid;
            }
        }
        if (!bad && step != SQLITE_DONE)
            bad = "the database is damaged";
        if (!bad && seen != counts[table])
            bad = "a table does not have the rows the meta table counts";
        sqlite3_finalize(st);
        if (bad)
            return rejected(r, bad);
    }
    return 1;
}

int cs_metabase_load(const char *path, uint64_t fingerprint, const struct cs_log *log,
                     struct cs_metabase *mb, struct cs_error *err)
{
    memset(mb, 0, sizeof *mb);
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        return cs_fail(err, "%s: %s", path, strerror(errno));
    }
    if (st.st_size == 0)
        return 0; /* an empty file: nothing kept yet */
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = cs_fail(err, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "no memory");
        sqlite3_close(db);
        return rc;
    }
    int64_t app_id = 0;
    int rc;
    struct reject r = {{0}};
    if (cs_sqlite_int(db, "PRAGMA application_id", &app_id) < 0) {
        rc = cs_fail(err, "%s: not a metabase (%s); refusing to use or overwrite it", path,
                     sqlite3_errmsg(db));
    } else if (app_id != METABASE_APP_ID) {
        rc = cs_fail(err,
                     "%s: an SQLite database but not a metabase (application id 0x%llx); refusing "
                     "to use or overwrite it",
                     path, (unsigned long long)app_id);
    } else {
        rc = read_tables(db, fingerprint, mb, &r, err);
        if (rc == 0)
            cs_logf(log, CS_LOG_WARN,
                    "%s: metabase not used: %s; phase I runs again and replaces it", path, r.why);
    }
    sqlite3_close(db);
    if (rc != 1)
        cs_metabase_free(mb);
    return rc;
}

static int exec(sqlite3 *db, const char *sql, const char *path, struct cs_error *err)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return cs_fail(err, "%s: %s", path, sqlite3_errmsg(db));
    return 0;
}

static int write_tables(sqlite3 *db, const struct cs_metabase *mb, const char *path,
                        struct cs_error *err)
{
    char sql[256];
    char head[64];
    snprintf(head, sizeof head, "PRAGMA application_id = %d;", METABASE_APP_ID);
    if (exec(db, head, path, err) < 0 || exec(db, "BEGIN", path, err) < 0 ||
        exec(db, schema, path, err) < 0)
        return -1;
    snprintf(sql, sizeof sql, "INSERT INTO meta VALUES(%d, %lld, %u, %u, %u, %u)",
             CS_METABASE_VERSION, (long long)mb->fingerprint, mb->paths, mb->num_switches,
             mb->num_leaves, mb->num_rest);
    if (exec(db, sql, path, err) < 0)
        return -1;
    uint32_t width = cs_metabase_columns(mb);
    static const char *const inserts[3] = {
        "INSERT INTO switches VALUES(?, ?, ?)",
        "INSERT INTO leaves VALUES(?, ?, ?)",
        "INSERT INTO rest VALUES(?, ?)",
    };
    const uint32_t counts[3] = {mb->num_switches, mb->num_leaves, mb->num_rest};
    for (int table = 0; table < 3; table++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, inserts[table], -1, &st, NULL) != SQLITE_OK)
            return cs_fail(err, "%s: %s", path, sqlite3_errmsg(db));
        for (uint32_t i = 0; i < counts[table]; i++) {
            const uint64_t *guids = table == 0   ? mb->switch_guids
                                    : table == 1 ? mb->leaf_guids
                                                 : mb->rest_guids;
            sqlite3_bind_int64(st, 1, i);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)guids[i]);
            if (table == 0)
                sqlite3_bind_blob(st, 3, cs_metabase_row(mb, i), (int)width, SQLITE_STATIC);
            else if (table == 1)
                sqlite3_bind_int64(st, 3, mb->leaf_paths[i]);
            if (sqlite3_step(st) != SQLITE_DONE) {
                int rc = cs_fail(err, "%s: %s", path, sqlite3_errmsg(db));
                sqlite3_finalize(st);
                return rc;
            }
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    return exec(db, "COMMIT", path, err);
}

int cs_metabase_save(const char *path, const struct cs_metabase *mb, struct cs_error *err)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 8);
    if (!tmp)
        return cs_fail(err, "out of memory");
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".XXXXXX", 8);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int rc = cs_fail(err, "%s: cannot create a file next to it: %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    /* mkstemp's 0600 is for the name's sake: the metabase is as readable as any file written. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    close(fd);
    sqlite3 *db = NULL;
    int rc = -1;
    if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        rc = cs_fail(err, "%s: %s", tmp, db ? sqlite3_errmsg(db) : "no memory");
    else
        rc = write_tables(db, mb, path, err);
    if (sqlite3_close(db) != SQLITE_OK && rc == 0)
        rc = cs_fail(err, "%s: cannot close the new metabase", path);
    if (rc == 0 && rename(tmp, path) < 0)
        rc = cs_fail(err, "%s: %s", path, strerror(errno));
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}
