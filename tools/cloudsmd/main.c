/* cloudsmd: the cloudsm subnet manager.
 *
 * Bring-up: check every configured file, open the SM port, sweep the fabric, win the master
 * election (IBA's rule), give every port a LID (keeping the ones in the state directory's
 * guid2lid, within every switch's LinearFDBCap), program the P_Key tables, route with the chosen
 * engine, and program the fabric: PortInfo, LinearFDBTop, the LFT blocks that differ, the SL2VL
 * tables when the engine put partitions on SLs, port states to ACTIVE. With -o that is all;
 * otherwise cloudsmd stays master until SIGTERM/SIGINT: it answers the SA and other SMs, sweeps
 * on a period and on traps, keeps its last view while its own port is down, re-programs what
 * changed, takes orders on its control socket, and on SIGHUP reads its configuration again and
 * applies what changed. docs/sm/cloudsmd.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cloudsm/json.h"
#include "../cloudsm/summary_print.h"
#include "cloudsm/clock.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/lft_io.h"
#include "cloudsm/lid.h"
#include "cloudsm/partitions.h"
#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/sm.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/sm_control.h"
#include "cloudsm/sm_files.h"
#include "cloudsm/summary.h"
#include "cloudsmd/log.h"
#include "cloudsmd/options.h"
#include "cloudsmd/umad_port.h"

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
    stop_requested = sig;
}

static void on_hangup(int sig)
{
    (void)sig;
    reload_requested = 1;
}

/* Everything one run holds, freed in one place. */
struct run {
    struct cs_sm_config *cfg; /* the running configuration: SIGHUP changes it */
    int argc;                 /* the command line, parsed again on SIGHUP */
    char **argv;
    struct cloudsmd_log log;
    struct cs_log sink;
    struct umad_sm_port port;
    bool port_open;
    struct cs_smp_pipe *pipe;
    struct cs_sm_identity me;
    struct cs_sm_sweep sweep;
    struct cs_guid2lid guid2lid;
    struct cs_lfts lfts; /* the tables routing wants */
    struct cs_lfts held; /* what the switches hold, as far as we know (dirty block = unknown) */
    struct cs_sm_files files; /* partitions.conf, the GUID files and the engines' files, as last
                                 loaded */
    char engine[CS_SM_REQUEST_ARG_MAX]; /* routing engine: the configuration's, or the last
                                           `reroute` asked for */
    volatile bool trap_seen;
    unsigned sweeps;
    struct cs_route_stats route;   /* of the tables in lfts */
    struct cs_route_result routed; /* what the engine said besides lfts: the partitions' SLs */
    double started_ms;             /* cs_clock_ms() at start */
    double last_sweep_ms; /* when the last heavy sweep ended (cs_clock_ms), its length and SMPs */
    double last_sweep_took_ms;
    uint64_t last_sweep_smps;
    int last_sweep_failures;
    double sm_port_down_ms; /* when a sweep found the SM port down (cs_clock_ms); 0: it is up */
    uint8_t sm_port_state;  /* the SM port's PortState when last polled while down */
    struct cs_sm_control control;
    struct cs_partition_set pset; /* files.partitions resolved against the current sweep */
    struct cs_sa_db *sa;          /* the SA's view of the current sweep and tables */
    uint8_t *sa_reply;            /* room for the largest reply the db can give */
    size_t sa_reply_cap;
    char guid2lid_path[CS_SM_CONFIG_PATH_MAX + 16];
};

static void run_free(struct run *r)
{
    cs_lfts_free(&r->lfts);
    cs_lfts_free(&r->held);
    cs_route_result_free(&r->routed);
    cs_sa_db_free(r->sa);
    free(r->sa_reply);
    cs_partition_set_free(&r->pset);
    cs_sm_files_free(&r->files);
    cs_guid2lid_free(&r->guid2lid);
    cs_sm_sweep_free(&r->sweep);
    cs_sm_control_close(&r->control);
    cs_smp_pipe_destroy(r->pipe);
    if (r->port_open)
        umad_sm_port_close(&r->port);
}

static int fail_run(struct run *r, const struct cs_error *err)
{
    cloudsmd_logf(&r->log, CS_LOG_ERROR, "%s", err->msg);
    return EXIT_FAILED;
}

/* The state directory's guid2lid: missing is a first start; unreadable or corrupt is logged and
 * set aside (renamed *.bad) so that the SM still comes up and the evidence is kept. */
static int load_guid2lid(struct run *r, struct cs_error *err)
{
    const char *dir = r->cfg->state_dir;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return cs_fail(err, "cannot create state directory %s: %s", dir, strerror(errno));
    snprintf(r->guid2lid_path, sizeof(r->guid2lid_path), "%s/guid2lid", dir);
    if (r->cfg->reassign_lids) {
        cloudsmd_logf(&r->log, CS_LOG_INFO, "reassign_lids: ignoring %s, every LID is new",
                      r->guid2lid_path);
        return 0;
    }
    struct stat st;
    if (stat(r->guid2lid_path, &st) < 0) {
        cloudsmd_logf(&r->log, CS_LOG_INFO, "no %s: every LID is new", r->guid2lid_path);
        return 0;
    }
    struct cs_error why;
    if (cs_guid2lid_read(&r->guid2lid, r->guid2lid_path, &why) == 0) {
        cloudsmd_logf(&r->log, CS_LOG_INFO, "%s: %u LIDs to keep", r->guid2lid_path,
                      r->guid2lid.count);
        return 0;
    }
    char bad[sizeof(r->guid2lid_path) + 4];
    snprintf(bad, sizeof(bad), "%s.bad", r->guid2lid_path);
    rename(r->guid2lid_path, bad);
    cs_guid2lid_free(&r->guid2lid);
    cloudsmd_logf(&r->log, CS_LOG_WARN, "%s (moved to %s; assigning LIDs afresh)", why.msg, bad);
    return 0;
}

static int route(struct run *r, struct cs_error *err)
{
    const struct cs_sm_config *c = r->cfg;
    struct cs_route_options ropt = {
        .root_guids = c->root_guid_file[0] ? &r->files.roots : NULL,
        .cn_guids = c->cn_guid_file[0] ? &r->files.cns : NULL,
        .connect_roots = c->connect_roots,
    };
    /* The partitions the P_Key tables come from are the ones partition-aware engines route. */
    struct cs_route_inputs in = {.log = &r->sink, .partitions = &r->files.partitions};
    cs_route_loaded_inputs(&r->files.route, &in);
    struct cs_route_stats st;
    struct cs_route_result res;
    cs_lfts_free(&r->lfts);
    if (cs_route_with(r->engine, &r->sweep.fabric, &ropt, &in, &r->lfts, &st, &res, err) < 0)
        return -1;
    r->route = st;
    cs_route_result_free(&r->routed);
    r->routed = res;
    if (st.fell_back)
        cloudsmd_logf(&r->log, CS_LOG_WARN, "route: %s is not suitable (%s); routed with %s",
                      st.requested, st.fallback_reason, st.engine);
    cloudsmd_logf(&r->log, CS_LOG_INFO,
                  "route: %s tables for %u switches, LIDs 1..%u (engine %.1f ms)", st.engine,
                  st.switches, st.max_lid, st.route_ms);
    return 0;
}

/* The files the configuration names, loaded before the SM touches the fabric (at start) or
 * changes anything (SIGHUP): a bad one is reported with its file:line and nothing is used. */
static int load_files(struct run *r, const struct cs_sm_config *cfg, struct cs_sm_files *files,
                      struct cs_error *err)
{
    if (cs_sm_files_load(files, cfg, err) < 0)
        return -1;
    const char *path = cfg->partition_config_file;
    for (uint32_t i = 0; i < files->partitions.num_warnings; i++)
        cloudsmd_logf(&r->log, CS_LOG_WARN, "%s", files->partitions.warnings[i].msg);
    if (files->partitions_missing)
        cloudsmd_logf(&r->log, CS_LOG_INFO, "partitions: no %s: Default only", path);
    else if (path[0])
        cloudsmd_logf(&r->log, CS_LOG_INFO, "partitions: %u from %s", files->partitions.count,
                      path);
    return 0;
}

/* The state directory, checked with the files: it must be (or become) a directory cloudsmd can
 * write guid2lid into, and the control socket's path in it must fit a socket address. */
static int check_state_dir(const struct cs_sm_config *cfg, bool once, struct cs_error *err)
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

/* P_Key tables: resolve the partitions against this sweep, read what the ports hold, program
 * the blocks that differ (src/sm/pkeys.c). Returns the failures, or -1. */
static int program_pkeys(struct run *r, struct cs_error *err)
{
    cs_partition_set_free(&r->pset);
    struct cs_partition_resolve_options ropt = {
        .sm_port_guid = r->sweep.fabric.ports[r->sweep.sm_port].guid,
        .allow_both_pkeys = r->cfg->allow_both_pkeys,
    };
    if (cs_partitions_resolve(&r->files.partitions, &r->sweep.fabric, &ropt, &r->pset, err) < 0)
        return -1;
    struct cs_sm_pkey_tables held, want;
    cs_sm_pkey_tables_init(&held);
    cs_sm_pkey_tables_init(&want);
    struct cs_sm_pkey_counts pc = {0};
    struct cs_sm_pkey_options popt = {
        .config = &r->files.partitions,
        .allow_both_pkeys = r->cfg->allow_both_pkeys,
        .part_enforce = r->cfg->part_enforce,
    };
    int rc = cs_sm_read_pkeys(r->pipe, &r->sweep, &held, &r->sink, &pc, err);
    if (rc >= 0)
        rc = cs_sm_pkey_tables(&r->sweep, &r->pset, &popt, &held, &want, &r->sink, err);
    if (rc >= 0)
        rc = cs_sm_program_pkeys(r->pipe, &r->sweep, &want, &held, &r->sink, &pc, err);
    cs_sm_pkey_tables_free(&held);
    cs_sm_pkey_tables_free(&want);
    if (rc < 0)
        return -1;
    cloudsmd_logf(&r->log, CS_LOG_INFO,
                  "pkeys: %u partitions, %llu blocks read back, %llu blocks sent, %llu "
                  "enforcement sets",
                  r->pset.count, (unsigned long long)pc.blocks_read,
                  (unsigned long long)pc.blocks_sent, (unsigned long long)pc.port_info_sets);
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
static int program_sl2vl(struct run *r, struct cs_error *err)
{
    unsigned sls = sls_in_use(&r->routed);
    if (sls == 0) {
        cloudsmd_logf(&r->log, CS_LOG_INFO,
                      "sl2vl: every partition on SL 0: tables left as the ports hold them");
        return 0;
    }
    const struct cs_partitions *parts = &r->files.partitions;
    for (uint32_t i = 0; i < r->routed.num_partitions && i < parts->count; i++)
        if (r->routed.partition_sl[i] != 0)
            cloudsmd_logf(&r->log, CS_LOG_INFO, "sl2vl: partition %s (0x%04x) on SL %u",
                          parts->partitions[i].name, parts->partitions[i].pkey,
                          r->routed.partition_sl[i]);
    struct cs_sm_sl2vl_counts sc;
    if (cs_sm_program_sl2vl(r->pipe, &r->sweep, sls, &r->sink, &sc, err) < 0)
        return -1;
    cloudsmd_logf(&r->log, CS_LOG_INFO,
                  "sl2vl: SLs 0..%u on VLs of their own, %llu tables read back, %llu tables sent, "
                  "%u ports short of VLs",
                  sls - 1, (unsigned long long)sc.tables_read, (unsigned long long)sc.tables_sent,
                  sc.short_ports);
    return (int)sc.failures;
}

/* The SA answers from an index of the current sweep, tables and partitions: rebuilt after
 * every sweep and re-route (the old one is dropped first: it points into what changed). */
static int rebuild_sa(struct run *r, struct cs_error *err)
{
    cs_sa_db_free(r->sa);
    r->sa = NULL;
    struct cs_sa_options opt = {
        .subnet_prefix = r->cfg->subnet_prefix,
        .sm_key = r->cfg->sm_key,
        .path_caching = r->cfg->sa_path_caching,
        .subnet_timeout = (uint8_t)r->cfg->subnet_timeout,
        .node_info = r->sweep.node_info,
        .partition_sl = r->routed.partition_sl,
        .num_partition_sl = r->routed.num_partitions,
    };
    if (cs_sa_db_build(&r->sweep, &r->lfts, &r->pset, &opt, &r->sa, err) < 0)
        return -1;
    size_t need = cs_sa_response_bound(r->sa);
    if (need > r->sa_reply_cap) {
        uint8_t *grown = realloc(r->sa_reply, need);
        if (grown == NULL)
            return cs_fail(err, "out of memory for SA replies (%zu bytes)", need);
        r->sa_reply = grown;
        r->sa_reply_cap = need;
    }
    return 0;
}

/* One SA request from the umad transport (umad_port.h): the reply, or NULL to send nothing. */
static const uint8_t *answer_sa(void *arg, const uint8_t *mad, size_t len,
                                const struct umad_gmp_from *from, size_t *reply_len)
{
    struct run *r = arg;
    if (r->sa == NULL ||
        cs_sa_answer(r->sa, from->lid, mad, len, r->sa_reply, r->sa_reply_cap, reply_len) != 1)
        return NULL;
    return r->sa_reply;
}

/* Program the routed tables: only the blocks that differ from what the switches hold. The first
 * time nothing is known (every block unknown: read back where the switch has valid entries);
 * afterwards the held tables are carried over to the new sweep's switches by GUID. */
static int program_lfts(struct run *r, struct cs_sm_lft_counts *lc, struct cs_error *err)
{
    struct cs_lfts held;
    if (cs_sm_carry_held(&r->held, &r->lfts, &held, err) < 0)
        return -1;
    int rc = cs_sm_program_lfts(r->pipe, &r->sweep, &r->lfts, &held, &r->sink, lc, err);
    cs_lfts_free(&r->held);
    r->held = held;
    return rc;
}

/* Whether to throw fresh away and keep the last sweep, its tables, guid2lid and SA view: it saw
 * less than the fabric because of the SM's own link (cs_sm_sweep_lost_fabric). Also keeps track
 * of the SM port being down, which serve() polls until it comes back. */
static bool keep_last_view(struct run *r, struct cs_sm_sweep *fresh)
{
    bool lost = cs_sm_sweep_lost_fabric(fresh, &r->sweep);
    if (!lost && !fresh->sm_port_down) {
        if (r->sm_port_down_ms != 0)
            cloudsmd_logf(&r->log, CS_LOG_INFO, "SM port back after %.1f s",
                          (cs_clock_ms() - r->sm_port_down_ms) / 1000.0);
        r->sm_port_down_ms = 0;
        return false;
    }
    if (r->sm_port_down_ms == 0)
        r->sm_port_down_ms = cs_clock_ms();
    /* A port that is up with a silent neighbour is not "back" when polled: the periodic sweeps
     * (the switches of the kept view do not answer the light sweep) retry until it answers. */
    r->sm_port_state = fresh->sm_port_down ? CS_SMP_PORT_STATE_DOWN : CS_SMP_PORT_STATE_INIT;
    if (!lost)
        return false; /* nothing better to keep: the first sweep */
    cloudsmd_logf(&r->log, CS_LOG_WARN,
                  "SM port down%s: keeping the last fabric view (%u nodes); polling the port",
                  fresh->sm_port_down ? "" : " (its neighbour does not answer)",
                  r->sweep.fabric.num_nodes);
    cs_sm_sweep_free(fresh);
    r->last_sweep_failures = 1;
    return true;
}

/* How long a new master waits for an SM of higher precedence that is still discovering to
 * decide (it finds us master and stops, or claims and we stop) before programming anyway. */
#define CLAIM_WAIT_MS 5000

/* Another SM won the election: stop, and leave the fabric to it. */
static int stepped_down(struct run *r, bool first)
{
    cloudsmd_logf(&r->log, CS_LOG_ERROR, "not master: %s (standby mode comes later)",
                  first ? "exiting without programming the fabric"
                        : "stopping; the fabric is left to the winner");
    return EXIT_FAILED;
}

/* One heavy sweep and everything after it: discover, make sure no other SM takes precedence,
 * assign LIDs, route, program, activate. Returns an exit code. */
static int sweep_and_program(struct run *r, bool first)
{
    struct cs_error err;
    struct cloudsmd_phase all, ph;
    cloudsmd_phase_begin(&all, first ? "subnet up" : "sweep", r->pipe);
    uint32_t nodes_before = r->sweep.fabric.num_nodes;

    cloudsmd_phase_begin(&ph, "discover", r->pipe);
    struct cs_sm_sweep fresh;
    cs_sm_sweep_init(&fresh);
    if (cs_sm_discover(r->pipe, &r->sink, &fresh, &err) < 0)
        return fail_run(r, &err);
    r->sweeps++;
    if (keep_last_view(r, &fresh))
        return EXIT_FAILED;
    /* The SA db points into the sweep and tables this sweep replaces: SA requests that arrive
     * from here on (the transport answers them between SMPs) go unanswered, and clients retry. */
    cs_sa_db_free(r->sa);
    r->sa = NULL;
    cs_sm_sweep_free(&r->sweep);
    r->sweep = fresh;
    const struct cs_fabric *f = &r->sweep.fabric;
    uint32_t switches = 0, links = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        switches += cs_node_is_switch(&f->nodes[n]);
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        links += f->ports[p].peer != CS_NONE && f->ports[p].peer > p;
    cloudsmd_logf(&r->log, r->sweep.problems ? CS_LOG_WARN : CS_LOG_INFO,
                  "discover: %u nodes (%u switches, %u CAs), %u links, %u problem%s", f->num_nodes,
                  switches, f->num_nodes - switches, links, r->sweep.problems,
                  r->sweep.problems == 1 ? "" : "s");
    if (!first && f->num_nodes != nodes_before)
        cloudsmd_logf(&r->log, CS_LOG_INFO, "discover: %u nodes before, %u now", nodes_before,
                      f->num_nodes);
    cloudsmd_phase_end(&r->log, &ph);

    /* Before anything is programmed: claim master the first time, and on later sweeps look for
     * an SM that came up since (src/sm/master.c; its ERROR line names the winner and the rule). */
    int master =
        cs_sm_elect(r->pipe, &r->sweep, &r->me, &r->sink, first ? CLAIM_WAIT_MS : 0, NULL, &err);
    if (master < 0)
        return fail_run(r, &err);
    if (master == 0) /* serve() stops on the state NOT_ACTIVE */
        return first ? stepped_down(r, true) : EXIT_FAILED;

    cloudsmd_phase_begin(&ph, "lids", r->pipe);
    if (first && load_guid2lid(r, &err) < 0)
        return fail_run(r, &err);
    /* reassign_lids numbers the first sweep afresh; later sweeps keep what it gave. */
    int changed =
        cs_sm_assign_lids(&r->sweep, &r->guid2lid, first && r->cfg->reassign_lids, &r->sink, &err);
    if (changed < 0)
        return fail_run(r, &err);
    struct cs_guid2lid kept;
    if (cs_sm_guid2lid_update(&r->sweep, &r->guid2lid, &kept, &err) < 0)
        return fail_run(r, &err);
    cs_guid2lid_free(&r->guid2lid);
    r->guid2lid = kept;
    if (cs_guid2lid_write_file(r->guid2lid_path, &r->guid2lid, &err) < 0)
        return fail_run(r, &err);
    uint16_t sm_lid = f->ports[r->sweep.sm_port].lid;
    uint32_t present = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        present += f->ports[p].lid != 0;
    cloudsmd_logf(&r->log, CS_LOG_INFO,
                  "lids: %u ports, %u held for absent ports, %d new or changed, SM LID %u", present,
                  r->guid2lid.count - present, changed, sm_lid);
    struct cs_sm_port_settings settings = {
        .sm_lid = sm_lid,
        .subnet_prefix = r->cfg->subnet_prefix,
        .m_key = r->cfg->m_key,
        .m_key_lease_period = (uint16_t)r->cfg->m_key_lease_period,
    };
    int failures = cs_sm_set_lids(r->pipe, &r->sweep, &settings, &r->sink, &err);
    if (failures < 0)
        return fail_run(r, &err);
    cloudsmd_phase_end(&r->log, &ph);

    cloudsmd_phase_begin(&ph, "pkeys", r->pipe);
    int pk = program_pkeys(r, &err);
    if (pk < 0)
        return fail_run(r, &err);
    failures += pk;
    cloudsmd_phase_end(&r->log, &ph);

    cloudsmd_phase_begin(&ph, "route", NULL);
    if (route(r, &err) < 0)
        return fail_run(r, &err);
    cloudsmd_phase_end(&r->log, &ph);

    cloudsmd_phase_begin(&ph, "lfts", r->pipe);
    struct cs_sm_lft_counts lc;
    if (program_lfts(r, &lc, &err) < 0)
        return fail_run(r, &err);
    failures += (int)lc.failures;
    cloudsmd_logf(&r->log, CS_LOG_INFO,
                  "lfts: %llu blocks read back, %llu blocks sent, %llu LinearFDBTop sets",
                  (unsigned long long)lc.blocks_read, (unsigned long long)lc.blocks_sent,
                  (unsigned long long)lc.switch_info_sets);
    cloudsmd_phase_end(&r->log, &ph);

    cloudsmd_phase_begin(&ph, "sl2vl", r->pipe);
    int sv = program_sl2vl(r, &err);
    if (sv < 0)
        return fail_run(r, &err);
    failures += sv;
    cloudsmd_phase_end(&r->log, &ph);

    cloudsmd_phase_begin(&ph, "activate", r->pipe);
    unsigned activated = 0;
    int act = cs_sm_activate(r->pipe, &r->sweep, &r->sink, &activated, &err);
    if (act < 0)
        return fail_run(r, &err);
    failures += act;
    cloudsmd_logf(&r->log, CS_LOG_INFO, "activate: %u ports brought to ACTIVE", activated);
    cloudsmd_phase_end(&r->log, &ph);

    if (rebuild_sa(r, &err) < 0)
        return fail_run(r, &err);
    struct cs_smp_pipe_stats total = cloudsmd_phase_smps(&all);
    r->last_sweep_took_ms = cloudsmd_phase_end(&r->log, &all);
    r->last_sweep_ms = cs_clock_ms();
    r->last_sweep_smps = total.sent;
    r->last_sweep_failures = failures;
    cloudsmd_logf(&r->log, failures ? CS_LOG_WARN : CS_LOG_INFO,
                  "%s: %llu SMPs sent (%llu retries, %llu timeouts), %d failure%s",
                  first ? "subnet up" : "sweep done", (unsigned long long)total.sent,
                  (unsigned long long)total.retries, (unsigned long long)total.timeouts, failures,
                  failures == 1 ? "" : "s");
    return failures ? EXIT_FAILED : EXIT_OK;
}

/* Route again (the engine of r->engine) and program the blocks that differ. */
static int reroute(struct run *r, struct cs_sm_lft_counts *lc, struct cs_error *err)
{
    cs_sa_db_free(r->sa); /* it points into the tables route() replaces */
    r->sa = NULL;
    if (route(r, err) < 0 || program_lfts(r, lc, err) < 0 || program_sl2vl(r, err) < 0)
        return -1;
    return rebuild_sa(r, err);
}

static void reply_status(struct run *r, bool as_json, FILE *out)
{
    const struct cs_fabric *f = &r->sweep.fabric;
    struct cs_fabric_summary sum;
    struct cs_error err;
    if (cs_fabric_summarize(f, 0, &sum, &err) < 0)
        memset(&sum, 0, sizeof(sum));
    double now = cs_clock_ms();
    uint16_t lid = f->num_port_slots ? f->ports[r->sweep.sm_port].lid : 0;
    if (as_json) {
        struct json j;
        json_init(&j, out);
        json_object_begin(&j, NULL);
        json_str(&j, "state", cs_sm_state_name(r->me.state));
        json_guid(&j, "port_guid", r->port.port_guid);
        json_u64(&j, "lid", lid);
        json_double(&j, "uptime_s", (now - r->started_ms) / 1000.0);
        json_u64(&j, "sweeps", r->sweeps);
        json_double(&j, "last_sweep_ago_s", (now - r->last_sweep_ms) / 1000.0);
        json_double(&j, "last_sweep_ms", r->last_sweep_took_ms);
        json_u64(&j, "last_sweep_smps", r->last_sweep_smps);
        json_u64(&j, "last_sweep_failures", (uint64_t)r->last_sweep_failures);
        json_bool(&j, "sm_port_down", r->sm_port_down_ms != 0);
        if (r->sm_port_down_ms != 0)
            json_double(&j, "sm_port_down_s", (now - r->sm_port_down_ms) / 1000.0);
        json_u64(&j, "nodes", f->num_nodes);
        json_u64(&j, "switches", sum.switches);
        json_u64(&j, "cas", sum.cas);
        json_u64(&j, "links", sum.links);
        json_str(&j, "engine_requested", r->route.requested);
        json_str(&j, "engine", r->route.engine);
        json_bool(&j, "fell_back", r->route.fell_back);
        if (r->route.fell_back)
            json_str(&j, "fallback_reason", r->route.fallback_reason);
        json_u64(&j, "sa_requests", r->port.sa_requests);
        json_object_end(&j);
        json_finish(&j);
        return;
    }
    fprintf(out, "state           %s on port 0x%016llx, LID %u\n", cs_sm_state_name(r->me.state),
            (unsigned long long)r->port.port_guid, lid);
    fprintf(out, "uptime          %.0f s, %u heavy sweep%s\n", (now - r->started_ms) / 1000.0,
            r->sweeps, r->sweeps == 1 ? "" : "s");
    fprintf(out, "last sweep      %.1f s ago, took %.1f ms, %llu SMPs, %d failure%s\n",
            (now - r->last_sweep_ms) / 1000.0, r->last_sweep_took_ms,
            (unsigned long long)r->last_sweep_smps, r->last_sweep_failures,
            r->last_sweep_failures == 1 ? "" : "s");
    if (r->sm_port_down_ms != 0)
        fprintf(out, "SM port         down since %.1f s ago: keeping the last fabric view\n",
                (now - r->sm_port_down_ms) / 1000.0);
    fprintf(out, "fabric          %u nodes (%u switches, %u CAs), %u links\n", f->num_nodes,
            sum.switches, sum.cas, sum.links);
    fprintf(out, "routing         %s", r->route.engine);
    if (r->route.fell_back)
        fprintf(out, " (asked for %s: %s)", r->route.requested, r->route.fallback_reason);
    fprintf(out, "\nSA requests     %llu\n", (unsigned long long)r->port.sa_requests);
}

/* The control socket's commands (include/cloudsm/sm_control.h, docs/sm/control.md). */
static int on_control(void *arg, const struct cs_sm_request *req, FILE *out, struct cs_error *err)
{
    struct run *r = arg;
    switch (req->command) {
    case CS_SM_CMD_STATUS:
        reply_status(r, req->json, out);
        return 0;
    case CS_SM_CMD_TOPOLOGY: {
        struct cs_fabric_summary sum;
        if (cs_fabric_summarize(&r->sweep.fabric, 0, &sum, err) < 0)
            return -1;
        summary_print(out, "live fabric", &sum, 0, req->json);
        return 0;
    }
    case CS_SM_CMD_LFTS:
        if (req->json)
            return cs_fail(err, "lfts has no JSON form: it is an opensm-lfts.dump");
        return cs_lfts_write(out, &r->lfts, CS_LFT_FORMAT_OSM, err);
    case CS_SM_CMD_REROUTE: {
        char previous[sizeof(r->engine)];
        snprintf(previous, sizeof(previous), "%s", r->engine);
        snprintf(r->engine, sizeof(r->engine), "%s", req->argv[0]);
        struct cs_sm_lft_counts lc;
        if (reroute(r, &lc, err) < 0) {
            snprintf(r->engine, sizeof(r->engine), "%s", previous);
            return -1;
        }
        cloudsmd_logf(&r->log, CS_LOG_INFO, "reroute: %s tables, %llu blocks sent", r->route.engine,
                      (unsigned long long)lc.blocks_sent);
        if (req->json) {
            struct json j;
            json_init(&j, out);
            json_object_begin(&j, NULL);
            json_str(&j, "engine_requested", r->route.requested);
            json_str(&j, "engine", r->route.engine);
            json_bool(&j, "fell_back", r->route.fell_back);
            json_u64(&j, "blocks_sent", lc.blocks_sent);
            json_u64(&j, "blocks_read", lc.blocks_read);
            json_u64(&j, "failures", lc.failures);
            json_object_end(&j);
            json_finish(&j);
        } else {
            fprintf(out, "routed with %s%s%s, %llu LFT blocks sent, %u failures\n", r->route.engine,
                    r->route.fell_back ? " (fell back: " : "",
                    r->route.fell_back ? r->route.fallback_reason : "",
                    (unsigned long long)lc.blocks_sent, lc.failures);
        }
        return 0;
    }
    case CS_SM_CMD_LOG_LEVEL: {
        enum cs_log_level old = r->log.level;
        r->log.level = req->log_level;
        if (req->json) {
            struct json j;
            json_init(&j, out);
            json_object_begin(&j, NULL);
            json_str(&j, "old", cs_log_level_name(old));
            json_str(&j, "new", cs_log_level_name(req->log_level));
            json_object_end(&j);
            json_finish(&j);
        } else {
            fprintf(out, "log level %s -> %s\n", cs_log_level_name(old),
                    cs_log_level_name(req->log_level));
        }
        return 0;
    }
    case CS_SM_CMD_SWEEP: {
        int rc = sweep_and_program(r, false);
        if (rc == EXIT_FAILED && r->sweep.fabric.num_nodes == 0)
            return cs_fail(err, "the sweep failed (see the log)");
        reply_status(r, req->json, out);
        return 0;
    }
    case CS_SM_CMD_COUNT:
        break;
    }
    return cs_fail(err, "unknown command");
}

/* Requests from the fabric: other SMs' SMInfo queries, and traps. A trap (a port went up or
 * down, IBA 14.2.5.1 notices 128/144) asks for a sweep now; it is answered with TrapRepress so
 * that the agent stops repeating it. */
static int on_request(void *arg, const struct cs_smp *mad, struct cs_smp *answer)
{
    struct run *r = arg;
    if (mad->method == CS_SMP_METHOD_TRAP) {
        r->trap_seen = true;
        *answer = *mad;
        answer->method = CS_SMP_METHOD_TRAP_REPRESS;
        answer->status =
            mad->mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE ? CS_SMP_STATUS_DIRECTION : 0;
        return 1;
    }
    return cs_sm_answer_sminfo(&r->me, mad, answer);
}

/* After a heavy sweep: the PortStateChange flags and traps raised until now are the sweep's own
 * (ports it brought up) or older than what it saw; clear them so that the next light sweep
 * reports only what changes from here on. */
static int settle(struct run *r, struct cs_error *err)
{
    r->trap_seen = false;
    return cs_sm_light_sweep(r->pipe, &r->sweep, &r->sink, err) < 0 ? -1 : 0;
}

/* While the SM port is down: poll its PortInfo (the local agent answers without a link). 1 when
 * its link has just come back (PortState went from DOWN to INIT or better): sweep now. */
static int sm_port_back(struct run *r, struct cs_error *err)
{
    if (r->sm_port_down_ms == 0 || r->sweep.sm_port == CS_NONE)
        return 0;
    struct cs_smp_port_info pi;
    int answered = cs_sm_own_port_info(r->pipe, &r->sweep, &r->sink, &pi, err);
    if (answered <= 0)
        return answered;
    uint8_t was = r->sm_port_state;
    r->sm_port_state = pi.port_state;
    return was == CS_SMP_PORT_STATE_DOWN && pi.port_state > CS_SMP_PORT_STATE_DOWN;
}

/* Apply a new configuration (its restart-only keys already set back) and its files: the SA is
 * rebuilt, and where routing or partitions changed only the blocks that differ are sent. */
static void apply_config(struct run *r, const struct cs_sm_config *next, struct cs_sm_files *files,
                         const struct cs_sm_config_change *changes, unsigned n)
{
    bool reroute_needed = cs_sm_config_changes_take(changes, n, CS_SM_CONFIG_REROUTE) ||
                          cs_sm_files_differ(&r->files, files, CS_SM_FILE_ROOTS) ||
                          cs_sm_files_differ(&r->files, files, CS_SM_FILE_CNS) ||
                          cs_sm_files_differ(&r->files, files, CS_SM_FILE_NODE_ORDER) ||
                          cs_sm_files_differ(&r->files, files, CS_SM_FILE_NODE_WEIGHTS) ||
                          cs_sm_files_differ(&r->files, files, CS_SM_FILE_VM_STATE);
    bool pkeys_needed = cs_sm_config_changes_take(changes, n, CS_SM_CONFIG_PKEYS) ||
                        cs_sm_files_differ(&r->files, files, CS_SM_FILE_PARTITIONS);
    cs_sa_db_free(r->sa); /* it points into the partitions and tables replaced here */
    r->sa = NULL;
    *r->cfg = *next;
    cs_sm_files_free(&r->files);
    r->files = *files;
    memset(files, 0, sizeof *files);
    /* What the control socket changed stays, unless the file changes that key. */
    if (cs_sm_config_changed(changes, n, "routing_engine"))
        snprintf(r->engine, sizeof(r->engine), "%s", r->cfg->routing_engine);
    if (cs_sm_config_changed(changes, n, "log_level"))
        r->log.level = r->cfg->log_level;
    r->me.priority = (uint8_t)r->cfg->sm_priority;
    r->me.sm_key = r->cfg->sm_key;
    struct cs_error err;
    if (pkeys_needed) {
        int failures = program_pkeys(r, &err);
        if (failures != 0)
            cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGHUP: P_Key tables: %s",
                          failures < 0 ? err.msg : "some ports failed (see above)");
    }
    struct cs_sm_lft_counts lc;
    if (reroute_needed && reroute(r, &lc, &err) == 0)
        cloudsmd_logf(&r->log, CS_LOG_INFO, "SIGHUP: routed with %s, %llu LFT blocks sent",
                      r->route.engine, (unsigned long long)lc.blocks_sent);
    else if (reroute_needed || rebuild_sa(r, &err) < 0)
        cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGHUP: %s", err.msg);
}

/* SIGHUP, as OpenSM: reopen the log file (logrotate), read the configuration again from the
 * same command line (flags still win over the file), read the files it names, and apply what
 * changed. A configuration or file that does not load is logged and the running one kept; a
 * key that needs a restart keeps its running value, with a warning. */
static void reload(struct run *r)
{
    struct cs_error err;
    struct cloudsmd_options *next = calloc(1, sizeof(*next));
    bool parsed = next && cloudsmd_options_reparse(r->argc, r->argv, next, &err) == 0;
    if (!next)
        snprintf(err.msg, sizeof(err.msg), "out of memory");
    struct cs_error log_err;
    if (cloudsmd_log_reopen(&r->log, parsed ? next->config.log_file : r->cfg->log_file, &log_err) <
        0)
        cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGHUP: %s (logging on where it was)", log_err.msg);
    if (!parsed) {
        cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGHUP: %s; keeping the running configuration",
                      err.msg);
        free(next);
        return;
    }
    cloudsmd_log_config_warnings(&r->log, next->config_path, &next->warnings);
    struct cs_sm_config_change changes[CS_SM_CONFIG_KEYS_MAX];
    unsigned n = cs_sm_config_diff(r->cfg, &next->config, changes);
    char changed[1024] = "";
    size_t used = 0;
    for (unsigned i = 0; i < n; i++) {
        if (changes[i].how == CS_SM_CONFIG_RESTART) {
            char value[128];
            cs_sm_config_format_value(r->cfg, changes[i].key, value, sizeof(value));
            cloudsmd_logf(&r->log, CS_LOG_WARN, "SIGHUP: %s needs a restart; keeping %s until then",
                          changes[i].key, value);
            cs_sm_config_copy_key(&next->config, r->cfg, changes[i].key);
        } else if (used < sizeof(changed)) {
            used += (size_t)snprintf(changed + used, sizeof(changed) - used, "%s%s",
                                     used ? ", " : "", changes[i].key);
        }
    }
    struct cs_sm_files files;
    if (load_files(r, &next->config, &files, &err) < 0) {
        cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGHUP: %s; keeping the running configuration",
                      err.msg);
    } else {
        char contents[128] = "";
        size_t cused = 0;
        for (int f = 0; f < CS_SM_FILE_COUNT; f++)
            if (cs_sm_files_differ(&r->files, &files, (enum cs_sm_file)f))
                cused += (size_t)snprintf(contents + cused, sizeof(contents) - cused, "%s%s",
                                          cused ? ", " : "", cs_sm_file_key((enum cs_sm_file)f));
        cloudsmd_logf(&r->log, CS_LOG_INFO, "SIGHUP: configuration read again; changed: %s%s%s",
                      used ? changed : "nothing", cused ? "; files changed: " : "", contents);
        apply_config(r, &next->config, &files, changes, n);
        cs_sm_files_free(&files);
    }
    cloudsmd_options_free(next);
    free(next);
}

/* Stay master until a signal: every sweep_interval seconds (and at once after a trap) a light
 * sweep asks the switches whether a port changed; if one did, a heavy sweep re-routes and
 * programs what changed. Between sweeps other SMs and SA clients are answered. */
static int serve(struct run *r)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    char path[CS_SM_CONTROL_PATH_MAX];
    struct cs_error err;
    if (cs_sm_control_path(r->cfg->state_dir, path, sizeof(path), &err) < 0 ||
        cs_sm_control_open(&r->control, path, &err) < 0)
        return fail_run(r, &err);
    r->control.log = r->sink;
    if (umad_sm_port_serve_sa(&r->port, answer_sa, r, &err) < 0)
        return fail_run(r, &err);
    if (settle(r, &err) < 0)
        return fail_run(r, &err);
    unsigned interval = r->cfg->sweep_interval;
    cloudsmd_logf(&r->log, CS_LOG_INFO,
                  "master SM on port 0x%016llx; light sweep every %u s%s; waiting for SIGTERM",
                  (unsigned long long)r->port.port_guid, interval,
                  interval ? "" : " (off: traps only)");
    double next_light = cs_clock_ms() + interval * 1000.0;
    bool retry = false; /* the last heavy sweep had failures: sweep again when due */
    while (!stop_requested && r->me.state == CS_SMP_SM_STATE_MASTER) {
        if (reload_requested) {
            reload_requested = 0;
            reload(r);
            interval = r->cfg->sweep_interval;
            next_light = cs_clock_ms() + interval * 1000.0;
        }
        if (cs_smp_pipe_idle(r->pipe, 100, &err) < 0 ||
            cs_sm_control_serve(&r->control, 0, on_control, r, &err) < 0)
            return fail_run(r, &err);
        int port_back = sm_port_back(r, &err);
        if (port_back < 0)
            return fail_run(r, &err);
        bool due = interval > 0 && cs_clock_ms() >= next_light;
        if (!due && !r->trap_seen && !port_back)
            continue;
        bool trapped = r->trap_seen;
        r->trap_seen = false;
        int master = cs_sm_elect(r->pipe, &r->sweep, &r->me, &r->sink, 0, NULL, &err);
        if (master < 0)
            return fail_run(r, &err);
        if (master == 0)
            break;
        int changed = cs_sm_light_sweep(r->pipe, &r->sweep, &r->sink, &err);
        if (changed < 0)
            return fail_run(r, &err);
        if (changed > 0 || trapped || retry || port_back) {
            cloudsmd_logf(&r->log, CS_LOG_INFO,
                          "%s; light sweep: %d switch%s changed or silent: heavy sweep",
                          port_back ? "SM port up again"
                          : trapped ? "trap received"
                          : retry   ? "last sweep failed"
                                    : "no trap",
                          changed, changed == 1 ? "" : "es");
            retry = sweep_and_program(r, false) != EXIT_OK; /* as OpenSM: until clean */
            if (settle(r, &err) < 0)
                return fail_run(r, &err);
        }
        next_light = cs_clock_ms() + interval * 1000.0;
    }
    if (r->me.state != CS_SMP_SM_STATE_MASTER) /* another SM won a sweep's election */
        return stepped_down(r, false);
    cloudsmd_logf(&r->log, CS_LOG_INFO, "signal %d: stopping", (int)stop_requested);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    struct cloudsmd_options opt;
    int rc = cloudsmd_options_parse(argc, argv, &opt, stdout, stderr);
    if (rc != EXIT_OK) {
        cloudsmd_options_free(&opt);
        return rc == CLOUDSMD_OPTIONS_HANDLED ? EXIT_OK : rc;
    }

    /* SIGHUP re-reads the configuration once the SM serves; until then it is only noted, and
     * never ends the process (its default action). */
    struct sigaction hup = {0};
    hup.sa_handler = on_hangup;
    hup.sa_flags = SA_RESTART; /* reads and writes go on; the loop's waits return early */
    sigaction(SIGHUP, &hup, NULL);
    struct run r = {.cfg = &opt.config,
                    .argc = argc,
                    .argv = argv,
                    .control = {.fd = -1},
                    .started_ms = cs_clock_ms()};
    snprintf(r.engine, sizeof(r.engine), "%s", opt.config.routing_engine);
    cs_sm_sweep_init(&r.sweep);
    struct cs_error err;
    if (cloudsmd_log_open(&r.log, opt.config.log_file, opt.config.log_level, &err) < 0) {
        fprintf(stderr, "cloudsmd: %s\n", err.msg);
        return EXIT_FAILED;
    }
    r.sink = cloudsmd_log_sink(&r.log);
    cloudsmd_log_config_warnings(&r.log, opt.config_path, &opt.warnings);
    /* Every file the configuration names is read, and the state directory checked, before the
     * port is opened: a bad one stops cloudsmd with its file:line and not one SMP sent. */
    if (load_files(&r, &opt.config, &r.files, &err) < 0 ||
        check_state_dir(&opt.config, opt.once, &err) < 0) {
        if (r.log.owned) /* the log is a file: say it where the operator looks too */
            fprintf(stderr, "cloudsmd: %s\n", err.msg);
        rc = fail_run(&r, &err);
        goto out;
    }

    if (umad_sm_port_open(&r.port, opt.config.port_guid, (int)opt.config.timeout_ms, &err) < 0) {
        rc = fail_run(&r, &err);
        goto out;
    }
    r.port_open = true;
    cloudsmd_logf(&r.log, CS_LOG_INFO,
                  "cloudsmd on %s port %d (port GUID 0x%016llx), engine %s, window %u",
                  r.port.ca_name, r.port.port_num, (unsigned long long)r.port.port_guid,
                  opt.config.routing_engine, opt.config.smp_window);
    struct cs_smp_transport transport = umad_sm_port_transport(&r.port);
    struct cs_smp_pipe_options popt = cs_sm_config_pipe_options(&opt.config);
    r.pipe = cs_smp_pipe_create(&transport, &popt, &err);
    if (r.pipe == NULL) {
        rc = fail_run(&r, &err);
        goto out;
    }
    r.me = (struct cs_sm_identity){.guid = r.port.port_guid,
                                   .sm_key = opt.config.sm_key,
                                   .m_key = opt.config.m_key,
                                   .priority = (uint8_t)opt.config.sm_priority,
                                   .state = CS_SMP_SM_STATE_DISCOVERING,
                                   .pipe = r.pipe};
    cs_smp_pipe_set_unsolicited(r.pipe, on_request, &r);

    rc = sweep_and_program(&r, true);
    if (!opt.once && rc == EXIT_OK)
        rc = serve(&r);
out:
    run_free(&r);
    cloudsmd_options_free(&opt);
    cloudsmd_log_close(&r.log);
    return rc;
}
