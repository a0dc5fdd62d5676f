/* cloudsmd: the cloudsm subnet manager.
 *
 * One run: open the SM port, sweep the fabric, make sure no other master SM is running, give
 * every port a LID (keeping the ones in the state directory's guid2lid), route with the chosen
 * engine, and program the fabric: PortInfo, LinearFDBTop, the LFT blocks that differ, port states
 * to ACTIVE. With -o that is all; otherwise cloudsmd stays master and answers other SMs until
 * SIGTERM/SIGINT (sweeps, SA and the control socket come with the services issue).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cloudsm/guid_list.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/sm.h"
#include "cloudsm/sm_config.h"
#include "cloudsmd/log.h"
#include "cloudsmd/options.h"
#include "cloudsmd/umad_port.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    stop_requested = sig;
}

/* Everything one run holds, freed in one place. */
struct run {
    const struct cs_sm_config *cfg;
    struct cloudsmd_log log;
    struct cs_sm_log sink;
    struct umad_sm_port port;
    bool port_open;
    struct cs_smp_pipe *pipe;
    struct cs_sm_identity me;
    struct cs_sm_sweep sweep;
    struct cs_guid2lid guid2lid;
    struct cs_lfts lfts;
    struct cs_guid_list roots, cns;
    char guid2lid_path[CS_SM_CONFIG_PATH_MAX + 16];
};

static void run_free(struct run *r)
{
    cs_lfts_free(&r->lfts);
    cs_guid2lid_free(&r->guid2lid);
    cs_guid_list_free(&r->roots);
    cs_guid_list_free(&r->cns);
    cs_sm_sweep_free(&r->sweep);
    cs_smp_pipe_destroy(r->pipe);
    if (r->port_open)
        umad_sm_port_close(&r->port);
}

static int fail_run(struct run *r, const struct cs_error *err)
{
    cloudsmd_logf(&r->log, CS_SM_LOG_ERROR, "%s", err->msg);
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
    struct stat st;
    if (stat(r->guid2lid_path, &st) < 0) {
        cloudsmd_logf(&r->log, CS_SM_LOG_INFO, "no %s: every LID is new", r->guid2lid_path);
        return 0;
    }
    struct cs_error why;
    if (cs_guid2lid_read(&r->guid2lid, r->guid2lid_path, &why) == 0) {
        cloudsmd_logf(&r->log, CS_SM_LOG_INFO, "%s: %u LIDs to keep", r->guid2lid_path,
                      r->guid2lid.count);
        return 0;
    }
    char bad[sizeof(r->guid2lid_path) + 4];
    snprintf(bad, sizeof(bad), "%s.bad", r->guid2lid_path);
    rename(r->guid2lid_path, bad);
    cs_guid2lid_free(&r->guid2lid);
    cloudsmd_logf(&r->log, CS_SM_LOG_WARN, "%s (moved to %s; assigning LIDs afresh)", why.msg, bad);
    return 0;
}

static int route(struct run *r, struct cs_error *err)
{
    const struct cs_sm_config *c = r->cfg;
    if ((c->root_guid_file[0] && cs_guid_list_read(&r->roots, c->root_guid_file, err) < 0) ||
        (c->cn_guid_file[0] && cs_guid_list_read(&r->cns, c->cn_guid_file, err) < 0))
        return -1;
    struct cs_route_options ropt = {
        .root_guids = c->root_guid_file[0] ? &r->roots : NULL,
        .cn_guids = c->cn_guid_file[0] ? &r->cns : NULL,
        .connect_roots = c->connect_roots,
    };
    struct cs_route_stats st;
    if (cs_route(c->routing_engine, &r->sweep.fabric, &ropt, &r->lfts, &st, err) < 0)
        return -1;
    if (st.fell_back)
        cloudsmd_logf(&r->log, CS_SM_LOG_WARN, "route: %s is not suitable (%s); routed with %s",
                      st.requested, st.fallback_reason, st.engine);
    cloudsmd_logf(&r->log, CS_SM_LOG_INFO,
                  "route: %s tables for %u switches, LIDs 1..%u (engine %.1f ms)", st.engine,
                  st.switches, st.max_lid, st.route_ms);
    return 0;
}

/* Discover, elect, assign, route, program. Returns an exit code. */
static int bring_up(struct run *r)
{
    struct cs_error err;
    struct cloudsmd_phase all, ph;
    cloudsmd_phase_begin(&all, "subnet up", r->pipe);

    cloudsmd_phase_begin(&ph, "discover", r->pipe);
    if (cs_sm_discover(r->pipe, &r->sink, &r->sweep, &err) < 0)
        return fail_run(r, &err);
    const struct cs_fabric *f = &r->sweep.fabric;
    uint32_t switches = 0, links = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        switches += cs_node_is_switch(&f->nodes[n]);
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        links += f->ports[p].peer != CS_NONE && f->ports[p].peer > p;
    cloudsmd_logf(&r->log, r->sweep.problems ? CS_SM_LOG_WARN : CS_SM_LOG_INFO,
                  "discover: %u nodes (%u switches, %u CAs), %u links, %u problem%s", f->num_nodes,
                  switches, f->num_nodes - switches, links, r->sweep.problems,
                  r->sweep.problems == 1 ? "" : "s");
    cloudsmd_phase_end(&r->log, &ph);

    uint64_t master = 0;
    int other = cs_sm_find_master(r->pipe, &r->sweep, &r->sink, &master, &err);
    if (other < 0)
        return fail_run(r, &err);
    if (other > 0) {
        cloudsmd_logf(&r->log, CS_SM_LOG_ERROR,
                      "another master SM is running (port GUID 0x%016llx): refusing to become "
                      "a second master; stop it first (standby mode comes later)",
                      (unsigned long long)master);
        return EXIT_FAILED;
    }
    r->me.state = CS_SMP_SM_STATE_MASTER;

    cloudsmd_phase_begin(&ph, "lids", r->pipe);
    if (load_guid2lid(r, &err) < 0)
        return fail_run(r, &err);
    int changed = cs_sm_assign_lids(&r->sweep, &r->guid2lid, &r->sink, &err);
    if (changed < 0)
        return fail_run(r, &err);
    cs_guid2lid_free(&r->guid2lid);
    if (cs_guid2lid_from_fabric(&r->guid2lid, f, &err) < 0 ||
        cs_guid2lid_write_file(r->guid2lid_path, &r->guid2lid, &err) < 0)
        return fail_run(r, &err);
    uint16_t sm_lid = f->ports[r->sweep.sm_port].lid;
    cloudsmd_logf(&r->log, CS_SM_LOG_INFO, "lids: %u ports, %d new or changed, SM LID %u",
                  r->guid2lid.count, changed, sm_lid);
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

    cloudsmd_phase_begin(&ph, "route", NULL);
    if (route(r, &err) < 0)
        return fail_run(r, &err);
    cloudsmd_phase_end(&r->log, &ph);

    cloudsmd_phase_begin(&ph, "lfts", r->pipe);
    struct cs_sm_lft_counts lc;
    if (cs_sm_program_lfts(r->pipe, &r->sweep, &r->lfts, NULL, &r->sink, &lc, &err) < 0)
        return fail_run(r, &err);
    failures += (int)lc.failures;
    cloudsmd_logf(&r->log, CS_SM_LOG_INFO,
                  "lfts: %llu blocks read back, %llu blocks sent, %llu LinearFDBTop sets",
                  (unsigned long long)lc.blocks_read, (unsigned long long)lc.blocks_sent,
                  (unsigned long long)lc.switch_info_sets);
    cloudsmd_phase_end(&r->log, &ph);

    cloudsmd_phase_begin(&ph, "activate", r->pipe);
    unsigned activated = 0;
    int act = cs_sm_activate(r->pipe, &r->sweep, &r->sink, &activated, &err);
    if (act < 0)
        return fail_run(r, &err);
    failures += act;
    cloudsmd_logf(&r->log, CS_SM_LOG_INFO, "activate: %u ports brought to ACTIVE", activated);
    cloudsmd_phase_end(&r->log, &ph);

    struct cs_smp_pipe_stats total = cloudsmd_phase_smps(&all);
    cloudsmd_phase_end(&r->log, &all);
    cloudsmd_logf(&r->log, failures ? CS_SM_LOG_WARN : CS_SM_LOG_INFO,
                  "subnet up: %llu SMPs sent (%llu retries, %llu timeouts), %d failure%s",
                  (unsigned long long)total.sent, (unsigned long long)total.retries,
                  (unsigned long long)total.timeouts, failures, failures == 1 ? "" : "s");
    return failures ? EXIT_FAILED : EXIT_OK;
}

/* Stay master: answer other SMs until a signal. Sweeps come with the services issue. */
static int serve(struct run *r)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    cloudsmd_logf(&r->log, CS_SM_LOG_INFO, "master SM on port 0x%016llx; waiting for SIGTERM",
                  (unsigned long long)r->port.port_guid);
    struct cs_error err;
    while (!stop_requested)
        if (cs_smp_pipe_idle(r->pipe, 500, &err) < 0)
            return fail_run(r, &err);
    cloudsmd_logf(&r->log, CS_SM_LOG_INFO, "signal %d: stopping", (int)stop_requested);
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

    struct run r = {.cfg = &opt.config};
    cs_sm_sweep_init(&r.sweep);
    struct cs_error err;
    if (cloudsmd_log_open(&r.log, opt.config.log_file, opt.config.log_level, &err) < 0) {
        fprintf(stderr, "cloudsmd: %s\n", err.msg);
        return EXIT_FAILED;
    }
    r.sink = cloudsmd_log_sink(&r.log);
    cloudsmd_log_config_warnings(&r.log, opt.config_path, &opt.warnings);

    if (umad_sm_port_open(&r.port, opt.config.port_guid, (int)opt.config.timeout_ms, &err) < 0) {
        rc = fail_run(&r, &err);
        goto out;
    }
    r.port_open = true;
    cloudsmd_logf(&r.log, CS_SM_LOG_INFO,
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
    cs_smp_pipe_set_unsolicited(r.pipe, cs_sm_answer_sminfo, &r.me);

    rc = bring_up(&r);
    if (!opt.once && rc == EXIT_OK)
        rc = serve(&r);
out:
    run_free(&r);
    cloudsmd_options_free(&opt);
    cloudsmd_log_close(&r.log);
    return rc;
}
