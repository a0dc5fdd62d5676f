/* The performance manager (src/sm/perfmgr.c) on the in-process SMA model: a 2-ary-3-tree brought
 * up by the SM core (LIDs, tables), whose agents' counters the test sets between polls while the
 * model's clock moves by exact amounts, so every rate is known in advance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloudsm/perfmgr.h"
#include "cloudsm/sm_core.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_gen.h"
#include "sm_fixtures.h"

struct rig {
    struct core_model cm; /* fabric, model, pipe, state directory, log */
    struct cs_sm_core core;
    struct cs_sm_config cfg;
    struct cs_perfmgr pm;
};

static double wall_now;
static double test_wall(void)
{
    return wall_now;
}

static int rig_setup(void **state)
{
    struct rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct cs_error err = {""};
    core_model_open(&r->cm, 2, 3, 8, "perfmgr");
    cs_sm_config_defaults(&r->cfg);
    assert_int_equal(cs_sm_config_set(&r->cfg, "state_dir", r->cm.dir, NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "sweep_interval", "0", NULL, &err), 0);
    struct cs_sm_files files;
    assert_int_equal(cs_sm_core_load_files(&r->cfg, &files, &r->cm.log, &err), 0);
    cs_sm_core_init(&r->core, &r->cfg, &files, r->cm.pipe, core_model_sm_guid(&r->cm), &r->cm.log);
    if (cs_sm_core_sweep(&r->core, true, &err) != 0)
        fail_msg("bring-up: %s\n%s", err.msg, r->cm.lc.text ? r->cm.lc.text : "");
    cs_perfmgr_init(&r->pm, 60);
    assert_int_equal(cs_perfmgr_set_fabric(&r->pm, &r->core.sweep.fabric, NULL, &err), 0);
    wall_now = 1000;
    *state = r;
    return 0;
}

static int rig_teardown(void **state)
{
    struct rig *r = *state;
    cs_perfmgr_free(&r->pm);
    cs_sm_core_free(&r->core);
    core_model_close(&r->cm);
    free(r);
    return 0;
}

/* Let seconds pass and poll; the poll must not fail. */
static struct cs_perfmgr_poll poll_after(struct rig *r, double seconds)
{
    cs_sma_model_advance_clock(r->cm.m, (uint64_t)(seconds * 1e6));
    wall_now += seconds;
    struct cs_error err = {""};
    struct cs_perfmgr_poll res;
    if (cs_perfmgr_poll(&r->pm, r->cm.pipe, test_wall, &res, &err) != 0)
        fail_msg("poll: %s", err.msg);
    return res;
}

/* The model's counters of port num of the node with guid. */
static struct cs_sma_model_pma *counters(struct rig *r, uint64_t guid, unsigned num)
{
    return cs_sma_model_pma(r->cm.m, fx_port(r->cm.m, guid, num));
}

/* This poll's sample of port num of the node with guid, or NULL. */
static const struct cs_metric_sample *
sample_of(const struct rig *r, const struct cs_perfmgr_poll *res, uint64_t guid, unsigned num)
{
    uint32_t port = cs_metrics_find_port(&r->pm.metrics, guid, (uint8_t)num);
    assert_true(port != UINT32_MAX);
    for (uint32_t i = res->first_sample; i < res->first_sample + res->sampled; i++)
        if (r->pm.metrics.samples[i].port == port)
            return &r->pm.metrics.samples[i];
    return NULL;
}

/* Every connected port is watched: CA ports and external switch ports, both ends of each of the
 * tree's 24 cables; one PortCounters and one PortCountersExtended Get each. The first poll only
 * reads. */
static void test_first_poll_reads_every_port(void **state)
{
    struct rig *r = *state;
    uint32_t ends = 0;
    for (uint32_t p = 0; p < r->cm.f.num_port_slots; p++)
        ends += r->cm.f.ports[p].peer != CS_NONE;
    assert_int_equal(ends, 48);
    assert_int_equal(r->pm.metrics.num_ports, ends);
    struct cs_sma_model_stats before = cs_sma_model_stats(r->cm.m);
    struct cs_perfmgr_poll res = poll_after(r, 1);
    struct cs_sma_model_stats after = cs_sma_model_stats(r->cm.m);
    assert_int_equal(res.ports, ends);
    assert_int_equal(res.read, ends);
    assert_int_equal(res.failed, 0);
    assert_int_equal(res.sampled, 0);
    assert_int_equal(res.mads, 2 * ends);
    assert_int_equal(after.pma_requests - before.pma_requests, 2 * ends);
    assert_int_equal(r->pm.metrics.num_samples, 0);
}

/* Counters moved by known amounts over exactly 2 s of the model's clock. */
static void test_rates(void **state)
{
    struct rig *r = *state;
    uint64_t host = r->cm.f.nodes[5].guid;
    uint64_t leaf =
        r->cm.f.nodes[r->cm.f.ports[r->cm.f.ports[r->cm.f.nodes[5].first_port + 1].peer].node].guid;
    uint8_t leaf_port = r->cm.f.ports[r->cm.f.ports[r->cm.f.nodes[5].first_port + 1].peer].num;
    poll_after(r, 1);
    struct cs_sma_model_pma *h = counters(r, host, 1), *l = counters(r, leaf, leaf_port);
    h->extended.rcv_data += 1000000; /* 4 MB */
    h->extended.rcv_pkts += 1000;
    h->counters.xmit_wait += 500;
    h->counters.symbol_errors += 3;
    h->counters.link_downed += 1;
    l->extended.xmit_data += 1000000;
    struct cs_perfmgr_poll res = poll_after(r, 2);
    assert_int_equal(res.sampled, r->pm.metrics.num_ports);
    assert_int_equal(res.flagged, 0);
    const struct cs_metric_sample *s = sample_of(r, &res, host, 1);
    assert_non_null(s);
    assert_true(s->interval == 2.0);
    assert_true(s->time == wall_now);
    assert_true(s->value[CS_METRIC_RCV_BYTES] == 2e6);
    assert_true(s->value[CS_METRIC_RCV_PKTS] == 500);
    assert_true(s->value[CS_METRIC_XMIT_WAIT] == 250);
    assert_true(s->value[CS_METRIC_ERRORS] == 2);
    assert_true(s->value[CS_METRIC_XMIT_BYTES] == 0);
    const struct cs_metric_sample *ls = sample_of(r, &res, leaf, leaf_port);
    assert_non_null(ls);
    assert_true(ls->value[CS_METRIC_XMIT_BYTES] == 2e6);
    double busy = 0;
    for (uint32_t i = res.first_sample; i < res.first_sample + res.sampled; i++)
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            busy += r->pm.metrics.samples[i].value[k] != 0;
    assert_true(busy == 5); /* the host's four rates and the leaf's one: nothing else moved */
}

/* A counter that went down was reset: counted from 0 and flagged. A 32-bit counter at its
 * largest value stopped: flagged. An agent without PortCountersExtended is read with
 * PortCounters alone from then on, and its first reading of the other kind is not compared with
 * the last of the first. */
static void test_reset_saturation_and_no_extended(void **state)
{
    struct rig *r = *state;
    struct cs_error err = {""};
    uint64_t host = r->cm.f.nodes[3].guid;
    struct cs_sma_model_pma *h = counters(r, host, 1);
    h->extended.rcv_data = 5000;
    poll_after(r, 1);
    h->extended.rcv_data = 10; /* reset in between, then 10 counted */
    struct cs_perfmgr_poll res = poll_after(r, 1);
    const struct cs_metric_sample *s = sample_of(r, &res, host, 1);
    assert_non_null(s);
    assert_int_equal(s->flags, CS_METRIC_RESET);
    assert_true(s->value[CS_METRIC_RCV_BYTES] == 40);
    assert_int_equal(res.flagged, 1);

    assert_int_equal(cs_sma_model_set_pma_extended(r->cm.m, 3, false, &err), 0);
    res = poll_after(r, 1);
    assert_null(sample_of(r, &res, host, 1)); /* 64-bit before, 32-bit now */
    assert_int_equal(res.read, r->pm.metrics.num_ports);
    struct cs_sma_model_stats before = cs_sma_model_stats(r->cm.m);
    h->counters.rcv_data = 100;
    res = poll_after(r, 2);
    struct cs_sma_model_stats after = cs_sma_model_stats(r->cm.m);
    assert_int_equal(after.pma_requests - before.pma_requests, 2 * r->pm.metrics.num_ports - 1);
    s = sample_of(r, &res, host, 1);
    assert_non_null(s);
    assert_int_equal(s->flags, 0);
    assert_true(s->value[CS_METRIC_RCV_BYTES] == 200);
    h->counters.rcv_data = UINT32_MAX;
    res = poll_after(r, 1);
    s = sample_of(r, &res, host, 1);
    assert_int_equal(s->flags, CS_METRIC_SATURATED);
}

/* A node that stops answering gets no samples; when it is back, its sample covers the whole time
 * since the last reading it gave. */
static void test_silent_node(void **state)
{
    struct rig *r = *state;
    uint64_t host = r->cm.f.nodes[6].guid;
    poll_after(r, 1);
    cs_sma_model_set_unresponsive(r->cm.m, 6, true);
    struct cs_perfmgr_poll res = poll_after(r, 1);
    assert_int_equal(res.failed, 1);
    assert_int_equal(res.sampled, r->pm.metrics.num_ports - 1);
    assert_true(res.timeouts >= 2);
    assert_null(sample_of(r, &res, host, 1));
    cs_sma_model_set_unresponsive(r->cm.m, 6, false);
    counters(r, host, 1)->extended.xmit_data += 300;
    res = poll_after(r, 2);
    const struct cs_metric_sample *s = sample_of(r, &res, host, 1);
    assert_non_null(s);
    /* From the reading before the silence to now: 1 s + 2 s, plus the timeouts the silent poll
     * waited on the model's clock. */
    assert_true(s->interval > 3.0 && s->interval < 3.1);
    assert_true(s->value[CS_METRIC_XMIT_BYTES] * s->interval > 1199.9 &&
                s->value[CS_METRIC_XMIT_BYTES] * s->interval < 1200.1);
}

/* Samples older than keep_s go; a new sweep's fabric keeps the readings and samples of the ports
 * still there, so the next poll samples every port. */
static void test_keep_window_and_new_sweep(void **state)
{
    struct rig *r = *state;
    struct cs_error err = {""};
    r->pm.keep_s = 2.5;
    for (int i = 0; i < 5; i++)
        poll_after(r, 1);
    uint32_t ports = r->pm.metrics.num_ports;
    assert_int_equal(r->pm.metrics.num_samples, 3 * ports); /* at now-2, now-1, now */
    assert_true(r->pm.metrics.samples[0].time >= wall_now - 2.5);
    assert_int_equal(cs_perfmgr_set_fabric(&r->pm, &r->core.sweep.fabric, NULL, &err), 0);
    assert_int_equal(r->pm.metrics.num_samples, 3 * ports);
    struct cs_perfmgr_poll res = poll_after(r, 1);
    assert_int_equal(res.sampled, ports);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_first_poll_reads_every_port, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_rates, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_reset_saturation_and_no_extended, rig_setup,
                                        rig_teardown),
        cmocka_unit_test_setup_teardown(test_silent_node, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_keep_window_and_new_sweep, rig_setup, rig_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
