/* Alias GUIDs on a live fabric: the GUIDInfo blocks the SA changed, written into the ports
 * (include/cloudsm/sm.h, cs_sm_program_alias_guids; the store is include/cloudsm/alias_guids.h).
 *
 * As OpenSM 3.3.23 does it (osm_guid_mgr.c): one GUIDInfo Set per changed block, with the block as
 * the SA holds it, sent once; a port that refuses it or does not answer is logged and counted,
 * and the SA goes on answering from its own view (OpenSM's ERR 3111 on ibsim, whose agents refuse
 * every GUIDInfo Set with status 0x0008). A block is not sent again by later sweeps: a host
 * registers again when its port comes back (client reregistration).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "cloudsm/alias_guids.h"
#include "cloudsm/sm.h"
#include "core/grow.h"
#include "sm/phase.h"

struct guid_job {
    const struct cs_sm_sweep *s;
    const struct cs_log *log;
    struct cs_sm_alias_counts *counts;
    uint32_t port; /* port slot */
    unsigned block;
    uint64_t guids[CS_ALIAS_GUIDS_PER_BLOCK];
};

static int block_set_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                          const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct guid_job *job = arg;
    const struct cs_fabric *f = &job->s->fabric;
    if (cs_sm_smp_failed(job->s, job->log, f->ports[job->port].node, result, req, reply)) {
        job->counts->failures++;
        return 0;
    }
    /* The agent answers with the block it holds: say so when it did not take what was sent. */
    struct cs_smp_guid_block got;
    cs_smp_guid_block_decode(reply->data, &got);
    for (unsigned i = 0; i < CS_ALIAS_GUIDS_PER_BLOCK; i++)
        if (got.guid[i] != job->guids[i]) {
            job->counts->differing++;
            cs_logf(job->log, CS_LOG_WARN,
                    "GUIDInfo block %u of port 0x%016" PRIx64 ": entry %u holds 0x%016" PRIx64
                    " after the Set, not 0x%016" PRIx64,
                    job->block, f->ports[job->port].guid, i, got.guid[i], job->guids[i]);
            break;
        }
    return 0;
}

int cs_sm_program_alias_guids(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                              struct cs_alias_guids *aliases, const struct cs_log *log,
                              struct cs_sm_alias_counts *counts, struct cs_error *err)
{
    *counts = (struct cs_sm_alias_counts){0};
    if (!cs_alias_guids_pending(aliases))
        return 0;
    struct guid_job *jobs = NULL;
    uint32_t num_jobs = 0, cap_jobs = 0;
    uint64_t port_guid;
    unsigned block;
    uint64_t guids[CS_ALIAS_GUIDS_PER_BLOCK];
    int rc = 0;
    /* Take every changed block first: a Set or Delete answered while these are in flight marks
     * its block again, for the next call. */
    while (rc == 0 && cs_alias_guids_take(aliases, &port_guid, &block, guids)) {
        uint32_t p = cs_sm_sweep_end_port_by_guid(s, port_guid);
        if (p == CS_NONE) {
            counts->skipped++; /* gone since: cs_alias_guids_sync drops its table */
            continue;
        }
        if (cs_grow((void **)&jobs, &cap_jobs, (uint64_t)num_jobs + 1, sizeof *jobs, err) < 0) {
            rc = -1;
            break;
        }
        struct guid_job *job = &jobs[num_jobs++];
        *job = (struct guid_job){s, log, counts, p, block, {0}};
        for (unsigned i = 0; i < CS_ALIAS_GUIDS_PER_BLOCK; i++)
            job->guids[i] = guids[i];
    }
    for (uint32_t j = 0; j < num_jobs && rc == 0; j++) {
        struct guid_job *job = &jobs[j];
        struct cs_dr_path path;
        if (!cs_sm_port_path(s, job->port, &path)) {
            counts->failures++;
            cs_logf(log, CS_LOG_WARN, "no directed route to port 0x%016" PRIx64 " for its GUIDInfo",
                    s->fabric.ports[job->port].guid);
            continue;
        }
        struct cs_smp_guid_block b;
        for (unsigned i = 0; i < CS_ALIAS_GUIDS_PER_BLOCK; i++)
            b.guid[i] = job->guids[i];
        uint8_t data[CS_SMP_DATA_SIZE];
        cs_smp_guid_block_encode(&b, data);
        counts->blocks_sent++;
        rc = cs_sm_submit_dr(pipe, CS_SMP_METHOD_SET, CS_SMP_ATTR_GUID_INFO, job->block, &path,
                             data, block_set_done, job, err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    if (rc < 0)
        return -1;
    cs_logf(log, counts->failures ? CS_LOG_WARN : CS_LOG_INFO,
            "alias GUIDs: %llu GUIDInfo blocks sent, %u failures, %llu held other GUIDs after",
            (unsigned long long)counts->blocks_sent, counts->failures,
            (unsigned long long)counts->differing);
    return 0;
}
