/* Master SM election, the part cloudsmd needs before it may program a fabric (IBA 14.4): find
 * another MASTER, and answer other SMs' SMInfo queries so that they find us. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sm.h"
#include "core/grow.h"

struct probe {
    const struct cs_sm_sweep *s;
    const struct cs_sm_log *log;
    uint32_t port;
    uint64_t *master_guid;
    int found;
};

static int sminfo_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                       const struct cs_smp *reply, struct cs_error *err)
{
    (void)req;
    (void)err;
    struct probe *pr = arg;
    const struct cs_fabric *f = &pr->s->fabric;
    const struct cs_port *port = &f->ports[pr->port];
    if (result != CS_SMP_OK) {
        /* IsSM without an answering SM: a port whose SM died. Nothing to yield to. */
        cs_sm_logf(pr->log, CS_SM_LOG_DEBUG, "port 0x%016llx advertises IsSM but %s SMInfo",
                   (unsigned long long)port->guid,
                   result == CS_SMP_TIMEOUT ? "does not answer" : "refuses");
        return 0;
    }
    struct cs_smp_sm_info info;
    cs_smp_sm_info_decode(reply->data, &info);
    cs_sm_logf(pr->log, CS_SM_LOG_INFO, "SM on port 0x%016llx \"%s\": state %u, priority %u",
               (unsigned long long)info.guid, f->nodes[port->node].desc, info.sm_state,
               info.priority);
    if (info.sm_state == CS_SMP_SM_STATE_MASTER) {
        pr->found = 1;
        *pr->master_guid = info.guid;
    }
    return 0;
}

int cs_sm_find_master(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                      const struct cs_sm_log *log, uint64_t *master_guid, struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    unsigned candidates = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (p != s->sm_port && s->port_info_valid[p] &&
            (s->port_info[p].capability_mask & CS_SMP_PORT_CAP_IS_SM))
            candidates++;
    if (candidates == 0)
        return 0;
    struct probe *probes = cs_calloc_array(candidates, sizeof(*probes), err);
    if (probes == NULL)
        return -1;
    int found = 0;
    unsigned k = 0;
    int rc = 0;
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++) {
        if (p == s->sm_port || !s->port_info_valid[p] ||
            !(s->port_info[p].capability_mask & CS_SMP_PORT_CAP_IS_SM))
            continue;
        struct cs_dr_path path;
        if (!cs_sm_port_path(s, p, &path))
            continue;
        probes[k] = (struct probe){s, log, p, master_guid, 0};
        struct cs_smp smp;
        rc = cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, path.port,
                                  path.hops, 0, err);
        if (rc == 0)
            rc =
                cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, sminfo_done, &probes[k], err);
        k++;
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    for (unsigned i = 0; i < k; i++)
        found |= probes[i].found;
    free(probes);
    return rc < 0 ? -1 : found;
}

int cs_sm_answer_sminfo(void *arg, const struct cs_smp *mad, struct cs_smp *answer)
{
    const struct cs_sm_identity *me = arg;
    if (mad->attr_id != CS_SMP_ATTR_SM_INFO || mad->method != CS_SMP_METHOD_GET)
        return 0;
    /* A response is the request turned around: same transaction id and paths, GetResp, and in a
     * directed-route SMP the direction bit set. */
    *answer = *mad;
    answer->method = CS_SMP_METHOD_GET_RESP;
    answer->status = mad->mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE ? CS_SMP_STATUS_DIRECTION : 0;
    /* The SM_Key is a secret only where an M_Key protects the SM port: an asker that cannot
     * present that M_Key reads 0 (IBA 14.4.1, M_Key authentication; OpenSM 3.3.23 answers the
     * same way, and ignores an SM whose key differs from its own). */
    bool authenticated = me->m_key == 0 || mad->m_key == me->m_key;
    struct cs_smp_sm_info info = {
        .guid = me->guid,
        .sm_key = authenticated ? me->sm_key : 0,
        .act_count = me->pipe ? (uint32_t)cs_smp_pipe_stats(me->pipe).sent : 0,
        .priority = me->priority,
        .sm_state = me->state,
    };
    cs_smp_sm_info_encode(&info, answer->data);
    return 1;
}
