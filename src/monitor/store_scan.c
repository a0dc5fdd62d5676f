/* Reading the monitoring store (include/cloudsm/monitor.h): the topology of a window, then its
 * samples in batches, each time from one resolution. All of it in one read transaction, so the
 * topology and the samples are of one state of the store however the writer goes on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "store_internal.h"

/* Samples handed over at once (a batch grows past it only to keep one time together). */
#define BATCH 65536

struct node_row {
    uint64_t guid;
    uint8_t type;
    bool present, wanted;
    char desc[CS_DESC_MAX + 1];
};

struct port_row {
    uint64_t node_guid;
    int64_t id;
    struct cs_metric_port port; /* .node filled when the nodes are known */
};

struct scan {
    struct cs_monitor *mon;
    double since, until;
    const uint64_t *selected; /* sorted node GUIDs, or NULL for all */
    uint32_t num_selected;
    struct cs_metrics *topology;
    struct node_row *nodes;
    uint32_t num_nodes, nodes_capacity;
    struct port_row *ports;
    uint32_t num_ports, ports_capacity;
    int32_t *index_of_id; /* store port id -> index in topology->ports, or -1 */
    int64_t max_id;
    struct cs_metric_sample *batch;
    uint32_t batch_len, batch_capacity;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static bool selected(const struct scan *sc, uint64_t guid)
{
    return !sc->selected || (sc->num_selected > 0 && bsearch(&guid, sc->selected, sc->num_selected,
                                                             sizeof guid, cmp_u64) != NULL);
}

static int by_guid(const void *a, const void *b)
{
    return cmp_u64(&((const struct node_row *)a)->guid, &((const struct node_row *)b)->guid);
}

static int by_node_and_number(const void *a, const void *b)
{
    const struct port_row *x = a, *y = b;
    if (x->node_guid != y->node_guid)
        return x->node_guid < y->node_guid ? -1 : 1;
    return (x->port.num > y->port.num) - (x->port.num < y->port.num);
}

static struct node_row *find_node(struct scan *sc, uint64_t guid)
{
    struct node_row key = {.guid = guid};
    return sc->num_nodes > 0 ? bsearch(&key, sc->nodes, sc->num_nodes, sizeof key, by_guid) : NULL;
}

/* Every node row, sorted by GUID. */
static int read_nodes(struct scan *sc, struct cs_error *err)
{
    sqlite3_stmt *st;
    if (store_prepare(sc->mon, "SELECT guid, type, description, removed IS NULL FROM nodes", &st,
                      err) < 0)
        return -1;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        rc = cs_grow((void **)&sc->nodes, &sc->nodes_capacity, (uint64_t)sc->num_nodes + 1,
                     sizeof *sc->nodes, err);
        if (rc < 0)
            break;
        struct node_row *n = &sc->nodes[sc->num_nodes++];
        memset(n, 0, sizeof *n);
        n->guid = (uint64_t)sqlite3_column_int64(st, 0);
        n->type = (uint8_t)sqlite3_column_int(st, 1);
        const unsigned char *desc = sqlite3_column_text(st, 2);
        snprintf(n->desc, sizeof n->desc, "%s", desc ? (const char *)desc : "");
        n->present = sqlite3_column_int(st, 3) != 0;
        n->wanted = n->present && selected(sc, n->guid);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(sc->mon, err, "cannot read the nodes");
    sqlite3_finalize(st);
    if (rc == 0 && sc->num_nodes > 1)
        qsort(sc->nodes, sc->num_nodes, sizeof *sc->nodes, by_guid);
    for (uint32_t i = 0; rc == 0 && i < sc->num_selected; i++)
        if (!find_node(sc, sc->selected[i]))
            rc = cs_fail(err, "%s: no node 0x%016llx in the store", sc->mon->path,
                         (unsigned long long)sc->selected[i]);
    return rc;
}

/* The ports of the window: present, or removed at or after since; of the selected nodes. */
static int read_ports(struct scan *sc, struct cs_error *err)
{
    sqlite3_stmt *st;
    if (store_prepare(sc->mon,
                      "SELECT id, node_guid, num, guid, lid, peer_node_guid, peer_num,"
                      " link_bytes_per_s FROM ports WHERE removed IS NULL OR removed >= ?",
                      &st, err) < 0)
        return -1;
    sqlite3_bind_double(st, 1, sc->since);
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t node_guid = (uint64_t)sqlite3_column_int64(st, 1);
        struct node_row *n = find_node(sc, node_guid);
        if (!n || !selected(sc, node_guid))
            continue;
        rc = cs_grow((void **)&sc->ports, &sc->ports_capacity, (uint64_t)sc->num_ports + 1,
                     sizeof *sc->ports, err);
        if (rc < 0)
            break;
        n->wanted = true;
        struct port_row *p = &sc->ports[sc->num_ports++];
        p->id = sqlite3_column_int64(st, 0);
        p->node_guid = node_guid;
        p->port = (struct cs_metric_port){
            .num = (uint8_t)sqlite3_column_int(st, 2),
            .guid = (uint64_t)sqlite3_column_int64(st, 3),
            .lid = (uint16_t)sqlite3_column_int(st, 4),
            .peer_node_guid = (uint64_t)sqlite3_column_int64(st, 5),
            .peer_num = (uint8_t)sqlite3_column_int(st, 6),
            .link_bytes_per_s = sqlite3_column_double(st, 7),
        };
        sc->max_id = p->id > sc->max_id ? p->id : sc->max_id;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(sc->mon, err, "cannot read the ports");
    sqlite3_finalize(st);
    return rc;
}

/* The partitions, members restricted to the topology's nodes. pass 0 marks the members' nodes
 * wanted (all nodes read), pass 1 adds the partitions to the topology. */
static int read_partitions(struct scan *sc, int pass, struct cs_error *err)
{
    sqlite3_stmt *parts = NULL, *members = NULL;
    if (store_prepare(sc->mon, "SELECT pkey, name FROM partitions ORDER BY ord", &parts, err) < 0 ||
        store_prepare(sc->mon, "SELECT node_guid FROM partition_members WHERE pkey = ?", &members,
                      err) < 0) {
        sqlite3_finalize(parts);
        return -1;
    }
    uint32_t *list = NULL, count = 0, capacity = 0;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(parts)) == SQLITE_ROW) {
        int pkey = sqlite3_column_int(parts, 0);
        count = 0;
        sqlite3_bind_int(members, 1, pkey);
        int mstep;
        while (rc == 0 && (mstep = sqlite3_step(members)) == SQLITE_ROW) {
            uint64_t guid = (uint64_t)sqlite3_column_int64(members, 0);
            if (pass == 0) {
                struct node_row *n = find_node(sc, guid);
                if (n && selected(sc, guid))
                    n->wanted = true;
                continue;
            }
            uint32_t index = cs_metrics_find_node(sc->topology, guid);
            if (index == UINT32_MAX)
                continue;
            rc = cs_grow((void **)&list, &capacity, (uint64_t)count + 1, sizeof *list, err);
            if (rc == 0)
                list[count++] = index;
        }
        if (rc == 0 && mstep != SQLITE_DONE)
            rc = store_fail(sc->mon, err, "cannot read partition members");
        sqlite3_reset(members);
        if (rc == 0 && pass == 1) {
            /* Node indices follow GUID order, as the members' primary key does not (signed). */
            if (count > 1)
                qsort(list, count, sizeof *list, cmp_u32);
            rc = cs_metrics_add_partition(sc->topology, (const char *)sqlite3_column_text(parts, 1),
                                          (uint16_t)pkey, list, count, err);
        }
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(sc->mon, err, "cannot read the partitions");
    sqlite3_finalize(parts);
    sqlite3_finalize(members);
    free(list);
    return rc;
}

/* The topology: wanted nodes by GUID, their ports by (node, number), the partitions, and the map
 * from store port ids to topology ports. */
static int read_topology(struct scan *sc, struct cs_error *err)
{
    struct cs_metrics *m = sc->topology;
    if (read_nodes(sc, err) < 0 || read_ports(sc, err) < 0 || read_partitions(sc, 0, err) < 0)
        return -1;
    for (uint32_t i = 0; i < sc->num_nodes; i++)
        if (sc->nodes[i].wanted && cs_metrics_add_node(m, sc->nodes[i].guid, sc->nodes[i].type,
                                                       sc->nodes[i].desc, err) < 0)
            return -1;
    if (sc->num_ports > 1)
        qsort(sc->ports, sc->num_ports, sizeof *sc->ports, by_node_and_number);
    sc->index_of_id = cs_calloc_array((size_t)sc->max_id + 1, sizeof *sc->index_of_id, err);
    if (!sc->index_of_id)
        return -1;
    for (int64_t id = 0; id <= sc->max_id; id++)
        sc->index_of_id[id] = -1;
    for (uint32_t i = 0; i < sc->num_ports; i++) {
        struct port_row *p = &sc->ports[i];
        p->port.node = cs_metrics_find_node(m, p->node_guid);
        if (p->id >= 0)
            sc->index_of_id[p->id] = (int32_t)m->num_ports;
        if (cs_metrics_add_port(m, &p->port, err) < 0)
            return -1;
    }
    return read_partitions(sc, 1, err);
}

static int by_time_and_port(const void *a, const void *b)
{
    const struct cs_metric_sample *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->port > y->port) - (x->port < y->port);
}

/* Hand the batch over, samples of one time in port order (rows come in store id order). */
static int flush(struct scan *sc, cs_monitor_sample_fn fn, void *ctx, struct cs_error *err)
{
    if (sc->batch_len == 0)
        return 0;
    for (uint32_t i = 1; i < sc->batch_len; i++)
        if (by_time_and_port(&sc->batch[i - 1], &sc->batch[i]) > 0) {
            qsort(sc->batch, sc->batch_len, sizeof *sc->batch, by_time_and_port);
            break;
        }
    uint32_t n = sc->batch_len;
    sc->batch_len = 0;
    return fn(ctx, sc->topology, sc->batch, n, err);
}

/* One resolution's samples with times in (floor, ceil] that overlap the window. */
static int scan_table(struct scan *sc, enum store_resolution r, int64_t floor_ms, int64_t ceil_ms,
                      cs_monitor_sample_fn fn, void *ctx, struct cs_error *err)
{
    /* A sample ending after until still overlaps the window if it started before it: it can end
     * at most a bucket and a raw interval later. */
    int64_t lookahead = store_bucket_ms[r] + store_ms(CS_MONITOR_MAX_INTERVAL_S);
    if (r == STORE_HOUR)
        lookahead += store_bucket_ms[STORE_MINUTE];
    int64_t since_ms = store_ms(sc->since), until_ms = store_ms(sc->until);
    int64_t lo = since_ms > floor_ms ? since_ms : floor_ms + 1;
    int64_t hi = until_ms + lookahead < ceil_ms ? until_ms + lookahead : ceil_ms;
    if (lo > hi)
        return 0;
    char sql[512];
    size_t n = (size_t)snprintf(sql, sizeof sql, "SELECT time_ms, port_id, interval_s, flags");
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", cs_metric_name(k));
    snprintf(sql + n, sizeof sql - n,
             " FROM %s WHERE time_ms >= ?1 AND time_ms <= ?2 AND time_ms - interval_s * 1000 < ?3"
             " ORDER BY time_ms, port_id",
             store_sample_tables[r]);
    sqlite3_stmt *st;
    if (store_prepare(sc->mon, sql, &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, lo);
    sqlite3_bind_int64(st, 2, hi);
    sqlite3_bind_int64(st, 3, until_ms);
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 1);
        if (id < 0 || id > sc->max_id || sc->index_of_id[id] < 0)
            continue; /* a port not selected */
        double time = (double)sqlite3_column_int64(st, 0) / 1000;
        if (sc->batch_len >= BATCH && sc->batch[sc->batch_len - 1].time != time) {
            rc = flush(sc, fn, ctx, err);
            if (rc != 0)
                break;
        }
        rc = cs_grow((void **)&sc->batch, &sc->batch_capacity, (uint64_t)sc->batch_len + 1,
                     sizeof *sc->batch, err);
        if (rc < 0)
            break;
        struct cs_metric_sample *s = &sc->batch[sc->batch_len++];
        s->time = time;
        s->port = (uint32_t)sc->index_of_id[id];
        s->interval = sqlite3_column_double(st, 2);
        s->flags = (uint32_t)sqlite3_column_int64(st, 3);
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            s->value[k] = sqlite3_column_double(st, 4 + k);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(sc->mon, err, "cannot read samples");
    sqlite3_finalize(st);
    return rc;
}

static int scan_samples(struct scan *sc, cs_monitor_sample_fn fn, void *ctx, struct cs_error *err)
{
    int64_t minute_through, hour_through;
    if (store_meta_get(sc->mon, STORE_META_MINUTE_THROUGH, &minute_through, err) < 0 ||
        store_meta_get(sc->mon, STORE_META_HOUR_THROUGH, &hour_through, err) < 0)
        return -1;
    /* Coarsest first: the resolutions hold disjoint spans of time, in this order. */
    int rc = scan_table(sc, STORE_HOUR, INT64_MIN / 2, hour_through, fn, ctx, err);
    if (rc == 0)
        rc = scan_table(sc, STORE_MINUTE, hour_through, minute_through, fn, ctx, err);
    if (rc == 0)
        rc = scan_table(sc, STORE_RAW, minute_through, INT64_MAX / 2, fn, ctx, err);
    if (rc == 0)
        rc = flush(sc, fn, ctx, err);
    return rc;
}

int cs_monitor_scan(struct cs_monitor *mon, double since, double until, const uint64_t *node_guids,
                    uint32_t num_node_guids, struct cs_metrics *topology, cs_monitor_sample_fn fn,
                    void *ctx, struct cs_error *err)
{
    cs_metrics_init(topology);
    if (!isfinite(since) || !isfinite(until) || since > until)
        return cs_fail(err, "%s: window [%.3f, %.3f]: needs a start at or before its end",
                       mon->path, since, until);
    struct scan sc = {.mon = mon, .since = since, .until = until, .topology = topology};
    uint64_t *sorted = NULL;
    int rc = 0;
    if (node_guids) {
        sorted = cs_calloc_array(num_node_guids, sizeof *sorted, err);
        if (!sorted)
            return -1;
        if (num_node_guids > 0)
            memcpy(sorted, node_guids, num_node_guids * sizeof *sorted);
        if (num_node_guids > 1)
            qsort(sorted, num_node_guids, sizeof *sorted, cmp_u64);
        sc.selected = sorted;
        sc.num_selected = num_node_guids;
    }
    rc = store_begin_read(mon, err);
    if (rc == 0) {
        rc = read_topology(&sc, err);
        if (rc == 0 && fn)
            rc = scan_samples(&sc, fn, ctx, err);
        store_end_read(mon);
    }
    free(sorted);
    free(sc.nodes);
    free(sc.ports);
    free(sc.index_of_id);
    free(sc.batch);
    if (rc < 0)
        cs_metrics_free(topology);
    return rc < 0 ? -1 : 0;
}

static int append(void *ctx, const struct cs_metrics *topology, const struct cs_metric_sample *s,
                  uint32_t n, struct cs_error *err)
{
    struct cs_metrics *out = ctx;
    (void)topology; /* out itself */
    if (cs_grow((void **)&out->samples, &out->samples_capacity, (uint64_t)out->num_samples + n,
                sizeof *out->samples, err) < 0)
        return -1;
    memcpy(out->samples + out->num_samples, s, n * sizeof *s);
    out->num_samples += n;
    return 0;
}

int cs_monitor_load(struct cs_monitor *mon, double since, double until, struct cs_metrics *out,
                    struct cs_error *err)
{
    return cs_monitor_scan(mon, since, until, NULL, 0, out, append, out, err);
}
