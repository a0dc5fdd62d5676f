/* Light sweep (include/cloudsm/sm.h): one SwitchInfo per switch, as OpenSM's light sweep reads
 * PortStateChange, and the flags cleared for the next round; and the SM's own PortInfo, which
 * cloudsmd polls while its port is down. */
#include <stdlib.h>

#include "cloudsm/sm.h"
#include "core/grow.h"
#include "sm/phase.h"

struct probe {
    struct cs_smp_pipe *pipe;
    const struct cs_sm_sweep *s;
    const struct cs_log *log;
    uint32_t node;
    int *changed;
    struct cs_smp_switch_info info;
};

static int clear_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                      const struct cs_smp *reply, struct cs_error *err)
{
    (void)req;
    (void)reply;
    (void)err;
    struct probe *pr = arg;
    if (result != CS_SMP_OK)
        cs_logf(pr->log, CS_LOG_DEBUG,
                "light sweep: switch 0x%016llx did not clear PortStateChange",
                (unsigned long long)pr->s->fabric.nodes[pr->node].guid);
    return 0;
}

static int info_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                     const struct cs_smp *reply, struct cs_error *err)
{
    struct probe *pr = arg;
    const struct cs_node *n = &pr->s->fabric.nodes[pr->node];
    if (result != CS_SMP_OK) {
        (*pr->changed)++;
        cs_logf(pr->log, CS_LOG_DEBUG, "light sweep: switch 0x%016llx \"%s\" does not answer",
                (unsigned long long)n->guid, n->desc);
        return 0;
    }
    cs_smp_switch_info_decode(reply->data, &pr->info);
    if (!pr->info.port_state_change)
        return 0;
    (*pr->changed)++;
    cs_logf(pr->log, CS_LOG_DEBUG, "light sweep: switch 0x%016llx \"%s\" reports a port change",
            (unsigned long long)n->guid, n->desc);
    /* Writing 1 clears the flag (IBA 14.2.5.4); every other field is written back as read. */
    struct cs_smp set;
    if (cs_smp_init_directed(&set, CS_SMP_METHOD_SET, CS_SMP_ATTR_SWITCH_INFO, 0, req->initial_path,
                             req->hop_count, 0, err) < 0)
        return -1;
    cs_smp_switch_info_encode(&pr->info, set.data);
    return cs_smp_pipe_submit(pr->pipe, &set, CS_SMP_PERMISSIVE_LID, clear_done, pr, err);
}

int cs_sm_light_sweep(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                      const struct cs_log *log, struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    struct probe *probes = cs_calloc_array(f->num_nodes ? f->num_nodes : 1, sizeof(*probes), err);
    if (probes == NULL)
        return -1;
    int changed = 0, rc = 0;
    for (uint32_t n = 0; n < f->num_nodes && rc == 0; n++) {
        if (!cs_node_is_switch(&f->nodes[n]))
            continue;
        probes[n] =
            (struct probe){.pipe = pipe, .s = s, .log = log, .node = n, .changed = &changed};
        struct cs_smp smp;
        rc = cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_SWITCH_INFO, 0,
                                  s->path[n].port, s->path[n].hops, 0, err);
        if (rc == 0)
            rc = cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, info_done, &probes[n], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(probes);
    return rc < 0 ? -1 : changed;
}

/* ---- the SM's own port ---- */

struct own_port {
    struct cs_smp_port_info *info;
    bool answered;
};

static int own_port_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                         const struct cs_smp *reply, struct cs_error *err)
{
    (void)req;
    (void)err;
    struct own_port *op = arg;
    if (result != CS_SMP_OK)
        return 0;
    cs_smp_port_info_decode(reply->data, op->info);
    op->answered = true;
    return 0;
}

int cs_sm_own_port_info(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                        const struct cs_log *log, struct cs_smp_port_info *out,
                        struct cs_error *err)
{
    struct own_port op = {.info = out};
    struct cs_dr_path here = {.hops = 0};
    if (cs_sm_submit_dr(pipe, CS_SMP_METHOD_GET, CS_SMP_ATTR_PORT_INFO,
                        s->fabric.ports[s->sm_port].num, &here, NULL, own_port_done, &op,
                        err) < 0 ||
        cs_smp_pipe_run(pipe, err) < 0)
        return -1;
    if (!op.answered)
        cs_logf(log, CS_LOG_DEBUG, "the SM port's own PortInfo did not answer");
    return op.answered ? 1 : 0;
}
