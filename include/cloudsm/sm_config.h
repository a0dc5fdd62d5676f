/* cloudsmd's configuration and its file, in OpenSM's opensm.conf syntax.
 *
 * An operator can point cloudsmd at an existing opensm.conf: keys carry OpenSM's names wherever
 * OpenSM has one, and the syntax is OpenSM's (osm_subn_parse_conf_file):
 *
 *     # comment; a '#' anywhere ends the line, as in OpenSM
 *     routing_engine ftree
 *     sm_priority 14
 *     subnet_prefix 0xfe80000000000000
 *     connect_roots FALSE
 *     root_guid_file (null)
 *
 * One `key value` per line; the value is the rest of the line without surrounding blanks, and
 * one pair of enclosing quotes ("..." or '...') is removed. Numbers are decimal or 0x hex;
 * booleans TRUE or FALSE; `(null)` (what OpenSM writes for an unset string) leaves a string
 * unset. A key given twice: the last one wins (with a warning). An opensm.conf holds about 110
 * keys cloudsm has no use for; they and unknown keys are warnings, not errors, so that the same
 * file serves both SMs. A bad value for a key cloudsm uses is an error that names file:line.
 *
 * docs/sm/cloudsmd.md lists the keys with their defaults and meaning.
 */
#ifndef CLOUDSM_SM_CONFIG_H
#define CLOUDSM_SM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/qos.h"
#include "cloudsm/sm.h"
#include "cloudsm/smp_pipe.h"

/* Linux's PATH_MAX, spelled out: <limits.h> only defines it with POSIX feature macros. */
#define CS_SM_CONFIG_PATH_MAX 4096
#define CS_SM_CONFIG_DEFAULT_STATE_DIR "/var/lib/cloudsm"
#define CS_SM_CONFIG_DEFAULT_ENGINE "minhop" /* OpenSM's: routing_engine unset */
#define CS_SM_CONFIG_DEFAULT_SUBNET_PREFIX UINT64_C(0xfe80000000000000)
#define CS_SM_CONFIG_DEFAULT_SM_KEY 1 /* OpenSM's default: OpenSM trusts only its own key */
#define CS_SM_CONFIG_DEFAULT_SUBNET_TIMEOUT 18      /* OpenSM's default */
#define CS_SM_CONFIG_DEFAULT_SWEEP_INTERVAL 10      /* seconds, OpenSM's default */
#define CS_SM_CONFIG_DEFAULT_PERFMGR_SWEEP_TIME 180 /* seconds, OpenSM's default */
#define CS_SM_CONFIG_DEFAULT_ADAPT_MIN_GAIN 5       /* percent */
#define CS_SM_CONFIG_WINDOW_MAX 12                  /* "HH:MM-HH:MM" and its NUL */
#define CS_SM_CONFIG_MAX_RETRIES 100
#define CS_SM_CONFIG_MAX_TIMEOUT_MS 60000
/* A standby's poll of the master (OpenSM's keys and defaults). */
#define CS_SM_CONFIG_DEFAULT_SMINFO_POLLING_TIMEOUT 10000 /* ms */
#define CS_SM_CONFIG_DEFAULT_POLLING_RETRY_NUMBER 4

/* Everything cloudsmd can be told. The comment names the opensm.conf key. Strings are "" when
 * unset. */
struct cs_sm_config {
    uint64_t port_guid;      /* guid: the SM port; 0 = the first active port */
    char routing_engine[32]; /* routing_engine: a cs_route engine name */
    /* reconfig_engine (cloudsm's): the engine of a sweep's re-routing once the subnet is up;
     * "" = routing_engine. Same size as routing_engine (one value kind). */
    char reconfig_engine[32];
    bool connect_roots;                                /* connect_roots (OpenSM -z) */
    char partition_config_file[CS_SM_CONFIG_PATH_MAX]; /* partition_config_file */
    uint8_t part_enforce;                              /* part_enforce: enum cs_sm_part_enforce */
    bool allow_both_pkeys;                             /* allow_both_pkeys (OpenSM -W) */
    bool sa_path_caching; /* subnet_supports_sa_path_caching (cloudsm's, the seed paper's name) */
    unsigned sm_assigned_guid;   /* sm_assigned_guid: 0..255, the byte of SM-assigned alias GUIDs */
    unsigned subnet_timeout;     /* subnet_timeout: 0..31 */
    unsigned sm_priority;        /* sm_priority: 0..15 */
    uint64_t subnet_prefix;      /* subnet_prefix */
    uint64_t m_key;              /* m_key */
    uint64_t sm_key;             /* sm_key: SMInfo's SM_Key */
    unsigned m_key_lease_period; /* m_key_lease_period: seconds, 0..65535 */
    unsigned smp_window;         /* max_wire_smps: SMPs in flight, 1..CS_SMP_PIPE_MAX_WINDOW */
    unsigned timeout_ms;         /* transaction_timeout: per SMP attempt, ms */
    unsigned retries;            /* transaction_retries */
    unsigned sweep_interval;     /* sweep_interval: seconds, 0 = no sweeps (used from issue 7) */
    bool perfmgr;                /* perfmgr: poll the ports' counters (src/sm/perfmgr.c) */
    unsigned perfmgr_sweep_time_s; /* perfmgr_sweep_time_s: seconds between polls */
    /* A standby's poll of the master: sminfo_polling_timeout (ms between polls) and
     * polling_retry_number (polls it may leave unanswered in a row before the standby takes
     * over). */
    unsigned sminfo_polling_timeout_ms;
    unsigned polling_retry_number;
    /* The adaptation loop (cloudsm's keys; adapt_decision.h says what each limit does). */
    char adapt_rules_file[CS_SM_CONFIG_PATH_MAX];    /* adapt_rules_file: IBAdapt rules */
    uint8_t adapt_mode;                              /* adapt_mode: enum cs_adapt_mode */
    unsigned adapt_min_gain_percent;                 /* adapt_min_gain_percent */
    unsigned adapt_max_smps_per_percent;             /* adapt_max_smps_per_percent: 0 = none */
    unsigned adapt_max_smps_per_hour;                /* adapt_max_smps_per_hour: 0 = none */
    char adapt_quiet_hours[CS_SM_CONFIG_WINDOW_MAX]; /* adapt_quiet_hours: "" = none */
    char root_guid_file[CS_SM_CONFIG_PATH_MAX];      /* root_guid_file */
    char cn_guid_file[CS_SM_CONFIG_PATH_MAX];        /* cn_guid_file */
    char node_order_file[CS_SM_CONFIG_PATH_MAX];     /* node_order_file (cloudsm's): noftree */
    char node_weights_file[CS_SM_CONFIG_PATH_MAX];   /* node_weights_file (cloudsm's): wftree */
    char vm_state_file[CS_SM_CONFIG_PATH_MAX];       /* vm_state_file (cloudsm's): the VMs; ""
                                                        = STATE_DIR/vms (cs_sm_config_vm_state_path) */
    uint8_t vm_lid_policy; /* vm_lid_policy (cloudsm's): enum cs_lid_policy, prepopulated or
                              dynamic, for a VM state that has no VMs yet */
    char log_file[CS_SM_CONFIG_PATH_MAX];  /* log_file: "" = standard error */
    char state_dir[CS_SM_CONFIG_PATH_MAX]; /* state_dir (cloudsm's): holds guid2lid */
    bool reassign_lids;    /* reassign_lids (OpenSM -r): ignore guid2lid and held LIDs at start */
    bool no_clients_rereg; /* no_clients_rereg: no ClientReregister on the first sweep */
    bool drop_event_subscriptions; /* drop_event_subscriptions: a port that leaves loses them */
    enum cs_log_level log_level;   /* log_level (cloudsm's): error|warn|info|debug */
    /* QoS (include/cloudsm/qos.h): qos; qos_max_vls, qos_high_limit, qos_vlarb_high,
     * qos_vlarb_low, qos_sl2vl; the same five with qos_ca_, qos_rtr_, qos_sw0_, qos_swe_. */
    bool qos;
    /* qos_policy_file: OpenSM's qos-policy.conf, its qos-ulps section (qos_policy.h): the SLs of
     * PathRecords, with qos TRUE; "" = none */
    char qos_policy_file[CS_SM_CONFIG_PATH_MAX];
    struct cs_qos_options qos_general;
    struct cs_qos_options qos_class[CS_QOS_CLASSES]; /* by enum cs_qos_class */
};

/* What the parser did not use. Each message starts with "name:line: ". */
enum cs_sm_config_warning_kind {
    CS_SM_CONFIG_UNKNOWN_KEY, /* neither cloudsm's nor OpenSM's: probably a typo */
    CS_SM_CONFIG_OPENSM_KEY,  /* an OpenSM key cloudsm has no use for */
    CS_SM_CONFIG_NOTE,        /* a key given twice, the unused tail of an engine list */
};

struct cs_sm_config_warning {
    enum cs_sm_config_warning_kind kind;
    unsigned line;
    char msg[CS_ERROR_MAX];
};

struct cs_sm_config_warnings {
    struct cs_sm_config_warning *items;
    uint32_t count;
    uint32_t capacity;
};

void cs_sm_config_warnings_free(struct cs_sm_config_warnings *w);
/* Number of warnings of one kind. */
uint32_t cs_sm_config_warnings_count(const struct cs_sm_config_warnings *w,
                                     enum cs_sm_config_warning_kind kind);

void cs_sm_config_defaults(struct cs_sm_config *c);

/* Defaults, then the file's keys in order. warnings (may be NULL) is appended to. On failure
 * (err = "name:line: key: what is wrong") c is left unchanged. */
int cs_sm_config_parse(struct cs_sm_config *c, const char *text, size_t len, const char *name,
                       struct cs_sm_config_warnings *warnings, struct cs_error *err);
int cs_sm_config_read(struct cs_sm_config *c, const char *path,
                      struct cs_sm_config_warnings *warnings, struct cs_error *err);

/* Set one key from its text form, with the file's parsing and checks (the command line uses
 * this so that a flag and its key accept the same values). key is the opensm.conf name. err
 * says what is wrong with the value without naming the key; -1 and c unchanged on failure. */
int cs_sm_config_set(struct cs_sm_config *c, const char *key, const char *value,
                     struct cs_sm_config_warnings *warnings, struct cs_error *err);

/* The effective configuration as a commented file that cs_sm_config_parse reads back to the
 * same struct. Fails (writing nothing) if a string cannot be written in this syntax: one that
 * holds '#' or a line break, or that is literally "(null)". */
int cs_sm_config_write(FILE *out, const struct cs_sm_config *c, struct cs_error *err);

bool cs_sm_config_equal(const struct cs_sm_config *a, const struct cs_sm_config *b);

/* ---- SIGHUP: what changed between two configurations ---- */

#define CS_SM_CONFIG_KEYS_MAX 96 /* at least the number of keys */

/* What a change of a key takes in a running SM; the key table in src/sm/sm_config.c says it
 * for each key. */
enum cs_sm_config_effect {
    CS_SM_CONFIG_LIVE,    /* used from now on (log_level, sm_priority, sweep_interval, the SA's) */
    CS_SM_CONFIG_REROUTE, /* route again and program what differs (routing_engine, the GUID
                             files, connect_roots) */
    CS_SM_CONFIG_PKEYS,   /* program the P_Key tables again (partitions) */
    CS_SM_CONFIG_RESTART, /* a running SM cannot take it: the port it opened (guid), where its
                             state lives (state_dir), what every PortInfo was given
                             (subnet_prefix, m_key and its lease: a new M_Key would lock the SM
                             out of ports holding the old one), the SMP pipe's settings */
};

struct cs_sm_config_change {
    const char *key; /* the opensm.conf name */
    enum cs_sm_config_effect how;
};

/* The keys whose values differ between was and now, in the file's order (the order
 * cs_sm_config_write prints them). Returns how many. */
unsigned cs_sm_config_diff(const struct cs_sm_config *was, const struct cs_sm_config *now,
                           struct cs_sm_config_change changes[CS_SM_CONFIG_KEYS_MAX]);
/* Whether key is among changes. */
bool cs_sm_config_changed(const struct cs_sm_config_change *changes, unsigned count,
                          const char *key);
/* Whether any of changes takes how. */
bool cs_sm_config_changes_take(const struct cs_sm_config_change *changes, unsigned count,
                               enum cs_sm_config_effect how);
/* Set key in to from's value (to keep a value that needs a restart); -1 for an unknown key. */
int cs_sm_config_copy_key(struct cs_sm_config *to, const struct cs_sm_config *from,
                          const char *key);
/* key's value as the file writes it, for messages; snprintf's result, -1 for an unknown key. */
int cs_sm_config_format_value(const struct cs_sm_config *c, const char *key, char *buf,
                              size_t size);

/* The pipe options the configuration asks for. */
struct cs_smp_pipe_options cs_sm_config_pipe_options(const struct cs_sm_config *c);

/* The file the SM keeps its VMs in: vm_state_file, or STATE_DIR/vms when that is not set. */
#define CS_SM_CONFIG_VM_STATE_NAME "vms"
void cs_sm_config_vm_state_path(const struct cs_sm_config *c, char *buf, size_t size);

/* "error", "warn", "info", "debug" (as log_level and --log-level spell them). */
const char *cs_log_level_name(enum cs_log_level level);
/* Case-insensitive; "warning" is accepted for "warn". false if name is none of them. */
bool cs_log_level_parse(const char *name, enum cs_log_level *out);

#endif
