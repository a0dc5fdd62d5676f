/* The monitoring store: round trips of topology, samples and events (and reopening), what it
 * refuses (a foreign file, a newer schema), downsampling with exact weighted means, compaction's
 * idempotence and the minutes it leaves alone, retention, the resolution a load takes each time
 * from, topology changes, node selection, and a reader that reads while another process writes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "cloudsm/monitor.h"
#include "testlib.h"

#define T0 1795737600.0 /* 2026-11-27T00:00:00Z: a minute and an hour boundary */

struct fixture {
    char dir[64];
    char path[128];
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/cloudsm-test-monitor.XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->path, sizeof fx->path, "%s/monitor.sqlite", fx->dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    if (system(cmd) != 0)
        return -1;
    free(fx);
    return 0;
}

/* CA 0x10 (port GUID 0x11; left out if !with_ca_0x10), CA 0x20 (0x21), switch 0x30 with ports 1
 * and 2 cabled to them; one partition "blue" of both CAs, or of CA 0x20 only. */
static void fabric(struct cs_metrics *m, bool with_ca_0x10, bool blue_both)
{
    struct cs_error err = {""};
    cs_metrics_init(m);
    if (with_ca_0x10 && cs_metrics_add_node(m, 0x10, CS_NODE_CA, "host-a HCA-1", &err) < 0)
        fail_msg("%s", err.msg);
    if (cs_metrics_add_node(m, 0x20, CS_NODE_CA, "host-b HCA-1", &err) < 0 ||
        cs_metrics_add_node(m, 0x30, CS_NODE_SWITCH, "leaf-1", &err) < 0)
        fail_msg("%s", err.msg);
    uint32_t ca_b = with_ca_0x10 ? 1 : 0, sw = ca_b + 1;
    if (with_ca_0x10) {
        struct cs_metric_port p = {.guid = 0x11,
                                   .node = 0,
                                   .num = 1,
                                   .lid = 3,
                                   .peer_node_guid = 0x30,
                                   .peer_num = 1,
                                   .link_bytes_per_s = 12.5e9};
        if (cs_metrics_add_port(m, &p, &err) < 0)
            fail_msg("%s", err.msg);
    }
    struct cs_metric_port b = {.guid = 0x21,
                               .node = ca_b,
                               .num = 1,
                               .lid = 4,
                               .peer_node_guid = 0x30,
                               .peer_num = 2,
                               .link_bytes_per_s = 12.5e9};
    if (cs_metrics_add_port(m, &b, &err) < 0)
        fail_msg("%s", err.msg);
    for (uint8_t num = 1; num <= 2; num++) {
        if (!with_ca_0x10 && num == 1)
            continue;
        struct cs_metric_port p = {.node = sw,
                                   .num = num,
                                   .lid = 1,
                                   .peer_node_guid = num == 1 ? 0x10 : 0x20,
                                   .peer_num = 1,
                                   .link_bytes_per_s = 4e9};
        if (cs_metrics_add_port(m, &p, &err) < 0)
            fail_msg("%s", err.msg);
    }
    uint32_t both[2] = {0, 1};
    if (cs_metrics_add_partition(m, "blue", 0x12, blue_both ? both : &ca_b, blue_both ? 2 : 1,
                                 &err) < 0)
        fail_msg("%s", err.msg);
}

static struct cs_monitor *open_store(const char *path, enum cs_monitor_mode mode)
{
    struct cs_monitor *mon = NULL;
    struct cs_error err = {""};
    if (cs_monitor_open(path, mode, &mon, &err) != 0)
        fail_msg("%s", err.msg);
    return mon;
}

/* A new store at path holding the fabric (both CAs in blue), its topology put at T0. */
static struct cs_monitor *store_with_fabric(const char *path, struct cs_metrics *m)
{
    fabric(m, true, true);
    struct cs_monitor *mon = open_store(path, CS_MONITOR_READ_WRITE);
    struct cs_error err = {""};
    if (cs_monitor_put_topology(mon, m, T0, &err) != 0)
        fail_msg("%s", err.msg);
    return mon;
}

static struct cs_metric_sample make(uint32_t port, double time, double interval, double value)
{
    struct cs_metric_sample s = {.time = time, .interval = interval, .port = port};
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        s.value[k] = value * (k + 1);
    return s;
}

static void put(struct cs_monitor *mon, const struct cs_metrics *m,
                const struct cs_metric_sample *s, uint32_t n)
{
    struct cs_error err = {""};
    if (cs_monitor_put_samples(mon, m, s, n, &err) != 0)
        fail_msg("%s", err.msg);
}

static void load(struct cs_monitor *mon, double since, double until, struct cs_metrics *out)
{
    struct cs_error err = {""};
    if (cs_monitor_load(mon, since, until, out, &err) != 0)
        fail_msg("%s", err.msg);
}

static void compact(struct cs_monitor *mon, double now, const struct cs_monitor_retention *r,
                    struct cs_monitor_compaction *done)
{
    struct cs_error err = {""};
    if (cs_monitor_compact(mon, now, r, done, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Events into a string "kind|subject|text|detail;..." */
static int collect_event(void *ctx, const struct cs_monitor_event *e, struct cs_error *err)
{
    (void)err;
    char *out = ctx;
    size_t len = strlen(out);
    snprintf(out + len, 1024 - len, "%s|%s|%s|%s;", e->kind, e->subject ? e->subject : "-", e->text,
             e->detail ? e->detail : "-");
    return 0;
}

static void events(struct cs_monitor *mon, double since, double until, const char *kind,
                   char out[1024])
{
    struct cs_error err = {""};
    out[0] = '\0';
    if (cs_monitor_events(mon, since, until, kind, collect_event, out, &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_round_trip(void **state)
{
    struct fixture *fx = *state;
    struct cs_metrics m, got;
    struct cs_monitor *mon = store_with_fabric(fx->path, &m);
    struct cs_error err = {""};
    struct cs_metric_sample s[8];
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t p = 0; p < 4; p++)
            s[k * 4 + p] = make(p, T0 + 10 * (k + 1), 10, 100.5 * (p + 1) + k);
    s[5].flags = CS_METRIC_RESET;
    put(mon, &m, s, 8);
    int64_t id1 = 0, id2 = 0;
    assert_int_equal(cs_monitor_put_event(mon, T0 + 1, CS_MONITOR_EVENT_SWEEP, NULL,
                                          "heavy sweep: 3 nodes", NULL, &id1, &err),
                     0);
    assert_int_equal(cs_monitor_put_event(mon, T0 + 2, CS_MONITOR_EVENT_ADAPT, "rule hot-leaf",
                                          "moved 2 VMs", "{\"why\":\"hot\",\"cost\":3}", &id2,
                                          &err),
                     0);
    assert_true(id2 > id1);
    cs_monitor_close(mon);

    /* reopened read-only: everything as written */
    mon = open_store(fx->path, CS_MONITOR_READ_ONLY);
    load(mon, T0, T0 + 20, &got);
    assert_int_equal(got.num_nodes, m.num_nodes);
    for (uint32_t i = 0; i < m.num_nodes; i++) {
        assert_int_equal(got.nodes[i].guid, m.nodes[i].guid);
        assert_int_equal(got.nodes[i].type, m.nodes[i].type);
        assert_string_equal(got.nodes[i].desc, m.nodes[i].desc);
    }
    assert_int_equal(got.num_ports, m.num_ports);
    assert_memory_equal(got.ports, m.ports, m.num_ports * sizeof *m.ports);
    assert_int_equal(got.num_partitions, 1);
    assert_string_equal(got.partitions[0].name, "blue");
    assert_int_equal(got.partitions[0].pkey, 0x12);
    assert_int_equal(got.partitions[0].num_members, 2);
    assert_int_equal(got.num_samples, 8);
    for (uint32_t i = 0; i < 8; i++) {
        assert_true(got.samples[i].time == s[i].time);
        assert_true(got.samples[i].interval == s[i].interval);
        assert_int_equal(got.samples[i].port, s[i].port);
        assert_int_equal(got.samples[i].flags, s[i].flags);
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            assert_true(got.samples[i].value[k] == s[i].value[k]);
    }
    cs_metrics_free(&got);
    /* a window that holds only the second poll */
    load(mon, T0 + 15, T0 + 20, &got);
    assert_int_equal(got.num_samples, 4);
    assert_true(got.samples[0].time == T0 + 20);
    cs_metrics_free(&got);
    char text[1024];
    events(mon, 0, T0 + 10, NULL, text);
    assert_string_equal(text, "sweep|-|heavy sweep: 3 nodes|-;"
                              "adapt|rule hot-leaf|moved 2 VMs|{\"why\":\"hot\",\"cost\":3};");
    events(mon, 0, T0 + 10, "adapt", text);
    assert_string_equal(text, "adapt|rule hot-leaf|moved 2 VMs|{\"why\":\"hot\",\"cost\":3};");
    events(mon, T0 + 1.5, T0 + 10, "sweep", text);
    assert_string_equal(text, "");
    /* a read-only store refuses to write */
    assert_int_equal(cs_monitor_put_samples(mon, &m, s, 1, &err), -1);
    assert_non_null(strstr(err.msg, "opened read-only"));
    assert_non_null(strstr(err.msg, fx->path));
    cs_monitor_close(mon);

    /* reopened to write: more samples, same ports; the event amended after the fact */
    mon = open_store(fx->path, CS_MONITOR_READ_WRITE);
    struct cs_metric_sample more = make(2, T0 + 30, 10, 7);
    put(mon, &m, &more, 1);
    assert_int_equal(cs_monitor_amend_event(mon, id2, "{\"gain\":0.5,\"cost\":null}", &err), 0);
    assert_int_equal(cs_monitor_amend_event(mon, id1, "{\"effect\":\"none\"}", &err), 0);
    assert_int_equal(cs_monitor_amend_event(mon, id2 + 10, "{}", &err), -1);
    assert_non_null(strstr(err.msg, "no event"));
    assert_int_equal(cs_monitor_amend_event(mon, id2, "{not json", &err), -1);
    assert_non_null(strstr(err.msg, "not valid JSON"));
    assert_int_equal(cs_monitor_put_event(mon, T0, "fault", NULL, "x", "[1,", NULL, &err), -1);
    assert_non_null(strstr(err.msg, "not valid JSON"));
    assert_int_equal(cs_monitor_put_event(mon, T0, "Fault!", NULL, "x", NULL, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "event kind 'Fault!'"));
    events(mon, 0, T0 + 10, NULL, text);
    assert_string_equal(text, "sweep|-|heavy sweep: 3 nodes|{\"effect\":\"none\"};"
                              "adapt|rule hot-leaf|moved 2 VMs|{\"why\":\"hot\",\"gain\":0.5};");
    load(mon, 0, T0 + 100, &got);
    assert_int_equal(got.num_samples, 9);
    assert_int_equal(got.samples[8].port, 2);
    assert_true(got.samples[8].value[0] == 7);
    cs_metrics_free(&got);
    /* bad samples: nothing of the batch is written */
    struct cs_metric_sample bad[2] = {make(0, T0 + 40, 10, 1), make(1, T0 + 40, 0, 1)};
    assert_int_equal(cs_monitor_put_samples(mon, &m, bad, 2, &err), -1);
    assert_non_null(strstr(err.msg, "interval 0 s is not in (0, 3600]"));
    bad[1] = make(9, T0 + 40, 10, 1);
    assert_int_equal(cs_monitor_put_samples(mon, &m, bad, 2, &err), -1);
    bad[1] = make(1, T0 + 40, 10, NAN);
    assert_int_equal(cs_monitor_put_samples(mon, &m, bad, 2, &err), -1);
    load(mon, 0, T0 + 100, &got);
    assert_int_equal(got.num_samples, 9);
    cs_metrics_free(&got);
    cs_monitor_close(mon);
    cs_metrics_free(&m);
}

static void test_refused(void **state)
{
    struct fixture *fx = *state;
    struct cs_monitor *mon = NULL;
    struct cs_error err = {""};
    char path[192];
    /* read-only: a missing file is not created */
    snprintf(path, sizeof path, "%s/missing.sqlite", fx->dir);
    assert_int_equal(cs_monitor_open(path, CS_MONITOR_READ_ONLY, &mon, &err), -1);
    assert_null(mon);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "no monitoring store"));
    assert_int_equal(access(path, F_OK), -1);
    /* an empty file read-only is not a store yet */
    snprintf(path, sizeof path, "%s/empty.sqlite", fx->dir);
    fclose(fopen(path, "w"));
    assert_int_equal(cs_monitor_open(path, CS_MONITOR_READ_ONLY, &mon, &err), -1);
    assert_non_null(strstr(err.msg, "an empty file, not a monitoring store yet"));
    /* a text file: refused, left as it was, also when opened to write */
    snprintf(path, sizeof path, "%s/notes.txt", fx->dir);
    FILE *fp = fopen(path, "w");
    fputs("these are my notes, not a database\n", fp);
    fclose(fp);
    for (int mode = 0; mode < 2; mode++) {
        assert_int_equal(cs_monitor_open(path, mode, &mon, &err), -1);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, "not a cloudsm monitoring store"));
        char *text = slurp(path);
        assert_string_equal(text, "these are my notes, not a database\n");
        free(text);
    }
    /* another program's SQLite database */
    snprintf(path, sizeof path, "%s/other.sqlite", fx->dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)", 0, 0, 0), 0);
    sqlite3_close(db);
    assert_int_equal(cs_monitor_open(path, CS_MONITOR_READ_WRITE, &mon, &err), -1);
    assert_non_null(strstr(err.msg, "an SQLite database but not a cloudsm monitoring store"));
    /* a store written by a newer cloudsm */
    mon = open_store(fx->path, CS_MONITOR_READ_WRITE);
    cs_monitor_close(mon);
    assert_int_equal(sqlite3_open(fx->path, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(db, "UPDATE meta SET value = value + 1 WHERE key = 'schema'", 0, 0, 0), 0);
    sqlite3_close(db);
    for (int mode = 0; mode < 2; mode++) {
        assert_int_equal(cs_monitor_open(fx->path, mode, &mon, &err), -1);
        assert_non_null(strstr(err.msg, fx->path));
        assert_non_null(strstr(err.msg, "schema 2 is newer than this cloudsm's (1)"));
    }
}

/* The only sample of port p at time t in m, or NULL. */
static const struct cs_metric_sample *find(const struct cs_metrics *m, uint32_t p, double t)
{
    for (uint32_t i = 0; i < m->num_samples; i++)
        if (m->samples[i].port == p && m->samples[i].time == t)
            return &m->samples[i];
    return NULL;
}

static void test_downsampling(void **state)
{
    struct fixture *fx = *state;
    struct cs_metrics m, got;
    struct cs_monitor *mon = store_with_fabric(fx->path, &m);
    /* port 0: minute (T0, T0+60]: 100 over 10 s, 400 over 20 s, 1000 over 30 s -> 650 over 60 s,
     * flags RESET | SATURATED; minute (T0+60, T0+120]: 200, 300 over 30 s each -> 250; then a
     * sample in the minute that just ended and one in the current minute */
    struct cs_metric_sample s[] = {
        make(0, T0 + 10, 10, 100), make(0, T0 + 30, 20, 400),  make(0, T0 + 60, 30, 1000),
        make(0, T0 + 90, 30, 200), make(0, T0 + 120, 30, 300), make(0, T0 + 150, 30, 5),
        make(0, T0 + 183, 10, 6),
    };
    s[0].flags = CS_METRIC_RESET;
    s[2].flags = CS_METRIC_SATURATED;
    put(mon, &m, s, sizeof s / sizeof s[0]);
    struct cs_monitor_retention raw_0 = CS_MONITOR_RETENTION_DEFAULTS;
    raw_0.raw_s = 0;
    struct cs_monitor_compaction done;
    double now = T0 + 185;
    compact(mon, now, &raw_0, &done);
    assert_int_equal(done.raw_folded, 5);
    assert_int_equal(done.minute_written, 2);
    load(mon, T0, now, &got);
    assert_int_equal(got.num_samples, 4);
    const struct cs_metric_sample *a = find(&got, 0, T0 + 60), *b = find(&got, 0, T0 + 120);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a->interval == 60);
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        assert_true(a->value[k] == 650.0 * (k + 1));
    assert_int_equal(a->flags, CS_METRIC_RESET | CS_METRIC_SATURATED);
    assert_true(b->interval == 60 && b->value[0] == 250 && b->flags == 0);
    /* the minute that just ended and the current one are left alone (raw, 30 s and 10 s) */
    assert_true(find(&got, 0, T0 + 150)->interval == 30);
    assert_true(find(&got, 0, T0 + 183)->interval == 10);
    cs_metrics_free(&got);

    /* idempotent: nothing more to do at the same time */
    compact(mon, now, &raw_0, &done);
    assert_int_equal(done.raw_folded + done.minute_written + done.minute_folded, 0);
    load(mon, T0, now, &got);
    assert_int_equal(got.num_samples, 4);
    assert_true(find(&got, 0, T0 + 60)->value[0] == 650);
    cs_metrics_free(&got);

    /* a sample that comes late for a folded minute: not read until the next compaction merges
     * it: (650 x 60 + 1350 x 10) / 70 = 750 */
    struct cs_metric_sample late = make(0, T0 + 50, 10, 1350);
    put(mon, &m, &late, 1);
    load(mon, T0, now, &got);
    assert_true(find(&got, 0, T0 + 60)->value[0] == 650);
    assert_null(find(&got, 0, T0 + 50));
    cs_metrics_free(&got);
    compact(mon, now, &raw_0, &done);
    assert_int_equal(done.raw_folded, 1);
    load(mon, T0, now, &got);
    a = find(&got, 0, T0 + 60);
    assert_true(a->interval == 70 && a->value[0] == 750 && a->value[1] == 1500);
    cs_metrics_free(&got);

    /* a minute later the minute of T0+150 is folded too, not the new current one */
    compact(mon, now + 60, &raw_0, &done);
    assert_int_equal(done.raw_folded, 1);
    load(mon, T0, now + 60, &got);
    assert_true(find(&got, 0, T0 + 180)->interval == 30); /* 150's bucket ends at T0+180 */
    assert_true(find(&got, 0, T0 + 183)->interval == 10);
    cs_metrics_free(&got);
    cs_monitor_close(mon);
    cs_metrics_free(&m);
}

static void test_resolutions_and_retention(void **state)
{
    struct fixture *fx = *state;
    struct cs_metrics m, got;
    struct cs_monitor *mon = store_with_fabric(fx->path, &m);
    struct cs_error err = {""};
    /* port 1: 10-minute samples k = 1..13 of value 100 k, ending at T0 + 600 k; then raw
     * samples in the last minutes */
    struct cs_metric_sample s[16];
    uint32_t n = 0;
    for (int k = 1; k <= 13; k++)
        s[n++] = make(1, T0 + 600 * k, 600, 100 * k);
    double now = T0 + 3 * 3600 + 30;
    s[n++] = make(1, now - 50, 10, 1);
    s[n++] = make(1, now - 20, 10, 2);
    put(mon, &m, s, n);
    struct cs_monitor_retention r = {
        .raw_s = 0, .minute_s = 3600, .hour_s = 2 * 86400, .events_s = 3600};
    struct cs_monitor_compaction done;
    compact(mon, now, &r, &done);
    /* hours (T0, T0+1h] and (T0+1h, T0+2h] folded: (100 + .. + 600) / 6 = 350,
     * (700 + .. + 1200) / 6 = 950; k = 13 stays a minute bucket; the last minutes stay raw */
    assert_int_equal(done.minute_folded, 12);
    assert_int_equal(done.hour_written, 2);
    load(mon, T0, now, &got);
    assert_int_equal(got.num_samples, 5);
    assert_true(got.samples[0].time == T0 + 3600 && got.samples[0].interval == 3600 &&
                got.samples[0].value[0] == 350);
    assert_true(got.samples[1].time == T0 + 7200 && got.samples[1].interval == 3600 &&
                got.samples[1].value[0] == 950);
    assert_true(got.samples[2].time == T0 + 7800 && got.samples[2].interval == 600 &&
                got.samples[2].value[0] == 1300);
    assert_true(got.samples[3].interval == 10 && got.samples[4].interval == 10);
    cs_metrics_free(&got);
    /* a window inside the second hour gets that hour's bucket (it overlaps), not the first */
    load(mon, T0 + 3700, T0 + 3800, &got);
    assert_int_equal(got.num_samples, 1);
    assert_true(got.samples[0].time == T0 + 7200);
    cs_metrics_free(&got);

    /* events and hour buckets past their retention are dropped */
    assert_int_equal(
        cs_monitor_put_event(mon, now - 7200, "fault", "0x30", "old", NULL, NULL, &err), 0);
    assert_int_equal(cs_monitor_put_event(mon, now - 60, "fault", "0x30", "new", NULL, NULL, &err),
                     0);
    compact(mon, now, &r, &done);
    assert_int_equal(done.events_dropped, 1);
    assert_int_equal(done.hour_dropped, 0);
    char text[1024];
    events(mon, 0, now, NULL, text);
    assert_string_equal(text, "fault|0x30|new|-;");
    compact(mon, T0 + 2 * 86400 + 3601, &r, &done);
    assert_int_equal(done.hour_dropped, 1); /* the first hour: older than 2 days */
    load(mon, T0, T0 + 2 * 86400 + 3601, &got);
    assert_true(got.samples[0].time == T0 + 7200);
    cs_metrics_free(&got);

    /* retention that contradicts itself */
    r.raw_s = 20;
    r.minute_s = 10;
    assert_int_equal(cs_monitor_compact(mon, now, &r, &done, &err), -1);
    assert_non_null(strstr(err.msg, "raw <= minute <= hour"));
    cs_monitor_close(mon);
    cs_metrics_free(&m);
}

static void test_topology_changes(void **state)
{
    struct fixture *fx = *state;
    struct cs_metrics m, smaller, got;
    struct cs_monitor *mon = store_with_fabric(fx->path, &m);
    fabric(&smaller, false, false);
    struct cs_error err = {""};
    struct cs_metric_sample s[2] = {make(0, T0 + 10, 10, 1), make(3, T0 + 10, 10, 2)};
    put(mon, &m, s, 2);
    /* host-a and its cable go at T0 + 100; samples of the rest go on, by their new indices */
    assert_int_equal(cs_monitor_put_topology(mon, &smaller, T0 + 100, &err), 0);
    struct cs_metric_sample later = make(0, T0 + 110, 10, 3); /* host-b's port now */
    put(mon, &smaller, &later, 1);
    /* a window before the change: host-a and its samples */
    load(mon, T0, T0 + 200, &got);
    assert_int_equal(got.num_nodes, 3);
    assert_int_equal(got.num_ports, 4);
    assert_int_equal(got.num_samples, 3);
    assert_int_equal(got.nodes[got.ports[got.samples[0].port].node].guid, 0x10);
    assert_int_equal(got.ports[got.samples[1].port].num, 2); /* the switch's port 2 */
    assert_int_equal(got.nodes[got.ports[got.samples[2].port].node].guid, 0x20);
    /* partitions are the last topology's */
    assert_int_equal(got.num_partitions, 1);
    assert_int_equal(got.partitions[0].num_members, 1);
    assert_int_equal(got.nodes[got.partitions[0].members[0]].guid, 0x20);
    cs_metrics_free(&got);
    /* a window after it: host-a is gone */
    load(mon, T0 + 150, T0 + 200, &got);
    assert_int_equal(got.num_nodes, 2);
    assert_int_equal(got.num_ports, 2);
    assert_int_equal(cs_metrics_find_node(&got, 0x10), UINT32_MAX);
    cs_metrics_free(&got);
    /* a sample of a port the store has as removed brings it back */
    put(mon, &m, s, 1);
    load(mon, T0 + 150, T0 + 200, &got);
    assert_int_not_equal(cs_metrics_find_port(&got, 0x10, 1), UINT32_MAX);
    cs_metrics_free(&got);
    cs_monitor_close(mon);
    cs_metrics_free(&m);
    cs_metrics_free(&smaller);
}

static int count(void *ctx, const struct cs_metrics *topology, const struct cs_metric_sample *s,
                 uint32_t n, struct cs_error *err)
{
    (void)err;
    for (uint32_t i = 0; i < n; i++)
        if (topology->nodes[topology->ports[s[i].port].node].guid != 0x30)
            return -1; /* only the switch was asked for */
    *(uint32_t *)ctx += n;
    return 0;
}

static void test_selection(void **state)
{
    struct fixture *fx = *state;
    struct cs_metrics m, topo;
    struct cs_monitor *mon = store_with_fabric(fx->path, &m);
    struct cs_error err = {""};
    struct cs_metric_sample s[4] = {make(0, T0 + 10, 10, 1), make(1, T0 + 10, 10, 1),
                                    make(2, T0 + 10, 10, 1), make(3, T0 + 10, 10, 1)};
    put(mon, &m, s, 4);
    uint64_t sw = 0x30, unknown = 0x99;
    uint32_t n = 0;
    assert_int_equal(cs_monitor_scan(mon, T0, T0 + 20, &sw, 1, &topo, count, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(topo.num_nodes, 1);
    assert_int_equal(topo.num_ports, 2);
    assert_int_equal(topo.partitions[0].num_members, 0); /* its members are not loaded */
    cs_metrics_free(&topo);
    assert_int_equal(cs_monitor_scan(mon, T0, T0 + 20, &unknown, 1, &topo, count, &n, &err), -1);
    assert_non_null(strstr(err.msg, "no node 0x0000000000000099 in the store"));
    assert_int_equal(cs_monitor_scan(mon, T0 + 20, T0, NULL, 0, &topo, count, &n, &err), -1);
    cs_monitor_close(mon);
    cs_metrics_free(&m);
}

/* One process polls and writes; this one reads at the same time: every read succeeds and sees
 * whole polls only. */
static void test_reader_while_writing(void **state)
{
    struct fixture *fx = *state;
    struct cs_metrics m;
    struct cs_monitor *mon = store_with_fabric(fx->path, &m);
    struct cs_error err = {""};
    cs_monitor_close(mon);
    enum { POLLS = 300 };
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct cs_monitor *w = NULL;
        if (cs_monitor_open(fx->path, CS_MONITOR_READ_WRITE, &w, &err) < 0)
            _exit(2);
        for (int k = 1; k <= POLLS; k++) {
            struct cs_metric_sample s[4];
            for (uint32_t p = 0; p < 4; p++)
                s[p] = make(p, T0 + 10.0 * k, 10, k);
            if (cs_monitor_put_samples(w, &m, s, 4, &err) < 0)
                _exit(3);
        }
        cs_monitor_close(w);
        _exit(0);
    }
    struct cs_monitor *r = open_store(fx->path, CS_MONITOR_READ_ONLY);
    int status = 0, reads = 0, partial = 0;
    for (;;) {
        bool done = waitpid(child, &status, WNOHANG) == child;
        struct cs_metrics got;
        load(r, T0, T0 + 10.0 * POLLS, &got);
        assert_int_equal(got.num_samples % 4, 0);
        if (got.num_samples > 0 && got.num_samples < 4 * POLLS)
            partial++;
        reads++;
        uint32_t n = got.num_samples;
        cs_metrics_free(&got);
        if (done) {
            assert_int_equal(n, 4 * POLLS);
            break;
        }
    }
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    print_message("%d reads, %d while the writer was half way\n", reads, partial);
    cs_monitor_close(r);
    cs_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_downsampling, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolutions_and_retention, setup, teardown),
        cmocka_unit_test_setup_teardown(test_topology_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_while_writing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
