/* The subnet manager core: the state machine a running SM is, as a library.
 *
 * cloudsmd, the unit tests and the adaptation loop drive the same code. The caller owns the
 * transport (an SMP pipe over libibumad, or over the in-process SMA model in tests), the log
 * sink, the signals and the control socket; the core owns everything the SM knows:
 *
 *     cs_sm_core_init        configuration and the files it names (loaded and checked by the
 *                            caller first: cs_sm_core_load_files), the pipe, who we are
 *     cs_sm_core_sweep       one heavy sweep: discover, master election, LIDs (kept in the state
 *                            directory's guid2lid), P_Keys, route, program LFTs and SL2VL,
 *                            activate ports, rebuild the SA's view
 *     cs_sm_core_poll        what a serving SM does between requests. STANDBY: poll the master
 *                            every sminfo_polling_timeout ms and take over when it is gone, or
 *                            when a HANDOVER or DISCOVER arrived (sm.h's state machine). MASTER:
 *                            send the GUIDInfo blocks
 *                            SA requests changed (alias GUIDs), poll its own port while it is
 *                            down, read the ports' counters when due (perfmgr), and when a light
 *                            sweep is due (sweep_interval, a trap, the port back, the last sweep
 *                            failed) elect and light-sweep, and heavy-sweep when something
 *                            changed
 *     cs_sm_core_reroute     route again with an engine, program the blocks that differ
 *     cs_sm_core_reconfigure a new configuration and files (SIGHUP): apply what changed
 *     cs_sm_core_answer_sa   one SA request -> its reply, from the current view
 *     cs_sm_core_on_request  other SMs' SMInfo and traps (the pipe's unsolicited handler)
 *     cs_sm_core_free
 *
 * Every step logs through the log sink given at init, one line per phase with its time and
 * SMPs. docs/sm/cloudsmd.md describes the behaviour; docs/architecture.md the data path.
 */
#ifndef CLOUDSM_SM_CORE_H
#define CLOUDSM_SM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/adapt.h"
#include "cloudsm/adapt_decision.h"
#include "cloudsm/error.h"
#include "cloudsm/key_index.h"
#include "cloudsm/lft.h"
#include "cloudsm/lid.h"
#include "cloudsm/log.h"
#include "cloudsm/monitor.h"
#include "cloudsm/partitions.h"
#include "cloudsm/perfmgr.h"
#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/sm.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/sm_files.h"
#include "cloudsm/smp_pipe.h"
#include "cloudsm/vm.h"
#include "cloudsm/vm_plan.h"
#include "cloudsm/vswitch.h"

/* How long a new master waits for an SM of higher precedence that is still discovering to
 * decide (it finds us master and stops, or claims and we stop) before programming anyway. */
#define CS_SM_CORE_CLAIM_WAIT_MS 5000

/* Seconds of counter samples the SM keeps in memory for its rules. */
#define CS_SM_CORE_MONITOR_KEEP_S 900

/* What a routing after the first did (a sweep's re-routing, a reroute, SIGHUP): the seeds' phases
 * (build the engine's view of the fabric, route, distribute), the changes and what they cost. */
struct cs_sm_reconfig {
    char engine[16];            /* whose tables these are (after a fallback: minhop) */
    bool first;                 /* the subnet's first routing (nothing to compare with) */
    double build_ms;            /* the engine's view of the fabric built (0 when kept) */
    bool build_kept;            /* ... or the one kept from the last routing reused */
    double route_ms;            /* the whole engine call, build included */
    double distribute_ms;       /* LFT blocks programmed */
    uint64_t entries_changed;   /* LFT entries that differ from the tables before */
    uint64_t paths_changed;     /* CA-to-LID routes that differ (lft_diff.h's path count) */
    uint32_t subtree_switches;  /* a sub-tree re-routing: its switches; 0: the whole fabric */
    struct cs_sm_lft_counts lc; /* blocks sent (= LFT SMPs), read back, failures */
    double predicted_ms;        /* Eq. 1: blocks sent x t_smp measured before this one */
};

struct cs_sm_core {
    struct cs_sm_config cfg;  /* the running configuration: cs_sm_core_reconfigure changes it */
    struct cs_sm_files files; /* partitions.conf, the GUID files and the engines' files */
    struct cs_log log;
    struct cs_smp_pipe *pipe;    /* the caller's: not freed here */
    struct cs_sm_identity me;    /* our SMInfo: GUID, priority, keys, state */
    struct cs_sm_sweep sweep;    /* the last heavy sweep's fabric */
    struct cs_guid2lid guid2lid; /* what the state directory's guid2lid holds */
    struct cs_lfts lfts;         /* the tables routing wants */
    struct cs_lfts held; /* what the switches hold, as far as we know (dirty block = unknown) */
    char engine[64];     /* routing engine: the configuration's, or the last reroute's */
    /* A node order a reroute asked for (with its engine): the routing inputs' node order until
     * the next reroute or SIGHUP; has_order_override false: the configuration's file. */
    struct cs_guid_list order_override;
    bool has_order_override;
    /* Node weights a reroute gave (the adaptation loop's learned weights), likewise until the
     * next reroute that gives weights or a SIGHUP with a new weights file. */
    struct cs_node_weights weights_override;
    bool has_weights_override;
    struct cs_route_state *route_state; /* what engines keep between routings (machinery,
                                           metabase) */
    char metabase_path[CS_SM_CONFIG_PATH_MAX + 16]; /* STATE_DIR/metabase.sqlite (mftree) */
    struct cs_sm_reconfig last_reconfig;            /* the last routing after the first */
    struct cs_lfts routed_from; /* the tables before the last routing, until it is counted */
    double t_smp_ms; /* measured: the last programming's time per LFT block sent (Eq. 1) */
    struct cs_route_stats route;   /* of the tables in lfts */
    struct cs_route_result routed; /* what the engine said besides lfts: the partitions' SLs */
    uint8_t *qos_sl;               /* with cfg.qos: the partitions' SLs the SA gives (core_qos.c) */
    struct cs_partition_set pset;  /* files.partitions resolved against the current sweep */
    struct cs_sm_pkey_tables pkeys_held;  /* what the ports' P_Key tables hold after the last
                                             programming (the SA's P_KeyTableRecords) */
    struct cs_sm_sl2vl_tables sl2vl_held; /* the SL2VL tables the last programming read and
                                             left (none while every partition is on SL 0) */
    struct cs_sa_db *sa; /* the SA's view of the current sweep and tables; NULL while
                            they change (SA requests then go unanswered) */
    uint8_t *sa_reply;   /* room for the largest reply the db can give */
    size_t sa_reply_cap;
    struct cs_alias_guids *aliases; /* alias GUIDs hosts registered with the SA (SubnAdmSet of
                                       a GUIDInfoRecord): kept across sweeps, made by the first
                                       SA rebuild */
    struct cs_services *services;   /* ServiceRecords hosts registered with the SA: kept
                                       across sweeps, made by the first SA rebuild */
    struct cs_informs *informs;     /* event subscriptions (SubnAdmSet of InformInfo) and
                                       the Reports waiting to go: kept across sweeps */
    uint64_t *arrived;              /* ports the sweep found new (trap 64 once the SA knows
                                       them) */
    uint32_t num_arrived;
    struct cs_notice *traps; /* traps received, to forward to subscribers (core_reports.c) */
    uint32_t num_traps, traps_cap, traps_dropped;
    struct cs_sm_report_slot *report_slots; /* Reports in flight (core_reports.c) */
    uint32_t reports_in_flight;
    uint64_t reports_sent, reports_acknowledged, reports_lost;
    struct cs_mcast_groups *mcast;        /* multicast groups (joins through the SA, partitions'
                                             IPoIB groups): kept across sweeps like aliases */
    struct cs_mfts mfts;                  /* what the switches' MFTs hold, for the current sweep */
    struct cs_mfts mfts_want;             /* what the groups' trees ask them to hold */
    struct cs_mcast_router *mcast_router; /* the trees' graph and distances, for the sweep */
    char guid2lid_path[CS_SM_CONFIG_PATH_MAX + 16];
    /* Counters and times (cs_clock_ms), for status reports. */
    unsigned sweeps; /* heavy sweeps */
    double started_ms;
    double last_sweep_ms; /* when the last heavy sweep ended, its length, SMPs and failures */
    double last_sweep_took_ms;
    uint64_t last_sweep_smps;
    int last_sweep_failures;
    double sm_port_down_ms; /* when a sweep found the SM port down; 0: it is up */
    uint8_t sm_port_state;  /* the SM port's PortState when last polled while down */
    /* VMs on vSwitch hypervisors (src/sm/core_vms.c, docs/sm/vms.md). The VM state is
     * files.route.vms (files.route.has_vms: the state file exists), kept in vm_state_path. */
    struct cs_hypervisors hyps; /* of the current sweep */
    struct cs_switch_tree tree; /* of the current sweep and lfts: what VM plans read */
    bool tree_ready;
    char vm_state_path[CS_SM_CONFIG_PATH_MAX + 8];
    bool guid2lid_stale;  /* VM operations moved LIDs that guid2lid does not have yet */
    double last_vm_op_ms; /* when the last batch of VM operations ended (cs_clock_ms) */
    uint64_t vm_ops;      /* VM operations done since start */
    uint64_t vm_batches;  /* batches they ran in (operations in one batch run in parallel) */
    bool left_tables;     /* the first sweep found the digest of the tables a clean stop left */
    uint64_t left;        /* that digest */
    /* The monitor (src/sm/core_monitor.c, docs/sm/monitoring.md): with perfmgr on, every
     * perfmgr_sweep_time_s a serving master reads every port's counters; perf.metrics keeps
     * the samples of the last CS_SM_CORE_MONITOR_KEEP_S seconds. */
    struct cs_perfmgr perf;
    double (*wall_clock)(void); /* seconds since the epoch (cs_perfmgr_wall_clock; tests: theirs) */
    unsigned perf_sweeps;       /* the heavy sweep whose fabric perf watches (c->sweeps then) */
    double next_perf_ms;
    /* STATE_DIR/monitor.sqlite while perfmgr is on: samples, topology and events; NULL before
     * the first poll, or when it cannot be opened (logged once: monitor_failed). */
    struct cs_monitor *monitor;
    bool monitor_failed;
    unsigned monitor_sweeps; /* the heavy sweep whose topology the store has */
    /* The adaptation loop (src/sm/core_adapt.c, docs/adapt/loop.md). */
    struct cs_adapt_state adapt;              /* for adapt_rules */
    const struct cs_adapt_rules *adapt_rules; /* the rules adapt was made for (files') */
    int adapt_mode_override; /* -1: cfg.adapt_mode; else the control socket's (kill switch) */
    struct cs_adapt_budget adapt_budget; /* LFT SMPs adaptations sent in the last hour */
    struct cs_sm_adapt_effect {          /* the last execution, its effect not measured yet */
        bool pending;
        int64_t event;              /* its audit record */
        double executed_at, window; /* when, and the traffic window it was planned on */
        double cost_before, expected_after;
    } adapt_effect;
    uint64_t adapt_firings, adapt_executed;
    /* The serving loop's state (cs_sm_core_poll). */
    volatile bool trap_seen; /* set from the pipe's unsolicited handler */
    bool retry;              /* the last heavy sweep had failures: sweep again when due */
    double next_light_ms;
    bool sweeping_off;      /* `sweep off` (control socket): no periodic light sweeps; traps and
                               resweeps still sweep */
    bool light_requested;   /* `resweep light`: a light sweep at the next turn, due or not */
    int last_light_changed; /* switches the last light sweep found changed or silent */
    uint64_t light_sweeps;  /* light sweeps done */
    /* The SM state machine (sm.h): was_master once a sweep of ours assigned LIDs (guid2lid read,
     * the subnet brought up); in STANDBY, the polls of the master that found it gone in a row
     * and when the next one is due; takeovers: times we became master after the first. */
    bool was_master;
    /* ClientReregister is due: the next sweep that assigns LIDs is our first as master since
     * the start or since we stood by (OpenSM's first_time_master_sweep): the hosts' clients
     * join their groups again, which a new master does not know. */
    bool rereg_due;
    unsigned poll_misses;
    double next_master_poll_ms;
    unsigned takeovers;
};

/* Read and parse every file cfg names (cs_sm_files_load) into files, and log what they hold
 * (partitions, warnings of partitions.conf). On failure nothing is kept and err has the file's
 * "name:line: ...". */
int cs_sm_core_load_files(const struct cs_sm_config *cfg, struct cs_sm_files *files,
                          const struct cs_log *log, struct cs_error *err);

/* The state directory must be (or become) a directory the SM can write in; with a control
 * socket (once false), its socket path must fit a socket address. */
int cs_sm_core_check_state_dir(const struct cs_sm_config *cfg, bool once, struct cs_error *err);

/* A core for the SM on port_guid, talking through pipe (not owned), with cfg and files (taken
 * over: files is zeroed). The pipe's unsolicited handler is set to cs_sm_core_on_request. */
void cs_sm_core_init(struct cs_sm_core *c, const struct cs_sm_config *cfg,
                     struct cs_sm_files *files, struct cs_smp_pipe *pipe, uint64_t port_guid,
                     const struct cs_log *log);
void cs_sm_core_free(struct cs_sm_core *c);

/* Heavy sweep and everything after it. first: the bring-up (claims master, waiting up to
 * CS_SM_CORE_CLAIM_WAIT_MS for an SM of higher precedence). The first sweep that wins reads
 * guid2lid (a takeover too: ports keep the LIDs they hold where guid2lid has none). Returns the
 * failures (SMPs refused or lost, 0 when clean), or -1 with err when the sweep could not be
 * done. Check c->me.state afterwards: not CS_SMP_SM_STATE_MASTER means another SM won the
 * election or got mastership by HANDOVER (nothing was programmed): the core is STANDBY, polling
 * it, and cs_sm_core_poll takes over when it goes. A sweep that saw less than the fabric because
 * of the SM's own link keeps the last view (cs_sm_sweep_lost_fabric) and counts 1 failure. */
int cs_sm_core_sweep(struct cs_sm_core *c, bool first, struct cs_error *err);

/* Route again and program the blocks that differ (and the SL2VL tables): engine NULL = the
 * current one; subtree: CA port or node GUIDs whose common-ancestor sub-tree alone is re-routed
 * (fast hybrid reconfiguration, docs/routing/hybrid.md); order_file: a node order (GUID list)
 * used with the engine from now on. On failure the previous engine and order stay. */
struct cs_sm_reroute_request {
    const char *engine;
    const uint64_t *subtree;
    uint32_t num_subtree;
    const char *order_file;
    const struct cs_node_weights *weights; /* NULL: the configuration's (or the last given) */
};
int cs_sm_core_reroute(struct cs_sm_core *c, const struct cs_sm_reroute_request *rq,
                       struct cs_sm_reconfig *done, struct cs_error *err);

/* What the core routes with (cloudsmd's configuration, files and the last reroute's order and
 * weights, the tables it holds as the previous ones): for planning a re-routing offline exactly
 * as cs_sm_core_reroute would do it. scope as cs_route_inputs's. */
struct cs_route_options cs_sm_core_route_options(const struct cs_sm_core *c);
struct cs_route_inputs cs_sm_core_route_inputs(const struct cs_sm_core *c, const uint32_t *scope,
                                               uint32_t num_scope);

/* After the bring-up, before serving: clear the PortStateChange flags and traps the bring-up
 * itself raised, and schedule the first light sweep (a master; a standby: nothing). */
int cs_sm_core_serve_begin(struct cs_sm_core *c, struct cs_error *err);

/* One turn of a serving SM, called between waits for requests. Not master: the standby's turn
 * (sm.h): a poll of the master when due, a takeover (DISCOVERING, heavy sweep, election) when it
 * is gone or a control said so; returns 1 when a sweep ran. Master: write guid2lid when VM
 * operations moved LIDs and then paused (cs_sm_core_vm_settle); send the GUIDInfo blocks that SA
 * requests changed since the last turn (cs_sm_program_alias_guids); poll the SM port while it is
 * down; when a light sweep is due, elect and light-sweep, and heavy-sweep on a change, a trap,
 * the port back or a failed last sweep. Returns 1 if a heavy sweep ran, 0 if not, -1 with err
 * on a failure the SM cannot serve through. c->me.state not MASTER afterwards: another SM won
 * (the core is STANDBY). */
int cs_sm_core_poll(struct cs_sm_core *c, struct cs_error *err);

/* OpenSM console parity (docs/sm/control.md): the SM priority SMInfo answers with from now on
 * (other SMs' elections and `sminfo` see it) until a SIGHUP or restart sets the configuration's. */
void cs_sm_core_set_priority(struct cs_sm_core *c, uint8_t priority);
/* A sweep now: heavy (cs_sm_core_sweep: its failures, or -1) or light (the serving turn's light
 * sweep, due or not, and a heavy sweep if it found a change: cs_sm_core_poll's result). -1 when
 * not master: a standby sweeps only to take over. */
int cs_sm_core_resweep(struct cs_sm_core *c, bool heavy, struct cs_error *err);
/* Which keys and files a reconfiguration changed, and what it did. */
struct cs_sm_core_reconfigured {
    bool rerouted; /* routing inputs changed: routed again */
    bool pkeys;    /* partitions changed: P_Key tables programmed */
    uint64_t blocks_sent;
};

/* A new configuration (its restart-only keys already set back to the running values by the
 * caller) and its files (taken over: files is zeroed): the SA is rebuilt, and where routing or
 * partitions changed only the blocks that differ are sent. changes/n are cs_sm_config_diff's.
 * Failures are logged (the SM keeps serving); returns -1 with err if the new tables could not
 * be computed or programmed. */
int cs_sm_core_reconfigure(struct cs_sm_core *c, const struct cs_sm_config *next,
                           struct cs_sm_files *files, const struct cs_sm_config_change *changes,
                           unsigned n, struct cs_sm_core_reconfigured *done, struct cs_error *err);

/* A clean stop: the digest of the tables the switches hold (STATE_DIR/lfts.digest), when every
 * block is known, so that the next start finds them unchanged and keeps every route of them that
 * still leads where it should: a restart on an unchanged fabric sends no LFT block. */
int cs_sm_core_save_tables(struct cs_sm_core *c, struct cs_error *err);

/* One SA request from `from` (its LID, QP, SL, P_Key index): the reply (in the core's buffer, valid
 * until the next call) and its length, or NULL to send nothing (no view yet, or nothing to answer).
 */
const uint8_t *cs_sm_core_answer_sa(struct cs_sm_core *c, const struct cs_sa_address *from,
                                    const uint8_t *mad, size_t len, size_t *reply_len);

/* The pipe's unsolicited handler (arg: the core): other SMs' SMInfo Gets are answered; a trap
 * asks for a sweep now and is answered with TrapRepress. */
int cs_sm_core_on_request(void *arg, const struct cs_smp *mad, struct cs_smp *answer);

/* ---- VMs (src/sm/core_vms.c, docs/sm/vms.md) ------------------------------------------------
 *
 * A VM operation is planned by the offline planner (vm_plan.h) on the SM's own fabric, tables
 * and VM state, committed (the VM state file written, atomically) and then sent: port-255
 * invalidations (if asked), the destination hypervisor's SMPs, the LFT blocks of the switches ItRC
 * or FTreeMinRC picks, the source hypervisor's SMPs. On ibsim and on the SMA model a vSwitch is a
 * switch: a VF taking or giving up a LID is a PortInfo Set on the VF's port and the vSwitch's LFT
 * blocks for that LID (the emulation of what vSwitch hardware does by itself), counted apart as
 * hypervisor SMPs. A crash at any point leaves a state on disk that the next start applies: the VM
 * where the file says, its LIDs pinned on its VF, and every VM route the switches hold that does
 * not lead there replaced by the engine's. */

/* What one operation did. */
struct cs_sm_vm_result {
    uint16_t lid;               /* the VM's LID (a destroyed VM: the one it had) */
    uint8_t vf;                 /* the VF it runs on (destroy: ran on) */
    uint64_t hypervisor;        /* its vSwitch's node GUID (destroy: the last one) */
    uint32_t switches_selected; /* as the plan (cs_plan) counts them */
    uint32_t switches_updated;
    uint64_t planned_smps; /* cs_plan_total_smps: the model's count */
    /* SMPs sent, by kind. */
    uint64_t lft_smps;          /* physical switches' LFT blocks with new entries */
    uint64_t port255_smps;      /* invalidation blocks */
    uint64_t port_info_smps;    /* VF LIDs set or unset */
    uint64_t vswitch_lft_smps;  /* vSwitch LFT blocks (the emulation of vSwitch hardware) */
    uint64_t guid_info_smps;    /* the batch's GUIDInfo blocks for vGUIDs (the VF ports') */
    uint64_t guid_info_refused; /* of those, refused or lost: ibsim takes no GUIDInfo Set; the
                                   SA answers from the SM's view either way, no sweep follows */
    uint64_t total_smps;
    unsigned failures;   /* SMPs refused or lost (logged); a heavy sweep follows */
    uint32_t batch_size; /* operations of the batch it ran in */
    double plan_ms;      /* planning */
    double commit_ms;    /* writing the VM state (the batch's), fsync included */
    double program_ms;   /* the batch's SMPs, first sent to last answered */
};

/* One VM request with its options, and what came of it. */
struct cs_sm_vm_job {
    struct cs_vm_request req; /* req.name points into name */
    char name[CS_VM_NAME_MAX + 1];
    struct cs_vm_plan_options opt;
    /* Filled by cs_sm_core_vm_run: */
    int status; /* 0 done, -1 refused or failed (error says why), 1 deferred
                   (conflicts with an earlier job of the list: run it later) */
    struct cs_error error;
    struct cs_sm_vm_result result;
};

/* Run a list of VM requests, in order, as one batch where they do not conflict: each is checked
 * and planned on the state the earlier ones left; the ones whose switches (FTreeMinRC's marked
 * sub-trees and the two hypervisors; ItRC and a dynamic create: every switch) are disjoint from
 * those of every earlier job still to run are sent together, phase by phase, so that their SMPs
 * share the pipe's window; the others are deferred (status 1) to a later call, in order. A
 * refused request (unknown VM, full hypervisor, no free LID, ...) changes nothing. Returns the
 * number of jobs done or refused (not deferred), or -1 with err when the SM cannot act (not
 * master, no sweep yet, a state file that cannot be written). */
int cs_sm_core_vm_run(struct cs_sm_core *c, struct cs_sm_vm_job *jobs, uint32_t count,
                      struct cs_error *err);

/* guid2lid gets the LIDs VM operations moved: off the operations' path, by cs_sm_core_poll once
 * no operation came for CS_SM_CORE_VM_SETTLE_MS (a burst of migrations writes it once), by a
 * sweep, and at a clean stop. */
#define CS_SM_CORE_VM_SETTLE_MS 200
int cs_sm_core_vm_settle(struct cs_sm_core *c, struct cs_error *err);

/* The adaptation loop's mode in force: the control socket's (adapt on|off|dry-run, the kill
 * switch) until a SIGHUP or restart, else adapt_mode of the configuration. */
enum cs_adapt_mode cs_sm_core_adapt_mode(const struct cs_sm_core *c);

/* The VMs the SM runs (empty until the first operation, or the state file). */
const struct cs_vm_state *cs_sm_core_vms(const struct cs_sm_core *c);
/* The LID policy in force: the VM state's, or vm_lid_policy without one. */
enum cs_lid_policy cs_sm_core_vm_policy(const struct cs_sm_core *c);

#endif
