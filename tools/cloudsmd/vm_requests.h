/* cloudsmd's VM requests on the control socket (vm-create, vm-migrate, vm-destroy, vm-list).
 *
 * A VM operation is answered when it is done, not when it arrives: the control handler queues it
 * (a deferred reply, sm_control.h) and the loop runs the queue through the SM core
 * (cs_sm_core_vm_run) after each pass over the socket, so that requests that came together run
 * together, in parallel where their sub-trees are disjoint; each client then gets what its
 * operation sent and how long it took. */
#ifndef CLOUDSMD_VM_REQUESTS_H
#define CLOUDSMD_VM_REQUESTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/sm_control.h"
#include "cloudsm/sm_core.h"

struct cloudsmd_vm_queue {
    struct cs_sm_vm_job *jobs;
    uint64_t *tickets; /* the control socket's handle of each job's client */
    bool *json;        /* the client asked for --json */
    uint32_t count, capacity;
};

/* Queue a vm-create, vm-migrate or vm-destroy request. */
int cloudsmd_vm_queue_add(struct cloudsmd_vm_queue *q, const struct cs_sm_request *req,
                          struct cs_error *err);

/* Run what is queued, batch after batch, and answer each client when its operation is done. */
void cloudsmd_vm_queue_run(struct cloudsmd_vm_queue *q, struct cs_sm_core *c,
                           struct cs_sm_control *control);

/* Answer every queued request with an error (cloudsmd stops) and empty the queue. */
void cloudsmd_vm_queue_abort(struct cloudsmd_vm_queue *q, struct cs_sm_control *control,
                             const char *why);

void cloudsmd_vm_queue_free(struct cloudsmd_vm_queue *q);

/* The vm-list reply: the VMs the SM runs, text or one JSON object. */
void cloudsmd_vm_list(const struct cs_sm_core *c, bool json, FILE *out);

#endif
