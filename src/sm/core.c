/* The SM core (include/cloudsm/sm_core.h): sweep, route, program, serve. */
#include "cloudsm/sm_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloudsm/analyze.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/clock.h"
#include "cloudsm/informs.h"
#include "cloudsm/key_index.h"
#include "cloudsm/lft_diff.h"
#include "cloudsm/services.h"
#include "cloudsm/sm_control.h"
#include "cloudsm/subtree.h"
#include "core/grow.h"
#include "core/hash.h"
#include "sm/core_internal.h"
#include "sm/phase.h"

/* ---- Phases: each logged with its time and SMPs ---------------------------------------------- */

struct phase {
    const char *name;
    double start_ms;
    const struct cs_smp_pipe *pipe; /* NULL: a phase that sends nothing (routing) */
    struct cs_smp_pipe_stats at_start;
};

static void phase_begin(struct phase *ph, const char *name, const struct cs_smp_pipe *pipe)
{
    ph->name = name;
    ph->pipe = pipe;
    if (pipe)
        ph->at_start = cs_smp_pipe_stats(pipe);
    ph->start_ms = cs_clock_ms();
}

static struct cs_smp_pipe_stats phase_smps(const struct phase *ph)
{
    struct cs_smp_pipe_stats d = {0};
    if (!ph->pipe)
        return d;
    struct cs_smp_pipe_stats now = cs_smp_pipe_stats(ph->pipe);
    return cs_smp_pipe_stats_since(&now, &ph->at_start);
}

/* Logs the phase's line at INFO; returns its milliseconds. */
static double phase_end(const struct cs_log *log, const struct phase *ph)
{
    double ms = cs_clock_ms() - ph->start_ms;
    if (!ph->pipe) {
        cs_logf(log, CS_LOG_INFO, "%s took %.1f ms", ph->name, ms);
        return ms;
    }
    struct cs_smp_pipe_stats d = phase_smps(ph);
    char trouble[160] = "";
    /* Only when something went wrong: the normal line stays short. */
    if (d.retries || d.timeouts || d.bad_status)
        snprintf(trouble, sizeof trouble,
                 "; %" PRIu64 " resent, %" PRIu64 " timed out, %" PRIu64 " error replies",
                 d.retries, d.timeouts, d.bad_status);
    cs_logf(log, CS_LOG_INFO,
            "%s took %.1f ms, %" PRIu64 " SMPs (%" PRIu64 " gets, %" PRIu64 " sets)%s", ph->name,
            ms, d.sent, d.gets, d.sets, trouble);
    return ms;
}

/* ---- Files and the state directory --------------------------------------------------------- */

int cs_sm_core_load_files(const struct cs_sm_config *cfg, struct cs_sm_files *files,
                          const struct cs_log *log, struct cs_error *err)
{
    if (cs_sm_files_load(files, cfg, err) < 0)
        return -1;
    const char *path = cfg->partition_config_file;
    for (uint32_t i = 0; i < files->partitions.num_warnings; i++)
        cs_logf(log, CS_LOG_WARN, "%s", files->partitions.warnings[i].msg);
    if (files->partitions_missing)
        cs_logf(log, CS_LOG_INFO, "partitions: no %s: Default only", path);
    else if (path[0])
        cs_logf(log, CS_LOG_INFO, "partitions: %u from %s", files->partitions.count, path);
    if (files->qos_policy_missing)
        cs_logf(log, CS_LOG_WARN, "qos: no %s: PathRecords without a QoS policy",
                cfg->qos_policy_file);
    else if (files->qos_policy)
        cs_logf(log, CS_LOG_INFO, "qos: policy of %u rules (default SL %u) from %s",
                files->qos_policy->num_rules, files->qos_policy->default_sl, cfg->qos_policy_file);
    return 0;
}

int cs_sm_core_check_state_dir(const struct cs_sm_config *cfg, bool once, struct cs_error *err)
{
    const char *dir = cfg->state_dir;
    struct stat st;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return cs_fail(err, "state_dir: cannot create %s: %s", dir, strerror(errno));
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return cs_fail(err, "state_dir: %s is not a directory", dir);
    if (access(dir, W_OK | X_OK) < 0)
        return cs_fail(err, "state_dir: cannot write in %s: %s", dir, strerror(errno));
    char path[CS_SM_CONTROL_PATH_MAX];
    return once ? 0 : cs_sm_control_path(dir, path, sizeof(path), err);
}

/* The state directory's guid2lid: missing is a first start; unreadable or corrupt is logged and
 * set aside (renamed *.bad) so that the SM still comes up and the evidence is kept. */
static int load_guid2lid(struct cs_sm_core *c, struct cs_error *err)
{
    const char *dir = c->cfg.state_dir;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return cs_fail(err, "cannot create state directory %s: %s", dir, strerror(errno));
    snprintf(c->guid2lid_path, sizeof(c->guid2lid_path), "%s/guid2lid", dir);
    if (c->cfg.reassign_lids) {
        cs_logf(&c->log, CS_LOG_INFO, "reassign_lids: ignoring %s, every LID is new",
                c->guid2lid_path);
        return 0;
    }
    struct stat st;
    if (stat(c->guid2lid_path, &st) < 0) {
        cs_logf(&c->log, CS_LOG_INFO, "no %s: every LID is new", c->guid2lid_path);
        return 0;
    }
    struct cs_error why;
    if (cs_guid2lid_read(&c->guid2lid, c->guid2lid_path, &why) == 0) {
        cs_logf(&c->log, CS_LOG_INFO, "%s: %u LIDs to keep", c->guid2lid_path, c->guid2lid.count);
        return 0;
    }
    char bad[sizeof(c->guid2lid_path) + 4];
    snprintf(bad, sizeof(bad), "%s.bad", c->guid2lid_path);
    rename(c->guid2lid_path, bad);
    cs_guid2lid_free(&c->guid2lid);
    cs_logf(&c->log, CS_LOG_WARN, "%s (moved to %s; assigning LIDs afresh)", why.msg, bad);
    return 0;
}

/* ---- Life cycle ------------------------------------------------------------------------------ */

void cs_sm_core_init(struct cs_sm_core *c, const struct cs_sm_config *cfg,
                     struct cs_sm_files *files, struct cs_smp_pipe *pipe, uint64_t port_guid,
                     const struct cs_log *log)
{
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    c->files = *files;
    memset(files, 0, sizeof *files);
    c->log = *log;
    c->pipe = pipe;
    c->started_ms = cs_clock_ms();
    snprintf(c->engine, sizeof(c->engine), "%s", cfg->routing_engine);
    c->route_state = cs_route_state_new(); /* NULL (no memory): engines build afresh */
    if (cfg->state_dir[0])
        snprintf(c->metabase_path, sizeof c->metabase_path, "%s/metabase.sqlite", cfg->state_dir);
    snprintf(c->guid2lid_path, sizeof(c->guid2lid_path), "%s/guid2lid", cfg->state_dir);
    cs_sm_config_vm_state_path(cfg, c->vm_state_path, sizeof c->vm_state_path);
    cs_sm_sweep_init(&c->sweep);
    cs_perfmgr_init(&c->perf, CS_SM_CORE_MONITOR_KEEP_S);
    c->wall_clock = cs_perfmgr_wall_clock;
    c->adapt_mode_override = -1;
    c->rereg_due = true;
    c->me = (struct cs_sm_identity){.guid = port_guid,
                                    .sm_key = cfg->sm_key,
                                    .m_key = cfg->m_key,
                                    .priority = (uint8_t)cfg->sm_priority,
                                    .state = CS_SMP_SM_STATE_DISCOVERING,
                                    .pipe = pipe};
    cs_smp_pipe_set_unsolicited(pipe, cs_sm_core_on_request, c);
}

void cs_sm_core_free(struct cs_sm_core *c)
{
    cs_sm_core_vms_free(c);
    cs_lfts_free(&c->lfts);
    cs_lfts_free(&c->held);
    cs_route_result_free(&c->routed);
    free(c->qos_sl);
    cs_sa_db_free(c->sa);
    free(c->sa_reply);
    cs_alias_guids_destroy(c->aliases);
    cs_services_destroy(c->services);
    cs_informs_destroy(c->informs);
    free(c->arrived);
    free(c->traps);
    free(c->report_slots);
    cs_mcast_groups_destroy(c->mcast);
    cs_mfts_free(&c->mfts);
    cs_mfts_free(&c->mfts_want);
    cs_mcast_router_destroy(c->mcast_router);
    cs_partition_set_free(&c->pset);
    cs_sm_pkey_tables_free(&c->pkeys_held);
    cs_sm_sl2vl_tables_free(&c->sl2vl_held);
    cs_sm_files_free(&c->files);
    cs_guid2lid_free(&c->guid2lid);
    cs_sm_sweep_free(&c->sweep);
    cs_route_state_free(c->route_state);
    cs_guid_list_free(&c->order_override);
    cs_node_weights_free(&c->weights_override);
    cs_lfts_free(&c->routed_from);
    cs_perfmgr_free(&c->perf);
    cs_monitor_close(c->monitor);
    cs_adapt_state_free(&c->adapt);
    memset(c, 0, sizeof *c);
}

/* ---- The steps of a sweep -------------------------------------------------------------------- */

struct cs_route_options cs_sm_core_route_options(const struct cs_sm_core *c)
{
    return (struct cs_route_options){
        .root_guids = c->cfg.root_guid_file[0] ? &c->files.roots : NULL,
        .cn_guids = c->cfg.cn_guid_file[0] ? &c->files.cns : NULL,
        .connect_roots = c->cfg.connect_roots,
    };
}

/* What a re-routing changed, from `before` to c->lfts, traced over the current fabric: LFT
 * entries, and the CA-to-LID routes the traffic sees change (cs_path_diff). */
static int count_changes(struct cs_sm_core *c, const struct cs_lfts *before,
                         struct cs_sm_reconfig *rc, struct cs_error *err)
{
    struct cs_tracer old_routes, new_routes;
    if (cs_tracer_init(&old_routes, &c->sweep.fabric, before, err) < 0)
        return -1;
    if (cs_tracer_init(&new_routes, &c->sweep.fabric, &c->lfts, err) < 0) {
        cs_tracer_free(&old_routes);
        return -1;
    }
    struct cs_path_diff d;
    int ok = cs_path_diff(&old_routes, &new_routes, &d, err);
    if (ok == 0) {
        rc->entries_changed = d.entries_changed;
        rc->paths_changed = d.paths_changed;
    }
    cs_tracer_free(&new_routes);
    cs_tracer_free(&old_routes);
    return ok;
}

struct cs_route_inputs cs_sm_core_route_inputs(const struct cs_sm_core *c, const uint32_t *scope,
                                               uint32_t num_scope)
{
    /* The partitions the P_Key tables come from are the ones partition-aware engines route. */
    struct cs_route_inputs in = {.log = &c->log,
                                 .partitions = &c->files.partitions,
                                 .scope_switches = scope,
                                 .num_scope_switches = num_scope,
                                 .state = c->route_state,
                                 .metabase_file = c->metabase_path[0] ? c->metabase_path : NULL};
    cs_route_loaded_inputs(&c->files.route, &in);
    if (c->has_order_override)
        in.node_order = &c->order_override;
    if (c->has_weights_override)
        in.weights = &c->weights_override;
    if (c->lfts.num_switches > 0)
        in.previous = &c->lfts;
    return in;
}

/* Route into c->lfts with engine, from the tables routed before (slimupdate keeps their routes;
 * a sub-tree re-routing keeps everything outside scope), and note what changed in
 * c->last_reconfig. scope: fabric node indices of the switches a sub-tree re-routing may change
 * (NULL: all). */
static int route(struct cs_sm_core *c, const char *engine, const uint32_t *scope,
                 uint32_t num_scope, struct cs_error *err)
{
    struct cs_route_options ropt = cs_sm_core_route_options(c);
    struct cs_route_inputs in = cs_sm_core_route_inputs(c, scope, num_scope);
    struct cs_lfts before = c->lfts; /* the SM's copy of what it programmed: LFT_old */
    memset(&c->lfts, 0, sizeof c->lfts);
    in.previous = before.num_switches > 0 ? &before : NULL; /* the same tables, moved */
    struct cs_route_stats st;
    struct cs_route_result res;
    if (cs_route_with(engine, &c->sweep.fabric, &ropt, &in, &c->lfts, &st, &res, err) < 0) {
        c->lfts = before;
        return -1;
    }
    struct cs_sm_reconfig *rc = &c->last_reconfig;
    *rc = (struct cs_sm_reconfig){.first = before.num_switches == 0,
                                  .build_ms = res.build_ms,
                                  .build_kept = res.build_kept,
                                  .route_ms = st.route_ms,
                                  .subtree_switches = scope ? num_scope : 0};
    snprintf(rc->engine, sizeof rc->engine, "%s", st.engine);
    /* Compared once the new tables are sent (note_distribution): the count takes a tracer over
     * both, which should not delay the programming. */
    cs_lfts_free(&c->routed_from);
    c->routed_from = before;
    c->route = st;
    cs_route_result_free(&c->routed);
    c->routed = res;
    if (st.fell_back)
        cs_logf(&c->log, CS_LOG_WARN, "route: %s is not suitable (%s); routed with %s",
                st.requested, st.fallback_reason, st.engine);
    cs_logf(&c->log, CS_LOG_INFO,
            "route: %s tables for %u switches, LIDs 1..%u (engine %.1f ms: build %.1f ms%s, "
            "route %.1f ms)",
            st.engine, st.switches, st.max_lid, st.route_ms, res.build_ms,
            res.build_kept ? " (kept)" : "", st.route_ms - res.build_ms);
    return 0;
}

/* P_Key tables: resolve the partitions against this sweep, read what the ports hold, program
 * the blocks that differ (src/sm/pkeys.c). Returns the failures, or -1. */
static int program_pkeys(struct cs_sm_core *c, struct cs_error *err)
{
    cs_partition_set_free(&c->pset);
    struct cs_partition_resolve_options ropt = {
        .sm_port_guid = c->sweep.fabric.ports[c->sweep.sm_port].guid,
        .allow_both_pkeys = c->cfg.allow_both_pkeys,
    };
    if (cs_partitions_resolve(&c->files.partitions, &c->sweep.fabric, &ropt, &c->pset, err) < 0)
        return -1;
    /* held outlives the call: after programming it is what the ports hold, which the SA's
     * P_KeyTableRecords show (cs_sm_core_rebuild_sa follows every call). */
    struct cs_sm_pkey_tables *held = &c->pkeys_held, want;
    cs_sm_pkey_tables_init(&want);
    struct cs_sm_pkey_counts pc = {0};
    struct cs_sm_pkey_options popt = {
        .config = &c->files.partitions,
        .allow_both_pkeys = c->cfg.allow_both_pkeys,
        .part_enforce = c->cfg.part_enforce,
    };
    int rc = cs_sm_read_pkeys(c->pipe, &c->sweep, held, &c->log, &pc, err);
    if (rc >= 0)
        rc = cs_sm_pkey_tables(&c->sweep, &c->pset, &popt, held, &want, &c->log, err);
    if (rc >= 0)
        rc = cs_sm_program_pkeys(c->pipe, &c->sweep, &want, held, &c->log, &pc, err);
    cs_sm_pkey_tables_free(&want);
    if (rc < 0)
        return -1;
    cs_logf(&c->log, CS_LOG_INFO,
            "pkeys: %u partitions, %llu blocks read back, %llu blocks sent, %llu enforcement sets",
            c->pset.count, (unsigned long long)pc.blocks_read, (unsigned long long)pc.blocks_sent,
            (unsigned long long)pc.port_info_sets);
    return (int)pc.failures;
}

/* The SLs the engine gave the partitions are 0..sls-1: 0 when it gave none (every SL 0). */
static unsigned sls_in_use(const struct cs_route_result *res)
{
    unsigned highest = 0;
    for (uint32_t i = 0; res->partition_sl != NULL && i < res->num_partitions; i++)
        if (res->partition_sl[i] > highest)
            highest = res->partition_sl[i];
    return highest ? highest + 1 : 0;
}

/* SL2VL tables (src/sm/sl2vl.c), once the engine puts partitions on SLs other than 0: read back,
 * and the tables that differ from SL s -> VL s written. With every partition on SL 0 nothing is
 * sent: the tables are left as the ports hold them. Returns the failures, or -1. */
static int program_sl2vl(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->cfg.qos)
        return cs_sm_core_program_qos(c, err);
    unsigned sls = sls_in_use(&c->routed);
    cs_sm_sl2vl_tables_free(&c->sl2vl_held); /* of the last sweep: port slots may differ now */
    if (sls == 0) {
        cs_logf(&c->log, CS_LOG_INFO,
                "sl2vl: every partition on SL 0: tables left as the ports hold them");
        return 0;
    }
    const struct cs_partitions *parts = &c->files.partitions;
    for (uint32_t i = 0; i < c->routed.num_partitions && i < parts->count; i++)
        if (c->routed.partition_sl[i] != 0)
            cs_logf(&c->log, CS_LOG_INFO, "sl2vl: partition %s (0x%04x) on SL %u",
                    parts->partitions[i].name, parts->partitions[i].pkey,
                    c->routed.partition_sl[i]);
    struct cs_sm_sl2vl_counts sc;
    if (cs_sm_program_sl2vl(c->pipe, &c->sweep, sls, &c->log, &sc, &c->sl2vl_held, err) < 0)
        return -1;
    cs_logf(&c->log, CS_LOG_INFO,
            "sl2vl: SLs 0..%u on VLs of their own, %llu tables read back, %llu tables sent, %u "
            "ports short of VLs",
            sls - 1, (unsigned long long)sc.tables_read, (unsigned long long)sc.tables_sent,
            sc.short_ports);
    return (int)sc.failures;
}

#define SA_REPLY_MIN ((size_t)1 << 20)

/* A port GUID the sweep has as an end port (the multicast groups keep members it has). */
static bool sweep_has_port(void *arg, uint64_t guid)
{
    return cs_sm_sweep_end_port_by_guid(arg, guid) != CS_NONE;
}

/* The multicast groups follow the sweep and the partitions, as OpenSM's do on every sweep:
 * members whose port is gone leave, the partitions' IPoIB and mgid= groups exist, new groups get
 * MLIDs every switch's MulticastFDBCap holds. */
static int sync_mcast(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->mcast == NULL && (c->mcast = cs_mcast_groups_create(err)) == NULL)
        return -1;
    const struct cs_fabric *f = &c->sweep.fabric;
    uint32_t cap = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        uint16_t mc = c->sweep.switch_info[n].multicast_fdb_cap;
        if (cs_node_is_switch(&f->nodes[n]) && mc > 0 && (cap == 0 || mc < cap))
            cap = mc;
    }
    cs_mcast_groups_set_mlid_limit(
        c->mcast, (uint16_t)(cap ? CS_MCAST_MLID_FIRST + cap - 1 : CS_MCAST_MLID_LAST));
    uint32_t dropped = cs_mcast_groups_drop_ports(c->mcast, sweep_has_port, &c->sweep);
    if (dropped)
        cs_logf(&c->log, CS_LOG_INFO, "multicast: %u memberships of ports gone dropped", dropped);
    return cs_mcast_groups_sync_partitions(c->mcast, &c->files.partitions, &c->pset, c->cfg.qos,
                                           (uint8_t)c->cfg.subnet_timeout, &c->log, err) < 0
               ? -1
               : 0;
}

/* Write the MFT blocks the groups' trees need: after a sweep every group's (all), else the trees
 * of the groups whose member ports changed (joins and leaves since the last turn). */
int cs_sm_core_program_mcast(struct cs_sm_core *c, bool all, struct cs_error *err)
{
    if (c->mcast == NULL || c->sweep.fabric.num_nodes == 0 || (!all && c->mcast_router == NULL))
        return 0;
    uint16_t *dirty = NULL;
    uint32_t num_dirty = 0;
    if (all) {
        cs_mcast_router_destroy(c->mcast_router);
        bool *capable = cs_sm_multicast_capable(&c->sweep, err);
        c->mcast_router = capable ? cs_mcast_router_create(&c->sweep.fabric, capable, err) : NULL;
        free(capable);
        if (c->mcast_router == NULL)
            return -1;
        struct cs_mfts fresh;
        if (cs_mfts_init(&fresh, &c->sweep.fabric, err) < 0)
            return -1;
        cs_mfts_carry_usage(&fresh, &c->mfts_want);
        cs_mfts_free(&c->mfts_want);
        c->mfts_want = fresh;
        cs_mcast_groups_clear_dirty(c->mcast);
    } else {
        if ((dirty = malloc(CS_MCAST_MLIDS * sizeof *dirty)) == NULL)
            return cs_fail(err, "out of memory for the multicast groups");
        num_dirty = cs_mcast_groups_take_dirty(c->mcast, dirty, CS_MCAST_MLIDS);
    }
    struct cs_sm_mft_counts mc;
    int rc = cs_sm_program_mfts(c->pipe, &c->sweep, c->mcast, c->mcast_router, all ? NULL : dirty,
                                num_dirty, &c->mfts_want, &c->mfts, &c->log, &mc, err);
    free(dirty);
    if (rc < 0)
        return -1;
    cs_logf(&c->log, CS_LOG_INFO,
            "mfts: %u groups, %u trees built, %llu blocks read back, %llu blocks sent%s",
            cs_mcast_groups_count(c->mcast), mc.trees, (unsigned long long)mc.blocks_read,
            (unsigned long long)mc.blocks_sent, mc.failures ? " (failures: see above)" : "");
    return (int)mc.failures;
}

/* The SA answers from an index of the current sweep, tables and partitions: rebuilt after
 * every sweep and re-route (the old one is dropped first: it points into what changed). The
 * alias GUID store outlives it: ports the sweep no longer has lose their aliases first. */
int cs_sm_core_rebuild_sa(struct cs_sm_core *c, struct cs_error *err)
{
    cs_sa_db_free(c->sa);
    c->sa = NULL;
    if (c->aliases == NULL && (c->aliases = cs_alias_guids_create(err)) == NULL)
        return -1;
    if (c->services == NULL && (c->services = cs_services_create(err)) == NULL)
        return -1;
    if (c->informs == NULL && (c->informs = cs_informs_create(err)) == NULL)
        return -1;
    if (sync_mcast(c, err) < 0)
        return -1;
    cs_alias_guids_set_assigned_byte(c->aliases, (uint8_t)c->cfg.sm_assigned_guid);
    cs_alias_guids_sync(c->aliases, &c->sweep, &c->log);
    if (cs_sm_core_vms_register_vguids(c, err) < 0)
        return -1;
    const uint8_t *partition_sl = c->routed.partition_sl;
    uint32_t num_partition_sl = c->routed.num_partitions;
    if (c->cfg.qos && cs_sm_core_qos_partition_sl(c, &partition_sl, &num_partition_sl, err) < 0)
        return -1;
    /* OpenSM reads the policy file at every heavy sweep with QoS and runs without it when its
     * ipoib rules name partitions the fabric does not give two full members. */
    const struct cs_qos_policy *policy = c->cfg.qos ? c->files.qos_policy : NULL;
    struct cs_error why;
    if (policy &&
        cs_qos_policy_check_partitions(policy, c->cfg.qos_policy_file, &c->pset, &why) < 0) {
        cs_logf(&c->log, CS_LOG_ERROR, "qos: %s: PathRecords without the QoS policy", why.msg);
        policy = NULL;
    }
    struct cs_sa_options opt = {
        .subnet_prefix = c->cfg.subnet_prefix,
        .sm_key = c->cfg.sm_key,
        .path_caching = c->cfg.sa_path_caching,
        .subnet_timeout = (uint8_t)c->cfg.subnet_timeout,
        .node_info = c->sweep.node_info,
        .partition_sl = partition_sl,
        .num_partition_sl = num_partition_sl,
        .qos_policy = policy,
        .aliases = c->aliases,
        .pkey_tables = &c->pkeys_held,
        .sl2vl_tables = &c->sl2vl_held,
        .services = c->services,
        .mcast = c->mcast,
        .mfts = &c->mfts_want,
        .informs = c->informs,
        .sm = &c->me,
    };
    if (cs_sa_db_build(&c->sweep, &c->lfts, &c->pset, &opt, &c->sa, err) < 0)
        return -1;
    /* The bound counts the tables a sweep fixes; multicast tables grow with joins between
     * sweeps: room for 18,000 MCMemberRecords at least (a reply beyond the room is refused with
     * NO_RESOURCES, never cut). Untouched pages cost no memory. */
    size_t need = cs_sa_response_bound(c->sa);
    if (need < SA_REPLY_MIN)
        need = SA_REPLY_MIN;
    if (need > c->sa_reply_cap) {
        uint8_t *grown = realloc(c->sa_reply, need);
        if (grown == NULL)
            return cs_fail(err, "out of memory for SA replies (%zu bytes)", need);
        c->sa_reply = grown;
        c->sa_reply_cap = need;
    }
    return 0;
}

const uint8_t *cs_sm_core_answer_sa(struct cs_sm_core *c, const struct cs_sa_address *from,
                                    const uint8_t *mad, size_t len, size_t *reply_len)
{
    if (c->sa == NULL ||
        cs_sa_answer_from(c->sa, from, mad, len, c->sa_reply, c->sa_reply_cap, reply_len) != 1)
        return NULL;
    return c->sa_reply;
}

/* ---- The tables the SM left (a clean stop, then a start) ---- */

#define LEFT_TABLES_NAME "lfts.digest"

static void left_tables_path(const struct cs_sm_core *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", c->cfg.state_dir, LEFT_TABLES_NAME);
}

/* What the tables were routed from: the engine and the fingerprint of every file the
 * configuration names (0: not read), the VM state as the SM itself last wrote it. */
static uint64_t inputs_digest(const struct cs_sm_core *c)
{
    uint64_t h = cs_fnv1a64(CS_FNV1A64_START, c->engine, strlen(c->engine));
    for (int f = 0; f < CS_SM_FILE_COUNT; f++) {
        uint64_t fp = c->files.read[f] ? c->files.fingerprint[f] : 0;
        h = cs_fnv1a64(h, &fp, sizeof fp);
    }
    return h;
}

struct left_tables {
    uint64_t digest; /* cs_lfts_digest of what the switches hold */
    uint64_t inputs; /* inputs_digest */
};

static int write_left_tables(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct left_tables *l = ctx;
    fprintf(out,
            "# cloudsmd stopped with the switches holding these tables, routed from these "
            "inputs\n0x%016" PRIx64 " 0x%016" PRIx64 "\n",
            l->digest, l->inputs);
    return ferror(out) ? cs_fail(err, "writing the tables' digest failed") : 0;
}

int cs_sm_core_save_tables(struct cs_sm_core *c, struct cs_error *err)
{
    char path[CS_SM_CONFIG_PATH_MAX + 32];
    left_tables_path(c, path, sizeof path);
    unlink(path);
    bool known = c->held.num_switches > 0 && c->last_sweep_failures == 0;
    for (uint32_t sw = 0; known && sw < c->held.num_switches; sw++)
        for (uint32_t b = 0; known && b < cs_lfts_blocks(&c->held); b++)
            known = !cs_lfts_block_dirty(&c->held, sw, b);
    if (!known)
        return 0; /* what the switches hold is not known for sure: the next start routes afresh */
    struct left_tables l = {cs_lfts_digest(&c->held), inputs_digest(c)};
    return cs_atomic_write(path, write_left_tables, &l, err);
}

/* At the first sweep: the digest a clean stop left, read and removed (a crash from here on must
 * not find it), into c->left_tables. */
static void take_left_tables(struct cs_sm_core *c)
{
    char path[CS_SM_CONFIG_PATH_MAX + 32];
    left_tables_path(c, path, sizeof path);
    FILE *in = fopen(path, "r");
    if (!in)
        return;
    char line[256];
    struct left_tables l;
    while (fgets(line, sizeof line, in))
        if (line[0] != '#' && sscanf(line, "%" SCNx64 " %" SCNx64, &l.digest, &l.inputs) == 2 &&
            l.inputs == inputs_digest(c)) {
            c->left = l.digest;
            c->left_tables = true; /* else routed from other inputs: the engine decides */
        }
    fclose(in);
    unlink(path);
}

/* The switches hold exactly the tables a clean stop left (read back, same digest): every route of
 * them that still leads where it should is kept, so that a restart on an unchanged fabric sends
 * nothing, whatever the engine would route today. The read-back is counted into reads. */
static int adopt_left_tables(struct cs_sm_core *c, struct cs_sm_lft_counts *reads,
                             struct cs_error *err)
{
    c->left_tables = false;
    if (cs_sm_core_read_held(c, reads, err) < 0)
        return -1;
    if (c->held.max_lid != c->lfts.max_lid || cs_lfts_digest(&c->held) != c->left) {
        cs_logf(&c->log, CS_LOG_INFO,
                "lfts: the switches do not hold the tables cloudsmd left: routing afresh");
        return 0;
    }
    uint16_t *lids = cs_calloc_array((size_t)c->lfts.max_lid + 1, sizeof *lids, err);
    if (!lids)
        return -1;
    uint32_t n = 0;
    for (uint32_t lid = 1; lid <= c->lfts.max_lid; lid++) {
        bool differs = false;
        for (uint32_t sw = 0; sw < c->lfts.num_switches && !differs; sw++)
            differs = cs_lfts_get(&c->lfts, sw, lid) != cs_lfts_get(&c->held, sw, lid);
        if (differs)
            lids[n++] = (uint16_t)lid;
    }
    bool *kept_lid = cs_calloc_array(n + 1u, sizeof *kept_lid, err);
    int kept = kept_lid ? cs_sm_core_keep_held_routes(c, lids, n, kept_lid, err) : -1;
    for (uint32_t i = 0; kept >= 0 && i < n; i++)
        if (!kept_lid[i])
            cs_logf(&c->log, CS_LOG_DEBUG, "lfts: LID %u routed afresh", lids[i]);
    free(kept_lid);
    free(lids);
    if (kept < 0)
        return -1;
    cs_logf(&c->log, CS_LOG_INFO,
            "lfts: the switches hold the tables cloudsmd left: %d routes kept as they are, %u "
            "routed afresh (they no longer lead where they should)",
            kept, n - (uint32_t)kept);
    return 0;
}

/* What the switches hold, carried over to the tables just routed (by switch GUID; a new switch's
 * blocks are unknown). */
static int carry_held(struct cs_sm_core *c, struct cs_error *err)
{
    struct cs_lfts held;
    if (cs_sm_carry_held(&c->held, &c->lfts, &held, err) < 0)
        return -1;
    cs_lfts_free(&c->held);
    c->held = held;
    return 0;
}

/* The tables just routed, shaped for the VMs and programmed: only the blocks that differ from
 * what the switches hold (unknown blocks are read back where the switch has valid entries).
 * keep_vm_routes: a sweep keeps the VF routes the switches hold that still lead to their VF; a
 * re-route asked for does not. Returns the failures, or -1. */
static int program_lfts(struct cs_sm_core *c, bool keep_vm_routes, struct cs_sm_lft_counts *lc,
                        struct cs_error *err)
{
    if (cs_sm_core_vms_shape_tables(c, err) < 0 || carry_held(c, err) < 0)
        return -1;
    struct cs_sm_lft_counts reads = {0}; /* blocks read back before programming */
    if ((c->left_tables && adopt_left_tables(c, &reads, err) < 0) ||
        (keep_vm_routes && cs_sm_core_vms_keep_routes(c, &reads, err) < 0) ||
        cs_sm_program_lfts(c->pipe, &c->sweep, &c->lfts, &c->held, &c->log, lc, err) < 0 ||
        cs_sm_core_vms_tables_changed(c, err) < 0)
        return -1;
    lc->blocks_read += reads.blocks_read;
    lc->failures += reads.failures;
    return 0;
}

/* Whether to throw fresh away and keep the last sweep, its tables, guid2lid and SA view: it saw
 * less than the fabric because of the SM's own link (cs_sm_sweep_lost_fabric). Also keeps track
 * of the SM port being down, which cs_sm_core_poll polls until it comes back. */
static bool keep_last_view(struct cs_sm_core *c, struct cs_sm_sweep *fresh)
{
    bool lost = cs_sm_sweep_lost_fabric(fresh, &c->sweep);
    if (!lost && !fresh->sm_port_down) {
        if (c->sm_port_down_ms != 0)
            cs_logf(&c->log, CS_LOG_INFO, "SM port back after %.1f s",
                    (cs_clock_ms() - c->sm_port_down_ms) / 1000.0);
        c->sm_port_down_ms = 0;
        return false;
    }
    if (c->sm_port_down_ms == 0)
        c->sm_port_down_ms = cs_clock_ms();
    /* A port that is up with a silent neighbour is not "back" when polled: the periodic sweeps
     * (the switches of the kept view do not answer the light sweep) retry until it answers. */
    c->sm_port_state = fresh->sm_port_down ? CS_SMP_PORT_STATE_DOWN : CS_SMP_PORT_STATE_INIT;
    if (!lost)
        return false; /* nothing better to keep: the first sweep */
    cs_logf(&c->log, CS_LOG_WARN,
            "SM port down%s: keeping the last fabric view (%u nodes); polling the port",
            fresh->sm_port_down ? "" : " (its neighbour does not answer)",
            c->sweep.fabric.num_nodes);
    cs_sm_sweep_free(fresh);
    c->last_sweep_failures = 1;
    return true;
}

/* Discovery into c->sweep (unless keep_last_view keeps the old one: returns 1). */
static int discover(struct cs_sm_core *c, bool first, struct cs_error *err)
{
    struct phase ph;
    phase_begin(&ph, "discover", c->pipe);
    uint32_t nodes_before = c->sweep.fabric.num_nodes;
    struct cs_sm_sweep fresh;
    cs_sm_sweep_init(&fresh);
    if (cs_sm_discover(c->pipe, &c->log, &fresh, err) < 0)
        return -1;
    c->sweeps++;
    if (keep_last_view(c, &fresh))
        return 1;
    if (cs_sm_core_note_departures(c, &fresh, err) < 0) {
        cs_sm_sweep_free(&fresh);
        return -1;
    }
    /* The SA db points into the sweep and tables this sweep replaces: SA requests that arrive
     * from here on (the transport answers them between SMPs) go unanswered, and clients retry. */
    cs_sa_db_free(c->sa);
    c->sa = NULL;
    cs_sm_sweep_free(&c->sweep);
    c->sweep = fresh;
    const struct cs_fabric *f = &c->sweep.fabric;
    uint32_t switches = 0, links = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        switches += cs_node_is_switch(&f->nodes[n]);
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        links += f->ports[p].peer != CS_NONE && f->ports[p].peer > p;
    cs_logf(&c->log, c->sweep.problems ? CS_LOG_WARN : CS_LOG_INFO,
            "discover: %u nodes (%u switches, %u CAs), %u links, %u problem%s", f->num_nodes,
            switches, f->num_nodes - switches, links, c->sweep.problems,
            c->sweep.problems == 1 ? "" : "s");
    if (!first && f->num_nodes != nodes_before)
        cs_logf(&c->log, CS_LOG_INFO, "discover: %u nodes before, %u now", nodes_before,
                f->num_nodes);
    phase_end(&c->log, &ph);
    return 0;
}

/* LIDs: keep what guid2lid holds, give new ports new ones, write guid2lid, set PortInfo.
 * Returns the failures, or -1. */
static int assign_lids(struct cs_sm_core *c, bool first, bool reassign, struct cs_error *err)
{
    struct phase ph;
    phase_begin(&ph, "lids", c->pipe);
    if (first && load_guid2lid(c, err) < 0)
        return -1;
    /* The VMs' LIDs first (on their VFs, held while a hypervisor is away); with dynamic VM
     * LIDs a VF without a VM gets none. reassign_lids numbers the first sweep afresh; later
     * sweeps keep what it gave. */
    struct cs_guid2lid pinned;
    if (cs_sm_core_vms_before_lids(c, &pinned, err) < 0)
        return -1;
    int changed = cs_sm_assign_lids(&c->sweep, &pinned, reassign, &c->log, err);
    struct cs_guid2lid kept;
    if (changed < 0 || cs_sm_guid2lid_update(&c->sweep, &pinned, &kept, err) < 0) {
        cs_guid2lid_free(&pinned);
        return -1;
    }
    cs_guid2lid_free(&pinned);
    cs_sm_core_vms_drop_vguids(c, &kept);
    cs_guid2lid_free(&c->guid2lid);
    c->guid2lid = kept;
    c->guid2lid_stale = false;
    if (cs_guid2lid_write_file(c->guid2lid_path, &c->guid2lid, err) < 0)
        return -1;
    const struct cs_fabric *f = &c->sweep.fabric;
    uint16_t sm_lid = f->ports[c->sweep.sm_port].lid;
    uint32_t present = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        present += f->ports[p].lid != 0;
    cs_logf(&c->log, CS_LOG_INFO,
            "lids: %u ports, %u held for absent ports, %d new or changed, SM LID %u", present,
            c->guid2lid.count - present, changed, sm_lid);
    struct cs_sm_port_settings settings = {
        .sm_lid = sm_lid,
        .subnet_prefix = c->cfg.subnet_prefix,
        .m_key = c->cfg.m_key,
        .m_key_lease_period = (uint16_t)c->cfg.m_key_lease_period,
        .client_reregister = c->rereg_due && !c->cfg.no_clients_rereg,
    };
    int failures = cs_sm_set_lids(c->pipe, &c->sweep, &settings, &c->log, err);
    if (failures < 0)
        return -1;
    c->rereg_due = false;
    phase_end(&c->log, &ph);
    return failures;
}

/* After the distribution phase of a routing: its blocks and time into c->last_reconfig, the
 * Eq. 1 prediction from the t_smp measured before, then t_smp from this one; what changed
 * (count_changes, now that the switches have the tables); logged (not for the subnet's first
 * routing: nothing to compare with). */
static int note_distribution(struct cs_sm_core *c, const struct cs_sm_lft_counts *lc, double ms,
                             struct cs_error *err)
{
    struct cs_sm_reconfig *rc = &c->last_reconfig;
    rc->lc = *lc;
    rc->distribute_ms = ms;
    rc->predicted_ms = (double)lc->blocks_sent * c->t_smp_ms;
    if (lc->blocks_sent > 0)
        c->t_smp_ms = ms / (double)lc->blocks_sent;
    int counted = rc->first ? 0 : count_changes(c, &c->routed_from, rc, err);
    cs_lfts_free(&c->routed_from);
    if (rc->first || counted < 0)
        return counted;
    char scope[48] = "the whole fabric";
    if (rc->subtree_switches)
        snprintf(scope, sizeof scope, "a sub-tree of %u switches", rc->subtree_switches);
    cs_sm_core_note(
        c, CS_LOG_INFO, CS_MONITOR_EVENT_RECONFIGURATION, rc->engine,
        "reconfiguration: %s re-routed %s: %llu paths changed, %llu LFT entries, %llu LFT "
        "blocks sent; build %.1f ms%s, route %.1f ms, distribute %.1f ms (Eq. 1 predicted "
        "%.1f ms)",
        rc->engine, scope, (unsigned long long)rc->paths_changed,
        (unsigned long long)rc->entries_changed, (unsigned long long)lc->blocks_sent, rc->build_ms,
        rc->build_kept ? " (kept)" : "", rc->route_ms - rc->build_ms, ms, rc->predicted_ms);
    return 0;
}

/* Another SM is master now (we yielded, or handed over): program nothing from here on, serve
 * no SA view (the master's SA answers), forget what we knew the switches hold (the master may
 * change it), and poll the master. */
static void enter_standby(struct cs_sm_core *c)
{
    char path[4 * CS_SMP_PATH_SIZE];
    cs_logf(&c->log, CS_LOG_INFO,
            "standby: polling the master 0x%016llx (DR path %s) every %u ms, taking over after "
            "%u unanswered polls",
            (unsigned long long)c->me.master_guid,
            cs_dr_path_format(&c->me.master_path, path, sizeof path),
            c->cfg.sminfo_polling_timeout_ms, c->cfg.polling_retry_number + 1);
    cs_sa_db_free(c->sa);
    c->sa = NULL;
    cs_lfts_free(&c->held);
    c->rereg_due = true; /* whoever is master now has its own view of the groups */
    c->poll_misses = 0;
    c->next_master_poll_ms = cs_clock_ms() + c->cfg.sminfo_polling_timeout_ms;
    c->trap_seen = false;
    cs_sm_core_drop_reports(c); /* the master reports events now */
}

int cs_sm_core_sweep(struct cs_sm_core *c, bool first, struct cs_error *err)
{
    struct phase all, ph;
    phase_begin(&all, first ? "subnet up" : "sweep", c->pipe);
    /* The traps that brought this sweep are reported before what it finds. */
    if (cs_sm_core_report_traps(c, err) < 0)
        return -1;
    int kept = discover(c, first, err);
    if (kept != 0)
        return kept < 0 ? -1 : 1;

    /* Before anything is programmed: claim master the first time, and on later sweeps look for
     * an SM that came up since (src/sm/master.c; its line names the winner and the rule). */
    int master = cs_sm_elect(c->pipe, &c->sweep, &c->me, &c->log,
                             first ? CS_SM_CORE_CLAIM_WAIT_MS : 0, NULL, err);
    if (master <= 0) {
        if (master == 0)
            enter_standby(c);
        return master; /* the caller sees c->me.state */
    }

    /* The first sweep we win brings the subnet up: guid2lid read, the tables a clean stop left
     * looked for. reassign_lids applies to the start of the process only, never to a takeover. */
    bool bringup = !c->was_master;
    int failures = assign_lids(c, bringup, first && c->cfg.reassign_lids, err);
    if (failures < 0)
        return -1;
    c->was_master = true;
    if (bringup)
        take_left_tables(c);

    phase_begin(&ph, "pkeys", c->pipe);
    int pk = program_pkeys(c, err);
    if (pk < 0)
        return -1;
    failures += pk;
    phase_end(&c->log, &ph);

    /* Once the subnet is up, a sweep re-routes because it found a change: the engine for that. */
    const char *engine = !bringup && c->cfg.reconfig_engine[0] ? c->cfg.reconfig_engine : c->engine;
    phase_begin(&ph, "route", NULL);
    if (route(c, engine, NULL, 0, err) < 0)
        return -1;
    phase_end(&c->log, &ph);

    phase_begin(&ph, "lfts", c->pipe);
    struct cs_sm_lft_counts lc;
    if (program_lfts(c, true, &lc, err) < 0)
        return -1;
    failures += (int)lc.failures;
    cs_logf(&c->log, CS_LOG_INFO,
            "lfts: %llu blocks read back, %llu blocks sent, %llu LinearFDBTop sets",
            (unsigned long long)lc.blocks_read, (unsigned long long)lc.blocks_sent,
            (unsigned long long)lc.switch_info_sets);
    if (note_distribution(c, &lc, phase_end(&c->log, &ph), err) < 0)
        return -1;

    phase_begin(&ph, "sl2vl", c->pipe);
    int sv = program_sl2vl(c, err);
    if (sv < 0)
        return -1;
    failures += sv;
    phase_end(&c->log, &ph);

    phase_begin(&ph, "activate", c->pipe);
    unsigned activated = 0;
    int act = cs_sm_activate(c->pipe, &c->sweep, &c->log, &activated, err);
    if (act < 0)
        return -1;
    failures += act;
    cs_logf(&c->log, CS_LOG_INFO, "activate: %u ports brought to ACTIVE", activated);
    phase_end(&c->log, &ph);

    if (cs_sm_core_rebuild_sa(c, err) < 0)
        return -1;
    /* Multicast after the SA: the partitions' groups exist once it is rebuilt. A new sweep is
     * a new fabric: what the switches hold is read back where it matters. */
    phase_begin(&ph, "mfts", c->pipe);
    cs_mfts_free(&c->mfts);
    if (cs_mfts_init(&c->mfts, &c->sweep.fabric, err) < 0)
        return -1;
    int mf = cs_sm_core_program_mcast(c, true, err);
    if (mf < 0)
        return -1;
    failures += mf;
    phase_end(&c->log, &ph);
    if (cs_sm_core_note_arrivals(c, err) < 0)
        return -1;
    struct cs_smp_pipe_stats total = phase_smps(&all);
    c->last_sweep_took_ms = phase_end(&c->log, &all);
    c->last_sweep_ms = cs_clock_ms();
    c->last_sweep_smps = total.sent;
    c->last_sweep_failures = failures;
    cs_sm_core_note(c, failures ? CS_LOG_WARN : CS_LOG_INFO, CS_MONITOR_EVENT_SWEEP, NULL,
                    "%s: %llu SMPs sent (%llu retries, %llu timeouts), %d failure%s",
                    first ? "subnet up" : "sweep done", (unsigned long long)total.sent,
                    (unsigned long long)total.retries, (unsigned long long)total.timeouts, failures,
                    failures == 1 ? "" : "s");
    return failures;
}

int cs_sm_core_reroute(struct cs_sm_core *c, const struct cs_sm_reroute_request *rq,
                       struct cs_sm_reconfig *done, struct cs_error *err)
{
    static const struct cs_sm_reroute_request none = {0};
    if (c->me.state != CS_SMP_SM_STATE_MASTER)
        return cs_fail(err, "not master (%s): another SM programs the fabric",
                       cs_sm_state_name(c->me.state));
    if (!rq)
        rq = &none;
    const char *engine = rq->engine ? rq->engine : c->engine;
    struct cs_guid_list order = {0};
    if (rq->order_file && cs_guid_list_read(&order, rq->order_file, err) < 0)
        return -1;
    struct cs_subtree subtree = {0};
    struct cs_route_options ropt = cs_sm_core_route_options(c);
    if (rq->num_subtree > 0 && cs_subtree_select(&c->sweep.fabric, &ropt, c->route_state,
                                                 rq->subtree, rq->num_subtree, &subtree, err) < 0) {
        cs_guid_list_free(&order);
        return -1;
    }
    struct cs_node_weights weights;
    cs_node_weights_init(&weights);
    if (rq->weights && cs_node_weights_copy(&weights, rq->weights, err) < 0) {
        cs_guid_list_free(&order);
        cs_subtree_free(&subtree);
        return -1;
    }
    /* The order and weights go with this routing; kept (with the engine) only if it succeeds. */
    struct cs_guid_list kept_order = c->order_override;
    bool had_order = c->has_order_override;
    if (rq->order_file) {
        c->order_override = order;
        c->has_order_override = true;
    }
    struct cs_node_weights kept_weights = c->weights_override;
    bool had_weights = c->has_weights_override;
    if (rq->weights) {
        c->weights_override = weights;
        c->has_weights_override = true;
    }
    cs_sa_db_free(c->sa); /* it points into the tables route() replaces */
    c->sa = NULL;
    struct cs_sm_lft_counts lc = {0};
    int rc = route(c, engine, subtree.switches, subtree.num_switches, err);
    double start = cs_clock_ms();
    if (rc == 0)
        rc = program_lfts(c, false, &lc, err);
    if (rc == 0)
        rc = note_distribution(c, &lc, cs_clock_ms() - start, err);
    if (rc == 0)
        rc = program_sl2vl(c, err) < 0 || cs_sm_core_vms_forget_live_routes(c, err) < 0 ||
                     cs_sm_core_rebuild_sa(c, err) < 0
                 ? -1
                 : 0;
    cs_subtree_free(&subtree);
    if (rc < 0) {
        if (rq->order_file) {
            cs_guid_list_free(&c->order_override);
            c->order_override = kept_order;
            c->has_order_override = had_order;
        }
        if (rq->weights) {
            cs_node_weights_free(&c->weights_override);
            c->weights_override = kept_weights;
            c->has_weights_override = had_weights;
        }
        return -1;
    }
    if (rq->order_file)
        cs_guid_list_free(&kept_order);
    if (rq->weights)
        cs_node_weights_free(&kept_weights);
    if (rq->engine)
        snprintf(c->engine, sizeof c->engine, "%s", rq->engine);
    if (done)
        *done = c->last_reconfig;
    return 0;
}

/* ---- Serving -------------------------------------------------------------------------------- */

int cs_sm_core_on_request(void *arg, const struct cs_smp *mad, struct cs_smp *answer)
{
    struct cs_sm_core *c = arg;
    if (mad->method == CS_SMP_METHOD_TRAP) {
        c->trap_seen = true;
        if (c->me.state == CS_SMP_SM_STATE_MASTER) /* a standby forwards nothing */
            cs_sm_core_note_trap(c, mad);
        *answer = *mad;
        answer->method = CS_SMP_METHOD_TRAP_REPRESS;
        answer->status =
            mad->mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE ? CS_SMP_STATUS_DIRECTION : 0;
        return 1;
    }
    return cs_sm_answer_sminfo(&c->me, mad, answer);
}

/* After a heavy sweep: the PortStateChange flags and traps raised until now are the sweep's own
 * (ports it brought up) or older than what it saw; clear them so that the next light sweep
 * reports only what changes from here on. */
static int settle(struct cs_sm_core *c, struct cs_error *err)
{
    c->trap_seen = false;
    return cs_sm_light_sweep(c->pipe, &c->sweep, &c->log, err) < 0 ? -1 : 0;
}

int cs_sm_core_serve_begin(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->me.state != CS_SMP_SM_STATE_MASTER)
        return 0; /* a standby touches nothing: its loop polls the master */
    if (settle(c, err) < 0)
        return -1;
    c->next_light_ms = cs_clock_ms() + c->cfg.sweep_interval * 1000.0;
    return 0;
}

/* While the SM port is down: poll its PortInfo (the local agent answers without a link). 1 when
 * its link has just come back (PortState went from DOWN to INIT or better): sweep now. */
static int sm_port_back(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->sm_port_down_ms == 0 || c->sweep.sm_port == CS_NONE)
        return 0;
    struct cs_smp_port_info pi;
    int answered = cs_sm_own_port_info(c->pipe, &c->sweep, &c->log, &pi, err);
    if (answered <= 0)
        return answered;
    uint8_t was = c->sm_port_state;
    c->sm_port_state = pi.port_state;
    return was == CS_SMP_PORT_STATE_DOWN && pi.port_state > CS_SMP_PORT_STATE_DOWN;
}

/* Become master: a heavy sweep from DISCOVERING (the master is gone, or told us to discover) or
 * from MASTER (it handed over). The sweep's election decides; it may find another SM and leave us
 * STANDBY again. Returns 1 (a sweep ran) or -1. */
static int take_over(struct cs_sm_core *c, const char *why, struct cs_error *err)
{
    cs_logf(&c->log, CS_LOG_WARN, "%s: %s and sweeping", why, cs_sm_state_name(c->me.state));
    int failures = cs_sm_core_sweep(c, false, err);
    if (failures < 0)
        cs_logf(&c->log, CS_LOG_ERROR, "%s", err->msg);
    if (c->me.state != CS_SMP_SM_STATE_MASTER) {
        if (c->me.state == CS_SMP_SM_STATE_DISCOVERING) /* the sweep failed before electing */
            c->next_master_poll_ms = cs_clock_ms() + c->cfg.sminfo_polling_timeout_ms;
        return 1;
    }
    c->takeovers++;
    c->retry = failures != 0;
    cs_logf(&c->log, CS_LOG_INFO, "master SM on port 0x%016llx (takeover %u)",
            (unsigned long long)c->me.guid, c->takeovers);
    if (cs_sm_core_serve_begin(c, err) < 0)
        return -1;
    return 1;
}

/* A master below us hands over only when it sweeps and finds us: tell it with a Trap 144 (OpenSM's
 * standby does the same). Our LID and the master's are the ones our port holds now (its LID and
 * MasterSMLID, set by that master), read from the local agent: our sweep may predate them. No
 * LID yet (the master has not got to our port): nothing to send. Returns 0 or -1. */
static int tell_lower_master(struct cs_sm_core *c, struct cs_error *err)
{
    struct cs_smp_port_info pi;
    int answered = cs_sm_own_port_info(c->pipe, &c->sweep, &c->log, &pi, err);
    if (answered <= 0)
        return answered;
    if (pi.lid == 0 || pi.lid > CS_LID_UCAST_MAX || pi.master_sm_lid == 0 ||
        pi.master_sm_lid > CS_LID_UCAST_MAX || pi.master_sm_lid == pi.lid)
        return 0;
    return cs_sm_send_trap144(c->pipe, pi.lid, pi.master_sm_lid, pi.capability_mask, &c->log, err) <
                   0
               ? -1
               : 0;
}

/* The turn of an SM that is not master (sm.h's state machine). */
static int standby_turn(struct cs_sm_core *c, struct cs_error *err)
{
    uint8_t control = c->me.control;
    c->me.control = 0;
    if (control != 0)
        cs_logf(&c->log, CS_LOG_INFO, "SMInfo control %u from SM 0x%016llx: now %s", control,
                (unsigned long long)c->me.control_from, cs_sm_state_name(c->me.state));
    switch (c->me.state) {
    case CS_SMP_SM_STATE_MASTER: /* HANDOVER: acknowledge it, then sweep as master */
        if (c->me.control_path.hops > 0 &&
            cs_sm_send_control(c->pipe, &c->me, &c->me.control_path, CS_SMP_SM_STATE_STANDBY,
                               CS_SMP_SM_ACKNOWLEDGE, &c->log, NULL, err) < 0)
            return -1;
        return take_over(c, "HANDOVER received", err);
    case CS_SMP_SM_STATE_DISCOVERING:
        if (control == 0 && cs_clock_ms() < c->next_master_poll_ms)
            return 0; /* a takeover that failed: again after a polling period */
        return take_over(c, control ? "DISCOVER received" : "sweeping again", err);
    case CS_SMP_SM_STATE_STANDBY:
        break;
    default: /* NOT-ACTIVE: answer SMInfo only, until a master says STANDBY */
        return 0;
    }
    if (control == CS_SMP_SM_STANDBY) {
        c->poll_misses = 0;
        c->next_master_poll_ms = cs_clock_ms();
    }
    if (cs_clock_ms() < c->next_master_poll_ms)
        return 0;
    /* Polls start sminfo_polling_timeout apart, however long an unanswered one waited for its
     * retries (OpenSM's timer runs apart from its SMPs' timeouts too). */
    c->next_master_poll_ms = cs_clock_ms() + c->cfg.sminfo_polling_timeout_ms;
    struct cs_smp_sm_info seen;
    int alive = cs_sm_poll_master(c->pipe, &c->me, &c->log, &seen, err);
    if (alive < 0)
        return -1;
    if (alive) {
        c->poll_misses = 0;
        if (seen.sm_state == CS_SMP_SM_STATE_MASTER &&
            cs_sm_precedes(c->me.priority, c->me.guid, seen.priority, seen.guid))
            return tell_lower_master(c, err);
        return 0;
    }
    c->poll_misses++;
    cs_logf(&c->log, CS_LOG_WARN, "standby: the master 0x%016llx is gone (%u of %u polls)",
            (unsigned long long)c->me.master_guid, c->poll_misses, c->cfg.polling_retry_number + 1);
    if (c->poll_misses <= c->cfg.polling_retry_number)
        return 0;
    c->me.state = CS_SMP_SM_STATE_DISCOVERING;
    return take_over(c, "standby: the master stopped answering", err);
}

int cs_sm_core_poll(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->me.control != 0 && c->me.control_prior == CS_SMP_SM_STATE_MASTER &&
        c->me.state == CS_SMP_SM_STATE_MASTER) {
        /* HANDOVER (or ACKNOWLEDGE) to a master: look at the subnet again now, as OpenSM does */
        c->me.control = 0;
        c->trap_seen = true;
    }
    if (c->me.state != CS_SMP_SM_STATE_MASTER || c->me.control != 0)
        return standby_turn(c, err);
    if (c->guid2lid_stale && cs_clock_ms() - c->last_vm_op_ms >= CS_SM_CORE_VM_SETTLE_MS &&
        cs_sm_core_vm_settle(c, err) < 0)
        return -1;
    struct cs_sm_alias_counts alias_counts; /* logged by the call */
    if (c->aliases != NULL &&
        cs_sm_program_alias_guids(c->pipe, &c->sweep, c->aliases, &c->log, &alias_counts, err) < 0)
        return -1;
    if (c->mcast != NULL && cs_mcast_groups_dirty(c->mcast) && c->sa != NULL &&
        cs_sm_core_program_mcast(c, false, err) < 0)
        return -1;
    /* The traps received since the last turn, matched now: their Reports, the sweep's and
     * those of the groups joins made or emptied go out at the end of the turn, so that no
     * sweep of this turn waits for a subscriber. */
    if (cs_sm_core_report_traps(c, err) < 0)
        return -1;
    int port_back = sm_port_back(c, err);
    if (port_back < 0)
        return -1;
    if (cs_sm_core_monitor_turn(c, err) < 0)
        return -1;
    unsigned interval = c->cfg.sweep_interval;
    bool due = c->light_requested ||
               (!c->sweeping_off && interval > 0 && cs_clock_ms() >= c->next_light_ms);
    if (!due && !c->trap_seen && !port_back)
        return cs_sm_core_send_reports(c, err);
    bool trapped = c->trap_seen;
    c->trap_seen = false;
    c->light_requested = false;
    int ran = 0;
    int master = cs_sm_elect(c->pipe, &c->sweep, &c->me, &c->log, 0, NULL, err);
    if (master <= 0) {
        if (master == 0)
            enter_standby(c);
        return master;
    }
    int changed = cs_sm_light_sweep(c->pipe, &c->sweep, &c->log, err);
    if (changed < 0)
        return -1;
    c->last_light_changed = changed;
    c->light_sweeps++;
    if (changed > 0 || trapped || c->retry || port_back) {
        /* A change found (a trap, switches changed or silent) is a fault in the store's
         * terms; a retry or the SM's own port back is not. */
        bool fault = changed > 0 || trapped;
        cs_sm_core_note(c, CS_LOG_INFO, fault ? CS_MONITOR_EVENT_FAULT : CS_MONITOR_EVENT_SWEEP,
                        NULL, "%s; light sweep: %d switch%s changed or silent: heavy sweep",
                        port_back  ? "SM port up again"
                        : trapped  ? "trap received"
                        : c->retry ? "last sweep failed"
                                   : "no trap",
                        changed, changed == 1 ? "" : "es");
        int failures = cs_sm_core_sweep(c, false, err);
        if (failures < 0)
            cs_logf(&c->log, CS_LOG_ERROR, "%s", err->msg);
        c->retry = failures != 0; /* as OpenSM: until clean */
        ran = 1;
        if (c->me.state != CS_SMP_SM_STATE_MASTER)
            return ran;
        if (settle(c, err) < 0)
            return -1;
    }
    c->next_light_ms = cs_clock_ms() + interval * 1000.0;
    return cs_sm_core_send_reports(c, err) < 0 ? -1 : ran;
}

void cs_sm_core_set_priority(struct cs_sm_core *c, uint8_t priority)
{
    c->cfg.sm_priority = priority;
    c->me.priority = priority;
}

int cs_sm_core_resweep(struct cs_sm_core *c, bool heavy, struct cs_error *err)
{
    if (c->me.state != CS_SMP_SM_STATE_MASTER)
        return cs_fail(err, "not master (%s): the master sweeps", cs_sm_state_name(c->me.state));
    if (heavy)
        return cs_sm_core_sweep(c, false, err);
    c->light_requested = true;
    return cs_sm_core_poll(c, err);
}

/* ---- Reconfiguration ------------------------------------------------------------------------- */

int cs_sm_core_reconfigure(struct cs_sm_core *c, const struct cs_sm_config *next,
                           struct cs_sm_files *files, const struct cs_sm_config_change *changes,
                           unsigned n, struct cs_sm_core_reconfigured *done, struct cs_error *err)
{
    memset(done, 0, sizeof *done);
    done->rerouted = cs_sm_config_changes_take(changes, n, CS_SM_CONFIG_REROUTE) ||
                     cs_sm_files_differ(&c->files, files, CS_SM_FILE_ROOTS) ||
                     cs_sm_files_differ(&c->files, files, CS_SM_FILE_CNS) ||
                     cs_sm_files_differ(&c->files, files, CS_SM_FILE_NODE_ORDER) ||
                     cs_sm_files_differ(&c->files, files, CS_SM_FILE_NODE_WEIGHTS) ||
                     cs_sm_files_differ(&c->files, files, CS_SM_FILE_VM_STATE);
    bool new_order = cs_sm_files_differ(&c->files, files, CS_SM_FILE_NODE_ORDER) ||
                     cs_sm_config_changed(changes, n, "node_order_file");
    bool new_weights = cs_sm_files_differ(&c->files, files, CS_SM_FILE_NODE_WEIGHTS) ||
                       cs_sm_config_changed(changes, n, "node_weights_file");
    done->pkeys = cs_sm_config_changes_take(changes, n, CS_SM_CONFIG_PKEYS) ||
                  cs_sm_files_differ(&c->files, files, CS_SM_FILE_PARTITIONS);
    cs_sa_db_free(c->sa); /* it points into the partitions and tables replaced here */
    c->sa = NULL;
    c->cfg = *next;
    cs_sm_config_vm_state_path(next, c->vm_state_path, sizeof c->vm_state_path);
    cs_sm_files_free(&c->files);
    c->files = *files;
    memset(files, 0, sizeof *files);
    /* What the control socket changed stays, unless the file changes that key. */
    if (cs_sm_config_changed(changes, n, "routing_engine"))
        snprintf(c->engine, sizeof(c->engine), "%s", c->cfg.routing_engine);
    c->me.priority = (uint8_t)c->cfg.sm_priority;
    c->me.sm_key = c->cfg.sm_key;
    /* The rules were read again: their timers start afresh. A new adapt_mode in the file
     * replaces the mode the control socket set. */
    c->adapt_rules = NULL;
    if (cs_sm_config_changed(changes, n, "adapt_mode"))
        c->adapt_mode_override = -1;
    if (c->me.state != CS_SMP_SM_STATE_MASTER) { /* a standby keeps the configuration only */
        done->pkeys = done->rerouted = false;
        return 0;
    }
    if (done->pkeys) {
        int failures = program_pkeys(c, err);
        if (failures != 0)
            cs_logf(&c->log, CS_LOG_ERROR, "reconfigure: P_Key tables: %s",
                    failures < 0 ? err->msg : "some ports failed (see above)");
    }
    if (done->rerouted) {
        if (new_order) { /* a new node order file replaces one a reroute gave */
            cs_guid_list_free(&c->order_override);
            c->has_order_override = false;
        }
        if (new_weights) { /* so does a new weights file learned weights */
            cs_node_weights_free(&c->weights_override);
            c->has_weights_override = false;
        }
        struct cs_sm_reconfig rc;
        if (cs_sm_core_reroute(c, NULL, &rc, err) < 0)
            return -1;
        done->blocks_sent = rc.lc.blocks_sent;
        return 0;
    }
    return cs_sm_core_rebuild_sa(c, err);
}
