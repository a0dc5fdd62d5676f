/* The metabase store (src/route/metabase_db.c): whatever bytes the file holds, loading never
 * crashes, and answers -1 (not a metabase: refused), 0 (not usable: rebuilt) or 1 with a metabase
 * whose counts, blob sizes and per-leaf paths agree with each other. The fingerprint asked for is
 * the one the file says it holds, so the checks past it are reached. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "route/metabase.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t stored_fingerprint(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    uint64_t fp = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT fingerprint FROM meta", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        fp = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return fp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_metabase.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    struct cs_metabase mb;
    struct cs_error err;
    int rc = cs_metabase_load(path, stored_fingerprint(path), NULL, &mb, &err);
    if (rc == 1) {
        if (mb.paths == 0 || mb.num_switches == 0 || mb.num_leaves == 0 ||
            mb.num_leaves > mb.num_switches)
            abort();
        for (uint32_t l = 0; l < mb.num_leaves; l++)
            if (mb.leaf_paths[l] > mb.paths)
                abort();
        /* Every entry is readable. */
        volatile uint8_t sum = 0;
        for (uint32_t s = 0; s < mb.num_switches; s++)
            sum += cs_metabase_row(&mb, s)[cs_metabase_columns(&mb) - 1];
        (void)sum;
        cs_metabase_free(&mb);
    } else if (rc != 0 && rc != -1) {
        abort();
    } else if (mb.rows || mb.switch_guids) {
        abort(); /* a failed load leaves nothing */
    }
    unlink(path);
    return 0;
}
