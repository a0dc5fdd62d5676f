/* QoS on a live fabric: VLArbitration tables and VLHighLimit per port class (include/cloudsm/sm.h,
 * "QoS").
 *
 * As OpenSM's osm_qos.c: every switch external port takes the qos_swe_ values, switch port 0 the
 * qos_sw0_ ones where it is enhanced (a base port 0 has no VL arbitration), CA and router ports
 * theirs. A table entry's VL is cut to the VLs the port operates (VL & (2^(OperationalVLs-1) -
 * 1), OpenSM's mask), and only the blocks within the port's VLArbitrationLowCap/HighCap are
 * written. Every block is read back first and only those that differ are written, and PortInfo is
 * set only where its VLHighLimit differs: a restart on a programmed fabric sends no Set.
 */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sm.h"
#include "core/grow.h"
#include "sm/phase.h"

#define BLOCKS 4 /* low 0-31, low 32-63, high 0-31, high 32-63: modifier block + 1 */

enum cs_qos_class cs_sm_qos_class(const struct cs_fabric *f, uint32_t slot)
{
    const struct cs_node *n = &f->nodes[f->ports[slot].node];
    if (cs_node_is_switch(n))
        return f->ports[slot].num == 0 ? CS_QOS_SW0 : CS_QOS_SWE;
    return n->type == CS_NODE_ROUTER ? CS_QOS_RTR : CS_QOS_CA;
}

/* OpenSM's mask of the VLs a port operates, from its OperationalVLs code (1 = VL0, 2 = VL0-1,
 * 3 = VL0-3, 4 = VL0-7, 5 = VL0-14). */
uint8_t cs_sm_qos_vl_mask(uint8_t operational_vls)
{
    if (operational_vls == 0 || operational_vls > 5)
        return 0;
    return (uint8_t)((1u << (operational_vls - 1)) - 1);
}

/* Entries of block b (0..3) the port has: its low or high cap, 32 to a block. */
static unsigned block_size(const struct cs_smp_port_info *pi, unsigned b)
{
    unsigned cap = b < 2 ? pi->vl_arbitration_low_cap : pi->vl_arbitration_high_cap;
    unsigned first = b % 2 * CS_VLARB_ENTRIES;
    if (cap <= first)
        return 0;
    return cap - first < CS_VLARB_ENTRIES ? cap - first : CS_VLARB_ENTRIES;
}

/* One block of one port. */
struct block {
    uint32_t port; /* slot */
    uint32_t mod;
    struct cs_dr_path path;
    unsigned size; /* entries compared and written */
    struct cs_smp_vlarb want, held;
    bool known;
};

struct vlarb_phase {
    struct cs_sm_sweep *s;
    const struct cs_log *log;
    unsigned failures;
};

struct vlarb_job {
    struct vlarb_phase *ph;
    struct block *b;
};

static int block_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                      const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct vlarb_job *job = arg;
    struct cs_sm_sweep *s = job->ph->s;
    if (cs_sm_smp_failed(s, job->ph->log, s->fabric.ports[job->b->port].node, result, req, reply)) {
        job->ph->failures++;
        job->b->known = false;
        return 0;
    }
    cs_smp_vlarb_decode(reply->data, &job->b->held);
    job->b->known = true;
    return 0;
}

static bool block_right(const struct block *b)
{
    return b->known && memcmp(b->held.vl, b->want.vl, b->size) == 0 &&
           memcmp(b->held.weight, b->want.weight, b->size) == 0;
}

/* The ports QoS programs: linked switch external ports and enhanced port 0 (by the switch's
 * path), CA and router ports the sweep reached over a cable (by their own). Only ports whose
 * PortInfo the sweep read: it holds the caps. */
static bool qos_port(const struct cs_sm_sweep *s, uint32_t p, struct cs_dr_path *path)
{
    const struct cs_fabric *f = &s->fabric;
    const struct cs_port *port = &f->ports[p];
    const struct cs_node *n = &f->nodes[port->node];
    if (!s->port_info_valid[p])
        return false;
    if (cs_node_is_switch(n)) {
        if (port->num == 0 ? !n->enhanced_port0 : port->peer == CS_NONE)
            return false; /* OpenSM leaves a port without a link as it is */
        *path = s->path[port->node];
        return true;
    }
    if (port->num == 0 || port->peer == CS_NONE || port->guid == 0)
        return false;
    return cs_sm_port_path(s, p, path);
}

static struct block *list_blocks(const struct cs_sm_sweep *s, const struct cs_qos_config *q,
                                 uint32_t *count, struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    struct block *blocks =
        cs_calloc_array((uint64_t)f->num_port_slots * BLOCKS + 1, sizeof *blocks, err);
    if (blocks == NULL)
        return NULL;
    uint32_t k = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        struct cs_dr_path path;
        if (!qos_port(s, p, &path))
            continue;
        const struct cs_smp_port_info *pi = &s->port_info[p];
        const struct cs_qos_class_config *cls = &q->cls[cs_sm_qos_class(f, p)];
        uint8_t mask = cs_sm_qos_vl_mask(pi->operational_vls);
        bool sw = cs_node_is_switch(&f->nodes[f->ports[p].node]);
        for (unsigned b = 0; b < BLOCKS; b++) {
            unsigned size = block_size(pi, b);
            if (size == 0)
                continue;
            const struct cs_smp_vlarb *from =
                b < 2 ? &cls->vlarb_low[b % 2] : &cls->vlarb_high[b % 2];
            struct block *blk = &blocks[k++];
            *blk = (struct block){.port = p,
                                  .mod = (b + 1) << 16 | (sw ? f->ports[p].num : 0u),
                                  .path = path,
                                  .size = size};
            for (unsigned i = 0; i < size; i++) {
                blk->want.vl[i] = from->vl[i] & mask;
                blk->want.weight[i] = from->weight[i];
            }
        }
    }
    *count = k;
    return blocks;
}

static int run_blocks(struct cs_smp_pipe *pipe, struct vlarb_phase *ph, struct block *blocks,
                      uint32_t count, bool set, uint64_t *sent, struct cs_error *err)
{
    struct vlarb_job *jobs = cs_calloc_array(count ? count : 1, sizeof *jobs, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        struct block *b = &blocks[i];
        uint8_t data[CS_SMP_DATA_SIZE];
        if (set) {
            if (block_right(b))
                continue;
            cs_smp_vlarb_encode(&b->want, data);
        }
        jobs[i] = (struct vlarb_job){ph, b};
        (*sent)++;
        rc = cs_sm_submit_dr(pipe, set ? CS_SMP_METHOD_SET : CS_SMP_METHOD_GET,
                             CS_SMP_ATTR_VL_ARBITRATION, b->mod, &b->path, set ? data : NULL,
                             block_done, &jobs[i], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    return rc;
}

struct limit_job {
    struct vlarb_phase *ph;
    uint32_t port;
};

static int limit_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                      const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct limit_job *job = arg;
    struct cs_sm_sweep *s = job->ph->s;
    if (cs_sm_smp_failed(s, job->ph->log, s->fabric.ports[job->port].node, result, req, reply)) {
        job->ph->failures++;
        return 0;
    }
    cs_smp_port_info_decode(reply->data, &s->port_info[job->port]);
    return 0;
}

/* PortInfo VLHighLimit where it differs, on the ports that take VLArbitration tables. */
static int send_limits(struct cs_smp_pipe *pipe, struct vlarb_phase *ph,
                       const struct cs_qos_config *q, uint64_t *sent, struct cs_error *err)
{
    struct cs_sm_sweep *s = ph->s;
    const struct cs_fabric *f = &s->fabric;
    struct limit_job *jobs = cs_calloc_array(f->num_port_slots + 1, sizeof *jobs, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++) {
        struct cs_dr_path path;
        if (!qos_port(s, p, &path))
            continue;
        uint8_t want = q->cls[cs_sm_qos_class(f, p)].high_limit;
        struct cs_smp_port_info pi = s->port_info[p];
        if (pi.vl_high_limit == want)
            continue;
        pi.vl_high_limit = want;
        /* 0 = "no change" for the states and the enable fields (as every PortInfo Set of the
         * core): this Set must move nothing else. */
        pi.port_state = CS_SMP_PORT_STATE_NO_CHANGE;
        pi.port_physical_state = 0;
        pi.link_width_enabled = 0;
        pi.link_speed_enabled = 0;
        pi.link_speed_ext_enabled = 0;
        uint8_t data[CS_SMP_DATA_SIZE];
        cs_smp_port_info_encode(&pi, data);
        jobs[p] = (struct limit_job){ph, p};
        (*sent)++;
        rc = cs_sm_submit_dr(pipe, CS_SMP_METHOD_SET, CS_SMP_ATTR_PORT_INFO, f->ports[p].num, &path,
                             data, limit_done, &jobs[p], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    return rc;
}

int cs_sm_program_vlarb(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                        const struct cs_qos_config *q, const struct cs_log *log,
                        struct cs_sm_vlarb_counts *counts, struct cs_error *err)
{
    *counts = (struct cs_sm_vlarb_counts){0};
    struct vlarb_phase ph = {.s = s, .log = log};
    uint32_t count = 0;
    struct block *blocks = list_blocks(s, q, &count, err);
    if (blocks == NULL)
        return -1;
    int rc = run_blocks(pipe, &ph, blocks, count, false, &counts->blocks_read, err);
    if (rc == 0)
        rc = run_blocks(pipe, &ph, blocks, count, true, &counts->blocks_sent, err);
    free(blocks);
    if (rc == 0)
        rc = send_limits(pipe, &ph, q, &counts->port_info_sets, err);
    counts->failures = ph.failures;
    if (rc < 0)
        return -1;
    cs_logf(log, CS_LOG_DEBUG,
            "vlarb: %llu blocks read, %llu sent, %llu VLHighLimit sets, %u failures",
            (unsigned long long)counts->blocks_read, (unsigned long long)counts->blocks_sent,
            (unsigned long long)counts->port_info_sets, ph.failures);
    return 0;
}
