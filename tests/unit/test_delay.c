/* The delay engine on the paper's reference cases (spec workload-delay.md section 1.4, seed lines
 * 7169-7190) and a Fig. 2-like drain (seed 7149-7168), plus the bounded variant and slicing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cloudsm/delay.h"

#define T 1440

/* Case 1: one core, constant 100% demand: zero delay (seed 7171-7174). */
static void test_case1_no_delay(void **state)
{
    (void)state;
    double d[T];
    for (int t = 0; t < T; t++)
        d[t] = 100;
    struct cs_delay_stats s;
    cs_delay_eval(d, T, 100, CS_DELAY_DRAIN_TIME, 1.0, &s);
    assert_true(s.total_delay == 0);
    assert_true(s.max_delay == 0);
    assert_int_equal(s.delayed_steps, 0);
    assert_true(fabs(s.filling - 1.0) < 1e-12);
}

/* Case 2: a 150% spike in minute 1, then 100%: half a minute of delay forever, total 0.5*T
 * (seed 7175-7179). */
static void test_case2_half_minute_forever(void **state)
{
    (void)state;
    double d[T], q[T], served[T], cur[T];
    d[0] = 150;
    for (int t = 1; t < T; t++)
        d[t] = 100;
    cs_delay_series(d, T, 100, CS_DELAY_DRAIN_TIME, 1.0, q, served, cur);
    for (int t = 0; t < T; t++) {
        assert_true(fabs(cur[t] - 0.5) < 1e-12);
        assert_true(fabs(q[t] - 50) < 1e-12);
        assert_true(served[t] == 100);
    }
    struct cs_delay_stats s;
    cs_delay_eval(d, T, 100, CS_DELAY_DRAIN_TIME, 1.0, &s);
    assert_true(fabs(s.total_delay - 0.5 * T) < 1e-9);
    assert_true(fabs(s.max_delay - 0.5) < 1e-12);
    assert_int_equal(s.delayed_steps, T);
    assert_true(s.delayed_fraction == 1.0);
    assert_true(fabs(s.mean_when_delayed - 0.5) < 1e-12);
    /* On one core, core-time and drain time agree. */
    struct cs_delay_stats c;
    cs_delay_eval(d, T, 100, CS_DELAY_CORE_TIME, 1.0, &c);
    assert_true(fabs(c.total_delay - s.total_delay) < 1e-9);
}

/* A Case-3-like series: short repeated spikes that drain; less total delay than Case 2 but a
 * higher maximum (seed 7185-7190). */
static void test_case3_less_total_higher_max(void **state)
{
    (void)state;
    double d[T];
    for (int t = 0; t < T; t++)
        d[t] = t % 60 == 0 ? 200 : 50;
    struct cs_delay_stats s;
    cs_delay_eval(d, T, 100, CS_DELAY_DRAIN_TIME, 1.0, &s);
    assert_true(s.total_delay < 0.5 * T);
    assert_true(s.max_delay > 0.5);
    /* each spike queues 100 (1 minute), drained by 50 per minute: 1 + 0.5 = 1.5 per hour */
    assert_true(fabs(s.total_delay - 1.5 * T / 60) < 1e-9);
    assert_int_equal(s.delayed_steps, 2 * T / 60);
}

/* Fig. 2-like drain on a 12-core host (1200%): overload adds delay, then served utilization
 * exceeds demand while the queue empties (seed 7160-7164). */
static void test_drain_served_exceeds_demand(void **state)
{
    (void)state;
    double d[8] = {1000, 1500, 1500, 900, 900, 900, 600, 600};
    double q[8], served[8], cur[8];
    cs_delay_series(d, 8, 1200, CS_DELAY_DRAIN_TIME, 1.0, q, served, cur);
    double expect_q[8] = {0, 300, 600, 300, 0, 0, 0, 0};
    double expect_served[8] = {1000, 1200, 1200, 1200, 1200, 900, 600, 600};
    for (int t = 0; t < 8; t++) {
        assert_true(fabs(q[t] - expect_q[t]) < 1e-9);
        assert_true(fabs(served[t] - expect_served[t]) < 1e-9);
        assert_true(fabs(cur[t] - expect_q[t] / 1200) < 1e-12);
    }
    /* draining: served above demand at t = 3, 4 */
    assert_true(served[3] > d[3] && served[4] > d[4]);
    struct cs_delay_stats s;
    cs_delay_eval(d, 8, 1200, CS_DELAY_DRAIN_TIME, 1.0, &s);
    assert_true(fabs(s.total_delay - 1200.0 / 1200) < 1e-12);
    assert_true(fabs(s.max_delay - 0.5) < 1e-12);
    assert_int_equal(s.delayed_steps, 3);
    assert_true(s.final_queue == 0);
    /* core-time counts the same backlog in core-minutes: 12 times more */
    struct cs_delay_stats c;
    cs_delay_eval(d, 8, 1200, CS_DELAY_CORE_TIME, 1.0, &c);
    assert_true(fabs(c.total_delay - 12.0) < 1e-12);
    /* 5-minute steps scale minutes by 5 */
    struct cs_delay_stats f;
    cs_delay_eval(d, 8, 1200, CS_DELAY_DRAIN_TIME, 5.0, &f);
    assert_true(fabs(f.total_delay - 5.0) < 1e-12);
}

static void test_bounded_matches_and_stops(void **state)
{
    (void)state;
    double base[T];
    float extra[T];
    for (int t = 0; t < T; t++) {
        base[t] = 60 + 50 * sin(t * 0.1);
        extra[t] = (float)(t % 5 == 0 ? 80 : 10);
    }
    double sum[T];
    for (int t = 0; t < T; t++)
        sum[t] = base[t] + extra[t];
    struct cs_delay_stats s;
    cs_delay_eval(sum, T, 100, CS_DELAY_DRAIN_TIME, 1.0, &s);
    assert_true(s.total_delay > 10);
    double full = cs_delay_total_bounded(base, extra, T, 100, CS_DELAY_DRAIN_TIME, 1.0, 1e300);
    assert_true(fabs(full - s.total_delay) < 1e-9 * s.total_delay);
    double cut = cs_delay_total_bounded(base, extra, T, 100, CS_DELAY_DRAIN_TIME, 1.0, 10);
    assert_true(cut > 10);
    assert_true(cut <= s.total_delay + 1e-9);
    double none = cs_delay_total_bounded(base, NULL, T, 1000, CS_DELAY_DRAIN_TIME, 1.0, 0);
    assert_true(none == 0);
}

static void test_slice_concatenates(void **state)
{
    (void)state;
    float m[2 * 6] = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
    struct cs_demand d = {m, 2, 6, 1.0}, out;
    struct cs_step_range r[2] = {{0, 2}, {4, 6}};
    struct cs_error err;
    assert_int_equal(cs_demand_slice(&d, r, 2, &out, &err), 0);
    assert_int_equal(out.steps, 4);
    float expect[8] = {0, 1, 4, 5, 10, 11, 14, 15};
    for (int i = 0; i < 8; i++)
        assert_true(out.demand[i] == expect[i]);
    free((void *)out.demand);
    struct cs_step_range bad = {3, 7};
    assert_int_equal(cs_demand_slice(&d, &bad, 1, &out, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case1_no_delay),
        cmocka_unit_test(test_case2_half_minute_forever),
        cmocka_unit_test(test_case3_less_total_higher_max),
        cmocka_unit_test(test_drain_served_exceeds_demand),
        cmocka_unit_test(test_bounded_matches_and_stops),
        cmocka_unit_test(test_slice_concatenates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
