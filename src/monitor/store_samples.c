/* Writing samples to the monitoring store (include/cloudsm/monitor.h): a poll's batch in one
 * transaction through one prepared statement, ports mapped to store ids by one merge of two
 * sorted lists. */
#include <math.h>
#include <stdio.h>

#include "core/grow.h"
#include "store_internal.h"

/* Seconds since the epoch of 10000-01-01: past it a time is a mistake, not a measurement. */
#define LAST_TIME 253402300800.0

static int check_samples(struct cs_monitor *mon, const struct cs_metrics *m,
                         const struct cs_metric_sample *s, uint32_t n, struct cs_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        if (s[i].port >= m->num_ports)
            return cs_fail(err, "%s: sample %u names port %u of %u", mon->path, i, s[i].port,
                           m->num_ports);
        if (!(s[i].time > 0 && s[i].time < LAST_TIME))
            return cs_fail(err, "%s: sample %u: time %g is not seconds since the epoch", mon->path,
                           i, s[i].time);
        if (!(s[i].interval > 0 && s[i].interval <= CS_MONITOR_MAX_INTERVAL_S))
            return cs_fail(err, "%s: sample %u: interval %g s is not in (0, %g]", mon->path, i,
                           s[i].interval, CS_MONITOR_MAX_INTERVAL_S);
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            if (!isfinite(s[i].value[k]))
                return cs_fail(err, "%s: sample %u: %s is not a number", mon->path, i,
                               cs_metric_name(k));
    }
    return 0;
}

/* mon->ids[p] = the store id of m's port p if the store has it present, else -1. Both lists are
 * sorted by (node GUID, port number). */
static void map_ports(struct cs_monitor *mon, const struct cs_metrics *m)
{
    uint32_t j = 0;
    for (uint32_t p = 0; p < m->num_ports; p++) {
        uint64_t guid = m->nodes[m->ports[p].node].guid;
        uint8_t num = m->ports[p].num;
        while (j < mon->num_keys && (mon->keys[j].node_guid < guid ||
                                     (mon->keys[j].node_guid == guid && mon->keys[j].num < num)))
            j++;
        bool found = j < mon->num_keys && mon->keys[j].node_guid == guid && mon->keys[j].num == num;
        mon->ids[p] = found && mon->keys[j].present ? mon->keys[j].id : -1;
    }
}

/* Ports with samples that the store lacks (or has as removed) are added, with their nodes. */
static int add_missing_ports(struct cs_monitor *mon, const struct cs_metrics *m,
                             const struct cs_metric_sample *s, uint32_t n, struct cs_error *err)
{
    bool added = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = s[i].port;
        if (mon->ids[p] >= 0)
            continue;
        if (store_upsert_node(mon, m, m->ports[p].node, s[i].time, err) < 0 ||
            store_upsert_port(mon, m, p, s[i].time, err) < 0)
            return -1;
        mon->ids[p] = 0; /* added: not again for its next sample */
        added = true;
    }
    if (!added)
        return 0;
    if (store_load_keys(mon, err) < 0)
        return -1;
    map_ports(mon, m);
    return 0;
}

static int prepare_insert(struct cs_monitor *mon, struct cs_error *err)
{
    if (mon->insert_sample)
        return 0;
    char sql[512];
    size_t len = (size_t)snprintf(sql, sizeof sql,
                                  "INSERT OR REPLACE INTO %s(time_ms, port_id, interval_s, flags",
                                  store_sample_tables[STORE_RAW]);
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, ", %s", cs_metric_name(k));
    len += (size_t)snprintf(sql + len, sizeof sql - len, ") VALUES(?, ?, ?, ?");
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, ", ?");
    snprintf(sql + len, sizeof sql - len, ")");
    return store_prepare(mon, sql, &mon->insert_sample, err);
}

static int insert(struct cs_monitor *mon, const struct cs_metric_sample *s, struct cs_error *err)
{
    sqlite3_stmt *st = mon->insert_sample;
    sqlite3_bind_int64(st, 1, store_ms(s->time));
    sqlite3_bind_int64(st, 2, mon->ids[s->port]);
    sqlite3_bind_double(st, 3, s->interval);
    sqlite3_bind_int64(st, 4, s->flags);
    for (int k = 0; k < CS_METRIC_COUNT; k++)
        sqlite3_bind_double(st, 5 + k, s->value[k]);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail(mon, err, "cannot write a sample");
    sqlite3_reset(st);
    return rc;
}

int cs_monitor_put_samples(struct cs_monitor *mon, const struct cs_metrics *m,
                           const struct cs_metric_sample *s, uint32_t n, struct cs_error *err)
{
    if (store_writable(mon, err) < 0 || check_samples(mon, m, s, n, err) < 0)
        return -1;
    if (n == 0)
        return 0;
    if (cs_grow((void **)&mon->ids, &mon->ids_capacity, m->num_ports, sizeof *mon->ids, err) < 0 ||
        prepare_insert(mon, err) < 0 || store_begin(mon, err) < 0)
        return -1;
    int rc = store_load_keys(mon, err);
    if (rc == 0) {
        map_ports(mon, m);
        rc = add_missing_ports(mon, m, s, n, err);
    }
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        rc = insert(mon, &s[i], err);
    if (rc == 0)
        rc = store_commit(mon, err);
    if (rc < 0) {
        store_rollback(mon);
        mon->keys_loaded = false; /* ports added in the rolled-back transaction are gone */
    }
    return rc;
}
