/* cloudsmd's configuration file (include/cloudsm/sm_config.h). */
#include "cloudsm/sm_config.h"

#include "cloudsm/adapt_decision.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/route.h"
#include "core/grow.h"
#include "io/text.h"

/* What OpenSM writes for a string that is not set. */
#define NULL_STRING "(null)"
/* Values quoted in messages are cut here: a message is one readable line. */
#define SHOWN_VALUE_MAX 64

enum value_kind {
    VALUE_GUID,   /* uint64_t, written as 0x%016x */
    VALUE_UINT,   /* unsigned in [min, max], written in decimal */
    VALUE_BOOL,   /* bool, TRUE/FALSE */
    VALUE_PATH,   /* char[CS_SM_CONFIG_PATH_MAX], "(null)" = "" */
    VALUE_ENGINE, /* char[32], a cs_route engine */
    VALUE_LEVEL,  /* enum cs_log_level */
    VALUE_LMC,    /* no field: only 0 is accepted */
    VALUE_CHOICE, /* uint8_t: an index into the key's choices (an enum of the library) */
    VALUE_WINDOW, /* char[CS_SM_CONFIG_WINDOW_MAX]: a daily window HH:MM-HH:MM, "(null)" = "" */
    VALUE_LIMIT,  /* int: -1 (not set: inherited) or min..max, as OpenSM's qos_*high_limit */
    VALUE_VLARB,  /* struct cs_qos_vlarb_list, "(null)" = not set */
    VALUE_SL2VL,  /* struct cs_qos_sl2vl_list, "(null)" = not set */
};

/* Choices are in their enum's order; NULL ends the list. */
static const char *const enforce_names[] = {"both", "in", "out", "off", NULL};
static const char *const vm_lid_policy_names[] = {"prepopulated", "dynamic", NULL};

struct key {
    const char *name;
    enum value_kind kind;
    size_t offset;
    unsigned min, max;            /* VALUE_UINT */
    enum cs_sm_config_effect how; /* what a change of it takes in a running SM (SIGHUP) */
    const char *comment;          /* for the writer: what the key means */
};

#define FIELD(f) offsetof(struct cs_sm_config, f)

/* The names of each VALUE_CHOICE key's values, by its field. */
static const struct {
    size_t offset;
    const char *const *names;
} choice_lists[] = {{FIELD(part_enforce), enforce_names},
                    {FIELD(vm_lid_policy), vm_lid_policy_names},
                    {FIELD(adapt_mode), cs_adapt_mode_names}};

static const char *const *choices(const struct key *k)
{
    for (size_t i = 0; i < sizeof choice_lists / sizeof choice_lists[0]; i++)
        if (choice_lists[i].offset == k->offset)
            return choice_lists[i].names;
    return NULL;
}

static const char *choice_name(const struct key *k, const void *field)
{
    const char *const *names = choices(k);
    uint8_t i = *(const uint8_t *)field;
    for (uint8_t j = 0; names[j]; j++)
        if (j == i)
            return names[j];
    return "?";
}

/* In the order the writer prints them. */
static const struct key keys[] = {
    {"guid", VALUE_GUID, FIELD(port_guid), 0, 0, CS_SM_CONFIG_RESTART,
     "The port GUID the SM runs on; 0 = the first active port"},
    {"routing_engine", VALUE_ENGINE, FIELD(routing_engine), 0, 0, CS_SM_CONFIG_REROUTE,
     "Routing engine by name (cloudsm route --help lists them); ftree falls back to minhop"},
    {"reconfig_engine", VALUE_ENGINE, FIELD(reconfig_engine), 0, 0, CS_SM_CONFIG_LIVE,
     "cloudsm: engine a sweep re-routes with once the subnet is up (a fault, a node gone or "
     "back): slimupdate keeps the routes the switches hold; (null) = the routing engine"},
    {"connect_roots", VALUE_BOOL, FIELD(connect_roots), 0, 0, CS_SM_CONFIG_REROUTE,
     "Route the root switches' LIDs between roots too (OpenSM -z)"},
    {"root_guid_file", VALUE_PATH, FIELD(root_guid_file), 0, 0, CS_SM_CONFIG_REROUTE,
     "Root switches by node GUID, one per line; (null) = detect them"},
    {"cn_guid_file", VALUE_PATH, FIELD(cn_guid_file), 0, 0, CS_SM_CONFIG_REROUTE,
     "Compute node port GUIDs, one per line; (null) = every CA port"},
    {"node_order_file", VALUE_PATH, FIELD(node_order_file), 0, 0, CS_SM_CONFIG_REROUTE,
     "noftree's node order: port GUIDs, one per line, most important first; (null) = none"},
    {"node_weights_file", VALUE_PATH, FIELD(node_weights_file), 0, 0, CS_SM_CONFIG_REROUTE,
     "wftree's node weights: port GUID and weight per line; (null) = every node weighs 1"},
    {"vm_state_file", VALUE_PATH, FIELD(vm_state_file), 0, 0, CS_SM_CONFIG_REROUTE,
     "The VMs, kept by cloudsmd (cloudsm VM state); (null) = STATE_DIR/vms; none yet: vftree "
     "routes a VM on every VF with a LID"},
    {"vm_lid_policy", VALUE_CHOICE, FIELD(vm_lid_policy), 0, 0, CS_SM_CONFIG_RESTART,
     "cloudsm: VM LIDs on vSwitch VFs: prepopulated (every VF one at boot) or dynamic (taken at "
     "VM create); a VM state with VMs keeps its own"},
    {"sm_priority", VALUE_UINT, FIELD(sm_priority), 0, 15, CS_SM_CONFIG_LIVE,
     "SM priority in SMInfo, 0 (lowest) .. 15 (highest)"},
    {"sminfo_polling_timeout", VALUE_UINT, FIELD(sminfo_polling_timeout_ms), 1, 3600000,
     CS_SM_CONFIG_LIVE, "Milliseconds between a standby SM's SMInfo polls of the master"},
    {"polling_retry_number", VALUE_UINT, FIELD(polling_retry_number), 0, 1000, CS_SM_CONFIG_LIVE,
     "Polls the master may leave unanswered in a row before the standby takes over"},
    {"subnet_prefix", VALUE_GUID, FIELD(subnet_prefix), 0, 0, CS_SM_CONFIG_RESTART,
     "Subnet prefix set in PortInfo"},
    {"m_key", VALUE_GUID, FIELD(m_key), 0, 0, CS_SM_CONFIG_RESTART, "M_Key set in PortInfo"},
    {"sm_key", VALUE_GUID, FIELD(sm_key), 0, 0, CS_SM_CONFIG_LIVE,
     "SM_Key in SMInfo; OpenSM ignores an SM whose key differs from its own (default 1)"},
    {"m_key_lease_period", VALUE_UINT, FIELD(m_key_lease_period), 0, 65535, CS_SM_CONFIG_RESTART,
     "M_Key lease period in seconds (0 = never expires)"},
    {"lmc", VALUE_LMC, 0, 0, 0, CS_SM_CONFIG_LIVE,
     "LMC: cloudsm assigns one LID per port; only 0 is accepted"},
    {"partition_config_file", VALUE_PATH, FIELD(partition_config_file), 0, 0, CS_SM_CONFIG_PKEYS,
     "partitions.conf (OpenSM's grammar); (null) or a missing file = everyone in Default"},
    {"part_enforce", VALUE_CHOICE, FIELD(part_enforce), 0, 0, CS_SM_CONFIG_PKEYS,
     "Partition enforcement on switch ports facing CAs: both, in, out or off"},
    {"no_clients_rereg", VALUE_BOOL, FIELD(no_clients_rereg), 0, 0, CS_SM_CONFIG_LIVE,
     "Do not ask the hosts' ports to register again with the SA (ClientReregister) on the "
     "first sweep as master"},
    {"drop_event_subscriptions", VALUE_BOOL, FIELD(drop_event_subscriptions), 0, 0,
     CS_SM_CONFIG_LIVE,
     "Drop the event subscriptions (InformInfo) of a port that leaves the fabric; FALSE keeps "
     "them for when it comes back, as OpenSM does by default"},
    {"allow_both_pkeys", VALUE_BOOL, FIELD(allow_both_pkeys), 0, 0, CS_SM_CONFIG_PKEYS,
     "A port may be a full and a limited member of one partition (OpenSM -W)"},
    {"subnet_timeout", VALUE_UINT, FIELD(subnet_timeout), 0, 31, CS_SM_CONFIG_LIVE,
     "Subnet timeout exponent (4.096 us * 2^n): the SA's PathRecord PacketLifeTime"},
    {"subnet_supports_sa_path_caching", VALUE_BOOL, FIELD(sa_path_caching), 0, 0, CS_SM_CONFIG_LIVE,
     "cloudsm: raise the caching flag (bit 353) in every SA PathRecord reply"},
    {"sm_assigned_guid", VALUE_UINT, FIELD(sm_assigned_guid), 0, 255, CS_SM_CONFIG_LIVE,
     "Byte of the alias GUIDs the SM assigns (0x001405, this byte, a 32-bit count)"},
    {"max_wire_smps", VALUE_UINT, FIELD(smp_window), 1, CS_SMP_PIPE_MAX_WINDOW,
     CS_SM_CONFIG_RESTART, "SMPs in flight at once (OpenSM's default is 4)"},
    {"transaction_timeout", VALUE_UINT, FIELD(timeout_ms), 1, CS_SM_CONFIG_MAX_TIMEOUT_MS,
     CS_SM_CONFIG_RESTART, "Time to wait for an SMP's reply, in ms, before sending it again"},
    {"transaction_retries", VALUE_UINT, FIELD(retries), 0, CS_SM_CONFIG_MAX_RETRIES,
     CS_SM_CONFIG_RESTART, "Resends of an SMP that got no reply"},
    {"sweep_interval", VALUE_UINT, FIELD(sweep_interval), 0, 86400, CS_SM_CONFIG_LIVE,
     "Seconds between light sweeps; 0 = none (traps and control-socket sweeps only)"},
    {"perfmgr", VALUE_BOOL, FIELD(perfmgr), 0, 0, CS_SM_CONFIG_LIVE,
     "Poll every port's PerfMgt counters (the monitor: rates kept for rules and `cloudsm sm "
     "counters`)"},
    {"perfmgr_sweep_time_s", VALUE_UINT, FIELD(perfmgr_sweep_time_s), 1, 86400, CS_SM_CONFIG_LIVE,
     "Seconds between two polls of the counters (OpenSM's default is 180)"},
    {"adapt_rules_file", VALUE_PATH, FIELD(adapt_rules_file), 0, 0, CS_SM_CONFIG_LIVE,
     "cloudsm: IBAdapt rules the adaptation loop evaluates after every counter poll; (null) = "
     "none"},
    {"adapt_mode", VALUE_CHOICE, FIELD(adapt_mode), 0, 0, CS_SM_CONFIG_LIVE,
     "cloudsm: off (rules not evaluated), dry-run (decide and record, send nothing) or on"},
    {"adapt_min_gain_percent", VALUE_UINT, FIELD(adapt_min_gain_percent), 0, 100, CS_SM_CONFIG_LIVE,
     "cloudsm: expected congestion reduction a re-routing must bring, in %"},
    {"adapt_max_smps_per_percent", VALUE_UINT, FIELD(adapt_max_smps_per_percent), 0, 1000000000,
     CS_SM_CONFIG_LIVE, "cloudsm: LFT SMPs a percent of gain may cost at most; 0 = no bound"},
    {"adapt_max_smps_per_hour", VALUE_UINT, FIELD(adapt_max_smps_per_hour), 0, 1000000000,
     CS_SM_CONFIG_LIVE, "cloudsm: LFT SMPs adaptations may send in any hour; 0 = no limit"},
    {"adapt_quiet_hours", VALUE_WINDOW, FIELD(adapt_quiet_hours), 0, 0, CS_SM_CONFIG_LIVE,
     "cloudsm: daily HH:MM-HH:MM (local time) in which adaptations are not carried out"},
    {"qos", VALUE_BOOL, FIELD(qos), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS: program VLArbitration, VLHighLimit and SL2VL from the qos_* keys below"},
    {"qos_policy_file", VALUE_PATH, FIELD(qos_policy_file), 0, 0, CS_SM_CONFIG_LIVE,
     "QoS: OpenSM's qos-policy.conf, its qos-ulps section: PathRecord SLs by ULP, service ID, "
     "P_Key or port GUID (with qos TRUE); (null) or a missing file = none"},
    {"qos_max_vls", VALUE_UINT, FIELD(qos_general.max_vls), 0, 15, CS_SM_CONFIG_REROUTE,
     "QoS defaults: max VLs (0 = default 15); read, not programmed (as OpenSM 3.3.23)"},
    {"qos_high_limit", VALUE_LIMIT, FIELD(qos_general.high_limit), 0, 255, CS_SM_CONFIG_REROUTE,
     "QoS defaults: PortInfo VLHighLimit (-1 = default 0)"},
    {"qos_vlarb_high", VALUE_VLARB, FIELD(qos_general.vlarb_high), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS defaults: high-priority VLArbitration VL:weight list ((null) = 0:4,1:0,...,14:0)"},
    {"qos_vlarb_low", VALUE_VLARB, FIELD(qos_general.vlarb_low), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS defaults: low-priority VLArbitration VL:weight list ((null) = 0:0,1:4,...,14:4)"},
    {"qos_sl2vl", VALUE_SL2VL, FIELD(qos_general.sl2vl), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS defaults: the VLs of SLs 0..15 ((null) = 0,1,...,14,7)"},
    {"qos_ca_max_vls", VALUE_UINT, FIELD(qos_class[CS_QOS_CA].max_vls), 0, 15, CS_SM_CONFIG_REROUTE,
     "QoS CA ports: max VLs (0 = qos_max_vls); read, not programmed (as OpenSM 3.3.23)"},
    {"qos_ca_high_limit", VALUE_LIMIT, FIELD(qos_class[CS_QOS_CA].high_limit), 0, 255,
     CS_SM_CONFIG_REROUTE, "QoS CA ports: PortInfo VLHighLimit (-1 = qos_high_limit)"},
    {"qos_ca_vlarb_high", VALUE_VLARB, FIELD(qos_class[CS_QOS_CA].vlarb_high), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS CA ports: high-priority VLArbitration VL:weight list ((null) = qos_vlarb_high)"},
    {"qos_ca_vlarb_low", VALUE_VLARB, FIELD(qos_class[CS_QOS_CA].vlarb_low), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS CA ports: low-priority VLArbitration VL:weight list ((null) = qos_vlarb_low)"},
    {"qos_ca_sl2vl", VALUE_SL2VL, FIELD(qos_class[CS_QOS_CA].sl2vl), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS CA ports: the VLs of SLs 0..15 ((null) = qos_sl2vl)"},
    {"qos_rtr_max_vls", VALUE_UINT, FIELD(qos_class[CS_QOS_RTR].max_vls), 0, 15,
     CS_SM_CONFIG_REROUTE,
     "QoS router ports: max VLs (0 = qos_max_vls); read, not programmed (as OpenSM 3.3.23)"},
    {"qos_rtr_high_limit", VALUE_LIMIT, FIELD(qos_class[CS_QOS_RTR].high_limit), 0, 255,
     CS_SM_CONFIG_REROUTE, "QoS router ports: PortInfo VLHighLimit (-1 = qos_high_limit)"},
    {"qos_rtr_vlarb_high", VALUE_VLARB, FIELD(qos_class[CS_QOS_RTR].vlarb_high), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS router ports: high-priority VLArbitration VL:weight list ((null) = qos_vlarb_high)"},
    {"qos_rtr_vlarb_low", VALUE_VLARB, FIELD(qos_class[CS_QOS_RTR].vlarb_low), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS router ports: low-priority VLArbitration VL:weight list ((null) = qos_vlarb_low)"},
    {"qos_rtr_sl2vl", VALUE_SL2VL, FIELD(qos_class[CS_QOS_RTR].sl2vl), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS router ports: the VLs of SLs 0..15 ((null) = qos_sl2vl)"},
    {"qos_sw0_max_vls", VALUE_UINT, FIELD(qos_class[CS_QOS_SW0].max_vls), 0, 15,
     CS_SM_CONFIG_REROUTE,
     "QoS enhanced switch port 0: max VLs (0 = qos_max_vls); read, not programmed (as OpenSM "
     "3.3.23)"},
    {"qos_sw0_high_limit", VALUE_LIMIT, FIELD(qos_class[CS_QOS_SW0].high_limit), 0, 255,
     CS_SM_CONFIG_REROUTE,
     "QoS enhanced switch port 0: PortInfo VLHighLimit (-1 = qos_high_limit)"},
    {"qos_sw0_vlarb_high", VALUE_VLARB, FIELD(qos_class[CS_QOS_SW0].vlarb_high), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS enhanced switch port 0: high-priority VLArbitration VL:weight list ((null) = "
     "qos_vlarb_high)"},
    {"qos_sw0_vlarb_low", VALUE_VLARB, FIELD(qos_class[CS_QOS_SW0].vlarb_low), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS enhanced switch port 0: low-priority VLArbitration VL:weight list ((null) = "
     "qos_vlarb_low)"},
    {"qos_sw0_sl2vl", VALUE_SL2VL, FIELD(qos_class[CS_QOS_SW0].sl2vl), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS enhanced switch port 0: the VLs of SLs 0..15 ((null) = qos_sl2vl)"},
    {"qos_swe_max_vls", VALUE_UINT, FIELD(qos_class[CS_QOS_SWE].max_vls), 0, 15,
     CS_SM_CONFIG_REROUTE,
     "QoS switch external ports: max VLs (0 = qos_max_vls); read, not programmed (as OpenSM "
     "3.3.23)"},
    {"qos_swe_high_limit", VALUE_LIMIT, FIELD(qos_class[CS_QOS_SWE].high_limit), 0, 255,
     CS_SM_CONFIG_REROUTE, "QoS switch external ports: PortInfo VLHighLimit (-1 = qos_high_limit)"},
    {"qos_swe_vlarb_high", VALUE_VLARB, FIELD(qos_class[CS_QOS_SWE].vlarb_high), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS switch external ports: high-priority VLArbitration VL:weight list ((null) = "
     "qos_vlarb_high)"},
    {"qos_swe_vlarb_low", VALUE_VLARB, FIELD(qos_class[CS_QOS_SWE].vlarb_low), 0, 0,
     CS_SM_CONFIG_REROUTE,
     "QoS switch external ports: low-priority VLArbitration VL:weight list ((null) = "
     "qos_vlarb_low)"},
    {"qos_swe_sl2vl", VALUE_SL2VL, FIELD(qos_class[CS_QOS_SWE].sl2vl), 0, 0, CS_SM_CONFIG_REROUTE,
     "QoS switch external ports: the VLs of SLs 0..15 ((null) = qos_sl2vl)"},
    {"reassign_lids", VALUE_BOOL, FIELD(reassign_lids), 0, 0, CS_SM_CONFIG_RESTART,
     "Forget guid2lid and the LIDs ports hold at start: number every port afresh (OpenSM -r)"},
    {"state_dir", VALUE_PATH, FIELD(state_dir), 0, 0, CS_SM_CONFIG_RESTART,
     "cloudsm: directory of the state kept across restarts (guid2lid)"},
    {"log_file", VALUE_PATH, FIELD(log_file), 0, 0, CS_SM_CONFIG_LIVE,
     "Log file, appended to; (null) = standard error"},
    {"log_level", VALUE_LEVEL, FIELD(log_level), 0, 0, CS_SM_CONFIG_LIVE,
     "cloudsm: least severe messages logged: error, warn, info or debug"},
};

#define KEY_COUNT (sizeof keys / sizeof keys[0])

/* Every key of OpenSM 3.3.23's opensm.conf (`opensm -c FILE`), sorted (strcmp) for bsearch.
 * A key in this list that cloudsm does not use is expected in a shared file; one in neither
 * list is probably a typo and is reported louder. */
static const char *const opensm_keys[] = {
    "accum_log_file",
    "allow_both_pkeys",
    "avoid_throttled_links",
    "babbling_port_policy",
    "cc_ca_cong_setting_ccti_increase",
    "cc_ca_cong_setting_ccti_min",
    "cc_ca_cong_setting_ccti_timer",
    "cc_ca_cong_setting_control_map",
    "cc_ca_cong_setting_port_control",
    "cc_ca_cong_setting_trigger_threshold",
    "cc_cct",
    "cc_key",
    "cc_max_outstanding_mads",
    "cc_sw_cong_setting_control_map",
    "cc_sw_cong_setting_credit_mask",
    "cc_sw_cong_setting_credit_starvation_return_delay",
    "cc_sw_cong_setting_credit_starvation_threshold",
    "cc_sw_cong_setting_marking_rate",
    "cc_sw_cong_setting_packet_size",
    "cc_sw_cong_setting_threshold",
    "cc_sw_cong_setting_victim_mask",
    "cn_guid_file",
    "congestion_control",
    "connect_roots",
    "console",
    "console_port",
    "consolidate_ipv6_snm_req",
    "daemon",
    "disable_multicast",
    "do_mesh_analysis",
    "dump_files_dir",
    "enable_quirks",
    "event_db_dump_file",
    "event_plugin_name",
    "event_plugin_options",
    "exit_on_fatal",
    "fdr10",
    "force_heavy_sweep",
    "force_link_speed",
    "force_link_speed_ext",
    "force_link_width",
    "force_log_flush",
    "fsync_high_avail_files",
    "guid",
    "guid_routing_order_file",
    "guid_routing_order_no_scatter",
    "head_of_queue_lifetime",
    "honor_guid2lid_file",
    "hop_weights_file",
    "ids_guid_file",
    "ignore_other_sm",
    "io_guid_file",
    "ipoib_mcgroup_creation_validation",
    "keep_pkey_indexes",
    "lash_start_vl",
    "leaf_head_of_queue_lifetime",
    "leaf_vl_stall_count",
    "lfts_file",
    "lid_matrix_dump_file",
    "lmc",
    "lmc_esp0",
    "local_phy_errors_threshold",
    "log_file",
    "log_flags",
    "log_max_size",
    "log_prefix",
    "long_transaction_timeout",
    "m_key",
    "m_key_lease_period",
    "m_key_lookup",
    "m_key_protection_level",
    "max_msg_fifo_timeout",
    "max_op_vls",
    "max_reverse_hops",
    "max_smps_timeout",
    "max_wire_smps",
    "max_wire_smps2",
    "mcgroup_join_validation",
    "no_partition_enforcement",
    "node_name_map_name",
    "nue_include_switches",
    "nue_max_num_vls",
    "overrun_errors_threshold",
    "packet_life_time",
    "part_enforce",
    "partition_config_file",
    "per_module_logging_file",
    "perfmgr",
    "perfmgr_ignore_cas",
    "perfmgr_log_errors",
    "perfmgr_max_outstanding_queries",
    "perfmgr_query_cpi",
    "perfmgr_redir",
    "perfmgr_rm_nodes",
    "perfmgr_sweep_time_s",
    "perfmgr_xmit_wait_log",
    "perfmgr_xmit_wait_threshold",
    "polling_retry_number",
    "port_prof_ignore_file",
    "port_profile_switch_nodes",
    "port_search_ordering_file",
    "port_shifting",
    "prefix_routes_file",
    "qos",
    "qos_ca_high_limit",
    "qos_ca_max_vls",
    "qos_ca_sl2vl",
    "qos_ca_vlarb_high",
    "qos_ca_vlarb_low",
    "qos_high_limit",
    "qos_max_vls",
    "qos_policy_file",
    "qos_rtr_high_limit",
    "qos_rtr_max_vls",
    "qos_rtr_sl2vl",
    "qos_rtr_vlarb_high",
    "qos_rtr_vlarb_low",
    "qos_sl2vl",
    "qos_sw0_high_limit",
    "qos_sw0_max_vls",
    "qos_sw0_sl2vl",
    "qos_sw0_vlarb_high",
    "qos_sw0_vlarb_low",
    "qos_swe_high_limit",
    "qos_swe_max_vls",
    "qos_swe_sl2vl",
    "qos_swe_vlarb_high",
    "qos_swe_vlarb_low",
    "qos_vlarb_high",
    "qos_vlarb_low",
    "quasi_ftree_indexing",
    "reassign_lids",
    "root_guid_file",
    "routing_engine",
    "sa_db_dump",
    "sa_db_file",
    "sa_key",
    "scatter_ports",
    "single_thread",
    "sm_assigned_guid",
    "sm_inactive",
    "sm_key",
    "sm_priority",
    "sm_sl",
    "sminfo_polling_timeout",
    "subnet_prefix",
    "subnet_timeout",
    "suppress_sl2vl_mad_status_errors",
    "sweep_interval",
    "sweep_on_trap",
    "torus_config",
    "transaction_retries",
    "transaction_timeout",
    "use_mfttop",
    "use_optimized_slvl",
    "use_original_extended_sa_rates_only",
    "use_ucast_cache",
    "vl_stall_count",
};

static const char *const level_names[] = {"error", "warn", "info", "debug"};

const char *cs_log_level_name(enum cs_log_level level)
{
    return (unsigned)level < sizeof level_names / sizeof level_names[0] ? level_names[level] : "?";
}

bool cs_log_level_parse(const char *name, enum cs_log_level *out)
{
    for (unsigned i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
        if (strcasecmp(name, level_names[i]) == 0) {
            *out = (enum cs_log_level)i;
            return true;
        }
    if (strcasecmp(name, "warning") == 0) {
        *out = CS_LOG_WARN;
        return true;
    }
    return false;
}

void cs_sm_config_defaults(struct cs_sm_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->routing_engine, sizeof c->routing_engine, "%s", CS_SM_CONFIG_DEFAULT_ENGINE);
    c->subnet_prefix = CS_SM_CONFIG_DEFAULT_SUBNET_PREFIX;
    c->sm_key = CS_SM_CONFIG_DEFAULT_SM_KEY;
    c->subnet_timeout = CS_SM_CONFIG_DEFAULT_SUBNET_TIMEOUT;
    c->smp_window = CS_SMP_PIPE_DEFAULT_WINDOW;
    c->timeout_ms = CS_SMP_PIPE_DEFAULT_TIMEOUT_MS;
    c->retries = CS_SMP_PIPE_DEFAULT_RETRIES;
    c->sweep_interval = CS_SM_CONFIG_DEFAULT_SWEEP_INTERVAL;
    c->sminfo_polling_timeout_ms = CS_SM_CONFIG_DEFAULT_SMINFO_POLLING_TIMEOUT;
    c->polling_retry_number = CS_SM_CONFIG_DEFAULT_POLLING_RETRY_NUMBER;
    c->perfmgr_sweep_time_s = CS_SM_CONFIG_DEFAULT_PERFMGR_SWEEP_TIME;
    c->adapt_mode = CS_ADAPT_MODE_DRY_RUN;
    c->adapt_min_gain_percent = CS_SM_CONFIG_DEFAULT_ADAPT_MIN_GAIN;
    snprintf(c->state_dir, sizeof c->state_dir, "%s", CS_SM_CONFIG_DEFAULT_STATE_DIR);
    c->log_level = CS_LOG_INFO;
    cs_qos_options_unset(&c->qos_general);
    for (unsigned i = 0; i < CS_QOS_CLASSES; i++)
        cs_qos_options_unset(&c->qos_class[i]);
}

struct cs_smp_pipe_options cs_sm_config_pipe_options(const struct cs_sm_config *c)
{
    struct cs_smp_pipe_options o = {
        .window = c->smp_window, .timeout_ms = c->timeout_ms, .retries = c->retries};
    return o;
}

void cs_sm_config_vm_state_path(const struct cs_sm_config *c, char *buf, size_t size)
{
    if (c->vm_state_file[0])
        snprintf(buf, size, "%s", c->vm_state_file);
    else
        snprintf(buf, size, "%s/%s", c->state_dir, CS_SM_CONFIG_VM_STATE_NAME);
}

bool cs_sm_config_equal(const struct cs_sm_config *a, const struct cs_sm_config *b)
{
    struct cs_sm_config_change changes[CS_SM_CONFIG_KEYS_MAX];
    return cs_sm_config_diff(a, b, changes) == 0; /* key by key, from the one key table */
}

void cs_sm_config_warnings_free(struct cs_sm_config_warnings *w)
{
    free(w->items);
    memset(w, 0, sizeof *w);
}

uint32_t cs_sm_config_warnings_count(const struct cs_sm_config_warnings *w,
                                     enum cs_sm_config_warning_kind kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->count; i++)
        n += w->items[i].kind == kind;
    return n;
}

/* Append a warning; name NULL: not from a file, so no "name:line: " prefix. */
static int warn(struct cs_sm_config_warnings *w, enum cs_sm_config_warning_kind kind,
                const char *name, unsigned line, const char *text, struct cs_error *err)
{
    if (!w)
        return 0;
    if (cs_grow((void **)&w->items, &w->capacity, (uint64_t)w->count + 1, sizeof *w->items, err) <
        0)
        return -1;
    struct cs_sm_config_warning *item = &w->items[w->count++];
    item->kind = kind;
    item->line = line;
    /* Bounded parts (a very long path is cut) so that the line always fits the message. */
    if (name)
        snprintf(item->msg, sizeof item->msg, "%.200s:%u: %.280s", name, line, text);
    else
        snprintf(item->msg, sizeof item->msg, "%.480s", text);
    return 0;
}

static const struct key *find_key(const char *name, size_t len)
{
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (strlen(keys[i].name) == len && memcmp(keys[i].name, name, len) == 0)
            return &keys[i];
    return NULL;
}

static bool is_opensm_key(const char *name, size_t len)
{
    size_t lo = 0, hi = sizeof opensm_keys / sizeof opensm_keys[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *k = opensm_keys[mid];
        size_t klen = strlen(k);
        int cmp = memcmp(k, name, klen < len ? klen : len);
        if (cmp == 0)
            cmp = klen < len ? -1 : klen > len ? 1 : 0;
        if (cmp == 0)
            return true;
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* A value as messages show it: cut, and without control characters. */
/* Text from the file as a message shows it: escaped (never raw bytes on a terminal), cut with
 * "..." after about SHOWN_VALUE_MAX characters. */
static const char *shown(const char *v, size_t n, char buf[SHOWN_VALUE_MAX + 4])
{
    return cs_text_escape(v, n, buf, SHOWN_VALUE_MAX + 4);
}

static bool is_printable_ascii(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] >= 0x7f)
            return false;
    return true;
}

static bool is_null_string(const char *v, size_t n)
{
    return n == strlen(NULL_STRING) && memcmp(v, NULL_STRING, n) == 0;
}

static int parse_number(const char *v, size_t n, uint64_t *out, struct cs_error *err)
{
    char buf[SHOWN_VALUE_MAX + 4];
    struct cs_span s = {v, v + n};
    if (!cs_span_u64(&s, 0, out) || !cs_span_empty(&s))
        return cs_fail(err, "'%s' is not a number (decimal or 0x hex)", shown(v, n, buf));
    return 0;
}

/* The routing_engine value: OpenSM takes a comma list of engines to try in turn. cloudsm uses
 * the first and falls back to minhop by itself (cs_route), so the rest only earns a note. */
static int set_engine(const char *key, char *field, size_t size, const char *v, size_t n,
                      const char *if_null, char *note, size_t note_size, struct cs_error *err)
{
    char buf[SHOWN_VALUE_MAX + 4];
    struct cs_span first = {v, v + n};
    const char *comma = memchr(v, ',', n);
    if (comma)
        first.end = comma;
    cs_span_trim_right(&first);
    if (is_null_string(first.p, (size_t)(first.end - first.p)) && !comma) {
        snprintf(field, size, "%s", if_null);
        return 0;
    }
    char name[32] = "";
    size_t len = (size_t)(first.end - first.p);
    if (len == 0)
        return cs_fail(err, "no engine before the ','");
    if (len < sizeof name)
        cs_span_copy(&first, name, sizeof name);
    if (!name[0] || !cs_route_engine_find(name)) {
        char known[128] = "";
        size_t used = 0;
        for (const struct cs_route_engine *e = cs_route_engines; e->name; e++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "",
                                     e->name);
        return cs_fail(err, "unknown routing engine '%s' (cloudsm has: %s)",
                       shown(first.p, len, buf), known);
    }
    snprintf(field, size, "%s", name);
    if (comma) {
        struct cs_span rest = {comma + 1, v + n};
        cs_span_skip_space(&rest);
        snprintf(note, note_size,
                 "%s: only '%s' is used; cloudsm falls back to minhop by itself "
                 "(ignored: '%s')",
                 key, name, shown(rest.p, (size_t)(rest.end - rest.p), buf));
    }
    return 0;
}

/* Parse value v (n bytes, already without surrounding blanks and quotes) for key k into c.
 * err does not name the key: the caller says where the value came from. A non-empty note is
 * something the caller should pass on as a warning. */
static int set_value(struct cs_sm_config *c, const struct key *k, const char *v, size_t n,
                     char *note, size_t note_size, struct cs_error *err)
{
    char buf[SHOWN_VALUE_MAX + 4];
    char *field = (char *)c + k->offset;
    uint64_t number;
    note[0] = '\0';
    if (memchr(v, '\0', n))
        return cs_fail(err, "the value holds a NUL byte");
    if (n == 0 && k->kind != VALUE_PATH && k->kind != VALUE_WINDOW)
        return cs_fail(err, "missing value");
    switch (k->kind) {
    case VALUE_GUID:
        if (parse_number(v, n, &number, err) < 0)
            return -1;
        memcpy(field, &number, sizeof number);
        return 0;
    case VALUE_UINT: {
        if (parse_number(v, n, &number, err) < 0)
            return -1;
        if (number < k->min || number > k->max) {
            if (number == 0 && k->offset == FIELD(smp_window))
                return cs_fail(err, "0 (OpenSM: no limit) is not supported: give %u..%u", k->min,
                               k->max);
            return cs_fail(err, "%s is out of range %u..%u", shown(v, n, buf), k->min, k->max);
        }
        unsigned narrow = (unsigned)number;
        memcpy(field, &narrow, sizeof narrow);
        return 0;
    }
    case VALUE_BOOL: {
        bool b;
        if (n == 4 && strncasecmp(v, "TRUE", 4) == 0)
            b = true;
        else if (n == 5 && strncasecmp(v, "FALSE", 5) == 0)
            b = false;
        else
            return cs_fail(err, "'%s' is not TRUE or FALSE", shown(v, n, buf));
        memcpy(field, &b, sizeof b);
        return 0;
    }
    case VALUE_PATH:
        if (is_null_string(v, n))
            n = 0;
        if (n >= CS_SM_CONFIG_PATH_MAX)
            return cs_fail(err, "the path is longer than %d bytes", CS_SM_CONFIG_PATH_MAX - 1);
        if (memchr(v, '\n', n))
            return cs_fail(err, "the path holds a line break");
        memcpy(field, v, n);
        memset(field + n, 0, CS_SM_CONFIG_PATH_MAX - n);
        return 0;
    case VALUE_WINDOW: {
        if (is_null_string(v, n))
            n = 0;
        char text[CS_SM_CONFIG_WINDOW_MAX + 8] = "";
        if (n >= sizeof text)
            return cs_fail(err, "'%s' is not a daily window HH:MM-HH:MM", shown(v, n, buf));
        memcpy(text, v, n);
        struct cs_adapt_policy scratch;
        if (cs_adapt_quiet_hours_parse(&scratch, text, err) < 0)
            return -1;
        memset(field, 0, CS_SM_CONFIG_WINDOW_MAX);
        memcpy(field, v, n);
        return 0;
    }
    case VALUE_ENGINE:
        /* (null): routing_engine's default; reconfig_engine's "same as routing_engine" */
        return set_engine(k->name, field, sizeof c->routing_engine, v, n,
                          field == c->routing_engine ? CS_SM_CONFIG_DEFAULT_ENGINE : "", note,
                          note_size, err);
    case VALUE_LEVEL: {
        char name[16];
        enum cs_log_level level;
        if (n >= sizeof name)
            n = sizeof name - 1; /* too long for any level: fails below */
        memcpy(name, v, n);
        name[n] = '\0';
        if (!cs_log_level_parse(name, &level))
            return cs_fail(err, "'%s' is not one of error, warn, info, debug", shown(v, n, buf));
        memcpy(field, &level, sizeof level);
        return 0;
    }
    case VALUE_CHOICE: {
        const char *const *names = choices(k);
        char list[128] = "";
        size_t used = 0;
        for (uint8_t i = 0; names[i]; i++) {
            if (strlen(names[i]) == n && memcmp(names[i], v, n) == 0) {
                memcpy(field, &i, sizeof i);
                return 0;
            }
            used +=
                (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
        }
        return cs_fail(err, "'%s' is not one of %s", shown(v, n, buf), list);
    }
    case VALUE_LIMIT: {
        /* OpenSM writes -1 for "not set"; cloudsm reads it so, and nothing else negative. */
        int limit = CS_QOS_HIGH_LIMIT_UNSET;
        if (!(n == 2 && memcmp(v, "-1", 2) == 0)) {
            if (parse_number(v, n, &number, err) < 0)
                return -1;
            if (number < k->min || number > k->max)
                return cs_fail(err, "%s is out of range -1 (not set), %u..%u", shown(v, n, buf),
                               k->min, k->max);
            limit = (int)number;
        }
        memcpy(field, &limit, sizeof limit);
        return 0;
    }
    case VALUE_VLARB: {
        struct cs_qos_vlarb_list l = {0};
        if (!is_null_string(v, n) && cs_qos_vlarb_parse(v, n, &l, err) < 0)
            return -1;
        memcpy(field, &l, sizeof l);
        return 0;
    }
    case VALUE_SL2VL: {
        struct cs_qos_sl2vl_list l = {0};
        if (!is_null_string(v, n) && cs_qos_sl2vl_parse(v, n, &l, err) < 0)
            return -1;
        memcpy(field, &l, sizeof l);
        return 0;
    }
    case VALUE_LMC:
        if (parse_number(v, n, &number, err) < 0)
            return -1;
        if (number != 0)
            return cs_fail(err, "LMC %s is not supported: cloudsm gives each port one LID (lmc 0)",
                           shown(v, n, buf));
        return 0;
    }
    return cs_fail(err, "internal: key kind %d", (int)k->kind);
}

int cs_sm_config_set(struct cs_sm_config *c, const char *key, const char *value,
                     struct cs_sm_config_warnings *warnings, struct cs_error *err)
{
    const struct key *k = find_key(key, strlen(key));
    if (!k)
        return cs_fail(err, "unknown key '%s'", key);
    struct cs_sm_config next = *c;
    char note[CS_ERROR_MAX];
    if (set_value(&next, k, value, strlen(value), note, sizeof note, err) < 0)
        return -1;
    if (note[0] && warn(warnings, CS_SM_CONFIG_NOTE, NULL, 0, note, err) < 0)
        return -1;
    *c = next;
    return 0;
}

/* One line of the file; the key and value are checked and applied to c. */
static int parse_line(struct cs_sm_config *c, struct cs_span line, const char *name,
                      unsigned number, unsigned *set_on_line,
                      struct cs_sm_config_warnings *warnings, struct cs_error *err)
{
    char buf[SHOWN_VALUE_MAX + 4], text[CS_ERROR_MAX];
    /* As OpenSM: a '#' anywhere starts a comment, even inside a value. */
    const char *hash = memchr(line.p, '#', (size_t)(line.end - line.p));
    if (hash)
        line.end = hash;
    cs_span_skip_space(&line);
    cs_span_trim_right(&line);
    if (cs_span_empty(&line))
        return 0;
    const char *key_start = line.p;
    while (line.p < line.end && !cs_is_blank(*line.p))
        line.p++;
    size_t key_len = (size_t)(line.p - key_start);
    cs_span_skip_space(&line);
    size_t n = (size_t)(line.end - line.p);

    /* No key has other bytes: such a line is not an opensm.conf line, so the file is refused
     * (rather than warned about and then partly used). */
    if (!is_printable_ascii(key_start, key_len))
        return cs_fail_at(err, name, number,
                          "key '%s' has bytes that are not printable ASCII: not an opensm.conf",
                          shown(key_start, key_len, buf));
    const struct key *k = find_key(key_start, key_len);
    if (!k) {
        bool opensm = is_opensm_key(key_start, key_len);
        if (opensm)
            snprintf(text, sizeof text, "OpenSM option '%s' is not used by cloudsm (ignored)",
                     shown(key_start, key_len, buf));
        else
            snprintf(text, sizeof text, "unknown key '%s' ignored", shown(key_start, key_len, buf));
        return warn(warnings, opensm ? CS_SM_CONFIG_OPENSM_KEY : CS_SM_CONFIG_UNKNOWN_KEY, name,
                    number, text, err);
    }
    /* A bare key is a mistake; `key ""` or `key (null)` unsets a string on purpose. */
    if (n == 0)
        return cs_fail_at(
            err, name, number, "%s: missing value%s", k->name,
            k->kind == VALUE_PATH || k->kind == VALUE_WINDOW ? " (write (null) for none)" : "");
    /* One pair of enclosing quotes goes, as OpenSM's clean_val does it. */
    if (n >= 2 && (line.p[0] == '"' || line.p[0] == '\'') && line.end[-1] == line.p[0]) {
        line.p++;
        line.end--;
        n -= 2;
    }
    struct cs_error why;
    char note[CS_ERROR_MAX];
    if (set_value(c, k, line.p, n, note, sizeof note, &why) < 0)
        return cs_fail_at(err, name, number, "%s: %s", k->name, why.msg);
    if (note[0] && warn(warnings, CS_SM_CONFIG_NOTE, name, number, note, err) < 0)
        return -1;
    unsigned *previous = &set_on_line[k - keys];
    if (*previous) {
        snprintf(text, sizeof text, "'%s' was already set on line %u; this value wins", k->name,
                 *previous);
        if (warn(warnings, CS_SM_CONFIG_NOTE, name, number, text, err) < 0)
            return -1;
    }
    *previous = number;
    return 0;
}

static int parse_source(struct cs_sm_config *c, struct cs_lines *in,
                        struct cs_sm_config_warnings *warnings, struct cs_error *err)
{
    const char *name = in->name;
    /* Built aside so that a failure leaves the caller's configuration as it was. */
    struct cs_sm_config *next = malloc(sizeof *next);
    if (!next)
        return cs_fail(err, "out of memory reading %s", name);
    cs_sm_config_defaults(next);
    unsigned set_on_line[KEY_COUNT] = {0};
    uint32_t warnings_before = warnings ? warnings->count : 0;
    struct cs_span line;
    int rc = 0, got;
    while (rc == 0 && (got = cs_lines_next(in, &line)) > 0)
        rc = parse_line(next, line, name, in->number, set_on_line, warnings, err);
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0)
        *c = *next;
    else if (warnings)
        warnings->count = warnings_before;
    free(next);
    return rc;
}

int cs_sm_config_parse(struct cs_sm_config *c, const char *text, size_t len, const char *name,
                       struct cs_sm_config_warnings *warnings, struct cs_error *err)
{
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(c, &in, warnings, err);
}

int cs_sm_config_read(struct cs_sm_config *c, const char *path,
                      struct cs_sm_config_warnings *warnings, struct cs_error *err)
{
    struct cs_lines in;
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(c, &in, warnings, err);
    cs_lines_close(&in);
    return rc;
}

/* Whether a string must be quoted to read back as itself: the parser drops surrounding blanks
 * and one pair of enclosing quotes. */
static bool needs_quotes(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return false;
    if (cs_is_blank(s[0]) || cs_is_blank(s[n - 1]))
        return true;
    return n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0];
}

static int check_writable(const struct key *k, const char *s, struct cs_error *err)
{
    if (strchr(s, '#') || strchr(s, '\n'))
        return cs_fail(err, "%s cannot be written in opensm.conf syntax: it holds a '%s'", k->name,
                       strchr(s, '#') ? "#" : "line break");
    if (strcmp(s, NULL_STRING) == 0)
        return cs_fail(err, "%s cannot be written in opensm.conf syntax: it is \"%s\"", k->name,
                       NULL_STRING);
    return 0;
}

int cs_sm_config_write(FILE *out, const struct cs_sm_config *c, struct cs_error *err)
{
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (keys[i].kind == VALUE_PATH &&
            check_writable(&keys[i], (const char *)c + keys[i].offset, err) < 0)
            return -1;
    int bad = fprintf(out, "# cloudsmd configuration, in opensm.conf syntax (docs/sm/cloudsmd.md)\n"
                           "# OpenSM keys cloudsm does not use may stay in the file: they are "
                           "ignored.\n") < 0;
    for (size_t i = 0; i < KEY_COUNT && !bad; i++) {
        const struct key *k = &keys[i];
        const char *field = (const char *)c + k->offset;
        bad |= fprintf(out, "\n# %s\n%s ", k->comment, k->name) < 0;
        switch (k->kind) {
        case VALUE_GUID: {
            uint64_t v;
            memcpy(&v, field, sizeof v);
            bad |= fprintf(out, "0x%016" PRIx64 "\n", v) < 0;
            break;
        }
        case VALUE_UINT: {
            unsigned v;
            memcpy(&v, field, sizeof v);
            bad |= fprintf(out, "%u\n", v) < 0;
            break;
        }
        case VALUE_BOOL: {
            bool v;
            memcpy(&v, field, sizeof v);
            bad |= fprintf(out, "%s\n", v ? "TRUE" : "FALSE") < 0;
            break;
        }
        case VALUE_PATH:
        case VALUE_ENGINE:
        case VALUE_WINDOW:
            if (!*field)
                bad |= fprintf(out, "%s\n", NULL_STRING) < 0;
            else if (needs_quotes(field))
                bad |= fprintf(out, "\"%s\"\n", field) < 0;
            else
                bad |= fprintf(out, "%s\n", field) < 0;
            break;
        case VALUE_LEVEL: {
            enum cs_log_level v;
            memcpy(&v, field, sizeof v);
            bad |= fprintf(out, "%s\n", cs_log_level_name(v)) < 0;
            break;
        }
        case VALUE_LMC:
            bad |= fprintf(out, "0\n") < 0;
            break;
        case VALUE_LIMIT:
        case VALUE_VLARB:
        case VALUE_SL2VL: {
            char text[CS_QOS_VLARB_MAX * 8];
            cs_sm_config_format_value(c, k->name, text, sizeof text);
            bad |= fprintf(out, "%s\n", text) < 0;
            break;
        }
        case VALUE_CHOICE:
            bad |= fprintf(out, "%s\n", choice_name(k, field)) < 0;
            break;
        }
    }
    if (bad || fflush(out) != 0)
        return cs_fail(err, "writing the configuration failed");
    return 0;
}

/* ---- what changed between two configurations (SIGHUP) ---- */

_Static_assert(KEY_COUNT <= CS_SM_CONFIG_KEYS_MAX, "CS_SM_CONFIG_KEYS_MAX holds every key");

static size_t value_size(const struct key *k)
{
    switch (k->kind) {
    case VALUE_GUID:
        return sizeof(uint64_t);
    case VALUE_UINT:
        return sizeof(unsigned);
    case VALUE_BOOL:
        return sizeof(bool);
    case VALUE_PATH:
        return CS_SM_CONFIG_PATH_MAX;
    case VALUE_ENGINE:
        return sizeof(((struct cs_sm_config *)0)->routing_engine);
    case VALUE_LEVEL:
        return sizeof(enum cs_log_level);
    case VALUE_CHOICE:
        return sizeof(uint8_t);
    case VALUE_WINDOW:
        return CS_SM_CONFIG_WINDOW_MAX;
    case VALUE_LIMIT:
        return sizeof(int);
    case VALUE_VLARB:
        return sizeof(struct cs_qos_vlarb_list);
    case VALUE_SL2VL:
        return sizeof(struct cs_qos_sl2vl_list);
    case VALUE_LMC:
        break;
    }
    return 0; /* lmc: no field, never differs */
}

static bool value_equal(const struct key *k, const struct cs_sm_config *a,
                        const struct cs_sm_config *b)
{
    const char *fa = (const char *)a + k->offset, *fb = (const char *)b + k->offset;
    if (k->kind == VALUE_PATH || k->kind == VALUE_ENGINE || k->kind == VALUE_WINDOW)
        return strncmp(fa, fb, value_size(k)) == 0; /* what follows the NUL does not count */
    return memcmp(fa, fb, value_size(k)) == 0;
}

unsigned cs_sm_config_diff(const struct cs_sm_config *was, const struct cs_sm_config *now,
                           struct cs_sm_config_change changes[CS_SM_CONFIG_KEYS_MAX])
{
    unsigned count = 0;
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (value_equal(&keys[i], was, now))
            continue;
        changes[count++] = (struct cs_sm_config_change){keys[i].name, keys[i].how};
    }
    return count;
}

bool cs_sm_config_changed(const struct cs_sm_config_change *changes, unsigned count,
                          const char *key)
{
    for (unsigned i = 0; i < count; i++)
        if (strcmp(changes[i].key, key) == 0)
            return true;
    return false;
}

bool cs_sm_config_changes_take(const struct cs_sm_config_change *changes, unsigned count,
                               enum cs_sm_config_effect how)
{
    for (unsigned i = 0; i < count; i++)
        if (changes[i].how == how)
            return true;
    return false;
}

int cs_sm_config_copy_key(struct cs_sm_config *to, const struct cs_sm_config *from, const char *key)
{
    const struct key *k = find_key(key, strlen(key));
    if (!k)
        return -1;
    memcpy((char *)to + k->offset, (const char *)from + k->offset, value_size(k));
    return 0;
}

int cs_sm_config_format_value(const struct cs_sm_config *c, const char *key, char *buf, size_t size)
{
    const struct key *k = find_key(key, strlen(key));
    if (!k || size == 0)
        return -1;
    const char *field = (const char *)c + k->offset;
    uint64_t u64;
    unsigned u;
    bool b;
    enum cs_log_level level;
    switch (k->kind) {
    case VALUE_GUID:
        memcpy(&u64, field, sizeof u64);
        return snprintf(buf, size, "0x%016" PRIx64, u64);
    case VALUE_UINT:
        memcpy(&u, field, sizeof u);
        return snprintf(buf, size, "%u", u);
    case VALUE_BOOL:
        memcpy(&b, field, sizeof b);
        return snprintf(buf, size, "%s", b ? "TRUE" : "FALSE");
    case VALUE_PATH:
    case VALUE_ENGINE:
    case VALUE_WINDOW:
        return snprintf(buf, size, "%s", *field ? field : NULL_STRING);
    case VALUE_LEVEL:
        memcpy(&level, field, sizeof level);
        return snprintf(buf, size, "%s", cs_log_level_name(level));
    case VALUE_CHOICE:
        return snprintf(buf, size, "%s", choice_name(k, field));
    case VALUE_LMC:
        return snprintf(buf, size, "0");
    case VALUE_LIMIT: {
        int limit;
        memcpy(&limit, field, sizeof limit);
        return snprintf(buf, size, "%d", limit);
    }
    case VALUE_VLARB: {
        struct cs_qos_vlarb_list l;
        memcpy(&l, field, sizeof l);
        return cs_qos_vlarb_format(&l, buf, size);
    }
    case VALUE_SL2VL: {
        struct cs_qos_sl2vl_list l;
        memcpy(&l, field, sizeof l);
        return cs_qos_sl2vl_format(&l, buf, size);
    }
    }
    return -1;
}
