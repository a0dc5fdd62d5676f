/* The monitoring store at the target fabric's size: an 18-ary-3-tree (5832 hosts, 972 switches
 * of 36 ports), every watched port sampled every 10 s. Prints the median over RUNS polls of:
 *
 *   put      cs_monitor_put_samples of one poll's batch into a store file (WAL, as cloudsmd)
 *   anchor   the same rows, same table and key, inserted through one prepared statement in one
 *            transaction into an in-memory SQLite database: what the rows cost SQLite itself,
 *            with no file, no journal and no mapping of ports to store ids
 *   compact  cs_monitor_compact when a minute of raw samples is due (6 polls folded), and when
 *            nothing is due (what cloudsmd pays after every other poll)
 *   scan     cs_monitor_scan of the last poll's window (what `cloudsm sm counters` reads)
 *
 * usage: bench_monitor_store [RUNS] [DIR]   (the store is made in DIR, default /tmp, and removed)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "cloudsm/lid.h"
#include "cloudsm/monitor.h"
#include "cloudsm/topo_gen.h"

#define POLL_S 10.0
#define T0 1795737600.0 /* 2026-11-27T00:00:00Z, on a minute boundary */

static const char *const me = "bench_monitor_store";

/* One poll: every port, plausible rates that differ per port and poll. */
static void make_poll(const struct cs_metrics *m, int poll, struct cs_metric_sample *s)
{
    for (uint32_t p = 0; p < m->num_ports; p++) {
        s[p] = (struct cs_metric_sample){
            .time = T0 + POLL_S * (poll + 1), .interval = POLL_S, .port = p};
        double load = (double)((p * 2654435761u + (uint32_t)poll * 40503u) % 1000) / 1000;
        s[p].value[CS_METRIC_XMIT_BYTES] = load * m->ports[p].link_bytes_per_s;
        s[p].value[CS_METRIC_RCV_BYTES] = (1 - load) * m->ports[p].link_bytes_per_s;
        s[p].value[CS_METRIC_XMIT_PKTS] = s[p].value[CS_METRIC_XMIT_BYTES] / 4096;
        s[p].value[CS_METRIC_RCV_PKTS] = s[p].value[CS_METRIC_RCV_BYTES] / 4096;
        s[p].value[CS_METRIC_XMIT_WAIT] = load > 0.9 ? load * 1e5 : 0;
    }
}

static void sql_or_die(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: %s: %s\n", me, sql, msg);
        exit(1);
    }
}

/* The anchor: the same rows into the same table in memory. */
static double anchor_ms(sqlite3 *db, sqlite3_stmt *st, const struct cs_metric_sample *s, uint32_t n)
{
    double t0 = bench_now_ms();
    sql_or_die(db, "BEGIN");
    for (uint32_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, llround(s[i].time * 1000));
        sqlite3_bind_int64(st, 2, s[i].port);
        sqlite3_bind_double(st, 3, s[i].interval);
        sqlite3_bind_int64(st, 4, s[i].flags);
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            sqlite3_bind_double(st, 5 + k, s[i].value[k]);
        if (sqlite3_step(st) != SQLITE_DONE) {
            fprintf(stderr, "%s: anchor insert: %s\n", me, sqlite3_errmsg(db));
            exit(1);
        }
        sqlite3_reset(st);
    }
    sql_or_die(db, "COMMIT");
    return bench_now_ms() - t0;
}

static int count_batch(void *ctx, const struct cs_metrics *m, const struct cs_metric_sample *s,
                       uint32_t n, struct cs_error *err)
{
    (void)m, (void)s, (void)err;
    *(uint64_t *)ctx += n;
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 30;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    if (runs < 6 || runs > 360)
        runs = 30;
    struct cs_error err;
    struct cs_pgft_spec spec;
    struct cs_fabric f;
    struct cs_metrics m;
    cs_fabric_init(&f);
    cs_metrics_init(&m);
    if (cs_pgft_kary(&spec, 18, 3, &err) < 0 || cs_pgft_generate(&f, &spec, &err) < 0 ||
        cs_lids_assign(&f, 0, &err) < 0 || cs_metrics_set_fabric(&m, &f, NULL, &err) < 0)
        bench_die(me, "fabric", &err);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-monitor-%d.sqlite", dir, (int)getpid());
    struct cs_monitor *mon;
    if (cs_monitor_open(path, CS_MONITOR_READ_WRITE, &mon, &err) < 0 ||
        cs_monitor_put_topology(mon, &m, T0, &err) < 0)
        bench_die(me, "store", &err);

    sqlite3 *mem;
    sqlite3_stmt *ins;
    sqlite3_open(":memory:", &mem);
    sql_or_die(mem, "CREATE TABLE samples_raw(time_ms INTEGER NOT NULL, port_id INTEGER NOT NULL,"
                    " interval_s REAL NOT NULL, flags INTEGER NOT NULL, xmit_bytes REAL NOT NULL,"
                    " rcv_bytes REAL NOT NULL, xmit_pkts REAL NOT NULL, rcv_pkts REAL NOT NULL,"
                    " xmit_wait REAL NOT NULL, errors REAL NOT NULL,"
                    " PRIMARY KEY(time_ms, port_id)) WITHOUT ROWID");
    if (sqlite3_prepare_v2(mem, "INSERT INTO samples_raw VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1,
                           &ins, NULL) != SQLITE_OK)
        return 1;

    struct cs_metric_sample *s = calloc(m.num_ports, sizeof *s);
    double *put = calloc((size_t)runs, sizeof *put), *anchor = calloc((size_t)runs, sizeof *anchor);
    double *compact_due = calloc((size_t)runs, sizeof *compact_due);
    double *compact_idle = calloc((size_t)runs, sizeof *compact_idle);
    int folds = 0, idles = 0;
    /* Retention of the raw samples: 1 minute, so that folds happen within the run. */
    struct cs_monitor_retention keep = CS_MONITOR_RETENTION_DEFAULTS;
    keep.raw_s = 60;
    double scan_ms = 0;
    uint64_t scanned = 0;
    for (int r = 0; r < runs; r++) {
        make_poll(&m, r, s);
        double t0 = bench_now_ms();
        if (cs_monitor_put_samples(mon, &m, s, m.num_ports, &err) < 0)
            bench_die(me, "put", &err);
        put[r] = bench_now_ms() - t0;
        anchor[r] = anchor_ms(mem, ins, s, m.num_ports);
        struct cs_monitor_compaction done;
        t0 = bench_now_ms();
        if (cs_monitor_compact(mon, s[0].time + 1, &keep, &done, &err) < 0)
            bench_die(me, "compact", &err);
        double took = bench_now_ms() - t0;
        if (done.raw_folded > 0)
            compact_due[folds++] = took;
        else
            compact_idle[idles++] = took;
        if (r == runs - 1) {
            struct cs_metrics topo;
            t0 = bench_now_ms();
            if (cs_monitor_scan(mon, s[0].time - POLL_S / 2, s[0].time, NULL, 0, &topo, count_batch,
                                &scanned, &err) < 0)
                bench_die(me, "scan", &err);
            scan_ms = bench_now_ms() - t0;
            cs_metrics_free(&topo);
        }
    }
    double put_ms = bench_median(put, runs), anchor_median = bench_median(anchor, runs);
    printf("fabric: 18-ary-3-tree, %u nodes, %u watched ports; %d polls every %.0f s\n",
           m.num_nodes, m.num_ports, runs, POLL_S);
    printf("  put      %8.2f ms per batch of %u samples (median of %d)\n", put_ms, m.num_ports,
           runs);
    printf("  anchor   %8.2f ms (same rows, in-memory SQLite table, median of %d)\n", anchor_median,
           runs);
    printf("  ratio put / anchor: %.2fx\n", put_ms / anchor_median);
    if (folds > 0)
        printf("  compact  %8.2f ms when a minute is due (median of %d folds)\n",
               bench_median(compact_due, folds), folds);
    if (idles > 0)
        printf("  compact  %8.3f ms when nothing is due (median of %d)\n",
               bench_median(compact_idle, idles), idles);
    printf("  scan     %8.2f ms for the last poll (%llu samples)\n", scan_ms,
           (unsigned long long)scanned);
    cs_monitor_close(mon);
    sqlite3_finalize(ins);
    sqlite3_close(mem);
    char side[4200];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    free(s);
    free(put);
    free(anchor);
    free(compact_due);
    free(compact_idle);
    cs_metrics_free(&m);
    cs_fabric_free(&f);
    return 0;
}
