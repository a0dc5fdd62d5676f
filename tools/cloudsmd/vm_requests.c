/* cloudsmd's VM requests (vm_requests.h). */
#include "cloudsmd/vm_requests.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/json.h"

int cloudsmd_vm_queue_add(struct cloudsmd_vm_queue *q, const struct cs_sm_request *req,
                          struct cs_error *err)
{
    if (q->count == q->capacity) {
        uint32_t cap = q->capacity ? 2 * q->capacity : 16;
        struct cs_sm_vm_job *jobs = realloc(q->jobs, cap * sizeof *jobs);
        if (jobs)
            q->jobs = jobs;
        uint64_t *tickets = realloc(q->tickets, cap * sizeof *tickets);
        if (tickets)
            q->tickets = tickets;
        bool *json = realloc(q->json, cap * sizeof *json);
        if (json)
            q->json = json;
        if (!jobs || !tickets || !json)
            return cs_fail(err, "out of memory queueing a VM request");
        q->capacity = cap;
    }
    struct cs_sm_vm_job *job = &q->jobs[q->count];
    memset(job, 0, sizeof *job);
    /* The parser refused a longer name (CS_VM_NAME_MAX). */
    snprintf(job->name, sizeof job->name, "%.*s", (int)sizeof job->name - 1, req->argv[0]);
    job->req.op = req->command == CS_SM_CMD_VM_CREATE    ? CS_VM_CREATE
                  : req->command == CS_SM_CMD_VM_DESTROY ? CS_VM_DESTROY
                                                         : CS_VM_MIGRATE;
    job->req.hypervisor = req->vm.hypervisor;
    job->req.vguid = req->vm.vguid;
    job->req.vf = req->vm.vf;
    job->opt.method = req->vm.method;
    job->opt.port255 = req->vm.port255;
    q->tickets[q->count] = req->ticket;
    q->json[q->count] = req->json;
    q->count++;
    return 0;
}

/* One client's answer: written by the control socket's deferred-reply call. */
struct answer {
    const struct cs_sm_vm_job *job;
    bool json;
    const char *error; /* the whole queue failed: this, not the job's own */
};

static int write_answer(void *arg, const struct cs_sm_request *req, FILE *out, struct cs_error *err)
{
    (void)req;
    const struct answer *a = arg;
    const struct cs_sm_vm_job *job = a->job;
    if (a->error)
        return cs_fail(err, "%s", a->error);
    if (job->status < 0)
        return cs_fail(err, "%s", job->error.msg);
    const struct cs_sm_vm_result *r = &job->result;
    if (a->json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "op", cs_vm_op_name((enum cs_vm_op)job->req.op));
        cs_json_str(&j, "vm", job->name);
        cs_json_u64(&j, "lid", r->lid);
        cs_json_guid(&j, "hypervisor", r->hypervisor);
        cs_json_u64(&j, "vf", r->vf);
        cs_json_str(&j, "method", cs_plan_method_name((enum cs_plan_method)job->opt.method));
        cs_json_bool(&j, "port255", job->opt.port255);
        cs_json_u64(&j, "switches_selected", r->switches_selected);
        cs_json_u64(&j, "switches_updated", r->switches_updated);
        cs_json_u64(&j, "planned_smps", r->planned_smps);
        cs_json_u64(&j, "lft_smps", r->lft_smps);
        cs_json_u64(&j, "port255_smps", r->port255_smps);
        cs_json_u64(&j, "port_info_smps", r->port_info_smps);
        cs_json_u64(&j, "vswitch_lft_smps", r->vswitch_lft_smps);
        cs_json_u64(&j, "guid_info_smps", r->guid_info_smps);
        cs_json_u64(&j, "guid_info_refused", r->guid_info_refused);
        cs_json_u64(&j, "total_smps", r->total_smps);
        cs_json_u64(&j, "failures", r->failures);
        cs_json_u64(&j, "batch_size", r->batch_size);
        cs_json_double(&j, "plan_ms", r->plan_ms);
        cs_json_double(&j, "commit_ms", r->commit_ms);
        cs_json_double(&j, "program_ms", r->program_ms);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return 0;
    }
    fprintf(out, "vm %s %s: LID %u on hypervisor 0x%016" PRIx64 " VF %u\n",
            cs_vm_op_name((enum cs_vm_op)job->req.op), job->name, r->lid, r->hypervisor, r->vf);
    fprintf(out, "switches      %u selected (%s%s), %u updated\n", r->switches_selected,
            cs_plan_method_name((enum cs_plan_method)job->opt.method),
            job->opt.port255 ? ", port-255 first" : "", r->switches_updated);
    fprintf(out,
            "smps          %" PRIu64 " sent: %" PRIu64 " LFT, %" PRIu64 " port-255, %" PRIu64
            " PortInfo, %" PRIu64 " vSwitch LFT, %" PRIu64 " GUIDInfo (plan: %" PRIu64 ")\n",
            r->total_smps, r->lft_smps, r->port255_smps, r->port_info_smps, r->vswitch_lft_smps,
            r->guid_info_smps, r->planned_smps);
    fprintf(out, "time          plan %.2f ms, commit %.2f ms, program %.2f ms (batch of %u)\n",
            r->plan_ms, r->commit_ms, r->program_ms, r->batch_size);
    if (r->guid_info_refused)
        fprintf(out,
                "vGUIDs        %" PRIu64 " GUIDInfo Sets refused (the SA answers for the vGUID "
                "all the same)\n",
                r->guid_info_refused);
    if (r->failures)
        fprintf(out, "failures      %u SMPs refused or lost: a heavy sweep mends them\n",
                r->failures);
    return 0;
}

/* Answer the jobs that are done (status != 1) and keep the deferred ones, in order. */
static void answer_done(struct cloudsmd_vm_queue *q, struct cs_sm_control *control)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < q->count; i++) {
        if (q->jobs[i].status == 1) {
            q->jobs[kept] = q->jobs[i];
            q->tickets[kept] = q->tickets[i];
            q->json[kept] = q->json[i];
            kept++;
            continue;
        }
        struct answer a = {&q->jobs[i], q->json[i], NULL};
        cs_sm_control_complete(control, q->tickets[i], write_answer, &a);
    }
    q->count = kept;
}

void cloudsmd_vm_queue_run(struct cloudsmd_vm_queue *q, struct cs_sm_core *c,
                           struct cs_sm_control *control)
{
    while (q->count > 0) {
        struct cs_error err;
        int done = cs_sm_core_vm_run(c, q->jobs, q->count, &err);
        if (done < 0) {
            cloudsmd_vm_queue_abort(q, control, err.msg);
            return;
        }
        answer_done(q, control);
        if (done == 0) { /* cannot happen: the first job never waits for another */
            cloudsmd_vm_queue_abort(q, control, "no VM request could run");
            return;
        }
    }
}

void cloudsmd_vm_queue_abort(struct cloudsmd_vm_queue *q, struct cs_sm_control *control,
                             const char *why)
{
    for (uint32_t i = 0; i < q->count; i++) {
        struct answer a = {&q->jobs[i], q->json[i], why};
        cs_sm_control_complete(control, q->tickets[i], write_answer, &a);
    }
    q->count = 0;
}

void cloudsmd_vm_queue_free(struct cloudsmd_vm_queue *q)
{
    free(q->jobs);
    free(q->tickets);
    free(q->json);
    memset(q, 0, sizeof *q);
}

void cloudsmd_vm_list(const struct cs_sm_core *c, bool as_json, FILE *out)
{
    const struct cs_vm_state *s = cs_sm_core_vms(c);
    enum cs_lid_policy policy = cs_sm_core_vm_policy(c);
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "lid_policy", cs_lid_policy_name(policy));
        cs_json_str(&j, "state_file", c->vm_state_path);
        cs_json_u64(&j, "hypervisors", c->hyps.count);
        cs_json_u64(&j, "vfs", c->hyps.num_vfs);
        cs_json_u64(&j, "operations", c->vm_ops);
        cs_json_array_begin(&j, "vms");
        for (uint32_t i = 0; i < s->count; i++) {
            cs_json_object_begin(&j, NULL);
            cs_json_str(&j, "name", s->vms[i].name);
            cs_json_guid(&j, "vguid", s->vms[i].vguid);
            cs_json_u64(&j, "lid", s->vms[i].lid);
            cs_json_guid(&j, "hypervisor", s->vms[i].hypervisor);
            cs_json_u64(&j, "vf", s->vms[i].vf);
            cs_json_object_end(&j);
        }
        cs_json_array_end(&j);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return;
    }
    fprintf(out, "%u VM%s, %s LIDs, %u hypervisors with %u VFs (state in %s)\n", s->count,
            s->count == 1 ? "" : "s", cs_lid_policy_name(policy), c->hyps.count, c->hyps.num_vfs,
            c->vm_state_path);
    for (uint32_t i = 0; i < s->count; i++)
        fprintf(out, "vm %s vguid=0x%016" PRIx64 " lid=%u hypervisor=0x%016" PRIx64 " vf=%u\n",
                s->vms[i].name, s->vms[i].vguid, s->vms[i].lid, s->vms[i].hypervisor, s->vms[i].vf);
}
