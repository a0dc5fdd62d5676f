/* One value from an SQLite query (internal): shared by the library's SQLite files, the mftree
 * metabase (src/route/metabase_db.c) and the monitoring store (src/monitor/store.c), which both
 * read their header's application id and count their tables before trusting a file. */
#ifndef CLOUDSM_IO_SQLITE_VALUE_H
#define CLOUDSM_IO_SQLITE_VALUE_H

#include <stdint.h>

#include <sqlite3.h>

/* The first column of the first row of sql (no parameters) into *out; -1 if the query fails or
 * gives no row (sqlite3_errmsg(db) says why when it failed). */
int cs_sqlite_int(sqlite3 *db, const char *sql, int64_t *out);

#endif
