/* The monitoring store's topology (include/cloudsm/monitor.h): nodes, ports and partitions put
 * after each sweep, and the map from (node GUID, port number) to the store's port ids that
 * samples are keyed by. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/grow.h"
#include "store_internal.h"

int store_upsert_node(struct cs_monitor *mon, const struct cs_metrics *m, uint32_t node,
                      double seen, struct cs_error *err)
{
    if (!mon->upsert_node &&
        store_prepare(mon,
                      "INSERT INTO nodes(guid, type, description, seen, removed)"
                      " VALUES(?1, ?2, ?3, ?4, NULL) ON CONFLICT(guid) DO UPDATE SET"
                      " type = ?2, description = ?3, seen = ?4, removed = NULL",
                      &mon->upsert_node, err) < 0)
        return -1;
    const struct cs_metric_node *n = &m->nodes[node];
    sqlite3_stmt *st = mon->upsert_node;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)n->guid);
    sqlite3_bind_int(st, 2, n->type);
    sqlite3_bind_text(st, 3, n->desc, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, seen);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail(mon, err, "cannot write a node");
    sqlite3_reset(st);
    return rc;
}

int store_upsert_port(struct cs_monitor *mon, const struct cs_metrics *m, uint32_t port,
                      double seen, struct cs_error *err)
{
    if (!mon->upsert_port &&
        store_prepare(mon,
                      "INSERT INTO ports(node_guid, num, guid, lid, peer_node_guid, peer_num,"
                      " link_bytes_per_s, seen, removed) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
                      " NULL) ON CONFLICT(node_guid, num) DO UPDATE SET guid = ?3, lid = ?4,"
                      " peer_node_guid = ?5, peer_num = ?6, link_bytes_per_s = ?7, seen = ?8,"
                      " removed = NULL",
                      &mon->upsert_port, err) < 0)
        return -1;
    const struct cs_metric_port *p = &m->ports[port];
    sqlite3_stmt *st = mon->upsert_port;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)m->nodes[p->node].guid);
    sqlite3_bind_int(st, 2, p->num);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)p->guid);
    sqlite3_bind_int(st, 4, p->lid);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)p->peer_node_guid);
    sqlite3_bind_int(st, 6, p->peer_num);
    sqlite3_bind_double(st, 7, p->link_bytes_per_s);
    sqlite3_bind_double(st, 8, seen);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail(mon, err, "cannot write a port");
    sqlite3_reset(st);
    mon->keys_loaded = false; /* a new port, or one present again */
    return rc;
}

static int put_partitions(struct cs_monitor *mon, const struct cs_metrics *m, struct cs_error *err)
{
    if (store_exec(mon, "DELETE FROM partition_members; DELETE FROM partitions", err) < 0)
        return -1;
    sqlite3_stmt *part = NULL, *member = NULL;
    int rc = 0;
    if (store_prepare(mon, "INSERT INTO partitions(ord, pkey, name) VALUES(?, ?, ?)", &part, err) <
            0 ||
        store_prepare(mon, "INSERT INTO partition_members(pkey, node_guid) VALUES(?, ?)", &member,
                      err) < 0)
        rc = -1;
    for (uint32_t i = 0; rc == 0 && i < m->num_partitions; i++) {
        const struct cs_metric_partition *p = &m->partitions[i];
        sqlite3_bind_int64(part, 1, i);
        sqlite3_bind_int(part, 2, p->pkey);
        sqlite3_bind_text(part, 3, p->name, -1, SQLITE_STATIC);
        if (sqlite3_step(part) != SQLITE_DONE)
            rc = store_fail(mon, err, "cannot write a partition");
        sqlite3_reset(part);
        for (uint32_t j = 0; rc == 0 && j < p->num_members; j++) {
            sqlite3_bind_int(member, 1, p->pkey);
            sqlite3_bind_int64(member, 2, (sqlite3_int64)m->nodes[p->members[j]].guid);
            if (sqlite3_step(member) != SQLITE_DONE)
                rc = store_fail(mon, err, "cannot write a partition member");
            sqlite3_reset(member);
        }
    }
    sqlite3_finalize(part);
    sqlite3_finalize(member);
    return rc;
}

int cs_monitor_put_topology(struct cs_monitor *mon, const struct cs_metrics *m, double now,
                            struct cs_error *err)
{
    if (!isfinite(now))
        return cs_fail(err, "%s: topology at time %g", mon->path, now);
    if (store_begin(mon, err) < 0)
        return -1;
    /* Everything is removed at now, then what m has is present again: one transaction, so a
     * reader never sees the step between. */
    char sql[160];
    snprintf(sql, sizeof sql,
             "UPDATE nodes SET removed = %.17g WHERE removed IS NULL;"
             "UPDATE ports SET removed = %.17g WHERE removed IS NULL",
             now, now);
    int rc = store_exec(mon, sql, err);
    for (uint32_t i = 0; rc == 0 && i < m->num_nodes; i++)
        rc = store_upsert_node(mon, m, i, now, err);
    for (uint32_t i = 0; rc == 0 && i < m->num_ports; i++)
        rc = store_upsert_port(mon, m, i, now, err);
    if (rc == 0)
        rc = put_partitions(mon, m, err);
    mon->keys_loaded = false;
    if (rc < 0) {
        store_rollback(mon);
        return -1;
    }
    return store_commit(mon, err);
}

static int by_node_and_number(const void *a, const void *b)
{
    const struct store_port_key *x = a, *y = b;
    if (x->node_guid != y->node_guid)
        return x->node_guid < y->node_guid ? -1 : 1;
    return (x->num > y->num) - (x->num < y->num);
}

int store_load_keys(struct cs_monitor *mon, struct cs_error *err)
{
    if (mon->keys_loaded)
        return 0;
    mon->num_keys = 0;
    sqlite3_stmt *st;
    if (store_prepare(mon, "SELECT node_guid, num, id, removed IS NULL FROM ports", &st, err) < 0)
        return -1;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (cs_grow((void **)&mon->keys, &mon->keys_capacity, (uint64_t)mon->num_keys + 1,
                    sizeof *mon->keys, err) < 0) {
            rc = -1;
            break;
        }
        struct store_port_key *k = &mon->keys[mon->num_keys++];
        k->node_guid = (uint64_t)sqlite3_column_int64(st, 0);
        k->num = (uint8_t)sqlite3_column_int(st, 1);
        k->id = sqlite3_column_int64(st, 2);
        k->present = sqlite3_column_int(st, 3) != 0;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail(mon, err, "cannot read the ports");
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    if (mon->num_keys > 1)
        qsort(mon->keys, mon->num_keys, sizeof *mon->keys, by_node_and_number);
    mon->keys_loaded = true;
    return 0;
}
