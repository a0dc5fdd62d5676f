/* The SM core's event reporting (src/sm/core_reports.c) on the in-process SMA model: a host
 * subscribes through the SA, another host's cable is pulled, and the heavy sweep's trap 65 reaches
 * the subscriber as a SubnAdmReport that the model's SA client acknowledges; a subscriber that
 * never acknowledges gets it 1 + retries times and the loss is logged; with
 * drop_event_subscriptions a port that leaves loses its subscriptions. What OpenSM does alike on
 * ibsim is in tests/integration/cloudsmd_inform.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/informs.h"
#include "cloudsm/sm_core.h"
#include "cloudsm/sma_model.h"
#include "sm_fixtures.h"

#define SUBSCRIBER 2 /* node index of the subscribing host */
#define LEAVER 5     /* node index of the host whose cable is pulled */

struct rig {
    struct core_model cm;
    struct cs_sm_core core;
    struct cs_sm_config cfg;
};

static void rig_open(struct rig *r, bool drop_subscriptions)
{
    struct cs_error err = {""};
    memset(r, 0, sizeof *r);
    core_model_open(&r->cm, 2, 3, 8, "reports");
    cs_sm_config_defaults(&r->cfg);
    assert_int_equal(cs_sm_config_set(&r->cfg, "state_dir", r->cm.dir, NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "sweep_interval", "0", NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "drop_event_subscriptions",
                                      drop_subscriptions ? "TRUE" : "FALSE", NULL, &err),
                     0);
    struct cs_sm_files files;
    assert_int_equal(cs_sm_core_load_files(&r->cfg, &files, &r->cm.log, &err), 0);
    cs_sm_core_init(&r->core, &r->cfg, &files, r->cm.pipe, core_model_sm_guid(&r->cm), &r->cm.log);
    if (cs_sm_core_sweep(&r->core, true, &err) != 0)
        fail_msg("bring-up: %s", err.msg);
}

static void rig_close(struct rig *r)
{
    cs_sm_core_free(&r->core);
    core_model_close(&r->cm);
}

static uint32_t host_port(const struct rig *r, uint32_t node)
{
    return cs_fabric_port(&r->cm.f, node, 1);
}

/* node subscribes to every trap through the SA, from its LID and QP 1. */
static void subscribe(struct rig *r, uint32_t node)
{
    uint8_t req[CS_SA_MAD_SIZE];
    struct cs_sa_header h = {
        .method = CS_SA_METHOD_SET, .transaction_id = 9, .attr_id = CS_SA_ATTR_INFORM_INFO};
    cs_sa_mad_encode(&h, NULL, 0, req);
    struct cs_inform_info all = cs_inform_info_all();
    cs_inform_info_encode(&all, req + CS_SA_HEADER_SIZE);
    struct cs_sa_address from = {.lid = cs_sma_model_port_lid(r->cm.m, host_port(r, node)),
                                 .qpn = 1};
    size_t len;
    const uint8_t *reply = cs_sm_core_answer_sa(&r->core, &from, req, sizeof req, &len);
    assert_non_null(reply);
    cs_sa_header_decode(reply, &h);
    assert_int_equal(h.status, 0);
}

/* The leaver's cable pulled, a heavy sweep, the turn that sends the Reports, and the pipe left
 * to deliver them (as cloudsmd idles between turns). */
static void leave_and_report(struct rig *r)
{
    struct cs_error err = {""};
    assert_int_equal(cs_sma_model_unlink(r->cm.m, host_port(r, LEAVER), &err), 0);
    assert_true(cs_sm_core_resweep(&r->core, true, &err) >= 0);
    assert_true(cs_sm_core_poll(&r->core, &err) >= 0);
    for (int i = 0; i < 20 && r->core.reports_in_flight > 0; i++) {
        cs_sma_model_advance_clock(r->cm.m, 10000);
        assert_int_equal(cs_smp_pipe_idle(r->cm.pipe, 10, &err), 0);
    }
    assert_int_equal(r->core.reports_in_flight, 0);
}

static void test_trap65_reported_and_acknowledged(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, false);
    subscribe(&r, SUBSCRIBER);
    leave_and_report(&r);
    uint8_t data[CS_SMP_SIZE - CS_SA_HEADER_SIZE];
    assert_int_equal(cs_sma_model_reports(r.cm.m, host_port(&r, SUBSCRIBER), data), 1);
    struct cs_notice n;
    cs_notice_decode(data, &n);
    assert_int_equal(n.trap_number, CS_TRAP_GID_OUT_OF_SERVICE);
    assert_true(cs_bits_get(n.details + CS_NOTICE_DETAILS_GID_OFFSET, 64, 64) ==
                r.cm.f.ports[host_port(&r, LEAVER)].guid);
    assert_true(cs_bits_get(n.issuer_gid, 64, 64) == core_model_sm_guid(&r.cm));
    assert_int_equal(r.core.reports_sent, 1);
    assert_int_equal(r.core.reports_acknowledged, 1);
    assert_int_equal(r.core.reports_lost, 0);
    /* Nobody else heard of it. */
    assert_int_equal(cs_sma_model_reports(r.cm.m, host_port(&r, 3), NULL), 0);
    rig_close(&r);
}

static void test_silent_subscriber(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, false);
    subscribe(&r, SUBSCRIBER);
    cs_sma_model_set_report_silent(r.cm.m, host_port(&r, SUBSCRIBER), true);
    leave_and_report(&r);
    /* The pipe's 1 retry: 2 attempts, then lost and logged; the subscription stays. */
    assert_int_equal(cs_sma_model_reports(r.cm.m, host_port(&r, SUBSCRIBER), NULL), 2);
    assert_int_equal(r.core.reports_lost, 1);
    assert_non_null(strstr(r.cm.lc.text, "was never acknowledged"));
    assert_int_equal(cs_informs_count(r.core.informs), 1);
    rig_close(&r);
}

static void test_drop_event_subscriptions(void **state)
{
    (void)state;
    for (int drop = 0; drop <= 1; drop++) {
        struct rig r;
        rig_open(&r, drop);
        subscribe(&r, LEAVER);
        subscribe(&r, SUBSCRIBER);
        leave_and_report(&r);
        assert_int_equal(cs_informs_count(r.core.informs), drop ? 1 : 2);
        assert_int_equal(cs_sma_model_reports(r.cm.m, host_port(&r, SUBSCRIBER), NULL), 1);
        rig_close(&r);
    }
}

/* An SM of higher precedence appears in the sweep that finds the cable pulled: the core stands
 * by, and the Report of trap 65 it had queued is dropped, not sent by a later mastership. */
static void test_standby_sends_nothing(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, false);
    subscribe(&r, SUBSCRIBER);
    struct cs_error err = {""};
    struct cs_smp_sm_info other = {.guid = 0x77, .priority = 15, .sm_state = 3};
    assert_int_equal(cs_sma_model_set_sm(r.cm.m, host_port(&r, 3), &other, &err), 0);
    assert_int_equal(cs_sma_model_unlink(r.cm.m, host_port(&r, LEAVER), &err), 0);
    assert_true(cs_sm_core_resweep(&r.core, true, &err) >= 0);
    assert_int_not_equal(r.core.me.state, CS_SMP_SM_STATE_MASTER);
    assert_int_equal(cs_informs_pending(r.core.informs), 0);
    assert_non_null(strstr(r.cm.lc.text, "standing by: 0 traps and 1 Reports not sent"));
    assert_int_equal(cs_smp_pipe_idle(r.cm.pipe, 10, &err), 0);
    assert_int_equal(cs_sma_model_reports(r.cm.m, host_port(&r, SUBSCRIBER), NULL), 0);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trap65_reported_and_acknowledged),
        cmocka_unit_test(test_silent_subscriber),
        cmocka_unit_test(test_drop_event_subscriptions),
        cmocka_unit_test(test_standby_sends_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
