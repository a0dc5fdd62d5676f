/* The SA flooder (src/sa/sa_flood.c): Algorithm 1's arithmetic and Eq. 1 as Paper I states them,
 * the response-time summary, and flooders against the library's SA on the SMA model
 * (sa_client_fixtures.h) whose replies each cost a fixed time of the transport's clock: a single
 * server of known capacity, so rates and response times are exact. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/sa_flood.h"
#include "sa_client_fixtures.h"
#include "sm_fixtures.h"

/* R2 (thesis lines 2276-2285): "In the final round (25th) of the last experiment with n = 5 MIFs,
 * 961 total instances are sending SA queries" (k = 8), and with k = 1 "the final round (25th)
 * has 121 total instances running". Round 1 is the SIF alone (thesis lines 2100-2106). */
static void test_instance_counts(void **state)
{
    (void)state;
    assert_int_equal(cs_saflood_total_instances(5, 8, 25), 961);
    assert_int_equal(cs_saflood_total_instances(5, 1, 25), 121);
    assert_int_equal(cs_saflood_total_instances(5, 8, 1), 1);
    assert_int_equal(cs_saflood_total_instances(3, 8, 2), 25);
    assert_int_equal(cs_saflood_mif_instances(8, 1), 0);
    assert_int_equal(cs_saflood_mif_instances(8, 2), 8);
    assert_int_equal(cs_saflood_mif_instances(8, 25), 192);
}

/* R1 (thesis line 2223, Eq. 1): SIF_max + sum MIF_x_max = 440 + 1150 + 2100 * 4 = 9990, and the
 * "expected theoretical max" column of Table V (thesis lines 2391-2401): ~2540, ~4640, ~6740,
 * ~8840 for 1..4 MIFs (MIF1-MIF4 are the 2100 Q/s hosts) and ~9990 for 5. */
static void test_capacity_eq1(void **state)
{
    (void)state;
    const double *mif = cs_saflood_paper_mif_max;
    assert_true(cs_saflood_capacity(CS_SAFLOOD_PAPER_SIF_MAX, mif, 5) == 9990);
    const double expected[6] = {440, 2540, 4640, 6740, 8840, 9990};
    for (unsigned n = 0; n <= 5; n++)
        assert_true(cs_saflood_capacity(CS_SAFLOOD_PAPER_SIF_MAX, mif, n) == expected[n]);
}

static void test_latency_summary(void **state)
{
    (void)state;
    struct cs_latency_summary s;
    double odd[] = {900, 100, 500, 300, 700}; /* us */
    cs_latency_summarize(odd, 5, &s);
    assert_int_equal(s.count, 5);
    assert_true(fabs(s.mean_ms - 0.5) < 1e-12);
    assert_true(fabs(s.median_ms - 0.5) < 1e-12);
    /* Sample standard deviation: sqrt((4+1+0+1+4) * 0.04 / 4) ms. */
    assert_true(fabs(s.stddev_ms - sqrt(0.1)) < 1e-12);
    assert_true(s.min_ms == 0.1 && s.max_ms == 0.9);
    assert_true(s.p99_ms == 0.9);
    double even[] = {4000, 1000, 3000, 2000};
    cs_latency_summarize(even, 4, &s);
    assert_true(fabs(s.median_ms - 2.5) < 1e-12);
    cs_latency_summarize(NULL, 0, &s);
    assert_int_equal(s.count, 0);
    assert_true(s.mean_ms == 0 && s.median_ms == 0);
    /* p99 by nearest rank: the 99th of 100. */
    double hundred[100];
    for (int i = 0; i < 100; i++)
        hundred[i] = (i + 1) * 1000.0;
    cs_latency_summarize(hundred, 100, &s);
    assert_true(s.p99_ms == 99);
}

struct rig {
    struct cs_fabric f;
    struct sa_fabric x;
    struct sa_loop loop;
    struct cs_gmp_transport t;
    struct cs_sa_client *sa;
    struct cs_saflood *flood;
    struct cs_saflood_target targets[12];
};

static void rig_open(struct rig *r, uint64_t service_us, unsigned timeout_ms, bool by_gid,
                     uint64_t limit)
{
    struct cs_error err;
    gen_pgft(&r->f);
    sa_fabric_up(&r->x, &r->f, false);
    sa_loop_init(&r->loop, &r->x, FX_HOST_PORT_GUID(2));
    r->loop.service_us = service_us;
    r->t = sa_loop_transport(&r->loop);
    struct cs_sa_client_options co = {.timeout_ms = timeout_ms};
    assert_int_equal(cs_sa_client_create(&r->t, &co, &r->sa, &err), 0);
    for (unsigned h = 0; h < 12; h++)
        r->targets[h] = (struct cs_saflood_target){FX_HOST_PORT_GUID(h),
                                                   sa_fabric_lid(&r->x, FX_HOST_PORT_GUID(h))};
    struct cs_saflood_options opt = {
        .targets = r->targets,
        .num_targets = 12,
        .by_gid = by_gid,
        .source = r->targets[2],
        .subnet_prefix = FX_LINK_LOCAL,
        .seed = 1,
        .limit = limit,
    };
    assert_int_equal(cs_saflood_create(r->sa, &opt, &r->flood, &err), 0);
}

static void rig_close(struct rig *r)
{
    cs_saflood_destroy(r->flood);
    cs_sa_client_destroy(r->sa);
    sa_loop_free(&r->loop);
    sa_fabric_down(&r->x);
    cs_fabric_free(&r->f);
}

/* An SA that serves one query per 100 us of its clock: 8 synchronous instances get 10000 Q/s
 * between them, each query waiting behind the 7 others (800 us), whatever the window. */
static void test_flooder_rate_and_response_time(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, 100, 1000, true, 0);
    struct cs_error err;
    assert_int_equal(cs_saflood_add_instances(r.flood, 8, &err), 0);
    assert_int_equal(cs_saflood_instances(r.flood), 8);
    assert_int_equal(cs_sa_client_outstanding(r.sa), 8);
    /* Settle, then a one-second window. */
    assert_int_equal(cs_saflood_run_until(r.flood, 50000, &err), 0);
    cs_saflood_window_begin(r.flood);
    uint64_t start = cs_sa_client_now_us(r.sa);
    assert_int_equal(cs_saflood_run_until(r.flood, start + 1000000, &err), 0);
    struct cs_saflood_window w;
    assert_int_equal(cs_saflood_window_end(r.flood, &w, &err), 0);
    assert_true(fabs(w.seconds - 1.0) < 1e-9);
    assert_int_equal(w.counts.answered, 10000);
    assert_int_equal(w.counts.sent, 10000); /* each answer starts the instance's next query */
    assert_int_equal(w.counts.timeouts + w.counts.refused, 0);
    assert_true(fabs(w.qps - 10000) < 1e-6);
    assert_int_equal(w.latency.count, 10000);
    assert_true(fabs(w.latency.median_ms - 0.8) < 1e-9);
    assert_true(fabs(w.latency.mean_ms - 0.8) < 1e-9);
    assert_true(w.latency.stddev_ms < 1e-9);
    /* Every query reached the SA as an SGID/DGID Get and was answered with a record. */
    struct cs_sa_header h;
    cs_sa_header_decode(r.loop.last_request, &h);
    assert_true(h.component_mask ==
                (CS_SA_PR_DGID | CS_SA_PR_SGID | CS_SA_PR_REVERSIBLE | CS_SA_PR_NUMB_PATH));
    struct cs_saflood_counts tot = cs_saflood_totals(r.flood);
    assert_int_equal(r.loop.requests, tot.sent);
    assert_int_equal(tot.sent, tot.answered + cs_sa_client_outstanding(r.sa));

    /* Twice the instances: the same rate (one server), twice the wait. */
    assert_int_equal(cs_saflood_add_instances(r.flood, 8, &err), 0);
    assert_int_equal(cs_saflood_run_until(r.flood, cs_sa_client_now_us(r.sa) + 50000, &err), 0);
    cs_saflood_window_begin(r.flood);
    start = cs_sa_client_now_us(r.sa);
    assert_int_equal(cs_saflood_run_until(r.flood, start + 500000, &err), 0);
    assert_int_equal(cs_saflood_window_end(r.flood, &w, &err), 0);
    assert_int_equal(w.counts.answered, 5000);
    assert_true(fabs(w.latency.median_ms - 1.6) < 1e-9);

    /* Stopped: the 16 queries in flight complete, no instance starts another. */
    tot = cs_saflood_totals(r.flood);
    assert_int_equal(cs_sa_client_outstanding(r.sa), 16);
    cs_saflood_stop(r.flood);
    assert_int_equal(cs_saflood_drain(r.flood, &err), 0);
    assert_int_equal(cs_sa_client_outstanding(r.sa), 0);
    assert_int_equal(cs_saflood_totals(r.flood).sent, tot.sent);
    assert_int_equal(cs_saflood_totals(r.flood).answered, tot.answered + 16);
    assert_int_equal(r.loop.requests, tot.sent);
    rig_close(&r);
}

/* No SA: every instance times out once per timeout; nothing is answered. */
static void test_flooder_timeouts(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, 0, 100, false, 0);
    r.loop.sm_down = true;
    struct cs_error err;
    assert_int_equal(cs_saflood_add_instances(r.flood, 4, &err), 0);
    cs_saflood_window_begin(r.flood);
    assert_int_equal(cs_saflood_run_until(r.flood, 1000 * 1000, &err), 0);
    struct cs_saflood_window w;
    assert_int_equal(cs_saflood_window_end(r.flood, &w, &err), 0);
    assert_int_equal(w.counts.answered, 0);
    assert_int_equal(w.counts.timeouts, 4 * 10);
    assert_int_equal(w.counts.sent, 4 * 10);
    assert_true(w.qps == 0);
    assert_int_equal(w.latency.count, 0);
    /* SLID/DLID queries. */
    struct cs_sa_header h;
    cs_sa_header_decode(r.loop.last_request, &h);
    assert_true(h.component_mask == (CS_SA_PR_DLID | CS_SA_PR_SLID));
    /* Neither a limit nor a stop: draining would never end. */
    assert_int_equal(cs_saflood_drain(r.flood, &err), -1);
    assert_non_null(strstr(err.msg, "would run forever"));
    rig_close(&r);
}

/* A fixed number of queries (bench/sa_flood's mode): exactly that many sent and completed. The
 * SA refuses paths to unknown ports: those count as refused, not answered. */
static void test_flooder_limit_and_refusals(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, 10, 1000, false, 1000);
    struct cs_error err;
    r.targets[5].lid = 0xbff0; /* a LID nobody has */
    cs_saflood_destroy(r.flood);
    struct cs_saflood_options opt = {
        .targets = r.targets, .num_targets = 12, .random_source = true, .seed = 3, .limit = 1000};
    assert_int_equal(cs_saflood_create(r.sa, &opt, &r.flood, &err), 0);
    assert_int_equal(cs_saflood_add_instances(r.flood, 16, &err), 0);
    assert_int_equal(cs_saflood_drain(r.flood, &err), 0);
    struct cs_saflood_counts tot = cs_saflood_totals(r.flood);
    assert_int_equal(tot.sent, 1000);
    assert_int_equal(tot.answered + tot.refused, 1000);
    assert_int_equal(r.loop.requests, 1000);
    /* About 1 - (11/12)^2 of random pairs name the bad LID at one end or the other. */
    assert_true(tot.refused > 120 && tot.refused < 220);
    assert_int_equal(cs_sa_client_stats(r.sa).status, tot.refused);
    rig_close(&r);

    /* No targets, no limit to run to. */
    struct cs_saflood *f;
    struct cs_saflood_options none = {0};
    assert_int_equal(cs_saflood_create(NULL, &none, &f, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instance_counts),
        cmocka_unit_test(test_capacity_eq1),
        cmocka_unit_test(test_latency_summary),
        cmocka_unit_test(test_flooder_rate_and_response_time),
        cmocka_unit_test(test_flooder_timeouts),
        cmocka_unit_test(test_flooder_limit_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
