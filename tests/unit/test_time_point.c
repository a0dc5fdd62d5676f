/* Points in time from the command line: durations back from now, ISO 8601 with zones, epoch
 * seconds, and what is refused (with a message that says what to write instead). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/time_point.h"

#define NOW 1795737600.0 /* 2026-11-27T00:00:00Z */

static double parse(const char *text)
{
    double out = -1;
    struct cs_error err = {""};
    if (cs_time_point_parse(text, NOW, &out, &err) != 0)
        fail_msg("%s: %s", text, err.msg);
    return out;
}

static void refused(const char *text, const char *says)
{
    double out = -1;
    struct cs_error err = {""};
    assert_int_equal(cs_time_point_parse(text, NOW, &out, &err), -1);
    if (!strstr(err.msg, says))
        fail_msg("'%s': expected the error to say '%s', got '%s'", text, says, err.msg);
    assert_true(out == -1); /* nothing written on failure */
}

static void test_durations(void **state)
{
    (void)state;
    assert_true(parse("now") == NOW);
    assert_true(parse("30s") == NOW - 30);
    assert_true(parse("5m") == NOW - 300);
    assert_true(parse("2h") == NOW - 7200);
    assert_true(parse("1d") == NOW - 86400);
    assert_true(parse("1w") == NOW - 7 * 86400);
    assert_true(parse("1h30m") == NOW - 5400);
    assert_true(parse("1.5h") == NOW - 5400);
    assert_true(parse("0s") == NOW);
    refused("5", "a duration needs a unit (5s)");
    refused("5x", "units are s, m, h, d and w");
    refused("m", "is not a time");
    refused("-5m", "is not a time");
    refused("5m ", "is not a time");
    refused("1.h", "is not a time");
    refused("", "an empty time");
}

/* A duration alone (cloudsm adapt simulate --step): the same forms, no time points. */
static void test_duration_alone(void **state)
{
    (void)state;
    double s = -1;
    struct cs_error err = {""};
    assert_int_equal(cs_duration_parse("10s", &s, &err), 0);
    assert_true(s == 10);
    assert_int_equal(cs_duration_parse("1h30m", &s, &err), 0);
    assert_true(s == 5400);
    assert_int_equal(cs_duration_parse("0.5s", &s, &err), 0);
    assert_true(s == 0.5);
    s = -1;
    assert_int_equal(cs_duration_parse("now", &s, &err), -1);
    assert_non_null(strstr(err.msg, "'now' is not a duration (10s, 5m"));
    assert_int_equal(cs_duration_parse("10", &s, &err), -1);
    assert_non_null(strstr(err.msg, "units are s, m, h, d and w"));
    assert_int_equal(cs_duration_parse("2026-11-27", &s, &err), -1);
    assert_int_equal(cs_duration_parse("", &s, &err), -1);
    assert_non_null(strstr(err.msg, "an empty duration"));
    assert_true(s == -1); /* nothing written on failure */
}

static void test_iso(void **state)
{
    (void)state;
    /* 2026-11-27 is day 20784 since 1970-01-01: 20784 * 86400 = NOW */
    assert_true(parse("2026-11-27T00:00:00Z") == NOW);
    assert_true(parse("2026-11-27") == NOW);
    assert_true(parse("2026-11-27T08:00:00Z") == NOW + 8 * 3600);
    assert_true(parse("2026-11-27 08:00Z") == NOW + 8 * 3600);
    assert_true(parse("2026-11-27T08:00:00+01:00") == NOW + 7 * 3600);
    assert_true(parse("2026-11-27T08:00:00-0530") == NOW + 13.5 * 3600);
    assert_true(parse("2026-11-27T08:00+02") == NOW + 6 * 3600);
    assert_true(parse("2026-11-27T08:00:00.25Z") == NOW + 8 * 3600 + 0.25);
    assert_true(parse("1970-01-01T00:00:00Z") == 0);
    /* leap years: 2024-02-29 exists, 2100-02-29 does not; 2000-02-29 does */
    assert_true(parse("2024-03-01") - parse("2024-02-28") == 2 * 86400);
    assert_true(parse("2000-03-01") - parse("2000-02-28") == 2 * 86400);
    refused("2100-02-29", "no such date");
    refused("2026-13-01", "no such date");
    refused("1969-12-31", "no such date");
    refused("2026-11-27T08:00:00", "has no zone: add Z");
    refused("2026-11-27T24:00Z", "no such time of day");
    refused("2026-11-27T08:00:60Z", "no such time of day");
    refused("2026-11-27T08Z", "is not an ISO 8601 time");
    refused("2026-11-27T08:00Zjunk", "extra 'junk'");
    refused("2026-11-27T08:00+25:00", "no such zone offset");
}

static void test_epoch(void **state)
{
    (void)state;
    assert_true(parse("1795737600") == NOW);
    assert_true(parse("1795737600.5") == NOW + 0.5);
    assert_true(parse("@30") == 30);
    refused("30", "a duration needs a unit (30s), an old time an @ (@30)");
    refused("@", "not a number of seconds");
    refused("@1e9", "not a number of seconds");
    refused("99999999999999", "after the year 9999");
}

static void test_format(void **state)
{
    (void)state;
    char buf[CS_TIME_POINT_MAX];
    assert_string_equal(cs_time_point_format(NOW, buf, sizeof buf), "2026-11-27T00:00:00Z");
    assert_string_equal(cs_time_point_format(NOW + 8 * 3600 + 61.25, buf, sizeof buf),
                        "2026-11-27T08:01:01.250Z");
    assert_string_equal(cs_time_point_format(0, buf, sizeof buf), "1970-01-01T00:00:00Z");
    assert_string_equal(cs_time_point_format(951782400, buf, sizeof buf), "2000-02-29T00:00:00Z");
    assert_string_equal(cs_time_point_format(-1.5, buf, sizeof buf), "-1.500");
    /* what it prints parses back to the same time */
    double times[] = {NOW, NOW + 0.001, 951782400 + 86399.999, 4102444800 /* 2100-01-01 */};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        assert_true(parse(cs_time_point_format(times[i], buf, sizeof buf)) - times[i] < 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations), cmocka_unit_test(test_duration_alone),
        cmocka_unit_test(test_iso),       cmocka_unit_test(test_epoch),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
