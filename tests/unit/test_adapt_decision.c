/* The operator's decision rule (src/adapt/decision.c): each verdict, the order the checks run
 * in, the hour's SMP budget as time passes, quiet windows that wrap midnight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cloudsm/adapt_decision.h"

static const struct cs_adapt_policy on = {.mode = CS_ADAPT_MODE_ON,
                                          .min_gain_percent = 5,
                                          .max_smps_per_percent = 10,
                                          .max_smps_per_hour = 100};

static enum cs_adapt_verdict decide(const struct cs_adapt_policy *p,
                                    const struct cs_adapt_budget *b, double now, unsigned minute,
                                    bool busy, double gain, uint64_t smps, char *why)
{
    return cs_adapt_decide(p, b, now, minute, busy, gain, smps, why, 256);
}

static void test_verdicts_in_order(void **state)
{
    (void)state;
    struct cs_adapt_budget b = {0};
    char why[256];
    /* 20% for 50 SMPs: 2.5 SMPs per percent, in budget, no quiet window. */
    assert_int_equal(decide(&on, &b, 1000, 600, false, 0.20, 50, why), CS_ADAPT_EXECUTE);
    assert_string_equal(why, "50 SMPs for 20.0% less congestion");
    assert_int_equal(decide(&on, &b, 1000, 600, false, 0.20, 0, why), CS_ADAPT_NO_CHANGE);
    struct cs_adapt_policy dry = on;
    dry.mode = CS_ADAPT_MODE_DRY_RUN;
    assert_int_equal(decide(&dry, &b, 1000, 600, false, 0.20, 50, why), CS_ADAPT_MODE_REFUSES);
    assert_string_equal(cs_adapt_verdict_name(CS_ADAPT_MODE_REFUSES, dry.mode), "dry-run");
    assert_int_equal(decide(&on, &b, 1000, 600, false, 0.049, 50, why), CS_ADAPT_TOO_LITTLE_GAIN);
    assert_string_equal(why, "expected gain 4.9% is below the minimum 5%");
    /* 6% allows 60 SMPs; 61 is too many. */
    assert_int_equal(decide(&on, &b, 1000, 600, false, 0.06, 60, why), CS_ADAPT_EXECUTE);
    assert_int_equal(decide(&on, &b, 1000, 600, false, 0.06, 61, why), CS_ADAPT_TOO_COSTLY);
    assert_int_equal(decide(&on, &b, 1000, 600, true, 0.20, 50, why), CS_ADAPT_BUSY);
    /* Gain is judged before the budget: a refusal names the first check that fails. */
    cs_adapt_budget_spend(&b, 1000, 100);
    assert_int_equal(decide(&on, &b, 1001, 600, false, 0.01, 50, why), CS_ADAPT_TOO_LITTLE_GAIN);
    assert_int_equal(decide(&on, &b, 1001, 600, false, 0.20, 50, why), CS_ADAPT_RATE_LIMITED);
}

static void test_budget_hour(void **state)
{
    (void)state;
    struct cs_adapt_budget b = {0};
    char why[256];
    cs_adapt_budget_spend(&b, 0, 60);
    cs_adapt_budget_spend(&b, 1800, 30);
    assert_int_equal(cs_adapt_budget_used(&b, 1800), 90);
    assert_int_equal(decide(&on, &b, 1800, 0, false, 0.5, 11, why), CS_ADAPT_RATE_LIMITED);
    assert_string_equal(why, "11 SMPs would exceed the hour's budget (90 of 100 used)");
    assert_int_equal(decide(&on, &b, 1800, 0, false, 0.5, 10, why), CS_ADAPT_EXECUTE);
    /* An hour after the first execution its 60 SMPs no longer count. */
    assert_int_equal(cs_adapt_budget_used(&b, 3600), 30);
    assert_int_equal(decide(&on, &b, 3600, 0, false, 0.5, 70, why), CS_ADAPT_EXECUTE);
    /* More executions than entries: the oldest merge, none is lost within the hour. */
    struct cs_adapt_budget many = {0};
    for (unsigned i = 0; i < CS_ADAPT_BUDGET_MAX + 10; i++)
        cs_adapt_budget_spend(&many, 100 + i, 1);
    assert_int_equal(cs_adapt_budget_used(&many, 100 + CS_ADAPT_BUDGET_MAX + 9),
                     CS_ADAPT_BUDGET_MAX + 10);
}

static void test_quiet_hours(void **state)
{
    (void)state;
    struct cs_adapt_budget b = {0};
    struct cs_adapt_policy p = on;
    struct cs_error err = {""};
    char why[256];
    assert_int_equal(cs_adapt_quiet_hours_parse(&p, "22:00-06:30", &err), 0);
    assert_int_equal(decide(&p, &b, 0, 23 * 60, false, 0.5, 1, why), CS_ADAPT_QUIET_HOURS);
    assert_string_equal(why, "quiet hours 22:00-06:30");
    assert_int_equal(decide(&p, &b, 0, 6 * 60 + 29, false, 0.5, 1, why), CS_ADAPT_QUIET_HOURS);
    assert_int_equal(decide(&p, &b, 0, 6 * 60 + 30, false, 0.5, 1, why), CS_ADAPT_EXECUTE);
    assert_int_equal(decide(&p, &b, 0, 21 * 60 + 59, false, 0.5, 1, why), CS_ADAPT_EXECUTE);
    assert_int_equal(cs_adapt_quiet_hours_parse(&p, "08:00-18:00", &err), 0);
    assert_int_equal(decide(&p, &b, 0, 8 * 60, false, 0.5, 1, why), CS_ADAPT_QUIET_HOURS);
    assert_int_equal(decide(&p, &b, 0, 18 * 60, false, 0.5, 1, why), CS_ADAPT_EXECUTE);
    assert_int_equal(cs_adapt_quiet_hours_parse(&p, "", &err), 0);
    assert_int_equal(decide(&p, &b, 0, 9 * 60, false, 0.5, 1, why), CS_ADAPT_EXECUTE);
    const char *bad[] = {"8:00-18:00", "08:00-24:00", "08:60-09:00", "08:00 18:00", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(cs_adapt_quiet_hours_parse(&p, bad[i], &err), -1);
        assert_non_null(strstr(err.msg, "HH:MM-HH:MM"));
    }
    assert_int_equal(cs_adapt_mode_parse("dry-run"), CS_ADAPT_MODE_DRY_RUN);
    assert_int_equal(cs_adapt_mode_parse("maybe"), -1);
}

/* The minute of the day quiet hours are judged by: UTC's, or the TZ environment's. */
static void test_minute_of_day(void **state)
{
    (void)state;
    double t = 1795766400; /* 2026-11-27T08:00:00Z */
    assert_int_equal(cs_adapt_minute_of_day(t, true), 480);
    assert_int_equal(cs_adapt_minute_of_day(t + 59.9, true), 480);
    assert_int_equal(cs_adapt_minute_of_day(t + 60, true), 481);
    assert_int_equal(cs_adapt_minute_of_day(t + 16 * 3600 - 1, true), 1439);
    setenv("TZ", "<-0530>5:30", 1); /* 05:30 behind UTC */
    tzset();
    assert_int_equal(cs_adapt_minute_of_day(t, false), 150);
    assert_int_equal(cs_adapt_minute_of_day(t, true), 480);
    unsetenv("TZ");
    tzset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts_in_order),
        cmocka_unit_test(test_budget_hour),
        cmocka_unit_test(test_quiet_hours),
        cmocka_unit_test(test_minute_of_day),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
