/* mftree: metabase-aided fat-tree routing (Compact Network Reconfiguration in Fat-Trees, Sect. 7,
 * Algorithm 4; node-order re-routing, Sect. 8, Algorithm 5). docs/routing/mftree.md.
 *
 * Phase I (metabase.c) computes K spanning trees toward every leaf on the fat-tree machinery;
 * it runs only when no metabase of this fabric is at hand: not in inputs->state (a caller that
 * routes again), not in inputs->metabase_file. Phase II (here) needs no fat-tree view at all: it
 * gives every compute node one of its leaf's paths and copies that path's column into the node's
 * LID, the leaf's own entry pointing at the node's port. Which path:
 *  - with a node order (Algorithm 5, line 9 read as "!="): on each leaf the k-th node of the
 *    order takes path k mod K, as ftree would route the nodes in that order; nodes the order does
 *    not name follow, in port order;
 *  - with node weights: heaviest first (port order on ties) onto the leaf's least loaded path
 *    (the sum of the weights given to it; the lowest path on ties);
 *  - otherwise round robin in port order, OpenSM's order: node k takes path k mod K.
 * The other CA ports and the switch LIDs take their own stored columns. */
#include "cloudsm/route.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "route/metabase.h"
#include "route/route_state.h"

/* A compute node of a leaf, in the order phase II hands out paths. */
struct leaf_node {
    uint64_t key;    /* what it is sorted by (order position, weight, port) */
    uint32_t weight; /* node weight, weights mode */
    uint16_t lid;
    uint8_t port; /* the leaf's port to it */
};

/* One entry to copy: LID lid takes column `column` of every row. */
struct assignment {
    uint32_t column;
    uint16_t lid;
};

static int by_key(const void *a, const void *b)
{
    const struct leaf_node *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int by_lid(const void *a, const void *b)
{
    const struct assignment *x = a, *y = b;
    return (x->lid > y->lid) - (x->lid < y->lid);
}

struct phase2 {
    const struct cs_fabric *f;
    const struct cs_route_options *opt;
    const struct cs_route_inputs *in;
    const struct cs_metabase *mb;
    struct cs_lfts *lfts;
    struct cs_key_index tables;  /* switch GUID -> table */
    struct cs_key_index order;   /* port GUID -> position in the node order */
    struct cs_key_index cns;     /* the compute node list, when given */
    uint32_t *table_of;          /* [metabase switch] table index, CS_NONE */
    struct assignment *assigned; /* every LID phase II writes */
    uint32_t num_assigned, capacity;
    struct leaf_node *nodes; /* one leaf's compute nodes */
    uint64_t *path_load;     /* one leaf's paths, weights mode */
};

static int add_assignment(struct phase2 *p, uint16_t lid, uint32_t column, struct cs_error *err)
{
    if (cs_grow((void **)&p->assigned, &p->capacity, (uint64_t)p->num_assigned + 1,
                sizeof *p->assigned, err) < 0)
        return -1;
    p->assigned[p->num_assigned++] = (struct assignment){.column = column, .lid = lid};
    return 0;
}

/* The compute nodes of leaf switch n (fabric node) in port order, keyed for the mode. */
static uint32_t leaf_nodes(struct phase2 *p, uint32_t n)
{
    const struct cs_fabric *f = p->f;
    const struct cs_node *leaf = &f->nodes[n];
    bool ordered = p->in->node_order && p->in->node_order->count;
    uint32_t count = 0;
    for (unsigned port = 1; port <= leaf->num_ports; port++) {
        uint32_t q = f->ports[leaf->first_port + port].peer;
        if (q == CS_NONE || f->nodes[f->ports[q].node].type != CS_NODE_CA || !f->ports[q].lid)
            continue;
        uint64_t guid = f->ports[q].guid;
        if (p->opt && p->opt->cn_guids && cs_key_index_find(&p->cns, guid) == CS_NONE)
            continue;
        struct leaf_node *x = &p->nodes[count++];
        *x = (struct leaf_node){.key = port, .lid = f->ports[q].lid, .port = (uint8_t)port};
        if (ordered) { /* named nodes first, by position; then the rest in port order */
            uint32_t pos = cs_key_index_find(&p->order, guid);
            x->key = pos == CS_NONE ? (UINT64_C(1) << 40) + port : (uint64_t)pos << 8 | port;
        } else if (p->in->weights) { /* heaviest first, then port order */
            x->weight = cs_node_weights_find(p->in->weights, guid);
            x->key = (uint64_t)(UINT32_MAX - x->weight) << 8 | port;
        }
    }
    qsort(p->nodes, count, sizeof *p->nodes, by_key);
    return count;
}

static int assign_leaf(struct phase2 *p, uint32_t i, uint32_t n, struct cs_error *err)
{
    const struct cs_metabase *mb = p->mb;
    uint32_t paths = mb->leaf_paths[i];
    uint32_t count = leaf_nodes(p, n);
    if (paths == 0)
        return 0;
    bool weighted = !(p->in->node_order && p->in->node_order->count) && p->in->weights;
    memset(p->path_load, 0, (size_t)paths * sizeof *p->path_load);
    for (uint32_t k = 0; k < count; k++) {
        uint32_t path = k % paths;
        if (weighted) {
            path = 0;
            for (uint32_t j = 1; j < paths; j++)
                if (p->path_load[j] < p->path_load[path])
                    path = j;
            p->path_load[path] += p->nodes[k].weight;
        }
        if (add_assignment(p, p->nodes[k].lid, i * mb->paths + path, err) < 0)
            return -1;
    }
    return 0;
}

/* Copy the columns into the tables, switch by switch, LIDs ascending; then the leaves' entries. */
static void write_tables(struct phase2 *p)
{
    const struct cs_metabase *mb = p->mb;
    qsort(p->assigned, p->num_assigned, sizeof *p->assigned, by_lid);
    for (uint32_t s = 0; s < mb->num_switches; s++) {
        if (p->table_of[s] == CS_NONE)
            continue;
        uint8_t *table = cs_lfts_table(p->lfts, p->table_of[s]);
        const uint8_t *row = cs_metabase_row(mb, s);
        for (uint32_t a = 0; a < p->num_assigned; a++)
            table[p->assigned[a].lid] = row[p->assigned[a].column];
    }
}

static int phase_two(struct phase2 *p, struct cs_error *err)
{
    const struct cs_fabric *f = p->f;
    const struct cs_metabase *mb = p->mb;
    struct cs_lfts *lfts = p->lfts;
    int rc = -1;
    for (uint32_t t = 0; t < lfts->num_switches; t++)
        if (cs_key_index_add(&p->tables, lfts->switches[t].guid, t, err) < 0)
            return -1;
    cs_key_index_sort(&p->tables);
    if (p->in->node_order) {
        const struct cs_guid_list *order = p->in->node_order;
        for (uint32_t k = 0; k < order->count; k++)
            if (cs_key_index_add(&p->order, order->guids[k], k, err) < 0)
                return -1;
        cs_key_index_sort(&p->order); /* a repeated GUID: its first position (smallest value) */
    }
    if (p->opt && p->opt->cn_guids) {
        for (uint32_t k = 0; k < p->opt->cn_guids->count; k++)
            if (cs_key_index_add(&p->cns, p->opt->cn_guids->guids[k], k, err) < 0)
                return -1;
        cs_key_index_sort(&p->cns);
    }
    unsigned most_ports = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].num_ports > most_ports)
            most_ports = f->nodes[n].num_ports;
    p->table_of = cs_calloc_array(mb->num_switches + 1, sizeof *p->table_of, err);
    p->nodes = cs_calloc_array(most_ports + 1, sizeof *p->nodes, err);
    p->path_load = cs_calloc_array(mb->paths + 1, sizeof *p->path_load, err);
    if (!p->table_of || !p->nodes || !p->path_load)
        return -1;
    for (uint32_t s = 0; s < mb->num_switches; s++) {
        p->table_of[s] = cs_key_index_find(&p->tables, mb->switch_guids[s]);
        if (p->table_of[s] == CS_NONE)
            return cs_fail(err, "mftree: the metabase's switch 0x%016llx is not in the fabric",
                           (unsigned long long)mb->switch_guids[s]);
    }
    for (uint32_t i = 0; i < mb->num_leaves; i++) {
        uint32_t t = cs_key_index_find(&p->tables, mb->leaf_guids[i]);
        if (t == CS_NONE)
            return cs_fail(err, "mftree: the metabase's leaf 0x%016llx is not in the fabric",
                           (unsigned long long)mb->leaf_guids[i]);
        if (assign_leaf(p, i, lfts->switches[t].node, err) < 0)
            return -1;
    }
    /* The rest by GUID: a switch by its node GUID, a CA port by its port GUID. */
    struct cs_key_index ports;
    cs_key_index_init(&ports);
    if (cs_key_index_ports(&ports, f, err) < 0)
        goto out;
    for (uint32_t r = 0; r < mb->num_rest; r++) {
        uint64_t guid = mb->rest_guids[r];
        uint32_t t = cs_key_index_find(&p->tables, guid);
        uint16_t lid = 0;
        if (t != CS_NONE)
            lid = lfts->switches[t].lid;
        else if ((t = cs_key_index_find(&ports, guid)) != CS_NONE)
            lid = f->ports[t].lid;
        if (lid && lid <= lfts->max_lid &&
            add_assignment(p, lid, mb->num_leaves * mb->paths + r, err) < 0)
            goto out;
    }
    write_tables(p);
    /* Each leaf's entries to its own nodes. */
    for (uint32_t i = 0; i < mb->num_leaves; i++) {
        uint32_t t = cs_key_index_find(&p->tables, mb->leaf_guids[i]);
        if (mb->leaf_paths[i] == 0)
            continue;
        uint32_t count = leaf_nodes(p, lfts->switches[t].node);
        for (uint32_t k = 0; k < count; k++)
            cs_lfts_set(lfts, t, p->nodes[k].lid, p->nodes[k].port);
    }
    rc = 0;
out:
    cs_key_index_free(&ports);
    return rc;
}

/* The metabase for this routing: the state's, the file's, or phase I's (then kept in both). */
static int find_metabase(const struct cs_fabric *f, const struct cs_route_options *opt,
                         const struct cs_route_inputs *in, struct cs_metabase **out, bool *owned,
                         struct cs_route_result *res, struct cs_error *err)
{
    uint64_t fingerprint;
    if (cs_metabase_fingerprint(f, opt, in->metabase_paths, &fingerprint, err) < 0)
        return -1;
    double start = cs_clock_ms();
    struct cs_route_state *state = in->state;
    if (state && state->metabase && state->metabase->fingerprint == fingerprint) {
        *out = state->metabase;
        *owned = false;
        res->build_kept = true;
        res->build_ms = cs_clock_ms() - start;
        return 0;
    }
    struct cs_metabase *mb = calloc(1, sizeof *mb);
    if (!mb)
        return cs_fail(err, "out of memory");
    int got = 0;
    if (in->metabase_file)
        got = cs_metabase_load(in->metabase_file, fingerprint, in->log, mb, err);
    if (got < 0) {
        cs_metabase_delete(mb);
        return -1;
    }
    res->build_kept = got == 1;
    if (got == 0) {
        int rc = cs_metabase_build(f, opt, in->metabase_paths, fingerprint, mb, err);
        if (rc != 0) {
            cs_metabase_delete(mb);
            return rc;
        }
        struct cs_error save_err;
        if (in->metabase_file && cs_metabase_save(in->metabase_file, mb, &save_err) < 0)
            cs_logf(in->log, CS_LOG_ERROR, "mftree: the metabase was not saved: %s", save_err.msg);
    }
    res->build_ms = cs_clock_ms() - start;
    if (state) {
        cs_metabase_delete(state->metabase);
        state->metabase = mb;
        *owned = false;
    } else {
        *owned = true;
    }
    *out = mb;
    return 0;
}

int cs_route_mftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err)
{
    struct cs_metabase *mb = NULL;
    bool owned = false;
    int rc = find_metabase(f, opt, in, &mb, &owned, res, err);
    if (rc != 0)
        return rc;
    struct phase2 p = {.f = f, .opt = opt, .in = in, .mb = mb, .lfts = lfts};
    cs_key_index_init(&p.tables);
    cs_key_index_init(&p.order);
    cs_key_index_init(&p.cns);
    rc = phase_two(&p, err);
    if (rc == 0)
        cs_lfts_mark_all(lfts);
    cs_key_index_free(&p.tables);
    cs_key_index_free(&p.order);
    cs_key_index_free(&p.cns);
    free(p.table_of);
    free(p.assigned);
    free(p.nodes);
    free(p.path_load);
    if (owned)
        cs_metabase_delete(mb);
    return rc;
}
