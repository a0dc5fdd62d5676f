/* cloudsmd: the cloudsm subnet manager. The SM itself is the library's core
 * (include/cloudsm/sm_core.h); this file holds the daemon around it: options, the log, signals,
 * the libibumad transport, the control socket and the loop that waits for them.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "../cloudsm/summary_print.h"
#include "cloudsm/clock.h"
#include "cloudsm/informs.h"
#include "cloudsm/json.h"
#include "cloudsm/lft_io.h"
#include "cloudsm/sm.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/sm_control.h"
#include "cloudsm/sm_core.h"
#include "cloudsm/summary.h"
#include "cloudsmd/console.h"
#include "cloudsmd/log.h"
#include "cloudsmd/options.h"
#include "cloudsmd/service.h"
#include "cloudsmd/umad_port.h"
#include "cloudsmd/vm_requests.h"

static volatile sig_atomic_t stop_requested, reload_requested, reopen_requested;

static void on_signal(int sig)
{
    stop_requested = sig;
}

static void on_hangup(int sig)
{
    (void)sig;
    reload_requested = 1;
}

static void on_usr1(int sig)
{
    (void)sig;
    reopen_requested = 1;
}

/* From the start, so that no signal meant for a running cloudsmd ends it in any phase (before
 * it serves, during the first sweep, while not master): SIGHUP (reload) and SIGUSR1 (reopen
 * the log) are noted and acted on once it serves; SIGTERM and SIGINT stop it at the next point
 * where it can stop cleanly; SIGPIPE is ignored (a log on a pipe or on the journal's stream
 * whose reader went away is an error on write, not the end of the SM). */
static void install_signal_handlers(void)
{
    struct sigaction keep_going = {0};
    keep_going.sa_flags = SA_RESTART; /* reads and writes go on; the loop's waits return early */
    keep_going.sa_handler = on_hangup;
    sigaction(SIGHUP, &keep_going, NULL);
    keep_going.sa_handler = on_usr1;
    sigaction(SIGUSR1, &keep_going, NULL);
    struct sigaction stop = {0};
    stop.sa_handler = on_signal;
    sigaction(SIGTERM, &stop, NULL);
    sigaction(SIGINT, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Everything one run holds, freed in one place: the SM core and what the daemon adds to it. */
struct run {
    struct cs_sm_core core;
    bool core_ready;
    int argc; /* the command line, parsed again on SIGHUP */
    char **argv;
    struct cloudsmd_log log;
    struct cs_log sink;
    struct umad_sm_port port;
    bool port_open;
    struct cs_smp_pipe *pipe;
    struct cs_sm_control control;
    struct cloudsmd_vm_queue vm_requests; /* VM operations waiting for their turn */
    struct cloudsmd_service service;      /* --daemon, --pid-file, systemd notifications */
    char status[128];                     /* the STATUS systemd was last told */
};

/* What systemd shows as the service's status: the SM's state, its fabric and engine. */
static void format_status(const struct run *r, char *buf, size_t size)
{
    snprintf(buf, size, "%s SM, %u nodes, routing %s", cs_sm_state_name(r->core.me.state),
             r->core.sweep.fabric.num_nodes, r->core.route.engine);
}

/* A sweep, a takeover or a stand-by changed what format_status says: systemd is told. */
static void update_status(struct run *r)
{
    char now[sizeof r->status];
    format_status(r, now, sizeof now);
    if (strcmp(now, r->status) == 0)
        return;
    memcpy(r->status, now, sizeof now);
    cloudsmd_notify("STATUS=%s", now);
}

static void run_free(struct run *r)
{
    if (r->core_ready)
        cs_sm_core_free(&r->core);
    cloudsmd_vm_queue_abort(&r->vm_requests, &r->control, "cloudsmd is stopping");
    cloudsmd_vm_queue_free(&r->vm_requests);
    cs_sm_control_close(&r->control);
    cs_smp_pipe_destroy(r->pipe);
    if (r->port_open)
        umad_sm_port_leave(&r->port); /* the process ends next: see leave() */
}

/* The end of the process, without the exit handlers of the libraries it loaded: everything
 * cloudsmd owns is closed or written by now (logs, state files, the pid file, IsSM), and the
 * kernel releases the rest. ibsim's libumad2sim, preloaded in the tests, has an exit handler
 * that can deadlock against its own reader thread (it joins the thread while the thread waits
 * for a lock): a subnet manager must not hang on its way out. Under the sanitizers the leak
 * check that would have run at exit runs first. */
static _Noreturn void leave(int rc)
{
    fflush(NULL);
#if defined(__SANITIZE_ADDRESS__)
    __lsan_do_leak_check();
#endif
    _exit(rc);
}

static int fail_run(struct run *r, const struct cs_error *err)
{
    cloudsmd_logf(&r->log, CS_LOG_ERROR, "%s", err->msg);
    return EXIT_FAILED;
}

/* One SA request from the umad transport (umad_port.h): the reply, or NULL to send nothing. */
static const uint8_t *answer_sa(void *arg, const uint8_t *mad, size_t len,
                                const struct cs_sa_address *from, size_t *reply_len)
{
    struct run *r = arg;
    return cs_sm_core_answer_sa(&r->core, from, mad, len, reply_len);
}

/* -o and another SM won the election: there is no standby to stay in. */
static int stepped_down(struct run *r)
{
    cloudsmd_logf(&r->log, CS_LOG_ERROR,
                  "not master: exiting without programming the fabric (-o runs no standby)");
    return EXIT_FAILED;
}

static void reply_status(struct run *r, bool as_json, FILE *out)
{
    const struct cs_fabric *f = &r->core.sweep.fabric;
    struct cs_fabric_summary sum;
    struct cs_error err;
    if (cs_fabric_summarize(f, 0, &sum, &err) < 0)
        memset(&sum, 0, sizeof(sum));
    double now = cs_clock_ms();
    uint16_t lid = f->num_port_slots ? f->ports[r->core.sweep.sm_port].lid : 0;
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "state", cs_sm_state_name(r->core.me.state));
        cs_json_u64(&j, "priority", r->core.me.priority);
        cs_json_bool(&j, "light_sweeps", !r->core.sweeping_off);
        cs_json_u64(&j, "subscriptions", r->core.informs ? cs_informs_count(r->core.informs) : 0);
        cs_json_u64(&j, "reports_sent", r->core.reports_sent);
        cs_json_u64(&j, "reports_lost", r->core.reports_lost);
        if (r->core.me.state != CS_SMP_SM_STATE_MASTER && r->core.me.master_guid != 0)
            cs_json_guid(&j, "master_guid", r->core.me.master_guid);
        cs_json_u64(&j, "takeovers", r->core.takeovers);
        cs_json_guid(&j, "port_guid", r->port.port_guid);
        cs_json_u64(&j, "lid", lid);
        cs_json_double(&j, "uptime_s", (now - r->core.started_ms) / 1000.0);
        cs_json_u64(&j, "sweeps", r->core.sweeps);
        cs_json_double(&j, "last_sweep_ago_s", (now - r->core.last_sweep_ms) / 1000.0);
        cs_json_double(&j, "last_sweep_ms", r->core.last_sweep_took_ms);
        cs_json_u64(&j, "last_sweep_smps", r->core.last_sweep_smps);
        cs_json_u64(&j, "last_sweep_failures", (uint64_t)r->core.last_sweep_failures);
        cs_json_bool(&j, "sm_port_down", r->core.sm_port_down_ms != 0);
        if (r->core.sm_port_down_ms != 0)
            cs_json_double(&j, "sm_port_down_s", (now - r->core.sm_port_down_ms) / 1000.0);
        cs_json_u64(&j, "nodes", f->num_nodes);
        cs_json_u64(&j, "switches", sum.switches);
        cs_json_u64(&j, "cas", sum.cas);
        cs_json_u64(&j, "links", sum.links);
        cs_json_str(&j, "engine_requested", r->core.route.requested);
        cs_json_str(&j, "engine", r->core.route.engine);
        cs_json_bool(&j, "fell_back", r->core.route.fell_back);
        if (r->core.route.fell_back)
            cs_json_str(&j, "fallback_reason", r->core.route.fallback_reason);
        cs_json_u64(&j, "sa_requests", r->port.sa_requests);
        cs_json_str(&j, "vm_lid_policy", cs_lid_policy_name(cs_sm_core_vm_policy(&r->core)));
        cs_json_u64(&j, "hypervisors", r->core.hyps.count);
        cs_json_u64(&j, "vms", cs_sm_core_vms(&r->core)->count);
        cs_json_u64(&j, "vm_operations", r->core.vm_ops);
        cs_json_u64(&j, "vm_batches", r->core.vm_batches);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return;
    }
    fprintf(out, "state           %s on port 0x%016llx, LID %u, priority %u\n",
            cs_sm_state_name(r->core.me.state), (unsigned long long)r->port.port_guid, lid,
            r->core.me.priority);
    if (r->core.me.state != CS_SMP_SM_STATE_MASTER && r->core.me.master_guid != 0)
        fprintf(out, "master          0x%016llx (polled every %u ms)\n",
                (unsigned long long)r->core.me.master_guid, r->core.cfg.sminfo_polling_timeout_ms);
    fprintf(out, "uptime          %.0f s, %u heavy sweep%s\n", (now - r->core.started_ms) / 1000.0,
            r->core.sweeps, r->core.sweeps == 1 ? "" : "s");
    fprintf(out, "last sweep      %.1f s ago, took %.1f ms, %llu SMPs, %d failure%s\n",
            (now - r->core.last_sweep_ms) / 1000.0, r->core.last_sweep_took_ms,
            (unsigned long long)r->core.last_sweep_smps, r->core.last_sweep_failures,
            r->core.last_sweep_failures == 1 ? "" : "s");
    if (r->core.sweeping_off)
        fprintf(out, "light sweeps    off (sweep off): traps and resweeps still sweep\n");
    if (r->core.sm_port_down_ms != 0)
        fprintf(out, "SM port         down since %.1f s ago: keeping the last fabric view\n",
                (now - r->core.sm_port_down_ms) / 1000.0);
    fprintf(out, "fabric          %u nodes (%u switches, %u CAs), %u links\n", f->num_nodes,
            sum.switches, sum.cas, sum.links);
    fprintf(out, "routing         %s", r->core.route.engine);
    if (r->core.route.fell_back)
        fprintf(out, " (asked for %s: %s)", r->core.route.requested, r->core.route.fallback_reason);
    fprintf(out, "\nSA requests     %llu\n", (unsigned long long)r->port.sa_requests);
    if (r->core.informs && cs_informs_count(r->core.informs))
        fprintf(out, "subscriptions   %u; %llu Reports sent, %llu acknowledged, %llu lost\n",
                cs_informs_count(r->core.informs), (unsigned long long)r->core.reports_sent,
                (unsigned long long)r->core.reports_acknowledged,
                (unsigned long long)r->core.reports_lost);
    if (r->core.hyps.count)
        fprintf(out, "VMs             %u on %u hypervisors (%s LIDs), %llu operations\n",
                cs_sm_core_vms(&r->core)->count, r->core.hyps.count,
                cs_lid_policy_name(cs_sm_core_vm_policy(&r->core)),
                (unsigned long long)r->core.vm_ops);
}

/* The adaptation loop's state (adapt): its mode and where it comes from, the hour's SMPs, and
 * each rule's status at the last step. */
static void reply_adapt(struct run *r, bool as_json, FILE *out)
{
    const struct cs_sm_core *c = &r->core;
    const struct cs_adapt_rules *rules = c->files.adapt_rules;
    enum cs_adapt_mode mode = cs_sm_core_adapt_mode(c);
    const char *source = c->adapt_mode_override >= 0 ? "control socket" : "configuration";
    uint64_t used = cs_adapt_budget_used(&c->adapt_budget, c->wall_clock());
    uint32_t n = rules ? cs_adapt_rule_count(rules) : 0;
    bool stepped = rules != NULL && c->adapt_rules == rules;
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "mode", cs_adapt_mode_name(mode));
        cs_json_str(&j, "mode_from", source);
        cs_json_str(&j, "rules_file", c->cfg.adapt_rules_file);
        cs_json_bool(&j, "perfmgr", c->cfg.perfmgr);
        cs_json_u64(&j, "polls", c->perf.polls);
        cs_json_u64(&j, "firings", c->adapt_firings);
        cs_json_u64(&j, "executed", c->adapt_executed);
        cs_json_u64(&j, "lft_smps_last_hour", used);
        cs_json_array_begin(&j, "rules");
        for (uint32_t i = 0; i < n; i++) {
            struct cs_adapt_rule_info info;
            cs_adapt_rule_get(rules, i, &info);
            cs_json_object_begin(&j, NULL);
            cs_json_str(&j, "name", info.name);
            cs_json_u64(&j, "priority", (uint64_t)info.priority);
            if (stepped) {
                const struct cs_adapt_rule_state *st = &c->adapt.rules[i];
                cs_json_str(&j, "status", cs_adapt_status_name(st->status));
                cs_json_u64(&j, "fired", st->fired);
                cs_json_u64(&j, "executed", st->executed);
                cs_json_u64(&j, "refused", st->refused);
                cs_json_str(&j, "explanation", st->explanation);
            }
            cs_json_object_end(&j);
        }
        cs_json_array_end(&j);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return;
    }
    fprintf(out, "mode            %s (from the %s)\n", cs_adapt_mode_name(mode), source);
    fprintf(out, "rules           %s\n",
            rules ? c->cfg.adapt_rules_file : "none (adapt_rules_file is not set)");
    fprintf(out, "monitor         %s, %llu polls\n", c->cfg.perfmgr ? "on" : "off (perfmgr FALSE)",
            (unsigned long long)c->perf.polls);
    fprintf(out, "decisions       %llu firings, %llu carried out; %llu LFT SMPs in the last hour\n",
            (unsigned long long)c->adapt_firings, (unsigned long long)c->adapt_executed,
            (unsigned long long)used);
    for (uint32_t i = 0; i < n; i++) {
        struct cs_adapt_rule_info info;
        cs_adapt_rule_get(rules, i, &info);
        if (!stepped) {
            fprintf(out, "rule %-20s not evaluated yet\n", info.name);
            continue;
        }
        const struct cs_adapt_rule_state *st = &c->adapt.rules[i];
        fprintf(out, "rule %-20s %-9s fired %u, executed %u, refused %u: %s\n", info.name,
                cs_adapt_status_name(st->status), st->fired, st->executed, st->refused,
                st->explanation);
    }
}

/* The control socket's commands (include/cloudsm/sm_control.h, docs/sm/control.md). */
static int on_control(void *arg, const struct cs_sm_request *req, FILE *out, struct cs_error *err)
{
    struct run *r = arg;
    if (cloudsmd_console_handles(req)) /* OpenSM's console commands: console.c */
        return cloudsmd_console_serve(&r->core, &r->log, req, out, err);
    switch (req->command) {
    case CS_SM_CMD_STATUS:
        reply_status(r, req->json, out);
        return 0;
    case CS_SM_CMD_TOPOLOGY: {
        struct cs_fabric_summary sum;
        if (cs_fabric_summarize(&r->core.sweep.fabric, 0, &sum, err) < 0)
            return -1;
        summary_print(out, "live fabric", &sum, 0, req->json);
        return 0;
    }
    case CS_SM_CMD_LFTS:
        if (req->json)
            return cs_fail(err, "lfts has no JSON form: it is an opensm-lfts.dump");
        return cs_lfts_write(out, &r->core.lfts, CS_LFT_FORMAT_OSM, err);
    case CS_SM_CMD_REROUTE: {
        const struct cs_sm_reroute_args *ra = &req->reroute;
        struct cs_sm_reroute_request rq = {
            .engine = req->argv[0],
            .subtree = ra->subtree,
            .num_subtree = ra->num_subtree,
            .order_file = ra->order_arg ? req->argv[ra->order_arg] + 6 : NULL,
        };
        struct cs_sm_reconfig rc;
        if (cs_sm_core_reroute(&r->core, &rq, &rc, err) < 0)
            return -1;
        const struct cs_route_stats *st = &r->core.route;
        if (req->json) {
            struct cs_json j;
            cs_json_init(&j, out);
            cs_json_object_begin(&j, NULL);
            cs_json_str(&j, "engine_requested", st->requested);
            cs_json_str(&j, "engine", st->engine);
            cs_json_bool(&j, "fell_back", st->fell_back);
            cs_json_u64(&j, "subtree_switches", rc.subtree_switches);
            cs_json_u64(&j, "paths_changed", rc.paths_changed);
            cs_json_u64(&j, "entries_changed", rc.entries_changed);
            cs_json_u64(&j, "blocks_sent", rc.lc.blocks_sent);
            cs_json_u64(&j, "blocks_read", rc.lc.blocks_read);
            cs_json_u64(&j, "failures", rc.lc.failures);
            cs_json_double(&j, "build_ms", rc.build_ms);
            cs_json_bool(&j, "build_kept", rc.build_kept);
            cs_json_double(&j, "route_ms", rc.route_ms);
            cs_json_double(&j, "distribute_ms", rc.distribute_ms);
            cs_json_double(&j, "predicted_distribute_ms", rc.predicted_ms);
            cs_json_object_end(&j);
            cs_json_finish(&j);
        } else {
            char scope[48] = "";
            if (rc.subtree_switches)
                snprintf(scope, sizeof scope, " (a sub-tree of %u switches)", rc.subtree_switches);
            fprintf(
                out,
                "routed with %s%s%s%s%s: %llu paths changed, %llu LFT entries, %llu LFT "
                "blocks sent, %u failures\n"
                "build %.1f ms%s, route %.1f ms, distribute %.1f ms (Eq. 1 predicted %.1f ms)\n",
                st->engine, scope, st->fell_back ? " (fell back: " : "",
                st->fell_back ? st->fallback_reason : "", st->fell_back ? ")" : "",
                (unsigned long long)rc.paths_changed, (unsigned long long)rc.entries_changed,
                (unsigned long long)rc.lc.blocks_sent, rc.lc.failures, rc.build_ms,
                rc.build_kept ? " (kept)" : "", rc.route_ms - rc.build_ms, rc.distribute_ms,
                rc.predicted_ms);
        }
        return 0;
    }
    case CS_SM_CMD_ADAPT:
        if (req->adapt_mode >= 0) {
            cloudsmd_logf(&r->log, CS_LOG_INFO, "adapt: mode %s from now on (control socket)",
                          cs_adapt_mode_name((enum cs_adapt_mode)req->adapt_mode));
            r->core.adapt_mode_override = req->adapt_mode;
        }
        reply_adapt(r, req->json, out);
        return 0;
    case CS_SM_CMD_LOG_LEVEL: {
        enum cs_log_level old = r->log.level;
        r->log.level = req->log_level;
        if (req->json) {
            struct cs_json j;
            cs_json_init(&j, out);
            cs_json_object_begin(&j, NULL);
            cs_json_str(&j, "old", cs_log_level_name(old));
            cs_json_str(&j, "new", cs_log_level_name(req->log_level));
            cs_json_object_end(&j);
            cs_json_finish(&j);
        } else {
            fprintf(out, "log level %s -> %s\n", cs_log_level_name(old),
                    cs_log_level_name(req->log_level));
        }
        return 0;
    }
    case CS_SM_CMD_SWEEP: {
        if (r->core.me.state != CS_SMP_SM_STATE_MASTER)
            return cs_fail(err, "not master (%s): the master sweeps",
                           cs_sm_state_name(r->core.me.state));
        int failures = cs_sm_core_sweep(&r->core, false, err);
        if (failures < 0 && r->core.sweep.fabric.num_nodes == 0)
            return -1;
        if (failures < 0)
            cloudsmd_logf(&r->log, CS_LOG_ERROR, "sweep: %s", err->msg);
        reply_status(r, req->json, out);
        return 0;
    }
    case CS_SM_CMD_VM_LIST:
        cloudsmd_vm_list(&r->core, req->json, out);
        return 0;
    case CS_SM_CMD_VM_CREATE:
    case CS_SM_CMD_VM_MIGRATE:
    case CS_SM_CMD_VM_DESTROY:
        /* Answered when done (the loop runs the queue right after this pass). */
        return cloudsmd_vm_queue_add(&r->vm_requests, req, err) < 0 ? -1 : 1;
    case CS_SM_CMD_PRIORITY: /* served above */
    case CS_SM_CMD_RESWEEP:
    case CS_SM_CMD_QUERYLID:
    case CS_SM_CMD_PORTSTATUS:
    case CS_SM_CMD_LIDBALANCE:
    case CS_SM_CMD_COUNT:
        break;
    }
    return cs_fail(err, "unknown command");
}

static void reload_configuration(struct run *r);

/* SIGHUP, as OpenSM: reopen the log file (logrotate), read the configuration again from the
 * same command line (flags still win over the file), read the files it names, and apply what
 * changed. A configuration or file that does not load is logged and the running one kept; a
 * key that needs a restart keeps its running value, with a warning. */
static void reload(struct run *r)
{
    cloudsmd_notify("RELOADING=1\nSTATUS=reading the configuration again (SIGHUP)");
    reload_configuration(r);
    format_status(r, r->status, sizeof r->status);
    cloudsmd_notify("READY=1\nSTATUS=%s", r->status);
}

static void reload_configuration(struct run *r)
{
    struct cs_error err;
    const struct cs_sm_config *running = &r->core.cfg;
    struct cloudsmd_options *next = calloc(1, sizeof(*next));
    bool parsed = next && cloudsmd_options_reparse(r->argc, r->argv, next, &err) == 0;
    if (!next)
        snprintf(err.msg, sizeof(err.msg), "out of memory");
    struct cs_error log_err;
    if (cloudsmd_log_reopen(&r->log, parsed ? next->config.log_file : running->log_file, &log_err) <
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
    unsigned n = cs_sm_config_diff(running, &next->config, changes);
    char changed[1024] = "";
    size_t used = 0;
    for (unsigned i = 0; i < n; i++) {
        if (changes[i].how == CS_SM_CONFIG_RESTART) {
            char value[128];
            cs_sm_config_format_value(running, changes[i].key, value, sizeof(value));
            cloudsmd_logf(&r->log, CS_LOG_WARN, "SIGHUP: %s needs a restart; keeping %s until then",
                          changes[i].key, value);
            cs_sm_config_copy_key(&next->config, running, changes[i].key);
        } else if (used < sizeof(changed)) {
            used += (size_t)snprintf(changed + used, sizeof(changed) - used, "%s%s",
                                     used ? ", " : "", changes[i].key);
        }
    }
    struct cs_sm_files files;
    if (cs_sm_core_load_files(&next->config, &files, &r->sink, &err) < 0) {
        cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGHUP: %s; keeping the running configuration",
                      err.msg);
    } else {
        char contents[128] = "";
        size_t cused = 0;
        for (int f = 0; f < CS_SM_FILE_COUNT; f++)
            if (cs_sm_files_differ(&r->core.files, &files, (enum cs_sm_file)f))
                cused += (size_t)snprintf(contents + cused, sizeof(contents) - cused, "%s%s",
                                          cused ? ", " : "", cs_sm_file_key((enum cs_sm_file)f));
        cloudsmd_logf(&r->log, CS_LOG_INFO, "SIGHUP: configuration read again; changed: %s%s%s",
                      used ? changed : "nothing", cused ? "; files changed: " : "", contents);
        if (cs_sm_config_changed(changes, n, "log_level"))
            r->log.level = next->config.log_level;
        struct cs_sm_core_reconfigured done;
        if (cs_sm_core_reconfigure(&r->core, &next->config, &files, changes, n, &done, &err) < 0)
            cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGHUP: %s", err.msg);
        else if (done.rerouted)
            cloudsmd_logf(&r->log, CS_LOG_INFO, "SIGHUP: routed with %s, %llu LFT blocks sent",
                          r->core.route.engine, (unsigned long long)done.blocks_sent);
        cs_sm_files_free(&files);
    }
    cloudsmd_options_free(next);
    free(next);
}

/* A clean stop: what the switches hold, so that the next start keeps it (sm_core.h). */
static int save_tables(struct run *r)
{
    struct cs_error err;
    if (cs_sm_core_vm_settle(&r->core, &err) < 0 || cs_sm_core_save_tables(&r->core, &err) < 0)
        return fail_run(r, &err);
    return EXIT_OK;
}

/* The loop waits for MADs (SMInfo, traps, SA requests) this long at a time, then looks at the
 * control socket without waiting. One poll() over both would be better, but ibsim's umad2sim,
 * which stands in for the kernel in every test, waits on its own descriptor alone when one is
 * in the set; so a control request waits at most this long for its turn. */
#define IDLE_SLICE_MS 1

/* Serve until a signal. As master: every sweep_interval seconds (and at once after a trap) a
 * light sweep asks the switches whether a port changed; if one did, a heavy sweep re-routes and
 * programs what changed. As standby: poll the master, and take over when it is gone or hands
 * over (both cs_sm_core_poll). Between turns other SMs, SA clients and the control socket are
 * answered. */
static int serve(struct run *r)
{
    char path[CS_SM_CONTROL_PATH_MAX];
    struct cs_error err;
    if (cs_sm_control_path(r->core.cfg.state_dir, path, sizeof(path), &err) < 0 ||
        cs_sm_control_open(&r->control, path, &err) < 0)
        return fail_run(r, &err);
    r->control.log = r->sink;
    if (umad_sm_port_serve_sa(&r->port, answer_sa, r, &err) < 0)
        return fail_run(r, &err);
    if (cs_sm_core_serve_begin(&r->core, &err) < 0)
        return fail_run(r, &err);
    unsigned interval = r->core.cfg.sweep_interval;
    cloudsmd_logf(&r->log, CS_LOG_INFO,
                  "%s SM on port 0x%016llx; light sweep every %u s%s; waiting for SIGTERM",
                  cs_sm_state_name(r->core.me.state), (unsigned long long)r->port.port_guid,
                  interval, interval ? "" : " (off: traps only)");
    format_status(r, r->status, sizeof r->status);
    cloudsmd_service_ready(&r->service, r->status);
    while (!stop_requested) {
        if (reopen_requested) { /* logrotate: the file moved away; a new one in its place */
            reopen_requested = 0;
            struct cs_error log_err;
            if (cloudsmd_log_reopen(&r->log, r->core.cfg.log_file, &log_err) < 0)
                cloudsmd_logf(&r->log, CS_LOG_ERROR, "SIGUSR1: %s (logging on where it was)",
                              log_err.msg);
            else
                cloudsmd_logf(&r->log, CS_LOG_INFO, "SIGUSR1: log reopened");
        }
        if (reload_requested) {
            reload_requested = 0;
            reload(r);
            r->core.next_light_ms = cs_clock_ms() + r->core.cfg.sweep_interval * 1000.0;
        }
        if (cs_smp_pipe_idle(r->pipe, IDLE_SLICE_MS, &err) < 0 ||
            cs_sm_control_serve(&r->control, 0, on_control, r, &err) < 0)
            return fail_run(r, &err);
        cloudsmd_vm_queue_run(&r->vm_requests, &r->core, &r->control);
        if (cs_sm_core_poll(&r->core, &err) < 0)
            return fail_run(r, &err);
        update_status(r);
    }
    cloudsmd_logf(&r->log, CS_LOG_INFO, "signal %d: stopping", (int)stop_requested);
    cloudsmd_notify("STOPPING=1\nSTATUS=stopping (signal %d)", (int)stop_requested);
    return save_tables(r);
}

/* --daemon and --pid-file, once the files are known good and before the port is opened; the
 * first STATUS for systemd. */
static int start_service(struct run *r, const struct cloudsmd_options *opt, struct cs_error *err)
{
    if (opt->daemon) {
        if (!r->log.owned)
            fprintf(stderr, "cloudsmd: --daemon without --log-file: the log is lost once "
                            "cloudsmd serves\n");
        if (cloudsmd_daemonize(&r->service, err) < 0)
            return -1;
    }
    if (opt->pid_file[0] && cloudsmd_pid_file_write(&r->service, opt->pid_file, err) < 0)
        return -1;
    cloudsmd_notify("STATUS=sweeping the fabric (bring-up)");
    return 0;
}

int main(int argc, char **argv)
{
    struct cloudsmd_options opt;
    int rc = cloudsmd_options_parse(argc, argv, &opt, stdout, stderr);
    if (rc != EXIT_OK) {
        cloudsmd_options_free(&opt);
        return rc == CLOUDSMD_OPTIONS_HANDLED ? EXIT_OK : rc;
    }

    install_signal_handlers();
    struct run r = {.argc = argc, .argv = argv, .control = {.fd = -1}, .service = {.ready_fd = -1}};
    struct cs_error err;
    if (cloudsmd_log_open(&r.log, opt.config.log_file, opt.config.log_level, &err) < 0) {
        fprintf(stderr, "cloudsmd: %s\n", err.msg);
        return EXIT_FAILED;
    }
    r.sink = cloudsmd_log_sink(&r.log);
    cloudsmd_log_config_warnings(&r.log, opt.config_path, &opt.warnings);
    /* Every file the configuration names is read, and the state directory checked, before the
     * port is opened: a bad one stops cloudsmd with its file:line and not one SMP sent. */
    struct cs_sm_files files;
    memset(&files, 0, sizeof files);
    if (cs_sm_core_load_files(&opt.config, &files, &r.sink, &err) < 0 ||
        cs_sm_core_check_state_dir(&opt.config, opt.once, &err) < 0) {
        if (r.log.owned) /* the log is a file: say it where the operator looks too */
            fprintf(stderr, "cloudsmd: %s\n", err.msg);
        rc = fail_run(&r, &err);
        goto out;
    }
    if (start_service(&r, &opt, &err) < 0) {
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
    cs_sm_core_init(&r.core, &opt.config, &files, r.pipe, r.port.port_guid, &r.sink);
    r.core_ready = true;

    int failures = cs_sm_core_sweep(&r.core, true, &err);
    if (failures < 0)
        rc = fail_run(&r, &err);
    else if (opt.once && r.core.me.state != CS_SMP_SM_STATE_MASTER)
        rc = stepped_down(&r);
    else
        rc = failures ? EXIT_FAILED : EXIT_OK;
    if (stop_requested && rc == EXIT_OK) /* SIGTERM during the first sweep */
        cloudsmd_logf(&r.log, CS_LOG_INFO, "signal %d during the bring-up: stopping",
                      (int)stop_requested);
    if (!opt.once && rc == EXIT_OK && !stop_requested)
        rc = serve(&r);
    else if (rc == EXIT_OK)
        rc = save_tables(&r);
out:
    cloudsmd_pid_file_remove(&r.service);
    cs_sm_files_free(&files);
    run_free(&r);
    cloudsmd_options_free(&opt);
    cloudsmd_log_close(&r.log);
    leave(rc);
}
