/* Programming a discovered fabric (include/cloudsm/sm.h): LIDs, LFTs, port states.
 *
 * Every phase submits all of its SMPs to the pipe at once and then runs it, so that the window is
 * always full. Each request carries a small job (which port, which switch and block) through the
 * pipe's callback argument; a phase's jobs live in one array for the length of the phase.
 */
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

int cs_sm_assign_lids(struct cs_sm_sweep *s, const struct cs_guid2lid *guid2lid,
                      const struct cs_sm_log *log, struct cs_error *err)
{
    struct cs_fabric *f = &s->fabric;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        f->ports[p].lid = 0;
        f->ports[p].lmc = 0;
    }
    if (guid2lid != NULL && cs_guid2lid_apply(guid2lid, f, err) < 0)
        return -1;
    /* Keep a LID a port already holds when nobody else claims it: a restarted SM (or one taking
     * over from another) must not renumber a running fabric. */
    uint8_t *used = cs_calloc_array(CS_LID_UCAST_MAX + 1, 1, err);
    if (used == NULL)
        return -1;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        if (f->ports[p].lid == 0)
            continue;
        /* A guid2lid range (LMC > 0, e.g. from OpenSM) claims all of its LIDs, not its base. */
        uint32_t end = (uint32_t)f->ports[p].lid + (UINT32_C(1) << (f->ports[p].lmc & 15));
        for (uint32_t lid = f->ports[p].lid; lid < end && lid <= CS_LID_UCAST_MAX; lid++)
            used[lid] = 1;
    }
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        uint16_t held = s->port_info_valid[p] ? s->port_info[p].lid : 0;
        if (f->ports[p].lid != 0 || !cs_port_needs_lid(f, p) || held == 0 ||
            held > CS_LID_UCAST_MAX || used[held])
            continue;
        f->ports[p].lid = held;
        used[held] = 1;
    }
    free(used);
    if (cs_lids_assign(f, 0, err) < 0)
        return -1;
    int changed = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (cs_port_needs_lid(f, p) &&
            (!s->port_info_valid[p] || s->port_info[p].lid != f->ports[p].lid))
            changed++;
    cs_sm_logf(log, CS_SM_LOG_DEBUG, "lids: %d port%s get a new LID, max LID %u", changed,
               changed == 1 ? "" : "s", cs_fabric_max_lid(f));
    return changed;
}

/* ---- shared job machinery ---- */

struct phase {
    struct cs_sm_sweep *s;
    const struct cs_sm_log *log;
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
        cs_sm_logf(ph->log, CS_SM_LOG_WARN, "no directed route to port %u of 0x%016llx",
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

int cs_sm_set_lids(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                   const struct cs_sm_port_settings *settings, const struct cs_sm_log *log,
                   struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    struct phase ph = {.s = s, .log = log, .pipe = pipe};
    struct job *jobs = alloc_jobs(f->num_port_slots, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++) {
        if (!cs_port_needs_lid(f, p) || !s->port_info_valid[p])
            continue;
        struct cs_smp_port_info pi = s->port_info[p];
        /* The lease period only means something when an M_Key protects the port (IBA 14.2.4);
         * without one it is left as the port has it, so that an agent that does not store it
         * (ibsim reports a constant) is not rewritten on every sweep. */
        uint16_t lease = settings->m_key ? settings->m_key_lease_period : pi.m_key_lease_period;
        if (pi.lid == f->ports[p].lid && pi.master_sm_lid == settings->sm_lid &&
            pi.subnet_prefix == settings->subnet_prefix && pi.lmc == f->ports[p].lmc &&
            pi.m_key == settings->m_key && pi.m_key_lease_period == lease)
            continue;
        pi.lid = f->ports[p].lid;
        pi.lmc = f->ports[p].lmc;
        pi.master_sm_lid = settings->sm_lid;
        pi.subnet_prefix = settings->subnet_prefix;
        pi.m_key = settings->m_key;
        pi.m_key_lease_period = lease;
        /* 0 = "no change" for both states and for the enable fields: a LID Set must not move
         * the link, and must not rewrite what the port negotiated. */
        pi.port_state = CS_SMP_PORT_STATE_NO_CHANGE;
        pi.port_physical_state = 0;
        pi.link_width_enabled = 0;
        pi.link_speed_enabled = 0;
        pi.link_speed_ext_enabled = 0;
        rc = set_port_info(&ph, &jobs[p], p, &pi, err);
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

static int lft_set_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                        const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct job *job = arg;
    struct phase *ph = job->ph;
    bool lost = failed(ph, switch_node(ph->want, job->index), result, req, reply);
    if (ph->held != NULL)
        hold_block(ph->held, job->index, job->block,
                   lost ? NULL
                        : cs_lfts_table(ph->want, job->index) + (size_t)job->block * CS_LFT_BLOCK);
    return 0;
}

static int send_block(struct phase *ph, struct job *job, struct cs_error *err)
{
    const uint8_t *entries =
        cs_lfts_table(ph->want, job->index) + (size_t)job->block * CS_LFT_BLOCK;
    struct cs_smp_lft_block block;
    memcpy(block.port, entries, CS_LFT_BLOCK);
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

int cs_sm_program_lfts(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_lfts *want,
                       struct cs_lfts *held, const struct cs_sm_log *log,
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
    /* SwitchInfo first: a switch ignores LIDs above LinearFDBTop. The reads keep the old top. */
    for (uint32_t sw = 0; sw < want->num_switches && rc == 0; sw++) {
        uint32_t node = switch_node(want, sw);
        struct cs_smp_switch_info si = s->switch_info[node];
        if (si.linear_fdb_top == top)
            continue;
        si.linear_fdb_top = top;
        si.port_state_change = 0; /* writing 1 would clear the flag the light sweep reads */
        uint8_t data[CS_SMP_DATA_SIZE];
        cs_smp_switch_info_encode(&si, data);
        struct job *job = &jobs[(uint64_t)sw * (blocks + 1) + blocks];
        *job = (struct job){&ph, sw, 0};
        counts->switch_info_sets++;
        rc = submit_dr(&ph, job, CS_SMP_METHOD_SET, CS_SMP_ATTR_SWITCH_INFO, 0, &s->path[node],
                       data, switch_info_done, err);
    }
    /* Blocks round-robin over the switches, so that consecutive SMPs go to different switches
     * and no single switch's agent becomes the bottleneck. */
    for (uint32_t b = 0; b < blocks && rc == 0; b++) {
        for (uint32_t sw = 0; sw < want->num_switches && rc == 0; sw++) {
            uint32_t node = switch_node(want, sw);
            struct job *job = &jobs[(uint64_t)sw * (blocks + 1) + b];
            *job = (struct job){&ph, sw, b};
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

int cs_sm_activate(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_sm_log *log,
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
    cs_sm_logf(log, CS_SM_LOG_DEBUG, "ports: %u armed, %u activated", armed, active);
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
