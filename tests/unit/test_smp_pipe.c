/* The SMP pipeline against a scripted transport: window limit, matching by transaction id,
 * retries and timeouts, stray replies, callbacks that submit more, answers to other SMs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/sm.h"
#include "cloudsm/smp_pipe.h"

/* The fake fabric: remembers what was sent; answers each request when asked, or drops the
 * first `drop` attempts of every request. */
#define MAX_SENT 4096
struct fake {
    uint8_t sent[MAX_SENT][CS_SMP_SIZE];
    uint16_t sent_dlid[MAX_SENT];
    unsigned num_sent;
    unsigned answered; /* sent[0..answered) have been answered or dropped */
    unsigned in_flight_max;
    unsigned drop_first; /* drop the first N attempts of every request (by attr_mod) */
    unsigned attempts[256];
    bool never_answer;
    bool reply_twice; /* every reply arrives twice: the second is stray */
    uint8_t pending_dup[CS_SMP_SIZE];
    bool has_dup;
    uint8_t inject[CS_SMP_SIZE]; /* an unsolicited request delivered first */
    bool has_inject;
};

static unsigned outstanding(const struct fake *fk)
{
    return fk->num_sent - fk->answered;
}

static int fake_send(void *ctx, const uint8_t mad[CS_SMP_SIZE], uint16_t dlid, struct cs_error *err)
{
    (void)err;
    struct fake *fk = ctx;
    assert_true(fk->num_sent < MAX_SENT);
    memcpy(fk->sent[fk->num_sent], mad, CS_SMP_SIZE);
    fk->sent_dlid[fk->num_sent] = dlid;
    fk->num_sent++;
    if (outstanding(fk) > fk->in_flight_max)
        fk->in_flight_max = outstanding(fk);
    return 0;
}

static int fake_recv(void *ctx, uint8_t mad[CS_SMP_SIZE], uint16_t *slid, int timeout_ms,
                     struct cs_error *err)
{
    (void)timeout_ms;
    (void)err;
    struct fake *fk = ctx;
    *slid = 7;
    if (fk->has_inject) {
        fk->has_inject = false;
        memcpy(mad, fk->inject, CS_SMP_SIZE);
        return 1;
    }
    if (fk->has_dup) {
        fk->has_dup = false;
        memcpy(mad, fk->pending_dup, CS_SMP_SIZE);
        return 1;
    }
    while (fk->answered < fk->num_sent) {
        struct cs_smp req;
        cs_smp_decode(fk->sent[fk->answered++], &req);
        if (req.method & 0x80)
            continue; /* our own answer to someone else */
        unsigned id = req.attr_mod & 0xff;
        if (fk->never_answer || fk->attempts[id]++ < fk->drop_first)
            continue;
        struct cs_smp reply = req;
        /* A Trap is answered by TrapRepress, which has no response bit; the rest by GetResp. */
        reply.method =
            req.method == CS_SMP_METHOD_TRAP ? CS_SMP_METHOD_TRAP_REPRESS : CS_SMP_METHOD_GET_RESP;
        reply.status =
            (req.mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE ? CS_SMP_STATUS_DIRECTION : 0) |
            (req.attr_mod >= 200 ? 0x1c : 0);
        reply.data[0] = (uint8_t)(req.attr_mod + 1);
        cs_smp_encode(&reply, mad);
        if (fk->reply_twice) {
            memcpy(fk->pending_dup, mad, CS_SMP_SIZE);
            fk->has_dup = true;
        }
        return 1;
    }
    return 0; /* "timed out": the pipe's own clock decides */
}

struct tally {
    unsigned ok, status, timeout;
    unsigned order[512];
    unsigned count;
    struct cs_smp_pipe *pipe; /* for callbacks that submit more */
    unsigned chain;           /* submit this many follow-ups */
};

static int on_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                   const struct cs_smp *reply, struct cs_error *err)
{
    struct tally *t = arg;
    if (result == CS_SMP_OK) {
        t->ok++;
        assert_int_equal(reply->data[0], (uint8_t)(req->attr_mod + 1));
        assert_int_equal((uint32_t)reply->transaction_id, (uint32_t)req->transaction_id);
    } else if (result == CS_SMP_STATUS) {
        t->status++;
        assert_int_equal(reply->status & CS_SMP_STATUS_CODE_MASK, 0x1c);
    } else {
        t->timeout++;
        assert_null(reply);
    }
    t->order[t->count++ % 512] = req->attr_mod;
    if (t->chain > 0) {
        t->chain--;
        struct cs_smp next;
        uint8_t path[2] = {0, 1};
        assert_int_equal(cs_smp_init_directed(&next, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO,
                                              req->attr_mod + 10, path, 1, 0, err),
                         0);
        return cs_smp_pipe_submit(t->pipe, &next, CS_SMP_PERMISSIVE_LID, on_done, t, err);
    }
    return 0;
}

static struct cs_smp_pipe *make_pipe(struct fake *fk, unsigned window, unsigned timeout_ms,
                                     unsigned retries)
{
    struct cs_smp_transport tr = {.ctx = fk, .send = fake_send, .recv = fake_recv};
    struct cs_smp_pipe_options opt = {window, timeout_ms, retries};
    struct cs_error err;
    struct cs_smp_pipe *pipe = cs_smp_pipe_create(&tr, &opt, &err);
    assert_non_null(pipe);
    return pipe;
}

static void submit_n(struct cs_smp_pipe *pipe, unsigned n, struct tally *t)
{
    struct cs_error err;
    for (unsigned i = 0; i < n; i++) {
        struct cs_smp smp;
        uint8_t path[3] = {0, 1, 2};
        assert_int_equal(cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_PORT_INFO, i,
                                              path, 2, 0, &err),
                         0);
        assert_int_equal(cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, on_done, t, &err),
                         0);
    }
}

static void test_window_and_matching(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    struct cs_smp_pipe *pipe = make_pipe(&fk, 8, 50, 0);
    struct tally t = {0};
    submit_n(pipe, 100, &t);
    assert_int_equal(fk.num_sent, 0); /* nothing leaves before run */
    struct cs_error err;
    assert_int_equal(cs_smp_pipe_run(pipe, &err), 0);
    assert_int_equal(t.ok, 100);
    assert_int_equal(fk.num_sent, 100);
    assert_int_equal(fk.in_flight_max, 8); /* the window is filled, never exceeded */
    /* Submission order is send order: the fake answers in order, so completions are too. */
    for (unsigned i = 0; i < 100; i++)
        assert_int_equal(t.order[i], i);
    /* Transaction ids: low 32 bits only, all distinct, never 0. */
    for (unsigned i = 0; i < 100; i++) {
        struct cs_smp a;
        cs_smp_decode(fk.sent[i], &a);
        assert_int_equal(a.transaction_id >> 32, 0);
        assert_true(a.transaction_id != 0);
        for (unsigned j = 0; j < i; j++) {
            struct cs_smp b;
            cs_smp_decode(fk.sent[j], &b);
            assert_true(a.transaction_id != b.transaction_id);
        }
        assert_int_equal(fk.sent_dlid[i], CS_SMP_PERMISSIVE_LID);
    }
    struct cs_smp_pipe_stats st = cs_smp_pipe_stats(pipe);
    assert_int_equal(st.sent, 100);
    assert_int_equal(st.completed, 100);
    assert_int_equal(st.gets, 100);
    assert_int_equal(st.sets, 0);
    assert_int_equal(st.timeouts + st.retries + st.stray, 0);
    cs_smp_pipe_destroy(pipe);
}

static void test_retries_then_success(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    fk.drop_first = 2; /* every request's first two attempts are lost */
    struct cs_smp_pipe *pipe = make_pipe(&fk, 4, 5, 2);
    struct tally t = {0};
    submit_n(pipe, 10, &t);
    struct cs_error err;
    assert_int_equal(cs_smp_pipe_run(pipe, &err), 0);
    assert_int_equal(t.ok, 10);
    assert_int_equal(t.timeout, 0);
    struct cs_smp_pipe_stats st = cs_smp_pipe_stats(pipe);
    assert_int_equal(st.retries, 20);
    assert_int_equal(st.sent, 30);
    assert_int_equal(st.gets, 10); /* first attempts only */
    cs_smp_pipe_destroy(pipe);
}

static void test_retries_exhausted(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    fk.never_answer = true;
    struct cs_smp_pipe *pipe = make_pipe(&fk, 3, 5, 1);
    struct tally t = {0};
    submit_n(pipe, 5, &t);
    struct cs_error err;
    assert_int_equal(cs_smp_pipe_run(pipe, &err), 0);
    assert_int_equal(t.timeout, 5);
    struct cs_smp_pipe_stats st = cs_smp_pipe_stats(pipe);
    assert_int_equal(st.timeouts, 5);
    assert_int_equal(st.retries, 5);
    assert_int_equal(st.sent, 10);
    cs_smp_pipe_destroy(pipe);
}

static void test_status_and_strays(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    fk.reply_twice = true;
    struct cs_smp_pipe *pipe = make_pipe(&fk, 16, 50, 0);
    struct tally t = {0};
    struct cs_error err;
    struct cs_smp smp;
    uint8_t path[2] = {0, 1};
    for (unsigned mod = 198; mod < 203; mod++) { /* 200..202 come back with status 0x1c */
        assert_int_equal(cs_smp_init_directed(&smp, CS_SMP_METHOD_SET, CS_SMP_ATTR_LINEAR_FT, mod,
                                              path, 1, 0, &err),
                         0);
        assert_int_equal(cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, on_done, &t, &err),
                         0);
    }
    assert_int_equal(cs_smp_pipe_run(pipe, &err), 0);
    assert_int_equal(t.ok, 2);
    assert_int_equal(t.status, 3);
    struct cs_smp_pipe_stats st = cs_smp_pipe_stats(pipe);
    assert_int_equal(st.bad_status, 3);
    assert_int_equal(st.sets, 5);
    /* Each duplicate arrives after its request completed: stray, not a second completion. The
     * last one is still in the transport when run returns; idle drains it. */
    assert_int_equal(st.stray, 4);
    assert_int_equal(cs_smp_pipe_idle(pipe, 1, &err), 0);
    st = cs_smp_pipe_stats(pipe);
    assert_int_equal(st.stray, 5);
    assert_int_equal(st.completed, 5);
    cs_smp_pipe_destroy(pipe);
}

static void test_callbacks_submit_more(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    struct cs_smp_pipe *pipe = make_pipe(&fk, 2, 50, 0);
    struct tally t = {.pipe = pipe, .chain = 7};
    submit_n(pipe, 3, &t);
    struct cs_error err;
    assert_int_equal(cs_smp_pipe_run(pipe, &err), 0);
    assert_int_equal(t.ok, 10); /* 3 submitted up front + 7 from callbacks, all completed */
    assert_int_equal(t.chain, 0);
    cs_smp_pipe_destroy(pipe);
}

static int fail_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                     const struct cs_smp *reply, struct cs_error *err)
{
    (void)result;
    (void)req;
    (void)reply;
    unsigned *calls = arg;
    (*calls)++;
    return cs_fail(err, "callback says stop");
}

static void test_callback_error_stops_run(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    struct cs_smp_pipe *pipe = make_pipe(&fk, 4, 50, 0);
    unsigned calls = 0;
    struct cs_error err;
    for (unsigned i = 0; i < 10; i++) {
        struct cs_smp smp;
        cs_smp_init_lid_routed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, i, 0);
        assert_int_equal(cs_smp_pipe_submit(pipe, &smp, 42, fail_done, &calls, &err), 0);
    }
    assert_int_equal(cs_smp_pipe_run(pipe, &err), -1);
    assert_string_equal(err.msg, "callback says stop");
    assert_int_equal(calls, 1);
    assert_int_equal(fk.sent_dlid[0], 42);
    /* The pipe is reusable and empty afterwards. */
    assert_int_equal(cs_smp_pipe_run(pipe, &err), 0);
    assert_int_equal(calls, 1);
    cs_smp_pipe_destroy(pipe);
}

static int answer_all(void *arg, const struct cs_smp *mad, struct cs_smp *answer)
{
    unsigned *seen = arg;
    (*seen)++;
    *answer = *mad;
    answer->method = CS_SMP_METHOD_GET_RESP;
    return 1;
}

static void test_unsolicited(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    struct cs_smp req;
    cs_smp_init_lid_routed(&req, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, 0x1234);
    cs_smp_encode(&req, fk.inject);
    fk.has_inject = true;
    struct cs_smp_pipe *pipe = make_pipe(&fk, 4, 50, 0);
    unsigned seen = 0;
    cs_smp_pipe_set_unsolicited(pipe, answer_all, &seen);
    struct cs_error err;
    assert_int_equal(cs_smp_pipe_idle(pipe, 1, &err), 0);
    assert_int_equal(seen, 1);
    assert_int_equal(fk.num_sent, 1);
    struct cs_smp sent;
    cs_smp_decode(fk.sent[0], &sent);
    assert_int_equal(sent.method, CS_SMP_METHOD_GET_RESP);
    assert_int_equal(sent.transaction_id, 0x1234); /* the asker's id, not one of ours */
    assert_int_equal(fk.sent_dlid[0], 7);          /* LID-routed: back to the sender's LID */
    assert_int_equal(cs_smp_pipe_stats(pipe).unsolicited, 1);
    cs_smp_pipe_destroy(pipe);
}

/* Our Trap (a standby's Trap 144 to the master, src/sm/master.c) is completed by the TrapRepress
 * that answers it, not taken for a request from another: it is sent once, as IBA's Notice. */
static void test_trap_repressed(void **state)
{
    (void)state;
    static struct fake fk;
    memset(&fk, 0, sizeof(fk));
    struct cs_smp_pipe *pipe = make_pipe(&fk, 4, 50, 2);
    unsigned seen = 0;
    cs_smp_pipe_set_unsolicited(pipe, answer_all, &seen);
    struct cs_error err;
    struct cs_log quiet = {0};
    assert_int_equal(cs_sm_send_trap144(pipe, 0x12, 0x34, 0x0251084a, &quiet, &err), 1);
    assert_int_equal(seen, 0); /* the TrapRepress went to our Trap, not to the handler */
    assert_int_equal(fk.num_sent, 1);
    assert_int_equal(fk.sent_dlid[0], 0x34);
    struct cs_smp trap;
    cs_smp_decode(fk.sent[0], &trap);
    assert_int_equal(trap.mgmt_class, CS_SMP_CLASS_LID_ROUTED);
    assert_int_equal(trap.method, CS_SMP_METHOD_TRAP);
    assert_int_equal(trap.attr_id, CS_SMP_ATTR_NOTICE);
    const uint8_t want[24] = {
        0x84, 0,    0,    1,    /* generic, type info; producer type CA */
        0,    144,              /* trap number */
        0,    0x12,             /* issuer LID */
        0,    0,    0,    0,    /* notice toggle and count; reserved */
        0,    0x12,             /* LIDADDR */
        0,    0x01,             /* OtherLocalChanges */
        0x02, 0x51, 0x08, 0x4a, /* the capability mask */
        0,    0,    0,    0x08, /* reserved; change flags: SM priority */
    };
    assert_memory_equal(trap.data, want, sizeof want);
    assert_int_equal(cs_smp_pipe_stats(pipe).timeouts, 0);
    cs_smp_pipe_destroy(pipe);
}

static void test_bad_window(void **state)
{
    (void)state;
    struct fake *fk = NULL;
    struct cs_smp_transport tr = {.ctx = fk, .send = fake_send, .recv = fake_recv};
    struct cs_smp_pipe_options opt = {CS_SMP_PIPE_MAX_WINDOW + 1, 0, 0};
    struct cs_error err;
    assert_null(cs_smp_pipe_create(&tr, &opt, &err));
    assert_non_null(strstr(err.msg, "window"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_and_matching),
        cmocka_unit_test(test_retries_then_success),
        cmocka_unit_test(test_retries_exhausted),
        cmocka_unit_test(test_status_and_strays),
        cmocka_unit_test(test_callbacks_submit_more),
        cmocka_unit_test(test_callback_error_stops_run),
        cmocka_unit_test(test_unsolicited),
        cmocka_unit_test(test_trap_repressed),
        cmocka_unit_test(test_bad_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
