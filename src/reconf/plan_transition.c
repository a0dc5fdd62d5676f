/* Credit loops while a plan is applied (include/cloudsm/vm_plan.h, docs/vswitch.md
 * "Deadlock freedom"): the plan's phases replayed one after the other, each checked with the
 * LFT check's channel dependency graph over its old and new entries together. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/analyze.h"
#include "cloudsm/vm_plan.h"
#include "core/grow.h"

static int check_phase(const struct cs_fabric *f, const struct cs_lfts *before,
                       const struct cs_lfts *after, struct cs_check_result *r, struct cs_error *err)
{
    struct cs_tracer tracer;
    if (cs_tracer_init(&tracer, f, after, err) < 0)
        return -1;
    struct cs_check_options opt = {.skip_ports_without_lid = true, .transition_from = before};
    int rc = cs_check_lfts(&tracer, &opt, r, err);
    cs_tracer_free(&tracer);
    return rc;
}

int cs_plan_check_transition(const struct cs_fabric *f, const struct cs_hypervisors *h,
                             const struct cs_switch_tree *tr, const struct cs_lfts *old_set,
                             const struct cs_lfts *new_set, const struct cs_plan *plan,
                             const struct cs_vm_state *s, struct cs_plan_transition *out,
                             struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    out->loop_phase = CS_NONE;
    /* The ports in use: free VFs lose their LIDs in a copy of the fabric. */
    struct cs_fabric in_use;
    cs_fabric_init(&in_use);
    if (cs_fabric_copy(&in_use, f, err) < 0)
        return -1;
    for (uint32_t v = 0; v < h->num_vfs; v++)
        in_use.ports[h->vf_port[v]].lid = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        uint32_t hyp = cs_hypervisor_by_guid(h, f, s->vms[i].hypervisor);
        uint32_t port = cs_hypervisor_vf_port(h, hyp, s->vms[i].vf);
        if (port != CS_NONE)
            in_use.ports[port].lid = f->ports[port].lid;
    }
    uint32_t *ends = cs_calloc_array(plan->count + 1u, sizeof *ends, err);
    if (!ends) {
        cs_fabric_free(&in_use);
        return -1;
    }
    out->phases = cs_plan_phases(plan, ends);
    struct cs_lfts states[2];
    int rc = -1;
    if (cs_lfts_copy(&states[0], old_set, err) < 0)
        goto no_states;
    if (cs_lfts_copy(&states[1], old_set, err) < 0)
        goto one_state;
    for (uint32_t p = 0; p < out->phases && out->loop_phase == CS_NONE; p++) {
        /* states[p % 2] holds the tables before phase p; the other, old with an earlier prefix
         * replayed, becomes those after it: every SMP overwrites entries with fixed values, so
         * replaying the longer prefix over it gives old + that prefix. */
        struct cs_lfts *before = &states[p % 2], *after = &states[(p + 1) % 2];
        cs_plan_replay(plan, ends[p], new_set, tr, after);
        struct cs_check_result r;
        if (check_phase(&in_use, before, after, &r, err) < 0)
            goto done;
        out->lids_changing += r.transition_lids;
        out->cdg_edges = r.cdg_edges;
        if (r.credit_loop)
            out->loop_phase = p;
        cs_check_result_free(&r);
    }
    rc = 0;
done:
    cs_lfts_free(&states[1]);
one_state:
    cs_lfts_free(&states[0]);
no_states:
    free(ends);
    cs_fabric_free(&in_use);
    return rc;
}
