/* The SM's side of event reporting (include/cloudsm/informs.h): the traps it issues when end
 * ports come into service (64) or go out of it (65) between heavy sweeps, matched against the
 * subscriptions by the SA (cs_sa_report_port_trap), and the Reports the SA queued sent to their
 * subscribers through the SMP pipe, with its timeouts and retries (OpenSM's
 * transaction_timeout and transaction_retries), each acknowledged by a ReportResp. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/informs.h"
#include "core/grow.h"
#include "sm/core_internal.h"
#include "sm/phase.h"

static bool subscriptions(const struct cs_sm_core *c)
{
    return c->informs != NULL && cs_informs_count(c->informs) > 0;
}

int cs_sm_core_note_departures(struct cs_sm_core *c, const struct cs_sm_sweep *fresh,
                               struct cs_error *err)
{
    free(c->arrived);
    c->arrived = NULL;
    c->num_arrived = 0;
    if (!subscriptions(c) || c->sweep.fabric.num_nodes == 0)
        return 0;
    /* Ports that came: reported once the SA knows them (their partitions). */
    const struct cs_fabric *ff = &fresh->fabric;
    uint32_t cap = 0;
    for (uint32_t p = 0; p < ff->num_port_slots; p++) {
        if (!cs_sm_end_port(fresh, p) ||
            cs_sm_sweep_end_port_by_guid(&c->sweep, ff->ports[p].guid) != CS_NONE)
            continue;
        if (cs_grow((void **)&c->arrived, &cap, (uint64_t)c->num_arrived + 1, sizeof *c->arrived,
                    err) < 0)
            return -1;
        c->arrived[c->num_arrived++] = ff->ports[p].guid;
    }
    /* Ports that went: with drop_event_subscriptions their own subscriptions go (OpenSM's drop
     * manager), and the others hear of them, judged by the SA of the sweep that still had
     * them. */
    const struct cs_fabric *f = &c->sweep.fabric;
    int rc = 0;
    uint32_t departed = 0, reports = 0;
    for (uint32_t p = 0; p < f->num_port_slots && rc == 0; p++) {
        if (!cs_sm_end_port(&c->sweep, p) ||
            cs_sm_sweep_end_port_by_guid(fresh, f->ports[p].guid) != CS_NONE)
            continue;
        departed++;
        uint32_t dropped = c->cfg.drop_event_subscriptions
                               ? cs_informs_drop_subscriber(c->informs, f->ports[p].guid)
                               : 0;
        if (dropped)
            cs_logf(&c->log, CS_LOG_INFO, "informs: %u subscriptions of port 0x%016llx dropped",
                    dropped, (unsigned long long)f->ports[p].guid);
        if (c->sa == NULL)
            continue;
        int queued =
            cs_sa_report_port_trap(c->sa, CS_TRAP_GID_OUT_OF_SERVICE, f->ports[p].guid, err);
        if (queued < 0)
            rc = -1;
        else
            reports += (uint32_t)queued;
    }
    if (departed)
        cs_logf(&c->log, CS_LOG_INFO, "informs: %u ports out of service (trap 65): %u reports",
                departed, reports);
    return rc;
}

int cs_sm_core_note_arrivals(struct cs_sm_core *c, struct cs_error *err)
{
    uint32_t reports = 0;
    for (uint32_t i = 0; i < c->num_arrived && c->sa != NULL; i++) {
        int queued = cs_sa_report_port_trap(c->sa, CS_TRAP_GID_IN_SERVICE, c->arrived[i], err);
        if (queued < 0)
            return -1;
        reports += (uint32_t)queued;
    }
    if (c->num_arrived)
        cs_logf(&c->log, CS_LOG_INFO, "informs: %u ports in service (trap 64): %u reports",
                c->num_arrived, reports);
    free(c->arrived);
    c->arrived = NULL;
    c->num_arrived = 0;
    return 0;
}

void cs_sm_core_note_trap(struct cs_sm_core *c, const struct cs_smp *trap)
{
    struct cs_error err;
    if (c->num_traps >= CS_SM_CORE_TRAPS_MAX ||
        cs_grow((void **)&c->traps, &c->traps_cap, (uint64_t)c->num_traps + 1, sizeof *c->traps,
                &err) < 0) {
        c->traps_dropped++;
        return;
    }
    /* An SMP carries the Notice's first 64 bytes: all but the IssuerGID. */
    uint8_t notice[CS_NOTICE_SIZE] = {0};
    memcpy(notice, trap->data, CS_SMP_DATA_SIZE);
    cs_notice_decode(notice, &c->traps[c->num_traps++]);
}

int cs_sm_core_report_traps(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->sa == NULL || c->num_traps == 0)
        return 0;
    for (uint32_t i = 0; i < c->num_traps; i++) {
        const struct cs_notice *n = &c->traps[i];
        int queued = cs_sa_report_trap(c->sa, &c->traps[i], err);
        if (queued < 0)
            return -1;
        if (queued > 0)
            cs_logf(&c->log, CS_LOG_INFO, "informs: trap %u from LID %u: %d reports",
                    n->trap_number, n->issuer_lid, queued);
    }
    if (c->traps_dropped)
        cs_logf(&c->log, CS_LOG_WARN, "informs: %u traps not forwarded (more than %u waiting)",
                c->traps_dropped, CS_SM_CORE_TRAPS_MAX);
    c->num_traps = 0;
    c->traps_dropped = 0;
    return 0;
}

void cs_sm_core_drop_reports(struct cs_sm_core *c)
{
    uint32_t reports = 0;
    if (c->informs != NULL) {
        struct cs_report r;
        while (cs_informs_take_reports(c->informs, &r, 1) == 1)
            reports++;
    }
    if (reports || c->num_traps)
        cs_logf(&c->log, CS_LOG_INFO, "informs: standing by: %u traps and %u Reports not sent",
                c->num_traps, reports);
    c->num_traps = 0;
    c->traps_dropped = 0;
}

/* One Report on its way: what its completion logs. A slot of the core's pool of
 * CS_SM_CORE_REPORTS_IN_FLIGHT: free again when the Report is acknowledged or lost. */
struct cs_sm_report_slot {
    struct cs_sm_core *c;
    bool busy;
    struct cs_report report;
};

static int report_done(void *arg, enum cs_smp_result result, const uint8_t *request,
                       const uint8_t *reply, struct cs_error *err)
{
    (void)request;
    (void)reply;
    (void)err;
    struct cs_sm_report_slot *slot = arg;
    struct cs_sm_core *c = slot->c;
    slot->busy = false;
    c->reports_in_flight--;
    if (result == CS_SMP_OK) {
        c->reports_acknowledged++;
        return 0;
    }
    c->reports_lost++;
    cs_logf(&c->log, CS_LOG_WARN,
            "informs: the Report of trap %u to LID %u (port 0x%016llx) was %s",
            slot->report.notice.trap_number, slot->report.to.lid,
            (unsigned long long)slot->report.subscriber_guid,
            result == CS_SMP_TIMEOUT ? "never acknowledged" : "refused");
    return 0;
}

int cs_sm_core_send_reports(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->informs == NULL)
        return 0;
    uint64_t dropped = cs_informs_take_dropped(c->informs);
    if (dropped)
        cs_logf(&c->log, CS_LOG_WARN, "informs: %llu Reports dropped: more than %u waiting",
                (unsigned long long)dropped, CS_INFORMS_OUTBOX_MAX);
    if (cs_informs_pending(c->informs) == 0)
        return 0;
    if (c->report_slots == NULL &&
        (c->report_slots =
             cs_calloc_array(CS_SM_CORE_REPORTS_IN_FLIGHT, sizeof *c->report_slots, err)) == NULL)
        return -1;
    /* Submitted, not run: the pipe delivers them while the SM idles (cs_smp_pipe_idle) or runs
     * its next requests, so that a subscriber that never answers holds up nothing. What finds no
     * free slot waits in the outbox for the next turn. */
    for (uint32_t i = 0; i < CS_SM_CORE_REPORTS_IN_FLIGHT && cs_informs_pending(c->informs); i++) {
        struct cs_sm_report_slot *slot = &c->report_slots[i];
        if (slot->busy)
            continue;
        cs_informs_take_reports(c->informs, &slot->report, 1);
        /* SubnAdmReport(Notice) (IBA 13.4.9): the pipe writes the transaction id. */
        uint8_t mad[CS_SA_MAD_SIZE];
        struct cs_sa_header h = {.method = CS_SA_METHOD_REPORT, .attr_id = CS_SA_ATTR_NOTICE};
        cs_sa_mad_encode(&h, NULL, 0, mad);
        cs_notice_encode(&slot->report.notice, mad + CS_SA_HEADER_SIZE);
        slot->c = c;
        if (cs_smp_pipe_submit_mad(c->pipe, mad, slot->report.to.lid, report_done, slot, err) < 0)
            return -1;
        slot->busy = true;
        c->reports_in_flight++;
        c->reports_sent++;
    }
    return 0;
}
