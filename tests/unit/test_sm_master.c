/* The SM state machine (src/sm/master.c): the election rule on its own (cs_sm_precedes,
 * cs_sm_decide), the poll of the other SMs and the whole election on the in-process SMA model,
 * whose other SMs answer SMInfo (cs_sma_model_set_sm) and change their state between our polls
 * (cs_sma_model_set_sm_next), as a competing SM started at the same instant does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "sm_fixtures.h"

#define DISC CS_SMP_SM_STATE_DISCOVERING
#define STBY CS_SMP_SM_STATE_STANDBY
#define MAST CS_SMP_SM_STATE_MASTER
#define NOTA CS_SMP_SM_STATE_NOT_ACTIVE

static struct cs_sm_peer peer(uint64_t guid, uint8_t priority, uint8_t state)
{
    return (struct cs_sm_peer){.info = {.guid = guid, .priority = priority, .sm_state = state}};
}

/* ---- The rule ---- */

static void test_precedes(void **state)
{
    (void)state;
    assert_true(cs_sm_precedes(5, 0x900, 4, 0x100)); /* higher priority, whatever the GUID */
    assert_false(cs_sm_precedes(4, 0x100, 5, 0x900));
    assert_true(cs_sm_precedes(5, 0x100, 5, 0x900)); /* equal priority: lower GUID */
    assert_false(cs_sm_precedes(5, 0x900, 5, 0x100));
    assert_false(cs_sm_precedes(5, 0x100, 5, 0x100)); /* nobody precedes itself */
    assert_true(cs_sm_precedes(15, UINT64_MAX, 0, 1));
}

struct decide_case {
    uint8_t my_state;
    struct cs_sm_peer peers[3];
    unsigned num_peers;
    enum cs_sm_verdict verdict;
    int peer;
    const char *why; /* a part of the rule's text */
};

/* We are GUID 0x500, priority 5. */
static void test_decide(void **state)
{
    (void)state;
    const struct decide_case cases[] = {
        /* DISCOVERING */
        {DISC, {peer(0, 0, NOTA)}, 0, CS_SM_CLAIM, -1, "no other SM"},
        {DISC, {peer(0x900, 0, MAST)}, 1, CS_SM_YIELD, 0, "already master"},
        {DISC, {peer(0x100, 6, DISC)}, 1, CS_SM_YIELD, 0, "higher priority"},
        {DISC, {peer(0x900, 6, STBY)}, 1, CS_SM_YIELD, 0, "higher priority"},
        {DISC, {peer(0x400, 5, DISC)}, 1, CS_SM_YIELD, 0, "same priority, lower port GUID"},
        {DISC, {peer(0x400, 5, STBY)}, 1, CS_SM_YIELD, 0, "same priority, lower port GUID"},
        {DISC, {peer(0x600, 5, DISC)}, 1, CS_SM_CLAIM, -1, "no other SM"},
        {DISC, {peer(0x100, 4, STBY)}, 1, CS_SM_CLAIM, -1, "no other SM"},
        {DISC, {peer(0x100, 9, NOTA)}, 1, CS_SM_CLAIM, -1, "no other SM"},
        {DISC, {peer(0x500, 5, MAST)}, 1, CS_SM_CLAIM, -1, "no other SM"}, /* ourselves */
        /* a master beats a discovering SM of higher precedence; the best master is named */
        {DISC,
         {peer(0x100, 9, DISC), peer(0x800, 1, MAST), peer(0x700, 1, MAST)},
         3,
         CS_SM_YIELD,
         2,
         "already master"},
        /* the best of several higher ones is named */
        {DISC,
         {peer(0x400, 5, DISC), peer(0x900, 7, STBY), peer(0x800, 7, DISC)},
         3,
         CS_SM_YIELD,
         2,
         "higher priority"},
        /* MASTER */
        {MAST, {peer(0x600, 5, MAST)}, 1, CS_SM_CLAIM, -1, "no other master"},
        {MAST, {peer(0x400, 5, MAST)}, 1, CS_SM_HANDOVER, 0, "two masters: same priority, lower"},
        {MAST, {peer(0x900, 6, MAST)}, 1, CS_SM_HANDOVER, 0, "two masters: higher priority"},
        {MAST, {peer(0x100, 4, MAST)}, 1, CS_SM_CLAIM, -1, "no other master"},
        {MAST, {peer(0x400, 5, DISC)}, 1, CS_SM_WAIT, 0, "still discovering"},
        {MAST, {peer(0x600, 5, DISC)}, 1, CS_SM_CLAIM, -1, "no other master"},
        /* a standby of higher precedence gets mastership (IBA's HANDOVER); a lower one not */
        {MAST, {peer(0x100, 9, STBY)}, 1, CS_SM_HANDOVER, 0, "a standby of higher priority"},
        {MAST, {peer(0x400, 5, STBY)}, 1, CS_SM_HANDOVER, 0, "same priority, lower port GUID"},
        {MAST, {peer(0x600, 5, STBY)}, 1, CS_SM_CLAIM, -1, "no other master"},
        {MAST, {peer(0x100, 4, STBY)}, 1, CS_SM_CLAIM, -1, "no other master"},
        {MAST, {peer(0x100, 9, NOTA)}, 1, CS_SM_CLAIM, -1, "no other master"},
        /* the SM of highest precedence decides: still discovering, or the standby above a
         * master */
        {MAST, {peer(0x100, 9, DISC), peer(0x400, 6, MAST)}, 2, CS_SM_WAIT, 0, "discovering"},
        {MAST, {peer(0x100, 9, STBY), peer(0x400, 6, MAST)}, 2, CS_SM_HANDOVER, 0, "standby"},
        {MAST, {peer(0x100, 6, STBY), peer(0x400, 9, MAST)}, 2, CS_SM_HANDOVER, 1, "two masters"},
        {MAST, {peer(0x200, 6, DISC), peer(0x100, 6, DISC)}, 2, CS_SM_WAIT, 1, "discovering"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct decide_case *c = &cases[i];
        struct cs_sm_identity me = {.guid = 0x500, .priority = 5, .state = c->my_state};
        struct cs_sm_decision d = cs_sm_decide(&me, c->peers, c->num_peers);
        if (d.verdict != c->verdict || d.peer != c->peer || strstr(d.why, c->why) == NULL)
            fail_msg("case %zu: verdict %d peer %d \"%s\", want %d %d \"%s\"", i, d.verdict, d.peer,
                     d.why, c->verdict, c->peer, c->why);
    }
}

/* Two SMs that see each other decide the same way whatever they are: both discovering, exactly
 * one claims; both master (each claimed before seeing the other), exactly one hands over; one
 * master, the discovering one yields and the master stays or waits. */
static void test_decide_pairs_agree(void **state)
{
    (void)state;
    const uint64_t guids[] = {0x10, 0x20};
    for (uint8_t pa = 0; pa < 16; pa += 5)
        for (uint8_t pb = 0; pb < 16; pb += 5)
            for (unsigned g = 0; g < 2; g++) {
                struct cs_sm_identity a = {.guid = guids[g], .priority = pa};
                struct cs_sm_identity b = {.guid = guids[!g], .priority = pb};
                bool a_first = cs_sm_precedes(pa, a.guid, pb, b.guid);
                a.state = b.state = DISC;
                struct cs_sm_peer pa_ = peer(a.guid, pa, DISC), pb_ = peer(b.guid, pb, DISC);
                enum cs_sm_verdict va = cs_sm_decide(&a, &pb_, 1).verdict;
                enum cs_sm_verdict vb = cs_sm_decide(&b, &pa_, 1).verdict;
                assert_int_equal(va, a_first ? CS_SM_CLAIM : CS_SM_YIELD);
                assert_int_equal(vb, a_first ? CS_SM_YIELD : CS_SM_CLAIM);
                a.state = b.state = MAST;
                pa_.info.sm_state = pb_.info.sm_state = MAST;
                va = cs_sm_decide(&a, &pb_, 1).verdict;
                vb = cs_sm_decide(&b, &pa_, 1).verdict;
                assert_int_equal(va, a_first ? CS_SM_CLAIM : CS_SM_HANDOVER);
                assert_int_equal(vb, a_first ? CS_SM_HANDOVER : CS_SM_CLAIM);
                /* a master, b discovering: b yields; a stays, or waits for b when b precedes */
                b.state = DISC;
                pb_.info.sm_state = DISC;
                assert_int_equal(cs_sm_decide(&b, &pa_, 1).verdict, CS_SM_YIELD);
                assert_int_equal(cs_sm_decide(&a, &pb_, 1).verdict,
                                 a_first ? CS_SM_CLAIM : CS_SM_WAIT);
            }
}

/* ---- On the SMA model ---- */

struct rig {
    struct cs_fabric src;
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct log_capture lc;
    struct cs_log log;
    struct cs_sm_identity me;
};

/* PGFT, our SM on host 0 (port GUID = host 0's, priority 5, DISCOVERING), swept. */
static void rig_open(struct rig *r)
{
    memset(r, 0, sizeof *r);
    gen_pgft(&r->src);
    struct cs_error err;
    r->m = cs_sma_model_create(&r->src, 0, 1, &err);
    assert_non_null(r->m);
    struct cs_smp_transport t = cs_sma_model_transport(r->m);
    /* A generous timeout: the model answers at once, but a loaded machine may deschedule us
     * between send and receive. One SMP is lost on purpose (test_poll_sms): 100 ms. */
    struct cs_smp_pipe_options opt = {.window = 16, .timeout_ms = 100, .retries = 0};
    r->pipe = cs_smp_pipe_create(&t, &opt, &err);
    assert_non_null(r->pipe);
    r->log = (struct cs_log){capture_log, &r->lc};
    r->me = (struct cs_sm_identity){
        .guid = r->src.ports[cs_fabric_port(&r->src, 0, 1)].guid,
        .priority = 5,
        .state = DISC,
        .pipe = r->pipe,
    };
    cs_sm_sweep_init(&r->s);
}

static void rig_discover(struct rig *r)
{
    struct cs_error err;
    assert_int_equal(cs_sm_discover(r->pipe, &r->log, &r->s, &err), 0);
    cs_sma_model_reset_counts(r->m);
}

static void rig_close(struct rig *r)
{
    cs_sm_sweep_free(&r->s);
    cs_smp_pipe_destroy(r->pipe);
    cs_sma_model_destroy(r->m);
    cs_fabric_free(&r->src);
    free(r->lc.text);
}

/* Another SM on host `host` (model node index), port 1. */
static uint32_t host_port(const struct rig *r, uint32_t host)
{
    return cs_fabric_port(&r->src, host, 1);
}

static void put_sm(struct rig *r, uint32_t host, uint64_t guid, uint8_t priority, uint8_t sm_state)
{
    struct cs_smp_sm_info info = {.guid = guid, .priority = priority, .sm_state = sm_state};
    struct cs_error err;
    assert_int_equal(cs_sma_model_set_sm(r->m, host_port(r, host), &info, &err), 0);
}

static void next_sm(struct rig *r, uint32_t host, unsigned gets, uint64_t guid, uint8_t priority,
                    uint8_t sm_state)
{
    struct cs_smp_sm_info info = {.guid = guid, .priority = priority, .sm_state = sm_state};
    struct cs_error err;
    assert_int_equal(cs_sma_model_set_sm_next(r->m, host_port(r, host), gets, &info, &err), 0);
}

static uint64_t sminfo_gets(const struct rig *r)
{
    return cs_sma_model_count(r->m, CS_SMP_ATTR_SM_INFO, CS_SMP_METHOD_GET);
}

/* Everything that is not an SMInfo Get: what the election must never send. */
static uint64_t other_requests(const struct rig *r)
{
    return cs_sma_model_stats(r->m).requests - sminfo_gets(r);
}

/* The sweep's DR path to the port of host `host`. */
static struct cs_dr_path path_to_host(const struct rig *r, uint32_t host)
{
    uint64_t guid = r->src.nodes[host].guid;
    for (uint32_t n = 0; n < r->s.fabric.num_nodes; n++)
        if (r->s.fabric.nodes[n].guid == guid) {
            struct cs_dr_path path;
            assert_true(cs_sm_port_path(&r->s, cs_fabric_port(&r->s.fabric, n, 1), &path));
            return path;
        }
    fail_msg("host %u not swept", host);
    return (struct cs_dr_path){0};
}

/* The SMInfo Get an SM on host `host` sends us, as it arrives (return path filled), and our
 * answer to it. */
static void asked_by(struct rig *r, uint32_t host)
{
    struct cs_dr_path to = path_to_host(r, host);
    struct cs_smp req, ans;
    uint8_t its_path[CS_SMP_PATH_SIZE]; /* its own route to us: not what we note */
    memset(its_path, 1, sizeof its_path);
    struct cs_error err;
    assert_int_equal(cs_smp_init_directed(&req, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, its_path,
                                          to.hops, 7, &err),
                     0);
    for (unsigned h = 1; h <= to.hops; h++)
        req.return_path[h] = to.port[to.hops + 1 - h];
    req.hop_pointer = (uint8_t)(to.hops + 1);
    assert_int_equal(cs_sm_answer_sminfo(&r->me, &req, &ans), 1);
}

/* The poll: every IsSM port but ours, each answer logged, no answer logged and left out. Host 5
 * STANDBY, host 9 MASTER, root 24 (port 0) advertises IsSM but its SM refuses, host 11's SM is
 * MASTER but its node stops answering after the sweep. 4 SMInfo Gets, 2 peers. */
static void test_poll_sms(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    struct cs_error err;
    put_sm(&r, 0, r.me.guid, 5, MAST); /* our own port advertises IsSM: never asked */
    put_sm(&r, 5, 0x55, 3, STBY);
    put_sm(&r, 9, 0x99, 4, MAST);
    put_sm(&r, 11, 0x1111, 4, MAST);
    assert_int_equal(cs_sma_model_set_sm(r.m, cs_fabric_port(&r.src, 24, 0), NULL, &err), 0);
    rig_discover(&r);
    cs_sma_model_set_unresponsive(r.m, 11, true);
    struct cs_sm_peer *peers;
    assert_int_equal(cs_sm_poll_sms(r.pipe, &r.s, &r.me, &r.log, &peers, &err), 2);
    assert_int_equal(sminfo_gets(&r), 4);
    assert_int_equal(other_requests(&r), 0);
    uint64_t seen = peers[0].info.guid ^ peers[1].info.guid;
    assert_int_equal(seen, 0x55 ^ 0x99);
    for (unsigned i = 0; i < 2; i++) {
        struct cs_dr_path want = path_to_host(&r, peers[i].info.guid == 0x55 ? 5 : 9);
        assert_int_equal(peers[i].path.hops, want.hops);
        assert_memory_equal(peers[i].path.port + 1, want.port + 1, want.hops);
    }
    free(peers);
    assert_int_equal(log_count(&r.lc, "SM on port 0x0000000000000099"), 1);
    assert_int_equal(log_count(&r.lc, "state master, priority 4"), 1);
    assert_int_equal(log_count(&r.lc, "state standby, priority 3"), 1);
    assert_int_equal(log_count(&r.lc, "refuses SMInfo"), 1);
    assert_int_equal(log_count(&r.lc, "does not answer SMInfo"), 1);
    assert_int_equal(r.lc.warnings, 0);
    rig_close(&r);

    /* Nobody advertises IsSM: not a single SMP, no peers. */
    rig_open(&r);
    rig_discover(&r);
    assert_int_equal(cs_sm_poll_sms(r.pipe, &r.s, &r.me, &r.log, &peers, &err), 0);
    assert_null(peers);
    assert_int_equal(cs_sma_model_stats(r.m).requests, 0);
    rig_close(&r);
}

/* Discovering, another master runs: not ours to claim. The winner is logged with the rule, and
 * nothing but SMInfo Gets goes out. */
static void test_elect_yields_to_master(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    put_sm(&r, 9, r.me.guid + 1, 0, MAST); /* lower precedence, but already master */
    rig_discover(&r);
    struct cs_sm_peer winner;
    struct cs_error err;
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 1000, &winner, &err), 0);
    assert_int_equal(winner.info.guid, r.me.guid + 1);
    assert_int_equal(r.me.state, STBY); /* polling it from now on */
    assert_int_equal(r.me.master_guid, r.me.guid + 1);
    assert_int_equal(r.me.master_path.hops, winner.path.hops);
    assert_int_equal(sminfo_gets(&r), 1);
    assert_int_equal(other_requests(&r), 0);
    char line[256];
    char path[64];
    cs_dr_path_format(&winner.path, path, sizeof path);
    snprintf(line, sizeof line,
             "another SM wins: port GUID 0x%016llx, priority 0, master, DR path %s: it is already "
             "master",
             (unsigned long long)(r.me.guid + 1), path);
    assert_int_equal(log_count(&r.lc, line), 1);
    rig_close(&r);
}

/* Discovering next to another discovering SM: precedence decides, on both sides. */
static void test_elect_discovering_pair(void **state)
{
    (void)state;
    struct rig r;
    struct cs_error err;
    /* It has the higher priority (and the higher GUID): we yield. */
    rig_open(&r);
    put_sm(&r, 7, r.me.guid + 1, 6, DISC);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 1000, NULL, &err), 0);
    assert_int_equal(log_count(&r.lc, "higher priority"), 1);
    assert_int_equal(other_requests(&r), 0);
    rig_close(&r);
    /* Same priority, it has the lower GUID: we yield. */
    rig_open(&r);
    put_sm(&r, 7, r.me.guid - 1, 5, DISC);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 1000, NULL, &err), 0);
    assert_int_equal(log_count(&r.lc, "same priority, lower port GUID"), 1);
    rig_close(&r);
    /* Same priority, we have the lower GUID: we claim; the second poll (as master) finds it
     * still discovering and of lower precedence: master, 2 Gets. */
    rig_open(&r);
    put_sm(&r, 7, r.me.guid + 1, 5, DISC);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 1000, NULL, &err), 1);
    assert_int_equal(r.me.state, MAST);
    assert_int_equal(sminfo_gets(&r), 2);
    assert_int_equal(log_count(&r.lc, "master: no other SM takes precedence (1 other SM"), 1);
    assert_int_equal(r.lc.warnings, 0);
    rig_close(&r);
}

/* The race of issue 12: the other SM does not answer our first poll (it has only just opened its
 * port), so we claim; by our second poll it has claimed too. Precedence picks one. */
static void test_elect_race_both_claim(void **state)
{
    (void)state;
    struct rig r;
    struct cs_error err;
    struct cs_sm_peer winner;
    /* It takes precedence: we step down before programming anything. */
    rig_open(&r);
    assert_int_equal(cs_sma_model_set_sm(r.m, host_port(&r, 10), NULL, &err), 0);
    next_sm(&r, 10, 1, r.me.guid - 1, 5, MAST);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 1000, &winner, &err), 0);
    assert_int_equal(winner.info.guid, r.me.guid - 1);
    assert_int_equal(r.me.state, STBY);
    assert_int_equal(r.me.master_guid, r.me.guid - 1);
    assert_int_equal(sminfo_gets(&r), 2);
    /* Two masters: the lower one hands over (OpenSM does the same), SubnSet(SMInfo) HANDOVER. */
    assert_int_equal(other_requests(&r), 1);
    assert_int_equal(cs_sma_model_count(r.m, CS_SMP_ATTR_SM_INFO, CS_SMP_METHOD_SET), 1);
    struct cs_smp_sm_info its;
    uint8_t control;
    assert_int_equal(cs_sma_model_get_sm(r.m, host_port(&r, 10), &its, &control), 0);
    assert_int_equal(control, CS_SMP_SM_HANDOVER);
    assert_int_equal(log_count(&r.lc, "master: no other SM takes precedence (0 other SMs"), 1);
    assert_int_equal(log_count(&r.lc, "handing mastership over: port GUID"), 1);
    assert_int_equal(log_count(&r.lc, "two masters: same priority, lower port GUID"), 1);
    rig_close(&r);
    /* We take precedence: we stay (it sees us master and steps down on its side). */
    rig_open(&r);
    assert_int_equal(cs_sma_model_set_sm(r.m, host_port(&r, 10), NULL, &err), 0);
    next_sm(&r, 10, 1, r.me.guid + 1, 5, MAST);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 1000, NULL, &err), 1);
    assert_int_equal(r.me.state, MAST);
    assert_int_equal(sminfo_gets(&r), 2);
    rig_close(&r);
}

/* The other race: our sweep passed its port before it set IsSM, so only its question tells us it
 * exists. We poll it back along the reverse of its request's route. */
static void test_elect_asker(void **state)
{
    (void)state;
    struct rig r;
    struct cs_error err;
    struct cs_sm_peer winner;
    rig_open(&r);
    rig_discover(&r);                      /* host 6 not IsSM yet */
    put_sm(&r, 6, r.me.guid - 1, 5, MAST); /* now it is, and it has claimed */
    asked_by(&r, 6);
    assert_int_equal(r.me.num_askers, 1);
    asked_by(&r, 6); /* asking again adds nothing */
    assert_int_equal(r.me.num_askers, 1);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 1000, &winner, &err), 0);
    assert_int_equal(winner.info.guid, r.me.guid - 1);
    struct cs_dr_path want = path_to_host(&r, 6);
    assert_int_equal(winner.path.hops, want.hops);
    assert_memory_equal(winner.path.port + 1, want.port + 1, want.hops);
    assert_int_equal(sminfo_gets(&r), 1);
    assert_int_equal(log_count(&r.lc, "\"(asked us)\": state master"), 1);
    rig_close(&r);

    /* An asker that no longer answers is forgotten; an asker on the route of an IsSM port of
     * the sweep is asked once (and kept: it answered). */
    rig_open(&r);
    put_sm(&r, 4, r.me.guid + 4, 1, STBY);
    rig_discover(&r);
    asked_by(&r, 4);
    asked_by(&r, 8); /* no SM there (any more): 0x0c */
    assert_int_equal(r.me.num_askers, 2);
    struct cs_sm_peer *peers;
    assert_int_equal(cs_sm_poll_sms(r.pipe, &r.s, &r.me, &r.log, &peers, &err), 1);
    assert_int_equal(peers[0].info.guid, r.me.guid + 4);
    free(peers);
    assert_int_equal(sminfo_gets(&r), 2);
    assert_int_equal(r.me.num_askers, 1);
    struct cs_dr_path four = path_to_host(&r, 4);
    assert_memory_equal(r.me.askers[0].port + 1, four.port + 1, four.hops);
    rig_close(&r);
}

/* Master, an SM of higher precedence still discovering: wait for it (answering SMInfo), and
 * follow what it decides. */
static void test_elect_waits_for_undecided(void **state)
{
    (void)state;
    struct rig r;
    struct cs_error err;
    /* It claims after our third poll: we yield. */
    rig_open(&r);
    r.me.state = MAST;
    put_sm(&r, 3, r.me.guid + 9, 7, DISC);
    next_sm(&r, 3, 3, r.me.guid + 9, 7, MAST);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 5000, NULL, &err), 0);
    assert_int_equal(sminfo_gets(&r), 4);
    assert_int_equal(log_count(&r.lc, "two masters: higher priority"), 1);
    rig_close(&r);
    /* It finds us master and ends (stops answering): we stay. */
    rig_open(&r);
    r.me.state = MAST;
    put_sm(&r, 3, r.me.guid + 9, 7, DISC);
    assert_int_equal(cs_sma_model_set_sm_next(r.m, host_port(&r, 3), 2, NULL, &err), 0);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 5000, NULL, &err), 1);
    assert_int_equal(r.me.state, MAST);
    assert_int_equal(sminfo_gets(&r), 3);
    assert_int_equal(r.lc.warnings, 0);
    rig_close(&r);
    /* It never decides: past the wait we stay, with a warning; with no wait (a master's sweep)
     * at once, without one. */
    rig_open(&r);
    r.me.state = MAST;
    put_sm(&r, 3, r.me.guid + 9, 7, DISC);
    rig_discover(&r);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 120, NULL, &err), 1);
    assert_true(sminfo_gets(&r) >= 2);
    assert_int_equal(log_count(&r.lc, "still discovering after the wait"), 1);
    assert_int_equal(r.lc.warnings, 1);
    cs_sma_model_reset_counts(r.m);
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 0, NULL, &err), 1);
    assert_int_equal(sminfo_gets(&r), 1);
    assert_int_equal(r.lc.warnings, 1);
    rig_close(&r);
}

/* Master, a standby of higher precedence shows up: it gets mastership (HANDOVER, carrying our
 * SMInfo as MASTER), and once it answered we stand by, polling it; its polls say it is alive.
 * A standby of lower precedence is left alone; a HANDOVER it refuses keeps us master. */
static void test_elect_hands_over_to_standby(void **state)
{
    (void)state;
    struct rig r;
    struct cs_error err;
    struct cs_sm_peer winner;
    rig_open(&r);
    put_sm(&r, 9, r.me.guid + 1, 6, STBY);
    rig_discover(&r);
    r.me.state = MAST;
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 0, &winner, &err), 0);
    assert_int_equal(winner.info.guid, r.me.guid + 1);
    assert_int_equal(r.me.state, STBY);
    assert_int_equal(r.me.master_guid, r.me.guid + 1);
    assert_int_equal(cs_sma_model_count(r.m, CS_SMP_ATTR_SM_INFO, CS_SMP_METHOD_SET), 1);
    struct cs_smp_sm_info its;
    uint8_t control;
    assert_int_equal(cs_sma_model_get_sm(r.m, host_port(&r, 9), &its, &control), 0);
    assert_int_equal(control, CS_SMP_SM_HANDOVER);
    assert_int_equal(its.sm_state, MAST);
    assert_int_equal(log_count(&r.lc, "a standby of higher priority"), 1);
    struct cs_smp_sm_info seen;
    assert_int_equal(cs_sm_poll_master(r.pipe, &r.me, &r.log, &seen, &err), 1);
    assert_int_equal(seen.sm_state, MAST);
    rig_close(&r);

    /* Lower precedence: nothing but the poll. */
    rig_open(&r);
    put_sm(&r, 9, r.me.guid + 1, 4, STBY);
    rig_discover(&r);
    r.me.state = MAST;
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 0, NULL, &err), 1);
    assert_int_equal(other_requests(&r), 0);
    rig_close(&r);

    /* It does not take the HANDOVER (its SM answers no more): we stay master. */
    rig_open(&r);
    put_sm(&r, 9, r.me.guid + 1, 6, STBY);
    assert_int_equal(cs_sma_model_set_sm_next(r.m, host_port(&r, 9), 1, NULL, &err), 0);
    rig_discover(&r);
    r.me.state = MAST;
    assert_int_equal(cs_sm_elect(r.pipe, &r.s, &r.me, &r.log, 0, NULL, &err), 1);
    assert_int_equal(r.me.state, MAST);
    assert_int_equal(log_count(&r.lc, "handover not taken: staying master"), 1);
    rig_close(&r);
}

/* STANDBY's poll: alive while the master answers as MASTER (or as a standby of higher precedence,
 * where OpenSM polls after starting a handover); not when it stops answering, answers with another
 * GUID, or is a standby below us. */
static void test_poll_master(void **state)
{
    (void)state;
    struct rig r;
    struct cs_error err;
    rig_open(&r);
    put_sm(&r, 9, r.me.guid + 1, 0, MAST);
    rig_discover(&r);
    r.me.state = STBY;
    r.me.master_guid = r.me.guid + 1;
    r.me.master_path = path_to_host(&r, 9);
    assert_int_equal(cs_sm_poll_master(r.pipe, &r.me, &r.log, NULL, &err), 1);
    put_sm(&r, 9, r.me.guid + 1, 9, STBY); /* a standby above us */
    assert_int_equal(cs_sm_poll_master(r.pipe, &r.me, &r.log, NULL, &err), 1);
    put_sm(&r, 9, r.me.guid + 1, 1, STBY); /* below us */
    assert_int_equal(cs_sm_poll_master(r.pipe, &r.me, &r.log, NULL, &err), 0);
    put_sm(&r, 9, r.me.guid + 7, 9, MAST); /* another SM on that port */
    assert_int_equal(cs_sm_poll_master(r.pipe, &r.me, &r.log, NULL, &err), 0);
    assert_int_equal(cs_sma_model_set_sm(r.m, host_port(&r, 9), NULL, &err), 0); /* it died */
    assert_int_equal(cs_sm_poll_master(r.pipe, &r.me, &r.log, NULL, &err), 0);
    assert_int_equal(sminfo_gets(&r), 5);
    assert_int_equal(other_requests(&r), 0);
    rig_close(&r);
}

/* SubnSet(SMInfo) from another SM, by AttributeModifier and our state (sm.h's table): the answer
 * carries our SMInfo as it was; a legal control changes the state and is noted for the loop; an
 * illegal one (wrong state, a sender that is not master, an unknown modifier) is refused with
 * status "invalid field" and changes nothing. */
static void test_answer_controls(void **state)
{
    (void)state;
    const uint8_t path[] = {0, 3, 7};
    struct cs_smp req, ans;
    struct cs_error err;
    struct cs_smp_sm_info from = {.guid = 0x900, .priority = 9, .sm_state = MAST}, info;
    const struct {
        uint8_t state, control, sender, after;
        bool ok;
    } cases[] = {
        {STBY, CS_SMP_SM_HANDOVER, MAST, MAST, true},
        {DISC, CS_SMP_SM_HANDOVER, MAST, MAST, true},
        {MAST, CS_SMP_SM_HANDOVER, MAST, MAST, true},
        {NOTA, CS_SMP_SM_HANDOVER, MAST, NOTA, false},
        {STBY, CS_SMP_SM_HANDOVER, STBY, STBY, false}, /* not from a master */
        {STBY, CS_SMP_SM_ACKNOWLEDGE, STBY, STBY, true},
        {MAST, CS_SMP_SM_ACKNOWLEDGE, STBY, MAST, true},
        {STBY, CS_SMP_SM_ACKNOWLEDGE, MAST, STBY, false}, /* an acknowledgement from a standby */
        {STBY, CS_SMP_SM_DISABLE, MAST, NOTA, true},
        {MAST, CS_SMP_SM_DISABLE, MAST, MAST, false},
        {NOTA, CS_SMP_SM_STANDBY, MAST, STBY, true},
        {STBY, CS_SMP_SM_STANDBY, MAST, STBY, false},
        {STBY, CS_SMP_SM_DISCOVER, MAST, DISC, true},
        {MAST, CS_SMP_SM_DISCOVER, MAST, DISC, true},
        {NOTA, CS_SMP_SM_DISCOVER, MAST, NOTA, false},
        {STBY, 9, MAST, STBY, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cs_sm_identity me = {.guid = 0x500, .priority = 5, .state = cases[i].state};
        assert_int_equal(cs_smp_init_directed(&req, CS_SMP_METHOD_SET, CS_SMP_ATTR_SM_INFO,
                                              cases[i].control, path, 2, 1, &err),
                         0);
        req.return_path[1] = 4;
        req.return_path[2] = 2;
        from.sm_state = cases[i].sender;
        cs_smp_sm_info_encode(&from, req.data);
        assert_int_equal(cs_sm_answer_sminfo(&me, &req, &ans), 1);
        assert_int_equal(ans.method, CS_SMP_METHOD_GET_RESP);
        assert_int_equal(ans.status & CS_SMP_STATUS_CODE_MASK,
                         cases[i].ok ? 0 : CS_SMP_STATUS_INVALID_FIELD);
        cs_smp_sm_info_decode(ans.data, &info);
        assert_int_equal(info.guid, 0x500);
        assert_int_equal(info.sm_state, cases[i].state); /* as it was */
        if (me.state != cases[i].after)
            fail_msg("case %zu: state %u, want %u", i, me.state, cases[i].after);
        assert_int_equal(me.control, cases[i].ok ? cases[i].control : 0);
        assert_int_equal(me.num_askers, 0); /* a Set is not a poll */
        if (!cases[i].ok)
            continue;
        assert_int_equal(me.control_prior, cases[i].state);
        assert_int_equal(me.control_from, 0x900);
        assert_int_equal(me.control_path.hops, 2); /* the route back: 2, 4 */
        assert_int_equal(me.control_path.port[1], 2);
        assert_int_equal(me.control_path.port[2], 4);
        if (cases[i].control == CS_SMP_SM_STANDBY) /* polling the master that said so */
            assert_int_equal(me.master_guid, 0x900);
    }
}

/* What we note of an asker: the reverse of its return path; nothing for a LID-routed request, a
 * return path the transport did not fill, or past CS_SM_ASKERS_MAX. */
static void test_answer_notes_askers(void **state)
{
    (void)state;
    struct cs_sm_identity me = {.guid = 0x500, .priority = 5, .state = DISC};
    const uint8_t path[] = {0, 3, 7, 1};
    struct cs_smp req, ans;
    struct cs_error err;
    assert_int_equal(
        cs_smp_init_directed(&req, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, path, 3, 1, &err), 0);
    req.return_path[1] = 5;
    req.return_path[2] = 6;
    req.return_path[3] = 2;
    assert_int_equal(cs_sm_answer_sminfo(&me, &req, &ans), 1);
    assert_int_equal(me.num_askers, 1);
    assert_int_equal(me.askers[0].hops, 3);
    assert_int_equal(me.askers[0].port[1], 2);
    assert_int_equal(me.askers[0].port[2], 6);
    assert_int_equal(me.askers[0].port[3], 5);
    struct cs_smp unfilled = req;
    unfilled.return_path[2] = 0;
    assert_int_equal(cs_sm_answer_sminfo(&me, &unfilled, &ans), 1);
    struct cs_smp lid_routed;
    cs_smp_init_lid_routed(&lid_routed, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, 2);
    assert_int_equal(cs_sm_answer_sminfo(&me, &lid_routed, &ans), 1);
    assert_int_equal(me.num_askers, 1);
    for (unsigned i = 0; i < CS_SM_ASKERS_MAX + 3; i++) {
        req.return_path[1] = (uint8_t)(10 + i);
        assert_int_equal(cs_sm_answer_sminfo(&me, &req, &ans), 1);
    }
    assert_int_equal(me.num_askers, CS_SM_ASKERS_MAX);
    /* Whatever we note, the answer is the same. */
    struct cs_smp_sm_info info;
    cs_smp_sm_info_decode(ans.data, &info);
    assert_int_equal(info.guid, 0x500);
    assert_int_equal(info.sm_state, DISC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precedes),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_decide_pairs_agree),
        cmocka_unit_test(test_poll_sms),
        cmocka_unit_test(test_elect_yields_to_master),
        cmocka_unit_test(test_elect_discovering_pair),
        cmocka_unit_test(test_elect_race_both_claim),
        cmocka_unit_test(test_elect_asker),
        cmocka_unit_test(test_elect_waits_for_undecided),
        cmocka_unit_test(test_answer_notes_askers),
        cmocka_unit_test(test_elect_hands_over_to_standby),
        cmocka_unit_test(test_poll_master),
        cmocka_unit_test(test_answer_controls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
