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
 *     cs_sm_core_poll        what a serving SM does between requests: poll its own port while
 *                            it is down, and when a light sweep is due (sweep_interval, a trap,
 *                            the port back, the last sweep failed) elect and light-sweep, and
 *                            heavy-sweep when something changed
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

#include "cloudsm/error.h"
#include "cloudsm/lft.h"
#include "cloudsm/lid.h"
#include "cloudsm/log.h"
#include "cloudsm/partitions.h"
#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/sm.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/sm_files.h"
#include "cloudsm/smp_pipe.h"

/* How long a new master waits for an SM of higher precedence that is still discovering to
 * decide (it finds us master and stops, or claims and we stop) before programming anyway. */
#define CS_SM_CORE_CLAIM_WAIT_MS 5000

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
    struct cs_route_stats route;   /* of the tables in lfts */
    struct cs_route_result routed; /* what the engine said besides lfts: the partitions' SLs */
    struct cs_partition_set pset;  /* files.partitions resolved against the current sweep */
    struct cs_sa_db *sa;           /* the SA's view of the current sweep and tables; NULL while
                                      they change (SA requests then go unanswered) */
    uint8_t *sa_reply;             /* room for the largest reply the db can give */
    size_t sa_reply_cap;
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
    /* The serving loop's state (cs_sm_core_poll). */
    volatile bool trap_seen; /* set from the pipe's unsolicited handler */
    bool retry;              /* the last heavy sweep had failures: sweep again when due */
    double next_light_ms;
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
 * CS_SM_CORE_CLAIM_WAIT_MS for an SM of higher precedence; reads guid2lid). Returns the
 * failures (SMPs refused or lost, 0 when clean), or -1 with err when the sweep could not be
 * done. Check c->me.state afterwards: not CS_SMP_SM_STATE_MASTER means another SM won the
 * election (nothing was programmed). A sweep that saw less than the fabric because of the SM's
 * own link keeps the last view (cs_sm_sweep_lost_fabric) and counts 1 failure. */
int cs_sm_core_sweep(struct cs_sm_core *c, bool first, struct cs_error *err);

/* Route again with engine (NULL: the current one) and program the blocks that differ (and the
 * SL2VL tables). On failure the previous engine stays. */
int cs_sm_core_reroute(struct cs_sm_core *c, const char *engine, struct cs_sm_lft_counts *lc,
                       struct cs_error *err);

/* After the bring-up, before serving: clear the PortStateChange flags and traps the bring-up
 * itself raised, and schedule the first light sweep. */
int cs_sm_core_serve_begin(struct cs_sm_core *c, struct cs_error *err);

/* One turn of a serving SM, called between waits for requests: poll the SM port while it is
 * down; when a light sweep is due, elect and light-sweep, and heavy-sweep on a change, a trap,
 * the port back or a failed last sweep. Returns 1 if a heavy sweep ran, 0 if not, -1 with err
 * on a failure the SM cannot serve through. c->me.state not MASTER afterwards: another SM won. */
int cs_sm_core_poll(struct cs_sm_core *c, struct cs_error *err);

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

/* One SA request from lid: the reply (in the core's buffer, valid until the next call) and its
 * length, or NULL to send nothing (no view yet, or nothing to answer). */
const uint8_t *cs_sm_core_answer_sa(struct cs_sm_core *c, uint16_t lid, const uint8_t *mad,
                                    size_t len, size_t *reply_len);

/* The pipe's unsolicited handler (arg: the core): other SMs' SMInfo Gets are answered; a trap
 * asks for a sweep now and is answered with TrapRepress. */
int cs_sm_core_on_request(void *arg, const struct cs_smp *mad, struct cs_smp *answer);

#endif
