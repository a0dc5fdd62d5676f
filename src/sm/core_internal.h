/* What the SM core's files share (core.c, core_vms.c, core_held.c): the sweep's calls into its
 * VM handling, the routes the switches hold, the SA's view. Internal to the library. */
#ifndef CLOUDSM_SM_CORE_INTERNAL_H
#define CLOUDSM_SM_CORE_INTERNAL_H

#include "cloudsm/error.h"
#include "cloudsm/lid.h"
#include "cloudsm/sm_core.h"

/* After discovery, before LIDs: find the hypervisors; mark in c->sweep.lid_withheld the VFs
 * that get no LID (dynamic LIDs: no VM on them); into pinned (overwritten) the guid2lid to
 * assign from: every VM's LID on its VF's port (a VM whose hypervisor is away: its vGUID, so
 * that the LID is held for it), then c->guid2lid's entries that neither name such a port nor
 * claim such a LID. */
int cs_sm_core_vms_before_lids(struct cs_sm_core *c, struct cs_guid2lid *pinned,
                               struct cs_error *err);

/* The guid2lid to keep after the LIDs are assigned: without the VMs' vGUIDs. */
void cs_sm_core_vms_drop_vguids(const struct cs_sm_core *c, struct cs_guid2lid *g);

/* After routing: with dynamic LIDs, the tables cover the LIDs VMs can be given, and every vSwitch
 * forwards every LID that is not its VFs' to its uplink. */
int cs_sm_core_vms_shape_tables(struct cs_sm_core *c, struct cs_error *err);

/* Before programming a sweep's tables (c->held carried to this sweep's switches): the live
 * routes (the VM state's live_routes) the switches hold (read back where unknown, counted into
 * reads) are kept where they still lead where they should: a migration's minimal
 * reconfiguration is not undone by a sweep. A live route that broke leaves the set. */
int cs_sm_core_vms_keep_routes(struct cs_sm_core *c, struct cs_sm_lft_counts *reads,
                               struct cs_error *err);

/* A re-route asked for programmed the engine's routes for every LID: none is live any more
 * (the VM state is written back when it listed some). */
int cs_sm_core_vms_forget_live_routes(struct cs_sm_core *c, struct cs_error *err);

/* Read back into c->held what it does not know of the switches' tables (cs_sm_read_lfts), adding
 * the blocks read and the failures to reads: what keeping a held route needs first. */
int cs_sm_core_read_held(struct cs_sm_core *c, struct cs_sm_lft_counts *reads,
                         struct cs_error *err);

/* Keep the routes the switches hold (c->held) for lids[0..count) where the whole route is known
 * and delivers to the port that owns the LID now from every switch the route in c->lfts delivers
 * from, or where no port owns the LID (it leads nowhere either way): c->lfts takes them. kept[i]
 * (may be NULL) says which were. Returns how many, or -1. */
int cs_sm_core_keep_held_routes(struct cs_sm_core *c, const uint16_t *lids, uint32_t count,
                                bool *kept, struct cs_error *err);

/* Every VM's vGUID registered as an alias GUID of its VF's port (after a sweep: the alias store
 * dropped the tables of ports that are gone); the blocks that change go out on the next turn. */
int cs_sm_core_vms_register_vguids(struct cs_sm_core *c, struct cs_error *err);

/* The SA's view, rebuilt from the current sweep and tables (core.c). */
int cs_sm_core_rebuild_sa(struct cs_sm_core *c, struct cs_error *err);
/* Build the multicast groups' trees (all, or those whose members changed) and write the MFT
 * blocks that differ (src/sm/core.c). Returns the failures, or -1. */
int cs_sm_core_program_mcast(struct cs_sm_core *c, bool all, struct cs_error *err);

/* Reports in flight at most (the rest wait in the store's outbox). */
#define CS_SM_CORE_REPORTS_IN_FLIGHT 256

/* Event reporting (core_reports.c). Before a heavy sweep's fabric (fresh) replaces the current
 * one, with the current SA still built: the end ports that went lose their subscriptions and
 * are reported out of service (trap 65), and those that came are noted. After the SA is rebuilt:
 * the noted ones are reported in service (trap 64). Sending: the Reports the SA queued are
 * submitted to the pipe (not run: they complete while the SM idles or runs), each retried until
 * its ReportResp (lost ones are logged). -1 only when out of memory or on a transport failure. */
int cs_sm_core_note_departures(struct cs_sm_core *c, const struct cs_sm_sweep *fresh,
                               struct cs_error *err);
int cs_sm_core_note_arrivals(struct cs_sm_core *c, struct cs_error *err);
int cs_sm_core_send_reports(struct cs_sm_core *c, struct cs_error *err);
/* Traps ports sent (from the pipe's unsolicited handler: nothing is sent there) wait in c->traps
 * until the SA forwards them to subscribers (cs_sa_report_trap) with report_traps; beyond
 * CS_SM_CORE_TRAPS_MAX waiting, more are counted and dropped. */
#define CS_SM_CORE_TRAPS_MAX 1024
void cs_sm_core_note_trap(struct cs_sm_core *c, const struct cs_smp *trap);
/* Standing by: the traps and Reports not sent yet are dropped (logged), not sent late by a
 * later mastership; Reports in flight finish. */
void cs_sm_core_drop_reports(struct cs_sm_core *c);
int cs_sm_core_report_traps(struct cs_sm_core *c, struct cs_error *err);

/* QoS (core_qos.c), in place of the SL2VL rule when cfg.qos is TRUE: SL2VL tables from the
 * templates, VLArbitration tables, VLHighLimit. Returns the failures, or -1. */
int cs_sm_core_program_qos(struct cs_sm_core *c, struct cs_error *err);

/* With cfg.qos: the SL of each partition's PathRecords (by its index in files.partitions): its
 * `sl=` flag, else the routing engine's SL (pftree's), else 0. Kept in c->qos_sl. */
int cs_sm_core_qos_partition_sl(struct cs_sm_core *c, const uint8_t **sl, uint32_t *count,
                                struct cs_error *err);

/* After the tables changed (a sweep, a re-route): what VM plans read is rebuilt. */
int cs_sm_core_vms_tables_changed(struct cs_sm_core *c, struct cs_error *err);

void cs_sm_core_vms_free(struct cs_sm_core *c);

/* A serving master's monitor turn (core_monitor.c): when perfmgr is on and a poll is due, read
 * every port's counters (watching the ports of the last heavy sweep). -1 only on a transport
 * failure. */
int cs_sm_core_monitor_turn(struct cs_sm_core *c, struct cs_error *err);

/* The adaptation loop's turn after a poll at now (core_adapt.c): the effect of the last
 * execution, the rules, and their actions planned, decided, carried out and recorded. -1 only
 * when out of memory. */
int cs_sm_core_adapt_turn(struct cs_sm_core *c, double now, struct cs_error *err);

/* Log a line and, with the monitor on, keep the same text as an event of kind (monitor.h's
 * CS_MONITOR_EVENT_*) about subject (may be NULL) in the monitoring store; a store that cannot
 * be written is logged, never fatal. */
void cs_sm_core_note(struct cs_sm_core *c, enum cs_log_level level, const char *kind,
                     const char *subject, const char *fmt, ...) CS_PRINTF(5, 6);

#endif
