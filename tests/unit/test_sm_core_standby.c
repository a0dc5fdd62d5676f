/* The SM core's standby (src/sm/core.c, the state machine of src/sm/master.c) on the in-process
 * SMA model: a 2-ary-3-tree brought up by one core, then a second core on the same port next to
 * another SM that is master: it stands by and programs nothing; when that SM stops answering it
 * takes over after polling_retry_number + 1 polls, keeping every LID and sending no LFT block
 * (the switches hold the tables it routes); a HANDOVER makes a standby master at once, and it
 * acknowledges it to the sender; DISABLE, STANDBY and DISCOVER move it as IBA's table says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloudsm/sm_core.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_gen.h"
#include "sm_fixtures.h"

#define OTHER_HOST 3 /* node index of the host the other SM runs on */
#define OTHER_GUID 0x77

struct rig {
    struct core_model cm; /* fabric, model, pipe, state directory, log */
    struct cs_sm_core core;
    struct cs_sm_config cfg;
};

static uint32_t other_port(const struct rig *r)
{
    return cs_fabric_port(&r->cm.f, OTHER_HOST, 1);
}

/* A core on host 0 with this state directory (fresh, or the one of the bring-up). */
static void core_start(struct rig *r, const char *dir)
{
    struct cs_error err = {""};
    cs_sm_config_defaults(&r->cfg);
    assert_int_equal(cs_sm_config_set(&r->cfg, "state_dir", dir, NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "sweep_interval", "0", NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "sminfo_polling_timeout", "1", NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "polling_retry_number", "2", NULL, &err), 0);
    assert_int_equal(cs_sm_config_set(&r->cfg, "sm_priority", "5", NULL, &err), 0);
    struct cs_sm_files files;
    assert_int_equal(cs_sm_core_load_files(&r->cfg, &files, &r->cm.log, &err), 0);
    cs_sm_core_init(&r->core, &r->cfg, &files, r->cm.pipe, core_model_sm_guid(&r->cm), &r->cm.log);
}

/* The fabric brought up by a first core (LIDs, P_Keys, LFTs), which then stops; a second core
 * starts on the same port with a fresh state directory (no guid2lid: what it keeps it learns
 * from the ports) next to another SM, master, of priority `prio`. */
static int rig_setup(void **state)
{
    struct rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct cs_error err = {""};
    core_model_open(&r->cm, 2, 3, 8, "standby");
    char first[96];
    snprintf(first, sizeof first, "%s/first", r->cm.dir);
    core_start(r, first);
    if (cs_sm_core_sweep(&r->core, true, &err) != 0)
        fail_msg("bring-up: %s\n%s", err.msg, r->cm.lc.text ? r->cm.lc.text : "");
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_MASTER);
    cs_sm_core_free(&r->core);
    *state = r;
    return 0;
}

static int rig_teardown(void **state)
{
    struct rig *r = *state;
    cs_sm_core_free(&r->core);
    core_model_close(&r->cm);
    free(r);
    return 0;
}

/* Every port's LID as the model holds it. */
static uint16_t *model_lids(const struct rig *r)
{
    uint16_t *lids = calloc(r->cm.f.num_port_slots, sizeof *lids);
    assert_non_null(lids);
    for (uint32_t p = 0; p < r->cm.f.num_port_slots; p++) {
        struct cs_smp_port_info pi;
        cs_sma_model_port_info(r->cm.m, p, &pi);
        lids[p] = pi.lid;
    }
    return lids;
}

static uint64_t sets(const struct rig *r, uint16_t attr)
{
    return cs_sma_model_count(r->cm.m, attr, CS_SMP_METHOD_SET);
}

/* The second core next to the other SM: it stands by. */
static void stand_by(struct rig *r, uint8_t prio)
{
    struct cs_error err = {""};
    struct cs_smp_sm_info other = {.guid = OTHER_GUID, .priority = prio, .sm_state = 3};
    assert_int_equal(cs_sma_model_set_sm(r->cm.m, other_port(r), &other, &err), 0);
    char second[96];
    snprintf(second, sizeof second, "%s/second", r->cm.dir);
    core_start(r, second);
    cs_sma_model_reset_counts(r->cm.m);
    assert_int_equal(cs_sm_core_sweep(&r->core, true, &err), 0);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(r->core.me.master_guid, OTHER_GUID);
    assert_int_equal(sets(r, CS_SMP_ATTR_PORT_INFO) + sets(r, CS_SMP_ATTR_LINEAR_FT) +
                         sets(r, CS_SMP_ATTR_PKEY_TABLE) + sets(r, CS_SMP_ATTR_SWITCH_INFO),
                     0);
    assert_int_equal(log_count(&r->cm.lc, "standby: polling the master 0x0000000000000077"), 1);
    /* serve_begin: a standby touches nothing */
    assert_int_equal(cs_sm_core_serve_begin(&r->core, &err), 0);
    assert_int_equal(sets(r, CS_SMP_ATTR_SWITCH_INFO), 0);
}

/* Turns of the serving loop until the core is master (or `turns` pass). */
static unsigned turn_until_master(struct rig *r, unsigned turns)
{
    struct cs_error err = {""};
    unsigned i = 0;
    for (; i < turns && r->core.me.state != CS_SMP_SM_STATE_MASTER; i++) {
        if (cs_sm_core_poll(&r->core, &err) < 0)
            fail_msg("poll: %s", err.msg);
        usleep(1500); /* past sminfo_polling_timeout (1 ms) */
    }
    return i;
}

static void test_standby_takes_over(void **state)
{
    struct rig *r = *state;
    struct cs_error err = {""};
    uint16_t *before = model_lids(r);
    stand_by(r, 9);
    /* The master answers: nothing happens but the polls. */
    for (unsigned i = 0; i < 5; i++) {
        assert_int_equal(cs_sm_core_poll(&r->core, &err), 0);
        usleep(1500);
    }
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(r->core.poll_misses, 0);
    assert_int_equal(sets(r, CS_SMP_ATTR_PORT_INFO) + sets(r, CS_SMP_ATTR_LINEAR_FT), 0);
    /* Refused while standby: a re-routing. */
    struct cs_sm_reconfig rc;
    assert_int_equal(cs_sm_core_reroute(&r->core, NULL, &rc, &err), -1);
    assert_non_null(strstr(err.msg, "not master"));
    /* A host whose port supports ClientReregister: the new master asks it to register again. */
    uint32_t host1 = cs_fabric_port(&r->cm.f, 1, 1);
    struct cs_smp_port_info pi;
    cs_sma_model_port_info(r->cm.m, host1, &pi);
    assert_int_equal(cs_sma_model_set_capability_mask(
                         r->cm.m, host1, pi.capability_mask | CS_SMP_PORT_CAP_CLIENT_REREG, &err),
                     0);
    /* It dies (its port keeps IsSM): three polls unanswered, then the takeover. */
    assert_int_equal(cs_sma_model_set_sm(r->cm.m, other_port(r), NULL, &err), 0);
    unsigned turns = turn_until_master(r, 50);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_MASTER);
    assert_int_equal(r->core.takeovers, 1);
    assert_int_equal(log_count(&r->cm.lc, "is gone (3 of 3 polls)"), 1);
    assert_in_range(turns, 3, 4);
    /* Every LID kept, no LFT block sent: the switches held the tables. */
    uint16_t *after = model_lids(r);
    assert_memory_equal(before, after, r->cm.f.num_port_slots * sizeof *before);
    assert_int_equal(sets(r, CS_SMP_ATTR_LINEAR_FT), 0);
    assert_int_equal(log_count(&r->cm.lc, "lfts: "), 2); /* the bring-up's, the takeover's */
    assert_int_equal(log_count(&r->cm.lc, " 0 blocks sent, 0 LinearFDBTop sets"), 1);
    assert_int_equal(cs_sma_model_client_reregisters(r->cm.m, host1), 1);
    free(before);
    free(after);
}

/* A HANDOVER from a master of lower priority, as OpenSM sends it once it finds us (directed
 * route, its SMInfo as MASTER): the answer says STANDBY (as we were); the next turn acknowledges
 * it to the sender and sweeps as master, keeping every LID and sending no LFT block. */
static void test_handover_to_standby(void **state)
{
    struct rig *r = *state;
    struct cs_error err = {""};
    uint16_t *before = model_lids(r);
    stand_by(r, 3); /* a master of lower priority than ours (5): it hands over */
    struct cs_dr_path to_other;
    uint32_t other =
        cs_sm_sweep_end_port_by_guid(&r->core.sweep, r->cm.f.ports[other_port(r)].guid);
    assert_int_not_equal(other, CS_NONE);
    assert_true(cs_sm_port_path(&r->core.sweep, other, &to_other));
    struct cs_smp req, ans;
    assert_int_equal(cs_smp_init_directed(&req, CS_SMP_METHOD_SET, CS_SMP_ATTR_SM_INFO,
                                          CS_SMP_SM_HANDOVER, to_other.port, to_other.hops, 9,
                                          &err),
                     0);
    for (unsigned h = 1; h <= to_other.hops; h++) /* as it arrives: the way back, reversed */
        req.return_path[h] = to_other.port[to_other.hops + 1 - h];
    struct cs_smp_sm_info from = {.guid = OTHER_GUID, .priority = 3, .sm_state = 3};
    cs_smp_sm_info_encode(&from, req.data);
    assert_int_equal(cs_sm_core_on_request(&r->core, &req, &ans), 1);
    struct cs_smp_sm_info answered;
    cs_smp_sm_info_decode(ans.data, &answered);
    assert_int_equal(ans.status & CS_SMP_STATUS_CODE_MASK, 0);
    assert_int_equal(answered.sm_state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_MASTER);
    /* The other SM moved to STANDBY when it sent it (OpenSM does). */
    struct cs_smp_sm_info now_standby = {.guid = OTHER_GUID, .priority = 3, .sm_state = 2};
    assert_int_equal(cs_sma_model_set_sm(r->cm.m, other_port(r), &now_standby, &err), 0);
    assert_int_equal(cs_sm_core_poll(&r->core, &err), 1);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_MASTER);
    assert_int_equal(r->core.takeovers, 1);
    assert_int_equal(log_count(&r->cm.lc, "HANDOVER received"), 1);
    struct cs_smp_sm_info its;
    uint8_t control;
    assert_int_equal(cs_sma_model_get_sm(r->cm.m, other_port(r), &its, &control), 0);
    assert_int_equal(control, CS_SMP_SM_ACKNOWLEDGE);
    uint16_t *after = model_lids(r);
    assert_memory_equal(before, after, r->cm.f.num_port_slots * sizeof *before);
    assert_int_equal(sets(r, CS_SMP_ATTR_LINEAR_FT), 0);
    free(before);
    free(after);
}

/* A control from the master (directed route, its SMInfo as MASTER) to the core. */
static void control(struct rig *r, uint8_t what)
{
    struct cs_error err = {""};
    struct cs_dr_path to_other;
    uint32_t other =
        cs_sm_sweep_end_port_by_guid(&r->core.sweep, r->cm.f.ports[other_port(r)].guid);
    assert_true(cs_sm_port_path(&r->core.sweep, other, &to_other));
    struct cs_smp req, ans;
    assert_int_equal(cs_smp_init_directed(&req, CS_SMP_METHOD_SET, CS_SMP_ATTR_SM_INFO, what,
                                          to_other.port, to_other.hops, 9, &err),
                     0);
    for (unsigned h = 1; h <= to_other.hops; h++)
        req.return_path[h] = to_other.port[to_other.hops + 1 - h];
    struct cs_smp_sm_info from = {.guid = OTHER_GUID, .priority = 9, .sm_state = 3};
    cs_smp_sm_info_encode(&from, req.data);
    assert_int_equal(cs_sm_core_on_request(&r->core, &req, &ans), 1);
    assert_int_equal(ans.status & CS_SMP_STATUS_CODE_MASK, 0);
}

/* DISABLE: NOT-ACTIVE, polling nobody (not even once the master is gone); STANDBY: polling the
 * sender again; DISCOVER: a sweep whose election finds the master alive: standby again, having
 * programmed nothing. */
static void test_disable_standby_discover(void **state)
{
    struct rig *r = *state;
    struct cs_error err = {""};
    stand_by(r, 9);
    control(r, CS_SMP_SM_DISABLE);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_NOT_ACTIVE);
    assert_int_equal(cs_sma_model_set_sm(r->cm.m, other_port(r), NULL, &err), 0); /* it dies */
    cs_sma_model_reset_counts(r->cm.m);
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(cs_sm_core_poll(&r->core, &err), 0);
        usleep(1500);
    }
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_NOT_ACTIVE);
    assert_int_equal(cs_sma_model_stats(r->cm.m).requests, 0);
    /* Back: STANDBY from it. */
    struct cs_smp_sm_info other = {.guid = OTHER_GUID, .priority = 9, .sm_state = 3};
    assert_int_equal(cs_sma_model_set_sm(r->cm.m, other_port(r), &other, &err), 0);
    control(r, CS_SMP_SM_STANDBY);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(r->core.me.master_guid, OTHER_GUID);
    assert_int_equal(cs_sm_core_poll(&r->core, &err), 0);
    assert_int_equal(cs_sma_model_count(r->cm.m, CS_SMP_ATTR_SM_INFO, CS_SMP_METHOD_GET), 1);
    assert_int_equal(r->core.poll_misses, 0);
    /* DISCOVER: it sweeps, finds the master and stands by again. */
    control(r, CS_SMP_SM_DISCOVER);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_DISCOVERING);
    assert_int_equal(cs_sm_core_poll(&r->core, &err), 1);
    assert_int_equal(r->core.me.state, CS_SMP_SM_STATE_STANDBY);
    assert_int_equal(r->core.takeovers, 0);
    assert_int_equal(sets(r, CS_SMP_ATTR_PORT_INFO) + sets(r, CS_SMP_ATTR_LINEAR_FT), 0);
    assert_int_equal(log_count(&r->cm.lc, "DISCOVER received: discovering and sweeping"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_standby_takes_over, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_handover_to_standby, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_disable_standby_discover, rig_setup, rig_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
