/* Partitions on a live fabric: P_Key tables and partition enforcement (include/cloudsm/sm.h).
 *
 * The rules are those of OpenSM 3.3.23's P_Key manager with keep_pkey_indexes TRUE, its default
 * (opensm/osm_pkey_mgr.c and osm_pkey.c; facts only, the code is ours), and every one that shows
 * on ibsim was checked there: OpenSM -P FILE on tests/data/lft/ft2x2.net, tables read back with
 * smpquery pkeys (tests/unit/test_sm_pkeys.c holds what it printed).
 *
 * A port's P_Keys are considered in OpenSM's order: partitions as its partition map sorts them
 * (by the P_Key in network byte order, read as a little-endian number: 0x0100 before 0x0002),
 * limited membership before full within a partition. A P_Key the port already holds keeps its
 * index, except that index 0 belongs to Default (0x7fff) or to the partition flagged indx0; the
 * others follow the highest index kept, in that order, and only when the table is full are the
 * holes from index 1 on used. What still does not fit is dropped (OpenSM's ERR 0512). Each
 * heavy sweep works like a freshly started OpenSM: only what the ports hold is remembered.
 */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/partitions.h"
#include "cloudsm/sm.h"
#include "core/grow.h"
#include "sm/phase.h"

#define BLOCK CS_PKEYS_PER_BLOCK
#define IBA_DEFAULT_PKEY 0xffffu /* what a port holds at index 0 before any SM programs it */

static uint16_t pkey_base(uint16_t k)
{
    return k & CS_PKEY_MASK;
}

static uint32_t blocks_of(uint16_t capacity)
{
    return ((uint32_t)capacity + BLOCK - 1) / BLOCK;
}

void cs_sm_pkey_tables_init(struct cs_sm_pkey_tables *t)
{
    memset(t, 0, sizeof *t);
}

void cs_sm_pkey_tables_free(struct cs_sm_pkey_tables *t)
{
    free(t->capacity);
    free(t->first);
    free(t->pkeys);
    free(t->known);
    free(t->enforce);
    cs_sm_pkey_tables_init(t);
}

/* n ports with these capacities (NULL: none), tables zeroed, nothing known, enforcement kept. */
static int tables_alloc(struct cs_sm_pkey_tables *t, uint32_t n, const uint16_t *capacity,
                        struct cs_error *err)
{
    cs_sm_pkey_tables_free(t);
    uint32_t slots = n ? n : 1;
    t->capacity = cs_calloc_array(slots, sizeof *t->capacity, err);
    t->first = cs_calloc_array(slots, sizeof *t->first, err);
    t->known = cs_calloc_array(slots, sizeof *t->known, err);
    t->enforce = cs_calloc_array(slots, sizeof *t->enforce, err);
    if (t->capacity == NULL || t->first == NULL || t->known == NULL || t->enforce == NULL)
        goto fail;
    t->num_ports = n;
    uint64_t total = 0;
    for (uint32_t p = 0; p < n; p++) {
        t->capacity[p] = capacity ? capacity[p] : 0;
        t->first[p] = total;
        total += (uint64_t)blocks_of(t->capacity[p]) * BLOCK;
    }
    t->pkeys = cs_calloc_array(total ? total : 1, sizeof *t->pkeys, err);
    if (t->pkeys == NULL)
        goto fail;
    t->num_pkeys = total;
    memset(t->enforce, CS_SM_ENFORCE_KEEP, slots);
    return 0;
fail:
    cs_sm_pkey_tables_free(t);
    return -1;
}

/* ---- Which ports have tables ---- */

/* A CA or router port in OpenSM's port table: one the sweep reached over a cable. */
static bool endport_known(const struct cs_fabric *f, uint32_t p)
{
    const struct cs_port *port = &f->ports[p];
    return port->num != 0 && port->peer != CS_NONE && port->guid != 0 &&
           !cs_node_is_switch(&f->nodes[port->node]);
}

/* The known end port a switch's external port is cabled to, or CS_NONE. */
static uint32_t facing_endport(const struct cs_fabric *f, uint32_t p)
{
    const struct cs_port *port = &f->ports[p];
    if (port->num == 0 || port->peer == CS_NONE || !cs_node_is_switch(&f->nodes[port->node]))
        return CS_NONE;
    return endport_known(f, port->peer) ? port->peer : CS_NONE;
}

/* The route and attribute modifier of a P_KeyTable request for block b of port slot p: a switch
 * is addressed through itself with the port number in bits 16..23, an end port through the link
 * it is reached by (a CA answers for the port the SMP arrived on). */
static bool pkey_route(const struct cs_sm_sweep *s, uint32_t p, uint32_t b, struct cs_dr_path *path,
                       uint32_t *mod)
{
    const struct cs_port *port = &s->fabric.ports[p];
    if (cs_node_is_switch(&s->fabric.nodes[port->node])) {
        *path = s->path[port->node];
        *mod = b | (uint32_t)port->num << 16;
        return true;
    }
    *mod = b;
    return cs_sm_port_path(s, p, path);
}

static void log_no_route(const struct cs_sm_sweep *s, const struct cs_log *log, uint32_t p)
{
    const struct cs_port *port = &s->fabric.ports[p];
    const struct cs_node *n = &s->fabric.nodes[port->node];
    cs_logf(log, CS_LOG_WARN, "no directed route to port %u of 0x%016llx \"%s\"", port->num,
            (unsigned long long)n->guid, n->desc);
}

/* ---- Reading what the ports hold ---- */

struct read_phase {
    const struct cs_sm_sweep *s;
    const struct cs_log *log;
    struct cs_sm_pkey_tables *held;
    uint16_t *partition_cap; /* [node] NodeInfo PartitionCap */
    bool *cap_known;         /* [node] */
    unsigned failures;
};

struct read_job {
    struct read_phase *ph;
    uint32_t index; /* node (NodeInfo) or port slot (P_KeyTable) */
    uint32_t block;
};

static int node_info_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                          const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct read_job *job = arg;
    struct read_phase *ph = job->ph;
    const struct cs_node *n = &ph->s->fabric.nodes[job->index];
    if (cs_sm_smp_failed(ph->s, ph->log, job->index, result, req, reply)) {
        ph->failures++;
        return 0;
    }
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(reply->data, &ni);
    if (ni.node_guid != n->guid) {
        /* Another node answers where the sweep found this one: the fabric changed under us. */
        ph->failures++;
        cs_logf(ph->log, CS_LOG_WARN,
                "NodeInfo for 0x%016llx \"%s\" came from 0x%016llx: its P_Key tables are left "
                "alone",
                (unsigned long long)n->guid, n->desc, (unsigned long long)ni.node_guid);
        return 0;
    }
    ph->partition_cap[job->index] = ni.partition_cap;
    ph->cap_known[job->index] = true;
    return 0;
}

static int block_read_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                           const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct read_job *job = arg;
    struct read_phase *ph = job->ph;
    struct cs_sm_pkey_tables *held = ph->held;
    uint32_t p = job->index;
    if (cs_sm_smp_failed(ph->s, ph->log, ph->s->fabric.ports[p].node, result, req, reply)) {
        ph->failures++;
        held->known[p] = false;
        return 0;
    }
    struct cs_smp_pkey_block got;
    cs_smp_pkey_block_decode(reply->data, &got);
    uint16_t *dst = cs_sm_pkey_table(held, p) + (size_t)job->block * BLOCK;
    for (unsigned i = 0; i < BLOCK; i++)
        /* Entries past the table's end are not the port's, whatever the agent says. */
        dst[i] = job->block * BLOCK + i < held->capacity[p] ? got.pkey[i] : 0;
    return 0;
}

/* NodeInfo of every node that has a table to program: the CAs' and routers' PartitionCap, and
 * the switches' (the size of the table of port 0). */
static int read_capacities(struct cs_smp_pipe *pipe, struct read_phase *ph,
                           struct cs_sm_pkey_counts *counts, struct cs_error *err)
{
    const struct cs_sm_sweep *s = ph->s;
    const struct cs_fabric *f = &s->fabric;
    struct read_job *jobs = cs_calloc_array(f->num_nodes ? f->num_nodes : 1, sizeof *jobs, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t n = 0; n < f->num_nodes && rc == 0; n++) {
        const struct cs_node *node = &f->nodes[n];
        struct cs_dr_path path;
        if (cs_node_is_switch(node)) {
            path = s->path[n];
        } else {
            uint32_t p = CS_NONE;
            for (unsigned num = 1; num <= node->num_ports && p == CS_NONE; num++)
                if (endport_known(f, node->first_port + num))
                    p = node->first_port + num;
            if (p == CS_NONE)
                continue; /* no port OpenSM would know: nothing to program */
            if (!cs_sm_port_path(s, p, &path)) {
                ph->failures++;
                log_no_route(s, ph->log, p);
                continue;
            }
        }
        jobs[n] = (struct read_job){ph, n, 0};
        counts->node_info_gets++;
        rc = cs_sm_submit_dr(pipe, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, &path, NULL,
                             node_info_done, &jobs[n], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    return rc;
}

int cs_sm_read_pkeys(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                     struct cs_sm_pkey_tables *held, const struct cs_log *log,
                     struct cs_sm_pkey_counts *counts, struct cs_error *err)
{
    *counts = (struct cs_sm_pkey_counts){0};
    cs_sm_pkey_tables_free(held);
    const struct cs_fabric *f = &s->fabric;
    struct read_phase ph = {.s = s, .log = log, .held = held};
    uint32_t nodes = f->num_nodes ? f->num_nodes : 1;
    ph.partition_cap = cs_calloc_array(nodes, sizeof *ph.partition_cap, err);
    ph.cap_known = cs_calloc_array(nodes, sizeof *ph.cap_known, err);
    uint16_t *capacity =
        cs_calloc_array(f->num_port_slots ? f->num_port_slots : 1, sizeof *capacity, err);
    struct read_job *jobs = NULL;
    int rc = -1;
    if (ph.partition_cap == NULL || ph.cap_known == NULL || capacity == NULL)
        goto out;
    if (read_capacities(pipe, &ph, counts, err) < 0)
        goto out;

    uint64_t num_blocks = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        bool sw = cs_node_is_switch(&f->nodes[port->node]);
        if ((sw && port->num == 0) || endport_known(f, p))
            capacity[p] = ph.cap_known[port->node] ? ph.partition_cap[port->node] : 0;
        else if (facing_endport(f, p) != CS_NONE)
            capacity[p] = s->switch_info[port->node].partition_enforcement_cap;
        num_blocks += blocks_of(capacity[p]);
    }
    if (tables_alloc(held, f->num_port_slots, capacity, err) < 0)
        goto out;
    jobs = cs_calloc_array(num_blocks ? num_blocks : 1, sizeof *jobs, err);
    if (jobs == NULL)
        goto out;
    rc = 0;
    uint64_t j = 0;
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++) {
        held->known[p] = capacity[p] != 0;
        for (uint32_t b = 0; b < blocks_of(capacity[p]) && rc == 0; b++) {
            struct cs_dr_path path;
            uint32_t mod;
            if (!pkey_route(s, p, b, &path, &mod)) {
                ph.failures++;
                held->known[p] = false;
                log_no_route(s, log, p);
                break;
            }
            jobs[j] = (struct read_job){&ph, p, b};
            counts->blocks_read++;
            rc = cs_sm_submit_dr(pipe, CS_SMP_METHOD_GET, CS_SMP_ATTR_PKEY_TABLE, mod, &path, NULL,
                                 block_read_done, &jobs[j++], err);
        }
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
out:
    free(jobs);
    free(capacity);
    free(ph.partition_cap);
    free(ph.cap_known);
    counts->failures = ph.failures;
    if (rc < 0) {
        cs_sm_pkey_tables_free(held);
        return -1;
    }
    cs_logf(log, CS_LOG_DEBUG, "pkeys: read %llu blocks (%llu NodeInfo), %u failures",
            (unsigned long long)counts->blocks_read, (unsigned long long)counts->node_info_gets,
            ph.failures);
    return (int)ph.failures;
}

/* ---- What the ports must hold ---- */

/* Two table entries are the same P_Key: with allow_both_pkeys the membership bit counts. */
static bool same_key(uint16_t a, uint16_t b, bool allow_both)
{
    return allow_both ? a == b : pkey_base(a) == pkey_base(b);
}

static bool is_default(uint16_t k, bool allow_both)
{
    return allow_both ? k == IBA_DEFAULT_PKEY : pkey_base(k) == CS_PKEY_DEFAULT;
}

/* OpenSM's partition map is keyed by the P_Key as it sits in memory in network byte order, so on
 * a little-endian host it sorts by the byte-swapped value. */
static uint16_t map_order(uint16_t pkey)
{
    return (uint16_t)(pkey >> 8 | pkey << 8);
}

struct ordered {
    uint16_t key;
    uint32_t partition;
};

static int by_map_order(const void *a, const void *b)
{
    const struct ordered *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1)
                            : (x->partition < y->partition ? -1 : x->partition > y->partition);
}

/* Every port's P_Keys in OpenSM's order, as lists: port p's are keys[start[p] .. start[p+1]). */
struct wanted {
    uint32_t *start;
    uint16_t *keys;
    uint16_t *indx0; /* [p] the P_Key for index 0 (with its membership bit), 0: none */
};

static void wanted_free(struct wanted *w)
{
    free(w->start);
    free(w->keys);
    free(w->indx0);
}

static int wanted_build(const struct cs_partition_set *set, const struct cs_partitions *config,
                        uint32_t num_ports, struct wanted *w, struct cs_error *err)
{
    memset(w, 0, sizeof *w);
    struct ordered *order = cs_calloc_array(set->count ? set->count : 1, sizeof *order, err);
    uint32_t *fill = cs_calloc_array((uint64_t)num_ports + 1, sizeof *fill, err);
    w->start = cs_calloc_array((uint64_t)num_ports + 1, sizeof *w->start, err);
    w->indx0 = cs_calloc_array(num_ports ? num_ports : 1, sizeof *w->indx0, err);
    if (order == NULL || fill == NULL || w->start == NULL || w->indx0 == NULL)
        goto fail;
    for (uint32_t i = 0; i < set->count; i++)
        order[i] = (struct ordered){map_order(set->partitions[i].pkey), i};
    qsort(order, set->count, sizeof *order, by_map_order);

    for (uint64_t m = 0; m < set->num_ports; m++) {
        const struct cs_partition_port *pp = &set->ports[m];
        if (pp->port >= num_ports)
            continue;
        w->start[pp->port + 1] += (pp->membership & CS_MEMBER_LIMITED ? 1u : 0u) +
                                  (pp->membership & CS_MEMBER_FULL ? 1u : 0u);
    }
    for (uint32_t p = 0; p < num_ports; p++)
        w->start[p + 1] += w->start[p];
    w->keys = cs_calloc_array(w->start[num_ports] ? w->start[num_ports] : 1, sizeof *w->keys, err);
    if (w->keys == NULL)
        goto fail;
    memcpy(fill, w->start, ((size_t)num_ports + 1) * sizeof *fill);
    /* OpenSM walks each partition's limited members, then its full members. */
    for (uint32_t o = 0; o < set->count; o++) {
        const struct cs_resolved_partition *rp = &set->partitions[order[o].partition];
        for (uint32_t m = rp->first; m < rp->first + rp->count; m++)
            if (set->ports[m].port < num_ports && set->ports[m].membership & CS_MEMBER_LIMITED)
                w->keys[fill[set->ports[m].port]++] = rp->pkey;
        for (uint32_t m = rp->first; m < rp->first + rp->count; m++)
            if (set->ports[m].port < num_ports && set->ports[m].membership & CS_MEMBER_FULL)
                w->keys[fill[set->ports[m].port]++] = rp->pkey | CS_PKEY_FULL_BIT;
    }
    /* indx0: the last partition (in file order) flagged so that has the port wins. A port that
     * is both a full and a limited member gets the limited P_Key there, as OpenSM adds the full
     * membership first. */
    for (uint32_t i = 0; config != NULL && i < set->count; i++) {
        const struct cs_resolved_partition *rp = &set->partitions[i];
        if (rp->config_index >= config->count || !config->partitions[rp->config_index].indx0)
            continue;
        for (uint32_t m = rp->first; m < rp->first + rp->count; m++)
            if (set->ports[m].port < num_ports)
                w->indx0[set->ports[m].port] = set->ports[m].membership == CS_MEMBER_FULL
                                                   ? rp->pkey | CS_PKEY_FULL_BIT
                                                   : rp->pkey;
    }
    free(order);
    free(fill);
    return 0;
fail:
    free(order);
    free(fill);
    wanted_free(w);
    return -1;
}

/* One port's table, as OpenSM lays it out (see the top of the file). */
struct layout {
    const uint16_t *keys; /* the port's P_Keys in OpenSM's order */
    uint32_t count;
    const uint16_t *held; /* what it holds: capacity entries */
    uint16_t capacity;
    uint16_t indx0;
    bool allow_both;
    uint16_t *out;    /* capacity entries, zeroed */
    uint32_t *placed; /* scratch: count entries */
};

#define NOT_PLACED UINT32_MAX

/* Index of the first entry of the held table that is the P_Key k, or NOT_PLACED. */
static uint32_t held_index(const struct layout *l, uint16_t k)
{
    for (uint32_t i = 0; i < l->capacity; i++)
        if (pkey_base(l->held[i]) != 0 && same_key(l->held[i], k, l->allow_both))
            return i;
    return NOT_PLACED;
}

/* Where k stays when the port already holds it, or NOT_PLACED when it moves like a new one:
 * index 0 is only for Default or the indx0 P_Key, and those always go there. */
static uint32_t kept_index(const struct layout *l, uint16_t k)
{
    uint32_t i = held_index(l, k);
    if (i == NOT_PLACED)
        return i;
    if (l->indx0 != 0) {
        bool is_indx0 = same_key(k, l->indx0, l->allow_both);
        return is_indx0 == (i == 0) ? i : NOT_PLACED;
    }
    if (i == 0)
        return pkey_base(k) == CS_PKEY_DEFAULT ? 0 : NOT_PLACED;
    return is_default(k, l->allow_both) ? NOT_PLACED : i;
}

/* Lay the table out; returns how many P_Keys did not fit (their placed[] stay NOT_PLACED). */
static uint32_t lay_out(struct layout *l)
{
    uint32_t end = 0; /* one past the highest index used so far */
    for (uint32_t i = 0; i < l->count; i++) {
        l->placed[i] = kept_index(l, l->keys[i]);
        if (l->placed[i] != NOT_PLACED) {
            l->out[l->placed[i]] = l->keys[i];
            if (l->placed[i] + 1 > end)
                end = l->placed[i] + 1;
        }
    }
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < l->count; i++) {
        if (l->placed[i] != NOT_PLACED)
            continue;
        uint16_t k = l->keys[i];
        uint32_t at;
        if (l->indx0 == 0 ? is_default(k, l->allow_both) : same_key(k, l->indx0, l->allow_both))
            at = 0;
        else
            at = end ? end : 1; /* index 0 stays for Default or the indx0 P_Key */
        if (at >= l->capacity) {
            /* Full: a hole from index 1 on (never for Default, which only goes to index 0). */
            at = NOT_PLACED;
            for (uint32_t h = 1; h < l->capacity && !is_default(k, l->allow_both); h++)
                if (pkey_base(l->out[h]) == 0) {
                    at = h;
                    break;
                }
            if (at == NOT_PLACED) {
                dropped++;
                continue;
            }
        }
        l->out[at] = k;
        l->placed[i] = at;
        if (at + 1 > end)
            end = at + 1;
    }
    return dropped;
}

static void log_dropped(const struct cs_sm_sweep *s, const struct cs_log *log, uint32_t p,
                        const struct layout *l)
{
    const struct cs_port *port = &s->fabric.ports[p];
    const struct cs_node *n = &s->fabric.nodes[port->node];
    for (uint32_t i = 0; i < l->count; i++)
        if (l->placed[i] == NOT_PLACED)
            cs_logf(log, CS_LOG_WARN,
                    "P_Key 0x%04x does not fit the %u-entry P_Key table of port %u of "
                    "0x%016llx \"%s\": left out",
                    l->keys[i], l->capacity, port->num, (unsigned long long)n->guid, n->desc);
}

/* A switch port facing end port q gets q's P_Keys packed from index 0, without a limited entry
 * whose full twin is there too. Returns how many there are (more than the capacity: they did
 * not all fit). */
static uint32_t pack_for_switch(const uint16_t *ca, uint16_t ca_capacity, uint16_t *out,
                                uint16_t capacity)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ca_capacity; i++) {
        uint16_t k = ca[i];
        if (pkey_base(k) == 0)
            continue;
        bool twin = false;
        for (uint32_t j = 0; j < ca_capacity && !(k & CS_PKEY_FULL_BIT) && !twin; j++)
            twin = ca[j] == (k | CS_PKEY_FULL_BIT);
        if (twin)
            continue;
        if (n < capacity)
            out[n] = k;
        n++;
    }
    return n;
}

static uint8_t enforce_bits(enum cs_sm_part_enforce mode, const struct cs_smp_switch_info *si)
{
    uint8_t bits = mode == CS_SM_PART_ENFORCE_BOTH  ? CS_SM_ENFORCE_INBOUND | CS_SM_ENFORCE_OUTBOUND
                   : mode == CS_SM_PART_ENFORCE_IN  ? CS_SM_ENFORCE_INBOUND
                   : mode == CS_SM_PART_ENFORCE_OUT ? CS_SM_ENFORCE_OUTBOUND
                                                    : 0;
    /* Unlike OpenSM, only what the switch says it can do (SwitchInfo Inbound/Outbound-
     * EnforcementCap): ibsim's switches can do neither and drop the bits, and asking again on
     * every sweep would change nothing. */
    if (!si->inbound_enforcement_cap)
        bits &= (uint8_t)~CS_SM_ENFORCE_INBOUND;
    if (!si->outbound_enforcement_cap)
        bits &= (uint8_t)~CS_SM_ENFORCE_OUTBOUND;
    return bits;
}

int cs_sm_pkey_tables(const struct cs_sm_sweep *s, const struct cs_partition_set *set,
                      const struct cs_sm_pkey_options *opt, const struct cs_sm_pkey_tables *held,
                      struct cs_sm_pkey_tables *want, const struct cs_log *log,
                      struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    cs_sm_pkey_tables_free(want);
    if (held->num_ports != f->num_port_slots)
        return cs_fail(err,
                       "the P_Key tables held are for %u ports, the sweep has %u: read them back "
                       "first",
                       held->num_ports, f->num_port_slots);
    const struct cs_sm_pkey_options none = {0};
    if (opt == NULL)
        opt = &none;
    bool off = opt->part_enforce == CS_SM_PART_ENFORCE_OFF;

    uint16_t *capacity =
        cs_calloc_array(f->num_port_slots ? f->num_port_slots : 1, sizeof *capacity, err);
    if (capacity == NULL)
        return -1;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        uint32_t q = facing_endport(f, p);
        /* A switch port gets a table only for a CA that has one, and only with enforcement. */
        bool switch_side = q != CS_NONE;
        capacity[p] = switch_side && (off || held->capacity[q] == 0) ? 0 : held->capacity[p];
    }
    struct wanted w;
    uint32_t most = 0;
    int rc = tables_alloc(want, f->num_port_slots, capacity, err);
    free(capacity);
    if (rc < 0 || wanted_build(set, opt->config, f->num_port_slots, &w, err) < 0) {
        cs_sm_pkey_tables_free(want);
        return -1;
    }
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (w.start[p + 1] - w.start[p] > most)
            most = w.start[p + 1] - w.start[p];
    uint32_t *placed = cs_calloc_array(most ? most : 1, sizeof *placed, err);
    uint16_t iba_default[BLOCK] = {IBA_DEFAULT_PKEY};
    uint16_t *scratch = NULL;
    if (placed == NULL) {
        wanted_free(&w);
        cs_sm_pkey_tables_free(want);
        return -1;
    }

    uint32_t dropped = 0, tables = 0, unenforced = 0;
    /* End ports and switch ports 0 first: the switch ports facing CAs copy the CAs' tables. */
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        uint16_t cap = want->capacity[p];
        if (cap == 0 || facing_endport(f, p) != CS_NONE)
            continue;
        const uint16_t *now = cs_sm_pkey_table(held, p);
        if (!held->known[p]) {
            /* Unknown: taken as the IBA default table, with room to the port's capacity. */
            if (cap > BLOCK) {
                free(scratch);
                scratch = cs_calloc_array(cap, sizeof *scratch, err);
                if (scratch == NULL) {
                    rc = -1;
                    break;
                }
                scratch[0] = IBA_DEFAULT_PKEY;
                now = scratch;
            } else {
                now = iba_default;
            }
        }
        struct layout l = {
            .keys = w.keys + w.start[p],
            .count = w.start[p + 1] - w.start[p],
            .held = now,
            .capacity = cap,
            .indx0 = w.indx0[p],
            .allow_both = opt->allow_both_pkeys,
            .out = cs_sm_pkey_table(want, p),
            .placed = placed,
        };
        uint32_t lost = lay_out(&l);
        if (lost) {
            dropped += lost;
            log_dropped(s, log, p, &l);
        }
        want->known[p] = true;
        tables++;
    }
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++) {
        const struct cs_port *port = &f->ports[p];
        if (port->num == 0 || !cs_node_is_switch(&f->nodes[port->node]))
            continue;
        const struct cs_smp_switch_info *si = &s->switch_info[port->node];
        uint32_t q = facing_endport(f, p);
        if (port->peer != CS_NONE && q == CS_NONE &&
            cs_node_is_switch(&f->nodes[f->ports[port->peer].node])) {
            want->enforce[p] = 0; /* OpenSM clears enforcement between switches */
            continue;
        }
        if (q == CS_NONE || si->partition_enforcement_cap == 0 || held->capacity[q] == 0)
            continue; /* OpenSM leaves a switch without P_Key tables alone */
        if (off) {
            want->enforce[p] = 0;
            continue;
        }
        uint32_t n = pack_for_switch(cs_sm_pkey_table(want, q), want->capacity[q],
                                     cs_sm_pkey_table(want, p), want->capacity[p]);
        want->known[p] = true;
        tables++;
        want->enforce[p] = enforce_bits((enum cs_sm_part_enforce)opt->part_enforce, si);
        if (n > want->capacity[p]) {
            /* The switch could not enforce what it cannot hold (OpenSM's ERR 0507/0508). */
            want->enforce[p] = 0;
            unenforced++;
            const struct cs_node *sw = &f->nodes[port->node];
            cs_logf(log, CS_LOG_WARN,
                    "the %u P_Keys of port %u of 0x%016llx do not fit the %u-entry table of "
                    "port %u of switch 0x%016llx \"%s\": no partition enforcement there",
                    n, f->ports[q].num, (unsigned long long)f->nodes[f->ports[q].node].guid,
                    want->capacity[p], port->num, (unsigned long long)sw->guid, sw->desc);
        }
    }
    free(scratch);
    free(placed);
    wanted_free(&w);
    if (rc < 0) {
        cs_sm_pkey_tables_free(want);
        return -1;
    }
    cs_logf(log, CS_LOG_DEBUG,
            "pkeys: %u tables from %u partitions, %u P_Keys left out, %u switch ports without "
            "enforcement for lack of room",
            tables, set->count, dropped, unenforced);
    return (int)dropped;
}

/* ---- Programming ---- */

struct program_phase {
    struct cs_sm_sweep *s;
    const struct cs_log *log;
    const struct cs_sm_pkey_tables *want;
    struct cs_sm_pkey_tables *held;
    unsigned failures;
};

struct program_job {
    struct program_phase *ph;
    uint32_t port;
    uint32_t block;
};

static int block_set_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                          const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct program_job *job = arg;
    struct program_phase *ph = job->ph;
    struct cs_sm_pkey_tables *held = ph->held;
    uint32_t p = job->port;
    if (cs_sm_smp_failed(ph->s, ph->log, ph->s->fabric.ports[p].node, result, req, reply)) {
        ph->failures++;
        held->known[p] = false; /* the Set may or may not have landed */
        return 0;
    }
    /* Keep what the port answers it now holds: an agent that stores less than it was sent is
     * then written again, and logged, on the next call rather than believed. */
    struct cs_smp_pkey_block got;
    cs_smp_pkey_block_decode(reply->data, &got);
    uint16_t *dst = cs_sm_pkey_table(held, p) + (size_t)job->block * BLOCK;
    for (unsigned i = 0; i < BLOCK; i++)
        dst[i] = job->block * BLOCK + i < held->capacity[p] ? got.pkey[i] : 0;
    return 0;
}

static int enforce_set_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                            const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct program_job *job = arg;
    struct program_phase *ph = job->ph;
    struct cs_sm_sweep *s = ph->s;
    if (cs_sm_smp_failed(s, ph->log, s->fabric.ports[job->port].node, result, req, reply)) {
        ph->failures++;
        return 0;
    }
    cs_smp_port_info_decode(reply->data, &s->port_info[job->port]);
    s->port_info_valid[job->port] = true;
    return 0;
}

static bool table_equal(const struct cs_sm_pkey_tables *a, const struct cs_sm_pkey_tables *b,
                        uint32_t p, uint32_t block)
{
    return memcmp(cs_sm_pkey_table(a, p) + (size_t)block * BLOCK,
                  cs_sm_pkey_table(b, p) + (size_t)block * BLOCK, BLOCK * sizeof(uint16_t)) == 0;
}

static int send_blocks(struct cs_smp_pipe *pipe, struct program_phase *ph, struct program_job *jobs,
                       struct cs_sm_pkey_counts *counts, uint32_t *ports_written,
                       struct cs_error *err)
{
    const struct cs_sm_pkey_tables *want = ph->want;
    struct cs_sm_pkey_tables *held = ph->held;
    uint64_t j = 0;
    int rc = 0;
    for (uint32_t p = 0; p < want->num_ports && rc == 0; p++) {
        if (want->capacity[p] == 0)
            continue;
        bool unknown = !held->known[p];
        bool written = false;
        /* Sent whole while unknown; it becomes known unless one of its Sets fails. */
        held->known[p] = true;
        for (uint32_t b = 0; b < blocks_of(want->capacity[p]) && rc == 0; b++) {
            if (!unknown && table_equal(want, held, p, b))
                continue;
            struct cs_dr_path path;
            uint32_t mod;
            if (!pkey_route(ph->s, p, b, &path, &mod)) {
                ph->failures++;
                held->known[p] = false;
                log_no_route(ph->s, ph->log, p);
                break;
            }
            struct cs_smp_pkey_block block;
            memcpy(block.pkey, cs_sm_pkey_table(want, p) + (size_t)b * BLOCK, sizeof block.pkey);
            uint8_t data[CS_SMP_DATA_SIZE];
            cs_smp_pkey_block_encode(&block, data);
            jobs[j] = (struct program_job){ph, p, b};
            counts->blocks_sent++;
            written = true;
            rc = cs_sm_submit_dr(pipe, CS_SMP_METHOD_SET, CS_SMP_ATTR_PKEY_TABLE, mod, &path, data,
                                 block_set_done, &jobs[j++], err);
        }
        *ports_written += written;
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    return rc;
}

static int send_enforcement(struct cs_smp_pipe *pipe, struct program_phase *ph,
                            struct program_job *jobs, struct cs_sm_pkey_counts *counts,
                            struct cs_error *err)
{
    struct cs_sm_sweep *s = ph->s;
    const struct cs_sm_pkey_tables *want = ph->want;
    int rc = 0;
    for (uint32_t p = 0; p < want->num_ports && rc == 0; p++) {
        uint8_t bits = want->enforce[p];
        if (bits == CS_SM_ENFORCE_KEEP)
            continue;
        const struct cs_port *port = &s->fabric.ports[p];
        const struct cs_node *n = &s->fabric.nodes[port->node];
        if (!s->port_info_valid[p]) {
            ph->failures++;
            cs_logf(ph->log, CS_LOG_WARN,
                    "no PortInfo of port %u of 0x%016llx \"%s\": its partition enforcement is "
                    "left as it is",
                    port->num, (unsigned long long)n->guid, n->desc);
            continue;
        }
        struct cs_smp_port_info pi = s->port_info[p];
        uint8_t now = (pi.partition_enforcement_inbound ? CS_SM_ENFORCE_INBOUND : 0) |
                      (pi.partition_enforcement_outbound ? CS_SM_ENFORCE_OUTBOUND : 0);
        if (now == bits)
            continue;
        bool table_right = true;
        for (uint32_t b = 0; b < blocks_of(want->capacity[p]); b++)
            table_right = table_right && table_equal(want, ph->held, p, b);
        if (bits != 0 && (!ph->held->known[p] || !table_right)) {
            /* Enforcing with a wrong table would cut the CA off its partitions. */
            cs_logf(ph->log, CS_LOG_WARN,
                    "port %u of 0x%016llx \"%s\": partition enforcement not switched on, its "
                    "P_Key table is not programmed",
                    port->num, (unsigned long long)n->guid, n->desc);
            continue;
        }
        pi.partition_enforcement_inbound = (bits & CS_SM_ENFORCE_INBOUND) != 0;
        pi.partition_enforcement_outbound = (bits & CS_SM_ENFORCE_OUTBOUND) != 0;
        /* 0 = "no change" for the states and the enable fields (as every PortInfo Set of the
         * core): this Set must move nothing but the two bits. */
        pi.port_state = CS_SMP_PORT_STATE_NO_CHANGE;
        pi.port_physical_state = 0;
        pi.link_width_enabled = 0;
        pi.link_speed_enabled = 0;
        pi.link_speed_ext_enabled = 0;
        uint8_t data[CS_SMP_DATA_SIZE];
        cs_smp_port_info_encode(&pi, data);
        jobs[p] = (struct program_job){ph, p, 0};
        counts->port_info_sets++;
        rc = cs_sm_submit_dr(pipe, CS_SMP_METHOD_SET, CS_SMP_ATTR_PORT_INFO, port->num,
                             &s->path[port->node], data, enforce_set_done, &jobs[p], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    return rc;
}

int cs_sm_program_pkeys(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                        const struct cs_sm_pkey_tables *want, struct cs_sm_pkey_tables *held,
                        const struct cs_log *log, struct cs_sm_pkey_counts *counts,
                        struct cs_error *err)
{
    *counts = (struct cs_sm_pkey_counts){0};
    if (want->num_ports != s->fabric.num_port_slots || held->num_ports != want->num_ports)
        return cs_fail(err,
                       "P_Key tables for %u and %u ports, the sweep has %u: the fabric changed "
                       "shape",
                       want->num_ports, held->num_ports, s->fabric.num_port_slots);
    uint64_t blocks = 0;
    for (uint32_t p = 0; p < want->num_ports; p++) {
        if (want->capacity[p] != 0 && want->capacity[p] != held->capacity[p])
            return cs_fail(err, "P_Key table of port slot %u: %u entries wanted, %u held", p,
                           want->capacity[p], held->capacity[p]);
        blocks += blocks_of(want->capacity[p]);
    }
    struct program_phase ph = {.s = s, .log = log, .want = want, .held = held};
    uint64_t jobs_needed = blocks > want->num_ports ? blocks : want->num_ports;
    struct program_job *jobs = cs_calloc_array(jobs_needed ? jobs_needed : 1, sizeof *jobs, err);
    if (jobs == NULL)
        return -1;
    uint32_t ports_written = 0;
    int rc = send_blocks(pipe, &ph, jobs, counts, &ports_written, err);
    /* Enforcement after the tables: a port starts filtering only with its table in place. */
    if (rc == 0)
        rc = send_enforcement(pipe, &ph, jobs, counts, err);
    free(jobs);
    counts->failures = ph.failures;
    if (rc < 0)
        return -1;
    cs_logf(log, CS_LOG_DEBUG,
            "pkeys: %llu blocks sent to %u ports, %llu PortInfo Sets (enforcement), %u "
            "failures",
            (unsigned long long)counts->blocks_sent, ports_written,
            (unsigned long long)counts->port_info_sets, ph.failures);
    return 0;
}
