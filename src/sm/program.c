/* Programming a discovered fabric (include/cloudsm/sm.h): LIDs, LFTs, port states.
 *
 * Every phase submits all of its SMPs to the pipe at once and then runs it, so that the window is
 * always full. Each request carries a small job (which port, which switch and block) through the
 * pipe's callback argument; a phase's jobs live in one array for the length of the phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "cloudsm/sm.h"
#include "core/grow.h"
#include "sm/phase.h"

bool cs_sm_port_path(const struct cs_sm_sweep *s, uint32_t p, struct cs_dr_path *path)
{
    const struct cs_fabric *f = &s->fabric;
    const struct cs_port *port = &f->ports[p];
    if (p == s->sm_port) {
        path->hops = 0;
        return true;
    }
    if (cs_node_is_switch(&f->nodes[port->node])) {
        *path = s->path[port->node];
        return true;
    }
    if (port->peer == CS_NONE)
        return false;
    const struct cs_port *peer = &f->ports[port->peer];
    if (!cs_node_is_switch(&f->nodes[peer->node])) {
        /* CA cabled to CA: only the port the sweep came in through is reachable. */
        *path = s->path[port->node];
        return true;
    }
    *path = s->path[peer->node];
    if (path->hops >= CS_SMP_MAX_HOPS)
        return false;
    path->port[++path->hops] = peer->num;
    return true;
}

/* ---- LIDs ---- */

#define LID_SPACE (CS_LID_UCAST_MAX + 1)
#define LMC_MAX 7

uint16_t cs_sm_lid_limit(const struct cs_sm_sweep *s, uint32_t *limiting_node)
{
    uint16_t limit = CS_LID_UCAST_MAX;
    if (limiting_node != NULL)
        *limiting_node = CS_NONE;
    for (uint32_t n = 0; n < s->fabric.num_nodes; n++) {
        uint16_t cap = s->switch_info[n].linear_fdb_cap; /* 0: a CA, or SwitchInfo not read */
        if (!cs_node_is_switch(&s->fabric.nodes[n]) || cap == 0 || cap - 1 >= limit)
            continue;
        limit = (uint16_t)(cap - 1);
        if (limiting_node != NULL)
            *limiting_node = n;
    }
    return limit;
}

/* A stored range the SM can give back: an aligned range of 2^LMC LIDs within 1..limit. */
static bool stored_range_usable(const struct cs_guid2lid_entry *e, uint16_t limit)
{
    uint32_t size = (uint32_t)e->max_lid - e->min_lid + 1;
    return e->min_lid != 0 && e->max_lid >= e->min_lid && e->max_lid <= limit &&
           (size & (size - 1)) == 0 && size <= (1u << LMC_MAX) && e->min_lid % size == 0;
}

static bool range_taken(const uint8_t *used, const struct cs_guid2lid_entry *e)
{
    for (uint32_t lid = e->min_lid; lid <= e->max_lid; lid++)
        if (used[lid])
            return true;
    return false;
}

static void mark_range(uint8_t *used, const struct cs_guid2lid_entry *e, uint8_t mark)
{
    for (uint32_t lid = e->min_lid; lid <= e->max_lid; lid++)
        used[lid] = mark;
}

static uint8_t lmc_of(const struct cs_guid2lid_entry *e)
{
    uint8_t lmc = 0;
    while ((UINT32_C(1) << lmc) < (uint32_t)e->max_lid - e->min_lid + 1)
        lmc++;
    return lmc;
}

/* Ports that get a LID (cs_port_needs_lid), by port GUID. */
static int index_lid_ports(const struct cs_fabric *f, bool with_lid_only, struct cs_key_index *ix,
                           struct cs_error *err)
{
    cs_key_index_init(ix);
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        if (!cs_port_needs_lid(f, p) || f->ports[p].guid == 0 ||
            (with_lid_only && f->ports[p].lid == 0))
            continue;
        if (cs_key_index_add(ix, f->ports[p].guid, p, err) < 0) {
            cs_key_index_free(ix);
            return -1;
        }
    }
    cs_key_index_sort(ix);
    return 0;
}

static const char *limit_reason(const struct cs_sm_sweep *s, uint32_t node, char *buf, size_t size)
{
    if (node == CS_NONE)
        snprintf(buf, size, "the highest unicast LID");
    else
        snprintf(buf, size, "LinearFDBCap %u of switch 0x%016llx",
                 s->switch_info[node].linear_fdb_cap,
                 (unsigned long long)s->fabric.nodes[node].guid);
    return buf;
}

static bool withheld(const struct cs_sm_sweep *s, uint32_t p)
{
    return s->lid_withheld != NULL && s->lid_withheld[p];
}

/* Marks of the LID table while assigning. */
enum { LID_FREE = 0, LID_PRESENT, LID_HELD };

int cs_sm_assign_lids(struct cs_sm_sweep *s, const struct cs_guid2lid *guid2lid, bool reassign,
                      const struct cs_log *log, struct cs_error *err)
{
    struct cs_fabric *f = &s->fabric;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        f->ports[p].lid = 0;
        f->ports[p].lmc = 0;
    }
    uint32_t limiting;
    uint16_t limit = cs_sm_lid_limit(s, &limiting);
    char why[96];
    limit_reason(s, limiting, why, sizeof(why));
    struct cs_key_index ports;
    if (index_lid_ports(f, false, &ports, err) < 0)
        return -1;
    uint8_t *used = cs_calloc_array(LID_SPACE, 1, err);
    if (used == NULL) {
        cs_key_index_free(&ports);
        return -1;
    }
    uint32_t count = guid2lid != NULL ? guid2lid->count : 0;
    /* Stored LIDs of the ports that are here first, then those held for ports that are away
     * (never handed to another port while free LIDs remain). */
    for (uint32_t i = 0; i < count; i++) {
        const struct cs_guid2lid_entry *e = &guid2lid->entries[i];
        uint32_t p = cs_key_index_find(&ports, e->guid);
        if (p == CS_NONE || f->ports[p].lid != 0 || withheld(s, p))
            continue;
        if (!stored_range_usable(e, limit) || range_taken(used, e))
            continue; /* logged with its new LID below */
        f->ports[p].lid = e->min_lid;
        f->ports[p].lmc = lmc_of(e);
        mark_range(used, e, LID_PRESENT);
    }
    uint32_t held = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct cs_guid2lid_entry *e = &guid2lid->entries[i];
        if (cs_key_index_find(&ports, e->guid) != CS_NONE)
            continue;
        if (!stored_range_usable(e, limit) || range_taken(used, e)) {
            cs_logf(log, CS_LOG_WARN,
                    "lids: absent port 0x%016llx: its stored LIDs 0x%04x-0x%04x are beyond %s "
                    "(0x%04x) or taken: forgotten",
                    (unsigned long long)e->guid, e->min_lid, e->max_lid, why, limit);
            continue;
        }
        mark_range(used, e, LID_HELD);
        held++;
    }
    /* Keep a LID a port already holds when nobody else claims it: a restarted SM (or one taking
     * over from another) must not renumber a running fabric. */
    for (uint32_t p = 0; p < f->num_port_slots && !reassign; p++) {
        uint16_t holds = s->port_info_valid[p] ? s->port_info[p].lid : 0;
        if (f->ports[p].lid != 0 || !cs_port_needs_lid(f, p) || withheld(s, p) || holds == 0 ||
            holds > limit || used[holds])
            continue;
        f->ports[p].lid = holds;
        used[holds] = LID_PRESENT;
    }
    /* The aging rule: an absent port's LID is held until the LIDs within reach run out; then
     * the lowest held ones go to the ports that need them. */
    uint32_t needed = 0, free_lids = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        needed += cs_port_needs_lid(f, p) && f->ports[p].lid == 0 && !withheld(s, p);
    for (uint32_t lid = 1; lid <= limit; lid++)
        free_lids += used[lid] == LID_FREE;
    for (uint32_t lid = 1; lid <= limit && needed > free_lids; lid++) {
        if (used[lid] != LID_HELD)
            continue;
        const struct cs_guid2lid_entry *e = NULL; /* the held range that covers lid */
        for (uint32_t i = 0; i < count && e == NULL; i++)
            if (lid >= guid2lid->entries[i].min_lid && lid <= guid2lid->entries[i].max_lid)
                e = &guid2lid->entries[i];
        if (e == NULL)
            continue;
        cs_logf(log, CS_LOG_WARN,
                "lids: out of free LIDs: LID 0x%04x of absent port 0x%016llx goes to a new port",
                e->min_lid, (unsigned long long)e->guid);
        mark_range(used, e, LID_FREE);
        free_lids += (uint32_t)e->max_lid - e->min_lid + 1;
        held--;
    }
    int rc = cs_lids_assign_within(f, 0, used, limit, s->lid_withheld, err);
    free(used);
    if (rc < 0) {
        cs_key_index_free(&ports);
        return -1;
    }
    /* Stored or held LIDs that could not be kept, now that the new ones are known (a port with
     * a stored entry is named once, for that entry). */
    bool *named = cs_calloc_array(f->num_port_slots ? f->num_port_slots : 1, sizeof(bool), err);
    if (named == NULL) {
        cs_key_index_free(&ports);
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        const struct cs_guid2lid_entry *e = &guid2lid->entries[i];
        uint32_t p = cs_key_index_find(&ports, e->guid);
        if (p == CS_NONE)
            continue;
        named[p] = true;
        if (f->ports[p].lid == e->min_lid || withheld(s, p))
            continue;
        const char *what = e->max_lid > limit ? "beyond the LIDs every switch can forward"
                           : !stored_range_usable(e, limit) ? "not an aligned LID range"
                                                            : "taken by another port";
        cs_logf(log, CS_LOG_WARN,
                "lids: port GUID 0x%016llx: stored LIDs 0x%04x-0x%04x are %s (%s: 0x%04x): "
                "re-assigned LID 0x%04x",
                (unsigned long long)e->guid, e->min_lid, e->max_lid, what, why, limit,
                f->ports[p].lid);
    }
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        uint16_t holds = s->port_info_valid[p] ? s->port_info[p].lid : 0;
        if (!cs_port_needs_lid(f, p) || withheld(s, p) || named[p] || reassign || holds <= limit ||
            holds > CS_LID_UCAST_MAX)
            continue;
        cs_logf(log, CS_LOG_WARN,
                "lids: port %u of 0x%016llx (GUID 0x%016llx) holds LID 0x%04x, beyond %s "
                "(0x%04x): re-assigned LID 0x%04x",
                f->ports[p].num, (unsigned long long)f->nodes[f->ports[p].node].guid,
                (unsigned long long)f->ports[p].guid, holds, why, limit, f->ports[p].lid);
    }
    free(named);
    cs_key_index_free(&ports);
    int changed = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (cs_port_needs_lid(f, p) &&
            (!s->port_info_valid[p] || s->port_info[p].lid != f->ports[p].lid))
            changed++;
    cs_logf(log, CS_LOG_DEBUG,
            "lids: %d port%s get a new LID, max LID %u (limit 0x%04x), %u held for absent ports",
            changed, changed == 1 ? "" : "s", cs_fabric_max_lid(f), limit, held);
    return changed;
}

int cs_sm_guid2lid_update(const struct cs_sm_sweep *s, const struct cs_guid2lid *stored,
                          struct cs_guid2lid *out, struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    if (cs_guid2lid_from_fabric(out, f, err) < 0)
        return -1;
    uint32_t count = stored != NULL ? stored->count : 0;
    struct cs_key_index present;
    uint8_t *used = cs_calloc_array(LID_SPACE, 1, err);
    if (used == NULL || index_lid_ports(f, true, &present, err) < 0)
        goto fail_used;
    struct cs_guid2lid_entry *grown =
        realloc(out->entries, ((size_t)out->count + count + 1) * sizeof(*grown));
    if (grown == NULL) {
        cs_fail(err, "out of memory for guid2lid");
        goto fail;
    }
    out->entries = grown;
    out->capacity = out->count + count;
    for (uint32_t i = 0; i < out->count; i++)
        mark_range(used, &out->entries[i], LID_PRESENT);
    uint16_t limit = cs_sm_lid_limit(s, NULL);
    for (uint32_t i = 0; i < count; i++) {
        const struct cs_guid2lid_entry *e = &stored->entries[i];
        if (cs_key_index_find(&present, e->guid) != CS_NONE || !stored_range_usable(e, limit) ||
            range_taken(used, e))
            continue;
        mark_range(used, e, LID_HELD);
        out->entries[out->count++] = *e;
    }
    cs_key_index_free(&present);
    free(used);
    return 0;
fail:
    cs_key_index_free(&present);
fail_used:
    free(used);
    cs_guid2lid_free(out);
    return -1;
}

/* ---- shared job machinery ---- */

struct phase {
    struct cs_sm_sweep *s;
    const struct cs_log *log;
    struct cs_smp_pipe *pipe;
    unsigned failures;
    /* phase-specific */
    const struct cs_lfts *want;
    struct cs_lfts *held;
    struct cs_sm_lft_counts *counts;
    uint8_t target_state;
};

struct job {
    struct phase *ph;
    uint32_t index; /* port slot, or lfts switch index */
    uint32_t block;
    const uint8_t *content; /* an LFT block's entries to write; NULL: want's */
};

static int submit_dr(struct phase *ph, struct job *job, uint8_t method, uint16_t attr, uint32_t mod,
                     const struct cs_dr_path *path, const uint8_t *data, cs_smp_done_fn done,
                     struct cs_error *err)
{
    return cs_sm_submit_dr(ph->pipe, method, attr, mod, path, data, done, job, err);
}

/* Log a refused or unanswered request with the node it was for; true when it failed. */
static bool failed(struct phase *ph, uint32_t node, enum cs_smp_result result,
                   const struct cs_smp *req, const struct cs_smp *reply)
{
    if (!cs_sm_smp_failed(ph->s, ph->log, node, result, req, reply))
        return false;
    ph->failures++;
    return true;
}

static int port_info_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                          const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct job *job = arg;
    struct cs_sm_sweep *s = job->ph->s;
    if (failed(job->ph, s->fabric.ports[job->index].node, result, req, reply))
        return 0;
    cs_smp_port_info_decode(reply->data, &s->port_info[job->index]);
    s->port_info_valid[job->index] = true;
    return 0;
}

/* Submit a PortInfo Set of *pi to port slot p. */
static int set_port_info(struct phase *ph, struct job *job, uint32_t p,
                         const struct cs_smp_port_info *pi, struct cs_error *err)
{
    struct cs_dr_path path;
    if (!cs_sm_port_path(ph->s, p, &path)) {
        ph->failures++;
        cs_logf(ph->log, CS_LOG_WARN, "no directed route to port %u of 0x%016llx",
                ph->s->fabric.ports[p].num,
                (unsigned long long)ph->s->fabric.nodes[ph->s->fabric.ports[p].node].guid);
        return 0;
    }
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_port_info_encode(pi, data);
    job->ph = ph;
    job->index = p;
    return submit_dr(ph, job, CS_SMP_METHOD_SET, CS_SMP_ATTR_PORT_INFO, ph->s->fabric.ports[p].num,
                     &path, data, port_info_done, err);
}

static struct job *alloc_jobs(uint64_t n, struct cs_error *err)
{
    return cs_calloc_array(n ? n : 1, sizeof(struct job), err);
}

/* ---- PortInfo: LIDs and SM settings ---- */

/* Submit the PortInfo Set that gives port p its LID of s->fabric and the SM settings, unless it
 * holds them already (and force is false). */
static int set_lid_of(struct phase *ph, struct job *job, uint32_t p,
                      const struct cs_sm_port_settings *settings, bool force, struct cs_error *err)
{
    const struct cs_fabric *f = &ph->s->fabric;
    struct cs_smp_port_info pi = ph->s->port_info[p];
    /* The lease period only means something when an M_Key protects the port (IBA 14.2.4);
     * without one it is left as the port has it, so that an agent that does not store it
     * (ibsim reports a constant) is not rewritten on every sweep. */
    uint16_t lease = settings->m_key ? settings->m_key_lease_period : pi.m_key_lease_period;
    bool rereg =
        settings->client_reregister && (pi.capability_mask & CS_SMP_PORT_CAP_CLIENT_REREG) != 0;
    if (!force && !rereg && pi.lid == f->ports[p].lid && pi.master_sm_lid == settings->sm_lid &&
        pi.subnet_prefix == settings->subnet_prefix && pi.lmc == f->ports[p].lmc &&
        pi.m_key == settings->m_key && pi.m_key_lease_period == lease)
        return 0;
    pi.lid = f->ports[p].lid;
    pi.lmc = f->ports[p].lmc;
    pi.master_sm_lid = settings->sm_lid;
    pi.subnet_prefix = settings->subnet_prefix;
    pi.m_key = settings->m_key;
    pi.m_key_lease_period = lease;
    pi.client_reregister = rereg;
    /* 0 = "no change" for both states and for the enable fields: a LID Set must not move
     * the link, and must not rewrite what the port negotiated. */
    pi.port_state = CS_SMP_PORT_STATE_NO_CHANGE;
    pi.port_physical_state = 0;
    pi.link_width_enabled = 0;
    pi.link_speed_enabled = 0;
    pi.link_speed_ext_enabled = 0;
    return set_port_info(ph, job, p, &pi, err);
}

int cs_sm_set_lids(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                   const struct cs_sm_port_settings *settings, const struct cs_log *log,
                   struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    struct phase ph = {.s = s, .log = log, .pipe = pipe};
    struct job *jobs = alloc_jobs(f->num_port_slots, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++)
        if (cs_port_needs_lid(f, p) && s->port_info_valid[p])
            rc = set_lid_of(&ph, &jobs[p], p, settings, false, err);
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    return rc < 0 ? -1 : (int)ph.failures;
}

int cs_sm_set_port_lids(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                        const struct cs_sm_port_settings *settings, const uint32_t *ports,
                        uint32_t count, const struct cs_log *log, struct cs_error *err)
{
    struct phase ph = {.s = s, .log = log, .pipe = pipe};
    struct job *jobs = alloc_jobs(count, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        if (!s->port_info_valid[ports[i]]) {
            ph.failures++;
            cs_logf(log, CS_LOG_WARN, "port %u of 0x%016llx: its PortInfo was never read",
                    s->fabric.ports[ports[i]].num,
                    (unsigned long long)s->fabric.nodes[s->fabric.ports[ports[i]].node].guid);
            continue;
        }
        rc = set_lid_of(&ph, &jobs[i], ports[i], settings, true, err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    return rc < 0 ? -1 : (int)ph.failures;
}

/* ---- LFTs ---- */

static uint32_t switch_node(const struct cs_lfts *t, uint32_t sw)
{
    return t->switches[sw].node;
}

/* Record in held what switch sw now holds in block b: content, or NULL for "unknown" (a Set that
 * failed may or may not have landed), kept as the block's dirty bit. */
static void hold_block(struct cs_lfts *held, uint32_t sw, uint32_t b, const uint8_t *content)
{
    if (content != NULL)
        memcpy(cs_lfts_table(held, sw) + (size_t)b * CS_LFT_BLOCK, content, CS_LFT_BLOCK);
    cs_lfts_mark_block(held, sw, b, content == NULL);
}

/* What job writes into its block: its own content, or want's. */
static const uint8_t *block_content(const struct phase *ph, const struct job *job)
{
    return job->content != NULL
               ? job->content
               : cs_lfts_table(ph->want, job->index) + (size_t)job->block * CS_LFT_BLOCK;
}

static int lft_set_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                        const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct job *job = arg;
    struct phase *ph = job->ph;
    bool lost = failed(ph, switch_node(ph->want, job->index), result, req, reply);
    if (ph->held != NULL)
        hold_block(ph->held, job->index, job->block, lost ? NULL : block_content(ph, job));
    return 0;
}

static int send_block(struct phase *ph, struct job *job, struct cs_error *err)
{
    struct cs_smp_lft_block block;
    memcpy(block.port, block_content(ph, job), CS_LFT_BLOCK);
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_lft_block_encode(&block, data);
    ph->counts->blocks_sent++;
    return submit_dr(ph, job, CS_SMP_METHOD_SET, CS_SMP_ATTR_LINEAR_FT, job->block,
                     &ph->s->path[switch_node(ph->want, job->index)], data, lft_set_done, err);
}

static int lft_read_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                         const struct cs_smp *reply, struct cs_error *err)
{
    struct job *job = arg;
    struct phase *ph = job->ph;
    (void)req;
    if (result != CS_SMP_OK)
        return send_block(ph, job, err); /* content unknown: write it; the write's answer counts */
    struct cs_smp_lft_block got;
    cs_smp_lft_block_decode(reply->data, &got);
    const uint8_t *want = cs_lfts_table(ph->want, job->index) + (size_t)job->block * CS_LFT_BLOCK;
    if (ph->held != NULL)
        hold_block(ph->held, job->index, job->block, got.port);
    if (memcmp(got.port, want, CS_LFT_BLOCK) == 0)
        return 0;
    return send_block(ph, job, err);
}

static int switch_info_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                            const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct job *job = arg;
    struct phase *ph = job->ph;
    uint32_t node = switch_node(ph->want, job->index);
    if (failed(ph, node, result, req, reply))
        return 0;
    cs_smp_switch_info_decode(reply->data, &ph->s->switch_info[node]);
    return 0;
}

/* The LinearFDBTop switch sw gets: the tables' highest LID, at most its LinearFDBCap - 1. */
static uint16_t switch_top(const struct cs_sm_sweep *s, const struct cs_lfts *want, uint32_t sw)
{
    uint16_t cap = s->switch_info[switch_node(want, sw)].linear_fdb_cap;
    return cap != 0 && want->max_lid > cap - 1 ? (uint16_t)(cap - 1) : want->max_lid;
}

/* Whether switch sw's table routes a LID above top. */
static bool beyond_cap_routed(const struct cs_lfts *want, uint32_t sw, uint16_t top)
{
    const uint8_t *table = cs_lfts_table(want, sw);
    for (uint32_t lid = (uint32_t)top + 1; lid <= want->max_lid; lid++)
        if (table[lid] != CS_LFT_NO_ROUTE)
            return true;
    return false;
}

int cs_sm_program_lfts(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_lfts *want,
                       struct cs_lfts *held, const struct cs_log *log,
                       struct cs_sm_lft_counts *counts, struct cs_error *err)
{
    *counts = (struct cs_sm_lft_counts){0};
    if (held != NULL &&
        (held->num_switches != want->num_switches || held->capacity < want->capacity))
        return cs_fail(err,
                       "tracked LFTs (%u switches, %u LIDs) do not match the tables to "
                       "program (%u switches, %u LIDs): the fabric changed shape",
                       held->num_switches, held->capacity, want->num_switches, want->capacity);
    struct phase ph = {
        .s = s, .log = log, .pipe = pipe, .want = want, .held = held, .counts = counts};
    uint16_t top = want->max_lid;
    uint32_t blocks = (uint32_t)top / CS_LFT_BLOCK + 1;
    uint64_t num_jobs = (uint64_t)want->num_switches * (blocks + 1);
    struct job *jobs = alloc_jobs(num_jobs, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    /* SwitchInfo first: a switch ignores LIDs above LinearFDBTop. The reads keep the old top.
     * A switch's top is never above its own LinearFDBCap - 1: a LID there would be routed into
     * an entry the switch does not have (LIDs are assigned below every switch's cap, so this
     * only happens with tables made elsewhere: counted as a failure). */
    for (uint32_t sw = 0; sw < want->num_switches && rc == 0; sw++) {
        uint32_t node = switch_node(want, sw);
        struct cs_smp_switch_info si = s->switch_info[node];
        uint16_t sw_top = switch_top(s, want, sw);
        if (sw_top < top && beyond_cap_routed(want, sw, sw_top)) {
            ph.failures++;
            cs_logf(log, CS_LOG_ERROR,
                    "switch 0x%016llx \"%s\": LinearFDBCap %u, yet the tables route LIDs up to "
                    "%u: those LIDs are unreachable through it",
                    (unsigned long long)s->fabric.nodes[node].guid, s->fabric.nodes[node].desc,
                    si.linear_fdb_cap, top);
        }
        if (si.linear_fdb_top == sw_top)
            continue;
        si.linear_fdb_top = sw_top;
        si.port_state_change = 0; /* writing 1 would clear the flag the light sweep reads */
        uint8_t data[CS_SMP_DATA_SIZE];
        cs_smp_switch_info_encode(&si, data);
        struct job *job = &jobs[(uint64_t)sw * (blocks + 1) + blocks];
        *job = (struct job){&ph, sw, 0, NULL};
        counts->switch_info_sets++;
        rc = submit_dr(&ph, job, CS_SMP_METHOD_SET, CS_SMP_ATTR_SWITCH_INFO, 0, &s->path[node],
                       data, switch_info_done, err);
    }
    /* Blocks round-robin over the switches, so that consecutive SMPs go to different switches
     * and no single switch's agent becomes the bottleneck. */
    for (uint32_t b = 0; b < blocks && rc == 0; b++) {
        for (uint32_t sw = 0; sw < want->num_switches && rc == 0; sw++) {
            uint32_t node = switch_node(want, sw);
            if (b * CS_LFT_BLOCK > switch_top(s, want, sw))
                continue; /* beyond the switch's table */
            struct job *job = &jobs[(uint64_t)sw * (blocks + 1) + b];
            *job = (struct job){&ph, sw, b, NULL};
            uint16_t old_top = s->switch_info[node].linear_fdb_top;
            bool known = held != NULL && !cs_lfts_block_dirty(held, sw, b);
            if (known &&
                memcmp(cs_lfts_table(held, sw) + (size_t)b * CS_LFT_BLOCK,
                       cs_lfts_table(want, sw) + (size_t)b * CS_LFT_BLOCK, CS_LFT_BLOCK) == 0)
                continue;
            /* Unknown content is read back where the switch has valid entries (at or below its
             * LinearFDBTop); a block above it, or a known one that differs, is just written. */
            if (!known && old_top != 0 && b * CS_LFT_BLOCK <= old_top) {
                counts->blocks_read++;
                rc = submit_dr(&ph, job, CS_SMP_METHOD_GET, CS_SMP_ATTR_LINEAR_FT, b,
                               &s->path[node], NULL, lft_read_done, err);
            } else {
                rc = send_block(&ph, job, err);
            }
        }
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    counts->failures = ph.failures;
    return rc;
}

static int lft_read_only_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                              const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct job *job = arg;
    struct phase *ph = job->ph;
    if (failed(ph, switch_node(ph->held, job->index), result, req, reply))
        return 0; /* stays unknown */
    struct cs_smp_lft_block got;
    cs_smp_lft_block_decode(reply->data, &got);
    hold_block(ph->held, job->index, job->block, got.port);
    return 0;
}

int cs_sm_read_lfts(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, struct cs_lfts *held,
                    const struct cs_log *log, struct cs_sm_lft_counts *counts, struct cs_error *err)
{
    *counts = (struct cs_sm_lft_counts){0};
    struct phase ph = {.s = s, .log = log, .pipe = pipe, .held = held, .counts = counts};
    uint32_t blocks = cs_lfts_blocks(held);
    uint64_t n = 0;
    for (uint32_t sw = 0; sw < held->num_switches; sw++) {
        uint16_t top = s->switch_info[switch_node(held, sw)].linear_fdb_top;
        for (uint32_t b = 0; b < blocks && top != 0 && b * CS_LFT_BLOCK <= top; b++)
            n += cs_lfts_block_dirty(held, sw, b);
    }
    struct job *jobs = alloc_jobs(n, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    uint64_t next = 0;
    for (uint32_t sw = 0; sw < held->num_switches && rc == 0; sw++) {
        uint32_t node = switch_node(held, sw);
        uint16_t top = s->switch_info[node].linear_fdb_top;
        for (uint32_t b = 0; b < blocks && top != 0 && b * CS_LFT_BLOCK <= top && rc == 0; b++) {
            if (!cs_lfts_block_dirty(held, sw, b))
                continue;
            struct job *job = &jobs[next++];
            *job = (struct job){&ph, sw, b, NULL};
            counts->blocks_read++;
            rc = submit_dr(&ph, job, CS_SMP_METHOD_GET, CS_SMP_ATTR_LINEAR_FT, b, &s->path[node],
                           NULL, lft_read_only_done, err);
        }
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    counts->failures = ph.failures;
    return rc;
}

int cs_sm_write_lft_blocks(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                           const struct cs_lfts *want, struct cs_lfts *held,
                           const struct cs_sm_lft_write *writes, uint32_t count,
                           const struct cs_log *log, struct cs_sm_lft_counts *counts,
                           struct cs_error *err)
{
    *counts = (struct cs_sm_lft_counts){0};
    struct phase ph = {
        .s = s, .log = log, .pipe = pipe, .want = want, .held = held, .counts = counts};
    struct job *jobs = alloc_jobs(count, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        jobs[i] = (struct job){&ph, writes[i].table, writes[i].block, writes[i].content};
        rc = send_block(&ph, &jobs[i], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    counts->failures = ph.failures;
    return rc;
}

/* ---- port states ---- */

static int activate_round(struct phase *ph, uint8_t from, struct job *jobs, unsigned *moved,
                          struct cs_error *err)
{
    struct cs_sm_sweep *s = ph->s;
    const struct cs_fabric *f = &s->fabric;
    ph->target_state = from + 1;
    int rc = 0;
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++) {
        if (f->ports[p].peer == CS_NONE || !s->port_info_valid[p] ||
            s->port_info[p].port_state != from)
            continue;
        struct cs_smp_port_info pi = s->port_info[p];
        pi.port_state = ph->target_state;
        pi.port_physical_state = 0;
        pi.link_width_enabled = 0;
        pi.link_speed_enabled = 0;
        pi.link_speed_ext_enabled = 0;
        const struct cs_port *port = &f->ports[p];
        if (cs_node_is_switch(&f->nodes[port->node]) && port->num != 0) {
            /* Head-of-queue lifetime of switch ports, set on the way up as OpenSM does:
             * leaf_head_of_queue_lifetime (16) towards a CA, head_of_queue_lifetime (18)
             * between switches (OpenSM 3.3.23 defaults). */
            bool to_ca = !cs_node_is_switch(&f->nodes[f->ports[port->peer].node]);
            pi.hoq_life = to_ca ? CS_SM_LEAF_HOQ_LIFE : CS_SM_HOQ_LIFE;
        }
        rc = set_port_info(ph, &jobs[p], p, &pi, err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(ph->pipe, err);
    if (rc < 0)
        return -1;
    *moved = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (jobs[p].ph != NULL && s->port_info_valid[p] &&
            s->port_info[p].port_state == ph->target_state)
            (*moved)++;
    return 0;
}

int cs_sm_activate(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_log *log,
                   unsigned *activated, struct cs_error *err)
{
    struct phase ph = {.s = s, .log = log, .pipe = pipe};
    struct job *jobs = alloc_jobs(s->fabric.num_port_slots, err);
    if (jobs == NULL)
        return -1;
    unsigned armed = 0, active = 0;
    int rc = activate_round(&ph, CS_SMP_PORT_STATE_INIT, jobs, &armed, err);
    if (rc == 0) {
        memset(jobs, 0, (size_t)s->fabric.num_port_slots * sizeof(*jobs));
        rc = activate_round(&ph, CS_SMP_PORT_STATE_ARMED, jobs, &active, err);
    }
    free(jobs);
    if (rc < 0)
        return -1;
    cs_logf(log, CS_LOG_DEBUG, "ports: %u armed, %u activated", armed, active);
    *activated = active;
    return (int)ph.failures;
}

/* ---- tables held across sweeps ---- */

int cs_sm_carry_held(const struct cs_lfts *old, const struct cs_lfts *want, struct cs_lfts *out,
                     struct cs_error *err)
{
    if (cs_lfts_init(out, want->max_lid, err) < 0)
        return -1;
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    for (uint32_t sw = 0; sw < old->num_switches; sw++)
        if (cs_key_index_add(&by_guid, old->switches[sw].guid, sw, err) < 0)
            goto fail;
    cs_key_index_sort(&by_guid);
    uint32_t covered = old->capacity < out->capacity ? old->capacity : out->capacity;
    for (uint32_t sw = 0; sw < want->num_switches; sw++) {
        const struct cs_lft_switch *w = &want->switches[sw];
        if (cs_lfts_add_switch(out, w->guid, w->lid, w->desc, w->node, err) == CS_NONE)
            goto fail;
        uint32_t from = cs_key_index_find(&by_guid, w->guid);
        for (uint32_t b = 0; b < cs_lfts_blocks(out); b++)
            cs_lfts_mark_block(out, sw, b, true);
        if (from == CS_NONE)
            continue;
        memcpy(cs_lfts_table(out, sw), cs_lfts_table(old, from), covered);
        for (uint32_t b = 0; (b + 1) * CS_LFT_BLOCK <= covered; b++)
            cs_lfts_mark_block(out, sw, b, cs_lfts_block_dirty(old, from, b));
    }
    cs_key_index_free(&by_guid);
    return 0;
fail:
    cs_key_index_free(&by_guid);
    cs_lfts_free(out);
    return -1;
}
